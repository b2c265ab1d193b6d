"""Pictures of boards and solutions: SVG, PNG and PDF, drawn with matplotlib.

Every board family is drawn from its own geometry:

* **grids** (Latin squares, Futoshiki, every Sudoku): one square per cell; a
  partition of the grid into connected asterisms (Sudoku boxes, Jigsaw
  regions) gets thick borders, and light colours when its regions are not
  rectangles; other asterisms (Sudoku-X diagonals, Hypersudoku windows) are
  tinted overlays; inscription cells are shaded;
* **triangle layouts** (seed 003's Latin triangle and Canario, ``layout_style:
  triangle`` in ``models/``): one small triangle per cell, up and down
  alternately, each row centred; every asterism that is a union of stripes is
  named by a letter at the ends of its stripes;
* **other layouts**: the layout rows, centred, one square per cell;
* **general boards** (no shape, no layout): a labelled graph, the cells as
  nodes on a circle and every asterism as a coloured hyperedge.

Relations are drawn by kind: ``less`` as an inequality sign between the two
cells whose point faces the smaller cell (``<``, ``>``, ``∧``, ``∨``),
``consecutive`` as a bar across the shared edge (Tatham's adjacent mode) or,
on a Kropki board (one with ``ratio`` relations or of a ``kropki`` family),
as a white dot, ``ratio`` as a black dot, ``cage`` as a dashed outline inset
in its cells with its sum in the top-left cell. ``nonconsecutive`` and
``nodot`` are the unmarked pairs of those puzzles and are not drawn when the
board marks every neighbour pair; otherwise they get a small grey cross.
A kind unknown here is written as its name at the middle of the pair.

Every artist that stands for a part of the board has a ``gid`` that the SVG
keeps as an element ``id``: ``cell-C``, ``given-C``, ``solved-C``,
``candidate-C-V``, ``KIND-A-B`` for a binary relation (``less-3-4``),
``cage-K`` and ``cage-sum-K``, ``asterism-J`` (overlays and hyperedges),
``regions`` (the thick borders), ``caption``. Tests and other tools can find
the parts of a picture by these ids instead of by pixels.

Pictures are made without pyplot (no global figure state): :func:`figure`
returns a :class:`matplotlib.figure.Figure`, :func:`to_bytes` and
:func:`to_svg` its file contents, :func:`save` writes a file atomically, and
:class:`Picture` displays itself in a notebook (``Board`` and ``Result`` use it
for their ``_repr_svg_``).

Example:
    >>> from futocp.families import futoshiki
    >>> board = futoshiki(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((0, 1), (0, 2))])
    >>> svg = to_svg(board)
    >>> 'id="cell-8"' in svg and 'id="less-1-2"' in svg and 'id="given-0"' in svg
    True
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .board import Board, Label
from .errors import UsageError
from .relations import implied_kinds

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .result import Result

__all__ = [
    "FORMATS", "DEFAULT_DPI", "Picture", "figure", "to_bytes", "to_svg", "save",
    "candidate_lists", "format_of", "result_html", "notebook_svg", "write_bytes_atomic",
]

#: File name endings -> matplotlib format names.
FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
#: Resolution of PNG pictures when none is given.
DEFAULT_DPI = 150

Point = tuple[float, float]

# ------------------------------------------------------------------ colours and sizes
INK = "#000000"            # signs, marks, givens, thick borders
GRID = "#8c8c8c"           # thin cell borders
SOLVED = "#2f6db3"         # values found by a solver (lighter than givens)
CANDIDATE = "#555555"      # pencil marks
INSCRIPTION = "#e4e4e4"    # background of inscription cells
EMPTY_LIST = "#f7c6c6"     # background of a cell whose list is empty
REGION_TINTS = ("#fde2e4", "#dcefe6", "#dfe7fd", "#fff1c1", "#eadff5", "#d3eef7",
                "#fbe0c8", "#e6f2cf", "#f2dce9", "#e8e8e8")
OVERLAY_TINTS = ("#f2c94c", "#56a3d9", "#e07a5f", "#81b29a", "#9b72cf", "#d4a373",
                 "#7fb7be", "#c9ada7")
HYPEREDGE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
             "#7f7f7f", "#bcbd22", "#17becf")  # matplotlib's ten default colours
STRIPE_INK = {"row": "#8e2c2c", "left": "#2c6e3f", "right": "#2c4a8e"}


# ------------------------------------------------------------------ geometry
@dataclass
class _Geometry:
    """Where every cell of a board is drawn (data units, y pointing down)."""

    style: str                              # grid, triangle, rows, graph
    centres: list[Point]
    polygons: list[list[Point]] | None      # None for a graph
    text: float                             # size of a cell's text box, data units
    bounds: list[float]                     # xmin, xmax, ymin, ymax (without margins)
    margin: float = 0.3
    scale: float = 0.6                      # inches per data unit
    node_radius: float = 0.0                # graph nodes
    layout: list[list[int]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _geometry(board: Board) -> _Geometry:
    if board.shape is not None:
        return _grid_geometry(board)
    layout, style = _layout(board)
    if layout is not None and style == "triangle" and _is_triangle(layout):
        return _triangle_geometry(layout)
    if layout is not None:
        return _rows_geometry(layout)
    return _graph_geometry(board)


def _layout(board: Board) -> tuple[list[list[int]] | None, str | None]:
    """The family's layout rows and ``layout_style``, when the board has a family."""
    from .errors import FutocpError
    from .families import board_layout, get_family  # lazy: families reads models/

    try:
        layout = board_layout(board)
    except FutocpError:
        layout = None
    if layout is None:
        return None, None
    cells = sorted(c for row in layout for c in row)
    if cells != list(range(board.n_cells)):
        return None, None
    try:
        style = get_family(board.kind).spec.get("layout_style")
    except FutocpError:
        style = None
    return layout, style


