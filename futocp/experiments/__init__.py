"""Experiments: YAML configs, a crash-safe runner (local processes or Dask), tables and plots.

``futocp run CONFIG.yaml`` / :func:`run` expand a configuration into runs
(instance x backend variant x filtering x repetition), do each in a fresh
process killed at its time limit, verify every solution and append one JSON
record per run to ``OUTPUT/results.jsonl``; ``futocp report OUTPUT`` /
:func:`report` write the summary tables and plots; :func:`load` gives the
records as a pandas DataFrame. See ``docs/experiments.md``.

pandas, matplotlib and dask are imported only when needed.

Example (not run here: it starts solver processes)::

    import futocp.experiments as fx
    df = fx.run("experiments/quickstart.yaml")
    summary = fx.report("experiments/results/quickstart")
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .config import BackendVariant, Config, load_config, parse_config
from .instances import Instance
from .report import load, report, summarize
from .runner import RunSummary, as_config, plan, run_experiment

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["run", "run_experiment", "report", "load", "summarize", "plan", "load_config",
           "parse_config", "Config", "BackendVariant", "Instance", "RunSummary"]


def run(config: Config | str | os.PathLike[str] | Mapping[str, Any], *, fresh: bool = False,
        workers: int | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Run an experiment (resuming it if it was started) and load its records.

    Args:
        config: A YAML file, a mapping with the same keys, or a :class:`Config`.
        fresh: Move the old ``results.jsonl`` aside and start over.
        workers: Runs in parallel (overrides the config).
        progress: Show a progress bar (default: on a terminal only).

    Returns:
        Every record of the output folder, one row per run (:func:`load`).
    """
    cfg = as_config(config)
    summary = run_experiment(cfg, fresh=fresh, workers=workers, progress=progress)
    return load(summary.output)
