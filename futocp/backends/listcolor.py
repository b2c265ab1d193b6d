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
* inequalities ``a < b`` (the specialised encoding of ``less``): ``b`` keeps
  only labels above ``min(a)``, ``a`` only labels below ``max(b)``;
* every other binary relation (``consecutive``, ``ratio``, a kind registered
  by a user...), from its support (:meth:`~futocp.model.Model.support`): arc
  consistency -- when a cell's list changes, its partner keeps only the
  labels compatible with one of the cell's remaining labels;
* partial all-different groups (a cage's cells): a fixed label leaves the
  lists of the group's other cells (no hidden singles: the group need not
  hold every label);
* cages: the label sets of the right size and sum
  (:meth:`~futocp.model.Model.combinations`) that still fit -- every cell can
  take one of their labels, the fixed cells' labels belong to them -- bound
  every list of the cage, and a label all of them need that fits one cell
  only is placed there.

Branching. The plain search takes the cell with the fewest labels left
(MRV / DSATUR; ties by the static degree -- relations first -- then cell
order) or, when smaller, the (asterism, label) pair with the fewest cells left
("which cell of this row takes 7"). Hard instances (Latin square completion near
the phase transition) need more: after ``_AUTO_SWITCH`` dead ends (option
``lookahead="auto"``) every node runs a Satz-style lookahead over the binary
choices (cells with two labels, labels with two cells): each side is
propagated on a copy; a side that fails forces the other (failed literal), a
label removed by both sides is removed at the node (dilemma rule); the search
then branches on the binary choice whose sides create the most new binary
choices or remove the most values (option ``weight``), on the already
propagated copies, lighter side first. By default (``weight="portfolio"``),
when one solution is asked for, the two scorings run as two searches in turns
(the removed-values one alone for its first dead ends) and the first to
finish answers: each has heavy tails on different instances (on the 40 CSPLib
QWH order-30 instances the worst case drops from 1.5M probes to 0.56M, the
total by a quarter).

Undo is by copying the lists at each node (copying a list of small ints is
faster in CPython than replaying a trail). The search is an explicit stack, so
enumeration depth is not bounded by Python's recursion limit. Without a seed
the search is deterministic; a seed shuffles the tie-break order and the value
order.

