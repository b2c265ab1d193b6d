"""Puzzles of a chosen grade: Tatham's generation method on futocp's rater.

:func:`generate_graded` makes a unique puzzle that rates exactly the grade
asked (:mod:`futocp.rating`), in five steps:

1. **Solution.** A hidden solution is drawn from one ``random.Random(seed)``: a
   uniform random Latin square for Futoshiki (either mode) and Latin squares
   (:func:`~futocp.generate.random_latin_square`), a seeded random search
   for other boards (:func:`~futocp.generate.random_solution`).
2. **Clue pool.** Every cell with its label (a *given*); for ``futoshiki``
   also every neighbour pair as an inequality oriented by the solution. In
   the adjacent mode (``futoshiki-adjacent``) every bar is present from the
   start (the solution decides which neighbours are consecutive) and only
   givens are in the pool; at ``trivial`` no inequality is used (the
   relations play no part at that level). Givens and inequalities are
   shuffled separately.
3. **Assemble.** From no clues, while the closure at the target level (at
   most ``extreme``) does not solve the puzzle, add the pool clue whose cell
   has the most labels left in that closure; inequalities win ties against
   givens, then the shuffled order decides. A clue the closure already
   implies is skipped.
4. **Strip.** One pass, givens first then inequalities, each in shuffled
   order: a clue goes when the puzzle stays solvable at the target level
   without it (at ``recursive``: stays unique). One pass suffices because the
   closures are monotone in the clues; the result is *minimal for its level*.
5. **Accept** when the level below does not solve it (any puzzle is
   accepted at ``trivial``) and a full :func:`~futocp.rating.rate` gives
   exactly the grade asked; otherwise start again from a new solution, up to
   ``tries`` times. Then fail with :class:`GradeNotReached`, or, with
   ``allow_lower``, return the last puzzle, whose ``grade`` parameter (on
   families that have one) says its actual grade. The grade is never lowered
   silently (Tatham's generator does lower it, after 50 tries).

Example:
    >>> from futocp.rating import rate
    >>> b = generate_graded("futoshiki", "tricky", size=5, seed=3)
    >>> rate(b).grade, b.param_map["grade"]
    ('tricky', 'k')
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from . import families
from .board import Board, Label, grid_neighbour_pairs
from .errors import FutocpError, UsageError
from .generate import random_latin_square, random_solution
from .rating import LETTERS, LEVELS, closure, count_solutions, default_scale, rate
from .relations import Relation

__all__ = ["generate_graded", "generate_graded_many", "GradeNotReached", "GRADE_LETTERS",
           "GAME_FAMILIES", "SOLO_FAMILIES", "SOLO_GRADES", "grade_names"]

GAME_FAMILIES = ("keen", "towers")
"""Families made by :func:`futocp.generate_games.generate` (their games' own scales)."""
SOLO_FAMILIES = ("sudoku", "sudoku-x", "jigsaw", "killer-sudoku")
"""Families that a Solo grade sends to :func:`futocp.generate_solo.generate`."""
SOLO_GRADES = ("trivial", "basic", "intermediate", "advanced", "extreme", "unreasonable")
"""Tatham's Solo grades (the ``solo`` scale)."""


def grade_names() -> tuple[str, ...]:
    """Every grade name ``--grade`` accepts: the tatham/general levels, then the
    game scales' and Solo's."""
    from .rating.keen import KEEN_GRADES
    from .rating.towers import TOWERS_GRADES

    return tuple(dict.fromkeys((*LEVELS, *KEEN_GRADES, *TOWERS_GRADES, *SOLO_GRADES)))


GameGenerator = Callable[..., Board]


def _game_generator(family: str, grade: str | int, scale: str | None) -> GameGenerator | None:
    """The generator of a game's own scale for ``family`` and ``grade``, or None for the
    tatham/general generator of this module.

    Keen and Towers always use their games' scales; a Sudoku-like family uses Solo's
    generator for a Solo grade (unless ``scale`` names tatham or general).

    Raises:
        UsageError: for a Solo grade when :mod:`futocp.generate_solo` is not installed.
    """
    if family in GAME_FAMILIES:
        from .generate_games import generate

        return generate
    if family not in SOLO_FAMILIES or scale in ("tatham", "general") or not isinstance(grade, str):
        return None
    name = grade.lower()
    if name not in SOLO_GRADES:
        return None
    try:
        module = importlib.import_module(f"{__package__}.generate_solo")
    except ModuleNotFoundError:
        if name in LEVELS:
            return None  # the general scale has this grade too
        raise UsageError(f"{family} puzzles of Solo grade {name!r} need futocp.generate_solo, "
                         "which this installation does not have") from None
    gen: GameGenerator = module.generate
    return gen

GRADE_LETTERS = {grade: letter for letter, grade in LETTERS.items()}
"""Tatham's difficulty letters, kept as the ``grade`` parameter of futoshiki boards."""


class GradeNotReached(FutocpError):
    """No puzzle of the grade asked came out within the tries.

    Attributes:
        asked: The grade asked for.
        last: The last puzzle made (a lower grade), or None.
        last_grade: Its grade.
    """

    def __init__(self, message: str, asked: str, last: Board | None, last_grade: str | None
                 ) -> None:
        super().__init__(message)
        self.asked = asked
        self.last = last
        self.last_grade = last_grade


def _level(grade: str | int) -> int:
    if isinstance(grade, int):
        if not 0 <= grade < len(LEVELS):
            raise UsageError(f"a level is 0..4, got {grade}")
        return grade
    name = str(grade).lower()
    by_letter = {v: k for k, v in GRADE_LETTERS.items()}
    name = by_letter.get(name, name)
    if name not in LEVELS:
        raise UsageError(f"unknown grade {grade!r}; choose one of {', '.join(LEVELS)}")
    return LEVELS.index(name)


class _Maker:
    """One family's template, pool and board builder."""

    def __init__(self, family: str, size: int | None, params: Mapping[str, Any],
                 scale: str | None) -> None:
        template = families.family(family, size=size, **dict(params))
        kind = template.kind
        self.kind = kind
        self.template = template
        if kind in ("futoshiki", "futoshiki-adjacent", "latin-square"):
            if template.relations and kind != "futoshiki-adjacent":
                raise UsageError("the template of a graded puzzle has no relations of its own")
        elif template.relations:
            raise UsageError(f"generation by grade handles futoshiki, futoshiki-adjacent and "
                             f"boards without relations; {family} has relations of its own")
        self.square = kind in ("futoshiki", "futoshiki-adjacent", "latin-square")
        self.n = template.shape[0] if self.square and template.shape else 0
        self.scale = scale or default_scale(self._board((), (), list(self._any_solution())))
        self.has_grade = "grade" in families.get_family(kind).params

    def _any_solution(self) -> tuple[Label, ...]:
        if self.square:
            n = self.n
            return tuple((r + c) % n + 1 for r in range(n) for c in range(n))
        return tuple(0 for _ in range(self.template.n_cells))

    def solution(self, rng: random.Random) -> tuple[Label, ...]:
        if self.square:
            return tuple(v for row in random_latin_square(self.n, rng=rng) for v in row)
        return tuple(random_solution(self.template, rng=rng))

    def fixed_relations(self, sol: tuple[Label, ...]) -> tuple[Relation, ...]:
        """The relations every puzzle of this solution has (adjacent mode: all of them)."""
        if self.kind != "futoshiki-adjacent":
            return ()
        out = []
        for a, b in grid_neighbour_pairs(self.n, self.n):
            kind = "consecutive" if abs(int(sol[a]) - int(sol[b])) == 1 else "nonconsecutive"
            out.append(Relation(kind, (a, b)))
        return tuple(out)

    def pool_relations(self, sol: tuple[Label, ...], level: int) -> list[tuple[int, int]]:
        """The inequalities a puzzle may use (futoshiki above trivial)."""
        if self.kind != "futoshiki" or level == 0:
            return []
        return [(a, b) if int(sol[a]) < int(sol[b]) else (b, a)
                for a, b in grid_neighbour_pairs(self.n, self.n)]

    def _board(self, givens: Any, less: Any, sol: list[Label] | tuple[Label, ...],
               fixed: tuple[Relation, ...] = ()) -> Board:
        rels = list(fixed) + [Relation("less", pair) for pair in less]
        return replace(self.template, clues=tuple((c, sol[c]) for c in sorted(givens)),
                       relations=tuple(rels))

    def build(self, givens: Any, less: Any, sol: tuple[Label, ...],
              fixed: tuple[Relation, ...]) -> Board:
        return self._board(givens, less, sol, fixed)


def _solvable(board: Board, level: int, scale: str) -> bool:
    if level >= 4:
        return count_solutions(board, 2) == 1
    return closure(board, level, scale).solved


def _attempt(maker: _Maker, level: int, rng: random.Random) -> Board:
    """One solution, assembled and stripped for ``level`` (not yet checked against level - 1)."""
    sol = maker.solution(rng)
    fixed = maker.fixed_relations(sol)
    cells = list(range(len(sol)))
    rng.shuffle(cells)
    pairs = maker.pool_relations(sol, level)
    rng.shuffle(pairs)
    order_given = {c: i for i, c in enumerate(cells)}
    order_pair = {p: i for i, p in enumerate(pairs)}
    assemble_at = min(level, 3)
    givens: set[int] = set()
    less: set[tuple[int, int]] = set()
    scale = maker.scale
    index = {v: i for i, v in enumerate(maker.template.values)}
    while True:
        board = maker.build(givens, less, sol, fixed)
        cl = closure(board, assemble_at, scale)
        if cl.solved:
            break
        doms = cl.domains
        best: tuple[tuple[int, int, int], str, Any] | None = None
        for p in pairs:
            if p in less:
                continue
            a, b = p
            if doms[a] and doms[b] and index[doms[a][-1]] < index[doms[b][0]]:
                continue  # already implied
            key = (-len(doms[b]), 0, order_pair[p])
            if best is None or key < best[0]:
                best = (key, "less", p)
        for c in cells:
            if c in givens or len(doms[c]) <= 1:
                continue
            key = (-len(doms[c]), 1, order_given[c])
            if best is None or key < best[0]:
                best = (key, "given", c)
        if best is None:  # pragma: no cover - every cell given solves any board
            raise UsageError("the clue pool cannot solve the puzzle")
        if best[1] == "less":
            less.add(best[2])
        else:
            givens.add(best[2])
    # strip: givens first, then inequalities, each in the shuffled order
    for c in cells:
        if c in givens:
            trial = givens - {c}
            if _solvable(maker.build(trial, less, sol, fixed), level, scale):
                givens = trial
    for p in pairs:
        if p in less:
            trial_less = less - {p}
            if _solvable(maker.build(givens, trial_less, sol, fixed), level, scale):
                less = trial_less
    return maker.build(givens, less, sol, fixed)


def _with_grade(maker: _Maker, board: Board, grade: str | None) -> Board:
    if not maker.has_grade or grade is None:
        return board
    params = dict(board.params)
    params["grade"] = GRADE_LETTERS[grade]
    return replace(board, params=tuple(sorted(params.items())))


def generate_graded(family: str, grade: str | int, *, size: int | None = None,
                    seed: int | None = None, params: Mapping[str, Any] | None = None,
                    tries: int | None = None, allow_lower: bool = False, scale: str | None = None,
                    time_limit: float | None = None, rng: random.Random | None = None) -> Board:
    """A unique puzzle of ``family`` that rates exactly ``grade`` (see the module docstring).

    Args:
        family: ``futoshiki``, ``futoshiki-adjacent``, ``latin-square``, or a
            family without relations of its own (``sudoku``, ``jigsaw``...,
            rated on the general scale); ``keen`` and ``towers`` go to
            :func:`futocp.generate_games.generate` (their own scales), and
            ``sudoku``, ``sudoku-x``, ``jigsaw``, ``killer-sudoku`` with a Solo
            grade to :func:`futocp.generate_solo.generate` (then ``allow_lower``
            does not apply).
        grade: ``trivial``, ``easy``, ``tricky``, ``extreme`` or ``recursive``
            (or Tatham's letter ``t e k x r``, or the level 0..4); a grade of
            the game's scale for the families above.
        size: The family's size.
        seed: Random seed: the same arguments give the same puzzle.
        params: Other family parameters.
        tries: Solutions to try before giving up (default 50; the game
            generators' own defaults for their families).
        allow_lower: On failure, return the last puzzle (whose actual grade is
            its ``grade`` parameter, and its rating) instead of raising.
        scale: The rating scale (default: the family's).
        time_limit: Seconds after which no new try starts.
        rng: A random generator to draw from (``seed`` is then ignored).

    Returns:
        The puzzle; on families with a ``grade`` parameter (futoshiki), it
        holds Tatham's letter of the grade.

    Raises:
        GradeNotReached: when no try gave the grade (without ``allow_lower``).
        UsageError: for a family or grade the generator cannot make.
    """
    game = _game_generator(family, grade, scale)
    if game is not None:
        if tries is not None and tries < 1:
            raise UsageError(f"tries must be at least 1, got {tries}")
        if rng is not None:
            seed = rng.randrange(2 ** 31)
        extra: dict[str, Any] = {}  # only what was asked: Solo's generator may not take them
        if time_limit is not None:
            extra["time_limit"] = time_limit
        if tries is not None:
            extra["tries"] = tries
        return game(family, grade, size=size, seed=seed, params=params, **extra)
    tries = 50 if tries is None else tries
    level = _level(grade)
    if tries < 1:
        raise UsageError(f"tries must be at least 1, got {tries}")
    rng = rng or random.Random(seed)
    maker = _Maker(family, size, params or {}, scale)
    if level == 1 and maker.kind not in ("futoshiki", "futoshiki-adjacent"):
        raise UsageError(f"no {family} puzzle rates easy: the easy techniques work on relations "
                         "(inequalities, consecutive pairs), and the board has none, so its "
                         "puzzles go from trivial to tricky")
    start = time.perf_counter()
    last: Board | None = None
    last_grade: str | None = None
    tried = 0
    while tried < tries:
        tried += 1
        board = _attempt(maker, level, rng)
        too_easy = level > 0 and _solvable(board, level - 1, maker.scale)
        if not too_easy:
            got = rate(board, maker.scale)
            if got.status == "solved" and got.level == level:
                return _with_grade(maker, board, got.grade)
            last_grade = got.grade
        else:
            last_grade = rate(board, maker.scale).grade
        last = board
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
    message = (f"no {family} puzzle rated {LEVELS[level]} in {tried} tr{'y' if tried == 1 else 'ies'}"
               f" (the last one rated {last_grade}); try another seed, more --tries, a larger "
               f"size, or --allow-lower")
    if allow_lower and last is not None:
        return _with_grade(maker, last, last_grade)
    raise GradeNotReached(message, LEVELS[level], last, last_grade)


def generate_graded_many(family: str, grade: str | int, count: int, *, size: int | None = None,
                         seed: int | None = None, params: Mapping[str, Any] | None = None,
                         tries: int | None = None, allow_lower: bool = False, scale: str | None = None,
                         time_limit: float | None = None) -> list[Board]:
    """``count`` puzzles of one grade, drawn one after the other from one seed."""
    if count < 1:
        raise UsageError(f"count must be at least 1, got {count}")
    rng = random.Random(seed)
    return [generate_graded(family, grade, size=size, params=params, tries=tries,
                            allow_lower=allow_lower, scale=scale, time_limit=time_limit, rng=rng)
            for _ in range(count)]
