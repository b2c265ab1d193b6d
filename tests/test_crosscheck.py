"""The cross-check: agreement, verification failures and exit codes."""

from __future__ import annotations

import importlib
import inspect
import json
import re

import pytest

from futocp import crosscheck
from futocp.backends import REGISTRY
from futocp.cli import main
from futocp.crosscheck import (
    DEFAULT_BACKENDS,
    DEFAULT_TIME_LIMIT,
    SMALL_MODEL_CELLS,
    choose_backends,
    disagreements,
    left_out,
)
from futocp.errors import FutocpError
from futocp.families import futoshiki, latin_square
from futocp.formats import write
from futocp.generate import futoshiki_puzzle
from futocp.records import STOPS, RunRecord

from .strategies import (
    CountingWrongBackend,
    LyingBackend,
    SpyBackend,
    available_backends,
    brute_force_count,
)

crosscheck_module = importlib.import_module("futocp.crosscheck")  # the module, not the function


@pytest.fixture
def rogue(monkeypatch):
    monkeypatch.setitem(REGISTRY, "liar", LyingBackend)
    monkeypatch.setitem(REGISTRY, "pessimist", CountingWrongBackend)


def test_all_available_backends_agree_on_a_futoshiki():
    board = futoshiki(4, [[0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]],
                      less=[((0, 0), (0, 1)), ((2, 2), (2, 3))])
    rows = crosscheck(board, "all", limit=50, time_limit=60)
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


# ----------------------------------------- issue 21: defaults that answer in seconds
TATHAM_4 = "4:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,"


def test_default_set_is_the_compared_solvers_and_pyconstraint_on_small_models():
    here = [n for n in DEFAULT_BACKENDS if REGISTRY[n].available() is True]
    assert set(DEFAULT_BACKENDS) == {"cpsat", "sat", "listcolor", "minizinc", "pyconstraint"}
    assert choose_backends("default", cells=SMALL_MODEL_CELLS) == here
    big = choose_backends("default", cells=SMALL_MODEL_CELLS + 1)
    assert big == [n for n in here if n != "pyconstraint"]
    assert "pyconstraint" in left_out(81) and "pyconstraint" not in left_out(64)
    # the default of the API: those backends, each with the default time limit
    board = futoshiki(4, [[0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]],
                      less=[((0, 0), (0, 1))])
    rows = crosscheck(board)
    assert [r["backend"] for r in rows] == here
    expected = min(2, brute_force_count(board))
    assert all(r["agrees"] and r["verified"] and r["n_solutions"] == expected for r in rows)
    assert {r["stopped"] for r in rows} == {"found" if expected == 2 else "exhausted"}
    assert inspect.signature(crosscheck).parameters["time_limit"].default == DEFAULT_TIME_LIMIT
    assert 1 <= DEFAULT_TIME_LIMIT <= 10  # seconds


