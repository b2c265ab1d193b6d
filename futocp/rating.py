"""Difficulty rating: deduction techniques, grades, explanations and hints.

A puzzle is rated the way a player solves it (seed 003, §5: *attrition*):
named deduction techniques, each a rule that finds one deduction (a
:class:`Step`: placements and eliminations, with a one-line reason), are
applied *cheapest level first*; after every step the search restarts at the
cheapest level. The **grade** is the highest level any step needed, which is
also the lowest level whose fixpoint solves the puzzle (every rule but the
forcing chain is a monotone propagator, so the fixpoint does not depend on
the order in which the rules fire). This is the scheme of Simon Tatham's
*Unequal* (his Futoshiki) grader; on his own puzzles the grades agree with
his, in both the inequality and the adjacent mode (``tests/test_rating.py``).

Levels and techniques (``docs/rating.md`` has a worked example of each):

====  =========  ===========================================================
0     trivial    ``hidden-single`` (a label has as many places left in an
                 asterism as it still needs there: multiset-aware),
                 ``naked-single`` (a cell with one label left). On the
                 ``tatham`` scale the relations play no part at this level:
                 they are only checked once the grid is full.
1     easy       ``less-bounds`` (each ``a < b``: b loses every label up to
                 min(a), a every label from max(b)); ``consecutive-fc``
                 (forward checking from a *placed* cell on its consecutive /
                 non-consecutive pairs); general scale: ``relation-fc`` (the
                 same for every other binary kind, e.g. ``ratio``).
2     tricky     ``consecutive-ac`` (arc consistency on every consecutive /
                 non-consecutive pair, with "different" built in when the two
                 cells share an asterism); ``subset`` (naked and hidden
                 subsets of every size: generalized arc consistency of each
                 asterism, found by bipartite matching, multisets included);
                 general scale: ``relation-ac``, ``cage`` (a cage's cells keep
                 the labels of some sum combination that fits) and
                 ``intersection`` (pointing / claiming between asterisms that
                 overlap in two or more cells, e.g. Sudoku boxes).
3     extreme    ``fish`` (per label of multiplicity 1: generalized arc
                 consistency of "one per row and one per column" between two
                 parallel classes of asterisms, e.g. X-wing, swordfish);
                 ``forcing-chain`` (a chain of two-valued cells from a
                 two-valued start cell: a cell that sees the start and the
                 chain's end loses the start's label, Tatham's exact rule).
4     recursive  ``guess``: at the first cell with fewest labels left, try
                 each label in increasing order and solve on (guesses nest);
                 the puzzle must have exactly one solution.
====  =========  ===========================================================

Two scales share the engine: ``tatham`` (the default for n x n Futoshiki and
Latin squares, either mode: his levels exactly, rows and columns as the only
asterisms, forcing chains visiting a cell's column before its row) and
``general`` (any Latin board: asterisms, multisets, string labels, every
relation kind, the intersection and cage rules, peers and parallel classes
taken from the board's asterisms).

The **score** is seed 003's objective measure (§5.4.2): the weighted count
of the steps of the proof (nested guess branches included), each step
weighing ``base + per * size`` where ``size`` is the subset or fish size or
the chain length (:data:`WEIGHTS`; the weights are in every
:class:`Rating`, so that a later calibration can refit them).

The matching is :mod:`futocp.gac`'s (Kuhn's augmenting paths on bit masks, then
a reachability closure), shared with ``filtering="gac"``; here the closure
yields one Hall set per step, so that an explanation can name it. It replaces Tatham's
enumeration of every subset (2^n per row) and reaches the same fixpoint.

Example:
    >>> from futocp.formats import loads
    >>> r = rate(loads("4:0,0,0,0,0,0,0L,0,0U,0,0,0,0U,0R,0,4,", "tatham"))
    >>> r.grade, r.status, r.counts["less-bounds"] > 0
    ('easy', 'solved', True)
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .board import Board, Label
from .errors import FutocpError, UsageError
from .gac import NoMatching, value_reach
from .gac import saturating_matching as _match
from .model import Model, build_model

__all__ = [
    "LEVELS",
    "SCALES",
    "LETTERS",
    "TECHNIQUES",
    "WEIGHTS",
    "Step",
    "Rating",
    "Hint",
    "Closure",
    "Contradiction",
    "rate",
    "closure",
    "solvable",
    "count_solutions",
    "replay",
    "hint",
    "default_scale",
    "level_of",
    "techniques_of",
    "parse_state",
    "shuffled_techniques",
    "explain_lines",
    "format_rating",
    "format_table",
]

LEVELS: tuple[str, ...] = ("trivial", "easy", "tricky", "extreme", "recursive")
"""The grades, cheapest first; a grade's level is its index."""
SCALES: tuple[str, ...] = ("tatham", "general")
LETTERS: dict[str, str] = {"t": "trivial", "e": "easy", "k": "tricky", "x": "extreme",
                           "r": "recursive"}
"""Tatham's difficulty letters (a futoshiki board's ``grade`` parameter) -> grades."""
STATUSES = ("solved", "ambiguous", "impossible", "unfinished")

# technique -> (level on the tatham scale or None, level on the general scale)
TECHNIQUES: dict[str, tuple[int | None, int]] = {
    "hidden-single": (0, 0),
    "naked-single": (0, 0),
    "less-bounds": (1, 1),
    "consecutive-fc": (1, 1),
    "relation-fc": (None, 1),
    "consecutive-ac": (2, 2),
    "relation-ac": (None, 2),
    "cage": (None, 2),
    "intersection": (None, 2),
    "subset": (2, 2),
    "fish": (3, 3),
    "forcing-chain": (3, 3),
    "guess": (4, 4),
}
"""Every technique, in the order tried within a level, with its level per scale."""

WEIGHTS: dict[str, tuple[float, float]] = {
    "hidden-single": (1, 0), "naked-single": (1, 0),
    "less-bounds": (1, 0), "consecutive-fc": (1, 0), "relation-fc": (1, 0),
    "consecutive-ac": (2, 0), "relation-ac": (2, 0), "cage": (2, 0), "intersection": (2, 0),
    "subset": (3, 1), "fish": (5, 1), "forcing-chain": (6, 1), "guess": (30, 0),
}
"""Score weights: a step of technique t weighs ``base + per * size`` (``(base, per)``)."""

_CONSECUTIVE = ("consecutive", "nonconsecutive")
# consumers of the state's change sets
_HS, _SUB, _LB, _FC_C, _FC_R, _AC_C, _AC_R, _CAGE = range(8)


