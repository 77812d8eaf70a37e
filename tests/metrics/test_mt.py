"""BLEU, chrF/chrF++ and TER against the real sacrebleu 2.6: its own test cases, multilingual
sentences, SummEval's summaries (../shared) and random strings; exact equality of floats."""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval import get_metric
from lexeval.metrics import BleuMetric, ChrfMetric, MetricResult, TerMetric
from lexeval.metrics.mt import SacrebleuMetric

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402

SUMMEVAL = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "summeval"
    / "summeval_abstractive_12sys.aligned.jsonl"
)

# ---------------------------------------------------------------------------- fixtures

#: Small multilingual pairs written for these tests (hypothesis, references).
MULTILINGUAL: list[tuple[str, list[str]]] = [
    ("The dog bit the man.", ["The dog bit the man.", "The dog had bit the man."]),
    ("It wasn't surprising.", ["It was not unexpected.", "No one was surprised."]),
    ("Der Hund hat den Mann gebissen.", ["Der Hund biss den Mann."]),
    (
        "Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.",
        ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
    ),
    ("Le chat est assis sur le tapis, n'est-ce pas ?", ["Le chat s'est assis sur le tapis."]),
    (
        "El perro mordió al hombre ayer por la tarde.",
        ["Ayer por la tarde el perro mordió al hombre."],
    ),
    (
        "Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
        ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."],
    ),
    (
        "Собака укусила человека в парке.",
        ["Собака укусила мужчину в парке.", "В парке собака укусила человека."],
    ),
    ("猫坐在垫子上。", ["猫坐在垫子上了。", "一只猫坐在垫子上。"]),
    ("我们今天去公园散步，天气很好。", ["今天天气很好，我们去公园散步。"]),
    ("今日は天気がいいので、公園を散歩しました。", ["天気が良かったので、今日は公園を散歩した。"]),
    ("الكلب عض الرجل في الحديقة.", ["عض الكلب الرجل في الحديقة."]),
    (
        "producţia de zahăr brut se exprimă în zahăr alb;",
        ["Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"],
    ),
    ("Ο σκύλος δάγκωσε τον άνθρωπο.", ["Ο σκύλος δάγκωσε τον άντρα."]),
    ("개가 공원에서 남자를 물었다.", ["공원에서 개가 남자를 물었다."]),
    (
        "  Spaces   everywhere ,  and   &amp; entities &quot;here&quot; .  ",
        ['Spaces everywhere, and & entities "here".'],
    ),
    ("", ["a reference"]),
    ("an output", [""]),
    ("", [""]),
    (
        "3.14 is pi's value (approx.) -- well-known!",
        ["The value of pi is approx. 3.14, well-known."],
    ),
]

BLEU_SETTINGS: list[dict[str, Any]] = [
    {},
    {"tokenize": "intl"},
    {"tokenize": "char"},
    {"tokenize": "zh"},
    {"tokenize": "none"},
    {"lowercase": True},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.5},
    {"smooth_method": "add-k"},
    {"smooth_method": "add-k", "smooth_value": 2},
    {"smooth_method": "none"},
    {"effective_order": False},
    {"max_ngram_order": 2},
    {"max_ngram_order": 6, "tokenize": "intl", "lowercase": True},
]
CHRF_SETTINGS: list[dict[str, Any]] = [
    {},
    {"word_order": 2},
    {"word_order": 2, "lowercase": True},
    {"char_order": 4, "word_order": 1, "beta": 3},
    {"eps_smoothing": True},
    {"whitespace": True},
    {"beta": 1, "eps_smoothing": True, "word_order": 2},
]
TER_SETTINGS: list[dict[str, Any]] = [
    {"normalized": n, "no_punct": p, "asian_support": a, "case_sensitive": c}
    for n in (False, True)
    for p in (False, True)
    for a in (False, True)
    for c in (False, True)
]


def _peer_bleu(options: dict[str, Any]) -> Any:
    return BLEU(**{"effective_order": True, **options})


def _sentence_parity(
    ours: SacrebleuMetric, peer: Any, pairs: Sequence[tuple[str, list[str]]]
) -> list[str]:
    """The mismatches of sentence and corpus figures (empty when all equal exactly)."""
    key = ours.key
    bad = []
    results = []
    for hyp, refs in pairs:
        result = ours.measure(refs, hyp)
        results.append(result)
        expected = peer.sentence_score(hyp, refs).score
        if result.info[key] != expected:
            bad.append(f"{hyp!r}: {result.info[key]!r} != {expected!r}")
    width = max(len(refs) for _, refs in pairs)
    if all(len(refs) == width for _, refs in pairs):
        streams = [[refs[i] for _, refs in pairs] for i in range(width)]
        expected = peer.corpus_score([h for h, _ in pairs], streams).score
        got = ours.corpus_of(results).info[key]
        if got != expected:
            bad.append(f"corpus: {got!r} != {expected!r}")
    return bad


# ---------------------------------------------------------------------------- sacrebleu's cases

_REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
_HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]


def _by_segment(streams: list[list[str]]) -> list[list[str]]:
    return [list(refs) for refs in zip(*streams, strict=True)]


