"""listcolor's ``lookahead="auto"`` switch: the dead ends before the lookahead, set by set.

The compiled core's ``AUTO_SWITCH`` (the reference's ``_AUTO_SWITCH``) is a
compile-time constant. For each value of ``--values`` this script builds both
cores (64-bit lists, ``futocp/backends/_listcolor_core.c``, and 128-bit,
``_listcolor_core_wide.c``: orders 65 to 128) with ``-DAUTO_SWITCH=N``
(setuptools' compiler, the interpreter's flags) into a temporary directory,
then, ``--rounds`` times with the values in turns, runs every set in a fresh
child process that loads those builds in place of the installed cores (and
sets ``_AUTO_SWITCH`` to N). A child solves each board with ``listcolor`` and its
defaults, one solution: ``futocp.solve_many`` for the Sudoku collections
(the batch, issue 25 item 6), ``futocp.solve`` per board for the other sets
(Futoshiki, adjacent and Kropki, Keen, Towers and Solo ids, QWH files), and
reports the CPU seconds of the set (boards parsed before the clock starts)
and its nodes. The table gives per set the median CPU seconds of each value,
their ratio to the first value's, and the nodes (a search is deterministic:
the same in every round).

Run from the repository root (a C compiler and the Python headers needed)::

    python benchmarks/auto_switch.py
    python benchmarks/auto_switch.py --values 20,40 --rounds 3 --sets top1465,top95
"""

from __future__ import annotations

import argparse
import csv
import glob
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORES = ("_listcolor_core", "_listcolor_core_wide")

__all__ = ["SETS", "CORES", "build", "boards_of", "time_sets", "main"]

#: The sets by name: Sudoku collections (batch), small boards, QWH file globs.
SETS = ("top1465", "top95", "adjacent", "kropki", "unequal", "keen", "towers", "solo",
        "qwh:order1[08].", "qwh:order20.", "qwh:order30.", "qwh:order35.", "qwh:order40.holes5",
        "qwh:order60.holes1[46]", "qwh:order70.")
BATCH = ("top1465", "top95")
QUICK_S, QUICK_REPEAT = 1.0, 6
"""A set solved in under QUICK_S CPU seconds is solved QUICK_REPEAT more times in its
child (its median run kept): the small sets take milliseconds."""


def build(value: int, out_dir: str) -> str:
    """The cores (:data:`CORES`) built with ``AUTO_SWITCH=value`` into a directory of
    ``out_dir``; that directory."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    cc = new_compiler()
    customize_compiler(cc)
    where = os.path.join(out_dir, str(value))
    for name in CORES:
        source = os.path.join(ROOT, "futocp", "backends", name + ".c")
        objects = cc.compile([source], output_dir=os.path.join(where, name),
                             macros=[("AUTO_SWITCH", str(value))],
                             include_dirs=[sysconfig.get_paths()["include"]])
        cc.link_shared_object(objects, os.path.join(where, name + sysconfig.get_config_var("EXT_SUFFIX")))
    return where


def boards_of(name: str) -> list[Any]:
    """The boards of the set ``name`` (see :data:`SETS`)."""
    from futocp.formats import loads, read, read_many

    if name in BATCH:
        return read_many(os.path.join(ROOT, "instances", "sudoku", f"{name}.txt"))
    if name in ("adjacent", "kropki"):
        sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
        import hard
        return [b for _, b in hard.small_sets([name])[name]]
    if name == "unequal":
        with open(os.path.join(ROOT, "tests", "data", "unequal-graded.tsv"), encoding="utf-8") as fh:
            rows = [line.rstrip("\n").split("\t") for line in fh if not line.startswith("#")]
        return [loads(r[2], format="tatham") for r in rows if len(r) == 3 and "a:" not in r[2]]
    if name in ("keen", "towers", "solo"):
        path = os.path.join(ROOT, "tests", "data", f"tatham-graded-{name}.tsv")
        with open(path, newline="", encoding="utf-8") as fh:
            return [loads(r["game_id"], name) for r in csv.DictReader(fh, delimiter="\t")]
    pattern = os.path.join(ROOT, "instances", "qwh", "lsencode", f"qwh.{name[4:]}*.pls")
    return [read(p, format="pls") for p in sorted(glob.glob(pattern))]


def _child(where: str, value: int, names: Sequence[str]) -> dict[str, tuple[float, int]]:
    """Every set of ``names`` with the cores built in ``where``: CPU seconds and nodes."""
    from futocp.backends import listcolor

    for name in CORES:
        path = os.path.join(where, name + sysconfig.get_config_var("EXT_SUFFIX"))
        spec = importlib.util.spec_from_file_location("futocp.backends." + name, path)
        assert spec is not None and spec.loader is not None
        core = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(core)
        assert core.AUTO_SWITCH == value, (name, core.AUTO_SWITCH, value)
        setattr(listcolor, name[len("_listcolor"):], core)  # listcolor._core, ._core_wide
    listcolor._AUTO_SWITCH = value
    return time_sets(names)


def time_sets(names: Sequence[str], **options: Any) -> dict[str, tuple[float, int]]:
    """Every set of ``names`` solved by listcolor with ``options``, one solution a board
    (:data:`BATCH` sets by ``futocp.solve_many``, the others board by board): its CPU
    seconds (the median of 1 + QUICK_REPEAT runs when quick) and its nodes."""
    import futocp

    out = {}
    for name in names:
        boards = boards_of(name)
        futocp.solve_many(boards[:10], **options)  # warm: imports, the compiled program
        cpus: list[float] = []
        while len(cpus) < (1 if cpus and cpus[0] > QUICK_S else 1 + QUICK_REPEAT):
            t0 = time.process_time()
            if name in BATCH:
                results = futocp.solve_many(boards, **options)
            else:
                results = [futocp.solve(b, "listcolor", **options) for b in boards]
            cpus.append(time.process_time() - t0)
        assert all(r.solutions and r.stats.get("core", "compiled") == "compiled" for r in results)
        out[name] = (statistics.median(cpus), sum(r.stats.get("nodes", 0) for r in results))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--values", default="20,30,40,60,100", help="AUTO_SWITCH values (comma-separated)")
    p.add_argument("--rounds", type=int, default=2, help="runs of each value (medians)")
    p.add_argument("--sets", default=",".join(SETS), help="comma-separated set names")
    p.add_argument("--child", nargs=3, metavar=("DIR", "VALUE", "SETS"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(_child(a.child[0], int(a.child[1]), a.child[2].split(","))))
        return 0
    values = [int(v) for v in a.values.split(",")]
    names = a.sets.split(",")
    runs: dict[int, list[dict[str, list[Any]]]] = {v: [] for v in values}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {v: build(v, tmp) for v in values}
        for _ in range(a.rounds):
            for v in values:
                proc = subprocess.run([sys.executable, __file__, "--child", paths[v], str(v),
                                       ",".join(names)], capture_output=True, text=True, cwd=ROOT,
                                      check=True)
                runs[v].append(json.loads(proc.stdout))
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"listcolor, lookahead=auto; CPU s per set (median of {a.rounds}) / nodes; "
          f"ratio to AUTO_SWITCH={values[0]}; load average after {load}")
    print("| set | " + " | ".join(f"{v}" for v in values) + " |")
    print("|---|" + "---|" * len(values))
    for name in names:
        cpu = {v: statistics.median(r[name][0] for r in runs[v]) for v in values}
        cells = [f"{cpu[v]:.3f} ({cpu[v] / cpu[values[0]]:.2f}x) / {runs[v][0][name][1]}"
                 for v in values]
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
