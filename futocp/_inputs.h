/* Reading the Python inputs of futocp's C extensions (_filter_core.c and
 * backends/_listcolor_core.c): every input is checked where it enters, so
 * that bad input raises ValueError (TypeError for a value of the wrong type)
 * and is never read or written out of bounds.
 *
 * Every sequence is first copied into a tuple (seq_tuple). A tuple cannot
 * change: the sizes a first pass counts (to allocate) are the sizes the
 * second pass fills, whatever the owner of a list, an item's __index__ or a
 * sequence's __len__ does in between, and the tuple holds its items alive.
 * Include after Python.h. */
#ifndef FUTOCP_INPUTS_H
#define FUTOCP_INPUTS_H

#include <limits.h>

/* ``o`` as a tuple: a new reference, or NULL with TypeError naming ``what``. */
static PyObject *seq_tuple(PyObject *o, const char *what) {
    PyObject *t = PySequence_Tuple(o);
    if (!t && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a sequence, not %.100s", what,
                     Py_TYPE(o)->tp_name);
    }
    return t;
}

/* ``o`` as a tuple of ``k`` items (k >= 0; -1: any number): a new reference,
 * or NULL with ValueError for another length. */
static PyObject *seq_tuple_of(PyObject *o, Py_ssize_t k, const char *what) {
    PyObject *t = seq_tuple(o, what);
    if (t && k >= 0 && PyTuple_GET_SIZE(t) != k) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items, expected %zd", what, PyTuple_GET_SIZE(t),
                     k);
        Py_CLEAR(t);
    }
    return t;
}

/* The int ``o`` into *out when it lies in lo..hi (hi <= INT_MAX): 0, or -1 with
 * ValueError (out of range) or TypeError (not an int). */
static int int_in(PyObject *o, long lo, long hi, const char *what, int *out) {
    int overflow;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must lie in %ld..%ld", what, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

#endif
