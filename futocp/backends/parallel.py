"""The process pool of the parallel searches (seed 004), shared by the native backends.

A parallel search splits its tree at its first levels into *subproblems*,
solves them in N forked processes (:func:`run_parallel`) and puts the answers
together: solutions concatenated in subproblem order, counters summed, the
first solution stopping the others when one is asked for. This module knows
nothing of any search engine: ``bt``, ``fc``, ``mac`` and ``colorfutoshiki``
(:mod:`~futocp.backends.seedsearch`) split with their own search and pass
prefixes; ``listcolor`` splits with its brancher and passes propagated lists.
A backend that works on plain domains can split with :func:`split_domains`
and solve each :func:`restrict`-ed set of domains.

Every backend that offers the parallel search declares :data:`WORKERS_OPTION`
and falls back to its sequential search where processes cannot be forked
(:func:`fork_available`): the workers inherit the compiled search by fork,
so ``solve_one`` may be any closure.

Example:
    >>> from futocp.backends.base import Deadline
    >>> def solve_one(sub, limit, interrupted):
    ...     return [sub * 10], True, {"nodes": 1, "depth": sub}
    >>> run = run_parallel([1, 2, 3], solve_one, 2, None, Deadline(30), maxima=("depth",))
    >>> run.solutions, run.finished, run.stats
    ([10, 20, 30], True, {'nodes': 3, 'depth': 3})
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import time
import traceback
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from ..errors import SolverError
from .base import Deadline, Option

__all__ = [
    "Subproblem",
    "SolveOne",
    "ParallelRun",
    "run_parallel",
    "fork_available",
    "restrict",
    "split_domains",
    "WORKERS_OPTION",
]

_GRACE_S = 2.0  # seconds the workers get to return after being told to stop

#: A subproblem of a domain-based search: assignments ``(cell, value index)``.
Subproblem = tuple[tuple[int, int], ...]

#: ``solve_one(subproblem, limit, interrupted) -> (solutions, finished, stats)``.
SolveOne = Callable[[Any, "int | None", Callable[[], bool]], tuple[list[Any], bool, dict[str, Any]]]

WORKERS_OPTION = Option("workers", int, 1, None,
                        "processes for the parallel search (seed 004): the tree is split at "
                        "its first levels into subproblems; 1 = sequential")


def bit_indices(mask: int) -> tuple[int, ...]:
    """The value indices of a bit set, ascending.

    Example:
        >>> bit_indices(0b1010)
        (1, 3)
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


@dataclass
class ParallelRun:
    """What :func:`run_parallel` gathered.

    Attributes:
        solutions: In subproblem order (the sequential order), at most ``limit``.
        finished: Every subproblem finished, or ``limit`` solutions found.
        stats: The numeric stats of the subproblem results, summed (the keys of
            ``maxima``: their maximum).
        worker_nodes: Per worker, the sum of its results' ``node_key`` stat.
        subproblems: Number of subproblems.
        solved: Number of subproblems whose result came back.
    """

    solutions: list[Any]
    finished: bool
    stats: dict[str, Any]
    worker_nodes: list[int]
    subproblems: int
    solved: int


def _work(wid: int, subproblems: Sequence[Any], solve_one: SolveOne, limit: int | None,
          deadline: Deadline, counter: Any, stop: Any, out: Any) -> None:
    """A worker process: solve subproblems, pulled in order, until none is left
    or the stop flag is set; it dies with the search that started it."""
    from ..childproc import die_with_parent

    die_with_parent()

    def interrupted() -> bool:
        return stop.is_set() or deadline.expired()

    try:
        while not stop.is_set():
            with counter.get_lock():
                index = counter.value
                counter.value += 1
            if index >= len(subproblems):
                break
            solutions, finished, stats = solve_one(subproblems[index], limit, interrupted)
            out.put(("result", wid, index, solutions, finished, stats))
            if limit is not None and len(solutions) >= limit:
                stop.set()
            if not finished:
                break
    except BaseException:  # noqa: BLE001 -- reported to the parent, which raises
        out.put(("error", wid, traceback.format_exc()))
    finally:
        out.put(("exit", wid, None))


def fork_available() -> bool:
    """Whether worker processes can be forked here (they inherit the compiled search)."""
    return "fork" in multiprocessing.get_all_start_methods()


