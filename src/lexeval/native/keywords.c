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
 *                        result_type[, tables[, compounds[, known]]]): the Unicode step
 *                        (called on a text that is not ASCII), the first words and the first
 *                        bigrams of the compound patterns (None: no compound terms), whether
 *                        the Unicode step makes ASCII control characters spaces, the length of
 *                        the longest chunk that may be cached, a subclass of tuple for the
 *                        result, the tables with which chunks the cache lacks are analyzed
 *                        here (below; None or absent: all of them go to analyze_missing), the
 *                        compound terms' tables with which their keys are merged here (below;
 *                        None or absent: a text that may hold one goes to the reference), and
 *                        a table of known chunks (KnownChunks, below; None or absent: none),
 *                        read before the cache, which is given the chunks of an ASCII text
 *                        read from the cache or analyzed
 *   returns result_type((keywords, keys)) (as tuple.__new__ makes it), two new lists: the
 *       distinct words of the text's chunks in order of first appearance (the keys merged
 *       into compound terms when two keys side by side are the first two of a pattern), and
 *       every key in order; or None when the compound terms' rules here do not decide (the
 *       reference merges them), a chunk is longer than max_chunk (the reference reads it
 *       piece by piece), or text is not an exact str.
 *
 *   entries(chunks, cache, analyze_missing, config)
 *       the entry of each of a list of chunks (StepProcessor._analyze_chunks, which
 *       StepProcessor.tokens reads): a new list; None when a chunk is no exact str or is
 *       longer than max_chunk; config as above, with its tables (or None) (its compound terms'
 *       tables and table of known chunks are not read)
 *
 *   KnownChunks(size)
 *       the table of known chunks (below)
 *
 * The white-space chunks of an ASCII text are read here: the Unicode step changes an ASCII
 * text only by making its control characters spaces (with ascii_controls), so they separate
 * chunks as white space does. A text that is not ASCII goes through `prepare` first, then
 * str.split.
 *
 * The functions hold the GIL from start to end. Python code runs in `prepare`,
 * `analyze_missing`, and the tables' callables (split_edges, fold, stem), which may let other
 * threads run and write or clear the caches: every entry read from a dict is held by a
 * reference of its own until the end, so a cache cleared meanwhile changes nothing.
 * Otherwise they call nothing that can run Python code (the dicts and sets are keyed by str
 * and tuples of str). The new chunks' and tokens' entries are written to the cache and the
 * memo whole (below); nothing else is written, and nothing of the host process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "process_state.h"
#include <stdint.h>
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

/* ---------------------------------------------------------------- chunks not cached yet
 *
 * With the tables (StepProcessor._new_chunk_tables), the chunks the cache lacks are analyzed
 * here where the reference's steps are plain, as _analyze_missing, _chunk and _memo_token do
 * with SpacyTokenizer.split_chunks and Lemmatizer.key; the others go to analyze_missing:
 *
 *   tables  (memo, size, specials, split_edges, split_cjk, keys[, special_tokens[, plain_rules]])
 *     memo         the token memo, {token: entry} (cleared when it holds size entries)
 *     size         the caches' bound: the missing chunks are analyzed here only when the
 *                  cache has room for all of them (else analyze_missing clears it)
 *     specials     the tokenizer's special cases (None: no letters fast path)
 *     split_edges  the compiled edge split (lexeval.native.affixes, a partial): a list of
 *                  tokens, or anything else when it does not decide (None: no such split)
 *     split_cjk    whether Han and kana are one token a character (such chunks: Python)
 *     keys         None (a chunk with a new token goes to analyze_missing) or
 *                  (drop_punct, casefold, fold, table, overrides, stem, stem_min_length,
 *                  unstemmed, stops, aliases, nothing, split_words): the key rules of a token
 *                  (split_words: whether a token is split into its words, the rouge preset),
 *                  Lemmatizer.key's and _memo_token's (fold: str.casefold, called on text
 *                  that is not ASCII; nothing: the entry of a dropped token)
 *     special_tokens  {chunk: list of tokens}: the tokens SpacyTokenizer.split_chunks gives
 *                  each special case of the tokenizer (its own answers, computed when the
 *                  steps are loaded: a contraction such as "don't" needs no call of spaCy);
 *                  None or absent: none
 *     plain_rules  (flags, token_fullmatch, url_match, infix_search): what one_token reads
 *                  (below) of AffixRules: per ASCII character, bit 1 when no prefix can begin
 *                  with it, bit 2 when no suffix can end with it, and the token, URL and infix
 *                  patterns' functions (url_match None: no URL rule); None or absent: none
 *
 * A chunk is split here when it is letters and no special case (one token), a special case
 * (special_tokens), when split_edges decides it, or when it is one token by the rules without
 * affixes (plain_rules: "3,389", "8:42", "1632–53"), and it holds no Han or kana; a new
 * token's entry is built here from the Unicode database's predicates (those str's methods and
 * re's classes use). A value of the tables these rules do not expect (a lemma that is no str
 * or list of str, a fold or stem that is no str) sends the token's chunk to analyze_missing
 * too. Entries are written whole
 * into the memo and the cache (what racing threads compute is equal); the tuples built here
 * hold strings and bools only, and are untracked by the garbage collector as its first pass
 * over them would untrack them.
 */
typedef struct {
    PyObject *memo, *specials, *split_edges, *special_tokens;
    /* the rules of a chunk without affixes (below; NULL: none) */
    const unsigned char *affix_flags;
    PyObject *token_fullmatch, *url_match, *infix_search;
    Py_ssize_t size;
    int split_cjk, keys;
    int drop_punct, casefold, split_words;
    PyObject *fold, *table, *overrides, *stem, *unstemmed, *stops, *aliases, *nothing;
    Py_ssize_t stem_min;
} Tables;

/* The fields of the tables (borrowed from the configuration, which the call holds); 0, -1. */
static int read_tables(PyObject *t, Tables *T)
{
    memset(T, 0, sizeof(*T));
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 6 || PyTuple_GET_SIZE(t) > 8)
        goto bad;
    if (PyTuple_GET_SIZE(t) >= 7 && PyTuple_GET_ITEM(t, 6) != Py_None) {
        T->special_tokens = PyTuple_GET_ITEM(t, 6);
        if (!PyDict_CheckExact(T->special_tokens))
            goto bad;
    }
    if (PyTuple_GET_SIZE(t) == 8 && PyTuple_GET_ITEM(t, 7) != Py_None) {
        PyObject *rules = PyTuple_GET_ITEM(t, 7);
        if (!PyTuple_Check(rules) || PyTuple_GET_SIZE(rules) != 4 ||
            !PyBytes_CheckExact(PyTuple_GET_ITEM(rules, 0)) ||
            PyBytes_GET_SIZE(PyTuple_GET_ITEM(rules, 0)) != 128 ||
            !PyCallable_Check(PyTuple_GET_ITEM(rules, 1)) ||
            (PyTuple_GET_ITEM(rules, 2) != Py_None &&
             !PyCallable_Check(PyTuple_GET_ITEM(rules, 2))) ||
            !PyCallable_Check(PyTuple_GET_ITEM(rules, 3)))
            goto bad;
        T->affix_flags = (const unsigned char *)PyBytes_AS_STRING(PyTuple_GET_ITEM(rules, 0));
        T->token_fullmatch = PyTuple_GET_ITEM(rules, 1);
        T->url_match = PyTuple_GET_ITEM(rules, 2) == Py_None ? NULL : PyTuple_GET_ITEM(rules, 2);
        T->infix_search = PyTuple_GET_ITEM(rules, 3);
    }
    T->memo = PyTuple_GET_ITEM(t, 0);
    T->size = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 1));
    if (T->size == -1 && PyErr_Occurred())
        return -1;
    T->specials = PyTuple_GET_ITEM(t, 2);
    T->split_edges = PyTuple_GET_ITEM(t, 3);
    T->split_cjk = PyObject_IsTrue(PyTuple_GET_ITEM(t, 4));
    PyObject *keys = PyTuple_GET_ITEM(t, 5);
    if (T->split_cjk < 0)
        return -1;
    if (!PyDict_CheckExact(T->memo) ||
        (T->specials != Py_None && !PyFrozenSet_CheckExact(T->specials)) ||
        (T->split_edges != Py_None && !PyCallable_Check(T->split_edges)))
        goto bad;
    if (T->specials == Py_None)
        T->specials = NULL;
    if (T->split_edges == Py_None)
        T->split_edges = NULL;
    if (keys == Py_None)
        return 0;
    if (!PyTuple_Check(keys) || PyTuple_GET_SIZE(keys) != 12)
        goto bad;
    T->keys = 1;
    T->drop_punct = PyObject_IsTrue(PyTuple_GET_ITEM(keys, 0));
    T->casefold = PyObject_IsTrue(PyTuple_GET_ITEM(keys, 1));
    if (T->drop_punct < 0 || T->casefold < 0)
        return -1;
    T->fold = PyTuple_GET_ITEM(keys, 2);
    T->table = PyTuple_GET_ITEM(keys, 3);
    T->overrides = PyTuple_GET_ITEM(keys, 4);
    T->stem = PyTuple_GET_ITEM(keys, 5);
    T->stem_min = PyLong_AsSsize_t(PyTuple_GET_ITEM(keys, 6));
    if (T->stem_min == -1 && PyErr_Occurred())
        return -1;
    T->unstemmed = PyTuple_GET_ITEM(keys, 7);
    T->stops = PyTuple_GET_ITEM(keys, 8);
    T->aliases = PyTuple_GET_ITEM(keys, 9);
    T->nothing = PyTuple_GET_ITEM(keys, 10);
    T->split_words = PyObject_IsTrue(PyTuple_GET_ITEM(keys, 11));
    if (T->split_words < 0)
        return -1;
    if (!PyCallable_Check(T->fold) || (T->table != Py_None && !PyDict_CheckExact(T->table)) ||
        !PyDict_CheckExact(T->overrides) || (T->stem != Py_None && !PyCallable_Check(T->stem)) ||
        !PyFrozenSet_CheckExact(T->unstemmed) || !PyFrozenSet_CheckExact(T->stops) ||
        !PyDict_CheckExact(T->aliases) || !PyTuple_CheckExact(T->nothing))
        goto bad;
    if (T->table == Py_None)
        T->table = NULL;
    if (T->stem == Py_None)
        T->stem = NULL;
    return 0;
