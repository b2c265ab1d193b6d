"""The JSON/YAML document schema: plain data <-> Board.

A document is a mapping with a ``kind``; :func:`kinds` maps each kind to the
pair of functions that read and write it, so that families can add theirs.
Errors raise :class:`SchemaError` with the *path* of the offending item
(``("givens", 2, 3)``); the JSON and YAML readers turn that path into a line
and column of the file.

Relations are listed under the key of their kind (:mod:`futocp.relations`):
``less``, ``consecutive``, ``nonconsecutive``, ``ratio``, ``nodot`` as pairs
of cells, ``cages`` as ``{"sum": S, "cells": [...]}`` objects (a kind with
parameters always takes the object form). Cells are ``[row, col]`` on grids
and cell numbers elsewhere. Relations a family's ``complete`` rule derives
are not written: reading derives them again.

Example:
    >>> b = from_data({"kind": "futoshiki", "size": 2, "givens": [[1, 0], [0, 0]],
    ...                "less": [[[1, 0], [1, 1]]]})
    >>> to_data(b)["less"]
    [[[1, 0], [1, 1]]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeGuard

from ..board import Board
from ..errors import BoardError, FutocpError, did_you_mean
from ..families import (
    RelationError,
    check_relations,
    explicit_relations,
    get_family,
    list_families,
    relation_key,
)
from ..relations import RELATIONS, Relation
from .limits import MAX_CELLS, MAX_GRID, bad_param, clip, excerpt

__all__ = ["SchemaError", "a_type", "kinds", "from_data", "to_data", "Path", "field", "grid_givens",
           "family_reader", "write_family", "relation_keys"]

Path = tuple[Any, ...]


class SchemaError(FutocpError):
    """A document that does not follow the schema, with the path of the bad item."""

    def __init__(self, message: str, path: Path = ()) -> None:
        self.message = message
        self.path = path
        where = "".join(f"[{excerpt(p)}]" if isinstance(p, str) else f"[{p}]" for p in path)
        super().__init__(f"{where}: {message}" if where else message)


_A = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
      list: "a list", dict: "a mapping", type(None): "null"}


def a_type(value: Any) -> str:
    """What a value of a document is, as a user says it: ``a list``, ``a string``, ``null``.

    Example:
        >>> a_type(None), a_type([1]), a_type(str)
        ('null', 'a list', 'a string')
    """
    kind = value if isinstance(value, type) else type(value)
    return _A.get(kind, kind.__name__)


def field(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], required: bool = True,
          default: Any = None) -> Any:
    """Fetch ``doc[key]`` and check its type (bool is never an int here)."""
    if key not in doc:
        if required:
            raise SchemaError(f"missing key {key!r}", ())
        return default
    value = doc[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = " or ".join(map(a_type, kinds))
        raise SchemaError(f"{key!r} must be {names}, got {a_type(value)}", (key,))
    return value


def _check_keys(doc: dict[str, Any], allowed: set[str]) -> None:
    for key in doc:
        if key not in allowed:
            raise SchemaError(f"unknown key {excerpt(key)}{did_you_mean(key, sorted(allowed))} "
                              f"(allowed: {', '.join(sorted(allowed))})", (key,))


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_label(x: Any) -> bool:
    """An integer or a string (only these can be labels, and be looked up in a set)."""
    return _is_int(x) or isinstance(x, str)


def grid_givens(doc: dict[str, Any], n: int, labels: set[Any] | None = None) -> list[list[Any]] | None:
    """Read and check ``givens``: n rows of n labels, 0 / null for empty."""
    rows: list[Any] | None = field(doc, "givens", list, required=False)
    if rows is None:
        return None
    if len(rows) != n:
        raise SchemaError(f"givens has {len(rows)} rows, expected {n}", ("givens",))
    allowed = labels if labels is not None else set(range(1, n + 1))
    for r, row in enumerate(rows):
        if not isinstance(row, list):
            raise SchemaError("a givens row must be a list", ("givens", r))
        if len(row) != n:
            raise SchemaError(f"givens row {r} has {len(row)} cells, expected {n}", ("givens", r))
        for c, v in enumerate(row):
            if v in (0, None) and not isinstance(v, bool):
                continue
            if not _is_label(v) or v not in allowed:
                raise SchemaError(f"given {excerpt(v)} at ({r},{c}) is not a label of this board "
                                  f"(expected {_describe(allowed)} or 0)", ("givens", r, c))
    return rows


def _describe(labels: set[Any]) -> str:
    if labels and all(_is_int(x) for x in labels) and len(labels) == max(labels) - min(labels) + 1:
        return f"{min(labels)}..{max(labels)}"
    return ", ".join(map(repr, sorted(labels, key=str)))


def _size(doc: dict[str, Any]) -> int:
    n: int = field(doc, "size", int)
    if n < 1:
        raise SchemaError(f"size must be positive, got {n}", ("size",))
    if n > MAX_GRID:
        raise SchemaError(f"size {n} is larger than futocp holds ({MAX_GRID})", ("size",))
    return n


# ------------------------------------------------------------------ relations
def relation_keys() -> dict[str, str]:
    """Document key -> relation kind, for every registered kind (``cages`` -> ``cage``)."""
    return {spec.key: spec.name for spec in RELATIONS.values()}


class _Items:
    """The relation items of a document, in the order read, with their paths."""

    def __init__(self) -> None:
        self.items: list[tuple[str, list[Any], dict[str, Any]]] = []
        self.paths: dict[str, list[tuple[Path, bool]]] = {}  # kind -> [(item path, object form)]

    def add(self, kind: str, cells: list[Any], params: dict[str, Any], path: Path,
            obj: bool) -> None:
        self.items.append((kind, cells, params))
        self.paths.setdefault(kind, []).append((path, obj))

    def path_of(self, exc: RelationError, doc: dict[str, Any]) -> Path:
        """The path of the item (and cell) a RelationError is about."""
        found = self.paths.get(exc.kind or "", [])
        if exc.index is not None and exc.index < len(found):
            path, obj = found[exc.index]
            if exc.cell is not None:
                return path + (("cells", exc.cell) if obj else (exc.cell,))
            return path
        key = relation_key(exc.kind) if exc.kind in RELATIONS else None
        return (key,) if key in doc else ()


def _read_relations(doc: dict[str, Any], grid: bool) -> _Items:
    """Every relation key of a document: pairs of cells, or objects with ``cells`` and parameters.

    Cells are ``[row, col]`` on a grid and cell numbers otherwise. Only the
    shapes are checked here; the family or the board checks the cells.
    """
    out = _Items()
    for key, kind in relation_keys().items():
        if key not in doc:
            continue
        spec = RELATIONS[kind]
        value = doc[key]
        if not isinstance(value, list):
            raise SchemaError(f"{key!r} must be a list, got {a_type(value)}", (key,))
        cell_text = "[r, c]" if grid else "a cell number"
        for i, item in enumerate(value):
            path: Path = (key, i)
            if spec.binary and not spec.params:
                pair = "[[r1, c1], [r2, c2]]" if grid else "[cell_a, cell_b]"
                if not (isinstance(item, list) and len(item) == 2):
                    raise SchemaError(f"each {key} item is {pair}", path)
                cells, params, obj = item, dict[str, int](), False
            else:
                shown = "[r, c]" if grid else "cell"
                words = spec.choice_map
                form = "{" + "".join(f'"{p}": {"W" if p in words else "N"}, ' for p in spec.params) \
                    + f'"cells": [{shown}, ...]' + "}"
                allowed = ("cells", *spec.params)
                for extra in item if isinstance(item, dict) else ():
                    if extra not in allowed:
                        raise SchemaError(f"unknown key {excerpt(extra)} in a {kind}"
                                          f"{did_you_mean(extra, allowed)} (allowed: "
                                          f"{', '.join(allowed)})", path + (extra,))
                if not isinstance(item, dict) or not isinstance(item.get("cells"), list):
                    raise SchemaError(f"each {key} item is {form}", path)
                params = {}
                for name in spec.params:
                    if name not in item:
                        raise SchemaError(f"a {kind} needs {name!r}", path)
                    value = item[name]
                    if name in words:
                        if not isinstance(value, str) or value not in words[name]:
                            raise SchemaError(f"{kind} {name} must be one of "
                                              f"{', '.join(map(repr, words[name]))}, got "
                                              f"{excerpt(value)}", path + (name,))
                    elif not _is_int(value):
                        raise SchemaError(f"{kind} {name} must be an integer, got {excerpt(value)}",
                                          path + (name,))
                    params[name] = value
                cells, obj = item["cells"], True
            for j, cell in enumerate(cells):
                ok = (isinstance(cell, list) and len(cell) == 2 and all(map(_is_int, cell))) \
                    if grid else _is_int(cell)
                if not ok:
                    where = path + (("cells", j) if obj else (j,))
                    raise SchemaError(f"{excerpt(cell)} is not {cell_text}", where)
            cells = [tuple(c) for c in cells] if grid else list(cells)
            out.add(kind, cells, params, path, obj)
    return out


def _board_error_path(doc: dict[str, Any], exc: BoardError, found: _Items,
                      cols: int | None = None,
                      givens_at: Callable[[int], Path | None] | None = None) -> Path:
    """Where in the document a Board's own error (a cycle of inequalities, a clue...) was
    written, from the error's ``field`` / ``index`` / ``cell`` / ``relation``."""
    rel = exc.relation
    if exc.field == "relations" and isinstance(rel, Relation):
        wanted = set(rel.cells)
        for j, (kind, cells, _params) in enumerate(found.items):
            numbers = {r * cols + c for r, c in cells} if cols else set(cells)
            if kind == rel.kind and (numbers == wanted or (len(wanted) == 2 and wanted <= numbers)):
                k = sum(1 for other, _, _ in found.items[:j] if other == kind)
                return found.paths[kind][k][0]
        key = relation_key(rel.kind) if rel.kind in RELATIONS else None
        return (key,) if key in doc else ()
    if exc.field == "clues" and exc.cell is not None:
        if givens_at is not None:
            return givens_at(exc.cell) or (("givens",) if "givens" in doc else ())
        clues = doc.get("clues")
        if isinstance(clues, list):
            for i, item in enumerate(clues):
                if isinstance(item, list) and item and item[0] == exc.cell:
                    return ("clues", i)
        return ("clues",) if "clues" in doc else ()
    if exc.field == "asterisms" and exc.index is not None and "asterisms" in doc:
        return ("asterisms", exc.index)
    return ()


