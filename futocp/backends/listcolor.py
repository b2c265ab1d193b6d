"""The native list-colouring backend: backtracking over bit-set lists (Python, or its C core).

Every cell keeps a *list* (a bit set of value indices) beside the dual table
(per all-different asterism and label, the cells that can still take it);
each choice is propagated to a fixpoint (:mod:`.listcolor_propagate`), and the
search branches by MRV or a Satz-style lookahead (:mod:`.listcolor_branch`),
sequentially, as a portfolio, or split over ``workers`` processes. The same
search exists in C (``_listcolor_core.c``, option ``core``); this module is
its readable reference and fallback.

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "listcolor".

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> r = ListcolorBackend().solve(build_model(latin_square(4)), limit=None)
    >>> r.n_solutions, r.stats["backtracks"]  # no dead end on the empty 4x4
    (576, 0)
"""

from __future__ import annotations

import contextlib
import contextvars
import random
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from functools import cached_property
from typing import Any, ClassVar

from ..errors import UnsupportedError, UsageError
from ..model import Model
from ..result import Result
from .base import COMPLETE_CAPABILITIES, Backend, Deadline, Option
from .listcolor_branch import (
    _CHECK_EVERY,
    WEIGHTS,
    Brancher,
    Child,
    Probe,
    _Timeout,
    make_lookahead_brancher,
    make_plain_brancher,
)
from .listcolor_program import LABEL_SETS, ListcolorProgram, compile_program
from .listcolor_propagate import Propagator, make_propagator, make_undo, settle
from .parallel import WORKERS_OPTION, fork_available, run_parallel

try:  # the compiled core (setup.py builds it; optional: without it the reference runs)
    from . import _listcolor_core as _core
except ImportError:  # pragma: no cover - depends on the build
    _core = None  # type: ignore[assignment]
try:  # the same core with 128-bit lists (more than 64 values or cells in a group)
    from . import _listcolor_core_wide as _core_wide
except ImportError:  # pragma: no cover - depends on the build
    _core_wide = None  # type: ignore[assignment]

__all__ = ["ListcolorBackend", "ListcolorProgram", "LABEL_SETS", "compile_program", "make_propagator",
           "make_plain_brancher", "make_lookahead_brancher", "settle", "Child", "Probe",
           "WEIGHTS", "core_available", "core_fallback", "BUILD_HINT", "stop_when"]


_MAX_STACK_BYTES = 4_000_000_000  # worst-case search stack a model may need
_COPY_STACK_BYTES = 64_000_000  # the Python search copies lists while the stack stays below
_AUTO_SWITCH = 40
"""Dead ends of the plain search before ``lookahead="auto"`` turns the lookahead on
(the compiled core's ``AUTO_SWITCH``). 40 rather than 20: the time is 0.91x on
top1465 and 0.88x on top95, and on every other set measured (Futoshiki,
adjacent, Kropki, Keen, Towers, Solo, QWH up to order 70) the same within the
noise (``benchmarks/auto_switch.py``; docs/performance.md, issue 25 item 6,
fourth round)."""
_SLICE = 8  # dead ends per turn of each search of the portfolio
_SOLO = 32  # dead ends of the portfolio's first search before the second one starts
_NEVER = 1 << 62