bad:
    PyErr_SetString(PyExc_TypeError,
                    "the new-chunk tables must be (memo: dict, size: int, specials: frozenset | "
                    "None, split_edges, split_cjk, keys: tuple of 12 | None[, special_tokens: "
                    "dict | None[, plain_rules: (bytes of 128, callable, callable | None, "
                    "callable) | None]])");
    return -1;
}

/* A new tuple of `n` items (references stolen; NULL items: an error, all released),
 * untracked by the garbage collector when no item is tracked (what the collector's first
 * pass over it does). */
static PyObject *tuple_of(Py_ssize_t n, PyObject **items)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] == NULL) {
            for (Py_ssize_t j = 0; j < n; j++)
                Py_XDECREF(items[j]);
            return NULL;
        }
    }
    PyObject *tuple = PyTuple_New(n);
    if (tuple == NULL) {
        for (Py_ssize_t j = 0; j < n; j++)
            Py_DECREF(items[j]);
        return NULL;
    }
    int tracked = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        tracked |= PyObject_IS_GC(items[i]) && PyObject_GC_IsTracked(items[i]);
        PyTuple_SET_ITEM(tuple, i, items[i]);
    }
    if (!tracked && n > 0 && PyObject_GC_IsTracked(tuple))
        PyObject_GC_UnTrack(tuple);
    return tuple;
}

/* A new tuple of `n` > 0 items that the garbage collector never tracks (str, bool, and tuples
 * of them built here untracked), references stolen (NULL items: an error, all released):
 * tuple_of without its look at each item. */
static PyObject *untracked_tuple(Py_ssize_t n, PyObject **items)
{
    PyObject *tuple = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] == NULL)
            goto failed;
    tuple = PyTuple_New(n);
    if (tuple == NULL)
        goto failed;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(tuple, i, items[i]);
    PyObject_GC_UnTrack(tuple);
    return tuple;
failed:
    for (Py_ssize_t j = 0; j < n; j++)
        Py_XDECREF(items[j]);
    return NULL;
}

static int is_cjk(Py_UCS4 ch)
{
    return (ch >= 0x3040 && ch <= 0x30ff) || (ch >= 0x3400 && ch <= 0x4dbf) ||
           (ch >= 0x4e00 && ch <= 0x9fff) || (ch >= 0xf900 && ch <= 0xfaff);
}

/* Whether a str holds a Han ideograph or kana (CJK_RE.search). */
static int has_cjk(PyObject *s)
{
    if (PyUnicode_IS_ASCII(s))
        return 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0, n = PyUnicode_GET_LENGTH(s); i < n; i++)
        if (is_cjk(PyUnicode_READ(kind, data, i)))
            return 1;
    return 0;
}

/* The Unicode database's predicates (str's methods, re's classes), ASCII answered at once. */
static int u_alpha(Py_UCS4 ch)
{
    return ch < 128 ? (ch | 0x20) >= 'a' && (ch | 0x20) <= 'z' : Py_UNICODE_ISALPHA(ch) != 0;
}
static int u_upper(Py_UCS4 ch)
{
    return ch < 128 ? ch >= 'A' && ch <= 'Z' : Py_UNICODE_ISUPPER(ch) != 0;
}
static int u_lower(Py_UCS4 ch)
{
    return ch < 128 ? ch >= 'a' && ch <= 'z' : Py_UNICODE_ISLOWER(ch) != 0;
}
static int u_title(Py_UCS4 ch) { return ch < 128 ? 0 : Py_UNICODE_ISTITLE(ch) != 0; }
static int u_decimal(Py_UCS4 ch)
{
    return ch < 128 ? ch >= '0' && ch <= '9' : Py_UNICODE_ISDECIMAL(ch) != 0;
}
static int u_alnum(Py_UCS4 ch)
{
    return ch < 128 ? u_alpha(ch) || (ch >= '0' && ch <= '9') : Py_UNICODE_ISALNUM(ch) != 0;
}

/* str.isalpha */
static int is_alpha(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!u_alpha(PyUnicode_READ(kind, data, i)))
            return 0;
    return n > 0;
}

static int a_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }

/* An ASCII str in lower case (str.casefold of ASCII): the same object when it is already. */
static PyObject *ascii_lower(PyObject *s)
{
    const unsigned char *c = PyUnicode_1BYTE_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), i = 0;
    while (i < n && !a_upper(c[i]))
        i++;
    if (i == n)
        return Py_NewRef(s);
    PyObject *out = PyUnicode_New(n, 127);
    if (out == NULL)
        return NULL;
    unsigned char *o = PyUnicode_1BYTE_DATA(out);
    for (i = 0; i < n; i++)
        o[i] = a_upper(c[i]) ? (unsigned char)(c[i] + 32) : c[i];
    return out;
}

/* What a function below returns when the rules here do not decide (never a reference). */
static PyObject DEFER_OBJECT;
#define DEFER (&DEFER_OBJECT)

static int is_apostrophe(Py_UCS4 ch) { return ch == '\'' || ch == 0x2019 || ch == 0x2018; }

/* str.isupper of a str's characters but its apostrophes (is_technical's `plain`), */
static int plain_isupper(int kind, const void *data, Py_ssize_t n, Py_ssize_t letters)
{
    int cased = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (is_apostrophe(ch))
            continue;
        if (letters == 1) /* one character: its own upper-case test */
            return u_upper(ch);
        if (u_lower(ch) || u_title(ch))
            return 0;
        if (u_upper(ch))
            cased = 1;
    }
    return cased;
}

/* is_technical(token) (Lemmatizer.key's shortcut gives the same): the token without its
 * apostrophes ("plain") is not all letters, or has an upper-case letter after its first
 * character and is not all upper case. */
static int technical(PyObject *token)
{
    int kind = PyUnicode_KIND(token);
    const void *data = PyUnicode_DATA(token);
    Py_ssize_t n = PyUnicode_GET_LENGTH(token), letters = 0;
    int upper_after_first = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (is_apostrophe(ch))
            continue;
        if (!u_alpha(ch))
            return 1;
        if (letters > 0 && u_upper(ch))
            upper_after_first = 1;
        letters++;
    }
    if (letters == 0)
        return 1; /* plain is empty: not alphabetic */
    return upper_after_first && !plain_isupper(kind, data, n, letters);
}

/* _ACRONYM_PLURAL_RE.fullmatch: [A-Z]{2,}s */
static int acronym_plural(PyObject *token)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    if (!PyUnicode_IS_ASCII(token) || n < 3)
        return 0;
    const unsigned char *s = PyUnicode_1BYTE_DATA(token);
    if (s[n - 1] != 's')
        return 0;
    for (Py_ssize_t i = 0; i < n - 1; i++)
        if (!a_upper(s[i]))
            return 0;
    return 1;
}

/* _HYPHENATED_WORD_RE.fullmatch: runs of [^\W\d_] (a letter or a number but a decimal digit,
 * as re reads \w and \d) joined by single hyphens, two runs at least. */
static int hyphenated_word(PyObject *token)
{
    int kind = PyUnicode_KIND(token);
    const void *data = PyUnicode_DATA(token);
    Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    int hyphens = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch == '-') {
            if (i == 0 || i == n - 1 || PyUnicode_READ(kind, data, i - 1) == '-')
                return 0;
            hyphens++;
        }
        else if (ch == '_' || !u_alnum(ch) || u_decimal(ch))
            return 0;
    }
    return hyphens > 0;
}

