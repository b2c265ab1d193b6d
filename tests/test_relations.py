"""The relation registry end to end: every kind on every backend that declares it.

Answers are verified with verify() and counted against the brute-force oracle
(tests/oracle.py); a backend that does not declare a kind refuses it clearly;
incomplete backends never answer unsat nor a wrong solution.
"""

from __future__ import annotations

import pytest

from futocp.backends import REGISTRY, get_backend
from futocp.board import Board
from futocp.errors import BoardError, UnsupportedError
from futocp.families import latin_square
from futocp.model import build_model
from futocp.relations import RELATIONS, Relation, RelationKind, register, unregister
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .relation_boards import KINDS, killer_board, relation_board
from .strategies import apart_kind, backend_params

BACKENDS = backend_params()

BOARDS = {
    **{f"{kind}-{s}": relation_board(4, (kind,), seed=s, count=5) for kind in KINDS[1:]
       for s in range(2)},
    "mixed-sat": relation_board(4, KINDS, seed=3, count=6),
    "mixed-random": relation_board(4, KINDS, seed=4, count=7, truthful=False),
    "mixed-5x5": relation_board(5, KINDS, seed=5, count=8, givens=4),
    "killer-0": killer_board(0),
    "killer-1": killer_board(1, givens=2),
    # cages of one cell (givens in disguise) beside larger ones; and a one-cell
    # cage whose sum its cell cannot take (that board has no solution)
    "killer-one-cell-0": killer_board(0, one_cell=True),
    "killer-one-cell-2": killer_board(2, givens=1, one_cell=True),
    "killer-one-cell-wrong": next(b for b in (killer_board(s, wrong_sum=True, one_cell=True)
                                              for s in range(50))
                                  if len(b.relations[0].cells) == 1 and brute_force_count(b) == 0),
    # the first wrong-sum board that no solution fits (found by the oracle)
    "killer-wrong": next(b for b in (killer_board(s, wrong_sum=True) for s in range(50))
                         if brute_force_count(b) == 0),
}


def _run(name: str, board: Board, limit: int | None):
    backend = get_backend(name)
    model = build_model(board)
    if model.features - backend.supported():
        with pytest.raises(UnsupportedError):
            backend.solve(model, limit=limit, time_limit=60)
        pytest.skip(f"{name} does not declare {sorted(model.features - backend.supported())}")
    return backend.solve(model, limit=limit, time_limit=60, seed=1 if "seed" in
                         backend.capabilities else None)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("key", sorted(BOARDS))
def test_every_kind_counts_and_verifies(name, key):
    board = BOARDS[key]
    cls = REGISTRY[name]
    limit = None if cls.complete and "enumerate" in cls.capabilities else 1
    result = _run(name, board, limit)
    for sol in result.solutions:
        assert verify(board, sol) == [], (name, sol)
    expected = brute_force_count(board)
    if not cls.complete:
        assert result.status is not Status.UNSAT
        return
    assert result.ok
    if limit is None:
        assert result.n_solutions == expected and result.exhausted
        assert len(set(result.solutions)) == expected
    else:
        assert result.n_solutions == min(1, expected)


def test_boards_cover_sat_and_unsat():
    counts = {key: brute_force_count(b) for key, b in BOARDS.items()}
    assert counts["killer-wrong"] == counts["killer-one-cell-wrong"] == 0
    for key in ("killer-one-cell-0", "killer-one-cell-2"):
        assert any(len(r.cells) == 1 for r in BOARDS[key].relations), key
    assert all(counts[k] > 0 for k in counts if not k.endswith(("random", "wrong")))


@pytest.mark.parametrize("filtering", ["lists", "none"])
def test_unreachable_cage_is_unsat_with_reason(filtering):
    board = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2),
                  relations=[Relation("cage", (0, 1), (("sum", 9),))])
    model = build_model(board, filtering)
    assert "sum to 9" in model.conflict
    result = get_backend("listcolor").solve(model)
    assert result.status is Status.UNSAT and "sum to 9" in result.stats["reason"]


