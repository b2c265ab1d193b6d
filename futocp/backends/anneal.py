"""Simulated annealing (seed 001, Section 4 "Algorithm 1 SIMULATED-ANNEALING").

An *incomplete* backend: it answers ``sat`` with solutions it has checked, or
``unknown``, never ``unsat``. It runs the paper's algorithm (``move="paper"``)
or its variants, over a state of one value per cell, the energy being the
number of violated constraints.

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "anneal".

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = AnnealBackend().solve(build_model(latin_square(3)), seed=1, cooling=1e-3)
    >>> r.status.value, r.stats["final_energy"]
    ('sat', 0)
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import UnsupportedError, UsageError
from ..model import Model
from ..result import Result
from .base import LOCAL_SEARCH_CAPABILITIES, Backend, Deadline, Option

__all__ = ["AnnealBackend", "AnnealProgram", "compile_anneal", "find_partition", "energy",
           "model_violations", "MOVES", "TRACE_POINTS", "PARTITION_OPTION", "Found",
           "LocalSearchBackend"]

MOVES = ("paper", "swap")

_CHECK_EVERY = 4096  # moves between two looks at the deadline (a power of two)
TRACE_POINTS = 1000  # the most points of an energy trace before the final one

PARTITION_OPTION = Option(
    "partition", int, 0, None,
    "the rows (genetic; anneal's swap moves): the groups of a partition of the cells, taken "
    "cyclically from this group index when disjoint from those taken (0 = the rows of a grid "
    "board)", min=0)
"""The option ``partition`` of ``anneal`` and ``genetic``."""


def find_partition(model: Model, start: int = 0) -> tuple[int, ...]:
    """Groups of ``model`` that partition its cells, as indices into ``model.groups``.

    The groups are taken in their order, cyclically from group ``start``,
    whenever they share no cell with the groups taken so far (on a grid board
    ``start=0`` gives the rows, the first column's index the columns).

    Raises:
        UsageError: for a ``start`` that names no group.
        UnsupportedError: when the groups so taken do not cover every cell.

    Example:
        >>> from futocp.families import sudoku
        >>> from futocp.model import build_model
        >>> find_partition(build_model(sudoku((2, 2))), 8)
        (8, 9, 10, 11)
    """
    groups = model.groups
    if not groups and model.n_cells:
        raise UnsupportedError("the model has no groups, so no partition of its cells into groups")
    if not 0 <= start < len(groups):
        raise UsageError(f"option partition={start}: the model has groups 0..{len(groups) - 1}")
    taken: list[int] = []
    covered: set[int] = set()
    for k in range(len(groups)):
        g = (start + k) % len(groups)
        cells = groups[g][0]
        if covered.isdisjoint(cells):
            taken.append(g)
            covered.update(cells)
    if len(covered) != model.n_cells:
        raise UnsupportedError(
            f"no partition of the cells into groups starting from group {start}: the disjoint "
            f"groups found cover {len(covered)} of {model.n_cells} cells (try another 'partition')")
    return tuple(taken)


def missing_labels(model: Model, group: int, fixed: Mapping[int, int]) -> list[int]:
    """The value indices of group ``group``'s multiset that its fixed cells do not
    hold, ascending, with repetitions (a multiset)."""
    cells, counts = model.groups[group]
    need = list(counts) if counts is not None else [1] * model.n_values
    for c in cells:
        if c in fixed:
            need[fixed[c]] -= 1
    return [v for v, k in enumerate(need) for _ in range(max(0, k))]


@dataclass(frozen=True)
class AnnealProgram:
    """The compiled energy structure that :class:`AnnealBackend` runs.

    Attributes:
        n_values: Number of values (labels); value indices are ``0 .. n_values - 1``.
        move: ``"paper"`` or ``"swap"``.
        lists: Per cell, the value indices it may take (its list in the Model).
        free: The cells a move may change (lists of more than one label).
        start: The initial state (paper moves; for swap moves the fixed cells only,
            the rest is drawn per run from :attr:`rows`).
        groups: Per group, its cells (all groups of the Model).
        caps: Flat, ``caps[g * n_values + v]``: how many times group ``g`` may hold ``v``.
        cell_offsets: Per cell, ``g * n_values`` for each group ``g`` holding it.
        relations: Per binary relation, ``(a, b, forward)``: ``forward[i]`` is the bit
            set of the values of ``b`` allowed with value ``i`` of ``a``.
        cell_relations: Per cell, ``(other, table)`` for each of its relations:
            ``table[i]`` is the bit set of ``other``'s values allowed with value ``i``
            of the cell.
        partition: Swap moves: the indices of the partition's groups (else empty).
        rows: Swap moves: per partition group, ``(free cells, missing labels)``.
        partners: Swap moves: per cell, the other free cells of its partition
            group (empty for a fixed cell).
        swappable: Swap moves: the free cells that have a partner.
    """

    n_values: int
    move: str
    lists: tuple[tuple[int, ...], ...]
    free: tuple[int, ...]
    start: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    caps: tuple[int, ...]
    cell_offsets: tuple[tuple[int, ...], ...]
    relations: tuple[tuple[int, int, tuple[int, ...]], ...]
    cell_relations: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    partition: tuple[int, ...] = ()
    rows: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    partners: tuple[tuple[int, ...], ...] = ()
    swappable: tuple[int, ...] = ()

    def occurrences(self, vals: Sequence[int]) -> list[int]:
        """Flat occurrence counts ``occ[g * n_values + v]`` of a state."""
        k = self.n_values
        occ = [0] * (len(self.groups) * k)
        for g, cells in enumerate(self.groups):
            off = g * k
            for c in cells:
                occ[off + vals[c]] += 1
        return occ


def energy(prog: AnnealProgram, vals: Sequence[int]) -> int:
    """The energy of a state by a full recount: violated group occurrences plus
    violated relations (see the module docstring). 0 exactly at a solution."""
    occ = prog.occurrences(vals)
    e = sum(o - c for o, c in zip(occ, prog.caps, strict=True) if o > c)
    for a, b, fwd in prog.relations:
        if not fwd[vals[a]] >> vals[b] & 1:
            e += 1
    return e


def model_violations(model: Model, vals: Sequence[int]) -> int:
    """Violations of a full assignment (value indices) counted from the Model
    alone, with no compiled structure: surplus occurrences in every group and
    partial all-different group, broken binary relations, clues not held.
    Both incomplete backends return a state only when this is 0."""
    bad = 0
    for cells, counts in model.groups:
        held = Counter(vals[c] for c in cells)
        bad += sum(max(0, k - (1 if counts is None else counts[v])) for v, k in held.items())
    for con in model.all_different:
        bad += len(con.cells) - len({vals[c] for c in con.cells})
    for rel in model.binary:
        fwd, _ = model.support(rel)
        bad += not fwd[vals[rel.a]] >> vals[rel.b] & 1
    bad += sum(vals[f.cell] != f.value for f in model.fixed)
    return bad + len(model.nary)  # n-ary relations (cages) are never handled here


def compile_anneal(model: Model, move: str = "paper", partition: int = 0) -> AnnealProgram:
    """Build the energy structure of ``model`` for the given neighbourhood.

    Raises:
        UnsupportedError: swap moves on a model whose groups contain no partition.
    """
    if move not in MOVES:
        raise UsageError(f"option move={move!r}: choose one of {', '.join(MOVES)}")
    k = model.n_values
    n = model.n_cells
    lists = tuple(tuple(model.domain(c)) for c in range(n))
    free = tuple(c for c in range(n) if len(lists[c]) > 1)
    groups = tuple(cells for cells, _ in model.groups)
    caps: list[int] = []
    for _, counts in model.groups:
        caps.extend(counts if counts is not None else [1] * k)
    offsets: list[list[int]] = [[] for _ in range(n)]
    for g, cells in enumerate(groups):
        for c in cells:
            offsets[c].append(g * k)
    relations = []
    cell_rels: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(n)]
    for rel in model.binary:
        fwd, bwd = model.support(rel)
        relations.append((rel.a, rel.b, tuple(fwd)))
        cell_rels[rel.a].append((rel.b, tuple(fwd)))
        cell_rels[rel.b].append((rel.a, tuple(bwd)))
    start = tuple(lst[0] for lst in lists)
    prog = AnnealProgram(n_values=k, move=move, lists=lists, free=free, start=start,
                         groups=groups, caps=tuple(caps), cell_offsets=tuple(map(tuple, offsets)),
                         relations=tuple(relations), cell_relations=tuple(map(tuple, cell_rels)))
    if move == "paper":
        return prog
    part = find_partition(model, partition)
    fixed = {c: lists[c][0] for c in range(n) if len(lists[c]) == 1}
    rows = []
    partners: list[tuple[int, ...]] = [()] * n
    for g in part:
        cells = tuple(c for c in groups[g] if c not in fixed)
        rows.append((cells, tuple(missing_labels(model, g, fixed))))
        for c in cells:
            partners[c] = tuple(o for o in cells if o != c)
    swappable = tuple(c for c in range(n) if partners[c])
    return replace(prog, partition=part, rows=tuple(rows), partners=tuple(partners),
                   swappable=swappable)


def _swap_start(prog: AnnealProgram, rng: random.Random) -> list[int]:
    """A random initial state for swap moves: every partition group a random
    arrangement of its missing labels (a free cell left over, when the fixed
    cells hold too many of a label, takes the first label of its list)."""
    vals = list(prog.start)
    for cells, missing in prog.rows:
        labels = list(missing)
        rng.shuffle(labels)
        for i, c in enumerate(cells):
            vals[c] = labels[i] if i < len(labels) else prog.lists[c][0]
    return vals


class _Run:
    """The counters of the annealing runs of one solve, and its energy trace.

    A run's loop stops at the move counts :meth:`pause` answers (the next look at
    the deadline or the next trace point), so a run without a trace costs what
    it did before the trace existed: one comparison per move.
    """

    __slots__ = ("moves", "accepted", "best", "every", "trace")

    def __init__(self, every: int = 0) -> None:
        self.moves = 0
        self.accepted = 0
        self.best: int | None = None
        self.every = every  # moves between two trace points; 0 = no trace
        self.trace: list[list[int]] = []

    def pause(self, moves: int, e: int, deadline: Deadline) -> int:
        """At ``moves`` moves of the current run with energy ``e``: record a trace
        point if one is due, look at the deadline if due; answer the move count of
        the run's next pause, or -1 when the deadline has passed."""
        if not moves % _CHECK_EVERY and deadline.expired():
            return -1
        nxt = moves - moves % _CHECK_EVERY + _CHECK_EVERY
        if self.every:
            done = self.moves + moves  # over all runs
            if not done % self.every:
                self.trace.append([done, e])
                if len(self.trace) > TRACE_POINTS:  # coarsen: every other point
                    self.every *= 2
                    self.trace = [p for p in self.trace if not p[0] % self.every]
            nxt = min(nxt, moves + self.every - done % self.every)
        return nxt

    def finish(self, e: int) -> None:
        """End the trace with the final state (``[moves, e]``) unless it is there."""
        if not self.every:
            return
        if self.trace and self.trace[-1][0] == self.moves:
            self.trace[-1][1] = e
        else:
            self.trace.append([self.moves, e])


