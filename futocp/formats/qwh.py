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

from ..board import Board
from ..errors import InputError
from .base import Format
from .latin_grid import build_square, square_size

__all__ = ["PLS", "DZN", "parse_pls", "parse_dzn", "format_pls", "format_dzn"]

_INT = re.compile(r"-?\d+")


def _square(n: int, rows: list[list[int]], source: str) -> Board:
    return build_square("latin-square", n, rows, (), source)


# ------------------------------------------------------------------ PLS
def parse_pls(text: str, source: str = "<string>") -> Board:
    """Read an lsencode ``.pls`` file.

    Raises:
        InputError: naming the line and column of the problem.
    """
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise InputError("empty file: expected 'order N'", source, 1, 1)
    number, head = lines[0]
    m = re.fullmatch(r"\s*order\s+(\d+)\s*", head)
    if not m or int(m.group(1)) < 1:
        raise InputError("expected 'order N' (N a positive integer) on the first line", source,
                         number, 1)
    n = int(m.group(1))
    body = lines[1:]
    if len(body) != n:
        where = body[n][0] if len(body) > n else (body[-1][0] if body else number)
        raise InputError(f"expected {n} rows after 'order {n}', found {len(body)}", source, where, 1)
    rows = []
    for number, line in body:
        tokens = list(re.finditer(r"\S+", line))
        if len(tokens) != n:
            raise InputError(f"row has {len(tokens)} values, expected {n}", source, number,
                             tokens[0].start() + 1)
        row = []
        for tok in tokens:
            if not _INT.fullmatch(tok.group()):
                raise InputError(f"{tok.group()!r} is not an integer", source, number, tok.start() + 1)
            v = int(tok.group())
            if not -1 <= v < n:
                raise InputError(f"value {v} out of range -1..{n - 1}", source, number,
                                 tok.start() + 1)
            row.append(v + 1)
        rows.append(row)
    return _square(n, rows, source)


def format_pls(board: Board) -> str:
    """The ``.pls`` text of a Latin square board (no inequalities)."""
    n = square_size(board, "pls", kinds=("latin-square", "futoshiki"), less="none")
    clues = board.clue_map
    out = [f"order {n}"]
    for r in range(n):
        out.append("".join(f"{clues.get(r * n + c, 0) - 1:4d}" for c in range(n)))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ DZN
_DZN_TOKEN = re.compile(r"\s+|%[^\n]*|\[\||\|\]|[A-Za-z_][A-Za-z0-9_]*|-?\d+|\S")


def _dzn_tokens(text: str, source: str) -> list[tuple[str, int, int]]:
    """(token, line, column) of every token, comments and blanks dropped."""
    out = []
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line = 0
    for m in _DZN_TOKEN.finditer(text):
        while line + 1 < len(line_starts) and line_starts[line + 1] <= m.start():
            line += 1
        tok = m.group()
        if tok.isspace() or tok.startswith("%"):
            continue
        out.append((tok, line + 1, m.start() - line_starts[line] + 1))
    return out


def parse_dzn(text: str, source: str = "<string>") -> Board:
    """Read a CSPLib 067 ``.dzn`` file (``N`` and the 2-D array ``start``).

    Raises:
        InputError: naming the line and column of the problem.
    """
    tokens = _dzn_tokens(text, source)
    pos = 0

    def take(expected: str | None = None) -> tuple[str, int, int]:
        nonlocal pos
        if pos >= len(tokens):
            last = tokens[-1] if tokens else ("", 1, 1)
            raise InputError(f"unexpected end of file{f', expected {expected!r}' if expected else ''}",
                             source, last[1], last[2])
        tok = tokens[pos]
        if expected is not None and tok[0] != expected:
            raise InputError(f"expected {expected!r}, found {tok[0]!r}", source, tok[1], tok[2])
        pos += 1
        return tok

    size: tuple[int, int, int] | None = None
    start: list[list[tuple[int, int, int]]] | None = None
    start_at = (1, 1)
    while pos < len(tokens):
        name, line, col = take()
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise InputError(f"expected a name, found {name!r}", source, line, col)
        take("=")
        if name == "N":
            value, vl, vc = take()
            if not _INT.fullmatch(value) or int(value) < 1:
                raise InputError(f"N must be a positive integer, got {value!r}", source, vl, vc)
            size = (int(value), vl, vc)
        elif name == "start":
            start_at = take("[|")[1:]
            start = [[]]
            while True:
                tok = take()
                if tok[0] == "|]":
                    break
                if tok[0] == "|":
                    start.append([])
                    continue
                if not _INT.fullmatch(tok[0]):
                    raise InputError(f"{tok[0]!r} is not an integer", source, tok[1], tok[2])
                start[-1].append((int(tok[0]), tok[1], tok[2]))
                if pos < len(tokens) and tokens[pos][0] == ",":
                    pos += 1
            if start and not start[-1]:
                start.pop()  # the '|' before '|]' closes the last row
        else:
            raise InputError(f"unknown name {name!r} (a QWH file sets N and start)", source, line, col)
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
    return re.match(r"\s*order\s+\d+\s*\n", text) is not None


def _sniff_dzn(text: str) -> bool:
    return re.search(r"^\s*N\s*=\s*\d+\s*;", text, re.M) is not None and "[|" in text


PLS = Format("pls", (".pls",), lambda text, source: [parse_pls(text, source)], format_pls, _sniff_pls)
DZN = Format("dzn", (".dzn",), lambda text, source: [parse_dzn(text, source)], format_dzn, _sniff_dzn)
