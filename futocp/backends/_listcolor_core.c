/* The compiled core of the listcolor backend (futocp/backends/listcolor.py).
 *
 * The same algorithm as the pure-Python reference in listcolor.py, step for
 * step, so that every counter (nodes, backtracks, max_depth, probes,
 * failed_literals, dilemma_values, removed_values) and the order of the
 * solutions are the same: the propagation loop (make_propagator), the plain
 * and the lookahead branchers (make_plain_brancher, make_lookahead_brancher),
 * the settling of the root (settle) and the search strategy (_Search.run,
 * _Search.dfs, _portfolio). Read the Python first: the comments here only
 * say where the C differs in form.
 *
 * Lists are ``bits`` (_bits.h): BITS_WIDTH = 64 * NW bits, NW a compile-time
 * constant. setup.py builds this file twice: NW=1 (uint64_t) as
 * ``futocp.backends._listcolor_core`` (at most 64 values; every all-different
 * group at most 64 cells) and NW=2 (unsigned __int128) as
 * ``futocp.backends._listcolor_core_wide`` (at most 128 of each); listcolor.py
 * picks the narrowest that fits, so the common boards run on single words.
 * The source is the same for both widths: every bit-set operation is an
 * integer operator or popc/ctz/hib. A search keeps one block of n + n_dual * m
 * lists (the lists, then the dual table). A small block (PROBE_COPY_BYTES at
 * most: every 9x9 or 16x16 board) is copied at each node of the stack, and
 * going back to a node copies it back (its last child takes the copy itself).
 * A large one has an undo trail: every change of a cell's list is recorded as
 * (cell, old list) before it is made, a node of the stack is a mark in the
 * trail, and going back to a node undoes the trail to its mark (the dual table
 * is restored from the lists' differences: it always holds exactly the
 * positions whose cell's list holds the value). Where
 * the Python copies the lists of a node for each child, the C core copies the
 * node once or undoes; the counters and the order of the solutions are the
 * same. A lookahead probe propagates on a copy (a small block) or in place and
 * keeps its outcome as a delta (cell, new list), undone at once; a lookahead
 * child is its probe's delta applied to its parent.
 *
 * The propagation makes the Python's events in the Python's order (the
 * counters removed_values and the ``binary`` weight depend on it); it is only
 * cheaper per event: a cell's slots in the dual table are packed (Slot), a
 * change of one value has a path of its own, a fixed value is not pushed twice
 * to one cell (Program.sfix), the lists of two are counted only where the
 * ``binary`` weight reads them (propagate_binary), and a program of
 * all-different groups alone (a Latin square, a Sudoku) runs a copy without the
 * other relations' code (PROPAGATE). Locked candidates (the Python's
 * ``outside`` intersections of a slot) read a table per group of up to
 * LK_TABLE_BITS cells: for each set of positions, the first intersection that
 * holds it (locked_tables); a search without them runs copies without their
 * code. At the root the fixed cells' values leave their groups in bulk before
 * settle (settle_root): the same fixpoint, the same counters.
 *
 * Module API (called by listcolor.py and batch.py only):
 *   Program(n_cells, groups, counts, cell_groups, succ, pred, n_values,
 *           dual_groups, arcs, distinct, cages, cells, values, diagrams)
 *   run(program, domains, limit, expired, mode, weights, dual_branching,
 *       hidden_singles, locked_candidates, start, solutions)
 *       -> (finished, nodes, backtracks, max_depth, probes, failed_literals,
 *           dilemma_values, removed_values)
 *   pack_givens(program, clues) -> bytes       (futocp/batch.py)
 *   run_many(program, base, givens, count, limit, mode, weights, dual_branching,
 *            hidden_singles, locked_candidates, asterisms, want) -> [row per board]
 *                                                                  (futocp/batch.py)
 *
 * A search makes no Python object: its solutions go into a C buffer (SolBuf)
 * and become label tuples after it. run calls its time-limit callback during
 * the search, with the GIL; run_many has none and searches without the GIL
 * (futocp/batch.py's worker threads run their calls at once). The module keeps
 * no mutable global state: everything a search writes is its own Search.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../_bits.h"
#include "../_inputs.h"

#if NW == 1
#define CORE_NAME "_listcolor_core"
#define CORE_INIT PyInit__listcolor_core
#else
#define CORE_NAME "_listcolor_core_wide"
#define CORE_INIT PyInit__listcolor_core_wide
#endif
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ALWAYS_INLINE __forceinline
#else
#define ALWAYS_INLINE inline
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

#define NEVER ((long long)1 << 62)
#define CHECK_EVERY 16
#ifndef AUTO_SWITCH /* benchmarks/auto_switch.py builds the core with other values */
#define AUTO_SWITCH 40 /* listcolor.py's _AUTO_SWITCH (the module's AUTO_SWITCH, tested equal) */
#endif
#define SLICE 8
#define SOLO 32
#define PROBE_COPY_BYTES 16384 /* a probe copies a block up to this size, else undoes */
#define LK_TABLE_BITS 12        /* locked candidates: a group of up to this many cells (and up to
                                 * LK_TABLE_MAX intersections) has a table of the intersection
                                 * each set of its positions fits; a larger one scans them */
#define LK_TABLE_MAX 127
#define LK_MORE 128             /* a table's flag: a later intersection fits too */

/* ------------------------------------------------------------------ */
/* The program                                                          */

/* A slot: a cell's place in one dual group (what propagate reads per change) */
typedef struct {
    bits pbit;                /* the cell's position bit in the group */
    bits fix;                 /* Program.sfix */
    int base;                 /* the group's row of the dual table */
    int cells;                /* offset of the group's cells in gcells */
    /* locked candidates: the group's intersections are lks[e0 + 1 ..], after a
     * sentinel; tab >= 0: its table (Program.tabs), else -1 (they are scanned) */
    int tab, e0;
} Slot;

/* An intersection of a dual group with another one (two shared cells or more): the
 * shared cells' positions in the group, the other group's other cells lkrest[r0 .. r1) */
typedef struct { bits mask; int r0, r1; } LkEnt;

typedef struct {
    PyObject_HEAD
    int n, m, n_groups, n_dual, n_cages, W;
    bits full;
    bits *above, *below;
    int *gstart, *gcells;     /* groups (CSR) */
    int *gcount;              /* per group: offset into counts, or -1 */
    int *counts;
    int *dual_group;          /* per dual group j: its group */
    int *sstart, *sbase, *spos, *sgroup, *scells;  /* slots per cell (scells: offset of the group's cells) */
    Slot *slot;               /* per slot: the above, packed */
    unsigned char *cflag;     /* per cell: 1 has succ/pred, 2 a slow program (dirty groups, arcs,
                               * peers) */
    bits *sfix;               /* per slot: the positions its cell's value is dropped from when the
                               * cell is fixed (not the cell's own, nor a cell of a later slot's
                               * group: that later push comes off the stack first, making this
                               * one a no-op) */
    int *cgstart, *cgroups;   /* cell_groups */
    int *sustart, *succ, *prstart, *pred;
    unsigned char *has_less;
    int *astart, *aother;     /* arcs per cell; supports m words each */
    bits *asup;
    int *pestart, *peers;     /* others of the partial groups per cell */
    int *distart, *dicells;   /* distinct groups (for settle) */
    int n_distinct;
    int *dostart, *dirty_of;  /* groups/cages to revise per cell */
    int *castart, *cacells;   /* cages */
    int *costart;
    bits *combos;
    /* diagrams (layered decision diagrams of n-ary relations), CSR: diagram i has
     * cells dgcells[dgstart[i]..dgstart[i+1]) (k of them), levels dlevels[dlvstart[i] + j]
     * (k + 1), node offsets dnoff[dlvstart[i] + j] into the scratch flags, and its
     * layer j's arcs are darcs [dlystart[dgstart[i] + j], dlystart[dgstart[i] + j + 1]) */
    int n_diag, dmaxnodes, dmaxcells;
    int *dgstart, *dgcells, *dlvstart, *dlevels, *dnoff, *dlystart, *dsrc, *ddst;
    bits *dbit;
    int slow, has_extra;
    int lean;                 /* every group all-different, no cage, diagram, arc, peer, distinct
                               * group or inequality: propagate needs no cflag nor dirty group */
    int k_slots;              /* k > 0: every cell has k slots (sstart[c] = k * c), else 0 */
    int by_slots;             /* each cell's groups without counts are its slots' groups, in
                               * order: settle finds a fixed cell's others in the dual table */
    int *cells;               /* model cell of each internal cell */
    /* locked candidates (intersections): per dual group j its entries lks[lke0[j] ..
     * lke0[j + 1]), a sentinel (mask all ones, r0 the count of the others) then its
     * intersections; their other cells lkrest; its table tabs[lkgtab[j] ..] (-1: none;
     * shared by groups of the same masks), a byte per set of positions; has_lk: any */
    LkEnt *lks;
    int *lke0, *lkgtab, *lkrest;
    unsigned char *tabs;
    int has_lk;
    PyObject *values;         /* tuple */
} Program;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) PyErr_NoMemory();
    return p;
}

static void Program_dealloc(Program *p) {
    void *arrays[] = {p->above, p->below, p->gstart, p->gcells, p->gcount, p->counts,
                      p->dual_group, p->sstart, p->sbase, p->spos, p->sgroup, p->scells, p->sfix, p->slot, p->cflag, p->cgstart,
                      p->cgroups, p->sustart, p->succ, p->prstart, p->pred, p->has_less,
                      p->astart, p->aother, p->asup, p->pestart, p->peers, p->distart,
                      p->dicells, p->dostart, p->dirty_of, p->castart, p->cacells, p->costart,
                      p->combos, p->cells, p->dgstart, p->dgcells, p->dlvstart, p->dlevels,
                      p->dnoff, p->dlystart, p->dsrc, p->ddst, p->dbit, p->lks, p->lke0, p->lkgtab, p->lkrest, p->tabs};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) free(arrays[i]);
    Py_XDECREF(p->values);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

/* A Python int as bits (lists, supports, masks): 0, or -1 with ValueError for an
 * int outside 0..2**BITS_WIDTH - 1 (TypeError for another type). No module state:
 * the wide build shifts by a small int (CPython's cached small ints; no global). */
static int as_bits(PyObject *o, bits *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v != (unsigned long long)-1 || !PyErr_Occurred()) {
        *out = (bits)v;
        return 0;
    }
#if NW == 2
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) { /* >= 2**64, or negative */
        PyErr_Clear();
        PyObject *sixty_four = PyLong_FromLong(64);
        if (!sixty_four) return -1;
        PyObject *high = PyNumber_Rshift(o, sixty_four);
        Py_DECREF(sixty_four);
        if (!high) return -1;
        /* OverflowError: >= 2**128, or negative (a negative int's high part is) */
        unsigned long long hi = PyLong_AsUnsignedLongLong(high);
        Py_DECREF(high);
        if (hi != (unsigned long long)-1 || !PyErr_Occurred()) {
            unsigned long long lo = PyLong_AsUnsignedLongLongMask(o);
            if (lo == (unsigned long long)-1 && PyErr_Occurred()) return -1;
            *out = (bits)hi << 64 | (bits)lo;
            return 0;
        }
    }
#endif
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "a bit set must lie in 0..2**" STR(BITS_WIDTH) " - 1");
    }
    return -1;
}

/* A bit set that must be a subset of ``mask`` (lists, supports, combinations:
 * the m values; a dual list: the cells of its group). */
static int as_bits_in(PyObject *o, bits mask, const char *what, bits *out) {
    if (as_bits(o, out) < 0) return -1;
    if (*out & ~mask) {
        PyErr_Format(PyExc_ValueError, "%s names a value or cell beyond its width", what);
        return -1;
    }
    return 0;
}

/* A sequence of ``expect`` (-1: any number of) sequences of ints in 0..hi - 1
 * as CSR arrays (*k_out rows); ``distinct``: no row names an item twice. */
static int csr_ints(PyObject *seq, Py_ssize_t expect, int hi, int distinct, const char *what,
                    int *k_out, int **start, int **items) {
    int rc = -1;
    unsigned char *seen = NULL;
    PyObject *rows = NULL, *outer = seq_tuple_of(seq, expect, what);
    if (!outer) return -1;
    Py_ssize_t k = PyTuple_GET_SIZE(outer), total = 0;
    if (k >= INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: too many rows", what);
        goto out;
    }
    rows = PyTuple_New(k);
    if (!rows) goto out;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *row = seq_tuple(PyTuple_GET_ITEM(outer, i), what);
        if (!row) goto out;
        PyTuple_SET_ITEM(rows, i, row);
        total += PyTuple_GET_SIZE(row);
        if (total >= INT_MAX) {
            PyErr_Format(PyExc_ValueError, "%s: too many items", what);
            goto out;
        }
    }
    *start = xcalloc((size_t)k + 1, sizeof(int));
    *items = xcalloc((size_t)total, sizeof(int));
    seen = xcalloc(hi > 0 ? (size_t)hi : 1, 1);
    if (!*start || !*items || !seen) goto out;
    int at = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *row = PyTuple_GET_ITEM(rows, i);
        (*start)[i] = at;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(row); j++) {
            int v;
            if (int_in(PyTuple_GET_ITEM(row, j), 0, (long)hi - 1, what, &v) < 0) goto out;
            if (distinct && seen[v]++) {
                PyErr_Format(PyExc_ValueError, "%s: a row names %d twice", what, v);
                goto out;
            }
            (*items)[at++] = v;
        }
        for (int a = (*start)[i]; a < at; a++) seen[(*items)[a]] = 0;
    }
    (*start)[k] = at;
    *k_out = (int)k;
    rc = 0;
out:
    free(seen);
    Py_XDECREF(rows);
    Py_DECREF(outer);
    return rc;
}

/* The diagrams: a sequence of (cells, layers, levels), a layer a sequence of
 * (source, bit, target) arcs (listcolor.py's ListcolorProgram.diagrams). */
