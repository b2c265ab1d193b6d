"""The pieces Simon Tatham's game ids share: the one-id-a-line collection, the
run-length grid and the block structure.

A game id is ``<parameters>:<description>``; a file of the ``tatham``,
``keen``, ``towers`` or ``solo`` format holds one per line (blank lines and
``#`` comment lines are skipped) and reads as a collection. A random-seed id
(``<parameters>#<seed>``) is refused: only Tatham's generator expands it.
Every error is an :class:`~futocp.errors.InputError` naming the file, the
line and the column of the offending character (:class:`Cursor`).

Two encodings recur in his descriptions (the facts are read from his sources,
``keen.c``, ``towers.c`` and ``solo.c``; no code is copied):

* the *run-length grid* (:func:`read_grid`, :func:`write_grid`): the cells row
  by row, a number for a filled cell, a letter ``a`` .. ``z`` for a run of 1 to
  26 empty cells, ``_`` between two numbers that are not separated by a run;
* the *block structure* (:func:`read_blocks`, :func:`write_blocks`): a
  partition of the w x w grid into blocks (Keen's cages, Solo's jigsaw regions
  and killer cages), as the pattern of the internal grid lines that separate
  two blocks -- first the w(w-1) vertical lines in reading order, then the
  w(w-1) horizontal ones in transposed reading order, then one final virtual
  line. The text counts the non-lines between two lines: ``_`` is none, ``a``
  .. ``y`` 1 to 25, each followed by a line, and ``z`` 25 non-lines without
  a line (a longer run is ``z`` as often as needed, then its rest). Keen
  shortens a run of one character repeated: twice is written twice, three
  times or more once followed by the count (``_3``); Solo has no counts.

Example:
    >>> cur = Cursor("a3b12_4", "x", 1, 0)
    >>> read_grid(cur, 6, 12)
    [0, 3, 0, 0, 12, 4]
    >>> write_grid([0, 3, 0, 0, 12, 4])
    'a3b12_4'
    >>> blocks = read_blocks(Cursor("__a_a__a_ac__a_a", "x", 1, 0), 4, counts=True)
    >>> blocks[:4]
    [0, 1, 2, 2]
    >>> write_blocks(blocks, 4, counts=True)
    '__a_a__a_ac__a_a'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ..board import Board
from ..errors import BoardError, InputError, UsageError
from ..families import family
from .base import Format, content_lines
from .limits import MAX_INT_DIGITS, Collection, check_side, clip, excerpt

__all__ = ["Cursor", "IdParser", "split_id", "side_and_grade", "build_board", "read_id_lines",
           "id_format", "read_grid",
           "write_grid", "read_blocks", "write_blocks", "block_cells", "partition_blocks",
           "first_line"]

IdParser = Callable[[str, str, int, int], Board]
"""``parse(game_id, source, line, offset) -> Board``: reads one id (without surrounding
blanks) of line ``line`` of file ``source``, whose first character is at 0-based
column ``offset`` of that line; raises :class:`~futocp.errors.InputError` naming the
line and column of a problem."""

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")


class Cursor:
    """A position in one game id, for reading and for errors that name the column.

    Attributes:
        text: The id.
        pos: The index of the next character.
        source: The file name.
        line: The line of the id in the file.
        offset: The 0-based column of the id's first character in that line.
    """

    def __init__(self, text: str, source: str, line: int, offset: int, pos: int = 0) -> None:
        self.text = text
        self.source = source
        self.line = line
        self.offset = offset
        self.pos = pos

    def fail(self, message: str, at: int | None = None) -> InputError:
        """An error at ``at`` (default: the current position)."""
        where = self.pos if at is None else at
        return InputError(message, self.source, self.line, self.offset + where + 1)

    @property
    def done(self) -> bool:
        """True at the end of the id."""
        return self.pos >= len(self.text)

    def peek(self) -> str:
        """The next character ("" at the end)."""
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def found(self) -> str:
        """The next character, quoted, or ``the end`` (for the messages)."""
        return repr(self.peek()) if not self.done else "the end"

    def number(self, what: str, lo: int | None = None, hi: int | None = None) -> int:
        """Read a run of ASCII digits as a number in ``lo..hi``."""
        start = self.pos
        while not self.done and self.text[self.pos] in _DIGITS:
            self.pos += 1
        if self.pos == start:
            raise self.fail(f"expected {what}, found {self.found()}")
        if self.pos - start > MAX_INT_DIGITS:
            raise self.fail(f"an integer of {self.pos - start} digits (at most "
                            f"{MAX_INT_DIGITS})", start)
        value = int(self.text[start:self.pos])
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(f"{what} {value} out of range {lo}..{hi}", start)
        return value

    def expect(self, char: str, what: str) -> None:
        """Read ``char`` or fail naming ``what`` was expected."""
        if self.peek() != char:
            raise self.fail(f"expected {what}, found {self.found()}")
        self.pos += 1

    def end(self, what: str = "the end of the id") -> None:
        """Fail unless the whole id has been read."""
        if not self.done:
            raise self.fail(f"unexpected {self.found()}: expected {what}")


def split_id(game_id: str, source: str, line: int, offset: int, game: str,
             params: re.Pattern[str], shape: str) -> tuple[re.Match[str], Cursor]:
    """The parameters of a game id (matched by ``params``) and a cursor on its
    description, just after the colon.

    Raises:
        InputError: for no colon, a random-seed id or parameters ``params``
            does not match (``shape`` says what they look like).
    """
    cur = Cursor(game_id, source, line, offset)
    sep = min((i for i in (game_id.find(":"), game_id.find("#")) if i >= 0), default=-1)
    if sep < 0:
        raise cur.fail(f"not a {game} game id: expected '<parameters>:<description>'", 0)
    found = params.fullmatch(game_id[:sep])
    if not found:
        raise cur.fail(f"bad {game} parameters {excerpt(game_id[:sep])}: expected {shape}", 0)
    if game_id[sep] == "#":
        raise cur.fail("cannot expand a random-seed id; give the description", sep)
    cur.pos = sep + 1
    return found, cur


def side_and_grade(found: re.Match[str], cur: Cursor, game: str, grades: Sequence[str]
                   ) -> tuple[int, str | None]:
    """The side (group 1 of ``found``, the parameters) and the difficulty letter
    (group 2, or None) of a Keen or Towers id, checked."""
    digits = found.group(1)
    w = int(digits) if len(digits) <= 6 else 10**7
    check_side(w, cur.source, cur.line, cur.offset + 1, "the side")
    grade = found.group(2)
    if grade is not None and grade not in grades:
        raise cur.fail(f"unknown difficulty {grade!r} ({game}'s are {' '.join(grades)})",
                       found.start(2) if grade else found.start(2) - 1)
    return w, grade


def build_board(cur: Cursor, kind: str, givens: Sequence[Sequence[int]] | None,
                relations: Sequence[tuple[str, Any, dict[str, Any]]], where: Sequence[int],
                at: int = 0, **params: Any) -> Board:
    """The board of family ``kind`` an id describes; an error the family finds is an
    :class:`~futocp.errors.InputError` at the position ``where[i]`` of the relation it
    names (its index among the relations), else at ``at``."""
    try:
        return family(kind, givens, relations=relations, **params)
    except BoardError as exc:
        index = getattr(exc, "index", None)
        spot = where[index] if isinstance(index, int) and index < len(where) else at
        raise cur.fail(clip(str(exc)), spot) from None


def read_id_lines(text: str, source: str, parse: IdParser) -> list[Board]:
    """Every id of a collection, one a line (``#`` comments and blank lines skipped),
    read by ``parse(id, source, line, column offset)``."""
    boards = []
    seen = Collection(source)
    seen.precount(number for number, _ in content_lines(text))
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        seen.instance(number)
        board = parse(stripped, source, number, raw.index(stripped[0]))
        seen.add_clues(number, len(board.clues))
        boards.append(board)
    return boards


def id_format(name: str, extensions: tuple[str, ...], parse: IdParser,
              write: Callable[[Board], str], sniff: re.Pattern[str],
              solution: Callable[[Board, Sequence[Any]], str]) -> Format:
    """The :class:`~futocp.formats.base.Format` of a game of one id a line: ``parse``
    reads an id, ``write`` writes one, ``sniff`` matches the first line of a file
    of the format (from its start)."""
    def loads(text: str, source: str) -> list[Board]:
        return read_id_lines(text, source, parse)

    def dumps(board: Board) -> str:
        return write(board) + "\n"

    def looks(text: str) -> bool:
        return bool(sniff.match(first_line(text)))

    return Format(name, extensions, loads, dumps, looks, solution)


def first_line(text: str) -> str:
    """The first line that is not blank nor a comment, stripped ("" when none)."""
    for raw in text.splitlines():
        if raw.strip() and not raw.lstrip().startswith("#"):
            return raw.strip()
    return ""


# ------------------------------------------------------------ the run-length grid
def read_grid(cur: Cursor, area: int, top: int, stop: str = ",",
              where: list[int] | None = None) -> list[int]:
    """``area`` cells of a run-length grid (0 = empty), numbers 1..``top``, up to
    ``stop`` or the end; ``where`` gets the position of each cell's character."""
    out: list[int] = []
    while not cur.done and cur.peek() != stop:
        ch, start = cur.peek(), cur.pos
        if ch in _LOWER:
            run = ord(ch) - ord("a") + 1
            out += [0] * run
            if where is not None:
                where += [cur.pos] * run
            cur.pos += 1
        elif ch == "_":
            cur.pos += 1
        elif ch in _DIGITS and ch != "0":
            if where is not None:
                where.append(cur.pos)
            out.append(cur.number("a number", 1, top))
        else:
            raise cur.fail(f"unexpected {cur.found()} in a grid: expected a number 1..{top}, "
                           "a letter a-z for empty cells or '_'")
        if len(out) > area:
            raise cur.fail(f"too many cells: the grid has {area}", start)
    if len(out) < area:
        raise cur.fail(f"not enough cells: {len(out)} of {area}")
    return out


def write_grid(cells: Sequence[int]) -> str:
    """A run-length grid (0 = empty), as Tatham's generators write it."""
    out: list[str] = []
    run = 0
    for i, value in enumerate([*cells, -1]):
        if value == 0:
            run += 1
            continue
        if run:
            while run > 0:
                step = min(run, 26)
                out.append(chr(ord("a") + step - 1))
                run -= step
        elif i > 0 and value > 0:
            out.append("_")
        if value > 0:
            out.append(str(value))
    return "".join(out)


# ------------------------------------------------------------ the block structure
def _edge(pos: int, w: int) -> tuple[int, int]:
    """The two cells an internal grid line at position ``pos`` separates."""
    half = w * (w - 1)
    if pos < half:
        y, x = divmod(pos, w - 1)
        return y * w + x, y * w + x + 1
    x, y = divmod(pos - half, w - 1)
    return y * w + x, (y + 1) * w + x


def read_blocks(cur: Cursor, w: int, counts: bool) -> list[int]:
    """A block structure (up to a comma or the end): the block number of every cell,
    blocks numbered in reading order of their first cell. ``counts``: Keen's repeat
    counts after a character."""
    total = 2 * w * (w - 1)
    parent = list(range(w * w))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    pos = 0
    while not cur.done and cur.peek() != ",":
        ch = cur.peek()
        if ch != "_" and ch not in _LOWER:
            raise cur.fail(f"unexpected {cur.found()} in a block structure: expected '_' or "
                           "a letter a-z")
        start = cur.pos
        cur.pos += 1
        times = 1
        if counts and cur.peek() in _DIGITS:
            times = cur.number("a repeat count", 1, 4 * total + 4)
        run = 0 if ch == "_" else min(ord(ch) - ord("a") + 1, 25)
        line = ch != "z"
        for _ in range(times):
            if pos + run > total:
                raise cur.fail("too much data in the block structure", start)
            for k in range(pos, pos + run):
                a, b = _edge(k, w)
                parent[find(a)] = find(b)
            pos += run + (1 if line else 0)
    if pos != total + 1:
        raise cur.fail(f"not enough data in the block structure ({pos} of {total + 1} "
                       "positions)")
    number: dict[int, int] = {}
    return [number.setdefault(find(c), len(number)) for c in range(w * w)]


def write_blocks(blocks: Sequence[int], w: int, counts: bool) -> str:
    """The block structure of a partition (``blocks``: a block id per cell)."""
    total = 2 * w * (w - 1)
    chars: list[str] = []
    run = 0
    for pos in range(total + 1):
        if pos < total:
            a, b = _edge(pos, w)
            if blocks[a] == blocks[b]:
                run += 1
                continue
        while run > 25:
            chars.append("z")
            run -= 25
        chars.append(chr(ord("a") + run - 1) if run else "_")
        run = 0
    if not counts:
        return "".join(chars)
    out: list[str] = []
    i = 0
    while i < len(chars):
        j = i
        while j < len(chars) and chars[j] == chars[i]:
            j += 1
        n = j - i
        out.append(chars[i] * n if n <= 2 else f"{chars[i]}{n}")
        i = j
    return "".join(out)


def block_cells(blocks: Sequence[int]) -> list[list[int]]:
    """The cells of each block, blocks in number order, cells ascending."""
    out: list[list[int]] = [[] for _ in range(max(blocks, default=-1) + 1)]
    for c, b in enumerate(blocks):
        out[b].append(c)
    return out


def partition_blocks(board: Board, groups: Sequence[Sequence[int]], n: int, fmt: str,
                     what: str) -> list[int]:
    """The block id of every cell of an n x n board whose ``groups`` partition it
    into orthogonally connected pieces (block ids in reading order of first cells).

    Raises:
        UsageError: for a cell in no group or in two, or a group in two pieces.
    """
    owner = [-1] * (n * n)
    for k, cells in enumerate(groups):
        for c in cells:
            if owner[c] >= 0:
                raise UsageError(f"the {fmt} format needs every cell in one {what}; cell "
                                 f"{board.cell_name(c)} is in two")
            owner[c] = k
    if -1 in owner:
        cell = owner.index(-1)
        raise UsageError(f"the {fmt} format needs every cell in one {what}; cell "
                         f"{board.cell_name(cell)} is in none (use json or yaml)")
    number: dict[int, int] = {}
    blocks = [number.setdefault(k, len(number)) for k in owner]
    for cells in groups:  # the block structure only joins neighbours: one piece each
        seen, todo = {cells[0]}, [cells[0]]
        while todo:
            c = todo.pop()
            r, q = divmod(c, n)
            for d in ((r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1)):
                x = d[0] * n + d[1]
                if 0 <= d[0] < n and 0 <= d[1] < n and x not in seen and owner[x] == owner[c]:
                    seen.add(x)
                    todo.append(x)
        if len(seen) != len(cells):
            raise UsageError(f"the {fmt} format writes {what}s of orthogonally connected cells; "
                             f"the {what} of {board.cell_name(cells[0])} is in pieces")
    return blocks
