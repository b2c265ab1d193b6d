"""Puzzle operations: counting, uniqueness, criticality and minimising (seed 003).

A *Latin puzzle* is a board with exactly one solution; it is *critical* when
removing any clue outside its inscription destroys that uniqueness; minimising
removes clues in a random (seeded) order while the solution stays unique, until
the puzzle is critical (seed 003, Alg. 2). Clues are the given labels;
inequalities belong to the board, like its asterisms, and are never removed.

Uniqueness after removing one clue is decided by one satisfiability question,
not by counting: if the puzzle has the solution ``S`` and its clue on cell
``c`` is removed, every solution of the smaller board that agrees with ``S`` on
``c`` is a solution of the puzzle, hence ``S`` itself; so the smaller board is
still a puzzle exactly when it has no solution with ``c != S[c]``. That question
is the smaller board's Model with the label ``S[c]`` struck from the list of
``c`` (the lists are then filtered again), solved with limit 1: often the
filtering alone answers it.

Counting and uniqueness need a *complete* backend; without ``backend=`` the
fastest complete one that can hold the model is used (the backends'
``count_rank``, in the order measured by ``benchmarks/sudoku.py``; see
docs/performance.md).

Example:
    >>> from futocp.families import latin_square
    >>> count(latin_square(3), limit=None).count
    12
    >>> puzzle = latin_square(2, [[1, 0], [0, 0]])
    >>> is_puzzle(puzzle), is_critical(puzzle)
    (True, True)
    >>> full = latin_square(2, [[1, 2], [2, 1]])
    >>> is_critical(full), redundant_clue(full)
    (False, (0, 1))
    >>> minimize(full, seed=1).clues
    ((1, 2),)
"""

from __future__ import annotations

import contextlib
import contextvars
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .backends import REGISTRY, Backend, counting_order, get_backend
from .board import Board, Label
from .errors import BoardError, TimeLimitReached, UnsupportedError, UsageError
from .model import Model, build_model
from .result import Result, Status

__all__ = [
    "CountResult",
    "count",
    "counting_backend",
    "is_puzzle",
    "is_critical",
    "redundant_clue",
    "unique_solution",
    "clue_is_necessary",
    "minimize",
    "keep_cells",
    "time_limited",
]



@dataclass(frozen=True)
class CountResult:
    """The number of solutions found, up to a limit.

    Attributes:
        count: Solutions found (at most ``limit``).
        limit: The limit asked for (None = no limit).
        exhausted: True when the search proved there are no further solutions,
            so ``count`` is the exact number.
        backend: The backend that counted.
        stats: The backend's stats (timings, counters).
    """

    count: int
    limit: int | None
    exhausted: bool
    backend: str
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """``count``, ``limit``, ``exhausted`` and ``backend`` as a JSON-ready dict."""
        return {"count": self.count, "limit": self.limit, "exhausted": self.exhausted,
                "backend": self.backend}


# ------------------------------------------------------------------ backends
def _fits(cls: type[Backend], model: Model) -> bool:
    return (cls.complete and cls.available() is True and "enumerate" in cls.capabilities
            and model.features <= cls.supported()
            and model.n_cells * model.n_values <= cls.max_literals)


def counting_backend(model: Model, backend: str | None = None) -> Backend:
    """The backend that counts ``model``: ``backend`` if named, else the fastest that fits.

    Raises:
        UsageError: for an unknown or incomplete backend, or when none fits.
    """
    if backend is not None:
        solver = get_backend(backend)
        if not solver.complete or "enumerate" not in solver.capabilities:
            raise UsageError(f"backend {backend!r} is not complete: it cannot count solutions "
                             "or prove uniqueness")
        return solver
    for name in counting_order():
        if _fits(REGISTRY[name], model):
            return REGISTRY[name]()
    raise UnsupportedError("no available complete backend can hold this model "
                     f"(it needs {', '.join(sorted(model.features)) or 'nothing special'})")


_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)


@contextlib.contextmanager
def time_limited(seconds: float | None) -> Iterator[None]:
    """Within the block, every search of this module (uniqueness, criticality,
    minimising, and what generators build on them) shares one deadline of
    ``seconds``; past it, :class:`~futocp.errors.TimeLimitReached` is raised.

    Example:
        >>> from futocp.families import latin_square
        >>> with time_limited(60):
        ...     is_puzzle(latin_square(2, [[1, 0], [0, 0]]))
        True
    """
    if seconds is not None and seconds <= 0:
        raise UsageError(f"time limit must be positive, got {seconds!r}")
    end = None if seconds is None else time.perf_counter() + seconds
    outer = _DEADLINE.get()
    if outer is not None and (end is None or outer < end):
        end = outer
    token = _DEADLINE.set(end)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _run(model: Model, limit: int | None, backend: str | None,
         time_limit: float | None = None) -> Result:
    end = _DEADLINE.get()
    if end is not None:
        left = end - time.perf_counter()
        if left <= 0:
            raise TimeLimitReached("the time limit was reached before the answer was known")
        time_limit = left if time_limit is None else min(time_limit, left)
    result = counting_backend(model, backend).solve(model, limit=limit, time_limit=time_limit)
    if end is not None and result.status is Status.UNKNOWN:
        raise TimeLimitReached("the time limit was reached before the answer was known")
    return result


# ------------------------------------------------------------------ counting
def count(board: Board, limit: int | None = None, backend: str | None = None,
          time_limit: float | None = None) -> CountResult:
    """Count the solutions of ``board``, up to ``limit``.

    The backend enumerates the solutions, so memory grows with the count: give
    a ``limit`` for boards with many solutions.

    Args:
        board: The board.
        limit: Stop after this many solutions (None = count them all).
        backend: A complete backend; default: the fastest that fits.
        time_limit: Seconds; when it stops the search, ``exhausted`` is False
            and ``count`` is a lower bound.

    Returns:
        The :class:`CountResult`.

    Example:
        >>> from futocp.families import latin_square
        >>> r = count(latin_square(4), limit=10)
        >>> r.count, r.exhausted
        (10, False)
    """
    result = _run(build_model(board), limit, backend, time_limit)
    return CountResult(result.n_solutions, limit, result.exhausted, result.backend,
                       dict(result.stats))


