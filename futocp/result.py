"""What every backend answers: a status, solutions and stats.

Example:
    >>> r = Result(Status.SAT, [(1, 2, 2, 1)], {"wall_s": 0.0032}, backend="listcolor")
    >>> r.status.value, r.n_solutions, r.ok
    ('sat', 1, True)
    >>> print(r)
    Result(sat, 1 solution, listcolor, 3.2 ms)
    >>> r
    Result(status='sat', n_solutions=1, backend='listcolor', exhausted=False, limit=1, wall_s=0.0032)

A Result that :func:`futocp.solve` (any backend) answered knows its board, so
the solutions of a grid board come as rows:

    >>> from futocp.families import latin_square
    >>> from futocp.api import solve
    >>> solve(latin_square(2, [[1, 0], [0, 0]])).grids
    [[[1, 2], [2, 1]]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .board import Board, Label
from .errors import UsageError
from .verify import Violation, verify

__all__ = ["Status", "Result"]


class Status(str, Enum):
    """Outcome of a run.

    ``sat``: at least one solution found; ``unsat``: proved to have none;
    ``unknown``: stopped (time limit) before either.
    """

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


@dataclass(repr=False)
class Result:
    """A backend's answer.

    ``print(result)`` gives a one-line summary (:meth:`__str__`); ``repr`` the
    same facts as ``field=value`` pairs, without the solutions and stats
    themselves (they are :attr:`solutions` and :attr:`stats`).

    Attributes:
        status: sat, unsat or unknown.
        solutions: Labels per cell (flat, in cell order), at most ``limit`` of them.
        stats: At least ``build_s``, ``solve_s``, ``wall_s``; plus the backend's counters.
        backend: Name of the backend that answered.
        exhausted: True when the search proved there are no further solutions
            (the solution list is complete).
        board: The board that was solved, when the caller attached it (not part of
            equality); a notebook then shows the solution's picture.
        limit: The number of solutions that was asked for (None: all).
        verdicts: What :func:`futocp.verify.verify` found, by solution index, for
            the solutions checked so far (:meth:`verdict`: each is checked once;
            not part of equality).
    """

    status: Status
    solutions: list[tuple[Label, ...]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    backend: str = ""
    exhausted: bool = False
    board: Board | None = field(default=None, repr=False, compare=False)
    limit: int | None = field(default=1, compare=False)
    verdicts: dict[int, list[Violation]] = field(default_factory=dict, compare=False)

    def verdict(self, i: int, board: Board | None = None) -> list[Violation]:
        """The violations of solution ``i`` (:func:`futocp.verify.verify`; empty: it
        solves the board), checked once: the verdict is kept in :attr:`verdicts`, so
        that the backend (auto checks its members' answers), the API and the command
        line do not check one answer two or three times.

        Args:
            i: The solution's index in :attr:`solutions`.
            board: The board, when the Result does not know it (:attr:`board`).

        Raises:
            UsageError: when neither ``board`` nor :attr:`board` is given.
        """
        found = self.verdicts.get(i)
        if found is None:
            board = board if board is not None else self.board
            if board is None:
                raise UsageError("this Result does not know its board: pass it to verdict()")
            found = self.verdicts[i] = verify(board, self.solutions[i])
        return found

    def violations(self, board: Board | None = None) -> list[list[Violation]]:
        """The verdict of every solution, in order (:meth:`verdict`: each checked once).

        Example:
            >>> from futocp.families import latin_square
            >>> b = latin_square(2)
            >>> Result(Status.SAT, [(1, 2, 2, 1), (1, 1, 2, 2)], board=b).violations()[1][0].kind
            'asterism'
        """
        return [self.verdict(i, board) for i in range(len(self.solutions))]

    @property
    def n_solutions(self) -> int:
        """Number of solutions returned."""
        return len(self.solutions)

    @property
    def ok(self) -> bool:
        """True when the run finished (sat or unsat)."""
        return self.status is not Status.UNKNOWN

    @property
    def finished(self) -> bool:
        """True when the search answered everything it was asked: unsat, all the
        solutions, or ``limit`` of them. False when a time limit stopped it, even
        with solutions in hand (``solve --all`` cut short)."""
        if self.status is Status.UNSAT:
            return True
        if self.status is Status.UNKNOWN:
            return False
        return self.exhausted or (self.limit is not None and self.n_solutions >= self.limit)

    @property
    def stopped_early(self) -> bool:
        """True when a time limit stopped a search that had found solutions."""
        return self.status is Status.SAT and not self.finished

    @property
    def grids(self) -> list[list[list[Label]]]:
        """The solutions as lists of rows (:meth:`~futocp.board.Board.as_grid`), on
        the board the Result was answered for (:attr:`board`, which
        :func:`futocp.solve` and every backend's ``solve`` set).

        Raises:
            UsageError: when the Result does not know its board (built by hand:
                set ``board``, or call ``board.as_grid`` on each solution).
            BoardError: when the board is not a grid.
        """
        if self.board is None:
            raise UsageError("this Result does not know its board: set result.board, or cut "
                             "each solution with board.as_grid(solution)")
        rows, cols = self.board.grid_shape  # a BoardError when it is not a grid
        return [[list(s[r * cols:(r + 1) * cols]) for r in range(rows)] for s in self.solutions]

    def _time_text(self) -> str:
        wall = self.stats.get("wall_s")
        if not isinstance(wall, (int, float)):
            return ""
        return f", {wall * 1000:.1f} ms" if wall < 1 else f", {wall:.2f} s"

    def __str__(self) -> str:
        """``Result(sat, 2 solutions (all), cpsat, 3.2 ms)``: the status, the
        solutions found (``(all)`` when the search proved there are no more,
        ``(time limit)`` when one stopped it), the backend and the wall time."""
        n = self.n_solutions
        more = " (all)" if self.exhausted and n else " (time limit)" if self.stopped_early else ""
        backend = f", {self.backend}" if self.backend else ""
        return (f"Result({self.status.value}, {n} solution{'' if n == 1 else 's'}{more}"
                f"{backend}{self._time_text()})")

    def __repr__(self) -> str:
        wall = self.stats.get("wall_s")
        return (f"Result(status={self.status.value!r}, n_solutions={self.n_solutions}, "
                f"backend={self.backend!r}, exhausted={self.exhausted}, limit={self.limit}"
                + (f", wall_s={wall!r}" if wall is not None else "") + ")")

    # ------------------------------------------------------------ notebooks
    def _repr_svg_(self) -> str | None:
        """The picture of the first solution (or of the board, with the status), when
        the Result knows its board; None otherwise (the notebook shows the text)."""
        if self.board is None:
            return None
        from .render import notebook_svg  # lazy: matplotlib only for pictures

        return notebook_svg(self.board, result=self)

    def _repr_html_(self) -> str:
        """Status, counts and time on one line, and the picture when the board is known."""
        from .render import result_html

        return result_html(self)
