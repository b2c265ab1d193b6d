"""Keen and Towers puzzles of a chosen grade, made the way Simon Tatham's generators make them.

:func:`generate` returns a puzzle with exactly one solution that the game's
scale (:mod:`futocp.rating.keen`, :mod:`futocp.rating.towers`, which give his
grades) grades exactly as asked, the same for the same seed:

* **Keen** (his ``new_game_desc`` in ``keen.c``): a random Latin square; cages
  made by first pairing cells into dominoes (cells in reading order, each
  joined, with probability 3/4, to the free neighbour that comes first in a
  random order) and then folding each leftover cell into its first neighbouring
  cage of fewer than 6 cells; then operations chosen round-robin (division,
  subtraction, multiplication, addition, each time the first cage in a random
  order that suits it well, else one that suits it at all): cages of three or
  more cells take a sum or a product; a domino takes a quotient only when it
  divides to at most w/2, a difference only when it is below w-1, and avoids
  sums of 3, 4, 2w-2 and 2w-1 and (above normal) products that leave at most
  two pairs. Multiplication-only puzzles (``multiplication=True``) use products
  everywhere. The puzzle is kept when it is solvable at the grade and not at
  the grade below; else a new square is drawn.
* **Towers** (``towers.c``): a random Latin square and all 4w clues; at easy on
  grids up to 5x5 the clues alone must solve it at easy. Then, in a random
  order, every given is removed while the puzzle stays solvable at the grade,
  and (above easy) every clue likewise; the puzzle is kept when its grade is
  exactly the one asked.

As in his generators, 3x3 Keen above normal and 3x3 Towers above hard cannot
be made (every such puzzle is easier); asking for them is an error here
rather than a silent change of grade.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from .board import Board
from .errors import UsageError
from .families import family as make_family
from .generate import random_latin_square
from .rating.games import GameScale
from .rating.keen import KEEN_SCALE
from .rating.towers import TOWERS_SCALE

__all__ = ["generate", "FAMILIES"]

FAMILIES = ("keen", "towers")
"""The families this module makes."""

_MAXBLK = 6
_OPS = ("/", "-", "*", "+")  # Tatham's round-robin order of clue types


def _scale(family: str) -> GameScale:
    if family == "keen":
        return KEEN_SCALE
    if family == "towers":
        return TOWERS_SCALE
    raise UsageError(f"generation by grade for Tatham's games makes {', '.join(FAMILIES)}, "
                     f"not {family}")


def _level(scale: GameScale, grade: str | int) -> int:
    if isinstance(grade, int):
        if not 0 <= grade < len(scale.grades):
            raise UsageError(f"a {scale.name} level is 0..{len(scale.grades) - 1}, got {grade}")
        return grade
    name = scale.letters.get(grade, str(grade).lower())
    if name not in scale.grades:
        raise UsageError(f"unknown {scale.name} grade {grade!r}; choose one of "
                         f"{', '.join(scale.grades)}")
    return scale.grades.index(name)


# ------------------------------------------------------------------- keen
def _keen_blocks(w: int, rng: random.Random) -> list[list[int]] | None:
    """Tatham's cage partition: dominoes, then leftover cells folded in (None: a cell
    could not be placed, start again)."""
    a = w * w
    order = list(range(a))
    rng.shuffle(order)
    rank = {cell: k for k, cell in enumerate(order)}
    parent = list(range(a))
    size = [1] * a

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def merge(x: int, y: int) -> None:
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[ry] = rx
            size[rx] += size[ry]

    def neighbours(i: int) -> list[int]:
        x, y = i % w, i // w
        out = []
        if x > 0:
            out.append(i - 1)
        if x + 1 < w:
            out.append(i + 1)
        if y > 0:
            out.append(i - w)
        if y + 1 < w:
            out.append(i + w)
        return out

    single = [True] * a
    for i in range(a):
        if not single[i]:
            continue
        free = [j for j in neighbours(i) if single[j]]
        if free:
            best = min(free, key=rank.__getitem__)
            if rng.randrange(4):
                single[i] = single[best] = False
                merge(i, best)
    for i in range(a):
        if not single[i]:
            continue
        room = [j for j in neighbours(i) if size[find(j)] < _MAXBLK]
        if room:
            best = min(room, key=rank.__getitem__)
            single[i] = single[best] = False
            merge(i, best)
    if any(single):
        return None
    blocks: dict[int, list[int]] = {}
    for i in range(a):
        blocks.setdefault(find(i), []).append(i)
    return sorted(blocks.values())


def _keen_ops(blocks: list[list[int]], grid: list[int], w: int, level: int, mult_only: bool,
              rng: random.Random) -> list[str]:
    """The operation of each block, chosen round-robin the way Tatham does."""
    good: list[set[str]] = []
    bad: list[set[str]] = []
    for cells in blocks:
        g: set[str] = set()
        b: set[str] = set()
        if mult_only:
            g.add("*")
        elif len(cells) > 2:
            g.update("+*")
        else:
            p, q = sorted((grid[cells[0]], grid[cells[1]]), reverse=True)
            (g if 4 < p + q < 2 * w - 2 else b).add("+")
            v = p * q
            pairs = sum(1 for k in range(1, w + 1) if v % k == 0 and v // k <= w and v // k != k)
            (b if pairs <= 2 and level > 1 else g).add("*")
            if p - q < w - 1:
                g.add("-")
            if p % q == 0 and 2 * (p // q) <= w:
                g.add("/")
        good.append(g)
        bad.append(b)
    order = list(range(len(blocks)))
    rng.shuffle(order)
    ops: list[str | None] = [None] * len(blocks)
    while True:
        done = False
        for op in _OPS:
            pick = next((k for k in order if op in good[k]), None)
            if pick is None:
                pick = next((k for k in order if op in bad[k]), None)
            if pick is not None:
                ops[pick] = op
                good[pick], bad[pick] = set(), set()
                done = True
        if not done:
            break
    if None in ops:  # pragma: no cover - every block suits addition or multiplication
        raise UsageError("a cage got no operation")
    return [op for op in ops if op is not None]


def _keen_target(op: str, values: list[int]) -> int:
    if op == "+":
        return sum(values)
    if op == "*":
        out = 1
        for v in values:
            out *= v
        return out
    a, b = max(values), min(values)
    return a - b if op == "-" else a // b


def _keen_board(blocks: list[list[int]], ops: list[str], grid: list[int], w: int,
                params: Mapping[str, Any]) -> Board:
    relations = [("arith", [divmod(c, w) for c in cells],
                  {"op": op, "target": _keen_target(op, [grid[c] for c in cells])})
                 for cells, op in zip(blocks, ops, strict=True)]
    return make_family("keen", None, relations=relations, n=w, **dict(params))


def _keen_attempt(w: int, level: int, mult_only: bool, rng: random.Random) -> Board | None:
    grid = [v for row in random_latin_square(w, rng=rng) for v in row]
    blocks = _keen_blocks(w, rng)
    if blocks is None:
        return None
    ops = _keen_ops(blocks, grid, w, level, mult_only, rng)
    extra = {"multiplication": True} if mult_only else {}
    board = _keen_board(blocks, ops, grid, w, extra)
    out = KEEN_SCALE.grade(board, level)
    if out.status == "solved" and out.level == level:
        return board
    return None


# ----------------------------------------------------------------- towers
def _towers_clues(grid: list[int], w: int) -> list[tuple[list[int], int]]:
    from .formats.towers import clue_line

    out = []
    for i in range(4 * w):
        line = clue_line(i, w)
        seen = best = 0
        for c in line:
            if grid[c] > best:
                best = grid[c]
                seen += 1
        out.append((line, seen))
    return out


def _towers_board(clues: list[tuple[list[int], int]], kept: list[bool], givens: dict[int, int],
                  w: int) -> Board:
    relations = [("visible", [divmod(c, w) for c in line], {"count": count})
                 for (line, count), keep in zip(clues, kept, strict=True) if keep]
    rows = [[givens.get(r * w + c, 0) for c in range(w)] for r in range(w)]
    return make_family("towers", rows if givens else None, relations=relations, n=w)


def _towers_attempt(w: int, level: int, rng: random.Random) -> Board | None:
    grid = [v for row in random_latin_square(w, rng=rng) for v in row]
    clues = _towers_clues(grid, w)
    kept = [True] * len(clues)

    def solvable(givens: dict[int, int]) -> bool:
        board = _towers_board(clues, kept, givens, w)
        return TOWERS_SCALE.grade(board, level).status == "solved"

    if level == 0 and w <= 5 and not solvable({}):
        return None
    givens = dict(enumerate(grid))
    cells = list(range(w * w))
    rng.shuffle(cells)
    for c in cells:
        trial = {k: v for k, v in givens.items() if k != c}
        if solvable(trial):
            givens = trial
    if level > 0:
        order = list(range(len(clues)))
        rng.shuffle(order)
        for k in order:
            kept[k] = False
            if not solvable(givens):
                kept[k] = True
    board = _towers_board(clues, kept, givens, w)
    out = TOWERS_SCALE.grade(board, level)
    return board if out.status == "solved" and out.level == level else None


# ---------------------------------------------------------------- public
def generate(family: str, grade: str | int, *, size: int | None = None,
             seed: int | None = None, params: Mapping[str, Any] | None = None,
             tries: int | None = None, time_limit: float | None = None) -> Board:
    """A Keen or Towers puzzle with one solution that grades exactly ``grade``.

    Args:
        family: ``keen`` or ``towers``.
        grade: A grade of the game's scale (``easy`` ... ``unreasonable``), or
            Tatham's letter (Keen ``e n h x u``, Towers ``e h x u``), or a level.
        size: The side w (3..9; default 6 for Keen, 5 for Towers, as his).
        seed: Random seed: the same arguments give the same puzzle.
        params: ``{"multiplication": True}`` for Keen's multiplication-only mode.
        tries: Attempts before giving up (default: 5000 Keen squares, 200 Towers).
        time_limit: Seconds after which no new attempt starts.

    Returns:
        The puzzle; its ``grade`` parameter holds Tatham's letter of the grade.

    Raises:
        GradeNotReached: when no attempt gave the grade.
        UsageError: for another family, an unknown grade or a size out of range.
    """
    from .generate_graded import GradeNotReached

    scale = _scale(family)
    level = _level(scale, grade)
    w = size if size is not None else (6 if family == "keen" else 5)
    if not 3 <= w <= 9:
        raise UsageError(f"{family} grids are 3x3 to 9x9 (Tatham's limits), not {w}x{w}")
    extra = dict(params or {})
    mult_only = bool(extra.pop("multiplication", False))
    if extra:
        raise UsageError(f"unknown {family} parameters: {', '.join(sorted(extra))}")
    if mult_only and family != "keen":
        raise UsageError("multiplication-only is a Keen mode")
    cap = 1  # Keen normal, Towers hard
    if w == 3 and level > cap:
        raise UsageError(f"no 3x3 {family} puzzle grades {scale.grades[level]}: every one is "
                         f"{scale.grades[cap]} or easier (Tatham's generator lowers the grade)")
    rng = random.Random(seed)
    limit = tries if tries is not None else (5000 if family == "keen" else 200)
    start = time.perf_counter()
    tried = 0
    while tried < limit:
        tried += 1
        board = (_keen_attempt(w, level, mult_only, rng) if family == "keen"
                 else _towers_attempt(w, level, rng))
        if board is not None:
            letter = {v: k for k, v in scale.letters.items()}[scale.grades[level]]
            return _with_grade(board, letter)
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
    name = scale.grades[level]
    raise GradeNotReached(f"no {w}x{w} {family} puzzle graded {name} in {tried} "
                          f"attempt{'' if tried == 1 else 's'}; try another seed or more tries",
                          name, None, None)


def _with_grade(board: Board, letter: str) -> Board:
    from dataclasses import replace

    params = dict(board.params)
    params["grade"] = letter
    return replace(board, params=tuple(sorted(params.items())))
