"""The one error family of futocp.

Every error a user can cause is a :class:`FutocpError`; the CLI prints its
message on one line (no traceback) and exits with code 2.

A mistyped name (a backend, a format, a family, a document or config key)
gets a suggestion from :func:`did_you_mean` (or :func:`closest`), the one
helper every layer uses. Names are exact -- ``cpsat``, not ``CPSAT`` -- so
that a file means the same everywhere; a name that differs only in case is
refused with the right spelling as the suggestion.

Example:
    >>> str(InputError("row 3 has 4 cells, expected 5", source="p.txt", line=3, column=1))
    'p.txt:3:1: row 3 has 4 cells, expected 5'
    >>> did_you_mean("CPSAT", ["cpsat", "sat"])
    "; did you mean 'cpsat'?"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "closest",
    "did_you_mean",
    "FutocpError",
    "InputError",
    "BoardError",
    "UsageError",
    "BackendUnavailable",
    "UnsupportedError",
    "SolverError",
    "ResourceError",
    "ServiceUnavailable",
    "TimeLimitReached",
]


def closest(word: object, choices: Iterable[object], cutoff: float = 0.6) -> str | None:
    """The choice a mistyped ``word`` most likely meant, or None.

    A choice that differs from ``word`` only in case wins; else the closest
    by :func:`difflib.get_close_matches`, ignoring case, at least ``cutoff``
    alike.

    Example:
        >>> closest("futoshki", ["futoshiki", "sudoku"]), closest("Sudoku", ["sudoku"])
        ('futoshiki', 'sudoku')
        >>> closest("zzz", ["solve"]) is None
        True
    """
    folded: dict[str, str] = {}
    for choice in map(str, choices):
        folded.setdefault(choice.casefold(), choice)
    key = str(word)
    longest = max(map(len, folded), default=0)
    if len(key) > 3 * longest:  # too long to be cutoff-alike (a hostile file's 1 MB key)
        return None
    key = key.casefold()
    if key in folded:
        return folded[key]
    close = difflib.get_close_matches(key, list(folded), n=1, cutoff=cutoff)
    return folded[close[0]] if close else None


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """``"; did you mean 'x'?"`` for the :func:`closest` choice, or ``""``.

    Example:
        >>> did_you_mean("slove", ["solve", "show", "check"])
        "; did you mean 'solve'?"
        >>> did_you_mean("zzz", ["solve"])
        ''
    """
    match = closest(word, choices)
    return f"; did you mean {match!r}?" if match is not None else ""


class FutocpError(Exception):
    """Base class of every error futocp raises on purpose."""


class InputError(FutocpError):
    """A file or string that cannot be read as an instance.

    Args:
        message: What is wrong, in one line.
        source: The file name (or ``<string>``).
        line: 1-based line number, when known.
        column: 1-based column number, when known.
    """

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [str(p) for p in (self.source, self.line, self.column) if p is not None]
        return f"{':'.join(where)}: {self.message}" if where else self.message


class BoardError(FutocpError):
    """A board whose definition is inconsistent (bad cell, label, relation...).

    Args:
        message: What is wrong, in one line.
        field: The board field at fault (``asterisms``, ``clues``, ``relations``...).
        index: The position in that field, when known (an asterism's number).
        cell: The cell at fault, when one is.
        relation: The :class:`~futocp.relations.Relation` at fault, when one is (a
            reader finds it in its file to say where it was written).
    """

    def __init__(self, message: str, *, field: str | None = None, index: int | None = None,
                 cell: int | None = None, relation: object = None) -> None:
        self.message = message
        self.field = field
        self.index = index
        self.cell = cell
        self.relation = relation
        super().__init__(message)


class UsageError(FutocpError):
    """A wrong call: unknown backend, option, format or argument value."""


class BackendUnavailable(FutocpError):
    """The backend's solver package is not installed."""


class UnsupportedError(FutocpError):
    """The backend cannot hold this model (a missing capability or a size limit)."""


class SolverError(FutocpError):
    """A solver process crashed or answered something that cannot be read.

    Not the user's fault: the CLI exits with code 70 (``EX_SOFTWARE``), not 2.
    """


class ResourceError(FutocpError):
    """The environment failed a run: a full disk, a folder that cannot be written.

    Not the user's input: the CLI exits with code 1, and nothing already
    written is lost.
    """


class ServiceUnavailable(ResourceError):
    """A service a run needs does not answer: an unreachable Dask scheduler.

    Not the user's input and not a time limit: the CLI exits with code 69
    (``EX_UNAVAILABLE`` of sysexits), and nothing already written is lost.
    """


class TimeLimitReached(FutocpError):
    """A command's time limit ended its searches before the answer was known.

    The CLI exits with code 1 (as for any search stopped by its time limit).
    """
