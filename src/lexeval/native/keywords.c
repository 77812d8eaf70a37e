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
 *       config           (prepare, first_words, first_bigrams, ascii_controls, max_chunk,
 *                        result_type): the Unicode step (called on a text that is not ASCII),
 *                        the first words and the first bigrams of the compound patterns (None:
 *                        no compound terms), whether the Unicode step makes ASCII control
 *                        characters spaces, the length of the longest chunk that may be cached,
 *                        and a subclass of tuple for the result
 *   returns result_type((keywords, keys)) (as tuple.__new__ makes it), two new lists: the
 *       distinct words of the text's chunks in order of first appearance, and every key in
 *       order; or None when two keys side by side are
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
#include <string.h>

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

/* Owned references in an array: on the stack when few, else on the heap. */
#define STACK 128
typedef struct {
    PyObject **item;
    Py_ssize_t n;
    PyObject *stack[STACK];
} Refs;

static int refs_init(Refs *r, Py_ssize_t capacity)
{
    r->n = 0;
    r->item = capacity <= STACK ? r->stack : PyMem_New(PyObject *, capacity);
    if (r->item == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void refs_free(Refs *r)
{
    for (Py_ssize_t i = 0; i < r->n; i++)
        Py_XDECREF(r->item[i]);
    if (r->item != r->stack)
        PyMem_Free(r->item);
}

/* The chunks of a prepared text (new references in `chunks`, initialized here); 1 when one is
 * longer than max_chunk (the chunks are then incomplete), 0, or -1 on error. */
static int split_text(PyObject *text, int controls, Py_ssize_t max_chunk, Refs *chunks)
{
    if (!PyUnicode_IS_ASCII(text)) {
        PyObject *list = PyUnicode_Split(text, NULL, -1);
        if (list == NULL || refs_init(chunks, PyList_GET_SIZE(list)) < 0) {
            Py_XDECREF(list);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
            PyObject *chunk = PyList_GET_ITEM(list, i);
            if (PyUnicode_GET_LENGTH(chunk) > max_chunk) {
                Py_DECREF(list);
                return 1;
            }
            chunks->item[chunks->n++] = Py_NewRef(chunk);
        }
        Py_DECREF(list);
        return 0;
    }
    const unsigned char *table = controls ? SPACE_OR_CONTROL : SPACE;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0;
    if (refs_init(chunks, (n + 1) / 2) < 0) /* a chunk and a separator at least */
        return -1;
    while (i < n) {
        while (i < n && table[s[i]])
            i++;
        if (i == n)
            break;
        Py_ssize_t start = i;
        while (i < n && !table[s[i]])
            i++;
        if (i - start > max_chunk)
            return 1;
        PyObject *chunk = PyUnicode_Substring(text, start, i);
        if (chunk == NULL)
            return -1;
        chunks->item[chunks->n++] = chunk;
    }
    return 0;
}

/* The entry of every chunk (new references in `entries`, n of them): from the cache, then the
 * missing ones from one call of analyze_missing. 0 or -1. */
static int read_entries(Refs *chunks, PyObject *cache, PyObject *analyze_missing, Refs *entries)
{
    Py_ssize_t n = chunks->n;
    PyObject *missing = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyDict_GetItemWithError(cache, chunks->item[i]);
        if (entry == NULL) {
            if (PyErr_Occurred() ||
                (missing == NULL && (missing = PyList_New(0)) == NULL) ||
                PyList_Append(missing, chunks->item[i]) < 0) {
                Py_XDECREF(missing);
                return -1;
            }
        }
        entries->item[entries->n++] = Py_XNewRef(entry);
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
        if (entries->item[i] != NULL)
            continue;
        PyObject *entry = PyDict_GetItemWithError(found, chunks->item[i]);
        if (entry == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, chunks->item[i]);
            Py_DECREF(found);
            return -1;
        }
        entries->item[i] = Py_NewRef(entry);
    }
    Py_DECREF(found);
    return 0;
}

