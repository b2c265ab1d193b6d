"""Pictures of boards and solutions: SVG, PNG and PDF, drawn with matplotlib.

Every board family is drawn from its own geometry (:mod:`.render_geometry`):

* **grids** (Latin squares, Futoshiki, Keen, Towers, every Sudoku): one square
  per cell; a partition of the grid into connected asterisms (Sudoku boxes,
  Jigsaw regions) gets thick borders, and light colours when its regions are
  not rectangles; other asterisms (Sudoku-X diagonals, Hypersudoku windows)
  are tinted overlays; inscription cells are shaded;
* **triangle layouts** (seed 003's Latin triangle and Canario, ``layout_style:
  triangle`` in ``models/``): one small triangle per cell, up and down
  alternately, each row centred; every asterism that is a union of stripes is
  named by a letter at the ends of its stripes;
* **other layouts**: the layout rows, centred, one square per cell;
* **general boards** (no shape, no layout): a labelled graph, the cells as
  nodes on a circle and every asterism as a coloured hyperedge.

Relations are drawn by kind, one registered drawing per kind
(:mod:`.render_kinds`): Futoshiki's signs, the bars and dots of the adjacent
and Kropki puzzles, Killer cages as dashed outlines with their sums, Keen's
cages with bold borders and their ``12×`` clues, Towers' counts outside the
grid. Givens are bold, solved values lighter.

Every artist that stands for a part of the board has a ``gid`` that the SVG
keeps as an element ``id``: ``cell-C``, ``given-C``, ``solved-C``,
``candidate-C-V``, ``asterism-J`` (overlays and hyperedges), ``regions`` (the
thick borders), ``outline``, ``caption``, and the relations' ids
(:mod:`.render_kinds`: ``less-3-4``, ``cage-K``, ``arith-K``, ``visible-K``...).
Tests and other tools can find the parts of a picture by these ids instead of
by pixels.

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
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .board import Board, Label
from .errors import UsageError
from .render_geometry import (
    CANDIDATE,
    EMPTY_LIST,
    GRID,
    HYPEREDGE,
    INK,
    INSCRIPTION,
    OVERLAY_TINTS,
    SOLVED,
    STRIPE_INK,
    cell_sides,
    geometry,
    grid_structure,
    is_rectangle,
    region_colours,
    stripe_end,
)
from .render_kinds import Canvas, draw_relations, margin_of

if TYPE_CHECKING:  # pragma: no cover
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

    geo = geometry(board)
    xmin, xmax, ymin, ymax = geo.bounds
    m = max(geo.margin, margin_of(board) * geo.text)
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
    draw_relations(painter)
    painter.values(values, lists)
    if caption:
        ax.text((xmin + xmax) / 2, ymax + m + bottom_extra / 2, caption, ha="center",
                va="center", fontsize=max(7.0, 0.3 * geo.text * pt), color="#8e2c2c",
                gid="caption")
    return fig


class _Painter(Canvas):
    """Draws one board's cells, structure and values (its relations: :mod:`.render_kinds`)."""

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
            owner, extras = grid_structure(board)
            cols = geo.extra["cols"]
            blocks: dict[int, list[int]] = {}
            for cell, b in owner.items():
                blocks.setdefault(b, []).append(cell)
            if blocks and not all(is_rectangle(cells, cols) for cells in blocks.values()):
                tint = region_colours(owner, cols)
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

        segs = [list(key) for key, cells in cell_sides(self.geo).items() if len(cells) == 1]
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
                    x, y = stripe_end(direction, idx, rows)
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

    # ------------------------------------------------------------ values
    def values(self, values: Sequence[Label] | None,
               lists: Mapping[int, Sequence[Label]] | None) -> None:
        board, geo, ax = self.board, self.geo, self.ax
        clues = board.clue_map
        widest = max(len(str(v)) for v in board.values)
        size = 0.58 * geo.text * self.pt * min(1.0, 1.55 / max(1, widest))
        if geo.style == "graph":
            size = 0.5 * geo.text * self.pt * min(1.0, 1.55 / max(1, widest))
        for cell in range(board.n_cells):
            x, y = geo.centres[cell]
            # digits look centred a little below the middle; lower still under a corner label
            dy = (0.1 if cell in self.labelled and geo.style != "graph" else 0.02) * geo.text
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
            top, high = (0.27, 0.69) if cell in self.labelled else (0.06, 0.88)  # below a clue
            size = 0.78 * self.pt / m * min(1.0, 1.5 / max(1, widest), high / 0.8)
            for label in labels:
                i = values.index(label)
                sr, sc = divmod(i, m)
                px = x - 0.5 + 0.06 + (sc + 0.5) * 0.88 / m
                py = y - 0.5 + top + (sr + 0.5) * high / m
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
