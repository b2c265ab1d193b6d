"""Seed 004 (sequential vs parallel backtracking): Tables 1.1-1.3 re-run on this machine.

``experiments/reproduce/seed-004.yaml`` runs seed 004's sequential search
(``bt``) and its faithful parallel analogue (``bt`` with ``workers=2``: the
tree split at its first levels, subproblems in forked processes with private
boards, the first solution stops the others; spec section 6.5) on five
generated instances per size, three repetitions each.

The paper's microseconds are C++ (-O0) on another machine, for one unknown
instance per size: only trends and ratios compare. Per size, ``compare``
answers the paper's sequential and parallel means and speed-up beside ours:
search time and explored nodes of both (median and quartiles over the
instances, each instance's time the median of its repetitions) and the
per-instance speed-up T_seq / T_par; the verdict is on the speed-up (the
paper's value within our quartiles widened by 25 %). Sizes the paper ran
sequentially only are ``not comparable`` (microseconds of another language).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core import (
    Reproduction,
    Row,
    compare_sample,
    load_config,
    paper_table,
    register,
    rounded,
    rounded_quartiles,
    save_figure,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PARALLEL", "per_instance", "compare_parallel", "figures_parallel"]

CONFIG = "seed-004"
SEQ, PAR = "sequential", "parallel-2"
WORKERS = 2  # the parallel runs' processes


def _config(quick: bool) -> dict[str, Any]:
    return load_config(CONFIG, quick)


def per_instance(df: pd.DataFrame) -> pd.DataFrame:
    """One row per instance: size, median search time (ms) and explored nodes of the
    sequential and the parallel runs (NaN when no repetition finished), the runs
    stopped by the time limit, and the speed-up."""
    import pandas as pd

    if df.empty:
        return pd.DataFrame(columns=["instance_hash", "size", "seq_ms", "par_ms", "seq_nodes",
                                     "par_nodes", "seq_stopped", "par_stopped", "speedup",
                                     "throughput"])
    ok = df["solved"].astype(bool)
    d = df.assign(ok=ok, stopped=~ok,
                  ms=(1000 * pd.to_numeric(df["solve_s"], errors="coerce")).where(ok),
                  nodes=pd.to_numeric(df["explored_nodes"], errors="coerce").where(ok))
    agg = d.groupby(["instance_hash", "size", "label"], sort=False).agg(
        ms=("ms", "median"), nodes=("nodes", "median"), stopped=("stopped", "sum"))
    wide = agg.unstack("label")
    out = pd.DataFrame(index=wide.index)
    for tag, label in (("seq", SEQ), ("par", PAR)):
        for col in ("ms", "nodes", "stopped"):
            out[f"{tag}_{col}"] = wide[(col, label)] if (col, label) in wide.columns \
                else math.nan
    out = out.reset_index()
    out["speedup"] = out["seq_ms"] / out["par_ms"]
    # nodes per second of the parallel run over the sequential one: about 2 when the two
    # processes really search at the same time, about 1 when they take turns on one core
    out["throughput"] = (out["par_nodes"] / out["par_ms"]) / (out["seq_nodes"] / out["seq_ms"])
    return out


def compare_parallel(df: pd.DataFrame, quick: bool) -> list[Row]:
    """Per size: the paper's Tables 1.1-1.3 beside our times, nodes and speed-ups."""
    seq = paper_table("seed-004-table1-1.csv").set_index("n")
    par = paper_table("seed-004-table1-3.csv").set_index("n")
    inst = per_instance(df)
    sizes = sorted(set(seq.index) | set(inst["size"] if not inst.empty else []))
    rows = []
    for n in sizes:
        g = inst[inst["size"] == n] if not inst.empty else inst
        if quick and g.empty:
            continue
        paper: dict[str, Any] = {"seq_us": float(seq.loc[n, "average"]) if n in seq.index else None}
        if n in par.index:
            paper["par_us"] = float(par.loc[n, "parallel_us"])
            paper["speedup"] = float(par.loc[n, "speedup"])
        if g.empty:
            rows.append(Row({"n": int(n)}, paper, {}, "not comparable", "not run"))
            continue
        ours: dict[str, Any] = {"seq_us": rounded_quartiles(1000 * g["seq_ms"], 0),
                                "par_us": rounded_quartiles(1000 * g["par_ms"], 0),
                                "speedup": rounded_quartiles(g["speedup"], 4),
                                "throughput": rounded_quartiles(g["throughput"], 3),
                                "seq_nodes": rounded_quartiles(g["seq_nodes"], 0),
                "par_nodes": rounded_quartiles(g["par_nodes"], 0), "instances": len(g),
                "stopped": int(g[["seq_stopped", "par_stopped"]].fillna(0).to_numpy().sum())}
        notes = []
        if "speedup" in paper:
            verdict, detail = compare_sample(paper["speedup"], g["speedup"])
            ours["speedup"] = {"median": rounded(detail["median"], 4),
                               "ci": [rounded(x, 4) for x in detail["ci"]], "n": detail["n"],
                               "censored": detail["censored"]}
            if paper["speedup"] > WORKERS:
                verdict = "not comparable"
                notes.append(f"the paper's {paper['speedup']:g}x needs more than our "
                             f"{WORKERS} worker processes (its thread count is not stated)")
            if n == 12:
                notes.append("the paper's 12x12 anomaly (0.34x) it blames on thread contention: "
                             "its instances differ per size (spec 5.5)")
        else:
            verdict = "not comparable"
            notes.append("sequential only in the paper: its microseconds (C++ -O0, another "
                          "machine) do not compare with Python")
        if ours["stopped"]:
            notes.append(f"{ours['stopped']} runs hit the time limit")
        nodes = g["par_nodes"] / g["seq_nodes"]
        if nodes.notna().any():
            notes.append(f"parallel/sequential nodes {nodes.min():.2f}-{nodes.max():.2f}")
        rows.append(Row({"n": int(n)}, paper, ours, verdict, "; ".join(notes)))
    return rows


