"""``futocp backends``: which backends run here (and why not), their options and compiled cores."""

from __future__ import annotations

import argparse
from typing import Any

from ..backends import backend_table
from ..cores import CORES, SHARED_CORES, core_status
from .common import EXIT_OK, print_json

__all__ = ["add_commands", "cmd_backends"]

def cmd_backends(args: argparse.Namespace) -> int:
    """``futocp backends``: each backend, whether it runs here, its options and cores."""
    rows = backend_table()
    if args.json:
        print_json([{**r, "available": r["available"] is True,
                     "why_not": None if r["available"] is True else r["available"]} for r in rows])
        return EXIT_OK
    for r in rows:
        avail = "available" if r["available"] is True else f"NOT available: {r['available']}"
        kind = "complete" if r["complete"] else "incomplete"
        print(f"{r['name']:<13} {avail}; {kind}")
        print(f"{'':<13} capabilities: {', '.join(r['capabilities'])}")
        opts = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "-"
        print(f"{'':<13} options: {opts}")
        for name, status in r["cores"].items():
            if name not in SHARED_CORES:
                print(f"{'':<13} compiled core {name} ({CORES[name]}): {status}")
    for name in SHARED_CORES:
        print(f"every backend: compiled core {name} ({CORES[name]}): {core_status(name)}")
    return EXIT_OK


def add_commands(sub: Any) -> None:
    """Add the ``backends`` commands to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("backends", help="list the backends and whether they are available")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_backends)
