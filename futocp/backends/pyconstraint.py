"""python-constraint backend (PyPI ``python-constraint2``, import name ``constraint``).

One variable per cell over its list (value indices); asterisms, ``less``,
other binary and n-ary relations posted as python-constraint constraints
(options ``alldifferent``, ``count``, ``less``, ``relations``), solved by one of
the library's solvers (``solver``); this backend adds a solution limit and a
time limit (a child process killed at the deadline).

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "pyconstraint".

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> model = build_model(latin_square(3))
    >>> {s: PyconstraintBackend().solve(model, limit=None, solver=s).n_solutions
    ...  for s in ("optimized", "recursive")}
    {'optimized': 12, 'recursive': 12}
"""

from __future__ import annotations

import operator
import random
import sys
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from ..diagram import Diagram, supports
from ..errors import SolverError, UnsupportedError
from ..model import Model
from ..procs import run_child
from ..procs import start_method as _start_method
from ..relations import Relation, get_kind
from ..result import Result, Status
from .base import COMPLETE_CAPABILITIES, Backend, Deadline, Option, Package

__all__ = ["PyconstraintBackend", "count_constraint", "support_constraint", "cage_constraint",
           "table_constraint", "diagram_constraint", "NARY_CONSTRAINTS", "SOLVERS"]

SOLVERS: dict[str, str] = {
    "optimized": "OptimizedBacktrackingSolver",
    "backtracking": "BacktrackingSolver",
    "recursive": "RecursiveBacktrackingSolver",
    "minconflicts": "MinConflictsSolver",
}


@cache
def _count_class() -> type:
    """The counting constraint class (defined lazily: it subclasses ``constraint.Constraint``)."""
    from constraint import Constraint

    class CountConstraint(Constraint):
        """Value i occurs exactly ``counts[i]`` times among the variables.

        The variables' values are indices ``0 .. len(counts) - 1`` and
        ``sum(counts)`` equals the number of variables, so a full assignment
        that uses no value too often uses each exactly as often as required.
        """

        def __init__(self, counts: tuple[int, ...]) -> None:
            self._counts = tuple(counts)

        def __call__(self, variables: Any, domains: dict, assignments: dict,
                     forwardcheck: Any = False) -> bool:
            counts = self._counts
            need = list(counts)
            free = []
            for var in variables:
                if var in assignments:
                    x = assignments[var]
                    need[x] -= 1
                    if need[x] < 0:
                        return False
                else:
                    free.append(var)
            if not free:
                return True
            if forwardcheck:
                full = [x for x, k in enumerate(need) if k == 0 and counts[x]]
                if full:
                    for var in free:
                        dom = domains[var]
                        for x in full:
                            if x in dom:
                                dom.hideValue(x)
                        if not dom:
                            return False
            for x, k in enumerate(need):
                if k:
                    holders = [var for var in free if x in domains[var]]
                    if len(holders) < k:
                        return False
                    if forwardcheck and len(holders) == k:
                        # every cell that can take x must take it (a hidden single when k = 1)
                        for var in holders:
                            dom = domains[var]
                            for y in dom[:]:
                                if y != x:
                                    dom.hideValue(y)
                            if not dom:
                                return False
            return True

    return CountConstraint


@cache
def _chain_class() -> type:
    """The inequality-chain constraint class (defined lazily, like :func:`_count_class`)."""
    from constraint import Constraint

    class LessChainConstraint(Constraint):
        """``value(a) < value(b)`` for every pair, with bounds propagation along chains.

        Posted once per connected component of the inequality graph, so it is
        called whenever any of the component's cells is assigned; with forward
        checking it then narrows every unassigned cell of the component to the
        bounds the chains allow (to a fixpoint), not only the assigned cell's
        direct neighbours.
        """

        def __init__(self, pairs: list[tuple[int, int]]) -> None:
            self._pairs = tuple(pairs)

        def __call__(self, variables: Any, domains: dict, assignments: dict,
                     forwardcheck: Any = False) -> bool:
            pairs = self._pairs
            for a, b in pairs:
                if a in assignments and b in assignments and not assignments[a] < assignments[b]:
                    return False
            if not forwardcheck:
                return True
            lo: dict[Any, int] = {}
            hi: dict[Any, int] = {}
            for var in variables:
                if var in assignments:
                    lo[var] = hi[var] = assignments[var]
                else:
                    dom = domains[var]
                    if not dom:
                        return False
                    lo[var], hi[var] = min(dom), max(dom)
            changed = True
            while changed:
                changed = False
                for a, b in pairs:
                    if lo[b] <= lo[a]:
                        if b in assignments:
                            return False
                        above = [x for x in domains[b] if x > lo[a]]
                        if not above:
                            return False
                        lo[b] = min(above)
                        changed = True
                    if hi[a] >= hi[b]:
                        if a in assignments:
                            return False
                        below = [x for x in domains[a] if x < hi[b]]
                        if not below:
                            return False
                        hi[a] = max(below)
                        changed = True
            for var in variables:
                if var not in assignments:
                    dom = domains[var]
                    low, high = lo[var], hi[var]
                    for x in dom[:]:
                        if x < low or x > high:
                            dom.hideValue(x)
            return True

    return LessChainConstraint


