"""futocp's Solo grades beside Simon Tatham's, and its Solo generator beside his.

**Grades.** Reads ``tests/data/tatham-graded-solo.tsv`` (ids of Debian's
``sgt-solo --generate``, ``sgt-puzzles`` 20230122, with the grade his own
solver prints) and ``tests/data/tatham-graded-solo-generated.tsv`` (more of
his generator's ids, each labelled with the difficulty asked: his generator
keeps a puzzle only when his solver grades it exactly that, and makes every
2x2 puzzle trivial), grades each with :func:`futocp.rating.solo.grade` and
prints, per mode and grade, how many agree and the median time per grade.
``--fresh N`` first asks ``sgt-solo`` (on the ``PATH`` or in ``/usr/games``)
for N new ids of every mode and grade of ``--modes``; ``--data FILE`` reads
``PARAMS<tab>id`` lines (``sgt-solo --generate N PARAMS``) instead of the
generated file.

**Generator.** ``--generator K`` makes K puzzles of ``--spec`` (default
``3x3da``: 9x9 Solo advanced) with :func:`futocp.generate_solo.generate`
(seeds 1..K) and K with ``sgt-solo --generate 1 SPEC``, interleaved one and
one, and prints the median wall time per puzzle of each and their ratio.

Usage (from the repository root)::

    python benchmarks/solo_grades.py
    python benchmarks/solo_grades.py --fresh 10 --modes 3x3,3x3k,9j
    python benchmarks/solo_grades.py --generator 10 --spec 3x3da
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from futocp import formats
from futocp.generate_solo import generate
from futocp.rating import solo

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data" / "tatham-graded-solo.tsv"
GENERATED = ROOT / "tests" / "data" / "tatham-graded-solo-generated.tsv"
LETTERS = "tbiaeu"


def sgt_solo() -> str | None:
    """Tatham's generator: ``sgt-solo`` on the PATH, or where Debian puts it."""
    return shutil.which("sgt-solo", path=os.environ.get("PATH", "") + os.pathsep + "/usr/games")


def labelled(files: list[Path] | None = None) -> list[tuple[str, str, str]]:
    """``(mode, expected grade, id)`` of the sample and of files of ``PARAMS<tab>id``
    lines (default: the generated ids of tests/data); mode: the params without ``d<c>``."""
    out = []
    lines = SAMPLE.read_text().splitlines()[1:]
    for line in lines:
        _, params, rating, _, game_id = line.split("\t")
        out.append((params[:-2], rating.lower(), game_id))
    for path in files or [GENERATED]:
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                params, game_id = line.split("\t")
                want = ("trivial" if params.startswith("2x2")
                        else solo.GRADES[LETTERS.index(params[-1])])
                out.append((params[:-2], want, game_id))
    return out


def fresh(count: int, modes: list[str]) -> list[tuple[str, str, str]]:
    """New ids of his generator: ``count`` per mode and difficulty letter."""
    exe = sgt_solo()
    if exe is None:
        sys.exit("sgt-solo not found (Debian package sgt-puzzles)")
    out = []
    for mode in modes:
        for letter in LETTERS:
            text = subprocess.run([exe, "--generate", str(count), f"{mode}d{letter}"],
                                  capture_output=True, text=True, check=True).stdout
            want = "trivial" if mode.startswith("2x2") else solo.GRADES[LETTERS.index(letter)]
            out += [(mode, want, line) for line in text.split() if ":" in line]
    return out


def agreement(rows: list[tuple[str, str, str]]) -> int:
    """Print the agreement table; returns the number of disagreements."""
    agree: dict[tuple[str, str], int] = defaultdict(int)
    total: dict[tuple[str, str], int] = defaultdict(int)
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    wrong = []
    for mode, want, game_id in rows:
        board = formats.loads(game_id, "solo")
        t0 = time.perf_counter()
        out = solo.grade(board)
        times[mode, want].append(time.perf_counter() - t0)
        got = solo.GRADES[out.level] if out.level is not None else out.status
        total[mode, want] += 1
        if got == want:
            agree[mode, want] += 1
        else:
            wrong.append((mode, want, got, game_id))
    print("| mode | grade | ids | agree | median grade time (ms) |")
    print("|---|---|---:|---:|---:|")
    for mode, want in sorted(total, key=lambda k: (k[0], solo.GRADES.index(k[1]))):
        key = (mode, want)
        print(f"| {mode} | {want} | {total[key]} | {agree[key]} | "
              f"{1000 * statistics.median(times[key]):.1f} |")
    n, ok = sum(total.values()), sum(agree.values())
    print(f"\n{ok} of {n} agree ({100 * ok / n:.2f} %)")
    for mode, want, got, game_id in wrong:
        print(f"  {mode}: Tatham {want}, futocp {got}: {game_id}")
    return len(wrong)


def generator(count: int, spec: str) -> None:
    """Median time per puzzle: futocp's generator and his, interleaved."""
    exe = sgt_solo()
    m = re.fullmatch(r"(\d+)(?:x(\d+))?(j?)(x?)(k?)d([tbiaeu])", spec)
    if m is None:
        sys.exit(f"--spec: Solo parameters like 3x3da, 3x3kdb, 9jde, not {spec!r}")
    c, r, jig, x, k, letter = m.groups()
    fam = ("killer-" if k else "") + ("jigsaw" if jig else "sudoku") + ("-x" if x else "")
    params = {} if jig else {"box": (int(c), int(r or c))}
    size = int(c) if jig else None
    ours, his = [], []
    for seed in range(1, count + 1):
        t0 = time.perf_counter()
        generate(fam, letter, size=size, seed=seed, params=params)
        ours.append(time.perf_counter() - t0)
        if exe is not None:
            t0 = time.perf_counter()
            subprocess.run([exe, "--generate", "1", spec], capture_output=True, check=True)
            his.append(time.perf_counter() - t0)
    print(f"{spec}: futocp generate_solo median {statistics.median(ours):.2f} s "
          f"(min {min(ours):.2f}, max {max(ours):.2f}) over {count} puzzles")
    if his:
        print(f"{spec}: sgt-solo --generate 1 median {statistics.median(his):.3f} s "
              f"(min {min(his):.3f}, max {max(his):.3f}); ratio "
              f"{statistics.median(ours) / statistics.median(his):.0f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fresh", type=int, default=0, help="new ids per mode and grade from sgt-solo")
    ap.add_argument("--modes", default="2x2,2x3,3x3,3x3x,3x3k,9j",
                    help="modes for --fresh (comma-separated)")
    ap.add_argument("--generator", type=int, default=0,
                    help="time this many generated puzzles of --spec, ours and his")
    ap.add_argument("--spec", default="3x3da", help="Solo parameters for --generator")
    ap.add_argument("--data", type=Path, action="append",
                    help="a file of PARAMS<tab>id lines of sgt-solo --generate N PARAMS, "
                         "instead of the generated ids of tests/data (repeatable)")
    args = ap.parse_args(argv)
    if args.generator:
        generator(args.generator, args.spec)
        return 0
    rows = fresh(args.fresh, args.modes.split(",")) if args.fresh else labelled(args.data)
    return 1 if agreement(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
