/* lexeval.native.weights: the compiled fast path of a reference's keyword weights.
 *
 * The pure-Python code stays the reference (lexeval.metrics.weights: KeywordWeights.weights
 * and KeywordWeights.of_reference, _WeightMemo.__missing__, _zipf; LenientMatcher.weighted);
 * these functions compute the same values and the property tests compare the two:
 *
 *   weigh(keys, numeric, pieces, state)
 *       keys     a tuple of str: a prepared reference's keys
 *       numeric  a tuple with one item per key: true for a key that weighs number times more
 *       pieces   a tuple with one tuple of str per key: its parts (empty: none)
 *       state    (memo, frequencies, zipfs, size, round, direct, negations, floor, ceiling,
 *                number, negation, year_freq, benford_freq, minimum): the language's weight
 *                memo (a dict (subclass) of float whose __missing__ computes a weight:
 *                _WeightMemo), wordfreq's frequency dict of the language, the Zipf value of
 *                each frequency seen (a dict of float), the memos' size limit, the builtin
 *                round, whether every key is looked up in the frequency dict as it is (zh,
 *                ja, ko), the negations (a frozenset), the constants WEIGHT_FLOOR,
 *                ZIPF_CEILING, NUMBER_FACTOR and NEGATION_FACTOR, wordfreq's year_freq and
 *                benford_freq (None but for English) and its least frequency
 *   returns (weights, total, part_weights) as KeywordWeights.of_reference makes them: a tuple
 *       of float, their sum, and a tuple of the weights of each key's parts (pieces itself
 *       when no key has parts); or None when an argument is not of the types the reference
 *       builds, or there is no key (the caller then runs the Python code).
 *
 *   weighted(cache, size, result_type, state, fallback, reference)
 *       what lexeval.metrics.keyword_lenient.LenientMatcher.weighted does with a cache of its
 *       own: result_type(cache[keys]) (as tuple.__new__ makes it) of reference, a tuple of 5
 *       items whose 0th, 2nd and 3rd are the keys, numeric and pieces (ReferenceKeys); when
 *       the cache (a dict) lacks the keys, weigh(keys, numeric, pieces, state) or, when that
 *       gives None, fallback(keys, numeric, pieces) (KeywordWeights.of_reference) is stored
 *       in it first (the cache emptied first when it holds `size` items).
 *
 * A key the memo knows is one look-up. The Zipf value of a missing key is computed here as
 * _zipf computes it when the key is of letters in lower case (str.isalpha() and
 * str.islower()), or any key when direct: looked up in the frequency dict, through the Zipf
 * memo; and for English when its tokens are plain (_english_tokens: lower-case ASCII letters
 * and digits, or numbers with "." or "," between digits, joined by hyphens or dashes, a final
 * "." dropped): _tokens_zipf's steps, wordfreq's rules for digits called. Its weight is then
 * stored as __missing__ stores it (each memo emptied first when it holds `size` items); any
 * other missing key goes through memo[key], i.e. the Python code. The keys are read first, in
 * order, then the parts: the memos are written in the reference's order. The floats are
 * computed with the reference's operations in its order (libm's log and log10, as the math
 * module's; round's result, computed here where that is plain, else by the builtin round),
 * so they are the same to the bit.
 *
 * Both hold the GIL from start to end. Python code may run (round, year_freq, benford_freq,
 * __missing__, fallback): the arguments are held for the call, every value read from a dict is held by
 * a reference of its own, and errors propagate. Nothing of the host process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "process_state.h"
#include <math.h>
#include <string.h>

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

#define STATE_SIZE 14

typedef struct {
    PyObject *memo, *frequencies, *zipfs, *round, *negations, *floor_value;
    PyObject *year_freq, *benford_freq; /* None: not English */
    Py_ssize_t size;
    int direct;
    double floor, ceiling, number, negation, minimum;
} State;

static double LOG_10; /* math.log's divisor for base 10: log(10.0), computed at run time */

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
    for (int i = 7; i < 11; i++)
        if (!PyFloat_CheckExact(item[i]))
            goto bad;
    s->year_freq = item[11];
    s->benford_freq = item[12];
    if ((s->year_freq == Py_None) != (s->benford_freq == Py_None) || !PyFloat_CheckExact(item[13]))
        goto bad;
    s->minimum = PyFloat_AS_DOUBLE(item[13]);
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
                    "negation: float, year_freq, benford_freq, minimum: float)");
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