@cache
def _support_class() -> type:
    """The binary support constraint class (defined lazily, like :func:`_count_class`)."""
    from constraint import Constraint

    class SupportConstraint(Constraint):
        """``(value(a), value(b))`` lies in a relation's support, given as bit sets.

        ``forward[i]`` has bit j set when value j of ``b`` is compatible with
        value i of ``a``; ``backward[j]`` the reverse. With forward checking,
        assigning one cell hides the other cell's unsupported values;
        :meth:`preProcess` removes the values of either cell that have no
        support at all.
        """

        def __init__(self, forward: tuple[int, ...], backward: tuple[int, ...]) -> None:
            self._forward = tuple(forward)
            self._backward = tuple(backward)

        def __call__(self, variables: Any, domains: dict, assignments: dict,
                     forwardcheck: Any = False) -> bool:
            a, b = variables
            if a in assignments:
                allowed = self._forward[assignments[a]]
                other = b
            elif b in assignments:
                allowed = self._backward[assignments[b]]
                other = a
            else:
                return True
            if other in assignments:
                return bool(allowed >> assignments[other] & 1)
            return not forwardcheck or _hide_outside(domains[other], allowed)

        def preProcess(self, variables: Any, domains: dict, constraints: list,
                       vconstraints: dict) -> None:
            a, b = variables
            while (_revise(domains[a], domains[b], self._forward)
                   | _revise(domains[b], domains[a], self._backward)):
                pass  # both revised each round, until neither removes a value

    return SupportConstraint


def _revise(domain: Any, other: Any, supports: tuple[int, ...]) -> bool:
    """Remove from ``domain`` the values with no support in ``other`` (``supports[x]``:
    the bit set of the values that support ``x``); True when one was removed."""
    reach = 0
    for x in other:
        reach |= 1 << x
    removed = False
    for x in domain[:]:
        if not supports[x] & reach:
            domain.remove(x)
            removed = True
    return removed


@cache
def _cage_class() -> type:
    """The cage constraint class (defined lazily, like :func:`_count_class`)."""
    from constraint import Constraint

    class CageConstraint(Constraint):
        """The variables take the values of one admissible set (bit sets of value indices).

        Every set has as many values as there are variables, so a full
        assignment is accepted exactly when its values are distinct and form
        one of the sets. On a partial assignment the assigned values must be
        distinct and lie in a common set; with forward checking the unassigned
        variables keep only the values of the sets that still fit.
        """

        def __init__(self, combinations: tuple[int, ...]) -> None:
            self._combinations = tuple(combinations)

        def __call__(self, variables: Any, domains: dict, assignments: dict,
                     forwardcheck: Any = False) -> bool:
            used = 0
            free = []
            for var in variables:
                if var in assignments:
                    bit = 1 << assignments[var]
                    if used & bit:
                        return False
                    used |= bit
                else:
                    free.append(var)
            fits = 0
            for combo in self._combinations:
                if combo & used == used:
                    fits |= combo
            if not fits:
                return False
            if free and forwardcheck:
                allowed = fits & ~used
                for var in free:
                    if not _hide_outside(domains[var], allowed):
                        return False
            return True

        def preProcess(self, variables: Any, domains: dict, constraints: list,
                       vconstraints: dict) -> None:
            union = 0
            for combo in self._combinations:
                union |= combo
            for var in variables:
                dom = domains[var]
                for x in dom[:]:
                    if not union >> x & 1:
                        dom.remove(x)

    return CageConstraint


def _hide_outside(dom: Any, allowed: int) -> bool:
    """Hide the values of a python-constraint domain outside the bit set ``allowed``;
    False when none is left."""
    for x in dom[:]:
        if not allowed >> x & 1:
            dom.hideValue(x)
    return bool(dom)


