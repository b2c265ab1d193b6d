"""File formats: round trips, real Tatham ids, error messages with line and column, instances."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from futocp import formats
from futocp.api import solve
from futocp.backends import REGISTRY
from futocp.board import Board
from futocp.cli import main
from futocp.errors import InputError, UsageError
from futocp.families import (
    family,
    futoshiki,
    futoshiki_adjacent,
    killer_sudoku,
    kropki,
    latin_square,
    neighbour_pairs,
)
from futocp.rating import LETTERS, rate
from futocp.relations import RELATIONS, Relation
from futocp.verify import verify

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
SGT = shutil.which("sgt-unequal") or shutil.which("/usr/games/sgt-unequal")


def canon(board: Board) -> Board:
    """The board with its inequalities sorted (their order carries no meaning)."""
    return replace(board, less=tuple(sorted(board.less)))


def random_futoshiki(n: int, seed: int, kind: str = "futoshiki", relations: bool = True) -> Board:
    """A random board whose clues and inequalities agree with a hidden Latin square."""
    rng = random.Random(seed)
    perm_r, perm_c, perm_v = (rng.sample(range(n), n) for _ in range(3))
    square = [[perm_v[(perm_r[r] + perm_c[c]) % n] + 1 for c in range(n)] for r in range(n)]
    givens = [[v if rng.random() < 0.25 else 0 for v in row] for row in square]
    less = []
    for r in range(n):
        for c in range(n):
            for r2, c2 in ((r, c + 1), (r + 1, c)):
                if relations and r2 < n and c2 < n and rng.random() < 0.3:
                    pair = ((r, c), (r2, c2))
                    less.append(pair if square[r][c] < square[r2][c2] else pair[::-1])
    make = futoshiki if kind == "futoshiki" else latin_square
    return make(n, givens, less)


def error_of(text: str, fmt: str | None, source: str = "f") -> InputError:
    with pytest.raises(InputError) as info:
        formats.loads_many(text, fmt, source)
    return info.value


# ------------------------------------------------------------------ round trips
@pytest.mark.parametrize("fmt", ["json", "yaml", "text", "tatham"])
@pytest.mark.parametrize("n", [1, 2, 5, 9, 12, 15])
def test_futoshiki_round_trip(fmt: str, n: int) -> None:
    board = random_futoshiki(n, seed=n)
    back = formats.loads(formats.dumps(board, fmt), fmt)
    assert canon(back) == canon(board)


@pytest.mark.parametrize("fmt", ["json", "yaml", "text", "pls", "dzn"])
@pytest.mark.parametrize("n", [1, 4, 12, 30])
def test_latin_square_round_trip(fmt: str, n: int) -> None:
    board = random_futoshiki(n, seed=100 + n, kind="latin-square", relations=False)
    back = formats.loads(formats.dumps(board, fmt), fmt)
    assert back == board and back.kind == "latin-square"


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_general_board_round_trip(fmt: str) -> None:
    board = Board(6, ((0, 1, 2), (3, 4, 5), (0, 3, 4)), ("a", "a", "b"), clues=((0, "b"), (4, "a")),
                  inscription=frozenset({0}), shape=(2, 3))
    assert formats.loads(formats.dumps(board, fmt), fmt) == board


@pytest.mark.parametrize("fmt, ext", [("json", ".json"), ("yaml", ".yaml"), ("text", ".txt"),
                                      ("tatham", ".tatham"), ("pls", ".pls"), ("dzn", ".dzn")])
def test_detection_by_extension_and_content(tmp_path: Path, fmt: str, ext: str) -> None:
    board = random_futoshiki(6, seed=7, relations=fmt not in ("pls", "dzn"))
    if fmt in ("pls", "dzn"):
        board = replace(board, kind="latin-square")
    path = tmp_path / f"puzzle{ext}"
    formats.write(board, path)
    assert canon(formats.read(path)) == canon(board)
    assert formats.detect(None, path.read_text()) == fmt


TOP95_LINES = (INSTANCES / "sudoku" / "top95.txt").read_text().splitlines()
JIGSAW_PAIR = "1..4..3..2..4... AABBAABBCCDDCCDD"


@pytest.mark.parametrize("bad, where, message", [
    (TOP95_LINES[3][:80], (4, 81), "the line has 80 characters, expected 81 (a 9x9 puzzle, "
                                   "like the first)"),
    (TOP95_LINES[3][:80] + "x", (4, 81), "'x' is not a label of a 9x9 puzzle"),
    (TOP95_LINES[3][:80] + "!", (4, 81), "'!' is not a label of a 9x9 puzzle"),
    ("hello world", (4, 6), "the line has 5 characters, expected 81"),
])
@pytest.mark.parametrize("name", ["mixed.txt", "mixed.sdk", "mixed"])
def test_a_collection_with_a_bad_line_names_that_line(tmp_path: Path, name: str, bad: str,
                                                      where: tuple[int, int], message: str) -> None:
    """Three good Sudoku lines and a bad fourth: the Sudoku reader names the fourth line and
    what is wrong with it (text art used to blame a good line: 'mixed.txt:2:1: row has 76
    cells'), whether the extension or the content says the format."""
    path = tmp_path / name
    path.write_text("\n".join([*TOP95_LINES[:3], bad]) + "\n")
    with pytest.raises(InputError) as err:
        formats.read_many(path)
    assert (err.value.source, err.value.line, err.value.column) == (str(path), *where)
    assert message in err.value.message


def test_a_collection_with_a_bad_first_line_names_it() -> None:
    text = "\n".join([TOP95_LINES[0][:79], *TOP95_LINES[1:3]])
    with pytest.raises(InputError, match=r"^x:1:80: the line has 79 characters; a Sudoku line has "
                                         r"n\*n \(81 for 9x9\)$"):
        formats.loads_many(text, source="x")


@pytest.mark.parametrize("fmt, good, bad, where, message", [
    ("tatham", "4:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,", "4:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,",
     (3,), "cells"),
    ("jigsaw", JIGSAW_PAIR, "1..4..3..2..4... AABBAABBCCDDCCDA", (3, 33), "region 'A' has 5 cells, expected 4"),
])
def test_line_formats_are_detected_by_most_lines(fmt: str, good: str, bad: str,
                                                 where: tuple[int, ...], message: str) -> None:
    text = f"{good}\n{good}\n{bad}\n{good}\n"
    assert formats.detect("many.txt", text) == formats.detect(None, text) == fmt
    with pytest.raises(InputError) as err:
        formats.loads_many(text, source="many.txt")
    assert (err.value.line, err.value.column)[:len(where)] == where
    assert message in err.value.message


@pytest.mark.parametrize("text, message", [
    ("", "the input is empty"),
    (" \n\t\n", "the input is empty"),
    ("# a comment\n\n# another\n", "only comments, no puzzle"),
])
def test_an_empty_text_says_so(text: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        formats.loads_many(text)
    assert err.value.message == message


@pytest.mark.parametrize("name, text, message", [
    ("empty.txt", "", "the file is empty"),
    ("blank.txt", "\n  \n", "the file is empty"),
    ("empty", "", "the file is empty"),
    ("empty.yaml", "", "the file is empty"),
    ("comments.yaml", "# kind: futoshiki\n", "only comments, no puzzle"),
    ("empty.sudoku", "", "the file is empty"),
    ("comments.tatham", "# none yet\n", "only comments, no puzzle"),
    ("empty.json", "", "invalid JSON: the file is empty"),
    ("null.yaml", "---\n", "the document must be a mapping with a 'kind', got null"),
    ("list.json", "[1, 2]", "the document must be a mapping with a 'kind', got a list"),
    ("size.json", '{"kind": "futoshiki", "size": "4"}', "'size' must be an integer, got a string"),
])
def test_an_empty_file_says_so(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as err:
        formats.read_many(path)
    assert err.value.source == str(path) and message == err.value.message


def test_text_multi_digit_layout() -> None:
    board = futoshiki(12, [[10] + [0] * 11] + [[0] * 12] * 11,
                      less=[((0, 0), (0, 1)), ((1, 11), (0, 11)), ((5, 3), (6, 3))])
    text = formats.dumps(board, "text")
    lines = text.splitlines()
    assert lines[0] == "futoshiki 12"
    assert lines[1].startswith("10 <  .")  # cells padded to width 2, relation between them
    assert lines[2].rstrip().endswith("v") and len(lines[2].rstrip()) == len(lines[1].rstrip())
    assert canon(formats.loads(text, "text")) == canon(board)


def test_text_hand_typed() -> None:
    text = """# a 3x3 typed by hand
1<.  .   # comment after a row

.  . > 1
   ^
.  .   .
"""
    board = formats.loads(text, "text", "hand.txt")
    assert board.kind == "futoshiki" and board.clue_map == {0: 1, 5: 1}
    assert sorted(board.less) == [(0, 1), (4, 7), (5, 4)]


def test_text_left_aligned_multi_digit_marks() -> None:
    rows = [" ".join(str((r + c) % 10 + 1).ljust(2) for c in range(10)) for r in range(10)]
    rows.insert(1, "    ^")  # under the padding of the left-aligned 2 of (0,1)
    board = formats.loads("\n".join(rows) + "\n", "text")
    assert board.less == ((1, 11),)


def test_text_writes_latin_square_without_relation_rows() -> None:
    text = formats.dumps(latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 2]]), "text")
    assert text == "latin-square 3\n1   .   .\n.   .   .\n.   .   2\n"


