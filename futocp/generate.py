"""Random instances, reproducible from a seed: complete boards, puzzles, QWH.

Every generator takes ``seed`` and draws all its randomness from one
``random.Random(seed)``: the same arguments give the same instance (``seed=None``
draws fresh randomness).

* :func:`random_latin_square` samples a Latin square of order n uniformly at
  random with the Markov chain of Jacobson and Matthews (1996). A Latin square
  is a 0/1 *incidence cube* ``x[r][c][s]`` whose every line (two coordinates
  fixed) sums to 1; the chain also visits *improper* cubes, which hold exactly
  one ``-1``. A move picks a 0-cell ``(r, c, s)`` of a proper cube at random (or
  the ``-1`` cell of an improper one), finds the cells ``(r', c, s)``,
  ``(r, c', s)`` and ``(r, c, s')`` holding 1 on its three lines (one of the two
  at random on each line of an improper cube), adds 1 to ``(r, c, s)``,
  ``(r, c', s')``, ``(r', c, s')``, ``(r', c', s)`` and subtracts 1 from
  ``(r, c', s)``, ``(r', c, s)``, ``(r, c, s')``, ``(r', c', s')``: line sums are
  kept, and the cube is improper again exactly when ``(r', c', s')`` was 0. The
  chain is connected and its stationary distribution is uniform on the proper
  cubes; we start from the cyclic square, make ``steps`` moves (default n³)
  and go on until the cube is proper. The cube is held as three line indexes
  (the symbols of each cell, the columns of each row and symbol, the rows of
  each column and symbol) plus the one ``-1`` cell, so a move costs O(1).
* :func:`random_solution` fills any board: Latin squares by the chain, other
  boards by a randomised complete search (the ``listcolor`` backend with a
  seed, which shuffles its value order and tie-breaks; deterministic for a
  seed). Such boards are random but not uniformly distributed.
* :func:`remove_clues` takes clues away from a solved board: at random down to
  a number of givens, or keeping the solution unique (to a number of givens, or
  until critical, seed 003 Alg. 2 via :func:`futocp.puzzles.minimize`).
* :func:`futoshiki_puzzle` builds seed 000's instances: size N, K inequalities
  on random neighbour pairs, oriented by a hidden random solution, and G givens
  from it; with ``unique=True`` inequalities (preferred) or givens that cut off
  another solution are added until the solution is unique.
* :func:`qwh` punches H holes in a random Latin square (a *quasigroup with
  holes*, always satisfiable): ``pattern="random"`` chooses the holes
  uniformly; ``"balanced"`` gives every row and every column ``H // n`` or
  ``H // n + 1`` holes (the balanced QWH of Kautz, Ruan, Achlioptas, Gomes,
  Selman and Stickel, 2001): the holes are the cells of ``H // n`` symbols of a
  second random Latin square (each symbol's cells are a permutation matrix,
  so each row and column gets one) plus ``H mod n`` random cells of one more
  symbol.
* :func:`relation_puzzle` makes puzzles of the families whose instances list
  relations (the ``lists:`` of their family file): Killer Sudoku (random
  connected cages with distinct labels covering the grid, :func:`random_cages`),
  Kropki and adjacent Futoshiki (the marks a hidden solution puts between
  neighbours, :func:`solution_relations`: all of them under a ``complete``
  rule, else a random share). Marks (where some are left) or givens are added
  until the solution is unique, then givens are removed while it stays unique.
* :func:`generate` dispatches on a family name (what ``futocp generate`` calls).

Example:
    >>> random_latin_square(4, seed=7) == random_latin_square(4, seed=7)
    True
    >>> b = qwh(5, holes=10, pattern="balanced", seed=1)
    >>> len(b.clues), sorted({sum(1 for c in range(5) if 5 * r + c not in b.clue_map)
    ...                        for r in range(5)})
    (15, [2])
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from . import families
from .api import solve
from .backends import REGISTRY
from .board import Board, Label, grid_neighbour_pairs
from .errors import BoardError, UsageError
from .families import grid_lines
from .model import build_model
from .puzzles import clue_is_necessary, counting_backend, keep_cells, minimize, unique_solution
from .relations import Relation, RelationKind, get_kind
from .result import Status

__all__ = [
    "random_latin_square",
    "random_solution",
    "random_board",
    "remove_clues",
    "futoshiki_puzzle",
    "qwh",
    "PATTERNS",
    "listed_kinds",
    "random_cages",
    "solution_relations",
    "relation_puzzle",
    "CAGE_SIZES",
    "CAGE_DRAWS",
    "CHECK_BACKENDS",
    "DOT_SHARE",
    "generate",
]

PATTERNS = ("random", "balanced")
RANDOM_SEARCH_BACKEND = "listcolor"


def _rng(seed: int | None) -> random.Random:
    return random.Random(seed)


# ------------------------------------------------------ Jacobson-Matthews chain
class _Cube:
    """An incidence cube, proper or improper, indexed by its lines."""

    def __init__(self, n: int) -> None:
        self.n = n
        # cyclic square: symbol (r + c) mod n
        self.sym = [[{(r + c) % n} for c in range(n)] for r in range(n)]  # (r, c) -> symbols
        self.col = [[{(s - r) % n} for s in range(n)] for r in range(n)]  # (r, s) -> columns
        self.row = [[{(s - c) % n} for s in range(n)] for c in range(n)]  # (c, s) -> rows
        self.neg: tuple[int, int, int] | None = None

    def add(self, r: int, c: int, s: int) -> None:
        if self.neg == (r, c, s):
            self.neg = None
        else:
            self.sym[r][c].add(s)
            self.col[r][s].add(c)
            self.row[c][s].add(r)

    def sub(self, r: int, c: int, s: int) -> None:
        if s in self.sym[r][c]:
            self.sym[r][c].discard(s)
            self.col[r][s].discard(c)
            self.row[c][s].discard(r)
        else:
            self.neg = (r, c, s)

    def move(self, rng: random.Random) -> None:
        n = self.n
        if self.neg is None:
            r, c = rng.randrange(n), rng.randrange(n)
            (s1,) = self.sym[r][c]
            s = rng.randrange(n - 1)
            s += s >= s1
            (r1,) = self.row[c][s]
            (c1,) = self.col[r][s]
        else:
            r, c, s = self.neg
            r1 = sorted(self.row[c][s])[rng.randrange(2)]
            c1 = sorted(self.col[r][s])[rng.randrange(2)]
            s1 = sorted(self.sym[r][c])[rng.randrange(2)]
        self.add(r, c, s)
        self.add(r, c1, s1)
        self.add(r1, c, s1)
        self.add(r1, c1, s)
        self.sub(r, c1, s)
        self.sub(r1, c, s)
        self.sub(r, c, s1)
        self.sub(r1, c1, s1)

    def square(self) -> list[list[int]]:
        return [[next(iter(cell)) + 1 for cell in row] for row in self.sym]


def random_latin_square(n: int, seed: int | None = None, steps: int | None = None,
                        rng: random.Random | None = None) -> list[list[int]]:
    """A uniformly random Latin square of order ``n`` (labels 1..n), by Jacobson-Matthews.

    Args:
        n: The order.
        seed: Random seed (ignored when ``rng`` is given).
        steps: Moves of the chain before it stops at the next proper square
            (default ``n ** 3``).
        rng: A random generator to draw from (for callers that chain draws).

    Returns:
        The square as a list of rows.

    Example:
        >>> sq = random_latin_square(5, seed=3)
        >>> all(sorted(row) == [1, 2, 3, 4, 5] for row in sq + [list(c) for c in zip(*sq)])
        True
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise BoardError(f"the order of a Latin square must be a positive integer, got {n!r}")
    if steps is not None and steps < 0:
        raise UsageError(f"steps must be at least 0, got {steps}")
    rng = rng or _rng(seed)
    cube = _Cube(n)
    if n > 1:
        for _ in range(n ** 3 if steps is None else steps):
            cube.move(rng)
        while cube.neg is not None:
            cube.move(rng)
    return cube.square()


