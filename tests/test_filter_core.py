"""The compiled list filtering (``futocp._filter_core``) against its Python reference.

Both run the same loop in the same order: on the same input they must give the
same lists, the same count of removed values and the same first empty cell.
Also: lists wider than 64 bits and cages go to the Python, bad input raises
instead of crashing, and ``build_model`` gives the same Model either way.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from futocp import propagate
from futocp.board import Board
from futocp.model import build_model
from futocp.propagate import filter_lists, filter_lists_python

from .relation_boards import KINDS, relation_board
from .strategies import futoshiki_boards, multiset_boards

core = pytest.importorskip("futocp._filter_core",
                           reason="the compiled filtering is not built (pip install -e .)")


@st.composite
def raw_inputs(draw: st.DrawFn) -> tuple:
    """Random filtering inputs of every kind the core takes (no cages)."""
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 6))
    full = (1 << m) - 1
    cell = st.integers(0, n - 1)
    domains = draw(st.lists(st.integers(0, full).map(lambda d: d or full) | st.just(0),
                            min_size=n, max_size=n))
    cells = st.lists(cell, min_size=1, max_size=n, unique=True).map(tuple)
    counts = st.none() | st.lists(st.integers(1, 3), min_size=m, max_size=m).map(tuple)
    groups = draw(st.lists(st.tuples(cells, counts), max_size=4))
    pair = st.tuples(cell, cell).filter(lambda p: p[0] != p[1])
    less = draw(st.lists(pair, max_size=6))
    distinct = draw(st.lists(cells, max_size=2))
    support = st.lists(st.integers(0, full), min_size=m, max_size=m).map(tuple)
    binary = draw(st.lists(st.tuples(pair, support, support).map(lambda t: (*t[0], t[1], t[2])),
                           max_size=4))
    touched = draw(st.none() | st.lists(cell, max_size=n))
    return n, domains, groups, less, distinct, binary, touched


@settings(max_examples=400, deadline=None)
@given(raw_inputs())
def test_core_equals_reference(args: tuple) -> None:
    n, domains, groups, less, distinct, binary, touched = args
    ref = filter_lists_python(n, domains, groups, less, distinct=distinct, binary=binary,
                              touched=touched)
    out = core.filter_lists(n, domains, groups, less, distinct, binary, touched)
    assert out == ref


def _same_models(board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    for filtering in ("lists", "gac"):
        compiled = build_model(board, filtering)
        with monkeypatch.context() as m:
            m.setattr(propagate, "_filter_core", None)
            python = build_model(board, filtering)
        assert compiled.domains == python.domains
        assert compiled.conflict == python.conflict
        assert compiled.stats["removed_values"] == python.stats["removed_values"]
        assert compiled.stats["fixed_cells"] == python.stats["fixed_cells"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(futoshiki_boards() | multiset_boards())
def test_build_model_same_either_way(monkeypatch: pytest.MonkeyPatch, board: Board) -> None:
    _same_models(board, monkeypatch)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(4, 6), st.booleans(), st.sampled_from(KINDS))
def test_relation_boards_same_either_way(monkeypatch: pytest.MonkeyPatch, seed: int, n: int,
                                         truthful: bool, kind: str) -> None:
    _same_models(relation_board(n, (kind,), seed, truthful=truthful), monkeypatch)


def test_a_conflict_names_the_same_cell() -> None:
    # cells 0 and 1 both hold the single label 0 of one group: the queue pops
    # cell 2 (nothing to do), then cell 1, which finds cell 0 holding its label
    args = (3, [0b01, 0b01, 0b11], [((0, 1, 2), None)], [], [], [], None)
    assert core.filter_lists(*args) == filter_lists_python(*args[:4]) == ([1, 1, 3], 0, 0)


def test_wide_lists_go_to_python() -> None:
    wide = (1 << 70) - 1
    assert core.filter_lists(2, [1, wide], [((0, 1), None)], [], [], [], None) is None
    assert filter_lists(2, [1, wide], [((0, 1), None)]) == ([1, wide - 1], 1, None)


def test_cages_go_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(propagate, "_filter_core", type("Spy", (), {
        "filter_lists": staticmethod(lambda *a: calls.append(a))}))
    out = filter_lists(2, [0b11, 0b11], [], cages=[((0, 1), (0b11,))])
    assert calls == [] and out == ([0b11, 0b11], 0, None)
    filter_lists(2, [0b11, 0b11], [((0, 1), None)])
    assert len(calls) == 1  # no cages: the core is asked (the spy answers None: Python runs)


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError):
        core.filter_lists(2, [1, 3], [((0, 5), None)], [], [], [], None)
    with pytest.raises(ValueError):
        core.filter_lists(3, [1, 3], [], [], [], [], None)
    with pytest.raises(ValueError):  # a value with no support entry
        core.filter_lists(2, [0b100, 0b111], [], [], [], [(0, 1, (1, 1), (1, 1))], None)
