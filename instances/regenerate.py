"""Rebuild the starter instance set and its index from fixed seeds.

Run from the repository root::

    python instances/regenerate.py            # regenerate files, count, write index.json
    python instances/regenerate.py --check    # only recount the files present, compare with index.json

Puzzles come from Simon Tatham's *Unequal* generator (Debian's ``sgt-puzzles``,
``/usr/games/sgt-unequal``) with fixed random seeds, so that a given generator
version prints the same puzzles again. The derived instances (unsatisfiable,
several solutions) are made from those by the rules in :func:`derived`, and the
QWH order-30 instance is copied from ``instances/qwh/csplib067/``.
Every solution count is measured with the ``cpsat`` backend (limit 10) and
every solution found is checked with :func:`futocp.verify`. Every generated
puzzle carries futocp's own grade (:func:`futocp.rating.rate`, Tatham's scale)
as its ``grade`` (the level asked of the generator is in the file name), and
``index.json`` the grade of every instance with one solution.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from futocp import formats  # noqa: E402
from futocp.api import solve  # noqa: E402
from futocp.board import Board  # noqa: E402
from futocp.model import build_model  # noqa: E402
from futocp.rating import LETTERS, rate  # noqa: E402
from futocp.verify import verify  # noqa: E402

HERE = ROOT / "instances"
SGT = "/usr/games/sgt-unequal"
LIMIT = 10
NAMES = LETTERS  # Tatham's level letters -> grade names
LEVEL_LETTER = {name: letter for letter, name in NAMES.items()}
# (size, difficulty letter, how many, file format)
PLAN = [
    (4, "e", 1, "json"), (4, "k", 1, "json"),
    (5, "t", 1, "json"), (5, "e", 1, "json"), (5, "k", 2, "json"), (5, "x", 1, "json"),
    (6, "e", 1, "json"), (6, "k", 2, "yaml"), (6, "x", 1, "json"),
    (7, "k", 1, "json"), (7, "x", 2, "text"),
    (8, "k", 1, "json"), (8, "x", 1, "json"),
    (9, "e", 1, "json"), (9, "k", 2, "json"), (9, "x", 2, "json"), (9, "r", 2, "json"),
    (12, "k", 1, "text"),
]
EXT = {"json": ".json", "yaml": ".yaml", "text": ".txt"}
QWH = HERE / "qwh" / "csplib067" / "qwh-o30-h374-01.dzn"


def seed_id(n: int, diff: str, k: int) -> str:
    """The random-seed id given to the generator."""
    return f"{n}d{diff}#futocp-{n}{diff}-{k:02d}"


def generate(params: str) -> str:
    """The game id ``sgt-unequal --generate 1 PARAMS`` prints."""
    out = subprocess.run([SGT, "--generate", "1", params], capture_output=True, text=True,
                         check=True).stdout.strip()
    if not out:
        raise SystemExit(f"{SGT} printed nothing for {params!r}")
    return out


def count(board: Board) -> tuple[str, int, bool]:
    """(status, solutions up to LIMIT, exhausted) with cpsat; every solution verified."""
    result = solve(board, "cpsat", limit=LIMIT)
    for values in result.solutions:
        bad = verify(board, values)
        if bad:
            raise SystemExit(f"cpsat gave a wrong solution: {bad[0].message}")
    return result.status.value, result.n_solutions, result.exhausted


def derived(boards: dict[str, Board]) -> dict[str, tuple[Board, str]]:
    """Unsatisfiable and many-solution instances made from generated puzzles."""
    out: dict[str, tuple[Board, str]] = {}

    # 1. a duplicate clue in a row: the model reports the conflict before any search.
    base = boards["futoshiki/5x5-easy-01.json"]
    n, clues = base.k, base.clue_map
    cell, target = next((c, r * n + j) for c in sorted(clues) for r in [c // n] for j in range(n)
                        if r * n + j not in clues)
    out["futoshiki/5x5-unsat-duplicate.json"] = (
        base.with_clues({**clues, target: clues[cell]}),
        f"5x5-easy-01 plus clue {clues[cell]} at {base.cell_name(target)}, repeating the clue at "
        f"{base.cell_name(cell)} in the same row")

    # 2. a clue contradicting an inequality chain a < b < c: c cannot be 2.
    base = boards["futoshiki/6x6-extreme-01.json"]
    clues = base.clue_map
    succ: dict[int, list[int]] = {}
    for a, b in base.less:
        succ.setdefault(a, []).append(b)
    n = base.k

    def free_for_two(c: int) -> bool:  # no clue 2 in the row or column of c
        return all(clues.get(x) != 2 for x in range(base.n_cells)
                   if x // n == c // n or x % n == c % n)

    chain = next((a, b, c) for a, b in base.less for c in succ.get(b, ())
                 if not {a, b, c} & set(clues) and free_for_two(c))
    out["futoshiki/6x6-unsat-chain.json"] = (
        base.with_clues({**clues, chain[2]: 2}),
        f"6x6-extreme-01 plus clue 2 at {base.cell_name(chain[2])}, the top of the chain "
        + " < ".join(base.cell_name(c) for c in chain) + " (it needs at least 3)")

    # 3. unsatisfiable, but list filtering does not see it: a wrong clue found by search.
    name = "futoshiki/7x7-tricky-01.json"
    base = boards[name]
    solution = solve(base, "cpsat").solutions[0]
    clues = base.clue_map
    for c in range(base.n_cells):
        if c in clues:
            continue
        for v in base.values:
            if v == solution[c]:
                continue
            trial = base.with_clues({**clues, c: v})
            if build_model(trial).conflict is None and count(trial)[0] == "unsat":
                out["futoshiki/7x7-unsat-search.json"] = (
                    trial, f"7x7-tricky-01 plus the wrong clue {v} at {base.cell_name(c)}; "
                    "list filtering leaves every list non-empty, only search proves it unsat")
                break
        else:
            continue
        break

    # 4. several solutions: 5x5-tricky-01 without its first inequalities, until it has 2+.
    base = boards["futoshiki/5x5-tricky-01.json"]
    for k in range(1, len(base.less) + 1):
        trial = replace(base, less=base.less[k:])
        status, found, _ = count(trial)
        if found > 1:
            gone = ", ".join(f"{base.cell_name(a)} < {base.cell_name(b)}" for a, b in base.less[:k])
            out["futoshiki/5x5-several.json"] = (trial, f"5x5-tricky-01 without the inequality {gone}")
            break
    return out


def build() -> dict[str, dict[str, object]]:
    """Write every instance file; return the index entries (without counts)."""
    (HERE / "futoshiki").mkdir(exist_ok=True)
    (HERE / "qwh").mkdir(exist_ok=True)
    boards: dict[str, Board] = {}
    entries: dict[str, dict[str, object]] = {}
    ids = []
    for n, diff, how_many, fmt in PLAN:
        for k in range(1, how_many + 1):
            params = seed_id(n, diff, k)
            game_id = generate(params)
            rel = f"futoshiki/{n}x{n}-{NAMES[diff]}-{k:02d}{EXT[fmt]}"
            board = formats.loads(game_id, "tatham")
            grade = rate(board).grade
            # the board's grade is futocp's rating (the level asked for is in the file name)
            graded = replace(board, params=(*board.params, ("grade", LEVEL_LETTER[grade])))
            formats.write(graded, HERE / rel, fmt)
            boards[rel] = board
            ids.append(f"# {rel}: sgt-unequal --generate 1 '{params}'; rated: {grade}\n"
                       f"{game_id}\n")
            entries[rel] = {"format": fmt, "size": n, "source": f"sgt-unequal --generate 1 '{params}'"}
    (HERE / "futoshiki" / "sgt-unequal.tatham").write_text(
        "# Every generated puzzle of this folder as a Tatham Unequal game id, as the generator "
        "printed it;\n# 'rated' is the grade futocp rate gives it (Tatham's own grade; the file "
        "names give the level asked for).\n" + "".join(ids))
    entries["futoshiki/sgt-unequal.tatham"] = {"format": "tatham", "boards": len(ids),
                                               "source": "the ids of the generated puzzles"}
    for rel, (board, how) in derived(boards).items():
        formats.write(board, HERE / rel, "json")
        entries[rel] = {"format": "json", "size": board.k, "source": how}
    shutil.copyfile(QWH, HERE / "qwh" / QWH.name)
    entries[f"qwh/{QWH.name}"] = {"format": "dzn", "size": 30,
                                  "source": "CSPLib 067, copied unchanged"}
    return entries


def measure(entries: dict[str, dict[str, object]]) -> dict[str, object]:
    """Add status and solution counts to the entries; the index document."""
    for rel, entry in sorted(entries.items()):
        boards = formats.read_many(HERE / rel)
        results = [count(b) for b in boards]
        statuses = {r[0] for r in results}
        found = {r[1] for r in results}
        if len(statuses) != 1 or len(found) != 1:
            raise SystemExit(f"{rel}: boards of one collection differ: {results}")
        entry["status"], entry["solutions"] = statuses.pop(), found.pop()
        entry["exhausted"] = all(r[2] for r in results)
        if len(boards) == 1 and entry["solutions"] == 1 and entry["exhausted"]:
            entry["grade"] = rate(boards[0]).grade
        print(f"{rel:45} {entry['status']:6} {entry['solutions']:3} "
              f"{'exact' if entry['exhausted'] else f'>= {LIMIT}'} {entry.get('grade') or ''}")
    return {"backend": "cpsat", "limit": LIMIT, "instances": dict(sorted(entries.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="recount the files listed in index.json and compare")
    args = parser.parse_args()
    index_path = HERE / "index.json"
    if args.check:
        old = json.loads(index_path.read_text())
        measured = ("status", "solutions", "exhausted", "grade")
        entries = {rel: {k: v for k, v in e.items() if k not in measured}
                   for rel, e in old["instances"].items()}
        new = measure(entries)
        bad = [rel for rel in old["instances"] if old["instances"][rel] != new["instances"][rel]]
        raise SystemExit(f"differs from index.json: {bad}" if bad else 0)
    index = measure(build())
    index_path.write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
