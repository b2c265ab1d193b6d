"""The sat backend and the DIMACS / OPB exports: encodings, counts, limits, decoding."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from futocp.backends.sat import (
    AUTO_SOLVERS,
    CAGE_ENCODINGS,
    CARD_ENCODINGS,
    LESS_ENCODINGS,
    SatBackend,
    SatFormulation,
    _solver_names,
    pb_available,
)
from futocp.board import Board
from futocp.errors import InputError, UnsupportedError, UsageError
from futocp.export import EXPORTERS, decode, export, read_var_map, to_dimacs, to_opb
from futocp.families import futoshiki, latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.relations import Relation as Rel
from futocp.relations import register, unregister
from futocp.result import Status
from futocp.verify import verify

from .strategies import (
    RELATION_CASES,
    all_solutions,
    apart_board,
    brute_force_count,
    multiset_board,
    odd_labels_board,
    relation_case_board,
    relation_case_params,
    string_square,
)
from .strategies import apart_kind as make_apart_kind

pytest.importorskip("pysat", reason="python-sat is not installed")

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def pigeonhole(k: int) -> Board:
    """k + 1 cells pairwise in a common asterism, k labels: unsatisfiable.

    Each pair of the k + 1 "pigeons" shares an asterism padded with k - 2 fresh
    cells, so list filtering sees nothing and resolution needs exponential size.
    """
    asterisms = []
    nxt = k + 1
    for i, j in itertools.combinations(range(k + 1), 2):
        asterisms.append((i, j, *range(nxt, nxt + k - 2)))
        nxt += k - 2
    return Board(nxt, tuple(asterisms), tuple(range(1, k + 1)))


def small_futoshiki() -> Board:
    return futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                     less=[((0, 0), (0, 1)), ((1, 0), (2, 0)), ((3, 3), (3, 2)),
                           ((2, 2), (2, 3))])


# ------------------------------------------------------------ counts
@pytest.mark.parametrize("card", CARD_ENCODINGS)
@pytest.mark.parametrize("less", LESS_ENCODINGS)
def test_every_encoding_counts(card: str, less: str) -> None:
    assert all_solutions(latin_square(4), card=card, less=less).n_solutions == 576
    fut = small_futoshiki()
    expected = brute_force_count(fut)
    assert expected > 1
    for filtering in ("lists", "none"):
        assert all_solutions(fut, filtering, card=card, less=less).n_solutions == expected
    ms = multiset_board()
    assert all_solutions(ms, card=card, less=less).n_solutions == 90
    with_clues = ms.with_clues({0: 1, 5: 2, 10: 2})
    assert all_solutions(with_clues, "none", card=card).n_solutions == brute_force_count(with_clues)


def test_simplify_does_not_change_counts() -> None:
    board = latin_square(5, [[1, 2, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 3, 0, 0],
                             [0, 0, 0, 0, 0], [0, 0, 0, 0, 5]])
    on = all_solutions(board, "none", simplify=True)
    off = all_solutions(board, "none", simplify=False)
    assert sorted(on.solutions) == sorted(off.solutions)
    assert on.stats["clauses"] <= off.stats["clauses"]


@pytest.mark.parametrize("solver", ["cadical195", "glucose4", "minisat22", "maplechrono",
                                    "kissat404"])
def test_solvers_agree(solver: str) -> None:
    assert all_solutions(small_futoshiki(), solver=solver).n_solutions == \
        brute_force_count(small_futoshiki())


def test_string_labels() -> None:
    assert all_solutions(string_square()).n_solutions == 12


def test_limit_and_stats() -> None:
    r = SatBackend().solve(build_model(latin_square(4)), limit=5)
    assert r.status is Status.SAT and r.n_solutions == 5 and not r.exhausted
    assert len(set(r.solutions)) == 5
    for key in ("variables", "clauses", "conflicts", "decisions", "propagations",
                "build_s", "solve_s", "wall_s"):
        assert key in r.stats


def test_fully_fixed_board_is_exhausted_after_one() -> None:
    board = latin_square(3, [[1, 2, 3], [2, 3, 1], [0, 0, 0]])
    r = SatBackend().solve(build_model(board), limit=None)
    assert r.n_solutions == 1 and r.exhausted and verify(board, r.solutions[0]) == []


# ------------------------------------------------------------ unsat and time limit
def test_unsat() -> None:
    r = SatBackend().solve(build_model(pigeonhole(4)), limit=None)
    assert r.status is Status.UNSAT and r.exhausted
    for name in ("6x6-unsat-chain.json", "7x7-unsat-search.json"):
        board = read(INSTANCES / "futoshiki" / name)
        for filtering in ("lists", "none"):
            r = SatBackend().solve(build_model(board, filtering), less="order")
            assert r.status is Status.UNSAT


@pytest.mark.parametrize("solver", ["auto", "glucose4"])
def test_time_limit_returns_unknown(solver: str) -> None:
    model = build_model(pigeonhole(10))
    r = SatBackend().solve(model, time_limit=0.3, solver=solver)
    assert r.status is Status.UNKNOWN and not r.exhausted and r.n_solutions == 0
    if solver != "auto":  # auto picks by size under a time limit (tests/test_limits.py)
        assert r.stats["solver"] == solver


def test_auto_solver_by_case() -> None:
    model = build_model(latin_square(3))
    picks = {}
    for key, kw in {"one": {}, "many": {"limit": None}, "limited": {"time_limit": 30}}.items():
        r = SatBackend().solve(model, **kw)
        assert r.status is Status.SAT
        picks[key] = r.stats["solver"]
    have = set(_solver_names())
    assert picks == {k: next(n for n in v if n in have) for k, v in AUTO_SOLVERS.items()}


@pytest.mark.parametrize("solver", ["cadical195", "kissat404"])
def test_uninterruptible_solver_honours_a_time_limit(solver: str) -> None:
    # python-sat cannot interrupt them: they run in a child killed at the deadline
    r = SatBackend().solve(build_model(latin_square(3)), time_limit=5, solver=solver)
    assert r.status is Status.SAT and r.stats["solver"] == solver


def test_forced_pairwise_refuses_a_huge_cnf() -> None:
    model = build_model(latin_square(60))  # empty: 60^2 cells x 60 values, ~19 M pairs
    with pytest.raises(UnsupportedError, match="card=pairwise .*card=auto.*card=seqcounter"):
        SatBackend().compile(model, card="pairwise")
    with pytest.raises(UnsupportedError, match="pairwise_max=60 .*card=auto"):
        SatBackend().compile(model, pairwise_max=60)
    with pytest.raises(UsageError, match="pairwise_max"):
        SatBackend().compile(model, pairwise_max=-1)


def test_bad_options() -> None:
    with pytest.raises(UsageError, match="no such solver"):
        SatBackend().solve(build_model(latin_square(3)), solver="nosuchsat")
    with pytest.raises(UsageError):
        SatBackend().solve(build_model(latin_square(3)), card="native")


# ------------------------------------------------------------ formulation
def test_compile_is_inspectable() -> None:
    board = latin_square(3, [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    form = SatBackend().compile(build_model(board, "none"), simplify=False)
    assert isinstance(form, SatFormulation)
    assert form.fixed == {0: 0}
    # no variable for the fixed cell; without filtering the other cells keep all 3 values
    assert all(c != 0 for c, _ in form.var_map.values())
    assert len(form.var_map) == 8 * 3
    assert form.pool.obj2id[("x", 1, 2)] in form.var_map
    assert form.cnf.nv >= len(form.var_map)
    filtered = SatBackend().compile(build_model(board), simplify=False)
    assert len(filtered.var_map) == 4 * 2 + 4 * 3  # row 0 / column 0 lose label 1


# ------------------------------------------------------------ DIMACS
def _solve_dimacs(text: str) -> str:
    """Solve a DIMACS text with a python-sat solver directly; answer a 'v' line."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cnf = CNF(from_string=text)
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        return "s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n"


