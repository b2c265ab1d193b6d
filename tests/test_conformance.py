"""One conformance suite, parametrised over every backend in the REGISTRY.

Each backend is checked on what it declares: answers are verified with
verify() and compared with solution counts known independently (brute force
or combinatorics), never with a stored grid.
"""

from __future__ import annotations

import random

import pytest

from futocp.backends import REGISTRY, get_backend
from futocp.backends.base import seed_for
from futocp.board import Board
from futocp.errors import UnsupportedError, UsageError
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.model import build_model
from futocp.relations import Relation
from futocp.result import Status
from futocp.verify import verify

from .relation_boards import keen_board, towers_board
from .strategies import backend_params, brute_force_count, multiset_board, string_square

BACKENDS = backend_params()


def caps(name: str) -> frozenset[str]:
    return REGISTRY[name].supported()


def need(name: str, *capabilities: str) -> None:
    missing = set(capabilities) - caps(name)
    if missing:
        pytest.skip(f"{name} does not declare {', '.join(sorted(missing))}")


def check_all(board, result, most=2000):
    """Every solution verifies (a sample of ``most`` when a fast enumeration cut by a
    time limit found more: listcolor's compiled core finds tens of thousands)."""
    solutions = result.solutions
    if len(solutions) > most:
        solutions = random.Random(0).sample(solutions, most)
    for sol in solutions:
        assert verify(board, sol) == [], sol


# backends whose search runs in a child process that builds the formulation there
# (auto: its member compiles, in this process or in a portfolio process)
COMPILES_IN_CHILD = {"pyconstraint", "auto"}


@pytest.mark.parametrize("name", BACKENDS)
def test_solve_runs_what_compile_returns(name, small_futoshiki, monkeypatch):
    need(name, "less")
    cls = REGISTRY[name]
    made = []
    original = cls.compile

    def spy(self, model, /, **options):  # (an option may be called "model": smt)
        made.append(original(self, model, **options))
        return made[-1]

    monkeypatch.setattr(cls, "compile", spy)
    model = build_model(small_futoshiki)
    result = get_backend(name).solve(model, limit=1, time_limit=30)
    check_all(small_futoshiki, result)
    if name in COMPILES_IN_CHILD:
        pytest.skip(f"{name} compiles in its search process")
    assert len(made) == 1 and made[0] is not None


@pytest.mark.parametrize("name", BACKENDS)
def test_class_data_is_well_formed(name):
    cls = REGISTRY[name]
    assert all(isinstance(c, str) and c for c in cls.counters)
    assert cls.count_rank is None or (cls.complete and "enumerate" in cls.capabilities)
    assert all(o.help for o in cls.options), [o.name for o in cls.options if not o.help]
    for opt in cls.options:
        if opt.choices is not None:
            assert opt.default in opt.choices, opt.name


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("filtering", ["lists", "none", "gac"])
def test_solves_a_futoshiki(name, filtering, small_futoshiki):
    need(name, "less")
    result = get_backend(name).solve(build_model(small_futoshiki, filtering), limit=1,
                                     time_limit=30, seed=seed_for(REGISTRY[name], 1))
    assert result.status is Status.SAT and result.n_solutions == 1
    assert result.backend == name
    check_all(small_futoshiki, result)
    for key in ("build_s", "solve_s", "wall_s"):
        assert result.stats[key] >= 0


@pytest.mark.parametrize("name", BACKENDS)
def test_enumerates_with_known_counts(name, small_futoshiki):
    need(name, "enumerate", "less")
    expected = brute_force_count(small_futoshiki)
    backend = get_backend(name)
    result = backend.solve(build_model(small_futoshiki), limit=None, time_limit=60)
    assert result.n_solutions == expected and result.exhausted
    assert len(set(result.solutions)) == expected
    check_all(small_futoshiki, result)
    limited = backend.solve(build_model(small_futoshiki), limit=2, time_limit=60)
    assert limited.n_solutions == min(2, expected)
    check_all(small_futoshiki, limited)


