"""Focused tests of the incomplete backends ``anneal`` (seed 001) and ``genetic`` (seed 002).

Neither may ever answer ``unsat`` from its own search nor return a solution
that verify() rejects: checked on many small random boards, satisfiable or not
(known from the independent brute-force oracle). With a fixed seed each solves
easy instances, and the same seed gives the same answer and counters. The
incremental energy of the annealing and the fitness of the GA are checked
against independent recounts.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from dataclasses import replace

import pytest

from futocp.backends import REGISTRY, get_backend
from futocp.backends.anneal import (
    AnnealBackend,
    _anneal,
    _Run,
    _swap_start,
    compile_anneal,
    energy,
    find_partition,
    model_violations,
)
from futocp.backends.base import Deadline
from futocp.backends.genetic import (
    PARAMETER_GRID,
    GeneticBackend,
    _evolve,
    _fitness_function,
    compile_genetic,
    fitness,
)
from futocp.backends.listcolor import ListcolorBackend
from futocp.board import Board, grid_neighbour_pairs
from futocp.errors import BoardError, UnsupportedError, UsageError
from futocp.families import family, futoshiki, latin_square, sudoku
from futocp.generate import futoshiki_puzzle, random_board, remove_clues
from futocp.model import build_model
from futocp.relations import Relation
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import multiset_board, string_square, within

NAMES = ("anneal", "genetic")
# small budgets for the sweeps (the defaults are the papers' and take seconds)
QUICK = {"anneal": {"cooling": 1e-3, "moves": 20_000},
         "genetic": {"generations": 300}}
TIMES = ("build_s", "solve_s", "wall_s")


def check_all(board: Board, result) -> None:
    """Every solution verifies and none repeats."""
    for sol in result.solutions:
        assert verify(board, sol) == [], sol
    assert len(set(result.solutions)) == len(result.solutions)


def counters(result) -> dict:
    return {k: v for k, v in result.stats.items() if k not in TIMES}


def satisfiable(board: Board) -> bool:
    """By the brute-force oracle on 4x4 boards; by the complete listcolor backend
    on larger ones (the oracle counts every solution: too slow on empty 5x5)."""
    if board.n_cells <= 16:
        return brute_force_count(board) > 0
    result = ListcolorBackend().solve(build_model(board), limit=1)
    assert result.ok
    return result.status is Status.SAT


def random_boards(count: int, seed: int) -> list[Board]:
    """Small boards, about half of them unsatisfiable: generated Futoshiki (with
    and without extra randomly oriented signs), Latin squares and 4x4 Sudoku
    with random clues."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        kind = rng.randrange(4)
        n = rng.choice((4, 5))
        try:
            if kind == 0:  # satisfiable: signs and givens from a hidden solution
                boards.append(futoshiki_puzzle(n, rng.randrange(0, 10), rng.randrange(0, 8),
                                               rng=rng))
            elif kind == 1:  # extra signs in random directions: often unsatisfiable
                base = futoshiki_puzzle(n, rng.randrange(0, 5), rng.randrange(0, 5), rng=rng)
                signed = {frozenset(p) for p in base.less}
                pairs = grid_neighbour_pairs(n, n)
                extra = [p if rng.random() < 0.5 else p[::-1]
                         for p in rng.sample(pairs, rng.randrange(4, 12))
                         if frozenset(p) not in signed]
                boards.append(replace(base, less=tuple(base.less) + tuple(extra)))
            else:  # random clues clashing with no other clue: a Latin square or 4x4 Sudoku
                template = latin_square(n) if kind == 2 else sudoku((2, 2))
                clues: dict[int, int] = {}
                for _ in range(rng.randrange(3, 9)):
                    cell = rng.randrange(template.n_cells)
                    label = rng.choice(template.labels)
                    peers = [c for ast in template.asterisms if cell in ast for c in ast]
                    if cell not in clues and all(clues.get(c) != label for c in peers):
                        clues[cell] = label
                boards.append(template.with_clues(clues))
        except BoardError:  # a cycle of signs, a clue clash the board refuses: skip
            continue
    return boards


