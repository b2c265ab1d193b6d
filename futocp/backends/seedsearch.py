"""The seeds' complete searches, one engine: BT, FC, MAC (AC-3) and ColorFutoshiki.

Four backends (``bt``, ``fc``, ``mac``, ``colorfutoshiki``) are thin
declarations over this module: it compiles a Model into a
:class:`SearchProgram` (the root lists) and runs the *check search* or the
*propagating search* over it (one depth-first driver, two sets of hooks),
with the seeds' counters (``explored_nodes``,
``removed_values``, ``assignments``, ``backtracks``, ``revisions``), and
splits and shares the tree over ``workers`` processes.

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "seedsearch".

Example:
    >>> from futocp.families import futoshiki
    >>> from futocp.model import build_model
    >>> board = futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
    ...                   less=[((0, 0), (0, 1))])
    >>> prog = compile_search(build_model(board), "colorfutoshiki")
    >>> prog.root_removed  # the given (3) and its 6 peers (1 each)
    9
    >>> run = run_search(prog, limit=None)
    >>> len(run.leaves), run.finished
    (72, True)
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from ..errors import UsageError
from ..model import Model
from ..propagate import bits as _bits
from ..relations import Relation
from ..result import Result
from .base import COMPLETE_CAPABILITIES, Backend, Deadline, Option
from .parallel import (
    WORKERS_OPTION,
    ParallelRun,
    Share,
    Subproblem,
    fork_available,
    restrict,
    run_parallel,
    split_domains,
)

__all__ = [
    "ALGORITHMS",
    "SearchProgram",
    "SearchRun",
    "compile_search",
    "run_search",
    "split_search",
    "Subproblem",
    "ParallelRun",
    "run_parallel",
    "restrict",
    "split_domains",
    "SeedSearchBackend",
    "WORKERS_OPTION",
    "ORDER_OPTION",
    "AC3_OPTION",
    "LISTS_OPTION",
]

ALGORITHMS = ("bt", "fc", "mac", "colorfutoshiki")

ORDER_OPTION = Option("order", str, "static", ("static", "mrv"),
                      "static: the cells in order, givens included (the papers); mrv: givens, "
                      "then the free cell with the fewest consistent values")
"""``bt``'s visiting order."""
AC3_OPTION = Option("ac3", str, "maintain", ("maintain", "pre"),
                    "maintain: AC-3 after every assignment; pre: AC-3 once at the root, then "
                    "plain backtracking over the reduced lists (seed 001's use)")
"""``mac``'s use of AC-3."""
LISTS_OPTION = Option("lists", str, "paper", ("paper", "fixpoint"),
                      "paper: one pass from the givens (seed 000); fixpoint: futocp's iterated "
                      "list filtering")
"""``colorfutoshiki``'s root lists."""
COUNTER_KEYS = ("explored_nodes", "assignments", "backtracks", "removed_values", "revisions")

_CHECK_EVERY = 256  # tests between two looks at the clock (and the stop flag) ...
_CHECK_EVERY_COSTLY = 16  # ... when a test propagates, or an mrv step scans every cell
_SUBPROBLEMS_PER_WORKER = 4  # an enumeration's split deepens until it has this many per worker
_KEEP = 32768  # tests: a run that shares work keeps a subtree that took this many so far

#: Per level of a shared part of the tree: the candidate indices ``(lo, hi)`` searched.
Windows = Sequence[tuple[int, int]]

Arc = tuple[int, int, "tuple[int, ...] | None"]


@lru_cache(maxsize=1 << 16)
def _values_of(domain: int) -> tuple[int, ...]:
    """The value indices of a domain, ascending (the propagating search's
    candidates at a node: a few distinct domains, met again and again)."""
    return tuple(_bits(domain))