@pytest.mark.parametrize("name", BACKENDS)
def test_latin_square_counts(name):
    need(name, "enumerate")
    board = latin_square(4, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    result = get_backend(name).solve(build_model(board, "none"), limit=None, time_limit=60)
    assert result.n_solutions == 576 // 4 and result.exhausted  # symmetry: 1/4 have 1 at (0,0)
    check_all(board, result)


@pytest.mark.parametrize("name", BACKENDS)
def test_multiset_board(name):
    board = multiset_board()
    if "multiset" not in caps(name):
        with pytest.raises(UnsupportedError, match="multiset"):
            get_backend(name).solve(build_model(board))
        return
    need(name, "enumerate")
    result = get_backend(name).solve(build_model(board), limit=None, time_limit=60)
    assert result.n_solutions == 90 and result.exhausted
    check_all(board, result)


@pytest.mark.parametrize("name", BACKENDS)
def test_string_labels(name):
    board = string_square()
    if "strings" not in caps(name):
        with pytest.raises(UnsupportedError, match="strings"):
            get_backend(name).solve(build_model(board))
        return
    need(name, "enumerate")
    result = get_backend(name).solve(build_model(board), limit=None, time_limit=60)
    assert result.n_solutions == 12
    check_all(board, result)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("filtering", ["lists", "none", "gac"])
def test_proves_unsat(name, filtering):
    need(name, "unsat")
    # Not completable, though no clue repeats: (0,1) must be 2, as must (1,1).
    board = latin_square(2, [[1, 0], [0, 2]])
    result = get_backend(name).solve(build_model(board, filtering), time_limit=30)
    assert result.status is Status.UNSAT and result.exhausted and not result.solutions
    # Unsat only by search: a 3x3 futoshiki whose inequalities cannot all hold.
    board = futoshiki(3, less=[((0, 0), (0, 1)), ((0, 1), (0, 2)), ((1, 0), (0, 0)),
                               ((2, 2), (1, 2)), ((1, 2), (0, 2))])
    assert brute_force_count(board) == 0
    result = get_backend(name).solve(build_model(board, filtering), time_limit=30)
    assert result.status is Status.UNSAT


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("kind", ["consecutive", "ratio"])
def test_a_relation_that_allows_no_pair_is_unsat(name, kind):
    # over labels 1, 3, 5 no pair is consecutive nor in ratio 2: with full lists the
    # model has no conflict and the backend's own encoding must say unsat (Gecode
    # crashed on the empty table, issue 13)
    need(name, "unsat", kind)
    board = Board(9, tuple(grid_lines(3, 3)), (1, 3, 5), relations=(Relation(kind, (0, 1)),),
                  shape=(3, 3))
    assert brute_force_count(board) == 0
    model = build_model(board, "none")
    assert model.conflict is None and not model.allowed_pairs(model.binary[0])
    result = get_backend(name).solve(model, limit=None, time_limit=30)
    assert result.status is Status.UNSAT and result.exhausted and not result.solutions


@pytest.mark.parametrize("name", BACKENDS)
def test_duplicate_clue_is_unsat_with_reason(name):
    board = latin_square(3, [[2, 0, 2], [0, 0, 0], [0, 0, 0]])
    result = get_backend(name).solve(build_model(board))
    # an incomplete backend never answers unsat, even when the Model proves it
    expected = Status.UNSAT if REGISTRY[name].complete else Status.UNKNOWN
    assert result.status is expected and "holds 2 2 times" in result.stats["reason"]


@pytest.mark.parametrize("name", BACKENDS)
def test_time_limit_is_honoured(name):
    need(name, "time_limit")
    board = latin_square(12)
    result = get_backend(name).solve(build_model(board), limit=None, time_limit=0.5)
    assert result.status in (Status.SAT, Status.UNKNOWN)
    assert not result.exhausted  # 12x12 Latin squares cannot be enumerated in 0.5 s
    check_all(board, result)


@pytest.mark.parametrize("name", BACKENDS)
def test_seed_is_reproducible(name, small_futoshiki):
    need(name, "seed")
    backend = get_backend(name)
    a = backend.solve(build_model(small_futoshiki), seed=7, limit=3)
    b = backend.solve(build_model(small_futoshiki), seed=7, limit=3)
    assert a.solutions == b.solutions


@pytest.mark.parametrize("name", BACKENDS)
def test_a_declared_seed_changes_the_search(name):
    # a backend that declares `seed` but ignores it gives the same first solution of an
    # empty 4x4 Latin square (576 of them) for every seed
    need(name, "seed")
    model = build_model(latin_square(4))  # 576 solutions
    fast = {"cooling": 1e-3} if name == "anneal" else {}  # the paper's schedule takes seconds
    firsts = {tuple(get_backend(name).solve(model, seed=seed, limit=1, time_limit=10,
                                            **fast).solutions)
              for seed in range(1, 7)}
    assert len(firsts) > 1


@pytest.mark.parametrize("name", BACKENDS)
def test_a_backend_without_seeds_refuses_one(name, small_futoshiki):
    # Backend.solve refuses it, so it is refused however the backend is reached (the
    # API, the CLI, the experiment runner: tests/test_crosscheck.py has the fan-outs)
    if "seed" in REGISTRY[name].capabilities:
        pytest.skip(f"{name} takes a seed")
    with pytest.raises(UsageError, match=f"backend '{name}' takes no seed"):
        get_backend(name).solve(build_model(small_futoshiki), seed=1)


@pytest.mark.parametrize("name", BACKENDS)
def test_rejects_unknown_options_and_limits(name, small_futoshiki):
    backend = get_backend(name)
    with pytest.raises(UsageError, match="no option 'bogus'"):
        backend.solve(build_model(small_futoshiki), bogus=1)
    with pytest.raises(UsageError, match="limit"):
        backend.solve(build_model(small_futoshiki), limit=0)


@pytest.mark.parametrize("name", BACKENDS)
def test_every_option_value_is_accepted(name, small_futoshiki):
    board = small_futoshiki
    for opt in REGISTRY[name].options:
        for value in opt.choices or ():
            backend = get_backend(name)
            try:
                result = backend.solve(build_model(board), limit=2, time_limit=30, **{opt.name: value})
            except UnsupportedError:
                continue
            check_all(board, result)
            if REGISTRY[name].complete and result.ok:
                assert result.n_solutions == min(2, brute_force_count(board))


# Keen and Towers boards (n-ary relations: arith cages, visible clues), counted by the oracle:
# 4x4 ones, and 5x5 ones whose oracle count is quick; the "-unsat" ones have a wrong target
GAMES = {
    "keen-4a": keen_board(4, 1), "keen-4b": keen_board(4, 2), "keen-5a": keen_board(5, 3),
    "keen-5b": keen_board(5, 5), "keen-5-unsat": keen_board(5, 3, truthful=False),
    "towers-4a": towers_board(4, 1, 5), "towers-4b": towers_board(4, 2, 6, 1),
    "towers-5a": towers_board(5, 4, 10, 2), "towers-5b": towers_board(5, 6, 10, 2),
    "towers-5-unsat": towers_board(5, 4, 8, 3, truthful=False),
}


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("key", sorted(GAMES))
def test_tatham_games_count_like_the_oracle(name, key):
    need(name, "enumerate", "nary")
    board = GAMES[key]
    expected = brute_force_count(board)
    assert (expected == 0) == key.endswith("unsat")
    result = get_backend(name).solve(build_model(board), limit=None, time_limit=60)
    assert result.n_solutions == expected and result.exhausted, (name, key)
    assert len(set(result.solutions)) == expected
    check_all(board, result)


def test_unknown_backend():
    with pytest.raises(UsageError, match="unknown backend 'nope'"):
        get_backend("nope")
