"""The solve loop shared by the backends whose solver reports solutions one by one
(``mip``, ``smt``, ``choco``).

Such a backend subclasses :class:`StreamBackend` and implements
:meth:`StreamBackend._stream`: build the formulation (through
:meth:`~futocp.backends.base.Backend.compile`, checking the deadline), then
search, reporting through ``emit``:

* ``("phase", what)`` -- what it is doing (:data:`BUILDING`, :data:`SOLVING`);
* ``("stats", dict)`` -- counters, merged in order;
* ``("solution", value indices)`` -- each solution as soon as it is found;
* ``("done", how, reason)`` -- the search ended by itself: ``how`` is
  :data:`COMPLETE` (no other solution exists), :data:`AT_LIMIT` (stopped at the
  solution limit), :data:`TIMED_OUT` (the solver's own time limit stopped it)
  or :data:`GAVE_UP` (the solver answered it does not know, ``reason`` says why).

The same function runs in this process or, under a memory limit, ``isolate``
(:func:`~futocp.backends.base.run_limits`), or a time limit shorter than the
estimated build (:attr:`StreamBackend.load_s_per_literal` per cell value), in a
child process killed at the deadline (:func:`~futocp.procs.run_child`):
what it reported before the kill is kept (the solutions of an enumeration cut
short, the phase it was in).

The integer-valued formulations (``smt``'s integer model, ``choco``) name a
value by its *code* (:func:`value_codes`): the label itself when every label is
an integer (so that sums, differences and exported models read as the puzzle
does), else its value index.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> value_codes(build_model(latin_square(3)))
    (1, 2, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ..model import Model
from ..result import Result, Status
from .base import KILL_GRACE_S, Backend, Deadline, DeadlinePassed, active_limits

__all__ = ["StreamBackend", "value_codes", "BUILDING", "SOLVING", "COMPLETE", "AT_LIMIT",
           "TIMED_OUT", "GAVE_UP"]

BUILDING = "building the model"
SOLVING = "solving"

COMPLETE = "complete"
AT_LIMIT = "limit"
TIMED_OUT = "timeout"
GAVE_UP = "unknown"

Emit = Callable[[Any], None]


def value_codes(model: Model) -> tuple[int, ...]:
    """The integer that stands for each value in an integer formulation: the labels
    when they are all integers, else the value indices."""
    values = model.values
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return tuple(int(v) for v in values)
    return tuple(range(len(values)))


class StreamBackend(Backend):
    """A backend run by :func:`_stream_run` (see the module docstring)."""

    own_child = True
    c_extension = True
    load_s_per_literal: ClassVar[float] = 1e-4
    """Seconds per cell value the build may take; a time limit below the estimate
    runs the solve in a child process killed at the deadline."""

    def _stream(self, emit: Emit, model: Model, limit: int | None, deadline: Deadline,
                seed: int | None, options: dict[str, Any]) -> None:
        """Build, search and report through ``emit`` (the module docstring)."""
        raise NotImplementedError

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        from ..procs import run_child

        limits = active_limits()
        child = limits.child or (time_limit is not None and model.n_cells * model.n_values
                                 * self.load_s_per_literal > time_limit)
        args = (self, model, limit, time_limit, seed, options)
        if not child:
            messages: list[Any] = []
            _stream_run(messages.append, *args)
            return _assemble(model, messages, time_limit)
        wait = None if time_limit is None else time_limit + KILL_GRACE_S
        out = run_child(_stream_run, args, deadline=wait, memory_limit=limits.memory_limit,
                        name=f"futocp-{self.name}", reuse=limits.reuse)
        if out.exception is not None or out.error is not None:
            out.raise_for_error(f"backend {self.name!r}")
        result = _assemble(model, out.messages, time_limit)
        result.stats["process"] = "child"
        if out.memory and limits.memory_limit is not None:
            result.stats["reason"] = out.memory_reason(limits.memory_limit)
        return result


def _stream_run(emit: Emit, backend: StreamBackend, model: Model, limit: int | None,
                time_limit: float | None, seed: int | None, options: dict[str, Any]) -> None:
    """:meth:`StreamBackend._stream` under a deadline of ``time_limit`` seconds (in this
    process or in a child); a deadline passed while building ends it without ``done``."""
    emit(("phase", BUILDING))
    try:
        backend._stream(emit, model, limit, Deadline(time_limit), seed, options)
    except DeadlinePassed:
        return


def _assemble(model: Model, messages: Sequence[Any], time_limit: float | None) -> Result:
    """The Result from what :func:`_stream_run` reported (all of it, or what it sent
    before the deadline stopped it)."""
    from ..procs import read_messages

    phase, stats, solutions, done = read_messages(messages, model.labels_of, BUILDING)
    how, why = done or (None, None)
    stats.setdefault("solve_s", 0.0)
    if solutions:
        status = Status.SAT
    elif how == COMPLETE:
        status = Status.UNSAT
    else:
        status = Status.UNKNOWN
    if how in (None, TIMED_OUT) and time_limit is not None:
        stats["reason"] = f"time limit of {time_limit:g} s reached while {phase}"
    elif how == GAVE_UP and why:
        stats["reason"] = str(why)
    return Result(status, solutions, stats, exhausted=how == COMPLETE)
