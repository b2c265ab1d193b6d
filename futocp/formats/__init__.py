"""File formats: one module per format, each with read and write.

:data:`FORMATS` maps a format name to its :class:`~futocp.formats.base.Format`.
The format of a file is chosen by ``format=``, else by its extension, else by
sniffing its content -- only when the extension names no format: ``.txt``
(text art, or any format the content shows), standard input (``-``) and
unknown extensions. A file that does not parse as the format of its extension
is an error naming the file and line, never a read in another format.

Example:
    >>> from futocp.families import futoshiki
    >>> b = futoshiki(2, [[1, 0], [0, 0]])
    >>> loads(dumps(b, "json"), "json") == b
    True
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import InputError, UsageError
from .base import Format, atomic_write
from .document import JSON, YAML
from .jigsaw import JIGSAW
from .keen import KEEN
from .limits import MAX_FILE_BYTES, decode_text, empty, strip_bom
from .qwh import DZN, PLS
from .solo import SOLO
from .sudoku import SUDOKU
from .tatham import TATHAM
from .text import TEXT
from .towers import TOWERS

__all__ = ["FORMATS", "COLLECTION_FORMATS", "Format", "detect", "loads", "loads_many", "read",
           "read_many", "read_text", "dumps", "write", "format_solution", "STDIN"]

FORMATS: dict[str, Format] = {f.name: f for f in (JSON, YAML, TEXT, TATHAM, KEEN, TOWERS, SOLO,
                                                       PLS, DZN, JIGSAW, SUDOKU)}

COLLECTION_FORMATS = ("sudoku", "tatham", "keen", "towers", "solo", "jigsaw")
"""The formats of one puzzle a line (a file of several is a collection), in the
order ``--puzzle TEXT`` tries their sniffs when no ``--format`` is given."""


def _get(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r} (known: {', '.join(FORMATS)})") from None


GENERIC_EXTENSIONS = (".txt",)
"""Extensions that name no format of their own: the content decides (text art by default)."""

STDIN = "-"
"""The file name that reads standard input (its content decides the format)."""


def _by_extension(path: str) -> Format | None:
    low = os.path.basename(path).lower()
    best: tuple[int, Format] | None = None
    for fmt in FORMATS.values():
        for ext in fmt.extensions:
            if ext not in GENERIC_EXTENSIONS and low.endswith(ext) and (best is None
                                                                       or len(ext) > best[0]):
                best = (len(ext), fmt)
    return best[1] if best else None


def detect(path: str | os.PathLike[str] | None, text: str | None = None) -> str:
    """The format name for a file: its extension's, else its content's.

    An extension that names a format decides (a ``.jigsaw`` file is read as
    jigsaw, whatever it holds). The content is looked at only for ``.txt``
    (text art unless another format recognises it), standard input and
    unknown extensions.

    Raises:
        InputError: when neither the extension nor the content tells, or the
            content is empty (or only comments).
    """
    name = os.fspath(path) if path else None
    if name and name != STDIN:
        fmt = _by_extension(name)
        if fmt is not None:
            return fmt.name
    generic = name is not None and name.lower().endswith(GENERIC_EXTENSIONS)
    where = "<stdin>" if name == STDIN else (name or "<string>")
    if text is not None:
        text = strip_bom(text)
        nothing = empty(where, text)
        if nothing is not None:
            raise nothing
        if generic and FORMATS["text"].sniff(text):
            return "text"
        for fmt in FORMATS.values():
            if fmt.sniff(text):
                return fmt.name
    if generic:
        return "text"
    raise InputError("cannot tell the format; name it with --format "
                     f"({', '.join(FORMATS)})", where)


def _call(fmt: Format, text: str, source: str) -> list[Board]:
    """A reader on a text; running out of stack or memory is an error naming the file."""
    try:
        return fmt.loads(text, source)
    except RecursionError:
        raise InputError(f"too deeply nested to read as {fmt.name}", source) from None
    except MemoryError:
        raise InputError(f"too large to read as {fmt.name} in the memory available", source) from None


def loads_many(text: str, format: str | None = None, source: str = "<string>") -> list[Board]:
    """Every board in a text (collections hold several).

    A leading byte-order mark is ignored.
    """
    text = strip_bom(text)
    if len(text) > MAX_FILE_BYTES:
        raise InputError(f"the text is larger than {MAX_FILE_BYTES // 2**20} MiB, the most "
                         "futocp reads", source)
    name = format or detect(None if source == "<string>" else source, text)
    boards = _call(_get(name), text, source)
    if not boards:
        raise empty(source, text) or InputError("no instance in the file", source)
    return boards


def loads(text: str, format: str | None = None, source: str = "<string>") -> Board:
    """The one board in a text (the first of a collection)."""
    return loads_many(text, format, source)[0]


def read_text(path: str | os.PathLike[str], max_bytes: int | None = MAX_FILE_BYTES) -> str:
    """The text of a file (``-``: standard input), UTF-8 with or without a byte-order mark.

    Every reader of futocp takes its text from here (instance files, and the
    command line's other inputs: a solver's answer, a formula, a player's entries).

    Args:
        path: The file, or ``-`` for standard input.
        max_bytes: The most bytes read (default :data:`~futocp.formats.limits.MAX_FILE_BYTES`;
            None: no limit).

    Raises:
        InputError: naming the file: missing, a directory, unreadable, too large, or
            not UTF-8 (with the line and column of the first bad byte).
    """
    name = os.fspath(path)
    if name == STDIN:
        return _stdin_text(max_bytes)
    try:
        with open(path, "rb") as fh:
            data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError("no such file", name) from None
    except IsADirectoryError:
        raise InputError("is a directory, not an instance file", name) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), name) from None
    return decode_text(data, name, max_bytes)


def _stdin_text(max_bytes: int | None) -> str:
    """Standard input's text: its bytes decoded as a file's are, or the text of a
    stream without bytes underneath (``io.StringIO``)."""
    stream = sys.stdin
    if stream is None:
        raise InputError("there is no standard input to read", "<stdin>")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return decode_text(buffer.read() if max_bytes is None else buffer.read(max_bytes + 1),
                           "<stdin>", max_bytes)
    text = stream.read() if max_bytes is None else stream.read(max_bytes + 1)
    if max_bytes is not None and len(text.encode("utf-8")) > max_bytes:
        raise InputError(f"the input is larger than {max_bytes / 2**20:g} MiB, the most futocp "
                         "reads", "<stdin>")
    return strip_bom(text)


def read_many(path: str | os.PathLike[str], format: str | None = None) -> list[Board]:
    """Every board in a file (``-`` reads standard input)."""
    text = read_text(path)
    name = os.fspath(path)
    source = "<stdin>" if name == STDIN else name
    fmt = format or detect(name, text)
    return loads_many(text, fmt, source)


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
