"""Simon Tatham's *Solo* grades (his Sudoku, every mode), registered as the ``solo`` scale.

Solo (``solo.c`` of his puzzle collection) rates a puzzle with one solver
loop: it tries its modes of reasoning cheapest first, and after every
deduction starts again from the cheapest. The grade ("Difficulty rating") is
the most expensive mode any deduction needed:

========  ================  ==========================================================
level     grade             what the level adds (technique names of this module)
========  ================  ==========================================================
0         ``trivial``       a digit with one place left in a box or jigsaw region
                            (``box-single``); on killer boards every cage deduction
1         ``basic``         one place left in a row, a column or (X mode) a diagonal
                            (``line-single``); one digit left in a cell (``naked-single``)
2         ``intermediate``  a digit of a line confined to one box, or of a box to one
                            line (``intersection``)
3         ``advanced``      k cells of a unit holding only k digits (``subset``)
4         ``extreme``       a digit's k rows holding it only in k columns (``fish``);
                            chains of two-digit cells (``forcing-chain``)
5         ``unreasonable``  guessing (``guess``), with exactly one solution
========  ================  ==========================================================

On killer boards the cage deductions (``killer-single``, ``killer-distinct``,
``killer-region``, ``killer-minmax``, ``killer-sums``: :mod:`futocp.rating.solo_killer`)
run right after the box singles whatever the level, and count for Tatham's
separate killer difficulty (:func:`killer_grade`), not for the main grade.

The loop, the order in which each technique scans the grid, and the levels
follow his ``solver()`` exactly (the code is this project's own): so do the
grades of his generator's puzzles (``docs/rating.md``, section Solo).

Example:
    >>> from futocp.formats import loads
    >>> board = loads("2x3:b1b2_2b6b3_2h2_4b2b1_6b2b", "solo")
    >>> out = GRADES_SCALE.grade(board, 5)
    >>> out.status, GRADES[out.level]
    ('solved', 'basic')
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..board import Board
from ..errors import FutocpError, UsageError
from ..families import get_family
from ..propagate import bits
from .core import Step, forcing_chain
from .games import GameScale, Outcome, register
from .solo_killer import KILLER_GRADES, KillerState, SumQuirk, killer_state

__all__ = ["GRADES", "TECHNIQUES", "GRADES_SCALE", "SoloPuzzle", "covers", "grade",
           "grade_run", "killer_grade", "solo_puzzle"]

GRADES: tuple[str, ...] = ("trivial", "basic", "intermediate", "advanced", "extreme",
                           "unreasonable")
"""Solo's grades, cheapest first (his ``DIFF_BLOCK`` .. ``DIFF_RECURSIVE``)."""
BLOCK, SIMPLE, INTERSECT, SET, EXTREME, RECURSIVE = range(6)

TECHNIQUES: dict[str, int] = {
    "box-single": BLOCK,
    "killer-distinct": BLOCK,
    "killer-single": BLOCK,
    "killer-region": BLOCK,
    "killer-minmax": BLOCK,
    "killer-sums": BLOCK,
    "line-single": SIMPLE,
    "naked-single": SIMPLE,
    "intersection": INTERSECT,
    "subset": SET,
    "fish": EXTREME,
    "forcing-chain": EXTREME,
    "guess": RECURSIVE,
}
"""Every technique, in the order the loop tries them, with its level."""

_KINDS = ("sudoku", "sudoku-x", "jigsaw", "jigsaw-x", "killer-sudoku", "killer-sudoku-x",
          "killer-jigsaw", "killer-jigsaw-x")
_MAX_SIDE = 31       # Solo's limit on the digits of a puzzle
_MAX_KILLER_SIDE = 9  # and of a killer's
_MAX_UNIONS = 1 << 14  # the subset search's bound on the unions of a unit's cells


class _Impossible(Exception):
    """The state has no solution."""


