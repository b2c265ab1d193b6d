"""``colorfutoshiki``: seed 000's list-colouring algorithm (ColorFutoshiki, Algorithm 2).

The lists are built once from the givens, then the static-order search of
``bt`` runs over them (a given's list is its value, so it costs one test).
``lists=paper`` (the default) is the spec's reading (b) of the filtering step
(§1.4), the one the paper's removed-value counts fit: a given's value leaves
its peers' lists, a relation at a given trims its empty neighbour, nothing
else (no iteration, no pruning between empty cells). ``lists=fixpoint`` uses
futocp's iterated filtering (:meth:`futocp.model.Model.filter`). The lists are
never updated during the search. The engine and the counters are in
:mod:`futocp.backends.seedsearch`.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> board = latin_square(5, [[1, 0, 0, 0, 0]] + [[0] * 5] * 4)
    >>> r = ColorfutoshikiBackend().solve(build_model(board))
    >>> r.stats["removed_values"]  # one given, no sign: 3 (n - 1)
    12
"""

from __future__ import annotations

from .seedsearch import LISTS_OPTION, WORKERS_OPTION, SeedSearchBackend

__all__ = ["ColorfutoshikiBackend"]


class ColorfutoshikiBackend(SeedSearchBackend):
    """Seed 000's ColorFutoshiki: lists from the givens, then static backtracking."""

    name = "colorfutoshiki"
    algorithm = "colorfutoshiki"
    options = (LISTS_OPTION, WORKERS_OPTION)
