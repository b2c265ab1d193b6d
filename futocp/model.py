"""Board -> Model: the CSP every backend compiles.

The Model has one variable per cell, whose *list* (domain) is a set of value
indices into :attr:`Model.values` (the board's distinct labels, sorted, so that
index order is label order), and four kinds of constraints:

* :class:`AllDifferent` -- an asterism whose multiset has no repeated label
  (its cells then take every label exactly once);
* :class:`Count` -- an asterism with repeated labels: label i occurs exactly
  ``counts[i]`` times;
* :class:`Less` -- value(a) < value(b);
* :class:`Fixed` -- a clue.

``build_model(board, filtering="lists")`` applies the list-colouring reduction of
seed 000 (:func:`futocp.propagate.filter_lists`); ``filtering="none"`` keeps
full lists (clue cells still have their single label). Clue conflicts (two
equal clues in an all-different asterism, more clues of a label than its
multiplicity, two clues against an inequality) are detected in both modes and
recorded in :attr:`Model.conflict`: such a model is unsatisfiable and every
backend answers ``unsat`` with that reason.

Example:
    >>> from futocp.families import latin_square
    >>> m = build_model(latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]]))
    >>> m.domain(0), m.domain(1), m.domain(4)
    ([0], [1, 2], [0, 1, 2])
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

from .board import Board, Label
from .errors import UsageError
from .propagate import bits, filter_lists

__all__ = [
    "AllDifferent",
    "Count",
    "Less",
    "Fixed",
    "Constraint",
    "Model",
    "build_model",
    "FILTERINGS",
]

FILTERINGS = ("lists", "none")


@dataclass(frozen=True)
class AllDifferent:
    """The cells take pairwise different values (a permutation of all values)."""

    cells: tuple[int, ...]


@dataclass(frozen=True)
class Count:
    """Value index i occurs exactly ``counts[i]`` times among ``cells``."""

    cells: tuple[int, ...]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class Less:
    """value(a) < value(b)."""

    a: int
    b: int


@dataclass(frozen=True)
class Fixed:
    """A clue: the cell takes value index ``value``."""

    cell: int
    value: int


Constraint = Union[AllDifferent, Count, Less, Fixed]


@dataclass(frozen=True, eq=False)
class Model:
    """A CSP over value indices, built from a Board.

    Attributes:
        board: The board the model was built from.
        values: Distinct labels, sorted; variable values are indices into it.
        domains: Per cell, a bit set of the value indices still allowed.
        constraints: AllDifferent, Count, Less and Fixed constraints.
        filtering: ``"lists"`` or ``"none"``.
        conflict: Why the model is known to be unsatisfiable, or None.
        stats: ``build_s`` (seconds) and ``removed_values`` (by filtering).
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

    def domain(self, cell: int) -> list[int]:
        """The value indices still allowed for ``cell``, ascending."""
        return bits(self.domains[cell])

    @cached_property
    def all_different(self) -> tuple[AllDifferent, ...]:
        """The AllDifferent constraints."""
        return tuple(c for c in self.constraints if isinstance(c, AllDifferent))

    @cached_property
    def counts(self) -> tuple[Count, ...]:
        """The Count constraints."""
        return tuple(c for c in self.constraints if isinstance(c, Count))

    @cached_property
    def less(self) -> tuple[Less, ...]:
        """The Less constraints."""
        return tuple(c for c in self.constraints if isinstance(c, Less))

    @cached_property
    def fixed(self) -> tuple[Fixed, ...]:
        """The Fixed constraints (clues)."""
        return tuple(c for c in self.constraints if isinstance(c, Fixed))

    @cached_property
    def features(self) -> frozenset[str]:
        """What the model needs of a backend: ``multiset``, ``less``, ``strings``."""
        out = set()
        if self.counts:
            out.add("multiset")
        if self.less:
            out.add("less")
        if any(isinstance(v, str) for v in self.values):
            out.add("strings")
        return frozenset(out)

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, the other cells that share an AllDifferent with it."""
        out: list[set[int]] = [set() for _ in range(self.n_cells)]
        for con in self.all_different:
            for c in con.cells:
                out[c].update(con.cells)
        return tuple(tuple(sorted(s - {i})) for i, s in enumerate(out))

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


def _clue_conflict(board: Board) -> str | None:
    clues = board.clue_map
    mult = board.multiplicity
    name = board.cell_name
    for i, ast in enumerate(board.asterisms):
        held = Counter(clues[c] for c in ast if c in clues)
        for label, k in held.items():
            if k > mult[label]:
                cells = [name(c) for c in ast if clues.get(c) == label]
                return (f"asterism {i} holds {label!r} {k} times (allowed {mult[label]}): "
                        f"cells {', '.join(cells)}")
    for a, b in board.less:
        if a in clues and b in clues and not clues[a] < clues[b]:
            return (f"clues break the inequality {name(a)} < {name(b)}: "
                    f"{clues[a]!r} is not less than {clues[b]!r}")
    return None


def build_model(board: Board, filtering: str = "lists") -> Model:
    """Turn a Board into a Model.

    Args:
        board: The puzzle.
        filtering: ``"lists"`` (list-colouring reduction to a fixpoint) or ``"none"``.

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

    constraints: list[Constraint] = []
    groups: list[tuple[tuple[int, ...], tuple[int, ...] | None]] = []
    for ast in board.asterisms:
        if repeated:
            constraints.append(Count(ast, counts))
            groups.append((ast, counts))
        else:
            constraints.append(AllDifferent(ast))
            groups.append((ast, None))
    for a, b in board.less:
        constraints.append(Less(a, b))
    full = (1 << n_values) - 1
    domains = [full] * board.n_cells
    for c, v in board.clues:
        constraints.append(Fixed(c, index[v]))
        domains[c] = 1 << index[v]

    conflict = _clue_conflict(board)
    removed = 0
    if filtering == "lists" and conflict is None:
        domains, removed, empty = filter_lists(
            board.n_cells, domains, groups, [(a, b) for a, b in board.less])
        if empty is not None:
            conflict = f"the list of cell {board.cell_name(empty)} is empty after filtering"
    stats = {"build_s": time.perf_counter() - t0, "removed_values": removed}
    return Model(board, values, tuple(domains), tuple(constraints), filtering, conflict, stats)
