"""The text layer: the processor protocol, the peers' processors, the lenient-matching
normalization and the Signature type."""

from __future__ import annotations

import pickle

import pytest

from lexeval import KeywordCoverageMetric, Normalizer, RougeMetric, TokenF1Metric
from lexeval.compat import mastra_keywords, rouge_score_tokens, squad_tokens
from lexeval.text import (
    MastraProcessor,
    RougeScoreProcessor,
    Signature,
    SquadProcessor,
    TextProcessor,
    WhitespaceProcessor,
    canonical_key,
    fold_accents,
    peer_processor,
)
from lexeval.text.processor import StepProcessor

TEXTS = ["The quick brown foxes jumped!", "Running dogs, 2 cats.\nA second line", "", "Ça va?"]


@pytest.mark.parametrize(
    "processor",
    [
        Normalizer(),
        MastraProcessor(),
        SquadProcessor(),
        RougeScoreProcessor(True),
        WhitespaceProcessor(),
    ],
)
def test_every_processor_follows_the_protocol(processor: TextProcessor) -> None:
    assert isinstance(processor, TextProcessor)
    clone = pickle.loads(pickle.dumps(processor))
    for text in TEXTS:
        tokens = processor.tokens(text)
        assert processor.keywords(text) == list(dict.fromkeys(tokens))
        assert clone.tokens(text) == tokens
        assert [k for k, stop in processor.analyze(text) if not stop] == tokens
    processor.prefetch(TEXTS)
    assert isinstance(processor.signature, str) and processor.signature


@pytest.mark.parametrize("preset", ["default", "tokens", "rouge", "none", "mastra"])
def test_keyword_analysis_is_keywords_and_every_key(preset: str) -> None:
    """One analysis gives both views lenient keyword matching needs, equal to the two calls."""
    texts = [*TEXTS, "Machine learning: the neural networks aren't four C++ APIs", "May 29, 1990"]
    norm = Normalizer(preset)
    for text in texts:
        expected = (
            norm.keywords(text),
            [key for key, _ in norm.analyze(text, merge_compounds=False)],
        )
        assert Normalizer(preset).keyword_analysis(text) == expected  # cold
        assert norm.keyword_analysis(text) == expected  # warm


def test_peer_processors_are_the_compat_functions() -> None:
    for text in TEXTS:
        assert MastraProcessor().tokens(text) == mastra_keywords(text)
        assert SquadProcessor().tokens(text) == squad_tokens(text)
        for stem in (False, True):
            assert RougeScoreProcessor(stem).tokens(text) == rouge_score_tokens(text, stemmer=stem)


def test_one_signature_per_peer_tokenization() -> None:
    """A metric's compat mode names its tokenization with the peer processor's signature."""
    rouge = RougeMetric("rouge1", compat="rouge-score", use_stemmer=True).signature
    assert rouge.endswith("|" + peer_processor("rouge-score", stemmer=True).signature)
    assert TokenF1Metric(compat="squad").signature.endswith("|" + SquadProcessor().signature)
    assert TokenF1Metric(compat="set").signature.endswith("|" + WhitespaceProcessor().signature)
    mastra = KeywordCoverageMetric(compat="mastra").signature
    assert mastra.endswith("|" + MastraProcessor().signature)
    for preset in ("mastra", "squad", "rouge-score"):
        processor = peer_processor(preset)
        for text in TEXTS:
            assert Normalizer(preset).tokens(text) == processor.tokens(text)
    with pytest.raises(ValueError, match="unknown peer"):
        peer_processor("bleu")


@pytest.mark.parametrize(
    ("preset", "options", "processor"),
    [
        ("rouge-score", {}, RougeScoreProcessor()),
        ("rouge-score", {"stemmer": "porter"}, RougeScoreProcessor(stemmer=True)),
        ("mastra", {}, MastraProcessor()),
        ("squad", {}, SquadProcessor()),
    ],
)
def test_compat_preset_is_its_peer_processor(
    preset: str, options: dict[str, str], processor: TextProcessor
) -> None:
    """One tokenization, one signature: a compatibility preset is the peer's processor."""
    norm = Normalizer(preset, **options)
    assert norm.signature == processor.signature
    assert norm.processor == processor
    for text in TEXTS:
        assert norm.tokens(text) == processor.tokens(text)
        assert norm.sentences(text) == processor.sentences(text)


