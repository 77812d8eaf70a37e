/* lexeval.native.rouge: the compiled fast path of rouge-score compat ROUGE.
 *
 * The pure-Python code stays the reference (lexeval.porter, lexeval.compat, lexeval.metrics.
 * overlap); this module computes the same values, and the property tests compare the two:
 *
 *   stem(word)            nltk's PorterStemmer() (NLTK_EXTENSIONS mode) of an ASCII word, as
 *                         lexeval.porter.PorterStemmer().stem
 *   tokens(text, stem)    rouge-score 0.1.2's tokenizer, as lexeval.compat.rouge_score_tokens
 *   counts(ref, out, lengths_ref, lengths_out, want)
 *                         the clipped unigram and bigram overlaps, the LCS length and the
 *                         rougeLsum union-LCS hits (rouge-score's table backtrack) of two token
 *                         sequences
 *   clear()               forget the remembered stems
 *
 * Every function holds the GIL from start to end and calls no Python code while it works on
 * the one piece of mutable state (the bounded tables of tokens the module object has computed,
 * in its module state: one per interpreter), so that needs no lock. Python code runs only in
 * argument conversion (a flag's __bool__, __index__, the iteration of an argument that is not
 * a list or tuple), before the tables are touched; in counts(), read_lengths may run it after
 * the ids are assigned, so nothing may read the borrowed items (or the id table that points at
 * them) past that point. Nothing of the host process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define POPCOUNT64(x) __builtin_popcountll(x)
#else
static int POPCOUNT64(uint64_t x)
{
    int k = 0;
    for (; x; x &= x - 1)
        k++;
    return k;
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* Porter stemmer (nltk 3.x PorterStemmer, NLTK_EXTENSIONS), on lower-case ASCII bytes.       */
/* A word is w[0..n); every step rewrites it in place (no step makes a word longer).           */
/* ------------------------------------------------------------------------------------------ */

static int is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

/* Whether w[i] is a consonant: y is one at the start or after a vowel. */
static int is_cons(const char *w, Py_ssize_t i)
{
    int negate = 0;
    for (;;) {
        char c = w[i];
        if (is_vowel(c))
            return negate;
        if (c != 'y' || i == 0)
            return !negate;
        negate = !negate;
        i--;
    }
}

/* Porter's m of w[0..n): the number of vowel-consonant sequences. One pass (is_cons of each
 * letter would be quadratic in a run of y's): a y after a letter is a consonant when that
 * letter is not. */
static Py_ssize_t measure(const char *w, Py_ssize_t n)
{
    Py_ssize_t m = 0;
    int cons = 0, prev_vowel = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        cons = is_vowel(w[i]) ? 0 : (w[i] == 'y' && i > 0) ? !cons : 1;
        if (cons && prev_vowel)
            m++;
        prev_vowel = !cons;
    }
    return m;
}

static int contains_vowel(const char *w, Py_ssize_t n)
{
    int cons = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        cons = is_vowel(w[i]) ? 0 : (w[i] == 'y' && i > 0) ? !cons : 1;
        if (!cons)
            return 1;
    }
    return 0;
}

static int ends_double_consonant(const char *w, Py_ssize_t n)
{
    return n >= 2 && w[n - 1] == w[n - 2] && is_cons(w, n - 1);
}

static int ends_cvc(const char *w, Py_ssize_t n)
{
    if (n >= 3 && is_cons(w, n - 3) && !is_cons(w, n - 2) && is_cons(w, n - 1) &&
        w[n - 1] != 'w' && w[n - 1] != 'x' && w[n - 1] != 'y')
        return 1;
    return n == 2 && !is_cons(w, 0) && is_cons(w, 1);
}

static int ends(const char *w, Py_ssize_t n, const char *suffix, Py_ssize_t k)
{
    return n >= k && memcmp(w + n - k, suffix, (size_t)k) == 0;
}
#define ENDS(lit) ends(w, *n, lit, (Py_ssize_t)(sizeof(lit) - 1))

static void put(char *w, Py_ssize_t *n, Py_ssize_t at, const char *text)
{
    size_t k = strlen(text);
    memcpy(w + at, text, k);
    *n = at + (Py_ssize_t)k;
}

static void step1a(char *w, Py_ssize_t *n)
{
    if (!ENDS("s"))
        return;
    if (ENDS("ies"))
        *n -= (*n == 4) ? 1 : 2;
    else if (ENDS("sses"))
        *n -= 2;
    else if (ENDS("ss"))
        return;
    else
        *n -= 1;
}

