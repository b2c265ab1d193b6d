"""The command line as a new user meets it (issue 12, items 2, 3, 8, 10, 12, 13, 14, 16).

Collections everywhere, one JSON schema for ``solve --json``, exit codes,
``make demo``, solutions in the notation of the input, standard input and
``--puzzle``, ``--quiet``/``--verbose``, help and "did you mean", completion,
MiniSat's result format in ``decode``, and the README's promises. The CLI runs
the dependency-free ``listcolor`` backend unless another one is the point.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from futocp import formats
from futocp.backends import REGISTRY
from futocp.cli import EXIT_CODES, build_parser, main
from futocp.crosscheck import crosscheck
from futocp.export import read_var_map
from futocp.families import futoshiki, latin_square
from futocp.rating import rate
from futocp.verify import verify

from .strategies import (
    CrashBackend,
    InterruptedBackend,
    LiarBackend,
    SlowBackend,
    TwinBackend,
)

ROOT = Path(__file__).resolve().parent.parent
TOP95 = str(ROOT / "instances" / "sudoku" / "top95.txt")
SCHEMA = json.loads((ROOT / "docs" / "solve.schema.json").read_text(encoding="utf-8"))
LC = ["--backend", "listcolor"]

# Three 4x4 Sudoku lines: a unique puzzle, one with 24 solutions, one without any.
COLLECTION = ".2.43...2..34..1\n....2.3.........\n11..............\n"
SUDOKU_16 = ("ECDF82673A49..B......F34D78E.C6A8B27.A...6F1439EA..3G9.E5CB2.D8.39..C7B.6.58EG41.2..."
             "EG.B.9..637G4BCD.517.3.82F97FE6.3..4.1.5ADBB7F814CG..6.D5A.435.2BE98DCF..G6.G..3.A.2"
             ".7BF4E82E61..FDA5G....3..3E61.5C4.GB97..A74.D9B.8.63F.G51.BAG48.3D76...6DG..C739B.5A8"
             ".4")
TATHAM_4 = "4de:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,"


@pytest.fixture
def collection(tmp_path):
    path = tmp_path / "three.txt"
    path.write_text(COLLECTION)
    return str(path)


@pytest.fixture
def puzzle(tmp_path):
    path = tmp_path / "p.json"
    formats.write(futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                            less=[((0, 0), (0, 1)), ((1, 0), (2, 0))]), path)
    return str(path)


def _validator():
    jsonschema = pytest.importorskip("jsonschema")
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA)


def _validate(doc) -> None:
    errors = [e.message for e in _validator().iter_errors(doc)]
    assert not errors, errors


# ------------------------------------------------------------- fake backends
FAKES = (TwinBackend, LiarBackend, SlowBackend, CrashBackend, InterruptedBackend)


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    for cls in FAKES:
        monkeypatch.setitem(REGISTRY, cls.name, cls)


# ------------------------------------------- item 2: every puzzle, everywhere
def test_convert_top95_to_sudoku_lines_gives_95(capsys):
    assert main(["convert", TOP95, "--to", "sudoku"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 95
    assert [formats.loads(line, "sudoku") for line in lines] == formats.read_many(TOP95)


def test_convert_a_collection_to_a_format_of_one_needs_index(capsys):
    assert main(["convert", TOP95, "--to", "json"]) == 2
    err = capsys.readouterr().err
    assert "95 puzzles" in err and "--index I (1..95)" in err and err.count("\n") == 1
    assert main(["convert", TOP95, "--to", "json", "--index", "7"]) == 0
    assert formats.loads(capsys.readouterr().out, "json") == formats.read_many(TOP95)[6]
    assert main(["convert", TOP95, "--to", "json", "--index", "96"]) == 2
    assert "outside 1..95" in capsys.readouterr().err


def test_show_count_check_do_every_puzzle(collection, capsys):
    assert main(["show", collection]) == 0
    out = capsys.readouterr().out
    assert [f"== {collection}#{k} ==" in out for k in (1, 2, 3)] == [True] * 3
    assert main(["show", collection, "--index", "2"]) == 0
    out = capsys.readouterr().out
    assert "==" not in out and out.startswith(render_first_line(collection, 2))

    assert main(["count", collection, "--all", *LC]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[2].startswith(f"{collection}#3: 0 solution(s), exact")
    assert main(["count", collection, "--all", "--json", *LC]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["instance"] for r in doc["instances"]] == [f"{collection}#{k}" for k in (1, 2, 3)]
    assert doc["instances"][2] == {"instance": f"{collection}#3", "count": 0, "limit": None,
                                   "exhausted": True}

    # check: the worst exit code of the puzzles (#2 has several solutions, #3 none: 4)
    assert main(["check", collection, "--unique-only", *LC]) == 4
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[2] == f"{collection}#3: unique: no (no solution)"
    assert out[3] == "3 puzzles: 1 unique, 0 critical, 0 not critical, 2 not puzzles"
    assert main(["check", collection, "--unique-only", "--index", "1", *LC]) == 0
    assert capsys.readouterr().out == "unique: yes\n"


def render_first_line(path: str, k: int) -> str:
    from futocp.cli import grid_text

    return grid_text(formats.read_many(path)[k - 1]).splitlines()[0]


@pytest.mark.parametrize("command", [["minimize"], ["export", "--to", "dimacs"], ["hint"]])
def test_one_puzzle_commands_refuse_a_collection_without_index(collection, capsys, command):
    assert main([command[0], collection, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert "holds 3 puzzles" in err and "--index I (1..3)" in err
    assert main([command[0], collection, *command[1:], "--index", "1"]) == 0


# ---------------------------------------------- rate, explain, hint: the one input path
# Three Tatham ids (the first three of instances/futoshiki/sgt-unequal.tatham).
TATHAM_THREE = ("4:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,\n"
                "4:0,0,0,0,0,0,0,0U,0,0L,0,2,3,0L,0,0,\n"
                "5:2,0,0,0,0,0,0,0,3,4,4,0,3,0,1,0,0,0,0,0,0,0,0,1,3,\n")


@pytest.fixture
def tatham_three(tmp_path):
    path = tmp_path / "three.tatham"
    path.write_text(TATHAM_THREE)
    return str(path)


def test_rate_explain_hint_take_an_inline_puzzle(capsys):
    assert main(["rate", "--puzzle", TATHAM_4, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert (rec["instance"], rec["index"], rec["grade"]) == ("<puzzle>", 0, "easy")
    assert main(["rate", "--puzzle", TATHAM_4]) == 0
    assert "easy" in capsys.readouterr().out
    assert main(["explain", "--puzzle", TATHAM_4]) == 0
    assert capsys.readouterr().out.startswith("<puzzle>: easy (tatham scale)")
    assert main(["hint", "--puzzle", TATHAM_4, "--format", "tatham"]) == 0
    assert capsys.readouterr().out.startswith("hint (")
    assert main(["hint", "rated.json", "--puzzle", TATHAM_4]) == 2
    assert "not both" in capsys.readouterr().err


def test_rate_explain_hint_read_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(TATHAM_THREE))
    assert main(["rate", "-", "--json"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["instance"], r["index"]) for r in recs] == [("<stdin>", 0), ("<stdin>", 1),
                                                           ("<stdin>", 2)]
    monkeypatch.setattr(sys, "stdin", io.StringIO(TATHAM_THREE))
    assert main(["explain", "-"]) == 0
    heads = [line.split(":")[0] for line in capsys.readouterr().out.splitlines()
             if line.startswith("<stdin>")]
    assert heads == ["<stdin>#1", "<stdin>#2", "<stdin>#3"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(TATHAM_THREE))
    assert main(["hint", "-", "--index", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "hint"


def test_explain_explains_every_puzzle_of_a_collection(tatham_three, capsys):
    grades = [r.grade for r in map(rate, formats.read_many(tatham_three))]
    assert main(["explain", tatham_three]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line.startswith(tatham_three)]
    assert [h.split(": ", 1)[0] for h in heads] == [f"{tatham_three}#{k}" for k in (1, 2, 3)]
    assert [h.split(": ", 1)[1].split(" ")[0] for h in heads] == grades  # each its own grade
    assert main(["explain", tatham_three, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["instance"] == tatham_three
    assert [(d["instance"], d["grade"]) for d in doc["instances"]] == [
        (f"{tatham_three}#{k}", g) for k, g in enumerate(grades, 1)]
    assert all(set(d) == {"instance", "grade", "steps"} for d in doc["instances"])
    assert main(["explain", tatham_three, "--index", "3"]) == 0
    assert capsys.readouterr().out.startswith(f"{tatham_three}#3: {grades[2]} ")
    assert main(["rate", tatham_three, "--index", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["index"] == 1  # its place in the file, from 0


def test_crosscheck_a_collection_prints_one_summary_per_backend(collection, capsys):
    assert main(["crosscheck", collection, "--backends", "listcolor,twin"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "DISAGREEMENT" not in out and "status" not in out  # no per-instance tables
    rows = {line.split()[0]: line.split() for line in lines if line.split()[0] in REGISTRY}
    assert set(rows) == {"listcolor", "twin"}
    assert rows["listcolor"][1:3] == ["3/3", "3/3"]  # solved, agreed
    assert lines[-1] == "3 instance(s), 0 with a disagreement or failed verification"
    assert main(["crosscheck", collection, "--backends", "listcolor,twin", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    summary = {s["backend"]: s for s in doc["backends"]}
    assert summary["twin"]["solved"] == 3 and summary["twin"]["instances"] == 3
    assert summary["twin"]["median_s"] is not None and summary["twin"]["time_limited"] == 0
    assert [i["instance"] for i in doc["instances"]] == [f"{collection}#{k}" for k in (1, 2, 3)]


# ---------------------------------------------------- item 3: one JSON schema
def test_solve_json_follows_the_schema_for_one_and_many(collection, puzzle, capsys, tmp_path):
    unsat = tmp_path / "u.json"
    formats.write(latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]), unsat)
    for args in ([puzzle], [puzzle, "--limit", "3"], [puzzle, "--all", "--check"], [str(unsat)],
                 [collection], ["--puzzle", TATHAM_4]):
        assert main(["solve", *args, *LC, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        _validate(doc)
        for record in doc.get("instances", [doc]):
            # always there, with or without --check
            assert {"n_solutions", "exhausted", "verified"} <= set(record)
            assert record["n_solutions"] == len(record["solutions"])
    assert main(["solve", collection, *LC, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in doc["instances"]] == ["sat", "sat", "unsat"]
    assert main(["solve", puzzle, *LC, "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert set(single) == set(doc["instances"][0])  # one record shape for one and for many


def test_verification_always_runs_and_check_changes_only_the_exit_code(puzzle, capsys):
    assert main(["solve", puzzle, "--backend", "liar", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    _validate(doc)
    assert doc["verified"] is False and doc["violations"]
    assert main(["solve", puzzle, "--backend", "liar", "--json", "--check"]) == 1
    assert json.loads(capsys.readouterr().out)["verified"] is False


# ------------------------------------------------------- item 8: exit codes
def test_crosscheck_exits_1_when_a_backend_hits_its_time_limit(puzzle, capsys):
    assert main(["crosscheck", puzzle, "--backends", "listcolor,slow", "--time-limit", "1"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^slow\s+unknown\*", out, re.M)
    assert "stopped by the time limit: slow (exit code 1)" in out
    assert main(["crosscheck", puzzle, "--backends", "listcolor,slow", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["agree"] is True and doc["time_limited"] == ["slow"]
    assert main(["crosscheck", puzzle, "--backends", "listcolor,twin"]) == 0


def test_solver_failure_70_and_interrupt_130(puzzle, capsys):
    assert main(["solve", puzzle, "--backend", "crash"]) == 70
    assert "solver failure" in capsys.readouterr().err
    assert main(["solve", puzzle, "--backend", "interrupted"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_exit_codes_are_documented_in_help_and_readme(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code in (0, 1, 2, 3, 4, 69, 70, 130):
        assert code in EXIT_CODES
        assert re.search(rf"^  {code}\s+\S", text, re.M), code
        assert re.search(rf"^\| {code}\s+\|", readme, re.M), code
    # crosscheck's time-limit exit is what the README says
    assert "a time limit stopped a search (`crosscheck`: any backend's)" in readme


# ---------------------------------------------------------- item 10: make demo
def test_make_demo_is_short_streamed_and_fits_100_columns(capsys):
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    demo = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    instance = re.search(r"^DEMO\s*\?=\s*(\S+)", makefile, re.M).group(1)
    assert "--time-limit" in demo and "show $(DEMO) --solution" in demo
    assert (ROOT / instance).is_file()
    # every printed line of the demo's commands fits 100 columns
    assert main(["show", str(ROOT / instance), "--solution"]) == 0
    assert main(["crosscheck", str(ROOT / instance), "--backends", "listcolor,twin",
                 "--limit", "2", "--time-limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "solution (unique):" in out and "all backends agree" in out
    assert max(map(len, out.splitlines())) <= 100
    for line in re.findall(r"@echo '(.*)'", demo):
        assert len(line) <= 100


def test_crosscheck_streams_each_backend_as_it_finishes():
    seen: list[tuple[str, int]] = []
    rows = crosscheck(latin_square(3, [[1, 2, 3], [0, 0, 0], [0, 0, 0]]), ["listcolor", "twin"],
                      limit=5, on_record=lambda r: seen.append((r["backend"], len(seen))))
    assert seen == [("listcolor", 0), ("twin", 1)]
    assert all(r["agrees"] and r["finished"] and not r["time_limited"] for r in rows)


# ------------------------------------------ item 12: the notation of the input
def test_solve_to_sudoku_keeps_the_letters_of_a_16x16(capsys):
    assert main(["solve", "--puzzle", SUDOKU_16, *LC, "--to", "sudoku"]) == 0
    captured = capsys.readouterr()
    line = captured.out.strip()
    assert len(line) == 256 and re.fullmatch(r"[1-9A-G]+", line) and "G" in line
    board = formats.loads(SUDOKU_16, "sudoku")
    solved = formats.loads(line, "sudoku")
    assert not verify(board, [solved.clue_map[c] for c in range(256)])
    assert captured.err.startswith("futocp: <puzzle>: sat")  # the status line on stderr


@pytest.mark.parametrize("fmt", ["tatham", "json", "text", "yaml"])
def test_solve_to_a_format_reads_back_as_the_solution(puzzle, capsys, fmt):
    board = formats.read(puzzle)
    assert main(["solve", puzzle, *LC, "--to", fmt, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    solved = formats.loads(captured.out, fmt)
    assert len(solved.clues) == board.n_cells
    assert not verify(board, [solved.clue_map[c] for c in range(board.n_cells)])


def test_solve_to_a_format_of_one_refuses_several(puzzle, collection, capsys):
    assert main(["solve", puzzle, *LC, "--to", "json", "--limit", "2"]) == 2
    assert "--limit 1" in capsys.readouterr().err
    assert main(["solve", collection, *LC, "--to", "json"]) == 2
    assert "--index I" in capsys.readouterr().err
    assert main(["solve", collection, *LC, "--to", "sudoku", "--quiet"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2  # the unsat puzzle prints nothing


# ------------------------------------------------ item 13: the command line
def test_solve_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(COLLECTION))
    assert main(["solve", "-", *LC, "--to", "sudoku", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(len(line) == 16 for line in lines)
    monkeypatch.setattr(sys, "stdin", io.StringIO(COLLECTION))
    assert main(["solve", "-", *LC, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    _validate(doc)
    assert doc["instance"] == "<stdin>" and doc["instances"][2]["instance"] == "<stdin>#3"
    monkeypatch.setattr(sys, "stdin", io.StringIO(".2.43...2..34..1\n1..4..3..2..4..\n"))
    assert main(["solve", "-", *LC, "--format", "sudoku"]) == 2
    assert capsys.readouterr().err.startswith("futocp: error: <stdin>:2:16: the line has 15")


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def test_a_collection_with_a_bad_fourth_line_is_named_by_line(tmp_path, capsys):
    """Issue 21: three good Sudoku lines and a bad fourth were blamed on line 2 ('row has 76
    cells', text art's words); now the fourth line is named, with what is wrong with it."""
    lines = Path(TOP95).read_text().splitlines()[:4]
    for name, bad, message in [
            ("mixed.txt", lines[3][:80], ":4:81: the line has 80 characters, expected 81"),
            ("mixed2.txt", lines[3][:80] + "x", ":4:81: 'x' is not a label of a 9x9 puzzle")]:
        path = tmp_path / name
        path.write_text("\n".join([*lines[:3], bad]) + "\n")
        assert main(["show", str(path)]) == 2
        assert _one_error_line(capsys).startswith(f"futocp: error: {path}{message}")


@pytest.mark.parametrize("argv, stdin, message", [
    (["show", "--puzzle", "4" + "." * 79], None,
     "<puzzle>:1:81: the line has 80 characters; a Sudoku line has n*n (81 for 9x9)"),
    (["show", "--puzzle", "1..4..3..2..4.."], None,
     "<puzzle>:1:16: the line has 15 characters; a Sudoku line has n*n (16 for 4x4)"),
    (["show", "--puzzle", ""], None, "<puzzle>: the input is empty"),
    (["show", "-"], "", "<stdin>: the input is empty"),
    (["show", "-"], "\n  \n", "<stdin>: the input is empty"),
    (["solve", "-"], "# nothing yet\n", "<stdin>: only comments, no puzzle"),
])
def test_inline_and_standard_input_say_what_is_wrong(monkeypatch, capsys, argv, stdin, message):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert main(argv) == 2
    assert _one_error_line(capsys) == f"futocp: error: {message}"


@pytest.mark.parametrize("name", ["empty.txt", "empty.yaml", "empty", "empty.sudoku"])
def test_an_empty_file_says_it_is_empty(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_text("")
    assert main(["show", str(path)]) == 2
    assert _one_error_line(capsys) == f"futocp: error: {path}: the file is empty"


def test_an_inline_jigsaw_is_not_taken_for_a_sudoku_line(capsys):
    # the givens alone are a Sudoku line: the stricter jigsaw sniff goes first
    assert main(["show", "--puzzle", "1..4..3..2..4... 1122112233443344"]) == 0
    assert capsys.readouterr().out.startswith("jigsaw\n")


def test_solve_puzzle_inline(capsys):
    assert main(["solve", "--puzzle", TATHAM_4, *LC, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["instance"] == "<puzzle>" and doc["status"] == "sat"
    assert main(["solve", "--puzzle", COLLECTION.splitlines()[0], *LC, "--quiet"]) == 0
    assert capsys.readouterr().out.count("\n") >= 4  # a 4x4 grid
    assert main(["solve", "--puzzle", "1..4", "--format", "sudoku"]) == 2
    assert "<puzzle>:1:" in capsys.readouterr().err
    assert main(["solve"]) == 2
    assert "--puzzle TEXT" in capsys.readouterr().err


def test_quiet_and_verbose(puzzle, tmp_path, capsys):
    assert main(["solve", puzzle, *LC, "--quiet"]) == 0
    captured = capsys.readouterr()
    board = formats.read(puzzle)
    assert captured.err == "" and "sat" not in captured.out
    assert len(captured.out.strip().splitlines()) == len(_grid_lines(board))
    unsat = tmp_path / "u.json"
    formats.write(latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]), unsat)
    assert main(["solve", str(unsat), *LC, "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main(["solve", puzzle, *LC, "--verbose"]) == 0
    captured = capsys.readouterr()
    assert "16 cells, 4 labels; model:" in captured.err and "stats:" in captured.err
    assert captured.out.splitlines()[-1].startswith("sat")
    assert main(["solve", puzzle, "-q", "--json"]) == 2


def _grid_lines(board) -> list[str]:
    from futocp.cli import grid_text

    return grid_text(board, [1] * board.n_cells).splitlines()


def test_help_starts_with_a_line_and_examples(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    first, blank, examples = text.splitlines()[:3]
    assert first.startswith("futocp: ") and len(first) <= 100 and blank == ""
    assert examples == "examples:"
    assert "futocp help COMMAND" in text
    assert main(["help", "solve"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: futocp solve") and "--puzzle TEXT" in out


def test_every_option_has_help_and_states_its_default():
    parser = build_parser()
    for name in parser.subcommands():
        command = parser.command_parser(name)
        formatter = command._get_formatter()
        for action in command._actions:
            if not action.option_strings or action.dest == "help":
                continue
            text = formatter._get_help_string(action) if action.help else ""
            assert text, (name, action.option_strings)
            if action.nargs != 0:  # an option taking a value says its default
                assert "default" in text.lower(), (name, action.option_strings, text)


@pytest.mark.parametrize("argv, hint", [
    (["slove", "x"], "did you mean 'solve'?"),
    (["solve", "x", "--limt", "2"], "did you mean '--limit'?"),
    (["convert", "x", "--to", "jsn"], "did you mean 'json'?"),
])
def test_did_you_mean_from_the_parser(capsys, argv, hint):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize("argv, hint", [
    (["solve", "PUZZLE", "--backend", "listcolour"], "unknown backend 'listcolour'; did you mean 'listcolor'?"),
    (["crosscheck", "PUZZLE", "--backends", "listcolor,cpsta"], "did you mean 'cpsat'?"),
    (["new", "sudoko"], "unknown family 'sudoko'; did you mean 'sudoku'?"),
    (["generate", "--family", "futoshki", "--size", "4", "--seed", "1"], "did you mean 'futoshiki'?"),
    (["help", "solv"], "no command 'solv'; did you mean 'solve'?"),
])
def test_did_you_mean_for_names(puzzle, capsys, argv, hint):
    assert main([puzzle if a == "PUZZLE" else a for a in argv]) == 2
    err = capsys.readouterr().err
    assert hint in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, hint", [
    # names are exact; one that differs only in case is refused with its spelling
    (["solve", "PUZZLE", "--backend", "CPSAT"], "unknown backend 'CPSAT'; did you mean 'cpsat'?"),
    (["crosscheck", "PUZZLE", "--backends", "listcolor,CPSAT"], "did you mean 'cpsat'?"),
    (["new", "Sudoku"], "unknown family 'Sudoku'; did you mean 'sudoku'?"),
])
def test_did_you_mean_for_case(puzzle, capsys, argv, hint):
    assert main([puzzle if a == "PUZZLE" else a for a in argv]) == 2
    err = capsys.readouterr().err
    assert hint in err and err.count("\n") == 1


def test_did_you_mean_for_a_format_in_another_case(puzzle, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["show", puzzle, "--format", "JSON"])
    assert stop.value.code == 2
    assert "did you mean 'json'?" in capsys.readouterr().err


@pytest.mark.parametrize("name, text, hint, where", [
    ("key.json", '{"kind": "futoshiki", "size": 2, "les": []}',
     "unknown key 'les'; did you mean 'less'?", ":1:41:"),
    ("kind.json", '{"kind": "futoshki", "size": 2}',
     "unknown kind 'futoshki'; did you mean 'futoshiki'?", ":1:10:"),
    ("kind.yaml", "kind: Futoshiki\nsize: 2\n", "did you mean 'futoshiki'?", ":1:7:"),
    ("cage.json", '{"kind": "killer-sudoku", "size": 4, "cages": [{"sum": 3, "cels": [[0, 0]]}]}',
     "unknown key 'cels' in a cage; did you mean 'cells'?", ":1:67:"),
    ("directive.sudoku", "#! kind=sudoku-X\n1..4..3..2..4...\n",
     "unknown family 'sudoku-X'; did you mean 'sudoku-x'?", ":1:9:"),
])
def test_did_you_mean_in_files(tmp_path, capsys, name, text, hint, where):
    path = tmp_path / name
    path.write_text(text)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert hint in err and f"{path}{where}" in err and err.count("\n") == 1


@pytest.mark.parametrize("entry, hint, where", [
    ('instances:\n  - paths: "*.json"\nbackends: [cpsat]\n',
     "instances[0]: unknown key 'paths' (did you mean 'path'?)", ":2:5:"),
    ("instances:\n  - generate: {family: latin-square, size: 4, givens: 6}\nbackends: [CPSAT]\n",
     "backends[0]: unknown backend 'CPSAT'; did you mean 'cpsat'?", ":3:12:"),
    ("instances:\n  - generate: {family: latin-square, size: 4}\n"
     "backends: [{name: sat}, {name: cpsta}]\n",
     "backends[1]: unknown backend 'cpsta'; did you mean 'cpsat'?", ":3:32:"),
    ("instances:\n  - generate: {famly: latin-square, size: 4}\nbackends: [sat]\n",
     "unknown generate key 'famly'; did you mean 'family'?", ":2:15:"),
])
def test_did_you_mean_in_configs(tmp_path, capsys, entry, hint, where):
    path = tmp_path / "study.yaml"
    path.write_text(entry)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert hint in err and f"{path}{where}" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["new", "futoshiki", "--size", "3"],
    ["generate", "--family", "latin-square", "--size", "3", "--givens", "2", "--seed", "1"],
])
def test_the_output_format_is_to_everywhere(capsys, argv):
    """Issue 21: --format names the input format; generate and new wrote their output with
    it. Now --to, as solve, convert, export and minimize; the old spelling works for one
    release, with a note."""
    assert main([*argv, "--to", "tatham"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("3:") and err == ""
    assert main([*argv, "--format", "tatham"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("3:") and "output format of" in err and "is --to" in err
    assert main([*argv, "--format", "tatham", "--to", "json"]) == 2
    assert "give --to only" in capsys.readouterr().err
    command = build_parser().command_parser(argv[0])
    shown = command.format_help()
    assert "--to {" in shown and "--format" not in shown


def test_every_output_format_option_is_to():
    """No command writes a puzzle file through --format, and --format is the input's."""
    parser = build_parser()
    for name in parser.subcommands():
        for action in parser.command_parser(name)._actions:
            if "--format" in action.option_strings and action.help != "==SUPPRESS==":
                assert "input" in action.help or "file format" in action.help, (name, action.help)
            if "--to" in action.option_strings:
                assert "input" not in (action.help or ""), name


