"""Issue 14 benchmark: the hard QWH instances, ``auto``, every complete backend and the peers.

Systems, interleaved per instance (every system on one file, then the next
file), each run in a fresh process killed at ``--cap`` seconds:

* ``auto`` (its defaults: the table's portfolio on this machine's cores);
* the futocp backends (default: ``listcolor``, ``sat``, ``cpsat``; ``--backends``
  adds the slow complete ones: ``pyconstraint,minizinc,bt,fc,mac,colorfutoshiki``);
* peers written here in a few lines: ``cpsat-hand`` (an all-different CP-SAT
  model of the grid, one worker), and ``cadical`` / ``kissat`` (the plain 3-D
  CNF of lsencode's ``pls2sat`` -- a variable per hole and value its row and
  column givens allow, exactly one per hole, row-value and column-value,
  pairwise -- solved by python-sat's CaDiCaL 1.9.5 and Kissat 4.0.4).
  Every run's process is capped at :data:`MEMORY_MB`.

Instances: every lsencode file (``instances/qwh/lsencode/*.pls``) and the
CSPLib order-30 files (``instances/qwh/csplib067``), of which ``--csplib K``
are taken, spread evenly over the sorted list (default 4; 0: none; -1: all 40).

A time is wall clock in the measuring process from the start of the run to its
answer (build, encoding, search; the process start is not counted); a time-out
counts as the cap in the medians. Every solution is checked with
:func:`futocp.verify.verify`; a wrong answer counts as unsolved.

Output: a row per instance (time per system), then per system the solved
count, the median time and its ratio to the best peer's median, and the ratio
of ``auto``'s median to the best futocp backend's. ``--json FILE`` keeps the
measurements (those behind auto's table are kept in ``benchmarks/data/hard-*.json``);
``--write-choices`` regenerates ``futocp/backends/auto_choices.json`` from every
saved file there, merged (see :func:`load_data` and :func:`write_choices`), or from
``--from FILE,...``; ``--from`` alone reuses saved measurements instead of running. ``--top1465`` measures listcolor's puzzles/s
on the top1465 Sudoku collection (one warm process).

Run from the repository root::

    python benchmarks/hard.py --cap 60                    # everything
    python benchmarks/hard.py --cap 20 --only order3,order4 --json hard.json
    python benchmarks/hard.py --from hard.json --write-choices
    python benchmarks/hard.py --write-choices         # from benchmarks/data/hard-*.json

The saved measurements behind the table (issue 25, item 1: a listcolor
configuration is a system of its own, and a rule keeps each backend's best)::

    python benchmarks/hard.py --sets adjacent,kropki --no-auto --peers "" --repeat 3 --cap 20 \
        --backends listcolor,listcolor:lookahead=never:branching=dual,sat,cpsat \
        --json benchmarks/data/hard-small.json
    python benchmarks/hard.py --no-auto --cap 20 \
        --backends listcolor,listcolor:lookahead=never:branching=dual,sat,cpsat \
        --only order5.holes,order10.holes,order18.,order20.,order30.,order33.,order35.,qwh-o30 \
        --json benchmarks/data/hard-qwh-1-35.json
    python benchmarks/hard.py --no-auto --peers "" --cap 20 \
        --only order40.,order50.,order60.,order70.,order100. --json benchmarks/data/hard-qwh-36-100.json
    python benchmarks/hard.py --top1465
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from futocp.board import Board
from futocp.experiments.isolate import run_isolated
from futocp.formats import read, read_many
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["PEERS", "FIXED_RULES", "instances", "small_sets", "run_system", "judged_run",
           "measure", "summary", "auto_target", "frontier", "write_choices", "load_data",
           "top1465", "main"]

DATA = os.path.join(ROOT, "instances", "qwh")
CHOICES = os.path.join(ROOT, "futocp", "backends", "auto_choices.json")
PEERS = ("cpsat-hand", "cadical", "kissat")
DEFAULT_BACKENDS = ("listcolor", "sat", "cpsat")
PEER_SOLVERS = {"cadical": "cadical195", "kissat": "kissat404"}

#: The rules of the table that this benchmark does not measure, with the measurement
#: behind each (docs/performance.md); the QWH rules come after them, then DEFAULT_RULE.
FIXED_RULES: list[dict[str, Any]] = [
    {"name": "enumerate", "when": {"enumerate": True},
     "members": [{"backend": "listcolor"}, {"backend": "cpsat"}],
     "why": "counting: listcolor is the fastest counter (count_rank 0, benchmarks/sudoku.py), "
            "cpsat second"},
    {"name": "small", "when": {"max_cells": 256},
     "members": [{"backend": "listcolor"}, {"backend": "sat"}], "stagger": 0.0,
     "why": "up to 16x16: listcolor is fastest on 9x9 Futoshiki (0.32x cpsat), Killer (0.63x) "
            "and most adjacent Futoshiki (0.42x), in milliseconds (auto's first try, in "
            "process); sat wins some adjacent 9x9 Recursive boards (0.02-0.03 s where "
            "listcolor takes 1.6 s, issue 25), so the two race at once after the first try"},
]
DEFAULT_RULE: dict[str, Any] = {
    "name": "default", "when": {},
    "members": [{"backend": "listcolor"}, {"backend": "sat"}, {"backend": "cpsat"}],
    "why": "larger boards of other families: listcolor first (fastest on Futoshiki and "
           "Killer), sat beside it (best on the hard mid-size QWH)"}
MEMORY_MB = 6000.0
"""Memory cap of every run's process (a run past it is an ``error``): room for CP-SAT
and Kissat on the empty order-100 square (2.0 GB each at their kill), whose CNF sat
cannot hold; listcolor's dive through it needs 61 MB since its undo trail (it kept
one 480 KB copy of the lists per level before, 4.3 GB in all)."""
#: The QWH buckets of the measured rules: orders (bounds included) x hole density
#: (holes / cells: below 0.9, a QWH instance; from 0.9, a (nearly) empty square).
BUCKETS = tuple((lo, hi, dense) for lo, hi in ((1, 35), (36, 45), (46, 55), (56, 1000))
                for dense in (False, True))
DENSE = 0.9
#: The ranking of a bucket where no futocp system solved a file within the cap (so
#: the measurement ranks nothing): issue 14's side-by-side run at a 60 s cap.
PRIORS = {
    (36, 45, False): (["sat", "listcolor", "cpsat"],
                      "sat solved 33/381 in 33.8 s, 40/528 in 7.3 s, 40/544 in 9.1 s"),
    (46, 55, False): (["listcolor", "sat", "cpsat"],
                      "no system solved the balanced order-50 files; listcolor is the one "
                      "that solves the large sparse ones"),
    (56, 1000, False): (["listcolor", "sat", "cpsat"],
                        "listcolor solved 60/1620 in 17.9 s, 70/2940 in 6.9 s, 70/2450 in "
                        "17.3 s, where sat and cpsat timed out"),
    (56, 1000, True): (["listcolor", "sat", "cpsat"],
                       "listcolor solved the empty 60x60 in 3.0 s; sat refused it"),
}


def instances(csplib: int = 4, only: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(name, path) of the lsencode files and ``csplib`` CSPLib ones (-1: all), sorted
    by order then holes; ``only`` keeps names containing one of its strings."""
    ls = glob.glob(os.path.join(DATA, "lsencode", "*.pls"))
    cs = sorted(glob.glob(os.path.join(DATA, "csplib067", "*.dzn")))
    if 0 <= csplib < len(cs):
        cs = [cs[int(i * len(cs) / csplib)] for i in range(csplib)] if csplib else []
    paths = ls + cs

    def key(p: str) -> tuple[int, int, str]:
        b = _board(p)
        return (b.k, b.n_cells - len(b.clues), p)

    out = [(os.path.basename(p), p) for p in sorted(paths, key=key)]
    return [(n, p) for n, p in out if not only or any(s in n for s in only)]


