"""Difficulty rating (futocp.rating), explanations, hints and generation by grade.

The graded sample ``tests/data/unequal-graded.tsv`` is a sample of puzzles graded
by Simon Tatham's own solver: Futoshiki ids in both of Tatham's
modes, each with the grade his own solver gives it; the first column is the
``sgt-unequal --generate 1 SPEC`` command that rebuilds it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from futocp import families, formats
from futocp.cli import main
from futocp.generate_graded import GradeNotReached, generate_graded, generate_graded_many
from futocp.puzzles import unique_solution
from futocp.rating import (
    LEVELS,
    TECHNIQUES,
    Rating,
    closure,
    count_solutions,
    default_scale,
    explain_lines,
    hint,
    parse_state,
    rate,
    replay,
    shuffled_techniques,
    solvable,
    techniques_of,
)
from futocp.verify import verify

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "unequal-graded.tsv"
FUTOSHIKI = ROOT / "instances" / "futoshiki"


def _sample() -> list[tuple[str, str, str]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        spec, grade, game_id = line.split("\t")
        rows.append((spec, grade.lower(), game_id))
    return rows


SAMPLE = _sample()


def _ids(rows: list[tuple[str, str, str]]) -> list[str]:
    return [f"{k}-{spec.split('#')[0]}" for k, (spec, _, _) in enumerate(rows)]


def _without(technique: str, scale: str = "tatham") -> list[str]:
    return [t for t in techniques_of(scale) if t != technique]


def _board(game_id: str):
    return formats.loads(game_id, "tatham")


# --------------------------------------------------------------- the sample
def test_sample_covers_both_modes_and_every_grade() -> None:
    modes = {"a" in spec.split("#")[0] for spec, _, _ in SAMPLE}
    assert modes == {True, False}
    assert {grade for _, grade, _ in SAMPLE} == set(LEVELS)


@pytest.mark.parametrize(("spec", "grade", "game_id"), SAMPLE, ids=_ids(SAMPLE))
def test_graded_sample_rates_as_tatham(spec: str, grade: str, game_id: str) -> None:
    board = _board(game_id)
    r = rate(board)
    assert r.scale == "tatham"
    assert r.status == "solved"
    assert r.grade == grade, f"{spec}: Tatham says {grade}, futocp {r.grade}"
    assert r.solution is not None and verify(board, r.solution) == []


@pytest.mark.parametrize(("spec", "grade", "game_id"), SAMPLE, ids=_ids(SAMPLE))
def test_general_scale_equals_tatham_on_squares(spec: str, grade: str, game_id: str) -> None:
    assert rate(_board(game_id), "general").grade == grade


@pytest.mark.parametrize(("spec", "grade", "game_id"), SAMPLE, ids=_ids(SAMPLE))
def test_grade_is_the_lowest_level_whose_closure_solves(spec: str, grade: str,
                                                        game_id: str) -> None:
    board = _board(game_id)
    level = LEVELS.index(grade)
    assert solvable(board, level)
    if level:
        assert not solvable(board, level - 1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grade_does_not_depend_on_the_order_within_a_level(seed: int) -> None:
    for k, (spec, grade, game_id) in enumerate(SAMPLE):
        if grade == "recursive" and spec.startswith("9a"):
            continue  # slow (the search for its solution), and the same code path as the others
        order = shuffled_techniques("tatham", seed * 100 + k)
        assert rate(_board(game_id), techniques=order).grade == grade, (spec, order)


def test_shuffled_techniques_keep_levels() -> None:
    order = shuffled_techniques("general", 5)
    assert sorted(order) == sorted(techniques_of("general"))
    levels = [TECHNIQUES[t][1] for t in order]
    assert levels == sorted(levels)
    # the shuffle does shuffle: the seeds of the order test give other orders than the default
    default = list(techniques_of("tatham"))
    assert sum(shuffled_techniques("tatham", s) != default for s in range(100, 400, 100)) >= 2


# ------------------------------------------------------- shipped instances
SHIPPED = {
    "4x4-easy-01.json": "easy", "4x4-tricky-01.json": "easy",  # Tatham's 4dk fell back to easy
    "5x5-trivial-01.json": "trivial", "5x5-easy-01.json": "easy",
    "5x5-tricky-01.json": "tricky", "5x5-tricky-02.json": "tricky",
    "5x5-extreme-01.json": "extreme", "6x6-easy-01.json": "easy",
    "6x6-tricky-01.yaml": "tricky", "6x6-tricky-02.yaml": "tricky",
    "6x6-extreme-01.json": "extreme", "7x7-tricky-01.json": "tricky",
    "7x7-extreme-01.txt": "extreme", "7x7-extreme-02.txt": "extreme",
    "8x8-tricky-01.json": "tricky", "8x8-extreme-01.json": "extreme",
    "9x9-easy-01.json": "easy", "9x9-tricky-01.json": "tricky", "9x9-tricky-02.json": "tricky",
    "9x9-extreme-01.json": "extreme", "9x9-extreme-02.json": "extreme",
    "9x9-recursive-01.json": "recursive", "9x9-recursive-02.json": "recursive",
    "12x12-tricky-01.txt": "tricky",
}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_futoshiki_grades(name: str) -> None:
    assert rate(formats.read(FUTOSHIKI / name)).grade == SHIPPED[name]


def test_shipped_collection_carries_the_rated_grades() -> None:
    text = (FUTOSHIKI / "sgt-unequal.tatham").read_text()
    boards = formats.read_many(FUTOSHIKI / "sgt-unequal.tatham")
    noted = [line.split("rated: ")[1].split()[0] for line in text.splitlines()
             if line.startswith("#") and "rated:" in line]
    assert noted == [rate(b).grade for b in boards]


@pytest.mark.parametrize(("name", "status"), [("5x5-several.json", "ambiguous"),
                                              ("5x5-unsat-duplicate.json", "impossible"),
                                              ("6x6-unsat-chain.json", "impossible"),
                                              ("7x7-unsat-search.json", "impossible")])
def test_ambiguous_and_impossible(name: str, status: str) -> None:
    r = rate(formats.read(FUTOSHIKI / name))
    assert (r.status, r.grade, r.level) == (status, None, None)
    assert r.reason


# -------------------------------------------- one puzzle per technique
def _sample_board(prefix: str, grade: str):
    return next(_board(g) for spec, gr, g in SAMPLE if spec.startswith(prefix) and gr == grade)


def _needs(board, technique: str, level: str, scale: str | None = None) -> None:
    """The level's closure solves the board, and does not without the technique."""
    scale = scale or default_scale(board)
    assert closure(board, level, scale).solved
    assert not closure(board, level, scale, techniques=_without(technique, scale)).solved


