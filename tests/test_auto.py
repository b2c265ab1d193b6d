"""The ``auto`` backend: choices from the table, the portfolio, limits, and the CLI default."""

from __future__ import annotations

import json
import os
import time

import pytest

from futocp.backends import REGISTRY, auto, get_backend
from futocp.board import Board
from futocp.cli import main
from futocp.crosscheck import choose_backends
from futocp.errors import UsageError
from futocp.families import futoshiki, latin_square, sudoku
from futocp.model import build_model
from futocp.result import Status
from futocp.verify import verify

from .strategies import (
    DierBackend,
    RaiserBackend,
    SleeperBackend,
    WrongBackend,
    multiset_board,
    within,
)

FUTOSHIKI = "instances/futoshiki/5x5-extreme-01.json"


FAKES = [SleeperBackend, DierBackend, RaiserBackend, WrongBackend]


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    for cls in FAKES:
        monkeypatch.setitem(REGISTRY, cls.name, cls)


def children() -> list[int]:
    """This process's living child processes (from /proc) that the test started: the
    long-lived helpers earlier tests leave (multiprocessing's fork server and resource
    tracker) were there before and are not counted (see ``_helpers``)."""
    return [pid for pid in _all_children() if pid not in _HELPERS]


def _all_children() -> list[int]:
    me, out = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                out.append(int(entry))
    return out


_HELPERS: set[int] = set()


@pytest.fixture(autouse=True)
def _helpers() -> None:
    """Remember the children alive before each test (helpers of earlier tests)."""
    _HELPERS.clear()
    _HELPERS.update(_all_children())


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc")

BOARDS = {
    "latin": latin_square(4, [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 4]]),
    "futoshiki": futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                           less=[((0, 0), (0, 1)), ((1, 0), (2, 0))]),
    "sudoku": sudoku(givens=[[4, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [2, 0, 0, 3]]),
    "multiset": multiset_board(),
}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("family", sorted(BOARDS))
def test_auto_answers_and_verifies(family, workers):
    board = BOARDS[family]
    result = get_backend("auto").solve(build_model(board), limit=1, workers=workers)
    assert result.backend == "auto" and result.status is Status.SAT
    assert not verify(board, result.solutions[0])
    assert result.stats["answered_by"] in REGISTRY
    assert isinstance(result.stats["answered_options"], dict)


def test_auto_counts_and_proves_unsat():
    result = get_backend("auto").solve(build_model(latin_square(4)), limit=None)
    assert result.status is Status.SAT and result.exhausted and result.n_solutions == 576
    bad = futoshiki(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((0, 1), (0, 0))])
    result = get_backend("auto").solve(build_model(bad), limit=1, workers=2,
                                       members="listcolor,cpsat")
    assert result.status is Status.UNSAT


def table(*members: str, when: dict | None = None) -> dict:
    return {"rules": [{"name": "test", "when": when or {},
                       "members": [{"backend": m} for m in members]}]}


@pytest.mark.parametrize("first", ["cpsat", "sat", "listcolor"])
def test_the_choice_follows_the_table(monkeypatch, first):
    monkeypatch.setattr(auto, "load_choices", lambda path=None: table(first, "listcolor"))
    board = BOARDS["futoshiki"]
    result = get_backend("auto").solve(build_model(board), workers=1)
    assert result.stats["answered_by"] == first
    assert result.stats["portfolio"] == [first] and result.stats["auto_rule"] == "test"
    assert result.stats["answered_options"] == REGISTRY[first].parse_options({})


