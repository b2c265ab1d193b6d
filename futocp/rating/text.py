"""The rating as text: the proof step by step, one puzzle's summary, a table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .core import LETTERS, LEVELS, Rating, Step
from .games import game_scale

__all__ = ["explain_lines", "format_rating", "format_table"]

def explain_lines(steps: Sequence[Step], numbered: bool = True,
                  grades: Sequence[str] = LEVELS) -> list[str]:
    """The proof as text lines: one step per line, a guess's refuted trial
    indented under it (``|`` per level); levels named by ``grades`` (the scale's)."""
    out: list[str] = []

    def walk(seq: Sequence[Step], depth: int) -> None:
        for k, s in enumerate(seq, 1):
            lead = "    " * depth + ("| " if depth else "")
            num = f"{k:>3}. " if numbered and depth == 0 else ""
            out.append(f"{lead}{num}[{grades[s.level]}] {s.reason}")
            if s.sub:
                walk(s.sub, depth + 1)

    walk(steps, 0)
    return out


def format_rating(r: Rating, name: str) -> list[str]:
    """The text ``futocp rate`` prints for one puzzle."""
    asked = r.board.param_map.get("grade")
    head = f"{name}: {r.grade or r.status}"
    if r.grade:
        head += f" ({r.scale} scale)"
    if asked:
        game = game_scale(r.scale)
        letters = game.letters if game is not None else LETTERS
        head += f", the file says {letters.get(asked, asked)}"
    lines = [head,
             f"  status {r.status}, score {r.score:g}, guesses {r.guesses}, "
             f"{len(r.steps)} steps, {r.time_s * 1000:.1f} ms"]
    if r.reason:
        lines.append(f"  {r.reason}")
    if r.counts:
        order = list(r.weights)
        lines.append("  counts: " + ", ".join(f"{t} {n}" for t, n in sorted(
            r.counts.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99)))
    used = [t for t in r.weights if t in r.counts]
    if used:
        lines.append("  weights (base + per size): " + ", ".join(
            f"{t} {_show_weight(r.weights[t])}" for t in used))
    return lines


def _show_weight(w: tuple[float, float]) -> str:
    base, per = w
    return f"{base:g}" if not per else f"{base:g}+{per:g}/size"


def format_table(rows: Sequence[Mapping[str, Any]], grades: Sequence[str] = LEVELS) -> list[str]:
    """A table of per-puzzle records (``index``, ``grade``, ``status``, ``score``,
    ``guesses``, ``time_s``) and a histogram of the grades (in the order of ``grades``)."""
    head = ["#", "grade", "status", "score", "guesses", "ms"]
    body = [[str(r["index"]), str(r["grade"] or "-"), r["status"], f"{r['score']:g}",
             str(r["guesses"]), f"{r['time_s'] * 1000:.1f}"] for r in rows]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i in (0, 3, 4, 5) else c.ljust(w)
                       for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in [head, *body]]
    counts = Counter(r["grade"] or r["status"] for r in rows)
    lines.append("")
    lines.append(f"{len(rows)} puzzles")
    keys = [g for g in grades if g in counts] + sorted(k for k in counts if k not in grades)
    top = max(counts.values()) if counts else 1
    for g in keys:
        bar = "#" * max(1, round(40 * counts[g] / top))
        lines.append(f"  {g:<10} {counts[g]:>5}  {bar}")
    return lines
