"""Issue 25 benchmark: the command line's start-up and CP-SAT's parameters by model size.

Two parts, each side by side in one run (interleaved per repetition, medians):

* ``--cli`` (items 3): wall time of whole processes started from the command line
  (``python -m futocp ...`` and a hand script, each a fresh interpreter):

  - ``futocp solve FILE --backend cpsat --json`` against a 12-line hand-written
    CP-SAT script (:data:`HAND_SCRIPT`: reads the same JSON puzzle, an IntVar per
    cell, ``add_all_different`` per row and column, ``<`` per inequality, one
    worker), on the shipped 9x9 Futoshiki files; target: ratio <= 1.0;
  - ``futocp solve --puzzle ID --backend listcolor --json`` on Tatham ids
    (``tests/data/unequal-graded.tsv``, 9x9); target <= 0.3 s;
  - ``python -c pass``, the interpreter's own start, for scale.

  Every answer printed is checked with :func:`futocp.verify.verify`.
* ``--tuning`` (item 4): the cpsat backend in this process with presolve,
  probing, symmetry and linearisation on (CP-SAT's defaults) and off
  (``--opt presolve=off`` ...), on 9x9 Futoshiki, top95 Sudoku, QWH of order
  18-20 (up to 8,000 literals) and order 30 (27,000), capped; the ratio off / on
  per file, its median per set. ``SMALL_LITERALS`` in ``futocp/backends/cpsat.py``
  comes from here.

Run from the repository root::

    python benchmarks/startup.py                 # both parts
    python benchmarks/startup.py --cli --reps 11
    python benchmarks/startup.py --tuning --cap 30
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["HAND_SCRIPT", "run_wall", "cli", "tuning", "main"]

HAND_SCRIPT = """\
import json, sys
from ortools.sat.python import cp_model
doc = json.load(open(sys.argv[1]))
n, g = doc["size"], doc["givens"]
m = cp_model.CpModel()
x = [[m.new_int_var(1, n, "") if not g[r][c] else g[r][c] for c in range(n)] for r in range(n)]
for i in range(n):
    m.add_all_different(x[i]); m.add_all_different([x[r][i] for r in range(n)])
for (a, b), (c, d) in doc.get("less", []):
    m.add(x[a][b] < x[c][d])
