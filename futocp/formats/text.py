"""The text "grid art" format for Futoshiki, adjacent Futoshiki and Latin squares.

A file is an optional header line (``futoshiki 5``, ``futoshiki-adjacent 5``
or ``latin-square 5``, then optionally ``grade=k``), then the cell rows of the
grid: labels or ``.`` separated by spaces, with ``<`` or ``>`` between two
horizontal neighbours (an inequality) or ``|`` (the two are consecutive, as
Tatham draws adjacent mode). Between two cell rows a *relation row* may hold
``^``, ``v`` or ``-`` under a cell: ``^`` says the cell above is smaller (the
point is at the smaller side, like ``<``), ``v`` says it is larger, ``-`` that
the two are consecutive. ``#`` starts a comment; blank lines are ignored. The
size is the header's, or the number of cells in the first row. Without a
header the kind is ``futoshiki-adjacent`` when the only marks are ``|`` and
``-`` (Tatham's rendering of an adjacent puzzle: neighbours without a mark are
not consecutive), else ``futoshiki``. The full description is in
``docs/formats.md``.

A ``^`` / ``v`` / ``-`` belongs to the cell column whose *span* it falls in:
the columns of that cell's label in the cell row above or below, widened to
the width of the widest label of the grid (so that a mark under the padding of
a right- or left-aligned ``7`` in a grid of two-digit labels still counts). A
mark under no span, or under the spans of two cells, is an error.

Example:
    >>> b = TEXT.loads("1 < .\\n    ^\\n. . ", "x")[0]
    >>> b.clue_map, b.less
    ({0: 1}, ((0, 1), (1, 3)))
    >>> print(TEXT.dumps(b), end="")
    futoshiki 2
    1 < .
        ^
    .   .
    >>> a = TEXT.loads("1 | .\\n-\\n. . ", "x")[0]
    >>> a.kind, [str(r) for r in a.relations]
    ('futoshiki-adjacent', ['consecutive(0, 1)', 'consecutive(0, 2)', 'nonconsecutive(1, 3)', 'nonconsecutive(2, 3)'])
    >>> print(TEXT.dumps(a), end="")
    futoshiki-adjacent 2
    1 | .
    -
    .   .
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..board import Board
from ..errors import InputError, UsageError
from ..families import explicit_relations, get_family
from .base import Format
from .family_text import format_family_text, is_family_header, parse_family_text
from .latin_grid import SQUARE_KINDS, build_square, neighbours, square_size
from .limits import MAX_GRID, check_side, excerpt, int_token, is_ascii_digits

__all__ = ["TEXT", "parse_text", "format_text"]

_HEADER = re.compile(r"\s*(futoshiki-adjacent|futoshiki|latin-square)"
                     r"(?:\s+([^\s=]+))?((?:\s+[\w-]+=\S*)*)\s*$")
_TOKEN = re.compile(r"[0-9]+|\.|[<>|]|\S")
_RELATION_ROW = re.compile(r"[\s^v-]*[\^v-][\s^v-]*")
_TAB = 8
_DIGITS = frozenset("0123456789")
_SHOWN = {"less", "consecutive"}  # the relations text art draws


@dataclass
class _Cell:
    value: int | None
    start: int  # 0-based column of the first character
    end: int  # 0-based column of the last character
    token: str


@dataclass
class _Row:
    line: int
    cells: list[_Cell] = field(default_factory=list)
    # (index of the right-hand cell, "<", ">" or "|", 0-based column)
    relations: list[tuple[int, str, int]] = field(default_factory=list)


@dataclass
class _Marks:
    line: int
    marks: list[tuple[str, int]]  # ("^", "v" or "-", 0-based column)
    above: int  # index of the cell row above


def _content(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line without comment, tabs expanded) of non-blank lines."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].expandtabs(_TAB).rstrip()
        if line.strip():
            out.append((number, line))
    return out


def _cell_row(number: int, line: str, source: str) -> _Row:
    row = _Row(number)
    previous = "start"
    for m in _TOKEN.finditer(line):
        tok, col = m.group(), m.start()
        if len(row.cells) > MAX_GRID:
            raise InputError(f"more than {MAX_GRID} cells on a row, the most futocp holds", source,
                             number, col + 1)
        if tok in ("<", ">", "|"):
            if previous != "cell":
                raise InputError(f"'{tok}' must stand between two cells", source, number, col + 1)
            row.relations.append((len(row.cells), tok, col))
            previous = "relation"
        elif tok == "." or tok[0] in _DIGITS:  # _TOKEN reads a number as one token
            value = None if tok == "." else int(tok) if len(tok) < 10 else \
                int_token(tok, source, number, col + 1)
            row.cells.append(_Cell(value, col, m.end() - 1, tok))
            previous = "cell"
        else:
            what = "'^', 'v' and '-' go on a row of their own" if tok in ("^", "v", "-") else \
                f"unexpected {tok!r}: a cell row holds labels (digits 0-9), '.', '<', '>' and '|'"
            raise InputError(what, source, number, col + 1)
    if previous == "relation":
        _, tok, col = row.relations[-1]
        raise InputError(f"'{tok}' must stand between two cells", source, number, col + 1)
    return row


def _span(cell: _Cell, width: int) -> range:
    return range(min(cell.start, cell.end - width + 1), max(cell.end, cell.start + width - 1) + 1)


def parse_text(text: str, source: str = "<string>") -> Board:
    """Read one board in the text format.

    Raises:
        InputError: naming the line and column of the first problem.
    """
    kind, size, header_line = None, None, None
    params: dict[str, str] = {}
    rows: list[_Row] = []
    marks: list[_Marks] = []
    for number, line in _content(text):
        head = _HEADER.match(line)
        if head:
            if rows or header_line is not None:
                raise InputError("the header line must come first", source, number, 1)
            kind, header_line = head.group(1), number
            if head.group(2) is not None:
                at = line.index(head.group(2), len(kind)) + 1
                if not is_ascii_digits(head.group(2)) or int_token(head.group(2), source, number,
                                                                   at) < 1:
                    raise InputError(f"size {excerpt(head.group(2))} is not a positive integer",
                                     source, number, at)
                size = check_side(int(head.group(2)), source, number, at)
            params = dict(w.split("=", 1) for w in head.group(3).split())
        elif _RELATION_ROW.fullmatch(line):
            if not rows or (marks and marks[-1].above == len(rows) - 1):
                what = "before the first cell row" if not rows else "after another relation row"
                raise InputError(f"a relation row must stand between two cell rows, not {what}",
                                 source, number, len(line) - len(line.lstrip()) + 1)
            found = [(m.group(), m.start()) for m in re.finditer(r"[\^v-]", line)]
            marks.append(_Marks(number, found, len(rows) - 1))
        else:
            if len(rows) == (size or MAX_GRID):
                raise InputError(f"one row too many: a {size}x{size} grid has {size} rows" if size
                                 else f"more than {MAX_GRID} rows, the most futocp holds",
                                 source, number, 1)
            rows.append(_cell_row(number, line, source))
    if not rows:
        raise InputError("no grid: the text holds no cell row", source, header_line)
    if marks and marks[-1].above == len(rows) - 1:
        raise InputError("a relation row must stand between two cell rows, not after the last",
                         source, marks[-1].line, marks[-1].marks[0][1] + 1)
    n = size if size is not None else len(rows[0].cells)
    _check_shape(rows, n, source)
    givens = [[c.value or 0 for c in row.cells] for row in rows]
    drawn = _horizontal(rows, n) + _vertical(rows, marks, n, source)
    less = [pair for sym, pair, _ in drawn if sym != "|"]
    consecutive = [("consecutive", tuple(sorted(pair))) for sym, pair, _ in drawn if sym == "|"]
    where = {frozenset(pair): at for _, pair, at in drawn}
    if kind is None:  # Tatham's rendering of an adjacent puzzle has bars only
        kind = "futoshiki-adjacent" if consecutive and not less else "futoshiki"
    _check_params(kind, params, source, header_line)
    return build_square(kind, n, givens, less, source, relations=consecutive, params=params,
                        where=where)


def _check_params(kind: str, params: dict[str, str], source: str, line: int | None) -> None:
    known = set(get_family(kind).params) - {"n"}
    for key in params:
        if key not in known:
            allowed = ", ".join(sorted(known)) or "none"
            raise InputError(f"{kind} has no parameter {excerpt(key)} (its header parameters: "
                             f"{allowed})", source, line, 1)


def _check_shape(rows: list[_Row], n: int, source: str) -> None:
    for row in rows:
        if len(row.cells) != n:
            raise InputError(f"row has {len(row.cells)} cells, expected {n}", source, row.line,
                             row.cells[0].start + 1 if row.cells else 1)
        for cell in row.cells:
            if cell.value is not None and not 1 <= cell.value <= n:
                raise InputError(f"label {cell.token} out of range 1..{n}", source, row.line,
                                 cell.start + 1)
    if len(rows) > n:
        raise InputError(f"one row too many: a {n}x{n} grid has {n} rows", source, rows[n].line, 1)
    if len(rows) < n:
        raise InputError(f"the grid has {len(rows)} rows, expected {n}", source, rows[-1].line, 1)


_Found = list[tuple[str, tuple[int, int], tuple[int, int]]]


def _horizontal(rows: list[_Row], n: int) -> _Found:
    """``(symbol, pair, (line, column))`` of the row marks: ``<``/``>`` as (smaller, larger),
    ``|`` as (left, right)."""
    out = []
    for r, row in enumerate(rows):
        for right, sym, col in row.relations:
            left_cell, right_cell = r * n + right - 1, r * n + right
            pair = (right_cell, left_cell) if sym == ">" else (left_cell, right_cell)
            out.append(("|" if sym == "|" else "<", pair, (row.line, col + 1)))
    return out


def _vertical(rows: list[_Row], marks: list[_Marks], n: int, source: str) -> _Found:
    """``(symbol, pair, (line, column))`` of the relation rows: ``^``/``v`` as (smaller,
    larger), ``-`` as (top, bottom) with symbol ``|``."""
    width = max(len(c.token) for row in rows for c in row.cells)
    out = []
    for m in marks:
        r = m.above
        spans = [_span(c, width) for c in rows[r].cells] + [_span(c, width) for c in rows[r + 1].cells]
        seen: dict[int, int] = {}
        for sym, col in m.marks:
            under = sorted({j % n for j, span in enumerate(spans) if col in span})
            if not under:
                raise InputError(f"'{sym}' at column {col + 1} is not under a cell", source, m.line,
                                 col + 1)
            if len(under) > 1:
                raise InputError(f"'{sym}' at column {col + 1} is ambiguous: it could belong to "
                                 f"({r},{under[0]}) or ({r},{under[1]}); put it under one cell",
                                 source, m.line, col + 1)
            j = under[0]
            if j in seen:
                raise InputError(f"two marks under ({r},{j}) (columns {seen[j] + 1} and {col + 1})",
                                 source, m.line, col + 1)
            seen[j] = col
            top, bottom = r * n + j, (r + 1) * n + j
            if sym == "-":
                out.append(("|", (top, bottom), (m.line, col + 1)))
            else:
                out.append(("<", (top, bottom) if sym == "^" else (bottom, top), (m.line, col + 1)))
    return out


def format_text(board: Board) -> str:
    """The text-art form of a board (other families are drawn by :mod:`.family_text`).

    Raises:
        UsageError: for boards that are no family's, or relations text art cannot draw.
    """
    if board.kind not in SQUARE_KINDS:
        return format_family_text(board)
    n = square_size(board, "text")
    rels = explicit_relations(board)
    hidden = sorted({r.kind for r in rels} - _SHOWN)
    if hidden:
        raise UsageError(f"the text format draws inequalities and consecutive marks; this board "
                         f"has {hidden[0]} relations (use json or yaml)")
    width = len(str(n))
    clues = board.clue_map
    right: dict[int, str] = {}  # cell -> symbol between it and its right neighbour
    below: dict[int, str] = {}  # cell -> symbol between it and the cell below
    for rel in rels:
        a, b = rel.cells
        top_left, other = min(a, b), max(a, b)
        if not neighbours(n, a, b):
            raise UsageError(f"the text format draws consecutive marks between orthogonal "
                             f"neighbours only, not between {board.cell_name(a)} and "
                             f"{board.cell_name(b)}")
        if rel.kind == "less":
            sym = "<^" if a == top_left else ">v"
        else:
            sym = "|-"
        marks = right if other == top_left + 1 else below
        if top_left in marks:
            raise UsageError(f"the text format draws one mark between two cells; "
                             f"{board.cell_name(a)} and {board.cell_name(b)} have two relations")
        marks[top_left] = sym[0] if marks is right else sym[1]
    relation_rows = board.kind != "latin-square" or bool(rels)
    grade = board.param_map.get("grade")
    lines = [f"{board.kind} {n}" + ("" if grade is None else f" grade={grade}")]
    for r in range(n):
        parts = []
        for c in range(n):
            cell = r * n + c
            parts.append(str(clues.get(cell, ".")).rjust(width))
            if c < n - 1:
                parts.append(f" {right.get(cell, ' ')} ")
        lines.append("".join(parts).rstrip())
        if relation_rows and r < n - 1:
            row_marks = [" " * (width - 1) + below.get(r * n + c, " ") for c in range(n)]
            lines.append("   ".join(row_marks).rstrip())
    return "\n".join(lines) + "\n"


def _loads(text: str, source: str) -> list[Board]:
    content = _content(text)
    if content and is_family_header(content[0][1]):
        return [parse_family_text(text, source)]
    return [parse_text(text, source)]


def _sniff(text: str) -> bool:
    content = _content(text)
    if not content:
        return False
    if _HEADER.match(content[0][1]) or is_family_header(content[0][1]):
        return True
    cell_rows = [line for _, line in content if not _RELATION_ROW.fullmatch(line)]
    if not all(re.fullmatch(r"[0-9.<>|\s]+", line) for line in cell_rows):
        return False
    counts = {len(re.findall(r"[0-9]+|\.", line)) for line in cell_rows}
    return counts == {len(cell_rows)}


TEXT = Format("text", (".txt", ".fut"), _loads, format_text, _sniff)
