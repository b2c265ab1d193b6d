"""The rating driver: the cheapest step first, guesses, and the public entry points.

:func:`rate` grades a puzzle, :func:`closure` gives the fixpoint of the
techniques up to a level, :func:`hint` the next cheapest step from a
player's entries; :func:`replay`, :func:`solvable` and
:func:`count_solutions` serve the generator and the tests.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..board import Board, Label
from ..errors import FutocpError, UsageError
from ..model import build_model
from ..propagate import bits
from .core import (
    LEVELS,
    SCALES,
    WEIGHTS,
    Contradiction,
    Engine,
    Rating,
    State,
    Step,
    cell_ref,
    default_scale,
    is_tatham_board,
    level_of,
    techniques_of,
    walk_steps,
)
from .games import GameScale, Outcome, game_scale, game_scale_names, scale_of
from .techniques import TECHNIQUE_FUNCS, lazy

__all__ = ["Closure", "Hint", "rate", "closure", "replay", "count_solutions", "solvable",
           "hint", "parse_state", "shuffled_techniques", "game_of", "scale_names"]

# -------------------------------------------------------------------- driver
@dataclass
class _Outcome:
    status: str
    level: int
    steps: list[Step]
    solutions: list[tuple[Label, ...]]
    guesses: int = 0
    depth: int = 0
    reason: str | None = None
    state: State | None = None


def _validate(eng: Engine, st: State) -> str | None:
    """Why a full grid breaks a relation (the final check), or None."""
    placed = st.placed
    for r in eng.model.relations:
        labels = [eng.values[placed[c]] for c in r.cells]
        if not r.holds(labels):
            shown = ", ".join(eng.cell_name(c) for c in r.cells)
            return f"the full grid breaks {r.kind}({shown})"
    return None


def _fixpoint(eng: Engine, st: State, maxlevel: int, steps: list[Step]) -> int:
    """Apply the cheapest step again and again; returns the highest level used.

    Raises:
        Contradiction: when the state has no solution.
    """
    used = 0
    top = min(maxlevel, 3)
    levels = eng.levels
    while st.left:
        step = None
        for lvl in range(top + 1):
            for tech in levels[lvl]:
                step = tech(eng, st)
                if step is not None:
                    break
            if step is not None:
                break
        if step is None:
            break
        steps.append(step)
        st.apply(step)
        if step.level > used:
            used = step.level
    return used


def _settle(eng: Engine, st: State, top: int, steps: list[Step]
            ) -> tuple[str, int, str | None]:
    """The fixpoint of the levels up to ``top`` (its steps appended to ``steps``):
    ``(status, highest level used, reason)``, the status ``solved``, ``unfinished``
    or ``impossible`` (a contradiction, or a filled grid that breaks a rule)."""
    try:
        used = _fixpoint(eng, st, top, steps)
        if not st.left:
            bad = _validate(eng, st)
            if bad:
                raise Contradiction(bad)
    except Contradiction as exc:
        return "impossible", 0, exc.reason
    return ("solved" if not st.left else "unfinished"), used, None


def _solve(eng: Engine, st: State, maxlevel: int) -> _Outcome:
    """Solve from ``st`` with the techniques up to ``maxlevel``; guess at level 4.

    When the techniques up to extreme stall, the number of solutions (0, 1, or
    2 and more) decides the status; it comes from a complete backend
    (:func:`futocp.puzzles.counting_backend`), or from the engine's own search
    when none can hold the model. A unique puzzle is then finished by
    guesses (:func:`_guided`), each refuting a wrong label or taking the solution's.
    """
    steps: list[Step] = []
    status, used, reason = _settle(eng, st, maxlevel, steps)
    if status == "impossible":
        return _Outcome("impossible", 0, steps, [], reason=reason, state=st)
    if status == "solved":
        return _Outcome("solved", used, steps, [st.labels()], state=st)
    if maxlevel < 4 or not eng.allow_guess:
        return _Outcome("unfinished", used, steps, [], reason="no technique of the allowed "
                        "levels makes progress", state=st)
    solutions = _solutions(eng, st)
    if not solutions:
        return _Outcome("impossible", 4, steps, [], reason="no solution (the search tried "
                        "every label of the cells the techniques left open)", state=st)
    if len(solutions) >= 2:
        a, b = solutions[0], solutions[1]
        diff = next(c for c in range(eng.n) if a[c] != b[c])
        return _Outcome("ambiguous", 4, steps, solutions[:2],
                        reason=f"two solutions differ at {eng.cell_name(diff)} "
                        f"({a[diff]} or {b[diff]})", state=st)
    index = eng.index
    sol = [index[label] for label in solutions[0]]
    guesses = _guided(eng, st, sol, steps)
    return _Outcome("solved", 4, steps, [st.labels()], guesses, 1, state=st)


# backends that hold a model the counting choice refuses (binary kinds through their
# support), fastest first on hard adjacent-mode puzzles (benchmarks/rating.py)
_FALLBACK_BACKENDS = ("sat", "listcolor")
_COUNTERS: dict[tuple[Any, ...], str | None] = {}


def _solutions(eng: Engine, st: State, limit: int = 2) -> list[tuple[Label, ...]]:
    """Up to ``limit`` solutions of the engine's board: a complete backend
    (:func:`futocp.puzzles.counting_backend`, or one of :data:`_FALLBACK_BACKENDS`
    when it refuses the model), else the engine's own search from ``st``. The
    backend chosen for a kind of model is remembered (choosing probes every
    backend's availability)."""
    from ..backends import get_backend  # a backend, only when guessing is needed
    from ..puzzles import counting_backend

    model = build_model(eng.board)
    key = (model.features, model.n_cells * model.n_values > 100_000)
    names: list[str | None]
    if key in _COUNTERS:
        names = [_COUNTERS[key]]
    else:
        try:
            names = [counting_backend(model).name]
        except FutocpError:
            names = list(_FALLBACK_BACKENDS)
    for name in names:
        if name is None:
            break
        try:
            result = get_backend(name).solve(model, limit=limit)
        except FutocpError:
            continue
        if result.exhausted or result.n_solutions >= limit:
            _COUNTERS[key] = name
            return [tuple(sol) for sol in result.solutions[:limit]]
    _COUNTERS.setdefault(key, None)
    found: list[tuple[Label, ...]] = []
    _search(eng, st.copy(), limit, found)
    return found


def _search(eng: Engine, st: State, limit: int, found: list[tuple[Label, ...]]) -> None:
    """Depth-first search (techniques up to tricky, the first cell with fewest labels)."""
    try:
        _fixpoint(eng, st, 2, [])
    except Contradiction:
        return
    if not st.left:
        if _validate(eng, st) is None:
            found.append(st.labels())
        return
    doms, placed = st.doms, st.placed
    cell = min((c for c in range(eng.n) if placed[c] < 0), key=lambda c: (doms[c].bit_count(), c))
    for v in bits(doms[cell]):
        sub = st.copy()
        try:
            sub.place(cell, v)
        except Contradiction:
            continue
        _search(eng, sub, limit, found)
        if len(found) >= limit:
            return


def _probe(eng: Engine, st: State, cell: int, v: int) -> tuple[list[Step], str] | None:
    """Place ``v`` at ``cell`` in a copy and run the techniques up to extreme:
    the steps and the reason when that ends in a contradiction, else None."""
    sub = st.copy()
    steps: list[Step] = []
    try:
        sub.place(cell, v)
        _fixpoint(eng, sub, 3, steps)
        if not sub.left:
            bad = _validate(eng, sub)
            if bad:
                raise Contradiction(bad)
    except Contradiction as exc:
        return steps, exc.reason
    return None


def _guided(eng: Engine, st: State, sol: Sequence[int], steps: list[Step]) -> int:
    """Finish a stalled state of a unique puzzle with guesses; returns their number.

    At each stall, the first cell with the fewest labels (Tatham's choice) is
    guessed: each wrong label is tried in increasing order, and one whose
    trial ends in a contradiction (techniques up to extreme) is refuted, a
    sound elimination whose trial is kept as the step's sub-steps. When no
    wrong label of the cell fails that way, the cell gets its label from the
    solution the search found (the only one), again a sound step. The
    techniques then go on from the cheapest level.
    """
    guesses = 0
    vals = eng.values
    while True:
        _fixpoint(eng, st, 3, steps)
        if not st.left:
            return guesses
        doms, placed = st.doms, st.placed
        cell = min((c for c in range(eng.n) if placed[c] < 0),
                   key=lambda c: (doms[c].bit_count(), c))
        right = sol[cell]
        step = None
        tried = []
        for v in bits(doms[cell] & ~(1 << right)):
            probed = _probe(eng, st, cell, v)
            if probed is not None:
                sub, reason = probed
                n = len(sub)
                step = Step("guess", 4, (), ((cell, vals[v]),), premises=(cell,), sub=tuple(sub),
                            _why=lazy(lambda cell, v, reason, n:
                                       f"guess {eng.cell_name(cell)} = {eng.label(v)}: after {n} "
                                       f"step{'' if n == 1 else 's'}, {reason} → "
                                       f"{eng.cell_name(cell)} loses {eng.label(v)}",
                                       cell, v, reason, n))
                break
            tried.append(v)
        if step is None:
            others = " ".join(eng.label(v) for v in tried)
            step = Step("guess", 4, ((cell, vals[right]),), (), premises=(cell,),
                        _why=lazy(lambda cell, others, right:
                                   f"guess {eng.cell_name(cell)} = {eng.label(right)}: no technique "
                                   f"applies, and {others} fail{'s' if ' ' not in others else ''} "
                                   f"only after more guessing; the only solution (found by "
                                   f"search) has {eng.label(right)} there", cell, others, right))
        guesses += 1
        steps.append(step)
        st.apply(step)


def _start(eng: Engine) -> State:
    """The givens placed (Tatham: the grid of givens, every label possible elsewhere).

    Raises:
        Contradiction: when the givens clash.
    """
    st = State(eng)
    clash = _clue_clash(eng)
    if clash:
        raise Contradiction(clash)
    if eng.model.conflict:
        raise Contradiction(eng.model.conflict)
    for fx in eng.model.fixed:
        st.place(fx.cell, fx.value)
    return st


def _clue_clash(eng: Engine) -> str | None:
    """Clues that break an asterism or a relation, named the engine's way."""
    clues = eng.board.clue_map
    for unit in eng.units:
        held = Counter(clues[c] for c in unit.cells if c in clues)
        for label, k in held.items():
            cap = unit.caps[eng.index[label]]
            if k > cap:
                where = ", ".join(eng.cell_name(c) for c in unit.cells if clues.get(c) == label)
                times = "twice" if k == 2 else f"{k} times"
                return f"{unit.name} holds {label} {times} ({where})"
    for r in eng.model.relations:
        if all(c in clues for c in r.cells) and not r.holds([clues[c] for c in r.cells]):
            shown = ", ".join(f"{eng.cell_name(c)} = {clues[c]}" for c in r.cells)
            return f"the clues break {r.kind}: {shown}"
    return None


def _engine(board: Board, scale: str | None, techniques: Sequence[str] | None) -> Engine:
    scale = scale or default_scale(board)
    if scale not in SCALES:
        raise UsageError(f"unknown scale {scale!r}; choose one of {', '.join(scale_names())}")
    if scale == "tatham" and not is_tatham_board(board):
        raise UsageError("the tatham scale rates n x n Futoshiki and Latin squares (labels "
                         "1..n, rows and columns, relations less / consecutive / "
                         "nonconsecutive); use --scale general for this board")
    return Engine(build_model(board, filtering="none"), scale, techniques, TECHNIQUE_FUNCS)


def _score(steps: Iterable[Step], weights: Mapping[str, tuple[float, float]]) -> float:
    total = 0.0
    for s in walk_steps(steps):
        base, per = weights.get(s.technique, (1, 0))
        total += base + per * s.size
    return total


def scale_names() -> tuple[str, ...]:
    """Every scale's name: ``tatham``, ``general``, then the game scales."""
    return SCALES + game_scale_names()


def game_of(board: Board, scale: str | None) -> GameScale | None:
    """The game scale that rates ``board`` with ``scale`` (None: the board's own,
    :func:`~futocp.rating.games.scale_of`), or None for ``tatham`` / ``general``.

    Raises:
        UsageError: for an unknown scale, or a game scale that does not cover the board.
    """
    if scale is None:
        return scale_of(board)
    if scale in SCALES:
        return None
    game = game_scale(scale)
    if game is None:
        raise UsageError(f"unknown scale {scale!r}; choose one of {', '.join(scale_names())}")
    if not game.covers(board):
        raise UsageError(f"the {scale} scale rates {scale} puzzles; this board is a {board.kind}")
    return game


def _game_level(game: GameScale, level: int | str | None) -> int:
    """A level of a game scale from its name, Tatham's letter or index (past the end
    or None: the last)."""
    if level is None:
        return len(game.grades) - 1
    if isinstance(level, str):
        name = game.letters.get(level, level.lower())
        if name not in game.grades:
            raise UsageError(f"unknown {game.name} grade {level!r}; choose one of "
                             f"{', '.join(game.grades)}")
        return game.grades.index(name)
    if level < 0:
        raise UsageError(f"a level is 0..{len(game.grades) - 1}, got {level}")
    return min(level, len(game.grades) - 1)


def _rate_game(game: GameScale, board: Board, weights: Mapping[str, tuple[float, float]] | None,
               techniques: Sequence[str] | None, max_level: int | str | None) -> Rating:
    t0 = time.perf_counter()
    if techniques is not None:
        raise UsageError(f"choosing techniques is for the tatham and general scales, not "
                         f"{game.name}")
    out = game.grade(board, _game_level(game, max_level))
    wts = {t: (30.0, 0.0) if t == "guess" else (1.0 + lvl, 0.0)
           for t, lvl in game.techniques.items()}
    wts.update({t: WEIGHTS[t] for t in ("subset", "fish", "forcing-chain") if t in wts})
    wts.update(weights or {})
    return _rating(game.name, game.grades, board, out, wts, t0)


def _rating(scale: str, grades: tuple[str, ...], board: Board, out: Outcome,
            wts: dict[str, tuple[float, float]], t0: float) -> Rating:
    counts = Counter(s.technique for s in walk_steps(out.steps))
    level = out.level if out.status == "solved" else None
    at_max = sum(1 for s in out.steps if level is not None and s.level == level)
    return Rating(
        grade=grades[level] if level is not None else None, level=level, status=out.status,
        scale=scale, steps=tuple(out.steps), counts=dict(counts),
        score=_score(out.steps, wts), weights=wts, guesses=out.guesses, depth=out.depth,
        max_level_steps=at_max, solution=out.solution, reason=out.reason,
        time_s=time.perf_counter() - t0, board=board, grades=grades)


def rate(board: Board, scale: str | None = None, *,
         weights: Mapping[str, tuple[float, float]] | None = None,
         techniques: Sequence[str] | None = None, max_level: int | str | None = None) -> Rating:
    """Rate a puzzle: its grade, status, proof, score and counts.

    Args:
        board: The puzzle.
        scale: ``tatham``, ``general`` or a game scale (``keen``, ``towers``,
            ``solo``); default: the game scale that covers the board
            (:func:`~futocp.rating.games.scale_of`), else :func:`default_scale`.
        weights: Score weights per technique, ``(base, per size)``; merged over
            :data:`WEIGHTS`.
        techniques: The techniques to use, in the order tried within a level
            (default: every technique of the scale). Leaving some out gives the
            ablations of the tests; without ``guess``, a puzzle the others do
            not solve is ``unfinished``.
        max_level: Stop at this level (a name or index of the scale; default:
            the scale's last): the rating of the level's closure (``unfinished``
            when it does not solve the puzzle).

    Returns:
        The :class:`Rating`.

    Raises:
        UsageError: for an unknown scale or technique, or the tatham scale on a
            board it does not cover.
    """
    game = game_of(board, scale)
    if game is not None:
        return _rate_game(game, board, weights, techniques, max_level)
    t0 = time.perf_counter()
    eng = _engine(board, scale, techniques)
    maxlevel = _level_index(len(LEVELS) - 1 if max_level is None else max_level)
    wts = dict(WEIGHTS)
    wts.update(weights or {})
    try:
        st = _start(eng)
    except Contradiction as exc:
        out = _Outcome("impossible", 0, [], [], reason=exc.reason)
    else:
        out = _solve(eng, st, maxlevel)
    counts = Counter(s.technique for s in walk_steps(out.steps))
    solved = out.status == "solved"
    level = out.level if solved else None
    at_max = sum(1 for s in out.steps if level is not None and s.level == level)
    return Rating(
        grade=LEVELS[level] if level is not None else None, level=level, status=out.status,
        scale=eng.scale, steps=tuple(out.steps), counts=dict(counts),
        score=_score(out.steps, wts), weights=wts, guesses=out.guesses, depth=out.depth,
        max_level_steps=at_max, solution=out.solutions[0] if out.solutions else None,
        reason=out.reason, time_s=time.perf_counter() - t0, board=board)


def _level_index(level: int | str) -> int:
    if isinstance(level, str):
        try:
            return LEVELS.index(level.lower())
        except ValueError:
            raise UsageError(f"unknown grade {level!r}; choose one of {', '.join(LEVELS)}"
                             ) from None
    if not 0 <= level <= 4:
        raise UsageError(f"a level is 0..4, got {level}")
    return level


# ------------------------------------------------------------------- closure
@dataclass(frozen=True, eq=False)
class Closure:
    """The fixpoint of the techniques up to a level (no guessing).

    Attributes:
        level: The level asked for.
        status: ``solved``, ``impossible`` or ``unfinished``.
        used: The highest level any step used.
        domains: The labels still possible per cell.
        steps: The steps taken.
        reason: Why it is impossible or unfinished.
    """

    level: int
    status: str
    used: int
    domains: tuple[tuple[Label, ...], ...]
    steps: tuple[Step, ...]
    reason: str | None

    @property
    def solved(self) -> bool:
        """True when the closure solves the puzzle."""
        return self.status == "solved"

    @property
    def remaining(self) -> int:
        """How many labels are still possible over all cells."""
        return sum(len(d) for d in self.domains)


def closure(board: Board, level: int | str, scale: str | None = None, *,
            techniques: Sequence[str] | None = None) -> Closure:
    """The fixpoint of every technique up to ``level`` (at most ``extreme``) from the givens.

    Example:
        >>> from futocp.formats import loads
        >>> b = loads("4:0,0,0,0,0,0,0L,0,0U,0,0,0,0U,0R,0,4,", "tatham")
        >>> closure(b, "trivial").solved, closure(b, "easy").solved
        (False, True)
    """
    game = game_of(board, scale)
    if game is not None:
        return _game_closure(game, board, level)
    eng = _engine(board, scale, techniques)
    lvl = min(_level_index(level), 3)
    steps: list[Step] = []
    try:
        st = _start(eng)
    except Contradiction as exc:
        return Closure(lvl, "impossible", 0, (), (), exc.reason)
    status, reason, used = "unfinished", None, 0
    try:
        used = _fixpoint(eng, st, lvl, steps)
    except Contradiction as exc:
        status, reason = "impossible", exc.reason
    else:
        if not st.left:
            bad = _validate(eng, st)
            status, reason = ("impossible", bad) if bad else ("solved", None)
    vals = eng.values
    doms = tuple(tuple(vals[v] for v in bits(d)) for d in st.doms)
    return Closure(lvl, status, used, doms, tuple(steps), reason)


def _game_closure(game: GameScale, board: Board, level: int | str) -> Closure:
    """The closure of a game scale's levels up to ``level`` (below its recursive one)."""
    lvl = min(_game_level(game, level), len(game.grades) - 2)
    out = game.grade(board, lvl)
    status = "solved" if out.status == "solved" else out.status
    used = out.level or 0
    doms: tuple[tuple[Label, ...], ...]
    if out.solution is not None and status == "solved":
        doms = tuple((label,) for label in out.solution)
    else:
        eng = Engine(build_model(board, filtering="none"), "general", [], TECHNIQUE_FUNCS)
        st = _start(eng)
        try:
            for step in out.steps:
                st.apply(step)
        except Contradiction:
            pass
        vals = eng.values
        doms = tuple(tuple(vals[v] for v in bits(d)) for d in st.doms)
    return Closure(lvl, status, used, doms, tuple(out.steps), out.reason)


def replay(board: Board, steps: Sequence[Step], scale: str | None = None
           ) -> tuple[tuple[Label, ...], ...]:
    """The labels still possible per cell after applying ``steps`` from the givens
    (placements also remove their label from the cell's asterisms).

    Raises:
        Contradiction: when a step empties a cell or places a struck label.
    """
    # a game scale's steps are eliminations and placements like any other:
    # the general engine applies them
    eng = _engine(board, "general" if game_of(board, scale) else scale, None)
    st = _start(eng)
    for step in steps:
        st.apply(step)
    vals = eng.values
    return tuple(tuple(vals[v] for v in bits(d)) for d in st.doms)


def count_solutions(board: Board, limit: int = 2) -> int:
    """The number of solutions of ``board``, up to ``limit`` (a complete backend,
    or the engine's own search when none can hold the board)."""
    eng = _engine(board, None, None)
    try:
        st = _start(eng)
    except Contradiction:
        return 0
    return len(_solutions(eng, st, limit))


def solvable(board: Board, level: int | str, scale: str | None = None) -> bool:
    """Does the fixpoint of the techniques up to ``level`` solve the puzzle?

    At ``recursive`` this is uniqueness (one solution)."""
    game = game_of(board, scale)
    if game is not None:
        return game.grade(board, _game_level(game, level)).status == "solved"
    lvl = _level_index(level)
    if lvl == 4:
        return rate(board, scale).status == "solved"
    return closure(board, lvl, scale).solved


# ---------------------------------------------------------------------- hints
@dataclass(frozen=True, eq=False)
class Hint:
    """What ``futocp hint`` says.

    Attributes:
        status: ``hint`` (a next step), ``wrong`` (an entry disagrees with the
            solution), ``solved`` (nothing left to do), ``ambiguous`` or
            ``impossible`` (the puzzle itself has no unique solution).
        step: The next step (status ``hint``).
        wrong: The wrong entry ``(cell, label)`` (status ``wrong``).
        reason: Why, in words.
        board: The puzzle with the player's entries as clues.
        grades: The scale's grades (the step's level indexes them).
    """

    status: str
    step: Step | None
    wrong: tuple[int, Label] | None
    reason: str
    board: Board = field(repr=False)
    grades: tuple[str, ...] = LEVELS

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``status``, ``step``, ``wrong``, ``reason``."""
        return {"status": self.status,
                "step": self.step.as_dict(self.board, self.grades) if self.step else None,
                "wrong": cell_ref(self.board, *self.wrong) if self.wrong else None,
                "reason": self.reason}


def parse_state(board: Board, text: str) -> dict[int, Label]:
    """A player's entries from a grid text: rows on lines (or separated by ``/``),
    cells separated by blanks (or one character each when a row has no blank);
    ``.``, ``0``, ``_`` and ``-`` are empty. Boards without a grid take one flat
    list of ``n_cells`` tokens.

    Raises:
        UsageError: for a grid of the wrong shape or an unknown label.

    Example:
        >>> from futocp.families import latin_square
        >>> parse_state(latin_square(3), "1.. / .2. / ...")
        {0: 1, 4: 2}
    """
    rows_text = [r.strip() for r in text.replace("/", "\n").splitlines() if r.strip()]
    tokens_rows = [r.split() if len(r.split()) > 1 else list(r) for r in rows_text]
    if board.shape is not None:
        rows, cols = board.shape
        if len(tokens_rows) != rows or any(len(r) != cols for r in tokens_rows):
            raise UsageError(f"the state must be a {rows}x{cols} grid (rows on lines or "
                             "separated by '/')")
        flat = [t for r in tokens_rows for t in r]
    else:
        flat = [t for r in rows_text for t in r.split()]
        if len(flat) != board.n_cells:
            raise UsageError(f"the state must list {board.n_cells} cells")
    by_text = {str(v): v for v in board.values}
    out: dict[int, Label] = {}
    for cell, tok in enumerate(flat):
        if tok in (".", "0", "_", "-"):
            continue
        if tok not in by_text:
            raise UsageError(f"state: {tok!r} at {board.cell_name(cell)} is not a label of "
                             f"this board ({', '.join(by_text)})")
        out[cell] = by_text[tok]
    return out


def hint(board: Board, state: Mapping[int, Label] | None = None, scale: str | None = None
         ) -> Hint:
    """The next cheapest step from the puzzle plus a player's entries.

    A wrong entry (one that disagrees with the puzzle's unique solution, or
    that leaves no solution) is named first, with the rater's reason, instead
    of a hint built on it.

    Example:
        >>> from futocp.formats import loads
        >>> b = loads("4:0,0,0,0,0,0,0L,0,0U,0,0,0,0U,0R,0,4,", "tatham")
        >>> hint(b).step.technique
        'less-bounds'
    """
    entries = dict(state or {})
    clues = board.clue_map
    for cell, label in sorted(entries.items()):
        if cell in clues and clues[cell] != label:
            return Hint("wrong", None, (cell, label),
                        f"{board.cell_name(cell)} is a clue: {clues[cell]}, not {label}", board)
    full = rate(board, scale)
    if full.status != "solved":
        return Hint(full.status, None, None, f"the puzzle is {full.status}: {full.reason}", board)
    solution = full.solution
    assert solution is not None
    for cell, label in sorted(entries.items()):
        if solution[cell] != label:
            why = _refutation(board.with_clues({**clues, cell: label}), scale)
            return Hint("wrong", None, (cell, label),
                        f"{board.cell_name(cell)} cannot be {label}: {why}", board)
    current = board.with_clues({**clues, **entries})
    if len(current.clues) == board.n_cells:
        return Hint("solved", None, None, "every cell is filled in, correctly", current,
                    full.grades)
    game = game_of(board, scale)
    if game is not None:
        proof = game.grade(current, len(game.grades) - 1).steps
        return Hint("hint", proof[0], None, proof[0].reason, current, game.grades)
    eng = _engine(current, scale, None)
    st = _start(eng)
    steps: list[Step] = []
    for lvl in range(4):
        for tech in eng.levels[lvl]:
            step = tech(eng, st)
            if step is not None:
                return Hint("hint", step, None, step.reason, current)
    out = _solve(eng, st, 4)
    steps = out.steps
    first = next(s for s in steps if s.technique == "guess")
    return Hint("hint", first, None, first.reason, current)


def _refutation(board: Board, scale: str | None) -> str:
    r = rate(board, scale)
    if r.status == "impossible":
        n = len(r.steps)
        return f"{r.reason} (after {n} step{'' if n == 1 else 's'})" if n else str(r.reason)
    return "the puzzle's only solution has another label there"


# ------------------------------------------------------------------- shuffle
def shuffled_techniques(scale: str, seed: int | None = None) -> list[str]:
    """The techniques of a scale with their order shuffled within each level."""
    rng = random.Random(seed)
    out: list[str] = []
    for lvl in range(5):
        group = [t for t in techniques_of(scale) if level_of(t, scale) == lvl]
        rng.shuffle(group)
        out.extend(group)
    return out