/* Powers of ten that doubles hold exactly. */
static const double POWERS[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* round(value, digits) as the builtin round computes it: the decimal with `digits` decimals
 * nearest to value (ties to even), then the double nearest to that decimal. Where value is
 * positive, 0 <= digits <= 22 and value * 10**digits is below 1e9 and not within 1e-6 of a
 * half, the integer nearest to the exact product is that of the computed one (whose error is
 * below 1e-7), and dividing it by 10**digits (two exact doubles, one correctly rounded
 * division) gives the double nearest to the decimal: computed here. Otherwise through the
 * builtin round. A new reference, or NULL on error. */
static PyObject *rounded(double value, long digits, State *s)
{
    if (value > 0 && digits >= 0 && digits <= 22) {
        double scaled = value * POWERS[digits];
        if (scaled < 1e9) {
            double whole = floor(scaled), part = scaled - whole;
            if (fabs(part - 0.5) > 1e-6)
                return PyFloat_FromDouble((whole + (part > 0.5)) / POWERS[digits]);
        }
    }
    PyObject *x = PyFloat_FromDouble(value);
    PyObject *d = digits == 2 ? Py_NewRef(TWO) : PyLong_FromLong(digits);
    PyObject *result = NULL;
    if (x != NULL && d != NULL) {
        PyObject *args[2] = {x, d};
        result = PyObject_Vectorcall(s->round, args, 2, NULL);
    }
    Py_XDECREF(x);
    Py_XDECREF(d);
    return result;
}

/* The Zipf value of a key of letters in lower case (or any key when direct) from the frequency
 * dict, as _zipf computes it (the Zipf memo read, and written once per frequency): a new
 * reference, or NULL without an error when a dict holds something else than a float (the
 * caller asks memo[key]), NULL with one on error. */
static PyObject *word_zipf(PyObject *key, State *s)
{
    PyObject *freq = PyDict_GetItemWithError(s->frequencies, key);
    if (freq == NULL) {
        if (PyErr_Occurred())
            return NULL;
        freq = ZERO;
    }
    if (!PyFloat_CheckExact(freq))
        return NULL;
    PyObject *zipf = PyDict_GetItemWithError(s->zipfs, freq);
    if (zipf != NULL)
        return Py_NewRef(zipf);
    if (PyErr_Occurred())
        return NULL;
    Py_INCREF(freq); /* round(math.log10(freq) + 9.0, 2) if freq > 0 else 0.0 */
    double f = PyFloat_AS_DOUBLE(freq);
    zipf = f > 0 ? rounded(log10(f) + 9.0, 2, s) : Py_NewRef(ZERO);
    if (zipf != NULL && PyDict_GET_SIZE(s->zipfs) >= s->size)
        PyDict_Clear(s->zipfs);
    if (zipf != NULL && PyDict_SetItem(s->zipfs, freq, zipf) < 0)
        Py_CLEAR(zipf);
    Py_DECREF(freq);
    return zipf;
}

/* ---- English keys of plain tokens (_english_tokens, _tokens_zipf) ------------------------- */

/* The longest key read here (longer ones go to the Python code). */
#define MAX_KEY 64

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The end of the run of digits, "." and "," from t[i] that smash_numbers' and digit_freq's
 * pattern (a digit, then one or more digits, "." or ",") matches, or i when none starts
 * there. */
static Py_ssize_t number_run(const char *t, Py_ssize_t i, Py_ssize_t n)
{
    if (!is_digit(t[i]))
        return i;
    Py_ssize_t j = i + 1;
    while (j < n && (is_digit(t[j]) || t[j] == '.' || t[j] == ','))
        j++;
    return j - i >= 2 ? j : i;
}

/* Whether t[0:n] is one of _english_tokens' plain tokens: lower-case ASCII letters and digits,
 * or digits joined by single "." or "," (_DIGIT_GROUPS). */
static int plain_token(const char *t, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    int alnum = 1, groups = is_digit(t[0]) && is_digit(t[n - 1]), joints = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = t[i];
        if (!(is_digit(c) || (c >= 'a' && c <= 'z')))
            alnum = 0;
        if (!is_digit(c)) {
            int joint = (c == '.' || c == ',') && i > 0 && i + 1 < n && is_digit(t[i - 1]) &&
                        is_digit(t[i + 1]);
            groups &= joint;
            joints += joint;
        }
    }
    return alnum || (groups && joints > 0);
}

/* wordfreq's estimate of the run of digits t[0:n]: year_freq when 4 long, else benford_freq.
 * 1, 0 when the rule gave something else than a float, -1 on error. */
