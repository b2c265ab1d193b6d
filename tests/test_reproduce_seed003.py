"""seed-003-procedures: the procedures themselves and the rows' rules (no solver runs
beyond small boards)."""

from __future__ import annotations

import pandas as pd

from futocp.families import latin_square, sudoku
from futocp.puzzles import count, is_puzzle
from futocp.reproduce import get_reproduction
from futocp.reproduce.seed003 import _slope, compare, plan_tasks, plb_check, single_pass


def test_single_pass_gives_a_puzzle_per_latin_board() -> None:
    board = sudoku("2x2")
    boards, puzzles, nodes = single_pass(board)
    assert len(boards) == count(board).count == 288 and len(set(boards)) == 288
    assert set(puzzles) == set(boards) and nodes > len(boards)
    for sol in boards[:: 37]:  # each puzzle has its board as its only completion
        puzzle = board.with_clues(dict(puzzles[sol]))
        assert is_puzzle(puzzle)
        assert all(sol[c] == label for c, label in puzzle.clues)
    # a board that is already a puzzle is its own single-pass puzzle
    one = latin_square(2, [[1, 0], [0, 0]])
    boards, puzzles, _ = single_pass(one)
    assert len(boards) == 1 and puzzles[boards[0]] == one.clues


def test_plb_check() -> None:
    board = latin_square(4)
    assert plb_check(board, {0: 1, 5: 1, 10: 1})
    assert not plb_check(board, {0: 1, 4: 1})  # two 1s in the first column


def test_slope_of_growth() -> None:
    cells = [10, 100, 1000]
    linear = [[c * 1e-6, c * 1.1e-6, c * 0.9e-6] for c in cells]
    square = [[c * c * 1e-9] * 3 for c in cells]
    assert abs(_slope(cells, linear)[0] - 1) < 0.05
    assert abs(_slope(cells, square)[0] - 2) < 0.01


def test_plan_and_rows() -> None:
    config = get_reproduction("seed-003-procedures").config(True)
    kinds = {t["kind"] for t in plan_tasks(config)}
    assert kinds == {"algorithm1", "single_pass", "fairness", "orders", "growth", "example"}
    # a fairness test that fails where it should: an unfair puzzle asked at tricky
    recs = [{"kind": "fairness", "status": "ok", "path": "x/9x9-tricky-01.json",
             "level_asked": "tricky", "rated": "solved", "guesses": 2, "grade": "recursive",
             "score": 1.0},
            {"kind": "orders", "status": "ok", "path": "p", "orders": 3, "lists_same": 2,
             "levels": {str(k): {"same": 3, "status": "solved", "remaining": 0}
                        for k in range(4)}}]
    rows = compare(pd.DataFrame(recs, dtype=object), quick=False)
    fair = next(r for r in rows if r.key["study"].startswith("fairness"))
    assert fair.kind == "sanity check" and fair.ours["check"] == "fails"
    lists = next(r for r in rows if r.key.get("rules", "").startswith("list filtering"))
    assert lists.verdict == "differs"  # one random order reached another fixpoint
