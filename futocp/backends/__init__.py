"""The backend registry: ``REGISTRY`` maps a name to a backend class.

Registering a backend is one step: add its class to :data:`REGISTRY`. Backend
modules import their solver package only when used, so every backend is
listed even where its package is missing, and ``available()`` says why.

Example:
    >>> "cpsat" in REGISTRY
    True
"""

from __future__ import annotations

from ..errors import UsageError
from .anneal import AnnealBackend
from .base import Backend, Deadline, Option
from .bt import BtBackend
from .colorfutoshiki import ColorfutoshikiBackend
from .cpsat import CpsatBackend
from .fc import FcBackend
from .genetic import GeneticBackend
from .listcolor import ListcolorBackend
from .mac import MacBackend
from .minizinc import MinizincBackend
from .pyconstraint import PyconstraintBackend
from .sat import SatBackend

__all__ = ["REGISTRY", "Backend", "Option", "Deadline", "get_backend", "backend_table"]

REGISTRY: dict[str, type[Backend]] = {cls.name: cls for cls in (CpsatBackend, ListcolorBackend, SatBackend, PyconstraintBackend, MinizincBackend, BtBackend, FcBackend, MacBackend, ColorfutoshikiBackend, AnnealBackend, GeneticBackend)}


def get_backend(name: str) -> Backend:
    """An instance of the backend called ``name``.

    Raises:
        UsageError: for an unknown name.
    """
    try:
        return REGISTRY[name]()
    except KeyError:
        raise UsageError(f"unknown backend {name!r} (known: {', '.join(REGISTRY)})") from None


def backend_table() -> list[dict[str, object]]:
    """One record per backend: name, available (True or why not), complete, capabilities, options."""
    return [{"name": cls.name, "available": cls.available(), "complete": cls.complete,
             "capabilities": sorted(cls.capabilities),
             "options": {o.name: o.default for o in cls.options}}
            for cls in REGISTRY.values()]
