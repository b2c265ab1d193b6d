"""The standing cross-check campaign (benchmarks/campaign.py), a seeded sample of it.

The two sample tests are marked slow (``make test-slow``; CI runs them); the rest
is fast.

300 random boards of every family and relation kind, every backend of the
REGISTRY (complete ones with their defaults and one option variant in turn,
minizinc on one board in four to keep the sample fast), every solution checked
by verify() and every count by the campaign's independent oracle: no
disagreement, no wrong solution, no ``unsat`` from an incomplete backend's
own search, no crash. Also: the oracle against the tests' brute-force counter,
the campaign's judging rules, reproducible boards, a crash contained to the
run that caused it, and reproducer files that replay.
"""

from __future__ import annotations

import json
import os

import pytest

from benchmarks import campaign
from benchmarks.campaign_oracle import count_solutions, find_solution
from futocp.backends import REGISTRY
from futocp.families import latin_square
from futocp.formats import dumps, loads
from futocp.verify import verify

from .oracle import brute_force_count, exhaustive_count
from .relation_boards import KINDS, killer_board, relation_board

SAMPLE = 300
SEED = 20240613


# ------------------------------------------------------------------ the sample
@pytest.fixture(scope="module")
def sample() -> campaign.Campaign:
    return campaign.run_campaign(SAMPLE, SEED, variants="rotate", time_limit=20.0,
                                 incomplete_time_limit=0.1, every={"minizinc": 5}, jobs=2,
                                 solvers=False)


@pytest.mark.slow
@pytest.mark.slow
def test_sample_has_no_disagreement_nor_crash(sample):
    summary = sample.summary()
    assert summary["boards"] == SAMPLE
    details = [f"board {p['index']} {p['family']} {p['backend']} {p['variant']}: "
               f"{p['category']}: {'; '.join(p['problems'])}" for p in summary["problems"]]
    assert summary["disagreements"] == 0, details
    assert summary["crashes"] == 0, details
    for row in summary["backends"]:
        assert row["wrong"] == 0, row
        assert row["inc_unsat"] == 0, row


@pytest.mark.slow
def test_sample_covers_every_family_backend_and_answer(sample):
    summary = sample.summary()
    assert set(summary["boards_by_family"]) == set(campaign.campaign_families())
    assert summary["oracle"].get("sat", 0) >= SAMPLE // 4
    assert summary["oracle"].get("unsat", 0) >= SAMPLE // 10
    assert summary["oracle"].get("oracle gave up", 0) <= SAMPLE // 50
    available = {n for n, cls in REGISTRY.items() if cls.available() is True}
    ran = {row["backend"] for row in summary["backends"]}
    assert ran == available
    for row in summary["backends"]:
        if row["complete"]:
            # complete backends answer (almost) every board: few refusals, no timeouts here
            assert row["agree"] >= 0.8 * row["runs"], row
            assert row["variants"] >= 2, row


# ------------------------------------------------------------------ the oracle
@pytest.mark.parametrize("seed", range(12))
def test_oracle_counts_as_the_brute_force_counter(seed):
    for n in (3, 4):
        board = relation_board(n, KINDS, seed, count=5, givens=1, truthful=seed % 2 == 0)
        assert count_solutions(board, cap=10 ** 6).count == brute_force_count(board)
    board = killer_board(seed, givens=1, wrong_sum=seed % 3 == 0)
    assert count_solutions(board, cap=10 ** 6).count == brute_force_count(board)


def test_oracle_counts_as_exhaustive_enumeration_on_tiny_boards():
    """Every assignment of 3x3 campaign boards (general or grid, multisets, strings,
    relations of every kind) judged by verify(): the oracle finds exactly those."""
    fams = ["latin-square", campaign.GENERAL, "kropki", "futoshiki", "futoshiki-adjacent"]
    tried = 0
    for index in range(300):
        board = campaign.make_case(99, index, fams).board
        if board.n_cells != 9:
            continue
        assert count_solutions(board, cap=10 ** 6).count == exhaustive_count(board), board
        tried += 1
        if tried == 12:
            break
    assert tried == 12


def test_oracle_cap_budget_and_solutions():
    board = latin_square(4)
    full = count_solutions(board, cap=10 ** 6)
    assert (full.count, full.exact) == (576, True)
    capped = count_solutions(board, cap=6)
    assert (capped.count, capped.exact) == (6, False)
    assert len(set(capped.solutions)) == 6 and all(not verify(board, s) for s in capped.solutions)
    assert count_solutions(latin_square(6), cap=10 ** 9, budget=50).count is None
    import random

    sol = find_solution(latin_square(5), random.Random(3))
    assert sol is not None and not verify(latin_square(5), sol)


# ------------------------------------------------------------------ boards
def test_boards_are_reproducible_and_valid():
    fams = campaign.campaign_families()
    for i in range(2 * len(fams)):
        a = campaign.make_case(7, i)
        b = campaign.make_case(7, i)
        assert a.board == b.board and a.family == fams[i % len(fams)]
        if a.family != campaign.GENERAL:
            assert a.board.kind == a.family
            assert loads(dumps(a.board, "json"), "json") == a.board