def test_cli_default_runs_the_default_set_with_the_default_time_limit(monkeypatch, tmp_path,
                                                                      capsys):
    monkeypatch.setitem(REGISTRY, "spy", SpyBackend)
    monkeypatch.setattr(crosscheck_module, "DEFAULT_BACKENDS", ("listcolor", "spy"))
    SpyBackend.seen.clear()
    path = tmp_path / "l.json"
    write(latin_square(3, [[1, 2, 0], [0, 0, 0], [0, 0, 0]]), path)
    assert main(["crosscheck", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["backend"] for r in doc["rows"]] == ["listcolor", "spy"]
    assert SpyBackend.seen == [DEFAULT_TIME_LIMIT]
    assert main(["crosscheck", str(path), "--time-limit", "none", "--backends", "spy"]) == 0
    assert SpyBackend.seen[-1] is None  # none: run to the end
    assert str(DEFAULT_TIME_LIMIT).rstrip("0").rstrip(".") in _help("crosscheck", capsys)


def _help(command, capsys) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def test_incomplete_backends_ending_at_their_solution_exit_0(capsys):
    args = ["crosscheck", "--puzzle", TATHAM_4, "--backends", "anneal,genetic,listcolor"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for name, stop in (("anneal", "found"), ("genetic", "found"), ("listcolor", "exhausted")):
        row = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert re.search(rf"^{name}\s+sat\s+1\s+\S+\s+yes\s+{stop}\s", row), row
    assert "stopped by the time limit:" not in out and "all backends agree" in out
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["time_limited"] == [] and doc["agree"]
    assert {r["backend"]: r["stopped"] for r in doc["rows"]} == {
        "anneal": "found", "genetic": "found", "listcolor": "exhausted"}


def test_what_stopped_each_backend_budget_or_time_limit():
    board = futoshiki_puzzle(5, inequalities=10, givens=0, seed=8)
    rows = crosscheck(board, ["anneal", "genetic", "listcolor"], filtering="none",
                      options={"anneal": {"moves": 100}, "genetic": {"generations": 2}})
    by = {r["backend"]: r for r in rows}
    assert by["anneal"]["status"] == "unknown" and by["anneal"]["stopped"] == "move budget"
    assert by["genetic"]["status"] == "unknown"
    assert by["genetic"]["stopped"] == "generation budget"
    assert not any(r["time_limited"] for r in rows)  # their own budgets: no time limit
    # a real time limit: an unsatisfiable board the unfiltered model does not know
    n = 6
    less = [((0, c), (0, c + 1)) for c in range(n - 1)] + [((r + 1, 0), (r, 0))
                                                           for r in range(n - 1)]
    rows = crosscheck(futoshiki(n, less=less), ["genetic"], filtering="none", time_limit=0.3,
                      options={"genetic": {"generations": 10**9}})
    assert rows[0]["stopped"] == "time limit" and rows[0]["time_limited"]


def test_a_record_without_the_backends_word_says_what_stopped_it():
    board = latin_square(2, [[1, 0], [0, 0]])
    killed = RunRecord.from_answer(board, "cpsat", True, "unknown", [], {}, exhausted=False,
                                   finished=False, reason="killed by the runner after 15 s")
    assert killed.stopped == "time limit" and killed.time_limited
    memory = RunRecord.from_answer(board, "cpsat", True, "unknown", [], {}, exhausted=False,
                                   finished=False, reason="memory limit of 512 MB reached")
    assert memory.stopped == "memory limit" and memory.time_limited
    found = RunRecord.from_answer(board, "anneal", False, "sat", [(1, 2, 2, 1)],
                                  {"stopped": "found"}, exhausted=False, finished=False)
    assert found.stopped == "found" and not found.time_limited and found.verified
    assert "stopped" not in found.counters
    assert RunRecord.from_error("cpsat", True, "boom").stopped == "error"
    assert set(STOPS) >= {"found", "exhausted", "time limit", "move budget", "generation budget"}


# ------------------------------------------------- a seed, and the backends without one
def test_a_seed_reaches_the_backends_that_take_one_and_is_refused_when_none_does(
        tmp_path, capsys):
    from futocp.api import solve
    from futocp.errors import UsageError
    from futocp.experiments import parse_config, plan
    from futocp.experiments.runner import solve_run

    if REGISTRY["sat"].available() is not True:
        pytest.skip("the sat backend is not available here")
    board = latin_square(3)
    takes = [n for n in ("sat", "listcolor") if "seed" in REGISTRY[n].capabilities]
    assert takes == ["listcolor"]  # sat's search does not depend on a seed
    with pytest.raises(UsageError, match="backend 'sat' takes no seed"):
        solve(board, "sat", seed=3)  # the API
    with pytest.raises(UsageError, match=r"none of the backends \(sat, bt\) takes a seed"):
        crosscheck(board, "sat,bt", seed=3)
    rows = crosscheck(board, "sat,listcolor", limit=None, seed=3)  # each as it can
    assert [(r["backend"], r["status"], r["n_solutions"]) for r in rows] == [
        ("sat", "sat", 12), ("listcolor", "sat", 12)]
    path = tmp_path / "l3.json"
    write(board, path)
    assert main(["crosscheck", str(path), "--backends", "sat", "--seed", "3"]) == 2
    assert "takes a seed" in capsys.readouterr().err
    assert main(["solve", str(path), "--backend", "bt", "--seed", "3"]) == 2  # the CLI
    assert "backend 'bt' takes no seed" in capsys.readouterr().err

    text = ("instances:\n  - generate: {family: latin-square, size: 3, count: 1, seed: 1}\n"
            "backends: [sat, bt]\nseed: 4\n")
    with pytest.raises(FutocpError, match=r"seed: none of the backends \(sat, bt\)"):
        parse_config(text, base_dir=tmp_path)
    runs = plan(parse_config(text.replace("[sat, bt]", "[bt, listcolor]"), base_dir=tmp_path))
    assert [(r["backend"], r["seed"]) for r in runs] == [("bt", 4), ("listcolor", 4)]
    for run in runs:  # bt runs without the seed (its search uses none), listcolor with it
        assert solve_run(run)["status"] == "sat"

