"""Genetic algorithm on the graph-colouring view (seed 002, Section 4, Algorithms 1-7).

An *incomplete* backend: it answers ``sat`` with solutions it has checked, or
``unknown``, never ``unsat``. The paper's GA (Algorithms 1-7) on the board
as a graph: rows of a partition as permutations, fitness = -(conflicting
edges), tournament selection, row crossover, swap mutation, elitist survivors.

The design, the options and the measurements behind the defaults:
``docs/backends.md``, section "genetic".

Example:
    >>> from futocp.families import sudoku
    >>> from futocp.model import build_model
    >>> board = sudoku((2, 2), [[1, 0, 0, 4], [0, 0, 1, 0], [0, 1, 0, 0], [4, 0, 0, 1]])
    >>> r = GeneticBackend().solve(build_model(board), seed=3)
    >>> r.status.value, r.stats["best_fitness"]
    ('sat', 0)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import eq, itemgetter
from typing import Any

from ..model import Model
from ..result import Result
from .anneal import find_partition, missing_labels, model_violations
from .base import Backend, Deadline, Option

__all__ = ["GeneticBackend", "GeneticProgram", "compile_genetic", "fitness", "PARAMETER_GRID",
           "MUTATE"]

MUTATE = ("all", "offspring")

#: Seed 002's parameter grid (Section 5.2, Tables 1-7), in the paper's sweep order
#: (population, then pm, then pc, then sp): 24 combinations, 10 runs each, cap 10000.
PARAMETER_GRID: tuple[dict[str, float | int], ...] = tuple(
    {"population": pop, "pm": pm, "pc": pc, "sp": sp}
    for pop in (10, 20, 30) for pm in (0.03, 0.07) for pc in (0.9, 1.0) for sp in (5, 10))


def _tuple_getter(indices: Sequence[int]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """``itemgetter(*indices)`` that always answers a tuple (also for 0 or 1 index)."""
    if len(indices) > 1:
        return itemgetter(*indices)
    if len(indices) == 1:
        i = indices[0]
        return lambda x: (x[i],)
    return lambda x: ()


@dataclass(frozen=True)
class GeneticProgram:
    """The compiled graph-colouring structure that :class:`GeneticBackend` runs.

    Attributes:
        n_values: Number of values (labels); value indices are ``0 .. n_values - 1``.
        partition: The indices (into ``model.groups``) of the row groups.
        rows: Per row, its cells in group order.
        row_missing: Per row, its missing labels (a multiset, ascending).
        fixed: Per cell, True when its list holds one label (never changed).
        start: A label per cell: the fixed cells' labels (others are drawn per individual).
        edges: The conflict edges ``(a, b)``, ``a < b``: pairs of cells sharing a
            group without repeated labels, not both fixed, not in one row.
        relations: ``(a, b, forward)`` per binary relation not between two fixed
            cells: ``forward[i]`` is the bit set of ``b``'s values allowed with
            value ``i`` of ``a``.
        counts: ``(cells, counts)`` per group with repeated labels that is not a row.
        base: Conflicts among fixed cells only (a constant; 0 unless the clues clash).
        odd: Per cell, True when it lies in an odd-numbered row (crossover mask).
    """

    n_values: int
    partition: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    row_missing: tuple[tuple[int, ...], ...]
    fixed: tuple[bool, ...]
    start: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]
    relations: tuple[tuple[int, int, tuple[int, ...]], ...]
    counts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    base: int
    odd: tuple[bool, ...]

    def row_free(self) -> tuple[tuple[int, ...], ...]:
        """Per row, its free cells."""
        return tuple(tuple(c for c in row if not self.fixed[c]) for row in self.rows)


def _surplus(vals: Sequence[int], cells: Sequence[int], counts: Sequence[int]) -> int:
    occ = [0] * len(counts)
    for c in cells:
        occ[vals[c]] += 1
    return sum(o - k for o, k in zip(occ, counts, strict=True) if o > k)


def fitness(prog: GeneticProgram, vals: Sequence[int]) -> int:
    """−(conflicting edges + broken relations + multiset surplus) of a colouring,
    by a full recount; 0 exactly at a solution."""
    bad = prog.base + sum(1 for a, b in prog.edges if vals[a] == vals[b])
    bad += sum(1 for a, b, fwd in prog.relations if not fwd[vals[a]] >> vals[b] & 1)
    bad += sum(_surplus(vals, cells, counts) for cells, counts in prog.counts)
    return -bad


def _fitness_function(prog: GeneticProgram) -> Callable[[Sequence[int]], int]:
    """A fast :func:`fitness` for one program (edges compared in C)."""
    left = _tuple_getter([a for a, _ in prog.edges])
    right = _tuple_getter([b for _, b in prog.edges])
    rels = prog.relations
    counts = prog.counts
    base = prog.base

    def fit(vals: Sequence[int]) -> int:
        bad = base + sum(map(eq, left(vals), right(vals)))
        if rels:
            bad += sum(1 for a, b, fwd in rels if not fwd[vals[a]] >> vals[b] & 1)
        for cells, cnt in counts:
            bad += _surplus(vals, cells, cnt)
        return -bad

    return fit


def compile_genetic(model: Model, partition: int = 0) -> GeneticProgram:
    """Build the graph-colouring structure of ``model`` on the partition that
    starts at group ``partition`` (:func:`~futocp.backends.anneal.find_partition`).

    Raises:
        UnsupportedError: when the model's groups contain no such partition.
    """
    k = model.n_values
    n = model.n_cells
    part = find_partition(model, partition)
    lists = [model.domain(c) for c in range(n)]
    fixed = tuple(len(lst) == 1 for lst in lists)
    start = tuple(lst[0] for lst in lists)
    fixed_map = {c: start[c] for c in range(n) if fixed[c]}
    rows = tuple(model.groups[g][0] for g in part)
    row_of = [0] * n
    for r, row in enumerate(rows):
        for c in row:
            row_of[c] = r
    row_missing = tuple(tuple(missing_labels(model, g, fixed_map)) for g in part)
    # a row whose free cells hold exactly its missing labels, all different, never
    # holds two equal labels: its pairs need no edge
    exact = [model.groups[g][1] is None and len(row_missing[r]) == sum(not fixed[c] for c in rows[r])
             for r, g in enumerate(part)]
    in_part = set(part)
    edges: set[tuple[int, int]] = set()
    fixed_edges: set[tuple[int, int]] = set()
    counts = []
    base = 0
    for g, (cells, cnt) in enumerate(model.groups):
        if cnt is None:
            for a, b in combinations(sorted(cells), 2):
                if fixed[a] and fixed[b]:
                    fixed_edges.add((a, b))
                elif not (row_of[a] == row_of[b] and exact[row_of[a]]):
                    edges.add((a, b))
        elif g not in in_part:
            if all(fixed[c] for c in cells):
                base += _surplus(start, cells, cnt)
            else:
                counts.append((tuple(cells), tuple(cnt)))
    base += sum(1 for a, b in fixed_edges if start[a] == start[b])
    relations = []
    for rel in model.binary:
        fwd, _ = model.support(rel)
        if fixed[rel.a] and fixed[rel.b]:
            base += 0 if fwd[start[rel.a]] >> start[rel.b] & 1 else 1
        else:
            relations.append((rel.a, rel.b, tuple(fwd)))
    return GeneticProgram(
        n_values=k, partition=part, rows=rows,
        row_missing=row_missing,
        fixed=fixed, start=start, edges=tuple(sorted(edges)), relations=tuple(relations),
        counts=tuple(counts), base=base, odd=tuple(row_of[c] % 2 == 1 for c in range(n)))


class GeneticBackend(Backend):
    """Seed 002's genetic algorithm (incomplete: ``sat`` or ``unknown``)."""

    name = "genetic"
    complete = False
    capabilities = frozenset({"time_limit", "seed", "less", "binary", "multiset", "strings"})
    counters = ("generations", "best_fitness", "evaluations")
    decided_shortcut = False  # a pure-Python search: nothing to crash
    options = (
        Option("population", int, 10, None, "population size (paper's grid: 10, 20, 30)",
               min=1),
        Option("pm", float, 0.03, None,
               "mutation probability per free cell (paper's grid: 0.03, 0.07)", min=0, max=1),
        Option("pc", float, 0.9, None, "crossover probability per pair (paper's grid: 0.9, 1.0)",
               min=0, max=1),
        Option("sp", int, 5, None, "selection pressure: tournament size (paper's grid: 5, 10)",
               min=1),
        Option("generations", int, 10000, None, "generation cap (paper: 10000)", min=0),
        Option("mating_pool", int, 0, None,
               "parent pairs per generation (the paper does not state it); "
               "0 = population // 2 (as many offspring as parents)", min=0),
        Option("partition", int, 0, None,
               "the rows: groups taken cyclically from this group index when disjoint "
               "from those taken (0 = the rows of a grid board)", min=0),
        Option("mutate", str, "all", MUTATE,
               "all: mutate parents and offspring, as the paper prints it; offspring: "
               "spare the parents"),
    )

    def compile(self, model: Model, /, **options: Any) -> GeneticProgram:
        """The graph-colouring structure the GA runs on (:class:`GeneticProgram`)."""
        opts = self.parse_options(options)
        return compile_genetic(model, opts["partition"])

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        t0 = time.perf_counter()
        deadline = Deadline(time_limit)
        rng = random.Random(seed)
        prog = self.compile(model, **options)
        fit = _fitness_function(prog)
        encode_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        pop_size = options["population"]
        pairs = options["mating_pool"] or max(1, pop_size // 2)
        generations, best, evaluations, population = _evolve(
            prog, fit, rng, deadline, pop_size, options["pm"], options["pc"], options["sp"],
            options["generations"], pairs, options["mutate"] == "all")
        solutions: list[tuple[Any, ...]] = []
        seen: set[tuple[int, ...]] = set()
        for vals in population:
            key = tuple(vals)
            if key in seen or fitness(prog, vals) != 0 or model_violations(model, vals):
                continue  # full recounts decide, the second from the Model alone
            seen.add(key)
            solutions.append(model.labels_of(key))
            if limit is not None and len(solutions) >= limit:
                break
        # what ended the loop: a solution, the generation cap, else the deadline
        stopped = ("found" if best == 0 else "generation budget"
                   if generations >= options["generations"] else "time limit")
        stats = {"encode_s": encode_s, "solve_s": time.perf_counter() - t1,
                 "generations": generations, "best_fitness": best, "evaluations": evaluations,
                 "stopped": stopped}
        return self.outcome(solutions, False, limit, stats)  # a local search never finishes


def _evolve(prog: GeneticProgram, fit: Callable[[Sequence[int]], int], rng: random.Random,
            deadline: Deadline, pop_size: int, pm: float, pc: float, sp: int, cap: int,
            pairs: int, mutate_parents: bool) -> tuple[int, int, int, list[list[int]]]:
    """Seed 002's Algorithm 7. Returns ``(generations, best fitness, evaluations,
    final population)``; the population is sorted best first."""
    rand = rng.random
    shuffle = rng.shuffle
    fixed = prog.fixed
    odd = prog.odd
    rows_free = prog.row_free()
    rows = [(row, free, len(row)) for row, free in zip(prog.rows, rows_free, strict=True) if free]

    population: list[list[int]] = []
    for _ in range(pop_size):  # Alg. 2
        vals = list(prog.start)
        for free, missing in zip(rows_free, prog.row_missing, strict=True):
            labels = list(missing)
            shuffle(labels)
            for i, c in enumerate(free):
                if i < len(labels):
                    vals[c] = labels[i]
        population.append(vals)
    scores = [fit(v) for v in population]  # Alg. 1
    evaluations = pop_size

    def tournament() -> int:  # Alg. 3
        best = int(rand() * pop_size)
        for _ in range(sp - 1):
            other = int(rand() * pop_size)
            if scores[other] > scores[best]:
                best = other
        return best

    def mutate(vals: list[int]) -> bool:  # Alg. 5, one individual
        changed = False
        for row, free, size in rows:
            for c in free:
                if rand() < pm:
                    other = row[int(rand() * size)]
                    if not fixed[other] and other != c:
                        vals[c], vals[other] = vals[other], vals[c]
                        changed = True
        return changed

    generation = 0
    while max(scores) < 0 and generation < cap and not deadline.expired():
        generation += 1
        kids: list[list[int]] = []
        kid_scores: list[int | None] = []
        for _ in range(pairs):
            i1 = tournament()
            i2 = tournament()
            p1 = population[i1]
            p2 = population[i2]
            if rand() > pc:  # Alg. 4: no crossover; the copies keep their cached fitness
                kids += (list(p1), list(p2))
                kid_scores += (scores[i1], scores[i2])
            else:
                kids.append([b if m else a for a, b, m in zip(p1, p2, odd, strict=True)])
                kids.append([a if m else b for a, b, m in zip(p1, p2, odd, strict=True)])
                kid_scores += (None, None)
        everyone = population + kids
        cached: list[int | None] = [*scores, *kid_scores]
        first = 0 if mutate_parents else pop_size
        for i in range(first, len(everyone)):
            if mutate(everyone[i]):
                cached[i] = None
        fresh: list[int] = []
        for vals, score in zip(everyone, cached, strict=True):
            if score is None:
                score = fit(vals)
                evaluations += 1
            fresh.append(score)
        order = sorted(range(len(everyone)), key=lambda i: -fresh[i])[:pop_size]  # Alg. 6
        population = [everyone[i] for i in order]
        scores = [fresh[i] for i in order]
    order = sorted(range(pop_size), key=lambda i: -scores[i])
    return generation, max(scores), evaluations, [population[i] for i in order]