# ------------------------------------------------------------------ the program
@dataclass(frozen=True)
class SearchProgram:
    """What the search runs: the structure of the Model and the root lists.

    Attributes:
        algorithm: ``bt``, ``fc``, ``mac`` or ``colorfutoshiki``.
        search: ``check`` (BT-style tests over fixed lists), ``forward`` (forward
            checking) or ``mac`` (AC-3 maintained).
        order: ``static`` (the cells in :attr:`walk` order) or ``mrv``.
        values: The labels; the search works on their indices.
        walk: The static visiting order: every cell, givens included, in model
            cell order (row-major on a grid); for ``mrv``, the givens (which it
            visits first).
        given: Per cell, the value index of its clue, or -1.
        lists: Per cell, the root list (bit set of value indices).
        groups: The all-different groups (asterisms of distinct labels, cages).
        cell_groups: Per cell, the indices of its all-different groups.
        count_groups: The asterisms with repeated labels, as ``(cells, counts)``.
        cell_count_groups: Per cell, the indices of its count groups.
        relations: Per cell, ``(other, forward, backward)`` for each binary
            relation: ``forward[x]`` is the bit set of the other cell's values
            compatible with value ``x`` here, ``backward[y]`` the converse.
        nary: The n-ary relations (cages).
        cell_nary: Per cell, the indices of its n-ary relations.
        arcs: ``mac`` only: the AC-3 arcs ``(i, j, table)``, one per ordered pair
            of cells sharing a group or a relation; ``table[x]`` is the bit set
            of j's values supporting value x of i (None: a plain difference).
        in_arcs: ``mac`` only: per cell x, the arcs ``(k, x)`` to requeue when
            x's domain shrinks.
        root_removed: Sum over cells of (number of values - size of the root list).
        root_revisions: AC-3 revisions made building the root lists.
    """

    algorithm: str
    search: str
    order: str
    values: tuple[Any, ...]
    walk: tuple[int, ...]
    given: tuple[int, ...]
    lists: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    cell_groups: tuple[tuple[int, ...], ...]
    count_groups: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    cell_count_groups: tuple[tuple[int, ...], ...]
    relations: tuple[tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...], ...]
    nary: tuple[Relation, ...]
    cell_nary: tuple[tuple[int, ...], ...]
    arcs: tuple[Arc, ...] = ()
    in_arcs: tuple[tuple[int, ...], ...] = ()
    root_removed: int = 0
    root_revisions: int = 0

    @property
    def n_cells(self) -> int:
        """Number of cells."""
        return len(self.given)

    @property
    def n_values(self) -> int:
        """Number of value indices."""
        return len(self.values)

    @property
    def failed(self) -> bool:
        """True when a root list is empty (the board has no solution)."""
        return not all(self.lists)