static void step1b(char *w, Py_ssize_t *n)
{
    Py_ssize_t stem;
    if (ENDS("ied")) {
        put(w, n, *n - 3, *n == 4 ? "ie" : "i");
        return;
    }
    if (ENDS("eed")) {
        if (measure(w, *n - 3) > 0)
            *n -= 1;
        return;
    }
    if (ENDS("ed") && contains_vowel(w, *n - 2))
        stem = *n - 2;
    else if (ENDS("ing") && contains_vowel(w, *n - 3))
        stem = *n - 3;
    else
        return;
    *n = stem;
    char last = w[stem - 1];
    if (ENDS("at") || ENDS("bl") || ENDS("iz")) {
        put(w, n, stem, "e");
        return;
    }
    if (ends_double_consonant(w, stem) || ENDS("*d")) {
        if (last != 'l' && last != 's' && last != 'z') {
            w[stem - 2] = last;
            *n = stem - 1;
        }
        return;
    }
    if (measure(w, stem) == 1 && ends_cvc(w, stem))
        put(w, n, stem, "e");
}

static void step1c(char *w, Py_ssize_t *n)
{
    if (ENDS("y") && *n - 1 > 1 && is_cons(w, *n - 2))
        w[*n - 1] = 'i';
}

typedef struct {
    const char *suffix;
    const char *replacement;
} Rule;

/* The first rule whose suffix w ends with decides: the replacement when `condition` holds for
 * the rest (m > 0, or m > 1, or m > 1 and the rest ends with s or t), else w unchanged.
 * Returns whether a suffix matched. */
enum { M_POSITIVE, M_GT_1, M_ION };

static int apply_rules(char *w, Py_ssize_t *n, const Rule *rules, int condition)
{
    for (const Rule *r = rules; r->suffix; r++) {
        Py_ssize_t k = (Py_ssize_t)strlen(r->suffix);
        if (!ends(w, *n, r->suffix, k))
            continue;
        Py_ssize_t stem = *n - k;
        int ok;
        if (condition == M_POSITIVE)
            ok = measure(w, stem) > 0;
        else if (condition == M_GT_1 || strcmp(r->suffix, "ion") != 0)
            ok = measure(w, stem) > 1;
        else
            ok = measure(w, stem) > 1 && stem > 0 && (w[stem - 1] == 's' || w[stem - 1] == 't');
        if (ok)
            put(w, n, stem, r->replacement);
        return 1;
    }
    return 0;
}

