"""MiniZinc export of a Model, and the decoder of a MiniZinc run's output.

:func:`to_mzn` writes one self-contained ``.mzn`` file (model and data
together) that any MiniZinc solver can run: one variable per cell over the
value indices ``1..m`` (1-based: value index i of the Model is ``i + 1``; the
header comments map them to labels), each restricted to its list;
``all_different_int`` per AllDifferent asterism, ``global_cardinality`` per
Count asterism, ``<`` per Less. It prints one line per solution::

    futocp-solution: [2, 1, 1, 2]

The file includes the two global constraint files it uses rather than
``globals.mzn`` (with Debian's MiniZinc 2.6 and its Gecode 6.2 library,
``include "globals.mzn"`` fails to type-check), and it calls
``all_different_int`` rather than ``alldifferent``: there the latter reaches
no Gecode propagator and is decomposed into pairwise disequalities. Option
``consistency="domain"`` (default) annotates both globals ``:: domain``
(domain-consistent propagation, where the solver has it; others ignore the
annotation); ``"solver"`` leaves the choice to the solver. Measured with
Gecode (20 s limit): on order-30 QWH instances of ``../shared/data/qwh``
the decomposition solved none of four, native ``all_different_int`` one (in
5.7 s), with ``:: domain`` all four (0.2-19 s).

:func:`parse_mzn_output` reads what ``minizinc`` printed (solution lines, the
``----------`` / ``==========`` separators, ``=====UNSATISFIABLE=====``,
``%%%mzn-stat:`` lines) back into labels per cell.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> m = build_model(latin_square(2, [[1, 0], [0, 0]]))
    >>> text = to_mzn(m)
    >>> "all_different_int" in text, "array[CELLS] of var VALUES: x;" in text
    (True, True)
    >>> out = parse_mzn_output(m, "futocp-solution: [1, 2, 2, 1]\\n----------\\n==========\\n")
    >>> out.solutions, out.status, out.complete
    ([(1, 2, 2, 1)], 'sat', True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import Label
from .errors import FutocpError, UsageError
from .model import Model

__all__ = ["to_mzn", "parse_mzn_output", "MznOutput", "SOLUTION_PREFIX", "CONSISTENCIES"]

SOLUTION_PREFIX = "futocp-solution:"
CONSISTENCIES = ("domain", "solver")

_SOLUTION = re.compile(re.escape(SOLUTION_PREFIX) + r"\s*\[([^\]]*)\]")
_STAT = re.compile(r"^%%%mzn-stat:\s*(\w+)=(.*)$")


def _set(values: Iterable[int]) -> str:
    vals = sorted(values)
    if vals and vals == list(range(vals[0], vals[-1] + 1)) and len(vals) > 2:
        return f"{vals[0]}..{vals[-1]}"
    return "{" + ", ".join(map(str, vals)) + "}"


def _array(items: Sequence[str], width: int = 96) -> str:
    """``[a, b, ...]``, on indented lines of about ``width`` characters when long."""
    inline = "[" + ", ".join(items) + "]"
    if len(inline) <= 60:
        return inline
    lines, line = [], ""
    for item in items:
        if line and len(line) + len(item) + 2 > width:
            lines.append(line)
            line = ""
        line += (" " if line else "") + item + ","
    lines.append(line.rstrip(","))
    return "[\n  " + "\n  ".join(lines) + "\n]"


def _label_comment(model: Model) -> list[str]:
    out = ["% value index -> label:"]
    pairs = [f"{i + 1}={label!r}" for i, label in enumerate(model.values)]
    line = "%  "
    for p in pairs:
        if len(line) + len(p) > 98:
            out.append(line.rstrip())
            line = "%  "
        line += " " + p
    out.append(line.rstrip())
    return out


def to_mzn(model: Model, consistency: str = "domain", **options: Any) -> str:
    """A MiniZinc model with its data, in one ``.mzn`` text.

    Args:
        model: The Model (its lists become the variables' domains).
        consistency: ``"domain"`` annotates the global constraints ``:: domain``;
            ``"solver"`` leaves the propagation strength to the solver.
        **options: No others are defined; any given is an error.

    Returns:
        The file text (ends with a newline).

    Raises:
        UsageError: for an unknown option or value.
    """
    if options:
        raise UsageError(f"the mzn export has no option {sorted(options)[0]!r} "
                         f"(options: consistency)")
    if consistency not in CONSISTENCIES:
        raise UsageError(f"option consistency={consistency!r}: choose one of "
                         f"{', '.join(CONSISTENCIES)}")
    ann = " :: domain" if consistency == "domain" else ""
    board = model.board
    n, m = model.n_cells, model.n_values
    lines = [
        f"% futocp MiniZinc export: kind={board.kind}, {n} cells, {m} values, "
        f"filtering={model.filtering}",
        "% x[c] is the value index (1-based) of cell c - 1 of the board "
        "(cell = row * cols + col on a grid).",
        *_label_comment(model),
    ]
    if model.conflict is not None:
        lines.append(f"% known unsatisfiable: {model.conflict}")
    lines += [
        'include "all_different_int.mzn";',
        'include "global_cardinality.mzn";',
        "",
        "% ---- data",
        f"int: n_cells = {n};",
        f"int: n_values = {m};",
        "set of int: CELLS = 1..n_cells;",
        "set of int: VALUES = 1..n_values;",
    ]
    lists = [_set(v + 1 for v in model.domain(c)) for c in range(n)]
    lines.append(f"array[CELLS] of set of int: lists = {_array(lists)};")
    alldiff = [_set(c + 1 for c in con.cells) for con in model.permutations]
    lines.append(f"array[1..{len(alldiff)}] of set of CELLS: alldiff = {_array(alldiff)};")
    counts = model.counts
    lines.append(f"array[1..{len(counts)}] of set of CELLS: multiset = "
                 f"{_array([_set(c + 1 for c in con.cells) for con in counts])};")
    flat = [str(k) for con in counts for k in con.counts]
    lines.append(f"array[1..{len(counts)}, VALUES] of int: multiplicity = "
                 f"array2d(1..{len(counts)}, VALUES, {_array(flat)});")
    less = model.less
    lines.append(f"array[1..{len(less)}] of CELLS: less_a = "
                 f"{_array([str(con.a + 1) for con in less])};")
    lines.append(f"array[1..{len(less)}] of CELLS: less_b = "
                 f"{_array([str(con.b + 1) for con in less])};")
    lines += [
        "",
        "% ---- model",
        "array[CELLS] of var VALUES: x;",
        "constraint forall(c in CELLS)(x[c] in lists[c]);",
        "constraint forall(g in index_set(alldiff))(",
        f"  all_different_int([x[c] | c in alldiff[g]]){ann});",
        "constraint forall(g in index_set(multiset))(",
        "  global_cardinality([x[c] | c in multiset[g]], [v | v in VALUES],",
        f"                     [multiplicity[g, v] | v in VALUES]){ann});",
        "constraint forall(i in index_set(less_a))(x[less_a[i]] < x[less_b[i]]);",
        "solve satisfy;",
        f'output ["{SOLUTION_PREFIX} ", show(x), "\\n"];',
    ]
    return "\n".join(lines) + "\n"


@dataclass
class MznOutput:
    """What a ``minizinc`` run printed, decoded.

    Attributes:
        solutions: Labels per cell, one tuple per solution, in order printed.
        status: ``sat``, ``unsat`` or ``unknown``.
        complete: True when MiniZinc printed ``==========`` (search completed
            with all solutions printed) or ``=====UNSATISFIABLE=====``.
        stats: The ``%%%mzn-stat:`` values (numbers where they parse).
    """

    solutions: list[tuple[Label, ...]] = field(default_factory=list)
    status: str = "unknown"
    complete: bool = False
    stats: dict[str, Any] = field(default_factory=dict)


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip('"')


def parse_mzn_output(model: Model, text: str) -> MznOutput:
    """Decode the standard output of ``minizinc`` on a :func:`to_mzn` file.

    Raises:
        FutocpError: for a solution line that does not fit the model.
    """
    out = MznOutput()
    n, m = model.n_cells, model.n_values
    for line in text.splitlines():
        line = line.strip()
        stat = _STAT.match(line)
        if stat:
            out.stats[stat.group(1)] = _number(stat.group(2))
            continue
        if line == "==========":
            out.complete = True
        elif line == "=====UNSATISFIABLE=====":
            out.status, out.complete = "unsat", True
        found = _SOLUTION.search(line)
        if found:
            try:
                idx = [int(v) - 1 for v in found.group(1).split(",") if v.strip()]
            except ValueError:
                raise FutocpError(f"cannot read the MiniZinc solution line {line!r}") from None
            if len(idx) != n or not all(0 <= v < m for v in idx):
                raise FutocpError(f"the MiniZinc solution line has {len(idx)} values for "
                                  f"{n} cells or a value outside 1..{m}: {line[:80]!r}")
            out.solutions.append(model.labels_of(idx))
    if out.solutions:
        out.status = "sat"
    return out
