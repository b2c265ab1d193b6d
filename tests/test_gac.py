"""filtering=gac: Régin's GAC of every all-different group, with the list filtering.

* one group: :func:`futocp.gac.revise_group` keeps exactly the values some
  assignment of the group uses (brute force over every assignment of random
  small lists: permutations, multisets with capacities, partial groups);
* boards: the ``gac`` model never removes a label a solution puts there (the
  oracle counts the solutions with that label placed), its conflicts are real,
  and its lists are inside those of the default filtering;
* backends: every complete backend agrees with the oracle under ``gac``.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from futocp.families import latin_square
from futocp.gac import gac_filter, revise_group
from futocp.model import FILTERINGS, build_model

from .oracle import brute_force_count
from .strategies import COMPLETE, agree, futoshiki_boards, multiset_boards, relation_boards


def _supported(doms: list[int], caps: list[int]) -> list[int] | None:
    """Per cell, the values some assignment within the caps uses (None: no assignment)."""
    out = [0] * len(doms)
    found = False
    choices = [[v for v in range(len(caps)) if d >> v & 1] for d in doms]
    for assign in itertools.product(*choices):
        if all(assign.count(v) <= caps[v] for v in set(assign)):
            found = True
            for j, v in enumerate(assign):
                out[j] |= 1 << v
    return out if found else None


@st.composite
def groups(draw):
    """Random lists for one group and its value capacities: a permutation group, a
    multiset group (capacities summing to the cells) or a partial group (more values)."""
    n = draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["permutation", "multiset", "partial"]))
    if kind == "permutation":
        caps = [1] * n
    elif kind == "partial":
        caps = [1] * (n + draw(st.integers(1, 3)))
    else:
        cuts = sorted(draw(st.lists(st.integers(0, n), min_size=1, max_size=3)))
        caps = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True) if b > a]
    full = (1 << len(caps)) - 1
    doms = draw(st.lists(st.integers(1, full), min_size=n, max_size=n))
    return doms, caps


@settings(max_examples=200, deadline=None)
@given(groups())
def test_revise_group_is_exactly_gac(group):
    doms, caps = group
    assert revise_group(doms, caps) == _supported(doms, caps)


def test_revise_group_hall_set_and_hidden_single():
    # cells 0 and 1 hold {0, 1} only: cell 2 and 3 lose them; value 3 fits cell 3 only
    assert revise_group([0b0011, 0b0011, 0b0111, 0b1111], [1, 1, 1, 1]) == [3, 3, 4, 8]
    # multiset: value 0 twice, value 1 twice; cell 0 is the only one without 1
    assert revise_group([0b01, 0b11, 0b11, 0b11], [2, 2]) == [1, 3, 3, 3]


def test_gac_filter_reports_a_group_with_no_assignment():
    # three cells of one group share two values: no matching
    doms, removed, bad = gac_filter([0b11, 0b11, 0b11], [((0, 1, 2), (1, 1, 1))],
                                    lambda d, touched: (list(d), 0, None))
    assert bad == 0


def _board_check(board):
    assume(board.k <= 4)  # the oracle's search is quick up to order 4
    none = build_model(board, "none")
    lists = build_model(board, "lists")
    gac = build_model(board, "gac")
    if lists.conflict is not None:  # at least as strong: a lists conflict stays one
        assert gac.conflict is not None
    if gac.conflict is not None:
        assert brute_force_count(board, 1) == 0
        return
    clued = board.clue_map
    for cell in range(board.n_cells):
        assert gac.domains[cell] & ~lists.domains[cell] == 0, cell
        if cell in clued:
            continue
        for v in range(gac.n_values):
            if none.domains[cell] >> v & 1 and not gac.domains[cell] >> v & 1:
                placed = board.with_clues({**clued, cell: gac.values[v]})
                assert brute_force_count(placed, 1) == 0, (cell, gac.values[v])
    fixed = sum(1 for c, d in enumerate(gac.domains) if d & (d - 1) == 0 and c not in clued)
    assert gac.stats["fixed_cells"] == fixed >= lists.stats["fixed_cells"]
    assert gac.stats["removed_values"] >= lists.stats["removed_values"]


SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SMALL
@given(futoshiki_boards())
def test_gac_keeps_every_solution_futoshiki(board):
    _board_check(board)


@SMALL
@given(multiset_boards())
def test_gac_keeps_every_solution_multiset(board):
    _board_check(board)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relation_boards())
def test_gac_keeps_every_solution_relations(board):
    _board_check(board)


def test_gac_is_stronger_than_lists_on_a_hall_pair():
    # row 0: cells (0,2), (0,3) can only be 3 or 4 (columns hold 1 and 2) -- a naked
    # pair the list filtering does not see; gac then fixes (0,0) and (0,1)
    board = latin_square(4, [[0, 0, 0, 0], [0, 0, 1, 2], [0, 0, 2, 1], [0, 0, 0, 0]])
    lists = build_model(board, "lists")
    gac = build_model(board, "gac")
    assert gac.stats["removed_values"] > lists.stats["removed_values"]
    assert gac.domain(0) == [0, 1] and gac.domain(2) == [2, 3]
    assert lists.domain(0) == [0, 1, 2, 3]


def test_gac_is_a_filtering_level():
    assert "gac" in FILTERINGS
    assert build_model(latin_square(3), "gac").stats["fixed_cells"] == 0


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(futoshiki_boards(), multiset_boards(), relation_boards()))
def test_backends_agree_with_gac(board):
    agree(board, "gac")
