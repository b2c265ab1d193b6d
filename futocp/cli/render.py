"""``futocp render``: the picture of an instance (SVG on stdout, or ``-o`` by its extension)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..api import DEFAULT_BACKEND, solve
from ..backends import REGISTRY
from ..errors import UsageError
from .common import EXIT_OK, EXIT_UNKNOWN, add_instances, exit_code, one_instance

__all__ = ["add_commands", "cmd_render"]


def cmd_render(args: argparse.Namespace) -> int:
    """``futocp render``: the picture of an instance (SVG on stdout, or -o by its extension)."""
    from .. import render as pictures  # matplotlib is imported only for pictures

    _, board = one_instance(args, "a picture shows one puzzle")
    if not args.solution and (args.backend is not None or args.time_limit is not None):
        raise UsageError("--backend and --time-limit apply with --solution only")
    fmt = pictures.format_of(args.output) if args.output else "svg"
    options: dict[str, Any] = {"candidates": args.candidates}
    code = EXIT_OK
    if args.solution:
        result = solve(board, args.backend or DEFAULT_BACKEND, time_limit=args.time_limit)
        options["result"] = result
        code = exit_code(result)
        if result.solutions and result.verdict(0, board):
            print("futocp: warning: the drawn solution fails verification", file=sys.stderr)
            code = EXIT_UNKNOWN
    data = pictures.to_bytes(board, fmt, dpi=args.dpi, **options)
    if args.output:
        pictures.write_bytes_atomic(args.output, data)
    else:
        sys.stdout.write(data.decode("utf-8"))
    return code


def add_commands(sub: Any) -> None:
    """Add the ``render`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("render", help="draw an instance as SVG, PNG or PDF (matplotlib)",
                       description="Draw an instance: its cells, regions, signs, dots, cages "
                                   "(Killer's sums, Keen's 12x clues) and Towers' clues; SVG on "
                                   "stdout unless -o names a .svg, .png or .pdf file.")
    add_instances(p, "a collection needs --index")
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
    p.add_argument("--backend", help=f"with --solution: one of {', '.join(REGISTRY)} "
                                     f"(default {DEFAULT_BACKEND})")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="with --solution: seconds for the solver (default none)")
    p.set_defaults(func=cmd_render)
