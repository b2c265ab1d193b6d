"""Shared fixtures: small boards with independently known solution counts."""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import pytest

from futocp.backends import REGISTRY
from futocp.board import Board
from futocp.families import futoshiki, grid_lines, latin_square
from futocp.verify import verify


@functools.cache
def brute_force_count(board: Board) -> int:
    """Count solutions by trying rows that are permutations of the labels.

    Independent of every backend and of the Model: partial grids are pruned only
    when a column holds a label more often than the multiset allows, and every
    full grid is judged by verify(). For tiny grid boards whose rows are asterisms.
    """
    rows, cols = board.shape
    perms = sorted(set(itertools.permutations(board.labels)))
    allowed = Counter(board.labels)
    column_counts = [Counter() for _ in range(cols)]
    grid: list[tuple] = []

    def extend() -> int:
        if len(grid) == rows:
            return 0 if verify(board, [v for row in grid for v in row]) else 1
        total = 0
        for perm in perms:
            if all(column_counts[c][v] < allowed[v] for c, v in enumerate(perm)):
                for c, v in enumerate(perm):
                    column_counts[c][v] += 1
                grid.append(perm)
                total += extend()
                grid.pop()
                for c, v in enumerate(perm):
                    column_counts[c][v] -= 1
        return total

    return extend()


def available_backends(complete_only: bool = False) -> list[str]:
    return [name for name, cls in REGISTRY.items()
            if cls.available() is True and (cls.complete or not complete_only)]


def backend_params(complete_only: bool = False) -> list:
    """Every backend of the REGISTRY, skipped with the reason when unavailable."""
    out = []
    for name, cls in REGISTRY.items():
        if complete_only and not cls.complete:
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