Stats: ``nodes`` (children entered), ``backtracks`` (dead ends),
``removed_values`` (values removed by propagation in the search, plus the
Model filtering's), ``max_depth``, ``probes`` (lookahead propagations),
``failed_literals`` and ``dilemma_values``.

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

from ..errors import UnsupportedError
from ..model import Model
from ..result import Result, Status
from .base import Backend, Deadline, Option

__all__ = ["ListcolorBackend", "ListcolorProgram", "compile_program", "make_propagator",
           "make_plain_brancher", "make_lookahead_brancher", "settle", "WEIGHTS"]

_CHECK_EVERY = 16  # nodes between two deadline checks
_ARCS, _PEERS = 2, 4  # a changed cell's binary relations (but less), its partial groups


@dataclass(frozen=True)
class ListcolorProgram:
    """The compiled search problem, in the solver's internal cell numbering.

    Internal cell ``i`` is model cell ``cells[i]``; the internal order is the
    branching tie-break order (most relations first).

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
        arcs: Per internal cell, ``(other, support)`` for every binary relation
            but ``less`` that ties it to ``other``: ``support[v]`` is the bit
            set of the values of ``other`` compatible with value ``v`` of the cell.
        distinct: The partial all-different groups (cages), as tuples of internal cells.
        cages: Per cage, ``(cells, combinations)``: its internal cells and the
            bit sets of values that may fill it together (right size and sum).
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
    arcs: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...] = ()
    distinct: tuple[tuple[int, ...], ...] = ()
    cages: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()

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
    for rel in model.binary:  # every binary relation; a plain Futoshiki: its inequalities
        degree[rel.a] += 1
        degree[rel.b] += 1
    for rel in model.cages:
        for c in rel.cells:
            degree[c] += 1
    order = list(range(n))
    if rng is not None:
        rng.shuffle(order)
    order.sort(key=lambda c: -degree[c])  # stable: ties keep cell (or shuffled) order
    internal = [0] * n
    for i, c in enumerate(order):
        internal[c] = i
    groups = [tuple(internal[c] for c in con.cells) for con in model.permutations]
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
    arcs: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(n)]
    for rel in model.binary:
        a = internal[rel.a]
        b = internal[rel.b]
        if rel.kind == "less":  # the specialised bounds encoding
            succ[a].append(b)
            pred[b].append(a)
        else:  # the generic one: arc consistency on the support
            forward, backward = model.support(rel)
            arcs[a].append((b, tuple(forward)))
            arcs[b].append((a, tuple(backward)))
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
        arcs=tuple(map(tuple, arcs)),
        distinct=tuple(tuple(internal[c] for c in con.cells) for con in model.all_different),
        cages=tuple((tuple(internal[c] for c in rel.cells), tuple(model.combinations(rel)))
                    for rel in model.cages),
    )


Propagator = Callable[..., bool]


def make_propagator(prog: ListcolorProgram, hidden_singles: bool = True) -> tuple[Propagator, list[int]]:
    """The propagation function of ``prog`` and its counters.

    ``propagate(doms, dual, events, dirty=None, trail=None)`` applies the
    events ``(cell, keep)`` (``doms[cell] &= keep``), revises the count groups
    listed in ``dirty`` (indices into ``prog.groups``; cage ``i`` is
    ``len(prog.groups) + i``), and everything that implies, in place, and answers
    False on a dead end (the lists are then garbage). Every changed cell is
    appended to ``trail`` when one is given. ``counter[0]`` accumulates the
    removed values, ``counter[1]`` the new binary choices (a cell left with
    two labels, a label left with two cells of an asterism).
    """
    m = prog.n_values
    full = prog.full
    n = len(prog.domains)
    gcells = prog.groups
    gcounts = prog.counts
    succ = prog.succ
    pred = prog.pred
    has_less = [bool(s or p) for s, p in zip(succ, pred, strict=True)]
    arcs = prog.arcs or ((),) * n
    peers: list[tuple[int, ...]] = [()] * n  # per cell, the others of its partial groups
    if prog.distinct:
        peer_sets: list[set[int]] = [set() for _ in range(n)]
        for cells in prog.distinct:
            for c in cells:
                peer_sets[c].update(cells)
        peers = [tuple(sorted(s - {c})) for c, s in enumerate(peer_sets)]
    # per cell, what its change triggers beyond the asterisms and inequalities:
    # _ARCS other binary relations, _PEERS partial groups (None: nothing anywhere)
    extra = None
    if prog.distinct or any(arcs):
        extra = [(_ARCS if a else 0) | (_PEERS if q else 0) for a, q in zip(arcs, peers, strict=True)]
    above = [full & ~((1 << (v + 1)) - 1) for v in range(m)]  # values > v
    below = [(1 << v) - 1 for v in range(m)]  # values < v
    # per cell: (dual base, ~position bit, cells of the group) for its all-different groups
    slots: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(n)]
    for j, g in enumerate(prog.dual_groups):
        for p, c in enumerate(gcells[g]):
            slots[c].append((j * m, ~(1 << p), gcells[g]))
    n_groups = len(gcells)
    cages = prog.cages
    # per cell, the groups to revise when it changes: its count groups, then
    # its cages (numbered after the groups)
    dirty_of: list[tuple[int, ...]] = [
        tuple(g for g in gs if gcounts[g] is not None) for gs in prog.cell_groups]
    for i, (cells, _) in enumerate(cages):
        for c in cells:
            dirty_of[c] += (n_groups + i,)
    # a plain Futoshiki or QWH has nothing of this: its changed cells pay only
    # the ``queued is not None`` test, as before relations were generic
    slow = any(dirty_of) or extra is not None
    n_dirty = n_groups + len(cages)
    counter = [0, 0]

    def propagate(doms: list[int], dual: list[int], events: list[tuple[int, int]],
                  dirty: list[int] | None = None, trail: list[int] | None = None) -> bool:
        removed = 0
        binary = 0
        queued = None
        if slow:
            queued = [False] * n_dirty
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
                    counter[1] += binary
                    return False
                doms[c] = nd
                if nd.bit_count() == 2:
                    binary += 1
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
                        y = x & (x - 1)
                        if y:
                            if not y & (y - 1):
                                binary += 1  # two cells left for this label
                        elif not x:
                            counter[0] += removed
                            counter[1] += binary
                            return False
                        elif hidden_singles:
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
                if queued is not None:  # count groups, cages, other relations
                    for g in dirty_of[c]:
                        if not queued[g]:
                            queued[g] = True
                            dirty.append(g)
                    if extra is not None:
                        f = extra[c]
                        if f & 2:  # _ARCS: the partner keeps the labels with a support
                            for other, sup in arcs[c]:
                                keep = 0
                                rest = nd
                                while rest:
                                    low = rest & -rest
                                    rest ^= low
                                    keep |= sup[low.bit_length() - 1]
                                if doms[other] & ~keep:
                                    events.append((other, keep))
                        if f & 4 and not nd & (nd - 1):  # _PEERS, fixed: leaves its partial groups
                            drop = ~nd
                            for x in peers[c]:
                                if doms[x] & nd:
                                    events.append((x, drop))
            if not dirty:
                counter[0] += removed
                counter[1] += binary
                return True
            g = dirty.pop()
            queued[g] = False
            if g >= n_groups:  # a cage: the label sets that still fit
                cells, combos = cages[g - n_groups]
                union = fixed = 0
                for c in cells:
                    d = doms[c]
                    union |= d
                    if not d & (d - 1):
                        fixed |= d
                allowed = 0
                needed = -1
                for mk in combos:
                    if mk & union != mk or fixed & ~mk:
                        continue
                    for c in cells:
                        if not doms[c] & mk:
                            break
                    else:
                        allowed |= mk
                        needed &= mk
                if not allowed:
                    counter[0] += removed
                    counter[1] += binary
                    return False
                for c in cells:
                    if doms[c] & ~allowed:
                        events.append((c, allowed))
                if hidden_singles:
                    rest = needed & ~fixed
                    while rest:  # a label every set needs, that fits one cell only
                        low = rest & -rest
                        rest ^= low
                        holder = -1
                        for c in cells:
                            if doms[c] & low:
                                if holder >= 0:
                                    break
                                holder = c
                        else:
                            if holder >= 0:
                                events.append((holder, low))
                continue
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
                    counter[1] += binary
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

WEIGHTS = ("binary", "removed")


class _Timeout(Exception):
    """The deadline passed during a lookahead."""


def _bits_of(d: int) -> list[int]:
    out = []
    while d:
        low = d & -d
        out.append(low)
        d ^= low
    return out


def make_plain_brancher(prog: ListcolorProgram, dual_branching: bool,
                        rng: random.Random | None = None) -> Brancher:
    """The plain branching function ``branch(doms, dual)`` -> children or ``[]``.

    It takes the cell with the fewest labels left (MRV; ties by the internal
    cell order) or, with ``dual_branching``, the (all-different asterism,
    label) pair with the fewest cells left when that is smaller. Answers ``[]``
    when every cell is fixed, else the children in the order to try them, each
    ``(cell, bit, None, None, 0)``: the choice "cell takes the value of
    ``bit``", to be propagated by the search. ``rng`` shuffles the children.
    """
    m = prog.n_values
    sizes_from = range(2, m + 1)
    use_dual = dual_branching and bool(prog.dual_groups)
    positions = [prog.groups[g] for g in prog.dual_groups]

    def plain(doms: list[int], dual: list[int]) -> list[Child]:
        sizes = list(map(int.bit_count, doms))
        dsizes = list(map(int.bit_count, dual)) if use_dual else ()
        for k in sizes_from:
            if k in sizes:
                c = sizes.index(k)
                out: list[Child] = [(c, b, None, None, 0) for b in _bits_of(doms[c])]
                break
            if k in dsizes:
                i = dsizes.index(k)
                cells = positions[i // m]
                v = 1 << (i % m)
                out = [(cells[p.bit_length() - 1], v, None, None, 0) for p in _bits_of(dual[i])]
                break
        else:
            return []
        if rng is not None:
            rng.shuffle(out)
        return out

    return plain


def make_lookahead_brancher(prog: ListcolorProgram, propagate: Propagator, counter: list[int],
                            stats: dict[str, int], deadline: Deadline, fallback: Brancher,
                            weight: str = "binary") -> Brancher:
    """The lookahead branching function ``branch(doms, dual)`` -> children, ``[]`` or None.

    In the manner of the Satz SAT solver, every *binary choice* -- a cell with
    two labels left, an (all-different asterism, label) pair with two cells
    left -- is probed: both sides are propagated on copies of the lists. A side
    that fails is a *failed literal*: the node takes the other side at once.
    When both sides survive, a label that both remove is removed at the node
    (the dilemma rule). This repeats to a fixpoint; then the search branches on
    the binary choice with the largest ``w1 * w2 * 1024 + w1 + w2`` (balanced
    and strong), where ``w`` is a side's weight: with ``weight="binary"``, as
    in Satz, the number of new binary choices the side creates (cells left with
    two labels, labels left with two cells; removed values break ties), with
    ``weight="removed"`` the number of values it removes. The lighter side
    (the less constraining one) is tried first; its probed lists are reused.
    Without binary choices, ``fallback`` branches.

    Answers None for a dead end (the node's lists are then garbage), ``[]``
    when every cell is fixed, else the children ``(cell, bit, doms, dual,
    removed)`` in the order to try them, with their propagated lists and the
    number of values their propagation removed.
    """
    if weight not in WEIGHTS:
        raise ValueError(f"weight must be one of {WEIGHTS}, not {weight!r}")
    by_binary = weight == "binary"
    m = prog.n_values
    positions = [prog.groups[g] for g in prog.dual_groups]
    use_dual = bool(positions)
    check = [_CHECK_EVERY]

    def probe(doms: list[int], dual: list[int], c: int, bit: int
              ) -> tuple[int, int, list[int], list[int], list[int]] | None:
        check[0] -= 1
        if not check[0]:
            check[0] = _CHECK_EVERY
            if deadline.expired():
                raise _Timeout
        stats["probes"] += 1
        removed0, binary0 = counter
        d = doms[:]
        u = dual[:]
        trail: list[int] = []
        ok = propagate(d, u, [(c, bit)], None, trail)
        removed = counter[0] - removed0
        w = (counter[1] - binary0) * 64 + removed if by_binary else removed
        counter[0] = removed0  # a probe removes nothing from the node
        counter[1] = binary0
        return (w, removed, d, u, trail) if ok else None

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
                return fallback(doms, dual)
            cache: dict[tuple[int, int], Any] = {}
            changed = False
            best = None
            best_score = -1
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
                common = set(r1[4]).intersection(r2[4])
                if common:
                    s1 = r1[2]
                    s2 = r2[2]
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
                if score > best_score:
                    best_score = score
                    best = pair
            if changed:
                continue  # probe again from the narrowed lists
            if best is None:  # every pair was settled on the way
                return fallback(doms, dual)
            c1, b1, c2, b2 = best
            r1 = cache[c1, b1]
            r2 = cache[c2, b2]
            k1 = (c1, b1, r1[2], r1[3], r1[1])
            k2 = (c2, b2, r2[2], r2[3], r2[1])
            return [k1, k2] if r1[0] <= r2[0] else [k2, k1]

    return branch


_MAX_STACK_BYTES = 4_000_000_000  # worst-case search stack a model may need
_AUTO_SWITCH = 20  # dead ends of the plain search before lookahead="auto" turns lookahead on
_SLICE = 8  # dead ends per turn of each search of the portfolio
_SOLO = 32  # dead ends of the portfolio's first search before the second one starts
_NEVER = 1 << 62


class ListcolorBackend(Backend):
    """Native list-colouring backtracking (pure Python, no dependencies)."""

    name = "listcolor"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "strings",
                              "less", "binary", "alldifferent", "cage"})
    extra = None
    max_literals = 4_000_000
    options = (
        Option("lookahead", str, "auto", ("auto", "always", "never"),
               "probe every binary choice (failed literals, dilemma rule, Satz-style branching): "
               f"auto = once the plain search has met {_AUTO_SWITCH} dead ends"),
        Option("weight", str, "portfolio", WEIGHTS + ("portfolio",),
               "lookahead score of a side: new binary choices (binary) or removed values "
               "(removed); portfolio = with limit=1 both searches in turns, the first to finish "
               "answers (else removed)"),
        Option("branching", str, "cell", ("cell", "dual"),
               "plain search: the cell with the fewest labels (cell), or also the "
               "(asterism, label) pair with the fewest cells when that is smaller (dual)"),
        Option("hidden_singles", bool, True, None,
               "force a label that fits only one cell of an asterism (count: exactly the cells "
               "left; cage: a label all its remaining sets need)"),
    )

    def check(self, model: Model) -> None:
        """Also refuse a model whose search stack could outgrow memory.

        A node keeps its lists (one int per cell and per dual-table entry)
        while a child is explored, so the stack holds up to ``n_cells`` copies.
        """
        super().check(model)
        entries = model.n_cells + len(model.permutations) * model.n_values
        worst = model.n_cells * entries * 8  # bytes of list slots, depth n_cells
        if worst > _MAX_STACK_BYTES:
            raise UnsupportedError(
                f"backend {self.name!r} refuses a model of {model.n_cells} cells: its search "
                f"stack could need {worst / 1e9:.1f} GB (limit {_MAX_STACK_BYTES / 1e9:.0f} GB)")

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
        stats = {"nodes": 0, "backtracks": 0, "max_depth": 0, "probes": 0,
                 "failed_literals": 0, "dilemma_values": 0}
        plain = make_plain_brancher(prog, options["branching"] == "dual", rng)
        weights = [options["weight"]]
        if weights == ["portfolio"]:
            weights = ["removed", "binary"] if limit == 1 else ["removed"]
        looks = [make_lookahead_brancher(prog, propagate, counter, stats, deadline, plain, w)
                 for w in weights]
        solutions: list[tuple[Any, ...]] = []
        finished = _search(prog, propagate, counter, plain, looks, options["lookahead"], limit,
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
            looks: list[Brancher], mode: str, limit: int | None, deadline: Deadline,
            model: Model, stats: dict[str, int], solutions: list[tuple[Any, ...]]) -> bool:
    """The whole search, appending to ``solutions``.

    ``mode`` is the lookahead option: the search branches with ``plain``
    until ``_AUTO_SWITCH`` dead ends (``auto``), always (``never``) or never
    (``always``), with the lookahead after. When one solution is asked for,
    an ``auto`` search that stalls starts again from the root with the
    lookahead (the plain search's first choices are often the bad ones);
    when more are asked for, it switches in place (no solution twice). With
    several lookahead branchers (a portfolio, limit 1), one lookahead search
    per brancher runs from the root: the first alone for ``_SOLO`` dead ends
    (small puzzles end there), then all in turns of ``_SLICE`` dead ends,
    until one of them finishes.

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

    def run(doms: list[int], dual: list[int], look: Brancher, switch: int, budget: int,
            turn: int) -> Any:
        return _dfs(doms, dual, propagate, counter, plain, look, switch, budget, turn,
                    limit, deadline, stats, record, solutions)

    try:
        if limit != 1 or switch in (0, _NEVER):
            if len(looks) == 1 or switch == _NEVER:  # one search, switching in place
                return _finish(run(root, root_dual, looks[0], switch, _NEVER, _NEVER))
        else:  # plain first; if it stalls, start again from the root with lookahead
            out = _finish(run(root[:], root_dual[:], looks[0], _NEVER, switch, _NEVER))
            if out is not None:
                return out
            if len(looks) == 1:
                return _finish(run(root, root_dual, looks[0], 0, _NEVER, _NEVER))
        searches = [run(root[:], root_dual[:], look, 0, _NEVER, _SLICE) for look in looks]
        for _ in range(_SOLO // _SLICE):  # the first search alone for a while
            try:
                next(searches[0])
            except StopIteration as stop:
                return bool(stop.value)
        while True:
            for search in searches:
                try:
                    next(search)
                except StopIteration as stop:
                    return bool(stop.value)
    except _Timeout:
        return False


def _finish(search: Any) -> bool | None:
    """Run a search generator to its end; its answer."""
    while True:
        try:
            next(search)
        except StopIteration as stop:
            return stop.value


def _dfs(doms: list[int], dual: list[int], propagate: Propagator, counter: list[int],
         plain: Brancher, look: Brancher, switch: int, budget: int, turn: int, limit: int | None,
         deadline: Deadline, stats: dict[str, int], record: Callable[[list[int]], None],
         solutions: list[tuple[Any, ...]]) -> Any:
    """One depth-first search from the lists ``doms``/``dual`` (consumed), as a generator.

    Branches with ``plain`` until ``switch`` dead ends, with ``look`` after;
    yields (pauses) after every ``turn`` dead ends. Its return value: True
    (search over), False (deadline) or None (``budget`` dead ends reached).
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
                if not backtracks % turn:
                    yield
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
                        if not backtracks % turn:
                            yield
                        continue
                doms = d
                dual = u
                break
            else:
                return True
    finally:
        stats["nodes"] += nodes
        stats["backtracks"] += backtracks
        stats["max_depth"] = max(stats["max_depth"], max_depth)


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
    if any(prog.arcs):
        for c, arcs in enumerate(prog.arcs):
            d = doms[c]
            for other, sup in arcs:
                keep = 0
                for v in range(m):
                    if d >> v & 1:
                        keep |= sup[v]
                events.append((other, keep))
    for cells in prog.distinct:
        for c in cells:
            d = doms[c]
            if not d & (d - 1):
                events.extend((x, ~d) for x in cells if x != c)
    dirty = [g for g, counts in enumerate(prog.counts) if counts is not None]
    dirty += range(len(groups), len(groups) + len(prog.cages))
    return propagate(doms, dual, events, dirty)