@pytest.mark.parametrize(
    ("hyps", "options", "expected"),
    [
        (_HYPS, {}, 48.530827),
        (["", "", ""], {}, 0.0),
        (_HYPS, {"tokenize": "none"}, 49.1919566),
        (_HYPS, {"tokenize": "13a"}, 48.530827),
        (_HYPS, {"tokenize": "intl"}, 43.91623493),
        (_HYPS, {"smooth_method": "none"}, 48.530827),
    ],
)
def test_sacrebleu_corpus_bleu_cases(
    hyps: list[str], options: dict[str, Any], expected: float
) -> None:
    got = BleuMetric(**options).corpus_score(_by_segment(_REFS), hyps)
    assert abs(got.info["bleu"] - expected) < 1e-8
    assert got.info["bleu"] == sacrebleu.corpus_bleu(hyps, _REFS, **options).score


@pytest.mark.parametrize(
    ("order", "expected"),
    [(1, "77.65"), (2, "60.50"), (3, "53.93"), (4, "48.53"), (5, "46.14"), (6, "43.28")],
)
def test_sacrebleu_max_ngram_order_cases(order: int, expected: str) -> None:
    got = BleuMetric(max_ngram_order=order).corpus_score(_by_segment(_REFS), _HYPS)
    assert f"{got.info['bleu']:.2f}" == expected


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [
        ("test", "a test", 0.3678794411714425),
        ("a test", "a test", 1.0),
        ("a little test", "a test", 0.03218297948685433),
    ],
)
def test_sacrebleu_effective_order_cases(hyp: str, ref: str, expected: float) -> None:
    # sacrebleu's raw_corpus_bleu: no tokenization, floor smoothing 0.01, effective order on
    metric = BleuMetric(tokenize="none", smooth_method="floor", smooth_value=0.01)
    assert abs(metric.measure(ref, hyp).score - expected) < 1e-8


def test_sacrebleu_statistics_case() -> None:
    r = BleuMetric(tokenize="none").measure(
        "I am a symbol string sequence a a", "am I am a character sequence"
    )
    assert r.info["stats"][2:] == [4, 2, 1, 0, 6, 5, 4, 3]


_RO_REF = "producţia de zahăr brut se exprimă în zahăr alb;"
_RO_SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"


@pytest.mark.parametrize(
    ("smooth", "value", "lowercase", "tok", "expected"),
    [
        ("exp", None, False, "13a", 8.493),
        ("none", None, False, "13a", 0.0),
        ("floor", None, False, "13a", 4.51688),
        ("floor", 0.1, False, "13a", 4.51688),
        ("floor", 0.5, False, "13a", 10.10),
        ("add-k", None, False, "13a", 14.882),
        ("add-k", 1, False, "13a", 14.882),
        ("add-k", 2, False, "13a", 21.389),
        ("exp", None, False, "none", 7.347),
        ("exp", None, False, "intl", 8.493),
        ("exp", None, False, "char", 40.8759),
        ("exp", None, True, "char", 42.0267),
    ],
)
def test_sacrebleu_sentence_bleu_cases(
    smooth: str, value: float | None, lowercase: bool, tok: str, expected: float
) -> None:
    metric = BleuMetric(smooth_method=smooth, smooth_value=value, lowercase=lowercase, tokenize=tok)
    got = metric.measure(_RO_REF, _RO_SYS).info["bleu"]
    assert abs(got - expected) < 1e-3
    peer = BLEU(
        smooth_method=smooth,
        smooth_value=value,
        lowercase=lowercase,
        tokenize=tok,
        effective_order=True,
    )
    assert got == peer.sentence_score(_RO_SYS, [_RO_REF]).score


@pytest.mark.parametrize("smooth", ["exp", "none", "floor", "add-k"])
def test_sacrebleu_zero_bleu_cases(smooth: str) -> None:
    assert (
        BleuMetric(smooth_method=smooth).measure("okay thanks", "this is a cat").info["bleu"] == 0.0
    )


_CHRF_CASES = [
    (["abcdefg"], ["hijklmnop"], 0.0, 0.0),
    (["a"], ["b"], 0.0, 0.0),
    ([""], ["b"], 0.0, 0.0),
    ([""], ["ref"], 0.0, 0.0),
    ([""], ["reference"], 0.0, 0.0),
    (["aa"], ["ab"], 8.3333, 25.0),
    (["a", "b"], ["a", "c"], 8.3333, 50.0),
    (["a"], ["a"], 16.6667, 100.0),
    (["a b c"], ["a b c"], 50.0, 100.0),
    (["a b c"], ["abc"], 50.0, 100.0),
    (
        ["Niemand hat die Absicht, eine Mauer zu errichten"],
        ["Niemand hat die Absicht, eine Mauer zu errichten"],
        100.0,
        None,
    ),
    (
        [" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
        ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
        64.1302698,
        None,
    ),
]


@pytest.mark.parametrize(("hyps", "refs", "eps", "effective"), _CHRF_CASES)
def test_sacrebleu_chrf_cases(
    hyps: list[str], refs: list[str], eps: float, effective: float | None
) -> None:
    got = ChrfMetric(beta=3, eps_smoothing=True).corpus_score(refs, hyps).info["chrf"]
    assert abs(got - eps) < 1e-4
    if effective is not None:
        got = ChrfMetric(beta=3).corpus_score(refs, hyps).info["chrf"]
        assert abs(got - effective) < 1e-4


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [
        (
            "Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.",
            "Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.",
            67.3481606,
        ),
        (
            "risk assessment must be made of those who are qualified and expertise in the sector"
            " - these are the scientists .",
            "risk assessment has to be undertaken by those who are qualified and expert in that"
            " area - that is the scientists .",
            65.2414427,
        ),
    ],
)
def test_sacrebleu_chrf_whitespace_cases(hyp: str, ref: str, expected: float) -> None:
    assert abs(ChrfMetric(beta=3, whitespace=True).measure(ref, hyp).info["chrf"] - expected) < 1e-4


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [
        (
            "Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
            "Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.",
            39.14078509,
        ),
        (
            "Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
            "A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.",
            31.22557079,
        ),
        (
            "Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
            "Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít,"
            " připomněli.",
            57.15704367,
        ),
    ],
)
def test_sacrebleu_sentence_chrf_cases(hyp: str, ref: str, expected: float) -> None:
    assert abs(ChrfMetric(eps_smoothing=True).measure(ref, hyp).info["chrf"] - expected) < 1e-4


