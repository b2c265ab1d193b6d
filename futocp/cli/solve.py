"""``futocp solve`` and ``futocp show``: every puzzle of the input, solved and verified,
or drawn."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from .. import formats
from ..api import DEFAULT_BACKEND, solve
from ..backends import REGISTRY
from ..board import Board
from ..errors import UsageError
from ..model import build_model
from ..result import Result, Status
from .common import (
    COLLECTION_FORMATS,
    EXIT_OK,
    EXIT_UNKNOWN,
    add_instances,
    add_search,
    exit_code,
    grid_text,
    input_name,
    inputs,
    parse_opts,
    print_json,
    solution_json,
    with_run_limits,
)

__all__ = ["add_commands", "cmd_solve", "cmd_show", "collection_summary", "solve_record"]


def collection_summary(records: Sequence[dict[str, Any]], elapsed_s: float) -> dict[str, Any]:
    """Counts and times over per-instance records (keys ``status``, ``verified`` and
    ``stats["wall_s"]`` -- or ``wall_s``).

    ``total_s`` sums the instances' wall times, ``median_s`` is their median,
    ``elapsed_s`` is the whole run (solving and verifying) and
    ``puzzles_per_s`` = instances / ``elapsed_s``.
    """
    import statistics  # here: not on the path of one board

    walls = [r["stats"]["wall_s"] if "stats" in r else r["wall_s"] for r in records]
    statuses = [r["status"] for r in records]
    return {"instances": len(records), "sat": statuses.count("sat"),
            "unsat": statuses.count("unsat"), "unknown": statuses.count("unknown"),
            "failed_verification": sum(1 for r in records if not r["verified"]),
            "total_s": round(sum(walls), 6),
            "median_s": round(statistics.median(walls), 6) if walls else 0.0,
            "elapsed_s": round(elapsed_s, 6),
            "puzzles_per_s": round(len(records) / elapsed_s, 3) if elapsed_s > 0 else None}


def solve_record(name: str, board: Board, result: Result,
                 checks: Sequence[Sequence[Any]] | None = None) -> dict[str, Any]:
    """The ``solve --json`` record of one puzzle (``docs/solve.schema.json``), the same
    for one puzzle and for each puzzle of a collection.

    Every solution is verified (``checks``: the violations per solution, computed
    here when not given); ``verified`` is True when none has a violation (also when
    there is no solution), ``finished`` is False when a time limit cut the search.
    """
    if checks is None:
        checks = result.violations(board)
    violations = [str(v) for found in checks for v in found]
    return {"instance": name, "backend": result.backend, "status": result.status.value,
            "n_solutions": result.n_solutions, "exhausted": result.exhausted,
            "finished": result.finished, "verified": not violations, "violations": violations,
            "solutions": [solution_json(board, s) for s in result.solutions],
            "stats": result.stats}


def _solution_text(board: Board, values: Sequence[Any], fmt: str) -> str:
    """A solution in a format's notation (``text``: the readable grid), newline-ended."""
    if fmt == "text":
        return grid_text(board, values) + "\n"
    return formats.dumps(board.solved(values), fmt)


def _status_line(result: Result) -> str:
    more = ("" if result.exhausted or result.status is not Status.SAT
            else " (stopped by the time limit)" if result.stopped_early else " (limit reached)")
    reason = f": {result.stats['reason']}" if "reason" in result.stats else ""
    by = result.stats.get("answered_by")
    who = result.backend if not by or by == result.backend else f"{result.backend} ({by})"
    return (f"{result.status.value}{reason} -- {result.n_solutions} solution(s){more}, "
            f"backend {who}, build {result.stats['build_s']:.3f}s, "
            f"solve {result.stats['solve_s']:.3f}s, wall {result.stats['wall_s']:.3f}s")


def _describe_model(name: str, board: Board, filtering: str) -> None:
    """``--verbose``: the size of the model the backend gets, on stderr."""
    model = build_model(board, filtering)
    values = sum(bin(d).count("1") for d in model.domains)
    print(f"futocp: {name}: {board.kind} board, {model.n_cells} cells, {model.n_values} labels; "
          f"model: {len(model.constraints)} constraints ({len(model.permutations)} permutation "
          f"groups, {len(model.counts)} count, {len(model.all_different)} all-different, "
          f"{len(model.relations)} relations, {len(model.fixed)} fixed cells); lists hold "
          f"{values} values after '{filtering}' filtering ({model.stats.get('removed_values', 0)} "
          f"removed, {model.stats.get('fixed_cells', 0)} cells fixed) in "
          f"{model.stats.get('build_s', 0.0):.3f}s", file=sys.stderr)


