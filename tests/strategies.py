"""What the tests share: boards, Hypothesis strategies, a test relation, fake backends.

Test modules import from here (and from :mod:`tests.oracle`, the brute-force
counter, and :mod:`tests.relation_boards`, the random relation boards, which
this module re-exports), never from one another; ``tests/conftest.py`` keeps
only pytest hooks and fixtures.

- backend selection (``pytest --backend NAME``): :func:`available_backends`,
  :func:`backend_params`;
- small boards with known counts: :func:`multiset_board`, :func:`string_square`;
- Hypothesis strategies: :func:`futoshiki_boards`, :func:`multiset_boards`,
  :func:`relation_boards`, and :func:`agree`, the check every complete backend
  must pass on them;
- hidden solutions and cages for random relation boards: :func:`hidden_latin`,
  :func:`hidden_sudoku4`, :func:`random_cages`, and boards drawn from them:
  :func:`hidden_relations`, :func:`hidden_board`, :func:`kind_board`;
- an exported MPS/LP formula solved by HiGHS: :func:`highs_answer`;
- the cpsat/sat relation cases: :data:`RELATION_CASES`, :func:`relation_case_board`,
  :func:`relation_case_params`, :func:`odd_labels_board`, :func:`apart_board`,
  :func:`apart_gap_board`;
- a relation kind no backend knows by name: :func:`apart_kind`;
- fake backends (liars, sleepers, crashers) to put in the REGISTRY with
  ``monkeypatch.setitem``;
- :func:`within`, the wall-clock bound of a timing assert, scaled by the load.
"""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume
from hypothesis import strategies as st

from futocp.backends import REGISTRY, get_backend
from futocp.backends.cpsat import CpsatBackend
from futocp.backends.listcolor import ListcolorBackend
from futocp.board import Board
from futocp.errors import BoardError, SolverError
from futocp.families import futoshiki, grid_lines, latin_square, neighbour_pairs, sudoku
from futocp.generate import random_latin_square, random_solution
from futocp.model import Model, build_model
from futocp.relations import Relation as Rel
from futocp.relations import RelationKind
from futocp.result import Result, Status
from futocp.verify import verify

from .oracle import brute_force_count
from .relation_boards import KINDS, keen_board, killer_board, relation_board, towers_board

__all__ = [
    "COMPLETE", "KINDS", "LIMIT", "RELATION_CASES", "CountingWrongBackend", "CrashBackend",
    "DierBackend", "InterruptedBackend", "LiarBackend", "LyingBackend", "RaiserBackend",
    "SleeperBackend", "SlowBackend", "SpyBackend", "TwinBackend", "WrongBackend", "agree",
    "all_solutions", "apart_board", "apart_gap_board", "apart_kind", "available_backends",
    "backend_params",
    "brute_force_count", "futoshiki_boards", "hidden_latin", "hidden_sudoku4", "keen_board",
    "killer_board", "multiset_board", "multiset_boards", "odd_labels_board", "random_cages",
    "relation_board", "relation_boards", "towers_board",
    "relation_case_board", "relation_case_params", "select", "string_square", "within",
    "highs_answer", "BINARY_KINDS", "hidden_relations", "hidden_board", "kind_board",
]

# ------------------------------------------------------------ backend selection
SELECTED: list[str] = []
"""The backends of ``pytest --backend NAME`` (empty: all); conftest's hook fills it."""


def _chosen(name: str) -> bool:
    return not SELECTED or name in SELECTED


def available_backends(complete_only: bool = False) -> list[str]:
    """The names of the REGISTRY's available (and selected) backends."""
    return [name for name, cls in REGISTRY.items()
            if cls.available() is True and (cls.complete or not complete_only) and _chosen(name)]


ONE_BY_ONE = ("mip", "smt")
"""Backends that enumerate by re-solving with a no-good per solution found: a test
that counts hundreds of solutions takes them tens of seconds (``make test-slow``)."""


def backend_params(complete_only: bool = False, slow: Collection[str] = ()) -> list:
    """Every backend of the REGISTRY, skipped with the reason when unavailable;
    those named in ``slow`` marked ``slow`` (left to ``make test-slow``)."""
    out = []
    for name, cls in REGISTRY.items():
        if (complete_only and not cls.complete) or not _chosen(name):
            continue
        ok = cls.available()
        marks = [] if ok is True else [pytest.mark.skip(reason=f"{name}: {ok}")]
        if name in slow:
            marks.append(pytest.mark.slow)
        out.append(pytest.param(name, marks=marks, id=name))
    return out


