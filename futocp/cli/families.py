"""``futocp families`` and ``futocp new``: the board families and an empty instance of one."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..families import get_family, list_families, parse_param_text
from .common import EXIT_OK, add_output, emit, output_format, print_json

__all__ = ["add_commands", "cmd_families", "cmd_new"]

def cmd_families(args: argparse.Namespace) -> int:
    """``futocp families``: every board family, its parameters and its rules."""
    fams = list_families()
    if args.json:
        print_json([{"name": f.name, "description": f.description, "source": f.source,
                     "params": {p.name: {"type": p.type, "default": p.show(p.default)
                                         if p.default is not None else None, "help": p.help}
                                 for p in f.params.values()}} for f in fams])
        return EXIT_OK
    for f in fams:
        print(f"{f.name:<15} {f.describe_params()}")
        print(f"{'':<15} {f.description}")
    return EXIT_OK


def cmd_new(args: argparse.Namespace) -> int:
    """``futocp new``: an empty instance of a family (``--param``, ``--size``)."""
    fam = get_family(args.family)
    params: dict[str, Any] = {}
    for item in args.param or ():
        key, value = parse_param_text(item)
        if key not in fam.params:  # nor one of build()'s own arguments (size, less...)
            known = ", ".join(fam.params) or "none"
            raise UsageError(f"family {fam.name} has no parameter {key!r} (its parameters: {known})")
        params[key] = value
    board = fam.build(size=args.size, **params)
    emit(board, args.output, output_format(args))
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add the ``families`` and ``new`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("families", help="list the board families (models/*.yaml) and their rules")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_families)

    p = sub.add_parser("new", help="print an empty instance of a family")
    p.add_argument("family", help="a family name (futocp families)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="family parameter, e.g. box=2x3, n=6, word=MAKIKAJI (repeatable)")
    p.add_argument("--size", type=int, help="the size n, where it fixes the parameters")
    add_output(p)
    p.set_defaults(func=cmd_new)
