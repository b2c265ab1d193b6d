"""Build the family gallery (``instances/<family>/``) and ``docs/families.md``.

Run from the repository root::

    python scripts/make_gallery.py           # generate the puzzles, check them, write the docs
    python scripts/make_gallery.py --check   # re-check the gallery files and that the docs are current
    python scripts/make_gallery.py --docs    # rewrite docs/families.md from the files present

Every puzzle is made by :func:`futocp.generate.generate` (what
``futocp generate --family F --seed S --critical`` runs): a random complete board of
the family from a seeded randomised complete search, then clues removed in a
seeded random order while the solution stays unique, until the puzzle is
critical (seed 003, Alg. 2). Each file is then checked independently of the
generator: exactly one solution with ``cpsat`` (limit 2), the solution passes
:func:`futocp.verify`, and :func:`futocp.puzzles.is_critical` holds (every clue
outside the inscription is necessary). ``instances/gallery.json`` records the
family, parameters, seed, clue count and the checks of every file.

The Futoshiki family keeps the Tatham-generated instances of
``instances/futoshiki/`` (made by ``instances/regenerate.py``); the docs show one
of them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from futocp import formats  # noqa: E402
from futocp.api import solve  # noqa: E402
from futocp.board import Board  # noqa: E402
from futocp.families import Family, list_families  # noqa: E402
from futocp.generate import generate  # noqa: E402
from futocp.puzzles import count, redundant_clue  # noqa: E402
from futocp.verify import verify  # noqa: E402

INSTANCES = ROOT / "instances"
INDEX = INSTANCES / "gallery.json"
DOCS = ROOT / "docs" / "families.md"
FUTOSHIKI_EXAMPLE = "futoshiki/5x5-tricky-01.json"
EXT = {"json": ".json", "yaml": ".yaml", "text": ".txt", "sudoku": ".sudoku", "jigsaw": ".jigsaw"}


def random_partition(n: int, box: tuple[int, int], seed: int, steps: int = 2000) -> list[str]:
    """A random partition of the n x n grid into n connected regions of n cells.

    Starts from the r x c boxes and repeats, ``steps`` times, a random swap of
    two cells between neighbouring regions A and B (a cell of B next to A goes
    to A, a cell of A next to B goes to B), undone when either region would be
    disconnected. Rows are strings, one region letter per cell.
    """
    rng = random.Random(seed)
    reg = [[(r // box[0]) * (n // box[1]) + c // box[1] for c in range(n)] for r in range(n)]
    steps4 = ((1, 0), (-1, 0), (0, 1), (0, -1))

    def inside(r: int, c: int) -> bool:
        return 0 <= r < n and 0 <= c < n

    def connected(rid: int) -> bool:
        cells = [(r, c) for r in range(n) for c in range(n) if reg[r][c] == rid]
        seen, stack = {cells[0]}, [cells[0]]
        while stack:
            r, c = stack.pop()
            for dr, dc in steps4:
                x = (r + dr, c + dc)
                if inside(*x) and x not in seen and reg[x[0]][x[1]] == rid:
                    seen.add(x)
                    stack.append(x)
        return len(seen) == len(cells)

    for _ in range(steps):
        r, c = rng.randrange(n), rng.randrange(n)
        dr, dc = rng.choice(steps4)
        r2, c2 = r + dr, c + dc
        if not inside(r2, c2) or reg[r][c] == reg[r2][c2]:
            continue
        a, b = reg[r][c], reg[r2][c2]
        back = [(y, x) for y in range(n) for x in range(n)
                if reg[y][x] == a and (y, x) != (r, c)
                and any(inside(y + p, x + q) and reg[y + p][x + q] == b and (y + p, x + q) != (r2, c2)
                        for p, q in steps4)]
        if not back:
            continue
        y, x = rng.choice(back)
        reg[r2][c2], reg[y][x] = a, b
        if not (connected(a) and connected(b)):
            reg[r2][c2], reg[y][x] = b, a
    return ["".join(chr(ord("A") + v) for v in row) for row in reg]


# (file under instances/, family, params, seed, format); a file holding several
# seeds is a collection (one puzzle per seed).
PLAN: list[tuple[str, str, dict[str, Any], list[int], str]] = [
    ("latin-square/5x5-critical-01.json", "latin-square", {"n": 5}, [1], "json"),
    ("sudoku/4x4-critical-01.sudoku", "sudoku", {"box": "2x2"}, [1], "sudoku"),
    ("sudoku/6x6-critical-01.txt", "sudoku", {"box": "2x3"}, [1], "text"),
    ("sudoku/9x9-critical-01.json", "sudoku", {}, [1], "json"),
    ("sudoku/9x9-critical-10.sudoku", "sudoku", {}, list(range(2, 12)), "sudoku"),
    ("sudoku/16x16-critical-01.sudoku", "sudoku", {"box": "4x4"}, [1], "sudoku"),
    ("sudoku-x/9x9-critical-01.sudoku", "sudoku-x", {}, [1], "sudoku"),
    ("hypersudoku/9x9-critical-01.json", "hypersudoku", {}, [1], "json"),
    ("jigsaw/9x9-critical-01.json", "jigsaw", {}, [1], "json"),
    ("jigsaw/9x9-critical-02.jigsaw", "jigsaw",
     {"regions": random_partition(9, (3, 3), 2025)}, [2], "jigsaw"),
    ("sudoku-ripeto/9x9-111222333-critical-01.json", "sudoku-ripeto", {}, [1], "json"),
    ("sudoku-ripeto/9x9-122333444-critical-01.json", "sudoku-ripeto",
     {"multiset": "122333444"}, [1], "json"),
    ("custom-sudoku/8x8-makikaji-critical-01.txt", "custom-sudoku", {}, [1], "text"),
    ("latin-triangle/critical-01.json", "latin-triangle", {}, [1], "json"),
    ("canario/critical-01.yaml", "canario", {}, [1], "yaml"),
]


def _params_text(params: dict[str, Any]) -> str:
    return " ".join(f"--param {k}={'/'.join(v) if isinstance(v, list) else v}"
                    for k, v in params.items())


def check_board(board: Board) -> dict[str, Any]:
    """Uniqueness with cpsat, verify() on the solution, criticality."""
    counted = count(board, limit=2, backend="cpsat")
    ok = counted.count == 1 and counted.exhausted
    record: dict[str, Any] = {"clues": len(board.clues) - len(board.inscription),
                              "unique": ok}
    if ok:
        solution = solve(board, "cpsat", limit=1).solutions[0]
        record["verified"] = verify(board, solution) == []
        clue = redundant_clue(board)
        record["critical"] = clue is None
        if clue is not None:
            record["removable_clue"] = [board.cell_name(clue[0]), clue[1]]
    return record


def build() -> dict[str, Any]:
    index: dict[str, Any] = {}
    for rel, fam, params, seeds, fmt in PLAN:
        boards, records = [], []
        for seed in seeds:
            t0 = time.perf_counter()
            board = generate(fam, seed=seed, params=params, critical=True)
            boards.append(board)
            record = check_board(board)
            record["seed"] = seed
            record["generate_s"] = round(time.perf_counter() - t0, 2)
            records.append(record)
            print(f"{rel} seed {seed}: {record}", flush=True)
        path = INSTANCES / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if len(boards) == 1:
            formats.write(boards[0], path, fmt)
        else:
            head = "".join(f"# futocp generate --family {fam} --seed {s} --critical\n" for s in seeds)
            lines = [formats.dumps(b, fmt) for b in boards]
            formats.base.atomic_write(path, head + "".join(lines))
        index[rel] = {"family": fam, "params": params, "format": fmt, "seeds": seeds,
                      "command": f"futocp generate --family {fam} {_params_text(params)} "
                                 f"--seed {seeds[0]} --critical".replace("  ", " "),
                      "puzzles": [{k: v for k, v in r.items() if k != "generate_s"}
                                  for r in records]}
    formats.base.atomic_write(INDEX, json.dumps(index, indent=1) + "\n")
    return index


def check() -> bool:
    index = json.loads(INDEX.read_text())
    ok = True
    for rel, entry in index.items():
        boards = formats.read_many(INSTANCES / rel, entry["format"])
        for board, expected in zip(boards, entry["puzzles"], strict=True):
            got = check_board(board)
            good = got["unique"] and got.get("verified") and got.get("critical") and \
                got["clues"] == expected["clues"]
            ok &= bool(good)
            print(f"{'ok ' if good else 'BAD'} {rel}: {got}")
    text = render_docs(index)
    current = DOCS.read_text() if DOCS.exists() else ""
    if text != current:
        print("docs/families.md is out of date: run python scripts/make_gallery.py --docs")
        ok = False
    return ok


def _example(fam: Family, index: dict[str, Any]) -> tuple[str, Board] | None:
    if fam.name == "futoshiki":
        return FUTOSHIKI_EXAMPLE, formats.read(INSTANCES / FUTOSHIKI_EXAMPLE)
    for rel, entry in index.items():
        if entry["family"] == fam.name:
            return rel, formats.read(INSTANCES / rel, entry["format"])
    return None


def render_docs(index: dict[str, Any]) -> str:
    out = ["# Board families",
           "",
           "<!-- generated by `python scripts/make_gallery.py --docs`; do not edit by hand -->",
           "",
           "Every family is one YAML file of [`futocp/models/`](../futocp/models/README.md): its geometry, "
           "asterisms, label multiset and any inscription, as data. `futocp families` lists "
           "them, `futocp new FAMILY [--param k=v]` prints an empty instance, and instance "
           "documents name the family as their `kind` "
           "(`{\"kind\": \"sudoku\", \"size\": 9, \"box\": [3, 3], \"givens\": [...]}`). "
           "The puzzles below are in [`instances/`](../instances/) (made and checked by "
           "`python scripts/make_gallery.py`: each has exactly one solution and is critical, "
           "except the Futoshiki, which comes from Tatham's generator and is unique); "
           "they are printed in the `text` format, as `futocp show FILE` prints them.",
           ""]
    out += ["| family | parameters (defaults) | rules |", "|---|---|---|"]
    for fam in list_families():
        out.append(f"| [`{fam.name}`](#{fam.name}) | {fam.describe_params()} | {fam.description} |")
    for fam in list_families():
        source = " ".join(str(fam.spec.get("source", "-")).split())
        out += ["", f"## {fam.name}", "", fam.description, "", f"*Source:* {source}"]
        if fam.spec.get("aliases"):
            out[-1] += f" *Also called:* {', '.join(fam.spec['aliases'])}."
        if fam.params:
            out += ["", "| parameter | type | default | meaning |", "|---|---|---|---|"]
            for p in fam.params.values():
                default = "-" if p.default is None else (
                    f"a {len(p.default)}x{len(p.default)} partition" if p.type == "regions"
                    else f"`{p.show(p.default)}`")
                out.append(f"| `{p.name}` | {p.type} | {default} | {p.help} |")
        template = fam.template()
        out += ["", f"Default board: {template.n_cells} cells, {len(template.asterisms)} asterisms "
                f"of {template.k}, labels {' '.join(map(str, template.labels))}; "
                f"`futocp new {fam.name}`."]
        picture = ROOT / "docs" / "figures" / f"family-{fam.name}.png"  # scripts/figures.py
        if picture.exists():
            out += ["", "As `futocp render` draws one (`scripts/figures.py`):", "",
                    f"![a {fam.name} puzzle](figures/{picture.name})"]
        example = _example(fam, index)
        if example:
            rel, board = example
            extra = len(board.clues) - len(board.inscription)
            out += ["", f"Example: [`instances/{rel}`](../instances/{rel}), {extra} clue"
                    + ("s" if extra != 1 else "")
                    + (f" besides the inscription of {len(board.inscription)}"
                       if board.inscription else "") + ":", "", "```text",
                    formats.dumps(board, "text").rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="re-check the files and the docs")
    mode.add_argument("--docs", action="store_true", help="only rewrite docs/families.md")
    args = parser.parse_args()
    if args.check:
        return 0 if check() else 1
    index = json.loads(INDEX.read_text()) if args.docs else build()
    formats.base.atomic_write(DOCS, render_docs(index))
    print(f"wrote {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
