"""The deduction techniques of the rating, one rule per function.

Each rule reads an :class:`~futocp.rating.core.Engine` and a
:class:`~futocp.rating.core.State` and returns the next :class:`Step` it
finds, or None; :data:`TECHNIQUE_FUNCS` maps the names of
:data:`~futocp.rating.core.TECHNIQUES` to them. The matching (GAC) rules use
:mod:`futocp.gac`'s matching and reachability closure, one Hall set per step
so that an explanation can name it. ``docs/rating.md`` has a worked example
of each technique.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any

from ..board import Label
from ..gac import NoMatching, value_reach
from ..gac import saturating_matching as _match
from ..propagate import bits, low_bit
from .core import (
    DEP_AC_C,
    DEP_AC_R,
    DEP_CAGE,
    DEP_FC_C,
    DEP_FC_R,
    DEP_HS,
    DEP_LB,
    DEP_SUB,
    Contradiction,
    Engine,
    State,
    Step,
    Technique,
    Unit,
    forcing_chain,
)

__all__ = ["TECHNIQUE_FUNCS", "lazy", "elim_text"]

def _each_pending(pending: set[int]) -> Iterator[int]:
    """The items a technique has still to look at, in order. Each is taken off
    ``pending`` when the loop moves on from it; the one a technique returns a step
    (or raises a contradiction) on stays pending, to be looked at again."""
    for k in sorted(pending):
        yield k
        pending.discard(k)


# ------------------------------------------------------------- level 0: singles
def _hidden_single(eng: Engine, st: State) -> Step | None:
    doms, placed = st.doms, st.placed
    for u in _each_pending(st.dirty[DEP_HS]):
        unit = eng.units[u]
        need = st.need[u]
        if unit.partial or not need:
            continue
        once = twice = 0
        for c in unit.cells:
            if placed[c] < 0:
                d = doms[c]
                twice |= once & d
                once |= d
        missing = need & ~once
        if missing:
            v = low_bit(missing)
            raise Contradiction(f"{eng.label(v)} has no place left in {unit.name}")
        rem = st.rem[u]
        if unit.simple:
            single = need & ~twice
            if single:
                v = low_bit(single)
                bit = 1 << v
                cell = next(c for c in unit.cells if placed[c] < 0 and doms[c] & bit)
                return _hidden_step(eng, unit, v, (cell,))
        else:
            for v in bits(need):
                bit = 1 << v
                where = tuple(c for c in unit.cells if placed[c] < 0 and doms[c] & bit)
                if len(where) < rem[v]:
                    raise Contradiction(f"{eng.label(v)} needs {rem[v]} more places in "
                                        f"{unit.name}, has {len(where)}")
                if len(where) == rem[v]:
                    return _hidden_step(eng, unit, v, where)
    return None


def _hidden_step(eng: Engine, unit: Unit, v: int, cells: tuple[int, ...]) -> Step:
    label = eng.values[v]

    def why() -> str:
        where = ",".join(eng.cell_name(c) for c in cells)
        only = "only fits" if len(cells) == 1 else f"needs {len(cells)} more places and only fits"
        return f"hidden single: {label} {only} {where} in {unit.name} → place {label}"

    return Step("hidden-single", 0, tuple((c, label) for c in cells), (),
                premises=unit.cells, _why=why)


def _naked_single(eng: Engine, st: State) -> Step | None:
    doms, placed = st.doms, st.placed
    for c in _each_pending(st.singles):
        if placed[c] >= 0:
            continue
        d = doms[c]
        if not d:
            raise Contradiction(f"{eng.cell_name(c)} has no label left")
        label = eng.values[low_bit(d)]
        return Step("naked-single", 0, ((c, label),), (), premises=(c,),
                    _why=lazy(lambda c, label: f"naked single: {eng.cell_name(c)} can only be "
                               f"{label} → place {label}", c, label))
    return None


# -------------------------------------------------------- relations (levels 1-2)
def lazy(fn: Callable[..., str], *args: Any) -> Callable[[], str]:
    """A reason formatted only when read (rating needs the steps, rarely their words)."""
    return partial(fn, *args)


def elim_text(eng: Engine, elims: Sequence[tuple[int, Label]]) -> str:
    by: dict[int, list[str]] = {}
    for c, label in elims:
        by.setdefault(c, []).append(str(label))
    return ", ".join(f"{eng.cell_name(c)} loses {' '.join(ls)}" for c, ls in by.items())


def _elims(eng: Engine, pairs: Iterable[tuple[int, int]]) -> tuple[tuple[int, Label], ...]:
    """(cell, value-mask) -> (cell, label) pairs."""
    vals = eng.values
    return tuple((c, vals[v]) for c, mask in pairs for v in bits(mask))


def _less_bounds(eng: Engine, st: State) -> Step | None:
    doms = st.doms
    less = eng.less
    for k in _each_pending(st.dirty[DEP_LB]):
        a, b = less[k]
        da, db = doms[a], doms[b]
        if da and db:
            lo = low_bit(da)
            hi = db.bit_length() - 1
            cut_b = db & ((1 << (lo + 1)) - 1)
            cut_a = da & ~((1 << hi) - 1)
            if cut_a or cut_b:
                elims = _elims(eng, [(b, cut_b), (a, cut_a)])

                def why(a: int = a, b: int = b, lo: int = lo, hi: int = hi,
                        cut_a: int = cut_a, cut_b: int = cut_b,
                        elims: tuple[tuple[int, Label], ...] = elims) -> str:
                    na, nb = eng.cell_name(a), eng.cell_name(b)
                    parts = []
                    if cut_b:
                        parts.append(f"min {na} = {eng.label(lo)}")
                    if cut_a:
                        parts.append(f"max {nb} = {eng.label(hi)}")
                    return f"less-bounds: {na} < {nb}, {', '.join(parts)} → {elim_text(eng, elims)}"

                return Step("less-bounds", 1, (), elims, premises=(a, b), _why=why)
    return None


def _rel_text(kind: str) -> str:
    return {"consecutive": "are consecutive", "nonconsecutive": "are not consecutive",
            "ratio": "are in ratio 1:2",
            "nodot": "are neither consecutive nor in ratio 1:2"}.get(kind, f"are related by {kind}")


def _support(eng: Engine, st: State, src: int, dst: int, table: Sequence[int], ne: int,
             forward: bool) -> tuple[int, int] | None:
    """What ``src`` leaves ``dst`` through a relation's support table: forward
    checking from a placed ``src`` (None while src is open or dst placed), or
    arc consistency from its list. Returns ``(allowed mask, what src reads)``."""
    if forward:
        v = st.placed[src]
        if v < 0 or st.placed[dst] >= 0:
            return None
        return (table[v] & ~(1 << v) if (ne >> v) & 1 else table[v]), v
    ds = st.doms[src]
    supp = 0
    m = ds
    while m:
        low = m & -m
        v = low.bit_length() - 1
        supp |= table[v] & ~low if (ne >> v) & 1 else table[v]
        m ^= low
    return supp, ds


def _pair_rule(eng: Engine, st: State, tech: str, forward: bool) -> Step | None:
    """Forward checking (level 1) or arc consistency (level 2) on the binary
    relations of one technique group (``consecutive`` or ``relation``)."""
    if forward:
        pending = st.dirty[DEP_FC_C if tech == "consecutive" else DEP_FC_R]
    else:
        pending = st.dirty[DEP_AC_C if tech == "consecutive" else DEP_AC_R]
    doms = st.doms
    name, level = (f"{tech}-fc", 1) if forward else (f"{tech}-ac", 2)
    for k in _each_pending(pending):
        a, b, fwd, bwd, ne, kind, group = eng.rels[k]
        if group != tech:
            continue
        for src, dst, table in ((a, b, fwd), (b, a, bwd)):
            found = _support(eng, st, src, dst, table, ne, forward)
            if found is None:
                continue
            allowed, read = found
            cut = doms[dst] & ~allowed
            if cut:
                elims = _elims(eng, [(dst, cut)])
                return Step(name, level, (), elims, premises=(src, dst),
                            _why=lazy(_pair_text, eng, name, src, dst, read, forward, kind,
                                      elims))
    return None


def _pair_text(eng: Engine, name: str, src: int, dst: int, read: int, forward: bool,
               kind: str, elims: Sequence[tuple[int, Label]]) -> str:
    what = f"= {eng.label(read)}" if forward else f"∈ {{{eng.labels(read)}}}"
    return (f"{name}: {eng.cell_name(src)} {what} and {eng.cell_name(dst)} {_rel_text(kind)} "
            f"→ {elim_text(eng, elims)}")


def _fc_consecutive(eng: Engine, st: State) -> Step | None:
    return _pair_rule(eng, st, "consecutive", True)


def _fc_other(eng: Engine, st: State) -> Step | None:
    return _pair_rule(eng, st, "relation", True)


def _ac_consecutive(eng: Engine, st: State) -> Step | None:
    return _pair_rule(eng, st, "consecutive", False)


def _ac_other(eng: Engine, st: State) -> Step | None:
    return _pair_rule(eng, st, "relation", False)


def _cage(eng: Engine, st: State) -> Step | None:
    """Each cell of a cage keeps the labels it takes in some assignment of
    pairwise different labels with the cage's sum that fits the domains."""
    doms = st.doms
    for k in _each_pending(st.dirty[DEP_CAGE]):
        cells, combos, total = eng.cages[k]
        ds = [doms[c] for c in cells]
        keep = [0] * len(cells)
        fits = []
        for combo in combos:
            sub = [d & combo for d in ds]
            if not all(sub):
                continue
            try:
                kept = _gac_edges(sub, [1 if (combo >> v) & 1 else 0 for v in range(eng.nv)])
            except NoMatching:
                continue
            fits.append(combo)
            for i, m in enumerate(kept):
                keep[i] |= m
        cut = [(c, d & ~kp) for c, d, kp in zip(cells, ds, keep, strict=True) if d & ~kp]
        if cut:
            elims = _elims(eng, cut)
            return Step("cage", 2, (), elims, premises=cells,
                        _why=lazy(_cage_text, eng, cells, total, fits, elims))
    return None