def compile_search(model: Model, algorithm: str, *, order: str = "static", ac3: str = "maintain",
                   lists: str = "paper") -> SearchProgram:
    """Compile ``model`` for one of :data:`ALGORITHMS` (see the module docstring).

    The search starts from the board's givens and full lists, not from
    ``model.domains`` (which the Model's own filtering may have reduced), except
    ``lists="fixpoint"``, which runs that filtering.

    Args:
        model: The Model.
        algorithm: ``bt``, ``fc``, ``mac`` or ``colorfutoshiki``.
        order: ``bt``: ``static`` or ``mrv``.
        ac3: ``mac``: ``maintain`` (after every assignment) or ``pre`` (at the
            root only, then the check search over the AC-3 lists).
        lists: ``colorfutoshiki``: ``paper`` (single pass from the givens) or
            ``fixpoint``.

    Raises:
        UsageError: for an unknown algorithm or option value.
    """
    if algorithm not in ALGORITHMS:
        raise UsageError(f"unknown search {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    for option, value in ((ORDER_OPTION, order), (AC3_OPTION, ac3), (LISTS_OPTION, lists)):
        option.parse(value)
    if algorithm != "bt":
        order = "static"
    search = {"bt": "check", "colorfutoshiki": "check", "fc": "forward",
              "mac": "mac" if ac3 == "maintain" else "check"}[algorithm]

    n = model.n_cells
    m = model.n_values
    full = (1 << m) - 1
    given = [-1] * n
    for fx in model.fixed:
        given[fx.cell] = fx.value
    groups = tuple([con.cells for con in model.permutations]
                   + [con.cells for con in model.all_different])
    count_groups = tuple((con.cells, con.counts) for con in model.counts)
    relations: list[list[tuple[int, tuple[int, ...], tuple[int, ...]]]] = [[] for _ in range(n)]
    for rel in model.binary:
        fwd, bwd = model.support(rel)
        relations[rel.a].append((rel.b, tuple(fwd), tuple(bwd)))
        relations[rel.b].append((rel.a, tuple(bwd), tuple(fwd)))
    nary = model.nary
    if order == "mrv":
        walk = tuple(c for c in range(n) if given[c] >= 0)
    else:
        walk = tuple(range(n))
    prog = SearchProgram(
        algorithm=algorithm, search=search, order=order, values=model.values, walk=walk,
        given=tuple(given), lists=(full,) * n,
        groups=groups, cell_groups=_index(n, groups),
        count_groups=count_groups, cell_count_groups=_index(n, [c for c, _ in count_groups]),
        relations=tuple(map(tuple, relations)),
        nary=nary, cell_nary=_index(n, [r.cells for r in nary]))
    if algorithm == "mac":
        arcs, in_arcs = _arcs(prog)
        prog = replace(prog, arcs=arcs, in_arcs=in_arcs)
    if algorithm == "bt":
        return prog  # full lists for every cell, givens included

    start = [full if g < 0 else 1 << g for g in given]
    revisions = 0
    if algorithm == "colorfutoshiki" and lists == "fixpoint":
        root, _, empty = model.filter(start)
        if empty is not None:
            root[empty] = 0
    else:
        prop = _Propagator(prog, start, list(given), trail=None)
        ok = True
        for cell, g in enumerate(given):  # the givens as assignments, in cell order
            if g >= 0 and ok:
                if algorithm == "mac":
                    ok = prop.nonbinary(cell, g, [])
                else:
                    ok = prop.forward(cell, g, nary=algorithm == "fc")
        if ok and algorithm == "mac":
            ok = prop.ac3(deque(range(len(prog.arcs))))
            revisions = prop.revisions
        root = prop.doms
        if not ok:  # a wipe-out at the root: the board has no solution
            root[prop.empty] = 0
    removed = sum(m - d.bit_count() for d in root)
    return replace(prog, lists=tuple(root), root_removed=removed, root_revisions=revisions)


def _index(n: int, families: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """Per cell, the indices of the families (groups, relations) that name it."""
    out: list[list[int]] = [[] for _ in range(n)]
    for i, cells in enumerate(families):
        for c in cells:
            out[c].append(i)
    return tuple(map(tuple, out))


def _arcs(prog: SearchProgram) -> tuple[tuple[Arc, ...], tuple[tuple[int, ...], ...]]:
    """The AC-3 arcs of ``prog``: one per ordered pair of constrained cells.

    A pair that shares an all-different group and has relations gets one merged
    table (support of every relation, minus equal values).
    """
    n = prog.n_cells
    m = prog.n_values
    full = (1 << m) - 1
    peers: list[set[int]] = [set() for _ in range(n)]
    for cells in prog.groups:
        for c in cells:
            peers[c].update(cells)
    tables: list[dict[int, list[int]]] = [{} for _ in range(n)]
    for i in range(n):
        for j, fwd, _ in prog.relations[i]:
            if j == i:
                continue
            merged = tables[i].setdefault(j, [full] * m)
            for x in range(m):
                merged[x] &= fwd[x]
    arcs: list[Arc] = []
    in_arcs: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in sorted((peers[i] - {i}) | set(tables[i])):
            table: list[int] | None = tables[i].get(j)
            if table is not None and j in peers[i]:
                table = [t & ~(1 << x) for x, t in enumerate(table)]
            in_arcs[j].append(len(arcs))
            arcs.append((i, j, None if table is None else tuple(table)))
    return tuple(arcs), tuple(map(tuple, in_arcs))


# ------------------------------------------------------------------ propagation
class _Propagator:
    """Forward checking and AC-3 over ``doms`` (in place), with an undo trail.

    ``val[cell]`` is the value index of an assigned cell (givens included), -1
    for an unassigned one. Every change of a domain is recorded in ``trail``
    as ``(cell, old domain)`` when a trail is given. A method answers False on
    a wipe-out (the search then restores the domains from the trail).
    ``removed`` counts the values removed from other cells' domains,
    ``revisions`` the arcs taken from the AC-3 queue.
    """

    def __init__(self, prog: SearchProgram, doms: list[int], val: list[int],
                 trail: list[tuple[int, int]] | None) -> None:
        self.prog = prog
        self.doms = doms
        self.val = val
        self.trail = trail if trail is not None else []
        self.removed = 0
        self.revisions = 0
        self.empty = -1  # the cell of the last wipe-out
        self.in_queue = bytearray(len(prog.arcs))

    def _set(self, cell: int, new: int) -> None:
        self.trail.append((cell, self.doms[cell]))
        self.removed += (self.doms[cell] ^ new).bit_count()
        self.doms[cell] = new

    def forward(self, cell: int, value: int, nary: bool = True) -> bool:
        """Forward checking after ``cell`` takes ``value`` (``val`` already set,
        the domain already ``{value}``)."""
        prog = self.prog
        doms = self.doms
        val = self.val
        bit = 1 << value
        for g in prog.cell_groups[cell]:
            for w in prog.groups[g]:
                if val[w] < 0 and doms[w] & bit:
                    if doms[w] == bit:
                        self.empty = w
                        return False
                    self._set(w, doms[w] ^ bit)
        for w, fwd, _ in prog.relations[cell]:
            if val[w] < 0:
                d = doms[w]
                nd = d & fwd[value]
                if nd != d:
                    if not nd:
                        self.empty = w
                        return False
                    self._set(w, nd)
        return self._counts(cell, value, None) and (not nary or self._nary(cell, None))

    def nonbinary(self, cell: int, value: int, changed: list[int]) -> bool:
        """The count and n-ary rules after ``cell`` takes ``value`` (its domain
        already ``{value}``); appends the cells whose domain shrank to ``changed``."""
        return self._counts(cell, value, changed) and self._nary(cell, changed)

    def _counts(self, cell: int, value: int, changed: list[int] | None) -> bool:
        """A label whose multiplicity the assigned cells of a count group use up
        leaves the group's unassigned cells."""
        prog = self.prog
        doms = self.doms
        val = self.val
        bit = 1 << value
        for g in prog.cell_count_groups[cell]:
            cells, counts = prog.count_groups[g]
            if sum(1 for x in cells if val[x] == value) < counts[value]:
                continue
            for w in cells:
                if val[w] < 0 and doms[w] & bit:
                    if doms[w] == bit:
                        self.empty = w
                        return False
                    self._set(w, doms[w] ^ bit)
                    if changed is not None:
                        changed.append(w)
        return True

    def _nary(self, cell: int, changed: list[int] | None) -> bool:
        """The last unassigned cell of an n-ary relation keeps the values that
        satisfy it; a relation with no unassigned cell left (one of a single cell)
        must hold."""
        prog = self.prog
        doms = self.doms
        val = self.val
        values = prog.values
        for r in prog.cell_nary[cell]:
            rel = prog.nary[r]
            free = [i for i, x in enumerate(rel.cells) if val[x] < 0]
            if not free:
                if not rel.holds([values[val[x]] for x in rel.cells]):
                    self.empty = cell
                    return False
                continue
            if len(free) != 1:
                continue
            pos = free[0]
            w = rel.cells[pos]
            labels = [values[val[x]] if val[x] >= 0 else None for x in rel.cells]
            keep = 0
            for y in _bits(doms[w]):
                labels[pos] = values[y]
                if rel.holds(labels):
                    keep |= 1 << y
            if keep != doms[w]:
                if not keep:
                    self.empty = w
                    return False
                self._set(w, keep)
                if changed is not None:
                    changed.append(w)
        return True

    def mac(self, cell: int, value: int) -> bool:
        """``cell`` takes ``value`` (``val`` already set): the non-binary rules,
        then AC-3 from the cells that changed."""
        changed = [cell]
        if not self.nonbinary(cell, value, changed):
            return False
        in_arcs = self.prog.in_arcs
        in_queue = self.in_queue
        queue: deque[int] = deque()
        for x in changed:
            for a in in_arcs[x]:
                if not in_queue[a]:
                    in_queue[a] = 1
                    queue.append(a)
        return self.ac3(queue)

    def ac3(self, queue: deque[int]) -> bool:
        """Seed 001's AC-3 (Fig. 5): revise arcs in FIFO order; when D(i) shrinks,
        queue (k, i) for every neighbour k. The queue holds each arc once."""
        doms = self.doms
        arcs = self.prog.arcs
        in_arcs = self.prog.in_arcs
        in_queue = self.in_queue
        for a in queue:
            in_queue[a] = 1
        revisions = 0
        try:
            while queue:
                a = queue.popleft()
                in_queue[a] = 0
                revisions += 1
                i, j, table = arcs[a]
                di = doms[i]
                dj = doms[j]
                if table is None:  # i != j: only a single value of j removes anything
                    if dj & (dj - 1) or not di & dj:
                        continue
                    nd = di & ~dj
                else:
                    nd = 0
                    rest = di
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        if table[low.bit_length() - 1] & dj:
                            nd |= low
                    if nd == di:
                        continue
                if not nd:
                    for b in queue:
                        in_queue[b] = 0
                    self.empty = i
                    return False
                self._set(i, nd)
                for b in in_arcs[i]:
                    if not in_queue[b]:
                        in_queue[b] = 1
                        queue.append(b)
            return True
        finally:
            self.revisions += revisions


# ------------------------------------------------------------------ the searches
@dataclass
class SearchRun:
    """One run of the search.

    Attributes:
        leaves: Solutions (one label per cell), or with ``stop_depth`` the
            prefixes (subproblems) reached at that depth.
        finished: True when the search ended (space exhausted or ``limit``
            reached), False when ``interrupted`` stopped it.
        counters: ``explored_nodes``, ``assignments``, ``backtracks``,
            ``removed_values`` and ``revisions`` of this run (the root lists'
            removals and revisions are in the program, not here).
    """

    leaves: list[Any]
    finished: bool
    counters: dict[str, int] = field(default_factory=dict)


def run_search(prog: SearchProgram, *, prefix: Subproblem = (), stop_depth: int | None = None,
               limit: int | None = None, interrupted: Callable[[], bool] = lambda: False,
               windows: Windows | None = None, share: Share | None = None) -> SearchRun:
    """Run the search of ``prog``, below ``prefix``, down to ``stop_depth``.

    Args:
        prog: The compiled program.
        prefix: Assignments of the first cells of the walk (a subproblem from
            :func:`split_search`): they are made without being counted, and the
            search runs below them only.
        stop_depth: None to search for solutions; else the depth whose nodes
            are recorded as prefixes instead of being explored.
        limit: Most leaves to record (None = all).
        interrupted: Polled every few hundred tests; True stops the search.
        windows: A part of the tree given away by another run (``share``):
            per level from the first one searched (``len(prefix) + 1 -
            len(windows)``) to ``len(prefix)``, the candidate indices
            ``(lo, hi)`` (hi -1: to the end) searched at that level; the
            prefix's assignments at those levels are the giver's, not searched
            here. None: the whole subtree below ``prefix``.
        share: Polled with ``interrupted``: when it wants work, the later part
            of what is left of this run is given to it (:func:`_cut_level`)
            as ``(prefix, windows)`` with its search-order key.
    """
    if prog.failed:
        return SearchRun([], True, dict.fromkeys(COUNTER_KEYS, 0))
    hooks = _check_hooks(prog) if prog.search == "check" else _propagating_hooks(prog)
    leaves: list[Any] = []
    values = prog.values
    end = prog.n_cells if stop_depth is None else stop_depth

    if stop_depth is None:
        def leaf(path: list[int], val: list[int]) -> bool:
            leaves.append(tuple(values[x] for x in val))
            return limit is not None and len(leaves) >= limit
    else:
        def leaf(path: list[int], val: list[int]) -> bool:
            leaves.append(tuple((c, val[c]) for c in path[:end]))
            return limit is not None and len(leaves) >= limit

    counters = dict.fromkeys(COUNTER_KEYS, 0)
    finished = _drive(hooks, prefix, end, leaf, interrupted, counters, windows, share)
    return SearchRun(leaves, finished, counters)


def _windows(pos: list[int], ends: list[int], depth0: int, cut: int) -> tuple[tuple[int, int], ...]:
    """The windows of the part given away: levels ``depth0`` to ``cut``, an
    exhausted level as ``(0, 0)`` (its giver counts its dead end)."""
    return tuple((pos[k], ends[k]) if pos[k] < ends[k] else (0, 0)
                 for k in range(depth0, cut + 1))


def _cut_level(depth0: int, d: int, pos: list[int], ends: list[int], entered: list[int],
               tests: int) -> int:
    """Where a run at depth ``d`` cuts what it has left to give the later part
    away: the deepest level with candidates left whose current child has taken
    about ``_KEEP`` tests so far (the run keeps that child's subtree, likely as
    big again); -1 when there is none, or when the run has taken fewer than
    ``_KEEP`` tests (a young run gives nothing yet: parts smaller than that
    would cost more to hand over than they save).

    "About": all but 1/64 of it. A young run answers at its first poll past
    ``_KEEP`` tests; the levels of its first descent were entered a few tests
    after it started, and with the whole of ``_KEEP`` only the levels above
    its start would qualify then: it would keep nearly all of its part (on
    seed 17 of the 8x8 boards, the whole subtree of the first cell's value,
    while the other worker searched the later values for nothing).

    Example:
        >>> _cut_level(0, 3, [2, 5, 1], [4, 5, 3], [0, 10, 20, _KEEP], _KEEP + 20)
        0
    """
    if tests < _KEEP:
        return -1
    keep = _KEEP - _KEEP // 64
    for j in range(d - 1, depth0 - 1, -1):
        if pos[j] < ends[j] and tests - entered[j + 1] >= keep:
            return j
    return -1


def _give_all(share: Share, depth0: int, d: int, c: int, pos: list[int], ends: list[int],
              path: Sequence[int], val: Sequence[int]) -> None:
    """Give back everything a run at depth ``d`` has left, from candidate ``c`` on
    (``pos``/``ends`` already set for level ``d``): earlier work waits."""
    share.give((*(val[path[k]] for k in range(d)), c),
               (tuple((path[k], val[path[k]]) for k in range(d)),
                tuple((pos[k], ends[k]) for k in range(depth0, d + 1))))


def _give_later_part(share: Share, depth0: int, d: int, pos: list[int], ends: list[int],
                     entered: list[int], tests: int, path: Sequence[int], val: Sequence[int],
                     level_candidates: Callable[[int], Sequence[int]]) -> bool:
    """Answer a request for work: give the later part of what a run at depth ``d``
    has left, past its cut (:func:`_cut_level`; ``pos``/``ends`` already set for
    level ``d``), and narrow the kept windows to it. False when the run has
    nothing to give yet (it answers at a later poll)."""
    cut = _cut_level(depth0, d, pos, ends, entered, tests)
    if cut < 0:
        return False
    key = (*(val[path[k]] for k in range(cut)), level_candidates(cut)[pos[cut]])
    share.give(key, (tuple((path[k], val[path[k]]) for k in range(cut)),
                     _windows(pos, ends, depth0, cut)))
    for k in range(depth0, cut + 1):
        ends[k] = pos[k]
    return True


class _Hooks(NamedTuple):
    """What the check search and the propagating search do differently, for
    :func:`_drive` (built once per run, unpacked to locals before its loop).

    Attributes:
        val: Per cell, its value index, or -1 while unassigned (givens hold
            theirs from the start); the hooks keep it.
        every: Tests between two polls of the clock and of the share.
        walk: The cells visited at the first depths (every cell, but with
            ``select``: the givens).
        select: ``mrv``: the cell visited at a depth, chosen on entering it
            (depths in order); None: the walk.
        candidates: A cell's values, in the order tried, at the current node.
        take: ``take(cell, value)``: the test; True when ``cell`` takes
            ``value`` (assigned, and propagated by a propagating search),
            False with nothing changed.
        release: ``release(cell)``: undo the last ``take`` of ``cell`` (and
            of every cell taken after it).
        counted: The search's own counters since the last call (the
            propagating search's ``removed_values`` and ``revisions``).
    """

    val: list[int]
    every: int
    walk: tuple[int, ...]
    select: Callable[[int], int] | None
    candidates: Callable[[int], Sequence[int]]
    take: Callable[[int, int], bool]
    release: Callable[[int], None]
    counted: Callable[[], dict[str, int]]


def _check_hooks(prog: SearchProgram) -> _Hooks:
    """The check search (BT, ColorFutoshiki, MAC with ``ac3=pre``): a value is
    tested against the assigned cells of its groups and relations, over lists
    fixed at the root; a given accepts its own value, nothing checked."""
    n, values, given, relations = prog.n_cells, prog.values, prog.given, prog.relations
    cell_groups, cell_count_groups = prog.cell_groups, prog.cell_count_groups
    count_groups, cell_nary, nary = prog.count_groups, prog.cell_nary, prog.nary
    val = list(given)
    used = [0] * len(prog.groups)  # per all-different group: the values it holds
    held = [[0] * prog.n_values for _ in count_groups]  # per count group and value: how often
    full = [0] * len(count_groups)  # per count group: the values whose multiplicity is used up

    def assign(v: int, c: int) -> None:
        val[v] = c
        bit = 1 << c
        for g in cell_groups[v]:
            used[g] |= bit
        for g in cell_count_groups[v]:
            held[g][c] += 1
            if held[g][c] == count_groups[g][1][c]:
                full[g] |= bit

    def take(v: int, c: int) -> bool:
        g0 = given[v]
        if g0 >= 0:
            return c == g0
        bit = 1 << c
        for g in cell_groups[v]:
            if used[g] & bit:
                return False
        for g in cell_count_groups[v]:
            if full[g] & bit:
                return False
        for w, fwd, _ in relations[v]:
            x = val[w]
            if x >= 0 and not fwd[c] >> x & 1:
                return False
        for r in cell_nary[v]:
            rel = nary[r]
            if all(val[x] >= 0 for x in rel.cells if x != v):
                if not rel.holds([values[c] if x == v else values[val[x]] for x in rel.cells]):
                    return False
        assign(v, c)
        return True

    def release(v: int) -> None:
        if given[v] >= 0:
            return
        c = val[v]
        val[v] = -1
        bit = 1 << c
        for g in cell_groups[v]:
            used[g] &= ~bit
        for g in cell_count_groups[v]:
            held[g][c] -= 1
            full[g] &= ~bit

    walk = prog.walk
    free_cells = [c for c in range(n) if given[c] < 0]

    def select(depth: int) -> int:
        """mrv: the givens first, then the free cell with the fewest values
        consistent with the current ones."""
        if depth < len(walk):
            return walk[depth]
        best = -1
        best_k = 1 << 30
        for v in free_cells:
            if val[v] >= 0:
                continue
            mask = prog.lists[v]
            for g in cell_groups[v]:
                mask &= ~used[g]
            for g in cell_count_groups[v]:
                mask &= ~full[g]
            for w, _, bwd in relations[v]:
                x = val[w]
                if x >= 0:
                    mask &= bwd[x]
            k = mask.bit_count()
            if k < best_k:
                best, best_k = v, k
                if not k:
                    break
        return best

    for g, v in enumerate(given):
        if v >= 0:
            assign(g, v)  # the givens are pre-stored
    mrv = prog.order == "mrv"
    return _Hooks(val=val, every=_CHECK_EVERY_COSTLY if mrv else _CHECK_EVERY,
                  walk=walk, select=select if mrv else None,
                  candidates=[_bits(d) for d in prog.lists].__getitem__,
                  take=take, release=release, counted=dict)


def _propagating_hooks(prog: SearchProgram) -> _Hooks:
    """The propagating search, FC or MAC: a value is propagated over the current
    domains (a wipe-out refuses it), undone from the trail on the way back. A
    given takes its value, nothing propagated (that was done at the root)."""
    given = prog.given
    val = list(given)
    prop = _Propagator(prog, list(prog.lists), val, trail=[])
    propagate = prop.mac if prog.search == "mac" else prop.forward
    doms = prop.doms
    trail = prop.trail
    marks = [0] * prog.n_cells  # per cell: the trail's length before its value

    def candidates(v: int) -> Sequence[int]:  # a given's domain is its value's
        return _values_of(doms[v])

    def take(v: int, c: int) -> bool:
        marks[v] = len(trail)
        if given[v] >= 0:
            return True
        val[v] = c
        bit = 1 << c
        if doms[v] != bit:  # the domain {c}, not counted as removals
            trail.append((v, doms[v]))
            doms[v] = bit
        if propagate(v, c):
            return True
        release(v)
        return False

    def release(v: int) -> None:
        mark = marks[v]
        while len(trail) > mark:
            w, old = trail.pop()
            doms[w] = old
        if given[v] < 0:
            val[v] = -1

    def counted() -> dict[str, int]:
        out = {"removed_values": prop.removed, "revisions": prop.revisions}
        prop.removed = prop.revisions = 0
        return out

    return _Hooks(val=val, every=_CHECK_EVERY_COSTLY, walk=prog.walk, select=None,
                  candidates=candidates, take=take, release=release, counted=counted)


def _drive(hooks: _Hooks, prefix: Subproblem, end: int,
           leaf: Callable[[list[int], list[int]], bool], interrupted: Callable[[], bool],
           counters: dict[str, int], windows: Windows | None = None,
           share: Share | None = None) -> bool:
    """The depth-first search both searches run, over ``hooks`` (see
    :func:`run_search` for the arguments); answers ``finished``.

    A *test* (``explored_nodes``) is a value tried at a cell, an *assignment*
    one it takes, a *backtrack* a level left with all its values tried.
    """
    val, every, walk, select, candidates, take, release, counted = hooks
    n = len(val)
    jc = len(prefix)
    depth0 = jc if windows is None else jc + 1 - len(windows)
    path = [*walk, *[-1] * (n - len(walk))]  # per level: its cell
    pos = [0] * n  # per level above the current one: the next candidate's index ...
    ends = [0] * n  # ... and the end of the level's window
    entered = [0] * n  # tests done when the current node of each level was entered
    level_cands: list[Sequence[int]] = [()] * n
    for d, (v, c) in enumerate(prefix):
        path[d] = v
        if windows is not None and d >= depth0:  # a level to come back to
            level_cands[d] = candidates(v)
            pos[d], hi = windows[d - depth0]
            ends[d] = hi if hi >= 0 else len(level_cands[d])
        if not take(v, c):
            raise AssertionError(f"subproblem {prefix} fails at cell {v}")
    counted()  # the prefix was counted by the split
    if windows is None and jc >= end:
        leaf(path, val)
        return True

    tests = successes = dead_ends = 0
    wanting = False  # a request for work not answered yet
    check = every
    d = jc
    if select is not None:
        path[d] = select(d)
    v = path[d]
    cands = candidates(v)
    i, lim = (0, len(cands)) if windows is None else windows[-1]
    if lim < 0:
        lim = len(cands)
    try:
        while True:
            descended = False
            while i < lim:
                c = cands[i]
                i += 1
                tests += 1
                check -= 1
                if not check:
                    check = every
                    if interrupted():
                        return False
                    if share is not None and share.returned():  # all of it, from c on
                        pos[d], ends[d] = i - 1, lim
                        _give_all(share, depth0, d, c, pos, ends, path, val)
                        tests -= 1  # c is tested where it went
                        return True
                    if share is not None and (wanting or share.wanted()):
                        pos[d], ends[d], level_cands[d] = i, lim, cands
                        # nothing to give yet: answer as soon as there is
                        wanting = not _give_later_part(
                            share, depth0, d, pos, ends, entered, tests, path, val,
                            level_cands.__getitem__)
                        lim = ends[d]
                if not take(v, c):
                    continue
                successes += 1
                if d + 1 == end:
                    if leaf(path, val):
                        return True
                    release(v)
                    continue
                pos[d] = i
                ends[d] = lim
                level_cands[d] = cands
                d += 1
                entered[d] = tests
                if select is not None:
                    path[d] = select(d)
                v = path[d]
                cands = candidates(v)
                i = 0
                lim = len(cands)
                descended = True
                break
            if descended:
                continue
            if lim == len(cands):  # the rest of a cut level is counted where it went
                dead_ends += 1
            d -= 1
            if d < depth0:
                return True
            v = path[d]
            cands = level_cands[d]
            i = pos[d]
            lim = ends[d]
            release(v)
    finally:
        counters["explored_nodes"] += tests
        counters["assignments"] += successes
        counters["backtracks"] += dead_ends
        for key, value in counted().items():
            counters[key] += value

# ------------------------------------------------------------------ parallel search
def split_search(prog: SearchProgram, target: int, interrupted: Callable[[], bool] = lambda: False
                 ) -> tuple[list[Subproblem], int, dict[str, int], bool]:
    """Split the search tree of ``prog`` at its first levels.

    The frontier starts at the root and goes one level deeper at a time (each
    prefix expanded by the search itself, stopped one level below it) until it
    holds ``target`` prefixes, or is empty (no solution), or one level above
    the leaves.

    Returns:
        ``(subproblems, depth, counters, finished)``: the prefixes in search
        order, their depth, the counters of the levels above them (so that the
        split's plus the subproblems' add up to the sequential search's), and
        False when ``interrupted`` stopped the split.
    """
    frontier: list[Subproblem] = [()]
    depth = 0
    counters = dict.fromkeys(COUNTER_KEYS, 0)
    while frontier and len(frontier) < target and depth < prog.n_cells - 1:
        deeper: list[Subproblem] = []
        for prefix in frontier:
            run = run_search(prog, prefix=prefix, stop_depth=depth + 1, interrupted=interrupted)
            for key, value in run.counters.items():
                counters[key] += value
            if not run.finished:
                return [], depth, counters, False
            deeper.extend(run.leaves)
        frontier = deeper
        depth += 1
    return frontier, depth, counters, True


# ------------------------------------------------------------------ the backends
class SeedSearchBackend(Backend):
    """The common part of ``bt``, ``fc``, ``mac`` and ``colorfutoshiki``.

    A subclass sets ``name``, ``algorithm``, ``options`` and ``counters``.
    """

    algorithm: str = ""
    complete = True
    capabilities = COMPLETE_CAPABILITIES
    counters: ClassVar[tuple[str, ...]] = ("explored_nodes", "removed_values", "assignments",
                                           "backtracks")
    count_rank = None
    decided_shortcut = False  # the papers count the nodes of decided boards too

    def compile(self, model: Model, /, **options: Any) -> SearchProgram:
        """The search program (structure and root lists) that ``solve`` runs."""
        opts = self.parse_options(options)
        return compile_search(model, self.algorithm,
                              **{o.name: opts.get(o.name, o.default)
                                 for o in (ORDER_OPTION, AC3_OPTION, LISTS_OPTION)})

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        t0 = time.perf_counter()
        deadline = Deadline(time_limit)
        workers = options["workers"]
        prog = self.compile(model, **options)
        t1 = time.perf_counter()
        extra: dict[str, Any] = {}
        if workers == 1 or prog.failed or not fork_available():
            run = run_search(prog, limit=limit, interrupted=deadline.expired)
            solutions, finished, counters = run.leaves, run.finished, run.counters
        else:
            solutions, finished, counters, extra = self._parallel(prog, workers, limit, deadline)
        stats: dict[str, Any] = {"encode_s": t1 - t0, "solve_s": time.perf_counter() - t1}
        stats["explored_nodes"] = counters["explored_nodes"]
        stats["removed_values"] = prog.root_removed + counters["removed_values"]
        stats["assignments"] = counters["assignments"]
        stats["backtracks"] = counters["backtracks"]
        if "revisions" in self.counters:
            stats["revisions"] = prog.root_revisions + counters["revisions"]
        stats.update(extra)
        return self.outcome(solutions, finished, limit, stats)

    @staticmethod
    def _parallel(prog: SearchProgram, workers: int, limit: int | None, deadline: Deadline
                  ) -> tuple[list[Any], bool, dict[str, int], dict[str, Any]]:
        """Split (when enumerating), then solve in ``workers`` processes that
        share their work; the first ``limit`` solutions in search order."""
        if limit is None:  # every part is needed: a first split saves sharing
            subproblems, depth, counters, finished = split_search(
                prog, workers * _SUBPROBLEMS_PER_WORKER, deadline.expired)
        else:  # the earliest parts first: the workers share from the root
            subproblems, depth, counters, finished = [()], 0, dict.fromkeys(COUNTER_KEYS, 0), True
        extra: dict[str, Any] = {"workers": workers, "split_depth": depth,
                                 "split_nodes": counters["explored_nodes"],
                                 "subproblems": len(subproblems), "shared": 0,
                                 "worker_nodes": [0] * workers}
        if not finished or not subproblems:
            return [], finished, counters, extra

        def solve_one(piece: tuple[Subproblem, Windows | None], limit: int | None,
                      interrupted: Callable[[], bool], share: Share
                      ) -> tuple[list[Any], bool, dict[str, int]]:
            prefix, windows = piece
            run = run_search(prog, prefix=prefix, windows=windows, limit=limit,
                             interrupted=interrupted, share=share)
            return run.leaves, run.finished, run.counters

        par = run_parallel([(prefix, None) for prefix in subproblems], solve_one, workers, limit,
                           deadline, node_key="explored_nodes",
                           keys=[tuple(c for _, c in prefix) for prefix in subproblems],
                           ordered=True, share=True)
        for key in COUNTER_KEYS:
            counters[key] += par.stats.get(key, 0)
        extra["worker_nodes"] = par.worker_nodes
        extra["subproblems"] = par.subproblems
        extra["shared"] = par.shared
        extra["worker_cpu_s"] = [round(t, 3) for t in par.worker_cpu_s]
        return par.solutions, par.finished, counters, extra