# --------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", NAMES)
def test_registered_as_incomplete(name):
    cls = REGISTRY[name]
    assert cls.complete is False and cls.available() is True
    assert not {"unsat", "enumerate"} & cls.capabilities
    assert {"time_limit", "seed", "less", "binary", "multiset"} <= cls.capabilities
    for opt in cls.options:
        assert opt.help, opt.name


# ------------------------------------------------------ never wrong, never unsat
@pytest.mark.parametrize("name", NAMES)
def test_never_unsat_nor_wrong_on_random_boards(name):
    boards = random_boards(40, seed=2024)
    unsat_searched = 0
    for i, board in enumerate(boards):
        sat = satisfiable(board)
        for filtering in ("lists", "none"):
            model = build_model(board, filtering)
            result = get_backend(name).solve(model, limit=2, seed=i, **QUICK[name])
            check_all(board, result)
            if model.conflict is not None:  # proved by the model (clues, list filtering):
                # an incomplete backend still answers unknown, with the reason
                assert not sat and result.status is Status.UNKNOWN and result.stats["reason"]
                continue
            assert result.status in (Status.SAT, Status.UNKNOWN)
            assert not result.exhausted
            assert (result.status is Status.SAT) == bool(result.solutions)
            if not sat:
                assert result.status is Status.UNKNOWN
                unsat_searched += 1
    assert unsat_searched >= 5  # the sweep really reaches unsatisfiable boards


# ------------------------------------------------------------ easy instances
def easy_boards() -> dict[str, Board]:
    full5 = futoshiki_puzzle(5, inequalities=6, givens=15, seed=11)
    return {
        "futoshiki5": full5,
        "futoshiki4": futoshiki_puzzle(4, inequalities=5, givens=8, seed=3),
        "sudoku4": sudoku((2, 2), [[1, 0, 0, 4], [0, 0, 1, 0], [0, 1, 0, 0], [4, 0, 0, 1]]),
        "latin4": latin_square(4),
        "hypersudoku": remove_clues(random_board(family("hypersudoku"), seed=5), seed=1,
                                    givens=81 - 15),
        "nonomino": remove_clues(random_board(family("jigsaw"), seed=6), seed=2, givens=81 - 15),
        "sudoku9": remove_clues(random_board(sudoku((3, 3)), seed=7), seed=3, givens=81 - 20),
        "multiset": multiset_board(),
        "strings": string_square(),
    }


@pytest.mark.parametrize("board_name", list(easy_boards()))
@pytest.mark.parametrize("name", NAMES)
def test_solves_easy_instances_with_a_fixed_seed(name, board_name):
    board = easy_boards()[board_name]
    opts = {}
    if name == "anneal":  # ten times faster cooling than the paper's (its schedule: below)
        opts = {"cooling": 2e-5, "move": "swap" if board.n_cells > 30 else "paper"}
    # without list filtering (the papers' setting; the lists fix most cells of these boards)
    result = get_backend(name).solve(build_model(board, "none"), seed=1, time_limit=60, **opts)
    assert result.status is Status.SAT and result.n_solutions == 1
    check_all(board, result)
    stats = result.stats
    assert set(REGISTRY[name].counters) <= set(stats)
    assert stats["solve_s"] >= 0 and stats["build_s"] >= 0
    if name == "anneal":
        assert stats["best_energy"] == stats["final_energy"] == 0
        assert stats["restarts"] == 0 and 0 <= stats["accepted"] <= stats["moves"]
    else:
        assert stats["best_fitness"] == 0 and stats["evaluations"] >= 10
        assert 0 <= stats["generations"] <= 10000