class _UpperWords:
    """A user's own text processor: upper-cased white-space words."""

    language = "en"

    def tokens(self, text: str) -> list[str]:
        return text.upper().split()

    def keywords(self, text: str) -> list[str]:
        return list(dict.fromkeys(self.tokens(text)))

    def analyze(self, text: str, *, merge_compounds: bool = True) -> list[tuple[str, bool]]:
        return [(t, False) for t in self.tokens(text)]

    def sentences(self, text: str) -> list[str]:
        return [line for line in text.splitlines() if line.strip()]

    def prefetch(self, texts: object) -> None:
        return None

    @property
    def signature(self) -> str:
        return "norm:upper-split"


def test_metrics_take_any_text_processor() -> None:
    """``normalizer=`` takes any TextProcessor: a peer's, or one written by the user."""
    own = _UpperWords()
    assert isinstance(own, TextProcessor)
    f1 = TokenF1Metric(normalizer=own, evidence_limit=20).measure("the cat sat", "The Cat ran")
    assert f1.info["counts"]["overlap"] == 2 and f1.info["matched"] == ["THE", "CAT"]
    assert TokenF1Metric(normalizer=own).signature.endswith("|norm:upper-split")
    squad = TokenF1Metric(normalizer=SquadProcessor())
    assert (
        squad.measure("The Denver Broncos", "Broncos").score
        == TokenF1Metric(compat="squad").measure("The Denver Broncos", "Broncos").score
    )
    rouge = RougeMetric("rouge1", normalizer=RougeScoreProcessor()).measure("a b c", "A b d")
    peer = RougeMetric("rouge1", compat="rouge-score").measure("a b c", "A b d")
    assert rouge.score == peer.score
    coverage = KeywordCoverageMetric(normalizer=own, match="exact")
    assert coverage.measure("alpha beta", "ALPHA gamma").info["matched"] == ["ALPHA"]
    from lexeval.cards import match_cards
    from lexeval.cards.dataset import ExpectedCard, GeneratedCard

    expected = [ExpectedCard(["beta"], ["gamma"])]
    generated = [GeneratedCard("Alpha beta", "Gamma")]
    assert match_cards(expected, generated, normalizer=own).recall == 1.0
    assert match_cards(expected, [GeneratedCard("delta", "epsilon")], normalizer=own).recall == 0.0
    with pytest.raises(TypeError, match="text processor"):
        TokenF1Metric(normalizer=object())  # type: ignore[arg-type]


def test_explain_runs_the_processor_steps() -> None:
    """explain shows one line per step object of the processor, in order, and ends with the
    tokens the cached path gives."""
    for norm in (Normalizer(), Normalizer("rouge"), Normalizer("none"), Normalizer("tokens")):
        processor = norm.processor
        assert isinstance(processor, StepProcessor)
        text = "The U.S. neural networks aren't state of the art: 10,000 fans!"
        explained = norm.explain(text)
        assert [name for name, _ in explained.steps] == [s.label for s in processor.steps]
        assert list(explained.tokens) == norm.tokens(text)


def test_lenient_normalization() -> None:
    assert fold_accents("Röntgen CAFÉ") == "rontgen cafe"
    assert [canonical_key(k, True) for k in ["four", "04", "1,000", "2.50", "x"]] == [
        "4",
        "4",
        "1000",
        "2.5",
        "x",
    ]
    assert canonical_key("four", False) == "four"


def test_signature_names_the_differing_field() -> None:
    a = Normalizer().signature
    b = Normalizer(lemmatize=False).signature
    assert isinstance(a, Signature)
    assert a.differences(a) == [] and a.describe_difference(a) == "identical"
    (line,) = a.differences(b)
    assert line.startswith("lemma table differs: lookups") and line.endswith(" vs no")
    metric = TokenF1Metric(compat="squad").signature
    assert isinstance(metric, Signature)
    assert metric.fields["mode"] == "squad"
    assert Signature("x|v:1").differences("x|v:1|stem:porter") == [
        "stemmer only in the other: porter"
    ]