/* fold(s) of an exact str: ASCII folded here, other text by `fold` (str.casefold). */
static PyObject *fold_str(Tables *T, PyObject *s)
{
    if (!T->casefold)
        return Py_NewRef(s);
    if (PyUnicode_IS_ASCII(s))
        return ascii_lower(s);
    PyObject *folded = PyObject_CallOneArg(T->fold, s);
    if (folded != NULL && !PyUnicode_CheckExact(folded)) {
        Py_DECREF(folded);
        return DEFER;
    }
    return folded;
}

/* A table's value as the key rules read it: 1 with *lemma (borrowed) a non-empty str, 0 when
 * the value is falsy (an empty str or list), 2 when the rules below do not decide. */
static int table_value(PyObject *found, PyObject **lemma)
{
    if (PyList_CheckExact(found)) {
        if (PyList_GET_SIZE(found) == 0)
            return 0;
        found = PyList_GET_ITEM(found, 0); /* fr and ca: the first lemma */
        if (!PyUnicode_CheckExact(found))
            return 2;
        *lemma = PyUnicode_GET_LENGTH(found) > 0 ? found : NULL;
        return 1;
    }
    if (!PyUnicode_CheckExact(found))
        return 2;
    if (PyUnicode_GET_LENGTH(found) == 0)
        return 0;
    *lemma = found;
    return 1;
}

/* Lemmatizer.key(token, folded) of an exact str token (folded: its fold, an exact str): a
 * new reference, NULL on error, or DEFER when the rules here do not decide. */

static PyObject *token_key(Tables *T, PyObject *token, PyObject *folded)
{
    if (technical(token)) {
        if (acronym_plural(token)) /* APIs -> api */
            return PyUnicode_Substring(folded, 0, PyUnicode_GET_LENGTH(folded) - 1);
        if (hyphenated_word(token)) { /* neural-networks -> neural-network */
            Py_ssize_t dash = PyUnicode_FindChar(folded, '-', 0, PyUnicode_GET_LENGTH(folded), -1);
            if (dash == -2)
                return NULL;
            if (dash > 0) {
                PyObject *last =
                    PyUnicode_Substring(folded, dash + 1, PyUnicode_GET_LENGTH(folded));
                if (last == NULL)
                    return NULL;
                PyObject *last_key = token_key(T, last, last);
                Py_DECREF(last);
                if (last_key == NULL || last_key == DEFER)
                    return last_key;
                PyObject *head = PyUnicode_Substring(folded, 0, dash + 1); /* with its "-" */
                PyObject *key = head == NULL ? NULL : PyUnicode_Concat(head, last_key);
                Py_XDECREF(head);
                Py_DECREF(last_key);
                return key;
            }
        }
        return Py_NewRef(folded);
    }
    PyObject *key = NULL;
    PyObject *found =
        PyDict_GET_SIZE(T->overrides) ? PyDict_GetItemWithError(T->overrides, folded) : NULL;
    if (found != NULL) {
        if (!PyUnicode_CheckExact(found))
            return DEFER;
        key = Py_NewRef(found);
    }
    else if (PyErr_Occurred()) {
        return NULL;
    }
    else if (T->table != NULL) {
        /* table.get(folded) or table.get(token) */
        PyObject *lemma = NULL;
        int decided = 0;
        found = PyDict_GetItemWithError(T->table, folded);
        if (found != NULL)
            decided = table_value(found, &lemma);
        else if (PyErr_Occurred())
            return NULL;
        if (decided == 0 && token != folded) {
            found = PyDict_GetItemWithError(T->table, token);
            if (found != NULL)
                decided = table_value(found, &lemma);
            else if (PyErr_Occurred())
                return NULL;
        }
        if (decided == 2)
            return DEFER;
        if (decided == 1 && lemma != NULL) {
            key = fold_str(T, lemma);
            if (key == NULL || key == DEFER)
                return key;
        }
    }
    if (key == NULL)
        key = Py_NewRef(folded);
    if (T->stem != NULL && PyUnicode_GET_LENGTH(key) >= T->stem_min) {
        int unstemmed = PySet_Contains(T->unstemmed, folded);
        if (unstemmed < 0) {
            Py_DECREF(key);
            return NULL;
        }
        if (!unstemmed) {
            PyObject *stem = PyObject_CallOneArg(T->stem, key);
            Py_DECREF(key);
            if (stem == NULL || PyUnicode_CheckExact(stem))
                return stem;
            Py_DECREF(stem);
            return DEFER;
        }
    }
    return key;
}

/* Whether a str has a letter or digit (has_alnum). */
static int has_alnum(PyObject *s)
{
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0, n = PyUnicode_GET_LENGTH(s); i < n; i++)
        if (u_alnum(PyUnicode_READ(kind, data, i)))
            return 1;
    return 0;
}

/* A word's key and stopword flag (Lemmatizer.key, Stopwords.is_stop): 1 with *key (a new
 * reference) and *stop, 0 for DEFER, -1 on error. */
static int key_and_stop(Tables *T, PyObject *word, PyObject **key, int *stop)
{
    PyObject *folded = fold_str(T, word);
    if (folded == NULL || folded == DEFER)
        return folded == NULL ? -1 : 0;
    *key = token_key(T, word, folded);
    if (*key == NULL || *key == DEFER) {
        Py_DECREF(folded);
        return *key == NULL ? -1 : 0;
    }
    /* the folded form or the key listed */
    *stop = PySet_GET_SIZE(T->stops) == 0 ? 0 : PySet_Contains(T->stops, folded);
    if (*stop == 0 && *key != folded && PySet_GET_SIZE(T->stops) > 0)
        *stop = PySet_Contains(T->stops, *key);
    Py_DECREF(folded);
    if (*stop < 0) {
        Py_DECREF(*key);
        return -1;
    }
    return 1;
}

/* _GROUPED_NUMBER_RE.fullmatch on ASCII: \d{1,3}(?:,\d{3})+(?:\.\d+)? or \d+\.\d+ */
static int grouped_number(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == 0 || i == n)
        return 0;
    if (s[i] == '.') { /* digits, a point, digits */
        Py_ssize_t j = i + 1;
        while (j < n && s[j] >= '0' && s[j] <= '9')
            j++;
        return j == n && j > i + 1;
    }
    if (s[i] != ',' || i > 3)
        return 0;
    while (i < n && s[i] == ',') { /* groups of three digits */
        if (i + 4 > n)
            return 0;
        for (Py_ssize_t j = i + 1; j < i + 4; j++)
            if (s[j] < '0' || s[j] > '9')
                return 0;
        i += 4;
    }
    if (i == n)
        return 1;
    if (s[i] != '.' || i + 1 == n)
        return 0;
    for (Py_ssize_t j = i + 1; j < n; j++)
        if (s[j] < '0' || s[j] > '9')
            return 0;
    return 1;
}

/* _words's entry of a new ASCII token split into its words (word_pieces: runs of letters and
 * digits; a grouped number whole, without its commas): a new reference, NULL, or DEFER. */
