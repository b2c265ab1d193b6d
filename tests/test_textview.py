"""Plain-text drawing of any grid board (futocp.textview) and ``futocp show`` with it."""

from __future__ import annotations

import os
from dataclasses import replace

from futocp import formats
from futocp.board import Board
from futocp.cli import main
from futocp.relations import Relation
from futocp.textview import draw

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SQUARE = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8))


def board(*relations: Relation, clues: tuple[tuple[int, int], ...] = ()) -> Board:
    return Board(9, SQUARE, (1, 2, 3), shape=(3, 3), clues=clues, relations=relations)


def test_marks_between_cells_and_rows() -> None:
    b = board(Relation("less", (1, 0)), Relation("less", (2, 5)), Relation("ratio", (4, 5)),
              Relation("consecutive", (3, 6)), clues=((0, 3),))
    assert draw(b).splitlines() == [
        "3 > .   .",
        "        ^",
        ".   . * .",
        "o",
        ".   .   .",
    ]


def test_no_lines_between_rows_without_marks() -> None:
    assert draw(board(Relation("ratio", (0, 1)))) == ". * .   .\n.   .   .\n.   .   ."


def test_values_are_drawn() -> None:
    b = board(Relation("less", (0, 1)))
    assert draw(b, [1, 2, 3, 2, 3, 1, 3, 1, 2]).splitlines()[0] == "1 < 2   3"


def test_what_has_no_place_is_listed() -> None:
    # cells 0 and 8 are not side by side; a cage goes to the cage map
    b = board(Relation("consecutive", (0, 8)), Relation("cage", (0, 1), (("sum", 3),)))
    lines = draw(b).splitlines()
    assert "relations:" in lines
    assert any(line.strip().startswith("consecutive(") for line in lines)
    assert lines[lines.index("cages (letter = sum):") + 1:][:4] == ["A A .", ". . .", ". . .",
                                                                    "A=3"]


def test_implied_pairs_said_once_on_a_fully_marked_board() -> None:
    rels = []
    for a, b in [(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8),
                 (0, 3), (3, 6), (1, 4), (4, 7), (2, 5), (5, 8)]:
        rels.append(Relation("consecutive" if (a, b) == (0, 1) else "nonconsecutive", (a, b)))
    text = draw(board(*rels))
    assert text.splitlines()[0] == ". o .   ."
    assert "(every unmarked pair of neighbours: nonconsecutive)" in text
    # not fully marked: the nonconsecutive pair is listed, not hidden
    partial = draw(board(Relation("nonconsecutive", (0, 1))))
    assert "nonconsecutive(" in partial and "every unmarked" not in partial


def test_show_draws_kropki_dots_and_killer_cages(capsys) -> None:
    kropki = os.path.join(ROOT, "instances", "kropki", "6x6-01.json")
    assert main(["show", kropki]) == 0
    out = capsys.readouterr().out
    b = formats.read(kropki)
    dots = sum(1 for r in b.relations if r.kind in ("consecutive", "ratio"))
    drawn = sum(line.count("o") + line.count("*") for line in out.splitlines()[:11])
    assert drawn == dots
    assert "consecutive" in out.splitlines()[-1]
    killer = os.path.join(ROOT, "instances", "killer-sudoku", "6x6-01.yaml")
    assert main(["show", killer]) == 0
    out = capsys.readouterr().out
    assert "cages (letter = sum):" in out and "cages" in out.splitlines()[-1]


def test_boxes_are_found_from_the_asterisms() -> None:
    from futocp.families import jigsaw, latin_square, sudoku
    from futocp.textview import box_shape

    assert box_shape(sudoku("3x3")) == (3, 3) and box_shape(sudoku("2x3")) == (2, 3)
    hyper = formats.read(os.path.join(ROOT, "instances", "hypersudoku", "9x9-critical-01.json"))
    assert box_shape(hyper) == (3, 3)  # its four extra windows tile nothing
    assert box_shape(latin_square(4)) is None and box_shape(board()) is None
    regions = [[0, 0, 1, 1], [0, 0, 1, 1], [2, 3, 3, 3], [2, 2, 2, 3]]
    assert box_shape(jigsaw(4, regions)) is None


def test_marks_on_box_borders_stay_beside_the_rules() -> None:
    import dataclasses

    from futocp.families import sudoku

    b = dataclasses.replace(sudoku("2x2"), relations=(Relation("ratio", (1, 2)),
                                                      Relation("less", (4, 8))))
    assert draw(b).splitlines() == [
        ".   .*| .   .",
        ".   . | .   .",
        "^-----+------",
        ".   . | .   .",
        ".   . | .   .",
    ]


def test_show_draws_the_boxes_of_a_killer_sudoku(capsys) -> None:
    killer = os.path.join(ROOT, "instances", "killer-sudoku", "6x6-01.yaml")
    assert main(["show", killer]) == 0
    lines = capsys.readouterr().out.splitlines()
    rule = "----------+----------"
    assert lines[:8] == [".   .   . | .   .   .", ".   .   . | .   .   .", rule,
                         ".   .   . | .   .   .", ".   .   . | .   .   .", rule,
                         ".   .   1 | .   .   .", ".   6   . | .   .   4"]
    cages = lines.index("cages (letter = sum):")
    assert lines[cages + 1:cages + 9] == [
        "A A A | A B .", "A A C | C B B", "------+------", "D E E | F B G", "D H F | F B G",
        "------+------", "I H H | J J G", "I I H | J J J"]
    assert lines[cages + 9] == "A=21 B=15 C=8 D=9 E=4 F=13 G=9 H=12 I=11 J=19"


def test_keen_cages_and_towers_clues() -> None:
    keen = formats.loads("4:__a_a__a_ac__a_a,d2a6s1d2m48m2s2", "keen")
    text = draw(keen)
    assert text.splitlines()[:4] == [".   .   .   ."] * 4
    assert text.splitlines()[-5:] == ["A B C C", "A B D D", "E B F G", "E E F G",
                                      "A=2/ B=6+ C=1- D=2/ E=48* F=2* G=2-"]
    towers = formats.loads("4:/3//2/2////2///////3,j1e", "towers")
    assert draw(towers).splitlines() == [
        "       3       2", "",
        "2  .   .   .   .",
        "   .   .   .   .",
        "   .   .   1   .",
        "   .   .   .   .  3", "",
        "   2"]
    # a clue that is not a whole line is listed below the grid
    odd = replace(towers, relations=(Relation("visible", (0, 5, 10), (("count", 2),)),))
    assert "visible((0,0), (1,1), (2,2)) count=2" in draw(odd)
