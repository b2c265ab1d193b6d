"""Tatham's Latin-square solver (his ``latin.c``) as the grading driver of Keen and Towers.

Both games grade on one loop: a list of *levels*, each a list of rules (the
game's own clue rules first, then the shared Latin-square techniques placed at
that level); the cheapest rule that makes progress is applied and the search
starts again at the cheapest level. The grade is the cheapest level whose
rules solve the puzzle; when the highest level does not, a unique puzzle is
graded at the recursive level (the last grade of the scale) and finished by
guesses.

The shared techniques are those of :mod:`futocp.rating.techniques` (the same
rules as Tatham's: his positional and numeric elimination are the hidden and
naked singles, his set elimination in rows and columns the subsets, his
row-against-column set elimination on one digit the fish, and his bivalue
forcing chains). Each game says at which level each sits (:class:`LatinGame`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..board import Board
from ..model import build_model
from .core import Contradiction, Engine, State, Step, Technique
from .games import Outcome
from .solve import _guided, _settle, _solutions, _start
from .techniques import TECHNIQUE_FUNCS

__all__ = ["LatinGame", "at_level", "shared", "latin_engine", "grade_latin", "SIMPLE",
           "SET_ROWS", "SET_DIGITS", "FORCING"]

SIMPLE = ("hidden-single", "naked-single")
"""Tatham's positional and numeric elimination."""
SET_ROWS = ("subset",)
"""His set elimination within each row and column."""
SET_DIGITS = ("fish",)
"""His row-against-column set elimination on one digit."""
FORCING = ("forcing-chain",)
"""His bivalue forcing chains."""

Rules = Callable[[Board, bool], list[list[Technique]]]
"""``rules(board, lowest_only)`` -> the rules per level (``lowest_only``: the run
that stops at the cheapest level, where some games add rules of their own)."""


@dataclass(frozen=True)
class LatinGame:
    """One game on Tatham's Latin-square solver.

    Attributes:
        grades: The scale's grades, cheapest first; the last is the recursive one.
        rules: The rules per level for a board (see :data:`Rules`).
        separate_lowest: Whether the cheapest level has rules of its own when
            grading stops there (Keen's); else one run grades every puzzle.
    """

    grades: tuple[str, ...]
    rules: Rules
    separate_lowest: bool = True

    @property
    def top(self) -> int:
        """The highest level of deductions (the one below recursion)."""
        return len(self.grades) - 2


def at_level(tech: Technique, level: int) -> Technique:
    """``tech`` with its steps labelled ``level`` (a shared technique on a game's scale)."""

    def rule(eng: Engine, st: State) -> Step | None:
        step = tech(eng, st)
        if step is not None and step.level != level:
            step = replace(step, level=level)
        return step

    rule.__name__ = getattr(tech, "__name__", "rule")
    return rule


def shared(names: Sequence[str], level: int) -> list[Technique]:
    """The shared techniques ``names`` at ``level``."""
    return [at_level(TECHNIQUE_FUNCS[n], level) for n in names]


def latin_engine(board: Board, levels: list[list[Technique]]) -> Engine:
    """An engine over the rows and columns of a square board, with ``levels`` as its rules."""
    eng = Engine(build_model(board, filtering="none"), "tatham", [], TECHNIQUE_FUNCS)
    eng.levels = (levels + [[] for _ in range(4)])[:4]
    return eng


def _relabel(steps: Sequence[Step], level: int) -> list[Step]:
    """Guess steps (the driver's level 4) moved to the scale's recursive level."""
    out = []
    for s in steps:
        if s.technique == "guess" or s.sub:
            s = replace(s, level=level if s.technique == "guess" else s.level,
                        sub=tuple(_relabel(s.sub, level)))
        out.append(s)
    return out


def grade_latin(game: LatinGame, board: Board, max_level: int) -> Outcome:
    """Grade ``board`` on ``game`` with levels up to ``max_level`` (an index into its grades).

    The cheapest level runs first, with the rules the game keeps for that level
    alone; when it does not solve the puzzle, one run from the givens with every
    level up to ``min(max_level, top)`` gives the grade (the highest level a step
    needed: every level below stalled before it). When that stalls too and
    ``max_level`` is the recursive level, the number of solutions decides: a
    unique puzzle is finished by guesses.
    """
    recursive = len(game.grades) - 1
    passes = [True] if game.separate_lowest or max_level == 0 else []
    if max_level > 0:
        passes.append(False)
    for lowest in passes:
        top = 0 if lowest else min(max_level, game.top)
        eng = latin_engine(board, game.rules(board, lowest))
        steps: list[Step] = []
        try:
            st = _start(eng)
        except Contradiction as exc:
            return Outcome("impossible", None, [], reason=exc.reason)
        status, used, reason = _settle(eng, st, top, steps)
        if status == "solved":
            return Outcome("solved", used, steps, st.labels())
        if status == "impossible":
            return Outcome("impossible", None, steps, reason=reason)
    if max_level < recursive:
        return Outcome("unfinished", None, steps, reason="no technique of the allowed levels "
                       "makes progress")
    solutions = _solutions(eng, st)
    if not solutions:
        return Outcome("impossible", None, steps, reason="no solution (the search tried every "
                       "label of the cells the techniques left open)")
    if len(solutions) >= 2:
        a, b = solutions[0], solutions[1]
        diff = next(c for c in range(eng.n) if a[c] != b[c])
        return Outcome("ambiguous", None, steps, solution=a,
                       reason=f"two solutions differ at {eng.cell_name(diff)} "
                       f"({a[diff]} or {b[diff]})")
    sol = [eng.index[label] for label in solutions[0]]
    guesses = _guided(eng, st, sol, steps)
    return Outcome("solved", recursive, _relabel(steps, recursive), st.labels(),
                   guesses=guesses, depth=1)
