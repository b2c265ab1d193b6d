"""The python-constraint backend: counts, unsat, limits, the time limit that kills the search."""

from __future__ import annotations

import dataclasses
import random

import pytest

from futocp.backends import REGISTRY
from futocp.backends.pyconstraint import PyconstraintBackend, count_constraint, support_constraint
from futocp.board import Board
from futocp.errors import UnsupportedError, UsageError
from futocp.families import futoshiki, grid_lines, latin_square, sudoku
from futocp.model import build_model
from futocp.relations import Relation, RelationKind, register, unregister
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import (
    BINARY_KINDS,
    apart_gap_board,
    apart_kind,
    hidden_board,
    hidden_sudoku4,
    kind_board,
    random_cages,
)

pytest.importorskip("constraint", reason="python-constraint2 is not installed")

BACKTRACKING = ("optimized", "backtracking", "recursive")


def multiset_board(labels: tuple[int, ...] = (1, 1, 2, 2), clues: tuple = ()) -> Board:
    """A 4 x 4 grid whose rows and columns each hold ``labels``."""
    return Board(16, tuple(grid_lines(4, 4)), labels, clues=clues, shape=(4, 4))


def pigeonhole(n: int) -> Board:
    """An unsatisfiable Latin square that list filtering does not see through.

    Labels n-1 and n sit below the first n-1 cells of row 0 (a permutation each),
    so those n-1 cells share n-2 labels: forward checking needs about (n-2)!
    nodes to prove it.
    """
    g = [[0] * n for _ in range(n)]
    for c in range(n - 1):
        g[1 + c][c] = n - 1
        g[1 + (c + 1) % (n - 1)][c] = n
    return latin_square(n, g)


def solve(board: Board, **kw):
    model = build_model(board)
    result = PyconstraintBackend().solve(model, **kw)
    for sol in result.solutions:
        assert verify(board, sol) == []
    assert len(set(result.solutions)) == len(result.solutions)
    return result


def test_registered() -> None:
    assert REGISTRY["pyconstraint"] is PyconstraintBackend
    assert PyconstraintBackend.available() is True


@pytest.mark.parametrize("solver", BACKTRACKING)
def test_latin_square_4_count(solver: str) -> None:
    r = solve(latin_square(4), limit=None, solver=solver)
    assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, 576, True)
    assert r.stats["solutions"] == 576


@pytest.mark.parametrize("less", ["chains", "pairs"])
@pytest.mark.parametrize("alldifferent", ["library", "permutation"])
def test_futoshiki_count(alldifferent: str, less: str) -> None:
    # first row fixed to 1 2 3 4 leaves 4 x 4 Latin squares with that row: 576 / 24 = 24;
    # (1,0) < (2,0) and (3,3) < (3,2) cut them further: counted by brute force below
    board = futoshiki(4, [[1, 2, 3, 4], [0] * 4, [0] * 4, [0] * 4],
                      less=[((1, 0), (2, 0)), ((3, 3), (3, 2))])
    every = solve(latin_square(4, [[1, 2, 3, 4], [0] * 4, [0] * 4, [0] * 4]), limit=None)
    expected = sum(1 for s in every.solutions if s[4] < s[8] and s[15] < s[14])
    assert 0 < expected < 24
    r = solve(board, limit=None, alldifferent=alldifferent, less=less)
    assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, expected, True)


@pytest.mark.parametrize("count", ["gcc", "someinset"])
@pytest.mark.parametrize("solver", BACKTRACKING)
def test_multiset_board_count(count: str, solver: str) -> None:
    # 0/1 matrices of order 4 with every row and column sum 2: 90
    r = solve(multiset_board(), limit=None, count=count, solver=solver)
    assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, 90, True)


def test_multiset_board_with_clues_and_strings() -> None:
    # first row a a b b: the 90 split by first row into 6 equal classes
    board = Board(16, tuple(grid_lines(4, 4)), ("a", "a", "b", "b"),
                  clues=((0, "a"), (1, "a"), (2, "b"), (3, "b")), shape=(4, 4))
    r = solve(board, limit=None)
    assert (r.status, r.n_solutions) == (Status.SAT, 15)