def _grid_geometry(board: Board) -> _Geometry:
    rows, cols = board.grid_shape
    centres: list[Point] = []
    polygons: list[list[Point]] = []
    for cell in range(board.n_cells):
        r, c = divmod(cell, cols)
        x, y = float(c), float(r)
        centres.append((x + 0.5, y + 0.5))
        polygons.append([(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)])
    scale = min(0.6, max(0.3, 7.5 / max(rows, cols)))
    return _Geometry("grid", centres, polygons, 1.0, [0, cols, 0, rows], 0.3, scale,
                     extra={"rows": rows, "cols": cols})


def _is_triangle(layout: list[list[int]]) -> bool:
    return all(len(row) == 2 * r + 1 for r, row in enumerate(layout))


TRI_H = math.sqrt(3) / 2


def _triangle_geometry(layout: list[list[int]]) -> _Geometry:
    """Row r (from the apex) holds 2r+1 unit triangles, up and down alternately."""
    n = sum(len(row) for row in layout)
    centres: list[Point] = [(0.0, 0.0)] * n
    polygons: list[list[Point]] = [[]] * n
    place: dict[int, tuple[int, int, bool]] = {}
    for r, row in enumerate(layout):
        top, bottom = r * TRI_H, (r + 1) * TRI_H
        for j, cell in enumerate(row):
            i, up = j // 2, j % 2 == 0
            if up:
                left = -(r + 1) / 2 + i
                pts = [(left, bottom), (left + 1, bottom), (left + 0.5, top)]
                centre = (left + 0.5, top + 2 * TRI_H / 3)
            else:
                left = -r / 2 + i
                pts = [(left, top), (left + 1, top), (left + 0.5, bottom)]
                centre = (left + 0.5, top + TRI_H / 3)
            polygons[cell], centres[cell] = pts, centre
            place[cell] = (r, i, up)
    rows = len(layout)
    scale = min(0.95, max(0.45, 7.0 / rows))
    return _Geometry("triangle", centres, polygons, 0.5, [-rows / 2, rows / 2, 0, rows * TRI_H],
                     0.75, scale, layout=layout, extra={"place": place})


def _rows_geometry(layout: list[list[int]]) -> _Geometry:
    n = sum(len(row) for row in layout)
    centres: list[Point] = [(0.0, 0.0)] * n
    polygons: list[list[Point]] = [[]] * n
    width = max(len(row) for row in layout)
    for r, row in enumerate(layout):
        x0 = (width - len(row)) / 2
        for j, cell in enumerate(row):
            x = x0 + j
            centres[cell] = (x + 0.5, r + 0.5)
            polygons[cell] = [(x, r), (x + 1, r), (x + 1, r + 1), (x, r + 1)]
    scale = min(0.6, max(0.3, 7.5 / max(width, len(layout))))
    return _Geometry("rows", centres, polygons, 1.0, [0, width, 0, len(layout)], 0.3, scale,
                     layout=layout)


def _graph_geometry(board: Board) -> _Geometry:
    n = board.n_cells
    radius = max(1.3, 1.15 * n / (2 * math.pi))
    centres = []
    for i in range(n):
        angle = math.pi / 2 - 2 * math.pi * i / n
        centres.append((radius * math.cos(angle), -radius * math.sin(angle)))
    scale = min(0.8, max(0.3, 7.0 / (2 * radius + 2)))
    return _Geometry("graph", centres, None, 0.7, [-radius, radius, -radius, radius], 0.9, scale,
                     node_radius=0.36)


# ------------------------------------------------------------------ grid structure
def _connected(cells: Iterable[int], cols: int) -> bool:
    todo = set(cells)
    if not todo:
        return False
    stack = [todo.pop()]
    while stack:
        r, c = divmod(stack.pop(), cols)
        for nb in ((r - 1) * cols + c, (r + 1) * cols + c,
                   r * cols + c - 1 if c > 0 else -1, r * cols + c + 1 if c < cols - 1 else -1):
            if nb in todo:
                todo.discard(nb)
                stack.append(nb)
    return not todo


