"""The SAT backend's encodings: the direct encoding of a Model as CNF (or OPB).

Part of :mod:`futocp.backends.sat` (its names are re-exported there, which
describes the encodings): the exact-cover cardinality constraints, the
relation encodings (``less``, binary supports, cages, ``visible``, the
generic diagram), and the size estimates of a formula.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from ..errors import UnsupportedError, UsageError
from ..model import Model
from ..propagate import bits
from ..relations import Relation
from .base import Deadline

__all__ = ["SatFormulation", "CARD_ENCODINGS", "CARD_CHOICES", "LINEAR_ENCODINGS",
           "LESS_ENCODINGS", "CAGE_ENCODINGS", "DEFAULT_CARD", "DEFAULT_LESS", "DEFAULT_CAGE",
           "AMO_ONLY", "MULTI_FALLBACK", "NARY_ENCODERS", "NARY_CHOICES", "AUTO_NARY",
           "NaryContext", "AUTO_PAIRWISE_MAX", "AUTO_CARD_LONG", "MAX_PAIRWISE_CLAUSES", "Lit",
           "encode", "card_for", "pairwise_size", "pb_available", "estimate_cnf", "free_literals",
           "permute_cnf", "LIST_CHOICES", "given_lists"]

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

LIST_CHOICES = ("filtered", "givens")
"""What the direct variables stand for (argument ``lists`` of :func:`encode`):
``filtered``, the Model's lists (after its filtering; then ``simplify``);
``givens``, the lists the givens alone leave (:func:`given_lists`: the textbook
3-D CNF's variables), with what the Model's filtering settled appended as unit
clauses after every constraint."""

DEFAULT_CARD = "auto"
DEFAULT_LESS = "support"
DEFAULT_CAGE = "combinations"

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
            per encoding, and from :func:`encode` ``encode_s``, ``up_fixed``, ``up_removed``,
            ``list_units``).
        units: Under ``lists=givens``, the unit clauses (last in :attr:`cnf`) that
            restrict the variables to the Model's lists.
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
    units: list[int] = field(default_factory=list)

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
        for unit in self.units:  # lists=givens: the Model's lists
            emit([(1, abs(unit))], "=", int(unit > 0))
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
           card_long: str = AUTO_CARD_LONG, nary: str = "auto",
           lists: str = "filtered") -> SatFormulation:
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
        lists: What the direct variables stand for (a :data:`LIST_CHOICES` name):
            ``filtered``, the Model's lists; ``givens``, the lists of
            :func:`given_lists`, then a unit clause per value the Model's
            filtering removed or fixed, after every other clause (``simplify``
            is not run: the solver's root propagation does it). Both formulas
            have the same solutions; on a Latin square ``givens`` is the
            textbook 3-D CNF and its search, plus units the search starts from.

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
    if lists not in LIST_CHOICES:
        raise UsageError(f"unknown lists choice {lists!r}; choose one of {', '.join(LIST_CHOICES)}")
    if cage == "pb" and model.cages:
        ok = pb_available()
        if ok is not True:
            raise UnsupportedError(f"cage=pb: {ok}; or use cage=combinations")
    t0 = time.perf_counter()
    domains = given_lists(model) if lists == "givens" else list(model.domains)
    clues = frozenset(con.cell for con in model.fixed) if lists == "givens" else None
    if card in ("pairwise", "auto"):
        size = pairwise_size(model, None if card == "pairwise" else pairwise_max, domains)
        if size > MAX_PAIRWISE_CLAUSES:
            what = "card=pairwise" if card == "pairwise" else f"pairwise_max={pairwise_max}"
            raise UnsupportedError(
                f"{what} would write about {size:,} pairwise clauses (more than "
                f"{MAX_PAIRWISE_CLAUSES:,}); use card=auto (default pairwise_max="
                f"{AUTO_PAIRWISE_MAX}) or a linear encoding such as card=seqcounter")
    deadline = deadline or Deadline(None)

    def again() -> SatFormulation:
        return _encode(model, domains, card, less, cage, deadline, pairwise_max, card_long, nary,
                       clues)

    form = again()
    if lists == "givens":
        form.units = _list_units(form, model.domains)
        form.cnf.clauses.extend([unit] for unit in form.units)
        simplify = False
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
                      up_removed=up_removed, list_units=len(form.units))
    return form


def given_lists(model: Model) -> list[int]:
    """Per cell, the values its givens alone leave (bit sets of value indices): a
    cell with a clue (a :class:`~futocp.model.Fixed` constraint) its value, any
    other cell every value but those of the clues in its permutation and
    all-different groups, and never less than the Model's list. On a Latin square
    these are the variables of the textbook 3-D CNF.

    Example:
        >>> from futocp.families import latin_square
        >>> from futocp.model import build_model
        >>> m = build_model(latin_square(3, [[1, 0, 0], [0, 2, 0], [0, 0, 0]]))
        >>> given_lists(m)[:3], m.domains[:3]
        ([1, 4, 6], (1, 4, 2))
    """
    lists = [(1 << model.n_values) - 1] * model.n_cells
    clue = [False] * model.n_cells
    for con in model.fixed:
        lists[con.cell] = 1 << con.value
        clue[con.cell] = True
    groups = [con.cells for con in model.permutations] + [con.cells for con in model.all_different]
    for cells in groups:
        used = 0
        for c in cells:
            if clue[c]:
                used |= lists[c]
        for c in cells:
            if not clue[c]:
                lists[c] &= ~used
    return [mine | theirs for mine, theirs in zip(lists, model.domains, strict=True)]


def _list_units(form: SatFormulation, domains: Sequence[int]) -> list[int]:
    """The unit literals that restrict ``form``'s direct variables to ``domains``:
    per cell in order, its value if ``domains`` fixes it, else the values it removes."""
    units = []
    for c, pairs in enumerate(form.cell_vars):
        for v, var in pairs:
            if domains[c] == 1 << v:
                units.append(var)
            elif not domains[c] >> v & 1:
                units.append(-var)
    return units


def pairwise_size(model: Model, max_len: int | None = None,
                  domains: Sequence[int] | None = None) -> int:
    """How many at-most-one clauses ``card=pairwise`` writes for the cells and groups
    (with ``max_len``, only for the lists of at most that many literals, as
    ``card=auto`` does; ``domains`` for other lists than the Model's)."""
    doms = model.domains if domains is None else domains

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
            card_long: str = AUTO_CARD_LONG, nary: str = "auto",
            clues: frozenset[int] | None = None) -> SatFormulation:
    """The CNF of ``model`` over ``domains``: a cell of one value is a constant,
    or with ``clues``, only those cells are (the others keep their variables)."""
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
        if len(dom) == 1 and (clues is None or c in clues):
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


def permute_cnf(clauses: list[list[int]], n_vars: int, seed: int
                ) -> tuple[list[list[int]], list[int], list[int]]:
    """The same formula renumbered: variables permuted, clauses and their literals
    reordered, by ``seed`` (0: unchanged). A deterministic CDCL solver (Kissat,
    CaDiCaL) takes another search path on it; on QWH the run time of one formula
    spreads over two orders of magnitude across such permutations
    (``benchmarks/cnf_textbook.py``).

    The unit clauses come last, by their new variable number: so a formula and the
    same formula with more unit clauses after it (``lists=givens``) get the same
    permutation of what they share, and a solver's search on both stays the same
    (units loaded before the clauses they settle make CaDiCaL simplify those as it
    loads them: another search path).

    Returns:
        ``(clauses, to_new, back)``: ``to_new[v]`` is old variable v's new number,
        ``back[w]`` new variable w's old one (index 0 unused); seed 0 gives the
        clauses themselves (not a copy) and the identity.

    Example:
        >>> cls, to_new, back = permute_cnf([[1, -2], [2, 3]], 3, seed=5)
        >>> sorted(sorted(back[abs(x)] * (1 if x > 0 else -1) for x in c) for c in cls)
        [[-2, 1], [2, 3]]
        >>> permute_cnf([[1, -2]], 2, 0)
        ([[1, -2]], [0, 1, 2], [0, 1, 2])
    """
    import random

    ident = list(range(n_vars + 1))
    if not seed:
        return clauses, ident, ident
    rng = random.Random(seed)
    perm = ident[1:]
    rng.shuffle(perm)
    to_new = [0, *perm]
    back = [0] * (n_vars + 1)
    for old, new in enumerate(to_new):
        back[new] = old
    out = [[to_new[lit] if lit > 0 else -to_new[-lit] for lit in cl] for cl in clauses]
    for cl in out:
        rng.shuffle(cl)
    longer = [cl for cl in out if len(cl) != 1]
    rng.shuffle(longer)
    units = sorted((cl for cl in out if len(cl) == 1), key=lambda cl: abs(cl[0]))
    return longer + units, to_new, back


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