static PyObject *words_entry(Tables *T, PyObject *token)
{
    if (!PyUnicode_IS_ASCII(token)) /* word_pieces reads categories (marks): Python */
        return DEFER;
    const unsigned char *s = PyUnicode_1BYTE_DATA(token);
    Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    Refs words;
    if (refs_init(&words, n / 2 + 1) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t i = 0;
    while (i < n && u_alnum(s[i]))
        i++;
    if (i == n && n > 0) {
        words.item[words.n++] = Py_NewRef(token);
    }
    else if (grouped_number(s, n)) {
        PyObject *word = PyUnicode_New(n, 127);
        if (word == NULL)
            goto done;
        unsigned char *w = PyUnicode_1BYTE_DATA(word);
        Py_ssize_t k = 0;
        for (Py_ssize_t j = 0; j < n; j++)
            if (s[j] != ',')
                w[k++] = s[j];
        PyObject *cut = PyUnicode_Substring(word, 0, k);
        Py_DECREF(word);
        if (cut == NULL)
            goto done;
        words.item[words.n++] = cut;
    }
    else {
        for (i = 0; i < n;) {
            while (i < n && !u_alnum(s[i]))
                i++;
            Py_ssize_t start = i;
            while (i < n && u_alnum(s[i]))
                i++;
            if (i > start) {
                PyObject *word = PyUnicode_Substring(token, start, i);
                if (word == NULL)
                    goto done;
                words.item[words.n++] = word;
            }
        }
    }
    Py_ssize_t m = words.n;
    PyObject *fields[3] = {PyTuple_New(m), PyTuple_New(m), NULL};
    PyObject **kept = PyMem_New(PyObject *, m > 0 ? m : 1);
    Py_ssize_t n_kept = 0;
    int same = 1; /* the kept words equal the keys: the keys stand for them */
    if (fields[0] == NULL || fields[1] == NULL || kept == NULL) {
        if (kept == NULL)
            PyErr_NoMemory();
        goto failed;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *key;
        int stop;
        int found = key_and_stop(T, words.item[j], &key, &stop);
        if (found <= 0) {
            result = found == 0 ? DEFER : NULL;
            goto failed;
        }
        PyObject *alias = PyDict_GET_SIZE(T->aliases) == 0
                              ? NULL
                              : PyDict_GetItemWithError(T->aliases, key);
        if (alias == NULL && PyErr_Occurred()) {
            Py_DECREF(key);
            goto failed;
        }
        Py_XINCREF(alias); /* held: building the tuples may run the collector */
        PyObject *pair[2] = {Py_NewRef(key), Py_NewRef(stop ? Py_True : Py_False)};
        PyObject *one = tuple_of(2, pair);
        if (one == NULL) {
            Py_DECREF(key);
            Py_XDECREF(alias);
            goto failed;
        }
        PyTuple_SET_ITEM(fields[0], j, one);
        if (!stop || alias != NULL) { /* aliases.get(k, k) of the words not stopwords */
            PyObject *word = alias != NULL ? alias : key;
            if (same && (j != n_kept || (word != key && (!PyUnicode_CheckExact(word) ||
                                                         PyUnicode_Compare(word, key) != 0))))
                same = 0;
            kept[n_kept++] = Py_NewRef(word);
        }
        else {
            same = 0;
        }
        Py_XDECREF(alias);
        PyTuple_SET_ITEM(fields[1], j, key);
    }
    if (same && n_kept == m) {
        fields[2] = Py_NewRef(fields[1]);
        for (Py_ssize_t j = 0; j < n_kept; j++)
            Py_DECREF(kept[j]);
    }
    else {
        fields[2] = tuple_of(n_kept, kept);
    }
    n_kept = 0;
    for (int f = 0; f < 2; f++) /* strings and bools, and tuples of them */
        if (PyObject_GC_IsTracked(fields[f]))
            PyObject_GC_UnTrack(fields[f]);
    result = tuple_of(3, fields);
    PyMem_Free(kept);
    goto done;
failed:
    for (Py_ssize_t j = 0; j < n_kept; j++)
        Py_DECREF(kept[j]);
    PyMem_Free(kept);
    Py_XDECREF(fields[0]);
    Py_XDECREF(fields[1]);
done:
    refs_free(&words);
    return result;
}

/* _memo_token's entry of a new exact str token: a new reference, NULL on error, or DEFER. */
static PyObject *new_entry(Tables *T, PyObject *token)
{
    if (T->split_words)
        return words_entry(T, token);
    if (T->drop_punct && !has_alnum(token)) /* punctuation, dropped */
        return Py_NewRef(T->nothing);
    PyObject *key;
    int stop;
    int found = key_and_stop(T, token, &key, &stop);
    if (found <= 0)
        return found == 0 ? DEFER : NULL;
    PyObject *alias = PyDict_GET_SIZE(T->aliases) == 0
                          ? NULL
                          : PyDict_GetItemWithError(T->aliases, key);
    if (alias == NULL && PyErr_Occurred()) {
        Py_DECREF(key);
        return NULL;
    }
    Py_XINCREF(alias); /* held: building the tuples may run the collector */
    /* the key is an exact str: the tuples but an alias's are never tracked */
    PyObject *pair[2] = {Py_NewRef(key), Py_NewRef(stop ? Py_True : Py_False)};
    PyObject *one = untracked_tuple(2, pair);
    PyObject *pairs = untracked_tuple(1, &one);
    PyObject *keys = untracked_tuple(1, &key);
    PyObject *words;
    if (alias != NULL)
        words = tuple_of(1, &alias);
    else if (stop)
        words = PyTuple_New(0);
    else
        words = Py_XNewRef(keys);
    PyObject *items[3] = {pairs, keys, words};
    return alias != NULL ? tuple_of(3, items) : untracked_tuple(3, items);
}

/* The entry of a token: the memo's, else built (ASCII) and written to the memo. A new
 * reference, NULL on error, or DEFER (_memo_token decides). */
static PyObject *token_entry(Tables *T, PyObject *token)
{
    PyObject *entry = PyDict_GetItemWithError(T->memo, token);
    if (entry != NULL)
        return Py_NewRef(entry);
    if (PyErr_Occurred())
        return NULL;
    if (!T->keys || !PyUnicode_CheckExact(token))
        return DEFER;
    entry = new_entry(T, token);
    if (entry == NULL || entry == DEFER)
        return entry;
    /* as _memo_token: cleared when full, then the whole entry written */
    if (PyDict_GET_SIZE(T->memo) >= T->size)
        PyDict_Clear(T->memo);
    if (PyDict_SetItem(T->memo, token, entry) < 0) {
        Py_DECREF(entry);
        return NULL;
    }
    return entry;
}

/* Whether an entry is a tuple (pairs, keys, words) of tuples. */
static int entry_shape(PyObject *entry)
{
    return PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == 3 &&
           PyTuple_Check(PyTuple_GET_ITEM(entry, 0)) &&
           PyTuple_Check(PyTuple_GET_ITEM(entry, 1)) && PyTuple_Check(PyTuple_GET_ITEM(entry, 2));
}

/* _chunk: the entry of a chunk's tokens (a list of exact str), end to end; NULL on error or
 * DEFER. */
static PyObject *pieces_entry(Tables *T, PyObject *pieces)
{
    Py_ssize_t n = PyList_GET_SIZE(pieces);
    if (n == 1)
        return token_entry(T, PyList_GET_ITEM(pieces, 0));
    Refs found;
    if (refs_init(&found, n) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t total[3] = {0, 0, 0};
    for (Py_ssize_t i = 0; i < n && i < PyList_GET_SIZE(pieces); i++) {
        PyObject *token = Py_NewRef(PyList_GET_ITEM(pieces, i));
        PyObject *entry = token_entry(T, token);
        Py_DECREF(token);
        if (entry == NULL || entry == DEFER) {
            result = entry;
            goto done;
        }
        if (!entry_shape(entry)) {
            Py_DECREF(entry);
            PyErr_SetString(PyExc_TypeError,
                            "a token's entry must be a tuple (pairs, keys, words)");
            goto done;
        }
        if (PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 0)) == 0) { /* dropped */
            Py_DECREF(entry);
            continue;
        }
        for (int f = 0; f < 3; f++)
            total[f] += PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, f));
        found.item[found.n++] = entry;
    }
    if (found.n == 1) {
        result = Py_NewRef(found.item[0]);
        goto done;
    }
    PyObject *fields[3];
    for (int f = 0; f < 3; f++) {
        /* the items, untracked by tuple_of when none is tracked */
        fields[f] = NULL;
        PyObject **items = PyMem_New(PyObject *, total[f] > 0 ? total[f] : 1);
        if (items == NULL) {
            PyErr_NoMemory();
        }
        else {
            Py_ssize_t k = 0;
            for (Py_ssize_t i = 0; i < found.n; i++) {
                PyObject *part = PyTuple_GET_ITEM(found.item[i], f);
                for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(part); j++)
                    items[k++] = Py_NewRef(PyTuple_GET_ITEM(part, j));
            }
            fields[f] = tuple_of(total[f], items);
            PyMem_Free(items);
        }
    }
    result = tuple_of(3, fields);
done:
    refs_free(&found);
    return result;
}

/* Whether AffixRules.split_rules keeps a chunk whole that no affix can begin or end (its first
 * character begins no prefix alternative, its last ends no suffix alternative; the tables'
 * flags, bits of EdgeSplit.no_prefix and no_suffix) and that is no special case: when the
 * token rule keeps it whole, or else the URL rule does, or no infix is found in it (the rules'
 * own patterns, called here). 1, 0 (the rules decide), -1 on error. */
enum { NO_PREFIX_FLAG = 1, NO_SUFFIX_FLAG = 2 };

static int one_token(Tables *T, PyObject *chunk)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    if (T->affix_flags == NULL || T->specials == NULL || n == 0)
        return 0;
    Py_UCS4 first = PyUnicode_READ_CHAR(chunk, 0), last = PyUnicode_READ_CHAR(chunk, n - 1);
    if (first >= 128 || last >= 128 || !(T->affix_flags[first] & NO_PREFIX_FLAG) ||
        !(T->affix_flags[last] & NO_SUFFIX_FLAG))
        return 0;
    int special = PySet_Contains(T->specials, chunk);
    if (special != 0)
        return special < 0 ? -1 : 0;
    PyObject *rules[3] = {T->token_fullmatch, T->url_match, T->infix_search};
    for (int r = 0; r < 3; r++) {
        if (rules[r] == NULL)
            continue;
        PyObject *found = PyObject_CallOneArg(rules[r], chunk);
        if (found == NULL)
            return -1;
        int none = found == Py_None;
        Py_DECREF(found);
        if (r < 2 && !none) /* the token rule or the URL rule keeps it whole */
            return 1;
        if (r == 2) /* no infix: one token; an infix: the rules split it */
            return none;
    }
    return 0;
}

