"""The one process layer: every child process futocp starts, waits for and stops.

Solvers run in child processes -- a backend's C code under a time or memory
limit, the python-constraint search, the portfolio members of ``auto``, the
workers of the parallel searches, the experiment runner's isolated runs --
and all of them are started, watched and stopped here:

* :func:`start` starts a child (a fork of this process: it inherits whatever
  was built, nothing is pickled on the way in; ``spawn`` where ``fork`` is
  missing; a warm fork server's child for the runner) that dies with its
  parent (:func:`die_with_parent`) and talks through a pipe; the
  :class:`Child` is read (:meth:`Child.receive`), waited for with others
  (:func:`wait_any`: the first of several to speak or end), and stopped and
  reaped (:meth:`Child.stop`, :func:`stop_all`), its process group too when
  it leads one;
* :func:`run_child` runs one call in a child with a deadline and a memory
  limit, streams the call's messages back and keeps those sent before a
  kill (:class:`ChildOutcome`; :func:`read_messages` folds a solver's);
* :class:`Command` runs ``python -m module`` in a session of its own, where
  :mod:`multiprocessing` may not start children (a daemonic process);
* the memory limit (:func:`limit_memory`, :func:`usage_mb`, :func:`rss_mb`,
  :func:`available_mb`, :func:`memory_reason`) and the crash reasons
  (:func:`crash_reason`) are worded here once.

Example:
    >>> def work(emit, n):
    ...     emit(("step", 1))
    ...     return n * 2
    >>> out = run_child(work, (21,), deadline=None)
    >>> out.value, out.messages, out.timed_out, out.memory
    (42, [('step', 1)], False, False)
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.util  # (its exit handler, which joins children, must run after ours)
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import errors
from .errors import FutocpError, SolverError

__all__ = [
    "die_with_parent", "signals_as_interrupt",
    "limit_memory", "available_mb", "rss_mb", "usage_mb", "memory_reason", "MEMORY_EXIT",
    "POLL_S", "crash_reason",
    "start_method", "fork_available", "Child", "start", "wait_any", "stop_all", "Command",
    "ChildOutcome", "run_child", "read_messages", "in_child", "close_worker", "RECYCLE_MB",
]

# ---------------------------------------------------------------- dying with the parent

_WATCH_S = 0.25  # how often the watchdog of die_with_parent looks at the parent


def _set_pdeathsig() -> None:
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True  # no /proc: trust kill(0)


def die_with_parent(own_group: bool = False, owner: int | None = None) -> None:
    """Make this (child) process die when its parent dies, whatever kills the parent.

    On Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` makes the kernel kill the
    child; everywhere, a daemon thread polls the parent and, once this process
    has been re-parented, kills it (its process group with ``own_group``).
    :func:`start` calls it first thing in every child.

    Args:
        own_group: The child leads its own process group (it called
            ``os.setsid()``): on the parent's death the watchdog kills the whole
            group, the child's helpers included; else the child alone.
        owner: The process whose death ends the child, when it is not the
            parent (a child forked by a fork server dies with the process that
            asked for it, not with the server).
    """
    parent = os.getppid()
    _set_pdeathsig()
    if parent == 1 or (owner is not None and not _alive(owner)):  # already orphaned
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(_WATCH_S)
            if os.getppid() != parent or (owner is not None and not _alive(owner)):
                if own_group and hasattr(os, "killpg"):
                    with contextlib.suppress(OSError):
                        os.killpg(os.getpgrp(), signal.SIGKILL)
                os._exit(1)

    threading.Thread(target=watch, name="futocp-watchdog", daemon=True).start()


@contextlib.contextmanager
def signals_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise KeyboardInterrupt (main thread only),
    so that the cleanup written for Ctrl-C (stopping the children) runs for them too.

    Example:
        >>> with signals_as_interrupt():
        ...     pass
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [n for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    old: dict[int, Any] = {}

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for name in names:
        sig = getattr(signal, name)
        old[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


# ---------------------------------------------------------------- memory

MEMORY_EXIT = 86
"""Exit code of a child that ran out of memory and could not say so through the pipe."""

POLL_S = 0.02
"""How often (seconds) the parent looks at a memory-limited child's resident size."""


def memory_reason(limit_mb: float, held_mb: float | None = None) -> str:
    """The reason recorded for a run stopped by its memory limit (``held_mb``: what
    the process held before it started, when that alone is past the limit).

    Example:
        >>> memory_reason(512)
        'memory limit of 512 MB reached'
        >>> memory_reason(50, 131.2)
        'memory limit of 50 MB reached (the solving process holds 131 MB before it starts)'
    """
    reason = f"memory limit of {limit_mb:g} MB reached"
    if held_mb is not None:
        reason += f" (the solving process holds {held_mb:.0f} MB before it starts)"
    return reason


def limit_memory(limit_mb: float | None) -> None:
    """Cap this process's memory at ``limit_mb`` MB (no-op for None).

    Linux: ``RLIMIT_DATA`` (heap and private writable mappings: what the
    process allocates, not the shared libraries it maps; an allocation past it
    fails, a :class:`MemoryError` in Python); elsewhere ``RLIMIT_AS``. Never
    raises: a platform without :mod:`resource` keeps only the parent's polling.
    """
    if limit_mb is None:
        return
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        which = resource.RLIMIT_DATA if sys.platform.startswith("linux") else resource.RLIMIT_AS
        cap = int(limit_mb * 2 ** 20)
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(which, (cap, hard))


def available_mb() -> float | None:
    """The memory this machine can still give (Linux ``MemAvailable``), in MB, or None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def rss_mb(pid: int) -> float | None:
    """The resident size of process ``pid`` in MB (Linux ``/proc``), or None."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except (OSError, ValueError, IndexError):
        return None


def usage_mb(pid: int | str = "self") -> float | None:
    """What process ``pid`` holds in MB as its memory limit counts it: the larger of
    its resident size and its data segment (Linux ``/proc``), or None."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            sizes = [int(line.split()[1]) / 1024 for line in fh
                     if line.startswith(("VmRSS:", "VmData:"))]
    except (OSError, ValueError, IndexError):
        return None
    return max(sizes) if sizes else None


# ---------------------------------------------------------------- crash reasons

def crash_reason(exitcode: int | None, process: str = "the solver process", *,
                 oom_hint: bool = False, stderr: str = "") -> str:
    """Why a child ended without an answer, from its exit code.

    Args:
        exitcode: The child's exit code (negative: the signal that killed it).
        process: What the child is, as the sentence names it.
        oom_hint: Add ``(out of memory?)`` to a death by SIGKILL (what the
            kernel's out-of-memory killer sends).
        stderr: The child's error output: its last line is quoted.

    Example:
        >>> crash_reason(-11)
        'the solver process died of SIGSEGV'
        >>> crash_reason(-9, "the run's process", oom_hint=True, stderr="boom\\n")
        "the run's process died of SIGKILL (out of memory?): boom"
    """
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if oom_hint and name == "SIGKILL" else ""
        reason = f"{process} died of {name}{hint}"
    else:
        reason = f"{process} exited with code {exitcode} without an answer"
    tail = stderr.strip().splitlines()[-1:] if stderr else []
    return reason + (f": {tail[0][:300]}" if tail else "")


# ---------------------------------------------------------------- children

def start_method() -> str:
    """``fork`` where this platform has it, else ``spawn``."""
    return "fork" if fork_available() else "spawn"


def fork_available() -> bool:
    """Whether children can be forked here (they then inherit what this process built)."""
    return "fork" in multiprocessing.get_all_start_methods()


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):  # a forked child must not print them again
        with contextlib.suppress(Exception):
            stream.flush()


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


class Child:
    """A child process started by :func:`start`, and this end of its pipe.

    Attributes:
        conn: This end of the pipe (:meth:`receive` reads it; :func:`wait_any`
            says when it is ready).
        name: The child's process name.
        pid: Its process id.
    """

    def __init__(self, proc: Any, conn: Any, own_group: bool) -> None:
        self._proc = proc
        self._own_group = own_group
        self._stopped = False
        self._code: int | None = None  # the exit code, once the process object is closed
        self.conn = conn
        self.name: str = proc.name
        self.pid: int = proc.pid

    @property
    def sentinel(self) -> int:
        """A handle that becomes ready when the child ends."""
        return int(self._proc.sentinel)

    @property
    def exitcode(self) -> int | None:
        """The exit code (negative: the signal that killed it), or None while it runs."""
        try:
            code: int | None = self._proc.exitcode
        except ValueError:  # reaped and closed
            return self._code
        return code

    def alive(self) -> bool:
        """Whether the child still runs."""
        return bool(self._proc.is_alive())

    def join(self, timeout: float | None = None) -> int | None:
        """Wait at most ``timeout`` seconds for the child to end; its exit code, or None."""
        self._proc.join(timeout)
        return self.exitcode

    def send(self, message: Any) -> None:
        """Send a picklable message to the child (a duplex pipe)."""
        self.conn.send(message)

    def receive(self) -> Any:
        """The next message; waits for one. Raises EOFError (or OSError) when the
        child closed its end: it ended, or died, without sending more."""
        return self.conn.recv()

    def kill(self) -> None:
        """Kill the child at once (SIGKILL), with its process group when it leads one."""
        with contextlib.suppress(Exception):
            if self._own_group and os.name == "posix":
                _kill_group(self.pid)
            elif self._proc.exitcode is None:
                self._proc.kill()

    def stop(self, background: bool = False) -> None:
        """Kill the child if it still runs, close this end of the pipe, and reap it
        (``background``: in a thread, so that the caller does not wait for the
        kernel to free the gigabytes of a big solver). Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        with contextlib.suppress(Exception):
            if self._proc.is_alive():
                self.kill()
        with contextlib.suppress(Exception):
            self.conn.close()
        proc = self._proc

        def reap() -> None:
            with contextlib.suppress(Exception):
                proc.join()
                self._code = proc.exitcode
                proc.close()

        if background and proc.exitcode is None:
            threading.Thread(target=reap, name="futocp-reaper", daemon=True).start()
        else:
            reap()


def _enter(conn: Any, target: Callable[..., int | None], args: Sequence[Any], own_group: bool,
           owner: int | None) -> None:
    """First thing in every child: its own session (``own_group``), die with the
    parent (or ``owner``), run ``target(conn, *args)``, exit with what it returns."""
    code = 1
    try:
        if own_group:
            with contextlib.suppress(OSError):
                os.setsid()
        die_with_parent(own_group=own_group, owner=owner)
        code = target(conn, *args) or 0
    except BaseException:  # noqa: BLE001 - the child's end: say why on its stderr
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            conn.close()
        _flush_std()
        os._exit(code)  # no atexit handlers of the parent's in the child


_preloaded: set[str] = set()


def start(target: Callable[..., int | None], args: Sequence[Any] = (), *, name: str,
          method: str | None = None, duplex: bool = False, own_group: bool = False,
          daemon: bool = False, preload: Sequence[str] = ()) -> Child:
    """Start ``target(conn, *args)`` in a child process that dies with this one.

    Args:
        target: A module-level function (picklable unless ``method`` is ``fork``);
            ``conn`` is the child's end of the pipe. What it returns is the
            child's exit code (None: 0); the child exits when it returns.
        args: Its other arguments.
        name: The child's process name.
        method: ``fork``, ``spawn`` or ``forkserver`` (default :func:`start_method`).
            A fork server's child dies with this process, not with the server.
        duplex: A two-way pipe (the parent sends too: :meth:`Child.send`);
            otherwise the child only writes.
        own_group: The child leads a session and process group of its own, which
            :meth:`Child.kill` kills whole (its solver helpers included).
        daemon: A daemonic child (it may not start children of its own).
        preload: Modules the fork server imports once (``forkserver``; the first
            call's list holds).

    Returns:
        The :class:`Child`.
    """
    method = method or start_method()
    ctx: Any = multiprocessing.get_context(method)
    if preload and method == "forkserver" and not _preloaded:
        ctx.set_forkserver_preload(list(preload))
        _preloaded.update(preload)
    mine, theirs = ctx.Pipe(duplex=duplex)
    owner = os.getpid() if method == "forkserver" else None
    proc = ctx.Process(target=_enter, args=(theirs, target, tuple(args), own_group, owner),
                       name=name, daemon=daemon)
    _flush_std()
    try:
        proc.start()
    finally:
        theirs.close()
    return Child(proc, mine, own_group)


def wait_any(children: Iterable[Child], timeout: float | None = None) -> list[Child]:
    """Wait at most ``timeout`` seconds (None: for ever) until one of ``children``
    has a message or has ended; those that have, in the given order."""
    handles: dict[Any, Child] = {}
    for child in children:
        handles[child.conn] = child
        handles[child.sentinel] = child
    ready = {handles[h] for h in multiprocessing.connection.wait(list(handles), timeout)}
    return [c for c in dict.fromkeys(handles.values()) if c in ready]


def stop_all(children: Sequence[Child], grace: float = 0.0) -> None:
    """Give ``children`` up to ``grace`` seconds together to end by themselves, then
    kill those still running, and reap them all."""
    end = time.perf_counter() + grace
    for child in children:
        with contextlib.suppress(Exception):
            child.join(max(0.0, end - time.perf_counter()))
    for child in children:  # all at once: each takes a moment to die
        with contextlib.suppress(Exception):
            if child.alive():
                child.kill()
    for child in children:
        child.stop()


class Command:
    """A program in a session of its own (POSIX), killed with everything it
    started: ``python -m module`` for where :mod:`multiprocessing` may not start
    children or ``fork`` is missing (:meth:`python`), or an external solver. It
    talks through its standard input and output.

    Args:
        argv: The program and its arguments.
        env: Its environment (default: this process's).
    """

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self._posix = os.name == "posix"
        self._proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, env=env,
                                      start_new_session=self._posix)
        self.pid: int = self._proc.pid
        self.partial: tuple[bytes, bytes] = (b"", b"")

    @classmethod
    def python(cls, module: str, path: Sequence[str] = ()) -> Command:
        """``python -m module`` with ``path`` put before ``PYTHONPATH`` (where futocp is found)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [*path, env.get("PYTHONPATH")]))
        return cls([sys.executable, "-m", module], env)

    @property
    def returncode(self) -> int | None:
        """The exit code (negative: the signal that killed it), or None while it runs."""
        return self._proc.returncode

    def communicate(self, data: bytes, timeout: float | None) -> tuple[bytes, bytes] | None:
        """Write ``data`` to its input and read its output and error output until it
        ends; None when it ran past ``timeout`` seconds (it is then killed, and
        what it wrote until then is in :attr:`partial`)."""
        try:
            stdout, stderr = self._proc.communicate(data, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            self.partial = self._proc.communicate()
            return None
        return stdout, stderr

    def kill(self) -> None:
        """Kill it at once, with its process group."""
        _kill_group(self.pid) if self._posix else self._proc.kill()

    def stop(self) -> None:
        """Kill it if it still runs, and reap it."""
        if self._proc.poll() is None:
            self.kill()
            self._proc.wait()


# ---------------------------------------------------------------- a call in a child

_in_child = False


def in_child() -> bool:
    """True inside a child started by :func:`run_child`."""
    return _in_child


@dataclass
class ChildOutcome:
    """What became of a :func:`run_child` call.

    Attributes:
        messages: What the child emitted, in order (also those sent before a kill).
        value: The child function's return value, when it returned.
        returned: True when the child function returned.
        timed_out: True when the child was killed at the deadline.
        memory: True when the memory limit stopped the child.
        error: Why the child gave no value: an exception's ``Type: message`` or a
            crash (:func:`crash_reason`); None when it returned or was stopped by
            a limit.
        exception: A :class:`~futocp.errors.FutocpError` the child raised (rebuilt
            here), for the caller to raise again.
        crashed: True when the child ended without its end message (``exitcode``:
            how it ended, when known).
        exitcode: The exit code of a crashed child.
        peak_mb: The largest size seen (:func:`usage_mb`; memory-limited runs on Linux).
        held_mb: Set (with ``memory``) when this process alone already held more
            than the memory limit, so that no child was started.
        elapsed: Seconds from start to end.
    """

    messages: list[Any] = field(default_factory=list)
    value: Any = None
    returned: bool = False
    timed_out: bool = False
    memory: bool = False
    error: str | None = None
    exception: FutocpError | None = None
    crashed: bool = False
    exitcode: int | None = None
    peak_mb: float | None = None
    held_mb: float | None = None
    elapsed: float = 0.0

    def memory_reason(self, limit_mb: float) -> str:
        """The reason to record when ``memory`` is set."""
        return memory_reason(limit_mb, self.held_mb)

    def raise_for_error(self, what: str) -> None:
        """Raise the child's FutocpError again, or a SolverError for a crash
        (``what`` names the solver in the message)."""
        if self.exception is not None:
            raise self.exception
        if self.error is not None:
            raise SolverError(f"{what}: {self.error}")


def _rebuild(kind: str, message: str) -> FutocpError:
    cls = getattr(errors, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, FutocpError)):
        cls = FutocpError
    try:
        return cls(message)
    except TypeError:
        return FutocpError(message)


def _call_ready(memory_limit: float | None) -> None:
    """First thing in a :func:`run_child` child: mark it, cap memory; a crash is
    reported by the parent (SolverError), so no faulthandler dump of the parent's threads."""
    global _in_child
    _in_child = True
    with contextlib.suppress(Exception):
        import faulthandler

        faulthandler.disable()
    limit_memory(memory_limit)


def _run_task(conn: Any, func: Callable[..., Any], args: Sequence[Any]) -> bool:
    """Call ``func(emit, *args)`` and send its end message; False when this
    process ran out of memory (it should not take another task)."""

    def emit(message: Any) -> None:
        conn.send(("msg", message))

    try:
        end: tuple[Any, ...] = ("return", func(emit, *args))
    except MemoryError:
        end = ("memory",)
    except FutocpError as exc:
        end = ("raise", type(exc).__name__, str(exc))
    except KeyboardInterrupt:
        end = ("error", "interrupted")
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        end = ("error", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(end)
    except MemoryError:
        return False
    except Exception as exc:  # noqa: BLE001 - an answer that cannot be pickled
        conn.send(("error", f"cannot send the answer back: {exc}"))
    return bool(end[0] != "memory")


def _call_main(conn: Any, func: Callable[..., Any], args: Sequence[Any],
               memory_limit: float | None) -> int:
    """A one-off :func:`run_child` child: cap memory, run the task; its exit code."""
    try:
        _call_ready(memory_limit)
        return 0 if _run_task(conn, func, args) else MEMORY_EXIT
    except MemoryError:
        return MEMORY_EXIT


def _serve_main(conn: Any, memory_limit: float | None) -> int:
    """A reusable child (:class:`_Worker`): run tasks until the pipe closes; its exit code."""
    try:
        _call_ready(memory_limit)
        while True:
            try:
                func, args = conn.recv()
            except (EOFError, OSError):
                return 0
            if not _run_task(conn, func, args):
                return MEMORY_EXIT
    except MemoryError:
        return MEMORY_EXIT


RECYCLE_MB = 256.0
"""A reused child that has grown this many MB since it started is replaced."""


class _Worker:
    """A child process that runs one task after another (cheap isolation for many
    small solves: a task costs a pickled message, not a process start)."""

    def __init__(self, memory_limit: float | None) -> None:
        self.memory_limit = memory_limit
        self.modules = len(sys.modules)  # what it has imported (a fork: what we had)
        self.child = start(_serve_main, (memory_limit,), name="futocp-solver-worker",
                           duplex=True)
        self.base_mb = rss_mb(self.child.pid) or 0.0

    def stale(self, memory_limit: float | None) -> bool:
        """True when it should be replaced: another memory limit, dead, or this
        process has imported modules since (a solver package, say: a new fork
        has it for free, the worker would import it again on every first use)."""
        return (self.memory_limit != memory_limit or not self.child.alive()
                or len(sys.modules) > self.modules)

    def healthy(self) -> bool:
        if not self.child.alive():
            return False
        size = rss_mb(self.child.pid)
        if size is None:
            return True
        if self.memory_limit is not None and size > 0.5 * self.memory_limit:
            return False
        return size - self.base_mb < RECYCLE_MB

    def close(self) -> None:
        self.child.stop(background=True)


_worker: _Worker | None = None
_worker_lock = threading.Lock()


def _take_worker(memory_limit: float | None) -> _Worker | None:
    """This process's reusable worker for ``memory_limit`` (started if need be), or
    None when another thread is using it."""
    global _worker
    if not _worker_lock.acquire(blocking=False):
        return None
    try:
        if _worker is not None and _worker.stale(memory_limit):
            _worker.close()
            _worker = None
        if _worker is None:
            _worker = _Worker(memory_limit)
            atexit.unregister(_close_worker)  # registered last, so that it runs first
            atexit.register(_close_worker)
        return _worker
    except BaseException:
        _worker_lock.release()
        raise


def _give_back(worker: _Worker, keep: bool) -> None:
    global _worker
    try:
        if not keep or not worker.healthy():
            worker.close()
            if _worker is worker:
                _worker = None
    finally:
        _worker_lock.release()


def close_worker() -> None:
    """Stop this process's reusable child, if there is one (it starts again when needed)."""
    with _worker_lock:
        _close_worker()


def _close_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.close()
        _worker = None


atexit.register(_close_worker)  # after multiprocessing's: runs before it


def run_child(func: Callable[..., Any], args: Sequence[Any] = (), *,
              deadline: Any = None, memory_limit: float | None = None,
              name: str = "futocp-solver", reuse: bool = False,
              method: str | None = None) -> ChildOutcome:
    """Run ``func(emit, *args)`` in a child process; kill it at the deadline.

    The child's data segment is capped at the memory limit (:func:`limit_memory`)
    and the parent polls its resident size and kills it past the limit; either
    way the outcome says ``memory``. A crash (a signal, an exit without an
    answer) is reported, never raised; a :class:`~futocp.errors.FutocpError`
    raised in the child comes back as ``exception``, same class and message.

    Args:
        func: A module-level function (picklable where ``fork`` is missing). It
            gets ``emit`` first: ``emit(message)`` sends a picklable message to
            the parent at once.
        args: Its other arguments.
        deadline: A :class:`~futocp.backends.base.Deadline` (or anything with an
            ``end``), a number of seconds, or None (no time limit).
        memory_limit: MB the child may hold, or None.
        name: The child's process name.
        reuse: Run in this process's reusable child (started on first use,
            replaced after a kill, a crash or growth past :data:`RECYCLE_MB`):
            ``func`` and ``args`` are pickled to it, and it does not see changes
            made here after it started. Otherwise a fresh child, which sees
            everything (a fork).
        method: The start method of a fresh child (default :func:`start_method`).

    Returns:
        The :class:`ChildOutcome` (never raises for what happened in the child).
    """
    if isinstance(deadline, (int, float)):
        end: float | None = time.perf_counter() + deadline
    elif deadline is not None and getattr(deadline, "end", None) is not None:
        end = deadline.end
    else:
        end = None
    out = ChildOutcome()
    t0 = time.perf_counter()
    if memory_limit is not None:
        held = usage_mb()
        if held is not None and held >= memory_limit:  # a child could not allocate a byte
            out.memory, out.held_mb = True, held
            return out
    worker = _take_worker(memory_limit) if reuse else None
    if worker is not None:
        try:
            worker.child.send((func, tuple(args)))
        except Exception:  # noqa: BLE001 - not picklable: a fresh fork instead
            _give_back(worker, keep=worker.child.alive())
            worker = None
    child = (worker.child if worker is not None else
             start(_call_main, (func, tuple(args), memory_limit), name=name, method=method))
    finished = False
    try:
        finished = _collect(child, end, memory_limit, out)
    finally:
        if worker is not None:
            _give_back(worker, keep=finished and out.error is None and not out.memory)
        else:
            child.stop(background=True)
    out.elapsed = time.perf_counter() - t0
    return out


def _take(child: Child, memory_limit: float | None, out: ChildOutcome) -> bool:
    """Read one message of ``child`` into ``out``; True when it ends the call."""
    try:
        msg = child.receive()
    except (EOFError, OSError):  # the child died before its end message
        out.crashed, out.exitcode = True, child.join(5)
        if out.exitcode == MEMORY_EXIT and memory_limit is not None:
            out.memory = True
        elif memory_limit is not None and _near(out.peak_mb, memory_limit):
            out.memory = True  # died in C code at the cap (e.g. std::bad_alloc)
        else:
            out.error = crash_reason(out.exitcode)
        return True
    except Exception as exc:  # noqa: BLE001 - a message that cannot be unpickled
        out.error = f"an unreadable message from the solver process: {exc}"
        return True
    kind = msg[0]
    if kind == "msg":
        out.messages.append(msg[1])
        return False
    if kind == "return":
        out.value, out.returned = msg[1], True
    elif kind == "memory":
        out.memory = True
    elif kind == "raise":
        out.exception = _rebuild(msg[1], msg[2])
    else:
        out.error = msg[1]
    return True


def _collect(child: Child, end: float | None, memory_limit: float | None,
             out: ChildOutcome) -> bool:
    """Collect the child's messages into ``out`` until its end message, the
    deadline or the memory limit (then kill it); True when it ended by itself."""
    poll_memory = memory_limit is not None and usage_mb(child.pid) is not None
    conn = child.conn
    while True:
        left = None if end is None else end - time.perf_counter()
        if left is not None and left <= 0:
            out.timed_out = True
            break
        wait = left
        if poll_memory:
            wait = POLL_S if left is None else min(left, POLL_S)
        if conn.poll(wait):
            if _take(child, memory_limit, out):
                return True
            continue
        if poll_memory:
            size = usage_mb(child.pid)
            if size is not None:
                out.peak_mb = size if out.peak_mb is None else max(out.peak_mb, size)
                if memory_limit is not None and (rss_mb(child.pid) or 0.0) > memory_limit:
                    out.memory = True
                    break
    child.kill()  # (reaped later: Child.stop)
    while True:  # what the child sent before it was killed
        try:
            if not conn.poll(0):
                break
            msg = conn.recv()
        except Exception:  # noqa: BLE001 - nothing more, or a message cut short
            break
        if msg[0] == "return":  # it answered just as it was killed
            out.value, out.returned, out.timed_out, out.memory = msg[1], True, False, False
        if msg[0] != "msg":
            break
        out.messages.append(msg[1])
    return False


def _near(peak: float | None, limit: float) -> bool:
    return peak is not None and peak >= 0.75 * limit


def read_messages(messages: Sequence[Any], labels_of: Callable[[Any], tuple[Any, ...]],
                  phase: str) -> tuple[str, dict[str, Any], list[tuple[Any, ...]],
                                       tuple[Any, ...] | None]:
    """Fold what a solver child sent (``("phase", name)``, ``("stats", dict)``,
    ``("solution", raw)``, ``("done", ...)``): the last phase (``phase`` if none
    came), the stats merged, the solutions decoded by ``labels_of``, and the
    ``done`` message's payload, or None when the child never finished."""
    stats: dict[str, Any] = {}
    solutions: list[tuple[Any, ...]] = []
    done: tuple[Any, ...] | None = None
    for msg in messages:
        kind = msg[0]
        if kind == "phase":
            phase = msg[1]
        elif kind == "stats":
            stats.update(msg[1])
        elif kind == "solution":
            solutions.append(labels_of(msg[1]))
        elif kind == "done":
            done = tuple(msg[1:])
    return phase, stats, solutions, done
