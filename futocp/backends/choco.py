"""Choco backend: the classic propagation-based CP solver, through ``pychoco``.

``pychoco`` bundles a native build of Choco (no Java needed). The model
(:class:`ChocoFormulation`): one integer variable per cell over the codes of
its list (enumerated domains) (:func:`~futocp.backends.stream.value_codes`: the labels on
integer boards, the value indices otherwise); ``all_different`` per permutation
asterism and per partial all-different group (a cage's cells), at the
consistency of option ``consistency``; a global cardinality constraint (closed,
occurrences fixed) per asterism with repeated labels; the relations by kind
(:data:`ENCODINGS`) -- ``less``: ``arithm(x_A, "<", x_B)``; ``cage``: the
``sum`` of its cells; ``visible`` (a kind with an automaton): ``regular`` over
its diagram -- and every other kind by a table of its allowed pairs or tuples
(Compact-Table, ``CT+``); a clue's cell is a constant.

Option ``consistency`` (of ``all_different`` and the cardinality constraint):
``ac`` (Régin's matching, arc consistency -- the global constraint the CP
literature on quasigroup completion uses), ``bc`` (bounds consistency) or
``default`` (Choco's default: bounds consistency plus a probabilistic arc
consistency). The search is Choco's default strategy. Enumeration calls
``solve()`` again for the next solution; ``time_limit`` is Choco's own
(``limit_time``, counted over the whole enumeration). There is no ``seed``:
the default search does not draw at random.

Stats: Choco's search counters ``nodes``, ``fails``, ``backtracks``.

Example (a 4x4 Futoshiki, bounds consistency, every solution):
    >>> from futocp.families import futoshiki
    >>> from futocp.model import build_model
    >>> board = futoshiki(4, less=[((0, 0), (0, 1)), ((0, 1), (0, 2)), ((0, 2), (0, 3))])
    >>> if ChocoBackend.available() is True:
    ...     r = ChocoBackend().solve(build_model(board), limit=None, consistency="bc")
    ...     assert r.n_solutions == 24 and {"nodes", "fails", "backtracks"} <= set(r.stats)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import Model
from ..relations import Relation, get_kind
from .base import COMPLETE_CAPABILITIES, Deadline, Option, Package
from .stream import (
    AT_LIMIT,
    BUILDING,
    COMPLETE,
    SOLVING,
    TIMED_OUT,
    Emit,
    StreamBackend,
    value_codes,
)

__all__ = ["ChocoBackend", "ChocoFormulation", "CONSISTENCIES", "ENCODINGS"]

CONSISTENCIES = {"ac": "AC", "bc": "BC", "default": "DEFAULT"}
"""Option ``consistency`` -> Choco's name (``all_different``'s ``algo``, the
cardinality constraint's ``consistency``)."""


@dataclass
class ChocoFormulation:
    """The Choco model of a Model.

    Attributes:
        model: The Model.
        choco: The ``pychoco.Model``.
        xs: Per cell, its ``IntVar``.
        codes: The integer of each value index.
        consistency: The ``all_different`` algorithm (``AC``, ``BC``, ``DEFAULT``).
    """

    model: Model
    choco: Any
    xs: list[Any]
    codes: tuple[int, ...]
    consistency: str

    def read(self) -> tuple[int, ...]:
        """The value index of every cell in the solver's current solution."""
        index = {k: v for v, k in enumerate(self.codes)}
        return tuple(index[x.get_value()] for x in self.xs)


# An encoder posts one relation and returns True, or returns False to leave it to
# the table of its allowed pairs or tuples.
Encoder = Callable[[ChocoFormulation, Relation], bool]


def _less(form: ChocoFormulation, rel: Relation) -> bool:
    form.choco.arithm(form.xs[rel.a], "<", form.xs[rel.b]).post()  # codes in label order
    return True


def _cage(form: ChocoFormulation, rel: Relation) -> bool:
    form.choco.sum([form.xs[c] for c in rel.cells], "=", rel.param_map["sum"]).post()
    return True


ENCODINGS: dict[str, Encoder] = {"less": _less, "cage": _cage}
"""The relation kinds posted as arithmetic (the others: a table)."""