/* STEP2 without "alli" (lexeval.porter's table: "alli" is the special case before it) */
static const Rule STEP2_TABLE[] = {
    {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"},   {"anci", "ance"},
    {"izer", "ize"},    {"bli", "ble"},     {"entli", "ent"},   {"eli", "e"},
    {"ousli", "ous"},   {"ization", "ize"}, {"ation", "ate"},   {"ator", "ate"},
    {"alism", "al"},    {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
    {"aliti", "al"},    {"iviti", "ive"},   {"biliti", "ble"},  {"fulli", "ful"},
    {NULL, NULL},
};

static void step2(char *w, Py_ssize_t *n)
{
    while (ENDS("alli") && measure(w, *n - 4) > 0)
        *n -= 2; /* "alli" -> "al", then step 2 again */
    if (apply_rules(w, n, STEP2_TABLE, M_POSITIVE))
        return;
    if (ENDS("logi") && measure(w, *n - 3) > 0)
        *n -= 1;
}

static const Rule STEP3[] = {
    {"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
    {"ical", "ic"},  {"ful", ""},   {"ness", ""},    {NULL, NULL},
};

static const Rule STEP4[] = {
    {"al", ""},  {"ance", ""}, {"ence", ""}, {"er", ""},  {"ic", ""},   {"able", ""}, {"ible", ""},
    {"ant", ""}, {"ement", ""}, {"ment", ""}, {"ent", ""}, {"ion", ""}, {"ou", ""},   {"ism", ""},
    {"ate", ""}, {"iti", ""},  {"ous", ""},  {"ive", ""}, {"ize", ""},  {NULL, NULL},
};

static void step5a(char *w, Py_ssize_t *n)
{
    if (ENDS("e")) {
        Py_ssize_t stem = *n - 1;
        Py_ssize_t m = measure(w, stem);
        if (m > 1 || (m > 0 && !ends_cvc(w, stem)))
            *n = stem;
    }
}

static void step5b(char *w, Py_ssize_t *n)
{
    if (ENDS("ll") && measure(w, *n - 1) > 1)
        *n -= 1;
}

static const char *const POOL[][2] = {
    {"sky", "sky"},         {"skies", "sky"},         {"dying", "die"},
    {"lying", "lie"},       {"tying", "tie"},         {"news", "news"},
    {"innings", "inning"},  {"inning", "inning"},     {"outings", "outing"},
    {"outing", "outing"},   {"cannings", "canning"},  {"canning", "canning"},
    {"howe", "howe"},       {"proceed", "proceed"},   {"exceed", "exceed"},
    {"succeed", "succeed"}, {NULL, NULL},
};

/* The stem of the lower-case ASCII word w[0..*n), in place. */
static void porter(char *w, Py_ssize_t *n)
{
    for (int i = 0; POOL[i][0]; i++) {
        size_t k = strlen(POOL[i][0]);
        if ((size_t)*n == k && memcmp(w, POOL[i][0], k) == 0) {
            put(w, n, 0, POOL[i][1]);
            return;
        }
    }
    if (*n <= 2)
        return;
    step1a(w, n);
    step1b(w, n);
    step1c(w, n);
    step2(w, n);
    apply_rules(w, n, STEP3, M_POSITIVE);
    apply_rules(w, n, STEP4, M_ION);
    step5a(w, n);
    step5b(w, n);
}

/* The Porter stem of the ASCII bytes src[0..n) (lower-cased first when `lower`): a new str. */
static PyObject *stem_str(const char *src, Py_ssize_t n, int lower)
{
    char buf[256];
    char *w = n + 8 <= (Py_ssize_t)sizeof(buf) ? buf : PyMem_Malloc((size_t)n + 8);
    if (!w)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        w[i] = (lower && src[i] >= 'A' && src[i] <= 'Z') ? (char)(src[i] + 32) : src[i];
    porter(w, &n);
    PyObject *out = PyUnicode_FromStringAndSize(w, n);
    if (w != buf)
        PyMem_Free(w);
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* The remembered tokens: token bytes -> its rouge-score token (a str; NULL: dropped).          */
/* Open addressing, bounded: cleared whole when full. One table per stemming setting.          */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t hash;
    char *key; /* NULL: empty slot */
    Py_ssize_t len;
    PyObject *value; /* strong reference, or NULL: the token is dropped */
} Slot;

typedef struct {
    Slot *slots;
    size_t capacity; /* a power of two */
    size_t used;
} Table;

#define TABLE_MAX_USED ((size_t)1 << 18) /* as lexeval.compat's _STEMS_MAX */

/* The module's state (one per module object, so one per interpreter that imports it): the
 * remembered tokens and the seed of their hash. The only mutable state of this file. */
typedef struct {
    Table tables[2]; /* [0]: no stemming, [1]: stemming */
    uint64_t seed;   /* FNV-1a's offset basis ^ str's randomized hash of a constant */
} State;

static State *get_state(PyObject *module) { return (State *)PyModule_GetState(module); }

static uint64_t hash_bytes(uint64_t seed, const char *s, Py_ssize_t n)
{
    uint64_t h = seed;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static void table_clear(Table *t)
{
    if (!t->slots)
        return;
    Slot *slots = t->slots;
    size_t capacity = t->capacity;
    t->slots = NULL;
    t->capacity = t->used = 0;
    for (size_t i = 0; i < capacity; i++) {
        if (slots[i].key) {
            PyMem_Free(slots[i].key);
            Py_XDECREF(slots[i].value);
        }
    }
    PyMem_Free(slots);
}

static void state_clear(State *st)
{
    table_clear(&st->tables[0]);
    table_clear(&st->tables[1]);
}

static Slot *table_find(Table *t, const char *key, Py_ssize_t len, uint64_t hash)
{
    size_t mask = t->capacity - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        Slot *s = &t->slots[i];
        if (!s->key || (s->hash == hash && s->len == len && memcmp(s->key, key, (size_t)len) == 0))
            return s;
    }
}

/* Grow (or start) the table so one more entry fits; -1 on memory error. */
static int table_reserve(Table *t)
{
    if (t->used >= TABLE_MAX_USED)
        table_clear(t);
    if (t->slots && (t->used + 1) * 2 <= t->capacity)
        return 0;
    size_t capacity = t->capacity ? t->capacity * 2 : 4096;
    Slot *slots = PyMem_Calloc(capacity, sizeof(Slot));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    Slot *old = t->slots;
    size_t old_capacity = t->capacity;
    t->slots = slots;
    t->capacity = capacity;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].key)
            *table_find(t, old[i].key, old[i].len, old[i].hash) = old[i];
    PyMem_Free(old);
    return 0;
}

/* Tokens longer than this are stemmed on every call, never remembered: the table holds at most
 * 2^18 tokens, and one long token each (a 10 MB run of letters) would keep megabytes alive. */
#define MAX_REMEMBERED 64

/* The rouge-score token of the token bytes tok[0..n): a new reference, Py_None (new reference)
 * when rouge-score drops it; NULL with an exception set on a memory error. */
static PyObject *compute_value(const char *tok, Py_ssize_t n, int stem)
{
    if (!(stem && n > 3))
        return PyUnicode_FromStringAndSize(tok, n);
    /* rouge-score keeps a stem only when it is [a-z0-9]+ (every stem of such a token is,
     * unless empty) */
    PyObject *value = stem_str(tok, n, 0);
    if (value && PyUnicode_GET_LENGTH(value) == 0) {
        Py_DECREF(value);
        Py_RETURN_NONE;
    }
    return value;
}

/* The rouge-score token of the token bytes tok[0..n) (a new reference; NULL: dropped),
 * remembered when n <= MAX_REMEMBERED; *error set on a memory error. */
static PyObject *token_value(State *st, const char *tok, Py_ssize_t n, int stem, int *error)
{
    PyObject *value;
    if (n > MAX_REMEMBERED) { /* computed on every call */
        value = compute_value(tok, n, stem);
        if (!value)
            *error = 1;
        else if (value == Py_None)
            Py_CLEAR(value);
        return value;
    }
    Table *t = &st->tables[stem ? 1 : 0];
    uint64_t hash = hash_bytes(st->seed, tok, n);
    if (t->slots) {
        Slot *s = table_find(t, tok, n, hash);
        if (s->key) {
            Py_XINCREF(s->value);
            return s->value;
        }
    }
    value = compute_value(tok, n, stem);
    if (!value || table_reserve(t) < 0) {
        Py_XDECREF(value);
        *error = 1;
        return NULL;
    }
    if (value == Py_None) {
        Py_DECREF(value);
        value = NULL;
    }
    char *key = PyMem_Malloc((size_t)n + 1);
    if (!key) {
        Py_XDECREF(value);
        PyErr_NoMemory();
        *error = 1;
        return NULL;
    }
    memcpy(key, tok, (size_t)n);
    Slot *s = table_find(t, tok, n, hash);
    s->hash = hash;
    s->key = key;
    s->len = n;
    s->value = value;
    t->used++;
    Py_XINCREF(value);
    return value;
}

/* ------------------------------------------------------------------------------------------ */
/* Python functions                                                                           */
/* ------------------------------------------------------------------------------------------ */

static PyObject *py_stem(PyObject *self, PyObject *arg)
{
    if (!PyUnicode_Check(arg) || !PyUnicode_IS_ASCII(arg)) {
        PyErr_SetString(PyExc_TypeError, "stem() takes an ASCII str");
        return NULL;
    }
    return stem_str((const char *)PyUnicode_1BYTE_DATA(arg), PyUnicode_GET_LENGTH(arg), 1);
}

static int token_char(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* Append the tokens of the lower-case code points of `text` to `out`. */
static int append_tokens(State *st, PyObject *out, PyObject *text, int stem)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    char small[256];
    char *buf = small;
    Py_ssize_t cap = (Py_ssize_t)sizeof(small), k = 0;
    int error = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        Py_UCS4 c = i < n ? PyUnicode_READ(kind, data, i) : ' ';
        if (c >= 'A' && c <= 'Z') /* ASCII text is lower-cased here, other text before */
            c += 32;
        if (token_char(c)) {
            if (k == cap) {
                char *bigger = PyMem_Malloc((size_t)cap * 2);
                if (!bigger) {
                    PyErr_NoMemory();
                    error = 1;
                    break;
                }
                memcpy(bigger, buf, (size_t)k);
                if (buf != small)
                    PyMem_Free(buf);
                buf = bigger;
                cap *= 2;
            }
            buf[k++] = (char)c;
            continue;
        }
        if (!k)
            continue;
        PyObject *value = token_value(st, buf, k, stem, &error);
        k = 0;
        if (value && PyList_Append(out, value) < 0)
            error = 1;
        Py_XDECREF(value);
        if (error)
            break;
    }
    if (buf != small)
        PyMem_Free(buf);
    return error ? -1 : 0;
}

