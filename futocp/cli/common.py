"""What every command shares: its input, its output, its exit codes.

The input path of every command that reads puzzles (:func:`add_instances`,
:func:`inputs`): ``FILE``, ``-`` (standard input) or ``--puzzle TEXT``, the
format detected unless ``--format`` names it, every puzzle of a collection
(named ``FILE#k``) unless ``--index I`` keeps one (:func:`one_instance`, for a
command that works on one puzzle). The output: the readable grid
(:func:`grid_text`), JSON (:func:`print_json`), a text or a board written
atomically (:func:`write_text`, :func:`emit`). The exit codes (:data:`EXIT_CODES`).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import formats, textview
from ..backends.base import run_limits
from ..board import Board
from ..errors import FutocpError, UsageError
from ..model import FILTERINGS
from ..result import Result

__all__ = [
    # exit codes
    "EXIT_OK", "EXIT_UNKNOWN", "EXIT_ERROR", "EXIT_NOT_CRITICAL", "EXIT_NOT_PUZZLE",
    "EXIT_UNAVAILABLE", "EXIT_SOLVER", "EXIT_INTERRUPTED", "EXIT_CODES", "exit_code",
    # input
    "add_instances", "inputs", "one_instance", "load_instances", "source_of",
    "input_name", "COLLECTION_FORMATS",
    # output
    "grid_text", "solution_json", "print_json", "write_text", "emit", "add_output",
    "output_format",
    # the search options of solve and crosscheck
    "parse_opts", "add_search", "with_run_limits",
]

EXIT_OK, EXIT_UNKNOWN, EXIT_ERROR = 0, 1, 2
EXIT_NOT_CRITICAL, EXIT_NOT_PUZZLE = 3, 4  # check (and hint)
EXIT_UNAVAILABLE = 69  # a service a run needs does not answer (sysexits' EX_UNAVAILABLE)
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
    69: "service unavailable: a service the run needs does not answer, e.g. an unreachable "
        "Dask scheduler (ServiceUnavailable)",
    70: "solver failure: a solver crashed or answered garbage (SolverError)",
    130: "interrupted (Ctrl-C, SIGTERM, SIGHUP); partial output is not trusted",
}

#: Formats that hold several puzzles in one file (one puzzle a line, or two lines).
COLLECTION_FORMATS = formats.COLLECTION_FORMATS
# the line formats a --puzzle text is tried in, the strictest first (a jigsaw
# puzzle's givens alone are a Sudoku line)
_PUZZLE_SNIFFS = ("jigsaw", "tatham", "sudoku")


# -------------------------------------------------------- exit codes
def exit_code(result: Result) -> int:
    """0 when the search answered all it was asked, 1 when a time limit stopped it."""
    return EXIT_OK if result.finished else EXIT_UNKNOWN


# ------------------------------------------------------------- input
def add_instances(p: argparse.ArgumentParser, collection: str) -> None:
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


def _named(source: str, boards: Sequence[Board]) -> list[tuple[str, Board]]:
    if len(boards) == 1:
        return [(source, boards[0])]
    return [(f"{source}#{k}", board) for k, board in enumerate(boards, 1)]


def load_instances(path: str, fmt: str | None = None) -> list[tuple[str, Board]]:
    """Every instance of a file as ``(name, board)``: the file name for a single
    instance, ``FILE#k`` (k from 1) for each instance of a collection; ``-``
    reads standard input (named ``<stdin>``)."""
    if path != formats.STDIN:
        return _named(path, formats.read_many(path, fmt))
    if sys.stdin is not None and sys.stdin.isatty():
        print("futocp: reading the instance from standard input (end it with Ctrl-D)",
              file=sys.stderr)
    return _named("<stdin>", formats.read_many(path, fmt))


def source_of(args: argparse.Namespace) -> str:
    """Where the instances come from, for messages."""
    if getattr(args, "puzzle", None) is not None:
        return "--puzzle"
    return "standard input" if args.file == "-" else str(args.file)


def input_name(args: argparse.Namespace) -> str:
    """Where the instances come from, as JSON outputs name it: the file, ``<stdin>``
    or ``<puzzle>`` (the prefix of the ``#k`` names of a collection)."""
    if getattr(args, "puzzle", None) is not None:
        return "<puzzle>"
    return "<stdin>" if args.file == "-" else str(args.file)


def inputs(args: argparse.Namespace) -> list[tuple[str, Board]]:
    """The instances a command reads: ``FILE``, ``-`` (standard input) or ``--puzzle TEXT``
    (format sniffed unless ``--format``); ``--index I`` keeps the I-th (1-based)."""
    puzzle = getattr(args, "puzzle", None)
    if puzzle is not None:
        if args.file is not None:
            raise UsageError(f"give an instance file or --puzzle TEXT, not both ({args.file!r})")
        text = puzzle if puzzle.endswith("\n") else puzzle + "\n"
        fmt = args.format or next((name for name in _PUZZLE_SNIFFS  # line formats first
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
        raise UsageError(f"--index {index} is outside 1..{len(instances)} ({source_of(args)} holds "
                         f"{held})")
    return [instances[index - 1]]


def one_instance(args: argparse.Namespace, why: str) -> tuple[str, Board]:
    """The one instance of a command that works on a single puzzle: a collection
    needs ``--index`` (refused clearly without it)."""
    instances = inputs(args)
    if len(instances) > 1:
        raise UsageError(f"{source_of(args)} holds {len(instances)} puzzles and {why}: choose one "
                         f"with --index I (1..{len(instances)})")
    return instances[0]


# ------------------------------------------------------------ output
def grid_text(board: Board, values: Sequence[Any] | None = None) -> str:
    """A board (optionally filled with ``values``) as readable text."""
    shown = board if values is None else board.solved(values)
    try:
        return formats.dumps(shown, "text").rstrip("\n")
    except FutocpError:  # no text format for this board: drawn read-only
        return textview.draw(shown)


def solution_json(board: Board, values: Sequence[Any]) -> list[Any]:
    """A solution as JSON writes it: rows of labels on a grid, else the labels per cell."""
    return board.as_grid(list(values)) if board.shape else list(values)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


def print_json(obj: Any) -> None:
    """Print ``obj`` as one line of JSON (sets and tuples as lists, the rest as text)."""
    print(json.dumps(obj, default=_json_default))


def write_text(text: str, output: str | None) -> None:
    """Write ``text`` to the file ``output`` (atomically), or to stdout when None."""
    if output:
        formats.base.atomic_write(output, text)
    else:
        sys.stdout.write(text)


def emit(board: Board, output: str | None, fmt: str | None) -> None:
    """Write ``board`` to ``output`` (atomically) or print it; JSON unless told."""
    if output:
        formats.write(board, output, fmt)
    else:
        sys.stdout.write(formats.dumps(board, fmt or "json"))


def add_output(p: argparse.ArgumentParser, old_format: bool = True) -> None:
    """``--to`` and ``-o`` of the commands that write one puzzle (``generate``, ``new``,
    ``minimize``). ``old_format``: the command takes ``--format``, its old spelling of
    ``--to`` (for one release; ``--format`` names the input format everywhere else)."""
    p.add_argument("--to", choices=sorted(formats.FORMATS), help="output format (default json, "
                   "or by the extension of -o)")
    if old_format:
        p.add_argument("--format", dest="old_format", choices=sorted(formats.FORMATS),
                       help=argparse.SUPPRESS)
    p.add_argument("-o", "--output", help="write here (atomically) instead of stdout")


def output_format(args: argparse.Namespace) -> str | None:
    """``--to``, or the deprecated ``--format`` of ``generate`` and ``new`` (with a note)."""
    if args.old_format is None:
        return str(args.to) if args.to else None
    if args.to is not None and args.to != args.old_format:
        raise UsageError(f"--to {args.to} and --format {args.old_format}: give --to only")
    print(f"futocp: note: --format names the input format; the output format of "
          f"{args.command} is --to (--format {args.old_format} is read as --to "
          f"{args.old_format} in this release only)", file=sys.stderr)
    return str(args.old_format)


# -------------------------------- search options (solve, crosscheck)
def parse_opts(items: Sequence[str] | None) -> dict[str, str]:
    """``["k=v", ...]`` -> ``{"k": "v"}`` (values are parsed by the backend's option types)."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--opt expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _seconds(text: str) -> float | None:
    """A ``--time-limit`` value: seconds, or ``none`` (no limit)."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds or 'none', got {text!r}") from None


def add_search(p: argparse.ArgumentParser, default_limit: int, per: str,
               default_time_limit: float | None = None) -> None:
    """The search arguments shared by ``solve`` and ``crosscheck``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--limit", type=int, default=default_limit,
                   help=f"most solutions {per} (default {default_limit})")
    g.add_argument("--all", action="store_true", help="enumerate every solution")
    if default_time_limit is None:
        p.add_argument("--time-limit", type=float, metavar="S",
                       help="seconds for each backend run (default: none, run to the end)")
    else:
        p.add_argument("--time-limit", type=_seconds, metavar="S", default=default_time_limit,
                       help=f"seconds for each backend run (default {default_time_limit:g}; "
                            "none: run every backend to the end)")
    p.add_argument("--memory-limit", type=float, metavar="MB",
                   help="MB for each backend run, which then runs in a child process; past "
                        "it the run is stopped: unknown, exit 1 (default: none)")
    p.add_argument("--seed", type=int, help="random seed of the backends that use one "
                   "(solve: refused by a backend that uses none; crosscheck: the others run "
                   "without it; default: none, the backend's own)")
    p.add_argument("--filtering", choices=FILTERINGS, default="lists",
                   help="filtering of the model's lists before the search: lists (singles, "
                        "relations), gac (and Régin's all-different GAC), none")


def with_run_limits(command: Callable[[argparse.Namespace], int]
                    ) -> Callable[[argparse.Namespace], int]:
    """Run a command within ``--memory-limit``; the backends whose solver is C code
    run in a child process (one, reused), so that a crash of it costs that run
    only (exit 70, or an ``error`` row), never this process."""

    @functools.wraps(command)
    def wrapper(args: argparse.Namespace) -> int:
        with run_limits(memory_limit=args.memory_limit, isolate=True, reuse=True):
            return command(args)

    return wrapper
