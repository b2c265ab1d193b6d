"""Reproductions of the seed papers' tables: ``futocp reproduce NAME``.

Each reproduction module (imported below) registers one or more
:class:`~futocp.reproduce.core.Reproduction` when imported.
:func:`run_reproduction` runs one through the experiment runner (crash-safe
and resumable like ``futocp run``: running it again into the same output
folder does only the runs not yet recorded) and compares the runs with the
paper's numbers; :func:`collect` compares the runs already recorded, without
running anything. See ``docs/reproductions.md``.

Example (not run here: it starts solver processes)::

    from futocp.reproduce import run_reproduction
    rows = run_reproduction("seed-000-table2", quick=True)
    print(rows[0].to_json())
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .core import (
    KINDS,
    REPRODUCTIONS,
    VERDICTS,
    Reproduction,
    Row,
    bootstrap_ci,
    combine_verdicts,
    compare_range,
    compare_sample,
    compare_value,
    experiments_dir,
    get_reproduction,
    load_config,
    mean_std,
    paper_table,
    papers_dir,
    quartiles,
    register,
    using_papers,
    verdict_counts,
)
from .measure import load_records

if TYPE_CHECKING:
    import pandas as pd

    from ..experiments.config import Config

__all__ = ["VERDICTS", "KINDS", "Row", "Reproduction", "register", "REPRODUCTIONS",
           "get_reproduction", "paper_table", "papers_dir", "using_papers", "quartiles",
           "mean_std", "bootstrap_ci", "compare_sample", "compare_value", "compare_range",
           "combine_verdicts", "verdict_counts", "load_config", "experiments_dir",
           "experiment_config", "run_reproduction", "load_runs", "collect"]

#: The reproduction modules; importing one registers its reproductions.
# each reproduction module registers its reproductions when imported
from . import seed000, seed001, seed002, seed003, seed004  # noqa: E402, F401


def experiment_config(name: str, quick: bool = False, output: str | os.PathLike[str] | None = None,
                      executor: str | None = None, workers: int | None = None) -> Config:
    """The validated experiment config of a reproduction (the runner's :class:`Config`).

    Args:
        name: The reproduction.
        quick: The small subset (the config's ``quick:`` overrides).
        output: Output folder (default: the config's, under ``experiments/results/``).
        executor: ``local`` or ``dask`` (default: the config's).
        workers: Runs in parallel (default: the config's).

    Raises:
        UsageError: for an unknown name or a reproduction measured by its own
            tasks (:attr:`Reproduction.run`); InputError for a bad config.
    """
    from ..experiments.config import parse_config

    rep = get_reproduction(name)
    if rep.run is not None:
        raise UsageError(f"{name} measures with tasks of its own, not the experiment runner: "
                         f"it has no experiment config")
    mapping: dict[str, Any] = dict(rep.config(quick))
    if output is not None:
        mapping["output"] = os.path.abspath(os.fspath(output))
    if executor is not None:
        mapping["executor"] = executor
    if workers is not None:
        mapping["workers"] = workers
    return parse_config(mapping, source=f"<reproduce {name}{' --quick' if quick else ''}>",
                        base_dir=os.getcwd(), default_name=name)


def load_runs(name: str, quick: bool = False,
              output: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The runs recorded for a reproduction (:func:`futocp.experiments.load`).

    Raises:
        InputError: when nothing was run there yet.
    """
    from ..experiments.report import load

    rep = get_reproduction(name)
    folder = output if output is not None else rep.config(quick)["output"]
    if rep.load is not None:
        return rep.load(os.fspath(folder))
    if rep.run is not None:
        return load_records(folder)
    return load(folder)


def collect(name: str, quick: bool = False, output: str | os.PathLike[str] | None = None,
            papers: str | os.PathLike[str] | None = None) -> list[Row]:
    """Compare the runs already recorded for a reproduction with the paper (runs nothing).

    Args:
        name: The reproduction.
        quick: The ``--quick`` runs.
        output: Their folder (default: the config's).
        papers: Read the paper tables from this folder (default ``experiments/papers``).
    """
    runs = load_runs(name, quick, output)
    with using_papers(papers):
        return get_reproduction(name).compare(runs, quick)


def run_reproduction(name: str, quick: bool = False, output: str | os.PathLike[str] | None = None,
                     executor: str = "local", workers: int = 1,
                     progress: bool | None = None,
                     papers: str | os.PathLike[str] | None = None,
                     options: Mapping[str, str] | None = None) -> list[Row]:
    """Run a reproduction through the experiment runner, then compare with the paper.

    Crash-safe and resumable: every run is appended to ``OUTPUT/results.jsonl``
    as it ends; running the same reproduction into the same folder again does
    only the runs not yet recorded.

    Args:
        name: The reproduction (``futocp reproduce --list``).
        quick: The small seeded subset the tests run.
        output: Output folder (default: ``experiments/results/reproduce/NAME[-quick]``).
        executor: ``local`` or ``dask``.
        workers: Runs in parallel.
        progress: Show a progress bar (default: on a terminal only).
        papers: Compare with the paper tables of this folder (default
            ``experiments/papers``).
        options: ``--opt KEY=VALUE`` pairs, for the reproductions that take them
            (:attr:`Reproduction.run`; e.g. seed 000's ``generators``).

    Returns:
        One :class:`Row` per table row.
    """
    from ..experiments.report import load
    from ..experiments.runner import run_experiment

    with using_papers(papers):  # a bad folder is refused before anything runs
        pass
    rep = get_reproduction(name)
    if rep.run is not None:
        if executor != "local":
            raise UsageError(f"{name} measures in local processes only (no --executor dask)")
        mapping = dict(rep.config(quick))
        if output is not None:
            mapping["output"] = os.path.abspath(os.fspath(output))
        rep.run(mapping, workers, dict(options or {}), progress)
        runs = load_runs(name, quick, mapping["output"])
    else:
        if options:
            raise UsageError(f"{name} takes no --opt (it runs an experiment config)")
        cfg = experiment_config(name, quick, output, executor, workers)
        run_experiment(cfg, progress=progress)
        runs = load(cfg.output)
    with using_papers(papers):
        return get_reproduction(name).compare(runs, quick)
