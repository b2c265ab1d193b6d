"""Quasigroup-with-holes files: Gomes' ``lsencode`` PLS and CSPLib 067 MiniZinc data.

Both hold a partial Latin square to complete and read as a ``latin-square``
board with labels 1..N.

* ``pls`` (``*.pls``): a line ``order N``, then N rows of N integers; ``-1`` is
  a hole and the symbols are 0..N-1 (read as labels 1..N).
* ``dzn`` (``*.dzn``): MiniZinc data ``N = 30; start = [| 0, 19, ... | ... |];``
  with symbols 1..N and ``0`` for a hole; ``%`` starts a comment.

Example:
    >>> b = PLS.loads("order 2\\n   0  -1\\n  -1  -1\\n", "x")[0]
    >>> b.kind, b.clue_map
    ('latin-square', {0: 1})
    >>> print(DZN.dumps(b), end="")
    N=2;
    start=[|
    1, 0|
    0, 0|];
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..board import Board
from ..errors import InputError
from .base import Format
from .latin_grid import build_square, square_size
from .limits import MAX_GRID, check_side, excerpt, int_token

__all__ = ["PLS", "DZN", "parse_pls", "parse_dzn", "format_pls", "format_dzn"]

_INT = re.compile(r"-?[0-9]+")


def _square(n: int, rows: list[list[int]], source: str) -> Board:
    return build_square("latin-square", n, rows, (), source)


# ------------------------------------------------------------------ PLS
def _row_tokens(line: str, n: int, source: str, number: int) -> list[re.Match[str]]:
    """The values of a row; more than n is an error as soon as it is seen."""
    tokens: list[re.Match[str]] = []
    for tok in re.finditer(r"\S+", line):
        if len(tokens) == n:
            raise InputError(f"row has more than {n} values", source, number, tok.start() + 1)
        tokens.append(tok)
    return tokens


def parse_pls(text: str, source: str = "<string>") -> Board:
    """Read an lsencode ``.pls`` file.

    Raises:
        InputError: naming the line and column of the problem.
    """
    lines = ((i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip())
    first = next(lines, None)
    if first is None:
        raise InputError("empty file: expected 'order N'", source, 1, 1)
    number, head = first
    m = re.fullmatch(r"\s*order\s+([0-9]+)\s*", head)
    if not m:
        raise InputError("expected 'order N' (N a positive integer) on the first line", source,
                         number, 1)
    at = m.start(1) + 1
    n = check_side(int_token(m.group(1), source, number, at), source, number, at, "the order")
    rows: list[list[int]] = []
    last = number
    for number, line in lines:
        if len(rows) == n:
            raise InputError(f"expected {n} rows after 'order {n}', found more", source, number, 1)
        last = number
        tokens = _row_tokens(line, n, source, number)
        if len(tokens) != n:
            raise InputError(f"row has {len(tokens)} values, expected {n}", source, number,
                             tokens[0].start() + 1)
        row = []
        for tok in tokens:
            if not _INT.fullmatch(tok.group()):
                raise InputError(f"{excerpt(tok.group())} is not an integer", source, number,
                                 tok.start() + 1)
            v = int_token(tok.group(), source, number, tok.start() + 1)
            if not -1 <= v < n:
                raise InputError(f"value {v} out of range -1..{n - 1}", source, number,
                                 tok.start() + 1)
            row.append(v + 1)
        rows.append(row)
    if len(rows) != n:
        raise InputError(f"expected {n} rows after 'order {n}', found {len(rows)}", source, last, 1)
    return _square(n, rows, source)


def format_pls(board: Board) -> str:
    """The ``.pls`` text of a Latin square board (no inequalities)."""
    n = square_size(board, "pls", kinds=("latin-square", "futoshiki"), less="none")
    clues = {cell: int(label) for cell, label in board.clue_map.items()}  # labels are 1..n
    out = [f"order {n}"]
    for r in range(n):
        out.append("".join(f"{clues.get(r * n + c, 0) - 1:4d}" for c in range(n)))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ DZN
_DZN_TOKEN = re.compile(r"\s+|%[^\n]*|\[\||\|\]|[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+|\S")


def _dzn_tokens(text: str) -> Iterator[tuple[str, int, int]]:
    """(token, line, column) of every token, comments and blanks dropped (lazily)."""
    line, line_start = 1, 0
    for m in _DZN_TOKEN.finditer(text):
        tok = m.group()
        if tok.isspace():
            breaks = tok.count("\n")
            if breaks:
                line += breaks
                line_start = m.start() + tok.rfind("\n") + 1
            continue
        if tok.startswith("%"):
            continue
        yield tok, line, m.start() - line_start + 1


def parse_dzn(text: str, source: str = "<string>") -> Board:
    """Read a CSPLib 067 ``.dzn`` file (``N`` and the 2-D array ``start``).

    Raises:
        InputError: naming the line and column of the problem.
    """
    tokens = _dzn_tokens(text)
    ahead: list[tuple[str, int, int]] = []
    last = ("", 1, 1)

    def peek() -> tuple[str, int, int] | None:
        if not ahead:
            tok = next(tokens, None)
            if tok is None:
                return None
            ahead.append(tok)
        return ahead[0]

    def take(expected: str | None = None) -> tuple[str, int, int]:
        nonlocal last
        tok = peek()
        if tok is None:
            raise InputError(f"unexpected end of file{f', expected {expected!r}' if expected else ''}",
                             source, last[1], last[2])
        if expected is not None and tok[0] != expected:
            raise InputError(f"expected {expected!r}, found {excerpt(tok[0])}", source, tok[1],
                             tok[2])
        ahead.pop()
        last = tok
        return tok

    size: tuple[int, int, int] | None = None
    start: list[list[tuple[int, int, int]]] | None = None
    start_at = (1, 1)
    while peek() is not None:
        name, line, col = take()
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise InputError(f"expected a name, found {excerpt(name)}", source, line, col)
        take("=")
        if name == "N":
            value, vl, vc = take()
            if not _INT.fullmatch(value) or int_token(value, source, vl, vc) < 1:
                raise InputError(f"N must be a positive integer, got {excerpt(value)}", source, vl,
                                 vc)
            size = (check_side(int(value), source, vl, vc, "N"), vl, vc)
        elif name == "start":
            start_at = take("[|")[1:]
            start = [[]]
            most = size[0] if size else MAX_GRID  # values per row and rows, before allocating
            while True:
                tok = take()
                if tok[0] == "|]":
                    break
                if tok[0] == "|":
                    if len(start) > most:
                        raise InputError(f"start has more than {most} rows", source, tok[1], tok[2])
                    start.append([])
                    continue
                if not _INT.fullmatch(tok[0]):
                    raise InputError(f"{excerpt(tok[0])} is not an integer", source, tok[1], tok[2])
                if len(start[-1]) == most:
                    raise InputError(f"row has more than {most} values", source, tok[1], tok[2])
                start[-1].append((int_token(tok[0], source, tok[1], tok[2]), tok[1], tok[2]))
                nxt = peek()
                if nxt is not None and nxt[0] == ",":
                    take()
            if start and not start[-1]:
                start.pop()  # the '|' before '|]' closes the last row
        else:
            raise InputError(f"unknown name {excerpt(name)} (a QWH file sets N and start)", source,
                             line, col)
        take(";")
    if size is None:
        raise InputError("missing 'N = ...;'", source, 1, 1)
    if start is None:
        raise InputError("missing 'start = [| ... |];'", source, 1, 1)
    n = size[0]
    if len(start) != n:
        raise InputError(f"start has {len(start)} rows, expected N = {n}", source, *start_at)
    rows = []
    for row in start:
        if len(row) != n:
            where = row[0][1:] if row else start_at
            raise InputError(f"row has {len(row)} values, expected {n}", source, *where)
        for v, line, col in row:
            if not 0 <= v <= n:
                raise InputError(f"value {v} out of range 0..{n}", source, line, col)
        rows.append([v for v, _, _ in row])
    return _square(n, rows, source)


def format_dzn(board: Board) -> str:
    """The CSPLib 067 ``.dzn`` text of a Latin square board (no inequalities)."""
    n = square_size(board, "dzn", kinds=("latin-square", "futoshiki"), less="none")
    clues = board.clue_map
    rows = [", ".join(str(clues.get(r * n + c, 0)) for c in range(n)) + "|" for r in range(n)]
    return f"N={n};\nstart=[|\n" + "\n".join(rows) + "];\n"


def _sniff_pls(text: str) -> bool:
    return re.match(r"\s*order\s+[0-9]+\s*\n", text) is not None


def _sniff_dzn(text: str) -> bool:
    return re.search(r"^\s*N\s*=\s*[0-9]+\s*;", text, re.M) is not None and "[|" in text


PLS = Format("pls", (".pls",), lambda text, source: [parse_pls(text, source)], format_pls, _sniff_pls)
DZN = Format("dzn", (".dzn",), lambda text, source: [parse_dzn(text, source)], format_dzn, _sniff_dzn)
