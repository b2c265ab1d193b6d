"""The compiled cores: futocp's optional C extensions, and whether each is built.

``setup.py`` compiles three extensions when the install has a C compiler and
the Python headers; without one the install goes on and the pure-Python
reference of each runs instead (same answers and counters, 30 to 50 times
slower). :data:`CORES` names them and says what each runs;
:func:`core_status` says whether one is built here (``compiled``) or why its
Python reference runs (``python fallback: <why>``). ``futocp backends`` prints
both (a backend names the cores its search runs on in
:attr:`futocp.backends.base.Backend.cores`; the list filtering of
:data:`SHARED_CORES` runs for every backend, in ``build_model``).

Example:
    >>> sorted(CORES) == sorted({*SHARED_CORES, "futocp.backends._listcolor_core",
    ...                          "futocp.backends._listcolor_core_wide"})
    True
    >>> core_status("futocp._filter_core").startswith(("compiled", "python fallback: "))
    True
"""

from __future__ import annotations

import importlib

__all__ = ["CORES", "SHARED_CORES", "COMPILED", "core_status", "core_statuses"]

CORES: dict[str, str] = {
    "futocp._filter_core": "the list filtering of build_model",
    "futocp.backends._listcolor_core": "the search, up to 64 values",
    "futocp.backends._listcolor_core_wide": "the search, 65 to 128 values",
}
"""Every compiled core (module name -> what it runs); ``setup.py`` builds them."""

SHARED_CORES: tuple[str, ...] = ("futocp._filter_core",)
"""The cores every solve runs, whatever the backend (the Model's list filtering)."""

COMPILED = "compiled"
"""The status of a core that is built and loads."""

_NOT_BUILT = ("not built (the install had no C compiler or no Python headers; reinstall "
              "where it has them, e.g. `pip install -e .` in a clone)")


def core_status(name: str) -> str:
    """Whether the compiled core ``name`` is built here.

    Args:
        name: A module name of :data:`CORES`.

    Returns:
        :data:`COMPILED`, or ``python fallback: <why>`` (not built, or built
        but not loadable, with the import error).

    Raises:
        KeyError: for a name that is not a compiled core.
    """
    if name not in CORES:
        raise KeyError(f"{name!r} is not a compiled core of futocp (known: {', '.join(CORES)})")
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            return f"python fallback: cannot be loaded: {exc}"
        return f"python fallback: {_NOT_BUILT}"
    except ImportError as exc:  # built for another Python, a missing symbol...
        return f"python fallback: cannot be loaded: {exc}"
    return COMPILED


def core_statuses(names: tuple[str, ...] = tuple(CORES)) -> dict[str, str]:
    """:func:`core_status` of each of ``names`` (default: every core), by name."""
    return {name: core_status(name) for name in names}
