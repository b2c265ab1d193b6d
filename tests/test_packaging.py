"""What every install carries: the family files as package data, the licence,
and the compiled cores' status in ``futocp backends``.

The install itself (a wheel in a fresh venv, ``pip install --target``) is
checked by ``make wheel-check`` (``scripts/check_wheel.sh``), which CI runs.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

import pytest

from futocp.backends import REGISTRY, backend_table
from futocp.cli import main
from futocp.cores import COMPILED, CORES, SHARED_CORES, core_status, core_statuses
from futocp.families import get_family, list_families, models_dirs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh_families():
    """The family registry read anew (and again after the test)."""
    from futocp.families import _registry

    _registry.cache_clear()
    yield
    _registry.cache_clear()


# ------------------------------------------------------------------ the families
def test_the_families_are_package_data_read_with_importlib_resources():
    folder = resources.files("futocp").joinpath("models")
    files = sorted(p.name.removesuffix(".yaml") for p in folder.iterdir()
                   if p.name.endswith(".yaml"))
    assert len(files) >= 10 and "sudoku" in files and "killer-sudoku" in files
    assert models_dirs()[-1] == folder
    assert [f.name for f in list_families()] == files
    assert folder.joinpath("README.md").is_file()


def test_the_top_level_models_points_into_the_package():
    link = ROOT / "models"
    assert link.resolve() == (ROOT / "futocp" / "models").resolve()


def test_pyproject_ships_the_families_as_package_data_not_data_files():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = doc["tool"]["setuptools"]
    assert "data-files" not in setuptools
    assert {"models/*.yaml", "models/README.md"} <= set(setuptools["package-data"]["futocp"])
    assert doc["project"]["license"] == "MIT"


def test_the_licence_file_is_mit():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "the futocp authors" in text
    assert "WITHOUT WARRANTY OF ANY KIND" in text


def test_futocp_models_comes_first_and_adds_families(tmp_path, monkeypatch, fresh_families):
    sudoku = resources.files("futocp").joinpath("models", "sudoku.yaml").read_text("utf-8")
    (tmp_path / "sudoku.yaml").write_text(sudoku.replace("description: ", "description: MINE "))
    (tmp_path / "my-square.yaml").write_text(
        resources.files("futocp").joinpath("models", "latin-square.yaml").read_text("utf-8")
        .replace("name: latin-square", "name: my-square"))
    (tmp_path / "notes.txt").write_text("not a family")
    monkeypatch.setenv("FUTOCP_MODELS", str(tmp_path / "missing") + ":" + str(tmp_path))
    assert models_dirs()[0] == tmp_path
    assert get_family("sudoku").description.startswith("MINE")
    assert get_family("sudoku").source == str(tmp_path / "sudoku.yaml")
    names = [f.name for f in list_families()]
    assert "my-square" in names and "latin-square" in names and "jigsaw" in names


# ------------------------------------------------------------------ the compiled cores
def _hide(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setitem(sys.modules, name, None)  # an import of it now fails


def test_core_status_says_compiled_or_why_not(monkeypatch):
    for name in CORES:
        status = core_status(name)
        assert status == COMPILED or status.startswith("python fallback: ")
    _hide(monkeypatch, "futocp._filter_core")
    assert core_status("futocp._filter_core").startswith("python fallback: not built")
    with pytest.raises(KeyError, match="not a compiled core"):
        core_status("futocp.board")


def test_the_listcolor_cores_are_the_ones_the_backend_runs():
    from futocp.backends import listcolor

    cores = REGISTRY["listcolor"].cores
    assert set(cores) | set(SHARED_CORES) == set(CORES)
    built = core_statuses(cores)
    assert (built["futocp.backends._listcolor_core"] == COMPILED) == listcolor.core_available()
    assert (built["futocp.backends._listcolor_core_wide"] == COMPILED) == (
        listcolor._core_wide is not None)


def test_backends_reports_every_core(monkeypatch, capsys):
    rows = {r["name"]: r for r in backend_table()}
    assert set(rows["listcolor"]["cores"]) == set(CORES)
    assert set(rows["cpsat"]["cores"]) == set(SHARED_CORES)
    _hide(monkeypatch, "futocp.backends._listcolor_core_wide")
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    wide = [line for line in out.splitlines() if "_listcolor_core_wide" in line]
    assert len(wide) == 1 and "python fallback: not built" in wide[0]
    shared = [line for line in out.splitlines() if "futocp._filter_core" in line]
    assert len(shared) == 1 and shared[0].startswith("every backend:")
    assert main(["backends", "--json"]) == 0
    doc = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert doc["listcolor"]["cores"]["futocp.backends._listcolor_core_wide"].startswith(
        "python fallback: ")
