"""Hostile configs and results files, full disks and lost schedulers: one line, no traceback.

Each case here once ended in a traceback, a memory blow-up or a silent
acceptance (issues 13 and 16); now each is a one-line error naming the file
(exit 2, or 1 when the environment failed, 69 when a service such as a
Dask scheduler does not answer) and nothing written is lost.
"""

from __future__ import annotations

import errno
import json
import socket
import textwrap
from pathlib import Path

import pytest

from futocp.cli import EXIT_UNAVAILABLE, main
from futocp.errors import ResourceError, ServiceUnavailable
from futocp.experiments import runner
from futocp.experiments.config import parse_config
from futocp.experiments.runner import read_jsonl, read_run_ids, run_experiment

QUICK = """\
instances: [{generate: {family: latin-square, size: 3, givens: 2, count: 3, seed: 1}}]
backends: [listcolor]
output: out
"""


def write(folder: Path, text: str) -> Path:
    path = folder / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize("text, words", [
    ("time_limit: .inf\n", "time_limit"),
    ("repetitions: 1000000000\n", "repetitions"),
    ("seed: " + "9" * 5000 + "\n", "digits"),
    ("margin: -1\n", "margin"),
    ("workers: 100000\n", "workers"),
])
def test_bad_config_values_are_one_line_errors(tmp_path, capsys, text, words):
    path = write(tmp_path, QUICK + text)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and words in err and len(err.strip().splitlines()) == 1


def test_generate_values_of_the_wrong_type_are_refused(tmp_path, capsys):
    path = write(tmp_path, QUICK.replace("seed: 1}", "seed: 1, unique: maybe}"))
    assert main(["run", str(path)]) == 2
    assert "'unique' must be bool" in capsys.readouterr().err


def test_too_many_runs_are_refused_before_planning(tmp_path, capsys):
    path = write(tmp_path, QUICK.replace("count: 3", "count: 100000") + "repetitions: 100\n")
    assert main(["run", str(path)]) == 2
    assert "more than 1,000,000 runs" in capsys.readouterr().err


@pytest.mark.parametrize("text, words", [
    ("a: " + "[" * 3000 + "]" * 3000 + "\n", "nesting deeper"),
    ("a: &x [1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &y [*x, *x, *x, *x, *x, *x, *x, *x, *x]\n",
     "aliases are not allowed"),
])
def test_hostile_yaml_is_refused(tmp_path, capsys, text, words):
    path = write(tmp_path, QUICK + text)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_config_values_are_validated_in_the_api_too():
    with pytest.raises(Exception, match="time_limit"):
        parse_config(QUICK + "time_limit: .nan\n")