def _column(rows: Any, i: int) -> int:
    """The bit set of the values in position ``i`` of the rows."""
    out = 0
    for row in rows:
        out |= 1 << row[i]
    return out


@cache
def _table_class() -> type:
    """The table constraint class (defined lazily, like :func:`_count_class`)."""
    from constraint import Constraint

    class TableConstraint(Constraint):
        """The variables take the values of one row of a table (tuples of value indices).

        On a partial assignment some row must agree with every assigned value;
        with forward checking the unassigned variables keep only the values of
        the rows that still agree.
        """

        def __init__(self, rows: tuple[tuple[int, ...], ...]) -> None:
            self._rows = tuple(rows)

        def __call__(self, variables: Any, domains: dict, assignments: dict,
                     forwardcheck: Any = False) -> bool:
            fixed = [(i, assignments[var]) for i, var in enumerate(variables)
                     if var in assignments]
            live = [row for row in self._rows if all(row[i] == v for i, v in fixed)]
            if not live:
                return False
            if forwardcheck and len(fixed) < len(variables):
                for i, var in enumerate(variables):
                    if var not in assignments and not _hide_outside(domains[var],
                                                                    _column(live, i)):
                        return False
            return True

        def preProcess(self, variables: Any, domains: dict, constraints: list,
                       vconstraints: dict) -> None:
            for i, var in enumerate(variables):
                allowed = _column(self._rows, i)
                dom = domains[var]
                for x in dom[:]:
                    if not allowed >> x & 1:
                        dom.remove(x)

    return TableConstraint


def table_constraint(rows: tuple[tuple[int, ...], ...]) -> Any:
    """A python-constraint ``Constraint``: the variables take the values of one of
    ``rows`` (as :meth:`futocp.model.Model.allowed_tuples` gives them).

    Example:
        >>> from constraint import Problem
        >>> p = Problem()
        >>> p.addVariables("abc", [0, 1, 2])
        >>> p.addConstraint(table_constraint(((0, 1, 2), (2, 2, 0))), ["a", "b", "c"])
        >>> sorted((s["a"], s["b"], s["c"]) for s in p.getSolutions())
        [(0, 1, 2), (2, 2, 0)]
    """
    return _table_class()(rows)


@cache
def _diagram_class() -> type:
    """The diagram constraint class (defined lazily, like :func:`_count_class`)."""
    from constraint import Constraint

    class DiagramConstraint(Constraint):
        """The variables spell a root-to-terminal path of a layered diagram.

        On a partial assignment some path must go through every assigned value
        and the domains of the others; with forward checking the unassigned
        variables keep only the values on such a path (generalised arc
        consistency, :func:`futocp.diagram.supports`).
        """

        def __init__(self, diagram: Diagram) -> None:
            bit = diagram.relabel(lambda v: 1 << v)
            self._layers, self._levels = bit.layers, bit.levels

        def _supports(self, variables: Any, domains: dict, assignments: dict
                      ) -> list[int] | None:
            lists = []
            for var in variables:
                if var in assignments:
                    lists.append(1 << assignments[var])
                else:
                    m = 0
                    for x in domains[var]:
                        m |= 1 << x
                    lists.append(m)
            return supports(self._layers, self._levels, lists)

        def __call__(self, variables: Any, domains: dict, assignments: dict,
                     forwardcheck: Any = False) -> bool:
            kept = self._supports(variables, domains, assignments)
            if kept is None:
                return False
            if forwardcheck:
                for var, allowed in zip(variables, kept, strict=True):
                    if var not in assignments and not _hide_outside(domains[var], allowed):
                        return False
            return True

        def preProcess(self, variables: Any, domains: dict, constraints: list,
                       vconstraints: dict) -> None:
            kept = self._supports(variables, domains, {})
            for i, var in enumerate(variables):
                dom = domains[var]
                for x in dom[:]:
                    if kept is None or not kept[i] >> x & 1:
                        dom.remove(x)

    return DiagramConstraint


def diagram_constraint(diagram: Diagram) -> Any:
    """A python-constraint ``Constraint``: the variables spell a path of ``diagram``
    (over value indices, as :meth:`futocp.model.Model.diagram` gives it).

    Example:
        >>> from constraint import Problem
        >>> p = Problem()
        >>> p.addVariables("abc", [0, 1, 2])
        >>> d = Diagram.from_tuples([(0, 1, 2), (2, 2, 0)], 3)
        >>> p.addConstraint(diagram_constraint(d), ["a", "b", "c"])
        >>> sorted((s["a"], s["b"], s["c"]) for s in p.getSolutions())
        [(0, 1, 2), (2, 2, 0)]
    """
    return _diagram_class()(diagram)


