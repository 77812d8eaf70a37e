"""Matching generated cards to expected cards by keywords on normalized forms.

A keyword (or phrase) counts as present in a text when its normalized token sequence occurs
contiguously in the text's normalized token sequence, so "art" does not match "start" while
"neural networks" matches "a neural network". Each text is normalized once per case.

Compound terms are single tokens of the normalizer ("machine learning"), so the keyword
"learning" does not match inside "machine learning", while "machine learning models" matches
"a machine learning model".

A keyword whose normalized form is empty (for example only stopwords, such as "the") falls back
to a case-insensitive whole-word match on ``\\w+`` words ("The Who" matches "the who", not
"whoever"), and a keyword without any word character (such as "+") to a case-insensitive
substring match.

``normalizer=None`` is the plain behaviour: a keyword counts when ``kw in text`` (case-sensitive
substring, no normalization) and card types are compared with ``==``.

The scores and the assignment are the record matcher's (:mod:`lexeval.records`) on the
flashcard schema (:func:`lexeval.records.flashcards.flashcard_schema`): one matcher for cards
and any other records.

>>> exp = [ExpectedCard(["capital", "France"], ["Paris"])]
>>> gen = [GeneratedCard("What is the capital of France?", "Paris")]
>>> match_cards(exp, gen, normalizer=None).recall
1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lexeval.cards.dataset import ExpectedCard, GeneratedCard
from lexeval.checks import check_text
from lexeval.records.assign import STRATEGIES, Strategy, assign, check_settings
from lexeval.records.flashcards import DEFAULT_WEIGHTS, ScoreWeights, flashcard_schema
from lexeval.records.keywords import KeywordIndex, NormalizerArg
from lexeval.records.matching import CaseCounts, RecordMatcher, f1_score
from lexeval.text.base import TokenSource

__all__ = [
    "DEFAULT_WEIGHTS",
    "STRATEGIES",
    "CardScorer",
    "CaseResult",
    "MatchedPair",
    "NormalizerArg",
    "NormalizerLike",
    "Rescorer",
    "ScoreWeights",
    "Strategy",
    "f1_score",
    "keyword_similarity",
    "match_cards",
    "score_pair",
]


#: What the matcher needs of a normalizer: ``tokens`` and ``signature`` (the text layer's
#: :class:`~lexeval.text.base.TokenSource`; every text processor, a Normalizer included, is one).
NormalizerLike = TokenSource


class Rescorer(Protocol):
    """A second opinion on uncertain pairs (:class:`lexeval.cards.semantic.SemanticTier`, the
    optional extra ``semantic``): the grid of pair scores with some cells decided anew, and the
    similarity behind each such cell."""

    def rescore(
        self,
        grid: list[list[float]],
        expected: Sequence[ExpectedCard],
        generated: Sequence[GeneratedCard],
        threshold: float,
        weights: ScoreWeights,
    ) -> tuple[list[list[float]], dict[tuple[int, int], float]]: ...


def expected_record(card: ExpectedCard) -> dict[str, Any]:
    """An expected card as a record of the flashcard schema
    (:func:`lexeval.records.flashcards.flashcard_schema`).

    >>> expected_record(ExpectedCard(["Paris"], ["France"]))
    {'front': ('Paris',), 'back': ('France',)}
    """
    record: dict[str, Any] = {"front": card.front_keywords, "back": card.back_keywords}
    if card.card_type is not None:
        record["card_type"] = card.card_type
    return record


def generated_record(card: GeneratedCard) -> dict[str, Any]:
    """A generated card as a record of the flashcard schema."""
    return {"front": card.front, "back": card.back, "card_type": card.card_type}


class CardScorer:
    """Scores and matches cards with one normalizer and one set of weights: the record matcher
    (:class:`lexeval.records.RecordMatcher`) on the flashcard schema, each distinct string
    normalized once per case. What :func:`match_cards` and :func:`lexeval.cards.evaluate` use.

    ``normalizer``: a preset name of :class:`lexeval.normalize.Normalizer` (the process's shared
    one, see :func:`lexeval.normalize.resolve_normalizer`), anything with ``tokens`` and
    ``signature``, or None (plain mode: ``kw in text``).

    >>> scorer = CardScorer(None)
    >>> exp, gen = ExpectedCard(["Paris"], ["France"]), GeneratedCard("Paris?", "France.")
    >>> scorer.match([exp], [gen], threshold=0.3, strategy="greedy").n_matched
    1
    """

    __slots__ = ("matcher", "semantic", "weights")

    def __init__(
        self,
        normalizer: NormalizerArg = "default",
        weights: ScoreWeights = DEFAULT_WEIGHTS,
        semantic: Rescorer | None = None,
    ) -> None:
        self.matcher = RecordMatcher(flashcard_schema(weights), normalizer)
        self.weights = weights
        self.semantic = semantic  # embeddings decide the uncertain pairs (lexeval.cards.semantic)

    @property
    def normalizer(self) -> TokenSource | None:
        return self.matcher.index.normalizer

    @property
    def index(self) -> KeywordIndex:
        return self.matcher.index

    def found(self, keywords: Sequence[str], text: str) -> list[bool]:
        return self.matcher.index.found(keywords, text)

    def grid(
        self, expected: Sequence[ExpectedCard], generated: Sequence[GeneratedCard]
    ) -> list[list[float]]:
        """Scores of every (expected, generated) pair, each text prepared once."""
        return self.matcher.grid(
            [expected_record(e) for e in expected], [generated_record(g) for g in generated]
        )

    def pair(self, exp: ExpectedCard, gen: GeneratedCard) -> MatchedPair:
        score, fields = self.matcher.pair(expected_record(exp), generated_record(gen))
        return _matched_pair(-1, -1, score, fields)

    def match(
        self,
        expected: Sequence[ExpectedCard],
        generated: Sequence[GeneratedCard],
        threshold: float,
        strategy: Strategy,
        case_id: str = "",
        has_output: bool = True,
    ) -> CaseResult:
        """One case matched (see :func:`match_cards`, which checks the arguments first)."""
        cards, made = tuple(expected), tuple(generated)
        want = [expected_record(e) for e in cards]
        got = [generated_record(g) for g in made]
        self.matcher.index.new_case()
        grid = self.matcher.grid(want, got)
        similarity: dict[tuple[int, int], float] = {}
        if self.semantic is not None:
            grid, similarity = self.semantic.rescore(grid, cards, made, threshold, self.weights)
        pairs = []
        for i, j in assign(grid, threshold, strategy):
            _, fields = self.matcher.pair(want[i], got[j])
            pairs.append(_matched_pair(i, j, grid[i][j], fields, similarity.get((i, j))))
        best_scores = tuple(max(row, default=0.0) for row in grid)
        return CaseResult(case_id, cards, made, tuple(pairs), best_scores, has_output)


def _matched_pair(
    i: int, j: int, score: float, fields: Mapping[str, Any], semantic: float | None = None
) -> MatchedPair:
    card_type = fields.get("card_type")
    return MatchedPair(
        expected_index=i,
        generated_index=j,
        score=score,
        front_similarity=fields["front"].score,
        back_similarity=fields["back"].score,
        card_type_match=None if card_type is None else card_type.passed,
        missing_front=tuple(fields["front"].info["missing"]),
        missing_back=tuple(fields["back"].info["missing"]),
        semantic_similarity=semantic,
    )


def keyword_similarity(
    keywords: Sequence[str], text: str, *, normalizer: NormalizerArg = "default"
) -> float:
    """The share of ``keywords`` found in ``text`` (0.0 for an empty keyword list).

    >>> keyword_similarity(["Paris", "paris", "France"], "Paris is in France.", normalizer=None)
    0.6666666666666666
    """
    if isinstance(keywords, str):
        raise TypeError("keywords must be a list of strings, not a string")
    check_text(text, "text")
    if not keywords:
        return 0.0
    found = KeywordIndex(normalizer).found(keywords, text)
    return sum(found) / len(found)


def score_pair(
    expected: ExpectedCard,
    generated: GeneratedCard,
    *,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    normalizer: NormalizerArg = "default",
) -> float:
    """The similarity of an expected and a generated card (see :class:`ScoreWeights`).

    Front 1/2 and back 1/1 found, no card type: 0.5 * 0.5 + 0.5 * 1.0 = 0.75.

    >>> exp = ExpectedCard(["Newton", "law"], ["inertia"])
    >>> score_pair(exp, GeneratedCard("Newton's first", "Inertia: inertia"), normalizer=None)
    0.75
    """
    return CardScorer(normalizer, weights).pair(expected, generated).score


@dataclass(frozen=True, slots=True)
class MatchedPair:
    """An accepted pair: indices into the case's expected and generated cards, with evidence."""

    expected_index: int
    generated_index: int
    score: float
    front_similarity: float
    back_similarity: float
    card_type_match: bool | None
    missing_front: tuple[str, ...] = ()
    missing_back: tuple[str, ...] = ()
    #: the semantic tier's weighted cosine when it decided this pair, else None
    semantic_similarity: float | None = None


