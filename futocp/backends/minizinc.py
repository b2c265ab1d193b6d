"""MiniZinc backend: the :func:`futocp.mzn.to_mzn` export run by the ``minizinc`` binary.

The model is written to a temporary ``.mzn`` file and run as
``minizinc --solver SOLVER -s [-a | -n N] [--time-limit MS] [-r SEED] FILE``;
the output is decoded by :func:`futocp.mzn.parse_mzn_output`. ``exhausted`` is
True when MiniZinc printed ``==========`` (the search completed and every
solution was printed) or ``=====UNSATISFIABLE=====``. The time limit is passed
to MiniZinc (it covers flattening and search) and also enforced here: a run
still going a few seconds after it is killed, keeping the solutions printed.

Stats: MiniZinc's own (``flatTime``, ``solveTime``, ``nodes``, ``failures``,
``propagations``... as printed by ``-s``), plus ``encode_s`` and ``solve_s``.

The backend is available when ``minizinc`` is on the PATH (Debian package
``minizinc``, with Gecode as its default solver).

Example:
    >>> from futocp.families import latin_square
    >>> from futocp.model import build_model
    >>> b = MinizincBackend()
    >>> if b.available() is True:
    ...     r = b.solve(build_model(latin_square(3)), limit=None)
    ...     assert (r.status.value, r.n_solutions, r.exhausted) == ("sat", 12, True)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

from ..errors import FutocpError
from ..model import Model
from ..mzn import CONSISTENCIES, parse_mzn_output, to_mzn
from ..result import Result, Status
from .base import Backend, Option

__all__ = ["MinizincBackend"]

_GRACE_S = 5.0  # how long past its time limit the minizinc process may run


class MinizincBackend(Backend):
    """MiniZinc (``minizinc`` binary; Gecode by default)."""

    name = "minizinc"
    complete = True
    capabilities = frozenset({"enumerate", "time_limit", "seed", "unsat", "multiset", "less",
                              "strings"})
    extra = None
    options = (
        Option("solver", str, "gecode", None, "a MiniZinc solver id or tag (minizinc --solvers)"),
        Option("consistency", str, "domain", CONSISTENCIES,
               "domain: global constraints annotated :: domain; solver: the solver's default"),
        Option("binary", str, "minizinc", None, "the minizinc executable"),
    )

    @classmethod
    def available(cls) -> bool | str:
        if shutil.which("minizinc") is None:
            return "the minizinc binary is not on the PATH (Debian package minizinc)"
        return True

    def compile(self, model: Model, **options: Any) -> str:
        """The MiniZinc model text (model and data in one file)."""
        return to_mzn(model, consistency=self.parse_options(options)["consistency"])

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        binary = shutil.which(options["binary"])
        if binary is None:
            raise FutocpError(f"backend 'minizinc': no executable {options['binary']!r} on the PATH")
        t0 = time.perf_counter()
        text = to_mzn(model, consistency=options["consistency"])
        encode_s = time.perf_counter() - t0
        cmd = [binary, "--solver", options["solver"], "-s"]
        cmd += ["-a"] if limit is None else ["-n", str(limit)]
        if time_limit is not None:
            cmd += ["--time-limit", str(max(1, round(time_limit * 1000)))]
        if seed is not None:
            cmd += ["-r", str(seed)]
        with tempfile.TemporaryDirectory(prefix="futocp-mzn-") as tmp:
            path = os.path.join(tmp, "model.mzn")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            t1 = time.perf_counter()
            killed = False
            try:
                proc = subprocess.run(cmd + [path], capture_output=True, text=True,
                                      timeout=None if time_limit is None else time_limit + _GRACE_S)
                stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
            except subprocess.TimeoutExpired as exc:
                killed = True
                stdout = _text(exc.stdout)
                stderr, code = _text(exc.stderr), None
            solve_s = time.perf_counter() - t1
        out = parse_mzn_output(model, stdout)
        if code not in (0, None) and not out.solutions and out.status != "unsat":
            message = _first_error(stderr) or f"exit code {code}"
            raise FutocpError(f"backend 'minizinc': {options['solver']} failed: {message}")
        status = {"sat": Status.SAT, "unsat": Status.UNSAT}.get(out.status, Status.UNKNOWN)
        if limit is not None:
            del out.solutions[limit:]
        stats: dict[str, Any] = {"encode_s": encode_s, "solve_s": solve_s,
                                 "solver": options["solver"], "solutions": len(out.solutions),
                                 "killed": killed}
        stats.update({f"mzn_{k}": v for k, v in out.stats.items()})
        return Result(status, out.solutions, stats, exhausted=out.complete and not killed)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def _first_error(stderr: str) -> str:
    """The first line of MiniZinc's error report (warnings skipped)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if line.lower().startswith("error"):
            return " ".join(lines[i:i + 2])[:300]
    rest = [ln for ln in lines if not ln.startswith("Warning")]
    return rest[0][:300] if rest else ""
