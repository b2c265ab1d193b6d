"""Tatham's 9x9 Keen and Towers with every backend, side by side with hand-written CP-SAT models.

Reads ``benchmarks/tatham-9x9.tsv`` (or ``--data``: ``tests/data/tatham-ids.tsv``
holds Keen, Towers and Solo ids of every size; ``--sizes 6,9``) (game, the
generator's parameters, the id:
ids of ``sgt-keen --generate N 9du`` / ``sgt-towers --generate N 9du``, the
hardest grade, and a few of the lower ones) and checks each puzzle's
uniqueness (``limit=2``: each has exactly one solution) with every system, one
puzzle after the other, the system order rotating from one puzzle to the next
so that the load of the shared machine falls on all alike. A *system* is a
backend with options (``sat:nary=specialised``), or ``cpsat-hand``: a CP-SAT
model of the game written by hand with ``ortools`` alone -- one integer per
cell, ``add_all_different`` per row, column (box, region, diagonal), a
Killer cage as all different and a sum, a Keen cage as a sum, a
product (``add_multiplication_equality``), ``add_abs_equality`` or a
quotient either way round, a Towers clue as one Boolean per cell of its line
(the cell above every cell before it, ``add_bool_and`` of reified
comparisons) summed to the count -- the model an OR-Tools user writes.

Time per puzzle: ``build_model`` + ``solve`` for the backends (parsing left
out), building and solving the hand model for ``cpsat-hand``; each system first
solves one puzzle untimed (to import its package). Every solution is checked
with ``verify()``. Prints a Markdown table: per game, grade and system, the
median and the largest time, the time-outs (uniqueness not proved within
``--cap``) and the wrong answers (an unverified solution, or not exactly one).

Usage (from the repository root)::

    python benchmarks/tatham_games.py
    python benchmarks/tatham_games.py --systems cpsat,cpsat:nary=generic,cpsat-hand --cap 30
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from futocp import formats
from futocp.backends import get_backend
from futocp.board import Board
from futocp.model import build_model
from futocp.verify import verify

DATA = Path(__file__).with_name("tatham-9x9.tsv")
SYSTEMS = ("cpsat", "cpsat:nary=generic", "cpsat:nary=specialised", "cpsat-hand", "sat:nary=generic",
           "sat:nary=specialised", "listcolor", "minizinc", "minizinc:nary=expression", "auto")


def read_ids(path: Path) -> list[tuple[str, str, Board]]:
    """(game, parameters, board) per line of the data file."""
    out = []
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            game, spec, game_id = line.split("\t")
            out.append((game, spec, formats.loads(game_id, game)))
    return out


def hand_model(board: Board) -> tuple[Any, list[Any]]:
    """A CP-SAT model of a Keen, Towers or Solo board written with ortools alone: its
    rows, columns (boxes, regions, diagonals) all different, its givens, its cages
    and clues."""
    from ortools.sat.python import cp_model

    n = board.shape[0] if board.shape else 0
    m = cp_model.CpModel()
    x = [m.new_int_var(1, n, f"x{c}") for c in range(n * n)]
    for group in board.asterisms:
        m.add_all_different([x[c] for c in group])
    for c, v in board.clues:
        m.add(x[c] == v)
    for rel in board.relations:
        cells = [x[c] for c in rel.cells]
        p = rel.param_map
        if rel.kind == "cage":
            m.add_all_different(cells)
            m.add(sum(cells) == p["sum"])
        elif rel.kind == "arith":
            op, t = p["op"], p["target"]
            if op == "+":
                m.add(sum(cells) == t)
            elif op == "*":
                m.add_multiplication_equality(t, cells)
            elif op == "-":
                m.add_abs_equality(t, cells[0] - cells[1])
            else:
                first = m.new_bool_var("")
                m.add(cells[0] == t * cells[1]).only_enforce_if(first)
                m.add(cells[1] == t * cells[0]).only_enforce_if(~first)
        elif rel.kind == "visible":
            seen = []
            for i, xi in enumerate(cells):
                below = []
                for xj in cells[:i]:
                    b = m.new_bool_var("")
                    m.add(xj < xi).only_enforce_if(b)
                    m.add(xj >= xi).only_enforce_if(~b)
                    below.append(b)
                s = m.new_bool_var("")
                if below:
                    m.add_bool_and(below).only_enforce_if(s)
                    m.add_bool_or([~b for b in below]).only_enforce_if(~s)
                else:
                    m.add(s == 1)
                seen.append(s)
            m.add(sum(seen) == p["count"])
        else:
            raise ValueError(f"no hand model of {rel.kind}")
    return m, x


def run_hand(board: Board, cap: float) -> tuple[float, list[tuple[int, ...]], bool]:
    """(seconds, solutions up to 2, finished) of the hand model."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    m, x = hand_model(board)
    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = cap
    found: list[tuple[int, ...]] = []

    class Two(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.append(tuple(self.value(v) for v in x))
            if len(found) >= 2:
                self.stop_search()

    code = solver.solve(m, Two())
    finished = code in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or len(found) >= 2
    return time.perf_counter() - t0, found, finished


def run(system: str, board: Board, cap: float) -> tuple[float, bool, bool]:
    """(seconds, correct, answered): correct = exactly one solution, verified, the
    search exhausted; answered = exhausted or two solutions (not cut by the cap)."""
    if system == "cpsat-hand":
        seconds, found, finished = run_hand(board, cap)
        good = len(found) == 1 and not verify(board, list(found[0]))
        return seconds, good and finished, finished
    name, *pairs = system.split(":")
    options = dict(pair.split("=", 1) for pair in pairs)
    t0 = time.perf_counter()
    result = get_backend(name).solve(build_model(board), limit=2, time_limit=cap, **options)
    seconds = time.perf_counter() - t0
    good = (result.n_solutions == 1 and result.exhausted
            and not verify(board, result.solutions[0]))
    answered = result.exhausted or result.n_solutions >= 2  # else stopped by the time limit
    return seconds, good, answered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per puzzle and system")
    parser.add_argument("--sizes", default="", help="only these sides, e.g. 6,9")
    args = parser.parse_args()
    systems = args.systems.split(",")
    puzzles = read_ids(args.data)
    if args.sizes:
        sides = {int(x) for x in args.sizes.split(",")}
        puzzles = [p for p in puzzles if p[2].shape and p[2].shape[0] in sides]
    for system in systems:  # warm up: imports, the compiled core
        run(system, puzzles[0][2], args.cap)
    times: dict[tuple[str, str, str], list[float]] = {}
    bad: dict[tuple[str, str, str], int] = {}
    for k, (game, spec, board) in enumerate(puzzles):
        grade = f"{board.shape[0] if board.shape else '?'}x {spec}"
        order = systems[k % len(systems):] + systems[:k % len(systems)]
        for system in order:
            seconds, good, finished = run(system, board, args.cap)
            key = (game, grade, system)
            times.setdefault(key, []).append(seconds if finished else float("inf"))
            bad[key] = bad.get(key, 0) + (finished and not good)
        print(f"{game} {spec}: done", file=sys.stderr, flush=True)
    print("| game | size, parameters | puzzles | " + " | ".join(systems) + " |")
    print("|---|---|---|" + "---|" * len(systems))
    for game, grade in sorted({(g, d) for g, d, _ in times}):
        cells = []
        for system in systems:
            ts = times[(game, grade, system)]
            done = [t for t in ts if t != float("inf")]
            text = (f"{statistics.median(done):.2f} / {max(done):.2f}" if done else "-")
            if len(done) < len(ts):
                text += f" ({len(ts) - len(done)} > {args.cap:g} s)"
            if bad[(game, grade, system)]:
                text += f" **{bad[(game, grade, system)]} wrong**"
            cells.append(text)
        count = len(times[(game, grade, systems[0])])
        print(f"| {game} | {grade} | {count} | " + " | ".join(cells) + " |")
    print("\nmedian / largest seconds per puzzle (uniqueness: limit=2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
