"""OR-Tools CP-SAT backend.

Two formulations (option ``formulation``):

* ``integer`` (default): one integer variable per cell over its list (value
  indices), ``add_all_different`` per AllDifferent asterism, a global
  cardinality per Count asterism (one Boolean per (cell, value) channelled to
  the integer by ``add_map_domain``, and a sum per value), ``a < b`` as a linear
  constraint;
* ``boolean``: one Boolean per (cell, value in its list) with exactly-one per
  cell and exactly-multiplicity per (asterism, value); ``Less`` on the
  value expressions ``sum(v * b[c, v])``.

Options ``workers`` (default 1, for reproducible timing) and ``seed``.
Enumeration beyond one solution uses a solution callback that stops at the limit.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = CpsatBackend().solve(build_model(latin_square(3)), limit=None)
    >>> r.status.value, r.n_solutions, r.exhausted
    ('sat', 12, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..model import Model
from ..result import Result, Status
from .base import Backend, Option

__all__ = ["CpsatBackend", "CpsatFormulation"]


@dataclass
class CpsatFormulation:
    """The compiled model: the CpModel and, per cell, how to read its value."""

    model: Any  # cp_model.CpModel
    cell_vars: list[Any]  # per cell: an IntVar, or a list of (value, BoolVar)
    formulation: str

    def proto_text(self) -> str:
        """The CpModelProto as text (for export and inspection)."""
        return str(self.model.Proto())


class CpsatBackend(Backend):
    """OR-Tools CP-SAT."""

    name = "cpsat"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "less", "strings"})
    extra = "cpsat"
    options = (
        Option("formulation", str, "integer", ("integer", "boolean"), "integer or boolean model"),
        Option("workers", int, 1, None, "CP-SAT search workers (1 = reproducible timing)"),
        Option("log", bool, False, None, "print the CP-SAT search log"),
    )

    @classmethod
    def available(cls) -> bool | str:
        try:
            from ortools.sat.python import cp_model  # noqa: F401
        except ImportError:
            return "the ortools package is not installed"
        return True

    def compile(self, model: Model, **options: Any) -> CpsatFormulation:
        opts = self.parse_options(options)
        from ortools.sat.python import cp_model

        m = cp_model.CpModel()
        if opts["formulation"] == "boolean":
            return self._compile_boolean(m, model)
        Domain = cp_model.Domain
        xs: list[Any] = []
        for c, dom in enumerate(model.domains):
            vals = model.domain(c)
            if len(vals) == len(model.values):
                xs.append(m.new_int_var(0, len(vals) - 1, f"x{c}"))
            else:
                xs.append(m.new_int_var_from_domain(Domain.from_values(vals), f"x{c}"))
        for con in model.permutations:
            m.add_all_different([xs[c] for c in con.cells])
        if model.counts:
            lits: dict[tuple[int, int], Any] = {}
            for c in {c for con in model.counts for c in con.cells}:
                bools = [m.new_bool_var(f"b{c}_{v}") for v in range(len(model.values))]
                m.add_map_domain(xs[c], bools)
                for v, b in enumerate(bools):
                    lits[c, v] = b
            for con in model.counts:
                for v, k in enumerate(con.counts):
                    m.add(sum(lits[c, v] for c in con.cells) == k)
        for con in model.less:
            m.add(xs[con.a] < xs[con.b])
        return CpsatFormulation(m, xs, "integer")

    @staticmethod
    def _compile_boolean(m: Any, model: Model) -> CpsatFormulation:
        cells: list[list[tuple[int, Any]]] = []
        for c in range(model.n_cells):
            cells.append([(v, m.new_bool_var(f"b{c}_{v}")) for v in model.domain(c)])
            m.add_exactly_one(b for _, b in cells[c])
        lit = [dict(pairs) for pairs in cells]
        groups = [(con.cells, None) for con in model.permutations]
        groups += [(con.cells, con.counts) for con in model.counts]
        for group_cells, counts in groups:
            for v in range(len(model.values)):
                bs = [lit[c][v] for c in group_cells if v in lit[c]]
                need = 1 if counts is None else counts[v]
                if need == 1:
                    m.add_exactly_one(bs)
                else:
                    m.add(sum(bs) == need)
        for con in model.less:
            m.add(sum(v * b for v, b in cells[con.a]) < sum(v * b for v, b in cells[con.b]))
        return CpsatFormulation(m, cells, "boolean")

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        from ortools.sat.python import cp_model

        t0 = time.perf_counter()
        form = self.compile(model, **options)
        encode_s = time.perf_counter() - t0
        solver = cp_model.CpSolver()
        params = solver.parameters
        params.num_workers = options["workers"]
        params.log_search_progress = options["log"]
        if seed is not None:
            params.random_seed = seed
        if time_limit is not None:
            params.max_time_in_seconds = time_limit

        if form.formulation == "integer":
            def read(values_of: Any) -> tuple[int, ...]:
                return tuple(values_of(x) for x in form.cell_vars)
        else:
            def read(values_of: Any) -> tuple[int, ...]:
                return tuple(next(v for v, b in pairs if values_of(b)) for pairs in form.cell_vars)

        solutions: list[tuple[Any, ...]] = []
        t1 = time.perf_counter()
        if limit == 1:
            code = solver.solve(form.model)
            if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                solutions.append(model.labels_of(read(solver.value)))
            stopped = False
        else:
            params.enumerate_all_solutions = True
            params.num_workers = 1  # enumeration is single-threaded in CP-SAT

            class Collector(cp_model.CpSolverSolutionCallback):
                stopped = False

                def on_solution_callback(self) -> None:
                    solutions.append(model.labels_of(read(self.value)))
                    if limit is not None and len(solutions) >= limit:
                        self.stopped = True
                        self.stop_search()

            collector = Collector()
            code = solver.solve(form.model, collector)
            stopped = collector.stopped
        solve_s = time.perf_counter() - t1

        if solutions:
            status = Status.SAT
        elif code == cp_model.INFEASIBLE:
            status = Status.UNSAT
        else:
            status = Status.UNKNOWN
        exhausted = status is Status.UNSAT or (
            limit != 1 and code == cp_model.OPTIMAL and not stopped)
        stats = {
            "encode_s": encode_s,
            "solve_s": solve_s,
            "cpsat_status": solver.status_name(code),
            "conflicts": solver.num_conflicts,
            "branches": solver.num_branches,
            "cpsat_wall_s": solver.wall_time,
        }
        return Result(status, solutions, stats, exhausted=exhausted)
