"""Layered decision diagrams: the compact form of an n-ary relation's allowed tuples.

A :class:`Diagram` over ``k`` cells has ``k`` layers of arcs. The arcs of layer
``i`` go from the nodes of level ``i`` to those of level ``i + 1`` and carry a
label for cell ``i``; level 0 holds the root only and level ``k`` the terminal
only (both node 0). Every path from the root to the terminal spells one allowed
tuple, and every allowed tuple is one path: a diagram is a table whose common
prefixes and suffixes are shared (an MDD). It is how the backends that
propagate (``listcolor``, the Model's list filtering) hold an n-ary relation,
and the generic decomposition of the ``sat`` backend:

* :meth:`Diagram.from_tuples` builds one from a table (a trie whose equal
  suffixes are merged, :meth:`Diagram.reduced`);
* :meth:`Diagram.from_automaton` unrolls a kind's *automaton* (a start state,
  a step function and an acceptance test) over the cells' lists: the diagram
  of a Towers clue on a row of 9 cells has a few hundred arcs where its table
  has up to 118,124 rows;
* :func:`supports` is generalised arc consistency on a diagram: the labels of
  each cell that lie on a root-to-terminal path whose every label is still in
  its cell's list (a forward and a backward pass, linear in the arcs).

Example:
    >>> d = Diagram.from_tuples([(1, 2), (2, 1), (1, 3)], 2)
    >>> sorted(d.tuples()), d.n_arcs
    ([(1, 2), (1, 3), (2, 1)], 5)
    >>> d.count()
    3
    >>> bits_d = d.relabel(lambda label: 1 << label)
    >>> [bin(m) for m in supports(bits_d.layers, bits_d.levels, [0b110, 0b100])]
    ['0b10', '0b100']
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import UnsupportedError

__all__ = ["Diagram", "Arc", "supports", "DiagramTooLarge"]

Arc = tuple[int, Any, int]
"""``(source node, label, target node)``."""


class DiagramTooLarge(UnsupportedError):
    """A diagram would have more arcs than its limit (the message says how many)."""


@dataclass(frozen=True)
class Diagram:
    """A layered decision diagram (see the module docstring).

    Attributes:
        layers: Per cell, its arcs ``(source, label, target)``, sorted.
        levels: The number of nodes of each level (``len(layers) + 1`` of
            them; the first and the last are 1 unless the diagram is empty,
            when the last is 0 and no layer has an arc).
    """

    layers: tuple[tuple[Arc, ...], ...]
    levels: tuple[int, ...]

    @property
    def arity(self) -> int:
        """The number of cells."""
        return len(self.layers)

    @property
    def n_arcs(self) -> int:
        """The number of arcs."""
        return sum(map(len, self.layers))

    @property
    def empty(self) -> bool:
        """True when no tuple is allowed."""
        return self.levels[-1] == 0

    def labels(self, i: int) -> list[Any]:
        """The labels of layer ``i``, each once, in arc order."""
        return list(dict.fromkeys(label for _, label, _ in self.layers[i]))

    def tuples(self) -> Iterator[tuple[Any, ...]]:
        """Every allowed tuple (depth first, in arc order)."""
        if self.empty:
            return
        out: dict[int, list[Arc]] = {}
        by_source = [out] + [{} for _ in self.layers[1:]]
        for i, arcs in enumerate(self.layers):
            for arc in arcs:
                by_source[i].setdefault(arc[0], []).append(arc)
        k = self.arity
        prefix: list[Any] = []

        def walk(i: int, node: int) -> Iterator[tuple[Any, ...]]:
            if i == k:
                yield tuple(prefix)
                return
            for _, label, target in by_source[i].get(node, ()):
                prefix.append(label)
                yield from walk(i + 1, target)
                prefix.pop()

        yield from walk(0, 0)

    def count(self) -> int:
        """The number of allowed tuples (paths), without listing them."""
        if self.empty:
            return 0
        paths = [1]
        for i, arcs in enumerate(self.layers):
            nxt = [0] * self.levels[i + 1]
            for s, _, t in arcs:
                nxt[t] += paths[s]
            paths = nxt
        return paths[0]

    def relabel(self, mapping: Callable[[Any], Any]) -> Diagram:
        """The same diagram with every label mapped (labels -> value indices -> bits)."""
        return Diagram(tuple(tuple((s, mapping(label), t) for s, label, t in arcs)
                             for arcs in self.layers), self.levels)

    # ------------------------------------------------------------ builders
    @classmethod
    def empty_of(cls, arity: int) -> Diagram:
        """The diagram of ``arity`` cells that allows nothing."""
        return cls(((),) * arity, (1,) + (0,) * arity)

    @classmethod
    def from_tuples(cls, tuples: Iterable[Sequence[Any]], arity: int) -> Diagram:
        """The reduced diagram of a table (every tuple of ``arity`` labels).

        Example:
            >>> Diagram.from_tuples([(1, 1), (2, 1)], 2).levels
            (1, 1, 1)
        """
        # a trie: level i's nodes are the distinct prefixes of length i
        nodes: list[dict[tuple[Any, ...], int]] = [{(): 0}] + [{} for _ in range(arity)]
        arcs: list[set[Arc]] = [set() for _ in range(arity)]
        for row in tuples:
            row = tuple(row)
            if len(row) != arity:
                raise ValueError(f"a tuple of {len(row)} labels in a table of {arity}")
            for i in range(arity):
                s = nodes[i][row[:i]]
                level = nodes[i + 1]
                key = row[:i + 1] if i + 1 < arity else ()
                t = level.setdefault(key, len(level))
                arcs[i].add((s, row[i], t))
        if arity and not nodes[arity]:
            return cls.empty_of(arity)
        raw = cls(tuple(tuple(sorted(a, key=_arc_key)) for a in arcs),
                  tuple(len(level) for level in nodes))
        return raw.reduced()

    @classmethod
    def from_automaton(cls, lists: Sequence[Sequence[Any]], start: Hashable,
                       step: Callable[[Any, Any], Any], accept: Callable[[Any], bool],
                       limit: int | None = None) -> Diagram:
        """Unroll an automaton over the cells' lists.

        Args:
            lists: Per cell (in the relation's order), its labels.
            start: The state before the first cell.
            step: ``step(state, label)``: the state after a cell takes
                ``label``, or None when no tuple continues that way.
            accept: Whether a state after the last cell ends an allowed tuple.
            limit: Most arcs (None: no limit).

        Raises:
            DiagramTooLarge: past ``limit`` arcs.

        Example:
            >>> def step(total, label):  # tuples of 1..3 summing to 4
            ...     return total + label if total + label <= 4 else None
            >>> d = Diagram.from_automaton([(1, 2, 3)] * 2, 0, step, lambda total: total == 4)
            >>> sorted(d.tuples())
            [(1, 3), (2, 2), (3, 1)]
        """
        k = len(lists)
        states: list[dict[Hashable, int]] = [{start: 0}]
        arcs: list[list[Arc]] = []
        n_arcs = 0
        for i, labels in enumerate(lists):
            level: dict[Hashable, int] = {}
            layer: list[Arc] = []
            last = i == k - 1
            for state, s in states[i].items():
                for label in labels:
                    nxt = step(state, label)
                    if nxt is None:
                        continue
                    if last:
                        if not accept(nxt):
                            continue
                        nxt = None  # every accepted state is the terminal
                    t = level.setdefault(nxt, len(level))
                    layer.append((s, label, t))
                    n_arcs += 1
                    if limit is not None and n_arcs > limit:
                        raise DiagramTooLarge(f"more than {limit:,} arcs")
            states.append(level)
            arcs.append(layer)
        if k and not states[k]:
            return cls.empty_of(k)
        raw = cls(tuple(tuple(layer) for layer in arcs), tuple(len(level) for level in states))
        return raw.reduced()

    def reduced(self) -> Diagram:
        """The equivalent diagram without dead nodes (that reach no terminal, or
        that the root does not reach) and with equal nodes merged (same
        outgoing arcs), renumbered level by level in first-use order."""
        k = self.arity
        if self.empty or k == 0:
            return self
        # backward: keep the nodes that reach the terminal, merging equal ones
        canon: list[list[int]] = [[] for _ in range(k + 1)]
        canon[k] = [0]
        kept: list[list[tuple[int, Any, int]]] = [[] for _ in range(k)]
        for i in range(k - 1, -1, -1):
            out: dict[int, set[tuple[Any, int]]] = {}
            below = canon[i + 1]
            for s, label, t in self.layers[i]:
                ct = below[t]
                if ct >= 0:
                    out.setdefault(s, set()).add((label, ct))
            signature: dict[frozenset[tuple[Any, int]], int] = {}
            here = [-1] * self.levels[i]
            for s in range(self.levels[i]):
                arcs_of = out.get(s)
                if not arcs_of:
                    continue
                here[s] = signature.setdefault(frozenset(arcs_of), len(signature))
            canon[i] = here
            kept[i] = [(here[s], label, ct) for s, arcs_of in out.items() if here[s] >= 0
                       for label, ct in arcs_of]
        if canon[0][0] < 0:
            return Diagram.empty_of(k)
        # forward: keep what the root reaches, renumber in order of first use
        reach: set[int] = {canon[0][0]}
        number = {canon[0][0]: 0}
        layers: list[tuple[Arc, ...]] = []
        levels = [1]
        for i in range(k):
            arcs = sorted({arc for arc in kept[i] if arc[0] in reach}, key=_arc_key)
            nxt: dict[int, int] = {}
            renamed = []
            for s, label, t in sorted(arcs, key=lambda a: (number[a[0]], _order(a[1]), a[2])):
                renamed.append((number[s], label, nxt.setdefault(t, len(nxt))))
            layers.append(tuple(sorted(renamed, key=_arc_key)))
            levels.append(len(nxt))
            reach = set(nxt)
            number = nxt
        return Diagram(tuple(layers), tuple(levels))


def _order(label: Any) -> tuple[int, Any]:
    """A sort key for labels of one type or the other (ints before strings)."""
    return (0, label) if isinstance(label, int) else (1, str(label))


def _arc_key(arc: Arc) -> tuple[int, tuple[int, Any], int]:
    return arc[0], _order(arc[1]), arc[2]


def supports(layers: Sequence[Sequence[tuple[int, int, int]]], levels: Sequence[int],
             lists: Sequence[int]) -> list[int] | None:
    """Generalised arc consistency of a diagram whose labels are bits (``1 << value``).

    Args:
        layers: The diagram's layers (labels as single-bit masks).
        levels: Its node counts per level.
        lists: The current list (bit set) of each of its cells, in order.

    Returns:
        Per cell, the bits of its list that lie on a root-to-terminal path of
        still allowed labels; None when there is no such path.
    """
    k = len(layers)
    if levels[-1] == 0:
        return None
    reach = [b"\x01"]
    for i in range(k):
        here = reach[i]
        d = lists[i]
        nxt = bytearray(levels[i + 1])
        for s, bit, t in layers[i]:
            if here[s] and d & bit:
                nxt[t] = 1
        if not any(nxt):
            return None
        reach.append(bytes(nxt))
    out = [0] * k
    alive = bytearray(b"\x01")  # the terminal
    for i in range(k - 1, -1, -1):
        here = reach[i]
        d = lists[i]
        above = bytearray(levels[i])
        sup = 0
        for s, bit, t in layers[i]:
            if alive[t] and here[s] and d & bit:
                sup |= bit
                above[s] = 1
        out[i] = sup
        alive = above
    return out
