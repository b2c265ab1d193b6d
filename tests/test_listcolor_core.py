"""The compiled core of listcolor against its pure-Python reference.

Both engines run the same algorithm: on the same model and options they must
give the same solutions in the same order and the same counters (nodes,
backtracks, max_depth, probes, failed_literals, dilemma_values,
removed_values). Also: ``core=python`` forces the reference, ``stats.core``
says which engine ran, what the core does not take falls back to Python
(saying why), and without the built extension ``core=compiled`` is refused
while ``auto`` runs the reference. Lists of 65 to 128 bits run on the wide
build (``_listcolor_core_wide``, the same source with 128-bit lists): it is
checked the same way on Latin rectangles and squares of 65 to 128 values.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from futocp import formats
from futocp.backends import listcolor
from futocp.backends.listcolor import ListcolorBackend, compile_program, core_fallback
from futocp.board import Board
from futocp.errors import UsageError
from futocp.families import latin_square, sudoku
from futocp.generate import random_latin_square
from futocp.model import Model, build_model
from futocp.relations import Relation
from futocp.verify import verify

from .relation_boards import KINDS, keen_board, killer_board, relation_board, towers_board
from .strategies import futoshiki_boards, multiset_boards

BUILT = listcolor.core_available()
needs_core = pytest.mark.skipif(
    not BUILT, reason="the compiled core is not built (pip install -e . with a C compiler)")
WIDE = BUILT and listcolor._core_wide is not None
needs_wide = pytest.mark.skipif(
    not WIDE, reason="the wide compiled core is not built (pip install -e . with GCC or Clang)")

OPTIONS = st.fixed_dictionaries({
    "lookahead": st.sampled_from(["auto", "always", "never"]),
    "weight": st.sampled_from(["portfolio", "binary", "removed"]),
    "branching": st.sampled_from(["cell", "dual"]),
    "hidden_singles": st.booleans(),
    "locked_candidates": st.booleans(),
})
LIMITS = st.sampled_from([1, 2, 8])  # enumerating a 5x5 square to the end is slow in Python


def both(board: Board, limit: int | None, model: Model | None = None, **options):
    """Solve with the reference and the core; assert they agree; the core's result.
    ``model``: the board's (built here when not given)."""
    backend = ListcolorBackend()
    model = build_model(board) if model is None else model
    ref = backend.solve(model, limit=limit, time_limit=60, core="python", **options)
    out = backend.solve(model, limit=limit, time_limit=60, core="compiled", **options)
    if ref.stats.get("decided") or model.conflict is not None:  # answered before any search
        assert out.stats.keys() == ref.stats.keys()
    else:
        assert ref.stats["core"] == "python"
        assert out.stats["core"] == "compiled", out.stats.get("core_fallback")
    assert out.status == ref.status
    assert out.exhausted == ref.exhausted
    assert out.solutions == ref.solutions  # the same solutions, in the same order
    for key in ListcolorBackend.counters:
        assert out.stats.get(key) == ref.stats.get(key), (key, out.stats, ref.stats)
    for sol in out.solutions:
        assert verify(board, sol) == []
    return out


def qwh(n: int, holes: int, seed: int) -> Board:
    """A Latin square of order ``n`` with ``holes`` random cells left empty."""
    rng = random.Random(seed)
    square = [v for row in random_latin_square(n, seed=seed) for v in row]
    empty = set(rng.sample(range(n * n), holes))
    clues = tuple((c, v) for c, v in enumerate(square) if c not in empty)
    return replace(latin_square(n), clues=clues)


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@needs_core
@SETTINGS
@given(futoshiki_boards(), OPTIONS, LIMITS)
def test_random_futoshiki(board: Board, options: dict, limit: int | None) -> None:
    both(board, limit, **options)


@needs_core
@SETTINGS
@given(multiset_boards(), OPTIONS, LIMITS)
def test_random_multiset_boards(board: Board, options: dict, limit: int | None) -> None:
    both(board, limit, **options)


