"""Simon Tatham's grades for *Towers* (his Skyscrapers): the ``towers`` scale.

The levels are his (``towers.c`` on ``latin.c``), cheapest first:

====  ==============  ==============================================================
0     easy            ``towers-facing`` (once, at the start: two facing clues that
                      add up to w+1 place the tallest tower), ``towers-bounds``
                      (a clue whose visible towers are all placed but one needs a
                      tall tower next to it; and the k-th tallest tower that can
                      still count cannot stand in the first clue-k cells); singles
1     hard            ``towers-layouts``: each cell of a clued line keeps only the
                      heights it has in some arrangement of the line that shows the
                      clue's count; subsets in rows and columns
2     extreme         fish (one height, rows against columns), forcing chains
3     unreasonable    guessing (the puzzle must have exactly one solution)
====  ==============  ==============================================================

The clue rules read a line from its clue inwards; "placed" means a tower
entered in the grid (a cell with one height left is entered by a single).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..board import Board, Label
from ..propagate import bits
from .core import Contradiction, Engine, State, Step, Technique
from .games import GameScale, Outcome, register
from .latin import FORCING, SET_DIGITS, SET_ROWS, SIMPLE, LatinGame, grade_latin, shared
from .techniques import elim_text, lazy

__all__ = ["TOWERS_SCALE", "TOWERS_GRADES", "TOWERS_TECHNIQUES", "line_support"]

TOWERS_GRADES = ("easy", "hard", "extreme", "unreasonable")
TOWERS_TECHNIQUES = {"towers-facing": 0, "towers-bounds": 0, "hidden-single": 0,
                     "naked-single": 0, "towers-layouts": 1, "subset": 1, "fish": 2,
                     "forcing-chain": 2, "guess": 3}
"""Every technique of the towers scale -> its level."""


def line_support(doms: Sequence[int], count: int) -> list[int]:
    """Per cell of a line (from its clue inwards), the heights (value indices) it
    takes in some arrangement of different heights, within the domains, that
    shows exactly ``count`` towers from the clue.

    A search over the heights used so far (which fix the tallest so far) and the
    towers seen so far, each state visited once.
    """
    w = len(doms)
    support = [0] * w
    memo: dict[tuple[int, int], bool] = {}

    def feasible(mask: int, seen: int) -> bool:
        key = (mask, seen)
        got = memo.get(key)
        if got is not None:
            return got
        i = mask.bit_count()
        if i == w:
            memo[key] = ok = seen == count
            return ok
        best = mask.bit_length() - 1
        ok = False
        for v in bits(doms[i] & ~mask):
            now = seen + (v > best)
            if now > count:
                continue
            nmask = mask | (1 << v)
            higher = (((1 << w) - 1) >> (max(v, best) + 1)) & ~(nmask >> (max(v, best) + 1))
            if now + higher.bit_count() < count:
                continue
            if feasible(nmask, now):
                support[i] |= 1 << v
                ok = True
        memo[key] = ok
        return ok

    feasible(0, 0)
    return support


class _Clue:
    __slots__ = ("cells", "count", "name")

    def __init__(self, board: Board, cells: Sequence[int], count: int) -> None:
        self.cells = tuple(cells)
        self.count = count
        r0, c0 = board.coords(cells[0])
        r1, c1 = board.coords(cells[1])
        if c0 == c1:
            side = "above" if r1 > r0 else "below"
            where = f"{side} column {c0}"
        else:
            side = "left of" if c1 > c0 else "right of"
            where = f"{side} row {r0}"
        self.name = f"clue {count} {where}"


class _Towers:
    def __init__(self, board: Board) -> None:
        self.clues = [_Clue(board, r.cells, int(r.param_map["count"]))
                      for r in board.relations_of("visible")]
        assert board.shape is not None
        self.w = board.shape[0]
        # facing pairs, in Tatham's order: columns (top, bottom) then rows (left, right)
        by_line = {(c.cells[0], c.cells[-1]): c for c in self.clues}
        self.facing = [(a, by_line[a.cells[-1], a.cells[0]]) for a in self.clues
                       if (a.cells[-1], a.cells[0]) in by_line
                       and a.cells[0] < a.cells[-1] and a.count + by_line[
                           a.cells[-1], a.cells[0]].count == self.w + 1]
        self.memo: dict[tuple[int, tuple[int, ...]], list[int]] = {}

    # ------------------------------------------------------------ easy rules
    def facing_rule(self, eng: Engine, st: State) -> Step | None:
        """Once per solve: a pair of facing clues adding up to w+1."""
        if st.seen.get(("towers", "facing")):
            return None
        st.seen["towers", "facing"] = True
        top = self.w - 1
        place = []
        for a, b in self.facing:
            cell = a.cells[a.count - 1]
            if not st.doms[cell] >> top & 1:
                raise Contradiction(f"{a.name} and {b.name} need {self.w} at "
                                    f"{eng.cell_name(cell)}")
            if st.placed[cell] < 0:
                place.append((cell, eng.values[top], a.name, b.name))
        if not place:
            return None
        return Step("towers-facing", 0, tuple((c, v) for c, v, _, _ in place), (),
                    premises=tuple(c for c, *_ in place),
                    _why=lazy(_facing_text, eng, place, self.w))

    def bounds_rule(self, eng: Engine, st: State) -> Step | None:
        """Tatham's easy clue deductions, clue by clue."""
        w = self.w
        doms, placed = st.doms, st.placed
        for k, clue in enumerate(self.clues):
            key = ("towers", "bounds", k)
            sig = tuple(doms[c] << 1 | (placed[c] >= 0) for c in clue.cells)
            if st.seen.get(key) == sig:
                continue
            pos = [w] * w  # value index -> position in the line (w: not placed)
            for i, c in enumerate(clue.cells):
                if placed[c] >= 0:
                    pos[placed[c]] = i
            step = self._nearly_filled(eng, st, clue, pos) or self._lower(eng, st, clue, pos)
            if step is not None:
                return step
            st.seen[key] = sig
        return None

    def _nearly_filled(self, eng: Engine, st: State, clue: _Clue, pos: list[int]
                       ) -> Step | None:
        w = self.w
        seen, furthest = 0, w
        for v in range(w - 1, -1, -1):
            if pos[v] == w:
                break
            if pos[v] < furthest:
                furthest = pos[v]
                seen += 1
        if clue.count != seen + 1 or furthest <= 1:
            return None
        first = clue.cells[0]
        gone = 0
        left = furthest - 1
        for v in range(w):
            if left <= 0:
                break
            if pos[v] < w and pos[v] >= furthest:
                continue
            left -= 1
            gone |= st.doms[first] & (1 << v)
        if not gone:
            return None
        elims = tuple((first, eng.values[v]) for v in bits(gone))
        return Step("towers-bounds", 0, (), elims, premises=clue.cells,
                    _why=lazy(_nearly_text, eng, clue, seen, elims))

    def _lower(self, eng: Engine, st: State, clue: _Clue, pos: list[int]) -> Step | None:
        w = self.w
        doms = st.doms
        cut: dict[int, int] = {}
        limits: list[tuple[int, int]] = []
        counted = 0
        for v in range(w - 1, -1, -1):
            # a placed height behind a taller placed one does not count (Tatham
            # looks at the heights two or more above it)
            if pos[v] < w and any(pos[m] < pos[v] for m in range(v + 2, w)):
                continue
            far = clue.count - counted - 1
            hit = False
            for j in range(far):
                c = clue.cells[j]
                if doms[c] >> v & 1:
                    cut[c] = cut.get(c, 0) | (1 << v)
                    hit = True
            if hit:
                limits.append((v, far))
            counted += 1
        if not cut:
            return None
        vals = eng.values
        elims = tuple((c, vals[v]) for c, m in cut.items() for v in bits(m))
        return Step("towers-bounds", 0, (), elims, premises=clue.cells,
                    _why=lazy(_lower_text, eng, clue, limits, elims))

    # ------------------------------------------------------------- hard rule
    def layouts_rule(self, eng: Engine, st: State) -> Step | None:
        """Every arrangement of a clued line: each cell keeps the heights it takes."""
        doms = st.doms
        for k, clue in enumerate(self.clues):
            key = ("towers", "layouts", k)
            ds = tuple(doms[c] for c in clue.cells)
            if st.seen.get(key) == ds:
                continue
            mk = (k, ds)
            keep = self.memo.get(mk)
            if keep is None:
                keep = line_support(ds, clue.count)
                if len(self.memo) > 50_000:
                    self.memo.clear()
                self.memo[mk] = keep
            if not any(keep):
                raise Contradiction(f"{clue.name}: no arrangement of the line fits")
            for c, d, m in zip(clue.cells, ds, keep, strict=True):
                if d & ~m:  # Tatham goes back to the easier rules after one cell
                    elims = tuple((c, eng.values[v]) for v in bits(d & ~m))
                    return Step("towers-layouts", 1, (), elims, premises=clue.cells,
                                _why=lazy(_layouts_text, eng, clue, elims))
            st.seen[key] = ds
        return None


