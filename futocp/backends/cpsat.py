"""OR-Tools CP-SAT backend: the Model as a CP-SAT model, integer or Boolean.

Option ``formulation`` picks an integer variable per cell or a Boolean per
(cell, value); relations get a specialised encoding (:data:`INTEGER_ENCODINGS`,
:data:`BOOLEAN_ENCODINGS`) or the registry's generic decomposition
(:func:`nary_generic`). On a small model (at most ``small_literals`` cells x
values) presolve, probing, symmetry detection and linearisation are switched off
(:func:`tuned_parameters`; options ``presolve``, ``probing``, ``symmetry``,
``linearization``). The solve runs in this process, or in a child killed at
the deadline when its load could outlast the time limit
(:class:`~futocp.backends.stream.StreamBackend`). The formulations, the
encodings, the measurements behind the choices and the limits are described in
``docs/backends.md``, section "cpsat".

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> model = build_model(latin_square(3))
    >>> [CpsatBackend().solve(model, limit=None, formulation=f).n_solutions
    ...  for f in ("integer", "boolean")]
    [12, 12]
"""

from __future__ import annotations

import functools
import sys
import time
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..diagram import Diagram
from ..model import Model
from ..propagate import bits
from ..relations import Relation, get_kind
from .base import Deadline, Option, Package
from .stream import AT_LIMIT, BUILDING, COMPLETE, GAVE_UP, SOLVING, TIMED_OUT, Emit, StreamBackend

__all__ = ["CpsatBackend", "CpsatFormulation", "INTEGER_ENCODINGS", "BOOLEAN_ENCODINGS",
           "CAGE_ENCODINGS", "AUTO_CAGE", "NARY_ENCODINGS", "AUTO_NARY", "label_offset",
           "nary_generic", "diagram_bools", "LOAD_S_PER_LITERAL", "BYTES_PER_LITERAL",
           "TUNABLE", "SMALL_LITERALS", "tuned_parameters", "import_cp_model"]

LOAD_S_PER_LITERAL = 3e-5
"""Seconds per cell value (``n_cells x n_values``) CP-SAT may spend loading a model
before it looks at its time limit: measured about 1e-5 s on empty Latin squares
of order 20 to 150 (0.6 s at order 40, 36 s at 150), three times that for a
loaded machine. Under a time limit shorter than this estimate the solve runs in
a child process killed at the deadline."""

BYTES_PER_LITERAL = 1200
"""Bytes per cell value CP-SAT holds while it loads a model (measured: 1.1 KB on
empty Latin squares of order 60 to 150, 3.7 GB at order 150)."""

TUNABLE: dict[str, tuple[str, Any]] = {
    "presolve": ("cp_model_presolve", False),
    "probing": ("cp_model_probing_level", 0),
    "symmetry": ("symmetry_level", 0),
    "linearization": ("linearization_level", 0),
}
"""Option -> (the CP-SAT parameter it sets, its value when the option is off)."""

SMALL_LITERALS = 10_000
"""The largest model (cells x values) on which those are off by default (``auto``):
measured in ``benchmarks/startup.py`` (docs/performance.md, issue 25)."""

CAGE_ENCODINGS = ("auto", "sum", "combinations", "both")
"""Values of the ``cage`` option (see the module docstring)."""

AUTO_CAGE = {"integer": "sum", "boolean": "combinations"}
"""What ``cage=auto`` means in each formulation (by measurement)."""

NARY_ENCODINGS = ("auto", "specialised", "generic")
"""Values of the ``nary`` option (see the module docstring)."""

AUTO_NARY = {"arith": "specialised", "visible": "specialised"}
"""What ``nary=auto`` means for each kind with a specialised encoding (by measurement,
``docs/performance.md``); a kind not listed takes its specialised encoding."""


PANDAS_DEFERRED_ON = ("9.15.",)
"""The OR-Tools versions (prefixes) on which :func:`import_cp_model` defers pandas: measured
to read pandas only in annotations while ``cp_model`` is imported (``constraints.txt``
pins 9.15.6755); on any other version ``cp_model`` is imported as it is."""