def _nary(model: Model, rel: Relation) -> Any:
    """The constraint of an n-ary relation: specialised (:data:`NARY_CONSTRAINTS`),
    else its diagram when its kind has an automaton, else its table."""
    make = NARY_CONSTRAINTS.get(rel.kind)
    if make is not None:
        return make(model, rel)
    if get_kind(rel.kind).automaton is not None:
        return diagram_constraint(model.diagram(rel))
    return table_constraint(model.allowed_tuples(rel))


NARY_CONSTRAINTS: dict[str, Callable[[Model, Any], Any]] = {
    "cage": lambda model, rel: cage_constraint(model.combinations(rel)),
}
"""The specialised constraints of n-ary kinds, by kind: ``make(model, rel)``; every
other n-ary kind gets :func:`diagram_constraint` (a kind with an automaton:
``visible``) or :func:`table_constraint` over its allowed tuples."""


def support_constraint(forward: tuple[int, ...], backward: tuple[int, ...]) -> Any:
    """A python-constraint ``Constraint`` on two variables ``(a, b)``: the pair of
    values is allowed by the bit sets ``forward`` / ``backward`` (as
    :meth:`futocp.model.Model.support` returns them).

    Example:
        >>> from constraint import Problem
        >>> p = Problem()
        >>> p.addVariables("ab", [0, 1, 2])
        >>> p.addConstraint(support_constraint((0b010, 0b101, 0b010), (0b010, 0b101, 0b010)), ["a", "b"])
        >>> sorted((s["a"], s["b"]) for s in p.getSolutions())
        [(0, 1), (1, 0), (1, 2), (2, 1)]
    """
    return _support_class()(forward, backward)


def cage_constraint(combinations: tuple[int, ...]) -> Any:
    """A python-constraint ``Constraint``: the variables take exactly the values of
    one of ``combinations`` (bit sets of value indices, each of as many values as
    there are variables: :meth:`futocp.model.Model.combinations`).

    Example:
        >>> from constraint import Problem
        >>> p = Problem()
        >>> p.addVariables("ab", [0, 1, 2, 3])
        >>> p.addConstraint(cage_constraint((0b1001, 0b0110)), ["a", "b"])  # {0, 3} or {1, 2}
        >>> sorted((s["a"], s["b"]) for s in p.getSolutions())
        [(0, 3), (1, 2), (2, 1), (3, 0)]
    """
    return _cage_class()(combinations)


