"""Issue 26 A/B: listcolor's and the seed searches' node counts and speed, two trees side by side.

One measurement (``--json``) runs, in this process, on fixed instances:

* ``listcolor top1465``: the first ``--sudoku`` puzzles of top1465 with the
  compiled core (one solution each), and the first fifth of them with
  ``core=python``;
* ``listcolor qwh``: the first ``--qwh`` CSPLib order-30 QWH instances (one
  solution, the default options);
* ``bt``, ``fc``, ``mac``, ``colorfutoshiki``: three generated Futoshiki
  boards of order 8 (the seeds' generator, 24 inequalities, 10 givens, seeds
  0, 2, 3: a second or more for ``bt``; ``filtering="none"`` as the seeds
  run them; the first solution);
* ``anneal paper``, ``anneal swap``: the same three boards, one run of at most
  ``ANNEAL_MOVES`` moves of each kind (seed 1; ``nodes`` are the moves).

Each metric is the sum of the node counters (``nodes``; the seeds'
``explored_nodes``) and the CPU seconds of this process in ``Backend.solve``
(the Model built before the clock starts; every search here runs in this
process, so CPU time measures it and is less disturbed than wall time by the
other processes of a shared machine). ``--against DIR`` runs the measurement alternately
in this tree and in the checkout DIR (``PYTHONPATH=DIR``, its compiled cores
built or copied in), ``--rounds`` times each, and prints per metric both
nodes (they must be equal) and the median and least CPU seconds of each
side with their ratios (this tree / DIR); the two trees take turns at
running first::

    python benchmarks/ab_search.py --against ../main-checkout --rounds 5
    python benchmarks/ab_search.py --json          # one measurement of this tree
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["measure", "main"]

SEED_SEARCHES = ("bt", "fc", "mac", "colorfutoshiki")
BOARD_SEEDS = (0, 2, 3)  # generated 8x8 boards the seed searches take a second or more on
ANNEAL_MOVES = 200_000  # the move cap of one annealing run (about a second per board)


def _timed(backend: str, models: list[Any], key: str, **options: Any) -> tuple[int, float]:
    """Sum of ``stats[key]`` and of the solve CPU seconds over ``models``."""
    from futocp.backends import get_backend

    solver = get_backend(backend)
    nodes, seconds = 0, 0.0
    for model in models:
        t0 = time.process_time()
        result = solver.solve(model, limit=1, **options)
        seconds += time.process_time() - t0
        nodes += int(result.stats.get(key, 0))
    return nodes, seconds


def measure(sudoku: int, qwh: int) -> dict[str, tuple[int, float]]:
    """The metrics of this tree: ``{name: (nodes, seconds)}``."""
    from futocp.formats import read, read_many
    from futocp.generate import futoshiki_puzzle
    from futocp.model import build_model

    puzzles = read_many(str(ROOT / "instances" / "sudoku" / "top1465.txt"))[:sudoku]
    models = [build_model(b) for b in puzzles]
    out = {"listcolor top1465 compiled": _timed("listcolor", models, "nodes"),
           "listcolor top1465 python": _timed("listcolor", models[:max(1, sudoku // 5)],
                                               "nodes", core="python")}
    paths = sorted(glob.glob(str(ROOT / "instances" / "qwh" / "csplib067" / "*.dzn")))[:qwh]
    out["listcolor qwh"] = _timed("listcolor", [build_model(read(p)) for p in paths], "nodes")
    seeds = [build_model(futoshiki_puzzle(8, inequalities=24, givens=10, seed=s), "none")
             for s in BOARD_SEEDS]
    for name in SEED_SEARCHES:
        out[name] = _timed(name, seeds, "explored_nodes")
    for move in ("paper", "swap"):
        out[f"anneal {move}"] = _timed("anneal", seeds, "moves", seed=1, move=move,
                                       moves=ANNEAL_MOVES)
    return out


def _run(pythonpath: str | None, args: argparse.Namespace) -> dict[str, list[float]]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    else:
        env.pop("PYTHONPATH", None)
    cmd = [sys.executable, __file__, "--json", "--sudoku", str(args.sudoku), "--qwh",
           str(args.qwh)]
    done = subprocess.run(cmd, env=env, cwd="/", capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> None:
    """Measure this tree (``--json``) or compare it with another (``--against``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one measurement, as JSON")
    parser.add_argument("--against", metavar="DIR", help="the other checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sudoku", type=int, default=300, help="top1465 puzzles (default 300)")
    parser.add_argument("--qwh", type=int, default=3, help="CSPLib QWH files (default 2)")
    args = parser.parse_args(argv)
    if args.json or not args.against:
        print(json.dumps(measure(args.sudoku, args.qwh)))
        return
    here: list[dict[str, list[float]]] = []
    there: list[dict[str, list[float]]] = []
    for k in range(args.rounds):  # interleaved, each first every other round: the load hits both alike
        if k % 2:
            here.append(_run(None, args))
        there.append(_run(os.path.abspath(args.against), args))
        if not k % 2:
            here.append(_run(None, args))
    print(f"{'metric':28} {'nodes (this)':>13} {'nodes (other)':>13} {'median this':>11} "
          f"{'other':>7} {'ratio':>6} {'min this':>9} {'other':>7} {'ratio':>6}")
    for metric in here[0]:
        ours = [r[metric][1] for r in here]
        theirs = [r[metric][1] for r in there]
        a, b = statistics.median(ours), statistics.median(theirs)
        nodes_a = {int(r[metric][0]) for r in here}
        nodes_b = {int(r[metric][0]) for r in there}
        print(f"{metric:28} {'/'.join(map(str, sorted(nodes_a))):>13} "
              f"{'/'.join(map(str, sorted(nodes_b))):>13} {a:11.3f} {b:7.3f} {a / b:6.3f} "
              f"{min(ours):9.3f} {min(theirs):7.3f} {min(ours) / min(theirs):6.3f}")
    print(f"CPU seconds, {args.rounds} interleaved rounds (median, and the least: the run "
          f"the other processes disturbed least)")


if __name__ == "__main__":
    main()
