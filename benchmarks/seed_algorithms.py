"""Issue 9 benchmark: the seeds' algorithms beside the other backends, and the
``workers=2`` speed-up of the parallel search.

**Side by side** (always). Generated Futoshiki with seed 000's parameters
(:func:`futocp.generate.futoshiki_puzzle`: a random Latin square, ``K`` signs on
random neighbour pairs oriented by it, ``G`` random givens; satisfiable, not
necessarily unique) for every size of ``--sizes``, four ``(K, G)``
configurations per size -- seed 000's Table 1 pattern: one given (``K = n``,
``G = 1``), one sign (``K = 1``, ``G = n``), many signs and few givens, and
many givens (for n = 6..9 exactly the paper's rows; for n = 4, 5, which the
paper does not have, the same pattern scaled) -- with ``--per-size``
instances per configuration, seeds ``0 .. N-1``; then the shipped
``instances/futoshiki/9x9-*`` puzzles. Every backend of ``--backends``
(default: every available one of the REGISTRY) solves every instance
(``limit=1``, ``--time-limit`` seconds, ``seed`` = the instance's seed for the
incomplete ones), one instance after the other, the backends in an order that
rotates from instance to instance so that load from other processes falls on
all alike; each backend first solves one small board untimed (imports, solver
start-up). A time is the wall time of ``build_model`` plus ``solve``; the
four seed searches (``bt``, ``fc``, ``mac``, ``colorfutoshiki``) get
``build_model(board, filtering="none")`` -- the papers' algorithms start from
the givens, and a board that futocp's list filtering decides is never handed
to a solver, so it would show no search at all -- the others the default
filtering. Every
answer is checked with :func:`futocp.verify.verify`; a wrong solution or an
``unsat`` (every instance here has a solution) is printed and counted.

Tables, per size group (n = 4..9 generated, the shipped 9x9):

* median time, with the time-outs counted (a run cut by the limit is a time
  above the limit: when it falls in the middle the median is printed ``> T``)
  and their number shown beside it;
* median per-instance ratio to ``bt`` and to the best backend of the instance
  (the fastest verified answer). A time-out counts as the limit, which makes a
  ratio a bound on the true one, never further from 1 than the truth;
  instances where both backends time out are left out of the ratio to ``bt``;
  a median of ratios is taken on their logarithms (with an even count, the
  geometric mean of the middle two);
* median node count -- each backend's own counter: ``explored_nodes`` for the
  seed searches (seed 000's EN), ``nodes`` for ``listcolor``, ``branches`` for
  ``cpsat``, ``decisions`` for ``sat``, ``mzn_nodes`` for ``minizinc``,
  ``moves`` for ``anneal``, ``evaluations`` for ``genetic`` (``pyconstraint``
  has none) -- and the median nodes per second (over every run with a count,
  time-outs included: a rate);
* the papers' claims: seed 000 (FutoshikiBT ``bt`` vs ColorFutoshiki
  ``colorfutoshiki``, explored nodes and time, per configuration beside the
  paper's Table 1 and Table 2 values), seed 001 (``fc`` vs ``bt``: time and
  assignments, i.e. the paper's moves).

**Parallel speed-up** (``--workers-check``, seed 004). For ``bt``: generated
boards are tried in the order of seeds ``--hard-seed``, ``--hard-seed + 1``,
... over the few-givens configurations of ``--hard-configs``, each solved
sequentially with a limit of ``--hard-max`` seconds, until ``--hard-count``
boards took the sequential search at least ``--hard-min`` seconds (or the
search spent ``--hard-budget`` seconds); ``--bt-instances n,K,G,seed;...``
names the boards instead (no scan). For ``listcolor``, when it has a
``workers`` option, the same with the QWH order-30 instances of
``instances/qwh/csplib067`` in name order, then the lsencode files of
``instances/qwh/lsencode`` by order and holes (generated 9x9 Futoshiki take it
milliseconds), or those ``--qwh-instances`` names. On each board,
``--hard-repeats`` pairs of runs, sequential and ``workers=2`` (the order
alternating), limit ``2 x --hard-max``; speed-up = sequential wall time /
parallel wall time (process start included), per pair; medians. Beside it:
the 1-minute load average at the start of each run; the CPU cores each run
got (CPU seconds of the process and its workers over wall seconds); the CPU
bound (the sequential run's CPU seconds over the busiest worker's: the
speed-up two cores of its own would give the run); the node ratio (parallel
/ sequential: 1.00 when the workers explore exactly the sequential search's
nodes); the throughput ratio (nodes per second, parallel / sequential: about
the cores the parallel run really got; for ``listcolor`` its ``probes``, the
work that dominates its time); the node bound (the sequential run's nodes
over the busiest worker's; ``listcolor``'s nodes differ in cost: a rough
figure there); the first split's depth, the parts searched and the parts
shared. The load average is printed before and after, and the machine's
capacity for two processes (two forked pure-Python busy loops against one,
work per second: 2.00 on two idle cores). On a busy Linux machine with
autogroup scheduling every *session* gets one fair share, so the two workers,
in the benchmark's session, get about one process's CPU together;
``--worker-sessions`` runs each worker in a session of its own (and the
capacity loops too), which measures what two processes get.

Run from the repository root::

    python benchmarks/seed_algorithms.py --workers-check          # everything, ~20 min here
    python benchmarks/seed_algorithms.py --jsonl runs.jsonl       # side by side only
    python benchmarks/seed_algorithms.py --report runs.jsonl      # its tables again
    python benchmarks/seed_algorithms.py --no-table --workers-check   # the parallel check only
    python benchmarks/seed_algorithms.py --no-table --workers-check --worker-sessions \
        --bt-instances "8,24,10,1;8,24,10,9;8,24,10,17;8,24,10,19" \
        --qwh-instances h374-03,h374-05,h374-07,h374-09 --hard-repeats 3
    python benchmarks/seed_algorithms.py --sizes 4-6 --per-size 1 --time-limit 2
    python benchmarks/seed_algorithms.py --backends bt,fc,colorfutoshiki --per-size 5
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from futocp.backends import REGISTRY, get_backend
from futocp.board import Board
from futocp.formats import read
from futocp.generate import futoshiki_puzzle
from futocp.model import build_model
from futocp.verify import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Seed 000's rows for n = 6..9 (Table 1 and Table 2, verbatim): (n, K, G) ->
#: (CF ms, BT ms, FC-EN, BT-EN). The rows of n = 4, 5 follow the same pattern
#: (the paper has no such sizes): one given, one sign, K ~ 2n(n-1)/3 with
#: G = n, G ~ 0.6 n^2 with K = n.
PAPER_ROWS: dict[tuple[int, int, int], tuple[float, float, int, int]] = {
    (6, 6, 1): (1.54, 1.61, 528, 540), (6, 1, 6): (0.59, 0.66, 151, 198),
    (6, 20, 6): (0.5, 0.54, 100, 144), (6, 6, 20): (0.28, 0.29, 40, 126),
    (7, 7, 1): (1.40, 1.47, 456, 469), (7, 1, 7): (1.37, 1.58, 298, 406),
    (7, 30, 7): (2.07, 2.33, 474, 392), (7, 7, 30): (0.43, 0.46, 59, 196),
    (8, 8, 1): (3.53, 3.64, 1145, 1160), (8, 1, 8): (2.01, 2.29, 580, 736),
    (8, 40, 8): (6.72, 9.33, 1851, 2744), (8, 8, 40): (0.5, 0.77, 78, 288),
    (9, 9, 1): (8.08, 8.11, 2279, 2313), (9, 1, 9): (3.78, 4.7, 988, 1357),
    (9, 35, 18): (2.27, 2.95, 489, 855), (9, 18, 35): (1.28, 1.92, 187, 603),
}
SCALED_ROWS = {4: [(4, 1), (1, 4), (8, 4), (4, 10)], 5: [(5, 1), (1, 5), (13, 5), (5, 15)]}

#: Each backend's own node counter (the first one present is used).
NODE_KEYS: dict[str, tuple[str, ...]] = {
    "bt": ("explored_nodes",), "fc": ("explored_nodes",), "mac": ("explored_nodes",),
    "colorfutoshiki": ("explored_nodes",), "listcolor": ("nodes",), "cpsat": ("branches",),
    "sat": ("decisions",), "minizinc": ("mzn_nodes",), "anneal": ("moves",),
    "genetic": ("evaluations",), "pyconstraint": (),
}
#: The seed searches get a Model without futocp's list filtering (the papers
#: have none; the searches build their own root lists, so their counters are
#: the same either way -- except that a board the filtering decides is handed
#: to no solver, and would report no nodes at all).
SEED_SEARCHES = frozenset({"bt", "fc", "mac", "colorfutoshiki"})
#: The work counter of the throughput ratio in the parallel check.
WORK_KEYS = {"bt": "explored_nodes", "listcolor": "probes"}
SLOW = 0.01  # seconds: the claims are also given over the runs of bt at least this long
SHIPPED = "instances/futoshiki/9x9-*"
QWH = ("instances/qwh/csplib067/*.dzn", "instances/qwh/lsencode/*.pls")
WARMUP = [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def configurations(n: int) -> list[tuple[int, int]]:
    """The (K, G) configurations of size ``n``: the paper's rows, or the pattern scaled."""
    rows = [(k, g) for (m, k, g) in PAPER_ROWS if m == n]
    if rows:
        return rows
    if n in SCALED_ROWS:
        return SCALED_ROWS[n]
    pairs = 2 * n * (n - 1)
    return [(n, 1), (1, n), (round(pairs / 3), n), (n, round(0.6 * n * n))]


