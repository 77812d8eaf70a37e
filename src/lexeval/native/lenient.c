/* lexeval.native.lenient: the compiled fast paths of lenient keyword matching.
 *
 * The pure-Python code stays the reference (lexeval.text.lenient.canonical_keys and
 * lexeval.metrics.keyword_lenient.lenient_score); these functions compute the same values and
 * the property tests compare the two:
 *
 *   canonical_keys(keys, memo, tables, as_dict)
 *       keys      a list or tuple of keys
 *       memo      the canonical keys known so far, a dict (subclass) whose __missing__
 *                 computes one (lexeval.text.lenient._CanonicalMemo)
 *       tables    (number_words, units, size, values): the English number words and units
 *                 as dicts of str, the memo's size limit, the number words' values as a dict
 *                 of int (number_words, units and values None when not English)
 *       as_dict   0: a tuple of the canonical key of each key (tuple(map(memo.__getitem__,
 *                 keys))); 1: the distinct ones, as the keys of a dict of None
 *                 (dict.fromkeys(...)); 2: that dict, then each of its keys with a hyphen
 *                 without them; 3: the tuple of the keys (a tuple) with English number
 *                 words merged first (merge_number_words), or None when the Python code
 *                 must merge them; 4: (the tuple, the dict of mode 2, the tuple of that
 *                 dict's keys with a hyphen)
 *   The memo is read here. A missing ASCII key without a digit, a dot or a space, or of digits
 *   only, is computed here as the reference computes it (plain_canonical) and stored as
 *   __missing__ stores it (the memo emptied first when it holds `size` keys); any other
 *   missing key goes through memo[key], i.e. the Python code.
 *
 *   score(types, ref, weighted, weights, total, out, profile, echoed)
 *       types     (ReferenceKeys, Weighted, _Missed, LONG_TEXT): the exact types of ref and
 *                 weighted, the class of the rules of missed keys, and the length from which
 *                 the substring rule is left to the Python code
 *       ref, weighted  the prepared reference and its weights (a named tuple of each)
 *       weights, total  the keys' weights and their sum (the question's echoed keys weighed)
 *       out       the prepared output (its _keys, canonical and keywords are read)
 *       profile   the task profile (its conflict_penalty and extra_penalty are read)
 *       echoed    a frozenset: the reference keys the question names (empty: none)
 *   returns (score, info) as lenient_score makes them, or None when an argument is not of the
 *   types the reference builds (the caller then runs the Python loop). A reference key that is
 *   one of the output's keys is found here; any other goes to _Missed(out, canonical,
 *   profile) (made once, at the first), called with (k, ck, weight, parts, part_weights,
 *   kind): a float (credit earned) or None (anything else is a TypeError); its partial, near, conflicts and
 *   against make the evidence. The floats are computed with the reference's operations in its
 *   order (no contraction into fused multiply-adds).
 *
 * Both hold the GIL from start to end. Python code may run (__missing__, _Missed, a
 * __eq__ of a key that is not a str): the arguments are held for the call, the items read are
 * held by a reference of their own, and errors propagate. Nothing of the host process is
 * touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "process_state.h"
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <structmember.h> /* PyMember_SetOne (output_keys) */

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Whether `tuple` is an exact tuple of n items. */
#define TUPLE_OF(tuple, n) (PyTuple_CheckExact(tuple) && PyTuple_GET_SIZE(tuple) == (n))

/* Whether an exact, ready str has a hyphen. */
static int has_dash(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s))
        return n > 0 && memchr(PyUnicode_1BYTE_DATA(s), '-', (size_t)n) != NULL;
    return PyUnicode_FindChar(s, '-', 0, n, 1) >= 0;
}

/* ---- canonical keys ------------------------------------------------------------------------ */

/* A growable array of owned references (on the stack while few). */
#define STACK 64
typedef struct {
    PyObject **item;
    Py_ssize_t n, capacity;
    PyObject *stack[STACK];
} Refs;

static void refs_init(Refs *r)
{
    r->item = r->stack;
    r->n = 0;
    r->capacity = STACK;
}

/* Appends a new reference (stolen); -1 on error (the reference is released). */
static int refs_push(Refs *r, PyObject *item)
{
    if (r->n == r->capacity) {
        Py_ssize_t capacity = 2 * r->capacity;
        PyObject **grown = r->item == r->stack ? PyMem_New(PyObject *, capacity)
                                               : PyMem_Resize(r->item, PyObject *, capacity);
        if (grown == NULL) {
            Py_DECREF(item);
            PyErr_NoMemory();
            return -1;
        }
        if (r->item == r->stack)
            memcpy(grown, r->stack, sizeof(r->stack));
        r->item = grown;
        r->capacity = capacity;
    }
    r->item[r->n++] = item;
    return 0;
}

static void refs_free(Refs *r)
{
    for (Py_ssize_t i = 0; i < r->n; i++)
        Py_DECREF(r->item[i]);
    if (r->item != r->stack)
        PyMem_Free(r->item);
}

static int phrase(PyObject *values, PyObject *a, PyObject *b, long long *value);

/* The tables of English (all None otherwise): number words and units as dicts of str, the
 * number words' values as a dict of int; and fold_accents (lexeval.text.lenient). */
typedef struct {
    PyObject *number_words, *units, *values, *fold;
} Tables;

/* The canonical key of an ASCII key `key` (an exact, ready str) without a digit, a dot or a
 * space, or of digits only, as lexeval.text.lenient._canonical computes it: a new reference,
 * or NULL without an error when the key is another one (or a table holds something else),
 * NULL with one on error. Such a key is in lower case; then a number when all digits (without
 * its leading zeros), an English number word's digits or a unit's one spelling when all
 * letters, the value of two English number words when two runs of letters joined by one
 * hyphen ("twenty-four"), else itself. */
static PyObject *number_canonical(PyObject *key, Tables *t);
static PyObject *folded_canonical(PyObject *key, Tables *t);

static PyObject *plain_canonical(PyObject *key, Tables *t)
{
    if (!PyUnicode_IS_ASCII(key))
        return folded_canonical(key, t); /* "Röntgen": from its characters' folds, if known */
    const unsigned char *s = PyUnicode_1BYTE_DATA(key);
    Py_ssize_t n = PyUnicode_GET_LENGTH(key), upper = 0, letters = 0, hyphens = 0, i;
    if (n == 0)
        return NULL;
    if (s[0] >= '0' && s[0] <= '9') { /* all digits: without leading zeros ("007" -> "7") */
        for (i = 0; i < n; i++)
            if (s[i] < '0' || s[i] > '9')
                return number_canonical(key, t); /* digits and more: "1,000", "9th" */
        Py_ssize_t zeros = 0;
        while (zeros < n - 1 && s[zeros] == '0')
            zeros++;
        return zeros ? PyUnicode_Substring(key, zeros, n) : Py_NewRef(key);
    }
    for (i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 'A' && c <= 'Z')
            upper++;
        else if (c >= 'a' && c <= 'z')
            letters++;
        else if (c == '-')
            hyphens++;
        else if (c >= '0' && c <= '9')
            return number_canonical(key, t); /* "catch-22", "x86" */
        else if (c == '.' || c == ' ' || c < 32 || c == 127)
            return NULL; /* numbers, acronyms, phrases: the Python code */
    }
    letters += upper;
    PyObject *k; /* casefolded: ASCII letters in lower case */
    if (upper == 0)
        k = Py_NewRef(key);
    else {
        k = PyUnicode_New(n, 127);
        if (k == NULL)
            return NULL;
        Py_UCS1 *d = PyUnicode_1BYTE_DATA(k);
        for (i = 0; i < n; i++)
            d[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (Py_UCS1)(s[i] + 32) : s[i];
    }
    if (t->number_words == Py_None) /* not English: the key in lower case */
        return k;
    if (letters + hyphens < n) /* other punctuation: nothing changes it */
        return k;
    if (hyphens == 1 && s[0] != '-' && s[n - 1] != '-') {
        /* two runs of letters: a number phrase ("twenty-four") or the key */
        Py_ssize_t dash = PyUnicode_FindChar(k, '-', 0, n, 1);
        PyObject *a = PyUnicode_Substring(k, 0, dash), *b = PyUnicode_Substring(k, dash + 1, n);
        long long value = 0;
        int number = a && b ? phrase(t->values, a, b, &value) : -1;
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (number != 0) {
            Py_DECREF(k);
            return number == 1 ? PyUnicode_FromFormat("%lld", value) : NULL;
        }
        return k;
    }
    if (hyphens) /* several hyphens, or at an end: no number phrase */
        return k;
    /* letters: NUMBER_WORDS_EN.get(k) or _WORD_UNITS.get(k, k) */
    PyObject *tables[2] = {t->number_words, t->units};
    for (int j = 0; j < 2; j++) {
        PyObject *found = PyDict_GetItemWithError(tables[j], k);
        if (found != NULL) {
            if (!PyUnicode_CheckExact(found) || PyUnicode_GET_LENGTH(found) == 0) {
                Py_DECREF(k); /* not what the tables hold: the Python code decides */
                return NULL;
            }
            Py_DECREF(k);
            return Py_NewRef(found);
        }
        if (PyErr_Occurred()) {
            Py_DECREF(k);
            return NULL;
        }
    }
    return k;
}

/* memo[key], computed here for a plain word: a new reference, or NULL on error. */
static PyObject *canonical_of(PyObject *key, PyObject *memo, Tables *t, Py_ssize_t size)
{
    if (PyUnicode_CheckExact(key)) {
        PyObject *found = PyDict_GetItemWithError(memo, key);
        if (found != NULL)
            return Py_NewRef(found);
        if (PyErr_Occurred())
            return NULL;
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(key) < 0)
            return NULL;
#endif
        found = plain_canonical(key, t);
        if (found != NULL) { /* as __missing__ stores it */
            if (PyDict_GET_SIZE(memo) >= size)
                PyDict_Clear(memo);
            if (PyDict_SetItem(memo, key, found) < 0) {
                Py_DECREF(found);
                return NULL;
            }
            return found;
        }
        if (PyErr_Occurred())
            return NULL;
    }
    return PyObject_GetItem(memo, key); /* the reference: __missing__ */
}

static PyObject *DASH, *EMPTY; /* "-" and "" */

static int add_joined_of(PyObject *d, PyObject *compounds);

/* Adds to a dict of str each of its keys that has a hyphen without them, after all the others
 * (dict.update(dict.fromkeys([k.replace("-", "") for k in d if "-" in k]))). 0 or -1. */
static int add_joined(PyObject *d)
{
    PyObject *compounds = PyList_New(0), *key, *value;
    Py_ssize_t pos = 0;
    int failed = compounds == NULL;
    while (!failed && PyDict_Next(d, &pos, &key, &value))
        if (PyUnicode_Check(key) &&
            PyUnicode_FindChar(key, '-', 0, PyUnicode_GET_LENGTH(key), 1) >= 0)
            failed = PyList_Append(compounds, key) < 0;
    failed = failed || add_joined_of(d, compounds) < 0;
    Py_XDECREF(compounds);
    return failed ? -1 : 0;
}

/* Adds to a dict each of `compounds` (a list of str with a hyphen) without its hyphens, in
 * order. 0 or -1. */
static int add_joined_of(PyObject *d, PyObject *compounds)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(compounds); i++) {
        PyObject *joined = PyUnicode_Replace(PyList_GET_ITEM(compounds, i), DASH, EMPTY, -1);
        int failed = joined == NULL || PyDict_SetItem(d, joined, Py_None) < 0;
        Py_XDECREF(joined);
        if (failed)
            return -1;
    }
    return 0;
}

static PyObject *canonical_keys_of(PyObject *keys, PyObject *memo, PyObject *tables,
                                   long mode, PyObject *known, PyObject *known_canonical);
static PyObject *py_merge_number_words(PyObject *module, PyObject *const *args,
                                       Py_ssize_t nargs);

static PyObject *py_canonical_keys(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4 && nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "canonical_keys(keys, memo, tables, as_dict[, known, "
                                         "known_canonical]) takes 4 or 6 arguments");
        return NULL;
    }
    /* known keys and their canonical forms (memo[known[i]] each, tuples of one size): a key
     * that is the next known one (the same object, in their order) is not looked up */
    PyObject *known = NULL, *known_canonical = NULL;
    if (nargs == 6) {
        known = args[4];
        known_canonical = args[5];
        if (!PyTuple_CheckExact(known) || !PyTuple_CheckExact(known_canonical) ||
            PyTuple_GET_SIZE(known) != PyTuple_GET_SIZE(known_canonical)) {
            PyErr_SetString(PyExc_TypeError,
                            "canonical_keys: known and known_canonical: tuples of one size");
            return NULL;
        }
    }
    long mode = PyLong_Check(args[3]) ? PyLong_AsLong(args[3]) : -1;
    if (mode < 0 || mode > 4) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "canonical_keys: as_dict must be 0 to 4");
        return NULL;
    }
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[9];
    for (Py_ssize_t i = 0; i < nargs; i++) { /* Python code may run: the arguments are held */
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = canonical_keys_of(held[0], held[1], held[2], mode, known, known_canonical);
    for (Py_ssize_t i = 0; i < nargs; i++)
        Py_DECREF(held[i]);
    return result;
}

/* Whether a key whose canonical form is `canonical` may be a number word: the form begins
 * with an ASCII digit and the key does not (a number word's form is its digits). */
static int may_be_number_word(PyObject *key, PyObject *canonical)
{
    if (!PyUnicode_Check(key) || !PyUnicode_Check(canonical))
        return 0;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(key) < 0 || PyUnicode_READY(canonical) < 0) {
        PyErr_Clear();
        return 1; /* the dict decides */
    }
#endif
    if (PyUnicode_GET_LENGTH(canonical) == 0 || PyUnicode_GET_LENGTH(key) == 0)
        return 0;
    Py_UCS4 c = PyUnicode_READ_CHAR(canonical, 0), k = PyUnicode_READ_CHAR(key, 0);
    return c >= '0' && c <= '9' && !(k >= '0' && k <= '9');
}

