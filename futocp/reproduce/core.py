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
with the table and row each value comes from), or the same file from another
folder inside :func:`using_papers` (``futocp reproduce NAME --papers DIR``:
anyone can check that the verdicts fail when the paper's numbers change).

The verdict rule every reproduction shares is :func:`compare_sample`: one
number of the paper (or an interval, the paper's own uncertainty) against a
sample of ours, through the bootstrap 95 % confidence interval of our median
(:func:`bootstrap_ci`); runs stopped by a limit enter as ``inf`` ("at least
the limit"), and an interval left open by them never makes a row agree. A
row whose paper values are impossible or copied gets ``paper anomaly``; a
check that holds by construction is a row of kind ``sanity check``, never an
agreement. :func:`quartiles` and :func:`mean_std` describe samples.

Example:
    >>> compare_sample(10, [9, 10, 10, 11, 12])[0], compare_sample(30, [9, 10, 10, 11, 12])[0]
    ('agrees', 'differs')
    >>> compare_sample(10, [9, 10, math.inf, math.inf, math.inf])[0]  # median censored
    'not comparable'
    >>> compare_value(100, 104, 0.05), compare_value(None, 3, 0.1)
    ('agrees', 'not comparable')
    >>> quartiles([1, 2, 3, 4, 100])
    {'median': 3.0, 'q1': 2.0, 'q3': 4.0, 'n': 5}
    >>> mean_std([2, 4])["mean"]
    3.0
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..errors import InputError, UsageError, closest

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["VERDICTS", "KINDS", "Row", "Reproduction", "register", "REPRODUCTIONS",
           "get_reproduction", "experiments_dir", "papers_dir", "using_papers", "paper_table",
           "quartiles", "rounded", "rounded_quartiles", "mean_std", "bootstrap_ci",
           "paper_mean_interval", "compare_sample", "rank_agreement", "compare_value",
           "compare_range",
           "combine_verdicts", "sanity_row", "verdict_counts", "load_config", "config_path",
           "save_figure", "CONFIDENCE", "RESAMPLES", "parse_opts", "opt_count", "opt_names",
           "opt_bool"]

#: The verdicts a row can get (JSON key ``verdict``).
VERDICTS = ("agrees", "differs", "not comparable", "paper anomaly")
#: What a row is: a comparison with the paper, or a check that holds by construction.
KINDS = ("comparison", "sanity check")
#: The confidence level of every interval a verdict uses.
CONFIDENCE = 0.95
#: Bootstrap resamples per interval (a fixed seed: the same runs give the same verdicts).
RESAMPLES = 2000


@dataclass
class Row:
    """One row of a reproduced table: the paper's numbers beside ours.

    Attributes:
        key: The row's parameters (e.g. ``{"row": 3, "n": 6, "K": 6, "G": 30}``).
        paper: The paper's values for the row.
        ours: Our values (medians and quartiles, means and stds, counts...).
        verdict: One of :data:`VERDICTS`.
        note: Why, when it is known (an anomaly of the paper, a node limit...).
        kind: One of :data:`KINDS`: a ``sanity check`` (a property that holds by
            construction, e.g. FC explores no more nodes than BT in the same
            order) is reported, never counted as agreement: its verdict is
            ``not comparable`` (``paper anomaly`` when the paper's own numbers
            break it), its outcome ``ours["check"]``.
    """

    key: dict[str, Any]
    paper: dict[str, Any]
    ours: dict[str, Any]
    verdict: str
    note: str = ""
    kind: str = "comparison"

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise UsageError(f"verdict {self.verdict!r}: expected one of {', '.join(VERDICTS)}")
        if self.kind not in KINDS:
            raise UsageError(f"kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        if self.kind == "sanity check" and self.verdict in ("agrees", "differs"):
            raise UsageError("a sanity check holds or fails: its verdict is 'not comparable' "
                             "or 'paper anomaly', never agreement")

    def to_json(self) -> dict[str, Any]:
        """The row as JSON-ready data (keys ``key, paper, ours, verdict, note, kind``)."""
        return {"key": _jsonable(self.key), "paper": _jsonable(self.paper),
                "ours": _jsonable(self.ours), "verdict": self.verdict, "note": self.note,
                "kind": self.kind}


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
        run: For a reproduction that measures with functions of its own instead
            of the experiment runner (:mod:`futocp.reproduce.measure`):
            ``(config, workers, options, progress) -> None`` measures what is not
            yet recorded in ``config["output"]``; ``options`` are the ``--opt
            KEY=VALUE`` pairs of ``futocp reproduce`` (refused when unknown).
            None: the config is an experiment config and the runner runs it.
        load: ``output folder -> runs``, for a ``run`` whose records are not
            those of :func:`futocp.reproduce.measure.load_records` (e.g. several
            experiment configs run into subfolders). None: that function.
    """

    name: str
    title: str
    source: str
    config: Callable[[bool], dict[str, Any]]
    compare: Callable[[pd.DataFrame, bool], list[Row]]
    figures: Callable[[pd.DataFrame, Path], list[Path]] | None = None
    verdict: Callable[[list[Row]], str] | None = None
    full_run: str = ""
    run: Callable[[dict[str, Any], int, dict[str, str], bool | None], None] | None = None
    load: Callable[[str], pd.DataFrame] | None = None


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


_PAPERS: ContextVar[Path | None] = ContextVar("futocp_papers", default=None)


def papers_dir() -> Path:
    """Where :func:`paper_table` reads: the folder of :func:`using_papers`, else
    ``experiments/papers``."""
    chosen = _PAPERS.get()
    return chosen if chosen is not None else experiments_dir() / "papers"


@contextlib.contextmanager
def using_papers(folder: str | os.PathLike[str] | None) -> Iterator[Path]:
    """Read the paper tables from ``folder`` inside the block (None: the default).

    ``futocp reproduce NAME --papers DIR``: the same runs compared with other
    numbers, e.g. the paper's multiplied by 3, where ``agrees`` must vanish.

    Raises:
        InputError: when ``folder`` is not a folder.
    """
    if folder is None:
        yield papers_dir()
        return
    path = Path(folder).resolve()
    if not path.is_dir():
        raise InputError("no such folder of paper tables", str(folder))
    token = _PAPERS.set(path)
    try:
        yield path
    finally:
        _PAPERS.reset(token)


def paper_table(filename: str) -> pd.DataFrame:
    """A paper's table as transcribed in ``experiments/papers/FILENAME`` (CSV), or in
    the folder of :func:`using_papers`.

    Raises:
        InputError: for a missing or unreadable file.
    """
    import pandas as pd

    path = papers_dir() / filename
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise InputError("no such paper table", str(path)) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the paper table: {exc}", str(path)) from None


def config_path(name: str) -> Path:
    """``experiments/reproduce/NAME.yaml``."""
    return experiments_dir() / "reproduce" / f"{name}.yaml"


def opt_count(key: str, value: str) -> int:
    """A ``--opt KEY=N`` value: an integer of at least 1."""
    try:
        n = int(value)
    except ValueError:
        raise UsageError(f"--opt {key}={value}: expected an integer") from None
    if n < 1:
        raise UsageError(f"--opt {key}={value}: expected at least 1")
    return n


def opt_names(key: str, value: str) -> list[str]:
    """A ``--opt KEY=a,b`` value: the comma-separated names."""
    return [name.strip() for name in value.split(",") if name.strip()]


def opt_bool(key: str, value: str) -> bool:
    """A ``--opt KEY=true|false`` value."""
    if value.lower() not in ("true", "false"):
        raise UsageError(f"--opt {key}={value}: expected true or false")
    return value.lower() == "true"


def parse_opts(who: str, options: Mapping[str, str],
               parsers: Mapping[str, Callable[[str, str], Any]] | None = None) -> dict[str, Any]:
    """The ``--opt KEY=VALUE`` pairs a reproduction takes, each parsed by its key's parser
    (:func:`opt_count`, :func:`opt_names`, :func:`opt_bool`).

    Raises:
        UsageError: for a key ``who`` does not take, or a bad value.

    Example:
        >>> parse_opts("seed 000", {"node_limit": "5"}, {"node_limit": opt_count})
        {'node_limit': 5}
        >>> parse_opts("seed 003", {"x": "1"})
        Traceback (most recent call last):
        ...
        futocp.errors.UsageError: --opt x: seed 003 takes no --opt
    """
    parsers = parsers or {}
    out = {}
    for key, value in options.items():
        if key not in parsers:
            raise UsageError(f"--opt {key}: {who} takes "
                             f"{', '.join(parsers) if parsers else 'no --opt'}")
        out[key] = parsers[key](key, value)
    return out


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
    entries = doc.get("instances", [])
    for entry in entries if isinstance(entries, list) else ():  # (a measure's own shape)
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


def bootstrap_ci(values: Iterable[Any], statistic: str = "median", level: float = CONFIDENCE,
                 resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of a sample's median (or mean).

    ``inf`` is a censored value (a run stopped by its limit: at least the
    limit); a bound falling among them is ``inf``. None and NaN are left out.
    The resampling is seeded: the same values give the same interval.

    Args:
        values: The sample.
        statistic: ``median`` or ``mean`` (a mean touching a censored value is inf).
        level: Confidence level.
        resamples: Bootstrap resamples.
        seed: Seed of the resampling.

    Returns:
        ``(low, high)``; NaNs for an empty sample.

    Example:
        >>> bootstrap_ci([5, 5, 5])
        (5.0, 5.0)
        >>> lo, hi = bootstrap_ci([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]); lo < 5.5 < hi
        True
    """
    import numpy as np

    xs = np.array(sorted(_finite_or_inf(values)), dtype=float)
    if not len(xs):
        return math.nan, math.nan
    if xs[0] == xs[-1]:
        return float(xs[0]), float(xs[0])
    rng = np.random.default_rng(seed)
    sample = np.sort(xs[rng.integers(0, len(xs), size=(resamples, len(xs)))], axis=1)
    if statistic == "median":
        half = len(xs) // 2
        stats = sample[:, half] if len(xs) % 2 else (sample[:, half - 1] + sample[:, half]) / 2
    elif statistic == "mean":
        stats = sample.mean(axis=1)
    else:
        raise UsageError(f"statistic {statistic!r}: expected median or mean")
    tail = (1 - level) / 2
    lo, hi = np.quantile(stats, [tail, 1 - tail], method="inverted_cdf")
    return float(lo), float(hi)


def paper_mean_interval(mean: Any, std: Any, runs: Any, level: float = CONFIDENCE
                        ) -> tuple[float, float] | None:
    """The paper's own confidence interval of a mean it reports as ``mean ± std``
    over ``runs`` runs (normal approximation: ``mean ± z std / sqrt(runs)``);
    None when a number is missing.

    Example:
        >>> [round(x, 2) for x in paper_mean_interval(10.0, 5.0, 25)]
        [8.04, 11.96]
    """
    m, s, k = _number(mean), _number(std), _number(runs)
    if m is None or s is None or k is None or k < 1:
        return None
    from statistics import NormalDist

    half = NormalDist().inv_cdf(0.5 + level / 2) * s / math.sqrt(k)
    return m - half, m + half


def compare_sample(paper: Any, values: Iterable[Any], *,
                   paper_interval: tuple[float, float] | None = None, statistic: str = "median",
                   min_n: int = 3, seed: int = 0) -> tuple[str, dict[str, Any]]:
    """The verdict on one number of the paper against a sample of ours.

    The rule (stated in docs/reproductions.md): ``agrees`` when the paper's
    value -- or its own interval, ``paper_interval`` (e.g.
    :func:`paper_mean_interval`) -- meets the bootstrap 95 % confidence
    interval of our median (:func:`bootstrap_ci`); ``differs`` when it lies
    wholly outside it. Runs stopped by a limit are ``inf`` (at least the
    limit): a paper value below our interval still differs, but where our
    interval (or our median) is left open by them the row is ``not
    comparable`` -- an open interval agrees with anything. Fewer than
    ``min_n`` values, or no paper value: ``not comparable`` (the interval is
    still given when there are ``min_n`` values).

    Returns:
        ``(verdict, detail)``: detail has our ``median``, the interval ``ci``
        (``[low, high]``, inf where open), ``n``, ``censored`` (runs at a limit)
        and ``percentile``: where the paper's value falls among ours (0-100,
        ties counted half; None without a paper value) -- for a paper value that
        is one instance's, a typical instance is anywhere in 2.5-97.5, while the
        verdict asks whether it is what our median instance gives.

    Example:
        >>> compare_sample(7, [5, 6, 7, 8, 9])
        ('agrees', {'median': 7.0, 'ci': [5.0, 9.0], 'n': 5, 'censored': 0, 'percentile': 50.0})
        >>> compare_sample(2, [5, 6, math.inf, math.inf, math.inf])[0]  # below: differs
        'differs'
    """
    xs = _finite_or_inf(values)
    censored = sum(math.isinf(x) for x in xs)
    detail: dict[str, Any] = {"median": quartiles(xs)["median"], "ci": [math.nan, math.nan],
                              "n": len(xs), "censored": censored, "percentile": None}
    p0 = _number(paper)
    if p0 is not None and xs:
        below = sum(x < p0 for x in xs) + sum(x == p0 for x in xs) / 2
        detail["percentile"] = 100 * below / len(xs)
    if len(xs) < min_n:
        return "not comparable", detail
    lo, hi = bootstrap_ci(xs, statistic, seed=seed)
    detail["ci"] = [lo, hi]
    p = _number(paper)
    if paper_interval is not None:
        p_lo, p_hi = paper_interval
    elif p is not None:
        p_lo = p_hi = p
    else:
        return "not comparable", detail
    if p_hi < lo:
        return "differs", detail
    if math.isinf(hi) or math.isinf(detail["median"]):
        return "not comparable", detail
    return ("agrees" if p_lo <= hi else "differs"), detail


def _ranks(xs: list[float]) -> list[float]:
    """Ranks 1..n, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _pearson(a: list[float], b: list[float]) -> float:
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    da = [x - ma for x in a]
    db = [y - mb for y in b]
    den = math.sqrt(sum(x * x for x in da) * sum(y * y for y in db))
    return sum(x * y for x, y in zip(da, db, strict=True)) / den if den else math.nan


def rank_agreement(paper: Iterable[Any], ours: Iterable[Any], min_n: int = 5,
                   permutations: int = RESAMPLES, seed: int = 0) -> tuple[str, dict[str, Any]]:
    """Whether our values follow the paper's from row to row: Spearman's rank
    correlation and its one-sided permutation p-value (seeded).

    A per-row rule cannot tell a constant made-up ratio from a measured one on
    the rows where the paper's value happens to be that constant; the pattern
    across rows can. ``agrees`` when the correlation is positive with p < 0.05,
    ``differs`` otherwise (a constant has no pattern), ``not comparable`` with
    fewer than ``min_n`` pairs (pairs with a missing or infinite value left out).

    Returns:
        ``(verdict, {"rho", "p", "n"})``.

    Example:
        >>> rank_agreement([1, 2, 3, 4, 5, 6], [1.1, 2.5, 2.9, 4.2, 5.0, 7.0])[0]
        'agrees'
        >>> rank_agreement([1, 2, 3, 4, 5, 6], [1.2] * 6)[0]
        'differs'
    """
    import random

    pairs = [(p, o) for p, o in zip((_number(x) for x in paper), (_number(x) for x in ours),
                                    strict=True)
             if p is not None and o is not None and math.isfinite(p) and math.isfinite(o)]
    if len(pairs) < min_n:
        return "not comparable", {"rho": math.nan, "p": math.nan, "n": len(pairs)}
    a = _ranks([p for p, _ in pairs])
    b = _ranks([o for _, o in pairs])
    rho = _pearson(a, b)
    if math.isnan(rho):
        return "differs", {"rho": rho, "p": 1.0, "n": len(pairs)}
    rng = random.Random(seed)
    shuffled = list(b)
    hits = 0
    for _ in range(permutations):
        rng.shuffle(shuffled)
        hits += _pearson(a, shuffled) >= rho - 1e-12
    p_value = (hits + 1) / (permutations + 1)
    return ("agrees" if rho > 0 and p_value < 0.05 else "differs"), \
        {"rho": rho, "p": p_value, "n": len(pairs)}


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
    """One verdict for a row from its primary measures' verdicts: ``paper anomaly``
    if any measure is one, else ``differs`` if any differs, ``agrees`` only if
    every measure agrees (a measure we cannot compare leaves the row ``not
    comparable``: no agreement on a part of a row).

    Example:
        >>> combine_verdicts(["agrees", "agrees"]), combine_verdicts(["agrees", "not comparable"])
        ('agrees', 'not comparable')
    """
    vs = list(verdicts)
    for v in ("paper anomaly", "differs"):
        if v in vs:
            return v
    return "agrees" if vs and all(v == "agrees" for v in vs) else "not comparable"


def sanity_row(key: dict[str, Any], checks: Mapping[str, tuple[int, int]], note: str = "",
               paper: Mapping[str, Any] | None = None) -> Row:
    """A ``sanity check`` row: per check, ``(instances breaking it, instances
    checked)``; ``ours["check"]`` is ``holds`` when none breaks any (``no data``
    when nothing was checked).

    Example:
        >>> sanity_row({"check": "x"}, {"FC <= BT": (0, 5)}).ours
        {'FC <= BT': '0/5 break it', 'check': 'holds'}
    """
    ours: dict[str, Any] = {name: f"{bad}/{total} break it" for name, (bad, total)
                            in checks.items()}
    checked = [bad for bad, total in checks.values() if total]
    ours["check"] = ("no data" if not checked else
                     "holds" if all(bad == 0 for bad in checked) else "fails")
    return Row(key, dict(paper or {}), ours, "not comparable", note, kind="sanity check")


def verdict_counts(rows: Iterable[Row]) -> dict[str, int]:
    """Comparisons per verdict, plus ``sanity checks`` and how many of them fail on our
    data (a check on the paper's own numbers that fails is its ``paper anomaly``)."""
    rows = list(rows)
    out = {v: sum(r.verdict == v and r.kind == "comparison" for r in rows) for v in VERDICTS}
    sanity = [r for r in rows if r.kind == "sanity check"]
    out["sanity checks"] = len(sanity)
    out["sanity checks failing"] = sum(r.ours.get("check") == "fails"
                                       and r.verdict != "paper anomaly" for r in sanity)
    return out


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
