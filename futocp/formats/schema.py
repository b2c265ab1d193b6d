"""The JSON/YAML document schema: plain data <-> Board.

A document is a mapping with a ``kind``; :data:`KINDS` maps each kind to the
pair of functions that read and write it, so that families can add theirs.
Errors raise :class:`SchemaError` with the *path* of the offending item
(``("givens", 2, 3)``); the JSON and YAML readers turn that path into a line
and column of the file.

Example:
    >>> b = from_data({"kind": "futoshiki", "size": 2, "givens": [[1, 0], [0, 0]],
    ...                "less": [[[1, 0], [1, 1]]]})
    >>> to_data(b)["less"]
    [[[1, 0], [1, 1]]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..board import Board
from ..errors import BoardError, FutocpError
from ..families import Family, futoshiki, get_family, latin_square, list_families

__all__ = ["SchemaError", "KINDS", "from_data", "to_data", "Path", "field", "grid_givens",
           "family_reader", "write_family"]

Path = tuple[Any, ...]


class SchemaError(FutocpError):
    """A document that does not follow the schema, with the path of the bad item."""

    def __init__(self, message: str, path: Path = ()) -> None:
        self.message = message
        self.path = path
        where = "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in path)
        super().__init__(f"{where}: {message}" if where else message)


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
        names = " or ".join(k.__name__ for k in kinds)
        raise SchemaError(f"{key!r} must be {names}, got {type(value).__name__}", (key,))
    return value


def _check_keys(doc: dict[str, Any], allowed: set[str]) -> None:
    for key in doc:
        if key not in allowed:
            raise SchemaError(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})", (key,))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def grid_givens(doc: dict[str, Any], n: int, labels: set[Any] | None = None) -> list[list[Any]] | None:
    """Read and check ``givens``: n rows of n labels, 0 / null for empty."""
    rows = field(doc, "givens", list, required=False)
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
            if v not in allowed or isinstance(v, bool):
                raise SchemaError(f"given {v!r} at ({r},{c}) is not a label of this board "
                                  f"(expected {_describe(allowed)} or 0)", ("givens", r, c))
    return rows


def _describe(labels: set[Any]) -> str:
    if labels and all(_is_int(x) for x in labels) and len(labels) == max(labels) - min(labels) + 1:
        return f"{min(labels)}..{max(labels)}"
    return ", ".join(map(repr, sorted(labels, key=str)))


def _grid_less(doc: dict[str, Any], n: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    pairs = field(doc, "less", list, required=False, default=[])
    out = []
    for i, pair in enumerate(pairs):
        ok = (isinstance(pair, list) and len(pair) == 2
              and all(isinstance(p, list) and len(p) == 2 and all(_is_int(x) for x in p) for p in pair))
        if not ok:
            raise SchemaError("each less item is [[r1, c1], [r2, c2]]", ("less", i))
        for p in pair:
            if not all(0 <= x < n for x in p):
                raise SchemaError(f"cell {p} is outside the {n}x{n} grid", ("less", i))
        out.append((tuple(pair[0]), tuple(pair[1])))
    return out


def _size(doc: dict[str, Any]) -> int:
    n = field(doc, "size", int)
    if n < 1:
        raise SchemaError(f"size must be positive, got {n}", ("size",))
    return n


def _read_grid(doc: dict[str, Any], make: Callable[..., Board]) -> Board:
    _check_keys(doc, {"kind", "size", "givens", "less", "name"})
    n = _size(doc)
    givens = grid_givens(doc, n)
    less = _grid_less(doc, n)
    try:
        return make(n, givens, less)
    except BoardError as exc:
        raise SchemaError(str(exc), ("less",) if "inequalit" in str(exc) else ()) from None


def _write_grid(board: Board) -> dict[str, Any]:
    n = board.shape[0] if board.shape else 0
    clues = board.clue_map
    out: dict[str, Any] = {"kind": board.kind, "size": n,
                           "givens": [[clues.get(r * n + c, 0) for c in range(n)] for r in range(n)]}
    if board.less or board.kind == "futoshiki":
        out["less"] = [[list(divmod(a, n)), list(divmod(b, n))] for a, b in board.less]
    return out


def _label_list(doc: dict[str, Any], key: str) -> list[Any]:
    labels = field(doc, key, list)
    for i, x in enumerate(labels):
        if not (_is_int(x) or isinstance(x, str)):
            raise SchemaError(f"label {x!r} must be an integer or a string", (key, i))
    return labels


def _read_board(doc: dict[str, Any]) -> Board:
    _check_keys(doc, {"kind", "cells", "labels", "asterisms", "clues", "inscription", "less",
                      "shape", "name"})
    n = field(doc, "cells", int)
    if n < 1:
        raise SchemaError(f"cells must be positive, got {n}", ("cells",))
    labels = _label_list(doc, "labels")
    asterisms = field(doc, "asterisms", list)

    def cell(x: Any, path: Path) -> int:
        if not _is_int(x) or not 0 <= x < n:
            raise SchemaError(f"{x!r} is not a cell number 0..{n - 1}", path)
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
        if item[1] not in allowed or isinstance(item[1], bool):
            raise SchemaError(f"clue label {item[1]!r} is not in labels", ("clues", i, 1))
        clues.append((cell(item[0], ("clues", i, 0)), item[1]))
    inscription = [cell(x, ("inscription", i))
                   for i, x in enumerate(field(doc, "inscription", list, required=False, default=[]))]
    less = []
    for i, item in enumerate(field(doc, "less", list, required=False, default=[])):
        if not (isinstance(item, list) and len(item) == 2):
            raise SchemaError("each less item is [cell_a, cell_b]", ("less", i))
        less.append((cell(item[0], ("less", i, 0)), cell(item[1], ("less", i, 1))))
    shape = field(doc, "shape", list, required=False)
    if shape is not None and not (len(shape) == 2 and all(_is_int(x) and x > 0 for x in shape)):
        raise SchemaError("shape is [rows, cols]", ("shape",))
    try:
        return Board(n, tuple(asts), tuple(labels), clues=tuple(clues),
                     inscription=frozenset(inscription), less=tuple(less),
                     shape=tuple(shape) if shape else None, kind="board")
    except BoardError as exc:
        raise SchemaError(str(exc)) from None


def _write_board(board: Board) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "board", "cells": board.n_cells, "labels": list(board.labels),
                           "asterisms": [list(a) for a in board.asterisms],
                           "clues": [[c, v] for c, v in board.clues]}
    if board.inscription:
        out["inscription"] = sorted(board.inscription)
    if board.less:
        out["less"] = [[a, b] for a, b in board.less]
    if board.shape:
        out["shape"] = list(board.shape)
    return out


def _param_path(fam: Family, doc: dict[str, Any], message: str) -> Path:
    """The document key a family's geometry error is about (a parameter, or size)."""
    for key, spec in fam.params.items():
        if key in doc and (message.startswith(key) or key in message.split()
                           or (spec.type == "regions" and "region" in message)):
            return (key,)
    return ("size",) if "size" in doc else ()


