"""Generalised arc consistency of the all-different groups (Régin's algorithm).

A group's cells and labels form a bipartite graph: cell j -- value r when r is
in j's list, value r taking at most ``caps[r]`` cells (1 for a Permutation
group or a partial all-different group such as a cage, the label's
multiplicity for a Count group). A matching that saturates every cell is an
assignment of the group; an edge ``(j, r)`` lies in some such matching
(Berge) exactly when j is matched to r, or it lies on an even alternating
cycle, or on an even alternating path that ends at a value with spare
capacity. :func:`revise_group` keeps exactly those edges: it is generalised
arc consistency of the group (one pass reaches it, a Hall set -- n cells
whose lists hold only n values -- is what it removes).

* Permutation groups (``caps`` all 1, as many values as cells): every value is
  matched, and the kept edges are those whose two ends fall in one strongly
  connected component of the oriented graph;
* Count groups (a multiset, ``caps`` the multiplicities summing to the
  number of cells): the same, with a value of multiplicity k taking k cells --
  GAC of the exact global cardinality constraint, so it is sound and complete
  for them too, no separate rule is needed;
* partial groups (cages): values outside the matching are free, and an edge
  survives also when its value reaches a free value.

Hidden singles (a label with one place left in a group) are implied: a cell
that is a label's only place is matched to it in every saturating matching.

:func:`gac_filter` iterates :func:`revise_group` over every group with the
list filtering of :mod:`futocp.propagate` (singles, relations, cages) to a
common fixpoint; ``build_model(board, filtering="gac")`` uses it.

The matching is hand-written on bit sets (a greedy pass, then Kuhn's
augmenting paths, with capacities), shared with the rating engine's ``subset``
technique, and the oriented graph's reachability is a Warshall closure on bit
sets (values only: a value reaches the values of the cells matched to it).
scipy (``maximum_bipartite_matching`` and strong ``connected_components``) and
networkx are not dependencies of futocp; measured on one pass over every group
of the QWH files of order 30 to 70 (``benchmarks/gac.py --libraries``), scipy,
fed all groups in one call, is within 2x of this code either way (building its
graph from the lists costs what its C matching saves) and networkx is 5-20x
slower, so neither pays for a new dependency.

Example:
    >>> revise_group([0b011, 0b011, 0b111], [1, 1, 1])  # {1,2} is a Hall set
    [3, 3, 4]
    >>> revise_group([0b001, 0b001, 0b111], [1, 1, 1]) is None
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .propagate import bits

__all__ = ["NoMatching", "saturating_matching", "value_reach", "revise_group", "gac_filter"]


class NoMatching(Exception):
    """No matching saturates the cells: ``lefts`` need the values in ``rights`` only."""

    def __init__(self, lefts: list[int], rights: int) -> None:
        super().__init__()
        self.lefts = lefts
        self.rights = rights


def saturating_matching(doms: Sequence[int], caps: Sequence[int]
                        ) -> tuple[list[int], list[list[int]]]:
    """A matching that saturates every left node (greedy, then Kuhn's augmenting paths).

    Args:
        doms: Per left node, the bit set of the right nodes it may take.
        caps: Per right node, how many left nodes it may take.

    Returns:
        ``(mate, owners)``: the right node of each left node, the left nodes of each right node.

    Raises:
        NoMatching: with a Hall violator (left nodes and the rights they all need).
    """
    nl = len(doms)
    mate = [-1] * nl
    owners: list[list[int]] = [[] for _ in caps]
    spare = 0  # rights with capacity left
    for r, cap in enumerate(caps):
        if cap > 0:
            spare |= 1 << r
    todo = []
    for i in range(nl):
        m = doms[i] & spare
        if m:
            low = m & -m
            r = low.bit_length() - 1
            owners[r].append(i)
            mate[i] = r
            if len(owners[r]) >= caps[r]:
                spare ^= low
        else:
            todo.append(i)
    if not todo:
        return mate, owners
    visited = 0

    def augment(i: int) -> bool:
        nonlocal visited, spare
        m = doms[i] & ~visited
        free = m & spare
        if free:
            low = free & -free
            r = low.bit_length() - 1
            visited |= low
            owners[r].append(i)
            mate[i] = r
            if len(owners[r]) >= caps[r]:
                spare ^= low
            return True
        while m:
            low = m & -m
            m ^= low
            if visited & low:
                continue
            visited |= low
            r = low.bit_length() - 1
            own = owners[r]
            for j, other in enumerate(own):
                if augment(other):
                    own[j] = i
                    mate[i] = r
                    return True
        return False

    for i in todo:
        visited = 0
        if not augment(i):
            rights = visited | doms[i]
            lefts = {i}
            for r in bits(rights):
                lefts.update(owners[r])
            raise NoMatching(sorted(lefts), rights)
    return mate, owners


def value_reach(doms: Sequence[int], caps: Sequence[int], owners: Sequence[Sequence[int]]
                ) -> tuple[list[int], int]:
    """The alternating reachability between values for a saturating matching.

    Value r reaches value q when an alternating path leads from r to q (r -> a
    cell matched to r -> another value of that cell -> ...).

    Returns:
        ``(reach, free)``: per value, the bit set of the values it reaches
        (itself included), and the bit set of the values with spare capacity.
    """
    nr = len(caps)
    free = 0
    reach = [0] * nr
    for r in range(nr):
        own = owners[r]
        if len(own) < caps[r]:
            free |= 1 << r
        m = 1 << r
        for j in own:
            m |= doms[j]
        reach[r] = m
    for k in range(nr):  # transitive closure (Warshall on bit sets)
        bk = 1 << k
        rk = reach[k]
        if rk == bk:
            continue
        for r in range(nr):
            if reach[r] & bk:
                reach[r] |= rk
    return reach, free


def revise_group(doms: Sequence[int], caps: Sequence[int]) -> list[int] | None:
    """The lists of one group reduced to generalised arc consistency.

    Args:
        doms: Per cell of the group, its list (bit set of value indices).
        caps: Per value index, how many cells of the group may take it.

    Returns:
        The reduced lists (edges that lie in some saturating matching), or None
        when no assignment of the group exists.
    """
    try:
        mate, owners = saturating_matching(doms, caps)
    except NoMatching:
        return None
    reach, free = value_reach(doms, caps, owners)
    to_free = 0  # values that reach a value with spare capacity
    if free:
        for r, rr in enumerate(reach):
            if rr & free:
                to_free |= 1 << r
    out = []
    for j, d in enumerate(doms):
        mj = mate[j]
        keep = to_free | (1 << mj)
        rest = d & ~keep
        while rest:  # an alternating cycle through j: r reaches j's value
            low = rest & -rest
            rest ^= low
            if (reach[low.bit_length() - 1] >> mj) & 1:
                keep |= low
        out.append(d & keep)
    return out


def gac_filter(
    domains: Sequence[int],
    groups: Sequence[tuple[Sequence[int], Sequence[int]]],
    lists: Callable[[list[int], Sequence[int] | None], tuple[list[int], int, int | None]],
) -> tuple[list[int], int, int | None]:
    """Reduce lists to a common fixpoint of GAC on every group and the list filtering.

    Args:
        domains: Initial bit-set list per cell.
        groups: ``(cells, caps)`` per group: the value capacities (see
            :func:`revise_group`).
        lists: The list filtering: ``lists(domains, touched)`` reduces the
            domains to its fixpoint starting from the ``touched`` cells (None:
            all) and returns ``(domains, removed, empty_cell)`` as
            :func:`futocp.propagate.filter_lists`.

    Returns:
        ``(domains, removed, empty_cell)``: the reduced lists, how many values
        were removed, and a cell whose list became empty (or one of a group
        with no assignment), or None.
    """
    before = sum(d.bit_count() for d in domains)
    doms, _, empty = lists(list(domains), None)

    def done(cell: int | None) -> tuple[list[int], int, int | None]:
        return doms, before - sum(d.bit_count() for d in doms), cell

    if empty is not None:
        return done(empty)
    cell_groups: dict[int, list[int]] = {}
    for g, (cells, _) in enumerate(groups):
        for c in cells:
            cell_groups.setdefault(c, []).append(g)
    dirty = set(range(len(groups)))
    while dirty:
        touched: set[int] = set()
        for g in sorted(dirty):
            cells, caps = groups[g]
            if not _revise_open(doms, cells, caps, touched):
                return done(cells[0])
        if not touched:
            break
        snapshot = list(doms)
        doms, _, empty = lists(doms, sorted(touched))
        if empty is not None:
            return done(empty)
        touched.update(c for c, (a, b) in enumerate(zip(snapshot, doms, strict=True)) if a != b)
        dirty = {g for c in touched for g in cell_groups.get(c, ())}
    return done(None)


def _revise_open(doms: list[int], cells: Sequence[int], caps: Sequence[int],
                 touched: set[int]) -> bool:
    """:func:`revise_group` on the cells of a group that are still open (in place).

    The decided cells are left out (their labels use up capacity), and a group
    whose open cells all hold one same list of values that can fill them is
    left as it is (a complete bipartite graph: every edge is in a matching).

    Returns:
        False when the group has no assignment.
    """
    left = list(caps)
    open_cells = []
    for c in cells:
        d = doms[c]
        if d & (d - 1):
            open_cells.append(c)
        elif d:
            left[d.bit_length() - 1] -= 1
        else:
            return False
    if not open_cells:
        return min(left) >= 0
    first = doms[open_cells[0]]
    if all(doms[c] == first for c in open_cells):
        room = [left[v] for v in bits(first)]
        if min(room) >= 1 and sum(room) >= len(open_cells):
            return min(left) >= 0
    if min(left) < 0:
        return False
    new = revise_group([doms[c] for c in open_cells], left)
    if new is None:
        return False
    for c, d in zip(open_cells, new, strict=True):
        if d != doms[c]:
            doms[c] = d
            touched.add(c)
    return True
