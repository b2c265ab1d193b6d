"""The relation registry: the constraint vocabulary of a board, as data.

A *relation* ties some cells of a board beyond their asterisms: ``less``
(Futoshiki's inequality signs), ``consecutive`` and ``nonconsecutive``
(Tatham's adjacent mode, Kropki's white dot), ``ratio`` (Kropki's black dot)
and ``cage`` (Killer Sudoku). Each *kind* is one :class:`RelationKind` record
in :data:`RELATIONS`, which says everything the rest of futocp needs:

* its name, its arity (2 for a binary relation, None for a relation over any
  number of cells) and its integer parameters (a cage's ``sum``);
* its meaning, :attr:`RelationKind.holds` -- a predicate on the labels of its
  cells. The checker (:mod:`futocp.verify`) evaluates it; the *support* of a
  binary kind (which label pairs are allowed) is derived from it, and every
  backend falls back to an encoding built from that support (a table in CP-SAT
  and MiniZinc, support clauses in CNF, a function constraint in
  python-constraint, arc consistency in listcolor and the list filtering);
* its structure: whether it is symmetric (cells are then stored sorted),
  acyclic (``less``: a cycle is an error), the kind that contradicts it on
  the same pair (``consecutive`` / ``nonconsecutive``), and, for n-ary kinds,
  whether its cells are pairwise distinct and may not overlap another
  relation of the kind (cages);
* the key under which instance files list it (``less``, ``consecutive``,
  ``nonconsecutive``, ``ratio``, ``cages``).

A backend may register a specialised encoding for a kind (CP-SAT's
``add_abs_equality``, a linear sum for a cage): it keeps those in its own
module, keyed by kind name; a kind it does not know falls back to the generic
support encoding. An n-ary kind has no generic encoding: a backend declares
the n-ary kinds it encodes in its capabilities. Adding a binary kind is
therefore one :func:`register` call (``docs/extending.md`` shows one).

Example:
    >>> RELATIONS["consecutive"].holds((3, 4), {})
    True
    >>> r = Relation("less", (5, 2))
    >>> r.a, r.b, str(r)
    (5, 2, 'less(5, 2)')
    >>> support_masks(RELATIONS["ratio"], (1, 2, 3, 4), {})[0]
    (2, 9, 0, 2)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import BoardError, UnsupportedError

__all__ = [
    "RelationKind",
    "Relation",
    "RELATIONS",
    "register",
    "unregister",
    "get_kind",
    "binary_kinds",
    "nary_kinds",
    "implied_kinds",
    "support_masks",
    "cage_combinations",
    "allowed_tuples",
    "MAX_TUPLE_CANDIDATES",
]


@dataclass(frozen=True)
class RelationKind:
    """One kind of relation (see the module docstring).

    Attributes:
        name: The kind's name (``less``, ``cage``, ...).
        holds: ``holds(labels, params) -> bool``, the meaning on the labels of the
            relation's cells (in the relation's cell order).
        arity: 2 for a binary kind; None for any number of cells (at least 2).
        params: Names of the kind's integer parameters.
        key: The key instance files list relations of this kind under.
        symmetric: The meaning does not depend on the order of the cells
            (cells are stored sorted, so a pair is one relation).
        acyclic: A cycle of relations of this kind is an error (``less``).
        opposite: A kind that contradicts this one on the same cells.
        distinct: n-ary kinds: the cells take pairwise different labels.
        exclusive: n-ary kinds: two relations of this kind share no cell.
        integer: The kind needs integer labels.
        implied: The kind of the unmarked pairs of a fully marked board (every
            pair of neighbours carries a relation: Tatham's adjacent mode, a
            complete Kropki board); drawings leave it out there.
        description: One sentence for the docs and ``futocp`` listings.
    """

    name: str
    holds: Callable[[Sequence[int], Mapping[str, int]], bool]
    arity: int | None = 2
    params: tuple[str, ...] = ()
    key: str = ""
    symmetric: bool = True
    acyclic: bool = False
    opposite: str | None = None
    distinct: bool = False
    exclusive: bool = False
    integer: bool = True
    implied: bool = False
    description: str = ""

    @property
    def binary(self) -> bool:
        """True for a binary kind."""
        return self.arity == 2


@dataclass(frozen=True, order=True)
class Relation:
    """One relation of a board: a kind, its cells and its parameters.

    Attributes:
        kind: A name from :data:`RELATIONS`.
        cells: The cells, in the kind's order (sorted for a symmetric kind).
        params: ``(name, value)`` pairs, sorted.
    """

    kind: str
    cells: tuple[int, ...]
    params: tuple[tuple[str, int], ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", tuple(self.cells))
        object.__setattr__(self, "params", tuple(sorted(self.params)))

    @property
    def a(self) -> int:
        """The first cell."""
        return self.cells[0]

    @property
    def b(self) -> int:
        """The second cell."""
        return self.cells[1]

    @property
    def param_map(self) -> dict[str, int]:
        """The parameters as a dict."""
        return dict(self.params)

    @property
    def spec(self) -> RelationKind:
        """The kind's record."""
        return get_kind(self.kind)

    def holds(self, labels: Sequence[Any]) -> bool:
        """Whether the labels of the cells (in cell order) satisfy the relation."""
        try:
            return bool(self.spec.holds(tuple(labels), self.param_map))
        except TypeError:  # labels of the wrong type never satisfy it
            return False

    def __str__(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in self.params)
        return f"{self.kind}({', '.join(map(str, self.cells))}{extra})"


