# PYTHON_ARGCOMPLETE_OK  (shell completion: eval "$(register-python-argcomplete futocp)")
"""The command line: ``python -m futocp`` / ``futocp``.

Thin by design: each sub-command parses its arguments, calls the library and
prints. Every :class:`~futocp.errors.FutocpError` becomes one line on stderr
and exit code 2; a finished run exits 0, a run stopped by its time limit 1
(the full list: :data:`EXIT_CODES`, printed by ``futocp --help``).

Mistyped sub-commands, options, backends and families get a "did you mean"
(:mod:`difflib`); ``futocp help CMD`` prints a command's help; with the
``argcomplete`` package the shell completes commands, options, backends and
families.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import functools
import json
import os
import random
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import __version__, formats, textview
from .answers import answer_format, decode_answer
from .api import DEFAULT_BACKEND, solve
from .backends import REGISTRY, backend_table
from .backends.base import run_limits
from .board import Board
from .childproc import signals_as_interrupt
from .crosscheck import COUNTERS, backend_summary, choose_backends, crosscheck, disagreements
from .errors import (
    FutocpError,
    InputError,
    ResourceError,
    SolverError,
    TimeLimitReached,
    UnsupportedError,
    UsageError,
)
from .export import EXPORTERS, decode, export
from .families import get_family, list_families, parse_param_text
from .generate import PATTERNS, generate
from .model import FILTERINGS, build_model
from .mzn import SOLUTION_PREFIX, parse_mzn_output
from .puzzles import count, minimize, redundant_clue, time_limited, unique_solution
from .result import Result, Status
from .verify import verify

__all__ = ["main", "render", "parse_opts", "load_instances", "collection_summary",
           "build_parser", "solve_record", "EXIT_CODES", "did_you_mean"]

EXIT_OK, EXIT_UNKNOWN, EXIT_ERROR = 0, 1, 2
SOLVE_BACKEND = "auto"  # the default of solve: it picks the backend for the instance
EXIT_SOLVER = 70  # a solver process crashed or answered garbage (sysexits' EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells report it)

#: Every exit code of the command line and what it means (README and ``futocp --help``).
EXIT_CODES: dict[int, str] = {
    0: "finished: sat or unsat (check: a critical puzzle; crosscheck: every backend "
       "finished and they agree)",
    1: "a time limit stopped a search (crosscheck: any backend's), a solution failed "
       "verification (solve --check, decode), or crosscheck found a disagreement",
    2: "bad input or usage: one line naming the file, line and column; no traceback",
    3: "check: unique but not critical; hint: a wrong entry",
    4: "check: not a puzzle (no solution, or several); hint: the puzzle is not unique",
    70: "solver failure: a solver crashed or answered garbage (SolverError)",
    130: "interrupted (Ctrl-C, SIGTERM, SIGHUP); partial output is not trusted",
}

#: Formats that hold several puzzles in one file (one puzzle a line, or two lines).
COLLECTION_FORMATS = ("sudoku", "tatham", "jigsaw")

DESCRIPTION = ("futocp: solve, cross-check, generate and draw Latin puzzles (Futoshiki, Sudoku, "
               "...).")

EXAMPLES = """\
examples:
  futocp solve instances/futoshiki/9x9-extreme-01.json --check
  futocp solve --puzzle "4:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,"   # a Tatham id (or a Sudoku line)
  head -3 instances/sudoku/top95.txt | futocp solve - --to sudoku --quiet
  futocp crosscheck instances/futoshiki/6x6-extreme-01.json --backends complete
  futocp convert instances/sudoku/top95.txt --to sudoku | wc -l      # 95: every puzzle
  futocp check instances/sudoku/top95.txt --index 3 --unique-only
  futocp backends                 # which solvers run here, and why not
  futocp help solve               # the options of one command"""


# ------------------------------------------------------------------ helpers
def parse_opts(items: Sequence[str] | None) -> dict[str, str]:
    """``["k=v", ...]`` -> ``{"k": "v"}`` (values are parsed by the backend's option types)."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--opt expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def render(board: Board, values: Sequence[Any] | None = None) -> str:
    """A board (optionally filled with ``values``) as readable text."""
    shown = board if values is None else board.solved(values)
    try:
        return formats.dumps(shown, "text").rstrip("\n")
    except FutocpError:  # no text format for this board: drawn read-only
        return textview.draw(shown)


def _solution_json(board: Board, values: Sequence[Any]) -> list[Any]:
    return board.as_grid(list(values)) if board.shape else list(values)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, default=_json_default))


def _exit_code(result: Result) -> int:
    """0 when the search answered all it was asked, 1 when a time limit stopped it."""
    return EXIT_OK if result.finished else EXIT_UNKNOWN


def did_you_mean(word: str, choices: Iterable[Any]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``choices`` (:mod:`difflib`), or ``""``.

    Example:
        >>> did_you_mean("slove", ["solve", "show", "check"])
        "; did you mean 'solve'?"
        >>> did_you_mean("zzz", ["solve"])
        ''
    """
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


# ------------------------------------------------------------------ input
def _named(source: str, boards: Sequence[Board]) -> list[tuple[str, Board]]:
    if len(boards) == 1:
        return [(source, boards[0])]
    return [(f"{source}#{k}", board) for k, board in enumerate(boards, 1)]


def _stdin_text() -> str:
    if sys.stdin is None:
        raise UsageError("no standard input to read the instance from")
    if sys.stdin.isatty():
        print("futocp: reading the instance from standard input (end it with Ctrl-D)",
              file=sys.stderr)
    try:
        return sys.stdin.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"not a UTF-8 text ({exc.reason})", "<stdin>") from None


def load_instances(path: str, fmt: str | None = None) -> list[tuple[str, Board]]:
    """Every instance of a file as ``(name, board)``: the file name for a single
    instance, ``FILE#k`` (k from 1) for each instance of a collection; ``-``
    reads standard input (named ``<stdin>``)."""
    if path == "-":
        return _named("<stdin>", formats.loads_many(_stdin_text(), fmt, "<stdin>"))
    return _named(path, formats.read_many(path, fmt))


def _source(args: argparse.Namespace) -> str:
    """Where the instances come from, for messages."""
    if getattr(args, "puzzle", None) is not None:
        return "--puzzle"
    return "standard input" if args.file == "-" else str(args.file)


def _input_name(args: argparse.Namespace) -> str:
    """Where the instances come from, as JSON outputs name it: the file, ``<stdin>``
    or ``<puzzle>`` (the prefix of the ``#k`` names of a collection)."""
    if getattr(args, "puzzle", None) is not None:
        return "<puzzle>"
    return "<stdin>" if args.file == "-" else str(args.file)


def _inputs(args: argparse.Namespace) -> list[tuple[str, Board]]:
    """The instances a command reads: ``FILE``, ``-`` (standard input) or ``--puzzle TEXT``
    (format sniffed unless ``--format``); ``--index I`` keeps the I-th (1-based)."""
    puzzle = getattr(args, "puzzle", None)
    if puzzle is not None:
        if args.file is not None:
            raise UsageError(f"give an instance file or --puzzle TEXT, not both ({args.file!r})")
        text = puzzle if puzzle.endswith("\n") else puzzle + "\n"
        fmt = args.format or next((name for name in COLLECTION_FORMATS  # line formats first
                                   if formats.FORMATS[name].sniff(text)), None)
        instances = _named("<puzzle>", formats.loads_many(text, fmt, "<puzzle>"))
    elif args.file is None:
        raise UsageError("name an instance file ('-' reads standard input) or give --puzzle TEXT")
    else:
        instances = load_instances(args.file, args.format)
    index = getattr(args, "index", None)
    if index is None:
        return instances
    if not 1 <= index <= len(instances):
        held = f"{len(instances)} puzzles" if len(instances) > 1 else "one puzzle"
        raise UsageError(f"--index {index} is outside 1..{len(instances)} ({_source(args)} holds "
                         f"{held})")
    return [instances[index - 1]]


