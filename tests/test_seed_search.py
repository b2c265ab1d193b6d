"""The seeds' complete searches: bt, fc, mac, colorfutoshiki (futocp.backends.seedsearch).

Counts are checked against the independent brute force, every solution with
verify(); the seeds' invariants (spec seeds.md §1.3, §1.5, §6.1, §6.2) on
random satisfiable Futoshiki; the parallel search (workers=2) against the
sequential one, counters included, and for leaving no process behind.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from dataclasses import replace

import pytest

from futocp.backends import REGISTRY, get_backend, parallel
from futocp.backends.base import Deadline
from futocp.backends.seedsearch import (
    SearchProgram,
    compile_search,
    restrict,
    run_parallel,
    run_search,
    split_domains,
    split_search,
)
from futocp.board import Board
from futocp.errors import BoardError, SolverError, UsageError
from futocp.families import futoshiki, latin_square, sudoku
from futocp.generate import futoshiki_puzzle, qwh
from futocp.model import build_model
from futocp.relations import Relation
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .relation_boards import killer_board, relation_board
from .strategies import multiset_board, string_square, within

NAMES = ("bt", "fc", "mac", "colorfutoshiki")
CONFIGS = [("bt", {}), ("bt", {"order": "mrv"}), ("fc", {}), ("mac", {}), ("mac", {"ac3": "pre"}),
           ("colorfutoshiki", {}), ("colorfutoshiki", {"lists": "fixpoint"})]
CONFIG_IDS = [name + "".join(f"-{v}" for v in opts.values()) for name, opts in CONFIGS]
COUNTERS = ("explored_nodes", "removed_values", "assignments", "backtracks")


def solve(name: str, board: Board, filtering: str = "lists", **kwargs):
    return get_backend(name).solve(build_model(board, filtering), **kwargs)


def check_all(board: Board, result) -> None:
    """Every solution verifies and none repeats."""
    for sol in result.solutions:
        assert verify(board, sol) == [], sol
    assert len(set(result.solutions)) == len(result.solutions)


def random_futoshiki(rng: random.Random, n: int) -> Board | None:
    """Random givens and signs (may be unsatisfiable); None for a cycle of signs."""
    givens = [[0] * n for _ in range(n)]
    for _ in range(rng.randrange(0, 4)):
        givens[rng.randrange(n)][rng.randrange(n)] = rng.randrange(1, n + 1)
    less = set()
    for _ in range(rng.randrange(0, 2 * n)):
        r, c = rng.randrange(n), rng.randrange(n)
        r2, c2 = (r, c + 1) if rng.random() < 0.5 else (r + 1, c)
        if r2 < n and c2 < n and ((r2, c2), (r, c)) not in less:
            less.add(((r, c), (r2, c2)) if rng.random() < 0.5 else ((r2, c2), (r, c)))
    try:
        return futoshiki(n, givens, sorted(less))
    except BoardError:
        return None


def pigeonhole(n: int) -> Board:
    """Unsatisfiable, and neither the lists nor AC-3 see it: rows 0..n-3 of
    columns 0-2 hold the labels 3..n in a Latin pattern, so the three cells of
    row n-2 in those columns can only take the two labels 1 and 2. The rows
    above have many completions, all refuted one by one."""
    k = n - 2  # rows 0..k-1 give the labels 3..n in columns 0..2
    givens = [[0] * n for _ in range(n)]
    for r in range(k):
        for c in range(3):
            givens[r][c] = 3 + (r + c) % k
    return latin_square(n, givens)


def small_boards() -> list[tuple[str, Board]]:
    out = [
        ("futoshiki4", futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                                 less=[((0, 0), (0, 1)), ((1, 0), (2, 0)), ((3, 3), (3, 2))])),
        ("latin4-givens", latin_square(4, [[1, 0, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0], [0, 4, 0, 0]])),
        ("latin3", latin_square(3)),
        ("sudoku4", sudoku((2, 2), [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 2]])),
        ("consecutive4", replace(latin_square(4, [[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0],
                                                  [0, 0, 0, 0]]),
                                 relations=(Relation("consecutive", (0, 1)),
                                            Relation("consecutive", (5, 9)),
                                            Relation("nonconsecutive", (10, 11)),
                                            Relation("less", (15, 14))))),
        ("multiset", multiset_board()),
        ("strings", string_square()),
    ]
    for seed in range(3):
        out.append((f"puzzle5-{seed}", futoshiki_puzzle(5, inequalities=6, givens=3, seed=seed)))
        out.append((f"relations4-{seed}",
                    relation_board(4, ("less", "consecutive", "nonconsecutive", "ratio"), seed,
                                   count=5, givens=2, truthful=seed != 2)))
        out.append((f"killer-{seed}", killer_board(seed, givens=1)))
    return out


SMALL = small_boards()


# ------------------------------------------------------------------ registry and options
@pytest.mark.parametrize("name", NAMES)
def test_registered_complete_with_counters(name: str) -> None:
    cls = REGISTRY[name]
    assert cls.complete and cls.available() is True and cls.count_rank is None
    assert {"enumerate", "time_limit", "unsat", "less", "binary"} <= cls.capabilities
    assert "seed" not in cls.capabilities  # the searches are deterministic
    assert set(COUNTERS) <= set(cls.counters)
    assert ("revisions" in cls.counters) == (name == "mac")
    assert "workers" in {o.name for o in cls.options}


def test_options_are_checked() -> None:
    board = latin_square(3)
    with pytest.raises(UsageError, match="order"):
        solve("fc", board, order="mrv")
    with pytest.raises(UsageError, match="static, mrv"):
        solve("bt", board, order="random")
    with pytest.raises(UsageError, match="workers"):
        solve("bt", board, workers=0)
    with pytest.raises(UsageError, match="pre"):
        solve("mac", board, ac3="post")
    with pytest.raises(UsageError, match="fixpoint"):
        solve("colorfutoshiki", board, lists="full")
    # a CLI string is parsed
    assert solve("bt", board, workers="1").status is Status.SAT
    # compile_search checks its options against the backends' declarations
    model = build_model(board)
    for option, bad in (("order", "random"), ("ac3", "post"), ("lists", "full")):
        with pytest.raises(UsageError, match=f"option {option}='{bad}': choose one of"):
            compile_search(model, "bt", **{option: bad})


def test_compile_is_what_solve_runs() -> None:
    board = futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                      less=[((1, 1), (1, 2))])
    model = build_model(board)
    bt = get_backend("bt").compile(model)
    assert isinstance(bt, SearchProgram) and bt.search == "check"
    assert set(bt.lists) == {0b1111} and bt.root_removed == 0  # no lists: every value everywhere
    cf = get_backend("colorfutoshiki").compile(model)
    # the given 2 at (1,2): its list, its 6 peers lose 2, its left neighbour (< 2) keeps 1 only
    assert cf.lists[6] == 0b0010 and cf.lists[5] == 0b0001
    assert cf.root_removed == 3 + 6 + 2
    fixpoint = get_backend("colorfutoshiki").compile(model, lists="fixpoint")
    assert all(f & ~p == 0 for f, p in zip(fixpoint.lists, cf.lists, strict=True))
    assert get_backend("fc").compile(model).search == "forward"
    mac = get_backend("mac").compile(model)
    assert mac.search == "mac" and mac.arcs and mac.root_revisions > 0
    assert get_backend("mac").compile(model, ac3="pre").search == "check"
    # the same lists, whatever filtering the Model had
    assert get_backend("colorfutoshiki").compile(build_model(board, "none")).lists == cf.lists


# ------------------------------------------------------------------ answers
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("label, board", SMALL, ids=[label for label, _ in SMALL])
def test_counts_match_brute_force(config, label: str, board: Board) -> None:
    name, opts = config
    want = brute_force_count(board)
    result = solve(name, board, limit=None, time_limit=60, **opts)
    assert result.n_solutions == want and result.exhausted
    assert result.status is (Status.SAT if want else Status.UNSAT)
    check_all(board, result)
    for key in COUNTERS:
        assert result.stats[key] >= 0
    limited = solve(name, board, limit=2, time_limit=60, **opts)
    assert limited.n_solutions == min(2, want)
    assert limited.exhausted == (want < 2)
    check_all(board, limited)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_random_futoshiki_match_brute_force(config) -> None:
    name, opts = config
    rng = random.Random(9)
    for _ in range(10):
        board = random_futoshiki(rng, 4)
        if board is None:
            continue
        want = brute_force_count(board)
        for filtering in ("lists", "none"):
            result = solve(name, board, filtering, limit=None, time_limit=60, **opts)
            assert result.n_solutions == want, (board, filtering)
            check_all(board, result)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_unsat(config) -> None:
    name, opts = config
    boards = [
        latin_square(2, [[1, 0], [0, 2]]),
        futoshiki(3, less=[((0, 0), (0, 1)), ((0, 1), (0, 2)), ((1, 0), (0, 0)),
                           ((2, 2), (1, 2)), ((1, 2), (0, 2))]),
        pigeonhole(5),  # only the search finds out
    ]
    for board in boards:
        assert brute_force_count(board) == 0
        for filtering in ("lists", "none"):
            result = solve(name, board, filtering, time_limit=60, **opts)
            assert result.status is Status.UNSAT and result.exhausted and not result.solutions


def test_pigeonhole_needs_search() -> None:
    """The unsat board of the time-limit tests is not refuted before the search."""
    model = build_model(pigeonhole(8))
    assert model.conflict is None
    for name in NAMES:
        assert not get_backend(name).compile(model).failed


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_time_limit_gives_unknown(config) -> None:
    name, opts = config
    # unsat; rows 0-5 have millions of completions to refute in static order (mrv goes
    # straight to the pigeonhole: a quasigroup with holes stalls it instead)
    board = qwh(20, holes=170, seed=1) if opts.get("order") == "mrv" else pigeonhole(8)
    t0 = time.perf_counter()
    result = solve(name, board, "none", time_limit=0.2, **opts)
    assert time.perf_counter() - t0 < within(3)
    assert result.status is Status.UNKNOWN and not result.exhausted
    assert result.stats["explored_nodes"] > 0


@pytest.mark.parametrize("name", NAMES)
def test_time_limit_while_enumerating(name: str) -> None:
    result = solve(name, latin_square(7), limit=None, time_limit=0.2)
    assert result.status is Status.SAT and not result.exhausted
    check_all(latin_square(7), result)


@pytest.mark.parametrize("name", NAMES)
def test_deep_board_no_recursion_limit(name: str) -> None:
    """n = 40: 1600 levels, an explicit stack."""
    board = qwh(40, holes=40, seed=3)
    result = solve(name, board, "none", time_limit=120)
    assert result.status is Status.SAT
    check_all(board, result)


# ------------------------------------------------------------------ the seeds' invariants
def seed000_instances() -> list[Board]:
    """Satisfiable random Futoshiki with seed 000's parameters (n, K, G)."""
    out = []
    for n, k, g in ((5, 5, 1), (5, 10, 5), (5, 3, 12), (6, 6, 10), (6, 12, 6), (6, 6, 20),
                    (6, 6, 30), (7, 7, 30)):
        for seed in range(3):
            out.append(futoshiki_puzzle(n, inequalities=k, givens=g, seed=seed))
    return out


