"""Fuzzing the readers and the CLI: mutated instance files and structured garbage.

    python benchmarks/fuzz.py --cases 5000 --seed 1 --out fuzz-out
    python benchmarks/fuzz.py --replay fuzz-out/findings/0042-traceback.json

Hypothesis draws each case's *input* -- a shipped instance file
(``instances/**``) with byte mutations, the content of one format under another
format's extension, or structured garbage for one reader (JSON/YAML documents
built from the schema's keys, text art, Tatham ids, Sudoku and jigsaw lines,
PLS and DZN files: their own tokens, mostly in the right amounts) -- and the
cases take the *commands* in turn: ``show``, ``convert --to json``,
``check --time-limit 2`` and ``solve --time-limit 2``. The case runs
:func:`futocp.cli.main` in a worker process under ``RLIMIT_AS`` (``--memory``,
default 1024 MB) and a time limit (``--timeout``, default 20 s); a worker that
overruns is killed and replaced. Before the command, the worker reads the file
with :func:`futocp.formats.read_many` and times it.

Outcomes (``expected`` ones first):

* ``answered``: exit 0, 1, 3 or 4 -- read and answered;
* ``refused``: exit 2 and one line naming the file -- the expected refusal;
* findings: ``traceback`` (an exception escaped ``main``), ``unnamed`` (exit 2
  but the line does not name the file, or more than one line), ``solver``
  (exit 70), ``memory`` (MemoryError under the limit), ``timeout-read`` /
  ``timeout-run`` (killed while reading / while running the command), ``crash``
  (the worker died: a segmentation fault...), ``slow-read`` (read in more than
  ``--slow`` seconds, default 5).

Printed: counts by outcome, by input kind and by command, the slowest reads,
and each finding with its message; written: ``OUT/summary.json`` and, for
each finding, ``OUT/findings/NNNN-<outcome>.json`` (command, file name,
message; the input's bytes hex-encoded) that ``--replay`` runs again in this
process. The strategies are shared with ``tests/test_hostile.py``, which runs
a small budget of them on the readers alone.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing as mp
import os
import resource
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from futocp import formats
from futocp.errors import FutocpError
from futocp.formats.limits import decode_text
from futocp.formats.schema import kinds, relation_keys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INSTANCES = os.path.join(ROOT, "instances")
EXTENSIONS = {fmt.name: fmt.extensions[0] for fmt in formats.FORMATS.values()}
COMMANDS: dict[str, list[str]] = {
    "show": ["show"],
    "convert": ["convert", "--to", "json"],
    "check": ["check", "--time-limit", "2"],
    "solve": ["solve", "--time-limit", "2"],
}

# ------------------------------------------------------------------ inputs


def corpus(max_bytes: int | None = None) -> list[tuple[str, bytes]]:
    """``(path relative to instances/, bytes)`` of every shipped file with a format's
    extension (``.txt`` included), at most ``max_bytes`` long when given."""
    known = tuple(ext for fmt in formats.FORMATS.values() for ext in fmt.extensions)
    out = []
    for folder, _dirs, files in sorted(os.walk(INSTANCES)):
        for name in sorted(files):
            if not name.lower().endswith(known) or name.startswith("LICENSE"):
                continue
            path = os.path.join(folder, name)
            with open(path, "rb") as fh:
                data = fh.read()
            if max_bytes is None or len(data) <= max_bytes:
                out.append((os.path.relpath(path, INSTANCES), data))
    return out


#: Snippets a mutation inserts: the shapes of the hostile inputs found so far.
_RAW: list[str | bytes] = [
    "9" * 5000, "9" * 31, "1000000000", "30000:", "1000000:", "order 100000", "N = 100000;",
    "\ufeff", "\u2460", "\u0663", "\u00b2", "\u212a", b"\xe9", b"\xff\xfe", b"\x00", "\t",
    "[" * 200, "{" * 150, "&a [1, 2]", "*a", "<<: *a", "!!python/object:os.system {}",
    "!!timestamp '9999999-01-01'", "!!binary x", "? [a, b]\n: 1", "\n", "\r\n", "#", "#! kind=",
    "<", ">", "|", "^", "v", "-", ":", ",", "{", "}", "[|", "|]", ";", "%", "=", ".",
    "-1", "0", "1e400", "NaN", "true", "null", '"kind": "board"', '"cells": 1000000000',
    '"size": 1000', "size: 1000", "kind: board", "regions", "box=1000x1000", "box=\u2460x2",
    "multiset=", "futoshiki 1000", "latin-square 5", "jigsaw", "U", "R", "D", "L", "z" * 30,
    '"givens": [[[1]]]', '{"a": 1}', "[1]", "x" * 2000,
]
SNIPPETS: list[bytes] = [s.encode() if isinstance(s, str) else s for s in _RAW]


@st.composite
def mutated_bytes(draw: Callable[..., Any], data: bytes) -> bytes:
    """``data`` after one to four mutations (byte changes, snippets, cuts, copies)."""
    buf = bytearray(data)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3, 4]))):
        op = draw(st.sampled_from(["flip", "snippet", "snippet", "delete", "duplicate",
                                   "truncate", "digit", "digit", "digit", "swap-lines"]))
        at = draw(st.integers(0, len(buf)))
        if op == "flip" and buf:
            buf[min(at, len(buf) - 1)] = draw(st.integers(0, 255))
        elif op == "snippet":
            buf[at:at] = draw(st.sampled_from(SNIPPETS))
        elif op == "delete":
            buf[at:at + draw(st.integers(1, 64))] = b""
        elif op == "duplicate":
            chunk = bytes(buf[at:at + draw(st.integers(1, 256))])
            buf[at:at] = chunk * draw(st.integers(1, 3))
        elif op == "truncate":
            del buf[at:]
        elif op == "digit":
            digits = [i for i, b in enumerate(buf) if 48 <= b <= 57]
            if digits:
                buf[draw(st.sampled_from(digits))] = draw(st.integers(48, 57))
        elif op == "swap-lines":
            lines = bytes(buf).split(b"\n")
            if len(lines) > 1:
                i = draw(st.integers(0, len(lines) - 1))
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
                buf = bytearray(b"\n".join(lines))
    return bytes(buf)


_KEYS = sorted({"kind", "size", "givens", "cells", "labels", "asterisms", "clues", "inscription",
                "shape", "name", "box", "regions", "multiset", "word", "grade", "n"}
               | set(relation_keys()))
_SCALARS = st.one_of(st.integers(-3, 12), st.integers(), st.sampled_from([0, 1, 2, 9, 1000]),
                     st.text(max_size=8), st.sampled_from(sorted(kinds())), st.booleans(),
                     st.none(), st.floats(allow_nan=True))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.dictionaries(st.sampled_from(_KEYS + ["cells", "sum"]),
                                                 inner, max_size=4)), max_leaves=40)


@st.composite
def document(draw: Callable[..., Any]) -> dict[str, Any]:
    """A JSON/YAML document of the schema's keys, most often with a known kind."""
    doc = draw(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=5)) \
        if draw(st.booleans()) else {}
    if draw(st.integers(0, 3)):
        doc["kind"] = draw(st.sampled_from(["futoshiki", "latin-square", "futoshiki-adjacent",
                                            "sudoku", "board", *sorted(kinds())]))
    if draw(st.integers(0, 3)):
        n = draw(st.integers(1, 6))
        doc.setdefault("size", n)
        cell = st.one_of(st.integers(0, n), st.integers(0, n), _SCALARS)
        doc["givens"] = draw(st.lists(st.lists(cell, min_size=n - 1, max_size=n + 1),
                                      min_size=n - 1, max_size=n + 1))
        if draw(st.booleans()):
            coord = st.lists(st.integers(-1, n), min_size=2, max_size=2)
            doc[draw(st.sampled_from(sorted(relation_keys())))] = draw(
                st.lists(st.one_of(st.lists(coord, min_size=2, max_size=2),
                                   st.fixed_dictionaries({"sum": st.integers(0, 30),
                                                          "cells": st.lists(coord, max_size=4)}),
                                   _VALUES), max_size=6))
    return doc


