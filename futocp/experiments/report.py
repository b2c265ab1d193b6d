"""Results as tables and plots: ``load``, ``summarize``, ``report``.

:func:`load` reads ``OUTPUT/results.jsonl`` into a pandas DataFrame (one row
per run; the backend's counters become columns; ``solved`` and
``disagreement`` are added). :func:`summarize` groups it per (instance group,
backend label): runs, solved, unknown, errors, wrong answers, disagreements,
mean / std / median of a time column over the solved runs, and the mean
counters (nodes, removed values, conflicts...). :func:`report` writes into
OUTPUT ``summary.csv``, ``summary.md`` (that table, then the two layouts of
seed 000: time mean ± std per backend as in its Table 1, counters per backend
as in its Table 2) and two PNG plots: time against size per backend (log
scale: the median, error bars from the first to the third quartile, so that
no bar runs below zero) and a cactus plot (instances solved within a time,
per backend). Every backend has its own colour and marker, the same in every
plot (:func:`backend_style`). :func:`print_report` shows the tables on a
terminal, fitted to its width (rich); the Markdown goes to ``summary.md``.

A run *disagrees* when its status or solution count contradicts another run
on the same instance and limit (the rules of :func:`futocp.crosscheck.disagreements`:
only final answers of complete backends count). A run is *wrong* when one of
its solutions failed :func:`futocp.verify`.

pandas and matplotlib are imported when these functions are called.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import warnings
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..backends import REGISTRY, counter_names
from ..errors import InputError, UsageError
from .runner import PLAN, RESULTS, read_jsonl

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["load", "read_records", "summarize", "report", "plot_time_vs_size", "plot_cactus",
           "to_markdown", "print_report", "backend_style", "log_error_bars", "COUNTER_COLUMNS",
           "COLOURS", "MARKERS"]

#: Counters averaged in the summary, when the backends report them.
COUNTER_COLUMNS = counter_names()  # every backend's counters (a union over the REGISTRY)
SOLVED = ("sat", "unsat")


def _results_path(output: str | os.PathLike[str]) -> str:
    path = os.fspath(output)
    return os.path.join(path, RESULTS) if os.path.isdir(path) else path


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(f"{module.split('.')[0]} is needed for reports; install it with: "
                         f"pip install 'futocp[experiments]'") from None


def _plan(path: str) -> dict[str, Any] | None:
    """``OUTPUT/plan.json``: the run ids and labels of the config last run there."""
    try:
        with open(os.path.join(os.path.dirname(path), PLAN), encoding="utf-8") as fh:
            doc = json.load(fh)
        return doc if isinstance(doc.get("run_ids"), list) else None
    except (OSError, ValueError, AttributeError):
        return None


def read_records(output: str | os.PathLike[str], stale: bool = False) -> list[dict[str, Any]]:
    """The records of a results file (or of ``OUTPUT/results.jsonl``), with ``disagreement``.

    A line that is not JSON (the torn last line of a killed run) is skipped with a
    warning. Records whose run is not in ``OUTPUT/plan.json`` (runs of an earlier
    version of the config) are left out unless ``stale`` is True.
    """
    path = _results_path(output)
    if not os.path.exists(path):
        raise InputError("no results here (run the experiment first)", path)
    records, torn = read_jsonl(path)
    if torn:
        warnings.warn(f"{path}: skipped {torn} unreadable line(s) (a run killed while writing)",
                      stacklevel=2)
    doc = None if stale else _plan(path)
    if doc is not None:
        planned = set(doc["run_ids"])
        kept = [r for r in records if r.get("run_id") in planned]
        if len(kept) < len(records):
            warnings.warn(f"{path}: left out {len(records) - len(kept)} record(s) of runs the "
                          f"config no longer has (load(..., stale=True) keeps them)", stacklevel=2)
        records = kept
    _flag_disagreements(records)
    return records


def _flag_disagreements(records: list[dict[str, Any]]) -> None:
    from ..crosscheck import disagreements

    groups: dict[tuple[str, Any], list[dict[str, Any]]] = defaultdict(list)
    for rec in records:
        groups[(rec.get("instance_hash", ""), rec.get("limit"))].append(rec)
    for (_, limit), recs in groups.items():
        # the records are RunRecords: compare them as crosscheck does (verification
        # failures are counted apart, as "wrong")
        rows = [{**r, "backend": r.get("label", r.get("backend")), "verified": True,
                 "complete": r.get("complete",
                                   getattr(REGISTRY.get(r.get("backend", "")), "complete", True)),
                 "n_solutions": r.get("n_solutions", 0), "exhausted": bool(r.get("exhausted"))}
                for r in recs]
        disagreements(rows, limit)
        for rec, row in zip(recs, rows, strict=True):
            rec["disagreement"] = not row["agrees"]


def load(output: str | os.PathLike[str], stale: bool = False) -> pd.DataFrame:
    """One row per run of ``OUTPUT/results.jsonl`` (or of a results file).

    Columns: the record fields (docs/experiments.md), each counter of the
    backends as its own column, ``solved`` (sat or unsat) and ``disagreement``.
    Runs the config no longer has are left out unless ``stale`` is True.
    """
    pd = _need("pandas")
    records = read_records(output, stale)
    rows = []
    for rec in records:
        row = {k: v for k, v in rec.items() if k != "counters"}
        for key, value in (rec.get("counters") or {}).items():
            row[key if key not in rec else f"counter_{key}"] = value
        rows.append(row)
    df = pd.DataFrame(rows)
    if not df.empty:
        df["solved"] = df["status"].isin(SOLVED)
    doc = _plan(_results_path(output))
    df.attrs["labels"] = list(doc.get("labels", [])) if doc else []
    return df


# ------------------------------------------------------------------ tables
def _order(values: Sequence[Any]) -> list[Any]:
    seen: dict[Any, None] = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def _labels(df: pd.DataFrame) -> list[Any]:
    """Backend labels in the config's order (``plan.json``), else in order of appearance."""
    known = [lab for lab in df.attrs.get("labels", []) if lab in set(df["label"])]
    return known + [lab for lab in _order(df["label"]) if lab not in known]


