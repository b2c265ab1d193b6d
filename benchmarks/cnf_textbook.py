"""Issue 25 item 2: futocp's CNF against the textbook 3-D CNF, same solver, on the QWH set.

The *textbook* CNF is lsencode's ``pls2sat`` "3-D" encoding as ``benchmarks/hard.py``
writes it for its ``kissat`` / ``cadical`` peers (:func:`hard._cnf_3d`: a variable
per hole and value its row and column givens allow; exactly one per hole,
row-value and column-value; pairwise at-most-one). *futocp* is what the ``sat``
backend hands its solver: :func:`futocp.model.build_model` (list filtering) then
:meth:`SatBackend.compile` with the default options for that solver, or ``--futocp k=v,k=v``;
``--also`` adds more futocp configurations (``;``-separated) beside it.

Both go to the same python-sat solver (``--solvers``, default the three the sat
backend and the peers use: ``kissat404``, ``cadical195``, ``glucose42``), each run in
a fresh process killed at ``--cap`` seconds and capped at ``hard.MEMORY_MB``,
interleaved per file (every system on a file, then the next file). A CDCL run on
these files is heavy-tailed: the same formula with its variables renumbered can take
5x longer or shorter (Kissat and CaDiCaL are deterministic, so one run says little
about the formula). ``--shuffles K`` therefore also runs each formula K more times
with its variables, clauses and literals permuted (:func:`futocp.backends.sat.permute_cnf`, the
sat backend's option ``shuffle``; seeds 1..K, the same permutation
seed for both formulas; unit clauses come last, so the sat backend's default CNF of a
Latin square -- the textbook CNF with the filtering's units after it -- is permuted like
the textbook CNF); a system's time on a file is the median over the K+1 runs
(seed 0 = the formula as built). Every solution is read back to labels and checked
with :func:`futocp.verify.verify` (a wrong one counts as unsolved).

Times: ``solve`` is the solver's wall time (loading the clauses and search), ``cpu``
its CPU time in the run's process (what the ratios use: on a shared machine the wall
time moves with the load, the CPU time much less), ``total`` the wall time with the
Model and the encoding (futocp) or building the 3-D clauses (textbook). A run not
solved within the cap (wall clock) counts as the cap in every measure. The ratio futocp / textbook is taken per file and solver on the
median times, with a floor of :data:`FLOOR_S` on both (so that millisecond files do
not decide the median); files that neither formula solves within the cap have no ratio.

Output: one row per file (per solver: the two median solve times and their ratio),
then per solver and configuration the median ratio, the largest, the files worse than
:data:`WORST`, solved counts and median conflicts (CaDiCaL and Glucose report them;
Kissat does not through python-sat), the same on the formulas as built (seed 0) alone,
and how many runs took the textbook's search (the same number of conflicts as the
textbook's run with the same seed). ``--json FILE`` keeps every run.

Run from the repository root::

    python benchmarks/cnf_textbook.py --cap 60 --shuffles 2            # the QWH set of hard.py
    python benchmarks/cnf_textbook.py --only order40 --solvers kissat404 --shuffles 4
    python benchmarks/cnf_textbook.py --also "card=pairwise;card=auto,pairwise_max=10"
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

try:
    from .hard import MEMORY_MB, _board, _cnf_3d, instances
except ImportError:  # run as a script: its folder is on sys.path
    from hard import MEMORY_MB, _board, _cnf_3d, instances  # type: ignore[no-redef]

from futocp.board import Board
from futocp.experiments.isolate import run_isolated
from futocp.verify import verify

__all__ = ["FLOOR_S", "WORST", "SOLVERS", "build", "run_one", "measure", "summary", "load_or_run",
           "main", "ratios", "same_search"]

SOLVERS = ("kissat404", "cadical195", "glucose42")
FLOOR_S = 0.05
"""Times below this count as this in the ratios (process and Python noise)."""
WORST = 1.5
"""The issue's bound on any one file's ratio."""
TEXTBOOK = "textbook"


def build(board: Board, formula: str, solver: str = "auto") -> tuple[list[list[int]], int, Any]:
    """The clauses, the number of variables and a reader (true variables -> labels
    per cell) of ``formula``: ``textbook`` or ``futocp[:k=v,...]`` (the sat backend's
    CNF for ``solver``: ``card_long=auto`` depends on it)."""
    if formula == TEXTBOOK:
        clauses, meaning = _cnf_3d(board)

        def read_3d(true: set[int]) -> list[Any]:
            sol = dict(board.clues)
            sol.update(meaning[v] for v in true if v in meaning)
            return [sol.get(c) for c in range(board.n_cells)]

        return clauses, max(meaning, default=0), read_3d
    from futocp.backends.sat import SatBackend
    from futocp.model import build_model

    options = _options(formula.partition(":")[2])
    model = build_model(board)
    form = SatBackend().compile(model, **{"solver": solver, **options})
    if form.trivially_unsat:
        return [[]], form.n_vars, None

    def read_futocp(true: set[int]) -> list[Any]:
        return [model.labels_of(form.read(true))[c] for c in range(board.n_cells)]

    return form.cnf.clauses, form.n_vars, read_futocp


def _options(text: str) -> dict[str, str]:
    """``k=v,k=v`` as a dict of strings (the backend's options parse them)."""
    return dict(kv.partition("=")[::2] for kv in text.split(",") if kv)


def _run(task: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: build one formula, permute it, solve it with one solver."""
    from pysat.solvers import Solver

    from futocp.backends.sat import permute_cnf
    from futocp.procs import limit_memory

    limit_memory(MEMORY_MB)
    t0 = time.perf_counter()
    clauses, n_vars, reader = build(task["board"], task["formula"], task["solver"])
    clauses, _, back = permute_cnf(clauses, n_vars, task["seed"])
    t1 = time.perf_counter()
    if reader is None or any(not cl for cl in clauses):
        return {"status": "unsat", "build_s": t1 - t0, "solve_s": 0.0, "cpu_s": 0.0,
                "total_s": t1 - t0, "vars": n_vars, "clauses": len(clauses)}
    c1 = time.process_time()
    with Solver(name=task["solver"], bootstrap_with=clauses) as s:
        ok = s.solve()
        model = s.get_model() if ok else None
        try:
            conflicts = s.accum_stats().get("conflicts")
        except NotImplementedError:  # Kissat in python-sat
            conflicts = None
    t2 = time.perf_counter()
    out: dict[str, Any] = {"status": "sat" if ok else "unsat", "build_s": t1 - t0,
                           "solve_s": t2 - t1, "total_s": t2 - t0,
                           "cpu_s": time.process_time() - c1, "vars": n_vars,
                           "clauses": len(clauses), "conflicts": conflicts}
    if ok:
        out["solution"] = reader({back[lit] for lit in model or () if lit > 0})
    return out


def run_one(board: Board, formula: str, solver: str, seed: int, cap: float) -> dict[str, Any]:
    """One run in a fresh process killed at ``cap``: status (``timeout``, ``error``,
    ``wrong`` included) and times (the cap when not solved)."""
    out = run_isolated(_run, {"board": board, "formula": formula, "solver": solver,
                              "seed": seed}, cap, "forkserver")
    if out.value is None:
        return {"status": "timeout" if out.killed else "error", "solve_s": cap, "total_s": cap,
                "cpu_s": cap, "error": out.error}
    value = dict(out.value)
    sol = value.pop("solution", None)
    if value["status"] == "sat" and (sol is None or verify(board, sol)):
        value["status"] = "wrong"
    if value["status"] not in ("sat", "unsat"):
        value["solve_s"] = value["total_s"] = value["cpu_s"] = cap
    return value


def measure(names: Sequence[tuple[str, str]], formulas: Sequence[str], solvers: Sequence[str],
            shuffles: int, cap: float) -> dict[str, Any]:
    """Every (formula, solver) on every file and seed, interleaved per file and seed."""
    rows: dict[str, Any] = {}
    for name, path in names:
        board = _board(path)
        runs: dict[str, list[dict[str, Any]]] = {}
        for seed in range(shuffles + 1):
            for solver in solvers:
                for formula in formulas:
                    r = run_one(board, formula, solver, seed, cap)
                    r["seed"] = seed
                    runs.setdefault(f"{formula}@{solver}", []).append(r)
                    conf = f" {r['conflicts']} conflicts" if r.get("conflicts") else ""
                    print(f"  {name:<30} seed {seed} {solver:<10} {formula:<28} {r['status']:<7}"
                          f" solve {r['solve_s']:7.2f}s cpu {r.get('cpu_s', r['solve_s']):7.2f}s"
                          f" total {r['total_s']:7.2f}s{conf}",
                          flush=True)
        rows[name] = {"order": board.k, "holes": board.n_cells - len(board.clues), "runs": runs}
    return rows


def _med(runs: Sequence[dict[str, Any]], key: str) -> float:
    return statistics.median(r.get(key, r["solve_s"]) for r in runs)


def _solved(runs: Sequence[dict[str, Any]]) -> int:
    return sum(r["status"] in ("sat", "unsat") for r in runs)


def ratios(data: dict[str, Any], formula: str, solver: str, key: str = "cpu_s",
           floor_only: bool = False, seed: int | None = None) -> dict[str, float]:
    """Per file: median time of ``formula`` over the textbook's (same solver), floored
    at :data:`FLOOR_S`; files where neither solved a run are left out (with
    ``floor_only``, also those where both medians are below the floor; with ``seed``,
    the runs of that seed alone)."""
    out = {}
    for name, row in data["rows"].items():
        mine, ref = row["runs"][f"{formula}@{solver}"], row["runs"][f"{TEXTBOOK}@{solver}"]
        if seed is not None:
            mine = [r for r in mine if r.get("seed") == seed]
            ref = [r for r in ref if r.get("seed") == seed]
        if not _solved(mine) and not _solved(ref):
            continue
        if floor_only and max(_med(mine, key), _med(ref, key)) < FLOOR_S:
            continue
        out[name] = max(_med(mine, key), FLOOR_S) / max(_med(ref, key), FLOOR_S)
    return out


def same_search(data: dict[str, Any], formula: str, solver: str) -> tuple[int, int]:
    """(runs of ``formula`` with the conflicts of the textbook's run of the same file
    and seed, runs where both report conflicts)."""
    same = both = 0
    for row in data["rows"].values():
        ref = {r.get("seed"): r.get("conflicts") for r in row["runs"][f"{TEXTBOOK}@{solver}"]}
        for r in row["runs"][f"{formula}@{solver}"]:
            theirs = ref.get(r.get("seed"))
            if r.get("conflicts") is not None and theirs is not None:
                both += 1
                same += r["conflicts"] == theirs
    return same, both


def _conflicts(runs: Sequence[dict[str, Any]]) -> str:
    """The median conflicts of the runs that report them, or ``-``."""
    xs = [r["conflicts"] for r in runs if r.get("conflicts") is not None]
    return f"{statistics.median(xs):,.0f}" if xs else "-"


def _runs_cpu(data: dict[str, Any], system: str) -> list[list[float]]:
    """Per file whose every run of ``system`` answered: the runs' CPU times (floored)."""
    out = []
    for row in data["rows"].values():
        runs = row["runs"][system]
        if _solved(runs) == len(runs):
            out.append([max(r.get("cpu_s", r["solve_s"]), FLOOR_S) for r in runs])
    return out


def summary(data: dict[str, Any]) -> list[str]:
    """Markdown: a row per file, then the ratios per solver and configuration."""
    formulas, solvers = data["formulas"], data["solvers"]
    ours = [f for f in formulas if f != TEXTBOOK]
    head = "| file | order | holes |"
    rule = "|---|---:|---:|"
    for solver in solvers:
        for f in formulas:
            head += f" {f} @{solver} s |"
            rule += "---:|"
    lines = [head, rule]
    for name, row in data["rows"].items():
        cells = []
        for solver in solvers:
            for f in formulas:
                runs = row["runs"][f"{f}@{solver}"]
                t = f"{_med(runs, 'cpu_s'):.2f}"
                if _solved(runs) < len(runs):
                    t += f" ({len(runs) - _solved(runs)} t/o)"
                cells.append(t)
        lines.append(f"| {name} | {row['order']} | {row['holes']} | " + " | ".join(cells) + " |")
    lines += ["", f"Per solver and configuration ({len(data['rows'])} files, cap {data['cap']:g} s,"
                  f" {data['shuffles'] + 1} run(s) per file: the formula as built"
                  f"{' and shuffles' if data['shuffles'] else ''}; median time per file; "
                  f"ratio = futocp / textbook, floor {FLOOR_S:g} s):", "",
              "| solver | futocp config | files | median ratio solve (CPU) | the same, files "
              f"above {FLOOR_S:g} s | max | worse than "
              f"{WORST:g}x | median ratio total | solved futocp / textbook | median conflicts "
              "futocp / textbook |", "|---|---|---:|---:|---:|---:|---|---:|---|---|"]
    for solver in solvers:
        ref_runs = [r for row in data["rows"].values() for r in row["runs"][f"{TEXTBOOK}@{solver}"]]
        for f in ours:
            rs = ratios(data, f, solver)
            rt = ratios(data, f, solver, "total_s")
            if not rs:
                continue
            worse = [f"{n.removesuffix('.pls')} {r:.2f}" for n, r in rs.items() if r > WORST]
            mine = [r for row in data["rows"].values() for r in row["runs"][f"{f}@{solver}"]]
            above = [r for n, r in rs.items() if n in ratios(data, f, solver, floor_only=True)]
            cells = [solver, f, str(len(rs)), f"{statistics.median(rs.values()):.2f}",
                     f"{statistics.median(above):.2f} ({len(above)})" if above else "-",
                     f"{max(rs.values()):.2f}", ", ".join(worse) or "none",
                     f"{statistics.median(rt.values()):.2f}",
                     f"{_solved(mine)} / {_solved(ref_runs)} of {len(mine)} runs",
                     f"{_conflicts(mine)} / {_conflicts(ref_runs)}"]
            lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "The formulas as built (seed 0) alone, and the runs that took the textbook's "
                  "search (the same conflicts as its run with the same seed; CaDiCaL and "
                  "Glucose report them):", "",
              "| solver | futocp config | median ratio seed 0 | max | worse than "
              f"{WORST:g}x | same conflicts as the textbook |", "|---|---|---:|---:|---|---|"]
    for solver in solvers:
        for f in ours:
            rs = ratios(data, f, solver, seed=0)
            if not rs:
                continue
            worse = [f"{n.removesuffix('.pls')} {r:.2f}" for n, r in rs.items() if r > WORST]
            same, both = same_search(data, f, solver)
            lines.append(f"| {solver} | {f} | {statistics.median(rs.values()):.2f} | "
                         f"{max(rs.values()):.2f} | {', '.join(worse) or 'none'} | "
                         + (f"{same} of {both} runs |" if both else "- |"))
    if data["shuffles"]:
        lines += ["", "The spread of one formula over its permutations: per file solved in every "
                      "run, the slowest run's CPU time over the fastest's (floor "
                      f"{FLOOR_S:g} s); the median and the largest over the files:", ""]
        for solver in solvers:
            for f in formulas:
                spread = [max(xs) / min(xs) for xs in _runs_cpu(data, f"{f}@{solver}")]
                if spread:
                    lines.append(f"- {f} @{solver}: median {statistics.median(spread):.1f}x, "
                                 f"largest {max(spread):.1f}x ({len(spread)} files)")
    return lines


def load_or_run(load: str | None, save: str | None, run: Callable[[], dict[str, Any]],
                what: str) -> dict[str, Any]:
    """The saved measurements of ``load``, or ``run()``'s (announced as ``what``) with the
    load averages before and after and the date, saved to ``save`` if given."""
    if load:
        with open(load, encoding="utf-8") as fh:
            return dict(json.load(fh))
    before = os.getloadavg()
    print(f"{what}; load average {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}", flush=True)
    data = run()
    data.update(loadavg=[round(x, 2) for x in before],
                loadavg_end=[round(x, 2) for x in os.getloadavg()],
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    if save:
        with open(save, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--solvers", default=",".join(SOLVERS), help="python-sat solvers")
    p.add_argument("--cap", type=float, default=60.0, help="wall seconds per run (default 60)")
    # the files: hard.py's QWH set (its --csplib and --only), less --skip
    p.add_argument("--only", default="", help="comma-separated substrings of file names")
    p.add_argument("--skip", default="", help="comma-separated substrings of names to leave out")
    p.add_argument("--csplib", type=int, default=4, help="CSPLib files, as hard.py's --csplib")
    p.add_argument("--futocp", default="", help="the futocp configuration: k=v,k=v (defaults)")
    p.add_argument("--also", default="", help="more futocp configurations, ';'-separated")
    p.add_argument("--shuffles", type=int, default=0, help="permuted runs per formula (default 0)")
    p.add_argument("--json", metavar="FILE", help="save every run")
    p.add_argument("--from", dest="load", metavar="FILE", help="read saved runs")
    args = p.parse_args(argv)
    formulas = [f"futocp:{args.futocp}" if args.futocp else "futocp"]
    formulas += [f"futocp:{c}" for c in args.also.split(";") if c]
    formulas.append(TEXTBOOK)
    solvers = [s for s in args.solvers.split(",") if s]
    skip = [s for s in args.skip.split(",") if s]
    names = [(n, path) for n, path in instances(args.csplib, [s for s in args.only.split(",") if s])
             if not any(s in n for s in skip)]
    data = load_or_run(args.load, args.json, lambda: {
        "cap": args.cap, "formulas": formulas, "solvers": solvers, "shuffles": args.shuffles,
        "rows": measure(names, formulas, solvers, args.shuffles, args.cap)},
        f"{len(names)} files x {len(formulas)} formulas x {len(solvers)} solvers x "
        f"{args.shuffles + 1} runs, cap {args.cap:g} s")
    print("\n".join(summary(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
