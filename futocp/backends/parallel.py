"""The process pool of the parallel searches (seed 004), shared by the native backends.

A parallel search splits its tree into *subproblems*, solves them in N forked
processes (:func:`run_parallel`) and puts the answers together: solutions in
search order, counters summed, the search stopped once its answer is known.
The pool hands the subproblems out one at a time, in search order, to
whichever worker is free; with ``share``, a worker left idle with nothing
queued makes a busy one give away the later part of its subproblem (work
sharing), so that the workers stay busy to the end whatever the sizes of the
subproblems. This module knows nothing of any search engine: ``bt``, ``fc``,
``mac`` and ``colorfutoshiki`` (:mod:`~futocp.backends.seedsearch`) split
with their own search, pass prefixes and share; ``listcolor`` splits with its
brancher and passes propagated lists. A backend that works on plain domains
can split with :func:`split_domains` and solve each :func:`restrict`-ed set of
domains.

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

import bisect
import contextlib
import heapq
import multiprocessing
import multiprocessing.connection as mp_connection
import time
import traceback
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from ..errors import SolverError
from .base import Deadline, Option

__all__ = [
    "Subproblem",
    "SolveOne",
    "ParallelRun",
    "Share",
    "run_parallel",
    "fork_available",
    "restrict",
    "split_domains",
    "WORKERS_OPTION",
]

_GRACE_S = 2.0  # seconds the workers get to return after being told to stop
_RESERVE_S = 1.0  # seconds between two requests for work to keep in reserve
_HOLD_S = 0.05  # seconds an idle worker waits for the earliest one's later part (ordered)

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
        solutions: In search order (the keys' order), at most ``limit``.
        finished: Every subproblem finished, or ``limit`` solutions found.
        stats: The numeric stats of the subproblem results, summed (the keys of
            ``maxima``: their maximum).
        worker_nodes: Per worker, the sum of its results' ``node_key`` stat.
        subproblems: Number of subproblems: the given ones plus those shared
            by busy workers.
        solved: Number of subproblems whose result came back.
        shared: Number of times a busy worker gave part of its subproblem away.
        worker_cpu_s: Per worker, the CPU seconds its subproblems took.
    """

    solutions: list[Any]
    finished: bool
    stats: dict[str, Any]
    worker_nodes: list[int]
    subproblems: int
    solved: int
    shared: int = 0
    worker_cpu_s: list[float] = field(default_factory=list)


class Share:
    """A worker's side of work sharing, handed to ``solve_one`` by
    :func:`run_parallel` with ``share=True``.

    The search polls :meth:`wanted` and :meth:`returned` where it polls
    ``interrupted``. When :meth:`wanted` answers True (once per request of
    the pool: a worker is idle, or will be), the search must call
    :meth:`give` once: with the later part of its remaining work, as a
    subproblem and the search-order key at which that part begins, or with
    None when it has nothing to give. A search that will have something soon
    may instead answer at a later poll, once it has (the pool waits for the
    answer rather than ask again); a run that ends first need not answer.
    When :meth:`returned` answers True
    (earlier work is waiting), the search gives *all* its remaining work the
    same way and returns at once, finished with what it did.
    """

    def __init__(self, wid: int, conn: Any, ask: Any, back: Any) -> None:
        self._wid = wid
        self._conn = conn
        self._ask = ask
        self._back = back
        self._served = (0, 0)
        self.task = -1

    def start(self, task: int, served: tuple[int, int]) -> None:
        """A new subproblem; the requests up to ``served`` (the pool's
        counts when it handed the subproblem out) were for earlier ones."""
        self.task = task
        self._served = served

    def wanted(self) -> bool:
        """Whether the pool asks for part of the work now (True once per request)."""
        ask = self._ask[self._wid]
        if ask == self._served[0]:
            return False
        self._served = (ask, self._served[1])
        return True

    def returned(self) -> bool:
        """Whether the pool asks for all the work back now (True once per request)."""
        back = self._back[self._wid]
        if back == self._served[1]:
            return False
        self._served = (self._served[0], back)
        return True

    def give(self, key: tuple[Any, ...] | None, subproblem: Any = None) -> None:
        """Hand ``subproblem`` (starting at search-order ``key``) to the pool; None: nothing."""
        self._conn.send(("give", self.task, key, subproblem))


class _Flag:
    """A flag shared with the forked workers and read without a lock: a worker
    polls it every few hundred tests, where an ``Event``'s lock would cost
    more than the poll's other checks together."""

    def __init__(self, ctx: Any) -> None:
        self._value = ctx.RawValue("b", 0)

    def set(self) -> None:
        self._value.value = 1

    def is_set(self) -> bool:
        return bool(self._value.value)