# ------------------------------------------------------------ small boards
def multiset_board() -> Board:
    """4x4 grid, rows and columns each hold {1, 1, 2, 2}: 90 solutions."""
    return Board(16, tuple(grid_lines(4, 4)), (1, 1, 2, 2), shape=(4, 4))


def string_square() -> Board:
    """3x3 Latin square over letters: 12 solutions."""
    return Board(9, tuple(grid_lines(3, 3)), ("a", "b", "c"), clues=(), shape=(3, 3))


# ------------------------------------------------------------ Hypothesis strategies
LIMIT = 8
"""The solution limit of :func:`agree`."""


@st.composite
def futoshiki_boards(draw: st.DrawFn) -> Board:
    """A random Futoshiki (n <= 5, random clues and inequalities, satisfiable or not)."""
    n = draw(st.integers(2, 5))
    cells = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    clues = draw(st.dictionaries(cells, st.integers(1, n), max_size=n + 2))
    givens = [[clues.get((r, c), 0) for c in range(n)] for r in range(n)]
    pairs = []
    for (r, c) in draw(st.lists(cells, max_size=2 * n, unique=True)):
        dr, dc = draw(st.sampled_from([(0, 1), (1, 0)]))
        if r + dr < n and c + dc < n:
            a, b = (r, c), (r + dr, c + dc)
            pairs.append((a, b) if draw(st.booleans()) else (b, a))
    try:
        return futoshiki(n, givens, less=pairs)
    except BoardError:
        assume(False)
        raise  # unreachable: assume(False) raises


@st.composite
def multiset_boards(draw: st.DrawFn) -> Board:
    """A rows x cols grid whose rows and columns hold the same multiset (rows == cols)."""
    n = draw(st.integers(2, 4))
    labels = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    clues = draw(st.dictionaries(st.integers(0, n * n - 1), st.sampled_from(labels), max_size=n))
    return Board(n * n, tuple(grid_lines(n, n)), tuple(labels), clues=tuple(clues.items()),
                 shape=(n, n))


@st.composite
def relation_boards(draw: st.DrawFn) -> Board:
    """A small Latin square or 4x4 Sudoku with random relations of every kind, or a small
    Keen or Towers."""
    pick = draw(st.integers(0, 5))
    if pick == 0:
        return killer_board(draw(st.integers(0, 10_000)), givens=draw(st.integers(0, 3)),
                            wrong_sum=draw(st.booleans()))
    if pick == 1:  # Keen: arith cages cover the grid
        return keen_board(draw(st.integers(3, 4)), draw(st.integers(0, 10_000)),
                          truthful=draw(st.booleans()))
    if pick == 2:  # Towers: visible clues on rows and columns
        n = draw(st.integers(3, 4))
        return towers_board(n, draw(st.integers(0, 10_000)), draw(st.integers(1, 4 * n)),
                            givens=draw(st.integers(0, n)), truthful=draw(st.booleans()))
    n = draw(st.integers(3, 4))
    kinds = tuple(draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4, unique=True)))
    return relation_board(n, kinds, seed=draw(st.integers(0, 10_000)),
                          count=draw(st.integers(1, 2 * n)), givens=draw(st.integers(0, n)),
                          truthful=draw(st.booleans()))


COMPLETE = available_backends(complete_only=True)
"""The complete backends :func:`agree` runs (updated in place by :func:`select`)."""


def select(names: list[str]) -> None:
    """Run the backend-parametrised suites for ``names`` only (all when empty)."""
    SELECTED[:] = names
    COMPLETE[:] = available_backends(complete_only=True)


