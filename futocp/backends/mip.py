"""Integer programming backend: the assignment model, solved by HiGHS or SCIP.

The textbook formulation (:class:`LinearModel`): one binary ``x_C_V`` per cell
``C`` and value index ``V`` still in the cell's list (values the filtering
removed have no column; a clue's cell has one), and linear rows:

* ``cell_C``: each cell takes exactly one value (a clue's cell: its column is 1);
* ``g_G_V``: asterism ``G`` holds value ``V`` exactly its multiplicity times
  (once in a plain Latin group);
* ``d_K_V``: a partial all-different group (a cage's cells) holds ``V`` at most once;
* the relations, kind by kind (:data:`LINEAR_ENCODINGS`, else the generic ones):

  - ``less`` (``R_I``): a difference of value expressions,
    ``sum V x_B_V - sum V x_A_V >= 1`` (value indices are in label order);
  - ``cage`` (``R_I``): the linear sum of its labels, ``sum label(V) x_C_V = S``
    (its labels being distinct is its ``d_K_V`` rows);
  - every other binary kind (``consecutive``, ``nonconsecutive``, ``ratio``...)
    by its allowed pairs (:meth:`~futocp.model.Model.support`): for each value
    ``V`` of the first cell, ``x_A_V <= sum x_B_W`` over the ``W`` that support
    it (row ``R_I_a_V``), and the same from the second cell (``R_I_b_W``);
  - an n-ary kind with an automaton (``visible``: Towers clues) by its layered
    diagram as a unit flow (:func:`_flow`): a Towers clue on 9 cells has a few
    hundred arcs where its table has up to 118,124 rows;
  - every other n-ary kind of the registry by its allowed tuples
    (:meth:`~futocp.model.Model.allowed_tuples`): a binary ``t_I_K`` per tuple,
    exactly one of them (``R_I``), and each ``x_C_V`` of the relation's cells
    equal to the sum of the tuples that give ``C`` the value ``V`` (``R_I_J_V``).

The objective is zero: any feasible point is optimal. ``seed`` is HiGHS's
``random_seed`` (SCIP: ``randomization/randomseedshift`` and a permutation of the
variables); it changes which solution comes first. Option ``solver``:
``highs`` (default; ``highspy``) or ``scip`` (``pyscipopt``). Enumeration
(``limit`` > 1) adds a no-good row after each solution -- the values it gave the
cells that have a choice cannot all come back (``sum <= k - 1``) -- and solves
again. ``time_limit`` is the solver's own (the time left, at each solve), and the
build checks the deadline; a time limit shorter than the estimated build runs
the solve in a child process killed at the deadline
(:class:`~futocp.backends.stream.StreamBackend`).

Stats: ``nodes`` (branch-and-bound nodes), ``lp_iterations`` (simplex
iterations), summed over the solves of an enumeration, and ``gap`` (the last
solve's relative gap, 0 once a feasible point is found), ``solves``,
``columns``, ``rows``.

The model is also written as MPS or CPLEX LP (:meth:`LinearModel.to_mps`,
:meth:`LinearModel.to_lp`; ``futocp export --to mps|lp``) with the column names
above, so that a solution file of HiGHS or SCIP on it decodes back into the
board (:mod:`futocp.answers`).

Example (the model needs no solver; HiGHS counts the 12 Latin squares of order 3,
one no-good row after each, and proves there is no 13th):
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> lm = MipBackend().compile(build_model(latin_square(3)))
    >>> len(lm.names), len(lm.rows), lm.rows[0]
    (27, 27, Row(name='cell_0', cols=(0, 1, 2), coefs=(1, 1, 1), sense='E', rhs=1))
    >>> if MipBackend.available() is True:
    ...     r = MipBackend().solve(build_model(latin_square(3)), limit=None)
    ...     assert (r.n_solutions, r.exhausted, r.stats["solves"]) == (12, True, 13)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..errors import BackendUnavailable
from ..model import Model
from ..propagate import bits
from ..relations import Relation, get_kind
from .base import COMPLETE_CAPABILITIES, Deadline, Option, Package
from .stream import AT_LIMIT, BUILDING, COMPLETE, GAVE_UP, SOLVING, TIMED_OUT, Emit, StreamBackend

__all__ = ["MipBackend", "LinearModel", "Row", "LINEAR_ENCODINGS", "SOLVERS", "build_linear"]

SOLVERS = ("highs", "scip")
"""The values of option ``solver``."""


@dataclass(frozen=True)
class Row:
    """One linear row: ``sum coefs[i] * x[cols[i]] SENSE rhs``.

    Attributes:
        name: The row's name in an exported file.
        cols: Column indices.
        coefs: Their coefficients.
        sense: ``"E"`` (=), ``"L"`` (<=) or ``"G"`` (>=).
        rhs: The right-hand side.
    """

    name: str
    cols: tuple[int, ...]
    coefs: tuple[int, ...]
    sense: str
    rhs: int


@dataclass
class LinearModel:
    """The binary program of a Model (see the module docstring).

    Attributes:
        model: The Model it encodes.
        names: Column names (every column is binary).
        rows: The rows.
        cell_vars: Per cell, ``(value index, column)`` pairs.
        stats: ``columns``, ``rows``, ``encode_s``.
    """

    model: Model
    names: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    cell_vars: list[list[tuple[int, int]]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def add_column(self, name: str) -> int:
        """A new binary column; its index."""
        self.names.append(name)
        return len(self.names) - 1

    def add_row(self, name: str, terms: Iterable[tuple[int, int | None]], sense: str,
                rhs: int) -> None:
        """Add ``sum k * x SENSE rhs`` over ``(k, column)`` terms; a column of None is a
        constant 0 (a removed value). Terms on one column are added up; a row left
        without a column is dropped when it holds and, when it cannot hold, replaced
        by ``cell_0``'s row asking for 2 (so that every format can state it)."""
        merged: dict[int, int] = {}
        for k, col in terms:
            if col is not None and k:
                merged[col] = merged.get(col, 0) + k
        merged = {col: k for col, k in merged.items() if k}
        if not merged:
            holds = {"E": rhs == 0, "L": 0 <= rhs, "G": 0 >= rhs}[sense]
            if holds:
                return
            merged, sense, rhs = {col: 1 for _, col in self.cell_vars[0]}, "E", 2
            name = f"{name}_never"
        self.rows.append(Row(name, tuple(merged), tuple(merged.values()), sense, rhs))

    def column(self, cell: int, value: int) -> int | None:
        """The column of (cell, value index), or None when the value is not in its
        list (once every cell's columns are made)."""
        return self._columns[cell].get(value)

    def chosen(self, values: Sequence[int], cells: Iterable[int]) -> list[int]:
        """The columns at 1 on ``cells`` in the point of these value indices (a no-good's)."""
        return [self._columns[c][values[c]] for c in cells]

    @cached_property
    def _columns(self) -> list[dict[int, int]]:
        return [dict(pairs) for pairs in self.cell_vars]

    def read(self, values: Sequence[float]) -> tuple[int, ...]:
        """The value index of every cell from a solution's column values.

        Raises:
            ValueError: when a cell has no column at 1 or more than one.
        """
        out = []
        for c, pairs in enumerate(self.cell_vars):
            chosen = [v for v, col in pairs if values[col] > 0.5]
            if len(chosen) != 1:
                raise ValueError(f"the solver's point gives cell {c} {len(chosen)} values")
            out.append(chosen[0])
        return tuple(out)

    def comments(self) -> list[str]:
        """What the names mean (the first lines of an export)."""
        board = self.model.board
        return [f"futocp mip cells {board.n_cells} values {self.model.n_values} "
                f"columns {len(self.names)} rows {len(self.rows)}",
                "x_C_V = 1: cell C (0-based) takes value index V of the board's sorted labels "
                f"{list(self.model.values)!r}"]

    def to_lp(self) -> str:
        """The model in CPLEX LP format (read by HiGHS, SCIP, CPLEX, Gurobi...)."""
        names = self.names
        out = [f"\\ {line}" for line in self.comments()]
        out += ["Minimize", f" obj: 0 {names[0]}", "Subject To"]
        op = {"E": "=", "L": "<=", "G": ">="}
        for row in self.rows:
            terms = [f"{'+' if k >= 0 else '-'} {abs(k)} {names[c]}"
                     for c, k in zip(row.cols, row.coefs, strict=True)]
            lines = [" ".join(terms[i:i + 8]) for i in range(0, len(terms), 8)]
            out.append(f" {row.name}: " + "\n   ".join(lines) + f" {op[row.sense]} {row.rhs}")
        out.append("Binaries")
        out += [" " + " ".join(names[i:i + 8]) for i in range(0, len(names), 8)]
        out.append("End")
        return "\n".join(out) + "\n"

    def to_mps(self) -> str:
        """The model in free MPS format (read by HiGHS, SCIP, GLPK, CBC...)."""
        out = [f"* {line}" for line in self.comments()]
        out += ["NAME futocp", "ROWS", " N obj"]
        out += [f" {row.sense} {row.name}" for row in self.rows]
        by_col: list[list[tuple[str, int]]] = [[] for _ in self.names]
        for row in self.rows:
            for c, k in zip(row.cols, row.coefs, strict=True):
                by_col[c].append((row.name, k))
        out += ["COLUMNS", "    MARKER 'MARKER' 'INTORG'"]
        for name, entries in zip(self.names, by_col, strict=True):
            out += [f"    {name} {r} {k}" for r, k in entries] or [f"    {name} obj 0"]
        out += ["    MARKER 'MARKER' 'INTEND'", "RHS"]
        out += [f"    rhs {row.name} {row.rhs}" for row in self.rows if row.rhs]
        out.append("BOUNDS")
        out += [f" BV bnd {name}" for name in self.names]
        out.append("ENDATA")
        return "\n".join(out) + "\n"