# ----------------------------------------------------------- complete boards
def _is_plain_square(board: Board) -> bool:
    """An empty n x n board whose asterisms are its rows and columns, labels 1..n."""
    if board.shape is None or board.clues or board.less or board.shape[0] != board.shape[1]:
        return False
    n = board.shape[0]
    return (board.labels == tuple(range(1, n + 1))
            and sorted(board.asterisms) == sorted(grid_lines(n, n)))


def random_solution(board: Board, seed: int | None = None,
                    rng: random.Random | None = None) -> tuple[Label, ...]:
    """A random solution of ``board`` (labels per cell), reproducible from ``seed``.

    Empty Latin squares (and Futoshiki without inequalities) are sampled
    uniformly by :func:`random_latin_square`; any other board by the seeded
    randomised search of the ``listcolor`` backend.

    Raises:
        BoardError: when the board has no solution.
    """
    rng = rng or _rng(seed)
    if _is_plain_square(board):
        return tuple(v for row in random_latin_square(board.grid_shape[0], rng=rng) for v in row)
    result = solve(board, RANDOM_SEARCH_BACKEND, limit=1, seed=rng.getrandbits(31))
    if result.status is not Status.SAT:
        raise BoardError(f"the board has no solution ({result.stats.get('reason', result.status)})")
    return result.solutions[0]


def random_board(board: Board, seed: int | None = None, rng: random.Random | None = None) -> Board:
    """``board`` completed at random: every cell becomes a clue (the inscription is kept)."""
    return board.solved(random_solution(board, seed, rng))


