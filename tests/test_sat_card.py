"""The sat backend's cardinality encoding chosen by list length (``card=auto``)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from futocp.backends.sat import (
    AMO_ONLY,
    AUTO_CARD_LONG,
    AUTO_LONG_PAIRWISE_CLAUSES,
    AUTO_PAIRWISE_MAX,
    CARD_CHOICES,
    CARD_ENCODINGS,
    LINEAR_ENCODINGS,
    MAX_PAIRWISE_CLAUSES,
    MULTI_FALLBACK,
    SatBackend,
    SatFormulation,
    card_for,
    estimate_cnf,
    long_lists,
    pairwise_size,
)
from futocp.backends.sat_encode import _groups
from futocp.errors import UsageError
from futocp.export import decode, to_dimacs
from futocp.families import latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.result import Status
from futocp.verify import verify

from .oracle import brute_force_count
from .strategies import all_solutions, multiset_board

pytest.importorskip("pysat", reason="python-sat is not installed")

QWH = Path(__file__).resolve().parent.parent / "instances" / "qwh"


def test_the_defaults_are_the_measured_ones() -> None:
    defaults = {o.name: o.default for o in SatBackend.options}
    assert (defaults["card"], defaults["pairwise_max"], defaults["card_long"]) == \
        ("auto", AUTO_PAIRWISE_MAX, "auto")
    # chosen by benchmarks/sat_encodings.py threshold (docs/performance.md)
    assert (AUTO_PAIRWISE_MAX, AUTO_CARD_LONG) == (10, "seqcounter")
    assert CARD_CHOICES == ("auto", *CARD_ENCODINGS)
    assert "pairwise" not in LINEAR_ENCODINGS and "auto" not in LINEAR_ENCODINGS


def test_auto_picks_by_length() -> None:
    assert card_for("auto", AUTO_PAIRWISE_MAX) == "pairwise"
    assert card_for("auto", AUTO_PAIRWISE_MAX + 1) == AUTO_CARD_LONG
    for n in range(2, 101):
        assert card_for("auto", n) == ("pairwise" if n <= AUTO_PAIRWISE_MAX else AUTO_CARD_LONG)
        assert card_for("auto", n, pairwise_max=20, card_long="ladder") == \
            ("pairwise" if n <= 20 else "ladder")
        assert card_for("auto", n, pairwise_max=0, card_long="bitwise") == "bitwise"


def test_forced_encodings_stand_and_bounds_above_one_fall_back() -> None:
    for card in CARD_ENCODINGS:
        for n in (3, 12, 70):
            assert card_for(card, n) == card
            assert card_for(card, n, 2) == (MULTI_FALLBACK if card in AMO_ONLY else card)
    assert card_for("auto", 4, 2) == MULTI_FALLBACK  # pairwise holds bounds of 1 only
    assert card_for("auto", 40, 2, card_long="totalizer") == "totalizer"


def _constraints(form: SatFormulation) -> list[tuple[int, int]]:
    """(literals, bound) of every cardinality constraint of the cells and groups,
    read off the formulation's variables and constants."""
    out = [(len(pairs), 1) for pairs in form.cell_vars if len(pairs) > 1]
    model = form.model
    for cells, counts in _groups(model):
        for v in range(model.n_values):
            lits = [form.lit(c, v) for c in cells]
            need = (1 if counts is None else counts[v]) - sum(1 for lit in lits if lit is True)
            n = sum(1 for lit in lits if not isinstance(lit, bool))
            if 0 < need < n:
                out.append((n, need))
    return out


