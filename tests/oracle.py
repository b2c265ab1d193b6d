"""The tests' one independent oracle: brute-force solution counters.

They share no code with the Model or any backend. :func:`exhaustive_count`
judges every assignment of the free cells with verify() (any board, a handful
of free cells). :func:`brute_force_count` is the faster one: rows are the distinct
permutations of the label multiset that agree with the row's clues, chosen row
by row while every asterism holds each label at most as often as the multiset
allows and every relation whose cells are all placed holds (by its kind's
meaning); every complete grid is then judged by verify(). For small grid
boards whose rows are asterisms.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

from futocp.board import Board
from futocp.verify import verify

__all__ = ["brute_force_count", "exhaustive_count"]


def exhaustive_count(board: Board) -> int:
    """The number of solutions of any tiny board: every assignment of labels to its
    free cells, judged by verify()."""
    clues = board.clue_map
    free = [c for c in range(board.n_cells) if c not in clues]
    labels: list = [clues.get(c) for c in range(board.n_cells)]
    count = 0
    for values in itertools.product(board.values, repeat=len(free)):
        for c, v in zip(free, values, strict=True):
            labels[c] = v
        count += not verify(board, labels)
    return count


@functools.cache
def brute_force_count(board: Board, limit: int | None = None) -> int:
    """The number of solutions of ``board`` (a small grid whose rows are asterisms),
    counting stops at ``limit`` when one is given."""
    rows, cols = board.shape
    clues = board.clue_map
    need = Counter(board.labels)
    perms = sorted(set(itertools.permutations(board.labels)))
    per_row = [[p for p in perms if all(clues.get(r * cols + c, v) == v for c, v in enumerate(p))]
               for r in range(rows)]
    # the asterisms and relations to check once row r is placed (their last row)
    asterisms_due: list[list[tuple[int, ...]]] = [[] for _ in range(rows)]
    for ast in board.asterisms:
        asterisms_due[min(ast) // cols].append(ast)  # checked from their first row on
    relations_due: list[list] = [[] for _ in range(rows)]
    for rel in board.relations:
        relations_due[max(rel.cells) // cols].append(rel)
    values: list = [None] * board.n_cells
    live_asterisms: list[tuple[int, ...]] = []

    def fits(r: int) -> bool:
        for ast in live_asterisms:
            seen = Counter(values[c] for c in ast if values[c] is not None)
            if any(k > need[label] for label, k in seen.items()):
                return False
        return all(rel.holds([values[c] for c in rel.cells]) for rel in relations_due[r])

    found = 0

    def rec(r: int) -> int:
        nonlocal found
        if r == rows:
            ok = 0 if verify(board, values) else 1
            found += ok
            return ok
        total = 0
        live_asterisms.extend(asterisms_due[r])
        for perm in per_row[r]:
            if limit is not None and found >= limit:
                break
            values[r * cols:(r + 1) * cols] = perm
            if fits(r):
                total += rec(r + 1)
        values[r * cols:(r + 1) * cols] = [None] * cols
        del live_asterisms[len(live_asterisms) - len(asterisms_due[r]):]
        return total

    return rec(0)
