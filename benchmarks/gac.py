"""Issue 14 benchmark: ``filtering=gac`` against the default list filtering on QWH.

Two studies, measured in one run:

* ``filter``: every QWH file in ``instances/qwh/`` (the CSPLib order-30 set and
  Gomes' lsencode files of order ``--min-order`` to ``--max-order``): holes,
  holes fixed (``fixed_cells``) and values removed (``removed_values``) by
  ``build_model`` with ``filtering="lists"`` and ``filtering="gac"``, and the
  build time (the best of ``--repeat`` builds; building is the filtering plus
  a few milliseconds of set-up);
* ``libraries`` (``--libraries``): the time of one GAC pass over every group
  of the lists-filtered model, futocp's bit-set matching
  (:func:`futocp.gac.revise_group`) against scipy (one
  ``maximum_bipartite_matching`` and one strong ``connected_components`` for
  all groups at once, the graphs built from the bit sets) and networkx
  (``hopcroft_karp_matching`` and ``strongly_connected_components`` per
  group), each checked to remove the same values; scipy and networkx are not
  futocp dependencies, so this study runs only where they are importable;
* ``sudoku`` (``--sudoku N``): the first N puzzles of top1465, solved in this
  process by each backend with each filtering (two rounds, the
  configurations in turn): seconds per round, puzzles the filtering decides
  (no solver is handed those), holes fixed;
* ``solve``: the backends (``--backends``, default ``listcolor,sat``) with
  each filtering, interleaved per instance (backend x filtering in turn), on
  the lsencode files and ``--csplib`` CSPLib files spread over the set. Each run
  is a fresh process (:func:`~futocp.experiments.isolate.run_isolated`) with
  the backend's own time limit at ``--cap`` seconds and a kill 5 s later; a
  time is the backend's ``wall_s`` (Model build with its filtering,
  encoding, search), a run that does not answer counts as ``--cap``. Every
  solution is checked with :func:`futocp.verify.verify`.

Run from the repository root::

    python benchmarks/gac.py [--cap 30] [--csplib 8] [--backends listcolor,sat]
    python benchmarks/gac.py --no-solve      # the filtering table only
    python benchmarks/gac.py --no-filter --only order60,dzn   # some solves only
    python benchmarks/gac.py --libraries     # futocp vs scipy vs networkx, one GAC pass
    python benchmarks/gac.py --sudoku 100 --backends listcolor,sat,cpsat
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import time
from typing import Any

from futocp.board import Board
from futocp.experiments.isolate import run_isolated
from futocp.experiments.runner import solve_run
from futocp.formats import read
from futocp.model import build_model
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = ["instances", "filter_row", "solve_once", "main"]

DATA = os.path.join(ROOT, "instances", "qwh")
FILTERINGS = ("lists", "gac")


def instances(min_order: int, max_order: int, csplib: int | None
              ) -> list[tuple[str, Board]]:
    """The lsencode files of order ``min_order..max_order``, then the CSPLib ones
    (``csplib`` of them spread over the sorted set, or all)."""
    out = []
    for p in sorted(glob.glob(os.path.join(DATA, "lsencode", "*.pls"))):
        board = read(p, format="pls")
        if min_order <= board.k <= max_order:
            out.append((os.path.basename(p), board))
    paths = sorted(glob.glob(os.path.join(DATA, "csplib067", "*.dzn")))
    if csplib is not None and csplib < len(paths):
        step = len(paths) / csplib
        paths = [paths[int(i * step)] for i in range(csplib)]
    out += [(os.path.basename(p), read(p, format="dzn")) for p in paths]
    return out


def filter_row(board: Board, repeat: int) -> dict[str, Any]:
    """Holes, and per filtering: fixed cells, removed values, best build time, conflict."""
    row: dict[str, Any] = {"order": board.k, "holes": board.n_cells - len(board.clues)}
    for filtering in FILTERINGS:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            model = build_model(board, filtering)
            best = min(best, time.perf_counter() - t0)
        row[filtering] = {"fixed": model.stats["fixed_cells"],
                          "removed": model.stats["removed_values"], "s": best,
                          "conflict": model.conflict}
    return row


def solve_once(board: Board, backend: str, filtering: str, cap: float) -> tuple[float, str]:
    """``(seconds, status)`` of one isolated solve; ``status`` is ``sat``, ``unsat``,
    ``timeout``, ``unknown``, ``error`` or ``WRONG`` (a solution that fails verify)."""
    task = {"board": board, "backend": backend, "options": {}, "filtering": filtering,
            "limit": 1, "seed": None, "time_limit": cap}
    out = run_isolated(solve_run, task, cap + 5, "forkserver")
    if out.error is not None or out.value is None:
        return cap, "timeout" if out.killed else "error"
    value = out.value
    if value["status"] in ("error", "unknown"):
        return cap, value["status"]
    if any(verify(board, s) for s in value["solutions"]):
        return cap, "WRONG"
    return min(value["stats"]["wall_s"], cap), value["status"]


def _open_groups(model: Any) -> list[tuple[list[int], list[int]]]:
    """Per group, its open cells and their lists (the values a GAC pass works on)."""
    out = []
    for cells, _ in model.gac_groups:
        open_cells = [c for c in cells if model.domains[c] & (model.domains[c] - 1)]
        if open_cells:
            out.append((open_cells, [model.domains[c] for c in open_cells]))
    return out


def pass_futocp(groups: list[tuple[list[int], list[int]]], n_values: int) -> list[list[int]]:
    """One pass of :func:`futocp.gac.revise_group` (permutation groups: capacities 1)."""
    from futocp.gac import revise_group

    out = []
    for _, doms in groups:
        new = revise_group(doms, [1] * n_values)
        out.append(new if new is not None else [0] * len(doms))
    return out


def pass_scipy(groups: list[tuple[list[int], list[int]]], n_values: int) -> list[list[int]]:
    """One pass over every group at once: one matching and one SCC call (scipy)."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

    from futocp.propagate import bits

    rows, cols, vals = [], [], []
    n_rows = 0
    for g, (_, doms) in enumerate(groups):
        for d in doms:
            for v in bits(d):
                rows.append(n_rows)
                cols.append(g * n_values + v)
                vals.append(v)
            n_rows += 1
    n_cols = len(groups) * n_values
    r = np.asarray(rows)
    c = np.asarray(cols)
    graph = csr_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(n_rows, n_cols))
    match = maximum_bipartite_matching(graph, perm_type="column")
    matched = match[r] == c
    # oriented: cell -> value off the matching, value -> cell on it
    src = np.where(matched, n_rows + c, r)
    dst = np.where(matched, r, n_rows + c)
    size = n_rows + n_cols
    oriented = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(size, size))
    _, label = connected_components(oriented, directed=True, connection="strong")
    keep = matched | (label[r] == label[n_rows + c])
    out_rows = np.zeros(n_rows, dtype=object)
    out_rows[:] = 0
    for i in np.flatnonzero(keep):
        out_rows[rows[i]] |= 1 << vals[i]
    out, k = [], 0
    for _, doms in groups:
        out.append([int(x) for x in out_rows[k:k + len(doms)]])
        k += len(doms)
    return out


