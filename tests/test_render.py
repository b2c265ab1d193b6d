"""Pictures (futocp.render, futocp render): every family draws, and the drawing has the
board's structure -- one cell per cell, one sign per relation at the right place --
checked through the ids the SVG keeps and the figure's artists, and on a PNG by where
its dark pixels are, never by comparing pixels to a stored image."""

from __future__ import annotations

import io
import math
import os
import stat
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.image import imread  # noqa: E402

from futocp import formats, render, render_kinds  # noqa: E402
from futocp.api import solve  # noqa: E402
from futocp.board import Board  # noqa: E402
from futocp.cli import main  # noqa: E402
from futocp.families import futoshiki, get_family, latin_square, list_families, sudoku  # noqa: E402
from futocp.relations import Relation  # noqa: E402
from futocp.result import Result, Status  # noqa: E402
from futocp.verify import verify  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"
SVG_NS = "{http://www.w3.org/2000/svg}"


# ------------------------------------------------------------------ helpers
def family_board(name: str) -> Board:
    """A shipped instance of the family (instances/<family>/), else its empty board."""
    folder = INSTANCES / name
    for path in sorted(folder.glob("*")) if folder.is_dir() else ():
        try:
            board = formats.read(path)
        except Exception:  # noqa: BLE001 - a file of another format: try the next one
            continue
        if board.kind == name:
            return board
    return get_family(name).template()


def svg_ids(svg: str | bytes) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    return [el.get("id") for el in root.iter() if el.get("id")]


def png_pixels(data: bytes):
    img = imread(io.BytesIO(data), format="png")
    return img[..., :3].mean(axis=2)  # grey levels, 0 black .. 1 white


def artists(fig, gid: str):
    ax = fig.axes[0]
    return [a for a in ax.get_children() if a.get_gid() == gid]


def centre(board: Board, cell: int) -> tuple[float, float]:
    r, c = board.coords(cell)
    return c + 0.5, r + 0.5


# ------------------------------------------------------------------ every family
FAMILIES = [fam.name for fam in list_families()]


@pytest.mark.parametrize("name", FAMILIES)
def test_every_family_renders_to_svg_and_png(name: str) -> None:
    board = family_board(name)
    svg = render.to_bytes(board, "svg")
    ids = svg_ids(svg)
    cells = [i for i in ids if i.startswith("cell-") and i[5:].isdigit()]
    assert sorted(int(i[5:]) for i in cells) == list(range(board.n_cells))
    for cell in board.clue_map:
        assert f"given-{cell}" in ids
    png = png_pixels(render.to_bytes(board, "png", dpi=40))
    assert png.size > 0 and png.min() < 0.2 and png.max() > 0.95  # ink on a white page
    pdf = render.to_bytes(board, "pdf")
    assert pdf.startswith(b"%PDF")


def test_general_board_is_a_labelled_graph() -> None:
    board = Board(n_cells=6, asterisms=[(0, 1, 2), (3, 4, 5), (0, 3, 5), (1, 2, 4)],
                  labels=(1, 2, 3), clues=[(0, 1)], relations=[Relation("less", (1, 2))])
    fig = render.figure(board)
    ids = svg_ids(render.to_svg(board))
    assert [f"cell-{c}" in ids for c in range(6)] == [True] * 6
    assert [f"asterism-{j}" in ids for j in range(4)] == [True] * 4
    assert "less-1-2" in ids and "given-0" in ids
    # cells as nodes on a circle
    radii = {round(math.hypot(*artists(fig, f"cell-{c}")[0].center), 6) for c in range(6)}
    assert len(radii) == 1


def test_triangle_families_draw_triangles_and_name_their_stripes() -> None:
    for name in ("latin-triangle", "canario"):
        board = family_board(name)
        fig = render.figure(board)
        for cell in range(board.n_cells):
            (patch,) = artists(fig, f"cell-{cell}")
            assert len(patch.get_xy()) in (3, 4)  # a triangle (closed: 4 points)
        ids = svg_ids(render.to_svg(board))
        for j in range(len(board.asterisms)):
            assert sum(1 for i in ids if i.startswith(f"asterism-{j}-")) == 2  # a pair of stripes


# ------------------------------------------------------------------ Futoshiki structure
def small_futoshiki() -> Board:
    return futoshiki(4, [[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]],
                     less=[((0, 0), (0, 1)), ((0, 3), (0, 2)), ((1, 0), (2, 0)),
                           ((3, 1), (2, 1)), ((2, 2), (2, 3))])


