"""Counting, uniqueness, criticality and minimising (futocp.puzzles) and their CLI commands."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from futocp.backends import REGISTRY, Backend
from futocp.board import Board
from futocp.cli import main
from futocp.errors import BoardError, UsageError
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.formats import write
from futocp.generate import random_latin_square
from futocp.puzzles import (
    clue_is_necessary,
    count,
    counting_backend,
    is_critical,
    is_puzzle,
    minimize,
    redundant_clue,
    unique_solution,
)
from futocp.verify import verify

from .strategies import (
    ONE_BY_ONE,
    backend_params,
    brute_force_count,
    multiset_board,
    string_square,
)

COMPLETE = backend_params(complete_only=True)
ORACLE = "cpsat"  # the uniqueness checks below are re-done by counting with this backend


def full_square(n: int, seed: int) -> Board:
    return latin_square(n, random_latin_square(n, seed=seed))


def n_solutions(board: Board, limit: int = 2) -> int:
    return count(board, limit=limit, backend=ORACLE).count


def assert_critical_puzzle(board: Board, solution) -> None:
    """Unique with ``solution``, and every clue outside the inscription is necessary."""
    assert unique_solution(board, ORACLE) == tuple(solution)
    assert not verify(board, solution)
    for cell, _ in board.clues:
        if cell not in board.inscription:
            assert n_solutions(board.without_clue(cell)) == 2, board.cell_name(cell)


# ------------------------------------------------------------------ count
@pytest.mark.parametrize("backend", backend_params(complete_only=True, slow=ONE_BY_ONE))
def test_count_known_totals(backend):
    assert count(latin_square(3), limit=None, backend=backend).count == 12
    res = count(latin_square(4), limit=None, backend=backend)
    assert (res.count, res.exhausted, res.backend) == (576, True, backend)


@pytest.mark.parametrize("backend", COMPLETE)
def test_count_stops_at_limit(backend):
    res = count(latin_square(4), limit=7, backend=backend)
    assert (res.count, res.limit, res.exhausted) == (7, 7, False)


def test_count_default_backend_matches_brute_force():
    board = futoshiki(3, [[0, 0, 0], [0, 0, 0], [0, 0, 2]], less=[((0, 0), (0, 1)), ((2, 1), (1, 1))])
    res = count(board, limit=None)
    assert res.exhausted and res.count == brute_force_count(board) > 1
    assert res.backend == counting_backend_name(board)


def counting_backend_name(board: Board) -> str:
    from futocp.model import build_model

    return counting_backend(build_model(board)).name


def test_count_multiset_and_strings():
    assert count(multiset_board(), limit=None).count == 90
    assert count(string_square(), limit=None).count == 12


def test_count_refuses_an_incomplete_backend(monkeypatch):
    class Guess(Backend):
        name = "guess"
        complete = False
        capabilities = frozenset({"enumerate"})

    monkeypatch.setitem(REGISTRY, "guess", Guess)
    with pytest.raises(UsageError, match="not complete"):
        count(latin_square(3), limit=2, backend="guess")


def test_count_unsat_is_exhausted_zero():
    res = count(latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]), limit=5)
    assert (res.count, res.exhausted) == (0, True)


# ------------------------------------------------------- puzzle / critical
def test_is_puzzle():
    assert is_puzzle(full_square(4, 1))
    assert not is_puzzle(latin_square(3))  # 12 solutions
    assert not is_puzzle(latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]))  # none
    assert is_puzzle(latin_square(2, [[1, 0], [0, 0]]))


def test_critical_puzzle_and_a_redundant_clue():
    full = full_square(5, 2)
    solution = [v for _, v in full.clues]
    puzzle = minimize(full, seed=0)
    assert is_critical(puzzle) is True
    assert_critical_puzzle(puzzle, solution)
    # add back a clue: still a puzzle, no longer critical
    extra = next(c for c in range(25) if c not in puzzle.clue_map)
    padded = puzzle.with_clues({**puzzle.clue_map, extra: solution[extra]})
    ok, breaking = is_critical(padded), redundant_clue(padded)
    assert not ok and breaking is not None
    cell, label = breaking
    assert padded.clue_map[cell] == label
    assert n_solutions(padded.without_clue(cell)) == 1  # removing it keeps uniqueness
    # the first clue in cell order whose removal keeps uniqueness
    for c, _ in padded.clues:
        if c == cell:
            break
        assert n_solutions(padded.without_clue(c)) == 2


def test_is_critical_of_a_non_puzzle():
    assert is_critical(latin_square(3)) is False


def test_inscription_clues_are_not_asked_to_be_necessary():
    full = full_square(4, 3)
    solution = [v for _, v in full.clues]
    puzzle = minimize(full, seed=5)
    extra = next(c for c in range(16) if c not in puzzle.clue_map)
    inscribed = replace(puzzle, clues=puzzle.clues + ((extra, solution[extra]),),
                        inscription=frozenset({extra}))
    assert is_critical(inscribed) is True
    padded = replace(inscribed, inscription=frozenset())
    assert is_critical(padded) is False  # the same clue outside the inscription is redundant
    assert minimize(replace(full, inscription=frozenset({extra})), seed=1).clue_map[extra] \
        == solution[extra]


@pytest.mark.parametrize("backend", COMPLETE)
def test_clue_is_necessary_agrees_with_counting(backend):
    """The struck-value question gives the same answer as counting, on every backend."""
    board = futoshiki(4, [[0, 0, 1, 0], [0, 0, 0, 0], [0, 3, 0, 0], [2, 0, 0, 4]],
                      less=[((0, 0), (0, 1)), ((1, 1), (1, 2)), ((2, 3), (1, 3))])
    solution = unique_solution(board, ORACLE)
    if solution is None:  # pad to a puzzle with clues from one solution
        from futocp.api import solve

        sol = solve(board, ORACLE).solutions[0]
        board = board.with_clues({**board.clue_map, 1: sol[1], 4: sol[4], 6: sol[6], 9: sol[9]})
        solution = unique_solution(board, ORACLE)
    assert solution is not None
    for cell, _ in board.clues:
        expect = n_solutions(board.without_clue(cell)) == 2
        assert clue_is_necessary(board, cell, solution, backend) == expect


# --------------------------------------------------------------- minimize
def test_minimize_keeps_the_solution_and_is_reproducible():
    full = full_square(6, 4)
    solution = [v for _, v in full.clues]
    a, b = minimize(full, seed=11), minimize(full, seed=11)
    assert a == b
    assert_critical_puzzle(a, solution)
    assert set(a.clues) <= set(full.clues)
    assert minimize(full, seed=12) != a  # another order, another puzzle (here)


def test_minimize_respects_keep_and_inscription():
    full = full_square(5, 6)
    keep = [(0, 0), (4, 4), 12]
    puzzle = minimize(full, seed=3, keep=keep)
    assert {0, 24, 12} <= set(puzzle.clue_map)
    assert is_puzzle(puzzle)
    for cell, _ in puzzle.clues:  # the others are all necessary
        if cell not in (0, 24, 12):
            assert n_solutions(puzzle.without_clue(cell)) == 2


def test_minimize_from_a_puzzle_and_general_boards():
    full = full_square(5, 8)
    once = minimize(full, seed=1)
    assert minimize(once, seed=99) == once  # already critical
    for board in (multiset_board(), string_square()):
        from futocp.api import solve

        solved = board.solved(solve(board, ORACLE).solutions[0])
        puzzle = minimize(solved, seed=2)
        assert_critical_puzzle(puzzle, [v for _, v in solved.clues])


def test_minimize_with_inequalities():
    board = futoshiki(4, [[1, 2, 3, 4], [2, 1, 4, 3], [3, 4, 1, 2], [4, 3, 2, 1]],
                      less=[((0, 0), (0, 1)), ((3, 2), (3, 1))])
    puzzle = minimize(board, seed=4)
    assert puzzle.less == board.less
    assert_critical_puzzle(puzzle, [v for _, v in board.clues])


def test_minimize_errors():
    with pytest.raises(BoardError, match="more than one solution"):
        minimize(latin_square(3))
    with pytest.raises(BoardError, match="no solution"):
        minimize(latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]))
    with pytest.raises(BoardError, match="no clue"):
        minimize(latin_square(2, [[1, 0], [0, 0]]), keep=[(1, 1)])
    with pytest.raises(BoardError, match="outside"):
        minimize(full_square(3, 1), keep=[(3, 0)])


def test_strings_and_grid_lines_board_without_shape():
    """A board with no grid shape: keep takes cell numbers."""
    board = Board(9, tuple(grid_lines(3, 3)), ("x", "y", "z"))
    solved = board.solved(("x", "y", "z", "y", "z", "x", "z", "x", "y"))
    puzzle = minimize(solved, seed=0, keep=[4])
    assert 4 in puzzle.clue_map and is_puzzle(puzzle)


# -------------------------------------------------------------------- CLI
@pytest.fixture
def files(tmp_path):
    full = full_square(5, 21)
    paths = {"full": tmp_path / "full.json", "empty": tmp_path / "empty.json",
             "critical": tmp_path / "critical.json", "none": tmp_path / "none.json"}
    write(full, paths["full"])
    write(latin_square(4), paths["empty"])
    write(minimize(full, seed=2), paths["critical"])
    write(latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]), paths["none"])
    return {k: str(v) for k, v in paths.items()}


def test_cli_count_json(files, capsys):
    assert main(["count", files["empty"], "--all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"instance": files["empty"], "count": 576,
                                                   "limit": None, "exhausted": True}
    assert main(["count", files["empty"], "--limit", "5", "--json", "--backend", ORACLE]) == 0
    assert json.loads(capsys.readouterr().out) == {"instance": files["empty"], "count": 5,
                                                   "limit": 5, "exhausted": False}
    assert main(["count", files["empty"], "--limit", "5"]) == 0
    assert "limit reached" in capsys.readouterr().out


def test_cli_count_errors(files, capsys):
    assert main(["count", files["empty"], "--backend", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("futocp: error: unknown backend") and err.count("\n") == 1
    assert main(["count", files["empty"], "--limit", "0"]) == 2


def test_cli_check_exit_codes(files, capsys):
    assert main(["check", files["critical"]]) == 0
    assert capsys.readouterr().out == "unique: yes\ncritical: yes\n"
    assert main(["check", files["full"], "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["unique"] and out["critical"] is False and out["solutions"] == 1
    assert out["breaking_clue"] == {"cell": [0, 0], "label": full_square(5, 21).clue_map[0]}
    assert main(["check", files["full"], "--unique-only"]) == 0
    assert main(["check", files["empty"]]) == 4
    assert "2 or more" in capsys.readouterr().out
    assert main(["check", files["none"], "--json"]) == 4
    assert json.loads(capsys.readouterr().out)["solutions"] == 0


def test_cli_minimize(files, tmp_path, capsys):
    assert main(["minimize", files["full"], "--seed", "7", "--keep", "0,0", "2,3"]) == 0
    first = capsys.readouterr().out
    assert main(["minimize", files["full"], "--seed", "7", "--keep", "0,0", "2,3"]) == 0
    assert capsys.readouterr().out == first
    doc = json.loads(first)
    assert doc["givens"][0][0] != 0 and doc["givens"][2][3] != 0
    out = tmp_path / "m.json"
    assert main(["minimize", files["full"], "--seed", "7", "-o", str(out)]) == 0
    assert main(["check", str(out)]) == 0
    assert main(["minimize", files["empty"]]) == 2
    assert "not a Latin puzzle" in capsys.readouterr().err
    assert main(["minimize", files["full"], "--keep", "a,b"]) == 2


def test_is_critical_is_a_bool_usable_in_if():
    full = latin_square(2, [[1, 2], [2, 1]])
    assert is_critical(full) is False and not is_critical(full)
    assert redundant_clue(full) == (0, 1)
    with pytest.raises(BoardError, match="not a Latin puzzle"):
        redundant_clue(latin_square(3))
