"""File formats: one module per format, each with read and write.

:data:`FORMATS` maps a format name to its :class:`~futocp.formats.base.Format`.
The format of a file is chosen by ``format=``, else by its extension, else by
sniffing its content.

Example:
    >>> from futocp.families import futoshiki
    >>> b = futoshiki(2, [[1, 0], [0, 0]])
    >>> loads(dumps(b, "json"), "json") == b
    True
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import InputError, UsageError
from .base import Format, atomic_write
from .document import JSON, YAML
from .jigsaw import JIGSAW
from .qwh import DZN, PLS
from .sudoku import SUDOKU
from .tatham import TATHAM
from .text import TEXT

__all__ = ["FORMATS", "Format", "detect", "loads", "loads_many", "read", "read_many",
           "dumps", "write", "format_solution"]

FORMATS: dict[str, Format] = {f.name: f for f in (JSON, YAML, TEXT, TATHAM, PLS, DZN, JIGSAW,
                                                       SUDOKU)}


def _register(*formats: Format) -> None:
    for fmt in formats:
        FORMATS[fmt.name] = fmt


def _get(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r} (known: {', '.join(FORMATS)})") from None


def detect(path: str | None, text: str | None = None) -> str:
    """The format name for a file: by extension first, then by content.

    When the formats of the extension do not recognise the content but another
    format does (a ``.txt`` file of Sudoku lines), the content wins.
    """
    if path:
        low = os.fspath(path).lower()
        by_ext = [f for f in FORMATS.values() if any(low.endswith(ext) for ext in f.extensions)]
        if by_ext and text is not None and not any(f.sniff(text) for f in by_ext):
            sniffed = next((f for f in FORMATS.values() if f.sniff(text)), None)
            if sniffed is not None:
                return sniffed.name
        if by_ext:
            return by_ext[0].name
    if text is not None:
        for fmt in FORMATS.values():
            if fmt.sniff(text):
                return fmt.name
    raise InputError("cannot tell the format; name it with --format "
                     f"({', '.join(FORMATS)})", os.fspath(path) if path else "<string>")


def loads_many(text: str, format: str | None = None, source: str = "<string>") -> list[Board]:
    """Every board in a text (collections hold several)."""
    name = format or detect(None if source == "<string>" else source, text)
    boards = _get(name).loads(text, source)
    if not boards:
        raise InputError("no instance in the file", source)
    return boards


def loads(text: str, format: str | None = None, source: str = "<string>") -> Board:
    """The one board in a text (the first of a collection)."""
    return loads_many(text, format, source)[0]


def _read_text(path: str | os.PathLike[str]) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise InputError("no such file", os.fspath(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not an instance file", os.fspath(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not a UTF-8 text file ({exc.reason})", os.fspath(path)) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), os.fspath(path)) from None


def read_many(path: str | os.PathLike[str], format: str | None = None) -> list[Board]:
    """Every board in a file."""
    text = _read_text(path)
    name = format or detect(os.fspath(path), text)
    return loads_many(text, name, os.fspath(path))


def read(path: str | os.PathLike[str], format: str | None = None) -> Board:
    """The board in a file (the first of a collection)."""
    return read_many(path, format)[0]


def dumps(board: Board, format: str = "json") -> str:
    """The text of a board in a format."""
    return _get(format).dumps(board)


def write(board: Board, path: str | os.PathLike[str], format: str | None = None) -> None:
    """Write a board to a file, atomically (format by extension when not given)."""
    name = format or detect(os.fspath(path))
    atomic_write(path, dumps(board, name))


def format_solution(board: Board, values: Sequence[Any], format: str) -> str | None:
    """The format's own notation for a solution, when it has one (e.g. Tatham's ``S...``)."""
    fmt = _get(format)
    return fmt.solution(board, values) if fmt.solution else None
