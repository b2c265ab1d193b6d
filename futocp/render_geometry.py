"""Where the cells of a board's picture go, and the picture's palette.

A board is drawn from one of four geometries (:func:`geometry`): a **grid**
(one unit square per cell of a shaped board), a **triangle** layout (seed
003's Latin triangle and Canario), other layout **rows** (centred), or a
**graph** (cells on a circle) for a board with neither shape nor layout. The
grid helpers find the partition into boxes or regions that gets bold borders.
Coordinates are data units with y pointing down; a grid cell is the unit
square at ``(column, row)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import Board

__all__ = [
    "Point", "Geometry", "geometry", "grid_structure", "is_rectangle", "region_colours",
    "edges", "edge_key", "cell_sides", "stripe_end", "TRI_H",
    "INK", "GRID", "SOLVED", "CANDIDATE", "INSCRIPTION", "EMPTY_LIST", "REGION_TINTS",
    "OVERLAY_TINTS", "HYPEREDGE", "STRIPE_INK",
]

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
class Geometry:
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


def geometry(board: Board) -> Geometry:
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


def _grid_geometry(board: Board) -> Geometry:
    rows, cols = board.grid_shape
    centres: list[Point] = []
    polygons: list[list[Point]] = []
    for cell in range(board.n_cells):
        r, c = divmod(cell, cols)
        x, y = float(c), float(r)
        centres.append((x + 0.5, y + 0.5))
        polygons.append([(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)])
    scale = min(0.6, max(0.3, 7.5 / max(rows, cols)))
    return Geometry("grid", centres, polygons, 1.0, [0, cols, 0, rows], 0.3, scale,
                     extra={"rows": rows, "cols": cols})


def _is_triangle(layout: list[list[int]]) -> bool:
    return all(len(row) == 2 * r + 1 for r, row in enumerate(layout))


TRI_H = math.sqrt(3) / 2


def _triangle_geometry(layout: list[list[int]]) -> Geometry:
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
    return Geometry("triangle", centres, polygons, 0.5, [-rows / 2, rows / 2, 0, rows * TRI_H],
                     0.75, scale, layout=layout, extra={"place": place})


def _rows_geometry(layout: list[list[int]]) -> Geometry:
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
    return Geometry("rows", centres, polygons, 1.0, [0, width, 0, len(layout)], 0.3, scale,
                     layout=layout)


def _graph_geometry(board: Board) -> Geometry:
    n = board.n_cells
    radius = max(1.3, 1.15 * n / (2 * math.pi))
    centres = []
    for i in range(n):
        angle = math.pi / 2 - 2 * math.pi * i / n
        centres.append((radius * math.cos(angle), -radius * math.sin(angle)))
    scale = min(0.8, max(0.3, 7.0 / (2 * radius + 2)))
    return Geometry("graph", centres, None, 0.7, [-radius, radius, -radius, radius], 0.9, scale,
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


def grid_structure(board: Board) -> tuple[dict[int, int], list[int]]:
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


def is_rectangle(cells: Sequence[int], cols: int) -> bool:
    rs = [c // cols for c in cells]
    cs = [c % cols for c in cells]
    return (max(rs) - min(rs) + 1) * (max(cs) - min(cs) + 1) == len(cells)


def region_colours(owner: Mapping[int, int], cols: int) -> dict[int, str]:
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



# ------------------------------------------------------------------ edges
def edges(poly: Sequence[Point]) -> list[tuple[Point, Point]]:
    """The sides of a polygon, each as a sorted pair of rounded end points."""
    return [edge_key(poly[k], poly[(k + 1) % len(poly)]) for k in range(len(poly))]


def cell_sides(geo: Geometry) -> dict[tuple[Point, Point], list[int]]:
    """Every side of a cell polygon and the cells that have it (one on the border,
    two inside); empty for a graph."""
    sides: dict[tuple[Point, Point], list[int]] = {}
    for cell, poly in enumerate(geo.polygons or ()):
        for key in edges(poly):
            sides.setdefault(key, []).append(cell)
    return sides


def edge_key(p: Point, q: Point) -> tuple[Point, Point]:
    a = (round(p[0], 6), round(p[1], 6))
    b = (round(q[0], 6), round(q[1], 6))
    return (a, b) if a <= b else (b, a)


def stripe_end(direction: str, idx: int, rows: int) -> Point:
    """Where the letter of a stripe goes: rows on the left side, stripes parallel to
    the left side on the right side, stripes parallel to the right side on the base."""
    gap = 0.42
    if direction == "row":
        return -(idx + 0.5) / 2 - gap, (idx + 0.5) * TRI_H
    if direction == "left":
        return (idx + 0.5) / 2 + gap, (idx + 0.5) * TRI_H
    i = rows - 1 - idx
    return -rows / 2 + i + 0.5, rows * TRI_H + gap * 0.8

