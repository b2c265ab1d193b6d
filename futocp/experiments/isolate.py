"""Run one function call in a fresh process that can be killed.

:func:`run_isolated` calls ``func(arg)`` in a new process of its own process
group and waits at most ``timeout`` seconds; the process dies with its
parent (:func:`futocp.procs.start`), so killing the runner in
any way leaves no run behind. A call that overruns is killed
with its whole process group (solver helpers included); a call that crashes
(a segfault in a C extension, an out-of-memory kill, ``os._exit``) costs that
call only. Either way the caller gets an :class:`Outcome` saying what
happened, never an exception from the child.

Two ways to start the process, the same outcome:

* ``forkserver`` (POSIX, the default where allowed): a fork of a server
  process that has already imported futocp and the solver packages, so a run
  starts in milliseconds;
* ``subprocess``: ``python -m futocp.experiments.isolate``, used where
  :mod:`multiprocessing` may not start children (a daemonic process such as a
  Dask worker) or on platforms without ``fork``.

``func`` and ``arg`` must be picklable (``func`` a module-level function).

Example:
    >>> out = run_isolated(abs, -3, timeout=30)
    >>> out.value, out.error, out.killed
    (3, None, False)
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..procs import Child, Command, crash_reason, die_with_parent, start

__all__ = ["Outcome", "run_isolated", "kill_all", "reset_kill_all", "default_method", "PRELOAD"]

#: Modules the fork server imports once, so that each run starts warm. Each child
#: runs the parent's main script again (multiprocessing's rule); the ``futocp``
#: script imports ``futocp.cli``, which would cost every run of ``futocp run``
#: about 0.09 s (0.15 s a run instead of 0.06 s) if the server had not imported it.
PRELOAD = ["futocp", "futocp.experiments.runner", "futocp.backends", "futocp.cli",
           "ortools.sat.python.cp_model", "pysat.solvers", "pysat.card", "constraint"]

_RUN = "the run's process"  # as crash reasons name it

_live: dict[int, Child | Command] = {}  # pid -> process handle, for kill_all
_lock = threading.Lock()
_closing = threading.Event()  # set by kill_all: calls starting after it are killed at once


@dataclass
class Outcome:
    """What became of an isolated call.

    Attributes:
        value: ``func(arg)``, when it returned.
        error: Why there is no value (an exception in the child, a crash, a kill), or None.
        killed: True when the call overran its timeout and was killed.
        elapsed: Seconds from start to end, as the parent saw them.
        method: ``forkserver`` or ``subprocess``.
    """

    value: Any = None
    error: str | None = None
    killed: bool = False
    elapsed: float = 0.0
    method: str = ""


def default_method() -> str:
    """``forkserver`` where this process may start children that way, else ``subprocess``."""
    daemon = multiprocessing.current_process().daemon
    if os.name == "posix" and not daemon and "forkserver" in multiprocessing.get_all_start_methods():
        return "forkserver"
    return "subprocess"


def _track(handle: Child | Command) -> None:
    """Keep ``handle`` for :func:`kill_all`; kill it at once when that has begun."""
    with _lock:
        _live[handle.pid] = handle
    if _closing.is_set():
        handle.kill()


def _untrack(handle: Child | Command) -> None:
    with _lock:
        _live.pop(handle.pid, None)


def kill_all() -> None:
    """Kill every isolated call still running in this process (on interrupt), and
    every call that starts from now on (a thread may be starting one right now)."""
    _closing.set()
    with _lock:
        handles = list(_live.values())
    for handle in handles:
        handle.kill()


def reset_kill_all() -> None:
    """Let isolated calls start again after :func:`kill_all` (a new experiment)."""
    _closing.clear()


def _child_main(conn: Any, func: Callable[[Any], Any], arg: Any) -> None:
    """Forkserver child (:func:`futocp.procs.start`: its own process group, dead with
    the process that asked for the call): call, send ("ok", value) or ("raise", text)."""
    try:
        message = ("ok", func(arg))
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        message = ("raise", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        conn.send(("raise", f"cannot send the answer back: {exc}"))


def run_isolated(func: Callable[[Any], Any], arg: Any, timeout: float | None,
                 method: str | None = None) -> Outcome:
    """Call ``func(arg)`` in a fresh process, killed after ``timeout`` seconds.

    Args:
        func: A picklable (module-level) function.
        arg: Its picklable argument.
        timeout: Seconds, or None to wait for ever.
        method: ``forkserver`` or ``subprocess`` (default: :func:`default_method`).

    Returns:
        The :class:`Outcome`.
    """
    method = method or default_method()
    if method == "forkserver":
        return _run_forkserver(func, arg, timeout)
    if method == "subprocess":
        return _run_subprocess(func, arg, timeout)
    raise ValueError(f"unknown method {method!r}")


def _run_forkserver(func: Callable[[Any], Any], arg: Any, timeout: float | None) -> Outcome:
    t0 = time.perf_counter()
    child = start(_child_main, (func, arg), name="futocp-run", method="forkserver",
                  own_group=True, preload=PRELOAD)
    _track(child)
    out = Outcome(method="forkserver")
    answered = False
    try:
        if child.conn.poll(timeout):
            try:
                kind, value = child.receive()
                answered = True
                if kind == "ok":
                    out.value = value
                else:
                    out.error = value
            except (EOFError, OSError):
                out.error = crash_reason(child.join(5), _RUN, oom_hint=True)
        else:
            out.killed = True
            out.error = f"killed after {timeout:g} s"
        out.elapsed = time.perf_counter() - t0
    finally:
        if answered:
            child.join(5)  # it exits right after answering
        if out.killed:
            child.kill()
        child.stop()
        _untrack(child)
    return out


def _run_subprocess(func: Callable[[Any], Any], arg: Any, timeout: float | None) -> Outcome:
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    t0 = time.perf_counter()
    command = Command.python("futocp.experiments.isolate", path=[package_root])
    _track(command)
    out = Outcome(method="subprocess")
    try:
        answer = command.communicate(pickle.dumps((func, arg)), timeout)
        out.elapsed = time.perf_counter() - t0
        if answer is None:
            out.killed = True
            out.error = f"killed after {timeout:g} s"
            return out
        stdout, stderr = answer
        try:
            kind, value = pickle.loads(stdout)
        except Exception:  # noqa: BLE001 - no answer: a crash
            out.error = crash_reason(command.returncode, _RUN, oom_hint=True,
                                     stderr=stderr.decode("utf-8", "replace"))
            return out
        if kind == "ok":
            out.value = value
        else:
            out.error = value
        return out
    finally:
        command.stop()
        _untrack(command)


def _subprocess_main() -> None:
    """``python -m futocp.experiments.isolate``: (func, arg) pickled on stdin, answer on stdout."""
    die_with_parent(own_group=True)
    answer = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # solver output goes to stderr
    for name in PRELOAD:  # as the fork server does: solver imports are not a run's time
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    func, arg = pickle.loads(sys.stdin.buffer.read())
    try:
        message = ("ok", func(arg))
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        message = ("raise", f"{type(exc).__name__}: {exc}")
    answer.write(pickle.dumps(message))
    answer.close()


if __name__ == "__main__":
    _subprocess_main()