class Contradiction(Exception):
    """The current state has no solution (a domain or an asterism ran out)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------- steps
@dataclass(frozen=True, eq=False)
class Step:
    """One deduction.

    Attributes:
        technique: Its name (a key of :data:`TECHNIQUES`).
        level: Its level on the scale of the run (0 trivial .. 4 recursive).
        place: ``(cell, label)`` placements.
        eliminate: ``(cell, label)`` eliminations (placements also remove the
            label from the cell's peers; those are not listed).
        size: The subset or fish size, the chain length (for the score).
        premises: The cells the deduction reads.
        sub: For a guess: the steps of the refuted branch (indented by ``explain``).
    """

    technique: str
    level: int
    place: tuple[tuple[int, Label], ...] = ()
    eliminate: tuple[tuple[int, Label], ...] = ()
    size: int = 0
    premises: tuple[int, ...] = ()
    sub: tuple[Step, ...] = ()
    _why: Callable[[], str] | str = field(default="", repr=False)

    @property
    def reason(self) -> str:
        """The one-line reason, in words a player reads (cells as ``(row,col)`` from 0)."""
        return self._why() if callable(self._why) else self._why

    def as_dict(self, board: Board) -> dict[str, Any]:
        """``{"technique", "level", "place", "eliminate", "reason"}``; cells as
        ``[row, col, label]`` (``[cell, label]`` on boards without a grid)."""
        return {"technique": self.technique, "level": LEVELS[self.level],
                "place": [_ref(board, c, v) for c, v in self.place],
                "eliminate": [_ref(board, c, v) for c, v in self.eliminate],
                "reason": self.reason}


def _ref(board: Board, cell: int, label: Label) -> list[Any]:
    if board.shape is not None:
        r, c = board.coords(cell)
        return [r, c, label]
    return [cell, label]


def _walk(steps: Iterable[Step]) -> Iterable[Step]:
    """Every step, nested guess branches included (depth first)."""
    stack = [iter(steps)]
    while stack:
        for s in stack[-1]:
            yield s
            if s.sub:
                stack.append(iter(s.sub))
                break
        else:
            stack.pop()


# ------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class Rating:
    """The rating of a puzzle.

    Attributes:
        grade: ``trivial``, ``easy``, ``tricky``, ``extreme`` or ``recursive``;
            None unless ``status`` is ``solved``.
        level: The grade's index in :data:`LEVELS` (None with the grade).
        status: ``solved`` (exactly one solution), ``ambiguous`` (two or more),
            ``impossible`` (none) or ``unfinished`` (only when the allowed
            techniques leave out ``guess``).
        scale: ``tatham`` or ``general``.
        steps: The proof: every step in order; a guess step holds its refuted
            branch in :attr:`Step.sub`.
        counts: Steps per technique (nested branches included).
        score: Weighted count of the steps (:data:`WEIGHTS`).
        weights: The weights used, ``{technique: (base, per size)}``.
        guesses: Branches tried by ``guess`` (0 below recursive).
        depth: Deepest nesting of guesses.
        max_level_steps: Steps at the grade's level.
        solution: The labels per cell when solved (the first found when ambiguous).
        reason: Why the puzzle is impossible, ambiguous or unfinished.
        time_s: Seconds the rating took.
        board: The rated board.
    """

    grade: str | None
    level: int | None
    status: str
    scale: str
    steps: tuple[Step, ...]
    counts: dict[str, int]
    score: float
    weights: dict[str, tuple[float, float]]
    guesses: int
    depth: int
    max_level_steps: int
    solution: tuple[Label, ...] | None
    reason: str | None
    time_s: float
    board: Board = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no steps)."""
        return {"grade": self.grade, "status": self.status, "scale": self.scale,
                "score": self.score, "counts": dict(self.counts), "guesses": self.guesses,
                "depth": self.depth, "time_s": round(self.time_s, 6),
                "weights": {k: list(v) for k, v in self.weights.items()}}

    def explain_dict(self, steps: Sequence[Step] | None = None) -> dict[str, Any]:
        """``{"grade": ..., "steps": [...]}`` as ``futocp explain --json`` prints it."""
        chosen = self.steps if steps is None else steps
        return {"grade": self.grade, "steps": [s.as_dict(self.board) for s in chosen]}


# -------------------------------------------------------------------- engine
def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _is_tatham_board(board: Board) -> bool:
    """An n x n grid with rows and columns as asterisms, labels 1..n, relations
    only less / consecutive / nonconsecutive."""
    if board.shape is None or board.shape[0] != board.shape[1]:
        return False
    n = board.shape[0]
    if board.labels != tuple(range(1, n + 1)):
        return False
    rows = {tuple(range(r * n, r * n + n)) for r in range(n)}
    cols = {tuple(range(c, n * n, n)) for c in range(n)}
    if set(board.asterisms) != rows | cols or len(board.asterisms) != 2 * n:
        return False
    return board.relation_kinds <= {"less", *_CONSECUTIVE}


def default_scale(board: Board) -> str:
    """``tatham`` for n x n Futoshiki and Latin squares (either mode), else ``general``."""
    return "tatham" if _is_tatham_board(board) else "general"


def level_of(technique: str, scale: str) -> int | None:
    """The level of a technique on a scale (None: not on that scale)."""
    tat, gen = TECHNIQUES[technique]
    return tat if scale == "tatham" else gen


def techniques_of(scale: str) -> tuple[str, ...]:
    """The techniques of a scale, in the order tried."""
    return tuple(t for t in TECHNIQUES if level_of(t, scale) is not None)


class _Unit:
    """An asterism (counts) or a partial all-different group (a cage) as the engine sees it."""

    __slots__ = ("cells", "caps", "partial", "name", "cellset", "simple")

    def __init__(self, cells: tuple[int, ...], caps: tuple[int, ...], partial: bool,
                 name: str) -> None:
        self.cells = cells
        self.caps = caps            # remaining-count start per value index
        self.partial = partial      # a cage: labels at most once, not every label
        self.name = name
        self.cellset = frozenset(cells)
        self.simple = max(caps) <= 1


_GEOMETRY: dict[tuple[Any, ...], dict[str, Any]] = {}


class _Engine:
    """The static structure of one model on one scale."""

    def __init__(self, model: Model, scale: str, techniques: Sequence[str] | None = None) -> None:
        board = model.board
        self.model = model
        self.board = board
        self.scale = scale
        self.values = model.values
        self.index = {v: i for i, v in enumerate(model.values)}
        nv = model.n_values
        self.nv = nv
        self.full = (1 << nv) - 1
        self.n = model.n_cells
        self.tatham = scale == "tatham"
        key = (board.n_cells, board.asterisms, board.labels, board.shape, scale,
               board.asterism_names,  # a Jigsaw's region ids name its units
               () if self.tatham else tuple(con.cells for con in model.all_different))
        geometry = _GEOMETRY.get(key)
        if geometry is None:
            geometry = self._geometry(model)
            if len(_GEOMETRY) > 64:
                _GEOMETRY.clear()
            _GEOMETRY[key] = geometry
        self.__dict__.update(geometry)
        self._relations(model)
        self._schedule(scale, techniques)

    def _geometry(self, model: Model) -> dict[str, Any]:
        """What depends only on the asterisms, labels and cages (cached across boards)."""
        board, nv = self.board, self.nv
        # units: the asterisms (groups), then the cages' all-different groups
        units: list[_Unit] = []
        names = board.asterism_names  # the model's groups are the asterisms, in order
        for (cells, counts), name in zip(model.groups, names, strict=True):
            caps = tuple([1] * nv) if counts is None else tuple(counts)
            units.append(_Unit(tuple(cells), caps, False, name))
        self.n_groups = len(units)
        if not self.tatham:
            for k, con in enumerate(model.all_different):
                shown = ",".join(self.cell_name(c) for c in con.cells)
                units.append(_Unit(tuple(con.cells), tuple([1] * nv), True, f"cage {k} [{shown}]"))
        self.units = units
        cu: list[list[int]] = [[] for _ in range(self.n)]
        for u, unit in enumerate(units):
            for c in unit.cells:
                cu[c].append(u)
        self.cell_units = tuple(tuple(x) for x in cu)
        self.peers = tuple(frozenset(x) for x in _peer_sets(self.n, units))
        self.chain_nbrs = self._chain_neighbours()
        self.mult1 = self._mult1()
        self.classes = self._class_pairs()
        self.inter = self._intersections() if not self.tatham else ()
        return {name: getattr(self, name) for name in (
            "n_groups", "units", "cell_units", "peers", "chain_nbrs", "mult1", "classes", "inter")}

    def _relations(self, model: Model) -> None:
        """The relations of the board (per model)."""
        # relations
        self.less = tuple((r.a, r.b) for r in model.less)
        binary = [r for r in model.binary if r.kind != "less"]
        rels = []
        for r in binary:
            fwd, bwd = model.support(r)
            ne = self._ne_mask(r.a, r.b)
            tech = "consecutive" if r.kind in _CONSECUTIVE else "relation"
            rels.append((r.a, r.b, fwd, bwd, ne, r.kind, tech))
        self.rels = tuple(rels)
        self.cages = tuple((tuple(r.cells), model.combinations(r), r.param_map.get("sum"))
                           for r in model.cages) if not self.tatham else ()
        self._dependencies()

    def _schedule(self, scale: str, techniques: Sequence[str] | None) -> None:
        """The techniques per level, in the order tried."""
        allowed = techniques_of(scale)
        chosen = list(allowed) if techniques is None else list(techniques)
        for t in chosen:
            if t not in TECHNIQUES:
                raise UsageError(f"unknown technique {t!r} (known: {', '.join(TECHNIQUES)})")
            if t not in allowed:
                raise UsageError(f"technique {t!r} is not on the {scale} scale")
        self.allow_guess = "guess" in chosen
        funcs = {"hidden-single": _hidden_single, "naked-single": _naked_single,
                 "less-bounds": _less_bounds, "consecutive-fc": _fc_consecutive,
                 "relation-fc": _fc_other, "consecutive-ac": _ac_consecutive,
                 "relation-ac": _ac_other, "cage": _cage, "intersection": _intersection,
                 "subset": _subset, "fish": _fish, "forcing-chain": _forcing_chain}
        levels: list[list[Callable[[_Engine, _State], Step | None]]] = [[] for _ in range(4)]
        for t in chosen:
            if t == "guess":
                continue
            lvl = level_of(t, scale)
            assert lvl is not None
            levels[lvl].append(funcs[t])
        self.levels = levels

    def _dependencies(self) -> None:
        """Per cell, the items of each consumer that a change of the cell makes
        worth looking at again: units (hidden singles, subsets), less links,
        relations (forward checking, arc consistency per group), cages."""
        n = self.n
        per: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(n)]
        units: list[list[int]] = [[] for _ in range(n)]
        for u, unit in enumerate(self.units):
            for c in unit.cells:
                units[c].append(u)
        less: list[list[int]] = [[] for _ in range(n)]
        for k, (a, b) in enumerate(self.less):
            less[a].append(k)
            less[b].append(k)
        rels: dict[str, list[list[int]]] = {"consecutive": [[] for _ in range(n)],
                                            "relation": [[] for _ in range(n)]}
        for k, rel in enumerate(self.rels):
            rels[rel[6]][rel[0]].append(k)
            rels[rel[6]][rel[1]].append(k)
        cages: list[list[int]] = [[] for _ in range(n)]
        for k, (cells, _, _) in enumerate(self.cages):
            for c in cells:
                cages[c].append(k)
        table = [(_HS, units), (_SUB, units), (_LB, less),
                 (_FC_C, rels["consecutive"]), (_FC_R, rels["relation"]),
                 (_AC_C, rels["consecutive"]), (_AC_R, rels["relation"]), (_CAGE, cages)]
        for c in range(n):
            per[c] = [(k, tuple(lists[c])) for k, lists in table if lists[c]]
        self.deps = tuple(tuple(x) for x in per)
        self.dep_sizes = (len(self.units), len(self.units), len(self.less), len(self.rels),
                          len(self.rels), len(self.rels), len(self.rels), len(self.cages))

    # ---------------------------------------------------------------- names
    def cell_name(self, cell: int) -> str:
        return self.board.cell_name(cell)

    def label(self, v: int) -> str:
        return str(self.values[v])

    def labels(self, mask: int) -> str:
        return " ".join(self.label(v) for v in _bits(mask))

    # ------------------------------------------------------------ structure
    def _ne_mask(self, a: int, b: int) -> int:
        """The values two cells may not share (a common all-different unit)."""
        ne = 0
        for u in self.cell_units[a]:
            unit = self.units[u]
            if b in unit.cellset:
                for v, cap in enumerate(unit.caps):
                    if cap == 1:
                        ne |= 1 << v
        return ne

    def _chain_neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell, the cells a forcing chain visits from it, in visiting order.

        Tatham scale: the cell's column top to bottom, then its row left to right
        (his order). General scale: the cells of the cell's asterisms, last
        asterism first, then its cages (the same order on squares)."""
        out = []
        if self.tatham:
            assert self.board.shape is not None
            n = self.board.shape[0]
            for cell in range(self.n):
                r, c = divmod(cell, n)
                out.append(tuple(range(c, n * n, n)) + tuple(range(r * n, r * n + n)))
            return tuple(out)
        for cell in range(self.n):
            groups = [u for u in self.cell_units[cell] if u < self.n_groups]
            cages = [u for u in self.cell_units[cell] if u >= self.n_groups]
            seq: list[int] = []
            for u in reversed(groups):
                seq.extend(self.units[u].cells)
            for u in cages:
                seq.extend(self.units[u].cells)
            out.append(tuple(seq))
        return tuple(out)

    def _mult1(self) -> int:
        mult = self.board.multiplicity
        mask = 0
        for v, label in enumerate(self.values):
            if mult[label] == 1:
                mask |= 1 << v
        return mask

    def _class_pairs(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...],
                                          tuple[tuple[int | None, ...], ...]], ...]:
        """Pairs of parallel classes of asterisms (each class partitions the cells)
        whose asterisms meet in at most one cell, with the meeting cell per pair."""
        classes: list[list[int]] = []
        for u in range(self.n_groups):
            cells = self.units[u].cellset
            for cls in classes:
                if all(not (cells & self.units[w].cellset) for w in cls):
                    cls.append(u)
                    break
            else:
                classes.append([u])
        full = [cls for cls in classes
                if sum(len(self.units[u].cells) for u in cls) == self.n]
        out = []
        for i in range(len(full)):
            for j in range(i + 1, len(full)):
                a, b = full[i], full[j]
                meet: list[tuple[int | None, ...]] = []
                ok = True
                for ua in a:
                    row: list[int | None] = []
                    for ub in b:
                        common = self.units[ua].cellset & self.units[ub].cellset
                        if len(common) > 1:
                            ok = False
                            break
                        row.append(next(iter(common)) if common else None)
                    if not ok:
                        break
                    meet.append(tuple(row))
                if ok:
                    out.append((tuple(a), tuple(b), tuple(meet)))
        return tuple(out)

    def _intersections(self) -> tuple[tuple[int, int, frozenset[int]], ...]:
        out = []
        for a in range(self.n_groups):
            for b in range(self.n_groups):
                if a != b:
                    common = self.units[a].cellset & self.units[b].cellset
                    if len(common) >= 2:
                        out.append((a, b, common))
        return tuple(out)


def _peer_sets(n: int, units: Sequence[_Unit]) -> list[set[int]]:
    out: list[set[int]] = [set() for _ in range(n)]
    for unit in units:
        for c in unit.cells:
            out[c].update(unit.cells)
    for c in range(n):
        out[c].discard(c)
    return out


# --------------------------------------------------------------------- state
class _State:
    """The mutable solving state: domains, placements, remaining counts, and
    what changed since each technique last looked (so that a restart at the
    cheapest level costs little)."""

    __slots__ = ("eng", "doms", "placed", "rem", "need", "left", "uver", "vver", "tick",
                 "seen", "dirty", "singles")

    def __init__(self, eng: _Engine) -> None:
        self.eng = eng
        self.doms = [eng.full] * eng.n
        self.placed = [-1] * eng.n
        self.rem = [list(u.caps) for u in eng.units]
        self.need = [sum(1 << v for v, k in enumerate(u.caps) if k > 0) for u in eng.units]
        self.left = eng.n
        self.uver = [0] * len(eng.units)
        self.vver = [0] * eng.nv
        self.tick = 0
        self.seen: dict[Any, Any] = {}
        # per consumer (see _Engine.deps), the items to look at again
        self.dirty = [set(range(size)) for size in eng.dep_sizes]
        self.singles: set[int] = set()

    def copy(self) -> _State:
        new = _State.__new__(_State)
        new.eng = self.eng
        new.doms = self.doms[:]
        new.placed = self.placed[:]
        new.rem = [r[:] for r in self.rem]
        new.need = self.need[:]
        new.left = self.left
        new.uver = self.uver[:]
        new.vver = self.vver[:]
        new.tick = self.tick
        new.seen = dict(self.seen)
        new.dirty = [d.copy() for d in self.dirty]
        new.singles = self.singles.copy()
        return new

    def _touch(self, cell: int, removed: int) -> None:
        self.tick += 1
        eng = self.eng
        uver = self.uver
        for u in eng.cell_units[cell]:
            uver[u] += 1
        dirty = self.dirty
        for consumer, items in eng.deps[cell]:
            dirty[consumer].update(items)
        vver = self.vver
        while removed:
            low = removed & -removed
            vver[low.bit_length() - 1] += 1
            removed ^= low

    def remove(self, cell: int, mask: int) -> None:
        d = self.doms[cell]
        gone = d & mask
        if not gone:
            return
        d ^= gone
        self.doms[cell] = d
        self._touch(cell, gone)
        if not d & (d - 1) and self.placed[cell] < 0:
            self.singles.add(cell)
        if not d:
            raise Contradiction(f"{self.eng.cell_name(cell)} has no label left")

    def place(self, cell: int, v: int) -> None:
        eng = self.eng
        bit = 1 << v
        d = self.doms[cell]
        if self.placed[cell] >= 0:
            if self.placed[cell] != v:
                raise Contradiction(f"{eng.cell_name(cell)} holds {eng.label(self.placed[cell])}, "
                                    f"not {eng.label(v)}")
            return
        if not d & bit:
            raise Contradiction(f"{eng.cell_name(cell)} cannot be {eng.label(v)}")
        self.doms[cell] = bit
        self.placed[cell] = v
        self.left -= 1
        self._touch(cell, d & ~bit)
        placed, doms = self.placed, self.doms
        for u in eng.cell_units[cell]:
            unit = eng.units[u]
            rem = self.rem[u]
            rem[v] -= 1
            if rem[v] < 0:
                raise Contradiction(f"{unit.name} holds {eng.label(v)} too often")
            if rem[v] == 0:
                self.need[u] &= ~bit
                for c in unit.cells:
                    if placed[c] < 0 and doms[c] & bit:
                        self.remove(c, bit)

    def apply(self, step: Step) -> None:
        index = self.eng.index
        for cell, label in step.place:
            self.place(cell, index[label])
        for cell, label in step.eliminate:
            if self.placed[cell] >= 0 and self.placed[cell] == index[label]:
                raise Contradiction(f"{self.eng.cell_name(cell)} cannot be {label}")
            self.remove(cell, 1 << index[label])

    def labels(self) -> tuple[Label, ...]:
        vals = self.eng.values
        return tuple(vals[v] for v in self.placed)


# ------------------------------------------------------------- level 0: singles
def _hidden_single(eng: _Engine, st: _State) -> Step | None:
    pending = st.dirty[_HS]
    if not pending:
        return None
    doms, placed = st.doms, st.placed
    for u in sorted(pending):
        unit = eng.units[u]
        need = st.need[u]
        if unit.partial or not need:
            pending.discard(u)
            continue
        once = twice = 0
        for c in unit.cells:
            if placed[c] < 0:
                d = doms[c]
                twice |= once & d
                once |= d
        missing = need & ~once
        if missing:
            v = _low(missing)
            raise Contradiction(f"{eng.label(v)} has no place left in {unit.name}")
        rem = st.rem[u]
        if unit.simple:
            single = need & ~twice
            if single:
                v = _low(single)
                bit = 1 << v
                cell = next(c for c in unit.cells if placed[c] < 0 and doms[c] & bit)
                return _hidden_step(eng, unit, v, (cell,))
        else:
            for v in _bits(need):
                bit = 1 << v
                where = tuple(c for c in unit.cells if placed[c] < 0 and doms[c] & bit)
                if len(where) < rem[v]:
                    raise Contradiction(f"{eng.label(v)} needs {rem[v]} more places in "
                                        f"{unit.name}, has {len(where)}")
                if len(where) == rem[v]:
                    return _hidden_step(eng, unit, v, where)
        pending.discard(u)
    return None


def _hidden_step(eng: _Engine, unit: _Unit, v: int, cells: tuple[int, ...]) -> Step:
    label = eng.values[v]

    def why() -> str:
        where = ",".join(eng.cell_name(c) for c in cells)
        only = "only fits" if len(cells) == 1 else f"needs {len(cells)} more places and only fits"
        return f"hidden single: {label} {only} {where} in {unit.name} → place {label}"

    return Step("hidden-single", 0, tuple((c, label) for c in cells), (),
                premises=unit.cells, _why=why)


def _naked_single(eng: _Engine, st: _State) -> Step | None:
    pending = st.singles
    if not pending:
        return None
    doms, placed = st.doms, st.placed
    for c in sorted(pending):
        if placed[c] >= 0:
            pending.discard(c)
            continue
        d = doms[c]
        if not d:
            raise Contradiction(f"{eng.cell_name(c)} has no label left")
        label = eng.values[_low(d)]
        return Step("naked-single", 0, ((c, label),), (), premises=(c,),
                    _why=_lazy(lambda c, label: f"naked single: {eng.cell_name(c)} can only be "
                               f"{label} → place {label}", c, label))
    return None


# -------------------------------------------------------- relations (levels 1-2)
def _lazy(fn: Callable[..., str], *args: Any) -> Callable[[], str]:
    """A reason formatted only when read (rating needs the steps, rarely their words)."""
    return partial(fn, *args)


def _elim_text(eng: _Engine, elims: Sequence[tuple[int, Label]]) -> str:
    by: dict[int, list[str]] = {}
    for c, label in elims:
        by.setdefault(c, []).append(str(label))
    return ", ".join(f"{eng.cell_name(c)} loses {' '.join(ls)}" for c, ls in by.items())


def _elims(eng: _Engine, pairs: Iterable[tuple[int, int]]) -> tuple[tuple[int, Label], ...]:
    """(cell, value-mask) -> (cell, label) pairs."""
    vals = eng.values
    return tuple((c, vals[v]) for c, mask in pairs for v in _bits(mask))


def _less_bounds(eng: _Engine, st: _State) -> Step | None:
    pending = st.dirty[_LB]
    if not pending:
        return None
    doms = st.doms
    less = eng.less
    for k in sorted(pending):
        a, b = less[k]
        da, db = doms[a], doms[b]
        if da and db:
            lo = _low(da)
            hi = db.bit_length() - 1
            cut_b = db & ((1 << (lo + 1)) - 1)
            cut_a = da & ~((1 << hi) - 1)
            if cut_a or cut_b:
                elims = _elims(eng, [(b, cut_b), (a, cut_a)])

                def why(a: int = a, b: int = b, lo: int = lo, hi: int = hi,
                        cut_a: int = cut_a, cut_b: int = cut_b,
                        elims: tuple[tuple[int, Label], ...] = elims) -> str:
                    na, nb = eng.cell_name(a), eng.cell_name(b)
                    parts = []
                    if cut_b:
                        parts.append(f"min {na} = {eng.label(lo)}")
                    if cut_a:
                        parts.append(f"max {nb} = {eng.label(hi)}")
                    return f"less-bounds: {na} < {nb}, {', '.join(parts)} → {_elim_text(eng, elims)}"

                return Step("less-bounds", 1, (), elims, premises=(a, b), _why=why)
        pending.discard(k)
    return None


def _rel_text(kind: str) -> str:
    return {"consecutive": "are consecutive", "nonconsecutive": "are not consecutive",
            "ratio": "are in ratio 1:2",
            "nodot": "are neither consecutive nor in ratio 1:2"}.get(kind, f"are related by {kind}")


def _fc(eng: _Engine, st: _State, tech: str) -> Step | None:
    pending = st.dirty[_FC_C if tech == "consecutive" else _FC_R]
    if not pending:
        return None
    doms, placed = st.doms, st.placed
    for k in sorted(pending):
        a, b, fwd, bwd, ne, kind, group = eng.rels[k]
        if group != tech:
            pending.discard(k)
            continue
        for src, dst, table in ((a, b, fwd), (b, a, bwd)):
            v = placed[src]
            if v < 0 or placed[dst] >= 0:
                continue
            keep = table[v]
            if (ne >> v) & 1:
                keep &= ~(1 << v)
            cut = doms[dst] & ~keep
            if cut:
                elims = _elims(eng, [(dst, cut)])
                name = f"{tech}-fc"
                return Step(name, 1, (), elims, premises=(src, dst),
                            _why=_lazy(lambda src, dst, v, kind, elims, name:
                                       f"{name}: {eng.cell_name(src)} = {eng.label(v)} and "
                                       f"{eng.cell_name(dst)} {_rel_text(kind)} → "
                                       f"{_elim_text(eng, elims)}", src, dst, v, kind, elims, name))
        pending.discard(k)
    return None


def _fc_consecutive(eng: _Engine, st: _State) -> Step | None:
    return _fc(eng, st, "consecutive")


def _fc_other(eng: _Engine, st: _State) -> Step | None:
    return _fc(eng, st, "relation")


def _ac(eng: _Engine, st: _State, tech: str) -> Step | None:
    pending = st.dirty[_AC_C if tech == "consecutive" else _AC_R]
    if not pending:
        return None
    doms = st.doms
    for k in sorted(pending):
        a, b, fwd, bwd, ne, kind, group = eng.rels[k]
        if group != tech:
            pending.discard(k)
            continue
        for src, dst, table in ((a, b, fwd), (b, a, bwd)):
            ds = doms[src]
            supp = 0
            m = ds
            while m:
                low = m & -m
                v = low.bit_length() - 1
                supp |= table[v] & ~low if (ne >> v) & 1 else table[v]
                m ^= low
            cut = doms[dst] & ~supp
            if cut:
                elims = _elims(eng, [(dst, cut)])
                name = f"{tech}-ac"
                return Step(name, 2, (), elims, premises=(src, dst),
                            _why=_lazy(lambda src, dst, ds, kind, elims, name:
                                       f"{name}: {eng.cell_name(src)} ∈ {{{eng.labels(ds)}}} and "
                                       f"{eng.cell_name(dst)} {_rel_text(kind)} → "
                                       f"{_elim_text(eng, elims)}", src, dst, ds, kind, elims, name))
        pending.discard(k)
    return None


def _ac_consecutive(eng: _Engine, st: _State) -> Step | None:
    return _ac(eng, st, "consecutive")


def _ac_other(eng: _Engine, st: _State) -> Step | None:
    return _ac(eng, st, "relation")


def _cage(eng: _Engine, st: _State) -> Step | None:
    """Each cell of a cage keeps the labels it takes in some assignment of
    pairwise different labels with the cage's sum that fits the domains."""
    pending = st.dirty[_CAGE]
    doms = st.doms
    for k in sorted(pending):
        cells, combos, total = eng.cages[k]
        ds = [doms[c] for c in cells]
        keep = [0] * len(cells)
        fits = []
        for combo in combos:
            sub = [d & combo for d in ds]
            if not all(sub):
                continue
            try:
                kept = _gac_edges(sub, [1 if (combo >> v) & 1 else 0 for v in range(eng.nv)])
            except NoMatching:
                continue
            fits.append(combo)
            for i, m in enumerate(kept):
                keep[i] |= m
        cut = [(c, d & ~kp) for c, d, kp in zip(cells, ds, keep, strict=True) if d & ~kp]
        if cut:
            elims = _elims(eng, cut)
            return Step("cage", 2, (), elims, premises=cells,
                        _why=_lazy(_cage_text, eng, cells, total, fits, elims))
        pending.discard(k)
    return None


