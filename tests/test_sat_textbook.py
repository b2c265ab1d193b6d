"""The sat backend's CNF against the textbook 3-D CNF of QWH (issue 25 item 2), and the
formula shuffles of ``benchmarks/cnf_textbook.py``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.cnf_textbook import TEXTBOOK, build
from benchmarks.hard import _cnf_3d
from futocp.backends.sat import SatBackend, given_lists, lists_for, permute_cnf
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
    form = SatBackend().compile(model, card="pairwise", lists="filtered")
    var_of = {cell_label: var for var, cell_label in meaning.items()}
    ours = {frozenset((1 if lit > 0 else -1) * var_of[form.var_map[abs(lit)][0],
                                                     model.values[form.var_map[abs(lit)][1]]]
                      for lit in cl) for cl in form.cnf.clauses}
    assert ours == _after_unit_propagation(textbook)
    assert form.n_clauses == len(ours) and len(form.var_map) < len(meaning)


@pytest.mark.parametrize("solver", ["kissat404", "cadical195", "glucose42"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_default_cnf_is_the_textbook_cnf_then_the_filterings_units(path: Path,
                                                                       solver: str) -> None:
    # lists=auto (givens on a Latin square) and card_long=auto (pairwise: few long
    # lists): the textbook's clauses in its order and numbering, then one unit per
    # value the Model's filtering removed (negative) or fixed (positive)
    board = read(path)
    textbook, meaning = _cnf_3d(board)
    model = build_model(board)
    form = SatBackend().compile(model, solver=solver)
    assert form.cnf.clauses[:len(textbook)] == textbook and form.n_vars == len(meaning)
    units = form.cnf.clauses[len(textbook):]
    assert units == [[lit] for lit in form.units]
    for lit in form.units:
        c, label = meaning[abs(lit)]
        v = model.values.index(label)
        assert (model.domains[c] == 1 << v) if lit > 0 else not model.domains[c] >> v & 1
    clues = {con.cell for con in model.fixed}
    assert len(form.units) == sum((given & ~mine).bit_count() + (mine.bit_count() == 1)
                                  for c, (given, mine) in enumerate(zip(given_lists(model),
                                                                        model.domains, strict=True))
                                  if c not in clues)
    assert (len(form.units) > 0) == path.suffix.endswith("pls")  # the CSPLib files: none


def test_trailing_units_leave_the_textbook_search() -> None:
    # CaDiCaL takes the same search path on the default CNF as on the textbook's: the
    # same conflicts (with the units first, or with the formula propagated, it does not)
    from pysat.solvers import Solver

    board = read(FILES[2])
    textbook, _ = _cnf_3d(board)
    ours = SatBackend().compile(build_model(board), solver="cadical195").cnf.clauses
    propagated = SatBackend().compile(build_model(board), solver="cadical195",
                                      lists="filtered").cnf.clauses
    counts = []
    for clauses in (textbook, ours, propagated):
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            assert s.solve()
            counts.append(s.accum_stats()["conflicts"])
    assert counts[0] == counts[1] != counts[2]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_permutation_pairs_the_default_cnf_with_the_textbook(seed: int) -> None:
    # the same seed permutes what the two formulas share the same way (the units last),
    # so the solver's search stays the textbook's
    from pysat.solvers import Solver

    board = read(FILES[0])
    textbook, meaning = _cnf_3d(board)
    ours = SatBackend().compile(build_model(board), solver="cadical195").cnf.clauses
    assert len(ours) > len(textbook)
    mixed = [permute_cnf(clauses, len(meaning), seed)[0] for clauses in (textbook, ours)]
    assert mixed[0] != textbook
    longer = [[cl for cl in clauses if len(cl) > 1] for clauses in mixed]
    units = [[cl[0] for cl in clauses if len(cl) == 1] for clauses in mixed]
    assert longer[0] == longer[1] and set(units[0]) < set(units[1])
    assert units[1] == sorted(units[1], key=abs) and mixed[1][-len(units[1]):] == [[u] for u in units[1]]
    counts = []
    for clauses in mixed:
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            assert s.solve()
            counts.append(s.accum_stats()["conflicts"])
    assert counts[0] == counts[1]


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
    for lists in ("givens", "filtered"):  # either lists, on Futoshiki boards too
        assert all_solutions(board, lists=lists, solver="cadical195").n_solutions == expected


def test_shuffle_is_an_option_that_keeps_the_answer() -> None:
    board = read(FILES[0])
    model = build_model(board)
    plain = SatBackend().solve(model, solver="cadical195")
    mixed = SatBackend().solve(model, solver="cadical195", shuffle=4)
    assert verify(board, plain.solutions[0]) == verify(board, mixed.solutions[0]) == []
    with pytest.raises(UsageError, match="shuffle"):
        SatBackend().solve(model, shuffle=-1)


def test_option_lists() -> None:
    square = build_model(latin_square(4, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]))
    board = futoshiki(4, [[1, 0, 0, 0]] + [[0] * 4] * 3, [((1, 0), (1, 1))])
    unequal = build_model(board)
    assert lists_for(square) == "givens" and lists_for(unequal) == "filtered"
    assert lists_for(unequal, "givens") == "givens"
    for model in (square, unequal):  # never less than the Model's lists
        assert all(d & ~g == 0 for g, d in zip(given_lists(model), model.domains, strict=True))
    form = SatBackend().compile(unequal, lists="givens")
    assert form.units and form.stats["list_units"] == len(form.units)
    assert form.cnf.clauses[-len(form.units):] == [[lit] for lit in form.units]
    assert form.to_opb().count(" = 0 ;") >= sum(lit < 0 for lit in form.units)
    r = SatBackend().solve(unequal, lists="givens", limit=None)
    assert r.n_solutions == brute_force_count(board) and r.stats["list_units"] == len(form.units)
    with pytest.raises(UsageError, match="lists"):
        SatBackend().solve(square, lists="all")
