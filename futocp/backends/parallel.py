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
import time
import traceback
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from ..errors import SolverError
from ..procs import Child, fork_available, start, stop_all, wait_any
from ..propagate import bits
from .base import Deadline, Option

__all__ = [
    "Subproblem",
    "SolveOne",
    "ParallelRun",
    "Share",
    "Pool",
    "run_parallel",
    "fork_available",
    "restrict",
    "split_domains",
    "WORKERS_OPTION",
]

_GRACE_S = 2.0  # seconds the workers get to return after being told to stop
_DELIVER_S = 30.0  # seconds a worker whose search has stopped gets to hand its solutions over
_RESERVE_S = 1.0  # seconds between two requests for work to keep in reserve
_HOLD_S = 0.05  # seconds an idle worker waits for the earliest one's later part (ordered)

#: A subproblem of a domain-based search: assignments ``(cell, value index)``.
Subproblem = tuple[tuple[int, int], ...]

#: ``solve_one(subproblem, limit, interrupted) -> (solutions, finished, stats)``.
SolveOne = Callable[[Any, "int | None", Callable[[], bool]], tuple[list[Any], bool, dict[str, Any]]]

WORKERS_OPTION = Option("workers", int, 1, None,
                        "processes for the parallel search (seed 004): the tree is split at "
                        "its first levels into subproblems; 1 = sequential", min=1)


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


def _work(conn: Any, wid: int, solve_one: Callable[..., Any], limit: int | None,
          deadline: Deadline, stop: _Flag, cancel: Any, share: tuple[Any, Any] | None) -> None:
    """A worker process (:func:`futocp.procs.start`): solve the subproblems the pool
    sends until it sends None."""
    sharer = None if share is None else Share(wid, conn, *share)
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                break
            task, sub, served = msg
            told = False

            def interrupted(task: int = task) -> bool:
                nonlocal told
                if not (stop.is_set() or cancel[wid] == task or deadline.expired()):
                    return False
                if not told:  # the search stops here: its solutions follow
                    told = True
                    conn.send(("stopping", task))
                return True

            cpu = time.process_time()
            if sharer is None:
                sols, finished, stats = solve_one(sub, limit, interrupted)
            else:
                sharer.start(task, served)
                sols, finished, stats = solve_one(sub, limit, interrupted, sharer)
            conn.send(("result", task, sols, finished, stats, time.process_time() - cpu))
    except BaseException:  # noqa: BLE001 -- reported to the parent, which raises
        with contextlib.suppress(BaseException):
            conn.send(("error", -1, traceback.format_exc()))


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


class _Books:
    """A run's subproblems: each in its group's :class:`_Book`, those not handed
    out yet in a heap (search order), and each group's cut (``ordered``)."""

    def __init__(self) -> None:
        self.pieces: list[_Piece] = []
        self.groups: dict[Hashable, _Book] = {}
        self.pending: list[tuple[tuple[Any, ...], int]] = []  # (key, piece id), a heap
        self.cuts: dict[Hashable, tuple[Any, ...] | None] = {}
        self.stale: set[Hashable] = set()  # groups whose cut may have moved

    def add(self, key: tuple[Any, ...], group: Hashable, sub: Any) -> None:
        self.pieces.append(_Piece(key, group, sub))
        self.groups.setdefault(group, _Book()).add(key, len(self.pieces) - 1)
        heapq.heappush(self.pending, (key, len(self.pieces) - 1))

    def past_cut(self, pid: int) -> bool:
        """Whether subproblem ``pid`` no longer matters (it lies past its group's cut)."""
        piece = self.pieces[pid]
        cut = self.cuts.get(piece.group)
        return cut is not None and piece.key > cut

    def done(self, pid: int, solutions: list[Any], finished: bool, ordered: bool) -> None:
        piece = self.pieces[pid]
        if ordered and solutions:
            self.stale.add(piece.group)
        piece.state, piece.solutions, piece.finished = "done", solutions, finished
        self.groups[piece.group].found += len(solutions)

    def recut(self, limit: int | None) -> None:
        for g in self.stale:
            self.cuts[g] = self.groups[g].cut(self.pieces, limit)
        self.stale.clear()

    def over(self, limit: int | None, ordered: bool) -> list[Hashable]:
        """The groups whose answer is known, in subproblem order."""
        return [g for g, book in self.groups.items() if book.over(self.pieces, limit, ordered)]

    def answer(self, group: Hashable | None, over: bool, limit: int | None) -> list[Any]:
        """The solutions of ``group`` when ``over``, else of the group with the most."""
        if over:
            solutions = self.groups[group].solutions(self.pieces)
        else:
            solutions = max((book.solutions(self.pieces) for book in self.groups.values()),
                            key=len, default=[])
        return solutions if limit is None else solutions[:limit]


