"""``futocp export``, ``decode`` and ``convert``: formulas out, a solver's model back in,
puzzles from one format to another.
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import formats
from ..errors import UsageError
from ..export import EXPORTERS, answer_format, decode, export
from ..model import FILTERINGS, build_model
from ..verify import verify
from .common import (
    COLLECTION_FORMATS,
    EXIT_OK,
    EXIT_UNKNOWN,
    add_instances,
    grid_text,
    input_name,
    inputs,
    one_instance,
    parse_opts,
    print_json,
    solution_json,
    source_of,
    write_text,
)

__all__ = ["add_commands", "cmd_export", "cmd_decode", "cmd_convert"]

def cmd_export(args: argparse.Namespace) -> int:
    """``futocp export``: the formula of one puzzle (``--to``), on stdout or in ``-o``."""
    _, board = one_instance(args, "an export is one formula")
    text = export(build_model(board, args.filtering), args.to, **parse_opts(args.opt))
    write_text(text, args.output)
    return EXIT_OK


def cmd_decode(args: argparse.Namespace) -> int:
    """``futocp decode``: an external solver's answer read back into a solution, verified."""
    _, board = one_instance(args, "a model decodes into one puzzle")
    answer = formats.read_text(args.model, max_bytes=None)  # a solver's answer: any size
    fmt = answer_format(answer)
    if args.formula is None and fmt in ("mps", "smt2"):
        # a HiGHS or SCIP solution file, z3's model: its names suffice, no formula needed
        formula, where = "", f"the formula of {source_of(args)}"
    elif args.formula is None:  # the export the answer was made for, written again
        formula = export(build_model(board, args.filtering), fmt, **parse_opts(args.opt))
        where = f"the formula of {source_of(args)} (re-encoded)"
    else:
        formula, where = formats.read_text(args.formula, max_bytes=None), args.formula
    values = decode(board, formula, answer, model_source=args.model, formula_source=where)
    problems = verify(board, values)
    if args.json:
        print_json({"instance": input_name(args), "model": args.model,
                    "solution": solution_json(board, values),
                    "verified": not problems, "violations": [str(v) for v in problems]})
    else:
        print(grid_text(board, values))
        print("verified" if not problems else "NOT verified: " + "; ".join(map(str, problems)))
    return EXIT_OK if not problems else EXIT_UNKNOWN


def cmd_convert(args: argparse.Namespace) -> int:
    """``futocp convert``: every puzzle to a format of many (sudoku, tatham, jigsaw);
    one puzzle (``--index`` on a collection) to the other formats."""
    instances = inputs(args)
    if len(instances) > 1 and args.to not in COLLECTION_FORMATS:
        raise UsageError(f"{source_of(args)} holds {len(instances)} puzzles and the {args.to} "
                         f"format holds one: choose one with --index I (1..{len(instances)}), "
                         f"or convert to a format of many ({', '.join(COLLECTION_FORMATS)})")
    write_text("".join(formats.dumps(board, args.to) for _, board in instances), args.output)
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add the ``export``, ``decode`` and ``convert`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("export", help="write the instance as DIMACS, OPB, a CP-SAT proto, "
                       "MiniZinc, MPS, CPLEX LP or SMT-LIB 2")
    add_instances(p, "a collection needs --index")
    p.add_argument("--to", required=True, choices=sorted(EXPORTERS),
                   help="the formula's format: " + ", ".join(sorted(EXPORTERS)))
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="encoding option of the backend behind the format (e.g. card=seqcounter, "
                        "model=bool for smt2)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists",
                   help="list filtering of the model before the encoding")
    p.add_argument("-o", "--output", help="write here (atomically; default: stdout)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("decode", help="turn an external solver's model back into a verified "
                       "solution",
                       description="Read the answer of an external solver on a formula made "
                       "by 'futocp export', any of its formats (DIMACS 'v' lines, MiniSat's "
                       "result file 'SAT' + literals, a PB solver's 'v x1 -x2', a CP-SAT "
                       "response's 'solution:' lines, MiniZinc output, a HiGHS or SCIP solution "
                       "file, or z3's model) and print the solution, verified. Exit 1 when it "
                       "fails verification.")
    add_instances(p, "a collection needs --index")
    p.add_argument("model", help="the solver's output (DIMACS 'v' lines, MiniSat's 'SAT' file, "
                                 "OPB, a CP-SAT response, MiniZinc output, a HiGHS or SCIP "
                                 "solution file, or z3's model)")
    p.add_argument("--formula", help="the file 'futocp export' wrote (DIMACS, OPB, CP-SAT or "
                                     "MiniZinc; default: re-encode the instance with --opt and "
                                     "--filtering, as export does; MPS, LP and SMT-LIB "
                                     "answers need none)")
    p.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="the encoding options given to export (e.g. card=seqcounter)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists",
                   help="the filtering given to export")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("convert", help="convert an instance to another format")
    add_instances(p, "a collection: every puzzle to a format of many (sudoku, tatham, "
                     "jigsaw); other formats hold one, so they need --index")
    p.add_argument("--to", required=True, choices=sorted(formats.FORMATS),
                   help="the format to write: " + ", ".join(sorted(formats.FORMATS)))
    p.add_argument("-o", "--output", help="write here (atomically; default: stdout)")
    p.set_defaults(func=cmd_convert)