def _relations_data(board: Board, relations: Iterable[Relation], cols: int | None
                    ) -> dict[str, list[Any]]:
    """``{key: items}`` of relations, in registry order (coordinates on a grid)."""
    def cell(c: int) -> Any:
        return list(divmod(c, cols)) if cols else c

    out: dict[str, list[Any]] = {}
    rels = list(relations)
    for spec in RELATIONS.values():
        items: list[Any] = []
        for rel in rels:
            if rel.kind != spec.name:
                continue
            cells = [cell(c) for c in rel.cells]
            if spec.binary and not spec.params:
                items.append(cells)
            else:
                items.append({**dict(rel.params), "cells": cells})
        if items:
            out[spec.key] = items
    return out


# ------------------------------------------------------------------ general boards
def _label_list(doc: dict[str, Any], key: str) -> list[Any]:
    labels: list[Any] = field(doc, key, list)
    for i, x in enumerate(labels):
        if not (_is_int(x) or isinstance(x, str)):
            raise SchemaError(f"label {excerpt(x)} must be an integer or a string", (key, i))
    return labels


def _read_board(doc: dict[str, Any]) -> Board:
    _check_keys(doc, {"kind", "cells", "labels", "asterisms", "clues", "inscription", "shape",
                      "name"} | set(relation_keys()))
    n = field(doc, "cells", int)
    if n < 1:
        raise SchemaError(f"cells must be positive, got {n}", ("cells",))
    if n > MAX_CELLS:
        raise SchemaError(f"{n} cells are more than futocp holds ({MAX_CELLS:,})", ("cells",))
    labels = _label_list(doc, "labels")
    asterisms = field(doc, "asterisms", list)

    def cell(x: Any, path: Path) -> int:
        if not _is_int(x) or not 0 <= x < n:
            raise SchemaError(f"{excerpt(x)} is not a cell number 0..{n - 1}", path)
        return x

    asts = []
    for i, ast in enumerate(asterisms):
        if not isinstance(ast, list):
            raise SchemaError("an asterism is a list of cells", ("asterisms", i))
        if len(ast) != len(labels):
            raise SchemaError(f"asterism {i} has {len(ast)} cells; labels has {len(labels)}",
                              ("asterisms", i))
        asts.append(tuple(cell(x, ("asterisms", i, j)) for j, x in enumerate(ast)))
    allowed = set(labels)
    clues = []
    for i, item in enumerate(field(doc, "clues", list, required=False, default=[])):
        if not (isinstance(item, list) and len(item) == 2):
            raise SchemaError("each clue is [cell, label]", ("clues", i))
        if not _is_label(item[1]) or item[1] not in allowed:
            raise SchemaError(f"clue label {excerpt(item[1])} is not in labels", ("clues", i, 1))
        clues.append((cell(item[0], ("clues", i, 0)), item[1]))
    inscription = [cell(x, ("inscription", i))
                   for i, x in enumerate(field(doc, "inscription", list, required=False, default=[]))]
    shape = field(doc, "shape", list, required=False)
    if shape is not None and not (len(shape) == 2 and all(_is_int(x) and x > 0 for x in shape)):
        raise SchemaError("shape is [rows, cols]", ("shape",))
    found = _read_relations(doc, grid=False)
    try:
        board = Board(n, tuple(asts), tuple(labels), clues=tuple(clues),
                      inscription=frozenset(inscription),
                      shape=tuple(shape) if shape else None, kind="board")
    except BoardError as exc:
        raise SchemaError(clip(str(exc)), _board_error_path(doc, exc, found)) from None
    rels = [Relation(kind, tuple(cells), tuple(params.items())) for kind, cells, params in found.items]
    try:
        check_relations(board, rels)
        return replace(board, relations=tuple(rels))
    except RelationError as exc:
        raise SchemaError(clip(str(exc)), found.path_of(exc, doc)) from None
    except BoardError as exc:
        raise SchemaError(clip(str(exc)), _board_error_path(doc, exc, found)) from None


