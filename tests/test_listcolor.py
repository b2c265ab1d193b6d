"""Focused tests of the native listcolor backend (the REGISTRY-wide suite is test_conformance).

Every answer is checked with verify() and, on small boards, against an
independent brute-force count; each search mode (plain, auto, lookahead) must
agree.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from futocp.backends.listcolor import ListcolorBackend, ListcolorProgram
from futocp.board import Board
from futocp.errors import BoardError, UnsupportedError
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.result import Status
from futocp.verify import verify

from .conftest import multiset_board, string_square
from .oracle import brute_force_count

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
MODES = ("never", "auto", "always")


def solve(board: Board, **kwargs):
    return ListcolorBackend().solve(build_model(board), **kwargs)


def check_all(board: Board, result) -> None:
    """Every solution verifies and none repeats."""
    for sol in result.solutions:
        assert verify(board, sol) == [], sol
    assert len(set(result.solutions)) == len(result.solutions)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n, count", [(1, 1), (2, 2), (3, 12), (4, 576)])
def test_latin_square_counts(n: int, count: int, mode: str) -> None:
    board = latin_square(n)
    r = solve(board, limit=None, lookahead=mode)
    assert r.status is Status.SAT and r.exhausted
    assert r.n_solutions == count
    check_all(board, r)


def random_futoshiki(rng: random.Random, n: int = 4) -> Board:
    givens = [[0] * n for _ in range(n)]
    for _ in range(rng.randrange(0, 4)):
        givens[rng.randrange(n)][rng.randrange(n)] = rng.randrange(1, n + 1)
    less = set()
    for _ in range(rng.randrange(0, 7)):
        r, c = rng.randrange(n), rng.randrange(n)
        r2, c2 = (r, c + 1) if rng.random() < 0.5 else (r + 1, c)
        if r2 < n and c2 < n and ((r2, c2), (r, c)) not in less:
            less.add(((r, c), (r2, c2)) if rng.random() < 0.5 else ((r2, c2), (r, c)))
    return futoshiki(n, givens, sorted(less))


@pytest.mark.parametrize("seed", range(12))
def test_random_futoshiki_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3):
        try:
            board = random_futoshiki(rng)
        except BoardError:  # a random cycle of inequalities: not a board
            continue
        want = brute_force_count(board)
        for mode in MODES:
            r = solve(board, limit=None, lookahead=mode)
            assert r.n_solutions == want, (mode, board)
            assert r.exhausted
            assert r.status is (Status.SAT if want else Status.UNSAT)
            check_all(board, r)
        for weight in ("binary", "removed", "portfolio"):
            one = solve(board, limit=1, lookahead="always", weight=weight, seed=seed)
            assert one.status is (Status.SAT if want else Status.UNSAT)
            check_all(board, one)


@pytest.mark.parametrize("mode", MODES)
def test_multiset_board(mode: str) -> None:
    board = multiset_board()  # rows and columns hold {1, 1, 2, 2}
    r = solve(board, limit=None, lookahead=mode)
    assert r.n_solutions == brute_force_count(board) == 90
    check_all(board, r)


@pytest.mark.parametrize("seed", range(6))
def test_multiset_board_with_clues_and_less(seed: int) -> None:
    rng = random.Random(seed)
    base = multiset_board()
    clues = {rng.randrange(16): rng.choice((1, 2)) for _ in range(rng.randrange(1, 4))}
    less = [(a, a + 1) for a in rng.sample([c for c in range(16) if c % 4 != 3], 2)]
    board = Board(16, base.asterisms, base.labels, clues=tuple(clues.items()),
                  less=tuple(less), shape=(4, 4))
    want = brute_force_count(board)
    for mode in MODES:
        r = solve(board, limit=None, lookahead=mode)
        assert r.n_solutions == want
        assert r.status is (Status.SAT if want else Status.UNSAT)
        check_all(board, r)


def test_multiset_three_labels() -> None:
    """Asterisms of 5 cells holding {1, 1, 2, 2, 3}: the count rules force and remove labels."""
    board = Board(25, tuple(grid_lines(5, 5)), (1, 1, 2, 2, 3),
                  clues=((0, 3), (6, 3), (12, 3), (18, 1), (24, 2)), shape=(5, 5))
    r = solve(board, limit=None)
    assert r.n_solutions == brute_force_count(board)
    check_all(board, r)


def test_string_labels() -> None:
    board = string_square()
    r = solve(board, limit=None)
    assert r.n_solutions == 12
    check_all(board, r)


@pytest.mark.parametrize("mode", MODES)
def test_unsat_futoshiki_needs_search(mode: str) -> None:
    board = read(INSTANCES / "futoshiki" / "7x7-unsat-search.json")
    model = build_model(board)
    assert model.conflict is None  # only search can tell
    r = ListcolorBackend().solve(model, limit=None, lookahead=mode)
    assert r.status is Status.UNSAT and r.exhausted and r.solutions == []
    for weight in ("binary", "portfolio"):
        one = ListcolorBackend().solve(model, limit=1, lookahead=mode, weight=weight)
        assert one.status is Status.UNSAT and one.exhausted


def test_unsat_from_clue_conflict() -> None:
    r = solve(read(INSTANCES / "futoshiki" / "5x5-unsat-duplicate.json"))
    assert r.status is Status.UNSAT and "reason" in r.stats


def test_several_solutions_limit() -> None:
    board = read(INSTANCES / "futoshiki" / "5x5-several.json")
    want = brute_force_count(board)
    full = solve(board, limit=None)
    assert full.n_solutions == want and full.exhausted
    part = solve(board, limit=want - 1)
    assert part.n_solutions == want - 1 and not part.exhausted
    exact = solve(board, limit=want)
    assert exact.n_solutions == want and not exact.exhausted  # the limit stopped it
    check_all(board, full)


def test_hidden_singles_off_same_count(small_futoshiki: Board) -> None:
    want = brute_force_count(small_futoshiki)
    for flag in (True, False):
        for branching in ("cell", "dual"):
            r = solve(small_futoshiki, limit=None, hidden_singles=flag, branching=branching,
                      lookahead="never")
            assert r.n_solutions == want
            check_all(small_futoshiki, r)


def test_qwh_order_30_is_solved() -> None:
    board = read(INSTANCES / "qwh" / "qwh-o30-h374-01.dzn")
    r = solve(board, time_limit=120)
    assert r.status is Status.SAT
    check_all(board, r)
    assert r.stats["probes"] > 0  # the plain search gave way to the lookahead


def test_time_limit_gives_unknown() -> None:
    board = read(INSTANCES / "qwh" / "qwh-o30-h374-01.dzn")
    for mode in ("never", "always"):
        r = solve(board, time_limit=0.05, lookahead=mode)
        assert r.status is Status.UNKNOWN
        assert not r.exhausted and r.solutions == []


def test_seed_reproducible() -> None:
    board = read(INSTANCES / "futoshiki" / "5x5-several.json")
    for seed in (None, 3, 11):
        a = solve(board, seed=seed, lookahead="always")
        b = solve(board, seed=seed, lookahead="always")
        assert a.solutions == b.solutions
        assert a.stats["nodes"] == b.stats["nodes"] and a.stats["probes"] == b.stats["probes"]
        check_all(board, a)
    seen = {solve(board, seed=s, lookahead="never").solutions[0] for s in range(12)}
    assert len(seen) > 1  # a seed does change the value order
    ordered = {solve(board, lookahead="never").solutions[0] for _ in range(3)}
    assert len(ordered) == 1  # no seed: deterministic


def test_stats_counters() -> None:
    board = read(INSTANCES / "futoshiki" / "9x9-recursive-01.json")
    model = build_model(board)
    r = ListcolorBackend().solve(model, limit=None)
    assert r.n_solutions == 1
    check_all(board, r)
    st = r.stats
    assert st["nodes"] > 0 and st["backtracks"] > 0 and st["max_depth"] > 0
    assert st["removed_values"] > model.stats["removed_values"]
    for key in ("build_s", "solve_s", "wall_s", "probes", "failed_literals", "dilemma_values"):
        assert key in st


def test_compile_structure() -> None:
    board = futoshiki(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((1, 1), (1, 2))])
    model = build_model(board)
    prog = ListcolorBackend().compile(model)
    assert isinstance(prog, ListcolorProgram)
    assert sorted(prog.cells) == list(range(9))
    assert [model.domains[c] for c in prog.cells] == list(prog.domains)
    assert len(prog.groups) == 6 and all(k is None for k in prog.counts)
    inside = {c: i for i, c in enumerate(prog.cells)}
    assert prog.succ[inside[4]] == (inside[5],) and prog.pred[inside[5]] == (inside[4],)
    dual = prog.dual_table(prog.domains)
    for j, g in enumerate(prog.dual_groups):
        for v in range(prog.n_values):
            cells = {c for p, c in enumerate(prog.groups[g]) if dual[j * prog.n_values + v] >> p & 1}
            assert cells == {c for c in prog.groups[g] if prog.domains[c] >> v & 1}



def test_refuses_a_model_whose_stack_could_outgrow_memory() -> None:
    model = build_model(latin_square(120), filtering="none")
    with pytest.raises(UnsupportedError, match="search stack"):
        ListcolorBackend().solve(model)