class _DeferredPandas(types.ModuleType):
    """Stands for pandas while ``cp_model`` is imported: a placeholder class for each
    name looked up then (its annotations), the real pandas for every later look-up
    (``cp_model``'s Series helpers import it when first called)."""

    def __init__(self) -> None:
        super().__init__("pandas")
        self.importing = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self.importing:
            return type(name, (), {"__module__": "pandas"})
        import pandas

        return getattr(pandas, name)


def import_cp_model() -> Any:
    """OR-Tools' ``cp_model`` module, imported without pandas where that is measured to
    be safe (:data:`PANDAS_DEFERRED_ON`; pandas is half a second of the import, and no
    part of futocp's models): pandas is imported the first time ``cp_model`` needs it.
    Anything unexpected during the deferred import falls back to the plain import."""
    done = sys.modules.get("ortools.sat.python.cp_model")
    if done is not None:
        return done
    import ortools

    if "pandas" in sys.modules or not str(getattr(ortools, "__version__", "")).startswith(
            PANDAS_DEFERRED_ON):
        from ortools.sat.python import cp_model

        return cp_model
    stand_in = _DeferredPandas()
    sys.modules["pandas"] = stand_in
    try:
        from ortools.sat.python import cp_model
    except Exception:  # noqa: BLE001 - any surprise: the plain import below
        sys.modules.pop("ortools.sat.python.cp_model", None)
        cp_model = None  # type: ignore[assignment]
    finally:
        if sys.modules.get("pandas") is stand_in:
            del sys.modules["pandas"]
        stand_in.importing = False
    if cp_model is None:
        from ortools.sat.python import cp_model
    return cp_model


@dataclass
class CpsatFormulation:
    """The compiled model: the CpModel and, per cell, how to read its value."""

    model: Any  # cp_model.CpModel
    cell_vars: list[Any]  # per cell: an IntVar, or a list of (value, BoolVar)
    formulation: str

    def proto_text(self) -> str:
        """The CpModelProto as text (for export and inspection)."""
        return str(self.model.proto)


def label_offset(model: Model) -> int | None:
    """``k`` when every label is its value index plus ``k`` (integer labels
    ``k, k+1, ...``), else None.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> label_offset(build_model(latin_square(3)))
        1
    """
    vals = [v for v in model.values if isinstance(v, int) and not isinstance(v, bool)]
    if not vals or len(vals) != len(model.values):
        return None
    k = vals[0]
    return k if all(v == i + k for i, v in enumerate(vals)) else None


# ------------------------------------------------------------ integer formulation
# An encoder posts a relation on the integer variables and returns True, or
# returns False to leave it to the generic table; it gets the parsed backend
# options (the cage encoders read ``cage``).
IntEncoder = Callable[[Any, Model, list[Any], Relation, Mapping[str, Any]], bool]


def _int_less(m: Any, model: Model, xs: list[Any], rel: Relation,
              opts: Mapping[str, Any]) -> bool:
    m.add(xs[rel.a] < xs[rel.b])
    return True


def _int_consecutive(m: Any, model: Model, xs: list[Any], rel: Relation,
                     opts: Mapping[str, Any]) -> bool:
    if label_offset(model) is None:
        return False
    m.add_abs_equality(1, xs[rel.a] - xs[rel.b])
    return True


def _int_nonconsecutive(m: Any, model: Model, xs: list[Any], rel: Relation,
                        opts: Mapping[str, Any]) -> bool:
    cp_model = import_cp_model()

    if label_offset(model) is None:
        return False
    n = model.n_values
    gaps = [[-n, -2], [0, 0], [2, n]]
    m.add_linear_expression_in_domain(xs[rel.a] - xs[rel.b],
                                      cp_model.Domain.from_intervals(gaps))
    return True


def _specialised(rel: Relation, opts: Mapping[str, Any]) -> bool:
    """Whether option ``nary`` asks for the specialised encoding of ``rel``'s kind."""
    how = opts.get("nary", "auto")
    if how == "auto":
        how = AUTO_NARY.get(rel.kind, "specialised")
    return bool(how == "specialised")


