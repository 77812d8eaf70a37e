/* lexeval.native.keywords: the compiled fast path of StepProcessor.keyword_analysis.
 *
 * The pure-Python code stays the reference (lexeval.text.processor); this module computes the
 * same values from the processor's chunk cache, and the property tests compare the two:
 *
 *   analysis(text, cache, extra, config)
 *       text    the text to analyze (anything else: None)
 *       cache   the processor's chunk cache, a dict {chunk: (pairs, keys, words)} of tuples
 *       extra   more entries of the same kind, read where the cache has none
 *       config  (prepare, first_words, first_bigrams, ascii_controls, max_chunk): the Unicode
 *               step (called on a text that is not ASCII), the first words and the first
 *               bigrams of the compound patterns (None: no compound terms), whether the Unicode
 *               step makes ASCII control characters spaces, and the length of the longest
 *               chunk that may be cached
 *   returns (keywords, keys), two new lists: the distinct words of the text's chunks in order
 *       of first appearance, and every key in order; or the list of the chunks found in
 *       neither dict (distinct, in order); or None when two keys side by side are the first
 *       two of a compound pattern (the reference merges them), a chunk is longer than
 *       max_chunk (the reference reads it piece by piece), or text is not a str.
 *
 * The white-space chunks of an ASCII text are read here: the Unicode step changes an ASCII
 * text only by making its control characters spaces (with ascii_controls), so they separate
 * chunks as white space does. A text that is not ASCII goes through `prepare` first, then
 * str.split.
 *
 * The function holds the GIL from start to end. Python code runs only in `prepare`, before
 * anything is read from the dicts; afterwards it calls nothing that can run Python code (the
 * dicts and sets are keyed by str and tuples of str), so the borrowed entries stay alive while
 * they are read. Nothing is written to the dicts, and nothing of the host process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The reading of one text: what has been gathered so far. */
typedef struct {
    PyObject *cache;        /* borrowed */
    PyObject *extra;        /* borrowed; NULL when empty */
    PyObject *keys;         /* new list */
    PyObject *words;        /* new list: the words of the entries, duplicates kept */
    PyObject *missing;      /* new list or NULL */
    Py_ssize_t max_chunk;
    int too_long;           /* a chunk longer than max_chunk was seen */
} Reading;

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

static int append_items(PyObject *list, PyObject *tuple)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_Append(list, PyTuple_GET_ITEM(tuple, i)) < 0)
            return -1;
    }
    return 0;
}

/* Look chunk up and gather its keys and words (or note it as missing). 0 or -1 (error). */
static int read_chunk(Reading *r, PyObject *chunk)
{
    PyObject *entry = PyDict_GetItemWithError(r->cache, chunk);
    if (entry == NULL && !PyErr_Occurred() && r->extra != NULL)
        entry = PyDict_GetItemWithError(r->extra, chunk);
    if (entry == NULL) {
        if (PyErr_Occurred())
            return -1;
        if (r->missing == NULL) {
            r->missing = PyList_New(0);
            if (r->missing == NULL)
                return -1;
        }
        int seen = PySequence_Contains(r->missing, chunk);
        if (seen < 0)
            return -1;
        return seen ? 0 : PyList_Append(r->missing, chunk);
    }
    if (r->missing != NULL)
        return 0; /* the result is the missing chunks: nothing more to gather */
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3 ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, 1)) || !PyTuple_Check(PyTuple_GET_ITEM(entry, 2))) {
        PyErr_SetString(PyExc_TypeError, "a chunk's entry must be a tuple (pairs, keys, words)");
        return -1;
    }
    if (append_items(r->keys, PyTuple_GET_ITEM(entry, 1)) < 0)
        return -1;
    return append_items(r->words, PyTuple_GET_ITEM(entry, 2));
}