# --------------------------------------------------------------- structure
@dataclass(frozen=True, eq=False)
class SoloPuzzle:
    """A Solo board as Tatham's solver sees it.

    Attributes:
        n: The side (his ``cr``); cells are ``row * n + col``, digits ``1..n``.
        blocks: The boxes or jigsaw regions, numbered by their first cell in
            reading order, each cell list ascending (his block structure).
        xtype: Both diagonals are units too.
        cages: The killer cages (cells ascending, numbered by first cell) with
            their sums; empty for other boards.
        givens: The given digit per cell (0: empty).
        names: Each unit's name for the reasons (rows, columns, blocks, diagonals).
        cell_name: A cell's name, ``(row,col)`` from 0.
    """

    n: int
    blocks: tuple[tuple[int, ...], ...]
    xtype: bool
    cages: tuple[tuple[tuple[int, ...], int], ...]
    givens: tuple[int, ...]
    names: dict[tuple[int, ...], str] = field(repr=False)
    cell_name: Callable[[int], str] = field(repr=False)

    def __post_init__(self) -> None:
        n = self.n
        rows = tuple(tuple(range(y * n, y * n + n)) for y in range(n))
        cols = tuple(tuple(range(x, n * n, n)) for x in range(n))
        diags = (tuple(i * (n + 1) for i in range(n)),
                 tuple((i + 1) * (n - 1) for i in range(n))) if self.xtype else ()
        which = [0] * (n * n)
        for b, cells in enumerate(self.blocks):
            for c in cells:
                which[c] = b
        mask = _mask_of
        peers = []
        for c in range(n * n):
            m = mask(rows[c // n]) | mask(cols[c % n]) | mask(self.blocks[which[c]])
            for d in diags:
                if c in d:
                    m |= mask(d)
            peers.append(m & ~(1 << c))
        neighbours = []
        for c in range(n * n):
            seen: dict[int, None] = {}
            for unit in (cols[c % n], rows[c // n], self.blocks[which[c]],
                         *(d for d in diags if c in d)):
                seen.update(dict.fromkeys(unit))
            seen.pop(c)
            neighbours.append(tuple(seen))
        set_ = object.__setattr__
        set_(self, "rows", rows)
        set_(self, "cols", cols)
        set_(self, "diags", diags)
        set_(self, "which", tuple(which))
        set_(self, "peers", tuple(peers))
        set_(self, "neighbours", tuple(neighbours))
        set_(self, "row_masks", tuple(mask(u) for u in rows))
        set_(self, "col_masks", tuple(mask(u) for u in cols))
        set_(self, "block_masks", tuple(mask(u) for u in self.blocks))
        set_(self, "diag_masks", tuple(mask(u) for u in diags))
        set_(self, "row_blocks", tuple(tuple(b for b, bm in enumerate(self.block_masks)
                                             if bm & mask(r)) for r in rows))
        set_(self, "col_blocks", tuple(tuple(b for b, bm in enumerate(self.block_masks)
                                             if bm & mask(c)) for c in cols))
        set_(self, "col_major", tuple(y * n + x for x in range(n) for y in range(n)))
        block_names = tuple(self.unit_name(u, f"box {b}") for b, u in enumerate(self.blocks))
        line_names = (tuple(f"row {y}" for y in range(n)), tuple(f"column {x}" for x in range(n)),
                      ("diagonal", "anti-diagonal"))
        set_(self, "block_names", block_names)
        set_(self, "line_names", line_names)
        set_(self, "set_units", (*zip(self.blocks, block_names, strict=True),
                                 *zip(rows, line_names[0], strict=True),
                                 *zip(cols, line_names[1], strict=True),
                                 *zip(diags, line_names[2], strict=False)))

    # filled in by __post_init__ (declared for the type checker)
    rows: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    cols: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    diags: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    which: tuple[int, ...] = field(init=False, repr=False)
    peers: tuple[int, ...] = field(init=False, repr=False)
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    row_masks: tuple[int, ...] = field(init=False, repr=False)
    col_masks: tuple[int, ...] = field(init=False, repr=False)
    block_masks: tuple[int, ...] = field(init=False, repr=False)
    diag_masks: tuple[int, ...] = field(init=False, repr=False)
    row_blocks: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    col_blocks: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    col_major: tuple[int, ...] = field(init=False, repr=False)
    block_names: tuple[str, ...] = field(init=False, repr=False)
    line_names: tuple[tuple[str, ...], ...] = field(init=False, repr=False)
    set_units: tuple[tuple[tuple[int, ...], str], ...] = field(init=False, repr=False)

    def unit_name(self, cells: Sequence[int], fallback: str) -> str:
        """The name of a unit (``row 3``, ``box 4``, ``region B``, ``diagonal``)."""
        return self.names.get(tuple(sorted(cells)), fallback)

    def with_givens(self, givens: Sequence[int]) -> SoloPuzzle:
        """The same structure with other givens."""
        other = copy.copy(self)
        object.__setattr__(other, "givens", tuple(givens))
        return other


def _mask_of(cells: Sequence[int]) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


def _why_not(board: Board, complete: bool = True) -> str | None:
    """Why Tatham's Solo cannot hold ``board`` (None: it can); ``complete``: a killer
    board has its cages (not so for a generator's empty template)."""
    if board.kind not in _KINDS or board.shape is None:
        return f"not a Solo board (kind {board.kind!r})"
    n = board.shape[0]
    if board.shape[1] != n or board.labels != tuple(range(1, n + 1)) or not 2 <= n <= _MAX_SIDE:
        return f"Solo boards are n x n with digits 1..n, n from 2 to {_MAX_SIDE}"
    params = board.param_map
    try:
        template = get_family(board.kind).template(params)
    except FutocpError as exc:
        return str(exc)
    if (template.asterisms != board.asterisms or template.shape != board.shape
            or board.inscription):
        return "the board differs from its family's template"
    if "box" in params and min(params["box"]) < 2:
        return "Solo's boxes are at least 2x2"
    cages = board.relations_of("cage")
    if len(cages) != len(board.relations):
        return "Solo boards have killer cages only"
    if board.kind.startswith("killer"):
        if n > _MAX_KILLER_SIDE:
            return f"Solo's killer boards are at most {_MAX_KILLER_SIDE}x{_MAX_KILLER_SIDE}"
        covered = sorted(c for rel in cages for c in rel.cells)
        if covered != list(range(n * n)) and (complete or covered):
            return "the killer cages do not cover the grid once"
        if any(rel.param_map.get("sum", 0) < 1 for rel in cages):
            return "a killer cage without a positive sum"
    elif cages:
        return "cages on a board without the killer mode"
    return None


def covers(board: Board) -> bool:
    """Whether ``board`` is a puzzle of Solo's modes (sudoku with boxes of at
    least 2x2, X, jigsaw, killer, and their combinations, as the families make
    them)."""
    return _why_not(board) is None


def solo_puzzle(board: Board, complete: bool = True) -> SoloPuzzle:
    """The board as Tatham's solver sees it (``complete=False``: a killer board may
    have no cages yet).

    Raises:
        UsageError: when :func:`covers` is false.
    """
    why = _why_not(board, complete)
    if why is not None:
        raise UsageError(f"the solo scale rates Solo's boards only: {why}")
    n = board.grid_shape[0]
    units = [tuple(sorted(a)) for a in board.asterisms]
    lines = {tuple(range(y * n, y * n + n)) for y in range(n)}
    lines |= {tuple(range(x, n * n, n)) for x in range(n)}
    xtype = board.kind.endswith("-x")
    if xtype:
        lines |= {tuple(i * (n + 1) for i in range(n)),
                  tuple(sorted((i + 1) * (n - 1) for i in range(n)))}
    params = board.param_map
    if "regions" in params:
        groups: dict[object, list[int]] = {}
        for r, row in enumerate(params["regions"]):
            for c, rid in enumerate(row):
                groups.setdefault(rid, []).append(r * n + c)
        blocks = sorted(tuple(sorted(g)) for g in groups.values())
    else:
        blocks = sorted(u for u in units if u not in lines)
    cages = sorted((tuple(sorted(rel.cells)), int(rel.param_map["sum"]))
                   for rel in board.relations_of("cage"))
    givens = [0] * (n * n)
    for cell, v in board.clue_map.items():
        givens[cell] = int(v)
    names = dict(zip(units, board.asterism_names, strict=True))
    return SoloPuzzle(n, tuple(blocks), xtype, tuple(cages), tuple(givens), names,
                      board.cell_name)


# ------------------------------------------------------------------ solver
class _Solver:
    """One run of Tatham's solver loop on one grid (no recursion)."""

    def __init__(self, puz: SoloPuzzle, maxdiff: int, record: bool) -> None:
        n = puz.n
        self.puz = puz
        self.n = n
        self.full = (1 << n) - 1
        self.maxdiff = maxdiff
        self.record = record
        self.cand = [self.full] * (n * n)
        allcells = (1 << (n * n)) - 1
        self.pos = [allcells] * n
        self.grid = [0] * (n * n)
        self.row_done = [0] * n
        self.col_done = [0] * n
        self.blk_done = [0] * n
        self.diag_done = [0, 0]
        self.diff = BLOCK
        self.steps: list[Step] = []
        self.killer: KillerState | None = (killer_state(self, puz, _Impossible) if puz.cages
                                           else None)

    # ------------------------------------------------------------ basics
    def place(self, cell: int, d: int) -> None:
        """Put digit ``d`` (from 0) in ``cell`` and take it out of the cell's peers."""
        puz, bit, pos, cand = self.puz, 1 << d, self.pos, self.cand
        old = cand[cell] & ~bit
        keep = ~(1 << cell)
        while old:
            low = old & -old
            old ^= low
            pos[low.bit_length() - 1] &= keep
        cand[cell] = bit
        hit = pos[d] & puz.peers[cell]
        if hit:
            pos[d] &= ~hit
            drop = ~bit
            while hit:
                low = hit & -hit
                hit ^= low
                cand[low.bit_length() - 1] &= drop
        self.grid[cell] = d + 1
        n = self.n
        self.row_done[cell // n] |= bit
        self.col_done[cell % n] |= bit
        self.blk_done[puz.which[cell]] |= bit
        if puz.xtype:
            if cell % (n + 1) == 0:
                self.diag_done[0] |= bit
            if cell % (n - 1) == 0 and 0 < cell < n * n - 1:
                self.diag_done[1] |= bit

    def eliminate(self, cell: int, d: int) -> bool:
        """Rule digit ``d`` (from 0) out of ``cell``; True when it was still possible."""
        if self.cand[cell] >> d & 1:
            self.cand[cell] ^= 1 << d
            self.pos[d] ^= 1 << cell
            return True
        return False

    def note(self, technique: str, place: tuple[tuple[int, int], ...],
             eliminate: tuple[tuple[int, int], ...], why: str,
             premises: tuple[int, ...] = (), size: int = 0) -> None:
        """Record a step (digits from 0 in the arguments, labels in the step)."""
        if self.record:
            self.steps.append(Step(technique, TECHNIQUES[technique],
                                   tuple((c, d + 1) for c, d in place),
                                   tuple((c, d + 1) for c, d in eliminate),
                                   size=size, premises=premises, _why=why))

    def cname(self, cell: int) -> str:
        return self.puz.cell_name(cell)

    # -------------------------------------------------------- the loop
    def place_givens(self, grid: Sequence[int]) -> None:
        """Place the givens, column by column as Tatham does."""
        n = self.n
        for x in range(n):
            for y in range(n):
                v = grid[y * n + x]
                if v:
                    if not self.cand[y * n + x] >> (v - 1) & 1:
                        raise _Impossible
                    self.place(y * n + x, v - 1)

    def run(self) -> None:
        """Deduce until no technique up to ``maxdiff`` makes progress."""
        maxdiff = self.maxdiff
        killer = self.killer
        while True:
            if self._singles(self.puz.blocks, self.puz.block_masks, self.blk_done,
                             "box-single", BLOCK):
                continue
            if killer is not None and killer.deduce():
                continue
            if maxdiff <= BLOCK:
                break
            if self._line_singles() or self._naked_singles():
                continue
            if maxdiff <= SIMPLE:
                break
            if self._intersections():
                continue
            if maxdiff <= INTERSECT:
                break
            if self._unit_subsets():
                continue
            if maxdiff <= SET:
                break
            if self._fish() or self._forcing():
                continue
            break

    def raise_diff(self, level: int) -> bool:
        self.diff = max(self.diff, level)
        return True

    # ------------------------------------------------------ singles
    def _singles(self, units: Sequence[Sequence[int]], masks: Sequence[int],
                 done: Sequence[int], technique: str, level: int,
                 names: Sequence[str] | None = None) -> bool:
        """Positional elimination: a digit with one place left in a unit."""
        pos, full = self.pos, self.full
        for u, um in enumerate(masks):
            todo = full & ~done[u]
            while todo:
                low = todo & -todo
                todo ^= low
                d = low.bit_length() - 1
                p = pos[d] & um
                if p & (p - 1) == 0:
                    if not p:
                        raise _Impossible
                    cell = p.bit_length() - 1
                    self.place(cell, d)
                    unit = units[u]
                    name = (names or self.puz.block_names)[u]
                    self.note(technique, ((cell, d),), (),
                              f"in {name}, {d + 1} fits only at {self.cname(cell)}",
                              tuple(unit))
                    return self.raise_diff(level)
        return False

    def _line_singles(self) -> bool:
        puz = self.puz
        names = puz.line_names
        return (self._singles(puz.rows, puz.row_masks, self.row_done, "line-single", SIMPLE,
                              names[0])
                or self._singles(puz.cols, puz.col_masks, self.col_done, "line-single",
                                 SIMPLE, names[1])
                or (puz.xtype and self._singles(puz.diags, puz.diag_masks, self.diag_done,
                                                "line-single", SIMPLE, names[2])))

    def _naked_singles(self) -> bool:
        """Numeric elimination: a cell with one digit left (column by column)."""
        cand, grid = self.cand, self.grid
        for cell in self.puz.col_major:
            if not grid[cell]:
                m = cand[cell]
                if m & (m - 1) == 0:
                    if not m:
                        raise _Impossible
                    d = m.bit_length() - 1
                    self.place(cell, d)
                    self.note("naked-single", ((cell, d),), (),
                              f"{self.cname(cell)} can hold only {d + 1}", (cell,))
                    return self.raise_diff(SIMPLE)
        return False

    # ------------------------------------------------ intersections
    def _intersections(self) -> bool:
        """A digit of a line confined to one box, or of a box to one line."""
        puz, n = self.puz, self.n
        for y in range(n):
            for b in puz.row_blocks[y]:
                if self._intersect(puz.row_masks[y], self.row_done[y], f"row {y}", b):
                    return True
        for x in range(n):
            for b in puz.col_blocks[x]:
                if self._intersect(puz.col_masks[x], self.col_done[x], f"column {x}", b):
                    return True
        for i in range(len(puz.diags)):
            name = ("diagonal", "anti-diagonal")[i]
            for b in range(n):
                if puz.block_masks[b] & puz.diag_masks[i] and self._intersect(
                        puz.diag_masks[i], self.diag_done[i], name, b):
                    return True
        return False

    def _intersect(self, lm: int, ldone: int, lname: str, b: int) -> bool:
        puz, pos = self.puz, self.pos
        bm = puz.block_masks[b]
        todo = self.full & ~ldone & ~self.blk_done[b]
        while todo:
            low = todo & -todo
            todo ^= low
            d = low.bit_length() - 1
            lp, bp = pos[d] & lm, pos[d] & bm
            for inside, kill, first in ((lp, bp & ~lm, True), (bp, lp & ~bm, False)):
                if inside & ~(bm if first else lm) == 0 and kill:
                    cells = bits(kill)
                    for c in cells:
                        self.eliminate(c, d)
                    bname = puz.unit_name(puz.blocks[b], f"box {b}")
                    a, z = (lname, bname) if first else (bname, lname)
                    self.note("intersection", (), tuple((c, d) for c in cells),
                              f"in {a}, {d + 1} lies only where it "
                              f"meets {z}: not elsewhere in {z}", tuple(bits(inside)))
                    return self.raise_diff(INTERSECT)
        return False

    # ---------------------------------------------------------- subsets
    def _unit_subsets(self) -> bool:
        """Set elimination in each box, row, column and diagonal: k cells with k digits."""
        cand = self.cand
        for unit, name in self.puz.set_units:
            found = _set_search([cand[c] for c in unit], self.n)
            if found is None:
                continue
            rows, digits, kills = found
            elims = tuple((unit[i], d) for i, d in kills)
            for c, d in elims:
                self.eliminate(c, d)
            cells = tuple(unit[i] for i in rows)
            self.note("subset", (), elims,
                      f"in {name}, {', '.join(map(self.cname, cells))} hold only "
                      f"{_digits(digits)}: those digits go nowhere else in it", cells,
                      size=len(cells))
            return self.raise_diff(SET)
        return False

    def _fish(self) -> bool:
        """Positional set elimination on one digit: k rows holding it only in k columns."""
        n, full = self.n, self.full
        for d in range(n):
            pd = self.pos[d]
            found = _set_search([pd >> (y * n) & full for y in range(n)], n)
            if found is None:
                continue
            rows, cols, kills = found
            elims = tuple((y * n + x, d) for y, x in kills)
            for c, e in elims:
                self.eliminate(c, e)
            self.note("fish", (), elims, f"{d + 1} in rows {_nums(rows)} fits only in columns "
                      f"{_nums(cols)}: not elsewhere in those columns",
                      tuple(y * n + x for y in rows for x in bits(cols)), size=len(rows))
            return self.raise_diff(EXTREME)
        return False

    # ---------------------------------------------------- forcing chains
    def _forcing(self) -> bool:
        """A chain of two-digit cells forcing a digit out of a cell that sees both ends."""
        puz, n, cand = self.puz, self.n, self.cand
        which = puz.which
        on0 = set(puz.diags[0]) if puz.xtype else set()
        on1 = set(puz.diags[1]) if puz.xtype else set()
        for start in range(n * n):
            m = cand[start]
            if m.bit_count() != 2:
                continue
            sy, sx, sb = start // n, start % n, which[start]

            def sees(c: int, sy: int = sy, sx: int = sx, sb: int = sb, start: int = start
                     ) -> bool:
                return (c % n == sx or c // n == sy or which[c] == sb
                        or (c in on0 and start in on0) or (c in on1 and start in on1))

            for d in bits(m):
                found = forcing_chain(start, d, cand, puz.neighbours, sees)
                if found is not None:
                    nb, chain, _ = found
                    chain.reverse()
                    self.eliminate(nb, d)
                    self.note("forcing-chain", (), ((nb, d),),
                              f"{d + 1} is at one end of the chain "
                              f"{'-'.join(map(self.cname, chain))} of two-digit "
                              f"cells: not at {self.cname(nb)}, which sees both",
                              tuple(chain), size=len(chain))
                    return self.raise_diff(EXTREME)
        return False


def _set_search(rows: Sequence[int], n: int
                ) -> tuple[tuple[int, ...], int, tuple[tuple[int, int], ...]] | None:
    """Tatham's set elimination on an n x n 0/1 matrix (``rows[i]`` bit j: entry i, j).

    Rows with a single 1 are dropped with their column; then, trying the column
    subsets S in his order (a binary counter over the remaining columns, the
    first one most significant) with 2 <= |S| <= m - 2, the first S whose
    complement T holds |T| whole rows, and lets other rows lose their entries
    in T, gives the eliminations.

    Returns:
        ``(rows inside T, T as a column mask, eliminated (row, column) pairs)``,
        or None when no subset makes progress.

    Raises:
        _Impossible: a row without any 1, or more rows inside some T than |T|.
    """
    kept: list[int] = []
    dead = 0
    for i, r in enumerate(rows):
        k = r.bit_count()
        if k == 0:
            raise _Impossible
        if k == 1:
            dead |= r
        else:
            kept.append(i)
    cols = [j for j in range(n) if not dead >> j & 1]
    m = len(cols)
    if m != len(kept):
        raise _Impossible
    if m < 4:
        return None
    # reduced rows: column cols[k] is bit m-1-k, so that Tatham's S order is T descending
    red = []
    for i in kept:
        r = rows[i]
        red.append(sum(1 << (m - 1 - k) for k, j in enumerate(cols) if r >> j & 1))
    # a set T of k columns holding k rows needs k rows of at most k entries
    sizes = sorted(r.bit_count() for r in red)
    if not any(sizes[k - 1] <= k for k in range(2, m - 1)):
        return None
    unions = {0}
    for r in red:
        if len(unions) > _MAX_UNIONS:  # (large grids only: sound, maybe not his first find)
            break
        unions |= {u | r for u in unions if (u | r).bit_count() <= m - 2}
    for t in sorted(unions, reverse=True):
        size = t.bit_count()
        if size < 2:
            continue
        inside = [k for k, r in enumerate(red) if r & ~t == 0]
        if len(inside) < size:
            continue
        if len(inside) > size:
            raise _Impossible
        kills = tuple((kept[k], cols[m - 1 - b]) for k, r in enumerate(red)
                      if r & ~t for b in bits(r & t))
        if kills:
            tmask = sum(1 << cols[m - 1 - b] for b in bits(t))
            return tuple(kept[k] for k in inside), tmask, kills
    return None


def _digits(mask: int) -> str:
    return "{" + ",".join(str(d + 1) for d in bits(mask)) + "}"


def _nums(items: Sequence[int] | int) -> str:
    seq = bits(items) if isinstance(items, int) else items
    return ",".join(map(str, seq))


# -------------------------------------------------------------- recursion
@dataclass
class _Result:
    diff: int | None          # a grade index, or None
    status: str               # solved / ambiguous / impossible / unfinished
    kdiff: int = 0
    steps: list[Step] = field(default_factory=list)
    grid: list[int] | None = None
    guesses: int = 0
    depth: int = 0


def _solve(puz: SoloPuzzle, grid: Sequence[int], maxdiff: int, record: bool,
           depth: int = 0) -> _Result:
    """Tatham's ``solver()``: the loop, then (at unreasonable) recursion on the
    first cell with the fewest digits left, trying its digits in order.

    A branch stopped by :class:`~futocp.rating.solo_killer.SumQuirk` counts as
    a solution, as in his solver (status ``quirk``: it can make a puzzle
    ambiguous, never its solution)."""
    s = _Solver(puz, maxdiff, record)
    try:
        s.place_givens(grid)
        s.run()
    except _Impossible:
        return _Result(None, "impossible", steps=s.steps)
    except SumQuirk:
        return _Result(None, "quirk", steps=s.steps)
    kdiff = s.killer.kdiff if s.killer is not None else 0
    empty = [c for c in range(puz.n * puz.n) if not s.grid[c]]
    if not empty:
        return _Result(s.diff, "solved", kdiff, s.steps, list(s.grid))
    if maxdiff < RECURSIVE:
        return _Result(None, "unfinished", kdiff, s.steps, list(s.grid))
    best = min(empty, key=lambda c: s.cand[c].bit_count())
    found: _Result | None = None
    steps = list(s.steps)
    guesses = deepest = solutions = 0
    ambiguous = False
    for d in bits(s.cand[best]):
        trial = list(s.grid)
        trial[best] = d + 1
        sub = _solve(puz, trial, maxdiff, record, depth + 1)
        guesses += 1 + sub.guesses
        deepest = max(deepest, 1 + sub.depth)
        if sub.status == "ambiguous":
            ambiguous = True
            break
        if sub.status == "impossible":
            if record:
                steps.append(Step("guess", RECURSIVE, (), ((best, d + 1),), premises=(best,),
                                  sub=tuple(sub.steps),
                                  _why=f"guess {puz.cell_name(best)} = {d + 1}: "
                                  f"a contradiction after {len(sub.steps)} steps"))
            continue
        solutions += 1
        if sub.status == "solved" and found is None:
            found = sub
        if solutions > 1:
            ambiguous = True
            break
    if ambiguous:
        return _Result(None, "ambiguous", kdiff, steps, found.grid if found else None,
                       guesses, deepest)
    if found is None:
        status = "quirk" if solutions else "impossible"
        return _Result(None, status, kdiff, steps, None, guesses, deepest)
    if record:
        cell, v = best, found.grid[best] if found.grid else 0
        steps.append(Step("guess", RECURSIVE, ((cell, v),), (), premises=(cell,),
                          _why=f"guess {puz.cell_name(cell)} = {v}: the only "
                          "digit left that leads to a solution"))
        steps.extend(found.steps)
    return _Result(RECURSIVE, "solved", kdiff, steps, found.grid, guesses, deepest)


# ----------------------------------------------------------------- scale
def _outcome(res: _Result) -> Outcome:
    reason = {"ambiguous": "more than one solution",
              "impossible": "no solution: the deductions reach a contradiction",
              "unfinished": "the techniques up to the level asked do not finish it"
              }.get(res.status)
    if res.status == "quirk":
        res = _Result(None, "impossible", res.kdiff, res.steps)
    return Outcome(res.status, res.diff if res.status == "solved" else None, res.steps,
                   tuple(res.grid) if res.status == "solved" and res.grid else None,
                   reason, res.guesses, res.depth)


def grade(board: Board, max_level: int = RECURSIVE) -> Outcome:
    """Grade a Solo board as Tatham's Solo does, with the levels up to ``max_level``.

    Raises:
        UsageError: for a board Solo cannot hold (:func:`covers`).
    """
    puz = solo_puzzle(board)
    return _outcome(_solve(puz, puz.givens, max(BLOCK, min(max_level, RECURSIVE)), True))


def grade_run(puz: SoloPuzzle, max_level: int = RECURSIVE) -> tuple[str, int | None, int]:
    """``(status, level, killer level)`` of a puzzle structure, without steps (for
    generators; the killer level indexes :data:`~futocp.rating.solo_killer.KILLER_GRADES`)."""
    res = _solve(puz, puz.givens, max_level, False)
    status = "impossible" if res.status == "quirk" else res.status
    return status, res.diff, res.kdiff


def killer_grade(board: Board) -> str | None:
    """Tatham's separate killer difficulty of a killer board ("Killer difficulty":
    ``trivial``, ``simple``, ``intermediate``, ``advanced``), None for other boards."""
    puz = solo_puzzle(board)
    if not puz.cages:
        return None
    return KILLER_GRADES[grade_run(puz)[2]]


GRADES_SCALE = register(GameScale(name="solo", grades=GRADES, covers=covers, grade=grade,
                                  techniques=dict(TECHNIQUES)))
