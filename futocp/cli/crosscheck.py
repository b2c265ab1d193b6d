"""``futocp crosscheck``: several backends on the same model, their answers compared.

One instance: a table, a row per backend as it finishes. A collection: one
summary per backend, with a progress bar on a terminal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..crosscheck import (
    COUNTERS,
    DEFAULT_TIME_LIMIT,
    SMALL_MODEL_CELLS,
    backend_summary,
    choose_backends,
    crosscheck,
    disagreements,
    left_out,
)
from .common import (
    EXIT_OK,
    EXIT_UNKNOWN,
    add_instances,
    add_search,
    input_name,
    inputs,
    print_json,
    source_of,
    with_run_limits,
)

__all__ = ["add_commands", "cmd_crosscheck"]

TABLE_WIDTH = 100  # the crosscheck tables fit 100 columns
_ROW = "{:<14} {:<8} {:>5} {:<3} {:<3} {:<17} {:>8} {:>8} {:>8}  {}"
_HEAD = _ROW.format("backend", "status", "found", "all", "ok", "stopped", "build_s", "solve_s",
                    "wall_s", "counters")
_LEGEND = ("found: solutions found (up to --limit); all: the search proved there are no more;\n"
           "ok: every solution verified; stopped: what ended the search (a move or generation\n"
           "budget is an incomplete backend's own end, no failure); *: stopped by the time limit")


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, at a space where it can be (``...`` marks a cut)."""
    if len(text) <= width:
        return text
    cut = text[:max(width - 4, 0)]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + " ..."


def _crosscheck_row(r: dict[str, Any]) -> str:
    """One backend's row of the crosscheck table (at most :data:`TABLE_WIDTH` columns)."""
    room = TABLE_WIDTH - len(_ROW.format(*[""] * 10))
    if r["status"] == "error":
        head = f"{r['backend']:<14} {'error':<8} "
        return head + _fit(str(r["reason"]), TABLE_WIDTH - len(head))
    counters = " ".join(f"{k}={r['counters'][k]}" for k in COUNTERS
                        if k in r.get("counters", {})
                        and k not in ("removed_values", "fixed_cells"))
    status = r["status"] + ("*" if r.get("time_limited") else "")
    return _ROW.format(r["backend"], status, r["n_solutions"], "yes" if r["exhausted"] else "no",
                       "NO" if r["verified"] is False else "yes" if r["verified"] else "-",
                       r.get("stopped", "-"), f"{r['build_s']:.4f}",
                       f"{r['solve_s']:.4f}", f"{r['wall_s']:.4f}", _fit(counters or "-", room))


def _crosscheck_table(rows: list[dict[str, Any]]) -> str:
    return "\n".join([_HEAD, *(_crosscheck_row(r) for r in rows)])


def _summary_table(summary: list[dict[str, Any]]) -> str:
    row = "{:<14} {:>11} {:>11} {:>8} {:>6} {:>6} {:>10} {:>10}"
    lines = [row.format("backend", "solved", "agreed", "timeout", "error", "wrong", "median_s",
                        "total_s")]
    for s in summary:
        n = s["instances"]
        lines.append(row.format(
            s["backend"], f"{s['solved']}/{n}", f"{s['agreed']}/{n}", s["time_limited"],
            s["errors"], s["failed_verification"],
            "-" if s["median_s"] is None else f"{s['median_s']:.4f}",
            "-" if s["total_s"] is None else f"{s['total_s']:.3f}"))
    return "\n".join(lines)