def test_rules_match_by_features(monkeypatch):
    rules = {"rules": [
        {"name": "big", "when": {"min_order": 6}, "members": [{"backend": "sat"}]},
        {"name": "few-holes", "when": {"max_density": 0.5, "relations": "none"},
         "members": [{"backend": "cpsat", "options": {"formulation": "boolean"}}]},
        {"name": "rest", "when": {}, "members": [{"backend": "listcolor"}]}]}
    monkeypatch.setattr(auto, "load_choices", lambda path=None: rules)
    half = latin_square(4, [[1, 2, 3, 4], [2, 1, 4, 3], [0, 0, 0, 0], [0, 0, 0, 0]])
    members, rule = auto.choose(build_model(half), 1)
    assert rule == "few-holes" and members == [auto.Member("cpsat", (("formulation", "boolean"),))]
    assert auto.choose(build_model(latin_square(6)), 1)[1] == "big"
    assert auto.choose(build_model(BOARDS["futoshiki"]), 1)[1] == "rest"
    result = get_backend("auto").solve(build_model(half), workers=1)
    assert result.stats["answered_options"]["formulation"] == "boolean"


def test_the_shipped_table_is_well_formed():
    data = auto.load_choices()
    assert data["rules"][-1]["when"] == {}  # a rule for every instance
    for rule in data["rules"]:
        assert rule["members"] and rule["name"]
        for m in rule["members"]:
            assert REGISTRY[m["backend"]].complete
            REGISTRY[m["backend"]].parse_options(m.get("options", {}))
        auto._matches(rule["when"], auto.features(build_model(latin_square(3)), 1))


@needs_proc
@pytest.mark.parametrize("bad", ["sleeper", "dier", "raiser", "wrong"])
def test_a_failing_member_does_not_end_the_portfolio(bad):
    board = BOARDS["futoshiki"]
    t0 = time.perf_counter()
    result = get_backend("auto").solve(build_model(board), workers=2,
                                       members=f"{bad},listcolor", time_limit=30)
    assert time.perf_counter() - t0 < within(10)
    assert result.status is Status.SAT and result.stats["answered_by"] == "listcolor"
    assert not verify(board, result.solutions[0])
    assert children() == []


@needs_proc
def test_members_start_staggered():
    model = build_model(BOARDS["futoshiki"])
    result = get_backend("auto").solve(model, workers=2, members="listcolor,sleeper", stagger=5.0)
    assert result.stats["portfolio"] == ["listcolor"]  # over before the second start
    t0 = time.perf_counter()
    result = get_backend("auto").solve(model, workers=2, members="sleeper,listcolor", stagger=0.5)
    assert 0.5 <= time.perf_counter() - t0 < within(5)
    assert result.stats["portfolio"] == ["sleeper", "listcolor"]
    assert result.stats["answered_by"] == "listcolor" and children() == []


@needs_proc
def test_when_every_member_fails_the_other_backends_answer():
    board = BOARDS["futoshiki"]
    result = get_backend("auto").solve(build_model(board), workers=2,
                                       members="dier,raiser", time_limit=30)
    assert result.status is Status.SAT and not verify(board, result.solutions[0])
    assert result.stats["answered_by"] not in ("dier", "raiser")
    errors = result.stats["member_errors"]
    assert sorted(e.split(":")[0] for e in errors) == ["dier", "raiser"], errors
    assert any("exited with code 11" in e for e in errors)
    assert children() == []


def test_a_failing_member_in_turn_hands_over():
    result = get_backend("auto").solve(build_model(BOARDS["latin"]), workers=1,
                                       members="raiser,wrong,listcolor")
    assert result.stats["answered_by"] == "listcolor"
    assert [e.split(":")[0] for e in result.stats["member_errors"]] == ["raiser", "wrong"]


@needs_proc
def test_the_time_limit_stops_every_member():
    t0 = time.perf_counter()
    result = get_backend("auto").solve(build_model(BOARDS["latin"]), workers=2,
                                       members="sleeper,sleeper", time_limit=1.0)
    assert time.perf_counter() - t0 < 1.0 + within(1.5)
    assert result.status is Status.UNKNOWN and "time limit" in result.stats["reason"]
    assert children() == []


def test_members_option_is_checked():
    model = build_model(BOARDS["latin"])
    with pytest.raises(UsageError, match="not a backend"):
        get_backend("auto").solve(model, members="nope")
    with pytest.raises(UsageError, match="no option"):
        get_backend("auto").solve(model, members="listcolor:bogus=1")
    with pytest.raises(UsageError, match="workers"):
        get_backend("auto").solve(model, workers=0)


