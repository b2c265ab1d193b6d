"""Work sharing in the parallel search (seed 004, issue 9).

A busy run gives the later part of its tree away (``run_search(share=...)``);
the pool (:func:`~futocp.backends.parallel.run_parallel`) hands the parts out
in search order. Checked here: the parts, solved in key order, reproduce the
sequential search exactly (solutions, order, every counter), in process with a
share that asks at every poll and through the real pool with polls so
frequent that the tree is cut into many parts; a first-solution search
answers the sequential search's first solutions.
"""

from __future__ import annotations

import heapq
import multiprocessing
from typing import Any

import pytest

from futocp.backends import get_backend, parallel, seedsearch
from futocp.backends.base import Deadline
from futocp.backends.parallel import run_parallel
from futocp.backends.seedsearch import compile_search, run_search
from futocp.families import futoshiki, latin_square
from futocp.generate import futoshiki_puzzle
from futocp.model import build_model
from futocp.verify import verify

CONFIGS = [("bt", {}), ("bt", {"order": "mrv"}), ("fc", {}), ("mac", {}),
           ("colorfutoshiki", {})]
BOARDS = [
    latin_square(4),
    futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
              less=[((0, 0), (0, 1)), ((2, 2), (3, 2))]),
    futoshiki_puzzle(5, inequalities=4, givens=3, seed=2),
]


