"""Seed 004's instances and measurements: difficulty that grows with n, three searches.

The paper's sequential times grow about 7 10^4-fold from 9x9 to 18x18 (its
Table 1.1); uniformly drawn instances with a fixed share of empty cells do
not. :func:`calibrated_board` draws, for each size, instances whose
sequential node count is near a target that follows the paper's curve:
``target(n) = max(floor, top * seq_us(n) / seq_us(18))`` (``top`` the nodes
at 18x18, ``floor`` 1.5 times the no-backtracking count n^2(n+1)/2); it tries
draws (the seed-000 generator, uniform hidden square, n signs) with a number
of givens searched by bisection, and keeps the first whose count lies within
a factor 3 of the target (else the closest). The chosen draw is cached in
``OUTPUT/instances.json`` so that the tasks of one instance (one per mode)
share it.

:func:`measure_instance` then times, on one instance, ``repetitions`` times
each (wall clock: a parallel speed-up is wall time saved, CPU time spent):

* ``sequential``: seed 004's search (``bt``: first empty cell in row-major
  order, values 1..n, first solution), one process;
* ``ordered``: ``bt`` with ``workers=W`` (the answer is the sequential one: a
  solution in a later part waits for the earlier parts), as futocp's backend
  runs it;
* ``any``: the same pool, but the first solution any worker finds stops all
  (the spec's reading of the paper's shared flag, §6.5): ``run_parallel``
  with ``ordered=False``.

Example:
    >>> targets = node_targets({9: 630.0, 18: 4e7}, top=10 ** 6)
    >>> targets[18], targets[9] == round(1.5 * 81 * 10 / 2)
    (1000000, True)
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .measure import CpuClock, task_id

__all__ = ["MODES", "node_targets", "calibrated_board", "measure_instance"]

#: The parallel modes (module docstring).
MODES = ("ordered", "any")


def node_targets(paper_us: Mapping[int, float], top: int) -> dict[int, int]:
    """Per size, the sequential nodes to aim at: the paper's sequential microseconds
    scaled so that the largest size gets ``top``, and at least 1.5 n^2(n+1)/2."""
    largest = max(paper_us)
    return {n: max(round(1.5 * n * n * (n + 1) / 2), round(top * us / paper_us[largest]))
            for n, us in paper_us.items()}


def _nodes(board: Any, limit: int) -> tuple[int, bool]:
    """Sequential ``bt`` nodes on a board, stopped at ``limit``; (nodes, finished)."""
    from ..backends.seedsearch import compile_search, run_search
    from ..model import build_model
    from .seed000_measure import node_stop

    run = run_search(compile_search(build_model(board, filtering="none"), "bt"), limit=1,
                     interrupted=node_stop(limit))
    return run.counters["explored_nodes"], bool(run.finished and run.leaves)


def calibrated_board(n: int, target: int, seed: int, tries: int = 12
                     ) -> tuple[Any, dict[str, Any]]:
    """A seed-000 instance of size n (n signs) whose sequential nodes are near
    ``target`` (module docstring), and how it was found."""
    from .seed000_measure import seed000_board

    lo, hi = n, n * n - 1  # givens: fewer givens, more nodes (mostly)
    best: tuple[float, int, int, int] | None = None  # (log distance, givens, seed, nodes)
    rng = random.Random(seed)
    attempts = 0
    for _ in range(tries):
        attempts += 1
        givens = (lo + hi) // 2
        draw = rng.randrange(2 ** 31)
        board, _ = seed000_board(n, n, givens, "uniform", draw)
        nodes, done = _nodes(board, 3 * target)
        gap = abs(math.log(max(nodes, 1) / target)) if done else math.inf
        if best is None or gap < best[0]:
            best = (gap, givens, draw, nodes)
        if done and target / 3 <= nodes <= 3 * target:
            break
        if not done or nodes > target:
            lo = min(givens + 1, hi)
        else:
            hi = max(givens - 1, lo)
    assert best is not None
    _, givens, draw, nodes = best
    board, _ = seed000_board(n, n, givens, "uniform", draw)
    return board, {"givens": givens, "draw": draw, "calibration_nodes": nodes,
                   "attempts": attempts}


def _cached_board(task: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The calibrated instance of a task, from ``OUTPUT/instances.json`` when another
    task of the same instance drew it already."""
    from ..formats.base import atomic_write
    from .seed000_measure import seed000_board

    key = task_id({k: task[k] for k in ("n", "index", "seed", "target")})
    path = Path(task["cache"]) if task.get("cache") else None
    cache: dict[str, Any] = {}
    if path is not None and path.exists():
        try:
            cache = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            cache = {}
    if key in cache:
        info = cache[key]
        board, _ = seed000_board(int(task["n"]), int(task["n"]), info["givens"], "uniform",
                                 info["draw"])
        return board, info
    board, info = calibrated_board(int(task["n"]), int(task["target"]), int(task["seed"]))
    if path is not None:
        cache[key] = info
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(cache, indent=1, sort_keys=True))
    return board, info