class ListcolorBackend(Backend):
    """Native list-colouring backtracking (pure Python, and an optional compiled core)."""

    name = "listcolor"
    complete = True
    capabilities = COMPLETE_CAPABILITIES | {"seed"}
    counters: ClassVar[tuple[str, ...]] = (
        "nodes", "backtracks", "removed_values", "max_depth", "probes", "failed_literals",
        "dilemma_values")
    count_rank = 0  # the fastest at counting (benchmarks/sudoku.py)
    cores = ("futocp.backends._listcolor_core", "futocp.backends._listcolor_core_wide")
    max_literals = 4_000_000
    options = (
        Option("lookahead", str, "auto", ("auto", "always", "never"),
               "probe every binary choice (failed literals, dilemma rule, Satz-style branching): "
               f"auto = once the plain search has met {_AUTO_SWITCH} dead ends"),
        Option("weight", str, "portfolio", WEIGHTS + ("portfolio",),
               "lookahead score of a side: new binary choices (binary) or removed values "
               "(removed); portfolio = with limit=1 both searches in turns (with workers: side "
               "by side), the first to finish answers (else removed)"),
        Option("branching", str, "cell", ("cell", "dual"),
               "plain search: the cell with the fewest labels (cell), or also the "
               "(asterism, label) pair with the fewest cells when that is smaller (dual)"),
        Option("hidden_singles", bool, True, None,
               "force a label that fits only one cell of an asterism (count: exactly the cells "
               "left; cage: a label all its remaining sets need)"),
        Option("locked_candidates", bool, True, None,
               "a label whose places left in an all-different asterism all lie in another one "
               "leaves that one's other cells (Sudoku's pointing and claiming; asterisms that "
               "share two cells or more)"),
        WORKERS_OPTION,
        Option("core", str, "auto", ("auto", "compiled", "python"),
               "the search engine: compiled = the C core (same algorithm and counters), "
               "python = the pure-Python reference, auto = compiled when it is built and takes "
               "the program (stats: core)"),
    )

    def check(self, model: Model) -> None:
        """Also refuse a model whose search stack could outgrow memory.

        A search keeps one copy of the lists (one int per cell and per
        dual-table entry) per search of the portfolio and an undo trail of
        ``(cell, old list)`` pairs, at most one per value removed along the
        path: ``n_cells * n_values`` entries (about 100 bytes each in Python,
        20 in the compiled core).
        """
        super().check(model)
        entries = model.n_cells + len(model.permutations) * model.n_values
        worst = model.n_cells * model.n_values * 100 + 4 * entries * 8  # the trail, the lists
        if worst > _MAX_STACK_BYTES:
            raise UnsupportedError(
                f"backend {self.name!r} refuses a model of {model.n_cells} cells: its search "
                f"stack could need {worst / 1e9:.1f} GB (limit {_MAX_STACK_BYTES / 1e9:.0f} GB)")

    def compile(self, model: Model, /, *, seed: int | None = None, **options: Any
                ) -> ListcolorProgram:
        """The program :meth:`solve` runs: ``seed`` shuffles its tie-break order (and
        the search's value order); the options are checked (they choose how the
        program is searched, not what it is)."""
        self.parse_options(options)
        return compile_program(model, seed)

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        t0 = time.perf_counter()
        deadline = Deadline(time_limit)
        workers = options["workers"]
        if workers < 1:
            raise UsageError(f"option workers={workers}: expected at least 1")
        if options["core"] == "compiled" and not core_available():
            raise UsageError(f"option core=compiled: the compiled core of {self.name!r} is not "
                             f"built; {BUILD_HINT}")
        prog = self.compile(model, seed=seed, **options)
        settings = {key: options[key] for key in _SEARCH_OPTIONS}
        fallback = core_fallback(prog) if options["core"] != "python" else "core=python"
        t1 = time.perf_counter()
        if workers == 1 or not fork_available():
            stop = _STOP.get()
            expired = deadline.expired if stop is None else (lambda: deadline.expired() or stop())
            search = _Search(prog, limit, expired, **settings)
            finished = search.run()
            solutions, stats = search.solutions, search.counts()
        else:
            solutions, finished, stats = _solve_parallel(prog, settings, limit, deadline, workers)
        stats["removed_values"] += model.stats.get("removed_values", 0)
        stats["core"] = "python" if fallback else "compiled"
        if fallback and fallback != "core=python":
            stats["core_fallback"] = fallback
        out = {"encode_s": t1 - t0, "solve_s": time.perf_counter() - t1, **stats}
        return self.outcome(solutions, finished, limit, out)


