"""Shared fixtures: small boards with independently known solution counts."""

from __future__ import annotations

import pytest

from futocp.backends import REGISTRY
from futocp.board import Board
from futocp.families import futoshiki, grid_lines, latin_square

from .oracle import brute_force_count


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--backend", action="append", default=[], metavar="NAME",
                     help="run the backend-parametrised suites for this backend only (repeatable)")


_SELECTED: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    _SELECTED[:] = config.getoption("--backend") or []
    unknown = sorted(set(_SELECTED) - set(REGISTRY))
    if unknown:
        raise pytest.UsageError(f"--backend: unknown backend(s) {', '.join(unknown)} "
                                f"(known: {', '.join(REGISTRY)})")


def _chosen(name: str) -> bool:
    return not _SELECTED or name in _SELECTED


def available_backends(complete_only: bool = False) -> list[str]:
    return [name for name, cls in REGISTRY.items()
            if cls.available() is True and (cls.complete or not complete_only) and _chosen(name)]


def backend_params(complete_only: bool = False) -> list:
    """Every backend of the REGISTRY, skipped with the reason when unavailable."""
    out = []
    for name, cls in REGISTRY.items():
        if (complete_only and not cls.complete) or not _chosen(name):
            continue
        ok = cls.available()
        marks = [] if ok is True else [pytest.mark.skip(reason=f"{name}: {ok}")]
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.fixture
def small_futoshiki() -> Board:
    return futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                     less=[((0, 0), (0, 1)), ((1, 0), (2, 0)), ((3, 3), (3, 2))])


def multiset_board() -> Board:
    """4x4 grid, rows and columns each hold {1, 1, 2, 2}: 90 solutions."""
    return Board(16, tuple(grid_lines(4, 4)), (1, 1, 2, 2), shape=(4, 4))


def string_square() -> Board:
    """3x3 Latin square over letters: 12 solutions."""
    return Board(9, tuple(grid_lines(3, 3)), ("a", "b", "c"), clues=(), shape=(3, 3))


__all__ = ["brute_force_count", "available_backends", "backend_params", "latin_square",
           "multiset_board", "string_square"]
