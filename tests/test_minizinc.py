"""The MiniZinc export run by the minizinc binary (Gecode), and the minizinc backend."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from futocp.backends.minizinc import MinizincBackend
from futocp.board import Board
from futocp.errors import FutocpError, UsageError
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.model import build_model
from futocp.mzn import parse_mzn_output, to_mzn
from futocp.result import Status
from futocp.verify import verify

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
    assert "all_different_int" in text and ":: domain" in text
    assert "less_a = [5, 16]" in text and "less_b = [9, 15]" in text
    assert ":: domain" not in to_mzn(model, consistency="solver")
    with pytest.raises(UsageError):
        to_mzn(model, consistency="bounds")
    with pytest.raises(UsageError):
        to_mzn(model, search="first_fail")


def test_parse_output() -> None:
    model = build_model(STRINGS)
    out = parse_mzn_output(model, "futocp-solution: [1, 1, 2, 2, 2, 2, 1, 1, 1, 2, 1, 2, 2, 1, 2, 1]\n"
                                  "----------\n%%%mzn-stat: nodes=12\n")
    assert out.solutions == [tuple("aabbbbaaabab" "baba")]
    assert (out.status, out.complete, out.stats["nodes"]) == ("sat", False, 12)
    assert parse_mzn_output(model, "=====UNSATISFIABLE=====\n").status == "unsat"
    assert parse_mzn_output(model, "=====UNKNOWN=====\n").status == "unknown"
    with pytest.raises(FutocpError):
        parse_mzn_output(model, "futocp-solution: [1, 2]\n")
    with pytest.raises(FutocpError):
        parse_mzn_output(model, "futocp-solution: [" + ", ".join(["3"] * 16) + "]\n")


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
    r = backend.solve(build_model(latin_square(3)), limit=13, seed=2)
    assert (r.n_solutions, r.exhausted) == (12, True)
    r = backend.solve(build_model(pigeonhole(12)), limit=None)
    assert (r.status, r.exhausted) == (Status.UNSAT, True)
    r = backend.solve(build_model(HIDDEN_UNSAT), consistency="solver")
    assert r.status is Status.UNSAT


@needs_minizinc
def test_backend_time_limit() -> None:
    # 812,851,200 Latin squares of order 6: enumeration stops at the limit
    r = MinizincBackend().solve(build_model(latin_square(6)), limit=None, time_limit=0.5)
    assert r.status is Status.SAT and r.n_solutions > 0 and r.exhausted is False
    assert all(verify(latin_square(6), s) == [] for s in r.solutions[:50])


@needs_minizinc
def test_backend_bad_solver() -> None:
    with pytest.raises(FutocpError, match="backend 'minizinc'"):
        MinizincBackend().solve(build_model(latin_square(3)), solver="no-such-solver")


def test_available_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "not on the PATH" in MinizincBackend.available()
