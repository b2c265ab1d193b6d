"""The command line: ``python -m futocp`` / ``futocp``.

Thin by design: each sub-command parses its arguments, calls the library and
prints. Every :class:`~futocp.errors.FutocpError` becomes one line on stderr
and exit code 2; a finished run exits 0, a run stopped by its time limit 1.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__, formats
from .api import DEFAULT_BACKEND, solve
from .backends import REGISTRY, backend_table
from .board import Board
from .childproc import signals_as_interrupt
from .crosscheck import COUNTERS, crosscheck, disagreements
from .errors import FutocpError, InputError, ResourceError, SolverError, UsageError
from .export import EXPORTERS, decode, export
from .families import family, list_families, parse_param_text
from .generate import PATTERNS, generate
from .model import FILTERINGS, build_model
from .mzn import SOLUTION_PREFIX, parse_mzn_output
from .puzzles import count, minimize, redundant_clue, unique_solution
from .result import Result, Status
from .verify import verify

__all__ = ["main", "render", "parse_opts", "load_instances", "collection_summary"]

EXIT_OK, EXIT_UNKNOWN, EXIT_ERROR = 0, 1, 2
EXIT_SOLVER = 70  # a solver process crashed or answered garbage (sysexits' EX_SOFTWARE)


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
    except FutocpError:
        pass
    cells = [shown.clue_map.get(c, ".") for c in range(shown.n_cells)]
    if shown.shape is None:
        return " ".join(map(str, cells))
    width = max(len(str(v)) for v in cells)
    return "\n".join(" ".join(str(v).rjust(width) for v in row) for row in shown.as_grid(cells))


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


def load_instances(path: str, fmt: str | None = None) -> list[tuple[str, Board]]:
    """Every instance of a file as ``(name, board)``: the file name for a single
    instance, ``FILE#k`` (k from 1) for each instance of a collection."""
    boards = formats.read_many(path, fmt)
    if len(boards) == 1:
        return [(path, boards[0])]
    return [(f"{path}#{k}", board) for k, board in enumerate(boards, 1)]


def collection_summary(records: Sequence[dict[str, Any]], elapsed_s: float) -> dict[str, Any]:
    """Counts and times over per-instance records (keys ``status``, ``verified``, ``wall_s``).

    ``total_s`` sums the instances' wall times, ``median_s`` is their median,
    ``elapsed_s`` is the whole run (solving and verifying) and
    ``puzzles_per_s`` = instances / ``elapsed_s``.
    """
    walls = [r["wall_s"] for r in records]
    statuses = [r["status"] for r in records]
    return {"instances": len(records), "sat": statuses.count("sat"),
            "unsat": statuses.count("unsat"), "unknown": statuses.count("unknown"),
            "failed_verification": sum(1 for r in records if not r["verified"]),
            "total_s": round(sum(walls), 6),
            "median_s": round(statistics.median(walls), 6) if walls else 0.0,
            "elapsed_s": round(elapsed_s, 6),
            "puzzles_per_s": round(len(records) / elapsed_s, 3) if elapsed_s > 0 else None}


def _solve_collection(args: argparse.Namespace, instances: list[tuple[str, Board]]) -> int:
    """``solve`` on a collection: every instance, each verified, then a summary."""
    limit = None if args.all else args.limit
    options = parse_opts(args.opt)
    records = []
    start = time.perf_counter()
    for name, board in instances:
        result = solve(board, args.backend, limit=limit, time_limit=args.time_limit,
                       seed=args.seed, filtering=args.filtering, **options)
        problems = [str(v) for s in result.solutions for v in verify(board, s)]
        record = {"instance": name, "status": result.status.value,
                  "n_solutions": result.n_solutions, "exhausted": result.exhausted,
                  "verified": not problems, "wall_s": result.stats["wall_s"],
                  "build_s": result.stats["build_s"], "solve_s": result.stats["solve_s"]}
        if args.json:
            record["solutions"] = [_solution_json(board, s) for s in result.solutions]
        elif problems:
            record["problems"] = problems
        records.append(record)
        if not args.json:
            flag = "" if not problems else "  NOT verified: " + problems[0]
            print(f"{name}  {record['status']}  {record['n_solutions']} solution(s)  "
                  f"{record['wall_s']:.4f}s{flag}")
    summary = collection_summary(records, time.perf_counter() - start)
    if args.json:
        _print_json({"instance": args.file, "backend": args.backend, "instances": records,
                     "summary": summary})
    else:
        s = summary
        print(f"\n{s['instances']} instances, backend {args.backend}: {s['sat']} sat, "
              f"{s['unsat']} unsat, {s['unknown']} unknown, {s['failed_verification']} failed "
              f"verification; total {s['total_s']:.3f}s, median {s['median_s']:.4f}s, "
              f"{s['puzzles_per_s']} puzzles/s")
    ok = summary["unknown"] == 0 and summary["failed_verification"] == 0
    return EXIT_OK if ok else EXIT_UNKNOWN


