"""Tatham's grades for Keen and Towers (the keen and towers scales), their proofs,
hints, and generation by grade."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import pytest

from futocp import count, verify
from futocp.cli import main
from futocp.errors import UsageError
from futocp.formats import loads, read
from futocp.generate_games import generate
from futocp.generate_graded import GradeNotReached, generate_graded
from futocp.rating import closure, hint, rate, replay, solvable
from futocp.rating.games import game_scale, scale_of
from futocp.rating.keen import KEEN_GRADES, Cage, layouts
from futocp.rating.towers import TOWERS_GRADES, line_support

DATA = Path(__file__).parent / "data"


def _rows(game: str) -> list[tuple[str, str, str]]:
    with open(DATA / f"tatham-graded-{game}.tsv", newline="") as fh:
        return [(r["params"], r["rating"].lower(), r["game_id"])
                for r in csv.DictReader(fh, delimiter="\t")]


def _board(text: str, fmt: str):
    return loads(text, fmt)


KEEN = "6:_4a_3b__a__a_4b_aa_aa_a3ca_8b,m6a9s1m72s1s3a7d3s3m12s4m60m216d3a6a6"  # hard
TOWERS = "6:///3/3/3///5////2//4//5////2/2//,e1c3z"  # extreme


@pytest.mark.parametrize(("params", "want", "game_id"), _rows("keen"))
def test_keen_sample_grades_are_tathams(params, want, game_id):
    r = rate(_board(game_id, "keen"))
    assert (r.scale, r.status, r.grade) == ("keen", "solved", want), params
    assert verify(r.board, list(r.solution)) == []


@pytest.mark.parametrize(("params", "want", "game_id"), _rows("towers"))
def test_towers_sample_grades_are_tathams(params, want, game_id):
    r = rate(_board(game_id, "towers"))
    assert (r.scale, r.status, r.grade) == ("towers", "solved", want), params
    assert verify(r.board, list(r.solution)) == []


def test_sample_covers_every_grade():
    assert {w for _, w, _ in _rows("keen")} == set(KEEN_GRADES)
    assert {w for _, w, _ in _rows("towers")} == set(TOWERS_GRADES)


def test_scales_are_registered_and_cover_their_boards():
    k, t = _board(KEEN, "keen"), _board(TOWERS, "towers")
    assert scale_of(k).name == "keen" and scale_of(t).name == "towers"
    assert game_scale("keen").letters["h"] == "hard" and game_scale("towers").letters["x"] == \
        "extreme"
    with pytest.raises(UsageError, match="towers scale rates towers puzzles"):
        rate(k, "towers")
    assert rate(k, "general").scale == "general"  # the general scale stays available


def test_levels_below_the_grade_do_not_solve():
    k = _board(KEEN, "keen")
    assert rate(k, max_level="normal").status == "unfinished"
    assert rate(k, max_level="hard").grade == "hard"
    assert not solvable(k, "normal") and solvable(k, "hard")
    cl = closure(k, "normal")
    assert cl.status == "unfinished" and not cl.solved and cl.remaining > 36


def test_keen_layouts_match_brute_force():
    b = _board("3:a_a3_a_,s1m6m3a3", "keen")  # 3x3: cells (0,0),(0,1) differ by 1...
    for rel in b.relations:
        cage = Cage(b, rel.cells, rel.param_map["op"], rel.param_map["target"])
        full = [0b111] * len(cage.cells)
        got = sorted(layouts(cage, full))
        want = []
        for combo in itertools.product(range(3), repeat=len(cage.cells)):
            values = [v + 1 for v in combo]
            if not rel.holds(values):
                continue
            clash = any(combo[i] == combo[j] and (cage.rows[i] == cage.rows[j]
                                                  or cage.cols[i] == cage.cols[j])
                        for i in range(len(combo)) for j in range(i))
            if not clash:
                want.append(combo)
        assert got == sorted(want), rel


@pytest.mark.parametrize("count_", [1, 2, 3, 4, 5])
def test_towers_line_support_matches_brute_force(count_):
    w = 5
    doms = [0b11111, 0b10110, 0b11011, 0b01111, 0b11101]
    want = [0] * w
    for perm in itertools.permutations(range(w)):
        if not all(doms[i] >> v & 1 for i, v in enumerate(perm)):
            continue
        seen = best = 0
        for v in perm:
            if v + 1 > best:
                best, seen = v + 1, seen + 1
        if seen == count_:
            for i, v in enumerate(perm):
                want[i] |= 1 << v
    assert line_support(doms, count_) == want


@pytest.mark.parametrize(("text", "fmt"), [(KEEN, "keen"), (TOWERS, "towers")])
def test_explain_steps_replay_to_the_solution(text, fmt):
    b = _board(text, fmt)
    r = rate(b)
    grades = r.grades
    doc = r.explain_dict()
    assert doc["grade"] == r.grade and len(doc["steps"]) == len(r.steps)
    assert {s["level"] for s in doc["steps"]} <= set(grades)
    assert max(grades.index(s["level"]) for s in doc["steps"]) == r.level
    assert all(s.reason for s in r.steps)
    game_techniques = {s.technique for s in r.steps} - {"hidden-single", "naked-single"}
    assert game_techniques <= set(game_scale(fmt).techniques)
    doms = replay(b, r.steps, "general")
    assert all(len(d) == 1 for d in doms) and tuple(d[0] for d in doms) == r.solution


def test_keen_reason_names_the_cage_and_its_layouts():
    r = rate(_board(KEEN, "keen"))
    first = r.steps[0]
    assert first.technique == "cage-layouts"
    assert first.reason.startswith("cage 6× at (0,0),(1,0): only 16, 23, 32 or 61 fit")
    lines = [s for s in r.steps if s.technique == "cage-lines"]
    assert lines and "puts" in lines[0].reason and "column" in lines[0].reason


def test_hints_are_the_first_step_and_catch_wrong_entries():
    t = _board(TOWERS, "towers")
    h = hint(t)
    assert h.status == "hint" and h.step.technique.startswith("towers-")
    assert h.as_dict()["step"]["level"] == "easy"
    sol = rate(t).solution
    wrong = next(v for v in range(1, 7) if v != sol[1])
    assert hint(t, {1: wrong}).status == "wrong"


def test_unreasonable_puzzles_are_finished_by_guesses():
    params, want, game_id = next(r for r in _rows("towers") if r[1] == "unreasonable")
    r = rate(_board(game_id, "towers"))
    assert r.grade == "unreasonable" and r.guesses >= 1 and r.level == 3
    assert any(s.technique == "guess" and s.level == 3 for s in r.steps)


@pytest.mark.parametrize(("family", "size", "grade"), [
    ("keen", 4, "easy"), ("keen", 5, "normal"), ("keen", 4, "hard"), ("towers", 4, "easy"),
    ("towers", 4, "hard")])
def test_generate_gives_unique_puzzles_of_the_grade(family, size, grade):
    b = generate(family, grade, size=size, seed=5)
    assert b == generate(family, grade, size=size, seed=5)  # reproducible
    assert count(b, limit=2).count == 1
    r = rate(b)
    assert (r.scale, r.grade) == (family, grade)
    assert verify(b, list(r.solution)) == []
    assert b.param_map["grade"] == {v: k for k, v in game_scale(family).letters.items()}[grade]


def test_generate_graded_dispatches_and_keen_multiplication_only():
    b = generate_graded("keen", "n", size=4, seed=2, params={"multiplication": True})
    assert {r.param_map["op"] for r in b.relations} == {"*"}
    assert rate(b).grade == "normal" and b.param_map["multiplication"]
    with pytest.raises(UsageError, match="3x3"):
        generate("keen", "hard", size=3, seed=1)
    with pytest.raises(GradeNotReached):
        generate("keen", "extreme", size=4, seed=1, tries=1)


def test_cli_rate_explain_hint_generate(tmp_path, capsys):
    path = tmp_path / "k.keen"
    assert main(["generate", "--family", "keen", "--size", "4", "--grade", "hard", "--seed", "7",
                 "-o", str(path)]) == 0
    capsys.readouterr()
    board = read(path)
    assert count(board, limit=2).count == 1
    assert main(["rate", str(path), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["grade"] == "hard" and rec["status"] == "solved" and rec["asked"] == "h"
    assert main(["rate", str(path)]) == 0
    assert "hard (keen scale), the file says hard" in capsys.readouterr().out
    assert main(["explain", str(path), "--level", "normal"]) == 0
    out = capsys.readouterr().out
    assert "[normal] cage" in out and "the normal techniques stop here" in out
    assert main(["hint", str(path)]) == 0
    assert capsys.readouterr().out.startswith("hint (cage-")
    towers = tmp_path / "t.towers"
    towers.write_text(TOWERS + "\n")
    assert main(["explain", str(towers), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["grade"] == "extreme" and doc["steps"][0]["level"] == "easy"
    assert main(["explain", str(towers), "--level", "normal"]) == 2  # not a towers grade
