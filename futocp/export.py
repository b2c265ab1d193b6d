"""Exports of a Model to other solvers' formats, and decoding their answers.

:data:`EXPORTERS` maps a format name to a function ``(model, options) -> str``:

* ``dimacs`` -- the ``sat`` backend's CNF with its options (``card``, ``less``,
  ``cage``, ``simplify``), every relation kind included, with comment lines
  that map every variable to its cell and label
  (``c var 17 = cell 3 (0,3) label 4``) and name the fixed cells
  (``c fixed cell 0 (0,0) label 1``), so that a model printed by any SAT
  solver can be turned back into a solution with :func:`decode`;
* ``opb`` -- a pseudo-Boolean version over the same direct variables:
  exactly-k as linear equalities, ``Less`` as linear inequalities, any other
  binary relation as support inequalities (``sum x[b,w] - x[a,v] >= 0``, w
  supporting v), a cage as at-most-one per value and the equality
  ``sum label * x = S``, with the same map in ``*`` comment lines;
* ``cpsat`` -- the CP-SAT model proto as text (option ``formulation``), with
  the backend's encodings of every relation kind, after ``#`` comment lines
  (which the text format allows) that give the labels and map every cell's
  variable (``# int var 3 = cell 3 (0,3)``, its value the label's index) or
  every Boolean (``# var 17 = cell 3 (0,3) label 4``) by its index in the proto;
* ``mzn`` -- a MiniZinc model with its data (:func:`futocp.mzn.to_mzn`), whose
  header comments give the labels of the value indices it prints;
* ``mps``, ``lp`` -- the ``mip`` backend's binary program in free MPS or CPLEX
  LP format (:class:`futocp.backends.mip.LinearModel`), read by HiGHS, SCIP and
  most MIP solvers;
* ``smt2`` -- the ``smt`` backend's z3 model (option ``model``: ``int`` or
  ``bool``) as SMT-LIB 2 with ``(check-sat)`` and ``(get-model)``.

:func:`decode` reads every one of them back: a SAT solver's model of the
DIMACS, a PB solver's of the OPB, a ``CpSolverResponse`` (``solution:`` lines)
of the CP-SAT proto, MiniZinc's output of the ``.mzn`` file. The variables of
``mps``, ``lp`` and ``smt2`` are named after their cell and value (``x_C_V``,
``x_C``, ``b_C_V``), so that a HiGHS or SCIP solution file or z3's model
output decodes with the board alone (:mod:`futocp.answers`).

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> board = latin_square(2, [[1, 0], [0, 0]])
    >>> text = to_dimacs(build_model(board, filtering="none"), simplify=False)
    >>> print(*text.splitlines()[:3], "...", sep="\\n")
    c futocp cells 4 card auto less support pairwise_max 10 card_long seqcounter
    c var 1 = cell 1 (0,1) label 1
    c var 2 = cell 1 (0,1) label 2
    ...
    >>> decode(board, text, "s SATISFIABLE\\nv -1 2 -3 4 5 -6 0")
    (1, 2, 2, 1)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .answers import answer_format as solver_answer
from .answers import decode_answer, one_label_per_cell
from .board import Board, Label
from .errors import InputError, UsageError
from .model import Model
from .mzn import HEADER as MZN_HEADER
from .mzn import SOLUTION_PREFIX, parse_output_lines, read_mzn_header

__all__ = ["EXPORTERS", "export", "to_dimacs", "to_opb", "to_cpsat", "to_mps", "to_lp", "to_smt2",
           "decode", "read_var_map", "formula_format", "answer_format"]


def to_dimacs(model: Model, /, **options: Any) -> str:
    """The CNF of the ``sat`` backend in DIMACS, with the variable map as comments.

    Args:
        model: The Model.
        **options: ``sat`` backend options (``card``, ``pairwise_max``, ``card_long``,
            ``less``, ``cage``, ``simplify``;
            ``solver`` is accepted and ignored).
    """
    from .backends.sat import SatBackend

    return SatBackend().compile(model, **options).to_dimacs()


def to_opb(model: Model, /, **options: Any) -> str:
    """A pseudo-Boolean (OPB) formulation over the direct variables.

    Args:
        model: The Model.
        **options: ``sat`` backend options; only ``simplify`` changes the result
            (which values become constants).
    """
    from .backends.sat import SatBackend

    return SatBackend().compile(model, **options).to_opb()


def to_cpsat(model: Model, /, **options: Any) -> str:
    """The CP-SAT model proto as text, after comment lines mapping its variables.

    Args:
        model: The Model.
        **options: ``cpsat`` backend options (``formulation``).
    """
    from .backends.cpsat import CpsatBackend

    form = CpsatBackend().compile(model, **options)
    board = model.board
    labels = json.dumps(list(model.values))
    lines = [f"# futocp cells {board.n_cells} formulation {form.formulation} labels {labels}"]
    for c, cell_var in enumerate(form.cell_vars):
        if form.formulation == "integer":
            lines.append(f"# int var {cell_var.index} = cell {c} {board.cell_name(c)}")
            continue
        lines += [f"# var {b.index} = cell {c} {board.cell_name(c)} "
                  f"label {json.dumps(model.values[v])}" for v, b in cell_var]
    return "\n".join(lines) + "\n" + form.proto_text()


def to_mps(model: Model, /, **options: Any) -> str:
    """The ``mip`` backend's binary program in free MPS format.

    Args:
        model: The Model.
        **options: ``mip`` backend options (accepted; none changes the program).
    """
    from .backends.mip import MipBackend

    return MipBackend().compile(model, **options).to_mps()


def to_lp(model: Model, /, **options: Any) -> str:
    """The ``mip`` backend's binary program in CPLEX LP format (options as :func:`to_mps`)."""
    from .backends.mip import MipBackend

    return MipBackend().compile(model, **options).to_lp()


