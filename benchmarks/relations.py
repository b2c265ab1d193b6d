"""Issue 8 benchmark: the relation families on every complete backend, and plain
Futoshiki before and after the relation registry.

**Relation sets** (``killer``, ``adjacent``). ``--count`` unique puzzles of each
set are generated from the seeds ``--seed``, ``--seed + 1``, ... with
:func:`futocp.generate.generate` (so the sets are the same from run to run):
9x9 Killer Sudoku (random connected cages, givens only where the cages leave
the solution open, critical) and 7x7 adjacent Futoshiki (Tatham's adjacent
mode: every consecutive pair marked, every other pair nonconsecutive, critical
givens). Every complete backend of the REGISTRY that is available and holds the
puzzles' models solves every puzzle (``limit=1``), one puzzle after the other,
the backends in an order that rotates from puzzle to puzzle, so that load from
other processes falls on all alike; backends that cannot hold the models are
skipped and named. A time is the wall time of ``build_model`` plus the
backend's ``solve`` (its encoding included), with the garbage collector paused;
each backend first solves one puzzle untimed (imports, solver start-up). Every
solution is checked with :func:`futocp.verify.verify`. A run cut by
``--time-limit`` counts as that many seconds (so a median that is not below the
limit is printed as ``>= limit``); a backend that times out on ``--give-up``
puzzles in a row runs no more in that set (the slow seed searches on Killer).
Per set, one row per backend: runs solved and verified, time-outs, the median
time, the ratio of that median to ``cpsat``'s, and the median and range of the
per-puzzle ratios to ``cpsat``.

**A second solution** (``second``, not run by default). The generator's first
question on a Killer: do its random cages alone leave a second solution? The
same measurement with ``limit=2`` on ``--count`` 9x9 Killer boards with random
cages and no givens (most have several solutions); it chose
:data:`futocp.generate.CHECK_BACKENDS`.

**Plain Futoshiki before/after** (``plain``). The 9x9 Futoshiki instances of
``instances/futoshiki/9x9-*`` are solved with ``--plain-backends`` by two
versions of futocp in one run: ``--before`` (a checkout of the commit before the
relation registry, ``0a1a47a``) and ``--after`` (default: the tree this script
lives in). Each version runs in its own worker process (``PYTHONPATH`` set to
its tree) that times ``build_model`` + ``solve`` exactly as above and verifies
the answer with its own checker; the parent sends them the same requests
interleaved (per instance, repetition and backend: one version then the other,
the order alternating), so that both see the same load. Per backend it prints
the median time of each version and the median and range of the per-instance
ratios after / before (the issue's target: no backend above 1.1).

Run from the repository root::

    git worktree add --detach /tmp/before 0a1a47a
    python benchmarks/relations.py --before /tmp/before            # everything
    python benchmarks/relations.py --count 5 --sets killer         # a quick look
    python benchmarks/relations.py --sets second --count 20        # uniqueness questions
    python benchmarks/relations.py --backends listcolor,cpsat,sat --time-limit 20
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RELATION_SETS = {
    # set name: (family, size, title)
    "killer": ("killer-sudoku", 9, "9x9 Killer Sudoku"),
    "adjacent": ("futoshiki-adjacent", 7, "7x7 adjacent Futoshiki"),
}
PLAIN_BACKENDS = ("listcolor", "cpsat", "sat", "pyconstraint")
REFERENCE = "cpsat"


@dataclass
class Run:
    """One timed solve: total seconds, status (sat, unsat, unknown) and whether it verified."""

    seconds: float
    status: str
    verified: bool


def progress(msg: str) -> None:
    """A progress line on stderr."""
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ timing
def timed_solve(board: Any, backend: str, time_limit: float | None, limit: int = 1) -> Run:
    """``build_model`` + the backend's ``solve`` (``limit`` solutions), timed, the answer
    verified.

    Imports futocp late: the plain worker runs this against whichever futocp
    its ``PYTHONPATH`` names (the API used here is the same before and after
    the relation registry).
    """
    from futocp.backends import get_backend
    from futocp.model import build_model
    from futocp.verify import verify

    solver = get_backend(backend)
    gc.collect()
    gc.disable()  # no collector pause inside a measurement
    try:
        t0 = time.perf_counter()
        model = build_model(board)
        result = solver.solve(model, limit=limit, time_limit=time_limit)
        seconds = time.perf_counter() - t0
    finally:
        gc.enable()
    status = result.status.value
    verified = bool(result.solutions) and all(not verify(board, s) for s in result.solutions)
    return Run(seconds, status, verified)


def median_or_limit(times: Sequence[float], time_limit: float) -> str:
    """The median as text, ``>= limit`` when the time-outs reach it."""
    m = statistics.median(times)
    return f">= {time_limit:g}" if m >= time_limit else f"{m:.4f}"


# ------------------------------------------------------------ relation sets
def relation_backends(boards: Sequence[Any], wanted: Sequence[str] | None
                      ) -> tuple[list[str], list[str]]:
    """(backends to run, lines naming the skipped ones and why)."""
    from futocp.backends import REGISTRY
    from futocp.model import build_model

    features: frozenset[str] = frozenset().union(*(build_model(b).features for b in boards))
    names = list(wanted) if wanted else list(REGISTRY)
    run, skipped = [], []
    for name in names:
        cls = REGISTRY.get(name)
        if cls is None:
            skipped.append(f"{name}: not in the REGISTRY")
        elif not cls.complete:
            skipped.append(f"{name}: not complete")
        elif cls.available() is not True:
            skipped.append(f"{name}: {cls.available()}")
        elif not features <= cls.supported():
            missing = ", ".join(sorted(features - cls.supported()))
            skipped.append(f"{name}: does not support {missing}")
        else:
            run.append(name)
    return run, skipped


def make_set(name: str, count: int, seed: int) -> list[tuple[str, Any]]:
    """The puzzles of a relation set, generated from consecutive seeds (uniqueness checked)."""
    from futocp.generate import generate
    from futocp.puzzles import count as count_solutions

    family, size, _ = RELATION_SETS[name]
    out = []
    for s in range(seed, seed + count):
        board = generate(family, size=size, seed=s)
        if count_solutions(board, limit=2, backend="sat").count != 1:
            raise SystemExit(f"{family} seed {s} is not unique: a generator bug")
        out.append((f"{family}-{size}-seed{s}", board))
    return out


def cage_only_set(count: int, seed: int) -> list[tuple[str, Any]]:
    """9x9 Killer boards with random cages and no givens (most have several solutions):
    the generator's first uniqueness question."""
    import random

    from futocp.families import get_family
    from futocp.generate import random_cages, random_solution

    fam = get_family("killer-sudoku")
    template = fam.template({}, 9)
    out = []
    for s in range(seed, seed + count):
        rng = random.Random(s)
        cages = random_cages(template, random_solution(template, rng=rng), rng=rng)
        out.append((f"cages-only-seed{s}", fam.build(None, (), None, cages, box=(3, 3))))
    return out


