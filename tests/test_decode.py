"""Every format ``futocp export`` writes decodes: export, solve outside futocp, decode.

The solver behind each format runs where it is installed (python-sat on the
DIMACS, OR-Tools on the CP-SAT proto, the ``minizinc`` binary on the ``.mzn``);
an OPB answer (no PB solver is a dependency), and an ``.mzn`` answer where
``minizinc`` is missing, are written from a solution futocp found, as a solver
would print them. Every decoded solution is checked with ``verify``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from futocp import read, solve, verify
from futocp.board import Board
from futocp.cli import main
from futocp.errors import InputError
from futocp.export import EXPORTERS, answer_format, decode, export, formula_format, read_var_map
from futocp.families import grid_lines
from futocp.model import build_model
from futocp.mzn import SOLUTION_PREFIX, read_mzn_header

from .strategies import highs_answer

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ["instances/futoshiki/5x5-several.json", "instances/killer-sudoku/6x6-01.yaml"]
STRINGS = Board(16, tuple(grid_lines(4, 4)), ("a", "a", "b", "b"), shape=(4, 4))


def _a_solution(board: Board) -> tuple:
    result = solve(board, "listcolor")
    assert result.solutions
    return result.solutions[0]


def _literals(board: Board, formula: str) -> list[int]:
    """A model of the formula's direct variables, from a solution futocp found."""
    values = _a_solution(board)
    _, var_map, _ = read_var_map(formula)
    return [var if values[cell] == label else -var for var, (cell, label) in sorted(var_map.items())]


def _dimacs(board: Board, formula: str, tmp_path: Path) -> str:
    pysat = pytest.importorskip("pysat.solvers")
    from pysat.formula import CNF

    with pysat.Solver(name="minisat22", bootstrap_with=CNF(from_string=formula).clauses) as sat:
        assert sat.solve()
        return "s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n"


def _opb(board: Board, formula: str, tmp_path: Path) -> str:
    lits = _literals(board, formula)
    return "s OPTIMUM FOUND\nv " + " ".join(f"x{v}" if v > 0 else f"-x{-v}" for v in lits) + "\n"


def _cpsat(board: Board, formula: str, tmp_path: Path) -> str:
    cp_model = pytest.importorskip("ortools.sat.python.cp_model")
    model = cp_model.CpModel()
    if hasattr(model.proto, "parse_text_format"):  # OR-Tools 9.13 and later
        assert model.proto.parse_text_format(formula)
    else:
        from google.protobuf import text_format

        text_format.Parse(formula, model.Proto())
    solver = cp_model.CpSolver()
    assert solver.status_name(solver.solve(model)) in ("OPTIMAL", "FEASIBLE")
    return str(solver.response_proto)


