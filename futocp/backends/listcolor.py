"""The native list-colouring backend: pure Python backtracking over bit-set lists.

Every cell has a *list* (the Model's domain): an ``int`` whose bit ``i`` is set
while value index ``i`` is still allowed. Beside the lists the solver keeps the
*dual table*: for every all-different asterism and label, the bit set of the
asterism's cells that can still take the label. After each choice it
propagates to a fixpoint:

* all-different asterisms: a fixed label leaves the lists of the other cells of
  the asterism; a label that fits only one cell of the asterism is forced there
  (*hidden single*); a label that fits no cell is a dead end;
* count asterisms (repeated labels): once a label's multiplicity is used up it
  leaves the other lists; when the cells that can still take a label are exactly
  as many as it still needs, they all take it;
* inequalities ``a < b``: ``b`` keeps only labels above ``min(a)``, ``a`` only
  labels below ``max(b)``.

Branching. The plain search takes the cell with the fewest labels left
(MRV / DSATUR; ties by the static degree -- inequalities first -- then cell
order) or, when smaller, the (asterism, label) pair with the fewest cells left
("which cell of this row takes 7"). Hard instances (Latin square completion near
the phase transition) need more: after ``_AUTO_SWITCH`` dead ends (option
``lookahead="auto"``) every node runs a Satz-style lookahead over the binary
choices (cells with two labels, labels with two cells): each side is
propagated on a copy; a side that fails forces the other (failed literal), a
label removed by both sides is removed at the node (dilemma rule); the search
then branches on the binary choice whose two sides remove the most values, on
the already propagated copies. When one solution is asked for, the lookahead
search restarts on a Luby schedule with randomised ties (a fixed seed without
``seed``, so runs are reproducible).

Undo is by copying the lists at each node (copying a list of small ints is
faster in CPython than replaying a trail). The search is an explicit stack, so
enumeration depth is not bounded by Python's recursion limit. Without a seed
the search is deterministic; a seed shuffles the tie-break order and the value
order.

Stats: ``nodes`` (children entered), ``backtracks`` (dead ends),
``removed_values`` (values removed by propagation in the search, plus the
Model filtering's), ``max_depth``, ``probes`` (lookahead propagations),
``failed_literals``, ``dilemma_values`` and ``restarts``.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = ListcolorBackend().solve(build_model(latin_square(4)), limit=None)
    >>> r.status.value, r.n_solutions, r.exhausted
    ('sat', 576, True)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import Model
from ..result import Result, Status
from .base import Backend, Deadline, Option

__all__ = ["ListcolorBackend", "ListcolorProgram", "compile_program", "make_propagator",
           "make_branchers", "settle", "luby"]

_CHECK_EVERY = 16  # nodes between two deadline checks


@dataclass(frozen=True)
class ListcolorProgram:
    """The compiled search problem, in the solver's internal cell numbering.

    Internal cell ``i`` is model cell ``cells[i]``; the internal order is the
    branching tie-break order (most inequalities first).

    Attributes:
        cells: Model cell of each internal cell.
        domains: Initial list (bit set of value indices) per internal cell.
        groups: The asterisms, as tuples of internal cells.
        counts: Per group, None (all-different) or the multiplicity of each value.
        cell_groups: Per internal cell, the indices of its groups.
        succ: Per internal cell, the cells whose value must be larger.
        pred: Per internal cell, the cells whose value must be smaller.
        n_values: Number of value indices.
        dual_groups: The all-different groups, in the order of the dual table:
            entry ``j * n_values + v`` of the dual table is the bit set of the
            positions (within group ``dual_groups[j]``) whose cell can take ``v``.
    """

    cells: tuple[int, ...]
    domains: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    counts: tuple[tuple[int, ...] | None, ...]
    cell_groups: tuple[tuple[int, ...], ...]
    succ: tuple[tuple[int, ...], ...]
    pred: tuple[tuple[int, ...], ...]
    n_values: int
    dual_groups: tuple[int, ...]

    @property
    def full(self) -> int:
        """The bit set of every value."""
        return (1 << self.n_values) - 1

    def dual_table(self, domains: list[int] | tuple[int, ...]) -> list[int]:
        """The dual table (positions per all-different group and value) of ``domains``."""
        m = self.n_values
        out = [0] * (len(self.dual_groups) * m)
        for j, g in enumerate(self.dual_groups):
            base = j * m
            for p, c in enumerate(self.groups[g]):
                d = domains[c]
                pbit = 1 << p
                while d:
                    low = d & -d
                    d ^= low
                    out[base + low.bit_length() - 1] |= pbit
        return out


def compile_program(model: Model, rng: random.Random | None = None) -> ListcolorProgram:
    """Compile ``model``; ``rng`` shuffles the tie-break order among equal-degree cells."""
    n = model.n_cells
    degree = [0] * n
    for con in model.less:
        degree[con.a] += 1
        degree[con.b] += 1
    order = list(range(n))
    if rng is not None:
        rng.shuffle(order)
    order.sort(key=lambda c: -degree[c])  # stable: ties keep cell (or shuffled) order
    internal = [0] * n
    for i, c in enumerate(order):
        internal[c] = i
    groups = [tuple(internal[c] for c in con.cells) for con in model.all_different]
    counts: list[tuple[int, ...] | None] = [None] * len(groups)
    for con in model.counts:
        groups.append(tuple(internal[c] for c in con.cells))
        counts.append(con.counts)
    cell_groups: list[list[int]] = [[] for _ in range(n)]
    for g, cells in enumerate(groups):
        for c in cells:
            cell_groups[c].append(g)
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for con in model.less:
        succ[internal[con.a]].append(internal[con.b])
        pred[internal[con.b]].append(internal[con.a])
    return ListcolorProgram(
        cells=tuple(order),
        domains=tuple(model.domains[c] for c in order),
        groups=tuple(groups),
        counts=tuple(counts),
        cell_groups=tuple(map(tuple, cell_groups)),
        succ=tuple(map(tuple, succ)),
        pred=tuple(map(tuple, pred)),
        n_values=model.n_values,
        dual_groups=tuple(g for g, k in enumerate(counts) if k is None),
    )


Propagator = Callable[..., bool]


def make_propagator(prog: ListcolorProgram, hidden_singles: bool = True) -> tuple[Propagator, list[int]]:
    """The propagation function of ``prog`` and its removed-values counter.

    ``propagate(doms, dual, events, dirty=None, trail=None)`` applies the
    events ``(cell, keep)`` (``doms[cell] &= keep``), revises the count groups
    listed in ``dirty``, and everything that implies, in place, and answers
    False on a dead end (the lists are then garbage). Every changed cell is
    appended to ``trail`` when one is given. ``counter[0]`` accumulates the
    removed values.
    """
    m = prog.n_values
    full = prog.full
    n = len(prog.domains)
    gcells = prog.groups
    gcounts = prog.counts
    succ = prog.succ
    pred = prog.pred
    has_less = [bool(s or p) for s, p in zip(succ, pred, strict=True)]
    above = [full & ~((1 << (v + 1)) - 1) for v in range(m)]  # values > v
    below = [(1 << v) - 1 for v in range(m)]  # values < v
    # per cell: (dual base, ~position bit, cells of the group) for its all-different groups
    slots: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(n)]
    for j, g in enumerate(prog.dual_groups):
        for p, c in enumerate(gcells[g]):
            slots[c].append((j * m, ~(1 << p), gcells[g]))
    count_groups = [tuple(g for g in gs if gcounts[g] is not None) for gs in prog.cell_groups]
    any_counts = any(count_groups)
    n_groups = len(gcells)
    counter = [0]

    def propagate(doms: list[int], dual: list[int], events: list[tuple[int, int]],
                  dirty: list[int] | None = None, trail: list[int] | None = None) -> bool:
        removed = 0
        queued = None
        if any_counts:
            queued = [False] * n_groups
            if dirty is None:
                dirty = []
            for g in dirty:
                queued[g] = True
        elif dirty is None:
            dirty = []
        while True:
            while events:
                c, keep = events.pop()
                d = doms[c]
                nd = d & keep
                if nd == d:
                    continue
                if not nd:
                    counter[0] += removed
                    return False
                doms[c] = nd
                if trail is not None:
                    trail.append(c)
                r = d ^ nd
                removed += r.bit_count()
                for base, npbit, cells in slots[c]:
                    rr = r
                    while rr:
                        low = rr & -rr
                        rr ^= low
                        i = base + low.bit_length() - 1
                        x = dual[i] & npbit
                        dual[i] = x
                        if not x & (x - 1):
                            if not x:
                                counter[0] += removed
                                return False
                            if hidden_singles:
                                t = cells[x.bit_length() - 1]
                                if doms[t] != low:
                                    events.append((t, low))
                if not nd & (nd - 1):  # fixed: the label leaves the rest of its asterisms
                    v = nd.bit_length() - 1
                    drop = ~nd
                    for base, npbit, cells in slots[c]:
                        others = dual[base + v] & npbit
                        while others:
                            low = others & -others
                            others ^= low
                            events.append((cells[low.bit_length() - 1], drop))
                if has_less[c]:
                    if d & -d != nd & -nd:  # the minimum went up
                        keep = above[(nd & -nd).bit_length() - 1]
                        for b in succ[c]:
                            events.append((b, keep))
                    if d.bit_length() != nd.bit_length():  # the maximum went down
                        keep = below[nd.bit_length() - 1]
                        for a in pred[c]:
                            events.append((a, keep))
                if queued is not None:
                    for g in count_groups[c]:
                        if not queued[g]:
                            queued[g] = True
                            dirty.append(g)
            if not dirty:
                counter[0] += removed
                return True
            g = dirty.pop()
            queued[g] = False
            counts = gcounts[g]
            cells = gcells[g]
            for v in range(m):
                bit = 1 << v
                need = counts[v]
                can = fix = 0
                for c in cells:
                    d = doms[c]
                    if d & bit:
                        can += 1
                        if d == bit:
                            fix += 1
                if can < need or fix > need:
                    counter[0] += removed
                    return False
                if can == need:
                    if fix < need and hidden_singles:
                        for c in cells:
                            d = doms[c]
                            if d & bit and d != bit:
                                events.append((c, bit))
                elif fix == need:
                    drop = ~bit
                    for c in cells:
                        d = doms[c]
                        if d & bit and d != bit:
                            events.append((c, drop))

    return propagate, counter


Child = tuple[int, int, "list[int] | None", "list[int] | None", int]
Brancher = Callable[[list[int], list[int]], "list[Child] | None"]


class _Timeout(Exception):
    """The deadline passed during a lookahead."""


def make_branchers(prog: ListcolorProgram, propagate: Propagator, counter: list[int],
                   stats: dict[str, int], deadline: Deadline, rng: random.Random | None,
                   dual_branching: bool) -> tuple[Brancher, Brancher]:
    """The two branching functions, plain and lookahead: ``branch(doms, dual)``.

    Answers None for a dead end, ``[]`` when every cell is fixed, else the
    children in the order they are to be tried, each ``(cell, bit, doms, dual,
    removed)``: the choice "cell takes the value of ``bit``" and, when the
    lookahead has already propagated it, the child's lists (else None) and the
    number of values that removed.

    The plain brancher takes the cell with the fewest labels left (MRV; ties by
    the internal cell order) or, with ``dual_branching``, the (all-different
    asterism, label) pair with the fewest cells left when that is smaller; its
    children are propagated by the search.

    The lookahead brancher (in the manner of the Satz SAT solver) every *binary choice*
    -- a cell with two labels left, an (asterism, label) pair with two cells
    left -- is probed: both children are propagated on copies. A child that
    fails is a *failed literal* and the node takes the other child at once; when
    both children survive, a label that both remove is removed at the node (the
    dilemma rule). This repeats to a fixpoint; then the search branches on the
    binary choice whose children remove the most values (product of the two
    counts, so balanced choices win; with ``rng``, a random one among those
    within 10% of the best), reusing the probed lists.
    """
    m = prog.n_values
    sizes_from = range(2, m + 1)
    groups = prog.groups
    dual_groups = prog.dual_groups
    use_dual = bool(dual_groups)
    positions = [tuple(groups[g]) for g in dual_groups]

    def bits_of(d: int) -> list[int]:
        out = []
        while d:
            low = d & -d
            out.append(low)
            d ^= low
        return out

    def simple(doms: list[int], dual: list[int]) -> list[Child]:
        sizes = list(map(int.bit_count, doms))
        dsizes = list(map(int.bit_count, dual)) if dual_branching and use_dual else ()
        for k in sizes_from:
            if k in sizes:
                c = sizes.index(k)
                out: list[Child] = [(c, b, None, None, 0) for b in bits_of(doms[c])]
                break
            if k in dsizes:
                i = dsizes.index(k)
                cells = positions[i // m]
                v = 1 << (i % m)
                out = [(cells[p.bit_length() - 1], v, None, None, 0) for p in bits_of(dual[i])]
                break
        else:
            return []
        if rng is not None:
            rng.shuffle(out)
        return out

    check = [_CHECK_EVERY]

    def probe(doms: list[int], dual: list[int], c: int, bit: int
              ) -> tuple[int, list[int], list[int], list[int]] | None:
        check[0] -= 1
        if not check[0]:
            check[0] = _CHECK_EVERY
            if deadline.expired():
                raise _Timeout
        stats["probes"] += 1
        before = counter[0]
        d = doms[:]
        u = dual[:]
        trail: list[int] = []
        ok = propagate(d, u, [(c, bit)], None, trail)
        weight = counter[0] - before
        counter[0] = before  # a probe removes nothing from the node
        return (weight, d, u, trail) if ok else None

    def branch(doms: list[int], dual: list[int]) -> list[Child] | None:
        while True:
            pairs: list[tuple[int, int, int, int]] = []
            for c, k in enumerate(map(int.bit_count, doms)):
                if k == 2:
                    d = doms[c]
                    low = d & -d
                    pairs.append((c, low, c, d ^ low))
            if use_dual:
                for i, k in enumerate(map(int.bit_count, dual)):
                    if k == 2:
                        x = dual[i]
                        cells = positions[i // m]
                        low = x & -x
                        v = 1 << (i % m)
                        pairs.append((cells[low.bit_length() - 1], v, cells[(x ^ low).bit_length() - 1], v))
            if not pairs:
                return simple(doms, dual)
            cache: dict[tuple[int, int], Any] = {}
            changed = False
            best = None
            best_score = -1
            scored: list[tuple[int, tuple[int, int, int, int]]] = []
            for pair in pairs:
                c1, b1, c2, b2 = pair
                d1 = doms[c1]
                d2 = doms[c2]
                if d1 == b1 or d2 == b2 or not d1 & b1 or not d2 & b2:
                    continue  # settled by a change earlier in this round
                key1 = (c1, b1)
                if key1 in cache:
                    r1 = cache[key1]
                else:
                    r1 = cache[key1] = probe(doms, dual, c1, b1)
                key2 = (c2, b2)
                if key2 in cache:
                    r2 = cache[key2]
                else:
                    r2 = cache[key2] = probe(doms, dual, c2, b2)
                if r1 is None or r2 is None:
                    if r1 is None and r2 is None:
                        return None
                    stats["failed_literals"] += 1
                    c, bit = (c2, b2) if r1 is None else (c1, b1)
                    if not propagate(doms, dual, [(c, bit)]):
                        return None
                    changed = True
                    continue
                common = set(r1[3]).intersection(r2[3])
                if common:
                    s1 = r1[1]
                    s2 = r2[1]
                    events = []
                    for c in common:
                        keep = s1[c] | s2[c]
                        if doms[c] & ~keep:
                            events.append((c, keep))
                    if events:
                        stats["dilemma_values"] += len(events)
                        if not propagate(doms, dual, events):
                            return None
                        changed = True
                        continue
                w1 = r1[0]
                w2 = r2[0]
                score = w1 * w2 * 1024 + w1 + w2
                if rng is not None:
                    scored.append((score, pair))
                if score > best_score:
                    best_score = score
                    best = pair
            if changed:
                continue
            if best is None:  # every pair was settled: take the simple choice
                return simple(doms, dual)
            if rng is not None:
                near = best_score * 0.9
                best = rng.choice([p for s, p in scored if s >= near])
            c1, b1, c2, b2 = best
            r1 = cache[c1, b1]
            r2 = cache[c2, b2]
            first = r1 if r1[0] >= r2[0] else r2  # the child that removes more first
            k1 = (c1, b1, r1[1], r1[2], r1[0])
            k2 = (c2, b2, r2[1], r2[2], r2[0])
            return [k1, k2] if first is r1 else [k2, k1]

    return simple, branch


def luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ...

    >>> [luby(i) for i in range(1, 11)]
    [1, 1, 2, 1, 1, 2, 4, 1, 1, 2]
    """
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


