"""Solo puzzles of a chosen grade, made the way Simon Tatham's generator makes them.

:func:`generate` gives a unique puzzle of one of Solo's families (``sudoku``,
``sudoku-x``, ``jigsaw``, ``killer-sudoku`` and their combinations) that
:mod:`futocp.rating.solo` grades exactly the grade asked. It follows
``new_game_desc`` of his ``solo.c``, each attempt drawn from one
``random.Random(seed)``:

1. **Regions.** A jigsaw without given ``regions`` gets random ones (n
   connected regions of n cells, reshaped from the boxes cell by cell). A
   killer board gets cages as his do: reading the grid in order, each free
   cell starts a cage, three times in four with its right or lower
   neighbour; a cell left alone then joins a neighbouring cage.
2. **Solution.** A random filled grid: a shuffled first row, then cells with
   the fewest digits left first (ties at random), digits in random order,
   digits of a cage different; given up after n**3 steps. (On random jigsaw
   regions a digit with fewer places than that cell has digits goes first.)
3. **Clues.** Normal boards: the cells in classes of the symmetry (the board's
   ``symmetry`` parameter, his default ``r2``: a half turn), in random order;
   a class's givens go when the puzzle stays solvable with the techniques of
   the grade asked (at ``unreasonable``: stays unique). Killer boards have no
   givens: the cages and their sums are the puzzle. (His generator then tries
   to merge cages into bigger ones, but its list of mergeable pairs stays
   empty, so it never does; neither does this one.)
4. **Accept** when the grade is exactly the one asked (and, on killer
   boards, his killer difficulty is ``advanced``, as his generator demands);
   else start again, up to ``tries`` times, then raise
   :class:`~futocp.generate_graded.GradeNotReached`. Every puzzle returned is
   checked unique (:func:`futocp.count`) and its solution verified.

2x2 boxes only ever make trivial puzzles (his generator asks no more of them).

Example:
    >>> from futocp.rating.solo import grade as solo_grade
    >>> b = generate("sudoku", "basic", size=None, seed=1, params={"box": (2, 3)})
    >>> solo_grade(b).level, b.param_map["difficulty"]
    (1, 'b')
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .board import Board
from .errors import UsageError
from .families import get_family
from .generate_graded import GradeNotReached
from .puzzles import count
from .rating.solo import GRADES, SoloPuzzle, grade_run, solo_puzzle
from .rating.solo_killer import KILLER_GRADES
from .verify import verify

__all__ = ["generate", "SOLO_FAMILIES", "LETTERS", "start_regions", "random_regions",
           "killer_cages", "random_grid", "symmetry_classes"]

SOLO_FAMILIES = ("sudoku", "sudoku-x", "jigsaw", "jigsaw-x", "killer-sudoku", "killer-sudoku-x",
                 "killer-jigsaw", "killer-jigsaw-x")
"""The families :func:`generate` makes (Solo's modes)."""
LETTERS = dict(zip(GRADES, "tbiaeu", strict=True))
"""Solo's difficulty letter of each grade (the boards' ``difficulty`` parameter)."""
_DEFAULT_TRIES = 10000
_REGION_IDS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def generate(family: str, grade: str, *, size: int | None = None, seed: int | None,
             params: Mapping[str, Any] | None = None, tries: int = _DEFAULT_TRIES,
             time_limit: float | None = None) -> Board:
    """A unique Solo puzzle that Tatham's Solo grades exactly ``grade``.

    Args:
        family: One of :data:`SOLO_FAMILIES`.
        grade: ``trivial`` .. ``unreasonable`` (or Solo's letter ``t b i a e u``).
        size: The side, for families whose size is a parameter (a jigsaw).
        seed: Seeds the one random generator: the same arguments give the same puzzle.
        params: Family parameters (``box``, ``regions``, ``symmetry``).
        tries: Attempts (each from a new solution) before giving up.
        time_limit: Seconds after which no new attempt starts (the puzzle then
            depends on the machine's speed as well as the seed).

    Raises:
        UsageError: for another family or an unknown grade.
        GradeNotReached: when no attempt gives the grade.
    """
    level = _level(grade)
    if family not in SOLO_FAMILIES:
        raise UsageError(f"generate_solo makes {', '.join(SOLO_FAMILIES)} puzzles, not {family!r}")
    opts = dict(params or {})
    rng = random.Random(seed)
    own_regions = "jigsaw" in family and "regions" not in opts
    if own_regions:  # a template of the size asked; each attempt draws its own regions
        side = size or 9
        opts["regions"] = [[y] * side for y in range(side)]
        size = None
    template = get_family(family).template(opts, size)
    if own_regions:
        del opts["regions"]
    base = solo_puzzle(template, complete=False)
    n = base.n
    symmetry = str(template.param_map.get("symmetry") or "r2")
    killer = family.startswith("killer")
    last = None
    start = time.perf_counter()
    for _ in range(tries):
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        blocks = tuple(map(tuple, random_regions(n, rng))) if own_regions else base.blocks
        cages = killer_cages(n, rng) if killer else []
        if any(len(cage) > n for cage in cages):  # Solo's ids hold cages of 2 to n cells
            continue
        grid = random_grid(n, [*blocks, *(_diagonals(n) if base.xtype else ()), *cages], rng,
                           places=own_regions)
        if grid is None:
            continue
        if killer:
            puz = SoloPuzzle(n, blocks, base.xtype, _with_sums(cages, grid),
                             (0,) * (n * n), {}, _cell_name(n))
            status, got, kdiff = grade_run(puz, level)
            last = got
            if status != "solved" or got != level or KILLER_GRADES[kdiff] != "advanced":
                continue
        else:
            puz = _strip(SoloPuzzle(n, blocks, base.xtype, (), tuple(grid), {},
                                    _cell_name(n)), level, symmetry, rng)
            status, got, _ = grade_run(puz, level)
            last = got
            if status != "solved" or got != level:
                continue
        board = _board(family, template, opts, puz, own_regions, level)
        if count(board, limit=2).count == 1 and not verify(board, grid):
            return board
    raise GradeNotReached(f"no {family} puzzle graded {GRADES[level]} in {tries} tries "
                          f"(seed {seed}{', time limit' if time_limit is not None else ''}); "
                          "try another seed or more tries", GRADES[level], None,
                          GRADES[last] if last is not None else None)


def _level(grade: str | int) -> int:
    if isinstance(grade, int) and 0 <= grade < len(GRADES):
        return grade
    if grade in GRADES:
        return GRADES.index(str(grade))
    for name, letter in LETTERS.items():
        if grade == letter:
            return GRADES.index(name)
    raise UsageError(f"unknown Solo grade {grade!r} (known: {', '.join(GRADES)}, or the "
                     f"letters {' '.join(LETTERS.values())})")


def _cell_name(n: int) -> Any:
    return lambda c: f"({c // n},{c % n})"


def _diagonals(n: int) -> list[list[int]]:
    return [[i * (n + 1) for i in range(n)], [(i + 1) * (n - 1) for i in range(n)]]


def _with_sums(cages: Sequence[Sequence[int]], grid: Sequence[int]
               ) -> tuple[tuple[tuple[int, ...], int], ...]:
    return tuple(sorted((tuple(sorted(c)), sum(grid[x] for x in c)) for c in cages))


# ----------------------------------------------------------------- regions
def start_regions(n: int) -> list[list[int]]:
    """The boxes of the n x n grid (n a product of two factors of at least 2), else its rows."""
    h = next((f for f in range(int(n ** 0.5), 1, -1) if n % f == 0), 1)
    w = n // h
    owner = [(y // h) * h + x // w if h > 1 else y for y in range(n) for x in range(n)]
    return [[c for c in range(n * n) if owner[c] == r] for r in range(n)]


def random_regions(n: int, rng: random.Random, moves: int | None = None) -> list[list[int]]:
    """n connected regions of n cells each over the n x n grid, at random.

    From :func:`start_regions`, ``moves`` times (default ``2 n**3``): a cell
    next to another region joins it, and a cell of that region next to the
    first one takes its place, when both regions stay connected.
    """
    owner = [0] * (n * n)
    members: list[set[int]] = []
    for r, cells in enumerate(start_regions(n)):
        members.append(set(cells))
        for c in cells:
            owner[c] = r
    near = [list(_adjacent(c, n)) for c in range(n * n)]
    pairs = [(c, d) for c in range(n * n) for d in near[c]]
    for _ in range(2 * n ** 3 if moves is None else moves):
        a, b = pairs[rng.randrange(len(pairs))]
        ra, rb = owner[a], owner[b]
        if ra == rb:
            continue
        back = sorted(c for c in members[rb] if any(owner[d] == ra for d in near[c] if d != a))
        if not back:
            continue
        c = back[rng.randrange(len(back))]
        owner[a], owner[c] = rb, ra
        members[ra].remove(a)
        members[ra].add(c)
        members[rb].remove(c)
        members[rb].add(a)
        if not (_connected(owner, members[ra], near) and _connected(owner, members[rb], near)):
            owner[a], owner[c] = ra, rb
            members[ra].remove(c)
            members[ra].add(a)
            members[rb].remove(a)
            members[rb].add(c)
    return sorted(sorted(m) for m in members)


def _adjacent(c: int, n: int) -> Iterable[int]:
    y, x = divmod(c, n)
    if y:
        yield c - n
    if y < n - 1:
        yield c + n
    if x:
        yield c - 1
    if x < n - 1:
        yield c + 1


def _connected(owner: Sequence[int], cells: set[int], near: Sequence[Sequence[int]]) -> bool:
    start = min(cells)
    r = owner[start]
    seen = {start}
    todo = [start]
    while todo:
        c = todo.pop()
        for d in near[c]:
            if owner[d] == r and d not in seen:
                seen.add(d)
                todo.append(d)
    return len(seen) == len(cells)


def killer_cages(n: int, rng: random.Random) -> list[list[int]]:
    """Killer cages as Tatham's generator draws them: in reading order, a free
    cell starts a cage, which three times in four takes its right neighbour or
    (when that one is taken or at the edge, or by a coin) the cell below; a
    cell left alone then joins the cage of its right or lower neighbour (the
    last cell: its left one)."""
    area = n * n
    owner = [-1] * area
    cages: list[list[int]] = []
    for c in range(area):
        if owner[c] != -1:
            continue
        owner[c] = len(cages)
        cages.append([c])
        if c + 1 < area and rng.randrange(16) >= 4:
            d = c + 1
            if c % n == n - 1 or owner[d] != -1 or (c + n < area and rng.randrange(2) == 0):
                d = c + n
            if d < area:
                owner[d] = owner[c]
                cages[-1].append(d)
    k = 0
    while k < len(cages):
        if len(cages[k]) > 1:
            k += 1
            continue
        c = cages[k][0]
        if c + 1 == area:
            d = c - 1
        elif c % n < n - 1 and (c // n == n - 1 or rng.randrange(2) == 0):
            d = c + 1
        else:
            d = c + n
        other = owner[d]
        cages[other].append(c)
        owner[c] = other
        cages[k] = []
        k += 1
    out = [sorted(cage) for cage in cages if cage]
    return out


# -------------------------------------------------------------- solutions
def random_grid(n: int, groups: Sequence[Sequence[int]], rng: random.Random,
                max_steps: int | None = None, places: bool = False) -> list[int] | None:
    """A random n x n grid of digits 1..n, different in every row, column and
    group (boxes or regions, diagonals, cages), or None after ``max_steps``
    (default n**3) tries of a cell.

    As Tatham's ``gridgen``: a shuffled first row, then always a cell with the
    fewest digits left (ties broken by a random rank), its digits shuffled.
    With ``places``, a digit with fewer places left in a row, column or group
    of n cells than that cell has digits is placed first, in each of its
    places in random order (irregular regions need it: the cells alone
    often run out of steps).
    """
    area = n * n
    units = [list(range(y * n, y * n + n)) for y in range(n)]
    units += [list(range(x, area, n)) for x in range(n)]
    units += [list(g) for g in groups]
    of: list[list[int]] = [[] for _ in range(area)]
    for u, cells in enumerate(units):
        for c in cells:
            of[c].append(u)
    used = [0] * len(units)
    grid = [0] * area
    full = (1 << n) - 1

    def put(c: int, d: int) -> None:
        grid[c] = d + 1
        for u in of[c]:
            used[u] |= 1 << d

    def take(c: int, d: int) -> None:
        grid[c] = 0
        for u in of[c]:
            used[u] &= ~(1 << d)

    first = list(range(n))
    rng.shuffle(first)
    for x, d in enumerate(first):
        if any(used[u] >> d & 1 for u in of[x]):
            return None
        put(x, d)
    rank = {c: rng.getrandbits(31) for c in range(n, area)}
    steps = [n ** 3 if max_steps is None else max_steps]
    whole = [u for u, cells in enumerate(units) if len(cells) == n] if places else []

    def fill(spaces: list[int]) -> bool:
        if not spaces:
            return True
        if steps[0] <= 0:
            return False
        steps[0] -= 1
        best, best_free, best_key = -1, 0, (n + 1, 0)
        free = {}
        for c in spaces:
            m = 0
            for u in of[c]:
                m |= used[u]
            left = full & ~m
            if not left:
                return False  # a cell without digits: this branch fails whichever is tried
            free[c] = left
            key = (left.bit_count(), rank[c])
            if key < best_key:
                best, best_free, best_key = c, left, key
        moves = [(best, d) for d in range(n) if best_free >> d & 1]
        for u in whole if best_key[0] > 1 else ():
            miss = full & ~used[u]
            while miss:
                low = miss & -miss
                miss ^= low
                at = [c for c in units[u] if free.get(c, 0) & low]
                if not at:
                    return False
                if len(at) < len(moves):
                    moves = [(c, low.bit_length() - 1) for c in at]
        rng.shuffle(moves)
        for c, d in moves:
            put(c, d)
            if fill([x for x in spaces if x != c]):
                return True
            take(c, d)
        return False

    return grid if fill(list(range(n, area))) else None


# ------------------------------------------------------------ clue removal
def symmetry_classes(n: int, symmetry: str) -> list[list[int]]:
    """The cells in classes of Solo's symmetry (``a r2 r4 m2 md2 m4 md4 m8``), each
    class listed once, from its first cell in reading order."""
    def images(x: int, y: int) -> list[tuple[int, int]]:
        m = n - 1
        table = {
            "a": [],
            "r2": [(m - x, m - y)],
            "r4": [(m - y, x), (y, m - x), (m - x, m - y)],
            "m2": [(m - x, y)],
            "md2": [(y, x)],
            "m4": [(m - x, y), (x, m - y), (m - x, m - y)],
            "md4": [(y, x), (m - x, m - y), (m - y, m - x)],
            "m8": [(m - x, y), (x, m - y), (m - x, m - y), (y, x), (y, m - x), (m - y, x),
                   (m - y, m - x)],
        }
        if symmetry not in table:
            raise UsageError(f"unknown Solo symmetry {symmetry!r} (known: {' '.join(table)})")
        return [(x, y), *table[symmetry]]

    out = []
    for y in range(n):
        for x in range(n):
            cells = [yy * n + xx for xx, yy in images(x, y)]
            if min(cells) == y * n + x:
                out.append(sorted(set(cells)))
    return out


def _strip(puz: SoloPuzzle, level: int, symmetry: str, rng: random.Random) -> SoloPuzzle:
    """Take out the symmetry classes, in random order, whose removal keeps the
    puzzle solvable with the techniques up to ``level``."""
    classes = symmetry_classes(puz.n, symmetry)
    rng.shuffle(classes)
    givens = list(puz.givens)
    for cells in classes:
        trial = list(givens)
        for c in cells:
            trial[c] = 0
        if grade_run(puz.with_givens(trial), level)[0] == "solved":
            givens = trial
    return puz.with_givens(givens)


# ------------------------------------------------------------------ board
def _board(family: str, template: Board, opts: Mapping[str, Any], puz: SoloPuzzle,
           own_regions: bool, level: int) -> Board:
    n = puz.n
    params = {k: v for k, v in template.param_map.items() if k != "difficulty"}
    params.update({k: v for k, v in opts.items() if k in ("box", "symmetry")})
    if own_regions:
        ids = [""] * (n * n)
        for r, cells in enumerate(puz.blocks):  # named as the solo format names them
            for c in cells:
                ids[c] = _REGION_IDS[r]
        params["regions"] = [[ids[y * n + x] for x in range(n)] for y in range(n)]
    givens = [[puz.givens[y * n + x] for x in range(n)] for y in range(n)]
    relations = [("cage", [divmod(c, n) for c in cells], {"sum": s}) for cells, s in puz.cages]
    return get_family(family).build(givens, (), None, relations, difficulty=LETTERS[GRADES[level]],
                                    **params)