_STOP: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "futocp_listcolor_stop", default=None)


@contextlib.contextmanager
def stop_when(test: Callable[[], bool]) -> Iterator[None]:
    """Within the block, a sequential search in this process also stops once ``test()``
    is true, polled with its deadline (every few nodes): ``auto`` stops its in-process
    member this way when a member in another process has answered."""
    token = _STOP.set(test)
    try:
        yield
    finally:
        _STOP.reset(token)


_SEARCH_OPTIONS = ("lookahead", "weight", "branching", "hidden_singles", "locked_candidates",
                   "core")

BUILD_HINT = ("build it with `pip install -e .` (or `make test`) on a machine with a C compiler "
              "and the Python headers")
"""How to build the compiled core (said by the refusal of ``core=compiled``)."""

_CORE_MAX_VALUES = 64  # the core's lists are 64-bit words ...
_WIDE_MAX_VALUES = 128  # ... and the wide core's 128-bit ones


def core_available() -> bool:
    """True when the compiled core (``futocp.backends._listcolor_core``) is built."""
    return _core is not None


_NATIVE: dict[int, tuple[tuple[Any, ...], Any]] = {}  # id(prog.groups) -> (structure, core's)
_NATIVE_KEPT = 32


def _list_width(prog: ListcolorProgram) -> int:
    """The bits a list of ``prog`` needs: its values, and the cells of its widest
    all-different group (the dual table's lists)."""
    widest = max(map(len, map(prog.groups.__getitem__, prog.dual_groups)), default=0)
    return max(prog.n_values, widest)


def _core_module(prog: ListcolorProgram) -> Any:
    """The build of the compiled core that runs ``prog``: the narrowest whose lists
    hold it (None: no build does; :func:`core_fallback` says why)."""
    width = _list_width(prog)
    if width <= _CORE_MAX_VALUES:
        return _core
    return _core_wide if width <= _WIDE_MAX_VALUES else None


def _native_module(native: Any) -> Any:
    """The build of the compiled core that made the ``Program`` ``native`` (None:
    that build is gone, as when a test hides it)."""
    return _core if isinstance(native, _core.Program) else _core_wide


def _native_program(prog: ListcolorProgram) -> Any:
    """The compiled core's copy of ``prog`` (None when the core does not take it),
    shared by the programs of one structure (:func:`compile_program` caches it);
    a ``Program`` of the build that runs it (:func:`_core_module`)."""
    if _core is None or prog.seed is not None:
        return None
    structure = (prog.groups, prog.counts, prog.cell_groups, prog.succ, prog.pred,
                 prog.dual_groups, prog.arcs, prog.distinct, prog.cages, prog.cells, prog.values,
                 prog.diagrams)
    hit = _NATIVE.get(id(prog.groups))
    if hit is not None and all(a is b for a, b in zip(hit[0], structure, strict=True)):
        return hit[1] if _native_module(hit[1]) is not None else None
    module = _core_module(prog)
    if module is None:
        return None
    native = module.Program(len(prog.cells), prog.groups, prog.counts, prog.cell_groups,
                            prog.succ, prog.pred, prog.n_values, prog.dual_groups, prog.arcs,
                            prog.distinct, prog.cages, prog.cells, prog.values, prog.diagrams)
    if len(_NATIVE) >= _NATIVE_KEPT:
        _NATIVE.clear()
    _NATIVE[id(prog.groups)] = (structure, native)  # holds prog.groups: its id stays its own
    return native


