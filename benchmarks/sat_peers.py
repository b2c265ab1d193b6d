"""Issue 3 benchmark: the sat backend (default options) against the cpsat backend on QWH.

On the 40 CSPLib QWH order-30 instances (``instances/qwh/csplib067/``) and
Gomes' lsencode QWH instances of order at most 40 (``instances/qwh/lsencode/``),
both backends solve every instance, interleaved (sat then cpsat, each in a
fresh process killed at ``--cap`` seconds). A time is the backend's ``wall_s``:
Model build, encoding (plus, for sat, loading the clauses into the solver)
and search. Every solution is checked with :func:`futocp.verify.verify`.

It prints per instance the two times and the ratio sat / cpsat, then per set
the median times, the median and largest ratio, and how many instances are
within the target (sat at most 3x cpsat). Then the size of the sat CNF for
the order-30 lsencode files, beside the "3-D" encoding numbers of lsencode
(``pls2sat``) where they are known.

Run from the repository root::

    python benchmarks/sat_peers.py                # everything (several minutes)
    python benchmarks/sat_peers.py --set lsencode  # one set
    python benchmarks/sat_peers.py --sat solver=kissat404,card=ladder  # other sat options
    python benchmarks/sat_peers.py --analyse qwh-o30-h374-04,qwh-o30-h374-02 \
        --configs "solver=kissat404;solver=cadical195" --repeat 3   # a few CSPLib files

``--analyse`` runs the named CSPLib instances ``--repeat`` times, cpsat and each
sat configuration of ``--configs`` (``;``-separated, ``k=v,k=v`` each) interleaved,
and prints per instance and system the median wall time, Model build + encoding,
loading the solver, search time, conflicts and clauses.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

try:
    from .sat_encodings import Run, qwh_csplib, qwh_lsencode, run_once
except ImportError:  # run as a script (python benchmarks/sat_peers.py): its folder is on sys.path
    from sat_encodings import Run, qwh_csplib, qwh_lsencode, run_once  # type: ignore[no-redef]

from futocp.backends.sat import SatBackend
from futocp.model import build_model

__all__ = ["LSENCODE_3D", "compare", "analyse", "main"]

TARGET = 3.0

#: Variables and clauses of lsencode's "3-D" SAT encoding, as reported for these files.
LSENCODE_3D = {"qwh.order30.holes316.pls": (1235, 8523)}


def compare(boards, cap: float, sat_options: dict[str, str] | None = None
            ) -> list[tuple[str, Run, Run]]:
    """sat (defaults, or ``sat_options``) and cpsat on every board, interleaved."""
    rows = []
    for name, board in boards:
        sat = run_once(board, {"backend": "sat", **(sat_options or {})}, cap)
        cpsat = run_once(board, {"backend": "cpsat"}, cap)
        rows.append((name, sat, cpsat))
        print(f"  {name:<34} sat {sat.seconds:8.3f}s {sat.status:<7} "
              f"cpsat {cpsat.seconds:8.3f}s {cpsat.status:<7} "
              f"ratio {sat.seconds / cpsat.seconds:6.2f}"
              f"{'' if sat.verified and cpsat.verified else '  NOT VERIFIED'}", flush=True)
    return rows


def summary(title: str, rows: Sequence[tuple[str, Run, Run]]) -> list[str]:
    """Markdown: per-instance table, then medians and ratios."""
    lines = [f"#### {title}", "", "| instance | sat s | cpsat s | sat / cpsat | sat clauses |",
             "|---|---:|---:|---:|---:|"]
    ratios = []
    for name, sat, cpsat in rows:
        ratio = sat.seconds / cpsat.seconds
        ratios.append(ratio)
        flag = "" if sat.verified and cpsat.verified else f" ({sat.status}/{cpsat.status})"
        lines.append(f"| {name} | {sat.seconds:.3f} | {cpsat.seconds:.3f} | {ratio:.2f}{flag} | "
                     f"{sat.stats.get('clauses', 0):,} |")
    within = sum(1 for r in ratios if r <= TARGET)
    failed = sum(1 for _, s, c in rows if not (s.verified and c.verified))
    lines += ["", f"median sat {statistics.median(r[1].seconds for r in rows):.3f}s, "
                  f"median cpsat {statistics.median(r[2].seconds for r in rows):.3f}s; "
                  f"sat / cpsat: median {statistics.median(ratios):.2f}, "
                  f"max {max(ratios):.2f}, min {min(ratios):.2f}; "
                  f"within {TARGET:g}x: {within}/{len(rows)}; unverified or unfinished: {failed}"]
    return lines


def cnf_sizes(boards) -> list[str]:
    """Markdown: the sat CNF (defaults, and pairwise without simplification) of order-30 files."""
    lines = ["| file | holes | sat vars | sat clauses | no-simplify vars | no-simplify clauses "
             "| lsencode 3-D vars | lsencode 3-D clauses |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    backend = SatBackend()
    for name, board in boards:
        if board.k != 30:
            continue
        model = build_model(board)
        form = backend.compile(model)
        raw = backend.compile(model, simplify=False)
        ref = LSENCODE_3D.get(name)
        ref_txt = f"{ref[0]:,} | {ref[1]:,}" if ref else "- | -"
        lines.append(f"| {name} | {board.n_cells - len(board.clues)} | {form.n_vars:,} | "
                     f"{form.n_clauses:,} | {raw.n_vars:,} | {raw.n_clauses:,} | {ref_txt} |")
    return lines


def _options(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in text.split(",") if kv)


def analyse(names: Sequence[str], configs: Sequence[str], repeat: int, cap: float) -> list[str]:
    """cpsat and each sat config on the named CSPLib instances, ``repeat`` rounds
    interleaved; markdown medians per instance and system."""
    boards = [(n, b) for n, b in qwh_csplib() if n.removesuffix(".dzn") in names]
    systems = [("cpsat", {"backend": "cpsat"})]
    systems += [(f"sat {c or 'defaults'}", {"backend": "sat", **_options(c)}) for c in configs]
    runs: dict[tuple[str, str], list[Run]] = {}
    for rnd in range(repeat):
        for name, board in boards:
            for label, config in systems:
                run = run_once(board, config, cap)
                runs.setdefault((name, label), []).append(run)
                print(f"  round {rnd + 1} {name} {label}: {run.seconds:.3f}s {run.status}"
                      f"{'' if run.verified else ' NOT VERIFIED'}", flush=True)

    def med(rs: Sequence[Run], key: str) -> str:
        xs = [r.stats[key] for r in rs if key in r.stats]
        return f"{statistics.median(xs):,.3f}".rstrip("0").rstrip(".") if xs else "-"

    lines = ["| instance | system | wall s | encode s | load s | search s | conflicts | clauses |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, _ in boards:
        for label, _ in systems:
            rs = runs[(name, label)]
            wall = statistics.median(r.seconds for r in rs)
            bad = sum(1 for r in rs if not r.verified)
            lines.append(f"| {name.removesuffix('.dzn')} | {label} | {wall:.3f}"
                         f"{f' ({bad} failed)' if bad else ''} | {med(rs, 'build_s')} | "
                         f"{med(rs, 'load_s')} | {med(rs, 'solve_s')} | {med(rs, 'conflicts')} | "
                         f"{med(rs, 'clauses')} |")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("all", "csplib", "lsencode"), default="all")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds before a run is killed")
    parser.add_argument("--max-order", type=int, default=40)
    parser.add_argument("--sat", default="", help="sat options instead of the defaults: k=v,k=v")
    parser.add_argument("--analyse", default="", help="CSPLib instance names, comma-separated")
    parser.add_argument("--configs", default="", help="sat configs for --analyse: a=1,b=2;c=3")
    parser.add_argument("--repeat", type=int, default=3, help="rounds for --analyse")
    args = parser.parse_args(argv)
    if args.analyse:
        lines = analyse(args.analyse.split(","), args.configs.split(";"), args.repeat, args.cap)
        print()
        print("\n".join(lines))
        return
    sat_options = _options(args.sat)
    defaults = {o.name: o.default for o in SatBackend.options}
    print(f"sat defaults: {defaults}; sat options: {sat_options or 'defaults'}; "
          f"cpsat defaults; cap {args.cap:g}s")
    out: list[str] = []
    if args.set in ("all", "csplib"):
        print("CSPLib QWH order 30")
        out += summary("CSPLib 067 QWH order 30 (40 instances)", compare(qwh_csplib(), args.cap,
                                                                         sat_options))
        out.append("")
    lsencode = qwh_lsencode(args.max_order)
    if args.set in ("all", "lsencode"):
        print(f"lsencode QWH, order <= {args.max_order}")
        out += summary(f"lsencode QWH, order <= {args.max_order}", compare(lsencode, args.cap,
                                                                              sat_options))
        out.append("")
    out += ["#### CNF size, order-30 lsencode files", ""] + cnf_sizes(lsencode)
    print()
    print("\n".join(out))


if __name__ == "__main__":
    main()