static int read_diagrams(Program *p, PyObject *diagrams) {
    PyObject *fast = PySequence_Fast(diagrams, "diagrams");
    if (!fast) return -1;
    const Py_ssize_t nd = PySequence_Fast_GET_SIZE(fast);
    int ncells = 0, nlevels = 0, narcs = 0, ok = -1;
    p->n_diag = (int)nd;
    for (Py_ssize_t i = 0; i < nd; i++) { /* sizes first */
        PyObject *cells, *layers, *levels;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OOO", &cells, &layers, &levels))
            goto out;
        Py_ssize_t k = PyObject_Length(cells), kl = PyObject_Length(layers),
                   kv = PyObject_Length(levels);
        if (k < 0 || kl < 0 || kv < 0) goto out;
        if (kl != k || kv != k + 1) goto bad;
        ncells += (int)k;
        nlevels += (int)kv;
        for (Py_ssize_t j = 0; j < kl; j++) {
            PyObject *layer = PySequence_GetItem(layers, j);
            if (!layer) goto out;
            Py_ssize_t a = PyObject_Length(layer);
            Py_DECREF(layer);
            if (a < 0) goto out;
            narcs += (int)a;
        }
    }
    p->dgstart = xcalloc(nd + 1, sizeof(int));
    p->dgcells = xcalloc(ncells, sizeof(int));
    p->dlvstart = xcalloc(nd + 1, sizeof(int));
    p->dlevels = xcalloc(nlevels, sizeof(int));
    p->dnoff = xcalloc(nlevels, sizeof(int));
    p->dlystart = xcalloc(ncells + 1, sizeof(int));
    p->dsrc = xcalloc(narcs, sizeof(int));
    p->ddst = xcalloc(narcs, sizeof(int));
    p->dbit = xcalloc(narcs, sizeof(bits));
    if (!p->dgstart || !p->dgcells || !p->dlvstart || !p->dlevels || !p->dnoff || !p->dlystart ||
        !p->dsrc || !p->ddst || !p->dbit)
        goto out;
    int c0 = 0, v0 = 0, a0 = 0;
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *cells, *layers, *levels;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OOO", &cells, &layers, &levels))
            goto out;
        PyObject *fc = PySequence_Fast(cells, "diagram cells");
        PyObject *fl = PySequence_Fast(layers, "diagram layers");
        PyObject *fv = PySequence_Fast(levels, "diagram levels");
        int bad_item = !fc || !fl || !fv;
        const Py_ssize_t k = bad_item ? 0 : PySequence_Fast_GET_SIZE(fc);
        /* the second pass stays within what the first one counted (a sequence may lie) */
        if (!bad_item && (PySequence_Fast_GET_SIZE(fl) != k || PySequence_Fast_GET_SIZE(fv) != k + 1
                          || c0 + k > ncells || v0 + k + 1 > nlevels))
            bad_item = 1;
        p->dgstart[i] = c0;
        p->dlvstart[i] = v0;
        int total = 0;
        for (Py_ssize_t j = 0; !bad_item && j <= k; j++) {
            long lv = PyLong_AsLong(PySequence_Fast_GET_ITEM(fv, j));
            if (lv < 0 || (lv == -1 && PyErr_Occurred())) { bad_item = 1; break; }
            p->dlevels[v0 + j] = (int)lv;
            p->dnoff[v0 + j] = total;
            total += (int)lv;
        }
        if (total > p->dmaxnodes) p->dmaxnodes = total;
        if (k > p->dmaxcells) p->dmaxcells = (int)k;
        for (Py_ssize_t j = 0; !bad_item && j < k; j++) {
            long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(fc, j));
            if (c < 0 || c >= p->n) { bad_item = 1; break; }
            p->dgcells[c0 + j] = (int)c;
            p->dlystart[c0 + j] = a0;
            PyObject *arcs = PySequence_Fast(PySequence_Fast_GET_ITEM(fl, j), "diagram layer");
            if (!arcs) { bad_item = 1; break; }
            if (a0 + PySequence_Fast_GET_SIZE(arcs) > narcs) { Py_DECREF(arcs); bad_item = 1; break; }
            for (Py_ssize_t a = 0; a < PySequence_Fast_GET_SIZE(arcs); a++) {
                PyObject *src, *bit, *dst;
                if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(arcs, a), "OOO", &src, &bit, &dst) ||
                    as_bits(bit, &p->dbit[a0]) < 0) { bad_item = 1; break; }
                long sv = PyLong_AsLong(src), dv = PyLong_AsLong(dst);
                if (sv < 0 || sv >= p->dlevels[v0 + j] || dv < 0 || dv >= p->dlevels[v0 + j + 1] ||
                    !p->dbit[a0] || (p->dbit[a0] & ~p->full)) { bad_item = 1; break; }
                p->dsrc[a0] = (int)sv;
                p->ddst[a0] = (int)dv;
                a0++;
            }
            Py_DECREF(arcs);
        }
        Py_XDECREF(fc);
        Py_XDECREF(fl);
        Py_XDECREF(fv);
        if (bad_item) goto bad;
        c0 += (int)k;
        v0 += (int)k + 1;
    }
    p->dgstart[nd] = c0;
    p->dlvstart[nd] = v0;
    p->dlystart[c0] = a0;
    ok = 0;
    goto out;
bad:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "malformed listcolor diagram");
out:
    Py_DECREF(fast);
    return ok;
}

/* Every input is checked here (the search trusts the Program): cells in range,
 * ``cells`` a permutation, counts per value, supports and combinations within
 * the m values, dual groups of BITS_WIDTH cells at most; ValueError otherwise. */
static void sort_ints(int *a, size_t k);

/* The dual groups other than j that share two cells or more with dual group j, in
 * increasing order, into ``out`` (their count returned), found through the slots of
 * group j's cells; ``cnt`` (n_dual ints, zero) and ``seen`` (n_dual ints) are scratch,
 * ``cnt`` left zero. */
static int shared_groups(const Program *p, int j, int *cnt, int *seen, int *out) {
    const int g = p->dual_group[j], m = p->m;
    int k = 0, found = 0;
    for (int a = p->gstart[g]; a < p->gstart[g + 1]; a++) {
        const int c = p->gcells[a];
        for (int at = p->sstart[c]; at < p->sstart[c + 1]; at++) {
            const int h = p->sbase[at] / m;
            if (h != j && !cnt[h]++) seen[k++] = h;
        }
    }
    for (int i = 0; i < k; i++) {
        if (cnt[seen[i]] >= 2) out[found++] = seen[i];
        cnt[seen[i]] = 0;
    }
    sort_ints(out, (size_t)found);
    return found;
}

/* Locked candidates' data (Program.lks, lke0, lkrest, tabs, lkgtab, has_lk and the
 * slots' tab and e0), from the dual groups: per dual group j, every other dual group h
 * it shares two cells or more with, in order (intersections() of
 * listcolor_propagate.py). 0, or -1 with MemoryError. */
static int locked_tables(Program *p) {
    const int nd = p->n_dual, n = p->n, m = p->m;
    int *where = xcalloc(n ? n : 1, sizeof(int)), *cnt = xcalloc(nd + 1, sizeof(int));
    int *seen = xcalloc(nd + 1, sizeof(int)), *others = xcalloc(nd + 1, sizeof(int));
    p->lkgtab = xcalloc(nd + 1, sizeof(int));
    p->lke0 = xcalloc(nd + 1, sizeof(int));
    int ok = where && cnt && seen && others && p->lkgtab && p->lke0;
    size_t ne = 0, nr = 0, ntab = 0;
    /* count: the entries (a sentinel per group), their other cells, the table bytes */
    for (int j = 0; j < nd && ok; j++) {
        const int g = p->dual_group[j], size = p->gstart[g + 1] - p->gstart[g];
        const int local = shared_groups(p, j, cnt, seen, others);
        for (int i = 0; i < local; i++)
            nr += (size_t)(p->gstart[p->dual_group[others[i]] + 1] - p->gstart[p->dual_group[others[i]]]);
        ne += 1 + (size_t)local;
        if (local && local <= LK_TABLE_MAX && size <= LK_TABLE_BITS) ntab += (size_t)1 << size;
    }
    for (int c = 0; c < n && ok; c++) where[c] = -1;
    p->lks = ok ? xcalloc(ne + 1, sizeof(LkEnt)) : NULL;
    p->lkrest = ok ? xcalloc(nr + 1, sizeof(int)) : NULL;
    p->tabs = ok ? xcalloc(ntab + 1, 1) : NULL;
    ok = ok && p->lks && p->lkrest && p->tabs;
    int e = 0, q = 0, any = 0;
    size_t used = 0;
    for (int j = 0; j < nd && ok; j++) {
        const int g = p->dual_group[j], size = p->gstart[g + 1] - p->gstart[g];
        for (int a = p->gstart[g]; a < p->gstart[g + 1]; a++) where[p->gcells[a]] = a - p->gstart[g];
        const int e0 = p->lke0[j] = e++;
        p->lks[e0].mask = ~(bits)0;  /* the sentinel: never fires (it holds every position) */
        const int n_others = shared_groups(p, j, cnt, seen, others);
        for (int i = 0; i < n_others; i++) {
            const int g2 = p->dual_group[others[i]];
            bits mask = 0;
            for (int a = p->gstart[g2]; a < p->gstart[g2 + 1]; a++)
                if (where[p->gcells[a]] >= 0) mask |= (bits)1 << where[p->gcells[a]];
            p->lks[e].mask = mask;
            p->lks[e].r0 = q;
            for (int a = p->gstart[g2]; a < p->gstart[g2 + 1]; a++)
                if (where[p->gcells[a]] < 0) p->lkrest[q++] = p->gcells[a];
            p->lks[e++].r1 = q;
        }
        for (int a = p->gstart[g]; a < p->gstart[g + 1]; a++) where[p->gcells[a]] = -1;
        const int local = e - e0 - 1;
        p->lks[e0].r0 = local;  /* the sentinel's r0: the group's count of intersections */
        any |= local > 0;
        p->lkgtab[j] = -1;
        if (!local || local > LK_TABLE_MAX || size > LK_TABLE_BITS) continue;
        /* a table: the one of an earlier group with the same masks, else a new one */
        for (int i = 0; i < j && p->lkgtab[j] < 0; i++) {
            const int gi = p->dual_group[i];
            if (p->lkgtab[i] < 0 || p->gstart[gi + 1] - p->gstart[gi] != size ||
                p->lks[p->lke0[i]].r0 != local)
                continue;
            int same = 1;
            for (int l = 1; l <= local && same; l++)
                same = p->lks[p->lke0[i] + l].mask == p->lks[e0 + l].mask;
            if (same) p->lkgtab[j] = p->lkgtab[i];
        }
        if (p->lkgtab[j] >= 0) continue;
        /* per set of two positions or more: the first intersection that holds it (1..),
         * plus LK_MORE when a later one does too; 0: none */
        p->lkgtab[j] = (int)used;
        for (size_t x = 0; x < ((size_t)1 << size); x++) {
            unsigned t = 0;
            if (x & (x - 1))
                for (int l = 1; l <= local; l++)
                    if (!((bits)x & ~p->lks[e0 + l].mask)) {
                        if (t) {
                            t |= LK_MORE;
                            break;
                        }
                        t = (unsigned)l;
                    }
            p->tabs[used + x] = (unsigned char)t;
        }
        used += (size_t)1 << size;
    }
    if (ok) {
        p->lke0[nd] = e;
        p->has_lk = any;
        for (int at = 0; at < p->sstart[n]; at++) {
            const int j = p->sbase[at] / m;
            p->slot[at].e0 = p->lke0[j];
            p->slot[at].tab = p->lkgtab[j];
        }
    }
    free(where);
    free(cnt);
    free(seen);
    free(others);
    if (!ok) PyErr_NoMemory();
    return ok ? 0 : -1;
}

