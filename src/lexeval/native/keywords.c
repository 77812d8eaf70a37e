/* lexeval.native.keywords: the compiled fast path of StepProcessor.keyword_analysis.
 *
 * The pure-Python code stays the reference (lexeval.text.processor); this module computes the
 * same values from the processor's chunk cache, and the property tests compare the two:
 *
 *   analysis(text, cache, analyze_missing, config)
 *       text             the text to analyze (anything but a str, a str subclass too: None)
 *       cache            the processor's chunk cache, {chunk: (pairs, keys, words)} of tuples
 *       analyze_missing  called with the list of the chunks the cache lacks (in order,
 *                        duplicates kept); returns a dict of their entries
 *       config           (prepare, first_words, first_bigrams, ascii_controls, max_chunk): the
 *                        Unicode step (called on a text that is not ASCII), the first words and
 *                        the first bigrams of the compound patterns (None: no compound terms),
 *                        whether the Unicode step makes ASCII control characters spaces, and
 *                        the length of the longest chunk that may be cached
 *   returns (keywords, keys), two new lists: the distinct words of the text's chunks in order
 *       of first appearance, and every key in order; or None when two keys side by side are
 *       the first two of a compound pattern (the reference merges them), a chunk is longer
 *       than max_chunk (the reference reads it piece by piece), or text is not an exact str.
 *
 * The white-space chunks of an ASCII text are read here: the Unicode step changes an ASCII
 * text only by making its control characters spaces (with ascii_controls), so they separate
 * chunks as white space does. A text that is not ASCII goes through `prepare` first, then
 * str.split.
 *
 * The function holds the GIL from start to end. Python code runs in `prepare` and
 * `analyze_missing` (which write the caches, and may let other threads run): every entry read
 * from a dict is held by a reference of its own until the end, so a cache cleared meanwhile
 * changes nothing. Otherwise it calls nothing that can run Python code (the dicts and sets
 * are keyed by str and tuples of str). Nothing is written to the dicts here, and nothing of
 * the host process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Which ASCII characters separate chunks: str.split's white space, and with ascii_controls
 * every control character (the Unicode step makes them spaces). */
static unsigned char SPACE[128];
static unsigned char SPACE_OR_CONTROL[128];

static void init_tables(void)
{
    static const char white[] = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
    for (const char *c = white; *c; c++)
        SPACE[(unsigned char)*c] = 1;
    for (int c = 0; c <= 0x20; c++)
        SPACE_OR_CONTROL[c] = 1;
    SPACE_OR_CONTROL[0x7f] = 1;
}

/* The chunks of a prepared text as a new list; *too_long is set (and the list is incomplete)
 * when one is longer than max_chunk. */
static PyObject *split_text(PyObject *text, int controls, Py_ssize_t max_chunk, int *too_long)
{
    if (!PyUnicode_IS_ASCII(text)) {
        PyObject *chunks = PyUnicode_Split(text, NULL, -1);
        if (chunks == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(chunks); i++) {
            if (PyUnicode_GET_LENGTH(PyList_GET_ITEM(chunks, i)) > max_chunk)
                *too_long = 1;
        }
        return chunks;
    }
    const unsigned char *table = controls ? SPACE_OR_CONTROL : SPACE;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0;
    PyObject *chunks = PyList_New(0);
    if (chunks == NULL)
        return NULL;
    while (i < n) {
        while (i < n && table[s[i]])
            i++;
        if (i == n)
            break;
        Py_ssize_t start = i;
        while (i < n && !table[s[i]])
            i++;
        if (i - start > max_chunk) {
            *too_long = 1;
            return chunks;
        }
        PyObject *chunk = PyUnicode_Substring(text, start, i);
        if (chunk == NULL || PyList_Append(chunks, chunk) < 0) {
            Py_XDECREF(chunk);
            Py_DECREF(chunks);
            return NULL;
        }
        Py_DECREF(chunk);
    }
    return chunks;
}

