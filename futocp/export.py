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
  the backend's encodings of every relation kind;
* ``mzn`` -- a MiniZinc model with its data (:func:`futocp.mzn.to_mzn`);
* ``mps``, ``lp`` -- the ``mip`` backend's binary program in free MPS or CPLEX
  LP format (:class:`futocp.backends.mip.LinearModel`), read by HiGHS, SCIP and
  most MIP solvers;
* ``smt2`` -- the ``smt`` backend's z3 model (option ``model``: ``int`` or
  ``bool``) as SMT-LIB 2 with ``(check-sat)`` and ``(get-model)``.

The variables of ``mps``, ``lp`` and ``smt2`` are named after their cell and
value (``x_C_V``, ``x_C``, ``b_C_V``), so that a HiGHS or SCIP solution file or
z3's model output decodes with the board alone (:mod:`futocp.answers`;
:func:`decode` takes them too).

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

from .answers import answer_format, decode_answer, one_label_per_cell
from .board import Board, Label
from .errors import InputError, UsageError
from .model import Model

__all__ = ["EXPORTERS", "export", "to_dimacs", "to_opb", "to_cpsat", "to_mps", "to_lp", "to_smt2",
           "decode", "read_var_map"]


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
    """The CP-SAT model proto as text.

    Args:
        model: The Model.
        **options: ``cpsat`` backend options (``formulation``).
    """
    from .backends.cpsat import CpsatBackend

    return CpsatBackend().compile(model, **options).proto_text()


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


def _to_mzn(model: Model, **options: Any) -> str:
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
_FIXED = re.compile(r"fixed cell (\d+) \S+ label (?P<label>.+)$")


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
        try:
            label = json.loads(m.group("label"))
        except json.JSONDecodeError:
            label = None
        if isinstance(label, bool) or not isinstance(label, (int, str)):
            col = m.start("label") + 3
            raise InputError(f"bad label {m.group('label')!r} in the variable map", source, no, col)
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
    seen_values = False
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
    if not seen_values:
        raise InputError("no model: expected literals such as 'v 1 -2 3 0' (DIMACS) or a "
                         "'SAT' line and literals (MiniSat's result file)", source)
    return true


def decode(board_or_model: Board | Model, formula_text: str, model_text: str, *,
           formula_source: str = "<dimacs>", model_source: str = "<model>") -> tuple[Label, ...]:
    """Turn an external solver's model back into a solution (labels per cell).

    Args:
        board_or_model: The Board (or Model) the formula was exported from.
        formula_text: The exported DIMACS or OPB text (or just its comment lines);
            for an MPS, LP or SMT-LIB export, that text (its first line is checked
            against the board) or an empty string.
        model_text: The solver's answer: ``v`` lines (``v 1 -2 3 ... 0``, or
            ``v x1 -x2`` from a PB solver), MiniSat's result file (a ``SAT`` line,
            then the literals; ``UNSAT`` or ``INDET`` is an error), or plain
            integers; ``s`` and ``c`` lines are skipped. A HiGHS or SCIP solution
            file or z3's model output is read by :func:`futocp.answers.decode_answer`.
        formula_source: The name of the formula in error messages (its file).
        model_source: The name of the model in error messages (its file).

    Returns:
        One label per cell, fixed cells included (check it with :func:`futocp.verify`).

    Raises:
        InputError: for a missing or malformed map or model, a model for another
            board, or a model that gives a cell no label or two.
    """
    board = board_or_model.board if isinstance(board_or_model, Model) else board_or_model
    if answer_format(model_text) is not None:
        head = re.search(r"futocp (?:mip|smt \w+) cells (\d+)", formula_text[:300])
        if head and int(head.group(1)) != board.n_cells:
            raise InputError(f"the formula is for {head.group(1)} cells, the board has "
                             f"{board.n_cells}", formula_source)
        return decode_answer(board, model_text, source=model_source)
    n_cells, var_map, fixed = read_var_map(formula_text, formula_source)
    if n_cells != board.n_cells:
        raise InputError(f"the formula is for {n_cells} cells, the board has {board.n_cells}",
                         formula_source)
    true = _true_vars(model_text, model_source)
    chosen: dict[int, list[Label]] = {c: [label] for c, label in fixed.items()}
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