def _write_board(board: Board) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "board", "cells": board.n_cells, "labels": list(board.labels),
                           "asterisms": [list(a) for a in board.asterisms],
                           "clues": [[c, v] for c, v in board.clues]}
    if board.inscription:
        out["inscription"] = sorted(board.inscription)
    out.update(_relations_data(board, board.relations, None))
    if board.shape:
        out["shape"] = list(board.shape)
    return out


# ------------------------------------------------------------------ families
def _param_path(doc: dict[str, Any], exc: BoardError) -> Path:
    """The document key a family's geometry error is about: the parameter or the
    size it names in its ``field``, else the size (which decides the geometry)."""
    if exc.field is not None and exc.field in doc:
        return (exc.field,)
    return ("size",) if "size" in doc else ()


def _family_givens(doc: dict[str, Any], layout: list[list[int]], labels: set[Any]
                   ) -> list[list[Any]] | None:
    """Read ``givens``: one list per layout row, 0 / null / "." for an empty cell."""
    rows: list[Any] | None = field(doc, "givens", list, required=False)
    if rows is None:
        return None
    if len(rows) != len(layout):
        raise SchemaError(f"givens has {len(rows)} rows, expected {len(layout)}", ("givens",))
    for r, (row, cells) in enumerate(zip(rows, layout, strict=True)):
        if not isinstance(row, list):
            raise SchemaError("a givens row must be a list", ("givens", r))
        if len(row) != len(cells):
            raise SchemaError(f"givens row {r} has {len(row)} cells, expected {len(cells)}",
                              ("givens", r))
        for c, v in enumerate(row):
            if v in (0, None, ".", "") and not isinstance(v, bool):
                continue
            if not _is_label(v) or v not in labels:
                raise SchemaError(f"given {excerpt(v)} at ({r},{c}) is not a label of this board "
                                  f"(expected {_describe(labels)}, or 0 for empty)", ("givens", r, c))
    return rows


