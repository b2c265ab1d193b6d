"""MiniZinc export of a Model, and the decoder of a MiniZinc run's output.

:func:`to_mzn` writes one self-contained ``.mzn`` file (one variable per cell
over value indices ``1..m``, ``all_different`` / ``global_cardinality`` per
asterism, tables or ``regular`` for relations, options ``relations``, ``nary``,
``consistency``, ``globals``); :func:`parse_mzn_output` reads a ``minizinc``
run's output back into labels per cell.

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "mzn".

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> m = build_model(latin_square(2, [[1, 0], [0, 0]]))
    >>> text = to_mzn(m)
    >>> "all_different(" in text, "array[CELLS] of var VALUES: x;" in text
    (True, True)
    >>> out = parse_mzn_output(m, "futocp-solution: [1, 2, 2, 1]\\n----------\\n==========\\n")
    >>> out.solutions, out.status, out.complete
    ([(1, 2, 2, 1)], 'sat', True)
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import Label
from .diagram import Diagram
from .errors import FutocpError, InputError, SolverError, UnsupportedError, UsageError
from .model import Model
from .relations import Relation, get_kind

__all__ = ["to_mzn", "parse_mzn_output", "parse_output_lines", "read_mzn_header", "HEADER",
           "write_redefinitions", "MznOutput", "SOLUTION_PREFIX",
           "CONSISTENCIES", "RELATION_ENCODINGS", "NARY_ENCODINGS", "SPECIALISED", "ARITHMETIC",
           "NARY",
           "GECODE_6_2_REDEFINITIONS"]

SOLUTION_PREFIX = "futocp-solution:"
HEADER = "% futocp MiniZinc export:"  # the first line of every export (read_mzn_header)
CONSISTENCIES = ("domain", "solver")
RELATION_ENCODINGS = ("table", "arithmetic")
NARY_ENCODINGS = ("generic", "expression")

SPECIALISED: dict[str, str] = {"less": "x[{a}] < x[{b}]"}
"""The binary kinds always posted as a constraint of their own, by kind: ``{a}`` and
``{b}`` stand for the two cells, ``x[c]`` is a value index (index order is label
order). Every other binary kind is posted as a table (or, with
``relations="arithmetic"``, as in :data:`ARITHMETIC`)."""

ARITHMETIC: dict[str, str] = {
    "consecutive": "abs(lab({a}) - lab({b})) = 1",
    "nonconsecutive": "abs(lab({a}) - lab({b})) != 1",
}
"""The binary kinds ``relations="arithmetic"`` posts as arithmetic over labels
(``lab(c)``: the label of cell c), by kind."""

GECODE_6_2_REDEFINITIONS: dict[str, str] = {
    "fzn_all_different_int.mzn": (
        "% futocp: all_different reaches Gecode 6.2's native propagator (its library\n"
        "% predates MiniZinc 2.6's fzn_ redefinitions and would get pairwise !=)\n"
        "predicate all_different_int(array[int] of var int: x);\n"
        "predicate fzn_all_different_int(array[int] of var int: x) = all_different_int(x);\n"),
    "fzn_table_int.mzn": (
        "% futocp: table reaches Gecode 6.2's native propagator (not the decomposition)\n"
        "predicate gecode_table_int(array[int] of var int: x, array[int] of int: t);\n"
        "predicate fzn_table_int(array[int] of var int: x, array[int, int] of int: t) =\n"
        "    gecode_table_int(x, array1d(t));\n"),
}
"""Library files that map MiniZinc 2.6's ``all_different`` and ``table`` to Gecode
6.2's native propagators, for a Gecode library without ``fzn_*`` files of its own
(Debian's ``minizinc`` package); the ``minizinc`` backend adds them to the include
path there."""

_SOLUTION = re.compile(re.escape(SOLUTION_PREFIX) + r"\s*\[([^\]]*)\]")
_HEADER = re.compile(re.escape(HEADER) + r".*?\b(\d+) cells, (\d+) values\b")
_LABEL_MAP = "% value index -> label:"
_LABEL_PAIR = re.compile(r"(\d+)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?\d+)")
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
    out = [_LABEL_MAP]
    pairs = [f"{i + 1}={label!r}" for i, label in enumerate(model.values)]
    line = "%  "
    for p in pairs:
        if len(line) + len(p) > 98:
            out.append(line.rstrip())
            line = "%  "
        line += " " + p
    out.append(line.rstrip())
    return out


def _arith_expression(rel: Relation, cells: Sequence[int]) -> str:
    p = rel.param_map
    labs = [f"lab({c})" for c in cells]
    op, target = p["op"], p["target"]
    if op == "+":
        return f"{' + '.join(labs)} = {target}"
    if op == "*":
        return f"{' * '.join(labs)} = {target}"
    a, b = labs
    if op == "-":
        return f"abs({a} - {b}) = {target}"
    disj = " \\/ "
    return f"({a} = {target} * {b}{disj}{b} = {target} * {a})"


def _visible_expression(rel: Relation, cells: Sequence[int]) -> str:
    xs = [f"x[{c}]" for c in cells]
    conj = " /\\ "
    terms = ["1"] + ["bool2int(" + conj.join(f"{x} > {y}" for y in xs[:i]) + ")"
                     for i, x in enumerate(xs) if i]
    return f"{' + '.join(terms)} = {rel.param_map['count']}"


NARY: dict[str, Any] = {"arith": _arith_expression, "visible": _visible_expression}
"""The n-ary kinds ``nary="expression"`` posts as an expression of their own
(``expression(rel, cells)``, cells 1-based; ``lab(c)`` is the label of cell c,
``x[c]`` its value index, in label order): ``arith`` a sum, a product, ``abs`` of
a difference or a quotient either way round; ``visible`` the number of cells
above every cell before them."""


def _dfa_lines(name: str, d: Diagram, n_values: int) -> list[str]:
    """A layered diagram over value indices as MiniZinc's ``regular`` automaton: a
    state per node, numbered level by level from 1 (the root); the terminal is the
    last state; a missing transition is 0 (fail)."""
    first = [1]
    for level in d.levels:
        first.append(first[-1] + level)
    states = first[-1] - 1
    table = [[0] * n_values for _ in range(states)]
    for i, arcs in enumerate(d.layers):
        for s, v, t in arcs:
            table[first[i] + s - 1][v] = first[i + 1] + t
    flat = [str(x) for row in table for x in row]
    return [f"int: {name}_q = {states};",
            f"array[1..{states}, VALUES] of int: {name} = "
            f"array2d(1..{states}, VALUES, {_array(flat)});"]


def _lab_definition(model: Model) -> str | None:
    """The MiniZinc function ``lab(c)`` (the label of cell c), or None for non-integer labels."""
    vals = [v for v in model.values if isinstance(v, int) and not isinstance(v, bool)]
    if len(vals) != model.n_values:
        return None
    if vals == list(range(vals[0], vals[0] + len(vals))):
        shift = vals[0] - 1
        body = "x[c]" if shift == 0 else f"x[c] + {shift}" if shift > 0 else f"x[c] - {-shift}"
        return f"function var int: lab(CELLS: c) = {body};  % labels are consecutive integers"
    return "function var int: lab(CELLS: c) = label[x[c]];"


def _pairs_table(pairs: Sequence[tuple[int, int]]) -> str:
    flat = [str(v + 1) for pair in pairs for v in pair]
    return f"array2d(1..{len(pairs)}, 1..2, {_array(flat)})"


def to_mzn(model: Model, consistency: str = "domain", relations: str = "table",
           nary: str = "generic", **options: Any) -> str:
    """A MiniZinc model with its data, in one ``.mzn`` text.

    Args:
        model: The Model (its lists become the variables' domains).
        consistency: ``"domain"`` annotates the global constraints ``:: domain``;
            ``"solver"`` leaves the propagation strength to the solver.
        relations: ``"table"`` posts ``less`` as ``<`` and every other binary
            kind as a table of allowed pairs; ``"arithmetic"`` posts the kinds of
            :data:`ARITHMETIC` as arithmetic over labels, the others as tables.
        nary: ``"generic"`` (default) posts every n-ary kind but ``cage`` by its
            generic decomposition (``regular`` or ``table``); ``"expression"``
            posts the kinds of :data:`NARY` as their expressions.
        **options: No others are defined; any given is an error.

    Returns:
        The file text (ends with a newline).

    Raises:
        UsageError: for an unknown option or value.
        TableTooLarge: a table past the size guard.
    """
    if options:
        raise UsageError(f"the mzn export has no option {sorted(options)[0]!r} "
                         f"(options: consistency, relations, nary)")
    if nary not in NARY_ENCODINGS:
        raise UsageError(f"option nary={nary!r}: choose one of {', '.join(NARY_ENCODINGS)}")
    if consistency not in CONSISTENCIES:
        raise UsageError(f"option consistency={consistency!r}: choose one of "
                         f"{', '.join(CONSISTENCIES)}")
    if relations not in RELATION_ENCODINGS:
        raise UsageError(f"option relations={relations!r}: choose one of "
                         f"{', '.join(RELATION_ENCODINGS)}")
    ann = " :: domain" if consistency == "domain" else ""
    lab = _lab_definition(model)
    board = model.board
    n, m = model.n_cells, model.n_values

    # binary relations: specialised (by kind) or generic tables (by kind and parameters)
    forms = {**SPECIALISED, **(ARITHMETIC if relations == "arithmetic" else {})}
    special: dict[str, list[Relation]] = {"less": []}
    tables: dict[tuple[str, tuple[tuple[str, int], ...]], list[Relation]] = {}
    for rel in model.binary:
        form = forms.get(rel.kind)
        if form is not None and (lab is not None or "lab(" not in form):
            special.setdefault(rel.kind, []).append(rel)
        else:
            tables.setdefault((rel.kind, rel.params), []).append(rel)
    cages = model.cages
    if cages and lab is None:  # unreachable: cages need integer labels
        raise UnsupportedError("cages need integer labels")
    # other n-ary relations: an expression of their own (by kind), or a table
    expressions: list[tuple[Relation, str]] = []
    nary_tables: list[tuple[Relation, tuple[tuple[int, ...], ...]]] = []
    automata: list[tuple[Relation, Diagram]] = []
    for rel in model.nary:
        if rel.kind == "cage":
            continue
        form = NARY.get(rel.kind) if nary == "expression" else None
        if form is not None and (lab is not None or not get_kind(rel.kind).integer):
            expressions.append((rel, form(rel, [c + 1 for c in rel.cells])))
        elif get_kind(rel.kind).automaton is not None:
            automata.append((rel, model.diagram(rel)))
        else:
            nary_tables.append((rel, model.allowed_tuples(rel)))

    lines = [
        f"{HEADER} kind={board.kind}, {n} cells, {m} values, "
        f"filtering={model.filtering}",
        "% x[c] is the value index (1-based) of cell c - 1 of the board "
        "(cell = row * cols + col on a grid).",
        *_label_comment(model),
    ]
    if model.conflict is not None:
        lines.append(f"% known unsatisfiable: {model.conflict}")
    lines += [
        'include "all_different.mzn";',
        'include "global_cardinality.mzn";',
        'include "table.mzn";',
        *(['include "regular.mzn";'] if automata else []),
        "",
        "% ---- data",
        f"int: n_cells = {n};",
        f"int: n_values = {m};",
        "set of int: CELLS = 1..n_cells;",
        "set of int: VALUES = 1..n_values;",
    ]
    if lab is not None:
        lines.append(f"array[VALUES] of int: label = {_array([str(v) for v in model.values])};")
    lists = [_set(v + 1 for v in model.domain(c)) for c in range(n)]
    lines.append(f"array[CELLS] of set of int: lists = {_array(lists)};")
    lines.append("% permutation groups: each takes every value once")
    alldiff = [_set(c + 1 for c in con.cells) for con in model.permutations]
    lines.append(f"array[1..{len(alldiff)}] of set of CELLS: alldiff = {_array(alldiff)};")
    lines.append("% multiset groups: value v occurs multiplicity[g, v] times in group g")
    counts = model.counts
    lines.append(f"array[1..{len(counts)}] of set of CELLS: multiset = "
                 f"{_array([_set(c + 1 for c in con.cells) for con in counts])};")
    flat = [str(k) for con in counts for k in con.counts]
    lines.append(f"array[1..{len(counts)}, VALUES] of int: multiplicity = "
                 f"array2d(1..{len(counts)}, VALUES, {_array(flat)});")
    lines.append("% partial all-different groups (cages): pairwise different values")
    distinct = [_set(c + 1 for c in con.cells) for con in model.all_different]
    lines.append(f"array[1..{len(distinct)}] of set of CELLS: distinct = {_array(distinct)};")
    # less always has its arrays (a Futoshiki's reader expects them); others when present
    for kind, rels in special.items():
        if kind != "less" and not rels:
            continue
        lines.append(f"% {kind}: {get_kind(kind).description}")
        lines.append(f"array[1..{len(rels)}] of CELLS: {kind}_a = "
                     f"{_array([str(r.a + 1) for r in rels])};")
        lines.append(f"array[1..{len(rels)}] of CELLS: {kind}_b = "
                     f"{_array([str(r.b + 1) for r in rels])};")
    table_names: list[str] = []
    empty_tables: list[str] = []  # kinds that allow no pair of these labels: unsatisfiable
    for t, ((kind, params), rels) in enumerate(tables.items(), start=1):
        name = f"table{t}"
        extra = "".join(f", {k}={v}" for k, v in params)
        pairs = model.allowed_pairs(rels[0])
        if not pairs:  # a table without rows crashes Gecode 6.2: post `false` instead
            empty_tables.append(f"{name}: {kind}{extra} allows no pair of these labels")
            lines.append(f"% {empty_tables[-1]} (between {len(rels)} pairs of cells)")
            continue
        table_names.append(name)
        lines.append(f"% {name}: {kind}{extra} -- the allowed value pairs of (a, b)")
        lines.append(f"array[1..{len(rels)}] of CELLS: {name}_a = "
                     f"{_array([str(r.a + 1) for r in rels])};")
        lines.append(f"array[1..{len(rels)}] of CELLS: {name}_b = "
                     f"{_array([str(r.b + 1) for r in rels])};")
        lines.append(f"array[int, 1..2] of int: {name} = {_pairs_table(pairs)};")
    if cages:
        lines.append("% cages: the labels of cage_cells[k] sum to cage_sum[k]")
        lines.append(f"array[1..{len(cages)}] of set of CELLS: cage_cells = "
                     f"{_array([_set(c + 1 for c in r.cells) for r in cages])};")
        lines.append(f"array[1..{len(cages)}] of int: cage_sum = "
                     f"{_array([str(r.param_map['sum']) for r in cages])};")
    for t, (rel, rows) in enumerate(nary_tables, start=1):
        if rows:
            lines.append(f"% ntable{t}: {rel.kind} {dict(rel.params)} -- the allowed value "
                         "tuples of its cells")
            flat = [str(v + 1) for row in rows for v in row]
            lines.append(f"array[int, 1..{len(rel.cells)}] of int: ntable{t} = "
                         f"array2d(1..{len(rows)}, 1..{len(rel.cells)}, {_array(flat)});")
    for t, (rel, d) in enumerate(automata, start=1):
        if not d.empty:
            lines.append(f"% dfa{t}: {rel.kind} {dict(rel.params)} -- its diagram as an "
                         "automaton (a state per node)")
            lines += _dfa_lines(f"dfa{t}", d, m)
    lines += [
        "",
        "% ---- model",
        "array[CELLS] of var VALUES: x;",
    ]
    if lab is not None and (cages or expressions
                            or any("lab(" in forms[k] for k in special)):
        lines.append(lab)
    lines += [
        "constraint forall(c in CELLS)(x[c] in lists[c]);",
        "constraint forall(g in index_set(alldiff))(",
        f"  all_different([x[c] | c in alldiff[g]]){ann});",
        "constraint forall(g in index_set(multiset))(",
        "  global_cardinality([x[c] | c in multiset[g]], [v | v in VALUES],",
        f"                     [multiplicity[g, v] | v in VALUES]){ann});",
        "constraint forall(g in index_set(distinct))(",
        f"  all_different([x[c] | c in distinct[g]]){ann});",
    ]
    for kind, rels in special.items():
        if kind != "less" and not rels:
            continue
        body = forms[kind].format(a=f"{kind}_a[i]", b=f"{kind}_b[i]")
        lines.append(f"constraint forall(i in index_set({kind}_a))({body});")
    for name in table_names:
        lines.append(f"constraint forall(i in index_set({name}_a))(")
        lines.append(f"  table([x[{name}_a[i]], x[{name}_b[i]]], {name}));")
    for why in empty_tables:
        lines.append(f"constraint false;  % {why}")
    if cages:
        lines.append("constraint forall(k in index_set(cage_sum))("
                     "sum(c in cage_cells[k])(lab(c)) = cage_sum[k]);")
    for rel, text in expressions:
        lines.append(f"constraint {text};  % {rel.kind}")
    for t, (rel, d) in enumerate(automata, start=1):
        cells = ", ".join(f"x[{c + 1}]" for c in rel.cells)
        if d.empty:
            lines.append(f"constraint false;  % {rel.kind} {dict(rel.params)} allows nothing")
        else:
            lines.append(f"constraint regular([{cells}], dfa{t}_q, n_values, dfa{t}, 1, "
                         f"{{dfa{t}_q}});")
    for t, (rel, rows) in enumerate(nary_tables, start=1):
        if rows:
            lines.append(f"constraint table([{', '.join(f'x[{c + 1}]' for c in rel.cells)}], "
                         f"ntable{t});")
        else:
            lines.append(f"constraint false;  % {rel.kind} {dict(rel.params)} allows no tuple "
                         "of its cells' lists")
    lines += [
        "solve satisfy;",
        f'output ["{SOLUTION_PREFIX} ", show(x), "\\n"];',
    ]
    return "\n".join(lines) + "\n"


def write_redefinitions(directory: str | os.PathLike[str],
                        files: Mapping[str, str] | None = None) -> list[str]:
    """Write redefinition files (default :data:`GECODE_6_2_REDEFINITIONS`) into ``directory``.

    Run an export with them as ``minizinc --solver gecode -I DIRECTORY model.mzn``.

    Returns:
        The names of the files written.
    """
    files = GECODE_6_2_REDEFINITIONS if files is None else files
    os.makedirs(directory, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(directory, name), "w", encoding="utf-8") as fh:
            fh.write(text)
    return sorted(files)


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


def read_mzn_header(text: str, source: str = "<mzn>") -> tuple[int, tuple[Label, ...]]:
    """The number of cells and the labels by value index that the header comments
    of a :func:`to_mzn` file state: what decoding its output needs, without the board.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> read_mzn_header(to_mzn(build_model(latin_square(2))))
        (4, (1, 2))

    Raises:
        InputError: for a file without futocp's header, or a label map that does not
            give every value index one label.
    """
    lines = text.splitlines()
    head = _HEADER.match(lines[0]) if lines else None
    if head is None:
        raise InputError("not a MiniZinc model exported by futocp (its first line starts "
                         f"{HEADER!r}); export the formula with futocp", source, 1)
    n_cells, n_values = int(head.group(1)), int(head.group(2))
    labels: dict[int, Label] = {}
    start = next((k for k, line in enumerate(lines) if line.startswith(_LABEL_MAP)), len(lines))
    for number, line in enumerate(lines[start + 1:], start + 2):
        if not line.startswith("%   "):  # the map's lines: "%   1=1 2=2 ..."
            break
        for found in _LABEL_PAIR.finditer(line):
            label = ast.literal_eval(found.group(2))
            index = int(found.group(1))
            if index in labels or not 1 <= index <= n_values:
                raise InputError(f"value index {index} is outside 1..{n_values} or given twice "
                                 "in the label map", source, number, found.start() + 1)
            labels[index] = label
    if len(labels) != n_values:
        raise InputError(f"the label map ({_LABEL_MAP!r}) gives {len(labels)} labels for "
                         f"{n_values} values", source)
    return n_cells, tuple(labels[i] for i in range(1, n_values + 1))


def parse_mzn_output(model: Model, text: str, source: str | None = None) -> MznOutput:
    """Decode the standard output of ``minizinc`` on a :func:`to_mzn` file.

    Args:
        model: The Model the file was exported from.
        text: What ``minizinc`` printed.
        source: The file ``text`` was read from, when a user gave it; None when
            it is the output of a run of the solver.

    Raises:
        InputError: for a solution line that does not fit the model, in ``source``.
        SolverError: for the same in a solver's output (``source`` None).
    """
    return parse_output_lines(model.n_cells, model.values, text, source)


def parse_output_lines(n_cells: int, labels: Sequence[Label], text: str,
                       source: str | None = None) -> MznOutput:
    """:func:`parse_mzn_output` from the numbers a file's header gives
    (:func:`read_mzn_header`): ``n_cells`` and the ``labels`` by value index."""
    out = MznOutput()
    n, m = n_cells, len(labels)

    def bad(message: str, number: int) -> FutocpError:
        if source is None:
            return SolverError(f"minizinc answered {message}")
        return InputError(message, source, number)

    for number, line in enumerate(text.splitlines(), 1):
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
                raise bad(f"a solution line that cannot be read: {line[:80]!r}", number) from None
            if len(idx) != n or not all(0 <= v < m for v in idx):
                raise bad(f"a solution line with {len(idx)} values for {n} cells or a value "
                          f"outside 1..{m}: {line[:80]!r}", number)
            out.solutions.append(tuple(labels[i] for i in idx))
    if out.solutions:
        out.status = "sat"
    return out
