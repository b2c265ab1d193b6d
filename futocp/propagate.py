"""Shared propagation on lists (domains) held as bit sets.

A list is an ``int`` whose bit ``i`` is set when value index ``i`` is still
allowed. :func:`filter_lists` is the list-colouring reduction of seed 000: a
cell whose list is a single label removes it from the lists of the other cells
of its asterisms (or, for a multiset, once the label's multiplicity is used
up), every inequality cuts both lists to what can still be satisfied, every
other binary relation keeps the values with a support (arc consistency),
every cage keeps the values of its still possible label sets, and every other
n-ary relation, given as a layered decision diagram (:mod:`futocp.diagram`),
keeps the values on a path of still allowed labels (generalised arc
consistency); the rules are applied until nothing changes.

:func:`filter_lists` runs a compiled copy of its loop (``futocp._filter_core``,
an optional C extension built by ``pip install -e .``; ``_filter_core.c``)
when it is built and the lists fit in 64 bits and there are no cages nor
diagrams: the same
steps in the same order, so the same answer (cross-checked in
``tests/test_filter_core.py``); :func:`filter_lists_python` is the readable
reference and the fallback. The filtering is most of ``build_model``'s time,
and ``build_model`` most of an easy puzzle's time with the compiled
``listcolor`` core.

Example:
    >>> doms, removed, conflict = filter_lists(
    ...     3, [0b001, 0b111, 0b111], groups=[((0, 1, 2), None)], less=[(1, 2)])
    >>> [bin(d) for d in doms], removed, conflict
    (['0b1', '0b10', '0b100'], 4, None)
"""

from __future__ import annotations

from collections.abc import Sequence

from .diagram import supports

__all__ = ["bits", "low_bit", "high_bit", "popcount", "filter_lists", "filter_lists_python",
           "revise_cage", "cage_sets", "supported", "FILTER_CORE"]

try:
    from . import _filter_core
except ImportError:  # no C compiler at install: the Python reference runs
    _filter_core = None  # type: ignore[assignment]

#: ``(cells, counts)`` per permutation group (counts None: every value once).
Groups = Sequence[tuple[Sequence[int], Sequence[int] | None]]
#: ``(a, b)`` pairs.
Pairs = Sequence[tuple[int, int]]
#: ``(a, b, forward, backward)`` per binary relation (supports as bit sets).
Binaries = Sequence[tuple[int, int, Sequence[int], Sequence[int]]]
#: ``(cells, combinations)`` per cage.
Cages = Sequence[tuple[Sequence[int], Sequence[int]]]
#: ``(cells, layers, levels)`` per n-ary relation held as a diagram whose labels are bits.
Diagrams = Sequence[tuple[Sequence[int], Sequence[Sequence[tuple[int, int, int]]], Sequence[int]]]
#: ``(domains, removed, empty_cell)``.
Filtered = tuple[list[int], int, int | None]

#: Whether the compiled filtering is built (:func:`filter_lists` uses it when it can).
FILTER_CORE: bool = _filter_core is not None


def bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def low_bit(mask: int) -> int:
    """Index of the lowest set bit (mask > 0)."""
    return (mask & -mask).bit_length() - 1


def high_bit(mask: int) -> int:
    """Index of the highest set bit (mask > 0)."""
    return mask.bit_length() - 1


def popcount(mask: int) -> int:
    """Number of set bits."""
    return mask.bit_count()