# ----------------------------------------------------------- removing clues
def remove_clues(board: Board, seed: int | None = None, givens: int | None = None,
                 unique: bool = False, critical: bool = False,
                 keep: Iterable[int | Sequence[int]] = (), rng: random.Random | None = None,
                 backend: str | None = None) -> Board:
    """Remove clues from a solved board (or a puzzle), at random.

    Args:
        board: The board; its inscription and the ``keep`` cells are never removed.
        seed: Random seed (ignored when ``rng`` is given).
        givens: Clues to leave. Without ``unique`` they are a random subset.
        unique: Remove only clues whose removal keeps the solution unique
            (``board`` must then be a Latin puzzle); without ``givens``, go on
            until the puzzle is critical.
        critical: Minimise to a critical puzzle (implies ``unique``; not with ``givens``).
        keep: Clue cells to keep (cell numbers or ``(row, col)``).
        rng: A random generator to draw from.
        backend: Complete backend for the uniqueness checks.

    Raises:
        UsageError: for ``critical`` with ``givens``, or a ``givens`` out of range.
        BoardError: when uniqueness cannot be kept down to ``givens`` clues.
    """
    rng = rng or _rng(seed)
    if critical and givens is not None:
        raise UsageError("give either a number of givens or critical, not both")
    fixed = set(board.inscription) | keep_cells(board, keep)
    if givens is not None and not len(fixed) <= givens <= len(board.clues):
        raise UsageError(f"givens must be between {len(fixed)} (inscription and kept clues) "
                         f"and {len(board.clues)} (clues of the board), got {givens}")
    if critical or (unique and givens is None):
        return minimize(board, seed=rng.getrandbits(63), keep=fixed, backend=backend)
    loose = [c for c, _ in board.clues if c not in fixed]
    rng.shuffle(loose)
    target = len(board.clues) if givens is None else givens
    if not unique:
        drop = set(loose[:len(board.clues) - target])
        return board.with_clues([(c, v) for c, v in board.clues if c not in drop])
    solution = unique_solution(board, backend)
    if solution is None:
        raise BoardError("the board is not a Latin puzzle, so no clue can be removed keeping "
                         "its solution unique")
    current = board
    for cell in loose:
        if len(current.clues) <= target:
            break
        if not clue_is_necessary(current, cell, solution, backend):
            current = current.without_clue(cell)
    if len(current.clues) > target:
        raise BoardError(f"could not get down to {target} givens keeping the solution unique: "
                         f"the puzzle became critical with {len(current.clues)}; "
                         "ask for more givens or try another seed")
    return current


# ---------------------------------------------------------------- Futoshiki
def _oriented(pair: tuple[int, int], values: Sequence[Any]) -> tuple[int, int]:
    a, b = pair
    return (a, b) if values[a] < values[b] else (b, a)


