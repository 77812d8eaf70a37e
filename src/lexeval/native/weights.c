/* lexeval.native.weights: the compiled fast path of a reference's keyword weights.
 *
 * The pure-Python code stays the reference (lexeval.metrics.weights: KeywordWeights.weights
 * and KeywordWeights.of_reference, _WeightMemo.__missing__, _zipf); this function computes
 * the same values and the property tests compare the two:
 *
 *   weigh(keys, numeric, pieces, state)
 *       keys     a tuple of str: a prepared reference's keys
 *       numeric  a tuple with one item per key: true for a key that weighs number times more
 *       pieces   a tuple with one tuple of str per key: its parts (empty: none)
 *       state    (memo, frequencies, zipfs, size, round, direct, negations, floor, ceiling,
 *                number, negation): the language's weight memo (a dict (subclass) of float
 *                whose __missing__ computes a weight: _WeightMemo), wordfreq's frequency dict
 *                of the language, the Zipf value of each frequency seen (a dict of float),
 *                the memos' size limit, the builtin round, whether every key is looked up in
 *                the frequency dict as it is (zh, ja, ko), the negations (a frozenset), and the
 *                constants WEIGHT_FLOOR, ZIPF_CEILING, NUMBER_FACTOR and NEGATION_FACTOR
 *   returns (weights, total, part_weights) as KeywordWeights.of_reference makes them: a tuple
 *       of float, their sum, and a tuple of the weights of each key's parts (pieces itself
 *       when no key has parts); or None when an argument is not of the types the reference
 *       builds, or there is no key (the caller then runs the Python code).
 *
 * A key the memo knows is one look-up. A missing key of letters in lower case (str.isalpha()
 * and str.islower()), or any key when direct, is looked up in the frequency dict and its
 * weight computed here as _zipf and __missing__ compute it (the Zipf value of a frequency not
 * seen before through round, as the reference, so the values are the same to the bit), then
 * stored as __missing__ stores it (each memo emptied first when it holds `size` items); any
 * other missing key goes through memo[key], i.e. the Python code. The keys are read first, in
 * order, then the parts: the memo is written in the reference's order. The floats are
 * computed with the reference's operations in its order.
 *
 * It holds the GIL from start to end. Python code may run (round, __missing__): the arguments
 * are held for the call, every value read from a dict is held by a reference of its own, and
 * errors propagate. Nothing of the host process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

static PyObject *TWO;  /* the int 2: round's digits */
static PyObject *ZERO; /* the float 0.0: the frequency of a word the list lacks */
#if PY_VERSION_HEX >= 0x030C0000
static PyObject *SUM; /* the builtin sum: compensated from Python 3.12 on */
#endif

#define STATE_SIZE 11

typedef struct {
    PyObject *memo, *frequencies, *zipfs, *round, *negations, *floor_value;
    Py_ssize_t size;
    int direct;
    double floor, ceiling, number, negation;
} State;

/* Reads `state` (see the module doc); -1 with a TypeError when it is not that. */
static int state_read(PyObject *state, State *s)
{
    if (!PyTuple_CheckExact(state) || PyTuple_GET_SIZE(state) != STATE_SIZE)
        goto bad;
    PyObject **item = ((PyTupleObject *)state)->ob_item;
    s->memo = item[0];
    s->frequencies = item[1];
    s->zipfs = item[2];
    s->round = item[4];
    s->negations = item[6];
    s->floor_value = item[7];
    if (!PyDict_Check(s->memo) || !PyDict_CheckExact(s->frequencies) ||
        !PyDict_CheckExact(s->zipfs) || !PyLong_CheckExact(item[3]) ||
        !PyBool_Check(item[5]) || !PyFrozenSet_CheckExact(s->negations))
        goto bad;
    for (int i = 7; i < STATE_SIZE; i++)
        if (!PyFloat_CheckExact(item[i]))
            goto bad;
    s->size = PyLong_AsSsize_t(item[3]);
    if (s->size == -1 && PyErr_Occurred())
        return -1;
    s->direct = item[5] == Py_True;
    s->floor = PyFloat_AS_DOUBLE(item[7]);
    s->ceiling = PyFloat_AS_DOUBLE(item[8]);
    s->number = PyFloat_AS_DOUBLE(item[9]);
    s->negation = PyFloat_AS_DOUBLE(item[10]);
    return 0;
bad:
    PyErr_SetString(PyExc_TypeError,
                    "weigh: state must be (memo: dict, frequencies: dict, zipfs: dict, size: int, "
                    "round, direct: bool, negations: frozenset, floor, ceiling, number, "
                    "negation: float)");
    return -1;
}