@dataclass(frozen=True, slots=True)
class CaseResult(CaseCounts):
    """The outcome of one case.

    ``recall`` = matched / expected; ``precision`` = matched / generated (0.0 without generated
    cards); ``f1`` their harmonic mean (0.0 when both are 0); ``avg_similarity`` the mean score
    of the accepted pairs (0.0 without pairs). ``has_output`` is False when the model produced
    nothing for the case at all (every expected card then counts as unmatched).
    ``best_scores[i]`` is the highest score expected card ``i`` reached with any generated card.
    """

    case_id: str
    expected: tuple[ExpectedCard, ...]
    generated: tuple[GeneratedCard, ...]
    pairs: tuple[MatchedPair, ...]
    best_scores: tuple[float, ...] = ()
    has_output: bool = True

    @property
    def unmatched_expected(self) -> tuple[ExpectedCard, ...]:
        return tuple(self.expected[i] for i in self.unmatched_expected_indices)

    @property
    def extra_generated(self) -> tuple[GeneratedCard, ...]:
        return tuple(self.generated[j] for j in self.extra_generated_indices)


def match_cards(
    expected: Sequence[ExpectedCard],
    generated: Sequence[GeneratedCard],
    threshold: float = 0.3,
    strategy: Strategy = "greedy",
    normalizer: NormalizerArg = "default",
    *,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    case_id: str = "",
    has_output: bool = True,
    semantic: Rescorer | None = None,
) -> CaseResult:
    """Pair expected with generated cards.

    ``greedy``: expected cards in order; each takes the unused generated card with the strictly
    highest score (the first one on ties), accepted when the score is at least ``threshold``.
    ``optimal``: the one-to-one assignment that maximizes the total score of accepted pairs
    (scores below the threshold count as 0), via :func:`scipy.optimize.linear_sum_assignment`.
    A pair whose score is 0 is never a match, even with ``threshold=0.0`` (the search starts
    from a best score of 0 and accepts only a higher one). ``semantic``: a
    :class:`~lexeval.cards.semantic.SemanticTier` lets embeddings decide the pairs whose keyword
    score is uncertain (the optional extra ``semantic``).

    Greedy lets the first expected card take the generated card the second one needed:

    >>> exp = [ExpectedCard(["cell"], ["membrane", "nucleus"]), ExpectedCard(["wall"], ["plant"])]
    >>> gen = [GeneratedCard("cell wall", "membrane of a plant"), GeneratedCard("cell", "nucleus")]
    >>> match_cards(exp, gen, normalizer=None).n_matched
    1
    >>> match_cards(exp, gen, strategy="optimal", normalizer=None).n_matched
    2
    """
    check_settings(threshold, strategy)
    return CardScorer(normalizer, weights, semantic).match(
        expected, generated, threshold, strategy, case_id, has_output
    )
