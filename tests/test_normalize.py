"""The normalization layer: technical terms, word forms, stopwords, compounds, languages."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.normalize import KEEP_WORDS, LEMMA_OVERRIDES, Normalizer
from lexeval.text.resources import load_language, load_lemma_table, unload_language
from lexeval.text.steps import (
    CJK_RE,
    LONG_CHUNK_RE,
    CaseFold,
    Lemmatizer,
    SpacyTokenizer,
    long_chunk_pieces,
)


@pytest.fixture(scope="module")
def norm() -> Normalizer:
    return Normalizer()


# ---------------------------------------------------------------- technical terms

TECHNICAL = [
    ("I build apps with React.js and Node.js", ["react.js", "node.js"]),
    ("Vue.js beats .NET?", ["vue.js", ".net"]),
    ("C++, C# and F# are languages.", ["c++", "c#", "f#"]),
    ("TCP/IP, CI/CD and I/O.", ["tcp/ip", "ci/cd", "i/o"]),
    ("state-of-the-art e-mail on x86-64", ["state-of-the-art", "e-mail", "x86-64"]),
    ("GPT-4o shipped in v1.2.3.", ["gpt-4o", "v1.2.3"]),
    ("Call __init__ or snake_case or camelCase", ["__init__", "snake_case", "camelcase"]),
    ("See https://example.com/a?b=1 or mail me@example.org.", ["https://example.com/a?b=1"]),
    ("mail me@example.org.", ["me@example.org"]),
]


@pytest.mark.parametrize(("text", "expected"), TECHNICAL)
def test_technical_terms_stay_whole(norm: Normalizer, text: str, expected: list[str]) -> None:
    keys = norm.keywords(text)
    for term in expected:
        assert term in keys, (term, keys)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The end.", ["end"]),
        ("apples, pears (and) 'plums'", ["apple", "pear", "plum"]),
        ('"quoted" [bracketed] {braced}', ["quote", "bracket", "brace"]),
    ],
)
def test_ordinary_punctuation_still_splits(
    norm: Normalizer, text: str, expected: list[str]
) -> None:
    assert norm.tokens(text) == expected


def test_hyphenated_words_lemmatize_their_head_only(norm: Normalizer) -> None:
    assert norm.tokens("drug-destroying e-mails") == ["drug-destroy", "e-mail"]
    assert norm.tokens("x86-64 GPT-4o") == ["x86-64", "gpt-4o"]  # digits: left alone


def test_possessive_is_not_have() -> None:
    assert Normalizer("tokens").tokens("the app's icon") == ["the", "app", "'s", "icon"]


def test_technical_tokens_are_not_lemmatized(norm: Normalizer) -> None:
    # "Rows" alone lemmatizes; inside an identifier it must not be touched.
    assert norm.tokens("rows") == ["row"]
    assert norm.tokens("get_rows") == ["get_rows"]
    assert norm.tokens("APIs") == ["api"]  # acronym plurals drop the s


# ---------------------------------------------------------------- word forms

WORD_FORMS = [
    ("jumps", "jump"),
    ("jumped", "jump"),
    ("dogs", "dog"),
    ("children", "child"),
    ("mice", "mouse"),
    ("went", "go"),
    ("analyses", "analysis"),
    ("matrices", "matrix"),
    ("Networks", "network"),
    ("CHILDREN", "child"),
]


@pytest.mark.parametrize(("word", "lemma"), WORD_FORMS)
def test_word_forms(word: str, lemma: str) -> None:
    assert Normalizer(stopwords=False).tokens(word) == [lemma]


def test_mastra_fox_example_is_six_of_six(norm: Normalizer) -> None:
    expected = norm.keywords("The quick brown fox jumps over the lazy dog")
    output = set(norm.keywords("A quick brown fox jumped over a lazy dog"))
    assert len(expected) == 6
    assert all(k in output for k in expected)


OVERRIDE_CASES = [
    ("data", "data", "datum"),
    ("number", "number", "numb"),
    ("does", "do", "doe"),
    ("as", "as", "a"),
    ("better", "better", "well"),
    ("best", "best", "well"),
    ("physics", "physics", "physic"),
    ("criteria", "criterion", "criterium"),
    ("programming", "programming", "programme"),
]


@pytest.mark.parametrize(("word", "ours", "table"), OVERRIDE_CASES)
def test_lemma_overrides_fix_known_table_errors(word: str, ours: str, table: str) -> None:
    from spacy.lookups import load_lookups

    raw = load_lookups("en", ["lemma_lookup"]).get_table("lemma_lookup")
    assert raw.get(word) == table  # the shipped table really has the wrong entry
    assert LEMMA_OVERRIDES[word] == ours
    assert Normalizer(stopwords=False).tokens(word) == [ours]


# ---------------------------------------------------------------- stopwords

STOPWORD_CASES = [
    ("the cat is on the mat", ["cat", "mat"]),
    ("it is not safe", ["not", "safe"]),
    ("never without no", ["never", "without", "no"]),
    ("it isn't safe", ["not", "safe"]),
    ("it isn’t safe", ["not", "safe"]),
    ("nobody knows nothing", ["nobody", "know", "nothing"]),
]


@pytest.mark.parametrize(("text", "expected"), STOPWORD_CASES)
def test_stopwords_with_negations_kept(norm: Normalizer, text: str, expected: list[str]) -> None:
    assert norm.tokens(text) == expected


def test_negation_changes_keys(norm: Normalizer) -> None:
    assert norm.keywords("is not safe") != norm.keywords("is safe")


def test_keep_list_words_are_spacy_stopwords() -> None:
    import spacy

    stops = spacy.blank("en").Defaults.stop_words
    assert {"not", "no", "never", "without", "none", "nothing"} <= stops
    assert {"not", "no", "never", "without"} <= KEEP_WORDS


def test_user_can_add_and_keep_stopwords() -> None:
    text = "the cat is on the mat"
    assert Normalizer(add_stopwords=["cat"]).tokens(text) == ["mat"]
    assert Normalizer(keep_words=["on"]).tokens(text) == ["cat", "on", "mat"]
    assert Normalizer(stopwords=False).tokens(text) == ["the", "cat", "be", "on", "the", "mat"]


# ---------------------------------------------------------------- compounds


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("state-of-the-art", "state-of-the-art"),
        ("state of the art", "state-of-the-art"),
        ("State Of The Art", "state-of-the-art"),
        ("e-mail", "e-mail"),
        ("email", "e-mail"),
        ("emails", "e-mail"),
        ("open source", "open source"),
        ("open-source", "open source"),
        ("opensource", "open source"),
        ("machine learning", "machine learning"),
        ("Machine-Learning", "machine learning"),
        ("neural networks", "neural network"),
        ("gradient descent", "gradient descent"),
    ],
)
def test_compound_spellings_share_a_key(norm: Normalizer, text: str, key: str) -> None:
    assert norm.keywords(text) == [key]


def test_compounds_inside_sentences(norm: Normalizer) -> None:
    keys = norm.keywords("We used machine learning and a neural network for state management.")
    assert keys == ["machine learning", "neural network", "state management"]


def test_user_compounds_and_switching_off() -> None:
    text = "Quantum annealing beats simulated annealing"
    assert "quantum annealing" in Normalizer(extra_compounds=["quantum annealing"]).keywords(text)
    assert "quantum annealing" not in Normalizer().keywords(text)
    assert Normalizer(compounds=False).keywords("machine learning") == ["machine", "learn"]


def test_longest_compound_wins(norm: Normalizer) -> None:
    keys = norm.keywords("a large language model")
    assert keys == ["large language model"]


# ---------------------------------------------------------------- languages and scripts

NON_ENGLISH = [
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "Быстрая коричневая лиса прыгает через ленивую собаку.",
    "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.",
    "สุนัขจิ้งจอกสีน้ำตาลกระโดดข้ามสุนัขขี้เกียจ",
    "素早い茶色の狐が怠け者の犬を飛び越える。",
    "敏捷的棕色狐狸跳过了懒狗。",
]


@pytest.mark.parametrize("text", NON_ENGLISH)
def test_identical_non_english_text_gives_identical_nonempty_keys(
    norm: Normalizer, text: str
) -> None:
    first = norm.keywords(text)
    assert first
    assert Normalizer().keywords(str(text)) == first


def test_cjk_is_split_into_characters(norm: Normalizer) -> None:
    assert norm.tokens("狐狸") == ["狐", "狸"]


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("de", "Die Hunde und die Katzen", ["hund", "katze"]),
        ("ru", "Собаки и кошки", ["собака", "кошка"]),
        ("el", "Ο σκύλος και η γάτα", ["σκύλοσ", "γάτα"]),  # casefold: final sigma
        ("zh", "狐狸跳", ["狐", "狸", "跳"]),
    ],
)
def test_other_languages(language: str, text: str, expected: list[str]) -> None:
    assert Normalizer(language=language).tokens(text) == expected


def test_language_needing_extra_package_fails_clearly() -> None:
    pytest.importorskip("spacy")
    try:
        import pythainlp  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="'th'"):
            Normalizer(language="th").tokens("สวัสดี")
    else:  # pragma: no cover - only where PyThaiNLP is installed
        assert Normalizer(language="th").tokens("สวัสดี")


# ---------------------------------------------------------------- presets, options, signature


def test_presets() -> None:
    assert Normalizer("none").tokens(" A  b\tc ") == ["A", "b", "c"]
    assert Normalizer("tokens").tokens("The dogs ran") == ["the", "dog", "run"]
    with pytest.raises(ValueError, match="unknown preset"):
        Normalizer("nope")
    with pytest.raises(TypeError, match="unknown Normalizer option"):
        Normalizer(colour="blue")


def test_stemmers() -> None:
    from nltk.stem.porter import PorterStemmer
    from nltk.stem.snowball import SnowballStemmer

    words = "generously running quickly"
    porter = [PorterStemmer().stem(w) for w in ["generous", "run", "quickly"]]
    assert Normalizer(stemmer="porter").tokens(words) == porter
    snowball = [SnowballStemmer("english").stem(w) for w in ["generous", "run", "quickly"]]
    assert Normalizer(stemmer="snowball").tokens(words) == snowball


def test_signature_is_stable_and_sensitive() -> None:
    base = Normalizer().signature
    assert base == Normalizer().signature
    variants = [
        Normalizer(add_stopwords=["cat"]),
        Normalizer(stopwords=False),
        Normalizer(extra_compounds=["quantum annealing"]),
        Normalizer(stemmer="porter"),
        Normalizer(lemmatize=False),
        Normalizer(language="de"),
        Normalizer("tokens"),
    ]
    signatures = {v.signature for v in variants}
    assert base not in signatures
    assert len(signatures) == len(variants)
    assert "v:" in base and "lang:en" in base and "lemma:lookups" in base


def test_explain_names_each_step(norm: Normalizer) -> None:
    shown = str(norm.explain("The neural networks aren't state of the art"))
    for step in ("unicode", "tokenize", "casefold", "lemmatize", "compounds", "stopwords"):
        assert step in shown
    assert "neural network" in shown and "state-of-the-art" in shown


def test_sentences(norm: Normalizer) -> None:
    assert norm.sentences("One line\nTwo line\n\n") == ["One line", "Two line"]
    assert norm.sentences("First one. Second one? Third!") == [
        "First one.",
        "Second one?",
        "Third!",
    ]
    assert norm.sentences("   ") == []


# ---------------------------------------------------------------- trained pipelines


def test_trained_pipeline_by_path(tmp_path: Path) -> None:
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    nlp.initialize()
    nlp.to_disk(tmp_path / "pipe")
    via_pipeline = Normalizer(pipeline=str(tmp_path / "pipe"))
    assert via_pipeline.tokens("The dogs jumped over React.js") == ["dog", "jump", "react.js"]
    assert "lemma:pipeline-" in via_pipeline.signature
    assert via_pipeline.explain("The dogs").tokens == ("dog",)


def test_missing_pipeline_says_so() -> None:
    with pytest.raises(ValueError, match="not installed"):
        Normalizer(pipeline="xx_not_a_real_pipeline_sm").tokens("text")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["list"]])
def test_non_string_raises_type_error_naming_argument(norm: Normalizer, bad: object) -> None:
    with pytest.raises(TypeError, match="text must be a str"):
        norm.tokens(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text must be a str"):
        norm.keywords(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("blank", ["", " ", "\n\t ", "\u3000", "...", "😀"])
def test_empty_or_blank_gives_empty(norm: Normalizer, blank: str) -> None:
    assert norm.tokens(blank) == []
    assert norm.keywords(blank) == []


def test_controls_surrogates_and_emoji(norm: Normalizer) -> None:
    assert norm.tokens("cat\x00dog\x1fbird") == ["cat", "dog", "bird"]
    assert norm.tokens("lone \ud800 surrogate") == ["lone", "surrogate"]
    assert norm.tokens("soft\u00adhyphen zero\u200bwidth") == ["softhyphen", "zerowidth"]
    assert norm.tokens("fire 🔥 emoji 🎉!") == ["fire", "emoji"]


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail instead of hanging if a step turns out super-linear (catastrophic backtracking)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("normalization of a 10 MB input did not finish in 120 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(120)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    "unit",
    ["a", "!", "a.", "a-", "_", "x/", "word ", "C++ ", "http://a.b/", "é", "\ud800", "狐"],
)
def test_ten_megabyte_inputs(deadline: None, unit: str) -> None:
    text = unit * (10_000_000 // len(unit))
    tokens = Normalizer().tokens(text)
    assert isinstance(tokens, list)


def test_no_network_needed() -> None:
    """A fresh process with sockets blocked loads everything and normalizes."""
    code = textwrap.dedent(
        """
        import socket

        def blocked(*args, **kwargs):
            raise OSError("network access attempted")

        class NoNetwork(socket.socket):
            connect = connect_ex = sendto = blocked

        socket.socket = NoNetwork
        socket.create_connection = blocked
        socket.getaddrinfo = blocked
        from lexeval.normalize import Normalizer
        n = Normalizer(stemmer="porter")
        print(n.keywords("Machine learning models jumped over React.js"))
        print(Normalizer(language="de").tokens("Die Hunde"))
        print(n.sentences("One. Two."))
        print(n.signature)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "machine learning" in done.stdout


