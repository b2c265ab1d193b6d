"""The sat backend's CNF against the textbook 3-D CNF of QWH (issue 25 item 2), and the
formula shuffles of ``benchmarks/cnf_textbook.py``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.cnf_textbook import TEXTBOOK, build
from benchmarks.hard import _cnf_3d
from futocp.backends.sat import SatBackend, permute_cnf
from futocp.board import Board
from futocp.errors import UsageError
from futocp.families import futoshiki, latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import all_solutions

pytest.importorskip("pysat", reason="python-sat is not installed")

QWH = Path(__file__).resolve().parent.parent / "instances" / "qwh"
FILES = [QWH / "lsencode" / "qwh.order30.holes316.pls", QWH / "lsencode" / "qwh.order18.holes120.pls",
         QWH / "csplib067" / "qwh-o30-h374-01.dzn"]


def _after_unit_propagation(clauses: list[list[int]]) -> set[frozenset[int]]:
    """The clauses that root-level unit propagation leaves, without their false literals."""
    from pysat.solvers import Solver

    units = [cl[0] for cl in clauses if len(cl) == 1]
    with Solver(name="minisat22", bootstrap_with=[cl for cl in clauses if len(cl) > 1]) as s:
        ok, lits = s.propagate(assumptions=units)
    assert ok
    value = {abs(lit): lit > 0 for lit in lits}
    return {frozenset(lit for lit in cl if abs(lit) not in value) for cl in clauses
            if not any(value.get(abs(lit)) == (lit > 0) for lit in cl)}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_pairwise_is_the_textbook_cnf_after_unit_propagation(path: Path) -> None:
    # the same clauses, literal for literal, under the map (cell, label): what a CDCL
    # solver has after its own root-level propagation of the textbook CNF
    board = read(path)
    textbook, meaning = _cnf_3d(board)
    model = build_model(board)
    form = SatBackend().compile(model, card="pairwise")
    var_of = {cell_label: var for var, cell_label in meaning.items()}
    ours = {frozenset((1 if lit > 0 else -1) * var_of[form.var_map[abs(lit)][0],
                                                     model.values[form.var_map[abs(lit)][1]]]
                      for lit in cl) for cl in form.cnf.clauses}
    assert ours == _after_unit_propagation(textbook)
    assert form.n_clauses == len(ours) and len(form.var_map) < len(meaning)


@pytest.mark.parametrize("formula", ["futocp", "futocp:card=pairwise", TEXTBOOK])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a_shuffled_formula_reads_back_to_a_verified_solution(formula: str, seed: int) -> None:
    from pysat.solvers import Solver

    board = read(FILES[0])
    clauses, n_vars, reader = build(board, formula)
    mixed, _, back = permute_cnf(clauses, n_vars, seed)
    assert sorted(map(sorted, mixed)) != sorted(map(sorted, clauses)) or seed == 0
    assert sorted(len(cl) for cl in mixed) == sorted(len(cl) for cl in clauses)
    with Solver(name="cadical195", bootstrap_with=mixed) as s:
        assert s.solve()
        true = {back[lit] for lit in s.get_model() if lit > 0}
    assert verify(board, reader(true)) == []


def _random_board(seed: int) -> Board:
    """A 4x4 or 5x5 Latin square with a few clues of a hidden solution, some
    inequalities on Futoshiki boards (many solutions)."""
    rng = random.Random(seed)
    n = rng.choice((4, 5))
    grid = [[(r + c) % n + 1 for c in range(n)] for r in range(n)]
    rng.shuffle(grid)
    clues = [[v if rng.random() < 0.2 else 0 for v in row] for row in grid]
    if seed % 2:
        return latin_square(n, clues)
    less = [((r, c), (r, c + 1)) for r in range(n) for c in range(n - 1)
            if rng.random() < 0.15 and grid[r][c] < grid[r][c + 1]]
    return futoshiki(n, clues, less)


@pytest.mark.parametrize("seed", range(1, 8))  # 1 to 72 solutions each
def test_shuffled_cnfs_count_like_the_oracle(seed: int) -> None:
    board = _random_board(seed)
    expected = brute_force_count(board)
    for shuffle, solver in ((0, "cadical195"), (1, "cadical195"), (seed + 2, "glucose42"),
                            (3, "kissat404")):
        r = all_solutions(board, shuffle=shuffle, solver=solver)
        assert r.n_solutions == expected, (shuffle, solver)


def test_shuffle_is_an_option_that_keeps_the_answer() -> None:
    board = read(FILES[0])
    model = build_model(board)
    plain = SatBackend().solve(model, solver="cadical195")
    mixed = SatBackend().solve(model, solver="cadical195", shuffle=4)
    assert verify(board, plain.solutions[0]) == verify(board, mixed.solutions[0]) == []
    with pytest.raises(UsageError, match="shuffle"):
        SatBackend().solve(model, shuffle=-1)