/* str.isalpha() and str.islower() of an exact, ready str. */
static int lower_word(PyObject *key)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (n == 0)
        return 0;
    if (PyUnicode_IS_ASCII(key)) {
        const Py_UCS1 *c = PyUnicode_1BYTE_DATA(key);
        for (Py_ssize_t i = 0; i < n; i++)
            if (c[i] < 'a' || c[i] > 'z')
                return 0;
        return 1;
    }
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, i)))
            return 0;
    if (n == 1) /* as str.islower reads one character */
        return Py_UNICODE_ISLOWER(PyUnicode_READ(kind, data, 0)) != 0;
    int cased = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISUPPER(c) || Py_UNICODE_ISTITLE(c))
            return 0;
        if (!cased && Py_UNICODE_ISLOWER(c))
            cased = 1;
    }
    return cased;
}

/* Whether an exact, ready str has a decimal digit (what re's "\d" finds in a str). */
static int has_digit(PyObject *key)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (PyUnicode_IS_ASCII(key)) {
        const Py_UCS1 *c = PyUnicode_1BYTE_DATA(key);
        for (Py_ssize_t i = 0; i < n; i++)
            if (c[i] >= '0' && c[i] <= '9')
                return 1;
        return 0;
    }
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++)
        if (Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, data, i)))
            return 1;
    return 0;
}

/* The weight of a key the memo lacks from the frequency dict (_zipf's direct look-up, then
 * __missing__'s max and store): a new reference, or NULL without an error when the dicts hold
 * something else than the reference stores (the caller asks memo[key]), NULL with one on
 * error. */
static PyObject *looked_up(PyObject *key, State *s)
{
    PyObject *freq = PyDict_GetItemWithError(s->frequencies, key);
    if (freq == NULL) {
        if (PyErr_Occurred())
            return NULL;
        freq = ZERO;
    }
    if (!PyFloat_CheckExact(freq))
        return NULL;
    Py_INCREF(freq);
    PyObject *zipf = PyDict_GetItemWithError(s->zipfs, freq);
    if (zipf != NULL) {
        Py_INCREF(zipf);
    }
    else if (PyErr_Occurred()) {
        Py_DECREF(freq);
        return NULL;
    }
    else { /* round(math.log10(freq) + 9.0, 2) if freq > 0 else 0.0, once per frequency */
        double f = PyFloat_AS_DOUBLE(freq);
        if (f > 0) {
            PyObject *unrounded = PyFloat_FromDouble(log10(f) + 9.0);
            if (unrounded == NULL) {
                Py_DECREF(freq);
                return NULL;
            }
            PyObject *args[2] = {unrounded, TWO};
            zipf = PyObject_Vectorcall(s->round, args, 2, NULL);
            Py_DECREF(unrounded);
        }
        else {
            zipf = Py_NewRef(ZERO);
        }
        if (zipf != NULL && PyDict_GET_SIZE(s->zipfs) >= s->size)
            PyDict_Clear(s->zipfs);
        if (zipf == NULL || PyDict_SetItem(s->zipfs, freq, zipf) < 0) {
            Py_DECREF(freq);
            Py_XDECREF(zipf);
            return NULL;
        }
    }
    Py_DECREF(freq);
    if (!PyFloat_CheckExact(zipf)) {
        Py_DECREF(zipf);
        return NULL;
    }
    double value = s->ceiling - PyFloat_AS_DOUBLE(zipf); /* max(WEIGHT_FLOOR, ...) */
    Py_DECREF(zipf);
    PyObject *weight = value > s->floor ? PyFloat_FromDouble(value) : Py_NewRef(s->floor_value);
    if (weight == NULL)
        return NULL;
    if (PyDict_GET_SIZE(s->memo) >= s->size) /* as __missing__ stores it */
        PyDict_Clear(s->memo);
    if (PyDict_SetItem(s->memo, key, weight) < 0) {
        Py_DECREF(weight);
        return NULL;
    }
    return weight;
}

