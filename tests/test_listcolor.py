"""Focused tests of the native listcolor backend (the REGISTRY-wide suite is test_conformance).

Every answer is checked with verify() and, on small boards, against an
independent brute-force count; each search mode (plain, auto, lookahead) must
agree.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from futocp.backends import listcolor
from futocp.backends.listcolor import ListcolorBackend, ListcolorProgram
from futocp.board import Board
from futocp.errors import BoardError, UnsupportedError
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import (
    apart_kind,
    hidden_latin,
    hidden_sudoku4,
    multiset_board,
    random_cages,
    string_square,
    within,
)

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
MODES = ("never", "auto", "always")


def solve(board: Board, **kwargs):
    return ListcolorBackend().solve(build_model(board), **kwargs)


def check_all(board: Board, result) -> None:
    """Every solution verifies and none repeats."""
    for sol in result.solutions:
        assert verify(board, sol) == [], sol
    assert len(set(result.solutions)) == len(result.solutions)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n, count", [(1, 1), (2, 2), (3, 12), (4, 576)])
def test_latin_square_counts(n: int, count: int, mode: str) -> None:
    board = latin_square(n)
    r = solve(board, limit=None, lookahead=mode)
    assert r.status is Status.SAT and r.exhausted
    assert r.n_solutions == count
    check_all(board, r)


def random_futoshiki(rng: random.Random, n: int = 4) -> Board:
    givens = [[0] * n for _ in range(n)]
    for _ in range(rng.randrange(0, 4)):
        givens[rng.randrange(n)][rng.randrange(n)] = rng.randrange(1, n + 1)
    less = set()
    for _ in range(rng.randrange(0, 7)):
        r, c = rng.randrange(n), rng.randrange(n)
        r2, c2 = (r, c + 1) if rng.random() < 0.5 else (r + 1, c)
        if r2 < n and c2 < n and ((r2, c2), (r, c)) not in less:
            less.add(((r, c), (r2, c2)) if rng.random() < 0.5 else ((r2, c2), (r, c)))
    return futoshiki(n, givens, sorted(less))


@pytest.mark.parametrize("seed", range(12))
def test_random_futoshiki_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3):
        try:
            board = random_futoshiki(rng)
        except BoardError:  # a random cycle of inequalities: not a board
            continue
        want = brute_force_count(board)
        for mode in MODES:
            r = solve(board, limit=None, lookahead=mode)
            assert r.n_solutions == want, (mode, board)
            assert r.exhausted
            assert r.status is (Status.SAT if want else Status.UNSAT)
            check_all(board, r)
        for weight in ("binary", "removed", "portfolio"):
            one = solve(board, limit=1, lookahead="always", weight=weight, seed=seed)
            assert one.status is (Status.SAT if want else Status.UNSAT)
            check_all(board, one)


@pytest.mark.parametrize("mode", MODES)
def test_multiset_board(mode: str) -> None:
    board = multiset_board()  # rows and columns hold {1, 1, 2, 2}
    r = solve(board, limit=None, lookahead=mode)
    assert r.n_solutions == brute_force_count(board) == 90
    check_all(board, r)


@pytest.mark.parametrize("seed", range(6))
def test_multiset_board_with_clues_and_less(seed: int) -> None:
    rng = random.Random(seed)
    base = multiset_board()
    clues = {rng.randrange(16): rng.choice((1, 2)) for _ in range(rng.randrange(1, 4))}
    less = [(a, a + 1) for a in rng.sample([c for c in range(16) if c % 4 != 3], 2)]
    board = Board(16, base.asterisms, base.labels, clues=tuple(clues.items()),
                  less=tuple(less), shape=(4, 4))
    want = brute_force_count(board)
    for mode in MODES:
        r = solve(board, limit=None, lookahead=mode)
        assert r.n_solutions == want
        assert r.status is (Status.SAT if want else Status.UNSAT)
        check_all(board, r)


def test_multiset_three_labels() -> None:
    """Asterisms of 5 cells holding {1, 1, 2, 2, 3}: the count rules force and remove labels."""
    board = Board(25, tuple(grid_lines(5, 5)), (1, 1, 2, 2, 3),
                  clues=((0, 3), (6, 3), (12, 3), (18, 1), (24, 2)), shape=(5, 5))
    r = solve(board, limit=None)
    assert r.n_solutions == brute_force_count(board)
    check_all(board, r)


def test_string_labels() -> None:
    board = string_square()
    r = solve(board, limit=None)
    assert r.n_solutions == 12
    check_all(board, r)


@pytest.mark.parametrize("mode", MODES)
def test_unsat_futoshiki_needs_search(mode: str) -> None:
    board = read(INSTANCES / "futoshiki" / "7x7-unsat-search.json")
    model = build_model(board)
    assert model.conflict is None  # only search can tell
    r = ListcolorBackend().solve(model, limit=None, lookahead=mode)
    assert r.status is Status.UNSAT and r.exhausted and r.solutions == []
    for weight in ("binary", "portfolio"):
        one = ListcolorBackend().solve(model, limit=1, lookahead=mode, weight=weight)
        assert one.status is Status.UNSAT and one.exhausted


def test_unsat_from_clue_conflict() -> None:
    r = solve(read(INSTANCES / "futoshiki" / "5x5-unsat-duplicate.json"))
    assert r.status is Status.UNSAT and "reason" in r.stats


def test_several_solutions_limit() -> None:
    board = read(INSTANCES / "futoshiki" / "5x5-several.json")
    want = brute_force_count(board)
    full = solve(board, limit=None)
    assert full.n_solutions == want and full.exhausted
    part = solve(board, limit=want - 1)
    assert part.n_solutions == want - 1 and not part.exhausted
    exact = solve(board, limit=want)
    assert exact.n_solutions == want and not exact.exhausted  # the limit stopped it
    check_all(board, full)


def test_hidden_singles_off_same_count(small_futoshiki: Board) -> None:
    want = brute_force_count(small_futoshiki)
    for flag in (True, False):
        for branching in ("cell", "dual"):
            r = solve(small_futoshiki, limit=None, hidden_singles=flag, branching=branching,
                      lookahead="never")
            assert r.n_solutions == want
            check_all(small_futoshiki, r)


def test_qwh_order_30_is_solved() -> None:
    board = read(INSTANCES / "qwh" / "qwh-o30-h374-01.dzn")
    r = solve(board, time_limit=120)
    assert r.status is Status.SAT
    check_all(board, r)
    assert r.stats["probes"] > 0  # the plain search gave way to the lookahead


def test_time_limit_gives_unknown() -> None:
    board = read(INSTANCES / "qwh" / "lsencode" / "qwh.order50.holes750.bal.pls")
    for mode in ("never", "always"):
        r = solve(board, time_limit=0.05, lookahead=mode)
        assert r.status is Status.UNKNOWN
        assert not r.exhausted and r.solutions == []


def test_seed_reproducible() -> None:
    board = read(INSTANCES / "futoshiki" / "5x5-several.json")
    for seed in (None, 3, 11):
        a = solve(board, seed=seed, lookahead="always")
        b = solve(board, seed=seed, lookahead="always")
        assert a.solutions == b.solutions
        assert a.stats["nodes"] == b.stats["nodes"] and a.stats["probes"] == b.stats["probes"]
        check_all(board, a)
    seen = {solve(board, seed=s, lookahead="never").solutions[0] for s in range(12)}
    assert len(seen) > 1  # a seed does change the value order
    ordered = {solve(board, lookahead="never").solutions[0] for _ in range(3)}
    assert len(ordered) == 1  # no seed: deterministic


def test_stats_counters() -> None:
    board = read(INSTANCES / "futoshiki" / "9x9-recursive-01.json")
    model = build_model(board)
    r = ListcolorBackend().solve(model, limit=None)
    assert r.n_solutions == 1
    check_all(board, r)
    st = r.stats
    assert st["nodes"] > 0 and st["backtracks"] > 0 and st["max_depth"] > 0
    assert st["removed_values"] > model.stats["removed_values"]
    for key in ("build_s", "solve_s", "wall_s", "probes", "failed_literals", "dilemma_values"):
        assert key in st


def test_compile_structure() -> None:
    board = futoshiki(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((1, 1), (1, 2))])
    model = build_model(board)
    prog = ListcolorBackend().compile(model)
    assert isinstance(prog, ListcolorProgram)
    assert sorted(prog.cells) == list(range(9))
    assert [model.domains[c] for c in prog.cells] == list(prog.domains)
    assert len(prog.groups) == 6 and all(k is None for k in prog.counts)
    inside = {c: i for i, c in enumerate(prog.cells)}
    assert prog.succ[inside[4]] == (inside[5],) and prog.pred[inside[5]] == (inside[4],)
    dual = prog.dual_table(prog.domains)
    for j, g in enumerate(prog.dual_groups):
        for v in range(prog.n_values):
            cells = {c for p, c in enumerate(prog.groups[g]) if dual[j * prog.n_values + v] >> p & 1}
            assert cells == {c for c in prog.groups[g] if prog.domains[c] >> v & 1}



def test_refuses_a_model_whose_stack_could_outgrow_memory(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    model = build_model(latin_square(120), filtering="none")
    ListcolorBackend().check(model)  # its undo trail: 14400 * 120 entries, about 0.17 GB
    monkeypatch.setattr(listcolor, "_MAX_STACK_BYTES", 100_000_000)
    with pytest.raises(UnsupportedError, match="search stack"):
        ListcolorBackend().solve(model)


# ---------------------------------------------------------------- every relation kind
# Random small boards with relations of each kind (and some givens), drawn mostly
# from a hidden solution so that many are satisfiable; listcolor's count in every
# search mode, with and without the Model's list filtering, must match the
# brute-force oracle, and every solution must verify.

BINARY_KINDS = ("consecutive", "nonconsecutive", "ratio")


def random_pairs(rng: random.Random, n: int, k: int) -> list[tuple[int, int]]:
    """Up to ``k`` distinct orthogonally adjacent cell pairs of an n x n grid."""
    pairs = set()
    for _ in range(k):
        r, c = rng.randrange(n), rng.randrange(n)
        if rng.random() < 0.5 and c + 1 < n:
            pairs.add((r * n + c, r * n + c + 1))
        elif r + 1 < n:
            pairs.add((r * n + c, (r + 1) * n + c))
    return sorted(pairs)


def relation_board(rng: random.Random, n: int, kinds: tuple[str, ...], sudoku4: bool = False,
                   givens: tuple[int, int] = (1, 5)) -> Board:
    """A random board with relations of ``kinds`` (and ``cage``), ``givens[0]`` to
    ``givens[1] - 1`` givens."""
    from futocp.families import sudoku
    from futocp.relations import Relation, get_kind

    base = sudoku((2, 2)) if sudoku4 else latin_square(n)
    grid = hidden_sudoku4(rng) if sudoku4 else hidden_latin(n, rng)
    solution = [v for row in grid for v in row]
    relations = []
    binary = [k for k in kinds if k != "cage"]
    while binary and not relations:
        for a, b in random_pairs(rng, n, rng.randrange(n * (n - 2), n * (n - 1))):
            pool = [Relation(k, cells) for k in binary for cells in ((a, b), (b, a))
                    if cells == (a, b) or not get_kind(k).symmetric]
            true = [r for r in pool if r.holds([solution[c] for c in r.cells])]
            if true:
                if rng.random() < 0.8:
                    relations.append(rng.choice(true))
            elif rng.random() < 0.08:  # now and then one the hidden solution breaks
                relations.append(rng.choice(pool))
    if "cage" in kinds:
        relations += random_cages(grid, rng)
    clues = [(c, solution[c]) for c in rng.sample(range(n * n), rng.randrange(*givens))]
    if rng.random() < 0.15:  # now and then a wrong given: often unsat
        c = rng.randrange(n * n)
        clues = [(x, v) for x, v in clues if x != c] + [(c, rng.randint(1, n))]
    return Board(n * n, base.asterisms, base.labels, clues=clues, relations=relations,
                 shape=(n, n), kind=base.kind)


def check_count(board: Board, want: int) -> None:
    """Every mode and filtering enumerates ``want`` verified solutions."""
    for filtering in ("lists", "none"):
        model = build_model(board, filtering=filtering)
        for mode in MODES:
            r = ListcolorBackend().solve(model, limit=None, lookahead=mode)
            assert r.n_solutions == want, (filtering, mode, board)
            assert r.exhausted
            assert r.status is (Status.SAT if want else Status.UNSAT)
            check_all(board, r)
    one = ListcolorBackend().solve(build_model(board, filtering="none"), limit=1,
                                   lookahead="always", hidden_singles=False, branching="dual")
    assert one.status is (Status.SAT if want else Status.UNSAT)
    check_all(board, one)


KIND_SETS = {
    "consecutive": ("consecutive",),
    "nonconsecutive": ("nonconsecutive",),
    "ratio": ("ratio",),
    "cage": ("cage",),
    "mix": ("consecutive", "nonconsecutive", "ratio", "cage"),
    "mix-less": ("less", "consecutive", "ratio", "cage"),
}


@pytest.mark.parametrize("kinds", KIND_SETS, ids=str)
@pytest.mark.parametrize("seed", range(5))
def test_relations_4x4_match_brute_force(kinds: str, seed: int) -> None:
    rng = random.Random(f"{kinds}-{seed}")
    for _ in range(3):
        board = relation_board(rng, 4, KIND_SETS[kinds])
        assert board.relations
        check_count(board, brute_force_count(board))


@pytest.mark.parametrize("kinds", KIND_SETS, ids=str)
@pytest.mark.parametrize("seed", range(3))
def test_relations_5x5_match_brute_force(kinds: str, seed: int) -> None:
    rng = random.Random(f"5x5-{kinds}-{seed}")
    board = relation_board(rng, 5, KIND_SETS[kinds], givens=(5, 8))
    check_count(board, brute_force_count(board))


@pytest.mark.parametrize("seed", range(8))
def test_killer_sudoku_4x4_matches_brute_force(seed: int) -> None:
    rng = random.Random(f"killer-{seed}")
    board = relation_board(rng, 4, ("cage",), sudoku4=True)
    assert board.relations_of("cage")
    want = brute_force_count(board)
    check_count(board, want)


def test_relations_counts_are_not_trivial() -> None:
    """The random boards above include both unsat and several-solution cases."""
    seen = set()
    for kinds in KIND_SETS:
        rng = random.Random(f"{kinds}-0")
        for _ in range(3):
            want = brute_force_count(relation_board(rng, 4, KIND_SETS[kinds]))
            seen.add(min(want, 2))
    assert {0, 2} <= seen


def test_cage_with_unreachable_sum_is_unsat() -> None:
    from futocp.relations import Relation

    base = latin_square(4)
    board = Board(16, base.asterisms, base.labels, relations=[Relation("cage", (0, 1), (("sum", 8),))],
                  shape=(4, 4))
    for filtering in ("lists", "none"):
        r = ListcolorBackend().solve(build_model(board, filtering=filtering), limit=None)
        assert r.status is Status.UNSAT and r.exhausted and r.solutions == []
        assert "reason" in r.stats  # a clue conflict the Model found
    # reachable alone, not together: both halves of row 0 need {1, 2}; only the search sees it
    board = Board(16, base.asterisms, base.labels, shape=(4, 4),
                  relations=[Relation("cage", (0, 1), (("sum", 3),)),
                             Relation("cage", (2, 3), (("sum", 3),))])
    for filtering in ("lists", "none"):
        model = build_model(board, filtering=filtering)
        assert model.conflict is None
        for mode in MODES:
            r = ListcolorBackend().solve(model, limit=None, lookahead=mode)
            assert r.status is Status.UNSAT and r.exhausted
    assert brute_force_count(board) == 0


def test_cage_propagation_alone_solves() -> None:
    """Cages with a single label set and their hidden labels fix a 4x4 Latin row
    without search."""
    from futocp.relations import Relation

    base = latin_square(4)
    board = Board(16, base.asterisms, base.labels, shape=(4, 4), clues=[(0, 1)],
                  relations=[Relation("cage", (0, 1), (("sum", 3),)),
                             Relation("cage", (2, 3), (("sum", 7),))])
    prog = ListcolorBackend().compile(build_model(board, filtering="none"))
    from futocp.backends.listcolor import make_propagator, settle

    propagate, _ = make_propagator(prog)
    doms = list(prog.domains)
    dual = prog.dual_table(doms)
    assert settle(prog, propagate, doms, dual)
    inside = {c: i for i, c in enumerate(prog.cells)}
    assert [doms[inside[c]] for c in (0, 1)] == [0b0001, 0b0010]
    assert [doms[inside[c]] for c in (2, 3)] == [0b1100, 0b1100]


def test_compile_relations_structure() -> None:
    from futocp.relations import Relation

    base = latin_square(4)
    board = Board(16, base.asterisms, base.labels, shape=(4, 4),
                  relations=[Relation("less", (4, 5)), Relation("consecutive", (0, 1)),
                             Relation("ratio", (1, 5)),
                             Relation("cage", (10, 11, 15), (("sum", 6),))])
    model = build_model(board, filtering="none")
    prog = ListcolorBackend().compile(model)
    inside = {c: i for i, c in enumerate(prog.cells)}
    assert prog.succ[inside[4]] == (inside[5],)  # less keeps its bounds encoding
    arcs = {(c, o): sup for c, a in enumerate(prog.arcs) for o, sup in a}
    fwd, bwd = model.support(Relation("consecutive", (0, 1)))
    assert arcs[inside[0], inside[1]] == fwd and arcs[inside[1], inside[0]] == bwd
    assert (inside[1], inside[5]) in arcs and (inside[5], inside[1]) in arcs
    assert len(arcs) == 4  # two binary relations but less, both directions
    assert prog.distinct == ((inside[10], inside[11], inside[15]),)
    assert prog.cages == (((inside[10], inside[11], inside[15]),
                           tuple(model.combinations(model.cages[0]))),)
    assert prog.cells[0] in (1, 5)  # two relations each: first in the tie-break order


def test_capabilities_cover_every_relation_kind() -> None:
    from futocp.relations import RELATIONS

    supported = ListcolorBackend.supported()
    assert {"binary", "alldifferent", "cage", "less"} <= supported
    assert set(RELATIONS) <= supported


def test_custom_binary_kind_uses_the_generic_path() -> None:
    """A kind registered here only ("labels differ by at least 2") is solved through
    its support, with no listcolor code knowing it."""
    from futocp.relations import Relation, register, unregister

    name = "test_listcolor_far"
    register(apart_kind(name, gap=2))
    try:
        assert name in ListcolorBackend.supported()
        rng = random.Random(7)
        counts = []
        for _ in range(6):
            grid = hidden_latin(4, rng)
            solution = [v for row in grid for v in row]
            pairs = random_pairs(rng, 4, 6)
            rels = [Relation(name, p) for p in pairs
                    if abs(solution[p[0]] - solution[p[1]]) >= 2 or rng.random() < 0.2]
            base = latin_square(4)
            clues = [(c, solution[c]) for c in rng.sample(range(16), rng.randrange(0, 3))]
            board = Board(16, base.asterisms, base.labels, clues=clues, relations=rels,
                          shape=(4, 4))
            if not rels:
                continue
            prog = ListcolorBackend().compile(build_model(board))
            assert any(prog.arcs)
            want = brute_force_count(board)
            counts.append(want)
            check_count(board, want)
        assert counts and any(counts)
    finally:
        unregister(name)


# ---------------------------------------------------------------- seed and compile

def test_seed_changes_the_first_solution() -> None:
    """Fails if the seed is ignored: an empty 5x5 Latin square has 161280
    solutions, and the seeds' first ones are not all the same (while each seed,
    and no seed, is reproducible)."""
    model = build_model(latin_square(5))
    firsts = [ListcolorBackend().solve(model, seed=s).solutions[0] for s in range(8)]
    assert len(set(firsts)) > 1
    assert ListcolorBackend().solve(model, seed=3).solutions[0] == firsts[3]
    unseeded = {ListcolorBackend().solve(model).solutions[0] for _ in range(3)}
    assert len(unseeded) == 1
    for lookahead in ("never", "always"):  # the value order too, not only the cell order
        seen = {ListcolorBackend().solve(model, seed=s, lookahead=lookahead).solutions[0]
                for s in range(8)}
        assert len(seen) > 1, lookahead


def test_solve_runs_the_compiled_program(monkeypatch: pytest.MonkeyPatch) -> None:
    """solve() searches what compile() returns: a compile that narrows cell 0 to
    the label 3 makes every solution start with 3 (144 of the 576)."""
    from dataclasses import replace

    calls = []
    compile_ = ListcolorBackend.compile

    def narrowed(self, model, **options):
        prog = compile_(self, model, **options)
        calls.append((options.get("seed"), prog))
        inside = prog.cells.index(0)
        doms = list(prog.domains)
        doms[inside] &= 1 << 2
        return replace(prog, domains=tuple(doms))

    board = latin_square(4)
    model = build_model(board)
    monkeypatch.setattr(ListcolorBackend, "compile", narrowed)
    r = ListcolorBackend().solve(model, limit=None, seed=5, lookahead="always")
    assert r.n_solutions == 144 and all(sol[0] == 3 for sol in r.solutions)
    check_all(board, r)
    (seed, prog), = calls
    assert seed == 5 and prog.seed == 5
    monkeypatch.undo()
    assert ListcolorBackend().compile(model, seed=5) == prog  # the same program, unnarrowed
    assert ListcolorBackend().compile(model) != prog  # the seed is part of it


# ---------------------------------------------------------------- parallel search (workers)

def no_workers_left() -> bool:
    import multiprocessing

    return not multiprocessing.active_children()


def check_parallel(board: Board, mode: str, want: int | None = None) -> bool:
    """workers=2 enumerates what workers=1 does (``want`` solutions when given);
    False when no search ran (the Model decided the board)."""
    model = build_model(board)
    seq = ListcolorBackend().solve(model, limit=None, lookahead=mode)
    par = ListcolorBackend().solve(model, limit=None, lookahead=mode, workers=2)
    assert par.status is seq.status and par.exhausted and seq.exhausted
    assert par.n_solutions == seq.n_solutions
    if want is not None:
        assert seq.n_solutions == want
    assert sorted(par.solutions, key=repr) == sorted(seq.solutions, key=repr)
    check_all(board, par)
    st = par.stats
    if "reason" in st:  # a clue conflict, or the givens and the filtering decide it all
        return False
    assert st["workers"] == 2 and len(st["worker_nodes"]) == 2 and st["split_depth"] >= 0
    assert st["nodes"] == st["split_nodes"] + sum(st["worker_nodes"])
    if mode == "never":  # the same tree: the same order, and the counters add up
        assert par.solutions == seq.solutions
        for key in ("nodes", "backtracks", "removed_values"):
            assert st[key] == seq.stats[key], key
    return True


@pytest.mark.parametrize("mode", MODES)
def test_parallel_enumeration_equals_sequential(mode: str) -> None:
    assert check_parallel(latin_square(4), mode, 576)
    assert check_parallel(multiset_board(), mode, 90)
    assert check_parallel(string_square(), mode, 12)
    assert check_parallel(read(INSTANCES / "futoshiki" / "5x5-several.json"), mode)
    assert no_workers_left()


@pytest.mark.parametrize("kinds", ("consecutive", "ratio", "cage", "mix", "mix-less"))
def test_parallel_enumeration_with_relations(kinds: str) -> None:
    rng = random.Random(f"parallel-{kinds}")
    searched = 0
    for _ in range(12):
        board = relation_board(rng, 4, KIND_SETS[kinds], givens=(0, 2))
        want = brute_force_count(board)
        searched += all([check_parallel(board, mode, want) for mode in MODES])
        if searched == 3:
            break
    assert searched == 3  # boards on which the search ran (not decided by the Model)
    assert no_workers_left()


def test_parallel_splits_a_large_tree() -> None:
    board = latin_square(5, [[1, 2, 3, 4, 5]] + [[0] * 5] * 4)
    # the Python engine: the compiled core may solve every subproblem before the
    # second worker has started
    r = ListcolorBackend().solve(build_model(board), limit=None, workers=2, lookahead="never",
                                 core="python")
    assert r.n_solutions == 161280 // 120 and r.exhausted
    assert r.stats["subproblems"] >= 32 and r.stats["split_depth"] >= 1
    assert all(n > 0 for n in r.stats["worker_nodes"])  # both workers had work
    assert no_workers_left()


@pytest.mark.parametrize("mode", MODES)
def test_parallel_one_solution_verifies(mode: str) -> None:
    for name in ("9x9-extreme-01.json", "9x9-recursive-01.json", "5x5-several.json"):
        board = read(INSTANCES / "futoshiki" / name)
        r = solve(board, workers=2, lookahead=mode, time_limit=60)
        assert r.status is Status.SAT and r.n_solutions == 1
        check_all(board, r)
    board = latin_square(6)
    r = solve(board, workers=2, lookahead=mode, limit=5)
    assert r.n_solutions == 5 and not r.exhausted
    check_all(board, r)
    assert no_workers_left()


@pytest.mark.parametrize("mode", MODES)
def test_parallel_unsat_stays_unsat(mode: str) -> None:
    from futocp.relations import Relation

    board = read(INSTANCES / "futoshiki" / "7x7-unsat-search.json")
    for limit in (1, None):
        r = solve(board, workers=2, lookahead=mode, limit=limit, time_limit=60)
        assert r.status is Status.UNSAT and r.exhausted and r.solutions == []
    base = latin_square(4)
    cages = Board(16, base.asterisms, base.labels, shape=(4, 4),
                  relations=[Relation("cage", (0, 1), (("sum", 3),)),
                             Relation("cage", (2, 3), (("sum", 3),))])
    r = solve(cages, workers=2, lookahead=mode, limit=None)
    assert r.status is Status.UNSAT and r.exhausted
    assert no_workers_left()


def test_parallel_portfolio_for_one_solution() -> None:
    """limit=1 with the default portfolio: its two lookahead searches run side by
    side (one per process), each weight's tree split when there are more workers."""
    board = read(INSTANCES / "qwh" / "qwh-o30-h374-01.dzn")
    model = build_model(board)
    two = ListcolorBackend().solve(model, workers=2, time_limit=120)
    assert two.status is Status.SAT and two.n_solutions == 1
    check_all(board, two)
    assert two.stats["portfolio"] == 2 and two.stats["subproblems"] == 2
    assert two.stats["probes"] > 0 and two.stats["split_depth"] == 0
    board = read(INSTANCES / "futoshiki" / "9x9-recursive-01.json")  # needs the lookahead
    three = solve(board, workers=3, time_limit=60)
    assert three.status is Status.SAT
    check_all(board, three)
    assert three.stats["portfolio"] == 2 and three.stats["split_depth"] >= 1
    assert len(three.stats["worker_nodes"]) == 3
    assert no_workers_left()


