"""A Result prints as a short summary and gives a grid board's solutions as rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import futocp
from futocp.board import Board
from futocp.errors import BoardError, UsageError
from futocp.families import latin_square
from futocp.result import Result, Status
from futocp.verify import verify

ROOT = Path(__file__).resolve().parents[1]


def test_print_shows_a_one_line_summary_not_a_dump():
    board = latin_square(4, [[1, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    result = futocp.solve(board, "listcolor", limit=None)
    text = str(result)
    assert text.startswith("Result(sat, 144 solutions (all), listcolor, ") and text.endswith(" ms)")
    assert "\n" not in text and "stats" not in text and "(1, " not in text
    one = futocp.solve(board, "listcolor")
    assert str(one).startswith("Result(sat, 1 solution, listcolor, ")
    shown = repr(one)
    assert shown.startswith("Result(status='sat', n_solutions=1, backend='listcolor', "
                            "exhausted=False, limit=1, wall_s=")
    assert "solutions=[" not in shown and "board=" not in shown and len(shown) < 150


@pytest.mark.parametrize(("result", "text"), [
    (Result(Status.UNSAT, [], {"wall_s": 0.0004}, backend="cpsat", exhausted=True),
     "Result(unsat, 0 solutions, cpsat, 0.4 ms)"),
    (Result(Status.UNKNOWN, [], {"wall_s": 2.034}, backend="anneal"),
     "Result(unknown, 0 solutions, anneal, 2.03 s)"),
    (Result(Status.SAT, [(1,), (2,)], {"wall_s": 1.5}, backend="sat", limit=None),
     "Result(sat, 2 solutions (time limit), sat, 1.50 s)"),
    (Result(Status.SAT, [(1,)]), "Result(sat, 1 solution)"),
])
def test_the_summary_says_how_the_search_ended(result, text):
    assert str(result) == text


def test_grids_are_the_solutions_as_rows():
    board = futocp.read(ROOT / "instances" / "futoshiki" / "5x5-several.json")
    result = futocp.solve(board, "listcolor", limit=None)
    grids = result.grids
    assert len(grids) == result.n_solutions == 9
    for grid, flat in zip(grids, result.solutions, strict=True):
        assert [len(row) for row in grid] == [5] * 5
        assert [v for row in grid for v in row] == list(flat)
        assert verify(board, grid) == []
    json.dumps(grids)  # plain lists, ready for JSON


def test_grids_need_a_grid_board_the_result_knows():
    with pytest.raises(UsageError, match="does not know its board"):
        _ = Result(Status.SAT, [(1, 2, 2, 1)]).grids
    general = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2))  # no grid shape
    result = futocp.solve(general, "listcolor")
    assert result.board is general
    with pytest.raises(BoardError, match="not a grid"):
        _ = result.grids
