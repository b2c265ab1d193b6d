"""The backend protocol and the base class every backend derives from.

A backend compiles a :class:`~futocp.model.Model` into its native formulation
(:meth:`Backend.compile`, inspectable) and solves it (:meth:`Backend.solve`),
answering a :class:`~futocp.result.Result`. The base class does what is common
to all: it checks that the solver package is present, that the options are
known and well typed, that the model needs nothing the backend lacks; it
answers ``unsat`` at once for a model with a known clue conflict; and it fills
the timing stats (``build_s``, ``solve_s``, ``wall_s``).

A subclass declares ``name``, ``complete``, ``capabilities``, ``options`` and
implements :meth:`Backend._solve` (and :meth:`Backend.compile`).

Capabilities: ``enumerate`` (more than one solution), ``time_limit``, ``seed``,
``unsat`` (can prove infeasibility), and the model features ``multiset``
(Count), ``strings`` (string labels), ``alldifferent`` (partial all-different
groups, as in cages), ``binary`` (every binary relation kind of the registry,
through the generic support encoding), and the names of the relation kinds
the backend encodes beyond that (``less``, an n-ary kind such as ``cage``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import BackendUnavailable, UnsupportedError, UsageError
from ..model import Model
from ..relations import binary_kinds
from ..result import Result, Status

__all__ = ["Option", "Backend", "Deadline"]


@dataclass(frozen=True)
class Option:
    """A backend option: name, type, default and (optionally) allowed values."""

    name: str
    type: type
    default: Any
    choices: tuple[Any, ...] | None = None
    help: str = ""

    def parse(self, value: Any) -> Any:
        """Convert (from a CLI string if need be) and check a value."""
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
        return value


class Deadline:
    """A wall-clock deadline; ``None`` seconds means no limit."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.end = None if seconds is None else time.perf_counter() + seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        return None if self.end is None else max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.end is not None and time.perf_counter() >= self.end


class Backend:
    """Base class of the backends (the protocol of DESIGN.md)."""

    name: ClassVar[str] = ""
    complete: ClassVar[bool] = True
    capabilities: ClassVar[frozenset[str]] = frozenset()
    options: ClassVar[tuple[Option, ...]] = ()
    extra: ClassVar[str | None] = None  # the pip extra that installs the solver
    requires: ClassVar[tuple[str, ...]] = ()  # modules the backend imports (checked by available)
    package: ClassVar[str | None] = None  # the distribution whose version run records report
    counters: ClassVar[tuple[str, ...]] = ()  # the search counters its stats report
    count_rank: ClassVar[int | None] = None  # order of preference for counting (None: never)
    max_literals: ClassVar[int] = 20_000_000  # cells x values the backend accepts

    @classmethod
    def available(cls) -> bool | str:
        """True, or a sentence saying why the backend cannot run here (a module of
        :attr:`requires` that cannot be imported)."""
        import importlib

        for module in cls.requires:
            try:
                importlib.import_module(module)
            except ImportError:
                what = cls.package or module
                return f"the {what} package is not installed"
        return True

    @staticmethod
    def outcome(solutions: list[tuple[Any, ...]], finished: bool, limit: int | None,
                stats: dict[str, Any]) -> Result:
        """The Result of a search: ``sat`` with solutions, else ``unsat`` when the
        search finished, else ``unknown``; exhausted when it finished below ``limit``."""
        if solutions:
            status = Status.SAT
        elif finished:
            status = Status.UNSAT
        else:
            status = Status.UNKNOWN
        exhausted = finished and (limit is None or len(solutions) < limit)
        return Result(status, solutions, stats, exhausted=exhausted)

    @classmethod
    def supported(cls) -> frozenset[str]:
        """The model features the backend handles: its capabilities, with
        ``binary`` standing for every binary relation kind of the registry."""
        if "binary" in cls.capabilities:
            return cls.capabilities | frozenset(binary_kinds())
        return cls.capabilities

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
            hint = f"; install it with: pip install 'futocp[{self.extra}]'" if self.extra else ""
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

    def compile(self, model: Model, **options: Any) -> Any:
        """The native formulation of ``model`` (for inspection and export)."""
        raise NotImplementedError

    def solve(self, model: Model, *, limit: int | None = 1, time_limit: float | None = None,
              seed: int | None = None, **options: Any) -> Result:
        """Solve ``model``: up to ``limit`` solutions (None = all) within ``time_limit`` s.

        Raises:
            BackendUnavailable, UnsupportedError, UsageError.
        """
        opts = self.parse_options(options)
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise UsageError(f"limit must be a positive integer or None, got {limit!r}")
        if time_limit is not None and time_limit <= 0:
            raise UsageError(f"time limit must be positive, got {time_limit!r}")
        self.check(model)  # imports the solver package: before the clock starts
        t0 = time.perf_counter()
        if model.conflict is not None:
            result = Result(Status.UNSAT, [], {"reason": model.conflict, "solve_s": 0.0},
                            exhausted=True)
        else:
            result = self._solve(model, limit, time_limit, seed, opts)
        result.backend = self.name
        result.board = model.board
        result.limit = limit
        stats = result.stats
        stats["build_s"] = model.stats.get("build_s", 0.0) + stats.pop("encode_s", 0.0)
        stats.setdefault("solve_s", 0.0)
        stats["wall_s"] = model.stats.get("build_s", 0.0) + time.perf_counter() - t0
        stats.setdefault("removed_values", model.stats.get("removed_values", 0))
        if result.status is Status.UNSAT:
            result.exhausted = True
        return result

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        """Backend-specific search; stats should hold ``encode_s`` and ``solve_s``."""
        raise NotImplementedError