def _one_instance(args: argparse.Namespace, why: str) -> tuple[str, Board]:
    """The one instance of a command that works on a single puzzle: a collection
    needs ``--index`` (refused clearly without it)."""
    instances = _inputs(args)
    if len(instances) > 1:
        raise UsageError(f"{_source(args)} holds {len(instances)} puzzles and {why}: choose one "
                         f"with --index I (1..{len(instances)})")
    return instances[0]


def _write_text(text: str, output: str | None) -> None:
    if output:
        formats.base.atomic_write(output, text)
    else:
        sys.stdout.write(text)


# ------------------------------------------------------------------ solve
def collection_summary(records: Sequence[dict[str, Any]], elapsed_s: float) -> dict[str, Any]:
    """Counts and times over per-instance records (keys ``status``, ``verified`` and
    ``stats["wall_s"]`` -- or ``wall_s``).

    ``total_s`` sums the instances' wall times, ``median_s`` is their median,
    ``elapsed_s`` is the whole run (solving and verifying) and
    ``puzzles_per_s`` = instances / ``elapsed_s``.
    """
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
        checks = [verify(board, s) for s in result.solutions]
    violations = [str(v) for found in checks for v in found]
    return {"instance": name, "backend": result.backend, "status": result.status.value,
            "n_solutions": result.n_solutions, "exhausted": result.exhausted,
            "finished": result.finished, "verified": not violations, "violations": violations,
            "solutions": [_solution_json(board, s) for s in result.solutions],
            "stats": result.stats}


def _solution_text(board: Board, values: Sequence[Any], fmt: str) -> str:
    """A solution in a format's notation (``text``: the readable grid), newline-ended."""
    if fmt == "text":
        return render(board, values) + "\n"
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
        print(render(board, sol))
        if args.check:
            print("verified" if not checks[i] else
                  "NOT verified: " + "; ".join(map(str, checks[i])))
        print()
    print(_status_line(result))


def _with_run_limits(command: Callable[[argparse.Namespace], int]
                     ) -> Callable[[argparse.Namespace], int]:
    """Run a command within ``--memory-limit``; the backends whose solver is C code
    run in a child process (one, reused), so that a crash of it costs that run
    only (exit 70, or an ``error`` row), never this process."""

    @functools.wraps(command)
    def wrapper(args: argparse.Namespace) -> int:
        with run_limits(memory_limit=args.memory_limit, isolate=True, reuse=True):
            return command(args)

    return wrapper