def _int_arith(m: Any, model: Model, xs: list[Any], rel: Relation,
               opts: Mapping[str, Any]) -> bool:
    offset = label_offset(model)
    if offset is None or not _specialised(rel, opts):
        return False
    op, target = rel.param_map["op"], rel.param_map["target"]
    cells = [xs[c] for c in rel.cells]
    if op == "+":
        m.add(sum(cells) == target - offset * len(cells))
    elif op == "*":
        m.add_multiplication_equality(target, [x + offset for x in cells])
    elif op == "-":
        m.add_abs_equality(target, cells[0] - cells[1])
    else:  # "/": one label is the target times the other (labels index + offset)
        a, b = cells
        first = m.new_bool_var(f"div{rel.cells[0]}_{rel.cells[1]}")
        m.add(a + offset == target * (b + offset)).only_enforce_if(first)
        m.add(b + offset == target * (a + offset)).only_enforce_if(~first)
    return True


def _int_visible(m: Any, model: Model, xs: list[Any], rel: Relation,
                 opts: Mapping[str, Any]) -> bool:
    if not _specialised(rel, opts):
        return False
    cells = [xs[c] for c in rel.cells]
    n = model.n_values
    seen = [1]  # the first cell is always seen
    top = cells[0]
    for i, x in enumerate(cells[1:], 1):
        b = m.new_bool_var(f"seen{rel.cells[0]}_{rel.cells[-1]}_{i}")
        m.add(x > top).only_enforce_if(b)
        m.add(x <= top).only_enforce_if(~b)
        seen.append(b)
        if i + 1 < len(cells):
            nxt = m.new_int_var(0, n - 1, f"top{rel.cells[0]}_{rel.cells[-1]}_{i}")
            m.add_max_equality(nxt, [top, x])
            top = nxt
    m.add(sum(seen) == rel.param_map["count"])
    return True


Literals = Sequence[Mapping[int, Any]]
"""Per cell of a relation (in its order), value index -> a CP-SAT literal for "the
cell takes that value", for the values of its list."""


def nary_generic(m: Any, model: Model, exprs: Sequence[Any], rel: Relation,
                 lits: Callable[[], Literals]) -> None:
    """The generic decomposition of an n-ary relation in CP-SAT: for a kind with an
    automaton, its diagram (:func:`diagram_bools` on the literals ``lits()`` gives),
    else ``add_allowed_assignments`` over its table on ``exprs`` (one expression per
    cell, in the relation's order, taking value indices; an empty table is ``false``).

    (``add_automaton`` over the diagram would do too, but CP-SAT enumerates its
    internal variables: one solution came out 1,024 times on a 9x9 Towers.)

    Raises:
        TableTooLarge: a table or diagram past the size guard.
    """
    if get_kind(rel.kind).automaton is not None:
        diagram_bools(m, model.diagram(rel), lits(), f"d{rel.cells[0]}_{rel.cells[-1]}")
        return
    rows = model.allowed_tuples(rel)
    if not rows:
        m.add_bool_or([])
        return
    m.add_allowed_assignments(list(exprs), rows)


def _map_each(get: Callable[[int], Mapping[int, Any]], cells: Sequence[int]) -> Literals:
    """``[get(c) for c in cells]``: the literals of a relation's cells, made when asked."""
    return [get(c) for c in cells]


def diagram_bools(m: Any, d: Diagram, lits: Literals, name: str) -> None:
    """A layered diagram over value indices as Booleans: one per inner node and per
    arc; an arc implies its source, its target and its label's literal, a node one
    of its outgoing and one of its incoming arcs, a value of a cell one of the arcs
    of its label. Every Boolean is determined by the cells' values (the diagram is
    deterministic), so enumeration gives each solution once; propagation keeps the
    labels on a path (generalised arc consistency)."""
    if d.empty:
        m.add_bool_or([])
        return
    k = d.arity
    nodes = [[m.new_bool_var(f"{name}n{i}_{j}") for j in range(d.levels[i])]
             if 0 < i < k else None for i in range(k + 1)]

    def node(i: int, j: int) -> Any:
        level = nodes[i]
        return None if level is None else level[j]  # None: the root or the terminal

    outs: list[dict[int, list[Any]]] = [{} for _ in range(k + 1)]
    ins: list[dict[int, list[Any]]] = [{} for _ in range(k + 1)]
    for i, arcs in enumerate(d.layers):
        by_label: dict[int, list[Any]] = {}
        for a, (s, v, t) in enumerate(arcs):
            x = lits[i].get(v)
            if x is None:
                continue
            arc = m.new_bool_var(f"{name}a{i}_{a}")
            for end in (node(i, s), node(i + 1, t), x):
                if end is not None:
                    m.add_implication(arc, end)
            outs[i].setdefault(s, []).append(arc)
            ins[i + 1].setdefault(t, []).append(arc)
            by_label.setdefault(v, []).append(arc)
        for v, x in lits[i].items():
            m.add_bool_or(by_label.get(v, [])).only_enforce_if(x)
    for i in range(k + 1):
        for j in range(d.levels[i]):
            here = node(i, j)
            for side in ((outs[i] if i < k else None), (ins[i] if i > 0 else None)):
                if side is None:
                    continue
                arcs_j = side.get(j, [])
                if here is None:
                    m.add_bool_or(arcs_j)
                else:
                    m.add_bool_or(arcs_j).only_enforce_if(here)


