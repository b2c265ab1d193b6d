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
and is not counted as a disagreement. A record's ``time_limited`` says that the
time limit stopped the backend before it answered all it was asked (the
command line then exits 1).

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
from .board import Board
from .errors import FutocpError, UsageError, did_you_mean
from .model import build_model
from .records import RunRecord

__all__ = ["crosscheck", "disagreements", "choose_backends", "backend_summary", "COUNTERS"]

COUNTERS = counter_names()
"""The counters a record carries when its backend reports them (every backend's)."""


def choose_backends(spec: str | Sequence[str] = "all") -> list[str]:
    """Backend names from ``"all"`` (every available one), ``"complete"`` (every
    available complete one), ``"a,b"`` or a list. ``all`` and ``complete`` leave
    ``auto`` out (it answers with one of the others, which would count twice);
    name it to check it.

    Example:
        >>> choose_backends("listcolor,cpsat")
        ['listcolor', 'cpsat']
        >>> choose_backends("listcolour")
        Traceback (most recent call last):
        ...
        futocp.errors.UsageError: unknown backend 'listcolour'; did you mean 'listcolor'? (known: ...)
    """
    if isinstance(spec, str):
        if spec in ("all", "complete"):
            return [n for n, cls in REGISTRY.items() if cls.available() is True
                    and (cls.complete or spec == "all") and not getattr(cls, "portfolio", False)]
        spec = [s.strip() for s in spec.split(",") if s.strip()]
    for name in spec:
        if name not in REGISTRY:
            raise UsageError(f"unknown backend {name!r}{did_you_mean(name, REGISTRY)} "
                             f"(known: {', '.join(REGISTRY)}; "
                             "or all, complete)")
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


def crosscheck(board: Board, backends: str | Sequence[str] = "all", *, limit: int | None = 2,
               time_limit: float | None = None, filtering: str = "lists", seed: int | None = None,
               options: Mapping[str, Mapping[str, Any]] | None = None,
               on_record: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run several backends on one board and compare them.

    Args:
        board: The instance.
        backends: ``"all"`` (the available ones), ``"complete"`` (the available complete
            ones), ``"a,b,c"`` or a list of names.
        limit: Solutions per backend (None = all).
        time_limit: Seconds per backend.
        filtering: Model filtering (``"lists"``, ``"gac"`` or ``"none"``).
        seed: Passed to every backend.
        options: Per backend name, its options.
        on_record: Called with each backend's record as soon as it is known (before
            ``agrees`` is set: that needs every answer), e.g. to print a table row.

    Returns:
        One :class:`~futocp.records.RunRecord` per backend, as a dict (backend,
        complete, status, n_solutions, exhausted, finished, time_limited, verified,
        violation, reason, build_s, solve_s, wall_s, counters), with ``agrees``
        (False for a backend named in a disagreement).
    """
    names = choose_backends(backends)
    options = options or {}
    model = build_model(board, filtering)
    records = []
    for name in names:
        complete = REGISTRY[name].complete
        try:
            result = get_backend(name).solve(model, limit=limit, time_limit=time_limit, seed=seed,
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