def to_smt2(model: Model, /, **options: Any) -> str:
    """The ``smt`` backend's z3 model as SMT-LIB 2 (needs ``z3-solver``).

    Args:
        model: The Model.
        **options: ``smt`` backend options (``model``: ``int`` or ``bool``; ``occurrences``).
    """
    from .backends.smt import SmtBackend

    backend = SmtBackend()
    backend.check(model)  # z3 must be there
    return backend.compile(model, **options).to_smt2()


EXPORTERS: dict[str, Callable[[Model, dict[str, Any]], str]] = {
    "dimacs": lambda model, options: to_dimacs(model, **options),
    "opb": lambda model, options: to_opb(model, **options),
    "cpsat": lambda model, options: to_cpsat(model, **options),
    "mzn": lambda model, options: _to_mzn(model, **options),
    "mps": lambda model, options: to_mps(model, **options),
    "lp": lambda model, options: to_lp(model, **options),
    "smt2": lambda model, options: to_smt2(model, **options),
}


def _to_mzn(model: Model, /, **options: Any) -> str:
    from .mzn import to_mzn

    return to_mzn(model, **options)


def export(model: Model, to: str, /, **options: Any) -> str:
    """The text of ``model`` in format ``to`` (a key of :data:`EXPORTERS`).

    Raises:
        UsageError: for an unknown format.
    """
    try:
        fn = EXPORTERS[to]
    except KeyError:
        raise UsageError(f"unknown export format {to!r} (known: {', '.join(EXPORTERS)})") from None
    return fn(model, options)


_HEAD = re.compile(r"futocp cells (\d+)\b")
_VAR = re.compile(r"var (\d+) = cell (\d+) \S+ label (?P<label>.+)$")
_INT_VAR = re.compile(r"int var (\d+) = cell (\d+) \S+$")
_CPSAT_HEAD = re.compile(r"# futocp cells (\d+) formulation \w+ labels (?P<labels>.+)$")
_SOLVER_HEAD = re.compile(r"([*\\;]) futocp (?:mip|smt \w+) cells \d+")
_RESPONSE_FIELD = re.compile(r"^(status|solution)\s*:\s*", re.M)
_FIXED = re.compile(r"fixed cell (\d+) \S+ label (?P<label>.+)$")


def _json_label(text: str, source: str, number: int, column: int) -> Label:
    """A label written as JSON in a map line (an integer or a string)."""
    try:
        label = json.loads(text)
    except json.JSONDecodeError:
        label = None
    if isinstance(label, bool) or not isinstance(label, (int, str)):
        raise InputError(f"bad label {text!r} in the variable map", source, number, column)
    return label


