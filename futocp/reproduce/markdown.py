"""Reproduction rows as text: a terminal table, a Markdown section, the machine.

:func:`format_value` writes one value of a row (a median with its quartiles
as ``median [q1, q3] n=N``), :func:`table_rows` the cells of a row (key,
paper, ours, verdict, note), :func:`markdown_section` a reproduction's
section of ``docs/reproductions.md`` (command, machine, the paper's values
beside ours, plots, verdict), :func:`machine` the machine it ran on.

Example:
    >>> format_value({"median": 2.5, "q1": 2, "q3": 3.25, "n": 20})
    '2.5 [2, 3.25] n=20'
    >>> format_value({"mean": 1.0, "std": 0.5, "n": 4})
    '1 ± 0.5 n=4'
    >>> format_value(float("inf"))
    '>limit'
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .core import Reproduction, Row, verdict_counts

__all__ = ["format_value", "format_mapping", "table_rows", "text_table", "markdown_table",
           "markdown_section", "machine", "verdict_cell", "counts_line", "HEADERS"]

HEADERS = ("key", "paper", "ours", "verdict", "note")


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if math.isinf(x):
            return ">limit"
        return f"{x:.4g}" if abs(x) < 1000 else f"{x:.0f}"
    return str(x)


def format_value(value: Any) -> str:
    """One value: numbers to 4 significant digits, ``median [q1, q3] n=N``,
    ``median [95 % CI] n=N, k at the limit`` (a :func:`compare_sample` detail),
    ``mean ± std n=N``; inf (a run stopped by its limit) is ``>limit``."""
    if isinstance(value, Mapping):
        if "median" in value and "ci" in value:
            if value.get("n", 1) == 0:
                return "-"
            lo, hi = (list(value["ci"]) + [None, None])[:2]
            censored = value.get("censored")
            return (f"{_num(value['median'])} [{_num(lo)}, {_num(hi)}] n={value.get('n')}"
                    + (f", {censored} at the limit" if censored else ""))
        if "median" in value:
            if value.get("n", 1) == 0:
                return "-"
            return (f"{_num(value['median'])} [{_num(value.get('q1'))}, "
                    f"{_num(value.get('q3'))}] n={value.get('n')}")
        if "mean" in value:
            return f"{_num(value['mean'])} ± {_num(value.get('std'))} n={value.get('n')}"
        return format_mapping(value)
    return _num(value)


def format_mapping(mapping: Mapping[str, Any], sep: str = "; ") -> str:
    """``key=value`` pairs."""
    return sep.join(f"{k}={format_value(v)}" for k, v in mapping.items())


def verdict_cell(row: Row) -> str:
    """The verdict as a table shows it: a sanity check says so, and whether it holds.

    Example:
        >>> verdict_cell(Row({"n": 1}, {}, {"check": "holds"}, "not comparable",
        ...                  kind="sanity check"))
        'sanity check: holds'
    """
    if row.kind == "sanity check":
        return f"sanity check: {row.ours.get('check', '?')}" + (
            " (paper anomaly)" if row.verdict == "paper anomaly" else "")
    return row.verdict


def counts_line(rows: Sequence[Row]) -> str:
    """``N comparisons (a agree, d differ, ...); S sanity checks (all hold)``."""
    c = verdict_counts(rows)
    comparisons = len(rows) - c["sanity checks"]
    text = (f"{comparisons} comparisons ({c['agrees']} agree, {c['differs']} differ, "
            f"{c['not comparable']} not comparable, {c['paper anomaly']} paper anomalies)")
    if c["sanity checks"]:
        failing = c["sanity checks failing"]
        text += (f"; {c['sanity checks']} sanity checks "
                 f"({'all hold' if not failing else f'{failing} fail'})")
    return text


def table_rows(rows: Iterable[Row], sep: str = "; ") -> list[tuple[str, str, str, str, str]]:
    """The cells of each row: key, paper, ours, verdict, note."""
    return [(format_mapping(r.key, " "), format_mapping(r.paper, sep),
             format_mapping(r.ours, sep), verdict_cell(r), r.note) for r in rows]


def text_table(rows: Sequence[Row]) -> str:
    """A plain-text table (one block per row), for terminals without rich."""
    out = []
    for key, paper, ours, verdict, note in table_rows(rows):
        out.append(f"{key}: {verdict}\n  paper: {paper}\n  ours:  {ours}"
                   + (f"\n  note:  {note}" if note else ""))
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _columns(rows: Sequence[Row], part: str) -> list[str]:
    cols: dict[str, None] = {}
    for r in rows:
        for k in getattr(r, part):
            cols.setdefault(k, None)
    return list(cols)


def markdown_table(rows: Sequence[Row]) -> str:
    """The rows as one Markdown table: the key's columns, then each of the paper's
    values beside ours (``paper: X`` / ``ours: Y``), verdict and note."""
    keys = _columns(rows, "key")
    paper_cols = _columns(rows, "paper")
    ours_cols = [c for c in _columns(rows, "ours") if c not in paper_cols]
    head = [*keys]
    for c in paper_cols:
        head += [f"paper {c}", f"ours {c}"]
    head += [f"ours {c}" for c in ours_cols] + ["verdict", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [format_value(r.key.get(k)) for k in keys]
        for c in paper_cols:
            cells += [format_value(r.paper.get(c)), format_value(r.ours.get(c))]
        cells += [format_value(r.ours.get(c)) for c in ours_cols]
        cells += [verdict_cell(r), r.note]
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join(lines)


def _blocks(rows: Sequence[Row]) -> list[list[Row]]:
    """Consecutive rows in one table while their keys nest (a row's key names are a
    subset or a superset of the table's so far) and they are of one kind; rows of
    another kind (a baseline beside the main table, the sanity checks) start a
    new table."""
    blocks: list[list[Row]] = []
    names: set[str] = set()
    for r in rows:
        mine = set(r.key)
        if blocks and blocks[-1][0].kind == r.kind and (mine <= names or names <= mine):
            blocks[-1].append(r)
            names |= mine
        else:
            blocks.append([r])
            names = mine
    return blocks


def machine() -> dict[str, Any]:
    """Cores, CPU model, load average, OS and Python of this machine."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = tuple(round(x, 2) for x in os.getloadavg())
    except OSError:
        load = None
    return {"cores": os.cpu_count(), "cpu": model, "load": load,
            "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


def markdown_section(rep: Reproduction, rows: Sequence[Row], command: str,
                     figures: Sequence[Path] = (), relative_to: Path | None = None,
                     about_machine: Mapping[str, Any] | None = None, level: int = 2) -> str:
    """A reproduction's section: title, command, machine, table, plots, verdict."""
    about = dict(about_machine or machine())
    out = [f"{'#' * level} {rep.name}: {rep.title}", "",
           f"Source: {rep.source}. Command: `{command}`.", "",
           f"Machine: {about.get('cores')} cores, {about.get('cpu')}, load average "
           f"{about.get('load')} (1, 5, 15 min) when the table was written; "
           f"{about.get('os')}, Python {about.get('python')}."]
    if rep.full_run:
        out += ["", f"Full run: {rep.full_run}"]
    out += ["", f"Rows: {counts_line(rows)}.", ""]
    out += ["\n\n".join(markdown_table(block) for block in _blocks(rows)), ""]
    for fig in figures:
        rel = os.path.relpath(fig, relative_to) if relative_to else str(fig)
        out += [f"![{rep.name}]({Path(rel).as_posix()})", ""]
    if rep.verdict is not None:
        out += [f"**Verdict.** {rep.verdict(list(rows))}", ""]
    return "\n".join(out)