static PyObject *Program_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *groups, *counts, *cell_groups, *succ, *pred, *dual_groups, *arcs,
        *distinct, *cages, *cells, *values, *diagrams;
    int m;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "nOOOOOiOOOOOOO", &n, &groups, &counts, &cell_groups,
                          &succ, &pred, &m, &dual_groups, &arcs, &distinct, &cages, &cells,
                          &values, &diagrams))
        return NULL;
    if (m < 1 || m > BITS_WIDTH) {
        PyErr_SetString(PyExc_ValueError, "the compiled core takes 1 to " STR(BITS_WIDTH) " values");
        return NULL;
    }
    if (n < 0 || n > INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "n_cells out of range");
        return NULL;
    }
    Program *p = (Program *)type->tp_alloc(type, 0);
    if (!p) return NULL;
    PyObject *fast = NULL, *row = NULL, *item = NULL;
    unsigned char *seen = NULL;
    p->n = (int)n;
    p->m = m;
    p->full = m == BITS_WIDTH ? ~(bits)0 : (((bits)1 << m) - 1);
    p->values = seq_tuple_of(values, m, "values (one label per value index)");
    if (!p->values) goto error;
    p->above = xcalloc(m, sizeof(bits));
    p->below = xcalloc(m, sizeof(bits));
    if (!p->above || !p->below) goto error;
    for (int v = 0; v < m; v++) {
        p->above[v] = v + 1 >= BITS_WIDTH ? 0 : p->full & ~((((bits)1) << (v + 1)) - 1);
        p->below[v] = (((bits)1) << v) - 1;
    }
    /* cells: a permutation of 0..n-1 (a solution puts cell i's label at cells[i]) */
    p->cells = xcalloc(n, sizeof(int));
    seen = xcalloc(n, 1);
    if (!p->cells || !seen) goto error;
    fast = seq_tuple_of(cells, n, "cells (one per cell)");
    if (!fast) goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (int_in(PyTuple_GET_ITEM(fast, i), 0, (long)n - 1, "a cell", &p->cells[i]) < 0)
            goto error;
        if (seen[p->cells[i]]++) {
            PyErr_Format(PyExc_ValueError, "cells is not a permutation: %d twice", p->cells[i]);
            goto error;
        }
    }
    Py_CLEAR(fast);
    /* groups and their counts */
    if (csr_ints(groups, -1, p->n, 1, "a group's cell", &p->n_groups, &p->gstart, &p->gcells) < 0)
        goto error;
    fast = seq_tuple_of(counts, p->n_groups, "counts (one per group)");
    if (!fast) goto error;
    p->gcount = xcalloc(p->n_groups, sizeof(int));
    p->counts = xcalloc((size_t)p->n_groups * m, sizeof(int));
    if (!p->gcount || !p->counts) goto error;
    for (int g = 0; g < p->n_groups; g++) {
        PyObject *k = PyTuple_GET_ITEM(fast, g);
        p->gcount[g] = -1;
        if (k == Py_None) continue;
        row = seq_tuple_of(k, m, "a group's counts (one per value)");
        if (!row) goto error;
        p->gcount[g] = g * m;
        for (int v = 0; v < m; v++)
            if (int_in(PyTuple_GET_ITEM(row, v), 0, INT_MAX, "a count", &p->counts[g * m + v]) < 0)
                goto error;
        Py_CLEAR(row);
    }
    Py_CLEAR(fast);
    /* dual groups (permutation groups of BITS_WIDTH cells at most), slots */
    fast = seq_tuple(dual_groups, "dual_groups");
    if (!fast) goto error;
    if (PyTuple_GET_SIZE(fast) > p->n_groups) {
        PyErr_SetString(PyExc_ValueError, "more dual groups than groups");
        goto error;
    }
    p->n_dual = (int)PyTuple_GET_SIZE(fast);
    if ((long long)n + (long long)p->n_dual * m > INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "the program is too large for the compiled core");
        goto error;
    }
    p->dual_group = xcalloc(p->n_dual, sizeof(int));
    p->sstart = xcalloc(n + 1, sizeof(int));
    if (!p->dual_group || !p->sstart) goto error;
    for (int j = 0; j < p->n_dual; j++) {
        int g;
        if (int_in(PyTuple_GET_ITEM(fast, j), 0, (long)p->n_groups - 1, "a dual group", &g) < 0)
            goto error;
        if (p->gcount[g] >= 0) {
            PyErr_SetString(PyExc_ValueError, "a dual group is a group without counts");
            goto error;
        }
        if (p->gstart[g + 1] - p->gstart[g] > BITS_WIDTH) {
            PyErr_SetString(PyExc_ValueError,
                            "the compiled core takes groups of " STR(BITS_WIDTH) " cells at most");
            goto error;
        }
        p->dual_group[j] = g;
        for (int k = p->gstart[g]; k < p->gstart[g + 1]; k++) p->sstart[p->gcells[k] + 1]++;
    }
    Py_CLEAR(fast);
    for (int c = 0; c < n; c++) p->sstart[c + 1] += p->sstart[c];
    {
        int total = p->sstart[n];
        int *fill = xcalloc(n, sizeof(int));
        p->sbase = xcalloc(total, sizeof(int));
        p->spos = xcalloc(total, sizeof(int));
        p->sgroup = xcalloc(total, sizeof(int));
        p->scells = xcalloc(total, sizeof(int));
        if (!fill || !p->sbase || !p->spos || !p->sgroup || !p->scells) { free(fill); goto error; }
        for (int j = 0; j < p->n_dual; j++) {
            int g = p->dual_group[j];
            for (int k = p->gstart[g]; k < p->gstart[g + 1]; k++) {
                int c = p->gcells[k];
                int at = p->sstart[c] + fill[c]++;
                p->sbase[at] = j * m;
                p->spos[at] = k - p->gstart[g];
                p->sgroup[at] = g;
                p->scells[at] = p->gstart[g];
            }
        }
        free(fill);
        /* sfix: the slots of each cell from the last one back, marking the cells seen */
        int *stamp = xcalloc(n, sizeof(int));
        p->sfix = xcalloc(total, sizeof(bits));
        if (!stamp || !p->sfix) { free(stamp); goto error; }
        for (int c = 0; c < n; c++)
            for (int at = p->sstart[c + 1] - 1; at >= p->sstart[c]; at--) {
                const int g = p->sgroup[at], size = p->gstart[g + 1] - p->gstart[g];
                bits keep = 0;
                for (int q = 0; q < size; q++) {
                    const int x = p->gcells[p->gstart[g] + q];
                    if (x != c && stamp[x] != c + 1) keep |= (bits)1 << q;
                }
                for (int q = 0; q < size; q++) stamp[p->gcells[p->gstart[g] + q]] = c + 1;
                p->sfix[at] = keep;
            }
        free(stamp);
        p->slot = xcalloc(total, sizeof(Slot));
        if (!p->slot) goto error;
        for (int at = 0; at < total; at++) {
            p->slot[at].pbit = (bits)1 << p->spos[at];
            p->slot[at].fix = p->sfix[at];
            p->slot[at].base = p->sbase[at];
            p->slot[at].cells = p->scells[at];
        }
    }
    p->W = (int)n + p->n_dual * m;
    if (locked_tables(p) < 0) goto error;
    int rows_read;
    if (csr_ints(cell_groups, n, p->n_groups, 1, "cell_groups (a group)", &rows_read,
                 &p->cgstart, &p->cgroups) < 0 ||
        csr_ints(succ, n, p->n, 0, "succ (a cell)", &rows_read, &p->sustart, &p->succ) < 0 ||
        csr_ints(pred, n, p->n, 0, "pred (a cell)", &rows_read, &p->prstart, &p->pred) < 0)
        goto error;
    p->has_less = xcalloc(n, 1);
    if (!p->has_less) goto error;
    for (int c = 0; c < n; c++)
        p->has_less[c] = p->sustart[c + 1] > p->sustart[c] || p->prstart[c + 1] > p->prstart[c];
    /* arcs: per cell (or none at all), (other, support) pairs; a support is m bit sets */
    p->astart = xcalloc(n + 1, sizeof(int));
    if (!p->astart) goto error;
    fast = seq_tuple(arcs, "arcs");
    if (!fast) goto error;
    {
        Py_ssize_t na = PyTuple_GET_SIZE(fast), total = 0;
        if (na != 0 && na != n) {
            PyErr_SetString(PyExc_ValueError, "arcs: one row per cell, or none");
            goto error;
        }
        item = PyTuple_New(na);  /* the rows, as tuples */
        if (!item) goto error;
        for (Py_ssize_t c = 0; c < na; c++) {
            PyObject *r = seq_tuple(PyTuple_GET_ITEM(fast, c), "arcs (a row)");
            if (!r) goto error;
            PyTuple_SET_ITEM(item, c, r);
            total += PyTuple_GET_SIZE(r);
            if (total >= INT_MAX / BITS_WIDTH) {
                PyErr_SetString(PyExc_ValueError, "arcs: too many");
                goto error;
            }
        }
        p->aother = xcalloc(total, sizeof(int));
        p->asup = xcalloc((size_t)total * m, sizeof(bits));
        if (!p->aother || !p->asup) goto error;
        int at = 0;
        for (Py_ssize_t c = 0; c < n; c++) {
            p->astart[c] = at;
            if (c >= na) continue;
            PyObject *r = PyTuple_GET_ITEM(item, c);
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(r); k++) {
                row = seq_tuple_of(PyTuple_GET_ITEM(r, k), 2, "an arc (other, support)");
                if (!row) goto error;
                if (int_in(PyTuple_GET_ITEM(row, 0), 0, (long)n - 1, "an arc's cell",
                           &p->aother[at]) < 0)
                    goto error;
                PyObject *sf = seq_tuple_of(PyTuple_GET_ITEM(row, 1), m,
                                            "a support (one bit set per value)");
                if (!sf) goto error;
                for (int v = 0; v < m; v++)
                    if (as_bits_in(PyTuple_GET_ITEM(sf, v), p->full, "a support",
                                   &p->asup[(size_t)at * m + v]) < 0) {
                        Py_DECREF(sf);
                        goto error;
                    }
                Py_DECREF(sf);
                Py_CLEAR(row);
                at++;
            }
        }
        p->astart[n] = at;
        Py_CLEAR(item);
    }
    Py_CLEAR(fast);
    /* distinct groups and peers */
    if (csr_ints(distinct, -1, p->n, 1, "a distinct group's cell", &p->n_distinct, &p->distart,
                 &p->dicells) < 0)
        goto error;
    {
        /* per cell, the sorted others of its partial groups */
        unsigned char *mark = xcalloc(n, 1);
        int *cnt = xcalloc(n + 1, sizeof(int));
        if (!mark || !cnt) { free(mark); free(cnt); goto error; }
        int total = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int c = 0; c < n && p->n_distinct; c++) {
                int k = 0;
                if (pass) p->pestart[c] = total;
                for (int gi = 0; gi < p->n_distinct; gi++) {
                    int in = 0;
                    for (int a = p->distart[gi]; a < p->distart[gi + 1]; a++)
                        if (p->dicells[a] == c) in = 1;
                    if (!in) continue;
                    for (int a = p->distart[gi]; a < p->distart[gi + 1]; a++) {
                        int x = p->dicells[a];
                        if (x != c && !mark[x]) { mark[x] = 1; k++; }
                    }
                }
                if (pass) {
                    for (int x = 0; x < n && k; x++)
                        if (mark[x]) p->peers[total++] = x;
                } else {
                    cnt[c] = k;
                    total += k;
                }
                for (int gi = 0; gi < p->n_distinct && k; gi++)
                    for (int a = p->distart[gi]; a < p->distart[gi + 1]; a++) mark[p->dicells[a]] = 0;
            }
            if (!pass) {
                p->pestart = xcalloc(n + 1, sizeof(int));
                p->peers = xcalloc(total, sizeof(int));
                if (!p->pestart || !p->peers) { free(mark); free(cnt); goto error; }
                total = 0;
            }
        }
        p->pestart[n] = total;
        free(mark);
        free(cnt);
    }
    /* cages: (cells, combinations) pairs; a combination is a set of the m values */
    fast = seq_tuple(cages, "cages");
    if (!fast) goto error;
    if (PyTuple_GET_SIZE(fast) >= INT_MAX) goto error;
    p->n_cages = (int)PyTuple_GET_SIZE(fast);
    item = PyTuple_New(2 * (Py_ssize_t)p->n_cages);  /* cells, combinations of each, as tuples */
    if (!item) goto error;
    {
        Py_ssize_t ncells = 0, ncombos = 0;
        for (int i = 0; i < p->n_cages; i++) {
            row = seq_tuple_of(PyTuple_GET_ITEM(fast, i), 2, "a cage (cells, combinations)");
            if (!row) goto error;
            for (int side = 0; side < 2; side++) {
                PyObject *t = seq_tuple(PyTuple_GET_ITEM(row, side), "a cage's cells or sets");
                if (!t) goto error;
                PyTuple_SET_ITEM(item, 2 * i + side, t);
            }
            Py_CLEAR(row);
            ncells += PyTuple_GET_SIZE(PyTuple_GET_ITEM(item, 2 * i));
            ncombos += PyTuple_GET_SIZE(PyTuple_GET_ITEM(item, 2 * i + 1));
            if (ncells >= INT_MAX || ncombos >= INT_MAX) {
                PyErr_SetString(PyExc_ValueError, "cages: too large");
                goto error;
            }
        }
        p->castart = xcalloc(p->n_cages + 1, sizeof(int));
        p->costart = xcalloc(p->n_cages + 1, sizeof(int));
        p->cacells = xcalloc(ncells, sizeof(int));
        p->combos = xcalloc(ncombos, sizeof(bits));
        if (!p->castart || !p->costart || !p->cacells || !p->combos) goto error;
        int a = 0, b = 0;
        for (int i = 0; i < p->n_cages; i++) {
            PyObject *cc = PyTuple_GET_ITEM(item, 2 * i), *co = PyTuple_GET_ITEM(item, 2 * i + 1);
            p->castart[i] = a;
            p->costart[i] = b;
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(cc); k++)
                if (int_in(PyTuple_GET_ITEM(cc, k), 0, (long)n - 1, "a cage's cell",
                           &p->cacells[a++]) < 0)
                    goto error;
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(co); k++)
                if (as_bits_in(PyTuple_GET_ITEM(co, k), p->full, "a cage's combination",
                               &p->combos[b++]) < 0)
                    goto error;
        }
        p->castart[p->n_cages] = a;
        p->costart[p->n_cages] = b;
    }
    Py_CLEAR(item);
    Py_CLEAR(fast);
    if (read_diagrams(p, diagrams) < 0) goto error;
    /* dirty_of: count groups of the cell, then its cages, then its diagrams */
    {
        int *cnt = xcalloc(n + 1, sizeof(int));
        if (!cnt) goto error;
        for (int c = 0; c < n; c++)
            for (int k = p->cgstart[c]; k < p->cgstart[c + 1]; k++)
                if (p->gcount[p->cgroups[k]] >= 0) cnt[c + 1]++;
        for (int i = 0; i < p->n_cages; i++)
            for (int k = p->castart[i]; k < p->castart[i + 1]; k++) cnt[p->cacells[k] + 1]++;
        for (int k = 0; k < p->dgstart[p->n_diag]; k++) cnt[p->dgcells[k] + 1]++;
        for (int c = 0; c < n; c++) cnt[c + 1] += cnt[c];
        p->dostart = cnt;
        p->dirty_of = xcalloc(cnt[n], sizeof(int));
        int *fill = xcalloc(n, sizeof(int));
        if (!p->dirty_of || !fill) { free(fill); goto error; }
        for (int c = 0; c < n; c++)
            for (int k = p->cgstart[c]; k < p->cgstart[c + 1]; k++)
                if (p->gcount[p->cgroups[k]] >= 0) p->dirty_of[cnt[c] + fill[c]++] = p->cgroups[k];
        for (int i = 0; i < p->n_cages; i++)
            for (int k = p->castart[i]; k < p->castart[i + 1]; k++) {
                int c = p->cacells[k];
                p->dirty_of[cnt[c] + fill[c]++] = p->n_groups + i;
            }
        for (int i = 0; i < p->n_diag; i++)
            for (int k = p->dgstart[i]; k < p->dgstart[i + 1]; k++) {
                int c = p->dgcells[k];
                p->dirty_of[cnt[c] + fill[c]++] = p->n_groups + p->n_cages + i;
            }
        free(fill);
    }
    p->has_extra = p->n_distinct > 0 || p->astart[n] > 0;
    p->slow = p->dostart[n] > 0 || p->has_extra;
    p->cflag = xcalloc(n, 1);
    if (!p->cflag) goto error;
    p->lean = !p->has_extra && !p->n_cages && !p->n_diag;
    for (int g = 0; g < p->n_groups; g++)
        if (p->gcount[g] >= 0) p->lean = 0;
    for (int c = 0; c < n; c++) {
        p->cflag[c] = (unsigned char)(p->has_less[c] | (p->slow ? 2 : 0));
        if (p->has_less[c]) p->lean = 0;
    }
    p->k_slots = n ? p->sstart[1] : 0;
    for (int c = 0; c <= n; c++)
        if (p->sstart[c] != p->k_slots * c) p->k_slots = 0;
    p->by_slots = 1;
    for (int c = 0; c < n && p->by_slots; c++) {
        int at = p->sstart[c];
        for (int k = p->cgstart[c]; k < p->cgstart[c + 1]; k++)
            if (p->gcount[p->cgroups[k]] < 0 &&
                (at == p->sstart[c + 1] || p->sgroup[at++] != p->cgroups[k])) p->by_slots = 0;
        if (at != p->sstart[c + 1]) p->by_slots = 0;
    }
    free(seen);
    return (PyObject *)p;
error:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "malformed listcolor program");
    free(seen);
    Py_XDECREF(fast);
    Py_XDECREF(row);
    Py_XDECREF(item);
    Py_DECREF(p);
    return NULL;
}

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "futocp.backends." CORE_NAME ".Program",
    .tp_basicsize = sizeof(Program),
    .tp_dealloc = (destructor)Program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A ListcolorProgram in C arrays.",
    .tp_new = Program_new,
};

/* ------------------------------------------------------------------ */
/* Growable buffers and the block pool                                  */

typedef struct { int *a; size_t n, cap; } IntBuf;

static int ib_push(IntBuf *b, int x) {
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        int *a = realloc(b->a, cap * sizeof(int));
        if (!a) return -1;
        b->a = a;
        b->cap = cap;
    }
    b->a[b->n++] = x;
    return 0;
}

typedef struct Search Search;

/* (cell, list) pairs: the undo trail (old lists), and deltas (new lists) */
typedef struct { int *c; bits *v; size_t n, cap; } Trail;

static int trail_grow(Trail *t) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    int *a = realloc(t->c, cap * sizeof(int));
    if (!a) return -1;
    t->c = a;
    bits *b = realloc(t->v, cap * sizeof(bits));
    if (!b) return -1;
    t->v = b;
    t->cap = cap;
    return 0;
}

static inline int trail_push(Trail *t, int c, bits v) {
    if (t->n == t->cap && trail_grow(t) < 0) return -1;
    t->c[t->n] = c;
    t->v[t->n++] = v;
    return 0;
}

static void trail_free(Trail *t) {
    free(t->c);
    free(t->v);
    memset(t, 0, sizeof(*t));
}

/* A child: "cell takes bit" to propagate, or (has_delta) a lookahead probe's
 * outcome, the delta dstart..dend of its search's ``delta`` */
typedef struct { int cell, has_delta; bits bit; size_t dstart, dend; long long removed; } Kid;
/* A node of the stack: its lists are the search's block undone to ``mark``, or (a
 * small block: the search has a scratch block) a copy of them, ``snap`` (``clean``:
 * the block still holds them) */
typedef struct { size_t mark, dmark, kstart, kend, knext; bits *snap; int clean; } Frame;

typedef struct {
    int look;                 /* lookahead brancher (index into the weights) */
    int use_look;             /* the brancher in use: 0 plain, 1 lookahead */
    long long sw, budget, turn;
    long long nodes, backtracks;
    int check, alive, resume;
    bits *cur;                /* the block (lists, dual table) of the current node */
    Trail undo;               /* (cell, old list) of every change since the root (a large block) */
    Trail delta;              /* the deltas of the stack's lookahead children */
    Frame *frames;
    size_t nframes, capframes;
    Kid *kids;
    size_t nkids, capkids;
} Dfs;

typedef struct { int ok; long long weight, removed; size_t dstart, dend; } ProbeRes;

/* The solutions found, in C (a search makes no Python object: run_many runs it
 * without the GIL): solution i is the value index of each model cell's label,
 * v[i * n_cells .. (i + 1) * n_cells); made into label tuples after the search. */
typedef struct { unsigned char *v; size_t n, cap; } SolBuf;

struct Search {
    Program *p;
    int hs, lk, dual_branching, by_binary[2], look_check[2];
    long long limit;
    PyObject *expired;        /* the time-limit callback (run), or NULL: none (run_many) */
    SolBuf sols;              /* the solutions found */
    long long found;          /* the solutions that count towards ``limit`` */
    long long nodes, backtracks, max_depth, probes, failed, dilemma, removed, binary;
    Trail ev;                 /* the events (cell, list to keep), LIFO */
    /* count groups, cages and diagrams to revise (LIFO) */
    int *dirty;
    size_t ndirty;
    unsigned char *queued;
    /* diagram scratch: reached and alive flags per node, supports per cell */
    unsigned char *dreach, *dalive;
    bits *dsup;
    /* block pool */
    bits **pool;
    size_t npool, cappool;
    int oom, error;           /* out of memory; a Python exception is set */
    /* lookahead scratch */
    int *pairs;               /* 4 ints per pair: c1, v1, c2, v2 (value indices) */
    size_t npairs, cappairs;
    unsigned *stamp;          /* per (cell, value): round stamp of its cached probe */
    int *slot;
    unsigned round;
    ProbeRes *probes_buf;
    size_t nprobes, capprobes;
    Trail pdelta;             /* the probes' deltas (cell, new list) of the round */
    Trail ptrail;             /* a probe's changes when the search keeps no trail */
    bits *scratch;            /* small blocks: a probe runs on a copy (no undo) */
    unsigned *mark1, *mark2, *seen;
    unsigned markgen, seengen;
    bits *val1, *val2;
    bits *taken;              /* per group: its fixed cells' values (drop_fixed) */
    IntBuf common;
    Trail *undo;              /* the trail propagate records changes in (NULL: none) */
    int (*prop[2])(Search *, bits *);  /* propagate's and propagate_binary's copy (PROPAGATE) */
};

static bits *blk_alloc(Search *s) {
    if (s->npool) return s->pool[--s->npool];
    bits *b = malloc((size_t)s->p->W * sizeof(bits) + sizeof(bits));
    if (!b) s->oom = 1;
    return b;
}

static void blk_free(Search *s, bits *b) {
    if (!b) return;
    if (s->npool == s->cappool) {
        size_t cap = s->cappool ? s->cappool * 2 : 64;
        bits **a = realloc(s->pool, cap * sizeof(bits *));
        if (!a) { free(b); return; }
        s->pool = a;
        s->cappool = cap;
    }
    s->pool[s->npool++] = b;
}

static bits *blk_copy(Search *s, const bits *src) {
    bits *b = blk_alloc(s);
    if (b) memcpy(b, src, (size_t)s->p->W * sizeof(bits));
    return b;
}

static inline int push_ev(Search *s, int c, bits keep) {
    if (trail_push(&s->ev, c, keep) < 0) {
        s->oom = 1;
        return -1;
    }
    return 0;
}

#define PUSH(c, k) do { if (push_ev(s, (c), (k)) < 0) goto fail; } while (0)

/* ------------------------------------------------------------------ */
/* Propagation (make_propagator's propagate)                           */

static void mark_dirty(Search *s, int g) {
    if (!s->queued[g]) {
        s->queued[g] = 1;
        s->dirty[s->ndirty++] = g;
    }
}

/* Applies the pending events (and revises the pending dirty groups) to the
 * node ``blk``; 1 at the fixpoint, 0 on a dead end. Leaves no event and no
 * dirty group pending. The event stack and the program's arrays are held in
 * locals (the compiler cannot tell that the lists do not alias them).
 * ``lean``: the program is lean (Program.lean), so the code for inequalities,
 * dirty groups, cages, diagrams, arcs and peers is left out; ``k`` > 0: every
 * cell has k slots (Program.k_slots), a constant the compiler unrolls the loops
 * over a cell's slots with. A Latin square (k = 2) and a Sudoku (k = 3) run such
 * a copy: fewer branches and registers per event (on top1465, 7-10% of the
 * whole batch's time). ``lk``: locked candidates (Search.lk); the copies without
 * them (a Latin square's, whose groups share one cell at most) keep the code
 * they had before them. */
static ALWAYS_INLINE int propagate_as(Search *s, bits *blk, const int count_binary,
                                      const int lean, const int k, const int lk) {
    const Program *p = s->p;
    bits *const doms = blk, *const dual = blk + p->n;
    const int m = p->m, hs = s->hs, has_extra = p->has_extra;
    const int *const sstart = p->sstart, *const gcells = p->gcells;
    const Slot *const slots = p->slot;
    const unsigned char *const cflag = p->cflag;
    const bits *const above = p->above, *const below = p->below;
    long long removed = 0, binary = 0;
    const LkEnt *const lks = p->lks;
    const int *const lkrest = p->lkrest;
    const unsigned char *const tabs = p->tabs;
    Trail *const undo = s->undo;
    int *evc = s->ev.c;
    bits *evk = s->ev.v;
    size_t nev = s->ev.n, capev = s->ev.cap;
#define LPUSH(c_, k_)                                                           \
    do {                                                                        \
        if (nev == capev) {                                                     \
            s->ev.n = nev;                                                      \
            if (trail_grow(&s->ev) < 0) { s->oom = 1; goto fail; }              \
            evc = s->ev.c;                                                      \
            evk = s->ev.v;                                                      \
            capev = s->ev.cap;                                                  \
        }                                                                       \
        evc[nev] = (c_);                                                        \
        evk[nev++] = (k_);                                                      \
    } while (0)
/* intersection ``e``'s other group loses value ``low`` (locked candidates) */
#define LOCKED(e, low)                                                          \
    do {                                                                        \
        for (int q_ = (e)->r0; q_ < (e)->r1; q_++) {                            \
            const int o_ = lkrest[q_];                                          \
            if (doms[o_] & (low)) LPUSH(o_, ~(low));                            \
        }                                                                       \
    } while (0)
/* value v (bit ``low``) leaves the position of slot ``sl`` in its dual list: counts a
 * list that is left with two positions, fails on none, and on one (hidden single)
 * fixes its cell; with two or more, locked candidates: the intersections that now
 * hold them all (and did not hold the position that left) */
#define DROP_POS(sl, v, low)                                                    \
    do {                                                                        \
        bits *const du_ = dual + (sl)->base + (v);                              \
        const bits x_ = *du_ & ~(sl)->pbit;                                     \
        *du_ = x_;                                                              \
        const bits y_ = x_ & (x_ - 1);                                          \
        if (y_) {                                                               \
            if (count_binary) binary += !(y_ & (y_ - 1));                       \
            if (lk) {                                                           \
                const LkEnt *e_ = lks + (sl)->e0, *const f_ = e_ + 1 + e_->r0;  \
                unsigned t_ = LK_MORE;                                          \
                if ((sl)->tab >= 0) {                                           \
                    t_ = tabs[(sl)->tab + (size_t)x_];                          \
                    e_ += t_ & (LK_MORE - 1);                                   \
                    if (!((sl)->pbit & e_->mask)) LOCKED(e_, low);              \
                }                                                               \
                if (t_ & LK_MORE)                                               \
                    for (e_++; e_ < f_; e_++)                                   \
                        if (!(x_ & ~e_->mask) && !((sl)->pbit & e_->mask)) LOCKED(e_, low); \
            }                                                                   \
        } else if (!x_) {                                                       \
            goto fail;                                                          \
        } else if (hs) {                                                        \
            const int t_ = gcells[(sl)->cells + ctz(x_)];                       \
            if (doms[t_] != (low)) LPUSH(t_, (low));                            \
        }                                                                       \
    } while (0)
    for (;;) {
        while (nev) {
            nev--;
            const int c = evc[nev];
            const bits d = doms[c], nd = d & evk[nev];
            if (nd == d) continue;
            if (!nd) goto fail;
            if (undo) {
                if (undo->n == undo->cap && trail_grow(undo) < 0) { s->oom = 1; goto fail; }
                undo->c[undo->n] = c;
                undo->v[undo->n++] = d;
            }
            doms[c] = nd;
            const bits r = d ^ nd, nd1 = nd & (nd - 1);
            if (count_binary) binary += nd1 && !(nd1 & (nd1 - 1));
            const Slot *const s0 = slots + (k ? k * c : sstart[c]);
            const Slot *const s1 = k ? s0 + k : slots + sstart[c + 1];
            if (!(r & (r - 1))) { /* one value */
                removed++;
                const int v = ctz(r);
                for (const Slot *sl = s0; sl < s1; sl++) DROP_POS(sl, v, r);
            } else {
                removed += popc(r);
                for (const Slot *sl = s0; sl < s1; sl++) {
                    bits rr = r;
                    while (rr) {
                        const int v = ctz(rr);
                        const bits low = rr & (0 - rr);
                        rr ^= low;
                        DROP_POS(sl, v, low);
                    }
                }
            }
            if (!nd1) {
                const int v = ctz(nd);
                const bits drop = ~nd;
                for (const Slot *sl = s0; sl < s1; sl++) {
                    const int *cells = gcells + sl->cells;
                    bits others = dual[sl->base + v] & sl->fix;
                    while (others) {
                        LPUSH(cells[ctz(others)], drop);
                        others &= others - 1;
                    }
                }
            }
            if (lean || !cflag[c]) continue;
            if (cflag[c] & 1) {
                if ((d & (0 - d)) != (nd & (0 - nd))) {
                    const bits keep = above[ctz(nd)];
                    for (int k = p->sustart[c]; k < p->sustart[c + 1]; k++) LPUSH(p->succ[k], keep);
                }
                if (hib(d) != hib(nd)) {
                    const bits keep = below[hib(nd)];
                    for (int k = p->prstart[c]; k < p->prstart[c + 1]; k++) LPUSH(p->pred[k], keep);
                }
            }
            if (cflag[c] & 2) {
                for (int k = p->dostart[c]; k < p->dostart[c + 1]; k++) mark_dirty(s, p->dirty_of[k]);
                if (has_extra) {
                    for (int k = p->astart[c]; k < p->astart[c + 1]; k++) {
                        const bits *sup = p->asup + (size_t)k * m;
                        bits keep = 0, rest = nd;
                        while (rest) {
                            keep |= sup[ctz(rest)];
                            rest &= rest - 1;
                        }
                        const int other = p->aother[k];
                        if (doms[other] & ~keep) LPUSH(other, keep);
                    }
                    if (p->pestart[c + 1] > p->pestart[c] && !(nd & (nd - 1))) {
                        const bits drop = ~nd;
                        for (int k = p->pestart[c]; k < p->pestart[c + 1]; k++) {
                            const int x = p->peers[k];
                            if (doms[x] & nd) LPUSH(x, drop);
                        }
                    }
                }
            }
        }
        if (lean || !s->ndirty) { /* a lean program marks no group dirty */
            s->removed += removed;
            s->binary += binary;
            s->ev.n = 0;
            return 1;
        }
        const int g = s->dirty[--s->ndirty];
        s->queued[g] = 0;
        if (g >= p->n_groups + p->n_cages) { /* a diagram: the labels on a path */
            const int i = g - p->n_groups - p->n_cages;
            const int *cells = p->dgcells + p->dgstart[i];
            const int k = p->dgstart[i + 1] - p->dgstart[i];
            const int *lev = p->dlevels + p->dlvstart[i], *off = p->dnoff + p->dlvstart[i];
            const int *ly = p->dlystart + p->dgstart[i];
            unsigned char *reach = s->dreach, *alive = s->dalive;
            if (!lev[k]) goto fail;
            memset(reach, 0, (size_t)(off[k] + lev[k]));
            memset(alive, 0, (size_t)(off[k] + lev[k]));
            reach[0] = 1;
            for (int j = 0; j < k; j++) {
                const bits d = doms[cells[j]];
                const unsigned char *here = reach + off[j];
                unsigned char *next = reach + off[j + 1];
                int any = 0;
                for (int a = ly[j]; a < ly[j + 1]; a++)
                    if (here[p->dsrc[a]] && (d & p->dbit[a])) {
                        next[p->ddst[a]] = 1;
                        any = 1;
                    }
                if (!any) goto fail;
            }
            alive[off[k]] = 1;
            for (int j = k - 1; j >= 0; j--) {
                const bits d = doms[cells[j]];
                const unsigned char *here = reach + off[j], *below = alive + off[j + 1];
                unsigned char *above = alive + off[j];
                bits sup = 0;
                for (int a = ly[j]; a < ly[j + 1]; a++)
                    if (below[p->ddst[a]] && here[p->dsrc[a]] && (d & p->dbit[a])) {
                        sup |= p->dbit[a];
                        above[p->dsrc[a]] = 1;
                    }
                s->dsup[j] = sup;
            }
            for (int j = 0; j < k; j++)
                if (doms[cells[j]] & ~s->dsup[j]) LPUSH(cells[j], s->dsup[j]);
            continue;
        }
        if (g >= p->n_groups) { /* a cage */
            const int i = g - p->n_groups;
            const int *cells = p->cacells + p->castart[i];
            const int nc = p->castart[i + 1] - p->castart[i];
            bits uni = 0, fixed = 0;
            for (int a = 0; a < nc; a++) {
                const bits d = doms[cells[a]];
                uni |= d;
                if (!(d & (d - 1))) fixed |= d;
            }
            bits allowed = 0, needed = ~(bits)0;
            for (int k = p->costart[i]; k < p->costart[i + 1]; k++) {
                const bits mk = p->combos[k];
                if ((mk & uni) != mk || (fixed & ~mk)) continue;
                int a = 0;
                for (; a < nc; a++)
                    if (!(doms[cells[a]] & mk)) break;
                if (a == nc) {
                    allowed |= mk;
                    needed &= mk;
                }
            }
            if (!allowed) goto fail;
            for (int a = 0; a < nc; a++)
                if (doms[cells[a]] & ~allowed) LPUSH(cells[a], allowed);
            if (hs) {
                bits rest = needed & ~fixed;
                while (rest) {
                    const bits low = rest & (0 - rest);
                    rest ^= low;
                    int holder = -1, a = 0;
                    for (; a < nc; a++)
                        if (doms[cells[a]] & low) {
                            if (holder >= 0) break;
                            holder = cells[a];
                        }
                    if (a == nc && holder >= 0) LPUSH(holder, low);
                }
            }
            continue;
        }
        const int *counts = p->counts + p->gcount[g];
        const int *cells = gcells + p->gstart[g];
        const int nc = p->gstart[g + 1] - p->gstart[g];
        for (int v = 0; v < m; v++) {
            const bits bit = (bits)1 << v;
            const int need = counts[v];
            int can = 0, fix = 0;
            for (int a = 0; a < nc; a++) {
                const bits d = doms[cells[a]];
                if (d & bit) {
                    can++;
                    if (d == bit) fix++;
                }
            }
            if (can < need || fix > need) goto fail;
            if (can == need) {
                if (fix < need && hs)
                    for (int a = 0; a < nc; a++) {
                        const bits d = doms[cells[a]];
                        if ((d & bit) && d != bit) LPUSH(cells[a], bit);
                    }
            } else if (fix == need) {
                for (int a = 0; a < nc; a++) {
                    const bits d = doms[cells[a]];
                    if ((d & bit) && d != bit) LPUSH(cells[a], ~bit);
                }
            }
        }
    }
#undef LPUSH
#undef LOCKED
#undef DROP_POS
fail:
    s->removed += removed;
    s->binary += binary;
    s->ev.n = 0;
    while (s->ndirty) s->queued[s->dirty[--s->ndirty]] = 0;
    return 0;
}