def _work(wid: int, conn: Any, solve_one: Callable[..., Any], limit: int | None,
          deadline: Deadline, stop: Any, cancel: Any, share: Share | None) -> None:
    """A worker process: solve the subproblems the pool sends until it sends
    None; it dies with the search that started it."""
    from ..childproc import die_with_parent

    die_with_parent()
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                break
            task, sub, served = msg

            def interrupted(task: int = task) -> bool:
                return stop.is_set() or cancel[wid] == task or deadline.expired()

            cpu = time.process_time()
            if share is None:
                sols, finished, stats = solve_one(sub, limit, interrupted)
            else:
                share.start(task, served)
                sols, finished, stats = solve_one(sub, limit, interrupted, share)
            conn.send(("result", task, sols, finished, stats, time.process_time() - cpu))
    except BaseException:  # noqa: BLE001 -- reported to the parent, which raises
        with contextlib.suppress(BaseException):
            conn.send(("error", -1, traceback.format_exc()))


def fork_available() -> bool:
    """Whether worker processes can be forked here (they inherit the compiled search)."""
    return "fork" in multiprocessing.get_all_start_methods()


@dataclass
class _Piece:
    """A subproblem in the pool's books."""

    key: tuple[Any, ...]
    group: Hashable
    sub: Any
    state: str = "pending"  # pending, active, done, dropped
    cut: bool = False  # it gave its later part away: what is left is the part it kept
    solutions: list[Any] = field(default_factory=list)
    finished: bool = False


class _Book:
    """One group's subproblems in search order, and what is known of them."""

    def __init__(self) -> None:
        self.order: list[tuple[tuple[Any, ...], int]] = []  # (key, piece id), sorted
        self.found = 0

    def add(self, key: tuple[Any, ...], pid: int) -> None:
        bisect.insort(self.order, (key, pid))

    def over(self, pieces: list[_Piece], limit: int | None, ordered: bool) -> bool:
        """Whether the group's answer is known: its first ``limit`` solutions
        in search order (``ordered``; otherwise any ``limit``), or all of them."""
        if not ordered and limit is not None and self.found >= limit:
            return True
        total = 0
        for _, pid in self.order:
            piece = pieces[pid]
            if piece.state == "dropped":
                continue
            if piece.state != "done" or not piece.finished:
                return False
            total += len(piece.solutions)
            if limit is not None and total >= limit:
                return True
        return True

    def cut(self, pieces: list[_Piece], limit: int | None) -> tuple[Any, ...] | None:
        """The key past which no subproblem matters (``limit`` solutions at or
        before it, in search order); None while there is none."""
        if limit is None:
            return None
        total = 0
        for key, pid in self.order:
            piece = pieces[pid]
            if piece.state == "done":
                total += len(piece.solutions)
                if total >= limit:
                    return key
        return None

    def solutions(self, pieces: list[_Piece]) -> list[Any]:
        return [s for _, pid in self.order if pieces[pid].state == "done"
                for s in pieces[pid].solutions]