def _cage_text(eng: Engine, cells: Sequence[int], total: int, fits: Sequence[int],
               elims: Sequence[tuple[int, Label]]) -> str:
    sets = " or ".join("{" + eng.labels(m) + "}" for m in fits[:4])
    if len(fits) > 4:
        sets += f" (or {len(fits) - 4} more)"
    what = f"only {sets} fit" + ("s" if len(fits) == 1 else "") if fits else "no set fits"
    return (f"cage: [{','.join(eng.cell_name(c) for c in cells)}] adds up to {total} with "
            f"different labels; {what} → {elim_text(eng, elims)}")


# ------------------------------------------------------------ matching (GAC)
def _hall_sets(doms: Sequence[int], caps: Sequence[int]
               ) -> tuple[int, list[int], list[tuple[int, int]]] | None:
    """The smallest Hall set whose rights other left nodes must give up.

    From a saturating matching, right r *reaches* right q when an alternating
    path leads from r to q (r -> a left node matched to r -> another right of
    that node -> ...). An edge (left j, right r) lies in some saturating
    matching (Berge) exactly when j is matched to r, or r reaches j's partner
    (an alternating cycle), or r reaches a right with spare capacity (an
    alternating path). When it lies in none, the rights R that r reaches and
    the left nodes matched into R form a tight Hall set: those left nodes have
    no candidates outside R, so every other left node loses R. Repeating the
    step reaches generalized arc consistency.

    Returns:
        ``(rights R, lefts matched into R, [(left, removed rights mask)])`` or
        None when every edge lies in some saturating matching.

    Raises:
        NoMatching: when no matching saturates the left side.
    """
    mate, owners = _match(doms, caps)
    reach, free = value_reach(doms, caps, owners)
    stuck = 0  # rights that have an edge in no saturating matching
    for j, d in enumerate(doms):
        mj = mate[j]
        m = d & ~(1 << mj)
        while m:
            low = m & -m
            m ^= low
            rr = reach[low.bit_length() - 1]
            if not (rr & free or (rr >> mj) & 1):
                stuck |= low
    if not stuck:
        return None
    best = None
    for r in bits(stuck):
        rr = reach[r]
        if rr & free:
            continue
        inside = set()
        for q in bits(rr):
            inside.update(owners[q])
        cuts = [(j, doms[j] & rr) for j in range(len(doms)) if j not in inside and doms[j] & rr]
        if cuts and (best is None or len(inside) < best[0]):
            best = (len(inside), rr, sorted(inside), cuts)
    assert best is not None
    return best[1], best[2], best[3]