/* The copies of propagate_as: counting the lists left with two values or positions
 * (s->binary: read only by the probes of a ``binary`` weight) or not (the
 * first index); without locked candidates or with them (the second); for a
 * program that is not lean, lean, lean with 2 slots a cell, lean with 3 (the
 * third: with locked candidates a program of 2 slots a cell runs the lean copy).
 * search_open picks the pair of its search. */
#define PROPAGATE_COPY(name, b, lean, k, lk) \
    static int name(Search *s, bits *blk) { return propagate_as(s, blk, b, lean, k, lk); }
PROPAGATE_COPY(propagate_full, 0, 0, 0, 0)
PROPAGATE_COPY(propagate_lean, 0, 1, 0, 0)
PROPAGATE_COPY(propagate_lean2, 0, 1, 2, 0)
PROPAGATE_COPY(propagate_lean3, 0, 1, 3, 0)
PROPAGATE_COPY(propagate_binary_full, 1, 0, 0, 0)
PROPAGATE_COPY(propagate_binary_lean, 1, 1, 0, 0)
PROPAGATE_COPY(propagate_binary_lean2, 1, 1, 2, 0)
PROPAGATE_COPY(propagate_binary_lean3, 1, 1, 3, 0)
PROPAGATE_COPY(propagate_full_lk, 0, 0, 0, 1)
PROPAGATE_COPY(propagate_lean_lk, 0, 1, 0, 1)
PROPAGATE_COPY(propagate_lean3_lk, 0, 1, 3, 1)
PROPAGATE_COPY(propagate_binary_full_lk, 1, 0, 0, 1)
PROPAGATE_COPY(propagate_binary_lean_lk, 1, 1, 0, 1)
PROPAGATE_COPY(propagate_binary_lean3_lk, 1, 1, 3, 1)
#undef PROPAGATE_COPY
static int (*const PROPAGATE[2][2][4])(Search *, bits *) = {
    {{propagate_full, propagate_lean, propagate_lean2, propagate_lean3},
     {propagate_full_lk, propagate_lean_lk, propagate_lean_lk, propagate_lean3_lk}},
    {{propagate_binary_full, propagate_binary_lean, propagate_binary_lean2,
      propagate_binary_lean3},
     {propagate_binary_full_lk, propagate_binary_lean_lk, propagate_binary_lean_lk,
      propagate_binary_lean3_lk}},
};
static inline int propagate(Search *s, bits *blk) { return s->prop[0](s, blk); }
static inline int propagate_binary(Search *s, bits *blk) { return s->prop[1](s, blk); }

/* settle(): the root's events and dirty groups, then propagate. */
static int settle(Search *s, bits *blk) {
    const Program *p = s->p;
    bits *doms = blk, *dual = blk + p->n;
    const int m = p->m, n = p->n;
    for (int j = 0; j < p->n_dual; j++) {
        const int *const cells = p->gcells + p->gstart[p->dual_group[j]];
        const LkEnt *const e0 = p->lks + p->lke0[j] + 1, *const e1 = p->lks + p->lke0[j + 1];
        const int tab = p->lkgtab[j];
        for (int v = 0; v < m; v++) {
            const bits x = dual[j * m + v], low = (bits)1 << v;
            if (!(x & (x - 1))) {
                if (!x) goto fail;  /* not a plain return: the events pushed so far are dropped */
                PUSH(cells[ctz(x)], low);
                continue;
            }
            if (!s->lk) continue;
            /* locked: every intersection that holds its places (none if its table says so) */
            if (tab >= 0 && !p->tabs[tab + (size_t)x]) continue;
            for (const LkEnt *e = e0; e < e1; e++)
                if (!(x & ~e->mask))
                    for (int q = e->r0; q < e->r1; q++)
                        if (doms[p->lkrest[q]] & low) PUSH(p->lkrest[q], ~low);
        }
    }
    for (int c = 0; c < n; c++) {
        bits d = doms[c];
        const int fixed = !(d & (d - 1));
        if (fixed && p->by_slots) {
            /* the others of its groups that hold its value, read off the dual table
             * (the positions the scan below would find, in its order) */
            const int v = ctz(d);
            for (int at = p->sstart[c]; at < p->sstart[c + 1]; at++) {
                const Slot *sl = p->slot + at;
                for (bits o = dual[sl->base + v] & ~sl->pbit; o; o &= o - 1)
                    PUSH(p->gcells[sl->cells + ctz(o)], ~d);
            }
        } else if (fixed) {
            for (int k = p->cgstart[c]; k < p->cgstart[c + 1]; k++) {
                int g = p->cgroups[k];
                if (p->gcount[g] >= 0) continue;
                for (int a = p->gstart[g]; a < p->gstart[g + 1]; a++)
                    if (p->gcells[a] != c && doms[p->gcells[a]] & d) PUSH(p->gcells[a], ~d);
            }
        }
        for (int k = p->sustart[c]; k < p->sustart[c + 1]; k++) PUSH(p->succ[k], p->above[ctz(d)]);
        for (int k = p->prstart[c]; k < p->prstart[c + 1]; k++) PUSH(p->pred[k], p->below[hib(d)]);
    }
    for (int c = 0; c < n; c++) {
        bits d = doms[c];
        for (int k = p->astart[c]; k < p->astart[c + 1]; k++) {
            bits keep = 0;
            for (int v = 0; v < m; v++)
                if (d >> v & 1) keep |= p->asup[(size_t)k * m + v];
            PUSH(p->aother[k], keep);
        }
    }
    for (int gi = 0; gi < p->n_distinct; gi++)
        for (int a = p->distart[gi]; a < p->distart[gi + 1]; a++) {
            int c = p->dicells[a];
            bits d = doms[c];
            if (!(d & (d - 1)))
                for (int b = p->distart[gi]; b < p->distart[gi + 1]; b++)
                    if (p->dicells[b] != c) PUSH(p->dicells[b], ~d);
        }
    for (int g = 0; g < p->n_groups; g++)
        if (p->gcount[g] >= 0) mark_dirty(s, g);
    for (int i = 0; i < p->n_cages + p->n_diag; i++) mark_dirty(s, p->n_groups + i);
    return propagate(s, blk);
fail:
    s->ev.n = 0;
    return 0;
}

/* The dual table of the lists of ``blk``, made from them, slot by slot. */
static void dual_table(const Program *p, bits *blk) {
    bits *const dual = blk + p->n;
    const int n = p->n, *const sstart = p->sstart;
    const Slot *const slots = p->slot;
    memset(dual, 0, (size_t)p->n_dual * p->m * sizeof(bits));
    for (int c = 0; c < n; c++) {
        const Slot *const s0 = slots + sstart[c], *const s1 = slots + sstart[c + 1];
        for (bits d = blk[c]; d; d &= d - 1) {
            bits *const du = dual + ctz(d);
            for (const Slot *sl = s0; sl < s1; sl++) du[sl->base] |= sl->pbit;
        }
    }
}

/* The values ``r`` leave cell c's positions in the dual table ``dual``. */
static inline void drop_positions(const Program *p, bits *dual, int c, bits r) {
    const Slot *const s0 = p->slot + p->sstart[c], *const s1 = p->slot + p->sstart[c + 1];
    for (; r; r &= r - 1) {
        bits *const du = dual + ctz(r);
        for (const Slot *sl = s0; sl < s1; sl++) du[sl->base] &= ~sl->pbit;
    }
}

/* The fixed cells' values leave the other cells of their all-different groups, in
 * bulk: what settle's first events remove one by one (a board's givens), in the
 * lists alone (the caller makes the dual table after). 1, or 0 if a list is left
 * empty or two fixed cells of a group share their value. */
static int drop_fixed(Search *s, bits *doms) {
    const Program *p = s->p;
    bits *const taken = s->taken;
    for (int g = 0; g < p->n_groups; g++) {
        bits t = 0, twice = 0;
        if (p->gcount[g] < 0)
            for (int a = p->gstart[g]; a < p->gstart[g + 1]; a++) {
                const bits d = doms[p->gcells[a]];
                const bits fixed = d & ((bits)0 - !(d & (d - 1)));  /* d if one value, else 0 */
                twice |= t & fixed;
                t |= fixed;
            }
        if (twice) return 0;
        taken[g] = t;
    }
    for (int c = 0; c < p->n; c++) {
        const bits d = doms[c];
        bits r = 0;
        for (int k = p->cgstart[c]; k < p->cgstart[c + 1]; k++) r |= taken[p->cgroups[k]];
        r &= d & (d & (d - 1) ? ~(bits)0 : ~d);
        if (!r) continue;
        if (!(d & ~r)) return 0;
        s->removed += popc(r);
        doms[c] = d & ~r;
    }
    return 1;
}

/* settle() from the root's lists ``blk`` (its dual table is made here): with hidden
 * singles, drop_fixed first, then settle, which reaches the same fixpoint (the
 * propagation's, whatever the order of its events) with the same count of removed
 * values (every value drop_fixed removes, settle's events remove). Where the root
 * has no solution the counters depend on the order of the events: settle is then
 * run again on the root as it was, alone, as the Python does. Without hidden
 * singles settle looks for them once, in the lists it starts from: drop_fixed
 * would change what it finds. */
static int settle_root(Search *s, bits *blk) {
    const Program *p = s->p;
    if (!s->hs) {
        dual_table(p, blk);
        return settle(s, blk);
    }
    bits *const copy = blk_alloc(s);
    if (!copy) return 0;
    memcpy(copy, blk, (size_t)p->n * sizeof(bits));
    const long long removed0 = s->removed;
    int ok = drop_fixed(s, blk);
    if (ok) {
        dual_table(p, blk);
        ok = settle(s, blk);
    }
    if (!ok && !s->oom) {
        memcpy(blk, copy, (size_t)p->n * sizeof(bits));
        s->removed = removed0;
        dual_table(p, blk);
        ok = settle(s, blk);
    }
    blk_free(s, copy);
    return ok;
}

/* Undoes the trail ``t`` of the block ``blk`` back to ``mark``: each cell gets its
 * old list back, and the dual table the positions of the values it regains. */
