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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_bits.h"

/* Everything one call allocates, freed together. */
typedef struct {
    bits *dom, *sup;
    int *gstart, *gcells, *gcount_at, *gcount_len, *counts;
    int *cgstart, *cgroups, *sustart, *succ, *prstart, *pred;
    int *astart, *aother, *asup_at, *queue;
    unsigned char *queued;
} Work;

static void work_free(Work *w) {
    free(w->dom); free(w->sup); free(w->gstart); free(w->gcells); free(w->gcount_at); free(w->gcount_len);
    free(w->counts); free(w->cgstart); free(w->cgroups); free(w->sustart); free(w->succ);
    free(w->prstart); free(w->pred); free(w->astart); free(w->aother); free(w->asup_at);
    free(w->queue); free(w->queued);
}

static void *zalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) PyErr_NoMemory();
    return p;
}

/* An int that must fit in 64 bits: 0 ok, 1 too wide (no error set), -1 error. */
static int to_bits(PyObject *o, bits *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) { PyErr_Clear(); return 1; }
        return -1;
    }
    *out = (bits)v;
    return 0;
}

static int to_cell(PyObject *o, int n, int *out) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= n) { PyErr_Format(PyExc_IndexError, "cell %ld out of range", v); return -1; }
    *out = (int)v;
    return 0;
}

/* Reads the supports of one arc side (a sequence of bit sets) into w->sup at
 * *used; returns 0, 1 (too wide) or -1. */
static int read_support(PyObject *seq, Work *w, Py_ssize_t *used, Py_ssize_t *len_out) {
    PyObject *f = PySequence_Fast(seq, "a support must be a sequence");
    if (!f) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
    *len_out = k;
    for (Py_ssize_t i = 0; i < k; i++) {
        int r = to_bits(PySequence_Fast_GET_ITEM(f, i), &w->sup[*used + i]);
        if (r) { Py_DECREF(f); return r; }
    }
    *used += k;
    Py_DECREF(f);
    return 0;
}