# ------------------------------------------------------------- sub-commands
def cmd_solve(args: argparse.Namespace) -> int:
    instances = load_instances(args.file, args.format)
    if len(instances) > 1:
        return _solve_collection(args, instances)
    board = instances[0][1]
    limit = None if args.all else args.limit
    result = solve(board, args.backend, limit=limit, time_limit=args.time_limit, seed=args.seed,
                   filtering=args.filtering, **parse_opts(args.opt))
    checks = [verify(board, s) for s in result.solutions] if args.check else []
    failed = any(checks)
    if args.json:
        out = {"instance": args.file, "backend": result.backend, "status": result.status.value,
               "solutions": [_solution_json(board, s) for s in result.solutions],
               "stats": result.stats}
        if args.check:
            out["verified"] = not failed
        _print_json(out)
    else:
        for i, sol in enumerate(result.solutions):
            if len(result.solutions) > 1:
                print(f"solution {i + 1}:")
            print(render(board, sol))
            if args.check:
                print("verified" if not checks[i] else "NOT verified: " + "; ".join(map(str, checks[i])))
            print()
        more = ("" if result.exhausted or result.status is not Status.SAT
                else " (stopped by the time limit)" if result.stopped_early else " (limit reached)")
        reason = f": {result.stats['reason']}" if "reason" in result.stats else ""
        print(f"{result.status.value}{reason} -- {result.n_solutions} solution(s){more}, "
              f"backend {result.backend}, build {result.stats['build_s']:.3f}s, "
              f"solve {result.stats['solve_s']:.3f}s, wall {result.stats['wall_s']:.3f}s")
    if failed:
        print(f"futocp: error: a solution from backend {result.backend} failed verification",
              file=sys.stderr)
        return EXIT_UNKNOWN
    return _exit_code(result)


def cmd_show(args: argparse.Namespace) -> int:
    board = formats.read(args.file, args.format)
    print(render(board))
    print(f"\n{board.kind}: {board.n_cells} cells, {len(board.asterisms)} asterisms of {board.k}, "
          f"labels {list(board.values)}, {len(board.clues)} clues, {len(board.less)} inequalities")
    if args.solution:
        result = solve(board, args.backend, limit=2)
        if result.solutions:
            print("\nsolution" + (" (not unique)" if result.n_solutions > 1 else " (unique)") + ":")
            print(render(board, result.solutions[0]))
        else:
            print(f"\n{result.status.value}: no solution")
        return _exit_code(result)
    return EXIT_OK


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


def _crosscheck_table(rows: list[dict[str, Any]]) -> str:
    head = ["backend", "status", "solutions", "exhausted", "verified", "build_s", "solve_s",
            "wall_s", "counters", "agrees"]
    lines = []
    for r in rows:
        counters = " ".join(f"{k}={r[k]}" for k in COUNTERS if k in r and k != "removed_values")
        if r["status"] == "error":
            lines.append([r["backend"], "error", "-", "-", "-", "-", "-", "-", r["reason"], "-"])
            continue
        lines.append([r["backend"], r["status"], str(r["solutions"]), "yes" if r["exhausted"] else "no",
                      "yes" if r["verified"] else "NO", f"{r['build_s']:.4f}", f"{r['solve_s']:.4f}",
                      f"{r['wall_s']:.4f}", counters or "-", "yes" if r["agrees"] else "NO"])
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head) - 1)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    return "\n".join(fmt.format(*row) for row in [head, *lines])