# ------------------------------------------------------------------ the encodings
# An encoder adds the rows of one relation and returns True, or returns False to
# leave it to the generic encoding of its arity.
LinearEncoder = Callable[[LinearModel, int, Relation], bool]


def _less(lm: LinearModel, i: int, rel: Relation) -> bool:
    n = lm.model.n_values
    terms = [(v, lm.column(rel.b, v)) for v in range(n)]
    terms += [(-v, lm.column(rel.a, v)) for v in range(n)]
    lm.add_row(f"r_{i}", terms, "G", 1)
    return True


def _cage(lm: LinearModel, i: int, rel: Relation) -> bool:
    labels = lm.model.int_values
    lm.add_row(f"r_{i}", [(labels[v], lm.column(c, v)) for c in rel.cells
                          for v in range(lm.model.n_values)], "E", rel.param_map["sum"])
    return True


LINEAR_ENCODINGS: dict[str, LinearEncoder] = {"less": _less, "cage": _cage}
"""The relation kinds with a linear form of their own (the others: allowed pairs or tuples)."""


def _pairs(lm: LinearModel, i: int, rel: Relation) -> None:
    """A binary relation by its allowed pairs: support rows from both cells."""
    model = lm.model
    fwd, bwd = model.support(rel)
    for v in model.domain(rel.a):
        lm.add_row(f"r_{i}_a_{v}", [(1, lm.column(rel.a, v))]
                   + [(-1, lm.column(rel.b, w)) for w in bits(fwd[v])], "L", 0)
    for w in model.domain(rel.b):
        lm.add_row(f"r_{i}_b_{w}", [(1, lm.column(rel.b, w))]
                   + [(-1, lm.column(rel.a, v)) for v in bits(bwd[w])], "L", 0)