def _mzn(board: Board, formula: str, tmp_path: Path) -> str:
    if shutil.which("minizinc") is None:  # as minizinc prints it
        _, labels = read_mzn_header(formula)
        index = [labels.index(v) + 1 for v in _a_solution(board)]
        return f"{SOLUTION_PREFIX} {index}\n----------\n"
    path = tmp_path / "p.mzn"
    path.write_text(formula)
    proc = subprocess.run(["minizinc", "--solver", "gecode", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _highs(board: Board, formula: str, tmp_path: Path, suffix: str) -> str:
    return highs_answer(formula, tmp_path / f"p.{suffix}")


def _z3(board: Board, formula: str, tmp_path: Path) -> str:
    z3 = pytest.importorskip("z3")
    path = tmp_path / "p.smt2"
    path.write_text(formula)
    solver = z3.Solver()
    solver.from_file(str(path))
    assert solver.check() == z3.sat
    return "sat\n" + solver.model().sexpr()


SOLVERS: dict[str, Callable[[Board, str, Path], str]] = {
    "dimacs": _dimacs, "opb": _opb, "cpsat": _cpsat, "mzn": _mzn,
    "mps": lambda b, f, t: _highs(b, f, t, "mps"), "lp": lambda b, f, t: _highs(b, f, t, "lp"),
    "smt2": _z3}


def test_every_export_format_has_a_solver_here():
    assert set(SOLVERS) == set(EXPORTERS)  # a new format needs its round trip below


@pytest.mark.parametrize("fmt", sorted(EXPORTERS))
@pytest.mark.parametrize("instance", INSTANCES)
def test_export_solve_outside_decode_gives_a_verified_solution(fmt, instance, tmp_path, capsys):
    path = str(ROOT / instance)
    board = read(path)
    formula = tmp_path / f"p.{fmt}"
    assert main(["export", path, "--to", fmt, "-o", str(formula)]) == 0
    answer = tmp_path / "answer.txt"
    answer.write_text(SOLVERS[fmt](board, formula.read_text(), tmp_path))
    assert main(["decode", path, str(answer), "--formula", str(formula), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verified"] is True and doc["violations"] == []
    solution = [v for row in doc["solution"] for v in row]
    assert verify(board, solution) == []
    # without --formula, the export the answer was made for is written again
    # an OPB answer reads as DIMACS literals, over the same variables; a HiGHS
    # solution file to the LP as one to the MPS (the same columns)
    assert answer_format(answer.read_text()) == {"opb": "dimacs", "lp": "mps"}.get(fmt, fmt)
    assert main(["decode", path, str(answer), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solution"] == doc["solution"]


@pytest.mark.parametrize("fmt", sorted(EXPORTERS))
def test_string_labels_come_back_from_every_format(fmt, tmp_path):
    model = build_model(STRINGS)
    formula = export(model, fmt)
    assert formula_format(formula) == ("dimacs" if fmt == "opb" else fmt)
    # (a HiGHS, SCIP or z3 answer names its variables after cell and value: no map needed)
    values = decode(STRINGS, formula, SOLVERS[fmt](STRINGS, formula, tmp_path))
    assert set(values) == {"a", "b"} and verify(STRINGS, values) == []


def test_the_boolean_cpsat_formulation_decodes(tmp_path):
    board = read(str(ROOT / INSTANCES[0]))
    formula = export(build_model(board), "cpsat", formulation="boolean")
    assert formula.startswith("# futocp cells 25 formulation boolean labels [1, 2, 3, 4, 5]\n")
    assert verify(board, decode(board, formula, _cpsat(board, formula, tmp_path))) == []


def test_solver_verdicts_without_a_model_are_named():
    board = read(str(ROOT / INSTANCES[0]))
    model = build_model(board)
    pytest.importorskip("ortools")
    mzn, cpsat = export(model, "mzn"), export(model, "cpsat")
    with pytest.raises(InputError, match="^out.txt: the solver answered UNSATISFIABLE"):
        decode(board, mzn, "=====UNSATISFIABLE=====\n", model_source="out.txt")
    with pytest.raises(InputError, match="no solution line"):
        decode(board, mzn, "=====UNKNOWN=====\n")
    with pytest.raises(InputError, match="^r.txt:1:1: the solver answered INFEASIBLE"):
        decode(board, cpsat, "status: INFEASIBLE\n", model_source="r.txt")
    with pytest.raises(InputError, match="^r.txt:2:11: expected an integer value, got 'x'"):
        decode(board, cpsat, "status: OPTIMAL\nsolution: x\n", model_source="r.txt")
    with pytest.raises(InputError, match="the response has 3 values, the formula has 25"):
        decode(board, cpsat, "status: OPTIMAL\nsolution: [0, 1, 2]\n")


def test_a_formula_of_another_board_is_refused():
    board = read(str(ROOT / INSTANCES[0]))
    other = build_model(STRINGS)
    for fmt in ("mzn", "cpsat"):
        with pytest.raises(InputError, match="^f: the formula is for 16 cells, the board has 25"):
            decode(board, export(other, fmt), "", formula_source="f")
    with pytest.raises(InputError, match="^p.mzn:1: not a MiniZinc model exported by futocp"):
        read_mzn_header("include \"globals.mzn\";\n", "p.mzn")
