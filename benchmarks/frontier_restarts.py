"""Issue 25 item 7: randomised restarts of listcolor's compiled core on the QWH frontier.

Gomes, Selman and Kautz found the run times of a backtracking search on
quasigroup completion heavy-tailed: a run that is slow is slow for a long
time, and restarting with another random tie-break often finds a short run.
This script measures that with listcolor's compiled core (the seeded search
runs in Python, 30-50x slower, so the randomisation is done on the
instance): each restart solves an isomorphic copy of the square -- rows,
columns and symbols permuted at random, which changes every tie the search
breaks by index -- for a slice of ``base * luby(i)`` seconds, then maps the
answer back and checks it with :func:`futocp.verify.verify` on the original
board. Nothing is kept across restarts (listcolor has no weights to keep).

Systems, each on every file, a fresh process per run, one after the other:

* ``listcolor`` -- one run of ``futocp.solve(board, "listcolor")``, the cap as its time limit;
* ``restarts`` -- one restart stream (Luby slices), one core;
* ``restarts x2`` -- two streams with different seeds on the two cores; the first answer
  stops the other.

The wall time of every run counts reading the file and building each copy's
Model (part of a restart's cost). Run from the repository root::

    python benchmarks/frontier_restarts.py                     # the five frontier files, 60 s
    python benchmarks/frontier_restarts.py --cap 20 --base 0.5 --files qwh.order33.holes381
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LSENCODE = os.path.join(ROOT, "instances", "qwh", "lsencode")
FRONTIER = ("qwh.order33.holes381", "qwh.order50.holes750.bal", "qwh.order50.holes825.bal",
            "qwh.order60.holes1080.bal", "qwh.order60.holes1152.bal")

__all__ = ["luby", "restart_stream", "main"]


def luby(i: int) -> int:
    """The i-th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 ...

    Example:
        >>> [luby(i) for i in range(1, 16)]
        [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    """
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


def _grid(board: Any) -> list[list[Any]]:
    n = board.shape[0]  # a square's side
    grid: list[list[Any]] = [[0] * n for _ in range(n)]
    for cell, label in board.clues:
        grid[cell // n][cell % n] = label
    return grid


def restart_stream(path: str, cap: float, base: float, seed: int) -> dict[str, Any]:
    """Restart listcolor on random isomorphic copies of the square in ``path``
    until one answers or ``cap`` seconds have passed; the answer is verified on
    the original board."""
    import futocp
    from futocp.formats import read
    from futocp.verify import verify

    start = time.perf_counter()
    board = read(path)
    assert board.shape is not None, f"{path}: not a grid"
    n = board.shape[0]
    grid = _grid(board)
    labels = sorted(board.labels)
    rng = random.Random(seed)
    nodes = restarts = 0
    while True:
        left = cap - (time.perf_counter() - start)
        if left <= 0.05:
            return {"status": "unknown", "wall_s": time.perf_counter() - start,
                    "restarts": restarts, "nodes": nodes}
        restarts += 1
        rows, cols, syms = list(range(n)), list(range(n)), labels[:]
        rng.shuffle(rows)
        rng.shuffle(cols)
        rng.shuffle(syms)
        to_sym = dict(zip(labels, syms, strict=True))
        copy: list[list[Any]] = [[0] * n for _ in range(n)]
        for r in range(n):
            for c in range(n):
                if grid[r][c]:
                    copy[rows[r]][cols[c]] = to_sym[grid[r][c]]
        res = futocp.solve(futocp.latin_square(n, copy), "listcolor",
                           time_limit=min(base * luby(restarts), left))
        nodes += int(res.stats.get("nodes", 0))
        if res.solutions:
            back = {v: k for k, v in to_sym.items()}
            sol = res.solutions[0]
            answer = tuple(back[sol[rows[r] * n + cols[c]]] for r in range(n) for c in range(n))
            problems = verify(board, answer)
            return {"status": "sat" if not problems else "WRONG", "wall_s":
                    time.perf_counter() - start, "restarts": restarts, "nodes": nodes}


def _single(path: str, cap: float) -> dict[str, Any]:
    import futocp
    from futocp.formats import read
    from futocp.verify import verify

    start = time.perf_counter()
    board = read(path)
    res = futocp.solve(board, "listcolor", time_limit=cap)
    status = res.status.value
    if res.solutions and verify(board, res.solutions[0]):
        status = "WRONG"
    return {"status": status, "wall_s": time.perf_counter() - start, "restarts": 0,
            "nodes": int(res.stats.get("nodes", 0))}


def _child(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), *args],
                            stdout=subprocess.PIPE, text=True)


def _race(procs: list[subprocess.Popen[str]], cap: float) -> dict[str, Any]:
    """The first answer of several child runs (each prints one JSON line)."""
    start = time.perf_counter()
    best: dict[str, Any] | None = None
    done: set[int] = set()
    while len(done) < len(procs) and time.perf_counter() - start < cap + 30:
        for i, p in enumerate(procs):
            if i in done or p.poll() is None:
                continue
            done.add(i)
            rec = json.loads(p.stdout.read() or "{}") if p.stdout else {}
            if rec.get("status") == "sat":
                best = {**rec, "winner": i, "wall_s": time.perf_counter() - start}
                break
            best = best or rec
        if best is not None and best.get("status") == "sat":
            break
        time.sleep(0.05)
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()
    return best or {"status": "unknown", "wall_s": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default=",".join(FRONTIER),
                    help="lsencode file stems, comma-separated (default: the five frontier files)")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--base", type=float, default=1.0, help="a Luby unit, seconds (default 1)")
    ap.add_argument("--systems", default="listcolor,restarts,restarts x2")
    ap.add_argument("--stream", help=argparse.SUPPRESS)  # a child: one run, one JSON line
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.stream:
        path = args.stream
        rec = (_single(path, args.cap) if args.seed < 0
               else restart_stream(path, args.cap, args.base, args.seed))
        print(json.dumps(rec))
        return 0
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    print(f"load {os.getloadavg()[0]:.1f}; cap {args.cap:g} s; Luby unit {args.base:g} s")
    print("| file | " + " | ".join(systems) + " |")
    print("|---|" + "---|" * len(systems))
    for stem in args.files.split(","):
        path = os.path.join(LSENCODE, stem + ".pls")
        cells = []
        for system in systems:
            common = ["--stream", path, "--cap", str(args.cap), "--base", str(args.base)]
            seeds = {"listcolor": [-1], "restarts": [0], "restarts x2": [0, 1]}[system]
            rec = _race([_child(common + ["--seed", str(s)]) for s in seeds], args.cap)
            if rec.get("status") == "sat":
                cells.append(f"**{rec['wall_s']:.1f} s** ({rec['restarts']} restarts, "
                             f"{rec['nodes']:,} nodes)")
            else:
                cells.append(f"{rec.get('status')} at {args.cap:g} s ({rec.get('restarts', 0)} "
                             f"restarts, {rec.get('nodes', 0):,} nodes)")
        print(f"| {stem} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