class _Progress:
    """Progress over a collection on stderr: rich's bar on a terminal (a counter
    without rich), nothing when stderr is not a terminal."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.done = total, 0
        self.bar: Any = None  # a rich.progress.Progress
        self.task: Any = None
        self.live = sys.stderr.isatty() and total > 1
        if self.live:
            try:
                from rich.console import Console
                from rich.progress import Progress

                self.bar = Progress(console=Console(stderr=True), transient=True)
                self.task = self.bar.add_task(label, total=total)
                self.bar.start()
            except ImportError:
                self.bar = None

    def advance(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.advance(self.task)
        elif self.live:
            print(f"\r{self.done}/{self.total}", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        elif self.live:
            print("\r", end="", file=sys.stderr, flush=True)


@with_run_limits
def cmd_crosscheck(args: argparse.Namespace) -> int:
    """``futocp crosscheck``: one table (streamed row by row) for one instance; one
    summary per backend for a collection. Exit 1 on a disagreement, a failed
    verification or a backend stopped by its time limit."""
    instances = inputs(args)
    limit = None if args.all else args.limit
    choose_backends(args.backends)  # a misspelt backend is refused before any run
    single = len(instances) == 1
    stream = single and not args.json
    if stream:
        print(_HEAD, flush=True)
    reports = []
    progress = _Progress(len(instances), "crosscheck") if not single else None
    try:
        for name, board in instances:
            rows = crosscheck(board, args.backends, limit=limit, time_limit=args.time_limit,
                              filtering=args.filtering, seed=args.seed,
                              on_record=(lambda r: print(_crosscheck_row(r), flush=True))
                              if stream else None)
            reports.append((name, rows, disagreements(rows, limit)))
            if progress is not None:
                progress.advance()
    finally:
        if progress is not None:
            progress.close()
    agree = not any(problems for _, _, problems in reports)
    late = sorted({r["backend"] for _, rows, _ in reports for r in rows if r.get("time_limited")})
    summary = backend_summary([rows for _, rows, _ in reports])
    if args.json:
        out: dict[str, Any] = {"instance": input_name(args), "agree": agree,
                               "time_limited": late}
        if single:
            out.update(rows=reports[0][1], problems=reports[0][2])
        else:
            out["backends"] = summary
            out["instances"] = [{"index": k, "instance": name, "rows": rows,
                                 "problems": problems, "agree": not problems}
                                for k, (name, rows, problems) in enumerate(reports, 1)]
        print_json(out)
    elif single:
        print(_LEGEND)
        if args.backends == "default":
            for name, why in left_out(instances[0][1].n_cells).items():
                print(_fit(f"not run: {name}, {why}", TABLE_WIDTH))
        for p in reports[0][2]:
            print(f"DISAGREEMENT: {p}")
        print("all backends agree" if agree else "backends DISAGREE")
    else:
        print(f"{len(instances)} instances from {source_of(args)}, limit {limit}"
              + (f", time limit {args.time_limit:g} s" if args.time_limit else ""))
        print(_summary_table(summary))
        bad = [(name, problems) for name, _, problems in reports if problems]
        for name, problems in bad[:10]:
            print(f"DISAGREEMENT {name}: {problems[0]}")
        if len(bad) > 10:
            print(f"... and {len(bad) - 10} more (--json lists them all)")
        print(f"{len(instances)} instance(s), {len(bad)} with a disagreement or failed "
              "verification")
    if late and not args.json:
        print(f"stopped by the time limit: {', '.join(late)} (exit code 1)")
    return EXIT_OK if agree and not late else EXIT_UNKNOWN


_DESCRIPTION = """\
Every chosen backend solves the same model; every solution is verified; statuses and counts are
compared. One instance: a table, a row per backend as it finishes. A collection: one summary per
backend (solved, agreed, median time), with a progress bar on a terminal. By default it answers in
seconds: the solvers a user compares, each with a time limit of {time_limit:g} s. The column
'stopped' says what ended each search: found, exhausted, time limit, or an incomplete backend's own
move or generation budget (no failure). Exit 0 when every backend finished and they agree; 1 on a
disagreement, a failed verification, or a backend stopped by the time limit."""


def add_commands(sub: Any) -> None:
    """Add the ``crosscheck`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("crosscheck", help="run several backends on an instance and compare",
                       description=_DESCRIPTION.format(time_limit=DEFAULT_TIME_LIMIT))
    add_instances(p, "a collection: every puzzle, then one summary per backend")
    p.add_argument("--backends", default="default",
                   help="default (cpsat, sat, listcolor, minizinc, and pyconstraint on models "
                        f"of at most {SMALL_MODEL_CELLS} cells: those available here), "
                        "complete (every available complete one: adds the seeds' bt, fc, mac, "
                        "colorfutoshiki), all (adds anneal, genetic) or a,b,c "
                        "(default: default)")
    add_search(p, default_limit=2, per="per backend", default_time_limit=DEFAULT_TIME_LIMIT)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_crosscheck)