def test_import_does_not_load_spacy() -> None:
    code = "import sys, lexeval, lexeval.normalize; print('spacy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


# ---------------------------------------------------------------- properties

_PIECES = [" ", ".", "-", "/", "+", "#", "_", "@", "'", "’", "C++", "React.js", "n't"]
_PIECES += ["state of the art", "Machine Learning", "e-mail", "狐狸", "The", "dogs", "ran"]
_TEXT = st.lists(
    st.one_of(st.text(st.characters(codec="utf-8"), max_size=6), st.sampled_from(_PIECES)),
    max_size=16,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_property_deterministic_and_consistent(text: str) -> None:
    first = Normalizer()
    tokens = first.tokens(text)
    assert tokens == first.tokens(text)  # cached path
    assert tokens == Normalizer(cache_size=1).tokens(text)  # cache cleared constantly
    keywords = first.keywords(text)
    assert set(keywords) <= set(tokens)
    assert len(keywords) == len(set(keywords))
    assert all(isinstance(t, str) and t for t in tokens)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_property_explain_matches_fast_path(text: str) -> None:
    norm = Normalizer()
    assert list(norm.explain(text).tokens) == norm.tokens(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_property_any_unicode_never_crashes(text: str) -> None:
    for preset in ("default", "tokens", "none"):
        assert isinstance(Normalizer(preset).keywords(text), list)


_LETTERS = st.text(st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo"]), min_size=1)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LETTERS, min_size=1, max_size=8))
def test_property_letters_fast_path_equals_spacy_tokenizer(chunks: list[str]) -> None:
    """Letters-only chunks skip spaCy's tokenizer; they must come out as it would split them."""
    chunker = SpacyTokenizer(load_language("en"), split_cjk=False)
    tokenizer = chunker.resources.nlp.tokenizer
    words = [*chunks, "cannot", "Gonna", "dunno", "Doin", "lemme", "cant", "ITS"]
    expected = [[t.text for t in tokenizer(w)] for w in words]
    assert chunker.split_chunks(words) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(_TEXT, max_size=8), st.sampled_from([1, 3, 100_000]))
def test_property_batch_path_equals_one_by_one(texts: list[str], cache_size: int) -> None:
    """prefetch/tokens_many (one tokenizer call per group) give what tokens() gives alone."""
    expected = [Normalizer().tokens(t) for t in texts]
    batch = Normalizer(cache_size=cache_size)
    assert batch.tokens_many(texts) == expected
    assert batch.tokens_many(texts) == expected  # again, with prefetched texts skipped


def test_batch_rejects_bad_items() -> None:
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        Normalizer().tokens_many(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not a str"):
        Normalizer().prefetch("one text")


def test_full_cache_keeps_every_chunk_of_the_current_text() -> None:
    """Regression: clearing a full cache must not drop chunks the current text still needs."""
    small = Normalizer(cache_size=3)
    assert small.tokens("alpha beta gamma") == ["alpha", "beta", "gamma"]
    assert small.tokens("delta beta") == ["delta", "beta"]
    assert small.tokens_many(["alpha beta gamma", "delta beta"]) == [
        ["alpha", "beta", "gamma"],
        ["delta", "beta"],
    ]


@pytest.mark.parametrize(
    ("unit", "size"), [("http://a.b/and", 10**7), ("a.", 10**6), ("狐。", 10**6)]
)
def test_megabyte_sentences(deadline: None, unit: str, size: int) -> None:
    """Sentence splitting is linear too (it was quadratic on long glued text: 20 s for 128 kB)."""
    text = unit * (size // len(unit))
    sentences = Normalizer().sentences(text)
    assert "".join("".join(s.split()) for s in sentences) == text


def test_long_cjk_text_takes_memory_linear_in_its_length() -> None:
    """A long run without spaces is read token by token: allocations stay near the 8 bytes a
    character that the returned list itself needs (they were about 190)."""
    import tracemalloc

    text = "".join(chr(0x4E00 + (i * 7919) % 2000) for i in range(200_000))
    norm = Normalizer()
    norm.tokens("狐")  # load spaCy before measuring
    tracemalloc.start()
    try:
        tokens = norm.tokens(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(tokens) == len(text)
    assert peak / len(text) < 30, peak / len(text)


@given(st.text(alphabet="ab漢字カナ・ー゛-.,1_ !é\u3000", max_size=40))
@settings(max_examples=300, deadline=None)
def test_long_chunks_split_like_short_ones_without_spacy(chunk: str) -> None:
    whole = LONG_CHUNK_RE.findall(chunk)
    assert list(long_chunk_pieces(chunk, split_cjk=False)) == whole
    split = [p for piece in whole for p in CJK_RE.split(piece) if p]
    assert list(long_chunk_pieces(chunk, split_cjk=True)) == split


@pytest.mark.parametrize("preset", ["default", "tokens", "none", "mastra", "squad", "rouge-score"])
@pytest.mark.parametrize("text", ["\ud800", "a \udfff b. c\ud800d. e", "\udc00\ud800x"])
def test_lone_surrogates_never_crash(preset: str, text: str) -> None:
    for norm in (Normalizer(preset), Normalizer(unicode_form=None)):
        for result in (norm.tokens(text), norm.keywords(text), norm.sentences(text)):
            for item in result:
                if norm.config.compat is None:  # the peers keep them, exactly
                    item.encode("utf-8")  # every string it returns can be written
        assert norm.explain(text).tokens == tuple(norm.tokens(text))


def test_bad_stemmer_names_the_value() -> None:
    with pytest.raises(ValueError, match=r"not 'lancaster'$"):
        Normalizer(stemmer="lancaster", stopwords=False)


# Forms and their lemmas from lemma_lookup tables of spacy-lookups-data 1.0.5 (two forms picked
# every len/50 entries, and the sentences): the two tables that map forms to lists (fr,
# ca), the two said to give no lemmas (nl, cs: they do), German (capitalised nouns), English
# (with lexeval's overrides), Spanish and Russian. The other 17 tables are read the same way;
# building their spaCy languages would cost about a minute of test time.
LEMMA_TABLE_CASES = {
    "ca": [("acanarem", "acanar"), ("aferréssiu", "aferrar"), ("gossos", "gos")],
    "cs": [("areálu", "areál"), ("bleskl", "blesknout"), ("jedli", "jíst")],
    "de": [("abgestrampelt", "abstrampeln"), ("abzuklopfen", "abklopfen"), ("Hunde", "hund")],
    "en": [("abetting", "abet"), ("allergies", "allergy"), ("criteria", "criterion")],
    "es": [("abromase", "abromar"), ("acoyunda", "acoyundar")],
    "fr": [("accoutumées", "accoutumer"), ("ajoutés", "ajouter"), ("chiens", "chien")],
    "nl": [("aanlassende", "aanlassen"), ("afdop", "afdoppen"), ("honden", "hond")],
    "ru": [("приятелей", "приятель"), ("идеологиями", "идеология")],
}


@pytest.fixture
def fresh_language() -> Iterator[list[str]]:
    """Languages loaded by the test are dropped afterwards (their tables are large)."""
    loaded: list[str] = []
    yield loaded
    for language in loaded:
        unload_language(language)


@pytest.mark.parametrize("language", sorted(LEMMA_TABLE_CASES))
def test_every_lemma_table_gives_plain_lemmas(language: str, fresh_language: list[str]) -> None:
    """Each language with a lookup table lemmatizes with it, one plain str per form."""
    fresh_language.append(language)
    norm = Normalizer(language=language, stopwords=False, compounds=False)
    cases = LEMMA_TABLE_CASES[language]
    assert [norm.tokens(form) for form, _ in cases] == [[lemma] for _, lemma in cases]
    if language in SENTENCES:
        text, keywords = SENTENCES[language]
        assert Normalizer(language=language).keywords(text) == keywords


# One form of each of the other 17 lemma_lookup tables of spacy-lookups-data 1.0.5 (25 with the
# eight above): the Lemmatizer step is given the table that lexeval loads for the language, so no
# spaCy language is built. Each pair is checked against the table first.
OTHER_TABLE_FORMS = {
    "da": ("abbedisserne", "abbedisse"),
    "grc": ("ἀγαθὴν", "ἀγαθός"),
    "hr": ("aachenska", "aachenski"),
    "hu": ("ablakokba", "ablak"),
    "id": ("keabadian", "abadi"),
    "it": ("abati", "abate"),
    "lb": ("aachtem", "aacht"),
    "lt": ("abejonėmis", "abejonė"),
    "mk": ("аболирани", "аболиран"),
    "nb": ("sånne", "sånn"),
    "pt": ("ababalhados", "ababalhar"),
    "ro": ("abandonurile", "abandon"),
    "sr": ("абецедној", "абецедни"),
    "sv": ("abborrarna", "abborre"),
    "tl": ("kaugnayan", "ugnay"),
    "tr": ("çöküşü", "çök"),
    "ur": ("آخرتوں", "آخرت"),
}


@pytest.mark.parametrize("language", sorted(OTHER_TABLE_FORMS))
def test_other_lemma_tables_give_their_lemmas(language: str) -> None:
    table, version = load_lemma_table(language)
    assert table is not None and version is not None
    form, lemma = OTHER_TABLE_FORMS[language]
    found = table[form]
    assert (found[0] if isinstance(found, list) else found) == lemma
    fold = CaseFold(True)
    lemmas = Lemmatizer(language, table, casefold=fold)
    assert lemmas.key(form, fold(form)) == fold(lemma)
    assert lemmas.key(form.upper(), fold(form.upper())) == fold(lemma)


def test_lemma_tables_cover_every_language_with_one() -> None:
    """The 8 languages built through spaCy and the 17 read directly are every table."""
    from spacy.util import registry

    with_table = {
        lang for lang in registry.lookups.get_all() if "lemma_lookup" in registry.lookups.get(lang)
    }
    assert with_table == set(LEMMA_TABLE_CASES) | set(OTHER_TABLE_FORMS)


# The examples: French gave ["['chien']", "['manger']", "['pomme']"].
SENTENCES = {
    "fr": ("Les chiens mangent des pommes", ["chien", "manger", "pomme"]),
    "ca": ("Els gossos mengen pomes", ["gos", "menjar", "poma"]),
}
