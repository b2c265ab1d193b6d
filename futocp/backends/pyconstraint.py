"""python-constraint backend (PyPI ``python-constraint2``, import name ``constraint``).

The formulation: one variable per cell whose domain is the cell's list (value
indices into :attr:`~futocp.model.Model.values`, so index order is label order
and ``Less`` compares indices); a clue cell has a one-value domain.

* AllDifferent asterism -> ``AllDifferentConstraint``;
* Count asterism (a multiset) -> option ``count``: ``gcc`` (default) posts one
  :func:`count_constraint` per asterism, a counting constraint that rejects a
  value used more often than its multiplicity, hides saturated values from the
  asterism's unassigned cells and fails when a value can no longer reach its
  multiplicity; ``someinset`` posts python-constraint's own
  ``SomeInSetConstraint({v}, n=multiplicity, exact=True)`` per (asterism, value);
* Less -> ``FunctionConstraint(operator.lt)`` on the two cells.

The python-constraint solver is option ``solver``: ``backtracking``
(BacktrackingSolver), ``optimized`` (OptimizedBacktrackingSolver),
``recursive`` (RecursiveBacktrackingSolver), ``minconflicts``
(MinConflictsSolver: local search, incomplete, one solution per run, so it
answers ``unknown`` rather than ``unsat`` and refuses a ``limit`` other than 1),
or ``auto`` (default): backtracking for one solution, optimized to enumerate.
Measured here: the optimized solver orders the variables once, by degree and
initial list size, and on an empty Latin square of order 15 finds no solution
in 15 s where BacktrackingSolver (which re-sorts by current list size) takes
0.04 s; enumerating the 161,280 Latin squares of order 5 it is faster
(14-17 s against 26 s). Option ``alldifferent=permutation`` replaces
``AllDifferentConstraint`` by the counting constraint with every count 1, which
also fails when a value has no cell left: 2-7x faster to a first solution on
orders 20-30, 1.4-1.8x slower to enumerate order 5.

python-constraint has neither a solution limit nor a time limit; this backend
adds both: it draws at most ``limit`` solutions from ``getSolutionIter()``
(``exhausted`` is True only when the iterator ended), and with a time limit it
runs the search in a child process that streams solutions back through a pipe
and is killed at the deadline (``unknown`` with none found, ``sat`` with
``exhausted`` False otherwise). Without a time limit the search runs in this
process.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = PyconstraintBackend().solve(build_model(latin_square(3)), limit=None)
    >>> r.status.value, r.n_solutions, r.exhausted
    ('sat', 12, True)
"""

from __future__ import annotations

import multiprocessing
import operator
import random
import sys
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from ..errors import FutocpError, UnsupportedError, UsageError
from ..model import Model
from ..result import Result, Status
from .base import Backend, Deadline, Option

__all__ = ["PyconstraintBackend", "count_constraint", "SOLVERS"]

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
                    supply = 0
                    for var in free:
                        if x in domains[var]:
                            supply += 1
                            if supply >= k:
                                break
                    else:
                        return False
            return True

    return CountConstraint


def count_constraint(counts: tuple[int, ...]) -> Any:
    """A python-constraint ``Constraint``: value i occurs exactly ``counts[i]`` times.

    Correct on partial assignments (python-constraint checks constraints after
    every assignment, and with forward checking may hide values).

    Example:
        >>> from constraint import Problem
        >>> p = Problem()
        >>> p.addVariables("abcd", [0, 1])
        >>> p.addConstraint(count_constraint((2, 2)), list("abcd"))
        >>> len(p.getSolutions())
        6
    """
    return _count_class()(counts)


def _concrete(opts: dict[str, Any], limit: int | None) -> dict[str, Any]:
    """Options with ``solver=auto`` resolved for this ``limit``.

    Measured (see the module docstring): BacktrackingSolver re-sorts the
    variables by current list size and finds a first solution far sooner;
    OptimizedBacktrackingSolver (static order) enumerates faster.
    """
    if opts["solver"] != "auto":
        return opts
    return {**opts, "solver": "backtracking" if limit == 1 else "optimized"}


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
    for con in model.all_different:
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
    for less in model.less:
        problem.addConstraint(FunctionConstraint(operator.lt), [less.a, less.b])
    return problem


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


