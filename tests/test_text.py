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
    assert TokenF1Metric(variant="squad").signature.endswith("|" + SquadProcessor().signature)
    assert TokenF1Metric(variant="set").signature.endswith("|" + WhitespaceProcessor().signature)
    mastra = KeywordCoverageMetric(compat="mastra").signature
    assert mastra.endswith("|" + MastraProcessor().signature)
    for preset in ("mastra", "squad", "rouge-score"):
        processor = peer_processor(preset)
        for text in TEXTS:
            assert Normalizer(preset).tokens(text) == processor.tokens(text)
    with pytest.raises(ValueError, match="unknown peer"):
        peer_processor("bleu")


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
    metric = TokenF1Metric(variant="squad").signature
    assert isinstance(metric, Signature)
    assert metric.fields["variant"] == "squad"
    assert Signature("x|v:1").differences("x|v:1|stem:porter") == [
        "stemmer only in the other: porter"
    ]