_RESTART_UNIT = 32  # dead ends allowed in a restart run = unit x luby(run)
_AUTO_SWITCH = 50  # dead ends of the plain search before lookahead="auto" turns lookahead on
_NEVER = 1 << 62


class ListcolorBackend(Backend):
    """Native list-colouring backtracking (pure Python, no dependencies)."""

    name = "listcolor"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "less", "strings"})
    extra = None
    max_literals = 4_000_000
    options = (
        Option("lookahead", str, "auto", ("auto", "always", "never"),
               "probe every binary choice (failed literals, dilemma rule, Satz-style branching): "
               f"auto = after {_AUTO_SWITCH} dead ends of the plain search"),
        Option("restarts", bool, True, None,
               "with lookahead and limit=1: restart on a Luby schedule with randomised choices"),
        Option("branching", str, "dual", ("cell", "dual"),
               "plain search: the cell with the fewest labels (cell), or also the "
               "(asterism, label) pair with the fewest cells when that is smaller (dual)"),
        Option("hidden_singles", bool, True, None,
               "force a label that fits only one cell of an asterism (count: exactly the cells left)"),
    )

    def compile(self, model: Model, **options: Any) -> ListcolorProgram:
        self.parse_options(options)
        return compile_program(model)

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        t0 = time.perf_counter()
        deadline = Deadline(time_limit)
        rng = random.Random(seed) if seed is not None else None
        prog = compile_program(model, rng)
        propagate, counter = make_propagator(prog, options["hidden_singles"])
        encode_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        mode = options["lookahead"]
        restarts = options["restarts"] and mode != "never" and limit == 1
        look_rng = rng
        if restarts and look_rng is None:
            look_rng = random.Random(0)  # restarts need varied choices; a fixed seed keeps runs reproducible
        stats = {"nodes": 0, "backtracks": 0, "max_depth": 0, "probes": 0,
                 "failed_literals": 0, "dilemma_values": 0, "restarts": 0}
        plain, _ = make_branchers(prog, propagate, counter, stats, deadline, rng,
                                  options["branching"] == "dual")
        _, look = make_branchers(prog, propagate, counter, stats, deadline, look_rng,
                                 options["branching"] == "dual")
        solutions: list[tuple[Any, ...]] = []
        finished = _search(prog, propagate, counter, plain, look, mode, restarts, limit,
                           deadline, model, stats, solutions)
        solve_s = time.perf_counter() - t1
        if solutions:
            status = Status.SAT
        elif finished:
            status = Status.UNSAT
        else:
            status = Status.UNKNOWN
        stats["removed_values"] = counter[0] + model.stats.get("removed_values", 0)
        out = {"encode_s": encode_s, "solve_s": solve_s, **stats}
        exhausted = finished and (limit is None or len(solutions) < limit)
        return Result(status, solutions, out, exhausted=exhausted)