def _tuples(lm: LinearModel, i: int, rel: Relation) -> None:
    """A relation by its allowed tuples: a selector column per tuple, exactly one
    chosen, each cell's value columns tied to the selectors that give it that value."""
    model = lm.model
    tuples = model.allowed_tuples(rel)
    chosen = [lm.add_column(f"t_{i}_{k}") for k in range(len(tuples))]
    lm.add_row(f"r_{i}", [(1, t) for t in chosen], "E", 1)
    for j, c in enumerate(rel.cells):
        for v in model.domain(c):
            lm.add_row(f"r_{i}_{j}_{v}", [(1, lm.column(c, v))]
                       + [(-1, t) for t, tup in zip(chosen, tuples, strict=True) if tup[j] == v],
                       "E", 0)


def _flow(lm: LinearModel, i: int, rel: Relation) -> None:
    """A relation by its layered diagram (:meth:`~futocp.model.Model.diagram`) as a
    unit flow: a binary ``a_I_L_K`` per arc of layer ``L``, one unit leaving the
    root (``r_I``), as much entering as leaving each inner node (``f_I_L_N``), and
    each ``x_C_V`` of the relation's cells equal to the arcs of its layer labelled
    ``V`` (``R_I_L_V``). The diagram is deterministic, so the arcs follow from the
    cells' values: a path from the root to the terminal that spells them."""
    d = lm.model.diagram(rel)
    into: list[dict[int, list[int]]] = [{} for _ in d.levels]
    out: list[dict[int, list[int]]] = [{} for _ in d.levels]
    for layer, (cell, arcs) in enumerate(zip(rel.cells, d.layers, strict=True)):
        labelled: dict[int, list[int]] = {}
        for k, (src, v, dst) in enumerate(arcs):
            if lm.column(cell, v) is None:
                continue
            a = lm.add_column(f"a_{i}_{layer}_{k}")
            out[layer].setdefault(src, []).append(a)
            into[layer + 1].setdefault(dst, []).append(a)
            labelled.setdefault(v, []).append(a)
        for v in lm.model.domain(cell):
            lm.add_row(f"r_{i}_{layer}_{v}", [(1, lm.column(cell, v))]
                       + [(-1, a) for a in labelled.get(v, [])], "E", 0)
    lm.add_row(f"r_{i}", [(1, a) for a in out[0].get(0, [])], "E", 1)
    for level in range(1, len(d.levels) - 1):
        for node in range(d.levels[level]):
            lm.add_row(f"f_{i}_{level}_{node}", [(1, a) for a in into[level].get(node, [])]
                       + [(-1, a) for a in out[level].get(node, [])], "E", 0)


