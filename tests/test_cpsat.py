"""The cpsat backend on every relation kind: counts against the brute-force oracle.

The small random boards with relations it shares with ``tests/test_sat.py`` are
in ``tests/strategies.py`` (:data:`RELATION_CASES`).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from futocp.backends.cpsat import AUTO_CAGE, CAGE_ENCODINGS, CpsatBackend, label_offset
from futocp.board import Board
from futocp.errors import UsageError
from futocp.families import latin_square
from futocp.model import build_model
from futocp.relations import Relation as Rel
from futocp.relations import register, unregister
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import RELATION_CASES, apart_board, odd_labels_board
from .strategies import apart_kind as make_apart_kind
from .strategies import relation_case_board as relation_board
from .strategies import relation_case_params as relation_boards

pytestmark = pytest.mark.skipif(CpsatBackend.available() is not True,
                                reason="ortools is not installed")

FORMULATIONS = ("integer", "boolean")


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
    kind = register(make_apart_kind("apart-test", gap=2))
    yield kind
    unregister(kind.name)


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


# ------------------------------------------------------------ parameters by size, import
def test_tuning_options_are_accepted_and_set_by_size() -> None:
    from futocp.backends.cpsat import TUNABLE, tuned_parameters

    opts = CpsatBackend.parse_options({})
    small, large = build_model(latin_square(4)), build_model(latin_square(30))
    assert set(tuned_parameters(small, opts)) == {p for p, _ in TUNABLE.values()}
    assert tuned_parameters(large, opts) == {}
    on = CpsatBackend.parse_options({"presolve": "on", "probing": "on"})
    assert set(tuned_parameters(small, on)) == {"symmetry_level", "linearization_level"}
    off = CpsatBackend.parse_options({"presolve": "off", "small_literals": "0"})
    assert tuned_parameters(small, off) == {"cp_model_presolve": False}
    assert tuned_parameters(large, off) == {"cp_model_presolve": False}
    with pytest.raises(UsageError):
        CpsatBackend.parse_options({"presolve": "maybe"})


@pytest.mark.parametrize("how", ["auto", "on", "off"])
def test_tuning_options_solve_and_count(how: str) -> None:
    board = latin_square(4, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    result = CpsatBackend().solve(build_model(board), limit=None, presolve=how, probing=how,
                                  symmetry=how, linearization=how)
    check_count(board, result, 576 // 4)


def test_cp_model_import_defers_pandas_and_pandas_still_works() -> None:
    """In a fresh interpreter: solving does not import pandas; cp_model's pandas
    helpers still work afterwards, with the real pandas."""
    pytest.importorskip("pandas")
    code = (
        "import sys\n"
        "from futocp.backends.cpsat import CpsatBackend, import_cp_model\n"
        "from futocp.families import latin_square\n"
        "from futocp.model import build_model\n"
        "r = CpsatBackend().solve(build_model(latin_square(3)))\n"
        "assert r.status.value == 'sat', r\n"
        "print('pandas' in sys.modules)\n"
        "import pandas\n"
        "cp = import_cp_model()\n"
        "s = cp.CpModel().new_int_var_series('x', pandas.Index(range(3)), 0, 5)\n"
        "print(isinstance(s, pandas.Series), cp.pd.Series is pandas.Series)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True", "True"]


def test_a_seed_keeps_presolve_where_the_variables_are_permuted() -> None:
    from futocp.backends.cpsat import tuned_parameters

    small = build_model(latin_square(4))
    opts = CpsatBackend.parse_options({})
    assert "cp_model_presolve" not in tuned_parameters(small, opts, seed=3)
    assert "symmetry_level" in tuned_parameters(small, opts, seed=3)
    off = CpsatBackend.parse_options({"presolve": "off"})
    assert tuned_parameters(small, off, seed=3)["cp_model_presolve"] is False