def test_futoshiki_svg_has_one_cell_per_cell_and_one_sign_per_inequality() -> None:
    board = small_futoshiki()
    ids = svg_ids(render.to_svg(board))
    assert sorted(i for i in ids if i.startswith("cell-")) == sorted(f"cell-{c}" for c in range(16))
    signs = sorted(i for i in ids if i.startswith("less-"))
    assert signs == sorted(f"less-{a}-{b}" for a, b in board.less)
    assert len(ids) == len(set(ids))  # ids are unique
    assert {i for i in ids if i.startswith("given-")} == {"given-5", "given-15"}


def test_futoshiki_signs_sit_on_the_shared_edge_and_point_at_the_smaller_cell() -> None:
    board = small_futoshiki()
    fig = render.figure(board)
    for a, b in board.less:
        (line,) = artists(fig, f"less-{a}-{b}")
        xs, ys = line.get_data()
        arm1, tip, arm2 = zip(xs, ys, strict=True)
        (xa, ya), (xb, yb) = centre(board, a), centre(board, b)
        mid = ((xa + xb) / 2, (ya + yb) / 2)  # the middle of the shared edge
        sx, sy = sum(xs) / 3, sum(ys) / 3
        assert math.dist((sx, sy), mid) < 0.15
        # the point of the sign faces the smaller cell: '<' '>' '∧' '∨' oriented correctly
        assert math.dist(tip, (xa, ya)) < math.dist(tip, (xb, yb))
        assert math.dist(arm1, (xb, yb)) < math.dist(arm1, (xa, ya))
        assert math.dist(arm2, (xb, yb)) < math.dist(arm2, (xa, ya))
    # (0,0) < (0,1): '<' points left; (3,1) < (2,1): the point faces down ('∨')
    (lt,) = artists(fig, "less-0-1")
    assert lt.get_data()[0][1] < min(lt.get_data()[0][0], lt.get_data()[0][2])
    (down,) = artists(fig, f"less-{board.cell(3, 1)}-{board.cell(2, 1)}")
    assert down.get_data()[1][1] > max(down.get_data()[1][0], down.get_data()[1][2])


def test_futoshiki_png_has_its_grid_lines_and_signs_where_expected() -> None:
    board = small_futoshiki().with_clues({})
    fig = render.figure(board)
    dpi = 100
    img = png_pixels(render._save_figure(fig, "png", dpi))
    height = img.shape[0]
    trans = fig.axes[0].transData
    scale = dpi / fig.dpi  # the figure's transforms are at fig.dpi

    def pixel(x: float, y: float) -> tuple[int, int]:
        px, py = trans.transform((x, y))
        return int(round(py * scale)), int(round(px * scale))

    def darkest(x: float, y: float, r: int = 3) -> float:
        row, col = pixel(x, y)
        return float(img[height - row - r:height - row + r + 1, col - r:col + r + 1].min())

    rows, cols = board.shape
    signed = {tuple(sorted(p)) for p in board.less}
    for cell in range(board.n_cells):
        r, c = board.coords(cell)
        for other in ([cell + 1] if c < cols - 1 else []) + ([cell + cols] if r < rows - 1 else []):
            (xa, ya), (xb, yb) = centre(board, cell), centre(board, other)
            ink = darkest((xa + xb) / 2, (ya + yb) / 2)
            if (cell, other) in signed:
                assert ink < 0.2, (cell, other)      # a black sign
            else:
                assert ink > 0.3, (cell, other)      # only the grey grid line
    # one vertical line per column boundary along a scan line through the first row
    row, _ = pixel(0, 0.15)
    line = img[height - row] < 0.75
    runs = sum(1 for k in range(1, len(line)) if line[k] and not line[k - 1]) + int(line[0])
    assert runs == cols + 1