static void undo_to(const Program *p, bits *blk, Trail *t, size_t mark) {
    bits *const doms = blk, *const dual = blk + p->n;
    const int *const sstart = p->sstart;
    const Slot *const slots = p->slot;
    size_t i = t->n;
    while (i > mark) {
        i--;
        const int c = t->c[i];
        const bits old = t->v[i];
        bits r = old ^ doms[c];
        const Slot *const s0 = slots + sstart[c], *const s1 = slots + sstart[c + 1];
        while (r) {
            bits *const du = dual + ctz(r);
            for (const Slot *sl = s0; sl < s1; sl++) du[sl->base] |= sl->pbit;
            r &= r - 1;
        }
        doms[c] = old;
    }
    t->n = mark;
}

/* Applies the delta d[a..b) (cell, new list: a subset of its list) to the block
 * ``blk``, recorded in the search's undo trail: 0, or -1 out of memory. */
static int apply_delta(Search *s, bits *blk, const Trail *d, size_t a, size_t b) {
    const Program *p = s->p;
    bits *const doms = blk, *const dual = blk + p->n;
    for (size_t i = a; i < b; i++) {
        const int c = d->c[i];
        const bits old = doms[c], r = old ^ d->v[i];
        if (!r) continue;
        if (s->undo && trail_push(s->undo, c, old) < 0) { s->oom = 1; return -1; }
        drop_positions(p, dual, c, r);
        doms[c] = d->v[i];
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Branchers                                                            */

/* Kids are appended to dfs->kids from index ``dfs->nkids``; a lookahead child's delta
 * (``probe``: an index into probes_buf, -1 none) is copied to dfs->delta. */
static int kid_push(Search *s, Dfs *f, int c, bits bit, long probe, long long removed) {
    if (f->nkids == f->capkids) {
        size_t cap = f->capkids ? f->capkids * 2 : 256;
        Kid *a = realloc(f->kids, cap * sizeof(Kid));
        if (!a) { s->oom = 1; return -1; }
        f->kids = a;
        f->capkids = cap;
    }
    Kid *k = &f->kids[f->nkids++];
    k->cell = c;
    k->bit = bit;
    k->removed = removed;
    k->has_delta = probe >= 0;
    k->dstart = k->dend = f->delta.n;
    if (probe >= 0) {
        const ProbeRes *r = &s->probes_buf[probe];
        for (size_t i = r->dstart; i < r->dend; i++)
            if (trail_push(&f->delta, s->pdelta.c[i], s->pdelta.v[i]) < 0) {
                s->oom = 1;
                return -1;
            }
        k->dend = f->delta.n;
    }
    return 0;
}

enum { B_DEAD = -1, B_SOLVED = 0, B_KIDS = 1, B_ERROR = -2, B_TIMEOUT = -3 };

static int plain_branch(Search *s, Dfs *f, bits *blk) {
    const Program *p = s->p;
    const bits *doms = blk, *dual = blk + p->n;
    int bc = -1, bk = 1 << 30;
    for (int c = 0; c < p->n; c++) {
        const bits d = doms[c], d1 = d & (d - 1);
        if (!d1) continue;  /* fixed */
        if (!(d1 & (d1 - 1))) { /* two values: the least there is */
            bk = 2;
            bc = c;
            break;
        }
        const int k = popc(d);
        if (k < bk) {
            bk = k;
            bc = c;
        }
    }
    int bi = -1, dk = 1 << 30;
    if (s->dual_branching && bk > 2) {
        int nd = p->n_dual * p->m;
        for (int i = 0; i < nd; i++) {
            int k = popc(dual[i]);
            if (k >= 2 && k < dk && k < bk) {
                dk = k;
                bi = i;
                if (k == 2) break;
            }
        }
    }
    if (bi >= 0) {
        const int *cells = p->gcells + p->gstart[p->dual_group[bi / p->m]];
        bits v = (bits)1 << (bi % p->m), x = dual[bi];
        while (x) {
            if (kid_push(s, f, cells[ctz(x)], v, -1, 0) < 0) return B_ERROR;
            x &= x - 1;
        }
        return B_KIDS;
    }
    if (bc < 0) return B_SOLVED;
    bits d = doms[bc];
    while (d) {
        if (kid_push(s, f, bc, d & (0 - d), -1, 0) < 0) return B_ERROR;
        d &= d - 1;
    }
    return B_KIDS;
}

static int expired_now(Search *s) {
    if (!s->expired) return 0;  /* run_many: no time limit (and no GIL) */
    PyObject *r = PyObject_CallNoArgs(s->expired);
    if (!r) { s->error = 1; return -1; }
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (t < 0) s->error = 1;
    return t;
}

/* One probe: propagate "cell c takes value v" in place (a small block: on a copy,
 * cheaper than undoing), keep the changed cells' new lists (first change
 * first) as the probe's delta, undo; index into probes_buf, or -2 (error), -3
 * (timeout). */
static long probe(Search *s, int look, bits *blk, int c, int v) {
    if (!--s->look_check[look]) {
        s->look_check[look] = CHECK_EVERY;
        int t = expired_now(s);
        if (t) return t < 0 ? -2 : -3;
    }
    s->probes++;
    if (s->nprobes == s->capprobes) {
        size_t cap = s->capprobes ? s->capprobes * 2 : 64;
        ProbeRes *a = realloc(s->probes_buf, cap * sizeof(ProbeRes));
        if (!a) { s->oom = 1; return -2; }
        s->probes_buf = a;
        s->capprobes = cap;
    }
    long long removed0 = s->removed, binary0 = s->binary;
    Trail *const kept = s->undo, *const undo = kept ? kept : &s->ptrail;
    const size_t m0 = undo->n;
    s->undo = undo;
    bits *work = blk;
    if (s->scratch) {
        memcpy(s->scratch, blk, (size_t)s->p->W * sizeof(bits));
        work = s->scratch;
    }
    if (push_ev(s, c, (bits)1 << v) < 0) return -2;
    int ok = s->by_binary[look] ? propagate_binary(s, work) : propagate(s, work);
    s->undo = kept;
    ProbeRes *r = &s->probes_buf[s->nprobes];
    r->dstart = r->dend = s->pdelta.n;
    if (ok && !s->oom) {
        if (++s->seengen == 0) {
            memset(s->seen, 0, (size_t)s->p->n * sizeof(unsigned));
            s->seengen = 1;
        }
        for (size_t i = m0; i < undo->n; i++) {
            const int x = undo->c[i];
            if (s->seen[x] == s->seengen) continue;
            s->seen[x] = s->seengen;
            if (trail_push(&s->pdelta, x, work[x]) < 0) { s->oom = 1; break; }
        }
        r->dend = s->pdelta.n;
    }
    if (s->scratch)
        undo->n = m0;
    else
        undo_to(s->p, blk, undo, m0);
    if (s->oom) return -2;
    long long removed = s->removed - removed0;
    long long w = s->by_binary[look] ? (s->binary - binary0) * 64 + removed : removed;
    s->removed = removed0;
    s->binary = binary0;
    r->ok = ok;
    r->weight = w;
    r->removed = removed;
    return (long)s->nprobes++;
}

static long cached_probe(Search *s, int look, bits *blk, int c, int v) {
    size_t key = (size_t)c * s->p->m + v;
    if (s->stamp[key] == s->round) return s->slot[key];
    long r = probe(s, look, blk, c, v);
    if (r >= 0) {
        s->stamp[key] = s->round;
        s->slot[key] = (int)r;
    }
    return r;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts a[0..k) increasingly: by insertion when short (the common case), else qsort. */
static void sort_ints(int *a, size_t k) {
    if (k > 32) {
        qsort(a, k, sizeof(int), cmp_int);
        return;
    }
    for (size_t i = 1; i < k; i++) {
        const int x = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

static void end_round(Search *s) {
    s->nprobes = 0;
    s->pdelta.n = 0;
    if (++s->round == 0) { /* wrapped: forget every stamp */
        memset(s->stamp, 0, (size_t)s->p->n * s->p->m * sizeof(unsigned));
        s->round = 1;
    }
}

static int add_pair(Search *s, int c1, int v1, int c2, int v2) {
    if (s->npairs == s->cappairs) {
        size_t cap = s->cappairs ? s->cappairs * 2 : 256;
        int *a = realloc(s->pairs, cap * 4 * sizeof(int));
        if (!a) { s->oom = 1; return -1; }
        s->pairs = a;
        s->cappairs = cap;
    }
    int *q = s->pairs + 4 * s->npairs++;
    q[0] = c1; q[1] = v1; q[2] = c2; q[3] = v2;
    return 0;
}

/* Propagates the pending events at the node itself: 1, else B_DEAD or B_ERROR
 * (the round of probes is then over). */
static int at_node(Search *s, bits *blk) {
    if (propagate(s, blk)) return 1;
    end_round(s);
    return s->oom ? B_ERROR : B_DEAD;
}

static int look_branch(Search *s, Dfs *f, bits *blk) {
    const Program *p = s->p;
    bits *doms = blk, *dual = blk + p->n;
    const int m = p->m, look = f->look;
    for (;;) {
        s->npairs = 0;
        for (int c = 0; c < p->n; c++) {
            const bits d = doms[c], d1 = d & (d - 1);
            if (d1 && !(d1 & (d1 - 1))) {
                int lo = ctz(d);
                if (add_pair(s, c, lo, c, hib(d)) < 0) return B_ERROR;
            }
        }
        int nd = p->n_dual * m;
        for (int i = 0; i < nd; i++) {
            const bits x = dual[i], x1 = x & (x - 1);
            if (x1 && !(x1 & (x1 - 1))) {
                const int *cells = p->gcells + p->gstart[p->dual_group[i / m]];
                if (add_pair(s, cells[ctz(x)], i % m, cells[hib(x)], i % m) < 0) return B_ERROR;
            }
        }
        if (!s->npairs) return plain_branch(s, f, blk);
        int changed = 0;
        long best1 = -1, best2 = -1;
        size_t bestq = 0;
        long long best_score = -1;
        for (size_t q = 0; q < s->npairs; q++) {
            int *pr = s->pairs + 4 * q;
            int c1 = pr[0], v1 = pr[1], c2 = pr[2], v2 = pr[3];
            bits b1 = (bits)1 << v1, b2 = (bits)1 << v2;
            bits d1 = doms[c1], d2 = doms[c2];
            if (d1 == b1 || d2 == b2 || !(d1 & b1) || !(d2 & b2)) continue;
            long r1 = cached_probe(s, look, blk, c1, v1);
            if (r1 < -1) goto out;
            long r2 = cached_probe(s, look, blk, c2, v2);
            if (r2 < -1) { r1 = r2; goto out; }
            ProbeRes *p1 = &s->probes_buf[r1], *p2 = &s->probes_buf[r2];
            if (!p1->ok || !p2->ok) {
                if (!p1->ok && !p2->ok) { end_round(s); return B_DEAD; }
                s->failed++;
                int c = p1->ok ? c1 : c2;
                bits bit = p1->ok ? b1 : b2;
                if (push_ev(s, c, bit) < 0) goto oom;
                int r = at_node(s, blk);
                if (r != 1) return r;
                changed = 1;
                continue;
            }
            /* the cells both sides changed, in increasing order */
            if (++s->markgen == 0) {
                memset(s->mark1, 0, (size_t)p->n * sizeof(unsigned));
                memset(s->mark2, 0, (size_t)p->n * sizeof(unsigned));
                s->markgen = 1;
            }
            unsigned gen = s->markgen;
            for (size_t t = p1->dstart; t < p1->dend; t++) {
                const int c = s->pdelta.c[t];
                s->mark1[c] = gen;
                s->val1[c] = s->pdelta.v[t];
            }
            s->common.n = 0;
            for (size_t t = p2->dstart; t < p2->dend; t++) {
                const int c = s->pdelta.c[t];
                if (s->mark1[c] == gen && s->mark2[c] != gen) {
                    s->mark2[c] = gen;
                    s->val2[c] = s->pdelta.v[t];
                    if (ib_push(&s->common, c) < 0) goto oom;
                }
            }
            if (s->common.n) {
                sort_ints(s->common.a, s->common.n);
                long long nev = 0;
                for (size_t t = 0; t < s->common.n; t++) {
                    int c = s->common.a[t];
                    bits keep = s->val1[c] | s->val2[c];
                    if (doms[c] & ~keep) {
                        if (push_ev(s, c, keep) < 0) goto oom;
                        nev++;
                    }
                }
                if (nev) {
                    s->dilemma += nev;
                    int r = at_node(s, blk);
                    if (r != 1) return r;
                    changed = 1;
                    continue;
                }
            }
            long long w1 = p1->weight, w2 = p2->weight;
            long long score = w1 * w2 * 1024 + w1 + w2;
            if (score > best_score) {
                best_score = score;
                best1 = r1;
                best2 = r2;
                bestq = q;
            }
            continue;
        out:
            end_round(s);
            return r1 == -3 ? B_TIMEOUT : B_ERROR;
        }
        if (changed) {
            end_round(s);
            continue;
        }
        if (best1 < 0) {
            end_round(s);
            return plain_branch(s, f, blk);
        }
        ProbeRes *p1 = &s->probes_buf[best1], *p2 = &s->probes_buf[best2];
        const int *pr = s->pairs + 4 * bestq;
        int first = p1->weight <= p2->weight;
        int ca = first ? pr[0] : pr[2], cb = first ? pr[2] : pr[0];
        int va = first ? pr[1] : pr[3], vb = first ? pr[3] : pr[1];
        ProbeRes *pa = first ? p1 : p2, *pb = first ? p2 : p1;
        if (kid_push(s, f, ca, (bits)1 << va, first ? best1 : best2, pa->removed) < 0 ||
            kid_push(s, f, cb, (bits)1 << vb, first ? best2 : best1, pb->removed) < 0) {
            end_round(s);
            return B_ERROR;
        }
        end_round(s);
        return B_KIDS;
    oom:
        end_round(s);
        return B_ERROR;
    }
}

/* ------------------------------------------------------------------ */
/* The depth-first search (_Search.dfs) as a resumable state machine   */

enum { R_TRUE = 1, R_FALSE = 0, R_NONE = 2, R_YIELD = 3, R_ERROR = -1 };

/* A solution (every list one value) into the search's SolBuf: 0, or -1 (out of
 * memory: ``oom`` set). */
static int record(Search *s, const bits *doms) {
    const Program *p = s->p;
    SolBuf *b = &s->sols;
    const size_t n = (size_t)p->n;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        unsigned char *a = cap <= SIZE_MAX / (n + 1) ? realloc(b->v, cap * n + 1) : NULL;
        if (!a) { s->oom = 1; return -1; }
        b->v = a;
        b->cap = cap;
    }
    unsigned char *row = b->v + b->n * n;
    for (int i = 0; i < p->n; i++) row[p->cells[i]] = (unsigned char)hib(doms[i]);
    b->n++;
    s->found++;
    return 0;
}

/* Solution ``row`` of a SolBuf as a tuple of the program's labels (with the GIL). */
static PyObject *sol_tuple(const Program *p, const unsigned char *row) {
    PyObject *t = PyTuple_New(p->n);
    if (!t) return NULL;
    for (int c = 0; c < p->n; c++) {
        PyObject *v = PyTuple_GET_ITEM(p->values, row[c]);
        Py_INCREF(v);
        PyTuple_SET_ITEM(t, c, v);
    }
    return t;
}

static void dfs_init(Dfs *f, bits *cur, int look, long long sw, long long budget, long long turn) {
    memset(f, 0, sizeof(*f));
    f->cur = cur;
    f->look = look;
    f->sw = sw;
    f->budget = budget;
    f->turn = turn;
    f->check = CHECK_EVERY;
    f->alive = 1;
    f->use_look = sw == 0;
}

static void dfs_free(Search *s, Dfs *f) {
    for (size_t i = 0; i < f->nframes; i++) blk_free(s, f->frames[i].snap);
    blk_free(s, f->cur);
    f->cur = NULL;
    if (s->undo == &f->undo) s->undo = NULL;
    trail_free(&f->undo);
    trail_free(&f->delta);
    f->nframes = 0;
    free(f->frames);
    free(f->kids);
    f->frames = NULL;
    f->kids = NULL;
}

/* One turn of a search. A small block (the search has a scratch block) is copied at
 * each node of the stack, cheaper than keeping and undoing a trail; a large one is
 * undone. */
static int dfs_step(Search *s, Dfs *f) {
    s->undo = s->scratch ? NULL : &f->undo;
    if (f->resume) {
        f->resume = 0;
        goto after_yield;
    }
    for (;;) {
        if (f->alive) {
            size_t k0 = f->nkids, d0 = f->delta.n;
            int r = f->use_look ? look_branch(s, f, f->cur) : plain_branch(s, f, f->cur);
            if (r == B_ERROR) return R_ERROR;
            if (r == B_TIMEOUT) return R_FALSE;
            if (r == B_KIDS) {
                if (f->nframes == f->capframes) {
                    size_t cap = f->capframes ? f->capframes * 2 : 64;
                    Frame *a = realloc(f->frames, cap * sizeof(Frame));
                    if (!a) { s->oom = 1; return R_ERROR; }
                    f->frames = a;
                    f->capframes = cap;
                }
                Frame *fr = &f->frames[f->nframes];
                fr->snap = NULL;
                fr->clean = 1;
                if (s->scratch && !(fr->snap = blk_copy(s, f->cur))) return R_ERROR;
                f->nframes++;
                fr->mark = f->undo.n;
                fr->dmark = d0;
                fr->kstart = fr->knext = k0;
                fr->kend = f->nkids;
                if ((long long)f->nframes > s->max_depth) s->max_depth = (long long)f->nframes;
            } else if (r == B_DEAD) {
                f->alive = 0;
            } else {
                if (record(s, f->cur) < 0) return R_ERROR;
                if (s->limit >= 0 && s->found >= s->limit) return R_TRUE;
            }
        }
        if (!f->alive) {
            f->backtracks++;
            s->backtracks++;
            if (f->backtracks == f->sw) f->use_look = 1;
            if (f->backtracks == f->budget) return R_NONE;
            if (!(f->backtracks % f->turn)) {
                f->resume = 1;
                return R_YIELD;
            }
        }
    after_yield:
        if (!f->nframes) return R_TRUE;
        Frame *fr = &f->frames[f->nframes - 1];
        Kid kid = f->kids[fr->knext++];
        int more = fr->knext < fr->kend;
        const size_t mark = fr->mark, dmark = fr->dmark;
        bits *const snap = fr->snap;
        const int clean = fr->clean;
        fr->clean = 0;
        if (!more) {
            f->nkids = fr->kstart;
            f->nframes--;
        }
        f->nodes++;
        s->nodes++;
        if (!--f->check) {
            f->check = CHECK_EVERY;
            int t = expired_now(s);
            if (t) {
                if (!more) blk_free(s, snap);
                return t < 0 ? R_ERROR : R_FALSE;
            }
        }
        if (snap) {  /* back to the parent's lists: the last child takes the copy itself */
            if (clean) {
                if (!more) blk_free(s, snap);
            } else if (more) {
                memcpy(f->cur, snap, (size_t)s->p->W * sizeof(bits));
            } else {
                blk_free(s, f->cur);
                f->cur = snap;
            }
        } else {
            undo_to(s->p, f->cur, &f->undo, mark);
        }
        if (kid.has_delta) {
            s->removed += kid.removed;
            f->alive = 1;
            if (apply_delta(s, f->cur, &f->delta, kid.dstart, kid.dend) < 0) return R_ERROR;
        } else {
            if (push_ev(s, kid.cell, kid.bit) < 0) return R_ERROR;
            f->alive = propagate(s, f->cur);
            if (s->oom) return R_ERROR;
        }
        if (!more) f->delta.n = dmark;
    }
}

/* ------------------------------------------------------------------ */
/* The search strategy (_Search.run)                                   */

static int finish(Search *s, Dfs *f) {
    int r;
    do r = dfs_step(s, f); while (r == R_YIELD);
    dfs_free(s, f);
    return r;
}

static int portfolio(Search *s, Dfs *fs, int k) {
    int r = R_YIELD;
    for (int i = 0; i < SOLO / SLICE && r == R_YIELD; i++) r = dfs_step(s, &fs[0]);
    while (r == R_YIELD)
        for (int i = 0; i < k && r == R_YIELD; i++) r = dfs_step(s, &fs[i]);
    for (int i = 0; i < k; i++) dfs_free(s, &fs[i]);
    return r;
}

static int run_search(Search *s, bits *root, const char *mode, int n_looks) {
    long long sw = !strcmp(mode, "never") ? NEVER : !strcmp(mode, "always") ? 0 : AUTO_SWITCH;
    Dfs f[2];
    if (s->limit != 1 || sw == 0 || sw == NEVER) {
        if (n_looks == 1 || sw == NEVER) {
            dfs_init(&f[0], root, 0, sw, NEVER, NEVER);
            return finish(s, &f[0]);
        }
    } else {
        bits *copy = blk_copy(s, root);
        if (!copy) { blk_free(s, root); return R_ERROR; }
        dfs_init(&f[0], copy, 0, NEVER, sw, NEVER);
        int out = finish(s, &f[0]);
        if (out != R_NONE) {
            blk_free(s, root);
            return out;
        }
        if (n_looks == 1) {
            dfs_init(&f[0], root, 0, 0, NEVER, NEVER);
            return finish(s, &f[0]);
        }
    }
    for (int i = 0; i < n_looks; i++) {
        bits *copy = blk_copy(s, root);
        if (!copy) {
            for (int j = 0; j < i; j++) dfs_free(s, &f[j]);
            blk_free(s, root);
            return R_ERROR;
        }
        dfs_init(&f[i], copy, i, 0, NEVER, SLICE);
    }
    blk_free(s, root);
    return portfolio(s, f, n_looks);
}

/* ``n`` bit sets into ``out``, each a subset of ``masks[i / per_mask]`` (lists: the
 * m values; the dual table: the cells of the row's group): 0, or -1 with
 * ValueError (or TypeError). */
static int load_words(PyObject *seq, bits *out, Py_ssize_t n, const bits *masks,
                      Py_ssize_t per_mask, const char *what) {
    PyObject *t = seq_tuple_of(seq, n, what);
    if (!t) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (as_bits_in(PyTuple_GET_ITEM(t, i), masks[i / per_mask], what, &out[i]) < 0) {
            Py_DECREF(t);
            return -1;
        }
    Py_DECREF(t);
    return 0;
}

/* The start of a search from a node (a split's subproblem): its lists and its
 * dual table, checked against the program. */
static int load_start(const Program *p, PyObject *start, bits *root) {
    PyObject *t = seq_tuple_of(start, 2, "start (lists, dual table)");
    if (!t) return -1;
    bits *masks = xcalloc(p->n_dual + 1, sizeof(bits));
    int rc = -1;
    if (masks) {
        for (int j = 0; j < p->n_dual; j++) {
            int g = p->dual_group[j], size = p->gstart[g + 1] - p->gstart[g];
            masks[j] = size >= BITS_WIDTH ? ~(bits)0 : (((bits)1 << size) - 1);
        }
        if (load_words(PyTuple_GET_ITEM(t, 0), root, p->n, &p->full, (Py_ssize_t)p->n + 1,
                       "start lists") == 0 &&
            load_words(PyTuple_GET_ITEM(t, 1), root + p->n, (Py_ssize_t)p->n_dual * p->m, masks,
                       p->m, "start dual table") == 0)
            rc = 0;
    }
    free(masks);
    Py_DECREF(t);
    return rc;
}

static void search_free(Search *s) {
    trail_free(&s->ev);
    free(s->dirty);
    free(s->queued);
    free(s->dreach);
    free(s->dalive);
    free(s->dsup);
    for (size_t i = 0; i < s->npool; i++) free(s->pool[i]);
    free(s->pool);
    free(s->pairs);
    free(s->stamp);
    free(s->slot);
    free(s->probes_buf);
    trail_free(&s->pdelta);
    trail_free(&s->ptrail);
    free(s->mark1);
    free(s->mark2);
    free(s->seen);
    free(s->val1);
    free(s->val2);
    free(s->taken);
    free(s->scratch);
    free(s->common.a);
    free(s->sols.v);
}

/* The search's settings and scratch (shared by run and run_many; ``expired``
 * NULL: no time limit): 0, or -1 with an exception set (the scratch is freed then). */
static int search_open(Search *s, Program *p, PyObject *limit_obj, PyObject *expired,
                       const char *mode, PyObject *weights, int dual_branching,
                       int hidden_singles, int locked, int *n_looks_out) {
    memset(s, 0, sizeof(*s));
    s->p = p;
    const int copy = !p->lean ? 0 : p->k_slots == 2 ? 2 : p->k_slots == 3 ? 3 : 1;
    s->hs = hidden_singles;
    s->lk = locked && p->has_lk;
    s->prop[0] = PROPAGATE[0][s->lk][copy];
    s->prop[1] = PROPAGATE[1][s->lk][copy];
    s->dual_branching = dual_branching;
    s->expired = expired;
    s->limit = -1;
    s->look_check[0] = s->look_check[1] = CHECK_EVERY;
    if (limit_obj != Py_None) {
        s->limit = PyLong_AsLongLong(limit_obj);
        if (s->limit == -1 && PyErr_Occurred()) return -1;
        if (s->limit < 0) s->limit = 0;
    }
    if (strcmp(mode, "never") && strcmp(mode, "always") && strcmp(mode, "auto")) {
        PyErr_Format(PyExc_ValueError, "unknown lookahead mode %s", mode);
        return -1;
    }
    Py_ssize_t n_looks = PySequence_Length(weights);
    if (n_looks < 1 || n_looks > 2) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "one or two weights");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n_looks; i++) {
        PyObject *w = PySequence_GetItem(weights, i);
        if (!w) return -1;
        const char *name = PyUnicode_AsUTF8(w);
        if (!name) { Py_DECREF(w); return -1; }
        if (strcmp(name, "binary") && strcmp(name, "removed")) {
            PyErr_Format(PyExc_ValueError, "unknown weight %s", name);
            Py_DECREF(w);
            return -1;
        }
        s->by_binary[i] = !strcmp(name, "binary");
        Py_DECREF(w);
    }
    *n_looks_out = (int)n_looks;
    int n_dirty = p->n_groups + p->n_cages + p->n_diag;
    size_t nm = (size_t)p->n * p->m;
    int small = (size_t)p->W * sizeof(bits) <= PROBE_COPY_BYTES;
    s->dreach = xcalloc(p->dmaxnodes, 1);
    s->dalive = xcalloc(p->dmaxnodes, 1);
    s->dsup = xcalloc(p->dmaxcells, sizeof(bits));
    s->dirty = xcalloc(n_dirty, sizeof(int));
    s->queued = xcalloc(n_dirty, 1);
    s->stamp = xcalloc(nm, sizeof(unsigned));
    s->slot = xcalloc(nm, sizeof(int));
    s->mark1 = xcalloc(p->n, sizeof(unsigned));
    s->mark2 = xcalloc(p->n, sizeof(unsigned));
    s->seen = xcalloc(p->n, sizeof(unsigned));
    s->val1 = xcalloc(p->n, sizeof(bits));
    s->val2 = xcalloc(p->n, sizeof(bits));
    s->taken = xcalloc(p->n_groups, sizeof(bits));
    if (small) s->scratch = xcalloc(p->W, sizeof(bits));
    s->round = 1;
    if (!s->dreach || !s->dalive || !s->dsup || trail_grow(&s->ev) < 0 || !s->dirty || !s->queued ||
        !s->stamp || !s->slot || !s->mark1 || !s->mark2 || !s->seen || !s->val1 || !s->val2 ||
        (p->n_groups && !s->taken) || (small && !s->scratch)) {
        search_free(s);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The search from ``root`` (consumed): the program's lists (settled here, their
 * dual table made) or (``is_start``) a split's node with its dual table. An R_
 * code. */
static int search_root(Search *s, bits *root, int is_start, const char *mode, int n_looks) {
    const Program *p = s->p;
    int empty = 0;  /* an empty list (a start's dual list too): no solution, no search */
    for (int c = 0, end = is_start ? p->W : p->n; c < end; c++)
        if (!root[c]) empty = 1;
    if (!empty && !is_start) {
        empty = !settle_root(s, root);
        if (s->oom) { blk_free(s, root); return R_ERROR; }
    }
    if (empty) {
        blk_free(s, root);
        return R_TRUE;
    }
    return run_search(s, root, mode, n_looks);
}

/* Solutions ``first`` .. ``first + count - 1`` of a SolBuf, as label tuples appended
 * to ``list`` (with the GIL): 0, or -1 with an exception set. */
static int sols_append(const Program *p, const SolBuf *b, size_t first, size_t count,
                       PyObject *list) {
    for (size_t j = first; j < first + count; j++) {
        PyObject *t = sol_tuple(p, b->v + j * (size_t)p->n);
        if (!t) return -1;
        int r = PyList_Append(list, t);
        Py_DECREF(t);
        if (r < 0) return -1;
    }
    return 0;
}

static PyObject *core_run(PyObject *self, PyObject *args) {
    PyObject *prog, *domains, *limit_obj, *expired, *weights, *start, *solutions;
    const char *mode;
    int dual_branching, hidden_singles, locked, n_looks;
    if (!PyArg_ParseTuple(args, "O!OOOsOpppOO!", &ProgramType, &prog, &domains, &limit_obj,
                          &expired, &mode,
                          &weights, &dual_branching, &hidden_singles, &locked, &start,
                          &PyList_Type, &solutions))
        return NULL;
    Program *p = (Program *)prog;
    Search s;
    if (search_open(&s, p, limit_obj, expired == Py_None ? NULL : expired, mode, weights,
                    dual_branching, hidden_singles, locked, &n_looks) < 0)
        return NULL;
    s.found = PyList_GET_SIZE(solutions);  /* the list's solutions count towards the limit */
    PyObject *out = NULL;
    int r = R_ERROR;
    bits *root = blk_alloc(&s);
    if (!root) goto done;
    if (start == Py_None ? load_words(domains, root, p->n, &p->full, (Py_ssize_t)p->n + 1,
                                      "domains") < 0
                         : load_start(p, start, root) < 0) {
        blk_free(&s, root);
        s.error = 1;
        goto done;
    }
    r = search_root(&s, root, start != Py_None, mode, n_looks);
done:
    if (r == R_ERROR || s.error || s.oom) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
    } else if (sols_append(p, &s.sols, 0, s.sols.n, solutions) == 0) {
        out = Py_BuildValue("(OLLLLLLL)", r == R_TRUE ? Py_True : Py_False, s.nodes, s.backtracks,
                            s.max_depth, s.probes, s.failed, s.dilemma, s.removed);
    }
    search_free(&s);
    return out;
}

/* run_many's check of a solution against the board (not the program): its
 * givens, and each asterism's values as the wanted multiset (``want``: the count
 * of each value index). ``sol``: the value index of each model cell's label (a
 * label is one of the program's values by construction). 1: it holds. */
typedef struct {
    const unsigned char *givens;  /* this board's row: 0, or 1 + value index */
    const unsigned char *sol;
    int n_ast, *astart, *acells, *want, *have;
} Check;

static int check_indices(const Program *p, const Check *k) {
    for (int c = 0; c < p->n; c++)
        if (k->givens[c] && k->sol[c] != k->givens[c] - 1) return 0;
    for (int a = 0; a < k->n_ast; a++) {
        int ok = 1;
        for (int x = k->astart[a]; x < k->astart[a + 1]; x++) k->have[k->sol[k->acells[x]]]++;
        for (int v = 0; v < p->m; v++) {
            if (k->have[v] != k->want[v]) ok = 0;
            k->have[v] = 0;
        }
        if (!ok) return 0;
    }
    return 1;
}

/* One board's outcome in run_many: its counters, and its solutions in the SolBuf */
typedef struct {
    int finished, verified;
    long long nodes, backtracks, max_depth, probes, failed, dilemma, removed;
    size_t first, count;
} BoardOut;

/* run_many's searches, board after board: touches no Python object (run without
 * the GIL). ``basew``: the base lists; ``g``: the givens, count * n bytes, checked.
 * 0, or -1 (out of memory). */
static int many_search(Search *s, const bits *basew, const unsigned char *g, Py_ssize_t count,
                       Check *k, BoardOut *res, const char *mode, int n_looks) {
    const Program *p = s->p;
    const int n = p->n;
    for (Py_ssize_t b = 0; b < count; b++) {
        const unsigned char *gb = g + b * n;
        bits *root = blk_alloc(s);
        if (!root) return -1;
        /* the base lists, each given's alone */
        memcpy(root, basew, (size_t)n * sizeof(bits));
        for (int i = 0; i < n; i++) {
            const int gi = gb[p->cells[i]];
            if (gi) root[i] = basew[i] & ((bits)1 << (gi - 1));
        }
        s->nodes = s->backtracks = s->max_depth = s->probes = s->failed = s->dilemma = 0;
        s->removed = s->binary = s->found = 0;
        BoardOut *o = &res[b];
        o->first = s->sols.n;
        int r = search_root(s, root, 0, mode, n_looks);
        if (r == R_ERROR || s->error || s->oom) return -1;
        o->count = s->sols.n - o->first;
        o->finished = r == R_TRUE;
        o->nodes = s->nodes;
        o->backtracks = s->backtracks;
        o->max_depth = s->max_depth;
        o->probes = s->probes;
        o->failed = s->failed;
        o->dilemma = s->dilemma;
        o->removed = s->removed;
        o->verified = 1;
        k->givens = gb;
        for (size_t j = 0; j < o->count && o->verified; j++) {
            k->sol = s->sols.v + (o->first + j) * (size_t)n;
            o->verified = check_indices(p, k);
        }
    }
    return 0;
}

/* run_many(program, base, givens, count, limit, mode, weights, dual_branching,
 *          hidden_singles, locked_candidates, asterisms, want)
 *   -> [(finished, nodes, backtracks, max_depth, probes, failed_literals,
 *        dilemma_values, removed_values, verified, solutions)] per board
 * ``count`` boards of the program's structure: board b's lists are ``base``
 * (internal cell order) with its givens ``givens[b * n:(b + 1) * n]`` (a
 * bytes-like object, copied; per model cell 0, or 1 + the value index) kept;
 * each is settled and searched as run() does (no time limit), and every
 * solution is checked against the givens and the board's ``asterisms`` (model
 * cells), each of which must hold value v ``want[v]`` times (verified: all of
 * them hold). Every input is read and checked first; the searches and checks
 * then run without the GIL (other threads run meanwhile: futocp/batch.py's
 * workers), and the rows are made after them. */
static PyObject *core_run_many(PyObject *self, PyObject *args) {
    PyObject *prog, *base, *givens_obj, *limit_obj, *weights, *asterisms, *want_obj;
    Py_ssize_t count;
    const char *mode;
    int dual_branching, hidden_singles, locked, n_looks;
    if (!PyArg_ParseTuple(args, "O!OOnOsOpppOO", &ProgramType, &prog, &base, &givens_obj, &count,
                          &limit_obj, &mode, &weights, &dual_branching, &hidden_singles,
                          &locked, &asterisms, &want_obj))
        return NULL;
    Program *p = (Program *)prog;
    const int n = p->n, m = p->m;
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "count must be >= 0");
        return NULL;
    }
    Py_buffer gv;
    if (PyObject_GetBuffer(givens_obj, &gv, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *out = NULL;
    bits *basew = NULL;
    unsigned char *g = NULL;
    BoardOut *res = NULL;
    Check k;
    memset(&k, 0, sizeof(k));
    Search s;
    int opened = 0;
    if (n > 0 && count > PY_SSIZE_T_MAX / n) {
        PyErr_SetString(PyExc_ValueError, "count too large");
        goto end;
    }
    if (gv.len != count * (Py_ssize_t)n) {
        PyErr_Format(PyExc_ValueError, "givens: %zd bytes, expected count * n_cells = %zd",
                     gv.len, count * (Py_ssize_t)n);
        goto end;
    }
    /* a copy: the searches read it without the GIL (a bytearray may change meanwhile) */
    g = xcalloc((size_t)gv.len, 1);
    if (!g) goto end;
    memcpy(g, gv.buf, (size_t)gv.len);
    for (Py_ssize_t i = 0; i < gv.len; i++)
        if (g[i] > m) {
            PyErr_Format(PyExc_ValueError, "givens: %d is beyond the %d values", g[i], m);
            goto end;
        }
    basew = xcalloc(n, sizeof(bits));  /* the base lists */
    if (!basew || load_words(base, basew, n, &p->full, (Py_ssize_t)n + 1, "base lists") < 0)
        goto end;
    if (csr_ints(asterisms, -1, n, 1, "an asterism's cell", &k.n_ast, &k.astart, &k.acells) < 0)
        goto end;
    {
        PyObject *t = seq_tuple_of(want_obj, m, "want (a count per value)");
        if (!t) goto end;
        k.want = xcalloc(m, sizeof(int));
        k.have = xcalloc(m, sizeof(int));
        int bad = !k.want || !k.have;
        for (int v = 0; v < m && !bad; v++)
            bad = int_in(PyTuple_GET_ITEM(t, v), 0, n, "a wanted count", &k.want[v]) < 0;
        Py_DECREF(t);
        if (bad) goto end;
    }
    res = xcalloc((size_t)count, sizeof(BoardOut));
    if (!res) goto end;
    if (search_open(&s, p, limit_obj, NULL, mode, weights, dual_branching, hidden_singles,
                    locked, &n_looks) < 0)
        goto end;
    opened = 1;
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = many_search(&s, basew, g, count, &k, res, mode, n_looks);
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto end;
    }
    out = PyList_New(count);
    if (!out) goto end;
    for (Py_ssize_t b = 0; b < count; b++) {
        const BoardOut *o = &res[b];
        PyObject *sols = PyList_New(0);
        if (!sols || sols_append(p, &s.sols, o->first, o->count, sols) < 0) {
            Py_XDECREF(sols);
            Py_CLEAR(out);
            goto end;
        }
        PyObject *row = Py_BuildValue("(OLLLLLLLON)", o->finished ? Py_True : Py_False, o->nodes,
                                      o->backtracks, o->max_depth, o->probes, o->failed,
                                      o->dilemma, o->removed, o->verified ? Py_True : Py_False,
                                      sols);  /* N: steals sols, also on failure */
        if (!row) {
            Py_CLEAR(out);
            goto end;
        }
        PyList_SET_ITEM(out, b, row);
    }
end:
    if (opened) search_free(&s);
    free(res);
    free(g);
    free(basew);
    free(k.astart);
    free(k.acells);
    free(k.want);
    free(k.have);
    PyBuffer_Release(&gv);
    return out;
}

/* The value index of ``label`` among the program's values (the same object first,
 * then an equal one): 0.., or -1 (-2 with an exception set). */
static int value_index(const Program *p, PyObject *label) {
    for (int x = 0; x < p->m; x++)
        if (PyTuple_GET_ITEM(p->values, x) == label) return x;
    for (int x = 0; x < p->m; x++) {
        int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(p->values, x), label, Py_EQ);
        if (eq) return eq < 0 ? -2 : x;
    }
    return -1;
}

