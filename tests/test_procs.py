"""The one process layer (futocp.procs): start, wait for the first of several,
read, stop and reap, process groups, commands, crash reasons."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import pytest

from futocp import procs

from .strategies import within

pytestmark = pytest.mark.skipif(not procs.fork_available(), reason="needs fork")


def _after(conn, seconds: float, message: object) -> None:
    time.sleep(seconds)
    conn.send(message)


def _exit_with(conn, code: int) -> int:
    return code


def _group_leader(conn) -> None:
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    conn.send(helper.pid)
    time.sleep(60)


def _gone(pid: int, within: float = 5.0) -> bool:
    end = time.perf_counter() + within
    while time.perf_counter() < end:
        if not procs._alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_wait_any_answers_the_first_of_several_and_stop_all_reaps_the_rest() -> None:
    children = [procs.start(_after, (s, s), name=f"futocp-test-{s}") for s in (30, 0, 30)]
    try:
        t0 = time.perf_counter()
        ready = procs.wait_any(children, timeout=20)
        assert ready == [children[1]] and time.perf_counter() - t0 < within(15)
        assert children[1].receive() == 0
    finally:
        procs.stop_all(children)
    assert not any(procs._alive(c.pid) for c in children)
    assert all(c.exitcode is not None for c in children)  # reaped, codes kept


def test_a_child_ends_with_the_code_its_target_returns() -> None:
    child = procs.start(_exit_with, (3,), name="futocp-test-exit")
    assert procs.wait_any([child], timeout=20) == [child]
    with pytest.raises(EOFError):
        child.receive()  # it ended without a message
    assert procs.crash_reason(child.join(5)) == \
        "the solver process exited with code 3 without an answer"
    child.stop()
    child.stop()  # twice is harmless


def test_stopping_a_group_leader_kills_its_helpers() -> None:
    child = procs.start(_group_leader, name="futocp-test-group", own_group=True)
    try:
        assert child.conn.poll(20)
        helper = child.receive()
        assert procs._alive(helper)
    finally:
        child.stop()
    assert _gone(child.pid) and _gone(helper)


def test_a_command_past_its_timeout_is_killed() -> None:
    command = procs.Command.python("futocp.experiments.isolate")
    t0 = time.perf_counter()
    assert command.communicate(pickle.dumps((time.sleep, 60)), timeout=0.5) is None
    assert time.perf_counter() - t0 < within(10)
    command.stop()
    assert command.returncode is not None and not procs._alive(command.pid)


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_a_command_past_its_timeout_dies_with_what_it_started() -> None:
    # like minizinc, which runs its solver as a child of its own
    command = procs.Command(["sh", "-c", "echo started; echo $$ >&2; sleep 60 & wait"])
    try:
        assert command.communicate(b"", timeout=0.5) is None
    finally:
        command.stop()
    stdout, stderr = command.partial
    assert stdout == b"started\n"
    shell = int(stderr)
    assert _gone(shell)
    deadline = time.monotonic() + 5
    while True:  # the killed sleep is reaped by whoever adopted it
        left = subprocess.run(["pgrep", "-s", str(command.pid)], capture_output=True).stdout
        if not left.strip() or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert left.strip() == b""


def test_crash_reasons() -> None:
    assert procs.crash_reason(-11) == "the solver process died of SIGSEGV"
    assert procs.crash_reason(-9, "the run's process", oom_hint=True) == \
        "the run's process died of SIGKILL (out of memory?)"
    assert procs.crash_reason(-9) == "the solver process died of SIGKILL"
    assert procs.crash_reason(2, "the run's process", stderr="a\nlast words\n") == \
        "the run's process exited with code 2 without an answer: last words"


def test_run_child_keeps_what_came_before_the_deadline() -> None:
    def emit_then_hang(emit, n):
        for i in range(n):
            emit(("solution", i))
        time.sleep(60)

    out = procs.run_child(emit_then_hang, (3,), deadline=0.5)
    assert out.timed_out and not out.returned and out.error is None
    assert out.messages == [("solution", 0), ("solution", 1), ("solution", 2)]
    crashed = procs.run_child(lambda emit: os._exit(5))
    assert crashed.crashed and crashed.exitcode == 5
    assert crashed.error == procs.crash_reason(5)