def agree(board: Board, filtering: str) -> None:
    """Every complete backend finds the oracle's count (up to :data:`LIMIT`), all verified."""
    answers = {}
    for name in COMPLETE:
        backend = get_backend(name)
        model = build_model(board, filtering)
        if model.features - backend.supported():
            continue
        result = backend.solve(model, limit=LIMIT, time_limit=60)
        assert result.ok, f"{name} did not finish"
        for sol in result.solutions:
            assert verify(board, sol) == [], (name, sol)
        assert len(set(result.solutions)) == result.n_solutions, name
        answers[name] = (result.status.value, result.n_solutions)
    assert len(set(answers.values())) <= 1, answers
    expected = brute_force_count(board, LIMIT)
    for name, (status, n_solutions) in answers.items():
        assert n_solutions == expected, (name, n_solutions, expected)
        assert status == ("sat" if expected else "unsat"), name


def all_solutions(board: Board, filtering: str = "lists", **options: Any) -> Result:
    """The sat backend's every solution of a satisfiable ``board``, each verified."""
    from futocp.backends.sat import SatBackend

    r = SatBackend().solve(build_model(board, filtering), limit=None, **options)
    assert r.status is Status.SAT and r.exhausted
    assert len(set(r.solutions)) == r.n_solutions
    for sol in r.solutions:
        assert verify(board, sol) == []
    return r


# ------------------------------------------------------------ the cpsat/sat relation cases
def _pairs(n: int) -> list[tuple[int, int]]:
    """The orthogonal neighbour pairs of an n x n grid."""
    return neighbour_pairs(latin_square(n))


def _cages(n: int, solution: list, rng: random.Random, cover: float, max_size: int = 4
           ) -> list[Rel]:
    """Random connected cages (distinct labels in ``solution``) over about ``cover`` of the grid."""
    owner: set[int] = set()
    out = []
    cells = list(range(n * n))
    rng.shuffle(cells)
    for start in cells:
        if start in owner or len(owner) >= cover * n * n:
            continue
        cage = [start]
        owner.add(start)
        target = rng.randint(2, max_size)
        while len(cage) < target:
            nbrs = [b for a, b in _pairs(n) if a in cage] + [a for a, b in _pairs(n) if b in cage]
            nbrs = [d for d in nbrs if d not in owner
                    and solution[d] not in {solution[x] for x in cage}]
            if not nbrs:
                break
            d = rng.choice(nbrs)
            cage.append(d)
            owner.add(d)
        if len(cage) > 1:
            out.append(Rel("cage", tuple(sorted(cage)), (("sum", sum(solution[c] for c in cage)),)))
    return out


def _binary(kind: str, n: int, solution: list, rng: random.Random, k: int) -> list[Rel]:
    """``k`` relations of ``kind`` on random neighbour pairs, most of them true in ``solution``."""
    out = []
    for a, b in rng.sample(_pairs(n), k):
        if kind == "less" and solution[a] > solution[b]:
            a, b = b, a
        rel = Rel(kind, (a, b))
        if rel.holds((solution[a], solution[b])) or rng.random() < 0.2:
            out.append(rel)
    return out


def _with_relations(base: Board, relations: list[Rel], clues: dict[int, int]) -> Board:
    # one relation per pair: a later kind does not contradict an earlier one on the same cells
    seen: set[tuple[int, ...]] = set()
    kept = []
    for rel in relations:
        key = tuple(sorted(rel.cells))
        if len(rel.cells) == 2 and key in seen:
            continue
        seen.add(key)
        kept.append(rel)
    return replace(base, relations=tuple(kept), clues=tuple(sorted(clues.items())))


