"""MiniZinc backend: the :func:`futocp.mzn.to_mzn` export run by the ``minizinc`` binary.

The model is written to a temporary ``.mzn`` file and run as
``minizinc --solver SOLVER -s [-a | -n N] [--time-limit MS] [-r SEED] FILE``;
the output is decoded by :func:`futocp.mzn.parse_mzn_output`. ``exhausted`` is
True when MiniZinc printed ``==========`` (the search completed and every
solution was printed) or ``=====UNSATISFIABLE=====``. The time limit is passed
to MiniZinc (it covers flattening and search) and also enforced here: a run
still going a few seconds after it is killed, keeping the solutions printed.

Option ``globals``: ``auto`` (default) adds
:data:`~futocp.mzn.GECODE_6_2_REDEFINITIONS` to the include path (``-I``) when
the solver is Gecode and its MiniZinc library has no ``fzn_all_different_int``
/ ``fzn_table_int`` of its own (Gecode 6.2 as Debian ships it with MiniZinc
2.6), so that ``all_different`` and ``table`` reach Gecode's propagators
rather than the standard library's decompositions; ``library`` runs the file
as exported. The solver's library is looked up once per process
(``minizinc --solvers-json`` and ``--config-dirs``). Options ``consistency``
``relations`` and ``nary`` are those of :func:`futocp.mzn.to_mzn`.

Stats: MiniZinc's own (``flatTime``, ``solveTime``, ``nodes``, ``failures``,
``propagations``... as printed by ``-s``), plus ``encode_s``, ``solve_s`` and
``redefinitions`` (the library files added to the include path).

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

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

from ..errors import BackendUnavailable, SolverError
from ..model import Model
from ..mzn import (
    CONSISTENCIES,
    GECODE_6_2_REDEFINITIONS,
    NARY_ENCODINGS,
    RELATION_ENCODINGS,
    parse_mzn_output,
    to_mzn,
    write_redefinitions,
)
from ..procs import Command
from ..result import Result, Status
from .base import Backend, Option

__all__ = ["MinizincBackend"]

_GRACE_S = 5.0  # how long past its time limit the minizinc process may run


class MinizincBackend(Backend):
    """MiniZinc (``minizinc`` binary; Gecode by default)."""

    name = "minizinc"
    complete = True
    # no "seed": Gecode's default search (what the model asks for) uses no randomness,
    # so a seed would change nothing (tests/test_conformance.py checks declared seeds)
    capabilities = frozenset({"enumerate", "time_limit", "unsat", "multiset", "less",
                              "strings", "binary", "nary", "alldifferent"})
    counters = ("nodes", "failures", "propagations")
    options = (
        Option("solver", str, "gecode", None, "a MiniZinc solver id or tag (minizinc --solvers)"),
        Option("consistency", str, "domain", CONSISTENCIES,
               "domain: global constraints annotated :: domain; solver: the solver's default"),
        Option("relations", str, "table", RELATION_ENCODINGS,
               "binary relations other than less: a table of allowed pairs, or arithmetic over "
               "labels (abs) for consecutive and nonconsecutive"),
        Option("nary", str, "generic", NARY_ENCODINGS,
               "n-ary kinds but cage: the generic decomposition (regular over the diagram, "
               "or a table), or expressions for arith and visible"),
        Option("globals", str, "auto", ("auto", "library"),
               "auto: map all_different and table to Gecode 6.2's native propagators when its "
               "library lacks the fzn_ redefinitions; library: run the export as written"),
        Option("binary", str, "minizinc", None, "the minizinc executable"),
    )

    @classmethod
    def available(cls) -> bool | str:
        if shutil.which("minizinc") is None:
            return "the minizinc binary is not on the PATH (Debian package minizinc)"
        return True

    def compile(self, model: Model, /, **options: Any) -> str:
        """The MiniZinc model text (model and data in one file)."""
        opts = self.parse_options(options)
        return to_mzn(model, consistency=opts["consistency"], relations=opts["relations"],
                      nary=opts["nary"])

    def _solve(self, model: Model, limit: int | None, time_limit: float | None,
               seed: int | None, options: dict[str, Any]) -> Result:
        binary = shutil.which(options["binary"])
        if binary is None:
            raise BackendUnavailable(f"backend 'minizinc': no executable {options['binary']!r} "
                                     "on the PATH")
        t0 = time.perf_counter()
        text = self.compile(model, **options)
        redefinitions = (_redefinitions(binary, options["solver"])
                         if options["globals"] == "auto" else {})
        encode_s = time.perf_counter() - t0
        cmd = [binary, "--solver", options["solver"], "-s"]
        cmd += ["-a"] if limit is None else ["-n", str(limit)]
        if time_limit is not None:
            cmd += ["--time-limit", str(max(1, round(time_limit * 1000)))]
        with tempfile.TemporaryDirectory(prefix="futocp-mzn-") as tmp:
            path = os.path.join(tmp, "model.mzn")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            if redefinitions:
                lib = os.path.join(tmp, "lib")
                write_redefinitions(lib, redefinitions)
                cmd += ["-I", lib]
            t1 = time.perf_counter()
            command = Command([*cmd, path])
            try:
                answer = command.communicate(b"", None if time_limit is None
                                             else time_limit + _GRACE_S)
            finally:
                command.stop()
            killed = answer is None
            stdout, stderr = (_text(part) for part in (answer or command.partial))
            code = None if killed else command.returncode
            solve_s = time.perf_counter() - t1
        out = parse_mzn_output(model, stdout)
        if code not in (0, None) and not out.solutions and out.status != "unsat":
            message = _first_error(stderr) or f"exit code {code}"
            raise SolverError(f"backend 'minizinc': {options['solver']} failed: {message}")
        status = {"sat": Status.SAT, "unsat": Status.UNSAT}.get(out.status, Status.UNKNOWN)
        if limit is not None:
            del out.solutions[limit:]
        stats: dict[str, Any] = {"encode_s": encode_s, "solve_s": solve_s,
                                 "solver": options["solver"], "solutions": len(out.solutions),
                                 "killed": killed, "redefinitions": sorted(redefinitions)}
        stats.update({f"mzn_{k}": v for k, v in out.stats.items()})
        return Result(status, out.solutions, stats, exhausted=out.complete and not killed)


@functools.cache
def _solver_library(binary: str, solver: str) -> tuple[str | None, str | None]:
    """The id and the MiniZinc library directory of ``solver`` (an id, the last part
    of an id, or a tag, as ``minizinc --solver`` takes it); Nones when unknown."""
    try:
        listed = json.loads(subprocess.run([binary, "--solvers-json"], capture_output=True,
                                           text=True, timeout=30).stdout)
        dirs = json.loads(subprocess.run([binary, "--config-dirs"], capture_output=True,
                                         text=True, timeout=30).stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None, None
    for entry in listed if isinstance(listed, list) else []:
        ident = str(entry.get("id", ""))
        if solver in (ident, ident.rsplit(".", 1)[-1]) or solver in entry.get("tags", ()):
            lib = str(entry.get("mznlib", ""))
            if lib.startswith("-G"):
                lib = os.path.join(str(dirs.get("mznStdlibDir", "")), lib[2:])
            return ident, (lib if lib and os.path.isdir(lib) else None)
    return None, None


def _redefinitions(binary: str, solver: str) -> dict[str, str]:
    """The files of :data:`GECODE_6_2_REDEFINITIONS` that ``solver`` needs: Gecode
    with a library that declares the native predicates and no ``fzn_`` file."""
    ident, lib = _solver_library(binary, solver)
    if lib is None or not (ident or "").startswith("org.gecode."):
        return {}
    out = {}
    native = {"fzn_all_different_int.mzn": ("all_different_int.mzn", "all_different_int"),
              "fzn_table_int.mzn": ("table_int.mzn", "gecode_table_int")}
    for name, (declared_in, predicate) in native.items():
        if os.path.exists(os.path.join(lib, name)):
            continue
        try:
            with open(os.path.join(lib, declared_in), encoding="utf-8") as fh:
                declares = predicate in fh.read()
        except OSError:
            declares = False
        if declares:
            out[name] = GECODE_6_2_REDEFINITIONS[name]
    return out


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _first_error(stderr: str) -> str:
    """The first line of MiniZinc's error report (warnings skipped)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if line.lower().startswith("error"):
            return " ".join(lines[i:i + 2])[:300]
    rest = [ln for ln in lines if not ln.startswith("Warning")]
    return rest[0][:300] if rest else ""
