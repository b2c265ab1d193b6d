"""A YAML loader for files futocp did not write: bounded, alias-free, never a traceback.

PyYAML's ``SafeLoader`` constructs only plain data, but it still accepts what
a hostile file uses to exhaust a machine: anchors and aliases (a "billion
laughs" file expands to gigabytes once its values are walked), nesting deep
enough to overflow the C stack or Python's recursion limit, and integers of
thousands of digits. :class:`BoundedLoader` refuses all three with a
:class:`yaml.MarkedYAMLError` carrying the line and column, which the readers
turn into a one-line :class:`~futocp.errors.InputError`. PyYAML offers no
switch for these limits, hence the few lines here.

Example:
    >>> load_bounded("a: [1, 2]")
    {'a': [1, 2]}
    >>> try:
    ...     load_bounded("a: &x [1]\\nb: *x")
    ... except yaml.YAMLError as exc:
    ...     print(exc.problem, exc.problem_mark.line + 1)
    aliases are not allowed here (*x) 2
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError

__all__ = ["BoundedLoader", "load_bounded", "MAX_DEPTH", "MAX_INT_DIGITS"]

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted."""

MAX_INT_DIGITS = 30
"""Longest integer accepted (digits)."""


class BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` without aliases, with bounded depth and integer size."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: D102
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise ComposerError(None, None, f"aliases are not allowed here (*{event.anchor})",
                                event.start_mark)
        if self.check_event(yaml.MappingStartEvent, yaml.SequenceStartEvent):
            if self._depth >= MAX_DEPTH:
                event = self.peek_event()
                raise ComposerError(None, None, f"nesting deeper than {MAX_DEPTH} levels",
                                    event.start_mark)
            self._depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1
        return super().compose_node(parent, index)

    def construct_yaml_int(self, node: Any) -> int:  # noqa: D102
        digits = sum(ch.isdigit() for ch in str(node.value))
        if digits > MAX_INT_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of {digits} digits (at most {MAX_INT_DIGITS})",
                node.start_mark)
        return super().construct_yaml_int(node)


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)


def load_bounded(text: str) -> Any:
    """``yaml.load(text)`` with :class:`BoundedLoader`.

    Raises:
        yaml.YAMLError: for invalid YAML or a refused construct (with its mark).
    """
    return yaml.load(text, Loader=BoundedLoader)  # noqa: S506 - a SafeLoader subclass
