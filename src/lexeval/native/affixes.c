/* lexeval.native.affixes: the compiled fast path of spaCy's affix rules on the commonest
 * white-space chunks (a word with plain punctuation at its edges and a clitic at its end:
 * "Paris," "(1990)." '"well-known"' "Peter's.").
 *
 * The pure-Python code stays the reference (lexeval.text.affixes: AffixRules.split_edges and
 * AffixRules.split_rules); this module decides a subset of the chunks split_edges decides,
 * with the same tokens, and says None for every other chunk (the Python code then decides):
 *
 *   split(tables, chunk)  the tokens of chunk; None when it does not decide; False when the
 *                         chunk is no word with edges (AffixRules.split_edges does not decide
 *                         either: after the edges and the clitic, no technical term is left)
 *
 * tables (built by lexeval.text.affixes.EdgeSplit) is a tuple:
 *   flags       bytes of 128: per ASCII character, the bits HEAD (always a one-character
 *               prefix), TAIL (always a one-character suffix), RUN (a tail whose run of two
 *               or more is one suffix, ".."), NO_PREFIX (no prefix alternative begins with it),
 *               NO_SUFFIX (no suffix alternative ends with it)
 *   heads       str: the heads that are not ASCII
 *   tails       str: the tails that are not ASCII
 *   cores       frozenset: every special case stripped of its edge characters
 *   specials    frozenset: every special case
 *   prefix_guard  int: the prefix alternatives that can begin with an ASCII letter or digit are
 *               literals with a character no word holds, at most this long ("US$"); -1:
 *               unknown (then only NO_PREFIX decides)
 *   suffix_guard  int: the same of the suffix alternatives that can end with one ("'s"), but
 *               for the ones that match only after an ASCII digit ("(?<=[0-9])km") when
 *   suffix_digit  bool: is true (they cannot match after a word without one)
 *   clitics     str: the clitics split off a word's end, two characters each ("'s'S")
 *
 * The word must be word characters joined by single separators (-./@), a part of lexeval's
 * technical-term rule (TECH_TOKEN_RE), so that the token rule keeps it whole; a chunk with a
 * word the rule may not keep, a special case in sight, or a search the tables do not decide,
 * is left to Python. The function holds the GIL, keeps no state and
 * calls no Python code but set membership (a member of the frozensets that is no str may have
 * a Python __eq__; the function holds its own references to its arguments meanwhile).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { HEAD = 1, TAIL = 2, RUN = 4, NO_PREFIX = 8, NO_SUFFIX = 16 };

/* Longest run of edge characters whose special cases are checked here (longer: Python). */
#define MAX_EDGE_RUN 6

static int has_flag(const unsigned char *flags, PyObject *others, Py_UCS4 ch, int flag)
{
    if (ch < 128)
        return (flags[ch] & flag) != 0;
    if (flag != HEAD && flag != TAIL)
        return 0;
    return PyUnicode_FindChar(others, ch, 0, PyUnicode_GET_LENGTH(others), 1) >= 0;
}

static int is_word(Py_UCS4 ch) { return ch == '_' || Py_UNICODE_ISALNUM(ch); }

static int is_ascii_alnum(Py_UCS4 ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int has_ascii_digit(int kind, const void *data, Py_ssize_t start, Py_ssize_t end)
{
    for (Py_ssize_t k = start; k < end; k++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, k);
        if (ch >= '0' && ch <= '9')
            return 1;
    }
    return 0;
}

static int is_separator(Py_UCS4 ch) { return ch == '-' || ch == '.' || ch == '/' || ch == '@'; }

/* Whether chunk[start:end] is word characters joined by single separators. */
static int is_word_run(int kind, const void *data, Py_ssize_t start, Py_ssize_t end)
{
    if (!is_word(PyUnicode_READ(kind, data, start)) || !is_word(PyUnicode_READ(kind, data, end - 1)))
        return 0;
    int separated = 0;
    for (Py_ssize_t k = start + 1; k < end - 1; k++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, k);
        if (is_separator(ch)) {
            if (separated)
                return 0;
            separated = 1;
        }
        else if (is_word(ch))
            separated = 0;
        else
            return 0;
    }
    return 1;
}

/* Whether chunk[start:end] is a technical term (TECH_TOKEN_RE's fullmatch: a word run after an
 * optional ".", before an optional "++" or "#"). */
static int is_tech(int kind, const void *data, Py_ssize_t start, Py_ssize_t end)
{
    if (start < end && PyUnicode_READ(kind, data, start) == '.')
        start++;
    if (end - start >= 2 && PyUnicode_READ(kind, data, end - 1) == '+' &&
        PyUnicode_READ(kind, data, end - 2) == '+')
        end -= 2;
    else if (end > start && PyUnicode_READ(kind, data, end - 1) == '#')
        end--;
    return start < end && is_word_run(kind, data, start, end);
}