def _search(prog: ListcolorProgram, propagate: Propagator, counter: list[int], plain: Brancher,
            look: Brancher, mode: str, restarts: bool, limit: int | None, deadline: Deadline,
            model: Model, stats: dict[str, int], solutions: list[tuple[Any, ...]]) -> bool:
    """The whole search, appending to ``solutions``.

    ``mode`` is the lookahead option. With ``restarts`` (limit 1), the search
    runs in restarts: in ``auto`` mode a first plain run of ``_AUTO_SWITCH``
    dead ends, then lookahead runs of ``_RESTART_UNIT * luby(i)`` dead ends.
    Otherwise one run: in ``auto`` mode plain until ``_AUTO_SWITCH`` dead
    ends, lookahead after.

    Answers True when the search is over (space exhausted or limit reached),
    False when the deadline stopped it.
    """
    n = len(prog.domains)
    values = model.values
    where = prog.cells

    def record(doms: list[int]) -> None:
        out: list[Any] = [None] * n
        for i, d in enumerate(doms):
            out[where[i]] = values[d.bit_length() - 1]
        solutions.append(tuple(out))

    root = list(prog.domains)
    if not all(root):
        return True
    root_dual = prog.dual_table(root)
    if not settle(prog, propagate, root, root_dual):
        return True
    switch = {"never": _NEVER, "always": 0, "auto": _AUTO_SWITCH}[mode]
    try:
        if not restarts:
            out = _dfs(root, root_dual, propagate, counter, plain, look, switch, _NEVER,
                       limit, deadline, stats, record, solutions)
            return bool(out)
        if switch:
            out = _dfs(root[:], root_dual[:], propagate, counter, plain, look, _NEVER, switch,
                       limit, deadline, stats, record, solutions)
            if out is not None:
                return out
            stats["restarts"] += 1
        run = 0
        while True:
            run += 1
            out = _dfs(root[:], root_dual[:], propagate, counter, plain, look, 0,
                       _RESTART_UNIT * luby(run), limit, deadline, stats, record, solutions)
            if out is not None:
                return out
            stats["restarts"] += 1
    except _Timeout:
        return False


