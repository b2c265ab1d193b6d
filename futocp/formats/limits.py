"""The limits every reader applies to a file it did not write.

A hostile file must end in a one-line :class:`~futocp.errors.InputError`
naming it, within seconds and in little memory. The readers check sizes and
counts against :data:`MAX_GRID` / :data:`MAX_CELLS` *before* allocating
anything of that size, read integers of at most :data:`MAX_INT_DIGITS` digits
(:func:`int_token`), take ASCII digits only (``①`` or ``٣`` is not a number:
:func:`is_ascii_digits`), and quote what a file holds through :func:`excerpt`.
:func:`decode_text` turns a file's bytes into text: at most
:data:`MAX_FILE_BYTES`, UTF-8 with or without a byte-order mark, an error with
line and column otherwise. The nesting and integer limits are those of
:mod:`futocp.yamlsafe`, for JSON as for YAML.

Example:
    >>> excerpt("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (1000 characters)"
    >>> decode_text(b"\\xef\\xbb\\xbforder 2", "f.pls")
    'order 2'
    >>> decode_text(b"order 2\\n1 \\xe9 0", "f.pls")
    Traceback (most recent call last):
    ...
    futocp.errors.InputError: f.pls:2:3: not a UTF-8 text file (byte 0xe9: invalid continuation byte)
    >>> int_token("9" * 40, "f.txt", 1, 5)
    Traceback (most recent call last):
    ...
    futocp.errors.InputError: f.txt:1:5: an integer of 40 digits (at most 30)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InputError
from ..families import MAX_GRID
from ..yamlsafe import MAX_DEPTH, MAX_INT_DIGITS
from .base import content_lines

__all__ = ["decode_text", "strip_bom", "excerpt", "clip", "int_token", "is_ascii_digits", "empty",
           "check_side", "bad_number", "bad_param",
           "Collection", "MAX_FILE_BYTES", "MAX_CELLS", "MAX_GRID", "MAX_DEPTH", "MAX_INT_DIGITS",
           "MAX_INSTANCES", "MAX_CLUES"]

MAX_FILE_BYTES = 16 * 2**20
"""Largest instance file read (16 MiB: a 1000 x 1000 grid fits in every format)."""

MAX_CELLS = MAX_GRID * MAX_GRID
"""Most cells of a board a reader builds (a general ``board`` document's ``cells``)."""

MAX_INSTANCES = 100_000
"""Most instances one collection file may hold (reading costs about 0.2 ms and 2 kB each)."""

MAX_CLUES = 2 * MAX_CELLS
"""Most clues, over all its instances, one collection file may hold."""

_EXCERPT = 40


def excerpt(value: Any, limit: int = _EXCERPT) -> str:
    """``repr(value)`` cut to about ``limit`` characters (strings say their full length).

    A container is walked only as far as the excerpt needs, so a 100 kB string
    or a list of a million items is never printed (nor formatted) whole.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return repr(value[:limit])[:-1] + f"...' ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return _short_repr(value, limit)
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _short_repr(value: Any, limit: int) -> str:
    out: list[str] = []
    size = 0

    def emit(s: str) -> bool:
        nonlocal size
        out.append(s)
        size += len(s)
        return size < limit

    def walk(x: Any, depth: int) -> bool:
        if depth > 4:
            return emit("...")
        if isinstance(x, dict):
            if not emit("{"):
                return False
            for i, (k, v) in enumerate(x.items()):
                if (i and not emit(", ")) or not walk(k, depth + 1) or not emit(": ") \
                        or not walk(v, depth + 1):
                    return False
            return emit("}")
        if isinstance(x, (list, tuple, set, frozenset)):
            if not emit("[" if isinstance(x, list) else "("):
                return False
            for i, v in enumerate(x):
                if (i and not emit(", ")) or not walk(v, depth + 1):
                    return False
            return emit("]" if isinstance(x, list) else ")")
        return emit(excerpt(x, limit))

    complete = walk(value, 0)
    text = "".join(out)
    return text if complete and len(text) <= limit else text[:limit] + "..."


_NOT_FILES = ("<stdin>", "<puzzle>", "<string>")


def empty(source: str, text: str) -> InputError | None:
    """The error for a text that holds no puzzle at all, or None.

    A blank text is empty ("the file is empty", or "the input is empty" for
    standard input, ``--puzzle`` and strings); one of ``#`` comments only holds
    no puzzle.

    Example:
        >>> str(empty("<stdin>", " \\n")), str(empty("a.txt", "# notes\\n"))
        ('<stdin>: the input is empty', 'a.txt: only comments, no puzzle')
        >>> empty("a.txt", "1") is None
        True
    """
    if not text.strip():
        what = "input" if source in _NOT_FILES else "file"
        return InputError(f"the {what} is empty", source)
    if next(content_lines(text), None) is None:
        return InputError("only comments, no puzzle", source)
    return None


MAX_MESSAGE = 300
"""Longest message kept from another layer (a family's or a parser's own words)."""


def clip(message: str, limit: int = MAX_MESSAGE) -> str:
    """A message cut to ``limit`` characters (what another layer says can quote a whole value)."""
    return message if len(message) <= limit else message[:limit] + "..."


_NUMBER_RUN = re.compile(r"[0-9]+")


def bad_number(value: Any) -> str | None:
    """Why a parameter value cannot be read as numbers, or None.

    Family parameters (``box=3x3``, ``multiset=111222333``, ``[2, 3]``) turn digits
    into integers; a digit that is not ASCII (``①``, ``٣``) or a run of more than
    :data:`MAX_INT_DIGITS` digits is refused here, before that. Lists are looked
    into (to the nesting depth the document readers allow).
    """
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            odd = next((ch for ch in x if ch.isdigit() and not ch.isascii()), None)
            if odd is not None:
                return f"{odd!r} is not a digit 0-9"
            longest = max((len(m) for m in _NUMBER_RUN.findall(x)), default=0)
            if longest > MAX_INT_DIGITS:
                return f"an integer of {longest} digits (at most {MAX_INT_DIGITS})"
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return None


_NUMERIC = ("int", "box", "multiset")  # parameter types whose digits become integers


def bad_param(fam: Any, params: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(key, why)`` for the first parameter of a family whose numbers cannot be read
    (:func:`bad_number`), or None."""
    for key, value in params.items():
        spec = fam.params.get(key)
        if spec is not None and spec.type in _NUMERIC:
            if spec.type == "multiset" and isinstance(value, str) and "," not in value:
                value = list(value)  # one label a character: 111222333
            why = bad_number(value)
            if why:
                return key, why
    return None


def is_ascii_digits(text: str) -> bool:
    """True for a non-empty run of ``0``-``9`` (``str.isdigit`` also takes ``①`` and ``٣``)."""
    return text.isascii() and text.isdigit()


def int_token(text: str, source: str, line: int | None = None, column: int | None = None) -> int:
    """The integer a token of ASCII digits (with an optional ``-``) writes.

    Raises:
        InputError: for anything else, or more than :data:`MAX_INT_DIGITS` digits.
    """
    digits = text[1:] if text.startswith("-") else text
    if not is_ascii_digits(digits):
        raise InputError(f"{excerpt(text)} is not an integer", source, line, column)
    if len(digits) > MAX_INT_DIGITS:
        raise InputError(f"an integer of {len(digits)} digits (at most {MAX_INT_DIGITS})", source,
                         line, column)
    return int(text)


def check_side(n: int, source: str, line: int | None = None, column: int | None = None,
               what: str = "size") -> int:
    """``n`` if it is a grid side futocp holds (1..:data:`MAX_GRID`), checked before anything
    of that size is allocated.

    Raises:
        InputError: naming the place of the number.
    """
    if n < 1:
        raise InputError(f"{what} must be at least 1, got {n}", source, line, column)
    if n > MAX_GRID:
        raise InputError(f"{what} {n} is larger than futocp holds ({MAX_GRID})", source, line,
                         column)
    return n


def decode_text(data: bytes, source: str, max_bytes: int | None = MAX_FILE_BYTES) -> str:
    """The text of a file's bytes: UTF-8, with or without a byte-order mark.

    Args:
        data: The bytes.
        source: The file's name, for the errors.
        max_bytes: The most bytes accepted (None: no limit, for files futocp does not
            parse as puzzles, such as a solver's answer).

    Raises:
        InputError: for more than ``max_bytes`` bytes, or bytes that are not UTF-8
            (with the line and column of the first bad byte).
    """
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError(f"the file is larger than {max_bytes / 2**20:g} MiB, the most "
                         "futocp reads", source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[start:exc.start].decode("utf-8", "replace")) + 1
        raise InputError(f"not a UTF-8 text file (byte 0x{data[exc.start]:02x}: {exc.reason})", source,
                         line, column) from None
    return strip_bom(text)


def strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark (U+FEFF), which every reader accepts."""
    return text[1:] if text.startswith("\ufeff") else text


class Collection:
    """Counts what a collection reader has read, within :data:`MAX_INSTANCES` and
    :data:`MAX_CLUES`.

    Example:
        >>> seen = Collection("f.sudoku")
        >>> seen.instance(1)      # before reading the instance of line 1
        >>> seen.add_clues(1, 25)  # after
        >>> seen.count, seen.clues
        (1, 25)
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.count = 0
        self.clues = 0

    def precount(self, lines: Iterable[int]) -> None:
        """Refuse a file of too many instances before reading any: ``lines`` are the
        line numbers instances start on (a cheap pass over the text)."""
        for count, line in enumerate(lines, 1):
            if count > MAX_INSTANCES:
                raise InputError(f"more than {MAX_INSTANCES:,} instances in one file, the most "
                                 "futocp reads (split the file)", self.source, line, 1)

    def instance(self, line: int) -> None:
        """Account for one more instance, starting on ``line``, before it is read.

        Raises:
            InputError: beyond :data:`MAX_INSTANCES`.
        """
        self.count += 1
        if self.count > MAX_INSTANCES:
            raise InputError(f"more than {MAX_INSTANCES:,} instances in one file, the most "
                             "futocp reads (split the file)", self.source, line, 1)

    def add_clues(self, line: int, clues: int) -> None:
        """Account for the clues of the instance of ``line``.

        Raises:
            InputError: beyond :data:`MAX_CLUES` in all.
        """
        self.clues += clues
        if self.clues > MAX_CLUES:
            raise InputError(f"more than {MAX_CLUES:,} clues in one file, the most futocp "
                             "reads (split the file)", self.source, line, 1)
