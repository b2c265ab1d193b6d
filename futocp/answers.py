"""Answers of external solvers that name futocp's variables, decoded back into a board.

``futocp export --to mps|lp`` (the ``mip`` backend's model) and ``--to smt2``
(the ``smt`` backend's) name every variable after its cell and value, so that a
solver's answer needs no map besides the board:

* ``x_C_V`` (MPS, LP): 1 when cell ``C`` (0-based) takes value index ``V`` of
  the board's sorted labels;
* ``x_C`` (SMT-LIB, integer model): the label of cell ``C`` on a board of
  integer labels, else its value index;
* ``b_C_V`` (SMT-LIB, Boolean model): true when cell ``C`` takes value index ``V``.

Other variables (``t_I_K``, the tuple selectors of a relation) are ignored.
:func:`read_answer` reads:

* a **HiGHS solution file** (``highs --solution_file FILE model.mps``, or
  ``Highs.writeSolution``, raw style): the ``# Columns N`` section of the
  primal solution (``None`` there: no solution);
* a **SCIP solution file** (``write solution`` in SCIP's shell,
  ``Model.writeBestSol``): ``objective value:`` then ``name value`` lines,
  zeros left out;
* **z3's model output** (``z3 model.smt2``: ``sat`` and ``(define-fun x_0 () Int 3)``
  ..., or ``unsat``).

Example:
    >>> from futocp.families import latin_square
    >>> board = latin_square(2, [[1, 0], [0, 0]])
    >>> decode_answer(board, "sat\\n(\\n  (define-fun x_1 () Int\\n    2)\\n"
    ...                      "  (define-fun x_0 () Int 1) (define-fun x_2 () Int 2)"
    ...                      " (define-fun x_3 () Int 1))")
    (1, 2, 2, 1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .board import Board, Label
from .errors import InputError
from .model import Model

__all__ = ["Answer", "answer_format", "read_answer", "decode_answer", "one_label_per_cell"]

_NAME = re.compile(r"^(?P<kind>[xb])_(?P<cell>\d+)(?:_(?P<value>\d+))?$")
_DEFINE = re.compile(r"\(define-fun\s+(?P<name>[^\s()]+)\s+\(\)\s+(?P<sort>Int|Bool)\s+"
                     r"(?P<value>-?\d+|\(\s*-\s*\d+\s*\)|true|false)\s*\)")


@dataclass
class Answer:
    """What a solver's answer file says.

    Attributes:
        solver: ``highs``, ``scip`` or ``z3``.
        values: Variable name -> value (1/0 for Booleans and binaries), with the
            line each came from.
        lines: Variable name -> the line number it was read on.
    """

    solver: str
    values: dict[str, int]
    lines: dict[str, int]


def answer_format(text: str) -> str | None:
    """``highs``, ``scip`` or ``z3`` when ``text`` looks like that solver's answer, else None.

    Example:
        >>> answer_format("Model status\\nOptimal\\n"), answer_format("v 1 -2 0")
        ('highs', None)
    """
    if "define-fun" in text or re.match(r"\s*(sat|unsat|unknown)\s*($|\()", text):
        return "z3"
    if "# Primal solution values" in text or text.lstrip().startswith("Model status"):
        return "highs"
    if re.search(r"^(objective value:|solution status:|no solution available)", text, re.M):
        return "scip"
    return None


def _number(token: str, source: str, line: int) -> int:
    try:
        value = float(token)
    except ValueError:
        raise InputError(f"expected a number, got {token!r}", source, line) from None
    return round(value)


def read_answer(text: str, source: str = "<model>") -> Answer:
    """Read a HiGHS or SCIP solution file or z3's model output (module docstring).

    Raises:
        InputError: when the text is none of them, or says there is no solution.
    """
    kind = answer_format(text)
    lines = text.splitlines()
    values: dict[str, int] = {}
    where: dict[str, int] = {}
    if kind == "z3":
        first = next((ln.strip() for ln in lines if ln.strip()), "")
        if first in ("unsat", "unknown"):
            raise InputError(f"z3 answered {first}: there is no model to decode", source, 1)
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln) + 1)
        for m in _DEFINE.finditer(text):
            raw = m.group("value")
            value = (1 if raw == "true" else 0 if raw == "false"
                     else -int(raw.strip("()- \n")) if raw.startswith("(") else int(raw))
            values[m.group("name")] = value
            where[m.group("name")] = next(i for i, s in enumerate(starts) if s > m.start())
    elif kind == "highs":
        status = "not given"
        for no, ln in enumerate(lines, 1):
            if ln.startswith("Model status") and no < len(lines):
                status = lines[no].strip()
            if ln.strip() == "# Primal solution values":
                if no < len(lines) and lines[no].strip() == "None":
                    raise InputError(f"HiGHS found no solution (model status: {status})",
                                     source, no + 1)
            columns = re.match(r"# Columns (\d+)\s*$", ln)
            if columns:
                for k in range(no, min(no + int(columns.group(1)), len(lines))):
                    parts = lines[k].split()
                    if len(parts) != 2:
                        raise InputError(f"expected 'name value', got {lines[k]!r}", source, k + 1)
                    values[parts[0]] = _number(parts[1], source, k + 1)
                    where[parts[0]] = k + 1
                break
        else:
            raise InputError("no '# Columns N' section of primal values in the HiGHS solution "
                             "file", source)
    elif kind == "scip":
        for no, ln in enumerate(lines, 1):
            low = ln.strip().lower()
            if low.startswith("no solution available") or (
                    low.startswith("solution status:") and "infeasible" in low):
                raise InputError(f"SCIP found no solution ({ln.strip()})", source, no)
            if not low or low.startswith(("solution status:", "objective value:")):
                continue
            parts = ln.split()
            if len(parts) < 2:
                raise InputError(f"expected 'name value', got {ln!r}", source, no)
            values[parts[0]] = _number(parts[1], source, no)
            where[parts[0]] = no
    else:
        raise InputError("not a solver answer futocp can decode here (a HiGHS or SCIP "
                         "solution file, or z3's model output)", source)
    return Answer(kind, values, where)


def decode_answer(board_or_model: Board | Model, text: str, *, source: str = "<model>"
                  ) -> tuple[Label, ...]:
    """Turn a HiGHS / SCIP solution file or a z3 model on an exported ``mps``,
    ``lp`` or ``smt2`` formula back into a solution (labels per cell).

    Args:
        board_or_model: The Board (or Model) the formula was exported from.
        text: The solver's answer.
        source: Its name in error messages (the file).

    Returns:
        One label per cell (check it with :func:`futocp.verify.verify`).

    Raises:
        InputError: for an answer that cannot be read, names a cell the board does
            not have or a value it does not have, or gives a cell no value or two.
    """
    board = board_or_model.board if isinstance(board_or_model, Model) else board_or_model
    answer = read_answer(text, source)
    values = board.values
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    chosen: dict[int, list[Label]] = {}
    for name, value in answer.values.items():
        m = _NAME.match(name)
        if not m:
            continue
        cell = int(m.group("cell"))
        line = answer.lines.get(name)
        if cell >= board.n_cells:
            raise InputError(f"variable {name} names cell {cell}; the board has "
                             f"{board.n_cells} cells", source, line)
        if m.group("value") is not None:  # x_C_V, b_C_V: a 0/1 indicator
            if value not in (0, 1):
                raise InputError(f"variable {name} is {value}, expected 0 or 1", source, line)
            index = int(m.group("value"))
            if index >= len(values):
                raise InputError(f"variable {name} names value index {index}; the board has "
                                 f"{len(values)} labels", source, line)
            if value:
                chosen.setdefault(cell, []).append(values[index])
        elif m.group("kind") == "x":  # x_C: the label (integer boards) or the value index
            if ints and value in values:
                chosen.setdefault(cell, []).append(value)
            elif not ints and 0 <= value < len(values):
                chosen.setdefault(cell, []).append(values[value])
            else:
                raise InputError(f"variable {name} = {value} is not a label of this board",
                                 source, line)
    return one_label_per_cell(board, chosen, f"the {answer.solver} answer",
                              "is it an answer on this board's export?", source)


def one_label_per_cell(board: Board, chosen: dict[int, list[Label]], who: str, hint: str,
                       source: str) -> tuple[Label, ...]:
    """Each cell's label from what an answer gave it (cell -> labels).

    Raises:
        InputError: naming the first cell given no label or several (``who gives
            cell C no label; HINT``).
    """
    out: list[Label] = []
    for c in range(board.n_cells):
        labels = chosen.get(c, [])
        if len(labels) != 1:
            what = "no label" if not labels else f"{len(labels)} labels"
            raise InputError(f"{who} gives cell {board.cell_name(c)} {what}; {hint}", source)
        out.append(labels[0])
    return tuple(out)