@pytest.mark.parametrize("workers", (2, 3))
def test_parallel_portfolio_unsat(workers: int) -> None:
    """A portfolio search that proves there is no solution answers unsat for all."""
    from futocp.relations import Relation

    base = latin_square(6)
    board = Board(36, base.asterisms, base.labels, shape=(6, 6),
                  relations=[Relation("cage", (0, 1), (("sum", 3),)),
                             Relation("cage", (2, 3), (("sum", 3),))])
    r = solve(board, workers=workers, lookahead="always", time_limit=60)
    assert r.status is Status.UNSAT and r.exhausted and r.solutions == []
    assert r.stats["portfolio"] == 2
    assert no_workers_left()


def test_parallel_time_limit() -> None:
    import time

    # a balanced order-50 QWH: no backend here solves it in a minute (the
    # compiled core solves the order-30 ones in well under the limit)
    board = read(INSTANCES / "qwh" / "lsencode" / "qwh.order50.holes750.bal.pls")
    for mode in ("never", "auto"):
        t0 = time.perf_counter()
        r = solve(board, workers=2, lookahead=mode, time_limit=0.3)
        assert time.perf_counter() - t0 < within(5)
        assert r.status is Status.UNKNOWN and not r.exhausted and r.solutions == []
    t0 = time.perf_counter()
    # 812,851,200 solutions, over a million a second: the workers make and send
    # hundreds of thousands in 0.1 s (parallel._DELIVER_S, not the grace, bounds that)
    r = solve(latin_square(6), workers=2, limit=None, time_limit=0.1)
    assert time.perf_counter() - t0 < within(5)
    assert r.status is Status.SAT and not r.exhausted
    # verify a sample
    assert len(set(r.solutions)) == len(r.solutions)
    for sol in random.Random(0).sample(r.solutions, min(2000, len(r.solutions))):
        assert verify(latin_square(6), sol) == [], sol
    assert no_workers_left()