class _StdoutToStderr(contextlib.AbstractContextManager[None]):
    """``--verbose``: a backend's log (written by native code to file descriptor 1)
    goes to stderr, so that standard output keeps only the answer."""

    def __enter__(self) -> None:
        sys.stdout.flush()
        try:
            self.saved: int | None = os.dup(1)
            os.dup2(2, 1)
        except OSError:
            self.saved = None

    def __exit__(self, *exc: object) -> None:
        if self.saved is not None:
            sys.stdout.flush()
            os.dup2(self.saved, 1)
            os.close(self.saved)


def _check_solve_options(args: argparse.Namespace, n_instances: int) -> None:
    if args.json and (args.to or args.quiet):
        raise UsageError("--json prints the result record; it goes with neither --to nor --quiet")
    several = n_instances > 1 or args.all or args.limit != 1
    if args.to and args.to not in (*COLLECTION_FORMATS, "text") and several:
        what, fix = (("a collection", "--index I") if n_instances > 1 else
                     ("several solutions", "--limit 1"))
        raise UsageError(f"--to {args.to} writes one board and this run may print {what}: use "
                         f"{fix}, or a format of many ({', '.join(COLLECTION_FORMATS)})")


def _print_solved(args: argparse.Namespace, name: str, board: Board, result: Result,
                  checks: list[list[Any]], collection: bool) -> None:
    """One puzzle's answer in the chosen output mode (not ``--json``)."""
    fmt = args.to or "text"
    if args.quiet or args.to:
        texts = [_solution_text(board, s, fmt) for s in result.solutions]
        sys.stdout.write(("\n" if fmt == "text" else "").join(texts))
        if not args.quiet and (not collection or not result.solutions):
            print(f"futocp: {name}: {_status_line(result)}", file=sys.stderr)
        return
    if collection:
        flag = "" if not any(checks) else "  NOT verified: " + str(next(c for c in checks if c)[0])
        print(f"{name}  {result.status.value}  {result.n_solutions} solution(s)  "
              f"{result.stats['wall_s']:.4f}s{flag}")
        return
    for i, sol in enumerate(result.solutions):
        if len(result.solutions) > 1:
            print(f"solution {i + 1}:")
        print(grid_text(board, sol))
        if args.check:
            print("verified" if not checks[i] else
                  "NOT verified: " + "; ".join(map(str, checks[i])))
        print()
    print(_status_line(result))


@with_run_limits
def cmd_solve(args: argparse.Namespace) -> int:
    """``futocp solve``: every puzzle of the input, each verified."""
    instances = inputs(args)
    _check_solve_options(args, len(instances))
    collection = len(instances) > 1
    limit = None if args.all else args.limit
    options: dict[str, Any] = parse_opts(args.opt)
    if args.verbose and args.backend in REGISTRY and "log" not in options and any(
            o.name == "log" for o in REGISTRY[args.backend].options):
        options["log"] = "true"  # the backend's own search log (on stderr)
    records, failed, unfinished = [], [], 0
    start = time.perf_counter()
    batch: Iterator[Result] = iter(())
    if collection and args.backend == "listcolor" and not args.verbose and args.time_limit is None \
            and args.seed is None and args.filtering == "lists" and args.memory_limit is None:
        from ..batch import solve_many  # a collection in one call of C

        batch = iter(solve_many([b for _, b in instances], limit=limit, **options))
    for name, board in instances:
        if args.verbose:
            _describe_model(name, board, args.filtering)
        guard: contextlib.AbstractContextManager[Any] = (
            _StdoutToStderr() if args.verbose else contextlib.nullcontext())
        with guard:
            result = next(batch, None) or solve(
                board, args.backend, limit=limit, time_limit=args.time_limit, seed=args.seed,
                filtering=args.filtering, **options)
        checks = result.violations(board)
        record = solve_record(name, board, result, checks)
        records.append(record)
        unfinished += not result.finished
        if not record["verified"]:
            failed.append(name)
            print(f"futocp: {'error' if args.check else 'warning'}: {name}: a solution from "
                  f"backend {result.backend} failed verification: {record['violations'][0]}",
                  file=sys.stderr)
        if args.verbose:
            counters = ", ".join(f"{k}={v}" for k, v in result.stats.items())
            print(f"futocp: {name}: {result.status.value}; stats: {counters}", file=sys.stderr)
        if not args.json:
            _print_solved(args, name, board, result, checks, collection)
    if not collection:
        if args.json:
            print_json(records[0])
    else:
        summary = collection_summary(records, time.perf_counter() - start)
        if args.json:
            print_json({"instance": input_name(args),
                        "backend": args.backend, "instances": records, "summary": summary})
        elif not args.quiet:
            s = summary
            line = (f"{s['instances']} instances, backend {args.backend}: {s['sat']} sat, "
                    f"{s['unsat']} unsat, {s['unknown']} unknown, {s['failed_verification']} "
                    f"failed verification; total {s['total_s']:.3f}s, median "
                    f"{s['median_s']:.4f}s, {s['puzzles_per_s']} puzzles/s")
            print(line if args.to else "\n" + line, file=sys.stderr if args.to else sys.stdout)
    if failed and args.check:
        return EXIT_UNKNOWN
    return EXIT_UNKNOWN if unfinished else EXIT_OK