def test_one_version_everywhere(capsys):
    import futocp
    from futocp.experiments.runner import versions

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"futocp {futocp.__version__}"
    assert versions()["futocp"] == futocp.__version__  # what run records carry
    # the package metadata reads the same attribute
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text
    assert 'version = { attr = "futocp.__version__" }' in text


@pytest.mark.parametrize("param", ["size=3", "less=1", "givens=1", "foo=1"])
def test_new_takes_only_family_parameters(capsys, param):
    # size, less and givens are build()'s own arguments, not parameters of the family
    assert main(["new", "sudoku", "--param", param]) == 2
    err = capsys.readouterr().err
    assert f"family sudoku has no parameter {param.split('=')[0]!r} (its parameters: box, difficulty, symmetry)" in err


def test_help_says_how_to_activate_completion_not_to_install_it(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "pip install argcomplete" not in text  # it is a dependency of futocp
    line = next(x for x in text.splitlines() if "register-python-argcomplete" in x)
    assert line.strip() == 'eval "$(register-python-argcomplete futocp)"'
    # the command it names is installed with futocp, beside this interpreter
    script = Path(sys.executable).parent / "register-python-argcomplete"
    proc = subprocess.run([str(script), "futocp"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "futocp" in proc.stdout
    requires = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^dependencies = \[.*"argcomplete', requires, re.M)


def test_shell_completion(tmp_path):
    pytest.importorskip("argcomplete")
    out = tmp_path / "completions"
    for line, expected in [("futocp sol", "solve"), ("futocp solve x --backend listc", "listcolor"),
                           ("futocp new sudoku-", "sudoku-x")]:
        env = {**os.environ, "_ARGCOMPLETE": "1", "_ARGCOMPLETE_IFS": "\n", "COMP_LINE": line,
               "COMP_POINT": str(len(line)), "_ARGCOMPLETE_STDOUT_FILENAME": str(out)}
        proc = subprocess.run([sys.executable, "-m", "futocp"], env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert expected in out.read_text().split(), line


# ------------------------------------------------- item 14: decode's inputs
def _minisat_answer(puzzle: str, tmp_path: Path, capsys) -> tuple[Path, Path]:
    """A formula exported by futocp and MiniSat's result file for it (built from a
    solution, so no SAT solver is needed)."""
    cnf = tmp_path / "p.cnf"
    assert main(["export", puzzle, "--to", "dimacs", "-o", str(cnf)]) == 0
    assert main(["solve", puzzle, *LC, "--json"]) == 0
    values = [v for row in json.loads(capsys.readouterr().out)["solutions"][0] for v in row]
    _, var_map, _ = read_var_map(cnf.read_text())
    lits = [var if values[cell] == label else -var for var, (cell, label) in sorted(var_map.items())]
    answer = tmp_path / "minisat.out"
    answer.write_text("SAT\n" + " ".join(map(str, lits)) + " 0\n")
    return cnf, answer


def test_decode_reads_minisat_result_files(puzzle, tmp_path, capsys):
    cnf, answer = _minisat_answer(puzzle, tmp_path, capsys)
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verified"] is True and doc["model"] == str(answer)
    assert main(["decode", puzzle, str(answer)]) == 0  # the formula re-encoded
    assert capsys.readouterr().out.strip().endswith("verified")
    answer.write_text("UNSAT\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf)]) == 2
    err = capsys.readouterr().err
    assert f"{answer}:1:1: the solver answered UNSAT" in err


def test_decode_errors_name_the_file(puzzle, tmp_path, capsys):
    cnf, answer = _minisat_answer(puzzle, tmp_path, capsys)
    answer.write_text("SAT\n1 2 y3 0\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf)]) == 2
    assert f"{answer}:2:5: expected a literal" in capsys.readouterr().err
    answer.write_text("SAT\n-1 0\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf)]) == 2
    assert f"{answer}: the model gives cell" in capsys.readouterr().err
    other = tmp_path / "other.cnf"
    other.write_text("p cnf 1 1\n1 0\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(other)]) == 2
    assert f"{other}: no futocp variable map" in capsys.readouterr().err
    answer.write_bytes(b"SAT\n1 \xff 0\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf)]) == 2
    assert f"{answer}:2:3: not a UTF-8 text file" in capsys.readouterr().err


# ---------------------------------------------------------- item 16: README
def test_readme_backend_table_lists_every_backend():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = {m.group(1) for m in re.finditer(r"^\| `([a-z]+)`\s+\|", readme, re.M)}
    real = set(REGISTRY) - {cls.name for cls in FAKES}
    assert real <= table, sorted(real - table)
    assert "apt-get install minizinc" in readme


def test_readme_explains_minimize_decode_and_the_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "**The file `minimize` takes**" in readme and "futocp minimize solved.json" in readme
    assert "**Where `decode`'s model comes from:**" in readme and "minisat p.cnf" in readme
    assert "pip install -e '.[notebook]'" in readme and "jupyter lab docs/notebooks/" in readme
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    notebook = re.search(r"^notebook = \[(.*)\]", pyproject, re.M)
    assert notebook and "jupyterlab" in notebook.group(1)