# ------------------------------------------------------------------ relation kinds
def test_adjacent_bars_kropki_dots_and_implied_pairs() -> None:
    base = futoshiki(3)
    rels = [Relation("consecutive", (0, 1)), Relation("consecutive", (4, 7))]
    rels += [Relation("nonconsecutive", pair) for pair in
             [(1, 2), (3, 4), (4, 5), (6, 7), (7, 8), (0, 3), (1, 4), (2, 5), (3, 6), (5, 8)]]
    adjacent = replace(base, relations=rels)
    fig = render.figure(adjacent)
    (bar,) = artists(fig, "consecutive-0-1")
    xs, ys = bar.get_data()
    assert xs[0] == pytest.approx(1.0) and xs[1] == pytest.approx(1.0)  # across the shared edge
    ids = svg_ids(render.to_svg(adjacent))
    assert not any(i.startswith("nonconsecutive-") for i in ids)  # every pair marked: implied
    partial = replace(base, relations=[Relation("nonconsecutive", (0, 1))])
    assert "nonconsecutive-0-1" in svg_ids(render.to_svg(partial))

    kropki = replace(latin_square(4), relations=[Relation("consecutive", (0, 1)),
                                                 Relation("ratio", (1, 5))])
    fig = render.figure(kropki)
    (white,) = artists(fig, "consecutive-0-1")
    (black,) = artists(fig, "ratio-1-5")
    assert white.get_facecolor()[:3] == (1.0, 1.0, 1.0)
    assert black.get_facecolor()[:3] == (0.0, 0.0, 0.0)
    assert tuple(black.center) == pytest.approx((1.5, 1.0))


def test_killer_cages_are_dashed_inset_outlines_with_their_sums() -> None:
    board = sudoku(box=(2, 2))
    cages = [Relation("cage", (0, 1, 4), (("sum", 7),)), Relation("cage", (10, 11, 14, 15),
                                                                     (("sum", 10),))]
    board = replace(board, relations=cages)
    fig = render.figure(board)
    for k, rel in enumerate(board.relations_of("cage")):
        (outline,) = artists(fig, f"cage-{k}")
        assert outline.get_linestyle()[0][1] is not None  # dashed
        segs = outline.get_segments()
        ends: dict[tuple[float, float], int] = {}
        for seg in segs:
            for p in seg:
                key = (round(float(p[0]), 6), round(float(p[1]), 6))
                ends[key] = ends.get(key, 0) + 1
        assert all(k == 2 for k in ends.values())  # a closed outline
        for x, y in ends:  # inset: strictly inside the cells of the cage
            assert board.cell(int(y), int(x)) in rel.cells
        (text,) = artists(fig, f"cage-sum-{k}")
        assert text.get_text() == str(rel.param_map["sum"])
        first = min(rel.cells)
        r, c = board.coords(first)
        assert c < text.get_position()[0] < c + 0.5 and r < text.get_position()[1] < r + 0.5


def test_cage_outline_of_an_l_shape_turns_at_the_concave_corner() -> None:
    segs = render_kinds.cage_segments([0, 3, 4], 3, 0.1)  # cells (0,0), (1,0), (1,1)
    points = [p for seg in segs for p in seg]
    assert (0.9, 1.1) in [(round(x, 6), round(y, 6)) for x, y in points]  # the inner corner


# ------------------------------------------------------------------ Keen, Towers, Solo
KEEN_ID = "6:aa__a_15a__abaa_aa_b_a4_ba_,m12s2a7m8s3s1m6d3m72s1m6a8a7s1a5d3"
TOWERS_ID = "6:///1/////4////3/3/3/4//1//2/1//3/2,m1a3q1b"
KILLER_ID = ("3x3k:zzzc,_a___a________a___a____aaa_a_ba_b__aa____aa__aaaac_a____aa___aa_a_b___"
             "__aaaaa____a_a__a__a__a_aaaa_,9_18a9_14_11_6a11a14d23_12c13a14c12_3_14c4e12a22_"
             "13b11_7a21c8_7a11c3_15b9_14a5c15b9a7a12a17b")
X_ID = "3x3x:c5c4b1b9_2_5g3_8_7j2a6c7a4j6_2_7g4_3_2b8b3c9c"
JIGSAW_ID = ("9j:c5b1d3_6d9h5_5c8g4a3g7c3_3h6d2_7d6b8c,cbe__cb_d_aa__ba__b_dadbabgaeccaa__a___b_"
             "_bb_a_a_ead_bdb_")


