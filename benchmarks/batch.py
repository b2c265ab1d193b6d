"""Issue 25 item 6: ``futocp.solve_many`` against the per-puzzle loop, puzzles/s.

On a collection (default: top1465, 9x9 Sudoku) in one warm process, four
ways of solving every puzzle with ``listcolor``, each answer verified:

* ``loop`` -- ``futocp.solve(board, "listcolor")`` per puzzle, then
  :func:`futocp.verify.verify` of its solution (what a script did before);
* ``solve_many`` -- ``futocp.solve_many(boards)`` (one structure: one call of
  the compiled core; the core checks every solution against the board's
  clues and asterisms);
* ``solve_many workers=N`` -- the same on N threads (``--workers``, default
  2: the core searches without the GIL, so on N free cores N searches run at
  once; the Results are those of one thread);
* ``solve_many+verify`` -- ``solve_many``, then :func:`futocp.verify.verify`
  of every solution in Python too (the slow check, for comparison).

The ways run in turns, ``--repeat`` times (default 5), from the parsed boards
(reading the file is not timed); the table gives each way's median puzzles/s
by CPU time (the process's, all its threads: steadier on a shared machine,
and the fair figure per core) and by wall time, its ratios to the loop's,
and whether the solutions of all ways are the same. The load average of the
machine before and after the runs is printed (it is shared: wall times with
threads depend on free cores). On top1465 last lines set ``solve_many`` and
``solve_many workers=N`` beside tdoku's published figure for that file as
issue 25 quotes it (121,896 puzzles/s, one thread; tdoku is not installed
here) and the issue's 30,000/s target.

Run from the repository root::

    python benchmarks/batch.py
    python benchmarks/batch.py --file instances/sudoku/top95.txt --repeat 7 --workers 2
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import futocp
from futocp.board import Board
from futocp.formats import read_many
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["ways", "TDOKU_TOP1465", "TARGET", "main"]

TDOKU_TOP1465 = 121_896
"""tdoku's published puzzles/s on top1465 (as issue 25 quotes its table; one thread)."""
TARGET = 30_000
"""Issue 25 item 6's target for ``solve_many`` on top1465, puzzles/s."""

Way = Callable[[Sequence[Board]], list[Any]]


def _loop(boards: Sequence[Board]) -> list[Any]:
    out = []
    for b in boards:
        r = futocp.solve(b, "listcolor")
        assert r.solutions and not verify(b, r.solutions[0]), "a wrong or missing solution"
        out.append(r.solutions[0])
    return out


def _many(boards: Sequence[Board], workers: int = 1) -> list[Any]:
    return [r.solutions[0] for r in futocp.solve_many(boards, workers=workers)]


def _many_verify(boards: Sequence[Board]) -> list[Any]:
    out = _many(boards)
    assert not any(verify(b, s) for b, s in zip(boards, out, strict=True)), "a wrong solution"
    return out


def _many_clocked(boards: Sequence[Board], workers: int, spans: list[float]) -> list[Any]:
    """:func:`_many` on ``workers`` threads; appends to ``spans`` the time it would take
    with a free core per thread and the work shared evenly: the main thread's CPU time
    plus the other threads' CPU time divided by ``workers`` (an estimate)."""
    c0, m0 = time.process_time(), time.thread_time()
    out = _many(boards, workers)
    main = time.thread_time() - m0
    spans.append(main + (time.process_time() - c0 - main) / workers)
    return out


def ways(workers: int, spans: list[float] | None = None) -> dict[str, Way]:
    """The ways of solving a collection, by name (``workers``: the threaded way's;
    ``spans``: where it appends :func:`_many_clocked`'s estimate, or None)."""
    def threaded(boards: Sequence[Board]) -> list[Any]:
        return _many(boards, workers) if spans is None else _many_clocked(boards, workers, spans)

    return {"loop": _loop, "solve_many": _many, f"solve_many workers={workers}": threaded,
            "solve_many+verify": _many_verify}


def _load() -> str:
    """The load averages (1, 5, 15 min), or "?" where the system has none."""
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--file", default=os.path.join(ROOT, "instances", "sudoku", "top1465.txt"),
                   help="a collection file (default top1465)")
    p.add_argument("--repeat", type=int, default=5, help="runs of each way (medians)")
    p.add_argument("--workers", type=int, default=2,
                   help="threads of the threaded solve_many way (default 2)")
    a = p.parse_args(argv)
    boards = read_many(a.file)
    spans: list[float] = []
    table = ways(a.workers, spans)
    threaded = f"solve_many workers={a.workers}"
    _many(boards[:10])  # warm: imports, the compiled program
    _loop(boards[:10])
    cpu: dict[str, list[float]] = {w: [] for w in table}
    wall: dict[str, list[float]] = {w: [] for w in table}
    answers: dict[str, list[Any]] = {}
    load_before = _load()
    for _ in range(a.repeat):
        for name, way in table.items():
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            answers[name] = way(boards)
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - t0)
    same = all(ans == answers["loop"] for ans in answers.values())
    n = len(boards)
    cpu_rate = {w: n / statistics.median(cpu[w]) for w in table}
    wall_rate = {w: n / statistics.median(wall[w]) for w in table}
    print(f"{os.path.basename(a.file)}: {n} puzzles, medians of {a.repeat}; "
          f"same solutions in every way: {same}; load average before {load_before}, "
          f"after {_load()} (1/5/15 min; {os.cpu_count()} cores)")
    print("| way | puzzles/s (cpu) | puzzles/s (wall) | x loop (cpu) | x loop (wall) |")
    print("|---|---|---|---|---|")
    for name in table:
        print(f"| {name} | {cpu_rate[name]:,.0f} | {wall_rate[name]:,.0f} | "
              f"{cpu_rate[name] / cpu_rate['loop']:.1f} | "
              f"{wall_rate[name] / wall_rate['loop']:.1f} |")
    one, many = wall_rate["solve_many"], wall_rate[threaded]
    free = n / statistics.median(spans)
    print(f"{threaded} / solve_many, wall: {many / one:.2f}x; with a free core per thread "
          f"~{free:,.0f}/s (an estimate, not a measurement: the main thread's CPU time plus "
          f"the worker threads' divided by {a.workers}; medians of {a.repeat})")
    if os.path.basename(a.file) == "top1465.txt":
        for name, rate, what in (("solve_many", cpu_rate["solve_many"], "cpu, one thread"),
                                 (threaded, many, "wall")):
            print(f"{name} {rate:,.0f}/s ({what}): {rate / TDOKU_TOP1465:.2f}x tdoku's "
                  f"published {TDOKU_TOP1465:,}/s (one thread; {TDOKU_TOP1465 / rate:.1f}x "
                  f"faster); target {TARGET:,}/s {'met' if rate >= TARGET else 'not met'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