def _child(conn: Any, model: Model, opts: dict[str, Any], limit: int | None,
           seed: int | None) -> None:
    """Entry point of the search process: stream the messages of :func:`_search`."""
    try:
        _search(model, opts, limit, seed, conn.send)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _start_method() -> str:
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class PyconstraintBackend(Backend):
    """python-constraint (python-constraint2)."""

    name = "pyconstraint"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "less",
                              "strings"})
    extra = "pyconstraint"
    # cells x values. Measured with a 20 s limit: Latin squares with 42% holes are
    # solved in a median 0.05 s at order 15 and 0.3 s at order 17; at order 20 three
    # of five still ran at 20 s, and none of the order-30 QWH instances of
    # ../shared/data/qwh finishes in 30 s. Order 20 (8,000) is the largest accepted.
    max_literals = 8_000
    options = (
        Option("solver", str, "auto", ("auto", *SOLVERS),
               "python-constraint solver; auto = backtracking for one solution, optimized to "
               "enumerate (minconflicts: local search, incomplete)"),
        Option("alldifferent", str, "library", ("library", "permutation"),
               "AllDifferent asterisms: AllDifferentConstraint, or the counting constraint "
               "with every count 1 (also fails when a value has no cell left)"),
        Option("count", str, "gcc", ("gcc", "someinset"),
               "multiset asterisms: one counting constraint, or SomeInSetConstraint per value"),
        Option("forwardcheck", bool, True, None, "forward checking in the backtracking solvers"),
        Option("steps", int, 1000, None, "minconflicts: most steps before giving up"),
    )

    @classmethod
    def available(cls) -> bool | str:
        try:
            import constraint  # noqa: F401
        except ImportError:
            return "the python-constraint2 package is not installed"
        return True

    def compile(self, model: Model, **options: Any) -> Any:
        """The ``constraint.Problem`` for ``model`` (variables are cell numbers)."""
        return _compile(model, self.parse_options(options))

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        options = _concrete(options, limit)
        local = options["solver"] == "minconflicts"
        if local and limit != 1:
            raise UnsupportedError(f"backend 'pyconstraint' with solver=minconflicts finds one "
                                   f"solution per run and cannot enumerate: use limit=1 "
                                   f"(got {limit}) or another solver")
        if options["steps"] < 1:
            raise UsageError(f"option steps={options['steps']}: expected a positive integer")
        t0 = time.perf_counter()
        messages: list[tuple[Any, ...]] = []
        if time_limit is None:
            _search(model, options, limit, seed, messages.append)
            process, timed_out = "inline", False
        else:
            process = _start_method()
            timed_out = self._run_child(process, model, options, limit, seed, time_limit,
                                        messages)
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
                raise FutocpError(f"backend 'pyconstraint': the search process failed: {msg[1]}")
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

    @staticmethod
    def _run_child(method: str, model: Model, options: dict[str, Any], limit: int | None,
                   seed: int | None, time_limit: float, messages: list[tuple[Any, ...]]) -> bool:
        """Search in a child process killed at the deadline; True when it was killed."""
        ctx = multiprocessing.get_context(method)
        deadline = Deadline(time_limit)
        reader, writer = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(writer, model, options, limit, seed),
                           name="futocp-pyconstraint", daemon=True)
        proc.start()
        writer.close()
        timed_out = False

        def take() -> bool:
            """Read one message; True when it ends the search."""
            try:
                msg = reader.recv()
            except (EOFError, OSError):
                proc.join(1.0)
                msg = ("error", f"the search process ended with code {proc.exitcode} "
                                "before reporting")
            messages.append(msg)
            return msg[0] in ("done", "error")

        try:
            while True:
                left = deadline.remaining() or 0.0
                if left > 0 and reader.poll(left):
                    if take():
                        break
                    continue
                timed_out = True
                proc.kill()
                proc.join()
                while reader.poll(0):  # what the child sent before it was killed
                    try:
                        msg = reader.recv()
                    except (EOFError, OSError):  # nothing more, or a message cut short
                        break
                    messages.append(msg)
                    if msg[0] in ("done", "error"):
                        timed_out = False
                        break
                break
        finally:
            if proc.is_alive():
                proc.kill()
            proc.join()
            reader.close()
        return timed_out
