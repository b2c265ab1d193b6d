"""Draw the pictures of Tatham's Keen, Towers and Solo into ``docs/figures/family-*.png``.

Run from the repository root::

    python scripts/figures.py            # write every picture
    python scripts/figures.py --list     # print the pictures and their puzzles

Each picture is what ``futocp render --puzzle ID --format F -o docs/figures/NAME.png
--dpi 110`` draws (``--solution`` for the solved one), named by the board's family
(``family-keen.png``, ``family-killer-sudoku.png``, ``family-keen-solution.png``);
``scripts/make_gallery.py --docs`` shows a family's picture in ``docs/families.md``
when there is one. The puzzles are game ids
printed by Simon Tatham's generators (``sgt-solo --generate 1 3x3kdi`` for the
Killer, ``3x3xda`` for the X, ``9jdu`` for the jigsaw); a drawn solution is
checked with :func:`futocp.verify` first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from futocp import formats, render  # noqa: E402
from futocp.api import solve  # noqa: E402
from futocp.verify import verify  # noqa: E402

FIGURES = ROOT / "docs" / "figures"
DPI = 110


class Figure(NamedTuple):
    """One picture: the puzzle, its format and whether it is drawn solved."""

    puzzle: str
    format: str
    solution: bool = False


KEEN = "6:aa__a_15a__abaa_aa_b_a4_ba_,m12s2a7m8s3s1m6d3m72s1m6a8a7s1a5d3"  # sgt-keen, 6x6
GAMES = [
    Figure(KEEN, "keen"),
    Figure(KEEN, "keen", True),
    Figure("6:///1/////4////3/3/3/4//1//2/1//3/2,m1a3q1b", "towers"),
    Figure("3x3k:zzzc,_a___a________a___a____aaa_a_ba_b__aa____aa__aaaac_a____aa___aa_a_b_____"
           "aaaaa____a_a__a__a__a_aaaa_,9_18a9_14_11_6a11a14d23_12c13a14c12_3_14c4e12a22_13b11_"
           "7a21c8_7a11c3_15b9_14a5c15b9a7a12a17b", "solo"),
    Figure("3x3x:c5c4b1b9_2_5g3_8_7j2a6c7a4j6_2_7g4_3_2b8b3c9c", "solo"),
    Figure("9j:c5b1d3_6d9h5_5c8g4a3g7c3_3h6d2_7d6b8c,cbe__cb_d_aa__ba__b_dadbabgaeccaa__a___b__"
           "bb_a_a_ead_bdb_", "solo"),
]


def draw(fig: Figure, folder: Path) -> Path:
    """Write one picture, named by the board's family; a solution is verified first."""
    board = formats.loads(fig.puzzle, fig.format)
    options: dict[str, Any] = {}
    if fig.solution:
        result = solve(board)
        if not result.solutions or verify(board, result.solutions[0]):
            raise SystemExit(f"{fig.puzzle}: no verified solution")
        options["result"] = result
    path = folder / f"family-{board.kind}{'-solution' if fig.solution else ''}.png"
    render.save(board, path, dpi=DPI, **options)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the pictures and puzzles")
    args = parser.parse_args()
    for fig in GAMES:
        if args.list:
            print(f"--format {fig.format} --puzzle '{fig.puzzle}'"
                  + ("  --solution" if fig.solution else ""))
            continue
        path = draw(fig, FIGURES)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
