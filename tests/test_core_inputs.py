"""Hostile inputs straight to the C entry points: ValueError, never a crash.

``_listcolor_core.Program`` / ``run`` (both widths) and ``_filter_core.filter_lists``
check every input where it enters: cells and groups in range, ``cells`` a
permutation, counts and supports for every value, start lists within the
program's values, sequences whose length lies or that change while they are
read. Before these checks several of the cases below wrote or read out of
bounds (a crash of the test process, or a wrong answer).
"""

from __future__ import annotations

import pytest

from futocp.backends import listcolor
from futocp.backends.listcolor import compile_program, make_propagator, settle
from futocp.model import build_model
from futocp.propagate import filter_lists_python
from futocp.verify import verify

from .oracle import brute_force_count
from .relation_boards import KINDS, killer_board, relation_board

CORES = [m for m in (listcolor._core, listcolor._core_wide) if m is not None]
if not CORES:
    pytest.skip("the compiled core is not built", allow_module_level=True)

#: A 4x4 Sudoku with cages (one of one cell): groups, cell groups, distinct groups,
#: cages; a 4x4 Latin square with less and binary relations: succ, pred, arcs.
BOARDS = {key: (board, compile_program(build_model(board, "none"))) for key, board in (
    ("killer", killer_board(1, one_cell=True)),
    ("relations", relation_board(4, KINDS, seed=3, count=6, givens=0)))}
KILLER = BOARDS["killer"][1]
RELATIONS = BOARDS["relations"][1]


def _args(prog: listcolor.ListcolorProgram, **changes) -> list:
    fields = {"n": len(prog.cells), "groups": prog.groups, "counts": prog.counts,
              "cell_groups": prog.cell_groups, "succ": prog.succ, "pred": prog.pred,
              "m": prog.n_values, "dual_groups": prog.dual_groups, "arcs": prog.arcs,
              "distinct": prog.distinct, "cages": prog.cages, "cells": prog.cells,
              "values": prog.values, "diagrams": prog.diagrams}
    assert set(changes) <= set(fields)
    return list({**fields, **changes}.values())


def _run(core, native, domains, start=None, limit=None) -> tuple[tuple, list]:
    found: list = []
    out = core.run(native, domains, limit, lambda: False, "auto", ["removed"], False, True, True,
                   start, found)
    return out, found


def _solutions(core, prog, **changes) -> list:
    return _run(core, core.Program(*_args(prog, **changes)), prog.domains)[1]


class Liar:
    """A sequence whose ``len`` says one thing and whose items another."""

    def __init__(self, items, length: int) -> None:
        self.items, self.length = list(items), length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int):
        return self.items[i]  # IndexError past the end: iteration stops there


core_params = pytest.mark.parametrize("core", CORES, ids=lambda m: m.__name__.rsplit(".")[-1])


# ------------------------------------------------------------------ Program
@core_params
@pytest.mark.parametrize("key", ["killer", "relations"])
def test_the_programs_are_valid(core, key):
    board, prog = BOARDS[key]
    found = _solutions(core, prog)
    assert len(found) == brute_force_count(board) > 0
    assert all(verify(board, s) == [] for s in found)


def _replace_row(rows: tuple, i: int, row) -> tuple:
    return rows[:i] + (row,) + rows[i + 1:]


HOSTILE_KILLER = {
    "cells-duplicate": {"cells": KILLER.cells[:1] * 2 + KILLER.cells[2:]},
    "cells-out-of-range": {"cells": KILLER.cells[:-1] + (16,)},
    "cells-negative": {"cells": (-1,) + KILLER.cells[1:]},
    "cells-short": {"cells": KILLER.cells[:-1]},
    "n-negative": {"n": -1},
    "n-huge": {"n": 1 << 40},
    "m-zero": {"m": 0},
    "values-short": {"values": KILLER.values[:-1]},
    "group-cell-out-of-range": {"groups": _replace_row(KILLER.groups, 0, (0, 1, 2, 99))},
    "group-cell-huge": {"groups": _replace_row(KILLER.groups, 0, (0, 1, 2, 1 << 40))},
    "group-cell-twice": {"groups": _replace_row(KILLER.groups, 0, (0, 1, 2, 2))},
    "counts-short": {"counts": KILLER.counts[:-1]},
    "counts-row-short": {"counts": _replace_row(KILLER.counts, 0, (1, 1, 1))},
    "counts-negative": {"counts": _replace_row(KILLER.counts, 0, (1, 1, 1, -1))},
    "dual-group-out-of-range": {"dual_groups": KILLER.dual_groups[:-1] + (12,)},
    "dual-group-negative": {"dual_groups": (-1,) + KILLER.dual_groups[1:]},
    "dual-group-with-counts": {"counts": _replace_row(KILLER.counts, 0, (1, 1, 1, 1))},
    "cell-groups-out-of-range": {"cell_groups": _replace_row(KILLER.cell_groups, 0, (0, 50))},
    "cell-groups-short": {"cell_groups": KILLER.cell_groups[:-1]},
    "succ-out-of-range": {"succ": _replace_row(KILLER.succ, 0, (16,))},
    "pred-negative": {"pred": _replace_row(KILLER.pred, 3, (-2,))},
    "distinct-out-of-range": {"distinct": KILLER.distinct + ((0, 10_000_000),)},
    "distinct-twice": {"distinct": KILLER.distinct + ((4, 4),)},
    "cage-cell-out-of-range": {"cages": KILLER.cages + (((16,), (1,)),)},
    "cage-set-beyond-the-values": {"cages": KILLER.cages + (((0,), (1 << 7,)),)},
    "cage-not-a-pair": {"cages": KILLER.cages + (((0,),),)},
    "arcs-short": {"arcs": KILLER.arcs[:-1]},
    "arc-other-out-of-range": {"arcs": _replace_row(KILLER.arcs, 0, ((16, (15, 15, 15, 15)),))},
    "arc-support-short": {"arcs": _replace_row(KILLER.arcs, 0, ((1, (15, 15, 15)),))},
    "arc-support-beyond-the-values": {"arcs": _replace_row(KILLER.arcs, 0,
                                                           ((1, (15, 15, 15, 1 << 9)),))},
    "arc-support-negative": {"arcs": _replace_row(KILLER.arcs, 0, ((1, (15, 15, 15, -1)),))},
}


