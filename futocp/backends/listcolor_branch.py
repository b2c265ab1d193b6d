"""The listcolor backend's branchers: the plain (MRV / dual) one and the Satz-style lookahead.

Part of :mod:`futocp.backends.listcolor` (its names are re-exported there);
the ``branchers`` section of ``_listcolor_core.c`` is their compiled twin.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

from .listcolor_program import ListcolorProgram
from .listcolor_propagate import Propagator

__all__ = ["Brancher", "Child", "Probe", "WEIGHTS", "make_lookahead_brancher",
           "make_plain_brancher"]

_CHECK_EVERY = 16  # nodes between two deadline checks


class Child(NamedTuple):
    """A child of a search node: the choice "``cell`` takes the value of ``bit``".

    A plain brancher leaves the lists to the search (``doms``/``dual`` None:
    it copies the node's and propagates the choice); a lookahead brancher has
    propagated the choice already and hands over the lists, with the number
    of values the propagation removed.
    """

    cell: int
    bit: int
    doms: list[int] | None
    dual: list[int] | None
    removed: int


class Probe(NamedTuple):
    """A side of a binary choice, propagated on copies of the node's lists.

    Attributes:
        weight: Its score (new binary choices or removed values, by the option ``weight``).
        removed: Values its propagation removed.
        doms: The propagated lists.
        dual: The propagated dual table.
        trail: The cells whose lists it changed.
    """

    weight: int
    removed: int
    doms: list[int]
    dual: list[int]
    trail: list[int]


Brancher = Callable[..., "list[Child] | None"]
"""``branch(doms, dual, undo=None)``: the children of a node (``undo``: the search's
undo trail, which records the changes a brancher makes to the node's lists)."""

WEIGHTS = ("binary", "removed")


class _Timeout(Exception):
    """The deadline passed during a lookahead."""


_ROWS_KEPT = 1 << 18  # children kept by the plain brancher (cells x values) at most
_MORE_THAN_ONE = (1).__lt__


def _smallest(sizes: list[int]) -> int:
    """The smallest of ``sizes`` above 1 (0: none)."""
    if 2 in sizes:
        return 2
    return min(filter(_MORE_THAN_ONE, sizes), default=0)


def make_plain_brancher(prog: ListcolorProgram, dual_branching: bool,
                        rng: random.Random | None = None) -> Brancher:
    """The plain branching function ``branch(doms, dual, undo=None)`` -> children or ``[]``
    (it changes no list: ``undo`` is not used).

    It takes the cell with the fewest labels left (MRV; ties by the internal
    cell order) or, with ``dual_branching``, the (all-different asterism,
    label) pair with the fewest cells left when that is smaller. Answers ``[]``
    when every cell is fixed, else the children in the order to try them, each
    a :class:`Child` without lists: the choice "cell takes the value of
    ``bit``", to be propagated by the search. ``rng`` shuffles the children.
    """
    m = prog.n_values
    use_dual = dual_branching and bool(prog.dual_groups)
    positions = [prog.groups[g] for g in prog.dual_groups]
    # per cell, its children by value index, made once when the cell is first
    # branched on (the search pops them, never changes them); on a large program
    # (past _ROWS_KEPT children in all) they are made for each node instead
    rows: list[list[Child] | None] = [None] * len(prog.domains)
    keep_rows = len(prog.domains) * m <= _ROWS_KEPT

    def row(c: int) -> list[Child]:
        kids = [Child(c, 1 << v, None, None, 0) for v in range(m)]
        if keep_rows:
            rows[c] = kids
        return kids

    def plain(doms: list[int], dual: list[int], undo: object = None) -> list[Child]:
        sizes = list(map(int.bit_count, doms))
        k = _smallest(sizes)
        dk = 0
        if use_dual:
            dsizes = list(map(int.bit_count, dual))
            dk = _smallest(dsizes)
            if dk > m:
                dk = 0
        out: list[Child] = []
        if k and (not dk or k <= dk):  # ties: the cell (its sizes are looked at first)
            c = sizes.index(k)
            kids = rows[c] or row(c)
            d = doms[c]
            while d:
                low = d & -d
                d ^= low
                out.append(kids[low.bit_length() - 1])
        elif dk:
            i = dsizes.index(dk)
            cells = positions[i // m]
            v = i % m
            x = dual[i]
            while x:
                low = x & -x
                x ^= low
                c = cells[low.bit_length() - 1]
                out.append((rows[c] or row(c))[v])
        else:
            return out
        if rng is not None:
            rng.shuffle(out)
        return out

    return plain


def make_lookahead_brancher(prog: ListcolorProgram, propagate: Propagator, counter: list[int],
                            stats: dict[str, int], expired: Callable[[], bool],
                            fallback: Brancher, weight: str = "binary") -> Brancher:
    """The lookahead branching function ``branch(doms, dual, undo=None)`` -> children,
    ``[]`` or None (the changes it makes at the node are recorded in ``undo``).

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
    when every cell is fixed, else the children (:class:`Child`) in the order
    to try them, with their propagated lists and the number of values their
    propagation removed. Every ``_CHECK_EVERY`` probes it asks ``expired()``
    and raises ``_Timeout`` when it answers True.
    """
    if weight not in WEIGHTS:
        raise ValueError(f"weight must be one of {WEIGHTS}, not {weight!r}")
    by_binary = weight == "binary"
    m = prog.n_values
    positions = [prog.groups[g] for g in prog.dual_groups]
    use_dual = bool(positions)
    check = [_CHECK_EVERY]
    # a Probe per propagation: tuple.__new__ skips the NamedTuple's Python-level
    # __new__ (a fifth of the cost of making one)
    new_probe = tuple.__new__

    def probe(doms: list[int], dual: list[int], c: int, bit: int) -> Probe | None:
        check[0] -= 1
        if not check[0]:
            check[0] = _CHECK_EVERY
            if expired():
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
        return new_probe(Probe, (w, removed, d, u, trail)) if ok else None

    def branch(doms: list[int], dual: list[int], undo: list[tuple[int, int]] | None = None
               ) -> list[Child] | None:
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
            cache: dict[tuple[int, int], Probe | None] = {}
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
                    if not propagate(doms, dual, [(c, bit)], None, None, undo):
                        return None
                    changed = True
                    continue
                common = set(r1.trail).intersection(r2.trail)
                if common:
                    s1 = r1.doms
                    s2 = r2.doms
                    events = []
                    for c in sorted(common):  # a fixed order (the compiled core's)
                        keep = s1[c] | s2[c]
                        if doms[c] & ~keep:
                            events.append((c, keep))
                    if events:
                        stats["dilemma_values"] += len(events)
                        if not propagate(doms, dual, events, None, None, undo):
                            return None
                        changed = True
                        continue
                w1 = r1.weight
                w2 = r2.weight
                score = w1 * w2 * 1024 + w1 + w2
                if score > best_score:
                    best_score = score
                    best = pair
            if changed:
                continue  # probe again from the narrowed lists
            if best is None:  # every pair was settled on the way
                return fallback(doms, dual)
            c1, b1, c2, b2 = best
            p1 = cache[c1, b1]
            p2 = cache[c2, b2]
            assert p1 is not None and p2 is not None  # the best pair has two live sides
            k1 = Child(c1, b1, p1.doms, p1.dual, p1.removed)
            k2 = Child(c2, b2, p2.doms, p2.dual, p2.removed)
            return [k1, k2] if p1.weight <= p2.weight else [k2, k1]

    return branch