def futoshiki_puzzle(n: int, inequalities: int = 0, givens: int = 0, seed: int | None = None,
                     unique: bool = False, critical: bool = False,
                     rng: random.Random | None = None, backend: str | None = None,
                     exact: tuple[bool, bool] = (False, False), attempts: int = 30) -> Board:
    """A random Futoshiki with seed 000's parameters: size, inequalities, givens.

    A hidden solution is drawn by :func:`random_latin_square`; ``inequalities``
    distinct neighbour pairs are drawn at random and oriented by it, and
    ``givens`` random cells show its labels. So the board always has a solution.

    Args:
        n: Size.
        inequalities: Number of inequality signs (at most ``2 n (n - 1)``).
        givens: Number of given cells (at most ``n * n``).
        seed: Random seed (ignored when ``rng`` is given).
        unique: Add signs or givens until the hidden solution is the only one:
            while another solution exists, a free neighbour pair that it orders
            differently gets its sign (chosen at random), or, when there is
            none, a random cell where it differs becomes a given. The counts
            then exceed the requested ones, unless ``exact``.
        critical: Then remove givens (never signs) until the puzzle is critical.
        exact: ``(inequalities, givens)``: with ``unique``, keep exactly that
            many signs (givens): after the growth above, signs and givens are
            removed in a random order while the solution stays unique, until
            the exact counts are reached; a new hidden solution is tried when
            they cannot be, ``attempts`` times at most.
        rng: A random generator to draw from.
        backend: Complete backend for the uniqueness checks.

    Raises:
        BoardError: for counts out of range.

    Example:
        >>> b = futoshiki_puzzle(5, inequalities=6, givens=4, seed=2)
        >>> len(b.less), len(b.clues)
        (6, 4)
    """
    rng = rng or _rng(seed)
    pairs = grid_neighbour_pairs(n, n)
    if not 0 <= inequalities <= len(pairs):
        raise BoardError(f"a {n}x{n} Futoshiki has {len(pairs)} neighbour pairs; "
                         f"cannot place {inequalities} inequalities")
    if not 0 <= givens <= n * n:
        raise BoardError(f"a {n}x{n} Futoshiki has {n * n} cells; cannot give {givens}")
    if unique and any(exact):
        if critical and exact[1]:
            raise UsageError("exact givens and critical do not go together (critical removes "
                             "givens)")
        want = [f"{k} {what}" for k, what, on in ((inequalities, "inequalities", exact[0]),
                                                  (givens, "givens", exact[1])) if on]
        for _ in range(attempts):
            grown = futoshiki_puzzle(n, inequalities, givens, unique=True, rng=rng,
                                     backend=backend)
            stripped = _strip_to(grown, inequalities if exact[0] else None,
                                 givens if exact[1] else None, rng, backend)
            if stripped is not None:
                return minimize(stripped, seed=rng.getrandbits(63), backend=backend) \
                    if critical else stripped
        raise BoardError(f"found no unique {n}x{n} Futoshiki with exactly "
                         f"{' and '.join(want)} in {attempts} tries (too few clues?); raise "
                         "the counts, or leave them out to let the generator add what "
                         "uniqueness needs")
    hidden = [v for row in random_latin_square(n, rng=rng) for v in row]
    chosen = rng.sample(range(len(pairs)), inequalities)
    less = [_oriented(pairs[i], hidden) for i in sorted(chosen)]
    cells = sorted(rng.sample(range(n * n), givens))
    template = families.futoshiki(n)

    def board_of(less_cells: list[tuple[int, int]], given_cells: list[int]) -> Board:
        return replace(template, clues=tuple((c, hidden[c]) for c in given_cells),
                       relations=tuple(Relation("less", pair) for pair in less_cells))

    board = board_of(less, cells)
    if unique or critical:
        used = set(chosen)
        given = set(cells)
        solver = counting_backend(build_model(board), backend).name
        while True:
            result = solve(board, solver, limit=2)
            other = next((s for s in result.solutions if list(s) != hidden), None)
            if other is None:
                break
            cut = [i for i, (a, b) in enumerate(pairs) if i not in used
                   and (hidden[a] < hidden[b]) != (int(other[a]) < int(other[b]))]
            if cut:
                used.add(cut[rng.randrange(len(cut))])
                less = [_oriented(pairs[i], hidden) for i in sorted(used)]
            else:
                differ = [c for c in range(n * n) if c not in given and other[c] != hidden[c]]
                given.add(differ[rng.randrange(len(differ))])
            board = board_of(less, sorted(given))
        if critical:
            board = minimize(board, seed=rng.getrandbits(63), backend=backend)
    return board


def _strip_to(board: Board, inequalities: int | None, givens: int | None, rng: random.Random,
              backend: str | None, keep: Iterable[int] = ()) -> Board | None:
    """Remove signs and givens of a unique Futoshiki at random while it stays unique,
    down to the counts given (None: that count is free; givens on ``keep`` cells
    stay); None when uniqueness forbids reaching them."""
    signs = [r for r in board.relations if r.kind == "less"]
    over = {"sign": 0 if inequalities is None else len(signs) - inequalities,
            "clue": 0 if givens is None else len(board.clues) - givens}
    kept = set(keep)
    items = [("sign", r) for r in signs] + [("clue", c) for c in board.clues if c[0] not in kept]
    rng.shuffle(items)
    for what, item in items:
        if not over[what]:
            continue
        if what == "sign":
            trial = replace(board, relations=tuple(r for r in board.relations if r != item))
        else:
            trial = replace(board, clues=tuple(c for c in board.clues if c != item))
        if unique_solution(trial, backend) is not None:
            board = trial
            over[what] -= 1
    return board if not any(over.values()) else None


# ---------------------------------------------------------------------- QWH
def _balanced_holes(n: int, holes: int, rng: random.Random) -> list[int]:
    pattern = random_latin_square(n, rng=rng)
    per_line, extra = divmod(holes, n)
    symbols = rng.sample(range(1, n + 1), per_line + (1 if extra else 0))
    out = [r * n + c for r in range(n) for c in range(n) if pattern[r][c] in symbols[:per_line]]
    if extra:
        last = symbols[-1]
        rows = rng.sample(range(n), extra)
        out += [r * n + pattern[r].index(last) for r in rows]
    return out


def qwh(n: int, holes: int, pattern: str = "random", seed: int | None = None,
        rng: random.Random | None = None) -> Board:
    """A quasigroup-with-holes instance: a random Latin square with ``holes`` empty cells.

    Args:
        n: Order.
        holes: Number of empty cells (0..n²).
        pattern: ``"random"`` (uniform cells) or ``"balanced"`` (every row and
            column gets ``holes // n`` or ``holes // n + 1``).
        seed: Random seed (ignored when ``rng`` is given).
        rng: A random generator to draw from.

    Returns:
        A ``latin-square`` board; it always has a solution.
    """
    if pattern not in PATTERNS:
        raise UsageError(f"unknown hole pattern {pattern!r}; choose one of {', '.join(PATTERNS)}")
    if not isinstance(holes, int) or not 0 <= holes <= n * n:
        raise BoardError(f"a Latin square of order {n} has {n * n} cells; cannot punch {holes} holes")
    rng = rng or _rng(seed)
    square = random_latin_square(n, rng=rng)
    if pattern == "random":
        empty = set(rng.sample(range(n * n), holes))
    else:
        empty = set(_balanced_holes(n, holes, rng))
    givens = [[0 if r * n + c in empty else square[r][c] for c in range(n)] for r in range(n)]
    return families.latin_square(n, givens)


