"""Helpers shared by the grid formats (text art, Tatham, QWH).

These formats hold one kind of board only: an n x n grid whose asterisms are
its rows and columns and whose labels are 1..n (a Futoshiki, an adjacent
Futoshiki or a Latin square).
:func:`square_size` checks that a board is one before a writer prints it, and
:func:`build_square` builds one from parsed data, turning a
:class:`~futocp.errors.BoardError` into an :class:`~futocp.errors.InputError`
that names the file.

Example:
    >>> from futocp.families import futoshiki
    >>> square_size(futoshiki(3), "text")
    3
    >>> neighbours(3, 0, 1), neighbours(3, 0, 4)
    (True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..board import Board
from ..errors import BoardError, InputError, UsageError
from ..families import explicit_relations, family, grid_lines
from ..relations import Relation
from .limits import clip

__all__ = ["square_size", "build_square", "neighbours", "SQUARE_KINDS"]

SQUARE_KINDS = ("futoshiki", "latin-square", "futoshiki-adjacent")


def neighbours(n: int, a: int, b: int) -> bool:
    """True when cells a and b of an n x n grid are orthogonal neighbours."""
    (r1, c1), (r2, c2) = divmod(a, n), divmod(b, n)
    return abs(r1 - r2) + abs(c1 - c2) == 1


def square_size(board: Board, fmt: str, kinds: Sequence[str] = SQUARE_KINDS,
                less: str = "neighbours") -> int:
    """The side n of a Futoshiki / Latin-square board that ``fmt`` can hold.

    Args:
        board: The board to write.
        fmt: The format's name, for the messages.
        kinds: The board kinds the format holds.
        less: ``"neighbours"`` (inequalities between orthogonal neighbours only)
            or ``"none"`` (no inequalities at all).

    Raises:
        UsageError: when the format cannot hold the board.
    """
    if board.kind not in kinds:
        raise UsageError(f"the {fmt} format holds {' and '.join(kinds)} boards, not {board.kind!r}")
    n = board.shape[0] if board.shape else 0
    square = (board.shape == (n, n) and board.labels == tuple(range(1, n + 1))
              and sorted(board.asterisms) == sorted(grid_lines(n, n)) and not board.inscription)
    if not square:
        raise UsageError(f"the {fmt} format holds n x n grids with labels 1..n, rows and columns "
                         "as asterisms and no inscription; this board is not one")
    if less == "none" and board.less:
        raise UsageError(f"the {fmt} format holds no inequalities; this board has {len(board.less)}")
    if less == "none" and explicit_relations(board):
        kind = explicit_relations(board)[0].kind
        raise UsageError(f"the {fmt} format holds no relations; this board has {kind} relations "
                         "(use json or yaml)")
    for a, b in board.less:
        if not neighbours(n, a, b):
            raise UsageError(f"the {fmt} format shows inequalities between orthogonal neighbours "
                             f"only, not between {board.cell_name(a)} and {board.cell_name(b)}")
    return n


def build_square(kind: str, n: int, givens: Sequence[Sequence[int]],
                 less: Iterable[tuple[int, int]], source: str,
                 line: int | None = None, column: int | None = None,
                 relations: Iterable[tuple[str, tuple[int, ...]]] = (),
                 params: Mapping[str, Any] | None = None,
                 where: Mapping[frozenset[int], tuple[int, int]] | None = None) -> Board:
    """A square board of ``kind`` from parsed rows and relations between cell numbers.

    Args:
        kind: ``futoshiki``, ``latin-square`` or ``futoshiki-adjacent``.
        n: The side.
        givens: Rows of labels, 0 for empty.
        less: ``(a, b)`` cell pairs, label(a) < label(b).
        source: File name for the messages.
        line: Line for the messages.
        column: Column for the messages.
        relations: ``(kind, cells)`` items of other kinds, with cell numbers.
        params: Other family parameters (``grade``).
        where: ``{cells of a relation: (line, column)}``: where each relation was
            written, so that an error about one (a cycle of inequalities) points at it.

    The relations are sorted, so that every reader gives the same Board for
    the same puzzle.

    Raises:
        InputError: for a board the core rejects (a cycle of inequalities...).
    """
    pairs = [(divmod(a, n), divmod(b, n)) for a, b in sorted(set(less))]
    items = [(k, tuple(divmod(c, n) for c in cells)) for k, cells in sorted(set(relations))]
    try:
        return family(kind, givens, pairs, None, items, n=n, **dict(params or {}))
    except BoardError as exc:
        rel = getattr(exc, "relation", None)
        at = (where or {}).get(frozenset(rel.cells)) if isinstance(rel, Relation) else None
        if at is not None:
            line, column = at
        raise InputError(clip(str(exc)), source, line, column) from None
