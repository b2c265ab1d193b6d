"""Cross-validate backends on one instance.

Every chosen backend solves the same Model (built once), every returned
solution goes through :func:`futocp.verify.verify`, and statuses and solution
counts (up to the limit) are compared. The answer is a list of records, one
per backend, ready for ``pandas.DataFrame``.

A backend's answer is *final* when it proved unsat, or found ``limit``
solutions, or exhausted the search; only final answers of complete backends
are compared on status and count. An incomplete backend must not claim a
solution where a complete one proved none. A backend that fails to run (not
installed, cannot hold the model) gets ``status = "error"`` and its reason,
and is not counted as a disagreement. A record's ``stopped`` says what ended
the search (:data:`futocp.records.STOPS`: ``found``, ``exhausted``, ``time
limit``, an incomplete backend's ``move budget`` or ``generation budget``...);
its ``time_limited`` that a time or memory limit stopped the backend before it
answered all it was asked (the command line then exits 1). An incomplete
backend that stops at its own budget, or at its solution, is not time-limited.

**Defaults that answer in seconds.** The default set (``"default"``) is the
solvers a user compares, :data:`DEFAULT_BACKENDS`, those available here:
``cpsat``, ``sat``, ``listcolor``, ``minizinc``, and ``pyconstraint`` on models
of at most :data:`SMALL_MODEL_CELLS` cells (an 8x8 grid: on a 9x9 Futoshiki it
runs past any few-seconds limit). Every backend gets :data:`DEFAULT_TIME_LIMIT`
seconds unless ``time_limit`` says otherwise (None: no limit). ``"complete"``
and ``"all"`` name the larger sets (``all`` adds the incomplete ``anneal`` and
``genetic``; the seeds' pure-Python searches in both can take minutes on a 9x9).

On a collection, :func:`backend_summary` turns the records of every instance
into one summary per backend (solved, agreed, time-limited, median time).

Example:
    >>> from futocp.families import latin_square
    >>> rows = crosscheck(latin_square(3, [[1, 2, 3], [0, 0, 0], [0, 0, 0]]), ["cpsat"], limit=5)
    >>> [(r["backend"], r["status"], r["n_solutions"], r["verified"], r["agrees"]) for r in rows]
    [('cpsat', 'sat', 2, True, True)]
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .backends import REGISTRY, counter_names, get_backend
from .backends.base import seed_for
from .board import Board
from .errors import FutocpError, UsageError, did_you_mean
from .model import build_model
from .records import RunRecord

__all__ = ["crosscheck", "disagreements", "choose_backends", "left_out", "backend_summary",
           "COUNTERS", "DEFAULT_BACKENDS", "SMALL_MODEL_CELLS", "DEFAULT_TIME_LIMIT"]

COUNTERS = counter_names()
"""The counters a record carries when its backend reports them (every backend's)."""

DEFAULT_BACKENDS = ("cpsat", "sat", "listcolor", "minizinc", "pyconstraint")
"""The default set: the solvers a user compares (each one when it is available)."""

SMALL_MODEL_CELLS = 64
"""``pyconstraint`` is in the default set on models of at most this many cells (an
8x8 grid). Measured with limit 2: 0.1-0.7 s on the 5x5 to 8x8 extreme Futoshiki of
``instances/``, about 1 s on top95 Sudoku, but no answer within 20 s on any 9x9
Futoshiki of ``instances/`` (not even the easy one)."""

DEFAULT_TIME_LIMIT = 5.0
"""Seconds per backend when the caller gives no time limit."""

def left_out(cells: int | None = None) -> dict[str, str]:
    """The backends of :data:`DEFAULT_BACKENDS` that the default set leaves out, and why:
    not available here, or (``pyconstraint``) a model of more than
    :data:`SMALL_MODEL_CELLS` cells. ``cells=None``: any size.

    Example:
        >>> left_out(81).get("pyconstraint")
        '81 cells: the default set takes it up to 64 (name it to run it)'
    """
    out = {}
    for name in DEFAULT_BACKENDS:
        why = REGISTRY[name].available()
        if why is not True:
            out[name] = f"not available: {why}"
        elif name == "pyconstraint" and cells is not None and cells > SMALL_MODEL_CELLS:
            out[name] = (f"{cells} cells: the default set takes it up to {SMALL_MODEL_CELLS} "
                         "(name it to run it)")
    return out


def choose_backends(spec: str | Sequence[str] = "default", cells: int | None = None
                    ) -> list[str]:
    """Backend names from ``"default"`` (the solvers a user compares, see
    :data:`DEFAULT_BACKENDS`; ``cells`` is the model's size), ``"all"`` (every
    available one), ``"complete"`` (every available complete one), ``"a,b"`` or a
    list. The sets hold the available backends only, and leave ``auto`` out (it
    answers with one of the others, which would count twice); name it to check it.

    Example:
        >>> choose_backends("listcolor,cpsat")
        ['listcolor', 'cpsat']
        >>> "pyconstraint" in choose_backends("default", cells=81)
        False
        >>> choose_backends("listcolour")
        Traceback (most recent call last):
        ...
        futocp.errors.UsageError: unknown backend 'listcolour'; did you mean 'listcolor'? (known: ...)
    """
    if isinstance(spec, str):
        if spec == "default":
            skip = left_out(cells)
            return [n for n in DEFAULT_BACKENDS if n not in skip]
        if spec in ("all", "complete"):
            return [n for n, cls in REGISTRY.items() if cls.available() is True
                    and (cls.complete or spec == "all") and not getattr(cls, "portfolio", False)]
        spec = [s.strip() for s in spec.split(",") if s.strip()]
    for name in spec:
        if name not in REGISTRY:
            raise UsageError(f"unknown backend {name!r}{did_you_mean(name, REGISTRY)} "
                             f"(known: {', '.join(REGISTRY)}; or default, complete, all)")
    if not spec:
        raise UsageError("no backend chosen")
    return list(spec)


def _final(rec: dict[str, Any], limit: int | None) -> bool:
    if rec["status"] == "unsat":
        return True
    return rec["status"] == "sat" and bool(rec["exhausted"] or rec["n_solutions"] == limit)


def disagreements(records: Sequence[dict[str, Any]], limit: int | None) -> list[str]:
    """Mark each record's ``agrees`` and return a sentence per problem found.

    The consensus is the most common final answer (status, solutions) of the
    complete backends; a backend disagrees when its final answer differs from
    it, when a solution of its fails verification, or when it claims a
    solution where the consensus is unsat.
    """
    problems = []
    finals = [r for r in records if r["complete"] and _final(r, limit)]
    tally = Counter((r["status"], r["n_solutions"]) for r in finals)
    ranked = tally.most_common(2)
    consensus = ranked[0][0] if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]) else None
    if len(tally) > 1:
        said = "; ".join(f"{r['backend']}: {r['status']} with {r['n_solutions']}" for r in finals)
        problems.append(f"complete backends disagree: {said}")
    for rec in records:
        rec["agrees"] = True
        if rec["status"] == "error":
            continue
        if rec["verified"] is False:
            rec["agrees"] = False
            problems.append(f"{rec['backend']}: a solution failed verification ({rec['violation']})")
        if rec in finals and len(tally) > 1 and (rec["status"], rec["n_solutions"]) != consensus:
            rec["agrees"] = False
        if consensus and consensus[0] == "unsat" and rec["status"] == "sat":
            rec["agrees"] = False
            if not rec["complete"]:
                problems.append(f"{rec['backend']}: found a solution where the others proved unsat")
    return problems