def core_fallback(prog: ListcolorProgram) -> str:
    """Why ``prog`` runs on the pure-Python reference ("": the compiled core takes it).

    The core takes every option and every model feature (count groups, ``less``,
    binary relations, partial all-different groups, cages, diagrams) but two: a
    ``seed`` (the value order is shuffled by Python's :mod:`random`, which
    the core does not replay) and lists wider than 128 bits (more than 128
    values, or an all-different group of more than 128 cells). Lists of 65
    to 128 bits need the wide build (``_listcolor_core_wide``).
    """
    if _core is None:
        return "the compiled core is not built"
    if prog.seed is not None:
        return "a seed (the value order is shuffled by Python's random)"
    width = _list_width(prog)
    if width > _WIDE_MAX_VALUES:
        return f"more than {_WIDE_MAX_VALUES} values or cells in an all-different group"
    if width > _CORE_MAX_VALUES and _core_wide is None:
        return (f"more than {_CORE_MAX_VALUES} values or cells in an all-different group "
                f"and the wide compiled core (up to {_WIDE_MAX_VALUES}) is not built")
    return ""

_STATS = ("nodes", "backtracks", "max_depth", "probes", "failed_literals", "dilemma_values")
_SPLIT_PER_WORKER = 16  # subproblems per worker of a plain split ...
_LOOKAHEAD_SPLIT_PER_WORKER = 4  # ... and of a lookahead split (a lookahead per node above them)