static PyObject *canonical_keys_of(PyObject *keys, PyObject *memo, PyObject *tables,
                                   long mode, PyObject *known, PyObject *known_canonical)
{
    if (!(PyList_CheckExact(keys) || PyTuple_CheckExact(keys)) || !PyDict_Check(memo) ||
        !PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != 5) {
        PyErr_SetString(PyExc_TypeError, "canonical_keys(keys: list | tuple, memo: dict, "
                                         "tables: tuple of 5, as_dict)");
        return NULL;
    }
    Tables t = {PyTuple_GET_ITEM(tables, 0), PyTuple_GET_ITEM(tables, 1),
                PyTuple_GET_ITEM(tables, 3), PyTuple_GET_ITEM(tables, 4)};
    if ((t.number_words != Py_None || t.units != Py_None || t.values != Py_None) &&
        (!PyDict_CheckExact(t.number_words) || !PyDict_CheckExact(t.units) ||
         !PyDict_CheckExact(t.values))) {
        PyErr_SetString(PyExc_TypeError,
                        "the number words, units and values must be dicts or all None");
        return NULL;
    }
    Py_ssize_t size = PyLong_AsSsize_t(PyTuple_GET_ITEM(tables, 2));
    if (size == -1 && PyErr_Occurred())
        return NULL;
    if (mode == 3 && !PyTuple_CheckExact(keys))
        Py_RETURN_NONE;
    long want_dict = mode == 3 ? 0 : mode;
    Refs found;
    refs_init(&found);
    PyObject *result = NULL;
    Py_ssize_t next = 0, n_known = known == NULL ? 0 : PyTuple_GET_SIZE(known);
    /* as a list iterator reads a list: by index, its size checked at each step */
    for (Py_ssize_t i = 0; i < (PyList_CheckExact(keys) ? PyList_GET_SIZE(keys)
                                                        : PyTuple_GET_SIZE(keys));
         i++) {
        PyObject *key = PyList_CheckExact(keys) ? PyList_GET_ITEM(keys, i)
                                                : PyTuple_GET_ITEM(keys, i);
        /* the next known key, or the one after it (a known key that is not among the keys,
         * such as a merged compound, skipped) */
        Py_ssize_t at = next < n_known && PyTuple_GET_ITEM(known, next) == key          ? next
                        : next + 1 < n_known && PyTuple_GET_ITEM(known, next + 1) == key ? next + 1
                                                                                         : -1;
        PyObject *canonical;
        if (at >= 0) {
            canonical = Py_NewRef(PyTuple_GET_ITEM(known_canonical, at));
            next = at + 1;
        }
        else {
            Py_INCREF(key);
            canonical = canonical_of(key, memo, &t, size);
            Py_DECREF(key);
        }
        if (canonical == NULL || refs_push(&found, canonical) < 0)
            goto done;
    }
    if (mode == 3 && t.values != Py_None && found.n >= 2) {
        /* number words: merged first (merge_number_words), then the merged keys' forms */
        int merge = 0;
        for (Py_ssize_t i = 0; !merge && i + 1 < found.n; i++) {
            PyObject *key = PyTuple_GET_ITEM(keys, i);
            if (may_be_number_word(key, found.item[i]) &&
                (merge = PyUnicode_CheckExact(key) ? PyDict_Contains(t.values, key) : 1) < 0)
                goto done;
        }
        if (merge) {
            PyObject *call[2] = {keys, t.values};
            PyObject *merged = py_merge_number_words(NULL, call, 2);
            if (merged == NULL)
                goto done;
            if (merged == Py_None) /* the Python code decides */
                result = merged;
            else {
                result = merged == keys ? NULL
                                        : canonical_keys_of(merged, memo, tables, 0, NULL, NULL);
                Py_DECREF(merged);
                if (result == NULL && !PyErr_Occurred())
                    goto forms; /* nothing merged */
            }
            goto done;
        }
    }
forms:
    if (mode == 4) { /* (canonical keys, their index with hyphen-less forms, compounds) */
        /* a tuple of keys that are their own canonical forms is its own canonical tuple; the
         * index presized (no resize while it fills; the order is the insertion's) */
        int own = PyTuple_CheckExact(keys) && PyTuple_GET_SIZE(keys) == found.n;
        for (Py_ssize_t i = 0; own && i < found.n; i++)
            own = found.item[i] == PyTuple_GET_ITEM(keys, i);
        PyObject *canonical = own ? Py_NewRef(keys) : PyTuple_New(found.n);
        PyObject *index = _PyDict_NewPresized(found.n);
        PyObject *compounds = NULL, *dashed = NULL; /* the index's keys with a hyphen */
        int failed = canonical == NULL || index == NULL;
        for (Py_ssize_t i = 0; !failed && i < found.n; i++) {
            PyObject *item = found.item[i];
            Py_ssize_t before = PyDict_GET_SIZE(index);
            failed = PyDict_SetItem(index, item, Py_None) < 0;
            /* a new key of the index with a hyphen: a compound, in the index's order */
            if (!failed && PyDict_GET_SIZE(index) > before && PyUnicode_Check(item) &&
                has_dash(item))
                failed = (dashed == NULL && (dashed = PyList_New(0)) == NULL) ||
                         PyList_Append(dashed, item) < 0;
            if (!own)
                PyTuple_SET_ITEM(canonical, i, Py_NewRef(item));
        }
        if (!failed && dashed != NULL) /* the hyphen-less forms, after the keys */
            failed = add_joined_of(index, dashed) < 0 ||
                     (compounds = PyList_AsTuple(dashed)) == NULL;
        else if (!failed)
            failed = (compounds = PyTuple_New(0)) == NULL;
        Py_XDECREF(dashed);
        if (!failed)
            result = PyTuple_Pack(3, canonical, index, compounds);
        Py_XDECREF(canonical);
        Py_XDECREF(index);
        Py_XDECREF(compounds);
    }
    else if (want_dict) {
        result = _PyDict_NewPresized(found.n);
        for (Py_ssize_t i = 0; result != NULL && i < found.n; i++)
            if (PyDict_SetItem(result, found.item[i], Py_None) < 0)
                Py_CLEAR(result);
        if (result != NULL && want_dict == 2 && add_joined(result) < 0)
            Py_CLEAR(result);
    }
    else {
        /* a tuple of keys that are their own canonical forms: the tuple itself */
        int own = PyTuple_CheckExact(keys) && PyTuple_GET_SIZE(keys) == found.n;
        for (Py_ssize_t i = 0; own && i < found.n; i++)
            own = found.item[i] == PyTuple_GET_ITEM(keys, i);
        if (own) {
            result = Py_NewRef(keys);
            goto done;
        }
        result = PyTuple_New(found.n);
        for (Py_ssize_t i = 0; result != NULL && i < found.n; i++) {
            PyTuple_SET_ITEM(result, i, found.item[i]);
            found.item[i] = NULL;
        }
    }
done:
    for (Py_ssize_t i = 0; i < found.n; i++)
        Py_XDECREF(found.item[i]);
    found.n = 0;
    refs_free(&found);
    return result;
}

/* ---- canonical keys of numbers ---------------------------------------------------------- */

#define DIGIT(c) ((c) >= '0' && (c) <= '9')
#define LOWER(c) ((c) >= 'a' && (c) <= 'z')
#define NUMBER_KEY_MAX 64

/* The canonical key of an ASCII key (an exact, ready str) with a digit and without a space or
 * a control character, as lexeval.text.lenient._canonical computes it: a new reference, or
 * NULL without an error when the Python code must compute it (a number glued to a unit, a
 * number phrase that begins with a number word, a key of more than NUMBER_KEY_MAX
 * characters), NULL with one on error. In lower case, then an ordinal ("9th") without its
 * ending; then a number ([0-9.,:]+) without thousands separators ("1,000"), the leading zeros
 * of each of its numbers ("09:15" -> "9:15", "00" -> "0") and the trailing zeros of its
 * decimals ("3.50" -> "3.5", "2.0" -> "2"). */
static PyObject *number_canonical(PyObject *key, Tables *t)
{
    const unsigned char *s = PyUnicode_1BYTE_DATA(key);
    Py_ssize_t n = PyUnicode_GET_LENGTH(key), i;
    char k[NUMBER_KEY_MAX + 1] = {0};
    if (n == 0 || n > NUMBER_KEY_MAX)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == ' ' || s[i] < 32 || s[i] >= 127)
            return NULL;
        k[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    }
    int english = t->number_words != Py_None;
    if (english && DIGIT(k[0])) { /* _GLUED_UNIT: digits[.digits][-]unit ("6ft", "2.5-kg") */
        for (i = 0; i < n && DIGIT(k[i]); i++)
            ;
        if (i + 1 < n && k[i] == '.' && DIGIT(k[i + 1]))
            for (i++; i < n && DIGIT(k[i]); i++)
                ;
        i += i < n && k[i] == '-';
        Py_ssize_t start = i;
        while (i < n && LOWER(k[i]))
            i++;
        if (i == n && start < n) { /* a unit (UNITS_EN: _WORD_UNITS and "in") is theirs */
            if (n - start == 2 && k[start] == 'i' && k[start + 1] == 'n')
                return NULL;
            PyObject *name = PyUnicode_DecodeASCII(k + start, n - start, NULL);
            int unit = name == NULL ? -1 : PyDict_Contains(t->units, name);
            Py_XDECREF(name);
            if (unit != 0)
                return NULL;
        }
    }
    if (english && LOWER(k[0])) { /* _NUMBER_PHRASE: letters(-[a-z0-9]+)+, a number word first */
        Py_ssize_t first = 0, groups = 0;
        for (i = 0; i < n && LOWER(k[i]); i++)
            ;
        first = i;
        while (i < n && k[i] == '-') {
            Py_ssize_t start = ++i;
            while (i < n && (LOWER(k[i]) || DIGIT(k[i])))
                i++;
            if (i == start)
                break;
            groups++;
        }
        if (i == n && groups > 0 && k[n - 1] != '-') {
            PyObject *word = PyUnicode_DecodeASCII(k, first, NULL);
            int number = word == NULL ? -1 : PyDict_Contains(t->values, word);
            Py_XDECREF(word);
            if (number != 0)
                return NULL; /* number_phrase decides */
        }
    }
    if (n >= 3) { /* _ORDINAL: digits and st, nd, rd or th */
        char a = k[n - 2], b = k[n - 1];
        int ending = (a == 's' && b == 't') || (a == 'n' && b == 'd') || (a == 'r' && b == 'd') ||
                     (a == 't' && b == 'h');
        for (i = 0; ending && i < n - 2; i++)
            ending = DIGIT(k[i]);
        if (ending)
            n -= 2;
    }
    int numeric = 1; /* _NUMERIC: [0-9.,:]+ */
    for (i = 0; numeric && i < n; i++)
        numeric = DIGIT(k[i]) || k[i] == '.' || k[i] == ',' || k[i] == ':';
    if (numeric) {
        /* _THOUSANDS: \d{1,3}(,\d{3})+ -> without the commas */
        Py_ssize_t lead = 0;
        while (lead < n && DIGIT(k[lead]))
            lead++;
        int thousands = lead >= 1 && lead <= 3 && lead < n;
        for (i = lead; thousands && i < n; i += 4)
            thousands = i + 3 < n && k[i] == ',' && DIGIT(k[i + 1]) && DIGIT(k[i + 2]) &&
                        DIGIT(k[i + 3]);
        if (thousands) {
            Py_ssize_t m = 0;
            for (i = 0; i < n; i++)
                if (k[i] != ',')
                    k[m++] = k[i];
            n = m;
        }
        /* _LEADING_ZEROS: (?<!\d)0+(?=\d) removed (a run of zeros after no digit: all of it
         * before a digit, all but its last before anything else) */
        Py_ssize_t m = 0;
        for (i = 0; i < n;) {
            if (k[i] == '0' && (i == 0 || !DIGIT(k[i - 1]))) {
                Py_ssize_t end = i;
                while (end < n && k[end] == '0')
                    end++;
                if (end < n && DIGIT(k[end]))
                    i = end;
                else
                    i = end - 1;
                while (i < end) /* the zeros kept */
                    k[m++] = k[i++];
                continue;
            }
            k[m++] = k[i++];
        }
        n = m;
        if (memchr(k, '.', (size_t)n) != NULL) { /* rstrip("0").rstrip("."), unless empty */
            Py_ssize_t end = n;
            while (end > 0 && k[end - 1] == '0')
                end--;
            while (end > 0 && k[end - 1] == '.')
                end--;
            if (end > 0)
                n = end;
        }
    }
    return PyUnicode_DecodeASCII(k, n, NULL);
}

/* ---- prepared references (LenientMatcher.reference) ---------------------------------------- */

/* reference(state, matcher, reference): LenientMatcher.reference(reference) for a reference
 * that is an exact str, or None (the Python code then runs). `state` is the matcher's
 * `_native` tuple, in the order of the R_ names below: the constants of
 * lexeval.metrics.keyword_lenient (ReferenceKeys, KeywordAnalysis, LenientMatcher._prepare,
 * repair_mojibake, _names_number, the number words as a frozenset of str, _NOT_NUMERIC,
 * _NO_PIECES, _NO_KINDS, _MONTH_KINDS, _pieces, conflict_kind, fold_accents), then the
 * matcher's own: its cache of references (a dict), the cache's size, its analyze callable,
 * english (a bool), the canonical keys' memo and tables (lexeval.text.lenient's
 * canonical_tables).
 *
 * A cached reference is made a ReferenceKeys here. A new one is analyzed here (its text
 * repaired first by repair_mojibake when it is not ASCII). When the analysis is a
 * KeywordAnalysis whose keywords (a list or tuple of str) are not empty and the text names no
 * English number word (names_number: each character's fold_accents, kept; _names_number for
 * a text with a character beyond the BMP), its keys are its keywords; else they are chosen
 * as _keywords_of chooses them (other_keywords: number words merged and kept, or every key).
 * Their canonical keys (canonical_keys_of, mode 0) and the fields are built here as
 * LenientMatcher._prepare builds them (the shared
 * tuples of plain words; the kinds of plain numbers; _pieces and conflict_kind called for keys
 * with a separator and for non-ASCII keys with a digit), the cache emptied when full and the
 * entry stored whole. Any other analysis (types the matcher does not build, a merge that
 * merge_number_words leaves to the Python code) goes to _prepare(matcher, reference, text,
 * analysis), the Python code. */
enum {
    R_TYPE, R_ANALYSIS, R_PREPARE, R_REPAIR, R_NAMES_NUMBER, R_NUMBER_WORDS, R_NOT_NUMERIC,
    R_NO_PIECES, R_NO_KINDS, R_MONTHS, R_PIECES, R_KIND, R_FOLD, R_CACHE, R_SIZE, R_ANALYZE,
    R_ENGLISH, R_MEMO, R_TABLES, R_N
};

