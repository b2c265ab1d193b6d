"""Text art for the families other than Futoshiki and Latin squares.

The text format (:mod:`futocp.formats.text`) hands these boards here. A board
is a header line naming the family and its parameters (``sudoku box=2x3``,
``custom-sudoku box=2x4 word=MAKIKAJI``), then its rows of labels, ``.`` for
an empty cell, separated by spaces:

- boxed grids (Sudoku and its variants) show the boxes with ``|`` between
  box columns and a ``------+------`` line between box rows; a reader
  ignores both;
- a jigsaw row is followed, after a gap, by the region id of each of its
  cells, so that the regions can be seen (and are read back) beside the labels;
- boards with a layout (the Latin triangles) print their rows centred.

Example:
    >>> from futocp.families import sudoku
    >>> b = sudoku("2x2", [[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]])
    >>> print(format_family_text(b), end="")
    sudoku box=2x2
    1 . | . .
    . . | 3 .
    ----+----
    . 4 | . .
    . . | . 2
    >>> parse_family_text(format_family_text(b), "x") == b
    True
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..board import Board
from ..errors import BoardError, FutocpError, InputError, UsageError
from .latin_grid import SQUARE_KINDS
from .limits import MAX_GRID, MAX_INT_DIGITS, bad_param, excerpt, is_ascii_digits
from .limits import clip as _clip

if TYPE_CHECKING:
    from ..families import Family

__all__ = ["format_family_text", "parse_family_text", "is_family_header"]

_RULE = re.compile(r"[-+=\s]+")
_TOKEN = re.compile(r"[^\s|]+")


def _family_of(board: Board) -> Family:
    from ..families import get_family  # the families' YAML is read on first use

    try:
        fam = get_family(board.kind)
        base = fam.template(dict(board.params))
    except FutocpError:
        raise UsageError("the text format holds futoshiki and latin-square boards and the boards "
                         f"of the other families (futocp families), not {board.kind!r}") from None
    if (base.asterisms, base.labels, base.shape, base.n_cells) != \
            (board.asterisms, board.labels, board.shape, board.n_cells):
        raise UsageError(f"this board is not a {board.kind} board of its parameters")
    return fam


def _cell_text(value: Any, width: int) -> str:
    return ("." if value is None else str(value)).rjust(width)


def format_family_text(board: Board) -> str:
    """The text art of a board of any family but futoshiki and latin-square.

    Raises:
        UsageError: for boards that are no family's, or have relations (but those the
            family's ``complete`` rule derives).
    """
    from ..families import explicit_relations

    fam = _family_of(board)
    rels = explicit_relations(board)
    if rels:
        raise UsageError(f"the text format draws relations ({rels[0].kind} here) on futoshiki, "
                         "futoshiki-adjacent and latin-square boards only; use json or yaml")
    header = [fam.name] + [f"{k}={fam.params[k].show(v)}" for k, v in board.params
                           if fam.params[k].type != "regions" and k != fam.size_expr]
    width = max(len(str(v)) for v in board.values)
    clues = board.clue_map
    rows = [[_cell_text(clues.get(c), width) for c in row] for row in fam.layout(board)]
    lines = [" ".join(header)]
    if board.shape is None:
        texts = [" ".join(row) for row in rows]
        longest = max(len(t) for t in texts)
        lines += [(" " * ((longest - len(t)) // 2) + t).rstrip() for t in texts]
        return "\n".join(lines) + "\n"
    box = fam.boxes(board)
    regions = dict(board.params).get("regions") if "regions" in fam.params else None
    rwidth = max(len(str(x)) for row in regions for x in row) if regions else 0
    for r, row in enumerate(rows):
        if box and r and r % box[0] == 0:
            n_groups, span = len(row) // box[1], box[1] * (width + 1) - 1
            lines.append("+".join("-" * (span + (i > 0) + (i < n_groups - 1))
                                  for i in range(n_groups)))
        if box:
            groups = [" ".join(row[i:i + box[1]]) for i in range(0, len(row), box[1])]
            text = " | ".join(groups)
        else:
            text = " ".join(row)
        if regions:
            text += "    " + " ".join(str(x).rjust(rwidth) for x in regions[r])
        lines.append(text)
    return "\n".join(lines) + "\n"


def is_family_header(line: str) -> bool:
    """True when a line is the header of a family other than futoshiki / latin-square."""
    words = line.split()
    if not words or words[0] in SQUARE_KINDS:
        return False
    from ..families import get_family

    try:
        get_family(words[0])
    except FutocpError:
        return False
    return all("=" in w for w in words[1:])


def _label(token: str, labels: set[Any]) -> Any:
    if token == ".":
        return 0
    digits = token[1:] if token.startswith("-") else token
    value: Any = token
    if is_ascii_digits(digits) and len(digits) <= MAX_INT_DIGITS:
        value = int(token)
    return value if value in labels else None


def _tokens(line: str, source: str, number: int) -> list[tuple[str, int]]:
    """The items of a row and their columns (at most 2 * MAX_GRID: labels and region ids)."""
    out: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(line):
        if len(out) == 2 * MAX_GRID:
            raise InputError(f"more than {2 * MAX_GRID} items on a row", source, number,
                             m.start() + 1)
        out.append((m.group(), m.start()))
    return out


def parse_family_text(text: str, source: str = "<string>") -> Board:
    """Read the text art of a family board (see the module docstring).

    Raises:
        InputError: naming the line and column of the first problem.
    """
    content = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if line.strip() and not _RULE.fullmatch(line):
            content.append((number, line))
    if not content or not is_family_header(content[0][1]):
        raise InputError("the first line must name a family (e.g. 'sudoku box=3x3')", source,
                         content[0][0] if content else None, 1)
    from ..families import get_family

    head_line, head = content[0]
    words = head.split()
    fam = get_family(words[0])
    params: dict[str, Any] = {}  # the header's words, then the regions grid
    for word in words[1:]:
        key, _, value = word.partition("=")
        params[key] = value
    bad = bad_param(fam, params)
    if bad:
        key, why = bad
        raise InputError(f"{key}: {why}", source, head_line, head.index(f"{key}=") + 1)
    if len(content) - 1 > MAX_GRID:
        raise InputError(f"more than {MAX_GRID} rows, the most futocp holds", source,
                         content[MAX_GRID + 1][0], 1)
    rows = [(number, _tokens(line, source, number)) for number, line in content[1:]]
    if not rows:
        raise InputError("no rows after the header", source, head_line, 1)
    has_regions = "regions" in fam.params
    if has_regions:
        n = len(rows)
        for number, toks in rows:
            if len(toks) != 2 * n:
                raise InputError(f"a jigsaw row holds {n} labels and {n} region ids, found "
                                 f"{len(toks)} items", source, number, 1)
        params["regions"] = [[tok for tok, _ in toks[n:]] for _, toks in rows]
    try:
        base = fam.template(params, len(rows) if fam.is_grid and fam.size_expr else None)
    except (BoardError, ValueError) as exc:  # ValueError: a parameter int("①") refused
        raise InputError(_clip(str(exc)), source, head_line, 1) from None
    layout = fam.layout(base)
    if len(rows) != len(layout):
        raise InputError(f"{len(rows)} rows, expected {len(layout)}", source, rows[-1][0], 1)
    labels = set(base.values)
    givens = []
    for (number, toks), cells in zip(rows, layout, strict=True):
        toks = toks[:len(cells)] if has_regions else toks
        if len(toks) != len(cells):
            raise InputError(f"the row has {len(toks)} cells, expected {len(cells)}", source,
                             number, toks[-1][1] + 1 if toks else 1)
        row = []
        for tok, col in toks:
            value = _label(tok, labels)
            if value is None:
                raise InputError(f"{excerpt(tok)} is not a label of this board", source, number,
                                 col + 1)
            row.append(value)
        givens.append(row)
    try:
        return fam.build(givens, (), len(rows) if fam.is_grid and fam.size_expr else None,
                         **params)
    except (BoardError, ValueError) as exc:
        raise InputError(_clip(str(exc)), source, head_line, 1) from None