static PyObject *py_tokens(PyObject *self, PyObject *args)
{
    PyObject *text;
    int stem;
    if (!PyArg_ParseTuple(args, "Up:tokens", &text, &stem))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    State *st = get_state(self);
    if (PyUnicode_IS_ASCII(text)) { /* lower-cased on the fly */
        if (append_tokens(st, out, text, stem) < 0)
            Py_CLEAR(out);
        return out;
    }
    /* str.lower() of other text may give ASCII letters (K, the Kelvin sign, gives k); str's
     * own method, whatever a subclass defines */
    PyObject *low = PyObject_CallMethod((PyObject *)&PyUnicode_Type, "lower", "O", text);
    if (!low || !PyUnicode_Check(low) || append_tokens(st, out, low, stem) < 0)
        Py_CLEAR(out);
    Py_XDECREF(low);
    return out;
}

static PyObject *py_clear(PyObject *self, PyObject *unused)
{
    state_clear(get_state(self));
    Py_RETURN_NONE;
}

/* ---- counting ------------------------------------------------------------------------------ */

/* Small ids for the tokens of a pair: equal str, equal id. */
typedef struct {
    PyObject *key;
    Py_hash_t hash;
    Py_ssize_t id;
} IdSlot;

static int str_equal(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b))
        return 0;
    return memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * PyUnicode_KIND(a)) == 0;
}