def _family_givens(doc: dict[str, Any], layout: list[list[int]], labels: set[Any]
                   ) -> list[list[Any]] | None:
    """Read ``givens``: one list per layout row, 0 / null / "." for an empty cell."""
    rows = field(doc, "givens", list, required=False)
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
            if v not in labels or isinstance(v, bool):
                raise SchemaError(f"given {v!r} at ({r},{c}) is not a label of this board "
                                  f"(expected {_describe(labels)}, or 0 for empty)", ("givens", r, c))
    return rows


def family_reader(name: str) -> Callable[[dict[str, Any]], Board]:
    """The document reader of a family: ``kind``, ``size``, its parameters, ``givens``, ``less``."""

    def read(doc: dict[str, Any]) -> Board:
        fam = get_family(name)
        allowed = {"kind", "name", "givens"} | set(fam.params)
        allowed |= {"size"} if fam.size_expr is not None else set()
        allowed |= {"less"} if fam.less_mode != "none" else set()
        _check_keys(doc, allowed)
        size = _size(doc) if "size" in doc else None
        params = {}
        for key, spec in fam.params.items():
            if key in doc:
                try:
                    params[key] = spec.parse(doc[key])
                except BoardError as exc:
                    raise SchemaError(str(exc), (key,)) from None
        try:
            base = fam.template(params, size)
        except BoardError as exc:
            raise SchemaError(str(exc), _param_path(fam, doc, str(exc))) from None
        givens = _family_givens(doc, fam.layout(base), set(base.values))
        less = _grid_less(doc, base.shape[0]) if base.shape and "less" in doc else []
        try:
            return fam.build(givens, less, size, **params)
        except BoardError as exc:
            msg = str(exc)
            raise SchemaError(msg, ("less",) if "inequalit" in msg else
                              ("givens",) if "given" in msg else ()) from None

    return read


def _param_data(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_param_data(v) for v in value]
    return value


def write_family(board: Board) -> dict[str, Any]:
    """The document of a family board (the general ``board`` form if it is not one)."""
    try:
        fam = get_family(board.kind)
        base = fam.template(dict(board.params))
    except FutocpError:
        return _write_board(board)
    same = (base.n_cells == board.n_cells and base.asterisms == board.asterisms
            and base.labels == board.labels and base.shape == board.shape
            and base.inscription == board.inscription
            and set(base.clues) <= set(board.clues))
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
    if board.less:
        cols = board.shape[1] if board.shape else 0
        out["less"] = ([[list(divmod(a, cols)), list(divmod(b, cols))] for a, b in board.less]
                       if cols else [[a, b] for a, b in board.less])
    return out


KINDS: dict[str, tuple[Callable[[dict[str, Any]], Board], Callable[[Board], dict[str, Any]]]] = {
    "futoshiki": (lambda d: _read_grid(d, futoshiki), _write_grid),
    "latin-square": (lambda d: _read_grid(d, latin_square), _write_grid),
    "board": (_read_board, _write_board),
}
for _fam in list_families():  # every family of models/*.yaml, by name
    KINDS.setdefault(_fam.name, (family_reader(_fam.name), write_family))


def from_data(doc: Any) -> Board:
    """Build a Board from a parsed JSON/YAML document.

    Raises:
        SchemaError: with the path of the offending item.
    """
    if not isinstance(doc, dict):
        raise SchemaError(f"the document must be a mapping with a 'kind', got {type(doc).__name__}")
    kind = field(doc, "kind", str)
    if kind not in KINDS:
        raise SchemaError(f"unknown kind {kind!r} (known: {', '.join(sorted(KINDS))})", ("kind",))
    return KINDS[kind][0](doc)


def to_data(board: Board) -> dict[str, Any]:
    """The document of a Board (its own kind when the schema has one, else ``board``)."""
    writer = KINDS.get(board.kind, KINDS["board"])[1]
    return writer(board)