def read_var_map(text: str, source: str = "<dimacs>") -> tuple[int, dict[int, tuple[int, Label]],
                                                                dict[int, Label]]:
    """Read the variable map from DIMACS (``c``) or OPB (``*``) comment lines.

    Returns:
        ``(n_cells, var -> (cell, label), fixed cell -> label)``.

    Raises:
        InputError: when the map is missing or a map line is malformed.
    """
    n_cells: int | None = None
    var_map: dict[int, tuple[int, Label]] = {}
    fixed: dict[int, Label] = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.startswith(("c ", "* ")):
            continue
        body = line[2:].strip()
        head = _HEAD.match(body)
        if head:
            n_cells = int(head.group(1))
            continue
        m = _VAR.match(body) or _FIXED.match(body)
        if not m:
            if body.startswith(("var ", "fixed ")):
                raise InputError(f"malformed variable map line: {line!r}", source, no, 1)
            continue
        label = _json_label(m.group("label"), source, no, m.start("label") + 3)
        if m.re is _VAR:
            var = int(m.group(1))
            if var in var_map:
                raise InputError(f"variable {var} is mapped twice", source, no, 1)
            var_map[var] = (int(m.group(2)), label)
        else:
            fixed[int(m.group(1))] = label
    if n_cells is None or not (var_map or fixed):
        raise InputError("no futocp variable map (comment lines 'futocp cells N' and "
                         "'var V = cell C ... label L'); export the formula with futocp", source)
    return n_cells, var_map, fixed


_LIT = re.compile(r"^(-?)x?(\d+)$")


# MiniSat's result file (``minisat in.cnf out.txt``) starts with a bare verdict line.
_SAT_WORDS = ("SAT", "SATISFIABLE")
_NO_MODEL_WORDS = ("UNSAT", "UNSATISFIABLE", "INDET", "UNKNOWN", "INDETERMINATE")


def _true_vars(model_text: str, source: str) -> set[int]:
    true: set[int] = set()
    false: set[int] = set()
    seen_values = said_sat = False  # a model without literals: a formula without variables
    for no, line in enumerate(model_text.splitlines(), 1):
        tokens = list(re.finditer(r"\S+", line))
        if not tokens or tokens[0].group() in ("c", "*", "o"):
            continue
        verdict = ""
        if tokens[0].group() == "s":
            verdict = line[tokens[1].start():].strip().upper() if len(tokens) > 1 else ""
        elif len(tokens) == 1 and tokens[0].group().upper() in _SAT_WORDS + _NO_MODEL_WORDS:
            verdict = tokens[0].group().upper()  # MiniSat's result format: SAT / UNSAT / INDET
        if verdict or tokens[0].group() == "s":
            if verdict in _NO_MODEL_WORDS:
                raise InputError(f"the solver answered {verdict}: there is no model to decode",
                                 source, no, 1)
            said_sat = said_sat or bool(verdict)
            continue
        if tokens[0].group() == "v":
            tokens = tokens[1:]
        for tok in tokens:
            m = _LIT.match(tok.group())
            if not m:
                raise InputError(f"expected a literal (an integer), got {tok.group()!r}",
                                 source, no, tok.start() + 1)
            var = int(m.group(2))
            seen_values = True
            if var == 0:
                continue
            neg = m.group(1) == "-"
            if var in (true if neg else false):
                raise InputError(f"variable {var} is both true and false", source, no,
                                 tok.start() + 1)
            (false if neg else true).add(var)
    if not seen_values and not said_sat:
        raise InputError("no model: expected literals such as 'v 1 -2 3 0' (DIMACS) or a "
                         "'SAT' line and literals (MiniSat's result file)", source)
    return true


def formula_format(formula_text: str) -> str:
    """The export format of a formula :func:`export` wrote, by its first line:
    ``mzn``, ``cpsat``, ``mps``, ``lp``, ``smt2``, or ``dimacs`` (DIMACS and OPB
    share their variable map).

    Example:
        >>> formula_format("% futocp MiniZinc export: kind=sudoku, 81 cells, 9 values")
        'mzn'
    """
    first = formula_text.split("\n", 1)[0].strip()
    if first.startswith(MZN_HEADER):
        return "mzn"
    head = _SOLVER_HEAD.match(first)
    if head is not None:
        return {"*": "mps", "\\": "lp", ";": "smt2"}[head.group(1)]
    return "cpsat" if _CPSAT_HEAD.match(first) else "dimacs"