@pytest.mark.parametrize(
    ("hyps", "refs", "expected"),
    [
        (["aaaa bbbb cccc dddd"], ["aaaa bbbb cccc dddd"], 0),
        (["dddd eeee ffff"], ["aaaa bbbb cccc"], 1),
        ([""], ["a"], 1),
        (["a"], [""], 1),
        ([""], [""], 0),
        (["d e f g h a b c"], ["a b c d e f g h"], 1 / 8),
    ],
)
def test_sacrebleu_ter_cases(hyps: list[str], refs: list[str], expected: float) -> None:
    got = TerMetric().corpus_score(refs, hyps)
    assert abs(got.info["ter"] - 100 * expected) < 1e-3
    assert got.score == max(0.0, 1 - got.info["ter"] / 100)


# ---------------------------------------------------------------------------- parity grids


@pytest.mark.parametrize("options", BLEU_SETTINGS, ids=str)
def test_bleu_parity_multilingual(options: dict[str, Any]) -> None:
    assert _sentence_parity(BleuMetric(**options), _peer_bleu(options), MULTILINGUAL) == []
    single = [(h, refs[:1]) for h, refs in MULTILINGUAL]
    assert _sentence_parity(BleuMetric(**options), _peer_bleu(options), single) == []
    corpus_options = {k: v for k, v in options.items() if k != "effective_order"}
    peer = BLEU(**corpus_options).corpus_score([h for h, _ in single], [[r[0] for _, r in single]])
    if "effective_order" not in options:  # corpus_bleu's own default: effective order off
        results = BleuMetric(**options).measure_many([r for _, r in single], [h for h, _ in single])
        assert BleuMetric(**options).corpus_of(results).info["bleu"] == peer.score


@pytest.mark.parametrize("options", CHRF_SETTINGS, ids=str)
def test_chrf_parity_multilingual(options: dict[str, Any]) -> None:
    assert _sentence_parity(ChrfMetric(**options), CHRF(**options), MULTILINGUAL) == []
    single = [(h, refs[:1]) for h, refs in MULTILINGUAL]
    assert _sentence_parity(ChrfMetric(**options), CHRF(**options), single) == []


@pytest.mark.parametrize("options", TER_SETTINGS, ids=str)
def test_ter_parity_multilingual(options: dict[str, Any]) -> None:
    assert _sentence_parity(TerMetric(**options), TER(**options), MULTILINGUAL) == []
    single = [(h, refs[:1]) for h, refs in MULTILINGUAL]
    assert _sentence_parity(TerMetric(**options), TER(**options), single) == []


def _summeval(step: int, nrefs: int) -> list[tuple[str, list[str]]]:
    if not SUMMEVAL.exists():
        pytest.skip(
            f"{SUMMEVAL} not found (../shared beside the checkout): SummEval parity not run"
        )
    rows = [json.loads(line) for line in SUMMEVAL.read_text(encoding="utf-8").splitlines() if line]
    return [(row["decoded"], row["references"][:nrefs]) for row in rows[::step]]


@pytest.mark.parametrize(
    "options",
    [{}, {"tokenize": "intl", "lowercase": True}, {"tokenize": "char"}, {"smooth_method": "floor"}],
    ids=str,
)
def test_bleu_parity_summeval(options: dict[str, Any]) -> None:
    pairs = _summeval(3, 11)
    assert len(pairs) == 400
    assert _sentence_parity(BleuMetric(**options), _peer_bleu(options), pairs) == []


@pytest.mark.parametrize(
    "options", [{}, {"word_order": 2}, {"word_order": 2, "lowercase": True}], ids=str
)
def test_chrf_parity_summeval(options: dict[str, Any]) -> None:
    pairs = _summeval(3, 4)
    assert _sentence_parity(ChrfMetric(**options), CHRF(**options), pairs) == []


@pytest.mark.parametrize("options", [{}, {"normalized": True, "case_sensitive": True}], ids=str)
def test_ter_parity_summeval(options: dict[str, Any]) -> None:
    pairs = [(h, refs) for h, refs in _summeval(120, 2)]  # sacrebleu's TER: ~0.2 s a summary
    assert len(pairs) == 10
    assert _sentence_parity(TerMetric(**options), TER(**options), pairs) == []