@_with_run_limits
def cmd_solve(args: argparse.Namespace) -> int:
    """``futocp solve``: every puzzle of the input, each verified."""
    instances = _inputs(args)
    _check_solve_options(args, len(instances))
    collection = len(instances) > 1
    limit = None if args.all else args.limit
    options: dict[str, Any] = parse_opts(args.opt)
    if args.verbose and args.backend in REGISTRY and "log" not in options and any(
            o.name == "log" for o in REGISTRY[args.backend].options):
        options["log"] = "true"  # the backend's own search log (on stderr)
    records, failed, unfinished = [], [], 0
    start = time.perf_counter()
    for name, board in instances:
        if args.verbose:
            _describe_model(name, board, args.filtering)
        guard: contextlib.AbstractContextManager[Any] = (
            _StdoutToStderr() if args.verbose else contextlib.nullcontext())
        with guard:
            result = solve(board, args.backend, limit=limit, time_limit=args.time_limit,
                           seed=args.seed, filtering=args.filtering, **options)
        checks = [verify(board, s) for s in result.solutions]
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
            _print_json(records[0])
    else:
        summary = collection_summary(records, time.perf_counter() - start)
        if args.json:
            _print_json({"instance": _input_name(args),
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


def cmd_show(args: argparse.Namespace) -> int:
    """``futocp show``: every puzzle of the input (or the one of ``--index``)."""
    instances = _inputs(args)
    code = EXIT_OK
    for k, (name, board) in enumerate(instances):
        if len(instances) > 1:
            print(("\n" if k else "") + f"== {name} ==")
        print(render(board))
        kinds = Counter(rel.kind for rel in board.relations)
        print(f"\n{board.kind}: {board.n_cells} cells, {len(board.asterisms)} asterisms of "
              f"{board.k}, labels {list(board.values)}, {len(board.clues)} clues"
              + "".join(f", {n} {_KIND_WORDS.get(kind, kind)}" for kind, n in sorted(kinds.items())))
        if args.solution:
            result = solve(board, args.backend, limit=2, time_limit=args.time_limit)
            if result.solutions:
                unique = (" (not unique)" if result.n_solutions > 1 else
                          " (unique)" if result.finished else "")
                print(f"\nsolution{unique}:")
                print(render(board, result.solutions[0]))
                if verify(board, result.solutions[0]):
                    print(f"futocp: error: {name}: the solution fails verification",
                          file=sys.stderr)
                    code = max(code, EXIT_UNKNOWN)
            else:
                print(f"\n{result.status.value}: no solution")
            code = max(code, _exit_code(result))
    return code


def cmd_backends(args: argparse.Namespace) -> int:
    rows = backend_table()
    if args.json:
        _print_json([{**r, "available": r["available"] is True,
                      "why_not": None if r["available"] is True else r["available"]} for r in rows])
        return EXIT_OK
    for r in rows:
        avail = "available" if r["available"] is True else f"NOT available: {r['available']}"
        kind = "complete" if r["complete"] else "incomplete"
        print(f"{r['name']:<13} {avail}; {kind}")
        print(f"{'':<13} capabilities: {', '.join(r['capabilities'])}")
        opts = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "-"
        print(f"{'':<13} options: {opts}")
    return EXIT_OK


# ------------------------------------------------------------- crosscheck
TABLE_WIDTH = 100  # the crosscheck tables fit 100 columns
_ROW = "{:<14} {:<8} {:>5} {:<3} {:<3} {:>8} {:>8} {:>8}  {}"
_HEAD = _ROW.format("backend", "status", "found", "all", "ok", "build_s", "solve_s", "wall_s",
                    "counters")
_LEGEND = ("found: solutions found (up to --limit); all: the search proved there are no more;\n"
           "ok: every solution verified; *: stopped by the time limit")


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, at a space where it can be (``...`` marks a cut)."""
    if len(text) <= width:
        return text
    cut = text[:max(width - 4, 0)]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + " ..."


def _crosscheck_row(r: dict[str, Any]) -> str:
    """One backend's row of the crosscheck table (at most :data:`TABLE_WIDTH` columns)."""
    room = TABLE_WIDTH - len(_ROW.format(*[""] * 9))
    if r["status"] == "error":
        head = f"{r['backend']:<14} {'error':<8} "
        return head + _fit(str(r["reason"]), TABLE_WIDTH - len(head))
    counters = " ".join(f"{k}={r['counters'][k]}" for k in COUNTERS
                        if k in r.get("counters", {})
                        and k not in ("removed_values", "fixed_cells"))
    status = r["status"] + ("*" if r.get("time_limited") else "")
    return _ROW.format(r["backend"], status, r["n_solutions"], "yes" if r["exhausted"] else "no",
                       "NO" if r["verified"] is False else "yes" if r["verified"] else "-",
                       f"{r['build_s']:.4f}",
                       f"{r['solve_s']:.4f}", f"{r['wall_s']:.4f}", _fit(counters or "-", room))


def _crosscheck_table(rows: list[dict[str, Any]]) -> str:
    return "\n".join([_HEAD, *(_crosscheck_row(r) for r in rows)])


def _summary_table(summary: list[dict[str, Any]]) -> str:
    row = "{:<14} {:>11} {:>11} {:>8} {:>6} {:>6} {:>10} {:>10}"
    lines = [row.format("backend", "solved", "agreed", "timeout", "error", "wrong", "median_s",
                        "total_s")]
    for s in summary:
        n = s["instances"]
        lines.append(row.format(
            s["backend"], f"{s['solved']}/{n}", f"{s['agreed']}/{n}", s["time_limited"],
            s["errors"], s["failed_verification"],
            "-" if s["median_s"] is None else f"{s['median_s']:.4f}",
            "-" if s["total_s"] is None else f"{s['total_s']:.3f}"))
    return "\n".join(lines)


class _Progress:
    """Progress over a collection on stderr: rich's bar on a terminal (a counter
    without rich), nothing when stderr is not a terminal."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.done = total, 0
        self.bar: Any = None  # a rich.progress.Progress
        self.task: Any = None
        self.live = sys.stderr.isatty() and total > 1
        if self.live:
            try:
                from rich.console import Console
                from rich.progress import Progress

                self.bar = Progress(console=Console(stderr=True), transient=True)
                self.task = self.bar.add_task(label, total=total)
                self.bar.start()
            except ImportError:
                self.bar = None

    def advance(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.advance(self.task)
        elif self.live:
            print(f"\r{self.done}/{self.total}", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        elif self.live:
            print("\r", end="", file=sys.stderr, flush=True)


@_with_run_limits
def cmd_crosscheck(args: argparse.Namespace) -> int:
    """``futocp crosscheck``: one table (streamed row by row) for one instance; one
    summary per backend for a collection. Exit 1 on a disagreement, a failed
    verification or a backend stopped by its time limit."""
    instances = _inputs(args)
    limit = None if args.all else args.limit
    names = choose_backends(args.backends)
    single = len(instances) == 1
    stream = single and not args.json
    if stream:
        print(_HEAD, flush=True)
    reports = []
    progress = _Progress(len(instances), "crosscheck") if not single else None
    try:
        for name, board in instances:
            rows = crosscheck(board, names, limit=limit, time_limit=args.time_limit,
                              filtering=args.filtering, seed=args.seed,
                              on_record=(lambda r: print(_crosscheck_row(r), flush=True))
                              if stream else None)
            reports.append((name, rows, disagreements(rows, limit)))
            if progress is not None:
                progress.advance()
    finally:
        if progress is not None:
            progress.close()
    agree = not any(problems for _, _, problems in reports)
    late = sorted({r["backend"] for _, rows, _ in reports for r in rows if r.get("time_limited")})
    summary = backend_summary([rows for _, rows, _ in reports])
    if args.json:
        out: dict[str, Any] = {"instance": _input_name(args), "agree": agree,
                               "time_limited": late}
        if single:
            out.update(rows=reports[0][1], problems=reports[0][2])
        else:
            out["backends"] = summary
            out["instances"] = [{"index": k, "instance": name, "rows": rows,
                                 "problems": problems, "agree": not problems}
                                for k, (name, rows, problems) in enumerate(reports, 1)]
        _print_json(out)
    elif single:
        print(_LEGEND)
        for p in reports[0][2]:
            print(f"DISAGREEMENT: {p}")
        print("all backends agree" if agree else "backends DISAGREE")
    else:
        print(f"{len(instances)} instances from {_source(args)}, limit {limit}"
              + (f", time limit {args.time_limit}s" if args.time_limit else ""))
        print(_summary_table(summary))
        bad = [(name, problems) for name, _, problems in reports if problems]
        for name, problems in bad[:10]:
            print(f"DISAGREEMENT {name}: {problems[0]}")
        if len(bad) > 10:
            print(f"... and {len(bad) - 10} more (--json lists them all)")
        print(f"{len(instances)} instance(s), {len(bad)} with a disagreement or failed "
              "verification")
    if late and not args.json:
        print(f"stopped by the time limit: {', '.join(late)} (exit code 1)")
    return EXIT_OK if agree and not late else EXIT_UNKNOWN


# ----------------------------------------------------------- export, decode
def cmd_export(args: argparse.Namespace) -> int:
    _, board = _one_instance(args, "an export is one formula")
    text = export(build_model(board, args.filtering), args.to, **parse_opts(args.opt))
    _write_text(text, args.output)
    return EXIT_OK


def _read_file(path: str) -> str:
    """A text file, or an InputError naming it (and the line and column of a byte
    that is not UTF-8)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise InputError(f"not a UTF-8 text file (byte 0x{data[exc.start]:02x})", path, line,
                         column) from None


def cmd_decode(args: argparse.Namespace) -> int:
    _, board = _one_instance(args, "a model decodes into one puzzle")
    answer = _read_file(args.model)
    if args.formula is None:
        model = build_model(board, args.filtering)
        if SOLUTION_PREFIX in answer:
            solutions = parse_mzn_output(model, answer, source=args.model).solutions
            if not solutions:
                raise InputError("no solution line in the MiniZinc output", args.model)
            values = solutions[0]
        elif answer_format(answer) is not None:  # HiGHS / SCIP solution, z3 model: names suffice
            values = decode_answer(board, answer, source=args.model)
        else:
            formula = export(model, "dimacs", **parse_opts(args.opt))
            values = decode(board, formula, answer, model_source=args.model,
                            formula_source=f"the formula of {_source(args)} (re-encoded)")
    else:
        values = decode(board, _read_file(args.formula), answer, model_source=args.model,
                        formula_source=args.formula)
    problems = verify(board, values)
    if args.json:
        _print_json({"instance": _input_name(args), "model": args.model,
                     "solution": _solution_json(board, values),
                     "verified": not problems, "violations": [str(v) for v in problems]})
    else:
        print(render(board, values))
        print("verified" if not problems else "NOT verified: " + "; ".join(map(str, problems)))
    return EXIT_OK if not problems else EXIT_UNKNOWN


def cmd_convert(args: argparse.Namespace) -> int:
    """``futocp convert``: every puzzle to a format of many (sudoku, tatham, jigsaw);
    one puzzle (``--index`` on a collection) to the other formats."""
    instances = _inputs(args)
    if len(instances) > 1 and args.to not in COLLECTION_FORMATS:
        raise UsageError(f"{_source(args)} holds {len(instances)} puzzles and the {args.to} "
                         f"format holds one: choose one with --index I (1..{len(instances)}), "
                         f"or convert to a format of many ({', '.join(COLLECTION_FORMATS)})")
    _write_text("".join(formats.dumps(board, args.to) for _, board in instances), args.output)
    return EXIT_OK


# ------------------------------------------------------ puzzle operations
EXIT_NOT_CRITICAL, EXIT_NOT_PUZZLE = 3, 4


def _cell_ref(board: Board, cell: int) -> Any:
    return list(board.coords(cell)) if board.shape else cell


def _parse_cells(items: Sequence[str] | None) -> list[int | tuple[int, int]]:
    """``["r,c", "k", ...]`` -> grid positions ``(r, c)`` or cell numbers ``k``."""
    out: list[int | tuple[int, int]] = []
    for item in items or ():
        parts = item.split(",")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) not in (1, 2):
            raise UsageError(f"--keep expects ROW,COL or a cell number, got {item!r}")
        out.append(nums[0] if len(nums) == 1 else (nums[0], nums[1]))
    return out


def _emit(board: Board, output: str | None, fmt: str | None) -> None:
    """Write ``board`` to ``output`` (atomically) or print it; JSON unless told."""
    if output:
        formats.write(board, output, fmt)
    else:
        sys.stdout.write(formats.dumps(board, fmt or "json"))


def cmd_count(args: argparse.Namespace) -> int:
    """``futocp count``: every puzzle of the input, one line (or JSON record) each."""
    instances = _inputs(args)
    limit = None if args.all else args.limit
    records, code = [], EXIT_OK
    for name, board in instances:
        res = count(board, limit=limit, backend=args.backend, time_limit=args.time_limit)
        finished = res.exhausted or (limit is not None and res.count >= limit)
        code = max(code, EXIT_OK if finished else EXIT_UNKNOWN)
        records.append({"instance": name, "count": res.count, "limit": limit,
                        "exhausted": res.exhausted})
        if args.json:
            continue
        prefix = f"{name}: " if len(instances) > 1 else ""
        if res.exhausted:
            print(f"{prefix}{res.count} solution(s), exact (backend {res.backend})")
        elif finished:
            print(f"{prefix}{res.count} solution(s) or more: limit reached (backend {res.backend})")
        else:
            print(f"{prefix}at least {res.count} solution(s): stopped by the time limit "
                  f"(backend {res.backend})")
    if args.json:
        _print_json(records[0] if len(instances) == 1 else
                    {"instance": _input_name(args), "instances": records})
    return code


def _check_one(name: str, board: Board, args: argparse.Namespace) -> dict[str, Any]:
    solution = unique_solution(board, args.backend)
    found = 1 if solution else count(board, limit=2, backend=args.backend).count
    critical, breaking = (None, None)
    if solution is not None and not args.unique_only:
        breaking = redundant_clue(board, args.backend)
        critical = breaking is None
    return {"instance": name, "solutions": found, "unique": solution is not None,
            "critical": critical,
            "breaking_clue": None if breaking is None else
            {"cell": _cell_ref(board, breaking[0]), "label": breaking[1],
             "name": board.cell_name(breaking[0])}}


def _check_lines(rec: dict[str, Any]) -> list[str]:
    found = rec["solutions"]
    lines = ["unique: " + ("yes" if rec["unique"] else
                           "no (no solution)" if found == 0 else "no (2 or more solutions)")]
    clue = rec["breaking_clue"]
    if rec["critical"] is not None:
        lines.append("critical: yes" if rec["critical"] else
                     f"critical: no (without the clue {clue['label']!r} at {clue['name']} "
                     "the solution is still unique)")
    return lines


def cmd_check(args: argparse.Namespace) -> int:
    """``futocp check``: every puzzle of the input; the exit code is the worst
    (4 any not a puzzle, else 3 any not critical, else 0)."""
    instances = _inputs(args)
    records = []
    for name, board in instances:
        rec = _check_one(name, board, args)
        records.append(rec)
        if not args.json:
            lines = _check_lines(rec)
            print("\n".join(lines) if len(instances) == 1 else f"{name}: {'; '.join(lines)}")
    summary = {"instances": len(records), "unique": sum(r["unique"] for r in records),
               "critical": sum(r["critical"] is True for r in records),
               "not_critical": sum(r["critical"] is False for r in records),
               "not_puzzles": sum(not r["unique"] for r in records)}
    for rec in records:
        if rec["breaking_clue"] is not None:
            del rec["breaking_clue"]["name"]
    if args.json:
        _print_json(records[0] if len(records) == 1 else
                    {"instance": _input_name(args), "instances": records, "summary": summary})
    elif len(records) > 1:
        print(f"{summary['instances']} puzzles: {summary['unique']} unique, "
              f"{summary['critical']} critical, {summary['not_critical']} not critical, "
              f"{summary['not_puzzles']} not puzzles")
    if summary["not_puzzles"]:
        return EXIT_NOT_PUZZLE
    return EXIT_NOT_CRITICAL if summary["not_critical"] else EXIT_OK


def cmd_minimize(args: argparse.Namespace) -> int:
    _, board = _one_instance(args, "minimize writes one puzzle")
    _emit(minimize(board, seed=args.seed, keep=_parse_cells(args.keep), backend=args.backend),
          args.output, args.to)
    return EXIT_OK


def cmd_generate(args: argparse.Namespace) -> int:
    seed = args.seed
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 31)
        print(f"futocp: seed {seed}", file=sys.stderr)
    if args.grade is not None or args.count != 1 or args.allow_lower:
        return _generate_graded(args, seed)
    params = dict(parse_param_text(item) for item in args.param or ())
    board = generate(args.family, seed=seed, size=args.size, params=params,
                     givens=args.givens, inequalities=args.inequalities, unique=args.unique,
                     critical=args.critical, holes=args.holes, pattern=args.pattern,
                     backend=args.backend)
    _emit(board, args.output, args.format)
    return EXIT_OK