/* pack_givens(program, clues) -> bytes: run_many's givens of the boards whose clues
 * (per board, (model cell, label) pairs) are ``clues``: per board and cell 0, or 1 +
 * the value index of its clue's label. ValueError for a cell out of range or a label
 * that is not a value. */
static PyObject *core_pack_givens(PyObject *self, PyObject *args) {
    PyObject *prog, *clues;
    if (!PyArg_ParseTuple(args, "O!O", &ProgramType, &prog, &clues)) return NULL;
    const Program *p = (Program *)prog;
    PyObject *boards = seq_tuple(clues, "clues (one sequence per board)");
    if (!boards) return NULL;
    const Py_ssize_t count = PyTuple_GET_SIZE(boards);
    PyObject *out = NULL;
    if (p->n > 0 && count > PY_SSIZE_T_MAX / p->n) {
        PyErr_SetString(PyExc_ValueError, "too many boards");
        goto end;
    }
    out = PyBytes_FromStringAndSize(NULL, count * p->n);
    if (!out) goto end;
    unsigned char *g = (unsigned char *)PyBytes_AS_STRING(out);
    memset(g, 0, (size_t)(count * p->n));
    for (Py_ssize_t b = 0; b < count; b++) {
        PyObject *pairs = seq_tuple(PyTuple_GET_ITEM(boards, b), "a board's clues");
        if (!pairs) goto fail;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs); i++) {
            PyObject *pair = PyTuple_GET_ITEM(pairs, i);
            int c, v = -1;
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                PyErr_SetString(PyExc_ValueError, "a clue is a (cell, label) pair");
            } else if (int_in(PyTuple_GET_ITEM(pair, 0), 0, (long)p->n - 1, "a clue's cell",
                              &c) == 0) {
                v = value_index(p, PyTuple_GET_ITEM(pair, 1));
                if (v == -1)
                    PyErr_Format(PyExc_ValueError, "a clue's label is not a value: %R",
                                 PyTuple_GET_ITEM(pair, 1));
                else if (v >= 0)
                    g[b * p->n + c] = (unsigned char)(v + 1);
            }
            if (v < 0) {
                Py_DECREF(pairs);
                goto fail;
            }
        }
        Py_DECREF(pairs);
    }
    goto end;
