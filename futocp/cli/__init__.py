# PYTHON_ARGCOMPLETE_OK  (shell completion: eval "$(register-python-argcomplete futocp)")
"""The command line: ``python -m futocp`` / ``futocp``.

Thin by design: each sub-command parses its arguments, calls the library and
prints. Every :class:`~futocp.errors.FutocpError` becomes one line on stderr
and exit code 2; a finished run exits 0, a run stopped by its time limit 1
(the full list: :data:`EXIT_CODES`, printed by ``futocp --help``).

Mistyped sub-commands, options, backends and families get a "did you mean"
(:func:`futocp.errors.did_you_mean`); ``futocp help CMD`` prints a command's help; the
shell completes commands, options, backends and families through ``argcomplete`` (a
dependency) once ``eval "$(register-python-argcomplete futocp)"`` has run.

The package: :mod:`~futocp.cli.common` holds what every command shares (the input
path ``FILE``, ``-``, ``--puzzle``, ``--format``, ``--index``; JSON printing; the
exit codes); :mod:`~futocp.cli.parser` builds the parser from the command groups
(:data:`~futocp.cli.parser.COMMAND_GROUPS`), one module each (``solve``,
``crosscheck``, ``convert``, ...) owning its sub-parsers and ``cmd_*`` functions;
this module runs a command and turns errors into exit codes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence

from ..backends import REGISTRY
from ..errors import (
    FutocpError,
    ResourceError,
    ServiceUnavailable,
    SolverError,
    TimeLimitReached,
    UnsupportedError,
    UsageError,
    did_you_mean,
)
from ..procs import signals_as_interrupt
from .common import (
    EXIT_CODES,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SOLVER,
    EXIT_UNAVAILABLE,
    EXIT_UNKNOWN,
    grid_text,
    load_instances,
    parse_opts,
)
from .parser import build_parser
from .solve import collection_summary, solve_record

__all__ = ["main", "grid_text", "parse_opts", "load_instances", "collection_summary",
           "build_parser", "solve_record", "EXIT_CODES", "EXIT_UNAVAILABLE", "did_you_mean"]


#: How an error ends a command: the words before its message and the exit code, for the
#: first class it is an instance of (FutocpError last: bad input or usage).
_ENDINGS: tuple[tuple[type[FutocpError], str, int], ...] = (
    (SolverError, "solver failure", EXIT_SOLVER),
    (ServiceUnavailable, "unavailable", EXIT_UNAVAILABLE),
    (ResourceError, "error", EXIT_UNKNOWN),
    (TimeLimitReached, "stopped", EXIT_UNKNOWN),
    (FutocpError, "error", EXIT_ERROR),
)


def _check_names(args: argparse.Namespace) -> None:
    """Backend and family names, with "did you mean" for a mistyped one."""
    backend = getattr(args, "backend", None)
    if isinstance(backend, str) and backend not in REGISTRY:
        raise UsageError(f"unknown backend {backend!r}{did_you_mean(backend, REGISTRY)} "
                         f"(known: {', '.join(REGISTRY)})")
    name = getattr(args, "family", None)
    if isinstance(name, str):
        from ..families import get_family

        get_family(name)  # an unknown name: "did you mean", and the known ones


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


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The sub-command ``argv`` names (its first word not an option), or None when the
    whole parser is wanted (no command, ``help``, shell completion)."""
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    if first == "help" or "_ARGCOMPLETE" in os.environ:
        return None
    return first


def _time_limited(seconds: float | None) -> contextlib.AbstractContextManager[None]:
    """:func:`futocp.puzzles.time_limited` when the command has a time limit (the module
    is imported then only: a solve without one does not need it)."""
    if seconds is None:
        return contextlib.nullcontext()
    from ..puzzles import time_limited

    return time_limited(seconds)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (:data:`EXIT_CODES`)."""
    parser = build_parser(_command_of(argv))
    _autocomplete(parser)
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        if getattr(args, "limit", 1) is not None and getattr(args, "limit", 1) < 1:
            raise UsageError("--limit must be at least 1")
        _check_names(args)
        with signals_as_interrupt(), _time_limited(getattr(args, "command_time_limit", None)):
            return func(args)  # SIGTERM/SIGHUP clean up as Ctrl-C does
    except FutocpError as exc:  # one line on stderr, no traceback
        words, code = next((w, c) for kind, w, c in _ENDINGS if isinstance(exc, kind))
        text = _about_input(exc, args) if code == EXIT_ERROR else str(exc)
        print(f"futocp: {words}: {text}", file=sys.stderr)
        return code
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
