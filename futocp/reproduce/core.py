"""The reproduction framework: a seed paper's table, our runs, and a verdict per row.

A :class:`Reproduction` names one table (or figure) of a seed paper: the
experiment that regenerates it (a config mapping with the schema of
``experiments/*.yaml``, read from ``experiments/reproduce/NAME.yaml`` by
:func:`load_config`), how its runs compare with the paper's numbers (one
:class:`Row` per table row, each with a verdict from :data:`VERDICTS`), and
optionally its plots and a verdict paragraph. Each reproduction module calls
:func:`register`; :data:`REPRODUCTIONS` holds them by name.

The paper's numbers are data: :func:`paper_table` reads
``experiments/papers/FILE.csv`` (transcribed from the seeds' verbatim tables,
with the table and row each value comes from). :func:`quartiles`,
:func:`mean_std` and :func:`compare_value` are the statistics and the numeric
verdict every reproduction shares.

Example:
    >>> compare_value(100, 104, 0.05), compare_value(100, 120, 0.05)
    ('agrees', 'differs')
    >>> compare_value(None, 3, 0.1)
    'not comparable'
    >>> quartiles([1, 2, 3, 4, 100])
    {'median': 3.0, 'q1': 2.0, 'q3': 4.0, 'n': 5}
    >>> mean_std([2, 4])["mean"]
    3.0
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..errors import InputError, UsageError, closest

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["VERDICTS", "Row", "Reproduction", "register", "REPRODUCTIONS", "get_reproduction",
           "experiments_dir", "paper_table", "quartiles", "rounded", "rounded_quartiles",
           "mean_std", "compare_value",
           "compare_range", "combine_verdicts", "load_config", "config_path", "save_figure"]

#: The verdicts a row can get.
VERDICTS = ("agrees", "differs", "not comparable")


@dataclass
class Row:
    """One row of a reproduced table: the paper's numbers beside ours.

    Attributes:
        key: The row's parameters (e.g. ``{"row": 3, "n": 6, "K": 6, "G": 30}``).
        paper: The paper's values for the row.
        ours: Our values (medians and quartiles, means and stds, counts...).
        verdict: One of :data:`VERDICTS`.
        note: Why, when it is known (an anomaly of the paper, a time limit...).
    """

    key: dict[str, Any]
    paper: dict[str, Any]
    ours: dict[str, Any]
    verdict: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise UsageError(f"verdict {self.verdict!r}: expected one of {', '.join(VERDICTS)}")

    def to_json(self) -> dict[str, Any]:
        """The row as JSON-ready data (keys ``key, paper, ours, verdict, note``)."""
        return {"key": _jsonable(self.key), "paper": _jsonable(self.paper),
                "ours": _jsonable(self.ours), "verdict": self.verdict, "note": self.note}


def _jsonable(value: Any) -> Any:
    """Plain JSON values: numpy scalars become Python numbers, NaN and inf become None."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Reproduction:
    """One reproduced table of a seed paper.

    Attributes:
        name: The pinned name (``seed-000-table1``).
        title: One line saying what is reproduced.
        source: Where in the paper (``seed 000, Table 1``).
        config: ``quick -> config mapping`` (the schema of ``experiments/*.yaml``).
        compare: ``(runs, quick) -> rows``; the runs as :func:`futocp.experiments.load`
            gives them.
        figures: ``(runs, folder) -> paths``: writes the plots, answers their paths.
        verdict: ``rows -> paragraph``: what is confirmed, what is not, and why.
        full_run: How long the full run took here, on which machine.
    """

    name: str
    title: str
    source: str
    config: Callable[[bool], dict[str, Any]]
    compare: Callable[[pd.DataFrame, bool], list[Row]]
    figures: Callable[[pd.DataFrame, Path], list[Path]] | None = None
    verdict: Callable[[list[Row]], str] | None = None
    full_run: str = ""


#: Every registered reproduction, by name.
REPRODUCTIONS: dict[str, Reproduction] = {}


def register(rep: Reproduction) -> None:
    """Add a reproduction to :data:`REPRODUCTIONS` (a name registered twice is an error)."""
    if rep.name in REPRODUCTIONS and REPRODUCTIONS[rep.name] is not rep:
        raise UsageError(f"reproduction {rep.name!r} is registered twice")
    REPRODUCTIONS[rep.name] = rep


def get_reproduction(name: str) -> Reproduction:
    """The reproduction called ``name``.

    Raises:
        UsageError: for an unknown name, with a "did you mean".
    """
    if name in REPRODUCTIONS:
        return REPRODUCTIONS[name]
    close = closest(name, REPRODUCTIONS, cutoff=0.5)
    hint = f"did you mean {close!r}?" if close else f"known: {', '.join(sorted(REPRODUCTIONS))}"
    raise UsageError(f"unknown reproduction {name!r} ({hint})")


# ------------------------------------------------------------------ the data
def experiments_dir() -> Path:
    """The ``experiments/`` folder: ``$FUTOCP_EXPERIMENTS``, the source tree's, or
    ``<prefix>/share/futocp/experiments``.

    Raises:
        InputError: when none exists.
    """
    dirs = [Path(p) for p in os.environ.get("FUTOCP_EXPERIMENTS", "").split(os.pathsep) if p]
    dirs.append(Path(__file__).resolve().parent.parent.parent / "experiments")
    dirs.append(Path(sys.prefix) / "share" / "futocp" / "experiments")
    for d in dirs:
        if (d / "reproduce").is_dir() or (d / "papers").is_dir():
            return d
    raise InputError("no experiments/ folder with reproduce/ and papers/ (set FUTOCP_EXPERIMENTS)")


