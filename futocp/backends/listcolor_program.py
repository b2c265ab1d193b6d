"""The listcolor backend's compiled program: a Model in the solver's internal numbering.

Part of :mod:`futocp.backends.listcolor` (its names are re-exported there);
the ``program`` section of ``_listcolor_core.c`` reads the same fields.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ..model import Model
from ..relations import Relation, get_kind

__all__ = ["LABEL_SETS", "ListcolorProgram", "compile_program"]

LABEL_SETS: dict[str, Callable[[Model, Relation], tuple[int, ...]]] = {
    "cage": Model.combinations,
}
"""n-ary kinds held as label sets (their specialised encoding): ``sets(model, rel)``
gives the bit sets of values one of which fills the relation's cells exactly
(their distinctness is their all-different group); every other n-ary kind is
held as its diagram."""


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
        cages: Per relation of a :data:`LABEL_SETS` kind (a cage), ``(cells,
            combinations)``: its internal cells and the bit sets of values
            that may fill it together (right size and sum).
        diagrams: Per other n-ary relation, ``(cells, layers, levels)``: its
            internal cells and its layered decision diagram, labels as bits.
        values: The Model's labels (value index -> label), to write solutions.
        seed: The seed that shuffled the tie-break order (None: the cell order);
            the search shuffles its value order from it too.
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
    values: tuple[Any, ...] = ()
    diagrams: tuple[tuple[tuple[int, ...], tuple[tuple[tuple[int, int, int], ...], ...],
                          tuple[int, ...]], ...] = ()
    seed: int | None = None

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


def compile_program(model: Model, seed: int | None = None) -> ListcolorProgram:
    """Compile ``model``; ``seed`` shuffles the tie-break order among equal-degree cells.

    Everything but the lists depends only on the model's constraints (not on its
    clues): models of the same structure (the puzzles of a Sudoku collection)
    share it, compiled once (a small cache, so that solving many puzzles does
    not pay for it every time).
    """
    relations = model.relations
    kinds = tuple(get_kind(kind) for kind in sorted({r.kind for r in relations}))
    key: Hashable | None = (model.n_cells, model.values, model.permutations, model.counts, model.all_different,
           relations, kinds, seed)  # the kinds: a kind registered again is compiled again
    fields: dict[str, Any] | None = None
    try:
        fields = _STRUCTURES.get(key)
    except TypeError:  # an unhashable label or parameter: not cached
        key = None
    if fields is None:
        fields = _structure(model, seed)
        if key is not None:
            if len(_STRUCTURES) >= _STRUCTURES_KEPT:
                _STRUCTURES.clear()
            _STRUCTURES[key] = fields
    return ListcolorProgram(domains=tuple(map(model.domains.__getitem__, fields["cells"])),
                            **fields)


_STRUCTURES: dict[Hashable, dict[str, Any]] = {}
_STRUCTURES_KEPT = 32


def _structure(model: Model, seed: int | None) -> dict[str, Any]:
    """The fields of :func:`compile_program`'s program but ``domains``."""
    n = model.n_cells
    degree = [0] * n
    for rel in model.binary:  # every binary relation; a plain Futoshiki: its inequalities
        degree[rel.a] += 1
        degree[rel.b] += 1
    for rel in model.nary:
        for c in rel.cells:
            degree[c] += 1
    order = list(range(n))
    if seed is not None:
        random.Random(seed).shuffle(order)
    order.sort(key=lambda c: -degree[c])  # stable: ties keep cell (or shuffled) order
    internal = [0] * n
    for i, c in enumerate(order):
        internal[c] = i
    at = internal.__getitem__
    groups = [tuple(map(at, con.cells)) for con in model.permutations]
    counts: list[tuple[int, ...] | None] = [None] * len(groups)
    for con in model.counts:
        groups.append(tuple(map(at, con.cells)))
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
    return dict(
        cells=tuple(order),
        groups=tuple(groups),
        counts=tuple(counts),
        cell_groups=tuple(map(tuple, cell_groups)),
        succ=tuple(map(tuple, succ)),
        pred=tuple(map(tuple, pred)),
        n_values=model.n_values,
        dual_groups=tuple(g for g, k in enumerate(counts) if k is None),
        arcs=tuple(map(tuple, arcs)),
        distinct=tuple(tuple(map(at, con.cells)) for con in model.all_different),
        cages=tuple((tuple(map(at, rel.cells)), tuple(LABEL_SETS[rel.kind](model, rel)))
                    for rel in model.nary if rel.kind in LABEL_SETS),
        values=tuple(model.values),
        seed=seed,
        diagrams=tuple(_diagram(model, rel, at) for rel in model.nary
                       if rel.kind not in LABEL_SETS),
    )


def _diagram(model: Model, rel: Relation, at: Callable[[int], int]
             ) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, int, int], ...], ...],
                        tuple[int, ...]]:
    """``(internal cells, layers, levels)`` of an n-ary relation's diagram on every
    value (shared by the models of one structure), labels as bits."""
    d = model.diagram(rel, full=True).as_bits
    return tuple(map(at, rel.cells)), d.layers, d.levels