/* Whether every entry is a tuple (pairs, keys, words) of tuples; counts their keys and words. */
static int check_entries(Refs *entries, Py_ssize_t *keys, Py_ssize_t *words)
{
    *keys = *words = 0;
    for (Py_ssize_t i = 0; i < entries->n; i++) {
        PyObject *entry = entries->item[i];
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3 ||
            !PyTuple_Check(PyTuple_GET_ITEM(entry, 1)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(entry, 2))) {
            PyErr_SetString(PyExc_TypeError,
                            "a chunk's entry must be a tuple (pairs, keys, words)");
            return -1;
        }
        *keys += PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 1));
        *words += PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 2));
    }
    return 0;
}

/* A new list of the items of one field of every entry, end to end. */
static PyObject *concatenate(Refs *entries, int field, Py_ssize_t total)
{
    PyObject *list = PyList_New(total);
    if (list == NULL)
        return NULL;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < entries->n; i++) {
        PyObject *items = PyTuple_GET_ITEM(entries->item[i], field);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(items); j++)
            PyList_SET_ITEM(list, k++, Py_NewRef(PyTuple_GET_ITEM(items, j)));
    }
    return list;
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

/* The distinct words of the entries in order of first appearance (dict.fromkeys), as a new
 * list: an open-addressing table of the words seen (the entries hold them meanwhile). */
static PyObject *distinct_words(Refs *entries, Py_ssize_t total)
{
    Py_ssize_t size = 8;
    while (size < 2 * total)
        size <<= 1;
    /* the table, then the words kept in order of first appearance */
    PyObject *small[3 * STACK];
    PyObject **slot = size + total <= 3 * STACK ? small : PyMem_New(PyObject *, size + total);
    if (slot == NULL)
        return PyErr_NoMemory();
    PyObject **kept = slot + size;
    memset(slot, 0, (size_t)size * sizeof(PyObject *));
    Py_ssize_t n_kept = 0, mask = size - 1;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < entries->n; i++) {
        PyObject *words = PyTuple_GET_ITEM(entries->item[i], 2);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(words); j++) {
            PyObject *word = PyTuple_GET_ITEM(words, j);
            if (!PyUnicode_CheckExact(word)) { /* no user __hash__ or __eq__ runs here */
                PyErr_SetString(PyExc_TypeError, "the entries' words must be str");
                goto done;
            }
            Py_hash_t hash = PyObject_Hash(word);
            if (hash == -1)
                goto done;
            Py_ssize_t k = (Py_ssize_t)((size_t)hash & (size_t)mask);
            int seen = 0;
            while (slot[k] != NULL) {
                /* as dict.fromkeys: the same object, or an equal hash and equal text (a str's
                 * hash is cached: the second PyObject_Hash reads it) */
                seen = slot[k] == word ? 1
                       : PyObject_Hash(slot[k]) != hash
                           ? 0
                           : PyUnicode_Compare(slot[k], word) == 0;
                if (seen != 0)
                    break;
                k = (k + 1) & mask;
            }
            if (seen < 0)
                goto done;
            if (!seen) {
                slot[k] = word;
                kept[n_kept++] = word;
            }
        }
    }
    result = PyList_New(n_kept);
    if (result != NULL) {
        for (Py_ssize_t i = 0; i < n_kept; i++)
            PyList_SET_ITEM(result, i, Py_NewRef(kept[i]));
    }
done:
    if (slot != small)
        PyMem_Free(slot);
    return result;
}

/* result_type(keywords, keys) of the entries, or None when a compound term may span them. */
static PyObject *assemble(Refs *entries, PyObject *first_words, PyObject *first_bigrams,
                          PyTypeObject *result_type)
{
    Py_ssize_t n_keys, n_words;
    if (check_entries(entries, &n_keys, &n_words) < 0)
        return NULL;
    PyObject *keys = concatenate(entries, 1, n_keys);
    if (keys == NULL)
        return NULL;
    if (first_words != Py_None) {
        int span = may_span(keys, first_words, first_bigrams);
        if (span != 0) {
            Py_DECREF(keys);
            return span < 0 ? NULL : Py_NewRef(Py_None);
        }
    }
    PyObject *keywords = distinct_words(entries, n_words);
    if (keywords == NULL) {
        Py_DECREF(keys);
        return NULL;
    }
    /* what tuple.__new__(result_type, (keywords, keys)) makes */
    PyObject *result = result_type->tp_alloc(result_type, 2);
    if (result == NULL) {
        Py_DECREF(keys);
        Py_DECREF(keywords);
        return NULL;
    }
    PyTuple_SET_ITEM(result, 0, keywords);
    PyTuple_SET_ITEM(result, 1, keys);
    return result;
}