def answer_format(model_text: str) -> str:
    """The export format a solver's answer was made for, by its content: ``mps``
    (a HiGHS or SCIP solution file; an answer to the LP reads the same), ``smt2``
    (z3's model output), ``mzn`` (MiniZinc's ``futocp-solution:`` lines or
    verdict), ``cpsat`` (a ``CpSolverResponse``: ``status:`` and ``solution:``
    lines), else ``dimacs`` (literals; a PB solver's answer to the OPB reads the same)."""
    solver = solver_answer(model_text)
    if solver is not None:
        return "smt2" if solver == "z3" else "mps"
    if SOLUTION_PREFIX in model_text or "=====UNSATISFIABLE=====" in model_text:
        return "mzn"
    return "cpsat" if _RESPONSE_FIELD.search(model_text) else "dimacs"


def _read_cpsat_map(text: str, source: str) -> tuple[int, list[Label], dict[int, int],
                                                      dict[int, tuple[int, Label]]]:
    """``(n_cells, labels, int var -> cell, Boolean var -> (cell, label))`` from the
    comment lines of a :func:`to_cpsat` export."""
    lines = text.splitlines()
    head = _CPSAT_HEAD.match(lines[0].strip()) if lines else None
    if head is None:
        raise InputError("no futocp variable map (a first line '# futocp cells N ...'); "
                         "export the formula with futocp", source, 1)
    try:
        labels = json.loads(head.group("labels"))
    except json.JSONDecodeError:
        labels = None
    if not isinstance(labels, list) or not all(
            isinstance(v, (int, str)) and not isinstance(v, bool) for v in labels):
        raise InputError(f"bad labels {head.group('labels')!r} in the variable map", source, 1,
                         head.start("labels") + 1)
    int_vars: dict[int, int] = {}
    bool_vars: dict[int, tuple[int, Label]] = {}
    for no, line in enumerate(lines[1:], 2):
        if not line.startswith("# "):
            break
        body = line[2:].strip()
        m = _INT_VAR.match(body) or _VAR.match(body)
        if m is None:
            raise InputError(f"malformed variable map line: {line!r}", source, no, 1)
        var, cell = int(m.group(1)), int(m.group(2))
        if var in int_vars or var in bool_vars:
            raise InputError(f"variable {var} is mapped twice", source, no, 1)
        if m.re is _INT_VAR:
            int_vars[var] = cell
        else:
            bool_vars[var] = (cell, _json_label(m.group("label"), source, no, m.start("label") + 3))
    return int(head.group(1)), labels, int_vars, bool_vars


def _response_values(model_text: str, source: str) -> list[int]:
    """The ``solution`` values of a ``CpSolverResponse`` in text format (one
    ``solution: V`` line per variable, or ``solution: [V, ...]``)."""
    values: list[int] = []
    for no, line in enumerate(model_text.splitlines(), 1):
        field = _RESPONSE_FIELD.match(line)
        if field is None:
            continue
        body = line[field.end():]
        if field.group(1) == "status":
            if body.strip() not in ("OPTIMAL", "FEASIBLE"):
                raise InputError(f"the solver answered {body.strip()}: there is no model to "
                                 "decode", source, no, 1)
            continue
        for item in re.finditer(r"[^\s\[\],]+", body):
            try:
                values.append(int(item.group()))
            except ValueError:
                raise InputError(f"expected an integer value, got {item.group()!r}", source, no,
                                 field.end() + item.start() + 1) from None
    if not values:
        raise InputError("no model: expected a CP-SAT response with 'solution:' lines (what "
                         "print(solver.response_proto) prints)", source)
    return values


def _cpsat_choice(formula_text: str, model_text: str, board: Board, formula_source: str,
                  model_source: str) -> dict[int, list[Label]]:
    n_cells, labels, int_vars, bool_vars = _read_cpsat_map(formula_text, formula_source)
    _check_cells(n_cells, board, formula_source)
    values = _response_values(model_text, model_source)
    needed = max([*int_vars, *bool_vars], default=-1) + 1
    if len(values) < needed:
        raise InputError(f"the response has {len(values)} values, the formula has {needed} "
                         "variables; is it an answer to this formula?", model_source)
    chosen: dict[int, list[Label]] = {}
    for var, cell in int_vars.items():
        if not 0 <= values[var] < len(labels):
            raise InputError(f"variable {var} (cell {board.cell_name(cell)}) has the value "
                             f"{values[var]}, outside 0..{len(labels) - 1}", model_source)
        chosen.setdefault(cell, []).append(labels[values[var]])
    for var, (cell, label) in bool_vars.items():
        if values[var]:
            chosen.setdefault(cell, []).append(label)
    return chosen