/* 1 when chunk[start:end] is in the set, 0 when not, -1 on error. */
static int substring_in(PyObject *chunk, Py_ssize_t start, Py_ssize_t end, PyObject *set)
{
    PyObject *piece = PyUnicode_Substring(chunk, start, end);
    if (piece == NULL)
        return -1;
    int found = PySet_Contains(set, piece);
    Py_DECREF(piece);
    return found;
}

/* 1 when a run of two or more of the one-character tokens chunk[start:end] is a special case
 * (spaCy's final special-case matcher would join them), 0 when none is, -1 on error. */
static int spells_special(PyObject *chunk, Py_ssize_t start, Py_ssize_t end, PyObject *specials)
{
    for (Py_ssize_t i = start; i < end - 1; i++)
        for (Py_ssize_t j = i + 2; j <= end; j++) {
            int found = substring_in(chunk, i, j, specials);
            if (found)
                return found;
        }
    return 0;
}

/* split() on checked arguments; tables and chunk are held by the caller for the call. */
static PyObject *split_chunk(PyObject *tables, PyObject *chunk)
{
    PyObject *flag_bytes = PyTuple_GET_ITEM(tables, 0), *heads = PyTuple_GET_ITEM(tables, 1),
             *tails = PyTuple_GET_ITEM(tables, 2), *cores = PyTuple_GET_ITEM(tables, 3),
             *specials = PyTuple_GET_ITEM(tables, 4), *clitics = PyTuple_GET_ITEM(tables, 8);
    if (!PyBytes_CheckExact(flag_bytes) || PyBytes_GET_SIZE(flag_bytes) != 128 ||
        !PyUnicode_CheckExact(heads) || !PyUnicode_CheckExact(tails) ||
        !PyFrozenSet_CheckExact(cores) || !PyFrozenSet_CheckExact(specials) ||
        !PyUnicode_CheckExact(clitics)) {
        PyErr_SetString(PyExc_TypeError, "split(tables, chunk): malformed tables");
        return NULL;
    }
    /* each conversion checked before the next (none may run with an exception set); a bool,
     * not any object, so that no __bool__ (Python code) runs here */
    PyObject *digit_flag = PyTuple_GET_ITEM(tables, 7);
    if (!PyBool_Check(digit_flag)) {
        PyErr_SetString(PyExc_TypeError, "split(tables, chunk): malformed tables");
        return NULL;
    }
    int suffix_digit = digit_flag == Py_True;
    Py_ssize_t prefix_guard = PyLong_AsSsize_t(PyTuple_GET_ITEM(tables, 5));
    if (prefix_guard == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t suffix_guard = PyLong_AsSsize_t(PyTuple_GET_ITEM(tables, 6));
    if (suffix_guard == -1 && PyErr_Occurred())
        return NULL;
    const unsigned char *flags = (const unsigned char *)PyBytes_AS_STRING(flag_bytes);
#if PY_VERSION_HEX < 0x030C0000
    /* a legacy (not ready) string has no length or data until made ready */
    if (PyUnicode_READY(chunk) < 0 || PyUnicode_READY(heads) < 0 || PyUnicode_READY(tails) < 0 ||
        PyUnicode_READY(clitics) < 0)
        return NULL;
#endif
    int kind = PyUnicode_KIND(chunk);
    const void *data = PyUnicode_DATA(chunk);
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);

    Py_ssize_t start = 0, body_end = n;
    while (start < n && has_flag(flags, heads, PyUnicode_READ(kind, data, start), HEAD))
        start++;
    while (body_end > start &&
           has_flag(flags, tails, PyUnicode_READ(kind, data, body_end - 1), TAIL))
        body_end--;
    /* the word, then a clitic ("'s") when the body ends with one after a word */
    Py_ssize_t end = body_end;
    if (body_end - start > 2) {
        Py_UCS4 c1 = PyUnicode_READ(kind, data, body_end - 2);
        Py_UCS4 c2 = PyUnicode_READ(kind, data, body_end - 1);
        Py_ssize_t m = PyUnicode_GET_LENGTH(clitics);
        for (Py_ssize_t k = 0; k + 1 < m; k += 2)
            if (PyUnicode_READ_CHAR(clitics, k) == c1 && PyUnicode_READ_CHAR(clitics, k + 1) == c2) {
                end = body_end - 2;
                break;
            }
    }
    Py_ssize_t clitic = body_end - end;
    if (end == start || !is_tech(kind, data, start, end))
        Py_RETURN_FALSE;
    if (!is_word_run(kind, data, start, end))
        Py_RETURN_NONE;
    for (Py_ssize_t k = body_end + 1; k < n; k++) {  /* ".." at the end is one suffix */
        Py_UCS4 ch = PyUnicode_READ(kind, data, k);
        if (ch < 128 && (flags[ch] & RUN) && PyUnicode_READ(kind, data, k - 1) == ch)
            Py_RETURN_NONE;
    }
    Py_ssize_t n_left = start, n_suffix = n - body_end, n_right = n_suffix + (clitic > 0);
    if (n_left > MAX_EDGE_RUN || n_suffix > MAX_EDGE_RUN)
        Py_RETURN_NONE;
    /* once one side is bare, the searches on it must find nothing: known from the word's
     * first (last) character, or from its size and digits (the guards) */
    Py_ssize_t size = end - start;
    int digits = -1;  /* whether the word holds an ASCII digit; -1: not looked at */
    if (n_left < n_right) {
        Py_UCS4 first = PyUnicode_READ(kind, data, start);
        if (!(first < 128 && (flags[first] & NO_PREFIX)) &&
            !(is_ascii_alnum(first) && prefix_guard >= 0 && size >= prefix_guard))
            Py_RETURN_NONE;
    }
    else if (n_right < n_left) {
        Py_UCS4 last = PyUnicode_READ(kind, data, end - 1);
        if (!(last < 128 && (flags[last] & NO_SUFFIX))) {
            if (!(is_ascii_alnum(last) && suffix_guard >= 0 && size >= suffix_guard))
                Py_RETURN_NONE;
            digits = has_ascii_digit(kind, data, start, end);
            if (suffix_digit && digits)
                Py_RETURN_NONE;
        }
    }
    /* the turn that takes the clitic: the suffix search finds it, not more (no literal
     * alternative is longer, none after a digit can match without one) */
    if (clitic) {
        if (suffix_guard < 0 || suffix_guard > clitic)
            Py_RETURN_NONE;
        if (digits < 0)
            digits = has_ascii_digit(kind, data, start, end);
        if (suffix_digit && digits)
            Py_RETURN_NONE;
    }
    int found = substring_in(chunk, start, end, cores);
    if (found == 0 && clitic)
        found = substring_in(chunk, start, body_end, cores);
    if (found == 0 && n_left > 1)
        found = spells_special(chunk, 0, start, specials);
    if (found == 0 && n_suffix > 1)
        found = spells_special(chunk, body_end, n, specials);
    /* runs of two or more tokens that begin with the clitic */
    for (Py_ssize_t k = body_end + 1; found == 0 && clitic && k <= n; k++)
        found = substring_in(chunk, end, k, specials);
    if (found < 0)
        return NULL;
    if (found)
        Py_RETURN_NONE;

    PyObject *tokens = PyList_New(n_left + 1 + n_right);
    if (tokens == NULL)
        return NULL;
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *token;
        if (k == start) {
            if (start == 0 && end == n) {
                Py_INCREF(chunk);
                token = chunk;
            }
            else
                token = PyUnicode_Substring(chunk, start, end);
            k = end - 1;
        }
        else if (k == end && clitic) {
            token = PyUnicode_Substring(chunk, end, body_end);
            k = body_end - 1;
        }
        else
            token = PyUnicode_Substring(chunk, k, k + 1);
        if (token == NULL) {
            Py_DECREF(tokens);
            return NULL;
        }
        PyList_SET_ITEM(tokens, at++, token);
    }
    return tokens;
}