def _cage_text(eng: _Engine, cells: Sequence[int], total: int, fits: Sequence[int],
               elims: Sequence[tuple[int, Label]]) -> str:
    sets = " or ".join("{" + eng.labels(m) + "}" for m in fits[:4])
    if len(fits) > 4:
        sets += f" (or {len(fits) - 4} more)"
    what = f"only {sets} fit" + ("s" if len(fits) == 1 else "") if fits else "no set fits"
    return (f"cage: [{','.join(eng.cell_name(c) for c in cells)}] adds up to {total} with "
            f"different labels; {what} → {_elim_text(eng, elims)}")


# ------------------------------------------------------------ matching (GAC)
def _hall_sets(doms: Sequence[int], caps: Sequence[int]
               ) -> tuple[int, list[int], list[tuple[int, int]]] | None:
    """The smallest Hall set whose rights other left nodes must give up.

    From a saturating matching, right r *reaches* right q when an alternating
    path leads from r to q (r -> a left node matched to r -> another right of
    that node -> ...). An edge (left j, right r) lies in some saturating
    matching (Berge) exactly when j is matched to r, or r reaches j's partner
    (an alternating cycle), or r reaches a right with spare capacity (an
    alternating path). When it lies in none, the rights R that r reaches and
    the left nodes matched into R form a tight Hall set: those left nodes have
    no candidates outside R, so every other left node loses R. Repeating the
    step reaches generalized arc consistency.

    Returns:
        ``(rights R, lefts matched into R, [(left, removed rights mask)])`` or
        None when every edge lies in some saturating matching.

    Raises:
        NoMatching: when no matching saturates the left side.
    """
    mate, owners = _match(doms, caps)
    reach, free = value_reach(doms, caps, owners)
    stuck = 0  # rights that have an edge in no saturating matching
    for j, d in enumerate(doms):
        mj = mate[j]
        m = d & ~(1 << mj)
        while m:
            low = m & -m
            m ^= low
            rr = reach[low.bit_length() - 1]
            if not (rr & free or (rr >> mj) & 1):
                stuck |= low
    if not stuck:
        return None
    best = None
    for r in _bits(stuck):
        rr = reach[r]
        if rr & free:
            continue
        inside = set()
        for q in _bits(rr):
            inside.update(owners[q])
        cuts = [(j, doms[j] & rr) for j in range(len(doms)) if j not in inside and doms[j] & rr]
        if cuts and (best is None or len(inside) < best[0]):
            best = (len(inside), rr, sorted(inside), cuts)
    assert best is not None
    return best[1], best[2], best[3]