static int has_digit(PyObject *s);
static int all_ready_str(PyObject *tuple);
static int is_word(unsigned char c);

static PyObject *KIND_NAME[3]; /* conflict_kind's "year", "small", "number" */

/* The number words as C strings, read once per set (a frozenset of str): when they are all
 * ASCII letters in lower case, at most WORD_MAX of them and WORD_LONGEST long, a word is
 * compared with those of its length and first letter; else `words_other`, and the Python code
 * decides. */
#define WORD_MAX 256
#define WORD_LONGEST 31
static PyObject *words_seen;
static int words_other;
static char words_text[WORD_MAX][WORD_LONGEST + 1];
/* the words of each length and first letter: a list through words_next (-1 ends it) */
static int words_first[WORD_LONGEST + 1][26], words_next[WORD_MAX];

static int number_words_read(PyObject *words)
{
    if (words == words_seen)
        return 0;
    int other = 0, count = 0;
    Py_CLEAR(words_seen); /* read again, whole */
    memset(words_first, -1, sizeof(words_first));
    PyObject *iterator = PyObject_GetIter(words), *word;
    if (iterator == NULL)
        return -1;
    while ((word = PyIter_Next(iterator)) != NULL) { /* a frozenset: no Python code runs */
        Py_ssize_t n = PyUnicode_CheckExact(word) && PyUnicode_IS_ASCII(word)
                           ? PyUnicode_GET_LENGTH(word)
                           : -1;
        if (n < 1 || n > WORD_LONGEST || count == WORD_MAX)
            other = 1;
        for (Py_ssize_t i = 0; !other && i < n; i++) {
            Py_UCS1 c = PyUnicode_1BYTE_DATA(word)[i];
            other = c < 'a' || c > 'z';
        }
        if (!other) {
            memcpy(words_text[count], PyUnicode_1BYTE_DATA(word), (size_t)n);
            int *first = &words_first[n][words_text[count][0] - 'a'];
            words_next[count] = *first;
            *first = count++;
        }
        Py_DECREF(word);
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred())
        return -1;
    Py_XSETREF(words_seen, Py_NewRef(words));
    words_other = other;
    return 0;
}

/* One word of a folded text, as the scan builds it: its first WORD_LONGEST characters in
 * `text` when they are ASCII letters (`plain`), and its length. */
typedef struct {
    char text[WORD_LONGEST + 1];
    Py_ssize_t length;
    int plain;
} Word;

/* Whether the word ended is a number word: 1, 0 or -1; the word is emptied. */
static int word_end(Word *w)
{
    Py_ssize_t n = w->length;
    int plain = w->plain && n <= WORD_LONGEST;
    w->length = 0;
    w->plain = 1;
    if (n == 0 || !plain)
        return 0; /* the number words are ASCII letters */
    for (int i = words_first[n][w->text[0] - 'a']; i >= 0; i = words_next[i])
        if (memcmp(words_text[i], w->text, (size_t)n) == 0)
            return 1;
    return 0;
}

/* Adds the character c of a folded text to the word (a word character: ASCII letters,
 * digits, "_" and the Unicode letters and digits of str.isalnum, as re's \w), or ends it:
 * 1 when the word ended was a number word, 0 or -1. `own`: c is an ASCII character of the text
 * itself, in lower case once folded (a character's fold is taken as it is). */
static int word_add(Word *w, Py_UCS4 c, int own)
{
    if (c < 128 ? is_word((unsigned char)c) : Py_UNICODE_ISALNUM(c)) {
        if (own && c >= 'A' && c <= 'Z')
            c += 32; /* a text's own ASCII letter: casefold is lower there (a fold is kept) */
        if (c >= 'a' && c <= 'z') {
            if (w->length < WORD_LONGEST)
                w->text[w->length] = (char)c;
        }
        else
            w->plain = 0;
        w->length++;
        return 0;
    }
    return word_end(w);
}

/* fold_accents of each character of the Basic Multilingual Plane met so far (a str, or NULL):
 * a text's fold is its characters' folds (casefold and NFKD map each character alone; NFKD's
 * reordering of combining marks does not move a letter or digit), which the scan reads.
 * FOLDED_BY: the fold whose characters' folds the table holds (held), the first that
 * names_number is given (fold_accents in use); another fold does not read or fill it. */
static PyObject *FOLDED[0x10000];
static PyObject *FOLDED_BY;

/* _names_number(text) (lexeval.metrics.keyword_lenient) of an exact, ready str: whether a word
 * of fold_accents(text) (a run of \w characters) is a number word, `fold` being fold_accents.
 * 1, 0, 2 when the text has a character beyond the BMP or the words are not ASCII letters in
 * lower case (the Python code decides), or -1. */
static int names_number(PyObject *text, PyObject *words, PyObject *fold)
{
    if (number_words_read(words) < 0)
        return -1;
    if (words_other)
        return 2;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text), found = 0;
    const void *data = PyUnicode_DATA(text);
    Word w = {.length = 0, .plain = 1};
    if (FOLDED_BY == NULL)
        FOLDED_BY = Py_NewRef(fold);
    int table = fold == FOLDED_BY; /* else each character's fold is asked for, not kept */
    for (Py_ssize_t i = 0; i < n && found == 0; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128) {
            found = word_add(&w, c, 1);
            continue;
        }
        if (c > 0xFFFF)
            return 2;
        PyObject *folded = table ? FOLDED[c] : NULL, *held = NULL;
        if (folded == NULL) { /* once per character: fold_accents(chr(c)) */
            PyObject *one = PyUnicode_FromOrdinal((int)c);
            folded = one == NULL ? NULL : PyObject_CallOneArg(fold, one);
            Py_XDECREF(one);
            if (folded == NULL)
                return -1;
            if (!PyUnicode_CheckExact(folded)) {
                Py_DECREF(folded);
                return 2;
            }
            /* fold ran Python code, which may have read other number words (another call,
             * another thread): the tables read again */
            if (words != words_seen) {
                int read = number_words_read(words);
                if (read < 0 || words_other) {
                    Py_DECREF(folded);
                    return read < 0 ? -1 : 2;
                }
            }
            if (!table)
                held = folded;
            else if (FOLDED[c] == NULL) /* the table holds it */
                FOLDED[c] = folded;
            else { /* another thread stored the same meanwhile */
                Py_DECREF(folded);
                folded = FOLDED[c];
            }
        }
        Py_ssize_t m = PyUnicode_GET_LENGTH(folded);
        int fkind = PyUnicode_KIND(folded);
        const void *fdata = PyUnicode_DATA(folded);
        for (Py_ssize_t j = 0; j < m && found == 0; j++)
            found = word_add(&w, PyUnicode_READ(fkind, fdata, j), 0);
        Py_XDECREF(held);
    }
    if (found == 0)
        found = word_end(&w);
    return found;
}

/* The canonical key of a non-ASCII key (an exact, ready str) whose fold_accents is ASCII in
 * lower case once its dashes are hyphens, from its characters' folds in FOLDED (those
 * names_number met, when they are fold_accents'): the canonical key of that fold (plain_canonical; _canonical folds such a
 * key, then applies to it the rules of its fold). NULL without an error when the Python code
 * must compute it (a character not met yet, or beyond the BMP, whose fold is not ASCII or has
 * a capital letter: "ℌ" is "H"), NULL with one on error. */
static PyObject *folded_canonical(PyObject *key, Tables *t)
{
    if (FOLDED_BY == NULL || t->fold != FOLDED_BY)
        return NULL; /* the table holds another fold's characters */
    Py_ssize_t n = PyUnicode_GET_LENGTH(key), m = 0;
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    char k[NUMBER_KEY_MAX + 1];
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128 || (c >= 0x2010 && c <= 0x2015) || c == 0x2212) { /* (dashes: "-") */
            if (m == NUMBER_KEY_MAX)
                return NULL;
            k[m++] = (char)(c >= 128 ? '-' : c >= 'A' && c <= 'Z' ? c + 32 : c);
            continue;
        }
        PyObject *folded = c <= 0xFFFF ? FOLDED[c] : NULL;
        if (folded == NULL || !PyUnicode_IS_ASCII(folded))
            return NULL;
        Py_ssize_t f = PyUnicode_GET_LENGTH(folded);
        const Py_UCS1 *d = PyUnicode_1BYTE_DATA(folded);
        for (Py_ssize_t j = 0; j < f; j++) {
            if (m == NUMBER_KEY_MAX || (d[j] >= 'A' && d[j] <= 'Z'))
                return NULL;
            k[m++] = (char)d[j];
        }
    }
    if (m == 0)
        return NULL;
    PyObject *folded = PyUnicode_DecodeASCII(k, m, NULL);
    if (folded == NULL)
        return NULL;
    PyObject *canonical = plain_canonical(folded, t);
    Py_DECREF(folded);
    return canonical;
}

/* names_number(text, words, fold): names_number for the tests: a bool, or None when the Python
 * code decides. */
static PyObject *py_names_number(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyUnicode_CheckExact(args[0]) || !PyFrozenSet_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "names_number(text: str, words: frozenset, fold)");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(args[0]) < 0)
        return NULL;
#endif
    int found = names_number(args[0], args[1], args[2]);
    if (found < 0)
        return NULL;
    if (found == 2)
        Py_RETURN_NONE;
    return PyBool_FromLong(found);
}

/* Whether `type` is a tuple subclass whose instances are laid out as tuples (a named tuple). */
static int tuple_like(PyObject *type)
{
    if (!PyType_Check(type))
        return 0;
    PyTypeObject *t = (PyTypeObject *)type;
    return PyType_IsSubtype(t, &PyTuple_Type) && t->tp_basicsize == PyTuple_Type.tp_basicsize &&
           t->tp_itemsize == PyTuple_Type.tp_itemsize;
}

/* tuple.__new__(type, fields) for an exact tuple `fields` (held by the caller). */
static PyObject *new_reference(PyObject *type, PyObject *fields)
{
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    PyObject *made = ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, n);
    for (Py_ssize_t i = 0; made != NULL && i < n; i++)
        PyTuple_SET_ITEM(made, i, Py_NewRef(PyTuple_GET_ITEM(fields, i)));
    return made;
}

/* A new tuple of n times `item` ((item,) * n). */
static PyObject *repeated(PyObject *item, Py_ssize_t n)
{
    PyObject *made = PyTuple_New(n);
    for (Py_ssize_t i = 0; made != NULL && i < n; i++)
        PyTuple_SET_ITEM(made, i, Py_NewRef(item));
    return made;
}

/* "".join(keys).isalpha() for a tuple of exact, ready str. */
static int joined_alpha(PyObject *keys)
{
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        total += n;
        if (PyUnicode_IS_ASCII(key)) {
            const Py_UCS1 *s = PyUnicode_1BYTE_DATA(key);
            for (Py_ssize_t j = 0; j < n; j++)
                if (!((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
                    return 0;
        }
        else {
            int kind = PyUnicode_KIND(key);
            const void *data = PyUnicode_DATA(key);
            for (Py_ssize_t j = 0; j < n; j++)
                if (!Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, j)))
                    return 0;
        }
    }
    return total > 0;
}

/* Whether an exact, ready str has a character of _pieces' separators ("-", "/", " ", U+2010
 * to U+2015: the pattern _PARTS). */
static int has_separator(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '-' || c == '/' || c == ' ' || (c >= 0x2010 && c <= 0x2015))
            return 1;
    }
    return 0;
}

/* conflict_kind(key, english) of an exact, ready str: a new reference (a str or None), or
 * NULL on error. ASCII keys and keys without a digit here; the others by conflict_kind. */
static PyObject *kind_of(PyObject *key, PyObject **state)
{
    int english = state[R_ENGLISH] == Py_True;
    if (has_digit(key)) {
        if (!PyUnicode_IS_ASCII(key)) /* other digits: the patterns of the Python code */
            return PyObject_CallFunctionObjArgs(state[R_KIND], key, state[R_ENGLISH], NULL);
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(key);
        Py_ssize_t n = PyUnicode_GET_LENGTH(key), i = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i < n) /* not a plain number: a number */
            return Py_NewRef(KIND_NAME[2]);
        if (n == 4 && (s[0] == '1' || s[0] == '2'))
            return Py_NewRef(KIND_NAME[0]);
        return Py_NewRef(KIND_NAME[n <= 2 ? 1 : 2]);
    }
    if (!english)
        return Py_NewRef(Py_None);
    PyObject *month = PyDict_GetItemWithError(state[R_MONTHS], key); /* exact str */
    if (month == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    return Py_NewRef(month);
}

/* The fields of a reference's keys and canonical keys (tuples of exact, ready str), as
 * LenientMatcher._prepare builds them: a new tuple, or NULL on error. */