static int append_items(PyObject *list, PyObject *tuple)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_Append(list, PyTuple_GET_ITEM(tuple, i)) < 0)
            return -1;
    }
    return 0;
}

/* Append the keys and the words of an entry (pairs, keys, words). */
static int gather(PyObject *entry, PyObject *keys, PyObject *words)
{
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3 ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, 1)) || !PyTuple_Check(PyTuple_GET_ITEM(entry, 2))) {
        PyErr_SetString(PyExc_TypeError, "a chunk's entry must be a tuple (pairs, keys, words)");
        return -1;
    }
    if (append_items(keys, PyTuple_GET_ITEM(entry, 1)) < 0)
        return -1;
    return append_items(words, PyTuple_GET_ITEM(entry, 2));
}

/* 1 when two keys side by side are a first bigram of a pattern, 0 when not, -1 on error. */
static int may_span(PyObject *keys, PyObject *first_words, PyObject *first_bigrams)
{
    Py_ssize_t n = PyList_GET_SIZE(keys);
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        int first = PySet_Contains(first_words, key);
        if (first <= 0) {
            if (first < 0)
                return -1;
            continue;
        }
        PyObject *bigram = PyTuple_Pack(2, key, PyList_GET_ITEM(keys, i + 1));
        if (bigram == NULL)
            return -1;
        int found = PySet_Contains(first_bigrams, bigram);
        Py_DECREF(bigram);
        if (found != 0)
            return found;
    }
    return 0;
}

/* The distinct items of a list of str, in order of first appearance (dict.fromkeys). */
static PyObject *distinct(PyObject *words)
{
    Py_ssize_t n = PyList_GET_SIZE(words);
    PyObject *out = PyList_New(0);
    if (out == NULL || n == 0)
        return out;
    PyObject *seen = PySet_New(NULL);
    if (seen == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *word = PyList_GET_ITEM(words, i);
        Py_ssize_t before = PySet_GET_SIZE(seen);
        if (PySet_Add(seen, word) < 0 ||
            (PySet_GET_SIZE(seen) != before && PyList_Append(out, word) < 0)) {
            Py_DECREF(seen);
            Py_DECREF(out);
            return NULL;
        }
    }
    Py_DECREF(seen);
    return out;
}

/* The entry of every chunk (new references): from the cache, then the missing ones from one
 * call of analyze_missing. 0 or -1. */
static int read_entries(PyObject *chunks, PyObject *cache, PyObject *analyze_missing,
                        PyObject **entries)
{
    Py_ssize_t n = PyList_GET_SIZE(chunks);
    PyObject *missing = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *chunk = PyList_GET_ITEM(chunks, i);
        PyObject *entry = PyDict_GetItemWithError(cache, chunk);
        if (entry != NULL) {
            entries[i] = Py_NewRef(entry);
            continue;
        }
        if (PyErr_Occurred()) {
            Py_XDECREF(missing);
            return -1;
        }
        if (missing == NULL && (missing = PyList_New(0)) == NULL)
            return -1;
        if (PyList_Append(missing, chunk) < 0) {
            Py_DECREF(missing);
            return -1;
        }
    }
    if (missing == NULL)
        return 0;
    PyObject *found = PyObject_CallOneArg(analyze_missing, missing);
    Py_DECREF(missing);
    if (found == NULL)
        return -1;
    if (!PyDict_Check(found)) {
        Py_DECREF(found);
        PyErr_SetString(PyExc_TypeError, "analyze_missing must return a dict");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (entries[i] != NULL)
            continue;
        PyObject *chunk = PyList_GET_ITEM(chunks, i);
        PyObject *entry = PyDict_GetItemWithError(found, chunk);
        if (entry == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, chunk);
            Py_DECREF(found);
            return -1;
        }
        entries[i] = Py_NewRef(entry);
    }
    Py_DECREF(found);
    return 0;
}