def build_linear(model: Model, deadline: Deadline | None = None) -> LinearModel:
    """The :class:`LinearModel` of ``model``; ``deadline`` is checked while it is built.

    Raises:
        DeadlinePassed: when the deadline passes.
        UnsupportedError: for an n-ary relation with too many candidate tuples.
    """
    t0 = time.perf_counter()
    tick = (deadline or Deadline(None)).tick
    lm = LinearModel(model)
    for c in range(model.n_cells):
        tick(BUILDING)
        lm.cell_vars.append([(v, lm.add_column(f"x_{c}_{v}")) for v in model.domain(c)])
    for c, pairs in enumerate(lm.cell_vars):
        lm.add_row(f"cell_{c}", [(1, col) for _, col in pairs], "E", 1)
    for g, (cells, counts) in enumerate(model.groups):
        for v in range(model.n_values):
            tick(BUILDING, len(cells))
            lm.add_row(f"g_{g}_{v}", [(1, lm.column(c, v)) for c in cells], "E",
                       1 if counts is None else counts[v])
    for k, group in enumerate(model.all_different):
        for v in range(model.n_values):
            tick(BUILDING, len(group.cells))
            lm.add_row(f"d_{k}_{v}", [(1, lm.column(c, v)) for c in group.cells], "L", 1)
    for i, rel in enumerate(model.relations):
        tick(BUILDING, 4)
        encoder = LINEAR_ENCODINGS.get(rel.kind)
        if encoder is not None and encoder(lm, i, rel):
            continue
        kind = get_kind(rel.kind)
        if kind.binary:
            _pairs(lm, i, rel)
        elif kind.automaton is not None:
            _flow(lm, i, rel)
        else:
            _tuples(lm, i, rel)
    lm.stats.update(columns=len(lm.names), rows=len(lm.rows),
                    encode_s=time.perf_counter() - t0)
    return lm


# ------------------------------------------------------------------ the solvers
def _highspy() -> Any:
    """The highspy module, untyped: its core class ``_Highs`` (which, unlike the
    ``Highs`` wrapper, prints no banner when made) is not in its stubs."""
    import highspy

    return highspy


_highs_threads: int | None = None  # the threads of HiGHS's thread pool in this process, if any