def filter_lists(n_cells: int, domains: Sequence[int], groups: Groups, less: Pairs = (), *,
                 distinct: Sequence[Sequence[int]] = (), binary: Binaries = (), cages: Cages = (),
                 diagrams: Diagrams = (), touched: Sequence[int] | None = None) -> Filtered:
    """Reduce lists to a fixpoint of the singleton, relation and cage rules.

    The compiled loop answers when it is built and can (no cages, lists of at
    most 64 bits); else :func:`filter_lists_python`. Both take the same
    arguments and give the same answer.

    Args:
        n_cells: Number of cells.
        domains: Initial bit-set list per cell.
        groups: ``(cells, counts)`` per permutation group; ``counts`` is None
            when every value occurs once, else the multiplicity of each value index.
        less: ``(a, b)`` pairs meaning value(a) < value(b) (bounds rule).
        distinct: Partial all-different groups: a single value leaves the
            lists of the others.
        binary: ``(a, b, forward, backward)`` per binary relation, its support
            as bit sets (``forward[i]``: values of b compatible with value i of
            a; ``backward[j]`` the converse): each list keeps only the values
            with a support in the other (arc consistency).
        cages: ``(cells, combinations)``: the bit sets of the values that may
            fill the cage together; each list keeps the values of the
            combinations every cell can still take part in, and a value all
            those combinations need that fits only one cell goes there.
        diagrams: ``(cells, layers, levels)`` per other n-ary relation: its
            layered decision diagram with labels as bits (``1 << value``); each
            list keeps the values on a root-to-terminal path
            (:func:`futocp.diagram.supports`).
        touched: The cells to start from (None: every cell); the others'
            lists must already be at the fixpoint given the rest.

    Returns:
        ``(domains, removed, empty_cell)``: the reduced lists, how many values
        were removed, and the first cell whose list became empty (or None).
    """
    if _filter_core is not None and not cages and not diagrams:
        out = _filter_core.filter_lists(n_cells, domains, groups, less, distinct, binary, touched)
        if out is not None:  # None: a list wider than 64 bits
            return out
    return filter_lists_python(n_cells, domains, groups, less, distinct=distinct, binary=binary,
                               cages=cages, diagrams=diagrams, touched=touched)


def filter_lists_python(n_cells: int, domains: Sequence[int], groups: Groups, less: Pairs = (),
                        *, distinct: Sequence[Sequence[int]] = (), binary: Binaries = (),
                        cages: Cages = (), diagrams: Diagrams = (),
                        touched: Sequence[int] | None = None) -> Filtered:
    """:func:`filter_lists` in Python: the reference, and the fallback."""
    doms = list(domains)
    before = sum(d.bit_count() for d in doms)
    all_groups = [(cells, counts) for cells, counts in groups]
    all_groups += [(cells, ()) for cells in distinct]  # () = partial: no count rule
    cell_groups: list[list[int]] = [[] for _ in range(n_cells)]
    for gi, (cells, _) in enumerate(all_groups):
        for c in cells:
            cell_groups[c].append(gi)
    succ: list[list[int]] = [[] for _ in range(n_cells)]
    pred: list[list[int]] = [[] for _ in range(n_cells)]
    for a, b in less:
        succ[a].append(b)
        pred[b].append(a)
    arcs: list[list[tuple[int, Sequence[int]]]] = [[] for _ in range(n_cells)]
    for a, b, fwd, bwd in binary:
        arcs[a].append((b, fwd))
        arcs[b].append((a, bwd))
    cell_cages: list[list[int]] = [[] for _ in range(n_cells)]
    for ci, (cells, _) in enumerate(cages):
        for c in cells:
            cell_cages[c].append(ci)
    cell_diagrams: list[list[int]] = [[] for _ in range(n_cells)]
    for di, (cells, _, _) in enumerate(diagrams):
        for c in cells:
            cell_diagrams[c].append(di)
    pending = [False] * len(diagrams)  # diagrams to revise, revised when the queue is empty
    dirty: list[int] = []

    if touched is None:
        queue = list(range(n_cells))
        queued = [True] * n_cells
    else:
        queue = list(dict.fromkeys(touched))
        queued = [False] * n_cells
        for c in queue:
            queued[c] = True

    def push(c: int) -> None:
        if not queued[c]:
            queued[c] = True
            queue.append(c)

    def fail(c: int) -> Filtered:
        return doms, before - sum(x.bit_count() for x in doms), c

    while queue:
        c = queue.pop()
        queued[c] = False
        d = doms[c]
        if d == 0:
            return fail(c)
        if d & (d - 1) == 0:  # a single label left
            for gi in cell_groups[c]:
                cells, counts = all_groups[gi]
                if counts:
                    used = sum(1 for x in cells if doms[x] == d)
                    if used > counts[d.bit_length() - 1]:
                        return fail(c)
                    if used < counts[d.bit_length() - 1]:
                        continue
                for x in cells:
                    if x != c and doms[x] & d:
                        if doms[x] == d:
                            if not counts:
                                return fail(x)
                            continue
                        doms[x] &= ~d
                        push(x)
        lo = (d & -d).bit_length() - 1
        hi = d.bit_length() - 1
        for b in succ[c]:  # value(c) < value(b): b > lo
            nb = doms[b] & ~((1 << (lo + 1)) - 1)
            if nb != doms[b]:
                doms[b] = nb
                push(b)
        for a in pred[c]:  # value(a) < value(c): a < hi
            na = doms[a] & ((1 << hi) - 1)
            if na != doms[a]:
                doms[a] = na
                push(a)
        for other, sup in arcs[c]:
            no = doms[other] & supported(d, sup)
            if no != doms[other]:
                doms[other] = no
                push(other)
        for ci in cell_cages[c]:
            cells, combos = cages[ci]
            changed = revise_cage(doms, cells, combos)
            if changed is None:
                return fail(c)
            for x in changed:
                push(x)
        for di in cell_diagrams[c]:
            if not pending[di]:
                pending[di] = True
                dirty.append(di)
        # the diagrams (the costliest rule) once the other rules are at a fixpoint
        while not queue and dirty:
            di = dirty.pop()
            pending[di] = False
            on, layers, levels = diagrams[di]
            kept = supports(layers, levels, [doms[x] for x in on])
            if kept is None:
                return fail(on[0])
            for x, keep in zip(on, kept, strict=True):
                nd = doms[x] & keep
                if nd != doms[x]:
                    doms[x] = nd
                    push(x)
    return doms, before - sum(x.bit_count() for x in doms), None


