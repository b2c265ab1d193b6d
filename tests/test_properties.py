"""Hypothesis: every complete backend agrees on random small boards.

Boards are random Futoshiki (n <= 5, random clues and inequalities, satisfiable
or not), random general boards with repeated labels, and boards with relations
of every kind (Killer cages, Keen cages, Towers clues...); for each, every complete
backend must give the same status and the same number of solutions up to a
limit, equal to the brute-force oracle's count (tests/oracle.py), and every
solution must pass verify(). With ``pytest --backend NAME`` the suite runs for
that backend alone, against the oracle.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from futocp.backends import get_backend
from futocp.board import Board
from futocp.errors import BoardError
from futocp.families import futoshiki, grid_lines
from futocp.model import build_model
from futocp.verify import verify

from .conftest import available_backends
from .oracle import brute_force_count

LIMIT = 8
COMPLETE = available_backends(complete_only=True)


@st.composite
def futoshiki_boards(draw):
    n = draw(st.integers(2, 5))
    cells = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    clues = draw(st.dictionaries(cells, st.integers(1, n), max_size=n + 2))
    givens = [[clues.get((r, c), 0) for c in range(n)] for r in range(n)]
    pairs = []
    for (r, c) in draw(st.lists(cells, max_size=2 * n, unique=True)):
        dr, dc = draw(st.sampled_from([(0, 1), (1, 0)]))
        if r + dr < n and c + dc < n:
            a, b = (r, c), (r + dr, c + dc)
            pairs.append((a, b) if draw(st.booleans()) else (b, a))
    try:
        return futoshiki(n, givens, less=pairs)
    except BoardError:
        assume(False)


@st.composite
def multiset_boards(draw):
    """A rows x cols grid whose rows and columns hold the same multiset (rows == cols)."""
    n = draw(st.integers(2, 4))
    labels = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    clues = draw(st.dictionaries(st.integers(0, n * n - 1), st.sampled_from(labels), max_size=n))
    return Board(n * n, tuple(grid_lines(n, n)), tuple(labels), clues=tuple(clues.items()),
                 shape=(n, n))


def agree(board, filtering):
    answers = {}
    for name in COMPLETE:
        backend = get_backend(name)
        model = build_model(board, filtering)
        if model.features - backend.supported():
            continue
        result = backend.solve(model, limit=LIMIT, time_limit=60)
        assert result.ok, f"{name} did not finish"
        for sol in result.solutions:
            assert verify(board, sol) == [], (name, sol)
        assert len(set(result.solutions)) == result.n_solutions, name
        answers[name] = (result.status.value, result.n_solutions)
    assert len(set(answers.values())) <= 1, answers
    expected = brute_force_count(board, LIMIT)
    for name, (status, n_solutions) in answers.items():
        assert n_solutions == expected, (name, n_solutions, expected)
        assert status == ("sat" if expected else "unsat"), name


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(futoshiki_boards(), st.sampled_from(["lists", "none"]))
def test_backends_agree_on_random_futoshiki(board, filtering):
    agree(board, filtering)


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(multiset_boards(), st.sampled_from(["lists", "none"]))
def test_backends_agree_on_random_multiset_boards(board, filtering):
    agree(board, filtering)


@st.composite
def relation_boards(draw):
    """A small Latin square or 4x4 Sudoku with random relations of every kind, or a small
    Keen or Towers."""
    from .relation_boards import KINDS, keen_board, killer_board, relation_board, towers_board

    pick = draw(st.integers(0, 5))
    if pick == 0:
        return killer_board(draw(st.integers(0, 10_000)), givens=draw(st.integers(0, 3)),
                            wrong_sum=draw(st.booleans()))
    if pick == 1:  # Keen: arith cages cover the grid
        return keen_board(draw(st.integers(3, 4)), draw(st.integers(0, 10_000)),
                          truthful=draw(st.booleans()))
    if pick == 2:  # Towers: visible clues on rows and columns
        n = draw(st.integers(3, 4))
        return towers_board(n, draw(st.integers(0, 10_000)), draw(st.integers(1, 4 * n)),
                            givens=draw(st.integers(0, n)), truthful=draw(st.booleans()))
    n = draw(st.integers(3, 4))
    kinds = tuple(draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4, unique=True)))
    return relation_board(n, kinds, seed=draw(st.integers(0, 10_000)),
                          count=draw(st.integers(1, 2 * n)), givens=draw(st.integers(0, n)),
                          truthful=draw(st.booleans()))


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relation_boards(), st.sampled_from(["lists", "none"]))
def test_backends_agree_on_random_relation_boards(board, filtering):
    agree(board, filtering)
