"""Issue 3 benchmark: the pyconstraint backend's options, side by side.

Configurations (backend options; the first is the default)::

    default                     solver=auto (backtracking for one solution), alldifferent=permutation, less=chains
    solver=optimized            OptimizedBacktrackingSolver (static variable order)
    solver=recursive            RecursiveBacktrackingSolver
    alldifferent=library        python-constraint's AllDifferentConstraint
    less=pairs                  FunctionConstraint(operator.lt) per inequality

Instances: the Futoshiki of order >= 7 shipped in ``instances/futoshiki/``
(one solution each), an empty Latin square of order 20 (one solution), and
the enumeration of the 1,344 Latin squares of order 5 with a fixed first row
(all solutions). Configurations are interleaved per instance. A run that hits
``--cap`` seconds (the backend's own time limit, which kills its search
process) counts as ``--cap`` in the medians. Every solution is checked with
:func:`futocp.verify.verify`.

Run from the repository root::

    python benchmarks/pyconstraint_options.py [--cap 10]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import time
from typing import Any

from futocp.backends.pyconstraint import PyconstraintBackend
from futocp.board import Board
from futocp.families import latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["CONFIGS", "instances", "main"]

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "solver=optimized": {"solver": "optimized"},
    "solver=recursive": {"solver": "recursive"},
    "alldifferent=library": {"alldifferent": "library"},
    "less=pairs": {"less": "pairs"},
}


def instances() -> list[tuple[str, Board, int | None]]:
    """(name, board, limit) for every instance of the study."""
    out: list[tuple[str, Board, int | None]] = []
    for path in sorted(glob.glob(os.path.join(ROOT, "instances", "futoshiki", "*"))):
        name = os.path.basename(path)
        if not name[0].isdigit() or "unsat" in name:
            continue
        board = read(path)
        if board.shape[0] >= 7:
            out.append((name, board, 1))
    out.append(("latin-20-empty", latin_square(20), 1))
    first = [[1, 2, 3, 4, 5]] + [[0] * 5 for _ in range(4)]
    out.append(("latin-5-row-all", latin_square(5, first), None))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the study and print one row per instance and a summary per configuration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=10.0, help="seconds per run")
    args = parser.parse_args(argv)
    backend = PyconstraintBackend()
    times: dict[str, list[float]] = {c: [] for c in CONFIGS}
    solved: dict[str, int] = {c: 0 for c in CONFIGS}
    print(f"{'instance':24s} " + " ".join(f"{c:>21s}" for c in CONFIGS))
    for name, board, limit in instances():
        model = build_model(board)
        row = []
        for config, options in CONFIGS.items():
            t0 = time.perf_counter()
            result = backend.solve(model, limit=limit, time_limit=args.cap, **options)
            wall = time.perf_counter() - t0
            bad = sum(1 for s in result.solutions if verify(board, s))
            if bad:
                raise SystemExit(f"{config} on {name}: {bad} solutions fail verification")
            finished = result.ok and (limit is not None or result.exhausted)
            solved[config] += finished
            times[config].append(wall if finished else args.cap)
            row.append(f"{wall:7.2f}s" + ("" if finished else " (cap)") + f" n={result.n_solutions}")
        print(f"{name:24s} " + " ".join(f"{cell:>21s}" for cell in row), flush=True)
    base = statistics.median(times["default"])
    print()
    print(f"{'configuration':24s} {'finished':>9s} {'median s':>9s} {'vs default':>11s}")
    for config in CONFIGS:
        med = statistics.median(times[config])
        print(f"{config:24s} {solved[config]:>5d}/{len(times[config]):<3d} {med:9.2f} "
              f"{med / base:10.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
