/* The compiled list filtering of futocp.propagate (optional C extension).
 *
 * filter_lists() in propagate.py is the readable reference; this is the same
 * loop, step for step (the same queue order, so the same lists, the same
 * count of removed values and the same first empty cell), for the models it
 * covers: every list fits in 64 bits and there are no cages. propagate.py
 * calls it when it is built and the model qualifies, and runs the Python
 * otherwise. It exists because the filtering is most of build_model's time
 * (about 0.3 ms of a 9x9 Sudoku's 0.4 ms end to end with the compiled
 * listcolor core) and no library does this list-colouring reduction.
 *
 * Module API (called by propagate.py only):
 *   filter_lists(n_cells, domains, groups, less, distinct, binary, touched)
 *     groups: sequence of (cells, counts) with counts None or a sequence
 *     less: sequence of (a, b); distinct: sequence of cells
 *     binary: sequence of (a, b, forward, backward); touched: None or cells
 *   -> (domains, removed, empty_cell or None), or None when a list or a
 *      support does not fit in 64 bits (the caller then runs the Python).
 *   Every input is checked before the loop runs (read_inputs): a cell out of
 *   range, a negative list, counts or a support that miss a value the lists
 *   hold raise ValueError (a value of the wrong type TypeError).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_bits.h"
#include "_inputs.h"

#if NW != 1
#error "the compiled filtering works on 64-bit lists (NW=1)"
#endif

/* Everything one call allocates, freed together. */
typedef struct {
    int n, top;               /* cells; the queue's length */
    bits *dom, *sup;
    int *gstart, *gcells, *gcount_at, *counts;
    int *cgstart, *cgroups, *sustart, *succ, *prstart, *pred;
    int *astart, *aother, *asup_at, *queue;
    unsigned char *queued;
} Work;

static void work_free(Work *w) {
    free(w->dom); free(w->sup); free(w->gstart); free(w->gcells); free(w->gcount_at);
    free(w->counts); free(w->cgstart); free(w->cgroups); free(w->sustart); free(w->succ);
    free(w->prstart); free(w->pred); free(w->astart); free(w->aother); free(w->asup_at);
    free(w->queue); free(w->queued);
}

static void *zalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) PyErr_NoMemory();
    return p;
}

/* A list or a support: 0, 1 when it does not fit in BITS_WIDTH bits (no error
 * set: the caller runs the Python), -1 on error (ValueError for a negative
 * int, TypeError for another type). */
static int to_bits(PyObject *o, bits *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();  /* negative, or 2**64 and more */
        int overflow;
        long long s = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (s == -1 && PyErr_Occurred()) return -1;
        if (overflow > 0) return 1;
        PyErr_SetString(PyExc_ValueError, "a list or a support is a non-negative int");
        return -1;
    }
    *out = (bits)v;
    return 0;
}

static int to_cell(PyObject *o, int n, int *out) { return int_in(o, 0, (long)n - 1, "a cell", out); }

/* Every input is read here and checked against the rest (cells in range, counts
 * and supports for every value the lists hold): the loop trusts Work. Every
 * sequence is read once, as a tuple (_inputs.h). 0, 1 (a list or a support
 * wider than BITS_WIDTH bits, no error set), or -1 with an exception. */
