"""The relation registry: the constraint vocabulary of a board, as data.

A *relation* ties some cells of a board beyond their asterisms: ``less``
(Futoshiki's inequality signs), ``consecutive`` and ``nonconsecutive``
(Tatham's adjacent mode, Kropki's white dot), ``ratio`` (Kropki's black dot),
``cage`` (Killer Sudoku), ``arith`` (Keen's arithmetic cage) and ``visible``
(a Towers clue). Each *kind* is one :class:`RelationKind` record in
:data:`RELATIONS`, which says everything the rest of futocp needs:

* its name, its arity (2 for a binary relation, None for a relation over any
  number of cells, at least :attr:`RelationKind.min_cells`) and its
  parameters (a cage's ``sum``; integers, or one of a few words listed in
  :attr:`RelationKind.choices`, such as an ``arith`` cage's ``op``);
* its meaning, :attr:`RelationKind.holds` -- a predicate on the labels of its
  cells. The checker (:mod:`futocp.verify`) evaluates it; the *support* of a
  binary kind (which label pairs are allowed) is derived from it, and every
  backend falls back to an encoding built from that support (a table in CP-SAT
  and MiniZinc, support clauses in CNF, a function constraint in
  python-constraint, arc consistency in listcolor and the list filtering);
* its *generic decomposition*, for an n-ary kind: the tuples of labels its
  cells may take, enumerated lazily from the predicate on the cells' current
  lists (:meth:`RelationKind.iter_tuples`, :meth:`RelationKind.allowed_tuples`:
  a table, with a size guard that refuses past :data:`MAX_TUPLES` rows or
  :data:`MAX_STEPS` steps of enumeration by :class:`TableTooLarge`, naming the
  relation), or the same as a layered decision diagram
  (:meth:`RelationKind.diagram`, :mod:`futocp.diagram`). Two optional hooks make
  them cheaper: :attr:`RelationKind.feasible` prunes the enumeration (can these
  labels of the first cells still be completed?) and
  :attr:`RelationKind.automaton` describes the kind as a state machine, whose
  diagram is small where the table is huge (a Towers clue). Every backend
  falls back to this decomposition for an n-ary kind it has no specialised
  encoding of: a table (CP-SAT's ``add_allowed_assignments``, MiniZinc's
  ``table``, a table constraint in python-constraint), a diagram (CNF, the
  list propagation of listcolor and of the Model), or the predicate itself
  (the seed searches check it when the relation's cells are all assigned);
* its structure: whether it is symmetric (cells are then stored sorted),
  acyclic (``less``: a cycle is an error), the kind that contradicts it on
  the same pair (``consecutive`` / ``nonconsecutive``), and, for n-ary kinds,
  whether its cells are pairwise distinct and may not overlap another
  relation of the kind (cages), and :attr:`RelationKind.check`, which refuses
  a relation of the wrong shape (a ``-`` cage of three cells);
* the key under which instance files list it (``less``, ``consecutive``,
  ``nonconsecutive``, ``ratio``, ``cages``, ``arith``, ``visible``).

A backend keeps its specialised encodings (CP-SAT's ``add_abs_equality``, a
linear sum for a cage) in its own module, keyed by kind name, and declares
``binary`` / ``nary`` when it takes every kind: adding a kind is one
:func:`register` call (``docs/extending.md`` shows a binary and an n-ary one).

Example:
    >>> RELATIONS["consecutive"].holds((3, 4), {})
    True
    >>> r = Relation("less", (5, 2))
    >>> r.a, r.b, str(r)
    (5, 2, 'less(5, 2)')
    >>> support_masks(RELATIONS["ratio"], (1, 2, 3, 4), {})[0]
    (2, 9, 0, 2)
    >>> arith = RELATIONS["arith"]
    >>> arith.allowed_tuples([(1, 2, 3)] * 2, {"op": "*", "target": 6})
    ((2, 3), (3, 2))
    >>> RELATIONS["visible"].diagram([(1, 2, 3)] * 3, {"count": 3}).count()
    1
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .diagram import Diagram, DiagramTooLarge
from .errors import BoardError, UnsupportedError

__all__ = [
    "RelationKind",
    "Relation",
    "Automaton",
    "RELATIONS",
    "MAX_TUPLES",
    "MAX_STEPS",
    "TableTooLarge",
    "register",
    "unregister",
    "get_kind",
    "binary_kinds",
    "nary_kinds",
    "implied_kinds",
    "support_masks",
    "cage_combinations",
    "ARITH_OPS",
    "visible_count",
]

MAX_TUPLES = 100_000
"""Most rows :meth:`RelationKind.allowed_tuples` materialises (and arcs a
diagram may have) before refusing with :class:`TableTooLarge`."""

MAX_STEPS = 2_000_000
"""Most partial tuples the enumeration of allowed tuples may try before refusing."""

Params = Mapping[str, Any]
Lists = Sequence[Sequence[Any]]


class TableTooLarge(UnsupportedError):
    """The allowed tuples of a relation exceed the size guard (the message names
    the relation and the size)."""


class Automaton(NamedTuple):
    """A kind's state machine over its cells, in order (see :attr:`RelationKind.automaton`).

    Attributes:
        start: The state before the first cell (hashable).
        step: ``step(state, label)`` -> the next state, or None when no allowed
            tuple continues that way (states must be hashable).
        accept: Whether a state after the last cell ends an allowed tuple.
    """

    start: Hashable
    step: Callable[[Any, Any], Any]
    accept: Callable[[Any], bool]


@dataclass(frozen=True)
class RelationKind:
    """One kind of relation (see the module docstring).

    Attributes:
        name: The kind's name (``less``, ``cage``, ...).
        holds: ``holds(labels, params) -> bool``, the meaning on the labels of the
            relation's cells (in the relation's cell order).
        arity: 2 for a binary kind; None for any number of cells (at least
            ``min_cells``; a Killer cage of one cell is a given, its label the sum).
        params: Names of the kind's parameters (integers, unless ``choices``
            lists the words one takes).
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
        min_cells: n-ary kinds: the fewest cells a relation names (2; 1 for a
            Keen cage of one cell).
        choices: ``(parameter, words)`` pairs: parameters that take one of these
            words rather than an integer (``("op", ("+", "-", "*", "/"))``).
        check: ``check(n_cells, params) -> message or None``: refuses a relation
            of the wrong shape (a ``-`` cage of three cells); None accepts all.
        feasible: ``feasible(prefix, params, rest) -> bool``: whether labels
            ``prefix`` of the first cells may still be completed from the lists
            ``rest`` of the others (False prunes the enumeration of the allowed
            tuples); None checks whole tuples only.
        automaton: ``automaton(params, n_cells) -> Automaton``: the kind as a state
            machine over its cells in order, from which :meth:`diagram` unrolls a
            compact diagram without listing the tuples; None builds the diagram
            from the table.
    """

    name: str
    holds: Callable[[Sequence[Any], Params], bool]
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
    min_cells: int = 2
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    check: Callable[[int, Params], str | None] | None = None
    feasible: Callable[[Sequence[Any], Params, Lists], bool] | None = None
    automaton: Callable[[Params, int], Automaton] | None = None

    @property
    def binary(self) -> bool:
        """True for a binary kind."""
        return self.arity == 2

    @property
    def choice_map(self) -> dict[str, tuple[str, ...]]:
        """The word parameters and their words."""
        return dict(self.choices)

    def param_problem(self, n_cells: int, params: Params) -> str | None:
        """What is wrong with a relation of this kind on ``n_cells`` cells with
        ``params`` (names, types, words, :attr:`check`), or None.

        Example:
            >>> RELATIONS["arith"].param_problem(3, {"op": "-", "target": 1})
            'a - cage has two cells, not 3'
        """
        if self.arity is not None and n_cells != self.arity:
            return f"a {self.name} relation names {self.arity} cells, got {n_cells}"
        if n_cells < self.min_cells:
            need = "one cell" if self.min_cells == 1 else f"at least {self.min_cells} cells"
            return f"a {self.name} relation needs {need}"
        if set(params) != set(self.params):
            need = ", ".join(self.params) or "no parameters"
            return f"a {self.name} relation takes {need}, got {', '.join(sorted(params)) or 'none'}"
        words = self.choice_map
        for key, value in params.items():
            if key in words:
                if not isinstance(value, str) or value not in words[key]:
                    return (f"{self.name} {key} must be one of {' '.join(words[key])}, "
                            f"got {value!r}")
            elif not isinstance(value, int) or isinstance(value, bool):
                return f"{self.name} {key} must be an integer, got {value!r}"
        return self.check(n_cells, params) if self.check is not None else None

    # ------------------------------------------------------- the generic decomposition
    def iter_tuples(self, lists: Lists, params: Params,
                    distinct: Collection[tuple[int, int]] = (),
                    steps: int | None = MAX_STEPS, what: str | None = None
                    ) -> Iterator[tuple[Any, ...]]:
        """The tuples of labels the relation allows, one label from each cell's list.

        Depth first over the cells in order, labels in list order (so the tuples
        come in lexicographic order of the lists), pruned by :attr:`feasible`.

        Args:
            lists: Per cell of the relation (in its order), the labels it may take.
            params: The relation's parameters.
            distinct: Pairs ``(i, j)``, ``i < j``, of positions that must take
                different labels (cells of a shared row or column); every pair
                when the kind is :attr:`distinct`.
            steps: Most partial tuples tried (None: no limit).
            what: The relation, for the messages (default: the kind's name).

        Raises:
            TableTooLarge: past ``steps``.
        """
        k = len(lists)
        lists = [tuple(x) for x in lists]
        if self.distinct:
            distinct = {(i, j) for i in range(k) for j in range(i + 1, k)}
        before: list[list[int]] = [[] for _ in range(k)]
        for i, j in distinct:
            if i > j:
                i, j = j, i
            if i != j:
                before[j].append(i)
        feasible = self.feasible
        holds = self.holds
        prefix: list[Any] = []
        tried = 0

        def walk(i: int) -> Iterator[tuple[Any, ...]]:
            nonlocal tried
            rest = lists[i + 1:]
            for label in lists[i]:
                tried += 1
                if steps is not None and tried > steps:
                    raise TableTooLarge(self._too_many_steps(lists, steps, what))
                if any(prefix[j] == label for j in before[i]):
                    continue
                prefix.append(label)
                try:
                    if i + 1 == k:
                        if _holds(holds, prefix, params):
                            yield tuple(prefix)
                    elif feasible is None or feasible(prefix, params, rest):
                        yield from walk(i + 1)
                finally:
                    prefix.pop()

        if k:
            yield from walk(0)

    def _too_many_steps(self, lists: Lists, steps: int, what: str | None) -> str:
        product = math.prod(len(x) for x in lists)
        return (f"enumerating the allowed tuples of {what or 'a ' + self.name + ' relation'} "
                f"takes more than {steps:,} steps (its cells' lists give {product:,} "
                "candidate tuples)")

    def allowed_tuples(self, lists: Lists, params: Params, limit: int | None = MAX_TUPLES,
                       distinct: Collection[tuple[int, int]] = (), what: str | None = None
                       ) -> tuple[tuple[Any, ...], ...]:
        """The table of the relation: :meth:`iter_tuples`, materialised.

        Args:
            lists: Per cell (in the relation's order), its labels.
            params: The relation's parameters.
            limit: Most rows (None: no limit).
            distinct: Pairs of positions that take different labels (see
                :meth:`iter_tuples`).
            what: The relation, for the messages.

        Raises:
            TableTooLarge: past ``limit`` rows or :data:`MAX_STEPS` steps.

        Example:
            >>> RELATIONS["visible"].allowed_tuples([(1, 2, 3)] * 3, {"count": 2},
            ...                                    distinct=[(0, 1), (0, 2), (1, 2)])
            ((1, 3, 2), (2, 1, 3), (2, 3, 1))
        """
        out = []
        for row in self.iter_tuples(lists, params, distinct, what=what):
            out.append(row)
            if limit is not None and len(out) > limit:
                name = what or f"a {self.name} relation"
                raise TableTooLarge(f"{name} has more than {limit:,} allowed tuples on its "
                                    f"cells' lists (of {math.prod(len(x) for x in lists):,} "
                                    "candidates); this encoding needs its table")
        return tuple(out)

    def diagram(self, lists: Lists, params: Params, limit: int | None = MAX_TUPLES,
                distinct: Collection[tuple[int, int]] = (), what: str | None = None) -> Diagram:
        """The relation as a layered decision diagram (:mod:`futocp.diagram`).

        Unrolled from :attr:`automaton` when the kind has one, else built from
        :meth:`allowed_tuples`. Either way without the tuples that repeat a label
        on a pair of ``distinct``; an automaton then also carries the labels
        already used on the positions of the largest set of them that are
        pairwise distinct (a Towers clue's row: the diagram is then exactly the
        permutations the clue allows, about 2,500 arcs for a clue of 3 on 9
        cells), and leaves the other pairs to the all-different groups; past
        ``limit`` that way, it leaves them all (a smaller, weaker diagram).

        Raises:
            TableTooLarge: past ``limit`` arcs or rows.
        """
        if self.automaton is None:
            return Diagram.from_tuples(self.allowed_tuples(lists, params, limit, distinct, what),
                                       len(lists))
        machine = self.automaton(params, len(lists))
        clique = _clique(distinct)
        if clique:
            step = machine.step

            def with_used(state: tuple[Any, frozenset[Any]], label: Any, i: int) -> Any:
                inner, used = state
                if i in clique:
                    if label in used:
                        return None
                    used = used | {label}
                nxt = step(inner, label)
                return None if nxt is None else (nxt, used)

            try:
                return _unroll(lists, (machine.start, frozenset()), with_used,
                               lambda state: machine.accept(state[0]), limit)
            except DiagramTooLarge:
                pass  # the labels used make too many states: without them
        try:
            return Diagram.from_automaton(lists, machine.start, machine.step, machine.accept,
                                          limit=limit)
        except DiagramTooLarge:
            name = what or f"a {self.name} relation"
            raise TableTooLarge(f"the diagram of {name} has more than {limit:,} arcs on "
                                "its cells' lists") from None


def _clique(pairs: Collection[tuple[int, int]]) -> frozenset[int]:
    """The largest set of positions that ``pairs`` make pairwise distinct, found
    greedily (every position of a row: all of them); empty for fewer than two."""
    near: dict[int, set[int]] = {}
    for i, j in pairs:
        near.setdefault(i, set()).add(j)
        near.setdefault(j, set()).add(i)
    best: set[int] = set()
    for start in sorted(near, key=lambda x: -len(near[x])):
        group = {start}
        for x in sorted(near[start], key=lambda y: -len(near[y])):
            if all(x in near[g] for g in group):
                group.add(x)
        if len(group) > len(best):
            best = group
    return frozenset(best) if len(best) > 1 else frozenset()


def _unroll(lists: Lists, start: Any, step: Callable[[Any, Any, int], Any],
            accept: Callable[[Any], bool], limit: int | None) -> Diagram:
    """:meth:`Diagram.from_automaton` with a step that also gets the position (the
    states carry it)."""
    def positional(state: tuple[int, Any], label: Any) -> Any:
        i, inner = state
        nxt = step(inner, label, i)
        return None if nxt is None else (i + 1, nxt)

    return Diagram.from_automaton(lists, (0, start), positional, lambda s: accept(s[1]),
                                  limit=limit)


def _holds(holds: Callable[[Sequence[Any], Params], bool], labels: Sequence[Any],
           params: Params) -> bool:
    try:
        return bool(holds(tuple(labels), params))
    except (TypeError, ZeroDivisionError):  # labels of the wrong type never satisfy it
        return False


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
    params: tuple[tuple[str, Any], ...] = field(default=())

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
    def param_map(self) -> dict[str, Any]:
        """The parameters as a dict."""
        return dict(self.params)

    @property
    def spec(self) -> RelationKind:
        """The kind's record."""
        return get_kind(self.kind)

    def holds(self, labels: Sequence[Any]) -> bool:
        """Whether the labels of the cells (in cell order) satisfy the relation."""
        return _holds(self.spec.holds, labels, self.param_map)

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
    if kind.binary and (kind.distinct or kind.exclusive or kind.automaton or kind.min_cells != 2):
        raise ValueError("distinct, exclusive, automaton and min_cells apply to n-ary kinds")
    if kind.min_cells < 1:
        raise ValueError("min_cells is at least 1")
    if not set(kind.choice_map) <= set(kind.params):
        raise ValueError("choices name parameters of the kind")
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
    """The names of the n-ary kinds, in registration order."""
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
def _sum_feasible(prefix: Sequence[int], p: Mapping[str, Any], rest: Lists) -> bool:
    """A sum can still reach its total: between the smallest and the largest completion."""
    total = p["sum"] if "sum" in p else p["target"]
    done = sum(prefix)
    return bool(done + sum(min(x) for x in rest) <= total
                <= done + sum(max(x) for x in rest))


register(RelationKind("cage", _cage, arity=None, params=("sum",), key="cages", distinct=True,
                      exclusive=True, feasible=_sum_feasible, min_cells=1,
                      description="pairwise different labels with the given sum (Killer "
                                  "Sudoku's cage)"))


def _nodot(v: Sequence[int], p: Mapping[str, int]) -> bool:
    return abs(v[0] - v[1]) != 1 and v[0] != 2 * v[1] and v[1] != 2 * v[0]


register(RelationKind("nodot", _nodot, implied=True,
                      description="the labels are neither consecutive nor one twice the other "
                                  "(a pair without a dot in a complete Kropki)"))


# ------------------------------------------------------------ Keen's arithmetic cage
ARITH_OPS = ("+", "-", "*", "/")
"""The operations of an ``arith`` cage: sum, difference, product, quotient."""


def _arith(v: Sequence[int], p: Mapping[str, Any]) -> bool:
    op, target = p["op"], p["target"]
    if op == "+":
        return bool(sum(v) == target)
    if op == "*":
        return bool(math.prod(v) == target)
    if len(v) != 2:
        return False
    lo, hi = sorted(v)
    if op == "-":
        return bool(hi - lo == target)
    return bool(lo * target == hi)  # "/": the larger is the smaller times the target


def _arith_check(n_cells: int, p: Mapping[str, Any]) -> str | None:
    if p.get("op") in ("-", "/") and n_cells != 2:
        return f"a {p['op']} cage has two cells, not {n_cells}"
    return None


def _arith_feasible(prefix: Sequence[int], p: Mapping[str, Any], rest: Lists) -> bool:
    op = p["op"]
    if op == "+":
        return _sum_feasible(prefix, p, rest)
    if op == "*" and all(x > 0 for x in prefix) and all(y > 0 for x in rest for y in x):
        done = math.prod(prefix)  # positive labels: the product divides the target, bounded
        target = p["target"]
        return bool(target % done == 0
                    and done * math.prod(min(x) for x in rest) <= target
                    <= done * math.prod(max(x) for x in rest))
    return True


register(RelationKind(
    "arith", _arith, arity=None, params=("op", "target"), min_cells=1, exclusive=True,
    choices=(("op", ARITH_OPS),), check=_arith_check, feasible=_arith_feasible,
    description="the labels combine to the target with the operation: + sum, * product, "
                "- difference and / quotient of two cells (Keen's cage)"))


# ------------------------------------------------------------ Towers' visibility clue
def visible_count(labels: Sequence[int]) -> int:
    """How many labels are seen from the front of the line: each one larger than
    every label before it (a taller tower hides the shorter ones behind it).

    Example:
        >>> visible_count([2, 1, 4, 3, 5])
        3
    """
    seen, top = 0, None
    for x in labels:
        if top is None or x > top:
            seen, top = seen + 1, x
    return seen


def _visible(v: Sequence[int], p: Mapping[str, Any]) -> bool:
    return bool(visible_count(v) == p["count"])


def _visible_check(n_cells: int, p: Mapping[str, Any]) -> str | None:
    count = p.get("count")
    if isinstance(count, int) and not 1 <= count <= n_cells:
        return f"a visible count on a line of {n_cells} cells is 1..{n_cells}, not {count}"
    return None


def _visible_feasible(prefix: Sequence[int], p: Mapping[str, Any], rest: Lists) -> bool:
    seen = visible_count(prefix)
    top = max(prefix)
    higher = sum(1 for x in rest if max(x) > top)  # each later cell adds one at most
    return bool(seen <= p["count"] <= seen + higher)


def _visible_automaton(p: Mapping[str, Any], n_cells: int) -> Automaton:
    """States ``(tallest so far, seen so far)``; more seen than the count is dead."""
    count = p["count"]

    def step(state: tuple[int | None, int], label: int) -> tuple[int | None, int] | None:
        top, seen = state
        if top is None or label > top:
            top, seen = label, seen + 1
            if seen > count:
                return None
        return top, seen

    return Automaton((None, 0), step, lambda state: state[1] == count)


register(RelationKind(
    "visible", _visible, arity=None, params=("count",), symmetric=False,
    check=_visible_check, feasible=_visible_feasible, automaton=_visible_automaton,
    description="seen from the first cell along the line, count labels are larger than "
                "every label before them (a Towers clue: taller towers hide shorter ones)"))