@pytest.mark.parametrize("name,options", [
    ("5x5-tricky-01.json", {}),
    ("6x6-extreme-01.json", {"less": "order", "card": "seqcounter"}),
    ("7x7-tricky-01.json", {"simplify": False, "card": "totalizer"}),
])
def test_dimacs_round_trip(name: str, options: dict) -> None:
    board = read(INSTANCES / "futoshiki" / name)
    text = to_dimacs(build_model(board), **options)
    header = next(line for line in text.splitlines() if line.startswith("p cnf"))
    n_vars, n_clauses = map(int, header.split()[2:])
    body = [line for line in text.splitlines() if line and line[0] not in "cp"]
    assert len(body) == n_clauses
    assert max(abs(int(t)) for line in body for t in line.split()) <= n_vars
    values = decode(board, text, _solve_dimacs(text))
    assert verify(board, values) == []


def test_dimacs_multiset_and_strings() -> None:
    for board in (multiset_board().with_clues({0: 2}), string_square()):
        text = export(build_model(board), "dimacs")
        assert verify(board, decode(board, text, _solve_dimacs(text))) == []


def test_decode_errors() -> None:
    board = latin_square(2, [[1, 0], [0, 0]])
    text = to_dimacs(build_model(board, "none"), simplify=False)
    comments = "\n".join(line for line in text.splitlines() if line.startswith("c"))
    assert decode(board, comments, "-1 2 -3 4 5 -6") == (1, 2, 2, 1)
    assert decode(build_model(board), text, "v -x1 x2 -x3 x4 x5 -x6") == (1, 2, 2, 1)
    with pytest.raises(InputError, match=r"<model>:2:6: expected a literal"):
        decode(board, text, "s SATISFIABLE\nv -1 two 3 0")
    with pytest.raises(InputError, match="UNSATISFIABLE"):
        decode(board, text, "s UNSATISFIABLE\n")
    with pytest.raises(InputError, match="2 labels"):
        decode(board, text, "v 1 2 -3 4 5 -6 0")
    with pytest.raises(InputError, match="no label"):
        decode(board, text, "v -1 -2 -3 4 5 -6 0")
    with pytest.raises(InputError, match="both true and false"):
        decode(board, text, "v 1 -1 0")
    with pytest.raises(InputError, match="no futocp variable map"):
        decode(board, "p cnf 1 1\n1 0\n", "v 1 0")
    with pytest.raises(InputError, match="4 cells, the board has 9"):
        decode(latin_square(3), text, "v 1 0")
    with pytest.raises(InputError, match=":3:1: malformed variable map"):
        decode(board, text.replace("c var 2 = cell 1", "c var 2 = celll 1"), "v 1 0")