def _gac_edges(doms: Sequence[int], caps: Sequence[int]) -> list[int]:
    """The domains reduced to the edges that lie in some saturating matching."""
    out = list(doms)
    while True:
        found = _hall_sets(out, caps)
        if found is None:
            return out
        for j, cut in found[2]:
            out[j] &= ~cut


# ----------------------------------------------------------- level 2: subsets
def _subset(eng: _Engine, st: _State) -> Step | None:
    pending = st.dirty[_SUB]
    if not pending:
        return None
    doms, placed = st.doms, st.placed
    for u in sorted(pending):
        unit = eng.units[u]
        cells = [c for c in unit.cells if placed[c] < 0]
        if len(cells) < 2:
            pending.discard(u)
            continue
        ds = [doms[c] for c in cells]
        caps = st.rem[u]
        try:
            found = _hall_sets(ds, caps)
        except NoMatching as exc:
            held = [cells[j] for j in exc.lefts]
            raise Contradiction(
                f"in {unit.name}, {len(held)} cells "
                f"{','.join(eng.cell_name(c) for c in held)} share only the labels "
                f"{{{eng.labels(exc.rights)}}}") from None
        if found is None:
            pending.discard(u)
            continue
        rights, lefts, cuts = found
        inside = tuple(cells[j] for j in lefts)
        elims = _elims(eng, [(cells[j], m) for j, m in cuts])
        outside = tuple(c for c in cells if c not in set(inside))
        values_out = 0
        for c in outside:
            values_out |= doms[c]
        values_out &= ~rights
        hidden = len(outside) < len(inside) and not unit.partial
        size = len(outside) if hidden else len(inside)

        def why(unit: _Unit = unit, inside: tuple[int, ...] = inside,
                outside: tuple[int, ...] = outside, rights: int = rights,
                values_out: int = values_out, hidden: bool = hidden,
                elims: tuple[tuple[int, Label], ...] = elims) -> str:
            if hidden:
                return (f"subset: in {unit.name}, {{{eng.labels(values_out)}}} fit only "
                        f"{','.join(eng.cell_name(c) for c in outside)} → "
                        f"{_elim_text(eng, elims)}")
            return (f"subset: {unit.name} cells {','.join(eng.cell_name(c) for c in inside)} "
                    f"hold {{{eng.labels(rights)}}} → {_elim_text(eng, elims)}")

        return Step("subset", 2, (), elims, size=size, premises=tuple(cells), _why=why)
    return None