/* The entry of a chunk not cached: 1 with *entry (a new reference), 0 when the chunk goes to
 * analyze_missing, -1 on error. SpacyTokenizer.split_chunks's first two ways. */
static int chunk_entry(Tables *T, PyObject *chunk, PyObject **entry)
{
    int cjk = T->split_cjk && has_cjk(chunk);
    if (T->specials != NULL && is_alpha(chunk)) {
        int special = PySet_Contains(T->specials, chunk);
        if (special < 0)
            return -1;
        if (!special) { /* letters alone: one token */
            if (cjk)
                return 0;
            *entry = token_entry(T, chunk);
            return *entry == NULL ? -1 : *entry == DEFER ? 0 : 1;
        }
    }
    PyObject *pieces = NULL;
    if (T->special_tokens != NULL && !cjk) { /* a special case: the tokenizer's tokens */
        pieces = PyDict_GetItemWithError(T->special_tokens, chunk);
        if (pieces == NULL && PyErr_Occurred())
            return -1;
        Py_XINCREF(pieces);
    }
    if (pieces == NULL) {
        if (T->split_edges == NULL)
            return 0;
        pieces = PyObject_CallOneArg(T->split_edges, chunk);
        if (pieces == NULL)
            return -1;
    }
    int plain = PyList_CheckExact(pieces) && !cjk;
    for (Py_ssize_t i = 0; plain && i < PyList_GET_SIZE(pieces); i++)
        plain = PyUnicode_CheckExact(PyList_GET_ITEM(pieces, i));
    if (!plain) {
        /* the edge split does not decide (False, None): a chunk the rules keep whole */
        int one = cjk || PyList_Check(pieces) ? 0 : one_token(T, chunk);
        Py_DECREF(pieces);
        if (one <= 0)
            return one;
        *entry = token_entry(T, chunk);
        return *entry == NULL ? -1 : *entry == DEFER ? 0 : 1;
    }
    *entry = pieces_entry(T, pieces);
    Py_DECREF(pieces);
    return *entry == NULL ? -1 : *entry == DEFER ? 0 : 1;
}

/* The entry of every chunk (new references in `entries`, n of them, NULL where not known yet;
 * a chunk is NULL where its entry is known): from the cache, then the missing ones from one
 * call of analyze_missing. 0 or -1. */
static int read_entries(Refs *chunks, PyObject *cache, PyObject *analyze_missing,
                        PyObject *tables, Refs *entries)
{
    Py_ssize_t n = chunks->n, n_missing = 0;
    PyObject *missing = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (entries->item[i] != NULL) /* from the table of known chunks */
            continue;
        PyObject *entry = PyDict_GetItemWithError(cache, chunks->item[i]);
        if (entry == NULL) {
            if (PyErr_Occurred())
                return -1;
            n_missing++;
        }
        entries->item[i] = Py_XNewRef(entry);
    }
    if (n_missing == 0)
        return 0;
    Tables read, *T = NULL;
    if (tables != NULL) {
        if (read_tables(tables, &read) < 0)
            return -1;
        T = &read;
    }
    /* the missing chunks analyzed here (written to the cache) when it has room for them all,
     * the others (or all) by analyze_missing */
    int here = T != NULL && PyDict_GET_SIZE(cache) + n_missing <= T->size;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (entries->item[i] != NULL)
            continue;
        PyObject *chunk = chunks->item[i];
        int found = 0;
        if (here && PyUnicode_CheckExact(chunk)) {
            /* a chunk met earlier in the text is cached by now */
            PyObject *entry = PyDict_GetItemWithError(cache, chunk);
            if (entry != NULL) {
                entries->item[i] = Py_NewRef(entry);
                found = 1;
            }
            else if (PyErr_Occurred() || (found = chunk_entry(T, chunk, &entry)) < 0) {
                Py_XDECREF(missing);
                return -1;
            }
            else if (found) {
                entries->item[i] = entry;
                if (PyDict_SetItem(cache, chunk, entry) < 0) {
                    Py_XDECREF(missing);
                    return -1;
                }
            }
        }
        if (!found && (((missing == NULL && (missing = PyList_New(0)) == NULL) ||
                        PyList_Append(missing, chunk) < 0))) {
            Py_XDECREF(missing);
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
#define BLOOM_BITS 8192

/* Whether a str's hash (already computed) may be one of a set's (its filter's bit is set). */
static int bloom_may_hold(const uint64_t *bloom, PyObject *key)
{
    if (!PyUnicode_CheckExact(key))
        return 1;
    Py_hash_t hash = ((PyASCIIObject *)key)->hash; /* -1: not computed yet */
    if (hash == -1)
        return 1;
    size_t bit = (size_t)hash & (BLOOM_BITS - 1);
    return (bloom[bit / 64] >> (bit % 64)) & 1;
}

/* bloom: a filter of the first words' hashes (NULL: none), a key it rules out is no first
 * word. */
static int may_span(PyObject *keys, PyObject *first_words, PyObject *first_bigrams,
                    const uint64_t *bloom)
{
    Py_ssize_t n = PyList_GET_SIZE(keys);
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        if (bloom != NULL && !bloom_may_hold(bloom, key))
            continue;
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

/* The distinct words of an array in order of first appearance (dict.fromkeys), as a new list:
 * an open-addressing table of the words seen (the caller holds them meanwhile). */
static PyObject *distinct_of(PyObject **words, Py_ssize_t total)
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
    for (Py_ssize_t i = 0; i < total; i++) {
        PyObject *word = words[i];
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

/* The distinct words of the entries in order of first appearance, as a new list. */
static PyObject *distinct_words(Refs *entries, Py_ssize_t total)
{
    PyObject *small[STACK];
    PyObject **words = total <= STACK ? small : PyMem_New(PyObject *, total);
    if (words == NULL)
        return PyErr_NoMemory();
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < entries->n; i++) {
        PyObject *part = PyTuple_GET_ITEM(entries->item[i], 2);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(part); j++)
            words[k++] = PyTuple_GET_ITEM(part, j);
    }
    PyObject *result = distinct_of(words, k);
    if (words != small)
        PyMem_Free(words);
    return result;
}

/* ---------------------------------------------------------------- compound terms
 *
 * When two keys side by side are the first two of a pattern, the reference merges the text's
 * pairs (Compounds.merge): each key with an alias becomes its alias (not a stopword); then,
 * when two aliased keys side by side are a first bigram, Compounds._match finds the patterns'
 * occurrences (every pattern has one term: Compounds.labels) and keeps the longest of
 * overlapping ones (spaCy's filter_spans); each kept span is its term, not a stopword. The
 * keywords are the distinct keys of the merged pairs that are no stopwords. Done here with
 *
 *   compounds  (aliases, labels, lengths): Compounds.aliases, Compounds.labels (None: a
 *              pattern has several terms, spaCy's matcher decides: the text goes to the
 *              reference) and Compounds.lengths (the patterns' lengths, ascending)
 *
 * A value these rules do not expect (an alias or a term that is no str, a stopword flag that
 * is no bool) sends the text to the reference too.
 */
typedef struct {
    Py_ssize_t start, end;
    PyObject *label; /* borrowed from the labels */
} Span;

/* Longest first, then the first of equal length (_match's sort, reversed). */
static int span_order(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    Py_ssize_t lx = x->end - x->start, ly = y->end - y->start;
    if (lx != ly)
        return lx > ly ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int span_start_order(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether two words side by side are a first bigram (Compounds._may_match on `keys`): 1, 0,
 * -1 on error. */
static int first_bigram_at(PyObject **keys, Py_ssize_t i, PyObject *first_words,
                           PyObject *first_bigrams)
{
    int first = PySet_Contains(first_words, keys[i]);
    if (first <= 0)
        return first;
    PyObject *bigram = PyTuple_Pack(2, keys[i], keys[i + 1]);
    if (bigram == NULL)
        return -1;
    int found = PySet_Contains(first_bigrams, bigram);
    Py_DECREF(bigram);
    return found;
}

/* The keywords of pairs whose keys may hold a compound term (a new list), None (a new
 * reference) when the reference decides, NULL on error. `keys` are the text's keys, `entries`
 * their chunks' entries. */
static PyObject *merged_keywords(Refs *entries, PyObject *keys, PyObject *compounds,
                                 PyObject *first_words, PyObject *first_bigrams)
{
    if (!PyTuple_Check(compounds) || PyTuple_GET_SIZE(compounds) != 3 ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(compounds, 0)) ||
        (PyTuple_GET_ITEM(compounds, 1) != Py_None &&
         !PyDict_CheckExact(PyTuple_GET_ITEM(compounds, 1))) ||
        !PyTuple_Check(PyTuple_GET_ITEM(compounds, 2))) {
        PyErr_SetString(PyExc_TypeError,
                        "compounds must be (aliases: dict, labels: dict | None, lengths: tuple)");
        return NULL;
    }
    PyObject *aliases = PyTuple_GET_ITEM(compounds, 0);
    PyObject *labels = PyTuple_GET_ITEM(compounds, 1);
    PyObject *lengths = PyTuple_GET_ITEM(compounds, 2);
    if (labels == Py_None)
        return Py_NewRef(Py_None);
    Py_ssize_t n = PyList_GET_SIZE(keys), n_lengths = PyTuple_GET_SIZE(lengths);
    Py_ssize_t length[16];
    if (n_lengths > 16)
        return Py_NewRef(Py_None);
    for (Py_ssize_t i = 0; i < n_lengths; i++) {
        length[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(lengths, i));
        if (length[i] == -1 && PyErr_Occurred())
            return NULL;
        if (length[i] < 2 || (i > 0 && length[i] <= length[i - 1]))
            return Py_NewRef(Py_None);
    }
    /* the aliased keys (borrowed from the entries, the aliases) and their stopword flags. The
     * aliases and the labels (borrowed too, in span) stay valid although the allocations below
     * (PyTuple_New, distinct_of's list) may run the collector: the Compounds' dicts are built
     * when the steps are loaded and never mutated after, and the caller holds them. */
    PyObject **key = PyMem_New(PyObject *, 2 * n + 1);
    char *stop = PyMem_Malloc((size_t)n + 1);
    Span *span = PyMem_New(Span, n + 1);
    char *seen = PyMem_Malloc((size_t)n + 1);
    PyObject *result = NULL;
    if (key == NULL || stop == NULL || span == NULL || seen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject **words = key + n;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < entries->n; i++) {
        PyObject *pairs = PyTuple_GET_ITEM(entries->item[i], 0);
        PyObject *part = PyTuple_GET_ITEM(entries->item[i], 1);
        if (!PyTuple_Check(pairs) || PyTuple_GET_SIZE(pairs) != PyTuple_GET_SIZE(part)) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(part); j++, k++) {
            PyObject *pair = PyTuple_GET_ITEM(pairs, j);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
                PyTuple_GET_ITEM(pair, 0) != PyTuple_GET_ITEM(part, j) ||
                !PyBool_Check(PyTuple_GET_ITEM(pair, 1)) ||
                !PyUnicode_CheckExact(PyTuple_GET_ITEM(part, j))) {
                result = Py_NewRef(Py_None);
                goto done;
            }
            key[k] = PyTuple_GET_ITEM(part, j);
            stop[k] = PyTuple_GET_ITEM(pair, 1) == Py_True;
            PyObject *alias =
                PyDict_GET_SIZE(aliases) ? PyDict_GetItemWithError(aliases, key[k]) : NULL;
            if (alias != NULL) {
                if (!PyUnicode_CheckExact(alias)) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
                key[k] = alias; /* borrowed: the aliases hold it (see above) */
                stop[k] = 0;
            }
            else if (PyErr_Occurred()) {
                goto done;
            }
        }
    }
    if (k != n) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* Compounds._match: every occurrence of a pattern after a first bigram */
    Py_ssize_t n_spans = 0;
    for (Py_ssize_t start = 0; start + 1 < n; start++) {
        int first = first_bigram_at(key, start, first_words, first_bigrams);
        if (first < 0)
            goto done;
        if (!first)
            continue;
        for (Py_ssize_t l = 0; l < n_lengths && start + length[l] <= n; l++) {
            PyObject *words_tuple = PyTuple_New(length[l]);
            if (words_tuple == NULL)
                goto done;
            for (Py_ssize_t j = 0; j < length[l]; j++)
                PyTuple_SET_ITEM(words_tuple, j, Py_NewRef(key[start + j]));
            PyObject *label = PyDict_GetItemWithError(labels, words_tuple);
            Py_DECREF(words_tuple);
            if (label == NULL && PyErr_Occurred())
                goto done;
            if (label != NULL) {
                if (!PyUnicode_CheckExact(label) || n_spans == n) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
                span[n_spans++] = (Span){start, start + length[l], label};
            }
        }
    }
    if (n_spans > 1) { /* the longest of overlapping ones (filter_spans), in order of start */
        qsort(span, (size_t)n_spans, sizeof(Span), span_order);
        memset(seen, 0, (size_t)n);
        Py_ssize_t kept = 0;
        for (Py_ssize_t s = 0; s < n_spans; s++) {
            if (seen[span[s].start] || seen[span[s].end - 1])
                continue;
            memset(seen + span[s].start, 1, (size_t)(span[s].end - span[s].start));
            span[kept++] = span[s];
        }
        n_spans = kept;
        qsort(span, (size_t)n_spans, sizeof(Span), span_start_order);
    }
    /* the merged pairs' keys that are no stopwords */
    Py_ssize_t n_words = 0, position = 0;
    for (Py_ssize_t s = 0; s <= n_spans; s++) {
        Py_ssize_t end = s < n_spans ? span[s].start : n;
        for (Py_ssize_t i = position; i < end; i++)
            if (!stop[i])
                words[n_words++] = key[i];
        if (s < n_spans) {
            words[n_words++] = span[s].label;
            position = span[s].end;
        }
    }
    result = distinct_of(words, n_words);
done:
    PyMem_Free(key);
    PyMem_Free(stop);
    PyMem_Free(span);
    PyMem_Free(seen);
    return result;
}

