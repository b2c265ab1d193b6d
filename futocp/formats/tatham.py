"""Simon Tatham's *Unequal* game descriptions (his Futoshiki), both modes.

A game id is ``<n>:<desc>`` (*Unequal* mode, a ``futoshiki`` board) or
``<n>a:<desc>`` (*adjacent* mode, a ``futoshiki-adjacent`` board), optionally
with a difficulty after the order and mode: ``5dk:``, ``5adx:`` (one of
``t e k x r``; it is kept as the board's ``grade`` parameter and written
back). The description lists the n*n cells row by row, each a number
(``0`` = empty) followed by any of the flags ``U R D L`` and a comma (the
generator ends with one too):

* Unequal mode: a flag says *this cell is greater than* its neighbour above /
  right / below / left;
* adjacent mode: a flag says *this cell and that neighbour differ by exactly
  1*; the neighbour carries the opposite flag (``R`` on a cell, ``L`` on the
  cell to its right), and every pair of neighbours without a flag is *not*
  consecutive -- the ``complete`` rule of the ``futoshiki-adjacent`` family,
  which derives those ``nonconsecutive`` relations.

A lowercase letter ``a``..``z`` before a cell skips 1..26 empty cells, as
Tatham's own parser reads it; the writer, like his generator, never uses
them. A file holds one id per line (``#`` comments and blank lines allowed)
and reads as a collection. Random-seed ids (``<params>#<seed>``) are not
read: only Tatham's generator can expand them.

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
    >>> a = TATHAM.loads("3adk:1R,0L,0,0,0,0D,0,0,0U,", "x")[0]
    >>> a.kind, a.param_map, [str(r) for r in a.relations_of("consecutive")]
    ('futoshiki-adjacent', {'grade': 'k', 'n': 3}, ['consecutive(0, 1)', 'consecutive(5, 8)'])
    >>> TATHAM.dumps(a)
    '3adk:1R,0L,0,0,0,0D,0,0,0U,\\n'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import InputError, UsageError
from .base import Format, content_lines, mostly
from .latin_grid import build_square, neighbours, square_size
from .limits import MAX_INT_DIGITS, check_side, excerpt, int_token
from .tatham_ids import read_id_lines

__all__ = ["TATHAM", "parse_game_id", "format_game_id", "solve_string", "DIFFICULTIES"]

DIFFICULTIES = {"t": "trivial", "e": "easy", "k": "tricky", "x": "extreme", "r": "recursive"}
_PARAMS = re.compile(r"([0-9]+)(a?)(?:d(.?))?")
# the parameters, then a seed or the first cell of an Unequal description (not a Keen,
# Towers or Solo one, whose parameters look alike)
_SNIFF = re.compile(r"\s*[0-9]+a?(?:d[a-z])?(?:#|:[a-z]*[0-9]+[URDL]*,)")
# flag -> (row step, column step) towards the neighbour it points at
_FLAGS = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
_OPPOSITE = {"U": "D", "D": "U", "R": "L", "L": "R"}
_KINDS = ("futoshiki", "latin-square", "futoshiki-adjacent")
_DIGITS = frozenset("0123456789")


def parse_game_id(game_id: str, source: str = "<string>", line: int = 1, offset: int = 0) -> Board:
    """Read one game id (``5:...``, ``5dk:...``, ``5a:...``) into a futoshiki or
    futoshiki-adjacent Board.

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
        raise fail(f"bad parameters {excerpt(game_id[:sep])}: expected <n>[a][d<difficulty>]", 0)
    if game_id[sep] == "#":
        raise fail("cannot expand a random-seed id; give the description", sep)
    n = int_token(params.group(1), source, line, offset + 1)
    adjacent = bool(params.group(2))
    diff = params.group(3)
    if diff is not None and diff not in DIFFICULTIES:
        raise fail(f"unknown difficulty {diff!r} (Tatham's are {', '.join(DIFFICULTIES)})",
                   params.start(3) - 1)
    check_side(n, source, line, offset + 1, "the order")  # before n * n cells are allocated
    values, flags = _cells(game_id, sep + 1, n, fail)
    givens = [values[r * n:(r + 1) * n] for r in range(n)]
    extra = {} if diff is None else {"grade": diff}
    if adjacent:
        pairs = _adjacent_pairs(flags, n, fail)
        return build_square("futoshiki-adjacent", n, givens, (), source, line, offset + 1,
                            [("consecutive", pair) for pair in pairs], extra)
    less: dict[tuple[int, int], int] = {}
    for cell, marks in flags.items():
        r, c = divmod(cell, n)
        for flag, at in marks:
            smaller = _neighbour(cell, flag, n, fail, at)
            if (cell, smaller) in less:
                rs, cs = divmod(smaller, n)
                raise fail(f"cells ({r},{c}) and ({rs},{cs}) each claim to be greater", at)
            less[(smaller, cell)] = at
    where = {frozenset(pair): (line, offset + at + 1) for pair, at in less.items()}
    return build_square("futoshiki", n, givens, less, source, line, offset + 1, params=extra,
                        where=where)


def _neighbour(cell: int, flag: str, n: int, fail: Any, at: int) -> int:
    """The cell a flag points at (an error when it points off the grid)."""
    r, c = divmod(cell, n)
    dr, dc = _FLAGS[flag]
    if not (0 <= r + dr < n and 0 <= c + dc < n):
        raise fail(f"flag {flag!r} of cell ({r},{c}) points off the grid", at)
    return (r + dr) * n + c + dc