def _anneal(prog: AnnealProgram, vals: list[int], occ: list[int], e: int,
            rng: random.Random, t0: float, cooling: float, cap: int,
            deadline: Deadline, run: _Run) -> int:
    """One run of ``prog.move``'s moves, in place on ``vals``/``occ``; returns the final E.

    A paper move gives a random free cell ``x`` a random label ``b`` of its
    list; a swap move gives it the label ``b`` of a random partner ``y`` (a free
    cell of its partition group), and ``y`` its label ``a``. The move kind is
    a local tested in place, so that one loop runs both without a call per move.
    """
    rand = rng.random
    exp = math.exp
    swap = prog.move == "swap"
    cells = prog.swappable if swap else prog.free
    ncells = len(cells)
    lists = prog.lists
    partners = prog.partners
    caps = prog.caps
    offsets = prog.cell_offsets
    groupsets = [frozenset(o) for o in offsets] if swap else []
    rels = prog.cell_relations
    factor = 1.0 - cooling
    temp = t0
    best = e
    moves = accepted = 0
    stop = 0  # the move count of the next pause (deadline look, trace point)
    while e > 0 and moves < cap and temp > 0.0 and ncells:
        if moves == stop:
            stop = run.pause(moves, e, deadline)
            if stop < 0:
                break
        moves += 1
        x = cells[int(rand() * ncells)]
        a = vals[x]
        if swap:
            others = partners[x]
            y = others[int(rand() * len(others))]
            b = vals[y]
        else:
            lst = lists[x]
            b = lst[int(rand() * len(lst))]
        if a == b:  # nothing changes (a swap of equal labels: a multiset): ΔE = 0, accepted
            accepted += 1
            temp *= factor
            continue
        d = 0
        if swap:
            gx = groupsets[x]
            gy = groupsets[y]
            for off in offsets[x]:  # x: a -> b (groups holding both cells do not change)
                if off not in gy:
                    if occ[off + a] > caps[off + a]:
                        d -= 1
                    if occ[off + b] >= caps[off + b]:
                        d += 1
            for off in offsets[y]:  # y: b -> a
                if off not in gx:
                    if occ[off + b] > caps[off + b]:
                        d -= 1
                    if occ[off + a] >= caps[off + a]:
                        d += 1
            for o, table in rels[y]:  # y: b -> a
                vo = b if o == x else vals[o]  # x's terms below see y at b, not a: corrected here
                d += (table[b] >> vo & 1) - (table[a] >> vo & 1)
        else:
            for off in offsets[x]:
                if occ[off + a] > caps[off + a]:
                    d -= 1
                if occ[off + b] >= caps[off + b]:
                    d += 1
        for o, table in rels[x]:  # x: a -> b
            vo = vals[o]
            d += (table[a] >> vo & 1) - (table[b] >> vo & 1)
        if d <= 0 or rand() < exp(-d / temp):
            accepted += 1
            if swap:
                for off in offsets[x]:
                    if off not in gy:
                        occ[off + a] -= 1
                        occ[off + b] += 1
                for off in offsets[y]:
                    if off not in gx:
                        occ[off + b] -= 1
                        occ[off + a] += 1
                vals[y] = a
            else:
                for off in offsets[x]:
                    occ[off + a] -= 1
                    occ[off + b] += 1
            vals[x] = b
            e += d
            if e < best:
                best = e
        temp *= factor
    run.moves += moves
    run.accepted += accepted
    run.best = best if run.best is None else min(run.best, best)
    return e