def test_hidden_and_naked_singles() -> None:
    board = _sample_board("9dt", "trivial")
    assert closure(board, "trivial").solved
    assert not closure(board, "trivial", techniques=["hidden-single"]).solved
    assert not closure(board, "trivial", techniques=["naked-single"]).solved


def test_trivial_ignores_the_inequalities() -> None:
    board = formats.read(FUTOSHIKI / "4x4-easy-01.json")
    c = closure(board, "trivial")
    assert not c.solved and not any(s.technique == "less-bounds" for s in c.steps)
    assert closure(board, "easy").solved


def test_less_bounds() -> None:
    _needs(formats.read(FUTOSHIKI / "4x4-easy-01.json"), "less-bounds", "easy")


def test_consecutive_forward_checking_and_arc_consistency() -> None:
    _needs(_sample_board("5ade", "easy"), "consecutive-fc", "easy")
    _needs(_sample_board("5adk", "tricky"), "consecutive-ac", "tricky")


def test_subset() -> None:
    _needs(formats.read(FUTOSHIKI / "5x5-tricky-01.json"), "subset", "tricky")


@pytest.mark.parametrize("name", ["5x5-extreme-01.json", "7x7-extreme-01.txt",
                                  "8x8-extreme-01.json", "9x9-extreme-01.json",
                                  "9x9-extreme-02.json"])
def test_fish(name: str) -> None:
    board = formats.read(FUTOSHIKI / name)
    _needs(board, "fish", "extreme")
    assert rate(board, techniques=_without("fish")).grade == "recursive"


@pytest.mark.parametrize("name", ["6x6-extreme-01.json", "7x7-extreme-02.txt"])
def test_forcing_chain(name: str) -> None:
    board = formats.read(FUTOSHIKI / name)
    _needs(board, "forcing-chain", "extreme")
    assert rate(board, techniques=_without("forcing-chain")).grade == "recursive"