# ------------------------------------------------------------ OPB
_TERM = re.compile(r"([+-]\d+) x(\d+)")


def _parse_opb(text: str) -> tuple[int, int, list[tuple[list[tuple[int, int]], str, int]]]:
    head = text.splitlines()[0]
    m = re.match(r"\* #variable= (\d+) #constraint= (\d+)$", head)
    assert m, head
    constraints = []
    for line in text.splitlines()[1:]:
        if line.startswith("*"):
            continue
        lhs, op, rhs = re.match(r"(.*) (=|>=) (-?\d+) ;$", line).groups()
        terms = [(int(k), int(v)) for k, v in _TERM.findall(lhs)]
        assert _TERM.sub("", lhs).strip() == ""
        constraints.append((terms, op, int(rhs)))
    return int(m.group(1)), int(m.group(2)), constraints


def _satisfies(constraints, true_vars: set[int]) -> list[int]:
    """Indices of the OPB constraints the assignment breaks."""
    bad = []
    for i, (terms, op, rhs) in enumerate(constraints):
        lhs = sum(k for k, var in terms if var in true_vars)
        if not (lhs == rhs if op == "=" else lhs >= rhs):
            bad.append(i)
    return bad


@pytest.mark.parametrize("name", ["5x5-tricky-01.json", "6x6-tricky-01.yaml"])
def test_opb_structure_and_known_solution(name: str) -> None:
    board = read(INSTANCES / "futoshiki" / name)
    model = build_model(board)
    form = SatBackend().compile(model)
    text = to_opb(model)
    n_vars, n_cons, constraints = _parse_opb(text)
    assert n_cons == len(constraints) > 0
    assert n_vars == len(form.var_map)
    assert {var for terms, _, _ in constraints for _, var in terms} <= set(range(1, n_vars + 1))
    n_free = sum(1 for pairs in form.cell_vars if pairs)
    assert sum(1 for terms, op, _ in constraints if op == ">=") <= len(board.less)
    assert len(constraints) >= n_free
    solution = SatBackend().solve(model).solutions[0]
    assert verify(board, solution) == []
    index = {label: i for i, label in enumerate(model.values)}
    true_vars = {var for var, (c, v) in form.var_map.items() if index[solution[c]] == v}
    assert _satisfies(constraints, true_vars) == []
    # the evaluator can fail: a broken assignment violates some constraint
    c = next(c for c, pairs in enumerate(form.cell_vars) if len(pairs) > 1)
    (v0, x0), (v1, x1) = form.cell_vars[c][:2]
    flipped = (true_vars - {x0, x1}) | ({x1} if x0 in true_vars else {x0})
    assert _satisfies(constraints, flipped)
    # the map in the comments decodes the same assignment
    assert decode(board, text, " ".join(f"x{v}" for v in sorted(true_vars))) == solution


def test_opb_less_inequalities() -> None:
    board = futoshiki(3, less=[((0, 0), (0, 1))])
    text = to_opb(build_model(board, "none"), simplify=False)
    _, _, constraints = _parse_opb(text)
    ineq = [c for c in constraints if c[1] == ">="]
    assert len(ineq) == 1
    terms, _, rhs = ineq[0]
    assert rhs == 1 and sorted(k for k, _ in terms) == [-2, -1, 1, 2]