static PyObject *reference_fields(PyObject *keys, PyObject *canonical, PyObject **state)
{
    Py_ssize_t n = PyTuple_GET_SIZE(canonical), made = PyTuple_GET_SIZE(state[R_NOT_NUMERIC]);
    int english = state[R_ENGLISH] == Py_True;
    PyObject *numeric = NULL, *pieces = NULL, *kinds = NULL, *fields = NULL;
    if (joined_alpha(canonical)) { /* words: no digit, no part; a month is a kind */
        if (n >= made) {
            numeric = repeated(Py_False, n);
            pieces = PyTuple_New(0);
            if (pieces != NULL)
                Py_SETREF(pieces, repeated(pieces, n));
            kinds = repeated(Py_None, n);
        }
        else {
            numeric = Py_NewRef(PyTuple_GET_ITEM(state[R_NOT_NUMERIC], n));
            pieces = Py_NewRef(PyTuple_GET_ITEM(state[R_NO_PIECES], n));
            kinds = Py_NewRef(PyTuple_GET_ITEM(state[R_NO_KINDS], n));
        }
        if (numeric == NULL || pieces == NULL || kinds == NULL)
            goto done;
        int months = 0;
        for (Py_ssize_t i = 0; english && !months && i < n; i++)
            if ((months = PyDict_Contains(state[R_MONTHS], PyTuple_GET_ITEM(canonical, i))) < 0)
                goto done;
        if (months) { /* tuple(map(_MONTH_KINDS.get, canonical)) */
            Py_SETREF(kinds, PyTuple_New(n));
            for (Py_ssize_t i = 0; kinds != NULL && i < n; i++) {
                PyObject *kind = PyDict_GetItemWithError(state[R_MONTHS],
                                                         PyTuple_GET_ITEM(canonical, i));
                if (kind == NULL && PyErr_Occurred())
                    goto done;
                PyTuple_SET_ITEM(kinds, i, Py_NewRef(kind == NULL ? Py_None : kind));
            }
            if (kinds == NULL)
                goto done;
        }
    }
    else {
        numeric = PyTuple_New(n);
        pieces = PyTuple_New(n);
        kinds = PyTuple_New(n);
        if (numeric == NULL || pieces == NULL || kinds == NULL)
            goto done;
        /* the tuples are filled in order: a failure leaves NULL items, which dealloc skips */
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *ck = PyTuple_GET_ITEM(canonical, i);
            PyTuple_SET_ITEM(numeric, i, Py_NewRef(has_digit(ck) ? Py_True : Py_False));
            PyObject *parts = has_separator(ck)
                                  ? PyObject_CallFunctionObjArgs(state[R_PIECES], ck,
                                                                 state[R_ENGLISH], NULL)
                                  : PyTuple_New(0);
            if (parts == NULL)
                goto done;
            PyTuple_SET_ITEM(pieces, i, parts);
            PyObject *kind = kind_of(ck, state);
            if (kind == NULL)
                goto done;
            PyTuple_SET_ITEM(kinds, i, kind);
        }
    }
    fields = PyTuple_Pack(5, keys, canonical, numeric, pieces, kinds);
done:
    Py_XDECREF(numeric);
    Py_XDECREF(pieces);
    Py_XDECREF(kinds);
    return fields;
}

/* Whether the state holds what the matcher builds (the types the code reads). */
static int reference_state_ok(PyObject **state)
{
    PyObject *nn = state[R_NOT_NUMERIC], *np = state[R_NO_PIECES], *nk = state[R_NO_KINDS];
    return tuple_like(state[R_TYPE]) && tuple_like(state[R_ANALYSIS]) &&
           PyFrozenSet_CheckExact(state[R_NUMBER_WORDS]) && PyTuple_CheckExact(nn) &&
           PyTuple_CheckExact(np) && PyTuple_CheckExact(nk) &&
           PyTuple_GET_SIZE(np) == PyTuple_GET_SIZE(nn) &&
           PyTuple_GET_SIZE(nk) == PyTuple_GET_SIZE(nn) && PyDict_CheckExact(state[R_MONTHS]) &&
           PyDict_CheckExact(state[R_CACHE]) && PyLong_CheckExact(state[R_SIZE]) &&
           PyBool_Check(state[R_ENGLISH]) && PyDict_Check(state[R_MEMO]) &&
           TUPLE_OF(state[R_TABLES], 5);
}

/* Whether a list or tuple holds exact, ready str only. */
static int all_str(PyObject *items)
{
    for (Py_ssize_t i = 0; i < Py_SIZE(items); i++) {
        PyObject *item = PyList_CheckExact(items) ? PyList_GET_ITEM(items, i)
                                                  : PyTuple_GET_ITEM(items, i);
        if (!PyUnicode_CheckExact(item))
            return 0;
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(item) < 0) {
            PyErr_Clear();
            return 0;
        }
#endif
    }
    return 1;
}

/* The keywords that _keywords_of chooses for a text without keywords or that names a number
 * word, from its keywords and every key (lists or tuples of str): with English number words
 * among its keys, the merged keys that are keywords, number words or not keys, then the
 * keywords that are not keys; when there is none, every key, once. A new reference (keywords
 * itself when they stand), None when the Python code decides (other types), NULL on error. */
static PyObject *other_keywords(PyObject *keywords, PyObject *all, int english, PyObject *tables)
{
    if (!(PyList_CheckExact(all) || PyTuple_CheckExact(all)) || !all_str(all) ||
        !all_str(keywords) || !TUPLE_OF(tables, 5))
        Py_RETURN_NONE;
    PyObject *words = PyTuple_GET_ITEM(tables, 0), *values = PyTuple_GET_ITEM(tables, 3);
    PyObject *items = PySequence_Fast(all, ""), *chosen = NULL, *kept = NULL, *in_all = NULL;
    PyObject *merged = NULL, *found = NULL;
    if (items == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject **item = PySequence_Fast_ITEMS(items);
    int number = 0;
    if (english && n > 0) {
        if (!PyDict_CheckExact(words) || !PyDict_CheckExact(values)) {
            chosen = Py_NewRef(Py_None);
            goto done;
        }
        for (Py_ssize_t i = 0; number == 0 && i < n; i++)
            number = PyDict_Contains(words, item[i]);
        if (number < 0)
            goto done;
    }
    if (number) { /* spaCy's stopwords: "four" can be the whole answer, "twenty four" one */
        PyObject *call[2] = {all, values};
        if ((kept = PySet_New(keywords)) == NULL || (in_all = PySet_New(all)) == NULL ||
            (merged = py_merge_number_words(NULL, call, 2)) == NULL ||
            (found = PyDict_New()) == NULL)
            goto done;
        if (merged == Py_None) {
            chosen = Py_NewRef(Py_None);
            goto done;
        }
        Py_SETREF(merged, PySequence_Fast(merged, ""));
        if (merged == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(merged); i++) {
            PyObject *t = PySequence_Fast_ITEMS(merged)[i];
            int in = PySet_Contains(kept, t);
            if (in == 0)
                in = PyDict_Contains(words, t);
            if (in == 0) {
                int known = PySet_Contains(in_all, t);
                in = known < 0 ? -1 : !known;
            }
            if (in < 0 || (in && PyDict_SetItem(found, t, Py_None) < 0))
                goto done;
        }
        for (Py_ssize_t i = 0; i < Py_SIZE(keywords); i++) {
            PyObject *k = PyList_CheckExact(keywords) ? PyList_GET_ITEM(keywords, i)
                                                      : PyTuple_GET_ITEM(keywords, i);
            int in = PySet_Contains(in_all, k);
            if (in < 0 || (!in && PyDict_SetItem(found, k, Py_None) < 0))
                goto done;
        }
        chosen = PySequence_List(found);
    }
    else
        chosen = Py_NewRef(keywords);
    if (chosen != NULL && Py_SIZE(chosen) == 0) { /* every key, once */
        Py_XSETREF(found, PyDict_New());
        for (Py_ssize_t i = 0; found != NULL && i < n; i++)
            if (PyDict_SetItem(found, item[i], Py_None) < 0)
                Py_CLEAR(found);
        Py_SETREF(chosen, found == NULL ? NULL : PySequence_List(found));
    }
done:
    Py_DECREF(items);
    Py_XDECREF(kept);
    Py_XDECREF(in_all);
    Py_XDECREF(merged);
    Py_XDECREF(found);
    return chosen;
}

/* A reference that is not cached: the new ReferenceKeys (a new reference) or NULL. */
static PyObject *reference_new(PyObject **state, PyObject *matcher, PyObject *reference)
{
    PyObject *text = NULL, *analysis = NULL, *keys = NULL, *canonical = NULL, *fields = NULL;
    PyObject *result = NULL;
    Py_ssize_t size = PyLong_AsSsize_t(state[R_SIZE]);
    if (size == -1 && PyErr_Occurred())
        return NULL;
    text = PyUnicode_IS_ASCII(reference) ? Py_NewRef(reference)
                                         : PyObject_CallOneArg(state[R_REPAIR], reference);
    if (text == NULL || (analysis = PyObject_CallOneArg(state[R_ANALYZE], text)) == NULL)
        goto done;
    /* the keywords (a list or tuple of str): the analysis' own when there are some and the
     * text names no number word, else as _keywords_of chooses them */
    int common = (PyObject *)Py_TYPE(analysis) == state[R_ANALYSIS] &&
                 PyTuple_GET_SIZE(analysis) == 2 && PyUnicode_CheckExact(text);
    PyObject *keywords = common ? PyTuple_GET_ITEM(analysis, 0) : NULL, *chosen = NULL;
    common = common && (PyList_CheckExact(keywords) || PyTuple_CheckExact(keywords));
#if PY_VERSION_HEX < 0x030C0000
    if (common && PyUnicode_READY(text) < 0)
        goto done;
#endif
    int named = 0;
    if (common && Py_SIZE(keywords) > 0 && state[R_ENGLISH] == Py_True) {
        /* whether the text names a number word changes the keywords only when one of its
         * keys is a number word (_keywords_of keeps them otherwise): looked for first */
        PyObject *all = PyTuple_GET_ITEM(analysis, 1);
        PyObject *words = PyTuple_GET_ITEM(state[R_TABLES], 0);
        named = 1;
        if ((PyList_CheckExact(all) || PyTuple_CheckExact(all)) && all_str(all) &&
            PyDict_CheckExact(words)) {
            named = 0;
            for (Py_ssize_t i = 0; named == 0 && i < Py_SIZE(all); i++)
                named = PyDict_Contains(words, PyList_CheckExact(all) ? PyList_GET_ITEM(all, i)
                                                                      : PyTuple_GET_ITEM(all, i));
        }
        if (named > 0)
            named = names_number(text, state[R_NUMBER_WORDS], state[R_FOLD]);
        if (named == 2) { /* the Python code */
            PyObject *found = PyObject_CallOneArg(state[R_NAMES_NUMBER], text);
            named = found == NULL ? -1 : PyObject_IsTrue(found);
            Py_XDECREF(found);
        }
        if (named < 0)
            goto done;
    }
    if (common && Py_SIZE(keywords) > 0 && !named)
        chosen = Py_NewRef(keywords);
    else if (common) {
        chosen = other_keywords(keywords, PyTuple_GET_ITEM(analysis, 1),
                                state[R_ENGLISH] == Py_True, state[R_TABLES]);
        if (chosen == NULL)
            goto done;
        if (chosen == Py_None) /* the Python code */
            Py_CLEAR(chosen);
    }
    common = chosen != NULL;
    if (common)
        keys = PySequence_Tuple(chosen);
    Py_XDECREF(chosen);
    if (common && keys == NULL)
        goto done;
    common = common && all_ready_str(keys);
    if (common) {
        canonical = canonical_keys_of(keys, state[R_MEMO], state[R_TABLES], 0, NULL, NULL);
        if (canonical == NULL)
            goto done;
        int equal = PyObject_RichCompareBool(canonical, keys, Py_EQ);
        if (equal < 0)
            goto done;
        if (equal) /* one tuple fewer kept */
            Py_SETREF(canonical, Py_NewRef(keys));
        common = PyTuple_CheckExact(canonical) && all_ready_str(canonical);
    }
    if (!common) { /* number words, no keyword, other types: the Python code */
        result = PyObject_CallFunctionObjArgs(state[R_PREPARE], matcher, reference, text,
                                              analysis, NULL);
        goto done;
    }
    if ((fields = reference_fields(keys, canonical, state)) == NULL)
        goto done;
    PyObject *cache = state[R_CACHE]; /* bounded, the entry stored whole */
    if (PyDict_GET_SIZE(cache) >= size)
        PyDict_Clear(cache);
    if (PyDict_SetItem(cache, reference, fields) < 0)
        goto done;
    result = new_reference(state[R_TYPE], fields);
done:
    Py_XDECREF(text);
    Py_XDECREF(analysis);
    Py_XDECREF(keys);
    Py_XDECREF(canonical);
    Py_XDECREF(fields);
    return result;
}

static PyObject *py_reference(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !TUPLE_OF(args[0], R_N) ||
        !reference_state_ok(&PyTuple_GET_ITEM(args[0], 0))) {
        PyErr_SetString(PyExc_TypeError, "reference(state, matcher, reference): state must be "
                                         "the tuple LenientMatcher builds");
        return NULL;
    }
    PyObject *reference = args[2];
    if (!PyUnicode_CheckExact(reference))
        Py_RETURN_NONE;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(reference) < 0)
        return NULL;
#endif
    if (KIND_NAME[0] == NULL) {
        const char *names[3] = {"year", "small", "number"};
        for (int i = 0; i < 3; i++)
            if ((KIND_NAME[i] = PyUnicode_InternFromString(names[i])) == NULL)
                return NULL;
    }
    PyObject *state = Py_NewRef(args[0]), *matcher = Py_NewRef(args[1]);
    Py_INCREF(reference); /* Python code may run: the arguments are held */
    PyObject **items = &PyTuple_GET_ITEM(state, 0), *result;
    PyObject *cached = PyDict_GetItemWithError(items[R_CACHE], reference); /* exact str */
    if (cached != NULL) { /* ReferenceKeys(*cached) */
        Py_INCREF(cached);
        result = PyTuple_CheckExact(cached) ? new_reference(items[R_TYPE], cached)
                                            : Py_NewRef(Py_None);
        Py_DECREF(cached);
    }
    else
        result = PyErr_Occurred() ? NULL : reference_new(items, matcher, reference);
    Py_DECREF(reference);
    Py_DECREF(matcher);
    Py_DECREF(state);
    return result;
}

/* ---- end of prepared references --------------------------------------------------------- */

/* Interned names: the info dict's keys and the attributes read. */
enum {
    K_MATCHED_KEYWORDS, K_TOTAL_KEYWORDS, K_MATCHED, K_MISSING, K_INPUT_KEYWORDS,
    K_OUTPUT_KEYWORDS, K_PRECISION, K_RECALL, K_FMEASURE, K_COUNTS, K_PARTIAL, K_NEAR,
    K_CONFLICTS, K_MATCHED_WEIGHT, K_TOTAL_WEIGHT, K_WEIGHTS, K_ECHOED, K_COVERAGE, K_EXTRA,
    K_OVERLAP, K_REFERENCE, K_OUTPUT, A_KEYS, A_CANONICAL, A_KEYWORDS, A_CONFLICT_PENALTY,
    A_EXTRA_PENALTY, A_AGAINST, A_PARTS, A_EVERY, M_FOLD_TEXTS, M_EXTEND, M_INSIDE, M_FORMS,
    M_PREFIX_MATCH, N_NAMES
};
static const char *const NAME_TEXT[N_NAMES] = {
    "matched_keywords", "total_keywords", "matched", "missing", "input_keywords",
    "output_keywords", "precision", "recall", "fmeasure", "counts", "partial", "near",
    "conflicts", "matched_weight", "total_weight", "weights", "echoed", "coverage", "extra",
    "overlap", "reference", "output", "_keys", "canonical", "keywords", "conflict_penalty",
    "extra_penalty", "against", "_parts", "_every", "_fold_texts", "_extend", "_inside",
    "_every_forms", "_prefix_match",
};
static PyObject *NAME[N_NAMES];