def measure_set(boards: Sequence[tuple[str, Any]], backends: Sequence[str], time_limit: float,
                give_up: int, say: Callable[[str], None], limit: int = 1
                ) -> dict[str, dict[str, Run]]:
    """Every backend on every puzzle, the order rotating from puzzle to puzzle; a backend
    that timed out on ``give_up`` puzzles in a row runs no more in this set."""
    for backend in backends:  # warm-up, untimed
        timed_solve(boards[0][1], backend, min(time_limit, 10.0), limit)
    out: dict[str, dict[str, Run]] = {}
    streak = dict.fromkeys(backends, 0)
    for i, (name, board) in enumerate(boards):
        k = i % len(backends)
        order = [b for b in list(backends[k:]) + list(backends[:k])
                 if not give_up or streak[b] < give_up]
        out[name] = {b: timed_solve(board, b, time_limit, limit) for b in order}
        for b in order:
            streak[b] = streak[b] + 1 if out[name][b].status == "unknown" else 0
            if give_up and streak[b] == give_up:
                say(f"  {b}: {give_up} time-outs in a row, not run on the rest of this set")
        say(f"  {name}: " + "  ".join(
            f"{b} {r.seconds:.3f}s{'' if r.verified else ' ' + r.status}"
            for b in backends if (r := out[name].get(b)) is not None))
    return out