# ------------------------------------------------------- relation families
CAGE_SIZES: tuple[int, ...] = (2, 2, 2, 3, 3, 3, 3, 4, 4, 5)
"""Cage sizes a new cage aims at, drawn uniformly from this tuple (so 2 to 5
cells, 3 most often; a cage that cannot grow stays smaller, see :func:`random_cages`)."""

CHECK_BACKENDS: tuple[str, ...] = ("sat", "cpsat")
"""The backends :func:`relation_puzzle` checks uniqueness with when none is named,
the first available that holds the board (on cage-only 9x9 Killer boards, the
generator's first question, sat found a second solution 2.8x faster than cpsat
at the median and had the shortest tail; ``benchmarks/relations.py --sets
second``, docs/performance.md, "Relations"); else
:func:`futocp.puzzles.counting_backend`."""

CAGE_DRAWS = 10
"""Cage draws :func:`relation_puzzle` tries on one hidden solution for cages that
alone make the solution unique (a Killer without givens, as most are; about one
random 9x9 draw in ten is), before it adds givens to the last one."""

DOT_SHARE = 0.5
"""The share of its hidden solution's marks a board without a ``complete`` rule
(a Kropki with ``complete=false``) starts with; uniqueness may add more."""


def listed_kinds(board: Board) -> tuple[str, ...]:
    """The relation kinds the family of ``board`` lists in its instances
    (``lists:`` of its ``models/*.yaml``, e.g. ``cage`` for Killer Sudoku,
    ``consecutive`` and ``ratio`` for Kropki), or ``()``."""
    try:
        spec = families.get_family(board.kind).spec
    except UsageError:
        return ()
    return tuple(families.kind_of_key(key) or key for key in spec.get("lists") or ())


def _grid_neighbours(board: Board) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {c: [] for c in range(board.n_cells)}
    for a, b in families.neighbour_pairs(board):
        out[a].append(b)
        out[b].append(a)
    return out


def random_cages(board: Board, solution: Sequence[Any], seed: int | None = None,
                 sizes: Sequence[int] = CAGE_SIZES, rng: random.Random | None = None
                 ) -> list[Relation]:
    """Killer cages that cover a grid board, each summing its labels in ``solution``.

    Cells are visited in a random order; a cell not yet caged starts a cage
    that aims at a size drawn from ``sizes`` and grows by random orthogonal
    neighbours that are not caged yet and whose labels are not in the cage
    (the labels of a cage differ). It draws no cage of one cell (a given in
    disguise, though boards accept them): such a cell then joins a random neighbouring cage that is below ``max(sizes)`` cells
    and lacks its label; else it takes a neighbour from a cage of three cells
    or more (which stays connected); else it joins any neighbouring cage that
    lacks its label (the only way a cage exceeds ``max(sizes)``, rare); when
    none of these is possible the cages are drawn again. So every cage is
    orthogonally connected, has two cells or more and holds distinct labels.

    Args:
        board: A grid board (the cages' cells are its cell numbers).
        solution: An integer label per cell (the hidden solution).
        seed: Random seed (ignored when ``rng`` is given).
        sizes: The target sizes, drawn uniformly.
        rng: A random generator to draw from.

    Returns:
        ``cage`` relations with their ``sum``, one per cage.

    Example:
        >>> b = families.killer_sudoku("2x2")
        >>> sol = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
        >>> cages = random_cages(b, sol, seed=1)
        >>> sorted(c for r in cages for c in r.cells) == list(range(16))
        True
        >>> all(r.holds([sol[c] for c in r.cells]) for r in cages)
        True
    """
    if board.shape is None:
        raise BoardError("cages are drawn on grid boards")
    if not sizes or min(sizes) < 1:
        raise UsageError(f"cage sizes must be positive, got {tuple(sizes)}")
    rng = rng or _rng(seed)
    if board.n_cells < 2:
        raise BoardError("the cages drawn have two cells or more: this board has one")
    near = _grid_neighbours(board)
    for _ in range(100):
        cages = _draw_cages(board.n_cells, solution, sizes, near, rng)
        if all(len(cage) > 1 for cage in cages):
            return [Relation("cage", tuple(sorted(cage)),
                             (("sum", sum(solution[c] for c in cage)),)) for cage in cages]
    raise BoardError("found no cages of two cells or more with distinct labels for this "
                     "solution in 100 draws")