def _gac_edges(doms: Sequence[int], caps: Sequence[int]) -> list[int]:
    """The domains reduced to the edges that lie in some saturating matching."""
    out = list(doms)
    while True:
        found = _hall_sets(out, caps)
        if found is None:
            return out
        for j, cut in found[2]:
            out[j] &= ~cut


# ----------------------------------------------------------- level 2: subsets
def _subset(eng: Engine, st: State) -> Step | None:
    doms, placed = st.doms, st.placed
    for u in _each_pending(st.dirty[DEP_SUB]):
        unit = eng.units[u]
        cells = [c for c in unit.cells if placed[c] < 0]
        if len(cells) < 2:
            continue
        ds = [doms[c] for c in cells]
        caps = st.rem[u]
        try:
            found = _hall_sets(ds, caps)
        except NoMatching as exc:
            held = [cells[j] for j in exc.lefts]
            raise Contradiction(
                f"in {unit.name}, {len(held)} cells "
                f"{','.join(eng.cell_name(c) for c in held)} share only the labels "
                f"{{{eng.labels(exc.rights)}}}") from None
        if found is None:
            continue
        rights, lefts, cuts = found
        inside = tuple(cells[j] for j in lefts)
        elims = _elims(eng, [(cells[j], m) for j, m in cuts])
        outside = tuple(c for c in cells if c not in set(inside))
        values_out = 0
        for c in outside:
            values_out |= doms[c]
        values_out &= ~rights
        hidden = len(outside) < len(inside) and not unit.partial
        size = len(outside) if hidden else len(inside)

        def why(unit: Unit = unit, inside: tuple[int, ...] = inside,
                outside: tuple[int, ...] = outside, rights: int = rights,
                values_out: int = values_out, hidden: bool = hidden,
                elims: tuple[tuple[int, Label], ...] = elims) -> str:
            if hidden:
                return (f"subset: in {unit.name}, {{{eng.labels(values_out)}}} fit only "
                        f"{','.join(eng.cell_name(c) for c in outside)} → "
                        f"{elim_text(eng, elims)}")
            return (f"subset: {unit.name} cells {','.join(eng.cell_name(c) for c in inside)} "
                    f"hold {{{eng.labels(rights)}}} → {elim_text(eng, elims)}")

        return Step("subset", 2, (), elims, size=size, premises=tuple(cells), _why=why)
    return None