def unit_segments(collection) -> set[tuple[tuple[float, float], tuple[float, float]]]:
    """The segments of a LineCollection cut into unit cell sides, as sorted end pairs."""
    out = set()
    for seg in collection.get_segments():
        (x0, y0), (x1, y1) = (tuple(round(float(v)) for v in p) for p in seg)
        steps = max(abs(x1 - x0), abs(y1 - y0))
        for k in range(steps):
            a = (x0 + (x1 - x0) * k // steps, y0 + (y1 - y0) * k // steps)
            b = (x0 + (x1 - x0) * (k + 1) // steps, y0 + (y1 - y0) * (k + 1) // steps)
            out.add((min(a, b), max(a, b)))
    return out


def inner_borders(board: Board, owner: dict[int, int]):
    """The unit sides between neighbouring cells of a grid that ``owner`` tells apart."""
    rows, cols = board.grid_shape
    out = set()
    for cell in range(board.n_cells):
        r, c = divmod(cell, cols)
        if c + 1 < cols and owner.get(cell, -1) != owner.get(cell + 1, -1):
            out.add(((c + 1, r), (c + 1, r + 1)))
        if r + 1 < rows and owner.get(cell, -1) != owner.get(cell + cols, -1):
            out.add(((c, r + 1), (c + 1, r + 1)))
    return out


def test_keen_cages_have_bold_borders_and_their_clues_in_the_first_cell() -> None:
    board = formats.loads(KEEN_ID, "keen")
    fig = render.figure(board)
    cages = board.relations_of("arith")
    (borders,) = artists(fig, "arith-borders")
    owner = {cell: k for k, rel in enumerate(cages) for cell in rel.cells}
    assert unit_segments(borders) == inner_borders(board, owner)  # none inside a cage
    assert borders.get_linewidth()[0] > artists(fig, "cell-0")[0].get_linewidth()  # bold
    labels = []
    for k, rel in enumerate(cages):
        (text,) = artists(fig, f"arith-{k}")
        labels.append(text.get_text())
        r, c = board.coords(min(rel.cells))
        x, y = text.get_position()
        assert c < x < c + 0.3 and r < y < r + 0.3  # the top-left corner of the first cell
    assert labels[:4] == ["12×", "2−", "7+", "8×"] and "3÷" in labels and "72×" in labels
    assert len(labels) == len(cages)


def test_a_one_cell_keen_cage_shows_its_number_alone() -> None:
    base = formats.loads("3dn:a_a3_a_,s1m6m3a3", "keen")
    cages = [Relation("arith", (0, 1), (("op", "-"), ("target", 1))),
             Relation("arith", (2,), (("op", "+"), ("target", 3))),
             Relation("arith", (3, 4, 5), (("op", "+"), ("target", 6))),
             Relation("arith", (6, 7, 8), (("op", "*"), ("target", 6)))]
    fig = render.figure(replace(base, relations=cages))
    assert [artists(fig, f"arith-{k}")[0].get_text() for k in range(4)] == ["1−", "3", "6+", "6×"]
    assert render_kinds.arith_label(cages[1]) == "3"


def test_towers_clues_stand_outside_the_grid_next_to_their_line() -> None:
    board = formats.loads(TOWERS_ID, "towers")
    n = board.grid_shape[0]
    fig = render.figure(board)
    ax = fig.axes[0]
    (x_lo, x_hi), (y_hi, y_lo) = ax.get_xlim(), ax.get_ylim()  # y points down
    clues = board.relations_of("visible")
    assert len(clues) == sum(1 for field in TOWERS_ID.split(":")[1].split(",")[0].split("/") if field)
    for k, rel in enumerate(clues):
        (text,) = artists(fig, f"visible-{k}")
        assert text.get_text() == str(rel.param_map["count"])
        x, y = text.get_position()
        assert x_lo < x < x_hi and y_lo < y < y_hi  # inside the picture
        (r0, c0), (r1, c1) = board.coords(rel.cells[0]), board.coords(rel.cells[1])
        if c0 == c1:  # a column's clue: above it (looking down) or below it
            assert x == pytest.approx(c0 + 0.5)
            assert (y < 0) if r1 > r0 else (y > n)
        else:  # a row's clue: left of it (looking right) or right of it
            assert y == pytest.approx(r0 + 0.5, abs=0.05)
            assert (x < 0) if c1 > c0 else (x > n)
    for cell, label in board.clue_map.items():  # the givens in their cells
        (text,) = artists(fig, f"given-{cell}")
        assert text.get_text() == str(label) and text.get_position()[0] == centre(board, cell)[0]


def test_towers_solution_is_drawn_in_the_cells() -> None:
    board = formats.loads(TOWERS_ID, "towers")
    result = solve(board)
    assert verify(board, result.solutions[0]) == []
    ids = set(svg_ids(render.to_svg(board, result=result)))
    assert {f"solved-{c}" for c in range(board.n_cells) if c not in board.clue_map} <= ids
    assert {f"visible-{k}" for k in range(len(board.relations))} <= ids


def test_solo_killer_cages_are_dashed_with_sums_inside_bold_boxes() -> None:
    board = formats.loads(KILLER_ID, "solo")
    assert board.kind == "killer-sudoku"
    fig = render.figure(board)
    cages = board.relations_of("cage")
    for k, rel in enumerate(cages):
        (outline,) = artists(fig, f"cage-{k}")
        assert outline.get_linestyle()[0][1] is not None  # dashed
        (text,) = artists(fig, f"cage-sum-{k}")
        assert text.get_text() == str(rel.param_map["sum"])
    (regions,) = artists(fig, "regions")
    boxes = {cell: (cell // 27) * 3 + cell % 9 // 3 for cell in range(81)}
    assert unit_segments(regions) == inner_borders(board, boxes)


def test_solo_x_shades_both_diagonals() -> None:
    board = formats.loads(X_ID, "solo")
    assert board.kind == "sudoku-x"
    fig = render.figure(board)
    diagonals = {tuple(range(0, 81, 10)), tuple(range(8, 73, 8))}
    shaded = []
    for j, ast in enumerate(board.asterisms):
        found = artists(fig, f"asterism-{j}")
        if tuple(sorted(ast)) in diagonals:
            (patch,) = found
            assert len(patch.get_paths()) == 9 and patch.get_facecolor()[0][3] > 0  # 9 tinted cells
            shaded.append(j)
        else:
            assert not found  # rows, columns and boxes are not tinted
    assert len(shaded) == 2


def test_solo_jigsaw_regions_have_bold_borders() -> None:
    board = formats.loads(JIGSAW_ID, "solo")
    assert board.kind == "jigsaw"
    fig = render.figure(board)
    lines = {frozenset(range(r * 9, r * 9 + 9)) for r in range(9)}
    lines |= {frozenset(range(c, 81, 9)) for c in range(9)}
    regions = [ast for ast in board.asterisms if frozenset(ast) not in lines]
    owner = {cell: k for k, ast in enumerate(regions) for cell in ast}
    (borders,) = artists(fig, "regions")
    assert unit_segments(borders) == inner_borders(board, owner)


def test_keen_and_towers_in_a_notebook_and_on_the_command_line(tmp_path: Path) -> None:
    keen = formats.loads(KEEN_ID, "keen")
    assert 'id="arith-borders"' in keen._repr_svg_()
    out = tmp_path / "towers.svg"
    assert main(["render", "--puzzle", TOWERS_ID, "--format", "towers", "-o", str(out)]) == 0
    assert "visible-10" in svg_ids(out.read_bytes())


# ------------------------------------------------------------------ solutions, candidates
def test_solution_givens_bold_solved_values_lighter() -> None:
    board = formats.read(INSTANCES / "futoshiki" / "5x5-tricky-01.json")
    result = solve(board)
    fig = render.figure(board, result=result)
    values = result.solutions[0]
    assert verify(board, values) == []
    for cell in range(board.n_cells):
        if cell in board.clue_map:
            (text,) = artists(fig, f"given-{cell}")
            assert text.get_fontweight() == "bold"
        else:
            (text,) = artists(fig, f"solved-{cell}")
            assert text.get_fontweight() != "bold" and text.get_color() == render.SOLVED
        assert text.get_text() == str(values[cell])


def test_unsat_result_is_said_in_a_caption() -> None:
    board = formats.read(INSTANCES / "futoshiki" / "5x5-unsat-duplicate.json")
    ids = svg_ids(render.to_svg(board, result=solve(board)))
    assert "caption" in ids and not any(i.startswith("solved-") for i in ids)


def test_candidates_are_the_filtered_lists() -> None:
    board = formats.read(INSTANCES / "sudoku" / "4x4-critical-01.sudoku")
    lists = render.candidate_lists(board)
    assert set(lists) == set(range(board.n_cells)) - set(board.clue_map)
    ids = set(svg_ids(render.to_svg(board, candidates=True)))
    expected = {f"candidate-{c}-{board.values.index(v)}" for c, vs in lists.items() for v in vs}
    assert {i for i in ids if i.startswith("candidate-")} == expected


def test_notebook_hooks() -> None:
    board = small_futoshiki()
    assert "less-0-1" in board._repr_svg_()
    result = solve(board)
    assert result.board is board  # solve attaches the board: the notebook shows the picture
    assert "solved-0" in result._repr_svg_() and "<svg" in result._repr_html_()
    result.board = None
    assert result._repr_svg_() is None  # no board: the notebook shows text
    assert "sat" in result._repr_html_()
    assert Result(Status.UNSAT, [], board=board) == Result(Status.UNSAT, [])


# ------------------------------------------------------------------ the command
def test_cli_render_svg_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(INSTANCES / "futoshiki" / "4x4-easy-01.json")]) == 0
    ids = svg_ids(capsys.readouterr().out)
    assert "cell-15" in ids and "less-1-0" in ids


@pytest.mark.parametrize("ext", ["svg", "png", "pdf"])
def test_cli_render_files(tmp_path: Path, ext: str) -> None:
    out = tmp_path / f"board.{ext}"
    extra = ["--dpi", "60"] if ext == "png" else []
    assert main(["render", str(INSTANCES / "sudoku" / "4x4-critical-01.sudoku"), "-o", str(out),
                 "--solution", *extra]) == 0
    data = out.read_bytes()
    if ext == "svg":
        ids = svg_ids(data)
        drawn = [i for i in ids if i.startswith(("solved-", "given-"))]
        assert len(drawn) == 16 and any(i.startswith("solved-") for i in drawn)
    elif ext == "png":
        img = png_pixels(data)
        assert img.min() < 0.2 and img.max() > 0.95
    else:
        assert data.startswith(b"%PDF")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left


def test_cli_render_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    out = tmp_path / "board.svg"
    out.write_text("old")
    out.chmod(0o640)
    assert main(["render", str(INSTANCES / "sudoku" / "4x4-critical-01.sudoku"), "-o",
                 str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and out.read_text().startswith("<?xml")


@pytest.mark.parametrize("args, message", [
    (["sudoku/9x9-critical-10.sudoku"], "--index"),
    (["sudoku/9x9-critical-10.sudoku", "--index", "11"], "outside 1..10"),
    (["sudoku/4x4-critical-01.sudoku", "-o", "{tmp}/missing/x.svg"], "no such directory"),
    (["sudoku/4x4-critical-01.sudoku", "-o", "{tmp}"], "is a directory"),
    (["sudoku/4x4-critical-01.sudoku", "-o", "{tmp}/x.jpg"], "*.svg"),
    (["sudoku/4x4-critical-01.sudoku", "-o", "{tmp}/x.svg", "--dpi", "100"], "PNG pictures only"),
    (["sudoku/4x4-critical-01.sudoku", "--backend", "cpsat"], "--solution only"),
])
def test_cli_render_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                           message: str) -> None:
    argv = ["render", str(INSTANCES / args[0])] + [a.replace("{tmp}", str(tmp_path))
                                                  for a in args[1:]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_render_a_puzzle_of_a_collection(capsys: pytest.CaptureFixture[str]) -> None:
    path = INSTANCES / "sudoku" / "9x9-critical-10.sudoku"
    assert main(["render", str(path), "--index", "3", "--candidates"]) == 0
    third = formats.read_many(path)[2]
    ids = svg_ids(capsys.readouterr().out)
    assert {i for i in ids if i.startswith("given-")} == {f"given-{c}" for c in third.clue_map}


def test_cli_render_takes_its_input_as_solve_does(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    line = ".2.43...2..34..1"
    assert main(["render", "--puzzle", line]) == 0
    assert "given-1" in svg_ids(capsys.readouterr().out)
    path = INSTANCES / "sudoku" / "9x9-critical-10.sudoku"
    monkeypatch.setattr(sys, "stdin", io.StringIO(path.read_text(encoding="utf-8")))
    assert main(["render", "-", "--index", "2"]) == 0
    second = formats.read_many(path)[1]
    ids = svg_ids(capsys.readouterr().out)
    assert {i for i in ids if i.startswith("given-")} == {f"given-{c}" for c in second.clue_map}
    monkeypatch.setattr(sys, "stdin", io.StringIO(path.read_text(encoding="utf-8")))
    assert main(["render", "-"]) == 2  # one picture: a collection needs --index
    err = capsys.readouterr().err
    assert err == ("futocp: error: standard input holds 10 puzzles and a picture shows one "
                   "puzzle: choose one with --index I (1..10)\n")
