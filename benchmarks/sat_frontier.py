"""Issue 25 item 7: SAT portfolios on the QWH frontier, a member per core, within a cap.

The frontier files: lsencode's balanced order-50 and order-60 files and 33/381
(:data:`FRONTIER`), which no system solved within 60 s on 2 cores in issue 14.
A *portfolio* is a list of members run at the same time, each in a fresh process
(one per core: two members on this 2-core machine); the first verified answer
wins and the others are killed; the portfolio's time is that answer's wall time
from the start (a time-out counts as the cap). A member is
``FORMULA@SOLVER#SEED``: the formula ``futocp[:k=v,...]`` (the sat backend's CNF)
or ``textbook`` (the plain 3-D CNF of ``benchmarks/hard.py``'s peers), a
python-sat solver, and a permutation seed (variables, clauses and literals
reordered, :func:`futocp.backends.sat.permute_cnf`; 0 = as built) -- python-sat exposes no
random seed for Kissat or CaDiCaL, and a renumbered formula is the way to send
a deterministic CDCL solver down another search path.

Output: a row per file with each portfolio's answer (time and winning member, or
``-``), and the members' own times when they answered. ``--json FILE`` keeps the runs.

Run from the repository root::

    python benchmarks/sat_frontier.py --cap 60
    python benchmarks/sat_frontier.py --cap 60 --portfolios "futocp@kissat404#1+futocp@kissat404#2"
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

try:
    from .cnf_textbook import load_or_run, run_one
    from .hard import DATA, _board
except ImportError:  # run as a script: its folder is on sys.path
    from cnf_textbook import load_or_run, run_one  # type: ignore[no-redef]
    from hard import DATA, _board  # type: ignore[no-redef]

from futocp.experiments.isolate import kill_all, reset_kill_all, run_isolated

__all__ = ["FRONTIER", "PORTFOLIOS", "race", "measure", "summary", "main"]

FRONTIER = ("qwh.order33.holes381.pls", "qwh.order50.holes750.bal.pls",
            "qwh.order50.holes825.bal.pls", "qwh.order60.holes1080.bal.pls",
            "qwh.order60.holes1152.bal.pls")
PORTFOLIOS = (
    "futocp@kissat404#0+futocp@kissat404#1",
    "futocp@kissat404#2+futocp@kissat404#3",
    "futocp@kissat404#0+futocp@cadical195#0",
    "textbook@kissat404#0+textbook@kissat404#1",
)
"""The default portfolios: two Kissat seeds on futocp's CNF (twice, other seeds),
Kissat beside CaDiCaL, and two Kissat seeds on the textbook CNF."""


def _member(text: str) -> tuple[str, str, int]:
    formula, _, rest = text.partition("@")
    solver, _, seed = rest.partition("#")
    return formula, solver, int(seed or 0)


def race(board: Any, members: Sequence[str], cap: float) -> dict[str, Any]:
    """Run the members at once (threads, each a fresh process); the first answer
    (sat verified, or unsat) stops the others. Returns the winner, its time and
    every member's outcome (``stopped`` for a member killed after the win)."""
    t0 = time.perf_counter()
    outcomes: dict[str, dict[str, Any]] = {}
    won = threading.Event()
    lock = threading.Lock()

    def go(member: str) -> None:
        formula, solver, seed = _member(member)
        r = run_one(board, formula, solver, seed, cap)
        r["wall_s"] = time.perf_counter() - t0
        with lock:
            if won.is_set() and r["status"] not in ("sat", "unsat"):
                r["status"] = "stopped"
            outcomes[member] = r
            if r["status"] in ("sat", "unsat") and not won.is_set():
                won.set()
                r["winner"] = True
                kill_all()

    threads = [threading.Thread(target=go, args=(m,)) for m in members]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reset_kill_all()
    winner = next((m for m, r in outcomes.items() if r.get("winner")), None)
    return {"winner": winner, "s": outcomes[winner]["wall_s"] if winner else cap,
            "members": outcomes}


def measure(files: Sequence[str], portfolios: Sequence[str], cap: float) -> dict[str, Any]:
    """Every portfolio on every file, one after the other; prints a line per race."""
    run_isolated(abs, -1, 120, "forkserver")  # start the fork server before any race
    rows: dict[str, Any] = {}
    for name in files:
        board = _board(os.path.join(DATA, "lsencode", name))
        rows[name] = {"order": board.k, "holes": board.n_cells - len(board.clues), "runs": {}}
        for p in portfolios:
            r = race(board, p.split("+"), cap)
            rows[name]["runs"][p] = r
            got = f"{r['s']:.2f}s by {r['winner']}" if r["winner"] else f"none in {cap:g}s"
            print(f"  {name:<30} {p:<45} {got}", flush=True)
    return rows


def summary(data: dict[str, Any]) -> list[str]:
    """Markdown: a row per file, a column per portfolio (time and winner, or -)."""
    ports = data["portfolios"]
    lines = ["| file | order | holes | " + " | ".join(p.replace("+", " + ") for p in ports) + " |",
             "|---|---:|---:|" + "---|" * len(ports)]
    for name, row in data["rows"].items():
        cells = []
        for p in ports:
            r = row["runs"][p]
            cells.append(f"{r['s']:.1f} s ({r['winner']})" if r["winner"]
                         else f"- ({data['cap']:g} s)")
        lines.append(f"| {name} | {row['order']} | {row['holes']} | " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cap", type=float, default=60.0, help="seconds per portfolio (default 60)")
    p.add_argument("--files", default=",".join(FRONTIER), help="lsencode file names")
    p.add_argument("--portfolios", default=";".join(PORTFOLIOS),
                   help="';'-separated portfolios, each members joined by '+'")
    p.add_argument("--json", metavar="FILE", help="save the runs")
    p.add_argument("--from", dest="load", metavar="FILE", help="read saved runs")
    args = p.parse_args(argv)
    ports = [x for x in args.portfolios.split(";") if x]
    files = [f for f in args.files.split(",") if f]
    data = load_or_run(args.load, args.json, lambda: {
        "cap": args.cap, "portfolios": ports, "rows": measure(files, ports, args.cap)},
        f"{len(files)} files x {len(ports)} portfolios, cap {args.cap:g} s")
    print("\n".join(summary(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