def test_count_constraint_on_partial_assignments() -> None:
    from constraint import Domain

    con = count_constraint((2, 1, 1))
    cells = [0, 1, 2, 3]
    doms = {c: Domain([0, 1, 2]) for c in cells}
    for d in doms.values():
        d.pushState()
    assert con(cells, doms, {0: 0, 1: 0}, True)
    assert list(doms[2]) == [1, 2] and list(doms[3]) == [1, 2]  # value 0 is used up
    assert not con(cells, doms, {0: 0, 1: 0, 2: 0})  # used three times
    assert con(cells, doms, {0: 0, 1: 1, 2: 0, 3: 2})
    # value 0 still needs two cells but only one free cell can hold it
    free = {1: Domain([0, 2]), 2: Domain([1, 2]), 3: Domain([0, 1, 2])}
    assert con(cells, free, {0: 1}, False)
    free[3].hideValue(0)
    assert not con(cells, free, {0: 1}, False)
    # forcing: value 0 needs two cells and only two can take it; value 2 has one cell left
    doms = {1: Domain([0, 2]), 2: Domain([0, 1, 2]), 3: Domain([1, 2])}
    assert con(cells, doms, {0: 1}, True)
    assert (list(doms[1]), list(doms[2]), list(doms[3])) == ([0], [0], [2])


def test_chain_constraint_propagates_bounds() -> None:
    from constraint import Domain

    from futocp.backends.pyconstraint import _chain_class

    con = _chain_class()([(0, 1), (1, 2)])  # x0 < x1 < x2
    doms = {c: Domain([0, 1, 2, 3]) for c in range(3)}
    assert con([0, 1, 2], doms, {0: 1}, True)
    assert (list(doms[1]), list(doms[2])) == ([2], [3])
    doms = {c: Domain([0, 1, 2, 3]) for c in range(3)}
    assert not con([0, 1, 2], doms, {2: 1}, True)  # x0 < x1 < 1 has no room
    assert not con([0, 1, 2], doms, {0: 2, 1: 1})
    assert con([0, 1, 2], doms, {0: 0, 1: 1, 2: 3})


def test_unsat() -> None:
    for solver in BACKTRACKING:
        for alldifferent in ("permutation", "library"):
            r = solve(pigeonhole(6), limit=None, solver=solver, alldifferent=alldifferent)
            assert (r.status, r.n_solutions, r.exhausted) == (Status.UNSAT, 0, True)
    # the counting constraint sees the pigeonhole at once
    r = solve(pigeonhole(12), alldifferent="permutation")
    assert r.status is Status.UNSAT
    # label 3 is once per line: the 3s at (1,3), (2,0), (3,1) force (0,2) = 3, a clue says 1
    board = Board(16, tuple(grid_lines(4, 4)), (1, 1, 2, 3),
                  clues=((2, 1), (7, 3), (8, 3), (13, 3)), shape=(4, 4))
    assert build_model(board).conflict is None
    for count in ("gcc", "someinset"):
        r = solve(board, limit=None, count=count)
        assert (r.status, r.exhausted) == (Status.UNSAT, True)


def test_unsat_in_child_process() -> None:
    r = solve(pigeonhole(6), time_limit=60)
    assert r.status is Status.UNSAT and r.stats["process"] in ("fork", "spawn")


def test_limit_and_exhausted() -> None:
    r = solve(latin_square(4), limit=10)
    assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, 10, False)
    r = solve(latin_square(3), limit=12)
    assert (r.n_solutions, r.exhausted) == (12, False)  # the limit hit before the end was seen
    r = solve(latin_square(3), limit=13)
    assert (r.n_solutions, r.exhausted) == (12, True)
    r = solve(latin_square(4), limit=7, time_limit=60)
    assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, 7, False)
    r = solve(latin_square(3), limit=None, time_limit=60)
    assert (r.n_solutions, r.exhausted, r.stats["timed_out"]) == (12, True, False)


def test_time_limit_stops_the_search() -> None:
    # with AllDifferentConstraint, forward checking needs about 10! nodes here (minutes);
    # the child is killed at 0.5 s
    r = solve(pigeonhole(12), time_limit=0.5, alldifferent="library")
    assert r.status is Status.UNKNOWN
    assert r.stats["timed_out"] is True and r.exhausted is False


def test_time_limit_keeps_solutions_found() -> None:
    r = solve(latin_square(6), limit=None, time_limit=0.5)  # 812,851,200 squares
    assert r.status is Status.SAT and r.n_solutions > 0
    assert r.exhausted is False and r.stats["timed_out"] is True


