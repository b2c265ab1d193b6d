"""Messages name a board's groups as a player does (row 3, box 2, region B), not "asterism".

"Asterism" is the term of the API and its docs (seed 003); what ``solve``,
``show`` and ``verify`` say to a user uses the words of ``rate``: ``row r``,
``column c``, ``box k``, ``region R``, from 0 as in cell names.
"""

from __future__ import annotations

import os

import futocp
from futocp.board import Board
from futocp.cli import main
from futocp.families import jigsaw, sudoku

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JIGSAW = os.path.join(ROOT, "instances", "jigsaw", "9x9-critical-02.jigsaw")


def test_asterism_names_are_a_players_words() -> None:
    names = sudoku("2x2").asterism_names
    assert names == (*(f"row {r}" for r in range(4)), *(f"column {c}" for c in range(4)),
                     *(f"box {k}" for k in range(4)))
    x = futocp.read(os.path.join(ROOT, "instances", "sudoku-x", "9x9-critical-01.sudoku"))
    assert x.asterism_names[-2:] == ("diagonal", "anti-diagonal")
    regions = [["N", "N", "E", "E"], ["N", "W", "W", "E"], ["S", "W", "W", "E"],
               ["S", "S", "S", "N"]]
    regions[3][3], regions[1][3] = "E", "N"  # four regions of four cells
    assert sorted(jigsaw(4, regions).asterism_names[8:]) == [f"region {r}" for r in "ENSW"]
    torus = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2))
    assert torus.asterism_names == ("group 0", "group 1", "group 2", "group 3")


def test_verify_names_the_region_of_a_jigsaw() -> None:
    board = futocp.read(JIGSAW)
    solution = list(futocp.solve(board, "listcolor").solutions[0])
    solution[0] = solution[0] % 9 + 1  # (0,0), in region A: its row, column and region break
    said = [str(v) for v in futocp.verify(board, solution)]
    assert any(s.startswith("row 0 has extra") for s in said), said
    assert any(s.startswith("column 0 has extra") for s in said), said
    assert any(s.startswith("region A has extra") for s in said), said
    assert not any("asterism" in s for s in said)


def test_solve_says_which_box_holds_a_label_twice(capsys) -> None:
    line = "1" + "." * 9 + "1" + "." * 70  # (0,0) and (1,1): box 0 twice, no row or column
    assert main(["solve", "--puzzle", line, "--format", "sudoku", "--backend", "listcolor"]) == 0
    out = capsys.readouterr().out
    assert "unsat: box 0 holds 1 2 times (allowed 1): cells (0,0), (1,1)" in out
    assert "asterism" not in out


def test_show_counts_rows_columns_and_boxes(capsys) -> None:
    killer = os.path.join(ROOT, "instances", "killer-sudoku", "6x6-01.yaml")
    assert main(["show", killer]) == 0
    out = capsys.readouterr().out
    assert "killer-sudoku: 36 cells in 6 rows, 6 columns, 6 boxes; labels 1..6; 3 clues, 10 cages" \
        in out.splitlines()
    assert "asterism" not in out
    for name, line in [
        ("sudoku-x/9x9-critical-01.sudoku",
         "sudoku-x: 81 cells in 9 rows, 9 columns, 9 boxes, 2 diagonals; labels 1..9; 19 clues"),
        ("board/torus-9-01.json", "board: 9 cells in 9 groups of 3; labels 1..3; 2 clues")]:
        assert main(["show", os.path.join(ROOT, "instances", name)]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == line