def _intersection(eng: Engine, st: State) -> Step | None:
    """Pointing / claiming: when asterism A's places for a label all lie in its
    overlap with asterism B, the rest of B loses the label."""
    doms, placed, seen, uver = st.doms, st.placed, st.seen, st.uver
    for k, (a, b, common) in enumerate(eng.inter):
        key = ("int", k)
        ver = uver[a] + uver[b]
        if seen.get(key) == ver:
            continue
        ua, ub = eng.units[a], eng.units[b]
        for v in bits(st.need[a] & st.need[b]):
            bit = 1 << v
            need_a, need_b = st.rem[a][v], st.rem[b][v]
            if need_a < need_b:
                continue
            if any(placed[c] < 0 and doms[c] & bit for c in ua.cells if c not in common):
                continue
            cut = [(c, bit) for c in ub.cells
                   if c not in common and placed[c] < 0 and doms[c] & bit]
            if cut:
                elims = _elims(eng, cut)
                label = eng.values[v]
                return Step("intersection", 2, (), elims, premises=ua.cells,
                            _why=lazy(lambda ua, ub, label, elims:
                                       f"intersection: in {ua.name}, {label} lies only where it "
                                       f"meets {ub.name} → {elim_text(eng, elims)}",
                                       ua, ub, label, elims))
        seen[key] = ver
    return None


