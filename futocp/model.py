"""Board -> Model: the CSP every backend compiles.

The Model has one variable per cell, whose *list* (domain) is a set of value
indices into :attr:`Model.values` (the board's distinct labels, sorted, so that
index order is label order), and these constraints:

* :class:`Permutation` -- an asterism whose multiset has no repeated label:
  its cells take every label exactly once;
* :class:`Count` -- an asterism with repeated labels: label i occurs exactly
  ``counts[i]`` times;
* :class:`AllDifferent` -- a *partial* all-different group (a cage): its cells
  take pairwise different labels, not necessarily all of them;
* :class:`~futocp.relations.Relation` -- a relation of the board (``less``,
  ``consecutive``, ``cage``...), whose meaning is its kind's record in
  :mod:`futocp.relations`; a kind whose cells are distinct (a cage) also
  gives an :class:`AllDifferent`;
* :class:`Fixed` -- a clue, or a *given* of a one-cell relation: a Killer
  cage of one cell holds its sum (its list is narrowed to the labels the
  relation allows, like a clue's, in every filtering mode).

The Model also owns the structure backends need: the permutation groups as
``(cells, counts)`` pairs (:attr:`Model.groups`), the groups of each cell, the
peers of each cell, the support of every binary relation over value indices
(:meth:`Model.support`), the label sets of every cage
(:meth:`Model.combinations`) and the generic decomposition of every n-ary
relation over value indices: its allowed tuples on the cells' lists
(:meth:`Model.allowed_tuples`, a table) and the same as a layered decision
diagram (:meth:`Model.diagram`), both without the tuples that give one label
to two cells of a shared all-different group (:meth:`Model.distinct_pairs`).

``build_model(board, filtering="lists")`` applies the list-colouring reduction of
seed 000 (:func:`futocp.propagate.filter_lists`), extended to every relation;
``filtering="gac"`` adds generalised arc consistency of every all-different
group (Régin's matching algorithm, :mod:`futocp.gac`) to a common fixpoint
(the default stays ``"lists"``: on the QWH files, order 30 to 70, ``gac``
fixes more holes but changes no backend's solve time, docs/performance.md);
``filtering="none"`` keeps full lists (clue cells still have their single
label). Clue conflicts (two equal clues in an all-different group, more clues
of a label than its multiplicity, clues that break a relation, a cage whose
sum no labels reach) are detected in both modes and recorded in
:attr:`Model.conflict`: such a model is unsatisfiable and every backend
answers ``unsat`` with that reason.

Example:
    >>> from futocp.families import latin_square
    >>> m = build_model(latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]]))
    >>> m.domain(0), m.domain(1), m.domain(4)
    ([0], [1, 2], [0, 1, 2])
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .board import Board, Label
from .diagram import Diagram
from .errors import UnsupportedError, UsageError
from .gac import gac_filter
from .propagate import bits, filter_lists
from .relations import (
    MAX_TUPLES,
    Relation,
    TableTooLarge,
    cage_combinations,
    get_kind,
    support_masks,
)

__all__ = [
    "Permutation",
    "Count",
    "AllDifferent",
    "Relation",
    "Fixed",
    "Constraint",
    "Model",
    "build_model",
    "FILTERINGS",
]

FILTERINGS = ("lists", "none", "gac")


@dataclass(frozen=True)
class Permutation:
    """The cells take every value exactly once (an asterism of distinct labels)."""

    cells: tuple[int, ...]


@dataclass(frozen=True)
class Count:
    """Value index i occurs exactly ``counts[i]`` times among ``cells``."""

    cells: tuple[int, ...]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class AllDifferent:
    """The cells take pairwise different values (not necessarily every value)."""

    cells: tuple[int, ...]


@dataclass(frozen=True)
class Fixed:
    """A clue (or a one-cell relation's given): the cell takes value index ``value``."""

    cell: int
    value: int


Constraint = Permutation | Count | AllDifferent | Relation | Fixed
Group = tuple[tuple[int, ...], tuple[int, ...] | None]


@dataclass(frozen=True, eq=False)
class Model:
    """A CSP over value indices, built from a Board.

    Attributes:
        board: The board the model was built from.
        values: Distinct labels, sorted; variable values are indices into it.
        domains: Per cell, a bit set of the value indices still allowed.
        constraints: Permutation, Count, AllDifferent, Relation and Fixed constraints.
        filtering: ``"lists"``, ``"gac"`` or ``"none"``.
        conflict: Why the model is known to be unsatisfiable, or None.
        stats: ``build_s`` (seconds), ``removed_values`` (by filtering) and
            ``fixed_cells`` (cells without a clue or a given that filtering
            left one label).
    """

    board: Board
    values: tuple[Label, ...]
    domains: tuple[int, ...]
    constraints: tuple[Constraint, ...]
    filtering: str = "lists"
    conflict: str | None = None
    stats: dict[str, float | int] = field(default_factory=dict)

    @property
    def n_cells(self) -> int:
        """Number of variables."""
        return len(self.domains)

    @property
    def n_values(self) -> int:
        """Number of distinct values."""
        return len(self.values)

    @cached_property
    def int_values(self) -> tuple[int, ...]:
        """:attr:`values` as integers, for the encodings that add labels (cage sums).

        Raises:
            UnsupportedError: when a label is a string (the Board refuses the
                kinds that add labels on such boards, so an encoding never sees one).
        """
        out = tuple(v for v in self.values if isinstance(v, int))
        if len(out) != len(self.values):
            raise UnsupportedError("this model's labels are not all integers")
        return out

    def domain(self, cell: int) -> list[int]:
        """The value indices still allowed for ``cell``, ascending."""
        return bits(self.domains[cell])

    @cached_property
    def _by_class(self) -> dict[type, tuple[Any, ...]]:
        """The constraints by their class, in order (one pass for every property below)."""
        out: dict[type, list[Any]] = {}
        for c in self.constraints:
            out.setdefault(type(c), []).append(c)
        return {cls: tuple(cs) for cls, cs in out.items()}

    @cached_property
    def permutations(self) -> tuple[Permutation, ...]:
        """The Permutation constraints."""
        return self._by_class.get(Permutation, ())

    @property
    def cages(self) -> tuple[Relation, ...]:
        """The ``cage`` relations."""
        return self.of_kind("cage")

    @cached_property
    def counts(self) -> tuple[Count, ...]:
        """The Count constraints."""
        return self._by_class.get(Count, ())

    @cached_property
    def all_different(self) -> tuple[AllDifferent, ...]:
        """The partial AllDifferent constraints (cages)."""
        return self._by_class.get(AllDifferent, ())

    @cached_property
    def relations(self) -> tuple[Relation, ...]:
        """Every relation."""
        return self._by_class.get(Relation, ())

    @cached_property
    def binary(self) -> tuple[Relation, ...]:
        """The binary relations."""
        return tuple(r for r in self.relations if get_kind(r.kind).binary)

    @cached_property
    def nary(self) -> tuple[Relation, ...]:
        """The n-ary relations (cages)."""
        return tuple(r for r in self.relations if not get_kind(r.kind).binary)

    @cached_property
    def less(self) -> tuple[Relation, ...]:
        """The ``less`` relations (``.a`` < ``.b``)."""
        return tuple(r for r in self.relations if r.kind == "less")

    def of_kind(self, kind: str) -> tuple[Relation, ...]:
        """The relations of one kind."""
        return tuple(r for r in self.relations if r.kind == kind)

    @cached_property
    def fixed(self) -> tuple[Fixed, ...]:
        """The Fixed constraints (clues)."""
        return self._by_class.get(Fixed, ())

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        """The permutation groups as ``(cells, counts)``: counts None for a Permutation."""
        out: list[Group] = [(con.cells, None) for con in self.permutations]
        out += [(con.cells, con.counts) for con in self.counts]
        return tuple(out)

    @cached_property
    def cell_groups(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, the indices (into :attr:`groups`) of its permutation groups."""
        out: list[list[int]] = [[] for _ in range(self.n_cells)]
        for g, (cells, _) in enumerate(self.groups):
            for c in cells:
                out[c].append(g)
        return tuple(map(tuple, out))

    @cached_property
    def features(self) -> frozenset[str]:
        """What the model needs of a backend: ``multiset``, ``strings``,
        ``alldifferent`` (partial groups) and the kind of every relation."""
        out = {r.kind for r in self.relations}
        if self.counts:
            out.add("multiset")
        if self.all_different:
            out.add("alldifferent")
        if any(isinstance(v, str) for v in self.values):
            out.add("strings")
        return frozenset(out)

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, the other cells that must take a different value (a shared
        Permutation or AllDifferent)."""
        out: list[set[int]] = [set() for _ in range(self.n_cells)]
        groups: list[Permutation | AllDifferent] = [*self.permutations, *self.all_different]
        for con in groups:
            for c in con.cells:
                out[c].update(con.cells)
        return tuple(tuple(sorted(s - {i})) for i, s in enumerate(out))

    @cached_property
    def cell_relations(self) -> tuple[tuple[Relation, ...], ...]:
        """Per cell, the relations that name it."""
        out: list[list[Relation]] = [[] for _ in range(self.n_cells)]
        for r in self.relations:
            for c in r.cells:
                out[c].append(r)
        return tuple(map(tuple, out))

    def support(self, rel: Relation) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The support of a binary relation over value indices, as bit sets.

        ``forward[i]``: the values of ``rel.b`` compatible with value ``i`` of
        ``rel.a``; ``backward[j]``: the values of ``rel.a`` compatible with
        value ``j`` of ``rel.b``.
        """
        key = (rel.kind, rel.params)
        cache = self._support_cache
        if key not in cache:
            cache[key] = support_masks(get_kind(rel.kind), self.values, rel.param_map)
        return cache[key]

    def allowed_pairs(self, rel: Relation) -> list[tuple[int, int]]:
        """The allowed ``(value of a, value of b)`` index pairs of a binary relation."""
        fwd, _ = self.support(rel)
        return [(i, j) for i, mask in enumerate(fwd) for j in bits(mask)]

    def combinations(self, rel: Relation) -> tuple[int, ...]:
        """A cage's label sets (bit sets of value indices) of the right size and sum."""
        key = (len(rel.cells), rel.params)
        cache = self._combination_cache
        if key not in cache:
            cache[key] = tuple(cage_combinations(_ints(self.values), len(rel.cells),
                                                 rel.param_map["sum"]))
        return cache[key]

    def distinct_pairs(self, rel: Relation) -> tuple[tuple[int, int], ...]:
        """The pairs ``(i, j)``, ``i < j``, of positions of ``rel``'s cells that share
        a Permutation or partial AllDifferent group (so take different labels)."""
        near = self.neighbours
        cells = rel.cells
        return tuple((i, j) for i in range(len(cells)) for j in range(i + 1, len(cells))
                     if cells[j] in near[cells[i]])

    def describe(self, rel: Relation) -> str:
        """``relation arith(0,0), (0,1) op=+ target=3``: a relation for the messages."""
        name = self.board.cell_name
        params = "".join(f" {k}={v}" for k, v in rel.params)
        return f"relation {rel.kind}({', '.join(name(c) for c in rel.cells)}){params}"

    def allowed_tuples(self, rel: Relation, limit: int | None = MAX_TUPLES
                       ) -> tuple[tuple[int, ...], ...]:
        """The generic decomposition of an n-ary relation as a table: the value-index
        tuples (one per cell, in the relation's order) that its kind allows on the
        cells' current lists, without those that repeat a label in a shared
        all-different group. Cached per relation.

        Raises:
            TableTooLarge: past ``limit`` rows (or :data:`~futocp.relations.MAX_STEPS`
                steps of enumeration), naming the relation.
        """
        key = (rel, limit)
        cache = self._tuple_cache
        if key not in cache:
            cache[key] = _decomposed("table", self, rel, self._lists(rel), limit)
        return cache[key]

    def diagram(self, rel: Relation, full: bool = False, limit: int | None = MAX_TUPLES
                ) -> Diagram:
        """The generic decomposition of an n-ary relation as a layered decision
        diagram over value indices (:mod:`futocp.diagram`): unrolled from its
        kind's automaton, or built from its table (without the tuples that
        repeat a label in a shared all-different group).

        Args:
            rel: The relation.
            full: Build it on every value for every cell (valid for any lists,
                so for the filtering of lists other than the Model's, and for
                structures shared between models), not on the cells' current lists.
            limit: Most rows or arcs.

        Raises:
            TableTooLarge: past ``limit``, naming the relation.
        """
        key = (rel, full, limit)
        cache = self._diagram_cache
        if key not in cache:
            lists = (tuple(range(self.n_values)),) * len(rel.cells) if full else self._lists(rel)
            cache[key] = _decomposed("diagram", self, rel, lists, limit)
        return cache[key]

    def _lists(self, rel: Relation) -> tuple[tuple[int, ...], ...]:
        """The current lists of ``rel``'s cells, as value indices."""
        return tuple(tuple(bits(self.domains[c])) for c in rel.cells)

    @cached_property
    def propagated(self) -> tuple[Relation, ...]:
        """The n-ary relations the list filtering propagates through their diagram
        (every n-ary relation but the cages, which have their own rule)."""
        return tuple(r for r in self.nary if r.kind != "cage")

    @cached_property
    def _filter_diagrams(self) -> tuple[tuple[tuple[int, ...], Any, tuple[int, ...]], ...]:
        """``(cells, layers, levels)`` per propagated relation whose diagram (on every
        value) is within the size guard, its labels as bits (a larger one is left
        out: the filtering is a reduction, the backends still encode it)."""
        out = []
        for rel in self.propagated:
            try:
                d = self.diagram(rel, full=True)
            except TableTooLarge:
                continue
            bitted = d.as_bits
            out.append((rel.cells, bitted.layers, bitted.levels))
        return tuple(out)

    def filter(self, domains: Sequence[int]) -> tuple[list[int], int, int | None]:
        """Run the model's filtering on ``domains``: with ``filtering="gac"``,
        :func:`~futocp.gac.gac_filter` (GAC of every group and the list
        filtering to a fixpoint), else the list filtering
        (:func:`~futocp.propagate.filter_lists`).

        Returns:
            ``(domains, removed, empty_cell)`` as :func:`~futocp.propagate.filter_lists`.
        """
        if self.filtering == "gac":
            return gac_filter(domains, self.gac_groups, self.filter_lists)
        return self.filter_lists(domains)

    def filter_lists(self, domains: Sequence[int], touched: Sequence[int] | None = None
                     ) -> tuple[list[int], int, int | None]:
        """The list filtering (:func:`~futocp.propagate.filter_lists`) on ``domains``,
        from the ``touched`` cells (None: all)."""
        return filter_lists(
            self.n_cells, domains, self.groups,
            [(r.a, r.b) for r in self.less],  # the bounds rule: arc consistency, faster
            distinct=[con.cells for con in self.all_different],
            binary=[(r.a, r.b, *self.support(r)) for r in self.binary if r.kind != "less"],
            cages=[(r.cells, self.combinations(r)) for r in self.cages],
            diagrams=self._filter_diagrams, touched=touched)

    @cached_property
    def gac_groups(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """Every all-different group as ``(cells, caps)`` for :func:`~futocp.gac.gac_filter`:
        a value's capacity is 1 in a Permutation or partial (cage) group, its
        multiplicity in a Count group."""
        ones = (1,) * self.n_values
        out = [(cells, ones if counts is None else tuple(counts))
               for cells, counts in self.groups]
        out += [(con.cells, ones) for con in self.all_different]
        return tuple(out)

    @cached_property
    def _support_cache(self) -> dict[tuple[str, tuple[tuple[str, int], ...]],
                                     tuple[tuple[int, ...], tuple[int, ...]]]:
        return {}

    @cached_property
    def _combination_cache(self) -> dict[tuple[int, tuple[tuple[str, int], ...]],
                                         tuple[int, ...]]:
        return {}

    @cached_property
    def _tuple_cache(self) -> dict[tuple[Relation, int | None], tuple[tuple[int, ...], ...]]:
        return {}

    @cached_property
    def _diagram_cache(self) -> dict[tuple[Relation, bool, int | None], Diagram]:
        return {}

    def labels_of(self, indices: Sequence[int]) -> tuple[Label, ...]:
        """Decode value indices (one per cell) into labels."""
        vals = self.values
        return tuple(vals[i] for i in indices)

    def index_of(self, label: Label) -> int:
        """The value index of a label."""
        return self._index[label]

    @cached_property
    def _index(self) -> dict[Label, int]:
        return {v: i for i, v in enumerate(self.values)}


class _LazyNames:
    """Cell names joined by commas, formatted only when a message needs them."""

    def __init__(self, name: Callable[[int], str], cells: Sequence[int]) -> None:
        self.name, self.cells = name, cells

    def __str__(self) -> str:
        return ", ".join(self.name(c) for c in self.cells)


_DECOMPOSED: dict[tuple[Any, ...], Any] = {}
_DECOMPOSED_KEPT = 4096


def _decomposed(form: str, model: Model, rel: Relation, lists: tuple[tuple[int, ...], ...],
                limit: int | None) -> Any:
    """The table (value-index tuples) or the diagram (over value indices) of ``rel`` on
    ``lists``, shared by the relations and models that ask the same (the Towers
    clues of one count on whole lines, the boards of a collection): keyed by the
    kind's record, the parameters, the lists as labels, the distinct pairs and the
    limit. A refusal (:class:`~futocp.relations.TableTooLarge`) is kept too, and
    raised again naming the relation."""
    spec = get_kind(rel.kind)
    vals = model.values
    labels = tuple(tuple(vals[v] for v in cell) for cell in lists)
    distinct = model.distinct_pairs(rel)
    key = (form, spec, rel.params, labels, distinct, limit)
    hit = _DECOMPOSED.get(key)
    if hit is None:
        index = model._index
        try:
            if form == "table":
                rows = spec.allowed_tuples(labels, rel.param_map, limit, distinct)
                hit = tuple(tuple(index[x] for x in row) for row in rows)
            else:
                made = spec.diagram(labels, rel.param_map, limit, distinct)
                hit = made.relabel(index.__getitem__)
        except TableTooLarge as exc:
            hit = exc
        if len(_DECOMPOSED) >= _DECOMPOSED_KEPT:
            _DECOMPOSED.clear()
        _DECOMPOSED[key] = hit
    if isinstance(hit, TableTooLarge):
        generic = f"a {spec.name} relation"
        raise TableTooLarge(str(hit).replace(generic, model.describe(rel), 1))
    return hit


def _ints(values: Sequence[Label]) -> list[int]:
    """Integer labels (the kinds that need integers are checked by the Board)."""
    return [v for v in values if isinstance(v, int)]


def _clue_conflict(board: Board) -> str | None:
    clues = board.clue_map
    mult = board.multiplicity
    name = board.cell_name
    for i, ast in enumerate(board.asterisms):
        given = [clues[c] for c in ast if c in clues]
        if len(set(given)) == len(given):
            continue  # no label twice (every label is allowed at least once)
        held = Counter(given)
        for label, k in held.items():
            if k > mult[label]:
                cells = [name(c) for c in ast if clues.get(c) == label]
                return (f"{board.asterism_names[i]} holds {label!r} {k} times (allowed "
                        f"{mult[label]}): cells {', '.join(cells)}")
    for rel in board.relations:
        spec = get_kind(rel.kind)
        shown = _LazyNames(name, rel.cells)
        if all(c in clues for c in rel.cells):
            if not rel.holds([clues[c] for c in rel.cells]):
                labels = ", ".join(repr(clues[c]) for c in rel.cells)
                return f"clues break the relation {rel.kind}({shown}): labels {labels}"
        elif spec.distinct:
            seen = Counter(clues[c] for c in rel.cells if c in clues)
            if seen and max(seen.values()) > 1:
                return f"clues repeat a label in the {rel.kind} [{shown}]"
        if rel.kind == "cage" and not cage_combinations(_ints(board.values), len(rel.cells),
                                                        rel.param_map["sum"]):
            return (f"no {len(rel.cells)} different labels sum to {rel.param_map['sum']} "
                    f"(cage [{shown}])")
        if len(rel.cells) == 1 and not _unary_mask(rel, board.values):
            return f"no label satisfies the one-cell {rel.kind} [{shown}]"
        if not spec.binary and not _satisfiable(board, rel):
            params = "".join(f" {k}={v}" for k, v in rel.params)
            return f"no labels of its cells satisfy the relation {rel.kind}({shown}){params}"
    return None


def _unary_mask(rel: Relation, values: Sequence[Label]) -> int:
    """The value indices a one-cell relation allows its cell, as a bit set."""
    return sum(1 << i for i, v in enumerate(values) if rel.holds((v,)))


def _relation_givens(board: Board) -> list[tuple[int, int]]:
    """``(cell, allowed value indices)`` of each one-cell relation on a cell
    without a clue (a Killer cage of one cell: the index of its sum)."""
    clues = board.clue_map
    return [(rel.cells[0], _unary_mask(rel, board.values)) for rel in board.relations
            if len(rel.cells) == 1 and rel.cells[0] not in clues]


def _satisfiable(board: Board, rel: Relation) -> bool:
    """Whether some labels of the board satisfy an n-ary relation, whatever the clues
    (as the cage sum test: what the clues leave is the filtering's or the search's
    to tell); True when the enumeration would take too long to tell."""
    lists = [list(board.values)] * len(rel.cells)
    try:
        return next(get_kind(rel.kind).iter_tuples(lists, rel.param_map), None) is not None
    except TableTooLarge:
        return True


def _group_constraints(asterisms: tuple[tuple[int, ...], ...], counts: tuple[int, ...] | None
                       ) -> tuple[Permutation | Count, ...]:
    """One Permutation (or, with ``counts``, Count) constraint per asterism; the
    boards of a collection share them (a small cache: they are immutable)."""
    key = (asterisms, counts)
    hit = _GROUPS.get(key)
    if hit is None:
        hit = tuple(Permutation(a) if counts is None else Count(a, counts) for a in asterisms)
        if len(_GROUPS) >= 64:
            _GROUPS.clear()
        _GROUPS[key] = hit
    return hit


_GROUPS: dict[tuple[Any, ...], tuple[Permutation | Count, ...]] = {}


def build_model(board: Board, filtering: str = "lists") -> Model:
    """Turn a Board into a Model.

    Args:
        board: The puzzle.
        filtering: ``"lists"`` (list-colouring reduction to a fixpoint), ``"gac"``
            (that and generalised arc consistency of every group, to a common
            fixpoint: :mod:`futocp.gac`) or ``"none"``.

    Returns:
        The Model; check :attr:`Model.conflict` for a known contradiction.

    Raises:
        UsageError: for an unknown filtering.
    """
    if filtering not in FILTERINGS:
        raise UsageError(f"unknown filtering {filtering!r}; choose one of {', '.join(FILTERINGS)}")
    t0 = time.perf_counter()
    values = board.values
    index = {v: i for i, v in enumerate(values)}
    n_values = len(values)
    repeated = len(values) != board.k
    counts = tuple(board.multiplicity[v] for v in values)

    constraints: list[Constraint] = list(_group_constraints(board.asterisms,
                                                            counts if repeated else None))
    for rel in board.relations:
        if get_kind(rel.kind).distinct:
            constraints.append(AllDifferent(rel.cells))
    constraints.extend(board.relations)
    full = (1 << n_values) - 1
    domains = [full] * board.n_cells
    for c, v in board.clues:
        constraints.append(Fixed(c, index[v]))
        domains[c] = 1 << index[v]
    givens = _relation_givens(board)
    for c, allowed in givens:  # a one-cell relation: a unary constraint on the cell's list
        domains[c] &= allowed
        if allowed and not allowed & (allowed - 1):  # one label: a given (a Killer cage of one)
            constraints.append(Fixed(c, allowed.bit_length() - 1))

    model = Model(board, values, tuple(domains), tuple(constraints), filtering)  # the one Model
    removed = 0
    if filtering == "none":
        conflict = _clue_conflict(board)
    else:  # the filtering finds every clue conflict: only then is it worth naming
        domains, removed, empty = model.filter(domains)
        conflict = None if empty is None else (
            _clue_conflict(board)
            or f"the list of cell {board.cell_name(empty)} is empty after filtering")
    clued = {*board.clue_map, *(c for c, _ in givens)}
    fixed = sum(1 for c, d in enumerate(domains) if d and not d & (d - 1) and c not in clued)
    _settle(model, tuple(domains), conflict)
    model.stats.update(build_s=time.perf_counter() - t0, removed_values=removed, fixed_cells=fixed)
    return model


# the caches built on a Model's lists (the structure's cached properties do not depend on them)
_LIST_CACHES = ("_tuple_cache", "_diagram_cache")


def _settle(model: Model, domains: tuple[int, ...], conflict: str | None) -> None:
    """Give the Model that :func:`build_model` filtered its filtered lists and its
    conflict, in place (the Model is frozen once returned): the structure the
    filtering computed stays, the caches built on the first lists go."""
    if domains != model.domains:
        object.__setattr__(model, "domains", domains)
        for name in _LIST_CACHES:
            model.__dict__.pop(name, None)
    object.__setattr__(model, "conflict", conflict)
