"""Simon Tatham's *Unequal* game descriptions (his Futoshiki).

A game id is ``<n>:<desc>``, optionally with the full parameters before the
colon (``5dk:`` -- order 5, difficulty *tricky*; the difficulty letter is one
of ``t e k x r``). The description lists the n*n cells row by row, each a
number (``0`` = empty) followed by any of the flags ``U R D L`` -- *this cell is
greater than* its neighbour above / right / below / left -- and a comma (the
generator ends with one too). A lowercase letter ``a``..``z`` before a cell
skips 1..26 empty cells, as Tatham's own parser reads it; the writer, like his
generator, never uses them. A file holds one id per line (``#`` comments and
blank lines allowed) and reads as a collection.

Not read: *adjacent* mode (``<n>a:``), whose flags mean that two cells differ
by exactly one and whose missing flags mean that they do not -- a Board states
neither; and random-seed ids (``<params>#<seed>``), which only Tatham's
generator can expand.

Solutions print as Tatham's solve move: ``S`` and one character per cell,
row by row -- ``1``..``9`` below order 10; from order 10 on, ``0``..``9`` for
1..10 and ``A``, ``B``, ... for 11, 12, ...

Example:
    >>> b = TATHAM.loads("3:1R,0,0,0,0,0D,0,0,0,", "x")[0]
    >>> b.clue_map, b.less
    ({0: 1}, ((1, 0), (8, 5)))
    >>> TATHAM.dumps(b)
    '3:1R,0,0,0,0,0D,0,0,0,\\n'
    >>> TATHAM.solution(b, [1, 2, 3, 2, 3, 1, 3, 1, 2])
    'S123231312'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import InputError, UsageError
from .base import Format
from .latin_grid import build_square, square_size

__all__ = ["TATHAM", "parse_game_id", "format_game_id", "solve_string", "DIFFICULTIES"]

DIFFICULTIES = {"t": "trivial", "e": "easy", "k": "tricky", "x": "extreme", "r": "recursive"}
_PARAMS = re.compile(r"(\d+)(a?)(?:d(.?))?")
_SNIFF = re.compile(r"\s*\d+a?(?:d[a-z])?[:#]")
# flag -> (row step, column step) towards the neighbour this cell is greater than
_FLAGS = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}


def parse_game_id(game_id: str, source: str = "<string>", line: int = 1, offset: int = 0) -> Board:
    """Read one game id (``5:...`` or ``5dk:...``) into a futoshiki Board.

    Args:
        game_id: The id, without surrounding blanks.
        source: File name for the messages.
        line: Its line in the file.
        offset: 0-based column of its first character in that line.

    Raises:
        InputError: naming the line and column of the problem.
    """
    def fail(message: str, at: int) -> InputError:
        return InputError(message, source, line, offset + at + 1)

    sep = min((i for i in (game_id.find(":"), game_id.find("#")) if i >= 0), default=-1)
    if sep < 0:
        raise fail("not a Tatham game id: expected '<n>:<description>'", 0)
    params = _PARAMS.fullmatch(game_id[:sep])
    if not params:
        raise fail(f"bad parameters {game_id[:sep]!r}: expected <n>[a][d<difficulty>]", 0)
    if game_id[sep] == "#":
        raise fail("cannot expand a random-seed id; give the description", sep)
    n = int(params.group(1))
    if params.group(2):
        raise fail(f"adjacent mode ('{n}a:') is not supported: its marks say two cells differ by "
                   "exactly one, which a futocp board cannot state", params.start(2))
    diff = params.group(3)
    if diff is not None and diff not in DIFFICULTIES:
        raise fail(f"unknown difficulty {diff!r} (Tatham's are {', '.join(DIFFICULTIES)})",
                   params.start(3) - 1)
    if n < 1:
        raise fail("the order must be at least 1", 0)
    values, flags = _cells(game_id, sep + 1, n, fail)
    less: dict[tuple[int, int], int] = {}
    for cell, marks in flags.items():
        r, c = divmod(cell, n)
        for flag, at in marks:
            dr, dc = _FLAGS[flag]
            if not (0 <= r + dr < n and 0 <= c + dc < n):
                raise fail(f"flag {flag!r} of cell ({r},{c}) points off the grid", at)
            smaller = (r + dr) * n + c + dc
            if (cell, smaller) in less:
                raise fail(f"cells ({r},{c}) and ({r + dr},{c + dc}) each claim to be greater", at)
            less[(smaller, cell)] = at
    givens = [values[r * n:(r + 1) * n] for r in range(n)]
    return build_square("futoshiki", n, givens, less, source, line, offset + 1)


def _cells(text: str, p: int, n: int, fail: Any) -> tuple[list[int], dict[int, list[tuple[str, int]]]]:
    """Cell values and flags ``{cell: [(flag, column)]}`` of a description starting at ``p``."""
    values = [0] * (n * n)
    flags: dict[int, list[tuple[str, int]]] = {}
    i, end = 0, len(text)
    while p < end:
        while p < end and "a" <= text[p] <= "z":
            i += ord(text[p]) - ord("a") + 1
            p += 1
        if i >= n * n:
            raise fail(f"too many cells: a {n}x{n} grid has {n * n}", p)
        if p >= end or not text[p].isdigit():
            found = repr(text[p]) if p < end else "the end"
            raise fail(f"expected a number for cell {i}, found {found}", p)
        start = p
        while p < end and text[p].isdigit():
            p += 1
        number = int(text[start:p])
        if number > n:
            raise fail(f"number {number} out of range 0..{n}", start)
        values[i] = number
        while p < end and text[p] in _FLAGS:
            flags.setdefault(i, []).append((text[p], p))
            p += 1
        i += 1
        if p < end and text[p] != ",":
            raise fail(f"unexpected {text[p]!r} after cell {i - 1}: expected a flag U R D L or ','", p)
        if i < n * n and p >= end:
            break
        p += 1
    if i < n * n:
        raise fail(f"not enough cells: {i} of {n * n}", end)
    return values, flags


def format_game_id(board: Board) -> str:
    """The ``<n>:<desc>`` id of a futoshiki (or latin-square) board, as the generator prints it.

    Raises:
        UsageError: for a board the format cannot hold.
    """
    n = square_size(board, "tatham")
    marks: dict[int, str] = {}
    for a, b in board.less:  # b is greater: it carries the flag pointing at a
        ra, ca = divmod(a, n)
        rb, cb = divmod(b, n)
        flag = next(f for f, step in _FLAGS.items() if step == (ra - rb, ca - cb))
        marks[b] = marks.get(b, "") + flag
    clues = board.clue_map
    cells = []
    for cell in range(n * n):
        flags = "".join(f for f in "URDL" if f in marks.get(cell, ""))
        cells.append(f"{clues.get(cell, 0)}{flags},")
    return f"{n}:{''.join(cells)}"


def solve_string(board: Board, values: Sequence[Any]) -> str:
    """Tatham's solve move for a full assignment: ``S`` + one character per cell.

    Raises:
        UsageError: for a wrong assignment length or a label Tatham cannot print.
    """
    n = square_size(board, "tatham")
    if len(values) != n * n:
        raise UsageError(f"a solution of a {n}x{n} board has {n * n} values, got {len(values)}")
    out = ["S"]
    for v in values:
        if not isinstance(v, int) or not 1 <= v <= n:
            raise UsageError(f"value {v!r} is not a label 1..{n}")
        if n < 10:
            out.append(str(v))
        elif v <= 10:
            out.append(str(v - 1))
        elif v <= 36:
            out.append(chr(ord("A") + v - 11))
        else:
            raise UsageError(f"Tatham's solve notation stops at 36; cannot print {v}")
    return "".join(out)


def _loads(text: str, source: str) -> list[Board]:
    boards = []
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        boards.append(parse_game_id(stripped, source, number, raw.index(stripped[0])))
    return boards


def _dumps(board: Board) -> str:
    return format_game_id(board) + "\n"


def _sniff(text: str) -> bool:
    for raw in text.splitlines():
        if raw.strip() and not raw.lstrip().startswith("#"):
            return bool(_SNIFF.match(raw))
    return False


TATHAM = Format("tatham", (".tatham", ".unequal"), _loads, _dumps, _sniff, solve_string)