/* ids[i] of seq's items, from the shared id table; -1 on error. */
static int assign_ids(PyObject *seq, Py_ssize_t *ids, IdSlot *slots, size_t mask, Py_ssize_t *next)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = items[i];
        if (!PyUnicode_CheckExact(key)) { /* exact: hashing runs no Python code */
            PyErr_SetString(PyExc_TypeError, "counts() takes sequences of str");
            return -1;
        }
        Py_hash_t hash = PyObject_Hash(key);
        if (hash == -1)
            return -1;
        for (size_t j = (size_t)hash & mask;; j = (j + 1) & mask) {
            IdSlot *s = &slots[j];
            if (!s->key) {
                s->key = key;
                s->hash = hash;
                s->id = (*next)++;
                ids[i] = s->id;
                break;
            }
            if (s->hash == hash && str_equal(s->key, key)) {
                ids[i] = s->id;
                break;
            }
        }
    }
    return 0;
}

/* Clipped bigram overlap: how many of out's bigrams match a distinct bigram of ref's. */
static Py_ssize_t bigram_overlap(const Py_ssize_t *r, Py_ssize_t nr, const Py_ssize_t *o,
                                 Py_ssize_t no, Py_ssize_t vocab, int *error)
{
    if (nr < 2 || no < 2)
        return 0;
    size_t capacity = 16;
    while (capacity < (size_t)nr * 2)
        capacity *= 2;
    size_t mask = capacity - 1;
    struct {
        uint64_t key; /* first * vocab + second + 1; 0: empty */
        Py_ssize_t count;
    } *slots = PyMem_Calloc(capacity, sizeof(*slots));
    if (!slots) {
        PyErr_NoMemory();
        *error = 1;
        return 0;
    }
    Py_ssize_t overlap = 0;
    for (int side = 0; side < 2; side++) { /* count ref's bigrams, then match out's */
        const Py_ssize_t *t = side ? o : r;
        for (Py_ssize_t i = 0, n = side ? no : nr; i + 1 < n; i++) {
            uint64_t key = (uint64_t)t[i] * (uint64_t)vocab + (uint64_t)t[i + 1] + 1;
            size_t j = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
            while (slots[j].key && slots[j].key != key)
                j = (j + 1) & mask;
            if (!side) {
                slots[j].key = key;
                slots[j].count++;
            } else if (slots[j].key && slots[j].count > 0) {
                slots[j].count--;
                overlap++;
            }
        }
    }
    PyMem_Free(slots);
    return overlap;
}

/* Work between two looks at pending signals (about a millisecond of the loops below), so that
 * Ctrl-C (or any Python signal handler that raises) ends a long call: -1 with the exception
 * set when a handler raised. Only the main thread runs handlers; elsewhere this returns 0. */
#define SIGNAL_EVERY ((Py_ssize_t)1 << 22)

static int check_signals(Py_ssize_t *budget, Py_ssize_t spent)
{
    *budget -= spent;
    if (*budget > 0)
        return 0;
    *budget = SIGNAL_EVERY;
    return PyErr_CheckSignals();
}

/* LCS length (bit-parallel rows, Hyyro 2004), ids < vocab. Each id's match mask over the
 * output is kept sparse (the words where it occurs): memory in the tokens, not their square. */
