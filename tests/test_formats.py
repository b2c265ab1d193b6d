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
from futocp.board import Board
from futocp.errors import InputError, UsageError
from futocp.families import futoshiki, latin_square
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
    assert formats.loads("3dk:c1,0R,c0,", "tatham") == plain  # letters skip empty cells
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
     "not neighbours", 2, 10),
    ("json", '{"kind": "futoshiki", "size": 2,\n "less": [[[0, 0], [0, 1]], [[0, 1], [1, 1]],\n'
             '  [[1, 1], [1, 0]], [[1, 0], [0, 0]]]}', "the inequalities form a cycle", 2, 10),
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
    ("text", "1 < .\nv   ^\n. > .\n", "the inequalities form a cycle", None, None),
    # Tatham
    ("tatham", "5a:0R,0L,0,0,5,0R,0DL,1,0RD,0DL,0D,0U,0RD,0UDL,0U,0U,0R,0UL,0UR,0DL,0,0,0,0R,0UL,",
     "adjacent mode ('5a:') is not supported", 1, 2),
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


def test_instances_cover_the_plan() -> None:
    names = {Path(rel).name for rel in INDEX["instances"]}
    assert len([n for n in names if n.startswith("9x9-") and n.endswith(".json")]) >= 6
    assert sum(e["status"] == "unsat" for e in INDEX["instances"].values()) >= 2
    assert any(e["status"] == "sat" and e["solutions"] > 1 and e["exhausted"]
               for e in INDEX["instances"].values())
