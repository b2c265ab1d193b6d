"""Killable child processes for backends: time and memory limits that hold.

Some solvers cannot be stopped from Python once they run -- python-sat's
CaDiCaL and Kissat have no interrupt, CP-SAT loads a big model without looking
at its clock -- and a solver's C code may crash or grow without bound. A
backend then runs that part in a child process with :func:`run_child`:

* the child is a fork of this process (it inherits the model and the
  formulation already built, nothing is pickled on the way in; ``spawn``
  where ``fork`` is missing), dies with its parent
  (:func:`futocp.childproc.die_with_parent`), and is killed at the deadline;
* it streams messages back through a pipe (:func:`run_child` hands the child
  function an ``emit`` callable), so whatever it found before the kill is
  kept -- solutions of an enumeration cut short, the phase it was in;
* with a memory limit, the child's data segment is capped
  (``setrlimit(RLIMIT_DATA)`` on Linux, ``RLIMIT_AS`` elsewhere: an
  allocation past it fails, a :class:`MemoryError` in Python) and the parent
  polls its resident size and kills it past the limit; either way the outcome
  says ``memory`` (reason :func:`memory_reason`);
* a crash (a signal, an exit without an answer) is reported, never raised:
  the caller turns it into :class:`~futocp.errors.SolverError`; a
  :class:`~futocp.errors.FutocpError` raised in the child is raised again in
  the parent, same class and message.

The limit covers the whole process: a futocp process that has imported
OR-Tools and python-sat holds about 130 MB of data before it builds anything.

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
import multiprocessing.util  # (its exit handler, which joins children, must run after ours)
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import errors
from ..childproc import die_with_parent
from ..errors import FutocpError, SolverError

__all__ = ["ChildOutcome", "run_child", "read_messages", "close_worker", "in_child", "limit_memory", "memory_reason",
           "rss_mb", "usage_mb", "available_mb", "crash_reason", "MEMORY_EXIT", "POLL_S"]

MEMORY_EXIT = 86
"""Exit code of a child that ran out of memory and could not say so through the pipe."""

POLL_S = 0.02
"""How often (seconds) the parent looks at a memory-limited child's resident size."""

_in_child = False


def in_child() -> bool:
    """True inside a child started by :func:`run_child`."""
    return _in_child


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
    process allocates, not the shared libraries it maps); elsewhere
    ``RLIMIT_AS``. Never raises: a platform without :mod:`resource` keeps only
    the parent's polling."""
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


def crash_reason(exitcode: int | None) -> str:
    """Why a child ended without an answer, from its exit code.

    Example:
        >>> crash_reason(-11)
        'the solver process died of SIGSEGV'
    """
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"the solver process died of {name}"
    return f"the solver process exited with code {exitcode} without an answer"


@dataclass
class ChildOutcome:
    """What became of a child run.

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


def _start_child(memory_limit: float | None) -> None:
    """First thing in a child: die with the parent, cap memory; a crash is reported
    by the parent (SolverError), so no faulthandler dump of the parent's threads."""
    global _in_child
    _in_child = True
    die_with_parent()
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
    return end[0] != "memory"


def _child_main(conn: Any, func: Callable[..., Any], args: Sequence[Any],
                memory_limit: float | None) -> None:
    """A one-off child: cap memory, run the task, exit."""
    code = 0
    try:
        _start_child(memory_limit)
        if not _run_task(conn, func, args):
            code = MEMORY_EXIT
    except MemoryError:
        code = MEMORY_EXIT
    finally:
        with contextlib.suppress(Exception):
            conn.close()
        os._exit(code)  # no atexit handlers, no second flush of the parent's buffers


def _worker_main(conn: Any, memory_limit: float | None) -> None:
    """A reusable child (:class:`_Worker`): run tasks until the pipe closes."""
    code = 0
    try:
        _start_child(memory_limit)
        while True:
            try:
                func, args = conn.recv()
            except (EOFError, OSError):
                break
            if not _run_task(conn, func, args):
                code = MEMORY_EXIT
                break
    except MemoryError:
        code = MEMORY_EXIT
    finally:
        with contextlib.suppress(Exception):
            conn.close()
        os._exit(code)


def _context() -> Any:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


RECYCLE_MB = 256.0
"""A reused child that has grown this many MB since it started is replaced."""