_TEXT = st.text(alphabet=st.sampled_from(list("ab cA.,-'\"&;:é中文 \n\t(")), max_size=24)


@settings(max_examples=150, deadline=None)
@given(_TEXT, st.lists(_TEXT, min_size=1, max_size=3))
def test_random_strings_parity(hyp: str, refs: list[str]) -> None:
    for metric, peer in [
        (BleuMetric(), _peer_bleu({})),
        (
            BleuMetric(tokenize="intl", smooth_method="add-k"),
            _peer_bleu({"tokenize": "intl", "smooth_method": "add-k"}),
        ),
        (ChrfMetric(word_order=2), CHRF(word_order=2)),
        (ChrfMetric(eps_smoothing=True), CHRF(eps_smoothing=True)),
        (TerMetric(normalized=True), TER(normalized=True)),
    ]:
        assert metric.measure(refs, hyp).info[metric.key] == peer.sentence_score(hyp, refs).score


_PUNCTUATED = st.text(
    alphabet=st.sampled_from(list("ab1 2.,-\n&;quotgampl<>'\"()[]{}/|~@:`^_!?#$%+*=")), max_size=40
)


@settings(max_examples=400, deadline=None)
@given(_PUNCTUATED)
def test_tokenize_13a_equals_sacrebleu(text: str) -> None:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from lexeval.metrics.mt_stats import tokenize_13a

    assert tokenize_13a(text) == Tokenizer13a()(text)
    assert tokenize_13a(text + "<skipped>&quot;1-\n.") == Tokenizer13a()(
        text + "<skipped>&quot;1-\n."
    )


# ---------------------------------------------------------------------------- the metric interface


def test_registered_and_exported() -> None:
    import lexeval

    for name, cls in [("bleu", BleuMetric), ("chrf", ChrfMetric), ("ter", TerMetric)]:
        metric = get_metric(name)
        assert type(metric) is cls and metric.name == name and metric.corpus_level
        assert getattr(lexeval, cls.__name__) is cls
        assert name in lexeval.list_metrics()
    assert get_metric("chrf", word_order=2).measure("a b", "a b").score == pytest.approx(1.0)


def test_score_scale_threshold_and_question() -> None:
    r = BleuMetric(threshold=0.5).measure(
        "the cat sat on the mat", "the cat sat on the mat", question="q?"
    )
    assert r.score == 1.0 and r.passed is True and r.info["bleu"] == pytest.approx(100.0)
    ter = TerMetric(threshold=0.5).measure("a", "b c d e")  # TER 400: score clipped at 0
    assert ter.info["ter"] == 400.0 and ter.score == 0.0 and ter.passed is False
    assert BleuMetric(scale=10).measure("a b c d", "a b c d").score == pytest.approx(10.0)
    assert "scale:10" in BleuMetric(scale=10).signature


def test_signature_holds_sacrebleu_settings() -> None:
    version = sacrebleu.__version__
    assert (
        BleuMetric().signature
        == f"bleu|compat:sacrebleu|case:mixed|eff:yes|tok:13a|smooth:exp|version:{version}"
    )
    assert "smooth:floor[0.5]" in BleuMetric(smooth_method="floor", smooth_value=0.5).signature
    assert ChrfMetric(word_order=2).signature == (
        f"chrf|compat:sacrebleu|case:mixed|eff:yes|nc:6|nw:2|space:no|version:{version}"
    )
    assert TerMetric().signature == (
        f"ter|compat:sacrebleu|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:{version}"
    )


@pytest.mark.parametrize(
    ("ours", "peer"),
    [
        (BleuMetric(), BLEU()),
        (
            BleuMetric(smooth_method="floor", lowercase=True, tokenize="intl"),
            BLEU(smooth_method="floor", lowercase=True, tokenize="intl"),
        ),
        (ChrfMetric(word_order=2, eps_smoothing=True), CHRF(word_order=2, eps_smoothing=True)),
        (TerMetric(normalized=True, asian_support=True), TER(normalized=True, asian_support=True)),
    ],
)
def test_corpus_result_carries_sacrebleu_signature(ours: SacrebleuMetric, peer: Any) -> None:
    peer.corpus_score(["a b c", "d e"], [["a b c", "d e f"], ["a c", "d"]])
    got = ours.corpus_score([["a b c", "a c"], ["d e f", "d"]], ["a b c", "d e"])
    assert got.info["sacrebleu_signature"] == peer.get_signature().format()
    assert got.info["n"] == 2


def test_evidence_only_when_asked() -> None:
    assert "matched" not in BleuMetric().measure("a b", "a").info
    r = BleuMetric(evidence_limit=1).measure("a b a", "a c")
    assert r.info["matched"] == ["a"] and r.info["missing"] == ["a"]
    assert r.info["matched_ngrams"] == [["a"], [], [], []]
    assert r.info["missing_ngrams"][1] == ["a b"]
    chrf = ChrfMetric(word_order=2, evidence_limit=50).measure(["zz", "cat sat"], "cat sat")
    assert chrf.info["reference_index"] == 1
    assert chrf.info["matched_ngrams"][6] == ["cat", "sat"]  # word unigrams after 6 char orders
    assert chrf.info["matched"] == ["catsat"] and chrf.info["missing"] == []


