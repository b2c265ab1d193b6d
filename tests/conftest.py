"""pytest hooks and fixtures only: what tests share otherwise lives in tests/strategies.py."""

from __future__ import annotations

import pytest

from futocp.backends import REGISTRY
from futocp.board import Board
from futocp.families import futoshiki

from . import strategies


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--backend", action="append", default=[], metavar="NAME",
                     help="run the backend-parametrised suites for this backend only (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    selected = config.getoption("--backend") or []
    unknown = sorted(set(selected) - set(REGISTRY))
    if unknown:
        raise pytest.UsageError(f"--backend: unknown backend(s) {', '.join(unknown)} "
                                f"(known: {', '.join(REGISTRY)})")
    strategies.select(selected)


@pytest.fixture
def small_futoshiki() -> Board:
    return futoshiki(4, [[0, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
                     less=[((0, 0), (0, 1)), ((1, 0), (2, 0)), ((3, 3), (3, 2))])