def _run_stop(prog: AnnealProgram, final: int, moves: int, cap: int,
              deadline: Deadline) -> str:
    """What ended one run (a key of :data:`futocp.records.STOPS`): a solution (E = 0),
    no cell to move (the fixed cells break a rule), the move cap, the deadline, or
    the temperature falling to 0."""
    if final == 0:
        return "found"
    if not (prog.free if prog.move == "paper" else prog.swappable):
        return "no solution"
    if moves >= cap:
        return "move budget"
    return "time limit" if deadline.expired() else "temperature 0"


class Found:
    """The distinct solutions a local search found, each checked from the Model alone
    (:func:`model_violations`), as labels, up to a limit."""

    def __init__(self, model: Model, limit: int | None) -> None:
        self.model = model
        self.limit = limit
        self.solutions: list[tuple[Any, ...]] = []
        self._seen: set[tuple[int, ...]] = set()

    def add(self, vals: Sequence[int]) -> bool:
        """Keep ``vals`` (value indices per cell) when new and a solution of the Model;
        True once the limit is reached."""
        key = tuple(vals)
        if key not in self._seen and model_violations(self.model, key) == 0:
            self._seen.add(key)
            self.solutions.append(self.model.labels_of(key))
        return self.limit is not None and len(self.solutions) >= self.limit


