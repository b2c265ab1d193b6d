"""Constructors for the board families.

Each returns a :class:`~futocp.board.Board`. Grid givens are lists of rows in
which ``0`` or ``None`` marks an empty cell.

Example:
    >>> b = futoshiki(3, [[0, 0, 0], [0, 2, 0], [0, 0, 0]], less=[((0, 0), (0, 1))])
    >>> b.kind, b.k, b.clue_map, b.less
    ('futoshiki', 3, {4: 2}, ((0, 1),))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .board import Board, Label
from .errors import BoardError

__all__ = ["latin_square", "futoshiki", "grid_lines", "grid_clues", "MAX_GRID"]

MAX_GRID = 1000  # largest grid side accepted (a million cells)

Coord = Sequence[int]


def grid_lines(rows: int, cols: int) -> list[tuple[int, ...]]:
    """The rows and then the columns of a rows x cols grid, as cell tuples."""
    out = [tuple(r * cols + c for c in range(cols)) for r in range(rows)]
    out += [tuple(r * cols + c for r in range(rows)) for c in range(cols)]
    return out


def grid_clues(n: int, givens: Sequence[Sequence[Any]] | None) -> list[tuple[int, Label]]:
    """Clues from an n x n list of rows (0 / None / "" = empty)."""
    if givens is None:
        return []
    if len(givens) != n:
        raise BoardError(f"givens have {len(givens)} rows, expected {n}")
    out = []
    for r, row in enumerate(givens):
        if len(row) != n:
            raise BoardError(f"givens row {r} has {len(row)} cells, expected {n}")
        for c, v in enumerate(row):
            if v not in (0, None, "", "."):
                out.append((r * n + c, v))
    return out


def _check_size(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise BoardError(f"size must be a positive integer, got {n!r}")
    if n > MAX_GRID:
        raise BoardError(f"size {n} is larger than futocp holds ({MAX_GRID})")


def _grid_less(n: int, less: Iterable[tuple[Coord, Coord]], neighbours_only: bool) -> list[tuple[int, int]]:
    out = []
    for pair in less:
        (r1, c1), (r2, c2) = pair
        for r, c in ((r1, c1), (r2, c2)):
            if not (0 <= r < n and 0 <= c < n):
                raise BoardError(f"inequality cell ({r},{c}) is outside the {n}x{n} grid")
        if neighbours_only and abs(r1 - r2) + abs(c1 - c2) != 1:
            raise BoardError(f"inequality between ({r1},{c1}) and ({r2},{c2}), which are not neighbours")
        out.append((r1 * n + c1, r2 * n + c2))
    return out


def latin_square(n: int, givens: Sequence[Sequence[Any]] | None = None,
                 less: Iterable[tuple[Coord, Coord]] = ()) -> Board:
    """An n x n Latin square to complete, labels 1..n (inequalities between any cells)."""
    _check_size(n)
    return Board(n * n, tuple(grid_lines(n, n)), tuple(range(1, n + 1)),
                 clues=tuple(grid_clues(n, givens)), less=tuple(_grid_less(n, less, False)),
                 shape=(n, n), kind="latin-square")


def futoshiki(n: int, givens: Sequence[Sequence[Any]] | None = None,
              less: Iterable[tuple[Coord, Coord]] = ()) -> Board:
    """An n x n Futoshiki: a Latin square with inequalities between orthogonal neighbours."""
    _check_size(n)
    return Board(n * n, tuple(grid_lines(n, n)), tuple(range(1, n + 1)),
                 clues=tuple(grid_clues(n, givens)), less=tuple(_grid_less(n, less, True)),
                 shape=(n, n), kind="futoshiki")