def _draw_cages(n_cells: int, solution: Sequence[Any], sizes: Sequence[int],
                near: Mapping[int, list[int]], rng: random.Random) -> list[list[int]]:
    """One draw of :func:`random_cages` (it may leave a cage of one cell)."""
    owner: dict[int, int] = {}
    cages: list[list[int]] = []
    order = list(range(n_cells))
    rng.shuffle(order)
    for start in order:
        if start in owner:
            continue
        target = sizes[rng.randrange(len(sizes))]
        cage, labels = [start], {solution[start]}
        owner[start] = len(cages)
        while len(cage) < target:
            grow = sorted({d for c in cage for d in near[c]
                           if d not in owner and solution[d] not in labels})
            if not grow:
                break
            cell = grow[rng.randrange(len(grow))]
            cage.append(cell)
            labels.add(solution[cell])
            owner[cell] = owner[start]
        cages.append(cage)
    largest = max(sizes)
    for i, cage in enumerate(cages):
        if len(cage) == 1:
            _rehome(cage[0], i, cages, owner, near, solution, largest, rng)
    return [cage for cage in cages if cage]


def _rehome(cell: int, alone: int, cages: list[list[int]], owner: dict[int, int],
            near: Mapping[int, list[int]], solution: Sequence[Any], largest: int,
            rng: random.Random) -> None:
    """Give the one cell of cage ``alone`` a cage of two cells or more (none of one is drawn):
    join a neighbouring cage below ``largest`` cells that lacks its label; else take a
    neighbour (of another label) from a cage of three cells or more that stays
    connected without it; else join any neighbouring cage that lacks its label."""
    label = solution[cell]

    def lacks(k: int) -> bool:
        return all(solution[x] != label for x in cages[k])

    def joins(k: int) -> None:
        cages[k].append(cell)
        owner[cell] = k
        cages[alone] = []

    hosts = sorted({owner[d] for d in near[cell] if len(cages[owner[d]]) < largest
                    and lacks(owner[d])})
    if hosts:
        joins(hosts[rng.randrange(len(hosts))])
        return
    donors = [d for d in near[cell] if solution[d] != label and len(cages[owner[d]]) >= 3
              and _linked([x for x in cages[owner[d]] if x != d], near)]
    if donors:
        d = donors[rng.randrange(len(donors))]
        cages[owner[d]].remove(d)
        cages[alone].append(d)
        owner[d] = alone
        return
    hosts = sorted({owner[d] for d in near[cell] if lacks(owner[d])})
    if hosts:
        joins(hosts[rng.randrange(len(hosts))])


def _linked(cells: Sequence[int], near: Mapping[int, list[int]]) -> bool:
    """Are ``cells`` orthogonally connected?"""
    todo, seen, inside = [cells[0]], {cells[0]}, set(cells)
    while todo:
        for d in near[todo.pop()]:
            if d in inside and d not in seen:
                seen.add(d)
                todo.append(d)
    return seen == inside


def solution_relations(board: Board, solution: Sequence[Any], kinds: Sequence[str]
                       ) -> list[Relation]:
    """Every neighbour pair of a grid board marked by the binary ``kinds`` that hold on it.

    A pair on which several kinds hold gets the one that allows the fewest
    label pairs of the board (the most telling mark), ties going to the kind
    named last: so Kropki's 1-2 pair, both consecutive and one twice the
    other, gets a black dot (``ratio``). Non-symmetric kinds (``less``) are
    oriented by the solution.

    Example:
        >>> b = families.kropki(3)
        >>> [str(r) for r in solution_relations(b, [1, 2, 3, 2, 3, 1, 3, 1, 2],
        ...                                     ["consecutive", "ratio"])][:3]
        ['ratio(0, 1)', 'ratio(0, 3)', 'consecutive(1, 2)']
    """
    specs = [get_kind(k) for k in kinds]
    if any(not spec.binary for spec in specs):
        raise UsageError("marks between neighbours are binary relation kinds")
    values = [int(v) for v in board.values]

    def allowed(spec: RelationKind) -> int:
        return sum(1 for x in values for y in values if x != y and spec.holds((x, y), {}))

    ranked = sorted(enumerate(specs), key=lambda item: (allowed(item[1]), -item[0]))
    out = []
    for a, b in families.neighbour_pairs(board):
        for _, spec in ranked:
            if spec.holds((solution[a], solution[b]), {}):
                out.append(Relation(spec.name, (a, b)))
                break
            if not spec.symmetric and spec.holds((solution[b], solution[a]), {}):
                out.append(Relation(spec.name, (b, a)))
                break
    return out


def _relation_board(fam: families.Family, template: Board, rels: list[Relation],
                    hidden: Sequence[Label], cells: Iterable[int]) -> Board:
    """A board of ``fam`` with ``rels`` and the hidden labels of ``cells`` as givens."""
    built = fam.build(None, (), None, rels, **dict(template.params))
    clues = dict(built.clues)
    clues.update((c, hidden[c]) for c in cells)
    return built.with_clues(clues)


