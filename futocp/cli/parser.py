"""The argument parser of every command: its formatting, "did you mean", the help.

:func:`build_parser` adds the sub-commands of each module of
:data:`COMMAND_GROUPS` (their ``add_commands(sub)``), then ``help``, then one
pass (:func:`_finish`) giving every command the common help texts and the shell
completers of backends and families.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..backends import REGISTRY
from ..errors import UsageError, did_you_mean
from .common import EXIT_CODES, EXIT_OK

__all__ = ["build_parser", "COMMAND_GROUPS", "DESCRIPTION", "EXAMPLES", "COMMON_HELP"]

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
              "shell completion (argcomplete comes with futocp): add to ~/.bashrc",
              '  eval "$(register-python-argcomplete futocp)"',
              "  (zsh: after autoload -U bashcompinit && bashcompinit)"]
    return "\n".join(lines)


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
    from ..families import list_families

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


#: The command groups (modules of futocp.cli), in the order ``futocp --help`` lists their
#: commands: each module has ``add_commands(sub)``, which adds its sub-parsers (each with
#: ``func=cmd_*``). A group is imported when its commands are added.
COMMAND_GROUPS: tuple[str, ...] = ("solve", "backends", "crosscheck", "convert", "puzzles",
                                   "rating", "families", "experiments", "render")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every sub-command; with ``command``, of the groups up to the
    one that has it (``futocp solve`` imports the solve group only), or of every group
    when none has it (the error then says "did you mean")."""
    parser = _TopParser(prog="futocp", description=DESCRIPTION, epilog=_epilog())
    parser.add_argument("--version", action="version", version=f"futocp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands", parser_class=_Parser)

    for group in COMMAND_GROUPS:
        importlib.import_module(f".{group}", __package__).add_commands(sub)
        if command is not None and command in sub.choices:
            break

    p = sub.add_parser("help", help="the help of a command: futocp help solve")
    p.add_argument("topic", nargs="?", metavar="COMMAND",
                   help="a command (default: the overview)")
    p.set_defaults(func=lambda args: _cmd_help(parser, args))
    _finish(parser)
    return parser