def test_anneal_paper_defaults_solve_a_5x5_futoshiki():
    """The paper's schedule (T0 = 100, r = 2e-6, paper move) on its "extreme" kind of
    puzzle (5x5, 9 signs, 3 givens), nothing changed."""
    board = futoshiki_puzzle(5, inequalities=9, givens=3, seed=4)
    result = AnnealBackend().solve(build_model(board, "none"), seed=2)
    assert result.status is Status.SAT
    check_all(board, result)
    assert 1_000_000 < result.stats["moves"] < 5_000_000  # T has cooled to about 1 by then


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_answer_and_counters(name):
    board = futoshiki_puzzle(5, inequalities=8, givens=4, seed=21)
    backend = get_backend(name)
    runs = [backend.solve(build_model(board), seed=5, limit=3, **QUICK[name]) for _ in range(2)]
    assert runs[0].status == runs[1].status
    assert runs[0].solutions == runs[1].solutions
    assert counters(runs[0]) == counters(runs[1])
    other = backend.solve(build_model(board), seed=6, limit=3, **QUICK[name])
    check_all(board, other)


def test_anneal_restarts_give_distinct_solutions():
    board = latin_square(3)  # 12 solutions
    result = AnnealBackend().solve(build_model(board), limit=4, seed=3, restarts=30,
                                   cooling=1e-3, moves=20_000)
    assert result.status is Status.SAT and 1 < result.n_solutions <= 4
    check_all(board, result)
    assert 0 < result.stats["restarts"] <= 30
    one = AnnealBackend().solve(build_model(board), limit=4, seed=3, cooling=1e-3,
                                moves=20_000)
    assert one.n_solutions == 1 and one.stats["restarts"] == 0  # no restarts: one run


def test_genetic_limit_returns_distinct_final_solutions():
    board = latin_square(3)
    result = GeneticBackend().solve(build_model(board), limit=None, seed=1, population=30)
    assert result.status is Status.SAT and result.n_solutions >= 1
    check_all(board, result)


# ----------------------------------------------------------------- relations
def test_every_binary_kind_through_its_support():
    """consecutive, nonconsecutive and ratio relations (the generic ``binary``)."""
    base = latin_square(4)
    rels = (Relation("consecutive", (0, 1)), Relation("nonconsecutive", (4, 5)),
            Relation("ratio", (10, 14)), Relation("less", (15, 11)))
    board = Board(base.n_cells, base.asterisms, base.labels, relations=rels, shape=(4, 4))
    assert brute_force_count(board) > 0
    runs = [("anneal", {"move": "paper", **QUICK["anneal"]}),
            ("anneal", {"move": "swap", **QUICK["anneal"]}),
            ("genetic", {"population": 30, "pm": 0.07, "generations": 2000})]
    for name, opts in runs:
        result = get_backend(name).solve(build_model(board, "none"), seed=2, **opts)
        assert result.status is Status.SAT, (name, opts)
        check_all(board, result)


# ---------------------------------------------- incremental energy, fitness
def energy_boards() -> list[Board]:
    base = latin_square(4)  # relations and clue hold in the cyclic square, row r: r+1, r+2, ...
    rels = (Relation("consecutive", (0, 1)), Relation("ratio", (13, 14)),
            Relation("less", (2, 6)), Relation("nonconsecutive", (9, 13)))
    return [futoshiki_puzzle(5, inequalities=12, givens=3, seed=s) for s in range(3)] + [
        Board(16, base.asterisms, base.labels, clues=((3, 4),), relations=rels, shape=(4, 4)),
        multiset_board(),
        family("hypersudoku"),
    ]


@pytest.mark.parametrize("move", ["paper", "swap"])
def test_incremental_energy_matches_a_full_recount(move):
    for b, board in enumerate(energy_boards()):
        for filtering in ("none", "lists"):
            model = build_model(board, filtering)
            assert model.conflict is None
            prog = compile_anneal(model, move)
            rng = random.Random(b)
            for cap in (1, 7, 500, 3000):
                vals = list(prog.start) if move == "paper" else _swap_start(prog, rng)
                occ = prog.occurrences(vals)
                e0 = energy(prog, vals)
                run = _Run()
                e = _anneal(prog, vals, occ, e0, rng, 2.0, 1e-3, cap, Deadline(None), run)
                assert e == energy(prog, vals), (b, filtering, cap)
                assert occ == prog.occurrences(vals)
                assert run.moves <= cap and run.best <= e0
                for c in range(model.n_cells):  # every cell within its list
                    assert vals[c] in model.domain(c) or move == "swap"
                for c, v in zip(range(model.n_cells), prog.start, strict=True):
                    if len(model.domain(c)) == 1:
                        assert vals[c] == v  # fixed cells never move
                if move == "swap":  # the partition's groups stay permutations
                    for g in prog.partition:
                        cells, counts = model.groups[g]
                        got = sorted(vals[c] for c in cells)
                        want = sorted(v for v, k in enumerate(counts or [1] * model.n_values)
                                      for _ in range(k))
                        assert got == want