def _dfs(doms: list[int], dual: list[int], propagate: Propagator, counter: list[int],
         plain: Brancher, look: Brancher, switch: int, budget: int, limit: int | None,
         deadline: Deadline, stats: dict[str, int], record: Callable[[list[int]], None],
         solutions: list[tuple[Any, ...]]) -> bool | None:
    """One depth-first run from the lists ``doms``/``dual`` (consumed).

    Branches with ``plain`` until ``switch`` dead ends, with ``look`` after.
    Answers True (search over), False (deadline) or None (``budget`` dead ends
    reached: restart).
    """
    nodes = backtracks = 0
    max_depth = stats["max_depth"]
    stack: list[tuple[list[int], list[int], list[Child]]] = []
    check = _CHECK_EVERY
    branch = plain if switch else look
    try:
        while True:
            kids = branch(doms, dual)
            if kids is None:
                backtracks += 1
                if backtracks == switch:
                    branch = look
                if backtracks == budget:
                    return None
            elif not kids:
                record(doms)
                if limit is not None and len(solutions) >= limit:
                    return True
            else:
                kids.reverse()  # popped from the end
                stack.append((doms, dual, kids))
                if len(stack) > max_depth:
                    max_depth = len(stack)
            while stack:
                pdoms, pdual, kids = stack[-1]
                c, bit, d, u, removed = kids.pop()
                if not kids:
                    stack.pop()
                nodes += 1
                check -= 1
                if not check:
                    check = _CHECK_EVERY
                    if deadline.expired():
                        return False
                if d is not None:
                    counter[0] += removed
                else:
                    if kids:
                        d = pdoms[:]
                        u = pdual[:]
                    else:  # the last child: the parent's lists are free
                        d = pdoms
                        u = pdual
                    if not propagate(d, u, [(c, bit)]):
                        backtracks += 1
                        if backtracks == switch:
                            branch = look
                        if backtracks == budget:
                            return None
                        continue
                doms = d
                dual = u
                break
            else:
                return True
    finally:
        stats["nodes"] += nodes
        stats["backtracks"] += backtracks
        stats["max_depth"] = max_depth