def test_writers_refuse_boards_they_cannot_hold() -> None:
    general = Board(4, ((0, 1), (2, 3)), (1, 2))
    with pytest.raises(UsageError, match="the text format holds futoshiki and latin-square boards"):
        formats.dumps(general, "text")
    far = latin_square(3, less=[((0, 0), (2, 2))])
    with pytest.raises(UsageError, match="orthogonal neighbours"):
        formats.dumps(far, "text")
    with pytest.raises(UsageError, match="no inequalities"):
        formats.dumps(futoshiki(3, less=[((0, 0), (0, 1))]), "pls")
    with pytest.raises(UsageError):
        formats.dumps(general, "tatham")


# ------------------------------------------------------------------ Tatham
# Ids printed by sgt-unequal 20230122 (Debian sgt-puzzles), captured for this test.
CAPTURED = {
    "5dk": "5:0,0,0,0,0,0,0,0,0R,0U,0D,0RL,0,0,0,0,0U,0,0L,2,0,0L,0,0,0,",
    "9dx": "9:0,0,0L,0D,3,0R,0D,0L,0,0U,0,0,0,7,4R,0R,0,9,0,0,0,0,0L,0R,0,0D,0,0D,0,0L,0L,0U,0,"
           "0,0D,0U,0D,0,0R,0D,0U,0U,0L,0R,0D,0R,0,0,0,0R,0,0,0L,0,0R,0,0U,0U,0R,0D,0,0,0D,0,0,"
           "0,0U,0,7,0,0,0,7,0,0U,0,5,0,0L,0,0U,",
    "10dt": "10:0,0,0,4,0,2,0,0,0,0,0,0,10,0,0,0,0,7,0,1,7,0,0,2,0,0,1,5,0,0,9,0,5,0,0,4,6,1,2,0,"
            "0,6,0,3,0,0,4,0,8,2,8,0,0,0,5,9,2,0,0,0,0,0,0,1,0,0,8,0,6,5,2,0,0,0,1,0,3,0,4,0,5,4,"
            "0,0,0,0,0,6,0,0,6,0,1,0,0,8,5,10,0,9,",
}
# The solve move of the 10x10 id, as sgt-unequal accepted and displayed it (0..9 = 1..10).
SOLVE_10 = ("S9483716205329715864069715204838749635012056294387170254813962630897154185406273943"
            "182095675106374928")


