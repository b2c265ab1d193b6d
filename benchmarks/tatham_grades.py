"""Agreement of the keen and towers scales with Simon Tatham's own grades.

Tatham's generators make a puzzle of exactly the difficulty asked (each checks
that the puzzle is solvable at that level and not at the one below), so the
letter asked is the expected grade. This script asks Debian's ``sgt-keen`` and
``sgt-towers`` (package ``sgt-puzzles``) for ``--count`` ids of every size and
difficulty, grades each with futocp, and prints the agreement per game, size and
grade, and the median and slowest grading time.

Run (about 10 minutes with the defaults)::

    python benchmarks/tatham_grades.py
    python benchmarks/tatham_grades.py --count 4 --sizes 4 5 6 --games keen

``--generation N`` instead times N puzzles of 6x6 hard Keen from futocp's generator
(seeds 0..N-1) beside N runs of ``sgt-keen --generate 1 6dh``, interleaved, and
prints both medians and their ratio::

    python benchmarks/tatham_grades.py --generation 15

Without the generators, ``--ids FILE`` grades a file of ``game<TAB>params<TAB>id``
lines (``params`` as ``6dh``, ``6dhm``; the header line of
``tests/data/tatham-graded-*.tsv`` is skipped and their ``rating`` column used).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict

from futocp.formats import loads
from futocp.rating.games import game_scale

LETTERS = {"keen": "enhxu", "towers": "ehxu"}
BINARY = {"keen": "sgt-keen", "towers": "sgt-towers"}
# Tatham's generators take minutes for large unreasonable Towers
SKIP = {("towers", "u", 8), ("towers", "u", 9)}


def generated(game: str, sizes: list[int], count: int, mult: bool) -> list[tuple[str, str, str]]:
    """``(game, params, id)`` from Tatham's generator, every size and difficulty."""
    exe = shutil.which(BINARY[game]) or shutil.which(f"/usr/games/{BINARY[game]}")
    if exe is None:
        sys.exit(f"{BINARY[game]} not found: install Debian's sgt-puzzles, or use --ids")
    out = []
    for size in sizes:
        for letter in LETTERS[game]:
            if (game, letter, size) in SKIP or (size == 3 and letter not in "en"):
                continue
            # multiplication-only unreasonable Keen takes his generator minutes
            variants = [""] + (["m"] if mult and game == "keen" and letter != "u" else [])
            for m in variants:
                params = f"{size}d{letter}{m}"
                n = count if not m else max(1, count // 3)
                try:
                    res = subprocess.run([exe, "--generate", str(n), params],
                                         capture_output=True, text=True, timeout=300, check=True)
                except subprocess.TimeoutExpired:
                    print(f"skipped {params}: the generator took over 300 s", file=sys.stderr)
                    continue
                out.extend((game, params, line.strip()) for line in res.stdout.splitlines()
                           if line.strip())
    return out


def from_file(path: str) -> list[tuple[str, str, str, str | None]]:
    rows = []
    with open(path) as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if not line.strip() or parts[0] == "game":
                continue
            want = parts[2].lower() if len(parts) > 3 else None
            rows.append((parts[0], parts[1], parts[-1], want))
    return rows


def generation(n: int, spec: str = "6dh") -> None:
    """Median seconds per puzzle: futocp's Keen generator beside Tatham's, interleaved."""
    from futocp.generate_games import generate

    exe = shutil.which("sgt-keen") or shutil.which("/usr/games/sgt-keen")
    size, grade = int(spec.split("d")[0]), spec.split("d")[1]
    ours, his = [], []
    for seed in range(n):
        t0 = time.perf_counter()
        generate("keen", grade, size=size, seed=seed)
        ours.append(time.perf_counter() - t0)
        if exe:
            t0 = time.perf_counter()
            subprocess.run([exe, "--generate", "1", spec], capture_output=True, check=True)
            his.append(time.perf_counter() - t0)
    mo = statistics.median(ours)
    print(f"futocp generate keen {spec}: median {mo:.3f} s per puzzle over {n} "
          f"(min {min(ours):.3f}, max {max(ours):.3f})")
    if his:
        mh = statistics.median(his)
        print(f"sgt-keen --generate 1 {spec}: median {mh:.3f} s per puzzle over {n} "
              f"(process start included); ratio futocp/Tatham {mo / mh:.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="+", default=["keen", "towers"], choices=["keen", "towers"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[4, 5, 6, 7, 8, 9])
    ap.add_argument("--count", type=int, default=12, help="ids per size and difficulty")
    ap.add_argument("--no-mult", action="store_true", help="no multiplication-only Keen")
    ap.add_argument("--ids", help="grade the ids of this file instead")
    ap.add_argument("--generation", type=int, metavar="N", help="time N 6x6 hard Keen "
                    "generations beside Tatham's instead")
    args = ap.parse_args()
    if args.generation:
        generation(args.generation)
        return
    rows: list[tuple[str, str, str, str | None]] = []
    if args.ids:
        rows = from_file(args.ids)
    else:
        for game in args.games:
            rows.extend((g, p, i, None) for g, p, i in generated(game, args.sizes, args.count,
                                                                 not args.no_mult))
    agree: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    by_size: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    times: dict[str, list[float]] = defaultdict(list)
    misses = []
    for game, params, game_id, want in rows:
        scale = game_scale(game)
        assert scale is not None
        letter = params.split("d")[1][0]
        expect = want or dict(zip(LETTERS[game], scale.grades, strict=True))[letter]
        board = loads(game_id, game)
        t0 = time.perf_counter()
        out = scale.grade(board, len(scale.grades) - 1)
        times[f"{game} {params.split('d')[0]}x"].append(time.perf_counter() - t0)
        got = scale.grades[out.level] if out.level is not None else out.status
        ok = got == expect
        for table, key in ((agree, (game, expect)), (by_size, (game, int(params.split("d")[0])))):
            table[key][0] += ok
            table[key][1] += 1
        if not ok:
            misses.append((game, params, game_id, expect, got))
    print(f"{'game':<7} {'grade':<13} {'agree':>9}")
    for game in args.games:
        scale = game_scale(game)
        assert scale is not None
        for grade in scale.grades:
            if (game, grade) in agree:
                a, n = agree[game, grade]
                print(f"{game:<7} {grade:<13} {a:>4}/{n:<4}")
        a = sum(v[0] for (g, _), v in agree.items() if g == game)
        n = sum(v[1] for (g, _), v in agree.items() if g == game)
        print(f"{game:<7} {'all':<13} {a:>4}/{n:<4} ({100 * a / max(n, 1):.1f} %)")
    print()
    print(f"{'game':<7} {'size':<5} {'agree':>9} {'median ms':>10} {'max ms':>8}")
    for (game, size), (a, n) in sorted(by_size.items()):
        ts = times[f"{game} {size}x"]
        print(f"{game:<7} {size:<5} {a:>4}/{n:<4} {1000 * statistics.median(ts):>10.1f} "
              f"{1000 * max(ts):>8.1f}")
    for game, params, game_id, expect, got in misses:
        print(f"MISS {game} {params} {game_id}: Tatham {expect}, futocp {got}")


if __name__ == "__main__":
    main()
