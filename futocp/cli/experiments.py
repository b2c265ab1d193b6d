"""``futocp run``, ``report`` and ``reproduce``: experiment configs, their reports, and
the seed papers' tables (:mod:`futocp.experiments`, :mod:`futocp.reproduce`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any

from ..errors import UsageError, did_you_mean
from .common import EXIT_OK, EXIT_UNKNOWN, parse_opts, print_json

__all__ = ["add_commands", "cmd_run", "cmd_report", "cmd_reproduce"]

def cmd_run(args: argparse.Namespace) -> int:
    """``futocp run``: the runs of an experiment config not recorded yet, then a summary."""
    from ..experiments.report import read_records
    from ..experiments.runner import run_experiment

    s = run_experiment(args.config, fresh=args.fresh, workers=args.workers)
    if s.moved:
        print(f"moved the old results to {s.moved}")
    statuses = ", ".join(f"{n} {k}" for k, n in sorted(s.statuses.items()))
    print(f"{s.planned} runs planned, {s.skipped} already recorded, {s.done} done now"
          + (f" ({statuses})" if statuses else ""))
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        records = read_records(s.results) if os.path.exists(s.results) else []
    for note in notes:
        print(f"note: {note.message}")
    wrong = sum(r.get("verified") is False for r in records)
    disagreeing = sum(bool(r.get("disagreement")) for r in records)
    print(f"{len(records)} records in {s.results}: {wrong} wrong, {disagreeing} disagreeing")
    print(f"report: futocp report {s.output}")
    return EXIT_UNKNOWN if wrong or disagreeing else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    """``futocp report``: the files; on a terminal readable tables (rich, fitted to its
    width), else the Markdown of ``summary.md`` (for a pipe or a file)."""
    from ..experiments.report import print_report, report

    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        summary = report(args.output, by=args.by, metric=args.metric)
    for note in notes:
        print(f"futocp: note: {note.message}", file=sys.stderr)
    if sys.stdout.isatty():
        print_report(summary)
    else:
        with open(summary.attrs["markdown"], encoding="utf-8") as fh:
            print(fh.read())
    print("wrote " + ", ".join(summary.attrs["files"]))
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add the ``run``, ``report`` and ``reproduce`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("run", help="run an experiment config (resumes where it stopped)")
    p.add_argument("config", help="experiment YAML file (see docs/experiments.md)")
    p.add_argument("--fresh", action="store_true", help="move old results aside and start over")
    p.add_argument("--workers", type=int, metavar="N", help="runs in parallel (overrides config)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="summary tables and plots of an experiment's results",
                       description="Write summary.csv, summary.md (the tables in Markdown) and "
                       "the plots into the output folder. On a terminal it prints the tables "
                       "fitted to its width; into a pipe or a file, the Markdown.")
    p.add_argument("output", help="the experiment's output folder")
    p.add_argument("--by", help="grouping columns, e.g. family,size (default: the config's)")
    p.add_argument("--metric", help="time column: wall_s, solve_s or build_s (default wall_s)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("reproduce", help="re-run a seed paper's table and compare with the "
                       "paper (docs/reproductions.md)")
    p.add_argument("name", nargs="?", help="the reproduction (see --list)")
    p.add_argument("--list", action="store_true", help="list the reproductions")
    p.add_argument("--quick", action="store_true", help="a small seeded subset (seconds)")
    p.add_argument("--json", action="store_true",
                   help='print one JSON object {"name": NAME, "rows": [...]}')
    p.add_argument("--output", metavar="DIR", help="output folder; running again into it "
                   "resumes (default: the config's, experiments/results/reproduce/...)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local processes or a Dask cluster (default: local)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="runs in parallel (default: 1, fair timing)")
    p.add_argument("--markdown", metavar="FILE", help="also write the Markdown section (table, "
                   "plots in figures/ beside it, verdict) to FILE (default: none)")
    p.add_argument("--papers", metavar="DIR", help="read the paper tables (CSV) from DIR "
                   "(default: experiments/papers): the same runs against other numbers")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="an option of the reproduction (repeatable; docs/reproductions.md), "
                   "e.g. seed-000's generators=uniform,btfirst,lexfirst,cyclic or "
                   "seed-004-parallel's ordered=false")
    p.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    """``futocp reproduce``: a seed paper's table re-run and compared (``--list``: which)."""
    from .. import reproduce as rp

    if args.list:
        for rep in rp.REPRODUCTIONS.values():
            print(f"{rep.name:<22} {rep.source}: {rep.title}")
        return EXIT_OK
    if not args.name:
        raise UsageError("give a reproduction name, or --list")
    if args.name not in rp.REPRODUCTIONS:
        raise UsageError(f"unknown reproduction {args.name!r}"
                         + (did_you_mean(args.name, rp.REPRODUCTIONS)
                            or f" (known: {', '.join(rp.REPRODUCTIONS)})"))
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    with rp.using_papers(args.papers):
        return _reproduce(args)


def _reproduce(args: argparse.Namespace) -> int:
    """``futocp reproduce NAME``, inside the paper tables' folder."""
    from .. import reproduce as rp
    from ..reproduce.markdown import markdown_section, table_rows, text_table

    rows = rp.run_reproduction(args.name, quick=args.quick, output=args.output,
                               executor=args.executor, workers=args.workers,
                               progress=None if not args.json else False, papers=args.papers,
                               options=parse_opts(args.opt))
    rep = rp.REPRODUCTIONS[args.name]
    if args.json:
        print_json({"name": args.name, "rows": [r.to_json() for r in rows]})
    else:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            print(text_table(rows))
        else:
            table = Table(title=f"{rep.name}: {rep.source}", show_lines=True)
            for head in ("row", "paper", "ours", "verdict", "note"):
                table.add_column(head, overflow="fold")
            for cells in table_rows(rows, sep="\n"):
                table.add_row(*cells)
            Console().print(table)
        if rep.verdict is not None:
            print(rep.verdict(rows))
    if args.markdown:
        from pathlib import Path

        target = Path(args.markdown)
        target.parent.mkdir(parents=True, exist_ok=True)
        figures = []
        if rep.figures is not None:
            figures = rep.figures(rp.load_runs(args.name, args.quick, args.output),
                                  target.parent / "figures")
        command = f"futocp reproduce {args.name}" + (" --quick" if args.quick else "")
        target.write_text(markdown_section(rep, rows, command, figures, target.parent) + "\n",
                          encoding="utf-8")
        if not args.json:
            print(f"wrote {target}")
    return EXIT_OK