/* memo[key] of an exact str key (a new reference to a float), or NULL on error (a TypeError
 * when the memo gives anything but a float). */
static PyObject *key_weight(PyObject *key, State *s)
{
    PyObject *weight = PyDict_GetItemWithError(s->memo, key);
    if (weight != NULL) {
        Py_INCREF(weight);
    }
    else {
        if (PyErr_Occurred())
            return NULL;
        if (s->direct || lower_word(key)) {
            weight = looked_up(key, s);
            if (weight == NULL && PyErr_Occurred())
                return NULL;
        }
        if (weight == NULL) /* the reference: __missing__ */
            weight = PyObject_GetItem(s->memo, key);
        if (weight == NULL)
            return NULL;
    }
    if (!PyFloat_CheckExact(weight)) {
        Py_DECREF(weight);
        PyErr_SetString(PyExc_TypeError, "weigh: the weight memo gave something else than a float");
        return NULL;
    }
    return weight;
}

/* Whether `items` is an exact tuple of exact (ready) str. -1 on error. */
static int str_tuple(PyObject *items)
{
    if (!PyTuple_CheckExact(items))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (!PyUnicode_CheckExact(item))
            return 0;
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(item) < 0)
            return -1;
#endif
    }
    return 1;
}

/* The weights of a key's parts (KeywordWeights.weight of each): a new tuple, or NULL. */
static PyObject *part_weights(PyObject *parts, State *s)
{
    Py_ssize_t n = PyTuple_GET_SIZE(parts);
    PyObject *result = PyTuple_New(n);
    for (Py_ssize_t i = 0; result != NULL && i < n; i++) {
        PyObject *part = PyTuple_GET_ITEM(parts, i);
        PyObject *weight = key_weight(part, s);
        if (weight != NULL && has_digit(part)) {
            PyObject *times = PyFloat_FromDouble(PyFloat_AS_DOUBLE(weight) * s->number);
            Py_SETREF(weight, times);
        }
        if (weight == NULL)
            Py_CLEAR(result);
        else
            PyTuple_SET_ITEM(result, i, weight);
    }
    return result;
}

/* The sum of a tuple of float, as the builtin sum adds them. A new reference, or NULL. */
static PyObject *total_of(PyObject *weights)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyObject_CallOneArg(SUM, weights);
#else /* 0 + the first (the same float), then each of the others in turn */
    double total = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(weights, 0));
    for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(weights); i++)
        total += PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(weights, i));
    return PyFloat_FromDouble(total);
#endif
}

