"""One call from a Board to a verified-ready Result.

Example:
    >>> from futocp.families import latin_square
    >>> r = solve(latin_square(3, [[1, 2, 3], [0, 0, 0], [0, 0, 0]]), backend="cpsat", limit=None)
    >>> r.status.value, r.n_solutions
    ('sat', 2)
"""

from __future__ import annotations

from typing import Any

from .backends import get_backend
from .board import Board
from .model import build_model
from .result import Result

__all__ = ["solve", "DEFAULT_BACKEND"]

DEFAULT_BACKEND = "auto"
"""The backend of :func:`solve` and of every command that solves (``futocp solve``, ``show
--solution``, ``render --solution``): it picks the backends for the instance from measured
data (:mod:`futocp.backends.auto`)."""


def solve(board: Board, backend: str = DEFAULT_BACKEND, *, limit: int | None = 1,
          time_limit: float | None = None, seed: int | None = None, filtering: str = "lists",
          **options: Any) -> Result:
    """Build the Model of ``board`` and solve it with ``backend``.

    Args:
        board: The puzzle.
        backend: A name from :data:`futocp.backends.REGISTRY` (default
            :data:`DEFAULT_BACKEND`, ``auto``).
        limit: Most solutions to return (None = all).
        time_limit: Seconds, or None.
        seed: Random seed (refused by a backend whose search uses none:
            :meth:`~futocp.backends.base.Backend.solve`).
        filtering: ``"lists"``, ``"gac"`` or ``"none"`` (:func:`~futocp.model.build_model`).
        **options: Backend options.

    Returns:
        The backend's Result (solutions as labels per cell).
    """
    solver = get_backend(backend)
    solver.parse_options(options)
    solver.available()  # import the solver package now: it is not the model's build time
    model = build_model(board, filtering=filtering)
    return solver.solve(model, limit=limit, time_limit=time_limit, seed=seed, **options)