@functools.cache
def relation_case_board(kind: str, n: int, seed: int) -> Board:
    """An n x n Latin square (n = 4, 5) or, for ``kind="sudoku-cage"``, a 4x4 Sudoku,
    with random relations of ``kind`` (``mixed``: every kind) and a few givens,
    taken mostly from a hidden solution (so some boards are unsatisfiable)."""
    rng = random.Random(f"{kind}/{n}/{seed}")
    solution = [v for row in random_latin_square(n, rng=rng) for v in row]
    base = latin_square(n)
    if kind == "sudoku-cage":
        base = sudoku((2, 2))
        solution = list(random_solution(base, seed=rng.getrandbits(31)))
    relations: list[Rel] = []
    binary = ("consecutive", "nonconsecutive", "ratio", "less")
    if kind in binary:
        relations += _binary(kind, n, solution, rng, 2 * n)
    if kind == "mixed":
        for k in binary:
            relations += _binary(k, n, solution, rng, n // 2 + 1)
    if kind in ("cage", "mixed", "sudoku-cage"):
        cover = 1.0 if kind == "sudoku-cage" else 0.5
        relations += _cages(n, solution, rng, cover, 3 if kind == "mixed" else 4)
    givens = {"sudoku-cage": 0, "mixed": n - 3}.get(kind, n - 2 if n == 4 else n)
    clues = {c: solution[c] for c in rng.sample(range(n * n), givens)}
    return _with_relations(base, relations, clues)


RELATION_CASES = [(kind, n, seed) for kind in ("consecutive", "nonconsecutive", "ratio", "cage",
                                               "mixed")
                  for n in (4, 5) for seed in (0, 1)] + [("sudoku-cage", 4, s) for s in (0, 1, 2)]
"""(kind, order, seed) of the boards every backend test of test_cpsat and test_sat runs."""


def relation_case_params() -> list:
    """pytest params of :data:`RELATION_CASES`, with readable ids."""
    return [pytest.param(case, id=f"{case[0]}-{case[1]}x{case[1]}-{case[2]}")
            for case in RELATION_CASES]


def odd_labels_board() -> Board:
    """4x4 Latin square over labels (-2, -1, 1, 2), not ``index + offset``: a cage
    (only {-2, 1, 2} sums to 1), a consecutive, a nonconsecutive, a ratio and a
    less pair."""
    return Board(16, grid_lines(4, 4), (-2, -1, 1, 2), shape=(4, 4),
                 clues=((0, -1),),
                 relations=(Rel("cage", (1, 2, 5), (("sum", 1),)),
                            Rel("consecutive", (10, 11)),
                            Rel("nonconsecutive", (3, 7)),
                            Rel("ratio", (14, 15)),
                            Rel("less", (8, 4))))


# ------------------------------------------------------------ hidden solutions (pyconstraint, mzn)
def hidden_latin(n: int, rng: random.Random) -> list[list[int]]:
    """A random n x n Latin square (a cyclic one with rows, columns and labels shuffled)."""
    rows, cols, labels = list(range(n)), list(range(n)), list(range(1, n + 1))
    rng.shuffle(rows)
    rng.shuffle(cols)
    rng.shuffle(labels)
    return [[labels[(rows[r] + cols[c]) % n] for c in range(n)] for r in range(n)]


def hidden_sudoku4(rng: random.Random) -> list[list[int]]:
    """A random 4 x 4 Sudoku solution (2 x 2 boxes)."""
    base = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    perm = [0] + rng.sample([1, 2, 3, 4], 4)
    bands = rng.sample([0, 1], 2)
    rows = [2 * b + r for b in bands for r in rng.sample([0, 1], 2)]
    stacks = rng.sample([0, 1], 2)
    cols = [2 * s + c for s in stacks for c in rng.sample([0, 1], 2)]
    return [[perm[base[r][c]] for c in cols] for r in rows]


def random_cages(grid: list[list[int]], rng: random.Random, max_size: int = 3) -> list[Rel]:
    """Disjoint cages of 2..max_size orthogonally connected cells with distinct hidden
    labels, summing to the hidden labels."""
    n = len(grid)
    free = set(range(n * n))
    out = []
    for start in rng.sample(range(n * n), n * n):
        if start not in free:
            continue
        cage = [start]
        free.discard(start)
        want = rng.randint(2, max_size)
        while len(cage) < want:
            seen = {grid[c // n][c % n] for c in cage}
            nbrs = [d for c in cage for d in (c - n, c + n, c - 1 if c % n else -1,
                                              c + 1 if c % n < n - 1 else -1)
                    if d in free and grid[d // n][d % n] not in seen]
            if not nbrs:
                break
            nxt = rng.choice(nbrs)
            cage.append(nxt)
            free.discard(nxt)
        if len(cage) >= 2:
            total = sum(grid[c // n][c % n] for c in cage)
            out.append(Rel("cage", tuple(sorted(cage)), (("sum", total),)))
    return out


# ------------------------------------------------------------ boards drawn from a hidden solution
BINARY_KINDS = ("consecutive", "nonconsecutive", "ratio")
"""The shipped binary kinds beside ``less``."""


def hidden_relations(grid: list[list[int]], kinds: tuple[str, ...], count: int,
                     rng: random.Random, false_rate: float = 0.15) -> list[Rel]:
    """Up to ``count`` relations of ``kinds`` between orthogonal neighbours, one per pair,
    holding in the hidden solution ``grid`` but for a share ``false_rate`` of lies
    (never a ``less``: it is drawn from the solution, so no cycle)."""
    n = len(grid)
    pairs = [((r, c), (r + dr, c + dc)) for r in range(n) for c in range(n)
             for dr, dc in ((0, 1), (1, 0)) if r + dr < n and c + dc < n]
    out = []
    for (r1, c1), (r2, c2) in rng.sample(pairs, min(count, len(pairs))):
        p, q, x, y = r1 * n + c1, r2 * n + c2, grid[r1][c1], grid[r2][c2]
        if x > y:
            p, q, x, y = q, p, y, x
        holding = [k for k in kinds if Rel(k, (0, 1)).holds((x, y))]
        lying = [k for k in kinds if k != "less" and k not in holding]
        pool = lying if lying and rng.random() < false_rate else holding
        if pool:
            out.append(Rel(rng.choice(pool), (p, q)))
    return out


def hidden_board(grid: list[list[int]], relations: list[Rel], givens: int,
                 rng: random.Random, base: Board | None = None) -> Board:
    """``base`` (default: the Latin square of ``grid``'s order) with ``relations`` and
    ``givens`` labels of the hidden solution ``grid`` as clues."""
    n = len(grid)
    clues = [(c, grid[c // n][c % n]) for c in rng.sample(range(n * n), givens)]
    base = latin_square(n) if base is None else base
    return replace(base, clues=tuple(clues), relations=tuple(relations))


def kind_board(kind: str, seed: int, salt: str = "") -> Board:
    """A random 4x4 or 5x5 board exercising ``kind`` (or ``mixed``: every binary kind,
    cages included), drawn with ``random.Random(f"{salt}{kind}-{seed}")``."""
    rng = random.Random(f"{salt}{kind}-{seed}")
    n = 4 if seed % 2 == 0 else 5
    if kind == "cage":
        grid = hidden_sudoku4(rng)
        return hidden_board(grid, random_cages(grid, rng), rng.randint(0, 2), rng,
                            sudoku((2, 2)))
    grid = hidden_latin(n, rng)
    if kind == "mixed":
        rels = hidden_relations(grid, ("less", *BINARY_KINDS), 2 * n, rng, false_rate=0.04)
        cages = random_cages(grid, rng, max_size=2)[:n // 2 + 1]
        return hidden_board(grid, rels + cages, 2 if n == 4 else 6, rng)
    count = {"consecutive": n + 2, "nonconsecutive": 2 * n, "ratio": n + 1}[kind]
    givens = 3 if n == 4 else 8  # the oracle enumerates whole rows: 5 x 5 needs givens
    rels: list[Rel] = []
    while not rels:  # ratio holds on few pairs: draw until some relation is stated
        rels = hidden_relations(grid, (kind,), count, rng)
    return hidden_board(grid, rels, givens, rng)


# ------------------------------------------------------------ exported formulas, solved
def highs_answer(formula: str, path: Path) -> str:
    """Solve an MPS or LP ``formula`` (written to ``path``, whose suffix names the
    format) with HiGHS to optimality; the solution file it writes, as text."""
    highspy = pytest.importorskip("highspy")
    path.write_text(formula)
    h = highspy._Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    solution = path.with_name(path.name + ".highs")
    h.writeSolution(str(solution), 0)
    return solution.read_text()


# ------------------------------------------------------------ a kind of the tests' own
def apart_kind(name: str = "apart", gap: int | None = None, description: str | None = None
               ) -> RelationKind:
    """The worked example of docs/extending.md, a binary kind no backend knows by name.

    With ``gap=None`` its labels differ by at least its parameter ``k``; with a
    ``gap`` they differ by at least ``gap`` (no parameter). Register it with
    ``futocp.relations.register`` and unregister it by ``name`` afterwards.
    """
    if gap is None:
        return RelationKind(name, lambda v, p: abs(v[0] - v[1]) >= p["k"], params=("k",),
                            description=description or "the labels differ by at least k")
    return RelationKind(name, lambda v, p: abs(v[0] - v[1]) >= gap,
                        description=description or f"labels differ by at least {gap}")


def apart_gap_board(seed: int = 7) -> Board:
    """A 4x4 Latin square with two givens and six relations of :func:`apart_kind`
    (``apart``, registered by the caller) between neighbours of a hidden solution:
    three at distance 1 (``k=1``), three farther apart (``k=2``); it has a solution."""
    rng = random.Random(seed)
    grid = hidden_latin(4, rng)
    near, far = [], []
    for r, c, dr, dc in rng.sample([(r, c, dr, dc) for r in range(4) for c in range(4)
                                    for dr, dc in ((0, 1), (1, 0))
                                    if r + dr < 4 and c + dc < 4], 24):
        gap = abs(grid[r][c] - grid[r + dr][c + dc])
        (near if gap == 1 else far).append((r * 4 + c, (r + dr) * 4 + c + dc))
    rels = [Rel("apart", p, (("k", 1),)) for p in near[:3]]
    rels += [Rel("apart", p, (("k", 2),)) for p in far[:3]]
    return hidden_board(grid, rels, 2, rng)


def apart_board(name: str = "apart-test") -> Board:
    """4x4 Latin square with a clue and relations of the fixed-gap :func:`apart_kind` ``name``."""
    n = 4
    rels = [Rel(name, (a, b)) for a, b in _pairs(n)[::3]]
    return replace(latin_square(n), relations=tuple(rels), clues=((0, 1),))


# ------------------------------------------------------------ fake backends
class _Lies:
    """Mixin: answers with each solution reversed (a verification must catch it)."""

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        result = super()._solve(model, limit, time_limit, seed, options)  # type: ignore[misc]
        result.solutions = [tuple(reversed(s)) for s in result.solutions]
        return result


class TwinBackend(ListcolorBackend):
    """A second dependency-free backend to cross-check with."""

    name = "twin"


class LiarBackend(_Lies, ListcolorBackend):
    """listcolor answering with a corrupted solution (the verification must catch it)."""

    name = "liar"


class LyingBackend(_Lies, CpsatBackend):
    """cpsat answering with a corrupted solution: the cross-check must catch it."""

    name = "liar"


class CountingWrongBackend(CpsatBackend):
    """Claims unsat on everything (a complete backend that is wrong)."""

    name = "pessimist"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        return Result(Status.UNSAT, [], {"solve_s": 0.0}, exhausted=True)


class SlowBackend(ListcolorBackend):
    """Runs into its time limit without an answer."""

    name = "slow"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        return Result(Status.UNKNOWN, [], {"solve_s": time_limit or 0.0})


class CrashBackend(ListcolorBackend):
    """Its solver reports a crash."""

    name = "crash"
    message = "the solver process died (signal 11)"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        raise SolverError(self.message)


class InterruptedBackend(ListcolorBackend):
    """Interrupted (Ctrl-C) while solving."""

    name = "interrupted"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        raise KeyboardInterrupt


class SpyBackend(ListcolorBackend):
    """listcolor, remembering the time limit it was given."""

    name = "spy"
    seen: list[float | None] = []

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        SpyBackend.seen.append(time_limit)
        return super()._solve(model, limit, time_limit, seed, options)


class SleeperBackend(ListcolorBackend):
    """Ignores its time limit, never answers (until killed)."""

    name = "sleeper"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        time.sleep(60)
        return Result(Status.UNKNOWN, [], {})


class DierBackend(ListcolorBackend):
    """Its process dies at once (as a crash of a solver's C code would)."""

    name = "dier"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        os._exit(11)


class RaiserBackend(CrashBackend):
    """A crash its own child reports (in auto's member processes)."""

    name = "raiser"
    message = "the solver process died of SIGSEGV"


class WrongBackend(ListcolorBackend):
    """Claims a complete, wrong answer (every cell the first label)."""

    name = "wrong"

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        return Result(Status.SAT, [[model.values[0]] * model.n_cells], {}, exhausted=True)


# ------------------------------------------------------------ wall-clock bounds
def load_factor() -> float:
    """How many times busier than one job per core this machine is now (at least 1)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def within(seconds: float) -> float:
    """The bound of a wall-clock assert: ``seconds`` on an idle machine, scaled by the load.

    Example: ``assert time.perf_counter() - t0 < within(5)``.
    """
    return seconds * load_factor()