/* (keywords, keys) of the entries, or None when a compound term may span them. */
static PyObject *assemble(PyObject **entries, Py_ssize_t n, PyObject *first_words,
                          PyObject *first_bigrams)
{
    PyObject *keys = PyList_New(0), *words = PyList_New(0), *result = NULL;
    if (keys == NULL || words == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (gather(entries[i], keys, words) < 0)
            goto done;
    }
    if (first_words != Py_None) {
        int span = may_span(keys, first_words, first_bigrams);
        if (span < 0)
            goto done;
        if (span) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    PyObject *keywords = distinct(words);
    if (keywords != NULL) {
        result = PyTuple_Pack(2, keywords, keys);
        Py_DECREF(keywords);
    }
done:
    Py_XDECREF(keys);
    Py_XDECREF(words);
    return result;
}

static PyObject *py_analysis(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "analysis(text, cache, analyze_missing, config) takes 4 arguments");
        return NULL;
    }
    PyObject *text = args[0], *cache = args[1], *analyze_missing = args[2], *config = args[3];
    if (!PyDict_Check(cache) || !PyTuple_Check(config) || PyTuple_GET_SIZE(config) != 5) {
        PyErr_SetString(PyExc_TypeError, "analysis(text, cache: dict, analyze_missing, "
                                         "config: tuple of 5)");
        return NULL;
    }
    PyObject *prepare = PyTuple_GET_ITEM(config, 0);
    PyObject *first_words = PyTuple_GET_ITEM(config, 1);
    PyObject *first_bigrams = PyTuple_GET_ITEM(config, 2);
    int controls = PyObject_IsTrue(PyTuple_GET_ITEM(config, 3));
    if (controls < 0)
        return NULL;
    Py_ssize_t max_chunk = PyLong_AsSsize_t(PyTuple_GET_ITEM(config, 4));
    if (max_chunk == -1 && PyErr_Occurred())
        return NULL;
    if (first_words != Py_None && (!PyAnySet_Check(first_words) || !PyAnySet_Check(first_bigrams))) {
        PyErr_SetString(PyExc_TypeError, "first_words and first_bigrams must be sets or None");
        return NULL;
    }
    if (!PyUnicode_CheckExact(text)) /* a str subclass may redefine what the reference calls */
        Py_RETURN_NONE;

    PyObject *prepared;
    if (PyUnicode_IS_ASCII(text)) {
        prepared = Py_NewRef(text);
    }
    else {
        prepared = PyObject_CallOneArg(prepare, text);
        if (prepared == NULL)
            return NULL;
        if (!PyUnicode_Check(prepared)) {
            Py_DECREF(prepared);
            PyErr_SetString(PyExc_TypeError, "prepare must return a str");
            return NULL;
        }
    }
    int too_long = 0;
    PyObject *chunks = split_text(prepared, controls, max_chunk, &too_long);
    Py_DECREF(prepared);
    if (chunks == NULL)
        return NULL;
    if (too_long) {
        Py_DECREF(chunks);
        Py_RETURN_NONE;
    }
    Py_ssize_t n = PyList_GET_SIZE(chunks);
    PyObject *small[64];
    PyObject **entries = n <= 64 ? small : PyMem_New(PyObject *, n);
    if (entries == NULL) {
        Py_DECREF(chunks);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++)
        entries[i] = NULL;
    PyObject *result = NULL;
    if (read_entries(chunks, cache, analyze_missing, entries) == 0)
        result = assemble(entries, n, first_words, first_bigrams);
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(entries[i]);
    if (entries != small)
        PyMem_Free(entries);
    Py_DECREF(chunks);
    return result;
}

static PyMethodDef METHODS[] = {
    {"analysis", (PyCFunction)(void (*)(void))py_analysis, METH_FASTCALL,
     "analysis(text, cache, analyze_missing, config) -> (keywords, keys), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.keywords",
    "The compiled fast path of StepProcessor.keyword_analysis (see lexeval.native).", -1,
    METHODS,
};

PyMODINIT_FUNC PyInit_keywords(void)
{
    init_tables();
    return PyModule_Create(&MODULE);
}
