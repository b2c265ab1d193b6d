"""Issue 24 benchmark: every backend, and a hand-written model per new solver, on four sets.

Sets (``--count`` instances each, the same from run to run):

* ``futoshiki9`` -- 9x9 Futoshiki of Tatham's Extreme grade, made by
  :func:`futocp.generate_graded.generate_graded` from the seeds ``--seed``, ``--seed + 1``...;
* ``top95`` -- Sudoku of ``instances/sudoku/top95.txt``, spread evenly over the file;
* ``killer9`` -- 9x9 Killer Sudoku made by :func:`futocp.generate.generate` from the seeds;
* ``qwh30`` -- the CSPLib order-30 QWH files of ``instances/qwh/csplib067/``, spread evenly.

Systems, interleaved instance by instance, each run in a fresh process
(:func:`futocp.experiments.isolate.run_isolated`) with a time limit of ``--cap``
seconds (killed 5 s later if it overruns):

* every complete backend of the REGISTRY that is available, and ``auto``
  (``--backends`` chooses others);
* a hand-written model for each new solver, a few lines here in the solver's own
  API, as a user of the solver would write it from the board's asterisms, givens
  and relations (``less``, ``cage``; the only kinds in these sets):

  - ``hand-highs``: a binary per cell and label, one label per cell, each label
    once per asterism, givens as equalities, ``less`` as a difference of the
    value expressions, a cage as the sum of its labels and each label at most
    once in it; HiGHS with one thread (as the ``mip`` backend runs it);
  - ``hand-z3``: an ``Int`` per cell in 1..n, ``Distinct`` per asterism, givens,
    ``<``, a cage as ``Sum`` and ``Distinct``;
  - ``hand-choco``: an ``intvar`` per cell in 1..n, ``all_different`` (Choco's
    default algorithm, AC) per asterism, givens and ``<`` by ``arithm``, a cage
    by ``sum`` and ``all_different``.

A time is the wall clock in the run's process from the start of the run
(``build_model`` and the backend's encoding included; the hand models' building
included) to its answer; process start, imports and the solver's start-up are
not counted (each run first solves an empty 3x3 Latin square, untimed, with the
same system: the lazy imports and a native solver's first model cost tens of
milliseconds, more than these sets' puzzles take). A run that answers in less
than :data:`QUICK_S` is solved ``--repeat`` times in its process (each time from
the board: model built again) and the median kept. A run that
does not answer counts as the cap in the medians; a system that does not answer
``--give-up`` instances in a row in a set is not run on the rest of that set
(they count as unsolved, at the cap). Every solution is checked with
:func:`futocp.verify.verify`; a wrong one counts as unsolved.

Printed (and written to ``--json``): per set, a row per system -- solved count,
median seconds, and for ``mip``, ``smt``, ``choco`` the ratio of their median to
their hand-written model's and the median of the per-instance ratios (instances
both solved). ``--from FILE`` prints the tables of saved measurements.

Run from the repository root::

    python benchmarks/paradigms.py --count 5 --cap 30 --json paradigms.json
    python benchmarks/paradigms.py --sets top95,killer9 --backends mip,smt,choco --count 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from futocp.board import Board  # noqa: E402

try:
    from .hard import judged_run
except ImportError:  # run as a script (python benchmarks/paradigms.py): its folder is on sys.path
    from hard import judged_run  # type: ignore[no-redef]

__all__ = ["SETS", "HAND", "make_sets", "hand_highs", "hand_z3", "hand_choco", "run_system",
           "measure", "summary", "main"]

SETS = ("futoshiki9", "top95", "killer9", "qwh30")
HAND = {"mip": "hand-highs", "smt": "hand-z3", "choco": "hand-choco"}
"""The hand-written model each new backend is compared with."""
MEMORY_MB = 4000
QUICK_S = 1.0
"""A run answered in less than this many seconds is repeated (``--repeat``), the
median kept: at a few milliseconds, a preemption on a shared machine is as long
as the solve."""


def _spread(items: Sequence[Any], count: int) -> list[Any]:
    if count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


def make_sets(names: Sequence[str], count: int, seed: int) -> dict[str, list[tuple[str, Board]]]:
    """The instances of each set, as ``(name, board)``."""
    import glob

    from futocp.formats import read, read_many

    out: dict[str, list[tuple[str, Board]]] = {}
    for name in names:
        if name == "futoshiki9":
            from futocp.generate_graded import generate_graded

            out[name] = [(f"extreme-seed{s}", generate_graded("futoshiki", "extreme", size=9,
                                                              seed=s))
                         for s in range(seed, seed + count)]
        elif name == "killer9":
            from futocp.generate import generate

            out[name] = [(f"killer-seed{s}", generate("killer-sudoku", size=9, seed=s))
                         for s in range(seed, seed + count)]
        elif name == "top95":
            boards = read_many(os.path.join(ROOT, "instances", "sudoku", "top95.txt"))
            picked = _spread(list(enumerate(boards, 1)), count)
            out[name] = [(f"top95#{i}", b) for i, b in picked]
        elif name == "qwh30":
            files = sorted(glob.glob(os.path.join(ROOT, "instances", "qwh", "csplib067", "*.dzn")))
            out[name] = [(os.path.basename(f), read(f)) for f in _spread(files, count)]
        else:
            raise SystemExit(f"unknown set {name!r} (sets: {', '.join(SETS)})")
    return out


# ------------------------------------------------------------------ hand-written models
def _parts(board: Board) -> tuple[list[int], dict[int, int], list[Any], list[Any]]:
    labels = sorted(set(board.labels))
    return (labels, dict(board.clues), [r for r in board.relations if r.kind == "less"],
            [r for r in board.relations if r.kind == "cage"])


def hand_highs(board: Board, cap: float) -> list[int] | None:
    """The textbook binary model in highspy (None: infeasible or no answer)."""
    import highspy

    labels, clues, less, cages = _parts(board)
    h = highspy.Highs()
    h.silent()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", cap)
    x = [[h.addBinary() for _ in labels] for _ in range(board.n_cells)]
    for c in range(board.n_cells):
        h.addConstr(sum(x[c]) == 1)
    for cells in board.asterisms:
        for i in range(len(labels)):
            h.addConstr(sum(x[c][i] for c in cells) == 1)
    for c, v in clues.items():
        h.addConstr(x[c][labels.index(v)] == 1)
    for r in less:
        h.addConstr(sum(v * x[r.b][i] for i, v in enumerate(labels))
                    - sum(v * x[r.a][i] for i, v in enumerate(labels)) >= 1)
    for r in cages:
        h.addConstr(sum(v * x[c][i] for c in r.cells for i, v in enumerate(labels))
                    == r.param_map["sum"])
        for i in range(len(labels)):
            h.addConstr(sum(x[c][i] for c in r.cells) <= 1)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return [labels[max(range(len(labels)), key=lambda i: h.val(x[c][i]))]
            for c in range(board.n_cells)]


def hand_z3(board: Board, cap: float) -> list[int] | None:
    """The plain SMT model in z3: Int cells, Distinct, arithmetic."""
    import z3

    labels, clues, less, cages = _parts(board)
    s = z3.Solver()
    s.set("timeout", int(cap * 1000))
    x = [z3.Int(f"x{c}") for c in range(board.n_cells)]
    s.add([z3.And(1 <= v, v <= len(labels)) for v in x])
    s.add([z3.Distinct([x[c] for c in cells]) for cells in board.asterisms])
    s.add([x[c] == labels.index(v) + 1 for c, v in clues.items()])
    s.add([x[r.a] < x[r.b] for r in less])
    for r in cages:
        s.add(z3.Sum([labels[0] - 1 + x[c] for c in r.cells]) == r.param_map["sum"])
        s.add(z3.Distinct([x[c] for c in r.cells]))
    if s.check() != z3.sat:
        return None
    m = s.model()
    return [labels[m.eval(v).as_long() - 1] for v in x]


def hand_choco(board: Board, cap: float) -> list[int] | None:
    """The classic CP model in pychoco: intvars, all_different, arithm, sum."""
    from pychoco import Model

    labels, clues, less, cages = _parts(board)
    m = Model()
    x = [m.intvar(1, len(labels)) for _ in range(board.n_cells)]
    for cells in board.asterisms:
        m.all_different([x[c] for c in cells]).post()
    for c, v in clues.items():
        m.arithm(x[c], "=", labels.index(v) + 1).post()
    for r in less:
        m.arithm(x[r.a], "<", x[r.b]).post()
    for r in cages:
        m.sum([x[c] for c in r.cells], "=", r.param_map["sum"] - (labels[0] - 1) * len(r.cells)
              ).post()
        m.all_different([x[c] for c in r.cells]).post()
    solver = m.get_solver()
    solver.limit_time(f"{cap:.3f}s")
    if not solver.solve():
        return None
    return [labels[v.get_value() - 1] for v in x]


HAND_MODELS = {"hand-highs": hand_highs, "hand-z3": hand_z3, "hand-choco": hand_choco}


# ------------------------------------------------------------------ one run
def _run(task: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: one system on one board, after an untimed warm-up solve of
    an empty 3x3 Latin square by the same system (imports, the solver's start-up)."""
    from futocp.families import latin_square
    from futocp.procs import limit_memory

    limit_memory(MEMORY_MB)
    board, system, cap = task["board"], task["system"], task["cap"]
    if system in HAND_MODELS:
        if system == "hand-highs":  # the Highs wrapper prints a banner on C stdout
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
        HAND_MODELS[system](latin_square(3), cap)

        def once() -> tuple[str, Any]:
            t0 = time.perf_counter()
            sol = HAND_MODELS[system](board, cap)
            seconds = time.perf_counter() - t0
            status = "sat" if sol is not None else ("unknown" if seconds >= 0.95 * cap
                                                    else "unsat")
            return status, sol
    else:
        from futocp.api import solve
        from futocp.backends import REGISTRY, get_backend

        for cls in REGISTRY.values():  # solver imports are not the run's time (auto's members)
            cls.available()
        get_backend(system)
        solve(latin_square(3), system, limit=1, time_limit=cap)

        def once() -> tuple[str, Any]:
            result = solve(board, system, limit=1, time_limit=cap)
            return result.status.value, result.solutions[0] if result.solutions else None
    times = []
    while True:
        t0 = time.perf_counter()
        status, sol = once()
        times.append(time.perf_counter() - t0)
        if len(times) >= task["repeat"] or times[0] >= QUICK_S:
            break
    return {"status": status, "s": statistics.median(times), "solution": sol,
            "runs": len(times)}


