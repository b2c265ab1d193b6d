"""Any grid board as plain text, relations included, for the terminal (``futocp show``).

The ``text`` format (:mod:`futocp.formats.text`) writes Futoshiki, adjacent
Futoshiki and Latin squares in a form that reads back; other boards have no
such text form. :func:`draw` shows every grid board anyway, read-only: the
cells in rows with a gap between two cells and a line between two rows, where
a binary relation of two side-by-side cells is drawn -- ``<`` ``>`` (and ``^``
``v`` between rows: the point faces the smaller label) for ``less``, ``o`` for
``consecutive`` (Kropki's white dot, the adjacent mode's bar), ``*`` for
``ratio`` (Kropki's black dot); Killer and Keen cages as a map of letters with
their clues (``A=17``, ``A=12+``); Towers clues (``visible`` relations on a
whole row or column) around the grid, where the Towers game shows them;
whatever has no place in the grid (a relation of cells that are not
side by side, another kind, an n-ary relation) listed below it. A board whose
asterisms include boxes (rectangles that tile the grid: a Sudoku's, a Killer
Sudoku's) has them drawn in the grid and in the cage map as the Sudoku text
does, ``|`` between box columns and a ``---+---`` line between box rows
(a mark on a box border is drawn beside the ``|``). On a fully
marked board (every side-by-side pair carries a relation: a complete Kropki
board, Tatham's adjacent mode) the unmarked pairs' kind (a kind registered
``implied``: ``nonconsecutive``, ``nodot``) is said once instead of drawn. A
board without a grid shape is written as one line of cells and its relations
listed.

Example:
    >>> from futocp.board import Board
    >>> from futocp.relations import Relation
    >>> b = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2),
    ...           relations=(Relation("ratio", (0, 1)), Relation("consecutive", (1, 3))))
    >>> print(draw(b))
    . * .
        o
    .   .
    >>> from futocp.families import sudoku
    >>> print(draw(sudoku("2x2", [[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]])))
    1   . | .   .
    .   . | 3   .
    ------+------
    .   4 | .   .
    .   . | .   2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .board import Board, Label
from .families import grid_line_of
from .relations import Relation, implied_kinds

__all__ = ["draw", "box_shape", "GLYPHS", "CAGES"]

#: The character drawn between two side-by-side cells, per symmetric binary kind.
GLYPHS = {"consecutive": "o", "ratio": "*"}

#: The n-ary kinds drawn as a map of cage letters: (title, the clue of a cage).
CAGES: dict[str, tuple[str, Callable[[Mapping[str, Any]], str]]] = {
    "cage": ("cages (letter = sum)", lambda p: str(p.get("sum", "?"))),
    "arith": ("cages (letter = target and operation)",
              lambda p: f"{p.get('target', '?')}{p.get('op', '?')}"),
}
_CAGE_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def draw(board: Board, values: Sequence[Label] | None = None) -> str:
    """``board`` (its clues, or ``values`` for every cell) as text, with its relations.

    Args:
        board: Any board.
        values: One label per cell (a solution), or None for the clues.

    Returns:
        The lines, without a final newline.
    """
    shown = board.clue_map if values is None else dict(enumerate(values))
    cells = [str(shown.get(c, ".")) for c in range(board.n_cells)]
    if board.shape is None:
        return "\n".join([" ".join(cells), *_listed(board, board.relations)])
    rows, cols = board.shape
    width = max(map(len, cells))
    # even lines hold cells, odd lines the marks between two rows; in a line,
    # even slots are a cell wide, odd slots (between two cells) 3 wide
    lines = [[" " * (3 if k % 2 else width) for k in range(2 * cols - 1)]
             for _ in range(2 * rows - 1)]
    for c, label in enumerate(cells):
        r, q = divmod(c, cols)
        lines[2 * r][2 * q] = label.rjust(width)
    binary = [rel for rel in board.relations if rel.spec.binary]
    pairs = {tuple(sorted(rel.cells)) for rel in binary}
    fully_marked = all((c, c + 1) in pairs for c in range(board.n_cells) if (c + 1) % cols) \
        and all((c, c + cols) in pairs for c in range(board.n_cells - cols))
    left: list[Relation] = []
    implied = implied_kinds()
    hidden: set[str] = set()
    for rel in binary:
        if rel.kind in implied and fully_marked:
            hidden.add(rel.kind)
            continue
        spot = _between(rel.a, rel.b, cols)
        glyph = None if spot is None else _glyph(rel)
        if spot is None or glyph is None:
            left.append(rel)
            continue
        line, slot = spot
        lines[line][slot] = glyph.center(len(lines[line][slot]))
    box = box_shape(board)
    rules = _draw_boxes(lines, box) if box else set()
    clues, around = _line_clues(board, rows, cols)
    text = ["".join(line).rstrip() for line in lines]
    spaced = any(t for k, t in enumerate(text) if k % 2 and k not in rules)
    if not spaced:
        # no mark between two rows: no lines for them, but the box rules
        text = [t for k, t in enumerate(text) if k % 2 == 0 or k in rules]
    if clues is not None:
        text = _framed(text, clues, width, spaced, cols)
    if hidden:
        text.append(f"(every unmarked pair of neighbours: {', '.join(sorted(hidden))})")
    for kind, (title, clue) in CAGES.items():
        cages = board.relations_of(kind)
        if cages:
            text += ["", f"{title}:", *_cage_map(board, cages, width, clue, box)]
    text += _listed(board, left + [r for r in board.relations if not r.spec.binary
                                  and r.kind not in CAGES and r not in around])
    return "\n".join(text)


def box_shape(board: Board) -> tuple[int, int] | None:
    """The (rows, cols) of a grid board's boxes: asterisms that are rectangles of
    one shape, more than one cell high and wide, tiling the grid (a Sudoku's
    3x3 boxes; not a Hypersudoku's extra windows, which tile nothing). None when
    there are none.

    Example:
        >>> from futocp.families import latin_square, sudoku
        >>> box_shape(sudoku("2x3")), box_shape(latin_square(4))
        ((2, 3), None)
    """
    if board.shape is None:
        return None
    rows, cols = board.shape
    tiles: dict[tuple[int, int], set[frozenset[int]]] = {}
    for ast in board.asterisms:
        rs = [c // cols for c in ast]
        qs = [c % cols for c in ast]
        top, left = min(rs), min(qs)
        h, w = max(rs) - top + 1, max(qs) - left + 1
        if h > 1 and w > 1 and len(set(ast)) == h * w and top % h == 0 and left % w == 0:
            tiles.setdefault((h, w), set()).add(frozenset(ast))
    found = [(h, w) for (h, w), boxes in tiles.items()
             if rows % h == 0 and cols % w == 0 and len(boxes) == (rows // h) * (cols // w)]
    return found[0] if len(found) == 1 and found[0] != (rows, cols) else None


def _draw_boxes(lines: list[list[str]], box: tuple[int, int]) -> set[int]:
    """Put the box borders into the drawing's slots: ``|`` in the gap between two
    box columns (beside the mark there, if any), a ``---+---`` rule in the line
    between two box rows (with the marks there). Returns the rules' line numbers."""
    h, w = box
    rules: set[int] = set()
    for no, line in enumerate(lines):
        if no % 2 == 0:
            for slot in range(2 * w - 1, len(line), 2 * w):
                mark = line[slot].strip()
                line[slot] = f"{mark}| " if mark else " | "
        elif (no // 2 + 1) % h == 0:
            rules.add(no)
            for slot, text in enumerate(line):
                border = slot % 2 == 1 and (slot // 2 + 1) % w == 0
                line[slot] = "-+-" if border else text.strip().center(len(text), "-")
    return rules


def _line_clues(board: Board, rows: int, cols: int
                ) -> tuple[dict[str, dict[int, str]] | None, set[Relation]]:
    """Towers clues: ``{side: {index: count}}`` for the ``visible`` relations on a whole
    row or column (at most one per side of a line), and those relations."""
    sides: dict[str, dict[int, str]] = {"top": {}, "bottom": {}, "left": {}, "right": {}}
    placed: set[Relation] = set()
    for rel in board.relations_of("visible"):
        found = grid_line_of(rel.cells, rows, cols)
        if found is None:
            continue
        what, k, backwards = found
        side = ("bottom" if backwards else "top") if what == "col" else \
            ("right" if backwards else "left")
        if k not in sides[side]:
            sides[side][k] = str(rel.param_map["count"])
            placed.add(rel)
    return (sides if placed else None), placed


def _framed(text: list[str], clues: dict[str, dict[int, str]], width: int, spaced: bool,
            cols: int) -> list[str]:
    """The grid's lines (cell lines, and lines between rows when ``spaced``) with the
    Towers clues around: a line above and below, a column left and right of the cell
    lines, a blank line between the grid and the clues above and below it."""
    side = max([1] + [len(v) for v in (*clues["left"].values(), *clues["right"].values())])
    full = (width + 3) * cols - 3

    def edge(marks: dict[int, str]) -> str:
        return (" " * (side + 2) + "   ".join(marks.get(q, "").rjust(width)
                                              for q in range(cols))).rstrip()

    body = []
    for i, line in enumerate(text):
        if spaced and i % 2:
            body.append((" " * (side + 2) + line).rstrip())
            continue
        r = i // 2 if spaced else i
        right = clues["right"].get(r, "")
        body.append((clues["left"].get(r, "").rjust(side) + "  " + line.ljust(full)
                     + ("  " + right if right else "")).rstrip())
    return [edge(clues["top"]), "", *body, "", edge(clues["bottom"])]


def _between(a: int, b: int, cols: int) -> tuple[int, int] | None:
    """Where the mark of two side-by-side cells goes: (line, slot), or None."""
    lo, hi = min(a, b), max(a, b)
    r, q = divmod(lo, cols)
    if hi == lo + 1 and q + 1 < cols:
        return 2 * r, 2 * q + 1
    if hi == lo + cols:
        return 2 * r + 1, 2 * q
    return None


def _glyph(rel: Relation) -> str | None:
    """The mark of a relation between side-by-side cells, or None when it has none."""
    if rel.kind == "less":  # the point faces the smaller label, the first cell
        if abs(rel.a - rel.b) == 1:
            return "<" if rel.a < rel.b else ">"
        return "^" if rel.a < rel.b else "v"
    return GLYPHS.get(rel.kind) if rel.spec.symmetric else None


def _cage_map(board: Board, cages: Sequence[Relation], width: int,
              clue: Callable[[Mapping[str, Any]], str],
              box: tuple[int, int] | None) -> list[str]:
    """The cells by cage letter (``.`` outside every cage), in the boxes when the
    board has some, then each letter's clue."""
    names = [_CAGE_NAMES[k % len(_CAGE_NAMES)] + ("" if k < len(_CAGE_NAMES) else
                                                   str(k // len(_CAGE_NAMES)))
             for k in range(len(cages))]
    owner = {c: names[k] for k, rel in enumerate(cages) for c in rel.cells}
    w = max(width, *map(len, names))
    assert board.shape is not None
    rows, cols = board.shape
    h, bw = box or (rows, cols)
    out = []
    for r in range(rows):
        cells = [owner.get(r * cols + q, ".").rjust(w) for q in range(cols)]
        line = " | ".join(" ".join(cells[q:q + bw]) for q in range(0, cols, bw))
        if r and r % h == 0:  # the rule between two box rows
            out.append("".join("+" if ch == "|" else "-" for ch in line))
        out.append(line)
    sums = [f"{name}={clue(rel.param_map)}" for name, rel in zip(names, cages, strict=True)]
    out += [" ".join(sums[k:k + 12]) for k in range(0, len(sums), 12)]
    return out


def _listed(board: Board, relations: Sequence[Relation]) -> list[str]:
    """The relations with no place in the drawing, one a line."""
    if not relations:
        return []
    name = board.cell_name
    out = ["", "relations:"]
    for rel in relations:
        params = "".join(f" {k}={v}" for k, v in rel.params)
        out.append(f"  {rel.kind}({', '.join(name(c) for c in rel.cells)}){params}")
    return out