def settle(prog: ListcolorProgram, propagate: Propagator, doms: list[int], dual: list[int]) -> bool:
    """Bring fresh lists (and their dual table) to the propagation fixpoint (False: dead end)."""
    m = prog.n_values
    groups = prog.groups
    events: list[tuple[int, int]] = []
    for i, x in enumerate(dual):
        if not x:
            return False
        if not x & (x - 1):  # a label with one place left in its asterism
            j, v = divmod(i, m)
            events.append((groups[prog.dual_groups[j]][x.bit_length() - 1], 1 << v))
    full = prog.full
    above = [full & ~((1 << (v + 1)) - 1) for v in range(m)]
    below = [(1 << v) - 1 for v in range(m)]
    for c, d in enumerate(doms):
        if not d & (d - 1):  # a fixed cell: its label leaves the rest of its asterisms
            for g in prog.cell_groups[c]:
                if prog.counts[g] is None:
                    events.extend((x, ~d) for x in groups[g] if x != c)
        for b in prog.succ[c]:
            events.append((b, above[(d & -d).bit_length() - 1]))
        for a in prog.pred[c]:
            events.append((a, below[d.bit_length() - 1]))
    dirty = [g for g, counts in enumerate(prog.counts) if counts is not None]
    return propagate(doms, dual, events, dirty)
