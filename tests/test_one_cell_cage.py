"""A Killer cage of one cell: a given in disguise (its cell holds the sum).

Published Killer puzzles have them. They are read and written by every
format that holds cages, the Model makes them givens (in every filtering
mode), every backend that declares cages solves them with each of its cage
encodings, and verify() judges them. Counts come from the brute-force oracle.
"""

from __future__ import annotations

import json

import pytest

from futocp import formats
from futocp.backends import REGISTRY, get_backend
from futocp.board import Board
from futocp.errors import BoardError, InputError
from futocp.families import check_relations, killer_sudoku
from futocp.model import Fixed, build_model
from futocp.relations import Relation
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import backend_params

DOC = {"kind": "killer-sudoku", "box": [2, 2],
       "givens": [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
       "cages": [{"sum": 3, "cells": [[0, 0]]}, {"sum": 3, "cells": [[0, 1], [0, 2]]},
                 {"sum": 1, "cells": [[3, 3]]}]}


def _board(doc: dict | None = None) -> Board:
    return formats.loads(json.dumps(doc or DOC), "json")


def _cage(cell: int, total: int) -> Relation:
    return Relation("cage", (cell,), (("sum", total),))


# ------------------------------------------------------------------ reading and writing
def test_a_one_cell_cage_is_read():
    board = _board()
    assert Relation("cage", (0,), (("sum", 3),)) in board.relations
    assert brute_force_count(board) == 9


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_a_one_cell_cage_round_trips(fmt):
    board = _board()
    text = formats.dumps(board, fmt)
    again = formats.loads(text, fmt)
    assert again.relations == board.relations and again.clues == board.clues


def test_a_plain_board_document_keeps_it():
    board = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2),
                  relations=[_cage(3, 2)])
    again = formats.loads(formats.dumps(board, "json"), "json")
    assert again.relations == (_cage(3, 2),)


def test_check_relations_accepts_one_cell_and_refuses_none():
    board = killer_sudoku("2x2")
    check_relations(board, [_cage(5, 4)])
    with pytest.raises(BoardError, match="names no cell"):
        check_relations(board, [Relation("cage", (), (("sum", 4),))])
    with pytest.raises(BoardError, match="names no cell"):
        Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2),
              relations=[Relation("cage", (), (("sum", 1),))])
    with pytest.raises(BoardError, match="names 2"):  # a binary kind still needs two
        check_relations(board, [Relation("less", (5,))])


def test_a_reader_names_the_bad_one_cell_cage():
    doc = {**DOC, "cages": [{"sum": 3, "cells": [[0, 0]]}, {"sum": 2, "cells": [[0, 0]]}]}
    with pytest.raises(InputError, match="overlap"):
        _board(doc)


# ------------------------------------------------------------------ the Model
@pytest.mark.parametrize("filtering", ["lists", "none", "gac"])
def test_the_model_makes_it_a_given(filtering):
    model = build_model(_board(), filtering)
    assert model.conflict is None
    assert model.domain(0) == [model.index_of(3)] and model.domain(15) == [model.index_of(1)]
    assert Fixed(0, model.index_of(3)) in model.fixed
    assert Fixed(15, model.index_of(1)) in model.fixed
    assert len(model.cages) == 3  # the relation stays (writers, verify, encodings)
    if filtering == "none":
        assert model.domain(5) == [0, 1, 2, 3]  # nothing else is filtered


def test_a_given_is_not_counted_as_a_cell_the_filtering_fixed():
    plain = build_model(killer_sudoku("2x2"))
    caged = build_model(Board(**{**_fields(killer_sudoku("2x2")), "relations": (_cage(0, 3),)}))
    assert caged.stats["fixed_cells"] == plain.stats["fixed_cells"] == 0
    assert caged.stats["removed_values"] > 0  # its peers lost the 3


def _fields(board: Board) -> dict:
    return {"n_cells": board.n_cells, "asterisms": board.asterisms, "labels": board.labels,
            "shape": board.shape, "kind": board.kind, "params": board.params}