def _grid_structure(board: Board) -> tuple[dict[int, int], list[int]]:
    """``(block of each cell, extra asterism indices)`` of a grid board.

    The blocks are a partition of the grid into connected asterisms that are
    neither rows nor columns (boxes, regions), chosen greedily in asterism
    order; when no such partition covers the grid, there are no blocks. The
    extras are the other non-line asterisms (diagonals, windows).
    """
    from .families import grid_lines

    rows, cols = board.grid_shape
    lines = {frozenset(line) for line in grid_lines(rows, cols)}
    others = [j for j, ast in enumerate(board.asterisms) if frozenset(ast) not in lines]
    owner: dict[int, int] = {}
    blocks = []
    for j in others:
        ast = board.asterisms[j]
        if _connected(ast, cols) and not any(c in owner for c in ast):
            blocks.append(j)
            owner.update((c, j) for c in ast)
    if len(owner) != board.n_cells:
        return {}, others
    return owner, [j for j in others if j not in blocks]


def _is_rectangle(cells: Sequence[int], cols: int) -> bool:
    rs = [c // cols for c in cells]
    cs = [c % cols for c in cells]
    return (max(rs) - min(rs) + 1) * (max(cs) - min(cs) + 1) == len(cells)


def _region_colours(owner: Mapping[int, int], cols: int) -> dict[int, str]:
    """A tint per block, neighbouring blocks in different tints (greedy colouring)."""
    nbrs: dict[int, set[int]] = {b: set() for b in owner.values()}
    for cell, b in owner.items():
        r, c = divmod(cell, cols)
        for other in (cell + 1 if c < cols - 1 else None, cell + cols):
            if other is not None and other in owner and owner[other] != b:
                nbrs[b].add(owner[other])
                nbrs[owner[other]].add(b)
    colour: dict[int, int] = {}
    for b in sorted(nbrs):
        used = {colour[o] for o in nbrs[b] if o in colour}
        colour[b] = next(k for k in range(len(REGION_TINTS) + len(nbrs)) if k not in used)
    return {b: REGION_TINTS[k % len(REGION_TINTS)] for b, k in colour.items()}


# ------------------------------------------------------------------ candidates
def candidate_lists(board: Board) -> dict[int, tuple[Label, ...]]:
    """Each empty cell's remaining list after the model's list filtering.

    Example:
        >>> from futocp.families import latin_square
        >>> candidate_lists(latin_square(2, [[1, 0], [0, 0]]))
        {1: (2,), 2: (2,), 3: (1,)}
    """
    from .model import build_model

    model = build_model(board, filtering="lists")
    clues = board.clue_map
    return {cell: tuple(model.values[i] for i in model.domain(cell))
            for cell in range(board.n_cells) if cell not in clues}


# ------------------------------------------------------------------ the picture
def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # pragma: no cover - matplotlib is a dependency of the extras
        raise UsageError("pictures need matplotlib: pip install 'futocp[render]'") from None


def _solution_of(result: Result) -> Sequence[Label] | None:
    return result.solutions[0] if result.solutions else None


def _caption_of(result: Result) -> str | None:
    status = getattr(result.status, "value", str(result.status))
    if status == "unsat":
        return "no solution (unsatisfiable)"
    if status == "unknown":
        return "no solution found (stopped by the time limit)"
    return None


def figure(board: Board, values: Sequence[Label] | None = None, *,
           result: Result | None = None, candidates: bool | Mapping[int, Sequence[Label]] = False,
           caption: str | None = None) -> Figure:
    """Draw a board as a matplotlib Figure (made without pyplot).

    Args:
        board: The board.
        values: A full assignment (one label per cell) to draw: the clues stay
            bold, the other values are drawn lighter.
        result: A solver's Result: its first solution is drawn as ``values``; an
            unsat or unknown result is said in a caption.
        candidates: True to draw each empty cell's list after the model's list
            filtering (:func:`candidate_lists`) as small labels, or the lists
            themselves (``{cell: labels}``).
        caption: A line of text under the board.

    Returns:
        The Figure; its size follows the board (about 0.3 to 0.6 inch per cell).
    """
    _require_matplotlib()
    from matplotlib.figure import Figure

    if result is not None:
        if values is None:
            values = _solution_of(result)
        if caption is None:
            caption = _caption_of(result)
    if values is not None and len(values) != board.n_cells:
        raise UsageError(f"{len(values)} values for a board of {board.n_cells} cells")
    lists: Mapping[int, Sequence[Label]] | None
    lists = candidate_lists(board) if candidates is True else (candidates or None)

    geo = _geometry(board)
    xmin, xmax, ymin, ymax = geo.bounds
    m = geo.margin
    bottom_extra = 0.55 * geo.text if caption else 0.0
    width, height = xmax - xmin + 2 * m, ymax - ymin + 2 * m + bottom_extra
    fig = Figure(figsize=(width * geo.scale, height * geo.scale))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(xmin - m, xmax + m)
    ax.set_ylim(ymax + m + bottom_extra, ymin - m)  # y points down
    ax.set_aspect("equal")
    pt = geo.scale * 72  # points per data unit
    painter = _Painter(board, geo, ax, pt)
    painter.cells(lists)
    painter.relations()
    painter.values(values, lists)
    if caption:
        ax.text((xmin + xmax) / 2, ymax + m + bottom_extra / 2, caption, ha="center",
                va="center", fontsize=max(7.0, 0.3 * geo.text * pt), color="#8e2c2c",
                gid="caption")
    return fig


class _Painter:
    """Draws one board on one Axes (cells, structure, relations, values)."""

    def __init__(self, board: Board, geo: _Geometry, ax: Axes, pt: float) -> None:
        self.board, self.geo, self.ax, self.pt = board, geo, ax, pt
        self.thin = max(0.4, min(1.0, 0.02 * pt))
        self.thick = max(1.4, min(3.0, 0.065 * pt))

    # ------------------------------------------------------------ cells
    def cells(self, lists: Mapping[int, Sequence[Label]] | None) -> None:
        board, geo = self.board, self.geo
        faces = ["white"] * board.n_cells
        for cell in board.inscription:
            faces[cell] = INSCRIPTION
        if lists:
            for cell, labels in lists.items():
                if not labels:
                    faces[cell] = EMPTY_LIST
        if geo.style == "graph":
            self._graph(faces)
            return
        owner: dict[int, int] = {}
        extras: list[int] = []
        if geo.style == "grid":
            owner, extras = _grid_structure(board)
            cols = geo.extra["cols"]
            blocks: dict[int, list[int]] = {}
            for cell, b in owner.items():
                blocks.setdefault(b, []).append(cell)
            if blocks and not all(_is_rectangle(cells, cols) for cells in blocks.values()):
                tint = _region_colours(owner, cols)
                for cell, b in owner.items():
                    if faces[cell] == "white":
                        faces[cell] = tint[b]
        from matplotlib.patches import Polygon

        for cell, poly in enumerate(geo.polygons or ()):
            self.ax.add_artist(Polygon(poly, closed=True, facecolor=faces[cell], edgecolor=GRID,
                                       linewidth=self.thin, zorder=1, gid=f"cell-{cell}"))
        for k, j in enumerate(extras):
            colour = OVERLAY_TINTS[k % len(OVERLAY_TINTS)]
            self._overlay(board.asterisms[j], colour, f"asterism-{j}")
        if owner:
            self._region_borders(owner)
        self._outline()
        if geo.style == "triangle":
            self._stripe_letters()

    def _overlay(self, cells: Sequence[int], colour: str, gid: str) -> None:
        from matplotlib.collections import PolyCollection

        shapes = self.geo.polygons
        if shapes is None:  # a graph has no cell shapes to tint
            return
        polys = [shapes[c] for c in cells]
        self.ax.add_collection(PolyCollection(polys, facecolors=colour, edgecolors="none",
                                              alpha=0.28, zorder=1.5, gid=gid), autolim=False)

    def _region_borders(self, owner: Mapping[int, int]) -> None:
        from matplotlib.collections import LineCollection

        cols = self.geo.extra["cols"]
        segs = []
        for cell, b in owner.items():
            r, c = divmod(cell, cols)
            if c < cols - 1 and owner.get(cell + 1) != b:
                segs.append([(c + 1, r), (c + 1, r + 1)])
            if cell + cols in owner and owner[cell + cols] != b:
                segs.append([(c, r + 1), (c + 1, r + 1)])
        if segs:
            self.ax.add_collection(LineCollection(segs, colors=INK, linewidths=self.thick,
                                                  capstyle="projecting", zorder=3, gid="regions"),
                                   autolim=False)

    def _outline(self) -> None:
        """The outer border: edges of cells that no other cell shares."""
        from matplotlib.collections import LineCollection

        count: dict[tuple[Point, Point], int] = {}
        for poly in self.geo.polygons or ():
            for key in _edges(poly):
                count[key] = count.get(key, 0) + 1
        segs = [list(key) for key, k in count.items() if k == 1]
        self.ax.add_collection(LineCollection(segs, colors=INK, linewidths=self.thick,
                                              capstyle="projecting", zorder=3, gid="outline"),
                               autolim=False)

    def _stripe_letters(self) -> None:
        """Name every asterism that is a union of stripes by a letter at its stripes' ends."""
        place = self.geo.extra["place"]
        rows = len(self.geo.layout or ())
        stripes: dict[tuple[str, int], set[int]] = {}
        for cell, (r, i, up) in place.items():
            stripes.setdefault(("row", r), set()).add(cell)
            stripes.setdefault(("left", i), set()).add(cell)
            stripes.setdefault(("right", r - i if up else r - 1 - i), set()).add(cell)
        size = max(6.0, 0.33 * self.pt)
        for j, ast in enumerate(self.board.asterisms):
            cells = set(ast)
            for direction in ("row", "left", "right"):
                parts = [idx for (d, idx), s in stripes.items() if d == direction and s <= cells]
                if not parts or set().union(*(stripes[(direction, i)] for i in parts)) != cells:
                    continue
                name = chr(ord("A") + j) if j < 26 else str(j + 1)
                for idx in parts:
                    x, y = _stripe_end(direction, idx, rows)
                    self.ax.text(x, y, name, ha="center", va="center", fontsize=size,
                                 color=STRIPE_INK[direction], fontweight="bold",
                                 gid=f"asterism-{j}-{direction}-{idx}")
                break

    def _graph(self, faces: list[str]) -> None:
        from matplotlib.patches import Circle, Polygon

        geo, ax = self.geo, self.ax
        for j, ast in enumerate(self.board.asterisms):
            colour = HYPEREDGE[j % len(HYPEREDGE)]
            pts = sorted((geo.centres[c] for c in ast),
                         key=lambda p: math.atan2(p[1], p[0]))
            ax.add_artist(Polygon(pts, closed=True, facecolor=colour, alpha=0.07,
                                  edgecolor="none", zorder=0.5, gid=f"asterism-{j}-fill"))
            ax.add_artist(Polygon(pts, closed=True, facecolor="none", edgecolor=colour,
                                  linewidth=1.6, alpha=0.9, zorder=0.6, gid=f"asterism-{j}"))
        for cell, (x, y) in enumerate(geo.centres):
            ax.add_artist(Circle((x, y), geo.node_radius, facecolor=faces[cell], edgecolor=INK,
                                 linewidth=self.thin * 1.5, zorder=2, gid=f"cell-{cell}"))
            norm = math.hypot(x, y) or 1.0
            ax.text(x + x / norm * 0.62, y + y / norm * 0.62, str(cell), ha="center",
                    va="center", fontsize=max(5.0, 0.2 * self.pt), color="#666666",
                    gid=f"cell-name-{cell}")

    # ------------------------------------------------------------ relations
    def relations(self) -> None:
        board = self.board
        kropki = "ratio" in board.relation_kinds or "kropki" in board.kind
        implied_hidden = self._fully_marked()
        for rel in board.relations:
            if rel.spec.binary:
                if rel.kind in implied_kinds() and implied_hidden:
                    continue
                self._binary(rel.kind, rel.a, rel.b, kropki)
        for k, rel in enumerate(board.relations_of("cage")):
            self._cage(k, rel.cells, rel.param_map.get("sum"))
        for k, rel in enumerate(r for r in board.relations
                                if not r.spec.binary and r.kind != "cage"):
            self._hyper(k, rel.kind, rel.cells)

    def _fully_marked(self) -> bool:
        """True when every neighbour pair carries a binary relation (unmarked = implied)."""
        board = self.board
        if not (implied_kinds() & board.relation_kinds):
            return True
        pairs = {tuple(sorted(r.cells)) for r in board.relations if r.spec.binary}
        return all(pair in pairs for pair in self._neighbour_pairs())

    def _neighbour_pairs(self) -> list[tuple[int, int]]:
        geo = self.geo
        if geo.polygons is None:
            return []
        owner: dict[tuple[Point, Point], list[int]] = {}
        for cell, poly in enumerate(geo.polygons):
            for key in _edges(poly):
                owner.setdefault(key, []).append(cell)
        return sorted({(min(cs), max(cs)) for cs in owner.values() if len(cs) == 2})

    def _adjacent(self, a: int, b: int) -> bool:
        polys = self.geo.polygons
        if polys is None:
            return False
        return bool(set(_edges(polys[a])) & set(_edges(polys[b])))

    def _binary(self, kind: str, a: int, b: int, kropki: bool) -> None:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle

        ax, geo = self.ax, self.geo
        (xa, ya), (xb, yb) = geo.centres[a], geo.centres[b]
        dx, dy = xb - xa, yb - ya
        dist = math.hypot(dx, dy) or 1.0
        ux, uy = dx / dist, dy / dist
        nx, ny = -uy, ux
        mx, my = (xa + xb) / 2, (ya + yb) / 2
        unit = min(geo.text, dist) if geo.style != "graph" else 0.5
        gid = f"{kind}-{a}-{b}"
        if not self._adjacent(a, b):
            # a curved connector, so that it passes beside the cells in between
            bend = 0.22 * dist
            cx, cy = mx + nx * bend, my + ny * bend
            ts = [k / 24 for k in range(25)]
            xs = [(1 - t) ** 2 * xa + 2 * (1 - t) * t * cx + t ** 2 * xb for t in ts]
            ys = [(1 - t) ** 2 * ya + 2 * (1 - t) * t * cy + t ** 2 * yb for t in ts]
            ax.add_artist(Line2D(xs, ys, color=INK, linewidth=self.thin, alpha=0.45, zorder=1.8,
                                 linestyle=(0, (2, 2)), gid=f"{gid}-link"))
            mx, my = mx + nx * bend / 2, my + ny * bend / 2
        if kind == "less":
            s = 0.17 * unit
            tip = (mx - ux * s * 0.5, my - uy * s * 0.5)  # the point faces the smaller cell a
            arm1 = (mx + ux * s * 0.5 + nx * s * 0.6, my + uy * s * 0.5 + ny * s * 0.6)
            arm2 = (mx + ux * s * 0.5 - nx * s * 0.6, my + uy * s * 0.5 - ny * s * 0.6)
            xs = [arm1[0], tip[0], arm2[0]]
            ys = [arm1[1], tip[1], arm2[1]]
            ax.add_artist(Line2D(xs, ys, color=INK, linewidth=self.thick * 0.8,
                                 solid_capstyle="round", solid_joinstyle="miter", zorder=4,
                                 gid=gid))
        elif kind == "consecutive" and not kropki:
            s = 0.26 * unit
            xs = [mx - nx * s, mx + nx * s]
            ys = [my - ny * s, my + ny * s]
            ax.add_artist(Line2D(xs, ys, color=INK, linewidth=self.thick * 1.6,
                                 solid_capstyle="butt", zorder=4, gid=gid))
        elif kind in ("consecutive", "ratio"):
            face = "white" if kind == "consecutive" else INK
            ax.add_artist(Circle((mx, my), 0.09 * unit, facecolor=face, edgecolor=INK,
                                 linewidth=self.thin * 1.4, zorder=4, gid=gid))
        elif kind in implied_kinds():
            s = 0.05 * unit
            xs = [mx - s, mx + s, math.nan, mx - s, mx + s]
            ys = [my - s, my + s, math.nan, my + s, my - s]
            ax.add_artist(Line2D(xs, ys, color="#808080", linewidth=self.thin * 1.2, zorder=4,
                                 gid=gid))
        else:
            ax.text(mx, my, kind[:3], ha="center", va="center", fontsize=max(5.0, 0.16 * self.pt),
                    zorder=4, gid=gid,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": INK,
                          "linewidth": self.thin})

    def _cage(self, k: int, cells: Sequence[int], total: int | None) -> None:
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

        geo, ax = self.geo, self.ax
        label = "" if total is None else str(total)
        size = max(5.0, 0.22 * geo.text * self.pt)
        dashes = (0, (3, 2))
        if geo.style == "grid":
            cols = geo.extra["cols"]
            segs = _cage_segments(cells, cols, 0.1)
            ax.add_collection(LineCollection(segs, colors=INK, linewidths=self.thin * 1.3,
                                             linestyles=[dashes], zorder=3.5, gid=f"cage-{k}"),
                              autolim=False)
            first = min(cells)
            r, c = divmod(first, cols)
            x, y = c + 0.05, r + 0.04
        else:
            pts = [geo.centres[c] for c in cells]
            cx = sum(p[0] for p in pts) / len(pts)
            cy = sum(p[1] for p in pts) / len(pts)
            pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
            xs = [p[0] for p in pts] + [pts[0][0]]
            ys = [p[1] for p in pts] + [pts[0][1]]
            ax.add_artist(Line2D(xs, ys, color=INK, linewidth=self.thin * 1.3, linestyle=dashes,
                                 zorder=3.5, gid=f"cage-{k}"))
            x, y = geo.centres[min(cells, key=lambda c: (geo.centres[c][1], geo.centres[c][0]))]
            y -= 0.3 * geo.text
        if label:
            ax.text(x, y, label, ha="left", va="top", fontsize=size, zorder=5, gid=f"cage-sum-{k}",
                    bbox={"boxstyle": "square,pad=0.08", "facecolor": "white",
                          "edgecolor": "none"})

    def _hyper(self, k: int, kind: str, cells: Sequence[int]) -> None:
        from matplotlib.lines import Line2D

        pts = [self.geo.centres[c] for c in cells]
        xs, ys = zip(*pts, strict=True)
        self.ax.add_artist(Line2D(xs, ys, color="#6a3d9a", linewidth=self.thin * 2, alpha=0.7,
                                  zorder=3.5, gid=f"{kind}-{k}"))

    # ------------------------------------------------------------ values
    def values(self, values: Sequence[Label] | None,
               lists: Mapping[int, Sequence[Label]] | None) -> None:
        board, geo, ax = self.board, self.geo, self.ax
        clues = board.clue_map
        widest = max(len(str(v)) for v in board.values)
        size = 0.58 * geo.text * self.pt * min(1.0, 1.55 / max(1, widest))
        if geo.style == "graph":
            size = 0.5 * geo.text * self.pt * min(1.0, 1.55 / max(1, widest))
        dy = 0.02 * geo.text  # digits look centred a little below the middle
        for cell in range(board.n_cells):
            x, y = geo.centres[cell]
            if cell in clues:
                ax.text(x, y + dy, str(clues[cell]), ha="center", va="center", fontsize=size,
                        fontweight="bold", color=INK, zorder=5, gid=f"given-{cell}")
            elif values is not None:
                ax.text(x, y + dy, str(values[cell]), ha="center", va="center", fontsize=size,
                        color=SOLVED, zorder=5, gid=f"solved-{cell}")
            elif lists is not None and cell in lists:
                self._candidates(cell, lists[cell])

    def _candidates(self, cell: int, labels: Sequence[Label]) -> None:
        board, geo, ax = self.board, self.geo, self.ax
        x, y = geo.centres[cell]
        values = list(board.values)
        widest = max(len(str(v)) for v in values)
        if geo.style in ("grid", "rows"):
            m = math.ceil(math.sqrt(len(values)))
            size = 0.78 * self.pt / m * min(1.0, 1.5 / max(1, widest))
            for label in labels:
                i = values.index(label)
                sr, sc = divmod(i, m)
                px = x - 0.5 + 0.06 + (sc + 0.5) * 0.88 / m
                py = y - 0.5 + 0.06 + (sr + 0.5) * 0.88 / m
                ax.text(px, py, str(label), ha="center", va="center", fontsize=size,
                        color=CANDIDATE, zorder=5, gid=f"candidate-{cell}-{i}")
            return
        per_line = max(1, math.ceil(math.sqrt(len(values))) - 1)
        size = 0.55 * geo.text * self.pt / (per_line + 0.5) * min(1.0, 1.5 / max(1, widest))
        n_lines = max(1, math.ceil(len(labels) / per_line))
        for k, label in enumerate(labels):
            i = values.index(label)
            line, pos = divmod(k, per_line)
            in_line = min(per_line, len(labels) - line * per_line)
            px = x + (pos - (in_line - 1) / 2) * size / self.pt * 1.2
            py = y + (line - (n_lines - 1) / 2) * size / self.pt * 1.15
            ax.text(px, py, str(label), ha="center", va="center", fontsize=size,
                    color=CANDIDATE, zorder=5, gid=f"candidate-{cell}-{i}")