def family_reader(name: str) -> Callable[[dict[str, Any]], Board]:
    """The document reader of a family: ``kind``, ``size``, its parameters, ``givens`` and
    the relation keys (``less``, ``consecutive``, ..., ``cages``) the family allows."""

    def read(doc: dict[str, Any]) -> Board:
        fam = get_family(name)
        allowed = {"kind", "name", "givens"} | set(fam.params)
        allowed |= {"size"} if fam.size_expr is not None else set()
        allowed |= {key for key, kind in relation_keys().items()
                    if fam.relation_mode(kind) != "none"}
        _check_keys(doc, allowed)
        size = _size(doc) if "size" in doc else None
        params = {}
        bad = bad_param(fam, {key: doc[key] for key in fam.params if key in doc})
        if bad:
            raise SchemaError(f"{bad[0]}: {bad[1]}", (bad[0],))
        for key, spec in fam.params.items():
            if key in doc:
                try:
                    params[key] = spec.parse(doc[key])
                except (BoardError, ValueError) as exc:  # ValueError: int() refused a value
                    raise SchemaError(clip(str(exc)), (key,)) from None
        try:
            base = fam.template(params, size)
        except BoardError as exc:
            raise SchemaError(clip(str(exc)), _param_path(doc, exc)) from None
        except ValueError as exc:  # int() refused a value
            raise SchemaError(clip(str(exc)), ("size",) if "size" in doc else ()) from None
        layout = fam.layout(base)
        givens = _family_givens(doc, layout, set(base.values))
        found = _read_relations(doc, grid=base.shape is not None)

        def givens_at(cell: int) -> Path | None:
            for r, row in enumerate(layout):
                if cell in row and givens is not None:
                    return ("givens", r, row.index(cell))
            return None

        try:
            return fam.build(givens, (), size, found.items, **params)
        except RelationError as exc:
            raise SchemaError(clip(str(exc)), found.path_of(exc, doc)) from None
        except BoardError as exc:
            cols = base.shape[1] if base.shape else None
            raise SchemaError(clip(str(exc)), _board_error_path(doc, exc, found, cols, givens_at)
                              ) from None

    return read