def cmd_crosscheck(args: argparse.Namespace) -> int:
    boards = formats.read_many(args.file, args.format)
    limit = None if args.all else args.limit
    reports = []
    for board in boards:
        rows = crosscheck(board, args.backends, limit=limit, time_limit=args.time_limit,
                          filtering=args.filtering, seed=args.seed)
        reports.append((rows, disagreements(rows, limit)))
    agree = not any(problems for _, problems in reports)
    if args.json:
        items = [{"index": i, "rows": rows, "problems": problems, "agree": not problems}
                 for i, (rows, problems) in enumerate(reports)]
        out: dict[str, Any] = {"instance": args.file, "agree": agree}
        if len(boards) == 1:
            out.update(rows=items[0]["rows"], problems=items[0]["problems"])
        else:
            out["instances"] = items
        _print_json(out)
    else:
        for i, (rows, problems) in enumerate(reports):
            if len(boards) > 1:
                print(f"# instance {i + 1} of {len(boards)}")
            print(_crosscheck_table(rows))
            for p in problems:
                print(f"DISAGREEMENT: {p}")
            if len(boards) > 1:
                print()
        bad = sum(1 for _, problems in reports if problems)
        print(f"{len(boards)} instance(s), {bad} with a disagreement or failed verification"
              if len(boards) > 1 else ("all backends agree" if agree else "backends DISAGREE"))
    return EXIT_OK if agree else EXIT_UNKNOWN


