"""The killer deductions of Tatham's Solo (:mod:`futocp.rating.solo`).

On a killer board Solo's solver runs, after the box singles of every pass
and whatever the level asked, these steps in this order (a step that changes
something starts the pass again):

1. **Tidy** (``killer-distinct``): a placed digit leaves its cage, whose sum
   drops by it, and the cage's other cells lose that digit.
2. **Single cells** (``killer-single``): a cage of one cell left takes its sum.
3. **Regions** (``killer-region``): each row, then column, then box holds
   ``1 + ... + n``; the whole cages inside it and its placed digits taken
   away, the cells left form a *deduced cage* with the rest of the sum. One
   cell left takes that sum; a deduced cage inside one real cage splits it
   in two for the rest of the solve.
4. **Min-max** (``killer-minmax``): a digit goes when the other cells of the
   cage, at their smallest (largest) digits, make the sum too big (too small);
   real cages, then deduced ones.
5. **Sums** (``killer-sums``): in a cage of 2 to 4 cells (a deduced one only
   inside one row, column or box) a digit goes when no set of distinct
   digits 1..9 with the cage's sum, each cell allowing one of them, uses it.
   As in Solo, digits above n count as allowed everywhere.

They count for Tatham's separate killer difficulty (:data:`KILLER_GRADES`:
single cells, min-max, sums, regions), not for the main grade.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["KILLER_GRADES", "KillerState", "SumQuirk", "killer_state", "SUMS"]

KILLER_GRADES: tuple[str, ...] = ("trivial", "simple", "intermediate", "advanced")
"""Solo's killer difficulty names (his ``DIFF_KSINGLE`` .. ``DIFF_KINTERSECT``)."""
KSINGLE, KMINMAX, KSUMS, KINTERSECT = range(4)


def _sums() -> dict[int, dict[int, tuple[int, ...]]]:
    """Sets of 2, 3 and 4 distinct digits 1..9 per sum, as masks (digit d: bit d - 1)."""
    out: dict[int, dict[int, list[int]]] = {2: {}, 3: {}, 4: {}}

    def walk(start: int, total: int, mask: int) -> None:
        for d in range(start, 10):
            m = mask | 1 << (d - 1)
            k = m.bit_count()
            if k > 1:
                out[k].setdefault(total + d, []).append(m)
            if k < 4:
                walk(d + 1, total + d, m)

    walk(1, 0, 0)
    return {k: {s: tuple(v) for s, v in per.items()} for k, per in out.items()}


SUMS = _sums()
"""``SUMS[k][s]``: the sets of k distinct digits 1..9 adding up to s (digit masks)."""
_RANGE = {2: (3, 17), 3: (6, 24), 4: (10, 30)}


class _Host(Protocol):
    """What the killer steps use of :class:`futocp.rating.solo._Solver`."""

    n: int
    full: int
    cand: list[int]
    grid: list[int]
    maxdiff: int
    puz: Any

    def place(self, cell: int, d: int) -> None: ...

    def eliminate(self, cell: int, d: int) -> bool: ...

    def note(self, technique: str, place: tuple[tuple[int, int], ...],
             eliminate: tuple[tuple[int, int], ...], why: str,
             premises: tuple[int, ...] = (), size: int = 0) -> None: ...

    def cname(self, cell: int) -> str: ...


class SumQuirk(Exception):
    """A region's sum ran out (at or below 0): Tatham's solver, when allowed to
    recurse, ends this solve as if it had succeeded."""