def _edges(poly: Sequence[Point]) -> list[tuple[Point, Point]]:
    """The sides of a polygon, each as a sorted pair of rounded end points."""
    return [_edge_key(poly[k], poly[(k + 1) % len(poly)]) for k in range(len(poly))]


def _edge_key(p: Point, q: Point) -> tuple[Point, Point]:
    a = (round(p[0], 6), round(p[1], 6))
    b = (round(q[0], 6), round(q[1], 6))
    return (a, b) if a <= b else (b, a)


def _stripe_end(direction: str, idx: int, rows: int) -> Point:
    """Where the letter of a stripe goes: rows on the left side, stripes parallel to
    the left side on the right side, stripes parallel to the right side on the base."""
    gap = 0.42
    if direction == "row":
        return -(idx + 0.5) / 2 - gap, (idx + 0.5) * TRI_H
    if direction == "left":
        return (idx + 0.5) / 2 + gap, (idx + 0.5) * TRI_H
    i = rows - 1 - idx
    return -rows / 2 + i + 0.5, rows * TRI_H + gap * 0.8


def _cage_segments(cells: Sequence[int], cols: int, d: float) -> list[list[Point]]:
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


# ------------------------------------------------------------------ files
def format_of(path: str | os.PathLike[str]) -> str:
    """The picture format of an output file name (``svg``, ``png`` or ``pdf``).

    Raises:
        UsageError: for another ending, a directory, or a file in a missing directory.
    """
    target = os.fspath(path)
    if os.path.isdir(target):
        raise UsageError(f"{target} is a directory; give a file name for the picture")
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {target}: no such directory {folder}")
    ext = os.path.splitext(target)[1].lower()
    if ext not in FORMATS:
        raise UsageError(f"cannot tell the picture format of {os.fspath(path)!r}: "
                         f"name it {', '.join('*' + e for e in FORMATS)}")
    return FORMATS[ext]


