"""Lazy imports (issue 25): ``import futocp``, the public names, the registry and the
command line behave as before while loading only what a command uses."""

from __future__ import annotations

import subprocess
import sys

import pytest

import futocp
from futocp.backends import REGISTRY, BackendRegistry
from futocp.cli import main
from futocp.cli.parser import COMMAND_GROUPS, build_parser


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout


def _loaded_after(backend: str) -> list[str]:
    """futocp's modules (and ``statistics``) loaded by one ``futocp solve`` of a 4x4 id."""
    out = _run("import sys\n"
               "from futocp.cli import main\n"
               "assert main(['solve', '--puzzle', '4:0R,0,0,0L,0,0,0,0U,0,0,0,3,0,0,3,0,',"
               f" '--backend', {backend!r}, '--quiet']) == 0\n"
               "print(sorted(m for m in sys.modules if m.startswith('futocp.') or m == 'statistics'))\n")
    loaded: list[str] = eval(out.strip().splitlines()[-1])  # noqa: S307 - our own printed list
    return loaded


def test_every_public_name_resolves() -> None:
    for name in futocp.__all__:
        assert getattr(futocp, name) is not None, name
    assert set(futocp.__all__) <= set(dir(futocp))
    assert futocp.formats.read is futocp.read  # a submodule, named as before
    with pytest.raises(AttributeError):
        futocp.no_such_name  # noqa: B018


def test_import_futocp_loads_nothing_else_until_used() -> None:
    out = _run("import sys, futocp\n"
               "print(sorted(m for m in sys.modules if m.startswith('futocp.')))\n"
               "from futocp import solve, latin_square\n"
               "print(solve(latin_square(3), 'listcolor').status.value)\n")
    assert out.split("\n")[:2] == ["[]", "sat"]


def test_solving_with_listcolor_imports_no_other_backend_nor_command_group() -> None:
    loaded = _loaded_after("listcolor")
    assert "futocp.backends.listcolor" in loaded
    for other in ("cpsat", "sat", "mip", "anneal", "auto"):
        assert f"futocp.backends.{other}" not in loaded
    for group in COMMAND_GROUPS[1:]:
        assert f"futocp.cli.{group}" not in loaded


def test_one_board_with_cpsat_imports_neither_listcolor_nor_the_batch_path() -> None:
    # the batch API (and with it listcolor) is for collections; the puzzles module
    # for --command-time-limit; statistics for a collection's summary
    pytest.importorskip("ortools")
    loaded = _loaded_after("cpsat")
    assert "futocp.backends.cpsat" in loaded
    for lazy in ("futocp.batch", "futocp.backends.listcolor", "futocp.puzzles", "statistics"):
        assert lazy not in loaded


def test_the_registry_is_a_mapping_that_imports_on_use(monkeypatch) -> None:
    assert list(REGISTRY)[:3] == ["cpsat", "listcolor", "sat"]
    assert all(REGISTRY[name].name == name for name in REGISTRY)
    assert REGISTRY.get("nope") is None and "nope" not in REGISTRY
    monkeypatch.setitem(REGISTRY, "fake", REGISTRY["listcolor"])
    assert "fake" in REGISTRY and list(REGISTRY)[-1] == "fake"
    registry = BackendRegistry({"listcolor": "listcolor:ListcolorBackend"})
    del registry["listcolor"]
    assert len(registry) == 0


def test_help_and_every_command_still_parse(capsys) -> None:
    assert _run("import runpy, sys\nsys.argv = ['futocp', '--help']\n"
                "try:\n    runpy.run_module('futocp', run_name='__main__')\n"
                "except SystemExit as e:\n    print('exit', e.code)\n").strip().endswith("exit 0")
    full = build_parser()
    names = set(full._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert {"solve", "crosscheck", "backends", "help"} <= names
    for name in names:  # a parser built for one command knows that command
        assert name in build_parser(name)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    with pytest.raises(SystemExit) as stop:  # a misspelt command: every group, did you mean
        main(["sovle", "x"])
    assert stop.value.code == 2 and "solve" in capsys.readouterr().err


def test_a_function_named_as_its_module_stays_the_function() -> None:
    out = _run("import futocp, futocp.verify, futocp.crosscheck, futocp.generate\n"
               "print(callable(futocp.verify), callable(futocp.crosscheck),"
               " callable(futocp.generate))\n")
    assert out.split() == ["True", "True", "True"]