class LocalSearchBackend(Backend):
    """The seeds' local searches (``anneal``, ``genetic``): incomplete (``sat`` or
    ``unknown``), seeded, timed as compiling (``encode_s``) and searching (``solve_s``)."""

    complete = False
    capabilities = LOCAL_SEARCH_CAPABILITIES
    decided_shortcut = False  # a pure-Python search: nothing to crash

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        t0 = time.perf_counter()
        deadline = Deadline(time_limit)
        rng = random.Random(seed)
        prog = self.compile(model, **options)
        t1 = time.perf_counter()
        found = Found(model, limit)
        stats = self._search(prog, found, rng, deadline, options)
        stats = {"encode_s": t1 - t0, "solve_s": time.perf_counter() - t1, **stats}
        return self.outcome(found.solutions, False, limit, stats)  # it never finishes

    def _search(self, prog: Any, found: Found, rng: random.Random, deadline: Deadline,
                options: dict[str, Any]) -> dict[str, Any]:
        """Search ``prog`` (:meth:`compile`'s), adding candidates to ``found``; the
        stats (the backend's counters and ``stopped``)."""
        raise NotImplementedError


class AnnealBackend(LocalSearchBackend):
    """Seed 001's simulated annealing (incomplete: ``sat`` or ``unknown``)."""

    name = "anneal"
    counters = ("moves", "accepted", "best_energy", "final_energy", "restarts")
    options = (
        Option("t0", float, 100.0, None, "initial temperature T0 (paper: 100)",
               min=0, min_exclusive=True, max=math.inf, max_exclusive=True),
        Option("cooling", float, 2e-6, None,
               "cooling rate r: T <- T*(1 - r) after every move (paper: 2e-6); 0 <= r < 1",
               min=0, max=1, max_exclusive=True),
        Option("moves", int, 5_000_000, None,
               "move cap of one run (the paper states none; at 5e6 moves T = 0.0045)", min=1),
        Option("restarts", int, 0, None,
               "runs after the first, each from the initial state at T0 (paper: none)", min=0),
        Option("move", str, "paper", MOVES,
               "paper: a random free cell gets a random label of its list; swap: two free "
               "cells of a partition group swap labels (groups start as permutations)"),
        PARTITION_OPTION,
        Option("trace", int, 0, None,
               "record the energy every K moves in stats['trace'] as [move, energy] pairs, "
               "the final state last (at most 1001 points: K doubles as needed); 0 = none", min=0),
    )

    def compile(self, model: Model, /, **options: Any) -> AnnealProgram:
        """The energy structure the annealing runs on (:class:`AnnealProgram`)."""
        opts = self.parse_options(options)
        return compile_anneal(model, opts["move"], opts["partition"])

    def _search(self, prog: AnnealProgram, found: Found, rng: random.Random,
                deadline: Deadline, options: dict[str, Any]) -> dict[str, Any]:
        run = _Run(options["trace"])
        runs = 0
        final = None
        stopped = "found"  # what ended the last run (or the deadline, before a restart)
        while runs <= options["restarts"]:
            if runs and deadline.expired():
                stopped = "time limit"
                break
            runs += 1
            vals = list(prog.start) if prog.move == "paper" else _swap_start(prog, rng)
            occ = prog.occurrences(vals)
            e = energy(prog, vals)
            before = run.moves
            e = _anneal(prog, vals, occ, e, rng, options["t0"], options["cooling"],
                         options["moves"], deadline, run)
            final = energy(prog, vals)  # the full recount: never trust the increments alone
            run.best = final if run.best is None else min(run.best, final)
            stopped = _run_stop(prog, final, run.moves - before, options["moves"], deadline)
            if final == 0 and found.add(vals):
                break
        stats: dict[str, Any] = {
            "moves": run.moves, "accepted": run.accepted, "best_energy": run.best,
            "final_energy": final, "restarts": max(0, runs - 1), "stopped": stopped}
        if options["trace"] and final is not None:
            run.finish(final)
            stats["trace"] = run.trace
        return stats
