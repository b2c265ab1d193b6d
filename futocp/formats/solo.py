"""Simon Tatham's *Solo* game ids (his Sudoku) in every mode.

A game id is ``<parameters>:<description>``. The parameters start with the
boxes, ``CxR`` (boxes of C rows and R columns, an n x n grid with n = C*R:
``3x3``, ``2x3``), or ``Nj`` for a jigsaw of side N (irregular regions); a
bare ``N`` is ``NxN``. Then, in any order, the modes -- ``x`` (both main
diagonals hold every digit too), ``k`` (killer cages) -- and, in his full
parameters, a symmetry (``a`` none, ``r2``, ``r4``, ``m2``, ``md2``, ``m4``,
``md4``, ``m8``) and ``d`` with a difficulty letter (``t b i a e u``: trivial,
basic, intermediate, advanced, extreme, unreasonable). The writer puts them
in Tatham's order: boxes, ``x``, ``k``, symmetry, difficulty (``3x3kdi``,
``9jdu``, ``3x3xda``).

The description is the givens as a run-length grid
(:mod:`futocp.formats.tatham_ids`); for a jigsaw, a comma and the block
structure of its regions; for a killer, a comma, the block structure of its
cages, a comma and a run-length grid of their sums, each cage's sum on one of
its cells (his generator, and this writer, use its first cell in reading order).

The modes map onto the families ``sudoku`` (``CxR``), ``sudoku-x`` (``x``),
``killer-sudoku`` (``k``), ``jigsaw`` (``Nj``) and, combined, ``jigsaw-x``,
``killer-sudoku-x``, ``killer-jigsaw`` and ``killer-jigsaw-x``; the
symmetry and the difficulty letter are kept as the board's ``symmetry`` and
``difficulty`` parameters and written back, so an id written by his
generator or with his full parameters reads and writes back exactly (a bare
``N`` is written ``NxN``, and modes in another order in his order).

A file holds one id per line (``#`` comments and blank lines allowed) and
reads as a collection; solutions print as Tatham's solve move (``S`` and the
numbers of the cells, separated by commas).

Example:
    >>> b = SOLO.loads("2x2db:b3_1h2_1b", "x")[0]
    >>> b.kind, b.param_map, b.clue_map
    ('sudoku', {'box': (2, 2), 'difficulty': 'b'}, {2: 3, 3: 1, 12: 2, 13: 1})
    >>> SOLO.dumps(b)
    '2x2db:b3_1h2_1b\\n'
    >>> k = SOLO.loads("2x3xk:zj,_a__a___a__a_______aaba_a___baaaa_a_aa_b,"
    ...                "14_5a7_6_8b6c3b7_9a7_14_11a10_7h12c", "x")[0]
    >>> k.kind, str(k.relations[0])
    ('killer-sudoku-x', 'cage(0, 6, 7, sum=14)')
    >>> SOLO.solution(b, [1, 2, 3, 4] * 4)[:8]
    'S1,2,3,4'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..board import Board
from ..errors import FutocpError, UsageError
from ..families import get_family
from .limits import check_side
from .tatham_ids import (
    Cursor,
    block_cells,
    build_board,
    id_format,
    partition_blocks,
    read_blocks,
    read_grid,
    split_id,
    write_blocks,
    write_grid,
)

__all__ = ["SOLO", "parse_solo", "format_solo", "MODES", "DIFFICULTIES", "SYMMETRIES"]

MODES: dict[tuple[bool, bool, bool], str] = {
    (False, False, False): "sudoku",
    (False, True, False): "sudoku-x",
    (False, False, True): "killer-sudoku",
    (False, True, True): "killer-sudoku-x",
    (True, False, False): "jigsaw",
    (True, True, False): "jigsaw-x",
    (True, False, True): "killer-jigsaw",
    (True, True, True): "killer-jigsaw-x",
}
"""The family of each mode: (jigsaw, x, killer) -> family name."""

DIFFICULTIES = ("t", "b", "i", "a", "e", "u")
"""Solo's difficulty letters: trivial, basic, intermediate, advanced, extreme, unreasonable."""

SYMMETRIES = ("a", "r2", "r4", "m2", "md2", "m4", "md4", "m8")
"""Solo's symmetries of the givens (``a``: none)."""

_PARAMS = re.compile(r"[0-9]+(?:x[0-9]+)?[a-z0-9]*")
_SNIFF = re.compile(r"[0-9]+(?:x[0-9]+)?[jxkamrd0-9]*:[_a-z0-9]+"
                    r"(?:,[_a-z]+|,[_a-z]+,[_a-z0-9]+|,[_a-z]+,[_a-z]+,[_a-z0-9]+)?$")