def run_parallel(subproblems: Sequence[Any], solve_one: SolveOne, workers: int,
                 limit: int | None, deadline: Deadline, node_key: str = "nodes",
                 maxima: Collection[str] = (), groups: Sequence[Hashable] | None = None
                 ) -> ParallelRun:
    """Solve ``subproblems`` in ``workers`` forked processes (seed 004's parallel search).

    ``solve_one(subproblem, limit, interrupted)`` runs in a worker (it is
    inherited by fork, so it may be any closure) and answers ``(solutions,
    finished, stats)``: ``finished`` False when ``interrupted()`` stopped it,
    ``stats`` picklable, numbers summed over subproblems (those named in
    ``maxima``: their maximum). Workers pull the subproblems in order; once
    ``limit`` solutions are in, or the deadline passes, the others are told to
    stop, and any process still running after a short grace is terminated: no
    process outlives the call, whatever happens (an exception in a worker is
    raised here as a :class:`SolverError`).

    The subproblems partition the search space, unless ``groups`` (one key per
    subproblem) makes a *portfolio*: the subproblems of each group partition
    the space, the groups are alternative ways of searching it (different
    heuristics, say), and the run is over as soon as one group is (``limit``
    solutions among its subproblems, or every one of them finished): that
    group's solutions are the answer (the first such group in subproblem
    order; without one, the group with the most solutions).

    Raises:
        SolverError: a worker failed or died.

    Example:
        Two searches of one space (a portfolio): the fast one proves that there
        is no solution, which stops the slow one.

        >>> import time
        >>> def solve_one(sub, limit, interrupted):
        ...     while sub == "slow" and not interrupted():
        ...         time.sleep(0.01)
        ...     return [], sub == "fast", {"nodes": 1}
        >>> run = run_parallel(["slow", "fast"], solve_one, 2, 1, Deadline(60),
        ...                    groups=["b", "a"])
        >>> run.finished, run.solutions, run.solved
        (True, [], 2)
    """
    if not subproblems:  # nothing to search: over at once
        return ParallelRun([], True, {}, [0] * workers, 0, 0)
    keys: Sequence[Hashable] = [0] * len(subproblems) if groups is None else groups
    if len(keys) != len(subproblems):
        raise ValueError(f"{len(keys)} group keys for {len(subproblems)} subproblems")
    size = Counter(keys)
    found: Counter[Hashable] = Counter()
    done: Counter[Hashable] = Counter()
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    counter = ctx.Value("i", 0)
    out = ctx.Queue()
    procs = [ctx.Process(target=_work, name=f"futocp-worker-{w}", daemon=True,
                         args=(w, subproblems, solve_one, limit, deadline, counter, stop, out))
             for w in range(workers)]
    results: dict[int, tuple[list[Any], bool, dict[str, Any]]] = {}
    worker_nodes = [0] * workers
    error: str | None = None
    grace_over = False
    try:
        for p in procs:
            p.start()
        alive = set(range(workers))
        grace_end: float | None = None
        while alive:
            if deadline.expired():
                stop.set()
            if stop.is_set() and grace_end is None:
                grace_end = time.perf_counter() + _GRACE_S
            if grace_end is not None and time.perf_counter() > grace_end:
                grace_over = True
                break
            try:
                kind, wid, *rest = out.get(timeout=0.05)
            except queue_module.Empty:
                for w in list(alive):
                    code = procs[w].exitcode
                    if code is not None and code != 0:
                        error = error or f"worker {w} died (exit code {code})"
                        alive.discard(w)
                        stop.set()
                continue
            if kind == "result":
                index, sub_solutions, sub_finished, sub_stats = rest
                results[index] = (sub_solutions, sub_finished, sub_stats)
                worker_nodes[wid] += sub_stats.get(node_key, 0)
                key = keys[index]
                found[key] += len(sub_solutions)
                done[key] += sub_finished
                if (limit is not None and found[key] >= limit) or done[key] == size[key]:
                    stop.set()  # this group is over (without groups: the search is)
            elif kind == "error":
                error = error or f"worker {wid} failed:\n{rest[0]}"
                stop.set()
            else:
                alive.discard(wid)
    finally:
        stop.set()
        # the workers had their grace already when it ran out: terminate at once
        end = time.perf_counter() + (0.0 if grace_over else _GRACE_S)
        for p in procs:
            if p.pid is not None:
                p.join(timeout=max(0.0, end - time.perf_counter()))
        for p in procs:
            if p.is_alive():
                p.terminate()
                p.join()
        out.close()
        out.cancel_join_thread()
    if error is not None:
        raise SolverError(error)
    by_group: dict[Hashable, list[Any]] = {key: [] for key in keys}
    stats: dict[str, Any] = {}
    for index in sorted(results):
        sols, _, sub_stats = results[index]
        by_group[keys[index]].extend(sols)
        for name, value in sub_stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if name in maxima:
                    stats[name] = max(stats.get(name, value), value)
                else:
                    stats[name] = stats.get(name, 0) + value
    over = [key for key, sols in by_group.items()
            if (limit is not None and len(sols) >= limit) or done[key] == size[key]]
    if over:
        solutions = by_group[over[0]]
    else:
        solutions = max(by_group.values(), key=len, default=[])
    if limit is not None:
        solutions = solutions[:limit]
    return ParallelRun(solutions, bool(over), stats, worker_nodes, len(subproblems),
                       len(results))


def restrict(domains: Sequence[int], subproblem: Subproblem) -> list[int]:
    """``domains`` with each cell of ``subproblem`` reduced to its value.

    Example:
        >>> restrict([7, 7, 7], ((0, 1), (2, 0)))
        [2, 7, 1]
    """
    out = list(domains)
    for cell, value in subproblem:
        out[cell] &= 1 << value
    return out


def split_domains(domains: Sequence[int], target: int,
                  order: Sequence[int] | None = None) -> list[Subproblem]:
    """Subproblems for a domain-based search: every combination of values of
    the first undecided cells (in ``order``, by default the fewest values
    first, then cell order), enough cells for at least ``target``
    combinations. Together they cover the domains exactly once; some may be
    inconsistent (a worker then finds no solution in them quickly).

    Example:
        >>> split_domains([1, 3, 6, 7], 4)
        [((1, 0), (2, 1)), ((1, 0), (2, 2)), ((1, 1), (2, 1)), ((1, 1), (2, 2))]
    """
    if order is None:
        order = sorted(range(len(domains)), key=lambda c: (domains[c].bit_count(), c))
    chosen: list[int] = []
    combos = 1
    for cell in order:
        if combos >= target:
            break
        if domains[cell].bit_count() > 1:
            chosen.append(cell)
            combos *= domains[cell].bit_count()
    chosen.sort()
    return [tuple(zip(chosen, values, strict=True))
            for values in product(*(bit_indices(domains[c]) for c in chosen))]
