"""Issue 2 benchmark: listcolor and cpsat against a hand-written CP-SAT model.

Solves, side by side in one run, (a) the 9x9 Futoshiki puzzles shipped in
``instances/futoshiki/9x9*`` and (b) the CSPLib QWH order-30 instances in
``instances/qwh/csplib067/`` with three solvers:

* ``listcolor`` -- futocp's native backend;
* ``cpsat`` -- futocp's CP-SAT backend;
* ``hand`` -- a plain CP-SAT model written here in a few lines of OR-Tools
  (an IntVar 1..n per cell, givens fixed, ``add_all_different`` per row and
  column, ``<`` for the inequalities, one worker).

Each time is a *total*: for the futocp backends, building the Model plus the
backend's solve (encoding included); for ``hand``, building the CpModel plus
solving. Every solution is checked with :func:`futocp.verify.verify`. The
solvers run interleaved per instance and repetition, so that load from other
processes hits them alike, after a warm-up, with the garbage collector paused
during each measurement. Per instance the median over repetitions is kept;
per set the script prints the median time of each solver, the median of the
per-instance ratios ``cpsat / hand`` and ``listcolor / cpsat``, and their range.

Run from the repository root::

    python benchmarks/peers.py                       # everything (several minutes)
    python benchmarks/peers.py --limit-instances 5   # a quick look
"""

from __future__ import annotations

import argparse
import gc
import glob
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from futocp.backends import get_backend
from futocp.board import Board
from futocp.families import latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["hand_written", "run_futocp", "warm_up", "measure", "summarise", "main"]

SOLVERS = ("listcolor", "cpsat", "hand")


@dataclass
class Run:
    """One solve: total seconds, status, whether the solution verified, and the solver's counters."""

    seconds: float
    status: str
    verified: bool
    detail: dict[str, Any] = field(default_factory=dict)