RELATIONS: dict[str, RelationKind] = {}
"""Every relation kind, by name (the single registration step)."""


def register(kind: RelationKind) -> RelationKind:
    """Add a relation kind to :data:`RELATIONS` (a name may be registered once).

    Raises:
        ValueError: for a name already registered or a bad record.
    """
    if kind.name in RELATIONS:
        raise ValueError(f"relation kind {kind.name!r} is already registered")
    if kind.arity is not None and kind.arity != 2:
        raise ValueError("a relation kind is binary (arity 2) or n-ary (arity None)")
    if kind.binary and (kind.distinct or kind.exclusive):
        raise ValueError("distinct and exclusive apply to n-ary kinds")
    if not kind.key:
        kind = RelationKind(**{**kind.__dict__, "key": kind.name})
    RELATIONS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove a kind (for tests that register their own)."""
    RELATIONS.pop(name, None)


def get_kind(name: str) -> RelationKind:
    """The record of a kind.

    Raises:
        BoardError: for an unknown kind.
    """
    try:
        return RELATIONS[name]
    except KeyError:
        raise BoardError(f"unknown relation kind {name!r} (known: {', '.join(RELATIONS)})") from None


def binary_kinds() -> tuple[str, ...]:
    """The names of the binary kinds, in registration order."""
    return tuple(k.name for k in RELATIONS.values() if k.binary)


def nary_kinds() -> tuple[str, ...]:
    """The names of the n-ary kinds (arity None), in registration order."""
    return tuple(k.name for k in RELATIONS.values() if not k.binary)


def implied_kinds() -> frozenset[str]:
    """The names of the kinds marked ``implied``."""
    return frozenset(k.name for k in RELATIONS.values() if k.implied)


def support_masks(kind: RelationKind, values: Sequence[Any], params: Mapping[str, int]
                  ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The support of a binary kind over value indices, as bit sets (cached).

    Returns:
        ``(forward, backward)``: ``forward[i]`` has bit ``j`` set when
        ``holds((values[i], values[j]))``; ``backward[j]`` has bit ``i`` set
        under the same condition.
    """
    return _support_masks(kind, tuple(values), tuple(sorted(params.items())))


