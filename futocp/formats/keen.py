"""Simon Tatham's *Keen* game ids (his KenKen): ``keen`` boards of ``arith`` cages.

A game id is ``<parameters>:<blocks>,<clues>``. The parameters are the side
``w`` alone (``6:``, as his generator prints ids) or his full parameters: ``w``,
then ``d`` and a difficulty letter (``e n h x u``: easy, normal, hard, extreme,
unreasonable), then ``m`` for his multiplication-only mode (``6dh:``,
``6dhm:``); the letter is kept as the board's ``grade`` parameter and ``m`` as
its ``multiplication`` parameter, and both are written back. The description
is the block structure of the cages (:mod:`futocp.formats.tatham_ids`, with
Keen's repeat counts), a comma, and one clue per cage, in reading order of the
cages' first cells: a letter for the operation -- ``a`` sum (``+``), ``m``
product (``*``), ``s`` difference (``-``) and ``d`` quotient (``/``), the last
two on cages of two cells only -- and the target. A cage of one cell is an
``arith`` relation of one cell. Keen has no givens.

A file holds one id per line (``#`` comments and blank lines allowed) and
reads as a collection; solutions print as Tatham's solve move (``S`` and one
digit per cell). The writer gives back exactly the id that was read.

Example:
    >>> b = KEEN.loads("3dn:a_a3_a_,s1m6m3a3", "x")[0]
    >>> b.kind, b.param_map, len(b.relations_of("arith"))
    ('keen', {'grade': 'n', 'n': 3}, 4)
    >>> [str(r) for r in b.relations[:2]]
    ['arith(0, 1, op=-, target=1)', 'arith(2, 4, 5, op=*, target=6)']
    >>> KEEN.dumps(b)
    '3dn:a_a3_a_,s1m6m3a3\\n'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import UsageError
from .latin_grid import square_size
from .tatham import solve_string
from .tatham_ids import (
    block_cells,
    build_board,
    id_format,
    partition_blocks,
    read_blocks,
    side_and_grade,
    split_id,
    write_blocks,
)

__all__ = ["KEEN", "parse_keen", "format_keen", "OPS", "GRADES"]

OPS = {"a": "+", "m": "*", "s": "-", "d": "/"}
"""Keen's clue letters and the ``arith`` operations they stand for."""

GRADES = ("e", "n", "h", "x", "u")
"""Keen's difficulty letters: easy, normal, hard, extreme, unreasonable."""

_LETTER = {op: letter for letter, op in OPS.items()}
_PARAMS = re.compile(r"([0-9]+)(?:d(.?))?(m?)")
_SNIFF = re.compile(r"\s*[0-9]+(?:d[a-z])?m?:[_a-z0-9]*,[asmd][0-9]")


def parse_keen(game_id: str, source: str = "<string>", line: int = 1, offset: int = 0) -> Board:
    """Read one Keen game id into a ``keen`` Board.

    The arguments are those of a :data:`~futocp.formats.tatham_ids.IdParser`.

    Raises:
        InputError: naming the line and column of the problem.
    """
    params, cur = split_id(game_id, source, line, offset, "Keen", _PARAMS,
                           "<w>[d<difficulty>][m]")
    w, grade = side_and_grade(params, cur, "Keen", GRADES)
    blocks = read_blocks(cur, w, counts=True)
    cur.expect(",", "',' after the block structure")
    relations: list[tuple[str, Any, dict[str, Any]]] = []
    where: list[int] = []
    for cells in block_cells(blocks):
        if cur.done:
            raise cur.fail(f"too few clues: {len(relations)} for {max(blocks) + 1} cages")
        letter, at = cur.peek(), cur.pos
        if letter not in OPS:
            raise cur.fail(f"unexpected {cur.found()}: expected a clue (a, m, s or d and a number)")
        cur.pos += 1
        if letter in "sd" and len(cells) != 2:
            raise cur.fail(f"a {letter} clue is for a cage of two cells; this one has "
                           f"{len(cells)}", at)
        target = cur.number("the clue's number")
        relations.append(("arith", [divmod(c, w) for c in cells],
                          {"op": OPS[letter], "target": target}))
        where.append(at)
    cur.end("the end of the clues (too many clues for the cages)")
    extra: dict[str, Any] = {}
    if grade:
        extra["grade"] = grade
    if params.group(3):
        extra["multiplication"] = True
    return build_board(cur, "keen", None, relations, where, n=w, **extra)


def format_keen(board: Board) -> str:
    """The game id of a ``keen`` board: its parameters (with ``d<grade>`` and ``m``
    when the board has them), its block structure and its clues.

    Raises:
        UsageError: for a board the format cannot hold (givens, relations of
            another kind, cells in no cage or in two, a cage not in one piece).
    """
    n = square_size(board, "keen", kinds=("keen",), less="neighbours")
    if board.clues:
        raise UsageError("the keen format holds no givens; this board has "
                         f"{len(board.clues)} (use json or yaml)")
    cages = board.relations_of("arith")
    if len(cages) != len(board.relations):
        other = next(r.kind for r in board.relations if r.kind != "arith")
        raise UsageError(f"the keen format holds arith cages only; this board has {other} "
                         "relations (use json or yaml)")
    blocks = partition_blocks(board, [r.cells for r in cages], n, "keen", "cage")
    order = sorted(range(len(cages)), key=lambda k: min(cages[k].cells))
    clues = "".join(f"{_LETTER[cages[k].param_map['op']]}{cages[k].param_map['target']}"
                    for k in order)
    for k in order:
        target = cages[k].param_map["target"]
        if target < 0:
            raise UsageError(f"the keen format writes non-negative targets, not {target}")
    params = board.param_map
    head = f"{n}" + (f"d{params['grade']}" if params.get("grade") else "")
    head += "m" if params.get("multiplication") else ""
    return f"{head}:{write_blocks(blocks, n, counts=True)},{clues}"


def _solution(board: Board, values: Sequence[Any]) -> str:
    return solve_string(board, values, ("keen",), "keen")


KEEN = id_format("keen", (".keen",), parse_keen, format_keen, _SNIFF, _solution)