def test_bad_input_like_other_metrics() -> None:
    for metric in (BleuMetric(), ChrfMetric(), TerMetric()):
        with pytest.raises(TypeError, match="output"):
            metric.measure("a", None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="input"):
            metric.measure(None, "a")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="input"):
            metric.measure(["a", None], "a")  # type: ignore[list-item]
        with pytest.raises(ValueError, match="at least one"):
            metric.measure([], "a")
        with pytest.raises(ValueError, match="at least one"):
            metric.corpus_score([], [])
    with pytest.raises(ValueError, match="tokenize"):
        BleuMetric(tokenize="spm")
    with pytest.raises(ValueError, match="smooth_method"):
        BleuMetric(smooth_method="add-one")
    with pytest.raises(ValueError, match="compat"):
        BleuMetric(compat="nltk")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="both be 0"):
        ChrfMetric(char_order=0, word_order=0)
    with pytest.raises(TypeError, match="lowercase"):
        ChrfMetric(lowercase="yes")  # type: ignore[arg-type]


def test_empty_strings_follow_sacrebleu() -> None:
    assert (
        BleuMetric().measure("", "").info["bleu"] == sacrebleu.sentence_bleu("", [""]).score == 0.0
    )
    assert (
        ChrfMetric().measure("", "").info["chrf"] == sacrebleu.sentence_chrf("", [""]).score == 0.0
    )
    assert TerMetric().measure("", "").score == 1.0
    assert (
        TerMetric().measure("", "words here").info["ter"]
        == sacrebleu.sentence_ter("words here", [""]).score
    )


def test_corpus_is_not_the_mean_and_matches_measure_many() -> None:
    refs = ["the cat sat on the mat", "a dog ran in the park"]
    outs = ["the cat sat on the mat", "a dog ran"]
    metric = BleuMetric()
    results = metric.measure_many(refs, outs)
    corpus = metric.corpus_score(refs, outs)
    assert corpus.info["bleu"] == sacrebleu.corpus_bleu(outs, [refs]).score
    assert corpus.score != pytest.approx(sum(r.score for r in results) / 2)
    assert corpus.info["stats"] == [
        a + b for a, b in zip(results[0].info["stats"], results[1].info["stats"], strict=True)
    ]


def test_default_corpus_score_is_the_mean() -> None:
    metric = get_metric("token_f1", compat="set", threshold=0.6)
    got = metric.corpus_score(["a b", "c"], ["a b", "d"])
    assert got.score == 0.5 and got.info == {"n": 2, "mean": 0.5} and got.passed is False
    assert not metric.corpus_level


def test_corpus_of_refuses_foreign_results() -> None:
    with pytest.raises(ValueError, match="statistics"):
        BleuMetric().corpus_of([MetricResult(0.5, {})])


def test_stats_survive_json_and_pickle() -> None:
    metric = ChrfMetric(word_order=2)
    results = metric.measure_many(["the cat sat", "a dog"], ["the cat", "a dog ran"])
    stored = [MetricResult(r.score, json.loads(json.dumps(r.info))) for r in results]
    assert metric.corpus_of(stored).info["chrf"] == metric.corpus_of(results).info["chrf"]
    copy = pickle.loads(pickle.dumps(TerMetric(normalized=True)))
    assert (
        copy.measure("a b c", "a c").info == TerMetric(normalized=True).measure("a b c", "a c").info
    )
    assert math.isfinite(copy.measure("a b c", "a c").score)


@pytest.mark.parametrize(
    "metric",
    [
        BleuMetric(smooth_method="floor", smooth_value=0.37, max_ngram_order=3),
        BleuMetric(smooth_method="add-k", smooth_value=2, lowercase=True, scale=2),
        ChrfMetric(beta=1, eps_smoothing=True, word_order=2, char_order=4),
        ChrfMetric(beta=0.5, scale=10),
        TerMetric(normalized=True, scale=3),
    ],
    ids=repr,
)
def test_corpus_scorer_reads_the_settings_from_the_signature(metric: SacrebleuMetric) -> None:
    from lexeval.metrics.mt import corpus_scorer
    from lexeval.metrics.mt_stats import sum_stats

    refs = [h for _, refs in MULTILINGUAL[:12] for h in refs[:1]]
    outs = [h for h, _ in MULTILINGUAL[:12]]
    results = metric.measure_many(refs, outs)
    scorer = corpus_scorer(metric.signature)
    assert scorer is not None
    assert scorer(sum_stats([r.info["stats"] for r in results])) == metric.corpus_of(results).score


def test_reports_list_the_evidence() -> None:
    from lexeval.registry import get_reporting_metric

    assert get_reporting_metric("bleu").measure("a b", "a").info["missing"] == ["b"]
    assert get_reporting_metric("chrf").measure("ab", "ab").info["matched"] == ["ab"]
    assert get_reporting_metric("ter").measure("a b", "b a").info["shifted"] == [("b", 0, 1)]


# ---------------------------------------------------------------------------- TER's edits


