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
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sat_encodings import Run, qwh_csplib, qwh_lsencode, run_once  # noqa: E402

from futocp.backends.sat import SatBackend  # noqa: E402
from futocp.model import build_model  # noqa: E402

__all__ = ["LSENCODE_3D", "compare", "main"]

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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("all", "csplib", "lsencode"), default="all")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds before a run is killed")
    parser.add_argument("--max-order", type=int, default=40)
    parser.add_argument("--sat", default="", help="sat options instead of the defaults: k=v,k=v")
    args = parser.parse_args(argv)
    sat_options = dict(kv.split("=", 1) for kv in args.sat.split(",") if kv)
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