def summarize(df: pd.DataFrame, by: Sequence[str] = ("family", "size"),
              metric: str = "wall_s") -> pd.DataFrame:
    """Per (``by`` columns, backend label): counts, time statistics and mean counters.

    Time statistics (``METRIC_mean``, ``METRIC_std``, ``METRIC_median``) are over
    the solved runs; ``runs - solved`` runs hit the time limit or failed.

    Raises:
        UsageError: for a column the results do not have.
    """
    pd = _need("pandas")
    by = list(by)
    for col in [*by, metric]:
        if col not in df.columns:
            known = ", ".join(c for c in df.columns if not str(c).startswith("_"))
            raise UsageError(f"the results have no column {col!r} (columns: {known})")
    counters = [c for c in COUNTER_COLUMNS if c in df.columns and df[c].notna().any()]
    labels = _labels(df)
    rows = []
    for key, group in df.groupby([*by, "label"], sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        solved = group[group["solved"]]
        times = pd.to_numeric(solved[metric], errors="coerce").dropna()
        row = dict(zip([*by, "label"], key, strict=True))
        row.update(
            runs=len(group), solved=int(group["solved"].sum()),
            unknown=int((group["status"] == "unknown").sum()),
            errors=int((group["status"] == "error").sum()),
            wrong=int((group["verified"] == False).sum()),  # noqa: E712 - None is not wrong
            disagreements=int(group["disagreement"].sum()),
            **{f"{metric}_mean": times.mean() if len(times) else math.nan,
               f"{metric}_std": times.std(ddof=1) if len(times) > 1 else math.nan,
               f"{metric}_median": times.median() if len(times) else math.nan})
        for c in counters:
            row[c] = pd.to_numeric(group[c], errors="coerce").mean()
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["_label_order"] = out["label"].map({lab: i for i, lab in enumerate(labels)})
    out = out.sort_values([*by, "_label_order"], kind="stable").drop(columns="_label_order")
    return out.reset_index(drop=True)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _cell(value: Any) -> str:
    if _missing(value):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def to_markdown(df: pd.DataFrame) -> str:
    """A DataFrame as a GitHub Markdown table."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines)


def _ms(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{value * 1000:.4g}"


def _wide_tables(summary: pd.DataFrame, by: list[str], metric: str) -> tuple[Any, Any]:
    """Seed 000's layouts: one row per group, one time column per backend; and the counters."""
    pd = _need("pandas")
    labels = _order(summary["label"])  # summarize() sorted them in the config's order
    counters = [c for c in COUNTER_COLUMNS if c in summary.columns]
    time_rows, counter_rows = [], []
    for key, group in summary.groupby(by, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        trow, crow = dict(zip(by, key, strict=True)), dict(zip(by, key, strict=True))
        for lab in labels:
            g = group[group["label"] == lab]
            if g.empty:
                trow[lab] = "–"
                continue
            r = g.iloc[0]
            scale = metric.endswith("_s")
            mean, std = r[f"{metric}_mean"], r[f"{metric}_std"]
            show = _ms if scale else _cell
            text = show(mean) if isinstance(std, float) and math.isnan(std) else \
                f"{show(mean)} ± {show(std)}"
            if r["solved"] < r["runs"]:
                text += f" ({r['solved']}/{r['runs']})"
            trow[lab] = text
            for c in counters:
                crow[f"{lab} {c}"] = _cell(r[c])
        time_rows.append(trow)
        counter_rows.append(crow)
    counters_df = pd.DataFrame(counter_rows).fillna("–")
    empty = [c for c in counters_df.columns if c not in by and (counters_df[c] == "–").all()]
    return pd.DataFrame(time_rows), counters_df.drop(columns=empty)


# --------------------------------------------------------------- terminal
def _not_solved(row: Any) -> str:
    """What became of the runs that did not solve: ``2 unknown, 1 error``."""
    parts = [(row["unknown"], "unknown"), (row["errors"], "error"), (row["wrong"], "wrong"),
             (row["disagreements"], "disagreeing")]
    return ", ".join(f"{int(n)} {what}" for n, what in parts if n) or "–"


def _count(value: float) -> str:
    """A mean counter for reading: ``33,140`` rather than ``3.314e+04``."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def print_report(summary: pd.DataFrame, console: Any = None) -> None:
    """The report's tables for a terminal (rich), fitted to its width.

    One table of the runs per group and backend (solved/runs, median and mean ±
    std of the metric, what became of the other runs) and one of the mean
    counters, both in long form (a row per group and backend), so that they fit
    any width; the wide layouts of seed 000 are in ``summary.md``.

    Args:
        summary: What :func:`report` returned (its ``attrs`` name the grouping
            columns, the metric and the title).
        console: A ``rich.console.Console`` (default: a new one on standard output).
    """
    rich_console = _need("rich.console")
    rich_table = _need("rich.table")
    box = _need("rich.box")
    console = console if console is not None else rich_console.Console()
    by = list(summary.attrs.get("by", [c for c in ("family", "size") if c in summary.columns]))
    metric = summary.attrs.get("metric", "wall_s")
    show = _ms if metric.endswith("_s") else _cell
    unit = " (ms)" if metric.endswith("_s") else ""
    if summary.attrs.get("title"):
        console.print(summary.attrs["title"], style="bold", markup=False)
    if summary.attrs.get("headline"):
        console.print(summary.attrs["headline"], markup=False)

    def table(title: str, headers: list[str], wrap: set[str]) -> Any:
        t = rich_table.Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                             pad_edge=False)
        for h in headers:
            numeric = h not in wrap and h not in by and h != "backend"
            t.add_column(h, justify="right" if numeric else "left", no_wrap=h not in wrap,
                         overflow="fold" if h in wrap else "ellipsis")
        return t

    runs = table(f"Runs per ({', '.join(by)}) and backend; `{metric}`{unit} of the solved runs",
                 [*by, "backend", "solved", "median", "mean ± std", "not solved"],
                 {"not solved"})
    counters = [c for c in COUNTER_COLUMNS if c in summary.columns]
    means = table("Mean counters per run", [*by, "backend", "counters"], {"counters"})
    previous = None
    for _, r in summary.iterrows():
        key = [_cell(r[c]) for c in by]
        new_group = previous is not None and key != previous
        if new_group:
            runs.add_section()
            means.add_section()
        previous = key
        mean, std = r[f"{metric}_mean"], r[f"{metric}_std"]
        spread = show(mean) if isinstance(std, float) and math.isnan(std) else \
            f"{show(mean)} ± {show(std)}"
        runs.add_row(*key, str(r["label"]), f"{int(r['solved'])}/{int(r['runs'])}",
                     show(r[f"{metric}_median"]), spread, _not_solved(r))
        said = [f"{c}={_count(r[c])}" for c in counters if not _missing(r[c])]
        if said:
            means.add_row(*key, str(r["label"]), ", ".join(said))
    console.print(runs)
    if means.row_count:
        console.print(means)


# ------------------------------------------------------------------ plots
#: Colours of the series: matplotlib's ten (tab10), then six more. A backend's colour is
#: COLOURS[i % 16] and its marker MARKERS[i % 15] for its index i in the REGISTRY, so
#: each registered backend has its own colour and its own marker (and, beyond 16
#: series, no two share both: 16 and 15 are coprime).
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:gray", "tab:olive", "tab:cyan", "black", "darkgoldenrod", "navy",
           "maroon", "teal", "indigo")
#: Markers of the series (filled ones, told apart in black and white too).
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p", "d", "H", "8")


def _style(index: int) -> dict[str, str]:
    return {"color": COLOURS[index % len(COLOURS)], "marker": MARKERS[index % len(MARKERS)]}


def backend_style(name: str) -> dict[str, str]:
    """The colour and marker of a backend in every plot: fixed by its place in the
    REGISTRY, so ``cpsat`` looks the same in every report.

    Example:
        >>> backend_style("cpsat"), backend_style("auto")
        ({'color': 'tab:blue', 'marker': 'o'}, {'color': 'darkgoldenrod', 'marker': 'p'})
    """
    names = list(REGISTRY)
    if name not in names:
        raise UsageError(f"no backend {name!r} (known: {', '.join(names)})")
    return _style(names.index(name))


def _styles(df: pd.DataFrame) -> dict[Any, dict[str, str]]:
    """The style of each backend label of a plot: a backend's own (:func:`backend_style`)
    for a label that is its name, or that is the only variant of it; the other labels
    take styles after the REGISTRY's, so no two labels of a plot share one."""
    labels = _labels(df)
    backend_of = (dict(zip(df["label"], df["backend"], strict=True))
                  if "backend" in df.columns else {})
    variants: dict[Any, int] = defaultdict(int)
    for lab in labels:
        variants[backend_of.get(lab, lab)] += 1
    names = list(REGISTRY)
    out: dict[Any, dict[str, str]] = {}
    for lab in labels:
        base = lab if lab in REGISTRY else backend_of.get(lab)
        if base in REGISTRY and (lab == base or variants[base] == 1):
            out[lab] = _style(names.index(str(base)))
    free = itertools.count(len(names))  # never a registered backend's style
    for lab in labels:
        if lab not in out:
            out[lab] = _style(next(free))
    return out


def log_error_bars(center: Sequence[float], low: Sequence[float], high: Sequence[float]
                   ) -> list[list[float]]:
    """Asymmetric ``yerr`` for matplotlib on a log axis: from ``low`` to ``high`` around
    ``center``, the lower end kept above zero (at least a thousandth of the centre),
    so that no bar runs off the bottom of the axis.

    Example:
        >>> log_error_bars([2.0], [0.0], [3.0])
        [[1.998], [1.0]]
    """
    lower = [c - max(lo, c / 1000) if c > 0 else 0.0
             for c, lo in zip(center, low, strict=True)]
    upper = [max(hi - c, 0.0) for c, hi in zip(center, high, strict=True)]
    return [lower, upper]


def _figure(width: float = 7.0, height: float = 4.5) -> tuple[Any, Any]:
    """A headless matplotlib figure (Agg canvas; pyplot and its global state are not used)."""
    figure_mod = _need("matplotlib.figure")
    agg = _need("matplotlib.backends.backend_agg")
    fig = figure_mod.Figure(figsize=(width, height), layout="constrained")
    agg.FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _legend_outside(ax: Any) -> None:
    """The legend to the right of the axes, where it cannot cover data."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                  fontsize="small")


def _integer_axis(axis: Any) -> None:
    ticker = _need("matplotlib.ticker")
    axis.set_major_locator(ticker.MaxNLocator(integer=True))


#: Line styles and marker fills of the families of one plot (a backend keeps its colour
#: and marker in each).
_FAMILY_LINES = ("-", "--", ":", "-.")
_FAMILY_FILLS = ("full", "none", "left", "bottom")


def plot_time_vs_size(df: pd.DataFrame, path: str, metric: str = "wall_s") -> str:
    """Median ``metric`` of the solved runs against ``size``, bars from the first to the
    third quartile (never below zero on the log axis): one series per backend label and
    family (two families of one size are never merged into one point; a family has
    its line style and marker fill, a backend its colour and marker). With a single
    size there is no line to draw: the series are points side by side."""
    fig, ax = _figure()
    solved = df[df["solved"]]
    families = _order(df["family"]) if "family" in df.columns else [None]
    styles = _styles(df)
    series = []
    for lab in _labels(df):
        for f, fam in enumerate(families):
            rows = solved[solved["label"] == lab]
            if fam is not None:
                rows = rows[rows["family"] == fam]
            times = rows.groupby("size")[metric]
            stats = times.quantile([0.25, 0.5, 0.75]).unstack().sort_index()
            stats = stats[stats[0.5] > 0]  # a log axis shows no zero
            if not stats.empty:
                name = lab if len(families) == 1 else f"{lab} ({fam})"
                style = {**styles[lab], "fillstyle": _FAMILY_FILLS[f % len(_FAMILY_FILLS)]}
                series.append((name, stats, style, _FAMILY_LINES[f % len(_FAMILY_LINES)]))
    sizes = sorted({s for _, stats, _, _ in series for s in stats.index})
    for k, (name, stats, style, line) in enumerate(series):
        xs = [k] if len(sizes) <= 1 else list(stats.index)
        ax.errorbar(xs, stats[0.5], yerr=log_error_bars(stats[0.5], stats[0.25], stats[0.75]),
                    linestyle=line if len(stats) > 1 and len(sizes) > 1 else "none",
                    capsize=3, label=name, **style)
    if len(sizes) <= 1:
        ax.set_xticks(range(len(series)), [name for name, *_ in series], rotation=30,
                      ha="right")
        ax.set_xlabel(f"backend (size n = {sizes[0]})" if sizes else "backend")
    else:
        ax.set_xlabel("size (n)")
        _integer_axis(ax.xaxis)
    ax.set_yscale("log")
    ax.set_ylabel(f"median {_unit(metric)}, solved runs; bars = quartiles")
    ax.set_title("time against size")
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax)
    _save(fig, path)
    return path


def _unit(metric: str) -> str:
    """The label of a metric: seconds for the ``*_s`` timings, its name otherwise."""
    return f"{metric} (s)" if metric.endswith("_s") else metric


def _save(fig: Any, path: str) -> None:
    """Save a figure as PNG atomically, with the ordinary file mode."""
    import io

    from ..formats.base import atomic_write

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    atomic_write(path, buf.getvalue())


def plot_cactus(df: pd.DataFrame, path: str, metric: str = "wall_s") -> str:
    """Instances solved within a time, per backend label (the median over repetitions)."""
    fig, ax = _figure()
    solved = df[df["solved"]]
    styles = _styles(df)
    for lab in _labels(df):
        g = solved[solved["label"] == lab]
        times = g.groupby(["instance_hash", "filtering"])[metric].median().sort_values()
        if times.empty:
            continue
        ax.step([times.iloc[0], *times], range(len(times) + 1), where="post", label=lab,
                markevery=max(1, len(times) // 8), **styles[lab])
    ax.set_xscale("log")
    ax.set_xlabel(_unit(metric))
    ax.set_ylabel("instances solved")
    _integer_axis(ax.yaxis)
    ax.set_title("cactus plot: instances solved within a time")
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax)
    _save(fig, path)
    return path


# ------------------------------------------------------------------ report
def _defaults(folder: str) -> tuple[list[str], str]:
    """``report: {by, metric}`` of the config copied into the output folder, if any."""
    by, metric = ["family", "size"], "wall_s"
    try:
        import yaml

        with open(os.path.join(folder, "config.yaml"), encoding="utf-8") as fh:
            doc = yaml.safe_load(fh) or {}
        rep = doc.get("report") or {}
        if rep.get("by"):
            by = rep["by"] if isinstance(rep["by"], list) else str(rep["by"]).split(",")
        metric = rep.get("metric", metric)
    except (OSError, ValueError, AttributeError, ImportError):
        pass
    return [b.strip() for b in by], metric


def report(output: str | os.PathLike[str], by: Sequence[str] | str | None = None,
           metric: str | None = None) -> pd.DataFrame:
    """Write ``summary.csv``, ``summary.md``, ``time_vs_size.png`` and ``cactus.png`` into OUTPUT.

    Args:
        output: The experiment's output folder.
        by: Grouping columns (a list or ``"family,size"``); default the config's
            ``report.by``, else family and size.
        metric: The time column (``wall_s``, ``solve_s``, ``build_s``); default the
            config's ``report.metric``, else ``wall_s``.

    Returns:
        The summary DataFrame; ``.attrs["files"]`` lists the files written.
    """
    folder = os.fspath(output)
    if not os.path.isdir(folder):
        raise InputError("no such output folder", folder)
    default_by, default_metric = _defaults(folder)
    if isinstance(by, str):
        by = [b.strip() for b in by.split(",") if b.strip()]
    by = list(by) if by else default_by
    metric = metric or default_metric
    df = load(folder)
    if df.empty:
        raise InputError("the results file holds no run yet", _results_path(folder))
    summary = summarize(df, by, metric)
    files = {name: os.path.join(folder, name) for name in
             ("summary.csv", "summary.md", "time_vs_size.png", "cactus.png")}
    from ..formats.base import atomic_write

    atomic_write(files["summary.csv"], summary.to_csv(index=False))
    time_table, counter_table = _wide_tables(summary, by, metric)
    name = df["experiment"].iloc[0] if "experiment" in df.columns else os.path.basename(folder)
    unit = " (ms)" if metric.endswith("_s") else ""
    statuses = ", ".join(f"{n} {s}" for s, n in df["status"].value_counts().items())
    parts = [
        f"# {name}: summary",
        "",
        f"{len(df)} runs ({statuses}); {int(df['disagreement'].sum())} disagreeing, "
        f"{int((df['verified'] == False).sum())} wrong.  "  # noqa: E712
        f"Times are `{metric}` over the solved runs.",
        "",
        f"## Per ({', '.join(by)}) and backend",
        "",
        to_markdown(summary),
        "",
        f"## `{metric}` mean ± std{unit} per backend (seed 000, Table 1 layout; "
        "(solved/runs) when not all were solved)",
        "",
        to_markdown(time_table),
    ]
    if len(counter_table.columns) > len(by):
        parts += ["", "## Mean counters per backend (seed 000, Table 2 layout)", "",
                  to_markdown(counter_table)]
    atomic_write(files["summary.md"], "\n".join(parts) + "\n")
    summary.attrs.update(by=by, metric=metric, title=parts[0].lstrip("# "), headline=parts[2])
    if "size" in df.columns:
        plot_time_vs_size(df, files["time_vs_size.png"], metric)
    else:
        del files["time_vs_size.png"]
    plot_cactus(df, files["cactus.png"], metric)
    summary.attrs["files"] = list(files.values())
    summary.attrs["markdown"] = files["summary.md"]
    return summary