/* The rules' sizes (lexeval.metrics.keyword_lenient's _SUBSTRING_MIN, _PREFIX_MIN and
 * _PREFIX_SHARE; the tests compare both paths). */
#define SUBSTRING_MIN 4
#define PREFIX_MIN 5
#define PREFIX_SHARE 0.8

/* ---- the rules of missed keys ---------------------------------------------------------------- */

/* Whether an exact, ready str has a decimal digit (re's \d: Unicode category Nd). */
static int has_digit(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) {
        const Py_UCS1 *c = PyUnicode_1BYTE_DATA(s);
        for (Py_ssize_t i = 0; i < n; i++)
            if (c[i] >= '0' && c[i] <= '9')
                return 1;
        return 0;
    }
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, data, i)))
            return 1;
    return 0;
}

static int str_equal(PyObject *a, PyObject *b);

/* Whether every item of a tuple is an exact, ready str. */
static int all_ready_str(PyObject *tuple)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, i);
        if (!PyUnicode_CheckExact(item))
            return 0;
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(item) < 0) {
            PyErr_Clear();
            return 0;
        }
#endif
    }
    return 1;
}

/* without_digits(keys): the keys (a tuple of str) that have no decimal digit, in order; None
 * when keys is not a tuple of exact str. */
static PyObject *py_without_digits(PyObject *module, PyObject *keys)
{
    (void)module;
    if (!PyTuple_CheckExact(keys) || !all_ready_str(keys))
        Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_GET_SIZE(keys), kept = 0;
    PyObject *result = PyTuple_New(n);
    if (result == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        if (!has_digit(key))
            PyTuple_SET_ITEM(result, kept++, Py_NewRef(key));
    }
    if (kept < n && _PyTuple_Resize(&result, kept) < 0)
        return NULL;
    return result;
}

/* kind_candidates(keys, months): the distinct keys (a tuple of str, in order) that have a
 * decimal digit or are in `months` (a frozenset, or None); None when keys is not a tuple of
 * exact str. */
static PyObject *py_kind_candidates(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "kind_candidates(keys, months) takes 2 arguments");
        return NULL;
    }
    PyObject *keys = args[0], *months = args[1];
    if (months != Py_None && !PyFrozenSet_CheckExact(months)) {
        PyErr_SetString(PyExc_TypeError, "months must be a frozenset or None");
        return NULL;
    }
    if (!PyTuple_CheckExact(keys) || !all_ready_str(keys))
        Py_RETURN_NONE;
    PyObject *result = PyList_New(0);
    PyObject *seen = PySet_New(NULL); /* the keys in result: linear in long outputs */
    if (seen == NULL)
        Py_CLEAR(result);
    for (Py_ssize_t i = 0; result != NULL && i < PyTuple_GET_SIZE(keys); i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        int wanted = has_digit(key);
        if (!wanted && months != Py_None)
            wanted = PySet_Contains(months, key); /* exact str: no Python code runs */
        if (wanted > 0) {
            int found = PySet_Contains(seen, key);
            if (found < 0 || (!found && (PySet_Add(seen, key) < 0 ||
                                         PyList_Append(result, key) < 0)))
                Py_CLEAR(result);
        }
        else if (wanted < 0)
            Py_CLEAR(result);
    }
    Py_XDECREF(seen);
    return result;
}

/* Whether `other` (an exact, ready str) shares with `key` a prefix of at least `least`
 * characters (and begins with key's first min(least, len(key))), has at least `least`
 * characters and no digit, and shares `share` of the longer of the two (rule 3). */
static int prefix_close_as(PyObject *key, PyObject *other, Py_ssize_t least, double share,
                           int joined);

static int prefix_close(PyObject *key, PyObject *other, Py_ssize_t least, double share)
{
    return prefix_close_as(key, other, least, share, 0);
}

/* prefix_close of `other` without its hyphens when `joined` ("six-year" as "sixyear"). */
static int prefix_close_as(PyObject *key, PyObject *other, Py_ssize_t least, double share,
                           int joined)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key), m = PyUnicode_GET_LENGTH(other), length = m;
    int kk = PyUnicode_KIND(key), ko = PyUnicode_KIND(other);
    const void *dk = PyUnicode_DATA(key), *dother = PyUnicode_DATA(other);
    if (joined)
        for (Py_ssize_t j = 0; j < m; j++)
            length -= PyUnicode_READ(ko, dother, j) == '-';
    Py_ssize_t head = n < least ? n : least;
    if (length < head)
        return 0;
    Py_ssize_t common = 0, j = 0;
    while (common < n && j < m) {
        Py_UCS4 c = PyUnicode_READ(ko, dother, j++);
        if (joined && c == '-')
            continue;
        if (c != PyUnicode_READ(kk, dk, common))
            break;
        common++;
    }
    if (common < head || length < least || has_digit(other))
        return 0;
    return (double)common >= share * (double)(n > length ? n : length);
}

/* prefix_match(key, keys, every, least, share): whether a key of the dicts `keys` or `every`
 * is prefix_close to `key` (OutputKeys._prefix_match's answer, by a scan); None when a key
 * is not an exact str. */
static PyObject *py_prefix_match(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5 || !PyUnicode_CheckExact(args[0]) || !PyDict_CheckExact(args[1]) ||
        !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "prefix_match(key: str, keys: dict, every: dict, least, share)");
        return NULL;
    }
    Py_ssize_t least = PyLong_AsSsize_t(args[3]);
    if (least == -1 && PyErr_Occurred())
        return NULL;
    double share = PyFloat_AsDouble(args[4]);
    if (share == -1.0 && PyErr_Occurred())
        return NULL;
    PyObject *key = args[0];
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(key) < 0)
        return NULL;
#endif
    for (int d = 1; d <= 2; d++) {
        Py_ssize_t pos = 0;
        PyObject *other, *value;
        /* no Python code runs during the scan: the dicts cannot change */
        while (PyDict_Next(args[d], &pos, &other, &value)) {
            if (!PyUnicode_CheckExact(other))
                Py_RETURN_NONE;
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(other) < 0)
                return NULL;
#endif
            if (prefix_close(key, other, least, share))
                Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

/* What the rules read of one prepared output (new references, released by output_free). */
typedef struct {
    PyObject *out, *keys, *parts, *every, *texts;
    PyObject *forms;      /* out._every_forms(), when every is not built */
    Py_ssize_t long_text; /* texts at least this long are searched by out._inside */
} Output;

static void output_free(Output *o)
{
    Py_XDECREF(o->forms);
    Py_XDECREF(o->keys);
    Py_XDECREF(o->parts);
    Py_XDECREF(o->every);
    Py_XDECREF(o->texts);
}

/* Whether `key` or `plain` (exact str) is a key of the dict d: 1, 0 or -1. */
static int either_in(PyObject *d, PyObject *key, PyObject *plain)
{
    int in = PyDict_Contains(d, key);
    if (in == 0 && plain != key)
        in = PyDict_Contains(d, plain);
    return in;
}

/* out._every once out._extend() has built it: a new reference into o->every. 0 or -1. */
static int output_every(Output *o, int build)
{
    if (o->every != NULL)
        return 0;
    PyObject *every = build ? PyObject_CallMethodNoArgs(o->out, NAME[M_EXTEND])
                            : PyObject_GetAttr(o->out, NAME[A_EVERY]);
    if (every == NULL)
        return -1;
    if (every == Py_None && !build) {
        Py_DECREF(every);
        return 0;
    }
    if (!PyDict_CheckExact(every)) {
        Py_DECREF(every);
        PyErr_SetString(PyExc_TypeError, "OutputKeys' stopword-keeping keys must be a dict");
        return -1;
    }
    o->every = every;
    return 0;
}

static PyObject *output_texts(PyObject *out);

/* The substring rule (OutputKeys._inside) for a key of 4+ characters: 1, 0 or -1. */
static int output_inside(Output *o, PyObject *key)
{
    if (!has_digit(key) && o->texts == NULL) {
        PyObject *texts = output_texts(o->out);
        if (texts == NULL)
            return -1;
        if (!TUPLE_OF(texts, 2) || !PyUnicode_CheckExact(PyTuple_GET_ITEM(texts, 0)) ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(texts, 1))) {
            Py_DECREF(texts);
            PyErr_SetString(PyExc_TypeError, "OutputKeys._texts() must be two str");
            return -1;
        }
        o->texts = texts;
    }
    if (has_digit(key) || PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(o->texts, 0)) >= o->long_text) {
        /* whole numbers, or a long text's index: the Python code */
        PyObject *found = PyObject_CallMethodOneArg(o->out, NAME[M_INSIDE], key);
        if (found == NULL)
            return -1;
        int in = PyObject_IsTrue(found);
        Py_DECREF(found);
        return in;
    }
    for (int t = 0; t < 2; t++) {
        int in = PyUnicode_Contains(PyTuple_GET_ITEM(o->texts, t), key);
        if (in != 0)
            return in;
    }
    return 0;
}

/* Whether `s` (an exact str) is `form` (an exact str with a hyphen) without its hyphens. */
static int joined_equal(PyObject *form, PyObject *s)
{
    Py_ssize_t m = PyUnicode_GET_LENGTH(form), n = PyUnicode_GET_LENGTH(s), i = 0;
    int kf = PyUnicode_KIND(form), ks = PyUnicode_KIND(s);
    const void *df = PyUnicode_DATA(form), *ds = PyUnicode_DATA(s);
    for (Py_ssize_t j = 0; j < m; j++) {
        Py_UCS4 c = PyUnicode_READ(kf, df, j);
        if (c == '-')
            continue;
        if (i == n || c != PyUnicode_READ(ks, ds, i))
            return 0;
        i++;
    }
    return i == n;
}

/* Outputs of at most this many stopword-keeping keys are scanned (no dict built for them);
 * longer ones build the dict once. */
#define FORMS_SCANNED 64

/* The stopword-keeping keys as out._every_forms() gives them (an exact tuple of exact, ready
 * str: the canonical forms in order, before their hyphen-less forms), unless out._extend()
 * has built their dict: 0 (o->forms or o->every set) or -1. */
static int output_forms(Output *o)
{
    if (o->every != NULL || o->forms != NULL)
        return 0;
    if (output_every(o, 0) < 0)
        return -1;
    if (o->every != NULL)
        return 0;
    PyObject *forms = PyObject_CallMethodNoArgs(o->out, NAME[M_FORMS]);
    if (forms == NULL)
        return -1;
    if (!PyTuple_CheckExact(forms) || !all_ready_str(forms)) {
        Py_DECREF(forms);
        PyErr_SetString(PyExc_TypeError, "OutputKeys._every_forms() must be a tuple of str");
        return -1;
    }
    if (PyTuple_GET_SIZE(forms) > FORMS_SCANNED) {
        /* a long output: its dict (out._extend(), built once) answers each missing key in
         * constant time, where a scan of the forms per key would be quadratic */
        Py_DECREF(forms);
        return output_every(o, 1);
    }
    o->forms = forms;
    return 0;
}

/* Whether `key` or `plain` is one of the stopword-keeping keys (a form, or a form with a
 * hyphen without its hyphens): 1, 0 or -1. */
static int forms_contain(Output *o, PyObject *key, PyObject *plain)
{
    if (o->every != NULL)
        return either_in(o->every, key, plain);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o->forms); i++) {
        PyObject *form = PyTuple_GET_ITEM(o->forms, i);
        if (str_equal(form, key) || str_equal(form, plain))
            return 1;
        if (has_dash(form) && (joined_equal(form, key) || joined_equal(form, plain)))
            return 1;
    }
    return 0;
}

/* Rule 3 over the output's keys and its stopword-keeping keys: 1, 0 or -1. A long output's
 * keys go to the Python code (out._prefix_match: its keys sorted once, a bisection per key),
 * where a scan per missing key would be quadratic. */
static int output_prefix(Output *o, PyObject *key)
{
    if (PyDict_GET_SIZE(o->keys) + (o->every != NULL ? PyDict_GET_SIZE(o->every) : 0) >
        FORMS_SCANNED) {
        PyObject *found = PyObject_CallMethodOneArg(o->out, NAME[M_PREFIX_MATCH], key);
        if (found == NULL)
            return -1;
        int in = PyObject_IsTrue(found);
        Py_DECREF(found);
        return in;
    }
    if (o->every == NULL) { /* the forms, and those with a hyphen without them */
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o->forms); i++) {
            PyObject *form = PyTuple_GET_ITEM(o->forms, i);
            if (prefix_close(key, form, PREFIX_MIN, PREFIX_SHARE) ||
                (has_dash(form) && prefix_close_as(key, form, PREFIX_MIN, PREFIX_SHARE, 1)))
                return 1;
        }
    }
    PyObject *dicts[2] = {o->keys, o->every};
    for (int d = 0; d < 2 && dicts[d] != NULL; d++) {
        Py_ssize_t pos = 0;
        PyObject *other, *value;
        while (PyDict_Next(dicts[d], &pos, &other, &value)) { /* no Python code runs */
            if (!PyUnicode_CheckExact(other)) {
                PyErr_SetString(PyExc_TypeError, "OutputKeys' keys must be str");
                return -1;
            }
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(other) < 0)
                return -1;
#endif
            if (prefix_close(key, other, PREFIX_MIN, PREFIX_SHARE))
                return 1;
        }
    }
    return 0;
}

/* Rules 1 to 3 (OutputKeys._find) for an exact, ready str and its form without hyphens. */
static int output_find(Output *o, PyObject *key, PyObject *plain)
{
    int found = either_in(o->keys, key, plain);
    if (found != 0)
        return found;
    if (output_every(o, 0) < 0)
        return -1;
    if (o->every != NULL && (found = either_in(o->every, key, plain)) != 0)
        return found; /* the stopword-keeping keys, once built */
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (n >= SUBSTRING_MIN && (found = output_inside(o, key)) != 0)
        return found; /* glued words and citation marks: "Massachusetts1", "byJohann" */
    if (output_forms(o) < 0)
        return -1;
    if ((found = forms_contain(o, key, plain)) != 0)
        return found; /* stopwords kept: "four", "no" */
    if (n < PREFIX_MIN || has_digit(key))
        return 0;
    return output_prefix(o, key);
}

