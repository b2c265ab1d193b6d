"""The listcolor backend's propagation: the fixpoint after each choice, and the root's settling.

Part of :mod:`futocp.backends.listcolor` (its names are re-exported there);
the ``propagator`` section of ``_listcolor_core.c`` is its compiled twin.
"""

from __future__ import annotations

from collections.abc import Callable

from ..diagram import supports
from ..propagate import cage_sets, supported
from .listcolor_program import ListcolorProgram

__all__ = ["Propagator", "intersections", "make_propagator", "make_undo", "settle"]

_ARCS, _PEERS = 2, 4  # a changed cell's binary relations (but less), its partial groups


Propagator = Callable[..., bool]


def intersections(prog: ListcolorProgram) -> list[tuple[tuple[int, tuple[int, ...]], ...]]:
    """Per all-different group of the dual table (``prog.dual_groups[j]``), the other
    such groups it shares two cells or more with, in the table's order: ``(mask,
    rest)``, the bit set of the shared cells' positions in group ``j`` and the
    other group's cells outside group ``j`` (in its order). What locked
    candidates read: a label whose places left in group ``j`` all lie in
    ``mask`` goes in one of them, so it leaves ``rest`` (both groups hold every
    label once).
    """
    groups = [prog.groups[g] for g in prog.dual_groups]
    out = []
    for j, cells in enumerate(groups):
        where = {c: p for p, c in enumerate(cells)}
        found = []
        for h, other in enumerate(groups):
            shared = [where[c] for c in other if c in where]
            if h != j and len(shared) >= 2:
                found.append((sum(1 << p for p in shared),
                              tuple(c for c in other if c not in where)))
        out.append(tuple(found))
    return out


def make_undo(prog: ListcolorProgram) -> tuple[Callable[[list[int], list[int],
                                                         list[tuple[int, int]], int], None],
                                               Callable[[list[int], list[int],
                                                         list[tuple[int, int]],
                                                         list[tuple[int, int]]], None]]:
    """The undo trail's two moves on the lists ``doms`` and their dual table ``dual``.

    ``undo_to(doms, dual, undo, mark)`` undoes the changes recorded in
    ``undo`` (``(cell, old list)`` pairs, :func:`make_propagator`'s) back to
    its length ``mark``: each cell gets its old list back and the dual table
    the positions of the values it regains (the table always holds exactly
    the positions whose cell's list holds the value, so it follows from the
    lists). ``move_to(doms, dual, undo, changes)`` narrows the lists to those
    of ``changes`` (``(cell, new list)`` pairs, each a subset of the cell's
    list: a lookahead child's), recorded in ``undo``.
    """
    m = prog.n_values
    slots: list[list[tuple[int, int]]] = [[] for _ in prog.domains]
    for j, g in enumerate(prog.dual_groups):
        for p, c in enumerate(prog.groups[g]):
            slots[c].append((j * m, 1 << p))

    def undo_to(doms: list[int], dual: list[int], undo: list[tuple[int, int]], mark: int) -> None:
        while len(undo) > mark:
            c, old = undo.pop()
            r = old ^ doms[c]
            for base, pbit in slots[c]:
                rr = r
                while rr:
                    low = rr & -rr
                    rr ^= low
                    dual[base + low.bit_length() - 1] |= pbit
            doms[c] = old

    def move_to(doms: list[int], dual: list[int], undo: list[tuple[int, int]],
                changes: list[tuple[int, int]]) -> None:
        for c, nd in changes:
            d = doms[c]
            if d != nd:
                undo.append((c, d))
                r = d ^ nd
                for base, pbit in slots[c]:
                    rr = r
                    while rr:
                        low = rr & -rr
                        rr ^= low
                        dual[base + low.bit_length() - 1] &= ~pbit
                doms[c] = nd

    return undo_to, move_to