class _Worker:
    """A child process that runs one task after another (cheap isolation for many
    small solves: a task costs a pickled message, not a process start)."""

    def __init__(self, memory_limit: float | None) -> None:
        ctx = _context()
        self.memory_limit = memory_limit
        self.conn, child_end = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child_end, memory_limit),
                                name="futocp-solver-worker", daemon=False)
        _flush_std()
        self.modules = len(sys.modules)  # what it has imported (a fork: what we had)
        self.proc.start()
        child_end.close()
        self.base_mb = rss_mb(self.proc.pid) or 0.0

    def stale(self, memory_limit: float | None) -> bool:
        """True when it should be replaced: another memory limit, dead, or this
        process has imported modules since (a solver package, say: a new fork
        has it for free, the worker would import it again on every first use)."""
        return (self.memory_limit != memory_limit or not self.proc.is_alive()
                or len(sys.modules) > self.modules)

    def healthy(self) -> bool:
        if not self.proc.is_alive():
            return False
        size = rss_mb(self.proc.pid)
        if size is None:
            return True
        if self.memory_limit is not None and size > 0.5 * self.memory_limit:
            return False
        return size - self.base_mb < RECYCLE_MB

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(Exception):
            if self.proc.is_alive():
                self.proc.kill()
        _reap(self.proc)


def _reap(proc: Any) -> None:
    """Wait for a (killed or finishing) child and release it, in the background: the
    kernel may take a second to free the gigabytes of a big solver, and the
    answer should not wait for that."""
    def join() -> None:
        with contextlib.suppress(Exception):
            proc.join()
            proc.close()

    if proc.exitcode is not None:
        join()
    else:
        threading.Thread(target=join, name="futocp-reaper", daemon=True).start()


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
    global _worker
    with _worker_lock:
        if _worker is not None:
            _worker.close()
            _worker = None


def _close_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.close()
        _worker = None


atexit.register(_close_worker)  # after multiprocessing's: runs before it


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):  # a forked child must not print them again
        with contextlib.suppress(Exception):
            stream.flush()


def run_child(func: Callable[..., Any], args: Sequence[Any] = (), *,
              deadline: Any = None, memory_limit: float | None = None,
              name: str = "futocp-solver", reuse: bool = False) -> ChildOutcome:
    """Run ``func(emit, *args)`` in a child process; kill it at the deadline.

    Args:
        func: A module-level function (picklable where ``fork`` is missing). It
            gets ``emit`` first: ``emit(message)`` sends a picklable message to
            the parent at once.
        args: Its other arguments.
        deadline: A :class:`~futocp.backends.base.Deadline` (or anything with
            ``remaining()``), a number of seconds, or None (no time limit).
        memory_limit: MB the child may hold, or None.
        name: The child's process name.
        reuse: Run in this process's reusable child (started on first use,
            replaced after a kill, a crash or growth past :data:`RECYCLE_MB`):
            ``func`` and ``args`` are pickled to it, and it does not see changes
            made here after it started. Otherwise a fresh fork, which sees
            everything.

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
            worker.conn.send((func, tuple(args)))
        except Exception:  # noqa: BLE001 - not picklable: a fresh fork instead
            _give_back(worker, keep=worker.proc.is_alive())
            worker = None
    if worker is not None:
        conn, proc = worker.conn, worker.proc
    else:
        ctx = _context()
        conn, writer = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child_main, args=(writer, func, tuple(args), memory_limit),
                           name=name, daemon=False)  # it may start its own (dies with us anyway)
        _flush_std()
        proc.start()
        writer.close()
    finished = False
    try:
        finished = _wait(conn, proc, end, memory_limit, out)
    finally:
        if worker is not None:
            _give_back(worker, keep=finished and out.error is None and not out.memory)
        else:
            with contextlib.suppress(Exception):
                if proc.is_alive():
                    proc.kill()
            conn.close()
            _reap(proc)
    out.elapsed = time.perf_counter() - t0
    return out


def _wait(conn: Any, proc: Any, end: float | None, memory_limit: float | None,
          out: ChildOutcome) -> bool:
    """Collect the child's messages into ``out`` until its end message, the
    deadline or the memory limit (then kill it); True when it ended by itself."""
    poll_memory = memory_limit is not None and usage_mb(proc.pid) is not None

    def take() -> bool:
        """Read one message; True when it ends the run."""
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the child died before its end message
            proc.join(5)
            if proc.exitcode == MEMORY_EXIT and memory_limit is not None:
                out.memory = True
            elif memory_limit is not None and _near(out.peak_mb, memory_limit):
                out.memory = True  # died in C code at the cap (e.g. std::bad_alloc)
            else:
                out.error = crash_reason(proc.exitcode)
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

    while True:
        left = None if end is None else end - time.perf_counter()
        if left is not None and left <= 0:
            out.timed_out = True
            break
        wait = left
        if poll_memory:
            wait = POLL_S if left is None else min(left, POLL_S)
        if conn.poll(wait):
            if take():
                return True
            continue
        if poll_memory:
            size = usage_mb(proc.pid)
            if size is not None:
                out.peak_mb = size if out.peak_mb is None else max(out.peak_mb, size)
                if memory_limit is not None and (rss_mb(proc.pid) or 0.0) > memory_limit:
                    out.memory = True
                    break
    proc.kill()  # (reaped later: see _reap)
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
                  phase: str) -> tuple[str, dict[str, Any], list[tuple[Any, ...]], tuple[Any, ...] | None]:
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
