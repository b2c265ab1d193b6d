"""The integer-programming, SMT and Choco backends (issue 24) and their exchange formats.

The conformance suite and the Hypothesis agreement run these backends through
the REGISTRY; here: every option value on boards of every relation kind against
the oracle's counts, an n-ary kind known only to the registry, the solvers'
stats, the limits (a child process, HiGHS after a fork), and the exports read
back by HiGHS, SCIP and z3, their answers decoded and verified.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from futocp.answers import answer_format, decode_answer, read_answer
from futocp.backends import REGISTRY, get_backend
from futocp.board import Board
from futocp.cli import main
from futocp.errors import BackendUnavailable, InputError, UnsupportedError
from futocp.export import decode, export
from futocp.families import futoshiki, latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.relations import RelationKind, register, unregister
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .relation_boards import KINDS, keen_board, killer_board, relation_board, towers_board
from .strategies import highs_answer, multiset_board, string_square

ROOT = Path(__file__).resolve().parents[1]
NEW = ("mip", "smt", "choco")


def _need(name: str) -> None:
    ok = REGISTRY[name].available()
    if ok is not True:
        pytest.skip(f"{name}: {ok}")


def _variants() -> list:
    """Every backend with each value of its choice options (the defaults first)."""
    out = []
    for name in NEW:
        out.append(pytest.param(name, {}, id=name))
        for opt in REGISTRY[name].options:
            for value in opt.choices or ():
                if value != opt.default:
                    out.append(pytest.param(name, {opt.name: value}, id=f"{name}-{opt.name}={value}"))
    out.append(pytest.param("smt", {"occurrences": False}, id="smt-occurrences=False"))
    return out


def _boards() -> list[Board]:
    """Small boards of every relation kind the registry ships, and string labels."""
    boards = [relation_board(4, KINDS, seed=s, count=5, givens=2, truthful=s % 2 == 0)
              for s in range(4)]
    boards += [killer_board(3, givens=1), killer_board(8, wrong_sum=True), string_square(),
               relation_board(3, ("nodot",), seed=5, count=4, givens=0)]
    # main's n-ary kinds, by the generic decomposition (the capability nary)
    boards += [keen_board(4, 1), keen_board(4, 3, truthful=False), towers_board(4, 2, clues=5),
               towers_board(4, 4, clues=3, truthful=False)]
    # (the 90 solutions of the multiset board: the conformance suite counts them)
    return boards


@pytest.mark.parametrize("name, options", _variants())
def test_counts_equal_the_oracle(name, options):
    _need(name)
    backend = get_backend(name)
    for board in _boards():
        expected = brute_force_count(board)
        for filtering in ("lists", "none"):
            result = backend.solve(build_model(board, filtering), limit=None, time_limit=60,
                                   **options)
            assert result.exhausted, (board, result.stats)
            assert result.n_solutions == len(set(result.solutions)) == expected, board
            assert result.status is (Status.SAT if expected else Status.UNSAT)
            for sol in result.solutions:
                assert verify(board, sol) == []


@pytest.fixture
def thermo():
    """An n-ary kind no backend has a specialised encoding of: labels increase along
    the cells (a thermometer)."""
    kind = register(RelationKind("thermo", lambda v, p: all(a < b for a, b in zip(v, v[1:], strict=False)),
                                 arity=None, symmetric=False,
                                 description="labels increase along the cells"))
    yield kind
    unregister("thermo")


def test_an_nary_kind_of_the_registry_by_its_allowed_tuples(thermo):
    from futocp.relations import Relation

    board = replace(latin_square(4, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0]]),
                    relations=(Relation("thermo", (0, 1, 5)), Relation("thermo", (15, 14, 10))))
    expected = brute_force_count(board)
    assert 0 < expected < 576
    model = build_model(board)
    assert "thermo" in model.features
    for name in NEW:
        if REGISTRY[name].available() is not True:
            continue
        result = get_backend(name).solve(model, limit=None, time_limit=60)
        assert result.n_solutions == expected and result.exhausted, name
        assert all(verify(board, s) == [] for s in result.solutions)
    # the size guard of the generic decomposition (main's: TableTooLarge, naming the relation)
    with pytest.raises(UnsupportedError, match="thermo.*allowed tuples"):
        model.allowed_tuples(board.relations[0], limit=1)


# A 9x9 Towers id of Tatham's generator (sgt-towers --generate 1 9dh): on full lists
# its clues' tables pass 100,000 rows (the size guard); their diagrams have a few hundred arcs.
TOWERS_9 = ("9:2/4/2/3/3//3/2/2//3/3/1//5///3//3/3///5//4///3/2//4/2/4//4,"
            "c5n4c2b1c5l8e1_5g4f3a2k5a3")


@pytest.mark.parametrize("name", [  # mip and smt: 10-30 s each
    "choco", pytest.param("mip", marks=pytest.mark.slow), pytest.param("smt", marks=pytest.mark.slow)])
def test_towers_clues_of_nine_cells_by_their_diagram(name):
    _need(name)
    from futocp.formats import loads

    board = loads(TOWERS_9)
    model = build_model(board, "none")  # the clues' tables on the full lists
    with pytest.raises(UnsupportedError, match="allowed tuples"):
        for rel in board.relations:
            model.allowed_tuples(rel)
    result = get_backend(name).solve(model, limit=2, time_limit=120)
    assert result.n_solutions == 1 and result.exhausted, result.stats
    assert verify(board, result.solutions[0]) == []


def test_mip_model_and_stats(small_futoshiki):
    _need("mip")
    board = small_futoshiki
    lm = get_backend("mip").compile(build_model(board, "none"))
    names = set(lm.names)
    assert {"x_0_0", "x_15_3"} <= names and len(lm.cell_vars) == 16
    rows = {row.name: row for row in lm.rows}
    less = next(r for r in rows.values() if r.sense == "G")  # less: a difference of values
    assert sorted(set(less.coefs)) != [1] and less.rhs == 1
    solvers = ["highs"] + (["scip"] if _has("pyscipopt") else [])
    for solver in solvers:
        result = get_backend("mip").solve(build_model(board), limit=None, solver=solver)
        assert result.n_solutions == brute_force_count(board) and result.exhausted
        stats = result.stats
        assert stats["solver"] == solver and stats["solves"] == result.n_solutions + 1
        assert {"nodes", "lp_iterations", "gap"} <= set(stats), stats
        assert stats["gap"] == 0


def test_smt_and_choco_stats():
    board = read(str(ROOT / "instances/killer-sudoku/6x6-01.yaml"))
    expected = {"smt": {"conflicts", "decisions"}, "choco": {"nodes", "fails", "backtracks"}}
    for name, keys in expected.items():
        if REGISTRY[name].available() is not True:
            continue
        result = get_backend(name).solve(build_model(board), limit=2)
        assert result.status is Status.SAT and verify(board, result.solutions[0]) == []
        assert keys <= set(result.stats), (name, result.stats)


def test_the_solve_runs_in_a_child_process_under_a_memory_limit():
    board = futoshiki(5, less=[((0, 0), (0, 1)), ((1, 1), (2, 1))])
    for name in NEW:
        if REGISTRY[name].available() is not True:
            continue
        result = get_backend(name).solve(build_model(board), limit=3, memory_limit=4000)
        assert result.stats.get("process") == "child", name
        assert result.n_solutions == 3 and all(verify(board, s) == [] for s in result.solutions)


@pytest.mark.timeout(120)
def test_highs_in_a_forked_child_after_a_multithreaded_solve():
    # HiGHS's thread pool does not survive a fork: a child using the inherited one hangs
    _need("mip")
    model = build_model(latin_square(6))
    assert get_backend("mip").solve(model, threads=2).status is Status.SAT
    result = get_backend("mip").solve(model, threads=2, isolate=True, time_limit=60)
    assert result.status is Status.SAT and result.stats["process"] == "child"


def test_time_limit_keeps_what_an_enumeration_found():
    board = latin_square(9)
    for name in NEW:
        if REGISTRY[name].available() is not True:
            continue
        result = get_backend(name).solve(build_model(board), limit=None, time_limit=0.6)
        assert result.status is Status.SAT and not result.exhausted, name
        assert "time limit of 0.6 s" in result.stats["reason"]
        assert all(verify(board, s) == [] for s in result.solutions)


def test_scip_missing_is_said(monkeypatch):
    _need("mip")
    monkeypatch.setitem(sys.modules, "pyscipopt", None)  # import pyscipopt -> ImportError
    with pytest.raises(BackendUnavailable, match=r"pyscipopt.*futocp\[mip\]"):
        get_backend("mip").solve(build_model(latin_square(3)), solver="scip")


def test_unavailable_backends_say_why(monkeypatch):
    for name, module in (("mip", "highspy"), ("smt", "z3"), ("choco", "pychoco")):
        monkeypatch.setitem(sys.modules, module, None)
        reason = REGISTRY[name].available()
        assert isinstance(reason, str) and "not installed" in reason, name
        with pytest.raises(BackendUnavailable, match=rf"futocp\[{name}\]"):
            get_backend(name).solve(build_model(latin_square(3)))


# ------------------------------------------------------------ exchange formats
def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _export_boards() -> list[Board]:
    return [read(str(ROOT / "instances/futoshiki/5x5-tricky-01.json")),
            read(str(ROOT / "instances/killer-sudoku/6x6-01.yaml")),
            read(str(ROOT / "instances/kropki/6x6-01.json")),
            multiset_board(), string_square()]


@pytest.mark.parametrize("to", ["mps", "lp"])
def test_mps_and_lp_read_by_highs_and_scip_decode_to_verified_solutions(to, tmp_path):
    for k, board in enumerate(_export_boards()):
        text = export(build_model(board), to)
        path = tmp_path / f"b{k}.{to}"
        answer = highs_answer(text, path)
        assert answer_format(answer) == "highs"
        assert verify(board, decode(board, text, answer)) == []
        if _has("pyscipopt"):
            import pyscipopt

            m = pyscipopt.Model()
            m.hideOutput()
            m.readProblem(str(path))
            m.optimize()
            assert m.getStatus() == "optimal"
            scip_sol = tmp_path / f"b{k}.{to}.scip"
            m.writeBestSol(str(scip_sol))
            answer = scip_sol.read_text()
            assert answer_format(answer) == "scip"
            assert verify(board, decode_answer(board, answer)) == []


def test_an_unsat_export_has_no_solution_to_decode(tmp_path):
    highspy = pytest.importorskip("highspy")
    board = futoshiki(3, less=[((0, 0), (0, 1)), ((0, 1), (0, 2)), ((1, 0), (0, 0)),
                               ((2, 2), (1, 2)), ((1, 2), (0, 2))])
    path = tmp_path / "u.mps"
    path.write_text(export(build_model(board, "none"), "mps"))
    h = highspy._Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kInfeasible
    h.writeSolution(str(tmp_path / "u.sol"), 0)
    with pytest.raises(InputError, match="HiGHS found no solution"):
        decode_answer(board, (tmp_path / "u.sol").read_text(), source="u.sol")


@pytest.mark.parametrize("model", ["int", "bool"])
def test_smt2_read_by_z3_decodes_to_verified_solutions(model, tmp_path):
    z3 = pytest.importorskip("z3")
    binary = shutil.which("z3", path=os.path.dirname(sys.executable))
    for k, board in enumerate(_export_boards()):
        text = export(build_model(board), "smt2", model=model)
        path = tmp_path / f"b{k}.smt2"
        path.write_text(text)
        solver = z3.Solver()
        solver.from_file(str(path))
        assert solver.check() == z3.sat
        answer = "sat\n" + solver.model().sexpr()
        assert verify(board, decode(board, text, answer)) == []
        if binary is not None:  # the z3 program of the z3-solver package
            out = subprocess.run([binary, str(path)], capture_output=True, text=True,
                                 timeout=60).stdout
            assert verify(board, decode_answer(board, out)) == []


def test_cli_export_and_decode(tmp_path, capsys):
    highspy = pytest.importorskip("highspy")
    puzzle = str(ROOT / "instances/futoshiki/5x5-tricky-01.json")
    lp = tmp_path / "p.lp"
    assert main(["export", puzzle, "--to", "lp", "-o", str(lp)]) == 0
    h = highspy._Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(lp))
    h.run()
    h.writeSolution(str(tmp_path / "p.sol"), 0)
    assert main(["decode", puzzle, str(tmp_path / "p.sol"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    assert main(["decode", puzzle, str(tmp_path / "p.sol"), "--formula", str(lp)]) == 0
    assert capsys.readouterr().out.strip().endswith("verified")
    other = str(ROOT / "instances/futoshiki/6x6-easy-01.json")  # another board's answer
    assert main(["decode", other, str(tmp_path / "p.sol"), "--formula", str(lp)]) == 2
    assert "the formula is for 25 cells" in capsys.readouterr().err


def test_decode_errors():
    board = latin_square(2, [[1, 0], [0, 0]])
    with pytest.raises(InputError, match="z3 answered unsat"):
        decode_answer(board, "unsat\n", source="m.txt")
    with pytest.raises(InputError, match="names cell 7"):
        decode_answer(board, "sat\n((define-fun x_7 () Int 1))")
    with pytest.raises(InputError, match="gives cell .* no label"):
        decode_answer(board, "sat\n((define-fun x_0 () Int 1))")
    with pytest.raises(InputError, match="not a label"):
        decode_answer(board, "sat\n((define-fun x_0 () Int (- 3)))")
    with pytest.raises(InputError, match="2 labels"):
        decode_answer(board, "objective value: 0\nx_0_0 1\nx_0_1 1\nx_1_1 1\nx_2_1 1\nx_3_0 1\n")
    answer = read_answer("Model status\nOptimal\n\n# Primal solution values\nFeasible\n"
                         "Objective 0\n# Columns 2\nx_0_0 1\nt_0_1 0\n# Rows 0\n")
    assert answer.solver == "highs" and answer.values == {"x_0_0": 1, "t_0_1": 0}
    assert answer.lines["t_0_1"] == 9