/* result_type(keywords, keys) of the entries, or None when a compound term may span them. */
static PyObject *assemble(Refs *entries, PyObject *first_words, PyObject *first_bigrams,
                          PyObject *compounds, const uint64_t *bloom, PyTypeObject *result_type)
{
    Py_ssize_t n_keys, n_words;
    if (check_entries(entries, &n_keys, &n_words) < 0)
        return NULL;
    PyObject *keys = concatenate(entries, 1, n_keys);
    if (keys == NULL)
        return NULL;
    PyObject *keywords = NULL;
    if (first_words != Py_None) {
        int span = may_span(keys, first_words, first_bigrams, bloom);
        if (span < 0 || (span > 0 && compounds == NULL)) {
            Py_DECREF(keys);
            return span < 0 ? NULL : Py_NewRef(Py_None);
        }
        if (span > 0) { /* the reference merges the pairs: here when the rules decide */
            keywords = merged_keywords(entries, keys, compounds, first_words, first_bigrams);
            if (keywords == NULL || keywords == Py_None) {
                Py_DECREF(keys);
                return keywords;
            }
        }
    }
    if (keywords == NULL)
        keywords = distinct_words(entries, n_words);
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

/* ---------------------------------------------------------------- the table of known chunks
 *
 *   KnownChunks(size)  a table of ASCII chunks and their entries, bounded by `size` entries
 *                      (emptied when full, and by clear()): the chunks of an ASCII text found
 *                      there are read without a str of their own, its hash and a look-up in
 *                      the chunk cache (the ASCII chunks of other texts without the last two). An entry is the same whichever cache holds it (the
 *                      analysis of a chunk depends on the chunk alone), so the table and the
 *                      cache need not hold the same chunks.
 *
 * The hash is FNV-1a (cheap on short chunks); a look-up or an insertion probes at most
 * MAX_PROBE slots (a text made to collide costs no more than the chunk cache's look-ups: the
 * chunks not found go to the cache). The table holds the GIL; no Python code runs while a slot
 * is read, and an emptied table's references are released after it is detached. It holds
 * strings and entries of strings and bools only (no reference cycle can pass through it), so
 * it is no container the garbage collector traverses (a full collection costs no more).
 */
#define MAX_PROBE 16

typedef struct {
    PyObject *chunk; /* an exact ASCII str (NULL: an empty slot) */
    PyObject *entry;
    uint64_t hash;
} Known;

typedef struct {
    PyObject_HEAD
    Known *slot;
    Py_ssize_t capacity, used, size;
    /* a filter of the hashes of a set of first words (compared by identity: the set is held),
     * that rules out most keys without a look-up in the set; built once, then never changed */
    PyObject *first_words;
    uint64_t bloom[BLOOM_BITS / 64];
} KnownChunks;

/* The filter of a set of first words, or NULL (no filter: the set look-ups decide). It is built
 * on first use with a frozenset of exact str, that the table then holds, and never changes
 * after: may_span reads it across allocations that may run the collector, whose finalizers
 * can let another thread in. Any other set has none. */
static const uint64_t *known_bloom(KnownChunks *K, PyObject *first_words)
{
    if (K->first_words == first_words)
        return K->bloom;
    if (K->first_words != NULL || !PyFrozenSet_CheckExact(first_words))
        return NULL;
    uint64_t bloom[BLOOM_BITS / 64];
    memset(bloom, 0, sizeof(bloom));
    PyObject *iterator = PyObject_GetIter(first_words);
    if (iterator == NULL) {
        PyErr_Clear(); /* the filter is only a speed-up: none */
        return NULL;
    }
    PyObject *word;
    int exact = 1;
    /* a frozenset's iterator and a str's hash run no Python code */
    while ((word = PyIter_Next(iterator)) != NULL) {
        Py_hash_t hash = PyUnicode_CheckExact(word) ? PyObject_Hash(word) : -1;
        Py_DECREF(word);
        if (hash == -1) {
            exact = 0;
            break;
        }
        size_t bit = (size_t)hash & (BLOOM_BITS - 1);
        bloom[bit / 64] |= (uint64_t)1 << (bit % 64);
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    if (!exact)
        return NULL;
    if (K->first_words != NULL) /* built meanwhile (PyObject_GetIter may run the collector) */
        return K->first_words == first_words ? K->bloom : NULL;
    memcpy(K->bloom, bloom, sizeof(bloom));
    K->first_words = Py_NewRef(first_words);
    return K->bloom;
}

static PyTypeObject KnownChunksType;

static uint64_t bytes_hash(const unsigned char *s, Py_ssize_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h ^ (h >> 32);
}

/* The entry of a chunk (borrowed), or NULL when the table lacks it. */
static PyObject *known_find(KnownChunks *K, const unsigned char *s, Py_ssize_t n, uint64_t h)
{
    if (K->slot == NULL)
        return NULL;
    Py_ssize_t mask = K->capacity - 1;
    for (Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)mask), probe = 0; probe < MAX_PROBE;
         i = (i + 1) & mask, probe++) {
        Known *k = &K->slot[i];
        if (k->chunk == NULL)
            return NULL;
        if (k->hash == h && PyUnicode_GET_LENGTH(k->chunk) == n &&
            memcmp(PyUnicode_1BYTE_DATA(k->chunk), s, (size_t)n) == 0)
            return k->entry;
    }
    return NULL;
}

