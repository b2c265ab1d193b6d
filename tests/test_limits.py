"""Limits that hold (issues 13 and 16): time limits on every backend, encoding
included; memory limits; decided boards never reach a solver; a solver's crash
costs its run only.

The time bounds asserted here are generous (the limit plus 1.5 s): they catch a
backend that ignores its limit (CP-SAT loading an order-60 square took 4.6 s
under a 1 s limit; CaDiCaL and Kissat could not be stopped at all), not jitter.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path

import pytest

from futocp import procs
from futocp.backends import REGISTRY, get_backend
from futocp.backends.base import Deadline, DeadlinePassed
from futocp.backends.cpsat import CpsatBackend
from futocp.backends.sat import SatBackend, encode, resolve_solver
from futocp.cli import main
from futocp.errors import SolverError, UnsupportedError, UsageError
from futocp.experiments.config import parse_config
from futocp.experiments.runner import read_jsonl, run_experiment
from futocp.families import latin_square
from futocp.formats import read, write
from futocp.model import build_model
from futocp.result import Status
from futocp.verify import verify

from .strategies import backend_params, within

ROOT = Path(__file__).resolve().parent.parent
HARD_QWH = ROOT / "instances" / "qwh" / "csplib067" / "qwh-o30-h374-04.dzn"
SLACK = 1.5  # seconds beyond the time limit a backend may take to answer


def timed(func, *args, **kwargs):
    t0 = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - t0


# ------------------------------------------------------------ time limits
@pytest.mark.parametrize("name", backend_params())
def test_every_backend_answers_within_its_time_limit(name):
    """Enumerate an empty order-12 Latin square (millions of solutions), or find one
    solution of a hard QWH-30 for a backend that cannot enumerate."""
    cls = REGISTRY[name]
    if "enumerate" in cls.capabilities:
        model, limit = build_model(latin_square(12)), None
    else:
        model, limit = build_model(read(HARD_QWH)), 1
    result, elapsed = timed(get_backend(name).solve, model, limit=limit, time_limit=0.5)
    assert elapsed <= 0.5 + within(SLACK), f"{name} answered after {elapsed:.2f} s"
    assert not result.finished
    assert "time limit" in result.stats["reason"]
    assert all(not verify(model.board, s) for s in result.solutions[:20])


@pytest.mark.parametrize("solver", ["cadical195", "kissat404"])
def test_uninterruptible_sat_solvers_take_a_time_limit(solver):
    model = build_model(latin_square(12))
    result, elapsed = timed(SatBackend().solve, model, limit=None, time_limit=1.0,
                            solver=solver)
    assert elapsed <= 1.0 + within(SLACK)
    assert not result.finished  # (Kissat, rebuilt after each solution, may find none)
    assert result.stats["solver"] == solver and result.stats["process"] == "child"
    assert result.stats["reason"].startswith("time limit of 1 s reached while")
    assert all(not verify(model.board, s) for s in result.solutions[:20])
    # a small search finishes in the child as it would here
    small = SatBackend().solve(build_model(latin_square(3)), limit=None, time_limit=30,
                               solver=solver)
    assert small.status is Status.SAT and small.n_solutions == 12 and small.exhausted


def test_auto_keeps_its_fast_solvers_on_big_formulas_under_a_time_limit():
    assert resolve_solver("auto", 1, 10.0, literals=100) == resolve_solver("auto", 1, 10.0)
    assert resolve_solver("auto", 1, 10.0, literals=50_000) == resolve_solver("auto", 1, None)
    assert resolve_solver("auto", None, 10.0, literals=50_000) == resolve_solver("auto", None)


# ------------------------------------------------------------ encoding deadline
def test_encoders_check_the_deadline():
    model = build_model(latin_square(60))
    with pytest.raises(DeadlinePassed):
        encode(model, card="seqcounter", deadline=Deadline(0.05))
    with pytest.raises(DeadlinePassed, match="building the model"):
        CpsatBackend().compile(model, formulation="boolean", deadline=Deadline(0.05))


@pytest.mark.parametrize("name, options, phase", [
    ("sat", {"card": "seqcounter"}, "encoding"),
    ("cpsat", {"formulation": "boolean"}, "building the model"),
])
def test_the_time_limit_covers_encoding(name, options, phase):
    model = build_model(latin_square(60))
    result, elapsed = timed(get_backend(name).solve, model, time_limit=0.5, **options)
    assert elapsed <= 0.5 + within(SLACK)
    assert result.status is Status.UNKNOWN
    assert result.stats["reason"] == f"time limit of 0.5 s reached while {phase}"


def test_a_deadline_passed_in_a_backend_is_unknown_with_the_reason(monkeypatch):
    def encoding_forever(self, model, limit, time_limit, seed, options):
        raise DeadlinePassed("encoding")

    monkeypatch.setattr(REGISTRY["listcolor"], "_solve", encoding_forever)
    for isolate in (False, True):
        result = get_backend("listcolor").solve(build_model(latin_square(4)), time_limit=2,
                                                isolate=isolate)
        assert result.status is Status.UNKNOWN
        assert result.stats["reason"] == "time limit of 2 s reached while encoding"


# ------------------------------------------------------------ memory
def test_an_encoding_that_cannot_fit_is_refused_before_it_is_built(monkeypatch):
    monkeypatch.setattr(procs, "available_mb", lambda: 8000.0)
    model = build_model(latin_square(100))
    with pytest.raises(UnsupportedError, match="10,000 cells x 100 values"):
        SatBackend().solve(model, time_limit=10, card="totalizer")
    with pytest.raises(UnsupportedError, match="40,000 cells x 200 values"):
        CpsatBackend().solve(build_model(latin_square(200)), time_limit=10)


def test_a_memory_limit_the_encoding_clearly_exceeds_is_unknown_at_once():
    result, elapsed = timed(SatBackend().solve, build_model(latin_square(40)), time_limit=30,
                            memory_limit=250, card="totalizer")
    assert result.status is Status.UNKNOWN and elapsed < within(5)
    assert result.stats["reason"].startswith("memory limit of 250 MB reached: encoding")


def test_a_run_past_its_memory_limit_is_stopped_and_unknown():
    model = build_model(latin_square(60))  # CP-SAT's load takes ~250 MB more than it starts with
    held = procs.usage_mb() or 150.0
    limit = round(held + 60)
    result = CpsatBackend().solve(model, time_limit=60, memory_limit=limit)
    assert result.status is Status.UNKNOWN
    assert result.stats["reason"] == f"memory limit of {limit} MB reached"


def test_a_python_backend_past_its_memory_limit_is_stopped(monkeypatch):
    def hog(self, model, limit, time_limit, seed, options):
        blocks = []
        while True:
            blocks.append(bytearray(2 ** 24))

    monkeypatch.setattr(REGISTRY["listcolor"], "_solve", hog)
    held = procs.usage_mb() or 150.0
    limit = round(held + 100)
    result, elapsed = timed(get_backend("listcolor").solve, build_model(latin_square(4)),
                            time_limit=60, memory_limit=limit)
    assert result.status is Status.UNKNOWN and elapsed < within(30)
    assert result.stats["reason"] == f"memory limit of {limit} MB reached"


def test_a_memory_limit_below_what_the_process_holds_says_so():
    result = CpsatBackend().solve(build_model(latin_square(4)), memory_limit=1)
    assert result.status is Status.UNKNOWN
    assert "before it starts" in result.stats["reason"]
    with pytest.raises(UsageError, match="memory limit"):
        CpsatBackend().solve(build_model(latin_square(4)), memory_limit=0)


def test_memory_limit_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "ls4.json"
    write(latin_square(4), path)
    assert main(["solve", str(path), "--backend", "cpsat", "--memory-limit", "1"]) == 1
    assert "memory limit of 1 MB reached" in capsys.readouterr().out
    assert main(["crosscheck", str(path), "--backends", "cpsat,sat", "--memory-limit", "1",
                 "--json"]) == 1
    assert main(["solve", str(path), "--backend", "cpsat", "--memory-limit", "-5"]) == 2


def test_memory_limit_in_an_experiment(tmp_path):
    text = f"""