@functools.lru_cache(maxsize=256)
def _support_masks(kind: RelationKind, values: tuple[Any, ...],
                   params_items: tuple[tuple[str, int], ...]
                   ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    params = dict(params_items)
    n = len(values)
    fwd = [0] * n
    bwd = [0] * n
    for i, x in enumerate(values):
        for j, y in enumerate(values):
            try:
                ok = kind.holds((x, y), params)
            except TypeError:
                ok = False
            if ok:
                fwd[i] |= 1 << j
                bwd[j] |= 1 << i
    return tuple(fwd), tuple(bwd)


def cage_combinations(values: Sequence[int], size: int, total: int) -> list[int]:
    """The sets of ``size`` distinct values summing to ``total``, as bit sets of value indices.

    Example:
        >>> [bin(m) for m in cage_combinations((1, 2, 3, 4), 2, 5)]
        ['0b1001', '0b110']
    """
    out: list[int] = []
    vals = list(values)

    def walk(start: int, left: int, rest: int, mask: int) -> None:
        if left == 0:
            if rest == 0:
                out.append(mask)
            return
        for i in range(start, len(vals) - left + 1):
            v = vals[i]
            low = sum(vals[i:i + left])
            high = sum(vals[len(vals) - left:])
            if low > rest:
                break
            if high < rest:
                return
            walk(i + 1, left - 1, rest - v, mask | 1 << i)

    walk(0, size, total, 0)
    return out


MAX_TUPLE_CANDIDATES = 1_000_000
""":func:`allowed_tuples` refuses to look at more candidate tuples than this."""


def allowed_tuples(kind: RelationKind, values: Sequence[Any], lists: Sequence[Sequence[int]],
                   params: Mapping[str, int], max_candidates: int | None = None
                   ) -> list[tuple[int, ...]]:
    """The generic decomposition of a relation of any arity: the tuples of value
    indices, one from each cell's list, whose labels satisfy the kind's meaning.

    A backend without a specialised encoding of an n-ary kind posts these as a
    table (or its linearisation). The candidates are the product of the lists
    (tuples that repeat a value are skipped at once for a ``distinct`` kind).

    Args:
        kind: The kind's record.
        values: The labels, indexed by value index.
        lists: Per cell of the relation, its value indices.
        params: The relation's parameters.
        max_candidates: The largest product of the list lengths looked at (None:
            :data:`MAX_TUPLE_CANDIDATES`).

    Raises:
        UnsupportedError: when the product of the list lengths exceeds ``max_candidates``.

    Example:
        >>> allowed_tuples(RELATIONS["cage"], (1, 2, 3), [[0, 1, 2]] * 2, {"sum": 4})
        [(0, 2), (2, 0)]
    """
    if max_candidates is None:
        max_candidates = MAX_TUPLE_CANDIDATES
    size = 1
    for lst in lists:
        size *= len(lst)
    if size > max_candidates:
        raise UnsupportedError(
            f"the {kind.name} relation over {len(lists)} cells has {size:,} candidate tuples "
            f"(more than {max_candidates:,}): too many for a table")
    out: list[tuple[int, ...]] = []
    chosen: list[int] = []

    def walk(i: int) -> None:
        if i == len(lists):
            try:
                ok = kind.holds(tuple(values[v] for v in chosen), params)
            except TypeError:
                ok = False
            if ok:
                out.append(tuple(chosen))
            return
        for v in lists[i]:
            if kind.distinct and v in chosen:
                continue
            chosen.append(v)
            walk(i + 1)
            chosen.pop()

    walk(0)
    return out


# ------------------------------------------------------------ the kinds futocp ships
def _less(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return v[0] < v[1]


def _consecutive(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return abs(v[0] - v[1]) == 1


def _nonconsecutive(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return abs(v[0] - v[1]) != 1


def _ratio(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return v[0] == 2 * v[1] or v[1] == 2 * v[0]


def _cage(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return len(set(v)) == len(v) and sum(v) == p["sum"]


register(RelationKind("less", _less, symmetric=False, acyclic=True,
                      description="the label of the first cell is smaller (Futoshiki's sign)"))
register(RelationKind("consecutive", _consecutive, opposite="nonconsecutive",
                      description="the labels differ by exactly 1 (adjacent mode, Kropki's "
                                  "white dot)"))
register(RelationKind("nonconsecutive", _nonconsecutive, opposite="consecutive", implied=True,
                      description="the labels do not differ by 1 (an unmarked pair in "
                                  "adjacent mode)"))
register(RelationKind("ratio", _ratio,
                      description="one label is exactly twice the other (Kropki's black dot)"))
register(RelationKind("cage", _cage, arity=None, params=("sum",), key="cages", distinct=True,
                      exclusive=True,
                      description="pairwise different labels with the given sum (Killer "
                                  "Sudoku's cage)"))


def _nodot(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return abs(v[0] - v[1]) != 1 and v[0] != 2 * v[1] and v[1] != 2 * v[0]


register(RelationKind("nodot", _nodot, implied=True,
                      description="the labels are neither consecutive nor one twice the other "
                                  "(a pair without a dot in a complete Kropki)"))
