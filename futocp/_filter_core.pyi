"""Types of the compiled list filtering (``_filter_core.c``; built by setup.py)."""

from collections.abc import Sequence

def filter_lists(n_cells: int, domains: Sequence[int],
                 groups: Sequence[tuple[Sequence[int], Sequence[int] | None]],
                 less: Sequence[tuple[int, int]], distinct: Sequence[Sequence[int]],
                 binary: Sequence[tuple[int, int, Sequence[int], Sequence[int]]],
                 touched: Sequence[int] | None) -> tuple[list[int], int, int | None] | None: ...
