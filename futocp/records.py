"""Typed records: a run's stats and the record of one checked run.

:class:`Stats` is what a :class:`~futocp.result.Result` carries in ``stats``:
the timings every backend reports and the backend's own counters, as one
typed mapping (the keys it names are typed; a backend adds its counters).

:class:`RunRecord` is one backend's answer on one instance once it has been
checked by :func:`futocp.verify.verify`: the record ``futocp crosscheck``
prints and the experiment runner writes to ``results.jsonl``. Both build it
the same way, so the two never translate keys back and forth.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.api import solve
    >>> board = latin_square(2, [[1, 0], [0, 0]])
    >>> rec = RunRecord.from_result(board, solve(board), complete=True)
    >>> rec.status, rec.n_solutions, rec.verified, rec.finished
    ('sat', 1, True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from .board import Board
from .verify import verify

__all__ = ["Stats", "RunRecord", "TIMINGS"]

TIMINGS = ("build_s", "encode_s", "solve_s", "wall_s")
"""The timing keys of :class:`Stats` (seconds); every other key is a counter."""


class Stats(TypedDict, total=False):
    """A Result's stats: the common timings and reason; counters are added by each
    backend under the names of its ``counters`` class data."""

    build_s: float  # building the Model and encoding it for the backend
    encode_s: float  # the backend's encoding (folded into build_s by Backend.solve)
    solve_s: float  # the search
    wall_s: float  # everything, from the model's build to the answer
    removed_values: int  # values the Model's list filtering removed
    fixed_cells: int  # cells without a clue the Model's filtering decided
    reason: str  # why the answer is what it is (unsat by a clue conflict, ...)


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
    build_s: float | None = None
    solve_s: float | None = None
    wall_s: float | None = None
    counters: dict[str, Any] = field(default_factory=dict)

    @property
    def time_limited(self) -> bool:
        """A limit stopped the run before it answered all it was asked."""
        return self.status in ("sat", "unknown") and not self.finished

    @classmethod
    def from_answer(cls, board: Board, backend: str, complete: bool, status: str,
                    solutions: Sequence[Sequence[Any]], stats: Mapping[str, Any], *,
                    exhausted: bool, finished: bool, reason: str | None = None
                    ) -> RunRecord:
        """Check the solutions of an answer (from a Result or a child process's
        message) and make its record."""
        violation = next((str(bad[0]) for sol in solutions for bad in [verify(board, sol)]
                          if bad), None)
        return cls(backend=backend, complete=complete, status=status,
                   n_solutions=len(solutions), exhausted=exhausted, finished=finished,
                   verified=(violation is None) if solutions else None, violation=violation,
                   reason=reason if reason is not None else stats.get("reason"),
                   build_s=stats.get("build_s"), solve_s=stats.get("solve_s"),
                   wall_s=stats.get("wall_s"),
                   counters={k: _plain(v) for k, v in stats.items()
                             if k not in TIMINGS and k != "reason"})

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
