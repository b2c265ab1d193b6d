"""Child processes that never outlive their parent.

futocp runs solvers in child processes (the experiment runner's isolated runs,
the python-constraint backend's search, the parallel searches): whatever
happens to the parent -- SIGTERM, SIGHUP, ``kill -9`` -- those children and
their own helpers must die with it. :func:`die_with_parent`, called first
thing in a child, arranges it twice over:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (through :mod:`ctypes`: the
  standard library has no wrapper) makes the kernel kill the child when its
  parent dies;
* everywhere, a daemon thread polls the parent's pid and, when the child has
  been re-parented, kills the child's whole process group (its solver helpers
  included) -- this covers platforms without ``prctl`` and grandchildren.

:func:`signals_as_interrupt` turns SIGTERM and SIGHUP into
:class:`KeyboardInterrupt` in the main thread, so that the cleanup already
written for Ctrl-C (killing the children) runs for them too.

Example:
    >>> with signals_as_interrupt():
    ...     pass
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["die_with_parent", "signals_as_interrupt"]

_POLL_S = 0.25


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
    """Make this (child) process die when its parent dies.

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
            time.sleep(_POLL_S)
            if os.getppid() != parent or (owner is not None and not _alive(owner)):
                if own_group and hasattr(os, "killpg"):
                    with contextlib.suppress(OSError):
                        os.killpg(os.getpgrp(), signal.SIGKILL)
                os._exit(1)

    threading.Thread(target=watch, name="futocp-watchdog", daemon=True).start()


@contextlib.contextmanager
def signals_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise KeyboardInterrupt (main thread only)."""
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