def _regular(form: ChocoFormulation, rel: Relation) -> None:
    """An n-ary kind with an automaton (``visible``: a Towers clue): Choco's
    ``regular`` over the relation's layered diagram, read as an automaton whose
    states are the diagram's nodes (a Towers clue on 9 cells: a few hundred arcs,
    where its table has up to 118,124 rows)."""
    from pychoco.objects.automaton.finite_automaton import FiniteAutomaton

    d = form.model.diagram(rel)
    fa = FiniteAutomaton()
    states = [[fa.add_state() for _ in range(size)] for size in d.levels]
    fa.set_initial_state(states[0][0])
    for node in states[-1]:
        fa.set_final(node)
    for layer, arcs in enumerate(d.layers):
        for src, v, dst in arcs:
            fa.add_transition(states[layer][src], states[layer + 1][dst],
                              form.codes[v])  # type: ignore[arg-type]  # stub: *symbols: list[int]
    form.choco.regular([form.xs[c] for c in rel.cells], fa).post()


def _table(form: ChocoFormulation, rel: Relation) -> None:
    model, codes = form.model, form.codes
    if get_kind(rel.kind).binary:
        tuples = [[codes[v], codes[w]] for v, w in model.allowed_pairs(rel)]
    else:
        tuples = [[codes[v] for v in tup] for tup in model.allowed_tuples(rel)]
    form.choco.table([form.xs[c] for c in rel.cells], tuples, True, "CT+").post()


class ChocoBackend(StreamBackend):
    """Choco (pychoco): all-different, cardinality, tables and sums with Choco's search."""

    name = "choco"
    complete = True
    capabilities = COMPLETE_CAPABILITIES | {"cage"}
    package = Package("pychoco", ("pychoco",), "choco")
    counters = ("nodes", "fails", "backtracks")
    load_s_per_literal = 1e-4
    options = (
        Option("consistency", str, "ac", tuple(CONSISTENCIES),
               "all_different and cardinality: ac (arc), bc (bounds), default (Choco's)"),
    )

    def compile(self, model: Model, /, *, deadline: Deadline | None = None,
                **options: Any) -> ChocoFormulation:
        """The Choco model of ``model``."""
        from pychoco import Model as ChocoModel

        opts = self.parse_options(options)
        tick = (deadline or Deadline(None)).tick
        m = ChocoModel()
        codes = value_codes(model)
        xs = []
        for c in range(model.n_cells):
            tick(BUILDING)
            ks = [codes[v] for v in model.domain(c)]
            if len(ks) == 1:
                xs.append(m.intvar(ks[0]))
            elif ks[-1] - ks[0] == len(ks) - 1:  # a range: no list to hand over, value by value
                xs.append(m.intvar(ks[0], ks[-1], bounded_domain=False))
            else:
                xs.append(m.intvar(ks))
        form = ChocoFormulation(model, m, xs, codes, CONSISTENCIES[opts["consistency"]])
        for cells, counts in model.groups:
            tick(BUILDING, len(cells))
            group = [xs[c] for c in cells]
            if counts is None:
                m.all_different(group, form.consistency).post()
            else:
                m.global_cardinality(group, list(codes), [m.intvar(k) for k in counts],
                                     closed=True, consistency=form.consistency).post()
        for alldiff in model.all_different:
            tick(BUILDING, len(alldiff.cells))
            m.all_different([xs[c] for c in alldiff.cells], form.consistency).post()
        for rel in model.relations:
            tick(BUILDING, 4)
            encoder = ENCODINGS.get(rel.kind)
            if encoder is not None and encoder(form, rel):
                continue
            if get_kind(rel.kind).automaton is not None:
                _regular(form, rel)
            else:
                _table(form, rel)
        return form

    def _stream(self, emit: Emit, model: Model, limit: int | None, deadline: Deadline,
                seed: int | None, options: dict[str, Any]) -> None:
        from pychoco import backend

        t0 = time.perf_counter()
        form = self.compile(model, deadline=deadline, **options)
        emit(("stats", {"encode_s": time.perf_counter() - t0}))
        emit(("phase", SOLVING))
        solver = form.choco.get_solver()
        remaining = deadline.remaining()
        if remaining is not None:  # Choco reads seconds with a decimal point ("250ms" hangs)
            solver.limit_time(f"{max(remaining, 0.001):.3f}s")
        t1 = time.perf_counter()
        found = 0
        how = COMPLETE
        while solver.solve():
            emit(("solution", form.read()))
            found += 1
            if limit is not None and found >= limit:
                how = AT_LIMIT
                break
        if how != AT_LIMIT and solver.get_search_state() != "TERMINATED":
            how = TIMED_OUT  # stopped by the time limit (the only limit set)
        handle = solver._handle
        emit(("stats", {"solve_s": time.perf_counter() - t1,
                        "nodes": backend.get_node_count(handle),  # (Solver.get_node_count
                        "fails": backend.get_fail_count(handle),  # reads the time in pychoco 0.4)
                        "backtracks": backend.get_backtrack_count(handle)}))
        emit(("done", how, None))