def test_variants_vary_one_option_at_a_time():
    for name, cls in REGISTRY.items():
        variants = campaign.backend_variants(name, solvers=False)
        assert variants[0] == ("default", (), "lists")
        assert ("filtering=none", (), "none") in variants
        assert ("filtering=gac", (), "gac") in variants
        for label, options, _ in variants[3:]:
            assert len(options) == 1
            (key, value), = options
            opt = next(o for o in cls.options if o.name == key)
            assert value != opt.default and label == f"{key}={value}"
            assert opt.choices is None or value in opt.choices
        assert len(set(variants)) == len(variants)


# ------------------------------------------------------------------ judging
def _rec(status, n=0, exhausted=False, limit=5, **extra):
    return {"status": status, "n": n, "exhausted": exhausted, "limit": limit, **extra}


def test_evaluate_rules():
    spec = campaign.Spec("cpsat", "default")
    exact3 = {"count": 3, "exact": True}
    many = {"count": 6, "exact": False}
    none = {"count": 0, "exact": True}
    ev = campaign.evaluate
    assert ev(spec, _rec("sat", 3, True), exact3, True)[0] == "agree"
    assert ev(spec, _rec("sat", 2, True), exact3, True)[0] == "disagree"
    assert ev(spec, _rec("sat", 5, False), many, True)[0] == "agree"
    assert ev(spec, _rec("sat", 5, True), many, True)[0] == "disagree"
    assert ev(spec, _rec("unsat", 0, True), exact3, True)[0] == "disagree"
    assert ev(spec, _rec("unsat", 0, True), none, True)[0] == "agree"
    assert ev(spec, _rec("unknown"), exact3, True)[0] == "unknown"
    assert ev(spec, _rec("sat", 2, False), exact3, True)[0] == "unknown"  # stopped early
    wrong = [{"solution": [1], "violation": "bad"}]
    assert ev(spec, _rec("sat", 1, False, 1, wrong=wrong), exact3, True)[0] == "disagree"
    assert ev(spec, _rec("sat", 2, False, 2, duplicates=1), exact3, True)[0] == "disagree"
    assert ev(spec, _rec("sat", 1, False, 1), {"count": None}, True)[0] == "unchecked"
    assert ev(spec, _rec("refused", reason="no"), exact3, True)[0] == "refused"
    assert ev(spec, _rec("error", reason="boom"), exact3, True)[0] == "error"
    inc = campaign.Spec("anneal", "default")
    assert ev(inc, _rec("unsat", 0, True), none, False)[0] == "disagree"
    assert ev(inc, _rec("unsat", 0, True, conflict=True), none, False)[0] == "agree"
    assert ev(inc, _rec("unknown"), exact3, False)[0] == "unknown"


# ------------------------------------------------------------------ crashes
def crashing_worker(payload):
    """A worker whose ``crash`` runs kill their process (as a segfault in C code would)."""
    if any(spec.variant == "crash" for spec in payload["specs"]):
        os.abort()
    return campaign.run_board(payload)


def test_a_crash_is_contained_to_its_run_and_reproduced(tmp_path):
    board = latin_square(3, [[1, 2, 3], [0, 0, 0], [0, 0, 0]])
    case = campaign.Case(0, "latin-square", board)
    specs = [campaign.Spec("cpsat", "default"), campaign.Spec("cpsat", "crash"),
             campaign.Spec("listcolor", "default")]
    result = campaign._execute(case, specs, 6, 10_000, True, worker=crashing_worker)
    assert "SIGABRT" in result["board_failure"]
    assert result["oracle"]["count"] == 2
    statuses = [r["status"] for r in result["runs"]]
    assert statuses == ["sat", "error", "sat"]
    camp = campaign.Campaign(tmp_path, 0, [])
    camp.add(case, specs, result)
    summary = camp.summary()
    assert summary["crashes"] == 1 and summary["disagreements"] == 0
    (problem,) = summary["problems"]
    doc = json.loads(open(problem["reproducer"], encoding="utf-8").read())
    assert doc["backend"] == "cpsat" and doc["variant"] == "crash"
    assert doc["category"] == "error" and "SIGABRT" in doc["problems"][0]
    assert loads(json.dumps(doc["board"]), "json") == board
    assert campaign.board_from_raw(doc["board_raw"]) == board


def test_reproducer_replays(tmp_path, capsys):
    board = latin_square(3, [[1, 2, 3], [0, 0, 0], [0, 0, 0]])
    case = campaign.Case(5, "latin-square", board)
    spec = campaign.Spec("listcolor", "default", limit=3)
    rec = _rec("sat", 1, True, 3)  # a made-up wrong count: the board has 2 solutions
    path = campaign.write_reproducer(tmp_path, case, spec, rec, {"count": 2, "exact": True},
                                     "disagree", ["said exactly 1"], 9)
    assert campaign.replay(str(path)) == 0  # listcolor agrees with the oracle today
    out = capsys.readouterr().out
    assert "now:  agree" in out and "'count': 2" in out