/* Detach the slots, then release them (a release may run Python code: the table is empty and
 * consistent meanwhile). */
static void known_clear(KnownChunks *K)
{
    Known *slot = K->slot;
    Py_ssize_t capacity = K->capacity;
    K->slot = NULL;
    K->capacity = K->used = 0;
    if (slot == NULL)
        return;
    for (Py_ssize_t i = 0; i < capacity; i++) {
        Py_XDECREF(slot[i].chunk);
        Py_XDECREF(slot[i].entry);
    }
    PyMem_Free(slot);
}

/* Place a chunk (references stolen) in a slot of an array; 0 when no slot is free within
 * MAX_PROBE (the references then released by the caller). */
static int known_place(Known *slot, Py_ssize_t capacity, PyObject *chunk, PyObject *entry,
                       uint64_t h)
{
    Py_ssize_t mask = capacity - 1;
    for (Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)mask), probe = 0; probe < MAX_PROBE;
         i = (i + 1) & mask, probe++) {
        if (slot[i].chunk == NULL) {
            slot[i] = (Known){chunk, entry, h};
            return 1;
        }
    }
    return 0;
}

/* Remember a chunk's entry (an exact ASCII str, not in the table); 0, or -1 (no error set)
 * when the grown table could not be allocated. The table is emptied when it holds `size`
 * entries, grown when half full. */
static int known_put(KnownChunks *K, PyObject *chunk, PyObject *entry)
{
    if (K->size <= 0)
        return 0;
    if (K->used >= K->size)
        known_clear(K);
    if (2 * (K->used + 1) > K->capacity) {
        Py_ssize_t capacity = K->capacity ? 2 * K->capacity : 64;
        Known *slot = PyMem_New(Known, capacity);
        if (slot == NULL)
            return -1; /* the table is only a speed-up: no MemoryError, the chunk not held */
        memset(slot, 0, (size_t)capacity * sizeof(Known));
        Known *old = K->slot;
        Py_ssize_t old_capacity = K->capacity, used = 0;
        K->slot = NULL; /* detached while moved: nothing here runs Python code but releases */
        Refs dropped;
        dropped.n = 0;
        dropped.item = dropped.stack;
        for (Py_ssize_t i = 0; i < old_capacity; i++) {
            if (old[i].chunk == NULL)
                continue;
            if (known_place(slot, capacity, old[i].chunk, old[i].entry, old[i].hash)) {
                used++;
            }
            else if (dropped.n + 2 <= STACK) {
                dropped.item[dropped.n++] = old[i].chunk;
                dropped.item[dropped.n++] = old[i].entry;
            }
            else { /* rare: released at once (strings and tuples of them) */
                Py_DECREF(old[i].chunk);
                Py_DECREF(old[i].entry);
            }
        }
        PyMem_Free(old);
        K->slot = slot;
        K->capacity = capacity;
        K->used = used;
        refs_free(&dropped);
    }
    Py_INCREF(chunk);
    Py_INCREF(entry);
    uint64_t h = bytes_hash(PyUnicode_1BYTE_DATA(chunk), PyUnicode_GET_LENGTH(chunk));
    if (known_place(K->slot, K->capacity, chunk, entry, h)) {
        K->used++;
        return 0;
    }
    Py_DECREF(chunk);
    Py_DECREF(entry);
    return 0;
}

static PyObject *known_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t size;
    static char *names[] = {"size", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n:KnownChunks", names, &size))
        return NULL;
    KnownChunks *K = (KnownChunks *)type->tp_alloc(type, 0);
    if (K == NULL)
        return NULL;
    K->slot = NULL;
    K->capacity = K->used = 0;
    K->size = size;
    K->first_words = NULL;
    return (PyObject *)K;
}

static void known_dealloc(KnownChunks *K)
{
    known_clear(K);
    Py_CLEAR(K->first_words);
    Py_TYPE(K)->tp_free((PyObject *)K);
}

static PyObject *known_clear_method(PyObject *self, PyObject *unused)
{
    (void)unused;
    known_clear((KnownChunks *)self);
    Py_RETURN_NONE;
}

static Py_ssize_t known_len(PyObject *self) { return ((KnownChunks *)self)->used; }

static PyMethodDef KNOWN_METHODS[] = {
    {"clear", known_clear_method, METH_NOARGS, "Empty the table."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods KNOWN_SEQUENCE = {.sq_length = known_len};

static PyTypeObject KnownChunksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lexeval.native.keywords.KnownChunks",
    .tp_basicsize = sizeof(KnownChunks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "KnownChunks(size): the table of known ASCII chunks (see lexeval.native).",
    .tp_new = known_new,
    .tp_dealloc = (destructor)known_dealloc,
    .tp_methods = KNOWN_METHODS,
    .tp_as_sequence = &KNOWN_SEQUENCE,
};

/* The chunks of an ASCII text with the table: a chunk the table knows has its entry (a new
 * reference) in `entries` and NULL in `chunks`, the others a new str and NULL. Both
 * initialized here; 1 when a chunk is longer than max_chunk, 0, or -1. */
static int split_known(PyObject *text, int controls, Py_ssize_t max_chunk, KnownChunks *K,
                       Refs *chunks, Refs *entries)
{
    const unsigned char *table = controls ? SPACE_OR_CONTROL : SPACE;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0;
    if (refs_init(chunks, (n + 1) / 2) < 0 || refs_init(entries, (n + 1) / 2) < 0)
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
        PyObject *entry = known_find(K, s + start, i - start, bytes_hash(s + start, i - start));
        PyObject *chunk = NULL;
        if (entry == NULL && (chunk = PyUnicode_Substring(text, start, i)) == NULL)
            return -1;
        chunks->item[chunks->n++] = chunk;
        entries->item[entries->n++] = Py_XNewRef(entry);
    }
    return 0;
}

/* Whether an entry is (pairs, keys, words) of exact str, and bools for the pairs' flags. */
static int plain_entry(PyObject *entry)
{
    if (!entry_shape(entry))
        return 0;
    PyObject *pairs = PyTuple_GET_ITEM(entry, 0);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pairs); i++) {
        PyObject *pair = PyTuple_GET_ITEM(pairs, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(pair, 0)) ||
            !PyBool_Check(PyTuple_GET_ITEM(pair, 1)))
            return 0;
    }
    for (int f = 1; f < 3; f++) {
        PyObject *items = PyTuple_GET_ITEM(entry, f);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); i++)
            if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(items, i)))
                return 0;
    }
    return PyTuple_CheckExact(entry) && PyTuple_CheckExact(PyTuple_GET_ITEM(entry, 0)) &&
           PyTuple_CheckExact(PyTuple_GET_ITEM(entry, 1)) &&
           PyTuple_CheckExact(PyTuple_GET_ITEM(entry, 2));
}

/* Remember the entries of the chunks read from the cache or analyzed (those of strings and
 * bools: the others are read from the cache each time); 0, never an error (when the table
 * cannot grow, the rest are not remembered: the reference raises no MemoryError there). */
