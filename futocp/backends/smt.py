"""SMT backend: z3 (``z3-solver``), with an integer or a Boolean model.

Option ``model``:

* ``int`` (default): one integer ``x_C`` per cell, its code
  (:func:`~futocp.backends.stream.value_codes`: the label on integer boards,
  the value index otherwise) restricted to the cell's list; ``Distinct`` per
  permutation asterism and per partial all-different group (a cage's cells),
  and (option ``occurrences``, default on) per permutation asterism and label
  the redundant disjunction that some cell takes it -- z3 propagates
  ``Distinct`` over integers weakly, and without it does not find an empty 8x8
  Latin square in 5 s (0.1 s with it);
  per asterism with repeated labels and value, the sum of ``If(x_C == code, 1, 0)``;
  the relations by kind (:data:`INT_ENCODINGS`) in arithmetic --
  ``less``: ``x_A < x_B``; ``consecutive`` / ``nonconsecutive``:
  ``|x_A - x_B|`` is / is not 1; ``ratio``: one is twice the other;
  ``cage``: ``x_C1 + ... + x_Ck == S`` -- when the codes are the labels; every
  other binary kind by its allowed pairs (``x_A == a`` implies ``x_B`` in the
  values that support ``a``), every other n-ary kind by its allowed tuples
  (a disjunction of conjunctions).
* ``bool``: one Boolean ``b_C_V`` per cell and value index in its list,
  exactly one per cell, per asterism and value ``PbEq`` of its multiplicity,
  at most one per partial group and value, every binary relation by its
  support clauses (both directions, as the ``sat`` backend), a cage as the
  weighted ``PbEq`` of its labels, other n-ary kinds by their allowed tuples.

Enumeration adds a blocking clause after each solution (the cells that have a
choice cannot all take their values again). ``time_limit`` is z3's ``timeout``
(the time left, at each check); the build checks the deadline. Each solve has a
z3 context of its own, so that a run does not depend on the ones before it.
``seed`` is passed to z3 as ``random_seed``, but the backend does not declare
the capability: the integer model's first solution does not change with it
(z3 picks the values of its arithmetic). Stats: z3's
``conflicts``, ``decisions``, ``propagations`` (over all the checks of a solve;
0 when z3 reports none) and ``checks``.

:meth:`SmtFormulation.to_smt2` writes the model as SMT-LIB 2 (``futocp export
--to smt2``) with ``(check-sat)`` and ``(get-model)``, so that ``z3 FILE``
prints a model that :mod:`futocp.answers` decodes back into the board.

Example (the integer model and the Boolean one count the 3x3 Latin squares):
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> if SmtBackend.available() is True:
    ...     for kind in MODELS:
    ...         r = SmtBackend().solve(build_model(latin_square(3)), limit=None, model=kind)
    ...         assert (r.n_solutions, r.exhausted, r.stats["model"]) == (12, True, kind)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import Model
from ..propagate import bits
from ..relations import Relation, get_kind
from .base import COMPLETE_CAPABILITIES, Deadline, Option, Package
from .stream import (
    AT_LIMIT,
    BUILDING,
    COMPLETE,
    GAVE_UP,
    SOLVING,
    TIMED_OUT,
    Emit,
    StreamBackend,
    value_codes,
)

__all__ = ["SmtBackend", "SmtFormulation", "MODELS", "INT_ENCODINGS", "BOOL_ENCODINGS"]

MODELS = ("int", "bool")
"""The values of option ``model``."""

_COUNTED = ("conflicts", "decisions", "propagations")


@dataclass
class SmtFormulation:
    """The z3 model of a Model and how to read its solutions.

    Attributes:
        model: The Model.
        solver: The ``z3.Solver`` holding the assertions.
        kind: ``int`` or ``bool``.
        cell_vars: Per cell: its ``Int`` (``int``), or ``(value index, Bool)`` pairs (``bool``).
        codes: The integer of each value index in the ``int`` model.
    """

    model: Model
    solver: Any
    kind: str
    cell_vars: list[Any]
    codes: tuple[int, ...]

    def read(self, z3model: Any) -> tuple[int, ...]:
        """The value index of every cell in a z3 model."""
        if self.kind == "int":
            index = {k: v for v, k in enumerate(self.codes)}
            return tuple(index[z3model.eval(x, model_completion=True).as_long()]
                         for x in self.cell_vars)
        import z3

        return tuple(next(v for v, b in pairs
                          if z3.is_true(z3model.eval(b, model_completion=True)))
                     for pairs in self.cell_vars)

    def block(self, values: tuple[int, ...]) -> Any:
        """The clause that forbids these values on the cells that have a choice."""
        import z3

        model = self.model
        free = [c for c in range(model.n_cells) if model.domains[c] & (model.domains[c] - 1)]
        if self.kind == "int":
            return z3.Or([self.cell_vars[c] != self.codes[values[c]] for c in free])
        return z3.Or([z3.Not(dict(self.cell_vars[c])[values[c]]) for c in free])

    def to_smt2(self) -> str:
        """The assertions as SMT-LIB 2, with ``(check-sat)`` and ``(get-model)``."""
        board = self.model.board
        head = [f"; futocp smt {self.kind} cells {board.n_cells} values {self.model.n_values}"]
        if self.kind == "int":
            what = ("the label" if self.codes == tuple(self.model.values)
                    else "the value index (in the board's sorted labels "
                         f"{list(self.model.values)!r})")
            head.append(f"; x_C: {what} of cell C (0-based)")
        else:
            head.append("; b_C_V true: cell C (0-based) takes value index V of the board's "
                        f"sorted labels {list(self.model.values)!r}")
        if self.kind == "int":  # standard SMT-LIB (distinct, ite, linear sums)
            head.append("(set-logic QF_LIA)")
        else:
            head.append("; (pbeq / at-most: z3's pseudo-Boolean extensions of SMT-LIB)")
        body = self.solver.sexpr().rstrip("\n")
        return "\n".join([*head, body, "(check-sat)", "(get-model)"]) + "\n"


# ------------------------------------------------------------ integer model
# An encoder returns the assertion of one relation, or None to leave it to the
# generic encoding of its arity.
IntEncoder = Callable[[Model, list[Any], Relation], Any]


def _labels(model: Model, codes: tuple[int, ...]) -> bool:
    return codes == tuple(model.values)


def _int_less(model: Model, xs: list[Any], rel: Relation) -> Any:
    return xs[rel.a] < xs[rel.b]  # codes are in label order


def _int_consecutive(model: Model, xs: list[Any], rel: Relation) -> Any:
    import z3

    d = xs[rel.a] - xs[rel.b]
    return z3.Or(d == 1, d == -1) if _labels(model, value_codes(model)) else None


def _int_nonconsecutive(model: Model, xs: list[Any], rel: Relation) -> Any:
    import z3

    d = xs[rel.a] - xs[rel.b]
    return z3.And(d != 1, d != -1) if _labels(model, value_codes(model)) else None


def _int_ratio(model: Model, xs: list[Any], rel: Relation) -> Any:
    import z3

    a, b = xs[rel.a], xs[rel.b]
    return z3.Or(a == 2 * b, b == 2 * a) if _labels(model, value_codes(model)) else None


def _int_cage(model: Model, xs: list[Any], rel: Relation) -> Any:
    import z3

    return z3.Sum([xs[c] for c in rel.cells]) == rel.param_map["sum"]


INT_ENCODINGS: dict[str, IntEncoder] = {
    "less": _int_less,
    "consecutive": _int_consecutive,
    "nonconsecutive": _int_nonconsecutive,
    "ratio": _int_ratio,
    "cage": _int_cage,
}
"""Arithmetic forms of the integer model, by relation kind."""


def _build_int(s: Any, model: Model, tick: Callable[..., None],
               occurrences: bool = True) -> SmtFormulation:
    import z3

    codes = value_codes(model)
    ctx = s.ctx
    xs = [z3.Int(f"x_{c}", ctx) for c in range(model.n_cells)]
    for c, x in enumerate(xs):
        tick(BUILDING)
        ks = [codes[v] for v in model.domain(c)]
        if len(ks) == 1:
            s.add(x == ks[0])
        elif ks == list(range(ks[0], ks[-1] + 1)):
            s.add(x >= ks[0], x <= ks[-1])
        else:
            s.add(z3.Or([x == k for k in ks]))
    for cells, counts in model.groups:
        tick(BUILDING, len(cells))
        if counts is None:
            s.add(z3.Distinct([xs[c] for c in cells]))
            if occurrences:
                for v in range(model.n_values):
                    s.add(_any([xs[c] == codes[v] for c in cells if model.domains[c] >> v & 1],
                               ctx))
            continue
        for v, k in enumerate(counts):
            s.add(z3.Sum([z3.If(xs[c] == codes[v], 1, 0) for c in cells]) == k)
    for group in model.all_different:
        tick(BUILDING, len(group.cells))
        s.add(z3.Distinct([xs[c] for c in group.cells]))
    for rel in model.relations:
        tick(BUILDING, 4)
        encoder = INT_ENCODINGS.get(rel.kind)
        assertion = None if encoder is None else encoder(model, xs, rel)
        if assertion is None:
            assertion = _generic(model, rel, lambda c, v: xs[c] == codes[v], ctx)
        s.add(assertion)
    return SmtFormulation(model, s, "int", xs, codes)


def _any(items: list[Any], ctx: Any) -> Any:
    """The disjunction of ``items`` (false when there is none)."""
    import z3

    return z3.Or(items) if items else z3.BoolVal(False, ctx)


def _diagram(model: Model, rel: Relation, lit: Callable[[int, int], Any], ctx: Any) -> Any:
    """An n-ary kind with an automaton (``visible``: a Towers clue) by its layered
    diagram: a Boolean per inner node and per arc; an arc implies its source, its
    target and its label's literal, a node one of its outgoing and one of its
    incoming arcs, a cell's value one of the arcs of its label -- so the values
    spell a path from the root to the terminal. The diagram is deterministic:
    the values decide every Boolean (a Towers clue on 9 cells has a few hundred
    arcs, where its table has up to 118,124 rows)."""
    import z3

    d = model.diagram(rel)
    k = d.arity
    nodes = [[z3.FreshBool("n", ctx) for _ in range(size)] if 0 < i < k else None
             for i, size in enumerate(d.levels)]
    outs: list[dict[int, list[Any]]] = [{} for _ in d.levels]
    ins: list[dict[int, list[Any]]] = [{} for _ in d.levels]
    parts: list[Any] = []
    for i, (cell, arcs) in enumerate(zip(rel.cells, d.layers, strict=True)):
        labelled: dict[int, list[Any]] = {}
        for src, v, dst in arcs:
            arc = z3.FreshBool("a", ctx)
            ends = [lit(cell, v)] + [level[j] for level, j in ((nodes[i], src),
                                                                (nodes[i + 1], dst)) if level]
            parts.append(z3.Implies(arc, z3.And(ends)))
            outs[i].setdefault(src, []).append(arc)
            ins[i + 1].setdefault(dst, []).append(arc)
            labelled.setdefault(v, []).append(arc)
        parts += [z3.Implies(lit(cell, v), _any(labelled.get(v, []), ctx))
                  for v in model.domain(cell)]
    for i, size in enumerate(d.levels):
        for j in range(size):
            level = nodes[i]
            here = None if level is None else level[j]
            for side in (outs[i] if i < k else None, ins[i] if i > 0 else None):
                if side is not None:
                    some = _any(side.get(j, []), ctx)
                    parts.append(some if here is None else z3.Implies(here, some))
    return z3.And(parts)


def _generic(model: Model, rel: Relation, lit: Callable[[int, int], Any], ctx: Any) -> Any:
    """A relation by its allowed pairs (support implications from both cells) or,
    for an n-ary kind, its diagram (:func:`_diagram`) when it has an automaton,
    else its allowed tuples; ``lit(cell, value)`` is the literal."""
    import z3

    if get_kind(rel.kind).automaton is not None:
        return _diagram(model, rel, lit, ctx)
    if not get_kind(rel.kind).binary:
        return _any([z3.And([lit(c, v) for c, v in zip(rel.cells, tup, strict=True)])
                     for tup in model.allowed_tuples(rel)], ctx)
    fwd, bwd = model.support(rel)
    da, db = model.domains[rel.a], model.domains[rel.b]
    parts = [z3.Implies(lit(rel.a, v), _any([lit(rel.b, w) for w in bits(fwd[v] & db)], ctx))
             for v in bits(da)]
    parts += [z3.Implies(lit(rel.b, w), _any([lit(rel.a, v) for v in bits(bwd[w] & da)], ctx))
              for w in bits(db)]
    return z3.And(parts)


# ------------------------------------------------------------ Boolean model
BoolEncoder = Callable[[Model, list[dict[int, Any]], Relation], Any]


def _bool_cage(model: Model, lits: list[dict[int, Any]], rel: Relation) -> Any:
    import z3

    labels = model.int_values
    return z3.PbEq([(b, labels[v]) for c in rel.cells for v, b in lits[c].items()],
                   rel.param_map["sum"])


BOOL_ENCODINGS: dict[str, BoolEncoder] = {"cage": _bool_cage}
"""Specialised forms of the Boolean model, by relation kind (the others: support
clauses or allowed tuples)."""


def _build_bool(s: Any, model: Model, tick: Callable[..., None]) -> SmtFormulation:
    import z3

    ctx = s.ctx
    cells: list[list[tuple[int, Any]]] = []
    for c in range(model.n_cells):
        tick(BUILDING, model.domains[c].bit_count())
        pairs = [(v, z3.Bool(f"b_{c}_{v}", ctx)) for v in model.domain(c)]
        cells.append(pairs)
        s.add(z3.PbEq([(b, 1) for _, b in pairs], 1))
    lits = [dict(pairs) for pairs in cells]
    false = z3.BoolVal(False, ctx)

    def lit(c: int, v: int) -> Any:
        return lits[c].get(v, false)

    for group_cells, counts in model.groups:
        for v in range(model.n_values):
            tick(BUILDING, len(group_cells))
            need = 1 if counts is None else counts[v]
            s.add(z3.PbEq([(lit(c, v), 1) for c in group_cells], need))
    for group in model.all_different:
        for v in range(model.n_values):
            bs = [lits[c][v] for c in group.cells if v in lits[c]]
            if len(bs) > 1:
                s.add(z3.AtMost(*bs, 1))
    for rel in model.relations:
        tick(BUILDING, 4)
        encoder = BOOL_ENCODINGS.get(rel.kind)
        assertion = None if encoder is None else encoder(model, lits, rel)
        s.add(_generic(model, rel, lit, ctx) if assertion is None else assertion)
    return SmtFormulation(model, s, "bool", cells, value_codes(model))


class SmtBackend(StreamBackend):
    """z3: an integer model (``Distinct``, arithmetic) or a Boolean one."""

    name = "smt"
    complete = True
    capabilities = COMPLETE_CAPABILITIES | {"cage"}
    package = Package("z3-solver", ("z3",), "smt")
    counters = _COUNTED
    load_s_per_literal = 2e-4
    options = (
        Option("model", str, "int", MODELS, "int: an Int per cell with Distinct and arithmetic; "
                                            "bool: a Bool per cell and value with PbEq"),
        Option("occurrences", bool, True, None,
               "int model: also state that every label occurs in each permutation asterism "
               "(redundant; z3 finds an empty 8x8 Latin square in 0.1 s with it, not in 5 s "
               "without)"),
    )

    def compile(self, model: Model, /, *, deadline: Deadline | None = None,
                **options: Any) -> SmtFormulation:
        """The z3 model of ``model`` (a ``z3.Solver`` with its assertions)."""
        import z3

        opts = self.parse_options(options)
        tick = (deadline or Deadline(None)).tick
        s = z3.Solver(ctx=z3.Context())  # a context of its own: runs do not depend on each other
        if opts["model"] == "int":
            return _build_int(s, model, tick, opts["occurrences"])
        return _build_bool(s, model, tick)

    def _stream(self, emit: Emit, model: Model, limit: int | None, deadline: Deadline,
                seed: int | None, options: dict[str, Any]) -> None:
        import z3

        t0 = time.perf_counter()
        form = self.compile(model, deadline=deadline, **options)
        s = form.solver
        if seed is not None:
            s.set("random_seed", seed % 2 ** 31)
        emit(("stats", {"encode_s": time.perf_counter() - t0, "model": form.kind}))
        emit(("phase", SOLVING))
        t1 = time.perf_counter()
        found = checks = 0
        counted: dict[str, int] = {}
        how, why = COMPLETE, None
        while True:
            remaining = deadline.remaining()
            if remaining is not None:
                s.set("timeout", max(1, int(remaining * 1000)))
            answer = s.check()
            checks += 1
            counted = {**dict.fromkeys(_COUNTED, 0), **_last_stats(s.statistics())}
            if answer == z3.sat:
                values = form.read(s.model())
                emit(("solution", values))
                found += 1
                if limit is not None and found >= limit:
                    how = AT_LIMIT
                    break
                s.add(form.block(values))
                continue
            if answer == z3.unsat:
                how = COMPLETE
            else:
                reason = s.reason_unknown()
                if remaining is not None and reason in ("timeout", "canceled"):
                    how = TIMED_OUT
                else:
                    how, why = GAVE_UP, f"z3 answered unknown ({reason})"
            break
        emit(("stats", {"solve_s": time.perf_counter() - t1, "checks": checks, **counted}))
        emit(("done", how, why))


def _last_stats(stats: Any) -> dict[str, int]:
    """z3's counters (``conflicts``, ``decisions``, ``propagations``), which add up over
    the checks of one solver; the SAT core's ``sat conflicts``... count when the
    SMT core reports none."""
    out: dict[str, int] = {}
    for key in stats.keys():
        name = key.replace("sat ", "")
        if name in _COUNTED and (name not in out or key == name):
            value = stats.get_key_value(key)
            if isinstance(value, int):
                out[name] = value
    return out