static PyObject *filter_lists(PyObject *self, PyObject *args) {
    int n;
    PyObject *domains, *groups, *less, *distinct, *binary, *touched;
    if (!PyArg_ParseTuple(args, "iOOOOOO", &n, &domains, &groups, &less, &distinct, &binary,
                          &touched))
        return NULL;
    Work w;
    memset(&w, 0, sizeof w);
    PyObject *fd = NULL, *fg = NULL, *fl = NULL, *fx = NULL, *fb = NULL, *result = NULL;
    int wide = 0, r;
    Py_ssize_t *alen = NULL;
#define TRY(x) do { r = (x); if (r < 0) goto done; if (r > 0) { wide = 1; goto done; } } while (0)
#define NEED(p) do { if (!(p)) goto done; } while (0)

    NEED(fd = PySequence_Fast(domains, "domains must be a sequence"));
    if (PySequence_Fast_GET_SIZE(fd) != n) {
        PyErr_SetString(PyExc_ValueError, "one domain per cell expected");
        goto done;
    }
    NEED(w.dom = zalloc((size_t)n, sizeof(bits)));
    for (int c = 0; c < n; c++) TRY(to_bits(PySequence_Fast_GET_ITEM(fd, c), &w.dom[c]));

    /* groups then distinct groups, CSR; counts only for groups with counts */
    NEED(fg = PySequence_Fast(groups, "groups must be a sequence"));
    NEED(fx = PySequence_Fast(distinct, "distinct must be a sequence"));
    Py_ssize_t ng = PySequence_Fast_GET_SIZE(fg), nx = PySequence_Fast_GET_SIZE(fx);
    int G = (int)(ng + nx);
    NEED(w.gstart = zalloc((size_t)G + 1, sizeof(int)));
    NEED(w.gcount_at = zalloc((size_t)G + 1, sizeof(int)));
    NEED(w.gcount_len = zalloc((size_t)G + 1, sizeof(int)));
    Py_ssize_t total = 0, total_counts = 0;
    for (int g = 0; g < G; g++) {
        PyObject *cells, *cnt = Py_None;
        if (g < ng) {
            PyObject *item = PySequence_Fast_GET_ITEM(fg, g);
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
                PyErr_SetString(PyExc_TypeError, "a group is a (cells, counts) tuple");
                goto done;
            }
            cells = PyTuple_GET_ITEM(item, 0);
            cnt = PyTuple_GET_ITEM(item, 1);
        } else {
            cells = PySequence_Fast_GET_ITEM(fx, g - ng);
        }
        Py_ssize_t k = PySequence_Size(cells);
        if (k < 0) goto done;
        total += k;
        if (cnt != Py_None) {
            Py_ssize_t kc = PySequence_Size(cnt);
            if (kc < 0) goto done;
            total_counts += kc;
        }
    }
    NEED(w.gcells = zalloc((size_t)total, sizeof(int)));
    NEED(w.counts = zalloc((size_t)total_counts, sizeof(int)));
    NEED(w.cgstart = zalloc((size_t)n + 1, sizeof(int)));
    {
        Py_ssize_t at = 0, cat = 0;
        for (int g = 0; g < G; g++) {
            PyObject *cells, *cnt = Py_None;
            if (g < ng) {
                PyObject *item = PySequence_Fast_GET_ITEM(fg, g);
                cells = PyTuple_GET_ITEM(item, 0);
                cnt = PyTuple_GET_ITEM(item, 1);
            } else {
                cells = PySequence_Fast_GET_ITEM(fx, g - ng);
            }
            w.gstart[g] = (int)at;
            PyObject *f = PySequence_Fast(cells, "group cells must be a sequence");
            NEED(f);
            for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f); i++) {
                if (to_cell(PySequence_Fast_GET_ITEM(f, i), n, &w.gcells[at]) < 0) {
                    Py_DECREF(f);
                    goto done;
                }
                w.cgstart[w.gcells[at]]++;
                at++;
            }
            Py_DECREF(f);
            w.gcount_at[g] = -1;  /* None, or a partial group: no count rule */
            if (cnt != Py_None && PySequence_Size(cnt) > 0) {
                w.gcount_at[g] = (int)cat;
                w.gcount_len[g] = (int)PySequence_Size(cnt);
                PyObject *fc = PySequence_Fast(cnt, "counts must be a sequence");
                NEED(fc);
                for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fc); i++) {
                    long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fc, i));
                    if (v == -1 && PyErr_Occurred()) { Py_DECREF(fc); goto done; }
                    w.counts[cat++] = (int)v;
                }
                Py_DECREF(fc);
            }
        }
        w.gstart[G] = (int)at;
    }
    /* cell -> its groups in group order (counts in cgstart turned into offsets) */
    NEED(w.cgroups = zalloc((size_t)total, sizeof(int)));
    {
        int acc = 0;
        for (int c = 0; c <= n; c++) { int k = c < n ? w.cgstart[c] : 0; w.cgstart[c] = acc; acc += k; }
        int *fill = zalloc((size_t)n, sizeof(int));
        NEED(fill);
        for (int g = 0; g < G; g++)
            for (int i = w.gstart[g]; i < w.gstart[g + 1]; i++) {
                int c = w.gcells[i];
                w.cgroups[w.cgstart[c] + fill[c]++] = g;
            }
        free(fill);
    }

    /* less: succ and pred per cell, in the order of the pairs */
    NEED(fl = PySequence_Fast(less, "less must be a sequence"));
    Py_ssize_t nl = PySequence_Fast_GET_SIZE(fl);
    int *la = zalloc((size_t)nl, sizeof(int)), *lb = zalloc((size_t)nl, sizeof(int));
    if (!la || !lb) { free(la); free(lb); goto done; }
    for (Py_ssize_t i = 0; i < nl; i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(fl, i);
        PyObject *a = PySequence_GetItem(pair, 0), *b = a ? PySequence_GetItem(pair, 1) : NULL;
        int bad = !b || to_cell(a, n, &la[i]) < 0 || to_cell(b, n, &lb[i]) < 0;
        Py_XDECREF(a); Py_XDECREF(b);
        if (bad) { free(la); free(lb); goto done; }
    }
    w.sustart = zalloc((size_t)n + 1, sizeof(int)); w.prstart = zalloc((size_t)n + 1, sizeof(int));
    w.succ = zalloc((size_t)nl, sizeof(int)); w.pred = zalloc((size_t)nl, sizeof(int));
    if (!w.sustart || !w.prstart || !w.succ || !w.pred) { free(la); free(lb); goto done; }
    for (Py_ssize_t i = 0; i < nl; i++) { w.sustart[la[i] + 1]++; w.prstart[lb[i] + 1]++; }
    for (int c = 0; c < n; c++) { w.sustart[c + 1] += w.sustart[c]; w.prstart[c + 1] += w.prstart[c]; }
    {
        int *fs = zalloc((size_t)n, sizeof(int)), *fp = zalloc((size_t)n, sizeof(int));
        if (!fs || !fp) { free(fs); free(fp); free(la); free(lb); goto done; }
        for (Py_ssize_t i = 0; i < nl; i++) {
            w.succ[w.sustart[la[i]] + fs[la[i]]++] = lb[i];
            w.pred[w.prstart[lb[i]] + fp[lb[i]]++] = la[i];
        }
        free(fs); free(fp);
    }
    free(la); free(lb);

    /* binary relations: arcs per cell (other, support), in the order of the relations */
    NEED(fb = PySequence_Fast(binary, "binary must be a sequence"));
    Py_ssize_t nb = PySequence_Fast_GET_SIZE(fb), sup_total = 0;
    for (Py_ssize_t i = 0; i < nb; i++) {
        PyObject *rel = PySequence_Fast_GET_ITEM(fb, i);
        for (int side = 2; side < 4; side++) {
            PyObject *s = PySequence_GetItem(rel, side);
            NEED(s);
            Py_ssize_t k = PySequence_Size(s);
            Py_DECREF(s);
            if (k < 0) goto done;
            sup_total += k;
        }
    }
    NEED(w.sup = zalloc((size_t)sup_total, sizeof(bits)));
    NEED(w.astart = zalloc((size_t)n + 1, sizeof(int)));
    NEED(w.aother = zalloc((size_t)(2 * nb), sizeof(int)));
    NEED(w.asup_at = zalloc((size_t)(2 * nb), sizeof(int)));
    NEED(alen = zalloc((size_t)(2 * nb), sizeof(Py_ssize_t)));
    {
        int *ends = zalloc((size_t)(2 * nb), sizeof(int));  /* [a0, b0, a1, b1, ...] */
        int *at = zalloc((size_t)(2 * nb), sizeof(int));
        Py_ssize_t *len = zalloc((size_t)(2 * nb), sizeof(Py_ssize_t));
        Py_ssize_t used = 0;
        int bad = !ends || !at || !len;
        for (Py_ssize_t i = 0; !bad && i < nb; i++) {
            PyObject *rel = PySequence_Fast_GET_ITEM(fb, i);
            for (int side = 0; !bad && side < 2; side++) {
                PyObject *c = PySequence_GetItem(rel, side);
                PyObject *s = c ? PySequence_GetItem(rel, 2 + side) : NULL;
                bad = !s || to_cell(c, n, &ends[2 * i + side]) < 0;
                at[2 * i + side] = (int)used;
                if (!bad) {
                    r = read_support(s, &w, &used, &len[2 * i + side]);
                    if (r > 0) wide = 1;
                    bad = r != 0;
                }
                Py_XDECREF(c); Py_XDECREF(s);
            }
        }
        if (!bad) {
            for (Py_ssize_t i = 0; i < 2 * nb; i++) w.astart[ends[i] + 1]++;
            for (int c = 0; c < n; c++) w.astart[c + 1] += w.astart[c];
            int *fill = zalloc((size_t)n, sizeof(int));
            bad = !fill;
            for (Py_ssize_t i = 0; !bad && i < nb; i++) {
                /* arcs[a] gets (b, forward), arcs[b] gets (a, backward) */
                int a = ends[2 * i], b = ends[2 * i + 1];
                int ka = w.astart[a] + fill[a]++;
                w.aother[ka] = b; w.asup_at[ka] = at[2 * i]; alen[ka] = len[2 * i];
                int kb = w.astart[b] + fill[b]++;
                w.aother[kb] = a; w.asup_at[kb] = at[2 * i + 1]; alen[kb] = len[2 * i + 1];
            }
            free(fill);
        }
        free(ends); free(at); free(len);
        if (bad) goto done;
    }

    /* the queue: every cell (popped from the end) or the touched cells, first seen first */
    NEED(w.queue = zalloc((size_t)n, sizeof(int)));
    NEED(w.queued = zalloc((size_t)n, 1));
    int top = 0;
    if (touched == Py_None) {
        for (int c = 0; c < n; c++) { w.queue[top++] = c; w.queued[c] = 1; }
    } else {
        PyObject *ft = PySequence_Fast(touched, "touched must be a sequence");
        NEED(ft);
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ft); i++) {
            int c;
            if (to_cell(PySequence_Fast_GET_ITEM(ft, i), n, &c) < 0) { Py_DECREF(ft); goto done; }
            if (!w.queued[c]) { w.queued[c] = 1; w.queue[top++] = c; }
        }
        Py_DECREF(ft);
    }

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
                    if (v >= w.gcount_len[g]) {
                        PyErr_SetString(PyExc_IndexError, "a value beyond its group's counts");
                        goto done;
                    }
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
        bits above = lo >= 63 ? 0 : ~(((bits)1 << (lo + 1)) - 1);
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
                if (v >= alen[k]) {
                    PyErr_SetString(PyExc_IndexError, "a value beyond its relation's support");
                    goto done;
                }
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
    NEED(out);
    for (int c = 0; c < n; c++) {
        PyObject *v = PyLong_FromUnsignedLongLong(dom[c]);
        if (!v) { Py_DECREF(out); goto done; }
        PyList_SET_ITEM(out, c, v);
    }
    if (empty >= 0) result = Py_BuildValue("(Nli)", out, before - after, empty);
    else result = Py_BuildValue("(NlO)", out, before - after, Py_None);
#undef TRY
#undef NEED
done:
    Py_XDECREF(fd); Py_XDECREF(fg); Py_XDECREF(fl); Py_XDECREF(fx); Py_XDECREF(fb);
    free(alen);
    work_free(&w);
    if (wide && !result && !PyErr_Occurred()) Py_RETURN_NONE;
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