def _second(board: Board, hidden: Sequence[Label], backend: str) -> tuple[Label, ...] | None:
    """A solution of ``board`` other than ``hidden``, or None (``hidden`` solves it)."""
    result = solve(board, backend, limit=2)
    return next((tuple(s) for s in result.solutions if tuple(s) != tuple(hidden)), None)


def _check_backend(board: Board, backend: str | None) -> str:
    """``backend``, or the first of :data:`CHECK_BACKENDS` that can check ``board``."""
    if backend is not None:
        return counting_backend(build_model(board), backend).name
    model = build_model(board)
    for name in CHECK_BACKENDS:
        cls = REGISTRY.get(name)
        if cls is not None and cls.available() is True and model.features <= cls.supported():
            return name
    return counting_backend(model).name


def relation_puzzle(family: str, *, size: int | None = None,
                    params: Mapping[str, Any] | None = None, seed: int | None = None,
                    givens: int | None = None, unique: bool = False, critical: bool = False,
                    keep: Iterable[int | Sequence[int]] = (), rng: random.Random | None = None,
                    backend: str | None = None, attempts: int = 30) -> Board:
    """A puzzle of a family whose instances list relations: Killer, Kropki, adjacent Futoshiki.

    A hidden solution is drawn by :func:`random_solution`; the relations the
    family lists (:func:`listed_kinds`) come from it: cages by
    :func:`random_cages` (up to :data:`CAGE_DRAWS` draws, the first whose
    cages alone make the solution unique), marks between neighbours by
    :func:`solution_relations` -- all of them when the family's ``complete``
    rule applies (adjacent Futoshiki, ``kropki`` with ``complete=true``: the
    rule then derives the unmarked pairs' relations), else a random
    :data:`DOT_SHARE` of them. So the board always has a solution.

    Without ``givens`` the puzzle is made unique and critical: while another
    solution exists, a mark not yet placed that the other solution breaks is
    added (chosen at random), or, when there is none, a random cell where the
    other solution differs becomes a given (a Killer whose cages alone have
    one solution has no givens); then givens are removed in a random order
    while the solution stays unique (:func:`futocp.puzzles.minimize`;
    relations are never removed). ``unique`` and ``critical`` say nothing more.

    With ``givens`` the puzzle has exactly that many: random cells of the
    hidden solution (not necessarily unique); with ``unique`` the puzzle grows
    unique as above and then loses random givens while it stays unique (or
    gains random ones) down (up) to the count, with a new hidden solution when
    it cannot, ``attempts`` times at most.

    Args:
        family: A family that lists relations (``killer-sudoku``, ``kropki``,
            ``kropki-sudoku``, ``futoshiki-adjacent``, or one of your own).
        size: Board size, as :func:`futocp.families.family` takes it.
        params: Family parameters (``box``, ``complete``...).
        seed: Random seed (ignored when ``rng`` is given).
        givens: The exact number of givens (see above).
        unique: With ``givens``: the puzzle must be unique.
        critical: Not with ``givens`` (the default puzzle is critical).
        keep: Cells that are givens in any case (cell numbers or ``(row, col)``).
        rng: A random generator to draw from.
        backend: Complete backend for the uniqueness checks (default: the first of
            :data:`CHECK_BACKENDS` that fits).
        attempts: Hidden solutions to try for ``givens`` with ``unique``.

    Raises:
        UsageError: for a family that lists no relations, or ``critical`` with ``givens``.
        BoardError: for counts out of range, or when no unique puzzle with
            ``givens`` givens came out.

    Example:
        >>> b = relation_puzzle("killer-sudoku", params={"box": "2x2"}, seed=3)
        >>> from futocp.puzzles import count
        >>> count(b, limit=2).count, b == relation_puzzle("killer-sudoku", params={"box": "2x2"},
        ...                                               seed=3)
        (1, True)
    """
    rng = rng or _rng(seed)
    fam = families.get_family(family)
    template = fam.template(dict(params or {}), size)
    kinds = listed_kinds(template)
    if not kinds:
        raise UsageError(f"the {fam.name} family lists no relations in its instances")
    if any(not get_kind(k).binary and k != "cage" for k in kinds):
        raise UsageError(f"no generator for the n-ary relations of {fam.name}")
    if critical and givens is not None:
        raise UsageError("give either a number of givens or critical, not both")
    fixed = keep_cells(template, keep) - set(template.inscription)
    least = len(template.clues) + len(fixed)
    if givens is not None and not least <= givens <= template.n_cells:
        raise BoardError(f"a {fam.name} board of these parameters takes {least} "
                         f"(inscription and kept cells) to {template.n_cells} givens, "
                         f"got {givens}")
    complete = fam.completes(template.params)
    checked = givens is None or unique
    solver: str | None = None
    for _ in range(attempts if givens is not None and unique else 1):
        hidden = random_solution(template, rng=rng)

        def board_of(rels: list[Relation], cells: Iterable[int]) -> Board:
            return _relation_board(fam, template, rels, hidden, cells)  # noqa: B023

        marks = solution_relations(template, hidden, [k for k in kinds if get_kind(k).binary])
        pool: list[Relation] = []
        if not complete:
            rng.shuffle(marks)
            cut = round(DOT_SHARE * len(marks))
            marks, pool = marks[:cut], marks[cut:]
        placed = list(marks)
        if "cage" in kinds:
            for _ in range(CAGE_DRAWS if checked else 1):
                placed = random_cages(template, hidden, rng=rng) + marks
                if not checked:
                    break
                board = board_of(placed, fixed)
                solver = solver or _check_backend(board, backend)
                if _second(board, hidden, solver) is None:
                    break
        cells = set(fixed)
        if not checked:
            free = [c for c in range(template.n_cells)
                    if c not in template.clue_map and c not in cells]
            cells |= set(rng.sample(free, (givens or 0) - least))
            return board_of(placed, cells)
        board = board_of(placed, cells)
        solver = solver or _check_backend(board, backend)
        while (other := _second(board, hidden, solver)) is not None:
            cut_by = [r for r in pool if not r.holds([other[c] for c in r.cells])]
            if cut_by:
                rel = cut_by[rng.randrange(len(cut_by))]
                pool.remove(rel)
                placed.append(rel)
            else:
                differ = [c for c in range(template.n_cells)
                          if c not in cells and other[c] != hidden[c]]
                cells.add(differ[rng.randrange(len(differ))])
            board = board_of(placed, cells)
        if givens is None:
            return minimize(board, seed=rng.getrandbits(63), keep=fixed, backend=solver)
        if len(board.clues) <= givens:
            free = [c for c in range(template.n_cells) if c not in board.clue_map]
            extra = rng.sample(free, givens - len(board.clues))
            return board.with_clues([*board.clues, *((c, hidden[c]) for c in extra)])
        stripped = _strip_to(board, None, givens, rng, solver,
                             keep=fixed | set(template.inscription))
        if stripped is not None:
            return stripped
    raise BoardError(f"found no unique {fam.name} puzzle with exactly {givens} givens in "
                     f"{attempts} tries (too few?); raise the count, or leave it out to let "
                     "the generator add what uniqueness needs")


