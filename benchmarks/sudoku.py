"""Sudoku collections with every backend, side by side: solving and uniqueness checks.

Solves the 9x9 puzzles of ``instances/sudoku/top95.txt`` and ``top1465.txt``
(one puzzle per line, 81 characters, ``.`` or ``0`` empty, ``#`` comments) with
each available complete backend, puzzle by puzzle in turn (the backend order
rotates from one puzzle to the next, so that load on the shared machine falls
on all alike), and checks every solution with ``verify()``. Then it checks
uniqueness (``limit=2``: every puzzle of these collections has exactly one
solution) the same way, and times minimising a few solved grids to critical
puzzles (many struck-value satisfiability questions, most of them unsat), which
is what ``futocp count`` / ``check`` / ``minimize`` and the generators do, to
choose their default backend by measurement.

Time per puzzle is the wall time of ``build_model`` + ``solve`` (parsing is
left out: it is the same for all; each backend first solves one puzzle
untimed, to load its solver package). A backend whose projected time on a
collection exceeds ``--budget`` seconds is skipped there when its time on the
previous collection predicts it, or stopped once it has run ``--cap``
seconds; the table says so and reports its rate on the puzzles it ran.

Usage (from the repository root)::

    python benchmarks/sudoku.py                       # top95 and top1465, all backends
    python benchmarks/sudoku.py --collections top95 --backends listcolor,cpsat
    python benchmarks/sudoku.py --first 50 --no-unique
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from futocp import formats
from futocp.backends import REGISTRY, get_backend
from futocp.board import Board
from futocp.errors import UnsupportedError
from futocp.model import build_model
from futocp.puzzles import minimize
from futocp.verify import verify

ROOT = Path(__file__).resolve().parents[1]

DATA = ROOT / "instances" / "sudoku"
ORDER = ("listcolor", "cpsat", "sat", "pyconstraint")


def read_collection(path: Path) -> list[Board]:
    """The puzzles of a Sudoku line file."""
    return formats.read_many(path, "sudoku")


class Tally:
    """Per (collection, task, backend): times, failures, timeouts."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.failed = 0  # wrong answers: unverified, or not exactly one solution for uniqueness
        self.unknown = 0  # stopped by the per-puzzle time limit
        self.skipped = ""

    @property
    def total(self) -> float:
        return sum(self.times)


NO_TIME_LIMIT: set[str] = set()  # backends that refused the per-puzzle time limit


def run_one(name: str, board: Board, limit: int, time_limit: float) -> tuple[float, bool, bool]:
    """(seconds, correct, finished) for one puzzle."""
    backend = get_backend(name)
    seconds_limit = None if name in NO_TIME_LIMIT else time_limit
    t0 = time.perf_counter()
    try:
        result = backend.solve(build_model(board), limit=limit, time_limit=seconds_limit)
    except UnsupportedError as exc:  # e.g. a SAT solver that cannot be interrupted
        print(f"\n{name}: {exc}; running it without a per-puzzle time limit", file=sys.stderr)
        NO_TIME_LIMIT.add(name)
        return run_one(name, board, limit, time_limit)
    seconds = time.perf_counter() - t0
    good = all(not verify(board, s) for s in result.solutions)
    if not result.ok or not (result.exhausted or result.n_solutions >= limit):
        return seconds, good, False  # stopped by the time limit
    good = good and bool(result.solutions)
    if limit == 2:
        good = good and result.n_solutions == 1
    return seconds, good, True


