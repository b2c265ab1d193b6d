"""The one puzzle type: a Latin board.

A *Latin board* (seed 003) is a set of cells grouped in *asterisms*, all of the
same size k, and a label *multiset* of size k that every asterism must hold
exactly. A puzzle adds *clues* (cell -> label), an optional *inscription* (the
clues that belong to the definition and are never removed) and *relations*
(:class:`~futocp.relations.Relation`: ``less``, ``consecutive``, ``cage``...,
kinds from the registry :mod:`futocp.relations`). ``less=`` pairs are
accepted by the constructor as a shorthand for ``less`` relations, and
:attr:`Board.less` gives them back as pairs.

Futoshiki and Latin squares are the special case of an n x n grid whose
asterisms are its rows and columns with the multiset 1..n; :mod:`futocp.families`
builds them. Grid boards keep their shape (cell = row * cols + col) so that
they print as grids.

Example:
    >>> b = Board(n_cells=4, asterisms=((0, 1), (2, 3), (0, 2), (1, 3)), labels=(1, 2),
    ...           clues=((0, 1),), shape=(2, 2), kind="latin-square")
    >>> b.values, b.clue_map, b.coords(3)
    ((1, 2), {0: 1}, (1, 1))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from .errors import BoardError
from .relations import Relation, get_kind

__all__ = ["Board", "Label", "Relation", "label_sort_key", "declare_metadata", "metadata_keys",
           "grid_neighbour_pairs"]

Label = int | str

_METADATA: dict[str, frozenset[str]] = {}


def declare_metadata(kind: str, keys: Iterable[str]) -> None:
    """Declare the parameters of boards of ``kind`` that describe the puzzle, not the board.

    Tatham's ``grade`` rates a puzzle's clues: a board whose clues change
    (:meth:`Board.with_clues`, :meth:`Board.without_clue`, :meth:`Board.solved`
    -- a solution, a minimized or generated puzzle) no longer has it, so the copy
    drops it. :mod:`futocp.families` declares the ``metadata: true`` parameters of
    every family file.

    Example:
        >>> declare_metadata("demo", ["grade"])
        >>> b = Board(2, ((0, 1),), (1, 2), kind="demo", params=(("grade", "k"),))
        >>> b.with_clues({0: 1}).params, b.with_clues({}).params
        ((), (('grade', 'k'),))
        >>> declare_metadata("demo", [])
    """
    if keys := frozenset(keys):
        _METADATA[kind] = keys
    else:
        _METADATA.pop(kind, None)


def metadata_keys(kind: str) -> frozenset[str]:
    """The parameters of boards of ``kind`` that describe the puzzle (:func:`declare_metadata`)."""
    return _METADATA.get(kind, frozenset())


def label_sort_key(label: Label) -> tuple[int, Any]:
    """Order integers before strings, each in its natural order."""
    return (0, label) if isinstance(label, int) else (1, label)


def grid_neighbour_pairs(rows: int, cols: int) -> list[tuple[int, int]]:
    """Every pair ``(a, b)``, ``a < b``, of orthogonal neighbours of a ``rows`` x
    ``cols`` grid (cell = row * cols + col), cell by cell, each cell's right
    neighbour before the one below (seeded generators draw from this order).

    Example:
        >>> grid_neighbour_pairs(2, 2)
        [(0, 1), (0, 2), (1, 3), (2, 3)]
    """
    out = []
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            if c + 1 < cols:
                out.append((cell, cell + 1))
            if r + 1 < rows:
                out.append((cell, cell + cols))
    return out


def _is_label(x: object) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, str) and x != "")


@dataclass(frozen=True, init=False)
class Board:
    """An immutable, hashable Latin board.

    Attributes:
        n_cells: Number of cells, numbered ``0 .. n_cells - 1``.
        asterisms: Groups of cells; every one has ``len(labels)`` cells.
        labels: The label multiset every asterism holds, sorted.
        clues: ``(cell, label)`` pairs, sorted by cell, one per cell at most.
        inscription: Clue cells that are part of the definition (never removed).
        relations: The relations, sorted (kinds from :mod:`futocp.relations`).
        shape: ``(rows, cols)`` for grid boards, where cell = row * cols + col.
        kind: The family name (``"futoshiki"``, ``"latin-square"``, ``"board"``, ...).
        params: Family parameters as sorted ``(key, value)`` pairs (hashable values).

    The constructor also takes ``less``: ``(a, b)`` pairs meaning label(a) <
    label(b), which replace the ``less`` relations of ``relations``.
    """

    n_cells: int
    asterisms: tuple[tuple[int, ...], ...]
    labels: tuple[Label, ...]
    clues: tuple[tuple[int, Label], ...]
    inscription: frozenset[int]
    relations: tuple[Relation, ...]
    shape: tuple[int, int] | None
    kind: str
    params: tuple[tuple[str, Any], ...]

    def __init__(self, n_cells: int, asterisms: Iterable[Iterable[int]],
                 labels: Iterable[Label], clues: Iterable[tuple[int, Label]] = (),
                 inscription: Iterable[int] = frozenset(),
                 relations: Iterable[Relation] = (),
                 shape: tuple[int, int] | None = None, kind: str = "board",
                 params: Iterable[tuple[str, Any]] = (),
                 less: Iterable[tuple[int, int]] | None = None) -> None:
        set_ = object.__setattr__
        set_(self, "n_cells", n_cells)
        set_(self, "asterisms", tuple(tuple(a) for a in asterisms))
        set_(self, "labels", tuple(sorted(labels, key=label_sort_key)))
        set_(self, "clues", tuple(sorted((int(c), v) for c, v in clues)))
        set_(self, "inscription", frozenset(inscription))
        rels = list(relations)
        if less is not None:
            rels = [r for r in rels if r.kind != "less"]
            rels += [Relation("less", (int(a), int(b))) for a, b in less]
        set_(self, "relations", tuple(sorted({_normal(r) for r in rels})))
        set_(self, "shape", None if shape is None else (int(shape[0]), int(shape[1])))
        set_(self, "kind", kind)
        set_(self, "params", tuple(sorted(params)))
        self._validate()

    # ----------------------------------------------------------------- checks
    def _validate(self) -> None:
        n = self.n_cells
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise BoardError(f"a board needs at least one cell, got n_cells={n!r}")
        if self.shape is not None and self.shape[0] * self.shape[1] != n:
            raise BoardError(f"shape {self.shape} does not have {n} cells")
        k = len(self.labels)
        if k == 0:
            raise BoardError("the label multiset is empty")
        if not all(_is_label(x) for x in self.labels):
            bad = next(x for x in self.labels if not _is_label(x))
            raise BoardError(f"label {bad!r} is neither an integer nor a non-empty string")
        if len({type(x) for x in self.labels}) > 1:
            raise BoardError("labels must be all integers or all strings")
        for i, ast in enumerate(self.asterisms):
            if len(ast) != k:
                raise BoardError(f"asterism {i} has {len(ast)} cells; the multiset has {k} labels",
                                 field="asterisms", index=i)
            if len(set(ast)) != len(ast):
                raise BoardError(f"asterism {i} names a cell twice", field="asterisms", index=i)
            for c in ast:
                if not isinstance(c, int) or not 0 <= c < n:
                    raise BoardError(f"asterism {i} names cell {c}, outside 0..{n - 1}",
                                     field="asterisms", index=i)
        values = set(self.labels)
        seen: set[int] = set()
        for c, v in self.clues:
            if not 0 <= c < n:
                raise BoardError(f"clue on cell {c}, outside 0..{n - 1}", field="clues", cell=c)
            if c in seen:
                raise BoardError(f"cell {c} has two clues", field="clues", cell=c)
            seen.add(c)
            if v not in values:
                raise BoardError(f"clue {v!r} on cell {self._name(c)} is not a label of this board",
                                 field="clues", cell=c)
        if not self.inscription <= seen:
            extra = min(self.inscription - seen)
            raise BoardError(f"inscription names cell {extra}, which has no clue")
        self._validate_relations()

    def _validate_relations(self) -> None:
        n = self.n_cells
        integer_labels = isinstance(self.labels[0], int)
        pairs: dict[tuple[int, ...], str] = {}
        owner: dict[tuple[str, int], Relation] = {}
        for rel in self.relations:
            spec = get_kind(rel.kind)
            what = f"{rel.kind} relation {self._show(rel)}"
            at: dict[str, Any] = {"field": "relations", "relation": rel}
            if spec.integer and not integer_labels:
                raise BoardError(f"{rel.kind} relations need integer labels", **at)
            if spec.arity is not None and len(rel.cells) != spec.arity:
                raise BoardError(f"{what} names {len(rel.cells)} cells; a {rel.kind} names "
                                 f"{spec.arity}", **at)
            if not rel.cells:
                raise BoardError(f"{what} names no cell", **at)
            if len(rel.cells) < spec.min_cells:
                need = "a cell" if spec.min_cells == 1 else f"at least {spec.min_cells} cells"
                raise BoardError(f"{what} needs {need}", **at)
            for c in rel.cells:
                if not isinstance(c, int) or not 0 <= c < n:
                    raise BoardError(f"{what} names cell {c}, outside 0..{n - 1}", **at)
            if len(set(rel.cells)) != len(rel.cells):
                if len(rel.cells) == 2:
                    raise BoardError(f"{rel.kind} relation between cell {self._name(rel.a)} "
                                     "and itself", **at)
                raise BoardError(f"{what} names a cell twice", **at)
            got = set(rel.param_map)
            if got != set(spec.params):
                raise BoardError(f"{what} needs parameters {', '.join(spec.params) or 'none'}", **at)
            words = spec.choice_map
            for pname, value in rel.params:
                if pname in words:
                    if not isinstance(value, str) or value not in words[pname]:
                        raise BoardError(f"{what}: parameter {pname}={value!r} is not one of "
                                         f"{' '.join(words[pname])}", **at)
                elif not isinstance(value, int) or isinstance(value, bool):
                    raise BoardError(f"{what}: parameter {pname}={value!r} is not an integer", **at)
            shape = spec.check(len(rel.cells), rel.param_map) if spec.check else None
            if shape is not None:
                raise BoardError(f"{what}: {shape}", **at)
            if spec.opposite is not None:
                pair = tuple(sorted(rel.cells))
                other = pairs.get(pair)
                if other == spec.opposite:
                    raise BoardError(f"cells {self._show(rel)} are listed as both {other} "
                                     f"and {rel.kind}", **at)
                pairs[pair] = rel.kind
            if spec.exclusive:
                for c in rel.cells:
                    prev = owner.setdefault((rel.kind, c), rel)
                    if prev is not rel:
                        raise BoardError(f"{rel.kind} relations {self._show(prev)} and "
                                         f"{self._show(rel)} overlap on cell {self._name(c)}", **at)
        for spec in {get_kind(r.kind) for r in self.relations if get_kind(r.kind).acyclic}:
            cycle = self._cycle(spec.name)
            if cycle:
                sign = " < " if spec.name == "less" else f" {spec.name} "
                path = sign.join(self._name(c) for c in cycle)
                what = "the inequalities" if spec.name == "less" else f"the {spec.name} relations"
                raise BoardError(f"{what} form a cycle: {path}", field="relations",
                                 relation=Relation(spec.name, (cycle[0], cycle[1])))

    def _show(self, rel: Relation) -> str:
        return "[" + ", ".join(self._name(c) for c in rel.cells) + "]"

    def _cycle(self, kind: str) -> list[int] | None:
        succ: dict[int, list[int]] = {}
        for rel in self.relations:
            if rel.kind == kind:
                succ.setdefault(rel.a, []).append(rel.b)
        return _find_cycle(succ)

    def _name(self, cell: int) -> str:
        if self.shape is None:
            return str(cell)
        r, c = self.coords(cell)
        return f"({r},{c})"

    # ------------------------------------------------------------ properties
    @property
    def k(self) -> int:
        """Size of every asterism (and of the label multiset)."""
        return len(self.labels)

    @cached_property
    def values(self) -> tuple[Label, ...]:
        """The distinct labels, sorted."""
        return tuple(sorted(set(self.labels), key=label_sort_key))

    @cached_property
    def multiplicity(self) -> dict[Label, int]:
        """How many times each label occurs in the multiset."""
        return dict(Counter(self.labels))

    @cached_property
    def clue_map(self) -> dict[int, Label]:
        """Clues as a ``{cell: label}`` dict."""
        return dict(self.clues)

    @cached_property
    def cell_asterisms(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices of the asterisms that contain it."""
        out: list[list[int]] = [[] for _ in range(self.n_cells)]
        for i, ast in enumerate(self.asterisms):
            for c in ast:
                out[c].append(i)
        return tuple(tuple(x) for x in out)

    @property
    def grid_shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of a grid board.

        Raises:
            BoardError: when the board is not a grid.
        """
        if self.shape is None:
            raise BoardError("this board is not a grid")
        return self.shape

    @property
    def is_grid(self) -> bool:
        """True when the board has a grid shape."""
        return self.shape is not None

    @property
    def param_map(self) -> dict[str, Any]:
        """Family parameters as a dict."""
        return dict(self.params)

    def cell_name(self, cell: int) -> str:
        """A readable name: ``(row,col)`` on a grid, the cell number otherwise."""
        return self._name(cell)

    @cached_property
    def asterism_names(self) -> tuple[str, ...]:
        """What a player calls each asterism, for messages: on a grid ``row r``,
        ``column c`` (from 0, as in cell names), ``diagonal`` / ``anti-diagonal``,
        ``region R`` by the id of a Jigsaw's ``regions`` parameter, ``box k`` (a
        rectangle, the k-th from 0) or ``region k`` (any other shape); ``group i``
        on a board without a grid.

        Example:
            >>> Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2)).asterism_names
            ('row 0', 'row 1', 'column 0', 'column 1')
        """
        if self.shape is None:
            return tuple(f"group {i}" for i in range(len(self.asterisms)))
        rows, cols = self.shape
        regions = self.param_map.get("regions")
        if not (isinstance(regions, Sequence) and not isinstance(regions, str)
                and len(regions) == rows
                and all(isinstance(r, Sequence) and len(r) == cols for r in regions)):
            regions = None
        out: list[str] = []
        counted: Counter[str] = Counter()
        for cells in self.asterisms:
            coords = [divmod(c, cols) for c in cells]
            rs, cs = {r for r, _ in coords}, {c for _, c in coords}
            ids = {regions[r][c] for r, c in coords} if regions is not None else set()
            if len(rs) == 1 and len(cells) == cols:
                out.append(f"row {next(iter(rs))}")
            elif len(cs) == 1 and len(cells) == rows:
                out.append(f"column {next(iter(cs))}")
            elif rows == cols == len(cells) and all(r == c for r, c in coords):
                out.append("diagonal")
            elif rows == cols == len(cells) and all(r + c == rows - 1 for r, c in coords):
                out.append("anti-diagonal")
            elif len(ids) == 1:
                out.append(f"region {next(iter(ids))}")
            else:
                what = ("box" if (max(rs) - min(rs) + 1) * (max(cs) - min(cs) + 1) == len(cells)
                        else "region")
                out.append(f"{what} {counted[what]}")
                counted[what] += 1
        return tuple(out)

    def cell(self, row: int, col: int) -> int:
        """The cell number of grid position (row, col)."""
        if self.shape is None:
            raise BoardError("this board is not a grid")
        return row * self.shape[1] + col

    def coords(self, cell: int) -> tuple[int, int]:
        """The (row, col) of a cell of a grid board."""
        if self.shape is None:
            raise BoardError("this board is not a grid")
        return divmod(cell, self.shape[1])

    def as_grid(self, values: Sequence[Label | None]) -> list[list[Label | None]]:
        """Cut a flat per-cell sequence into grid rows."""
        if self.shape is None:
            raise BoardError("this board is not a grid")
        rows, cols = self.shape
        return [list(values[r * cols:(r + 1) * cols]) for r in range(rows)]

    # ------------------------------------------------------------- builders
    def with_clues(self, clues: Mapping[int, Label] | Iterable[tuple[int, Label]]) -> Board:
        """A copy with these clues instead (the inscription is kept).

        When the clues change, the parameters that describe the puzzle (its
        ``grade``: :func:`declare_metadata`) are dropped, as by :meth:`without_clue`
        and :meth:`solved`.
        """
        items = clues.items() if isinstance(clues, Mapping) else clues
        return self._with_clues(tuple(items))

    def without_clue(self, cell: int) -> Board:
        """A copy with the clue on ``cell`` removed (and no :func:`metadata <declare_metadata>`
        parameter when there was a clue)."""
        if cell in self.inscription:
            raise BoardError(f"cell {self._name(cell)} is in the inscription")
        return self._with_clues(tuple((c, v) for c, v in self.clues if c != cell))

    def solved(self, values: Sequence[Label]) -> Board:
        """A copy whose clues are a full assignment (the inscription is kept), without the
        :func:`metadata <declare_metadata>` parameters of the puzzle it solves."""
        return self._with_clues(tuple(enumerate(values)))

    def _with_clues(self, clues: tuple[tuple[int, Label], ...]) -> Board:
        params = self.params
        stale = metadata_keys(self.kind)
        if stale and any(key in stale for key, _ in params) \
                and tuple(sorted((int(c), v) for c, v in clues)) != self.clues:
            params = tuple((key, value) for key, value in params if key not in stale)
        return replace(self, clues=clues, params=params)

    # ------------------------------------------------------------ relations
    @property
    def less(self) -> tuple[tuple[int, int], ...]:
        """The ``less`` relations as ``(a, b)`` pairs: label(a) < label(b)."""
        return tuple((r.a, r.b) for r in self.relations if r.kind == "less")

    def relations_of(self, kind: str) -> tuple[Relation, ...]:
        """The relations of one kind."""
        return tuple(r for r in self.relations if r.kind == kind)

    @cached_property
    def relation_kinds(self) -> frozenset[str]:
        """The kinds of relations the board states."""
        return frozenset(r.kind for r in self.relations)

    def _repr_svg_(self) -> str | None:
        """The board's picture in a notebook (:mod:`futocp.render`, matplotlib)."""
        from .render import notebook_svg  # lazy: matplotlib is imported only for pictures

        return notebook_svg(self)


def _normal(rel: Relation) -> Relation:
    """A symmetric kind's cells sorted (so that a pair is one relation)."""
    if not isinstance(rel, Relation):
        raise BoardError(f"{rel!r} is not a Relation", field="relations")
    try:
        spec = get_kind(rel.kind)
    except BoardError as exc:
        raise BoardError(exc.message, field="relations", relation=rel) from None
    if spec.symmetric and list(rel.cells) != sorted(rel.cells):
        return Relation(rel.kind, tuple(sorted(rel.cells)), rel.params)
    return rel


def _find_cycle(succ: dict[int, list[int]]) -> list[int] | None:
    """A cycle of the directed graph ``succ``, as a closed path, or None."""
    state: dict[int, int] = {}  # 1 = on stack, 2 = done
    for root in succ:
        if state.get(root):
            continue
        stack = [(root, iter(succ.get(root, ())))]
        path = [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(succ.get(nxt, ()))))
    return None
