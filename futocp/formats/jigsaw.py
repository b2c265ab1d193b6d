"""The jigsaw line format: a givens line, then a region line.

A puzzle is two fields of n*n characters each, row by row: the *givens*, as
in the Sudoku line format (``1-9``, then ``A`` = 10 ...; ``.`` or ``0`` for an
empty cell), and the *regions*, one character per cell naming its region
(letters or digits; n regions of n cells). The two fields stand on two
consecutive lines, or on one line separated by whitespace or ``:``. ``#``
starts a comment line; blank lines are skipped; a file of many puzzles is a
collection. Region ids are the characters, so a board whose region ids are
single characters round-trips exactly; other ids are written as letters
``A``, ``B``, ... in order of first appearance.

Example:
    >>> JIGSAW.loads("1....... AABBAABB\\n", "x")
    Traceback (most recent call last):
    ...
    futocp.errors.InputError: x:1:9: the givens have 8 characters; a jigsaw line has n*n (9 for 3x3)
    >>> b = JIGSAW.loads("1..4..3..2..4... AABBAABBCCDDCCDD\\n", "x")[0]
    >>> b.kind, b.param_map["regions"][0], b.clue_map[3]
    ('jigsaw', ('A', 'A', 'B', 'B'), 4)
    >>> print(JIGSAW.dumps(b), end="")
    1..4..3..2..4...
    AABBAABBCCDDCCDD
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from ..board import Board
from ..errors import BoardError, InputError, UsageError
from .base import SNIFF_SAMPLE, Format, content_lines, mostly
from .limits import MAX_INSTANCES, Collection, clip
from .sudoku import MAX_SIDE, decode_label, encode_label, square_hint

__all__ = ["JIGSAW"]

_SPLIT = re.compile(r"[:\s]+")
_IDS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _content(text: str) -> Iterator[tuple[int, int, str]]:
    """(line number, 0-based start column, field) of every field of every content line."""
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        start = len(raw) - len(raw.lstrip())
        for m in re.finditer(r"[^:\s]+", raw[start:]):
            yield number, start + m.start(), m.group()


def _fields(text: str, source: str) -> list[tuple[int, int, str]]:
    """Every field of the text: at most two per puzzle of MAX_INSTANCES."""
    out: list[tuple[int, int, str]] = []
    for item in _content(text):
        if len(out) == 2 * MAX_INSTANCES:
            raise InputError(f"more than {MAX_INSTANCES:,} puzzles in one file, the most futocp "
                             "reads (split the file)", source, item[0], item[1] + 1)
        out.append(item)
    return out


def _side(number: int, col: int, field: str, what: str, source: str) -> int:
    n = math.isqrt(len(field))
    if n * n != len(field) or n < 2 or n > MAX_SIDE:
        raise InputError(f"the {what} have {len(field)} characters; a jigsaw line has "
                         f"{square_hint(len(field))}", source, number, col + len(field) + 1)
    return n


def _puzzle(givens: tuple[int, int, str], regions: tuple[int, int, str], source: str) -> Board:
    (gl, gc, gtext), (rl, rc, rtext) = givens, regions
    n = _side(gl, gc, gtext, "givens", source)
    if len(rtext) != n * n:
        raise InputError(f"the regions have {len(rtext)} characters, expected {n * n} like the "
                         "givens", source, rl, rc + min(len(rtext), n * n) + 1)
    rows: list[list[Any]] = []
    for i, ch in enumerate(gtext):
        v = decode_label(ch)
        if v is not None and not 1 <= v <= n:
            raise InputError(f"{ch!r} is not a label of a {n}x{n} puzzle (1-{encode_label(n)}, "
                             "or . or 0 for an empty cell)", source, gl, gc + i + 1)
        if i % n == 0:
            rows.append([])
        rows[-1].append(v or 0)
    for rid, count in Counter(rtext).items():
        if count != n:  # point at its first cell, or at its first cell too many
            at = [i for i, x in enumerate(rtext) if x == rid][n if count > n else 0]
            raise InputError(f"region {rid!r} has {count} cells, expected {n}", source, rl,
                             rc + at + 1)
    grid = [list(rtext[r * n:(r + 1) * n]) for r in range(n)]
    try:
        from ..families import family  # the families' YAML is read on first use

        return family("jigsaw", rows, regions=grid)
    except BoardError as exc:
        raise InputError(clip(str(exc)), source, gl, gc + 1) from None


def _loads(text: str, source: str) -> list[Board]:
    seen = Collection(source)
    seen.precount(number for number, _ in content_lines(text))  # a bound: 1 or 2 a puzzle
    fields = _fields(text, source)
    if len(fields) % 2:
        number, col, field = fields[-1]
        raise InputError("a jigsaw puzzle is a givens field and a regions field; the regions "
                         "are missing", source, number, col + len(field) + 1)
    boards = []
    for i in range(0, len(fields), 2):
        board = _puzzle(fields[i], fields[i + 1], source)
        seen.add_clues(fields[i][0], len(board.clues))
        boards.append(board)
    return boards


def _regions_text(board: Board) -> str:
    grid = board.param_map.get("regions")
    if grid is None:
        raise UsageError("the jigsaw format writes a board's regions; this board has none "
                         "(use json or yaml)")
    ids = [x for row in grid for x in row]
    if all(isinstance(x, str) and len(x) == 1 and not x.isspace() and x not in ":#" for x in ids):
        return "".join(ids)
    names: dict[Any, str] = {}
    for x in ids:
        names.setdefault(x, _IDS[len(names)])
    return "".join(names[x] for x in ids)


def _check(board: Board) -> int:
    if board.kind != "jigsaw" or board.shape is None:
        raise UsageError(f"the jigsaw format holds jigsaw boards, not {board.kind!r}")
    if board.relations:
        raise UsageError(f"the jigsaw format holds jigsaw boards without inequalities or other "
                         f"relations; this one has {board.relations[0].kind} relations "
                         "(use json or yaml)")
    n = board.shape[0]
    if n > MAX_SIDE:
        raise UsageError(f"the jigsaw format holds sizes up to {MAX_SIDE}")
    return n


def _line(values: Sequence[Any]) -> str:
    return "".join("." if v is None else encode_label(v) for v in values)


def _dumps(board: Board) -> str:
    _check(board)
    clues = board.clue_map
    return _line([clues.get(c) for c in range(board.n_cells)]) + "\n" + _regions_text(board) + "\n"


def _solution(board: Board, values: Sequence[Any]) -> str:
    _check(board)
    return _line(values)


def _is_puzzle(pair: tuple[str, str]) -> bool:
    givens, regions = pair
    n = math.isqrt(len(givens))
    if n * n != len(givens) or n < 2 or len(regions) != len(givens):
        return False
    if any(v is not None and not 1 <= v <= n for v in map(decode_label, givens)):
        return False
    return set(Counter(regions).values()) == {n} and len(set(regions)) == n


def _sniff(text: str) -> bool:
    fields = [f for _, _, f in itertools.islice(_content(text), 2 * SNIFF_SAMPLE)]
    return mostly(zip(fields[::2], fields[1::2], strict=False), _is_puzzle)  # a lone field: no pair


JIGSAW = Format("jigsaw", (".jigsaw",), _loads, _dumps, _sniff, _solution)
