"""The backend registry: ``REGISTRY`` maps a name to a backend class.

Registering a backend is one step: add its class to :data:`REGISTRY`. Backend
modules import their solver package only when used, so every backend is
listed even where its package is missing, and ``available()`` says why.

The lists other modules need (counters, the counting order, solver packages)
are unions over the REGISTRY, so a new backend is never missed.

Example:
    >>> "cpsat" in REGISTRY
    True
    >>> counting_order().index("cpsat") < counting_order().index("sat")
    True
    >>> "explored_nodes" in counter_names()
    True
"""

from __future__ import annotations

from typing import TypedDict

from ..cores import SHARED_CORES, core_statuses
from ..errors import UsageError
from .anneal import AnnealBackend
from .auto import AutoBackend
from .base import Backend, Deadline, Option
from .bt import BtBackend
from .choco import ChocoBackend
from .colorfutoshiki import ColorfutoshikiBackend
from .cpsat import CpsatBackend
from .fc import FcBackend
from .genetic import GeneticBackend
from .listcolor import ListcolorBackend
from .mac import MacBackend
from .minizinc import MinizincBackend
from .mip import MipBackend
from .pyconstraint import PyconstraintBackend
from .sat import SatBackend
from .smt import SmtBackend

__all__ = ["REGISTRY", "Backend", "Option", "Deadline", "get_backend", "backend_table",
           "BackendRow", "counter_names", "counting_order", "solver_packages"]

REGISTRY: dict[str, type[Backend]] = {cls.name: cls for cls in (
    CpsatBackend, ListcolorBackend, SatBackend, PyconstraintBackend, MinizincBackend,
    BtBackend, FcBackend, MacBackend, ColorfutoshikiBackend, AnnealBackend, GeneticBackend,
    AutoBackend, MipBackend, SmtBackend, ChocoBackend,
)}


def get_backend(name: str) -> Backend:
    """An instance of the backend called ``name``.

    Raises:
        UsageError: for an unknown name.
    """
    try:
        return REGISTRY[name]()
    except KeyError:
        raise UsageError(f"unknown backend {name!r} (known: {', '.join(REGISTRY)})") from None


class BackendRow(TypedDict):
    """What ``futocp backends`` shows of one backend."""

    name: str
    available: bool | str  # True, or why not
    complete: bool
    capabilities: list[str]
    options: dict[str, object]  # option name -> default
    # every compiled core a solve with it runs (the shared ones, then its own):
    # module name -> "compiled" or "python fallback: <why>" (futocp.cores)
    cores: dict[str, str]


def backend_table() -> list[BackendRow]:
    """One record per backend: name, available (True or why not), complete, capabilities,
    options, and the compiled cores its solves run (built or why not)."""
    shared = core_statuses(SHARED_CORES)
    return [BackendRow(name=cls.name, available=cls.available(), complete=cls.complete,
                       capabilities=sorted(cls.capabilities),
                       options={o.name: o.default for o in cls.options},
                       cores={**shared, **core_statuses(cls.cores)})
            for cls in REGISTRY.values()]


def counter_names() -> tuple[str, ...]:
    """Every search counter some backend reports (the union of their ``counters``), and
    ``removed_values`` and ``fixed_cells`` (the Model's filtering): the columns of
    tables and reports."""
    out = dict.fromkeys(["removed_values", "fixed_cells"])
    for cls in REGISTRY.values():
        out.update(dict.fromkeys(cls.counters))
    return tuple(out)


def counting_order() -> list[str]:
    """The complete backends that count solutions, in their ``count_rank`` order
    (measured fastest first), then the other complete ones."""
    order = list(REGISTRY)  # ties go to the backend registered first
    ranked = sorted((cls.count_rank, order.index(name), name) for name, cls in REGISTRY.items()
                    if cls.complete and cls.count_rank is not None)
    rest = [name for name, cls in REGISTRY.items() if cls.complete and cls.count_rank is None]
    return [name for _, _, name in ranked] + rest


def solver_packages() -> tuple[str, ...]:
    """The distributions the backends run on (for version reports)."""
    return tuple(dict.fromkeys(cls.package for cls in REGISTRY.values() if cls.package))
