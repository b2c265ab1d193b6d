"""Moved to :mod:`futocp.procs`, the one process layer.

These names stay importable from here for one merge round only, for branches
written against them; new code imports :mod:`futocp.procs`.
"""

from __future__ import annotations

from ..procs import (
    MEMORY_EXIT,
    POLL_S,
    ChildOutcome,
    available_mb,
    close_worker,
    crash_reason,
    in_child,
    limit_memory,
    memory_reason,
    read_messages,
    rss_mb,
    run_child,
    usage_mb,
)

__all__ = ["ChildOutcome", "run_child", "read_messages", "close_worker", "in_child", "limit_memory",
           "memory_reason", "rss_mb", "usage_mb", "available_mb", "crash_reason", "MEMORY_EXIT",
           "POLL_S"]