fail:
    Py_CLEAR(out);
end:
    Py_DECREF(boards);
    return out;
}

static PyMethodDef methods[] = {
    {"pack_givens", core_pack_givens, METH_VARARGS,
     "pack_givens(program, clues) -> bytes: run_many's givens of boards with these clues "
     "(per board, (model cell, label) pairs)"},
    {"run", core_run, METH_VARARGS,
     "run(program, domains, limit, expired, mode, weights, dual_branching, hidden_singles, "
     "locked_candidates, start, solutions) -> (finished, nodes, backtracks, max_depth, "
     "probes, failed_literals, "
     "dilemma_values, removed_values)"},
    {"run_many", core_run_many, METH_VARARGS,
     "run_many(program, base, givens, count, limit, mode, weights, dual_branching, "
     "hidden_singles, locked_candidates, asterisms, want) -> [(finished, nodes, backtracks, "
     "max_depth, probes, failed_literals, dilemma_values, removed_values, verified, "
     "solutions)] per board"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, CORE_NAME,
    "The compiled core of the listcolor backend (see futocp/backends/listcolor.py), lists of "
    STR(BITS_WIDTH) " bits.", -1, methods,
};

PyMODINIT_FUNC CORE_INIT(void) {
    if (PyType_Ready(&ProgramType) < 0) return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (!mod) return NULL;
    if (PyModule_AddIntConstant(mod, "AUTO_SWITCH", AUTO_SWITCH) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    Py_INCREF(&ProgramType);
    if (PyModule_AddObject(mod, "Program", (PyObject *)&ProgramType) < 0) {
        Py_DECREF(&ProgramType);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