def independent_conflicts(board: Board, labels) -> int:
    """Conflicting edges (pairs sharing an asterism of distinct labels, counted
    once) plus broken relations, from the Board alone."""
    edges = {pair for ast in board.asterisms
             for pair in itertools.combinations(sorted(ast), 2)}
    bad = sum(1 for a, b in edges if labels[a] == labels[b])
    return bad + sum(1 for rel in board.relations if not rel.holds([labels[c] for c in rel.cells]))


def test_genetic_fitness_is_minus_the_conflicting_edges():
    rng = random.Random(4)
    boards = [board for board in energy_boards() if len(set(board.labels)) == len(board.labels)]
    boards.append(sudoku((3, 3)))
    for board in boards:
        model = build_model(board, "none")
        prog = compile_genetic(model)
        fit = _fitness_function(prog)
        for _ in range(20):
            vals = list(prog.start)
            for row, missing in zip(prog.row_free(), prog.row_missing, strict=True):
                labels = list(missing)
                rng.shuffle(labels)
                for c, v in zip(row, labels, strict=True):
                    vals[c] = v
            labels = model.labels_of(vals)
            assert fitness(prog, vals) == fit(vals) == -independent_conflicts(board, labels)
    # the paper's edge counts: 810 (Sudoku) and 874 (Hypersudoku) edges, rows excluded
    assert len(compile_genetic(build_model(sudoku((3, 3)), "none")).edges) == 810 - 9 * 36
    assert len(compile_genetic(build_model(family("hypersudoku"), "none")).edges) == 874 - 9 * 36


def test_model_violations_agree_with_verify():
    rng = random.Random(7)
    for board in energy_boards()[:4] + [futoshiki_puzzle(4, 6, 3, seed=1)]:
        model = build_model(board, "none")
        solution = AnnealBackend().solve(model, seed=1, move="swap", cooling=1e-4).solutions[0]
        assert verify(board, solution) == []
        vals = [model.index_of(v) for v in solution]
        assert model_violations(model, vals) == 0
        for _ in range(30):
            other = list(vals)
            for _ in range(rng.randrange(1, 4)):
                other[rng.randrange(len(other))] = rng.randrange(model.n_values)
            broken = bool(verify(board, model.labels_of(other)))
            assert (model_violations(model, other) > 0) == broken


def test_genetic_keeps_rows_permutations_and_givens():
    board = remove_clues(random_board(family("jigsaw"), seed=9), seed=9, givens=81 - 45)
    model = build_model(board, "none")
    prog = compile_genetic(model)
    fit = _fitness_function(prog)
    for mutate_parents in (True, False):
        gens, best, evals, population = _evolve(prog, fit, random.Random(1), Deadline(None),
                                                 10, 0.07, 0.9, 5, 30, 5, mutate_parents)
        assert gens <= 30 and evals >= 10 and len(population) == 10
        for vals in population:
            assert all(vals[c] == prog.start[c] for c in range(81) if prog.fixed[c])
            for row in prog.rows:
                assert sorted(vals[c] for c in row) == list(range(9))
        assert best == max(fitness(prog, v) for v in population)
        assert [fitness(prog, v) for v in population] == sorted(
            (fitness(prog, v) for v in population), reverse=True)