def test_guess() -> None:
    board = formats.read(FUTOSHIKI / "9x9-recursive-01.json")
    r = rate(board)
    assert r.grade == "recursive" and r.guesses >= 1 and r.counts["guess"] == r.guesses
    unfinished = rate(board, techniques=_without("guess"))
    assert unfinished.status == "unfinished" and unfinished.grade is None


def test_intersection_on_a_sudoku() -> None:
    board = formats.read(ROOT / "instances" / "sudoku" / "9x9-critical-01.json")
    assert default_scale(board) == "general"
    _needs(board, "intersection", "tricky", "general")
    assert rate(board, "general").grade == "tricky"
    assert rate(board).scale == "solo"  # a Sudoku is graded as Tatham's Solo by default


def _kropki_4x4(givens):
    white = [((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2)),
             ((0, 3), (1, 3)), ((1, 2), (1, 3)), ((1, 3), (2, 3)), ((2, 0), (3, 0)),
             ((2, 1), (3, 1)), ((2, 2), (3, 2)), ((2, 3), (3, 3)), ((3, 1), (3, 2))]
    black = [((1, 1), (1, 2)), ((1, 2), (2, 2)), ((2, 2), (2, 3)), ((3, 0), (3, 1))]
    return families.kropki(4, givens, white=white, black=black, complete=True)


def test_relation_forward_checking_and_arc_consistency() -> None:
    easy = _kropki_4x4([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0]])
    _needs(easy, "relation-fc", "easy", "general")
    assert rate(easy).grade == "easy"
    tricky = _kropki_4x4(None)
    _needs(tricky, "relation-ac", "tricky", "general")
    assert rate(tricky).grade == "tricky"


def test_cage() -> None:
    # a 4x4 Killer Sudoku without givens; solution 1 2 3 4 / 3 4 1 2 / 2 1 4 3 / 4 3 2 1
    cages = [(4, [(0, 0), (1, 0)]), (5, [(0, 1), (0, 2)]), (6, [(0, 3), (1, 3)]),
             (6, [(1, 1), (1, 2), (2, 1)]), (6, [(2, 0), (3, 0)]), (7, [(2, 2), (2, 3)]),
             (6, [(3, 1), (3, 2), (3, 3)])]
    board = families.killer_sudoku((2, 2), None, cages=cages)
    r = rate(board, "general")
    assert (r.status, r.grade) == ("solved", "tricky") and r.counts.get("cage")
    _needs(board, "cage", "tricky", "general")
    _check_proof(board, r)


def test_multiset_and_string_labels() -> None:
    for path in ["sudoku-ripeto/9x9-111222333-critical-01.json",
                 "custom-sudoku/8x8-makikaji-critical-01.txt"]:
        board = formats.read(ROOT / "instances" / path)
        r = rate(board)
        assert r.status == "solved" and r.scale == "general"
        _check_proof(board, r)


def test_tatham_scale_refuses_other_boards() -> None:
    board = formats.read(ROOT / "instances" / "sudoku" / "9x9-critical-01.json")
    with pytest.raises(Exception, match="tatham scale"):
        rate(board, "tatham")


# ------------------------------------------------------------ explanations
def _check_proof(board, r: Rating) -> None:
    """Every step is sound (never strikes the solution's label) and the steps solve it."""
    solution = r.solution
    assert solution is not None and verify(board, solution) == []
    for step in r.steps:
        for cell, label in step.place:
            assert solution[cell] == label, step.reason
        for cell, label in step.eliminate:
            assert solution[cell] != label, step.reason
        assert step.reason
    domains = replay(board, r.steps, r.scale)
    assert all(len(d) == 1 for d in domains)
    assert tuple(d[0] for d in domains) == tuple(solution)


@pytest.mark.parametrize(("spec", "grade", "game_id"), SAMPLE, ids=_ids(SAMPLE))
def test_explain_steps_are_sound_and_solve(spec: str, grade: str, game_id: str) -> None:
    board = _board(game_id)
    r = rate(board)
    _check_proof(board, r)
    if "a" not in spec.split("#")[0]:
        assert unique_solution(board) == r.solution


@pytest.mark.parametrize("path", ["futoshiki/9x9-recursive-02.json", "futoshiki/8x8-extreme-01.json",
                                  "sudoku/9x9-critical-01.json",
                                  pytest.param("sudoku/16x16-critical-01.sudoku",
                                               marks=pytest.mark.slow),
                                  "jigsaw/9x9-critical-01.json", "sudoku-x/9x9-critical-01.sudoku"])
