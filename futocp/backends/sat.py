"""SAT backend: a CNF through python-sat (``pysat``).

The *direct encoding*: one Boolean variable per (cell, value index in its
list), allocated in a :class:`pysat.formula.IDPool` under the object
``("x", cell, value)``. Cells whose list is a single value (clues, or cells
the list filtering fixed) get no variable, nor do values the filtering
removed: they are constants, and every clause is simplified against them
(clauses made true are dropped, false literals removed).

Exact cover, not only at-most-one:

* per cell, exactly one value of its list;
* per asterism and value, exactly its multiplicity -- for a plain Latin
  group that is exactly-one, i.e. *both* at-most-one and at-least-one.

The cardinality constraints are python-sat's own encodings
(:class:`pysat.card.CardEnc` with ``vpool=`` the pool), option ``card``: one
of :data:`CARD_ENCODINGS` for every constraint, or ``auto`` (the default),
which picks per constraint by the length of its list of literals
(:func:`card_for`): ``pairwise`` up to ``pairwise_max`` literals
(:data:`AUTO_PAIRWISE_MAX`), the linear ``card_long`` (:data:`AUTO_CARD_LONG`)
above -- pairwise needs no auxiliary variable and is the fastest on the short
lists of puzzles and QWH, but grows as n^2/2, which on an empty square of
order 60 is 19 M clauses. The stats ``card_used`` count the constraints per
encoding. ``pairwise``, ``ladder`` and ``bitwise`` only hold bounds of 1; a
multiset board's counts above 1 then use :data:`MULTI_FALLBACK` (reported in
the stats as ``card_multi``). Pairwise clauses beyond
:data:`MAX_PAIRWISE_CLAUSES` (``card=pairwise`` on an empty square of order
52 or more, or a ``pairwise_max`` that large) are refused: the message names
``card=auto``.

A partial all-different group (a cage's cells) gets at-most-one per value
among its cells (the ``card`` encoding).

Every binary relation kind of the registry (:mod:`futocp.relations`) gets the
*support encoding* built from its support (:meth:`~futocp.model.Model.support`):
for each value v of a, ``x[a,v] -> OR x[b,w] (w supports v)``, and for each
value w of b, ``x[b,w] -> OR x[a,v] (v supports w)`` -- unit propagation then
keeps the relation arc consistent. ``Less`` (value(a) < value(b)) is encoded
by option ``less``:

* ``support``: the support encoding above (``w > v``, ``v < w``);
* ``order``: the order encoding of Tamura et al. (Constraints 14(2), 2009):
  auxiliary variables ``("ge", c, v)`` meaning value(c) >= v, chained
  (``ge(c,v') -> ge(c,v)`` for v < v'), channelled to the direct ones, and
  ``ge(a,t) -> ge(b,t+1)`` for every value t of a.

Every n-ary relation kind without a specialised encoding in
:data:`NARY_ENCODERS` gets the *diagram encoding* of its generic
decomposition, the relation's layered decision diagram
(:meth:`~futocp.model.Model.diagram`: unrolled from its kind's automaton, or
built from its table of allowed tuples): one variable per inner node and per
arc, the root and the terminal true; an arc implies its source, its target
and its label's direct literal; a node implies one of its outgoing and one
of its incoming arcs; a label implies one of its arcs. Unit propagation then
keeps exactly the labels on a root-to-terminal path (generalised arc
consistency). A Keen cage (``arith``) takes it. A Towers clue (``visible``)
has a specialised encoding: the order encoding of the running maximum along
the line (``("top", i, j, v)``: the first j cells hold a value >= v), a
``("seen", i, j)`` literal per cell (its value above the running maximum
before it) and a cardinality constraint (``card``) on them. Option ``nary``
(:data:`NARY_CHOICES`) chooses; ``auto`` (default) takes :data:`AUTO_NARY`,
by measurement (``benchmarks/tatham_games.py``: on 9x9 Towers of Tatham's
hardest grade the specialised encoding took 0.26 s at the median, the
diagram 0.41 s).

A cage's sum (labels pairwise different, summing to S) is encoded by option
``cage``:

* ``combinations``: one auxiliary variable ``("comb", i, K)`` per label set K
  the cage may hold (:meth:`~futocp.model.Model.combinations`, restricted to
  the sets the cells' lists and fixed cells still allow), exactly one of them
  true (``card`` encoding), each value of a chosen set present in the cage
  (``comb(K) -> OR x[c,v]``), and a value of no remaining set absent
  (``x[c,v] -> OR comb(K), v in K``);
* ``pb``: the pseudo-Boolean equality ``sum label(v) * x[c,v] = S`` through
  python-sat's :class:`pysat.pb.PBEnc` (its default encoder), which needs
  python-sat's ``pb`` extra (``pip install 'python-sat[pb]'``: the pindakaas
  package for python-sat 1.9, pypblib before).

The default, :data:`DEFAULT_CAGE`, was chosen by measurement: on random 9x9
Killer boards (cages of 2 to 5 cells cut from a hidden solution, 50 boards
per set), ``combinations`` takes about a third of ``pb``'s median wall time
(3.2x faster enumerating every solution of fully caged boards, 2.9x finding
two solutions when 40% of the cages are dropped), in encoding and in search
alike, with 40% fewer clauses; python-sat's other PB encoders (bdd,
seqcounter, adder) are slower still.

With ``simplify`` (default), unit propagation runs on the CNF once it is
built, and the formula is encoded again with the values it fixed or removed
as constants (on QWH this gives exactly lsencode's "3-D" encoding).

The SAT solver is option ``solver``: any python-sat solver installed here, or
``auto`` (default), which picks by :data:`AUTO_SOLVERS`: ``kissat404`` for one
solution (the shortest tail on QWH), ``cadical195`` to enumerate (Kissat is
not incremental), and under a time limit the same on formulas of
:data:`AUTO_CHILD_LITERALS` direct literals or more, ``glucose42`` below
(where starting a process costs more than the search). Enumeration adds a
blocking clause on the cell variables to the same incremental solver after
each solution (a non-incremental solver is rebuilt with the blocking clauses).
The defaults of ``card``, ``less`` and ``solver`` were chosen by measurement
(``benchmarks/sat_encodings.py``, ``benchmarks/sat_peers.py``,
``docs/performance.md``).

Limits. The time limit covers encoding (checked every few hundred clauses:
``unknown``, "time limit of 10 s reached while encoding") and search. A solver
python-sat can interrupt is stopped by a timer calling ``interrupt()``
(``solve_limited(expect_interrupt=True)``); CaDiCaL, Kissat and Lingeling
cannot be (:func:`can_interrupt`), so under a time limit they run in a child
process (:mod:`futocp.procs`) that streams each solution back and
is killed at the deadline. So does a CNF whose load into the solver, which
nothing interrupts, could outlast the limit (:data:`LOAD_S_PER_LITERAL`), and
every solve with a memory limit or ``isolate``. An encoding that clearly
cannot fit in memory (:func:`estimate_cnf`, :data:`BYTES_PER_CLAUSE`) is
refused before it is built. No solver is handed an empty formula (unit
propagation decided every cell; maplesat segfaults on it): the answer is read
from the fixed cells.

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = SatBackend().solve(build_model(latin_square(3)), limit=None)
    >>> r.status.value, r.n_solutions, r.exhausted
    ('sat', 12, True)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from ..errors import UnsupportedError, UsageError
from ..model import Model
from ..propagate import bits
from ..relations import Relation
from ..result import Result, Status
from .base import KILL_GRACE_S, Backend, Deadline, DeadlinePassed, Option, active_limits

__all__ = ["SatBackend", "SatFormulation", "CARD_ENCODINGS", "CARD_CHOICES", "LINEAR_ENCODINGS",
           "LESS_ENCODINGS", "CAGE_ENCODINGS", "DEFAULT_CAGE", "AMO_ONLY", "MULTI_FALLBACK",
           "NARY_ENCODERS", "NARY_CHOICES", "AUTO_NARY", "NaryContext",
           "AUTO_SOLVERS", "AUTO_PAIRWISE_MAX", "AUTO_CARD_LONG", "MAX_PAIRWISE_CLAUSES",
           "AUTO_CHILD_LITERALS", "encode", "card_for", "pairwise_size", "pb_available",
           "resolve_solver", "can_interrupt", "estimate_cnf", "free_literals"]

CARD_ENCODINGS = ("pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "totalizer",
                  "mtotalizer", "kmtotalizer", "ladder", "bitwise")
"""The CNF cardinality encodings of :class:`pysat.card.EncType` (``native`` is
not CNF and is left out)."""

CARD_CHOICES = ("auto", *CARD_ENCODINGS)
"""The values of option ``card``: ``auto`` (by list length, :func:`card_for`) or one
encoding for every constraint."""

LINEAR_ENCODINGS = tuple(e for e in CARD_ENCODINGS if e != "pairwise")
"""The values of option ``card_long`` (``card=auto``'s encoding of long lists)."""

AMO_ONLY = frozenset({"pairwise", "ladder", "bitwise"})
"""Encodings python-sat offers for a bound of 1 only."""

MULTI_FALLBACK = "seqcounter"
"""The encoding used for counts above 1 when ``card`` is one of :data:`AMO_ONLY`."""

LESS_ENCODINGS = ("support", "order")

CAGE_ENCODINGS = ("combinations", "pb")
"""Encodings of a cage's sum (see the module docstring)."""

NARY_CHOICES = ("auto", "specialised", "generic")
"""Values of option ``nary``: the specialised encodings of the kinds that have one
(``visible``), or the generic diagram encoding; ``auto``: :data:`AUTO_NARY`."""

AUTO_NARY = {"visible": "specialised"}
"""What ``nary=auto`` means for each kind with a specialised encoding (by measurement,
``docs/performance.md``, "Tatham's Keen and Towers")."""

MAX_PAIRWISE_CLAUSES = 10_000_000
"""Above this many pairwise clauses (about 1.5 GB of Python lists) the encoding is refused."""

AUTO_PAIRWISE_MAX = 10
"""``card=auto`` encodes a list of at most this many literals pairwise, longer
ones with :data:`AUTO_CARD_LONG` (measured: ``benchmarks/sat_encodings.py
threshold``, ``docs/performance.md``)."""

AUTO_CARD_LONG = "seqcounter"
"""``card=auto``'s encoding of the lists longer than :data:`AUTO_PAIRWISE_MAX`."""

NON_INCREMENTAL = ("kissat",)
"""Solver name prefixes that take no clause after a solve (enumeration rebuilds them)."""

DEFAULT_CARD = "auto"
DEFAULT_LESS = "support"
DEFAULT_CAGE = "combinations"
AUTO_SOLVERS: dict[str, tuple[str, ...]] = {
    "one": ("kissat404", "cadical195", "cadical300", "glucose42", "minisat22"),
    "many": ("cadical195", "cadical153", "glucose42", "glucose4", "minisat22"),
    "limited": ("glucose42", "glucose4", "minisat22"),
}
"""What ``solver=auto`` runs: the first python-sat has, by case -- ``one`` (one
solution), ``many`` (enumeration: an incremental solver), ``limited`` (a time
limit on a formula of fewer than :data:`AUTO_CHILD_LITERALS` direct literals:
a solver python-sat can interrupt in this process). Chosen by measurement
(``benchmarks/sat_encodings.py``; ``docs/performance.md``)."""

AUTO_CHILD_LITERALS = 1_500
"""From this many direct literals, ``auto`` under a time limit keeps ``one`` /
``many`` (run in a child process killed at the deadline); below, ``limited``.
Measured (one solution, median of 3, a 60 s limit, on a loaded 2-core machine):
on 9x9 Futoshiki (300-500 literals) glucose42 takes 0.01-0.06 s and kissat404 in a
child 0.03-0.15 s (the process start dominates); on QWH-30 with 316 holes (1,405
literals) 0.10 s against 0.25 s; on four QWH-30 with 374 holes (about 1,950
literals) glucose42 5.0 / 1.3 / 7.8 / 48.4 s, kissat404 0.6 / 3.8 / 2.3 / 2.8 s."""

Lit = int | bool  # a literal, or a constant (True / False)


@dataclass
class SatFormulation:
    """The compiled CNF and how to read a solution back.

    Attributes:
        model: The Model that was encoded.
        cnf: The :class:`pysat.formula.CNF`.
        pool: The :class:`pysat.formula.IDPool` (objects ``("x", cell, value)``,
            ``("ge", cell, value)`` and the cardinality encodings' auxiliaries).
        var_map: Direct variable -> (cell, value index).
        cell_vars: Per cell, ``(value index, variable)`` pairs; empty for fixed cells.
        fixed: Cell -> value index, for cells whose list is a single value.
        card: The cardinality encoding (option ``card``: ``auto`` or one encoding).
        less: The Less encoding.
        cage: The cage encoding.
        card_multi: The encoding used for counts above 1 (None if there are none).
        trivially_unsat: True when the simplification met an empty clause.
        pairwise_max: Under ``card=auto``, the longest list encoded pairwise.
        card_long: Under ``card=auto``, the encoding of longer lists.
        stats: Counters of the encoding (``direct_vars``, ``card_used`` = constraints
            per encoding, and from :func:`encode` ``encode_s``, ``up_fixed``, ``up_removed``).
    """

    model: Model
    cnf: Any
    pool: Any
    var_map: dict[int, tuple[int, int]]
    cell_vars: list[list[tuple[int, int]]]
    fixed: dict[int, int]
    card: str
    less: str
    cage: str = DEFAULT_CAGE
    card_multi: str | None = None
    trivially_unsat: bool = False
    pairwise_max: int = AUTO_PAIRWISE_MAX
    card_long: str = AUTO_CARD_LONG
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def n_vars(self) -> int:
        """Number of variables (direct and auxiliary)."""
        return self.cnf.nv

    @property
    def n_clauses(self) -> int:
        """Number of clauses."""
        return len(self.cnf.clauses)

    def read(self, true_vars: Any) -> tuple[int, ...]:
        """Value indices per cell from a set-like of the variables that are true.

        Raises:
            ValueError: if a cell has no true variable or more than one.
        """
        out = []
        for c, pairs in enumerate(self.cell_vars):
            if not pairs:
                out.append(self.fixed[c])
                continue
            chosen = [v for v, var in pairs if var in true_vars]
            if len(chosen) != 1:
                what = "no" if not chosen else f"{len(chosen)}"
                raise ValueError(f"cell {self.model.board.cell_name(c)} has {what} true "
                                 f"value variables")
            out.append(chosen[0])
        return tuple(out)

    def map_comments(self, prefix: str = "c") -> list[str]:
        """Comment lines naming every direct variable and every fixed cell."""
        board = self.model.board
        vals = self.model.values
        head = f"{prefix} futocp cells {board.n_cells} card {self.card} less {self.less}"
        if self.card == "auto":
            head += f" pairwise_max {self.pairwise_max} card_long {self.card_long}"
        if self.model.cages:
            head += f" cage {self.cage}"
        lines = [head]
        for var, (c, v) in sorted(self.var_map.items()):
            lines.append(f"{prefix} var {var} = cell {c} {board.cell_name(c)} "
                         f"label {json.dumps(vals[v])}")
        for c, v in sorted(self.fixed.items()):
            lines.append(f"{prefix} fixed cell {c} {board.cell_name(c)} label {json.dumps(vals[v])}")
        return lines

    def to_dimacs(self) -> str:
        """The CNF in DIMACS, with ``c var`` / ``c fixed`` lines mapping variables to labels."""
        parts = self.map_comments("c")
        parts.append(f"p cnf {self.cnf.nv} {len(self.cnf.clauses)}")
        parts.extend(" ".join(map(str, cl)) + " 0" for cl in self.cnf.clauses)
        return "\n".join(parts) + "\n"

    def lit(self, cell: int, value: int) -> Lit:
        """The direct literal of (cell, value index), or a constant for a fixed
        cell or a value no longer in the cell's list."""
        if cell in self.fixed:
            return self.fixed[cell] == value
        return self._lits[cell].get(value, False)

    @cached_property
    def _lits(self) -> list[dict[int, int]]:
        return [dict(pairs) for pairs in self.cell_vars]

    def to_opb(self) -> str:
        """A pseudo-Boolean (OPB) version over the direct variables.

        Exactly-k constraints become linear equalities (``+1 x1 +1 x2 = 1 ;``),
        ``Less(a, b)`` the inequality ``sum v*x[b,v] - sum v*x[a,v] >= 1``
        (v = value index); any other binary relation one support inequality per
        value v of its first cell, ``sum x[b,w] - x[a,v] >= 0`` (w supporting v:
        with exactly one value per cell this is the relation); a partial
        all-different group at-most-one per value (``-1 x1 -1 x2 >= -1``); a
        cage the equality ``sum label(v) * x[c,v] = S``; any other n-ary relation
        its table (:meth:`~futocp.model.Model.allowed_tuples`) with a selector
        variable per row after the direct ones: exactly one selected, and
        ``x[c,v]`` equal to the sum of the selectors of the rows giving ``v`` to
        ``c``. Constants (fixed cells, removed values) are moved to the
        right-hand side.

        Raises:
            TableTooLarge: a table past the size guard.
        """
        model = self.model
        lines: list[str] = []
        trivially_false = False

        def emit(terms: Iterable[tuple[int, Lit]], op: str, rhs: int) -> None:
            nonlocal trivially_false
            body: list[tuple[int, int]] = []
            for k, lit in terms:
                if lit is True:
                    rhs -= k
                elif lit is not False and k != 0:
                    body.append((k, lit))
            if not body:
                ok = (0 == rhs) if op == "=" else (0 >= rhs)
                trivially_false |= not ok
                return
            text = " ".join(f"{k:+d} x{var}" for k, var in body)
            lines.append(f"{text} {op} {rhs} ;")

        lit = self.lit
        for pairs in self.cell_vars:
            if pairs:
                emit([(1, var) for _, var in pairs], "=", 1)
        for cells, counts in _groups(model):
            for v in range(model.n_values):
                need = 1 if counts is None else counts[v]
                emit([(1, lit(c, v)) for c in cells], "=", need)
        for group in model.all_different:
            for v in range(model.n_values):
                emit([(-1, lit(c, v)) for c in group.cells], ">=", -1)
        for rel in model.binary:
            if rel.kind == "less":
                emit([(v, lit(rel.b, v)) for v in range(model.n_values)]
                     + [(-v, lit(rel.a, v)) for v in range(model.n_values)], ">=", 1)
                continue
            fwd, _ = model.support(rel)
            for v in range(model.n_values):
                a_lit = lit(rel.a, v)
                if a_lit is False:
                    continue
                emit([(1, lit(rel.b, w)) for w in bits(fwd[v])] + [(-1, a_lit)], ">=", 0)
        for rel in model.cages:
            emit([(model.int_values[v], lit(c, v)) for c in rel.cells
                  for v in range(model.n_values)],
                 "=", rel.param_map["sum"])
        n_vars = len(self.var_map)  # the direct variables are 1..D, then the selectors
        for rel in model.nary:
            if rel.kind == "cage":
                continue
            rows = model.allowed_tuples(rel)
            sels = list(range(n_vars + 1, n_vars + 1 + len(rows)))
            n_vars += len(rows)
            emit([(1, sel) for sel in sels], "=", 1)
            for i, c in enumerate(rel.cells):
                for v in range(model.n_values):
                    emit([(1, lit(c, v))] + [(-1, sel) for sel, row in zip(sels, rows, strict=True)
                                             if row[i] == v], "=", 0)
        if trivially_false:  # a constraint false on constants alone: keep it visible
            n_vars += 1
            lines += [f"+1 x{n_vars} >= 1 ;", f"-1 x{n_vars} >= 0 ;"]
        head = [f"* #variable= {n_vars} #constraint= {len(lines)}"]
        head += self.map_comments("*")
        return "\n".join(head + lines) + "\n"


def _groups(model: Model) -> list[tuple[tuple[int, ...], tuple[int, ...] | None]]:
    out: list[tuple[tuple[int, ...], tuple[int, ...] | None]] = [
        (con.cells, None) for con in model.permutations]
    out += [(con.cells, con.counts) for con in model.counts]
    return out


def _neg(lit: Lit) -> Lit:
    return (not lit) if isinstance(lit, bool) else -lit


def pb_available() -> bool | str:
    """True when :class:`pysat.pb.PBEnc` can encode here, else why not."""
    try:
        from pysat import pb
    except ImportError:
        return "python-sat is not installed"
    # python-sat >= 1.9 encodes through pindakaas, earlier versions through pypblib
    for flag, package in (("pindakaas_present", "pindakaas"), ("pblib_present", "pypblib")):
        if getattr(pb, flag, True) is False:
            return (f"python-sat's pseudo-Boolean encodings need the {package} package "
                    "(pip install 'python-sat[pb]')")
    return True


def card_for(card: str, n: int, k: int = 1, pairwise_max: int = AUTO_PAIRWISE_MAX,
             card_long: str = AUTO_CARD_LONG) -> str:
    """The python-sat encoding of one cardinality constraint over ``n`` literals
    with bound ``k``: ``card`` itself, or under ``card=auto`` ``pairwise`` for at
    most ``pairwise_max`` literals and ``card_long`` above; an encoding that only
    holds bounds of 1 (:data:`AMO_ONLY`) gives way to :data:`MULTI_FALLBACK` for
    ``k`` > 1.

    Example:
        >>> card_for("auto", 4), card_for("auto", 60), card_for("auto", 60, 2, card_long="ladder")
        ('pairwise', 'seqcounter', 'seqcounter')
        >>> card_for("bitwise", 3), card_for("auto", 12, pairwise_max=20)
        ('bitwise', 'pairwise')
    """
    name = card
    if card == "auto":
        name = "pairwise" if n <= pairwise_max else card_long
    if k > 1 and name in AMO_ONLY:
        name = MULTI_FALLBACK
    return name


def encode(model: Model, card: str = DEFAULT_CARD, less: str = DEFAULT_LESS,
           simplify: bool = True, cage: str = DEFAULT_CAGE,
           deadline: Deadline | None = None, pairwise_max: int = AUTO_PAIRWISE_MAX,
           card_long: str = AUTO_CARD_LONG, nary: str = "auto") -> SatFormulation:
    """Encode a Model as CNF (see the module docstring).

    Args:
        model: The Model.
        card: ``auto`` or a :data:`CARD_ENCODINGS` name (a :data:`CARD_CHOICES` value).
        less: ``"support"`` or ``"order"``.
        cage: ``"combinations"`` or ``"pb"`` (a :data:`CAGE_ENCODINGS` name).
        simplify: Run unit propagation on the CNF first and encode again with
            the values it fixes or removes as constants (the formula is
            equivalent; it only gets smaller). Skipped when there is no unit clause.
        deadline: Checked while encoding (:meth:`~futocp.backends.base.Deadline.tick`).
        pairwise_max: Under ``card=auto``, the longest list encoded pairwise (>= 0).
        card_long: Under ``card=auto``, the encoding of longer lists (a
            :data:`LINEAR_ENCODINGS` name).

    Returns:
        The :class:`SatFormulation`.

    Raises:
        UsageError: for an unknown encoding name or a negative ``pairwise_max``.
        UnsupportedError: when the pairwise clauses (``card=pairwise``, or the lists
            ``card=auto`` encodes pairwise) would exceed :data:`MAX_PAIRWISE_CLAUSES`,
            or for ``cage=pb`` on a model with cages when python-sat cannot encode
            pseudo-Boolean constraints here.
        DeadlinePassed: when ``deadline`` passes while encoding.
    """
    if card not in CARD_CHOICES:
        raise UsageError(f"unknown card encoding {card!r}; choose one of {', '.join(CARD_CHOICES)}")
    if card_long not in LINEAR_ENCODINGS:
        raise UsageError(f"unknown card_long encoding {card_long!r}; choose one of "
                         f"{', '.join(LINEAR_ENCODINGS)}")
    if isinstance(pairwise_max, bool) or not isinstance(pairwise_max, int) or pairwise_max < 0:
        raise UsageError(f"option pairwise_max={pairwise_max!r}: expected an int >= 0")
    if less not in LESS_ENCODINGS:
        raise UsageError(f"unknown less encoding {less!r}; choose one of {', '.join(LESS_ENCODINGS)}")
    if cage not in CAGE_ENCODINGS:
        raise UsageError(f"unknown cage encoding {cage!r}; choose one of {', '.join(CAGE_ENCODINGS)}")
    if nary not in NARY_CHOICES:
        raise UsageError(f"unknown nary choice {nary!r}; choose one of {', '.join(NARY_CHOICES)}")
    if cage == "pb" and model.cages:
        ok = pb_available()
        if ok is not True:
            raise UnsupportedError(f"cage=pb: {ok}; or use cage=combinations")
    t0 = time.perf_counter()
    domains = list(model.domains)
    if card in ("pairwise", "auto"):
        size = pairwise_size(model, None if card == "pairwise" else pairwise_max)
        if size > MAX_PAIRWISE_CLAUSES:
            what = "card=pairwise" if card == "pairwise" else f"pairwise_max={pairwise_max}"
            raise UnsupportedError(
                f"{what} would write about {size:,} pairwise clauses (more than "
                f"{MAX_PAIRWISE_CLAUSES:,}); use card=auto (default pairwise_max="
                f"{AUTO_PAIRWISE_MAX}) or a linear encoding such as card=seqcounter")
    deadline = deadline or Deadline(None)

    def again() -> SatFormulation:
        return _encode(model, domains, card, less, cage, deadline, pairwise_max, card_long, nary)

    form = again()
    up_fixed = up_removed = 0
    while simplify and not form.trivially_unsat:
        deadline.check()
        units = [cl[0] for cl in form.cnf.clauses if len(cl) == 1]
        if not units:
            break
        forced = _unit_propagate(form.cnf.clauses, units)
        deadline.check()
        if forced is None:
            form.trivially_unsat = True
            break
        changed = False
        for lit in forced:
            if abs(lit) not in form.var_map:
                continue
            c, v = form.var_map[abs(lit)]
            changed = True
            if lit > 0:
                domains[c] = 1 << v
                up_fixed += 1
            else:
                domains[c] &= ~(1 << v)
                up_removed += 1
        if not changed:  # only auxiliary variables were settled
            break
        if any(d == 0 for d in domains):
            form.trivially_unsat = True
            break
        form = again()
    form.stats.update(encode_s=time.perf_counter() - t0, up_fixed=up_fixed,
                      up_removed=up_removed)
    return form


def pairwise_size(model: Model, max_len: int | None = None) -> int:
    """How many at-most-one clauses ``card=pairwise`` writes for the cells and groups
    (with ``max_len``, only for the lists of at most that many literals, as
    ``card=auto`` does)."""
    doms = model.domains

    def pairs(k: int) -> int:
        return k * (k - 1) // 2 if 1 < k and (max_len is None or k <= max_len) else 0

    total = sum(pairs(d.bit_count()) for d in doms)
    groups = [cells for cells, _ in _groups(model)]
    groups += [con.cells for con in model.all_different]
    for cells in groups:
        for v in range(model.n_values):
            total += pairs(sum(1 for c in cells if doms[c] >> v & 1 and doms[c] != 1 << v))
    return total


def _unit_propagate(clauses: Sequence[Sequence[int]], units: list[int]) -> list[int] | None:
    """The literals unit propagation derives from the clauses (None on a conflict)."""
    from pysat.solvers import Solver

    with Solver(name="minisat22", bootstrap_with=[cl for cl in clauses if len(cl) > 1]) as s:
        ok, lits = s.propagate(assumptions=units)
    return lits if ok else None


def _encode(model: Model, domains: Sequence[int], card: str, less: str,
            cage: str = DEFAULT_CAGE, deadline: Deadline | None = None,
            pairwise_max: int = AUTO_PAIRWISE_MAX,
            card_long: str = AUTO_CARD_LONG, nary: str = "auto") -> SatFormulation:
    from pysat.card import CardEnc, EncType
    from pysat.formula import CNF, IDPool

    pool = IDPool()
    clauses: list[list[int]] = []
    unsat = False
    tick = (deadline or Deadline(None)).tick

    def add(clause: Iterable[Lit]) -> None:
        nonlocal unsat
        tick()
        out = []
        for lit in clause:
            if lit is True:
                return
            if lit is not False:
                out.append(lit)
        if not out:
            unsat = True
        else:
            clauses.append(out)

    # direct variables (allocated first, so they are 1..D)
    fixed: dict[int, int] = {}
    cell_vars: list[list[tuple[int, int]]] = []
    var_map: dict[int, tuple[int, int]] = {}
    for c in range(model.n_cells):
        dom = bits(domains[c])
        if len(dom) == 1:
            fixed[c] = dom[0]
            cell_vars.append([])
            continue
        pairs = []
        for v in dom:
            var = pool.id(("x", c, v))
            var_map[var] = (c, v)
            pairs.append((v, var))
        cell_vars.append(pairs)
    lit_of = [dict(pairs) for pairs in cell_vars]

    def x(c: int, v: int) -> Lit:
        if c in fixed:
            return fixed[c] == v
        return lit_of[c].get(v, False)

    used_multi: str | None = None
    used: dict[str, int] = {}

    def encoding(n: int, k: int) -> int:
        name = card_for(card, n, k, pairwise_max, card_long)
        used[name] = used.get(name, 0) + 1
        return int(getattr(EncType, name))

    def exactly(lits: list[int], k: int) -> None:
        nonlocal unsat, used_multi
        n = len(lits)
        tick("encoding", n)
        if k < 0 or k > n:
            unsat = True
        elif k == 0:
            clauses.extend([-lit] for lit in lits)
        elif k == n:
            clauses.extend([lit] for lit in lits)
        elif n == 2 and k == 1:  # the pairwise clauses, whatever the encoding
            used["pairwise"] = used.get("pairwise", 0) + 1
            clauses.extend(([lits[0], lits[1]], [-lits[0], -lits[1]]))
        else:
            if k > 1:
                used_multi = card_for(card, n, k, pairwise_max, card_long)
            clauses.extend(CardEnc.equals(lits, k, vpool=pool,
                                          encoding=encoding(n, k)).clauses)

    for pairs in cell_vars:
        if pairs:
            exactly([var for _, var in pairs], 1)
    for cells, counts in _groups(model):
        for v in range(model.n_values):
            need = 1 if counts is None else counts[v]
            need -= sum(1 for c in cells if fixed.get(c) == v)
            exactly([lit_of[c][v] for c in cells if v in lit_of[c]], need)

    # partial all-different groups (cages): at most one cell per value
    for group in model.all_different:
        for v in range(model.n_values):
            tick()
            held = sum(1 for c in group.cells if fixed.get(c) == v)
            lits = [lit_of[c][v] for c in group.cells if v in lit_of[c]]
            if held > 1:
                unsat = True
            elif held == 1:
                clauses.extend([-lit] for lit in lits)
            elif len(lits) == 2:
                clauses.append([-lits[0], -lits[1]])
            elif len(lits) > 2:
                clauses.extend(CardEnc.atmost(lits, 1, vpool=pool,
                                              encoding=encoding(len(lits), 1)).clauses)

    # binary relations: the support encoding (less: option ``less``)
    for rel in model.binary:
        if rel.kind == "less" and less == "order":
            continue
        fwd, bwd = model.support(rel)
        for v in bits(domains[rel.a]):
            add([_neg(x(rel.a, v))] + [x(rel.b, w) for w in bits(fwd[v] & domains[rel.b])])
        for w in bits(domains[rel.b]):
            add([_neg(x(rel.b, w))] + [x(rel.a, v) for v in bits(bwd[w] & domains[rel.a])])

    if model.less and less == "order":
        ge_cells = sorted({c for con in model.less for c in (con.a, con.b)})
        doms = {c: bits(domains[c]) for c in ge_cells}
        for c in ge_cells:
            for v in doms[c][1:]:
                pool.id(("ge", c, v))

        def ge(c: int, t: int) -> Lit:
            dom = doms[c]
            if t <= dom[0]:
                return True
            if t > dom[-1]:
                return False
            nxt = next(v for v in dom if v >= t)
            return pool.obj2id[("ge", c, nxt)]

        for c in ge_cells:
            dom = doms[c]
            for lo, hi in zip(dom[1:], dom[2:], strict=False):
                add([_neg(ge(c, hi)), ge(c, lo)])
            for i, v in enumerate(dom):
                up = ge(c, dom[i + 1]) if i + 1 < len(dom) else False
                add([_neg(x(c, v)), ge(c, v)])
                add([_neg(x(c, v)), _neg(up)])
                add([_neg(ge(c, v)), up, x(c, v)])
        for con in model.less:
            for t in doms[con.a]:
                add([_neg(ge(con.a, t)), ge(con.b, t + 1)])

    # n-ary relations: a specialised encoding by kind, else the diagram (generic)
    ctx = NaryContext(model, domains, fixed, lit_of, pool, add, exactly,
                      {"cage": cage, "nary": nary})
    for i, rel in enumerate(model.nary):
        tick("encoding", len(rel.cells))
        encoder = NARY_ENCODERS.get(rel.kind)
        if encoder is None or not encoder(ctx, i, rel):
            _nary_diagram(ctx, i, rel)

    cnf = CNF()
    cnf.clauses = clauses
    cnf.nv = pool.top
    return SatFormulation(model, cnf, pool, var_map, cell_vars, fixed, card, less, cage,
                          card_multi=used_multi, trivially_unsat=unsat,
                          pairwise_max=pairwise_max, card_long=card_long,
                          stats={"direct_vars": len(var_map), "card_used": used})


@dataclass
class NaryContext:
    """What an n-ary encoder of :data:`NARY_ENCODERS` gets: the CNF being built.

    Attributes:
        model: The Model.
        domains: The lists of this encoding (the Model's, less what unit
            propagation removed).
        fixed: Cell -> value index, for cells of one value (no variable).
        lit_of: Per cell, value index -> direct variable.
        pool: The :class:`pysat.formula.IDPool` (name auxiliaries by a tuple
            starting with a word of the encoder and the relation's index).
        add: Adds a clause of literals and constants (simplified against them).
        exactly: ``exactly(literals, k)``: a cardinality constraint (option ``card``).
        options: The backend's options (``cage``, ``nary``).
    """

    model: Model
    domains: Sequence[int]
    fixed: dict[int, int]
    lit_of: list[dict[int, int]]
    pool: Any
    add: Callable[[Iterable[Lit]], None]
    exactly: Callable[[list[int], int], None]
    options: dict[str, str]

    def x(self, c: int, v: int) -> Lit:
        """The direct literal of (cell, value index), or a constant."""
        if c in self.fixed:
            return self.fixed[c] == v
        return self.lit_of[c].get(v, False)

    def specialised(self, kind: str) -> bool:
        """Whether option ``nary`` asks for the specialised encoding of ``kind``."""
        how = self.options.get("nary", "auto")
        if how == "auto":
            how = AUTO_NARY.get(kind, "specialised")
        return how == "specialised"


def _nary_cage(ctx: NaryContext, index: int, rel: Relation) -> bool:
    """A cage's sum (option ``cage``; its distinctness is its all-different group)."""
    if ctx.options["cage"] == "pb":
        _cage_pb(ctx.model, rel, ctx.domains, ctx.fixed, ctx.lit_of, ctx.pool, ctx.add)
    else:
        _cage_combinations(ctx.model, index, rel, ctx.domains, ctx.fixed, ctx.x, ctx.pool,
                           ctx.add, ctx.exactly)
    return True


def _nary_visible(ctx: NaryContext, index: int, rel: Relation) -> bool:
    """A Towers clue by the order encoding of the running maximum (module docstring)."""
    if not ctx.specialised(rel.kind):
        return False
    m = ctx.model.n_values
    x, add, pool = ctx.x, ctx.add, ctx.pool
    cells = rel.cells
    top_prev: list[Lit] = []  # top_prev[v]: the cells before hold a value >= v
    seen: list[Lit] = []
    for j, c in enumerate(cells):
        if j:
            lit = pool.id(("seen", index, j))
            seen.append(lit)
            for v in range(m):
                xv = x(c, v)
                if xv is False:
                    continue
                add([_neg(xv), top_prev[v], lit])  # above the maximum so far: seen
                add([_neg(xv), _neg(top_prev[v]), -lit])
        if j + 1 == len(cells):
            break
        top: list[Lit] = [True]
        for v in range(1, m):
            t = pool.id(("top", index, j, v))
            top.append(t)
            at_least = [x(c, w) for w in range(v, m)]
            for lit_w in at_least:
                add([_neg(lit_w), t])
            if j:
                add([_neg(top_prev[v]), t])
                add([-t, top_prev[v], *at_least])
            else:
                add([-t, *at_least])
            add([-t, top[v - 1]])
        top_prev = top
    count = rel.param_map["count"] - 1  # the first cell is always seen
    ctx.exactly(seen, count)
    return True


NARY_ENCODERS: dict[str, Callable[[NaryContext, int, Relation], bool]] = {
    "cage": _nary_cage,
    "visible": _nary_visible,
}
"""Specialised encodings of n-ary kinds, by kind: ``encoder(ctx, index, rel)`` adds
its clauses and answers True, or False to leave the relation to the diagram."""


def _nary_diagram(ctx: NaryContext, index: int, rel: Relation) -> None:
    """The diagram encoding of an n-ary relation (see the module docstring)."""
    d = ctx.model.diagram(rel)
    add, pool = ctx.add, ctx.pool
    if d.empty:
        add([])
        return
    k = d.arity

    def node(level: int, j: int) -> Lit:
        if level == 0 or level == k:
            return True
        return int(pool.id(("dn", index, level, j)))

    out_arcs: list[dict[int, list[Lit]]] = [{} for _ in range(k + 1)]
    in_arcs: list[dict[int, list[Lit]]] = [{} for _ in range(k + 1)]
    for i, arcs in enumerate(d.layers):
        c = rel.cells[i]
        by_label: dict[int, list[Lit]] = {}
        for a, (s, v, t) in enumerate(arcs):
            xv = ctx.x(c, v)
            if xv is False:
                continue
            arc = int(pool.id(("da", index, i, a)))
            add([-arc, node(i, s)])
            add([-arc, node(i + 1, t)])
            add([-arc, xv])
            out_arcs[i].setdefault(s, []).append(arc)
            in_arcs[i + 1].setdefault(t, []).append(arc)
            by_label.setdefault(v, []).append(arc)
        for v in bits(ctx.domains[c]) if c not in ctx.fixed else [ctx.fixed[c]]:
            add([_neg(ctx.x(c, v)), *by_label.get(v, [])])
    for level in range(k + 1):
        for j in range(d.levels[level]):
            here = node(level, j)
            if level < k:
                add([_neg(here), *out_arcs[level].get(j, [])])
            if level > 0:
                add([_neg(here), *in_arcs[level].get(j, [])])


def _cage_combinations(model: Model, index: int, rel: Relation, domains: Sequence[int],
                       fixed: dict[int, int], x: Callable[[int, int], Lit], pool: Any,
                       add: Callable[[Iterable[Lit]], None],
                       exactly: Callable[[list[int], int], None]) -> None:
    """A cage's sum by its admissible label sets (see the module docstring)."""
    held = 0
    for c in rel.cells:
        if c in fixed:
            held |= 1 << fixed[c]
    free = [c for c in rel.cells if c not in fixed]
    reach = 0
    for c in free:
        reach |= domains[c]
    # the sets that hold every fixed label, whose other labels some free cell
    # still has, and that meet every free cell's list
    sets = [k for k in model.combinations(rel)
            if k & held == held and (k & ~held) & ~reach == 0
            and all(domains[c] & k & ~held for c in free)]
    chosen = [pool.id(("comb", index, k)) for k in sets]
    exactly(chosen, 1)
    for k, s in zip(sets, chosen, strict=True):
        for v in bits(k & ~held):
            add([-s] + [x(c, v) for c in free])
    for c in free:
        for v in bits(domains[c]):
            add([_neg(x(c, v))] + [s for k, s in zip(sets, chosen, strict=True) if k >> v & 1])


def _cage_pb(model: Model, rel: Relation, domains: Sequence[int], fixed: dict[int, int],
             lit_of: list[dict[int, int]], pool: Any,
             add: Callable[[Iterable[Lit]], None]) -> None:
    """A cage's sum as the pseudo-Boolean equality ``sum label(v) * x[c,v] = S``.

    Each free cell takes exactly one value, so its labels are shifted by the
    smallest one in its list (weights > 0; the smallest label gets no literal)."""
    from pysat.pb import EncType as PBType
    from pysat.pb import PBEnc

    values = model.int_values
    bound = rel.param_map["sum"]
    lits: list[int] = []
    weights: list[int] = []
    for c in rel.cells:
        if c in fixed:
            bound -= values[fixed[c]]
            continue
        dom = bits(domains[c])
        low = values[dom[0]]
        bound -= low
        for v in dom[1:]:
            lits.append(lit_of[c][v])
            weights.append(values[v] - low)
    if bound < 0 or bound > sum(weights):
        add([])  # no assignment reaches the sum
    elif bound == 0:
        for lit in lits:
            add([-lit])
    else:
        for clause in PBEnc.equals(lits=lits, weights=weights, bound=bound, vpool=pool,
                                   encoding=PBType.best).clauses:
            add(clause)


@cache
def _solver_names() -> tuple[str, ...]:
    """The python-sat solvers that can be created here."""
    from pysat.solvers import Solver, SolverNames

    out = []
    for name in sorted(n for n in vars(SolverNames) if not n.startswith("_")):
        try:
            Solver(name=name).delete()
        except Exception:  # noqa: BLE001 - python-sat built without it
            continue
        out.append(name)
    return tuple(out)


def resolve_solver(name: str, limit: int | None = 1, time_limit: float | None = None,
                   literals: int | None = None) -> str:
    """The solver ``solver=name`` means for a run: ``auto`` picks from :data:`AUTO_SOLVERS`;
    any other name stands.

    Under a time limit, ``auto`` keeps the fastest solvers (``one``/``many``,
    run in a child process killed at the deadline) when the formula has at
    least :data:`AUTO_CHILD_LITERALS` direct literals (``literals``); below
    that, starting a process would cost more than the search, and it picks
    from ``limited`` (solvers python-sat interrupts in this process).

    Example:
        >>> resolve_solver("minisat22"), resolve_solver("auto", 1, 10.0)
        ('minisat22', 'glucose42')
        >>> resolve_solver("auto", 1, 10.0, literals=50_000)
        'kissat404'
    """
    if name != "auto":
        return name
    if time_limit is not None and (literals is None or literals < AUTO_CHILD_LITERALS):
        case = "limited"
    else:
        case = "one" if limit == 1 else "many"
    have = set(_solver_names())
    return next((n for n in AUTO_SOLVERS[case] if n in have), AUTO_SOLVERS[case][-1])


@cache
def can_interrupt(name: str) -> bool:
    """Whether python-sat can interrupt solver ``name`` (``solve_limited`` with
    ``interrupt()``); CaDiCaL, Kissat and Lingeling cannot, so a time limit
    runs them in a child process killed at the deadline.

    Example:
        >>> can_interrupt("glucose42"), can_interrupt("cadical195")
        (True, False)
    """
    from pysat.solvers import Solver

    try:
        solver = Solver(name=name)
    except Exception:  # noqa: BLE001 - an unknown name: _new_solver says so
        return True
    try:
        solver.interrupt()
        solver.clear_interrupt()
        return True
    except NotImplementedError:
        return False
    finally:
        solver.delete()


def free_literals(model: Model) -> int:
    """The direct literals of the encoding before unit propagation: the list sizes
    of the cells not yet decided."""
    return sum(k for k in (d.bit_count() for d in model.domains) if k > 1)


@cache
def _card_size(name: str, n: int, k: int, atmost: bool = False) -> tuple[int, int, int]:
    """(clauses, literals, auxiliary variables) of one cardinality constraint
    encoded with ``name`` (a :data:`CARD_ENCODINGS` name that holds bound ``k``)."""
    if k < 0 or k >= n or n < 2:
        return (n if k == n else 0), (n if k == n else 0), 0
    if n == 2 and k == 1 and not atmost:
        return 2, 4, 0
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    pool = IDPool(start_from=n + 1)
    make = CardEnc.atmost if atmost else CardEnc.equals
    cnf = make(list(range(1, n + 1)), k, vpool=pool, encoding=getattr(EncType, name))
    return len(cnf.clauses), sum(map(len, cnf.clauses)), max(0, pool.top - n)


def estimate_cnf(model: Model, card: str = DEFAULT_CARD, pairwise_max: int = AUTO_PAIRWISE_MAX,
                 card_long: str = AUTO_CARD_LONG) -> tuple[int, int, int]:
    """About how big the CNF of ``model`` is, before building it: (clauses,
    literals, variables), from python-sat's own encodings of one group per
    size (a group's values are assumed to share its free literals evenly;
    the encoding of each by :func:`card_for`). Fast: linear in the cells and groups.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> estimate_cnf(build_model(latin_square(3)))
        (108, 243, 27)
    """
    doms = model.domains
    sizes = [d.bit_count() for d in doms]
    clauses = literals = variables = 0

    def add(n: int, k: int, times: int = 1, atmost: bool = False) -> None:
        nonlocal clauses, literals, variables
        c, lits, aux = _card_size(card_for(card, n, k, pairwise_max, card_long), n, k, atmost)
        clauses += c * times
        literals += lits * times
        variables += aux * times

    for k in sizes:
        if k > 1:
            add(k, 1)
            variables += k
    groups = [(cells, counts) for cells, counts in _groups(model)]
    for cells, counts in groups:
        free = sum(sizes[c] for c in cells if sizes[c] > 1)
        if not free:
            continue
        per_value = max(1, round(free / model.n_values))
        need = 1 if counts is None else max(1, round(sum(counts) / model.n_values))
        add(per_value, min(need, per_value), model.n_values)
    for group in model.all_different:
        free = sum(sizes[c] for c in group.cells if sizes[c] > 1)
        if free:
            add(max(1, round(free / model.n_values)), 1, model.n_values, atmost=True)
    for rel in model.binary:
        a, b = sizes[rel.a], sizes[rel.b]
        clauses += a + b
        literals += 2 * a * b + a + b
    for rel in model.nary:
        held = sum(sizes[c] for c in rel.cells)
        clauses += held * 2
        literals += held * 8
    return clauses, literals, variables


#: Bytes per clause, literal and variable of a CNF held in Python lists and loaded
#: into a solver (measured on Latin squares of order 30-50: pairwise, seqcounter,
#: totalizer; peak resident size within 15% of the estimate).
BYTES_PER_CLAUSE, BYTES_PER_LITERAL, BYTES_PER_VARIABLE = 60, 50, 200

#: Seconds per literal that python-sat spends loading a CNF into a solver (and
#: the unit-propagation pass), which nothing can interrupt in this process
#: (measured: about 0.5 us; three times that, for a loaded machine).
LOAD_S_PER_LITERAL = 1.5e-6


class SatBackend(Backend):
    """SAT through python-sat: direct encoding, exact cover, pysat cardinality encodings."""

    name = "sat"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "unsat", "multiset", "less", "strings",
                              "binary", "nary", "alldifferent"})
    extra = "sat"
    own_child = True
    c_extension = True
    options = (
        Option("card", str, DEFAULT_CARD, CARD_CHOICES,
               "cardinality encoding (python-sat pysat.card); auto = pairwise for lists of at "
               "most pairwise_max literals, card_long for longer ones"),
        Option("pairwise_max", int, AUTO_PAIRWISE_MAX, None,
               "under card=auto, the longest list (cells of a row, values of a cell) encoded "
               "pairwise", min=0),
        Option("card_long", str, AUTO_CARD_LONG, LINEAR_ENCODINGS,
               "under card=auto, the encoding of lists longer than pairwise_max"),
        Option("less", str, DEFAULT_LESS, LESS_ENCODINGS,
               "encoding of inequalities: support clauses or order encoding"),
        Option("cage", str, DEFAULT_CAGE, CAGE_ENCODINGS,
               "encoding of cage sums: admissible label sets or a pseudo-Boolean sum (pysat.pb)"),
        Option("nary", str, "auto", NARY_CHOICES,
               "n-ary kinds with a specialised encoding (visible): specialised, or the generic "
               "diagram encoding; auto = by measurement"),
        Option("simplify", bool, True, None,
               "unit-propagate the CNF and encode again without the values it settles"),
        Option("solver", str, "auto", None,
               "python-sat solver (kissat404, cadical195, glucose42, minisat22, ...); auto = "
               "kissat404 for one solution, cadical195 to enumerate, glucose42 under a time "
               "limit on small formulas"),
    )

    @classmethod
    def available(cls) -> bool | str:
        try:
            import pysat.card  # noqa: F401
            import pysat.solvers  # noqa: F401
        except ImportError:
            return "the python-sat package is not installed"
        return True

    def compile(self, model: Model, /, *, deadline: Deadline | None = None,
                **options: Any) -> SatFormulation:
        """The CNF of ``model`` (options ``card``, ``pairwise_max``, ``card_long``,
        ``less``, ``cage`` and ``simplify``; ``solver`` is ignored); ``deadline`` is
        checked while encoding."""
        opts = self.parse_options(options)
        return encode(model, opts["card"], opts["less"], opts["simplify"], opts["cage"],
                      deadline=deadline, pairwise_max=opts["pairwise_max"],
                      card_long=opts["card_long"], nary=opts["nary"])

    def estimate_mb(self, model: Model, options: dict[str, Any]) -> float | None:
        """The CNF's size in memory, in Python lists and in the solver (see
        :data:`BYTES_PER_CLAUSE`)."""
        clauses, literals, variables = estimate_cnf(model, options["card"],
                                                    options["pairwise_max"], options["card_long"])
        return (clauses * BYTES_PER_CLAUSE + literals * BYTES_PER_LITERAL
                + variables * BYTES_PER_VARIABLE) / 2 ** 20

    @staticmethod
    def _new_solver(name: str, clauses: Sequence[Sequence[int]]) -> Any:
        return _new_solver(name, clauses)

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        from ..procs import run_child

        name = resolve_solver(options["solver"], limit, time_limit, free_literals(model))
        if name not in _solver_names():
            _new_solver(name, [])  # the UsageError naming the solvers there are
        limits = active_limits()
        interruptible = can_interrupt(name)
        child = limits.child or (time_limit is not None and not interruptible)
        if time_limit is not None and not child:  # a load nothing can interrupt here
            literals = estimate_cnf(model, options["card"], options["pairwise_max"],
                                    options["card_long"])[1]
            child = literals * LOAD_S_PER_LITERAL > time_limit
        args = (self, model, limit, time_limit, options, name)
        if not child:
            messages: list[Any] = [("stats", {"solver": name})]
            _sat_run(messages.append, *args)
            return _assemble(model, messages, time_limit)
        wait = None if time_limit is None else time_limit + (KILL_GRACE_S if interruptible else 0)
        out = run_child(_sat_run, args, deadline=wait, memory_limit=limits.memory_limit,
                        name="futocp-sat", reuse=limits.reuse)
        if out.exception is not None or out.error is not None:
            out.raise_for_error(f"backend 'sat' (solver {name})")
        result = _assemble(model, [("stats", {"solver": name}), *out.messages], time_limit)
        result.stats["process"] = "child"
        if out.memory and limits.memory_limit is not None:
            result.stats["reason"] = out.memory_reason(limits.memory_limit)
            if result.status is Status.UNSAT:  # pragma: no cover - unsat was sent before
                result.status = Status.UNKNOWN
        return result


