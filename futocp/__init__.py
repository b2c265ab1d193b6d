"""futocp: a constraint-programming modelling layer for Latin puzzles.

One declarative instance (a Futoshiki, a Latin square to complete, a Sudoku or
any Latin board) is compiled into several solver formulations; every answer
is checked by the independent :func:`verify`.

The public names are imported when first used (:data:`_HOME`), so that
``import futocp`` and the command line's start-up load only what they use.

Example:
    >>> import futocp
    >>> board = futocp.futoshiki(3, [[0, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((0, 0), (0, 1))])
    >>> result = futocp.solve(board, backend="listcolor")  # no dependency
    >>> result.status.value, futocp.verify(board, result.solutions[0])
    ('sat', [])
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from .api import DEFAULT_BACKEND, solve
    from .backends import REGISTRY, get_backend
    from .batch import solve_many
    from .board import Board, Label
    from .crosscheck import crosscheck
    from .errors import (
        BackendUnavailable,
        BoardError,
        FutocpError,
        InputError,
        SolverError,
        UnsupportedError,
        UsageError,
    )
    from .families import family, futoshiki, jigsaw, latin_square, list_families, sudoku
    from .formats import dumps, loads, read, read_many, write
    from .generate import generate, random_latin_square
    from .model import Model, build_model
    from .puzzles import CountResult, count, is_critical, is_puzzle, minimize, redundant_clue
    from .rating import Rating, rate
    from .result import Result, Status
    from .verify import Violation, is_solution, verify

__version__ = "0.1.0"

__all__ = [
    "Board", "Label", "Model", "Result", "Status", "Violation",
    "FutocpError", "InputError", "BoardError", "UsageError", "BackendUnavailable",
    "UnsupportedError", "SolverError",
    "build_model", "solve", "crosscheck", "verify", "is_solution", "get_backend", "REGISTRY",
    "DEFAULT_BACKEND", "futoshiki", "latin_square", "sudoku", "jigsaw", "family", "list_families",
    "read", "read_many", "write", "loads", "dumps", "__version__",
    "count", "CountResult", "is_puzzle", "is_critical", "redundant_clue", "minimize", "generate",
    "random_latin_square", "rate", "Rating", "solve_many",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(["DEFAULT_BACKEND", "solve"], "api"),
    **dict.fromkeys(["REGISTRY", "get_backend"], "backends"),
    "solve_many": "batch",
    **dict.fromkeys(["Board", "Label"], "board"),
    "crosscheck": "crosscheck",
    **dict.fromkeys(["BackendUnavailable", "BoardError", "FutocpError", "InputError",
                     "SolverError", "UnsupportedError", "UsageError"], "errors"),
    **dict.fromkeys(["family", "futoshiki", "jigsaw", "latin_square", "list_families",
                     "sudoku"], "families"),
    **dict.fromkeys(["dumps", "loads", "read", "read_many", "write"], "formats"),
    **dict.fromkeys(["generate", "random_latin_square"], "generate"),
    **dict.fromkeys(["Model", "build_model"], "model"),
    **dict.fromkeys(["CountResult", "count", "is_critical", "is_puzzle", "minimize",
                     "redundant_clue"], "puzzles"),
    **dict.fromkeys(["Rating", "rate"], "rating"),
    **dict.fromkeys(["Result", "Status"], "result"),
    **dict.fromkeys(["Violation", "is_solution", "verify"], "verify"),
}
"""Public name -> the submodule that defines it (imported on first use)."""


class _Package(types.ModuleType):
    """futocp itself: a function named as its module (``verify``, ``crosscheck``,
    ``generate``) stays the function when the import system sets the submodule on the
    package, as ``from .verify import verify`` did."""

    def __setattr__(self, name: str, value: Any) -> None:
        if _HOME.get(name) == name and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    """A public name, imported from its submodule the first time it is asked for; a
    submodule (``futocp.formats``) is imported when first named, as before."""
    home = _HOME.get(name)
    if home is None:
        if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module 'futocp' has no attribute {name!r}")
        return importlib.import_module(f".{name}", __name__)
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
