"""Towers clues by their layered diagram: the backends side by side on Tatham's Towers.

A Towers clue (the relation kind ``visible``) on a row of 8 or 9 cells has tens
of thousands to 118,124 allowed tuples, and a few hundred arcs as a layered
diagram. ``pyconstraint``, ``mip``, ``smt`` and ``choco`` post it by its diagram
(a diagram constraint with generalised arc consistency, a unit flow, Booleans
per node and arc, Choco's ``regular``) where they used a table before.

Each run is a fresh process that reads the id, solves with ``limit=2`` (the
uniqueness proof), verifies the answer and prints its wall time (the imports
not counted); the backends run in turns per id. With ``--baseline DIR`` (a
checkout of another commit with its compiled cores, e.g. ``git worktree add
DIR COMMIT && make -C DIR .venv/.installed-dev``) each backend also runs on that
code, just before the current one, and the table gives the ratio.

Run from the repository root (needs ``sgt-towers`` from Debian's sgt-puzzles
for fresh ids, or ``--ids FILE`` with one id per line)::

    python benchmarks/towers_diagram.py --ids benchmarks/towers-8du.txt --baseline BEFORE
    python benchmarks/towers_diagram.py --count 3 --spec 9dx --backends pyconstraint,choco
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

__all__ = ["main", "run_one"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CHILD = """
import json, sys, time
import futocp
from futocp.formats import loads
from futocp.verify import verify
board = loads(sys.argv[1])
t = time.perf_counter()
r = futocp.solve(board, sys.argv[2], limit=2, time_limit=float(sys.argv[3]))
wall = time.perf_counter() - t
ok = r.n_solutions == 1 and r.exhausted and verify(board, r.solutions[0]) == []
print(json.dumps({"wall_s": wall, "ok": ok, "status": r.status.value}))
"""


def run_one(game_id: str, backend: str, cap: float, path: str | None = None) -> dict[str, object]:
    """One solve in a fresh process (``path``: the code to import futocp from)."""
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path
    # -P: not the current folder first on sys.path (it would shadow ``path``)
    proc = subprocess.run([sys.executable, "-P", "-c", _CHILD, game_id, backend, str(cap)],
                          capture_output=True, text=True, env=env, timeout=cap + 120)
    if proc.returncode:
        return {"wall_s": None, "ok": False, "status": proc.stderr.strip().splitlines()[-1]}
    return json.loads(proc.stdout)


def _ids(args: argparse.Namespace) -> list[str]:
    if args.ids:
        with open(args.ids, encoding="utf-8") as fh:
            return [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    sgt = shutil.which("sgt-towers") or "/usr/games/sgt-towers"
    out = subprocess.run([sgt, "--generate", str(args.count), args.spec],
                         capture_output=True, text=True, check=True).stdout
    return [line.split(":", 1)[1] if "#" in line.split(":", 1)[0] else line
            for line in out.split()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=3, help="fresh ids (default 3)")
    ap.add_argument("--spec", default="8du", help="sgt-towers parameters (default 8du)")
    ap.add_argument("--ids", help="a file of Towers ids instead of fresh ones "
                    "(benchmarks/towers-8du.txt: the ids of docs/performance.md)")
    ap.add_argument("--backends", default="listcolor,pyconstraint,mip,smt,choco")
    ap.add_argument("--baseline", help="a checkout of another commit to compare with")
    ap.add_argument("--cap", type=float, default=300.0, help="time limit per solve (default 300)")
    args = ap.parse_args(argv)
    ids = _ids(args)
    backends = [b for b in args.backends.split(",") if b]
    print(f"load {os.getloadavg()[0]:.1f}; {len(ids)} ids ({args.spec}); wall s of one solve "
          "with limit 2, verified")
    head = "| id | " + " | ".join(f"{b} before | {b}" if args.baseline else b for b in backends)
    print(head + " |")
    print("|---|" + "---:|" * (len(backends) * (2 if args.baseline else 1)))
    ratios: dict[str, list[float]] = {b: [] for b in backends}
    for k, game_id in enumerate(ids):
        cells = []
        for b in backends:
            before = run_one(game_id, b, args.cap, args.baseline) if args.baseline else None
            now = run_one(game_id, b, args.cap)
            for rec in ([before] if before else []) + [now]:
                cells.append(f"{rec['wall_s']:.2f}" if rec["ok"] and rec["wall_s"] is not None
                             else str(rec["status"]))
            if before and before["ok"] and now["ok"]:
                ratios[b].append(float(now["wall_s"]) / float(before["wall_s"]))  # type: ignore[arg-type]
        print(f"| {k + 1} | " + " | ".join(cells) + " |", flush=True)
    for b, rs in ratios.items():
        if rs:
            print(f"{b}: after / before, median {statistics.median(rs):.2f} "
                  f"(range {min(rs):.2f} - {max(rs):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