def _intersection(eng: _Engine, st: _State) -> Step | None:
    """Pointing / claiming: when asterism A's places for a label all lie in its
    overlap with asterism B, the rest of B loses the label."""
    doms, placed, seen, uver = st.doms, st.placed, st.seen, st.uver
    for k, (a, b, common) in enumerate(eng.inter):
        key = ("int", k)
        ver = uver[a] + uver[b]
        if seen.get(key) == ver:
            continue
        ua, ub = eng.units[a], eng.units[b]
        for v in _bits(st.need[a] & st.need[b]):
            bit = 1 << v
            need_a, need_b = st.rem[a][v], st.rem[b][v]
            if need_a < need_b:
                continue
            if any(placed[c] < 0 and doms[c] & bit for c in ua.cells if c not in common):
                continue
            cut = [(c, bit) for c in ub.cells
                   if c not in common and placed[c] < 0 and doms[c] & bit]
            if cut:
                elims = _elims(eng, cut)
                label = eng.values[v]
                return Step("intersection", 2, (), elims, premises=ua.cells,
                            _why=_lazy(lambda ua, ub, label, elims:
                                       f"intersection: in {ua.name}, {label} lies only where it "
                                       f"meets {ub.name} → {_elim_text(eng, elims)}",
                                       ua, ub, label, elims))
        seen[key] = ver
    return None


