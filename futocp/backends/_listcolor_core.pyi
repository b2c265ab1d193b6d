"""Types of the compiled core of listcolor (``_listcolor_core.c``; built by setup.py).

``run_many`` reads its inputs with the GIL, searches without it (threads may call it
at once on one ``Program``) and makes its rows with it again; ``run`` keeps the GIL
(it calls ``expired`` during the search)."""

from collections.abc import Callable, Sequence
from typing import Any

AUTO_SWITCH: int
"""Dead ends of the plain search before mode ``auto`` turns the lookahead on (listcolor's
``_AUTO_SWITCH``)."""

class Program:
    """A ListcolorProgram's structure (all but the lists) in C arrays."""

    def __init__(self, n_cells: int, groups: Sequence[Sequence[int]],
                 counts: Sequence[Sequence[int] | None], cell_groups: Sequence[Sequence[int]],
                 succ: Sequence[Sequence[int]], pred: Sequence[Sequence[int]], n_values: int,
                 dual_groups: Sequence[int], arcs: Sequence[Sequence[tuple[int, Sequence[int]]]],
                 distinct: Sequence[Sequence[int]],
                 cages: Sequence[tuple[Sequence[int], Sequence[int]]], cells: Sequence[int],
                 values: Sequence[Any],
                 diagrams: Sequence[tuple[Sequence[int], Sequence[Sequence[tuple[int, int, int]]],
                                          Sequence[int]]]) -> None: ...

def run(program: Program, domains: Sequence[int], limit: int | None,
        expired: Callable[[], bool], mode: str, weights: Sequence[str], dual_branching: bool,
        hidden_singles: bool, locked_candidates: bool,
        start: tuple[list[int], list[int]] | None,
        solutions: list[tuple[Any, ...]]) -> tuple[bool, int, int, int, int, int, int, int]: ...

def pack_givens(program: Program, clues: Sequence[Sequence[tuple[int, Any]]]) -> bytes: ...

def run_many(program: Program, base: Sequence[int], givens: bytes, count: int,
             limit: int | None, mode: str, weights: Sequence[str], dual_branching: bool,
             hidden_singles: bool, locked_candidates: bool, asterisms: Sequence[Sequence[int]],
             want: Sequence[int]
             ) -> list[tuple[bool, int, int, int, int, int, int, int, bool,
                             list[tuple[Any, ...]]]]: ...
