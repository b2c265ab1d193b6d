"""Tatham's Solo grades (:mod:`futocp.rating.solo`) and Solo puzzles by grade
(:mod:`futocp.generate_solo`).

``tests/data/tatham-graded-solo.tsv`` holds ids of Debian's ``sgt-solo
--generate`` (``sgt-puzzles`` 20230122) with the grades of his own solver
(``Difficulty rating``, and ``Killer difficulty`` for killer ids);
``tests/data/tatham-graded-solo-generated.tsv`` holds more of them, labelled
with the difficulty asked (``sgt-solo --generate 20 PARAMS``): his generator
keeps a puzzle only when his solver grades it exactly that (2x2 puzzles are
always trivial). ``benchmarks/solo_grades.py`` measures the agreement on all
of them.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from futocp import count, verify
from futocp.board import Board
from futocp.errors import UsageError
from futocp.families import family
from futocp.formats import dumps, loads
from futocp.generate_graded import GradeNotReached
from futocp.generate_solo import (
    generate,
    killer_cages,
    random_grid,
    random_regions,
    symmetry_classes,
)
from futocp.rating import games, solo
from futocp.rating.games import Outcome

DATA = Path(__file__).parent / "data"
SAMPLE = DATA / "tatham-graded-solo.tsv"
GENERATED = DATA / "tatham-graded-solo-generated.tsv"
LETTER = dict(zip("tbiaeu", solo.GRADES, strict=True))


def _sample() -> list[tuple[str, str, str, str]]:
    with SAMPLE.open() as fh:
        return [(r["params"], r["rating"].lower(), r["killer_rating"].lower(), r["game_id"])
                for r in csv.DictReader(fh, delimiter="\t")]


def _generated() -> list[tuple[str, str, str]]:
    """``(params, expected grade, id)``: the letter asked, trivial for 2x2."""
    out = []
    for line in GENERATED.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        params, game_id = line.split("\t")
        want = "trivial" if params.startswith("2x2") else LETTER[params[-1]]
        out.append((params, want, game_id))
    return out


def _replay(board: Board, out: Outcome) -> None:
    """The steps, replayed: every placement is the solution's, no elimination
    removes it, and the placements with the givens fill the grid."""
    assert out.solution is not None
    placed = set(board.clue_map)
    for step in out.steps:
        for cell, v in step.place:
            assert out.solution[cell] == v, step.reason
            placed.add(cell)
        for cell, v in step.eliminate:
            assert out.solution[cell] != v, step.reason
        assert step.reason
        assert step.level == solo.TECHNIQUES[step.technique]
    assert placed == set(range(board.n_cells))


def _check(board: Board, want: str) -> Outcome:
    out = solo.grade(board)
    assert out.status == "solved", out.reason
    assert out.level is not None and solo.GRADES[out.level] == want
    assert not verify(board, out.solution)
    _replay(board, out)
    return out


# ------------------------------------------------------------------ grading
@pytest.mark.parametrize("params,rating,killer,game_id", _sample(),
                         ids=[f"{i}-{r[0]}" for i, r in enumerate(_sample())])
def test_sample_graded_as_tatham(params: str, rating: str, killer: str, game_id: str) -> None:
    board = loads(game_id, "solo")
    _check(board, rating)
    assert solo.killer_grade(board) == (killer or None)


def _fast_generated() -> Iterator[tuple[str, str, str]]:
    """Two generated ids per mode and grade (the unreasonable killers are slow)."""
    seen: dict[str, int] = {}
    for params, want, game_id in _generated():
        if seen.get(params, 0) < 2 and not params.endswith("kdu"):
            seen[params] = seen.get(params, 0) + 1
            yield params, want, game_id


@pytest.mark.parametrize("params,want,game_id", list(_fast_generated()))
def test_generated_graded_as_asked(params: str, want: str, game_id: str) -> None:
    _check(loads(game_id, "solo"), want)


@pytest.mark.slow
def test_every_generated_id_graded_as_asked() -> None:
    wrong = []
    for params, want, game_id in _generated():
        board = loads(game_id, "solo")
        out = solo.grade(board)
        if out.level != solo.GRADES.index(want) or verify(board, out.solution or ()):
            wrong.append((params, game_id))
    assert not wrong


def test_techniques_of_each_level_appear() -> None:
    """Each level's techniques do the work of a puzzle of that grade."""
    used: dict[str, set[str]] = {}
    first = {params: (want, game_id) for params, want, game_id in reversed(_generated())}
    for params in ("3x3dt", "3x3db", "3x3di", "3x3da", "3x3de", "3x3xde", "3x3du", "3x3kdb"):
        want, game_id = first[params]
        out = solo.grade(loads(game_id, "solo"))
        used.setdefault(want, set()).update(s.technique for s in out.steps)
    assert "box-single" in used["trivial"]
    assert {"line-single", "naked-single"} & used["basic"]
    assert "intersection" in used["intermediate"]
    assert "subset" in used["advanced"]
    assert {"fish", "forcing-chain"} & used["extreme"]
    assert "guess" in used["unreasonable"]
    assert {"killer-minmax", "killer-sums", "killer-region", "killer-single"} <= set().union(
        *used.values())