class _Highs:
    """HiGHS through highspy's core class (its Python wrapper prints a banner).

    HiGHS keeps one thread pool per process, made by the first solve with that
    solve's ``threads``; another count needs the pool made again. A fork does not
    copy the pool's threads: a child that uses an inherited pool of several
    threads hangs, and cannot remake it either (``Invalid argument``). So a pool
    of more than one thread is closed after the solves that used it
    (:meth:`close`), and a forked child only ever inherits a pool of one thread
    (no thread of its own), which it may use or remake."""

    def __init__(self, lm: LinearModel, seed: int | None, log: bool, threads: int = 1) -> None:
        import numpy as np

        highspy = _highspy()
        global _highs_threads
        if _highs_threads not in (None, threads):
            highspy._Highs.resetGlobalScheduler(True)
        _highs_threads = threads
        self.threads = threads
        h = highspy._Highs()
        h.setOptionValue("output_flag", bool(log))
        h.setOptionValue("threads", threads)
        if seed is not None:
            h.setOptionValue("random_seed", int(seed) % 2_147_483_647)
        n = len(lm.names)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n, len(lm.rows)
        lp.col_cost_ = np.zeros(n)
        lp.col_lower_ = np.zeros(n)
        lp.col_upper_ = np.ones(n)
        lo: list[float] = []
        hi: list[float] = []
        start: list[int] = [0]
        index: list[int] = []
        value: list[int] = []
        inf = highspy.kHighsInf
        for row in lm.rows:
            lo.append(-inf if row.sense == "L" else row.rhs)
            hi.append(inf if row.sense == "G" else row.rhs)
            index.extend(row.cols)
            value.extend(row.coefs)
            start.append(len(index))
        lp.row_lower_ = np.array(lo, dtype=np.float64)
        lp.row_upper_ = np.array(hi, dtype=np.float64)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(start, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value, dtype=np.float64)
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n
        h.passModel(lp)
        self.h, self.highspy, self.np = h, highspy, np
        self.nodes = self.lp_iterations = 0
        self.gap: float | None = None

    def solve(self, time_left: float | None) -> tuple[str, list[float] | None]:
        """One solve: (``sat`` | ``unsat`` | ``timeout`` | a status, column values)."""
        h, status_enum = self.h, self.highspy.HighsModelStatus
        h.setOptionValue("time_limit", float("inf") if time_left is None else max(time_left, 1e-3))
        h.run()
        info = h.getInfo()
        self.nodes += max(0, int(info.mip_node_count))
        self.lp_iterations += max(0, int(info.simplex_iteration_count))
        status = h.getModelStatus()
        if status == status_enum.kOptimal:
            self.gap = float(info.mip_gap)
            return "sat", list(h.getSolution().col_value)
        if status == status_enum.kInfeasible:
            return "unsat", None
        if status == status_enum.kTimeLimit:
            return "timeout", None
        return h.modelStatusToString(status), None

    def close(self) -> None:
        """Close HiGHS's thread pool if it has threads of its own (see the class docstring)."""
        global _highs_threads
        if self.threads > 1:
            self.highspy._Highs.resetGlobalScheduler(True)
            _highs_threads = None

    def cut(self, cols: Sequence[int]) -> None:
        """Forbid the point whose columns ``cols`` are 1 (a no-good row)."""
        np = self.np
        self.h.addRow(-self.highspy.kHighsInf, len(cols) - 1, len(cols),
                      np.array(cols, dtype=np.int32), np.ones(len(cols)))