@core_params
@pytest.mark.parametrize("key", sorted(HOSTILE_KILLER))
def test_a_bad_program_is_a_value_error(core, key):
    with pytest.raises(ValueError):
        core.Program(*_args(KILLER, **HOSTILE_KILLER[key]))


@core_params
def test_a_value_of_the_wrong_type_is_a_type_error(core):
    with pytest.raises(TypeError):
        core.Program(*_args(KILLER, groups=_replace_row(KILLER.groups, 0, (0, 1, 2, "3"))))
    with pytest.raises(TypeError):
        core.Program(*_args(KILLER, cells=7))


@core_params
def test_a_dual_group_wider_than_the_word_is_refused(core):
    width = 64 if core is listcolor._core else 128
    n = width + 1
    prog_args = _args(KILLER, n=n, groups=(tuple(range(n)),), counts=(None,),
                      cell_groups=((0,),) * n, succ=((),) * n, pred=((),) * n, dual_groups=(0,),
                      arcs=(), distinct=(), cages=(), cells=tuple(range(n)))
    with pytest.raises(ValueError, match="cells at most"):
        core.Program(*prog_args)


@core_params
def test_lying_lengths_are_read_as_their_items(core):
    """Rows whose len() is smaller than their items: the core reads the items once
    (it wrote past its arrays when it trusted the lengths)."""
    liars = {"groups": tuple(Liar(g, 1) for g in KILLER.groups),
             "cell_groups": tuple(Liar(g, 0) for g in KILLER.cell_groups),
             "distinct": Liar([Liar(d, 1) for d in KILLER.distinct], 1),
             "cages": tuple((Liar(c, 0), Liar(s, 0)) for c, s in KILLER.cages)}
    assert _solutions(core, KILLER, **liars) == _solutions(core, KILLER)
    arcs = tuple(Liar([(o, Liar(s, 1)) for o, s in row], 0) for row in RELATIONS.arcs)
    assert _solutions(core, RELATIONS, arcs=arcs) == _solutions(core, RELATIONS)


@core_params
def test_a_sequence_changed_while_it_is_read_is_read_as_it_was(core):
    """An index whose __index__ grows the groups being read: the core keeps the
    copy it took (it read past the list's end when it re-read the list)."""
    groups = [list(g) for g in KILLER.groups]

    class Grows:
        def __init__(self, value: int) -> None:
            self.value = value

        def __index__(self) -> int:
            for g in groups:
                g.extend([0] * 64)
            groups.extend([[0] * 8] * 8)
            return self.value

    groups[0][0] = Grows(groups[0][0])
    got = _solutions(core, KILLER, groups=groups)
    assert got == _solutions(core, KILLER)


# ------------------------------------------------------------------ run
@core_params
def test_start_lists_beyond_the_values_are_refused(core):
    native = core.Program(*_args(KILLER))
    m = KILLER.n_values
    for bad in (1 << m, (1 << m) | 1, 1 << 63, -1, 1 << 200):
        with pytest.raises(ValueError):
            _run(core, native, (bad,) + KILLER.domains[1:])
    with pytest.raises(ValueError):
        _run(core, native, KILLER.domains[:-1])
    with pytest.raises(TypeError):
        _run(core, native, ("15",) + KILLER.domains[1:])


