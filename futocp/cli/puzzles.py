"""``futocp count``, ``check``, ``minimize`` and ``generate``: the puzzle operations
(:mod:`futocp.puzzles`, :mod:`futocp.generate`, :mod:`futocp.generate_graded`).

Exit codes: ``check`` 3 = unique but not critical, 4 = not a puzzle; ``generate
--grade`` 1 = the grade was not reached.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import Any

from .. import formats
from ..board import Board
from ..errors import UsageError
from ..families import parse_param_text
from ..generate import PATTERNS, generate
from ..puzzles import count, minimize, redundant_clue, unique_solution
from .common import (
    EXIT_NOT_CRITICAL,
    EXIT_NOT_PUZZLE,
    EXIT_OK,
    EXIT_UNKNOWN,
    add_instances,
    add_output,
    emit,
    input_name,
    inputs,
    one_instance,
    output_format,
    print_json,
)

__all__ = ["add_commands", "cmd_count", "cmd_check", "cmd_minimize", "cmd_generate"]


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


def cmd_count(args: argparse.Namespace) -> int:
    """``futocp count``: every puzzle of the input, one line (or JSON record) each."""
    instances = inputs(args)
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
        print_json(records[0] if len(instances) == 1 else
                   {"instance": input_name(args), "instances": records})
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
    instances = inputs(args)
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
        print_json(records[0] if len(records) == 1 else
                   {"instance": input_name(args), "instances": records, "summary": summary})
    elif len(records) > 1:
        print(f"{summary['instances']} puzzles: {summary['unique']} unique, "
              f"{summary['critical']} critical, {summary['not_critical']} not critical, "
              f"{summary['not_puzzles']} not puzzles")
    if summary["not_puzzles"]:
        return EXIT_NOT_PUZZLE
    return EXIT_NOT_CRITICAL if summary["not_critical"] else EXIT_OK


def cmd_minimize(args: argparse.Namespace) -> int:
    """``futocp minimize``: one puzzle stripped of clues down to a critical one."""
    _, board = one_instance(args, "minimize writes one puzzle")
    emit(minimize(board, seed=args.seed, keep=_parse_cells(args.keep), backend=args.backend),
         args.output, args.to)
    return EXIT_OK


def cmd_generate(args: argparse.Namespace) -> int:
    """``futocp generate``: a random instance of a family (``--grade``: of a chosen grade)."""
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
    emit(board, args.output, output_format(args))
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add the ``count``, ``check``, ``minimize`` and ``generate`` commands to ``sub``
    (argparse sub-parsers)."""
    p = sub.add_parser("count", help="count the solutions of an instance, up to a limit")
    add_instances(p, "a collection: every puzzle, one line each")
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
    add_instances(p, "a collection: every puzzle, one line each, then a summary")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    p.add_argument("--unique-only", action="store_true", help="check uniqueness only")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--time-limit", type=float, metavar="S", dest="command_time_limit",
                   help="seconds for the whole command; past it, exit 1 (default: none)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("minimize", help="remove clues at random, keeping the solution unique, "
                       "until the puzzle is critical")
    add_instances(p, "a collection needs --index")
    p.add_argument("--seed", type=int, help="seeds the removal order")
    p.add_argument("--keep", action="extend", nargs="+", metavar="ROW,COL",
                   help="clues that must stay (ROW,COL, or a cell number on other boards)")
    p.add_argument("--backend", help="a complete backend (default: the fastest that fits)")
    add_output(p, old_format=False)  # its --format names the input's format
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
    add_output(p)
    p.add_argument("--time-limit", type=float, metavar="S", dest="command_time_limit",
                   help="seconds for the whole command; past it, exit 1 (default: none)")
    p.set_defaults(func=cmd_generate)


def _add_grade_options(p: argparse.ArgumentParser) -> None:
    """``generate``'s options for puzzles of a chosen grade."""
    from ..generate_graded import grade_names

    p.add_argument("--grade", choices=grade_names(), help="a unique puzzle that rates exactly "
                   "this (futoshiki, futoshiki-adjacent, latin-square: trivial..recursive; "
                   "keen: easy normal hard extreme unreasonable; towers: easy hard extreme "
                   "unreasonable; sudoku, sudoku-x, jigsaw, killer-sudoku: Solo's grades, "
                   "or the general scale's)")
    p.add_argument("--allow-lower", action="store_true", help="with --grade: when the grade is "
                   "not reached, give the last puzzle and say its actual grade (instead of "
                   "failing with exit code 1)")
    p.add_argument("--count", type=int, default=1, metavar="K",
                   help="with --grade: K puzzles, as a collection (tatham or sudoku lines)")
    p.add_argument("--tries", type=int, help="with --grade: hidden solutions to try per "
                   "puzzle (default 50; keen 5000, towers 200)")


def _generate_graded(args: argparse.Namespace, seed: int) -> int:
    from ..generate_graded import GradeNotReached, generate_graded_many
    from ..rating import rate

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
    fmt = output_format(args)
    if len(boards) == 1:
        emit(boards[0], args.output, fmt)
        return EXIT_OK
    fmt = fmt or (formats.detect(args.output) if args.output else None)
    kind = boards[0].kind
    if fmt is None:
        fmt = ("tatham" if kind in ("futoshiki", "futoshiki-adjacent")
               else kind if kind in ("keen", "towers") else "sudoku")
    if fmt not in ("tatham", "sudoku", "keen", "towers"):
        raise UsageError(f"--count {args.count} writes a collection: use --to tatham "
                         "(futoshiki), keen, towers (their ids) or sudoku (Sudoku lines), not "
                         + fmt)
    text = "".join(f"# grade: {g} (seed {seed}, puzzle {k})\n{formats.dumps(b, fmt)}"
                   for k, (b, g) in enumerate(zip(boards, grades, strict=True), 1))
    if args.output:
        formats.base.atomic_write(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