def _int_cage(m: Any, model: Model, xs: list[Any], rel: Relation,
              opts: Mapping[str, Any]) -> bool:
    how = opts["cage"]
    if how != "sum":
        _int_cage_sets(m, model, xs, rel)
        if how == "combinations":
            return True
    total = rel.param_map["sum"]
    offset = label_offset(model)
    if offset is not None:
        m.add(sum(xs[c] for c in rel.cells) == total - offset * len(rel.cells))
        return True
    cp_model = import_cp_model()

    values = list(model.int_values)
    labels = []
    for c in rel.cells:
        dom = cp_model.Domain.from_values(sorted({values[v] for v in model.domain(c)}))
        label = m.new_int_var_from_domain(dom, f"label{c}")
        m.add_element(xs[c], values, label)
        labels.append(label)
    m.add(sum(labels) == total)
    return True


def _int_cage_sets(m: Any, model: Model, xs: list[Any], rel: Relation) -> None:
    cp_model = import_cp_model()

    sets = model.combinations(rel)
    chosen = [m.new_bool_var(f"cage{rel.cells[0]}_{k}") for k in sets]
    m.add_exactly_one(chosen)
    for k, sel in zip(sets, chosen, strict=True):
        labels = cp_model.Domain.from_values(bits(k))
        for c in rel.cells:
            m.add_linear_expression_in_domain(xs[c], labels).only_enforce_if(sel)


INTEGER_ENCODINGS: dict[str, IntEncoder] = {
    "less": _int_less,
    "consecutive": _int_consecutive,
    "nonconsecutive": _int_nonconsecutive,
    "cage": _int_cage,
    "arith": _int_arith,
    "visible": _int_visible,
}
"""Specialised encodings of the integer formulation, by relation kind."""


# ------------------------------------------------------------ Boolean formulation
BoolEncoder = Callable[[Any, Model, list[dict[int, Any]], Relation, Mapping[str, Any]], bool]


def _index_expr(lits: dict[int, Any]) -> Any:
    return sum(v * b for v, b in lits.items())


def _bool_less(m: Any, model: Model, lit: list[dict[int, Any]], rel: Relation,
               opts: Mapping[str, Any]) -> bool:
    m.add(_index_expr(lit[rel.a]) < _index_expr(lit[rel.b]))
    return True


def _bool_cage(m: Any, model: Model, lit: list[dict[int, Any]], rel: Relation,
               opts: Mapping[str, Any]) -> bool:
    how = opts["cage"]
    if how != "sum":
        sets = model.combinations(rel)
        chosen = [m.new_bool_var(f"cage{rel.cells[0]}_{k}") for k in sets]
        m.add_exactly_one(chosen)
        for k, sel in zip(sets, chosen, strict=True):
            outside = [b for c in rel.cells for v, b in lit[c].items() if not k >> v & 1]
            if outside:
                m.add_bool_and([~b for b in outside]).only_enforce_if(sel)
        if how == "combinations":
            return True
    values = model.int_values
    m.add(sum(values[v] * b for c in rel.cells for v, b in lit[c].items())
          == rel.param_map["sum"])
    return True