def _generated_pairs(count: int, seed: int) -> list[tuple[str, list[str]]]:
    """Outputs made from MULTILINGUAL's references by moving a block of words, dropping,
    doubling or replacing words (seeded), each with its one or two references."""
    import random

    rng = random.Random(seed)
    refs = [refs for _, refs in MULTILINGUAL if any(r.strip() for r in refs)]
    vocabulary = sorted({w for rs in refs for r in rs for w in r.split()})
    pairs = []
    for _ in range(count):
        references = rng.choice(refs)
        words = rng.choice(references).split()
        for _ in range(rng.randint(1, 3)):
            if not words:
                break
            kind = rng.choice(["move", "move", "drop", "double", "replace"])
            i = rng.randrange(len(words))
            if kind == "move":
                length = rng.randint(1, min(4, len(words) - i))
                block, rest = words[i : i + length], words[:i] + words[i + length :]
                j = rng.randint(0, len(rest))
                words = rest[:j] + block + rest[j:]
            elif kind == "drop":
                del words[i]
            elif kind == "double":
                words.insert(i, words[i])
            else:
                words[i] = rng.choice(vocabulary)
        pairs.append((" ".join(words), references))
    return pairs


def _summeval_sentences(step: int) -> list[tuple[str, list[str]]]:
    """SummEval's summary sentences, each with the same-numbered sentence of two references."""
    pairs = []
    import re

    split = re.compile(r"(?<=[.!?])\s+|\s+\.\s+").split
    for output, refs in _summeval(step, 2):
        outs = [s for s in split(output) if s.strip()]
        ref_sentences = [[s for s in split(r) if s.strip()] for r in refs]
        for i, sentence in enumerate(outs):
            references = [r[i] for r in ref_sentences if i < len(r)]
            if references:
                pairs.append((sentence, references))
    return pairs


def _replay(trace: Any) -> None:
    """The trace's shifts and blocks rebuild the reference from the output."""
    from lexeval.metrics.ter_edits import TerTrace

    assert isinstance(trace, TerTrace)
    words = list(trace.shifted)
    for tag, i1, i2, j1, j2 in trace.blocks:
        ref, out = trace.reference[i1:i2], words[j1:j2]
        if tag == "equal":
            assert ref == out
        elif tag == "replace":
            assert len(ref) == len(out) and all(a != b for a, b in zip(ref, out, strict=True))
        elif tag == "delete":
            assert out == [] and ref
        else:
            assert ref == [] and out
    assert trace.blocks[-1][2] == len(trace.reference) if trace.blocks else not trace.reference
    assert trace.counts.errors == trace.distance  # the operations are sacrebleu's distance


def _ter_edit_mismatches(
    options: dict[str, Any], pairs: Sequence[tuple[str, list[str]]]
) -> tuple[list[str], int]:
    """Pairs where the evidence's counts differ from sacrebleu's edits, and the shifts seen."""
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    from lexeval.metrics.mt_stats import ter_statistics

    ours, peer = TerMetric(evidence_limit=1000, **options), TER(**options)
    bad, shifts = [], 0
    for hyp, refs in pairs:
        info = ours.measure(refs, hyp).info
        expected = peer.sentence_score(hyp, refs)
        counted = info["shifts"] + info["substitutions"] + info["deletions"] + info["insertions"]
        listed = len(info["shifted"]) + len(info["substituted"])
        listed += len(info["deleted"]) + len(info["inserted"])
        if not (counted == listed == info["edits"] == expected.num_edits):
            bad.append(f"{hyp!r} {refs!r}: {counted}, {listed}, {expected.num_edits}")
        shifts += info["shifts"]
        tokenize = TercomTokenizer(**options)  # sacrebleu's TER tokenizer, as TER applies it
        words_hyp = tokenize(hyp.rstrip())
        _, index, trace = ter_statistics(words_hyp, [tokenize(r.rstrip()) for r in refs])
        assert index == info.get("reference_index", 0)
        _replay(trace)
        # the shifts, replayed on the tokenized output, give the output the edits are read on
        words = words_hyp.split()
        for moved, start, target in info["shifted"]:
            block = moved.split()
            assert words[start : start + len(block)] == block
            rest = words[:start] + words[start + len(block) :]
            words = rest[:target] + block + rest[target:]
        assert words == trace.shifted
    return bad, shifts


@pytest.mark.parametrize(
    "options", [{}, {"normalized": True, "case_sensitive": True}, {"asian_support": True}], ids=str
)
def test_ter_edits_are_sacrebleus_multilingual(options: dict[str, Any]) -> None:
    pairs = list(MULTILINGUAL) + [(h, r[:1]) for h, r in MULTILINGUAL] + _generated_pairs(400, 7)
    bad, shifts = _ter_edit_mismatches(options, pairs)
    assert bad == []
    assert shifts >= 100  # the generated outputs move blocks: shifts were found and counted


def test_ter_edits_are_sacrebleus_summeval() -> None:
    pairs = _summeval_sentences(10)
    assert len(pairs) >= 300
    bad, shifts = _ter_edit_mismatches({}, pairs)
    assert bad == []
    assert shifts >= 20