def test_givens_that_break_a_relation_are_unsat_with_reason():
    board = latin_square(3, [[1, 3, 0], [0, 0, 0], [0, 0, 0]])
    board = Board(board.n_cells, board.asterisms, board.labels, board.clues, shape=board.shape,
                  relations=[Relation("consecutive", (0, 1))])
    assert "consecutive" in build_model(board).conflict


@pytest.mark.parametrize("relations, message", [
    ([Relation("consecutive", (0, 0))], "and itself"),
    ([Relation("consecutive", (0, 9))], "outside"),
    ([Relation("consecutive", (0, 1)), Relation("nonconsecutive", (1, 0))], "both"),
    ([Relation("cage", (0, 1, 0), (("sum", 3),))], "twice"),
    ([Relation("cage", (0, 1), (("sum", 3),)), Relation("cage", (1, 2), (("sum", 3),))],
     "overlap"),
    ([Relation("cage", (0, 1))], "parameters"),
    ([Relation("less", (0, 1)), Relation("less", (1, 3)), Relation("less", (3, 0))], "cycle"),
    ([Relation("bogus", (0, 1))], "unknown relation kind"),
])
def test_bad_relations_are_board_errors(relations, message):
    with pytest.raises(BoardError, match=message):
        Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2), relations=relations)


def test_relations_need_integer_labels():
    with pytest.raises(BoardError, match="integer labels"):
        Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), ("a", "b"), shape=(2, 2),
              relations=[Relation("ratio", (0, 1))])


def test_symmetric_pairs_are_one_relation():
    board = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2),
                  relations=[Relation("consecutive", (1, 0)), Relation("consecutive", (0, 1))])
    assert board.relations == (Relation("consecutive", (0, 1)),)


# ---------------------------------------------------------------- a kind of one's own
@pytest.fixture
def apart():
    """The worked example of docs/extending.md: labels differ by at least k."""
    kind = register(apart_kind())
    yield kind
    unregister("apart")


def _solved_by(name: str, rels: list[Relation]) -> None:
    """A 4x4 Latin square with ``rels``, solved by ``name`` as the oracle counts it."""
    board = Board(16, latin_square(4).asterisms, (1, 2, 3, 4), shape=(4, 4), relations=rels)
    expected = brute_force_count(board)
    assert expected > 0
    cls = REGISTRY[name]
    limit = None if cls.complete and "enumerate" in cls.capabilities else 1
    result = _run(name, board, limit)
    for sol in result.solutions:
        assert verify(board, sol) == []
    if cls.complete and limit is None:
        assert result.n_solutions == expected


@pytest.fixture
def arrow():
    """The worked example of docs/extending.md: an n-ary kind, the first label is the
    sum of the others (an Arrow Sudoku's circle and arrow)."""
    kind = register(RelationKind(
        "arrow", lambda v, p: v[0] == sum(v[1:]), arity=None, symmetric=False,
        description="the first label is the sum of the others"))
    yield kind
    unregister("arrow")


@pytest.mark.parametrize("name", BACKENDS)
def test_a_kind_registered_in_a_test_is_solved_by_every_backend(name, apart):
    _solved_by(name, [Relation("apart", (r * 4 + c, r * 4 + c + 1), (("k", 2),))
                      for r in range(4) for c in range(3) if (r + c) % 2 == 0])


@pytest.mark.parametrize("name", BACKENDS)
def test_an_nary_kind_registered_in_a_test_is_solved_by_every_backend(name, arrow):
    _solved_by(name, [Relation("arrow", (0, 4, 8)), Relation("arrow", (7, 3, 2)),
                      Relation("arrow", (13, 9, 14))])


def test_registry_records_are_complete():
    for kind in RELATIONS.values():
        assert kind.key and kind.description
        assert kind.arity in (2, None)