SEED000 = seed000_instances()


@pytest.mark.parametrize("board", SEED000, ids=range(len(SEED000)))
def test_seed_invariants(board: Board) -> None:
    n = board.shape[0]
    model = build_model(board)
    run = {name: get_backend(name).solve(model, time_limit=60) for name in NAMES}
    fixpoint = get_backend("colorfutoshiki").solve(model, time_limit=60, lists="fixpoint")
    for result in (*run.values(), fixpoint):
        assert result.status is Status.SAT
        check_all(board, result)
    bt, cf, fc, mac = run["bt"], run["colorfutoshiki"], run["fc"], run["mac"]
    # static order, ascending values: every one finds the same (row-major least) solution
    assert cf.solutions == fc.solutions == mac.solutions == bt.solutions
    # 1. BT-EN >= n^2 (n+1) / 2, equal iff no backtracking
    floor = n * n * (n + 1) // 2
    en = bt.stats["explored_nodes"]
    assert en >= floor
    assert (en == floor) == (bt.stats["backtracks"] == 0)
    # 2.-3. n^2 <= CF-EN <= BT-EN; CF makes exactly BT's assignments (spec 1.3)
    assert n * n <= cf.stats["explored_nodes"] <= en
    assert cf.stats["assignments"] == bt.stats["assignments"]
    assert cf.stats["backtracks"] == bt.stats["backtracks"]
    assert n * n <= fixpoint.stats["explored_nodes"] <= cf.stats["explored_nodes"]
    # 4.-5. CF-RN <= n^2 (n-1); single pass <= fixpoint; BT removes nothing
    assert cf.stats["removed_values"] <= n * n * (n - 1)
    assert cf.stats["removed_values"] <= fixpoint.stats["removed_values"]
    assert bt.stats["removed_values"] == 0
    # seed 001: FC's moves <= BT's (and MAC's <= FC's)
    assert mac.stats["assignments"] <= fc.stats["assignments"] <= bt.stats["assignments"]
    assert mac.stats["revisions"] > 0