@core_params
def test_a_start_node_is_checked(core):
    native = core.Program(*_args(KILLER))
    n, m = len(KILLER.cells), KILLER.n_values
    doms = list(KILLER.domains)
    dual = KILLER.dual_table(doms)
    assert settle(KILLER, make_propagator(KILLER)[0], doms, dual)  # a settled node
    _, found = _run(core, native, None, start=(doms, dual))
    assert sorted(found) == sorted(_solutions(core, KILLER))
    for bad in ((doms[:-1], dual), (doms, dual[:-1]), (doms, dual, dual), ([1 << m] * n, dual),
                (doms, [1 << 4] + dual[1:]), (doms, [-1] + dual[1:])):
        with pytest.raises(ValueError):
            _run(core, native, None, start=bad)
    # an empty list or dual list: no solution and no search (it read values[-1] before)
    for empty in (([0] + doms[1:], dual), (doms, [0] + dual[1:])):
        out, found = _run(core, native, None, start=empty)
        assert out[0] is True and out[1] == 0 and found == []


# ------------------------------------------------------------------ filter_lists
filter_core = pytest.importorskip("futocp._filter_core")

#: n, domains, groups, less, distinct, binary, touched: a 3-cell row 1..3 with a
#: less pair, a binary relation and a count group.
FILTER = (3, [0b111, 0b111, 0b001], [((0, 1, 2), None), ((0, 1, 2), (1, 1, 1))], [(0, 1)],
          [(0, 2)], [(1, 2, (0b110, 0b111, 0b011), (0b110, 0b111, 0b011))], None)


def _filter(**changes):
    names = ("n", "domains", "groups", "less", "distinct", "binary", "touched")
    args = dict(zip(names, FILTER, strict=True))
    return filter_core.filter_lists(*{**args, **changes}.values())


def test_the_filter_input_is_valid():
    n, domains, groups, less, distinct, binary, touched = FILTER
    assert _filter() == filter_lists_python(n, domains, groups, less, distinct=distinct,
                                            binary=binary, touched=touched)


HOSTILE_FILTER = {
    "n-negative": {"n": -1},
    "domains-short": {"domains": [0b111, 0b111]},
    "domain-negative": {"domains": [-1, 0b111, 0b001]},
    "group-cell-out-of-range": {"groups": [((0, 1, 3), None)]},
    "group-cell-negative": {"groups": [((0, 1, -1), None)]},
    "counts-miss-a-value": {"groups": [((0, 1, 2), (1, 1))]},
    "count-negative": {"groups": [((0, 1, 2), (1, 1, -1))]},
    "group-not-a-pair": {"groups": [((0, 1, 2),)]},
    "less-out-of-range": {"less": [(0, 3)]},
    "less-not-a-pair": {"less": [(0,)]},
    "distinct-huge": {"distinct": [(0, 1 << 40)]},
    "binary-out-of-range": {"binary": [(1, 3, (1, 1, 1), (1, 1, 1))]},
    "support-misses-a-value": {"binary": [(1, 2, (1, 1), (1, 1, 1))]},
    "support-negative": {"binary": [(1, 2, (1, 1, -1), (1, 1, 1))]},
    "binary-short": {"binary": [(1, 2, (1, 1, 1))]},
    "touched-out-of-range": {"touched": [5]},
}


@pytest.mark.parametrize("key", sorted(HOSTILE_FILTER))
def test_a_bad_filter_input_is_a_value_error(key):
    with pytest.raises(ValueError):
        _filter(**HOSTILE_FILTER[key])


def test_wide_filter_input_still_goes_to_python():
    assert _filter(domains=[1 << 70, 0b111, 0b001]) is None
    assert _filter(binary=[(1, 2, (0b110, 0b111, 1 << 64), (0b110, 0b111, 0b011))]) is None


def test_lying_filter_lengths_are_read_as_their_items():
    """Cells, counts and supports whose len() is 0 (the core sized its arrays by
    len() and then wrote every item)."""
    groups = [(Liar((0, 1, 2), 0), None), (Liar((0, 1, 2), 0), Liar((1, 1, 1), 0))]
    binary = [(1, 2, Liar((0b110, 0b111, 0b011), 0), Liar((0b110, 0b111, 0b011), 0))]
    assert _filter(groups=groups, binary=binary) == _filter()


def test_the_top_values_of_the_word():
    """Values 62 and 63, the last bits of the word, on both sides of a less pair:
    the same lists as the reference (the width is the word's, not a constant)."""
    top, low = 1 << 63, 1 << 62
    for a in (top, low, top | low, top | 1):
        for b in (top, low, top | low, top | 1, low | 1):
            args = (2, [a, b], [], [(0, 1)])
            assert filter_core.filter_lists(*args, [], [], None) == filter_lists_python(*args)
    assert filter_core.filter_lists(2, [low, top | low], [], [(0, 1)], [], [], None) == (
        [low, top], 1, None)