# ----------------------------------------------------------------- dispatch
def _template(family: str, size: int | None, params: Mapping[str, Any]) -> Board:
    """The empty board of a family (its ``complete`` rule not applied:
    :meth:`futocp.families.Family.template`)."""
    return families.get_family(family).template(params, size)


def generate(family: str, *, seed: int | None = None, size: int | None = None,
             params: Mapping[str, Any] | None = None, givens: int | None = None,
             inequalities: int | None = None, unique: bool = False, critical: bool = False,
             holes: int | None = None, pattern: str = "random",
             keep: Iterable[int | Sequence[int]] = (), backend: str | None = None) -> Board:
    """A random instance of a family (what ``futocp generate`` calls).

    The family is any of :func:`futocp.families.list_families` (``size`` and
    ``params`` as :func:`futocp.families.family` takes them);

    * ``holes``: a QWH instance (``latin-square`` only), see :func:`qwh`;
    * ``futoshiki``: :func:`futoshiki_puzzle` with ``inequalities`` (default 0)
      and ``givens`` (default 0);
    * a family whose instances list relations (``killer-sudoku``, ``kropki``,
      ``kropki-sudoku``, ``futoshiki-adjacent``): :func:`relation_puzzle`, by
      default a unique, critical puzzle;
    * otherwise a random complete board of the family, then
      :func:`remove_clues` with ``givens`` / ``unique`` / ``critical`` (with
      none of them the complete board itself).

    Raises:
        UsageError: for options that do not go together or an unknown family.
    """
    rng = _rng(seed)
    template = _template(family, size, dict(params or {}))
    if holes is not None:
        if template.kind != "latin-square":
            raise UsageError("holes make QWH instances: use them with the latin-square family")
        if givens is not None or inequalities is not None or unique or critical:
            raise UsageError("holes go alone: not with givens, inequalities, unique or critical")
        return qwh(template.grid_shape[0], holes, pattern, rng=rng)
    if template.kind == "futoshiki":
        return futoshiki_puzzle(template.grid_shape[0], inequalities or 0, givens or 0, rng=rng,
                                unique=unique, critical=critical, backend=backend,
                                exact=(inequalities is not None, givens is not None))
    if inequalities is not None:
        raise UsageError("inequalities are placed on futoshiki boards only")
    if listed_kinds(template):
        return relation_puzzle(template.kind, params=dict(template.params), givens=givens,
                               unique=unique, critical=critical, keep=keep, rng=rng,
                               backend=backend)
    full = random_board(template, rng=rng)
    if givens is None and not unique and not critical:
        return full
    return remove_clues(full, givens=givens, unique=unique, critical=critical, keep=keep,
                        rng=rng, backend=backend)