def test_bt_floor_is_exact_without_backtracking() -> None:
    """A full board: every cell tests 1..its value; CF tests one value per cell."""
    square = [[(r + c) % 6 + 1 for c in range(6)] for r in range(6)]
    board = latin_square(6, square)
    bt = solve("bt", board)
    assert bt.stats["explored_nodes"] == 6 * 6 * 7 // 2 and bt.stats["backtracks"] == 0
    cf = solve("colorfutoshiki", board)
    assert cf.stats["explored_nodes"] == 36 and cf.stats["removed_values"] == 36 * 5
    # a board whose first row needs a backtrack goes above the floor
    tricky = futoshiki(3, less=[((0, 1), (0, 0))])
    r = solve("bt", tricky)
    assert r.stats["backtracks"] > 0 and r.stats["explored_nodes"] > 9 * 4 // 2


@pytest.mark.parametrize("n", [5, 6, 7, 9])
def test_one_given_no_sign_removes_3_n_minus_1(n: int) -> None:
    checked = 0
    for seed in range(40):
        board = futoshiki_puzzle(n, inequalities=n, givens=1, seed=seed)
        (given, _), = board.clues
        if any(given in rel.cells for rel in board.relations):
            continue
        prog = compile_search(build_model(board), "colorfutoshiki")
        assert prog.root_removed == 3 * (n - 1)
        checked += 1
        if checked == 3:
            break
    assert checked
    # a sign at the given trims its neighbour too: 3 < w drops 1 and 2 (3 is gone already)
    board = futoshiki(n, [[3] + [0] * (n - 1)] + [[0] * n] * (n - 1),
                      less=[((0, 0), (0, 1))])
    assert compile_search(build_model(board), "colorfutoshiki").root_removed == 3 * (n - 1) + 2