BOOLEAN_ENCODINGS: dict[str, BoolEncoder] = {
    "less": _bool_less,
    "cage": _bool_cage,
}
"""Specialised encodings of the Boolean formulation, by relation kind."""


class CpsatBackend(StreamBackend):
    """OR-Tools CP-SAT."""

    name = "cpsat"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "less",
                              "strings", "binary", "nary", "alldifferent"})
    load_s_per_literal = LOAD_S_PER_LITERAL
    package = Package("ortools", ("ortools.sat.python.cp_model",), "cpsat")
    counters = ("conflicts", "branches")
    count_rank = 1
    options = (
        Option("formulation", str, "integer", ("integer", "boolean"), "integer or boolean model"),
        Option("cage", str, "auto", CAGE_ENCODINGS,
               "cage encoding: sum, combinations (a selector per label set), both; auto = "
               "sum (integer), combinations (boolean)"),
        Option("nary", str, "auto", NARY_ENCODINGS,
               "n-ary kinds with a specialised encoding (arith, visible): specialised, or the "
               "generic decomposition (table or automaton); auto = by measurement"),
        Option("workers", int, 1, None, "CP-SAT search workers (1 = reproducible timing)"),
        Option("log", bool, False, None, "print the CP-SAT search log"),
        *(Option(name, str, "auto", ("auto", "on", "off"),
                 f"CP-SAT's {what}: on (CP-SAT's default), off, or auto = off on a model of "
                 "at most small_literals cells x values")
          for name, what in (("presolve", "presolve"), ("probing", "probing"),
                             ("symmetry", "symmetry detection"),
                             ("linearization", "linearisation (level 0 when off)"))),
        Option("small_literals", int, SMALL_LITERALS, None,
               "largest model (cells x values) on which auto switches them off", min=0),
    )

    def compile(self, model: Model, /, *, deadline: Deadline | None = None,
                **options: Any) -> CpsatFormulation:
        """The CP-SAT model of ``model``; ``deadline`` is checked while it is built
        (:class:`~futocp.backends.base.DeadlinePassed` once it has passed)."""
        return self._compile(model, self.parse_options(options), deadline)

    def _compile(self, model: Model, opts: dict[str, Any],
                 deadline: Deadline | None = None) -> CpsatFormulation:
        """The formulation; raises :class:`~futocp.backends.base.DeadlinePassed`
        when ``deadline`` passes while it is built."""
        cp_model = import_cp_model()

        opts = dict(opts)
        tick = (deadline or Deadline(None)).tick
        m = cp_model.CpModel()
        if opts["cage"] == "auto":
            opts["cage"] = AUTO_CAGE[opts["formulation"]]
        if opts["formulation"] == "boolean":
            return self._compile_boolean(m, model, opts, tick)
        Domain = cp_model.Domain
        xs: list[Any] = []
        for c in range(model.n_cells):
            tick(BUILDING)
            vals = model.domain(c)
            if len(vals) == len(model.values):
                xs.append(m.new_int_var(0, len(vals) - 1, f"x{c}"))
            else:
                xs.append(m.new_int_var_from_domain(Domain.from_values(vals), f"x{c}"))
        for con in model.permutations:
            tick(BUILDING, len(con.cells))
            m.add_all_different([xs[c] for c in con.cells])
        for group in model.all_different:
            tick(BUILDING, len(group.cells))
            m.add_all_different([xs[c] for c in group.cells])
        if model.counts:
            lits: dict[tuple[int, int], Any] = {}
            for c in {c for con in model.counts for c in con.cells}:
                tick(BUILDING, len(model.values))
                bools = [m.new_bool_var(f"b{c}_{v}") for v in range(len(model.values))]
                m.add_map_domain(xs[c], bools)
                for v, b in enumerate(bools):
                    lits[c, v] = b
            for count in model.counts:
                for v, k in enumerate(count.counts):
                    tick(BUILDING, len(count.cells))
                    m.add(sum(lits[c, v] for c in count.cells) == k)
        mapped: dict[int, dict[int, Any]] = {}

        def value_lits(c: int) -> dict[int, Any]:
            """The Booleans x[c] == v of cell c (``add_map_domain``), made once."""
            if c not in mapped:
                bools = [m.new_bool_var(f"m{c}_{v}") for v in range(len(model.values))]
                m.add_map_domain(xs[c], bools)
                mapped[c] = {v: bools[v] for v in model.domain(c)}
            return mapped[c]

        for rel in model.relations:
            tick(BUILDING)
            encoder = INTEGER_ENCODINGS.get(rel.kind)
            if encoder is None or not encoder(m, model, xs, rel, opts):
                if get_kind(rel.kind).binary:
                    m.add_allowed_assignments([xs[rel.a], xs[rel.b]], model.allowed_pairs(rel))
                else:
                    nary_generic(m, model, [xs[c] for c in rel.cells], rel,
                                 functools.partial(_map_each, value_lits, rel.cells))
        return CpsatFormulation(m, xs, "integer")

    @classmethod
    def _compile_boolean(cls, m: Any, model: Model, opts: Mapping[str, Any],
                         tick: Callable[..., None]) -> CpsatFormulation:
        cells: list[list[tuple[int, Any]]] = []
        for c in range(model.n_cells):
            tick(BUILDING, model.domains[c].bit_count())
            cells.append([(v, m.new_bool_var(f"b{c}_{v}")) for v in model.domain(c)])
            m.add_exactly_one(b for _, b in cells[c])
        lit = [dict(pairs) for pairs in cells]
        for group_cells, counts in model.groups:
            for v in range(len(model.values)):
                tick(BUILDING, len(group_cells))
                bs = [lit[c][v] for c in group_cells if v in lit[c]]
                need = 1 if counts is None else counts[v]
                if need == 1:
                    m.add_exactly_one(bs)
                else:
                    m.add(sum(bs) == need)
        for group in model.all_different:
            for v in range(len(model.values)):
                tick(BUILDING, len(group.cells))
                bs = [lit[c][v] for c in group.cells if v in lit[c]]
                if len(bs) > 1:
                    m.add_at_most_one(bs)
        for rel in model.relations:
            tick(BUILDING, 4)
            encoder = BOOLEAN_ENCODINGS.get(rel.kind)
            if encoder is None or not encoder(m, model, lit, rel, opts):
                if get_kind(rel.kind).binary:
                    cls._bool_generic(m, model, lit, rel)
                else:
                    nary_generic(m, model, [_index_expr(lit[c]) for c in rel.cells], rel,
                                 functools.partial(_map_each, lit.__getitem__, rel.cells))
        return CpsatFormulation(m, cells, "boolean")

    @staticmethod
    def _bool_generic(m: Any, model: Model, lit: list[dict[int, Any]], rel: Relation) -> None:
        """A binary relation on the Booleans: support clauses
        ``b[a,v] -> OR b[b,w] (w supports v)`` both ways, or conflict clauses
        ``not (b[a,v] and b[b,w])`` for the forbidden pairs when there are fewer
        of those (both exact with exactly-one per cell)."""
        fwd, bwd = model.support(rel)
        la, lb = lit[rel.a], lit[rel.b]
        da, db = set(la), set(lb)
        mask_b = sum(1 << w for w in db)
        mask_a = sum(1 << v for v in da)
        allowed = sum((fwd[v] & mask_b).bit_count() for v in da)
        forbidden = len(da) * len(db) - allowed
        if forbidden <= allowed:
            for v in da:
                for w in bits(mask_b & ~fwd[v]):
                    m.add_bool_or([~la[v], ~lb[w]])
            return
        for v in da:
            m.add_bool_or([lb[w] for w in bits(fwd[v] & mask_b)]).only_enforce_if(la[v])
        for w in db:
            m.add_bool_or([la[v] for v in bits(bwd[w] & mask_a)]).only_enforce_if(lb[w])

    @classmethod
    def available(cls) -> bool | str:
        """True, or why not: ``cp_model`` imported as :func:`import_cp_model` does."""
        try:
            import_cp_model()
        except ImportError:
            return "the ortools package is not installed"
        return True

    def _stream(self, emit: Emit, model: Model, limit: int | None, deadline: Deadline,
                seed: int | None, options: dict[str, Any]) -> None:
        _stream_cpsat(self, emit, model, limit, deadline, seed, options)

    def estimate_mb(self, model: Model, options: dict[str, Any]) -> float | None:
        """What CP-SAT holds while it loads the model (:data:`BYTES_PER_LITERAL`)."""
        return model.n_cells * model.n_values * BYTES_PER_LITERAL / 2 ** 20

