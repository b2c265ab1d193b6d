"""The standing cross-check campaign: random boards x every backend x option variants.

    python benchmarks/campaign.py --count 10000 --seed 1 --out campaign-out --jobs 2
    python benchmarks/campaign.py --limits --out limits-out        # time-limit overshoots
    python benchmarks/campaign.py --replay campaign-out/repro/000123-sat-card=ladder.json

Every board is drawn from one ``random.Random`` seeded by ``(seed, index)``, so
board *i* of a campaign is the same whatever ``--count`` and ``--jobs``. Board
*i* is of the family ``i mod F`` (every family of :func:`futocp.families.list_families`,
plus ``board``, a general Latin board without a grid), with small parameters
(3x3 to 6x6 grids, 4x4 and 6x6 Sudoku boxes, random multisets and words, random
jigsaw regions; the fixed families -- Hypersudoku, the Latin triangles -- with
most cells given). A hidden solution is found by the campaign's own oracle;
relations of every kind the family allows are drawn at random (true in the
hidden solution, or not: some boards are unsatisfiable), then givens from the
hidden solution (now and then one of them changed).

Every complete backend of the REGISTRY runs on every board with its defaults
and one option variant (``--variants rotate``, cycling through the variants
from board to board: each option with ``choices`` or a bool type, one at a
time against the defaults, ``filtering=none``, ``filtering=gac``, ``workers=2``
for a parallel search, and every python-sat solver for ``sat``), or with all its variants
(``--variants all``). Incomplete backends run once per board, their variants
in turn, with a shorter time limit. All the runs of a
board happen in one isolated process (:func:`futocp.experiments.isolate.run_isolated`);
when that process crashes or hangs, each run is repeated in a process of its
own, so a crash of a solver's C code is recorded as ``error`` against the run
that caused it and never stops the campaign.

Every solution goes through :func:`futocp.verify.verify`; statuses and
solution counts (up to ``--limit``) are compared with the oracle of
``benchmarks/campaign_oracle.py``, a plain backtracking counter that shares
nothing with the Model or the backends. A complete backend disagrees when it
returns a solution that fails verification or twice the same solution, says
``unsat`` where the oracle found a solution, or claims a finished search whose
count differs from the oracle's; an incomplete backend disagrees when it says
``unsat`` from its own search (the base class answers ``unsat`` for every
backend when the model's clue check or list filtering proves it). Each disagreement and each crash gets a reproducer JSON file
under ``OUT/repro/`` (the board as futocp JSON, the backend, options, what it
said and what the oracle said); ``--replay FILE`` runs it again.

Printed: one row per backend (runs, agreements, disagreements, wrong
solutions, incomplete-unsat, crashes, refusals, unknown answers, and the
largest ``elapsed - time limit``); written: ``OUT/summary.json``.

``--limits`` measures instead how long each backend overruns ``--time-limit``
(default 1 s) on hard instances: empty Latin squares of order 20, 25 and 30
enumerated, QWH instances of ``instances/qwh/``, an empty 16x16 Sudoku
enumerated and a 16x16 critical Sudoku. Each run is isolated; its elapsed time
is measured around ``build_model`` and ``solve`` in the run's process (what a
caller of the API waits) and, as a cross-check, by the parent.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from futocp.backends import REGISTRY
from futocp.board import Board
from futocp.errors import BackendUnavailable, BoardError, UnsupportedError, UsageError
from futocp.families import Family, get_family, kind_of_key, list_families, neighbour_pairs
from futocp.relations import RELATIONS, Relation, RelationKind

try:
    from .campaign_oracle import count_solutions, find_solution
except ImportError:  # run as a script (python benchmarks/campaign.py): its folder is on sys.path
    from campaign_oracle import count_solutions, find_solution  # type: ignore[no-redef]

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["Case", "Spec", "make_case", "backend_variants", "plan_specs", "run_board",
           "evaluate", "Campaign", "run_campaign", "limits_campaign", "main", "GENERAL"]

GENERAL = "board"
"""The pseudo-family of general Latin boards (no grid, explicit asterisms)."""

SKIP_OPTIONS = frozenset({"log", "workers", "binary"})
"""Options not varied by their choices: console output, a path to an executable, and
``workers`` (an int: the variants set it to 2 once, the parallel search)."""

SIZE_CHOICES = (3, 4, 4, 5, 5)
BOX_CHOICES = ((2, 2), (2, 2), (2, 2), (2, 3), (1, 3))
FREE_CELLS = {1: 1, 2: 4, 3: 9, 4: 16, 5: 20, 6: 22}
"""Most cells left empty, by asterism size (larger: 24): the oracle must be able to count."""


# ====================================================================== boards
@dataclass
class Case:
    """One board of the campaign.

    Attributes:
        index: Its number in the campaign.
        family: The family name (``board`` for a general Latin board).
        board: The board.
        notes: How it was drawn (parameters, truthful relations, a changed given...).
    """

    index: int
    family: str
    board: Board
    notes: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


class _Retry(Exception):
    pass


def campaign_families() -> list[str]:
    """Every family name of ``models/``, then ``board``."""
    return [fam.name for fam in list_families()] + [GENERAL]


def _rng(seed: int, index: int, salt: str = "") -> random.Random:
    return random.Random(f"futocp-campaign:{seed}:{index}:{salt}")


def _random_multiset(n: int, rng: random.Random, strings: bool) -> list[Any]:
    distinct = rng.randint(min(2, n), n)
    pool = list("ABCDEFGHJKLMNPQRSTUVWXYZ") if strings else list(range(1, 10))
    chosen = sorted(rng.sample(pool, distinct)) if strings else sorted(rng.sample(pool, distinct))
    labels = list(chosen)
    while len(labels) < n:
        labels.append(rng.choice(chosen))
    return sorted(labels)


def _random_regions(n: int, rng: random.Random) -> list[list[int]]:
    """A partition of the n x n grid into n regions of n cells (connected when the
    random growth manages, otherwise any)."""
    for _ in range(30):
        owner = [-1] * (n * n)
        seeds = rng.sample(range(n * n), n)
        sizes = [1] * n
        for r, s in enumerate(seeds):
            owner[s] = r
        stuck = False
        while not stuck and min(sizes) < n or any(o < 0 for o in owner):
            stuck = True
            order = [r for r in range(n) if sizes[r] < n]
            rng.shuffle(order)
            for r in order:
                frontier = [c for c in range(n * n) if owner[c] < 0 and any(
                    owner[x] == r for x in _grid_neighbours(c, n))]
                if frontier:
                    owner[rng.choice(frontier)] = r
                    sizes[r] += 1
                    stuck = False
            if stuck:
                break
        if all(o >= 0 for o in owner) and all(s == n for s in sizes):
            return [owner[r * n:(r + 1) * n] for r in range(n)]
    cells = list(range(n * n))
    rng.shuffle(cells)
    owner = [0] * (n * n)
    for i, c in enumerate(cells):
        owner[c] = i // n
    return [owner[r * n:(r + 1) * n] for r in range(n)]


def _grid_neighbours(c: int, n: int) -> list[int]:
    r, col = divmod(c, n)
    out = []
    if r > 0:
        out.append(c - n)
    if r + 1 < n:
        out.append(c + n)
    if col > 0:
        out.append(c - 1)
    if col + 1 < n:
        out.append(c + 1)
    return out


def _small_params(fam: Family, rng: random.Random) -> dict[str, Any]:
    """Small random parameters for a family (unknown kinds of parameter keep their default)."""
    out: dict[str, Any] = {}
    n: int | None = None
    for p in fam.params.values():
        if p.type == "int":
            lo = p.min if p.min is not None else 1
            hi = p.max if p.max is not None else 10 ** 6
            choices = [s for s in SIZE_CHOICES if lo <= s <= hi]
            if fam.size_expr == p.name and choices:
                out[p.name] = n = rng.choice(choices)
            elif p.default is None and not p.optional:
                out[p.name] = lo
        elif p.type == "box":
            out[p.name] = box = rng.choice(BOX_CHOICES)
            n = box[0] * box[1]
        elif p.type == "bool":
            out[p.name] = rng.random() < 0.5
        elif p.type == "choice" and not p.optional:
            out[p.name] = rng.choice(p.choices)
    if n is None:
        n = rng.choice((4, 4, 5))
    for p in fam.params.values():
        if p.type == "multiset":
            out[p.name] = _random_multiset(n, rng, strings=rng.random() < 0.4)
        elif p.type == "word":
            out[p.name] = "".join(_random_multiset(n, rng, strings=True))
        elif p.type == "regions":
            out[p.name] = _random_regions(n, rng)
    return out


def _general_template(rng: random.Random) -> Board:
    """A general Latin board: the rows and columns of a k x k square (broken
    diagonals too, for odd k, sometimes), cells numbered at random, no grid."""
    k = rng.choice((3, 4, 4, 5))
    perm = list(range(k * k))
    rng.shuffle(perm)
    asterisms = [[perm[r * k + c] for c in range(k)] for r in range(k)]
    asterisms += [[perm[r * k + c] for r in range(k)] for c in range(k)]
    if k % 2 and rng.random() < 0.5:
        asterisms += [[perm[r * k + (r + d) % k] for r in range(k)] for d in range(k)]
    labels = _random_multiset(k, rng, strings=rng.random() < 0.5)
    return Board(k * k, asterisms, labels, kind=GENERAL)


def _pick_pair(template: Board, mode: str, used: set[tuple[int, int]], rng: random.Random
               ) -> tuple[int, int] | None:
    grid_pairs = neighbour_pairs(template) if template.shape is not None else []
    for _ in range(40):
        if mode == "neighbours" or (grid_pairs and rng.random() < 0.7):
            if not grid_pairs:
                return None
            a, b = rng.choice(grid_pairs)
        else:
            a, b = rng.sample(range(template.n_cells), 2)
        key = (min(a, b), max(a, b))
        if key not in used:
            used.add(key)
            return a, b
    return None


def _pick_group(template: Board, mode: str, taken: set[int], rng: random.Random
                ) -> list[int] | None:
    size = rng.choice((2, 2, 3, 3, 4))
    free = [c for c in range(template.n_cells) if c not in taken]
    if len(free) < 2:
        return None
    if mode == "lines" and template.shape is not None:  # a whole row or column, from one end
        rows, cols = template.shape
        lines = [[r * cols + c for c in range(cols)] for r in range(rows)]
        lines += [[r * cols + c for r in range(rows)] for c in range(cols)]
        lines = [line for line in lines if not taken & set(line)]
        if not lines:
            return None
        line = rng.choice(lines)
        return line[::-1] if rng.random() < 0.5 else line
    if mode == "neighbours" and template.shape is not None:
        rows, cols = template.shape
        group = [rng.choice(free)]
        while len(group) < size:
            options = []
            for c in group:
                r, col = divmod(c, cols)
                for rr, cc in ((r - 1, col), (r + 1, col), (r, col - 1), (r, col + 1)):
                    x = rr * cols + cc
                    if 0 <= rr < rows and 0 <= cc < cols and x not in taken and x not in group:
                        options.append(x)
            if not options:
                break
            group.append(rng.choice(options))
        return group if len(group) >= 2 else None
    return rng.sample(free, min(size, len(free)))


def _params_for(spec: RelationKind, values: Sequence[Any], truthful: bool, rng: random.Random
                ) -> tuple[tuple[str, Any], ...] | None:
    """Parameters for a relation over labels ``values`` (one true for them when
    ``truthful``; None when there is none), for kinds with at most one integer
    parameter besides word parameters (``choices``: one word drawn, among those
    the relation's shape allows: a Keen ``-`` on two cells only)."""
    if not spec.params:
        return ()
    words = {k: rng.choice(v) for k, v in spec.choices}
    numbers = [p for p in spec.params if p not in words]
    if len(numbers) > 1:
        return None
    if not numbers:
        return tuple(sorted(words.items()))
    name = numbers[0]
    if spec.param_problem(len(values), {**words, name: 0}) is not None:
        return None  # these words do not fit this many cells
    span = sum(abs(v) for v in values) + 2 * len(values) + 2
    if words.get("op") == "*":  # a product reaches further than a sum
        span = max(span, abs(math.prod(values)) + 2)
    good = [x for x in range(-span, span + 1) if _holds(spec, values, {**words, name: x})]
    if truthful:
        chosen = rng.choice(good) if good else None
    elif good and rng.random() < 0.7:  # near a true value, off by a little (often false)
        chosen = rng.choice(good) + rng.choice((-2, -1, 1, 2))
    else:
        chosen = rng.randint(0, span)
    if chosen is None:
        return None
    params = {**words, name: chosen}
    if spec.param_problem(len(values), params) is not None:
        return None  # out of the kind's range (a visible count past the line)
    return tuple(sorted(params.items()))


def _holds(spec: RelationKind, values: Sequence[Any], params: dict[str, Any]) -> bool:
    try:
        return bool(spec.holds(tuple(values), params))
    except (TypeError, KeyError, ValueError):
        return False


def _draw_relations(template: Board, fam: Family | None, hidden: Sequence[Any],
                    rng: random.Random, notes: dict[str, Any]) -> list[Relation]:
    integer = isinstance(template.labels[0], int)
    kinds = []
    for name, spec in RELATIONS.items():
        if spec.integer and not integer:
            continue
        mode = fam.relation_mode(name) if fam is not None else "any"
        if mode == "none" or (mode == "neighbours" and template.shape is None):
            continue
        kinds.append(name)
    used: set[tuple[int, int]] = set()
    rels: list[Relation] = []
    if fam is not None and fam.completes(template.params) and rng.random() < 0.75:
        # a family that derives relations for unmarked neighbours (Tatham's adjacent
        # mode, complete Kropki): mark every pair the hidden solution needs marked
        rels += _marks(fam, template, hidden, used, rng)
        notes["marked"] = len(rels)
        if rels and rng.random() < 0.2:
            rels.pop(rng.randrange(len(rels)))  # one mark missing: often unsatisfiable
            notes["mark_dropped"] = True
    if not kinds or rng.random() < 0.25:
        notes["relations"] = "none"
        return rels
    chosen = [rng.choice(kinds)] if rng.random() < 0.5 else rng.sample(kinds, min(len(kinds), rng.randint(2, 3)))
    own = [k for k in map(kind_of_key, (fam.spec.get("lists") or []) if fam is not None else [])
           if k in kinds and k not in chosen]
    if own and rng.random() < 0.8:  # the family's own kinds (Keen's cages, Towers' clues) mostly
        chosen += own
    truthful_board = rng.random() < 0.65
    notes["relations"] = "truthful" if truthful_board else "random"
    notes["kinds"] = sorted(chosen)
    count = rng.randint(1, max(2, template.n_cells // 3))
    rank = list(range(template.n_cells))
    rng.shuffle(rank)
    taken: dict[str, set[int]] = defaultdict(set)
    count += len(rels)
    for _ in range(count * 3):
        if len(rels) >= count:
            break
        kind = rng.choice(chosen)
        spec = RELATIONS[kind]
        mode = fam.relation_mode(kind) if fam is not None else "any"
        truthful = truthful_board or rng.random() < 0.5
        if spec.binary:
            pair = _pick_pair(template, mode, used, rng)
            if pair is None:
                continue
            a, b = pair
            if not spec.symmetric:
                if spec.acyclic and not truthful:
                    a, b = (a, b) if rank[a] < rank[b] else (b, a)
                elif truthful and not _holds(spec, (hidden[a], hidden[b]), {}) and \
                        _holds(spec, (hidden[b], hidden[a]), {}):
                    a, b = b, a
            cells: list[int] = [a, b]
        else:
            group = _pick_group(template, mode, taken[kind] if spec.exclusive else set(), rng)
            if group is None:
                continue
            cells = group
        params = _params_for(spec, [hidden[c] for c in cells], truthful, rng)
        if params is None:
            continue
        rel = Relation(kind, tuple(cells), params)
        if truthful and not rel.holds([hidden[c] for c in cells]):
            continue
        if spec.exclusive:
            taken[kind].update(cells)
        rels.append(rel)
    return rels


_BASE_SOLUTIONS: dict[Board, tuple[Any, ...] | None] = {}


def _hidden_solution(template: Board, rng: random.Random) -> tuple[Any, ...]:
    """A random solution of an (empty) template, by the oracle's randomised search;
    for a template that search does not fill quickly (the 64-cell triangle), a
    solution found once, with its labels permuted at random (when the template
    has no clues, any permutation of labels of equal multiplicity is one)."""
    if template.clues or template.n_cells < 50:
        hidden = find_solution(template, rng, budget=20_000)
        if hidden is None:
            raise _Retry("no hidden solution")
        return hidden
    if template not in _BASE_SOLUTIONS:
        base = None
        for attempt in range(300):  # short restarts: the search's run times are heavy-tailed
            base = find_solution(template, random.Random(attempt), budget=2_000)
            if base is not None:
                break
        _BASE_SOLUTIONS[template] = base
    base = _BASE_SOLUTIONS[template]
    if base is None:
        raise _Retry("no hidden solution")
    mult = Counter(template.labels)
    perm: dict[Any, Any] = {}
    for m in set(mult.values()):
        same = [v for v in template.values if mult[v] == m]
        shuffled = same[:]
        rng.shuffle(shuffled)
        perm.update(zip(same, shuffled, strict=True))
    return tuple(perm[v] for v in base)


def _marks(fam: Family, template: Board, hidden: Sequence[Any], used: set[tuple[int, int]],
           rng: random.Random) -> list[Relation]:
    """For a family whose ``complete`` rule relates every unmarked pair of neighbours:
    a mark (a relation of an ``unless`` kind) on every pair where one holds in ``hidden``."""
    rule = fam.complete_rule or {}
    unless = [kind_of_key(k) or k for k in rule.get("unless") or ()]
    unless = [k for k in unless if k in RELATIONS and fam.relation_mode(k) != "none"]
    out = []
    for a, b in neighbour_pairs(template):
        holding = [k for k in unless if _holds(RELATIONS[k], (hidden[a], hidden[b]), {})]
        if not holding:
            continue
        kind = rng.choice(holding)
        used.add((a, b))
        out.append(Relation(kind, (a, b)))
    return out


def _free_budget(k: int) -> int:
    return FREE_CELLS.get(k, 24)


def _draw(name: str, rng: random.Random) -> tuple[Board, dict[str, Any]]:
    notes: dict[str, Any] = {}
    if name == GENERAL:
        fam = None
        params: dict[str, Any] = {}
        template = _general_template(rng)
    else:
        fam = get_family(name)
        params = _small_params(fam, rng)
        template = fam.template(params)
        notes["params"] = {k: v for k, v in template.params}
    hidden = _hidden_solution(template, rng)
    rels = _draw_relations(template, fam, hidden, rng, notes)
    n = template.n_cells
    fixed = set(template.inscription)
    low = max(0, n - _free_budget(template.k) - len(fixed))
    high = max(low, int(0.55 * n) - len(fixed))
    count = rng.randint(low, high)
    open_cells = [c for c in range(n) if c not in fixed]
    cells = rng.sample(open_cells, min(count, len(open_cells)))
    clues = {c: hidden[c] for c in cells}
    clues.update(template.clue_map)
    if cells and rng.random() < 0.12:
        c = rng.choice(cells)
        other = [v for v in template.values if v != hidden[c]]
        if other:
            clues[c] = rng.choice(other)
            notes["changed_given"] = c
    notes["givens"] = len(clues)
    if fam is None:
        board = Board(n, template.asterisms, template.labels, clues=tuple(clues.items()),
                      relations=rels, kind=GENERAL)
    else:
        layout = fam.layout(template)
        givens = [[clues.get(c) for c in row] for row in layout]
        board = fam.build(givens, relations=rels, **params)
    return board, notes


def make_case(seed: int, index: int, families: Sequence[str] | None = None) -> Case:
    """Board ``index`` of the campaign ``seed`` (of family ``families[index % len]``).

    Raises:
        RuntimeError: when no board of the family could be drawn (30 attempts).
    """
    families = list(families or campaign_families())
    name = families[index % len(families)]
    last = ""
    for attempt in range(30):
        rng = _rng(seed, index, str(attempt))
        try:
            board, notes = _draw(name, rng)
        except (BoardError, _Retry) as exc:
            last = str(exc)
            continue
        return Case(index, name, board, notes, seed)
    raise RuntimeError(f"campaign board {index} ({name}): no board drawn: {last}")


# ====================================================================== runs
@dataclass(frozen=True)
class Spec:
    """One run: a backend with options on a model built with ``filtering``."""

    backend: str
    variant: str
    options: tuple[tuple[str, Any], ...] = ()
    filtering: str = "lists"
    limit: int = 5
    time_limit: float = 10.0
    seed: int | None = None


def _sat_solvers() -> list[str]:
    try:
        from pysat.solvers import SolverNames
    except ImportError:
        return []
    return sorted({(key if key in names else names[-1]) for key, names in vars(SolverNames).items()
                   if not key.startswith("_") and isinstance(names, tuple) and names})


def backend_variants(name: str, solvers: bool = True
                     ) -> list[tuple[str, tuple[tuple[str, Any], ...], str]]:
    """``(label, options, filtering)`` for a backend: its defaults first, then
    ``filtering=none`` and ``filtering=gac``, then each option with choices (or a bool) set to each other
    value, one at a time; for ``sat`` with ``solvers`` also each python-sat solver
    (option ``solver`` declares no choices: they are whatever python-sat names)."""
    cls = REGISTRY[name]
    out: list[tuple[str, tuple[tuple[str, Any], ...], str]] = [("default", (), "lists"),
                                                                ("filtering=none", (), "none"),
                                                                ("filtering=gac", (), "gac")]
    for opt in cls.options:
        if opt.name in SKIP_OPTIONS:
            continue
        values: Iterable[Any] = opt.choices if opt.choices is not None else \
            ((True, False) if opt.type is bool else ())
        for value in values:
            if value != opt.default:
                out.append((f"{opt.name}={value}", ((opt.name, value),), "lists"))
    for opt in cls.options:
        if opt.name == "workers" and opt.type is int and opt.default == 1:
            out.append(("workers=2", (("workers", 2),), "lists"))  # the parallel search
    if solvers and name == "sat" and any(o.name == "solver" for o in cls.options):
        for solver in _sat_solvers():
            out.append((f"solver={solver}", (("solver", solver),), "lists"))
    return out


def plan_specs(case: Case, backends: Sequence[str], variants: str, n_families: int,
               limit: int, time_limit: float, incomplete_time_limit: float,
               every: Mapping[str, int] | None = None, solvers: bool = True) -> list[Spec]:
    """The runs of one board: per backend its defaults and, by ``variants``, one
    variant in turn (``rotate``), all (``all``) or none (``defaults``); an
    incomplete backend runs once per board under ``rotate`` (its variants in turn,
    defaults included), with ``incomplete_time_limit``.

    ``every`` thins out slow backends: ``{"minizinc": 10}`` runs minizinc on one
    board in 10, drawn at random (from the board's seed and index)."""
    specs = []
    for name in backends:
        cls = REGISTRY[name]
        k = (every or {}).get(name, 1)
        if k > 1 and _rng(case.seed, case.index, f"every:{name}").randrange(k):
            continue
        seed = case.index if "seed" in cls.capabilities else None
        allv = backend_variants(name, solvers)
        turn = case.index // max(1, n_families)
        if variants == "all":
            chosen = allv
        elif variants == "rotate" and not cls.complete:
            chosen = [allv[turn % len(allv)]]  # one run per board: they spend their time limit
        elif variants == "rotate" and len(allv) > 1:
            chosen = [allv[0], allv[1 + turn % (len(allv) - 1)]]
        else:
            chosen = allv[:1]
        seconds = time_limit if cls.complete else incomplete_time_limit
        for label, options, filtering in chosen:
            specs.append(Spec(name, label, options, filtering, limit, seconds, seed))
    return specs


def _solve_one(board: Board, spec: Spec, models: dict[str, Any]) -> dict[str, Any]:
    """Run one spec in this process; never raises."""
    from futocp.backends import get_backend
    from futocp.model import build_model
    from futocp.verify import verify

    rec: dict[str, Any] = {"status": "error", "n": 0, "exhausted": False, "elapsed": 0.0,
                           "limit": spec.limit}
    try:
        if spec.filtering not in models:
            models[spec.filtering] = build_model(board, filtering=spec.filtering)
        model = models[spec.filtering]
        rec["conflict"] = model.conflict is not None
        backend = get_backend(spec.backend)
        kwargs = dict(spec.options)
        limit = spec.limit
        t0 = time.perf_counter()
        try:
            result = backend.solve(model, limit=limit, time_limit=spec.time_limit,
                                   seed=spec.seed, **kwargs)
        except UnsupportedError:
            if limit == 1:
                raise
            limit = 1  # a variant that finds one solution per run (minconflicts)
            t0 = time.perf_counter()
            result = backend.solve(model, limit=1, time_limit=spec.time_limit, seed=spec.seed,
                                   **kwargs)
        rec["elapsed"] = time.perf_counter() - t0
    except (UnsupportedError, BackendUnavailable, UsageError) as exc:
        rec.update(status="refused", reason=f"{type(exc).__name__}: {exc}")
        return rec
    except Exception as exc:  # noqa: BLE001 - every failure is a finding
        rec.update(status="error", reason=f"{type(exc).__name__}: {exc}")
        return rec
    sols = [tuple(s) for s in result.solutions]
    bad = []
    for s in sols:
        violations = verify(board, s)
        if violations:
            bad.append({"solution": list(s), "violation": str(violations[0])})
    rec.update(status=result.status.value, n=len(sols), exhausted=bool(result.exhausted),
               limit=limit, wrong=bad, duplicates=len(sols) - len(set(sols)),
               solutions=[list(s) for s in sols[:5]])
    return rec


def run_board(payload: dict[str, Any]) -> dict[str, Any]:
    """Worker (in an isolated process): the oracle, then every spec of the board."""
    board: Board = payload["board"]
    out: dict[str, Any] = {}
    if payload.get("oracle"):
        cap, budget = payload["oracle"]
        t0 = time.perf_counter()
        ans = count_solutions(board, cap=cap, budget=budget)
        out["oracle"] = ans.to_dict() | {"seconds": time.perf_counter() - t0}
    models: dict[str, Any] = {}
    out["runs"] = [_solve_one(board, spec, models) for spec in payload["specs"]]
    return out


def _oracle_only(payload: dict[str, Any]) -> dict[str, Any]:
    cap, budget = payload["oracle"]
    return count_solutions(payload["board"], cap=cap, budget=budget).to_dict()


# ====================================================================== judging
def evaluate(spec: Spec, rec: dict[str, Any], oracle: dict[str, Any] | None,
             complete: bool) -> tuple[str, list[str]]:
    """The run's category and its problems.

    Categories: ``agree``, ``disagree``, ``error`` (crash or exception),
    ``refused`` (the backend declines the model or the option), ``unknown``
    (no final answer within the time limit), ``unchecked`` (verified, but the
    oracle could not count the board).
    """
    status = rec["status"]
    if status in ("error", "refused"):
        return status, [rec.get("reason", status)]
    problems = []
    for bad in rec.get("wrong", []):
        problems.append(f"wrong solution {bad['solution']}: {bad['violation']}")
    if rec.get("duplicates"):
        problems.append(f"{rec['duplicates']} solution(s) returned twice")
    n, limit, exhausted = rec["n"], rec["limit"], rec["exhausted"]
    if not complete and status == "unsat" and not rec.get("conflict"):
        problems.append("an incomplete backend said unsat from its own search")
    count = oracle.get("count") if oracle else None
    exact = bool(oracle and oracle.get("exact"))
    if count is not None:
        if status == "unsat" and count > 0:
            problems.append(f"said unsat; the oracle found {count}{'' if exact else '+'} solution(s)")
        elif status == "sat" and exhausted and not (exact and count == n):
            problems.append(f"said exactly {n} solution(s); the oracle counts "
                            f"{count}{'' if exact else ' or more'}")
        elif status == "sat" and n == limit and exact and count < limit:
            problems.append(f"returned {n} solutions; the oracle counts {count}")
        elif status == "sat" and exact and n > count:
            problems.append(f"returned {n} solutions; the oracle counts {count}")
    if problems:
        return "disagree", problems
    if status == "unknown" or (status == "sat" and not exhausted and n < limit):
        return "unknown", []
    if count is None:
        return "unchecked", []
    return "agree", []


# ====================================================================== campaign
@dataclass
class BackendStats:
    runs: int = 0
    agree: int = 0
    disagree: int = 0
    wrong: int = 0
    incomplete_unsat: int = 0
    error: int = 0
    refused: int = 0
    unknown: int = 0
    unchecked: int = 0
    limit_hits: int = 0
    max_over: float | None = None
    total_s: float = 0.0
    variants: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    early_unknown: Counter[str] = field(default_factory=Counter)


class Campaign:
    """Accumulates the runs of a campaign; writes reproducers as it goes."""

    def __init__(self, out: Path | None, seed: int, argv: Sequence[str]) -> None:
        self.out = out
        self.seed = seed
        self.argv = list(argv)
        self.stats: dict[str, BackendStats] = defaultdict(BackendStats)
        self.boards: Counter[str] = Counter()
        self.answers: Counter[str] = Counter()
        self.problems: list[dict[str, Any]] = []
        self.oracle_seconds = 0.0
        self.oracle_max_nodes = 0
        self.lock = threading.Lock()
        self.t0 = time.perf_counter()

    def add(self, case: Case, specs: Sequence[Spec], result: dict[str, Any]) -> None:
        with self.lock:
            self._add(case, specs, result)

    def _add(self, case: Case, specs: Sequence[Spec], result: dict[str, Any]) -> None:
        oracle = result.get("oracle")
        self.boards[case.family] += 1
        if oracle is None or oracle.get("count") is None:
            self.answers["oracle gave up"] += 1
        else:
            self.answers["unsat" if oracle["count"] == 0 else "sat"] += 1
            self.oracle_seconds += oracle.get("seconds", 0.0)
            self.oracle_max_nodes = max(self.oracle_max_nodes, oracle.get("nodes", 0))
        for spec, rec in zip(specs, result["runs"], strict=True):
            complete = REGISTRY[spec.backend].complete
            category, problems = evaluate(spec, rec, oracle, complete)
            st = self.stats[spec.backend]
            st.runs += 1
            st.variants[spec.variant] += 1
            setattr(st, category, getattr(st, category) + 1)
            st.total_s += rec.get("elapsed", 0.0)
            if category == "refused":
                st.refusals[_short(problems[0])] += 1
            if rec.get("wrong"):
                st.wrong += 1
            if not complete and rec["status"] == "unsat" and not rec.get("conflict"):
                st.incomplete_unsat += 1
            elapsed = rec.get("elapsed", 0.0)
            hit = rec["status"] == "unknown" or rec.get("killed") or (
                rec["status"] == "sat" and not rec["exhausted"] and rec["n"] < rec["limit"])
            if rec["status"] == "unknown" and complete and elapsed < 0.5 * spec.time_limit:
                st.early_unknown[spec.variant] += 1  # gave up long before its time limit
            if hit:
                st.limit_hits += 1
                over = elapsed - spec.time_limit
                st.max_over = over if st.max_over is None else max(st.max_over, over)
            if category in ("disagree", "error"):
                self._problem(case, spec, rec, oracle, category, problems)

    def _problem(self, case: Case, spec: Spec, rec: dict[str, Any], oracle: dict[str, Any] | None,
                 category: str, problems: list[str]) -> None:
        entry: dict[str, Any] = {"index": case.index, "family": case.family,
                                 "backend": spec.backend, "variant": spec.variant,
                                 "category": category, "problems": problems}
        if self.out is not None:
            path = write_reproducer(self.out / "repro", case, spec, rec, oracle, category,
                                    problems, self.seed)
            entry["reproducer"] = str(path)
        self.problems.append(entry)

    # ------------------------------------------------------------ output
    def rows(self) -> list[dict[str, Any]]:
        out = []
        for name in sorted(self.stats, key=lambda n: (not REGISTRY[n].complete, n)):
            st = self.stats[name]
            out.append({"backend": name, "complete": REGISTRY[name].complete, "runs": st.runs,
                        "agree": st.agree, "disagree": st.disagree, "wrong": st.wrong,
                        "inc_unsat": st.incomplete_unsat, "crash": st.error,
                        "refused": st.refused, "unknown": st.unknown, "unchecked": st.unchecked,
                        "variants": len(st.variants), "limit_hits": st.limit_hits,
                        "max_over_s": None if st.max_over is None else round(st.max_over, 3),
                        "mean_ms": round(1000 * st.total_s / max(1, st.runs), 1)})
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "command": " ".join(["python", "benchmarks/campaign.py", *self.argv]),
            "seed": self.seed,
            "boards": sum(self.boards.values()),
            "boards_by_family": dict(sorted(self.boards.items())),
            "oracle": dict(self.answers) | {"seconds": round(self.oracle_seconds, 1),
                                            "max_nodes": self.oracle_max_nodes},
            "runs": sum(st.runs for st in self.stats.values()),
            "disagreements": sum(st.disagree for st in self.stats.values()),
            "crashes": sum(st.error for st in self.stats.values()),
            "wall_s": round(time.perf_counter() - self.t0, 1),
            "backends": self.rows(),
            "variants": {name: dict(sorted(st.variants.items()))
                         for name, st in sorted(self.stats.items())},
            "refusals": {name: dict(st.refusals.most_common()) for name, st in
                         sorted(self.stats.items()) if st.refusals},
            "early_unknown": {name: dict(st.early_unknown.most_common()) for name, st in
                              sorted(self.stats.items()) if st.early_unknown},
            "problems": self.problems,
        }


def _short(text: str) -> str:
    text = re.sub(r"\d+", "N", text)
    return text[:140]


def _board_raw(board: Board) -> dict[str, Any]:
    return {"n_cells": board.n_cells, "asterisms": [list(a) for a in board.asterisms],
            "labels": list(board.labels), "clues": [list(c) for c in board.clues],
            "inscription": sorted(board.inscription),
            "relations": [{"kind": r.kind, "cells": list(r.cells), "params": dict(r.params)}
                          for r in board.relations],
            "shape": list(board.shape) if board.shape else None, "kind": board.kind,
            "params": [[k, v] for k, v in board.params]}


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def board_from_raw(raw: dict[str, Any]) -> Board:
    """The Board of a reproducer's ``board_raw``."""
    rels = [Relation(r["kind"], tuple(r["cells"]), tuple(sorted(r["params"].items())))
            for r in raw["relations"]]
    return Board(raw["n_cells"], raw["asterisms"], raw["labels"],
                 clues=[tuple(c) for c in raw["clues"]], inscription=raw["inscription"],
                 relations=rels, shape=tuple(raw["shape"]) if raw["shape"] else None,
                 kind=raw["kind"], params=[(k, _tuples(v)) for k, v in raw.get("params", [])])


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9=._-]+", "_", text)[:60]


def write_reproducer(folder: Path, case: Case, spec: Spec, rec: dict[str, Any],
                     oracle: dict[str, Any] | None, category: str, problems: list[str],
                     seed: int) -> Path:
    """A JSON file holding everything needed to run the failing case again."""
    from futocp.formats import dumps

    folder.mkdir(parents=True, exist_ok=True)
    try:
        board_json: Any = json.loads(dumps(case.board, "json"))
    except Exception as exc:  # noqa: BLE001 - the raw form below still reproduces it
        board_json = {"error": f"{type(exc).__name__}: {exc}"}
    doc = {
        "campaign": {"seed": seed, "index": case.index, "family": case.family,
                     "notes": case.notes},
        "board": board_json,
        "board_raw": _board_raw(case.board),
        "backend": spec.backend, "variant": spec.variant, "options": dict(spec.options),
        "filtering": spec.filtering, "limit": spec.limit, "time_limit": spec.time_limit,
        "seed": spec.seed,
        "category": category, "problems": problems,
        "said": {k: v for k, v in rec.items()},
        "oracle": oracle,
        "replay": "python benchmarks/campaign.py --replay {this file}",
    }
    path = folder / f"{case.index:06d}-{spec.backend}-{_slug(spec.variant)}.json"
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    return path


def _execute(case: Case, specs: list[Spec], cap: int, budget: int, isolate: bool,
             worker: Callable[[dict[str, Any]], dict[str, Any]] | None = None
             ) -> dict[str, Any]:
    """All the runs of a board in one isolated process; on a crash or a hang, the oracle
    and each run again in processes of their own (``worker``: :func:`run_board`, or a
    picklable stand-in)."""
    worker = worker or run_board
    payload = {"board": case.board, "specs": specs, "oracle": (cap, budget)}
    if not isolate:
        return worker(payload)
    from futocp.experiments.isolate import run_isolated

    timeout = 120.0 + sum(s.time_limit + 15.0 for s in specs)
    outcome = run_isolated(worker, payload, timeout)
    if outcome.error is None:
        return outcome.value
    result: dict[str, Any] = {"board_failure": outcome.error}
    ora = run_isolated(_oracle_only, payload, 300.0)
    result["oracle"] = ora.value if ora.error is None else None
    runs = []
    for spec in specs:
        one = run_isolated(worker, {"board": case.board, "specs": [spec], "oracle": None},
                           spec.time_limit + 60.0)
        if one.error is None:
            runs.append(one.value["runs"][0])
        else:
            runs.append({"status": "error", "n": 0, "exhausted": False, "limit": spec.limit,
                         "elapsed": one.elapsed, "killed": one.killed,
                         "reason": f"crash: {one.error}"})
    result["runs"] = runs
    return result


def run_campaign(count: int, seed: int, *, backends: Sequence[str] | None = None,
                 families: Sequence[str] | None = None, variants: str = "rotate",
                 limit: int = 5, time_limit: float = 10.0, incomplete_time_limit: float = 0.5,
                 jobs: int = 1, out: Path | None = None, isolate: bool = True,
                 oracle_budget: int = 300_000, start: int = 0, argv: Sequence[str] = (),
                 every: Mapping[str, int] | None = None, solvers: bool = True,
                 progress: Callable[[str], None] | None = None) -> Campaign:
    """Run boards ``start .. start + count - 1`` of campaign ``seed``.

    Args:
        count: Number of boards.
        seed: The campaign's seed (board i is the same for every count).
        backends: Backend names (default: every available one of the REGISTRY).
        families: Family names to cycle through (default: every family and ``board``).
        variants: ``rotate``, ``all`` or ``defaults`` (see :func:`plan_specs`).
        limit: Solutions asked of each run (the oracle counts to ``limit + 1``).
        time_limit: Seconds per run of a complete backend.
        incomplete_time_limit: Seconds per run of an incomplete backend.
        jobs: Boards run at the same time.
        out: Folder for reproducers (None: none written).
        isolate: Run each board in its own process (False: in this one, for tests).
        oracle_budget: The oracle's node budget per board.
        start: The first board's index.
        argv: The command line, for the summary.
        every: Backends run on one board in k only (see :func:`plan_specs`).
        solvers: Include every python-sat solver among the variants of ``sat``.
        progress: Called with a line of progress now and then.
    """
    names = list(backends) if backends else [n for n, cls in REGISTRY.items()
                                             if cls.available() is True]
    fams = list(families or campaign_families())
    camp = Campaign(out, seed, argv)
    done = 0

    def one(index: int) -> tuple[Case, list[Spec], dict[str, Any]]:
        case = make_case(seed, index, fams)
        specs = plan_specs(case, names, variants, len(fams), limit, time_limit,
                           incomplete_time_limit, every, solvers)
        return case, specs, _execute(case, specs, limit + 1, oracle_budget, isolate)

    def report(item: tuple[Case, list[Spec], dict[str, Any]]) -> None:
        nonlocal done
        camp.add(*item)
        done += 1
        if progress and (done % 50 == 0 or done == count):
            rate = done / max(1e-9, time.perf_counter() - camp.t0)
            bad = sum(st.disagree + st.error for st in camp.stats.values())
            progress(f"{done}/{count} boards, {rate:.2f} boards/s, {bad} problem(s)")

    indices = range(start, start + count)
    if jobs <= 1:
        for i in indices:
            report(one(i))
    else:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            pending: set[concurrent.futures.Future[Any]] = set()
            for i in indices:
                pending.add(pool.submit(one, i))
                if len(pending) >= 2 * jobs:
                    finished, pending = concurrent.futures.wait(
                        pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    for fut in finished:
                        report(fut.result())
            for fut in concurrent.futures.as_completed(pending):
                report(fut.result())
    camp.problems.sort(key=lambda p: (p["index"], p["backend"], p["variant"]))
    return camp


# ====================================================================== limits
HARD_QWH = ("instances/qwh/csplib067/qwh-o30-h374-01.dzn",
            "instances/qwh/csplib067/qwh-o30-h374-02.dzn",
            "instances/qwh/lsencode/qwh.order30.holes316.pls",
            "instances/qwh/lsencode/qwh.order30.holes320.pls",
            "instances/qwh/lsencode/qwh.order33.holes381.pls")
SUDOKU16 = "instances/sudoku/16x16-critical-01.sudoku"
LIMIT_VARIANTS: dict[str, tuple[dict[str, Any], ...]] = {
    "sat": ({"solver": "cadical195"}, {"solver": "kissat404"}),
}
"""Option sets measured besides the defaults: python-sat solvers that cannot be
interrupted in-process (issue 13: they must still honour the time limit)."""


def hard_instances() -> list[tuple[str, Board, int | None]]:
    """``(name, board, limit)`` of the limits campaign (limit None = enumerate)."""
    from futocp.families import latin_square, sudoku
    from futocp.formats import read

    out: list[tuple[str, Board, int | None]] = []
    for n in (20, 25, 30):
        out.append((f"latin-{n} empty, all", latin_square(n), None))
    for rel in HARD_QWH:
        path = os.path.join(_ROOT, rel)
        if os.path.exists(path):
            out.append((os.path.basename(rel), read(path), 1))
    out.append(("sudoku-16 empty, all", sudoku((4, 4)), None))
    path = os.path.join(_ROOT, SUDOKU16)
    if os.path.exists(path):
        out.append((os.path.basename(SUDOKU16) + ", all", read(path), None))
    return out


def limit_run(task: dict[str, Any]) -> dict[str, Any]:
    """Worker: build the model and solve under the time limit, timing both."""
    from futocp.backends import get_backend
    from futocp.model import build_model

    backend = get_backend(task["backend"])
    t0 = time.perf_counter()
    try:
        model = build_model(task["board"])
        t1 = time.perf_counter()
        result = backend.solve(model, limit=task["limit"], time_limit=task["time_limit"],
                               seed=task["seed"], **task.get("options", {}))
    except (UnsupportedError, BackendUnavailable, UsageError) as exc:
        return {"status": "refused", "reason": str(exc), "elapsed": time.perf_counter() - t0}
    t2 = time.perf_counter()
    return {"status": result.status.value, "n": result.n_solutions, "elapsed": t2 - t0,
            "build": t1 - t0, "solve": t2 - t1}


def limits_campaign(time_limit: float = 1.0, backends: Sequence[str] | None = None,
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every backend on every hard instance with ``time_limit``: elapsed - limit."""
    from futocp.experiments.isolate import run_isolated

    names = list(backends) if backends else [n for n, cls in REGISTRY.items()
                                             if cls.available() is True]
    run_isolated(abs, 0, 120.0)  # start the fork server first: its start is not a backend's
    runs = []
    plan = [(name, {}) for name in names]
    plan += [(name, opts) for name in names for opts in LIMIT_VARIANTS.get(name, ())]
    for inst, board, limit in hard_instances():
        for name, opts in plan:
            seed = 1 if "seed" in REGISTRY[name].capabilities else None
            task = {"backend": name, "board": board, "limit": limit, "time_limit": time_limit,
                    "seed": seed, "options": opts}
            label = " ".join([name, *(f"{k}={v}" for k, v in opts.items())])
            outcome = run_isolated(limit_run, task, time_limit + 120.0)
            rec: dict[str, Any] = {"instance": inst, "backend": label,
                                   "outer_s": round(outcome.elapsed, 3)}
            if outcome.error is not None:
                rec.update(status="error", reason=outcome.error, elapsed=outcome.elapsed,
                           killed=outcome.killed)
            else:
                rec.update(outcome.value)
            rec["over_s"] = round(rec["elapsed"] - time_limit, 3)
            rec["elapsed"] = round(rec["elapsed"], 3)
            runs.append(rec)
            if progress:
                progress(f"{inst:<36} {label:<24} {rec['status']:<8} elapsed {rec['elapsed']:.2f} s"
                         f" (outer {rec['outer_s']:.2f} s)")
    per: dict[str, dict[str, Any]] = {}
    for rec in runs:
        if rec["status"] == "refused":
            continue
        p = per.setdefault(rec["backend"], {"backend": rec["backend"], "runs": 0,
                                            "max_over_s": -math.inf, "worst": "",
                                            "max_outer_over_s": -math.inf, "errors": 0})
        p["runs"] += 1
        p["errors"] += rec["status"] == "error"
        if rec["over_s"] > p["max_over_s"]:
            p["max_over_s"], p["worst"] = rec["over_s"], rec["instance"]
        p["max_outer_over_s"] = max(p["max_outer_over_s"], round(rec["outer_s"] - time_limit, 3))
    refused = Counter(r["backend"] for r in runs if r["status"] == "refused")
    for name, p in per.items():
        p["refused"] = refused.get(name, 0)
        p["within_1.5s"] = p["max_over_s"] <= 1.5
    return {"time_limit": time_limit, "backends": list(per.values()), "runs": runs}


# ====================================================================== output
def print_table(rows: list[dict[str, Any]], columns: Sequence[str], title: str,
                markdown: bool = False) -> None:
    """A table with rich when it is installed, plain text otherwise (or Markdown)."""
    def cell(v: Any, column: str = "") -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.1f}" if column.endswith("_ms") else f"{v:.3f}"
        return str(v)

    if markdown:
        print(f"{title}\n")
        print("| " + " | ".join(columns) + " |")
        print("|" + "|".join("---" if c in ("backend", "instance", "worst") else "---:"
                             for c in columns) + "|")
        for r in rows:
            print("| " + " | ".join(cell(r.get(c), c) for c in columns) + " |")
        return

    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(c), *(len(cell(r.get(c), c)) for r in rows)) if rows else len(c)
                  for c in columns]
        print(title)
        print("  ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True)))
        for r in rows:
            print("  ".join(cell(r.get(c), c).rjust(w)
                            for c, w in zip(columns, widths, strict=True)))
        return
    table = Table(title=title)
    for c in columns:
        table.add_column(c, justify="left" if c in ("backend", "instance") else "right",
                         no_wrap=True)
    for r in rows:
        table.add_row(*(cell(r.get(c), c) for c in columns))
    console = Console()
    console.width = max(console.width, 200)
    console.print(table)


CAMPAIGN_COLUMNS = ("backend", "runs", "agree", "disagree", "wrong", "inc_unsat", "crash",
                    "refused", "unknown", "unchecked", "variants", "limit_hits", "max_over_s",
                    "mean_ms")
LIMITS_COLUMNS = ("backend", "runs", "refused", "errors", "max_over_s", "worst",
                  "max_outer_over_s", "within_1.5s")


def replay(path: str) -> int:
    """Run a reproducer again; print what the backend and the oracle say now."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    board = board_from_raw(doc["board_raw"])
    spec = Spec(doc["backend"], doc["variant"], tuple(sorted(doc["options"].items())),
                doc["filtering"], doc["limit"], doc["time_limit"], doc["seed"])
    case = Case(doc["campaign"]["index"], doc["campaign"]["family"], board)
    result = _execute(case, [spec], spec.limit + 1, 10 ** 7, isolate=True)  # as the campaign
    oracle = result.get("oracle")
    rec = result["runs"][0]
    category, problems = evaluate(spec, rec, oracle, REGISTRY[spec.backend].complete)
    print(f"board {doc['campaign']['index']} ({doc['campaign']['family']}), backend "
          f"{spec.backend} {spec.variant} filtering={spec.filtering}")
    print(f"then: {doc['category']}: {'; '.join(doc['problems'])}")
    print(f"oracle: {oracle}")
    said = {k: rec.get(k) for k in ('status', 'n', 'exhausted', 'reason') if k in rec}
    print(f"now:  {category}: {said} {'; '.join(problems)}")
    return 0 if category in ("agree", "unknown", "unchecked", "refused") else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="boards (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="index of the first board")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds per run (campaign default 10; --limits default 1)")
    parser.add_argument("--incomplete-time-limit", type=float, default=0.5,
                        help="seconds per run of an incomplete backend (default 0.5)")
    parser.add_argument("--limit", type=int, default=5, help="solutions asked per run")
    parser.add_argument("--variants", choices=("rotate", "all", "defaults"), default="rotate")
    parser.add_argument("--backends", default="", help="comma-separated (default: all available)")
    parser.add_argument("--families", default="", help="comma-separated (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="boards at the same time")
    parser.add_argument("--every", action="append", default=[], metavar="BACKEND=K",
                        help="run a slow backend on one board in K only (repeatable)")
    parser.add_argument("--oracle-budget", type=int, default=300_000)
    parser.add_argument("--out", default="campaign-out", help="folder for summary and reproducers")
    parser.add_argument("--no-solver-variants", action="store_true",
                        help="leave the python-sat solvers out of the variants of sat")
    parser.add_argument("--limits", action="store_true",
                        help="measure time-limit overshoots on hard instances instead")
    parser.add_argument("--replay", metavar="FILE", help="run a reproducer again")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument("--table", metavar="JSON",
                        help="print the table of a summary.json or limits.json written before")
    args = parser.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    if args.replay:
        return replay(args.replay)
    if args.table:
        doc = json.loads(Path(args.table).read_text(encoding="utf-8"))
        if "runs" in doc and isinstance(doc["runs"], list):  # limits.json
            print_table(doc["backends"], LIMITS_COLUMNS, f"elapsed - time limit "
                        f"({doc['time_limit']:g} s), hard instances", args.markdown)
        else:
            print_table(doc["backends"], CAMPAIGN_COLUMNS, f"{doc['command']}: {doc['boards']} "
                        f"boards, {doc['runs']} runs", args.markdown)
        return 0
    backends = [b.strip() for b in args.backends.split(",") if b.strip()] or None
    for name in backends or ():
        if name not in REGISTRY:
            parser.error(f"unknown backend {name!r} (known: {', '.join(REGISTRY)})")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.limits:
        limit_s = 1.0 if args.time_limit is None else args.time_limit
        summary = limits_campaign(limit_s, backends, progress)
        summary["command"] = " ".join(["python", "benchmarks/campaign.py", *argv])
        (out / "limits.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        print_table(summary["backends"], LIMITS_COLUMNS,
                    f"elapsed - time limit ({limit_s:g} s), hard instances", args.markdown)
        return 0
    families = [f.strip() for f in args.families.split(",") if f.strip()] or None
    every = {}
    for item in args.every:
        name, _, k = item.partition("=")
        if name not in REGISTRY or not k.isdigit() or int(k) < 1:
            parser.error(f"--every expects BACKEND=K, got {item!r}")
        every[name] = int(k)
    camp = run_campaign(args.count, args.seed, backends=backends, families=families,
                        variants=args.variants, limit=args.limit,
                        time_limit=10.0 if args.time_limit is None else args.time_limit,
                        incomplete_time_limit=args.incomplete_time_limit, jobs=args.jobs,
                        out=out, oracle_budget=args.oracle_budget, start=args.start, argv=argv,
                        every=every, solvers=not args.no_solver_variants, progress=progress)
    summary = camp.summary()
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n",
                                      encoding="utf-8")
    print_table(summary["backends"], CAMPAIGN_COLUMNS,
                f"campaign seed {args.seed}: {summary['boards']} boards, {summary['runs']} runs",
                args.markdown)
    print(f"oracle: {summary['oracle']}")
    for p in summary["problems"][:50]:
        print(f"board {p['index']} {p['family']} {p['backend']} {p['variant']}: "
              f"{p['category']}: {'; '.join(p['problems'])[:300]}  {p.get('reproducer', '')}")
    print(f"summary: {out / 'summary.json'}")
    return 1 if summary["disagreements"] or summary["crashes"] else 0


if __name__ == "__main__":
    # run as an importable module ("campaign" as a script, "benchmarks.campaign" with -m),
    # so that isolated processes can unpickle its workers
    import importlib

    sys.exit(importlib.import_module(__spec__.name if __spec__ else "campaign").main())
