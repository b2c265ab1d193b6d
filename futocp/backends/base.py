"""The backend protocol and the base class every backend derives from.

A backend compiles a :class:`~futocp.model.Model` into its native formulation
(:meth:`Backend.compile`, inspectable) and solves it (:meth:`Backend.solve`),
answering a :class:`~futocp.result.Result`. The base class does what is common
to all: it checks that the solver package is present, that the options are
known and well typed, that the model needs nothing the backend lacks; it
answers ``unsat`` at once for a model with a known clue conflict, and answers
a model the givens and the filtering already decide (every list a single
value) without calling the solver, checked by :func:`futocp.verify.verify`
(``sat`` with that solution, or ``unsat``); and it fills the timing stats
(``build_s``, ``solve_s``, ``wall_s``).

Limits. ``time_limit`` covers encoding as well as search: a backend checks its
:class:`Deadline` while it encodes (:meth:`Deadline.tick`, which raises
:class:`DeadlinePassed`) and the base class answers ``unknown`` with the
reason (``time limit of 10 s reached while encoding``). A backend may declare
:meth:`Backend.estimate_mb`, the memory its encoding needs: a model that
clearly cannot fit (more than this machine's available memory) is refused
with :class:`~futocp.errors.UnsupportedError` before anything is allocated.
``memory_limit`` (MB) and ``isolate`` run the solve in a child process
(:mod:`futocp.procs`): past the memory limit the answer is
``unknown`` with the reason ``memory limit of N MB reached``; a crash of the
solver's C code there costs that run only (:class:`~futocp.errors.SolverError`).
A backend with ``own_child = True`` (``sat``, ``cpsat``) runs its own child and
reads the limits from :func:`active_limits`; the others are run whole in a
child by the base class. :func:`run_limits` sets defaults for every solve
within a block (the CLI's ``--memory-limit``).

A subclass declares ``name``, ``complete``, ``capabilities``, ``options`` and
implements :meth:`Backend._solve` (and :meth:`Backend.compile`).

Capabilities: ``enumerate`` (more than one solution), ``time_limit``, ``seed``,
``unsat`` (can prove infeasibility), and the model features ``multiset``
(Count), ``strings`` (string labels), ``alldifferent`` (partial all-different
groups, as in cages), ``binary`` (every binary relation kind of the registry,
through the generic support encoding), ``nary`` (every n-ary relation kind of
the registry, through its generic decomposition: the table or the diagram of
:meth:`~futocp.model.Model.allowed_tuples` / :meth:`~futocp.model.Model.diagram`,
or its predicate) and the names of the relation kinds the backend encodes
beyond that (``less``).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..errors import BackendUnavailable, UnsupportedError, UsageError
from ..model import Model
from ..records import stop_reason
from ..relations import binary_kinds, nary_kinds
from ..result import Result, Status
from ..verify import verify

__all__ = ["Option", "Package", "Backend", "Deadline", "DeadlinePassed", "RunLimits", "run_limits",
           "active_limits", "decided_values", "seed_for", "KILL_GRACE_S", "COMPLETE_CAPABILITIES",
           "LOCAL_SEARCH_CAPABILITIES"]

KILL_GRACE_S = 0.3
"""Seconds a child that honours the time limit itself gets beyond it before it is killed."""

COMPLETE_CAPABILITIES = frozenset({"enumerate", "time_limit", "unsat", "multiset", "less",
                                   "strings", "binary", "nary", "alldifferent"})
"""The :attr:`Backend.capabilities` of a complete backend that takes every model:
a backend adds ``seed`` when a seed steers its search, ``cage`` when it has a
specialised cage encoding."""

LOCAL_SEARCH_CAPABILITIES = frozenset({"time_limit", "seed", "less", "binary", "multiset",
                                       "strings"})
"""The :attr:`Backend.capabilities` of the seeds' local searches (``anneal``,
``genetic``): one solution, no proof of unsatisfiability, binary relations only."""


@dataclass(frozen=True)
class Option:
    """A backend option: name, type, default, (optionally) allowed values and bounds.

    Attributes:
        name: The key (``workers``, ``cooling``...).
        type: ``int``, ``float``, ``str`` or ``bool``.
        default: The default value (not checked against the bounds).
        choices: The allowed values, or None for any value of the type.
        help: One line for ``futocp backends``.
        min: Smallest value of a number, or None.
        max: Largest value of a number, or None.
        min_exclusive: ``min`` itself is refused (``t0 > 0``).
        max_exclusive: ``max`` itself is refused (``cooling < 1``).

    Example:
        >>> Option("cooling", float, 2e-6, max=1, max_exclusive=True, min=0).parse("0.5")
        0.5
        >>> Option("workers", int, 1, min=1).parse(0)
        Traceback (most recent call last):
        ...
        futocp.errors.UsageError: option workers=0: must be at least 1
    """

    name: str
    type: type
    default: Any
    choices: tuple[Any, ...] | None = None
    help: str = ""
    min: float | None = None
    max: float | None = None
    min_exclusive: bool = False
    max_exclusive: bool = False

    def parse(self, value: Any) -> Any:
        """Convert (from a CLI string if need be) and check a value.

        Raises:
            UsageError: for a value of the wrong type, not among the choices or
                out of the bounds (NaN is out of any bounds).
        """
        if isinstance(value, str) and self.type is not str:
            try:
                if self.type is bool:
                    if value.lower() not in ("1", "0", "true", "false", "yes", "no"):
                        raise ValueError(value)
                    value = value.lower() in ("1", "true", "yes")
                else:
                    value = self.type(value)
            except ValueError:
                raise UsageError(f"option {self.name}={value!r}: expected {self.type.__name__}") from None
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type):
            raise UsageError(f"option {self.name}={value!r}: expected {self.type.__name__}")
        if self.choices is not None and value not in self.choices:
            raise UsageError(f"option {self.name}={value!r}: choose one of "
                             f"{', '.join(map(str, self.choices))}")
        if not self.in_bounds(value):
            raise UsageError(f"option {self.name}={value!r}: must be {self.bounds()}")
        return value

    def in_bounds(self, value: Any) -> bool:
        """True if ``value`` is within ``min`` and ``max`` (written so that NaN is not)."""
        if self.min is not None and not (value > self.min if self.min_exclusive
                                         else value >= self.min):
            return False
        return self.max is None or bool(value < self.max if self.max_exclusive
                                        else value <= self.max)

    def bounds(self) -> str:
        """The bounds in words (``at least 1``, ``in [0, 1)``), or ``""`` without any."""
        if self.min is not None and self.max is not None:
            return (f"in {'(' if self.min_exclusive else '['}{self.min}, "
                    f"{self.max}{')' if self.max_exclusive else ']'}")
        if self.min is not None:
            return f"{'greater than' if self.min_exclusive else 'at least'} {self.min}"
        if self.max is not None:
            return f"{'less than' if self.max_exclusive else 'at most'} {self.max}"
        return ""


class DeadlinePassed(Exception):
    """Raised by :meth:`Deadline.tick` once the deadline has passed (not an error:
    :meth:`Backend.solve` answers ``unknown`` with the reason).

    Attributes:
        phase: What was cut short (``encoding``, ``building the model`` ...).
    """

    def __init__(self, phase: str = "encoding") -> None:
        self.phase = phase
        super().__init__(phase)


class Deadline:
    """A wall-clock deadline; ``None`` seconds means no limit.

    Example:
        >>> d = Deadline(None)
        >>> d.remaining(), d.expired()
        (None, False)
    """

    #: :meth:`tick` looks at the clock once in this many calls.
    TICK_EVERY = 256

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.end = None if seconds is None else time.perf_counter() + seconds
        self._ticks = 0

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        return None if self.end is None else max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.end is not None and time.perf_counter() >= self.end

    def tick(self, phase: str = "encoding", weight: int = 1) -> None:
        """Cheap check inside an encoding loop: once the calls' ``weight`` adds up to
        :attr:`TICK_EVERY`, raise :class:`DeadlinePassed` (with ``phase``) if the
        deadline has passed (a call doing more work gives a larger weight)."""
        if self.end is None:
            return
        self._ticks += weight
        if self._ticks >= self.TICK_EVERY:
            self._ticks = 0
            if time.perf_counter() >= self.end:
                raise DeadlinePassed(phase)

    def check(self, phase: str = "encoding") -> None:
        """Raise :class:`DeadlinePassed` now if the deadline has passed."""
        if self.end is not None and time.perf_counter() >= self.end:
            raise DeadlinePassed(phase)


@dataclass(frozen=True)
class RunLimits:
    """Resource limits of a solve besides its time limit.

    Attributes:
        memory_limit: MB the solving process may hold (None: no limit); the
            solve runs in a child process.
        isolate: Run the solve in a child process even without a memory limit,
            so that a crash of the solver's C code costs that run only.
        reuse: Run in one reusable child process (see
            :func:`~futocp.procs.run_child`) rather than a fresh fork
            per solve: tens of milliseconds less per solve, for callers that solve
            many small boards and change no registry meanwhile (the CLI); it is
            started at the first solve and stopped at the end of the
            :func:`run_limits` block.
    """

    memory_limit: float | None = None
    isolate: bool = False
    reuse: bool = False

    @property
    def child(self) -> bool:
        """True when the solve must run in a child process."""
        return self.memory_limit is not None or self.isolate


_NO_LIMITS = RunLimits()
_DEFAULT_LIMITS: contextvars.ContextVar[RunLimits] = contextvars.ContextVar(
    "futocp_default_limits")
_ACTIVE_LIMITS: contextvars.ContextVar[RunLimits] = contextvars.ContextVar(
    "futocp_active_limits")


@contextlib.contextmanager
def run_limits(memory_limit: float | None = None, isolate: bool = False,
               reuse: bool = False) -> Iterator[RunLimits]:
    """Within the block, every :meth:`Backend.solve` that names no limit of its own
    gets these (e.g. ``--memory-limit`` for every backend of a crosscheck).

    ``isolate`` applies to the backends whose solver is C code run in this
    process only (``Backend.c_extension``: ``sat`` and ``cpsat``): a crash there
    then costs that run, not the caller's process. The CLI's ``solve`` and
    ``crosscheck`` run within ``run_limits(memory_limit, isolate=True, reuse=True)``.

    Example:
        >>> with run_limits(memory_limit=2048) as limits:
        ...     limits.memory_limit, limits.child
        (2048, True)
    """
    _check_memory_limit(memory_limit)
    limits = RunLimits(memory_limit, bool(isolate), bool(reuse))
    token = _DEFAULT_LIMITS.set(limits)
    try:
        yield limits
    finally:
        _DEFAULT_LIMITS.reset(token)
        if reuse:  # the reusable child lives as long as the block
            from ..procs import close_worker

            close_worker()


def active_limits() -> RunLimits:
    """The limits of the solve running now (for a backend with ``own_child``)."""
    return _ACTIVE_LIMITS.get(_NO_LIMITS)


def _check_memory_limit(memory_limit: Any) -> None:
    if memory_limit is None:
        return
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, (int, float)) \
            or not memory_limit > 0 or memory_limit == float("inf"):
        raise UsageError(f"memory limit must be a positive number of MB, got {memory_limit!r}")


def seed_for(backend: type[Backend] | Backend, seed: int | None) -> int | None:
    """The seed to give ``backend`` in a run that hands one seed to several backends (a
    crosscheck, an experiment, auto's members): ``seed`` when the backend takes one,
    else None (:meth:`Backend.solve` refuses a seed the backend has no use for).

    Example:
        >>> from futocp.backends import REGISTRY
        >>> seed_for(REGISTRY["cpsat"], 3), seed_for(REGISTRY["sat"], 3)
        (3, None)
    """
    return seed if "seed" in backend.capabilities else None


def decided_values(model: Model) -> tuple[int, ...] | None:
    """The value index of every cell when every list is a single value, else None.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> decided_values(build_model(latin_square(2, [[1, 2], [2, 0]])))
        (0, 1, 1, 0)
    """
    out = []
    for d in model.domains:
        if d <= 0 or d & (d - 1):
            return None
        out.append(d.bit_length() - 1)
    return tuple(out)


def _child_solve(emit: Any, backend: Backend, model: Model, limit: int | None,
                 time_limit: float | None, seed: int | None,
                 options: dict[str, Any]) -> Result:
    """In a child process: the backend's own search (see :meth:`Backend._solve_in_child`)."""
    try:
        return backend._solve(model, limit, time_limit, seed, options)
    except DeadlinePassed as exc:
        return Result(Status.UNKNOWN, [], {"reason": f"time limit of {time_limit:g} s "
                                                     f"reached while {exc.phase}"})


@dataclass(frozen=True)
class Package:
    """The third-party solver a backend runs on.

    Attributes:
        name: Its distribution on PyPI (run records report its version).
        imports: The modules the backend imports (:meth:`Backend.available` tries them).
        extra: futocp's pip extra that installs it.
    """

    name: str
    imports: tuple[str, ...]
    extra: str


class Backend:
    """Base class of the backends (the protocol of DESIGN.md)."""

    name: ClassVar[str] = ""
    complete: ClassVar[bool] = True
    capabilities: ClassVar[frozenset[str]] = frozenset()
    options: ClassVar[tuple[Option, ...]] = ()
    package: ClassVar[Package | None] = None  # the third-party solver it runs on, if any
    counters: ClassVar[tuple[str, ...]] = ()  # the search counters its stats report
    count_rank: ClassVar[int | None] = None  # order of preference for counting (None: never)
    # answer a board the givens and the filtering decide without running the search
    # (no solver is handed a case it may crash on); False for the pure-Python searches
    # whose counters are the point (the seeds' algorithms count every node)
    decided_shortcut: ClassVar[bool] = True
    max_literals: ClassVar[int] = 20_000_000  # cells x values the backend accepts
    own_child: ClassVar[bool] = False  # runs its own child process for the limits (see above)
    c_extension: ClassVar[bool] = False  # its solver is C code run in this process (could crash it)
    # the compiled cores its search runs on (module names of futocp.cores.CORES)
    cores: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def available(cls) -> bool | str:
        """True, or a sentence saying why the backend cannot run here (a module of
        :attr:`package` that cannot be imported)."""
        import importlib

        for module in cls.package.imports if cls.package else ():
            try:
                importlib.import_module(module)
            except ImportError:
                return f"the {cls.package.name} package is not installed"  # type: ignore[union-attr]
        return True

    @staticmethod
    def outcome(solutions: list[tuple[Any, ...]], finished: bool, limit: int | None,
                stats: dict[str, Any]) -> Result:
        """The Result of a search: ``sat`` with solutions, else ``unsat`` when the
        search finished, else ``unknown``; exhausted when it finished below ``limit``
        (:meth:`status_of`)."""
        status, exhausted = Backend.status_of(len(solutions), finished, limit)
        return Result(status, solutions, stats, exhausted=exhausted)

    @staticmethod
    def status_of(n_solutions: int, finished: bool, limit: int | None) -> tuple[Status, bool]:
        """The status and ``exhausted`` flag of a search that found ``n_solutions``
        and ``finished`` (or not), asked for ``limit`` (:meth:`outcome`'s)."""
        if n_solutions:
            status = Status.SAT
        elif finished:
            status = Status.UNSAT
        else:
            status = Status.UNKNOWN
        return status, finished and (limit is None or n_solutions < limit)

    @classmethod
    def supported(cls) -> frozenset[str]:
        """The model features the backend handles: its capabilities, with
        ``binary`` standing for every binary relation kind of the registry and
        ``nary`` for every n-ary one."""
        out = cls.capabilities
        if "binary" in out:
            out = out | frozenset(binary_kinds())
        if "nary" in out:
            out = out | frozenset(nary_kinds())
        return out

    @classmethod
    def parse_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Check options against the declared ones and fill in the defaults.

        Raises:
            UsageError: for an unknown option or a bad value.
        """
        known = {o.name: o for o in cls.options}
        for key in options:
            if key not in known:
                names = ", ".join(sorted(known)) or "none"
                raise UsageError(f"backend {cls.name!r} has no option {key!r} (options: {names})")
        return {name: opt.parse(options[name]) if name in options else opt.default
                for name, opt in known.items()}

    def check(self, model: Model) -> None:
        """Raise if the backend cannot run or cannot hold this model."""
        ok = self.available()
        if ok is not True:
            hint = f"; install it with: pip install 'futocp[{self.package.extra}]'" if self.package else ""
            raise BackendUnavailable(f"backend {self.name!r} is not available: {ok}{hint}")
        missing = model.features - self.supported()
        if missing:
            raise UnsupportedError(f"backend {self.name!r} does not support "
                                   f"{', '.join(sorted(missing))} (this model needs it)")
        size = model.n_cells * model.n_values
        if size > self.max_literals:
            raise UnsupportedError(
                f"backend {self.name!r} refuses a model of {model.n_cells} cells x "
                f"{model.n_values} values ({size:,} > {self.max_literals:,})")

    def estimate_mb(self, model: Model, options: dict[str, Any]) -> float | None:
        """About how many MB encoding and loading ``model`` take (None: not estimated).

        Called with the parsed options before anything is built; a backend
        whose encoding can outgrow memory overrides it."""
        return None

    def check_memory(self, model: Model, options: dict[str, Any],
                     memory_limit: float | None = None) -> str | None:
        """Refuse a model whose encoding clearly cannot fit in memory.

        Returns:
            None, or the reason to answer ``unknown`` at once: the estimate is
            more than one and a half times ``memory_limit``.

        Raises:
            UnsupportedError: the estimate is more than this machine's available memory.
        """
        need = self.estimate_mb(model, options)
        if need is None:
            return None
        from ..procs import available_mb, memory_reason

        have = available_mb()
        size = (f"a model of {model.n_cells:,} cells x {model.n_values:,} values")
        if have is not None and need > have:
            raise UnsupportedError(
                f"backend {self.name!r} would need about {need:,.0f} MB to encode {size}, "
                f"more than the {have:,.0f} MB available here; try a smaller board or "
                f"another backend or encoding")
        if memory_limit is not None and need > 1.5 * memory_limit:
            return (f"{memory_reason(memory_limit)}: encoding {size} takes about "
                    f"{need:,.0f} MB")
        return None

    def compile(self, model: Model, /, **options: Any) -> Any:
        """The native formulation of ``model`` (for inspection and export)."""
        raise NotImplementedError

    def solve(self, model: Model, /, *, limit: int | None = 1, time_limit: float | None = None,
              seed: int | None = None, memory_limit: float | None = None,
              isolate: bool | None = None, **options: Any) -> Result:
        """Solve ``model``: up to ``limit`` solutions (None = all) within ``time_limit`` s.

        Args:
            model: The Model.
            limit: Most solutions (None = all).
            time_limit: Seconds for encoding and search, or None.
            seed: Random seed, or None; refused (UsageError) by a backend without the
                capability ``seed``: its search does not depend on one (a caller that
                hands one seed to several backends gives it with :func:`seed_for`).
            memory_limit: MB the solve may use (default: :func:`run_limits`'s, else
                none); past it the answer is ``unknown`` with the reason.
            isolate: Run in a child process (default: :func:`run_limits`'s, else
                False), so that a crash of the solver costs this run only.
            **options: The backend's options.

        Raises:
            BackendUnavailable, UnsupportedError, UsageError; SolverError when the
            solver crashed (in a child process) or answered garbage.
        """
        opts = self.parse_options(options)
        if seed is not None and "seed" not in self.capabilities:
            raise UsageError(f"backend {self.name!r} takes no seed (its search does not depend "
                             "on one); leave the seed out")
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise UsageError(f"limit must be a positive integer or None, got {limit!r}")
        if time_limit is not None and time_limit <= 0:
            raise UsageError(f"time limit must be positive, got {time_limit!r}")
        _check_memory_limit(memory_limit)
        limits = _DEFAULT_LIMITS.get(_NO_LIMITS)
        if memory_limit is not None:
            limits = replace(limits, memory_limit=memory_limit)
        if isolate is not None:
            limits = replace(limits, isolate=bool(isolate))
        elif limits.isolate and not self.c_extension:  # a default isolates C solvers only
            limits = replace(limits, isolate=False)
        self.check(model)  # imports the solver package: before the clock starts
        t0 = time.perf_counter()
        decided = (None if model.conflict is not None or not self.decided_shortcut
                   else decided_values(model))
        if model.conflict is not None and not self.complete:
            # the Model proves it, but an incomplete backend never answers unsat
            result = Result(Status.UNKNOWN, [], {"reason": f"no solution: {model.conflict}",
                                                 "solve_s": 0.0, "stopped": "no solution"})
        elif model.conflict is not None:
            result = Result(Status.UNSAT, [], {"reason": model.conflict, "solve_s": 0.0},
                            exhausted=True)
        elif decided is not None:  # no solver is handed a decided board
            result = self._decided(model, decided)
        else:
            refused = self.check_memory(model, opts, limits.memory_limit)
            if refused is not None:
                result = Result(Status.UNKNOWN, [], {"reason": refused, "solve_s": 0.0})
            else:
                result = self._run(model, limit, time_limit, seed, opts, limits)
        result.backend = self.name
        result.board = model.board
        result.limit = limit
        stats = result.stats
        stats["build_s"] = model.stats.get("build_s", 0.0) + stats.pop("encode_s", 0.0)
        stats.setdefault("solve_s", 0.0)
        stats["wall_s"] = model.stats.get("build_s", 0.0) + time.perf_counter() - t0
        stats.setdefault("removed_values", model.stats.get("removed_values", 0))
        stats.setdefault("fixed_cells", model.stats.get("fixed_cells", 0))
        if result.status is Status.UNSAT:
            result.exhausted = True
        elapsed = time.perf_counter() - t0
        if (time_limit is not None and not result.finished and elapsed >= 0.95 * time_limit
                and stats.get("stopped", "time limit") == "time limit"):
            stats.setdefault("reason", f"time limit of {time_limit:g} s reached")
        stats["stopped"] = stop_reason(self.complete, result.status.value, result.finished,
                                       result.exhausted, stats)
        return result

    def _decided(self, model: Model, values: tuple[int, ...]) -> Result:
        """The answer for a model whose every list is a single value, checked by
        :func:`~futocp.verify.verify` on the board: ``sat`` with that solution, or
        ``unsat``. An incomplete backend claims no more than its search could:
        not exhausted, and ``unknown`` rather than ``unsat``."""
        labels = model.labels_of(values)
        broken = verify(model.board, labels)  # kept in the Result: checked once
        stats: dict[str, Any] = {"solve_s": 0.0, "decided": True}
        if broken:
            stats["reason"] = f"the givens and the filtering decide every cell, wrongly: {broken[0]}"
            if not self.complete:
                return Result(Status.UNKNOWN, [], {**stats, "stopped": "no solution"})
            return Result(Status.UNSAT, [], stats, exhausted=True)
        stats["reason"] = "the givens and the filtering decide every cell"
        if not self.complete:  # the only solution, though an incomplete search cannot say so
            stats["stopped"] = "found"
        return Result(Status.SAT, [labels], stats, exhausted=self.complete, verdicts={0: broken})

    def _run(self, model: Model, limit: int | None, time_limit: float | None,
             seed: int | None, opts: dict[str, Any], limits: RunLimits) -> Result:
        """:meth:`_solve`, in a child process when the limits ask for one, with the
        deadline of an encoding turned into ``unknown``."""
        from ..procs import in_child

        token = _ACTIVE_LIMITS.set(limits)
        try:
            if limits.child and not self.own_child and not in_child():
                return self._solve_in_child(model, limit, time_limit, seed, opts, limits)
            return self._solve(model, limit, time_limit, seed, opts)
        except DeadlinePassed as exc:
            return Result(Status.UNKNOWN, [], {"reason": f"time limit of {time_limit:g} s "
                                                         f"reached while {exc.phase}"})
        finally:
            _ACTIVE_LIMITS.reset(token)

    def _solve_in_child(self, model: Model, limit: int | None, time_limit: float | None,
                        seed: int | None, opts: dict[str, Any], limits: RunLimits) -> Result:
        """:meth:`_solve` in a child process capped at the memory limit and killed
        :data:`KILL_GRACE_S` after the time limit (the backend stops itself before)."""
        from ..procs import run_child

        wait = None if time_limit is None else time_limit + KILL_GRACE_S
        out = run_child(_child_solve, (self, model, limit, time_limit, seed, opts),
                        deadline=wait, memory_limit=limits.memory_limit,
                        name=f"futocp-{self.name}", reuse=limits.reuse)
        if out.returned:
            result: Result = out.value
            result.stats["process"] = "child"
            return result
        if out.memory and limits.memory_limit is not None:
            return Result(Status.UNKNOWN, [], {"reason": out.memory_reason(limits.memory_limit),
                                               "process": "child"})
        if out.timed_out:
            return Result(Status.UNKNOWN, [], {"reason": f"time limit of {time_limit:g} s "
                                                         "reached (the run was stopped)",
                                               "process": "child"})
        out.raise_for_error(f"backend {self.name!r}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        """Backend-specific search; stats should hold ``encode_s`` and ``solve_s``.

        A backend checks its deadline while it encodes (:meth:`Deadline.tick`);
        :class:`DeadlinePassed` escaping here is answered ``unknown``."""
        raise NotImplementedError