def supported(labels: int, sup: Sequence[int]) -> int:
    """The values some value of the bit set ``labels`` supports: the union of ``sup[v]``
    over the values ``v`` in ``labels`` (a binary relation's support, one side)."""
    out = 0
    while labels:
        low = labels & -labels
        labels ^= low
        out |= sup[low.bit_length() - 1]
    return out


def cage_sets(doms: Sequence[int], cells: Sequence[int], combos: Sequence[int]
              ) -> tuple[int, int, int]:
    """What a cage's label sets still allow: ``(allowed, needed, fixed)``, the union and
    the intersection of the combinations (bit sets of values) still possible -- every
    cell can take one of its values, the cells together all of them, the fixed cells'
    values among them -- and the values of the fixed cells (``allowed`` 0: none is
    possible). Shared by :func:`revise_cage` and listcolor's propagation."""
    union = 0
    fixed = 0
    for c in cells:
        d = doms[c]
        union |= d
        if not d & (d - 1):
            fixed |= d
    allowed = 0
    needed = -1
    for m in combos:
        if m & union != m or fixed & ~m:
            continue
        for c in cells:
            if not doms[c] & m:
                break
        else:
            allowed |= m
            needed &= m
    return allowed, needed, fixed


def revise_cage(doms: list[int], cells: Sequence[int], combos: Sequence[int]) -> list[int] | None:
    """Narrow the lists of a cage's cells to its still possible combinations (in place).

    A combination (bit set of values) is possible when every cell can take
    one of its values, the cells together can take all of them, and the
    cells already fixed take values of it. Each list keeps the values of the
    possible combinations; a value every possible combination needs that
    fits only one cell is placed there.

    Returns:
        The cells whose list changed, or None when no combination is possible.
    """
    allowed, needed, fixed = cage_sets(doms, cells, combos)
    if not allowed:
        return None
    changed = []
    for c in cells:
        nd = doms[c] & allowed
        if nd != doms[c]:
            if not nd:
                return None
            doms[c] = nd
            changed.append(c)
    rest = needed & ~fixed
    while rest:
        low = rest & -rest
        rest ^= low
        holders = [c for c in cells if doms[c] & low]
        if not holders:
            return None
        if len(holders) == 1 and doms[holders[0]] != low:
            doms[holders[0]] = low
            changed.append(holders[0])
    return changed