def unique_solution(board: Board, backend: str | None = None) -> tuple[Label, ...] | None:
    """The solution of ``board`` when it is the only one, else None."""
    result = _run(build_model(board), 2, backend)
    if result.n_solutions == 1 and result.exhausted:
        return result.solutions[0]
    return None


def is_puzzle(board: Board, backend: str | None = None) -> bool:
    """True when ``board`` has exactly one solution (seed 003's *Latin puzzle*)."""
    return unique_solution(board, backend) is not None


# --------------------------------------------------------------- criticality
def _strike(model: Model, cell: int, value: int) -> Model:
    """``model`` with value index ``value`` removed from the list of ``cell`` (lists refiltered)."""
    domains = list(model.domains)
    domains[cell] &= ~(1 << value)
    conflict = model.conflict
    if conflict is None:
        domains, _, empty = model.filter(domains)
        if empty is not None:
            conflict = f"the list of cell {model.board.cell_name(empty)} is empty after filtering"
    return replace(model, domains=tuple(domains), conflict=conflict)


def clue_is_necessary(board: Board, cell: int, solution: Sequence[Label],
                      backend: str | None = None) -> bool:
    """Does removing the clue on ``cell`` destroy uniqueness?

    ``board`` must be a Latin puzzle whose solution is ``solution``. The answer
    is whether the board without that clue has a solution that differs from
    ``solution`` on ``cell`` (see the module docstring).
    """
    model = build_model(board.without_clue(cell))
    label = solution[cell]
    alternative = _run(_strike(model, cell, model.index_of(label)), 1, backend)
    if alternative.status is Status.UNKNOWN:  # pragma: no cover - no time limit is set
        raise UsageError(f"backend {alternative.backend!r} could not decide uniqueness")
    return alternative.status is Status.SAT


def redundant_clue(board: Board, backend: str | None = None) -> tuple[int, Label] | None:
    """The first clue (in cell order, outside the inscription) whose removal keeps
    the solution of the Latin puzzle ``board`` unique, or None when there is none.

    Raises:
        BoardError: when ``board`` is not a Latin puzzle (no solution, or several).
    """
    solution = unique_solution(board, backend)
    if solution is None:
        raise BoardError("the board is not a Latin puzzle (no solution, or several)")
    for cell, label in board.clues:
        if cell not in board.inscription and not clue_is_necessary(board, cell, solution, backend):
            return cell, label
    return None


def is_critical(board: Board, backend: str | None = None) -> bool:
    """Is ``board`` a critical Latin puzzle (seed 003)?

    True when it has exactly one solution and every clue outside the
    inscription is necessary (removing it leaves more than one solution);
    :func:`redundant_clue` names a clue that is not.
    """
    if unique_solution(board, backend) is None:
        return False
    return redundant_clue(board, backend) is None


# ---------------------------------------------------------------- minimising
def keep_cells(board: Board, keep: Iterable[int | Sequence[int]]) -> set[int]:
    """Cells named by ``keep``: cell numbers, or ``(row, col)`` pairs on a grid board.

    Raises:
        BoardError: for a cell outside the board.
    """
    out = set()
    for item in keep:
        if isinstance(item, int):
            cell = int(item)
        else:
            row, col = tuple(item)
            rows, cols = board.shape or (0, 0)
            if not (0 <= row < rows and 0 <= col < cols):
                raise BoardError(f"keep names ({row},{col}), outside the board")
            cell = board.cell(row, col)
        if not 0 <= cell < board.n_cells:
            raise BoardError(f"keep names cell {cell}, outside 0..{board.n_cells - 1}")
        out.add(cell)
    return out


def minimize(board: Board, seed: int | None = None, keep: Iterable[int | Sequence[int]] = (),
             backend: str | None = None) -> Board:
    """Remove clues while the solution stays unique, until the puzzle is critical.

    Seed 003, Alg. 2: the removable clues (outside the inscription and
    ``keep``) are visited once in a random order drawn from ``seed``; each one
    is removed when the board stays a Latin puzzle without it, and kept
    otherwise. One pass suffices: a clue that was necessary stays necessary
    once other clues are gone (fewer clues never mean fewer solutions).

    Args:
        board: A solved board (every cell a clue) or a Latin puzzle.
        seed: Seeds the removal order; the same seed gives the same puzzle.
        keep: Clue cells never removed (cell numbers or ``(row, col)``).
        backend: A complete backend for the uniqueness checks.

    Returns:
        A critical Latin puzzle with the same solution and inscription.

    Raises:
        BoardError: when ``board`` is not a Latin puzzle, or ``keep`` names a
            cell without a clue.
    """
    kept = keep_cells(board, keep)
    clues = board.clue_map
    loose = kept - set(clues)
    if loose:
        raise BoardError(f"keep names {board.cell_name(min(loose))}, which has no clue")
    solution = unique_solution(board, backend)
    if solution is None:
        found = count(board, limit=2, backend=backend).count
        raise BoardError("the board is not a Latin puzzle: it has "
                         + ("no solution" if found == 0 else "more than one solution"))
    order = [c for c, _ in board.clues if c not in board.inscription and c not in kept]
    random.Random(seed).shuffle(order)
    current = board
    for cell in order:
        if not clue_is_necessary(current, cell, solution, backend):
            current = current.without_clue(cell)
    return current