def test_parameter_grid_is_the_papers():
    assert len(PARAMETER_GRID) == 24
    assert PARAMETER_GRID[0] == {"population": 10, "pm": 0.03, "pc": 0.9, "sp": 5}
    assert PARAMETER_GRID[-1] == {"population": 30, "pm": 0.07, "pc": 1.0, "sp": 10}
    defaults = {o.name: o.default for o in GeneticBackend.options}
    assert {k: defaults[k] for k in PARAMETER_GRID[0]} == PARAMETER_GRID[0]
    assert defaults["generations"] == 10000 and defaults["mating_pool"] == 0
    for combo in PARAMETER_GRID[:3]:
        board = easy_boards()["sudoku4"]
        result = GeneticBackend().solve(build_model(board), seed=0, **combo)
        assert result.status is Status.SAT
        check_all(board, result)


# ------------------------------------------------------------ the structures
def test_anneal_start_is_the_papers():
    board = futoshiki(4, [[0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    prog = AnnealBackend().compile(build_model(board, "none"))
    assert prog.start[1] == 2 and prog.start[11] == 0  # givens (value indices)
    assert all(v == 0 for c, v in enumerate(prog.start) if c not in (1, 11))  # label 1
    assert set(prog.free) == set(range(16)) - {1, 11}
    defaults = {o.name: o.default for o in AnnealBackend.options}
    assert (defaults["t0"], defaults["cooling"], defaults["move"]) == (100.0, 2e-6, "paper")


def test_partition_choice():
    model = build_model(sudoku((2, 2)))
    assert find_partition(model, 0) == (0, 1, 2, 3)  # rows
    assert find_partition(model, 4) == (4, 5, 6, 7)  # columns
    assert find_partition(model, 8) == (8, 9, 10, 11)  # boxes
    prog = GeneticBackend().compile(model, partition=4)
    assert prog.rows == tuple(model.groups[g][0] for g in (4, 5, 6, 7))
    result = GeneticBackend().solve(model, seed=1, partition=8)
    assert result.status is Status.SAT
    check_all(model.board, result)
    with pytest.raises(UnsupportedError, match="no partition"):
        find_partition(build_model(family("hypersudoku")), 27)  # a window first
    with pytest.raises(UsageError, match="partition"):
        GeneticBackend().solve(model, partition=12)


def test_no_partition_is_refused_only_where_needed():
    # two overlapping asterisms over three cells: no partition of the cells
    board = Board(3, ((0, 1), (1, 2)), (1, 2), shape=(1, 3))
    model = build_model(board, "none")
    for name, opts in (("genetic", {}), ("anneal", {"move": "swap"})):
        with pytest.raises(UnsupportedError, match="no partition"):
            get_backend(name).solve(model, **opts)
    result = AnnealBackend().solve(model, seed=1, cooling=1e-3, moves=10_000)
    assert result.status is Status.SAT and result.solutions[0] in ((1, 2, 1), (2, 1, 2))


# ----------------------------------------------------------------- options
@pytest.mark.parametrize("name,options", [
    ("anneal", {"t0": 0}), ("anneal", {"t0": -1.0}), ("anneal", {"cooling": 1.0}),
    ("anneal", {"cooling": -0.1}), ("anneal", {"moves": 0}), ("anneal", {"restarts": -1}),
    ("anneal", {"move": "jump"}), ("anneal", {"partition": -1}), ("anneal", {"t0": "hot"}),
    ("anneal", {"trace": -1}),
    ("genetic", {"population": 0}), ("genetic", {"pm": 1.5}), ("genetic", {"pc": -0.1}),
    ("genetic", {"sp": 0}), ("genetic", {"generations": -1}), ("genetic", {"mating_pool": -2}),
    ("genetic", {"mutate": "none"}), ("genetic", {"population": "ten"}),
    ("genetic", {"partition": -3}),
])
def test_bad_options_are_refused(name, options):
    board = latin_square(3)
    with pytest.raises(UsageError, match=next(iter(options))):
        get_backend(name).solve(build_model(board), **options)
    with pytest.raises(UsageError):
        get_backend(name).compile(build_model(board), **options)


def test_options_from_strings():
    board = latin_square(3)
    result = AnnealBackend().solve(build_model(board), seed=1, t0="50", cooling="1e-3",
                                   moves="20000", restarts="1", move="swap")
    assert result.status is Status.SAT
    result = GeneticBackend().solve(build_model(board), seed=1, population="12", pm="0.07",
                                    pc="1", sp="3", generations="200", mating_pool="4",
                                    mutate="offspring")
    assert result.status is Status.SAT


def test_caps_end_the_runs():
    board = futoshiki_puzzle(5, inequalities=10, givens=0, seed=8)
    r = AnnealBackend().solve(build_model(board, "none"), seed=1, moves=100, restarts=2)
    assert r.status is Status.UNKNOWN and r.stats["moves"] == 300
    assert r.stats["restarts"] == 2 and r.stats["final_energy"] > 0
    assert r.stats["best_energy"] <= r.stats["final_energy"]
    g = GeneticBackend().solve(build_model(board, "none"), seed=1, generations=3)
    assert g.status is Status.UNKNOWN and g.stats["generations"] == 3
    assert g.stats["best_fitness"] < 0
    zero = GeneticBackend().solve(build_model(board, "none"), seed=1, generations=0)
    assert zero.stats["generations"] == 0 and zero.stats["evaluations"] == 10


@pytest.mark.parametrize("move", ["paper", "swap"])
def test_anneal_trace_records_the_energy_of_the_same_walk(move):
    board = futoshiki_puzzle(5, inequalities=10, givens=0, seed=8)
    model = build_model(board, "none")
    plain = AnnealBackend().solve(model, seed=2, cooling=1e-3, move=move)
    assert "trace" not in plain.stats  # off by default
    traced = AnnealBackend().solve(model, seed=2, cooling=1e-3, move=move, trace=50)
    trace = traced.stats["trace"]
    for key in ("moves", "accepted", "final_energy", "best_energy"):
        assert traced.stats[key] == plain.stats[key]  # the trace does not change the walk
    assert traced.solutions == plain.solutions
    assert trace[-1] == [traced.stats["moves"], traced.stats["final_energy"]]
    assert trace[0][0] == 0 and trace[0][1] > 0  # the start is no solution
    assert all(m % 50 == 0 for m, _ in trace[:-1])
    assert min(e for _, e in trace) >= traced.stats["best_energy"]


def test_anneal_trace_is_coarsened_and_spans_the_restarts():
    board = futoshiki_puzzle(5, inequalities=10, givens=0, seed=8)
    r = AnnealBackend().solve(build_model(board, "none"), seed=1, moves=3000, restarts=1,
                              cooling=0.0, t0=50.0, trace=1)
    trace = r.stats["trace"]
    assert r.status is Status.UNKNOWN and r.stats["moves"] == 6000
    assert len(trace) <= 1001 and trace[-1] == [6000, r.stats["final_energy"]]
    steps = {b[0] - a[0] for a, b in itertools.pairwise(trace[:-1])}
    assert steps == {8}  # 1 -> 2 -> 4 -> 8: 6000 moves in at most 1000 evenly spaced points
    json.dumps(r.stats)  # JSON-ready


# --------------------------------------------------------------- time limit
@pytest.mark.parametrize("name,options", [
    ("anneal", {}), ("anneal", {"move": "swap"}), ("genetic", {}),
])
def test_time_limit_is_honoured(name, options):
    # unsatisfiable, not known to a model without filtering: only the limit ends the run
    n = 7  # row 0 increasing to the right, column 0 increasing upwards: (0, 0) = 1 and n
    less = [((0, c), (0, c + 1)) for c in range(n - 1)] + [((r + 1, 0), (r, 0))
                                                           for r in range(n - 1)]
    board = futoshiki(n, less=less)
    assert build_model(board).conflict is not None  # the list filtering proves it
    model = build_model(board, "none")
    assert model.conflict is None
    start = time.perf_counter()
    result = get_backend(name).solve(model, time_limit=1.0, seed=1, **options)
    elapsed = time.perf_counter() - start
    assert result.status is Status.UNKNOWN and not result.solutions
    assert elapsed < 1.0 + within(1.0)  # time limit + slack
    assert result.stats["solve_s"] >= 0.9  # it used the time