@pytest.fixture
def frequent_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Polls (and so shares) after every few tests, a kept subtree of 2 tests,
    no first split: the workers share from the root."""
    monkeypatch.setattr(seedsearch, "_CHECK_EVERY", 3)
    monkeypatch.setattr(seedsearch, "_CHECK_EVERY_COSTLY", 2)
    monkeypatch.setattr(seedsearch, "_KEEP", 2)
    monkeypatch.setattr(seedsearch, "_SUBPROBLEMS_PER_WORKER", 0)


class EagerShare:
    """A share that asks for part of the work at every ``every``-th poll, for
    all of it back at the ``back``-th, and keeps what it is given."""

    def __init__(self, every: int, back: int) -> None:
        self.polls = 0
        self.every = every
        self.back = back
        self.given: list[tuple[tuple[int, ...], Any]] = []

    def returned(self) -> bool:
        self.polls += 1
        return self.polls == self.back

    def wanted(self) -> bool:
        return self.polls % self.every == 0

    def give(self, key: tuple[int, ...] | None, sub: Any = None) -> None:
        if key is not None:
            self.given.append((key, sub))


def solve_by_parts(prog, every: int, back: int) -> tuple[list[Any], dict[str, int], int]:
    """Every part given away solved in turn; the leaves in key order."""
    todo: list[tuple[tuple[int, ...], Any]] = [((), ((), None))]
    counters: dict[str, int] = {}
    done = []
    while todo:
        key, (prefix, windows) = heapq.heappop(todo)
        share = EagerShare(every, back)
        run = run_search(prog, prefix=prefix, windows=windows, share=share)
        assert run.finished
        done.append((key, run.leaves))
        for name, value in run.counters.items():
            counters[name] = counters.get(name, 0) + value
        for item in share.given:
            assert item[0] > key  # a part given away comes later in search order
            heapq.heappush(todo, item)
    done.sort(key=lambda kv: kv[0])
    return [leaf for _, leaves in done for leaf in leaves], counters, len(done)


@pytest.mark.parametrize("config", CONFIGS, ids=[f"{n}-{o}" for n, o in CONFIGS])
def test_parts_reproduce_the_sequential_search(config, frequent_polls) -> None:
    name, opts = config
    for every, back, board in zip((1, 2, 16), (3, 2, 5), BOARDS, strict=True):
        prog = compile_search(build_model(board), get_backend(name).algorithm, **opts)
        seq = run_search(prog)
        leaves, counters, parts = solve_by_parts(prog, every, back)
        assert parts > 10
        assert leaves == seq.leaves  # the same solutions in the same order
        assert counters == seq.counters  # every counter exactly


@pytest.mark.parametrize("name", ["bt", "colorfutoshiki"])
def test_many_parts_enumerate_as_sequential(name: str, frequent_polls) -> None:
    model = build_model(BOARDS[2])
    seq = get_backend(name).solve(model, limit=None, time_limit=60)
    par = get_backend(name).solve(model, limit=None, time_limit=60, workers=2)
    assert seq.n_solutions == par.n_solutions == 33
    assert par.solutions == seq.solutions
    for key in ("explored_nodes", "assignments", "backtracks", "removed_values"):
        assert par.stats[key] == seq.stats[key], key
    assert par.stats["shared"] > 0 and par.stats["subproblems"] > par.stats["shared"]
    assert par.stats["split_depth"] == 0 and par.stats["split_nodes"] == 0
    assert sum(par.stats["worker_nodes"]) + par.stats["split_nodes"] == seq.stats["explored_nodes"]
    assert len(par.stats["worker_cpu_s"]) == 2
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("name", ["bt", "mac"])
def test_first_solutions_are_the_sequential_ones(name: str, frequent_polls) -> None:
    for board in BOARDS:
        model = build_model(board)
        for limit in (1, 7):
            seq = get_backend(name).solve(model, limit=limit, time_limit=60)
            par = get_backend(name).solve(model, limit=limit, time_limit=60, workers=2)
            assert par.solutions == seq.solutions  # the first ones in search order
            assert par.status is seq.status
            assert all(not verify(board, s) for s in par.solutions)
    assert not multiprocessing.active_children()


def test_pool_answers_in_key_order_and_drops_later_parts() -> None:
    # keys out of list order: the answer follows the keys; with ordered=True the
    # first solution in key order is the answer even when a later part finds one
    def solve_one(sub, limit, interrupted):
        return ([sub] if sub % 2 == 0 else []), True, {"nodes": 1}

    subs = [5, 4, 3, 2, 1]
    run = run_parallel(subs, solve_one, 2, None, Deadline(30), keys=[(s,) for s in subs])
    assert run.solutions == [2, 4] and run.finished
    first = run_parallel(subs, solve_one, 2, 1, Deadline(30), keys=[(s,) for s in subs],
                         ordered=True)
    assert first.solutions == [2] and first.finished
    assert not multiprocessing.active_children()


class OnceShare(EagerShare):
    """A share that asks for part of the work at the first poll only."""

    def wanted(self) -> bool:
        return self.polls == 1


def test_a_young_run_gives_once_it_can(frequent_polls, monkeypatch: pytest.MonkeyPatch) -> None:
    # asked before it has taken _KEEP tests, a run does not answer "nothing":
    # it gives its later part at the first poll where it has one to give
    monkeypatch.setattr(seedsearch, "_KEEP", 40)
    prog = compile_search(build_model(BOARDS[2]), "bt")
    share = OnceShare(every=1, back=-1)
    polls_at_give = []
    give = share.give

    def spy(key, sub=None):
        polls_at_give.append(share.polls)
        give(key, sub)

    share.give = spy  # type: ignore[method-assign]
    first = run_search(prog, share=share)
    assert len(share.given) == 1 and len(polls_at_give) == 1
    assert polls_at_give[0] * seedsearch._CHECK_EVERY >= 40 > seedsearch._CHECK_EVERY
    key, (prefix, windows) = share.given[0]
    rest = run_search(prog, prefix=prefix, windows=windows)
    assert first.leaves + rest.leaves == run_search(prog).leaves


def test_an_idle_worker_shares_the_earliest_part_before_a_far_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # "early" has not given anything away yet, and a later part waits: the idle
    # worker gets the later half of "early" (key (1,)) rather than "far"; its
    # solution then makes "far" useless, so "far" is never searched (a long
    # hold, so that a loaded machine cannot make the wait run out)
    import time

    monkeypatch.setattr(parallel, "_HOLD_S", 30.0)

    def solve_one(sub, limit, interrupted, share):
        if sub == "early":
            start = time.perf_counter()
            while not interrupted() and time.perf_counter() - start < 10:
                if share.wanted():
                    share.give((1,), "given")
                    break
                time.sleep(0.001)
            return [], True, {"nodes": 1}
        return ([] if sub == "mid" else [sub]), True, {"nodes": 1, sub: 1}

    run = run_parallel(["early", "mid", "far"], solve_one, 2, 1, Deadline(30),
                       keys=[(0,), (3,), (5,)], ordered=True, share=True)
    assert run.solutions == ["given"] and run.finished
    assert run.stats.get("given") == 1 and "far" not in run.stats
    assert not multiprocessing.active_children()