def test_workers_option_is_checked() -> None:
    from futocp.errors import UsageError

    with pytest.raises(UsageError):
        solve(latin_square(3), workers=0)
    r = solve(latin_square(3), limit=None)
    assert "workers" not in r.stats  # sequential by default


@pytest.mark.parametrize("at_root", [True, False])
def test_locked_candidates_claim_a_box(at_root: bool) -> None:
    """Row 0's cells 3-8 given 2..7: its 1 lies in box 0, so the rest of box 0 loses 1
    (claiming), at the root (settle's scan) as in a propagation (a place leaves the
    label's list); without locked candidates it stays."""
    from futocp.backends.listcolor import make_propagator, settle
    from futocp.families import sudoku

    givens = [(3 + i, 2 + i) for i in range(6)]
    rest_of_box = [9, 10, 11, 18, 19, 20]
    for locked in (True, False):
        board = sudoku((3, 3))
        if at_root:
            board = Board(81, board.asterisms, board.labels, shape=(9, 9), clues=givens)
        prog = ListcolorBackend().compile(build_model(board, filtering="none"))
        inside = {c: i for i, c in enumerate(prog.cells)}
        propagate, _ = make_propagator(prog, locked_candidates=locked)
        doms = list(prog.domains)
        dual = prog.dual_table(doms)
        assert settle(prog, propagate, doms, dual, locked)
        if not at_root:
            assert propagate(doms, dual, [(inside[c], 1 << (v - 1)) for c, v in givens])
        ones = [doms[inside[c]] & 1 for c in rest_of_box]
        assert ones == ([0] * 6 if locked else [1] * 6)
        assert all(doms[inside[c]] & 1 for c in (0, 1, 2))