def _less_components(pairs: list[tuple[int, int]]) -> list[tuple[list[int], list[tuple[int, int]]]]:
    """The connected components of the inequality graph: (cells, pairs) each."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    groups: dict[int, tuple[list[int], list[tuple[int, int]]]] = {}
    for a, b in pairs:
        groups.setdefault(find(a), ([], []))[1].append((a, b))
    for x in sorted(parent):
        groups[find(x)][0].append(x)
    return list(groups.values())


def count_constraint(counts: tuple[int, ...]) -> Any:
    """A python-constraint ``Constraint``: value i occurs exactly ``counts[i]`` times.

    Correct on partial assignments (python-constraint checks constraints after
    every assignment of one of their variables). With forward checking it hides
    used-up values from the unassigned cells and, when the cells that can still
    take a value are exactly as many as it needs, every other value from them.

    Example:
        >>> from constraint import Problem
        >>> p = Problem()
        >>> p.addVariables("abcd", [0, 1])
        >>> p.addConstraint(count_constraint((2, 2)), list("abcd"))
        >>> len(p.getSolutions())
        6
    """
    return _count_class()(counts)


def _concrete(opts: dict[str, Any], limit: int | None, model: Model | None = None
              ) -> dict[str, Any]:
    """Options with ``solver=auto`` resolved for this ``limit`` and ``model``.

    Measured (see the module docstring): BacktrackingSolver re-sorts the
    variables by current list size and finds a first solution far sooner;
    OptimizedBacktrackingSolver (static order) enumerates Futoshiki faster, but
    not boards with other relations (cages, adjacent marks).
    """
    if opts["solver"] != "auto":
        return opts
    only_less = model is None or all(r.kind == "less" for r in model.relations)
    return {**opts, "solver": "optimized" if limit != 1 and only_less else "backtracking"}


def _make_solver(name: str, forwardcheck: bool, steps: int, seed: int | None) -> Any:
    import constraint

    cls = getattr(constraint, SOLVERS[name])
    if name == "minconflicts":
        return cls(steps=steps, rand=random.Random(seed) if seed is not None else None)
    return cls(forwardcheck=forwardcheck)


def _compile(model: Model, opts: dict[str, Any], seed: int | None = None) -> Any:
    from constraint import AllDifferentConstraint, FunctionConstraint, Problem, SomeInSetConstraint

    opts = _concrete(opts, 1)
    problem = Problem(_make_solver(opts["solver"], opts["forwardcheck"], opts["steps"], seed))
    rng = random.Random(seed) if seed is not None and opts["solver"] != "minconflicts" else None
    for c in range(model.n_cells):
        dom = model.domain(c)
        if rng is not None:
            rng.shuffle(dom)
        problem.addVariable(c, dom)
    for con in model.permutations:
        if opts["alldifferent"] == "library":
            problem.addConstraint(AllDifferentConstraint(), list(con.cells))
        else:
            problem.addConstraint(count_constraint((1,) * model.n_values), list(con.cells))
    for cnt in model.counts:
        if opts["count"] == "gcc":
            problem.addConstraint(count_constraint(cnt.counts), list(cnt.cells))
        else:
            for x, k in enumerate(cnt.counts):
                problem.addConstraint(SomeInSetConstraint({x}, n=k, exact=True), list(cnt.cells))
    if opts["less"] == "pairs":
        for less in model.less:
            problem.addConstraint(FunctionConstraint(operator.lt), [less.a, less.b])
    else:
        for cells, pairs in _less_components([(con.a, con.b) for con in model.less]):
            problem.addConstraint(_chain_class()(pairs), cells)
    for rel in model.binary:
        if rel.kind == "less":
            continue
        if opts["relations"] == "function":
            problem.addConstraint(_pair_function(model, rel), [rel.a, rel.b])
        else:
            problem.addConstraint(support_constraint(*model.support(rel)), [rel.a, rel.b])
    for group in model.all_different:
        problem.addConstraint(AllDifferentConstraint(), list(group.cells))
    for rel in model.nary:
        problem.addConstraint(_nary(model, rel), list(rel.cells))
    return problem


def _pair_function(model: Model, rel: Any) -> Any:
    """``FunctionConstraint`` testing a pair of value indices against the allowed pairs."""
    from constraint import FunctionConstraint

    allowed = frozenset(model.allowed_pairs(rel))
    return FunctionConstraint(lambda x, y: (x, y) in allowed)


def _search(model: Model, opts: dict[str, Any], limit: int | None, seed: int | None,
            emit: Callable[[tuple[Any, ...]], None]) -> None:
    """Compile and search, reporting through ``emit``.

    Messages: ``("encoded", seconds)``, ``("solution", value_indices)`` per
    solution, then ``("done", exhausted)``.
    """
    t0 = time.perf_counter()
    problem = _compile(model, opts, seed)
    emit(("encoded", time.perf_counter() - t0))
    n = model.n_cells
    if opts["solver"] == "minconflicts":
        sol = problem.getSolution()
        if sol is not None:
            emit(("solution", tuple(sol[c] for c in range(n))))
        emit(("done", False))
        return
    found = 0
    old_limit = sys.getrecursionlimit()
    if opts["solver"] == "recursive":  # one Python frame per assigned cell
        sys.setrecursionlimit(max(old_limit, 4 * n + 1000))
    try:
        it: Iterator[dict[int, int]] = problem.getSolutionIter()
        for sol in it:
            emit(("solution", tuple(sol[c] for c in range(n))))
            found += 1
            if limit is not None and found >= limit:
                emit(("done", False))
                return
    finally:
        sys.setrecursionlimit(old_limit)
    emit(("done", True))


def _run_child(method: str, model: Model, options: dict[str, Any], limit: int | None,
               seed: int | None, time_limit: float, messages: list[tuple[Any, ...]]) -> bool:
    """Search in a child process killed at the deadline, its messages appended to
    ``messages``; True when it was killed before it was done."""
    out = run_child(_searching, (model, options, limit, seed), deadline=Deadline(time_limit),
                    name="futocp-pyconstraint", method=method)
    messages.extend(out.messages)
    if out.crashed:
        messages.append(("error", f"the search process ended with code {out.exitcode} "
                                  "before reporting"))
    elif out.error is not None:
        messages.append(("error", out.error))
    return out.timed_out and not any(msg[0] in ("done", "error") for msg in messages)


def _searching(emit: Callable[[tuple[Any, ...]], None], model: Model, opts: dict[str, Any],
               limit: int | None, seed: int | None) -> None:
    """The search process's call (:func:`~futocp.procs.run_child`): stream the
    messages of :func:`_search`, and an ``("error", ...)`` message for a failure."""
    try:
        _search(model, opts, limit, seed, emit)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        emit(("error", f"{type(exc).__name__}: {exc}"))


class PyconstraintBackend(Backend):
    """python-constraint (python-constraint2)."""

    name = "pyconstraint"
    complete = True
    capabilities = COMPLETE_CAPABILITIES | {"seed"}
    package = Package("python-constraint2", ("constraint",), "pyconstraint")
    counters = ()  # python-constraint reports no search counters
    count_rank = 3
    # cells x values. Measured with the defaults and a 20 s limit: Latin squares with
    # 42% holes (near the phase transition) are solved in a median 0.19 s at order 20
    # (5/5), but at order 25 three of five still ran at 20 s, and the order-30 QWH
    # instances (instances/qwh/csplib067) do not finish in 20 s (empty squares do, up to
    # order 30 in 0.5 s). Order 20 (8,000) is the largest accepted.
    max_literals = 8_000
    options = (
        Option("solver", str, "auto", ("auto", *SOLVERS),
               "python-constraint solver; auto = backtracking for one solution, optimized to "
               "enumerate (minconflicts: local search, incomplete)"),
        Option("alldifferent", str, "permutation", ("permutation", "library"),
               "AllDifferent asterisms: the counting constraint with every count 1 (hidden "
               "singles), or python-constraint's AllDifferentConstraint"),
        Option("count", str, "gcc", ("gcc", "someinset"),
               "multiset asterisms: one counting constraint, or SomeInSetConstraint per value"),
        Option("less", str, "chains", ("chains", "pairs"),
               "inequalities: one bounds-propagating constraint per chain (connected "
               "component), or FunctionConstraint(operator.lt) per pair"),
        Option("relations", str, "support", ("support", "function"),
               "binary relations other than less: the support constraint (bit sets), or "
               "FunctionConstraint over the set of allowed value pairs"),
        Option("forwardcheck", bool, True, None, "forward checking in the backtracking solvers"),
        Option("steps", int, 1000, None, "minconflicts: most steps before giving up",
               min=1),
    )

    def compile(self, model: Model, /, **options: Any) -> Any:
        """The ``constraint.Problem`` for ``model`` (variables are cell numbers)."""
        return _compile(model, self.parse_options(options))

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        options = _concrete(options, limit, model)
        local = options["solver"] == "minconflicts"
        if local and limit != 1:
            raise UnsupportedError(f"backend 'pyconstraint' with solver=minconflicts finds one "
                                   f"solution per run and cannot enumerate: use limit=1 "
                                   f"(got {limit}) or another solver")
        t0 = time.perf_counter()
        messages: list[tuple[Any, ...]] = []
        if time_limit is None:
            _search(model, options, limit, seed, messages.append)
            process, timed_out = "inline", False
        else:
            process = _start_method()
            timed_out = _run_child(process, model, options, limit, seed, time_limit, messages)
        elapsed = time.perf_counter() - t0

        encode_s, exhausted, solutions = 0.0, False, []
        for msg in messages:
            if msg[0] == "encoded":
                encode_s = msg[1]
            elif msg[0] == "solution":
                solutions.append(model.labels_of(msg[1]))
            elif msg[0] == "done":
                exhausted = msg[1]
            elif msg[0] == "error":
                raise SolverError(f"backend 'pyconstraint': the search process failed: {msg[1]}")
        if solutions:
            status = Status.SAT
        elif exhausted and not local:
            status = Status.UNSAT
        else:
            status = Status.UNKNOWN
        stats = {
            "encode_s": encode_s,
            "solve_s": max(0.0, elapsed - encode_s),
            "solver": SOLVERS[options["solver"]],
            "solutions": len(solutions),
            "process": process,
            "timed_out": timed_out,
        }
        return Result(status, solutions, stats, exhausted=exhausted and not timed_out)
