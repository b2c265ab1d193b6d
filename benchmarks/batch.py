"""Issue 25 item 6: ``futocp.solve_many`` against the per-puzzle loop, puzzles/s.

On a collection (default: top1465, 9x9 Sudoku) in one warm process, three
ways of solving every puzzle with ``listcolor``, each answer verified:

* ``loop`` -- ``futocp.solve(board, "listcolor")`` per puzzle, then
  :func:`futocp.verify.verify` of its solution (what a script did before);
* ``solve_many`` -- ``futocp.solve_many(boards)`` (one structure: one call of
  the compiled core; the core checks every solution against the board's
  clues and asterisms);
* ``solve_many+verify`` -- the same, then :func:`futocp.verify.verify` of
  every solution in Python too (the slow check, for comparison).

The ways run in turns, ``--repeat`` times (default 3), from the parsed boards
(reading the file is not timed); the table gives each way's median puzzles/s
(CPU time of the process, steadier on a shared machine, and wall time), its
ratio to the loop's, and whether the solutions of all ways are the same. On
top1465 a last line sets ``solve_many`` beside tdoku's published figure for
that file as issue 25 quotes it (121,896 puzzles/s; tdoku is not installed
here) and the issue's 30,000/s target.

Run from the repository root::

    python benchmarks/batch.py
    python benchmarks/batch.py --file instances/sudoku/top95.txt --repeat 5
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

__all__ = ["WAYS", "TDOKU_TOP1465", "TARGET", "main"]

TDOKU_TOP1465 = 121_896
"""tdoku's published puzzles/s on top1465 (as issue 25 quotes its table)."""
TARGET = 30_000
"""Issue 25 item 6's target for ``solve_many`` on top1465, puzzles/s (CPU)."""


def _loop(boards: Sequence[Board]) -> list[Any]:
    out = []
    for b in boards:
        r = futocp.solve(b, "listcolor")
        assert r.solutions and not verify(b, r.solutions[0]), "a wrong or missing solution"
        out.append(r.solutions[0])
    return out


def _many(boards: Sequence[Board]) -> list[Any]:
    return [r.solutions[0] for r in futocp.solve_many(boards)]


def _many_verify(boards: Sequence[Board]) -> list[Any]:
    out = _many(boards)
    assert not any(verify(b, s) for b, s in zip(boards, out, strict=True)), "a wrong solution"
    return out


WAYS: dict[str, Callable[[Sequence[Board]], list[Any]]] = {
    "loop": _loop, "solve_many": _many, "solve_many+verify": _many_verify}
"""The ways of solving a collection, by name."""


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--file", default=os.path.join(ROOT, "instances", "sudoku", "top1465.txt"),
                   help="a collection file (default top1465)")
    p.add_argument("--repeat", type=int, default=3, help="runs of each way (medians)")
    a = p.parse_args(argv)
    boards = read_many(a.file)
    _many(boards[:10])  # warm: imports, the compiled program
    _loop(boards[:10])
    cpu: dict[str, list[float]] = {w: [] for w in WAYS}
    wall: dict[str, list[float]] = {w: [] for w in WAYS}
    answers: dict[str, list[Any]] = {}
    for _ in range(a.repeat):
        for name, way in WAYS.items():
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            answers[name] = way(boards)
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - t0)
    same = all(ans == answers["loop"] for ans in answers.values())
    n = len(boards)
    base = n / statistics.median(cpu["loop"])
    print(f"{os.path.basename(a.file)}: {n} puzzles, medians of {a.repeat}; "
          f"same solutions in every way: {same}")
    print("| way | puzzles/s (cpu) | puzzles/s (wall) | x loop (cpu) |")
    print("|---|---|---|---|")
    for name in WAYS:
        rate = n / statistics.median(cpu[name])
        print(f"| {name} | {rate:,.0f} | {n / statistics.median(wall[name]):,.0f} | "
              f"{rate / base:.1f} |")
    if os.path.basename(a.file) == "top1465.txt":
        rate = n / statistics.median(cpu["solve_many"])
        print(f"solve_many {rate:,.0f}/s (cpu): {rate / TDOKU_TOP1465:.2f}x tdoku's published "
              f"{TDOKU_TOP1465:,}/s ({TDOKU_TOP1465 / rate:.1f}x slower); target {TARGET:,}/s "
              f"{'met' if rate >= TARGET else 'not met'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