def pass_networkx(groups: list[tuple[list[int], list[int]]], n_values: int
                  ) -> list[list[int]]:
    """One pass, per group: Hopcroft-Karp and strongly connected components (networkx)."""
    import networkx as nx

    from futocp.propagate import bits

    out = []
    for _, doms in groups:
        g = nx.Graph()
        left = [("c", j) for j in range(len(doms))]
        g.add_nodes_from(left)
        g.add_edges_from((("c", j), ("v", v)) for j, d in enumerate(doms) for v in bits(d))
        mate = nx.bipartite.hopcroft_karp_matching(g, top_nodes=left)
        oriented = nx.DiGraph()
        for j, d in enumerate(doms):
            for v in bits(d):
                if mate.get(("c", j)) == ("v", v):
                    oriented.add_edge(("v", v), ("c", j))
                else:
                    oriented.add_edge(("c", j), ("v", v))
        comp = {}
        for k, scc in enumerate(nx.strongly_connected_components(oriented)):
            for node in scc:
                comp[node] = k
        out.append([sum(1 << v for v in bits(d)
                        if mate.get(("c", j)) == ("v", v) or comp[("c", j)] == comp[("v", v)])
                    for j, d in enumerate(doms)])
    return out


def libraries(min_order: int, max_order: int, repeat: int) -> None:
    """Print the one-pass times of futocp, scipy and networkx (best of ``repeat``)."""
    passes = {"futocp": pass_futocp}
    for name, module, func in (("scipy", "scipy", pass_scipy),
                               ("networkx", "networkx", pass_networkx)):
        try:
            __import__(module)
            passes[name] = func
        except ImportError:
            print(f"({name} is not installed: left out)")
    print("| instance | order | open cells | " + " | ".join(f"{n} s" for n in passes) + " |")
    print("|---|---:|---:|" + "---:|" * len(passes))
    for name, board in instances(min_order, max_order, 4):
        model = build_model(board, "lists")
        groups = _open_groups(model)
        if not groups or model.counts:
            continue
        best, answers = {}, {}
        for n, func in passes.items():
            best[n] = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                answers[n] = func(groups, model.n_values)
                best[n] = min(best[n], time.perf_counter() - t0)
        assert all(a == answers["futocp"] for a in answers.values()), name
        n_open = sum(len(d) for _, d in groups) // 2
        print(f"| {name} | {board.k} | {n_open} | "
              + " | ".join(f"{best[n]:.4f}" for n in passes) + " |", flush=True)


