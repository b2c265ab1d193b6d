"""Measurements the experiment runner cannot express: tasks run by a function of ours.

Some reproductions measure more than one backend run answers: seed 000 times
ColorFutoshiki and FutoshikiBT in CPU time over ten repetitions, list building
included, stops each search at a node limit (not a wall clock) and draws its
instances with several hidden-solution generators; seed 003 exercises
procedures (clue removal, propagation orders) rather than solvers. Such a
reproduction lists *tasks* (JSON-able mappings, each with a ``run_id``) and a
module-level function that measures one task and answers its record.

:func:`run_tasks` does what :func:`futocp.experiments.run_experiment` does
for solver runs: each task in a fresh process
(:func:`futocp.experiments.isolate.run_isolated`, killed after ``timeout``),
``workers`` at a time, each record appended to ``OUTPUT/results.jsonl`` as
it arrives (flushed and fsynced), ``OUTPUT/plan.json`` listing the run ids,
and running again skips the tasks already recorded (resumable after a
crash). :func:`load_records` reads them back as a DataFrame, the records of
tasks no longer planned left out.

Example:
    >>> task_id({"n": 6, "generator": "uniform"}) == task_id({"generator": "uniform", "n": 6})
    True
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ResourceError, UsageError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RESULTS", "PLAN", "task_id", "run_tasks", "run_config", "load_records", "CpuClock"]

RESULTS = "results.jsonl"
PLAN = "plan.json"


def task_id(task: Mapping[str, Any]) -> str:
    """A task's run id: a hash of what makes it (key order does not matter)."""
    text = json.dumps(dict(task), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class CpuClock:
    """CPU seconds of this process (``time.process_time``): what a measurement
    reports on a machine shared with other jobs, where wall time counts their turns.

    Example:
        >>> clock = CpuClock(); _ = sum(range(1000)); clock.seconds() >= 0
        True
    """

    def __init__(self) -> None:
        self.start = time.process_time()

    def seconds(self) -> float:
        """CPU seconds since the clock was made."""
        return time.process_time() - self.start


def _append(fh: Any, record: Mapping[str, Any]) -> None:
    fh.write(json.dumps(record, default=str, separators=(",", ":")) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def _lost(task: Mapping[str, Any], why: str, killed: bool) -> dict[str, Any]:
    """The record of a task whose process did not answer (killed, crashed, raised)."""
    return {**task, "status": "unknown" if killed else "error", "reason": why}


def run_tasks(name: str, tasks: Sequence[Mapping[str, Any]], func: Callable[[Any], Any],
              output: str | os.PathLike[str], workers: int = 1, timeout: float | None = None,
              progress: bool | None = None, isolate: bool = True) -> int:
    """Measure every task not yet recorded in ``OUTPUT/results.jsonl``.

    Args:
        name: The measurement (in ``plan.json`` and the progress line).
        tasks: JSON-able mappings, each with a unique ``run_id`` (:func:`task_id`).
        func: A module-level function: task -> record (a JSON-able mapping).
        output: The output folder (made if missing).
        workers: Tasks in parallel, each in its own process.
        timeout: Seconds after which a task's process is killed (recorded
            ``unknown`` with the reason); None: no limit.
        progress: A line on stderr every few tasks (default: on a terminal).
        isolate: Each task in a fresh process (default). False: in this
            process, one at a time (``workers`` and ``timeout`` ignored): for
            small runs (a quick test), where starting processes costs more than
            the tasks; a task that raises is recorded ``error``.

    Returns:
        The number of tasks measured now.

    Raises:
        UsageError: for ``workers < 1`` or an unusable output folder; ResourceError
        when the results cannot be written (what is written is kept).
    """
    from ..experiments.isolate import kill_all, reset_kill_all
    from ..experiments.runner import read_run_ids
    from ..formats.base import atomic_write

    if workers < 1:
        raise UsageError(f"workers must be at least 1, got {workers}")
    folder = Path(output)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the output folder {folder}: "
                         f"{exc.strerror or exc}") from None
    ids = [t["run_id"] for t in tasks]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{name}: two tasks share a run id")
    atomic_write(folder / PLAN, json.dumps({"experiment": name, "run_ids": ids}))
    results = folder / RESULTS
    done = read_run_ids(results) if results.exists() else set()
    todo = [dict(t) for t in tasks if t["run_id"] not in done]
    if not todo:
        return 0
    if progress is None:
        progress = sys.stderr.isatty() and not os.environ.get("CI")
    if not isolate:
        return _run_here(name, todo, func, results, progress)
    reset_kill_all()
    count = 0
    with open(results, "a", encoding="utf-8") as fh, \
            cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="futocp-measure") as ex:
        futures = {ex.submit(_timed_isolated, func, task, timeout): task for task in todo}
        try:
            for fut in cf.as_completed(futures):
                task = futures[fut]
                try:
                    outcome, started = fut.result()
                    record = outcome.value if outcome.error is None else \
                        _lost(task, outcome.error, outcome.killed)
                    record = {**record, "started": started, "runner_s": round(outcome.elapsed, 4)}
                except Exception as exc:  # noqa: BLE001 - a lost process costs one task
                    record = _lost(task, f"{type(exc).__name__}: {exc}", False)
                try:
                    _append(fh, {**record, "run_id": task["run_id"]})
                except OSError as exc:
                    raise ResourceError(f"cannot write {results}: {exc.strerror or exc}; the "
                                        "tasks recorded so far are kept, run again to resume"
                                        ) from None
                count += 1
                if progress and (count % 10 == 0 or count == len(todo)):
                    print(f"{name}: {count}/{len(todo)} tasks", file=sys.stderr)
        except BaseException:
            for fut in futures:
                fut.cancel()
            kill_all()
            raise
    return count