static int digits_freq(const char *t, Py_ssize_t n, State *s, double *freq)
{
    PyObject *text = PyUnicode_FromStringAndSize(t, n);
    if (text == NULL)
        return -1;
    PyObject *f = PyObject_CallOneArg(n == 4 ? s->year_freq : s->benford_freq, text);
    Py_DECREF(text);
    if (f == NULL)
        return -1;
    int ok = PyFloat_CheckExact(f);
    if (ok)
        *freq = PyFloat_AS_DOUBLE(f);
    Py_DECREF(f);
    return ok;
}

/* The frequency of the plain token t[0:n] as _tokens_zipf finds it (the list's frequency of
 * its smashed form, times its digits' estimate): 1, 0 when the list lacks the smashed form,
 * -1 on error, -2 when the list or a rule holds something else than a float. */
static int token_freq(const char *t, Py_ssize_t n, State *s, double *freq)
{
    char smashed[MAX_KEY + 1];
    int number = 1;
    for (Py_ssize_t i = 0; i < n; i++)
        number &= is_digit(t[i]);
    memcpy(smashed, t, (size_t)n); /* smash_numbers: each matched run's digits made "0" */
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t j = number_run(t, i, n);
        for (Py_ssize_t x = i; x < j; x++)
            if (is_digit(t[x]))
                smashed[x] = '0';
        i = j > i ? j : i + 1;
    }
    PyObject *text = PyUnicode_FromStringAndSize(smashed, n);
    if (text == NULL)
        return -1;
    PyObject *found = PyDict_GetItemWithError(s->frequencies, text);
    Py_DECREF(text);
    if (found == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyFloat_CheckExact(found))
        return -2;
    *freq = PyFloat_AS_DOUBLE(found);
    if (memcmp(smashed, t, (size_t)n) == 0)
        return 1;
    double times = 1.0; /* digits: their own frequency estimate */
    int ok;
    if (number) { /* year_freq or benford_freq of the token */
        if ((ok = digits_freq(t, n, s, &times)) <= 0)
            return ok < 0 ? -1 : -2;
    }
    else { /* digit_freq: 1.0 times that of each run of digits of each matched run */
        for (Py_ssize_t i = 0; i < n;) {
            Py_ssize_t j = number_run(t, i, n);
            for (Py_ssize_t x = i; x < j;) {
                Py_ssize_t y = x;
                while (y < j && is_digit(t[y]))
                    y++;
                if (y == x) {
                    x++;
                    continue;
                }
                double f;
                if ((ok = digits_freq(t + x, y - x, s, &f)) <= 0)
                    return ok < 0 ? -1 : -2;
                times *= f;
                x = y;
            }
            i = j > i ? j : i + 1;
        }
    }
    *freq *= times;
    return 1;
}

/* The Zipf value of an English key whose tokens are plain (_english_tokens, then _tokens_zipf:
 * the same floating-point operations in the same order, rounded by round): a new reference,
 * or NULL without an error when the key is another one (the caller asks memo[key]), NULL with
 * one on error. */