def sudoku(count: int, backends: list[str]) -> None:
    """Print the top1465 study: seconds per round of ``count`` puzzles, per backend
    and filtering, and what each filtering decides."""
    from futocp.backends import get_backend
    from futocp.formats import read_many

    boards = read_many(os.path.join(ROOT, "instances", "sudoku", "top1465.txt"))[:count]
    for f in FILTERINGS:
        models = [build_model(b, f) for b in boards]
        decided = sum(1 for m in models if all(d & (d - 1) == 0 for d in m.domains))
        fixed = sum(m.stats["fixed_cells"] for m in models)
        print(f"{f}: {decided}/{count} puzzles decided by the filtering, {fixed} holes fixed")
    rounds: dict[tuple[str, str], list[float]] = {}
    for _ in range(2):
        for b in backends:
            backend = get_backend(b)
            for f in FILTERINGS:
                t0 = time.perf_counter()
                for board in boards:
                    result = backend.solve(build_model(board, f), limit=1)
                    assert result.status.value == "sat" and not verify(board, result.solutions[0])
                rounds.setdefault((b, f), []).append(time.perf_counter() - t0)
    print(f"\n| backend | filtering | s per {count} puzzles (round 1, round 2) | puzzles/s (best) |")
    print("|---|---|---:|---:|")
    for (b, f), secs in rounds.items():
        print(f"| {b} | {f} | {secs[0]:.2f}, {secs[1]:.2f} | {count / min(secs):.0f} |")


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main(argv: list[str] | None = None) -> None:
    """Print the two tables (Markdown) and the progress on stderr."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cap", type=float, default=30.0)
    p.add_argument("--csplib", type=int, default=8, help="CSPLib files solved (spread)")
    p.add_argument("--min-order", type=int, default=30)
    p.add_argument("--max-order", type=int, default=70)
    p.add_argument("--backends", default="listcolor,sat")
    p.add_argument("--repeat", type=int, default=3, help="builds per filtering (best kept)")
    p.add_argument("--no-solve", action="store_true")
    p.add_argument("--only", help="solve only the files whose name holds one of these "
                   "comma-separated strings")
    p.add_argument("--no-filter", action="store_true", help="skip the filtering table")
    p.add_argument("--libraries", action="store_true",
                   help="only the one-pass study: futocp vs scipy vs networkx")
    p.add_argument("--sudoku", type=int, metavar="N",
                   help="only the top1465 study on its first N puzzles")
    args = p.parse_args(argv)
    if args.sudoku:
        sudoku(args.sudoku, args.backends.split(","))
        return
    if args.libraries:
        libraries(args.min_order, args.max_order, args.repeat)
        return
    boards = [] if args.no_filter else instances(args.min_order, args.max_order, None)
    print("| instance | order | holes | lists fixed | lists removed | lists s | gac fixed "
          "| gac removed | gac s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = {f: [0, 0] for f in FILTERINGS}
    for name, board in boards:
        row = filter_row(board, args.repeat)
        cells = []
        for f in FILTERINGS:
            r = row[f]
            totals[f][0] += r["fixed"]
            totals[f][1] += r["removed"]
            cells += [str(r["fixed"]), str(r["removed"]),
                      f"{r['s']:.3f}" + (" (unsat)" if r["conflict"] else "")]
        print(f"| {name} | {row['order']} | {row['holes']} | " + " | ".join(cells) + " |",
              flush=True)
    print(f"\ntotals: lists fixed {totals['lists'][0]} removed {totals['lists'][1]}; "
          f"gac fixed {totals['gac'][0]} removed {totals['gac'][1]}\n")
    if args.no_solve:
        return
    backends = args.backends.split(",")
    runs = [(b, f) for b in backends for f in FILTERINGS]
    chosen = instances(args.min_order, args.max_order, args.csplib)
    if args.only:
        keys = args.only.split(",")
        chosen = [(n, b) for n, b in chosen if any(k in n for k in keys)]
    times: dict[tuple[str, str], dict[str, float]] = {r: {} for r in runs}
    head = " | ".join(f"{b} {f}" for b, f in runs)
    print(f"| instance | holes | {head} |")
    print("|---|---:|" + "---:|" * len(runs))
    for name, board in chosen:
        cells = []
        for b, f in runs:
            secs, status = solve_once(board, b, f, args.cap)
            times[(b, f)][name] = secs
            cells.append(f"{secs:.2f}" if status in ("sat", "unsat") else f"{status} ({secs:.0f})")
        holes = board.n_cells - len(board.clues)
        print(f"| {name} | {holes} | " + " | ".join(cells) + " |", flush=True)
    print()
    print("| backend | filtering | solved | median s | mean s |")
    print("|---|---|---:|---:|---:|")
    for b, f in runs:
        secs = list(times[(b, f)].values())
        solved = sum(1 for s in secs if s < args.cap)
        print(f"| {b} | {f} | {solved}/{len(secs)} | {_median(secs):.2f} | "
              f"{statistics.fmean(secs):.2f} |")


if __name__ == "__main__":
    main()