def summarise_set(title: str, results: dict[str, dict[str, Run]], backends: Sequence[str],
                  time_limit: float) -> list[str]:
    """Markdown: one row per backend with its median and its ratios to ``cpsat``."""
    lines = [f"### {title}", "",
             f"| backend | solved + verified | time-outs | median s | median / {REFERENCE} "
             f"median | per-puzzle ratio to {REFERENCE}: median (range) | faster than "
             f"{REFERENCE} |",
             "|---|---:|---:|---:|---:|---:|---:|"]

    def seconds(run: Run) -> float:
        return time_limit if run.status == "unknown" else min(run.seconds, time_limit)

    failures = []
    for b in backends:
        ran = {name: r[b] for name, r in results.items() if b in r}
        runs = list(ran.values())
        ok = sum(r.verified for r in runs)
        outs = sum(r.status == "unknown" for r in runs)
        failures += [f"{name}: {b} {r.status}" for name, r in ran.items()
                     if not r.verified and r.status != "unknown"]
        times = [seconds(r) for r in runs]
        ref = [seconds(results[name][REFERENCE]) for name in ran if REFERENCE in results[name]]
        if len(ref) == len(times) and times:
            ratios = [t / max(u, 1e-9) for t, u in zip(times, ref, strict=True)]
            ratio_of_medians = f"{statistics.median(times) / statistics.median(ref):.2f}"
            per = f"{statistics.median(ratios):.2f} ({min(ratios):.2f} - {max(ratios):.2f})"
            faster = f"{sum(t < u for t, u in zip(times, ref, strict=True))} of {len(ref)}"
        else:
            ratio_of_medians = per = faster = "-"
        if b == REFERENCE:
            faster = "-"
        not_run = len(results) - len(runs)
        lines.append(f"| {b} | {ok} of {len(runs)}{' (then stopped)' if not_run else ''} | "
                     f"{outs} | {median_or_limit(times, time_limit) if times else '-'} | "
                     f"{ratio_of_medians} | {per} | {faster} |")
    lines += ["", f"{len(results)} puzzles; a time-out counts as {time_limit:g} s; a backend "
              "stopped after time-outs in a row is summarised over the puzzles it ran. "
              f"Wrong answers or failed verifications: {'; '.join(failures) or 'none'}.", ""]
    return lines