def cmd_export(args: argparse.Namespace) -> int:
    board = formats.read(args.file, args.format)
    text = export(build_model(board, args.filtering), args.to, **parse_opts(args.opt))
    if args.output:
        formats.base.atomic_write(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _read_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from None


def cmd_decode(args: argparse.Namespace) -> int:
    board = formats.read(args.file, args.format)
    answer = _read_file(args.model)
    if args.formula is None:
        model = build_model(board, args.filtering)
        if SOLUTION_PREFIX in answer:
            solutions = parse_mzn_output(model, answer).solutions
            if not solutions:
                raise InputError("no solution line in the MiniZinc output", args.model)
            values = solutions[0]
        else:
            values = decode(board, export(model, "dimacs", **parse_opts(args.opt)), answer)
    else:
        values = decode(board, _read_file(args.formula), answer)
    problems = verify(board, values)
    if args.json:
        _print_json({"instance": args.file, "solution": _solution_json(board, values),
                     "verified": not problems, "violations": [str(v) for v in problems]})
    else:
        print(render(board, values))
        print("verified" if not problems else "NOT verified: " + "; ".join(map(str, problems)))
    return EXIT_OK if not problems else EXIT_UNKNOWN


def cmd_convert(args: argparse.Namespace) -> int:
    board = formats.read(args.file, args.format)
    text = formats.dumps(board, args.to)
    if args.output:
        formats.base.atomic_write(args.output, text)
    else:
        sys.stdout.write(text)
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
    board = formats.read(args.file, args.format)
    limit = None if args.all else args.limit
    res = count(board, limit=limit, backend=args.backend, time_limit=args.time_limit)
    finished = res.exhausted or (limit is not None and res.count >= limit)
    if args.json:
        _print_json({"instance": args.file, "count": res.count, "limit": limit,
                     "exhausted": res.exhausted})
    elif res.exhausted:
        print(f"{res.count} solution(s), exact (backend {res.backend})")
    elif finished:
        print(f"{res.count} solution(s) or more: limit reached (backend {res.backend})")
    else:
        print(f"at least {res.count} solution(s): stopped by the time limit (backend {res.backend})")
    return EXIT_OK if finished else EXIT_UNKNOWN


def cmd_check(args: argparse.Namespace) -> int:
    board = formats.read(args.file, args.format)
    solution = unique_solution(board, args.backend)
    found = 1 if solution else count(board, limit=2, backend=args.backend).count
    critical, breaking = (None, None)
    if solution is not None and not args.unique_only:
        breaking = redundant_clue(board, args.backend)
        critical = breaking is None
    if args.json:
        _print_json({"instance": args.file, "solutions": found, "unique": solution is not None,
                     "critical": critical,
                     "breaking_clue": None if breaking is None else
                     {"cell": _cell_ref(board, breaking[0]), "label": breaking[1]}})
    else:
        print("unique: " + ("yes" if solution else
                            "no (no solution)" if found == 0 else "no (2 or more solutions)"))
        if critical is not None:
            print("critical: yes" if critical else
                  f"critical: no (without the clue {breaking[1]!r} at {board.cell_name(breaking[0])} "
                  "the solution is still unique)")
    if solution is None:
        return EXIT_NOT_PUZZLE
    return EXIT_NOT_CRITICAL if critical is False else EXIT_OK


def cmd_minimize(args: argparse.Namespace) -> int:
    board = formats.read(args.file, args.format)
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
    _add_input(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--limit", type=int, default=1000, help="stop at this many (default 1000)")
    g.add_argument("--all", action="store_true", help="count every solution")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("check", help="is the instance a Latin puzzle (unique)? a critical one?",
                       description="Exit 0: a critical puzzle (or, with --unique-only, a puzzle); "
                       "3: unique but not critical; 4: not a puzzle (no solution, or several).")
    _add_input(p)
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--unique-only", action="store_true", help="check uniqueness only")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("minimize", help="remove clues at random, keeping the solution unique, "
                       "until the puzzle is critical")
    _add_input(p)
    p.add_argument("--seed", type=int, help="seeds the removal order")
    p.add_argument("--keep", action="extend", nargs="+", metavar="ROW,COL",
                   help="clues that must stay (ROW,COL, or a cell number on other boards)")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--to", choices=sorted(formats.FORMATS), help="output format (default json, "
                   "or by the extension of -o)")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
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
    params = dict(parse_param_text(item) for item in args.param or ())
    board = family(args.family, size=args.size, **params)
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
def _add_input(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="instance file")
    p.add_argument("--format", choices=sorted(formats.FORMATS), help="file format (default: detect)")


def _add_search(p: argparse.ArgumentParser, default_limit: int, per: str) -> None:
    """The search arguments shared by ``solve`` and ``crosscheck``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--limit", type=int, default=default_limit,
                   help=f"most solutions {per} (default {default_limit})")
    g.add_argument("--all", action="store_true", help="enumerate every solution")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for each backend run")
    p.add_argument("--seed", type=int)
    p.add_argument("--filtering", choices=FILTERINGS, default="lists")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = argparse.ArgumentParser(prog="futocp", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"futocp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("solve", help="solve an instance")
    _add_input(p)
    p.add_argument("--backend", default=DEFAULT_BACKEND, help=f"one of {', '.join(REGISTRY)}")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE", help="backend option (repeatable)")
    _add_search(p, default_limit=1, per="printed")
    p.add_argument("--check", action="store_true", help="verify every solution")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("show", help="print an instance")
    _add_input(p)
    p.add_argument("--solution", action="store_true", help="also solve and print the solution")
    p.add_argument("--backend", default=DEFAULT_BACKEND)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("backends", help="list the backends and whether they are available")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_backends)

    p = sub.add_parser("crosscheck", help="run several backends on one instance and compare")
    _add_input(p)
    p.add_argument("--backends", default="all", help="all (the available ones) or a,b,c")
    _add_search(p, default_limit=2, per="per backend")
    p.set_defaults(func=cmd_crosscheck)

    p = sub.add_parser("export", help="write the instance as DIMACS, OPB, a CP-SAT proto or MiniZinc")
    _add_input(p)
    p.add_argument("--to", required=True, choices=sorted(EXPORTERS))
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="encoding option of the backend behind the format (e.g. card=seqcounter)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists")
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("decode", help="turn an external solver's model back into a verified solution")
    _add_input(p)
    p.add_argument("model", help="the solver's output (DIMACS 'v' lines, OPB, or MiniZinc output)")
    p.add_argument("--formula", help="the exported DIMACS/OPB file (default: re-encode the instance "
                                     "with --opt and --filtering, as export does)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("convert", help="convert an instance to another format")
    _add_input(p)
    p.add_argument("--to", required=True, choices=sorted(formats.FORMATS))
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    p.set_defaults(func=cmd_convert)

    _add_puzzle_commands(sub)
    _add_rating_commands(sub)
    _add_family_commands(sub)
    _add_experiment_commands(sub)
    _add_render_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        if getattr(args, "limit", 1) is not None and getattr(args, "limit", 1) < 1:
            raise UsageError("--limit must be at least 1")
        with signals_as_interrupt():  # SIGTERM/SIGHUP clean up as Ctrl-C does
            return func(args)
    except SolverError as exc:
        print(f"futocp: solver failure: {exc}", file=sys.stderr)
        return EXIT_SOLVER
    except ResourceError as exc:
        print(f"futocp: error: {exc}", file=sys.stderr)
        return EXIT_UNKNOWN
    except FutocpError as exc:
        print(f"futocp: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        why = f" by {exc.args[0]}" if exc.args else ""
        print(f"futocp: interrupted{why}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