ADJACENT_IDS = os.path.join(ROOT, "tests", "data", "unequal-graded.tsv")
KROPKI = os.path.join(ROOT, "instances", "kropki")


def small_sets(sets: Sequence[str]) -> dict[str, list[tuple[str, Board]]]:
    """The small-board sets of issue 25 by name: ``adjacent`` (the adjacent-mode Tatham
    Unequal ids of ``tests/data/unequal-graded.tsv`` and ``instances/futoshiki-adjacent``,
    named by their generator spec and grade) and ``kropki`` (``instances/kropki``)."""
    from futocp.formats import loads

    out: dict[str, list[tuple[str, Board]]] = {}
    if "adjacent" in sets:
        boards: list[tuple[str, Board]] = []
        with open(ADJACENT_IDS, encoding="utf-8") as fh:
            for k, line in enumerate(fh):
                spec, _, rest = line.strip().partition("\t")
                grade, _, game = rest.partition("\t")
                if not line.startswith("#") and "a:" in game:
                    boards.append((f"{spec.split('#')[0]}-{grade.lower()}-{k}",
                                   loads(game, format="tatham")))
        for path in [*sorted(glob.glob(os.path.join(ROOT, "instances", "futoshiki-adjacent", "*"))),
                     os.path.join(ROOT, "benchmarks", "unequal-9adr.tatham")]:
            for i, board in enumerate(read_many(path)):
                boards.append((f"{os.path.basename(path)}#{i + 1}", board))
        out["adjacent"] = boards
    if "kropki" in sets:
        out["kropki"] = [(f"{os.path.basename(p)}#{i + 1}", b)
                         for p in sorted(glob.glob(os.path.join(KROPKI, "*")))
                         for i, b in enumerate(read_many(p))]
    return out