class _Search:
    """One listcolor search over a compiled program: a whole solve, the split of
    a parallel solve, or one of its subproblems in a worker.

    It owns the propagation (:func:`make_propagator`), the branchers (the plain
    one, one lookahead brancher per weight of the portfolio), the counters and
    the solutions; :meth:`run` is the search strategy, :meth:`dfs` one
    depth-first search, :meth:`split` the first levels of the tree.

    Attributes:
        prog: The compiled program.
        limit: Solutions wanted (None: all).
        expired: Answers True when the search must stop (deadline, or a worker told to stop).
        mode: The ``lookahead`` option (``auto``, ``always``, ``never``).
        propagate: The propagation function; ``counter[0]`` counts removed values.
        stats: ``nodes``, ``backtracks``, ``max_depth``, ``probes``, ``failed_literals``,
            ``dilemma_values``.
        plain: The plain brancher.
        looks: The lookahead branchers (two for a portfolio, else one).
        solutions: The solutions found, as label tuples in Model cell order.
    """

    def __init__(self, prog: ListcolorProgram, limit: int | None, expired: Callable[[], bool],
                 lookahead: str = "auto", weight: str = "portfolio", branching: str = "cell",
                 hidden_singles: bool = True, locked_candidates: bool = True,
                 core: str = "python") -> None:
        self.prog = prog
        self.branching = branching
        self.hidden_singles = hidden_singles
        self.locked_candidates = locked_candidates
        self.limit = limit
        self.expired = expired
        self.mode = lookahead
        self.counter = [0, 0]
        self.stats: dict[str, int] = dict.fromkeys(_STATS, 0)
        weights = [weight]
        if weight == "portfolio":
            weights = ["removed", "binary"] if limit == 1 else ["removed"]
        self.weights = weights
        self.solutions: list[tuple[Any, ...]] = []
        # the compiled core's program, when it runs the search
        self.native: Any = None if core == "python" else _native_program(prog)

    # The Python engine, made on first use (a search run by the compiled core needs none).

    @cached_property
    def propagate(self) -> Propagator:
        """The propagation function; ``counter[0]`` counts removed values."""
        return make_propagator(self.prog, self.hidden_singles, self.counter,
                               self.locked_candidates)[0]

    @cached_property
    def uses_trail(self) -> bool:
        """Whether :meth:`dfs` undoes by a trail: when a copy of the lists per level
        could take more than ``_COPY_STACK_BYTES`` (else it copies)."""
        prog = self.prog
        entries = len(prog.domains) + len(prog.dual_groups) * prog.n_values  # and dual table
        return len(prog.domains) * entries * 8 > _COPY_STACK_BYTES

    @cached_property
    def undo_moves(self) -> tuple[Callable[..., None], Callable[..., None]]:
        """:func:`make_undo`'s ``undo_to`` and ``move_to`` for the program."""
        return make_undo(self.prog)

    @cached_property
    def plain(self) -> Brancher:
        """The plain brancher."""
        seed = self.prog.seed
        rng = None if seed is None else random.Random(f"{seed}:values")
        return make_plain_brancher(self.prog, self.branching == "dual", rng)

    @cached_property
    def looks(self) -> list[Brancher]:
        """The lookahead branchers (two for a portfolio, else one)."""
        return [make_lookahead_brancher(self.prog, self.propagate, self.counter, self.stats,
                                        self.expired, self.plain, w) for w in self.weights]

    def counts(self) -> dict[str, Any]:
        """The counters so far: the stats and ``removed_values`` (by propagation)."""
        return {**self.stats, "removed_values": self.counter[0]}

    def root(self) -> tuple[list[int], list[int]] | None:
        """The program's lists and their dual table at the propagation fixpoint
        (None: a dead end before any choice)."""
        doms = list(self.prog.domains)
        if not all(doms):
            return None
        dual = self.prog.dual_table(doms)
        if not settle(self.prog, self.propagate, doms, dual, self.locked_candidates):
            return None
        return doms, dual

    def record(self, doms: list[int]) -> None:
        """Append the solution of the fixed lists ``doms``."""
        values = self.prog.values
        out: list[Any] = [None] * len(doms)
        for c, d in zip(self.prog.cells, doms, strict=True):
            out[c] = values[d.bit_length() - 1]
        self.solutions.append(tuple(out))

    def run(self, start: tuple[list[int], list[int]] | None = None) -> bool:
        """The whole search, from the root or from ``start`` (lists and dual table at
        their fixpoint, consumed), appending to :attr:`solutions`.

        The search branches with the plain brancher until ``_AUTO_SWITCH`` dead
        ends (mode ``auto``), always (``never``) or never (``always``), with
        the lookahead after. When one solution is asked for, an ``auto``
        search that stalls starts again from the root with the lookahead (the
        plain search's first choices are often the bad ones); when more are
        asked for, it switches in place (no solution twice). With several
        lookahead branchers (a portfolio, limit 1), one lookahead search per
        brancher runs from the root: the first alone for ``_SOLO`` dead ends
        (small puzzles end there), then all in turns of ``_SLICE`` dead ends,
        until one of them finishes.

        Answers True when the search is over (space exhausted or limit
        reached), False when :attr:`expired` stopped it. With the compiled core
        (:attr:`native`) the same search runs in C, to the same counters.
        """
        if self.native is not None:
            return self._run_native(start)
        if start is None:
            start = self.root()
            if start is None:
                return True
        root, root_dual = start
        switch = {"never": _NEVER, "always": 0, "auto": _AUTO_SWITCH}[self.mode]
        looks = self.looks
        dfs = self.dfs
        try:
            if self.limit != 1 or switch in (0, _NEVER):
                if len(looks) == 1 or switch == _NEVER:  # one search, switching in place
                    return bool(_finish(dfs(root, root_dual, looks[0], switch, _NEVER, _NEVER)))
            else:  # plain first; if it stalls, start again from the root with lookahead
                out = _finish(dfs(root[:], root_dual[:], looks[0], _NEVER, switch, _NEVER))
                if out is not None:
                    return out
                if len(looks) == 1:
                    return bool(_finish(dfs(root, root_dual, looks[0], 0, _NEVER, _NEVER)))
            return _portfolio([dfs(root[:], root_dual[:], look, 0, _NEVER, _SLICE)
                               for look in looks])
        except _Timeout:
            return False

    def _run_native(self, start: tuple[list[int], list[int]] | None) -> bool:
        """:meth:`run` by the compiled core; its counters added to :attr:`stats`."""
        module = _native_module(self.native)
        assert module is not None
        out = module.run(self.native, self.prog.domains, self.limit, self.expired, self.mode,
                         self.weights, self.branching == "dual", self.hidden_singles,
                         self.locked_candidates, start,
                         self.solutions)
        finished, nodes, backtracks, max_depth, probes, failed, dilemma, removed = out
        stats = self.stats
        stats["nodes"] += nodes
        stats["backtracks"] += backtracks
        stats["max_depth"] = max(stats["max_depth"], max_depth)
        stats["probes"] += probes
        stats["failed_literals"] += failed
        stats["dilemma_values"] += dilemma
        self.counter[0] += removed
        return bool(finished)

    def dfs(self, doms: list[int], dual: list[int], look: Brancher, switch: int, budget: int,
            turn: int) -> Generator[None, None, bool | None]:
        """One depth-first search from the lists ``doms``/``dual`` (consumed), as a generator.

        Branches with the plain brancher until ``switch`` dead ends, with
        ``look`` after; yields (pauses) after every ``turn`` dead ends. Its
        return value: True (search over), False (:attr:`expired`) or None
        (``budget`` dead ends reached).

        Undo: on a large program (:attr:`uses_trail`) the search changes one
        pair of lists in place and records every change in an undo trail
        (``(cell, old list)``, :func:`make_undo`); a node of the stack is its
        length there, and the next child of a node starts from the node's
        lists by undoing the trail to it. A lookahead child comes with its
        probed lists: the stack keeps only the cells they change (``(cell, new
        list)`` pairs), and the search moves to them, recorded in the trail. On
        a small one a node of the stack keeps its lists and a child propagates
        on a copy (the last child on the node's own): copying a list of a few
        thousand ints is faster in CPython than replaying a trail. The two
        give the same search (the same counters and solutions).
        """
        propagate = self.propagate
        undo_to, move_to = self.undo_moves
        trailed = self.uses_trail
        undo: list[tuple[int, int]] | None = [] if trailed else None
        counter = self.counter
        expired = self.expired
        limit = self.limit
        solutions = self.solutions
        record = self.record
        stats = self.stats
        nodes = backtracks = 0
        max_depth = stats["max_depth"]
        stack: list[tuple[Any, list[Any]]] = []  # (trail length or lists, children left)
        check = _CHECK_EVERY
        branch = self.plain if switch else look
        alive = True  # doms/dual are a node to branch on (False: a dead end)
        try:
            while True:
                if alive:
                    kids: list[Any] | None = branch(doms, dual, undo)
                    if kids:
                        if undo is None:
                            stack.append(((doms, dual), kids))
                        else:
                            if kids[0].doms is not None:  # lookahead: keep the changes only
                                kids = [(c, bit, _changes(doms, d), None, removed)
                                        for c, bit, d, _, removed in kids]
                            stack.append((len(undo), kids))
                        kids.reverse()  # popped from the end
                        if len(stack) > max_depth:
                            max_depth = len(stack)
                    elif kids is None:
                        alive = False
                    else:  # every cell fixed
                        record(doms)
                        if limit is not None and len(solutions) >= limit:
                            return True
                if not alive:  # a dead end (branching or propagation failed)
                    backtracks += 1
                    if backtracks == switch:
                        branch = look
                    if backtracks == budget:
                        return None
                    if not backtracks % turn:
                        yield
                if not stack:
                    return True
                node, kids = stack[-1]
                c, bit, d, u, removed = kids.pop()
                if not kids:
                    stack.pop()
                nodes += 1
                check -= 1
                if not check:
                    check = _CHECK_EVERY
                    if expired():
                        return False
                if undo is not None:
                    undo_to(doms, dual, undo, node)  # back to the parent's lists
                    if d is not None:  # propagated by the lookahead
                        move_to(doms, dual, undo, d)
                        counter[0] += removed
                        alive = True
                    else:
                        alive = propagate(doms, dual, [(c, bit)], None, None, undo)
                elif d is not None:  # propagated by the lookahead
                    counter[0] += removed
                    alive = True
                    doms = d
                    dual = u
                else:
                    doms, dual = node
                    if kids:
                        doms = doms[:]
                        dual = dual[:]
                    alive = propagate(doms, dual, [(c, bit)])
        finally:
            stats["nodes"] += nodes
            stats["backtracks"] += backtracks
            stats["max_depth"] = max(stats["max_depth"], max_depth)

    def split(self, start: tuple[list[int], list[int]], branch: Brancher, target: int
              ) -> tuple[list[tuple[list[int], list[int], int]], int] | None:
        """The first levels of the search tree from ``start``, branching with ``branch``.

        The frontier goes one level deeper at a time until it holds ``target``
        nodes or only solutions; a child whose propagation fails is a dead end
        (counted, dropped). Nodes and dead ends count as in :meth:`dfs`, so
        that the split's counters plus those of searches from the frontier's
        nodes add up to one search's.

        Returns:
            ``(frontier, depth)``: the nodes ``(doms, dual, level)`` in search
            order (a solution found above ``depth`` stays at its level), or None
            when :attr:`expired` stopped the split.
        """
        propagate = self.propagate
        stats = self.stats
        frontier = [(start[0], start[1], 0)]
        depth = 0
        while len(frontier) < target:
            deeper: list[tuple[list[int], list[int], int]] = []
            grew = False
            for doms, dual, level in frontier:
                if self.expired():
                    return None
                kids = branch(doms, dual) if level == depth else []
                if kids is None:
                    stats["backtracks"] += 1
                    continue
                if not kids:  # a solution: a subproblem with one leaf
                    deeper.append((doms, dual, level))
                    continue
                grew = True
                for c, bit, d, u, removed in kids:
                    stats["nodes"] += 1
                    if d is None:
                        d = doms[:]
                        u = dual[:]
                        if not propagate(d, u, [(c, bit)]):
                            stats["backtracks"] += 1
                            continue
                    else:
                        self.counter[0] += removed
                    assert u is not None
                    deeper.append((d, u, level + 1))
            frontier = deeper
            if not grew:
                break
            depth += 1
        stats["max_depth"] = max(stats["max_depth"], depth)
        return frontier, depth


