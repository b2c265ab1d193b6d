"""``mac``: AC-3 (seed 001, Russell and Norvig's Fig. 5) at the root, then maintained.

Arcs: one per ordered pair of cells that share an all-different group or a
binary relation (a pair with both gets one merged constraint); FIFO queue,
each arc queued once at a time; when a domain shrinks, every arc pointing at
its cell is queued again (as printed, the arc it was revised against too).
Count groups (repeated labels) and cages are not binary: they are forward
checked (a used-up label leaves the group, the last free cell of a cage keeps
the values that complete it) before AC-3 runs.

``ac3=maintain`` (the default) runs AC-3 from the assigned cell after every
assignment of the static walk (MAC); ``ac3=pre`` is seed 001's use, AC-3 as
preprocessing only, followed by the plain backtracking of ``bt`` over the
reduced lists (the paper has no search after it; AC-3 alone solved none of its
puzzles). ``revisions`` counts the arcs taken from the queue. The engine and
the other counters are in :mod:`futocp.backends.seedsearch`.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = MacBackend().solve(build_model(latin_square(4)), limit=None)
    >>> r.n_solutions, r.stats["revisions"] > 0
    (576, True)
"""

from __future__ import annotations

from .seedsearch import AC3_OPTION, WORKERS_OPTION, SeedSearchBackend

__all__ = ["MacBackend"]


class MacBackend(SeedSearchBackend):
    """Seed 001's AC-3, as preprocessing or maintained during the search."""

    name = "mac"
    algorithm = "mac"
    counters = SeedSearchBackend.counters + ("revisions",)
    options = (AC3_OPTION, WORKERS_OPTION)