def run_config(config: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]],
               func: Callable[[Any], Any], workers: int = 1, progress: bool | None = None,
               name: str | None = None) -> int:
    """:func:`run_tasks` with what a reproduction's config says: its ``name`` (else
    ``name``), ``output`` folder, ``timeout`` and ``isolate`` (default True)."""
    return run_tasks(config.get("name", name), tasks, func, config["output"], workers,
                     config.get("timeout"), progress, isolate=bool(config.get("isolate", True)))


def _timed_isolated(func: Callable[[Any], Any], task: Mapping[str, Any],
                    timeout: float | None) -> tuple[Any, str]:
    """:func:`futocp.experiments.isolate.run_isolated`, and when it started (UTC)."""
    import datetime as dt

    from ..experiments.isolate import run_isolated

    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    return run_isolated(func, task, timeout), started


def _run_here(name: str, todo: list[dict[str, Any]], func: Callable[[Any], Any],
              results: Path, progress: bool) -> int:
    """:func:`run_tasks` without processes: each task in turn, in this process."""
    with open(results, "a", encoding="utf-8") as fh:
        for count, task in enumerate(todo, start=1):
            try:
                record = func(task)
            except Exception as exc:  # noqa: BLE001 - a failing task costs that task
                record = _lost(task, f"{type(exc).__name__}: {exc}", False)
            _append(fh, {**record, "run_id": task["run_id"]})
            if progress and (count % 10 == 0 or count == len(todo)):
                print(f"{name}: {count}/{len(todo)} tasks", file=sys.stderr)
    return len(todo)


def load_records(output: str | os.PathLike[str]) -> pd.DataFrame:
    """The records of ``OUTPUT/results.jsonl`` as a DataFrame, one row per task
    of the last plan (records of tasks no longer planned are left out).

    Raises:
        InputError: when nothing was measured there yet.
    """
    import warnings

    import pandas as pd

    from ..errors import InputError
    from ..experiments.runner import read_jsonl

    folder = Path(output)
    path = folder / RESULTS if folder.is_dir() else folder
    if not path.exists():
        raise InputError("no results here (run the reproduction first)", str(path))
    records, torn = read_jsonl(path)
    if torn:
        warnings.warn(f"{path}: skipped {torn} unreadable line(s) (a task killed while "
                      f"writing)", stacklevel=2)
    try:
        planned = set(json.loads((path.parent / PLAN).read_text(encoding="utf-8"))["run_ids"])
    except (OSError, ValueError, KeyError, TypeError):
        planned = None
    if planned is not None:
        records = [r for r in records if r.get("run_id") in planned]
    return pd.DataFrame(records, dtype=object)  # integers stay integers beside missing values