static Py_ssize_t lcs_length(const Py_ssize_t *r, Py_ssize_t nr, const Py_ssize_t *o,
                             Py_ssize_t no, Py_ssize_t vocab, int *error)
{
    if (!nr || !no)
        return 0;
    Py_ssize_t words = (no + 63) / 64;
    /* start[id]..start[id + 1]: id's (word, mask) entries, in word order */
    Py_ssize_t *start = PyMem_Calloc((size_t)vocab + 2, sizeof(Py_ssize_t));
    Py_ssize_t *at = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)no);
    uint64_t *mask = PyMem_Malloc(sizeof(uint64_t) * (size_t)no);
    uint64_t *v = PyMem_Malloc(sizeof(uint64_t) * (size_t)words);
    Py_ssize_t *last_word = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(vocab ? vocab : 1));
    if (!start || !at || !mask || !v || !last_word) {
        PyMem_Free(start);
        PyMem_Free(at);
        PyMem_Free(mask);
        PyMem_Free(v);
        PyMem_Free(last_word);
        PyErr_NoMemory();
        *error = 1;
        return 0;
    }
    /* count one entry per (id, word) pair, then fill */
    for (Py_ssize_t id = 0; id < vocab; id++)
        last_word[id] = -1;
    for (Py_ssize_t j = 0; j < no; j++) {
        Py_ssize_t w = j / 64;
        if (last_word[o[j]] != w) {
            last_word[o[j]] = w;
            start[o[j] + 2]++;
        }
    }
    for (Py_ssize_t id = 0; id < vocab; id++)
        start[id + 2] += start[id + 1];
    /* start[id + 1] is now where id's entries begin; filling moves it to where they end */
    for (Py_ssize_t id = 0; id < vocab; id++)
        last_word[id] = -1;
    for (Py_ssize_t j = 0; j < no; j++) {
        Py_ssize_t id = o[j], w = j / 64;
        if (last_word[id] != w) {
            last_word[id] = w;
            Py_ssize_t k = start[id + 1]++;
            at[k] = w;
            mask[k] = 0;
        }
        mask[start[id + 1] - 1] |= (uint64_t)1 << (j % 64);
    }
    PyMem_Free(last_word);
    for (Py_ssize_t w = 0; w < words; w++)
        v[w] = ~(uint64_t)0;
    Py_ssize_t budget = SIGNAL_EVERY, zeros = 0;
    for (Py_ssize_t i = 0; i < nr; i++) {
        Py_ssize_t k = start[r[i]], end = start[r[i] + 1];
        if (k == end)
            continue; /* no match anywhere: the row stays as it is */
        if (check_signals(&budget, words) < 0) {
            *error = 1;
            goto done;
        }
        uint64_t carry = 0;
        for (Py_ssize_t w = 0; w < words; w++) {
            uint64_t m = 0;
            if (k < end && at[k] == w)
                m = mask[k++];
            uint64_t u = v[w] & m;
            uint64_t sum = v[w] + u;
            uint64_t c1 = sum < v[w];
            uint64_t sum2 = sum + carry;
            uint64_t c2 = sum2 < sum;
            v[w] = sum2 | (v[w] - u);
            carry = c1 | c2;
        }
    }
    for (Py_ssize_t w = 0; w < words; w++) {
        uint64_t x = v[w];
        if (w == words - 1 && no % 64)
            x |= ~(((uint64_t)1 << (no % 64)) - 1); /* bits past the end count as ones */
        zeros += 64 - POPCOUNT64(x);
    }
done:
    PyMem_Free(start);
    PyMem_Free(at);
    PyMem_Free(mask);
    PyMem_Free(v);
    return zeros;
}

/* rougeLsum's hits (rouge-score's _summary_level_lcs): for each reference sentence, the union
 * of the reference positions of one LCS with each output sentence (its table backtrack: the
 * diagonal on a match, else left only when strictly larger), counted in order while both
 * sides still have that token left. */
