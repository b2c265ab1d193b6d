"""The Sudoku line format: one puzzle per line, a file of many lines is a collection.

A puzzle line holds the n*n cells row by row, one character each: a label,
or ``.`` or ``0`` for an empty cell. Labels 1 to 9 are digits; from 10 on they
are letters, ``A`` = 10, ``B`` = 11, ... (a 16x16 Sudoku uses ``1-9 A-G``, a
25x25 one ``1-9 A-P``; lower case is read too, upper case written). The size
n is the square root of the line length and the box is the most square
r x c with r * c = n (4 -> 2x2, 6 -> 2x3, 8 -> 2x4, 9 -> 3x3, 16 -> 4x4).
Every puzzle of a file has the size of the first.

Anything after the n*n cells that follows a ``:`` or whitespace is ignored
by :func:`loads` and kept by :func:`parse_lines`: the tdoku test file's
``puzzle:count:solution`` lines give the number of solutions (``0`` for
unsatisfiable puzzles) and the solution. Lines starting with ``#`` are
comments and blank lines are skipped, except a *directive* comment
``#! kind=FAMILY key=value ...`` that makes the following lines boards of
another grid family with integer labels (``#! kind=sudoku-x``,
``#! kind=hypersudoku``, ``#! kind=sudoku box=2x4``,
``#! kind=sudoku-ripeto multiset=111222333``).

A text is read as Sudoku lines (when no extension names its format) when
more than half of its first lines are puzzle lines, or all are long runs of
cell characters: a line of the wrong length or with a bad character is then
named by this reader, with what is wrong with it.

Example:
    >>> SUDOKU.loads("1..4..3..2..4..", "x")
    Traceback (most recent call last):
    ...
    futocp.errors.InputError: x:1:16: the line has 15 characters; a Sudoku line has n*n (16 for 4x4)
    >>> SUDOKU.loads("1..4..3..2..4...\\n1..4..3..2..4..\\n", "x")
    Traceback (most recent call last):
    ...
    futocp.errors.InputError: x:2:16: the line has 15 characters, expected 16 (a 4x4 puzzle, like the first)
    >>> boards = SUDOKU.loads("# two 4x4 puzzles\\n1..4..3..2..4...\\n....2.3.........\\n", "x")
    >>> len(boards), boards[0].kind, boards[0].param_map, boards[0].clue_map[3]
    (2, 'sudoku', {'box': (2, 2)}, 4)
    >>> SUDOKU.dumps(boards[0])
    '1..4..3..2..4...\\n'
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..board import Board
from ..errors import BoardError, FutocpError, InputError, UsageError
from ..families import _most_square, explicit_relations, get_family
from .base import SNIFF_SAMPLE, Format, content_lines, mostly
from .limits import MAX_INT_DIGITS, Collection, bad_param, clip, excerpt

__all__ = ["SUDOKU", "SudokuLine", "parse_lines", "encode_label", "decode_label", "MAX_SIDE",
           "square_hint"]

MAX_SIDE = 35  # 1-9 and A-Z
_EMPTY = ".0"
_SPLIT = re.compile(r"[:\s]")


def encode_label(value: int) -> str:
    """The character of a label: 1-9, then A = 10, B = 11, ..."""
    if not isinstance(value, int) or not 1 <= value <= MAX_SIDE:
        raise UsageError(f"label {value!r} has no character in the Sudoku line format (1..35)")
    return str(value) if value < 10 else chr(ord("A") + value - 10)


def decode_label(ch: str) -> int | None:
    """The label of a character (None for empty, -1 for a character that is none)."""
    if ch in _EMPTY:
        return None
    if "1" <= ch <= "9":
        return int(ch)
    if "a" <= ch <= "z" or "A" <= ch <= "Z":  # ASCII only: 'K' (Kelvin) lowers to 'k'
        return ord(ch.lower()) - ord("a") + 10
    return -1


def square_hint(length: int) -> str:
    """What a line of ``length`` characters lacks: the nearest n*n a puzzle line has.

    Example:
        >>> square_hint(80), square_hint(1), square_hint(0), square_hint(2000)
        ('n*n (81 for 9x9)', 'n*n (4 for 2x2)', 'n*n (4 for 2x2)', 'n*n, at most 1225 (35x35)')
    """
    if length > MAX_SIDE * MAX_SIDE:
        return f"n*n, at most {MAX_SIDE * MAX_SIDE} ({MAX_SIDE}x{MAX_SIDE})"
    root = max(2, math.isqrt(length))  # an empty token (a line ':...') is nearest 2x2
    n = min((k for k in (root, root + 1) if 2 <= k <= MAX_SIDE), key=lambda k: abs(k * k - length))
    return f"n*n ({n * n} for {n}x{n})"


@dataclass(frozen=True)
class SudokuLine:
    """One puzzle line of a collection.

    Attributes:
        board: The puzzle.
        line: Its 1-based line number.
        count: The number of solutions the line states (tdoku ``:count``), or None.
        solution: The solution the line states, as labels per cell, or None.
    """

    board: Board
    line: int
    count: int | None = None
    solution: tuple[int, ...] | None = None


def _cells(token: str, n: int, source: str, number: int, offset: int) -> list[int | None]:
    out = []
    for i, ch in enumerate(token):
        v = decode_label(ch)
        if v is not None and not 1 <= v <= n:
            high = encode_label(n)
            raise InputError(f"{ch!r} is not a label of a {n}x{n} puzzle (1-{high}, or . or 0 "
                             "for an empty cell)", source, number, offset + i + 1)
        out.append(v)
    return out


def _directive(line: str, source: str, number: int) -> tuple[str, dict[str, str]]:
    kind, params = "sudoku", {}
    for item in line[2:].split():
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"a directive item is key=value, got {excerpt(item)}", source, number,
                             line.index(item) + 1)
        if key == "kind":
            kind = value
        else:
            params[key] = value
    try:
        fam = get_family(kind)
    except FutocpError as exc:
        raise InputError(clip(str(exc)), source, number, line.index(kind) + 1) from None
    if not fam.is_grid or fam.spec.get("inscription"):
        raise InputError(f"family {fam.name} cannot be written as Sudoku lines", source, number)
    bad = bad_param(fam, params)
    if bad:
        key, why = bad
        raise InputError(f"{key}: {why}", source, number, line.index(f"{key}=") + 1)
    return fam.name, params


def _base(kind: str, params: dict[str, str], n: int, source: str, number: int) -> Board:
    """The empty board of a line, with the relations of a complete rule."""
    try:
        fam = get_family(kind)
        base = fam.build(None, (), n, (), **params)
        if base.shape != (n, n):
            rows, cols = base.shape or (0, 0)
            raise BoardError(f"a {kind} board is {rows}x{cols}, not {n}x{n}")
        return base
    except (BoardError, ValueError) as exc:  # ValueError: a parameter int("①") refused
        raise InputError(clip(str(exc)), source, number, 1) from None


def _board(base: Board, cells: list[int | None], source: str, number: int) -> Board:
    clues = tuple((c, v) for c, v in enumerate(cells) if v is not None)
    try:  # the clues of the puzzle read: a directive's parameters all stay
        return replace(base, clues=clues) if clues else base
    except BoardError as exc:
        raise InputError(clip(str(exc)), source, number, 1) from None


def parse_lines(text: str, source: str = "<string>") -> list[SudokuLine]:
    """Every puzzle of a Sudoku-line text, with the line's stated count and solution.

    Raises:
        InputError: naming the line and column of the first problem.
    """
    out: list[SudokuLine] = []
    kind, size = "sudoku", 0
    params: dict[str, str] = {}
    base: Board | None = None
    seen = Collection(source)
    seen.precount(number for number, _ in content_lines(text))
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        stripped = line.lstrip()
        if stripped.startswith("#!"):
            kind, params = _directive(stripped, source, number)
            size, base = 0, None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        start = len(line) - len(stripped)
        fields = _SPLIT.split(stripped)
        token = fields[0]
        n = math.isqrt(len(token))
        if size == 0:
            if n * n != len(token) or n < 2 or n > MAX_SIDE:
                chars = f"{len(token)} character" + ("s" if len(token) != 1 else "")
                raise InputError(f"the line has {chars}; a Sudoku line has "
                                 f"{square_hint(len(token))}", source, number,
                                 start + len(token) + 1)
            size = n
        elif len(token) != size * size:
            col = start + min(len(token), size * size) + 1
            raise InputError(f"the line has {len(token)} characters, expected {size * size} "
                             f"(a {size}x{size} puzzle, like the first)", source, number, col)
        n = size
        if base is None:
            base = _base(kind, params, n, source, number)
        cells = _cells(token, n, source, number, start)
        seen.add_clues(number, sum(v is not None for v in cells))
        board = _board(base, cells, source, number)
        count = solution = None
        rest = [f for f in fields[1:] if f]
        if rest and rest[0].isascii() and rest[0].isdigit() \
                and len(rest[0]) < min(len(token), MAX_INT_DIGITS + 1):
            count = int(rest.pop(0))
        if rest and len(rest[0]) == n * n:
            sol = _cells(rest[0], n, source, number, line.index(rest[0]))
            if None not in sol:
                solution = tuple(v for v in sol if v is not None)
        out.append(SudokuLine(board, number, count, solution))
    return out


def _loads(text: str, source: str) -> list[Board]:
    return [entry.board for entry in parse_lines(text, source)]


def _check(board: Board) -> int:
    try:
        fam = get_family(board.kind)
        base = fam.template(dict(board.params))
    except FutocpError:
        raise UsageError(f"the sudoku format holds grid families, not {board.kind!r} boards") from None
    n = board.shape[0] if board.shape else 0
    ok = (board.shape == (n, n) and fam.is_grid and not board.inscription
          and not explicit_relations(board)
          and base.asterisms == board.asterisms and base.labels == board.labels
          and all(isinstance(v, int) and 1 <= v <= MAX_SIDE for v in board.values))
    if not ok:
        raise UsageError("the sudoku format holds grid boards of a family with labels 1..35, "
                         "no inscription and no inequalities or other relations; this board "
                         "is not one")
    return n


def _line(n: int, values: Sequence[Any]) -> str:
    return "".join("." if v is None else encode_label(v) for v in values)


def _dumps(board: Board) -> str:
    n = _check(board)
    params = dict(board.params)
    default = board.kind == "sudoku" and params.get("box") == _most_square(n)
    head = ""
    if not default:
        fam = get_family(board.kind)
        items = [f"kind={board.kind}"] + [f"{k}={fam.params[k].show(v)}" for k, v in board.params
                                          if k != fam.size_expr]
        head = "#! " + " ".join(items) + "\n"
    clues = board.clue_map
    return head + _line(n, [clues.get(c) for c in range(board.n_cells)]) + "\n"


def _solution(board: Board, values: Sequence[Any]) -> str:
    return _line(_check(board), values)


def _is_line(token: str) -> bool:
    """A puzzle line of at least 4x4 (a sniff takes no 2x2 or 3x3 line for Sudoku)."""
    n = math.isqrt(len(token))
    return n * n == len(token) and 4 <= n <= MAX_SIDE and \
        all(v is None or 1 <= v <= n for v in map(decode_label, token))


_EMPTY_OR_DIGIT = frozenset("0123456789.")
_CELL_CHARS = _EMPTY_OR_DIGIT | frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _looks_like_line(token: str) -> bool:
    """A run of 10 to 35*35 characters with digits or dots, nearly all of them cells': a
    puzzle line with a wrong length or a stray character."""
    return 10 <= len(token) <= MAX_SIDE * MAX_SIDE and any(ch in _EMPTY_OR_DIGIT for ch in token) \
        and 10 * sum(ch not in _CELL_CHARS for ch in token) <= len(token)


def _sniff(text: str) -> bool:
    tokens = [_SPLIT.split(line)[0] for _, line in itertools.islice(content_lines(text),
                                                                    SNIFF_SAMPLE)]
    return mostly(tokens, _is_line) or bool(tokens) and all(map(_looks_like_line, tokens))


SUDOKU = Format("sudoku", (".sudoku", ".sdk"), _loads, _dumps, _sniff, _solution)