@pytest.mark.parametrize("pairwise_max", [0, 4, AUTO_PAIRWISE_MAX])
def test_each_constraint_gets_the_encoding_of_its_length(pairwise_max: int) -> None:
    board = read(QWH / "lsencode" / "qwh.order30.holes316.pls")
    # card_long named: card_long=auto may encode every list pairwise (test_card_long_auto_*)
    form = SatBackend().compile(build_model(board), pairwise_max=pairwise_max,
                                card_long=AUTO_CARD_LONG, lists="filtered")
    expected = collections.Counter("pairwise" if n == 2 else card_for("auto", n, k, pairwise_max)
                                   for n, k in _constraints(form))
    assert form.stats["card_used"] == dict(expected)
    lengths = [n for n, _ in _constraints(form)]
    assert min(lengths) == 2 and max(lengths) == 12  # short and long lists both occur
    if pairwise_max == 4:
        assert set(expected) == {"pairwise", AUTO_CARD_LONG}


def test_the_clauses_follow_the_choice() -> None:
    model = build_model(latin_square(12))  # empty: 3 x 144 exactly-one over 12 literals
    default = SatBackend().compile(model)
    assert default.stats["card_used"] == {AUTO_CARD_LONG: 432}
    assert default.n_clauses == 432 * 33  # seqcounter: 3n - 3 clauses, n - 1 variables
    assert default.n_vars == 12 ** 3 + 432 * 11
    pairwise = SatBackend().compile(model, pairwise_max=12)
    assert pairwise.stats["card_used"] == {"pairwise": 432}
    assert pairwise.n_clauses == 432 * (1 + 66) and pairwise.n_vars == 12 ** 3
    assert SatBackend().compile(model, card="pairwise").n_clauses == pairwise.n_clauses
    assert SatBackend().compile(model, card_long="bitwise").stats["card_used"] == {"bitwise": 432}
    assert estimate_cnf(model)[:1] == (default.n_clauses,)
    assert estimate_cnf(model, "auto", 12)[:1] == (pairwise.n_clauses,)


def test_bad_auto_options() -> None:
    model = build_model(latin_square(3))
    with pytest.raises(UsageError, match="card_long"):
        SatBackend().solve(model, card_long="pairwise")
    with pytest.raises(UsageError, match="pairwise_max"):
        SatBackend().solve(model, pairwise_max="many")


# ------------------------------------------------------------ counts
@pytest.mark.parametrize("card_long", LINEAR_ENCODINGS)
def test_latin_square_counts_with_both_encodings(card_long: str) -> None:
    for n, count in ((1, 1), (2, 2), (3, 12), (4, 576)):
        for pairwise_max in (0, AUTO_PAIRWISE_MAX):
            r = all_solutions(latin_square(n), card_long=card_long, pairwise_max=pairwise_max)
            assert r.n_solutions == count, (n, pairwise_max)


@pytest.mark.parametrize("pairwise_max, used", [(0, {AUTO_CARD_LONG}),
                                                (3, {"pairwise", AUTO_CARD_LONG}),
                                                (4, {"pairwise"})])
