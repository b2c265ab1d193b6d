"""Simon Tatham's grades for *Keen* (his KenKen): the ``keen`` scale.

The levels are his (``keen.c`` on ``latin.c``), cheapest first:

====  ==============  ==============================================================
0     easy            ``cage-digits``: a digit that appears in no layout of a cage
                      is ruled out of every cell of the cage (only when grading at
                      easy: the higher levels use the next rule instead); singles
1     normal          ``cage-layouts``: each cell of a cage keeps only the digits it
                      takes in some layout
2     hard            ``cage-lines``: a digit that every layout of a cage puts in a
                      row (column) is ruled out of the rest of that row (column);
                      subsets in rows and columns
3     extreme         fish (one digit, rows against columns), forcing chains
4     unreasonable    guessing (the puzzle must have exactly one solution)
====  ==============  ==============================================================

A *layout* of a cage is one digit per cell that meets the clue (sum, product,
difference or quotient), uses the digits each cell still allows, and repeats
no digit within a row or column of the cage. Multiplication-only puzzles
(``m``) need no rule of their own: all their clues are products.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..board import Board, Label
from ..propagate import bits
from .core import Contradiction, Engine, State, Step, Technique
from .games import GameScale, Outcome, register
from .latin import FORCING, SET_DIGITS, SET_ROWS, SIMPLE, LatinGame, grade_latin, shared
from .techniques import elim_text, lazy

__all__ = ["KEEN_SCALE", "KEEN_GRADES", "KEEN_TECHNIQUES", "Cage", "layouts"]

KEEN_GRADES = ("easy", "normal", "hard", "extreme", "unreasonable")
KEEN_TECHNIQUES = {"cage-digits": 0, "hidden-single": 0, "naked-single": 0, "cage-layouts": 1,
                   "cage-lines": 2, "subset": 2, "fish": 3, "forcing-chain": 3, "guess": 4}
"""Every technique of the keen scale -> its level."""

_SIGN = {"+": "+", "*": "×", "-": "−", "/": "÷"}


class Cage:
    """One clue box: its cells (reading order), operation, target, and the lines it meets."""

    __slots__ = ("cells", "op", "target", "rows", "cols", "name")

    def __init__(self, board: Board, cells: Sequence[int], op: str, target: int) -> None:
        self.cells = tuple(sorted(cells))
        self.op = op
        self.target = target
        self.rows = tuple(board.coords(c)[0] for c in self.cells)
        self.cols = tuple(board.coords(c)[1] for c in self.cells)
        shown = ",".join(board.cell_name(c) for c in self.cells)
        self.name = f"cage {target}{_SIGN[op]} at {shown}"


def layouts(cage: Cage, doms: Sequence[int]) -> list[tuple[int, ...]]:
    """Every layout of ``cage`` (value indices, 0 for digit 1) that the domains allow.

    Differences and quotients (two cells) take both orders of each pair;
    sums and products are searched cell by cell, a digit fitting when it leaves
    the rest of the target reachable and repeats no digit of an earlier cell of
    the cage in its row or column.
    """
    n, target = len(cage.cells), cage.target
    if cage.op in "-/":
        out: list[tuple[int, ...]] = []
        a, b = doms
        for i in range(1, 33):
            j = i + target if cage.op == "-" else i * target
            if j > 32 or not (a | b) >> (j - 1):
                break
            if a >> (i - 1) & 1 and b >> (j - 1) & 1:
                out.append((i - 1, j - 1))
            if a >> (j - 1) & 1 and b >> (i - 1) & 1:
                out.append((j - 1, i - 1))
        return out
    add = cage.op == "+"
    rows, cols = cage.rows, cage.cols
    found: list[tuple[int, ...]] = []
    chosen: list[int] = []

    def walk(k: int, left: int) -> None:
        if k == n:
            if left == (0 if add else 1):
                found.append(tuple(chosen))
            return
        for v in bits(doms[k]):
            digit = v + 1
            if add:
                if digit > left:
                    break
            elif left % digit:
                continue
            if any(chosen[i] == v and (rows[i] == rows[k] or cols[i] == cols[k])
                   for i in range(k)):
                continue
            chosen.append(v)
            walk(k + 1, left - digit if add else left // digit)
            chosen.pop()

    walk(0, target)
    return found


class _Keen:
    """The cages of one board and their layouts (cached on the cages' domains)."""

    def __init__(self, board: Board) -> None:
        self.cages = [Cage(board, r.cells, r.param_map["op"], int(r.param_map["target"]))
                      for r in board.relations_of("arith")]
        self.memo: dict[tuple[int, tuple[int, ...]], list[tuple[int, ...]]] = {}
        self.line_cells: dict[tuple[str, int], tuple[int, ...]] = {}
        assert board.shape is not None
        w = board.shape[0]
        for i in range(w):
            self.line_cells["row", i] = tuple(range(i * w, i * w + w))
            self.line_cells["column", i] = tuple(range(i, w * w, w))

    def fits(self, eng: Engine, k: int, ds: tuple[int, ...]) -> list[tuple[int, ...]]:
        key = (k, ds)
        got = self.memo.get(key)
        if got is None:
            got = layouts(self.cages[k], ds)
            if len(self.memo) > 50_000:
                self.memo.clear()
            self.memo[key] = got
        if not got:
            raise Contradiction(f"{self.cages[k].name}: no layout fits")
        return got

    def rule(self, mode: str) -> Technique:
        """The cage rule of one level: ``digits`` (easy), ``layouts`` (normal), ``lines`` (hard)."""
        def rule(eng: Engine, st: State) -> Step | None:
            doms = st.doms
            for k, cage in enumerate(self.cages):
                ds = tuple(doms[c] for c in cage.cells)
                key = ("keen", mode, k)
                if st.seen.get(key) == ds:
                    continue
                step = (self._lines(eng, st, k, ds) if mode == "lines"
                        else self._cells(eng, k, ds, mode == "digits"))
                if step is not None:
                    return step
                st.seen[key] = ds
            return None

        rule.__name__ = f"cage_{mode}"
        return rule

    def _cells(self, eng: Engine, k: int, ds: tuple[int, ...],
               amalgamate: bool = False) -> Step | None:
        fits = self.fits(eng, k, ds)
        keep = [0] * len(ds)
        for lay in fits:
            for i, v in enumerate(lay):
                keep[i] |= 1 << v
        if amalgamate:
            every = 0
            for m in keep:
                every |= m
            keep = [every] * len(ds)
        cage = self.cages[k]
        cut = [(c, d & ~m) for c, d, m in zip(cage.cells, ds, keep, strict=True) if d & ~m]
        if not cut:
            return None
        vals = eng.values
        elims = tuple((c, vals[v]) for c, m in cut for v in bits(m))
        tech, level = ("cage-digits", 0) if amalgamate else ("cage-layouts", 1)
        return Step(tech, level, (), elims, premises=cage.cells,
                    _why=lazy(_cells_text, eng, cage, fits, elims, amalgamate))

    def _lines(self, eng: Engine, st: State, k: int, ds: tuple[int, ...]) -> Step | None:
        fits = self.fits(eng, k, ds)
        cage = self.cages[k]
        lines = [("row", r) for r in sorted(set(cage.rows))] + [
            ("column", c) for c in sorted(set(cage.cols))]
        doms, inside = st.doms, set(cage.cells)
        for line in lines:
            at = [i for i in range(len(cage.cells))
                  if (cage.rows[i] if line[0] == "row" else cage.cols[i]) == line[1]]
            common = -1
            for lay in fits:
                m = 0
                for i in at:
                    m |= 1 << lay[i]
                common &= m
            cut = [(c, doms[c] & common) for c in self.line_cells[line]
                   if c not in inside and doms[c] & common]
            if cut:
                vals = eng.values
                elims = tuple((c, vals[v]) for c, m in cut for v in bits(m))
                return Step("cage-lines", 2, (), elims, premises=cage.cells,
                            _why=lazy(_lines_text, eng, cage, line, common, len(fits), elims))
        return None


def _show_layouts(eng: Engine, fits: Sequence[tuple[int, ...]], limit: int = 6) -> str:
    """``16, 23 or 32`` (digits in cell order), at most ``limit`` of them."""
    shown = ["".join(eng.label(v) for v in lay) for lay in fits[:limit]]
    if len(fits) > limit:
        return ", ".join(shown) + f" (or {len(fits) - limit} more)"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _cells_text(eng: Engine, cage: Cage, fits: Sequence[tuple[int, ...]],
                elims: Sequence[tuple[int, Label]], amalgamate: bool) -> str:
    what = (f"only {_show_layouts(eng, fits)} fit{'s' if len(fits) == 1 else ''} "
            "(digits in cell order)")
    if amalgamate:
        digits = sorted({v for lay in fits for v in lay})
        what += f", so the cage holds only digits {' '.join(eng.label(v) for v in digits)}"
    return f"{cage.name}: {what} → {elim_text(eng, elims)}"


def _lines_text(eng: Engine, cage: Cage, line: tuple[str, int], common: int, n: int,
                elims: Sequence[tuple[int, Label]]) -> str:
    every = "its only layout puts" if n == 1 else f"each of its {n} layouts puts"
    return (f"{cage.name}: {every} {' '.join(eng.label(v) for v in bits(common))} in "
            f"{line[0]} {line[1]} → {elim_text(eng, elims)}")


def _rules(board: Board, lowest_only: bool) -> list[list[Technique]]:
    keen = _Keen(board)
    if lowest_only:
        return [[keen.rule("digits"), *shared(SIMPLE, 0)]]
    return [shared(SIMPLE, 0), [keen.rule("layouts")],
            [keen.rule("lines"), *shared(SET_ROWS, 2)],
            [*shared(SET_DIGITS, 3), *shared(FORCING, 3)]]


KEEN_GAME = LatinGame(KEEN_GRADES, _rules)


def _covers(board: Board) -> bool:
    return board.kind == "keen"


def _grade(board: Board, max_level: int) -> Outcome:
    return grade_latin(KEEN_GAME, board, max_level)


KEEN_SCALE = register(GameScale("keen", KEEN_GRADES, _covers, _grade, dict(KEEN_TECHNIQUES),
                                  dict(zip("enhxu", KEEN_GRADES, strict=True))))
"""The keen scale (registered)."""
