"""Keyword similarity, pair scores and the greedy and optimal matchers."""

from __future__ import annotations

import pytest

from lexeval.cards import (
    ExpectedCard,
    GeneratedCard,
    ScoreWeights,
    keyword_similarity,
    match_cards,
    score_pair,
)

# ---------------------------------------------------------------- plain mode (normalizer=None)


@pytest.mark.parametrize(
    ("keywords", "text", "expected"),
    [
        (["Paris", "France"], "Paris is the capital of France.", 1.0),
        (["paris"], "Paris", 0.0),  # case-sensitive
        (["art"], "start", 1.0),  # plain substring: "art" is inside "start"
        (["neural networks"], "a neural network", 0.0),  # no lemmas in plain mode
        (["a", "b", "c", "d"], "a c", 0.5),  # 2 of 4
        (["x"], "", 0.0),
        ([], "anything", 0.0),
    ],
)
def test_plain_similarity_is_substring_share(
    keywords: list[str], text: str, expected: float
) -> None:
    assert keyword_similarity(keywords, text, normalizer=None) == expected


def test_plain_score_pair_weights() -> None:
    exp = ExpectedCard(["Newton", "law"], ["inertia", "rest"])
    gen = GeneratedCard("Newton's first", "inertia and rest")
    # untyped: 0.5 * (1/2) + 0.5 * (2/2) = 0.75
    assert score_pair(exp, gen, normalizer=None) == 0.75
    typed = ExpectedCard(["Newton", "law"], ["inertia", "rest"], "qa")
    # typed, types equal: 0.4 * 0.5 + 0.4 * 1 + 0.2 = 0.8
    assert score_pair(typed, GeneratedCard(gen.front, gen.back, "qa"), normalizer=None) == (
        pytest.approx(0.8)
    )
    # typed, types differ (plain compares with ==, so "QA" != "qa"): 0.2 + 0.4 = 0.6
    assert score_pair(typed, GeneratedCard(gen.front, gen.back, "QA"), normalizer=None) == (
        pytest.approx(0.6)
    )
    # custom weights: 0.8 * 0.5 + 0.2 * 1 = 0.6
    weights = ScoreWeights(front=0.8, back=0.2)
    assert score_pair(exp, gen, weights=weights, normalizer=None) == pytest.approx(0.6)


def test_plain_case_metrics_hand_checked() -> None:
    expected = [
        ExpectedCard(["mitosis"], ["two", "identical"]),
        ExpectedCard(["meiosis"], ["four", "haploid"]),
        ExpectedCard(["cytokinesis"], ["cytoplasm"]),
    ]
    generated = [
        GeneratedCard("What does meiosis produce?", "four haploid cells"),  # e1: 1.0
        GeneratedCard("Result of mitosis?", "two identical nuclei"),  # e0: 1.0
        GeneratedCard("What is DNA?", "genetic material"),  # nothing
        GeneratedCard("mitosis phases", "prophase"),  # e0: 0.5, taken second
    ]
    result = match_cards(expected, generated, normalizer=None)
    assert [(p.expected_index, p.generated_index) for p in result.pairs] == [(0, 1), (1, 0)]
    assert result.unmatched_expected == (expected[2],)
    assert result.extra_generated == (generated[2], generated[3])
    # recall 2/3, precision 2/4, F1 = 2 * (1/2 * 2/3) / (1/2 + 2/3) = 4/7
    assert result.recall == pytest.approx(2 / 3)
    assert result.precision == pytest.approx(1 / 2)
    assert result.f1 == pytest.approx(4 / 7)
    assert result.avg_similarity == 1.0
    assert result.best_scores == (1.0, 1.0, 0.0)


def test_greedy_threshold_is_inclusive_and_ties_take_the_first() -> None:
    exp = [ExpectedCard(["a", "b"], ["c", "d"])]
    quarter = GeneratedCard("a", "none")  # 0.5 * 1/2 + 0.5 * 0 = 0.25
    assert match_cards(exp, [quarter], threshold=0.25, normalizer=None).n_matched == 1
    assert match_cards(exp, [quarter], threshold=0.26, normalizer=None).n_matched == 0
    twins = [GeneratedCard("a b", "c"), GeneratedCard("a b", "c")]  # both 0.75
    result = match_cards(exp, twins, normalizer=None)
    assert result.pairs[0].generated_index == 0
    better_later = [GeneratedCard("a", "c"), GeneratedCard("a b", "c d")]  # 0.5, then 1.0
    assert match_cards(exp, better_later, normalizer=None).pairs[0].generated_index == 1


def test_no_generated_cards() -> None:
    result = match_cards([ExpectedCard(["a"], ["b"])], [], normalizer=None, has_output=False)
    assert (result.recall, result.precision, result.f1, result.avg_similarity) == (0, 0, 0, 0)
    assert result.unmatched_expected_indices == (0,)
    assert not result.has_output
    optimal = match_cards([ExpectedCard(["a"], ["b"])], [], strategy="optimal", normalizer=None)
    assert optimal.n_matched == 0