def _line(alphabet: str, min_size: int = 0, max_size: int = 40) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size)


def _near(draw: Callable[..., Any], n: int) -> int:
    """``n``, or now and then one off."""
    return n + draw(st.sampled_from([0, 0, 0, 0, 0, 0, -1, 1]))


@st.composite
def _grid_values(draw: Callable[..., Any], n: int, empty: int, low: int, high: int
                 ) -> list[list[int]]:
    """About n rows of about n values, mostly ``empty``, else in low..high (now and then out)."""
    value = st.one_of(st.just(empty), st.just(empty), st.integers(low, high),
                      st.integers(low - 2, high + 2))
    out = []
    for _ in range(max(_near(draw, n), 0)):
        size = max(_near(draw, n), 0)
        out.append(draw(st.lists(value, min_size=size, max_size=size)))
    return out


@st.composite
def garbage(draw: Callable[..., Any], fmt: str) -> bytes:
    """Structured garbage for the reader of ``fmt``: its own tokens, mostly in the right
    amounts (so that the board is built, and the commands run, now and then), else chaos."""
    chaos = draw(st.integers(0, 3)) == 0
    n = draw(st.integers(1, 6))
    if fmt in ("json", "yaml"):
        import yaml

        doc = draw(document())
        if fmt == "json":
            text = json.dumps(doc, allow_nan=True)
        else:
            text = yaml.safe_dump(doc, allow_unicode=draw(st.booleans()))
    elif fmt == "text":
        head = draw(st.sampled_from(["", "futoshiki", "latin-square", "futoshiki-adjacent"]))
        if head and draw(st.booleans()):
            head += f" {_near(draw, n)}"
        if chaos:
            head = draw(st.sampled_from([head, "sudoku box=2x2", "jigsaw", "latin-triangle",
                                         "sudoku-ripeto multiset=1122"]))
            rows = draw(st.lists(_line(" .0123456789<>|^v-#=\u2460"), max_size=8))
        else:
            rows = []
            for values in draw(_grid_values(n, 0, 1, n)):
                cells = ["." if v == 0 else str(v) for v in values]
                gaps = [draw(st.sampled_from(["   ", "   ", " < ", " > ", " | "]))
                        for _ in cells[1:]]
                rows.append(cells[0] + "".join(g + c for g, c in zip(gaps, cells[1:], strict=True))
                            if cells else "")
                if draw(st.booleans()):
                    rows.append("".join(draw(st.sampled_from("   ^v-")) + "   "
                                        for _ in range(n)).rstrip() or "^")
        text = "\n".join(([head] if head else []) + rows) + "\n"
    elif fmt == "tatham":
        mode = draw(st.sampled_from(["", "", "a", "dk", "adx", "dq", "aa"]))
        if chaos:
            desc = draw(_line("0123456789URDLaz,", 0, 200))
        else:
            cells = []
            for _ in range(_near(draw, n * n)):
                flags = draw(st.sampled_from(["", "", "", "U", "R", "D", "L", "RD", "UL"]))
                cells.append(f"{draw(st.integers(0, n + (draw(st.integers(0, 9)) == 0)))}{flags},")
            desc = "".join(cells)
        text = f"{_near(draw, n)}{mode}:{desc}\n"
    elif fmt == "sudoku":
        lines = []
        if draw(st.integers(0, 3)) == 0:
            lines.append("#! kind=" + draw(st.sampled_from(["sudoku", "sudoku-x", "jigsaw",
                                                            "hypersudoku", "canario"]))
                         + draw(st.sampled_from(["", " box=2x2", " box=3x3", " box=1x4"])))
        side = draw(st.sampled_from([4, 4, 6, 9, 9, 16]))
        alphabet = ".0" + "123456789ABCDEFG"[:side] + ("xZ\u2460:" if chaos else "")
        for _ in range(draw(st.integers(1, 3))):
            size = side * side + (draw(st.integers(-2, 2)) if chaos else 0)
            lines.append(draw(_line(alphabet, max(size, 0), max(size, 0))))
        text = "\n".join(lines) + "\n"
    elif fmt == "jigsaw":
        side = draw(st.sampled_from([4, 4, 6, 9]))
        givens = draw(_line(".0" + "123456789"[:side], side * side, side * side))
        regions = [chr(65 + i // side) for i in range(side * side)]  # rows as regions
        for _ in range(draw(st.integers(0, 6))):  # swaps keep every region's size
            i, j = draw(st.integers(0, side * side - 1)), draw(st.integers(0, side * side - 1))
            regions[i], regions[j] = regions[j], regions[i]
        if chaos:
            regions[draw(st.integers(0, side * side - 1))] = draw(st.sampled_from("AZ1:"))
        sep = draw(st.sampled_from(["\n", " ", ":"]))
        text = givens + sep + "".join(regions) + "\n"
    elif fmt == "pls":
        if chaos:
            rows = draw(st.lists(st.lists(st.integers(-2, n + 1), max_size=n + 1), max_size=n + 1))
        else:
            rows = draw(_grid_values(n, -1, 0, n - 1))
        text = f"order {_near(draw, n)}\n" + "".join(" ".join(map(str, r)) + "\n" for r in rows)
    else:  # dzn
        rows = draw(_grid_values(n, 0, 1, n))
        body = "|".join(", ".join(map(str, r)) for r in rows)
        m = _near(draw, n)
        text = draw(st.sampled_from([f"N = {m};\nstart = [|{body}|];\n",
                                     f"start = [|{body}|];\nN = {m};\n",
                                     f"N = {m};\nstart = [{body}];\n" if chaos else
                                     f"% QWH\nN={m};\nstart=[|\n{body}|];\n"]))
    return text.encode("utf-8")


@dataclass(frozen=True)
class Case:
    """One fuzz input: where it came from, the file name it is read under, its bytes."""

    kind: str  # "mutated:<instance>", "renamed:<instance>", "garbage:<format>"
    name: str  # the file name (its extension chooses the format)
    data: bytes


def cases(max_bytes: int | None = None) -> st.SearchStrategy[Case]:
    """Fuzz inputs: mutated instances, instances under another extension, and garbage."""
    files = corpus(max_bytes)

    @st.composite
    def mutated(draw: Callable[..., Any]) -> Case:
        path, data = draw(st.sampled_from(files))
        return Case(f"mutated:{path}", os.path.basename(path), draw(mutated_bytes(data)))

    @st.composite
    def renamed(draw: Callable[..., Any]) -> Case:
        path, data = draw(st.sampled_from(files))
        ext = draw(st.sampled_from(sorted({e for f in formats.FORMATS.values()
                                           for e in f.extensions} | {".puz"})))
        base = os.path.splitext(os.path.basename(path))[0]
        return Case(f"renamed:{path}", base + ext, data)

    @st.composite
    def junk(draw: Callable[..., Any]) -> Case:
        fmt = draw(st.sampled_from(sorted(formats.FORMATS)))
        return Case(f"garbage:{fmt}", "garbage" + EXTENSIONS[fmt], draw(garbage(fmt)))

    return st.one_of(mutated(), mutated(), renamed(), junk(), junk())


def read_case(name: str, data: bytes) -> list[Any]:
    """Read a case's bytes as a file of that name would be (format by extension/content)."""
    return formats.loads_many(decode_text(data, name), None, name)


# ------------------------------------------------------------------ running
@dataclass
class Outcome:
    """What one case came to."""

    outcome: str
    code: int | None = None
    message: str = ""
    read_s: float | None = None
    run_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def classify(path: str, code: int | None, err: str) -> tuple[str, str]:
    """``(outcome, message)`` of a CLI run: its exit code and standard error."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    message = lines[-1] if lines else ""
    if code in (0, 1, 3, 4):
        return "answered", message
    if code == 2:
        # the refusal must be one line naming the file (a read error names FILE:line:col)
        named = len(lines) == 1 and (f"error: {path}:" in lines[0] or f"error: {path} " in lines[0])
        return ("refused" if named else "unnamed"), message
    if code == 70:
        return "solver", message
    return "traceback" if code is None else f"exit-{code}", message


def run_case(case: Case, command: str, folder: str) -> Outcome:
    """Run one case in this process (the worker's body)."""
    from futocp.cli import main

    path = os.path.join(folder, case.name)
    with open(path, "wb") as fh:
        fh.write(case.data)
    start = time.perf_counter()
    read_error = None
    try:
        formats.read_many(path)
    except MemoryError:
        return Outcome("memory", message="MemoryError while reading")
    except Exception as exc:  # noqa: BLE001 - the fuzz records whatever escapes
        read_error = exc
    read_s = time.perf_counter() - start
    if read_error is not None and not isinstance(read_error, FutocpError):
        return Outcome("traceback", message=f"{type(read_error).__name__}: {read_error}"[:500],
                       read_s=read_s, extra={"traceback": traceback.format_exc()[-3000:]})
    err, out = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code: int | None
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(COMMANDS[command] + [path])
    except MemoryError:
        return Outcome("memory", message="MemoryError while running", read_s=read_s)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:  # noqa: BLE001
        return Outcome("traceback", message=f"{type(exc).__name__}: {exc}"[:500], read_s=read_s,
                       extra={"traceback": traceback.format_exc()[-3000:]})
    outcome, message = classify(path, code, err.getvalue())
    return Outcome(outcome, code, message[:500], read_s, time.perf_counter() - start)


def _worker(conn: Any, memory_mb: int) -> None:
    limit = memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    folder = tempfile.mkdtemp(prefix="futocp-fuzz-")
    try:
        while True:
            job = conn.recv()
            if job is None:
                return
            case, command = job
            conn.send(("reading",))
            result = run_case(case, command, folder)
            conn.send(("done", result))
            for name in os.listdir(folder):
                os.unlink(os.path.join(folder, name))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Worker:
    """A worker process under a memory limit, replaced when it dies or overruns."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self.proc: Any = None
        self.conn: Any = None

    def _start(self) -> None:
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.memory_mb), daemon=True)
        self.proc.start()

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.proc = None

    def run(self, case: Case, command: str, timeout: float) -> Outcome:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send((case, command))
        deadline = time.monotonic() + timeout
        phase = "sent"
        while True:
            left = deadline - time.monotonic()
            try:
                ready = self.conn.poll(max(left, 0))
            except (EOFError, OSError):
                ready = False
            if not ready:
                if not self.proc.is_alive():
                    code = self.proc.exitcode
                    self._kill()
                    return Outcome("crash", code, f"the worker died (exit {code}) while {phase}")
                self._kill()
                what = "timeout-read" if phase in ("sent", "reading") else "timeout-run"
                return Outcome(what, None, f"killed after {timeout:g} s")
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                code = self.proc.exitcode if self.proc else None
                self._kill()
                return Outcome("crash", code, f"the worker died (exit {code}) while {phase}")
            if msg[0] == "reading":
                phase = "reading"
                continue
            return msg[1]

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(5)
        self._kill()


EXPECTED = {"answered", "refused"}


def fuzz(count: int, seed: int, out: str, memory_mb: int, timeout: float, slow: float,
         commands: list[str]) -> dict[str, Any]:
    """Run ``count`` cases; returns the summary (also written to OUT/summary.json)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    os.makedirs(os.path.join(out, "findings"), exist_ok=True)
    worker = Worker(memory_mb)
    records: list[dict[str, Any]] = []
    start = time.perf_counter()

    @hseed(seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=cases())
    def one(case: Case) -> None:
        command = commands[len(records) % len(commands)]  # in turn: Hypothesis favours firsts
        result = worker.run(case, command, timeout)
        if result.outcome in EXPECTED and result.read_s is not None and result.read_s > slow:
            result.outcome = "slow-read"
        record = {"index": len(records), "kind": case.kind.split(":")[0], "source": case.kind,
                  "name": case.name, "command": command, "outcome": result.outcome,
                  "code": result.code, "message": result.message, "read_s": result.read_s,
                  "run_s": result.run_s, "bytes": len(case.data)}
        records.append(record)
        if result.outcome not in EXPECTED:
            path = os.path.join(out, "findings", f"{record['index']:04d}-{result.outcome}.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump({**record, **result.extra, "data_hex": case.data.hex()}, fh, indent=1)
        if len(records) % 250 == 0:
            print(f"  {len(records)} cases, {time.perf_counter() - start:.0f} s", file=sys.stderr)

    try:
        one()
    finally:
        worker.close()
    elapsed = time.perf_counter() - start
    summary = {
        "cases": len(records), "seed": seed, "elapsed_s": round(elapsed, 1),
        "memory_mb": memory_mb, "timeout_s": timeout,
        "outcomes": dict(Counter(r["outcome"] for r in records).most_common()),
        "by_kind": {k: dict(Counter(r["outcome"] for r in records if r["kind"] == k))
                    for k in sorted({r["kind"] for r in records})},
        "by_command": {c: dict(Counter(r["outcome"] for r in records if r["command"] == c))
                       for c in commands},
        "slowest_reads": sorted(({"source": r["source"], "read_s": round(r["read_s"], 3),
                                  "outcome": r["outcome"]}
                                 for r in records if r["read_s"] is not None),
                                key=lambda r: -r["read_s"])[:5],
        "findings": [{k: r[k] for k in ("index", "outcome", "source", "command", "message")}
                     for r in records if r["outcome"] not in EXPECTED],
    }
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=1)
    return summary


def replay(path: str) -> int:
    """Run a finding again in this process and print what it gives now."""
    with open(path, encoding="utf-8") as fh:
        item = json.load(fh)
    case = Case(item["source"], item["name"], bytes.fromhex(item["data_hex"]))
    folder = tempfile.mkdtemp(prefix="futocp-fuzz-")
    try:
        result = run_case(case, item["command"], folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{item['source']} as {item['name']}, {item['command']}: was {item['outcome']} "
          f"({item['message']}); now {result.outcome} ({result.message})")
    if "traceback" in result.extra:
        print(result.extra["traceback"])
    return 0 if result.outcome in EXPECTED else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=int, default=1000, help="cases to run (default 1000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="fuzz-out", help="folder for summary.json and findings/")
    p.add_argument("--memory", type=int, default=1024, metavar="MB",
                   help="address-space limit of the worker (default 1024)")
    p.add_argument("--timeout", type=float, default=20.0, metavar="S",
                   help="time limit of one case (default 20)")
    p.add_argument("--slow", type=float, default=5.0, metavar="S",
                   help="a read slower than this is a finding (default 5)")
    p.add_argument("--commands", nargs="+", choices=sorted(COMMANDS), default=list(COMMANDS))
    p.add_argument("--replay", metavar="FINDING.json", help="run one finding again")
    args = p.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    summary = fuzz(args.cases, args.seed, args.out, args.memory, args.timeout, args.slow,
                   args.commands)
    print(f"{summary['cases']} cases in {summary['elapsed_s']} s (seed {summary['seed']}, "
          f"{summary['memory_mb']} MB, {summary['timeout_s']:g} s a case)")
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items()))
    for kind, counts in summary["by_kind"].items():
        print(f"  {kind:<9}", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for command, counts in summary["by_command"].items():
        print(f"  {command:<9}", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("slowest reads:", ", ".join(f"{r['source']} {r['read_s']} s"
                                      for r in summary["slowest_reads"]))
    for f in summary["findings"]:
        print(f"FINDING {f['index']:04d} {f['outcome']}: {f['source']} / {f['command']}: "
              f"{f['message']}")
    return 1 if summary["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
