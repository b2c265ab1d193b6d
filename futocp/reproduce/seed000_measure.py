"""Seed 000's instances and measurements: hidden-solution generators, node limits, CPU time.

The paper does not say how its instances were made (spec §1.6). Every
instance here is drawn the same way, up to its *hidden solution*: a uniformly
random Latin square ``L`` (Jacobson-Matthews), ``K`` distinct neighbour pairs
and ``G`` cells drawn at random; then the hidden solution ``H`` is one of
(:data:`GENERATORS`):

* ``uniform``: ``L`` itself (the givens show ``L``'s labels);
* ``btfirst``: the first completion of ``L``'s givens in FutoshikiBT's order
  (row-major, ascending values), as the paper's own backtracking would find
  it from the givens alone;
* ``lexfirst``: the lexicographically first Latin square (the first
  completion of the empty board), the givens showing its labels;
* ``cyclic``: ``H[r][c] = (r + c) mod n + 1``.

The signs are the ``K`` pairs oriented by ``H`` and the givens show ``H`` on
the ``G`` cells; every generator uses the same draws for one (n, K, G, index),
so the rows of two generators differ only by the hidden solution.

:func:`measure_instance` (one task of :func:`futocp.reproduce.measure.run_tasks`)
draws an instance and runs both algorithms in paper mode (the engine of
``bt`` and ``colorfutoshiki`` with ``lists=paper``, through
:func:`~futocp.backends.seedsearch.compile_search` and
:func:`~futocp.backends.seedsearch.run_search`): once to count (explored nodes,
stopped at ``node_limit``: a count reached there is a lower bound, the run
``finished`` False), then, when it finished, ``repetitions`` more times for
the CPU time of the whole algorithm (ColorFutoshiki's list building
included, as the paper times it; the compilation of the board into arrays,
which both share, left out of both). Both solutions are verified.

Example:
    >>> board, hidden = seed000_board(6, 6, 20, "btfirst", seed=1)
    >>> len(board.clues), len(board.relations)
    (20, 6)
    >>> from futocp.verify import is_solution
    >>> is_solution(board, hidden)
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..board import Board
from .measure import CpuClock

__all__ = ["GENERATORS", "first_completion", "seed000_board",
           "node_stop", "measure_instance"]

#: The hidden-solution generators (module docstring); the first two run by default.
GENERATORS = ("uniform", "btfirst", "lexfirst", "cyclic")
ALGORITHMS = {"CF": "colorfutoshiki", "BT": "bt"}
#: Tests between two polls of ``interrupted`` by the static search (the engine's
#: clock check); a node limit counts polls. Were the engine to poll at another
#: rate, the limit would shift, never the counts (``explored_nodes`` is exact).
POLL_EVERY = 256


def node_stop(limit: int | None) -> Callable[[], bool]:
    """An ``interrupted`` callback for :func:`~futocp.backends.seedsearch.run_search`
    that stops the search near ``limit`` explored nodes.

    The search polls it every few hundred tests; it counts the polls and asks to
    stop once they reach the limit's share, so a search stopped by it has
    explored at least about ``limit`` nodes (its counter says exactly how many).
    """
    if limit is None:
        return lambda: False
    polls = [0]
    most = max(1, -(-limit // POLL_EVERY))

    def stop() -> bool:
        polls[0] += 1
        return polls[0] >= most

    return stop


def first_completion(n: int, clues: Mapping[int, int], limit: int | None = None
                     ) -> list[int] | None:
    """The first Latin square extending ``clues`` (cell -> label) in FutoshikiBT's
    order: row-major cells, ascending labels; None when none is found within
    ``limit`` explored nodes.

    The search is ColorFutoshiki's (the same static order over the givens'
    lists): it finds the same first solution as plain backtracking, in fewer
    nodes. With many givens and many holes (e.g. 50x50 with 1200 givens) the
    first completion of random givens is out of its reach in any affordable
    number of nodes: such draws are reported, never replaced.

    Example:
        >>> first_completion(3, {})
        [1, 2, 3, 2, 3, 1, 3, 1, 2]
    """
    from ..backends.seedsearch import compile_search, run_search
    from ..families import futoshiki
    from ..model import build_model

    grid = [[clues.get(r * n + c, 0) for c in range(n)] for r in range(n)]
    prog = compile_search(build_model(futoshiki(n, grid), filtering="none"), "colorfutoshiki")
    run = run_search(prog, limit=1, interrupted=node_stop(limit))
    if not run.leaves:
        return None
    return [int(x) for x in run.leaves[0]]


def _hidden(generator: str, n: int, square: Sequence[int], cells: Sequence[int],
            completion_limit: int | None) -> list[int] | None:
    if generator == "uniform":
        return list(square)
    if generator == "btfirst":
        return first_completion(n, {c: square[c] for c in cells}, completion_limit)
    if generator == "lexfirst":
        return first_completion(n, {}, completion_limit)
    if generator == "cyclic":
        return [(r + c) % n + 1 for r in range(n) for c in range(n)]
    raise ValueError(f"unknown generator {generator!r} (known: {', '.join(GENERATORS)})")


def seed000_board(n: int, inequalities: int, givens: int, generator: str, seed: int,
                  completion_limit: int | None = None) -> tuple[Board, list[int]]:
    """One seed-000 instance and its hidden solution (module docstring).

    Raises:
        ValueError: for an unknown generator, or a btfirst completion not found
            within ``completion_limit`` nodes.
    """
    from ..families import futoshiki, neighbour_pairs
    from ..generate import random_latin_square

    rng = random.Random(seed)
    square = [v for row in random_latin_square(n, rng=rng) for v in row]
    pairs = neighbour_pairs(futoshiki(n))
    chosen = sorted(rng.sample(range(len(pairs)), inequalities))
    cells = sorted(rng.sample(range(n * n), givens))
    hidden = _hidden(generator, n, square, cells, completion_limit)
    if hidden is None:
        raise ValueError(f"{generator}: no completion of the givens within "
                         f"{completion_limit} nodes")
    shown = set(cells)
    grid = [[hidden[r * n + c] if r * n + c in shown else 0 for c in range(n)]
            for r in range(n)]
    less = []
    for i in chosen:
        a, b = pairs[i]
        lo, hi = (a, b) if hidden[a] < hidden[b] else (b, a)
        less.append(((lo // n, lo % n), (hi // n, hi % n)))
    return futoshiki(n, grid, less), hidden


def _timed(model: Any, algorithm: str, node_limit: int | None) -> tuple[Any, Any, float, float]:
    """Compile and search once (paper mode): the program, the run, and the CPU
    seconds of the compilation and of the search."""
    from ..backends.seedsearch import compile_search, run_search

    clock = CpuClock()
    prog = compile_search(model, algorithm)  # lists=paper for colorfutoshiki
    compiled = clock.seconds()
    run = run_search(prog, limit=1, interrupted=node_stop(node_limit))
    return prog, run, compiled, clock.seconds() - compiled


def _repetition(model: Any, node_limit: int | None, which: tuple[str, ...]
                ) -> dict[str, float]:
    """One timed repetition: BT's compilation (the structure both algorithms share:
    the board's arrays), then each algorithm of ``which``. CF's time is its list
    building (its compilation less BT's) plus its search; BT's is its search."""
    _, _, struct, bt_search = _timed(model, "bt", node_limit if "BT" in which else 1)
    out = {"struct": struct}
    if "BT" in which:
        out["BT"] = bt_search
    if "CF" in which:
        _, _, compiled, search = _timed(model, "colorfutoshiki", node_limit)
        out["CF"] = max(0.0, compiled - struct) + search
    return out


def measure_instance(task: Mapping[str, Any]) -> dict[str, Any]:
    """Draw one instance and measure CF and BT on it (module docstring); a draw
    that fails (no btfirst completion within ``completion_limit``) is recorded
    with ``status`` ``no instance`` and the reason.

    The task holds ``n, K, G, generator, seed, node_limit, repetitions``
    (``completion_limit`` optional). The record adds, per algorithm (prefix
    ``cf_`` / ``bt_``): ``en`` (explored nodes; at least this many when not
    ``finished``), ``finished``, ``cpu_ms`` (CPU milliseconds of each timed
    repetition -- ``repetitions`` of them when finished, the counting run's
    alone otherwise; BT's search, CF's list building plus search, the two
    interleaved), ``verified``; ``struct_ms`` (the shared compilation, left
    out of both); ``cf_rn`` (the single pass's removed values);
    ``same_solution`` (CF and BT stop at the same first solution) and
    ``hidden_first`` (it is the hidden solution); ``draw_s`` (CPU seconds to
    draw the instance).
    """
    from ..model import build_model
    from ..verify import is_solution

    clock = CpuClock()
    try:
        board, hidden = seed000_board(int(task["n"]), int(task["K"]), int(task["G"]),
                                      str(task["generator"]), int(task["seed"]),
                                      task.get("completion_limit"))
    except ValueError as exc:
        return {**task, "status": "no instance", "reason": str(exc),
                "draw_s": round(clock.seconds(), 4)}
    record: dict[str, Any] = {**task, "status": "ok", "draw_s": round(clock.seconds(), 4)}
    model = build_model(board, filtering="none")
    limit = task.get("node_limit")
    counting = {}
    first: dict[str, Any] = {}
    struct, _, _, _ = _timed(model, "bt", 1)  # warm-up
    for tag, algorithm in (("BT", "bt"), ("CF", "colorfutoshiki")):
        prog, run, compiled, search = _timed(model, algorithm, limit)
        finished = bool(run.finished and run.leaves)
        counting[tag] = (prog, run, compiled, search, finished)
        if finished:
            first[tag] = list(run.leaves[0])
    done = tuple(tag for tag in ("BT", "CF") if counting[tag][4])
    reps = [_repetition(model, limit, done) for _ in range(int(task["repetitions"]))] \
        if done else []
    bt_compiled = counting["BT"][2]
    for tag in ("BT", "CF"):
        prog, run, compiled, search, finished = counting[tag]
        prefix = tag.lower() + "_"
        if finished:
            times = [r[tag] for r in reps]
        else:
            times = [search if tag == "BT" else max(0.0, compiled - bt_compiled) + search]
        record[prefix + "en"] = run.counters["explored_nodes"]
        record[prefix + "finished"] = finished
        record[prefix + "cpu_ms"] = [round(1000 * t, 5) for t in times]
        record[prefix + "verified"] = finished and is_solution(board, run.leaves[0])
        if tag == "CF":
            record["cf_rn"] = prog.root_removed
    record["struct_ms"] = [round(1000 * r["struct"], 5) for r in reps]
    record["same_solution"] = len(first) == 2 and first["CF"] == first["BT"]
    record["hidden_first"] = first.get("BT", first.get("CF")) == hidden
    return record
