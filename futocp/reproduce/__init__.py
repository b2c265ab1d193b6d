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
from typing import TYPE_CHECKING, Any

from .core import (
    REPRODUCTIONS,
    VERDICTS,
    Reproduction,
    Row,
    combine_verdicts,
    compare_range,
    compare_value,
    experiments_dir,
    get_reproduction,
    load_config,
    mean_std,
    paper_table,
    quartiles,
    register,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..experiments.config import Config

__all__ = ["VERDICTS", "Row", "Reproduction", "register", "REPRODUCTIONS", "get_reproduction",
           "paper_table", "quartiles", "mean_std", "compare_value", "compare_range",
           "combine_verdicts", "load_config", "experiments_dir", "experiment_config",
           "run_reproduction", "load_runs", "collect"]

#: The reproduction modules; importing one registers its reproductions.
# each reproduction module registers its reproductions when imported
from . import seed000, seed001, seed002, seed004  # noqa: E402, F401


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
        UsageError: for an unknown name; InputError for a bad config.
    """
    from ..experiments.config import parse_config

    rep = get_reproduction(name)
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

    folder = output if output is not None else get_reproduction(name).config(quick)["output"]
    return load(folder)


def collect(name: str, quick: bool = False,
            output: str | os.PathLike[str] | None = None) -> list[Row]:
    """Compare the runs already recorded for a reproduction with the paper (runs nothing)."""
    return get_reproduction(name).compare(load_runs(name, quick, output), quick)


def run_reproduction(name: str, quick: bool = False, output: str | os.PathLike[str] | None = None,
                     executor: str = "local", workers: int = 1,
                     progress: bool | None = None) -> list[Row]:
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

    Returns:
        One :class:`Row` per table row.
    """
    from ..experiments.report import load
    from ..experiments.runner import run_experiment

    cfg = experiment_config(name, quick, output, executor, workers)
    run_experiment(cfg, progress=progress)
    return get_reproduction(name).compare(load(cfg.output), quick)