# -------------------------------------------------------------- level 3: fish
def _fish(eng: _Engine, st: _State) -> Step | None:
    doms, placed, seen = st.doms, st.placed, st.seen
    for p, (ca, cb, meet) in enumerate(eng.classes):
        for v in _bits(eng.mult1):
            key = ("fish", p, v)
            ver = st.vver[v]
            if seen.get(key) == ver:
                continue
            bit = 1 << v
            lefts = [i for i, u in enumerate(ca) if st.need[u] & bit]
            rights = [j for j, u in enumerate(cb) if st.need[u] & bit]
            if len(lefts) < 2:
                seen[key] = ver
                continue
            rpos = {j: k for k, j in enumerate(rights)}
            ds = []
            for i in lefts:
                m = 0
                row = meet[i]
                for j in rights:
                    c = row[j]
                    if c is not None and placed[c] < 0 and doms[c] & bit:
                        m |= 1 << rpos[j]
                ds.append(m)
            try:
                found = _hall_sets(ds, [1] * len(rights))
            except NoMatching as exc:
                names = ",".join(eng.units[ca[lefts[i]]].name for i in exc.lefts)
                raise Contradiction(f"{eng.label(v)} cannot be placed once in each of {names}"
                                    ) from None
            if found is None:
                seen[key] = ver
                continue
            rmask, lin, cuts = found
            base = [ca[lefts[i]] for i in lin]
            cover = [cb[rights[j]] for j in _bits(rmask)]
            lset = set(lin)
            base_h = [cb[rights[j]] for j in range(len(rights)) if not (rmask >> j) & 1]
            cover_h = [ca[lefts[i]] for i in range(len(lefts)) if i not in lset]
            cells = []
            for i, m in cuts:
                for j in _bits(m):
                    c = meet[lefts[i]][rights[j]]
                    assert c is not None
                    cells.append(c)
            label = eng.values[v]
            elims = tuple((c, label) for c in sorted(cells))
            if len(base_h) < len(base):
                base, cover = base_h, cover_h
            size = len(base)

            def why(base: list[int] = base, cover: list[int] = cover, label: Label = label,
                    cells: list[int] = cells) -> str:
                bn = _names(eng, base)
                cn = _names(eng, cover)
                shown = ",".join(eng.cell_name(c) for c in sorted(cells))
                return (f"fish on {label}: {bn} hold it only in {cn} → {shown} "
                        f"lose{'s' if len(cells) == 1 else ''} {label}")

            return Step("fish", 3, (), elims, size=size, _why=why)
    return None