static int read_inputs(Work *w, int n, PyObject *domains, PyObject *groups, PyObject *less,
                       PyObject *distinct, PyObject *binary, PyObject *touched) {
    PyObject *fd = NULL, *fg = NULL, *fx = NULL, *fl = NULL, *fb = NULL, *ft = NULL;
    PyObject *gt = NULL, *bt = NULL;  /* each group's (cells, counts), each relation's sides */
    int r = -1, *la = NULL, *lb = NULL, *ends = NULL, *fill = NULL;
#define NEED(p) do { if (!(p)) goto done; } while (0)
#define FAIL(msg) do { PyErr_SetString(PyExc_ValueError, msg); goto done; } while (0)
    if (n < 0 || n > INT_MAX / 2) FAIL("n_cells out of range");
    w->n = n;
    NEED(fd = seq_tuple_of(domains, n, "domains (one per cell)"));
    NEED(w->dom = zalloc((size_t)n, sizeof(bits)));
    bits any = 0;
    for (int c = 0; c < n; c++) {
        int t = to_bits(PyTuple_GET_ITEM(fd, c), &w->dom[c]);
        if (t) { r = t; goto done; }
        any |= w->dom[c];
    }
    const int width = any ? hib(any) + 1 : 0;  /* the values the lists hold */

    /* groups then distinct groups, CSR; counts only for groups with counts */
    NEED(fg = seq_tuple(groups, "groups"));
    NEED(fx = seq_tuple(distinct, "distinct"));
    Py_ssize_t ng = PyTuple_GET_SIZE(fg), nx = PyTuple_GET_SIZE(fx), total = 0, total_counts = 0;
    if (ng + nx >= INT_MAX / 2) FAIL("too many groups");
    const int G = (int)(ng + nx);
    NEED(gt = PyTuple_New(2 * (Py_ssize_t)G));
    for (int g = 0; g < G; g++) {
        PyObject *cells, *cnt = Py_None;
        if (g < ng) {
            PyObject *item = seq_tuple_of(PyTuple_GET_ITEM(fg, g), 2, "a group (cells, counts)");
            NEED(item);
            cells = seq_tuple(PyTuple_GET_ITEM(item, 0), "a group's cells");
            cnt = PyTuple_GET_ITEM(item, 1);
            if (cells) cnt = cnt == Py_None ? (Py_INCREF(Py_None), Py_None) : seq_tuple(cnt, "counts");
            Py_DECREF(item);
            if (!cells || !cnt) { Py_XDECREF(cells); goto done; }
        } else {
            NEED(cells = seq_tuple(PyTuple_GET_ITEM(fx, g - ng), "a distinct group"));
            Py_INCREF(Py_None);
        }
        PyTuple_SET_ITEM(gt, 2 * g, cells);
        PyTuple_SET_ITEM(gt, 2 * g + 1, cnt);
        total += PyTuple_GET_SIZE(cells);
        if (cnt != Py_None && PyTuple_GET_SIZE(cnt) > 0) {
            if (PyTuple_GET_SIZE(cnt) < width) FAIL("a group's counts miss a value of the lists");
            total_counts += PyTuple_GET_SIZE(cnt);
        }
        if (total >= INT_MAX || total_counts >= INT_MAX) FAIL("groups too large");
    }
    NEED(w->gstart = zalloc((size_t)G + 1, sizeof(int)));
    NEED(w->gcount_at = zalloc((size_t)G + 1, sizeof(int)));
    NEED(w->gcells = zalloc((size_t)total, sizeof(int)));
    NEED(w->counts = zalloc((size_t)total_counts, sizeof(int)));
    NEED(w->cgstart = zalloc((size_t)n + 1, sizeof(int)));
    {
        int at = 0, cat = 0;
        for (int g = 0; g < G; g++) {
            PyObject *cells = PyTuple_GET_ITEM(gt, 2 * g), *cnt = PyTuple_GET_ITEM(gt, 2 * g + 1);
            w->gstart[g] = at;
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cells); i++) {
                if (to_cell(PyTuple_GET_ITEM(cells, i), n, &w->gcells[at]) < 0) goto done;
                w->cgstart[w->gcells[at++]]++;
            }
            w->gcount_at[g] = -1;  /* None, or a partial group: no count rule */
            if (cnt != Py_None && PyTuple_GET_SIZE(cnt) > 0) {
                w->gcount_at[g] = cat;
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cnt); i++)
                    if (int_in(PyTuple_GET_ITEM(cnt, i), 0, INT_MAX, "a count", &w->counts[cat++]) < 0)
                        goto done;
            }
        }
        w->gstart[G] = at;
    }
    /* cell -> its groups in group order (counts in cgstart turned into offsets) */
    NEED(w->cgroups = zalloc((size_t)total, sizeof(int)));
    {
        int acc = 0;
        for (int c = 0; c <= n; c++) { int k = c < n ? w->cgstart[c] : 0; w->cgstart[c] = acc; acc += k; }
        NEED(fill = zalloc((size_t)n, sizeof(int)));
        for (int g = 0; g < G; g++)
            for (int i = w->gstart[g]; i < w->gstart[g + 1]; i++) {
                int c = w->gcells[i];
                w->cgroups[w->cgstart[c] + fill[c]++] = g;
            }
        Py_CLEAR(gt);
        free(fill);
        fill = NULL;
    }

    /* less: succ and pred per cell, in the order of the pairs */
    NEED(fl = seq_tuple(less, "less"));
    const Py_ssize_t nl = PyTuple_GET_SIZE(fl);
    if (nl >= INT_MAX) FAIL("too many less pairs");
    NEED(la = zalloc((size_t)nl, sizeof(int)));
    NEED(lb = zalloc((size_t)nl, sizeof(int)));
    for (Py_ssize_t i = 0; i < nl; i++) {
        PyObject *pair = seq_tuple_of(PyTuple_GET_ITEM(fl, i), 2, "a less pair");
        NEED(pair);
        int bad = to_cell(PyTuple_GET_ITEM(pair, 0), n, &la[i]) < 0 ||
                  to_cell(PyTuple_GET_ITEM(pair, 1), n, &lb[i]) < 0;
        Py_DECREF(pair);
        if (bad) goto done;
    }
    NEED(w->sustart = zalloc((size_t)n + 1, sizeof(int)));
    NEED(w->prstart = zalloc((size_t)n + 1, sizeof(int)));
    NEED(w->succ = zalloc((size_t)nl, sizeof(int)));
    NEED(w->pred = zalloc((size_t)nl, sizeof(int)));
    for (Py_ssize_t i = 0; i < nl; i++) { w->sustart[la[i] + 1]++; w->prstart[lb[i] + 1]++; }
    for (int c = 0; c < n; c++) { w->sustart[c + 1] += w->sustart[c]; w->prstart[c + 1] += w->prstart[c]; }
    {
        int *fs = zalloc((size_t)n, sizeof(int)), *fp = zalloc((size_t)n, sizeof(int));
        if (!fs || !fp) { free(fs); free(fp); goto done; }
        for (Py_ssize_t i = 0; i < nl; i++) {
            w->succ[w->sustart[la[i]] + fs[la[i]]++] = lb[i];
            w->pred[w->prstart[lb[i]] + fp[lb[i]]++] = la[i];
        }
        free(fs); free(fp);
    }

    /* binary relations: arcs per cell (other, support), in the order of the relations;
     * a support holds a bit set for every value the lists hold */
    NEED(fb = seq_tuple(binary, "binary"));
    const Py_ssize_t nb = PyTuple_GET_SIZE(fb);
    if (nb >= INT_MAX / 4) FAIL("too many binary relations");
    NEED(bt = PyTuple_New(2 * nb));
    NEED(ends = zalloc((size_t)(2 * nb), sizeof(int)));  /* [a0, b0, a1, b1, ...] */
    Py_ssize_t sup_total = 0;
    for (Py_ssize_t i = 0; i < nb; i++) {
        PyObject *rel = seq_tuple_of(PyTuple_GET_ITEM(fb, i), 4,
                                     "a binary relation (a, b, forward, backward)");
        NEED(rel);
        for (int side = 0; side < 2; side++) {
            PyObject *s = to_cell(PyTuple_GET_ITEM(rel, side), n, &ends[2 * i + side]) < 0 ? NULL
                          : seq_tuple(PyTuple_GET_ITEM(rel, 2 + side), "a support");
            if (!s) { Py_DECREF(rel); goto done; }
            PyTuple_SET_ITEM(bt, 2 * i + side, s);
            if (PyTuple_GET_SIZE(s) < width) {
                Py_DECREF(rel);
                FAIL("a support misses a value of the lists");
            }
            sup_total += PyTuple_GET_SIZE(s);
        }
        Py_DECREF(rel);
        if (sup_total >= INT_MAX) FAIL("supports too large");
    }
    NEED(w->sup = zalloc((size_t)sup_total, sizeof(bits)));
    NEED(w->astart = zalloc((size_t)n + 1, sizeof(int)));
    NEED(w->aother = zalloc((size_t)(2 * nb), sizeof(int)));
    NEED(w->asup_at = zalloc((size_t)(2 * nb), sizeof(int)));
    {
        int used = 0;
        NEED(fill = zalloc((size_t)(2 * nb), sizeof(int)));  /* each side's offset into sup */
        for (Py_ssize_t i = 0; i < 2 * nb; i++) {
            PyObject *s = PyTuple_GET_ITEM(bt, i);
            fill[i] = used;
            for (Py_ssize_t v = 0; v < PyTuple_GET_SIZE(s); v++) {
                int t = to_bits(PyTuple_GET_ITEM(s, v), &w->sup[used++]);
                if (t) { r = t; goto done; }
            }
        }
        for (Py_ssize_t i = 0; i < 2 * nb; i++) w->astart[ends[i] + 1]++;
        for (int c = 0; c < n; c++) w->astart[c + 1] += w->astart[c];
        int *next = zalloc((size_t)n, sizeof(int));
        NEED(next);
        for (Py_ssize_t i = 0; i < nb; i++) {
            /* arcs[a] gets (b, forward), arcs[b] gets (a, backward) */
            int a = ends[2 * i], b = ends[2 * i + 1];
            int ka = w->astart[a] + next[a]++;
            w->aother[ka] = b; w->asup_at[ka] = fill[2 * i];
            int kb = w->astart[b] + next[b]++;
            w->aother[kb] = a; w->asup_at[kb] = fill[2 * i + 1];
        }
        free(next);
    }

    /* the queue: every cell (popped from the end) or the touched cells, first seen first */
    NEED(w->queue = zalloc((size_t)n, sizeof(int)));
    NEED(w->queued = zalloc((size_t)n, 1));
    w->top = 0;
    if (touched == Py_None) {
        for (int c = 0; c < n; c++) { w->queue[w->top++] = c; w->queued[c] = 1; }
    } else {
        NEED(ft = seq_tuple(touched, "touched"));
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ft); i++) {
            int c;
            if (to_cell(PyTuple_GET_ITEM(ft, i), n, &c) < 0) goto done;
            if (!w->queued[c]) { w->queued[c] = 1; w->queue[w->top++] = c; }
        }
    }
    r = 0;