def test_exporters_table() -> None:
    model = build_model(small_futoshiki())
    assert set(EXPORTERS) >= {"dimacs", "opb", "cpsat"}
    assert "variables" in export(model, "cpsat")
    with pytest.raises(UsageError, match="unknown export format"):
        export(model, "xml")


# ------------------------------------------------------------ relations
def _relation_board(case: tuple) -> Board:
    return relation_case_board(*case)


def _relation_params() -> list:
    return relation_case_params()


PB = pb_available() is True
CAGE_OPTIONS = [pytest.param(c, marks=[] if c != "pb" or PB else
                             [pytest.mark.skip(reason=str(pb_available()))])
                for c in CAGE_ENCODINGS]


def check_count(board: Board, result, expected: int) -> None:
    assert result.exhausted
    assert result.n_solutions == expected
    assert len(set(result.solutions)) == result.n_solutions
    for sol in result.solutions:
        assert verify(board, sol) == [], sol
    assert result.status is (Status.SAT if expected else Status.UNSAT)


@pytest.mark.parametrize("case", _relation_params())
@pytest.mark.parametrize("cage", CAGE_OPTIONS)
@pytest.mark.parametrize("filtering", ["lists", "none"])
def test_relation_counts(case: tuple, cage: str, filtering: str) -> None:
    board = _relation_board(case)
    model = build_model(board, filtering)
    expected = brute_force_count(board)
    for less in LESS_ENCODINGS:
        for simplify in (True, False):
            r = SatBackend().solve(model, limit=None, cage=cage, less=less, simplify=simplify)
            check_count(board, r, expected)


@pytest.mark.parametrize("card", CARD_ENCODINGS)
@pytest.mark.parametrize("cage", CAGE_OPTIONS)
def test_relation_counts_every_card(card: str, cage: str) -> None:
    """Every card encoding carries the all-different groups and the
    combinations' exactly-one: the boards with cages, both filterings."""
    for case in [c for c in RELATION_CASES if c[0] in ("cage", "mixed", "sudoku-cage")]:
        board = _relation_board(case)
        for filtering in ("lists", "none"):
            r = SatBackend().solve(build_model(board, filtering), limit=None, card=card,
                                   cage=cage, solver="cadical195")
            check_count(board, r, brute_force_count(board))


@pytest.mark.parametrize("cage", CAGE_OPTIONS)
def test_labels_not_index_plus_offset(cage: str) -> None:
    board = odd_labels_board()
    for filtering in ("lists", "none"):
        r = SatBackend().solve(build_model(board, filtering), limit=None, cage=cage)
        check_count(board, r, brute_force_count(board))


def test_relation_structure() -> None:
    board = replace(latin_square(4), relations=(
        Rel("consecutive", (0, 1)), Rel("cage", (5, 6, 9), (("sum", 6),))))
    model = build_model(board, "none")
    form = SatBackend().compile(model, simplify=False, cage="combinations")
    combos = [obj for obj in form.pool.obj2id if obj[0] == "comb"]
    assert len(combos) == 1  # {1, 2, 3} is the only set of 3 labels summing to 6
    # consecutive: x[0,v] -> x[1,v-1] | x[1,v+1], and back
    x = form.pool.obj2id
    assert sorted([-x["x", 0, 0], x["x", 1, 1]]) in [sorted(cl) for cl in form.cnf.clauses]
    assert form.map_comments()[0].endswith("cage combinations")
    stats = SatBackend().solve(model, cage="combinations").stats
    assert stats["cage"] == "combinations"


def test_capabilities() -> None:
    assert {"binary", "alldifferent", "cage", "consecutive", "nonconsecutive", "ratio",
            "less"} <= SatBackend.supported()


# ------------------------------------------------------------ unsat
@pytest.mark.parametrize("cage", CAGE_OPTIONS)
def test_unreachable_cage_sum_is_unsat(cage: str) -> None:
    base = latin_square(4)
    board = replace(base, relations=(Rel("cage", (0, 1), (("sum", 9),)),))
    r = SatBackend().solve(build_model(board), cage=cage)
    assert r.status is Status.UNSAT and "sum" in r.stats["reason"]
    # the CNF alone proves it too (without the model's conflict check)
    for simplify in (True, False):
        form = SatBackend().compile(build_model(board, "none"), cage=cage, simplify=simplify)
        assert form.trivially_unsat or not _solve_cnf(form.cnf.clauses)
    # a sum the labels reach but the board does not: {1, 2} in row 0, 1 given elsewhere
    board = replace(base, relations=(Rel("cage", (0, 1), (("sum", 3),)),), clues=((2, 1),))
    for filtering in ("lists", "none"):
        r = SatBackend().solve(build_model(board, filtering), limit=None, cage=cage,
                               simplify=False)
        check_count(board, r, 0)