def test_explain_on_other_boards(path: str) -> None:
    board = formats.read(ROOT / "instances" / path)
    r = rate(board)
    _check_proof(board, r)


def test_explain_text_and_guess_branches() -> None:
    r = rate(formats.read(FUTOSHIKI / "9x9-recursive-01.json"))
    lines = explain_lines(r.steps)
    assert any("guess" in line for line in lines)
    nested = [s for s in r.steps if s.technique == "guess" and s.sub]
    for s in nested:  # a refuted trial: its last step ends in a contradiction
        assert s.eliminate and not s.place
    for line in lines:
        assert "[" in line and "]" in line


def test_reasons_name_cells_and_houses() -> None:
    r = rate(formats.read(FUTOSHIKI / "5x5-extreme-01.json"))
    fish = next(s for s in r.steps if s.technique == "fish")
    assert fish.reason.startswith("fish on 5: ") and "rows" in fish.reason
    hidden = next(s for s in r.steps if s.technique == "hidden-single")
    assert "only fits" in hidden.reason and "→ place" in hidden.reason
    r = rate(formats.read(FUTOSHIKI / "6x6-extreme-01.json"))
    chain = next(s for s in r.steps if s.technique == "forcing-chain")
    assert chain.reason.startswith("forcing chain on ") and chain.size >= 2


def test_score_and_counts() -> None:
    r = rate(formats.read(FUTOSHIKI / "5x5-extreme-01.json"))
    assert r.counts == {t: sum(1 for s in r.steps if s.technique == t) for t in r.counts}
    expected = sum(r.weights[s.technique][0] + r.weights[s.technique][1] * s.size
                   for s in r.steps)
    assert r.score == expected
    heavier = rate(formats.read(FUTOSHIKI / "5x5-extreme-01.json"), weights={"fish": (100, 0)})
    assert heavier.score == r.score - 5 - next(s.size for s in r.steps if s.technique == "fish") + 100
    assert r.max_level_steps == 1


# ------------------------------------------------------------------ hints
def test_hint_from_the_puzzle_and_from_entries() -> None:
    board = formats.read(FUTOSHIKI / "5x5-extreme-01.json")
    r = rate(board)
    h = hint(board)
    assert h.status == "hint" and h.step is not None and h.step.level == 1
    # the entries of the first ten cells of the solution
    entries = {c: r.solution[c] for c in range(10) if c not in board.clue_map}
    h = hint(board, entries)
    assert h.status == "hint"
    for cell, label in h.step.eliminate:
        assert r.solution[cell] != label
    for cell, label in h.step.place:
        assert r.solution[cell] == label
    full = {c: r.solution[c] for c in range(25)}
    assert hint(board, full).status == "solved"


def test_a_wrong_entry_is_named_first() -> None:
    board = formats.read(FUTOSHIKI / "5x5-extreme-01.json")
    r = rate(board)
    wrong_cell = next(c for c in range(25) if c not in board.clue_map)
    wrong = next(v for v in range(1, 6) if v != r.solution[wrong_cell])
    right_cell = next(c for c in range(wrong_cell + 1, 25) if c not in board.clue_map)
    h = hint(board, {wrong_cell: wrong, right_cell: r.solution[right_cell]})
    assert h.status == "wrong" and h.step is None and h.wrong == (wrong_cell, wrong)
    assert board.cell_name(wrong_cell) in h.reason
    assert h.as_dict()["wrong"] == [*board.coords(wrong_cell), wrong]


def test_hint_at_a_stall_is_a_guess() -> None:
    board = formats.read(FUTOSHIKI / "9x9-recursive-01.json")
    r = rate(board)
    first = next(k for k, s in enumerate(r.steps) if s.technique == "guess")
    placed: dict[int, int] = {}
    domains = replay(board, r.steps[:first])
    for cell, d in enumerate(domains):
        if len(d) == 1 and cell not in board.clue_map:
            placed[cell] = d[0]
    h = hint(board, placed)
    assert h.status == "hint"


def test_hint_on_an_ambiguous_puzzle() -> None:
    h = hint(formats.read(FUTOSHIKI / "5x5-several.json"))
    assert h.status == "ambiguous" and h.step is None