# --------------------------------------------------- plain before / after
class Worker:
    """A child process that solves instances with the futocp of one tree."""

    def __init__(self, label: str, tree: str) -> None:
        env = dict(os.environ, PYTHONPATH=tree, PYTHONDONTWRITEBYTECODE="1")
        self.label = label
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True, cwd=tree)
        self.where = self.ask({"hello": True})["futocp"]

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.label} worker died (see its error above)")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise SystemExit(f"the {self.label} worker failed: {answer['error']}")
        return answer

    def solve(self, path: str, backend: str, time_limit: float) -> Run:
        a = self.ask({"path": path, "backend": backend, "time_limit": time_limit})
        return Run(a["seconds"], a["status"], a["verified"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def worker_main() -> int:
    """``--worker``: answer JSON requests on stdin, one per line, until EOF."""
    import futocp
    from futocp.formats import read

    boards: dict[str, Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "hello" in request:
                answer: dict[str, Any] = {"futocp": os.path.dirname(futocp.__file__)}
            else:
                path = request["path"]
                if path not in boards:
                    boards[path] = read(path)
                run = timed_solve(boards[path], request["backend"], request["time_limit"])
                answer = {"seconds": run.seconds, "status": run.status, "verified": run.verified}
        except Exception as exc:  # reported to the parent, which stops
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)
    return 0


def measure_plain(paths: Sequence[str], backends: Sequence[str], workers: Sequence[Worker],
                  repeat: int, time_limit: float, say: Callable[[str], None]
                  ) -> dict[str, dict[str, dict[str, list[Run]]]]:
    """instance -> backend -> version -> runs, the versions alternating first."""
    for w in workers:  # warm-up, untimed
        for b in backends:
            w.solve(paths[0], b, time_limit)
    out: dict[str, dict[str, dict[str, list[Run]]]] = {}
    for i, path in enumerate(paths):
        name = os.path.basename(path)
        runs: dict[str, dict[str, list[Run]]] = {b: {w.label: [] for w in workers}
                                                 for b in backends}
        for r in range(repeat):
            for j, b in enumerate(backends):
                # each backend meets both orders, from repetition to repetition
                order = workers if (i + j + r) % 2 == 0 else list(reversed(workers))
                for w in order:
                    runs[b][w.label].append(w.solve(path, b, time_limit))
        out[name] = runs
        say(f"  {name}: " + "  ".join(
            f"{b} " + "/".join(f"{statistics.median(r.seconds for r in runs[b][w.label]):.4f}"
                               for w in workers) for b in backends))
    return out


def summarise_plain(title: str, results: dict[str, dict[str, dict[str, list[Run]]]],
                    backends: Sequence[str], labels: Sequence[str]) -> list[str]:
    """Markdown: per backend, the median time of each version and the ratios after / before
    (of the per-instance medians, and of the per-instance minima, which load from other
    processes inflates least); then one row per instance and backend."""
    before, after = labels
    lines = [f"### {title}", "",
             f"| backend | {before} median s | {after} median s | after / before: median of "
             "per-instance ratios (range) | ratio of summed medians | ratio of summed minima "
             "| verified |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    detail = ["", "| instance | backend | before median s | after median s | ratio | "
              "before min s | after min s | ratio |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for b in backends:
        t = {v: [statistics.median(r.seconds for r in results[i][b][v]) for i in results]
             for v in labels}
        low = {v: [min(r.seconds for r in results[i][b][v]) for i in results] for v in labels}
        ratios = [a / max(x, 1e-9) for a, x in zip(t[after], t[before], strict=True)]
        ok = sum(r.verified for i in results for v in labels for r in results[i][b][v])
        total = sum(len(results[i][b][v]) for i in results for v in labels)
        lines.append(f"| {b} | {statistics.median(t[before]):.4f} | "
                     f"{statistics.median(t[after]):.4f} | {statistics.median(ratios):.2f} "
                     f"({min(ratios):.2f} - {max(ratios):.2f}) | "
                     f"{sum(t[after]) / max(sum(t[before]), 1e-9):.2f} | "
                     f"{sum(low[after]) / max(sum(low[before]), 1e-9):.2f} | {ok} of {total} |")
        for k, name in enumerate(results):
            detail.append(f"| {name} | {b} | {t[before][k]:.4f} | {t[after][k]:.4f} | "
                          f"{ratios[k]:.2f} | {low[before][k]:.4f} | {low[after][k]:.4f} | "
                          f"{low[after][k] / max(low[before][k], 1e-9):.2f} |")
    return [*lines, *detail, ""]


# ------------------------------------------------------------------ main
def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the Markdown tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="killer,adjacent,plain",
                    help="comma-separated: killer, adjacent, plain, second (default: the "
                    "first three)")
    ap.add_argument("--count", type=int, default=50, help="puzzles per relation set (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="first seed of the relation sets")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve (default 60)")
    ap.add_argument("--give-up", type=int, default=3, metavar="K",
                    help="a backend that times out on K puzzles of a relation set in a row "
                    "runs no more in that set (default 3; 0 = never give up)")
    ap.add_argument("--backends", help="comma-separated backends for the relation sets "
                    "(default: every complete backend that holds the puzzles)")
    ap.add_argument("--before", help="a checkout of the commit before the relation registry "
                    "(git worktree add --detach /tmp/before 0a1a47a); needed by the plain set")
    ap.add_argument("--after", default=ROOT, help="the tree to compare with it (default: this one)")
    ap.add_argument("--plain-backends", default=",".join(PLAIN_BACKENDS),
                    help="backends of the plain set (default listcolor,cpsat,sat,pyconstraint)")
    ap.add_argument("--plain-instances", default="instances/futoshiki/9x9-*",
                    help="glob, relative to --before, of the plain set's instances")
    ap.add_argument("--repeat", type=int, default=5,
                    help="repetitions per plain instance and version (median kept; default 5)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker_main()

    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in sets:
        if s not in (*RELATION_SETS, "plain", "second"):
            ap.error(f"unknown set {s!r} (killer, adjacent, plain, second)")
    wanted = [b.strip() for b in args.backends.split(",")] if args.backends else None
    shown = " ".join(argv if argv is not None else sys.argv[1:])
    out = [f"Command: python benchmarks/relations.py {shown}".rstrip(), ""]
    for s in sets:
        if s in ("plain", "second"):
            continue
        family, size, title = RELATION_SETS[s]
        progress(f"{title}: generating {args.count} puzzles (seeds {args.seed}..)")
        t0 = time.perf_counter()
        boards = make_set(s, args.count, args.seed)
        givens = [len(b.clues) for _, b in boards]
        progress(f"  generated in {time.perf_counter() - t0:.1f} s")
        backends, skipped = relation_backends([b for _, b in boards], wanted)
        for line in skipped:
            progress(f"  skipped {line}")
        results = measure_set(boards, backends, args.time_limit, args.give_up, progress)
        out += summarise_set(f"{title}, {args.count} unique puzzles (seeds {args.seed}-"
                             f"{args.seed + args.count - 1}), time limit {args.time_limit:g} s",
                             results, backends, args.time_limit)
        out += [f"Givens per puzzle: median {statistics.median(givens):g}, "
                f"{sum(g == 0 for g in givens)} of {len(givens)} without givens. "
                f"Skipped backends: {'; '.join(skipped) or 'none'}.", ""]
    if "second" in sets:
        boards = cage_only_set(args.count, args.seed)
        backends, skipped = relation_backends([b for _, b in boards], wanted)
        progress(f"cage-only 9x9 Killer boards, limit 2: {len(boards)} boards")
        results = measure_set(boards, backends, args.time_limit, args.give_up, progress, limit=2)
        out += summarise_set(f"A second solution: {len(boards)} cage-only 9x9 Killer boards "
                             f"(seeds {args.seed}-{args.seed + args.count - 1}), limit 2, time "
                             f"limit {args.time_limit:g} s", results, backends, args.time_limit)
        out += [f"Skipped backends: {'; '.join(skipped) or 'none'}.", ""]
    if "plain" in sets:
        if not args.before:
            progress("plain: skipped (give --before, a checkout of 0a1a47a)")
        else:
            paths = sorted(glob.glob(os.path.join(os.path.abspath(args.before),
                                                  args.plain_instances)))
            if not paths:
                raise SystemExit(f"no instances match {args.plain_instances} under {args.before}")
            backends = [b.strip() for b in args.plain_backends.split(",") if b.strip()]
            workers = [Worker("before", os.path.abspath(args.before)),
                       Worker("after", os.path.abspath(args.after))]
            try:
                progress(f"plain Futoshiki: {len(paths)} instances, before = "
                         f"{workers[0].where}, after = {workers[1].where}")
                results = measure_plain(paths, backends, workers, args.repeat, args.time_limit,
                                        progress)
            finally:
                for w in workers:
                    w.close()
            out += summarise_plain(f"Plain 9x9 Futoshiki ({args.plain_instances}, "
                                   f"{len(paths)} instances), median of {args.repeat}, before "
                                   "and after the relation registry", results, backends,
                                   ["before", "after"])
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