def make_propagator(prog: ListcolorProgram, hidden_singles: bool = True,
                    counter: list[int] | None = None, locked_candidates: bool = True,
                    ) -> tuple[Propagator, list[int]]:
    """The propagation function of ``prog`` and its counters.

    ``propagate(doms, dual, events, dirty=None, trail=None, undo=None)`` applies the
    events ``(cell, keep)`` (``doms[cell] &= keep``), revises the count groups
    listed in ``dirty`` (indices into ``prog.groups``; cage ``i`` is
    ``len(prog.groups) + i``, diagram ``i`` is ``len(prog.groups) +
    len(prog.cages) + i``), and everything that implies, in place, and answers
    False on a dead end (the lists are then garbage). Every changed cell is
    appended to ``trail`` when one is given, and ``(cell, old list)`` to ``undo``
    before each change (the search's undo trail: :func:`make_undo`). ``counter[0]`` accumulates the
    removed values, ``counter[1]`` the new binary choices (a cell left with
    two labels, a label left with two cells of an asterism); ``counter`` (two
    ints) is the list to count in, a new one when None.

    ``hidden_singles``: a label left with one place in an asterism goes there.
    ``locked_candidates``: a label whose places left in an all-different group
    all lie in another such group (:func:`intersections`) leaves the other
    group's remaining cells (Sudoku's pointing and claiming). It is checked
    when a place leaves the label's list: when the place was outside an
    intersection that now holds every place left (it held them before
    otherwise, and the rule was applied then, or by :func:`settle`).
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
    # per cell: (dual base, ~position bit, cells of the group, the group's intersections
    # without the cell's position) for its all-different groups
    shared = intersections(prog) if locked_candidates else [()] * len(prog.dual_groups)
    slots: list[list[tuple[int, int, tuple[int, ...], tuple[tuple[int, tuple[int, ...]], ...]]]]
    slots = [[] for _ in range(n)]
    for j, g in enumerate(prog.dual_groups):
        for p, c in enumerate(gcells[g]):
            outside = tuple(it for it in shared[j] if not it[0] >> p & 1)
            slots[c].append((j * m, ~(1 << p), gcells[g], outside))
    n_groups = len(gcells)
    cages = prog.cages
    diagrams = prog.diagrams
    first_diagram = n_groups + len(cages)
    # per cell, the groups to revise when it changes: its count groups, then
    # its cages and its diagrams (numbered after the groups)
    dirty_of: list[tuple[int, ...]] = [
        tuple(g for g in gs if gcounts[g] is not None) for gs in prog.cell_groups]
    for i, (cells, _) in enumerate(cages):
        for c in cells:
            dirty_of[c] += (n_groups + i,)
    for i, (cells, _, _) in enumerate(diagrams):
        for c in cells:
            dirty_of[c] += (first_diagram + i,)
    # a plain Futoshiki or QWH has nothing of this: its changed cells pay only
    # the ``queued is not None`` test, as before relations were generic
    slow = any(dirty_of) or extra is not None
    n_dirty = first_diagram + len(diagrams)
    if counter is None:
        counter = [0, 0]

    def propagate(doms: list[int], dual: list[int], events: list[tuple[int, int]],
                  dirty: list[int] | None = None, trail: list[int] | None = None,
                  undo: list[tuple[int, int]] | None = None) -> bool:
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
                if undo is not None:
                    undo.append((c, d))
                doms[c] = nd
                if nd.bit_count() == 2:
                    binary += 1
                if trail is not None:
                    trail.append(c)
                r = d ^ nd
                removed += r.bit_count()
                for base, npbit, cells, outside in slots[c]:
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
                            for mask, beyond in outside:  # locked: the places left all shared
                                if not x & ~mask:
                                    drop = ~low
                                    for o in beyond:
                                        if doms[o] & low:
                                            events.append((o, drop))
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
                    for base, npbit, cells, _ in slots[c]:
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
                                keep = supported(nd, sup)
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
            assert queued is not None  # groups to revise exist only in a slow model
            queued[g] = False
            if g >= first_diagram:  # a diagram: the labels on a path of allowed labels
                on, layers, levels = diagrams[g - first_diagram]
                kept = supports(layers, levels, [doms[c] for c in on])
                if kept is None:
                    counter[0] += removed
                    counter[1] += binary
                    return False
                for c, keep in zip(on, kept, strict=True):
                    if doms[c] & ~keep:
                        events.append((c, keep))
                continue
            if g >= n_groups:  # a cage: the label sets that still fit
                cells, combos = cages[g - n_groups]
                allowed, needed, fixed = cage_sets(doms, cells, combos)
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
            assert counts is not None  # only count groups are ever dirty
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


def settle(prog: ListcolorProgram, propagate: Propagator, doms: list[int], dual: list[int],
           locked_candidates: bool = True) -> bool:
    """Bring fresh lists (and their dual table) to the propagation fixpoint (False: dead
    end); ``locked_candidates``: ``propagate``'s (:func:`make_propagator`)."""
    m = prog.n_values
    groups = prog.groups
    shared = intersections(prog) if locked_candidates else None
    events: list[tuple[int, int]] = []
    for i, x in enumerate(dual):
        if not x:
            return False
        if not x & (x - 1):  # a label with one place left in its asterism
            j, v = divmod(i, m)
            events.append((groups[prog.dual_groups[j]][x.bit_length() - 1], 1 << v))
        elif shared is not None:  # locked: its places all in an intersection
            j, v = divmod(i, m)
            for mask, beyond in shared[j]:
                if not x & ~mask:
                    events.extend((o, ~(1 << v)) for o in beyond if doms[o] >> v & 1)
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
    dirty += range(len(groups), len(groups) + len(prog.cages) + len(prog.diagrams))
    return propagate(doms, dual, events, dirty)
