"""Tatham's other Latin games' grading scales, as one registry.

Simon Tatham grades *Keen*, *Towers* and *Solo* each on its own ladder of
levels (his ``keen.c``, ``towers.c`` and ``solo.c``, the first two on the
Latin-square solver of ``latin.c``): the grade is the cheapest level whose
deductions solve the puzzle. Each game is one :class:`GameScale`, registered
by its module (:mod:`futocp.rating.keen`, :mod:`futocp.rating.towers`,
:mod:`futocp.rating.solo`); :func:`futocp.rating.rate` uses the scale that
covers a board by default, and ``--scale`` names it.

A scale's grader returns an :class:`Outcome` whose steps are
:class:`~futocp.rating.core.Step` values with ``level`` an index into the
scale's ``grades``; ``explain`` and ``hint`` read them as for Unequal.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field

from ..board import Board, Label
from .core import Step

__all__ = ["Outcome", "GameScale", "GAME_SCALES", "register", "game_scale", "scale_of",
           "game_scale_names"]

_MODULES = ("keen", "towers", "solo")
"""The modules that register a scale (imported on first use)."""


@dataclass
class Outcome:
    """What a game's grader found.

    Attributes:
        status: ``solved`` (exactly one solution), ``ambiguous``, ``impossible``
            or ``unfinished`` (the levels up to ``max_level`` do not finish it).
        level: The highest level a step needed (an index into the scale's
            grades); None unless solved.
        steps: The proof, in order.
        solution: The labels per cell when solved.
        reason: Why it is impossible, ambiguous or unfinished.
        guesses: Branches tried by recursion.
        depth: Deepest nesting of recursion.
    """

    status: str
    level: int | None
    steps: list[Step] = field(default_factory=list)
    solution: tuple[Label, ...] | None = None
    reason: str | None = None
    guesses: int = 0
    depth: int = 0


@dataclass(frozen=True)
class GameScale:
    """One game's grading scale.

    Attributes:
        name: The scale's name (``keen``, ``towers``, ``solo``).
        grades: The grade names, lower-case, cheapest first.
        covers: Whether a board is one of the game's puzzles.
        grade: ``grade(board, max_level)`` -> :class:`Outcome`, using levels up
            to ``max_level`` (an index into ``grades``).
        techniques: Every technique's name -> its level (for counts and docs).
        letters: Tatham's difficulty letters -> grades (a board's ``grade``
            parameter).
    """

    name: str
    grades: tuple[str, ...]
    covers: Callable[[Board], bool]
    grade: Callable[[Board, int], Outcome]
    techniques: dict[str, int]
    letters: dict[str, str] = field(default_factory=dict)


GAME_SCALES: dict[str, GameScale] = {}
"""Registered game scales by name."""


def register(scale: GameScale) -> GameScale:
    """Add a game's scale to :data:`GAME_SCALES` (one call per game module)."""
    GAME_SCALES[scale.name] = scale
    return scale


def _load() -> None:
    for name in _MODULES:
        module = f"{__package__}.{name}"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)


def game_scale(name: str) -> GameScale | None:
    """The registered scale called ``name`` (None: not a game scale)."""
    _load()
    return GAME_SCALES.get(name)


def scale_of(board: Board) -> GameScale | None:
    """The game scale that covers ``board``, if any."""
    _load()
    for scale in GAME_SCALES.values():
        if scale.covers(board):
            return scale
    return None


def game_scale_names() -> tuple[str, ...]:
    """The names of the registered game scales."""
    _load()
    return tuple(GAME_SCALES)