/* OutputKeys.has(key) for an exact, ready str: rules 1 to 3, or a part of a hyphenated output
 * key ("25" in "25th-largest"). 1, 0 or -1. */
static int output_has(Output *o, PyObject *key)
{
    PyObject *plain = key;
    if (PyUnicode_FindChar(key, '-', 0, PyUnicode_GET_LENGTH(key), 1) >= 0 &&
        (plain = PyUnicode_Replace(key, DASH, EMPTY, -1)) == NULL)
        return -1;
    int found = output_find(o, key, plain);
    if (plain != key)
        Py_DECREF(plain);
    if (found == 0)
        found = PySequence_Contains(o->parts, key);
    return found;
}

/* Reads out's keys and parts into o: 0, 1 when they are not of the types OutputKeys builds,
 * or -1. */
static int output_init(Output *o, PyObject *out, Py_ssize_t long_text)
{
    memset(o, 0, sizeof(*o));
    o->out = out;
    o->long_text = long_text;
    if ((o->keys = PyObject_GetAttr(out, NAME[A_KEYS])) == NULL ||
        (o->parts = PyObject_GetAttr(out, NAME[A_PARTS])) == NULL)
        return -1;
    if (!PyDict_CheckExact(o->keys) ||
        !(PyDict_CheckExact(o->parts) || PyFrozenSet_CheckExact(o->parts)))
        return 1;
    return 0;
}

/* has(out, key, long_text): OutputKeys.has(key) by the compiled rules (for the tests), or None
 * when out's keys are not of the types OutputKeys builds or key is not an exact str. */
static PyObject *py_has(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "has(out, key, long_text) takes 3 arguments");
        return NULL;
    }
    Py_ssize_t long_text = PyLong_AsSsize_t(args[2]);
    if (long_text == -1 && PyErr_Occurred())
        return NULL;
    if (!PyUnicode_CheckExact(args[1]))
        Py_RETURN_NONE;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(args[1]) < 0)
        return NULL;
#endif
    PyObject *out = Py_NewRef(args[0]), *key = Py_NewRef(args[1]);
    Output o;
    int ready = output_init(&o, out, long_text);
    int found = ready == 0 ? output_has(&o, key) : ready;
    output_free(&o);
    Py_DECREF(out);
    Py_DECREF(key);
    if (ready == 1)
        Py_RETURN_NONE;
    return found < 0 ? NULL : PyBool_FromLong(found);
}

/* ---- number words and folded texts -------------------------------------------------------- */

/* The value of two keys as number_phrase computes it (lexeval.text.lenient): 1 and *value set,
 * 0 when they are not a number, 2 when the Python code must decide (a value that is not an
 * int, a second key that is one non-ASCII digit), -1 on error. */
static int phrase(PyObject *values, PyObject *a, PyObject *b, long long *value)
{
    PyObject *v = PyDict_GetItemWithError(values, a);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyLong_CheckExact(v))
        return 2;
    long first = PyLong_AsLong(v), second;
    if (first == -1 && PyErr_Occurred())
        return -1;
    PyObject *w = PyDict_GetItemWithError(values, b);
    if (w == NULL) {
        if (PyErr_Occurred())
            return -1;
        if (PyUnicode_GET_LENGTH(b) != 1)
            return 0;
        Py_UCS4 c = PyUnicode_READ_CHAR(b, 0);
        if (c >= '0' && c <= '9')
            second = (long)(c - '0');
        else if (c < 128 || !Py_UNICODE_ISDIGIT(c))
            return 0;
        else
            return 2; /* int() of a digit that is not ASCII: the Python code */
    }
    else {
        if (!PyLong_CheckExact(w))
            return 2;
        second = PyLong_AsLong(w);
        if (second == -1 && PyErr_Occurred())
            return -1;
    }
    if (20 <= first && first <= 90 && first % 10 == 0 && 0 < second && second < 10) {
        *value = (long long)(first + second);
        return 1;
    }
    if (0 < first && first < 100 &&
        (second == 100 || second == 1000 || second == 1000000 || second == 1000000000)) {
        *value = (long long)first * second; /* 99 * 10**9: beyond a 32-bit long */
        return 1;
    }
    return 0;
}

/* merge_number_words(keys, values): lexeval.text.lenient.merge_number_words(keys, True), keys
 * a list or tuple of exact str and values its number words' values: keys itself when no key
 * but the last is a number word, else a new list; None when the Python code must decide. */
static PyObject *py_merge_number_words(PyObject *module, PyObject *const *args,
                                       Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "merge_number_words(keys, values: dict)");
        return NULL;
    }
    PyObject *keys = args[0], *values = args[1];
    if (!(PyList_CheckExact(keys) || PyTuple_CheckExact(keys)))
        Py_RETURN_NONE;
    PyObject *items = PySequence_Fast(keys, ""); /* the list or tuple itself, held */
    if (items == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject **item = PySequence_Fast_ITEMS(items);
    PyObject *result = NULL;
    Py_ssize_t first_word = -1;
    for (Py_ssize_t i = 0; i < n; i++) { /* nothing here runs Python code */
        if (!PyUnicode_CheckExact(item[i])) {
            result = Py_NewRef(Py_None);
            goto done;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(item[i]) < 0)
            goto done;
#endif
        if (first_word < 0 && i + 1 < n) {
            int in = PyDict_Contains(values, item[i]);
            if (in < 0)
                goto done;
            if (in)
                first_word = i;
        }
    }
    if (first_word < 0) {
        result = Py_NewRef(keys);
        goto done;
    }
    result = PyList_New(0);
    Py_ssize_t start = 0;
    for (Py_ssize_t i = first_word; result != NULL && i + 1 < n; i++) {
        long long value;
        int number = i >= start ? phrase(values, item[i], item[i + 1], &value) : 0;
        if (number == 2) {
            Py_SETREF(result, Py_NewRef(Py_None));
            goto done;
        }
        if (number < 0) {
            Py_CLEAR(result);
            goto done;
        }
        if (number == 0)
            continue;
        for (Py_ssize_t j = start; j < i; j++)
            if (PyList_Append(result, item[j]) < 0) {
                Py_CLEAR(result);
                goto done;
            }
        PyObject *merged = PyUnicode_FromFormat("%U %U", item[i], item[i + 1]);
        if (merged == NULL || PyList_Append(result, merged) < 0) {
            Py_XDECREF(merged);
            Py_CLEAR(result);
            goto done;
        }
        Py_DECREF(merged);
        start = i + 2;
    }
    if (result != NULL && start == 0) { /* no pair merged: keys itself, as promised */
        Py_SETREF(result, Py_NewRef(keys));
        goto done;
    }
    for (Py_ssize_t j = start; result != NULL && j < n; j++)
        if (PyList_Append(result, item[j]) < 0)
            Py_CLEAR(result);
done:
    Py_DECREF(items);
    return result;
}

/* Which ASCII characters are word characters (letters, digits, "_"). */
static int is_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* texts(output): OutputKeys._texts() of an ASCII output (lower case; then its word characters
 * alone), as a new tuple; None for any other output, or one where a thousands separator may
 * be (",ddd": the Python code removes them). */
static PyObject *py_texts(PyObject *module, PyObject *output)
{
    (void)module;
    if (!PyUnicode_CheckExact(output))
        Py_RETURN_NONE;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(output) < 0)
        return NULL;
#endif
    if (!PyUnicode_IS_ASCII(output))
        Py_RETURN_NONE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(output);
    Py_ssize_t n = PyUnicode_GET_LENGTH(output), words = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] == ',' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '9' && s[i + 2] >= '0' &&
            s[i + 2] <= '9' && s[i + 3] >= '0' && s[i + 3] <= '9')
            Py_RETURN_NONE;
        words += is_word(s[i]);
    }
    PyObject *folded = PyUnicode_New(n, 127), *joined = PyUnicode_New(words, 127);
    if (folded == NULL || joined == NULL) {
        Py_XDECREF(folded);
        Py_XDECREF(joined);
        return NULL;
    }
    Py_UCS1 *f = PyUnicode_1BYTE_DATA(folded), *j = PyUnicode_1BYTE_DATA(joined);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS1 c = s[i] >= 'A' && s[i] <= 'Z' ? (Py_UCS1)(s[i] + 32) : s[i];
        f[i] = c;
        if (is_word(c))
            *j++ = c;
    }
    PyObject *result = PyTuple_Pack(2, folded, joined);
    Py_DECREF(folded);
    Py_DECREF(joined);
    return result;
}

/* ---- scoring ------------------------------------------------------------------------------- */


/* A profile's knob as a double (a float, or an int as float arithmetic converts it): 0, or 1
 * when it is of another type (the Python loop runs then), -1 on error. */
static int knob(PyObject *profile, int name, double *value)
{
    PyObject *v = PyObject_GetAttr(profile, NAME[name]);
    if (v == NULL)
        return -1;
    int other = 0;
    if (PyFloat_CheckExact(v))
        *value = PyFloat_AS_DOUBLE(v);
    else if (PyLong_CheckExact(v)) {
        *value = PyLong_AsDouble(v);
        if (*value == -1.0 && PyErr_Occurred()) {
            PyErr_Clear(); /* too large: the Python loop raises its own error */
            other = 1;
        }
    }
    else
        other = 1;
    Py_DECREF(v);
    return other;
}

/* The equality of two exact str (what == on them finds). */
static int str_equal(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b))
        return 0;
    return memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * PyUnicode_KIND(a)) == 0;
}

/* Whether `key` (an exact str) equals one of the n `items` (exact str); a frozenset of them
 * answers when given. 1, 0 or -1. */
static int among(PyObject *key, PyObject **items, Py_ssize_t n, PyObject *set)
{
    if (set != NULL)
        return PySet_Contains(set, key);
    for (Py_ssize_t i = 0; i < n; i++)
        if (str_equal(key, items[i]))
            return 1;
    return 0;
}

/* Up to this many found keys, membership scans them (as coverage_info's _SCAN_MAX). */
#define SCAN_MAX 8

/* The state of one call, released by score_free. */
typedef struct {
    Output o;                                           /* the output's keys for the rules */
    PyObject *out_keys, *out_canonical, *out_keywords; /* read from out */
    PyObject *missed;                                 /* the _Missed object, once made */
    PyObject **hit, **hit_keys;                        /* borrowed from the reference's tuples */
    PyObject *hit_set, *key_set;                       /* frozensets of them, when many */
    PyObject *stack[2 * STACK];
} Score;

static void score_free(Score *s)
{
    output_free(&s->o);
    Py_XDECREF(s->out_keys);
    Py_XDECREF(s->out_canonical);
    Py_XDECREF(s->out_keywords);
    Py_XDECREF(s->missed);
    Py_XDECREF(s->hit_set);
    Py_XDECREF(s->key_set);
    if (s->hit != NULL && s->hit != s->stack)
        PyMem_Free(s->hit);
}

/* A new list of the `n` borrowed references. */
static PyObject *list_of(PyObject **items, Py_ssize_t n)
{
    PyObject *list = PyList_New(n);
    if (list != NULL)
        for (Py_ssize_t i = 0; i < n; i++)
            PyList_SET_ITEM(list, i, Py_NewRef(items[i]));
    return list;
}

/* Sets info[NAME[name]] to a new reference `value` (stolen); -1 on error. */
static int put(PyObject *info, int name, PyObject *value)
{
    if (value == NULL)
        return -1;
    int failed = PyDict_SetItem(info, NAME[name], value);
    Py_DECREF(value);
    return failed;
}

/* The result dicts' keys in their order with None values, copied for each result (a copy
 * of a dict of 19 keys and setting its values costs a third of inserting them one by one):
 * info without and with "echoed", then counts. Made once (the module's NAMEs); never
 * changed, never handed out. */
static PyObject *TEMPLATE[3];

/* A new copy of TEMPLATE[which], made first when needed. */
static PyObject *from_template(int which)
{
    if (TEMPLATE[which] == NULL) {
        int first = which == 2 ? K_OVERLAP : K_MATCHED_KEYWORDS;
        int last = which == 2 ? K_OUTPUT : K_EXTRA;
        PyObject *d = PyDict_New();
        for (int k = first; d != NULL && k <= last; k++)
            if ((k != K_ECHOED || which == 1) && PyDict_SetItem(d, NAME[k], Py_None) < 0)
                Py_CLEAR(d);
        if (d == NULL)
            return NULL;
        TEMPLATE[which] = d;
    }
    return PyDict_Copy(TEMPLATE[which]);
}

/* A new dict {NAME[a]: x, NAME[b]: y, NAME[c]: z} of ints. */
static PyObject *counts_dict(Py_ssize_t x, Py_ssize_t y, Py_ssize_t z)
{
    PyObject *counts = from_template(2);
    if (counts == NULL)
        return NULL;
    if (put(counts, K_OVERLAP, PyLong_FromSsize_t(x)) < 0 ||
        put(counts, K_REFERENCE, PyLong_FromSsize_t(y)) < 0 ||
        put(counts, K_OUTPUT, PyLong_FromSsize_t(z)) < 0) {
        Py_DECREF(counts);
        return NULL;
    }
    return counts;
}

/* The evidence dict `name` of the _Missed object (a new reference), or a new empty dict. */
static PyObject *evidence(Score *s, int name)
{
    if (s->missed == NULL)
        return PyDict_New();
    PyObject *found = PyObject_GetAttr(s->missed, NAME[name]);
    if (found != NULL && !PyDict_CheckExact(found)) {
        Py_DECREF(found);
        PyErr_SetString(PyExc_TypeError, "_Missed's evidence must be dicts");
        return NULL;
    }
    return found;
}

/* A new list of the keys that are not among the n_hit found ones. */
static PyObject *missing_list(PyObject *keys, Score *s, Py_ssize_t n_hit)
{
    PyObject *missing = PyList_New(0);
    for (Py_ssize_t i = 0; missing != NULL && i < PyTuple_GET_SIZE(keys); i++) {
        PyObject *k = PyTuple_GET_ITEM(keys, i);
        int in = among(k, s->hit, n_hit, s->hit_set);
        if (in < 0 || (!in && PyList_Append(missing, k) < 0))
            Py_CLEAR(missing);
    }
    return missing;
}