def to_bytes(board: Board, format: str = "svg", *, dpi: int | None = None, **options: Any) -> bytes:
    """The picture of a board as file contents.

    Args:
        board: The board.
        format: ``svg``, ``png`` or ``pdf``.
        dpi: Resolution of a PNG (default :data:`DEFAULT_DPI`); vector formats take none.
        **options: Passed to :func:`figure` (``values``, ``result``, ``candidates``, ``caption``).
    """
    if format not in FORMATS.values():
        raise UsageError(f"unknown picture format {format!r}; choose one of "
                         f"{', '.join(FORMATS.values())}")
    if dpi is not None and format != "png":
        raise UsageError(f"--dpi applies to PNG pictures only, not {format.upper()}")
    if dpi is not None and not 10 <= dpi <= 2400:
        raise UsageError(f"--dpi must be between 10 and 2400, got {dpi}")
    fig = figure(board, **options)
    return _save_figure(fig, format, dpi or DEFAULT_DPI)


def _save_figure(fig: Figure, format: str, dpi: int) -> bytes:
    import matplotlib

    buf = io.BytesIO()
    metadata: dict[str, Any] = {"svg": {"Date": None}, "pdf": {"CreationDate": None},
                                "png": {}}[format]
    with matplotlib.rc_context({"svg.hashsalt": "futocp", "svg.fonttype": "path"}):
        fig.savefig(buf, format=format, dpi=dpi, facecolor="white", metadata=metadata)
    return buf.getvalue()