/* The chunks of an ASCII text, separated by the characters `table` marks. */
static int read_ascii(Reading *r, PyObject *text, const unsigned char *table)
{
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0;
    while (i < n) {
        while (i < n && table[s[i]])
            i++;
        if (i == n)
            break;
        Py_ssize_t start = i;
        while (i < n && !table[s[i]])
            i++;
        if (i - start > r->max_chunk) {
            r->too_long = 1;
            return 0;
        }
        PyObject *chunk = PyUnicode_Substring(text, start, i);
        if (chunk == NULL)
            return -1;
        int rc = read_chunk(r, chunk);
        Py_DECREF(chunk);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int read_split(Reading *r, PyObject *text)
{
    PyObject *chunks = PyUnicode_Split(text, NULL, -1);
    if (chunks == NULL)
        return -1;
    Py_ssize_t n = PyList_GET_SIZE(chunks);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *chunk = PyList_GET_ITEM(chunks, i);
        if (PyUnicode_GET_LENGTH(chunk) > r->max_chunk) {
            r->too_long = 1;
            break;
        }
        if (read_chunk(r, chunk) < 0) {
            Py_DECREF(chunks);
            return -1;
        }
    }
    Py_DECREF(chunks);
    return 0;
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

static PyObject *py_analysis(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "analysis(text, cache, extra, config) takes 4 arguments");
        return NULL;
    }
    PyObject *text = args[0], *cache = args[1], *extra = args[2], *config = args[3];
    if (!PyDict_Check(cache) || !PyDict_Check(extra) || !PyTuple_Check(config) ||
        PyTuple_GET_SIZE(config) != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "analysis(text, cache: dict, extra: dict, config: tuple of 5)");
        return NULL;
    }
    if (!PyUnicode_Check(text))
        Py_RETURN_NONE;
    PyObject *prepare = PyTuple_GET_ITEM(config, 0);
    PyObject *first_words = PyTuple_GET_ITEM(config, 1);
    PyObject *first_bigrams = PyTuple_GET_ITEM(config, 2);
    int controls = PyObject_IsTrue(PyTuple_GET_ITEM(config, 3));
    if (controls < 0)
        return NULL;
    Py_ssize_t max_chunk = PyLong_AsSsize_t(PyTuple_GET_ITEM(config, 4));
    if (max_chunk == -1 && PyErr_Occurred())
        return NULL;
    int compounds = first_words != Py_None;
    if (compounds && (!PyAnySet_Check(first_words) || !PyAnySet_Check(first_bigrams))) {
        PyErr_SetString(PyExc_TypeError, "first_words and first_bigrams must be sets or None");
        return NULL;
    }

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
    Reading r = {cache, PyDict_GET_SIZE(extra) ? extra : NULL, PyList_New(0), PyList_New(0),
                 NULL, max_chunk, 0};
    PyObject *result = NULL;
    if (r.keys == NULL || r.words == NULL)
        goto done;
    int rc = PyUnicode_IS_ASCII(prepared)
                 ? read_ascii(&r, prepared, controls ? SPACE_OR_CONTROL : SPACE)
                 : read_split(&r, prepared);
    if (rc < 0)
        goto done;
    if (r.too_long) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (r.missing != NULL) {
        result = Py_NewRef(r.missing);
        goto done;
    }
    if (compounds) {
        int span = may_span(r.keys, first_words, first_bigrams);
        if (span < 0)
            goto done;
        if (span) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    PyObject *keywords = distinct(r.words);
    if (keywords != NULL)
        result = PyTuple_Pack(2, keywords, r.keys);
    Py_XDECREF(keywords);
done:
    Py_DECREF(prepared);
    Py_XDECREF(r.keys);
    Py_XDECREF(r.words);
    Py_XDECREF(r.missing);
    return result;
}

static PyMethodDef METHODS[] = {
    {"analysis", (PyCFunction)(void (*)(void))py_analysis, METH_FASTCALL,
     "analysis(text, cache, extra, config) -> (keywords, keys), the missing chunks, or None."},
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