# -------------------------------------------------------------- level 3: fish
def _fish(eng: Engine, st: State) -> Step | None:
    doms, placed, seen = st.doms, st.placed, st.seen
    for p, (ca, cb, meet) in enumerate(eng.classes):
        for v in bits(eng.mult1):
            key = ("fish", p, v)
            ver = st.vver[v]
            if seen.get(key) == ver:
                continue
            bit = 1 << v
            lefts = [i for i, u in enumerate(ca) if st.need[u] & bit]
            rights = [j for j, u in enumerate(cb) if st.need[u] & bit]
            if len(lefts) < 2:
                seen[key] = ver
                continue
            rpos = {j: k for k, j in enumerate(rights)}
            ds = []
            for i in lefts:
                m = 0
                row = meet[i]
                for j in rights:
                    c = row[j]
                    if c is not None and placed[c] < 0 and doms[c] & bit:
                        m |= 1 << rpos[j]
                ds.append(m)
            try:
                found = _hall_sets(ds, [1] * len(rights))
            except NoMatching as exc:
                names = ",".join(eng.units[ca[lefts[i]]].name for i in exc.lefts)
                raise Contradiction(f"{eng.label(v)} cannot be placed once in each of {names}"
                                    ) from None
            if found is None:
                seen[key] = ver
                continue
            rmask, lin, cuts = found
            base = [ca[lefts[i]] for i in lin]
            cover = [cb[rights[j]] for j in bits(rmask)]
            lset = set(lin)
            base_h = [cb[rights[j]] for j in range(len(rights)) if not (rmask >> j) & 1]
            cover_h = [ca[lefts[i]] for i in range(len(lefts)) if i not in lset]
            cells = []
            for i, m in cuts:
                for j in bits(m):
                    c = meet[lefts[i]][rights[j]]
                    assert c is not None
                    cells.append(c)
            label = eng.values[v]
            elims = tuple((c, label) for c in sorted(cells))
            if len(base_h) < len(base):
                base, cover = base_h, cover_h
            size = len(base)

            def why(base: list[int] = base, cover: list[int] = cover, label: Label = label,
                    cells: list[int] = cells) -> str:
                bn = _names(eng, base)
                cn = _names(eng, cover)
                shown = ",".join(eng.cell_name(c) for c in sorted(cells))
                return (f"fish on {label}: {bn} hold it only in {cn} → {shown} "
                        f"lose{'s' if len(cells) == 1 else ''} {label}")

            return Step("fish", 3, (), elims, size=size, _why=why)
    return None


def _names(eng: Engine, units: Sequence[int]) -> str:
    """``rows 1,4`` for units of one kind, else their names joined."""
    names = [eng.units[u].name for u in units]
    kinds = {n.split(" ")[0] for n in names}
    if len(kinds) == 1 and all(len(n.split(" ")) == 2 for n in names):
        kind = kinds.pop()
        plural = "boxes" if kind == "box" else kind + "s"
        return f"{plural if len(names) > 1 else kind} {','.join(n.split(' ')[1] for n in names)}"
    return ", ".join(names)


# ----------------------------------------------------- level 3: forcing chains
def _forcing_chain(eng: Engine, st: State) -> Step | None:
    """Tatham's bivalue forcing chain (:func:`~futocp.rating.core.forcing_chain`)
    from each open cell of two labels, for each of them."""
    key = ("fc-chain",)
    if st.seen.get(key) == st.tick:
        return None
    doms, placed = st.doms, st.placed
    nbrs, peers = eng.chain_nbrs, eng.peers
    for s in range(eng.n):
        d = doms[s]
        if placed[s] >= 0 or d.bit_count() != 2:
            continue
        for orig in bits(d):
            found = forcing_chain(s, orig, doms, nbrs, peers[s].__contains__)
            if found is not None:
                q, path, vals = found
                label = eng.values[orig]
                chain = tuple(path)
                return Step("forcing-chain", 3, (), ((q, label),), size=len(chain),
                            premises=chain, _why=lazy(_chain_text, eng, chain, tuple(vals), q,
                                                      label))
    st.seen[key] = st.tick
    return None


def _chain_text(eng: Engine, chain: Sequence[int], vals: Sequence[int], q: int,
                label: Label) -> str:
    start = chain[0]
    links = " → ".join(f"{eng.cell_name(c)}={eng.label(v)}" for c, v in zip(chain, vals, strict=True))
    return (f"forcing chain on {label}: if {eng.cell_name(start)} is not {label}, then {links}; "
            f"{eng.cell_name(q)} sees {eng.cell_name(start)} and {eng.cell_name(chain[-1])} "
            f"→ {eng.cell_name(q)} loses {label}")



TECHNIQUE_FUNCS: dict[str, Technique] = {
    "hidden-single": _hidden_single, "naked-single": _naked_single,
    "less-bounds": _less_bounds, "consecutive-fc": _fc_consecutive,
    "relation-fc": _fc_other, "consecutive-ac": _ac_consecutive,
    "relation-ac": _ac_other, "cage": _cage, "intersection": _intersection,
    "subset": _subset, "fish": _fish, "forcing-chain": _forcing_chain}
"""Technique name -> rule (every technique but ``guess``, which the driver runs)."""