def _add_puzzle_commands(sub: Any) -> None:
    p = sub.add_parser("count", help="count the solutions of an instance, up to a limit")
    _add_instances(p, "a collection: every puzzle, one line each")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--limit", type=int, default=1000, help="stop at this many (default 1000)")
    g.add_argument("--all", action="store_true", help="count every solution")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds for each puzzle's count (default: none)")
    p.add_argument("--json", action="store_true", help="print one JSON object (a collection: "
                   "one with a record per puzzle)")
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("check", help="is the instance a Latin puzzle (unique)? a critical one?",
                       description="Exit 0: a critical puzzle (or, with --unique-only, a puzzle); "
                       "3: unique but not critical; 4: not a puzzle (no solution, or several). A "
                       "collection: every puzzle, and the worst code (4, else 3, else 0).")
    _add_instances(p, "a collection: every puzzle, one line each, then a summary")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--unique-only", action="store_true", help="check uniqueness only")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--time-limit", type=float, metavar="S", dest="command_time_limit",
                   help="seconds for the whole command; past it, exit 1 (default: none)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("minimize", help="remove clues at random, keeping the solution unique, "
                       "until the puzzle is critical")
    _add_instances(p, "a collection needs --index")
    p.add_argument("--seed", type=int, help="seeds the removal order")
    p.add_argument("--keep", action="extend", nargs="+", metavar="ROW,COL",
                   help="clues that must stay (ROW,COL, or a cell number on other boards)")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--to", choices=sorted(formats.FORMATS), help="output format (default json, "
                   "or by the extension of -o)")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--time-limit", type=float, metavar="S", dest="command_time_limit",
                   help="seconds for the whole command; past it, exit 1 (default: none)")
    p.set_defaults(func=cmd_minimize)

    p = sub.add_parser("generate", help="a random instance, reproducible from --seed")
    p.add_argument("--family", required=True, help="family name (e.g. latin-square, futoshiki)")
    p.add_argument("--size", type=int, help="board size n")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="family parameter")
    p.add_argument("--givens", type=int, help="clues to leave")
    p.add_argument("--inequalities", type=int, help="inequality signs (futoshiki)")
    p.add_argument("--unique", action="store_true", help="keep (futoshiki: make) the solution unique")
    p.add_argument("--critical", action="store_true", help="minimise to a critical puzzle")
    p.add_argument("--holes", type=int, help="a QWH instance with this many holes (latin-square)")
    p.add_argument("--pattern", choices=PATTERNS, default="random", help="QWH hole pattern")
    p.add_argument("--seed", type=int, help="random seed (default: drawn and printed on stderr)")
    p.add_argument("--backend", help="a complete backend for the uniqueness checks")
    _add_grade_options(p)
    p.add_argument("--format", choices=sorted(formats.FORMATS), help="output format (default json, "
                   "or by the extension of -o)")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.add_argument("--time-limit", type=float, metavar="S", dest="command_time_limit",
                   help="seconds for the whole command; past it, exit 1 (default: none)")
    p.set_defaults(func=cmd_generate)