def run_parallel(subproblems: Sequence[Any], solve_one: SolveOne | Callable[..., Any],
                 workers: int, limit: int | None, deadline: Deadline, node_key: str = "nodes",
                 maxima: Collection[str] = (), groups: Sequence[Hashable] | None = None,
                 keys: Sequence[tuple[Any, ...]] | None = None, ordered: bool = False,
                 share: bool = False) -> ParallelRun:
    """Solve ``subproblems`` in ``workers`` forked processes (seed 004's parallel search).

    ``solve_one(subproblem, limit, interrupted)`` runs in a worker (it is
    inherited by fork, so it may be any closure) and answers ``(solutions,
    finished, stats)``: ``finished`` False when ``interrupted()`` stopped it,
    ``stats`` picklable, numbers summed over subproblems (those named in
    ``maxima``: their maximum). The pool hands the subproblems out one at a
    time, to whichever worker is free, in the order of ``keys`` (search-order
    keys, compared as tuples; by default the given order). Once the answer is
    known (below), or the deadline passes, the others are told to stop, and
    any process still running after a short grace is terminated: no process
    outlives the call, whatever happens (an exception in a worker is raised
    here as a :class:`SolverError`).

    The answer is known when ``limit`` solutions are in (any ``limit`` of
    them), or every subproblem is finished. With ``ordered``, it is the
    first ``limit`` solutions in key order, as a sequential search finds
    them: a solution in a subproblem makes the later ones useless (dropped,
    or stopped when running), and the earlier ones are still searched.

    With ``share``, ``solve_one`` takes a fourth argument, a :class:`Share`:
    when a worker is idle and nothing is queued, the busy workers are asked
    to give the later part of their subproblem away (with the key at which
    it begins, after the part they keep), and the idle worker takes it. So
    the workers stay busy to the end whatever the sizes of the subproblems,
    and stay close together in search order. With ``ordered`` and a limit,
    a worker on a later part gives it all back when an earlier part waits,
    and while the earliest running subproblem has given nothing away yet
    (it may hold most of the tree before the answer), an idle worker waits
    up to ``_HOLD_S`` for its later part before it takes a later queued one.

    The subproblems partition the search space, unless ``groups`` (one key per
    subproblem) makes a *portfolio*: the subproblems of each group partition
    the space, the groups are alternative ways of searching it (different
    heuristics, say), and the run is over as soon as one group is (its answer
    known): that group's solutions are the answer (the first such group in
    subproblem order; without one, the group with the most solutions).

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
        return ParallelRun([], True, {}, [0] * workers, 0, 0, 0, [0.0] * workers)
    group_of: Sequence[Hashable] = [0] * len(subproblems) if groups is None else groups
    if len(group_of) != len(subproblems):
        raise ValueError(f"{len(group_of)} group keys for {len(subproblems)} subproblems")
    key_of: Sequence[tuple[Any, ...]] = ([(i,) for i in range(len(subproblems))]
                                         if keys is None else keys)
    pieces: list[_Piece] = []
    books: dict[Hashable, _Book] = {}
    pending: list[tuple[tuple[Any, ...], int]] = []

    def add(key: tuple[Any, ...], group: Hashable, sub: Any) -> None:
        pieces.append(_Piece(key, group, sub))
        books.setdefault(group, _Book()).add(key, len(pieces) - 1)
        heapq.heappush(pending, (key, len(pieces) - 1))

    for sub, group, key in zip(subproblems, group_of, key_of, strict=True):
        add(key, group, sub)

    ctx = multiprocessing.get_context("fork")
    stop = _Flag(ctx)
    cancel = ctx.RawArray("l", [-1] * workers)
    ask, back = ctx.RawArray("l", workers), ctx.RawArray("l", workers)
    conns, procs = [], []
    for w in range(workers):
        mine, theirs = ctx.Pipe()
        conns.append(mine)
        sharer = Share(w, theirs, ask, back) if share else None
        procs.append(ctx.Process(target=_work, name=f"futocp-worker-{w}", daemon=True,
                                 args=(w, theirs, solve_one, limit, deadline, stop, cancel,
                                       sharer)))
    running: dict[int, int] = {}  # worker -> piece id
    idle = list(range(workers))
    worker_nodes = [0] * workers
    worker_cpu = [0.0] * workers
    stats: dict[str, Any] = {}
    error: str | None = None
    solved = given_away = 0
    over_group: Hashable | None = None
    ask_after = 0.0  # after a worker had nothing to give: a short pause
    reserve_after = 0.0  # requests for a part in reserve: one per _RESERVE_S
    asking: int | None = None  # the worker asked for part of its work, not yet answered
    returning: set[int] = set()  # the workers asked for all their work back
    held: float | None = None  # since when an idle worker waits for an earlier part
    preempt = ordered and share and limit is not None
    grace_end: float | None = None
    try:
        for p in procs:
            p.start()
        cuts: dict[Hashable, tuple[Any, ...] | None] = {}  # per group (ordered)
        stale: set[Hashable] = set()  # groups whose cut may have moved
        while True:
            if grace_end is None and deadline.expired():
                stop.set()  # the workers return what they have, within the grace
                grace_end = time.perf_counter() + _GRACE_S
            # hand out work, dropping what no longer matters
            now = time.perf_counter()
            while idle and pending and not stop.is_set():
                key, pid = pending[0]
                piece = pieces[pid]
                cut = cuts.get(piece.group)
                if cut is not None and key > cut:
                    heapq.heappop(pending)
                    piece.state = "dropped"
                    continue
                if preempt and running:
                    first = pieces[min(running.values(), key=lambda p: pieces[p].key)]
                    if first.key < key and not first.cut:
                        # the earliest run has all its part still, maybe most of the
                        # tree before the solution: an idle worker shares it rather
                        # than search far ahead (a little wait for it, no longer)
                        if held is None:
                            held = now
                        if now - held < _HOLD_S:
                            break
                heapq.heappop(pending)
                held = None
                w = idle.pop(0)
                piece.state = "active"
                running[w] = pid
                conns[w].send((pid, piece.sub, (ask[w], back[w])))
            if not (idle and pending):
                held = None
            for w, pid in running.items():  # stop the work past a cut
                cut = cuts.get(pieces[pid].group)
                if cut is not None and pieces[pid].key > cut:
                    cancel[w] = pid
            if not running:
                break
            if grace_end is not None and time.perf_counter() > grace_end:
                break
            if preempt and pending and not stop.is_set():
                # earlier work waits: a worker on a later part gives it all back
                head = pending[0][0]
                for w, pid in running.items():
                    if pieces[pid].key > head and w not in returning:
                        back[w] += 1
                        returning.add(w)
            if share and (not pending or held is not None) and asking is None \
                    and not stop.is_set() and now >= ask_after \
                    and (idle or now >= reserve_after):
                # the earliest busy worker, please give the later part of your
                # work: to an idle worker, or kept in reserve (no wait then)
                w = min(running, key=lambda w: pieces[running[w]].key)
                ask[w] += 1
                asking = w
                if not idle:
                    reserve_after = now + _RESERVE_S
            timeout = 0.05
            if share and idle and (not pending or held is not None) and asking is None \
                    and not stop.is_set():
                timeout = min(timeout, max(0.0, ask_after - now))  # ask again then, not later
            if held is not None:
                timeout = min(timeout, max(0.0, held + _HOLD_S - now))
            ready = mp_connection.wait([*(conns[w] for w in running), *(procs[w].sentinel
                                                                       for w in running)],
                                       timeout=timeout)
            results = False
            for w in list(running):
                if conns[w] not in ready:
                    if procs[w].sentinel in ready and not conns[w].poll():
                        error = error or f"worker {w} died (exit code {procs[w].exitcode})"
                    continue
                msg = conns[w].recv()
                if msg[0] == "error":
                    error = error or f"worker {w} failed:\n{msg[2]}"
                elif msg[0] == "give":
                    _, task, key, sub = msg
                    if asking == w:
                        asking = None
                    if key is None:
                        ask_after = time.perf_counter() + 0.002
                    else:
                        given_away += 1
                        pieces[task].cut = True
                        add(key, pieces[task].group, sub)
                else:
                    _, task, sols, finished, sub_stats, cpu = msg
                    results = True
                    piece = pieces[task]
                    if ordered and sols:
                        stale.add(piece.group)
                    piece.state, piece.solutions, piece.finished = "done", sols, finished
                    books[piece.group].found += len(sols)
                    solved += 1
                    worker_nodes[w] += sub_stats.get(node_key, 0)
                    worker_cpu[w] += cpu
                    for name, value in sub_stats.items():
                        if isinstance(value, (int, float)) and not isinstance(value, bool):
                            if name in maxima:
                                stats[name] = max(stats.get(name, value), value)
                            else:
                                stats[name] = stats.get(name, 0) + value
                    del running[w]
                    idle.append(w)
                    returning.discard(w)
                    if asking == w:
                        asking = None  # it will not answer
            if error is not None:
                break
            for g in stale:
                cuts[g] = books[g].cut(pieces, limit)
            stale.clear()
            if over_group is None and results:
                over = [g for g, book in books.items() if book.over(pieces, limit, ordered)]
                if over:  # the answer is known: the others stop and report
                    over_group = over[0]
                    stop.set()
                    grace_end = time.perf_counter() + _GRACE_S
    finally:
        stop.set()
        for w in range(workers):
            with contextlib.suppress(OSError, ValueError):
                conns[w].send(None)
        grace_over = grace_end is not None and time.perf_counter() > grace_end
        end = time.perf_counter() + (0.0 if grace_over else _GRACE_S)
        for p in procs:
            if p.pid is not None:
                p.join(timeout=max(0.0, end - time.perf_counter()))
        for p in procs:
            if p.is_alive():
                p.terminate()
                p.join()
        for conn in conns:
            conn.close()
    if error is not None:
        raise SolverError(error)
    if over_group is not None:
        solutions = books[over_group].solutions(pieces)
    else:
        solutions = max((book.solutions(pieces) for book in books.values()), key=len, default=[])
    if limit is not None:
        solutions = solutions[:limit]
    return ParallelRun(solutions, over_group is not None, stats, worker_nodes, len(pieces),
                       solved, given_away, worker_cpu)


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