def _new_solver(name: str, clauses: Sequence[Sequence[int]]) -> Any:
    from pysat.solvers import NoSuchSolverError, Solver

    try:
        return Solver(name=name, bootstrap_with=clauses)
    except (NoSuchSolverError, AssertionError):  # AssertionError: its package is missing
        raise UsageError(f"option solver={name!r}: python-sat has no such solver here; "
                         f"choose one of {', '.join(_solver_names())}") from None


def _sat_run(emit: Callable[[Any], None], backend: SatBackend, model: Model,
             limit: int | None, time_limit: float | None, options: dict[str, Any],
             name: str) -> None:
    """Encode and solve, reporting through ``emit`` (in this process, or in a child
    killed at the deadline): ``("phase", what)``, ``("stats", dict)``,
    ``("solution", value indices)``, and ``("done", exhausted, reason)`` at the end
    unless the deadline stopped it first."""
    deadline = Deadline(time_limit)
    emit(("phase", "encoding"))
    try:
        form = backend.compile(model, deadline=deadline, **options)
    except DeadlinePassed:
        return
    stats: dict[str, Any] = {
        "variables": form.n_vars,
        "clauses": form.n_clauses,
        "direct_vars": form.stats["direct_vars"],
        "up_fixed": form.stats["up_fixed"],
        "up_removed": form.stats["up_removed"],
        "card": form.card,
        "card_used": form.stats["card_used"],
        "less": form.less,
        "solver": name,
        "encode_s": form.stats["encode_s"],
    }
    if form.card_multi:
        stats["card_multi"] = form.card_multi
    if model.cages:
        stats["cage"] = form.cage
    emit(("stats", stats))
    if form.trivially_unsat:
        emit(("done", True, "an empty clause after simplification"))
        return
    if not form.cnf.clauses:  # unit propagation decided every cell: no solver is called
        emit(("solution", form.read(())))  # (maplesat crashes on an empty formula)
        emit(("done", True, "unit propagation decides every cell"))
        return
    if deadline.expired():
        return
    emit(("phase", "loading the solver"))
    t1 = time.perf_counter()
    solver = _new_solver(name, form.cnf.clauses)
    load_s = time.perf_counter() - t1
    emit(("stats", {"load_s": load_s, "encode_s": form.stats["encode_s"] + load_s}))
    emit(("phase", "solving"))
    interruptible = can_interrupt(name)
    incremental = not name.startswith(NON_INCREMENTAL)
    blocks: list[list[int]] = []
    found = 0
    exhausted = stopped = False
    calls = 0
    t0 = time.perf_counter()
    try:
        while limit is None or found < limit:
            answer = _call(solver, deadline, interruptible)
            calls += 1
            if answer is None:  # interrupted at the time limit
                stopped = True
                break
            if not answer:
                exhausted = True
                break
            true_vars = {lit for lit in solver.get_model() if lit > 0}
            values = form.read(true_vars)
            emit(("solution", values))
            found += 1
            block = [-var for c, pairs in enumerate(form.cell_vars)
                     for v, var in pairs if v == values[c]]
            if not block:  # every cell is fixed: the only solution
                exhausted = True
                break
            if limit is not None and found >= limit:
                break
            if incremental:
                solver.add_clause(block)
            else:  # Kissat aborts the process on a clause added after a solve
                blocks.append(block)
                solver.delete()
                solver = _new_solver(name, form.cnf.clauses + blocks)
        solve_s = time.perf_counter() - t0
        try:
            acc = solver.accum_stats()
        except NotImplementedError:
            acc = {}
    finally:
        solver.delete()
    final = {"solve_s": solve_s, "sat_calls": calls}
    final.update({k: acc[k] for k in ("conflicts", "decisions", "propagations", "restarts")
                  if k in acc})
    emit(("stats", final))
    if not stopped:
        emit(("done", exhausted, None))