static Py_ssize_t union_lcs_hits(const Py_ssize_t *r, const Py_ssize_t *rlen, Py_ssize_t nrs,
                                 const Py_ssize_t *o, const Py_ssize_t *olen, Py_ssize_t nos,
                                 Py_ssize_t nr, Py_ssize_t no, Py_ssize_t vocab, int *error)
{
    Py_ssize_t longest_r = 1, longest_o = 1;
    for (Py_ssize_t k = 0; k < nrs; k++)
        longest_r = rlen[k] > longest_r ? rlen[k] : longest_r;
    for (Py_ssize_t k = 0; k < nos; k++)
        longest_o = olen[k] > longest_o ? olen[k] : longest_o;
    /* a table over 2^26 cells (256 MB): left to the Python code. Divided, not multiplied: the
     * product can wrap a 32-bit size_t to a small table */
    if ((size_t)longest_o + 1 > ((size_t)1 << 26) / ((size_t)longest_r + 1))
        return -1;
    size_t cells = (size_t)(longest_r + 1) * (size_t)(longest_o + 1);
    Py_ssize_t *cnt_r = PyMem_Calloc((size_t)vocab * 2, sizeof(Py_ssize_t));
    int32_t *table = PyMem_Malloc(cells * sizeof(int32_t));
    char *hit = PyMem_Malloc((size_t)longest_r);
    if (!cnt_r || !table || !hit) {
        PyMem_Free(cnt_r);
        PyMem_Free(table);
        PyMem_Free(hit);
        PyErr_NoMemory();
        *error = 1;
        return 0;
    }
    Py_ssize_t *cnt_o = cnt_r + vocab;
    for (Py_ssize_t i = 0; i < nr; i++)
        cnt_r[r[i]]++;
    for (Py_ssize_t i = 0; i < no; i++)
        cnt_o[o[i]]++;
    Py_ssize_t hits = 0, budget = SIGNAL_EVERY;
    const Py_ssize_t *ref = r;
    for (Py_ssize_t k = 0; k < nrs; ref += rlen[k], k++) {
        Py_ssize_t m = rlen[k];
        memset(hit, 0, (size_t)m); /* m, not longest_r: quadratic over many sentences */
        const Py_ssize_t *can = o;
        for (Py_ssize_t c = 0; c < nos; can += olen[c], c++) {
            Py_ssize_t n = olen[c], cols = n + 1;
            if (!m || !n)
                continue;
            if (check_signals(&budget, m * n) < 0) {
                *error = 1;
                goto done;
            }
            for (Py_ssize_t j = 0; j <= n; j++)
                table[j] = 0;
            for (Py_ssize_t i = 1; i <= m; i++) {
                int32_t *row = table + i * cols, *up = row - cols;
                row[0] = 0;
                for (Py_ssize_t j = 1; j <= n; j++) {
                    if (ref[i - 1] == can[j - 1])
                        row[j] = up[j - 1] + 1;
                    else
                        row[j] = up[j] > row[j - 1] ? up[j] : row[j - 1];
                }
            }
            Py_ssize_t i = m, j = n;
            while (i > 0 && j > 0) {
                if (ref[i - 1] == can[j - 1]) {
                    hit[--i] = 1;
                    j--;
                } else if (table[i * cols + j - 1] > table[(i - 1) * cols + j]) {
                    j--;
                } else {
                    i--;
                }
            }
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            Py_ssize_t t = ref[i];
            if (hit[i] && cnt_o[t] > 0 && cnt_r[t] > 0) {
                hits++;
                cnt_o[t]--;
                cnt_r[t]--;
            }
        }
    }
done:
    PyMem_Free(cnt_r);
    PyMem_Free(table);
    PyMem_Free(hit);
    return hits;
}

/* Sentence lengths from a sequence of ints summing to `total`; NULL when not given. */
static Py_ssize_t *read_lengths(PyObject *lengths, Py_ssize_t total, Py_ssize_t *count)
{
    PyObject *seq = PySequence_Fast(lengths, "sentence lengths must be a sequence of int");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), sum = 0;
    Py_ssize_t *out = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    if (!out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_CheckExact(item)) { /* exact: reading it runs no Python code */
            PyErr_SetString(PyExc_TypeError, "sentence lengths must be a sequence of int");
            PyMem_Free(out);
            Py_DECREF(seq);
            return NULL;
        }
        out[i] = PyLong_AsSsize_t(item);
        if (out[i] < 0 || out[i] > total - sum) { /* sum <= total: it cannot overflow */
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError,
                                out[i] < 0 ? "sentence lengths must be >= 0"
                                           : "sentence lengths must add up to the tokens");
            PyMem_Free(out);
            Py_DECREF(seq);
            return NULL;
        }
        sum += out[i];
    }
    Py_DECREF(seq);
    if (sum != total) {
        PyErr_SetString(PyExc_ValueError, "sentence lengths must add up to the tokens");
        PyMem_Free(out);
        return NULL;
    }
    *count = n;
    return out;
}

enum { WANT_UNIGRAMS = 1, WANT_BIGRAMS = 2, WANT_LCS = 4, WANT_SUMMARY = 8 };

