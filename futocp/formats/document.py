"""JSON and YAML documents (the schema of :mod:`futocp.formats.schema`).

Errors name the file, line and column: syntax errors from the parser's own
position, schema errors by locating the offending item in the text.

Neither reader trusts the file: YAML aliases are refused (a "billion laughs"
file cannot expand), nesting deeper than :data:`~futocp.yamlsafe.MAX_DEPTH`
levels and integers of more than :data:`~futocp.yamlsafe.MAX_INT_DIGITS`
digits are errors in both, and a YAML file holds at most :data:`MAX_NODES`
values. YAML is first walked as a stream of parser events (libyaml's parser
keeps no C stack per level, unlike its composer, which a 50,000-deep file
crashes), which checks all of this before any node is built; then it is
loaded by :class:`~futocp.yamlsafe.BoundedLoader`'s rules (the C loader when
PyYAML has one, for speed: the walk has already bounded what it meets).

Example:
    >>> b = JSON.loads('{"kind": "latin-square", "size": 2, "givens": [[1, 0], [0, 0]]}', "x")[0]
    >>> b.clue_map
    {0: 1}
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from typing import Any

from ..board import Board
from ..errors import BoardError, InputError
from .base import Format
from .limits import MAX_DEPTH, MAX_INT_DIGITS, empty, excerpt
from .limits import clip as _clip
from .schema import Path, SchemaError, from_data, to_data

__all__ = ["JSON", "YAML", "locate", "MAX_NODES"]


@functools.cache
def _loader() -> Any:
    """PyYAML's C loader when it is built, else the pure-Python one (PyYAML is imported
    on the first YAML document: a JSON file never pays for it)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_NODES = 300_000
"""Most values (scalars, lists and mappings) a YAML document may hold: PyYAML reads
about 50,000 a second, so a larger board is for JSON (a 500 x 500 grid fits)."""

_INT_TAG = "tag:yaml.org,2002:int"
_PLAIN_TAGS = {"!", "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"}


def locate(text: str, path: Path) -> tuple[int, int] | None:
    """1-based (line, column) of the item at ``path`` in a JSON/YAML text (of the deepest
    item on the way when the path goes further than the text).

    The text is walked as parser events, never built into a tree, and the walk
    stops once past the item: locating costs no memory on a large file.
    """
    target = tuple(path)
    best: tuple[int, int] | None = None
    # open collections: [path (None inside a key), is a mapping, next is a key, pending key, index]
    stack: list[list[Any]] = []
    event: Any
    import yaml

    try:
        for event in yaml.parse(text, Loader=_loader()):
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                done = stack.pop()[0]
                if done is not None and best is not None and len(done) < len(target) \
                        and target[:len(done)] == done:
                    return best  # the item's container is closed: it is not there
                continue
            if not isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent,
                                      yaml.MappingStartEvent, yaml.AliasEvent)):
                continue
            here: tuple[Any, ...] | None = ()
            if stack:
                top = stack[-1]
                if top[0] is None:
                    here = None
                elif top[1] and top[2]:  # a key of a mapping
                    top[2] = False
                    top[3] = event.value if isinstance(event, yaml.ScalarEvent) else None
                    here = None
                elif top[1]:
                    top[2] = True
                    here = top[0] + (top[3],)
                else:
                    here = top[0] + (top[4],)
                    top[4] += 1
            mark = event.start_mark
            if here is not None and mark is not None and target[:len(here)] == here:
                best = (mark.line + 1, mark.column + 1)
                if here == target:
                    return best
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                stack.append([here, isinstance(event, yaml.MappingStartEvent), True, None, 0])
    except yaml.YAMLError:
        return best
    return best


def _board(doc: Any, text: str, source: str) -> Board:
    try:
        return from_data(doc)
    except SchemaError as exc:
        where = locate(text, exc.path) if exc.path else None
        line, col = where if where else (None, None)
        raise InputError(_clip(exc.message if where else str(exc)), source, line, col) from None
    except (BoardError, ValueError) as exc:  # a family's own check, outside the schema's reach
        raise InputError(_clip(str(exc)), source) from None


# ------------------------------------------------------------------ JSON
class _LongInt(ValueError):
    def __init__(self, digits: str) -> None:
        super().__init__(digits)
        self.digits = digits


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _LongInt(digits)
    return int(digits)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_JSON_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"|[^\[\]{}"]+')


def _too_deep_at(text: str) -> int | None:
    """Offset of the first ``[`` / ``{`` deeper than MAX_DEPTH in a JSON text (strings skipped)."""
    depth, i, end = 0, 0, len(text)
    while i < end:
        m = _JSON_SKIP.match(text, i)
        if m:
            i = m.end()
            continue
        ch = text[i]
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif ch in "]}":
            depth -= 1
        i += 1
    return None


def _depth_ok(doc: Any) -> bool:
    """True when no list or mapping of ``doc`` lies deeper than MAX_DEPTH (no recursion)."""
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            if depth > MAX_DEPTH:
                return False
            stack.extend((x, depth + 1) for x in (node.values() if isinstance(node, dict) else node))
    return True