static int remember(KnownChunks *K, Refs *chunks, Refs *entries)
{
    for (Py_ssize_t i = 0; i < chunks->n; i++) {
        PyObject *chunk = chunks->item[i];
        if (chunk == NULL || !PyUnicode_CheckExact(chunk) || !PyUnicode_IS_ASCII(chunk) ||
            !plain_entry(entries->item[i]))
            continue;
        const unsigned char *s = PyUnicode_1BYTE_DATA(chunk);
        Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
        if (known_find(K, s, n, bytes_hash(s, n)) == NULL && /* a chunk met twice in a text */
            known_put(K, chunk, entries->item[i]) < 0)
            return 0;
    }
    return 0;
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
     * as a caller may only lend them (functools.partial), and read from a copy of the
     * argument vector: the lender's own array may be freed during the call too */
    PyObject *held[4];
    for (int i = 0; i < 4; i++) {
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = analysis_of(held[0], held[1], held[2], held[3]);
    for (int i = 0; i < 4; i++)
        Py_DECREF(held[i]);
    return result;
}

static PyObject *analysis_of(PyObject *text, PyObject *cache, PyObject *analyze_missing,
                             PyObject *config)
{
    if (!PyDict_Check(cache) || !PyTuple_Check(config) || PyTuple_GET_SIZE(config) < 6 ||
        PyTuple_GET_SIZE(config) > 9) {
        PyErr_SetString(PyExc_TypeError, "analysis(text, cache: dict, analyze_missing, "
                                         "config: tuple of 6 to 9)");
        return NULL;
    }
    Py_ssize_t n_config = PyTuple_GET_SIZE(config);
    PyObject *tables = NULL; /* read when a chunk is missing */
    if (n_config >= 7 && PyTuple_GET_ITEM(config, 6) != Py_None)
        tables = PyTuple_GET_ITEM(config, 6);
    PyObject *compounds = NULL; /* read when a compound term may span chunks */
    if (n_config >= 8 && PyTuple_GET_ITEM(config, 7) != Py_None)
        compounds = PyTuple_GET_ITEM(config, 7);
    KnownChunks *known = NULL; /* the table of known chunks */
    if (n_config == 9 && PyTuple_GET_ITEM(config, 8) != Py_None) {
        if (!Py_IS_TYPE(PyTuple_GET_ITEM(config, 8), &KnownChunksType)) {
            PyErr_SetString(PyExc_TypeError, "the table of known chunks must be KnownChunks");
            return NULL;
        }
        known = (KnownChunks *)PyTuple_GET_ITEM(config, 8);
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
    int split;
    if (known != NULL && PyUnicode_IS_ASCII(prepared)) {
        split = split_known(prepared, controls, max_chunk, known, &chunks, &entries);
    }
    else {
        split = split_text(prepared, controls, max_chunk, &chunks);
        if (split == 0 && refs_init(&entries, chunks.n) == 0) {
            for (; entries.n < chunks.n; entries.n++) {
                /* an ASCII chunk of a text that is not: from the table when it knows it */
                PyObject *chunk = chunks.item[entries.n], *entry = NULL;
                if (known != NULL && PyUnicode_CheckExact(chunk) && PyUnicode_IS_ASCII(chunk)) {
                    const unsigned char *c = PyUnicode_1BYTE_DATA(chunk);
                    Py_ssize_t m = PyUnicode_GET_LENGTH(chunk);
                    entry = known_find(known, c, m, bytes_hash(c, m));
                }
                entries.item[entries.n] = Py_XNewRef(entry);
                if (entry != NULL) {
                    chunks.item[entries.n] = NULL;
                    Py_DECREF(chunk);
                }
            }
        }
        else if (split == 0) {
            split = -1;
        }
    }
    Py_DECREF(prepared);
    if (split == 1)
        result = Py_NewRef(Py_None); /* the reference reads a long chunk piece by piece */
    else if (split == 0 && read_entries(&chunks, cache, analyze_missing, tables, &entries) == 0 &&
             (known == NULL || remember(known, &chunks, &entries) == 0))
        result = assemble(&entries, first_words, first_bigrams, compounds,
                          known != NULL && first_words != Py_None
                              ? known_bloom(known, first_words)
                              : NULL,
                          (PyTypeObject *)result_type);
    refs_free(&entries);
    refs_free(&chunks);
    return result;
}

/* entries(chunks, cache, analyze_missing, config): the entry of each chunk (a list), as
 * StepProcessor._analyze_chunks gives it; None when a chunk is longer than max_chunk or is no
 * exact str (the reference reads it). */
static PyObject *entries_of(PyObject *chunk_list, PyObject *cache, PyObject *analyze_missing,
                            PyObject *config)
{
    if (!PyList_Check(chunk_list) || !PyDict_Check(cache) || !PyTuple_Check(config) ||
        PyTuple_GET_SIZE(config) < 7 || PyTuple_GET_SIZE(config) > 9) {
        PyErr_SetString(PyExc_TypeError,
                        "entries(chunks: list, cache: dict, analyze_missing, config: tuple of 7 "
                        "to 9)");
        return NULL;
    }
    Py_ssize_t max_chunk = PyLong_AsSsize_t(PyTuple_GET_ITEM(config, 4));
    if (max_chunk == -1 && PyErr_Occurred())
        return NULL;
    PyObject *tables = PyTuple_GET_ITEM(config, 6);
    Refs chunks, entries;
    chunks.n = entries.n = 0;
    chunks.item = chunks.stack;
    entries.item = entries.stack;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(chunk_list);
    if (refs_init(&chunks, n) < 0)
        return NULL;
    for (Py_ssize_t i = 0; i < n && i < PyList_GET_SIZE(chunk_list); i++) {
        PyObject *chunk = PyList_GET_ITEM(chunk_list, i);
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_CheckExact(chunk) && PyUnicode_READY(chunk) < 0) /* legacy string */
            goto done;
#endif
        if (!PyUnicode_CheckExact(chunk) || PyUnicode_GET_LENGTH(chunk) > max_chunk) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        chunks.item[chunks.n++] = Py_NewRef(chunk);
    }
    Py_ssize_t n_keys, n_words;
    if (refs_init(&entries, chunks.n) < 0)
        goto done;
    for (; entries.n < chunks.n; entries.n++)
        entries.item[entries.n] = NULL;
    if (read_entries(&chunks, cache, analyze_missing, tables == Py_None ? NULL : tables,
                     &entries) < 0 ||
        check_entries(&entries, &n_keys, &n_words) < 0)
        goto done;
    result = PyList_New(entries.n);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < entries.n; i++)
        PyList_SET_ITEM(result, i, Py_NewRef(entries.item[i]));
done:
    refs_free(&entries);
    refs_free(&chunks);
    return result;
}

static PyObject *py_entries(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "entries(chunks, cache, analyze_missing, config) takes 4 arguments");
        return NULL;
    }
    /* the arguments are read from a copy of the vector: a lender's array (functools.partial)
     * may be freed while Python code runs */
    PyObject *held[4];
    for (int i = 0; i < 4; i++) { /* held: Python code runs during the call */
        held[i] = args[i];
        Py_INCREF(held[i]);
    }
    PyObject *result = entries_of(held[0], held[1], held[2], held[3]);
    for (int i = 0; i < 4; i++)
        Py_DECREF(held[i]);
    return result;
}

static PyMethodDef METHODS[] = {
    {"analysis", (PyCFunction)(void (*)(void))py_analysis, METH_FASTCALL,
     "analysis(text, cache, analyze_missing, config) -> result_type((keywords, keys)), or "
     "None."},
    {"entries", (PyCFunction)(void (*)(void))py_entries, METH_FASTCALL,
     "entries(chunks, cache, analyze_missing, config) -> the entry of each chunk, or None."},
    {NULL, NULL, 0, NULL},
};

/* ---- module init: multi-phase (PEP 489) ------------------------------------------------
 * Process-wide static state stays (a static type (KnownChunks), the sentinel DEFER and the tuple
 * subclasses' deallocator read at import): one copy for the process, made for the main
 * interpreter's objects.
 * (process_state.h: so the module loads in the main interpreter only). */
static int exec_module(PyObject *module)
{
    if (lexeval_main_interpreter_only("lexeval.native.keywords") < 0)
        return -1;
    init_tables();
    PyObject *probe = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){}", "probe",
                                            (PyObject *)&PyTuple_Type);
    if (probe == NULL)
        return -1;
    class_dealloc = ((PyTypeObject *)probe)->tp_dealloc;
    Py_DECREF(probe);
    if (PyType_Ready(&KnownChunksType) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "KnownChunks", (PyObject *)&KnownChunksType);
}

static PyModuleDef_Slot SLOTS[] = {
    {Py_mod_exec, (void *)exec_module},
    LEXEVAL_PROCESS_WIDE_STATE_SLOTS
    {0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.keywords",
    "The compiled fast path of StepProcessor.keyword_analysis (see lexeval.native).", 0,
    METHODS, SLOTS,
};

PyMODINIT_FUNC PyInit_keywords(void) { return PyModuleDef_Init(&MODULE); }