@dataclass
class Instance:
    """A board to solve, its group (the table row) and where it comes from."""

    label: str
    group: str
    board: Board
    seed: int = 0
    config: tuple[int, int, int] | None = None


@dataclass
class Run:
    """One timed solve."""

    backend: str
    instance: str
    time: float
    status: str  # sat, unsat, unknown (time-out), error
    verified: bool | None
    nodes: int | None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solved(self) -> bool:
        return self.status == "sat" and bool(self.verified)

    @property
    def timed_out(self) -> bool:
        return self.status == "unknown"


def node_count(backend: str, stats: dict[str, Any]) -> int | None:
    """The backend's own node counter, or None."""
    for key in NODE_KEYS.get(backend, ("explored_nodes", "nodes")):
        value = stats.get(key)
        if isinstance(value, (int, float)):
            return int(value)
    return None


def timed_solve(name: str, board: Board, time_limit: float, seed: int | None = None,
                **options: Any) -> Run:
    """``build_model`` + ``solve`` on a fresh backend, timed and verified."""
    backend = get_backend(name)
    filtering = "none" if name in SEED_SEARCHES else "lists"
    gc.collect()
    load1 = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    t0 = time.perf_counter()
    cpu0 = os.times()
    try:
        result = backend.solve(build_model(board, filtering=filtering), limit=1, time_limit=time_limit, seed=seed,
                               **options)
    except Exception as exc:  # noqa: BLE001 -- a crash is a result of the benchmark
        return Run(name, "", time.perf_counter() - t0, "error", None, None,
                   {"error": f"{type(exc).__name__}: {exc}"})
    elapsed = time.perf_counter() - t0
    cpu1 = os.times()  # the workers are joined: their time is in the children's
    cpu = sum(getattr(cpu1, k) - getattr(cpu0, k)
              for k in ("user", "system", "children_user", "children_system"))
    verified = None
    if result.solutions:
        verified = not verify(board, result.solutions[0])
    status = str(result.status)
    stats = {k: v for k, v in result.stats.items() if isinstance(v, (int, float, str, list))}
    stats["cpu_s"], stats["load1"] = cpu, load1
    return Run(name, "", elapsed, status, verified, node_count(name, result.stats), stats)


