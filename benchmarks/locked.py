"""listcolor's locked candidates (option ``locked_candidates``) on and off, set by set.

Issue 25 item 6, fifth round. ``--rounds`` times, the two settings in turns,
each set of ``--sets`` (the sets of ``benchmarks/auto_switch.py``: the Sudoku
collections by ``futocp.solve_many``, Tatham's Latin games, adjacent and
Kropki Futoshiki, QWH files) is solved in a fresh child process by
``listcolor`` with its defaults and ``locked_candidates`` on or off, one
solution a board (``auto_switch.time_sets``: the CPU seconds of the set, the
boards parsed before the clock starts, a quick set's median of 7 runs; its
nodes). The table gives per set the median CPU seconds with each setting,
their ratio (on / off) and the nodes. A Latin square's rows and columns share
one cell: on its sets the rule never applies (the same nodes) and the search
runs the same code, so their ratios are the noise of the runs.

Run from the repository root::

    python benchmarks/locked.py
    python benchmarks/locked.py --rounds 5 --sets top1465,top95,solo
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_switch import ROOT, SETS, time_sets  # noqa: E402

__all__ = ["main"]

DEFAULT_SETS = tuple(s for s in SETS if s not in ("qwh:order40.holes5", "qwh:order60.holes1[46]",
                                                   "qwh:order70."))
"""The sets of auto_switch.py but its three longest (QWH orders 40-70: Latin squares,
where the rule never applies)."""


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="runs of each setting (medians)")
    p.add_argument("--sets", default=",".join(DEFAULT_SETS), help="comma-separated set names")
    p.add_argument("--child", nargs=2, metavar=("ON", "SETS"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(time_sets(a.child[1].split(","), locked_candidates=a.child[0] == "on")))
        return 0
    names = a.sets.split(",")
    runs: dict[str, list[dict[str, list[Any]]]] = {"on": [], "off": []}
    for _ in range(a.rounds):
        for flag in runs:
            proc = subprocess.run([sys.executable, __file__, "--child", flag, ",".join(names)],
                                  capture_output=True, text=True, cwd=ROOT, check=True)
            runs[flag].append(json.loads(proc.stdout))
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"listcolor, locked_candidates on and off; CPU s per set (median of {a.rounds}) / "
          f"nodes; load average after {load}")
    print("| set | on | off | on / off |")
    print("|---|---|---|---|")
    for name in names:
        cpu = {f: statistics.median(r[name][0] for r in runs[f]) for f in runs}
        print(f"| {name} | {cpu['on']:.4f} / {runs['on'][0][name][1]} | "
              f"{cpu['off']:.4f} / {runs['off'][0][name][1]} | {cpu['on'] / cpu['off']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
