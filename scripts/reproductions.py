"""Write ``docs/reproductions.md`` (and its plots, ``docs/figures/repro-*``) from the runs.

Run from the repository root::

    python scripts/reproductions.py            # collect every registered reproduction's runs
    python scripts/reproductions.py --run      # run (or resume) each first, then collect
    python scripts/reproductions.py --quick    # the --quick runs instead (a smoke test)

For every reproduction of :data:`futocp.reproduce.REPRODUCTIONS` (in
registration order: R1's seed 000 and 004, then whatever else is registered)
the script reads the runs recorded in its output folder (the config's, under
``experiments/results/reproduce/``; the same folder ``futocp reproduce NAME``
writes), compares them with the paper, draws its plots and writes its section:
the command, the machine, how long the recorded runs took, the paper's table
with ours beside it, the plots and the verdict. A reproduction with no runs
recorded gets a section saying so and the command that makes them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from futocp.errors import FutocpError  # noqa: E402
from futocp.reproduce import REPRODUCTIONS, load_runs, run_reproduction  # noqa: E402
from futocp.reproduce.markdown import machine, markdown_section  # noqa: E402

INTRO = """# Reproductions of the seed papers

Each section re-runs one table (or the procedures) of a seed paper with futocp,
puts the paper's numbers beside ours, row by row, and gives a verdict (JSON key
`verdict`): `agrees`, `differs`, `not comparable` or `paper anomaly`. The
experiments, the paper data and the reading of each paper follow the project's
seed spec (its section 6 says what a fair reproduction of each paper needs);
none of the papers publishes its instances, so every comparison is against
instances generated with the same parameters, several per row.

How a verdict is reached (the same rule everywhere, `futocp.reproduce.core`):

* one number of the paper against a sample of ours: `agrees` when the paper's
  value -- or its own 95 % interval, where it reports mean ± std over k runs --
  meets the **bootstrap 95 % confidence interval of our median** (2000 seeded
  resamples), `differs` when it lies wholly outside (where the paper's value is one
  instance's, this asks whether it is what our median instance gives, a stricter
  question than whether it is a possible instance: seed 000's notes give its
  percentile among ours too); ours are shown as
  `median [low, high] n=N` (the interval), or `median [q1, q3] n=N` (quartiles)
  where nothing is judged;
* a run stopped by a limit (nodes, generations, time) counts as "at least the
  limit": a paper value below our interval still differs, but an interval (or a
  median) left open by such runs never agrees: `not comparable`;
* a row agrees only when every primary measure of the row agrees (seed 000's
  Table 2: FC-EN, FC-RN and BT-EN); a part of a row never makes the row agree;
* a property that holds by construction (FC explores no more nodes than BT in the
  same order; annealing's moves set by its cooling schedule; Algorithm 1's N) is a
  row of kind `sanity check`, shown as `sanity check: holds`, never counted as
  agreement; the same checks on the paper's own numbers flag its impossible rows;
* a paper value that is impossible or copied (seed 000 Table 2 rows 12, 30 and 52;
  Table 1 row 37; seed 002 Table 4 rows 6-7) is a `paper anomaly`, not a
  difference;
