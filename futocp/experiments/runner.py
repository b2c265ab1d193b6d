"""The experiment runner: a config becomes runs, each run one JSON record.

:func:`plan` expands a :class:`~futocp.experiments.config.Config` into runs
(instance x backend variant x filtering x repetition). :func:`execute` does one
run: it solves in a fresh process (:func:`~futocp.experiments.isolate.run_isolated`)
killed at ``time_limit + margin``, so that a run that hangs, crashes or
segfaults costs that run only (recorded ``unknown`` or ``error`` with the
reason); it checks every solution with :func:`futocp.verify` and answers the
record. :func:`run_experiment` submits the runs to a
:class:`concurrent.futures.Executor` -- threads supervising local processes,
or a Dask cluster through ``Client.get_executor()``, the same code -- and
appends each record to ``OUTPUT/results.jsonl`` as soon as it arrives
(append, flush, fsync; the file is never rewritten, so a killed experiment
loses at most the runs in flight). Running the same config again skips every
run id already in the file; ``fresh=True`` moves the old file aside first.
``OUTPUT/plan.json`` lists the run ids of the config last run there, so that
reports leave out the records of an earlier version of the config.

Example:
    >>> from futocp.experiments.config import parse_config
    >>> cfg = parse_config('''
    ... instances: [{generate: {family: latin-square, size: 3, count: 2, seed: 1}}]
    ... backends: [cpsat]
    ... repetitions: 2
    ... ''')
    >>> runs = plan(cfg)
    >>> len(runs), runs[0]["backend"], runs[0]["repetition"], len(runs[0]["run_id"])
    (4, 'cpsat', 0, 16)
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as dt
import hashlib
import json
import os
import platform
import random
import socket
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import Any

from ..backends import REGISTRY, get_backend, solver_packages
from ..backends.base import seed_for
from ..errors import FutocpError, ResourceError, ServiceUnavailable, UnsupportedError, UsageError
from ..model import build_model
from ..records import RunRecord
from ..result import Result
from .config import Config, load_config, parse_config
from .isolate import kill_all, reset_kill_all, run_isolated

__all__ = ["plan", "execute", "solve_run", "run_experiment", "RunSummary", "read_run_ids",
           "read_jsonl",
           "versions", "RESULTS", "PLAN", "as_config"]

RESULTS = "results.jsonl"
PLAN = "plan.json"  # the run ids of the config last run into the folder
CONNECT_TIMEOUT = 10  # seconds to reach a Dask scheduler


# ----------------------------------------------------------------- planning
def as_config(config: Config | str | os.PathLike[str] | Mapping[str, Any]) -> Config:
    """A Config from a Config, a path to a YAML file, or a mapping."""
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):
        return parse_config(config, source="<config>", base_dir=os.getcwd())
    return load_config(config)


def _hash(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def plan(config: Config) -> list[dict[str, Any]]:
    """Every run of a config, in a stable order, each with its ``run_id``.

    The run id hashes what makes the run: the instance (its spec and content
    hash), the backend and options, filtering, repetition, limit, time limit,
    seed and whether the backend gets the time limit.
    """
    runs: list[dict[str, Any]] = []
    seen: set[str] = set()
    for inst in config.instances:
        about = inst.describe()
        for variant in config.backends:
            for filtering in config.filtering:
                for rep in range(variant.repetitions or config.repetitions):
                    seed = None if config.seed is None else config.seed + rep
                    key = {"instance": inst.spec, "instance_hash": inst.hash,
                           "backend": variant.name, "options": variant.option_map,
                           "filtering": filtering, "repetition": rep, "limit": config.limit,
                           "time_limit": config.time_limit, "seed": seed,
                           "backend_time_limit": config.backend_time_limit}
                    if config.memory_limit is not None:  # (run ids without one unchanged)
                        key["memory_limit"] = config.memory_limit
                    run_id = _hash(key)
                    if run_id in seen:  # the same instance listed twice
                        continue
                    seen.add(run_id)
                    runs.append({"run_id": run_id, "experiment": config.name, **about,
                                 "backend": variant.name, "label": variant.label,
                                 "options": variant.option_map, "filtering": filtering,
                                 "repetition": rep, "limit": config.limit,
                                 "time_limit": config.time_limit, "seed": seed,
                                 "margin": config.margin,
                                 "backend_time_limit": config.backend_time_limit,
                                 "memory_limit": config.memory_limit,
                                 "board": inst.board})
    return runs


# ------------------------------------------------------------ one run
def solve_run(task: Mapping[str, Any]) -> dict[str, Any]:
    """Inside the isolated process: build the model and solve (no verification here).

    A backend that cannot honour the time limit with these options (it raises
    :class:`~futocp.errors.UnsupportedError`) runs without it: the runner's kill at
    ``time_limit + margin`` is then the limit (``time_limit_by`` in the stats says
    which one applied). With ``memory_limit`` (MB) the backend solves in a child
    process of its own capped there (:func:`~futocp.backends.base.run_limits`): a
    run past it is ``unknown``, reason "memory limit of N MB reached".

    Returns:
        ``status``, ``solutions`` (labels per cell), ``exhausted``, ``stats``;
        or ``status = "error"`` and ``reason`` for a futocp error.
    """
    time_limit = task["time_limit"]
    try:
        backend = get_backend(task["backend"])
        model = build_model(task["board"], filtering=task["filtering"])

        def attempt(limit_s: float | None) -> Result:
            return backend.solve(model, limit=task["limit"], time_limit=limit_s,
                                 memory_limit=task.get("memory_limit"),
                                 seed=seed_for(backend, task["seed"]), **dict(task["options"]))

        try:
            result = attempt(time_limit)
            limited_by = "backend" if time_limit is not None else "runner"
        except UnsupportedError:
            if time_limit is None:
                raise
            # e.g. a SAT solver python-sat cannot interrupt: the runner's kill is the limit
            result = attempt(None)
            limited_by = "runner"
    except FutocpError as exc:
        return {"status": "error", "reason": str(exc), "solutions": [], "exhausted": False,
                "stats": {}}
    stats = {**result.stats, "time_limit_by": limited_by}
    return {"status": result.status.value, "solutions": [tuple(s) for s in result.solutions],
            "exhausted": result.exhausted, "finished": result.finished, "stats": stats,
            "reason": result.stats.get("reason")}


@cache
def versions() -> dict[str, str | None]:
    """futocp, Python and solver package versions of this environment."""
    from .. import __version__

    out: dict[str, str | None] = {"futocp": __version__, "python": platform.python_version()}
    for pkg in solver_packages():
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def execute(run: Mapping[str, Any]) -> dict[str, Any]:
    """Do one run in an isolated process, verify its solutions, answer its record.

    The outer time limit is ``time_limit + margin`` seconds (none without a
    time limit); a run killed there is ``unknown``, a run whose process
    crashed or raised is ``error``; ``reason`` says which.
    """
    board = run["board"]
    time_limit, margin = run["time_limit"], run["margin"]
    task = {"board": board, "backend": run["backend"], "options": run["options"],
            "filtering": run["filtering"], "limit": run["limit"], "seed": run["seed"],
            "time_limit": time_limit if run["backend_time_limit"] else None,
            "memory_limit": run.get("memory_limit")}
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    outer = None if time_limit is None else time_limit + margin
    outcome = run_isolated(solve_run, task, outer)

    answer: dict[str, Any] = outcome.value or {}
    reason: str | None
    if outcome.killed:
        status = "unknown"
        reason = (f"killed by the runner after {outer:g} s (time limit {time_limit:g} s "
                  f"+ margin {margin:g} s)")
    elif outcome.error is not None:
        status, reason = "error", outcome.error
    else:
        status, reason = answer["status"], answer.get("reason")
    stats = dict(answer.get("stats", {}))
    if status in ("unknown", "error"):
        stats.setdefault("wall_s", outcome.elapsed)
    checked = RunRecord.from_answer(
        board, run["backend"], REGISTRY[run["backend"]].complete, status,
        answer.get("solutions", []), stats, exhausted=bool(answer.get("exhausted", False)),
        finished=bool(answer.get("finished", False)), reason=reason)
    record = {k: v for k, v in run.items() if k not in ("board", "margin")}
    record.update(checked.to_dict())
    record.update(runner_s=round(outcome.elapsed, 6), process=outcome.method, started=started,
                  host=socket.gethostname(), versions=versions())
    return record


# ------------------------------------------------------------ the results file
def read_jsonl(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], int]:
    """The records of a results file and the number of lines that are not one.

    A line cut by a kill, bytes that are not UTF-8 or JSON that is not a
    record with a ``run_id`` are dropped (the run is then done again), never an
    error. A missing file has no records.
    """
    records: list[dict[str, Any]] = []
    bad = 0
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw.decode("utf-8"))
            except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
                bad += 1
                continue
            if isinstance(rec, dict) and isinstance(rec.get("run_id"), str):
                records.append(rec)
            else:
                bad += 1
    return records, bad


def read_run_ids(path: str | os.PathLike[str]) -> set[str]:
    """The run ids recorded in a results file (unreadable lines are ignored)."""
    return {rec["run_id"] for rec in read_jsonl(path)[0]}


class _Appender:
    """Appends records to results.jsonl: one line each, flushed and fsynced."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - closed in close()
        size = self.fh.seek(0, os.SEEK_END)
        if size:  # a run killed while writing leaves a torn line: end it
            self.fh.seek(size - 1)
            last = self.fh.read(1)
            self.fh.seek(0, os.SEEK_END)
            if last != "\n":
                self.fh.write("\n")

    def append(self, record: Mapping[str, Any]) -> None:
        self.fh.write(json.dumps(record, default=str, separators=(",", ":")) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()


@contextlib.contextmanager
def _output_lock(folder: str) -> Iterator[None]:
    """Refuse two runners writing one output folder at once (POSIX)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(os.path.join(folder, ".lock"), "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UsageError(f"another futocp run is writing to {folder}") from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# ------------------------------------------------------------ executors
def _probe_scheduler(address: str) -> None:
    """Fail at once when nothing listens at a TCP (or TLS) scheduler address.

    Dask's ``Client`` retries a refused connection until its timeout; a refusal
    or an unknown host is certain at the first try, so it is reported then (a
    silent host still costs :data:`CONNECT_TIMEOUT`). Other schemes are left to
    Dask.

    Raises:
        ServiceUnavailable: the connection was refused, the host is unknown, or
            nothing answered within :data:`CONNECT_TIMEOUT` seconds.
    """
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError):
        return  # not a host:port: Dask says what is wrong with it
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            pass
    except ConnectionRefusedError:
        raise ServiceUnavailable(f"cannot reach the Dask scheduler {address}: nothing listens "
                                 f"on {host} port {port} (connection refused)") from None
    except socket.gaierror as exc:
        raise ServiceUnavailable(f"cannot reach the Dask scheduler {address}: unknown host "
                                 f"{host!r} ({exc.strerror or exc})") from None
    except TimeoutError:
        raise ServiceUnavailable(f"cannot reach the Dask scheduler {address}: no answer within "
                                 f"{CONNECT_TIMEOUT} s") from None
    except OSError as exc:
        raise ServiceUnavailable(f"cannot reach the Dask scheduler {address}: "
                                 f"{exc.strerror or exc}") from None


@contextlib.contextmanager
def _executor(config: Config, workers: int) -> Iterator[cf.Executor]:
    """Threads supervising local processes, or a Dask cluster's executor."""
    if config.executor == "local":
        with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="futocp-run") as ex:
            yield ex
        return
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("executor: dask needs dask.distributed; install it with: "
                         "pip install 'futocp[experiments]'") from None
    if config.scheduler:
        _probe_scheduler(config.scheduler)
        try:
            client = Client(config.scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ServiceUnavailable(f"cannot reach the Dask scheduler {config.scheduler} within "
                                     f"{CONNECT_TIMEOUT} s: {str(exc)[:200]}") from None
        cluster = None
    else:
        import logging

        # non-daemonic workers may fork a warm process per run (see isolate.py)
        with dask.config.set({"distributed.worker.daemon": False}):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    try:
        yield client.get_executor(pure=False)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------ progress
class _Progress:
    """A rich progress bar (done/total, failures, ETA) on a terminal; silent otherwise."""

    def __init__(self, total: int, done: int, name: str, enabled: bool | None) -> None:
        if enabled is None:
            enabled = sys.stdout.isatty() and sys.stderr.isatty() and not os.environ.get("CI")
        self.counts: Counter[str] = Counter()
        self.bar = None
        if enabled:
            try:
                from rich.console import Console
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TextColumn,
                    TimeElapsedColumn,
                    TimeRemainingColumn,
                )
            except ImportError:
                return
            self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TextColumn("{task.fields[failures]}"),
                                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                console=Console(stderr=True))
            self.task = self.bar.add_task(name, total=total, completed=done, failures="")
            self.bar.start()

    def update(self, record: Mapping[str, Any]) -> None:
        self.counts[record["status"]] += 1
        if record.get("verified") is False:
            self.counts["wrong"] += 1
        if self.bar is not None:
            bad = [f"{self.counts[k]} {k}" for k in ("error", "unknown", "wrong") if self.counts[k]]
            self.bar.update(self.task, advance=1, failures=", ".join(bad))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