def test_bt_floor_holds_on_general_boards() -> None:
    """Beyond grids: BT explores at least sum(index + 1) over its solution."""
    for label, board in SMALL:
        model = build_model(board)
        r = get_backend("bt").solve(model)
        if r.status is not Status.SAT:
            continue
        floor = sum(model.index_of(x) + 1 for x in r.solutions[0])
        assert r.stats["explored_nodes"] >= floor, label
        assert (r.stats["explored_nodes"] == floor) == (r.stats["backtracks"] == 0), label


def test_mrv_explores_no_more_on_hard_instance() -> None:
    board = futoshiki_puzzle(6, inequalities=6, givens=6, seed=0)
    static = solve("bt", board, time_limit=60)
    mrv = solve("bt", board, time_limit=60, order="mrv")
    assert static.status is mrv.status is Status.SAT
    check_all(board, mrv)
    assert mrv.stats["explored_nodes"] < static.stats["explored_nodes"]


# ------------------------------------------------------------------ parallel search
PARALLEL_BOARDS = [SMALL[0], SMALL[3], SMALL[4], SMALL[7], SMALL[9]]


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_parallel_enumeration_equals_sequential(config) -> None:
    name, opts = config
    for label, board in PARALLEL_BOARDS:
        model = build_model(board)
        seq = get_backend(name).solve(model, limit=None, time_limit=60, **opts)
        par = get_backend(name).solve(model, limit=None, time_limit=60, workers=2, **opts)
        assert par.solutions == seq.solutions, label  # the same, in the same order
        assert par.exhausted and par.status is seq.status
        for key in (*COUNTERS, "revisions"):  # split + workers = sequential, exactly
            assert par.stats.get(key) == seq.stats.get(key), (label, key)
        assert par.stats["workers"] == 2 and len(par.stats["worker_nodes"]) == 2
        assert par.stats["split_depth"] >= 1
        assert (sum(par.stats["worker_nodes"]) + par.stats["split_nodes"]
                == par.stats["explored_nodes"])
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("name", NAMES)
def test_parallel_first_solution(name: str) -> None:
    for board in SEED000[:6] + [futoshiki_puzzle(7, inequalities=7, givens=8, seed=1)]:
        model = build_model(board)
        seq = get_backend(name).solve(model, time_limit=60)
        par = get_backend(name).solve(model, time_limit=60, workers=2)
        assert par.status is seq.status is Status.SAT
        assert par.n_solutions == 1 and par.exhausted is False
        check_all(board, par)
    two = get_backend(name).solve(build_model(latin_square(4)), limit=5, workers=2)
    assert two.n_solutions == 5 and not two.exhausted
    check_all(latin_square(4), two)
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("name", NAMES)
def test_parallel_unsat_and_time_limit(name: str) -> None:
    r = solve(name, pigeonhole(5), workers=2, time_limit=60)
    assert r.status is Status.UNSAT and r.exhausted
    t0 = time.perf_counter()
    r = solve(name, pigeonhole(8), workers=2, time_limit=0.3)
    assert time.perf_counter() - t0 < within(5)
    assert r.status is Status.UNKNOWN and not r.exhausted
    assert not multiprocessing.active_children()