def run_system(system: str, board: Board, cap: float, repeat: int = 1) -> dict[str, Any]:
    """One run in a fresh process: status (``timeout``, ``error``, ``wrong``
    included) and seconds (the cap when it did not answer)."""
    return judged_run(_run, {"board": board, "system": system, "cap": cap, "repeat": repeat},
                      board, cap, cap * (repeat if repeat > 1 else 1) + 5)


def measure(sets: dict[str, list[tuple[str, Board]]], systems: Sequence[str], cap: float,
            give_up: int, repeat: int = 1) -> dict[str, Any]:
    """Every system on every instance of every set, interleaved; a line per run on stderr."""
    data: dict[str, Any] = {"cap": cap, "repeat": repeat, "systems": list(systems), "sets": {}}
    for set_name, instances in sets.items():
        rows: dict[str, dict[str, Any]] = {}
        misses = dict.fromkeys(systems, 0)
        for name, board in instances:
            rows[name] = {}
            for system in systems:
                if misses[system] >= give_up:
                    rows[name][system] = {"status": "skipped", "s": cap}
                    continue
                run = run_system(system, board, cap, repeat)
                rows[name][system] = run
                misses[system] = 0 if run["status"] in ("sat", "unsat") else misses[system] + 1
                print(f"{set_name} {name} {system}: {run['status']} {run['s']:.3f}s",
                      file=sys.stderr, flush=True)
        data["sets"][set_name] = rows
    return data