# ----------------------------------------------------------------- rating
# ``rate``, ``explain``, ``hint`` and ``generate --grade`` (futocp.rating,
# futocp.generate_graded). Exit codes: 0 rated (ambiguous and impossible
# puzzles included); hint 3 = a wrong entry, 4 = the puzzle is not unique;
# generate --grade 1 = the grade was not reached.
def cmd_rate(args: argparse.Namespace) -> int:
    from .rating import format_rating, format_table, rate

    instances = load_instances(args.file, args.format)
    rows = []
    for index, (name, board) in enumerate(instances):
        r = rate(board, args.scale)
        record: dict[str, Any] = {"instance": args.file, "index": index, "grade": r.grade,
                                  "status": r.status, "score": r.score, "counts": r.counts,
                                  "guesses": r.guesses, "time_s": round(r.time_s, 6)}
        if board.param_map.get("grade"):
            record["asked"] = board.param_map["grade"]
        if args.json:
            record["weights"] = {k: list(v) for k, v in r.weights.items()}
            _print_json(record)
        elif len(instances) == 1:
            print("\n".join(format_rating(r, name)))
        rows.append(record)
    if not args.json and len(instances) > 1:
        print("\n".join(format_table(rows)))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    from .rating import LEVELS, closure, explain_lines, rate

    board = formats.read(args.file, args.format)
    r = rate(board, args.scale)
    steps = r.steps
    cut = None
    if args.level is not None:
        level = LEVELS.index(args.level)
        if r.level is None or r.level > level:
            steps = closure(board, level, args.scale).steps if level < 4 else r.steps
            cut = level
    if args.json:
        _print_json(r.explain_dict(steps))
        return EXIT_OK
    cells = "(row,col) from 0" if board.shape else "cell numbers"
    print(f"{args.file}: {r.grade or r.status} ({r.scale} scale), {len(r.steps)} steps; "
          f"cells {cells}")
    for line in explain_lines(steps):
        print(line)
    if cut is not None:
        need = r.grade or r.status
        print(f"--- the {LEVELS[cut]} techniques stop here: the puzzle needs {need} ---")
    elif r.status != "solved":
        print(f"--- {r.status}: {r.reason} ---")
    return EXIT_OK


def cmd_hint(args: argparse.Namespace) -> int:
    from .rating import hint, parse_state

    board = formats.read(args.file, args.format)
    entries = None
    if args.state is not None:
        text = _read_file(args.state) if os.path.isfile(args.state) else args.state
        entries = parse_state(board, text)
    h = hint(board, entries, args.scale)
    if args.json:
        _print_json(h.as_dict())
    elif h.status == "hint":
        assert h.step is not None
        print(f"hint ({h.step.technique}, {_level_name(h.step.level)}): {h.reason}")
    elif h.status == "wrong":
        print(f"wrong entry: {h.reason}")
    elif h.status == "solved":
        print(f"solved: {h.reason}")
    else:
        print(f"no hint: {h.reason}")
    return {"hint": EXIT_OK, "solved": EXIT_OK, "wrong": EXIT_NOT_CRITICAL}.get(
        h.status, EXIT_NOT_PUZZLE)


def _level_name(level: int) -> str:
    from .rating import LEVELS

    return LEVELS[level]


def _add_grade_options(p: argparse.ArgumentParser) -> None:
    """``generate``'s options for puzzles of a chosen grade."""
    from .rating import LEVELS

    p.add_argument("--grade", choices=LEVELS, help="a unique puzzle that rates exactly this "
                   "(futoshiki, futoshiki-adjacent, latin-square; sudoku and other families "
                   "without relations on the general scale)")
    p.add_argument("--allow-lower", action="store_true", help="with --grade: when the grade is "
                   "not reached, give the last puzzle and say its actual grade (instead of "
                   "failing with exit code 1)")
    p.add_argument("--count", type=int, default=1, metavar="K",
                   help="with --grade: K puzzles, as a collection (tatham or sudoku lines)")
    p.add_argument("--tries", type=int, default=50, help="with --grade: hidden solutions to try "
                   "per puzzle (default 50)")


def _generate_graded(args: argparse.Namespace, seed: int) -> int:
    from .generate_graded import GradeNotReached, generate_graded_many
    from .rating import rate

    if args.grade is None:
        raise UsageError("--count and --allow-lower go with --grade")
    other = [name for name in ("givens", "inequalities", "holes") if getattr(args, name)]
    other += [name for name in ("unique", "critical") if getattr(args, name)]
    if other:
        raise UsageError(f"--grade makes its own clues: not with --{other[0]}")
    params = dict(parse_param_text(item) for item in args.param or ())
    try:
        boards = generate_graded_many(args.family, args.grade, args.count, size=args.size,
                                      seed=seed, params=params, tries=args.tries,
                                      allow_lower=args.allow_lower)
    except GradeNotReached as exc:
        print(f"futocp: {exc}", file=sys.stderr)
        return EXIT_UNKNOWN
    grades = []
    for board in boards:
        got = rate(board).grade
        grades.append(got)
        if got != args.grade:
            print(f"futocp: note: asked {args.grade}, this puzzle rates {got}", file=sys.stderr)
    if len(boards) == 1:
        _emit(boards[0], args.output, args.format)
        return EXIT_OK
    fmt = args.format or (formats.detect(args.output) if args.output else None)
    if fmt is None:
        fmt = "tatham" if boards[0].kind in ("futoshiki", "futoshiki-adjacent") else "sudoku"
    if fmt not in ("tatham", "sudoku"):
        raise UsageError(f"--count {args.count} writes a collection: use --format tatham "
                         "(futoshiki) or sudoku (Sudoku lines), not " + fmt)
    text = "".join(f"# grade: {g} (seed {seed}, puzzle {k})\n{formats.dumps(b, fmt)}"
                   for k, (b, g) in enumerate(zip(boards, grades, strict=True), 1))
    if args.output:
        formats.base.atomic_write(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _add_rating_commands(sub: Any) -> None:
    from .rating import LEVELS, SCALES

    p = sub.add_parser("rate", help="the difficulty of a puzzle (Tatham's grades), puzzle by "
                       "puzzle for a collection",
                       description="Exit 0 when rated (ambiguous and impossible puzzles are "
                       "reported as such), 2 on bad input.")
    _add_input(p)
    p.add_argument("--scale", choices=SCALES, help="tatham (default for n x n Futoshiki and "
                   "Latin squares) or general (any Latin board)")
    p.add_argument("--json", action="store_true", help="one JSON object per line per puzzle")
    p.set_defaults(func=cmd_rate)

    p = sub.add_parser("explain", help="the proof of a puzzle, step by step")
    _add_input(p)
    p.add_argument("--scale", choices=SCALES)
    p.add_argument("--level", choices=LEVELS, help="only the steps of this level and below; "
                   "mark where the puzzle needs more")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("hint", help="the next cheapest step from a player's entries",
                       description="Exit 0: a hint (or nothing left to do); 3: an entry is wrong "
                       "(named instead of a hint); 4: the puzzle has no unique solution.")
    _add_input(p)
    p.add_argument("--state", metavar="GRID", help="the player's entries: a file or a grid text, "
                   "rows on lines or separated by '/', '.' for an empty cell")
    p.add_argument("--scale", choices=SCALES)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_hint)

