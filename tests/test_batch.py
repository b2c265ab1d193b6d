"""``futocp.solve_many``: the same answers as ``futocp.solve`` board by board, in one call
of listcolor's compiled core per structure (``run_many``), every solution verified."""

from __future__ import annotations

import functools
import json
import random
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import futocp
from futocp import formats
from futocp.backends import listcolor
from futocp.backends.listcolor import compile_program
from futocp.batch import solve_many
from futocp.board import Board
from futocp.errors import SolverError, UsageError
from futocp.families import futoshiki, latin_square, sudoku
from futocp.model import build_model

from .relation_boards import killer_board
from .strategies import futoshiki_boards, multiset_boards, relation_boards

needs_core = pytest.mark.skipif(not listcolor.core_available(),
                                reason="the compiled core of listcolor is not built")


def _same(boards: list[Board], limit: int | None = 1, **options: object) -> list[futocp.Result]:
    """solve_many's Results, checked against futocp.solve board by board."""
    many = solve_many(boards, limit=limit, **options)
    assert len(many) == len(boards)
    for board, got in zip(boards, many, strict=True):
        want = futocp.solve(board, "listcolor", limit=limit, **options)
        assert got.board is board
        assert (got.status, got.solutions) == (want.status, want.solutions)
        if not want.stats.get("decided"):  # solve's shortcut knows a decided board's only one
            assert got.exhausted == want.exhausted
        for s in got.solutions:
            assert not futocp.verify(board, s)
    return many


@needs_core
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(futoshiki_boards(), multiset_boards(), relation_boards()),
                min_size=1, max_size=4), st.sampled_from([1, 2, None]))
def test_solve_many_equals_solve(boards: list[Board], limit: int | None) -> None:
    _same(boards, limit)


COUNTERS = ("nodes", "backtracks", "removed_values", "max_depth", "probes", "failed_literals",
            "dilemma_values")


@needs_core
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(futoshiki_boards(), multiset_boards(), relation_boards(),
                 st.integers(0, 10**6).map(lambda s: killer_board(s, 3, False)),
                 st.integers(0, 10**6).map(lambda s: killer_board(s, 2, True)),
                 st.tuples(st.integers(0, 94), st.integers(0, 80), st.integers(1, 9)).map(
                     lambda t: _with_given(_top95()[t[0]], t[1], t[2]))),
       st.booleans(), st.sampled_from(["auto", "always", "never"]), st.sampled_from([1, 3]))
def test_the_batch_counts_as_the_reference_from_the_bare_lists(
        board: Board, hidden_singles: bool, lookahead: str, limit: int) -> None:
    # the batch settles each board from the bare lists and its givens (the compiled
    # core's root takes the fixed values out of their groups in bulk first): every
    # counter is the Python reference's from the unfiltered lists, solvable or not
    options = {"limit": limit, "hidden_singles": hidden_singles, "lookahead": lookahead}
    _as_reference(board, solve_many([board], **options)[0], **options)


def _as_reference(board: Board, got: futocp.Result, **options: object) -> bool:
    """Assert that ``got`` (the batch's) is the Python reference's Result from the
    unfiltered lists; True when the reference searched, so the counters were compared
    too (else the Model's givens clash, or decide every cell: no search)."""
    want = futocp.solve(board, "listcolor", core="python", filtering="none", **options)
    assert (got.status, got.solutions) == (want.status, want.solutions)
    if want.stats.get("nodes") is None or want.stats.get("decided"):
        return False
    assert {k: got.stats[k] for k in COUNTERS} == {k: want.stats[k] for k in COUNTERS}
    return True


@functools.cache
def _top95() -> list[Board]:
    """top95's puzzles (read once, at first use)."""
    return formats.read_many(Path(__file__).resolve().parents[1] / "instances/sudoku/top95.txt")


@needs_core
@pytest.mark.parametrize("hidden_singles", [True, False])
def test_the_batch_counts_as_the_reference_on_sudokus(hidden_singles: bool) -> None:
    # top95 puzzles as they are and with one more given (most then have no solution)
    rng = random.Random(5)
    top = _top95()
    boards = [*top[:6], *(_with_given(b, rng.randrange(81), rng.randint(1, 9)) for b in top[6:18])]
    results = solve_many(boards, hidden_singles=hidden_singles)
    searched = sum(_as_reference(board, got, hidden_singles=hidden_singles)
                   for board, got in zip(boards, results, strict=True))
    assert searched >= 12


def _with_given(board: Board, cell: int, label: int) -> Board:
    """``board`` with one more given (the puzzle then often has no solution)."""
    return replace(board, clues=tuple(sorted({**dict(board.clues), cell: label}.items())))