def test_scale_is_registered_and_covers_solo_boards() -> None:
    scale = games.game_scale("solo")
    assert scale is solo.GRADES_SCALE and scale.grades == solo.GRADES
    assert set(scale.techniques) == set(solo.TECHNIQUES)
    for game_id in ("2x2:b3_1h2_1b", "3x3x:f8b7a8e4a6a4b7d2_9_7b5b5b8b2b8b5_6_3d5b1a6a8e2a3b9f",
                    _sample()[-1][3], _sample()[40][3]):
        assert solo.covers(loads(game_id, "solo"))
    assert not solo.covers(family("futoshiki", n=4))
    assert not solo.covers(family("hypersudoku"))
    incomplete = family("killer-sudoku", box="2x2", relations=[("cage", [(0, 0), (0, 1)],
                                                                {"sum": 3})])
    assert not solo.covers(incomplete)
    with pytest.raises(UsageError, match="solo scale"):
        solo.grade(family("futoshiki", n=4))


def test_ambiguous_impossible_and_unfinished() -> None:
    assert solo.grade(family("sudoku", box=(2, 2))).status == "ambiguous"
    clash = family("sudoku", box=(2, 2), givens=[[1, 1, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    assert solo.grade(clash).status == "impossible"
    advanced = next(g for p, _, g in _generated() if p == "3x3da")
    out = solo.grade(loads(advanced, "solo"), max_level=2)
    assert out.status == "unfinished" and out.level is None
    unreasonable = next(g for p, _, g in _generated() if p == "3x3du")
    out = solo.grade(loads(unreasonable, "solo"))
    assert out.guesses >= 1 and out.depth >= 1
    assert any(s.technique == "guess" and s.sub for s in out.steps)


# --------------------------------------------------------------- generating
@pytest.mark.parametrize("fam,grade,size,params", [
    ("sudoku", "trivial", None, {"box": (2, 3)}),
    ("sudoku", "basic", None, {"box": (2, 3)}),
    ("sudoku", "trivial", None, {"box": (3, 3), "symmetry": "m4"}),
    ("sudoku-x", "basic", None, {"box": (2, 3)}),
    ("jigsaw", "trivial", 5, {}),
    ("jigsaw", "b", 6, {}),
    ("killer-sudoku", "trivial", None, {"box": (2, 3)}),
    ("killer-sudoku", "trivial", None, {"box": (2, 2)}),
])
def test_generated_puzzles_are_unique_and_graded_as_asked(fam: str, grade: str, size: int | None,
                                                          params: dict[str, object]) -> None:
    board = generate(fam, grade, size=size, seed=7, params=params)
    want = solo.GRADES[solo.GRADES.index(grade)] if grade in solo.GRADES else LETTER[grade]
    assert board.kind == fam
    assert board.param_map["difficulty"] == want[0]
    assert count(board, limit=2).count == 1
    _check(board, want)
    if fam.startswith("killer"):
        assert not board.clues and solo.killer_grade(board) == "advanced"
    assert loads(dumps(board, "solo"), "solo") == board
    assert generate(fam, grade, size=size, seed=7, params=params) == board


def test_grade_not_reached_and_bad_arguments() -> None:
    with pytest.raises(GradeNotReached) as info:
        generate("sudoku", "basic", seed=1, params={"box": (2, 2)}, tries=3)
    assert info.value.asked == "basic" and info.value.last_grade == "trivial"
    with pytest.raises(GradeNotReached):
        generate("sudoku", "basic", seed=1, params={"box": (2, 2)}, time_limit=0.0)
    with pytest.raises(UsageError, match="unknown Solo grade"):
        generate("sudoku", "hard", seed=1)
    with pytest.raises(UsageError, match="generate_solo makes"):
        generate("futoshiki", "trivial", seed=1)


def test_generator_parts() -> None:
    rng = random.Random(3)
    regions = random_regions(7, rng)
    assert sorted(len(r) for r in regions) == [7] * 7
    assert sorted(c for r in regions for c in r) == list(range(49))
    cages = killer_cages(9, rng)
    assert sorted(c for cage in cages for c in cage) == list(range(81))
    assert all(len(cage) >= 2 for cage in cages)
    grid = random_grid(6, [[0, 1, 2, 6, 7, 8]], rng)
    assert grid is not None and len(set(grid[:6])) == 6 and len({grid[c] for c in (0, 1, 2, 6, 7,
                                                                                    8)}) == 6
    classes = symmetry_classes(9, "r2")
    assert len(classes) == 41 and [40] in classes
    assert len(symmetry_classes(9, "a")) == 81
    with pytest.raises(UsageError, match="symmetry"):
        symmetry_classes(9, "x3")


def _set_reference(rows: list[int], n: int) -> set[tuple[int, int]] | None:
    """Tatham's set elimination written plainly: drop single-entry rows and their
    columns; then every column subset S (a binary counter, first column most
    significant) with 2 <= |S| <= m - 2, first to last: when m - |S| rows avoid S,
    the other rows lose their entries outside S; the first S that removes one wins."""
    kept = [i for i, r in enumerate(rows) if r.bit_count() > 1]
    dead = 0
    for r in rows:
        if r.bit_count() == 1:
            dead |= r
    cols = [j for j in range(n) if not dead >> j & 1]
    m = len(cols)
    for counter in range(1 << m):
        s = {cols[k] for k in range(m) if counter >> (m - 1 - k) & 1}
        if not 2 <= len(s) <= m - 2:
            continue
        avoid = [i for i in kept if not any(rows[i] >> j & 1 for j in s)]
        if len(avoid) == m - len(s):
            kills = {(i, j) for i in kept if i not in avoid for j in cols
                     if j not in s and rows[i] >> j & 1}
            if kills:
                return kills
    return None


def test_set_search_matches_tatham_order() -> None:
    """The subset search (unions of rows) finds the eliminations his enumeration
    finds first, on random matrices that have a perfect matching."""
    from futocp.rating.solo import _set_search

    rng = random.Random(5)
    for _ in range(400):
        n = rng.randint(4, 8)
        perm = list(range(n))
        rng.shuffle(perm)
        rows = [1 << perm[i] | sum(1 << j for j in range(n) if rng.random() < 0.3)
                for i in range(n)]
        found = _set_search(rows, n)
        kills = None if found is None else set(found[2])
        assert kills == _set_reference(rows, n), rows