# ------------------------------------------------------------ experiments
def cmd_run(args: argparse.Namespace) -> int:
    from .experiments.report import read_records
    from .experiments.runner import run_experiment

    s = run_experiment(args.config, fresh=args.fresh, workers=args.workers)
    if s.moved:
        print(f"moved the old results to {s.moved}")
    statuses = ", ".join(f"{n} {k}" for k, n in sorted(s.statuses.items()))
    print(f"{s.planned} runs planned, {s.skipped} already recorded, {s.done} done now"
          + (f" ({statuses})" if statuses else ""))
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        records = read_records(s.results) if os.path.exists(s.results) else []
    for note in notes:
        print(f"note: {note.message}")
    wrong = sum(r.get("verified") is False for r in records)
    disagreeing = sum(bool(r.get("disagreement")) for r in records)
    print(f"{len(records)} records in {s.results}: {wrong} wrong, {disagreeing} disagreeing")
    print(f"report: futocp report {s.output}")
    return EXIT_UNKNOWN if wrong or disagreeing else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .experiments.report import report

    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        summary = report(args.output, by=args.by, metric=args.metric)
    for note in notes:
        print(f"futocp: note: {note.message}", file=sys.stderr)
    with open(summary.attrs["markdown"], encoding="utf-8") as fh:
        print(fh.read())
    print("wrote " + ", ".join(summary.attrs["files"]))
    return EXIT_OK


def _add_experiment_commands(sub: Any) -> None:
    p = sub.add_parser("run", help="run an experiment config (resumes where it stopped)")
    p.add_argument("config", help="experiment YAML file (see docs/experiments.md)")
    p.add_argument("--fresh", action="store_true", help="move old results aside and start over")
    p.add_argument("--workers", type=int, metavar="N", help="runs in parallel (overrides config)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="summary tables and plots of an experiment's results")
    p.add_argument("output", help="the experiment's output folder")
    p.add_argument("--by", help="grouping columns, e.g. family,size (default: the config's)")
    p.add_argument("--metric", help="time column: wall_s, solve_s or build_s (default wall_s)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("reproduce", help="re-run a seed paper's table and compare with the "
                       "paper (docs/reproductions.md)")
    p.add_argument("name", nargs="?", help="the reproduction (see --list)")
    p.add_argument("--list", action="store_true", help="list the reproductions")
    p.add_argument("--quick", action="store_true", help="a small seeded subset (seconds)")
    p.add_argument("--json", action="store_true",
                   help='print one JSON object {"name": NAME, "rows": [...]}')
    p.add_argument("--output", metavar="DIR", help="output folder; running again into it "
                   "resumes (default: the config's, experiments/results/reproduce/...)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local processes or a Dask cluster (default: local)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="runs in parallel (default: 1, fair timing)")
    p.add_argument("--markdown", metavar="FILE", help="also write the Markdown section (table, "
                   "plots in figures/ beside it, verdict) to FILE (default: none)")
    p.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import reproduce as rp
    from .reproduce.markdown import markdown_section, table_rows, text_table

    if args.list:
        for rep in rp.REPRODUCTIONS.values():
            print(f"{rep.name:<22} {rep.source}: {rep.title}")
        return EXIT_OK
    if not args.name:
        raise UsageError("give a reproduction name, or --list")
    if args.name not in rp.REPRODUCTIONS:
        raise UsageError(f"unknown reproduction {args.name!r}"
                         + (did_you_mean(args.name, rp.REPRODUCTIONS)
                            or f" (known: {', '.join(rp.REPRODUCTIONS)})"))
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    rows = rp.run_reproduction(args.name, quick=args.quick, output=args.output,
                               executor=args.executor, workers=args.workers,
                               progress=None if not args.json else False)
    rep = rp.REPRODUCTIONS[args.name]
    if args.json:
        _print_json({"name": args.name, "rows": [r.to_json() for r in rows]})
    else:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            print(text_table(rows))
        else:
            table = Table(title=f"{rep.name}: {rep.source}", show_lines=True)
            for head in ("row", "paper", "ours", "verdict", "note"):
                table.add_column(head, overflow="fold")
            for cells in table_rows(rows, sep="\n"):
                table.add_row(*cells)
            Console().print(table)
        if rep.verdict is not None:
            print(rep.verdict(rows))
    if args.markdown:
        from pathlib import Path

        target = Path(args.markdown)
        target.parent.mkdir(parents=True, exist_ok=True)
        figures = []
        if rep.figures is not None:
            figures = rep.figures(rp.load_runs(args.name, args.quick, args.output),
                                  target.parent / "figures")
        command = f"futocp reproduce {args.name}" + (" --quick" if args.quick else "")
        target.write_text(markdown_section(rep, rows, command, figures, target.parent) + "\n",
                          encoding="utf-8")
        if not args.json:
            print(f"wrote {target}")
    return EXIT_OK


def cmd_families(args: argparse.Namespace) -> int:
    fams = list_families()
    if args.json:
        _print_json([{"name": f.name, "description": f.description, "source": f.source,
                      "params": {p.name: {"type": p.type, "default": p.show(p.default)
                                          if p.default is not None else None, "help": p.help}
                                 for p in f.params.values()}} for f in fams])
        return EXIT_OK
    for f in fams:
        print(f"{f.name:<15} {f.describe_params()}")
        print(f"{'':<15} {f.description}")
    return EXIT_OK


def cmd_new(args: argparse.Namespace) -> int:
    fam = get_family(args.family)
    params: dict[str, Any] = {}
    for item in args.param or ():
        key, value = parse_param_text(item)
        if key not in fam.params:  # nor one of build()'s own arguments (size, less...)
            known = ", ".join(fam.params) or "none"
            raise UsageError(f"family {fam.name} has no parameter {key!r} (its parameters: {known})")
        params[key] = value
    board = fam.build(size=args.size, **params)
    _emit(board, args.output, args.format)
    return EXIT_OK


def _add_family_commands(sub: Any) -> None:
    p = sub.add_parser("families", help="list the board families (models/*.yaml) and their rules")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_families)

    p = sub.add_parser("new", help="print an empty instance of a family")
    p.add_argument("family", help="a family name (futocp families)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="family parameter, e.g. box=2x3, n=6, word=MAKIKAJI (repeatable)")
    p.add_argument("--size", type=int, help="the size n, where it fixes the parameters")
    p.add_argument("--format", choices=sorted(formats.FORMATS), default=None,
                   help="output format (default json, or by the extension of -o)")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_new)


# ------------------------------------------------------------------ render
def cmd_render(args: argparse.Namespace) -> int:
    """``futocp render``: the picture of an instance (SVG on stdout, or -o by its extension)."""
    from . import render as pictures  # matplotlib is imported only for pictures

    boards = formats.read_many(args.file, args.format)
    if args.index is None and len(boards) > 1:
        raise UsageError(f"{args.file} holds {len(boards)} puzzles; choose one with "
                         f"--index I (1..{len(boards)})")
    index = args.index or 1
    if not 1 <= index <= len(boards):
        raise UsageError(f"--index {index} is outside 1..{len(boards)}")
    board = boards[index - 1]
    if not args.solution and (args.backend is not None or args.time_limit is not None):
        raise UsageError("--backend and --time-limit apply with --solution only")
    fmt = pictures.format_of(args.output) if args.output else "svg"
    options: dict[str, Any] = {"candidates": args.candidates}
    code = EXIT_OK
    if args.solution:
        result = solve(board, args.backend or DEFAULT_BACKEND, time_limit=args.time_limit)
        options["result"] = result
        code = _exit_code(result)
        if result.solutions and verify(board, result.solutions[0]):
            print("futocp: warning: the drawn solution fails verification", file=sys.stderr)
            code = EXIT_UNKNOWN
    data = pictures.to_bytes(board, fmt, dpi=args.dpi, **options)
    if args.output:
        pictures.write_bytes_atomic(args.output, data)
    else:
        sys.stdout.write(data.decode("utf-8"))
    return code


def _add_render_command(sub: Any) -> None:
    p = sub.add_parser("render", help="draw an instance as SVG, PNG or PDF (matplotlib)",
                       description="Draw an instance: its cells, regions, signs, dots and cages; "
                                   "SVG on stdout unless -o names a .svg, .png or .pdf file.")
    _add_input(p)
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write OUT.svg, OUT.png or OUT.pdf (atomically; default: SVG on stdout)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--solution", action="store_true",
                      help="solve (default backend) and draw the solution: givens bold, "
                           "solved values lighter")
    what.add_argument("--candidates", action="store_true",
                      help="draw each empty cell's list after list filtering as small labels")
    p.add_argument("--dpi", type=int, metavar="N",
                   help="resolution of a PNG (default 150; SVG and PDF are vector pictures)")
    p.add_argument("--index", type=int, metavar="I",
                   help="the puzzle to draw in a file of several (1-based; required there)")
    p.add_argument("--backend", help=f"with --solution: one of {', '.join(REGISTRY)} "
                                     f"(default {DEFAULT_BACKEND})")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="with --solution: seconds for the solver (default none)")
    p.set_defaults(func=cmd_render)


