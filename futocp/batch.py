"""Batch solving: a collection of boards, those of one structure solved in one call of C.

:func:`solve_many` groups the boards by structure (the same cells, asterisms,
labels and relations: only the clues differ, as in a Sudoku collection),
builds and compiles the Model of each structure once, and hands every board
of it to listcolor's compiled core at once (``run_many``: the givens of all
the boards in one bytes object). Each board is settled and searched exactly
as :func:`futocp.solve` would (the same search from the same root lists: the
core's settling reaches the fixpoint the Model's list filtering starts), so
the solutions and their order are the same.

``workers=N`` splits each structure's boards into contiguous chunks (up to
8 per thread) that N threads (:class:`concurrent.futures.ThreadPoolExecutor`)
take in turn, one call of ``run_many`` each: the core reads every input with
the GIL, runs its searches without it (two cores: two searches at once), and
makes its rows with it again. Each board's search is the one of
``workers=1``, so the Results are the same; only the time changes.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from .api import solve
from .backends import get_backend
from .backends import listcolor as _lc
from .backends.base import Backend
from .board import Board
from .errors import SolverError
from .model import build_model
from .records import stop_reason
from .result import Result, Status
from .verify import verify

__all__ = ["solve_many"]

_BATCH_OPTIONS = frozenset({"lookahead", "weight", "branching", "hidden_singles",
                            "locked_candidates", "workers"})
"""The options the batch path takes (``workers``: threads over the boards); any other
(``core``, a time limit, a seed) solves board by board."""

_PIECES = 8
"""Chunks per worker thread at most. The puzzles of a collection are not alike
(top1465's first half took 36 ms of CPU, its second 23 ms): smaller chunks,
taken in turn by the threads, keep them busy to the end."""
_PIECE_MIN = 16
"""Boards a chunk has at least (each call of the core reads the program's lists
and makes its scratch), unless that leaves a thread without one."""


def solve_many(boards: Iterable[Board], backend: str = "listcolor", *, limit: int | None = 1,
               **options: Any) -> list[Result]:
    """Solve every board of a collection; one Result per board, in order.

    With ``backend="listcolor"`` and its compiled core built, the boards of one
    structure are solved in one call of the core (the compiled program is
    kept; only the givens differ); with ``workers=N``, in calls on N threads
    at once (the core searches without the GIL), each thread taking
    contiguous chunks of the boards in turn. Other backends, other options
    (``seed``, ``time_limit``, ``core``) and programs the core does not take
    are solved board by board with :func:`futocp.solve` (``workers`` then
    means what it means there: listcolor splits each search over N
    processes).

    Every solution is verified before it is returned, with the semantics of
    :func:`futocp.verify.verify` (every label a label of the board, the
    clues kept, every asterism holding the board's multiset of labels, every
    relation holding). On the batch path the core checks the clues and
    asterisms in C, on the value index of each cell that it keeps for a
    solution (against the board's own asterisms and clues, not the compiled
    program), and makes the label tuples from those indices (every label one
    of the board's labels); the relations of a board that has any are checked
    by :func:`~futocp.verify.verify` itself. A wrong solution raises
    :class:`~futocp.errors.SolverError`.

    Args:
        boards: The boards.
        backend: A backend name (default ``listcolor``, the batch path).
        limit: Most solutions per board (None: all).
        **options: The backend's options (and ``time_limit``, ``seed``,
            ``filtering`` as :func:`futocp.solve` takes them). On the batch
            path ``workers`` (default 1) is the number of threads solving the
            boards at once: the Results (solutions, counters, verdicts) are
            those of ``workers=1``, in the same order; only ``solve_s`` and
            ``wall_s`` change. 1 by default, so that timings do not depend on
            the machine's other load; on top1465 with two free cores,
            ``workers=2`` measured 1.4-1.75x faster by wall clock (for a
            little more CPU time: docs/performance.md, issue 25 item 6); on
            cores busy with other work it gains little.

    Returns:
        The Results, in the order of ``boards``: the status and solutions of
        :func:`futocp.solve`'s, and its counters. One difference: a board whose
        givens and list filtering decide every cell is answered by
        :func:`futocp.solve` without a search, ``exhausted`` (it knows the
        solution is the only one); the batch searches it, and with ``limit``
        reached does not claim that. On the batch path a Result's
        ``solve_s`` and ``wall_s`` are its share of the whole call (the
        boards are not timed one by one) and ``build_s`` is 0 but for the
        first board of each structure, which pays for the Model.

    Raises:
        SolverError: A solution fails verification.
        UsageError, UnsupportedError: As :func:`futocp.solve`.
    """
    boards = list(boards)
    if backend != "listcolor" or not set(options) <= _BATCH_OPTIONS or not _lc.core_available():
        return [_checked(solve(b, backend, limit=limit, **options)) for b in boards]
    out: list[Result | None] = [None] * len(boards)
    collecting = gc.isenabled()
    gc.disable()  # the batch makes many small objects and no cycles: no collection passes
    try:
        groups = _by_structure(boards)
        if len(groups) == 1:  # one structure (a collection): its Results are in order
            return _solve_group(boards, limit, options)
        for indices in groups.values():
            for i, result in zip(indices,
                                 _solve_group([boards[i] for i in indices], limit, options),
                                 strict=True):
                out[i] = result
    finally:
        if collecting:
            gc.enable()
    return [r for r in out if r is not None]


def _checked(result: Result) -> Result:
    """``result`` once every solution of it passes :func:`~futocp.verify.verify`
    (its verdicts kept: :meth:`~futocp.result.Result.violations`)."""
    if result.board is not None:
        for broken in result.violations():
            if broken:
                raise SolverError(
                    f"backend {result.backend!r} answered a wrong solution: {broken[0]}")
    return result


def _by_structure(boards: Sequence[Board]) -> dict[Any, list[int]]:
    """The indices of the boards per structure (everything but the clues)."""
    groups: dict[Any, list[int]] = {}
    last: tuple[Any, list[int]] | None = None
    for i, b in enumerate(boards):
        key = (b.n_cells, b.asterisms, b.labels, b.relations)
        # a collection's boards share their parts' items: comparing with the previous
        # board's structure is cheap, hashing the asterisms is not
        if last is None or key != last[0]:
            last = (key, groups.setdefault(key, []))
        last[1].append(i)
    return groups


def _solve_group(boards: Sequence[Board], limit: int | None, options: dict[str, Any]
                 ) -> list[Result]:
    """The boards of one structure: in one call of the compiled core, or (a program
    the core does not take) one by one."""
    t0 = time.perf_counter()
    solver = get_backend("listcolor")
    opts = solver.parse_options(options)
    first = boards[0]
    model = build_model(first)
    solver.check(model)
    prog = _lc.compile_program(model)
    native = _lc._native_program(prog)
    if native is None or _lc.core_fallback(prog):
        return [_checked(solve(b, "listcolor", limit=limit, **options)) for b in boards]
    values = model.values
    module = _lc._native_module(native)
    givens = memoryview(module.pack_givens(native, [b.clues for b in boards]))
    # the lists before the clues: the one-cell relations' givens (no filtering)
    bare = build_model(replace(first, clues=()), filtering="none").domains
    base = [bare[c] for c in prog.cells]
    want = [first.multiplicity.get(v, 0) for v in values]
    weights = [opts["weight"]]
    if opts["weight"] == "portfolio":
        weights = ["removed", "binary"] if limit == 1 else ["removed"]
    n = len(prog.cells)

    def run(chunk: tuple[int, int]) -> list[Result]:
        # on a worker thread, the Results of a chunk are made (with the GIL) while the
        # other threads' searches go on
        lo, hi = chunk
        rows = module.run_many(native, base, givens[lo * n:hi * n], hi - lo, limit,
                               opts["lookahead"], weights, opts["branching"] == "dual",
                               opts["hidden_singles"], opts["locked_candidates"],
                               first.asterisms, want)
        return _results(boards[lo:hi], rows, limit)

    count = len(boards)
    workers = min(opts["workers"], count)
    t1 = time.perf_counter()
    if workers == 1:
        out = run((0, count))
    else:
        chunks = _chunks(count, max(workers, min(workers * _PIECES, count // _PIECE_MIN)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            out = [r for part in pool.map(run, chunks) for r in part]
    share = (time.perf_counter() - t1) / count
    build = t1 - t0
    for r in out:
        stats = r.stats
        stats["solve_s"] = stats["wall_s"] = share
    stats = out[0].stats  # the first board pays for the Model
    stats["build_s"], stats["wall_s"] = build, build + share
    return out


def _chunks(count: int, pieces: int) -> list[tuple[int, int]]:
    """``count`` boards as at most ``pieces`` contiguous (start, stop) chunks, in
    order, none empty, their sizes differing by at most one."""
    k = max(1, min(pieces, count))
    return [(count * i // k, count * (i + 1) // k) for i in range(k)]


def _results(boards: Sequence[Board], rows: Sequence[tuple[Any, ...]], limit: int | None
             ) -> list[Result]:
    """The Results of ``run_many``'s rows, each solution checked (the core checked the
    clues and asterisms; a board's relations are checked here); their times
    are 0 (the caller sets them)."""
    out: list[Result] = []
    append = out.append
    # a row's status, exhausted flag and stop reason depend on its count of solutions
    # and whether it finished alone (limit is the batch's): made once per pair
    ends: dict[tuple[int, bool], tuple[Status, bool, str]] = {}
    for b, row in zip(boards, rows, strict=True):
        finished, nodes, backtracks, max_depth, probes, failed, dilemma, removed, ok, sols = row
        if b.relations or not ok:
            verdicts = {i: verify(b, s) for i, s in enumerate(sols)}
            broken = next((v for v in verdicts.values() if v), None)
            if broken or not ok:
                why = broken[0] if broken else "the compiled core's check failed"
                raise SolverError(f"listcolor's batch answered a wrong solution: {why}")
        elif len(sols) == 1:  # the common case, without a comprehension's function call
            verdicts = {0: []}
        else:
            verdicts = {i: [] for i in range(len(sols))}
        end = ends.get((len(sols), finished))
        if end is None:
            status, exhausted = Backend.status_of(len(sols), finished, limit)
            end = ends[len(sols), finished] = (
                status, exhausted, stop_reason(True, status.value, finished, exhausted, {}))
        status, exhausted, stop = end
        stats = {"nodes": nodes, "backtracks": backtracks, "removed_values": removed,
                 "max_depth": max_depth, "probes": probes, "failed_literals": failed,
                 "dilemma_values": dilemma, "core": "compiled", "batch": True,
                 "build_s": 0.0, "solve_s": 0.0, "wall_s": 0.0, "stopped": stop}
        # verdicts: futocp.verify's, kept
        append(Result(status, sols, stats, "listcolor", exhausted, b, limit, verdicts))
    return out