def _loads_json(text: str, source: str) -> list[Board]:
    deep = f"nesting deeper than {MAX_DEPTH} levels"
    try:
        doc = json.loads(text, parse_int=_parse_int, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        nothing = empty(source, text) if not text.strip() else None
        why = nothing.message if nothing is not None else exc.msg
        raise InputError(f"invalid JSON: {why}", source, exc.lineno, exc.colno) from None
    except _DuplicateKey as exc:
        found = list(re.finditer(re.escape(json.dumps(exc.key)) + r"\s*:", text))
        at = _position(text, found[1].start()) if len(found) > 1 else (None, None)
        raise InputError(f"the key {excerpt(exc.key)} appears twice in one object", source,
                         *at) from None
    except _LongInt as exc:
        m = re.search(rf"(?<![\w.]){re.escape(exc.digits)}(?![\w.])", text)
        at = _position(text, m.start()) if m else (None, None)
        raise InputError(f"an integer of {len(exc.digits.lstrip('-'))} digits (at most "
                         f"{MAX_INT_DIGITS})", source, *at) from None
    except RecursionError:
        offset = _too_deep_at(text)
        raise InputError(deep, source, *(_position(text, offset) if offset is not None
                                         else (None, None))) from None
    if not _depth_ok(doc):
        offset = _too_deep_at(text)
        raise InputError(deep, source, *(_position(text, offset) if offset is not None
                                         else (None, None)))
    return [_board(doc, text, source)]


# ------------------------------------------------------------------ YAML
@functools.cache
def _resolver() -> Any:
    import yaml

    return yaml.resolver.Resolver()


def _refuse(message: str, mark: Any, source: str) -> InputError:
    return InputError(message, source, mark.line + 1, mark.column + 1)


def _check_events(text: str, source: str) -> None:
    """Walk the parser's events: no aliases, no tags but plain ones, no key twice in a
    mapping, bounded depth, integer size and number of values.

    The walk stops at the first problem, so a hostile file costs little.
    """
    import yaml

    depth = nodes = 0
    scalar, seq, mapping = yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent
    ends = {yaml.SequenceEndEvent, yaml.MappingEndEvent}
    # one entry per open collection: None for a list, else [keys seen, next node is a key]
    open_: list[list[Any] | None] = [None]
    event: Any
    resolver = _resolver()
    for event in yaml.parse(text, Loader=_loader()):
        kind = type(event)
        if kind in ends:
            depth -= 1
            open_.pop()
            continue
        if kind is yaml.AliasEvent:
            raise _refuse(f"aliases are not allowed here (*{excerpt(event.anchor)[1:-1]})",
                          event.start_mark, source)
        if kind is not scalar and kind is not seq and kind is not mapping:
            continue
        nodes += 1
        if nodes > MAX_NODES:
            raise _refuse(f"more than {MAX_NODES:,} values (use JSON for boards this large)",
                          event.start_mark, source)
        tag = event.tag
        if tag is not None and tag not in _PLAIN_TAGS:
            raise _refuse(f"the tag {excerpt(tag)} is not allowed here (plain values only)",
                          event.start_mark, source)
        parent = open_[-1]
        if parent is not None:
            if parent[1] and kind is scalar:
                if event.value in parent[0]:
                    raise _refuse(f"the key {excerpt(event.value)} appears twice in one "
                                  "mapping", event.start_mark, source)
                parent[0].add(event.value)
            parent[1] = not parent[1]
        if kind is scalar:
            if len(event.value) > MAX_INT_DIGITS and tag is None and resolver.resolve(
                    yaml.ScalarNode, event.value, event.implicit) == _INT_TAG:
                digits = sum(ch in "0123456789abcdefABCDEF" for ch in event.value)
                if digits > MAX_INT_DIGITS:
                    raise _refuse(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})",
                                  event.start_mark, source)
            continue
        depth += 1
        if depth > MAX_DEPTH:
            raise _refuse(f"nesting deeper than {MAX_DEPTH} levels", event.start_mark, source)
        open_.append([set(), True] if kind is mapping else None)


def _loads_yaml(text: str, source: str) -> list[Board]:
    import yaml

    from ..yamlsafe import BoundedLoader

    loader = _loader()
    try:
        _check_events(text, source)
        doc = yaml.load(text, Loader=loader if loader is not yaml.SafeLoader  # noqa: S506
                        else BoundedLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        problem = _clip(problem)
        if mark is not None:
            raise InputError(f"invalid YAML: {problem}", source, mark.line + 1, mark.column + 1) from None
        raise InputError(f"invalid YAML: {problem}", source) from None
    except ValueError as exc:  # a constructor's own refusal (a date out of range...)
        raise InputError(f"invalid YAML: {_clip(str(exc))}", source) from None
    if doc is None:
        nothing = empty(source, text)
        if nothing is not None:
            raise nothing
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


@functools.cache
def _dumper() -> Any:
    """PyYAML's safe dumper, block style for documents, flow style for rows and for
    lists of coordinates."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def represent_list(self, data: Iterable[Any]) -> yaml.SequenceNode:
            items = list(data)

            def flat(x: Any) -> bool:
                return not isinstance(x, (list, dict))

            def coords(x: Any) -> bool:  # [r, c]
                return isinstance(x, list) and len(x) == 2 and all(map(flat, x))

            inline = all(flat(x) for x in items) or (
                len(items) == 2 and all(isinstance(x, list) and all(map(flat, x)) for x in items)
            ) or all(coords(x) for x in items)  # a pair of cells, the cells of a cage
            return self.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=inline)

    Dumper.add_representer(list, Dumper.represent_list)
    return Dumper


def _dumps_yaml(board: Board) -> str:
    import yaml

    return yaml.dump(to_data(board), Dumper=_dumper(), sort_keys=False, width=1000)


def _sniff_json(text: str) -> bool:
    return text.lstrip().startswith("{")


def _sniff_yaml(text: str) -> bool:
    return any(line.startswith("kind:") for line in text.splitlines())


JSON = Format("json", (".json",), _loads_json, _dumps_json, _sniff_json)
YAML = Format("yaml", (".yaml", ".yml"), _loads_yaml, _dumps_yaml, _sniff_yaml)