def crosscheck(board: Board, backends: str | Sequence[str] = "default", *,
               limit: int | None = 2, time_limit: float | None = DEFAULT_TIME_LIMIT,
               filtering: str = "lists", seed: int | None = None,
               options: Mapping[str, Mapping[str, Any]] | None = None,
               on_record: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run several backends on one board and compare them.

    Args:
        board: The instance.
        backends: ``"default"`` (the solvers a user compares, :data:`DEFAULT_BACKENDS`:
            cpsat, sat, listcolor, minizinc, and pyconstraint on models of at most
            :data:`SMALL_MODEL_CELLS` cells; the available ones), ``"all"`` (the
            available ones), ``"complete"`` (the available complete ones),
            ``"a,b,c"`` or a list of names.
        limit: Solutions per backend (None = all).
        time_limit: Seconds per backend (default :data:`DEFAULT_TIME_LIMIT`; None: no
            limit, every backend runs to the end).
        filtering: Model filtering (``"lists"``, ``"gac"`` or ``"none"``).
        seed: Passed to every backend that takes one (the others run without it:
            their searches do not depend on one); refused when none does.
        options: Per backend name, its options.
        on_record: Called with each backend's record as soon as it is known (before
            ``agrees`` is set: that needs every answer), e.g. to print a table row.

    Returns:
        One :class:`~futocp.records.RunRecord` per backend, as a dict (backend,
        complete, status, n_solutions, exhausted, finished, stopped, time_limited,
        verified, violation, reason, build_s, solve_s, wall_s, counters), with
        ``agrees`` (False for a backend named in a disagreement).
    """
    choose_backends(backends)  # a misspelt name is refused before the model is built
    options = options or {}
    model = build_model(board, filtering)
    names = choose_backends(backends, model.n_cells)
    if seed is not None and not any("seed" in REGISTRY[name].capabilities for name in names):
        raise UsageError(f"none of the backends ({', '.join(names)}) takes a seed (their "
                         "searches do not depend on one); leave the seed out")
    records = []
    for name in names:
        complete = REGISTRY[name].complete
        try:
            result = get_backend(name).solve(model, limit=limit, time_limit=time_limit,
                                             seed=seed_for(REGISTRY[name], seed),
                                             **dict(options.get(name, {})))
            record = RunRecord.from_result(board, result, complete)
        except FutocpError as exc:
            record = RunRecord.from_error(name, complete, str(exc))
        rec = record.to_dict()
        rec["agrees"] = True
        records.append(rec)
        if on_record is not None:
            on_record(rec)
    disagreements(records, limit)
    return records


def backend_summary(reports: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One summary per backend over the :func:`crosscheck` records of many instances.

    Each summary: backend, complete, instances, solved (answered sat or unsat),
    agreed (answered, and the answer agrees and verifies), time_limited, errors,
    failed_verification, median_s and total_s (wall time of the runs that did not
    fail; None when every run failed).

    Example:
        >>> rows = [{"backend": "a", "complete": True, "status": "sat", "agrees": True,
        ...          "verified": True, "time_limited": False, "wall_s": 0.5}]
        >>> backend_summary([rows, rows])[0]["solved"], backend_summary([rows])[0]["median_s"]
        (2, 0.5)
    """
    by_backend: dict[str, list[dict[str, Any]]] = {}
    for rows in reports:
        for rec in rows:
            by_backend.setdefault(rec["backend"], []).append(rec)
    out = []
    for name, recs in by_backend.items():
        ran = [r for r in recs if r["status"] != "error"]
        walls = [r["wall_s"] for r in ran]
        out.append({"backend": name, "complete": recs[0]["complete"], "instances": len(recs),
                    "solved": sum(r["status"] in ("sat", "unsat") for r in ran),
                    "agreed": sum(r["status"] in ("sat", "unsat") and bool(r["agrees"])
                                  and r["verified"] is not False for r in ran),
                    "time_limited": sum(bool(r.get("time_limited")) for r in ran),
                    "errors": len(recs) - len(ran),
                    "failed_verification": sum(r["verified"] is False for r in ran),
                    "median_s": round(statistics.median(walls), 6) if walls else None,
                    "total_s": round(sum(walls), 6) if walls else None})
    return out