/* tp_dealloc of a tuple subclass made by a class statement (read at import). */
static destructor class_dealloc;

/* Whether tp_alloc(type, 2) with its two items set makes a valid object of `type`: tuple, or
 * classes made by class statements down to tuple (a named tuple), not a struct sequence such
 * as os.stat_result, whose deallocator reads more items than two. */
static int plain_tuple_type(PyTypeObject *type)
{
    for (; type != &PyTuple_Type; type = type->tp_base)
        if (type == NULL || !(type->tp_flags & Py_TPFLAGS_HEAPTYPE) ||
            type->tp_dealloc != class_dealloc)
            return 0;
    return 1;
}

static PyObject *analysis_of(PyObject *text, PyObject *cache, PyObject *analyze_missing,
                             PyObject *config);

static PyObject *py_analysis(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "analysis(text, cache, analyze_missing, config) takes 4 arguments");
        return NULL;
    }
    /* Python code runs during the call (prepare, analyze_missing): the arguments are held,
     * as a caller may only lend them (functools.partial) */
    for (int i = 0; i < 4; i++)
        Py_INCREF(args[i]);
    PyObject *result = analysis_of(args[0], args[1], args[2], args[3]);
    for (int i = 0; i < 4; i++)
        Py_DECREF(args[i]);
    return result;
}

static PyObject *analysis_of(PyObject *text, PyObject *cache, PyObject *analyze_missing,
                             PyObject *config)
{
    if (!PyDict_Check(cache) || !PyTuple_Check(config) || PyTuple_GET_SIZE(config) != 6) {
        PyErr_SetString(PyExc_TypeError, "analysis(text, cache: dict, analyze_missing, "
                                         "config: tuple of 6)");
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
    PyObject *result_type = PyTuple_GET_ITEM(config, 5);
    if (first_words != Py_None && (!PyAnySet_Check(first_words) || !PyAnySet_Check(first_bigrams))) {
        PyErr_SetString(PyExc_TypeError, "first_words and first_bigrams must be sets or None");
        return NULL;
    }
    if (!PyType_Check(result_type) || !plain_tuple_type((PyTypeObject *)result_type)) {
        PyErr_SetString(PyExc_TypeError,
                        "the result type must be tuple or a class statement's subclass of it");
        return NULL;
    }
    if (!PyUnicode_CheckExact(text)) /* a str subclass may redefine what the reference calls */
        Py_RETURN_NONE;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) /* a legacy string made through the C API */
        return NULL;
#endif

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
    Refs chunks, entries;
    chunks.n = entries.n = 0;
    chunks.item = chunks.stack;
    entries.item = entries.stack;
    PyObject *result = NULL;
    int split = split_text(prepared, controls, max_chunk, &chunks);
    Py_DECREF(prepared);
    if (split == 1)
        result = Py_NewRef(Py_None); /* the reference reads a long chunk piece by piece */
    else if (split == 0 && refs_init(&entries, chunks.n) == 0 &&
             read_entries(&chunks, cache, analyze_missing, &entries) == 0)
        result = assemble(&entries, first_words, first_bigrams, (PyTypeObject *)result_type);
    refs_free(&entries);
    refs_free(&chunks);
    return result;
}

static PyMethodDef METHODS[] = {
    {"analysis", (PyCFunction)(void (*)(void))py_analysis, METH_FASTCALL,
     "analysis(text, cache, analyze_missing, config) -> result_type((keywords, keys)), or "
     "None."},
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
    PyObject *probe = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){}", "probe",
                                            (PyObject *)&PyTuple_Type);
    if (probe == NULL)
        return NULL;
    class_dealloc = ((PyTypeObject *)probe)->tp_dealloc;
    Py_DECREF(probe);
    return PyModule_Create(&MODULE);
}