s = cp_model.CpSolver(); s.parameters.num_workers = 1; s.solve(m)
print(json.dumps([[s.value(v) for v in row] for row in x]))
"""
"""The hand-written reference: 12 lines of OR-Tools, as a user would write them."""

FUTOSHIKI = "instances/futoshiki/9x9-*.json"
TATHAM = "tests/data/unequal-graded.tsv"


def run_wall(cmd: Sequence[str], cwd: str = ROOT) -> tuple[float, str]:
    """Wall time of one process (start to exit, run in ``cwd``) and what it printed."""
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=False)
    seconds = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr[-500:]}")
    return seconds, out.stdout


def _grid_ok(board: Any, grid: Any) -> bool:
    from futocp.verify import verify

    return not verify(board, tuple(v for row in grid for v in row))


def _futocp_ok(board: Any, stdout: str) -> bool:
    doc = json.loads(stdout)
    return doc["status"] == "sat" and _grid_ok(board, doc["solutions"][0])


def cli(reps: int, baseline: str | None = None) -> list[str]:
    """Part one (module docstring): markdown lines. ``baseline``: another checkout of
    futocp (its compiled cores built or copied in) whose ``futocp solve`` commands run
    beside these, with this interpreter from that folder (``python -m`` finds its
    futocp first)."""
    from futocp.formats import loads, read

    py = sys.executable
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(HAND_SCRIPT)
        hand = fh.name
    try:
        files = sorted(glob.glob(os.path.join(ROOT, FUTOSHIKI)))
        with open(os.path.join(ROOT, TATHAM), encoding="utf-8") as f:
            ids = [line.split("\t")[2].strip() for line in f
                   if not line.startswith("#") and line.split("\t")[2].startswith("9")]
        cases: list[tuple[str, Any, list[str], Any]] = [("python -c pass", None,
                                                         [py, "-c", "pass"], None)]
        before = None if baseline is None else py  # run in the baseline's folder: its futocp
        for path in files:
            name = os.path.relpath(path, ROOT)
            board = read(path)
            cases.append((f"hand CP-SAT script {os.path.basename(path)}", board,
                          [py, hand, path], _grid_ok))
            cases.append((f"futocp solve --backend cpsat {os.path.basename(path)}", board,
                          [py, "-m", "futocp", "solve", name, "--backend", "cpsat", "--json"],
                          _futocp_ok))
            if before is not None:
                cases.append((f"baseline: futocp solve --backend cpsat {os.path.basename(path)}",
                              board, [before, "-m", "futocp", "solve", path, "--backend",
                                      "cpsat", "--json"], _futocp_ok))
        for k, game_id in enumerate(ids):
            cases.append((f"futocp solve --puzzle (9x9 id {k + 1}) --backend listcolor",
                          loads(game_id, format="tatham"),
                          [py, "-m", "futocp", "solve", "--puzzle", game_id, "--backend",
                           "listcolor", "--json"], _futocp_ok))
            if before is not None:
                cases.append((f"baseline: futocp solve --puzzle (9x9 id {k + 1}) --backend "
                               "listcolor", loads(game_id, format="tatham"),
                               [before, "-m", "futocp", "solve", "--puzzle", game_id,
                                "--backend", "listcolor", "--json"], _futocp_ok))
        times: dict[str, list[float]] = {c[0]: [] for c in cases}
        wrong: list[str] = []
        for _ in range(reps):  # interleaved: every case once, then again
            for name, board, cmd, check in cases:
                seconds, out = run_wall(cmd, baseline if name.startswith("baseline") and
                                        baseline is not None else ROOT)
                times[name].append(seconds)
                if check is not None and not check(board, json.loads(out) if check is _grid_ok
                                                   else out):
                    wrong.append(name)
    finally:
        os.unlink(hand)
    med = {k: statistics.median(v) for k, v in times.items()}
    load = os.getloadavg()
    lines = [f"{reps} repetitions, interleaved; load average {load[0]:.2f} {load[1]:.2f} "
             f"{load[2]:.2f}", "", "| command | median wall s |", "|---|---:|"]
    lines += [f"| {k} | {v:.3f} |" for k, v in med.items()]
    ratios = []
    for path in files:
        base = os.path.basename(path)
        ratios.append(med[f"futocp solve --backend cpsat {base}"]
                      / med[f"hand CP-SAT script {base}"])
    listcolor = [v for k, v in med.items() if "--backend listcolor" in k
                 and not k.startswith("baseline")]
    lines += ["", f"futocp solve --backend cpsat / hand script, per 9x9 file: median "
                  f"{statistics.median(ratios):.2f} (range {min(ratios):.2f} - {max(ratios):.2f}; "
                  f"target <= 1.0: {'met' if statistics.median(ratios) <= 1.0 else 'not met'})",
              f"futocp solve --puzzle ID --backend listcolor: median "
              f"{statistics.median(listcolor):.3f} s (target <= 0.3 s: "
              f"{'met' if statistics.median(listcolor) <= 0.3 else 'not met'}); "
              f"python -c pass {med['python -c pass']:.3f} s",
              f"Wrong or unverified answers: {', '.join(sorted(set(wrong))) or 'none'}."]
    if before is not None:
        was = [v for k, v in med.items() if k.startswith("baseline") and "listcolor" in k]
        old = [med[f"baseline: futocp solve --backend cpsat {os.path.basename(p)}"]
               / med[f"hand CP-SAT script {os.path.basename(p)}"] for p in files]
        lines.append(f"Baseline ({os.path.basename(os.path.normpath(baseline or ''))}): cpsat / "
                     f"hand median {statistics.median(old):.2f}; listcolor --puzzle median "
                     f"{statistics.median(was):.3f} s.")
    return lines


def _tuning_sets() -> dict[str, list[Any]]:
    from futocp.formats import read, read_many

    def pls(name: str) -> Any:
        return read(os.path.join(ROOT, "instances", "qwh", "lsencode", name), format="pls")

    return {
        "9x9 Futoshiki (729 literals)": [read(p) for p in sorted(glob.glob(os.path.join(
            ROOT, "instances", "futoshiki", "9x9*")))],
        "top95 #1-8 (729)": read_many(os.path.join(ROOT, "instances", "sudoku", "top95.txt"))[:8],
        "QWH order 18, 20 (5,832, 8,000)": [pls("qwh.order18.holes120.pls"),
                                           pls("qwh.order20.holes400.pls")],
        "QWH order 30 (27,000)": [pls(p) for p in ("qwh.order30.holes316.pls",
                                                   "qwh.order30.holes320.pls",
                                                   "qwh.order30.holes900.pls")]
        + [read(p) for p in sorted(glob.glob(os.path.join(
            ROOT, "instances", "qwh", "csplib067", "*.dzn")))[:4]],
    }


def tuning(reps: int, cap: float) -> list[str]:
    """Part two (module docstring): markdown lines."""
    from futocp.backends import get_backend
    from futocp.model import build_model
    from futocp.verify import verify

    backend = get_backend("cpsat")
    lines = [f"cpsat in one process, median of {reps}, cap {cap:g} s (a time-out counts as "
             "the cap); on = CP-SAT's defaults, off = presolve, probing, symmetry, "
             "linearisation off", "",
             "| set | files | median s, on | median s, off | off / on, median (range) | "
             "unsolved on / off |", "|---|---:|---:|---:|---|---|"]
    for name, boards in _tuning_sets().items():
        ons, offs, ratios = [], [], []
        unsolved = {"on": 0, "off": 0}
        for board in boards:
            model = build_model(board)
            runs: dict[str, list[float]] = {"on": [], "off": []}
            for _ in range(reps):
                for how in ("on", "off"):
                    t0 = time.perf_counter()
                    r = backend.solve(model, time_limit=cap, presolve=how, probing=how,
                                      symmetry=how, linearization=how, small_literals=0)
                    seconds = time.perf_counter() - t0
                    if not r.solutions or verify(board, r.solutions[0]):
                        unsolved[how] += 1
                        seconds = cap
                    runs[how].append(seconds)
            on, off = statistics.median(runs["on"]), statistics.median(runs["off"])
            ons.append(on)
            offs.append(off)
            ratios.append(off / on)
        lines.append(f"| {name} | {len(boards)} | {statistics.median(ons):.4f} | "
                     f"{statistics.median(offs):.4f} | {statistics.median(ratios):.2f} "
                     f"({min(ratios):.2f} - {max(ratios):.2f}) | {unsolved['on']} / "
                     f"{unsolved['off']} |")
        print(lines[-1], file=sys.stderr, flush=True)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cli", action="store_true", help="the command line's start-up only")
    p.add_argument("--tuning", action="store_true", help="cpsat's parameters only")
    p.add_argument("--reps", type=int, default=7, help="repetitions (default 7)")
    p.add_argument("--cap", type=float, default=30.0, help="--tuning: seconds per solve")
    p.add_argument("--baseline", metavar="DIR",
                   help="--cli: another futocp checkout run beside (e.g. the commit before)")
    args = p.parse_args(argv)
    both = not (args.cli or args.tuning)
    if args.cli or both:
        print("\n".join(cli(args.reps, args.baseline)), flush=True)
    if args.tuning or both:
        print("\n".join(tuning(max(1, args.reps // 2), args.cap)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