def _facing_text(eng: Engine, place: Sequence[tuple[int, Label, str, str]], w: int) -> str:
    parts = [f"{a} and {b} add up to {w + 1}, so the line rises to {w} at {eng.cell_name(c)} "
             f"and falls after it" for c, _, a, b in place]
    return "; ".join(parts) + f" → place {w}"


def _nearly_text(eng: Engine, clue: _Clue, seen: int, elims: Sequence[tuple[int, Label]]) -> str:
    return (f"{clue.name}: the tallest placed towers already show {seen}, so the first cell "
            f"must be the one more tower seen, taller than the small ones → "
            f"{elim_text(eng, elims)}")


def _lower_text(eng: Engine, clue: _Clue, limits: Sequence[tuple[int, int]],
                elims: Sequence[tuple[int, Label]]) -> str:
    parts = ", ".join(f"{eng.label(v)} not in the first {k}" for v, k in limits)
    return (f"{clue.name}: each tall tower seen needs room for the shorter ones seen before it "
            f"({parts}) → {elim_text(eng, elims)}")


def _layouts_text(eng: Engine, clue: _Clue, elims: Sequence[tuple[int, Label]]) -> str:
    return (f"{clue.name}: no arrangement of the line that shows {clue.count} towers has "
            f"these heights there → {elim_text(eng, elims)}")


def _rules(board: Board, lowest_only: bool) -> list[list[Technique]]:
    towers = _Towers(board)
    levels: list[list[Technique]] = [
        [towers.facing_rule, towers.bounds_rule, *shared(SIMPLE, 0)],
        [towers.layouts_rule, *shared(SET_ROWS, 1)],
        [*shared(SET_DIGITS, 2), *shared(FORCING, 2)]]
    return levels[:1] if lowest_only else levels


TOWERS_GAME = LatinGame(TOWERS_GRADES, _rules, separate_lowest=False)


def _covers(board: Board) -> bool:
    return board.kind == "towers"


def _grade(board: Board, max_level: int) -> Outcome:
    return grade_latin(TOWERS_GAME, board, max_level)


TOWERS_SCALE = register(GameScale("towers", TOWERS_GRADES, _covers, _grade,
                                  dict(TOWERS_TECHNIQUES),
                                  dict(zip("ehxu", TOWERS_GRADES, strict=True))))
"""The towers scale (registered)."""