# ------------------------------------------------------------ the experiment
@dataclass
class RunSummary:
    """What :func:`run_experiment` did.

    Attributes:
        output: The output folder.
        results: The results file.
        planned: Runs in the config.
        skipped: Runs already recorded (resumed).
        done: Runs done now.
        statuses: Count per status of the runs done now.
        wrong: Runs done now with a solution that failed verification.
        moved: Where ``fresh`` moved the old results file, if it did.
    """

    output: str
    results: str
    planned: int = 0
    skipped: int = 0
    done: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    wrong: int = 0
    moved: str | None = None


def _failure_record(run: Mapping[str, Any], exc: BaseException) -> dict[str, Any]:
    record = {k: v for k, v in run.items() if k not in ("board", "margin")}
    lost = RunRecord.from_error(run["backend"], REGISTRY[run["backend"]].complete,
                                f"the executor lost the run: {type(exc).__name__}: {exc}")
    record.update(lost.to_dict())
    record.update(runner_s=None, process=None, started=None, host=None, versions=versions())
    return record


def run_experiment(config: Config | str | os.PathLike[str] | Mapping[str, Any], *,
                   fresh: bool = False, workers: int | None = None,
                   progress: bool | None = None) -> RunSummary:
    """Run every run of a config not yet in ``OUTPUT/results.jsonl``.

    Args:
        config: A Config, a YAML file or a mapping.
        fresh: Move an existing results file aside and start over.
        workers: Runs in parallel (overrides the config's ``workers``).
        progress: Show a progress bar (default: only on a terminal, not in CI).

    Returns:
        A :class:`RunSummary`.
    """
    cfg = as_config(config)
    workers = cfg.workers if workers is None else workers
    if workers < 1:
        raise UsageError(f"workers must be at least 1, got {workers}")
    try:
        os.makedirs(cfg.output, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the output folder {cfg.output}: "
                         f"{exc.strerror or exc}") from None
    results = os.path.join(cfg.output, RESULTS)
    summary = RunSummary(cfg.output, results)
    with _output_lock(cfg.output):
        if fresh and os.path.exists(results):
            stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            summary.moved = f"{results}.{stamp}.old"
            os.replace(results, summary.moved)
        runs = plan(cfg)
        from ..formats.base import atomic_write

        if cfg.text:
            atomic_write(os.path.join(cfg.output, "config.yaml"), cfg.text)
        atomic_write(os.path.join(cfg.output, PLAN),
                     json.dumps({"experiment": cfg.name, "labels": [b.label for b in cfg.backends],
                                 "run_ids": [r["run_id"] for r in runs]}))
        done_ids = read_run_ids(results)
        todo = [r for r in runs if r["run_id"] not in done_ids]
        # a fixed shuffle: a partial experiment covers every group, and the drift of a
        # shared machine spreads over all backends instead of favouring the first ones
        random.Random(cfg.name).shuffle(todo)
        summary.planned, summary.skipped = len(runs), len(runs) - len(todo)
        if not todo:
            return summary
        appender = _Appender(results)
        reset_kill_all()
        bar = _Progress(len(runs), summary.skipped, cfg.name, progress)
        statuses: Counter[str] = Counter()
        try:
            with _executor(cfg, workers) as ex:
                futures = {ex.submit(execute, run): run for run in todo}
                try:
                    for fut in cf.as_completed(futures):
                        try:
                            record = fut.result()
                        except Exception as exc:  # noqa: BLE001 - a lost worker costs one run
                            record = _failure_record(futures[fut], exc)
                        try:
                            appender.append(record)
                        except OSError as exc:  # e.g. a full disk: stop, keep what is written
                            raise ResourceError(
                                f"cannot write {results}: {exc.strerror or exc}; the runs "
                                f"recorded so far are kept, run again to resume") from None
                        bar.update(record)
                        statuses[record["status"]] += 1
                        summary.wrong += record.get("verified") is False
                except BaseException:
                    for fut in futures:
                        fut.cancel()
                    kill_all()
                    raise
        finally:
            bar.close()
            appender.close()
        summary.done = sum(statuses.values())
        summary.statuses = dict(statuses)
    return summary