def _names(eng: _Engine, units: Sequence[int]) -> str:
    """``rows 1,4`` for units of one kind, else their names joined."""
    names = [eng.units[u].name for u in units]
    kinds = {n.split(" ")[0] for n in names}
    if len(kinds) == 1 and all(len(n.split(" ")) == 2 for n in names):
        kind = kinds.pop()
        plural = "boxes" if kind == "box" else kind + "s"
        return f"{plural if len(names) > 1 else kind} {','.join(n.split(' ')[1] for n in names)}"
    return ", ".join(names)


# ----------------------------------------------------- level 3: forcing chains
def _forcing_chain(eng: _Engine, st: _State) -> Step | None:
    """Tatham's bivalue forcing chain (a breadth-first search, exactly his rule).

    For a cell S with two labels and each of them, ``orig``: suppose S is not
    ``orig``, so it holds the other label. A chain cell P forced to hold ``cur``
    visits each unvisited peer Q that still allows ``cur``; a Q with two labels
    joins the chain, forced to its other label. When ``cur == orig`` and Q is
    also a peer of S, Q loses ``orig`` (S or P holds it)."""
    key = ("fc-chain",)
    if st.seen.get(key) == st.tick:
        return None
    doms, placed = st.doms, st.placed
    nbrs, peers = eng.chain_nbrs, eng.peers
    for s in range(eng.n):
        d = doms[s]
        if placed[s] >= 0 or d.bit_count() != 2:
            continue
        speers = peers[s]
        for orig in _bits(d):
            forced = {s: _low(d & ~(1 << orig))}
            parent: dict[int, int] = {}
            queue = [s]
            head = 0
            while head < len(queue):
                p = queue[head]
                head += 1
                cur = forced[p]
                cbit = 1 << cur
                for q in nbrs[p]:
                    if q in forced:
                        continue
                    dq = doms[q]
                    if not dq & cbit:
                        continue
                    if dq.bit_count() == 2:
                        forced[q] = _low(dq & ~cbit)
                        parent[q] = p
                        queue.append(q)
                    if cur == orig and q in speers:
                        path = [p]
                        while path[-1] != s:
                            path.append(parent[path[-1]])
                        path.reverse()
                        label = eng.values[orig]
                        chain = tuple(path)
                        vals = tuple(forced[c] for c in chain)
                        return Step("forcing-chain", 3, (), ((q, label),), size=len(chain),
                                    premises=chain,
                                    _why=_lazy(_chain_text, eng, chain, vals, q, label))
    st.seen[key] = st.tick
    return None


def _chain_text(eng: _Engine, chain: Sequence[int], vals: Sequence[int], q: int,
                label: Label) -> str:
    start = chain[0]
    links = " → ".join(f"{eng.cell_name(c)}={eng.label(v)}" for c, v in zip(chain, vals, strict=True))
    return (f"forcing chain on {label}: if {eng.cell_name(start)} is not {label}, then {links}; "
            f"{eng.cell_name(q)} sees {eng.cell_name(start)} and {eng.cell_name(chain[-1])} "
            f"→ {eng.cell_name(q)} loses {label}")


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
    state: _State | None = None


def _validate(eng: _Engine, st: _State) -> str | None:
    """Why a full grid breaks a relation (the final check), or None."""
    placed = st.placed
    for r in eng.model.relations:
        labels = [eng.values[placed[c]] for c in r.cells]
        if not r.holds(labels):
            shown = ", ".join(eng.cell_name(c) for c in r.cells)
            return f"the full grid breaks {r.kind}({shown})"
    return None


def _fixpoint(eng: _Engine, st: _State, maxlevel: int, steps: list[Step]) -> int:
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


def _solve(eng: _Engine, st: _State, maxlevel: int) -> _Outcome:
    """Solve from ``st`` with the techniques up to ``maxlevel``; guess at level 4.

    When the techniques up to extreme stall, the number of solutions (0, 1, or
    2 and more) decides the status; it comes from a complete backend
    (:func:`futocp.puzzles.counting_backend`), or from the engine's own search
    when none can hold the model. A unique puzzle is then finished by
    guesses (:func:`_guided`), each refuting a wrong label or taking the solution's.
    """
    steps: list[Step] = []
    try:
        used = _fixpoint(eng, st, maxlevel, steps)
        if not st.left:
            bad = _validate(eng, st)
            if bad:
                raise Contradiction(bad)
    except Contradiction as exc:
        return _Outcome("impossible", 0, steps, [], reason=exc.reason, state=st)
    if not st.left:
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


def _solutions(eng: _Engine, st: _State, limit: int = 2) -> list[tuple[Label, ...]]:
    """Up to ``limit`` solutions of the engine's board: a complete backend
    (:func:`futocp.puzzles.counting_backend`, or one of :data:`_FALLBACK_BACKENDS`
    when it refuses the model), else the engine's own search from ``st``. The
    backend chosen for a kind of model is remembered (choosing probes every
    backend's availability)."""
    from .backends import get_backend  # a backend, only when guessing is needed
    from .puzzles import counting_backend

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


def _search(eng: _Engine, st: _State, limit: int, found: list[tuple[Label, ...]]) -> None:
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
    for v in _bits(doms[cell]):
        sub = st.copy()
        try:
            sub.place(cell, v)
        except Contradiction:
            continue
        _search(eng, sub, limit, found)
        if len(found) >= limit:
            return


def _probe(eng: _Engine, st: _State, cell: int, v: int) -> tuple[list[Step], str] | None:
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


def _guided(eng: _Engine, st: _State, sol: Sequence[int], steps: list[Step]) -> int:
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
        for v in _bits(doms[cell] & ~(1 << right)):
            probed = _probe(eng, st, cell, v)
            if probed is not None:
                sub, reason = probed
                n = len(sub)
                step = Step("guess", 4, (), ((cell, vals[v]),), premises=(cell,), sub=tuple(sub),
                            _why=_lazy(lambda cell, v, reason, n:
                                       f"guess {eng.cell_name(cell)} = {eng.label(v)}: after {n} "
                                       f"step{'' if n == 1 else 's'}, {reason} → "
                                       f"{eng.cell_name(cell)} loses {eng.label(v)}",
                                       cell, v, reason, n))
                break
            tried.append(v)
        if step is None:
            others = " ".join(eng.label(v) for v in tried)
            step = Step("guess", 4, ((cell, vals[right]),), (), premises=(cell,),
                        _why=_lazy(lambda cell, others, right:
                                   f"guess {eng.cell_name(cell)} = {eng.label(right)}: no technique "
                                   f"applies, and {others} fail{'s' if ' ' not in others else ''} "
                                   f"only after more guessing; the only solution (found by "
                                   f"search) has {eng.label(right)} there", cell, others, right))
        guesses += 1
        steps.append(step)
        st.apply(step)


