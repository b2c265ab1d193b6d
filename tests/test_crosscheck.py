"""The cross-check: agreement, verification failures and exit codes."""

from __future__ import annotations

import json

import pytest

from futocp import crosscheck
from futocp.backends import REGISTRY
from futocp.backends.cpsat import CpsatBackend
from futocp.cli import main
from futocp.crosscheck import disagreements
from futocp.families import futoshiki, latin_square
from futocp.formats import write
from futocp.result import Result, Status

from .conftest import available_backends, brute_force_count


class LyingBackend(CpsatBackend):
    """Answers with a corrupted solution: the cross-check must catch it."""

    name = "liar"

    def _solve(self, model, limit, time_limit, seed, options):
        result = super()._solve(model, limit, time_limit, seed, options)
        result.solutions = [tuple(reversed(s)) for s in result.solutions]
        return result


class CountingWrongBackend(CpsatBackend):
    """Claims unsat on everything (a complete backend that is wrong)."""

    name = "pessimist"

    def _solve(self, model, limit, time_limit, seed, options):
        return Result(Status.UNSAT, [], {"solve_s": 0.0}, exhausted=True)


@pytest.fixture
def rogue(monkeypatch):
    monkeypatch.setitem(REGISTRY, "liar", LyingBackend)
    monkeypatch.setitem(REGISTRY, "pessimist", CountingWrongBackend)


def test_all_available_backends_agree_on_a_futoshiki():
    board = futoshiki(4, [[0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]],
                      less=[((0, 0), (0, 1)), ((2, 2), (2, 3))])
    rows = crosscheck(board, limit=50, time_limit=60)
    # "all" leaves out auto, which answers with one of the others (it would count twice)
    assert {r["backend"] for r in rows} == set(available_backends()) - {"auto"}
    expected = brute_force_count(board)
    for r in rows:
        assert r["agrees"], r
        if r["complete"]:
            assert r["verified"] and r["n_solutions"] == min(50, expected), r
        else:  # an incomplete backend may give up (unknown), never answer wrongly
            assert r["verified"] if r["status"] == "sat" else r["status"] == "unknown", r
    assert disagreements(rows, 50) == []


def test_wrong_solution_and_wrong_status_are_flagged(rogue):
    board = latin_square(3, [[1, 2, 0], [0, 0, 0], [0, 0, 0]])
    rows = crosscheck(board, ["cpsat", "liar"], limit=1)
    liar = next(r for r in rows if r["backend"] == "liar")
    assert not liar["verified"] and not liar["agrees"]
    problems = disagreements(rows, 1)
    assert any("liar: a solution failed verification" in p for p in problems)
    rows = crosscheck(board, ["cpsat", "pessimist"], limit=1)
    assert any("disagree" in p for p in disagreements(rows, 1))


def test_unavailable_or_unknown_backend_names():
    with pytest.raises(Exception, match="unknown backend 'zzz'"):
        crosscheck(latin_square(2), "cpsat,zzz")


def test_cli_exit_codes(tmp_path, capsys, rogue):
    path = tmp_path / "l.json"
    write(latin_square(3, [[1, 2, 0], [0, 0, 0], [0, 0, 0]]), path)
    assert main(["crosscheck", str(path), "--backends", "cpsat", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["agree"] and out["rows"][0]["n_solutions"] == 2
    assert main(["crosscheck", str(path), "--backends", "cpsat,liar"]) == 1
    assert "DISAGREEMENT: liar" in capsys.readouterr().out