def _param_data(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_param_data(v) for v in value]
    return value


def write_family(board: Board) -> dict[str, Any]:
    """The document of a family board (the general ``board`` form if it is not one).

    Relations that the family's ``complete`` rule derives are left out: the
    reader derives them again.
    """
    try:
        fam = get_family(board.kind)
        base = fam.template(dict(board.params))
    except FutocpError:
        return _write_board(board)
    same = (base.n_cells == board.n_cells and base.asterisms == board.asterisms
            and base.labels == board.labels and base.shape == board.shape
            and base.inscription == board.inscription
            and set(base.clues) <= set(board.clues)
            and all(fam.relation_mode(k) != "none" for k in board.relation_kinds))
    if not same:
        return _write_board(board)
    out: dict[str, Any] = {"kind": fam.name}
    if fam.size_expr is not None and board.shape is not None:
        out["size"] = board.shape[0]
    for key, value in board.params:
        if key != fam.size_expr:
            out[key] = _param_data(value)
    empty = 0 if isinstance(board.labels[0], int) else "."
    clues = board.clue_map
    out["givens"] = [[clues.get(c, empty) for c in row] for row in fam.layout(board)]
    rels = _relations_data(board, explicit_relations(board), board.shape[1] if board.shape else None)
    for key in fam.spec.get("lists") or ():  # listed even when empty: a template to fill in
        out[relation_key(key)] = rels.pop(relation_key(key), [])
    out.update(rels)
    return out


Kind = tuple[Callable[[dict[str, Any]], Board], Callable[[Board], dict[str, Any]]]


def kinds() -> dict[str, Kind]:
    """Every document kind: ``board`` and every family of ``models/*.yaml``, by name.

    Read when first needed, not at import: a broken family file is then an error
    of the commands that read documents, naming the file, not of every command.
    """
    out: dict[str, Kind] = {"board": (_read_board, _write_board)}
    for fam in list_families():
        out.setdefault(fam.name, (family_reader(fam.name), write_family))
    return out


def from_data(doc: Any) -> Board:
    """Build a Board from a parsed JSON/YAML document.

    Raises:
        SchemaError: with the path of the offending item.
    """
    if not isinstance(doc, dict):
        raise SchemaError(f"the document must be a mapping with a 'kind', got {a_type(doc)}")
    kind = field(doc, "kind", str)
    known = kinds()
    if kind not in known:
        raise SchemaError(f"unknown kind {excerpt(kind)}{did_you_mean(kind, sorted(known))} "
                          f"(known: {', '.join(sorted(known))})", ("kind",))
    return known[kind][0](doc)


def to_data(board: Board) -> dict[str, Any]:
    """The document of a Board (its own kind when the schema has one, else ``board``)."""
    known = kinds()
    writer = known.get(board.kind, known["board"])[1]
    return writer(board)