def test_split_search_covers_the_tree() -> None:
    board = SMALL[0][1]
    prog = compile_search(build_model(board), "fc")
    subs, depth, counters, finished = split_search(prog, 8)
    assert finished and len(subs) >= 8 and all(len(s) == depth for s in subs)
    total = []
    for sub in subs:
        total.extend(run_search(prog, prefix=sub).leaves)
    assert total == run_search(prog).leaves


def test_run_parallel_raises_worker_errors_and_leaves_no_process() -> None:
    def boom(sub, limit, interrupted):
        if sub == 3:
            raise ValueError("bad subproblem")
        return [sub], True, {"nodes": 1}

    with pytest.raises(SolverError, match="bad subproblem"):
        run_parallel(list(range(6)), boom, 2, None, Deadline(30))
    assert not multiprocessing.active_children()
    ok = run_parallel(list(range(6)), lambda s, limit, i: ([s], True, {"nodes": 2}), 2, None,
                      Deadline(30))
    assert ok.solutions == list(range(6)) and ok.finished and sum(ok.worker_nodes) == 12
    assert ok.stats == {"nodes": 12}


def test_run_parallel_terminates_workers_that_ignore_the_stop(monkeypatch) -> None:
    monkeypatch.setattr(parallel, "_GRACE_S", 0.2)

    def stubborn(sub, limit, interrupted):
        time.sleep(60)  # never polls interrupted
        return [], True, {}

    t0 = time.perf_counter()
    out = run_parallel([0, 1, 2], stubborn, 2, None, Deadline(0.2))
    assert time.perf_counter() - t0 < within(5)
    assert not out.finished and out.solutions == []
    assert not multiprocessing.active_children()


def test_run_parallel_waits_for_stopped_workers_to_deliver(monkeypatch) -> None:
    # a worker whose search has stopped says so, and may take longer than the grace
    # to hand its solutions over (an enumeration stopped with millions of them);
    # one that never delivers is killed when its time to deliver is over
    monkeypatch.setattr(parallel, "_GRACE_S", 0.2)

    def slow_to_deliver(sub, limit, interrupted):
        while not interrupted():
            time.sleep(0.01)
        time.sleep(0.6)  # making and sending what it found
        return [sub], False, {"nodes": 1}

    t0 = time.perf_counter()
    out = run_parallel([0, 1, 2], slow_to_deliver, 2, None, Deadline(0.2))
    assert 0.7 < time.perf_counter() - t0 < within(5)
    assert sorted(out.solutions) == [0, 1] and not out.finished
    assert not multiprocessing.active_children()

    monkeypatch.setattr(parallel, "_DELIVER_S", 0.3)

    def never_delivers(sub, limit, interrupted):
        while not interrupted():
            time.sleep(0.01)
        time.sleep(60)
        return [sub], False, {}

    t0 = time.perf_counter()
    out = run_parallel([0, 1, 2], never_delivers, 2, None, Deadline(0.2))
    assert time.perf_counter() - t0 < within(5)
    assert out.solutions == [] and not out.finished
    assert not multiprocessing.active_children()


def test_split_domains_and_restrict_partition_the_domains() -> None:
    domains = [0b1, 0b110, 0b111, 0b11]
    subs = split_domains(domains, 5)
    assert len(subs) >= 5
    seen = set()
    for sub in subs:
        doms = restrict(domains, sub)
        assert all(d and d & ~o == 0 for d, o in zip(doms, domains, strict=True))
        cells = tuple(c for c, _ in sub)
        seen.add(tuple(doms[c] for c in cells))
    assert len(seen) == len(subs)  # pairwise different: together they partition