def _call(solver: Any, deadline: Deadline, interruptible: bool = True) -> bool | None:
    """One solve call; None when the deadline interrupted it (or had passed). A
    solver python-sat cannot interrupt runs in a child process, killed at the
    deadline."""
    remaining = deadline.remaining()
    if remaining is None or not interruptible:
        if remaining is not None and remaining <= 0:
            return None
        return solver.solve()
    if remaining <= 0:
        return None
    timer = threading.Timer(remaining, solver.interrupt)
    timer.daemon = True
    timer.start()
    try:
        return solver.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


def _assemble(model: Model, messages: Sequence[Any], time_limit: float | None) -> Result:
    """The Result from what :func:`_sat_run` reported (all of it, or what it sent
    before the deadline stopped it)."""
    from ..procs import read_messages

    phase, stats, solutions, end = read_messages(messages, model.labels_of, "encoding")
    done = end is not None
    exhausted, reason = end or (False, None)
    if not done and time_limit is not None:
        reason = f"time limit of {time_limit:g} s reached while {phase}"
    if reason:
        stats["reason"] = reason
    stats.setdefault("solve_s", 0.0)
    if solutions:
        status = Status.SAT
    elif done and exhausted:
        status = Status.UNSAT
    else:
        status = Status.UNKNOWN
    return Result(status, solutions, stats, exhausted=done and exhausted)