def test_ter_evidence() -> None:
    assert "shifted" not in TerMetric().measure("a b c", "c a b").info
    r = TerMetric(evidence_limit=5).measure("The cat sat on the mat", "on the mat the cat sat")
    assert r.info["shifted"] == [("on the mat", 0, 3)] and r.info["edits"] == r.info["shifts"] == 1
    # tokens as TER reads them: lower-cased, punctuation split off when normalized
    r = TerMetric(normalized=True, evidence_limit=5).measure(
        "The cat sat on the mat.", "On the mat, a cat sat"
    )
    assert r.info["shifted"] == [("on the mat", 0, 3), ("cat", 2, 1)]
    assert r.info["substituted"] == [("the", ","), ("sat", "a"), (".", "sat")]
    assert (
        r.info["edits"]
        == 5
        == sacrebleu.sentence_ter(
            "On the mat, a cat sat", ["The cat sat on the mat."], normalized=True
        ).num_edits
    )
    # several references: the evidence is the best reference's (the first with fewest edits)
    best = TerMetric(evidence_limit=5).measure(["x y z", "c a b", "a b c"], "a b c")
    assert best.info["reference_index"] == 2 and best.info["edits"] == 0
    assert best.info["shifted"] == [] and best.info["substituted"] == []
    tied = TerMetric(evidence_limit=5).measure(["a b d", "a b e"], "a b c")
    assert tied.info["reference_index"] == 0 and tied.info["substituted"] == [("d", "c")]
    # the limit cuts the lists, never the counts
    long = TerMetric(evidence_limit=1).measure("a b c d e f", "u v w x y z")
    assert long.info["substitutions"] == 6 and long.info["substituted"] == [("a", "u")]
    empty = TerMetric(evidence_limit=3).measure("", "two words")
    assert empty.info["inserted"] == ["two", "words"] and empty.info["edits"] == 2
    assert TerMetric(evidence_limit=3).measure("two words", "").info["deleted"] == ["two", "words"]


def test_more_bad_input_like_other_metrics() -> None:
    """Beyond None: bytes, numbers, nested lists and lists holding None, in measure,
    measure_many and corpus_score, refused with the errors keyword coverage and token-F1 give;
    str subclasses and tuples of references accepted."""
    from lexeval import get_metric

    class Text(str):
        pass

    peers = [get_metric("token_f1"), get_metric("keyword_coverage")]
    for metric in (BleuMetric(), ChrfMetric(), TerMetric(), TerMetric(evidence_limit=3)):
        for reference, output in [
            ("a", b"a"),
            (b"a", "a"),
            ("a", 3),
            ([["a"]], "a"),
            ([None], "a"),
            ({"a": 1}, "a"),
        ]:
            with pytest.raises(TypeError) as ours:
                metric.measure(reference, output)  # type: ignore[arg-type]
            for peer in peers:
                with pytest.raises(TypeError) as theirs:
                    peer.measure(reference, output)  # type: ignore[arg-type]
                assert str(ours.value) == str(theirs.value)
        for method in (metric.measure_many, metric.corpus_score):
            with pytest.raises(TypeError, match="output"):
                method(["a", "b"], ["a", None])  # type: ignore[list-item]
            with pytest.raises(ValueError, match="at least one reference"):
                method(["a", []], ["a", "b"])
            with pytest.raises(ValueError, match="1 inputs but 2 outputs"):
                method(["a"], ["a", "b"])
        assert (
            metric.measure(("x y", "a b"), Text("a b")).info
            == metric.measure(["x y", "a b"], "a b").info
        )
        assert metric.measure(Text("a b"), "a b").score == metric.measure("a b", "a b").score


@pytest.mark.parametrize(
    ("hyp", "ref"),
    [("  ", " "), (" ", "a b"), ("a b", "  "), ("\t", "\n"), ("", " "), (" a ", "a")],
)
def test_white_space_only_texts_follow_sacrebleu(hyp: str, ref: str) -> None:
    assert BleuMetric().measure(ref, hyp).info["bleu"] == sacrebleu.sentence_bleu(hyp, [ref]).score
    assert ChrfMetric().measure(ref, hyp).info["chrf"] == sacrebleu.sentence_chrf(hyp, [ref]).score
    expected = sacrebleu.sentence_ter(hyp, [ref])
    got = TerMetric(evidence_limit=5).measure(ref, hyp).info
    assert got["ter"] == expected.score and got["edits"] == expected.num_edits


# ---------------------------------------------------------------------------- lexeval's mode

_MODE_METRICS = [
    BleuMetric(compat=None),
    ChrfMetric(compat=None),
    ChrfMetric(compat=None, word_order=2),
    TerMetric(compat=None),
]


def _words(text: str) -> str:
    from lexeval.normalize import Normalizer

    return " ".join(Normalizer("tokens", lemmatize=False).tokens(text))


@pytest.mark.parametrize("metric", _MODE_METRICS, ids=repr)
def test_mode_scores_in_range_and_names_itself(metric: SacrebleuMetric) -> None:
    for hyp, refs in MULTILINGUAL:
        r = metric.measure(refs, hyp)
        assert 0.0 <= r.score <= 1.0, (hyp, r.score)
    assert metric.signature.startswith(f"{metric.name}|mode:default|")
    assert "compat:" not in metric.signature and "preset:tokens" in metric.signature
    assert "lemma:no" in metric.signature