def figures_parallel(df: pd.DataFrame, folder: Path) -> list[Path]:
    """Speed-up vs n (ours: median and quartiles; the paper's), and time vs n (log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paper = paper_table("seed-004-table1-3.csv")
    seq = paper_table("seed-004-table1-1.csv")
    inst = per_instance(df)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    stats = inst.groupby("size")["speedup"].describe()
    ax.errorbar(stats.index, stats["50%"], yerr=[stats["50%"] - stats["25%"],
                                                  stats["75%"] - stats["50%"]],
                fmt="o-", color="tab:blue", capsize=3, label="ours, 2 processes (median, IQR)")
    ax.plot(paper["n"], paper["speedup"], "s--", color="tab:red", mfc="none",
            label="paper (OpenMP, threads not stated)")
    ax.axhline(1, color="grey", lw=0.8)
    ax.set_xlabel("n")
    ax.set_ylabel("speed-up T_seq / T_par")
    ax.set_title("Seed 004 Table 1.3: speed-up vs n")
    ax.legend(fontsize=7)
    ax = axes[1]
    for col, colour, name in (("seq_ms", "tab:blue", "ours sequential"),
                              ("par_ms", "tab:orange", "ours parallel-2")):
        med = inst.groupby("size")[col].median()
        ax.plot(med.index, med.values, "o-", color=colour, label=f"{name} (median, ms)")
    ax.plot(seq["n"], seq["average"] / 1000, "s--", color="tab:blue", mfc="none",
            label="paper sequential (ms)")
    ax.plot(paper["n"], paper["parallel_us"] / 1000, "s--", color="tab:orange", mfc="none",
            label="paper parallel (ms)")
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("time (ms, log scale)")
    ax.set_title("Seed 004 Tables 1.1-1.2: time vs n")
    ax.legend(fontsize=7)
    return [save_figure(fig, folder, "repro-seed-004-parallel")]


def verdict_parallel(rows: list[Row]) -> str:
    """What the re-run of seed 004 confirms and what it does not."""
    stats = {r.key["n"]: r.ours["speedup"] for r in rows if "speedup" in r.ours}
    sp = [(n, q["median"]) for n, q in stats.items() if math.isfinite(q["median"])]
    agree = sum(r.verdict == "agrees" for r in rows)
    compared = sum(r.verdict != "not comparable" for r in rows)
    if not sp:
        return "No run finished: nothing to compare."
    best = max(sp, key=lambda x: x[1])
    above = [n for n, s in sp if s >= 1]
    spread = [q["ci"][1] / q["ci"][0] for q in stats.values()
              if q["ci"][0] and math.isfinite(q["ci"][0]) and math.isfinite(q["ci"][1])]
    if above:
        cross = (f"it reaches 1 or more on sizes {', '.join(map(str, above))}: the paper's "
                 f"crossover (a loss on small boards, where forking the pool and splitting the "
                 f"tree cost more than the search, a gain on larger ones) is seen")
    else:
        cross = ("it stays below 1 on every size: forking the pool and splitting the tree cost "
                 "more than the second process gains, so the paper's crossover is not seen "
                 "here (on a shared 2-core machine whose load average exceeds its cores, the "
                 "second process mostly waits for a core)")
    big = [r.ours["throughput"]["median"] for r in rows if "throughput" in r.ours
           and r.key["n"] >= 10 and math.isfinite(r.ours["throughput"]["median"])]
    rate = (f" On sizes n >= 10 the parallel runs explored {min(big):.2f}-{max(big):.2f} times "
            f"as many nodes per second as the sequential ones (median per size; 2 would mean "
            f"both processes searching all the time), pool start and split included."
            if big else "")
    return (f"A size agrees when the paper's speed-up lies in the bootstrap 95 % interval of "
            f"the median of our per-instance speed-ups (median sequential over median parallel "
            f"search time of the same instance); a size where the paper's speed-up exceeds our "
            f"{WORKERS} processes is not comparable. "
            f"{agree} of the {compared} sizes with a paper speed-up agree. With two worker "
            f"processes our median speed-up peaks at {best[1]:.2f}x (n = {best[0]}); {cross}. "
            f"The paper's 5-6x on its largest boards is not reproduced and cannot be expected "
            f"from two processes: a speed-up above the number of processes can only come from "
            f"the parallel first-solution search exploring fewer nodes than the sequential one "
            f"(the parallel/sequential node ratio, in each row's note, is mostly near 1 or "
            f"above).{rate} Within one size our per-instance speed-ups spread by a factor up to "
            f"{max(spread, default=math.nan):.1f} (the 95 % interval's high/low), and the sequential times of "
            f"instances of one size by more: the paper's non-monotone sizes (12x12 at 0.34x "
            f"between 2.33x and 4.24x; sequential growth x1.09 to x9.45 per size) are what one "
            f"instance per size gives, not a scaling law. The paper's parallel pseudo-code "
            f"waits for each task right after creating it (taskwait inside the value loop, "
            f"spec 5.2), so at most one child task runs at a time: its speed-ups cannot come "
            f"from parallel search and mix in the differences between its two code bases "
            f"(spec 5.5). Ours compare one code base with itself, on the same instances.")


PARALLEL = Reproduction(
    name="seed-004-parallel",
    title="Sequential vs parallel (workers=2) backtracking by size: nodes, times, speed-up",
    source="seed 004, Tables 1.1-1.3",
    config=_config, compare=compare_parallel, figures=figures_parallel, verdict=verdict_parallel,
    full_run="`futocp reproduce seed-004-parallel` (480 runs, one at a time) took 1.7 min of "
             "wall time (15:46-15:47 UTC, 23 Nov 2026) on a 2-core AMD EPYC virtual machine at a "
             "load average of about 1, with the work-sharing parallel search (parts handed out "
             "in search order, the answer the sequential one). Two earlier full runs with the "
             "static split, under load averages of 5-9 and 17-22 (other jobs), gave median "
             "peaks of 0.89x and 0.70x.")

register(PARALLEL)