def _board(path: str) -> Board:
    return read(path, format="dzn" if path.endswith(".dzn") else "pls")


def _cnf_3d(board: Board) -> tuple[list[list[int]], dict[int, tuple[int, Any]]]:
    """The plain 3-D CNF of a Latin grid, as lsencode's ``pls2sat`` writes it: a
    variable per hole and value its row and column givens allow; exactly one
    value per hole, each value missing from a row (column) exactly once in its
    holes; pairwise at-most-one. Returns the clauses and variable -> (cell, label)."""
    given = dict(board.clues)
    labels = sorted(set(board.labels))
    var: dict[tuple[int, Any], int] = {}
    seen: dict[int, set[Any]] = {}
    for cells in board.asterisms:
        used = {given[c] for c in cells if c in given}
        for c in cells:
            seen.setdefault(c, set()).update(used)
    for c in range(board.n_cells):
        if c not in given:
            for v in labels:
                if v not in seen[c]:
                    var[c, v] = len(var) + 1
    families = [[var[c, v] for v in labels if (c, v) in var]
                for c in range(board.n_cells) if c not in given]
    for cells in board.asterisms:
        used = {given[c] for c in cells if c in given}
        families += [[var[c, v] for c in cells if (c, v) in var] for v in labels if v not in used]
    clauses: list[list[int]] = []
    for lits in families:
        clauses.append(lits)
        clauses += [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]]
    return clauses, {i: cv for cv, i in var.items()}