def _adjacent_pairs(flags: dict[int, list[tuple[str, int]]], n: int, fail: Any
                    ) -> list[tuple[int, int]]:
    """The consecutive pairs of adjacent-mode flags, which must come in opposite pairs."""
    pairs = set()
    for cell, marks in sorted(flags.items()):
        r, c = divmod(cell, n)
        for flag, at in marks:
            other = _neighbour(cell, flag, n, fail, at)
            back = _OPPOSITE[flag]
            if back not in {f for f, _ in flags.get(other, ())}:
                ro, co = divmod(other, n)
                raise fail(f"flag {flag!r} of cell ({r},{c}) has no matching {back!r} on "
                           f"({ro},{co}): adjacent-mode marks are symmetric", at)
            pairs.add((min(cell, other), max(cell, other)))
    return sorted(pairs)


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
        if p >= end or text[p] not in _DIGITS:
            found = repr(text[p]) if p < end else "the end"
            raise fail(f"expected a number for cell {i}, found {found}", p)
        start = p
        while p < end and text[p] in _DIGITS:
            p += 1
        if p - start > MAX_INT_DIGITS:
            raise fail(f"an integer of {p - start} digits (at most {MAX_INT_DIGITS})", start)
        number = int(text[start:p])
        if number > n:
            raise fail(f"number {number} out of range 0..{n}", start)
        values[i] = number
        while p < end and text[p] in _FLAGS:
            marks = flags.setdefault(i, [])
            if any(f == text[p] for f, _ in marks):
                r, c = divmod(i, n)
                raise fail(f"flag {text[p]!r} appears twice on cell ({r},{c})", p)
            marks.append((text[p], p))
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
    """The game id of a futoshiki, futoshiki-adjacent or latin-square board, as the
    generator prints it (with ``d<c>`` when the board has a ``grade``).

    A board with ``consecutive`` / ``nonconsecutive`` relations is written in
    adjacent mode (``<n>a:``), which needs every pair of orthogonal neighbours
    in exactly one of the two; other boards in Unequal mode.

    Raises:
        UsageError: for a board the format cannot hold.
    """
    n = square_size(board, "tatham", kinds=_KINDS)
    kinds = board.relation_kinds
    adjacent = bool(kinds & {"consecutive", "nonconsecutive"})
    other = sorted(kinds - {"less", "consecutive", "nonconsecutive"})
    if other:
        raise UsageError(f"the tatham format holds inequalities (Unequal) or consecutive marks "
                         f"(adjacent mode); this board has {other[0]} relations (use json or yaml)")
    marks: dict[int, str] = {}
    if adjacent:
        if board.less:
            raise UsageError("the tatham format holds inequalities (Unequal mode) or consecutive "
                             "marks (adjacent mode), not both; this board has both")
        _check_adjacent(board, n)
        for rel in board.relations_of("consecutive"):
            a, b = rel.cells
            marks[a] = marks.get(a, "") + _flag(a, b, n)
            marks[b] = marks.get(b, "") + _flag(b, a, n)
    else:
        for a, b in board.less:  # b is greater: it carries the flag pointing at a
            marks[b] = marks.get(b, "") + _flag(b, a, n)
    grade = board.param_map.get("grade")
    head = f"{n}{'a' if adjacent else ''}{'' if grade is None else 'd' + str(grade)}"
    clues = board.clue_map
    cells = []
    for cell in range(n * n):
        flags = "".join(f for f in "URDL" if f in marks.get(cell, ""))
        cells.append(f"{clues.get(cell, 0)}{flags},")
    return f"{head}:{''.join(cells)}"


def _flag(a: int, b: int, n: int) -> str:
    """The flag on cell a that points at its neighbour b."""
    (ra, ca), (rb, cb) = divmod(a, n), divmod(b, n)
    return next(f for f, step in _FLAGS.items() if step == (rb - ra, cb - ca))


def _check_adjacent(board: Board, n: int) -> None:
    """Every pair of neighbours in exactly one of consecutive / nonconsecutive, no other pair."""
    listed: dict[tuple[int, int], str] = {}
    for rel in board.relations:
        a, b = sorted(rel.cells)
        if not neighbours(n, a, b):
            raise UsageError(f"the tatham format marks orthogonal neighbours only, not the "
                             f"{rel.kind} pair {board.cell_name(a)}, {board.cell_name(b)}")
        listed[(a, b)] = rel.kind
    for a in range(n * n):
        for b in (a + 1, a + n):
            if b < n * n and neighbours(n, a, b) and (a, b) not in listed:
                raise UsageError(
                    "the tatham adjacent mode needs every pair of neighbours either consecutive "
                    f"or nonconsecutive; {board.cell_name(a)} and {board.cell_name(b)} are "
                    "neither (use json or yaml, or the futoshiki-adjacent family, which "
                    "derives the nonconsecutive pairs)")


def solve_string(board: Board, values: Sequence[Any], kinds: Sequence[str] = _KINDS,
                 fmt: str = "tatham") -> str:
    """Tatham's solve move for a full assignment: ``S`` + one character per cell
    (Unequal's, Keen's and Towers'; ``kinds`` are the board kinds of the format ``fmt``).

    Raises:
        UsageError: for a wrong assignment length or a label Tatham cannot print.
    """
    n = square_size(board, fmt, kinds=kinds)
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
    return read_id_lines(text, source, parse_game_id)


def _dumps(board: Board) -> str:
    return format_game_id(board) + "\n"


def _sniff(text: str) -> bool:
    return mostly((line for _, line in content_lines(text)), lambda line: bool(_SNIFF.match(line)))


TATHAM = Format("tatham", (".tatham", ".unequal"), _loads, _dumps, _sniff, solve_string)
