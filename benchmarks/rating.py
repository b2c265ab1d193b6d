"""Rating and generation by grade: time per puzzle, side by side with solving.

Four measurements, each printed as a Markdown table:

1. **The graded sample** (``tests/data/unequal-graded.tsv``: Tatham Unequal ids in
   both modes with his own grades): ``rate`` on the tatham scale, the median of
   ``--repeat`` runs per puzzle, then the median per order and mode; next to it
   the time of a uniqueness check (``listcolor``, ``limit=2``) of the same
   puzzles, and the ratio. Every grade is checked against Tatham's.
2. **The shipped 9x9 Futoshiki** (``instances/futoshiki/9x9-*.json``), the same way.
3. **top95** (``instances/sudoku/top95.txt``, hard 9x9 Sudoku), on the general
   scale: the median time and the grades.
4. **Generation by grade**: ``generate_graded`` for a 7x7 Extreme Futoshiki (and
   the other ``--generate`` specs), seeds 1..``--seeds``: the median time.

Times are wall-clock seconds of one call (the board is parsed beforehand); the
machine may be shared, so the medians matter, not the maxima.

Usage (from the repository root)::

    python benchmarks/rating.py                     # everything (a few minutes)
    python benchmarks/rating.py --repeat 1 --seeds 5 --top95 40
    python benchmarks/rating.py --generate futoshiki:7:extreme futoshiki-adjacent:7:extreme
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

from futocp import formats
from futocp.backends import get_backend
from futocp.board import Board
from futocp.generate_graded import GradeNotReached, generate_graded
from futocp.model import build_model
from futocp.rating import LEVELS, rate

ROOT = Path(__file__).resolve().parents[1]

SAMPLE = ROOT / "tests" / "data" / "unequal-graded.tsv"
FUTOSHIKI = ROOT / "instances" / "futoshiki"
TOP95 = ROOT / "instances" / "sudoku" / "top95.txt"


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    """The median wall time of ``repeat`` calls, and the last result."""
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def check_time(board: Board, repeat: int) -> float:
    """A uniqueness check with listcolor (model build included)."""
    backend = get_backend("listcolor")
    return timed(lambda: backend.solve(build_model(board), limit=2), repeat)[0]


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def sample_table(repeat: int) -> None:
    rows = []
    for line in SAMPLE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        spec, grade, game_id = line.split("\t")
        rows.append((spec.split("#")[0], grade.lower(), formats.loads(game_id, "tatham")))
    groups: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    wrong = 0
    all_rate = []
    for params, grade, board in rows:
        t_rate, r = timed(lambda b=board: rate(b), repeat)
        wrong += r.grade != grade
        t_check = check_time(board, repeat)
        n = board.shape[0]
        mode = "adjacent" if "a" in params else "inequality"
        groups[(n, mode)].append((t_rate, t_check))
        all_rate.append(t_rate)
    print(f"\n#### The graded sample ({len(rows)} ids, median of {repeat} runs per puzzle)\n")
    print("| order | mode | ids | rate median ms | rate max ms | listcolor limit=2 median ms "
          "| rate / check (median) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for (n, mode), vals in sorted(groups.items()):
        rates = [a for a, _ in vals]
        checks = [b for _, b in vals]
        ratio = statistics.median(a / b for a, b in vals)
        print(f"| {n} | {mode} | {len(vals)} | {ms(statistics.median(rates))} | "
              f"{ms(max(rates))} | {ms(statistics.median(checks))} | {ratio:.1f} |")
    print(f"\nAll {len(rows)}: rate median {ms(statistics.median(all_rate))} ms; "
          f"grades equal to Tatham's: {len(rows) - wrong} of {len(rows)}.")


def shipped_table(repeat: int) -> None:
    paths = sorted(FUTOSHIKI.glob("9x9-*.json"))
    print(f"\n#### The shipped 9x9 Futoshiki (median of {repeat} runs)\n")
    print("| instance | grade | rate ms | listcolor limit=2 ms | steps | guesses |")
    print("|---|---|---:|---:|---:|---:|")
    times = []
    for path in paths:
        board = formats.read(path)
        t_rate, r = timed(lambda b=board: rate(b), repeat)
        times.append(t_rate)
        print(f"| {path.name} | {r.grade} | {ms(t_rate)} | {ms(check_time(board, repeat))} | "
              f"{len(r.steps)} | {r.guesses} |")
    print(f"\nMedian rate time of the {len(paths)} 9x9 Futoshiki: {ms(statistics.median(times))} ms.")


def top95_table(first: int) -> None:
    boards = formats.read_many(TOP95, "sudoku")[:first]
    times = []
    grades: Counter[str] = Counter()
    for board in boards:
        t, r = timed(lambda b=board: rate(b))
        times.append(t)
        grades[r.grade or r.status] += 1
    shown = ", ".join(f"{g} {grades[g]}" for g in LEVELS if grades[g])
    print(f"\n#### top95 (first {len(boards)}), general scale\n")
    print("| puzzles | rate median ms | rate max ms | grades |")
    print("|---:|---:|---:|---|")
    print(f"| {len(boards)} | {ms(statistics.median(times))} | {ms(max(times))} | {shown} |")


def generation_table(specs: list[str], seeds: int) -> None:
    print(f"\n#### Generation by grade (seeds 1..{seeds})\n")
    print("| family | size | grade | made | median s | max s |")
    print("|---|---:|---|---:|---:|---:|")
    for spec in specs:
        family, size, grade = spec.split(":")
        times = []
        made = 0
        for seed in range(1, seeds + 1):
            t0 = time.perf_counter()
            try:
                board = generate_graded(family, grade, size=int(size), seed=seed)
            except GradeNotReached:
                board = None
            times.append(time.perf_counter() - t0)
            if board is not None and rate(board).grade == grade:
                made += 1
        print(f"| {family} | {size} | {grade} | {made}/{seeds} | {statistics.median(times):.2f} | "
              f"{max(times):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per puzzle (median)")
    parser.add_argument("--top95", type=int, default=95, help="top95 puzzles to rate")
    parser.add_argument("--seeds", type=int, default=10, help="seeds per generation spec")
    parser.add_argument("--generate", nargs="*", default=["futoshiki:7:extreme"],
                        metavar="FAMILY:SIZE:GRADE", help="generation specs")
    parser.add_argument("--only", choices=("sample", "shipped", "top95", "generate"),
                        action="append", help="run only these parts")
    args = parser.parse_args()
    parts = args.only or ["sample", "shipped", "top95", "generate"]
    rate(formats.read(FUTOSHIKI / "9x9-recursive-01.json"))  # warm up (imports, backend)
    if "sample" in parts:
        sample_table(args.repeat)
    if "shipped" in parts:
        shipped_table(args.repeat)
    if "top95" in parts:
        top95_table(args.top95)
    if "generate" in parts:
        generation_table(args.generate, args.seeds)


if __name__ == "__main__":
    main()