def test_solve_without_backend_uses_auto_and_says_who_answered(capsys):
    assert main(["solve", FUTOSHIKI, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["backend"] == "auto" and record["verified"]
    assert record["stats"]["answered_by"] in REGISTRY
    assert isinstance(record["stats"]["answered_options"], dict)
    assert main(["solve", FUTOSHIKI, "--json", "--opt", "workers=1", "--opt",
                 "members=cpsat"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["answered_by"] == "cpsat"


@needs_proc
def test_a_memory_limit_reaches_the_members(capsys):
    assert main(["solve", FUTOSHIKI, "--json", "--memory-limit", "1500", "--opt",
                 "members=sat,listcolor"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["verified"] and record["stats"]["process"] == "child"
    assert record["stats"]["answered_by"] in ("sat", "listcolor")
    tiny = get_backend("auto").solve(build_model(BOARDS["latin"]), memory_limit=1,
                                     members="sat,listcolor")
    assert tiny.status is Status.UNKNOWN and "memory limit" in tiny.stats["reason"]
    assert children() == []


def test_the_status_line_names_the_member(capsys):
    assert main(["solve", FUTOSHIKI, "--opt", "workers=1", "--opt", "members=cpsat"]) == 0
    assert "backend auto (cpsat)" in capsys.readouterr().out.splitlines()[-1]


def test_a_board_the_givens_decide_is_answered_by_auto_itself():
    board = latin_square(2, [[1, 2], [2, 0]])
    result = get_backend("auto").solve(build_model(board))
    assert result.status is Status.SAT and result.stats["answered_by"] == "auto"


def test_the_json_record_matches_the_schema(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(open("docs/solve.schema.json", encoding="utf-8").read())
    assert main(["solve", FUTOSHIKI, "--json", "--opt", "members=sat,listcolor"]) == 0
    record = json.loads(capsys.readouterr().out)
    jsonschema.validate(record, schema)
    record["stats"].pop("answered_by")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, schema)


def test_crosscheck_all_leaves_auto_out():
    assert "auto" not in choose_backends("all") and "auto" not in choose_backends("complete")
    assert choose_backends("auto,listcolor") == ["auto", "listcolor"]


# ------------------------------------------------ benchmarks/hard.py --write-choices
def _hard():
    import importlib

    return importlib.import_module("benchmarks.hard")


def test_write_choices_ranks_by_solved_then_median(tmp_path):
    hard = _hard()

    def row(order, holes, **times):
        return {"order": order, "holes": holes,
                "runs": {s: ({"status": "sat", "s": t} if t is not None else
                             {"status": "timeout", "s": 10.0}) for s, t in times.items()}}

    data = {"cap": 10.0, "systems": ["auto", "listcolor", "sat", "kissat"], "rows": {
        "a": row(30, 300, auto=1.0, listcolor=None, sat=2.0, kissat=0.1),
        "b": row(30, 320, auto=1.0, listcolor=0.5, sat=3.0, kissat=0.1),
        "c": row(30, 900, auto=1.0, listcolor=0.5, sat=3.0, kissat=0.1),
        "d": row(50, 750, auto=None, listcolor=None, sat=None, kissat=None)}}
    table = hard.write_choices(data, str(tmp_path / "choices.json"))
    rules = {r["name"]: [m["backend"] for m in r["members"]] for r in table["rules"]}
    assert rules["qwh-order-1-35-holes"] == ["sat", "listcolor"]  # 2 solved beat 1 solved
    assert rules["qwh-order-1-35-empty"] == ["listcolor", "sat"]
    assert rules["qwh-order-46-55-holes"][:2] == ["listcolor", "sat"]  # nothing solved: prior
    assert table["rules"][-1]["when"] == {} and "kissat" not in str(rules)
    loaded = auto.load_choices(tmp_path / "choices.json")
    assert auto.choose(build_model(latin_square(30)), 1, loaded)[0][0].backend == "listcolor"


def test_write_choices_measures_the_small_rule_from_saved_files(tmp_path):
    # the small rule comes from the adjacent/kropki rows; two saved files are merged
    hard = _hard()

    def row(kind, **times):
        return {"order": 9, "holes": 60, "set": kind,
                "runs": {s: {"status": "sat", "s": t} for s, t in times.items()}}

    one = {"cap": 20.0, "systems": ["listcolor", "sat", "cpsat"], "rows": {
        "x": row("adjacent", listcolor=0.002, sat=0.05, cpsat=0.04),
        "y": row("adjacent", listcolor=0.04, sat=0.2, cpsat=0.3)}}
    two = {"cap": 20.0, "systems": ["listcolor", "sat", "cpsat"], "rows": {
        "y": row("adjacent", listcolor=0.03, sat=0.2, cpsat=0.1),  # the later row wins
        "z": row("kropki", listcolor=0.5, sat=0.4, cpsat=0.2)}}
    paths = []
    for i, data in enumerate((one, two)):
        paths.append(str(tmp_path / f"hard-{i}.json"))
        with open(paths[-1], "w", encoding="utf-8") as fh:
            json.dump(data, fh)
    merged = hard.load_data(paths)
    assert sorted(merged["rows"]) == ["x", "y", "z"] and merged["rows"]["y"]["runs"]["listcolor"]["s"] == 0.03
    table = hard.write_choices(merged, str(tmp_path / "choices.json"))
    small = next(r for r in table["rules"] if r["name"] == "small")
    assert [m["backend"] for m in small["members"]] == ["listcolor", "cpsat"]
    assert small["when"] == {"max_cells": 256} and small["stagger"] == 0.0
    assert small["first_try_s"] == round(hard.FIRST_TRY_SHARE * 0.2, 2)  # of cpsat's win, not 2 x 0.03 s
    assert table["rules"][0]["name"] == "enumerate"


def test_a_measured_rule_keeps_one_configuration_per_backend():
    # two listcolor configurations measured: the better one leads, the other is left out
    # (it would race for the files the first one wins), and the second member is sat
    hard = _hard()
    runs = {"listcolor": (0.4, 0.3), "listcolor:lookahead=never": (0.01, 0.02),
            "sat": (0.05, 0.2), "cpsat": (0.5, 0.6)}
    inside = [{"name": f"f{i}", "order": 9, "holes": 60, "set": "adjacent",
               "runs": {s: {"status": "sat", "s": t[i]} for s, t in runs.items()}}
              for i in range(2)]
    rule = hard._measured_rule("small", {"max_cells": 256}, inside, 20.0)
    assert rule["members"] == [{"backend": "listcolor", "options": {"lookahead": "never"}},
                               {"backend": "sat"}, {"backend": "cpsat"}]


def test_the_members_after_the_first_cover_the_files_it_loses():
    # sat solves more files than cpsat, but only where listcolor is fast already; cpsat is
    # the fastest on the file listcolor loses: it comes second
    hard = _hard()
    runs = {"listcolor": (0.01, 0.02, 20.0), "sat": (0.5, 0.3, 20.0), "cpsat": (20.0, 20.0, 8.0)}
    inside = [{"name": f"f{i}", "order": 40, "holes": 528, "set": "qwh",
               "runs": {s: {"status": "sat" if t[i] < 20 else "unknown", "s": t[i]}
                        for s, t in runs.items()}} for i in range(3)]
    assert hard._complementary(["listcolor", "sat", "cpsat"], inside) == ["listcolor", "cpsat", "sat"]
    rule = hard._measured_rule("q", {}, inside, 20.0)
    assert [m["backend"] for m in rule["members"]] == ["listcolor", "cpsat", "sat"]
    assert hard._complementary(["listcolor", "sat"], inside[:2]) == ["listcolor", "sat"]


# ------------------------------------------------------- the first try in this process
def _no_portfolio(self, *args, **kwargs):
    raise AssertionError("a portfolio started (a fork) for a board its first member settles")


def test_a_small_board_costs_no_fork(monkeypatch):
    # enumerating asks the table for listcolor and cpsat side by side; listcolor alone
    # counts a 4x4 board in well under its first-try budget, in this process
    if auto.first_try_budget(auto.Member("listcolor"), build_model(latin_square(4)), None) is None:
        pytest.skip("listcolor's compiled core is not built here")
    monkeypatch.setattr(auto.AutoBackend, "_portfolio", _no_portfolio)
    result = get_backend("auto").solve(build_model(latin_square(4)), limit=None, workers=2)
    assert result.n_solutions == 576 and result.exhausted
    assert result.stats["answered_by"] == "listcolor" and result.stats["portfolio"] == ["listcolor"]
    assert result.stats["auto_rule"] == "enumerate"
    for board in BOARDS.values():
        result = get_backend("auto").solve(build_model(board), limit=2, workers=2)
        assert result.status is Status.SAT and not verify(board, result.solutions[0])


@needs_proc
def test_a_board_the_first_try_does_not_settle_races_a_forked_second_member(monkeypatch):
    # the first member keeps searching here; the second one is forked once the
    # budget is out (one child, not two), and is stopped when the first answers
    if auto.first_try_budget(auto.Member("listcolor"), build_model(latin_square(4)), None) is None:
        pytest.skip("listcolor's compiled core is not built here")
    monkeypatch.setattr(auto.AutoBackend, "_portfolio", _no_portfolio)
    monkeypatch.setattr(auto, "FIRST_TRY_BUDGET_S", 1e-9)  # over before it starts
    result = get_backend("auto").solve(build_model(latin_square(4)), limit=None, workers=2,
                                       stagger=0)
    assert result.n_solutions == 576 and result.exhausted and "member_errors" not in result.stats
    assert result.stats["portfolio"] == ["listcolor", "cpsat"]
    assert result.stats["answered_by"] in ("listcolor", "cpsat")
    assert children() == []


@needs_proc
def test_the_member_here_stops_when_the_forked_one_wins(monkeypatch):
    from futocp.backends import listcolor

    stopped = []

    def slow(self, model, limit, time_limit, seed, options):  # listcolor that never ends
        end = time.perf_counter() + 20
        while time.perf_counter() < end:
            test = listcolor._STOP.get()
            if test is not None and test():
                stopped.append(True)
                break
            time.sleep(0.001)
        return self.outcome([], False, limit, {})

    if auto.first_try_budget(auto.Member("listcolor"), build_model(latin_square(4)), None) is None:
        pytest.skip("listcolor's compiled core is not built here")
    monkeypatch.setattr(listcolor.ListcolorBackend, "_solve", slow)
    monkeypatch.setattr(auto, "FIRST_TRY_BUDGET_S", 1e-9)
    board = BOARDS["futoshiki"]
    t0 = time.perf_counter()
    result = get_backend("auto").solve(build_model(board), workers=2, time_limit=30)
    assert time.perf_counter() - t0 < 15 and stopped == [True]
    assert result.status is Status.SAT and not verify(board, result.solutions[0])
    first, second = auto.choose(build_model(board), 1, need=2)[0]  # the table's members
    assert result.stats["answered_by"] == second.backend
    assert result.stats["portfolio"] == [first.label, second.label]
    assert children() == []


def test_the_first_try_is_for_listcolor_on_models_its_compiled_core_takes():
    small, big = build_model(latin_square(4)), build_model(latin_square(40))
    budget = auto.first_try_budget(auto.Member("listcolor"), small, None)
    assert budget in (auto.FIRST_TRY_BUDGET_S, None)  # None: the compiled core is not built
    searching = auto.Member("listcolor", (("lookahead", "never"), ("branching", "dual")))
    assert auto.first_try_budget(searching, small, None) == budget  # search options stay here
    assert auto.first_try_budget(auto.Member("listcolor"), big, None) == budget  # 64,000 literals
    n = auto.FIRST_TRY_MAX_VALUES + 1
    wide = build_model(Board(n, [range(n)], range(1, n + 1)))  # more values than the core's lists
    for member, model, memory_limit in [(auto.Member("listcolor"), wide, None),
                                        (auto.Member("cpsat"), small, None),
                                        (auto.Member("listcolor", (("workers", 2),)), small, None),
                                        (auto.Member("listcolor", (("core", "python"),)), small, None),
                                        (auto.Member("listcolor"), small, 512.0)]:
        assert auto.first_try_budget(member, model, memory_limit) is None


def test_api_and_every_command_that_solves_default_to_auto():
    from futocp import DEFAULT_BACKEND, solve
    from futocp.cli import build_parser

    assert DEFAULT_BACKEND == "auto"
    board = BOARDS["futoshiki"]
    result = solve(board)
    assert result.backend == "auto" and not verify(board, result.solutions[0])
    parser = build_parser()
    assert parser.parse_args(["solve", FUTOSHIKI]).backend == DEFAULT_BACKEND
    assert parser.parse_args(["show", FUTOSHIKI, "--solution"]).backend == DEFAULT_BACKEND


def test_rules_give_their_stagger_and_the_option_overrides_it(monkeypatch):
    table = auto.load_choices()
    staggers = {r["name"]: auto.rule_stagger(r["name"], table) for r in table["rules"]}
    assert staggers == {r["name"]: r.get("stagger", auto.STAGGER_S) for r in table["rules"]}
    assert staggers["default"] == auto.STAGGER_S
    assert auto.rule_stagger("x", {"rules": [{"name": "x", "stagger": 0.5}]}) == 0.5
    assert auto.rule_stagger("members option") == auto.STAGGER_S
    assert auto.AutoBackend.parse_options({"stagger": "-1"})["stagger"] == -1.0
    with pytest.raises(UsageError):
        auto.AutoBackend.parse_options({"stagger": "-2"})
    calls = []

    def spy(self, model, first, others, limit, deadline, seed, stagger, budget):
        calls.append(([first.backend, *(m.backend for m in others())], stagger))
        return auto._Run(), []

    monkeypatch.setattr(auto.AutoBackend, "_race_here", spy)
    monkeypatch.setattr(auto, "FIRST_TRY_BUDGET_S", 1e-9)  # over before it starts
    model = build_model(BOARDS["futoshiki"])
    members, rule = auto.choose(model, 1, need=2)
    if all(auto._eligible(m, model) for m in members) and \
            auto.first_try_budget(members[0], model, None) is not None:
        get_backend("auto").solve(model, workers=2)
        get_backend("auto").solve(model, workers=2, stagger=0.25)
        names = [m.backend for m in members[:2]]
        assert calls == [(names, auto.rule_stagger(rule)), (names, 0.25)]


@needs_proc
def test_a_small_board_the_first_try_misses_is_raced_and_verified(monkeypatch):
    monkeypatch.setattr(auto, "FIRST_TRY_BUDGET_S", 1e-9)
    board = BOARDS["futoshiki"]
    result = get_backend("auto").solve(build_model(board), workers=2, time_limit=30)
    assert result.status is Status.SAT and not verify(board, result.solutions[0])
    assert result.stats["auto_rule"] == "small"
    ran = [auto.Member.parse(label).backend for label in result.stats["portfolio"]]
    assert result.stats["answered_by"] in ran
    assert children() == []


def test_a_rule_gives_its_first_try_budget():
    small = build_model(latin_square(4))
    budget = auto.first_try_budget(auto.Member("listcolor"), small, None,
                                   "qwh-order-1-35-holes")
    plain = auto.first_try_budget(auto.Member("listcolor"), small, None, "default")
    if budget is not None:  # None: the compiled core is not built
        table = {r["name"]: r for r in auto.load_choices()["rules"]}
        assert budget == table["qwh-order-1-35-holes"]["first_try_s"]
        assert plain == auto.FIRST_TRY_BUDGET_S
