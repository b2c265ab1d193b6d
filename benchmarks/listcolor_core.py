"""listcolor's compiled core against its pure-Python reference, side by side.

For every instance both engines run the same search (the same counters:
the script checks that nodes, backtracks, probes ... are equal), in one warm
process, interleaved instance by instance with the garbage collector paused
during each measurement. Times are CPU seconds of the process by default
(``--clock cpu``: on a shared machine the wall clock also counts the time
other processes hold the core; ``--clock wall`` for wall time). Three times
per instance and engine:

* ``search`` -- the search alone (``_Search.run`` on the compiled program): the
  engine's own speed, and the one nodes per second are taken from;
* ``solve`` -- ``ListcolorBackend().solve(model)``: the search plus compiling the
  program and the backend protocol (options, checks, the Result);
* ``total`` -- ``build_model`` + ``solve``, as ``benchmarks/sudoku.py`` times it.

The compiled engine runs each instance ``--repeat`` times (median kept), the
Python one once. It prints per set: puzzles/s of each (count / sum of the
per-instance times), nodes/s of the search, and the median and range of the
per-instance ratio python / compiled.

Sets: ``top1465`` / ``top95`` (9x9 Sudoku, one solution, and uniqueness with
``--limit 2``) and ``qwh`` (the CSPLib QWH order-30 instances).

Usage (from the repository root)::

    python benchmarks/listcolor_core.py                    # top1465 and 10 QWH
    python benchmarks/listcolor_core.py --sets top95 --first 50 --limit 2
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from futocp import formats
from futocp.backends.listcolor import (
    ListcolorBackend,
    _Search,
    compile_program,
    core_available,
)
from futocp.board import Board
from futocp.model import build_model
from futocp.verify import verify

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["main"]

ENGINES = ("python", "compiled")
KINDS = ("search", "solve", "total")


CLOCK = time.process_time  # --clock: CPU seconds of this process (or perf_counter, wall)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of one call, the collector paused (:func:`bench` collects once per instance)."""
    gc.disable()
    try:
        t0 = CLOCK()
        out = fn()
        return CLOCK() - t0, out
    finally:
        gc.enable()


def never() -> bool:
    return False


def measure(board: Board, engine: str, limit: int, repeat: int) -> tuple[dict[str, float], dict]:
    """Median seconds per kind, and the search's counters."""
    backend = ListcolorBackend()
    model = build_model(board)
    prog = compile_program(model)
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    counts: dict = {}
    for _ in range(repeat):
        search = _Search(prog, limit, never, core=engine)
        seconds, _ = timed(search.run)
        times["search"].append(seconds)
        counts = search.counts()
        seconds, result = timed(lambda: backend.solve(model, limit=limit, core=engine))
        times["solve"].append(seconds)
        if result.stats.get("core", engine) != engine:
            raise SystemExit(f"asked for core={engine}, ran {result.stats['core']}")
        if any(verify(board, s) for s in result.solutions) or not result.solutions:
            raise SystemExit("a wrong answer")
        seconds, _ = timed(lambda: backend.solve(build_model(board), limit=limit, core=engine))
        times["total"].append(seconds)
    return {kind: statistics.median(t) for kind, t in times.items()}, counts


def bench(name: str, boards: Sequence[Board], limit: int, repeat: int) -> str:
    """Both engines on every board, interleaved; the table."""
    secs: dict[str, dict[str, list[float]]] = {e: {k: [] for k in KINDS} for e in ENGINES}
    nodes = 0
    for i, board in enumerate(boards):
        counts = {}
        gc.collect()
        order = ENGINES if i % 2 else ENGINES[::-1]
        for engine in order:
            t, counts[engine] = measure(board, engine, limit, 1 if engine == "python" else repeat)
            for kind in KINDS:
                secs[engine][kind].append(t[kind])
        if counts["python"] != counts["compiled"]:
            raise SystemExit(f"{name} #{i}: counters differ {counts}")
        nodes += counts["python"]["nodes"]
        if sys.stderr.isatty():
            print(f"\r{name}: {i + 1}/{len(boards)}", end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    n = len(boards)
    clock = "CPU" if CLOCK is time.process_time else "wall"
    lines = [f"### {name}, limit {limit} ({n} instances, {nodes} nodes per engine; compiled: "
             f"median of {repeat}; {clock} time)", "",
             "| time | python /s | compiled /s | python ms (median) | compiled ms (median) "
             "| ratio python/compiled: total | median per instance (range) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for kind in KINDS:
        py, co = secs["python"][kind], secs["compiled"][kind]
        ratios = sorted(p / c for p, c in zip(py, co, strict=True))
        lines.append(f"| {kind} | {n / sum(py):.1f} | {n / sum(co):.1f} "
                     f"| {1000 * statistics.median(py):.3f} | {1000 * statistics.median(co):.3f} "
                     f"| {sum(py) / sum(co):.1f} | {statistics.median(ratios):.1f} "
                     f"({ratios[0]:.1f} - {ratios[-1]:.1f}) |")
    lines.append("")
    lines.append(f"Search nodes per second: python {nodes / sum(secs['python']['search']):,.0f}, "
                 f"compiled {nodes / sum(secs['compiled']['search']):,.0f} "
                 f"({sum(secs['python']['search']) / sum(secs['compiled']['search']):.1f}x).")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["top1465", "qwh"],
                        help="top1465, top95, qwh")
    parser.add_argument("--first", type=int, help="only the first N instances of each set")
    parser.add_argument("--qwh", type=int, default=10, help="QWH instances (first N of 40)")
    parser.add_argument("--limit", type=int, default=1, help="solutions asked for (2: uniqueness)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the compiled engine")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if not core_available():
        raise SystemExit("the compiled core is not built: pip install -e . (needs a C compiler)")
    warm = formats.read_many(ROOT / "instances" / "sudoku" / "top95.txt", "sudoku")[0]
    for engine in ENGINES:
        measure(warm, engine, args.limit, 1)
    for name in args.sets:
        if name == "qwh":
            paths = sorted((ROOT / "instances" / "qwh" / "csplib067").glob("*.dzn"))
            boards = [formats.read(p) for p in paths[:args.qwh]]
        else:
            boards = formats.read_many(ROOT / "instances" / "sudoku" / f"{name}.txt", "sudoku")
        boards = boards[:args.first]
        print(bench(name, boards, args.limit, args.repeat) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
