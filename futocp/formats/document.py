"""JSON and YAML documents (the schema of :mod:`futocp.formats.schema`).

Errors name the file, line and column: syntax errors from the parser's own
position, schema errors by locating the offending item in the text.

Example:
    >>> b = JSON.loads('{"kind": "latin-square", "size": 2, "givens": [[1, 0], [0, 0]]}', "x")[0]
    >>> b.clue_map
    {0: 1}
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from ..board import Board
from ..errors import InputError
from .base import Format
from .schema import Path, SchemaError, from_data, to_data

__all__ = ["JSON", "YAML", "locate"]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def locate(text: str, path: Path) -> tuple[int, int] | None:
    """1-based (line, column) of the item at ``path`` in a JSON/YAML text."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    for key in path:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == key:
                    node = v
                    break
            else:
                break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
    if node is None:
        return None
    return node.start_mark.line + 1, node.start_mark.column + 1


def _board(doc: Any, text: str, source: str) -> Board:
    try:
        return from_data(doc)
    except SchemaError as exc:
        where = locate(text, exc.path) if exc.path else None
        line, col = where if where else (None, None)
        raise InputError(exc.message if where else str(exc), source, line, col) from None


def _loads_json(text: str, source: str) -> list[Board]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", source, exc.lineno, exc.colno) from None
    return [_board(doc, text, source)]


def _loads_yaml(text: str, source: str) -> list[Board]:
    try:
        doc = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if mark is not None:
            raise InputError(f"invalid YAML: {problem}", source, mark.line + 1, mark.column + 1) from None
        raise InputError(f"invalid YAML: {problem}", source) from None
    return [_board(doc, text, source)]


def _compact(value: Any, indent: int = 0) -> str:
    """JSON with one line per row of a list of lists or objects (grid rows, relation items)."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {_compact(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and value and all(isinstance(v, (list, dict)) for v in value):
        items = [pad + json.dumps(v, ensure_ascii=False) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _dumps_json(board: Board) -> str:
    return _compact(to_data(board)) + "\n"


class _Dumper(yaml.SafeDumper):
    """Block style for documents, flow style for rows and for lists of coordinates."""

    def represent_list(self, data: list[Any]) -> yaml.Node:
        def flat(x: Any) -> bool:
            return not isinstance(x, (list, dict))

        def coords(x: Any) -> bool:  # [r, c]
            return isinstance(x, list) and len(x) == 2 and all(map(flat, x))

        inline = all(flat(x) for x in data) or (
            len(data) == 2 and all(isinstance(x, list) and all(map(flat, x)) for x in data)
        ) or all(coords(x) for x in data)  # a pair of cells, the cells of a cage
        return self.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=inline)


_Dumper.add_representer(list, _Dumper.represent_list)


def _dumps_yaml(board: Board) -> str:
    return yaml.dump(to_data(board), Dumper=_Dumper, sort_keys=False, width=1000)


def _sniff_json(text: str) -> bool:
    return text.lstrip().startswith("{")


def _sniff_yaml(text: str) -> bool:
    return any(line.startswith("kind:") for line in text.splitlines())


JSON = Format("json", (".json",), _loads_json, _dumps_json, _sniff_json)
YAML = Format("yaml", (".yaml", ".yml"), _loads_yaml, _dumps_yaml, _sniff_yaml)