def bench(collection: str, boards: Sequence[Board], backends: Sequence[str], limit: int,
          time_limit: float, estimates: dict[str, float], budget: float, cap: float
          ) -> dict[str, Tally]:
    """Run every backend on every board, in turn; stop or skip the ones over budget."""
    tallies = {name: Tally() for name in backends}
    active = []
    for name in backends:
        per_puzzle = estimates.get(name)
        if per_puzzle is not None and per_puzzle * len(boards) > budget:
            tallies[name].skipped = (f"skipped: estimated {per_puzzle * len(boards):.0f} s "
                                     f"> budget {budget:.0f} s")
        else:
            active.append(name)
    for i, board in enumerate(boards):
        turn = active[i % len(active):] + active[:i % len(active)] if active else []
        for name in turn:
            seconds, good, finished = run_one(name, board, limit, time_limit)
            tally = tallies[name]
            tally.times.append(seconds)
            tally.failed += not good
            tally.unknown += not finished
            projected = tally.total / len(tally.times) * len(boards)
            if tally.total > cap and projected > budget and i + 1 < len(boards):
                active.remove(name)
                tally.skipped = f"stopped after {i + 1} puzzles: projected {projected:.0f} s"
        if sys.stderr.isatty():
            print(f"\r{collection} limit={limit}: {i + 1}/{len(boards)}", end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return tallies


def bench_minimize(boards: Sequence[Board], backends: Sequence[str]) -> str:
    """Seconds to minimise each solved board to a critical puzzle, per backend (same seeds)."""
    solved = [b.solved(get_backend("cpsat").solve(build_model(b)).solutions[0]) for b in boards]
    times: dict[str, list[float]] = {name: [] for name in backends}
    clues: dict[str, list[int]] = {name: [] for name in backends}
    for i, board in enumerate(solved):
        turn = list(backends[i % len(backends):]) + list(backends[:i % len(backends)])
        for name in turn:
            t0 = time.perf_counter()
            puzzle = minimize(board, seed=i, backend=name)
            times[name].append(time.perf_counter() - t0)
            clues[name].append(len(puzzle.clues))
    if any(c != clues[backends[0]] for c in clues.values()):
        raise SystemExit("minimize gave different puzzles with different backends")
    best = min(statistics.median(t) for t in times.values())
    lines = [f"### minimize to critical ({len(solved)} solved top95 grids, seeds 0..{len(solved) - 1}; "
             f"median {statistics.median(clues[backends[0]]):.0f} clues left)", "",
             "| backend | median s per grid | ratio to fastest |", "|---|---:|---:|"]
    for name, t in times.items():
        lines.append(f"| {name} | {statistics.median(t):.3f} | {statistics.median(t) / best:.2f} |")
    return "\n".join(lines)


def table(title: str, n: int, tallies: dict[str, Tally]) -> str:
    best = min((t.total for t in tallies.values() if len(t.times) == n), default=0.0)
    lines = [f"### {title} ({n} puzzles)", "",
             "| backend | puzzles/s | median ms | total s | ratio to fastest | wrong | timeouts |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, t in tallies.items():
        if not t.times:
            lines.append(f"| {name} | {t.skipped} | | | | | |")
            continue
        note = f" ({t.skipped})" if t.skipped else ""
        ratio = f"{t.total / best:.2f}" if len(t.times) == n else "-"
        lines.append(f"| {name}{note} | {len(t.times) / t.total:.1f} "
                     f"| {1000 * statistics.median(t.times):.1f} | {t.total:.2f} | {ratio} "
                     f"| {t.failed} | {t.unknown} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", nargs="+", default=["top95", "top1465"])
    parser.add_argument("--backends", default="all", help="all (available complete ones) or a,b,c")
    parser.add_argument("--first", type=int, help="only the first N puzzles of each collection")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per puzzle")
    parser.add_argument("--budget", type=float, default=300.0,
                        help="skip a backend on a collection when its projected time exceeds this (s)")
    parser.add_argument("--cap", type=float, default=30.0,
                        help="stop a backend over budget once it has run this long (s)")
    parser.add_argument("--no-unique", action="store_true", help="skip the uniqueness (limit 2) runs")
    parser.add_argument("--minimize", type=int, default=5, metavar="N",
                        help="also minimise N solved grids with each backend (0: skip)")
    args = parser.parse_args(argv)

    if args.backends == "all":
        names = [n for n in ORDER if n in REGISTRY] + [n for n in REGISTRY if n not in ORDER]
        names = [n for n in names if REGISTRY[n].complete and REGISTRY[n].available() is True]
    else:
        names = args.backends.split(",")
    print(f"backends: {', '.join(names)}; per-puzzle time limit {args.time_limit:.0f} s; "
          f"budget {args.budget:.0f} s per backend and collection\n")
    tasks = [(1, "solve")] + ([] if args.no_unique else [(2, "uniqueness (limit 2)")])
    estimates: dict[int, dict[str, float]] = {limit: {} for limit, _ in tasks}
    unique_tallies: dict[str, Tally] = {}
    warm = read_collection(DATA / "top95.txt")[0]
    for name in names:
        run_one(name, warm, 1, args.time_limit)
    for collection in args.collections:
        boards = read_collection(DATA / f"{collection}.txt")[:args.first]
        for limit, label in tasks:
            tallies = bench(collection, boards, names, limit, args.time_limit, estimates[limit],
                            args.budget, args.cap)
            for name, t in tallies.items():
                if t.times:
                    estimates[limit][name] = t.total / len(t.times)
            if limit == 2:
                unique_tallies = tallies
            print(table(f"{collection}: {label}", len(boards), tallies) + "\n", flush=True)
    if args.minimize:
        fast = [n for n in names if not unique_tallies.get(n) or not unique_tallies[n].skipped]
        boards = read_collection(DATA / "top95.txt")[:args.minimize]
        print(bench_minimize(boards, fast) + "\n", flush=True)
    if NO_TIME_LIMIT:
        print(f"ran without a per-puzzle time limit: {', '.join(sorted(NO_TIME_LIMIT))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