class KillerState:
    """The cages of one solve: their cells left and sums left, and the deduced cages.

    Attributes:
        cages: Cells left per cage (split cages appended at the end).
        sums: Sum left per cage.
        owner: Cell -> its cage (-1 once placed and tidied).
        extra: The deduced cages of the current pass, ``(cells, sum, region name)``.
        kdiff: The killer difficulty reached (an index into :data:`KILLER_GRADES`).
    """

    def __init__(self, host: _Host, cages: Sequence[tuple[Sequence[int], int]],
                 impossible: type[BaseException]) -> None:
        self.host = host
        self.cages: list[list[int]] = [list(cells) for cells, _ in cages]
        self.sums: list[int] = [s for _, s in cages]
        self.owner = [-1] * (host.n * host.n)
        for b, (cells, _) in enumerate(cages):
            for c in cells:
                self.owner[c] = b
        self.extra: list[tuple[list[int], int, str]] = []
        self.kdiff = KSINGLE
        self.impossible = impossible

    def deduce(self) -> bool:
        """One killer pass; True when it changed something that restarts the loop."""
        self._tidy()
        if self._singles():
            return True
        if self._regions():
            self.kdiff = max(self.kdiff, KINTERSECT)
            return True
        if self._minmax():
            self.kdiff = max(self.kdiff, KMINMAX)
            return True
        return self._sum_sets()

    # ---------------------------------------------------------------- steps
    def _tidy(self) -> None:
        h, grid = self.host, self.host.grid
        for b, cells in enumerate(self.cages):
            for i in range(len(cells) - 1, -1, -1):
                x = cells[i]
                t = grid[x]
                if not t:
                    continue
                del cells[i]
                self.owner[x] = -1
                if t > self.sums[b]:
                    raise self.impossible
                self.sums[b] -= t
                # as in Solo, a placed cell of the cage loses t too (left with no digit
                # when it holds t: a contradiction only set elimination notices)
                gone = tuple((c, t - 1) for c in cells if h.eliminate(c, t - 1) and not grid[c])
                if gone:
                    h.note("killer-distinct", (), gone, f"{h.cname(x)} holds "
                           f"{t}: the other cells of its cage cannot", (x,))

    def _singles(self) -> bool:
        h = self.host
        changed = False
        for b, cells in enumerate(self.cages):
            if len(cells) == 1:
                v, x = self.sums[b], cells[0]
                if not 1 <= v <= h.n or not h.cand[x] >> (v - 1) & 1:
                    raise self.impossible
                h.place(x, v - 1)
                h.note("killer-single", ((x, v - 1),), (),
                       f"{h.cname(x)} is the last cell of its cage: it takes the {v} left "
                       "of the sum", (x,))
                changed = True
        return changed

    def _regions(self) -> bool:
        h, n = self.host, self.host.n
        puz = h.puz
        total = n * (n + 1) // 2
        self.extra = []
        changed = False
        for kind, units in (("row", puz.rows), ("column", puz.cols), ("box", puz.blocks)):
            for u, unit in enumerate(units):
                cells, filtered = self._outside_cages(list(unit))
                left = total - filtered
                if len(cells) in (0, n):
                    continue
                name = (f"{kind} {u}" if kind != "box"
                        else puz.unit_name(unit, f"box {u}"))
                if left <= 0:
                    if h.maxdiff >= 5:
                        raise SumQuirk
                    raise self.impossible
                if len(cells) == 1:
                    x = cells[0]
                    if left > n or not h.cand[x] >> (left - 1) & 1:
                        raise self.impossible
                    h.place(x, left - 1)
                    h.note("killer-region", ((x, left - 1),), (),
                           f"{name} adds up to {total}: its whole cages and "
                           f"placed digits leave {left} for {h.cname(x)}", tuple(unit))
                    changed = True
                b = self.owner[cells[0]]
                if all(self.owner[c] == b for c in cells[1:]):
                    self._split(b, cells, left)
                else:
                    self.extra.append((cells, left, name))
        return changed

    def _outside_cages(self, cells: list[int]) -> tuple[list[int], int]:
        """A region's cells minus its placed ones and whole cages, in Tatham's order,
        and the sum of what went (his ``filter_whole_cages``)."""
        grid = self.host.grid
        filtered = sum(grid[c] for c in cells if grid[c])
        sq = [c for c in cells if not grid[c]]
        n, off = len(sq), 0
        for b, cage in enumerate(self.cages):
            if off >= n:
                break
            if not cage:
                continue
            matched = 0
            for c in cage:
                for j in range(off, n):
                    if sq[j] == c:
                        sq[off + matched], sq[j] = sq[j], sq[off + matched]
                        matched += 1
                        break
            if matched != len(cage):
                off += matched
                continue
            del sq[off:off + matched]
            n -= matched
            filtered += self.sums[b]
        return sq[:n], filtered

    def _split(self, b: int, cells: list[int], left: int) -> None:
        """Cut the cells of a deduced cage out of real cage ``b`` as a cage of their own."""
        new = len(self.cages)
        keep = set(cells)
        self.cages[b] = [c for c in self.cages[b] if c not in keep]
        self.cages.append(list(cells))
        for c in cells:
            self.owner[c] = new
        self.sums.append(left)
        self.sums[b] -= left

    def _minmax(self) -> bool:
        changed = False
        for b, cells in enumerate(self.cages):
            changed |= self._minmax_cage(cells, self.sums[b], "")
        for cells, s, name in self.extra:
            changed |= self._minmax_cage(cells, s, f"the rest of {name}")
        return changed

    def _minmax_cage(self, cells: Sequence[int], total: int, what: str) -> bool:
        if total == 0:
            return False
        h = self.host
        cand = h.cand
        changed = False
        for i, x in enumerate(cells):
            lo = hi = 0
            for j, y in enumerate(cells):
                if j != i and cand[y]:
                    m = cand[y]
                    lo += (m & -m).bit_length()
                    hi += m.bit_length()
            gone = []
            for d in range(h.n):
                if cand[x] >> d & 1 and (hi + d + 1 < total or lo + d + 1 > total):
                    h.eliminate(x, d)
                    gone.append((x, d))
            if gone:
                changed = True
                h.note("killer-minmax", (), tuple(gone),
                       f"{what or 'the cage of ' + h.cname(cells[0])} sums to {total}; its "
                       f"other cells make {lo} to {hi}: "
                       f"{h.cname(x)} cannot be {', '.join(str(d + 1) for _, d in gone)}",
                       tuple(cells))
        return changed

    def _sum_sets(self) -> bool:
        changed = False
        for b, cells in enumerate(self.cages):
            if self._sum_cage(cells, self.sums[b], True, ""):
                changed = True
        for cells, s, name in self.extra:
            if self._sum_cage(cells, s, False, f"the rest of {name}"):
                changed = True
        if changed:
            self.kdiff = max(self.kdiff, KSUMS)
        return changed

    def _sum_cage(self, cells: Sequence[int], total: int, region: bool, what: str) -> bool:
        h = self.host
        k = len(cells)
        if total == 0 or k == 0:
            if total or k:
                raise self.impossible
            return False
        if not 2 <= k <= 4:
            return False
        if not region and not self._in_one_unit(cells):
            return False
        lo, hi = _RANGE[k]
        if not lo <= total <= hi:
            raise self.impossible
        what = what or f"the cage of {h.cname(cells[0])}"
        cand, above = h.cand, ~h.full
        possible = 0
        for combo in SUMS[k].get(total, ()):
            if all(combo & (cand[x] | above) for x in cells):
                possible |= combo
        if not possible:
            raise self.impossible
        gone = tuple((x, d) for x in cells for d in range(h.n)
                     if cand[x] >> d & 1 and not possible >> d & 1)
        for x, d in gone:
            h.eliminate(x, d)
        if gone:
            h.note("killer-sums", (), gone, f"{what} makes {total} with {k} different digits: only "
                   f"{','.join(str(d + 1) for d in range(9) if possible >> d & 1)} fit",
                   tuple(cells))
        return bool(gone)

    def _in_one_unit(self, cells: Sequence[int]) -> bool:
        n, which = self.host.n, self.host.puz.which
        first = cells[0]
        return (all(c // n == first // n for c in cells) or all(c % n == first % n for c in cells)
                or all(which[c] == which[first] for c in cells))


def killer_state(host: _Host, puz: Any, impossible: type[BaseException]) -> KillerState:
    """The killer state of a solve of ``puz`` (its ``cages``: cells and sums)."""
    return KillerState(host, puz.cages, impossible)