def _any_order(prog: Any, workers: int, time_limit: float | None) -> tuple[list[Any], Any]:
    """The pool of ``workers`` processes sharing the tree, the first solution any of
    them finds stopping all (``run_parallel`` with ``ordered=False``)."""
    from ..backends.base import Deadline
    from ..backends.parallel import run_parallel
    from ..backends.seedsearch import run_search

    def solve_one(piece: Any, limit: int | None, interrupted: Any, share: Any
                  ) -> tuple[list[Any], bool, dict[str, int]]:
        prefix, windows = piece
        run = run_search(prog, prefix=prefix, windows=windows, limit=limit,
                         interrupted=interrupted, share=share)
        return run.leaves, run.finished, run.counters

    par = run_parallel([((), None)], solve_one, workers, 1, Deadline(time_limit),
                       node_key="explored_nodes", keys=[()], ordered=False, share=True)
    return par.solutions, par


def measure_instance(task: Mapping[str, Any]) -> dict[str, Any]:
    """Draw (or read back) one calibrated instance and time the sequential search and
    the parallel one in the task's ``mode`` with ``workers`` processes, interleaved,
    ``repetitions`` times. The record adds ``givens``, ``seq_ms``/``par_ms`` (wall
    milliseconds per repetition), ``seq_cpu_ms``, ``seq_nodes``, ``par_nodes`` (per
    repetition: the workers' total), ``par_worker_nodes``, ``verified``."""
    from ..backends.bt import BtBackend
    from ..backends.seedsearch import compile_search, run_search
    from ..model import build_model
    from ..verify import is_solution

    board, info = _cached_board(task)
    model = build_model(board, filtering="none")
    workers, mode = int(task["workers"]), str(task["mode"])
    limit = task.get("time_limit")
    seq_ms, seq_cpu, par_ms, par_nodes, par_worker_nodes = [], [], [], [], []
    seq_nodes = 0
    verified = True
    for _ in range(int(task["repetitions"])):
        clock, t0 = CpuClock(), time.perf_counter()
        prog = compile_search(model, "bt")
        run = run_search(prog, limit=1)
        seq_ms.append(1000 * (time.perf_counter() - t0))
        seq_cpu.append(1000 * clock.seconds())
        seq_nodes = run.counters["explored_nodes"]
        verified &= bool(run.leaves) and is_solution(board, run.leaves[0])
        t0 = time.perf_counter()
        if mode == "ordered":
            result = BtBackend().solve(model, limit=1, time_limit=limit, workers=workers)
            sols, nodes = result.solutions, result.stats.get("explored_nodes", 0)
            per_worker = result.stats.get("worker_nodes", [])
        else:
            prog = compile_search(model, "bt")
            sols, par = _any_order(prog, workers, limit)
            nodes, per_worker = par.stats.get("explored_nodes", 0), par.worker_nodes
        par_ms.append(1000 * (time.perf_counter() - t0))
        par_nodes.append(int(nodes))
        par_worker_nodes.append(list(per_worker))
        verified &= bool(sols) and is_solution(board, list(sols[0]))
    return {**task, **info, "status": "ok", "seq_ms": seq_ms, "seq_cpu_ms": seq_cpu,
            "seq_nodes": seq_nodes, "par_ms": par_ms, "par_nodes": par_nodes,
            "par_worker_nodes": par_worker_nodes, "verified": verified}