def _mzn_choice(formula_text: str, model_text: str, board: Board, formula_source: str,
                model_source: str) -> dict[int, list[Label]]:
    n_cells, labels = read_mzn_header(formula_text, formula_source)
    _check_cells(n_cells, board, formula_source)
    out = parse_output_lines(n_cells, labels, model_text, model_source)
    if not out.solutions:
        if out.status == "unsat":
            raise InputError("the solver answered UNSATISFIABLE: there is no model to decode",
                             model_source)
        raise InputError(f"no solution line ('{SOLUTION_PREFIX} [...]') in the MiniZinc "
                         "output", model_source)
    return {c: [label] for c, label in enumerate(out.solutions[0])}


def _check_cells(n_cells: int, board: Board, formula_source: str) -> None:
    if n_cells != board.n_cells:
        raise InputError(f"the formula is for {n_cells} cells, the board has {board.n_cells}",
                         formula_source)


def decode(board_or_model: Board | Model, formula_text: str, model_text: str, *,
           formula_source: str = "<dimacs>", model_source: str = "<model>") -> tuple[Label, ...]:
    """Turn an external solver's model back into a solution (labels per cell).

    Args:
        board_or_model: The Board (or Model) the formula was exported from.
        formula_text: The exported text, any format of :data:`EXPORTERS` (for
            DIMACS and OPB, its comment lines are enough; for MPS, LP and SMT-LIB,
            its first line is checked against the board, or it may be empty).
        model_text: The solver's answer. To DIMACS or OPB: ``v`` lines
            (``v 1 -2 3 ... 0``, or ``v x1 -x2`` from a PB solver), MiniSat's
            result file (a ``SAT`` line, then the literals; ``UNSAT`` or ``INDET``
            is an error), or plain integers; ``s`` and ``c`` lines are skipped. To
            the CP-SAT proto: the ``CpSolverResponse`` in text format. To the
            MiniZinc model: what ``minizinc`` printed (the first solution is taken).
            To MPS, LP or SMT-LIB: a HiGHS or SCIP solution file or z3's model
            output (read by :func:`futocp.answers.decode_answer`).
        formula_source: The name of the formula in error messages (its file).
        model_source: The name of the model in error messages (its file).

    Returns:
        One label per cell, fixed cells included (check it with :func:`futocp.verify`).

    Raises:
        InputError: for a missing or malformed map or model, a model for another
            board, or a model that gives a cell no label or two.
    """
    board = board_or_model.board if isinstance(board_or_model, Model) else board_or_model
    if solver_answer(model_text) is not None:
        head = re.search(r"futocp (?:mip|smt \w+) cells (\d+)", formula_text[:300])
        if head:
            _check_cells(int(head.group(1)), board, formula_source)
        return decode_answer(board, model_text, source=model_source)
    fmt = formula_format(formula_text)
    if fmt in ("mps", "lp", "smt2"):
        raise InputError(f"not an answer to a {fmt} formula: expected a HiGHS or SCIP solution "
                         "file, or z3's model output", model_source)
    if fmt == "mzn":
        chosen = _mzn_choice(formula_text, model_text, board, formula_source, model_source)
    elif fmt == "cpsat":
        chosen = _cpsat_choice(formula_text, model_text, board, formula_source, model_source)
    else:
        n_cells, var_map, fixed = read_var_map(formula_text, formula_source)
        _check_cells(n_cells, board, formula_source)
        true = _true_vars(model_text, model_source)
        chosen = {c: [label] for c, label in fixed.items()}
        for var, (c, label) in var_map.items():
            if var in true:
                chosen.setdefault(c, []).append(label)
    out = one_label_per_cell(board, chosen, "the model", "is it a model of this formula?",
                             model_source)
    values = set(board.values)
    for c, label in enumerate(out):
        if label not in values:
            raise InputError(f"label {label!r} of cell {board.cell_name(c)} is not a label "
                             f"of this board", formula_source)
    return tuple(out)