@needs_core
@SETTINGS
@given(st.integers(0, 10**6), st.sampled_from([4, 5]), st.booleans(), OPTIONS, LIMITS)
def test_random_relations(seed: int, n: int, truthful: bool, options: dict,
                          limit: int | None) -> None:
    board = relation_board(n, KINDS, seed, count=5, givens=2, truthful=truthful)
    both(board, limit, **options)


@needs_core
@SETTINGS
@given(st.integers(0, 10**6), st.integers(0, 3), st.booleans(), OPTIONS, LIMITS)
def test_random_killer(seed: int, givens: int, wrong_sum: bool, options: dict,
                       limit: int | None) -> None:
    both(killer_board(seed, givens, wrong_sum), limit, **options)


@needs_core
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from([1, 2]), OPTIONS)
def test_random_latin_square_completion(seed: int, limit: int, options: dict) -> None:
    """Order 10 with 55 holes (the lookahead's probes on boards of 100 cells)."""
    both(qwh(10, 55, seed), limit, **options)


@needs_core
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(futoshiki_boards(), st.integers(0, 10**6).map(lambda s: qwh(10, 55, s)),
                 st.integers(0, 10**6).map(lambda s: killer_board(s, 1, False))),
       OPTIONS, LIMITS)
def test_python_undo_trail(board: Board, options: dict, limit: int | None) -> None:
    """The reference's undo trail (on large programs; forced here on small ones, where
    it copies lists by default) against the core: the same search."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(listcolor, "_COPY_STACK_BYTES", -1)
        assert listcolor._Search(compile_program(build_model(board)), 1, bool).uses_trail
        both(board, limit, **options)


@needs_core
@pytest.mark.parametrize("board", [keen_board(5, 3), keen_board(5, 3, truthful=False),
                                   towers_board(5, 4, 10, 2), towers_board(5, 6, 6)],
                         ids=["keen", "keen-unsat", "towers", "towers-few"])
@pytest.mark.parametrize("limit", [1, None])
def test_diagrams_of_keen_and_towers(board: Board, limit: int | None) -> None:
    out = both(board, limit)
    assert out.stats["core"] == "compiled" or out.stats.get("decided")


@pytest.mark.parametrize("locked", [True, False])
def test_sudoku_counters_equal(locked: bool) -> None:
    """The first hard 9x9 puzzles of top95: the plain search's dead ends, the switch
    to the lookahead (a restart and the portfolio with limit 1), failed literals,
    dilemma values; with and without locked candidates."""
    boards = formats.read_many("instances/sudoku/top95.txt", "sudoku")[:6]
    seen = dict.fromkeys(("backtracks", "probes", "failed_literals", "dilemma_values"), 0)
    for board in boards:
        for limit in (1, 2):
            stats = both(board, limit, locked_candidates=locked).stats
            for key in seen:
                seen[key] += stats[key]
    assert all(seen.values()), seen  # every part of the search ran


def _puzzles(board: Board, holes: int, count: int, seed: int) -> list[Board]:
    """``count`` puzzles of ``board``: its first solution with ``holes`` random cells empty."""
    rng = random.Random(seed)
    solution = ListcolorBackend().solve(build_model(board), limit=1).solutions[0]
    return [replace(board, clues=tuple((c, solution[c]) for c in sorted(
        rng.sample(range(board.n_cells), board.n_cells - holes)))) for _ in range(count)]


@needs_core
@pytest.mark.parametrize("locked", [True, False])
def test_locked_candidates_where_asterisms_share_several_cells(locked: bool) -> None:
    """Locked candidates, the core's and the reference's: a Windoku (four more 3x3
    windows: a window shares 2 cells of a row with a box, so a label's places can lie
    in two intersections at once; the core's tables of 9-cell groups) and a 16x16
    Sudoku (groups of 16 cells: the core scans their intersections), puzzles and the
    empty grid."""
    nine = sudoku((3, 3))
    windows = tuple(tuple((r + i) * 9 + c + j for i in range(3) for j in range(3))
                    for r in (1, 5) for c in (1, 5))
    windoku = replace(nine, asterisms=nine.asterisms + windows)
    sixteen = sudoku((4, 4))
    boards = [windoku, *_puzzles(windoku, 58, 6, 1), *_puzzles(sixteen, 150, 3, 2)]
    counted = [both(b, 2, locked_candidates=locked).stats for b in boards]
    assert sum(s["backtracks"] for s in counted) > 0


@needs_core
def test_locked_candidates_cut_the_search() -> None:
    """top95's first 12 puzzles: the same solutions with locked candidates as without,
    in under half the nodes."""
    boards = formats.read_many("instances/sudoku/top95.txt", "sudoku")[:12]
    runs = {flag: [ListcolorBackend().solve(build_model(b), limit=2, locked_candidates=flag)
                   for b in boards] for flag in (True, False)}
    assert [r.solutions for r in runs[True]] == [r.solutions for r in runs[False]]
    nodes = {flag: sum(r.stats["nodes"] for r in rs) for flag, rs in runs.items()}
    assert nodes[True] < nodes[False] / 2, nodes


@needs_core
def test_qwh_order_30_portfolio() -> None:
    """A CSPLib QWH order-30 instance whose search outlives the portfolio's solo
    turn: the two lookahead searches run in turns (about 1 s in Python)."""
    board = formats.read("instances/qwh/csplib067/qwh-o30-h374-02.dzn")
    stats = both(board, 1).stats
    assert stats["backtracks"] > 20 + 32  # the plain search's 20, then past _SOLO


@needs_core
def test_unsat_and_enumeration() -> None:
    out = both(latin_square(4), None)
    assert out.n_solutions == 576 and out.exhausted
    clash = replace(latin_square(4), clues=((0, 1), (5, 1), (10, 2)))
    for mode in ("auto", "always", "never"):
        both(clash, None, lookahead=mode)


@needs_core
def test_time_limit_stops_the_core() -> None:
    result = ListcolorBackend().solve(build_model(latin_square(7)), limit=None, time_limit=0.2,
                                      lookahead="never")
    assert result.stats["core"] == "compiled"
    assert not result.exhausted and result.status.value == "sat"  # stopped with solutions


@needs_core
def test_parallel_workers_run_the_core() -> None:
    backend = ListcolorBackend()
    model = build_model(latin_square(4))
    ref = backend.solve(model, limit=None, lookahead="never", workers=2, core="python")
    out = backend.solve(model, limit=None, lookahead="never", workers=2, core="compiled")
    assert out.stats["core"] == "compiled"
    assert out.n_solutions == ref.n_solutions == 576
    assert sorted(out.solutions) == sorted(ref.solutions)
    assert out.stats["nodes"] == ref.stats["nodes"]


def test_core_python_forces_the_reference() -> None:
    result = ListcolorBackend().solve(build_model(latin_square(4)), core="python")
    assert result.stats["core"] == "python"
    assert "core_fallback" not in result.stats


def test_default_is_compiled_when_built() -> None:
    result = ListcolorBackend().solve(build_model(latin_square(4)))
    assert result.stats["core"] == ("compiled" if BUILT else "python")


def test_seed_falls_back_to_python() -> None:
    result = ListcolorBackend().solve(build_model(latin_square(4)), seed=3, core="compiled"
                                      if BUILT else "auto")
    assert result.stats["core"] == "python"
    assert "seed" in result.stats["core_fallback"] or not BUILT


def test_more_than_128_values_falls_back() -> None:
    prog = compile_program(build_model(latin_square(129)))
    assert "more than 128" in core_fallback(prog) or not BUILT  # wider than the wide core's
    assert not core_fallback(compile_program(build_model(latin_square(128)))) or not WIDE
    assert not core_fallback(compile_program(build_model(latin_square(64)))) or not BUILT


def test_without_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    """The extension's import failed: auto runs the reference, compiled is refused."""
    monkeypatch.setattr(listcolor, "_core", None)
    model = build_model(latin_square(4))
    result = ListcolorBackend().solve(model, limit=None)
    assert result.stats["core"] == "python"
    assert result.stats["core_fallback"] == "the compiled core is not built"
    assert result.n_solutions == 576
    with pytest.raises(UsageError, match="pip install -e"):
        ListcolorBackend().solve(model, core="compiled")


# ---------------------------------------------------------------- 65 to 128 values

WIDE_KINDS = ("less", "consecutive", "nonconsecutive", "ratio")


def latin_rectangle(m: int, rows: int, seed: int, truthful: bool = True) -> Board:
    """``rows`` rows of ``m`` cells, each a permutation of 1..m (an asterism), with
    random relations between the rows' cells of a column (less, consecutive,
    nonconsecutive, ratio), sum cages down some columns (all-different, so
    partial groups) and a few givens; with ``truthful`` all from a hidden
    solution (else the relations are random, maybe unsatisfiable)."""
    rng = random.Random(seed)
    hidden = [v for _ in range(rows) for v in rng.sample(range(1, m + 1), m)]
    cols = rng.sample(range(m), m)
    rels = []
    for col in cols[:12]:
        r = rng.randrange(rows - 1)
        a, b = r * m + col, (r + 1) * m + col
        kind = rng.choice(WIDE_KINDS)
        if kind == "less" and hidden[a] > hidden[b]:
            a, b = b, a
        rel = Relation(kind, (a, b))
        if rel.holds([hidden[a], hidden[b]]) or not truthful:
            rels.append(rel)
    for col in cols[12:16]:
        cells = tuple(r * m + col for r in range(rows))
        if len({hidden[c] for c in cells}) == rows:
            total = sum(hidden[c] for c in cells) + (0 if truthful else rng.randint(-1, 1))
            rels.append(Relation("cage", cells, (("sum", total),)))
    clues = [(c, hidden[c]) for c in rng.sample(range(rows * m), 3)]
    return Board(rows * m, [range(r * m, (r + 1) * m) for r in range(rows)], range(1, m + 1),
                 clues=clues, relations=rels)


def test_wide_boards_choose_the_wide_core() -> None:
    """Up to 64 bits the single-word core runs, up to 128 the wide one, past it Python."""
    narrow = compile_program(build_model(latin_rectangle(64, 2, 0)))
    wide = compile_program(build_model(latin_rectangle(65, 2, 0)))
    assert listcolor._core_module(narrow) is listcolor._core
    assert listcolor._core_module(wide) is listcolor._core_wide
    assert listcolor._core_module(compile_program(build_model(latin_rectangle(129, 2, 0)))) is None


@needs_core
def test_the_cores_switch_to_the_lookahead_where_the_reference_does() -> None:
    """``lookahead="auto"`` turns the lookahead on after the same number of dead ends
    in both builds of the core as in the Python reference (a constant each side)."""
    cores = [listcolor._core] + ([listcolor._core_wide] if WIDE else [])
    assert [core.AUTO_SWITCH for core in cores] == [listcolor._AUTO_SWITCH] * len(cores)


@needs_core
def test_narrow_core_runs_up_to_64(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the wide build, 64 values still run compiled, 65 fall back saying why."""
    monkeypatch.setattr(listcolor, "_core_wide", None)
    backend = ListcolorBackend()
    out = backend.solve(build_model(latin_rectangle(64, 2, 1)), limit=2)
    assert out.stats["core"] == "compiled" and out.n_solutions == 2
    out = backend.solve(build_model(latin_rectangle(65, 2, 1)), limit=2)
    assert out.stats["core"] == "python"
    assert "wide compiled core" in out.stats["core_fallback"]


def test_more_than_128_values_runs_python() -> None:
    """130 values: the Python reference, the reason in the stats."""
    board = latin_rectangle(130, 2, 2)
    out = ListcolorBackend().solve(build_model(board), limit=2, core="auto")
    assert out.stats["core"] == "python"
    assert "more than 128 values" in out.stats["core_fallback"] or not BUILT
    assert out.n_solutions == 2 and all(verify(board, sol) == [] for sol in out.solutions)


@needs_wide
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(65, 128), st.integers(2, 4), st.integers(0, 10**6), st.booleans(), OPTIONS,
       LIMITS)
def test_wide_random_rectangles(m: int, rows: int, seed: int, truthful: bool, options: dict,
                                limit: int) -> None:
    """Latin rectangles of 65 to 128 values (the lists and the dual table's groups
    cross the 64-bit word) with relations and cages: the same run in both engines."""
    out = both(latin_rectangle(m, rows, seed, truthful), limit, **options)
    assert out.stats.get("core", "compiled") == "compiled"


@needs_wide
@pytest.mark.parametrize(("n", "holes", "seed"), [(66, 1000, 2), (68, 1050, 1)])
def test_wide_latin_square_completion(n: int, holes: int, seed: int) -> None:
    """Order 66 and 68 squares with random holes: the plain search's dead ends, the
    restart with lookahead (probes, failed literals, dilemma values), limits 1 and 2."""
    board = qwh(n, holes, seed)
    model = build_model(board)
    for limit, options in ((1, {}), (2, {"branching": "dual", "weight": "binary"})):
        stats = both(board, limit, model, **options).stats
        assert stats["failed_literals"] and stats["dilemma_values"], stats


@needs_wide
def test_wide_core_checks_its_ints() -> None:
    """Lists must be non-negative ints of the program's 70 values (ValueError)."""
    prog = compile_program(build_model(latin_rectangle(70, 2, 3)))
    native = listcolor._native_program(prog)
    wide = listcolor._core_wide
    for bad in (1 << 128, -1, 1 << 70, 1 << 100):
        domains = [bad, *prog.domains[1:]]
        with pytest.raises(ValueError):
            wide.run(native, domains, 1, lambda: False, "auto", ["removed"], False, True, True,
                     None, [])
    found: list[tuple] = []
    done = wide.run(native, prog.domains, 1, lambda: False, "auto", ["removed"], False, True,
                    True, None, found)
    assert done[0] and len(found) == 1


@needs_wide
@pytest.mark.slow
def test_wide_lsencode_order_70() -> None:
    """The lsencode order-70 file with 2940 holes (about 7 s in Python, under 1 s
    compiled): the plain search's dead ends (``_AUTO_SWITCH``), then the lookahead
    portfolio."""
    board = formats.read("instances/qwh/lsencode/qwh.order70.holes2940.pls")
    stats = both(board, 1).stats
    assert stats["probes"] and stats["backtracks"] >= listcolor._AUTO_SWITCH, stats


@needs_wide
@pytest.mark.parametrize("bad", [-1, -(1 << 70), 1 << 128, 1 << 100])
def test_wide_bit_sets_out_of_range_are_refused(bad: int) -> None:
    """The wide core reads a list over 64 bits in two halves (no module state): a
    negative int, one of 129 bits or more and one naming a value beyond the program's
    100 are refused; a list just over 64 bits is taken."""
    prog = compile_program(build_model(latin_square(100)))
    native = listcolor._native_program(prog)
    core = listcolor._native_module(native)
    assert core is listcolor._core_wide
    n, full = len(prog.cells), (1 << prog.n_values) - 1
    args = bytes(n), 1, 1, "auto", ["removed"], False, True, True, [], [0] * prog.n_values
    (row,) = core.run_many(native, [1 << 64] + [full] * (n - 1), *args)
    assert row[0] is True and len(row[-1]) == 1  # finished, one solution
    with pytest.raises(ValueError):
        core.run_many(native, [bad] + [full] * (n - 1), *args)


@needs_core
def test_run_counts_the_lists_solutions_towards_the_limit() -> None:
    """``run`` keeps its solutions in C during the search and appends them after it;
    the solutions already in the list count towards ``limit``, as when they were
    appended one by one."""
    prog = compile_program(build_model(latin_square(4)))
    native = listcolor._native_program(prog)
    core = listcolor._native_module(native)

    def run(found: list[tuple[object, ...]], limit: int) -> list[tuple[object, ...]]:
        core.run(native, prog.domains, limit, lambda: False, "auto", ["removed"], False, True,
                 True, None, found)
        return found

    fresh = run([], 3)
    assert len(fresh) == 3 and len(set(fresh)) == 3
    assert run(["earlier"], 3) == ["earlier", *fresh[:2]]