@needs_core
def test_a_root_without_a_place_for_a_label_leaves_nothing_to_the_next_board() -> None:
    # the first board's root has a hidden single (row 0: label 9 fits its last cell
    # alone) before a label with no place (row 1 given twice 9, no 1): its settling
    # stops there. The next board is solved as if alone (once, the pending hidden
    # single was applied to it: its cell 8, not a given, forced to 9, answered unsat)
    good = next(b for b in _top95()
                if 8 not in dict(b.clues) and futocp.solve(b, "listcolor").solutions[0][8] != 9)
    row1 = [2, 3, 4, 5, 6, 7, 8, 9, 9]
    bad = replace(good, clues=tuple((i, i + 1) for i in range(8))
                  + tuple((9 + i, label) for i, label in enumerate(row1)))
    many = _same([bad, good, bad, good])
    assert [r.status.value for r in many] == ["unsat", "sat"] * 2


@needs_core
def test_mixed_structures_keep_their_order_and_counters() -> None:
    top = formats.read_many("instances/sudoku/top95.txt")[:6]
    boards = [top[0], latin_square(4, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]),
              top[1], futoshiki(4, less=[((0, 0), (0, 1))]), *top[2:],
              sudoku((2, 2), [[1, 1, 0, 0], [0] * 4, [0] * 4, [0] * 4])]  # the last: no solution
    many = _same(boards)
    assert [r.status.value for r in many][-1] == "unsat"
    for board, got in zip(boards[:3], many[:3], strict=True):
        want = futocp.solve(board, "listcolor")
        for key in ("nodes", "backtracks", "probes", "max_depth", "removed_values"):
            assert got.stats[key] == want.stats[key], key
    assert all(r.stats.get("batch") for r in many)


def test_other_backends_and_options_solve_board_by_board() -> None:
    boards = [latin_square(3), latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])]
    for r in solve_many(boards, "listcolor", core="python") + solve_many(boards, "bt"):
        assert r.solutions and not futocp.verify(r.board, r.solutions[0])
        assert not r.stats.get("batch")


@needs_core
def test_a_wrong_solution_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """The core's check said no (test_the_core_checks_its_solutions checks that it does)."""
    board = latin_square(3)
    module = listcolor._core

    def wrong(*args: object) -> list[tuple[object, ...]]:
        rows = real(*args)
        return [(*row[:-2], False, [tuple(1 for _ in range(9))]) for row in rows]

    real = module.run_many
    monkeypatch.setattr(module, "run_many", wrong)
    with pytest.raises(SolverError):
        solve_many([board])


def _native(board: Board) -> tuple[object, object, int, int]:
    prog = compile_program(build_model(board))
    native = listcolor._native_program(prog)
    return listcolor._native_module(native), native, len(prog.cells), prog.n_values


@needs_core
def test_the_core_checks_its_solutions() -> None:
    board = latin_square(3)
    module, native, n, m = _native(board)
    args = [(1 << m) - 1] * n, bytes(n), 1, 1, "auto", ["removed"], False, True, True
    (row,) = module.run_many(native, *args, board.asterisms, [1] * m)
    assert row[-2] is True and len(row[-1]) == 1
    (row,) = module.run_many(native, *args, board.asterisms, [2, 1, 0])  # a wrong multiset
    assert row[-2] is False


@needs_core
@pytest.mark.parametrize("change", [
    {"givens": b"\x00" * 8},                  # not count * n bytes
    {"givens": b"\x09" + b"\x00" * 8},        # a value beyond the 3
    {"count": -1},
    {"base": [7] * 8},                        # one list short
    {"base": [15] + [7] * 8},                 # a list beyond the values
    {"asterisms": [[0, 1, 9]]},               # a cell out of range
    {"asterisms": [[0, 0, 1]]},               # a cell twice
    {"want": [1, 1]},                         # not one count per value
    {"want": [1, 1, -1]},
    {"limit": "x"},
    {"mode": "sometimes"},
    {"weights": ["heavy"]},
])
def test_run_many_refuses_bad_input(change: dict[str, object]) -> None:
    board = latin_square(3)
    module, native, n, m = _native(board)
    args: dict[str, object] = {
        "base": [7] * n, "givens": bytes(n), "count": 1, "limit": 1, "mode": "auto",
        "weights": ["removed"], "dual": False, "hs": True, "locked": True,
        "asterisms": board.asterisms,
        "want": [1] * m}
    args.update(change)
    with pytest.raises((ValueError, TypeError)):
        module.run_many(native, *args.values())