def test_parse_state() -> None:
    board = families.futoshiki(3)
    assert parse_state(board, "1 . .\n. 2 .\n. . 3") == {0: 1, 4: 2, 8: 3}
    assert parse_state(board, "1../.2./..3") == {0: 1, 4: 2, 8: 3}
    with pytest.raises(Exception, match="3x3"):
        parse_state(board, "1..")
    with pytest.raises(Exception, match="not a label"):
        parse_state(board, "9../.../...")


# --------------------------------------------------------------- generation
@pytest.mark.parametrize(("family", "size", "grade", "seed"), [
    ("futoshiki", 5, "trivial", 1), ("futoshiki", 5, "easy", 1), ("futoshiki", 5, "tricky", 2),
    ("futoshiki", 6, "extreme", 1), ("futoshiki", 6, "recursive", 1),
    ("futoshiki-adjacent", 5, "easy", 1), ("futoshiki-adjacent", 6, "tricky", 1),
    ("futoshiki-adjacent", 7, "extreme", 1), ("latin-square", 6, "trivial", 1),
])
def test_generated_puzzles_rate_as_asked_and_are_unique(family: str, size: int, grade: str,
                                                        seed: int) -> None:
    board = generate_graded(family, grade, size=size, seed=seed)
    r = rate(board)
    assert (r.status, r.grade) == ("solved", grade)
    assert count_solutions(board, 2) == 1
    if family == "futoshiki":
        assert unique_solution(board) is not None
        assert board.param_map["grade"] == "tekxr"[LEVELS.index(grade)]
    if grade == "trivial" and family == "futoshiki":
        assert not board.less  # the relations play no part at trivial
    again = generate_graded(family, grade, size=size, seed=seed)
    assert again == board  # reproducible


def test_generated_sudoku_on_the_general_scale() -> None:
    board = generate_graded("sudoku", "tricky", seed=4)
    r = rate(board, "general")
    assert (r.scale, r.grade) == ("general", "tricky")
    assert unique_solution(board) is not None
    with pytest.raises(Exception, match="rates easy"):
        generate_graded("sudoku", "easy", seed=1)


def test_generation_fails_clearly_or_says_the_lower_grade() -> None:
    # a 4x4 Latin square (no relations) is never extreme: the tries all come out trivial
    with pytest.raises(GradeNotReached) as info:
        generate_graded("latin-square", "extreme", size=4, seed=1, tries=2)
    assert "allow-lower" in str(info.value) and info.value.last is not None
    assert info.value.last_grade == "trivial"
    board = generate_graded("futoshiki", "extreme", size=4, seed=2, tries=1, allow_lower=True)
    got = rate(board).grade
    assert got != "extreme" and board.param_map["grade"] == "tekxr"[LEVELS.index(got)]


def test_generate_many() -> None:
    boards = generate_graded_many("futoshiki", "easy", 3, size=5, seed=8)
    assert len(set(boards)) == 3 and all(rate(b).grade == "easy" for b in boards)


# --------------------------------------------------------------------- CLI
def test_cli_rate_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", str(FUTOSHIKI / "sgt-unequal.tatham"), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 24
    for index, line in enumerate(lines):
        rec = json.loads(line)
        assert {"instance", "index", "grade", "status", "score", "counts", "guesses"} <= set(rec)
        assert rec["index"] == index and rec["status"] == "solved"
        assert rec["grade"] in LEVELS
    assert json.loads(lines[1])["grade"] == "easy"  # 4x4-tricky-01


def test_cli_rate_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", str(FUTOSHIKI / "7x7-extreme-02.txt")]) == 0
    out = capsys.readouterr().out
    assert "extreme" in out and "forcing-chain" in out and "weights" in out
    assert main(["rate", str(FUTOSHIKI / "sgt-unequal.tatham")]) == 0
    out = capsys.readouterr().out
    assert "24 puzzles" in out and "recursive" in out
    assert main(["rate", str(FUTOSHIKI / "5x5-several.json")]) == 0
    assert "ambiguous" in capsys.readouterr().out