/* ---- near matches (rule 5) ------------------------------------------------------------------- */

/* The length of the longest common subsequence of the code points of `b` and of the key whose
 * bit masks `pm` (ASCII code points) are given, n <= 64 (Hyyro's bit-parallel recurrence). */
static Py_ssize_t lcs_bits(const uint64_t *pm, Py_ssize_t n, PyObject *b)
{
    uint64_t s = ~(uint64_t)0;
    int kind = PyUnicode_KIND(b);
    const void *data = PyUnicode_DATA(b);
    for (Py_ssize_t j = 0; j < PyUnicode_GET_LENGTH(b); j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        uint64_t u = c < 128 ? s & pm[c] : 0;
        s = (s + u) | (s - u);
    }
    uint64_t mask = n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    Py_ssize_t lcs = 0;
    for (uint64_t v = ~s & mask; v; v &= v - 1)
        lcs++;
    return lcs;
}

/* The same by the quadratic recurrence (any length, any code points); -1 without memory. */
static Py_ssize_t lcs_rows(PyObject *a, PyObject *b)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(a), m = PyUnicode_GET_LENGTH(b);
    Py_ssize_t *row = PyMem_New(Py_ssize_t, m + 1);
    if (row == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int ka = PyUnicode_KIND(a), kb = PyUnicode_KIND(b);
    const void *da = PyUnicode_DATA(a), *db = PyUnicode_DATA(b);
    for (Py_ssize_t j = 0; j <= m; j++)
        row[j] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(ka, da, i);
        Py_ssize_t diagonal = 0; /* row[j - 1] of the previous row */
        for (Py_ssize_t j = 1; j <= m; j++) {
            Py_ssize_t above = row[j];
            if (c == PyUnicode_READ(kb, db, j - 1))
                row[j] = diagonal + 1;
            else if (row[j - 1] > above)
                row[j] = row[j - 1];
            diagonal = above;
        }
    }
    Py_ssize_t lcs = row[m];
    PyMem_Free(row);
    return lcs;
}

/* How close to the cutoff a similarity is left to rapidfuzz: its scorer compares a distance
 * against a cutoff converted with a small imprecision, which decides similarities equal to
 * the cutoff (or one unit in the last place away) either way; off that edge its answer is
 * the exact one. Two similarities of short words differ far more than this when they are
 * not equal. */
#define NEAR_EDGE 1e-9

/* near(key, choices, cutoff): rapidfuzz's extractOne(key, choices,
 * scorer=Indel.normalized_similarity, score_cutoff=cutoff)'s (choice, similarity) for an exact
 * str and a tuple of exact str (the first of the most similar choices at least at the cutoff,
 * the similarity 1 - (n + m - 2 * LCS) / (n + m) as rapidfuzz computes it), () when none is;
 * None when a choice is at the cutoff's edge (NEAR_EDGE) but for a similarity equal to a
 * cutoff exact in binary: extractOne decides then. */
static PyObject *py_near(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyUnicode_CheckExact(args[0]) || !PyTuple_CheckExact(args[1]) ||
        !PyFloat_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "near(key, choices, cutoff) takes a str, a tuple of "
                                         "str and a float");
        return NULL;
    }
    PyObject *key = args[0], *choices = args[1];
    if (!all_ready_str(choices)) {
        PyErr_SetString(PyExc_TypeError, "near's choices must be str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(key) < 0)
        return NULL;
#endif
    double cutoff = PyFloat_AS_DOUBLE(args[2]), best = 0.0;
    /* a cutoff in [0, 1] that is a multiple of 1/64 (1 - cutoff is exact too): rapidfuzz takes
     * a similarity equal to it (the tests check it) */
    int dyadic = cutoff >= 0.0 && cutoff <= 1.0 && cutoff * 64.0 == floor(cutoff * 64.0);
    Py_ssize_t n = PyUnicode_GET_LENGTH(key), found = -1;
    uint64_t pm[128];
    int bits = n <= 64 && PyUnicode_IS_ASCII(key);
    if (bits) {
        memset(pm, 0, sizeof(pm));
        const Py_UCS1 *k = PyUnicode_1BYTE_DATA(key);
        for (Py_ssize_t i = 0; i < n; i++)
            pm[k[i]] |= (uint64_t)1 << i;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(choices); i++) {
        PyObject *choice = PyTuple_GET_ITEM(choices, i);
        Py_ssize_t m = PyUnicode_GET_LENGTH(choice), most = n + m;
        /* at best the shorter word is a subsequence of the longer: skip it when even that is
         * clearly below the cutoff */
        if (most && 1.0 - (double)(n > m ? n - m : m - n) / (double)most < cutoff - NEAR_EDGE)
            continue;
        Py_ssize_t lcs = bits ? lcs_bits(pm, n, choice) : lcs_rows(key, choice);
        if (lcs < 0)
            return NULL;
        double score = most ? 1.0 - (double)(most - 2 * lcs) / (double)most : 1.0;
        if (fabs(score - cutoff) <= NEAR_EDGE) {
            if (found >= 0 && score == best)
                continue; /* a tie with the best so far, which stays either way */
            if (found >= 0 || score != cutoff || !dyadic)
                Py_RETURN_NONE;
            found = i; /* at a cutoff exact in binary (0.5): taken */
            best = score;
            if (score == 1.0)
                break;
            continue;
        }
        if (score > cutoff) {
            cutoff = best = score;
            found = i;
            if (score == 1.0)
                break;
        }
    }
    if (found < 0)
        return PyTuple_New(0);
    PyObject *similarity = PyFloat_FromDouble(best);
    if (similarity == NULL)
        return NULL;
    PyObject *result = PyTuple_Pack(2, PyTuple_GET_ITEM(choices, found), similarity);
    Py_DECREF(similarity);
    return result;
}

static PyObject *score_of(PyObject *const *args);

static PyObject *py_score(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "score(types, ref, weighted, weights, total, out, "
                                         "profile, echoed) takes 8 arguments");
        return NULL;
    }
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[8];
    for (int i = 0; i < 8; i++) { /* Python code runs (_Missed): the arguments are held */
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = score_of(held);
    for (int i = 0; i < 8; i++)
        Py_DECREF(held[i]);
    return result;
}


static PyObject *score_of(PyObject *const *args)
{
    PyObject *types = args[0], *ref = args[1], *weighted = args[2], *weights = args[3];
    PyObject *total = args[4], *out = args[5], *profile = args[6], *echoed = args[7];
    if (!TUPLE_OF(types, 4)) {
        PyErr_SetString(PyExc_TypeError, "score's types must be a tuple of 4");
        return NULL;
    }
    Py_ssize_t long_text = PyLong_AsSsize_t(PyTuple_GET_ITEM(types, 3));
    if (long_text == -1 && PyErr_Occurred())
        return NULL;
    /* the exact types the reference builds, or the Python loop decides */
    if ((PyObject *)Py_TYPE(ref) != PyTuple_GET_ITEM(types, 0) || PyTuple_GET_SIZE(ref) != 5 ||
        (PyObject *)Py_TYPE(weighted) != PyTuple_GET_ITEM(types, 1) ||
        PyTuple_GET_SIZE(weighted) != 3 || !PyFloat_CheckExact(total) ||
        PyFloat_AS_DOUBLE(total) == 0.0 || !PyFrozenSet_CheckExact(echoed))
        Py_RETURN_NONE;
    PyObject *keys = PyTuple_GET_ITEM(ref, 0), *canonical = PyTuple_GET_ITEM(ref, 1);
    PyObject *pieces = PyTuple_GET_ITEM(ref, 3), *kinds = PyTuple_GET_ITEM(ref, 4);
    PyObject *part_weights = PyTuple_GET_ITEM(weighted, 2);
    if (!PyTuple_CheckExact(keys))
        Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_GET_SIZE(keys);
    if (n == 0 || !TUPLE_OF(canonical, n) || !TUPLE_OF(pieces, n) || !TUPLE_OF(kinds, n) ||
        !TUPLE_OF(part_weights, n) || !TUPLE_OF(weights, n) || !all_ready_str(keys) ||
        !all_ready_str(canonical))
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyFloat_CheckExact(PyTuple_GET_ITEM(weights, i)))
            Py_RETURN_NONE;
    double conflict_penalty, extra_penalty;
    int other = knob(profile, A_CONFLICT_PENALTY, &conflict_penalty);
    if (other == 0)
        other = knob(profile, A_EXTRA_PENALTY, &extra_penalty);
    if (other != 0)
        return other < 0 ? NULL : Py_NewRef(Py_None);

    Score s;
    memset(&s, 0, offsetof(Score, stack));
    PyObject *result = NULL, *info = NULL;
    int ready = output_init(&s.o, out, long_text);
    if (ready != 0) {
        result = ready < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    s.out_keys = Py_NewRef(s.o.keys);
    if ((s.out_canonical = PyObject_GetAttr(out, NAME[A_CANONICAL])) == NULL ||
        (s.out_keywords = PyObject_GetAttr(out, NAME[A_KEYWORDS])) == NULL)
        goto done;
    if (!PyTuple_CheckExact(s.out_canonical) ||
        !all_ready_str(s.out_canonical) || !PyTuple_CheckExact(s.out_keywords)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    s.hit = n <= STACK ? s.stack : PyMem_New(PyObject *, 2 * n);
    if (s.hit == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    s.hit_keys = s.hit + n;

    /* the loop: a key among the output's keys is found; the rules decide the others */
    Py_ssize_t n_hit = 0;
    double credit = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ck = PyTuple_GET_ITEM(canonical, i);
        int found = PyDict_Contains(s.out_keys, ck);
        if (found == 0)
            found = output_has(&s.o, ck);
        if (found < 0)
            goto done;
        if (!found) {
            if (s.missed == NULL &&
                (s.missed = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(types, 2), out,
                                                         canonical, profile, NULL)) == NULL)
                goto done;
            PyObject *call[6] = {
                PyTuple_GET_ITEM(keys, i),   ck,
                PyTuple_GET_ITEM(weights, i), PyTuple_GET_ITEM(pieces, i),
                PyTuple_GET_ITEM(part_weights, i), PyTuple_GET_ITEM(kinds, i),
            };
            PyObject *r = PyObject_Vectorcall(s.missed, call, 6, NULL);
            if (r == NULL)
                goto done;
            if (PyFloat_CheckExact(r))
                credit += PyFloat_AS_DOUBLE(r);
            else if (r != Py_None) {
                Py_DECREF(r);
                PyErr_SetString(PyExc_TypeError, "_Missed must return a float or None");
                goto done;
            }
            Py_DECREF(r);
            continue;
        }
        s.hit[n_hit] = PyTuple_GET_ITEM(keys, i);
        s.hit_keys[n_hit++] = ck;
        credit += PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(weights, i));
    }

    /* the evidence, as coverage_info and lenient_score make it, in their order */
    double against = 0.0;
    if (s.missed != NULL) {
        PyObject *a = PyObject_GetAttr(s.missed, NAME[A_AGAINST]);
        if (a == NULL)
            goto done;
        if (!PyFloat_CheckExact(a)) {
            Py_DECREF(a);
            PyErr_SetString(PyExc_TypeError, "_Missed.against must be a float");
            goto done;
        }
        against = PyFloat_AS_DOUBLE(a);
        Py_DECREF(a);
    }
    double net = credit - conflict_penalty * against;
    double coverage = (net > 0.0 ? net : 0.0) / PyFloat_AS_DOUBLE(total);
    Py_ssize_t n_out = PyTuple_GET_SIZE(s.out_keywords), used = 0;
    if (n_hit > SCAN_MAX && ((s.hit_set = PyFrozenSet_New(NULL)) == NULL ||
                             (s.key_set = PyFrozenSet_New(NULL)) == NULL))
        goto done;
    for (Py_ssize_t i = 0; s.hit_set != NULL && i < n_hit; i++)
        if (PySet_Add(s.hit_set, s.hit[i]) < 0 || PySet_Add(s.key_set, s.hit_keys[i]) < 0)
            goto done;
    for (Py_ssize_t i = 0; n_hit && i < PyTuple_GET_SIZE(s.out_canonical); i++) {
        int in = among(PyTuple_GET_ITEM(s.out_canonical, i), s.hit_keys, n_hit, s.key_set);
        if (in < 0)
            goto done;
        used += in;
    }
    double precision = n_out ? (double)used / (double)n_out : 0.0;
    double fmeasure = precision + coverage > 0 ? 2.0 * precision * coverage /
                                                     (precision + coverage)
                                               : 0.0;
    double extra = n_out ? 1.0 - precision : 0.0;

    info = from_template(PySet_GET_SIZE(echoed) ? 1 : 0);
    if (info == NULL || put(info, K_MATCHED_KEYWORDS, PyLong_FromSsize_t(n_hit)) < 0 ||
        put(info, K_TOTAL_KEYWORDS, PyLong_FromSsize_t(n)) < 0 ||
        put(info, K_MATCHED, list_of(s.hit, n_hit)) < 0 || put(info, K_MISSING, missing_list(keys, &s, n_hit)) < 0 ||
        put(info, K_INPUT_KEYWORDS, PySequence_List(keys)) < 0 ||
        put(info, K_OUTPUT_KEYWORDS, PySequence_List(s.out_keywords)) < 0 ||
        put(info, K_PRECISION, PyFloat_FromDouble(precision)) < 0 ||
        put(info, K_RECALL, PyFloat_FromDouble(coverage)) < 0 ||
        put(info, K_FMEASURE, PyFloat_FromDouble(fmeasure)) < 0 ||
        put(info, K_COUNTS, counts_dict(n_hit, n, n_out)) < 0 ||
        put(info, K_PARTIAL, evidence(&s, K_PARTIAL)) < 0 ||
        put(info, K_NEAR, evidence(&s, K_NEAR)) < 0 ||
        put(info, K_CONFLICTS, evidence(&s, K_CONFLICTS)) < 0 ||
        put(info, K_MATCHED_WEIGHT, PyFloat_FromDouble(credit)) < 0 ||
        put(info, K_TOTAL_WEIGHT, Py_NewRef(total)) < 0)
        goto done;
    PyObject *by_key = PyDict_New(); /* info holds it (put takes the reference) */
    if (put(info, K_WEIGHTS, by_key) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyDict_SetItem(by_key, PyTuple_GET_ITEM(keys, i), PyTuple_GET_ITEM(weights, i)) < 0)
            goto done;
    if (PySet_GET_SIZE(echoed)) {
        PyObject *named = PyList_New(0); /* info holds it */
        if (put(info, K_ECHOED, named) < 0)
            goto done;
        for (Py_ssize_t i = 0; i < n; i++) {
            int in = PySet_Contains(echoed, PyTuple_GET_ITEM(canonical, i));
            if (in < 0 || (in && PyList_Append(named, PyTuple_GET_ITEM(keys, i)) < 0))
                goto done;
        }
    }
    if (put(info, K_COVERAGE, PyFloat_FromDouble(coverage)) < 0 ||
        put(info, K_EXTRA, PyFloat_FromDouble(extra)) < 0)
        goto done;
    PyObject *value = PyFloat_FromDouble(coverage * (1.0 - extra_penalty * extra));
    if (value != NULL)
        result = PyTuple_Pack(2, value, info);
    Py_XDECREF(value);
