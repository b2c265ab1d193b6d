"""Issue 25 item 5: listcolor's peak memory and time per file, builds side by side.

Every run is a fresh child process (``sys.executable``) that reads one board,
solves it with ``listcolor`` (defaults, one solution), checks the solution
with :func:`futocp.verify.verify` and reports its wall time (solve, the
process start not counted), its counters and its peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the child, the parse and
import included). A run is capped at ``--cap`` seconds (a time-out counts as
the cap).

``--tree LABEL=DIR`` (repeatable) runs another build of futocp: ``DIR`` is put
first on the child's ``PYTHONPATH`` (a copy of the ``futocp`` package with
another build of the compiled cores, say the one before the undo trail); the
default is this checkout's, labelled ``new``. Runs are interleaved: for each
repetition, each file, each tree. The table gives per file and tree the median
wall time, the median CPU time of the child during the solve (steadier on a
shared machine), the median peak RSS, the nodes (which must be the same for every tree:
a difference is flagged) and whether the answer was verified.

Files: ``--files`` (paths of ``.pls``/``.dzn`` files), ``empty:N`` for the
empty N x N Latin square, or ``top1465`` / ``top95`` (the whole Sudoku
collection in one child, ``solve`` per puzzle, build_model included: its time
and total nodes; ``top95:20`` the first 20); ``--opt core=python`` runs the
pure-Python core;
by default the empty orders 70, 100 and 150.

Run from the repository root::

    python benchmarks/listcolor_memory.py
    python benchmarks/listcolor_memory.py --tree old=/tmp/old-build --tree new=. --repeat 3
    python benchmarks/listcolor_memory.py --files instances/qwh/lsencode/qwh.order40.holes528.pls
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["CHILD", "run_one", "measure", "table", "main"]

DEFAULT_FILES = ("empty:70", "empty:100", "empty:150")
TOP1465 = os.path.join(ROOT, "instances", "sudoku", "top1465.txt")

CHILD = r"""
import json, resource, sys, time
from futocp.api import solve
from futocp.formats import loads, read
from futocp.verify import verify
spec = sys.argv[1]
opts = json.loads(sys.argv[3])
if spec.startswith("top1465") or spec.startswith("top95"):
    from futocp.formats import read_many
    name, _, first = spec.partition(":")
    boards = read_many(sys.argv[2].replace("top1465", name))[:int(first or 10**9)]
    solve(boards[0], "listcolor", **opts)
    t0, c0 = time.perf_counter(), time.process_time()
    rs = [solve(b, "listcolor", **opts) for b in boards]
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    ok = all(r.solutions and not verify(b, r.solutions[0]) for b, r in zip(boards, rs))
    print(json.dumps({"status": "sat", "seconds": elapsed, "cpu": cpu, "verified": ok,
                      "nodes": sum(r.stats["nodes"] for r in rs),
                      "backtracks": sum(r.stats["backtracks"] for r in rs),
                      "core": rs[0].stats.get("core"),
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    sys.exit(0)
if spec.startswith("empty:"):
    n = int(spec[6:])
    board = loads("order %d\n" % n + ("-1 " * n + "\n") * n, format="pls")
else:
    board = read(spec, format="dzn" if spec.endswith(".dzn") else "pls")
t0, c0 = time.perf_counter(), time.process_time()
r = solve(board, "listcolor", **opts)
elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
ok = bool(r.solutions) and not verify(board, r.solutions[0])
print(json.dumps({"status": r.status, "seconds": elapsed, "cpu": cpu, "verified": ok,
                  "nodes": r.stats.get("nodes"), "backtracks": r.stats.get("backtracks"),
                  "core": r.stats.get("core"),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
"""The child's program: argv[1] a file or ``empty:N``; prints one JSON line."""


def run_one(spec: str, tree: str | None, cap: float, opts: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """One child run of ``spec`` with the futocp of ``tree`` (None: this checkout's) and
    the listcolor options ``opts``."""
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH", "")]))
    try:
        # -P: the working directory is not put first on sys.path (PYTHONPATH is)
        out = subprocess.run([sys.executable, "-P", "-c", CHILD, spec, TOP1465, json.dumps(opts or {})], capture_output=True,
                             text=True, timeout=cap, env=env, cwd=ROOT, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": cap, "cpu": None, "verified": False, "nodes": None,
                "peak_mb": None}
    lines = out.stdout.strip().splitlines()
    if out.returncode or not lines:
        return {"status": "error", "seconds": cap, "cpu": None, "verified": False, "nodes": None,
                "peak_mb": None, "error": out.stderr.strip().splitlines()[-1:]}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def measure(files: Sequence[str], trees: Sequence[tuple[str, str | None]], repeat: int,
            cap: float, opts: dict[str, str] | None = None
            ) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Runs per (file, tree label), interleaved: repetition, file, tree."""
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _ in range(repeat):
        for spec in files:
            for label, tree in trees:
                r = run_one(spec, tree, cap, opts)
                runs.setdefault((spec, label), []).append(r)
                print(f"  {spec} {label}: {r['status']} {r['seconds']:.2f} s "
                      f"{r['peak_mb'] or 0:.0f} MB nodes {r['nodes']}", file=sys.stderr)
    return runs


def _median(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return statistics.median(vals) if vals else None


def table(files: Sequence[str], labels: Sequence[str],
          runs: dict[tuple[str, str], list[dict[str, Any]]]) -> list[str]:
    """The Markdown table: per file and tree, median time and peak RSS, nodes, verified."""
    head = ("| file | " + " | ".join(f"{lb} s | {lb} cpu s | {lb} MB" for lb in labels)
            + " | nodes | verified |")
    rows = [head, "|" + "---|" * (3 * len(labels) + 3)]
    for spec in files:
        cells: list[str] = []
        nodes: set[Any] = set()
        verified = True
        for lb in labels:
            rs = runs[(spec, lb)]
            t = _median([r["seconds"] for r in rs])
            cpu = _median([r.get("cpu") for r in rs])
            mb = _median([r["peak_mb"] for r in rs])
            cells += [f"{t:.2f}" if t is not None else "-",
                      f"{cpu:.2f}" if cpu is not None else "-",
                      f"{mb:.0f}" if mb is not None else "-"]
            nodes |= {r["nodes"] for r in rs if r["status"] == "sat"}
            verified &= all(r["verified"] for r in rs)
        same = ", ".join(map(str, sorted(nodes))) if len(nodes) <= 1 else f"DIFFER {sorted(nodes)}"
        name = os.path.basename(spec)
        rows.append(f"| {name} | " + " | ".join(cells) + f" | {same} | {verified} |")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", nargs="*", default=list(DEFAULT_FILES),
                   help="files or empty:N (default: empty:70 empty:100 empty:150)")
    p.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR",
                   help="another futocp build, first on the child's PYTHONPATH (repeatable)")
    p.add_argument("--repeat", type=int, default=1, help="runs per file and tree (medians)")
    p.add_argument("--cap", type=float, default=300.0, help="seconds per run (default 300)")
    p.add_argument("--opt", action="append", default=[], metavar="K=V",
                   help="a listcolor option (repeatable), e.g. core=python")
    a = p.parse_args(argv)
    trees: list[tuple[str, str | None]] = []
    for t in a.tree:
        label, _, path = t.partition("=")
        trees.append((label, os.path.abspath(path) if path else None))
    if not trees:
        trees = [("new", None)]
    runs = measure(a.files, trees, a.repeat, a.cap, dict(o.split("=", 1) for o in a.opt))
    print("\n".join(table(a.files, [lb for lb, _ in trees], runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