static PyObject *english_zipf(PyObject *key, State *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (n == 0 || n > MAX_KEY)
        return NULL;
    char k[MAX_KEY + 1];
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++) { /* ASCII, with hyphens and dashes made "-" (_DASHES) */
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128)
            k[i] = (char)c;
        else if ((c >= 0x2010 && c <= 0x2015) || c == 0x2212)
            k[i] = '-';
        else
            return NULL;
    }
    char last = n >= 2 ? k[n - 2] : 0;
    if (n >= 2 && k[n - 1] == '.' &&
        (is_digit(last) || (last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z')))
        n--; /* a final "." after a letter or a digit: dropped */
    for (Py_ssize_t a = 0, b; a <= n; a = b + 1) { /* every token plain, or the Python code */
        for (b = a; b < n && k[b] != '-'; b++)
            ;
        if (!plain_token(k + a, b - a))
            return NULL;
    }
    double one_over_result = 0.0;
    for (Py_ssize_t a = 0, b; a <= n; a = b + 1) {
        for (b = a; b < n && k[b] != '-'; b++)
            ;
        double freq;
        int found = token_freq(k + a, b - a, s, &freq);
        if (found == 0) /* a token wordfreq does not know: the minimum */
            return rounded(log(s->minimum) / LOG_10 + 9.0, 2, s);
        if (found < 0 || !(freq > 0))
            return NULL; /* -2 or no frequency (1.0 / 0.0 raises): no error, the Python code */
        one_over_result += 1.0 / freq;
    }
    double unrounded = 1.0 / one_over_result;
    if (s->minimum > unrounded) /* max(..., minimum) */
        unrounded = s->minimum;
    PyObject *freq = rounded(unrounded, (long)floor(-(log(unrounded) / LOG_10)) + 3, s);
    if (freq == NULL || !PyFloat_CheckExact(freq)) {
        Py_XDECREF(freq);
        return NULL;
    }
    double f = PyFloat_AS_DOUBLE(freq);
    Py_DECREF(freq);
    return rounded(log(f) / LOG_10 + 9.0, 2, s);
}

/* memo[key] of an exact str key (a new reference to a float), or NULL on error (a TypeError
 * when the memo gives anything but a float). A key the memo lacks: its Zipf value computed
 * here when _zipf's direct look-up or English tokens apply, its weight stored as __missing__
 * stores it; any other through memo[key], i.e. the Python code. */
static PyObject *key_weight(PyObject *key, State *s)
{
    PyObject *weight = PyDict_GetItemWithError(s->memo, key);
    if (weight != NULL) {
        Py_INCREF(weight);
    }
    else {
        if (PyErr_Occurred())
            return NULL;
        PyObject *zipf = NULL;
        if (s->direct || lower_word(key))
            zipf = word_zipf(key, s);
        else if (s->year_freq != Py_None)
            zipf = english_zipf(key, s);
        if (zipf == NULL && PyErr_Occurred())
            return NULL;
        if (zipf != NULL && PyFloat_CheckExact(zipf)) { /* max(WEIGHT_FLOOR, CEILING - zipf) */
            double value = s->ceiling - PyFloat_AS_DOUBLE(zipf);
            weight = value > s->floor ? PyFloat_FromDouble(value) : Py_NewRef(s->floor_value);
            if (weight != NULL && PyDict_GET_SIZE(s->memo) >= s->size)
                PyDict_Clear(s->memo);
            if (weight != NULL && PyDict_SetItem(s->memo, key, weight) < 0)
                Py_CLEAR(weight);
            Py_DECREF(zipf);
            if (weight == NULL)
                return NULL;
        }
        else {
            Py_XDECREF(zipf);
            weight = PyObject_GetItem(s->memo, key); /* the reference: __missing__ */
            if (weight == NULL)
                return NULL;
        }
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

/* weigh's result (a new reference), or NULL on error. */
static PyObject *weigh_of(PyObject *keys, PyObject *numeric, PyObject *pieces, State *state)
{
    State s = *state;
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

static PyObject *py_weigh(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "weigh(keys, numeric, pieces, state) takes 4 arguments");
        return NULL;
    }
    /* Python code may run (round, __missing__...): the arguments are held, as a caller may
     * only lend them (functools.partial) */
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[4];
    for (int i = 0; i < 4; i++) {
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    State s;
    PyObject *result = state_read(held[3], &s) < 0 ? NULL : weigh_of(held[0], held[1], held[2], &s);
    for (int i = 0; i < 4; i++)
        Py_DECREF(held[i]);
    return result;
}

/* tp_dealloc of a tuple subclass made by a class statement (read at import). */
static destructor class_dealloc;

/* Whether tp_alloc(type, 3) with its three items set makes a valid object of `type`: tuple, or
 * classes made by class statements down to tuple (a named tuple), not a struct sequence. */
static int plain_tuple_type(PyTypeObject *type)
{
    for (; type != &PyTuple_Type; type = type->tp_base)
        if (type == NULL || !(type->tp_flags & Py_TPFLAGS_HEAPTYPE) ||
            type->tp_dealloc != class_dealloc)
            return 0;
    return 1;
}

#define TUPLE_OF(tuple, n) (PyTuple_CheckExact(tuple) && PyTuple_GET_SIZE(tuple) == (n))

/* weighted's result (a new reference), or NULL on error. */
static PyObject *weighted_of(PyObject *const *args)
{
    PyObject *cache = args[0], *type = args[2], *fallback = args[4], *reference = args[5];
    if (!PyDict_CheckExact(cache) || !PyLong_CheckExact(args[1]) || !PyType_Check(type) ||
        !plain_tuple_type((PyTypeObject *)type) || !PyCallable_Check(fallback) ||
        !PyTuple_Check(reference) || PyTuple_GET_SIZE(reference) != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "weighted(cache: dict, size: int, result_type: a tuple class, state, "
                        "fallback, reference: a tuple of 5 items)");
        return NULL;
    }
    Py_ssize_t size = PyLong_AsSsize_t(args[1]);
    State s;
    if ((size == -1 && PyErr_Occurred()) || state_read(args[3], &s) < 0)
        return NULL;
    PyObject *keys = PyTuple_GET_ITEM(reference, 0), *numeric = PyTuple_GET_ITEM(reference, 2),
             *pieces = PyTuple_GET_ITEM(reference, 3);
    PyObject *found = PyDict_GetItemWithError(cache, keys);
    if (found != NULL) {
        Py_INCREF(found);
    }
    else {
        if (PyErr_Occurred())
            return NULL;
        found = weigh_of(keys, numeric, pieces, &s);
        if (found == Py_None) { /* the Python code */
            PyObject *call[3] = {keys, numeric, pieces};
            Py_SETREF(found, PyObject_Vectorcall(fallback, call, 3, NULL));
        }
        if (found == NULL)
            return NULL;
        if (TUPLE_OF(found, 3)) { /* stored as LenientMatcher.weighted stores it */
            if (PyDict_GET_SIZE(cache) >= size)
                PyDict_Clear(cache);
            if (PyDict_SetItem(cache, keys, found) < 0)
                Py_CLEAR(found);
        }
    }
    if (found == NULL)
        return NULL;
    if (!TUPLE_OF(found, 3)) {
        Py_DECREF(found);
        PyErr_SetString(PyExc_TypeError, "weighted: the weights are not a tuple of 3 items");
        return NULL;
    }
    /* what tuple.__new__(result_type, found) makes */
    PyObject *result = ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 3);
    for (Py_ssize_t i = 0; result != NULL && i < 3; i++)
        PyTuple_SET_ITEM(result, i, Py_NewRef(PyTuple_GET_ITEM(found, i)));
    Py_DECREF(found);
    return result;
}

static PyObject *py_weighted(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "weighted(cache, size, result_type, state, fallback, reference) takes 6 "
                        "arguments");
        return NULL;
    }
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[6];
    for (int i = 0; i < 6; i++) { /* held: see py_weigh */
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = weighted_of(held);
    for (int i = 0; i < 6; i++)
        Py_DECREF(held[i]);
    return result;
}

static PyMethodDef METHODS[] = {

    {"weigh", (PyCFunction)(void (*)(void))py_weigh, METH_FASTCALL,
     "weigh(keys, numeric, pieces, state) -> (weights, total, part_weights), or None."},
    {"weighted", (PyCFunction)(void (*)(void))py_weighted, METH_FASTCALL,
     "weighted(cache, size, result_type, state, fallback, reference) -> "
     "result_type(cache[reference's keys]), weighed first when the cache lacks them."},
    {NULL, NULL, 0, NULL},
};

/* ---- module init: multi-phase (PEP 489) ------------------------------------------------
 * Process-wide static state stays (the numbers 2 and 0.0, builtins.sum, the tuple subclasses'
 * deallocator read at import): one copy for the process, made for the main interpreter's objects.
 * (process_state.h: so the module loads in the main interpreter only). */
static int exec_module(PyObject *module)
{
    (void)module;
    if (lexeval_main_interpreter_only("lexeval.native.weights") < 0)
        return -1;
    if ((TWO == NULL && (TWO = PyLong_FromLong(2)) == NULL) ||
        (ZERO == NULL && (ZERO = PyFloat_FromDouble(0.0)) == NULL))
        return -1;
    PyObject *probe = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){}", "probe",
                                            (PyObject *)&PyTuple_Type);
    if (probe == NULL)
        return -1;
    class_dealloc = ((PyTypeObject *)probe)->tp_dealloc;
    Py_DECREF(probe);
    volatile double ten = 10.0; /* not folded by the compiler: libm's log, as math.log's */
    LOG_10 = log(ten);
#if PY_VERSION_HEX >= 0x030C0000
    if (SUM == NULL) {
        PyObject *builtins = PyImport_ImportModule("builtins");
        if (builtins == NULL)
            return -1;
        SUM = PyObject_GetAttrString(builtins, "sum");
        Py_DECREF(builtins);
        if (SUM == NULL)
            return -1;
    }
#endif
    return 0;
}

static PyModuleDef_Slot SLOTS[] = {
    {Py_mod_exec, (void *)exec_module},
    LEXEVAL_PROCESS_WIDE_STATE_SLOTS
    {0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.weights",
    "The compiled fast path of a reference's keyword weights (see lexeval.native).", 0, METHODS,
    SLOTS,
};

PyMODINIT_FUNC PyInit_weights(void) { return PyModuleDef_Init(&MODULE); }
