"""Board families, defined declaratively by the YAML files of ``futocp/models/``.

A *family* (Latin square, Futoshiki, Sudoku, Jigsaw, a Latin triangle...) is a
recipe for Latin boards: its geometry (a grid, or explicit cells with a
layout), its asterisms (rows, columns, boxes, diagonals, windows, a region
partition, or explicit cell lists), its label multiset and any default
inscription, all depending on a few parameters (``n``, ``box``, ``regions``,
``word``...). Each family is one file ``futocp/models/<name>.yaml``; the format
of these files is described in ``futocp/models/README.md``. :func:`family` turns a
family name, its parameters and an instance's givens into a
:class:`~futocp.board.Board` whose ``kind`` is the family name and whose
``params`` are the resolved parameters, so that a writer can give the board
back as ``{"kind": name, params..., "givens": ...}``.

Where the YAML files are found: the directories named in the environment
variable ``FUTOCP_MODELS`` (``os.pathsep``-separated; for one's own families),
then the package's own ``models/`` folder, read with :mod:`importlib.resources`
(package data: every install has it, a clone, an editable install, a wheel in
a venv, ``pip install --user`` or ``--target``). A name found twice is taken
from the first folder.

Example:
    >>> b = sudoku(box=(2, 2), givens=[[1, 0, 0, 0], [0, 0, 3, 0], [0, 4, 0, 0], [0, 0, 0, 2]])
    >>> b.kind, b.shape, b.k, len(b.asterisms), b.param_map
    ('sudoku', (4, 4), 4, 12, {'box': (2, 2)})
    >>> b = futoshiki(3, [[0, 0, 0], [0, 2, 0], [0, 0, 0]], less=[((0, 0), (0, 1))])
    >>> b.kind, b.k, b.clue_map, b.less
    ('futoshiki', 3, {4: 2}, ((0, 1),))
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .board import Board, Label, declare_metadata, grid_neighbour_pairs, label_sort_key
from .errors import BoardError, InputError, UsageError, did_you_mean
from .relations import RELATIONS, Relation, get_kind

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "Family", "Param", "family", "get_family", "list_families", "models_dirs",
    "latin_square", "futoshiki", "sudoku", "jigsaw",
    "futoshiki_adjacent", "kropki", "killer_sudoku",
    "RelationError", "check_relations", "derived_relations", "explicit_relations",
    "relation_key", "kind_of_key", "neighbour_pairs", "grid_line_of",
    "grid_lines", "grid_clues", "board_layout", "parse_param_text", "MAX_GRID",
]

MAX_GRID = 1000  # largest grid side accepted (a million cells)

Coord = Sequence[int]
_EMPTY = (0, None, "", ".")


# ------------------------------------------------------------------ grid helpers
def grid_lines(rows: int, cols: int) -> list[tuple[int, ...]]:
    """The rows and then the columns of a rows x cols grid, as cell tuples."""
    out = [tuple(r * cols + c for c in range(cols)) for r in range(rows)]
    out += [tuple(r * cols + c for r in range(rows)) for c in range(cols)]
    return out


def grid_clues(n: int, givens: Sequence[Sequence[Any]] | None) -> list[tuple[int, Label]]:
    """Clues from an n x n list of rows (0 / None / "" / "." = empty)."""
    return _layout_clues([list(range(r * n, (r + 1) * n)) for r in range(n)], givens)


def _layout_clues(layout: Sequence[Sequence[int]], givens: Sequence[Sequence[Any]] | None
                  ) -> list[tuple[int, Label]]:
    if givens is None:
        return []
    if len(givens) != len(layout):
        raise BoardError(f"givens have {len(givens)} rows, expected {len(layout)}")
    out = []
    for r, (row, cells) in enumerate(zip(givens, layout, strict=True)):
        if len(row) != len(cells):
            raise BoardError(f"givens row {r} has {len(row)} cells, expected {len(cells)}")
        for cell, v in zip(cells, row, strict=True):
            if not (v in _EMPTY and not isinstance(v, bool)):
                out.append((cell, v))
    return out


def _most_square(n: int) -> tuple[int, int]:
    """The box r x c with r * c = n, r <= c and r as large as possible (6 -> 2x3)."""
    r = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return r, n // r


# ------------------------------------------------------------------ expressions
_BINOPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
}


def _evaluate(expr: Any, env: Mapping[str, Any]) -> Any:
    """Evaluate a family-file expression: integers, names, + - * // %, [i], len(x)."""
    if isinstance(expr, (int, list)) and not isinstance(expr, bool):
        return [_evaluate(e, env) for e in expr] if isinstance(expr, list) else expr
    if not isinstance(expr, str):
        raise BoardError(f"cannot evaluate {expr!r}")

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise BoardError(f"unknown name {node.id!r} in {expr!r}")
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Subscript):
            return ev(node.value)[ev(node.slice)]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
                and len(node.args) == 1 and not node.keywords):
            return len(ev(node.args[0]))
        raise BoardError(f"unsupported expression {expr!r}")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise BoardError(f"cannot parse expression {expr!r}") from None
    return ev(tree)


# ------------------------------------------------------------------ parameters
def _as_int(key: str, value: Any) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BoardError(f"{key} must be an integer, got {value!r}")
    return value


def _parse_box(key: str, value: Any) -> tuple[int, int]:
    if isinstance(value, str):
        parts = value.lower().replace("*", "x").split("x")
        value = [p.strip() for p in parts]
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        raise BoardError(f"{key} must be rows x cols, e.g. 3x3 or [2, 3], got {value!r}")
    r, c = (_as_int(key, v) for v in value)
    if r < 1 or c < 1:
        raise BoardError(f"{key} sides must be positive, got {r}x{c}")
    return r, c


