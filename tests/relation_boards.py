"""Small random boards with relations of every kind, for the tests.

A board is made from a hidden random Latin square (or 4x4 Sudoku): relations
that hold in it (so the board is satisfiable) and, optionally, random ones
(which may make it unsatisfiable), with a few of its labels as givens; Keen
and Towers boards are cut and clued from one the same way.
"""

from __future__ import annotations

import random
from dataclasses import replace

from futocp.board import Board, grid_neighbour_pairs
from futocp.families import family, latin_square, sudoku
from futocp.generate import random_latin_square, random_solution
from futocp.relations import Relation, visible_count

__all__ = ["relation_board", "killer_board", "keen_board", "towers_board", "KINDS"]

KINDS = ("less", "consecutive", "nonconsecutive", "ratio")


def relation_board(n: int, kinds: tuple[str, ...], seed: int, count: int = 4, givens: int = 2,
                   truthful: bool = True) -> Board:
    """An n x n Latin square with ``count`` random relations of ``kinds`` between
    neighbours; with ``truthful`` they hold in a hidden solution."""
    rng = random.Random(seed)
    hidden = [v for row in random_latin_square(n, seed=rng.randrange(1 << 30)) for v in row]
    rels: list[Relation] = []
    used: set[tuple[int, int]] = set()
    pairs = grid_neighbour_pairs(n, n)
    rng.shuffle(pairs)
    for a, b in pairs:
        if len(rels) == count:
            break
        kind = rng.choice(kinds)
        x, y = (a, b) if kind != "less" or hidden[a] < hidden[b] else (b, a)
        rel = Relation(kind, (x, y))
        if truthful and not rel.holds([hidden[x], hidden[y]]):
            continue
        if (min(a, b), max(a, b)) in used:
            continue
        used.add((min(a, b), max(a, b)))
        rels.append(rel)
    cells = rng.sample(range(n * n), givens)
    board = latin_square(n)
    return replace(board, clues=tuple((c, hidden[c]) for c in cells), relations=tuple(rels))


def killer_board(seed: int, givens: int = 0, wrong_sum: bool = False,
                 one_cell: bool = False) -> Board:
    """A 4x4 Sudoku with cages of 2-3 cells (1-3 with ``one_cell``: a cage of one
    cell is a given) covering part of the grid, sums from a hidden solution (or
    one sum off by one with ``wrong_sum``)."""
    rng = random.Random(seed)
    base = sudoku((2, 2))
    hidden = random_solution(base, seed=rng.randrange(1 << 30))
    free = set(range(16))
    rels = []
    while free and len(rels) < 5:
        start = rng.choice(sorted(free))
        cage = [start]
        free.discard(start)
        for _ in range(rng.randint(0, 2)):
            r, c = divmod(cage[-1], 4)
            nbrs = [x for x in (r * 4 + c + 1 if c < 3 else None, (r + 1) * 4 + c if r < 3 else None)
                    if x is not None and x in free]
            if not nbrs:
                break
            nxt = rng.choice(nbrs)
            cage.append(nxt)
            free.discard(nxt)
        if len(cage) < (1 if one_cell else 2) or len({hidden[x] for x in cage}) < len(cage):
            continue
        total = sum(hidden[x] for x in cage) + (1 if wrong_sum and not rels else 0)
        rels.append(Relation("cage", tuple(cage), (("sum", total),)))
    cells = rng.sample(range(16), givens)
    return replace(base, clues=tuple((c, hidden[c]) for c in cells), relations=tuple(rels))



def keen_board(n: int, seed: int, truthful: bool = True) -> Board:
    """An n x n Keen: the grid cut into connected cages of 1 to 4 cells with random
    operations (``-`` and ``/`` on two cells, ``/`` only where it divides), targets
    from a hidden Latin square (one off by one without ``truthful``)."""
    rng = random.Random(seed)
    hidden = [v for row in random_latin_square(n, seed=rng.randrange(1 << 30)) for v in row]
    owner = [-1] * (n * n)
    cages: list[list[int]] = []
    for start in rng.sample(range(n * n), n * n):
        if owner[start] >= 0:
            continue
        cage = [start]
        owner[start] = len(cages)
        for _ in range(rng.choice((1, 1, 2, 3))):
            nbrs = [x for c in cage for x in _around(c, n) if owner[x] < 0]
            if not nbrs:
                break
            nxt = rng.choice(nbrs)
            owner[nxt] = len(cages)
            cage.append(nxt)
        cages.append(sorted(cage))
    rels = []
    for k, cage in enumerate(cages):
        labels = [hidden[c] for c in cage]
        ops = ["+", "*"]
        if len(cage) == 2:
            ops.append("-")
            if max(labels) % min(labels) == 0:
                ops.append("/")
        op = rng.choice(ops)
        target = {"+": sum(labels), "*": labels[0] * (labels[1] if len(labels) > 1 else 1)
                  * (labels[2] if len(labels) > 2 else 1) * (labels[3] if len(labels) > 3 else 1),
                  "-": max(labels) - min(labels), "/": max(labels) // min(labels)}[op]
        if not truthful and k == 0:
            target += 1
        rels.append(Relation("arith", tuple(cage), (("op", op), ("target", target))))
    return replace(family("keen", n=n), relations=tuple(rels))


def towers_board(n: int, seed: int, clues: int, givens: int = 0, truthful: bool = True) -> Board:
    """An n x n Towers with ``clues`` visibility clues and ``givens`` givens from a hidden
    Latin square (the first clue one off, within 1..n, without ``truthful``)."""
    rng = random.Random(seed)
    hidden = [v for row in random_latin_square(n, seed=rng.randrange(1 << 30)) for v in row]
    lines = []
    for k in range(n):
        row = [k * n + c for c in range(n)]
        col = [r * n + k for r in range(n)]
        lines += [row, row[::-1], col, col[::-1]]
    rels = []
    for i, line in enumerate(rng.sample(lines, clues)):
        count = visible_count([hidden[c] for c in line])
        if not truthful and i == 0:
            count = count + 1 if count < n else count - 1
        rels.append(Relation("visible", tuple(line), (("count", count),)))
    cells = rng.sample(range(n * n), givens)
    return replace(family("towers", n=n), clues=tuple((c, hidden[c]) for c in cells),
                   relations=tuple(rels))


def _around(c: int, n: int) -> list[int]:
    r, q = divmod(c, n)
    return [x * n + y for x, y in ((r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1))
            if 0 <= x < n and 0 <= y < n]