# ------------------------------------------------------------------ parser
class _Formatter(argparse.HelpFormatter):
    """Help that states the default of every option taking a value (unless its
    text already does)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (action.option_strings and action.nargs != 0 and "default" not in text.lower()
                and action.default is not argparse.SUPPRESS):
            text += " (default: none)" if action.default is None else " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that says "did you mean" for a mistyped choice (a
    sub-command, a format) and a mistyped option."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}"
                                         f"{did_you_mean(value, choices)} "
                                         f"(choose from {', '.join(choices)})")

    def command_parser(self, name: str | None) -> argparse.ArgumentParser | None:
        """The parser of a sub-command (None for an unknown name)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices.get(name) if name else None
        return None

    def subcommands(self) -> list[str]:
        """The names of the sub-commands, in the order they were added."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return list(action.choices)
        return []

    # typeshed overloads parse_args on the namespace type; this one always makes a Namespace
    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            parser = self.command_parser(getattr(ns, "command", None)) or self
            options = [s for a in parser._actions for s in a.option_strings]
            hints = []
            for extra in extras:
                word = extra.split("=", 1)[0]
                if word.startswith("-"):
                    hint = did_you_mean(word, options)
                    if hint:
                        hints.append(hint[len("; did you mean "):-1])
            message = "unrecognized arguments: " + " ".join(extras)
            if hints:
                message += f"; did you mean {' '.join(hints)}?"
            parser.error(message)
        return ns


class _TopFormatter(_Formatter, argparse.RawDescriptionHelpFormatter):
    """The overview keeps the line breaks of its examples and exit codes."""


class _TopParser(_Parser):
    """``futocp --help`` starts with the one-line description and examples."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _TopFormatter)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        formatter = self._get_formatter()
        formatter.add_text(self.description)
        formatter.add_text(EXAMPLES)
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        for group in self._action_groups:
            formatter.start_section(group.title)
            formatter.add_text(group.description)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def _epilog() -> str:
    import textwrap

    lines = ["exit codes:"]
    for code, meaning in EXIT_CODES.items():
        lines += textwrap.wrap(meaning, 96, initial_indent=f"  {code:<4} ",
                               subsequent_indent=" " * 7)
    lines += ["", "more: futocp help COMMAND (or futocp COMMAND --help); README.md and docs/.",
              "shell completion: pip install argcomplete, then",
              '  eval "$(register-python-argcomplete futocp)"   (bash; zsh with bashcompinit)']
    return "\n".join(lines)


def _add_input(p: argparse.ArgumentParser) -> None:
    """``FILE`` and ``--format``: the input of a command that reads one file."""
    p.add_argument("file", help="instance file")
    p.add_argument("--format", choices=sorted(formats.FORMATS),
                   help="input format (default: by the file's extension, else by its content)")


def _add_instances(p: argparse.ArgumentParser, collection: str) -> None:
    """The input of the commands that read puzzles: ``FILE`` (``-`` = stdin) or
    ``--puzzle TEXT``, ``--format``, and ``--index`` for a collection.

    Args:
        collection: What the command does with a file of many puzzles (for the help).
    """
    p.add_argument("file", nargs="?", metavar="FILE",
                   help=f"instance file, '-' for standard input; {collection}")
    p.add_argument("--puzzle", metavar="TEXT",
                   help="the instance inline instead of FILE: a Sudoku line, a Tatham game id, "
                        "JSON... (format detected unless --format; default: read FILE)")
    p.add_argument("--format", choices=sorted(formats.FORMATS),
                   help="input format (default: by the file's extension, else by its content)")
    p.add_argument("--index", type=int, metavar="I",
                   help="only the I-th puzzle of a collection (1-based: FILE#I in the output; "
                        "default: every puzzle where the command takes many)")