def _changes(doms: list[int], target: list[int]) -> list[tuple[int, int]]:
    """``(cell, list)`` of the cells whose list in ``target`` differs from ``doms``."""
    return [(c, t) for c, (d, t) in enumerate(zip(doms, target, strict=True)) if d != t]


def _finish(search: Generator[None, None, bool | None]) -> bool | None:
    """Run a search generator to its end; its answer."""
    while True:
        try:
            next(search)
        except StopIteration as stop:
            return stop.value


def _portfolio(searches: list[Generator[None, None, bool | None]]) -> bool:
    """Run searches in turns (the first alone for ``_SOLO`` dead ends) until one
    finishes; its answer."""
    try:
        for _ in range(_SOLO // _SLICE):  # the first search alone for a while
            next(searches[0])
        while True:
            for search in searches:
                next(search)
    except StopIteration as stop:
        return bool(stop.value)


def _solve_parallel(prog: ListcolorProgram, settings: dict[str, Any], limit: int | None,
                    deadline: Deadline, workers: int
                    ) -> tuple[list[tuple[Any, ...]], bool, dict[str, Any]]:
    """``workers=N`` (seed 004): split the search at its first levels into
    subproblems, solve them in N processes
    (:func:`~futocp.backends.parallel.run_parallel`). Answers ``(solutions,
    finished, stats)``.

    The split begins as the sequential search does. Enumerating, or with
    lookahead ``never``, or one lookahead weight: the tree is split, level by
    level, with the plain brancher (``never``, and ``auto`` when enumerating:
    the workers then switch in their subtrees) or with the lookahead
    (``always``; ``auto`` with limit 1 once the plain search has met
    ``_AUTO_SWITCH`` dead ends here, as the sequential search restarts).
    With limit 1 and the ``portfolio`` weight, the sequential search runs
    one lookahead search per weight in turns: here they run side by side,
    one per process (each weight's tree split in turn when there are more
    workers than weights), the first to finish answering.
    """
    main = _Search(prog, limit, deadline.expired, **settings)
    extra: dict[str, Any] = {"workers": workers, "worker_nodes": [0] * workers,
                             "split_depth": 0, "split_nodes": 0, "subproblems": 0}

    def answer(finished: bool) -> tuple[list[tuple[Any, ...]], bool, dict[str, Any]]:
        extra["split_nodes"] = main.stats["nodes"]
        return main.solutions, finished, {**main.counts(), **extra}

    start = main.root()
    if start is None:
        return answer(True)
    mode = settings["lookahead"]
    weights = [settings["weight"]]
    if weights == ["portfolio"]:
        weights = ["removed", "binary"] if limit == 1 and mode != "never" else ["removed"]
    subproblems: list[tuple[list[int], list[int], int, str]] = []
    groups: list[str] = []
    try:
        if mode == "auto" and limit == 1:
            doms, dual = start
            out = _finish(main.dfs(doms[:], dual[:], main.looks[0], _NEVER, _AUTO_SWITCH, _NEVER))
            if out is not None:
                return answer(out)
            mode = "always"
        if mode != "always":  # a plain split
            splits = [main.split(start, main.plain, workers * _SPLIT_PER_WORKER)]
        elif len(weights) >= workers:  # a portfolio: each search from the root
            splits = [([(start[0][:], start[1][:], 0)], 0) for _ in weights]
        else:  # each weight's tree split by its own lookahead
            per_weight = -(-workers * _LOOKAHEAD_SPLIT_PER_WORKER // len(weights))
            splits = [main.split((start[0][:], start[1][:]), look, per_weight)
                      for look in main.looks]  # a lookahead narrows its node's lists
    except _Timeout:
        return answer(False)
    depth = 0
    for weight, split in zip(weights, splits, strict=True):
        if split is None:
            return answer(False)
        frontier, level = split
        depth = max(depth, level)
        subproblems += [(doms, dual, level, weight) for doms, dual, level in frontier]
        groups += [weight] * len(frontier)
    # the groups' subproblems in turns, so that every search starts at once
    seen: Counter[str] = Counter()
    turn = []
    for weight in groups:
        turn.append(seen[weight])
        seen[weight] += 1
    order = sorted(range(len(subproblems)), key=lambda i: (turn[i], i))
    subproblems = [subproblems[i] for i in order]
    groups = [groups[i] for i in order]
    extra["split_depth"] = depth
    extra["subproblems"] = len(subproblems)
    if len(weights) > 1:
        extra["portfolio"] = len(weights)
    if any(not seen[weight] for weight in weights):
        return answer(True)  # a search with no subproblem left: no solution

    def solve_one(sub: tuple[list[int], list[int], int, str], limit: int | None,
                  interrupted: Callable[[], bool]
                  ) -> tuple[list[tuple[Any, ...]], bool, dict[str, Any]]:
        doms, dual, level, weight = sub
        search = _Search(prog, limit, interrupted, **{**settings, "lookahead": mode,
                                                      "weight": weight})
        finished = search.run((doms, dual))
        stats = search.counts()
        stats["max_depth"] += level
        return search.solutions, finished, stats

    par = run_parallel(subproblems, solve_one, workers, limit, deadline, node_key="nodes",
                       maxima=("max_depth",), groups=groups)
    solutions, finished, stats = answer(par.finished)
    for key, value in par.stats.items():
        stats[key] = max(stats[key], value) if key == "max_depth" else stats[key] + value
    stats["worker_nodes"] = par.worker_nodes
    stats["worker_cpu_s"] = [round(t, 3) for t in par.worker_cpu_s]
    return par.solutions, par.finished, stats