def test_minconflicts() -> None:
    r = solve(latin_square(3), solver="minconflicts", seed=1, steps=5000)
    assert r.status is Status.SAT and r.n_solutions == 1
    with pytest.raises(UnsupportedError, match="cannot enumerate"):
        solve(latin_square(3), solver="minconflicts", limit=2)
    with pytest.raises(UnsupportedError, match="cannot enumerate"):
        solve(latin_square(3), solver="minconflicts", limit=None)
    # local search never proves unsat
    r = solve(pigeonhole(6), solver="minconflicts", seed=1, steps=50)
    assert r.status is Status.UNKNOWN and not r.exhausted


def test_seed_changes_order_not_answers() -> None:
    a = solve(latin_square(4), limit=None, seed=3)
    b = solve(latin_square(4), limit=None, seed=4)
    assert sorted(a.solutions) == sorted(b.solutions)
    assert len(a.solutions) == 576


def test_compile_is_a_problem() -> None:
    from constraint import Problem

    problem = PyconstraintBackend().compile(build_model(latin_square(3, [[1, 0, 0]] + [[0] * 3] * 2)))
    assert isinstance(problem, Problem)
    assert len(problem.getSolutions()) == 4


def test_refuses_large_boards() -> None:
    with pytest.raises(UnsupportedError, match="backend 'pyconstraint' refuses"):
        PyconstraintBackend().solve(build_model(latin_square(30)))


def test_bad_options() -> None:
    with pytest.raises(UsageError):
        solve(latin_square(3), solver="nope")
    with pytest.raises(UsageError):
        solve(latin_square(3), solver="minconflicts", steps=0)


def test_spawned_child(monkeypatch: pytest.MonkeyPatch) -> None:
    import futocp.backends.pyconstraint as module

    monkeypatch.setattr(module, "_start_method", lambda: "spawn")
    r = solve(latin_square(4), limit=None, time_limit=60)
    assert (r.n_solutions, r.exhausted, r.stats["process"]) == (576, True, "spawn")
    r = solve(pigeonhole(12), time_limit=0.5, alldifferent="library")
    assert r.status is Status.UNKNOWN


# ------------------------------------------------------------------ relation kinds
# Small random boards: a hidden solution, relations drawn from it (mostly true, a
# few random ones that may make the board unsatisfiable), some of its labels as
# givens. Counts are checked against the brute-force oracle, answers by verify().

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", [*BINARY_KINDS, "cage", "mixed"])
def test_relation_kinds_count_as_brute_force(kind: str, seed: int) -> None:
    board = kind_board(kind, seed)
    assert kind == "mixed" or board.relation_kinds == {kind}
    expected = brute_force_count(board)
    for filtering in ("lists", "none"):
        model = build_model(board, filtering)
        r = solve_model(board, model, limit=None)
        assert (r.n_solutions, r.exhausted) == (expected, True), filtering
        assert r.status is (Status.SAT if expected else Status.UNSAT)


@pytest.mark.parametrize("kind", [*BINARY_KINDS, "mixed"])
def test_relation_encodings_agree(kind: str) -> None:
    board = kind_board(kind, 1)
    expected = brute_force_count(board)
    model = build_model(board, "none")
    for solver in BACKTRACKING:
        for relations in ("support", "function"):
            r = solve_model(board, model, limit=None, solver=solver, relations=relations)
            assert r.n_solutions == expected, (solver, relations)


def test_killer_sudoku_4x4_every_cage_size() -> None:
    # cages covering the grid from a hidden solution: unique or nearly, always solvable
    for seed in range(3):
        rng = random.Random(seed)
        grid = hidden_sudoku4(rng)
        board = hidden_board(grid, random_cages(grid, rng, max_size=4), 0, rng, sudoku((2, 2)))
        expected = brute_force_count(board)
        assert expected >= 1
        r = solve_model(board, build_model(board, "none"), limit=None)
        assert r.n_solutions == expected
        assert tuple(v for row in grid for v in row) in r.solutions


def test_cage_unreachable_sum_is_unsat() -> None:
    board = dataclasses.replace(sudoku((2, 2)), relations=(
        Relation("cage", (0, 1), (("sum", 10),)),))  # two different labels of 1..4 reach 7
    model = build_model(board)
    assert model.conflict is not None
    r = PyconstraintBackend().solve(model)
    assert (r.status, r.exhausted) == (Status.UNSAT, True) and "sum" in r.stats["reason"]
    # reachable alone, not with the givens: only the search can tell (filtering="none")
    board = dataclasses.replace(sudoku((2, 2)), clues=((0, 3),), relations=(
        Relation("cage", (0, 1), (("sum", 3),)),))
    model = build_model(board, "none")
    assert model.conflict is None
    r = solve_model(board, model, limit=None)
    assert (r.status, r.exhausted) == (Status.UNSAT, True)


