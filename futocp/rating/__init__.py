"""Difficulty rating: deduction techniques, grades, explanations and hints.

A puzzle is rated the way a player solves it (seed 003, §5: *attrition*):
named techniques, each finding one deduction (a :class:`Step`), are applied
cheapest level first, restarting at the cheapest level after every step; the
**grade** is the highest level any step needed. Two scales share the engine:
``tatham`` (Simon Tatham's *Unequal* levels exactly, for n x n Futoshiki and
Latin squares) and ``general`` (any Latin board); Tatham's other games have their own scales
(:mod:`futocp.rating.games`: ``keen``, ``towers``, ``solo``), the default for
their puzzles. ``docs/rating.md`` gives
the levels, a worked example of every technique, the score, and how the
engine reaches the same fixpoint as Tatham's program.

The package: :mod:`~futocp.rating.core` (levels, techniques' table, steps,
ratings, the engine's structure and state), :mod:`~futocp.rating.techniques`
(one rule per technique), :mod:`~futocp.rating.solve` (the driver and the
entry points), :mod:`~futocp.rating.text` (the proof and tables as text).

Example:
    >>> from futocp.formats import loads
    >>> r = rate(loads("4:0,0,0,0,0,0,0L,0,0U,0,0,0,0U,0R,0,4,", "tatham"))
    >>> r.grade, r.status, r.counts["less-bounds"] > 0
    ('easy', 'solved', True)
"""

from __future__ import annotations

from .core import (
    LETTERS,
    LEVELS,
    SCALES,
    TECHNIQUES,
    WEIGHTS,
    Contradiction,
    Rating,
    Step,
    default_scale,
    level_of,
    techniques_of,
)
from .solve import (
    Closure,
    Hint,
    closure,
    count_solutions,
    game_of,
    hint,
    parse_state,
    rate,
    replay,
    scale_names,
    shuffled_techniques,
    solvable,
)
from .text import explain_lines, format_rating, format_table

__all__ = [
    "LEVELS",
    "SCALES",
    "LETTERS",
    "TECHNIQUES",
    "WEIGHTS",
    "Step",
    "Rating",
    "Hint",
    "Closure",
    "Contradiction",
    "rate",
    "closure",
    "solvable",
    "count_solutions",
    "replay",
    "hint",
    "default_scale",
    "level_of",
    "techniques_of",
    "parse_state",
    "shuffled_techniques",
    "scale_names",
    "game_of",
    "explain_lines",
    "format_rating",
    "format_table",
]
