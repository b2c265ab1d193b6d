"""The independent checker: does an assignment solve a board?

Written against the Board alone -- it imports nothing but :mod:`futocp.board`
and the meanings of the relation kinds (:mod:`futocp.relations`), shares no
code with the Model or any backend, and is the one oracle the CLI's
``--check``, the cross-check and the tests rely on.

Example:
    >>> from futocp.board import Board
    >>> b = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), less=((0, 1),), shape=(2, 2))
    >>> verify(b, [1, 2, 2, 1])
    []
    >>> [v.kind for v in verify(b, [2, 1, 1, 2])]
    ['less']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .board import Board

__all__ = ["Violation", "verify", "is_solution"]


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    Attributes:
        kind: ``shape``, ``label``, ``clue``, ``asterism`` or a relation kind (``less``, ...).
        cells: The cells involved.
        message: A readable explanation.
    """

    kind: str
    cells: tuple[int, ...]
    message: str

    def __str__(self) -> str:
        return self.message


def _flatten(board: Board, values: Sequence[Any]) -> list[Any]:
    if board.shape is not None and len(values) == board.shape[0] and board.shape[0] != board.n_cells \
            and all(isinstance(r, (list, tuple)) for r in values):
        return [v for row in values for v in row]
    return list(values)


def verify(board: Board, values: Sequence[Any]) -> list[Violation]:
    """Check a full assignment against every rule of the board.

    Args:
        board: The puzzle.
        values: One label per cell in cell order, or (for a grid) a list of rows.

    Returns:
        The violations; empty when ``values`` is a solution.
    """
    vals = _flatten(board, values)
    name = board.cell_name
    if len(vals) != board.n_cells:
        return [Violation("shape", (), f"{len(vals)} values for {board.n_cells} cells")]
    out: list[Violation] = []
    allowed = set(board.labels)
    for c, v in enumerate(vals):
        if isinstance(v, bool) or v not in allowed:
            out.append(Violation("label", (c,), f"cell {name(c)} holds {v!r}, not a label"))
    for c, v in board.clues:
        if vals[c] != v:
            out.append(Violation("clue", (c,), f"cell {name(c)} holds {vals[c]!r}, clue is {v!r}"))
    want = Counter(board.labels)
    want_sorted = _sorted_or_none(board.labels) if not out else None
    for i, ast in enumerate(board.asterisms):
        if want_sorted is not None and sorted([vals[c] for c in ast]) == want_sorted:
            continue  # the quick test of the same rule (every value is a label here)
        got = Counter(vals[c] for c in ast)
        if got != want:
            extra = sorted(map(repr, (got - want).elements()))
            missing = sorted(map(repr, (want - got).elements()))
            out.append(Violation("asterism", tuple(ast),
                                 f"{board.asterism_names[i]} has extra {', '.join(extra) or '-'} "
                                 f"and misses {', '.join(missing) or '-'}"))
    for rel in board.relations:
        labels = [vals[c] for c in rel.cells]
        if not rel.holds(labels):
            shown = ", ".join(f"{name(c)}={vals[c]!r}" for c in rel.cells)
            params = "".join(f" {k}={v}" for k, v in rel.params)
            out.append(Violation(rel.kind, rel.cells, f"{rel.kind}{params} fails: {shown}"))
    return out


def _sorted_or_none(labels: Sequence[Any]) -> list[Any] | None:
    """The labels sorted, or None when they do not sort (mixed types)."""
    try:
        return sorted(labels)
    except TypeError:
        return None


def is_solution(board: Board, values: Sequence[Any]) -> bool:
    """True when :func:`verify` finds nothing."""
    return not verify(board, values)