def _add_search(p: argparse.ArgumentParser, default_limit: int, per: str) -> None:
    """The search arguments shared by ``solve`` and ``crosscheck``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--limit", type=int, default=default_limit,
                   help=f"most solutions {per} (default {default_limit})")
    g.add_argument("--all", action="store_true", help="enumerate every solution")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds for each backend run (default: none, run to the end)")
    p.add_argument("--memory-limit", type=float, metavar="MB",
                   help="MB for each backend run, which then runs in a child process; past "
                        "it the run is stopped: unknown, exit 1 (default: none)")
    p.add_argument("--seed", type=int, help="random seed of the backends that use one "
                   "(refused by the others; default: none, the backend's own)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists",
                   help="filtering of the model's lists before the search: lists (singles, "
                        "relations), gac (and Régin's all-different GAC), none")


def _cmd_help(parser: _Parser, args: argparse.Namespace) -> int:
    """``futocp help [COMMAND]``."""
    if args.topic is None:
        parser.print_help()
        return EXIT_OK
    command = parser.command_parser(args.topic)
    if command is None:
        names = parser.subcommands()
        raise UsageError(f"no command {args.topic!r}{did_you_mean(args.topic, names)} "
                         f"(commands: {', '.join(names)})")
    command.print_help()
    return EXIT_OK


#: Help for options that commands declare without their own text.
COMMON_HELP = {
    "--json": "print JSON instead of text",
    "--scale": "the rating scale: tatham (n x n Futoshiki and Latin squares) or general "
               "(any Latin board); default: by the board",
    "--format": "file format (default: by the file's extension, else by its content)",
    "--backend": f"a backend: {', '.join(REGISTRY)} (futocp backends)",
    "--filtering": "filtering of the model's lists before the search: lists, gac or none",
    "--opt": "a backend option KEY=VALUE (repeatable; futocp backends lists them)",
}


def _complete_backends(prefix: str, **_: Any) -> list[str]:
    return [n for n in REGISTRY if n.startswith(prefix)]


def _complete_families(prefix: str, **_: Any) -> list[str]:
    return [f.name for f in list_families() if f.name.startswith(prefix)]


def _finish(parser: _Parser) -> None:
    """One pass over every command: common help texts where a command gave none,
    and the shell completers of backends and families (argcomplete)."""
    for name in parser.subcommands():
        command = parser.command_parser(name)
        assert command is not None
        for action in command._actions:
            for opt in action.option_strings:
                if not action.help and opt in COMMON_HELP:
                    action.help = COMMON_HELP[opt]
            if action.dest in ("backend", "backends"):
                action.completer = _complete_backends  # type: ignore[attr-defined]  # argcomplete's hook
            elif action.dest == "family":
                action.completer = _complete_families  # type: ignore[attr-defined]  # argcomplete's hook


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = _TopParser(prog="futocp", description=DESCRIPTION, epilog=_epilog())
    parser.add_argument("--version", action="version", version=f"futocp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands", parser_class=_Parser)

    p = sub.add_parser("solve", help="solve an instance (every puzzle of a collection)",
                       description="Solve and verify every puzzle of the input. Output: the "
                       "grid and a status line; --to FMT prints the solutions in a format (the "
                       "notation of the input: a 16x16 Sudoku line comes back with letters) and "
                       "the status on stderr; --json one record (docs/solve.schema.json); "
                       "--quiet the solutions only. Exit 0 finished, 1 stopped by the time "
                       "limit (or, with --check, a solution failed verification).")
    _add_instances(p, "a collection: every puzzle, then a summary")
    p.add_argument("--backend", default=SOLVE_BACKEND,
                   help=f"one of {', '.join(REGISTRY)} (default {SOLVE_BACKEND}: picks by the "
                   "instance from measured data, a portfolio on this machine's cores)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="backend option (repeatable; futocp backends lists them)")
    _add_search(p, default_limit=1, per="printed")
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
    _add_instances(p, "a collection: every puzzle")
    p.add_argument("--solution", action="store_true", help="also solve and print the solution")
    p.add_argument("--backend", default=DEFAULT_BACKEND, help="the backend for --solution")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds for each --solution (default: none)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("backends", help="list the backends and whether they are available")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_backends)

    p = sub.add_parser("crosscheck", help="run several backends on an instance and compare",
                       description="Every chosen backend solves the same model; every solution "
                       "is verified; statuses and counts are compared. One instance: a table, "
                       "a row per backend as it finishes. A collection: one summary per "
                       "backend (solved, agreed, median time), with a progress bar on a "
                       "terminal. Exit 0 when every backend finished and they agree; 1 on a "
                       "disagreement, a failed verification, or a backend stopped by "
                       "--time-limit.")
    _add_instances(p, "a collection: every puzzle, then one summary per backend")
    p.add_argument("--backends", default="all",
                   help="all (the available ones), complete (the available complete ones) "
                        "or a,b,c")
    _add_search(p, default_limit=2, per="per backend")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_crosscheck)

    p = sub.add_parser("export", help="write the instance as DIMACS, OPB, a CP-SAT proto, "
                       "MiniZinc, MPS, CPLEX LP or SMT-LIB 2")
    _add_instances(p, "a collection needs --index")
    p.add_argument("--to", required=True, choices=sorted(EXPORTERS),
                   help="the formula's format: " + ", ".join(sorted(EXPORTERS)))
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="encoding option of the backend behind the format (e.g. card=seqcounter)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists",
                   help="list filtering of the model before the encoding")
    p.add_argument("-o", "--output", help="write here (atomically; default: stdout)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("decode", help="turn an external solver's model back into a verified "
                       "solution",
                       description="Read the answer of an external solver on a formula made "
                       "by 'futocp export' (DIMACS 'v' lines, MiniSat's result file 'SAT' + "
                       "literals, a PB solver's 'v x1 -x2', MiniZinc output, a HiGHS or SCIP "
                       "solution file, z3's model) and print the solution, verified. Exit 1 "
                       "when it fails verification.")
    _add_instances(p, "a collection needs --index")
    p.add_argument("model", help="the solver's output (DIMACS 'v' lines, MiniSat's 'SAT' file, "
                                 "OPB, or MiniZinc output)")
    p.add_argument("--formula", help="the exported DIMACS/OPB file (default: re-encode the instance "
                                     "with --opt and --filtering, as export does)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="the encoding options given to export (e.g. card=seqcounter)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists",
                   help="the filtering given to export")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("convert", help="convert an instance to another format")
    _add_instances(p, "a collection: every puzzle to a format of many (sudoku, tatham, "
                      "jigsaw); other formats hold one, so they need --index")
    p.add_argument("--to", required=True, choices=sorted(formats.FORMATS),
                   help="the format to write: " + ", ".join(sorted(formats.FORMATS)))
    p.add_argument("-o", "--output", help="write here (atomically; default: stdout)")
    p.set_defaults(func=cmd_convert)

    _add_puzzle_commands(sub)
    _add_rating_commands(sub)
    _add_family_commands(sub)
    _add_experiment_commands(sub)
    _add_render_command(sub)

    p = sub.add_parser("help", help="the help of a command: futocp help solve")
    p.add_argument("topic", nargs="?", metavar="COMMAND",
                   help="a command (default: the overview)")
    p.set_defaults(func=lambda args: _cmd_help(parser, args))
    _finish(parser)
    return parser


def _check_names(args: argparse.Namespace) -> None:
    """Backend and family names, with "did you mean" for a mistyped one."""
    backend = getattr(args, "backend", None)
    if isinstance(backend, str) and backend not in REGISTRY:
        raise UsageError(f"unknown backend {backend!r}{did_you_mean(backend, REGISTRY)} "
                         f"(known: {', '.join(REGISTRY)})")
    name = getattr(args, "family", None)
    if isinstance(name, str):
        from .families import get_family

        try:
            get_family(name)
        except UsageError:
            fams = list_families()
            names = [f.name for f in fams] + [a for f in fams for a in f.spec.get("aliases") or ()]
            raise UsageError(f"unknown family {name!r}{did_you_mean(name, names)} (known: "
                             f"{', '.join(f.name for f in fams)}; futocp families)") from None


def _autocomplete(parser: argparse.ArgumentParser) -> None:
    """Shell completion through argcomplete, when the shell asks and it is installed."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)


def _about_input(exc: FutocpError, args: argparse.Namespace) -> str:
    """The error's line, with the input file named when a refusal of the model lacks it."""
    text = str(exc)
    name = getattr(args, "file", None) or ("<puzzle>" if getattr(args, "puzzle", None) else None)
    if isinstance(exc, UnsupportedError) and isinstance(name, str) and not text.startswith(name):
        text = f"{name}: {text}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (:data:`EXIT_CODES`)."""
    parser = build_parser()
    _autocomplete(parser)
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        if getattr(args, "limit", 1) is not None and getattr(args, "limit", 1) < 1:
            raise UsageError("--limit must be at least 1")
        _check_names(args)
        with signals_as_interrupt(), time_limited(getattr(args, "command_time_limit", None)):
            return func(args)  # SIGTERM/SIGHUP clean up as Ctrl-C does
    except SolverError as exc:
        print(f"futocp: solver failure: {exc}", file=sys.stderr)
        return EXIT_SOLVER
    except ResourceError as exc:
        print(f"futocp: error: {exc}", file=sys.stderr)
        return EXIT_UNKNOWN
    except TimeLimitReached as exc:
        print(f"futocp: stopped: {exc}", file=sys.stderr)
        return EXIT_UNKNOWN
    except FutocpError as exc:
        print(f"futocp: error: {_about_input(exc, args)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        why = f" by {exc.args[0]}" if exc.args else ""
        print(f"futocp: interrupted{why}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # a reader such as head stopped early: not an error
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