@pytest.mark.parametrize("params", sorted(CAPTURED))
def test_captured_tatham_ids(params: str) -> None:
    game_id = CAPTURED[params]
    board = formats.loads(game_id, "tatham")
    assert formats.dumps(board, "tatham") == game_id + "\n"
    result = solve(board, "cpsat", limit=2)
    assert result.n_solutions == 1 and result.exhausted
    assert verify(board, result.solutions[0]) == []
    if params == "10dt":
        assert formats.format_solution(board, result.solutions[0], "tatham") == SOLVE_10


def test_tatham_details() -> None:
    plain = formats.loads("3:0,0,0,1,0R,0,0,0,0,", "tatham")
    graded = formats.loads("3dk:c1,0R,c0,", "tatham")  # letters skip empty cells
    assert graded == replace(plain, params=(("grade", "k"), ("n", 3)))  # the grade is kept
    assert formats.dumps(graded, "tatham") == "3dk:0,0,0,1,0R,0,0,0,0,\n"  # and written back
    assert formats.loads(formats.dumps(graded, "json"), "json") == graded
    assert formats.loads(formats.dumps(graded, "text"), "text") == graded
    assert plain.less == ((5, 4),)
    assert formats.format_solution(plain, [2, 3, 1, 1, 2, 3, 3, 1, 2], "tatham") == "S231123312"
    boards = formats.loads_many("# two ids\n3:0,0,0,1,0R,0,0,0,0,\n\n  " + CAPTURED["5dk"] + "\n",
                                "tatham")
    assert [b.k for b in boards] == [3, 5]


