"""The cpsat backend on every relation kind: counts against the brute-force oracle.

Also home of :func:`relation_boards`, the small random boards with relations
that ``tests/test_sat.py`` shares.
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace

import pytest

from futocp.backends.cpsat import AUTO_CAGE, CAGE_ENCODINGS, CpsatBackend, label_offset
from futocp.board import Board, grid_neighbour_pairs
from futocp.families import grid_lines, latin_square, sudoku
from futocp.generate import random_latin_square, random_solution
from futocp.model import build_model
from futocp.relations import Relation as Rel
from futocp.relations import RelationKind, register, unregister
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count

pytestmark = pytest.mark.skipif(CpsatBackend.available() is not True,
                                reason="ortools is not installed")

FORMULATIONS = ("integer", "boolean")


# ------------------------------------------------------------ random boards with relations
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
            nbrs = [b for a, b in grid_neighbour_pairs(n, n) if a in cage] + [a for a, b in grid_neighbour_pairs(n, n) if b in cage]
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
    for a, b in rng.sample(grid_neighbour_pairs(n, n), k):
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
def relation_board(kind: str, n: int, seed: int) -> Board:
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
"""(kind, order, seed) of the boards every backend test of this file and test_sat runs."""


def relation_boards() -> list:
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


def check_count(board: Board, result, expected: int) -> None:
    assert result.exhausted, result.stats
    assert result.n_solutions == expected
    assert len(set(result.solutions)) == result.n_solutions
    for sol in result.solutions:
        assert verify(board, sol) == [], sol
    assert result.status is (Status.SAT if expected else Status.UNSAT)


# ------------------------------------------------------------ counts
def test_relation_boards_are_varied() -> None:
    counts = [brute_force_count(relation_board(*case)) for case in RELATION_CASES]
    assert 0 in counts and any(c > 1 for c in counts) and 1 in counts
    assert max(counts) <= 600  # enumerable by every backend in a test
    kinds = {r.kind for case in RELATION_CASES for r in relation_board(*case).relations}
    assert kinds == {"less", "consecutive", "nonconsecutive", "ratio", "cage"}


@pytest.mark.parametrize("case", relation_boards())
@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("filtering", ["lists", "none"])
def test_relation_counts(case: tuple, formulation: str, filtering: str) -> None:
    board = relation_board(*case)
    result = CpsatBackend().solve(build_model(board, filtering), limit=None,
                                  formulation=formulation)
    check_count(board, result, brute_force_count(board))


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("cage", CAGE_ENCODINGS[1:])
def test_cage_encodings(formulation: str, cage: str) -> None:
    for case in [c for c in RELATION_CASES if c[0] in ("cage", "mixed", "sudoku-cage")]:
        board = relation_board(*case)
        for filtering in ("lists", "none"):
            result = CpsatBackend().solve(build_model(board, filtering), limit=None,
                                          formulation=formulation, cage=cage)
            check_count(board, result, brute_force_count(board))


def test_cage_auto_by_formulation() -> None:
    model = build_model(relation_board("cage", 4, 0), "none")
    for formulation, how in AUTO_CAGE.items():
        auto = CpsatBackend().compile(model, formulation=formulation).proto_text()
        named = CpsatBackend().compile(model, formulation=formulation, cage=how).proto_text()
        assert auto == named


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("cage", CAGE_ENCODINGS)
@pytest.mark.parametrize("filtering", ["lists", "none"])
def test_labels_not_index_plus_offset(formulation: str, cage: str, filtering: str) -> None:
    board = odd_labels_board()
    model = build_model(board, filtering)
    assert label_offset(model) is None
    result = CpsatBackend().solve(model, limit=None, formulation=formulation, cage=cage)
    expected = brute_force_count(board)
    assert expected > 0
    check_count(board, result, expected)


def test_specialised_encodings_in_the_proto() -> None:
    board = relation_board("mixed", 5, 0)
    text = CpsatBackend().compile(build_model(board, "none")).proto_text()
    assert "all_diff" in text  # cages
    assert "lin_max" in text  # add_abs_equality of a consecutive pair
    ratio = CpsatBackend().compile(build_model(relation_board("ratio", 4, 0), "none"))
    assert "table" in ratio.proto_text()  # ratio by its allowed pairs
    odd = CpsatBackend().compile(build_model(odd_labels_board(), "none"), cage="sum")
    assert "element" in odd.proto_text()  # cage labels through add_element
    boolean = CpsatBackend().compile(build_model(board, "none"), formulation="boolean")
    assert "table" not in boolean.proto_text()


def test_capabilities() -> None:
    caps = CpsatBackend.supported()
    assert {"binary", "alldifferent", "cage", "consecutive", "nonconsecutive", "ratio",
            "less"} <= caps


# ------------------------------------------------------------ unsat
@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("cage", CAGE_ENCODINGS)
def test_unreachable_cage_sum_is_unsat(formulation: str, cage: str) -> None:
    base = latin_square(4)
    board = replace(base, relations=(Rel("cage", (0, 1), (("sum", 9),)),))
    model = build_model(board)
    result = CpsatBackend().solve(model, formulation=formulation, cage=cage)
    assert result.status is Status.UNSAT and "sum" in result.stats["reason"]
    # the formulation alone proves it too (without the model's conflict check)
    from ortools.sat.python import cp_model

    form = CpsatBackend().compile(build_model(board, "none"), formulation=formulation,
                                  cage=cage)
    assert cp_model.CpSolver().solve(form.model) == cp_model.INFEASIBLE
    # reachable by the labels, not by the board: {1, 2} in row 0 with 1 given elsewhere
    board = replace(base, relations=(Rel("cage", (0, 1), (("sum", 3),)),), clues=((2, 1),))
    result = CpsatBackend().solve(build_model(board, "none"), formulation=formulation,
                                  limit=None, cage=cage)
    check_count(board, result, 0)


# ------------------------------------------------------------ a kind registered here
@pytest.fixture
def apart_kind():
    """A binary kind no backend knows by name: labels differ by at least 2."""
    kind = register(RelationKind("apart-test", lambda v, p: abs(v[0] - v[1]) >= 2,
                                 description="labels differ by at least 2"))
    yield kind
    unregister(kind.name)


def apart_board() -> Board:
    n = 4
    rels = [Rel("apart-test", (a, b)) for a, b in grid_neighbour_pairs(n, n)[::3]]
    return replace(latin_square(n), relations=tuple(rels), clues=((0, 1),))


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_a_kind_registered_in_a_test(apart_kind, formulation: str) -> None:
    board = apart_board()
    model = build_model(board)
    assert "apart-test" in model.features
    expected = brute_force_count(board)
    assert expected > 0
    result = CpsatBackend().solve(model, limit=None, formulation=formulation)
    check_count(board, result, expected)
    if formulation == "integer":
        assert "table" in CpsatBackend().compile(model).proto_text()