def _solved(run: dict[str, Any]) -> bool:
    return run["status"] in ("sat", "unsat")


def summary(data: dict[str, Any]) -> list[str]:
    """A Markdown table per set."""
    cap = data["cap"]
    out: list[str] = []
    for set_name, rows in data["sets"].items():
        n = len(rows)
        out += [f"#### {set_name} ({n} instances, cap {cap:g} s)", "",
                "| system | solved | median s | vs hand model: ratio of medians | "
                "median per-instance ratio |", "|---|---|---|---|---|"]
        for system in data["systems"]:
            runs = [r[system] for r in rows.values()]
            med = statistics.median(r["s"] for r in runs)
            solved = sum(map(_solved, runs))
            ratio = per = ""
            hand = HAND.get(system)
            if hand in data["systems"]:
                hruns = [r[hand] for r in rows.values()]
                hmed = statistics.median(r["s"] for r in hruns)
                ratio = f"{med / hmed:.2f}" if hmed > 0 else ""
                pairs = [a["s"] / b["s"] for a, b in zip(runs, hruns, strict=True)
                         if _solved(a) and _solved(b) and b["s"] > 0]
                per = f"{statistics.median(pairs):.2f} ({len(pairs)})" if pairs else "-"
            shown = f">= {cap:g}" if med >= cap else f"{med:.3f}"
            out.append(f"| {system} | {solved}/{n} | {shown} | {ratio} | {per} |")
        out.append("")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    parser.add_argument("--count", type=int, default=5, help="instances per set")
    parser.add_argument("--seed", type=int, default=1, help="first seed of the generated sets")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds per run")
    parser.add_argument("--give-up", type=int, default=2,
                        help="stop a system in a set after this many unanswered runs in a row")
    parser.add_argument("--backends", default="complete",
                        help="complete (every available complete backend and auto) or a,b,c")
    parser.add_argument("--repeat", type=int, default=5,
                        help=f"solves of a board in its process when the first takes less than "
                             f"{QUICK_S:g} s (the median is kept)")
    parser.add_argument("--no-hand", action="store_true", help="leave out the hand-written models")
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--from", dest="source", help="print the tables of saved measurements")
    args = parser.parse_args(argv)
    if args.source:
        with open(args.source, encoding="utf-8") as fh:
            data = json.load(fh)
    else:
        from futocp.backends import REGISTRY

        if args.backends == "complete":
            systems = [n for n, cls in REGISTRY.items() if cls.complete and cls.available() is True]
        else:
            systems = [s.strip() for s in args.backends.split(",") if s.strip()]
        if not args.no_hand:
            systems += [HAND[b] for b in HAND if b in systems]
        sets = make_sets([s.strip() for s in args.sets.split(",") if s.strip()], args.count,
                         args.seed)
        t0 = time.time()
        data = measure(sets, systems, args.cap, args.give_up, args.repeat)
        data["elapsed_s"] = round(time.time() - t0, 1)
        data["loadavg"] = list(os.getloadavg())
        data["command"] = "python benchmarks/paradigms.py " + " ".join(
            argv if argv is not None else sys.argv[1:])
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1, default=str)
    print("\n".join(summary(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
