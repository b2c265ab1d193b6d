"""Shared propagation on lists (domains) held as bit sets.

A list is an ``int`` whose bit ``i`` is set when value index ``i`` is still
allowed. :func:`filter_lists` is the list-colouring reduction of seed 000: a
cell whose list is a single label removes it from the lists of the other cells
of its asterisms (or, for a multiset, once the label's multiplicity is used
up), and every inequality cuts both lists to what can still be satisfied; the
rules are applied until nothing changes.

Example:
    >>> doms, removed, conflict = filter_lists(
    ...     3, [0b001, 0b111, 0b111], groups=[((0, 1, 2), None)], less=[(1, 2)])
    >>> [bin(d) for d in doms], removed, conflict
    (['0b1', '0b10', '0b100'], 4, None)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["bits", "low_bit", "high_bit", "popcount", "filter_lists"]


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


def filter_lists(
    n_cells: int,
    domains: Sequence[int],
    groups: Sequence[tuple[Sequence[int], Sequence[int] | None]],
    less: Sequence[tuple[int, int]] = (),
) -> tuple[list[int], int, int | None]:
    """Reduce lists to a fixpoint of the singleton and inequality rules.

    Args:
        n_cells: Number of cells.
        domains: Initial bit-set list per cell.
        groups: ``(cells, counts)`` per asterism; ``counts`` is None for an
            all-different group, else the multiplicity of each value index.
        less: ``(a, b)`` pairs meaning value(a) < value(b).

    Returns:
        ``(domains, removed, empty_cell)``: the reduced lists, how many values
        were removed, and the first cell whose list became empty (or None).
    """
    doms = list(domains)
    before = sum(d.bit_count() for d in doms)
    cell_groups: list[list[int]] = [[] for _ in range(n_cells)]
    for gi, (cells, _) in enumerate(groups):
        for c in cells:
            cell_groups[c].append(gi)
    succ: list[list[int]] = [[] for _ in range(n_cells)]
    pred: list[list[int]] = [[] for _ in range(n_cells)]
    for a, b in less:
        succ[a].append(b)
        pred[b].append(a)

    queue = list(range(n_cells))
    queued = [True] * n_cells

    def push(c: int) -> None:
        if not queued[c]:
            queued[c] = True
            queue.append(c)

    while queue:
        c = queue.pop()
        queued[c] = False
        d = doms[c]
        if d == 0:
            return doms, before - sum(x.bit_count() for x in doms), c
        if d & (d - 1) == 0:  # a single label left
            for gi in cell_groups[c]:
                cells, counts = groups[gi]
                if counts is not None:
                    used = sum(1 for x in cells if doms[x] == d)
                    if used > counts[d.bit_length() - 1]:
                        return doms, before - sum(x.bit_count() for x in doms), c
                    if used < counts[d.bit_length() - 1]:
                        continue
                for x in cells:
                    if x != c and doms[x] & d:
                        if doms[x] == d:
                            if counts is None:
                                return doms, before - sum(y.bit_count() for y in doms), x
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
    return doms, before - sum(x.bit_count() for x in doms), None