def test_greedy_loses_where_optimal_wins() -> None:
    exp = [
        ExpectedCard(["cell"], ["membrane", "nucleus"]),
        ExpectedCard(["wall"], ["plant"]),
    ]
    gen = [
        GeneratedCard("cell wall", "membrane of a plant"),  # e0: 0.75, e1: 1.0
        GeneratedCard("cell", "nucleus"),  # e0: 0.75, e1: 0.0
    ]
    greedy = match_cards(exp, gen, normalizer=None)
    # e0 ties at 0.75 and takes the first card; e1 is left with a 0.0 card below the threshold.
    assert [(p.expected_index, p.generated_index) for p in greedy.pairs] == [(0, 0)]
    assert sum(p.score for p in greedy.pairs) == 0.75
    optimal = match_cards(exp, gen, strategy="optimal", normalizer=None)
    assert [(p.expected_index, p.generated_index) for p in optimal.pairs] == [(0, 1), (1, 0)]
    assert sum(p.score for p in optimal.pairs) == 1.75
    assert (greedy.recall, optimal.recall) == (0.5, 1.0)


def test_optimal_ignores_pairs_below_threshold() -> None:
    exp = [ExpectedCard(["a"], ["b"]), ExpectedCard(["x"], ["y"])]
    gen = [GeneratedCard("a", "b"), GeneratedCard("q", "z")]  # e1 vs g1 scores 0
    result = match_cards(exp, gen, strategy="optimal", normalizer=None)
    assert [(p.expected_index, p.generated_index) for p in result.pairs] == [(0, 0)]


def test_bad_arguments() -> None:
    exp, gen = [ExpectedCard(["a"], ["b"])], [GeneratedCard("a", "b")]
    with pytest.raises(ValueError, match="threshold"):
        match_cards(exp, gen, threshold=1.5, normalizer=None)
    with pytest.raises(ValueError, match="strategy"):
        match_cards(exp, gen, strategy="best", normalizer=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a string"):
        keyword_similarity("abc", "abc", normalizer=None)
    with pytest.raises(ValueError, match="must be 1"):
        ScoreWeights(typed_front=0.5)


# ---------------------------------------------------------------- normalized forms


@pytest.mark.parametrize(
    ("keywords", "text", "expected"),
    [
        (["art"], "Start the engine", 0.0),  # whole tokens only
        (["art"], "modern ART museums", 1.0),
        (["neural networks"], "a neural network", 1.0),  # lemmas
        (["Neural Network"], "NEURAL NETWORKS are deep", 1.0),  # case folding
        (["chloroplast"], "In the chloroplasts.", 1.0),
        (["mitochondria", "ATP"], "The mitochondrion makes energy", 0.5),
        (["line up"], "the chromosomes line up at the equator", 1.0),
        (["sister chromatids"], "chromatids of the sister cell", 0.0),  # contiguous, in order
        (["React.js"], "Components in React.js", 1.0),
        (["the"], "The Who played", 1.0),  # stopword-only keyword: whole-word fallback
        (["the"], "other things", 0.0),
        (["+"], "a + b", 1.0),  # no word character: substring fallback
    ],
)
def test_normalized_similarity(keywords: list[str], text: str, expected: float) -> None:
    assert keyword_similarity(keywords, text) == expected


def test_normalized_card_types_ignore_case() -> None:
    exp = ExpectedCard(["pH"], ["7"], "qa")
    # front 1, back 1, "QA " equals "qa" after strip + casefold: 0.4 + 0.4 + 0.2
    assert score_pair(exp, GeneratedCard("pH of water?", "7", "QA ")) == pytest.approx(1.0)


class CountingNormalizer:
    """A stand-in normalizer (whitespace split, lower case) that counts its calls."""

    signature = "counting"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def tokens(self, text: str) -> list[str]:
        self.calls.append(text)
        return text.lower().split()


def test_each_text_is_normalized_once_per_case() -> None:
    norm = CountingNormalizer()
    exp = [ExpectedCard(["alpha"], ["beta"]), ExpectedCard(["alpha", "gamma"], ["beta"])]
    gen = [
        GeneratedCard("alpha one", "beta"),
        GeneratedCard("gamma", "beta"),
        GeneratedCard("x", "y"),
    ]
    result = match_cards(exp, gen, normalizer=norm)
    # distinct strings: keywords alpha, beta, gamma; texts "alpha one", "beta", "gamma", "x", "y"
    # ("beta" is both a keyword and a back text, cached separately) -> 3 + 5 = 8 calls.
    assert sorted(norm.calls) == sorted(
        ["alpha", "beta", "gamma", "alpha one", "beta", "gamma", "x", "y"]
    )
    assert result.n_matched == 2


@pytest.mark.parametrize("strategy", ["greedy", "optimal"])
def test_a_zero_similarity_pair_is_never_a_match(strategy: str) -> None:
    # With threshold 0 the first expected card (nothing in common with any generated card)
    # must not take the generated card that the second expected card does match.
    exp = [ExpectedCard(["zebra"], ["stripes"]), ExpectedCard(["cell"], ["membrane"])]
    gen = [GeneratedCard("cell", "membrane")]
    result = match_cards(exp, gen, threshold=0.0, strategy=strategy, normalizer=None)
    assert [(p.expected_index, p.generated_index) for p in result.pairs] == [(1, 0)]
    alone = match_cards(exp[:1], gen, threshold=0.0, strategy=strategy, normalizer=None)
    assert alone.n_matched == 0