_IDS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_MODE_OF = {name: mode for mode, name in MODES.items()}


def _read_params(cur: Cursor, end: int) -> dict[str, Any]:
    """The parameters of a Solo id (``cur`` at 0, ``end`` the colon): ``c``, ``r``,
    ``jigsaw``, ``x``, ``killer``, ``symmetry``, ``difficulty``."""
    c = cur.number("the box size or the side")
    r = c
    if cur.peek() == "x" and cur.pos + 1 < end and cur.text[cur.pos + 1].isdigit():
        cur.pos += 1
        r = cur.number("the box columns")
        seen_r = True
    else:
        seen_r = False
    out: dict[str, Any] = {"jigsaw": False, "x": False, "killer": False, "symmetry": None,
                           "difficulty": None}
    flags = {"j": "jigsaw", "x": "x", "k": "killer"}
    while cur.pos < end:
        at, ch = cur.pos, cur.peek()
        cur.pos += 1
        if ch in flags:
            if out[flags[ch]]:
                raise cur.fail(f"mode {ch!r} given twice", at)
            out[flags[ch]] = True
        elif ch in "amr":
            # a, r2, md4, ...: a "d" belongs to the symmetry only before its digit
            # (2x2adt is no symmetry, then difficulty t)
            name = ch
            if (ch != "a" and cur.pos + 1 < end and cur.peek() == "d"
                    and cur.text[cur.pos + 1].isdigit()):
                name += "d"
                cur.pos += 1
            while ch != "a" and cur.pos < end and cur.peek().isdigit():
                name += cur.peek()
                cur.pos += 1
            if name not in SYMMETRIES:
                raise cur.fail(f"unknown symmetry {name!r} (Solo's are {' '.join(SYMMETRIES)})",
                               at)
            if out["symmetry"] is not None:
                raise cur.fail("a symmetry given twice", at)
            out["symmetry"] = name
        elif ch == "d":
            letter = cur.peek() if cur.pos < end else ""
            if letter not in DIFFICULTIES:
                raise cur.fail(f"unknown difficulty {letter!r} (Solo's are "
                               f"{' '.join(DIFFICULTIES)})", at)
            if out["difficulty"] is not None:
                raise cur.fail("a difficulty given twice", at)
            out["difficulty"] = letter
            cur.pos += 1
        else:
            raise cur.fail(f"unexpected {ch!r} in Solo's parameters: expected x, j, k, a "
                           "symmetry or d<difficulty>", at)
    if out["jigsaw"] or r == 1:
        c = c * r if seen_r else c
        r = 1
        out["jigsaw"] = True
    out["c"], out["r"] = c, r
    return out


def parse_solo(game_id: str, source: str = "<string>", line: int = 1, offset: int = 0) -> Board:
    """Read one Solo game id into a Board of the family of its modes (:data:`MODES`).

    The arguments are those of a :data:`~futocp.formats.tatham_ids.IdParser`.

    Raises:
        InputError: naming the line and column of the problem.
    """
    _, cur = split_id(game_id, source, line, offset, "Solo", _PARAMS,
                      "CxR or Nj, then x, k, a symmetry and d<difficulty>")
    desc = cur.pos
    cur.pos = 0
    p = _read_params(cur, desc - 1)
    cur.pos = desc
    c, r = p["c"], p["r"]
    n = c * r
    check_side(n, source, line, offset + 1, "the side")
    area = n * n
    grid = read_grid(cur, area, n)
    params: dict[str, Any] = {}
    if p["jigsaw"]:
        cur.expect(",", "',' and the jigsaw's block structure")
        at = cur.pos
        regions = read_blocks(cur, n, counts=False)
        sizes = [len(cells) for cells in block_cells(regions)]
        if len(sizes) != n or any(k != n for k in sizes):
            raise cur.fail(f"a {n}x{n} jigsaw has {n} regions of {n} cells; these are "
                           f"{len(sizes)} regions of {min(sizes)} to {max(sizes)} cells", at)
        ids = _IDS if n <= len(_IDS) else None
        params["regions"] = [[ids[b] if ids else b + 1 for b in regions[y * n:(y + 1) * n]]
                             for y in range(n)]
    else:
        if c < 2 or r < 2:
            raise cur.fail(f"boxes of {c}x{r}: both sides are at least 2", 0)
        params["box"] = (c, r)
    relations: list[tuple[str, Any, dict[str, Any]]] = []
    where: list[int] = []
    if p["killer"]:
        cur.expect(",", "',' and the block structure of the killer cages")
        at = cur.pos
        cages = block_cells(read_blocks(cur, n, counts=False))
        if not n <= len(cages) <= area or any(not 2 <= len(cells) <= n for cells in cages):
            raise cur.fail(f"killer cages have 2 to {n} cells, and there are {n} to {area} of "
                           "them", at)
        cur.expect(",", "',' and the grid of the killer cages' sums")
        spots: list[int] = []
        sums = read_grid(cur, area, n * area, where=spots)
        for cells in cages:
            placed = [cell for cell in cells if sums[cell]]
            if len(placed) != 1:
                what = "no sum" if not placed else f"{len(placed)} sums"
                at = spots[cells[0]] if not placed else spots[placed[1]]
                raise cur.fail(f"the killer cage of cell {divmod(cells[0], n)} has {what}", at)
            relations.append(("cage", [divmod(cell, n) for cell in cells],
                              {"sum": sums[placed[0]]}))
            where.append(spots[placed[0]])
    cur.end()
    for key in ("symmetry", "difficulty"):
        if p[key] is not None:
            params[key] = p[key]
    givens = [grid[y * n:(y + 1) * n] for y in range(n)]
    return build_board(cur, MODES[p["jigsaw"], p["x"], p["killer"]], givens, relations, where,
                       at=desc, **params)