@pytest.mark.skipif(SGT is None, reason="sgt-unequal (Debian sgt-puzzles) is not installed")
@pytest.mark.parametrize("params", ["4de", "6dk", "7dx", "11dt"])
def test_real_sgt_unequal_output(params: str) -> None:
    out = subprocess.run([SGT, "--generate", "2", params], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    boards = formats.loads_many(out, "tatham")
    assert len(boards) == 2
    for line, board in zip(out.split(), boards, strict=True):
        assert formats.dumps(board, "tatham").strip() == line
        result = solve(board, "cpsat", limit=2)
        assert result.n_solutions == 1 and verify(board, result.solutions[0]) == []


# ------------------------------------------------------------------ errors
def where(err: InputError) -> tuple[str | None, int | None, int | None]:
    return err.source, err.line, err.column


@pytest.mark.parametrize("fmt, text, message, line, column", [
    # JSON / YAML
    ("json", '{"kind": "futoshiki",\n "size": 3,,\n}', "invalid JSON", 2, 12),
    ("yaml", "kind: futoshiki\nsize: [3\ngivens: 1\n", "invalid YAML", 3, 7),
    ("json", '{"kind": "futoshiki", "size": 3,\n "givens": [[0, 0, 0],\n  [0, 0],\n  [0, 0, 0]]}',
     "givens row 1 has 2 cells, expected 3", 3, 3),
    ("json", '{"kind": "futoshiki", "size": 3,\n "givens": [[0, 0, 0], [0, 7, 0], [0, 0, 0]]}',
     "given 7 at (1,1) is not a label", 2, 28),
    ("json", '{"kind": "futoshiki", "size": 3,\n "less": [[[0, 0], [1, 1]]]}',
     "not neighbours", 2, 11),
    ("json", '{"kind": "futoshiki", "size": 2,\n "less": [[[0, 0], [0, 1]], [[0, 1], [1, 1]],\n'
             '  [[1, 1], [1, 0]], [[1, 0], [0, 0]]]}', "the inequalities form a cycle", 2, 11),
    # text
    ("text", "futoshiki 3\n1 2 3\n2 3\n3 1 2\n", "row has 2 cells, expected 3", 3, 1),
    ("text", "1 2 .\n. . 7\n. . .\n", "label 7 out of range 1..3", 2, 5),
    ("text", "1 2 3\n ^\n. . .\n. . .\n", "'^' at column 2 is not under a cell", 2, 2),
    ("text", "futoshiki 12\n10 11 12 1 2 3 4 5 6 7 8 9\n         v\n"
     + "1 2 3 4 5 6 7 8 9 10 11 12\n" * 11, "is ambiguous", 3, 10),
    ("text", "1 2\n. .\n. .\n", "one row too many", 3, 1),
    ("text", "1 2 3\n. . .\n", "the grid has 2 rows, expected 3", 2, 1),
    ("text", "1 2 <\n. . .\n. . .\n", "'<' must stand between two cells", 1, 5),
    ("text", "1 x\n. .\n", "unexpected 'x'", 1, 3),
    ("text", "^\n1 2\n. .\n", "a relation row must stand between two cell rows", 1, 1),
    ("text", "1 < .\nv   ^\n. > .\n", "the inequalities form a cycle", 1, 3),
    # Tatham
    ("tatham", "5a:0R,0L,0,0,5,0R,0D,1,0RD,0DL,0D,0U,0RD,0UDL,0U,0U,0R,0UL,0UR,0DL,0,0,0,0R,0UL,",
     "flag 'R' of cell (1,0) has no matching 'L' on (1,1)", 1, 17),
    ("tatham", "3a:0R,0LL,0,0,0,0,0,0,0,", "flag 'L' appears twice on cell (0,1)", 1, 9),
    ("tatham", "3a:0,0,0R,0,0,0,0,0,0,", "flag 'R' of cell (0,2) points off the grid", 1, 9),
    ("tatham", "3:0RR,0,0,0,0,0,0,0,0,", "flag 'R' appears twice on cell (0,0)", 1, 5),
    ("tatham", "# ids\n5dk#12345\n", "cannot expand a random-seed id; give the description", 2, 4),
    ("tatham", "3:1,0,4,0,0,0,0,0,0,", "number 4 out of range 0..3", 1, 7),
    ("tatham", "3:1,0,0,0,", "not enough cells: 4 of 9", 1, 11),
    ("tatham", "3:1U,0,0,0,0,0,0,0,0,", "flag 'U' of cell (0,0) points off the grid", 1, 4),
    ("tatham", "3:0R,0L,0,0,0,0,0,0,0,", "each claim to be greater", 1, 7),
    ("tatham", "3:0,0,0,0,0,0,0,0,0,0,", "too many cells", 1, 21),
    ("tatham", "3:0 0,0,0,0,0,0,0,0,", "unexpected ' '", 1, 4),
    ("tatham", "5du:0,", "unknown difficulty 'u'", 1, 2),
    ("tatham", "hello", "not a Tatham game id", 1, 1),
    # QWH
    ("pls", "order 3\n 0 1 2\n 1 5 0\n 2 0 1\n", "value 5 out of range -1..2", 3, 4),
    ("pls", "order 3\n 0 1 2\n 1 2 0\n", "expected 3 rows after 'order 3', found 2", 3, 1),
    ("pls", "order 2\n 0 1\n 1\n", "row has 1 values, expected 2", 3, 2),
    ("pls", "3\n", "expected 'order N'", 1, 1),
    ("dzn", "N=3;\nstart=[|\n1, 2, 3|\n2, 3, 4|\n3, 1, 2|];\n", "value 4 out of range 0..3", 4, 7),
    ("dzn", "N=3;\nstart=[|\n1, 2, 3|\n2, 3|\n3, 1, 2|];\n", "row has 2 values, expected 3", 4, 1),
    ("dzn", "N=3;\nstart=[|\n1, 2, 3|\n2, x, 1|\n3, 1, 2|];\n", "'x' is not an integer", 4, 4),
    ("dzn", "N=3;\nstart=[|\n1, 2, 3|\n2, 3", "unexpected end of file", 4, 4),
    ("dzn", "N=2;\nfoo=[|1,2|2,1|];\n", "unknown name 'foo'", 2, 1),
])
def test_input_errors(fmt: str, text: str, message: str, line: int | None, column: int | None) -> None:
    err = error_of(text, fmt, "bad." + fmt)
    assert message in err.message
    assert where(err) == ("bad." + fmt, line, column)
    assert str(err).startswith(f"bad.{fmt}:")


def test_read_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("1 2 3\n3 1\n2 3 1\n")
    with pytest.raises(InputError) as info:
        formats.read(path)
    assert str(info.value) == f"{path}:2:1: row has 2 cells, expected 3"


# ------------------------------------------------------------------ instances
INDEX = json.loads((INSTANCES / "index.json").read_text())


@pytest.mark.parametrize("rel", sorted(INDEX["instances"]))
def test_instances_match_index(rel: str) -> None:
    entry = INDEX["instances"][rel]
    path = INSTANCES / rel
    assert formats.detect(str(path)) == entry["format"]
    boards = formats.read_many(path)
    assert len(boards) == entry.get("boards", 1)
    limit = INDEX["limit"] if entry["exhausted"] else 1
    for board in boards:
        result = solve(board, "cpsat", limit=limit)
        assert result.status.value == entry["status"]
        if entry["exhausted"]:
            assert result.n_solutions == entry["solutions"]
        assert all(verify(board, s) == [] for s in result.solutions)
    if "grade" in entry:  # futocp's own rating, and the grade a generated file carries
        assert rate(boards[0]).grade == entry["grade"]
        letter = boards[0].param_map.get("grade")
        assert letter is None or LETTERS[letter] == entry["grade"]


def test_instances_cover_the_plan() -> None:
    names = {Path(rel).name for rel in INDEX["instances"]}
    assert len([n for n in names if n.startswith("9x9-") and n.endswith(".json")]) >= 6
    assert sum(e["status"] == "unsat" for e in INDEX["instances"].values()) >= 2
    assert any(e["status"] == "sat" and e["solutions"] > 1 and e["exhausted"]
               for e in INDEX["instances"].values())



# ------------------------------------------------------------------ relations
# listcolor checks uniqueness when it holds every relation kind, else cpsat.
UNIQUE_BACKEND = ("listcolor" if REGISTRY["listcolor"].available() is True
                  and {"consecutive", "nonconsecutive", "ratio", "nodot", "cage"}
                  <= REGISTRY["listcolor"].supported() else "cpsat")


def is_unique(board: Board) -> bool:
    result = solve(board, UNIQUE_BACKEND, limit=2)
    assert all(verify(board, s) == [] for s in result.solutions)
    return result.n_solutions == 1 and result.exhausted


def hidden_square(n: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    perm_r, perm_c, perm_v = (rng.sample(range(n), n) for _ in range(3))
    return [[perm_v[(perm_r[r] + perm_c[c]) % n] + 1 for c in range(n)] for r in range(n)]


def pairs_where(n: int, square: list[list[int]], test, far: bool = False) -> list[tuple]:
    """Cell pairs ((r1, c1), (r2, c2)) of the square whose labels pass ``test``."""
    cells = [(r, c) for r in range(n) for c in range(n)]
    out = []
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            near = abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
            if (near or far) and test(square[a[0]][a[1]], square[b[0]][b[1]]):
                out.append((a, b))
    return out


def relation_boards() -> dict[str, Board]:
    """One board per relation kind (and per family with a complete rule), every relation
    true of a hidden solution, some clues."""
    n = 5
    sq = hidden_square(n, 3)
    givens = [[v if (r + c) % 4 == 0 else 0 for c, v in enumerate(row)] for r, row in enumerate(sq)]
    consec = pairs_where(n, sq, lambda x, y: abs(x - y) == 1)
    out: dict[str, Board] = {
        "less": random_futoshiki(6, seed=4),
        "consecutive": family("latin-square", givens, n=n,
                              relations=[("consecutive", p) for p in consec]),
        "consecutive-far": family("latin-square", givens, n=n, relations=[
            ("consecutive", p) for p in pairs_where(n, sq, lambda x, y: abs(x - y) == 1, True)[::5]]),
        "nonconsecutive": family("latin-square", givens, n=n, relations=[
            ("nonconsecutive", p) for p in pairs_where(n, sq, lambda x, y: abs(x - y) != 1, True)[::7]]),
        "ratio": kropki(n, givens, black=pairs_where(n, sq, lambda x, y: x == 2 * y or y == 2 * x)),
        "nodot": family("latin-square", givens, n=n, relations=[
            ("nodot", p) for p in pairs_where(n, sq, lambda x, y: abs(x - y) != 1
                                               and x != 2 * y and y != 2 * x)]),
        "futoshiki-adjacent": futoshiki_adjacent(n, givens, consec),
        "adjacent-square": family("latin-square", givens, n=n, relations=[
            ("consecutive" if abs(sq[a[0]][a[1]] - sq[b[0]][b[1]]) == 1 else "nonconsecutive",
             (a, b)) for a, b in pairs_where(n, sq, lambda x, y: True)]),
        "kropki-complete": kropki(n, givens, white=consec, black=[
            p for p in pairs_where(n, sq, lambda x, y: x == 2 * y or y == 2 * x) if p not in consec],
            complete=True),
        "kropki-sudoku": kropki(givens=[[0] * 4] * 4, white=[((0, 0), (0, 1))], box="2x2"),
        "cage": killer_sudoku("2x2", [[1, 0, 0, 0]] + [[0] * 4] * 3,
                              [(7, [(0, 0), (0, 1), (1, 1)]), (3, [(3, 3), (3, 2)])]),
        "latin-triangle": family("latin-triangle", relations=[
            ("less", (0, 5)), ("consecutive", (1, 2)), ("cage", [3, 7, 8], {"sum": 10})]),
        # Tatham's Keen, Towers and a Solo killer whose cages cover the grid
        "arith": formats.loads("4:__a_a__a_ac__a_a,d2a6s1d2m48m2s2", "keen"),
        "visible": formats.loads("4:/3//2/2////2///////3,j1e", "towers"),
        "solo-killer": formats.loads("2x3xk:zj,_a__a___a__a_______aaba_a___baaaa_a_aa_b,"
                                     "14_5a7_6_8b6c3b7_9a7_14_11a10_7h12c", "solo"),
        # every kind, true of the square 1234/3412/4321/2143
        "board": Board(16, latin_square(4).asterisms, (1, 2, 3, 4), clues=((0, 1), (10, 2)),
                       relations=(Relation("less", (0, 5)), Relation("consecutive", (1, 2)),
                                  Relation("nonconsecutive", (3, 7)), Relation("ratio", (6, 7)),
                                  Relation("nodot", (2, 6)),
                                  Relation("cage", (12, 13, 14), (("sum", 7),)),
                                  Relation("arith", (8, 9), (("op", "+"), ("target", 7))),
                                  Relation("arith", (11,), (("op", "*"), ("target", 1))),
                                  Relation("visible", (3, 2, 1, 0), (("count", 1),)))),
    }
    return out


BOARDS = relation_boards()
# The formats that hold each board; every other format must refuse it with a UsageError.
HOLDS = {
    "less": {"json", "yaml", "text", "tatham"},
    "consecutive": {"json", "yaml", "text"},
    "consecutive-far": {"json", "yaml"},
    "nonconsecutive": {"json", "yaml"},
    "ratio": {"json", "yaml"},
    "nodot": {"json", "yaml"},
    "futoshiki-adjacent": {"json", "yaml", "text", "tatham"},
    "adjacent-square": {"json", "yaml"},  # and tatham, as a futoshiki-adjacent
    "kropki-complete": {"json", "yaml"},
    "kropki-sudoku": {"json", "yaml"},
    "cage": {"json", "yaml"},
    "arith": {"json", "yaml", "keen"},
    "visible": {"json", "yaml", "towers"},
    "solo-killer": {"json", "yaml", "solo"},
    "latin-triangle": {"json", "yaml"},
    "board": {"json", "yaml"},
}


def test_relation_boards_are_true_of_their_solution() -> None:
    for name, board in BOARDS.items():
        result = solve(board, "cpsat", limit=1)
        assert result.n_solutions == 1, name
        assert verify(board, result.solutions[0]) == []
    kinds = set().union(*(b.relation_kinds for b in BOARDS.values()))
    assert kinds == set(RELATIONS)  # every registered kind is in the matrix


@pytest.mark.parametrize("fmt", sorted(formats.FORMATS))
@pytest.mark.parametrize("name", sorted(BOARDS))
def test_every_format_round_trips_or_refuses_every_relation(name: str, fmt: str) -> None:
    board = BOARDS[name]
    if (name, fmt) == ("adjacent-square", "tatham"):  # written as, and read back as, adjacent mode
        back = formats.loads(formats.dumps(board, fmt), fmt)
        assert (back.kind, back.relations, back.clues) == ("futoshiki-adjacent", board.relations,
                                                           board.clues)
        return
    if fmt not in HOLDS[name]:
        with pytest.raises(UsageError):
            formats.dumps(board, fmt)
        return
    text = formats.dumps(board, fmt)
    back = formats.loads(text, fmt)
    assert back == board
    assert formats.loads(text) == board  # detected by content
    assert formats.dumps(back, fmt) == text


def test_complete_families_write_only_the_marks() -> None:
    adj = BOARDS["futoshiki-adjacent"]
    doc = json.loads(formats.dumps(adj, "json"))
    assert "nonconsecutive" not in doc and len(doc["consecutive"]) == len(adj.relations_of("consecutive"))
    assert len(adj.relations) == len(neighbour_pairs(adj)) == 2 * 5 * 4  # the rest is derived
    kro = BOARDS["kropki-complete"]
    doc = json.loads(formats.dumps(kro, "json"))
    assert "nodot" not in doc and doc["complete"] is True
    assert {r.kind for r in kro.relations} == {"consecutive", "ratio", "nodot"}


def test_tatham_writes_adjacent_mode_from_any_square() -> None:
    square = BOARDS["adjacent-square"]  # a latin-square, every pair listed
    text = formats.dumps(square, "tatham")
    assert text.startswith("5a:")
    back = formats.loads(text, "tatham")
    assert back.kind == "futoshiki-adjacent" and back.relations == square.relations
    assert back.clues == square.clues
    assert formats.dumps(back, "tatham") == text


def test_tatham_refuses_what_adjacent_mode_cannot_say() -> None:
    incomplete = BOARDS["consecutive"]  # a latin-square: unmarked pairs are unrelated
    with pytest.raises(UsageError, match=r"every pair of neighbours either consecutive or "
                                         r"nonconsecutive; \(0,\d\) and \(\d,\d\) are neither"):
        formats.dumps(incomplete, "tatham")
    mixed = family("futoshiki-adjacent", n=3, less=[((0, 0), (0, 1))])
    with pytest.raises(UsageError, match="not both"):
        formats.dumps(mixed, "tatham")
    with pytest.raises(UsageError, match="nodot relations"):
        formats.dumps(BOARDS["nodot"], "tatham")
    with pytest.raises(UsageError, match="not 'kropki'"):
        formats.dumps(BOARDS["ratio"], "tatham")
    with pytest.raises(UsageError, match="orthogonal neighbours only"):
        formats.dumps(BOARDS["consecutive-far"], "tatham")


def test_text_draws_consecutive_marks_like_tatham() -> None:
    board = formats.loads("5a:0R,0L,0,0,5,0R,0DL,1,0RD,0DL,0D,0U,0RD,0UDL,0U,0U,0R,0UL,0UR,0DL,"
                          "0,0,0,0R,0UL,", "tatham")
    text = formats.dumps(board, "text")
    assert text.splitlines()[:4] == ["futoshiki-adjacent 5", ". | .   .   .   5",
                                     "", ". | .   1   . | ."]
    assert text.splitlines()[4] == "    -       -   -"
    body = "\n".join(text.splitlines()[1:]) + "\n"  # Tatham's rendering has no header
    assert formats.loads(body, "text") == board
    assert formats.loads(body) == board
    # bars and inequalities together on a futoshiki, on different pairs
    both = family("futoshiki", n=3, less=[((0, 0), (0, 1))], relations=[("consecutive", ((1, 0), (2, 0)))])
    assert formats.dumps(both, "text") == "futoshiki 3\n. < .   .\n\n.   .   .\n-\n.   .   .\n"
    assert formats.loads(formats.dumps(both, "text")) == both
    clash = family("futoshiki", n=2, less=[((0, 0), (0, 1))], relations=[("consecutive", ((0, 0), (0, 1)))])
    with pytest.raises(UsageError, match="two relations"):
        formats.dumps(clash, "text")


def test_schema_reads_every_relation_key() -> None:
    doc = {"kind": "latin-square", "size": 3, "givens": [[1, 0, 0], [0, 0, 0], [0, 0, 0]],
           "less": [[[0, 0], [2, 2]]], "consecutive": [[[0, 0], [0, 1]]],
           "nonconsecutive": [[[1, 1], [1, 2]]], "ratio": [[[2, 0], [2, 1]]],
           "nodot": [[[0, 2], [2, 2]]], "cages": [{"sum": 4, "cells": [[1, 0], [2, 0]]}]}
    board = formats.loads(json.dumps(doc), "json")
    assert [str(r) for r in board.relations] == [
        "cage(3, 6, sum=4)", "consecutive(0, 1)", "less(0, 8)", "nodot(2, 8)",
        "nonconsecutive(4, 5)", "ratio(6, 7)"]
    assert json.loads(formats.dumps(board, "json")) == doc
    killer = {"kind": "killer-sudoku", "size": 4, "box": [2, 2], "givens": [[0] * 4] * 4,
              "cages": [{"sum": 10, "cells": [[0, 0], [0, 1], [1, 0], [1, 1]]}]}
    board = formats.loads(json.dumps(killer), "json")
    assert board.relations == (Relation("cage", (0, 1, 4, 5), (("sum", 10),)),)
    assert json.loads(formats.dumps(board, "json")) == killer


def show_error(tmp_path: Path, capsys, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    assert main(["show", str(path)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in captured.err
    assert err.startswith(f"futocp: error: {path}:")
    return err[len(f"futocp: error: {path}:"):]


@pytest.mark.parametrize("name, text, where, message", [
    # a relation on string labels
    ("s.json", '{"kind": "board", "cells": 4, "labels": ["a", "b"],\n'
               ' "asterisms": [[0, 1], [2, 3], [0, 2], [1, 3]],\n "consecutive": [[0, 1]]}',
     "3:18", "consecutive relations need integer labels"),
    ("s.yaml", "kind: custom-sudoku\nword: ABBA\nratio:\n- [[0, 0], [0, 1]]\n",
     "4:3", "ratio relations need integer labels"),
    # a cell outside the board
    ("o.json", '{"kind": "latin-square", "size": 3,\n "ratio": [[[0, 0], [0, 1]], [[2, 2], [3, 2]]]}',
     "2:39", "ratio relation cell (3,2) is outside the 3x3 grid"),
    ("o2.json", '{"kind": "board", "cells": 4, "labels": [1, 2],\n'
                ' "asterisms": [[0, 1], [2, 3], [0, 2], [1, 3]],\n "nodot": [[0, 4]]}',
     "3:16", "names cell 4, outside 0..3"),
    ("o3.yaml", "kind: killer-sudoku\nbox: [2, 2]\ncages:\n- {sum: 3, cells: [[0, 0], [0, 4]]}\n",
     "4:28", "cage relation cell (0,4) is outside the 4x4 grid"),
    # a cell paired with itself
    ("self.yaml", "kind: kropki\nsize: 4\nconsecutive:\n- [[0, 0], [0, 1]]\n- [[1, 1], [1, 1]]\n",
     "5:12", "consecutive relation between cell (1,1) and itself"),
    ("self.txt", "futoshiki 2\n1 | .\n-\n. . \n", None, None),  # a valid control
    # a pair both consecutive and nonconsecutive
    ("both.json", '{"kind": "latin-square", "size": 3,\n "consecutive": [[[0, 0], [0, 1]]],\n'
                  ' "nonconsecutive": [[[1, 1], [1, 2]], [[0, 1], [0, 0]]]}',
     "3:39", "listed as both consecutive and nonconsecutive"),
    ("both2.json", '{"kind": "futoshiki-adjacent", "size": 3,\n "consecutive": [[[0, 0], [0, 1]]],\n'
                   ' "nonconsecutive": [[[0, 1], [0, 0]]]}',
     "3:21", "listed as both consecutive and nonconsecutive"),
    # a cage naming a cell twice
    ("dup.json", '{"kind": "killer-sudoku", "box": [2, 2],\n'
                 ' "cages": [{"sum": 3, "cells": [[0, 0], [0, 1]]},\n'
                 '           {"sum": 7, "cells": [[2, 0], [2, 1], [2, 0]]}]}',
     "3:49", "cage [(2,0), (2,1), (2,0)] names cell (2,0) twice"),
    # overlapping cages
    ("over.json", '{"kind": "killer-sudoku", "box": [2, 2],\n'
                  ' "cages": [{"sum": 3, "cells": [[0, 0], [0, 1]]},\n'
                  '           {"sum": 7, "cells": [[1, 1], [0, 1]]}]}',
     "3:41", "cage relations 0 and 1 (counted from 0) overlap on cell (0,1)"),
    ("over.yaml", "kind: board\ncells: 4\nlabels: [1, 2]\nasterisms: [[0, 1], [2, 3], [0, 2], [1, 3]]\n"
                  "cages:\n- {sum: 3, cells: [0, 1]}\n- {sum: 3, cells: [2, 1]}\n",
     "7:23", "overlap on cell 1"),
    # asymmetric adjacent flags, duplicated flags
    ("asym.tatham", "# adjacent\n5a:0R,0L,0,0,5,0R,0D,1,0RD,0DL,0D,0U,0RD,0UDL,0U,0U,0R,0UL,0UR,"
                    "0DL,0,0,0,0R,0UL,\n", "2:17", "has no matching 'L' on (1,1)"),
    ("twice.tatham", "3a:0R,0LL,0,0,0,0,0,0,0,\n", "1:9", "flag 'L' appears twice on cell (0,1)"),
    # relations a family does not allow, cages not connected, bad items
    ("far.json", '{"kind": "futoshiki-adjacent", "size": 3,\n "consecutive": [[[0, 0], [1, 1]]]}',
     "2:18", "consecutive relation between (0,0) and (1,1), which are not neighbours"),
    ("apart.json", '{"kind": "killer-sudoku", "box": [2, 2],\n'
                   ' "cages": [{"sum": 3, "cells": [[0, 0], [1, 1]]}]}',
     "2:12", "the cells of cage 0 are not connected"),
    ("nosum.json", '{"kind": "killer-sudoku", "box": [2, 2],\n "cages": [{"cells": [[0, 0], [0, 1]]}]}',
     "2:12", "a cage needs 'sum'"),
    ("pair.json", '{"kind": "latin-square", "size": 3,\n "ratio": [[[0, 0], [0, 1], [0, 2]]]}',
     "2:12", "each ratio item is [[r1, c1], [r2, c2]]"),
    ("cellform.json", '{"kind": "latin-square", "size": 3,\n "ratio": [[[0, 0], 5]]}',
     "2:21", "5 is not [r, c]"),
    ("noless.yaml", "kind: custom-sudoku\nless: [[[0, 0], [0, 1]]]\n", "2:7", "unknown key 'less'"),
])
def test_bad_relations_exit_2_naming_the_place(tmp_path: Path, capsys, name: str, text: str,
                                               where: str | None, message: str | None) -> None:
    if where is None:  # the control case reads
        path = tmp_path / name
        path.write_text(text)
        assert main(["show", str(path)]) == 0
        capsys.readouterr()
        return
    err = show_error(tmp_path, capsys, name, text)
    assert err.startswith(where + ": "), err
    assert message in err


def test_relation_errors_from_python() -> None:
    from futocp.errors import BoardError
    with pytest.raises(BoardError, match="not connected"):
        killer_sudoku("2x2", cages=[(3, [(0, 0), (1, 1)])])
    with pytest.raises(BoardError, match="no inequalities"):
        family("custom-sudoku", less=[((0, 0), (0, 1))])
    with pytest.raises(BoardError, match="need integer labels"):
        family("custom-sudoku", relations=[("consecutive", ((0, 0), (0, 1)))])
    with pytest.raises(BoardError, match="unknown relation kind 'sum'"):
        family("latin-square", relations=[("sum", ((0, 0), (0, 1)))])


# ------------------------------------------------------------------ Tatham's graded sample
# A copy of a sample of Tatham's graded Unequal puzzles (sample.tsv, with its header): generator spec,
# Tatham's grade, game id; '<n>a:' ids are adjacent mode.
GRADED = [line.rstrip("\n").split("\t") for line in
          (ROOT / "tests" / "data" / "unequal-graded.tsv").read_text().splitlines()
          if line.strip() and not line.startswith("#")]


def test_graded_sample_has_adjacent_ids() -> None:
    assert len(GRADED) >= 50
    assert sum(":" in gid and gid.split(":")[0].endswith("a") for _, _, gid in GRADED) >= 25


@pytest.mark.parametrize("spec, grade, game_id", GRADED, ids=[f"{i}-{g[0]}" for i, g in enumerate(GRADED)])
def test_graded_ids_read_write_and_solve_uniquely(spec: str, grade: str, game_id: str) -> None:
    board = formats.loads(game_id, "tatham", "unequal-graded.tsv")
    adjacent = game_id.split(":")[0].endswith("a")
    assert board.kind == ("futoshiki-adjacent" if adjacent else "futoshiki")
    assert formats.dumps(board, "tatham") == game_id + "\n"
    if adjacent:  # every pair of neighbours is consecutive (flagged) or not
        assert len(board.relations) == len(neighbour_pairs(board))
        assert board.relation_kinds <= {"consecutive", "nonconsecutive"}
    assert is_unique(board)
    for fmt in ("json", "yaml", "text"):
        assert formats.loads(formats.dumps(board, fmt), fmt) == board


@pytest.mark.skipif(SGT is None, reason="sgt-unequal (Debian sgt-puzzles) is not installed")
@pytest.mark.parametrize("params", ["5adk", "6ade", "7adt"])
def test_real_sgt_unequal_adjacent_output(params: str) -> None:
    out = subprocess.run([SGT, "--generate", "2", params], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    boards = formats.loads_many(out, "tatham")
    assert len(boards) == 2
    for line, board in zip(out.split(), boards, strict=True):
        assert line.startswith(params[0] + "a:") and board.kind == "futoshiki-adjacent"
        assert formats.dumps(board, "tatham").strip() == line
        assert is_unique(board)


# ------------------------------------------------------------------ the relation instances
RELATION_INSTANCES = sorted(str(p.relative_to(INSTANCES)) for d in
                            ("futoshiki-adjacent", "kropki", "killer-sudoku")
                            for p in (INSTANCES / d).iterdir() if p.is_file())


def test_relation_instances_exist() -> None:
    kinds = {b.kind for rel in RELATION_INSTANCES for b in formats.read_many(INSTANCES / rel)}
    assert kinds == {"futoshiki-adjacent", "kropki", "kropki-sudoku", "killer-sudoku"}


@pytest.mark.parametrize("rel", RELATION_INSTANCES)
def test_relation_instances_are_unique_and_round_trip(rel: str) -> None:
    path = INSTANCES / rel
    fmt = formats.detect(str(path))
    boards = formats.read_many(path)
    for board in boards:
        assert is_unique(board)
        assert formats.loads(formats.dumps(board, fmt), fmt) == board
    if len(boards) == 1:
        assert formats.dumps(boards[0], fmt) == path.read_text()  # the files are the writer's


def test_a_newly_registered_kind_is_read_and_written() -> None:
    """Formats know relation kinds from the registry only: one record adds a key."""
    from futocp.relations import register, unregister

    from .strategies import apart_kind

    register(apart_kind())
    try:
        board = family("latin-square", n=4, relations=[("apart", ((0, 0), (3, 3)), {"k": 2})])
        doc = json.loads(formats.dumps(board, "json"))
        assert doc["apart"] == [{"k": 2, "cells": [[0, 0], [3, 3]]}]
        for fmt in ("json", "yaml"):
            assert formats.loads(formats.dumps(board, fmt), fmt) == board
        with pytest.raises(UsageError, match="apart relations"):
            formats.dumps(board, "text")
        err = error_of('{"kind": "latin-square", "size": 4,\n "apart": [{"cells": [[0, 0], [1, 1]]}]}',
                       "json")
        assert "apart needs 'k'" in err.message
        assert (err.line, err.column) == (2, 12)
    finally:
        unregister("apart")


def test_the_grade_describes_the_clues_it_was_read_with() -> None:
    """A grade read with a puzzle is written back with it; a board whose clues change (a
    solution, a clue fewer or more) has none, in every format that writes one."""
    board = formats.loads("4de:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,\n", "tatham")
    assert board.param_map["grade"] == "e"
    assert formats.dumps(board, "tatham").startswith("4de:")
    assert formats.dumps(board.with_clues(board.clues), "tatham").startswith("4de:")  # same clues
    values = solve(board, backend="listcolor").solutions[0]
    for derived in (board.solved(values), board.without_clue(board.clues[0][0]),
                    board.with_clues([*board.clues, (1, values[1])])):
        assert "grade" not in derived.param_map and derived.kind == board.kind
        assert formats.dumps(derived, "tatham").startswith("4:")
        assert "grade" not in json.loads(formats.dumps(derived, "json"))
        assert "grade" not in formats.dumps(derived, "text").splitlines()[0]
