"""The MiniZinc export run by the minizinc binary (Gecode), and the minizinc backend."""

from __future__ import annotations

import dataclasses
import random
import shutil
import subprocess

import pytest

from futocp.backends import minizinc as minizinc_module
from futocp.backends.minizinc import MinizincBackend
from futocp.board import Board
from futocp.errors import InputError, SolverError, UnsupportedError, UsageError
from futocp.families import futoshiki, grid_lines, latin_square, sudoku
from futocp.model import build_model
from futocp.mzn import GECODE_6_2_REDEFINITIONS, parse_mzn_output, to_mzn, write_redefinitions
from futocp.relations import Relation, RelationKind, register, unregister
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import (
    BINARY_KINDS,
    apart_gap_board,
    apart_kind,
    hidden_board,
    hidden_latin,
    hidden_relations,
    hidden_sudoku4,
    kind_board,
    random_cages,
    within,
)

needs_minizinc = pytest.mark.skipif(
    shutil.which("minizinc") is None,
    reason="the minizinc binary is not on the PATH (Debian package minizinc)")

FUTOSHIKI = futoshiki(4, [[1, 2, 3, 4], [0] * 4, [0] * 4, [0] * 4],
                      less=[((1, 0), (2, 0)), ((3, 3), (3, 2))])
STRINGS = Board(16, tuple(grid_lines(4, 4)), ("a", "a", "b", "b"), shape=(4, 4))
# label 3 once per line: the 3s at (1,3), (2,0), (3,1) force (0,2) = 3, a clue says 1
HIDDEN_UNSAT = Board(16, tuple(grid_lines(4, 4)), (1, 1, 2, 3),
                     clues=((2, 1), (7, 3), (8, 3), (13, 3)), shape=(4, 4))


def pigeonhole(n: int) -> Board:
    """Unsatisfiable: row 0's first n-1 cells can only hold n-2 labels."""
    g = [[0] * n for _ in range(n)]
    for c in range(n - 1):
        g[1 + c][c] = n - 1
        g[1 + (c + 1) % (n - 1)][c] = n
    return latin_square(n, g)


