"""``fc``: backtracking with forward checking (seed 001, Dechter's SELECT-VALUE-FORWARD-CHECKING).

The givens are forward checked at the root; then the cells are visited in
static order (givens included) and each value of a free cell's domain, in
ascending order, is tried: it leaves the domains of the unassigned peers, the
unassigned ends of the cell's relations keep the values it supports, a label
whose multiplicity a count group has used up leaves the group, and the last
unassigned cell of a cage keeps the values that complete it. A wiped-out
domain undoes the pruning and moves on to the next value at once. The engine
and the counters are in :mod:`futocp.backends.seedsearch`.

Example:
    >>> from futocp.families import futoshiki
    >>> from futocp.model import build_model
    >>> r = FcBackend().solve(build_model(futoshiki(3, less=[((0, 0), (0, 1))])), limit=None)
    >>> r.n_solutions
    6
"""

from __future__ import annotations

from .seedsearch import WORKERS_OPTION, SeedSearchBackend

__all__ = ["FcBackend"]


class FcBackend(SeedSearchBackend):
    """Seed 001's forward checking, maintained during the search."""

    name = "fc"
    algorithm = "fc"
    options = (WORKERS_OPTION,)