class _Scip:
    """SCIP through pyscipopt."""

    def __init__(self, lm: LinearModel, seed: int | None, log: bool, threads: int = 1) -> None:
        import pyscipopt

        m = pyscipopt.Model()
        if not log:
            m.hideOutput()
        if seed is not None:
            m.setParam("randomization/randomseedshift", int(seed) % 2_147_483_647)
            m.setParam("randomization/permutevars", True)
            m.setParam("randomization/permutationseed", int(seed) % 2_147_483_647)
        xs = [m.addVar(name=name, vtype="B") for name in lm.names]
        quicksum = pyscipopt.quicksum
        for row in lm.rows:
            expr = quicksum(k * xs[c] for c, k in zip(row.cols, row.coefs, strict=True))
            if row.sense == "E":
                m.addCons(expr == row.rhs, name=row.name)
            elif row.sense == "L":
                m.addCons(expr <= row.rhs, name=row.name)
            else:
                m.addCons(expr >= row.rhs, name=row.name)
        self.m, self.xs, self.quicksum = m, xs, quicksum
        self.nodes = self.lp_iterations = 0
        self.gap: float | None = None
        self.solved = False

    def solve(self, time_left: float | None) -> tuple[str, list[float] | None]:
        """One solve (as :meth:`_Highs.solve`)."""
        m = self.m
        m.setParam("limits/time", 1e20 if time_left is None else max(time_left, 1e-3))
        m.optimize()
        self.solved = True
        self.nodes += max(0, int(m.getNNodes()))
        self.lp_iterations += max(0, int(m.getNLPIterations()))
        status = m.getStatus()
        if status == "optimal":
            self.gap = float(m.getGap())
            return "sat", [m.getVal(x) for x in self.xs]
        if status == "infeasible":
            return "unsat", None
        if status == "timelimit":
            return "timeout", None
        return status, None

    def close(self) -> None:
        """Nothing to release."""

    def cut(self, cols: Sequence[int]) -> None:
        """Forbid the point whose columns ``cols`` are 1 (a no-good row)."""
        self.m.freeTransform()
        self.m.addCons(self.quicksum(self.xs[c] for c in cols) <= len(cols) - 1)


class MipBackend(StreamBackend):
    """Integer programming: the binary assignment model on HiGHS or SCIP."""

    name = "mip"
    complete = True
    capabilities = COMPLETE_CAPABILITIES | {"seed", "cage"}
    package = Package("highspy", ("highspy",), "mip")
    counters = ("nodes", "lp_iterations")
    load_s_per_literal = 1e-4
    options = (
        Option("solver", str, "highs", SOLVERS, "highs (highspy) or scip (pyscipopt)"),
        Option("threads", int, 1, None, "HiGHS threads (1 = reproducible timing; more do not pay on "
               "these models); SCIP uses one"),
        Option("log", bool, False, None, "print the solver's log"),
    )

    def compile(self, model: Model, /, *, deadline: Deadline | None = None,
                **options: Any) -> LinearModel:
        """The :class:`LinearModel` of ``model`` (the same for both solvers)."""
        self.parse_options(options)
        return build_linear(model, deadline)

    def _stream(self, emit: Emit, model: Model, limit: int | None, deadline: Deadline,
                seed: int | None, options: dict[str, Any]) -> None:
        if options["solver"] == "scip":
            _require("pyscipopt", "the scip solver")
        t0 = time.perf_counter()
        lm = self.compile(model, deadline=deadline, **options)
        solver = (_Scip if options["solver"] == "scip" else _Highs)(lm, seed, options["log"],
                                                                      options["threads"])
        emit(("stats", {"encode_s": time.perf_counter() - t0, "columns": len(lm.names),
                        "rows": len(lm.rows), "solver": options["solver"]}))
        emit(("phase", SOLVING))
        free = [c for c, pairs in enumerate(lm.cell_vars) if len(pairs) > 1]
        t1 = time.perf_counter()
        found, solves = 0, 0
        how, why = COMPLETE, None
        try:
            while True:
                answer, point = solver.solve(deadline.remaining())
                solves += 1
                if answer == "sat" and point is not None:
                    values = lm.read(point)
                    emit(("solution", values))
                    found += 1
                    if limit is not None and found >= limit:
                        how = AT_LIMIT
                        break
                    solver.cut(lm.chosen(values, free))
                    continue
                if answer == "unsat":
                    how = COMPLETE
                elif answer == "timeout":
                    how = TIMED_OUT
                else:
                    how, why = GAVE_UP, f"{options['solver']} answered {answer}"
                break
        finally:
            solver.close()
        stats: dict[str, Any] = {"solve_s": time.perf_counter() - t1, "solves": solves,
                                 "nodes": solver.nodes, "lp_iterations": solver.lp_iterations}
        if solver.gap is not None:  # the last solve that found a solution
            stats["gap"] = solver.gap
        emit(("stats", stats))
        emit(("done", how, why))


def _require(module: str, what: str) -> None:
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        raise BackendUnavailable(f"backend 'mip': {what} needs the {module} package; install "
                                 "it with: pip install 'futocp[mip]'") from None

