"""Moved to :mod:`futocp.procs`, the one process layer.

These names stay importable from here for one merge round only (the CLI
imports :func:`signals_as_interrupt` from here); new code imports
:mod:`futocp.procs`.
"""

from __future__ import annotations

from .procs import die_with_parent, signals_as_interrupt

__all__ = ["die_with_parent", "signals_as_interrupt"]
