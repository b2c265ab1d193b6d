"""The rating engine's data: levels, techniques, steps, ratings, and the solving state.

:class:`Engine` is the static structure of one model on one scale (units,
peers, relations, the technique schedule); :class:`State` is the mutable
solving state the techniques (:mod:`futocp.rating.techniques`) read and the
driver (:mod:`futocp.rating.solve`) changes. ``docs/rating.md`` describes
the scheme.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..board import Board, Label
from ..errors import UsageError
from ..model import Model
from ..propagate import bits

__all__ = [
    "LEVELS", "SCALES", "LETTERS", "STATUSES", "TECHNIQUES", "WEIGHTS", "CONSECUTIVE",
    "DEP_HS", "DEP_SUB", "DEP_LB", "DEP_FC_C", "DEP_FC_R", "DEP_AC_C", "DEP_AC_R", "DEP_CAGE",
    "Contradiction", "Step", "Rating", "Technique", "Unit", "Engine", "State", "walk_steps",
    "is_tatham_board", "default_scale", "level_of", "techniques_of", "cell_ref",
    "forcing_chain",
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

CONSECUTIVE = ("consecutive", "nonconsecutive")
# consumers of the state's change sets
DEP_HS, DEP_SUB, DEP_LB, DEP_FC_C, DEP_FC_R, DEP_AC_C, DEP_AC_R, DEP_CAGE = range(8)


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

    def as_dict(self, board: Board, grades: Sequence[str] = LEVELS) -> dict[str, Any]:
        """``{"technique", "level", "place", "eliminate", "reason"}``; cells as
        ``[row, col, label]`` (``[cell, label]`` on boards without a grid); the
        level named by ``grades`` (the scale's grades)."""
        return {"technique": self.technique, "level": grades[self.level],
                "place": [cell_ref(board, c, v) for c, v in self.place],
                "eliminate": [cell_ref(board, c, v) for c, v in self.eliminate],
                "reason": self.reason}


def cell_ref(board: Board, cell: int, label: Label) -> list[Any]:
    if board.shape is not None:
        r, c = board.coords(cell)
        return [r, c, label]
    return [cell, label]


def forcing_chain(start: int, orig: int, lists: Sequence[int],
                  nbrs: Sequence[Sequence[int]], sees: Callable[[int], bool]
                  ) -> tuple[int, list[int], list[int]] | None:
    """The first forcing chain that takes ``orig`` from a cell (solo.c's and
    latin.c's forcing chains, in their order).

    Suppose ``start`` (a cell of two labels, ``lists[start]``) is not ``orig``,
    so it holds its other label. Breadth first, a chain cell P forced to hold a
    label visits each unvisited neighbour Q (``nbrs[P]``) whose list still has
    it; a Q of two labels joins the chain, forced to its other one. When P's
    label is ``orig`` and ``sees(Q)`` (Q is a peer of ``start``), Q cannot hold
    ``orig``: ``start`` or P does.

    Returns:
        ``(Q, the chain from start to P, the label each chain cell is forced to)``,
        or None.
    """
    both = lists[start]
    forced = {start: (both & ~(1 << orig)).bit_length() - 1}
    parent = {start: -1}
    queue = [start]
    head = 0
    while head < len(queue):
        p = queue[head]
        head += 1
        cur = forced[p]
        cbit = 1 << cur
        for q in nbrs[p]:
            if q in forced:
                continue
            lq = lists[q]
            if not lq & cbit:
                continue
            if lq.bit_count() == 2:
                forced[q] = (lq & ~cbit).bit_length() - 1
                parent[q] = p
                queue.append(q)
            if cur == orig and sees(q):
                chain = [p]
                while parent[chain[-1]] >= 0:
                    chain.append(parent[chain[-1]])
                chain.reverse()
                return q, chain, [forced[c] for c in chain]
    return None


def walk_steps(steps: Iterable[Step]) -> Iterable[Step]:
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
        grade: The scale's grade, lower-case (``trivial``, ``easy``, ``tricky``,
            ``extreme`` or ``recursive`` on the tatham and general scales; a game
            scale's own, :mod:`futocp.rating.games`); None unless ``status`` is
            ``solved``.
        level: The grade's index in :attr:`grades` (None with the grade).
        status: ``solved`` (exactly one solution), ``ambiguous`` (two or more),
            ``impossible`` (none) or ``unfinished`` (only when the allowed
            techniques leave out ``guess``).
        scale: ``tatham``, ``general`` or a game scale (``keen``, ``towers``...).
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
        grades: The scale's grades (``level`` and the steps' levels index them).
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
    grades: tuple[str, ...] = LEVELS

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no steps)."""
        return {"grade": self.grade, "status": self.status, "scale": self.scale,
                "score": self.score, "counts": dict(self.counts), "guesses": self.guesses,
                "depth": self.depth, "time_s": round(self.time_s, 6),
                "weights": {k: list(v) for k, v in self.weights.items()}}

    def explain_dict(self, steps: Sequence[Step] | None = None) -> dict[str, Any]:
        """``{"grade": ..., "steps": [...]}`` as ``futocp explain --json`` prints it."""
        chosen = self.steps if steps is None else steps
        return {"grade": self.grade,
                "steps": [s.as_dict(self.board, self.grades) for s in chosen]}


# -------------------------------------------------------------------- engine
def is_tatham_board(board: Board) -> bool:
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
    return board.relation_kinds <= {"less", *CONSECUTIVE}


def default_scale(board: Board) -> str:
    """The engine's scale: ``tatham`` for n x n Futoshiki and Latin squares (either
    mode), else ``general``. (:func:`~futocp.rating.rate` rates a board one of
    Tatham's other games covers on that game's scale first.)"""
    return "tatham" if is_tatham_board(board) else "general"


def level_of(technique: str, scale: str) -> int | None:
    """The level of a technique on a scale (None: not on that scale)."""
    tat, gen = TECHNIQUES[technique]
    return tat if scale == "tatham" else gen


def techniques_of(scale: str) -> tuple[str, ...]:
    """The techniques of a scale, in the order tried."""
    return tuple(t for t in TECHNIQUES if level_of(t, scale) is not None)


class Unit:
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


class Engine:
    """The static structure of one model on one scale."""

    def __init__(self, model: Model, scale: str, techniques: Sequence[str] | None,
                 funcs: Mapping[str, Technique]) -> None:
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
        self._schedule(scale, techniques, funcs)

    def _geometry(self, model: Model) -> dict[str, Any]:
        """What depends only on the asterisms, labels and cages (cached across boards)."""
        board, nv = self.board, self.nv
        # units: the asterisms (groups), then the cages' all-different groups
        units: list[Unit] = []
        names = board.asterism_names  # the model's groups are the asterisms, in order
        for (cells, counts), name in zip(model.groups, names, strict=True):
            caps = tuple([1] * nv) if counts is None else tuple(counts)
            units.append(Unit(tuple(cells), caps, False, name))
        self.n_groups = len(units)
        if not self.tatham:
            for k, con in enumerate(model.all_different):
                shown = ",".join(self.cell_name(c) for c in con.cells)
                units.append(Unit(tuple(con.cells), tuple([1] * nv), True, f"cage {k} [{shown}]"))
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
            tech = "consecutive" if r.kind in CONSECUTIVE else "relation"
            rels.append((r.a, r.b, fwd, bwd, ne, r.kind, tech))
        self.rels = tuple(rels)
        self.cages = tuple((tuple(r.cells), model.combinations(r), r.param_map.get("sum"))
                           for r in model.cages) if not self.tatham else ()
        self._dependencies()

    def _schedule(self, scale: str, techniques: Sequence[str] | None,
                  funcs: Mapping[str, Technique]) -> None:
        """The techniques per level, in the order tried (``funcs``: name -> rule)."""
        allowed = techniques_of(scale)
        chosen = list(allowed) if techniques is None else list(techniques)
        for t in chosen:
            if t not in TECHNIQUES:
                raise UsageError(f"unknown technique {t!r} (known: {', '.join(TECHNIQUES)})")
            if t not in allowed:
                raise UsageError(f"technique {t!r} is not on the {scale} scale")
        self.allow_guess = "guess" in chosen
        levels: list[list[Technique]] = [[] for _ in range(4)]
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
        table = [(DEP_HS, units), (DEP_SUB, units), (DEP_LB, less),
                 (DEP_FC_C, rels["consecutive"]), (DEP_FC_R, rels["relation"]),
                 (DEP_AC_C, rels["consecutive"]), (DEP_AC_R, rels["relation"]), (DEP_CAGE, cages)]
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
        return " ".join(self.label(v) for v in bits(mask))

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


def _peer_sets(n: int, units: Sequence[Unit]) -> list[set[int]]:
    out: list[set[int]] = [set() for _ in range(n)]
    for unit in units:
        for c in unit.cells:
            out[c].update(unit.cells)
    for c in range(n):
        out[c].discard(c)
    return out


# --------------------------------------------------------------------- state
class State:
    """The mutable solving state: domains, placements, remaining counts, and
    what changed since each technique last looked (so that a restart at the
    cheapest level costs little)."""

    __slots__ = ("eng", "doms", "placed", "rem", "need", "left", "uver", "vver", "tick",
                 "seen", "dirty", "singles")

    def __init__(self, eng: Engine) -> None:
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
        # per consumer (see Engine.deps), the items to look at again
        self.dirty = [set(range(size)) for size in eng.dep_sizes]
        self.singles: set[int] = set()

    def copy(self) -> State:
        new = State.__new__(State)
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



Technique = Callable[[Engine, State], "Step | None"]
"""A deduction rule: the next step it finds in a state, or None."""
