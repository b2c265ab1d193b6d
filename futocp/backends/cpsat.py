"""OR-Tools CP-SAT backend.

Two formulations (option ``formulation``):

* ``integer`` (default): one integer variable per cell over its list (value
  indices), ``add_all_different`` per Permutation asterism and per partial
  all-different group (a cage), a global cardinality per Count asterism (one
  Boolean per (cell, value) channelled to the integer by ``add_map_domain``,
  and a sum per value);
* ``boolean``: one Boolean per (cell, value in its list) with exactly-one per
  cell, exactly-multiplicity per (asterism, value) and at-most-one per
  (partial all-different group, value).

Relations are encoded from the registry (:mod:`futocp.relations`): a kind with
a specialised encoding in :data:`INTEGER_ENCODINGS` / :data:`BOOLEAN_ENCODINGS`
gets it, every other binary kind the generic one built from its support
(:meth:`~futocp.model.Model.allowed_pairs`): ``add_allowed_assignments`` on
the two integers, or support / conflict clauses on the Booleans (whichever
is shorter). The specialised ones:

* ``less``: ``x[a] < x[b]`` (index order is label order), on the value
  expressions ``sum(v * b[c, v])`` in the Boolean formulation;
* ``consecutive`` / ``nonconsecutive`` (integer formulation, labels
  ``index + offset``): ``add_abs_equality(1, x[a] - x[b])`` / ``x[a] - x[b]``
  outside {-1, 1}; with other labels, the table;
* ``cage`` (option ``cage``; the all-different of its cells is the model's
  partial AllDifferent group):

  - ``sum``: the linear sum of the labels, ``sum(x[c] + offset) == S`` when
    the labels are ``index + offset``, else over one label variable per cage
    cell tied to its index by ``add_element`` (integer formulation), or
    ``sum(label_v * b[c, v]) == S`` (Boolean formulation);
  - ``combinations``: one selector Boolean per label set the cage may hold
    (:meth:`~futocp.model.Model.combinations`), exactly one of them true,
    each enforcing that every cell of the cage takes a label of its set
    (``x[c]`` in the set; the Booleans of the other labels false) -- with the
    all-different, the cage then holds exactly that set;
  - ``both``: the two together;
  - ``auto`` (default): :data:`AUTO_CAGE` by formulation, chosen by
    measurement on random 9x9 Killer boards (50 per set): in the Boolean
    formulation the weighted sum slows CP-SAT down by one to two orders of
    magnitude on some boards (median 14x when 40% of the cages are dropped,
    with timeouts at 20 s) and ``combinations`` is the fastest of all the
    CP-SAT variants; in the integer formulation the three are within 25% of
    each other at the median, ``sum`` the fastest there.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UnsupportedError
from ..model import Model
from ..propagate import bits
from ..relations import Relation
from ..result import Result, Status
from .base import Backend, Option

__all__ = ["CpsatBackend", "CpsatFormulation", "INTEGER_ENCODINGS", "BOOLEAN_ENCODINGS",
           "CAGE_ENCODINGS", "AUTO_CAGE", "label_offset"]

CAGE_ENCODINGS = ("auto", "sum", "combinations", "both")
"""Values of the ``cage`` option (see the module docstring)."""

AUTO_CAGE = {"integer": "sum", "boolean": "combinations"}
"""What ``cage=auto`` means in each formulation (by measurement)."""


@dataclass
class CpsatFormulation:
    """The compiled model: the CpModel and, per cell, how to read its value."""

    model: Any  # cp_model.CpModel
    cell_vars: list[Any]  # per cell: an IntVar, or a list of (value, BoolVar)
    formulation: str

    def proto_text(self) -> str:
        """The CpModelProto as text (for export and inspection)."""
        return str(self.model.Proto())


def label_offset(model: Model) -> int | None:
    """``k`` when every label is its value index plus ``k`` (integer labels
    ``k, k+1, ...``), else None.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> label_offset(build_model(latin_square(3)))
        1
    """
    vals = model.values
    if not vals or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return None
    k = vals[0]
    return k if all(v == i + k for i, v in enumerate(vals)) else None


# ------------------------------------------------------------ integer formulation
# An encoder posts a relation on the integer variables and returns True, or
# returns False to leave it to the generic table; it gets the parsed backend
# options (the cage encoders read ``cage``).
IntEncoder = Callable[[Any, Model, list[Any], Relation, Mapping[str, Any]], bool]


def _int_less(m: Any, model: Model, xs: list[Any], rel: Relation,
              opts: Mapping[str, Any]) -> bool:
    m.add(xs[rel.a] < xs[rel.b])
    return True


def _int_consecutive(m: Any, model: Model, xs: list[Any], rel: Relation,
                     opts: Mapping[str, Any]) -> bool:
    if label_offset(model) is None:
        return False
    m.add_abs_equality(1, xs[rel.a] - xs[rel.b])
    return True


def _int_nonconsecutive(m: Any, model: Model, xs: list[Any], rel: Relation,
                        opts: Mapping[str, Any]) -> bool:
    from ortools.sat.python import cp_model

    if label_offset(model) is None:
        return False
    n = model.n_values
    gaps = [[-n, -2], [0, 0], [2, n]]
    m.add_linear_expression_in_domain(xs[rel.a] - xs[rel.b],
                                      cp_model.Domain.from_intervals(gaps))
    return True


def _int_cage(m: Any, model: Model, xs: list[Any], rel: Relation,
              opts: Mapping[str, Any]) -> bool:
    how = opts["cage"]
    if how != "sum":
        _int_cage_sets(m, model, xs, rel)
        if how == "combinations":
            return True
    total = rel.param_map["sum"]
    offset = label_offset(model)
    if offset is not None:
        m.add(sum(xs[c] for c in rel.cells) == total - offset * len(rel.cells))
        return True
    from ortools.sat.python import cp_model

    values = list(model.values)
    labels = []
    for c in rel.cells:
        dom = cp_model.Domain.from_values(sorted({values[v] for v in model.domain(c)}))
        label = m.new_int_var_from_domain(dom, f"label{c}")
        m.add_element(xs[c], values, label)
        labels.append(label)
    m.add(sum(labels) == total)
    return True


def _int_cage_sets(m: Any, model: Model, xs: list[Any], rel: Relation) -> None:
    from ortools.sat.python import cp_model

    sets = model.combinations(rel)
    chosen = [m.new_bool_var(f"cage{rel.cells[0]}_{k}") for k in sets]
    m.add_exactly_one(chosen)
    for k, sel in zip(sets, chosen, strict=True):
        labels = cp_model.Domain.from_values(bits(k))
        for c in rel.cells:
            m.add_linear_expression_in_domain(xs[c], labels).only_enforce_if(sel)


INTEGER_ENCODINGS: dict[str, IntEncoder] = {
    "less": _int_less,
    "consecutive": _int_consecutive,
    "nonconsecutive": _int_nonconsecutive,
    "cage": _int_cage,
}
"""Specialised encodings of the integer formulation, by relation kind."""


# ------------------------------------------------------------ Boolean formulation
BoolEncoder = Callable[[Any, Model, list[dict[int, Any]], Relation, Mapping[str, Any]], bool]


def _index_expr(lits: dict[int, Any]) -> Any:
    return sum(v * b for v, b in lits.items())


def _bool_less(m: Any, model: Model, lit: list[dict[int, Any]], rel: Relation,
               opts: Mapping[str, Any]) -> bool:
    m.add(_index_expr(lit[rel.a]) < _index_expr(lit[rel.b]))
    return True


def _bool_cage(m: Any, model: Model, lit: list[dict[int, Any]], rel: Relation,
               opts: Mapping[str, Any]) -> bool:
    how = opts["cage"]
    if how != "sum":
        sets = model.combinations(rel)
        chosen = [m.new_bool_var(f"cage{rel.cells[0]}_{k}") for k in sets]
        m.add_exactly_one(chosen)
        for k, sel in zip(sets, chosen, strict=True):
            outside = [b for c in rel.cells for v, b in lit[c].items() if not k >> v & 1]
            if outside:
                m.add_bool_and([~b for b in outside]).only_enforce_if(sel)
        if how == "combinations":
            return True
    values = model.values
    m.add(sum(values[v] * b for c in rel.cells for v, b in lit[c].items())
          == rel.param_map["sum"])
    return True


BOOLEAN_ENCODINGS: dict[str, BoolEncoder] = {
    "less": _bool_less,
    "cage": _bool_cage,
}
"""Specialised encodings of the Boolean formulation, by relation kind."""


class CpsatBackend(Backend):
    """OR-Tools CP-SAT."""

    name = "cpsat"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "less",
                              "strings", "binary", "alldifferent", "cage"})
    extra = "cpsat"
    requires = ("ortools.sat.python.cp_model",)
    package = "ortools"
    counters = ("conflicts", "branches")
    count_rank = 1
    options = (
        Option("formulation", str, "integer", ("integer", "boolean"), "integer or boolean model"),
        Option("cage", str, "auto", CAGE_ENCODINGS,
               "cage encoding: sum, combinations (a selector per label set), both; auto = "
               "sum (integer), combinations (boolean)"),
        Option("workers", int, 1, None, "CP-SAT search workers (1 = reproducible timing)"),
        Option("log", bool, False, None, "print the CP-SAT search log"),
    )

    def compile(self, model: Model, **options: Any) -> CpsatFormulation:
        opts = self.parse_options(options)
        from ortools.sat.python import cp_model

        m = cp_model.CpModel()
        if opts["cage"] == "auto":
            opts["cage"] = AUTO_CAGE[opts["formulation"]]
        if opts["formulation"] == "boolean":
            return self._compile_boolean(m, model, opts)
        Domain = cp_model.Domain
        xs: list[Any] = []
        for c in range(model.n_cells):
            vals = model.domain(c)
            if len(vals) == len(model.values):
                xs.append(m.new_int_var(0, len(vals) - 1, f"x{c}"))
            else:
                xs.append(m.new_int_var_from_domain(Domain.from_values(vals), f"x{c}"))
        for con in model.permutations:
            m.add_all_different([xs[c] for c in con.cells])
        for group in model.all_different:
            m.add_all_different([xs[c] for c in group.cells])
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
        for rel in model.relations:
            encoder = INTEGER_ENCODINGS.get(rel.kind)
            if encoder is None or not encoder(m, model, xs, rel, opts):
                self._check_binary(rel)
                m.add_allowed_assignments([xs[rel.a], xs[rel.b]], model.allowed_pairs(rel))
        return CpsatFormulation(m, xs, "integer")

    @staticmethod
    def _check_binary(rel: Relation) -> None:
        if len(rel.cells) != 2:  # an n-ary kind without an encoding: check() refuses it first
            raise UnsupportedError(f"cpsat has no encoding of the n-ary kind {rel.kind!r}")

    @classmethod
    def _compile_boolean(cls, m: Any, model: Model, opts: Mapping[str, Any]) -> CpsatFormulation:
        cells: list[list[tuple[int, Any]]] = []
        for c in range(model.n_cells):
            cells.append([(v, m.new_bool_var(f"b{c}_{v}")) for v in model.domain(c)])
            m.add_exactly_one(b for _, b in cells[c])
        lit = [dict(pairs) for pairs in cells]
        for group_cells, counts in model.groups:
            for v in range(len(model.values)):
                bs = [lit[c][v] for c in group_cells if v in lit[c]]
                need = 1 if counts is None else counts[v]
                if need == 1:
                    m.add_exactly_one(bs)
                else:
                    m.add(sum(bs) == need)
        for group in model.all_different:
            for v in range(len(model.values)):
                bs = [lit[c][v] for c in group.cells if v in lit[c]]
                if len(bs) > 1:
                    m.add_at_most_one(bs)
        for rel in model.relations:
            encoder = BOOLEAN_ENCODINGS.get(rel.kind)
            if encoder is None or not encoder(m, model, lit, rel, opts):
                cls._check_binary(rel)
                cls._bool_generic(m, model, lit, rel)
        return CpsatFormulation(m, cells, "boolean")

    @staticmethod
    def _bool_generic(m: Any, model: Model, lit: list[dict[int, Any]], rel: Relation) -> None:
        """A binary relation on the Booleans: support clauses
        ``b[a,v] -> OR b[b,w] (w supports v)`` both ways, or conflict clauses
        ``not (b[a,v] and b[b,w])`` for the forbidden pairs when there are fewer
        of those (both exact with exactly-one per cell)."""
        fwd, bwd = model.support(rel)
        la, lb = lit[rel.a], lit[rel.b]
        da, db = set(la), set(lb)
        mask_b = sum(1 << w for w in db)
        mask_a = sum(1 << v for v in da)
        allowed = sum((fwd[v] & mask_b).bit_count() for v in da)
        forbidden = len(da) * len(db) - allowed
        if forbidden <= allowed:
            for v in da:
                for w in bits(mask_b & ~fwd[v]):
                    m.add_bool_or([~la[v], ~lb[w]])
            return
        for v in da:
            m.add_bool_or([lb[w] for w in bits(fwd[v] & mask_b)]).only_enforce_if(la[v])
        for w in db:
            m.add_bool_or([la[v] for v in bits(bwd[w] & mask_a)]).only_enforce_if(lb[w])

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
