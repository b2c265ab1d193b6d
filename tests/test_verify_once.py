"""Every returned solution is verified exactly once: by the API, auto and the command line together."""

from __future__ import annotations

import json
import sys

import pytest

import futocp
from futocp.cli import main
from futocp.families import latin_square
from futocp.result import Result, Status

VERIFY = sys.modules["futocp.verify"]  # the module (``futocp.verify`` is the function)
FREE = "1...\n.2..\n....\n...."  # a 4x4 Latin square with two givens: many solutions


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """The solutions :func:`futocp.verify.verify` checks, one entry a call (its first step,
    ``_flatten``, is counted: every call of ``verify`` from anywhere runs it)."""
    seen: list[tuple[object, ...]] = []
    flatten = VERIFY._flatten

    def counting(board: object, values: object) -> list[object]:
        out = flatten(board, values)
        seen.append(tuple(out))
        return out

    monkeypatch.setattr(VERIFY, "_flatten", counting)
    return seen


@pytest.mark.parametrize("limit", [1, 3])
def test_api_verifies_each_answer_once(checks: list[tuple[object, ...]], limit: int) -> None:
    board = latin_square(4, [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    result = futocp.solve(board, limit=limit)  # the default backend, auto
    assert result.n_solutions == limit
    assert sorted(checks) == sorted(result.solutions)  # each once, none twice
    assert result.violations() == [[]] * limit  # the kept verdicts: no check again
    assert len(checks) == limit


def test_decided_board_verified_once(checks: list[tuple[object, ...]]) -> None:
    board = latin_square(2, [[1, 0], [0, 0]])  # the filtering decides every cell
    result = futocp.solve(board)
    assert result.stats.get("decided") and result.n_solutions == 1
    assert result.violations() == [[]]
    assert len(checks) == 1


def test_verdict_is_kept_and_wrong_answers_are_found(checks: list[tuple[object, ...]]) -> None:
    result = Result(Status.SAT, [(1, 2, 2, 1), (1, 1, 2, 2)], board=latin_square(2))
    assert [bool(v) for v in result.violations()] == [False, True]
    assert result.verdict(1)[0].kind == "asterism"
    assert len(checks) == 2


@pytest.mark.parametrize("extra, n", [([], 1), (["--json"], 1), (["--limit", "3"], 3),
                                      (["--backend", "listcolor", "--limit", "2"], 2)])
def test_cli_solve_verifies_each_answer_once(checks: list[tuple[object, ...]],
                                             capsys: pytest.CaptureFixture[str],
                                             extra: list[str], n: int) -> None:
    assert main(["solve", "--puzzle", FREE, "--format", "text", *extra]) == 0
    out = capsys.readouterr().out
    if "--json" in extra:
        assert json.loads(out)["verified"] is True
    assert len(checks) == n and len(set(checks)) == n


def test_cli_show_solution_verifies_once(checks: list[tuple[object, ...]],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--puzzle", FREE, "--format", "text", "--solution"]) == 0
    assert "solution (not unique)" in capsys.readouterr().out  # two asked for, two found
    assert len(checks) == 2 and len(set(checks)) == 2