def run_minizinc(text: str, tmp_path, *args: str) -> str:
    path = tmp_path / "model.mzn"
    path.write_text(text)
    proc = subprocess.run(["minizinc", "--solver", "gecode", *args, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_export_text() -> None:
    model = build_model(FUTOSHIKI)
    text = to_mzn(model)
    assert "array[CELLS] of var VALUES: x;" in text
    assert "all_different([x[c] | c in alldiff[g]]) :: domain" in text
    assert "all_different_int" not in text  # deprecated since MiniZinc 2.6.0
    assert "less_a = [5, 16]" in text and "less_b = [9, 15]" in text
    assert ":: domain" not in to_mzn(model, consistency="solver")
    with pytest.raises(UsageError):
        to_mzn(model, consistency="bounds")
    with pytest.raises(UsageError):
        to_mzn(model, search="first_fail")
    with pytest.raises(UsageError):
        to_mzn(model, relations="clauses")


def test_parse_output() -> None:
    model = build_model(STRINGS)
    out = parse_mzn_output(model, "futocp-solution: [1, 1, 2, 2, 2, 2, 1, 1, 1, 2, 1, 2, 2, 1, 2, 1]\n"
                                  "----------\n%%%mzn-stat: nodes=12\n")
    assert out.solutions == [tuple("aabbbbaaabab" "baba")]
    assert (out.status, out.complete, out.stats["nodes"]) == ("sat", False, 12)
    assert parse_mzn_output(model, "=====UNSATISFIABLE=====\n").status == "unsat"
    assert parse_mzn_output(model, "=====UNKNOWN=====\n").status == "unknown"
    with pytest.raises(SolverError, match="minizinc answered"):  # the solver's output
        parse_mzn_output(model, "futocp-solution: [1, 2]\n")
    with pytest.raises(SolverError):
        parse_mzn_output(model, "futocp-solution: [" + ", ".join(["3"] * 16) + "]\n")
    with pytest.raises(InputError, match="^out.txt:2: a solution line with 16 values"):  # a file
        parse_mzn_output(model, "----------\nfutocp-solution: [" + ", ".join(["3"] * 16) + "]\n",
                         source="out.txt")


@needs_minizinc
@pytest.mark.parametrize(("board", "count"), [(latin_square(4), 576), (FUTOSHIKI, 7),
                                              (STRINGS, 90)])
def test_export_run_by_gecode_decodes_to_verified_solutions(board: Board, count: int,
                                                             tmp_path) -> None:
    model = build_model(board)
    out = parse_mzn_output(model, run_minizinc(to_mzn(model), tmp_path, "-a"))
    assert (out.status, out.complete, len(out.solutions)) == ("sat", True, count)
    assert len(set(out.solutions)) == count
    for sol in out.solutions:
        assert verify(board, sol) == []


@needs_minizinc
def test_export_unsat(tmp_path) -> None:
    for board in (HIDDEN_UNSAT, pigeonhole(8)):
        model = build_model(board)
        assert model.conflict is None
        out = parse_mzn_output(model, run_minizinc(to_mzn(model), tmp_path))
        assert (out.status, out.solutions, out.complete) == ("unsat", [], True)


@needs_minizinc
def test_backend_counts_and_limits() -> None:
    backend = MinizincBackend()
    for board, count in ((latin_square(4), 576), (STRINGS, 90)):
        r = backend.solve(build_model(board), limit=None)
        assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, count, True)
        assert all(verify(board, s) == [] for s in r.solutions)
    r = backend.solve(build_model(latin_square(4)), limit=5)
    assert (r.status, r.n_solutions, r.exhausted) == (Status.SAT, 5, False)
    r = backend.solve(build_model(latin_square(3)), limit=13)
    assert (r.n_solutions, r.exhausted) == (12, True)
    r = backend.solve(build_model(pigeonhole(12)), limit=None)
    assert (r.status, r.exhausted) == (Status.UNSAT, True)
    r = backend.solve(build_model(HIDDEN_UNSAT), consistency="solver")
    assert r.status is Status.UNSAT


@needs_minizinc
def test_backend_time_limit() -> None:
    # 812,851,200 Latin squares of order 6: enumeration stops at the limit
    r = MinizincBackend().solve(build_model(latin_square(6)), limit=None,
                               time_limit=within(0.5))  # minizinc starts slowly on a busy machine
    assert r.status is Status.SAT and r.n_solutions > 0 and r.exhausted is False
    assert all(verify(latin_square(6), s) == [] for s in r.solutions[:50])


@needs_minizinc
def test_backend_bad_solver() -> None:
    with pytest.raises(SolverError, match="backend 'minizinc'"):  # exit 70, not bad input
        MinizincBackend().solve(build_model(latin_square(3)), solver="no-such-solver")


# consecutive over labels 1, 3, 5: no allowed pair (issue 13: Gecode crashed on the empty table)
EMPTY_SUPPORT = Board(9, tuple(grid_lines(3, 3)), (1, 3, 5),
                      relations=(Relation("consecutive", (0, 1)),), shape=(3, 3))


def test_empty_support_posts_false() -> None:
    text = to_mzn(build_model(EMPTY_SUPPORT, "none"))
    assert "constraint false;  % table1: consecutive allows no pair of these labels" in text
    assert "table(" not in text and "array[int, 1..2] of int: table1" not in text


@needs_minizinc
@pytest.mark.parametrize("relations", ["table", "arithmetic"])
def test_empty_support_is_unsat(relations: str) -> None:
    model = build_model(EMPTY_SUPPORT, "none")
    assert model.conflict is None  # no shortcut: the solver itself must answer
    r = MinizincBackend().solve(model, limit=None, relations=relations, time_limit=60)
    assert r.status is Status.UNSAT and r.exhausted and brute_force_count(EMPTY_SUPPORT) == 0


def test_available_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "not on the PATH" in MinizincBackend.available()


# ------------------------------------------------------------------ relation kinds
# Small random boards (kind_board, hidden_relations and hidden_board come from
# tests/strategies.py, shared with tests/test_pyconstraint.py): a hidden solution,
# relations drawn from it (mostly true, a few random ones that may make the board
# unsatisfiable), some of its labels as givens.


def solve_checked(board: Board, model=None, **kw):
    model = build_model(board) if model is None else model
    r = MinizincBackend().solve(model, limit=None, **kw)
    assert all(verify(board, s) == [] for s in r.solutions)
    assert len(set(r.solutions)) == len(r.solutions) and r.exhausted
    return r


def test_export_relations_text() -> None:
    board = dataclasses.replace(latin_square(4), relations=(
        Relation("consecutive", (0, 1)), Relation("nonconsecutive", (1, 2)),
        Relation("ratio", (2, 3)), Relation("ratio", (4, 5)), Relation("less", (5, 6)),
        Relation("cage", (8, 9, 12), (("sum", 7),))))
    text = to_mzn(build_model(board, "none"))
    assert "table1: consecutive" in text and "table3: ratio" in text
    assert "array[1..2] of CELLS: table3_a = [3, 5];" in text
    # ratio over labels 1..4: (1,2) (2,1) (2,4) (4,2), 1-based value indices
    assert "table3 = array2d(1..4, 1..2, [1, 2, 2, 1, 2, 4, 4, 2]);" in text
    assert "x[less_a[i]] < x[less_b[i]]" in text
    assert "distinct = [{9, 10, 13}]" in text and "cage_sum = [7]" in text
    assert "sum(c in cage_cells[k])(lab(c)) = cage_sum[k]" in text
    assert "function var int: lab(CELLS: c) = x[c];" in text
    arith = to_mzn(build_model(board, "none"), relations="arithmetic")
    assert "abs(lab(consecutive_a[i]) - lab(consecutive_b[i])) = 1" in arith
    assert "abs(lab(nonconsecutive_a[i]) - lab(nonconsecutive_b[i])) != 1" in arith
    assert "table1: ratio" in arith


@needs_minizinc
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", [*BINARY_KINDS, "cage", "mixed"])
def test_relation_kinds_count_as_brute_force(kind: str, seed: int) -> None:
    board = kind_board(kind, seed, "mzn-")
    assert kind == "mixed" or board.relation_kinds == {kind}
    expected = brute_force_count(board)
    r = solve_checked(board, build_model(board, "none"))
    assert r.n_solutions == expected
    assert r.status is (Status.SAT if expected else Status.UNSAT)
    # the arithmetic encodings, the lists, and the file exactly as exported
    r = solve_checked(board, relations="arithmetic", globals="library")
    assert r.n_solutions == expected


@needs_minizinc
@pytest.mark.parametrize("labels", [(1, 2, 4, 8), (0, 1, 2, 3), (3, 4, 5, 6)])
def test_relations_over_other_labels(labels: tuple[int, ...]) -> None:
    # lab(c) is label[x[c]] for (1, 2, 4, 8), x[c] shifted for the others
    rng = random.Random(sum(labels))
    grid = [[labels[v - 1] for v in row] for row in hidden_latin(4, rng)]
    kinds = ("less", *BINARY_KINDS)
    rels = hidden_relations(grid, kinds, 8, rng, false_rate=0.0)
    rels += random_cages(grid, rng, max_size=3)[:2]
    base = Board(16, tuple(grid_lines(4, 4)), labels, shape=(4, 4))
    board = hidden_board(grid, rels, 2, rng, base)
    assert any(r.kind == "cage" for r in board.relations)
    expected = brute_force_count(board)
    assert expected >= 1
    for relations in ("table", "arithmetic"):
        assert solve_checked(board, relations=relations).n_solutions == expected


@needs_minizinc
def test_export_with_relations_run_by_hand(tmp_path) -> None:
    board = kind_board("mixed", 1, "mzn-")
    expected = brute_force_count(board)
    model = build_model(board, "none")
    text = to_mzn(model)
    plain = parse_mzn_output(model, run_minizinc(text, tmp_path, "-a"))
    assert (len(plain.solutions), plain.complete) == (expected, True)
    lib = tmp_path / "lib"
    assert write_redefinitions(lib) == sorted(GECODE_6_2_REDEFINITIONS)
    native = parse_mzn_output(model, run_minizinc(text, tmp_path, "-a", "-I", str(lib)))
    assert sorted(native.solutions) == sorted(plain.solutions)
    assert all(verify(board, s) == [] for s in native.solutions)


@needs_minizinc
def test_redefinitions_reach_gecode_propagators(tmp_path) -> None:
    binary = shutil.which("minizinc")
    needed = minizinc_module._redefinitions(binary, "gecode")
    if not needed:
        pytest.skip("this MiniZinc's Gecode library maps all_different and table itself")
    board = dataclasses.replace(latin_square(4), relations=(Relation("ratio", (0, 1)),))
    path = tmp_path / "model.mzn"
    path.write_text(to_mzn(build_model(board)))
    write_redefinitions(tmp_path / "lib", needed)
    fzn = tmp_path / "model.fzn"
    proc = subprocess.run([binary, "--solver", "gecode", "-c", "-I", str(tmp_path / "lib"),
                           "--fzn", str(fzn), str(path)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    flat = fzn.read_text()
    assert "all_different_int(" in flat and "gecode_table_int(" in flat
    assert "was deprecated" not in proc.stderr  # all_different_int is not called by name
    r = MinizincBackend().solve(build_model(board), limit=1)
    assert r.stats["redefinitions"] == sorted(needed)
    r = MinizincBackend().solve(build_model(board), limit=1, globals="library")
    assert r.stats["redefinitions"] == []


def test_redefinitions_only_for_a_gecode_library_without_them(tmp_path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    lib = tmp_path / "gecode"
    lib.mkdir()
    (lib / "all_different_int.mzn").write_text(
        "predicate all_different_int(array[int] of var int: x);\n")
    (lib / "table_int.mzn").write_text("predicate gecode_table_int(array[int] of var int: x, "
                                       "array[int] of int: t);\n")
    where = {"gecode": ("org.gecode.gecode", str(lib)), "chuffed": ("org.chuffed.chuffed",
                                                                    str(lib))}
    monkeypatch.setattr(minizinc_module, "_solver_library", lambda binary, solver: where.get(
        solver, (None, None)))
    assert sorted(minizinc_module._redefinitions("minizinc", "gecode")) == sorted(
        GECODE_6_2_REDEFINITIONS)
    assert minizinc_module._redefinitions("minizinc", "chuffed") == {}
    assert minizinc_module._redefinitions("minizinc", "unknown") == {}
    (lib / "fzn_all_different_int.mzn").write_text("% a newer library\n")
    assert list(minizinc_module._redefinitions("minizinc", "gecode")) == ["fzn_table_int.mzn"]


@needs_minizinc
def test_cage_unreachable_sum_is_unsat(tmp_path) -> None:
    board = dataclasses.replace(sudoku((2, 2)), relations=(
        Relation("cage", (0, 1), (("sum", 10),)),))  # two different labels of 1..4 reach 7
    model = build_model(board)
    assert model.conflict is not None
    r = MinizincBackend().solve(model)
    assert (r.status, r.exhausted) == (Status.UNSAT, True) and "sum" in r.stats["reason"]
    # the exported file says so too, and MiniZinc proves it
    text = to_mzn(build_model(board, "none"))
    assert "% known unsatisfiable" in text
    out = parse_mzn_output(model, run_minizinc(text, tmp_path))
    assert (out.status, out.complete) == ("unsat", True)
    # reachable alone, not with the givens: only the search can tell
    board = dataclasses.replace(sudoku((2, 2)), clues=((0, 3),), relations=(
        Relation("cage", (0, 1), (("sum", 3),)),))
    model = build_model(board, "none")
    assert model.conflict is None
    r = MinizincBackend().solve(model, limit=None)
    assert (r.status, r.exhausted) == (Status.UNSAT, True)


@needs_minizinc
def test_killer_sudoku_4x4_from_hidden_solution() -> None:
    for seed in range(3):
        rng = random.Random(seed)
        grid = hidden_sudoku4(rng)
        board = hidden_board(grid, random_cages(grid, rng, max_size=4), 0, rng, sudoku((2, 2)))
        expected = brute_force_count(board)
        r = solve_checked(board)
        assert r.n_solutions == expected >= 1
        assert tuple(v for row in grid for v in row) in r.solutions


@needs_minizinc
def test_registered_kind_goes_through_the_table() -> None:
    register(apart_kind())
    try:
        assert "apart" in MinizincBackend.supported()
        board = apart_gap_board()
        text = to_mzn(build_model(board))
        assert "apart, k=1" in text and "apart, k=2" in text  # one table per parameters
        expected = brute_force_count(board)
        assert expected >= 1
        for filtering in ("lists", "none"):
            for relations in ("table", "arithmetic"):
                r = solve_checked(board, build_model(board, filtering), relations=relations)
                assert r.n_solutions == expected
    finally:
        unregister("apart")


def test_a_new_nary_kind_is_a_table_and_a_large_one_is_refused() -> None:
    register(RelationKind("same-sum", lambda v, p: sum(v) == p["sum"], arity=None,
                          params=("sum",)))
    try:
        board = dataclasses.replace(latin_square(3), relations=(
            Relation("same-sum", (0, 4, 8), (("sum", 6),)),))
        model = build_model(board)
        assert "constraint table([x[1], x[5], x[9]], ntable1);" in to_mzn(model)
        big = dataclasses.replace(latin_square(9), relations=(
            Relation("same-sum", tuple(range(9)), (("sum", 45),)),))
        with pytest.raises(UnsupportedError, match="same-sum"):
            to_mzn(build_model(big, "none"))
        if MinizincBackend.available() is True:
            r = solve_checked(board, model)
            assert r.n_solutions == brute_force_count(board) and r.exhausted
    finally:
        unregister("same-sum")