static PyObject *py_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "split(tables, chunk) takes two arguments");
        return NULL;
    }
    PyObject *tables = args[0], *chunk = args[1];
    if (!PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != 9 || !PyUnicode_CheckExact(chunk)) {
        PyErr_SetString(PyExc_TypeError, "split(tables, chunk): a 9-tuple and a str");
        return NULL;
    }
    /* The arguments are borrowed, and set membership may run Python code (a set member's
     * __eq__): a caller that borrows them in turn (functools.partial, which EdgeSplit uses)
     * could lose the last reference to the tables meanwhile (partial.__setstate__). */
    Py_INCREF(tables);
    Py_INCREF(chunk);
    PyObject *tokens = split_chunk(tables, chunk);
    Py_DECREF(chunk);
    Py_DECREF(tables);
    return tokens;
}

static PyMethodDef METHODS[] = {
    {"split", (PyCFunction)(void (*)(void))py_split, METH_FASTCALL,
     "The tokens of a word with plain punctuation at its edges, or None (see the module)."},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *module)
{
    (void)module;
    return 0;
}

/* ---- module init: multi-phase (PEP 489) ------------------------------------------------
 * No state of its own (the tables come with each call): it loads in every interpreter, each with
 * its own GIL (3.12+); it relies on the GIL (Py_mod_gil, 3.13+). */
static PyModuleDef_Slot SLOTS[] = {
    {Py_mod_exec, (void *)exec_module},
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.affixes",
    "The compiled fast path of spaCy's affix rules on the commonest chunks.", 0, METHODS, SLOTS,
};

PyMODINIT_FUNC PyInit_affixes(void) { return PyModuleDef_Init(&MODULE); }