def tuned_parameters(model: Model, options: Mapping[str, Any],
                     seed: int | None = None) -> dict[str, Any]:
    """The CP-SAT parameters options ``presolve``, ``probing``, ``symmetry`` and
    ``linearization`` set for ``model`` (:data:`TUNABLE`): each one that is ``off``,
    or ``auto`` on a model of at most ``small_literals`` cells x values -- except
    presolve under a ``seed``: CP-SAT permutes the variables by the seed in its
    presolve, so without it every seed would search alike.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> opts = CpsatBackend.parse_options({})
        >>> sorted(tuned_parameters(build_model(latin_square(9)), opts))
        ['cp_model_presolve', 'cp_model_probing_level', 'linearization_level', 'symmetry_level']
        >>> tuned_parameters(build_model(latin_square(40)), opts)
        {}
    """
    small = model.n_cells * model.n_values <= options.get("small_literals", SMALL_LITERALS)
    out: dict[str, Any] = {}
    for name, (param, off) in TUNABLE.items():
        how = options.get(name, "auto")
        if how == "auto" and name == "presolve" and seed is not None:
            continue
        if how == "off" or (how == "auto" and small):
            out[param] = off
    return out


def _stream_cpsat(backend: CpsatBackend, emit: Emit, model: Model, limit: int | None,
                  deadline: Deadline, seed: int | None, options: dict[str, Any]) -> None:
    """Build and solve, reporting through ``emit`` (:mod:`futocp.backends.stream`)."""
    cp_model = import_cp_model()
    t0 = time.perf_counter()
    form = backend.compile(model, deadline=deadline, **options)
    emit(("stats", {"encode_s": time.perf_counter() - t0}))
    remaining = deadline.remaining()
    if remaining is not None and remaining <= 0:
        return
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = options["workers"]
    params.log_search_progress = options["log"]
    for key, value in tuned_parameters(model, options, seed).items():
        setattr(params, key, value)
    if seed is not None:
        params.random_seed = seed
        # without these, one worker's search does not depend on the seed
        params.randomize_search = True
        params.permute_variable_randomly = True
    if remaining is not None:
        params.max_time_in_seconds = remaining

    if form.formulation == "integer":
        def read(values_of: Any) -> tuple[int, ...]:
            return tuple(values_of(x) for x in form.cell_vars)
    else:
        def read(values_of: Any) -> tuple[int, ...]:
            return tuple(next(v for v, b in pairs if values_of(b)) for pairs in form.cell_vars)

    emit(("phase", SOLVING))
    t1 = time.perf_counter()
    if limit == 1:
        code = solver.solve(form.model)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            emit(("solution", read(solver.value)))
        stopped = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    else:
        params.enumerate_all_solutions = True
        params.num_workers = 1  # enumeration is single-threaded in CP-SAT

        callback: Any = cp_model.CpSolverSolutionCallback

        class Collector(callback):
            stopped = False
            found = 0

            def on_solution_callback(self) -> None:
                emit(("solution", read(self.value)))
                self.found += 1
                if limit is not None and self.found >= limit:
                    self.stopped = True
                    self.stop_search()

        collector = Collector()
        code = solver.solve(form.model, collector)
        stopped = collector.stopped
    name = solver.status_name(code)
    emit(("stats", {
        "solve_s": time.perf_counter() - t1,
        "cpsat_status": name,
        "conflicts": solver.num_conflicts,
        "branches": solver.num_branches,
        "cpsat_wall_s": solver.wall_time,
    }))
    if stopped:
        emit(("done", AT_LIMIT, None))
    elif name in ("INFEASIBLE", "OPTIMAL"):  # proved: no (other) solution
        emit(("done", COMPLETE, None))
    elif name in ("UNKNOWN", "FEASIBLE") and deadline.seconds is not None:
        emit(("done", TIMED_OUT, None))
    else:
        emit(("done", GAVE_UP, f"CP-SAT answered {name}"))
