"""The backend registry: ``REGISTRY`` maps a name to a backend class.

Registering a backend is one step: add its ``name: "module:Class"`` to
:data:`REGISTRY` (imported when first used). Backend
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

import importlib
from collections.abc import Iterator, MutableMapping
from typing import TypedDict

from ..cores import SHARED_CORES, core_statuses
from ..errors import UsageError
from .base import Backend, Deadline, Option

__all__ = ["REGISTRY", "Backend", "Option", "Deadline", "get_backend", "backend_table",
           "BackendRow", "counter_names", "counting_order", "solver_packages", "BackendRegistry"]


class BackendRegistry(MutableMapping[str, type[Backend]]):
    """Backend name -> class, in registration order; each backend's module is imported
    the first time its class is asked for (``futocp solve --backend listcolor`` loads
    listcolor's module only). Set and delete as with a dict.

    Example:
        >>> r = BackendRegistry({"listcolor": "listcolor:ListcolorBackend"})
        >>> list(r), r["listcolor"].name
        (['listcolor'], 'listcolor')
    """

    def __init__(self, where: dict[str, str]) -> None:
        self._where = dict(where)  # name -> "module:Class" (or "" once set directly)
        self._loaded: dict[str, type[Backend]] = {}

    def __getitem__(self, name: str) -> type[Backend]:
        cls = self._loaded.get(name)
        if cls is None:
            module, _, attr = self._where[name].partition(":")
            cls = getattr(importlib.import_module(f".{module}", __name__), attr)
            self._loaded[name] = cls
        return cls

    def __setitem__(self, name: str, cls: type[Backend]) -> None:
        self._where.setdefault(name, "")
        self._loaded[name] = cls

    def __delitem__(self, name: str) -> None:
        del self._where[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


REGISTRY = BackendRegistry({
    "cpsat": "cpsat:CpsatBackend", "listcolor": "listcolor:ListcolorBackend",
    "sat": "sat:SatBackend", "pyconstraint": "pyconstraint:PyconstraintBackend",
    "minizinc": "minizinc:MinizincBackend", "bt": "bt:BtBackend", "fc": "fc:FcBackend",
    "mac": "mac:MacBackend", "colorfutoshiki": "colorfutoshiki:ColorfutoshikiBackend",
    "anneal": "anneal:AnnealBackend", "genetic": "genetic:GeneticBackend",
    "auto": "auto:AutoBackend", "mip": "mip:MipBackend", "smt": "smt:SmtBackend",
    "choco": "choco:ChocoBackend",
})
"""Every backend: name -> class (module imported when first used)."""


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
    return tuple(dict.fromkeys(cls.package.name for cls in REGISTRY.values() if cls.package))