def hand_written(board: Board, time_limit: float | None) -> Run:
    """Solve a grid board with a plain hand-written CP-SAT model (the reference)."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    n = board.k
    model = cp_model.CpModel()
    x = [model.new_int_var(1, n, f"x{c}") for c in range(board.n_cells)]
    for c, v in board.clues:
        model.add(x[c] == v)
    for cells in board.asterisms:
        model.add_all_different([x[c] for c in cells])
    for a, b in board.less:
        model.add(x[a] < x[b])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    build = time.perf_counter() - t0
    code = solver.solve(model)
    seconds = time.perf_counter() - t0
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        values = [solver.value(v) for v in x]
        return Run(seconds, "sat", not verify(board, values), {"build_s": build})
    status = "unsat" if code == cp_model.INFEASIBLE else "unknown"
    return Run(seconds, status, status == "unsat", {"build_s": build})


def run_futocp(board: Board, backend: str, time_limit: float | None) -> Run:
    """Build the Model and solve it with a futocp backend; time both."""
    solver = get_backend(backend)
    t0 = time.perf_counter()
    model = build_model(board)
    result = solver.solve(model, limit=1, time_limit=time_limit)
    seconds = time.perf_counter() - t0
    ok = all(not verify(board, s) for s in result.solutions)
    keep = ("build_s", "solve_s", "nodes", "backtracks", "probes", "restarts", "conflicts")
    detail = {k: result.stats[k] for k in keep if k in result.stats}
    return Run(seconds, result.status.value, ok and result.status.value != "unknown", detail)


def warm_up() -> None:
    """Import and exercise every solver once, so that no measurement pays for it."""
    board = latin_square(4, [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0]],
                         less=[((0, 1), (0, 2))])
    hand_written(board, None)
    for backend in ("listcolor", "cpsat"):
        run_futocp(board, backend, None)


def measure(boards: Sequence[tuple[str, Board]], repeat: int, time_limit: float | None,
            progress: Callable[[str], None]) -> dict[str, dict[str, list[Run]]]:
    """Every solver on every board, ``repeat`` times, interleaved."""
    warm_up()
    out: dict[str, dict[str, list[Run]]] = {}
    for name, board in boards:
        runs: dict[str, list[Run]] = {s: [] for s in SOLVERS}
        for _ in range(repeat):
            for solver in SOLVERS:
                gc.collect()
                gc.disable()  # no collector pause inside a measurement
                try:
                    if solver == "hand":
                        runs[solver].append(hand_written(board, time_limit))
                    else:
                        runs[solver].append(run_futocp(board, solver, time_limit))
                finally:
                    gc.enable()
        out[name] = runs
        progress(f"  {name}: " + "  ".join(
            f"{s} {statistics.median(r.seconds for r in runs[s]):.4f}s {runs[s][0].status}"
            for s in SOLVERS))
    return out


def summarise(title: str, results: dict[str, dict[str, list[Run]]]) -> list[str]:
    """Markdown lines: one row per instance, then the medians and ratios."""
    lines = [f"### {title}", "",
             "| instance | listcolor s | cpsat s | hand s | cpsat/hand | listcolor/cpsat | listcolor nodes |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    med: dict[str, list[float]] = {s: [] for s in SOLVERS}
    r_cpsat: list[float] = []
    r_list: list[float] = []
    failures: list[str] = []
    for name, runs in results.items():
        t = {s: statistics.median(r.seconds for r in runs[s]) for s in SOLVERS}
        for s in SOLVERS:
            med[s].append(t[s])
            bad = [r for r in runs[s] if not r.verified]
            if bad:
                failures.append(f"{name}: {s} {bad[0].status}")
        r_cpsat.append(t["cpsat"] / t["hand"])
        r_list.append(t["listcolor"] / t["cpsat"])
        nodes = runs["listcolor"][0].detail.get("nodes", "")
        lines.append(f"| {name} | {t['listcolor']:.4f} | {t['cpsat']:.4f} | {t['hand']:.4f} | "
                     f"{r_cpsat[-1]:.2f} | {r_list[-1]:.2f} | {nodes} |")
    lines += ["",
              f"{len(results)} instances. Median total time: listcolor {statistics.median(med['listcolor']):.4f} s, "
              f"cpsat {statistics.median(med['cpsat']):.4f} s, hand {statistics.median(med['hand']):.4f} s; "
              f"sum: listcolor {sum(med['listcolor']):.2f} s, cpsat {sum(med['cpsat']):.2f} s, "
              f"hand {sum(med['hand']):.2f} s.",
              f"cpsat / hand: median {statistics.median(r_cpsat):.2f} "
              f"(range {min(r_cpsat):.2f} - {max(r_cpsat):.2f}).",
              f"listcolor / cpsat: median {statistics.median(r_list):.2f} "
              f"(range {min(r_list):.2f} - {max(r_list):.2f}); listcolor faster on "
              f"{sum(r < 1 for r in r_list)} of {len(r_list)}.",
              f"Unsolved or unverified: {'; '.join(failures) if failures else 'none'}.", ""]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the Markdown tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="repetitions per 9x9 puzzle (median kept)")
    ap.add_argument("--qwh-repeat", type=int, default=1, help="repetitions per QWH instance")
    ap.add_argument("--limit-instances", type=int, default=None, help="at most this many per set")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per solve")
    ap.add_argument("--sets", default="futoshiki,qwh", help="comma-separated: futoshiki, qwh")
    ap.add_argument("--futoshiki", default="instances/futoshiki/9x9*", help="glob of the 9x9 puzzles")
    ap.add_argument("--qwh", default="instances/qwh/csplib067/*.dzn", help="glob of the QWH instances")
    args = ap.parse_args(argv)

    def load(pattern: str) -> list[tuple[str, Board]]:
        paths = sorted(glob.glob(os.path.join(ROOT, pattern)))
        if args.limit_instances is not None:
            paths = paths[:args.limit_instances]
        return [(os.path.basename(p), read(p)) for p in paths]

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    out = [f"Command: python benchmarks/peers.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip(),
           ""]
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    for name in sets:
        if name == "futoshiki":
            boards = load(args.futoshiki)
            title = f"9x9 Futoshiki ({args.futoshiki}), median of {args.repeat}"
            repeat = args.repeat
        elif name == "qwh":
            boards = load(args.qwh)
            title = f"QWH order 30 (CSPLib 067), median of {args.qwh_repeat}"
            repeat = args.qwh_repeat
        else:
            ap.error(f"unknown set {name!r}")
        if not boards:
            print(f"no instances for {name}", file=sys.stderr)
            continue
        progress(f"{title}: {len(boards)} instances")
        results = measure(boards, repeat, args.time_limit, progress)
        out += summarise(title, results)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