@needs_core
def test_pack_givens() -> None:
    board = latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 3]])
    module, native, n, m = _native(board)
    assert module.pack_givens(native, [board.clues, ()]) == bytes([1, 0, 0, 0, 0, 0, 0, 0, 3]) + bytes(n)


@needs_core
@pytest.mark.parametrize("clues", [
    [[(9, 1)]],                               # a cell out of range
    [[(0, 4)]],                               # a label that is not a value
    [[(0, 1, 2)]],                            # not a pair
    [5],                                      # not a sequence of clues
])
def test_pack_givens_refuses_bad_input(clues: list[object]) -> None:
    module, native, _, _ = _native(latin_square(3))
    with pytest.raises((ValueError, TypeError)):
        module.pack_givens(native, clues)


def _key(r: futocp.Result) -> tuple[object, ...]:
    """A Result but its times."""
    stats = {k: v for k, v in r.stats.items() if not k.endswith("_s")}
    return r.status, r.solutions, r.exhausted, r.verdicts, stats, r.board


def _mixed() -> list[Board]:
    top = formats.read_many("instances/sudoku/top95.txt")[:40]
    return [*top[:20], latin_square(4, [[1, 0, 0, 0], [0] * 4, [0] * 4, [0, 0, 0, 2]]),
            futoshiki(4, less=[((0, 0), (0, 1))]), *top[20:],
            sudoku((2, 2), [[1, 1, 0, 0], [0] * 4, [0] * 4, [0] * 4])]  # the last: no solution


@needs_core
@pytest.mark.parametrize("limit", [1, 2])
def test_workers_give_the_results_of_one(limit: int) -> None:
    boards = _mixed()
    one = solve_many(boards, limit=limit)
    for workers in (2, 3):
        many = solve_many(boards, limit=limit, workers=workers)
        assert [_key(r) for r in many] == [_key(r) for r in one]
        assert all(r.stats["batch"] for r in many)


@needs_core
def test_more_workers_than_boards_and_no_boards() -> None:
    boards = formats.read_many("instances/sudoku/top95.txt")[:3]
    got = solve_many(boards, workers=8)
    assert [_key(r) for r in got] == [_key(r) for r in solve_many(boards)]
    assert all(r.solutions and not futocp.verify(b, r.solutions[0])
               for b, r in zip(boards, got, strict=True))
    assert solve_many([], workers=2) == []


@needs_core
def test_workers_must_be_positive() -> None:
    with pytest.raises(UsageError):
        solve_many([latin_square(3)], workers=0)


@needs_core
def test_bad_givens_raise_from_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk's call of run_many that refuses its input raises out of solve_many."""
    module = listcolor._core
    real = module.pack_givens
    monkeypatch.setattr(module, "pack_givens",
                        lambda native, clues: real(native, clues)[:-1])  # a byte short
    boards = formats.read_many("instances/sudoku/top95.txt")[:40]
    with pytest.raises(ValueError, match="givens"):
        solve_many(boards, workers=2)


@needs_core
def test_run_many_lets_other_threads_run() -> None:
    """While run_many searches, another thread runs Python: it holds no GIL. With a
    switch interval far longer than the searches, the main thread gets the GIL back
    before the worker's call returns only if the core releases it."""
    boards = formats.read_many("instances/sudoku/top1465.txt")[:700]
    module, native, n, m = _native(boards[0])
    givens = module.pack_givens(native, [b.clues for b in boards])
    base = [(1 << m) - 1] * n
    ready, done = threading.Event(), threading.Event()
    rows: list[object] = []

    def work() -> None:
        ready.set()
        rows.extend(module.run_many(native, base, givens, len(boards), 1, "auto", ["removed"],
                                    False, True, True, boards[0].asterisms, [1] * m))
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        ready.wait()
        during = not done.is_set()  # back here while the worker is still in run_many
    finally:
        sys.setswitchinterval(interval)
    worker.join()
    assert during
    assert len(rows) == len(boards) and all(row[-2] and row[-1] for row in rows)  # type: ignore[index]


@needs_core
def test_the_command_line_passes_workers_to_the_batch(capsys: pytest.CaptureFixture[str]) -> None:
    """``futocp solve COLLECTION --backend listcolor --opt workers=2``: the batch on two
    threads, the same records as with one."""
    from futocp.cli import main

    def records(*extra: str) -> list[dict[str, object]]:
        assert main(["solve", "instances/sudoku/top95.txt", "--backend", "listcolor", "--json",
                     *extra]) == 0
        out = json.loads(capsys.readouterr().out)["instances"]
        for rec in out:
            assert rec["stats"].pop("batch") is True
            for key in ("build_s", "solve_s", "wall_s"):
                rec["stats"].pop(key)
        return out

    assert records("--opt", "workers=2") == records()