def to_svg(board: Board, **options: Any) -> str:
    """The SVG text of a board's picture (options as :func:`figure`)."""
    return to_bytes(board, "svg", **options).decode("utf-8")


def save(board: Board, path: str | os.PathLike[str], *, format: str | None = None,
         dpi: int | None = None, **options: Any) -> None:
    """Write a board's picture to ``path``, atomically (temporary file + rename).

    The format comes from the file name unless given. A new file gets the
    ordinary mode (the umask applies); an existing file keeps its mode.

    Raises:
        UsageError: for an unknown format, a missing directory or a directory as target.
    """
    fmt = format or format_of(path)
    data = to_bytes(board, fmt, dpi=dpi, **options)
    write_bytes_atomic(path, data)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` atomically (:func:`futocp.formats.base.atomic_write`)."""
    from .formats.base import atomic_write

    atomic_write(path, data)


# ------------------------------------------------------------------ notebooks
class Picture:
    """A board's picture that notebooks display (SVG); also saves itself.

    Example:
        >>> from futocp.families import latin_square
        >>> pic = Picture(latin_square(2, [[1, 0], [0, 0]]), candidates=True)
        >>> pic._repr_svg_().count('id="candidate-')
        3
    """

    def __init__(self, board: Board, values: Sequence[Label] | None = None, *,
                 result: Result | None = None, candidates: bool = False,
                 caption: str | None = None) -> None:
        self.board = board
        self.options: dict[str, Any] = {"values": values, "result": result,
                                         "candidates": candidates, "caption": caption}

    def figure(self) -> Figure:
        """The matplotlib Figure."""
        return figure(self.board, **self.options)

    def to_bytes(self, format: str = "svg", dpi: int | None = None) -> bytes:
        """The file contents in a format."""
        return to_bytes(self.board, format, dpi=dpi, **self.options)

    def save(self, path: str | os.PathLike[str], dpi: int | None = None) -> None:
        """Write the picture (format by the file name), atomically."""
        save(self.board, path, dpi=dpi, **self.options)

    def _repr_svg_(self) -> str:
        return self.to_bytes("svg").decode("utf-8")


#: Boards with more cells than this are not drawn by the notebook hooks (too slow to
#: be a useful default display; :func:`figure` and :func:`save` draw them).
NOTEBOOK_MAX_CELLS = 2500


def notebook_svg(board: Board, **options: Any) -> str | None:
    """The SVG a notebook shows for a board (``Board._repr_svg_``), or None when
    matplotlib is missing or the board is very large (the notebook shows text)."""
    if board.n_cells > NOTEBOOK_MAX_CELLS:
        return None
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # pragma: no cover
        return None
    return to_svg(board, **options)


def result_html(result: Result) -> str:
    """A Result as HTML: one line of status and counts, and its picture when it knows
    its board (``result.board``)."""
    import html

    status = getattr(result.status, "value", str(result.status))
    wall = result.stats.get("wall_s", result.stats.get("solve_s"))
    parts = [f"<b>{html.escape(result.backend or 'result')}</b>: {html.escape(status)}",
             f"{result.n_solutions} solution{'s' if result.n_solutions != 1 else ''}"
             + (" (all)" if result.exhausted else "")]
    if isinstance(wall, (int, float)):
        parts.append(f"{wall:.3f} s")
    out = "<div><p>" + ", ".join(parts) + "</p>"
    board = getattr(result, "board", None)
    if board is not None:
        svg = notebook_svg(board, result=result) or ""
        out += svg[svg.find("<svg"):] if svg else ""  # inline: without the XML prologue
    return out + "</div>"