* where the paper states only a claim (a trend, "rarely solves", "outperforms in
  all instances"), the row says how the claim was tested.

How the recorded runs were made, and what was cut: every full run ran under
`nice -n 10` on a shared 2-core virtual machine whose load average stayed at 6-10
(other jobs), several reproductions at once. CPU times (seed 000) suffer little from
that; wall times do (seed 004's speed-ups, seed 001's time rows and its 20 s limit).
Cut to fit: seed 000's optional generators (`lexfirst`, `cyclic`) run on the first 5
instances of a row (`option_instances`), and a search stops at 2e6 explored nodes (3x
the paper's largest count); seed 001's annealing variants use 3 puzzles each (the
classes 5); seed 002's runs past 30 missing values use 5 puzzles per size and the
4 combinations the text names; seed 004's instances follow the paper's sequential
curve scaled to 3e6 nodes at 18x18 (the paper's 7e4-fold growth would need about
1e8 Python nodes per run there), with 3 repetitions.

Anyone can check that the rules can fail: `futocp reproduce NAME --papers DIR`
compares the same runs with the paper tables of another folder; with the papers'
compared measures multiplied by 3 (`tests/test_reproduce.py`), agreement vanishes.

Commands: `futocp reproduce --list`; `futocp reproduce NAME` runs one
(resumable: run it again to continue; `--executor dask --workers N` for the
long ones; `--quick` for a small subset); the configs are
`experiments/reproduce/*.yaml`, the paper's numbers `experiments/papers/*.csv`.
This page is generated by `python scripts/reproductions.py` from the recorded
runs; do not edit it by hand.
"""


def _span(df: Any) -> str:
    """How long the recorded runs took: first start to last end, and the run count."""
    import pandas as pd

    if df.empty or "started" not in df:
        return ""
    start = pd.to_datetime(df["started"], errors="coerce", utc=True)
    end = start + pd.to_timedelta(pd.to_numeric(df["runner_s"], errors="coerce"), unit="s")
    if start.isna().all():
        return ""
    minutes = (end.max() - start.min()).total_seconds() / 60
    if "host" not in df:  # a measurement's tasks (futocp.reproduce.measure): draws included
        timed = int(start.notna().sum())
        which = "" if timed == len(df) else f"; the span of the {timed} with a start time"
        return (f"{len(df)} tasks recorded{which}: from {start.min():%Y-%m-%d %H:%M} to "
                f"{end.max():%H:%M} UTC ({minutes:.0f} min of wall time, the instances' "
                f"drawing included)")
    hosts = ", ".join(sorted(str(h) for h in df["host"].dropna().unique()))
    return (f"{len(df)} runs recorded, from {start.min():%Y-%m-%d %H:%M} to "
            f"{end.max():%H:%M} UTC ({minutes:.0f} min of wall time, instance generation "
            f"excluded) on {hosts or 'an unknown host'}")


def summary(rows_by_name: dict[str, list[Any] | None]) -> str:
    """The verdict counts of every reproduction, in one table."""
    from futocp.reproduce import verdict_counts

    lines = ["## Summary", "",
             "| reproduction | comparisons | agrees | differs | not comparable | paper anomaly "
             "| sanity checks |", "|---|---|---|---|---|---|---|"]
    for name, rows in rows_by_name.items():
        if rows is None:
            lines.append(f"| [{name}](#{name}) | not run | | | | | |")
            continue
        c = verdict_counts(rows)
        sanity = c["sanity checks"]
        failing = c["sanity checks failing"]
        lines.append(f"| [{name}](#{name}) | {len(rows) - sanity} | {c['agrees']} | "
                     f"{c['differs']} | {c['not comparable']} | {c['paper anomaly']} | "
                     f"{sanity}{f' ({failing} fail)' if failing else ''} |")
    return "\n".join(lines) + "\n"


def section(name: str, quick: bool, run: bool, figures: Path, doc: Path,
            about: dict[str, Any]) -> tuple[str, list[Any] | None]:
    """One reproduction's section of the page, and its rows (None: not run)."""
    rep = REPRODUCTIONS[name]
    command = f"futocp reproduce {name}" + (" --quick" if quick else "")
    if run:
        run_reproduction(name, quick=quick, progress=False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = load_runs(name, quick)
    except FutocpError:
        return (f"## {name}: {rep.title}\n\nSource: {rep.source}. Not run here yet: "
                f"`{command}` makes the runs, then `python scripts/reproductions.py`.\n"), None
    rows = rep.compare(df, quick)
    figs = rep.figures(df, figures) if rep.figures is not None else []
    text = markdown_section(rep, rows, command, figs, doc.parent, about)
    span = _span(df)
    if span:
        text = text.replace(f"Source: {rep.source}.",
                            f"Source: {rep.source}. Runs: {span}.", 1)
    return text, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run (or resume) each reproduction "
                        "before collecting it")
    parser.add_argument("--quick", action="store_true", help="the --quick runs")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these reproductions only")
    parser.add_argument("--output", default=str(ROOT / "docs" / "reproductions.md"))
    args = parser.parse_args(argv)
    doc = Path(args.output)
    figures = doc.parent / "figures"
    about = machine()
    names = [n for n in REPRODUCTIONS if not args.only or n in args.only]
    sections, counts = [], {}
    for name in names:
        print(f"{name} ...", file=sys.stderr)
        text, rows = section(name, args.quick, args.run, figures, doc, about)
        sections.append(f'<a id="{name}"></a>\n\n' + text)
        counts[name] = rows
    parts = [INTRO,
             f"Generated {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC on "
             f"{about['cores']} cores ({about['cpu']}), load average {about['load']}.\n",
             "Contents: " + ", ".join(f"[{n}](#{n})" for n in names) + ".\n",
             summary(counts), *sections]
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