def _peer(task: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: one peer on one board (the time excludes the process start)."""
    from futocp.procs import limit_memory

    limit_memory(MEMORY_MB)
    board, system = task["board"], task["system"]
    t0 = time.perf_counter()
    if system == "cpsat-hand":
        from ortools.sat.python import cp_model

        m = cp_model.CpModel()
        x = [m.new_int_var(1, board.k, f"x{c}") for c in range(board.n_cells)]
        labels = sorted(set(board.labels))
        for c, v in board.clues:
            m.add(x[c] == labels.index(v) + 1)
        for cells in board.asterisms:
            m.add_all_different([x[c] for c in cells])
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        code = solver.solve(m)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return {"status": "sat", "s": time.perf_counter() - t0,
                    "solution": [labels[solver.value(v) - 1] for v in x]}
        return {"status": "unsat" if code == cp_model.INFEASIBLE else "unknown",
                "s": time.perf_counter() - t0}
    from pysat.solvers import Solver

    clauses, meaning = _cnf_3d(board)
    with Solver(name=PEER_SOLVERS[system], bootstrap_with=clauses) as s:
        ok = s.solve()
        model = s.get_model() if ok else None
    seconds = time.perf_counter() - t0
    if not ok:
        return {"status": "unsat", "s": seconds}
    sol = dict(board.clues)
    sol.update(meaning[lit] for lit in model or () if lit > 0 and lit in meaning)
    return {"status": "sat", "s": seconds, "solution": [sol.get(c) for c in range(board.n_cells)]}


def _futocp(task: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: one futocp backend (``name[:k=v]...``) on one board."""
    from futocp.api import solve
    from futocp.backends import REGISTRY, get_backend
    from futocp.backends.auto import Member
    from futocp.procs import limit_memory

    limit_memory(MEMORY_MB)
    member = Member.parse(task["system"])
    for cls in REGISTRY.values():  # solver imports are not the run's time (auto's members)
        cls.available()
    get_backend(member.backend)
    t0 = time.perf_counter()
    result = solve(task["board"], member.backend, limit=1, time_limit=task["cap"],
                   **dict(member.options))
    out = {"status": result.status.value, "s": time.perf_counter() - t0,
           "solution": result.solutions[0] if result.solutions else None,
           "answered_by": result.stats.get("answered_by"),
           "reason": result.stats.get("reason"),
           "progress": {k: result.stats[k] for k in PROGRESS if k in result.stats}}
    return out


#: The counters a run that does not answer reports, to say how far it got.
PROGRESS = ("nodes", "backtracks", "max_depth", "probes", "conflicts", "decisions", "branches")


def run_system(system: str, board: Board, cap: float) -> dict[str, Any]:
    """One run in a fresh process killed at ``cap``: status (``timeout``, ``error``,
    ``wrong`` included), seconds (the cap for a time-out), and what answered."""
    # a futocp backend stops itself at the cap (its counters say how far it got); the
    # kill 5 s later is for one that does not; a peer has no limit and is killed at the cap
    peer = system in PEERS
    if peer and board.relations:  # the peers here model the grid only (QWH)
        return {"status": "n/a", "s": cap}
    return judged_run(_peer if peer else _futocp, {"board": board, "system": system, "cap": cap},
                      board, cap, cap if peer else cap + 5)


def judged_run(target: Any, task: dict[str, Any], board: Board, cap: float, kill_s: float
               ) -> dict[str, Any]:
    """``target(task)`` in a fresh process killed after ``kill_s`` seconds, judged: its
    value (``status``, ``s``, ...) with its ``solution`` checked (status ``wrong`` when
    :func:`~futocp.verify.verify` rejects it), or ``timeout`` / ``error`` when it did
    not answer; ``s`` is ``cap`` for every run that did not answer sat or unsat."""
    out = run_isolated(target, task, kill_s, "forkserver")
    if out.value is None:
        return {"status": "timeout" if out.killed else "error", "s": cap, "error": out.error}
    value = dict(out.value)
    sol = value.pop("solution", None)
    if value["status"] == "sat" and (sol is None or verify(board, sol)):
        value["status"] = "wrong"
    if value["status"] not in ("sat", "unsat"):
        value["s"] = cap
    return value


def measure(names: Sequence[tuple[str, str | Board]], systems: Sequence[str], cap: float,
            kind: str = "qwh", repeat: int = 1) -> dict[str, Any]:
    """Every system on every instance (a QWH path or a Board), interleaved, ``repeat``
    times (the median time is kept: :func:`_median_run`); prints a line per instance
    and system. Each row says its ``set`` (``kind``)."""
    rows: dict[str, Any] = {}
    for name, path in names:
        board = path if isinstance(path, Board) else _board(path)
        holes = board.n_cells - len(board.clues)
        runs: dict[str, list[dict[str, Any]]] = {s: [] for s in systems}
        for _ in range(repeat):
            for system in systems:
                runs[system].append(run_system(system, board, cap))
        rows[name] = {"order": board.k, "holes": holes, "set": kind,
                      "runs": {s: _median_run(runs[s]) for s in systems}}
        for system in systems:
            r = rows[name]["runs"][system]
            extra = f" by {r['answered_by']}" if r.get("answered_by") else ""
            print(f"  {name:<32} {system:<14} {r['status']:<8} {r['s']:8.2f}s{extra}",
                  flush=True)
    return rows


def _median_run(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The run of median time (the upper median: a time-out counts as the cap)."""
    return sorted(runs, key=lambda r: r["s"])[len(runs) // 2]


def _solved(r: dict[str, Any]) -> bool:
    return r["status"] in ("sat", "unsat")


def summary(data: dict[str, Any]) -> list[str]:
    """The per-instance table and the per-system summary, as markdown lines."""
    rows, systems, cap = data["rows"], data["systems"], data["cap"]
    lines = ["| instance | order | holes | " + " | ".join(systems) + " |",
             "|---|---:|---:|" + "---:|" * len(systems)]
    for name, row in rows.items():
        cells = []
        for s in systems:
            r = row["runs"][s]
            t = f"{r['s']:.2f}" if _solved(r) else f"({r['status']})"
            if s == "auto" and r.get("answered_by"):
                t += f" {r['answered_by']}"
            cells.append(t)
        lines.append(f"| {name} | {row['order']} | {row['holes']} | " + " | ".join(cells) + " |")
    med = {s: statistics.median(row["runs"][s]["s"] for row in rows.values()) for s in systems}
    some = [row for row in rows.values() if any(_solved(r) for r in row["runs"].values())]
    med_some = {s: statistics.median(row["runs"][s]["s"] for row in some) if some else 0.0
                for s in systems}
    peers = [s for s in systems if s in PEERS]
    best_peer = min(peers, key=lambda s: med[s]) if peers else None
    ours = [s for s in systems if s not in PEERS and not s.startswith("auto")]
    best_ours = min(ours, key=lambda s: med[s]) if ours else None
    lines += ["", f"Per system ({len(rows)} instances, cap {cap:g} s, a time-out counts as the cap):",
              f"(the last two columns: the {len(some)} instances some system solved)", "",
              "| system | solved | median s | / best peer | median s, solvable | / best peer |",
              "|---|---:|---:|---:|---:|---:|"]
    best_some = min(peers, key=lambda s: med_some[s]) if peers else None
    for s in systems:
        solved = sum(_solved(row["runs"][s]) for row in rows.values())
        ratio = f"{med[s] / med[best_peer]:.2f}" if best_peer and med[best_peer] else "-"
        ratio2 = (f"{med_some[s] / med_some[best_some]:.2f}" if best_some and med_some[best_some]
                  else "-")
        lines.append(f"| {s} | {solved}/{len(rows)} | {med[s]:.2f} | {ratio} | "
                     f"{med_some[s]:.2f} | {ratio2} |")
    if "auto" in systems and best_ours:
        best2 = min(ours, key=lambda s: med_some[s])
        lines += ["", f"auto median / best single backend's ({best_ours}) median: "
                      f"{med['auto'] / med[best_ours]:.2f}; on the solvable instances "
                      f"({best2}): {med_some['auto'] / med_some[best2]:.2f}"
                      f"{'' if not best_peer else f'; best peer: {best_peer}'}"]
    return lines


TARGET = 1.2
"""Issue 25: auto within this factor of the best single futocp backend on every file."""
SLACK_S = 0.01
"""Below this many seconds apart, two times count as equal in :func:`auto_target`
(a process's own jitter)."""


def auto_target(data: dict[str, Any]) -> list[str]:
    """Issue 25's target per set: on how many files auto is within :data:`TARGET` of the
    best single futocp backend (or :data:`SLACK_S` from it), its worst ratios, and
    its solved count against every other system's, as markdown lines."""
    rows, systems = data["rows"], data["systems"]
    if "auto" not in systems:
        return []
    ours = [s for s in systems if s not in PEERS and not s.startswith("auto")]
    lines = ["| set | files | auto within 1.2x (or 10 ms) | worst auto / best backend | "
             "auto solved | most solved by another system |", "|---|---:|---:|---|---:|---|"]
    for kind in dict.fromkeys(row.get("set", "qwh") for row in rows.values()):
        inside = {n: r for n, r in rows.items() if r.get("set", "qwh") == kind}
        ratios = []
        ok = 0
        for name, row in inside.items():
            runs = row["runs"]
            best = min((runs[s]["s"] for s in ours if _solved(runs[s])), default=None)
            a = runs["auto"]
            if best is None:
                ok += 1  # no single backend solved it: nothing to lose to
                continue
            good = _solved(a) and a["s"] <= max(TARGET * best, best + SLACK_S)
            ok += good
            ratios.append(((a["s"] / best if best > 0 else float("inf")) if _solved(a)
                           else float("inf"), name))
        worst = ", ".join(f"{n} {r:.2f}" for r, n in sorted(ratios, reverse=True)[:3])
        solved = {s: sum(_solved(r["runs"][s]) for r in inside.values()) for s in systems}
        other = max((s for s in systems if s != "auto"), key=lambda s: solved[s])
        lines.append(f"| {kind} | {len(inside)} | {ok}/{len(inside)} | {worst or '-'} | "
                     f"{solved['auto']} | {other} {solved[other]} |")
    return lines


def frontier(data: dict[str, Any]) -> list[str]:
    """Per lsencode file: which systems solved it within the cap, the fastest, and auto's
    answer (the member that answered), as markdown lines."""
    rows, systems = data["rows"], data["systems"]
    lines = ["| file | order | holes | solved by (within the cap) | fastest | auto |",
             "|---|---:|---:|---|---|---|"]
    for name, row in rows.items():
        if not name.endswith(".pls"):
            continue
        runs = row["runs"]
        ok = sorted((runs[s]["s"], s) for s in systems if _solved(runs[s]))
        fastest = f"{ok[0][1]} {ok[0][0]:.2f} s" if ok else "-"
        who = ", ".join(s for _, s in ok) if ok else f"none ({data['cap']:g} s)"
        a = runs.get("auto")
        mine = "-" if a is None else (f"{a['s']:.2f} s ({a.get('answered_by')})" if _solved(a)
                                       else a["status"])
        if not ok:  # how far the futocp systems got
            got = [f"{s}: " + ", ".join(f"{v} {k}" for k, v in runs[s]["progress"].items())
                   for s in systems if runs[s].get("progress")]
            who += "; " + "; ".join(got) if got else ""
        lines.append(f"| {name} | {row['order']} | {row['holes']} | {who} | {fastest} | {mine} |")
    return lines


def _bucket_rule(lo: int, hi: int, dense: bool, rows: dict[str, Any], cap: float
                 ) -> dict[str, Any] | None:
    """The QWH rule for orders ``lo..hi`` and density (holes / cells) from
    :data:`DENSE` (``dense``) or below: the measured futocp systems ranked by solved
    count (most first), then median time (a time-out counts as the cap)."""
    inside = [{"name": name, **row} for name, row in rows.items()
              if row.get("set", "qwh") == "qwh" and lo <= row["order"] <= hi
              and (row["holes"] / row["order"] ** 2 >= DENSE) == dense]
    density = {"min_density": DENSE} if dense else {"max_density": round(DENSE - 1e-4, 4)}
    return _measured_rule(f"qwh-order-{lo}-{hi}-{'empty' if dense else 'holes'}",
                          {"kind": ["latin-square"], "relations": "none", "min_order": lo,
                           "max_order": hi, **density}, inside, cap, PRIORS.get((lo, hi, dense)))


def _measured_rule(name: str, when: dict[str, Any], inside: Sequence[dict[str, Any]],
                   cap: float, prior: tuple[list[str], str] | None = None
                   ) -> dict[str, Any] | None:
    """A rule of auto's table from the measured rows ``inside`` (each with its ``name``):
    the futocp systems ranked by solved count (most first), then the files on which each
    is within :data:`TARGET` of the fastest (:func:`_near_best`), then median time (a
    time-out counts as the cap), and the members after the first by the files the ones
    before them leave (:func:`_complementary`); no stagger where the second one answered some file
    first (:func:`_second_wins`), and then the first try's budget (:func:`_first_try_s`).
    ``prior``: the ranking to use when no system solved a file."""
    if not inside:
        return None
    from futocp.backends.auto import Member

    systems = [s for s in inside[0]["runs"] if s not in PEERS and not s.startswith("auto")]
    score = {}
    for s in systems:
        solved = sum(_solved(row["runs"][s]) for row in inside)
        near = sum(_near_best(row["runs"], s, systems) for row in inside)
        score[s] = (-solved, -near, statistics.median(row["runs"][s]["s"] for row in inside))
    ranked = sorted(systems, key=lambda s: score[s])
    # one configuration per backend, its best: two of one backend race for the same files
    ranked = _complementary([s for k, s in enumerate(ranked) if Member.parse(s).backend
                             not in {Member.parse(t).backend for t in ranked[:k]}], inside)
    why = "; ".join(f"{s} solved {-score[s][0]}/{len(inside)}, within {TARGET:g}x of the "
                    f"fastest on {-score[s][1]}, median {score[s][2]:.3f} s" for s in ranked)
    if all(score[s][0] == 0 for s in systems) and prior is not None:
        ranked = [s for s in prior[0] if s in systems] + [s for s in ranked if s not in prior[0]]
        why = f"{why}; nothing solved here, so the ranking of issue 14's 60 s run: {prior[1]}"
    members = []
    for s in ranked:
        m = Member.parse(s)
        members.append({"backend": m.backend, **({"options": dict(m.options)} if m.options else {})})
    close = _second_wins(ranked, inside)
    first_try = _first_try_s(ranked, inside)
    return {"name": name, "when": when,
            "members": members, **({"stagger": 0.0} if close else {}),
            **({"first_try_s": first_try} if close and first_try else {}),
            "why": f"measured on {len(inside)} file(s), cap {cap:g} s: {why}"
                   + (f"; {close}: no stagger" if close else "")
                   + (f"; first try {first_try:g} s: twice the first member's slowest win, "
                      f"at most {FIRST_TRY_SHARE:g} of the second's fastest" if close and first_try
                      else "")}


SMALL_SETS = ("adjacent", "kropki")
"""The sets whose files measure the ``small`` rule (boards of at most 256 cells)."""


def _small_rule(rows: dict[str, Any], cap: float) -> dict[str, Any]:
    """The ``small`` rule measured on the rows of :data:`SMALL_SETS` (else the one of
    :data:`FIXED_RULES`)."""
    inside = [{"name": name, **row} for name, row in rows.items()
              if row.get("set") in SMALL_SETS]
    fixed = next(r for r in FIXED_RULES if r["name"] == "small")
    rule = _measured_rule("small", fixed["when"], inside, cap)
    if rule is None:
        return fixed
    rule["members"] = rule["members"][:2]  # a fork costs more than a third member brings
    rule["why"] = ("up to 16x16 (sets " + ", ".join(SMALL_SETS) + "), " + rule["why"]
                   + "; the first member searches in this process, the second is forked "
                     "once the first try's budget is out")
    return rule


FIRST_TRY_SHARE = 0.075
"""The first try's largest budget as a share of the second member's fastest win: a
file the second member wins then costs auto 1.075x its time, plus the start of its
process and the two searches side by side (0.08 s on 35/405, measured on a quiet
machine: a search here runs up to 1.8x slower beside a busy process on the other
core)."""


def _first_try_s(ranked: Sequence[str], inside: Sequence[dict[str, Any]]) -> float | None:
    """auto's first try for a bucket whose second member wins some files: twice the
    first member's slowest win, at most :data:`FIRST_TRY_SHARE` of the second's fastest win."""
    if len(ranked) < 2:
        return None
    first, second = ranked[0], ranked[1]
    mine, theirs = [], []
    for row in inside:
        a, b = row["runs"][first], row["runs"][second]
        if _wins(b, a):
            theirs.append(b["s"])
        elif _solved(a):
            mine.append(a["s"])
    if not mine or not theirs:
        return None
    return round(min(2 * max(mine), FIRST_TRY_SHARE * min(theirs)), 2)


def _second_wins(ranked: Sequence[str], inside: Sequence[dict[str, Any]]) -> str:
    """The files of a bucket on which the second-ranked system answered before the
    first (:func:`_wins`; its name and time on each), or ``""``: then auto's race starts
    it at once."""
    if len(ranked) < 2:
        return ""
    first, second = ranked[0], ranked[1]
    wins = [f"{row['name']} {row['runs'][second]['s']:.2f} s" for row in inside
            if _wins(row["runs"][second], row["runs"][first])]
    return f"{second} first on " + ", ".join(wins) if wins else ""


def _complementary(ranked: Sequence[str], inside: Sequence[dict[str, Any]]) -> list[str]:
    """``ranked`` reordered greedily for a portfolio: the first stays; each next one is
    the system within :data:`TARGET` of the fastest (:func:`_near_best`) on most of the
    files that none placed before it is near on (ties, and once every file is covered:
    the order of ``ranked``)."""
    out, rest = list(ranked[:1]), list(ranked[1:])
    while rest:
        left = [row for row in inside
                if not any(_near_best(row["runs"], s, ranked) for s in out)]
        best = max(rest, key=lambda s: (sum(_near_best(row["runs"], s, ranked) for row in left),
                                        -rest.index(s)))
        out.append(best)
        rest.remove(best)
    return out


def _near_best(runs: dict[str, Any], system: str, systems: Sequence[str]) -> bool:
    """Whether ``system`` answered within :data:`TARGET` (or :data:`SLACK_S`) of the
    fastest of ``systems`` on this file (auto's target, issue 25)."""
    best = min((runs[s]["s"] for s in systems if _solved(runs[s])), default=None)
    return (best is not None and _solved(runs[system])
            and runs[system]["s"] <= max(TARGET * best, best + SLACK_S))


def _wins(b: dict[str, Any], a: dict[str, Any]) -> bool:
    """Whether run ``b`` beat run ``a``: it answered, and ``a`` did not or took more than
    :data:`SLACK_S` longer (closer than that, a process's jitter decides)."""
    return _solved(b) and (not _solved(a) or b["s"] < a["s"] - SLACK_S)


def write_choices(data: dict[str, Any], path: str = CHOICES) -> dict[str, Any]:
    """Regenerate auto's table: :data:`FIXED_RULES`, then one rule per bucket
    (:data:`BUCKETS`) holding measured QWH files (:func:`_bucket_rule`), then
    :data:`DEFAULT_RULE` (a bucket without files falls to it)."""
    rules = [r if r["name"] != "small" else _small_rule(data["rows"], data["cap"])
             for r in FIXED_RULES]
    for lo, hi, dense in BUCKETS:
        rule = _bucket_rule(lo, hi, dense, data["rows"], data["cap"])
        if rule is not None:
            rules.append(rule)
    rules.append(DEFAULT_RULE)
    table = {"generated_by": "benchmarks/hard.py --write-choices",
             "measured": {"cap_s": data["cap"], "instances": len(data["rows"]),
                          "systems": data["systems"], "loadavg": data.get("loadavg"),
                          "loadavg_end": data.get("loadavg_end"),
                          "date": data.get("date"), "from": data.get("sources")},
             "rules": rules}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(table, fh, indent=1)
        fh.write("\n")
    return table


DATA_DIR = os.path.join(ROOT, "benchmarks", "data")
"""Where the measurements behind auto's table are kept (``hard-*.json``: ``--json``'s
files), so that ``--write-choices`` regenerates the table from them."""


def load_data(paths: Sequence[str]) -> dict[str, Any]:
    """Saved measurements (``--json`` files) merged into one: every row (a file measured
    twice keeps its later row), the systems of any, the largest cap, and ``sources``
    (each file's name, cap, date and load average)."""
    if not paths:
        raise SystemExit(f"no measurements to read (none in {os.path.relpath(DATA_DIR, ROOT)})")
    merged: dict[str, Any] = {"cap": 0.0, "systems": [], "rows": {}, "sources": []}
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        merged["cap"] = max(merged["cap"], data["cap"])
        merged["systems"] += [s for s in data["systems"] if s not in merged["systems"]]
        merged["rows"].update(data["rows"])
        merged["sources"].append({"file": os.path.basename(path), "cap": data["cap"],
                                  "date": data.get("date"), "loadavg": data.get("loadavg")})
        for key in ("loadavg", "loadavg_end", "date"):
            merged.setdefault(key, data.get(key))
    for row in merged["rows"].values():  # a system a file was not run with: not measured
        for s in merged["systems"]:
            row["runs"].setdefault(s, {"status": "n/a", "s": merged["cap"]})
    return merged


def _saved() -> list[str]:
    return sorted(glob.glob(os.path.join(DATA_DIR, "hard-*.json")))


def top1465(options: Sequence[str] = ()) -> str:
    """listcolor's puzzles/s on top1465 (one warm process; ``options``: ``k=v``)."""
    from futocp.api import solve

    opts: dict[str, Any] = dict(o.split("=", 1) for o in options)
    boards = read_many(os.path.join(ROOT, "instances", "sudoku", "top1465.txt"))
    solve(boards[0], "listcolor", **opts)  # warm
    t0 = time.perf_counter()
    results = [solve(board, "listcolor", **opts) for board in boards]  # build_model included
    elapsed = time.perf_counter() - t0
    t0 = time.perf_counter()
    bad = sum(not r.solutions or bool(verify(board, r.solutions[0]))
              for board, r in zip(boards, results, strict=True))
    checked = time.perf_counter() - t0
    return (f"top1465, listcolor {' '.join(options) or '(defaults)'}: {len(boards)} puzzles in "
            f"{elapsed:.2f} s, {len(boards) / elapsed:.0f} puzzles/s (from the parsed board, "
            f"build_model included); verify {checked:.2f} s, {len(boards) / (elapsed + checked):.0f}"
            f" puzzles/s with it; {bad} unsolved or wrong")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cap", type=float, default=60.0, help="seconds per run (default 60)")
    p.add_argument("--csplib", type=int, default=4,
                   help="CSPLib order-30 files, spread over the 40 (0 none, -1 all; default 4)")
    p.add_argument("--only", default="", help="comma-separated substrings of file names")
    p.add_argument("--sets", default="qwh",
                   help="comma-separated: qwh (the files above), adjacent, kropki (issue 25's "
                        "small boards: small_sets); default qwh")
    p.add_argument("--backends", default=",".join(DEFAULT_BACKENDS),
                   help="futocp backends (name[:k=v]...), comma-separated")
    p.add_argument("--peers", default=",".join(PEERS), help="peers (comma-separated; '' none)")
    p.add_argument("--no-auto", action="store_true", help="leave auto out")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs per instance and system, interleaved; the median is kept")
    p.add_argument("--json", metavar="FILE", help="save the measurements")
    p.add_argument("--from", dest="load", metavar="FILES",
                   help="read saved measurements (comma-separated --json files, merged)")
    p.add_argument("--write-choices", action="store_true",
                   help="regenerate futocp/backends/auto_choices.json from the measurements "
                        "(without --from: every saved benchmarks/data/hard-*.json)")
    p.add_argument("--top1465", action="store_true", help="listcolor's puzzles/s on top1465 only")
    p.add_argument("--opt", action="append", default=[], help="with --top1465: a listcolor option")
    args = p.parse_args(argv)
    if args.top1465:
        print(top1465(args.opt))
        return 0
    if args.load or args.write_choices and not args.json:
        paths = ([p for p in args.load.split(",") if p] if args.load
                 else _saved())
        data = load_data(paths)
    else:
        systems = ([] if args.no_auto else ["auto"])
        systems += [s for s in args.backends.split(",") if s]
        systems += [s for s in args.peers.split(",") if s]
        sets = [s for s in args.sets.split(",") if s]
        only = [s for s in args.only.split(",") if s]
        names = instances(args.csplib, only) if "qwh" in sets else []
        small = {k: [(n, b) for n, b in v if not only or any(o in n for o in only)]
                 for k, v in small_sets(sets).items()}
        load = os.getloadavg()
        print(f"{len(names) + sum(map(len, small.values()))} instances x {len(systems)} "
              f"systems, cap {args.cap:g} s; load average {load[0]:.2f} {load[1]:.2f} "
              f"{load[2]:.2f}", flush=True)
        rows = measure(names, systems, args.cap, repeat=args.repeat)
        for kind, boards in small.items():
            rows.update(measure(boards, systems, args.cap, kind, args.repeat))
        data = {"cap": args.cap, "systems": systems, "rows": rows,
                "loadavg": [round(x, 2) for x in load],
                "loadavg_end": [round(x, 2) for x in os.getloadavg()],
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
    print("\n".join(summary(data)))
    print("\nIssue 25's target, auto against the best single futocp backend per file:\n")
    print("\n".join(auto_target(data)))
    print("\nThe lsencode files:\n")
    print("\n".join(frontier(data)))
    if args.write_choices:
        write_choices(data if args.load or not args.json else load_data(_saved()))
        print(f"wrote {os.path.relpath(CHOICES, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
