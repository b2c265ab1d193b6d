"""Issue 3 benchmark: the sat backend's encodings and SAT solvers, side by side.

Studies (one per sub-command), each measured in one run with the
configurations interleaved per instance, so that load from other processes
hits them alike:

* ``cards``: every python-sat cardinality encoding (``card=``) x the solvers
  (``--solvers``, default ``cadical195,glucose4,minisat22``);
* ``solvers``: every python-sat solver installed here, default encodings;
* ``less``: ``less=support`` against ``less=order`` (x two card encodings x two
  solvers) on Futoshiki, where the inequalities are;
* ``simplify``: the unit-propagation pass on and off;
* ``enumerate``: solvers enumerating 1000 solutions (blocking clauses; Kissat is
  not incremental and is rebuilt after each solution);
* ``threshold``: the cardinality encoding by list length -- ``card=pairwise``
  against the linear encodings on empty squares of order n (every list has n
  literals; ``--repeat`` runs each) and on QWH-30, and ``card=auto`` with
  several ``pairwise_max``;
* ``large``: the lsencode files of order >= ``--min-order`` with the defaults
  (``card=auto``; ``--also pairwise`` adds ``card=pairwise`` beside them):
  encoding time, CNF size, load and search time per file.

Instances: CSPLib QWH order 30 (``instances/qwh/csplib067/*.dzn``, a few,
spread over the set), the 9x9 Futoshiki shipped in ``instances/futoshiki/``,
and (for ``less``) generated 15x15 and 20x20 Futoshiki with many inequalities.

Each run is a fresh process (futocp's :func:`~futocp.experiments.isolate.run_isolated`)
killed at ``--cap`` seconds (a timeout counts as ``--cap`` in the medians:
CaDiCaL cannot be interrupted by python-sat, so the kill is the only limit
that applies to all). A time is the backend's ``wall_s``: Model build,
encoding, loading the clauses into the solver, and search. Every solution is
checked with :func:`futocp.verify.verify`.

Run from the repository root::

    python benchmarks/sat_encodings.py cards [--qwh 3] [--cap 30] [--solvers a,b]
    python benchmarks/sat_encodings.py solvers
    python benchmarks/sat_encodings.py less
    python benchmarks/sat_encodings.py simplify
    python benchmarks/sat_encodings.py enumerate
    python benchmarks/sat_encodings.py threshold [--repeat 3] [--cap 60]
    python benchmarks/sat_encodings.py large [--min-order 40] [--cap 60] [--also pairwise]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from futocp.backends.sat import CARD_ENCODINGS, SatBackend
from futocp.board import Board
from futocp.experiments.isolate import run_isolated
from futocp.experiments.runner import solve_run
from futocp.formats import read
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["Run", "run_once", "qwh_csplib", "qwh_lsencode", "futoshiki_9x9", "empty_squares",
           "sweep", "table", "large_table", "main"]

DATA = os.path.join(ROOT, "instances", "qwh")
Config = dict[str, Any]  # backend options, plus "backend" (default "sat"), "limit" (1) and
#                          "time_limit" (None: the run is only killed at the cap)
TRIO = ("cadical195", "glucose4", "minisat22")


@dataclass
class Run:
    """One isolated solve: seconds (wall_s, or the cap), status, verified, counters."""

    seconds: float
    status: str
    verified: bool
    stats: dict[str, Any] = field(default_factory=dict)


def run_once(board: Board, config: Config, cap: float) -> Run:
    """Solve ``board`` in a fresh process with ``config``; killed at ``cap`` seconds."""
    options = {k: v for k, v in config.items() if k not in ("backend", "limit", "time_limit")}
    task = {"board": board, "backend": config.get("backend", "sat"), "options": options,
            "filtering": "lists", "limit": config.get("limit", 1), "seed": None,
            "time_limit": config.get("time_limit")}
    out = run_isolated(solve_run, task, cap, "forkserver")
    if out.error is not None or out.value is None:
        status = "timeout" if out.killed else "error"
        return Run(cap, status, False, {"error": out.error})
    value = out.value
    if value["status"] == "error":
        return Run(cap, "error", False, {"error": value.get("reason")})
    ok = value["status"] != "unknown" and all(not verify(board, s) for s in value["solutions"])
    return Run(value["stats"]["wall_s"], value["status"], ok, value["stats"])


def _repo_rel(path: str) -> str:
    return os.path.relpath(path, ROOT)


def qwh_csplib(count: int | None = None) -> list[tuple[str, Board]]:
    """CSPLib QWH order 30 boards; with ``count``, that many spread over the sorted set."""
    paths = sorted(glob.glob(os.path.join(DATA, "csplib067", "*.dzn")))
    if not paths:
        raise SystemExit(f"no instances in {_repo_rel(os.path.join(DATA, 'csplib067'))}")
    if count is not None and count < len(paths):
        step = len(paths) / count
        paths = [paths[int(i * step)] for i in range(count)]
    return [(os.path.basename(p), read(p, format="dzn")) for p in paths]


def qwh_lsencode(max_order: int = 40, min_order: int = 0) -> list[tuple[str, Board]]:
    """Gomes' lsencode QWH boards of order ``min_order`` to ``max_order`` (read from the
    file), by order then holes."""
    out = []
    for p in glob.glob(os.path.join(DATA, "lsencode", "*.pls")):
        board = read(p, format="pls")
        if min_order <= board.k <= max_order:
            out.append((board.k, board.n_cells - len(board.clues), os.path.basename(p), board))
    return [(name, board) for _, _, name, board in sorted(out, key=lambda t: t[:3])]


def empty_squares(orders: Sequence[int], repeat: int = 1) -> list[tuple[str, Board]]:
    """Empty Latin squares of the given orders, each ``repeat`` times (for medians)."""
    from futocp.families import latin_square

    return [(f"empty-{n}#{i + 1}", latin_square(n)) for n in orders for i in range(repeat)]


def futoshiki_9x9() -> list[tuple[str, Board]]:
    """The 9x9 Futoshiki puzzles shipped in instances/futoshiki."""
    paths = sorted(glob.glob(os.path.join(ROOT, "instances", "futoshiki", "9x9*")))
    return [(os.path.basename(p), read(p)) for p in paths]


def futoshiki_generated() -> list[tuple[str, Board]]:
    """Random Futoshiki with many inequalities (fixed seeds): 15x15 and 20x20."""
    from futocp.generate import generate

    out = []
    for size, ineq, givens in ((15, 150, 10), (20, 250, 20)):
        for seed in (1, 2):
            board = generate("futoshiki", size=size, inequalities=ineq, givens=givens, seed=seed)
            out.append((f"gen-{size}x{size}-s{seed}", board))
    return out


def enumeration_boards() -> list[tuple[str, Board]]:
    """Boards with many solutions, for enumerating up to a limit."""
    from futocp.families import futoshiki, grid_lines, latin_square

    ms = Board(36, tuple(grid_lines(6, 6)), (1, 1, 2, 2, 3, 3), shape=(6, 6))
    return [
        ("latin-6", latin_square(6, [[1, 2, 3, 0, 0, 0]] + [[0] * 6] * 5)),
        ("futoshiki-7", futoshiki(7, None, [((r, c), (r, c + 1)) for r in range(0, 7, 2)
                                            for c in range(0, 6, 3)])),
        ("multiset-6", ms),
    ]


def label(config: Config) -> str:
    """A short name for a configuration."""
    return " ".join(f"{k}={v}" for k, v in config.items())


def sweep(sets: dict[str, list[tuple[str, Board]]], configs: Sequence[Config], cap: float,
          progress: Callable[[str], None] = print) -> dict[str, dict[str, dict[str, Run]]]:
    """Every config on every board of every set, interleaved per board.

    Returns:
        ``{set: {config label: {instance: Run}}}``.
    """
    out: dict[str, dict[str, dict[str, Run]]] = {}
    for set_name, boards in sets.items():
        res: dict[str, dict[str, Run]] = {label(c): {} for c in configs}
        for name, board in boards:
            line = []
            for config in configs:
                run = run_once(board, config, cap)
                res[label(config)][name] = run
                line.append(f"{run.seconds:.2f}{'' if run.verified else '!' + run.status}")
            progress(f"  {set_name} {name}: " + " ".join(line))
        out[set_name] = res
    return out


def _median(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def table(results: dict[str, dict[str, dict[str, Run]]], configs: Sequence[Config]) -> list[str]:
    """Markdown: per config and set, the median time and its ratio to the best config's
    median, the mean and largest time (a timeout counts as the cap), failures (timeouts, errors,
    unverified), and the median numbers of variables and clauses."""
    sets = list(results)
    head = "| config | " + " | ".join(
        f"{s} median s | {s} ratio | {s} mean s | {s} max s | {s} failed | {s} vars | {s} clauses"
        for s in sets) + " |"
    lines = [head, "|---|" + "---:|" * (7 * len(sets))]
    best = {s: min(_median([r.seconds for r in results[s][label(c)].values()]) for c in configs)
            for s in sets}
    for c in configs:
        cells = []
        for s in sets:
            runs = list(results[s][label(c)].values())
            med = _median([r.seconds for r in runs])
            failed = sum(1 for r in runs if not r.verified)
            nv = _median([r.stats["variables"] for r in runs if "variables" in r.stats])
            nc = _median([r.stats["clauses"] for r in runs if "clauses" in r.stats])
            mean = statistics.fmean(r.seconds for r in runs)
            top = max(r.seconds for r in runs)
            cells.append(f"{med:.3f} | {med / best[s]:.2f} | {mean:.3f} | {top:.2f} | {failed} "
                         f"| {nv:,.0f} | {nc:,.0f}")
        lines.append(f"| {label(c)} | " + " | ".join(cells) + " |")
    return lines


def _num(stats: dict[str, Any], key: str, fmt: str = ".2f") -> str:
    return format(stats[key], fmt) if key in stats else "-"


def large_table(results: dict[str, dict[str, Run]], configs: Sequence[Config]) -> list[str]:
    """Markdown: per file and config, the status, wall time, Model build + encoding
    (``build_s``), loading the solver, search, variables and clauses."""
    lines = ["| file | config | status | wall s | encode s | load s | search s | vars | clauses |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    names = list(next(iter(results.values())))
    for name in names:
        for c in configs:
            r = results[label(c)][name]
            st = r.stats
            why = st.get("reason") or st.get("error") or ""
            status = r.status + ("" if r.verified or r.status in ("timeout", "error", "unknown")
                                 else "!")
            if r.status == "error" and why:
                status += f" ({str(why).splitlines()[-1][:60]})"
            lines.append(f"| {name} | {label(c)} | {status} | {r.seconds:.2f} | "
                         f"{_num(st, 'build_s')} | {_num(st, 'load_s')} | {_num(st, 'solve_s')} | "
                         f"{_num(st, 'variables', ',')} | {_num(st, 'clauses', ',')} |")
    return lines


def installed_solvers() -> list[str]:
    """The python-sat solvers that can be created here."""
    from pysat.solvers import Solver, SolverNames

    out = []
    for name in sorted(n for n in vars(SolverNames) if not n.startswith("_")):
        try:
            Solver(name=name).delete()
        except Exception:  # noqa: BLE001 - a solver python-sat was built without
            continue
        out.append(name)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=("cards", "solvers", "less", "simplify", "enumerate",
                                          "threshold", "large"))
    parser.add_argument("--repeat", type=int, default=3, help="runs per empty square (threshold)")
    parser.add_argument("--min-order", type=int, default=40, help="smallest lsencode order (large)")
    parser.add_argument("--also", default="", help="large: card encodings to run beside the "
                                                   "defaults, comma-separated (e.g. pairwise)")
    parser.add_argument("--qwh", type=int, default=3, help="how many CSPLib QWH instances")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds before a run is killed")
    parser.add_argument("--solvers", default=None,
                        help="comma-separated solvers (default: cadical195,glucose4,minisat22 "
                             "for cards and less; every installed one for solvers)")
    args = parser.parse_args(argv)
    defaults = {o.name: o.default for o in SatBackend.options}
    solvers = args.solvers.split(",") if args.solvers else None
    print(f"sat defaults: {defaults}")

    if args.study == "cards":
        sets = {"QWH-30": qwh_csplib(args.qwh), "Futoshiki-9": futoshiki_9x9()}
        configs = [{"card": card, "solver": solver}
                   for solver in solvers or TRIO for card in CARD_ENCODINGS]
    elif args.study == "solvers":
        sets = {"QWH-30": qwh_csplib(args.qwh), "Futoshiki-9": futoshiki_9x9()}
        configs = [{"solver": s} for s in solvers or installed_solvers()]
    elif args.study == "less":
        sets = {"Futoshiki-9": futoshiki_9x9(), "Futoshiki-gen": futoshiki_generated()}
        configs = [{"less": less, "card": card, "solver": solver}
                   for solver in solvers or TRIO for card in ("pairwise", "seqcounter")
                   for less in ("support", "order")]
    elif args.study == "enumerate":
        sets = {"enumerate-1000": enumeration_boards()}
        configs = [{"solver": s, "limit": 1000} for s in solvers or (*TRIO, "cadical300",
                                                                      "glucose42", "kissat404")]
    elif args.study == "threshold":
        sets = {"empty": empty_squares((6, 8, 12, 16, 24, 32, 48), args.repeat),
                "QWH-30": qwh_csplib(args.qwh)}
        configs = [{"card": c} for c in ("pairwise", "seqcounter", "ladder", "bitwise",
                                         "kmtotalizer")]
        configs += [{"card": "auto", "pairwise_max": m} for m in (6, 10, 16)]
        configs = [{**c, "solver": s} for s in solvers or ("auto",) for c in configs]
    elif args.study == "large":
        boards = qwh_lsencode(70, args.min_order)
        # the backend's own time limit, so that encoding time and size are reported
        # when the search does not finish; killed 15 s later at the latest
        configs = [{"time_limit": args.cap}]
        configs += [{"card": c, "time_limit": args.cap} for c in args.also.split(",") if c]
        print(f"study large: {len(boards)} lsencode files, configs {configs}")
        res = sweep({"lsencode": boards}, configs, args.cap + 15)["lsencode"]
        print()
        print("\n".join(large_table(res, configs)))
        return
    else:
        sets = {"QWH-30": qwh_csplib(args.qwh), "Futoshiki-9": futoshiki_9x9()}
        configs = [{"simplify": True}, {"simplify": False}]
    print(f"study {args.study}: {len(configs)} configs, "
          + ", ".join(f"{s}: {len(b)} boards" for s, b in sets.items()) + f", cap {args.cap:g}s")
    results = sweep(sets, configs, args.cap)
    print()
    print("\n".join(table(results, configs)))
    if args.study == "threshold":
        print()
        print("\n".join(by_order(results["empty"], configs)))


def by_order(results: dict[str, dict[str, Run]], configs: Sequence[Config]) -> list[str]:
    """Markdown: median seconds per empty-square order (the list length) and config,
    with the median clauses."""
    orders = sorted({int(name.split("-")[1].split("#")[0]) for name in
                     next(iter(results.values()))})
    lines = ["| config | " + " | ".join(f"n={n} s" for n in orders) + " | "
             + " | ".join(f"n={n} clauses" for n in orders) + " |",
             "|---|" + "---:|" * (2 * len(orders))]
    for c in configs:
        runs = results[label(c)]
        times, sizes = [], []
        for n in orders:
            mine = [r for name, r in runs.items() if name.startswith(f"empty-{n}#")]
            times.append(f"{_median([r.seconds for r in mine]):.3f}")
            nc = [r.stats["clauses"] for r in mine if "clauses" in r.stats]
            sizes.append(f"{_median(nc):,.0f}" if nc else "-")
        lines.append(f"| {label(c)} | " + " | ".join(times) + " | " + " | ".join(sizes) + " |")
    return lines


if __name__ == "__main__":
    main()