def _parse_word(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or any(ch.isspace() for ch in value.strip()):
        raise BoardError(f"{key} must be a word without spaces (one label per letter), got {value!r}")
    return value.strip()


def _label(key: str, x: Any) -> Label:
    if isinstance(x, str) and x.strip().lstrip("-").isdigit():
        return int(x)
    if (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, str) and x.strip()):
        return x.strip() if isinstance(x, str) else x
    raise BoardError(f"{key}: {x!r} is not a label (an integer or a string)")


def _parse_multiset(key: str, value: Any) -> tuple[Label, ...]:
    if isinstance(value, str):
        text = value.strip()
        items: list[Any] = text.split(",") if "," in text else list(text)
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise BoardError(f"{key} must be a list of labels or a string such as 111222333, "
                         f"got {value!r}")
    labels = [_label(key, x) for x in items]
    if not labels:
        raise BoardError(f"{key} is empty")
    if len({type(x) for x in labels}) > 1:
        raise BoardError(f"{key} mixes integers and strings")
    return tuple(sorted(labels, key=label_sort_key))


def _region_id(key: str, x: Any) -> int | str:
    if isinstance(x, bool) or not isinstance(x, (int, str)) or x == "":
        raise BoardError(f"{key}: region id {x!r} must be an integer or a non-empty string")
    return x


def _parse_regions(key: str, value: Any) -> tuple[tuple[int | str, ...], ...]:
    if isinstance(value, str):  # n*n characters, or rows separated by "/"
        text = value.strip()
        if "/" in text:
            rows: list[Any] = [list(r.strip()) for r in text.split("/")]
        else:
            n = math.isqrt(len(text))
            if n * n != len(text) or n == 0:
                raise BoardError(f"{key} as text needs n*n characters, got {len(text)}")
            rows = [list(text[r * n:(r + 1) * n]) for r in range(n)]
    elif isinstance(value, (list, tuple)) and value and all(isinstance(r, str) for r in value):
        rows = [list(r.strip()) for r in value]  # one character per cell
    elif isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in value):
        rows = [list(r) for r in value]
    else:
        raise BoardError(f"{key} must be a list of rows of region ids, got {value!r}")
    n = len(rows)
    for r, row in enumerate(rows):
        if len(row) != n:
            raise BoardError(f"{key} row {r} has {len(row)} cells, expected {n}")
    return tuple(tuple(_region_id(key, x) for x in row) for row in rows)


def _parse_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise BoardError(f"{key} must be true or false, got {value!r}")


