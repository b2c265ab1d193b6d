"""The sat backend and the DIMACS / OPB exports: encodings, counts, limits, decoding."""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

import pytest

from futocp.backends.sat import (
    AUTO_SOLVERS,
    CARD_ENCODINGS,
    LESS_ENCODINGS,
    SatBackend,
    SatFormulation,
    _solver_names,
)
from futocp.board import Board
from futocp.errors import InputError, UnsupportedError, UsageError
from futocp.export import EXPORTERS, decode, export, to_dimacs, to_opb
from futocp.families import futoshiki, latin_square
from futocp.formats import read
from futocp.model import build_model
from futocp.result import Status
from futocp.verify import verify

from .conftest import brute_force_count, multiset_board, string_square

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


@functools.cache
def known_count(board: Board) -> int:
    """The solution count by brute force, independent of every backend (computed once).

    Grid boards whose rows are permutations of distinct labels: rows are chosen
    column-compatible (the Latin squares), then checked with verify().
    """
    rows, cols = board.shape
    if len(set(board.labels)) != len(board.labels):
        return brute_force_count(board)
    perms = list(itertools.permutations(board.labels))

    def squares(prefix: list[tuple]) -> int:
        if len(prefix) == rows:
            return int(verify(board, [v for row in prefix for v in row]) == [])
        return sum(squares(prefix + [p]) for p in perms
                   if all(p[j] != r[j] for r in prefix for j in range(cols)))

    return squares([])


def all_solutions(board: Board, filtering: str = "lists", **options):
    r = SatBackend().solve(build_model(board, filtering), limit=None, **options)
    assert r.status is Status.SAT and r.exhausted
    assert len(set(r.solutions)) == r.n_solutions
    for sol in r.solutions:
        assert verify(board, sol) == []
    return r


# ------------------------------------------------------------ counts
@pytest.mark.parametrize("card", CARD_ENCODINGS)
@pytest.mark.parametrize("less", LESS_ENCODINGS)
def test_every_encoding_counts(card: str, less: str) -> None:
    assert all_solutions(latin_square(4), card=card, less=less).n_solutions == 576
    fut = small_futoshiki()
    expected = known_count(fut)
    assert expected > 1
    for filtering in ("lists", "none"):
        assert all_solutions(fut, filtering, card=card, less=less).n_solutions == expected
    ms = multiset_board()
    assert all_solutions(ms, card=card, less=less).n_solutions == 90
    with_clues = ms.with_clues({0: 1, 5: 2, 10: 2})
    assert all_solutions(with_clues, "none", card=card).n_solutions == known_count(with_clues)


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
        known_count(small_futoshiki())


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
    assert r.stats["solver"] == ("glucose42" if solver == "auto" else solver)


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
def test_uninterruptible_solver_refuses_a_time_limit(solver: str) -> None:
    with pytest.raises(UnsupportedError, match="interrupt"):
        SatBackend().solve(build_model(latin_square(3)), time_limit=5, solver=solver)


def test_pairwise_refuses_a_huge_cnf() -> None:
    model = build_model(latin_square(60))  # empty: 60^2 cells x 60 values, ~19 M pairs
    with pytest.raises(UnsupportedError, match="card=seqcounter"):
        SatBackend().compile(model)


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