@pytest.mark.parametrize("filtering", ["lists", "none"])
@pytest.mark.parametrize("total, reason", [(7, "sum to 7"), (0, "sum to 0")])
def test_a_sum_that_is_no_label_is_unsat_with_reason(filtering, total, reason):
    board = _board({**DOC, "cages": [{"sum": total, "cells": [[1, 1]]}]})
    model = build_model(board, filtering)
    assert reason in model.conflict
    for name in ("listcolor", "bt", "fc", "mac", "colorfutoshiki"):
        result = get_backend(name).solve(model)
        assert result.status is Status.UNSAT and reason in result.stats["reason"], name


def test_a_clue_against_its_cage_is_unsat():
    doc = {**DOC, "givens": [[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}
    model = build_model(_board(doc), "none")
    assert "clues break the relation cage" in model.conflict
    agree = {**DOC, "givens": [[3, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}
    assert build_model(_board(agree), "none").conflict is None


# ------------------------------------------------------------------ verify
def test_verify_judges_it():
    board = _board()
    solution = get_backend("listcolor").solve(build_model(board)).solutions[0]
    assert verify(board, solution) == [] and solution[0] == 3 and solution[15] == 1
    grid = list(solution)
    grid[15], grid[14] = grid[14], grid[15]  # row 3 stays a permutation; the cage breaks
    broken = [v for v in verify(board, grid) if v.kind == "cage"]
    assert broken and "sum=1" in str(broken[0])


# ------------------------------------------------------------------ every backend
CAGE_OPTIONS = [
    ("cpsat", {"cage": "sum"}), ("cpsat", {"cage": "combinations"}), ("cpsat", {"cage": "both"}),
    ("cpsat", {"formulation": "boolean"}),
    ("sat", {"cage": "combinations"}), ("sat", {"cage": "pb"}),
    ("listcolor", {"core": "python"}), ("listcolor", {"core": "auto", "lookahead": "always"}),
    ("pyconstraint", {"relations": "function"}),
    ("minizinc", {"relations": "table"}), ("minizinc", {"relations": "arithmetic"}),
]


def _params(pairs):
    out = []
    for name, opts in pairs:
        ok = REGISTRY[name].available()
        marks = [] if ok is True else [pytest.mark.skip(reason=f"{name}: {ok}")]
        out.append(pytest.param(name, opts, marks=marks,
                                id=name + "-" + "-".join(f"{k}={v}" for k, v in opts.items())))
    return out


def _count(name: str, board: Board, filtering: str, **options) -> None:
    result = get_backend(name).solve(build_model(board, filtering), limit=None, time_limit=60,
                                     **options)
    assert result.status is Status.SAT and result.exhausted, (name, result.stats)
    assert result.n_solutions == brute_force_count(board), name
    assert all(verify(board, s) == [] for s in result.solutions)


@pytest.mark.parametrize("filtering", ["lists", "none"])
@pytest.mark.parametrize("name", backend_params(complete_only=True))
def test_every_complete_backend_counts_it(name, filtering):
    if "cage" not in REGISTRY[name].supported():
        pytest.skip(f"{name} does not declare cages")
    _count(name, _board(), filtering)


@pytest.mark.parametrize("name, options", _params(CAGE_OPTIONS))
def test_every_cage_encoding_counts_it(name, options):
    _count(name, _board(), "none", **options)


def test_the_compiled_and_python_searches_agree_on_it():
    from futocp.backends.listcolor import core_available

    if not core_available():
        pytest.skip("the compiled core is not built")
    model = build_model(_board(), "none")
    runs = [get_backend("listcolor").solve(model, limit=None, core=core) for core in
            ("compiled", "python")]
    assert runs[0].stats["core"] == "compiled" and runs[1].stats["core"] == "python"
    assert runs[0].solutions == runs[1].solutions
    assert runs[0].stats["nodes"] == runs[1].stats["nodes"]