static PyObject *py_counts(PyObject *self, PyObject *args)
{
    PyObject *ref_obj, *out_obj, *ref_lengths, *out_lengths;
    int want;
    if (!PyArg_ParseTuple(args, "OOOOi:counts", &ref_obj, &out_obj, &ref_lengths, &out_lengths,
                          &want))
        return NULL;
    PyObject *ref = PySequence_Fast(ref_obj, "tokens must be a sequence of str");
    if (!ref)
        return NULL;
    PyObject *out = PySequence_Fast(out_obj, "tokens must be a sequence of str");
    if (!out) {
        Py_DECREF(ref);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t nr = PySequence_Fast_GET_SIZE(ref), no = PySequence_Fast_GET_SIZE(out);
    Py_ssize_t total = nr + no;
    size_t capacity = 16;
    while (capacity < (size_t)total * 2)
        capacity *= 2;
    IdSlot *slots = PyMem_Calloc(capacity, sizeof(IdSlot));
    Py_ssize_t *ids = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(total ? total : 1));
    Py_ssize_t *cnt = NULL, *rlen = NULL, *olen = NULL;
    Py_ssize_t vocab = 0, nrs = 0, nos = 0;
    Py_ssize_t o1 = -1, o2 = -1, lcs = -1, hits = -1;
    int error = 0;
    if (!slots || !ids) {
        PyErr_NoMemory();
        goto done;
    }
    if (assign_ids(ref, ids, slots, capacity - 1, &vocab) < 0 ||
        assign_ids(out, ids + nr, slots, capacity - 1, &vocab) < 0)
        goto done;
    const Py_ssize_t *r = ids, *o = ids + nr;
    if (want & WANT_UNIGRAMS) {
        cnt = PyMem_Calloc((size_t)(vocab ? vocab : 1), sizeof(Py_ssize_t));
        if (!cnt) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < nr; i++)
            cnt[r[i]]++;
        o1 = 0;
        for (Py_ssize_t i = 0; i < no; i++)
            if (cnt[o[i]] > 0) {
                cnt[o[i]]--;
                o1++;
            }
    }
    if (want & WANT_BIGRAMS) {
        o2 = bigram_overlap(r, nr, o, no, vocab, &error);
        if (error)
            goto done;
    }
    if (want & WANT_LCS) {
        lcs = lcs_length(r, nr, o, no, vocab, &error);
        if (error)
            goto done;
    }
    if (want & WANT_SUMMARY) {
        /* may run Python code (iterating a lengths iterable) that changes ref or out: only
         * the ids, a private copy, are read from here on */
        rlen = read_lengths(ref_lengths, nr, &nrs);
        if (!rlen)
            goto done;
        olen = read_lengths(out_lengths, no, &nos);
        if (!olen)
            goto done;
        hits = (nr && no) ? union_lcs_hits(r, rlen, nrs, o, olen, nos, nr, no, vocab, &error) : 0;
        if (error)
            goto done;
    }
    result = Py_BuildValue("(nnnn)", o1, o2, lcs, hits);
done:
    PyMem_Free(slots);
    PyMem_Free(ids);
    PyMem_Free(cnt);
    PyMem_Free(rlen);
    PyMem_Free(olen);
    Py_DECREF(ref);
    Py_DECREF(out);
    return result;
}

static PyMethodDef METHODS[] = {
    {"stem", py_stem, METH_O, "nltk's PorterStemmer().stem of an ASCII word."},
    {"tokens", py_tokens, METH_VARARGS,
     "tokens(text, stem): rouge-score 0.1.2's tokens of text (Porter stems when stem)."},
    {"counts", py_counts, METH_VARARGS,
     "counts(ref, out, ref_lengths, out_lengths, want) -> (unigram overlap, bigram overlap, "
     "LCS length, rougeLsum hits); -1 for what `want` (bits 1, 2, 4, 8) does not ask for."},
    {"clear", py_clear, METH_NOARGS, "Forget the remembered tokens and stems."},
    {NULL, NULL, 0, NULL},
};

/* ---- module init: multi-phase (PEP 489), state per module object ---------------------------
 * Every interpreter that imports this module gets its own module object and State (its own
 * tables, whose values are its own str objects); nothing mutable is shared across them, so the
 * module supports subinterpreters, each with its own GIL (3.12+). The functions mutate their
 * module's tables without a lock: they need the GIL (Py_mod_gil, 3.13+: a free-threaded Python
 * turns it on when this module loads). The tables hold only str values, which take part in no
 * reference cycle, so the module has no m_traverse; m_clear and m_free release them. */
static int exec_module(PyObject *module)
{
    State *st = get_state(module);
    PyObject *seed = PyUnicode_FromString("lexeval.native.rouge");
    if (!seed)
        return -1;
    Py_hash_t h = PyObject_Hash(seed);
    Py_DECREF(seed);
    if (h == -1)
        return -1;
    st->seed = 1469598103934665603ULL ^ (uint64_t)h;
    if (PyModule_AddIntConstant(module, "UNIGRAMS", WANT_UNIGRAMS) < 0 ||
        PyModule_AddIntConstant(module, "BIGRAMS", WANT_BIGRAMS) < 0 ||
        PyModule_AddIntConstant(module, "LCS", WANT_LCS) < 0 ||
        PyModule_AddIntConstant(module, "SUMMARY", WANT_SUMMARY) < 0)
        return -1;
    return 0;
}

static int clear_module(PyObject *module)
{
    state_clear(get_state(module));
    return 0;
}

static void free_module(void *module) { clear_module((PyObject *)module); }

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
    PyModuleDef_HEAD_INIT,
    .m_name = "lexeval.native.rouge",
    .m_doc = "The compiled fast path of rouge-score compat ROUGE (see lexeval.native).",
    .m_size = sizeof(State),
    .m_methods = METHODS,
    .m_slots = SLOTS,
    .m_clear = clear_module,
    .m_free = free_module,
};

PyMODINIT_FUNC PyInit_rouge(void) { return PyModuleDef_Init(&MODULE); }
