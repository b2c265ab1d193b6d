"""Issue 26 benchmark: the time of ``build_model`` on the 1465 puzzles of top1465.

One pass builds the Model of every puzzle (the boards are read once, before
timing); the script prints the median seconds per pass over ``--passes``
passes, and microseconds per board. To compare two checkouts, run it
alternately under each (interleaved, several times) and compare the medians::

    python benchmarks/build_model.py [--filtering lists] [--passes 3]
    PYTHONPATH=OTHER_CHECKOUT python benchmarks/build_model.py   # the other tree
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from futocp.formats import read_many
from futocp.model import FILTERINGS, build_model

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["main", "time_builds"]


def time_builds(filtering: str, passes: int) -> list[float]:
    """CPU seconds of each pass of ``build_model`` over top1465."""
    boards = read_many(str(ROOT / "instances" / "sudoku" / "top1465.txt"))
    times = []
    for _ in range(passes):
        t0 = time.process_time()
        for board in boards:
            build_model(board, filtering)
        times.append(time.process_time() - t0)
    return times


def main(argv: list[str] | None = None) -> None:
    """Print the median pass time."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filtering", choices=FILTERINGS, default="lists")
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args(argv)
    times = time_builds(args.filtering, args.passes)
    median = statistics.median(times)
    print(f"build_model {args.filtering}: median {median:.3f} s per pass of 1465 boards "
          f"({1e6 * median / 1465:.0f} us/board; passes {', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    main()
