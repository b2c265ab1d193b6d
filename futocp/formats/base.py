"""The Format record each format module declares, and the atomic writer.

Example:
    >>> fmt = Format("demo", (".demo",), loads=lambda text, source: [], dumps=str)
    >>> fmt.name, fmt.sniff("anything")
    ('demo', False)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..board import Board

__all__ = ["Format", "atomic_write"]


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


def atomic_write(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    A reader never sees a half-written file, and a failure leaves any old
    file as it was.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".futocp-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
