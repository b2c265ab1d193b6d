"""Simon Tatham's *Towers* game ids (his Skyscrapers): ``towers`` boards of ``visible`` clues.

A game id is ``<parameters>:<clues>[,<givens>]``. The parameters are the side
``w`` alone (``5:``, as his generator prints ids) or ``w`` then ``d`` and a
difficulty letter (``e h x u``: easy, hard, extreme, unreasonable; ``5dx:``),
kept as the board's ``grade`` parameter and written back. The clues are 4w
fields separated by ``/``, each a number 1..w or empty (no clue): first the w
clues above the columns (seen looking down), then the w below them (looking
up), then the w left of the rows (looking right), then the w right of them
(looking left). A clue is a ``visible`` relation whose cells are its line, from
the clue inwards. The givens, when there are any, follow a comma as a
run-length grid (:mod:`futocp.formats.tatham_ids`).

A file holds one id per line (``#`` comments and blank lines allowed) and
reads as a collection; solutions print as Tatham's solve move (``S`` and one
digit per cell). The writer gives back exactly the id that was read.

Example:
    >>> b = TOWERS.loads("4:/3//2/2////2///////3,j1e", "x")[0]
    >>> b.kind, b.clue_map, [str(r) for r in b.relations[:2]]
    ('towers', {10: 1}, ['visible(0, 1, 2, 3, count=2)', 'visible(1, 5, 9, 13, count=3)'])
    >>> TOWERS.dumps(b)
    '4:/3//2/2////2///////3,j1e\\n'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import UsageError
from ..families import grid_line_of
from .latin_grid import square_size
from .tatham import solve_string
from .tatham_ids import build_board, id_format, read_grid, side_and_grade, split_id, write_grid

__all__ = ["TOWERS", "parse_towers", "format_towers", "GRADES", "clue_line"]

GRADES = ("e", "h", "x", "u")
"""Towers' difficulty letters: easy, hard, extreme, unreasonable."""

_PARAMS = re.compile(r"([0-9]+)(?:d(.?))?")
_SNIFF = re.compile(r"\s*[0-9]+(?:d[a-z])?:[0-9]*(?:/[0-9]*){3}")


def clue_line(index: int, w: int) -> list[int]:
    """The cells of clue ``index`` (0..4w-1) of a w x w grid, from the clue inwards:
    above the columns, below them, left of the rows, right of them.

    Example:
        >>> clue_line(0, 3), clue_line(4, 3), clue_line(7, 3), clue_line(11, 3)
        ([0, 3, 6], [7, 4, 1], [3, 4, 5], [8, 7, 6])
    """
    side, k = divmod(index, w)
    if side == 0:
        return [r * w + k for r in range(w)]
    if side == 1:
        return [r * w + k for r in range(w - 1, -1, -1)]
    if side == 2:
        return [k * w + c for c in range(w)]
    return [k * w + c for c in range(w - 1, -1, -1)]


def parse_towers(game_id: str, source: str = "<string>", line: int = 1,
                 offset: int = 0) -> Board:
    """Read one Towers game id into a ``towers`` Board.

    The arguments are those of a :data:`~futocp.formats.tatham_ids.IdParser`.

    Raises:
        InputError: naming the line and column of the problem.
    """
    params, cur = split_id(game_id, source, line, offset, "Towers", _PARAMS, "<w>[d<difficulty>]")
    w, grade = side_and_grade(params, cur, "Towers", GRADES)
    relations: list[tuple[str, Any, dict[str, Any]]] = []
    where: list[int] = []
    for i in range(4 * w):
        if i:
            cur.expect("/", f"'/' before clue {i + 1} of {4 * w}")
        if cur.peek().isdigit():
            at = cur.pos
            count = cur.number("a clue", 1, w)
            relations.append(("visible", [divmod(c, w) for c in clue_line(i, w)],
                              {"count": count}))
            where.append(at)
    if cur.peek() == "/":
        raise cur.fail(f"too many clues: a {w}x{w} grid has {4 * w}")
    givens = None
    if cur.peek() == ",":
        cur.pos += 1
        cells = read_grid(cur, w * w, w)
        givens = [cells[r * w:(r + 1) * w] for r in range(w)]
    cur.end("',' and the givens, or the end of the id")
    extra: dict[str, Any] = {"grade": grade} if grade else {}
    return build_board(cur, "towers", givens, relations, where, n=w, **extra)


def format_towers(board: Board) -> str:
    """The game id of a ``towers`` board: its parameters (with ``d<grade>`` when the
    board has one), its clues and its givens.

    Raises:
        UsageError: for a board the format cannot hold (relations of another kind,
            a clue that is not a whole row or column read from one end, two clues
            on one side of a line).
    """
    n = square_size(board, "towers", kinds=("towers",))
    clues = [0] * (4 * n)
    for rel in board.relations:
        if rel.kind != "visible":
            raise UsageError(f"the towers format holds visible clues only; this board has "
                             f"{rel.kind} relations (use json or yaml)")
        found = grid_line_of(rel.cells, n, n)
        if found is None:
            raise UsageError("the towers format writes clues on whole rows and columns read "
                             f"from one end; {rel} is not one (use json or yaml)")
        what, k, backwards = found
        index = (0 if what == "col" else 2 * n) + (n if backwards else 0) + k
        if clues[index]:
            raise UsageError(f"the towers format holds one clue per side of a line; {rel} is "
                             "the second (use json or yaml)")
        clues[index] = rel.param_map["count"]
    text = "/".join(str(c) if c else "" for c in clues)
    if board.clues:
        given = board.clue_map
        text += "," + write_grid([int(given.get(c, 0)) for c in range(n * n)])
    grade = board.param_map.get("grade")
    return f"{n}{'d' + grade if grade else ''}:{text}"


def _solution(board: Board, values: Sequence[Any]) -> str:
    return solve_string(board, values, ("towers",), "towers")


TOWERS = id_format("towers", (".towers",), parse_towers, format_towers, _SNIFF, _solution)