def test_mixed_lengths_count_like_brute_force(pairwise_max: int, used: set[str]) -> None:
    # no filtering: a cell keeps 4 values, a row or column 3 cells for a clue's
    # value in its other line, 4 for the rest
    board = latin_square(4, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    # (enumeration runs CaDiCaL, for which card_long=auto is pairwise: name the long encoding)
    r = all_solutions(board, "none", pairwise_max=pairwise_max, simplify=False,
                      card_long=AUTO_CARD_LONG)
    assert r.n_solutions == brute_force_count(board) > 1
    assert set(r.stats["card_used"]) == used
    r = all_solutions(board, "none", pairwise_max=pairwise_max, simplify=False)
    assert r.n_solutions == brute_force_count(board) and set(r.stats["card_used"]) == {"pairwise"}
    ms = multiset_board()  # counts of 2: the fallback whatever the length
    r = all_solutions(ms, pairwise_max=pairwise_max, card_long="ladder")
    assert r.n_solutions == 90 and r.stats["card_multi"] == MULTI_FALLBACK


def test_dimacs_of_auto_names_its_choice() -> None:
    model = build_model(latin_square(4, [[1, 0, 0, 0]] + [[0] * 4] * 3))
    text = to_dimacs(model, pairwise_max=2)
    assert text.splitlines()[0].endswith(
        f"card auto less support pairwise_max 2 card_long {AUTO_CARD_LONG}")
    assert "card pairwise less support\n" in to_dimacs(model, card="pairwise")


# ------------------------------------------------------------ no refusals
def _qwh_files() -> list[Path]:
    return sorted((QWH / "lsencode").glob("*.pls")) + sorted((QWH / "csplib067").glob("*.dzn"))[:2]


@pytest.mark.parametrize("path", _qwh_files(), ids=lambda p: p.name)
def test_every_shipped_qwh_file_passes_the_guards(path: Path) -> None:
    board = read(path)
    model = build_model(board)
    backend = SatBackend()
    opts = backend.parse_options({})
    assert pairwise_size(model, AUTO_PAIRWISE_MAX) <= MAX_PAIRWISE_CLAUSES
    assert backend.check_memory(model, opts) is None
    mb = backend.estimate_mb(model, opts)
    assert mb is not None and mb < 2500  # the empty order-100 square: about 2.3 GB


@pytest.mark.parametrize("n", [60, 70])
def test_the_empty_60_and_70_squares_are_linear_and_fit(n: int) -> None:
    model = build_model(latin_square(n))
    assert pairwise_size(model) > MAX_PAIRWISE_CLAUSES  # what card=pairwise refuses
    assert pairwise_size(model, AUTO_PAIRWISE_MAX) == 0
    clauses, _, variables = estimate_cnf(model)
    assert clauses == 3 * n * n * (3 * n - 3)
    assert variables == n ** 3 + 3 * n * n * (n - 1)
    mb = SatBackend().estimate_mb(model, SatBackend().parse_options({}))
    assert mb is not None and mb < 1000


@pytest.mark.slow
def test_an_empty_order_45_square_is_encoded_and_solved() -> None:
    board = latin_square(45)
    r = SatBackend().solve(build_model(board), time_limit=300)
    assert r.status is Status.SAT and verify(board, r.solutions[0]) == []
    assert r.stats["card_used"] == {AUTO_CARD_LONG: 3 * 45 * 45}
    assert r.stats["clauses"] == 3 * 45 * 45 * (3 * 45 - 3)


def test_decode_reads_an_auto_cnf() -> None:
    board = latin_square(4)
    model = build_model(board)
    form = SatBackend().compile(model, pairwise_max=0)
    r = SatBackend().solve(model, pairwise_max=0)
    labels = r.solutions[0]
    true_vars = [var for c, pairs in enumerate(form.cell_vars) for v, var in pairs
                 if model.values[v] == labels[c]]
    answer = "SAT\n" + " ".join(map(str, true_vars)) + " 0\n"
    assert decode(board, to_dimacs(model, pairwise_max=0), answer) == labels


def test_card_long_auto_is_by_solver() -> None:
    model = build_model(latin_square(12))  # empty: every list has 12 literals
    for solver, used in (("kissat404", {AUTO_CARD_LONG: 432}), ("glucose42", {AUTO_CARD_LONG: 432}),
                         ("auto", {AUTO_CARD_LONG: 432}), ("cadical195", {"pairwise": 432})):
        form = SatBackend().compile(model, solver=solver)
        assert form.stats["card_used"] == used, solver
    forced = SatBackend().compile(model, solver="cadical195", card_long="ladder")
    assert forced.stats["card_used"] == {"ladder": 432}
    # past the budget, CaDiCaL's long lists take the counter too
    big = build_model(latin_square(45))
    assert pairwise_size(big) > AUTO_LONG_PAIRWISE_CLAUSES
    opts = SatBackend().parse_options({"solver": "cadical195"})
    assert long_lists(big, opts) == (AUTO_PAIRWISE_MAX, AUTO_CARD_LONG)
    r = SatBackend().solve(build_model(latin_square(12)), solver="cadical195")
    assert r.status is Status.SAT and r.stats["card_used"] == {"pairwise": 432}
