"""The experiment runner: config errors, isolation, kill and resume, Dask, reports.

Runs use the cpsat backend (two formulations as two variants) on small
generated instances, so the file stays within seconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from futocp.backends import REGISTRY
from futocp.errors import InputError
from futocp.experiments import load, parse_config, plan, report, run_experiment
from futocp.experiments.config import load_config
from futocp.experiments.isolate import run_isolated
from futocp.experiments.runner import read_run_ids

from .strategies import within

pytestmark = pytest.mark.skipif(REGISTRY["cpsat"].available() is not True,
                                reason="the runs use the cpsat backend")

ROOT = Path(__file__).resolve().parents[1]

SMALL = """\
name: small
instances:
  - generate: {family: futoshiki, size: 4, givens: 3, inequalities: 4, count: 2, seed: 5}
  - generate: {family: latin-square, size: 3, givens: 2, count: 1, seed: 9}
backends:
  - cpsat
  - {name: cpsat, options: {formulation: boolean}, label: cpsat-bool}
repetitions: 2
time_limit: 20
limit: 2
output: out
"""


def write(folder: Path, text: str, name: str = "exp.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def records(folder: Path) -> list[dict]:
    with open(folder / "results.jsonl") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ---------------------------------------------------------------- config errors
@pytest.mark.parametrize("text, where, words", [
    ("instances: []\nbackends: [cpsat]\nrepetitons: 3\n", (3, 1), ["unknown key 'repetitons'",
                                                                   "did you mean 'repetitions'"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\nbackends:\n  - {name: cpsat, "
     "lable: x}\n", (4, 19), ["backends[0]", "unknown key 'lable'"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\nbackends: [cpsat]\n"
     "repetitions: three\n", (4, 14), ["repetitions", "positive integer", "'three'"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\nbackends: [cpsat]\n"
     "time_limit: [1]\n", (4, 13), ["time_limit", "got a list"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\nbackends: [cpsat]\n"
     "filtering: [lists, sideways]\n", (4, 20), ["filtering", "'sideways'"]),
    ("instances:\n  - path: nowhere/*.json\nbackends: [cpsat]\n", (2, 11),
     ["instances[0].path", "no file matches 'nowhere/*.json'"]),
    ("instances:\n  - collection: missing.txt\nbackends: [cpsat]\n", (2, 17),
     ["instances[0].collection", "no such file 'missing.txt'"]),
    ("instances:\n  - generate: {family: latin-square, size: 3, colour: red}\n"
     "backends: [cpsat]\n", (2, 15), ["unknown generate key 'colour'"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\nbackends: [cpsat, nosuch]\n",
     (3, 19), ["backends[1]", "unknown backend 'nosuch'"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\nbackends:\n"
     "  - {name: cpsat, options: {formulation: circle}}\n", (4, 28),
     ["backends[0].options", "formulation", "circle"]),
    ("instances:\n  - generate: {family: latin-square, size: 3}\n", (1, 1),
     ["missing key 'backends'"]),
    ("backends: [cpsat]\ninstances:\n\t- path: x\n", (3, 1), ["invalid YAML", "'\\t'"]),
])
def test_config_errors_name_key_and_line(tmp_path: Path, text: str, where: tuple[int, int],
                                         words: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_config(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{where[0]}:{where[1]}: "), message
    assert "\n" not in message
    for word in words:
        assert word in message


def test_config_paths_are_relative_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "sub" / "inst").mkdir(parents=True)
    for name in ("a", "b"):
        (tmp_path / "sub" / "inst" / f"{name}.json").write_text(
            json.dumps({"kind": "latin-square", "size": 2, "givens": [[1, 0], [0, 0]]}))
    path = write(tmp_path / "sub", """\
        instances: [{path: inst/*.json}]
        backends: [cpsat]
        output: res/x
        """)
    cfg = load_config(path)
    assert [i.spec for i in cfg.instances] == [{"path": "inst/a.json"}, {"path": "inst/b.json"}]
    assert cfg.output == str(tmp_path / "sub" / "res" / "x")
    assert cfg.name == "exp"


def test_backends_all_and_groups(tmp_path: Path) -> None:
    cfg = parse_config("""
        instances:
          - generate: {family: latin-square, size: 3, count: 2}
            group: tiny
        backends: all
        """, base_dir=tmp_path)
    available = [n for n, cls in REGISTRY.items() if cls.available() is True]
    assert [b.label for b in cfg.backends] == available
    assert {r["group"] for r in plan(cfg)} == {"tiny"}
    assert {r["family"] for r in plan(cfg)} == {"latin-square"}


def test_a_variant_may_have_its_own_repetitions(tmp_path: Path) -> None:
    text = """
        instances:
          - generate: {family: latin-square, size: 3, count: 2, seed: 1}
        backends:
          - cpsat
        repetitions: 3
        """
    base = plan(parse_config(text, base_dir=tmp_path))
    more = plan(parse_config(text.replace(
        "- cpsat", "- cpsat\n          - {name: bt, label: once, repetitions: 1}"),
        base_dir=tmp_path))
    assert [r["label"] for r in more].count("once") == 2 and len(more) == 6 + 2
    assert {r["run_id"] for r in base} < {r["run_id"] for r in more}  # the others unchanged
    with pytest.raises(InputError, match="repetitions"):
        parse_config(text.replace("- cpsat", "- {name: bt, repetitions: 0}"), base_dir=tmp_path)


def test_plan_is_the_product_and_ids_are_stable(tmp_path: Path) -> None:
    cfg = parse_config(SMALL.replace("repetitions: 2", "repetitions: 2\nfiltering: [lists, none]"),
                       base_dir=tmp_path)
    runs = plan(cfg)
    assert len(runs) == 3 * 2 * 2 * 2
    assert len({r["run_id"] for r in runs}) == len(runs)
    again = plan(parse_config(SMALL.replace("repetitions: 2", "repetitions: 2\nfiltering: "
                                            "[lists, none]"), base_dir=tmp_path))
    assert [r["run_id"] for r in runs] == [r["run_id"] for r in again]


# ---------------------------------------------------------------- isolation
def _segfault(_: object) -> None:
    import ctypes

    ctypes.string_at(0)


@pytest.mark.parametrize("method", ["forkserver", "subprocess"])
def test_a_crash_costs_only_its_call(method: str) -> None:
    if method == "forkserver" and sys.platform == "win32":
        pytest.skip("no forkserver on Windows")
    out = run_isolated(_segfault, None, timeout=30, method=method)
    assert out.value is None and not out.killed
    assert "SIGSEGV" in out.error
    out = run_isolated(abs, -5, timeout=30, method=method)
    assert (out.value, out.error) == (5, None)
    out = run_isolated(abs, "x", timeout=30, method=method)
    assert out.error.startswith("TypeError")


def test_a_hanging_backend_is_recorded_unknown_within_its_limit(tmp_path: Path) -> None:
    # A real hang: CP-SAT asked for every solution of an empty 7x7 Latin square
    # (about 6 x 10^13 of them) with the time limit given to the runner only.
    path = write(tmp_path, """\
        instances: [{generate: {family: latin-square, size: 7, givens: 0}}]
        backends: [cpsat]
        limit: all
        time_limit: 1
        margin: 1
        backend_time_limit: false
        output: out
        """)
    summary = run_experiment(path, progress=False)
    assert summary.statuses == {"unknown": 1}
    (rec,) = records(tmp_path / "out")
    assert rec["status"] == "unknown" and "killed by the runner" in rec["reason"]
    assert rec["n_solutions"] == 0 and rec["verified"] is None
    assert 2.0 <= rec["runner_s"] < 2.0 + within(3.0)  # time limit + margin, and a little slack


# ---------------------------------------------------------------- run, kill, resume
@pytest.mark.slow
def test_killed_then_resumed_gives_one_record_per_run(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        instances: [{generate: {family: latin-square, size: 6, givens: 0, count: 5, seed: 3}}]
        backends: [cpsat]
        repetitions: 2
        limit: 1000
        time_limit: 30
        output: out
        """)
    results = tmp_path / "out" / "results.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "futocp", "run", str(path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the experiment ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_run_ids(results)
    assert 2 <= len(before) < 10

    summary = run_experiment(path, progress=False)
    assert summary.skipped == len(before) and summary.done == 10 - len(before)
    ids = [r["run_id"] for r in records(tmp_path / "out")]
    assert len(ids) == len(set(ids)) == 10
    assert set(ids) == {r["run_id"] for r in plan(load_config(path))}
    assert all(r["status"] == "sat" and r["n_solutions"] == 1000 and r["verified"]
               for r in records(tmp_path / "out"))

    again = run_experiment(path, progress=False)  # nothing left to do
    assert (again.done, again.skipped) == (0, 10)
    fresh = run_experiment(path, fresh=True, progress=False, workers=2)
    assert fresh.done == 10 and fresh.moved and os.path.exists(fresh.moved)


# ---------------------------------------------------------------- local vs Dask, reports
@pytest.fixture(scope="module")
def small_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small")
    run_experiment(write(folder, SMALL), progress=False)
    return folder / "out"


def test_records_are_complete_and_verified(small_results: Path) -> None:
    recs = records(small_results)
    assert len(recs) == 3 * 2 * 2
    for rec in recs:
        assert rec["status"] == "sat" and rec["verified"] is True
        assert rec["n_solutions"] in (1, 2) and rec["n_solutions"] <= rec["limit"]
        for key in ("run_id", "instance", "instance_hash", "family", "size", "backend", "label",
                    "options", "filtering", "repetition", "wall_s", "build_s", "solve_s",
                    "counters", "versions", "host"):
            assert key in rec
        assert rec["versions"]["futocp"] and rec["versions"]["ortools"]
    # both formulations agree on every instance's count
    by_instance: dict[str, set[int]] = {}
    for rec in recs:
        by_instance.setdefault(rec["instance_hash"], set()).add(rec["n_solutions"])
    assert all(len(counts) == 1 for counts in by_instance.values())


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_records(small_results: Path, tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    path = write(tmp_path, SMALL + "executor: dask\nworkers: 2\n")
    run_experiment(path, progress=False)
    same = ("run_id", "instance_hash", "label", "filtering", "repetition", "status",
            "n_solutions", "exhausted", "verified")

    def key(recs: list[dict]) -> list[tuple]:
        return sorted(tuple(r[k] for k in same) for r in recs)

    assert key(records(tmp_path / "out")) == key(records(small_results))


def test_report_writes_tables_and_plots(small_results: Path) -> None:
    summary = report(small_results, by="family,size")
    for name in ("summary.csv", "summary.md", "time_vs_size.png", "cactus.png"):
        assert (small_results / name).stat().st_size > 0
    assert (small_results / "cactus.png").read_bytes()[:4] == b"\x89PNG"
    assert list(summary["label"]) == ["cpsat", "cpsat-bool", "cpsat", "cpsat-bool"]
    assert summary["runs"].sum() == 12 and summary["solved"].sum() == 12
    assert {"wall_s_mean", "wall_s_std", "wall_s_median", "conflicts"} <= set(summary.columns)
    md = (small_results / "summary.md").read_text()
    assert "| family | size | cpsat | cpsat-bool |" in md  # seed 000's Table 1 layout
    df = load(small_results)
    assert len(df) == 12 and not df["disagreement"].any()
    with pytest.raises(Exception, match="no column 'colour'"):
        report(small_results, by="colour")


def test_cli_run_and_report_exit_codes(small_results: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from futocp.cli import main

    assert main(["report", str(small_results), "--by", "family", "--metric", "solve_s"]) == 0
    out = capsys.readouterr().out
    assert "| family | label | runs |" in out and "solve_s" in out
    assert main(["report", str(small_results), "--metric", "colour"]) == 2
    assert "no column 'colour'" in capsys.readouterr().err
    bad = write(tmp_path, "instances: []\nbackends: [cpsat]\n")
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:1:12: instances: the list is empty" in err


@pytest.mark.parametrize("columns", [64, 44])
def test_report_on_a_terminal_fits_its_width(small_results: Path, columns: int,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21: a terminal gets readable tables fitted to its width (rich); the
    Markdown, as wide as it needs, goes to summary.md."""
    from futocp.cli import main

    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["report", str(small_results)]) == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)  # no styles
    tables = out.split("wrote ")[0]
    assert max(len(line) for line in tables.splitlines()) <= columns
    assert "| family |" not in out and "cpsat" in tables and "solved" in tables
    md = (small_results / "summary.md").read_text()
    assert max(len(line) for line in md.splitlines()) > 64  # what a terminal used to get
    assert "| family | size | cpsat | cpsat-bool |" in md


def test_print_report_says_every_group_and_backend(small_results: Path) -> None:
    from rich.console import Console

    from futocp.experiments.report import print_report

    summary = report(small_results, by="family,size")
    console = Console(file=io.StringIO(), width=100, color_system=None)
    print_report(summary, console)
    text = console.file.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 100
    rows = [line.split() for line in text.splitlines()]
    for _, r in summary.iterrows():  # one row per group and backend, solved/runs
        assert [r["family"], str(r["size"]), r["label"], f"{r['solved']}/{r['runs']}"] in [
            row[:4] for row in rows]
    assert "conflicts=" in text  # the mean counters


def test_disagreeing_records_are_flagged(small_results: Path, tmp_path: Path) -> None:
    recs = records(small_results)
    target = recs[0]["instance_hash"]
    lied = False
    for rec in recs:  # one run claims its instance has no solution
        if rec["instance_hash"] == target and not lied:
            rec.update(status="unsat", n_solutions=0, exhausted=True, verified=None)
            lied = rec["run_id"]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs)
                                            + '{"torn')
    with pytest.warns(UserWarning, match="unreadable"):
        df = load(tmp_path / "results.jsonl")
    flagged = df[df["disagreement"]]
    assert lied in set(flagged["run_id"])
    assert set(flagged["instance_hash"]) == {target}


# ---------------------------------------------------------------- no orphans
def _marked_pids(mark: str) -> list[int]:
    """Processes whose environment carries ``FUTOCP_TEST_MARK=mark`` (Linux /proc)."""
    out = []
    needle = f"FUTOCP_TEST_MARK={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    with open(f"/proc/{entry}/stat") as st:
                        if st.read().split(") ")[-1].startswith("Z"):
                            continue  # a zombie is dead already
                    out.append(int(entry))
        except OSError:
            continue
    return out


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_killing_the_runner_leaves_no_process_behind(tmp_path: Path, sig: int) -> None:
    # CP-SAT enumerating an empty 7x7 Latin square runs for ever; no time limit at all
    path = write(tmp_path, """\
        instances: [{generate: {family: latin-square, size: 7, givens: 0}}]
        backends: [cpsat]
        limit: all
        output: out
        """)
    mark = f"{os.getpid()}-{sig}-{time.monotonic_ns()}"
    env = dict(os.environ, FUTOCP_TEST_MARK=mark,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "futocp", "run", str(path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_marked_pids(mark)) < 3:  # runner, server, run
        time.sleep(0.1)
    assert len(_marked_pids(mark)) >= 3, f"the run did not start (exit {proc.poll()})"
    time.sleep(0.5)
    proc.send_signal(sig)
    proc.wait(30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _marked_pids(mark):
        time.sleep(0.1)
    left = _marked_pids(mark)
    for pid in left:  # do not leave them to the next test
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left after {signal.Signals(sig).name}: {left}"