def test_torn_and_non_utf8_lines_are_dropped_and_rerun(tmp_path):
    path = write(tmp_path, QUICK)
    run_experiment(path, progress=False)
    results = tmp_path / "out" / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3
    # one record garbled with bytes that are not UTF-8, the last one cut by a kill
    results.write_bytes(lines[0] + b"\xff\xfe garbage\n" + lines[1][:-1].replace(b"{", b"{\x80")
                        + b"\n" + lines[2][: len(lines[2]) // 2])
    records, bad = read_jsonl(results)
    assert len(records) == 1 and bad == 3
    summary = run_experiment(path, progress=False)
    assert summary.skipped == 1 and summary.done == 2
    assert len(read_run_ids(results)) == 3
    assert main(["report", str(tmp_path / "out")]) == 0


def test_an_output_folder_that_cannot_be_made_is_an_error(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    path = write(tmp_path, QUICK.replace("output: out", "output: file/out"))
    assert main(["run", str(path)]) == 2
    assert "cannot create the output folder" in capsys.readouterr().err


def test_a_full_disk_is_reported_and_loses_nothing(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, QUICK)
    real = runner._Appender.append
    calls = []

    def append(self, record):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, record)

    monkeypatch.setattr(runner._Appender, "append", append)
    assert main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and len(err.strip().splitlines()) == 1
    results = tmp_path / "out" / "results.jsonl"
    assert len(read_run_ids(results)) == 1
    monkeypatch.setattr(runner._Appender, "append", real)
    assert run_experiment(path, progress=False).done == 2
    assert all(json.loads(x)["status"] == "sat" for x in results.read_text().splitlines())


def _free_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.timeout(30)  # Dask's own retries alone would take CONNECT_TIMEOUT (10 s)
def test_an_unreachable_dask_scheduler_exits_69_at_once(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    path = write(tmp_path, QUICK + f"executor: dask\nscheduler: {address}\n")
    assert main(["run", str(path)]) == EXIT_UNAVAILABLE == 69
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    # the probe's answer, not Dask's timeout: a refusal is known at the first try
    assert f"cannot reach the Dask scheduler {address}" in err and "connection refused" in err
    assert not read_run_ids(tmp_path / "out" / "results.jsonl")


def test_an_unknown_scheduler_host_is_unavailable_not_a_time_limit(tmp_path):
    pytest.importorskip("dask.distributed")
    with pytest.raises(ServiceUnavailable, match="unknown host") as info:
        runner._probe_scheduler("tcp://no-such-host.invalid:8786")
    assert isinstance(info.value, ResourceError)


# ---------------------------------------------------------------- exit codes that tell the truth
def test_a_search_cut_by_the_time_limit_exits_1_and_says_so(tmp_path, capsys):
    pytest.importorskip("ortools")
    path = tmp_path / "empty7.json"
    path.write_text(json.dumps({"kind": "latin-square", "size": 7,
                                "givens": [[0] * 7 for _ in range(7)]}))
    assert main(["solve", str(path), "--all", "--time-limit", "0.5", "--backend", "cpsat"]) == 1
    out = capsys.readouterr().out
    assert "stopped by the time limit" in out
    assert main(["solve", str(path), "--limit", "3", "--backend", "cpsat"]) == 0
    assert "(limit reached)" in capsys.readouterr().out


def test_a_seed_for_a_backend_without_seeds_is_refused(tmp_path, capsys):
    pytest.importorskip("pysat")
    path = tmp_path / "empty3.json"
    path.write_text(json.dumps({"kind": "latin-square", "size": 3,
                                "givens": [[0] * 3 for _ in range(3)]}))
    assert main(["solve", str(path), "--seed", "3", "--backend", "sat"]) == 2
    assert "takes no seed" in capsys.readouterr().err


def test_solver_imports_are_not_solve_time():
    # a backend's first call in a process: its package import is done before the clock
    import subprocess
    import sys

    code = ("import futocp, json; b = futocp.latin_square(3);"
            "r = futocp.solve(b, 'cpsat'); print(json.dumps(r.stats['wall_s']))")
    pytest.importorskip("ortools")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert float(out.stdout) < 0.5, out.stdout  # the import alone takes 0.6-1.3 s


# ---------------------------------------------------------------- -o robustness
def _instance(tmp_path):
    path = tmp_path / "sq.json"
    path.write_text(json.dumps({"kind": "latin-square", "size": 3,
                                "givens": [[1, 0, 0], [0, 0, 0], [0, 0, 0]]}))
    return path


@pytest.mark.parametrize("target", ["missing/out.json", "."])
def test_output_to_a_missing_folder_or_a_folder_is_one_line(tmp_path, capsys, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    assert main(["convert", str(_instance(tmp_path)), "--to", "json", "-o", target]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and len(err.strip().splitlines()) == 1


def test_outputs_get_the_ordinary_mode_and_keep_an_existing_one(tmp_path):
    import os
    import stat

    src = _instance(tmp_path)
    new = tmp_path / "new.json"
    old = os.umask(0o022)
    try:
        assert main(["convert", str(src), "--to", "json", "-o", str(new)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    new.chmod(0o640)
    assert main(["convert", str(src), "--to", "yaml", "-o", str(new)]) == 0
    assert stat.S_IMODE(new.stat().st_mode) == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".futocp-")]


# ---------------------------------------------------------------- commands with a time limit
def test_check_minimize_generate_take_a_time_limit(tmp_path, capsys):
    # an empty order-30 square has astronomically many solutions: check's search for a
    # second one ends at once, but asking for criticality of a nearly full square takes long
    path = tmp_path / "qwh.json"
    path.write_text(json.dumps({"kind": "latin-square", "size": 30,
                                "givens": [[0] * 30 for _ in range(30)]}))
    for argv in (["check", str(path)], ["minimize", str(path)]):
        code = main([*argv, "--time-limit", "0.001"])
        assert code in (1, 2), argv  # stopped by the limit (1) or not a puzzle at all (2)
    capsys.readouterr()
    assert main(["generate", "--family", "sudoku", "--size", "9", "--critical", "--seed", "1",
                 "--time-limit", "0.01"]) == 1
    assert "time limit" in capsys.readouterr().err


def test_time_limited_shares_one_deadline():
    from futocp.errors import TimeLimitReached
    from futocp.families import latin_square
    from futocp.puzzles import minimize, time_limited

    full = latin_square(9, [[(r + c) % 9 + 1 for c in range(9)] for r in range(9)])
    with pytest.raises(TimeLimitReached), time_limited(0.01):
        minimize(full, seed=1)


# ---------------------------------------------------------------- a broken family file
def test_a_broken_family_file_only_fails_the_commands_that_read_families(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "broken.yaml").write_text("name: broken\ndescription: x\n  bad: [\n")
    env = dict(os.environ, FUTOCP_MODELS=str(tmp_path))

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "futocp", *argv], env=env, text=True,
                              capture_output=True, timeout=120)

    ok = run("backends")
    assert ok.returncode == 0 and "listcolor" in ok.stdout
    bad = run("families")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert str(tmp_path / "broken.yaml") in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
