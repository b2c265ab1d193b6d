"""``futocp rate``, ``explain`` and ``hint`` (:mod:`futocp.rating`).

Exit codes: 0 rated (ambiguous and impossible puzzles included); hint 3 = a
wrong entry, 4 = the puzzle is not unique.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from .. import formats
from ..board import Board
from .common import (
    EXIT_NOT_CRITICAL,
    EXIT_NOT_PUZZLE,
    EXIT_OK,
    add_instances,
    input_name,
    inputs,
    one_instance,
    print_json,
)

if TYPE_CHECKING:  # futocp.rating is imported when a command needs it
    from ..rating import Rating, Step

__all__ = ["add_commands", "cmd_rate", "cmd_explain", "cmd_hint"]


def cmd_rate(args: argparse.Namespace) -> int:
    """``futocp rate``: every puzzle of the input (a table for a collection; ``--json``
    one record per line, ``index`` counting from 0 in the file)."""
    from ..rating import format_rating, format_table, rate

    instances = inputs(args)
    first = args.index - 1 if args.index is not None else 0
    rows = []
    grades: tuple[str, ...] = ()
    for index, (name, board) in enumerate(instances, first):
        r = rate(board, args.scale)
        grades = r.grades
        record: dict[str, Any] = {"instance": input_name(args), "index": index, "grade": r.grade,
                                  "status": r.status, "score": r.score, "counts": r.counts,
                                  "guesses": r.guesses, "time_s": round(r.time_s, 6)}
        if board.param_map.get("grade"):
            record["asked"] = board.param_map["grade"]
        if args.json:
            record["weights"] = {k: list(v) for k, v in r.weights.items()}
            print_json(record)
        elif len(instances) == 1:
            print("\n".join(format_rating(r, name)))
        rows.append(record)
    if not args.json and len(instances) > 1:
        print("\n".join(format_table(rows, grades)))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    """``futocp explain``: the proof of every puzzle of the input, each headed by its
    name (``FILE#k`` in a collection)."""
    instances = inputs(args)
    docs = []
    for k, (name, board) in enumerate(instances):
        r, steps, cut = _explained(board, args)
        if args.json:
            docs.append({"instance": name, **r.explain_dict(steps)})
        else:
            print(("\n" if k else "") + "\n".join(_explain_lines(name, board, r, steps, cut)))
    if args.json:
        print_json({k: v for k, v in docs[0].items() if k != "instance"} if len(docs) == 1
                   else {"instance": input_name(args), "instances": docs})
    return EXIT_OK


def _explained(board: Board, args: argparse.Namespace) -> tuple[Rating, list[Step], int | None]:
    """The rating of ``board``, the steps to show (those of ``--level`` and below) and
    the level they stop at when the puzzle needs more (else None)."""
    from ..errors import UsageError
    from ..rating import closure, rate

    r = rate(board, args.scale)
    steps, cut = list(r.steps), None
    if args.level is not None:
        if args.level not in r.grades:
            raise UsageError(f"--level {args.level}: the {r.scale} scale's grades are "
                             f"{', '.join(r.grades)}")
        level = r.grades.index(args.level)
        last = len(r.grades) - 1
        if r.level is None or r.level > level:
            steps = list(closure(board, level, r.scale).steps) if level < last else steps
            cut = level
    return r, steps, cut


def _explain_lines(name: str, board: Board, r: Rating, steps: list[Step],
                   cut: int | None) -> list[str]:
    """``explain`` of one puzzle: a line naming it and its grade, then the steps."""
    from ..rating import explain_lines

    cells = "(row,col) from 0" if board.shape else "cell numbers"
    lines = [f"{name}: {r.grade or r.status} ({r.scale} scale), {len(r.steps)} steps; "
             f"cells {cells}", *explain_lines(steps, grades=r.grades)]
    if cut is not None:
        lines.append(f"--- the {r.grades[cut]} techniques stop here: the puzzle needs "
                     f"{r.grade or r.status} ---")
    elif r.status != "solved":
        lines.append(f"--- {r.status}: {r.reason} ---")
    return lines


def cmd_hint(args: argparse.Namespace) -> int:
    """``futocp hint``: the next cheapest step on one puzzle (``--index`` in a collection)."""
    from ..rating import hint, parse_state

    _, board = one_instance(args, "a hint is for one puzzle")
    entries = None
    if args.state is not None:
        text = formats.read_text(args.state) if os.path.isfile(args.state) else args.state
        entries = parse_state(board, text)
    h = hint(board, entries, args.scale)
    if args.json:
        print_json(h.as_dict())
    elif h.status == "hint":
        assert h.step is not None
        print(f"hint ({h.step.technique}, {h.grades[h.step.level]}): {h.reason}")
    elif h.status == "wrong":
        print(f"wrong entry: {h.reason}")
    elif h.status == "solved":
        print(f"solved: {h.reason}")
    else:
        print(f"no hint: {h.reason}")
    return {"hint": EXIT_OK, "solved": EXIT_OK, "wrong": EXIT_NOT_CRITICAL}.get(
        h.status, EXIT_NOT_PUZZLE)


def add_commands(sub: Any) -> None:
    """Add the ``rate``, ``explain`` and ``hint`` commands to ``sub`` (argparse sub-parsers)."""
    from ..rating import LEVELS, scale_names
    from ..rating.games import GAME_SCALES

    scales = scale_names()
    grade_names = list(LEVELS) + [g for game in GAME_SCALES.values() for g in game.grades
                                  if g not in LEVELS]
    grade_names = list(dict.fromkeys(grade_names))
    scale_help = ("tatham (default for n x n Futoshiki and Latin squares), general (any Latin "
                  "board), or a game's own scale (" + ", ".join(scales[2:]) + "; the default "
                  "for its puzzles)")

    p = sub.add_parser("rate", help="the difficulty of a puzzle (Tatham's grades), puzzle by "
                       "puzzle for a collection",
                       description="Exit 0 when rated (ambiguous and impossible puzzles are "
                       "reported as such), 2 on bad input.")
    add_instances(p, "a collection: every puzzle, then a table")
    p.add_argument("--scale", choices=scales, help=scale_help)
    p.add_argument("--json", action="store_true", help="one JSON object per line per puzzle")
    p.set_defaults(func=cmd_rate)

    p = sub.add_parser("explain", help="the proof of a puzzle, step by step (every puzzle of a "
                       "collection)")
    add_instances(p, "a collection: every puzzle, each headed by its name FILE#k")
    p.add_argument("--scale", choices=scales, help=scale_help)
    p.add_argument("--level", choices=grade_names, help="only the steps of this level (a grade "
                   "of the puzzle's scale) and below; "
                   "mark where the puzzle needs more")
    p.add_argument("--json", action="store_true", help="print one JSON object (a collection: "
                   "one with a record per puzzle)")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("hint", help="the next cheapest step from a player's entries",
                       description="Exit 0: a hint (or nothing left to do); 3: an entry is wrong "
                       "(named instead of a hint); 4: the puzzle has no unique solution.")
    add_instances(p, "a collection needs --index")
    p.add_argument("--state", metavar="GRID", help="the player's entries: a file or a grid text, "
                   "rows on lines or separated by '/', '.' for an empty cell")
    p.add_argument("--scale", choices=scales, help=scale_help)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_hint)