# ------------------------------------------------------------------ statistics
def censored_median(values: Sequence[float], censored: Sequence[bool]) -> tuple[float, bool]:
    """Median where a censored value is only known to be above itself.

    Returns ``(value, lower_bound)``: ``lower_bound`` when a censored value
    falls in the middle (then the median is above ``value``).
    """
    order = sorted(zip(values, censored, strict=True), key=lambda vc: (vc[1], vc[0]))
    k = len(order)
    mid = [order[(k - 1) // 2], order[k // 2]]
    return (mid[0][0] + mid[1][0]) / 2, any(c for _, c in mid)


def fmt_time(value: float, bound: bool) -> str:
    text = f"{value:.2g}" if value < 0.01 else f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return f"> {text}" if bound else text


def ratio_median(values: Sequence[float]) -> float:
    """Median of ratios, taken on their logarithms: with an even count, the
    geometric mean of the middle two (so that 0.5 and 2 give 1, not 1.25)."""
    return math.exp(statistics.median(math.log(v) for v in values))


def fmt_ratio(values: Sequence[float]) -> str:
    if not values:
        return "n/a"
    med = ratio_median(values)
    return f"{med:.2f}" if med < 100 else f"{med:.0f}"


def fmt_count(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 1e6:
        return f"{value / 1e6:.2f} M"
    if value >= 1e4:
        return f"{value / 1e3:.0f} k"
    return f"{value:.0f}"


def load() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


# ------------------------------------------------------------------ side by side
def instances(sizes: Iterable[int], per_size: int, shipped: bool) -> list[Instance]:
    out = []
    for n in sizes:
        for k, g in configurations(n):
            for seed in range(per_size):
                out.append(Instance(f"{n}x{n} K={k} G={g} seed={seed}", f"{n}x{n}",
                                    futoshiki_puzzle(n, inequalities=k, givens=g, seed=seed),
                                    seed, (n, k, g)))
    if shipped:
        for path in sorted(glob.glob(os.path.join(ROOT, SHIPPED))):
            out.append(Instance(os.path.basename(path), "9x9 shipped", read(path)))
    return out


def warm_up(names: Sequence[str]) -> None:
    from futocp.families import futoshiki
    board = futoshiki(4, WARMUP, less=[((0, 0), (0, 1))])
    for name in names:
        timed_solve(name, board, 30.0, seed=0)


def side_by_side(insts: list[Instance], names: list[str], time_limit: float,
                 jsonl: Any) -> dict[tuple[str, str], Run]:
    runs: dict[tuple[str, str], Run] = {}
    t_start = time.perf_counter()
    for i, inst in enumerate(insts):
        order = names[i % len(names):] + names[:i % len(names)]
        line = []
        for name in order:
            run = timed_solve(name, inst.board, time_limit, seed=inst.seed)
            run.instance = inst.label
            runs[inst.label, name] = run
            if run.status == "error" or run.status == "unsat" or run.verified is False:
                print(f"  !! {name} on {inst.label}: {run.status}, verified={run.verified} "
                      f"{run.stats.get('error', '')}", file=sys.stderr, flush=True)
            line.append(f"{name} {run.time:.2f}{'T' if run.timed_out else ''}")
            if jsonl:
                jsonl.write(json.dumps({"instance": inst.label, "group": inst.group,
                                        "seed": inst.seed, "backend": name,
                                        "time": run.time, "status": run.status,
                                        "verified": run.verified, "nodes": run.nodes,
                                        "stats": run.stats}) + "\n")
        print(f"[{time.perf_counter() - t_start:6.0f}s, load {load()}] {inst.label}: "
              + ", ".join(line), file=sys.stderr, flush=True)
    return runs


def report_side_by_side(insts: list[Instance], names: list[str], runs: dict[tuple[str, str], Run],
                        time_limit: float) -> None:
    groups: dict[str, list[Instance]] = {}
    for inst in insts:
        groups.setdefault(inst.group, []).append(inst)

    def header(title: str) -> None:
        print(f"\n#### {title}\n")
        print("| group | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))

    # times
    header(f"Median time, s (time-outs at {time_limit:g} s in brackets)")
    for group, members in groups.items():
        cells = []
        for name in names:
            rs = [runs[m.label, name] for m in members]
            value, bound = censored_median([r.time for r in rs], [not r.solved for r in rs])
            outs = sum(1 for r in rs if not r.solved)
            cells.append(fmt_time(value, bound) + (f" ({outs})" if outs else ""))
        print(f"| {group} ({len(members)}) | " + " | ".join(cells) + " |")

    def clipped(run: Run) -> float:
        return run.time if run.solved else max(run.time, time_limit)

    if "bt" in names:
        header("Median ratio of times to bt (per instance; a time-out counts as the limit)")
        for group, members in groups.items():
            cells = []
            for name in names:
                ratios = [clipped(runs[m.label, name]) / clipped(runs[m.label, "bt"])
                          for m in members
                          if runs[m.label, name].solved or runs[m.label, "bt"].solved]
                cells.append(fmt_ratio(ratios))
            print(f"| {group} | " + " | ".join(cells) + " |")

    header("Median ratio of times to the instance's fastest backend (1.00 = fastest)")
    wins = dict.fromkeys(names, 0)
    for group, members in groups.items():
        cells = []
        best: dict[str, float] = {}
        for m in members:
            solved = [runs[m.label, n].time for n in names if runs[m.label, n].solved]
            if solved:
                best[m.label] = min(solved)
                fastest = min((n for n in names if runs[m.label, n].solved),
                              key=lambda n: runs[m.label, n].time)
                wins[fastest] += 1
        for name in names:
            ratios = [clipped(runs[m.label, name]) / best[m.label] for m in members
                      if m.label in best]
            cells.append(fmt_ratio(ratios))
        print(f"| {group} | " + " | ".join(cells) + " |")
    print("\nFastest on: " + ", ".join(f"{n} {w}" for n, w in wins.items() if w) + " instances.")

    keys = {n: (NODE_KEYS.get(n) or ("-",))[0] for n in names}
    header("Median nodes (each backend's own counter: "
           + ", ".join(f"{n} `{k}`" for n, k in keys.items()) + "; time-outs: nodes so far)")
    for group, members in groups.items():
        cells = []
        for name in names:
            rs = [runs[m.label, name] for m in members if runs[m.label, name].nodes is not None]
            if not rs:
                cells.append("-")
                continue
            value, bound = censored_median([float(r.nodes or 0) for r in rs],
                                           [not r.solved for r in rs])
            cells.append(("> " if bound else "") + fmt_count(value))
        print(f"| {group} | " + " | ".join(cells) + " |")

    header("Median nodes per second")
    for group, members in groups.items():
        cells = []
        for name in names:
            rates = [r.nodes / r.time for m in members
                     if (r := runs[m.label, name]).nodes and r.time > 0]
            cells.append(fmt_count(statistics.median(rates)) if rates else "-")
        print(f"| {group} | " + " | ".join(cells) + " |")

    bad = [r for r in runs.values() if r.status in ("error", "unsat") or r.verified is False]
    print(f"\nRuns: {len(runs)}; wrong answers (unverified solution or unsat): "
          f"{sum(1 for r in bad if r.status != 'error')}; errors: "
          f"{sum(1 for r in bad if r.status == 'error')}"
          + "".join(f"\n- {r.backend} on {r.instance}: {r.status} {r.stats.get('error', '')}"
                    for r in bad))

    report_claims(insts, names, runs, time_limit)


def report_claims(insts: list[Instance], names: list[str], runs: dict[tuple[str, str], Run],
                  time_limit: float) -> None:
    if "bt" in names and "colorfutoshiki" in names:
        print("\n#### Seed 000: FutoshikiBT (`bt`) vs ColorFutoshiki (`colorfutoshiki`)\n")
        print("Per configuration: medians over the seeds (T: time-outs among them). EN = "
              "`explored_nodes`; ratios per instance, over instances both solved.\n")
        print("| n K G | paper BT-EN | ours BT-EN | paper CF-EN | ours CF-EN | paper BT/CF EN "
              "| ours BT/CF EN | paper BT/CF time | ours BT/CF time |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        configs: dict[tuple[int, int, int], list[Instance]] = {}
        for inst in insts:
            if inst.config:
                configs.setdefault(inst.config, []).append(inst)
        all_en, all_t, slow_t = [], [], []
        for cfg, members in configs.items():
            cells = []
            for name in ("bt", "colorfutoshiki"):
                rs = [runs[m.label, name] for m in members]
                value, bound = censored_median([float(r.nodes or 0) for r in rs],
                                               [not r.solved for r in rs])
                outs = sum(1 for r in rs if not r.solved)
                cells.append(("> " if bound else "") + fmt_count(value)
                             + (f" ({outs}T)" if outs else ""))
            both = [(runs[m.label, "bt"], runs[m.label, "colorfutoshiki"]) for m in members
                    if runs[m.label, "bt"].solved and runs[m.label, "colorfutoshiki"].solved]
            en = [b.nodes / c.nodes for b, c in both if b.nodes and c.nodes]
            tr = [b.time / c.time for b, c in both]
            all_en += en
            all_t += tr
            slow_t += [b.time / c.time for b, c in both if b.time >= SLOW]
            paper = PAPER_ROWS.get(cfg)
            p = (f"{paper[3]}", f"{paper[2]}", f"{paper[3] / paper[2]:.2f}",
                 f"{paper[1] / paper[0]:.2f}") if paper else ("-", "-", "-", "-")
            print(f"| {cfg[0]} {cfg[1]} {cfg[2]} | {p[0]} | {cells[0]} | {p[1]} | {cells[1]} | "
                  f"{p[2]} | {fmt_ratio(en)} | {p[3]} | {fmt_ratio(tr)} |")
        if all_en:
            print(f"\nOver all {len(all_en)} instances both solved: BT-EN / CF-EN median "
                  f"{ratio_median(all_en):.2f} (range {min(all_en):.2f} - "
                  f"{max(all_en):.2f}); CF-EN <= BT-EN on "
                  f"{sum(1 for x in all_en if x >= 1)} of {len(all_en)}; time BT / CF median "
                  f"{ratio_median(all_t):.2f} (range {min(all_t):.2f} - {max(all_t):.2f}), "
                  f"CF faster on {sum(1 for x in all_t if x > 1)} of {len(all_t)}"
                  + (f"; on the {len(slow_t)} where bt took >= {SLOW * 1000:g} ms (the others "
                     f"are timer noise): median {ratio_median(slow_t):.2f}, CF faster on "
                     f"{sum(1 for x in slow_t if x > 1)}" if slow_t else "") + ".")
        solved = {n: sum(1 for (i, b), r in runs.items() if b == n and r.solved)
                  for n in ("bt", "colorfutoshiki")}
        total = sum(1 for (i, b) in runs if b == "bt")
        print(f"Solved within {time_limit:g} s: bt {solved['bt']} of {total}, colorfutoshiki "
              f"{solved['colorfutoshiki']} of {total}.")

    if "bt" in names and "fc" in names:
        print("\n#### Seed 001: forward checking (`fc`) vs backtracking (`bt`)\n")
        print("| group | solved bt / fc | median time ratio bt/fc | fc faster on | median "
              "assignments ratio bt/fc | fc fewer assignments on |")
        print("|---|---:|---:|---:|---:|---:|")
        groups: dict[str, list[Instance]] = {}
        for inst in insts:
            groups.setdefault(inst.group, []).append(inst)
        for group, members in groups.items():
            pairs = [(runs[m.label, "bt"], runs[m.label, "fc"]) for m in members]
            tr = [max(b.time, time_limit if not b.solved else 0) /
                  max(f.time, time_limit if not f.solved else 0)
                  for b, f in pairs if b.solved or f.solved]
            both = [(b, f) for b, f in pairs if b.solved and f.solved]
            ar = [b.stats["assignments"] / f.stats["assignments"] for b, f in both
                  if b.stats.get("assignments") and f.stats.get("assignments")]
            sb = sum(1 for b, _ in pairs if b.solved)
            sf = sum(1 for _, f in pairs if f.solved)
            print(f"| {group} | {sb} / {sf} of {len(pairs)} | {fmt_ratio(tr)} | "
                  f"{sum(1 for x in tr if x > 1)} of {len(tr)} | {fmt_ratio(ar)} | "
                  f"{sum(1 for x in ar if x > 1)} of {len(ar)} |")
        print("\n(time ratio with a time-out counted as the limit, over instances at least one "
              "solved; assignments over instances both solved)")


# ------------------------------------------------------------------ parallel
def bt_candidates(configs: Sequence[tuple[int, int, int]], start: int, explicit: str = ""
                  ) -> Iterator[Instance]:
    if explicit:  # n,K,G,seed;...
        for item in explicit.split(";"):
            n, k, g, seed = (int(x) for x in item.split(","))
            yield Instance(f"{n}x{n} K={k} G={g} seed={seed}", "hard",
                           futoshiki_puzzle(n, inequalities=k, givens=g, seed=seed), seed,
                           (n, k, g))
        return
    for seed in count(start):
        for n, k, g in configs:
            yield Instance(f"{n}x{n} K={k} G={g} seed={seed}", "hard",
                           futoshiki_puzzle(n, inequalities=k, givens=g, seed=seed), seed,
                           (n, k, g))


def qwh_candidates(explicit: str = "") -> Iterator[Instance]:
    def order_holes(path: str) -> tuple[int, ...]:  # lsencode files by order, then holes
        return tuple(int(x) for x in re.findall(r"\d+", os.path.basename(path))[:2])

    paths = sorted(glob.glob(os.path.join(ROOT, QWH[0])))
    paths += sorted(glob.glob(os.path.join(ROOT, QWH[1])), key=order_holes)
    for path in paths:
        if explicit and not any(part in os.path.basename(path) for part in explicit.split(",")):
            continue
        yield Instance(os.path.basename(path), "hard", read(path))


def worker_sessions() -> None:
    """Benchmark only (``--worker-sessions``): each pool worker in a session of
    its own. Linux's autogroup scheduling gives every session one fair share of
    a busy machine, so two workers in the benchmark's session get about one
    process's CPU together; in sessions of their own they get what two
    processes get, as on a machine without autogroup."""
    from futocp.backends import parallel

    work = parallel._work

    def in_own_session(*args: Any) -> None:
        os.setsid()
        work(*args)

    parallel._work = in_own_session  # type: ignore[assignment]


def _spin(n: int) -> int:
    x = 0
    for i in range(n):
        x += i
    return x


def _spin_alone(n: int) -> int:
    os.setsid()
    return _spin(n)


def capacity(repeats: int = 3, n: int = 10_000_000, sessions: bool = False) -> float:
    """What the machine gives two processes now: the work of two forked busy
    loops per second over one's (2.0 on two idle cores); median of ``repeats``;
    ``sessions``: the two loops each in a session of its own."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    target = _spin_alone if sessions else _spin
    ratios = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _spin(n)
        one = time.perf_counter() - t0
        t0 = time.perf_counter()
        procs = [ctx.Process(target=target, args=(n,)) for _ in range(2)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        ratios.append(2 * one / (time.perf_counter() - t0))
    return statistics.median(ratios)


def _pair_row(name: str, label: str, seq: Run, par: Run, limit: float
              ) -> tuple[float, float, float, float]:
    """Print one sequential/parallel pair; its speed-up, throughput ratio,
    CPU bound and the parallel run's CPU efficiency."""
    key = WORK_KEYS.get(name, "explored_nodes")
    t_seq = seq.time if seq.solved else max(seq.time, limit)
    t_par = par.time if par.solved else max(par.time, limit)
    ratio = t_seq / t_par
    nodes = (par.nodes or 0) / seq.nodes if seq.nodes else math.nan
    thr = ((par.stats.get(key, 0) / par.time) / (seq.stats.get(key, 0) / seq.time)
           if seq.stats.get(key) and par.stats.get(key) else math.nan)

    busiest = max(par.stats.get("worker_nodes") or [0])
    bound = (seq.nodes or 0) / busiest if busiest and seq.solved and par.solved else math.nan
    cpus = par.stats.get("worker_cpu_s") or [0.0]
    cpu_bound = (seq.stats["cpu_s"] / max(cpus) if max(cpus) > 0 and seq.solved and par.solved
                 else math.nan)
    cores_seq = seq.stats["cpu_s"] / seq.time
    cores_par = par.stats["cpu_s"] / par.time
    efficiency = cores_par / 2

    def mark(r: Run) -> str:
        return "" if r.solved else f" ({r.status})"

    print(f"| {label} | {seq.stats['load1']:.1f}, {par.stats['load1']:.1f} | {seq.time:.2f}"
          f"{mark(seq)} | {par.time:.2f}{mark(par)} | **{ratio:.2f}** | {cores_seq:.2f}, "
          f"{cores_par:.2f} | {cpu_bound:.2f} | {nodes:.2f} | {thr:.2f} | {bound:.2f} | "
          f"{par.stats.get('split_depth', '-')}, {par.stats.get('subproblems', '-')}, "
          f"{par.stats.get('shared', '-')} | {par.stats.get('worker_nodes', '-')} |", flush=True)
    return ratio, thr, cpu_bound, efficiency


def parallel_check(name: str, candidates: Iterator[Instance], args: argparse.Namespace) -> None:
    """Scan for boards the sequential search takes >= hard_min s; pairs seq / workers=2."""
    print(f"\n#### `{name}`: sequential vs `workers=2`\n")
    key = WORK_KEYS.get(name, "explored_nodes")
    load_before = load()
    print(f"| instance | load seq, par | seq s | workers=2 s | speed-up | CPU cores seq, par "
          f"| CPU bound | nodes par/seq | `{key}`/s par/seq | node bound | split depth, "
          "subproblems, shared | worker nodes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|", flush=True)
    limit = 2 * args.hard_max
    tried: list[tuple[str, str, float]] = []
    found: list[str] = []
    medians, pair_ratios, throughputs, wrong = [], [], [], 0
    cpu_bounds, efficiencies = [], []

    def check(run: Run) -> None:
        nonlocal wrong
        if run.status in ("unsat", "error") or (run.status == "sat" and not run.verified):
            wrong += 1
            print(f"  !! {name}: {run.status} {run.stats.get('error', '')}", file=sys.stderr)

    cap_before = capacity(sessions=args.worker_sessions)
    t0 = time.perf_counter()
    for inst in candidates:
        if len(found) >= args.hard_count or time.perf_counter() - t0 > args.hard_budget:
            break
        first = timed_solve(name, inst.board, limit if args.explicit else args.hard_max)
        check(first)
        tried.append((inst.label, first.status, first.time))
        print(f"  [{name} scan] {inst.label}: {first.status} {first.time:.2f} s",
              file=sys.stderr, flush=True)
        if not (first.solved and (args.explicit or first.time >= args.hard_min)):
            continue
        found.append(f"{inst.label} ({first.time:.1f} s)")
        ratios = []
        for rep in range(args.hard_repeats):
            if rep == 0:
                seq, par = first, timed_solve(name, inst.board, limit, workers=2)
            elif rep % 2:
                par = timed_solve(name, inst.board, limit, workers=2)
                seq = timed_solve(name, inst.board, limit)
            else:
                seq = timed_solve(name, inst.board, limit)
                par = timed_solve(name, inst.board, limit, workers=2)
            check(seq)
            check(par)
            ratio, thr, cpu_bound, efficiency = _pair_row(name, inst.label, seq, par, limit)
            ratios.append(ratio)
            efficiencies.append(efficiency)
            if not math.isnan(cpu_bound):
                cpu_bounds.append(cpu_bound)
            if not math.isnan(thr):
                throughputs.append(thr)
        pair_ratios += ratios
        medians.append(ratio_median(ratios))
    over = sum(1 for _, s, _ in tried if s == "unknown")
    if args.explicit:
        print(f"\nInstances given on the command line ({len(tried)}; "
              + ", ".join(f"{label}: {status} {t:.1f} s" for label, status, t in tried)
              + f" sequentially at first). A pair: the sequential run, then workers=2 (the "
              f"first pair reuses that first sequential run; later pairs alternate the "
              f"order), limit {limit:g} s.")
    else:
        print(f"\nScan: {len(tried)} candidates in {time.perf_counter() - t0:.0f} s (pairs "
              f"included): {len(found)} took the sequential search >= {args.hard_min:g} s ("
              + (", ".join(found) or "none") + f"), {over} more than {args.hard_max:g} s (left "
              f"out), the other {len(tried) - len(found) - over} less than {args.hard_min:g} s. "
              f"A pair: the sequential run, then workers=2 (the first pair reuses the scan's "
              f"sequential run; later pairs alternate the order), limit {limit:g} s (a time-out "
              f"counts as the limit).")
    if medians:
        print(f"\nSpeed-up (sequential / workers=2), {len(found)} instances, {len(pair_ratios)} "
              f"pairs: median of the per-instance medians **{ratio_median(medians):.2f}**, "
              f"median of all pairs {ratio_median(pair_ratios):.2f} (range "
              f"{min(pair_ratios):.2f} - {max(pair_ratios):.2f}); throughput ratio median "
              + (f"{ratio_median(throughputs):.2f}" if throughputs else "n/a") + "; CPU bound "
              "median " + (f"**{statistics.median(cpu_bounds):.2f}**" if cpu_bounds else "n/a")
              + f"; CPU efficiency of workers=2 (CPU s / wall s / 2) median "
              f"{statistics.median(efficiencies):.2f}.")
    print(f"Wrong answers: {wrong}. Load average (1/5/15 min) before {load_before}, after "
          f"{load()}; {os.cpu_count()} CPUs. The machine's capacity for two processes (two "
          f"forked busy loops' work per second over one's, median of 3; 2.00 on two idle "
          f"cores{'; the loops in sessions of their own, as the workers' if args.worker_sessions else ''}"
          f"): {cap_before:.2f} before, {capacity(sessions=args.worker_sessions):.2f} after.",
          flush=True)


# ------------------------------------------------------------------ main
def report_jsonl(path: str, time_limit: float) -> int:
    """The side-by-side tables again, from the runs of a ``--jsonl`` file."""
    insts: dict[str, Instance] = {}
    runs: dict[tuple[str, str], Run] = {}
    names: list[str] = []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            label = rec["instance"]
            if label not in insts:
                m = re.match(r"(\d+)x\d+ K=(\d+) G=(\d+) seed=", label)
                config = (int(m[1]), int(m[2]), int(m[3])) if m else None
                insts[label] = Instance(label, rec["group"], None, rec["seed"], config)  # type: ignore[arg-type]
            if rec["backend"] not in names:
                names.append(rec["backend"])
            runs[label, rec["backend"]] = Run(rec["backend"], label, rec["time"], rec["status"],
                                              rec["verified"], rec["nodes"], rec["stats"])
    print(f"{len(insts)} instances x {len(names)} backends, limit {time_limit:g} s per run "
          f"(from {os.path.basename(path)}).")
    report_side_by_side(list(insts.values()), names, runs, time_limit)
    return 0


def parse_sizes(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in text.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4-9", help="sizes n, e.g. 4-9 or 5,7 (default 4-9)")
    ap.add_argument("--per-size", type=int, default=2,
                    help="instances (seeds 0..N-1) per (K, G) configuration (default 2)")
    ap.add_argument("--time-limit", type=float, default=5.0, help="seconds per run (default 5)")
    ap.add_argument("--backends", default="",
                    help="comma-separated names (default: every available backend)")
    ap.add_argument("--no-shipped", action="store_true", help="leave out the shipped 9x9 puzzles")
    ap.add_argument("--no-table", action="store_true", help="only the parallel check")
    ap.add_argument("--workers-check", action="store_true",
                    help="also measure the workers=2 speed-up of bt and listcolor")
    ap.add_argument("--hard-configs", default="8,24,10;8,30,8",
                    help="n,K,G;... the configurations scanned for hard bt boards "
                         "(default 8,24,10;8,30,8)")
    ap.add_argument("--hard-seed", type=int, default=0, help="first seed scanned (default 0)")
    ap.add_argument("--hard-min", type=float, default=5.0,
                    help="a board is hard when the sequential search takes this long (default 5)")
    ap.add_argument("--hard-max", type=float, default=30.0,
                    help="sequential limit while scanning (default 30)")
    ap.add_argument("--hard-count", type=int, default=4, help="hard boards wanted (default 4)")
    ap.add_argument("--hard-budget", type=float, default=420.0,
                    help="seconds the scan and its pairs may take per backend (default 420)")
    ap.add_argument("--hard-repeats", type=int, default=2,
                    help="sequential/parallel pairs per hard board (default 2)")
    ap.add_argument("--bt-instances", default="",
                    help="n,K,G,seed;... the boards of bt's parallel check, instead of a scan")
    ap.add_argument("--qwh-instances", default="",
                    help="name parts, comma-separated: the QWH files of listcolor's parallel "
                         "check, instead of a scan")
    ap.add_argument("--worker-sessions", action="store_true",
                    help="run each parallel worker in a session of its own (Linux autogroup "
                         "scheduling gives a session, not a process, a fair share of a busy "
                         "machine)")
    ap.add_argument("--parallel-backends", default="bt,listcolor",
                    help="backends of the parallel check (default bt,listcolor)")
    ap.add_argument("--jsonl", help="also write every run as a JSON line to this file")
    ap.add_argument("--report", metavar="JSONL",
                    help="print the side-by-side tables of an earlier run's --jsonl file and "
                         "stop (no solving)")
    args = ap.parse_args(argv)

    if args.report:
        return report_jsonl(args.report, args.time_limit)
    names = [n for n in (args.backends.split(",") if args.backends else REGISTRY) if n]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        ap.error(f"unknown backends {unknown}; known: {', '.join(REGISTRY)}")
    missing = {n: REGISTRY[n].available() for n in names if REGISTRY[n].available() is not True}
    names = [n for n in names if n not in missing]
    t_start = time.perf_counter()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load()} at "
          f"start.")
    if missing:
        print("Not available (left out): " + "; ".join(f"{n}: {why}" for n, why in
                                                       missing.items()))
    jsonl = open(args.jsonl, "w") if args.jsonl else None  # noqa: SIM115
    try:
        if not args.no_table:
            warm_up(names)
            insts = instances(parse_sizes(args.sizes), args.per_size, not args.no_shipped)
            print(f"\n{len(insts)} instances x {len(names)} backends, limit "
                  f"{args.time_limit:g} s per run.")
            runs = side_by_side(insts, names, args.time_limit, jsonl)
            if jsonl:
                jsonl.flush()
            report_side_by_side(insts, names, runs, args.time_limit)
            print(f"\nSide by side took {time.perf_counter() - t_start:.0f} s; load average "
                  f"{load()}.")
        if args.workers_check:
            print("\n### Parallel search, workers=2 (seed 004)")
            if args.worker_sessions:
                worker_sessions()
                print("\nEach worker in a session of its own (`--worker-sessions`).")
            for name in args.parallel_backends.split(","):
                cls = REGISTRY.get(name)
                if cls is None or cls.available() is not True:
                    print(f"\n`{name}`: not available; not measured.")
                    continue
                if "workers" not in {o.name for o in cls.options}:
                    print(f"\n`{name}`: no `workers` option in this tree; speed-up not measured.")
                    continue
                warm_up([name])
                args.explicit = bool(args.bt_instances if name != "listcolor"
                                     else args.qwh_instances)
                if name == "listcolor":
                    cands = qwh_candidates(args.qwh_instances)
                else:
                    configs = [tuple(int(x) for x in c.split(","))
                               for c in args.hard_configs.split(";")]
                    cands = bt_candidates(configs, args.hard_seed,  # type: ignore[arg-type]
                                          args.bt_instances)
                parallel_check(name, cands, args)
    finally:
        if jsonl:
            jsonl.close()
    print(f"\nTotal {time.perf_counter() - t_start:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