def _solve_cnf(clauses) -> bool:
    from pysat.solvers import Solver

    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        return s.solve()


def test_pb_unavailable_is_refused(monkeypatch) -> None:
    import pysat.pb

    board = replace(latin_square(4), relations=(Rel("cage", (0, 1), (("sum", 3),)),))
    monkeypatch.setattr(pysat.pb, "pindakaas_present", False, raising=False)
    with pytest.raises(UnsupportedError, match="pindakaas"):
        SatBackend().solve(build_model(board), cage="pb")
    # a model without cages does not need it
    assert SatBackend().solve(build_model(latin_square(3)), cage="pb").status is Status.SAT


# ------------------------------------------------------------ a kind registered here
@pytest.fixture
def apart_kind():
    kind = register(make_apart_kind("apart-test", gap=2))
    yield kind
    unregister(kind.name)


def test_a_kind_registered_in_a_test(apart_kind) -> None:
    board = apart_board()
    expected = brute_force_count(board)
    assert expected > 0
    for filtering in ("lists", "none"):
        model = build_model(board, filtering)
        check_count(board, SatBackend().solve(model, limit=None), expected)
        text = to_dimacs(model)
        assert _count_dimacs(board, text) == expected
        assert _count_opb(board, to_opb(model)) == expected


# ------------------------------------------------------------ exports round trip
def _count_dimacs(board: Board, text: str) -> int:
    """Every model of the DIMACS text (distinct on the mapped variables), decoded and verified."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cnf = CNF(from_string=text)
    _, var_map, _ = read_var_map(text)
    seen = set()
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as s:
        while s.solve():
            model = s.get_model()
            values = decode(board, text, "v " + " ".join(map(str, model)) + " 0")
            assert verify(board, values) == [], values
            assert values not in seen
            seen.add(values)
            block = [-lit for lit in model if lit > 0 and lit in var_map]
            if not block:
                break
            s.add_clause(block)
    return len(seen)


def _count_opb(board: Board, text: str) -> int:
    """Every model of the OPB text, found by CP-SAT as a 0-1 solver, decoded and verified."""
    from ortools.sat.python import cp_model

    n_vars, _, constraints = _parse_opb(text)
    m = cp_model.CpModel()
    xs = {v: m.new_bool_var(f"x{v}") for v in range(1, n_vars + 1)}
    for terms, op, rhs in constraints:
        lhs = sum(k * xs[v] for k, v in terms)
        m.add(lhs == rhs if op == "=" else lhs >= rhs)
    found: list[tuple] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            answer = " ".join(("" if self.value(x) else "-") + f"x{v}" for v, x in xs.items())
            found.append(decode(board, text, "v " + (answer or "0")))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.solve(m, Collect())
    for values in found:
        assert verify(board, values) == [], values
    assert len(set(found)) == len(found)
    return len(found)


@pytest.mark.parametrize("case", _relation_params())
@pytest.mark.parametrize("cage", CAGE_OPTIONS)
def test_relation_exports_round_trip(case: tuple, cage: str) -> None:
    board = _relation_board(case)
    expected = brute_force_count(board)
    for filtering, simplify in (("lists", True), ("none", False)):
        model = build_model(board, filtering)
        if model.conflict is not None:  # the exports encode the model alone
            continue
        dimacs = to_dimacs(model, cage=cage, simplify=simplify)
        assert _count_dimacs(board, dimacs) == expected
        opb = to_opb(model, cage=cage, simplify=simplify)
        assert _count_opb(board, opb) == expected


def test_opb_relations() -> None:
    board = replace(latin_square(3), relations=(
        Rel("consecutive", (0, 1)), Rel("cage", (4, 5), (("sum", 5),)),
        Rel("ratio", (6, 7))))
    _, _, constraints = _parse_opb(to_opb(build_model(board, "none"), simplify=False))
    cage = [c for c in constraints if c[1] == "=" and sorted(k for k, _ in c[0]) ==
            [1, 1, 2, 2, 3, 3]]
    assert len(cage) == 1 and cage[0][2] == 5
    # at most one of each value in the cage
    assert sum(1 for terms, op, rhs in constraints if op == ">=" and rhs == -1) == 3
    # one support inequality per value of the first cell of each binary relation
    support = [c for c in constraints if c[1] == ">=" and c[2] == 0]
    assert len(support) == 6