instances: [{{generate: {{family: latin-square, size: 5, givens: 0, count: 1, seed: 1}}}}]
backends: [cpsat, listcolor]
time_limit: 30
memory_limit: 1
output: {tmp_path / 'out'}
"""
    config = parse_config(text, base_dir=tmp_path)
    assert config.memory_limit == 1.0
    run_experiment(config, progress=False)
    records, _ = read_jsonl(tmp_path / "out" / "results.jsonl")
    assert {r["backend"]: r["status"] for r in records} == {"cpsat": "unknown",
                                                            "listcolor": "unknown"}
    assert all("memory limit of 1 MB reached" in r["reason"] for r in records)
    with pytest.raises(Exception, match="memory_limit"):
        parse_config(text.replace("memory_limit: 1", "memory_limit: 0"), base_dir=tmp_path)


# ------------------------------------------------------------ decided boards
def _refuse(*args, **kwargs):
    raise AssertionError("the solver was called on a decided board")


@pytest.mark.parametrize("name", backend_params())
def test_decided_boards_never_reach_the_solver(name, monkeypatch):
    if not REGISTRY[name].decided_shortcut:
        pytest.skip(f"{name} is a pure-Python search that counts the nodes of decided boards too")
    monkeypatch.setattr(REGISTRY[name], "_solve", _refuse)
    given = latin_square(3, [[1, 2, 3], [2, 3, 1], [3, 1, 2]])
    result = get_backend(name).solve(build_model(given), limit=None)
    assert result.status is Status.SAT and result.solutions == [(1, 2, 3, 2, 3, 1, 3, 1, 2)]
    assert result.stats["decided"] and result.exhausted == REGISTRY[name].complete
    # the filtering decides the rest: two givens of a 2x2 square
    result = get_backend(name).solve(build_model(latin_square(2, [[1, 0], [0, 0]])))
    assert result.status is Status.SAT and not verify(result.board, result.solutions[0])
    # decided, but wrongly (a model whose lists break the board): unsat, still no solver
    model = build_model(latin_square(2))
    wrong = dataclasses.replace(model, domains=(1, 1, 1, 1))
    result = get_backend(name).solve(wrong)
    assert "wrongly" in result.stats["reason"] and not result.solutions
    assert result.status is (Status.UNSAT if REGISTRY[name].complete else Status.UNKNOWN)


def test_maplesat_on_an_empty_formula(monkeypatch):
    """Unit propagation settles every cell (no filtering): python-sat's maplesat
    segfaults on the empty formula left; the backend answers without a solver."""
    model = build_model(latin_square(2, [[1, 0], [0, 0]]), filtering="none")
    result = SatBackend().solve(model, limit=None, solver="maplesat", isolate=True,
                                lists="filtered")  # givens: the textbook CNF, not empty
    assert result.status is Status.SAT and result.solutions == [(1, 2, 2, 1)] and result.exhausted
    assert result.stats["reason"] == "unit propagation decides every cell"
    monkeypatch.setattr("futocp.backends.sat._new_solver", _refuse)  # and in this process
    assert SatBackend().solve(model, solver="maplesat",
                              lists="filtered").solutions == [(1, 2, 2, 1)]


# ------------------------------------------------------------ crashes
def _segfault(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGSEGV)


def test_a_crash_in_a_child_is_a_solver_error(monkeypatch):
    monkeypatch.setattr("futocp.backends.sat._new_solver", _segfault)
    with pytest.raises(SolverError, match="SIGSEGV"):
        SatBackend().solve(build_model(latin_square(4)), isolate=True)
    monkeypatch.setattr(CpsatBackend, "_compile", _segfault)
    with pytest.raises(SolverError, match="SIGSEGV"):
        CpsatBackend().solve(build_model(latin_square(4)), isolate=True)


def test_the_cli_survives_a_solver_crash(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("futocp.backends.sat._new_solver", _segfault)
    path = tmp_path / "ls4.json"
    write(latin_square(4), path)
    assert main(["solve", str(path), "--backend", "sat"]) == 70
    assert "SIGSEGV" in capsys.readouterr().err
    main(["crosscheck", str(path), "--backends", "sat,listcolor"])
    out = capsys.readouterr().out
    assert "SIGSEGV" in out and "listcolor      sat" in out