def test_mode_hand_computed() -> None:
    # the normalizer folds case and drops punctuation: "The cat!" is [the, cat]
    r = BleuMetric(compat=None).measure("the cat sat", "The cat!")
    # precisions 2/2 and 1/1 (effective order 2), brevity penalty exp(1 - 3/2)
    assert r.info["precisions"][:2] == [100.0, 100.0]
    assert r.info["bleu"] == pytest.approx(100 * math.exp(-0.5))
    assert BleuMetric().measure("the cat sat", "The cat!").info["bleu"] < r.info["bleu"]
    assert ChrfMetric(compat=None).measure("ab", "AB!").info["chrf"] == 100.0
    assert ChrfMetric().measure("ab", "AB!").info["chrf"] < 100.0
    # TER: no edit once case and punctuation are gone; sacrebleu's tercom counts 2 of 3 words
    assert TerMetric(compat=None).measure("the cat sat", "The cat, sat!").info["ter"] == 0.0
    assert TerMetric().measure("the cat sat", "The cat, sat!").info["ter"] == pytest.approx(200 / 3)


@pytest.mark.parametrize(
    ("ours", "peer"),
    [
        (BleuMetric(compat=None), BLEU(tokenize="none", effective_order=True)),
        (ChrfMetric(compat=None), CHRF()),
        (TerMetric(compat=None), TER()),
    ],
    ids=["bleu", "chrf", "ter"],
)
def test_mode_is_sacrebleu_on_the_normalized_words(ours: SacrebleuMetric, peer: Any) -> None:
    """The mode changes the words only: sacrebleu's figure of the normalizer's words (joined
    by one space, punctuation already gone) is the mode's figure, per pair and per corpus."""
    pairs = [(h, refs) for h, refs in MULTILINGUAL if h and all(refs)]
    for hyp, refs in pairs:
        got = ours.measure(refs, hyp).info[ours.key]
        expected = peer.sentence_score(_words(hyp), [_words(r) for r in refs]).score
        assert got == pytest.approx(expected, abs=1e-9), (hyp, refs)
    refs1 = [refs[0] for _, refs in pairs]
    outs = [h for h, _ in pairs]
    corpus = ours.corpus_score(refs1, outs)
    peer_corpus = type(peer)(**({"tokenize": "none"} if isinstance(peer, BLEU) else {}))
    expected = peer_corpus.corpus_score([_words(h) for h in outs], [[_words(r) for r in refs1]])
    assert corpus.info[ours.key] == pytest.approx(expected.score, abs=1e-9)
    assert "sacrebleu_signature" not in corpus.info  # not sacrebleu's figure of the raw text


def test_mode_handles_scripts_without_spaces() -> None:
    # 13a keeps a Chinese sentence one word: no shared word, BLEU 0; the normalizer makes each
    # Han character a word, so the shared characters count
    ref, out = "我喜欢吃苹果", "我喜欢吃香蕉"
    assert BleuMetric().measure(ref, out).info["bleu"] == 0.0
    r = BleuMetric(compat=None).measure(ref, out)
    assert r.info["hyp_len"] == r.info["ref_len"] == 6
    assert r.info["precisions"][0] == pytest.approx(100 * 4 / 6)
    assert TerMetric(compat=None).measure(ref, out).info["edits"] == 2
    assert TerMetric().measure(ref, out).info["edits"] == 1  # one word substituted


def test_mode_language_and_normalizer_options() -> None:
    from lexeval.normalize import Normalizer

    german = Normalizer("tokens", language="de", lemmatize=False)
    metric = BleuMetric(compat=None, normalizer=german)
    assert "lang:de" in metric.signature and metric.normalizer is german
    assert metric.measure("Die Straße ist groß.", "die strasse ist gross").score == 1.0
    stems = ChrfMetric(compat=None, normalizer="rouge")
    assert (
        "preset:rouge" in stems.signature and stems.signature != ChrfMetric(compat=None).signature
    )
    assert BleuMetric().normalizer is None  # compat mode loads no normalizer
    for bad in (
        lambda: BleuMetric(compat=None, lowercase=True),
        lambda: BleuMetric(compat=None, tokenize="intl"),
        lambda: ChrfMetric(compat=None, whitespace=True),
        lambda: TerMetric(compat=None, no_punct=True),
        lambda: TerMetric(compat=None, case_sensitive=True),
    ):
        with pytest.raises(ValueError, match="compat='sacrebleu'"):
            bad()
    with pytest.raises(ValueError, match="normalizer"):
        BleuMetric(normalizer="rouge")
    assert get_metric("chrf", compat=None).signature == ChrfMetric(compat=None).signature


def test_mode_corpus_scorer_and_evidence() -> None:
    from lexeval.metrics.mt import corpus_scorer
    from lexeval.metrics.mt_stats import sum_stats

    for metric in _MODE_METRICS:
        results = metric.measure_many(["The cat sat.", "Ein Hund lief."], ["the cat", "ein Hund"])
        scorer = corpus_scorer(metric.signature)
        assert scorer is not None
        assert scorer(sum_stats([r.info["stats"] for r in results])) == (
            metric.corpus_of(results).score
        )
    r = BleuMetric(compat=None, evidence_limit=5).measure("The cat sat.", "the cat")
    assert r.info["matched"] == ["the", "cat"] and r.info["missing"] == ["sat"]
    for metric in _MODE_METRICS:  # worker processes get the metric pickled
        copy = pickle.loads(pickle.dumps(metric))
        assert copy.signature == metric.signature
        assert (
            copy.measure("The cat sat.", "the cat").info
            == metric.measure("The cat sat.", "the cat").info
        )
