"""The README's "Use" block runs top to bottom as written.

The block is taken from README.md itself and run by bash, line after line, in
a temporary folder holding copies of ``instances/`` and ``experiments/`` (so the
files its lines write land there); ``. .venv/bin/activate`` there puts this
interpreter's scripts first on the PATH. Every line must exit 0, and every file
a line reads must have been made by a line above it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def use_block() -> list[str]:
    """The command lines of the README's ``## Use`` code block, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Use\n", 1)[1]
    block = re.search(r"^```sh\n(.*?)^```", section, re.S | re.M)
    assert block is not None, "no ```sh block in the README's Use section"
    return [line for line in block.group(1).splitlines() if line.strip()]


def python_block() -> str:
    """The README's ``From Python:`` code block (in its ``## Use`` section)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Use\n", 1)[1]
    block = re.search(r"^From Python:\n\n```python\n(.*?)^```", section, re.S | re.M)
    assert block is not None, "no ```python block after 'From Python:' in the README's Use section"
    return block.group(1)


def test_the_python_block_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # it reads instances/ as a clone's root has them
    namespace: dict[str, object] = {}
    exec(compile(python_block(), "README.md (From Python)", "exec"), namespace)  # noqa: S102
    results = namespace["results"]
    assert isinstance(results, list) and len(results) == 1465
    assert all(r.status.value == "sat" and r.verdicts == {0: []} for r in results)


LOCAL_FILE = re.compile(r"^[\w-]+\.(json|yaml|txt|cnf|opb|mzn|svg|png|pdf)$")  # made here


def test_the_use_block_makes_each_file_before_a_line_reads_it():
    lines = use_block()
    assert lines[0] == ". .venv/bin/activate"
    made: set[str] = set()
    for number, line in enumerate(lines, 1):
        words = shlex.split(line, comments=True)
        outputs = {w for k, w in enumerate(words) if k and words[k - 1] in (">", "-o", "--output")}
        for word in words:
            if LOCAL_FILE.match(word) and word not in outputs:
                assert word in made, f"README Use line {number} reads {word} before a line makes it"
        made |= outputs
    assert {"p.cnf", "model.txt", "solved.json"} <= made


@pytest.mark.slow  # the quickstart study alone takes tens of seconds
@pytest.mark.timeout(900)
def test_the_use_block_runs_top_to_bottom(tmp_path):
    for folder in ("instances", "experiments"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("results", "__pycache__"))
    bin_dir = Path(sys.executable).parent
    activate = tmp_path / ".venv" / "bin" / "activate"
    activate.parent.mkdir(parents=True)
    activate.write_text(f'export PATH={shlex.quote(str(bin_dir))}:"$PATH"\n')
    script = ["set -e -o pipefail",
              "trap 'echo \"README line failed: $BASH_COMMAND\" >&2' ERR",
              *use_block()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("_ARGCOMPLETE", None)
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "verified" in proc.stdout  # decode's answer
    assert (tmp_path / "solved.json").is_file() and (tmp_path / "model.txt").is_file()
    assert (tmp_path / "experiments" / "results" / "quickstart").is_dir()
