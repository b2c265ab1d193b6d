"""The Format record each format module declares, and the atomic writer.

A line format's ``sniff`` looks at the first :data:`SNIFF_SAMPLE` puzzles and
says yes when :func:`mostly` (more than half) they are its own: a collection with one bad line
is still read by its reader, which then names that line and what is wrong
with it, instead of another format's reader blaming a good line.

Example:
    >>> fmt = Format("demo", (".demo",), loads=lambda text, source: [], dumps=str)
    >>> fmt.name, fmt.sniff("anything")
    ('demo', False)
    >>> list(content_lines("# two\\n\\n  1 2\\n3\\n"))
    [(3, '1 2'), (4, '3')]
    >>> mostly(["ok", "ok", "bad"], lambda x: x == "ok"), mostly(["ok", "bad"], lambda x: x == "ok")
    (True, False)
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..board import Board
from ..errors import UsageError

__all__ = ["Format", "atomic_write", "content_lines", "mostly", "SNIFF_SAMPLE"]

SNIFF_SAMPLE = 50
"""How many puzzles (lines, or pairs of fields) a line format's ``sniff`` looks at."""

T = TypeVar("T")


def _never(text: str) -> bool:
    return False


@dataclass(frozen=True)
class Format:
    """A file format.

    Attributes:
        name: The ``--format`` name.
        extensions: File name endings that select it (lower case, with the dot).
        loads: ``(text, source) -> list[Board]`` (one Board, or a collection).
        dumps: ``Board -> str``.
        sniff: ``text -> bool``: does this text look like the format?
        solution: ``(Board, values) -> str`` for formats with a solution notation.
    """

    name: str
    extensions: tuple[str, ...]
    loads: Callable[[str, str], list[Board]]
    dumps: Callable[[Board], str]
    sniff: Callable[[str], bool] = _never
    solution: Callable[[Board, Sequence[Any]], str] | None = None


def content_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(1-based line number, stripped line)`` of the lines of a line format that
    hold something: not blank, not a ``#`` comment."""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield number, line


def mostly(items: Iterable[T], ok: Callable[[T], bool], sample: int = SNIFF_SAMPLE) -> bool:
    """True when more than half of the first ``sample`` items are ``ok``.

    A sniff by majority: a file of puzzles of one format, one of them broken, is
    still that format's, and its reader names the broken one.
    """
    seen = good = 0
    for item in itertools.islice(items, sample):
        seen += 1
        good += bool(ok(item))
    return 2 * good > seen


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], text: str | bytes) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    A reader never sees a half-written file, and a failure leaves any old
    file as it was. A new file gets the ordinary mode (0666 less the umask),
    an existing one keeps its mode.

    Raises:
        UsageError: when the folder does not exist or ``path`` is a folder.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"cannot write {path}: it is a folder; name a file")
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {path}: no folder {folder}")
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".futocp-", suffix=".tmp")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as out:
                out.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