def format_solo(board: Board) -> str:
    """The game id of a board of one of Solo's families (:data:`MODES`).

    Raises:
        UsageError: for a board the format cannot hold (another family, a board
            that differs from its family's template, a killer whose cages do not
            cover the grid once, relations of another kind).
    """
    mode = _MODE_OF.get(board.kind)
    if mode is None:
        raise UsageError(f"the solo format holds {', '.join(MODES.values())} boards, not "
                         f"{board.kind!r}")
    jigsaw, x, killer = mode
    params = board.param_map
    try:
        base = get_family(board.kind).template(params)
    except FutocpError as exc:
        raise UsageError(f"the solo format cannot write this board: {exc}") from None
    n = board.shape[0] if board.shape else 0
    if (base.asterisms != board.asterisms or base.labels != board.labels or board.inscription
            or base.shape != board.shape or board.labels != tuple(range(1, n + 1))):
        raise UsageError(f"the solo format writes {board.kind} boards as their family makes "
                         "them; this one differs (use json or yaml)")
    if jigsaw:
        ids = [rid for row in params["regions"] for rid in row]
        number: dict[Any, int] = {}
        head = f"{n}j"
    else:
        c, r = params["box"]
        if c < 2 or r < 2:
            raise UsageError(f"the solo format writes boxes of at least 2x2, not {c}x{r}")
        head = f"{c}x{r}"
    head += ("x" if x else "") + ("k" if killer else "")
    head += params.get("symmetry") or ""
    head += f"d{params['difficulty']}" if params.get("difficulty") else ""
    clues = board.clue_map
    text = write_grid([int(clues.get(cell, 0)) for cell in range(n * n)])
    if jigsaw:
        text += "," + write_blocks([number.setdefault(rid, len(number)) for rid in ids], n,
                                   counts=False)
    cages = board.relations_of("cage")
    if len(cages) != len(board.relations):
        other = next(rel.kind for rel in board.relations if rel.kind != "cage")
        raise UsageError(f"the solo format holds killer cages only; this board has {other} "
                         "relations (use json or yaml)")
    if killer:
        blocks = partition_blocks(board, [rel.cells for rel in cages], n, "solo", "killer cage")
        if any(not 2 <= len(rel.cells) <= n for rel in cages):
            raise UsageError(f"the solo format writes killer cages of 2 to {n} cells")
        sums = [0] * (n * n)
        for rel in cages:
            total = rel.param_map["sum"]
            if total < 1:
                raise UsageError(f"the solo format writes positive cage sums, not {total}")
            sums[min(rel.cells)] = total
        text += f",{write_blocks(blocks, n, counts=False)},{write_grid(sums)}"
    return f"{head}:{text}"


def _solution(board: Board, values: Sequence[Any]) -> str:
    """Solo's solve move: ``S`` and the cells' numbers, separated by commas."""
    if len(values) != board.n_cells:
        raise UsageError(f"a solution of this board has {board.n_cells} values, got {len(values)}")
    return "S" + ",".join(str(v) for v in values)


SOLO = id_format("solo", (".solo",), parse_solo, format_solo, _SNIFF, _solution)
