"""Board families (models/*.yaml), their formats and every backend on every family.

Answers are checked with verify() and with solution counts known independently:
combinatorics (288 Sudoku grids of order 4, 576 Latin squares of order 4) or a
brute-force count over the board's own asterisms that shares no code with the
Model or the backends.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from futocp import formats
from futocp.backends import REGISTRY, get_backend
from futocp.board import Board
from futocp.cli import main
from futocp.errors import BoardError, InputError, UnsupportedError, UsageError
from futocp.families import (
    board_layout,
    family,
    futoshiki,
    get_family,
    jigsaw,
    latin_square,
    list_families,
    sudoku,
)
from futocp.formats.sudoku import parse_lines
from futocp.model import build_model
from futocp.puzzles import is_critical
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import ONE_BY_ONE, available_backends, backend_params

ROOT = Path(__file__).resolve().parent.parent
SUDOKU_DATA = ROOT / "instances" / "sudoku"
BACKENDS = backend_params()
COMPLETE = available_backends(complete_only=True)
REQUIRED = {"latin-square", "futoshiki", "sudoku", "hypersudoku", "jigsaw", "sudoku-x",
            "sudoku-ripeto", "custom-sudoku"}
JIGSAW_4 = [[1, 1, 2, 2], [1, 3, 3, 2], [1, 3, 4, 2], [3, 4, 4, 4]]


# ------------------------------------------------------------------ helpers
def supports(name: str, board: Board) -> bool:
    return not (build_model(board).features - REGISTRY[name].supported())


def solve_all(name: str, board: Board, limit: int | None = None):
    return get_backend(name).solve(build_model(board), limit=limit)


def check(board: Board, result) -> None:
    for sol in result.solutions:
        assert verify(board, sol) == [], sol


def puzzle_of(board: Board, backend: str = "cpsat", every: int = 3) -> Board:
    """A solution of ``board`` with every third cell kept as a clue (for round trips)."""
    result = get_backend(backend).solve(build_model(board), limit=1, time_limit=60, seed=5)
    sol = result.solutions[0]
    return board.with_clues([(c, v) for c, v in enumerate(sol)
                             if c % every == 0 or c in board.inscription])


# ------------------------------------------------------------------ families
def test_the_required_families_exist():
    names = {f.name for f in list_families()}
    assert REQUIRED <= names
    assert any(get_family(n).spec.get("cells") for n in names)  # a non-square board
    for fam in list_families():
        assert fam.description.endswith(".") and fam.description.count(". ") == 0
        assert get_family(fam.name) is fam


@pytest.mark.parametrize("fam", [f.name for f in list_families()])
def test_every_family_builds(fam):
    board = family(fam)
    assert board.kind == fam
    assert dict(board.params) == board.param_map and hash(board)
    assert all(len(a) == board.k for a in board.asterisms)
    covered = set().union(*board.asterisms)
    assert covered == set(range(board.n_cells))
    layout = board_layout(board)
    assert sorted(c for row in layout for c in row) == list(range(board.n_cells))


@pytest.mark.parametrize("box, n, asterisms", [((2, 2), 4, 12), ((2, 3), 6, 18), ((3, 3), 9, 27),
                                               ((4, 4), 16, 48), ((5, 5), 25, 75)])
def test_sudoku_sizes(box, n, asterisms):
    board = sudoku(box)
    assert board.shape == (n, n) and board.labels == tuple(range(1, n + 1))
    assert len(board.asterisms) == asterisms and board.param_map == {"box": box}
    assert sudoku(f"{box[0]}x{box[1]}") == board == family("sudoku", size=n) == \
        sudoku(givens=[[0] * n] * n)
    boxes = board.asterisms[2 * n:]
    assert boxes[0] == tuple(r * n + c for r in range(box[0]) for c in range(box[1]))


def test_wrappers_keep_their_behaviour():
    board = futoshiki(3, [[0, 0, 0], [0, 2, 0], [0, 0, 0]], less=[((0, 0), (0, 1))])
    assert board.kind == "futoshiki" and board.param_map == {"n": 3} and board.less == ((0, 1),)
    assert latin_square(4) == family("latin-square", n=4) == family("latin-square", size=4)
    with pytest.raises(BoardError, match="not neighbours"):
        futoshiki(3, less=[((0, 0), (2, 2))])
    assert latin_square(3, less=[((0, 0), (2, 2))]).less == ((0, 8),)
    with pytest.raises(BoardError, match="size must be a positive integer"):
        latin_square(0)


def test_hypersudoku_windows():
    board = family("hypersudoku")
    windows = board.asterisms[27:]
    assert len(windows) == 4
    assert windows[0] == tuple(r * 9 + c for r in (1, 2, 3) for c in (1, 2, 3))
    assert windows[3] == tuple(r * 9 + c for r in (5, 6, 7) for c in (5, 6, 7))
    assert family("quadoku") == board  # an alias


def test_sudoku_x_diagonals():
    board = family("sudoku-x", box="2x2")
    assert board.asterisms[-2:] == ((0, 5, 10, 15), (3, 6, 9, 12))


def test_latin_triangles_are_the_paired_stripes():
    """The explicit asterisms of the YAML files are the stripe pairs of the geometry."""
    for name, m in (("latin-triangle", 6), ("canario", 8)):
        board = family(name)
        assert board.shape is None and board.n_cells == m * m and board.k == 2 * m
        cells = [(r, j) for r in range(m) for j in range(2 * r + 1)]
        assert [len(row) for row in board_layout(board)] == [2 * r + 1 for r in range(m)]
        # a unit triangle (r, j) lies in row stripe r, left stripe j // 2 and right stripe
        # r - j // 2 - (1 if it points down, i.e. j odd)
        coords = [(r, j // 2, r - j // 2 - j % 2) for r, j in cells]
        expected = set()
        for d in range(3):
            for s in range(m // 2):
                expected.add(frozenset(i for i, x in enumerate(coords) if x[d] in (s, m - 1 - s)))
        assert {frozenset(a) for a in board.asterisms} == expected
        assert Counter(c for a in board.asterisms for c in a) == {c: 3 for c in range(m * m)}


def test_ripeto_and_custom_labels():
    ripeto = family("sudoku-ripeto")
    assert ripeto.labels == (1, 1, 1, 2, 2, 2, 3, 3, 3) and ripeto.values == (1, 2, 3)
    assert family("sudoku-ripeto", multiset="1,2,2,3,3,3,4,4,4").multiplicity == {1: 1, 2: 2, 3: 3, 4: 3}
    small = family("sudoku-ripeto", multiset=[1, 1, 2, 2])
    assert small.param_map["box"] == (2, 2)  # the size follows the multiset
    custom = family("custom-sudoku")
    assert custom.param_map == {"box": (2, 4), "word": "MAKIKAJI"}
    assert custom.multiplicity == {"A": 2, "I": 2, "J": 1, "K": 2, "M": 1}
    assert [custom.clue_map[32 + c] for c in range(8)] == list("MAKIKAJI")
    assert custom.inscription == frozenset(range(32, 40))
    wayne = family("custom-sudoku", word="WAYNEGOULD")
    assert wayne.param_map["box"] == (2, 5) and wayne.k == 10


def test_jigsaw_regions_of_any_ids():
    ids = [["x" if v == 1 else v for v in row] for row in JIGSAW_4]
    board = jigsaw(regions=ids)
    assert board.shape == (4, 4) and board.param_map["regions"][0] == ("x", "x", 2, 2)
    assert jigsaw(4, JIGSAW_4) == jigsaw(regions=JIGSAW_4)
    assert len(board.asterisms) == 12


@pytest.mark.parametrize("make, message", [
    (lambda: jigsaw(regions=[[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 4, 4, 4]]),
     "region 3 has 3 cells, expected 4"),
    (lambda: jigsaw(regions=[[1, 1, 2], [1, 1, 2], [3, 3, 4], [3, 4, 4]]), "row 0 has 3 cells"),
    (lambda: jigsaw(6), "give regions"),
    (lambda: family("sudoku", size=7), "no box"),
    (lambda: family("sudoku", size=9, box="2x3"), "size 9 does not match"),
    (lambda: family("sudoku", bogus=1), "no parameter 'bogus'"),
    (lambda: family("custom-sudoku", word="ABC", box="2x4"), "word has 3 labels"),
    (lambda: family("custom-sudoku", less=[((0, 0), (0, 1))]), "no inequalities"),
    (lambda: family("sudoku-ripeto", multiset="11a2"), "mixes integers and strings"),
    (lambda: family("custom-sudoku", givens=[[0] * 8] * 4 + [["A"] + [0] * 7] + [[0] * 8] * 3),
     "contradicts the inscription"),
    (lambda: Board(4, ((0, 1), (2, 3)), ("a", "b"), less=((0, 1),)), "integer labels"),
])
def test_family_errors(make, message):
    with pytest.raises(BoardError, match=message):
        make()


def test_unknown_family():
    with pytest.raises(UsageError, match="unknown family 'nope'"):
        family("nope")


# ------------------------------------------------------------------ every backend
@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("fam", [f.name for f in list_families()])
def test_empty_board_solves_with_every_backend(name, fam):
    board = family(fam)
    if not supports(name, board):
        missing = build_model(board).features - REGISTRY[name].supported()
        with pytest.raises(UnsupportedError, match=sorted(missing)[0]):
            get_backend(name).solve(build_model(board))
        return
    result = get_backend(name).solve(build_model(board), limit=1, time_limit=_limit(name))
    check(board, result)
    if _may_stall(name, result):
        return
    assert result.status is Status.SAT and result.n_solutions == 1
    for cell, label in board.clues:
        assert result.solutions[0][cell] == label


# The seeds' own searches are the papers' (static order, no learning: exponential on
# some boards) or incomplete: within a short limit they may answer unknown, never
# unsat nor a wrong solution. The other backends must solve every empty board.
PAPER_SEARCHES = ("bt", "fc", "mac", "colorfutoshiki", "anneal", "genetic")


def _limit(name: str) -> float | None:
    if name in PAPER_SEARCHES:
        return 2.0 if REGISTRY[name].complete else 1.0
    return None


def _may_stall(name: str, result) -> bool:
    if name in PAPER_SEARCHES and result.status is Status.UNKNOWN:
        return True
    assert result.status is not Status.UNKNOWN, name
    return False


@pytest.mark.parametrize("name", backend_params(slow=("smt",)))
def test_big_sudoku_solves(name):
    board = sudoku("4x4")
    result = get_backend(name).solve(build_model(board), limit=1, time_limit=_limit(name))
    check(board, result)
    if not _may_stall(name, result):
        assert result.status is Status.SAT


@pytest.mark.skipif("listcolor" not in COMPLETE, reason="listcolor is not available")
def test_sudoku_25_solves():
    board = sudoku("5x5")
    result = get_backend("listcolor").solve(build_model(board), limit=1)
    assert result.status is Status.SAT
    check(board, result)


@pytest.mark.parametrize("name", backend_params(slow=ONE_BY_ONE))
@pytest.mark.parametrize("board, expected", [
    (sudoku("2x2"), 288),
    (latin_square(4), 576),
    (sudoku("2x2", [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), 288 // 4),
], ids=["sudoku4", "latin4", "sudoku4-clue"])
def test_known_counts(name, board, expected):
    if "enumerate" not in REGISTRY[name].capabilities:
        pytest.skip(f"{name} does not enumerate")
    result = solve_all(name, board)
    assert result.n_solutions == expected and result.exhausted
    assert len(set(result.solutions)) == expected
    check(board, result)


SMALL_BOARDS = {
    "sudoku-x-4": lambda: family("sudoku-x", box="2x2"),
    "jigsaw-4": lambda: jigsaw(regions=JIGSAW_4),
    "ripeto-1122": lambda: family("sudoku-ripeto", multiset="1122"),
    "ripeto-112": lambda: family("sudoku-ripeto", box="1x3", multiset="112"),
    "custom-ABBA": lambda: family("custom-sudoku", word="ABBA"),
    "custom-ABCD": lambda: family("custom-sudoku", word="ABCD"),
    "sudoku-less": lambda: sudoku("2x2", less=[((0, 0), (3, 3)), ((1, 2), (0, 1))]),
}


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("key", list(SMALL_BOARDS))
def test_small_family_counts_match_brute_force(name, key):
    board = SMALL_BOARDS[key]()
    cls = REGISTRY[name]
    if not supports(name, board):
        with pytest.raises(UnsupportedError):
            get_backend(name).solve(build_model(board))
        return
    if "enumerate" not in cls.capabilities:
        pytest.skip(f"{name} does not enumerate")
    expected = brute_force_count(board)
    assert expected > 0
    result = solve_all(name, board)
    assert result.n_solutions == expected and result.exhausted
    check(board, result)


@pytest.mark.parametrize("name", BACKENDS)
def test_ripeto_board_keeps_its_multiplicities(name):
    board = family("sudoku-ripeto")
    if not supports(name, board):
        pytest.skip(f"{name} does not hold repeated labels")
    seed = 3 if "seed" in REGISTRY[name].capabilities else None
    result = get_backend(name).solve(build_model(board), limit=2, seed=seed,
                                     time_limit=_limit(name))
    check(board, result)
    for sol in result.solutions:
        for ast in board.asterisms:
            assert Counter(sol[c] for c in ast) == {1: 3, 2: 3, 3: 3}


@st.composite
def family_boards(draw):
    """A small random family board with random clues from a random solution."""
    key = draw(st.sampled_from(sorted(SMALL_BOARDS)))
    board = SMALL_BOARDS[key]()
    sols = solve_all("cpsat", board, limit=50).solutions
    sol = draw(st.sampled_from(sols))
    cells = draw(st.sets(st.integers(0, board.n_cells - 1), max_size=6))
    clues = {c: sol[c] for c in cells} | board.clue_map
    if draw(st.booleans()) and cells:  # sometimes a wrong clue: maybe unsatisfiable
        cell = min(cells)
        clues[cell] = draw(st.sampled_from(board.values))
        clues |= board.clue_map
    return board.with_clues(clues)


@pytest.mark.skipif(len(COMPLETE) < 2 or "cpsat" not in COMPLETE,
                    reason="needs cpsat and another complete backend")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family_boards())
def test_complete_backends_agree_on_family_boards(board):
    answers = {}
    for name in COMPLETE:
        if not supports(name, board) or "enumerate" not in REGISTRY[name].capabilities:
            continue
        result = solve_all(name, board, limit=20)
        assert result.ok
        check(board, result)
        answers[name] = (result.status.value, result.n_solutions)
    assert len(set(answers.values())) <= 1, answers


# ------------------------------------------------------------------ formats
@pytest.mark.parametrize("fam", [f.name for f in list_families()])
@pytest.mark.parametrize("fmt", ["json", "yaml", "text"])
def test_every_family_round_trips(fam, fmt):
    for board in (family(fam), puzzle_of(family(fam))):
        text = formats.dumps(board, fmt)
        assert formats.loads(text, fmt) == board
        assert formats.loads(text) == board  # detected by content


@pytest.mark.parametrize("fam, params", [
    ("sudoku", {}), ("sudoku", {"box": "2x3"}), ("sudoku", {"box": "4x4"}), ("sudoku", {"box": "2x4"}),
    ("sudoku-x", {}), ("hypersudoku", {}), ("sudoku-ripeto", {}), ("latin-square", {"n": 6}),
])
def test_sudoku_lines_round_trip(fam, params):
    board = puzzle_of(family(fam, **params))
    text = formats.dumps(board, "sudoku")
    assert formats.loads(text, "sudoku") == board
    assert formats.loads(text) == board
    assert ("#!" in text) == (fam != "sudoku")  # 2x4 is the default box of size 8
    sol = get_backend("cpsat").solve(build_model(board), limit=1).solutions[0]
    line = formats.format_solution(board, sol, "sudoku")
    assert formats.loads(line, "sudoku").clues == tuple(enumerate(sol))


def test_sudoku_16_uses_letters():
    board = puzzle_of(sudoku("4x4"))
    line = formats.dumps(board, "sudoku").strip()
    assert len(line) == 256 and set(line) <= set("123456789ABCDEFG.")
    assert formats.loads(line.lower(), "sudoku") == board


def test_jigsaw_lines_round_trip():
    board = puzzle_of(family("jigsaw"))
    text = formats.dumps(board, "jigsaw")
    assert len(text.splitlines()) == 2
    assert formats.loads(text, "jigsaw") == board == formats.loads(text)
    one_line = text.replace("\n", " ", 1)
    assert formats.loads(one_line, "jigsaw") == board
    numbered = jigsaw(regions=JIGSAW_4)  # integer ids are written as letters
    back = formats.loads(formats.dumps(numbered, "jigsaw"), "jigsaw")
    assert back.asterisms == numbered.asterisms and back.param_map["regions"][0] == ("A", "A", "B", "B")


def test_schema_documents():
    doc = {"kind": "sudoku", "size": 4, "box": [2, 2],
           "givens": [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]}
    board = formats.loads(json.dumps(doc), "json")
    assert board == sudoku((2, 2), doc["givens"])
    doc = {"kind": "jigsaw", "size": 4, "regions": JIGSAW_4, "givens": [[0] * 4] * 4}
    assert formats.loads(json.dumps(doc), "json") == jigsaw(regions=JIGSAW_4)
    doc = {"kind": "hypersudoku", "givens": [[0] * 9] * 9}
    assert formats.loads(json.dumps(doc), "json") == family("hypersudoku")
    doc = {"kind": "custom-sudoku", "word": "ABBA", "givens": [["A", 0, ".", None]] + [[0] * 4] * 3}
    board = formats.loads(json.dumps(doc), "json")
    assert board.clue_map[0] == "A" and board.param_map == {"box": (2, 2), "word": "ABBA"}


@pytest.mark.parametrize("text, fmt, where, message", [
    ('{"kind": "jigsaw", "size": 4,\n "regions": [[1,1,2,2],[1,1,2,2],[3,3,4,4],[3,4,4,4]]}',
     "json", "x:2:13", "region 3 has 3 cells, expected 4"),
    ('{"kind": "sudoku", "box": [2, 2],\n "givens": [[1,0,0,0],[0,0,0,0],[0,0,"A",0],[0,0,0,0]]}',
     "json", "x:2:38", "given 'A' at (2,2) is not a label"),
    ('kind: custom-sudoku\nless: [[[0, 0], [0, 1]]]\n', "yaml", "x:2:7", "unknown key 'less'"),
    ('kind: sudoku\nsize: 9\nbox: [2, 3]\n', "yaml", "x:2:7", "size 9 does not match"),
    # located by the BoardError's field (the parameter), not by its wording
    ('kind: sudoku-ripeto\nbox: [2, 2]\nmultiset: "112"\n', "yaml", "x:3:11",
     "multiset has 3 labels"),
    ("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"
     "52...6.........7.13...........4..8..6......5...........418.........3..2...87....\n",
     "sudoku", "x:2:81", "80 characters, expected 81"),
    ("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"
     "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....1\n",
     "sudoku", "x:2:82", "82 characters, expected 81"),
    ("  52...6.........7.13.....X.....4..8..6......5...........418.........3..2...87.....\n",
     "sudoku", "x:1:27", "'X' is not a label of a 9x9 puzzle"),
    ("1..4..3..2..4...\nAABBAABBCCDDCCDA\n", "jigsaw", "x:2:16", "region 'A' has 5 cells"),
    ("sudoku box=2x2\n1 . | . .\n. . | 5 .\n. . . .\n. . . .\n", "text", "x:3:7",
     "'5' is not a label"),
])
def test_format_errors_name_line_and_column(text, fmt, where, message):
    with pytest.raises(InputError) as info:
        formats.loads(text, fmt, source="x")
    assert str(info.value).startswith(where + ": "), str(info.value)
    assert message in str(info.value)


def test_sudoku_format_refuses_what_it_cannot_hold():
    with pytest.raises(UsageError, match="sudoku format"):
        formats.dumps(family("custom-sudoku"), "sudoku")
    with pytest.raises(UsageError, match="sudoku format"):
        formats.dumps(futoshiki(4, less=[((0, 0), (0, 1))]), "sudoku")
    with pytest.raises(UsageError, match="jigsaw format"):
        formats.dumps(sudoku(), "jigsaw")


def _data(name: str) -> Path:
    path = SUDOKU_DATA / name
    if not path.exists():
        pytest.skip(f"{name} not found under instances/sudoku")
    return path


def test_top95_is_a_collection():
    path = _data("top95.txt")
    boards = formats.read_many(path)
    assert len(boards) == 95
    assert all(b.kind == "sudoku" and b.shape == (9, 9) and 17 <= len(b.clues) <= 30 for b in boards)
    assert formats.read(path) == boards[0]
    assert boards[0].clue_map[0] == 4 and boards[0].clue_map[6] == 8


def test_tdoku_counts_and_solutions():
    path = _data("tdoku_test_puzzles.txt")
    entries = parse_lines(path.read_text(), str(path))
    assert len(entries) == 43 and all(e.count is not None for e in entries)
    by_count = {}
    for e in entries:
        by_count.setdefault(e.count, e)
    cpsat = get_backend("cpsat")
    for count, e in sorted(by_count.items()):
        if count > 20:
            continue
        result = cpsat.solve(build_model(e.board), limit=count + 1, time_limit=60)
        assert result.n_solutions == count, (e.line, count)
        check(e.board, result)
        if e.solution is not None:
            assert result.solutions == [e.solution]


# ------------------------------------------------------------------ the gallery
GALLERY = json.loads((ROOT / "instances" / "gallery.json").read_text())


@pytest.mark.parametrize("rel", sorted(GALLERY))
def test_gallery_puzzles_are_unique_and_critical(rel):
    entry = GALLERY[rel]
    boards = formats.read_many(ROOT / "instances" / rel)
    assert len(boards) == len(entry["puzzles"]) and {b.kind for b in boards} == {entry["family"]}
    for board, record in zip(boards, entry["puzzles"], strict=True):
        assert len(board.clues) - len(board.inscription) == record["clues"]
        result = get_backend("cpsat").solve(build_model(board), limit=2)
        assert result.n_solutions == 1 and result.exhausted
        check(board, result)
        if board.n_cells <= 100:  # the 16x16 one is checked by scripts/make_gallery.py --check
            assert is_critical(board) is True


def test_families_doc_is_current():
    """docs/families.md is what scripts/make_gallery.py --docs writes today."""
    spec = importlib.util.spec_from_file_location("make_gallery", ROOT / "scripts" / "make_gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.render_docs(GALLERY)
    assert (ROOT / "docs" / "families.md").read_text() == expected, \
        "docs/families.md is stale: run python scripts/make_gallery.py --docs"


# ------------------------------------------------------------------ command line
def test_cli_families_and_new(capsys):
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    for name in REQUIRED:
        assert f"\n{name} " in "\n" + out
    assert main(["families", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {f["name"] for f in listed} >= REQUIRED
    assert main(["new", "sudoku", "--param", "box=2x3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "sudoku" and doc["size"] == 6 and doc["box"] == [2, 3]
    assert main(["new", "custom-sudoku", "--to", "text"]) == 0
    assert "M A K I | K A J I" in capsys.readouterr().out
    assert main(["new", "sudoku", "--param", "box=two"]) == 2
    assert "box must be rows x cols" in capsys.readouterr().err


def test_cli_solves_a_collection(tmp_path, capsys):
    lines = [formats.dumps(puzzle_of(sudoku("2x2"), every=2), "sudoku").strip(),
             "12..12..........", "1...............", "....2.3........."]
    path = tmp_path / "four.txt"
    path.write_text("# a collection\n" + "\n".join(lines) + "\n")
    assert main(["solve", str(path), "--backend", "cpsat", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in out["instances"]] == ["sat", "unsat", "sat", "sat"]
    assert out["instances"][0]["instance"] == f"{path}#1"
    summary = out["summary"]
    assert summary["instances"] == 4 and summary["sat"] == 3 and summary["unsat"] == 1
    assert summary["failed_verification"] == 0 and summary["puzzles_per_s"] > 0
    for record in out["instances"]:
        assert record["verified"] and len(record["solutions"]) == record["n_solutions"]
    assert main(["solve", str(path), "--backend", "cpsat"]) == 0
    text = capsys.readouterr().out
    assert "4 instances, backend cpsat: 3 sat, 1 unsat, 0 unknown, 0 failed verification" in text


@pytest.mark.parametrize("fam", [f.name for f in list_families()])
def test_cli_shows_every_family(tmp_path, capsys, fam):
    path = tmp_path / "b.json"
    formats.write(puzzle_of(family(fam)), path)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(fam) and f"{fam}: " in out


# ------------------------------------------------------------------ relation families
RELATION_FAMILIES = {"futoshiki-adjacent", "kropki", "kropki-sudoku", "killer-sudoku"}


def test_relation_families_and_their_modes():
    assert RELATION_FAMILIES <= {f.name for f in list_families()}
    adj = get_family("futoshiki-adjacent")
    assert adj.relation_mode("consecutive") == adj.relation_mode("nonconsecutive") == "neighbours"
    assert adj.completes({"n": 5}) and get_family("adjacent") is adj
    assert get_family("futoshiki").relation_mode("less") == "neighbours"
    assert get_family("futoshiki").relation_mode("cage") == "any"  # the default for every kind
    assert get_family("custom-sudoku").relation_mode("less") == "none"
    assert get_family("killer-sudoku").relation_mode("cages") == "neighbours"  # a key names its kind
    kro = get_family("kropki")
    assert not kro.completes({"n": 6, "complete": False}) and kro.completes({"n": 6, "complete": True})


def test_complete_rules_derive_the_unmarked_pairs():
    from futocp.families import derived_relations, explicit_relations, futoshiki_adjacent, kropki
    adj = futoshiki_adjacent(3, consecutive=[((0, 0), (0, 1)), ((1, 1), (2, 1))])
    assert [str(r) for r in explicit_relations(adj)] == ["consecutive(0, 1)", "consecutive(4, 7)"]
    assert len(derived_relations(adj)) == 12 - 2
    assert {r.kind for r in derived_relations(adj)} == {"nonconsecutive"}
    assert futoshiki_adjacent(3) == family("futoshiki-adjacent", n=3)
    assert len(futoshiki_adjacent(3).relations) == 12
    plain = kropki(4, white=[((0, 0), (0, 1))], black=[((0, 1), (1, 1))])
    assert [r.kind for r in plain.relations] == ["consecutive", "ratio"]
    full = kropki(4, white=[((0, 0), (0, 1))], black=[((0, 1), (1, 1))], complete=True)
    assert len(full.relations) == 24 and len(derived_relations(full)) == 22
    assert {r.kind for r in derived_relations(full)} == {"nodot"}
    boxed = kropki(white=[((0, 0), (0, 1))], box="2x2", complete=True)
    assert boxed.kind == "kropki-sudoku" and len(boxed.asterisms) == 12
    assert len(boxed.relations) == 24


def test_build_takes_relations_in_every_form():
    from futocp.relations import Relation
    by_coords = family("killer-sudoku", box="2x2", relations=[("cage", [(0, 0), (0, 1)], {"sum": 3})])
    by_key = family("killer-sudoku", box="2x2", relations=[("cages", [(0, 0), (0, 1)], {"sum": 3})])
    by_record = family("killer-sudoku", box="2x2",
                       relations=[Relation("cage", (0, 1), (("sum", 3),))])
    assert by_coords == by_key == by_record
    assert by_coords.relations == (Relation("cage", (0, 1), (("sum", 3),)),)
    triangle = family("latin-triangle", relations=[("consecutive", (0, 2)), ("less", (4, 3))])
    assert [str(r) for r in triangle.relations] == ["consecutive(0, 2)", "less(4, 3)"]
    legacy = family("futoshiki", n=3, less=[((0, 0), (0, 1))])
    assert legacy == family("futoshiki", n=3, relations=[("less", ((0, 0), (0, 1)))])


@pytest.mark.parametrize("make, message", [
    (lambda: family("futoshiki-adjacent", n=3, relations=[("consecutive", ((0, 0), (1, 1)))]),
     "not neighbours"),
    (lambda: family("killer-sudoku", box="2x2", relations=[("cage", [(0, 0), (1, 1)], {"sum": 3})]),
     "not connected"),
    (lambda: family("killer-sudoku", box="2x2", relations=[("cage", [(0, 0), (0, 1)])]),
     "takes sum"),
    (lambda: family("killer-sudoku", box="2x2", relations=[
        ("cage", [(0, 0), (0, 1)], {"sum": 3}), ("cage", [(0, 1), (1, 1)], {"sum": 3})]),
     "overlap on cell"),
    (lambda: family("latin-square", n=3, relations=[("ratio", ((0, 0), (0, 0)))]), "and itself"),
    (lambda: family("latin-square", n=3, relations=[("ratio", ((0, 0), (3, 0)))]),
     "outside the 3x3 grid"),
    (lambda: family("latin-square", n=3, relations=[
        ("consecutive", ((0, 0), (0, 1))), ("nonconsecutive", ((0, 1), (0, 0)))]), "listed as both"),
    (lambda: family("custom-sudoku", relations=[("nodot", ((0, 0), (0, 1)))]), "integer labels"),
    (lambda: family("latin-square", n=3, relations=[("wobbly", ((0, 0), (0, 1)))]),
     "unknown relation kind 'wobbly'"),
    (lambda: family("kropki", n=3, complete="maybe"), "complete must be true or false"),
    (lambda: family("futoshiki", n=3, grade="z"), "grade must be one of t, e, k, x, r"),
])
def test_relation_errors_of_families(make, message):
    with pytest.raises(BoardError, match=message):
        make()


def _family_file(tmp_path, text):
    from futocp.families import _read_family
    path = tmp_path / "fam.yaml"
    path.write_text("name: fam\ndescription: A test family.\nasterisms: [rows, cols]\n"
                    "labels: {range: [1, 3]}\n" + text)
    return _read_family(path)


def test_family_files_keep_reading_less(tmp_path):
    fam = _family_file(tmp_path, "grid: {rows: 3, cols: 3}\nless: neighbours\n")
    assert fam.less_mode == fam.relation_mode("less") == "neighbours"
    assert fam.relation_mode("ratio") == "any"
    fam = _family_file(tmp_path, "grid: {rows: 3, cols: 3}\nless: none\n"
                                 "relations: {less: any, cages: none}\n")
    assert fam.relation_mode("less") == "any" and fam.relation_mode("cage") == "none"


@pytest.mark.parametrize("text, message", [
    ("grid: {rows: 3, cols: 3}\nrelations: {less: sometimes}\n", "none, neighbours, lines or any"),
    ("grid: {rows: 3, cols: 3}\nrelations: {wobbly: any}\n", "unknown relation kind 'wobbly'"),
    ("cells: 9\nlayout: [[0, 1, 2]]\nrelations: {less: neighbours}\n", "needs a grid"),
    ("grid: {rows: 3, cols: 3}\ncomplete: {kind: cage}\n", "not a binary relation kind"),
    ("grid: {rows: 3, cols: 3}\ncomplete: {kind: less}\n", "symmetric"),
    ("grid: {rows: 3, cols: 3}\ncomplete: {kind: nodot, when: n}\n", "a bool parameter"),
    ("grid: {rows: 3, cols: 3}\nrelations: {cage: none}\nlists: [cages]\n", "does not allow"),
    ("grid: {rows: 3, cols: 3}\nparams:\n  g: {type: choice}\n", "'choices' goes with type choice"),
])
def test_family_file_relation_errors(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        _family_file(tmp_path, text)


SMALL_RELATION_BOARDS = {
    "adjacent-4": lambda: formats.loads("4a:3RD,0DL,0RD,2DL,0UR,0URDL,0URL,0UL,0RD,2UDL,4RD,0DL,"
                                        "0UR,0UL,3UR,0UL,", "tatham"),
    "adjacent-4-empty": lambda: family("futoshiki-adjacent", n=4,
                                       relations=[("consecutive", ((0, 0), (0, 1)))]),
    "kropki-4": lambda: family("kropki", n=4, relations=[("consecutive", ((0, 0), (0, 1))),
                                                         ("ratio", ((1, 1), (2, 1)))]),
    "kropki-4-complete": lambda: family("kropki", n=4, complete=True, relations=[
        ("consecutive", ((0, 0), (0, 1))), ("ratio", ((1, 1), (2, 1))),
        ("consecutive", ((2, 2), (2, 3))), ("ratio", ((3, 0), (3, 1)))]),
    "killer-4": lambda: family("killer-sudoku", box="2x2", relations=[
        ("cage", [(0, 0), (0, 1), (1, 0)], {"sum": 6}), ("cage", [(2, 2), (3, 2)], {"sum": 7}),
        ("cage", [(3, 0), (3, 1)], {"sum": 5})]),
}


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("key", list(SMALL_RELATION_BOARDS))
def test_relation_family_counts_match_brute_force(name, key):
    board = SMALL_RELATION_BOARDS[key]()
    cls = REGISTRY[name]
    if build_model(board).features - cls.supported():
        with pytest.raises(UnsupportedError):
            get_backend(name).solve(build_model(board))
        return
    if "enumerate" not in cls.capabilities:
        pytest.skip(f"{name} does not enumerate")
    expected = brute_force_count(board)
    result = solve_all(name, board)
    assert result.n_solutions == expected and result.exhausted
    check(board, result)


def test_cli_new_and_show_relation_families(tmp_path, capsys):
    assert main(["new", "killer-sudoku", "--param", "box=2x2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cages"] == [] and doc["box"] == [2, 2]
    assert main(["new", "kropki", "--size", "4", "--param", "complete=true"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] is True and doc["consecutive"] == [] and doc["ratio"] == []
    assert main(["new", "futoshiki-adjacent", "--size", "3", "--to", "text"]) == 0
    assert capsys.readouterr().out.startswith("futoshiki-adjacent 3\n")
    path = tmp_path / "k.json"
    formats.write(SMALL_RELATION_BOARDS["killer-4"](), path)
    assert main(["show", str(path)]) == 0
    assert "killer-sudoku: 16 cells" in capsys.readouterr().out
