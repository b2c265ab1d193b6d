"""The campaign's oracle: a plain backtracking solution counter over a Board.

Written independently of every backend and of the Model: it reads only the
Board's cells, asterisms, label multiset, clues and relations, and decides a
relation only through :meth:`futocp.relations.Relation.holds` (the meaning a
kind declares). No filtering, no encodings, no shared search code: a cell is
chosen by the fewest candidates, a candidate is a label that every asterism of
the cell can still take (its count below the label's multiplicity) and that
satisfies every relation of the cell whose other cells are already labelled.
A node budget bounds the work, so that a board too big to count is reported
as such (``count`` None) rather than hanging the campaign.

Example:
    >>> from futocp.board import Board
    >>> b = Board(4, ((0, 1), (2, 3), (0, 2), (1, 3)), (1, 2), shape=(2, 2))
    >>> count_solutions(b, cap=5).count
    2
    >>> count_solutions(b.with_clues({0: 1}), cap=5).solutions
    [(1, 2, 2, 1)]
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from futocp.board import Board

__all__ = ["OracleAnswer", "count_solutions", "find_solution"]


@dataclass
class OracleAnswer:
    """What the oracle found.

    Attributes:
        count: Solutions found (at most ``cap``), or None when the node budget ran out first.
        exact: True when ``count`` is the exact number of solutions (the search
            finished below ``cap``); False when there are at least ``count``.
        nodes: Search nodes visited.
        solutions: The solutions found (labels per cell), at most ``cap``.
    """

    count: int | None
    exact: bool
    nodes: int
    solutions: list[tuple[Any, ...]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (without the solutions)."""
        return {"count": self.count, "exact": self.exact, "nodes": self.nodes}


class _BudgetExceeded(Exception):
    pass


class _Search:
    """Backtracking over the board's cells; state is the partial labelling."""

    def __init__(self, board: Board, rng: random.Random | None = None) -> None:
        self.n = board.n_cells
        self.mult = Counter(board.labels)
        self.values = sorted(self.mult, key=lambda x: (isinstance(x, str), x))
        self.rng = rng
        self.asterisms = [tuple(a) for a in board.asterisms]
        self.cell_asts: list[list[int]] = [[] for _ in range(self.n)]
        for i, ast in enumerate(self.asterisms):
            for c in ast:
                self.cell_asts[c].append(i)
        self.cell_rels: list[list[Any]] = [[] for _ in range(self.n)]
        for rel in board.relations:
            for c in set(rel.cells):
                self.cell_rels[c].append(rel)
        self.counts: list[Counter[Any]] = [Counter() for _ in self.asterisms]
        self.labels: list[Any] = [None] * self.n
        self.clues = list(board.clues)

    # -------------------------------------------------------------- checks
    def _fits(self, cell: int, value: Any) -> bool:
        """Can ``cell`` take ``value`` given the labels placed so far?"""
        limit = self.mult.get(value, 0)
        if limit == 0:
            return False
        for a in self.cell_asts[cell]:
            if self.counts[a][value] >= limit:
                return False
        labels = self.labels
        for rel in self.cell_rels[cell]:
            vals = []
            complete = True
            for c in rel.cells:
                if c == cell:
                    vals.append(value)
                elif labels[c] is None:
                    complete = False
                    break
                else:
                    vals.append(labels[c])
            if complete and not rel.holds(vals):
                return False
        return True

    def _place(self, cell: int, value: Any) -> None:
        self.labels[cell] = value
        for a in self.cell_asts[cell]:
            self.counts[a][value] += 1

    def _unplace(self, cell: int) -> None:
        value = self.labels[cell]
        for a in self.cell_asts[cell]:
            self.counts[a][value] -= 1
        self.labels[cell] = None

    def _complete_ok(self) -> bool:
        """Every asterism holds exactly the multiset (a last, direct check)."""
        return all(Counter(self.labels[c] for c in ast) == self.mult for ast in self.asterisms)

    # -------------------------------------------------------------- search
    def run(self, cap: int, budget: int) -> OracleAnswer:
        found: list[tuple[Any, ...]] = []
        nodes = 0
        for cell, value in self.clues:
            if not self._fits(cell, value):
                return OracleAnswer(0, True, 0)
            self._place(cell, value)
        free = [c for c in range(self.n) if self.labels[c] is None]

        def rec() -> None:
            nonlocal nodes
            nodes += 1
            if nodes > budget:
                raise _BudgetExceeded
            best: int | None = None
            best_cands: list[Any] = []
            for c in free:
                if self.labels[c] is not None:
                    continue
                cands = [v for v in self.values if self._fits(c, v)]
                if not cands:
                    return
                if best is None or len(cands) < len(best_cands):
                    best, best_cands = c, cands
                    if len(cands) == 1:
                        break
            if best is None:
                if self._complete_ok():
                    found.append(tuple(self.labels))
                return
            if self.rng is not None:
                self.rng.shuffle(best_cands)
            for v in best_cands:
                self._place(best, v)
                rec()
                self._unplace(best)
                if len(found) >= cap:
                    return

        try:
            rec()
        except _BudgetExceeded:
            return OracleAnswer(None, False, nodes, found)
        return OracleAnswer(len(found), len(found) < cap, nodes, found)


def count_solutions(board: Board, cap: int = 6, budget: int = 300_000) -> OracleAnswer:
    """Count the solutions of ``board``, stopping at ``cap`` or after ``budget`` nodes.

    Args:
        board: Any Latin board (its relations of any kind).
        cap: Stop once this many solutions are found (``exact`` is then False).
        budget: Most search nodes; past it the answer's ``count`` is None.
    """
    return _Search(board).run(cap, budget)


def find_solution(board: Board, rng: random.Random, budget: int = 200_000
                  ) -> tuple[Any, ...] | None:
    """A random solution of ``board`` (random value order), or None (none, or budget out)."""
    answer = _Search(board, rng).run(1, budget)
    return answer.solutions[0] if answer.solutions else None