def paper_table(filename: str) -> pd.DataFrame:
    """A paper's table as transcribed in ``experiments/papers/FILENAME`` (CSV).

    Raises:
        InputError: for a missing or unreadable file.
    """
    import pandas as pd

    path = experiments_dir() / "papers" / filename
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise InputError("no such paper table", str(path)) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the paper table: {exc}", str(path)) from None


def config_path(name: str) -> Path:
    """``experiments/reproduce/NAME.yaml``."""
    return experiments_dir() / "reproduce" / f"{name}.yaml"


def load_config(name: str, quick: bool) -> dict[str, Any]:
    """The experiment config of a reproduction, as a mapping for the runner.

    ``experiments/reproduce/NAME.yaml`` is an experiment config with one more
    top-level key, ``quick:``, a mapping of top-level keys that ``--quick``
    replaces (e.g. fewer instances, a tighter ``time_limit``, another
    ``output``). Paths (``output``, instance ``path``/``collection``) are made
    absolute, relative to the YAML file, so the mapping can be run from anywhere.

    Raises:
        InputError: for a missing file or invalid YAML.
    """
    path = config_path(name)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such reproduction config", str(path)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", str(path)) from None
    if not isinstance(doc, dict):
        raise InputError("a reproduction config is a mapping", str(path))
    overrides = doc.pop("quick", None) or {}
    if not isinstance(overrides, dict):
        raise InputError("quick: expected a mapping of overrides", str(path))
    if quick:
        doc.update(overrides)
    base = path.parent
    doc.setdefault("name", name + ("-quick" if quick else ""))
    doc["output"] = str((base / doc.get("output", f"../results/reproduce/{doc['name']}"))
                        .resolve())
    for entry in doc.get("instances", []):
        for key in ("path", "collection"):
            if isinstance(entry, dict) and isinstance(entry.get(key), str):
                entry[key] = str((base / entry[key]).resolve())
    return doc


# ------------------------------------------------------------------ statistics
def _finite_or_inf(values: Iterable[Any]) -> list[float]:
    out = []
    for v in values:
        if v is None:
            continue
        f = float(v)
        if not math.isnan(f):
            out.append(f)
    return out


def _quantile(xs: list[float], q: float) -> float:
    """Linear-interpolation quantile of sorted values; an interval touching inf is inf."""
    pos = q * (len(xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    if lo == hi:
        return xs[lo]
    if math.isinf(xs[hi]) or math.isinf(xs[lo]):
        return xs[hi]
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def quartiles(values: Iterable[Any]) -> dict[str, Any]:
    """Median and quartiles (``median, q1, q3, n``); None and NaN are left out.

    ``inf`` stands for a censored value (a run stopped by its limit, larger than
    anything measured): quartiles falling among them are inf. No values: NaNs.
    """
    xs = sorted(_finite_or_inf(values))
    if not xs:
        return {"median": math.nan, "q1": math.nan, "q3": math.nan, "n": 0}
    return {"median": _quantile(xs, 0.5), "q1": _quantile(xs, 0.25), "q3": _quantile(xs, 0.75),
            "n": len(xs)}


def rounded(x: Any, digits: int = 3) -> Any:
    """``x`` rounded to ``digits`` when it is a finite float; anything else as it is
    (an int, inf for a censored value, NaN, None)."""
    return round(x, digits) if isinstance(x, float) and math.isfinite(x) else x


def rounded_quartiles(values: Iterable[Any], digits: int = 3) -> dict[str, Any]:
    """:func:`quartiles`, each :func:`rounded` (inf, a run stopped by its limit, kept)."""
    return {k: rounded(v, digits) for k, v in quartiles(values).items()}


def mean_std(values: Iterable[Any]) -> dict[str, Any]:
    """Mean and sample standard deviation (``mean, std, n``); None, NaN and inf left out."""
    xs = [x for x in _finite_or_inf(values) if math.isfinite(x)]
    if not xs:
        return {"mean": math.nan, "std": math.nan, "n": 0}
    mean = sum(xs) / len(xs)
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else math.nan
    return {"mean": mean, "std": std, "n": len(xs)}


def _number(x: Any) -> float | None:
    if x is None or isinstance(x, bool):
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def compare_value(paper: Any, ours: Any, rel_tol: float) -> str:
    """``agrees`` when ``|ours - paper| <= rel_tol * |paper|``, else ``differs``;
    ``not comparable`` when either is missing (None, NaN, text) or ours is inf."""
    p, o = _number(paper), _number(ours)
    if p is None or o is None or math.isinf(o) or math.isinf(p):
        return "not comparable"
    return "agrees" if abs(o - p) <= rel_tol * abs(p) else "differs"


def compare_range(paper: Any, low: Any, high: Any, rel_tol: float = 0.0) -> str:
    """``agrees`` when the paper's value lies in ``[low, high]`` widened by ``rel_tol``
    (e.g. our quartiles), else ``differs``; ``not comparable`` when a bound is missing."""
    p, lo, hi = _number(paper), _number(low), _number(high)
    if p is None or lo is None or hi is None or math.isinf(lo):
        return "not comparable"
    return "agrees" if lo * (1 - rel_tol) <= p <= hi * (1 + rel_tol) else "differs"


def combine_verdicts(verdicts: Iterable[str]) -> str:
    """One verdict from several: ``differs`` if any differs, ``agrees`` if any agrees
    (and none differs), else ``not comparable``."""
    vs = list(verdicts)
    if "differs" in vs:
        return "differs"
    return "agrees" if "agrees" in vs else "not comparable"


# ------------------------------------------------------------------ figures
def save_figure(fig: Any, folder: Path, name: str, dpi: int = 110) -> Path:
    """Save a matplotlib figure as ``FOLDER/NAME.png`` (making the folder), close it,
    and answer the path (what a reproduction's ``figures`` returns)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
