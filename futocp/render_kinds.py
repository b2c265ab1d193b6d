"""How each relation kind is drawn: one registered drawing per kind.

A :class:`Drawing` draws every relation of its kind on a :class:`Canvas` (the
board, its geometry, the matplotlib Axes and the line widths) and may ask for
room around the board (Towers' clues stand outside the grid). The drawings:

* ``less``: an inequality sign on the shared edge whose point faces the
  smaller cell (``<``, ``>``, ``∧``, ``∨``);
* ``consecutive``: a bar across the shared edge (Tatham's adjacent mode) or,
  on a Kropki board (one with ``ratio`` relations or of a ``kropki`` family),
  a white dot; ``ratio``: a black dot;
* the implied kinds (``nonconsecutive``, ``nodot``): not drawn when the board
  marks every neighbour pair, otherwise a small grey cross;
* ``cage`` (Killer Sudoku): a dashed outline inset in its cells, its sum in the
  top-left corner of its first cell;
* ``arith`` (Keen): bold borders between cages (the grid's thin lines inside a
  cage) and the clue in the top-left corner of the cage's first cell, target
  then operation (``12×``, ``3−``, ``2÷``, ``7+``; a one-cell cage shows its
  number alone);
* ``visible`` (Towers): the count outside the grid, beyond the line's first
  cell (above, below, left or right of the grid).

A binary kind without a drawing is written as its name at the middle of the
pair, any other kind as a line through its cells. A pair of cells that are not
neighbours gets a curved dashed connector with the mark at its middle.

Every artist has a ``gid`` (an SVG element ``id``): ``KIND-A-B`` for a binary
relation, ``cage-K`` and ``cage-sum-K``, ``arith-borders`` and ``arith-K``,
``visible-K``, ``KIND-K`` for a line (K counts the relations of the kind).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .board import Board
from .relations import Relation, implied_kinds
from .render_geometry import INK, Geometry, Point, cell_sides, edges

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["Canvas", "Drawing", "DRAWINGS", "register_drawing", "drawing_of", "draw_relations",
           "margin_of", "arith_label", "cage_segments", "OP_SIGNS"]

#: How a Keen clue writes each ``arith`` operation (the signs printed on KenKen grids).
OP_SIGNS = {"+": "+", "-": "\u2212", "*": "\u00d7", "/": "\u00f7"}


@dataclass
class Canvas:
    """One board being drawn on one Axes: what a drawing needs.

    Attributes:
        board: The board.
        geo: Where its cells are.
        ax: The Axes (data units, y pointing down).
        pt: Points per data unit (font sizes scale with it).
        thin: Width of thin lines, in points.
        thick: Width of bold lines (region borders, the outline), in points.
        labelled: The cells with a label in their corner (cage sums, Keen's clues),
            whose pencil marks go lower.
    """

    board: Board
    geo: Geometry
    ax: Axes
    pt: float
    thin: float = field(init=False)
    thick: float = field(init=False)
    labelled: set[int] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.thin = max(0.4, min(1.0, 0.02 * self.pt))
        self.thick = max(1.4, min(3.0, 0.065 * self.pt))

    def corner(self, cell: int) -> tuple[float, float, str]:
        """Where a corner label of a cell goes: ``(x, y, horizontal alignment)``,
        the top-left corner of a square cell, above the centre of another."""
        geo = self.geo
        if geo.polygons is not None and geo.style in ("grid", "rows"):
            xs, ys = zip(*geo.polygons[cell], strict=True)
            return min(xs) + 0.05 * geo.text, min(ys) + 0.04 * geo.text, "left"
        x, y = geo.centres[cell]
        return x, y - 0.3 * geo.text, "center"

    def first_cell(self, cells: Sequence[int]) -> int:
        """The cell of a group read first: topmost, then leftmost."""
        centres = self.geo.centres
        return min(cells, key=lambda c: (round(centres[c][1], 6), centres[c][0]))


DrawFn = Callable[[Canvas, Sequence[Relation]], None]


@dataclass(frozen=True)
class Drawing:
    """How one relation kind is drawn.

    Attributes:
        kind: The relation kind.
        draw: ``draw(canvas, relations)`` draws every relation of the kind.
        margin: Room the drawing needs around the board, in cell sizes.
    """

    kind: str
    draw: DrawFn
    margin: float = 0.0


DRAWINGS: dict[str, Drawing] = {}
"""The drawing of each relation kind that has one (the single registration step)."""


def register_drawing(kind: str, margin: float = 0.0) -> Callable[[DrawFn], DrawFn]:
    """A decorator that registers ``draw(canvas, relations)`` as the drawing of ``kind``."""
    def add(draw: DrawFn) -> DrawFn:
        DRAWINGS[kind] = Drawing(kind, draw, margin)
        return draw
    return add


def drawing_of(kind: str, binary: bool) -> Drawing:
    """The drawing of a kind: its own, the implied pairs', or the fallback of its arity."""
    if kind in DRAWINGS:
        return DRAWINGS[kind]
    if kind in implied_kinds():
        return Drawing(kind, _draw_implied)
    return Drawing(kind, _draw_named_pairs if binary else _draw_lines)


def draw_relations(canvas: Canvas) -> None:
    """Draw every relation of the canvas's board, kind by kind, in the board's order."""
    groups: dict[str, list[Relation]] = {}
    for rel in canvas.board.relations:
        groups.setdefault(rel.kind, []).append(rel)
    for kind, rels in groups.items():
        drawing_of(kind, rels[0].spec.binary).draw(canvas, rels)


def margin_of(board: Board) -> float:
    """The room, in cell sizes, that the drawings of a board's relations need around it."""
    kinds = board.relation_kinds
    return max((d.margin for k, d in DRAWINGS.items() if k in kinds), default=0.0)


# ------------------------------------------------------------------ pairs
@dataclass
class _Pair:
    """Where the mark of a pair goes: the middle, the unit vector from a to b, its normal."""

    mx: float
    my: float
    ux: float
    uy: float
    nx: float
    ny: float
    unit: float
    gid: str


def _pair(canvas: Canvas, rel: Relation) -> _Pair:
    """The frame of a pair's mark; draws a curved connector between non-neighbours."""
    from matplotlib.lines import Line2D

    geo, a, b = canvas.geo, rel.a, rel.b
    (xa, ya), (xb, yb) = geo.centres[a], geo.centres[b]
    dx, dy = xb - xa, yb - ya
    dist = math.hypot(dx, dy) or 1.0
    ux, uy = dx / dist, dy / dist
    nx, ny = -uy, ux
    mx, my = (xa + xb) / 2, (ya + yb) / 2
    unit = min(geo.text, dist) if geo.style != "graph" else 0.5
    gid = f"{rel.kind}-{a}-{b}"
    if not _adjacent(geo, a, b):
        # a curved connector, so that it passes beside the cells in between
        bend = 0.22 * dist
        cx, cy = mx + nx * bend, my + ny * bend
        ts = [k / 24 for k in range(25)]
        xs = [(1 - t) ** 2 * xa + 2 * (1 - t) * t * cx + t ** 2 * xb for t in ts]
        ys = [(1 - t) ** 2 * ya + 2 * (1 - t) * t * cy + t ** 2 * yb for t in ts]
        canvas.ax.add_artist(Line2D(xs, ys, color=INK, linewidth=canvas.thin, alpha=0.45,
                                    zorder=1.8, linestyle=(0, (2, 2)), gid=f"{gid}-link"))
        mx, my = mx + nx * bend / 2, my + ny * bend / 2
    return _Pair(mx, my, ux, uy, nx, ny, unit, gid)


def _adjacent(geo: Geometry, a: int, b: int) -> bool:
    polys = geo.polygons
    if polys is None:
        return False
    return bool(set(edges(polys[a])) & set(edges(polys[b])))


@register_drawing("less")
def _draw_less(canvas: Canvas, rels: Sequence[Relation]) -> None:
    from matplotlib.lines import Line2D

    for rel in rels:
        f = _pair(canvas, rel)
        s = 0.17 * f.unit
        tip = (f.mx - f.ux * s * 0.5, f.my - f.uy * s * 0.5)  # the point faces the smaller a
        arm1 = (f.mx + f.ux * s * 0.5 + f.nx * s * 0.6, f.my + f.uy * s * 0.5 + f.ny * s * 0.6)
        arm2 = (f.mx + f.ux * s * 0.5 - f.nx * s * 0.6, f.my + f.uy * s * 0.5 - f.ny * s * 0.6)
        canvas.ax.add_artist(Line2D([arm1[0], tip[0], arm2[0]], [arm1[1], tip[1], arm2[1]],
                                    color=INK, linewidth=canvas.thick * 0.8,
                                    solid_capstyle="round", solid_joinstyle="miter", zorder=4,
                                    gid=f.gid))


def _kropki(board: Board) -> bool:
    return "ratio" in board.relation_kinds or "kropki" in board.kind


@register_drawing("consecutive")
def _draw_consecutive(canvas: Canvas, rels: Sequence[Relation]) -> None:
    from matplotlib.lines import Line2D

    if _kropki(canvas.board):
        _dots(canvas, rels, "white")
        return
    for rel in rels:
        f = _pair(canvas, rel)
        s = 0.26 * f.unit
        canvas.ax.add_artist(Line2D([f.mx - f.nx * s, f.mx + f.nx * s],
                                    [f.my - f.ny * s, f.my + f.ny * s], color=INK,
                                    linewidth=canvas.thick * 1.6, solid_capstyle="butt",
                                    zorder=4, gid=f.gid))


@register_drawing("ratio")
def _draw_ratio(canvas: Canvas, rels: Sequence[Relation]) -> None:
    _dots(canvas, rels, INK)


def _dots(canvas: Canvas, rels: Sequence[Relation], face: str) -> None:
    from matplotlib.patches import Circle

    for rel in rels:
        f = _pair(canvas, rel)
        canvas.ax.add_artist(Circle((f.mx, f.my), 0.09 * f.unit, facecolor=face, edgecolor=INK,
                                    linewidth=canvas.thin * 1.4, zorder=4, gid=f.gid))


def _draw_implied(canvas: Canvas, rels: Sequence[Relation]) -> None:
    from matplotlib.lines import Line2D

    if _fully_marked(canvas):
        return
    for rel in rels:
        f = _pair(canvas, rel)
        s = 0.05 * f.unit
        xs = [f.mx - s, f.mx + s, math.nan, f.mx - s, f.mx + s]
        ys = [f.my - s, f.my + s, math.nan, f.my + s, f.my - s]
        canvas.ax.add_artist(Line2D(xs, ys, color="#808080", linewidth=canvas.thin * 1.2,
                                    zorder=4, gid=f.gid))


def _fully_marked(canvas: Canvas) -> bool:
    """True when every neighbour pair carries a binary relation (unmarked = implied)."""
    board = canvas.board
    pairs = {tuple(sorted(r.cells)) for r in board.relations if r.spec.binary}
    return all(pair in pairs for pair in _neighbour_pairs(canvas.geo))


def _neighbour_pairs(geo: Geometry) -> list[tuple[int, int]]:
    return sorted({(min(cs), max(cs)) for cs in cell_sides(geo).values() if len(cs) == 2})


def _draw_named_pairs(canvas: Canvas, rels: Sequence[Relation]) -> None:
    for rel in rels:
        f = _pair(canvas, rel)
        canvas.ax.text(f.mx, f.my, rel.kind[:3], ha="center", va="center",
                       fontsize=max(5.0, 0.16 * canvas.pt), zorder=4, gid=f.gid,
                       bbox={"boxstyle": "round,pad=0.15", "facecolor": "white",
                             "edgecolor": INK, "linewidth": canvas.thin})


def _draw_lines(canvas: Canvas, rels: Sequence[Relation]) -> None:
    from matplotlib.lines import Line2D

    for k, rel in enumerate(rels):
        xs, ys = zip(*(canvas.geo.centres[c] for c in rel.cells), strict=True)
        canvas.ax.add_artist(Line2D(xs, ys, color="#6a3d9a", linewidth=canvas.thin * 2,
                                    alpha=0.7, zorder=3.5, gid=f"{rel.kind}-{k}"))


# ------------------------------------------------------------------ groups of cells
def _corner_text(canvas: Canvas, cells: Sequence[int], text: str, gid: str) -> None:
    """A small label in the corner of a group's first cell, on white."""
    first = canvas.first_cell(cells)
    canvas.labelled.add(first)
    x, y, ha = canvas.corner(first)
    canvas.ax.text(x, y, text, ha=ha, va="top", fontsize=max(5.0, 0.22 * canvas.geo.text
                                                                * canvas.pt),
                   zorder=5, gid=gid, bbox={"boxstyle": "square,pad=0.08", "facecolor": "white",
                                            "edgecolor": "none"})


@register_drawing("cage")
def _draw_cages(canvas: Canvas, rels: Sequence[Relation]) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    geo, ax = canvas.geo, canvas.ax
    dashes = (0, (3, 2))
    for k, rel in enumerate(rels):
        cells = rel.cells
        if geo.style == "grid":
            segs = cage_segments(cells, geo.extra["cols"], 0.1)
            ax.add_collection(LineCollection(segs, colors=INK, linewidths=canvas.thin * 1.3,
                                             linestyles=[dashes], zorder=3.5, gid=f"cage-{k}"),
                              autolim=False)
        else:
            pts = [geo.centres[c] for c in cells]
            cx = sum(p[0] for p in pts) / len(pts)
            cy = sum(p[1] for p in pts) / len(pts)
            pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
            xs = [p[0] for p in pts] + [pts[0][0]]
            ys = [p[1] for p in pts] + [pts[0][1]]
            ax.add_artist(Line2D(xs, ys, color=INK, linewidth=canvas.thin * 1.3,
                                 linestyle=dashes, zorder=3.5, gid=f"cage-{k}"))
        total = rel.param_map.get("sum")
        if total is not None:
            _corner_text(canvas, cells, str(total), f"cage-sum-{k}")


def arith_label(rel: Relation) -> str:
    """A Keen clue as printed: the target then the operation's sign, the target alone
    on a one-cell cage.

    Example:
        >>> arith_label(Relation("arith", (0, 1, 2), (("op", "*"), ("target", 12))))
        '12×'
        >>> arith_label(Relation("arith", (5,), (("op", "+"), ("target", 4))))
        '4'
    """
    params = rel.param_map
    target = str(params["target"])
    return target if len(rel.cells) == 1 else target + OP_SIGNS.get(params["op"], params["op"])


@register_drawing("arith")
def _draw_arith(canvas: Canvas, rels: Sequence[Relation]) -> None:
    from matplotlib.collections import LineCollection

    owner = {cell: k for k, rel in enumerate(rels) for cell in rel.cells}
    if canvas.geo.polygons is None:  # a graph: the cages as lines through their cells
        _draw_lines(canvas, rels)
    else:
        segs = [list(key) for key, cells in cell_sides(canvas.geo).items()
                if len(cells) == 2 and owner.get(cells[0], -1) != owner.get(cells[1], -1)]
        canvas.ax.add_collection(LineCollection(segs, colors=INK, linewidths=canvas.thick,
                                                capstyle="projecting", zorder=3,
                                                gid="arith-borders"), autolim=False)
    for k, rel in enumerate(rels):
        _corner_text(canvas, rel.cells, arith_label(rel), f"arith-{k}")


#: How far outside its line's first cell a Towers clue stands, in cell sizes.
CLUE_OFFSET = 0.85


@register_drawing("visible", margin=CLUE_OFFSET + 0.3)
def _draw_visible(canvas: Canvas, rels: Sequence[Relation]) -> None:
    geo = canvas.geo
    size = 0.5 * geo.text * canvas.pt
    for k, rel in enumerate(rels):
        x0, y0 = geo.centres[rel.cells[0]]
        if len(rel.cells) > 1:  # beyond the first cell, away from the second
            x1, y1 = geo.centres[rel.cells[1]]
            d = math.hypot(x0 - x1, y0 - y1) or 1.0
            ux, uy = (x0 - x1) / d, (y0 - y1) / d
        else:
            ux, uy = 0.0, -1.0
        x, y = x0 + ux * CLUE_OFFSET * geo.text, y0 + uy * CLUE_OFFSET * geo.text
        canvas.ax.text(x, y + 0.02 * geo.text, str(rel.param_map["count"]), ha="center",
                       va="center", fontsize=size, color=INK, zorder=5, gid=f"visible-{k}")


def cage_segments(cells: Sequence[int], cols: int, d: float) -> list[list[Point]]:
    """The outline of a cage on a grid, inset by ``d`` in its cells, as segments."""
    inside = set(cells)

    def has(r: int, c: int) -> bool:
        return 0 <= c < cols and r >= 0 and r * cols + c in inside

    segs: list[list[Point]] = []
    for cell in inside:
        r, c = divmod(cell, cols)
        # top and bottom sides (run along x), left and right sides (run along y)
        for dr in (-1, 1):
            if has(r + dr, c):
                continue
            y = r + d if dr < 0 else r + 1 - d
            x0 = c + d if not has(r, c - 1) else (c - d if has(r + dr, c - 1) else c)
            x1 = c + 1 - d if not has(r, c + 1) else (c + 1 + d if has(r + dr, c + 1) else c + 1)
            segs.append([(x0, y), (x1, y)])
        for dc in (-1, 1):
            if has(r, c + dc):
                continue
            x = c + d if dc < 0 else c + 1 - d
            y0 = r + d if not has(r - 1, c) else (r - d if has(r - 1, c + dc) else r)
            y1 = r + 1 - d if not has(r + 1, c) else (r + 1 + d if has(r + 1, c + dc) else r + 1)
            segs.append([(x, y0), (x, y1)])
    return segs
