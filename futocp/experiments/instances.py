"""The instances of an experiment: read from files, or generated from a seed.

Each :class:`Instance` keeps the board, a JSON-ready *spec* saying where it
came from (a path relative to the config, a collection and an index, or a
generator spec and an index) and a content hash of the board, so that a
record names its instance reproducibly and two copies of one puzzle are
recognised as the same instance.

Generated instances come from :func:`futocp.generate.generate` (Futoshiki
in the style of seed 000, Latin squares with givens, QWH with holes...), one
reproducible seed per instance.

Example:
    >>> [i.name for i in generated_instances({"family": "futoshiki", "size": 5, "givens": 4,
    ...                                        "inequalities": 6, "count": 2, "seed": 7})]
    ['futoshiki-n5-g4-i6-s7#0', 'futoshiki-n5-g4-i6-s7#1']
"""

from __future__ import annotations

import glob
import hashlib
import inspect
import json
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .. import formats
from ..board import Board
from ..errors import UsageError, did_you_mean

__all__ = ["Instance", "board_hash", "path_instances", "collection_instances",
           "generated_instances"]


def board_hash(board: Board) -> str:
    """A short content hash of what the board asks (cells, asterisms, labels, clues, relations).

    The family name and parameters are left out: the same puzzle read from two
    formats hashes the same.
    """
    doc = [board.n_cells, board.asterisms, [repr(x) for x in board.labels],
           [(c, repr(v)) for c, v in board.clues], sorted(board.inscription), board.less,
           board.shape]
    return hashlib.sha256(json.dumps(doc, separators=(",", ":")).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Instance:
    """One instance of an experiment.

    Attributes:
        name: A readable name (file name, ``file#index`` or ``generator#index``).
        spec: Where it came from, JSON-ready.
        board: The puzzle.
        group: The report group (default: the board's family).
    """

    name: str
    spec: dict[str, Any] = field(hash=False, compare=False)
    board: Board = field(repr=False)
    group: str | None = None

    @cached_property
    def hash(self) -> str:
        """Content hash of the board (:func:`board_hash`)."""
        return board_hash(self.board)

    def describe(self) -> dict[str, Any]:
        """The columns a record carries about its instance."""
        b = self.board
        return {"instance": self.spec, "instance_name": self.name, "instance_hash": self.hash,
                "group": self.group or b.kind, "family": b.kind, "size": b.k, "cells": b.n_cells, "givens": len(b.clues),
                "inequalities": len(b.less)}


def _expand(pattern: str, base: str) -> list[str]:
    full = os.path.join(base, os.path.expanduser(pattern))
    if glob.has_magic(pattern):
        found = sorted(p for p in glob.glob(full, recursive=True) if os.path.isfile(p))
        if not found:
            raise UsageError(f"no file matches {pattern!r}")
        return found
    if not os.path.exists(full):
        raise UsageError(f"no such file {pattern!r}")
    if os.path.isdir(full):
        raise UsageError(f"{pattern!r} is a folder (use a glob such as '{pattern}/*.json')")
    return [full]


def _rel(path: str, base: str) -> str:
    return os.path.relpath(path, base).replace(os.sep, "/")


def path_instances(patterns: Sequence[str], base: str, format: str | None = None) -> list[Instance]:
    """One instance per file matched by the patterns (paths or globs relative to ``base``)."""
    out = []
    for pattern in patterns:
        for path in _expand(pattern, base):
            rel = _rel(path, base)
            out.append(Instance(os.path.basename(path), {"path": rel}, formats.read(path, format)))
    return out


def collection_instances(patterns: Sequence[str], base: str, format: str | None = None,
                         first: int | None = None) -> list[Instance]:
    """Every puzzle (or the ``first`` ones) of each many-puzzle file."""
    out = []
    for pattern in patterns:
        for path in _expand(pattern, base):
            rel = _rel(path, base)
            boards = formats.read_many(path, format)
            for i, board in enumerate(boards[:first]):
                out.append(Instance(f"{os.path.basename(path)}#{i}",
                                    {"collection": rel, "index": i}, board))
    return out


# ------------------------------------------------------------------ generate
def _generate_keys() -> tuple[str, ...]:
    """The keyword arguments of :func:`futocp.generate.generate`, plus ``count``."""
    from ..generate import generate

    params = inspect.signature(generate).parameters
    return ("family", *[k for k, p in params.items() if p.kind is p.KEYWORD_ONLY], "count")


MAX_COUNT = 100_000  # instances one generate entry may make


def generated_instances(spec: Mapping[str, Any]) -> list[Instance]:
    """``count`` instances (default 1) of :func:`futocp.generate.generate` from a spec.

    The spec holds ``family``, ``seed`` (default 0), ``count`` and the keyword
    arguments of :func:`~futocp.generate.generate` (``size``, ``givens``,
    ``inequalities``, ``holes``, ``pattern``, ``unique``, ...). Instance i is
    generated with the i-th seed drawn from ``random.Random(seed)``; its spec
    records that seed, so ``futocp generate`` can rebuild it alone.

    Raises:
        UsageError: for an unknown key or a bad value.
    """
    from ..generate import generate

    spec = dict(spec)
    known = _generate_keys()
    for key in spec:
        if key not in known:
            raise UsageError(f"unknown generate key {key!r}{did_you_mean(key, known)} "
                             f"(known: {', '.join(known)})")
    if "family" not in spec:
        raise UsageError("generate needs a 'family'")
    count = spec.get("count", 1)
    seed = spec.get("seed", 0)
    for key, value, top in (("count", count, MAX_COUNT), ("seed", seed, 2 ** 63 - 1)):
        if not isinstance(value, int) or isinstance(value, bool) or not (key == "count") <= value <= top:
            low = 1 if key == "count" else 0
            raise UsageError(f"generate: {key!r} must be an integer from {low} to {top:,}, "
                             f"got {value!r}")
    kwargs = {k: v for k, v in spec.items() if k not in ("family", "count", "seed")}
    _check_types(kwargs)
    rng = random.Random(seed)
    tag = _tag(spec)
    out = []
    for i in range(count):
        sub_seed = rng.randrange(2 ** 31)
        try:
            board = generate(spec["family"], seed=sub_seed, **kwargs)
        except TypeError as exc:  # a value of the wrong type deep in the generator
            raise UsageError(f"generate: {exc}") from None
        out.append(Instance(f"{tag}#{i}", {"generate": spec, "index": i, "seed": sub_seed}, board))
    return out


def _check_types(kwargs: Mapping[str, Any]) -> None:
    """Refuse a value whose type the generator's signature does not allow
    (``unique: maybe``), before anything is generated."""
    from ..generate import generate

    params = inspect.signature(generate).parameters
    for key, value in kwargs.items():
        note = str(params[key].annotation)
        types = {"bool": bool, "int": int, "str": str, "float": float}
        allowed = [t for name, t in types.items() if name in note.replace("|", " ").split()]
        if not allowed or (value is None and "None" in note):
            continue
        ok = any(isinstance(value, t) and (t is bool or not isinstance(value, bool))
                 for t in allowed)
        if not ok:
            raise UsageError(f"generate: {key!r} must be {' or '.join(t.__name__ for t in allowed)}"
                             f"{' or null' if 'None' in note else ''}, got {value!r}")


def _tag(spec: Mapping[str, Any]) -> str:
    short = {"size": "n", "givens": "g", "inequalities": "i", "seed": "s", "holes": "h"}
    parts = [str(spec.get("family", "?"))]
    parts += [f"{short.get(k, k)}{v}" for k, v in spec.items()
              if k not in ("family", "count") and not isinstance(v, (dict, list))]
    return "-".join(parts)