_KIND_WORDS = {"less": "inequalities", "cage": "cages"}  # the summary line of show
_PLURALS = {"box": "boxes"}


def _groups_text(board: Board) -> str:
    """The asterisms as a player counts them: ``9 rows, 9 columns, 9 boxes, 2
    diagonals``; ``12 groups of 4`` on a board without a grid."""
    words = (name.split()[0].replace("anti-", "") for name in board.asterism_names)
    text = ", ".join(f"{n} {word if n == 1 else _PLURALS.get(word, word + 's')}"
                     for word, n in Counter(words).items())
    return text if board.shape else f"{text} of {board.k}"


def _labels_text(board: Board) -> str:
    """``1..9`` for consecutive integer labels, else the list of labels."""
    values = list(board.values)
    if len(values) > 2 and all(isinstance(v, int) for v in values) \
            and values == list(range(int(values[0]), int(values[0]) + len(values))):
        return f"{values[0]}..{values[-1]}"
    return str(values)


def cmd_show(args: argparse.Namespace) -> int:
    """``futocp show``: every puzzle of the input (or the one of ``--index``)."""
    instances = inputs(args)
    code = EXIT_OK
    for k, (name, board) in enumerate(instances):
        if len(instances) > 1:
            print(("\n" if k else "") + f"== {name} ==")
        print(grid_text(board))
        kinds = Counter(rel.kind for rel in board.relations)
        print(f"\n{board.kind}: {board.n_cells} cells in {_groups_text(board)}; labels "
              f"{_labels_text(board)}; {len(board.clues)} clues"
              + "".join(f", {n} {_KIND_WORDS.get(kind, kind)}" for kind, n in sorted(kinds.items())))
        if args.solution:
            result = solve(board, args.backend, limit=2, time_limit=args.time_limit)
            if result.solutions:
                unique = (" (not unique)" if result.n_solutions > 1 else
                          " (unique)" if result.finished else "")
                print(f"\nsolution{unique}:")
                print(grid_text(board, result.solutions[0]))
                if result.verdict(0, board):
                    print(f"futocp: error: {name}: the solution fails verification",
                          file=sys.stderr)
                    code = max(code, EXIT_UNKNOWN)
            else:
                print(f"\n{result.status.value}: no solution")
            code = max(code, exit_code(result))
    return code


def add_commands(sub: Any) -> None:
    """Add the ``solve`` and ``show`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("solve", help="solve an instance (every puzzle of a collection)",
                       description="Solve and verify every puzzle of the input. Output: the "
                       "grid and a status line; --to FMT prints the solutions in a format (the "
                       "notation of the input: a 16x16 Sudoku line comes back with letters) and "
                       "the status on stderr; --json one record (docs/solve.schema.json); "
                       "--quiet the solutions only. Exit 0 finished, 1 stopped by the time "
                       "limit (or, with --check, a solution failed verification).")
    add_instances(p, "a collection: every puzzle, then a summary")
    p.add_argument("--backend", default=DEFAULT_BACKEND,
                   help=f"one of {', '.join(REGISTRY)} (default {DEFAULT_BACKEND}: picks by the "
                   "instance from measured data, a portfolio on this machine's cores)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="backend option (repeatable; futocp backends lists them)")
    add_search(p, default_limit=1, per="printed")
    p.add_argument("--check", action="store_true", help="exit 1 when a solution fails "
                   "verification, and print each solution's verdict (every solution is "
                   "verified anyway)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="print one JSON record (a collection: records and a summary)")
    out.add_argument("--to", choices=sorted(formats.FORMATS), metavar="FMT",
                     help="print the solutions in a format: " + ", ".join(sorted(formats.FORMATS))
                     + " (default: the readable grid and a status line)")
    talk = p.add_mutually_exclusive_group()
    talk.add_argument("-q", "--quiet", action="store_true",
                      help="print the solutions only (or nothing): the exit code tells the rest")
    talk.add_argument("-v", "--verbose", action="store_true",
                      help="also print the model's size, the backend's log and stats on stderr")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("show", help="print an instance (every puzzle of a collection)")
    add_instances(p, "a collection: every puzzle")
    p.add_argument("--solution", action="store_true", help="also solve and print the solution")
    p.add_argument("--backend", default=DEFAULT_BACKEND, help="the backend for --solution")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds for each --solution (default: none)")
    p.set_defaults(func=cmd_show)