def _start(eng: _Engine) -> _State:
    """The givens placed (Tatham: the grid of givens, every label possible elsewhere).

    Raises:
        Contradiction: when the givens clash.
    """
    st = _State(eng)
    clash = _clue_clash(eng)
    if clash:
        raise Contradiction(clash)
    if eng.model.conflict:
        raise Contradiction(eng.model.conflict)
    for fx in eng.model.fixed:
        st.place(fx.cell, fx.value)
    return st


def _clue_clash(eng: _Engine) -> str | None:
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


def _engine(board: Board, scale: str | None, techniques: Sequence[str] | None) -> _Engine:
    scale = scale or default_scale(board)
    if scale not in SCALES:
        raise UsageError(f"unknown scale {scale!r}; choose one of {', '.join(SCALES)}")
    if scale == "tatham" and not _is_tatham_board(board):
        raise UsageError("the tatham scale rates n x n Futoshiki and Latin squares (labels "
                         "1..n, rows and columns, relations less / consecutive / "
                         "nonconsecutive); use --scale general for this board")
    return _Engine(build_model(board, filtering="none"), scale, techniques)


def _score(steps: Iterable[Step], weights: Mapping[str, tuple[float, float]]) -> float:
    total = 0.0
    for s in _walk(steps):
        base, per = weights.get(s.technique, (1, 0))
        total += base + per * s.size
    return total


def rate(board: Board, scale: str | None = None, *,
         weights: Mapping[str, tuple[float, float]] | None = None,
         techniques: Sequence[str] | None = None, max_level: int | str = 4) -> Rating:
    """Rate a puzzle: its grade, status, proof, score and counts.

    Args:
        board: The puzzle.
        scale: ``tatham`` or ``general`` (default: :func:`default_scale`).
        weights: Score weights per technique, ``(base, per size)``; merged over
            :data:`WEIGHTS`.
        techniques: The techniques to use, in the order tried within a level
            (default: every technique of the scale). Leaving some out gives the
            ablations of the tests; without ``guess``, a puzzle the others do
            not solve is ``unfinished``.
        max_level: Stop at this level (a name or index): the rating of the
            level's closure (``unfinished`` when it does not solve the puzzle).

    Returns:
        The :class:`Rating`.

    Raises:
        UsageError: for an unknown scale or technique, or the tatham scale on a
            board it does not cover.
    """
    t0 = time.perf_counter()
    eng = _engine(board, scale, techniques)
    maxlevel = _level_index(max_level)
    wts = dict(WEIGHTS)
    wts.update(weights or {})
    try:
        st = _start(eng)
    except Contradiction as exc:
        out = _Outcome("impossible", 0, [], [], reason=exc.reason)
    else:
        out = _solve(eng, st, maxlevel)
    counts = Counter(s.technique for s in _walk(out.steps))
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
    doms = tuple(tuple(vals[v] for v in _bits(d)) for d in st.doms)
    return Closure(lvl, status, used, doms, tuple(steps), reason)


def replay(board: Board, steps: Sequence[Step], scale: str | None = None
           ) -> tuple[tuple[Label, ...], ...]:
    """The labels still possible per cell after applying ``steps`` from the givens
    (placements also remove their label from the cell's asterisms).

    Raises:
        Contradiction: when a step empties a cell or places a struck label.
    """
    eng = _engine(board, scale, None)
    st = _start(eng)
    for step in steps:
        st.apply(step)
    vals = eng.values
    return tuple(tuple(vals[v] for v in _bits(d)) for d in st.doms)


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
    """

    status: str
    step: Step | None
    wrong: tuple[int, Label] | None
    reason: str
    board: Board = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``status``, ``step``, ``wrong``, ``reason``."""
        return {"status": self.status,
                "step": self.step.as_dict(self.board) if self.step else None,
                "wrong": _ref(self.board, *self.wrong) if self.wrong else None,
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
        return Hint("solved", None, None, "every cell is filled in, correctly", current)
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


# ------------------------------------------------------------------ printing
def explain_lines(steps: Sequence[Step], numbered: bool = True) -> list[str]:
    """The proof as text lines: one step per line, a guess's refuted trial
    indented under it (``|`` per level)."""
    out: list[str] = []

    def walk(seq: Sequence[Step], depth: int) -> None:
        for k, s in enumerate(seq, 1):
            lead = "    " * depth + ("| " if depth else "")
            num = f"{k:>3}. " if numbered and depth == 0 else ""
            out.append(f"{lead}{num}[{LEVELS[s.level]}] {s.reason}")
            if s.sub:
                walk(s.sub, depth + 1)

    walk(steps, 0)
    return out


def format_rating(r: Rating, name: str) -> list[str]:
    """The text ``futocp rate`` prints for one puzzle."""
    asked = r.board.param_map.get("grade")
    head = f"{name}: {r.grade or r.status}"
    if r.grade:
        head += f" ({r.scale} scale)"
    if asked:
        head += f", the file says {LETTERS.get(asked, asked)}"
    lines = [head,
             f"  status {r.status}, score {r.score:g}, guesses {r.guesses}, "
             f"{len(r.steps)} steps, {r.time_s * 1000:.1f} ms"]
    if r.reason:
        lines.append(f"  {r.reason}")
    if r.counts:
        lines.append("  counts: " + ", ".join(f"{t} {n}" for t, n in sorted(
            r.counts.items(), key=lambda kv: list(TECHNIQUES).index(kv[0]))))
    used = [t for t in TECHNIQUES if t in r.counts]
    if used:
        lines.append("  weights (base + per size): " + ", ".join(
            f"{t} {_show_weight(r.weights[t])}" for t in used))
    return lines


def _show_weight(w: tuple[float, float]) -> str:
    base, per = w
    return f"{base:g}" if not per else f"{base:g}+{per:g}/size"


def format_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """A table of per-puzzle records (``index``, ``grade``, ``status``, ``score``,
    ``guesses``, ``time_s``) and a histogram of the grades."""
    head = ["#", "grade", "status", "score", "guesses", "ms"]
    body = [[str(r["index"]), str(r["grade"] or "-"), r["status"], f"{r['score']:g}",
             str(r["guesses"]), f"{r['time_s'] * 1000:.1f}"] for r in rows]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i in (0, 3, 4, 5) else c.ljust(w)
                       for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in [head, *body]]
    counts = Counter(r["grade"] or r["status"] for r in rows)
    lines.append("")
    lines.append(f"{len(rows)} puzzles")
    keys = [g for g in LEVELS if g in counts] + sorted(k for k in counts if k not in LEVELS)
    top = max(counts.values()) if counts else 1
    for g in keys:
        bar = "#" * max(1, round(40 * counts[g] / top))
        lines.append(f"  {g:<10} {counts[g]:>5}  {bar}")
    return lines