done:
    Py_XDECREF(info);
    score_free(&s);
    return result;
}

/* ---- an output's index in one call ----------------------------------------------------------- */

/* index_parts(keys, memo, tables): canonical_keys(keys, memo, tables, 4)'s canonical keys and
 * index, then the canonical keys of the non-empty parts (split at "-") of the index's keys
 * with a hyphen, distinct and in order, as the keys of a dict of None; None in its place when
 * no key has a hyphen (lexeval.text.lenient.canonical_index_parts, whose Python code is the
 * reference). The memo is read and filled as canonical_keys does, keys first, then parts. */
static PyObject *index_parts_of(PyObject *keys, PyObject *memo, PyObject *tables)
{
    /* checks the arguments */
    PyObject *found = canonical_keys_of(keys, memo, tables, 4, NULL, NULL);
    if (found == NULL)
        return NULL;
    PyObject *compounds = PyTuple_GET_ITEM(found, 2), *parts = NULL, *result = NULL;
    if (PyTuple_GET_SIZE(compounds) == 0) {
        if (Py_REFCNT(found) == 1) { /* a new tuple, only here: None in the compounds' place */
            PyTuple_SET_ITEM(found, 2, Py_NewRef(Py_None));
            Py_DECREF(compounds);
            return found;
        }
        result = PyTuple_Pack(3, PyTuple_GET_ITEM(found, 0), PyTuple_GET_ITEM(found, 1),
                              Py_None);
        Py_DECREF(found);
        return result;
    }
    Tables t = {PyTuple_GET_ITEM(tables, 0), PyTuple_GET_ITEM(tables, 1),
                PyTuple_GET_ITEM(tables, 3), PyTuple_GET_ITEM(tables, 4)};
    Py_ssize_t size = PyLong_AsSsize_t(PyTuple_GET_ITEM(tables, 2));
    if (size == -1 && PyErr_Occurred())
        goto done;
    if ((parts = PyDict_New()) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(compounds); i++) {
        PyObject *pieces = PyUnicode_Split(PyTuple_GET_ITEM(compounds, i), DASH, -1);
        if (pieces == NULL)
            goto done;
        int failed = 0;
        for (Py_ssize_t j = 0; !failed && j < PyList_GET_SIZE(pieces); j++) {
            PyObject *piece = PyList_GET_ITEM(pieces, j); /* the list holds it */
            if (PyUnicode_GET_LENGTH(piece) == 0)
                continue;
            PyObject *canonical = canonical_of(piece, memo, &t, size);
            failed = canonical == NULL || PyDict_SetItem(parts, canonical, Py_None) < 0;
            Py_XDECREF(canonical);
        }
        Py_DECREF(pieces);
        if (failed)
            goto done;
    }
    result = PyTuple_Pack(3, PyTuple_GET_ITEM(found, 0), PyTuple_GET_ITEM(found, 1), parts);
done:
    Py_XDECREF(parts);
    Py_DECREF(found);
    return result;
}

static PyObject *py_index_parts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "index_parts(keys, memo, tables) takes 3 arguments");
        return NULL;
    }
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[3];
    for (int i = 0; i < 3; i++) { /* Python code may run (__missing__): the arguments are held */
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = index_parts_of(held[0], held[1], held[2]);
    for (int i = 0; i < 3; i++)
        Py_DECREF(held[i]);
    return result;
}

/* ---- an output's OutputKeys in one call ------------------------------------------------------- */

/* output_keys(cls, members, state, canonical, no_parts): the OutputKeys that the kept state
 * (output, keywords, keys, english) of a prepared output makes, as the Python code of
 * lexeval.metrics.keyword_lenient._thaw makes it (its reference):
 *   cls       the class (object.__new__(cls) makes the object)
 *   members   member descriptors of cls's slots: output, keywords, _all_keys, _english,
 *             canonical, _keys, _parts, then those set to None (built on first use)
 *   state     the kept tuple of 4
 *   canonical (memo, tables) of the state's language (text.lenient.canonical_tables)
 *   no_parts  what _parts holds when no keyword has a hyphen
 * The first four fields are the state's items, the next three index_parts(keywords, memo,
 * tables) (no_parts for None). Returns the object, or None when the state or the canonical
 * tables are not of these shapes or the keywords not a list or tuple (the Python code runs);
 * members that are not member descriptors of cls, or fewer than 7, are a TypeError. */
static PyObject *output_keys_of(PyObject *const *args)
{
    PyObject *cls = args[0], *members = args[1], *state = args[2], *canonical = args[3];
    if (!PyType_Check(cls) || !PyTuple_CheckExact(members) || PyTuple_GET_SIZE(members) < 7) {
        PyErr_SetString(PyExc_TypeError, "output_keys: a class and a tuple of at least 7 of "
                                         "its member descriptors");
        return NULL;
    }
    /* the class and members checked once: the last pair checked is kept (held) */
    static PyObject *checked_cls, *checked_members;
    int plain = cls == checked_cls && members == checked_members;
    if (!plain) {
        plain = 1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(members); i++) {
            PyObject *member = PyTuple_GET_ITEM(members, i);
            if (!Py_IS_TYPE(member, &PyMemberDescr_Type) ||
                !PyType_IsSubtype((PyTypeObject *)cls, PyDescr_TYPE(member))) {
                PyErr_Format(PyExc_TypeError,
                             "output_keys: members[%zd] is not a member descriptor of the class",
                             i);
                return NULL;
            }
            PyMemberDef *def = ((PyMemberDescrObject *)member)->d_member;
            plain = plain && (def->type == T_OBJECT_EX || def->type == T_OBJECT) &&
                    !(def->flags & READONLY) && def->offset > 0;
        }
        if (plain && ((PyTypeObject *)cls)->tp_alloc == PyType_GenericAlloc) {
            /* slots of objects: set in place on a new object (no descriptor call); both
             * kept before the old ones are released (which may run Python code) */
            PyObject *old_cls = checked_cls, *old_members = checked_members;
            checked_cls = Py_NewRef(cls);
            checked_members = Py_NewRef(members);
            Py_XDECREF(old_cls);
            Py_XDECREF(old_members);
        }
        else
            plain = 0;
    }
    if (!TUPLE_OF(state, 4) || !TUPLE_OF(canonical, 2) ||
        !(PyTuple_CheckExact(PyTuple_GET_ITEM(state, 1)) ||
          PyList_CheckExact(PyTuple_GET_ITEM(state, 1))))
        Py_RETURN_NONE;
    PyObject *found = index_parts_of(PyTuple_GET_ITEM(state, 1), PyTuple_GET_ITEM(canonical, 0),
                                     PyTuple_GET_ITEM(canonical, 1));
    if (found == NULL)
        return NULL;
    PyObject *no_args = PyTuple_New(0), *made = NULL;
    if (no_args != NULL) /* object.__new__(cls) */
        made = PyBaseObject_Type.tp_new((PyTypeObject *)cls, no_args, NULL);
    Py_XDECREF(no_args);
    PyObject *parts = PyTuple_GET_ITEM(found, 2);
    PyObject *values[7] = {
        PyTuple_GET_ITEM(state, 0), PyTuple_GET_ITEM(state, 1), PyTuple_GET_ITEM(state, 2),
        PyTuple_GET_ITEM(state, 3), PyTuple_GET_ITEM(found, 0), PyTuple_GET_ITEM(found, 1),
        parts == Py_None ? args[4] : parts,
    };
    for (Py_ssize_t i = 0; made != NULL && i < PyTuple_GET_SIZE(members); i++) {
        PyMemberDef *def = ((PyMemberDescrObject *)PyTuple_GET_ITEM(members, i))->d_member;
        PyObject *value = i < 7 ? values[i] : Py_None;
        if (plain) { /* a slot of the new object: NULL until now */
            PyObject **slot = (PyObject **)((char *)made + def->offset);
            Py_XSETREF(*slot, Py_NewRef(value));
        }
        else if (PyMember_SetOne((char *)made, def, value) < 0)
            Py_CLEAR(made);
    }
    Py_DECREF(found);
    return made;
}

static PyObject *py_output_keys(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "output_keys(cls, members, state, canonical, no_parts) takes 5 arguments");
        return NULL;
    }
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[5];
    for (int i = 0; i < 5; i++) { /* Python code may run (__missing__): the arguments are held */
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = output_keys_of(held);
    for (int i = 0; i < 5; i++)
        Py_DECREF(held[i]);
    return result;
}

/* ---- an output's folded texts without a call of its method ------------------------------------ */

/* out._texts() as a new reference: its _text slot once built; else the texts that texts()
 * makes (an ASCII output without thousands separators), stored in that slot as the method
 * stores them; else out._fold_texts()'s (the Python code, without a second scan). */
static PyObject *output_texts(PyObject *out)
{
    static PyObject *text_name, *output_name; /* "_text" and "output", interned once */
    if ((text_name == NULL && (text_name = PyUnicode_InternFromString("_text")) == NULL) ||
        (output_name == NULL && (output_name = PyUnicode_InternFromString("output")) == NULL))
        return NULL;
    PyObject *texts = PyObject_GetAttr(out, text_name);
    if (texts == NULL || texts != Py_None)
        return texts;
    Py_DECREF(texts);
    PyObject *output = PyObject_GetAttr(out, output_name);
    if (output == NULL)
        return NULL;
    texts = py_texts(NULL, output);
    Py_DECREF(output);
    if (texts == NULL)
        return NULL;
    if (texts != Py_None) {
        if (PyObject_SetAttr(out, text_name, texts) < 0)
            Py_CLEAR(texts);
        return texts;
    }
    Py_DECREF(texts);
    return PyObject_CallMethodNoArgs(out, NAME[M_FOLD_TEXTS]); /* not _texts: texts() again */
}

static PyMethodDef METHODS[] = {
    {"canonical_keys", (PyCFunction)(void (*)(void))py_canonical_keys, METH_FASTCALL,
     "canonical_keys(keys, memo, tables, as_dict) -> tuple or dict of the canonical keys."},
    {"reference", (PyCFunction)(void (*)(void))py_reference, METH_FASTCALL,
     "reference(state, matcher, reference) -> LenientMatcher.reference(reference), or None."},
    {"names_number", (PyCFunction)(void (*)(void))py_names_number, METH_FASTCALL,
     "names_number(text, words, fold) -> whether fold(text) has a number word, or None."},
    {"without_digits", (PyCFunction)py_without_digits, METH_O,
     "without_digits(keys) -> the keys without a decimal digit, or None."},
    {"kind_candidates", (PyCFunction)(void (*)(void))py_kind_candidates, METH_FASTCALL,
     "kind_candidates(keys, months) -> the distinct keys with a digit or a month, or None."},
    {"prefix_match", (PyCFunction)(void (*)(void))py_prefix_match, METH_FASTCALL,
     "prefix_match(key, keys, every, least, share) -> bool, or None."},
    {"merge_number_words", (PyCFunction)(void (*)(void))py_merge_number_words, METH_FASTCALL,
     "merge_number_words(keys, values) -> keys, a new list, or None."},
    {"texts", (PyCFunction)py_texts, METH_O, "texts(output) -> (folded, joined), or None."},
    {"has", (PyCFunction)(void (*)(void))py_has, METH_FASTCALL,
     "has(out, key, long_text) -> OutputKeys.has(key), or None."},
    {"score", (PyCFunction)(void (*)(void))py_score, METH_FASTCALL,
     "score(types, ref, weighted, weights, total, out, profile, echoed) -> (score, info), or "
     "None."},
    {"near", (PyCFunction)(void (*)(void))py_near, METH_FASTCALL,
     "near(key, choices, cutoff) -> (choice, similarity) of the most similar choice, (), or "
     "None."},
    {"index_parts", (PyCFunction)(void (*)(void))py_index_parts, METH_FASTCALL,
     "index_parts(keys, memo, tables) -> (canonical keys, index, canonical parts or None)."},
    {"output_keys", (PyCFunction)(void (*)(void))py_output_keys, METH_FASTCALL,
     "output_keys(cls, members, state, canonical, no_parts) -> an OutputKeys, or None."},
    {NULL, NULL, 0, NULL},
};

/* ---- module init: multi-phase (PEP 489) ------------------------------------------------
 * Process-wide static state stays (interned names, the folded-character and number-word caches,
 * result templates): one copy for the process, made for the main interpreter's objects.
 * (process_state.h: so the module loads in the main interpreter only). */
static int exec_module(PyObject *module)
{
    (void)module;
    if (lexeval_main_interpreter_only("lexeval.native.lenient") < 0)
        return -1;
    for (int i = 0; i < N_NAMES; i++)
        if (NAME[i] == NULL && (NAME[i] = PyUnicode_InternFromString(NAME_TEXT[i])) == NULL)
            return -1;
    if ((DASH == NULL && (DASH = PyUnicode_InternFromString("-")) == NULL) ||
        (EMPTY == NULL && (EMPTY = PyUnicode_New(0, 0)) == NULL))
        return -1;
    return 0;
}

static PyModuleDef_Slot SLOTS[] = {
    {Py_mod_exec, (void *)exec_module},
    LEXEVAL_PROCESS_WIDE_STATE_SLOTS
    {0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.lenient",
    "The compiled fast paths of lenient keyword matching (see lexeval.native).", 0, METHODS,
    SLOTS,
};

PyMODINIT_FUNC PyInit_lenient(void) { return PyModuleDef_Init(&MODULE); }
