"""Board invariants, the Model and its list filtering, and the verifier."""

from __future__ import annotations

import pytest

from futocp.board import Board
from futocp.errors import BoardError, UsageError
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.model import Count, Fixed, Permutation, Relation, build_model
from futocp.verify import verify


def test_board_is_hashable_and_normalised():
    a = latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    b = latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert a.coords(5) == (1, 2) and a.cell(1, 2) == 5


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_cells=4, asterisms=((0, 1, 2),), labels=(1, 2)), "asterism 0 has 3 cells"),
    (dict(n_cells=4, asterisms=((0, 9),), labels=(1, 2)), "outside"),
    (dict(n_cells=4, asterisms=((0, 1),), labels=(1, "a")), "all integers or all strings"),
    (dict(n_cells=4, asterisms=((0, 1),), labels=(1, 2), clues=((0, 3),)), "not a label"),
    (dict(n_cells=4, asterisms=((0, 1),), labels=("a", "b"), less=((0, 1),)), "integer labels"),
    (dict(n_cells=4, asterisms=((0, 1),), labels=(1, 2), less=((0, 1), (1, 2), (2, 0))), "cycle"),
    (dict(n_cells=4, asterisms=((0, 1),), labels=(1, 2), inscription={1}), "no clue"),
])
def test_board_rejects_inconsistent_definitions(kwargs, message):
    with pytest.raises(BoardError, match=message):
        Board(**kwargs)


def test_futoshiki_needs_neighbours():
    with pytest.raises(BoardError, match="not neighbours"):
        futoshiki(3, less=[((0, 0), (1, 1))])
    assert latin_square(3, less=[((0, 0), (1, 1))]).less == ((0, 4),)


def test_big_board_is_cheap():
    b = latin_square(100)
    assert b.n_cells == 10_000 and len(b.asterisms) == 200
    m = build_model(b, filtering="none")
    assert len(m.permutations) == 200


def test_model_constraints_and_filtering():
    b = futoshiki(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((0, 1), (0, 2))])
    m = build_model(b)
    assert m.values == (1, 2, 3)
    assert {type(c) for c in m.constraints} == {Permutation, Relation, Fixed}
    # 1 is fixed at (0,0); (0,1) < (0,2) in {2,3}: (0,1)=2, (0,2)=3.
    assert m.domain(1) == [1] and m.domain(2) == [2]
    assert m.stats["removed_values"] > 0 and m.conflict is None
    none = build_model(b, filtering="none")
    assert none.domain(1) == [0, 1, 2] and none.domain(0) == [0]


def test_model_count_for_repeated_labels():
    b = Board(4, ((0, 1, 2, 3),), (1, 1, 2, 2), clues=((0, 1), (1, 1)))
    m = build_model(b)
    assert m.counts == (Count((0, 1, 2, 3), (2, 2)),)
    assert m.domain(2) == [1] and m.domain(3) == [1]
    assert "multiset" in m.features


@pytest.mark.parametrize("board, reason", [
    (latin_square(3, [[1, 1, 0], [0, 0, 0], [0, 0, 0]]), "holds 1 2 times"),
    (futoshiki(3, [[2, 1, 0], [0, 0, 0], [0, 0, 0]], less=[((0, 0), (0, 1))]), "break the relation less"),
])
def test_clue_conflicts_are_unsat_reasons(board, reason):
    for filtering in ("lists", "none"):
        assert reason in build_model(board, filtering).conflict


def test_filtering_detects_empty_list():
    b = latin_square(2, [[1, 0], [0, 1]])  # (0,1) must be 2 and (1,0) must be 2: fine
    assert build_model(b).conflict is None
    bad = latin_square(2, [[1, 0], [0, 2]])  # (0,1) = 2 clashes with (1,1) = 2
    assert "empty" in build_model(bad).conflict


def test_unknown_filtering():
    with pytest.raises(UsageError, match="unknown filtering"):
        build_model(latin_square(2), filtering="ac3x")


def test_verify_reports_each_rule():
    b = futoshiki(2, [[1, 0], [0, 0]], less=[((1, 0), (1, 1))])
    assert verify(b, [[1, 2], [2, 1]])[0].kind == "less"
    assert verify(b, [1, 2, 1, 2])  # columns repeat
    assert {v.kind for v in verify(b, [2, 1, 1, 2])} == {"clue"}
    assert verify(b, [1, 2, 3])[0].kind == "shape"
    assert verify(b, [1, 2, 9, 1])[0].kind == "label"
    assert verify(latin_square(2, [[1, 0], [0, 0]]), [[1, 2], [2, 1]]) == []


def test_verify_multiset():
    b = Board(16, tuple(grid_lines(4, 4)), (1, 1, 2, 2), shape=(4, 4))
    good = [1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1]
    assert verify(b, good) == []
    assert verify(b, [1] * 16)
