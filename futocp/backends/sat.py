"""SAT backend: a CNF through python-sat (``pysat``).

The direct encoding (one variable per cell and value of its list), exact
cover by python-sat's cardinality encodings (option ``card``), the support
or order encoding of binary relations (``less``), cages (``cage``) and other
n-ary relations (``nary``) -- all in :mod:`futocp.backends.sat_encode` --
then a python-sat solver (``solver``), enumeration by blocking clauses, and
time and memory limits (a child process for solvers that cannot be interrupted).

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "sat".

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = SatBackend().solve(build_model(latin_square(3)), limit=None, card="pairwise")
    >>> r.n_solutions, r.stats["variables"], r.stats["clauses"]  # 27 cells x values; 4 x 27 clauses
    (12, 27, 108)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from ..errors import UsageError
from ..model import Model
from ..result import Result, Status
from .base import (
    COMPLETE_CAPABILITIES,
    KILL_GRACE_S,
    Backend,
    Deadline,
    DeadlinePassed,
    Option,
    Package,
    active_limits,
)
from .sat_encode import (
    AMO_ONLY,
    AUTO_CARD_LONG,
    AUTO_NARY,
    AUTO_PAIRWISE_MAX,
    CAGE_ENCODINGS,
    CARD_CHOICES,
    CARD_ENCODINGS,
    DEFAULT_CAGE,
    DEFAULT_CARD,
    DEFAULT_LESS,
    LESS_ENCODINGS,
    LINEAR_ENCODINGS,
    LIST_CHOICES,
    MAX_PAIRWISE_CLAUSES,
    MULTI_FALLBACK,
    NARY_CHOICES,
    NARY_ENCODERS,
    NaryContext,
    SatFormulation,
    card_for,
    encode,
    estimate_cnf,
    free_literals,
    given_lists,
    pairwise_size,
    pb_available,
    permute_cnf,
)

__all__ = ["SatBackend", "SatFormulation", "CARD_ENCODINGS", "CARD_CHOICES", "LINEAR_ENCODINGS",
           "LESS_ENCODINGS", "CAGE_ENCODINGS", "DEFAULT_CAGE", "AMO_ONLY", "MULTI_FALLBACK",
           "NARY_ENCODERS", "NARY_CHOICES", "AUTO_NARY", "NaryContext",
           "AUTO_SOLVERS", "AUTO_PAIRWISE_MAX", "AUTO_CARD_LONG", "MAX_PAIRWISE_CLAUSES",
           "AUTO_CHILD_LITERALS", "encode", "card_for", "pairwise_size", "pb_available",
           "resolve_solver", "can_interrupt", "estimate_cnf", "free_literals", "permute_cnf",
           "CARD_LONG_CHOICES", "PAIRWISE_LONG_SOLVERS", "AUTO_LONG_PAIRWISE_CLAUSES",
           "long_lists", "AUTO_LONG_SHARE", "LIST_CHOICES", "given_lists", "lists_for"]


CARD_LONG_CHOICES = ("auto", *LINEAR_ENCODINGS)
"""The values of option ``card_long``: ``auto`` (by solver, :func:`long_lists`) or one
linear encoding."""

PAIRWISE_LONG_SOLVERS = ("cadical",)
"""Solver name prefixes for which ``card_long=auto`` keeps long lists pairwise too (while
the formula's pairwise clauses stay within :data:`AUTO_LONG_PAIRWISE_CLAUSES`): CaDiCaL
on a sequential counter needs 8-75x the conflicts it needs on the pairwise clauses of an
empty order-30 square (3 permutations; 3.0-10.5 s against 9.6-51 s), where Kissat (0.6 s
against 5.3 s) and Glucose (1.5 s against 2.3 s) take the counter
(``docs/performance.md``, "Issue 25: CNF and frontier")."""

AUTO_LONG_PAIRWISE_CLAUSES = 2_000_000
"""Under ``card_long=auto`` with a solver of :data:`PAIRWISE_LONG_SOLVERS`, every list is
pairwise when the whole formula's pairwise clauses stay within this, else the lists above
``pairwise_max`` take :data:`AUTO_CARD_LONG`. Between two measured points: the empty
order-30 square (1.2 M) was encoded and solved in 5.8 s (the textbook CNF 6.2 s), the
empty order-40 square (3.7 M) timed out at 30 s in 3 of 3 runs, the encoding in Python
alone taking most of it (load average 8-10)."""

AUTO_LONG_SHARE = 0.5
"""Under ``card_long=auto``, every list is pairwise for any solver when the lists longer
than ``pairwise_max`` would write at most this share of the formula's pairwise clauses:
then the CNF of a Latin square is the textbook 3-D CNF (a few long lists change the
search path, not the formula's strength), while on the (nearly) empty squares, where
every list is long, Kissat and Glucose keep the counter (20/400: 0.07-0.23 s CPU
against 0.23-0.53 s; 30/900: 0.6 s against 5.3 s; ``docs/performance.md``, "Issue 25:
CNF and frontier")."""

NON_INCREMENTAL = ("kissat",)
"""Solver name prefixes that take no clause after a solve (enumeration rebuilds them)."""

AUTO_SOLVERS: dict[str, tuple[str, ...]] = {
    "one": ("kissat404", "cadical195", "cadical300", "glucose42", "minisat22"),
    "many": ("cadical195", "cadical153", "glucose42", "glucose4", "minisat22"),
    "limited": ("glucose42", "glucose4", "minisat22"),
}
"""What ``solver=auto`` runs: the first python-sat has, by case -- ``one`` (one
solution), ``many`` (enumeration: an incremental solver), ``limited`` (a time
limit on a formula of fewer than :data:`AUTO_CHILD_LITERALS` direct literals:
a solver python-sat can interrupt in this process). Chosen by measurement
(``benchmarks/sat_encodings.py``; ``docs/performance.md``)."""

AUTO_CHILD_LITERALS = 1_500
"""From this many direct literals, ``auto`` under a time limit keeps ``one`` /
``many`` (run in a child process killed at the deadline); below, ``limited``.
Measured (one solution, median of 3, a 60 s limit, on a loaded 2-core machine):
on 9x9 Futoshiki (300-500 literals) glucose42 takes 0.01-0.06 s and kissat404 in a
child 0.03-0.15 s (the process start dominates); on QWH-30 with 316 holes (1,405
literals) 0.10 s against 0.25 s; on four QWH-30 with 374 holes (about 1,950
literals) glucose42 5.0 / 1.3 / 7.8 / 48.4 s, kissat404 0.6 / 3.8 / 2.3 / 2.8 s."""


@cache
def _solver_names() -> tuple[str, ...]:
    """The python-sat solvers that can be created here."""
    from pysat.solvers import Solver, SolverNames

    out = []
    for name in sorted(n for n in vars(SolverNames) if not n.startswith("_")):
        try:
            Solver(name=name).delete()
        except Exception:  # noqa: BLE001 - python-sat built without it
            continue
        out.append(name)
    return tuple(out)


def resolve_solver(name: str, limit: int | None = 1, time_limit: float | None = None,
                   literals: int | None = None) -> str:
    """The solver ``solver=name`` means for a run: ``auto`` picks from :data:`AUTO_SOLVERS`;
    any other name stands.

    Under a time limit, ``auto`` keeps the fastest solvers (``one``/``many``,
    run in a child process killed at the deadline) when the formula has at
    least :data:`AUTO_CHILD_LITERALS` direct literals (``literals``); below
    that, starting a process would cost more than the search, and it picks
    from ``limited`` (solvers python-sat interrupts in this process).

    Example:
        >>> resolve_solver("minisat22"), resolve_solver("auto", 1, 10.0)
        ('minisat22', 'glucose42')
        >>> resolve_solver("auto", 1, 10.0, literals=50_000)
        'kissat404'
    """
    if name != "auto":
        return name
    if time_limit is not None and (literals is None or literals < AUTO_CHILD_LITERALS):
        case = "limited"
    else:
        case = "one" if limit == 1 else "many"
    have = set(_solver_names())
    return next((n for n in AUTO_SOLVERS[case] if n in have), AUTO_SOLVERS[case][-1])


@cache
def can_interrupt(name: str) -> bool:
    """Whether python-sat can interrupt solver ``name`` (``solve_limited`` with
    ``interrupt()``); CaDiCaL, Kissat and Lingeling cannot, so a time limit
    runs them in a child process killed at the deadline.

    Example:
        >>> can_interrupt("glucose42"), can_interrupt("cadical195")
        (True, False)
    """
    from pysat.solvers import Solver

    try:
        solver = Solver(name=name)
    except Exception:  # noqa: BLE001 - an unknown name: _new_solver says so
        return True
    try:
        solver.interrupt()
        solver.clear_interrupt()
        return True
    except NotImplementedError:
        return False
    finally:
        solver.delete()



#: Bytes per clause, literal and variable of a CNF held in Python lists and loaded
#: into a solver (measured on Latin squares of order 30-50: pairwise, seqcounter,
#: totalizer; peak resident size within 15% of the estimate).
BYTES_PER_CLAUSE, BYTES_PER_LITERAL, BYTES_PER_VARIABLE = 60, 50, 200

#: Seconds per literal that python-sat spends loading a CNF into a solver (and
#: the unit-propagation pass), which nothing can interrupt in this process
#: (measured: about 0.5 us; three times that, for a loaded machine).
LOAD_S_PER_LITERAL = 1.5e-6


class SatBackend(Backend):
    """SAT through python-sat: direct encoding, exact cover, pysat cardinality encodings."""

    name = "sat"
    complete = True
    capabilities = COMPLETE_CAPABILITIES
    package = Package("python-sat", ("pysat.card", "pysat.solvers"), "sat")
    own_child = True
    c_extension = True
    options = (
        Option("card", str, DEFAULT_CARD, CARD_CHOICES,
               "cardinality encoding (python-sat pysat.card); auto = pairwise for lists of at "
               "most pairwise_max literals, card_long for longer ones"),
        Option("pairwise_max", int, AUTO_PAIRWISE_MAX, None,
               "under card=auto, the longest list (cells of a row, values of a cell) encoded "
               "pairwise", min=0),
        Option("card_long", str, "auto", CARD_LONG_CHOICES,
               "under card=auto, the encoding of lists longer than pairwise_max; auto = "
               "seqcounter, or pairwise too for CaDiCaL while the formula stays small"),
        Option("less", str, DEFAULT_LESS, LESS_ENCODINGS,
               "encoding of inequalities: support clauses or order encoding"),
        Option("cage", str, DEFAULT_CAGE, CAGE_ENCODINGS,
               "encoding of cage sums: admissible label sets or a pseudo-Boolean sum (pysat.pb)"),
        Option("nary", str, "auto", NARY_CHOICES,
               "n-ary kinds with a specialised encoding (visible): specialised, or the generic "
               "diagram encoding; auto = by measurement"),
        Option("lists", str, "auto", ("auto", *LIST_CHOICES),
               "the direct variables: filtered = the model's lists; givens = the lists the "
               "clues alone leave (the textbook 3-D CNF's), the model's filtering as unit "
               "clauses after every other clause; auto = givens for models of groups and "
               "clues only (Latin squares, Sudoku)"),
        Option("simplify", bool, True, None,
               "unit-propagate the CNF and encode again without the values it settles "
               "(lists=filtered)"),
        Option("shuffle", int, 0, None,
               "renumber the CNF's variables and reorder its clauses with this seed before "
               "solving (0: as built): another search path of a deterministic solver, for "
               "portfolios", min=0),
        Option("solver", str, "auto", None,
               "python-sat solver (kissat404, cadical195, glucose42, minisat22, ...); auto = "
               "kissat404 for one solution, cadical195 to enumerate, glucose42 under a time "
               "limit on small formulas"),
    )

    def compile(self, model: Model, /, *, deadline: Deadline | None = None,
                **options: Any) -> SatFormulation:
        """The CNF of ``model`` (options ``card``, ``pairwise_max``, ``card_long``,
        ``less``, ``cage`` and ``simplify``; ``solver`` is ignored); ``deadline`` is
        checked while encoding."""
        opts = self.parse_options(options)
        pairwise_max, card_long = long_lists(model, opts)
        return encode(model, opts["card"], opts["less"], opts["simplify"], opts["cage"],
                      deadline=deadline, pairwise_max=pairwise_max, card_long=card_long,
                      nary=opts["nary"], lists=lists_for(model, opts["lists"]))

    def estimate_mb(self, model: Model, options: dict[str, Any]) -> float | None:
        """The CNF's size in memory, in Python lists and in the solver (see
        :data:`BYTES_PER_CLAUSE`)."""
        clauses, literals, variables = estimate_cnf(model, options["card"],
                                                    *long_lists(model, options))
        return (clauses * BYTES_PER_CLAUSE + literals * BYTES_PER_LITERAL
                + variables * BYTES_PER_VARIABLE) / 2 ** 20

    @staticmethod
    def _new_solver(name: str, clauses: Sequence[Sequence[int]]) -> Any:
        return _new_solver(name, clauses)

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        from ..procs import run_child

        name = resolve_solver(options["solver"], limit, time_limit, free_literals(model))
        if name not in _solver_names():
            _new_solver(name, [])  # the UsageError naming the solvers there are
        limits = active_limits()
        interruptible = can_interrupt(name)
        child = limits.child or (time_limit is not None and not interruptible)
        if time_limit is not None and not child:  # a load nothing can interrupt here
            literals = estimate_cnf(model, options["card"],
                                    *long_lists(model, {**options, "solver": name}))[1]
            child = literals * LOAD_S_PER_LITERAL > time_limit
        args = (self, model, limit, time_limit, {**options, "solver": name}, name)
        if not child:
            messages: list[Any] = [("stats", {"solver": name})]
            _sat_run(messages.append, *args)
            return _assemble(model, messages, time_limit)
        wait = None if time_limit is None else time_limit + (KILL_GRACE_S if interruptible else 0)
        out = run_child(_sat_run, args, deadline=wait, memory_limit=limits.memory_limit,
                        name="futocp-sat", reuse=limits.reuse)
        if out.exception is not None or out.error is not None:
            out.raise_for_error(f"backend 'sat' (solver {name})")
        result = _assemble(model, [("stats", {"solver": name}), *out.messages], time_limit)
        result.stats["process"] = "child"
        if out.memory and limits.memory_limit is not None:
            result.stats["reason"] = out.memory_reason(limits.memory_limit)
            if result.status is Status.UNSAT:  # pragma: no cover - unsat was sent before
                result.status = Status.UNKNOWN
        return result


def lists_for(model: Model, choice: str = "auto") -> str:
    """What option ``lists`` means for ``model``: ``auto`` is ``givens`` when the
    Model has groups and clues only (Latin squares, Sudoku: there the CNF is the
    textbook 3-D CNF plus the filtering's units, and a CDCL solver's search on it is
    the textbook CNF's), else ``filtered``; any other choice stands.

    Example:
        >>> from futocp.families import futoshiki, latin_square
        >>> from futocp.model import build_model
        >>> lists_for(build_model(latin_square(4))), lists_for(build_model(latin_square(4)), "filtered")
        ('givens', 'filtered')
        >>> lists_for(build_model(futoshiki(4, [[0] * 4] * 4, [((0, 0), (0, 1))])))
        'filtered'
    """
    if choice != "auto":
        return choice
    plain = not (model.relations or model.counts or model.all_different)
    return "givens" if plain else "filtered"


def long_lists(model: Model, options: dict[str, Any]) -> tuple[int, str]:
    """``(pairwise_max, card_long)`` to encode with, from the options: ``card_long=auto``
    means :data:`AUTO_CARD_LONG` above ``pairwise_max``, or every list pairwise while
    the formula's pairwise clauses stay within :data:`AUTO_LONG_PAIRWISE_CLAUSES` and
    either the solver is one of :data:`PAIRWISE_LONG_SOLVERS` (option ``solver``;
    ``auto`` stands for its one-solution choice) or the lists longer than
    ``pairwise_max`` would write at most :data:`AUTO_LONG_SHARE` of those clauses
    (a few long lists: then a Latin square's CNF is the textbook one). The lists are
    those of option ``lists``.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> m = build_model(latin_square(12))
        >>> opts = {"card": "auto", "pairwise_max": 10, "card_long": "auto"}
        >>> long_lists(m, {**opts, "solver": "kissat404"}), long_lists(m, {**opts, "solver": "auto"})
        ((10, 'seqcounter'), (10, 'seqcounter'))
        >>> long_lists(m, {**opts, "solver": "cadical195"})
        (144, 'seqcounter')
    """
    pairwise_max, card_long = options["pairwise_max"], options["card_long"]
    if card_long != "auto":
        return pairwise_max, card_long
    if options.get("card", "auto") != "auto":
        return pairwise_max, AUTO_CARD_LONG
    solver = options.get("solver", "auto")
    if solver == "auto":
        solver = resolve_solver("auto")
    doms = (given_lists(model) if lists_for(model, options.get("lists", "auto")) == "givens"
            else model.domains)
    total = pairwise_size(model, None, doms)
    if total <= AUTO_LONG_PAIRWISE_CLAUSES and (
            solver.startswith(PAIRWISE_LONG_SOLVERS)
            or total - pairwise_size(model, pairwise_max, doms) <= AUTO_LONG_SHARE * total):
        return max(pairwise_max, model.n_cells, model.n_values), AUTO_CARD_LONG
    return pairwise_max, AUTO_CARD_LONG


def _new_solver(name: str, clauses: Sequence[Sequence[int]]) -> Any:
    from pysat.solvers import NoSuchSolverError, Solver

    try:
        return Solver(name=name, bootstrap_with=clauses)
    except (NoSuchSolverError, AssertionError):  # AssertionError: its package is missing
        raise UsageError(f"option solver={name!r}: python-sat has no such solver here; "
                         f"choose one of {', '.join(_solver_names())}") from None


def _sat_run(emit: Callable[[Any], None], backend: SatBackend, model: Model,
             limit: int | None, time_limit: float | None, options: dict[str, Any],
             name: str) -> None:
    """Encode and solve, reporting through ``emit`` (in this process, or in a child
    killed at the deadline): ``("phase", what)``, ``("stats", dict)``,
    ``("solution", value indices)``, and ``("done", exhausted, reason)`` at the end
    unless the deadline stopped it first."""
    deadline = Deadline(time_limit)
    emit(("phase", "encoding"))
    try:
        form = backend.compile(model, deadline=deadline, **options)
    except DeadlinePassed:
        return
    stats: dict[str, Any] = {
        "variables": form.n_vars,
        "clauses": form.n_clauses,
        "direct_vars": form.stats["direct_vars"],
        "up_fixed": form.stats["up_fixed"],
        "up_removed": form.stats["up_removed"],
        "list_units": form.stats["list_units"],
        "card": form.card,
        "card_used": form.stats["card_used"],
        "less": form.less,
        "solver": name,
        "encode_s": form.stats["encode_s"],
    }
    if form.card_multi:
        stats["card_multi"] = form.card_multi
    if model.cages:
        stats["cage"] = form.cage
    emit(("stats", stats))
    if form.trivially_unsat:
        emit(("done", True, "an empty clause after simplification"))
        return
    if not form.cnf.clauses:  # unit propagation decided every cell: no solver is called
        emit(("solution", form.read(())))  # (maplesat crashes on an empty formula)
        emit(("done", True, "unit propagation decides every cell"))
        return
    if deadline.expired():
        return
    emit(("phase", "loading the solver"))
    t1 = time.perf_counter()
    clauses, to_new, back = permute_cnf(form.cnf.clauses, form.n_vars, options["shuffle"])
    solver = _new_solver(name, clauses)
    load_s = time.perf_counter() - t1
    emit(("stats", {"load_s": load_s, "encode_s": form.stats["encode_s"] + load_s}))
    emit(("phase", "solving"))
    interruptible = can_interrupt(name)
    incremental = not name.startswith(NON_INCREMENTAL)
    blocks: list[list[int]] = []
    found = 0
    exhausted = stopped = False
    calls = 0
    t0 = time.perf_counter()
    try:
        while limit is None or found < limit:
            answer = _call(solver, deadline, interruptible)
            calls += 1
            if answer is None:  # interrupted at the time limit
                stopped = True
                break
            if not answer:
                exhausted = True
                break
            true_vars = {back[lit] for lit in solver.get_model() if lit > 0}
            values = form.read(true_vars)
            emit(("solution", values))
            found += 1
            block = [-to_new[var] for c, pairs in enumerate(form.cell_vars)
                     for v, var in pairs if v == values[c]]
            if not block:  # every cell is fixed: the only solution
                exhausted = True
                break
            if limit is not None and found >= limit:
                break
            if incremental:
                solver.add_clause(block)
            else:  # Kissat aborts the process on a clause added after a solve
                blocks.append(block)
                solver.delete()
                solver = _new_solver(name, clauses + blocks)
        solve_s = time.perf_counter() - t0
        try:
            acc = solver.accum_stats()
        except NotImplementedError:
            acc = {}
    finally:
        solver.delete()
    final = {"solve_s": solve_s, "sat_calls": calls}
    final.update({k: acc[k] for k in ("conflicts", "decisions", "propagations", "restarts")
                  if k in acc})
    emit(("stats", final))
    if not stopped:
        emit(("done", exhausted, None))


def _call(solver: Any, deadline: Deadline, interruptible: bool = True) -> bool | None:
    """One solve call; None when the deadline interrupted it (or had passed). A
    solver python-sat cannot interrupt runs in a child process, killed at the
    deadline."""
    remaining = deadline.remaining()
    if remaining is None or not interruptible:
        if remaining is not None and remaining <= 0:
            return None
        return solver.solve()
    if remaining <= 0:
        return None
    timer = threading.Timer(remaining, solver.interrupt)
    timer.daemon = True
    timer.start()
    try:
        return solver.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


def _assemble(model: Model, messages: Sequence[Any], time_limit: float | None) -> Result:
    """The Result from what :func:`_sat_run` reported (all of it, or what it sent
    before the deadline stopped it)."""
    from ..procs import read_messages

    phase, stats, solutions, end = read_messages(messages, model.labels_of, "encoding")
    done = end is not None
    exhausted, reason = end or (False, None)
    if not done and time_limit is not None:
        reason = f"time limit of {time_limit:g} s reached while {phase}"
    if reason:
        stats["reason"] = reason
    stats.setdefault("solve_s", 0.0)
    if solutions:
        status = Status.SAT
    elif done and exhausted:
        status = Status.UNSAT
    else:
        status = Status.UNKNOWN
    return Result(status, solutions, stats, exhausted=done and exhausted)