#undef NEED
#undef FAIL
done:
    Py_XDECREF(fd); Py_XDECREF(fg); Py_XDECREF(fx); Py_XDECREF(fl); Py_XDECREF(fb); Py_XDECREF(ft);
    Py_XDECREF(gt); Py_XDECREF(bt);
    free(la); free(lb); free(ends); free(fill);
    return r;
}

static PyObject *filter_lists(PyObject *self, PyObject *args) {
    int n;
    PyObject *domains, *groups, *less, *distinct, *binary, *touched;
    if (!PyArg_ParseTuple(args, "iOOOOOO", &n, &domains, &groups, &less, &distinct, &binary,
                          &touched))
        return NULL;
    Work w;
    memset(&w, 0, sizeof w);
    PyObject *result = NULL;
    int r = read_inputs(&w, n, domains, groups, less, distinct, binary, touched);
    if (r) {
        work_free(&w);
        if (r > 0) Py_RETURN_NONE;  /* too wide: the Python runs */
        return NULL;
    }
    int top = w.top;
    long before = 0;
    for (int c = 0; c < n; c++) before += popc(w.dom[c]);
    int empty = -1;
#define PUSH(x) do { int x_ = (x); if (!w.queued[x_]) { w.queued[x_] = 1; w.queue[top++] = x_; } } while (0)
    bits *dom = w.dom;
    while (top > 0 && empty < 0) {
        int c = w.queue[--top];
        w.queued[c] = 0;
        bits d = dom[c];
        if (!d) { empty = c; break; }
        if (!(d & (d - 1))) {  /* a single label left */
            int v = ctz(d);
            for (int k = w.cgstart[c]; k < w.cgstart[c + 1] && empty < 0; k++) {
                int g = w.cgroups[k], ca = w.gcount_at[g];
                if (ca >= 0) {
                    int used = 0;
                    for (int i = w.gstart[g]; i < w.gstart[g + 1]; i++) used += dom[w.gcells[i]] == d;
                    int cap = w.counts[ca + v];
                    if (used > cap) { empty = c; break; }
                    if (used < cap) continue;
                }
                for (int i = w.gstart[g]; i < w.gstart[g + 1]; i++) {
                    int x = w.gcells[i];
                    if (x != c && (dom[x] & d)) {
                        if (dom[x] == d) {
                            if (ca < 0) { empty = x; break; }
                            continue;
                        }
                        dom[x] &= ~d;
                        PUSH(x);
                    }
                }
            }
            if (empty >= 0) break;
        }
        int lo = ctz(d), hi = hib(d);
        bits above = lo >= BITS_WIDTH - 1 ? 0 : ~(((bits)1 << (lo + 1)) - 1);
        for (int k = w.sustart[c]; k < w.sustart[c + 1]; k++) {  /* value(c) < value(b) */
            int b = w.succ[k];
            bits nb2 = dom[b] & above;
            if (nb2 != dom[b]) { dom[b] = nb2; PUSH(b); }
        }
        bits below = ((bits)1 << hi) - 1;
        for (int k = w.prstart[c]; k < w.prstart[c + 1]; k++) {  /* value(a) < value(c) */
            int a = w.pred[k];
            bits na = dom[a] & below;
            if (na != dom[a]) { dom[a] = na; PUSH(a); }
        }
        for (int k = w.astart[c]; k < w.astart[c + 1]; k++) {
            bits allowed = 0, rest = d;
            const bits *sup = w.sup + w.asup_at[k];
            while (rest) {
                int v = ctz(rest);
                rest &= rest - 1;
                allowed |= sup[v];
            }
            int o = w.aother[k];
            bits no = dom[o] & allowed;
            if (no != dom[o]) { dom[o] = no; PUSH(o); }
        }
    }
#undef PUSH
    long after = 0;
    for (int c = 0; c < n; c++) after += popc(dom[c]);
    PyObject *out = PyList_New(n);
    if (out) {
        for (int c = 0; c < n; c++) {
            PyObject *v = PyLong_FromUnsignedLongLong(dom[c]);
            if (!v) { Py_CLEAR(out); break; }
            PyList_SET_ITEM(out, c, v);
        }
    }
    if (out && empty >= 0) result = Py_BuildValue("(Nli)", out, before - after, empty);
    else if (out) result = Py_BuildValue("(NlO)", out, before - after, Py_None);
    work_free(&w);
    return result;
}

static PyMethodDef methods[] = {
    {"filter_lists", filter_lists, METH_VARARGS,
     "filter_lists(n_cells, domains, groups, less, distinct, binary, touched) -> "
     "(domains, removed, empty_cell) or None (lists wider than 64 bits)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_filter_core",
    "The compiled list filtering of futocp.propagate (see propagate.filter_lists).", -1, methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__filter_core(void) { return PyModule_Create(&module); }
