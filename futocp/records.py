"""The record of one checked run, and what a run's stats mean.

A :class:`~futocp.result.Result` carries in ``stats`` the timings every backend
reports (:data:`TIMINGS`: ``build_s`` building the Model and encoding it,
``encode_s`` the backend's encoding, folded into ``build_s`` by
:meth:`~futocp.backends.base.Backend.solve`, ``solve_s`` the search, ``wall_s``
everything), ``removed_values`` and ``fixed_cells`` (the Model's list
filtering), ``reason`` (why the answer is what it is), ``stopped`` (what ended
the search: a key of :data:`STOPS`) and the backend's own counters, under the
names of its ``counters`` class data.

:class:`RunRecord` is one backend's answer on one instance once it has been
checked by :func:`futocp.verify.verify`: the record ``futocp crosscheck``
prints and the experiment runner writes to ``results.jsonl``. Both build it
the same way, so the two never translate keys back and forth.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.api import solve
    >>> board = latin_square(2, [[1, 0], [0, 0]])
    >>> rec = RunRecord.from_result(board, solve(board), complete=True)
    >>> rec.status, rec.n_solutions, rec.verified, rec.finished, rec.stopped
    ('sat', 1, True, True, 'exhausted')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .board import Board
from .verify import verify

__all__ = ["RunRecord", "TIMINGS", "STOPS", "LIMITS", "stop_reason"]

TIMINGS = ("build_s", "encode_s", "solve_s", "wall_s")
"""The timing keys of a Result's stats (seconds); every other key is a counter."""

#: What can end a search (``stats["stopped"]``, a record's ``stopped``), and what it means.
STOPS: dict[str, str] = {
    "exhausted": "the search proved there are no more solutions (unsat, or every one found)",
    "found": "it found the solutions asked for; an incomplete search: it ended at its "
             "solution (an annealing run at its first, the genetic search at a population "
             "holding one)",
    "time limit": "the time limit stopped it",
    "memory limit": "the memory limit stopped it",
    "move budget": "anneal: its last run used its moves (option moves) without a solution",
    "generation budget": "genetic: it ran its generations (option generations) without a "
                         "solution",
    "temperature 0": "anneal: the temperature fell to 0 before a solution",
    "no solution": "an incomplete backend did not search: the model's filtering proves "
                   "there is no solution (it answers unknown, never unsat)",
    "error": "the run failed before answering (reason says why)",
}

#: The stops that a limit set by the caller forced (``time_limited``; crosscheck exits 1).
LIMITS = ("time limit", "memory limit")

_SKIPPED = (*TIMINGS, "reason", "stopped")  # stats that are not counters


def stop_reason(complete: bool, status: str, finished: bool, exhausted: bool,
                stats: Mapping[str, Any], reason: str | None = None) -> str:
    """What ended a search (a key of :data:`STOPS`).

    The backend's own word (``stats["stopped"]``: an incomplete backend says
    whether its move or generation budget ended it) comes first; otherwise an
    answer that is all that was asked for is ``exhausted`` or ``found``, and a
    search stopped short of that was stopped by a limit: ``memory limit`` when
    ``reason`` (or ``stats["reason"]``) says so, else ``time limit`` (a complete
    search stops early only at a limit; a run the experiment runner killed
    carries no stats).

    Example:
        >>> stop_reason(True, "sat", False, False, {})
        'time limit'
        >>> stop_reason(False, "sat", False, False, {"stopped": "found"})
        'found'
        >>> stop_reason(True, "unsat", True, True, {})
        'exhausted'
    """
    if status == "error":
        return "error"
    own = stats.get("stopped")
    if isinstance(own, str) and own in STOPS:
        return own
    if status == "unsat" or exhausted:
        return "exhausted"
    if finished:
        return "found"
    why = reason if reason is not None else str(stats.get("reason") or "")
    return "memory limit" if "memory limit" in why else "time limit"


def _plain(value: Any) -> Any:
    """A JSON-ready counter value."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


@dataclass
class RunRecord:
    """One backend's checked answer on one instance.

    Attributes:
        backend: The backend's name.
        complete: Whether the backend is complete (its unsat is a proof).
        status: ``sat``, ``unsat``, ``unknown`` or ``error``.
        n_solutions: Solutions returned.
        exhausted: The search proved there are no more.
        finished: The search answered all it was asked (not stopped by a limit).
        verified: Every solution passed :func:`~futocp.verify.verify` (None: no solution).
        violation: The first violation found, if one was.
        reason: Why (an error, a kill, a clue conflict), or None.
        stopped: What ended the search (a key of :data:`STOPS`; by default
            :func:`stop_reason` of the other fields).
        build_s: Model build and encoding, seconds.
        solve_s: Search, seconds.
        wall_s: Everything, seconds.
        counters: The backend's counters and other stats (JSON-ready values).
    """

    backend: str
    complete: bool
    status: str
    n_solutions: int = 0
    exhausted: bool = False
    finished: bool = False
    verified: bool | None = None
    violation: str | None = None
    reason: str | None = None
    stopped: str = ""
    build_s: float | None = None
    solve_s: float | None = None
    wall_s: float | None = None
    counters: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.stopped:
            self.stopped = stop_reason(self.complete, self.status, self.finished,
                                       self.exhausted, {}, self.reason or "")

    @property
    def time_limited(self) -> bool:
        """A limit the caller set (time or memory) stopped the run before it answered
        all it was asked; an incomplete backend's own budget is no such limit."""
        return self.stopped in LIMITS

    @classmethod
    def from_answer(cls, board: Board, backend: str, complete: bool, status: str,
                    solutions: Sequence[Sequence[Any]], stats: Mapping[str, Any], *,
                    exhausted: bool, finished: bool, reason: str | None = None
                    ) -> RunRecord:
        """Check the solutions of an answer (from a Result or a child process's
        message) and make its record."""
        violation = next((str(bad[0]) for sol in solutions for bad in [verify(board, sol)]
                          if bad), None)
        reason = reason if reason is not None else stats.get("reason")
        return cls(backend=backend, complete=complete, status=status,
                   n_solutions=len(solutions), exhausted=exhausted, finished=finished,
                   verified=(violation is None) if solutions else None, violation=violation,
                   reason=reason,
                   stopped=stop_reason(complete, status, finished, exhausted, stats, reason),
                   build_s=stats.get("build_s"), solve_s=stats.get("solve_s"),
                   wall_s=stats.get("wall_s"),
                   counters={k: _plain(v) for k, v in stats.items() if k not in _SKIPPED})

    @classmethod
    def from_result(cls, board: Board, result: Any, complete: bool) -> RunRecord:
        """The record of a :class:`~futocp.result.Result` on ``board``."""
        return cls.from_answer(board, result.backend, complete, result.status.value,
                               result.solutions, result.stats, exhausted=result.exhausted,
                               finished=result.finished)

    @classmethod
    def from_error(cls, backend: str, complete: bool, reason: str) -> RunRecord:
        """The record of a run that failed before answering."""
        return cls(backend=backend, complete=complete, status="error", reason=reason)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (with ``time_limited``)."""
        out = asdict(self)
        out["time_limited"] = self.time_limited
        return out
