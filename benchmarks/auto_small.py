"""Issue 26 benchmark: ``auto`` (the default backend) against ``listcolor`` on small boards.

``futocp.solve(board)`` uses ``auto``. On a small board its first member
(``listcolor`` with the compiled core) answers in well under a millisecond,
while a portfolio costs a fork per member; so ``auto`` tries that member alone
in this process first (:func:`futocp.backends.auto.first_try_budget`). This
script measures, in one process and interleaved per repetition, the median
wall time of ``futocp.solve`` with ``listcolor``, with ``auto``, and with
``auto`` without its first try (the portfolio as before; ``--no-portfolio``
leaves that column out), for one solution and for enumeration (``limit=2``,
``limit=None``: the table asks for a portfolio of ``listcolor`` and
``cpsat`` there), on a 4x4, 6x6 and 9x9 Futoshiki, a 5x5 Futoshiki with 9
solutions and the first top95 Sudoku. It prints the medians in ms and the
ratio ``auto / listcolor``.

Run from the repository root::

    python benchmarks/auto_small.py            # about a minute
    python benchmarks/auto_small.py --reps 5   # a quick look
"""

from __future__ import annotations

import argparse
import functools
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

import futocp
from futocp import formats
from futocp.backends import auto

CASES = [("futoshiki 4x4", "instances/futoshiki/4x4-easy-01.json"),
         ("futoshiki 5x5, 9 sol.", "instances/futoshiki/5x5-several.json"),
         ("futoshiki 6x6", "instances/futoshiki/6x6-extreme-01.json"),
         ("futoshiki 9x9", "instances/futoshiki/9x9-extreme-01.json"),
         ("sudoku top95 #1", "instances/sudoku/top95.txt")]
LIMITS: list[int | None] = [1, 2, None]


def _timed(call: Callable[[], Any]) -> float:
    gc.disable()
    try:
        t0 = time.perf_counter()
        call()
        return time.perf_counter() - t0
    finally:
        gc.enable()


def _listcolor(board: futocp.Board, limit: int | None) -> Any:
    return futocp.solve(board, "listcolor", limit=limit)


def _default(board: futocp.Board, limit: int | None) -> Any:
    return futocp.solve(board, limit=limit)


def _portfolio(board: futocp.Board, limit: int | None) -> Any:
    saved = auto.FIRST_TRY_MAX_VALUES
    auto.FIRST_TRY_MAX_VALUES = 0  # no first try: the portfolio as before
    try:
        return futocp.solve(board, limit=limit)
    finally:
        auto.FIRST_TRY_MAX_VALUES = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=21, help="repetitions (default 21)")
    parser.add_argument("--no-portfolio", action="store_true",
                        help="leave out auto without its first try (each of its runs forks)")
    args = parser.parse_args()
    solvers = [_listcolor, _default] + ([] if args.no_portfolio else [_portfolio])
    columns = ["listcolor", "auto", "auto, no first try"][:len(solvers)]
    print(f"{'board':<22} {'limit':<6}" + "".join(f"{c:>20}" for c in columns)
          + f"{'auto / listcolor':>18}")
    for label, path in CASES:
        board = formats.read_many(path)[0]
        for limit in LIMITS:
            calls = [functools.partial(solver, board, limit) for solver in solvers]
            for call in calls:  # warm-up: imports, the compiled programs' cache
                call()
            times: list[list[float]] = [[] for _ in calls]
            for _ in range(args.reps):
                for k, call in enumerate(calls):
                    times[k].append(_timed(call))
            medians = [statistics.median(ts) * 1000 for ts in times]
            print(f"{label:<22} {limit!s:<6}" + "".join(f"{m:>17.3f} ms" for m in medians)
                  + f"{medians[1] / medians[0]:>17.1f}x", flush=True)


if __name__ == "__main__":
    main()
