"""The notebooks under docs/notebooks: committed with their outputs, and they run.

They are stored executed, so that they read on a code host without running;
to refresh them after a change (from the dev extras, which bring nbconvert)::

    .venv/bin/jupyter nbconvert --to notebook --execute --inplace \\
        --ExecutePreprocessor.record_timing=False docs/notebooks/NAME.ipynb

``record_timing=False`` leaves out the per-cell timestamps that change on every
run. The slow test runs the same command (``make test-slow``, run by CI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
MAX_OUTPUT_BYTES = 100_000  # one image or table in a stored output
MAX_NOTEBOOK_BYTES = 500_000


def _code_cells(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def _errors(nb: dict) -> list[dict]:
    return [out for cell in _code_cells(nb) for out in cell.get("outputs", [])
            if out.get("output_type") == "error"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_with_small_outputs(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    cells = _code_cells(nb)
    # executed top to bottom in one run, every cell showing something
    assert [cell["execution_count"] for cell in cells] == list(range(1, len(cells) + 1))
    assert all(cell["outputs"] for cell in cells), "a cell without output: execute it"
    assert not _errors(nb)
    # no per-run execution metadata, no huge embedded image, no path of the machine
    assert not any("execution" in cell.get("metadata", {}) for cell in cells)
    assert len(text.encode()) <= MAX_NOTEBOOK_BYTES
    for cell in cells:
        for out in cell["outputs"]:
            for kind, data in out.get("data", {}).items():
                size = len("".join(data) if isinstance(data, list) else json.dumps(data))
                assert size <= MAX_OUTPUT_BYTES, (kind, size)
    outputs = json.dumps([cell["outputs"] for cell in cells])
    for private in (str(ROOT), os.path.expanduser("~") + os.sep, "futocp-notebook-"):
        assert private not in outputs, private


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_with_nbconvert(path: Path, tmp_path: Path) -> None:
    pytest.importorskip("nbconvert")
    pytest.importorskip("ipykernel")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
         "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.record_timing=False",
         "--output-dir", str(tmp_path), str(path)],
        capture_output=True, text=True, timeout=900, cwd=path.parent, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    nb = json.loads((tmp_path / path.name).read_text(encoding="utf-8"))
    assert not _errors(nb)
    assert all(cell["outputs"] for cell in _code_cells(nb))