def test_cli_rate_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", "no-such-file.json"]) == 2
    sudoku = str(ROOT / "instances" / "sudoku" / "9x9-critical-01.json")
    assert main(["rate", sudoku, "--scale", "tatham"]) == 2
    assert "tatham scale" in capsys.readouterr().err
    assert main(["rate", sudoku, "--scale", "general", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["grade"] == "tricky"


def test_cli_explain_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(FUTOSHIKI / "5x5-extreme-01.json"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"grade", "steps"} and doc["grade"] == "extreme"
    for step in doc["steps"]:
        assert set(step) == {"technique", "level", "place", "eliminate", "reason"}
        assert step["level"] in LEVELS
        for r, c, label in step["place"] + step["eliminate"]:
            assert 0 <= r < 5 and 0 <= c < 5 and 1 <= label <= 5
    assert main(["explain", str(FUTOSHIKI / "5x5-extreme-01.json"), "--level", "tricky",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(s["level"] in ("trivial", "easy", "tricky") for s in doc["steps"])


def test_cli_explain_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(FUTOSHIKI / "5x5-extreme-01.json"), "--level", "tricky"]) == 0
    out = capsys.readouterr().out
    assert "the tricky techniques stop here: the puzzle needs extreme" in out
    assert main(["explain", str(FUTOSHIKI / "9x9-recursive-01.json")]) == 0
    assert "guess" in capsys.readouterr().out


def test_cli_hint(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(FUTOSHIKI / "5x5-extreme-01.json")
    assert main(["hint", path]) == 0
    assert capsys.readouterr().out.startswith("hint (")
    board = formats.read(path)
    solution = rate(board).solution
    grid = [["." for _ in range(5)] for _ in range(5)]
    cell = next(c for c in range(25) if c not in board.clue_map)
    grid[cell // 5][cell % 5] = str(solution[cell] % 5 + 1)
    state = tmp_path / "state.txt"
    state.write_text("\n".join(" ".join(row) for row in grid) + "\n")
    assert main(["hint", path, "--state", str(state), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "wrong" and doc["wrong"][:2] == [cell // 5, cell % 5]
    assert main(["hint", str(FUTOSHIKI / "5x5-several.json")]) == 4
    assert main(["hint", path, "--state", "1 2 3"]) == 2


def test_cli_generate_grade(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    assert main(["generate", "--family", "futoshiki", "--size", "5", "--grade", "tricky",
                 "--seed", "3", "-o", str(out)]) == 0
    assert rate(formats.read(out)).grade == "tricky"
    assert main(["generate", "--family", "futoshiki", "--size", "5", "--grade", "easy",
                 "--seed", "3", "--count", "2"]) == 0
    text = capsys.readouterr().out
    assert text.count("# grade: easy") == 2
    boards = formats.loads_many(text, "tatham")
    assert [rate(b).grade for b in boards] == ["easy", "easy"]
    assert main(["generate", "--family", "latin-square", "--size", "4", "--grade",
                 "extreme", "--seed", "1", "--tries", "2"]) == 1
    assert "allow-lower" in capsys.readouterr().err
    assert main(["generate", "--family", "futoshiki", "--size", "4", "--grade",
                 "extreme", "--seed", "2", "--tries", "1", "--allow-lower"]) == 0
    captured = capsys.readouterr()
    assert "note: asked extreme, this puzzle rates" in captured.err
    assert json.loads(captured.out)["grade"] != "x"
    assert main(["generate", "--family", "sudoku", "--grade", "easy", "--seed", "1"]) == 2
    assert main(["generate", "--family", "futoshiki", "--size", "5", "--grade", "easy",
                 "--givens", "3"]) == 2
    assert main(["generate", "--family", "futoshiki", "--size", "5", "--grade", "easy",
                 "--count", "2", "--to", "json"]) == 2


@pytest.mark.skipif(not os.path.exists("/usr/games/sgt-unequal"), reason="no sgt-unequal")
def test_sample_specs_rebuild_their_ids() -> None:
    import subprocess

    for spec in sorted({spec for spec, _, _ in SAMPLE})[:3]:
        wanted = {g for s, _, g in SAMPLE if s == spec}
        out = subprocess.run(["/usr/games/sgt-unequal", "--generate", str(len(wanted) + 2), spec],
                             capture_output=True, text=True, check=True, timeout=60).stdout
        assert wanted <= set(out.split()), spec


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_files_carry_their_grade(name: str) -> None:
    board = formats.read(FUTOSHIKI / name)
    assert board.param_map["grade"] == "tekxr"[LEVELS.index(SHIPPED[name])]
