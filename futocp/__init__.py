"""futocp: a constraint-programming modelling layer for Latin puzzles.

One declarative instance (a Futoshiki, a Latin square to complete, a Sudoku or
any Latin board) is compiled into several solver formulations; every answer
is checked by the independent :func:`verify`.

Example:
    >>> import futocp
    >>> board = futocp.futoshiki(3, [[0, 0, 0], [0, 0, 0], [0, 0, 0]], less=[((0, 0), (0, 1))])
    >>> result = futocp.solve(board, backend="listcolor")  # no dependency
    >>> result.status.value, futocp.verify(board, result.solutions[0])
    ('sat', [])
"""

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
