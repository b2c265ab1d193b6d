"""What a run's own process costs the experiment runner: forkserver against subprocess.

Every run of ``futocp run`` happens in a fresh process (so that a hang or a
crash costs that run only). This script starts N isolated runs of the same
small solve each way, side by side (alternating), and prints the medians of
the time the supervisor waited per run and of the solve time measured inside
the run, and the ratios.

    python benchmarks/run_isolation.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics

from futocp.experiments.isolate import run_isolated
from futocp.experiments.runner import solve_run
from futocp.generate import generate

__all__ = ["main"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--backend", default="cpsat")
    args = parser.parse_args()
    board = generate("futoshiki", size=6, givens=8, inequalities=10, seed=1)
    task = {"board": board, "backend": args.backend, "options": {}, "filtering": "lists",
            "limit": 1, "seed": None, "time_limit": 10}
    methods = ("forkserver", "subprocess")
    run_isolated(solve_run, task, 60, "forkserver")  # start the fork server (not counted)
    waited: dict[str, list[float]] = {m: [] for m in methods}
    inside: dict[str, list[float]] = {m: [] for m in methods}
    for _ in range(args.runs):
        for method in methods:
            out = run_isolated(solve_run, task, 60, method)
            assert out.error is None and out.value["status"] == "sat", out
            waited[method].append(out.elapsed)
            inside[method].append(out.value["stats"]["wall_s"])
    print(f"{args.runs} runs each, backend {args.backend}, 6x6 Futoshiki")
    print(f"{'method':<12}{'waited/run (s)':>16}{'wall_s inside (s)':>20}")
    for m in methods:
        print(f"{m:<12}{statistics.median(waited[m]):>16.4f}{statistics.median(inside[m]):>20.4f}")
    ratio = statistics.median(waited["subprocess"]) / statistics.median(waited["forkserver"])
    print(f"subprocess / forkserver, time waited per run: {ratio:.1f}x")


if __name__ == "__main__":
    main()