def _parse_choice(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BoardError(f"{key} must be a word, got {value!r}")
    return value.strip()


_PARSERS: dict[str, Callable[[str, Any], Any]] = {
    "int": _as_int, "box": _parse_box, "word": _parse_word, "multiset": _parse_multiset,
    "regions": _parse_regions, "bool": _parse_bool, "choice": _parse_choice,
}


def parse_param_text(text: str) -> tuple[str, str]:
    """``"box=2x3"`` -> ``("box", "2x3")`` (the value is parsed by the family)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"--param expects KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


@dataclass(frozen=True)
class Param:
    """One family parameter.

    Attributes:
        name: The key (``n``, ``box``, ``regions``, ``word``, ``multiset``...).
        type: ``int``, ``box``, ``word``, ``multiset``, ``regions``, ``bool`` or
            ``choice``.
        default: The default value (already parsed), or None when required.
        help: One line for ``futocp families``.
        min: Smallest value of an ``int``.
        max: Largest value of an ``int``.
        choices: The allowed values of a ``choice``.
        optional: A parameter without a default that may be left out (a board
            then has no value for it: Tatham's ``grade``).
        metadata: The parameter describes the puzzle, not the board (Tatham's
            ``grade``): a board whose clues change drops it
            (:func:`futocp.board.declare_metadata`).
    """

    name: str
    type: str
    default: Any = None
    help: str = ""
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    optional: bool = False
    metadata: bool = False

    def parse(self, value: Any) -> Any:
        """Check and normalise a value (from Python, a document or the command line)."""
        out = _PARSERS[self.type](self.name, value)
        if self.type == "choice" and out not in self.choices:
            raise BoardError(f"{self.name} must be one of {', '.join(self.choices)}, got {out!r}")
        if self.type == "int":
            if self.min is not None and out < self.min:
                raise BoardError(f"{self.name} must be at least {self.min}, got {out}")
            if self.max is not None and out > self.max:
                raise BoardError(f"{self.name} {out} is larger than futocp holds ({self.max})")
        return out

    def show(self, value: Any) -> str:
        """A value as text (``3x3``, ``111222333``...)."""
        if self.type == "box":
            return f"{value[0]}x{value[1]}"
        if self.type == "multiset":
            return "".join(map(str, value)) if all(len(str(x)) == 1 for x in value) else \
                ",".join(map(str, value))
        if self.type == "regions":
            return "/".join("".join(map(str, row)) for row in value)
        if self.type == "bool":
            return "true" if value else "false"
        return str(value)


# ------------------------------------------------------------------ relations
RELATION_MODES = ("none", "neighbours", "lines", "any")


class RelationError(BoardError):
    """A relation item that a family or a board rejects, with its position.

    Attributes:
        kind: The relation kind of the bad item.
        index: Its index among the items of that kind (as given).
        cell: The index of the bad cell within the item, when one is to blame.
    """

    def __init__(self, message: str, kind: str | None = None, index: int | None = None,
                 cell: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.index = index
        self.cell = cell


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def relation_key(kind: str) -> str:
    """The key instance files list relations of ``kind`` under (``cage`` -> ``cages``;
    a key gives itself)."""
    return get_kind(_kind_name(kind)).key


def kind_of_key(key: str) -> str | None:
    """The relation kind listed under an instance-file key, or None."""
    for spec in RELATIONS.values():
        if key == spec.key:
            return spec.name
    return None


def _kind_name(kind: Any) -> str:
    if isinstance(kind, str):
        name = kind if kind in RELATIONS else kind_of_key(kind)
        if name is not None:
            return name
    raise BoardError(f"unknown relation kind {kind!r} (known: {', '.join(RELATIONS)})")


def _adjacent(a: int, b: int, cols: int) -> bool:
    (r1, c1), (r2, c2) = divmod(a, cols), divmod(b, cols)
    return abs(r1 - r2) + abs(c1 - c2) == 1


def _connected(cells: Sequence[int], cols: int) -> bool:
    todo, seen = [cells[0]], {cells[0]}
    rest = set(cells)
    while todo:
        x = todo.pop()
        for y in rest - seen:
            if _adjacent(x, y, cols):
                seen.add(y)
                todo.append(y)
    return seen == rest


def grid_line_of(cells: Sequence[int], rows: int, cols: int) -> tuple[str, int, bool] | None:
    """Which whole line of a rows x cols grid ``cells`` are, in order from one end:
    ``("row" or "col", index, reversed)``, or None.

    Example:
        >>> grid_line_of([2, 1, 0], 3, 3), grid_line_of([1, 4, 7], 3, 3), grid_line_of([0, 4], 3, 3)
        (('row', 0, True), ('col', 1, False), None)
    """
    cells = list(cells)
    for r in range(rows):
        row = [r * cols + c for c in range(cols)]
        if cells in (row, row[::-1]):
            return "row", r, cells != row
    for c in range(cols):
        col = [r * cols + c for r in range(rows)]
        if cells in (col, col[::-1]):
            return "col", c, cells != col
    return None


def _is_line(cells: Sequence[int], rows: int, cols: int) -> bool:
    return grid_line_of(cells, rows, cols) is not None


def neighbour_pairs(board: Board) -> list[tuple[int, int]]:
    """Every pair ``(a, b)``, ``a < b``, of orthogonal neighbours of a grid board
    (:func:`~futocp.board.grid_neighbour_pairs`; none on a board without a grid)."""
    return [] if board.shape is None else grid_neighbour_pairs(*board.shape)


def check_relations(board: Board, relations: Sequence[Relation]) -> None:
    """Check relations against the board and each other before a Board is built.

    The same rules as the Board's own validation (which checks them again),
    but each failure names the bad item, so that readers can point at it:
    integer labels, arity, cells on the board, a cell paired with itself or
    named twice, parameters, a pair listed under two opposite kinds, and
    exclusive kinds (cages) that overlap.

    Raises:
        RelationError: with the kind, the index among the relations of that
            kind (in the order given) and the bad cell, where one is to blame.
    """
    integer = isinstance(board.labels[0], int)
    counts: dict[str, int] = {}
    pairs: dict[tuple[int, ...], str] = {}
    owner: dict[tuple[str, int], int] = {}
    for rel in relations:
        spec = get_kind(rel.kind)
        index = counts.get(rel.kind, 0)
        counts[rel.kind] = index + 1

        def fail(message: str, cell: int | None = None) -> RelationError:
            return RelationError(message, rel.kind, index, cell)  # noqa: B023

        shown = "[" + ", ".join(board.cell_name(c) if _is_int(c) and 0 <= c < board.n_cells
                                else repr(c) for c in rel.cells) + "]"
        if spec.integer and not integer:
            raise fail(f"{rel.kind} relations need integer labels; the labels of this board "
                       "are strings")
        if spec.arity is not None and len(rel.cells) != spec.arity:
            raise fail(f"a {rel.kind} relation names {spec.arity} cells, got {len(rel.cells)}")
        if not rel.cells:
            raise fail(f"a {rel.kind} relation names no cell")
        if len(rel.cells) < spec.min_cells:
            raise fail(f"a {rel.kind} relation needs at least {spec.min_cells} cells")
        for j, c in enumerate(rel.cells):
            if not _is_int(c) or not 0 <= c < board.n_cells:
                raise fail(f"{rel.kind} relation {shown} names cell {c!r}, outside "
                           f"0..{board.n_cells - 1}", j)
        for j, c in enumerate(rel.cells):
            if c in rel.cells[:j]:
                if len(rel.cells) == 2:
                    raise fail(f"{rel.kind} relation between cell {board.cell_name(c)} and "
                               "itself", j)
                raise fail(f"{rel.kind} {shown} names cell {board.cell_name(c)} twice", j)
        problem = spec.param_problem(len(rel.cells), rel.param_map)
        if problem is not None:
            raise fail(problem)
        if spec.opposite is not None:
            pair = tuple(sorted(rel.cells))
            other = pairs.get(pair)
            if other == spec.opposite:
                raise fail(f"cells {shown} are listed as both {other} and {rel.kind}")
            pairs[pair] = rel.kind
        if spec.exclusive:
            for j, c in enumerate(rel.cells):
                prev = owner.setdefault((rel.kind, c), index)
                if prev != index:
                    raise fail(f"{rel.kind} relations {prev} and {index} (counted from 0) "
                               f"overlap on cell {board.cell_name(c)}", j)


def derived_relations(board: Board, relations: Iterable[Relation] | None = None
                      ) -> set[Relation]:
    """The relations a family's ``complete`` rule adds to a board.

    A family file may say ``complete: {kind: K, unless: [U, ...], when: W}``:
    every pair of orthogonal neighbours that no relation of a kind in
    ``unless`` joins gets a relation of kind ``K`` -- when ``W`` is
    ``always``, or names a ``bool`` parameter that is true. Tatham's adjacent
    mode is ``{kind: nonconsecutive, unless: [consecutive], when: always}``:
    a bar marks consecutive neighbours, and no bar means *not* consecutive.

    Args:
        board: A board of a family (others have no rule: the empty set).
        relations: The relations to complete (default: the board's).
    """
    try:
        fam = get_family(board.kind)
    except UsageError:
        return set()
    if not fam.completes(board.params):
        return set()
    rule = fam.complete_rule or {}
    rels = board.relations if relations is None else tuple(relations)
    unless = {_kind_name(k) for k in rule.get("unless") or ()}
    marked = {tuple(sorted(r.cells)) for r in rels if r.kind in unless}
    kind = _kind_name(rule["kind"])
    return {Relation(kind, pair) for pair in neighbour_pairs(board) if pair not in marked}


def explicit_relations(board: Board) -> tuple[Relation, ...]:
    """The relations of a board but those its family's ``complete`` rule derives.

    Writers give these; a reader builds the board through its family, which
    derives the rest again, so that the round trip gives an equal board.
    """
    derived = derived_relations(board)
    return tuple(r for r in board.relations if r not in derived)


# ------------------------------------------------------------------ the family
@dataclass(frozen=True)
class Family:
    """A board family read from a ``models/*.yaml`` file.

    Attributes:
        name: The family (and board ``kind``) name.
        description: Its rules in one sentence.
        params: Its parameters, by name.
        spec: The rest of the YAML definition (geometry, asterisms, labels...).
        source: The YAML file it was read from.
    """

    name: str
    description: str
    params: dict[str, Param]
    spec: dict[str, Any] = field(repr=False)
    source: str = ""

    # --------------------------------------------------------------- params
    @property
    def less_mode(self) -> str:
        """``none``, ``neighbours`` or ``any``: which inequalities the family allows."""
        return self.relation_mode("less")

    def relation_mode(self, kind: str) -> str:
        """Which relations of ``kind`` the family allows: ``none``, ``neighbours`` or ``any``.

        ``neighbours`` means orthogonal neighbours for a binary kind and an
        orthogonally connected group of cells for an n-ary one (a cage). A kind
        the family file does not name is allowed between ``any`` cells.
        """
        spec = get_kind(_kind_name(kind))
        modes = self.spec.get("relations") or {}
        for name in (spec.name, spec.key):
            if name in modes:
                return str(modes[name])
        if spec.name == "less" and "less" in self.spec:
            return str(self.spec["less"])
        return "any"

    @property
    def complete_rule(self) -> dict[str, Any] | None:
        """The family's ``complete`` rule (see :func:`derived_relations`), or None."""
        return self.spec.get("complete")

    def completes(self, params: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> bool:
        """Whether the ``complete`` rule applies to a board of these parameters."""
        rule = self.complete_rule
        if not rule or not self.is_grid:
            return False
        when = rule.get("when", "always")
        return when == "always" or bool(dict(params).get(when))

    @property
    def is_grid(self) -> bool:
        """True for grid families (their instances have a shape)."""
        return "grid" in self.spec

    @property
    def size_expr(self) -> Any:
        """The expression of the family's size ``n`` (None when it has none)."""
        return self.spec.get("size")

    def resolve(self, params: Mapping[str, Any], size: int | None = None
                ) -> tuple[tuple[str, Any], ...]:
        """Checked, complete parameters (defaults filled in) as sorted pairs.

        ``size`` (a document's ``size``) may stand for a parameter: the one the
        family's size is (``n``), or a box derived from it (6 -> 2x3).

        Raises:
            BoardError: for an unknown, missing or bad parameter.
        """
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            known = ", ".join(self.params) or "none"
            raise BoardError(f"family {self.name} has no parameter {unknown[0]!r} "
                             f"(its parameters: {known})")
        if size is not None:
            size = _as_int("size", size)
            if size < 1:
                raise BoardError(f"size must be a positive integer, got {size}")
        out = {k: self.params[k].parse(v) for k, v in params.items()}
        given_size = size
        if size is None:  # a word or multiset given without a box fixes the size too
            size = next((len(v) for k, v in out.items()
                         if self.params[k].type in ("word", "multiset")), None)
        defaulted = []
        for key, spec in self.params.items():
            if key in out:
                continue
            if size is not None and self.size_expr == key:
                out[key] = spec.parse(size)
            elif size is not None and spec.type == "box":
                out[key] = _most_square(size)
                if out[key][0] == 1 and size > 3:
                    raise BoardError(f"size {size} has no box r x c with 1 < r <= c; "
                                     f"give {key} (e.g. 1x{size})", field="size")
            elif spec.default is not None:
                out[key] = spec.default
                defaulted.append(key)
            elif spec.optional:
                continue
            else:
                raise BoardError(f"family {self.name} needs parameter {key!r}", field=key)
        size = given_size
        if size is not None and self.size_expr is not None:
            n = self._env(out)["n"]
            if n != size:
                hint = f" (give {', '.join(defaulted)})" if defaulted else ""
                raise BoardError(f"size {size} does not match the parameters of {self.name}, "
                                 f"which give size {n}{hint}", field="size")
        return tuple(sorted(out.items()))

    def _env(self, params: Mapping[str, Any]) -> dict[str, Any]:
        env = dict(params)
        if self.size_expr is not None:
            n = _evaluate(self.size_expr, env)
            if not isinstance(n, int) or n < 1:
                raise BoardError(f"family {self.name}: size {n!r} is not a positive integer",
                                 field="size")
            if n > MAX_GRID:
                raise BoardError(f"size {n} is larger than futocp holds ({MAX_GRID})",
                                 field="size")
            env["n"] = n
        return env

    # --------------------------------------------------------------- build
    def template(self, params: Mapping[str, Any] | None = None, size: int | None = None) -> Board:
        """The empty board (inscription only) of these parameters."""
        return _template(self.name, self.resolve(params or {}, size))

    def layout(self, board: Board) -> list[list[int]]:
        """The cells of a board of this family, row by row (for givens and printing)."""
        return _geometry(self.name, board.params)[1]

    def build(self, givens: Sequence[Sequence[Any]] | None = None,
              less: Iterable[tuple[Any, Any]] = (), size: int | None = None,
              relations: Iterable[Any] = (), **params: Any) -> Board:
        """A board of this family.

        Args:
            givens: Clues as rows of the layout (grid rows), ``0``/``None``/``"."`` empty.
            less: Pairs ``(a, b)`` meaning label(a) < label(b); on grids ``a`` and
                ``b`` are ``(row, col)``, elsewhere cell numbers.
            size: The size ``n``, when it stands for a parameter (see :meth:`resolve`).
            relations: Relations of any kind: ``(kind, cells)`` or ``(kind, cells,
                params)`` items whose cells are ``(row, col)`` on grids and cell
                numbers elsewhere (``("cage", [(0, 0), (0, 1)], {"sum": 3})``), or
                :class:`~futocp.relations.Relation` records (cell numbers).
                The relations of the family's ``complete`` rule are added.
            **params: The family's parameters.

        Raises:
            RelationError: for a relation the family or the board rejects (its
                ``kind`` and ``index`` say which item).
            BoardError: for bad parameters or givens.
        """
        base = self.template(params, size)
        layout = _geometry(self.name, base.params)[1]
        clues = dict(base.clues)
        for cell, value in _layout_clues(layout, givens):
            if cell in base.inscription and clues[cell] != value:
                raise BoardError(f"given {value!r} on cell {base.cell_name(cell)} contradicts the "
                                 f"inscription ({clues[cell]!r})")
            clues[cell] = value
        rels = self.relations_of(base, [("less", pair) for pair in less])
        rels += self.relations_of(base, relations)
        check_relations(base, rels)
        rels += sorted(derived_relations(base, rels))
        if not rels and len(clues) == len(base.clues):
            return base
        return replace(base, clues=tuple(clues.items()), relations=tuple(rels))

    def relations_of(self, base: Board, items: Iterable[Any]) -> list[Relation]:
        """Relation records of a board of this family from ``build``'s items.

        Checks each item against the family (allowed kinds, cells on the board,
        neighbours); :func:`check_relations` checks them against each other.

        Raises:
            RelationError: naming the kind and the index of the bad item (among
                the items of its kind).
        """
        out: list[Relation] = []
        seen: dict[str, int] = {}
        for item in items:
            if isinstance(item, Relation):
                kind, cells, rparams = item.kind, item.cells, item.params
                coords = False
            else:
                if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
                    raise BoardError(f"a relation is (kind, cells) or (kind, cells, params), "
                                     f"got {item!r}")
                kind, cells = item[0], item[1]
                rparams = item[2] if len(item) == 3 else ()
                coords = base.shape is not None
            kind = _kind_name(kind)
            index = seen.get(kind, 0)
            seen[kind] = index + 1
            rparams = tuple(sorted(dict(rparams).items()))
            rel = self._relation(base, kind, list(cells), rparams, coords, index)
            out.append(rel)
        return out

    def _relation(self, base: Board, kind: str, cells: list[Any],
                  rparams: tuple[tuple[str, Any], ...], coords: bool, index: int) -> Relation:
        spec = get_kind(kind)
        what = "inequality" if kind == "less" else f"{kind} relation"

        def fail(message: str, cell: int | None = None) -> RelationError:
            return RelationError(message, kind, index, cell)

        mode = self.relation_mode(kind)
        if mode == "none":
            plural = "inequalities" if kind == "less" else f"{kind} relations"
            raise fail(f"{self.name} boards have no {plural}")
        if spec.arity is not None and len(cells) != spec.arity:
            raise fail(f"a {kind} relation names {spec.arity} cells, got {len(cells)}")
        numbers = []
        for j, cell in enumerate(cells):
            if coords:
                rows, cols = base.grid_shape
                ok = (isinstance(cell, (tuple, list)) and len(cell) == 2
                      and all(_is_int(x) for x in cell))
                if not ok:
                    raise fail(f"{what} cell {cell!r} is not a (row, col) pair", j)
                r, c = cell
                if not (0 <= r < rows and 0 <= c < cols):
                    raise fail(f"{what} cell ({r},{c}) is outside the {rows}x{cols} grid", j)
                numbers.append(r * cols + c)
            else:
                if not _is_int(cell) or not 0 <= cell < base.n_cells:
                    raise fail(f"{what} cell {cell!r} is not a cell number "
                               f"0..{base.n_cells - 1}", j)
                numbers.append(int(cell))
        if mode == "lines" and base.shape is not None and not _is_line(numbers, *base.shape):
            raise fail(f"the cells of {kind} {index} are not a whole row or column read from "
                       "one end")
        if mode == "neighbours" and base.shape is not None and len(set(numbers)) == len(numbers):
            cols = base.shape[1]
            if spec.binary and not _adjacent(numbers[0], numbers[1], cols):
                a, b = (base.cell_name(x) for x in numbers)
                raise fail(f"{what} between {a} and {b}, which are not neighbours")
            if not spec.binary and not _connected(numbers, cols):
                raise fail(f"the cells of {kind} {index} are not connected "
                           "(orthogonal neighbours)")
        return Relation(kind, tuple(numbers), rparams)

    def boxes(self, board: Board) -> tuple[int, int] | None:
        """The (rows, cols) of the boxes of a board of this family, if it has boxes."""
        for gen in self.spec["asterisms"]:
            if isinstance(gen, dict) and "boxes" in gen:
                env = self._env(dict(board.params))
                h, w = _evaluate(gen["boxes"], env)
                return int(h), int(w)
        return None

    def describe_params(self) -> str:
        """``box=3x3, multiset=111222333`` (the defaults), or ``-``."""
        parts = []
        for p in self.params.values():
            if p.optional and p.default is None:
                parts.append(f"[{p.name}]")
            elif p.default is None:
                parts.append(f"{p.name}=?")
            elif p.type == "regions":
                parts.append(f"{p.name}=(a {len(p.default)}x{len(p.default)} partition)")
            else:
                parts.append(f"{p.name}={p.show(p.default)}")
        return ", ".join(parts) or "-"


# ------------------------------------------------------------------ geometry
def _generate(gen: Any, env: dict[str, Any], rows: int | None, cols: int | None, family: Family
              ) -> list[tuple[int, ...]]:
    """The asterisms of one generator entry of a family file."""
    name, arg = (gen, None) if isinstance(gen, str) else next(iter(gen.items()))
    grid_only = {"rows", "cols", "boxes", "diagonals", "windows", "regions"}
    if name == "explicit":
        return [tuple(a) for a in arg or ()]
    if name not in grid_only:
        raise BoardError(f"family {family.name}: unknown asterism generator {name!r}")
    if rows is None or cols is None:
        raise BoardError(f"family {family.name}: '{name}' needs a grid")
    if name == "rows":
        return [tuple(r * cols + c for c in range(cols)) for r in range(rows)]
    if name == "cols":
        return [tuple(r * cols + c for r in range(rows)) for c in range(cols)]
    if name == "boxes":
        h, w = _evaluate(arg, env)
        if rows % h or cols % w:
            raise BoardError(f"{h}x{w} boxes do not tile a {rows}x{cols} grid",
                             field=arg if isinstance(arg, str) else None)
        return [tuple((br + i) * cols + bc + j for i in range(h) for j in range(w))
                for br in range(0, rows, h) for bc in range(0, cols, w)]
    if name == "diagonals":
        if rows != cols:
            raise BoardError("diagonals need a square grid")
        return [tuple(i * cols + i for i in range(rows)),
                tuple(i * cols + cols - 1 - i for i in range(rows))]
    if name == "windows":
        out = []
        for win in _evaluate(arg, env):
            r0, c0, h, w = win
            if r0 < 0 or c0 < 0 or r0 + h > rows or c0 + w > cols:
                raise BoardError(f"window {win} does not fit the {rows}x{cols} grid",
                                 field=arg if isinstance(arg, str) else None)
            out.append(tuple((r0 + i) * cols + c0 + j for i in range(h) for j in range(w)))
        return out
    if name == "regions":
        grid = env[str(arg)]
        if len(grid) != rows:
            raise BoardError(f"{arg} has {len(grid)} rows, expected {rows}", field=str(arg))
        groups: dict[Any, list[int]] = {}
        for r, row in enumerate(grid):
            for c, rid in enumerate(row):
                groups.setdefault(rid, []).append(r * cols + c)
        size = len(env["labels"])
        for rid, cells in groups.items():
            if len(cells) != size:
                raise BoardError(f"region {rid!r} has {len(cells)} cells, expected {size}",
                                 field=str(arg))
        return [tuple(cells) for cells in groups.values()]
    raise AssertionError(name)  # every name of grid_only is handled above


def _labels(spec: Any, env: dict[str, Any], family: Family) -> tuple[Label, ...]:
    if isinstance(spec, list):
        return tuple(spec)
    if "range" in spec:
        lo, hi = _evaluate(spec["range"], env)
        return tuple(range(lo, hi + 1))
    if "param" in spec:
        return tuple(env[spec["param"]])
    if "letters" in spec:
        return tuple(env[spec["letters"]])
    raise BoardError(f"family {family.name}: cannot read labels {spec!r}")


@lru_cache(maxsize=256)
def _geometry(name: str, params: tuple[tuple[str, Any], ...]
              ) -> tuple[dict[str, Any], list[list[int]]]:
    """(Board keyword arguments, layout rows) of a family with resolved params."""
    fam = get_family(name)
    spec = fam.spec
    env = fam._env(dict(params))
    if fam.is_grid:
        rows, cols = _evaluate(spec["grid"]["rows"], env), _evaluate(spec["grid"]["cols"], env)
        n_cells, shape = rows * cols, (rows, cols)
        layout = [list(range(r * cols, (r + 1) * cols)) for r in range(rows)]
    else:
        rows = cols = None
        n_cells, shape = spec["cells"], None
        layout = [list(r) for r in spec["layout"]]
    labels = _labels(spec["labels"], env, fam)
    env["labels"] = labels
    asterisms: list[tuple[int, ...]] = []
    for gen in spec["asterisms"]:
        asterisms += _generate(gen, env, rows, cols, fam)
    for source in ("multiset", "word"):
        if source in env and asterisms and len(env[source]) != len(asterisms[0]):
            raise BoardError(f"{source} has {len(env[source])} labels; the asterisms of "
                             f"{name} have {len(asterisms[0])} cells", field=source)
    clues: list[tuple[int, Label]] = []
    ins = spec.get("inscription")
    if ins:
        if "row" in ins:
            r = _evaluate(ins["row"], env)
            clues = list(zip(layout[r], env[ins["labels"]], strict=True))
        else:
            clues = [(int(c), v) for c, v in ins["clues"]]
    kwargs = {"n_cells": n_cells, "asterisms": tuple(asterisms), "labels": labels,
              "clues": tuple(clues), "inscription": frozenset(c for c, _ in clues),
              "shape": shape, "kind": name, "params": params}
    return kwargs, layout


@lru_cache(maxsize=256)
def _template(name: str, params: tuple[tuple[str, Any], ...]) -> Board:
    return Board(**_geometry(name, params)[0])


def board_layout(board: Board) -> list[list[int]] | None:
    """The rows of cells of a board: grid rows, a family's layout, or None."""
    if board.kind in _registry():
        try:
            return _geometry(board.kind, board.params)[1]
        except (BoardError, KeyError, TypeError):
            pass
    if board.shape is not None:
        rows, cols = board.shape
        return [list(range(r * cols, (r + 1) * cols)) for r in range(rows)]
    return None


# ------------------------------------------------------------------ loading
def models_dirs() -> list[Traversable]:
    """The folders searched for family files, in order (the first file of a name wins).

    The folders of ``FUTOCP_MODELS`` that exist, then the package's ``models/``
    (a :class:`~importlib.resources.abc.Traversable`: a :class:`~pathlib.Path`
    in every ordinary install).

    Example:
        >>> models_dirs()[-1].joinpath("sudoku.yaml").is_file()
        True
    """
    dirs: list[Traversable] = [
        Path(p) for p in os.environ.get("FUTOCP_MODELS", "").split(os.pathsep) if p]
    dirs = [d for d in dirs if d.is_dir()]
    from importlib import resources  # only where families are read: not on every start

    dirs.append(resources.files("futocp").joinpath("models"))
    return dirs


_FAMILY_KEYS = {"name", "description", "source", "aliases", "params", "size", "grid", "cells",
                "layout", "layout_style", "asterisms", "labels", "inscription", "less",
                "relations", "complete", "lists"}


def _read_family(path: Traversable) -> Family:
    import yaml  # only where a family file is read: not on every start

    source = str(path)
    # libyaml's parser when PyYAML has it (the same safe constructor): every start reads
    # the 21 family files, 15x faster than the pure-Python parser
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"invalid YAML: {getattr(exc, 'problem', exc)}", source,
                         mark.line + 1 if mark else None, mark.column + 1 if mark else None) from None
    if not isinstance(doc, dict):
        raise InputError("a family file is a mapping", source)
    unknown = sorted(set(doc) - _FAMILY_KEYS)
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} in a family file", source)
    for key in ("name", "description", "asterisms", "labels"):
        if key not in doc:
            raise InputError(f"missing key {key!r}", source)
    if ("grid" in doc) == ("cells" in doc) or ("cells" in doc and "layout" not in doc):
        raise InputError("a family has either 'grid' or 'cells' with a 'layout'", source)
    _check_relation_spec(doc, source)
    params = {}
    for key, p in (doc.get("params") or {}).items():
        if not isinstance(p, dict) or p.get("type") not in _PARSERS:
            raise InputError(f"parameter {key!r} needs a type ({', '.join(_PARSERS)})", source)
        choices = tuple(str(c) for c in p.get("choices") or ())
        if (p["type"] == "choice") != bool(choices):
            raise InputError(f"parameter {key!r}: 'choices' goes with type choice", source)
        param = Param(key, p["type"], None, p.get("help", ""), p.get("min"), p.get("max"),
                      choices, bool(p.get("optional", False)), bool(p.get("metadata", False)))
        if p.get("default") is not None:
            try:
                param = replace(param, default=param.parse(p["default"]))
            except BoardError as exc:
                raise InputError(f"default of {key!r}: {exc}", source) from None
        params[key] = param
    when = (doc.get("complete") or {}).get("when", "always")
    if when != "always" and (when not in params or params[when].type != "bool"):
        raise InputError(f"complete: 'when' is always or the name of a bool parameter, "
                         f"got {when!r}", source)
    return Family(doc["name"], " ".join(str(doc["description"]).split()), params, doc, source)


def _check_relation_spec(doc: dict[str, Any], source: str) -> None:
    """Check the ``less``, ``relations`` and ``complete`` keys of a family file."""
    grid = "grid" in doc
    modes = dict(doc.get("relations") or {})
    if not isinstance(doc.get("relations") or {}, dict):
        raise InputError("'relations' maps relation kinds to none, neighbours, lines or any", source)
    if "less" in doc:
        modes.setdefault("less", doc["less"])
    for key, mode in modes.items():
        if key not in RELATIONS and kind_of_key(key) is None:
            raise InputError(f"relations: unknown relation kind {key!r} "
                             f"(known: {', '.join(RELATIONS)})", source)
        if mode not in RELATION_MODES:
            raise InputError(f"relations: {key!r} is none, neighbours, lines or any, got {mode!r}",
                             source)
        if mode in ("neighbours", "lines") and not grid:
            raise InputError(f"relations: {key!r} between {mode} needs a grid", source)
    lists = doc.get("lists") or []
    if not isinstance(lists, list):
        raise InputError("'lists' is a list of relation kinds", source)
    for key in lists:
        if key not in RELATIONS and kind_of_key(key) is None:
            raise InputError(f"lists: unknown relation kind {key!r}", source)
        spec = get_kind(_kind_name(key))
        if "none" in (modes.get(spec.name), modes.get(spec.key)):
            raise InputError(f"lists: {key!r} is a kind the family does not allow", source)
    rule = doc.get("complete")
    if rule is None:
        return
    if not grid:
        raise InputError("'complete' needs a grid (it relates orthogonal neighbours)", source)
    if not isinstance(rule, dict) or set(rule) - {"kind", "unless", "when"} or "kind" not in rule:
        raise InputError("'complete' is {kind: K, unless: [KIND, ...], when: always or a bool "
                         "parameter}", source)
    for name in [rule["kind"], *(rule.get("unless") or [])]:
        found = RELATIONS.get(name) or RELATIONS.get(kind_of_key(name) or "")
        if found is None or not found.binary:
            raise InputError(f"complete: {name!r} is not a binary relation kind", source)
    if not RELATIONS[_kind_name(rule["kind"])].symmetric:
        raise InputError(f"complete: {rule['kind']!r} must be a symmetric kind", source)


@lru_cache(maxsize=1)
def _registry() -> dict[str, Family]:
    out: dict[str, Family] = {}
    for folder in models_dirs():
        files = [p for p in folder.iterdir() if p.name.endswith(".yaml") and p.is_file()]
        for path in sorted(files, key=lambda p: p.name):
            fam = _read_family(path)
            if fam.name != path.name.removesuffix(".yaml"):
                raise InputError(f"family name {fam.name!r} differs from the file name", str(path))
            out.setdefault(fam.name, fam)
    for fam in out.values():
        declare_metadata(fam.name, [p.name for p in fam.params.values() if p.metadata])
    return out


def list_families() -> list[Family]:
    """Every family, by name."""
    return [fam for _, fam in sorted(_registry().items())]


def get_family(name: str) -> Family:
    """The family called ``name`` (or one of its aliases).

    Raises:
        UsageError: for an unknown name.
    """
    reg = _registry()
    if name in reg:
        return reg[name]
    for fam in reg.values():
        if name in (fam.spec.get("aliases") or ()):
            return fam
    names = [*reg, *(a for fam in reg.values() for a in fam.spec.get("aliases") or ())]
    raise UsageError(f"unknown family {name!r}{did_you_mean(name, names)} "
                     f"(known: {', '.join(sorted(reg))})")


# ------------------------------------------------------------------ constructors
def family(name: str, givens: Sequence[Sequence[Any]] | None = None,
           less: Iterable[tuple[Any, Any]] = (), size: int | None = None,
           relations: Iterable[Any] = (), **params: Any) -> Board:
    """A board of the family ``name``: see :meth:`Family.build`.

    Example:
        >>> b = family("sudoku-ripeto")
        >>> b.k, b.values, b.multiplicity[2]
        (9, (1, 2, 3), 3)
        >>> b = family("killer-sudoku", box="2x2", relations=[("cage", [(0, 0), (0, 1)], {"sum": 3})])
        >>> b.relations
        (Relation(kind='cage', cells=(0, 1), params=(('sum', 3),)),)
    """
    return get_family(name).build(givens, less, size, relations, **params)


def latin_square(n: int, givens: Sequence[Sequence[Any]] | None = None,
                 less: Iterable[tuple[Coord, Coord]] = ()) -> Board:
    """An n x n Latin square to complete, labels 1..n (inequalities between any cells)."""
    _check_size(n)
    return family("latin-square", givens, less, n=n)


def futoshiki(n: int, givens: Sequence[Sequence[Any]] | None = None,
              less: Iterable[tuple[Coord, Coord]] = ()) -> Board:
    """An n x n Futoshiki: a Latin square with inequalities between orthogonal neighbours."""
    _check_size(n)
    return family("futoshiki", givens, less, n=n)


def sudoku(box: tuple[int, int] | str | None = None, givens: Sequence[Sequence[Any]] | None = None,
           less: Iterable[tuple[Coord, Coord]] = ()) -> Board:
    """A Sudoku with r x c boxes (n = r * c); without ``box``, the most square box
    for the size of ``givens`` (9 -> 3x3, 6 -> 2x3), else 3x3."""
    if box is None:
        return family("sudoku", givens, less, size=len(givens) if givens else 9)
    return family("sudoku", givens, less, box=box)


def jigsaw(n: int | None = None, regions: Sequence[Sequence[Any]] | str | None = None,
           givens: Sequence[Sequence[Any]] | None = None) -> Board:
    """A jigsaw (Gerechte) square: rows, columns and a partition of the n x n grid
    into n regions of n cells, given as rows of region ids (any int or str)."""
    params = {} if regions is None else {"regions": regions}
    return family("jigsaw", givens, (), size=n, **params)


def futoshiki_adjacent(n: int, givens: Sequence[Sequence[Any]] | None = None,
                       consecutive: Iterable[tuple[Coord, Coord]] = ()) -> Board:
    """Tatham's adjacent Futoshiki: ``consecutive`` neighbours (the bars) differ by 1, and
    every other pair of neighbours does not (those ``nonconsecutive`` relations are derived).

    Example:
        >>> b = futoshiki_adjacent(2, consecutive=[((0, 0), (0, 1))])
        >>> [str(r) for r in b.relations]
        ['consecutive(0, 1)', 'nonconsecutive(0, 2)', 'nonconsecutive(1, 3)', 'nonconsecutive(2, 3)']
    """
    _check_size(n)
    return family("futoshiki-adjacent", givens, n=n,
                  relations=[("consecutive", pair) for pair in consecutive])


def kropki(n: int | None = None, givens: Sequence[Sequence[Any]] | None = None,
           white: Iterable[tuple[Coord, Coord]] = (), black: Iterable[tuple[Coord, Coord]] = (),
           complete: bool = False, box: tuple[int, int] | str | None = None) -> Board:
    """A Kropki puzzle: white dots join consecutive neighbours, black dots neighbours of which
    one is twice the other; with ``complete``, neighbours without a dot are neither.

    A Latin square of side ``n`` (family ``kropki``), or a Sudoku with ``box``
    (family ``kropki-sudoku``).
    """
    rels = [("consecutive", pair) for pair in white] + [("ratio", pair) for pair in black]
    if box is not None:
        return family("kropki-sudoku", givens, box=box, complete=complete, relations=rels)
    return family("kropki", givens, size=n, complete=complete, relations=rels)


def killer_sudoku(box: tuple[int, int] | str = (3, 3), givens: Sequence[Sequence[Any]] | None = None,
                  cages: Iterable[tuple[int, Iterable[Coord]]] = ()) -> Board:
    """A Killer Sudoku: ``cages`` are ``(sum, cells)``; a cage's labels differ and add up to its sum."""
    return family("killer-sudoku", givens, box=box,
                  relations=[("cage", list(cells), {"sum": total}) for total, cells in cages])


def _check_size(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise BoardError(f"size must be a positive integer, got {n!r}")
    if n > MAX_GRID:
        raise BoardError(f"size {n} is larger than futocp holds ({MAX_GRID})")