def test_cage_constraint_prunes_to_the_label_sets() -> None:
    from constraint import Domain

    from futocp.backends.pyconstraint import cage_constraint

    # three cells, values 0..3 (labels 1..4), sum 7: {1, 2, 4} -> indices {0, 1, 3}
    con = cage_constraint((0b1011,))
    doms = {c: Domain([0, 1, 2, 3]) for c in range(3)}
    for d in doms.values():
        d.pushState()
    assert con([0, 1, 2], doms, {0: 3}, True)
    assert list(doms[1]) == [0, 1] and list(doms[2]) == [0, 1]
    assert not con([0, 1, 2], doms, {0: 3, 1: 3})  # a label twice
    assert not con([0, 1, 2], doms, {0: 2})  # label 3 is in no set
    assert con([0, 1, 2], doms, {0: 0, 1: 3, 2: 1})


def test_support_constraint_forward_checks() -> None:
    from constraint import Domain

    from futocp.relations import RELATIONS, support_masks

    fwd, bwd = support_masks(RELATIONS["consecutive"], (1, 2, 3, 4), {})
    con = support_constraint(fwd, bwd)
    doms = {0: Domain([0, 1, 2, 3]), 1: Domain([0, 1, 2, 3])}
    for d in doms.values():
        d.pushState()
    assert con([0, 1], doms, {1: 0}, True)  # b = label 1: a must be label 2
    assert list(doms[0]) == [1]
    assert con([0, 1], doms, {0: 2, 1: 3}) and not con([0, 1], doms, {0: 0, 1: 2})
    # preProcess: label 1 has no partner among {3, 4}
    doms = {0: Domain([0, 1, 2, 3]), 1: Domain([2, 3])}
    con.preProcess([0, 1], doms, [], {})
    assert list(doms[0]) == [1, 2, 3]


def test_registered_kind_goes_through_the_generic_path() -> None:
    spec = apart_kind()
    register(spec)
    try:
        assert "apart" in PyconstraintBackend.supported()
        board = apart_gap_board()
        expected = brute_force_count(board)
        assert expected >= 1
        for filtering in ("lists", "none"):
            for relations in ("support", "function"):
                r = solve_model(board, build_model(board, filtering), limit=None,
                                relations=relations)
                assert r.n_solutions == expected
    finally:
        unregister("apart")


def test_a_new_nary_kind_takes_the_generic_table_and_a_large_one_is_refused() -> None:
    register(RelationKind("same-sum", lambda v, p: sum(v) == p["sum"], arity=None,
                          params=("sum",)))
    try:
        board = dataclasses.replace(latin_square(3), relations=(
            Relation("same-sum", (0, 4, 8), (("sum", 6),)),))
        r = PyconstraintBackend().solve(build_model(board), limit=None)
        assert r.n_solutions == brute_force_count(board) and r.exhausted
        assert all(verify(board, sol) == [] for sol in r.solutions)
        # nine cells of nine labels summing to 45: 9^9 candidates, past the size guard
        big = dataclasses.replace(latin_square(9), relations=(
            Relation("same-sum", tuple(range(9)), (("sum", 45),)),))
        with pytest.raises(UnsupportedError, match="same-sum"):
            PyconstraintBackend().solve(build_model(big, "none"))
    finally:
        unregister("same-sum")


def test_relations_in_child_process_and_with_minconflicts() -> None:
    board = kind_board("mixed", 0)
    expected = brute_force_count(board)
    r = solve_model(board, build_model(board), limit=None, time_limit=60)
    assert (r.n_solutions, r.exhausted) == (expected, True)
    if expected:
        r = solve_model(board, build_model(board), solver="minconflicts", seed=1, steps=20000)
        assert r.status in (Status.SAT, Status.UNKNOWN)


def solve_model(board: Board, model, **kw):
    result = PyconstraintBackend().solve(model, **kw)
    for sol in result.solutions:
        assert verify(board, sol) == []
    assert len(set(result.solutions)) == len(result.solutions)
    return result
