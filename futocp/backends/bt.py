"""``bt``: chronological backtracking as seeds 004, 001 and 000 (FutoshikiBT) describe it.

Static order (every cell in turn, givens included: row-major on a grid),
values tried in ascending order at every cell, each value checked against the
cells that hold a value -- the peers of its groups and the other ends of its
relations -- and a given cell accepting only its own value; the first cell
without a value left sends the search back to the previous one. No lists, no
propagation. ``order=mrv`` (beyond the papers) visits the givens first, then
at each node the free cell with the fewest values consistent with the current
ones. The engine and the counters are in :mod:`futocp.backends.seedsearch`.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = BtBackend().solve(build_model(latin_square(3, [[0, 0, 0], [3, 0, 0], [0, 0, 0]])))
    >>> r.stats["explored_nodes"], r.stats["backtracks"]  # n^2 (n+1) / 2: no dead end
    (18, 0)
    >>> r = BtBackend().solve(build_model(latin_square(3)))  # (1,2) finds no value once
    >>> r.stats["explored_nodes"], r.stats["backtracks"]
    (21, 1)
"""

from __future__ import annotations

from .seedsearch import ORDER_OPTION, WORKERS_OPTION, SeedSearchBackend

__all__ = ["BtBackend"]


class BtBackend(SeedSearchBackend):
    """Seed 000's FutoshikiBT / seed 001's BT / seed 004's sequential search."""

    name = "bt"
    algorithm = "bt"
    options = (ORDER_OPTION, WORKERS_OPTION)