@dataclass
class Pool:
    """The process pool of the parallel searches (seed 004): ``workers`` forked
    processes (:func:`futocp.procs.start`) that solve subproblems with ``solve_one``.

    ``solve_one(subproblem, limit, interrupted)`` runs in a worker (it is
    inherited by fork, so it may be any closure) and answers ``(solutions,
    finished, stats)``: ``finished`` False when ``interrupted()`` stopped it,
    ``stats`` picklable, numbers summed over subproblems (those named in
    ``maxima``: their maximum). :meth:`run` hands the subproblems out one at a
    time, to whichever worker is free, in the order of ``keys`` (search-order
    keys, compared as tuples; by default the given order). Once the answer is
    known (below), or the deadline passes, the others are told to stop, and
    any process still running after a short grace is killed: no process
    outlives the run, whatever happens (an exception in a worker is raised
    as a :class:`SolverError`). A worker whose search has seen the stop says
    so at once, and gets up to ``_DELIVER_S`` to hand its solutions over:
    making and sending millions of them (an enumeration stopped by its time
    limit) takes longer than the grace.

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

    Example:
        >>> def solve_one(sub, limit, interrupted):
        ...     return [sub], True, {"nodes": 1}
        >>> Pool(solve_one, 2, Deadline(30)).run(["a", "b", "c"]).solutions
        ['a', 'b', 'c']
    """

    solve_one: SolveOne | Callable[..., Any]
    workers: int
    deadline: Deadline
    limit: int | None = None
    ordered: bool = False
    share: bool = False

    def run(self, subproblems: Sequence[Any], keys: Sequence[tuple[Any, ...]] | None = None,
            groups: Sequence[Hashable] | None = None, node_key: str = "nodes",
            maxima: Collection[str] = ()) -> ParallelRun:
        """Solve ``subproblems`` (search-order ``keys``, portfolio ``groups``: see the
        class); ``node_key`` names the stat summed per worker.

        Raises:
            SolverError: a worker failed or died.
        """
        if not subproblems:  # nothing to search: over at once
            return ParallelRun([], True, {}, [0] * self.workers, 0, 0, 0, [0.0] * self.workers)
        group_of: Sequence[Hashable] = [0] * len(subproblems) if groups is None else groups
        if len(group_of) != len(subproblems):
            raise ValueError(f"{len(group_of)} group keys for {len(subproblems)} subproblems")
        key_of: Sequence[tuple[Any, ...]] = ([(i,) for i in range(len(subproblems))]
                                             if keys is None else keys)
        self._begin(node_key, maxima)
        for sub, group, key in zip(subproblems, group_of, key_of, strict=True):
            self._books.add(key, group, sub)
        try:
            self._start_workers()
            while self._round():
                pass
        finally:
            self._close()
        if self._error is not None:
            raise SolverError(self._error)
        return ParallelRun(self._books.answer(self._over_group, self._over, self.limit),
                           self._over, self._stats, self._worker_nodes, len(self._books.pieces),
                           self._solved, self._shared, self._worker_cpu)

    def _begin(self, node_key: str, maxima: Collection[str]) -> None:
        """A run's fresh state."""
        ctx = multiprocessing.get_context("fork")
        n = self.workers
        self._node_key, self._maxima = node_key, maxima
        self._preempt = self.ordered and self.share and self.limit is not None
        self._books = _Books()
        self._stop = _Flag(ctx)  # shared with the workers: stop, this task, give work
        self._cancel = ctx.RawArray("l", [-1] * n)
        self._ask, self._back = ctx.RawArray("l", n), ctx.RawArray("l", n)
        self._children: list[Child] = []
        self._running: dict[int, int] = {}  # worker -> piece id
        self._idle = list(range(n))
        self._worker_nodes, self._worker_cpu = [0] * n, [0.0] * n
        self._stats: dict[str, Any] = {}
        self._error: str | None = None
        self._solved = self._shared = 0
        self._over = False
        self._over_group: Hashable = None  # the group whose answer is known
        self._ask_after = 0.0  # after a worker had nothing to give: a short pause
        self._reserve_after = 0.0  # requests for a part in reserve: one per _RESERVE_S
        self._asking: int | None = None  # the worker asked for part of its work, not answered
        self._returning: set[int] = set()  # the workers asked for all their work back
        self._held: float | None = None  # since when an idle worker waits for an earlier part
        self._grace_end: float | None = None
        self._delivering: dict[int, float] = {}  # worker -> the end of its time to deliver

    def _start_workers(self) -> None:
        share = (self._ask, self._back) if self.share else None
        for w in range(self.workers):
            self._children.append(start(
                _work, (w, self.solve_one, self.limit, self.deadline, self._stop, self._cancel,
                        share), name=f"futocp-worker-{w}", method="fork", duplex=True, daemon=True))

    def _halt(self) -> None:
        """Tell the workers to stop: they return what they have, within the grace."""
        self._stop.set()
        self._grace_end = time.perf_counter() + _GRACE_S

    def _round(self) -> bool:
        """Hand out work, ask for some, take the workers' messages; False when over."""
        if self._grace_end is None and self.deadline.expired():
            self._halt()
        now = time.perf_counter()
        self._hand_out(now)
        for w, pid in self._running.items():  # stop the work past a cut
            if self._books.past_cut(pid):
                self._cancel[w] = pid
        if not self._running:
            return False
        if self._grace_over():
            return False
        stopping = self._stop.is_set()
        if self._preempt and self._books.pending and not stopping:
            self._take_back()
        if self._wants_part(stopping) and now >= self._ask_after \
                and (self._idle or now >= self._reserve_after):
            # the earliest busy worker, please give the later part of your
            # work: to an idle worker, or kept in reserve (no wait then)
            w = min(self._running, key=lambda w: self._books.pieces[self._running[w]].key)
            self._ask[w] += 1
            self._asking = w
            if not self._idle:
                self._reserve_after = now + _RESERVE_S
        timeout = 0.05
        if self._idle and self._wants_part(stopping):
            timeout = min(timeout, max(0.0, self._ask_after - now))  # ask again then, not later
        if self._held is not None:
            timeout = min(timeout, max(0.0, self._held + _HOLD_S - now))
        ready = wait_any([self._children[w] for w in self._running], timeout)
        results = self._receive(ready)
        if self._error is not None:
            return False
        self._books.recut(self.limit)
        if not self._over and results:
            over = self._books.over(self.limit, self.ordered)
            if over:  # the answer is known: the others stop and report
                self._over, self._over_group = True, over[0]
                self._halt()
        return True

    def _grace_over(self) -> bool:
        """Whether the grace after the stop is over, and no running worker whose
        search has stopped is still within its time to deliver."""
        now = time.perf_counter()
        if self._grace_end is None or now <= self._grace_end:
            return False
        return not any(self._delivering.get(w, 0.0) > now for w in self._running)

    def _hand_out(self, now: float) -> None:
        """Give the earliest pending subproblems to the idle workers, dropping those
        past a cut."""
        books = self._books
        while self._idle and books.pending and not self._stop.is_set():
            key, pid = books.pending[0]
            if books.past_cut(pid):
                heapq.heappop(books.pending)
                books.pieces[pid].state = "dropped"
                continue
            if self._holding(key, now):
                break
            heapq.heappop(books.pending)
            self._held = None
            w = self._idle.pop(0)
            books.pieces[pid].state = "active"
            self._running[w] = pid
            self._children[w].send((pid, books.pieces[pid].sub, (self._ask[w], self._back[w])))
        if not (self._idle and books.pending):
            self._held = None

    def _holding(self, key: tuple[Any, ...], now: float) -> bool:
        """Whether an idle worker waits (up to ``_HOLD_S``) for the later part of the
        earliest running subproblem rather than take the one at ``key``: that
        subproblem has all its part still, maybe most of the tree before the
        solution, and an idle worker shares it rather than search far ahead."""
        if not (self._preempt and self._running):
            return False
        pieces = self._books.pieces
        first = pieces[min(self._running.values(), key=lambda p: pieces[p].key)]
        if first.key < key and not first.cut:
            if self._held is None:
                self._held = now
            return now - self._held < _HOLD_S
        return False

    def _take_back(self) -> None:
        """Earlier work waits: a worker on a later part gives it all back."""
        head = self._books.pending[0][0]
        for w, pid in self._running.items():
            if self._books.pieces[pid].key > head and w not in self._returning:
                self._back[w] += 1
                self._returning.add(w)

    def _wants_part(self, stopping: bool) -> bool:
        """Whether a busy worker should be asked for part of its work now: nothing
        is queued (or an idle worker holds for it) and no request is open."""
        return (self.share and (not self._books.pending or self._held is not None)
                and self._asking is None and not stopping)

    def _receive(self, ready: list[Child]) -> bool:
        """Take the messages of the ready running workers; True when results came."""
        results = False
        for w in list(self._running):
            child = self._children[w]
            if child not in ready:
                continue
            try:
                msg = child.receive()
            except (EOFError, OSError):
                self._error = self._error or f"worker {w} died (exit code {child.join(1.0)})"
                continue
            if msg[0] == "error":
                self._error = self._error or f"worker {w} failed:\n{msg[2]}"
            elif msg[0] == "give":
                self._given(w, *msg[1:])
            elif msg[0] == "stopping":
                self._delivering[w] = time.perf_counter() + _DELIVER_S
            else:
                self._result(w, *msg[1:])
                results = True
        return results

    def _given(self, w: int, task: int, key: tuple[Any, ...] | None, sub: Any) -> None:
        """Worker ``w`` answered a request for part of its work."""
        if self._asking == w:
            self._asking = None
        if key is None:
            self._ask_after = time.perf_counter() + 0.002
        else:
            self._shared += 1
            self._books.pieces[task].cut = True
            self._books.add(key, self._books.pieces[task].group, sub)

    def _result(self, w: int, task: int, solutions: list[Any], finished: bool,
                stats: dict[str, Any], cpu: float) -> None:
        """Worker ``w`` is done with subproblem ``task``."""
        self._books.done(task, solutions, finished, self.ordered)
        self._solved += 1
        self._worker_nodes[w] += stats.get(self._node_key, 0)
        self._worker_cpu[w] += cpu
        for name, value in stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if name in self._maxima:
                    self._stats[name] = max(self._stats.get(name, value), value)
                else:
                    self._stats[name] = self._stats.get(name, 0) + value
        del self._running[w]
        self._delivering.pop(w, None)
        self._idle.append(w)
        self._returning.discard(w)
        if self._asking == w:
            self._asking = None  # it will not answer

    def _close(self) -> None:
        """Stop the workers: what the grace has left to finish, then a kill; reap them."""
        self._stop.set()
        for child in self._children:
            with contextlib.suppress(OSError, ValueError):
                child.send(None)
        stop_all(self._children, 0.0 if self._grace_over() else _GRACE_S)


def run_parallel(subproblems: Sequence[Any], solve_one: SolveOne | Callable[..., Any],
                 workers: int, limit: int | None, deadline: Deadline, node_key: str = "nodes",
                 maxima: Collection[str] = (), groups: Sequence[Hashable] | None = None,
                 keys: Sequence[tuple[Any, ...]] | None = None, ordered: bool = False,
                 share: bool = False) -> ParallelRun:
    """Solve ``subproblems`` in ``workers`` forked processes (seed 004's parallel
    search): ``Pool(solve_one, workers, deadline, limit, ordered, share).run(...)``,
    see :class:`Pool`.

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
    return Pool(solve_one, workers, deadline, limit, ordered, share).run(
        subproblems, keys, groups, node_key, maxima)


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
            for values in product(*(bits(domains[c]) for c in chosen))]
