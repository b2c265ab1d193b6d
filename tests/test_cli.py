"""The command line: outputs, exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from futocp.backends import REGISTRY
from futocp.cli import main
from futocp.families import futoshiki
from futocp.formats import write


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "futocp", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def puzzle(tmp_path):
    path = tmp_path / "p.json"
    write(futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                    less=[((0, 0), (0, 1)), ((1, 0), (2, 0))]), path)
    return str(path)


def test_solve_json_is_one_object(puzzle, capsys):
    assert main(["solve", puzzle, "--backend", "listcolor", "--json", "--limit", "3", "--check"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["instance"] == puzzle and out["backend"] == "listcolor" and out["status"] == "sat"
    assert len(out["solutions"]) == 3 and len(out["solutions"][0]) == 4  # rows
    assert out["verified"] is True and {"build_s", "solve_s", "wall_s"} <= set(out["stats"])


def test_solve_prints_grid(puzzle, capsys):
    assert main(["solve", puzzle, "--check"]) == 0  # the default backend, listcolor
    out = capsys.readouterr().out
    assert "verified" in out and out.strip().splitlines()[-1].startswith("sat")


def test_unsat_exits_zero(tmp_path, capsys):
    path = tmp_path / "u.json"
    path.write_text('{"kind": "latin-square", "size": 3, "givens": [[1, 1, 0], [0, 0, 0], [0, 0, 0]]}')
    assert main(["solve", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "unsat" and "holds 1 2 times" in out["stats"]["reason"]


def test_backends_lists_every_backend(capsys):
    assert main(["backends", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(REGISTRY)


def test_convert_roundtrip(puzzle, tmp_path):
    out = tmp_path / "p.yaml"
    assert main(["convert", puzzle, "--to", "yaml", "-o", str(out)]) == 0
    assert main(["solve", str(out)]) == 0


@pytest.mark.parametrize("content, message", [
    ('{"kind": "futoshiki", "size": 3,\n "givens": [[1, 0, 0], [0, 0]]}', "x.json:2:"),
    ('{"kind": "futoshiki", "size": 3, "givens": [[1, 0, 0], [0, 0, 0], [0, 0, 9]]}', "x.json:1:"),
    ('{"kind": "futoshiki", "size": 3,\n  "givens": [[1, 0 0]]}', "invalid JSON"),
    ('{"kind": "futoshiki", "size": 3, "less": [[[0, 0], [2, 2]]]}', "not neighbours"),
    ('{"kind": "futoshiki", "size": 2, "less": [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]}', "cycle"),
    ('{"kind": "sokoban", "size": 3}', "unknown kind"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    proc = run("solve", str(path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--backend", "nope"], "unknown backend 'nope'"),
    (["--backend", "cpsat", "--opt", "bogus=1"], "no option 'bogus'"),
    (["--backend", "cpsat", "--opt", "workers=many"], "expected int"),
    (["--backend", "cpsat", "--opt", "formulation=fancy"], "choose one of"),
    (["--limit", "0"], "--limit"),
])
def test_usage_errors_exit_2(puzzle, capsys, args, message):
    assert main(["solve", puzzle, *args]) == 2
    assert message in capsys.readouterr().err


def test_missing_file_exit_2(capsys):
    assert main(["solve", "no/such/file.json"]) == 2
    assert "no/such/file.json: no such file" in capsys.readouterr().err


def test_time_limit_exit_1(tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"kind": "latin-square", "size": 40}))
    code = main(["solve", str(path), "--all", "--time-limit", "0.3", "--json"])
    out = json.loads(capsys.readouterr().out)
    # an empty 40x40 Latin square has more solutions than 0.3 s can list
    assert code == 1 and out["finished"] is False and out["status"] in ("sat", "unknown")


def test_export_dimacs_solved_externally_then_decoded(puzzle, tmp_path, capsys):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cnf = tmp_path / "p.cnf"
    assert main(["export", puzzle, "--to", "dimacs", "--opt", "card=seqcounter", "-o", str(cnf)]) == 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as solver:
        assert solver.solve()
        answer = tmp_path / "model.txt"
        answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, solver.get_model())) + " 0\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    # Without --formula the instance is re-encoded with the same options.
    assert main(["decode", puzzle, str(answer), "--opt", "card=seqcounter", "--json"]) == 0
    capsys.readouterr()
    answer.write_text("v " + " ".join(str(-abs(int(x))) for x in answer.read_text().split()[3:-1]) + " 0\n")
    assert main(["decode", puzzle, str(answer), "--formula", str(cnf)]) == 2
    assert "gives cell" in capsys.readouterr().err


@pytest.mark.parametrize("to, marker", [("opb", "* #variable="), ("cpsat", "variables"),
                                        ("mzn", "array[CELLS] of var VALUES")])
def test_export_formats(puzzle, capsys, to, marker):
    assert main(["export", puzzle, "--to", to]) == 0
    assert marker in capsys.readouterr().out


# Tatham's 4x4 "easy" id, and the same puzzle with one clue more (not critical: 3 at (0,1))
GRADED = "4de:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,"
GRADED_PLUS = "4de:0R,3,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,"


@pytest.fixture
def graded(tmp_path):
    path = tmp_path / "graded.tatham"
    path.write_text(GRADED + "\n")
    return str(path)


def test_a_solution_carries_no_grade(graded, tmp_path, capsys):
    """Issue 21: a solved file copied the puzzle's "grade": "e", so rate said "the file says
    easy" of a grid with nothing left to deduce. Derived files drop what rates the clues."""
    assert main(["solve", graded, "--to", "json", "--quiet"]) == 0
    solved = tmp_path / "solved.json"
    solved.write_text(capsys.readouterr().out)
    doc = json.loads(solved.read_text())
    assert "grade" not in doc and all(0 not in row for row in doc["givens"])
    assert main(["rate", str(solved)]) == 0
    assert "the file says" not in capsys.readouterr().out
    assert main(["solve", graded, "--to", "tatham", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("4:4R,")  # no d<grade> on the solution
    assert main(["convert", str(solved), "--to", "tatham"]) == 0
    assert capsys.readouterr().out.startswith("4:4R,")
    assert main(["show", graded]) == 0  # the puzzle read keeps its grade
    assert capsys.readouterr().out.startswith("futoshiki 4 grade=e")


def test_a_minimized_puzzle_carries_no_grade(tmp_path, capsys):
    path = tmp_path / "plus.tatham"
    path.write_text(GRADED_PLUS + "\n")
    assert main(["minimize", str(path), "--seed", "1", "--to", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "grade" not in doc
    assert sum(v != 0 for row in doc["givens"] for v in row) < 3  # a clue went
    assert main(["minimize", str(path), "--seed", "1", "--to", "tatham"]) == 0
    assert capsys.readouterr().out.startswith("4:")


def test_a_puzzle_generated_from_a_template_carries_no_grade(capsys):
    assert main(["generate", "--family", "futoshiki-adjacent", "--size", "4", "--seed", "1",
                 "--param", "grade=k"]) == 0
    assert "grade" not in json.loads(capsys.readouterr().out)
    # a puzzle generated for a grade says the grade it was rated
    assert main(["generate", "--family", "futoshiki", "--size", "4", "--grade", "easy",
                 "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["grade"] == "e"