static PyObject *py_weigh(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "weigh(keys, numeric, pieces, state) takes 4 arguments");
        return NULL;
    }
    PyObject *keys = args[0], *numeric = args[1], *pieces = args[2];
    State s;
    if (state_read(args[3], &s) < 0)
        return NULL;
    int ok = str_tuple(keys);
    if (ok <= 0)
        return ok < 0 ? NULL : Py_NewRef(Py_None);
    Py_ssize_t n = PyTuple_GET_SIZE(keys);
    if (n == 0 || !PyTuple_CheckExact(numeric) || PyTuple_GET_SIZE(numeric) != n ||
        !PyTuple_CheckExact(pieces) || PyTuple_GET_SIZE(pieces) != n)
        Py_RETURN_NONE;
    int compound = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *parts = PyTuple_GET_ITEM(pieces, i);
        ok = str_tuple(parts);
        if (ok <= 0)
            return ok < 0 ? NULL : Py_NewRef(Py_None);
        compound |= PyTuple_GET_SIZE(parts) > 0;
    }
    /* the weights tuple holds the memo's floats, then the factors' new ones */
    PyObject *weights = PyTuple_New(n);
    if (weights == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *weight = key_weight(PyTuple_GET_ITEM(keys, i), &s);
        if (weight == NULL)
            goto error;
        PyTuple_SET_ITEM(weights, i, weight);
    }
    for (Py_ssize_t i = 0; i < n; i++) { /* numbers: NUMBER_FACTOR times */
        int number = PyObject_IsTrue(PyTuple_GET_ITEM(numeric, i));
        if (number < 0)
            goto error;
        if (number) {
            PyObject **item = &((PyTupleObject *)weights)->ob_item[i];
            PyObject *times = PyFloat_FromDouble(PyFloat_AS_DOUBLE(*item) * s.number);
            if (times == NULL)
                goto error;
            Py_SETREF(*item, times);
        }
    }
    if (PySet_GET_SIZE(s.negations) > 0) { /* at least NEGATION_FACTOR x the heaviest other */
        int any = 0;
        for (Py_ssize_t i = 0; !any && i < n; i++)
            if ((any = PySet_Contains(s.negations, PyTuple_GET_ITEM(keys, i))) < 0)
                goto error;
        if (any) {
            double heaviest = 0.0;
            int first = 1;
            for (Py_ssize_t i = 0; i < n; i++) {
                int negation = PySet_Contains(s.negations, PyTuple_GET_ITEM(keys, i));
                if (negation < 0)
                    goto error;
                double w = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(weights, i));
                if (!negation && (first || w > heaviest)) {
                    heaviest = w;
                    first = 0;
                }
            }
            double least = s.negation * heaviest;
            for (Py_ssize_t i = 0; i < n; i++) {
                int negation = PySet_Contains(s.negations, PyTuple_GET_ITEM(keys, i));
                if (negation < 0)
                    goto error;
                PyObject **item = &((PyTupleObject *)weights)->ob_item[i];
                if (negation && least > PyFloat_AS_DOUBLE(*item)) {
                    PyObject *raised = PyFloat_FromDouble(least);
                    if (raised == NULL)
                        goto error;
                    Py_SETREF(*item, raised);
                }
            }
        }
    }
    PyObject *total = total_of(weights);
    if (total == NULL)
        goto error;
    PyObject *parts;
    if (!compound) {
        parts = Py_NewRef(pieces); /* an empty tuple per key: pieces itself */
    }
    else {
        parts = PyTuple_New(n);
        for (Py_ssize_t i = 0; parts != NULL && i < n; i++) {
            PyObject *found = part_weights(PyTuple_GET_ITEM(pieces, i), &s);
            if (found == NULL)
                Py_CLEAR(parts);
            else
                PyTuple_SET_ITEM(parts, i, found);
        }
        if (parts == NULL) {
            Py_DECREF(total);
            goto error;
        }
    }
    PyObject *result = PyTuple_New(3);
    if (result == NULL) {
        Py_DECREF(total);
        Py_DECREF(parts);
        goto error;
    }
    PyTuple_SET_ITEM(result, 0, weights);
    PyTuple_SET_ITEM(result, 1, total);
    PyTuple_SET_ITEM(result, 2, parts);
    return result;
error:
    Py_DECREF(weights); /* its unset items are NULL, which tuple_dealloc skips */
    return NULL;
}

static PyMethodDef METHODS[] = {
    {"weigh", (PyCFunction)(void (*)(void))py_weigh, METH_FASTCALL,
     "weigh(keys, numeric, pieces, state) -> (weights, total, part_weights), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.weights",
    "The compiled fast path of a reference's keyword weights (see lexeval.native).", -1, METHODS,
};

PyMODINIT_FUNC PyInit_weights(void)
{
    if ((TWO == NULL && (TWO = PyLong_FromLong(2)) == NULL) ||
        (ZERO == NULL && (ZERO = PyFloat_FromDouble(0.0)) == NULL))
        return NULL;
#if PY_VERSION_HEX >= 0x030C0000
    if (SUM == NULL) {
        PyObject *builtins = PyEval_GetBuiltins(); /* borrowed */
        if (builtins == NULL || (SUM = PyDict_GetItemString(builtins, "sum")) == NULL) {
            PyErr_SetString(PyExc_ImportError, "lexeval.native.weights: no builtin sum");
            return NULL;
        }
        Py_INCREF(SUM);
    }
#endif
    return PyModule_Create(&MODULE);
}
