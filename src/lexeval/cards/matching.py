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

>>> exp = [ExpectedCard(["capital", "France"], ["Paris"])]
>>> gen = [GeneratedCard("What is the capital of France?", "Paris")]
>>> match_cards(exp, gen, normalizer=None).recall
1.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from lexeval.cards.dataset import ExpectedCard, GeneratedCard
from lexeval.checks import check_text
from lexeval.normalize import resolve_normalizer
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

Strategy = Literal["greedy", "optimal"]
STRATEGIES: tuple[str, ...] = ("greedy", "optimal")


#: What the matcher needs of a normalizer: ``tokens`` and ``signature`` (the text layer's
#: :class:`~lexeval.text.base.TokenSource`; every text processor, a Normalizer included, is one).
NormalizerLike = TokenSource

#: A text processor, a preset name of :class:`lexeval.normalize.Normalizer`, or None (plain
#: mode).
NormalizerArg = TokenSource | str | None


@dataclass(frozen=True, slots=True)
class ScoreWeights:
    """Weights of :func:`score_pair`.

    Without an expected card type: ``front * front_sim + back * back_sim`` (0.5/0.5). With one:
    ``typed_front * front_sim + typed_back * back_sim + card_type * [types equal]``
    (0.4/0.4/0.2). Each set must be non-negative and sum to 1.

    >>> ScoreWeights(front=0.7, back=0.3).front
    0.7
    >>> ScoreWeights(front=0.7)
    Traceback (most recent call last):
    ...
    ValueError: front + back must be 1, got 1.2
    """

    front: float = 0.5
    back: float = 0.5
    typed_front: float = 0.4
    typed_back: float = 0.4
    card_type: float = 0.2

    def __post_init__(self) -> None:
        for name in ("front", "back", "typed_front", "typed_back", "card_type"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"weight {name} must be a number in [0, 1], got {value!r}")
        untyped = self.front + self.back
        typed = self.typed_front + self.typed_back + self.card_type
        if not math.isclose(untyped, 1.0, abs_tol=1e-9):
            raise ValueError(f"front + back must be 1, got {untyped:g}")
        if not math.isclose(typed, 1.0, abs_tol=1e-9):
            raise ValueError(f"typed_front + typed_back + card_type must be 1, got {typed:g}")

    @property
    def signature(self) -> str:
        """A short settings string, e.g. ``0.5/0.5,0.4/0.4/0.2``."""
        return (
            f"{self.front:g}/{self.back:g},"
            f"{self.typed_front:g}/{self.typed_back:g}/{self.card_type:g}"
        )


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


DEFAULT_WEIGHTS = ScoreWeights()

_WORD = re.compile(r"\w+")

# A keyword's key: how it is looked up in a text.
#   ("seq", tokens)  normalized token sequence, contiguous whole-token match
#   ("word", words)  fallback: casefolded \w+ words, contiguous whole-word match
#   ("sub", folded)  fallback: casefolded substring
_Key = tuple[str, tuple[str, ...] | str]


class _Text:
    """One text, normalized once, with lazily built n-gram sets for contiguous lookups."""

    __slots__ = ("_folded", "_grams", "_raw", "_words", "tokens", "unigrams")

    def __init__(self, raw: str, tokens: Sequence[str]) -> None:
        self._raw = raw
        self.tokens = tuple(tokens)
        self.unigrams = frozenset(self.tokens)
        self._grams: dict[tuple[str, int], frozenset[tuple[str, ...]]] = {}
        self._words: tuple[str, ...] | None = None
        self._folded: str | None = None

    def _has_seq(self, kind: str, seq: tuple[str, ...], source: tuple[str, ...]) -> bool:
        n = len(seq)
        grams = self._grams.get((kind, n))
        if grams is None:
            grams = frozenset(zip(*(source[i:] for i in range(n)), strict=False))
            self._grams[(kind, n)] = grams
        return seq in grams

    def contains(self, key: _Key) -> bool:
        kind, value = key
        if kind == "seq":
            assert isinstance(value, tuple)
            if len(value) == 1:
                return value[0] in self.unigrams
            return self._has_seq("seq", value, self.tokens)
        if kind == "word":
            assert isinstance(value, tuple)
            if self._words is None:
                self._words = tuple(_WORD.findall(self._raw.casefold()))
            return self._has_seq("word", value, self._words)
        assert isinstance(value, str)
        if self._folded is None:
            self._folded = self._raw.casefold()
        return value in self._folded


class CardScorer:
    """Scores and matches cards with one normalizer and one set of weights, normalizing each
    distinct string once: what :func:`match_cards` and :func:`lexeval.cards.evaluate` use.

    ``normalizer``: a preset name of :class:`lexeval.normalize.Normalizer` (the process's shared
    one, see :func:`lexeval.normalize.resolve_normalizer`), anything with ``tokens`` and
    ``signature``, or None (plain mode: ``kw in text``).

    >>> scorer = CardScorer(None)
    >>> exp, gen = ExpectedCard(["Paris"], ["France"]), GeneratedCard("Paris?", "France.")
    >>> scorer.match([exp], [gen], threshold=0.3, strategy="greedy").n_matched
    1
    """

    __slots__ = ("_keys", "_texts", "normalizer", "semantic", "weights")

    def __init__(
        self,
        normalizer: NormalizerArg = "default",
        weights: ScoreWeights = DEFAULT_WEIGHTS,
        semantic: Rescorer | None = None,
    ) -> None:
        self.normalizer: TokenSource | None = (
            None if normalizer is None else resolve_normalizer(normalizer, tokens_only=True)
        )
        self.weights = weights
        self.semantic = semantic  # embeddings decide the uncertain pairs (lexeval.cards.semantic)
        self._keys: dict[str, _Key] = {}
        self._texts: dict[str, _Text] = {}

    def new_case(self) -> None:
        """Forget the texts of the last case; keep keyword keys (bounded)."""
        self._texts.clear()
        if len(self._keys) > 65536:
            self._keys.clear()

    def key(self, keyword: str) -> _Key:
        key = self._keys.get(keyword)
        if key is None:
            assert self.normalizer is not None
            tokens = tuple(self.normalizer.tokens(keyword))
            if tokens:
                key = ("seq", tokens)
            else:
                words = tuple(_WORD.findall(keyword.casefold()))
                key = ("word", words) if words else ("sub", keyword.casefold().strip())
            self._keys[keyword] = key
        return key

    def text(self, raw: str) -> _Text:
        text = self._texts.get(raw)
        if text is None:
            assert self.normalizer is not None
            text = _Text(raw, self.normalizer.tokens(raw))
            self._texts[raw] = text
        return text

    def found(self, keywords: Sequence[str], text: str) -> list[bool]:
        if self.normalizer is None:
            return [kw in text for kw in keywords]
        indexed = self.text(text)
        return [indexed.contains(self.key(kw)) for kw in keywords]

    def types_match(self, expected: str, generated: str | None) -> bool:
        if generated is None:
            return False
        if self.normalizer is None:
            return expected == generated
        return expected.strip().casefold() == generated.strip().casefold()

    def combine(self, front_sim: float, back_sim: float, type_match: bool | None) -> float:
        """The weighted score; the one formula both the grid and :meth:`pair` use."""
        w = self.weights
        if type_match is None:
            return w.front * front_sim + w.back * back_sim
        score = w.typed_front * front_sim + w.typed_back * back_sim
        return score + w.card_type if type_match else score

    def grid(
        self, expected: Sequence[ExpectedCard], generated: Sequence[GeneratedCard]
    ) -> list[list[float]]:
        """Scores of every (expected, generated) pair, each text prepared once."""
        types = [g.card_type for g in generated]
        rows: list[list[float]] = []
        if self.normalizer is None:
            fronts: list[str] = [g.front for g in generated]
            backs: list[str] = [g.back for g in generated]
            for e in expected:
                fk, bk = e.front_keywords, e.back_keywords
                nf, nb = len(fk), len(bk)
                rows.append(
                    [
                        self.combine(
                            sum(k in fronts[j] for k in fk) / nf,
                            sum(k in backs[j] for k in bk) / nb,
                            None if e.card_type is None else e.card_type == types[j],
                        )
                        for j in range(len(generated))
                    ]
                )
            return rows
        ftexts = [self.text(g.front) for g in generated]
        btexts = [self.text(g.back) for g in generated]
        folded = [t.strip().casefold() if t is not None else None for t in types]
        for e in expected:
            fkeys = [self.key(k) for k in e.front_keywords]
            bkeys = [self.key(k) for k in e.back_keywords]
            nf, nb = len(fkeys), len(bkeys)
            want = None if e.card_type is None else e.card_type.strip().casefold()
            rows.append(
                [
                    self.combine(
                        sum(ftexts[j].contains(k) for k in fkeys) / nf,
                        sum(btexts[j].contains(k) for k in bkeys) / nb,
                        None if want is None else want == folded[j],
                    )
                    for j in range(len(generated))
                ]
            )
        return rows

    def pair(self, exp: ExpectedCard, gen: GeneratedCard) -> MatchedPair:
        front = self.found(exp.front_keywords, gen.front)
        back = self.found(exp.back_keywords, gen.back)
        front_sim = sum(front) / len(front)
        back_sim = sum(back) / len(back)
        type_match: bool | None = None
        if exp.card_type is not None:
            type_match = self.types_match(exp.card_type, gen.card_type)
        score = self.combine(front_sim, back_sim, type_match)
        return MatchedPair(
            expected_index=-1,
            generated_index=-1,
            score=score,
            front_similarity=front_sim,
            back_similarity=back_sim,
            card_type_match=type_match,
            missing_front=tuple(
                kw for kw, ok in zip(exp.front_keywords, front, strict=True) if not ok
            ),
            missing_back=tuple(
                kw for kw, ok in zip(exp.back_keywords, back, strict=True) if not ok
            ),
        )

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
        self.new_case()
        grid = self.grid(cards, made)
        similarity: dict[tuple[int, int], float] = {}
        if self.semantic is not None:
            grid, similarity = self.semantic.rescore(grid, cards, made, threshold, self.weights)
        chosen: list[tuple[int, int]] = []
        if strategy == "greedy":
            used = [False] * len(made)
            for i, row in enumerate(grid):
                best_j, best = -1, 0.0  # a 0-similarity pair is never a match
                for j, score in enumerate(row):
                    if not used[j] and score > best:
                        best_j, best = j, score
                if best_j >= 0 and best >= threshold:
                    used[best_j] = True
                    chosen.append((i, best_j))
        elif grid and made:
            from scipy.optimize import linear_sum_assignment

            gains = [[score if score >= threshold else 0.0 for score in row] for row in grid]
            rows, cols = linear_sum_assignment(gains, maximize=True)
            chosen = [
                (int(i), int(j))
                for i, j in zip(rows, cols, strict=True)
                if grid[i][j] >= threshold and grid[i][j] > 0.0
            ]
        pairs = []
        for i, j in sorted(chosen):
            detail = self.pair(cards[i], made[j])
            pairs.append(
                MatchedPair(
                    expected_index=i,
                    generated_index=j,
                    score=grid[i][j],
                    front_similarity=detail.front_similarity,
                    back_similarity=detail.back_similarity,
                    card_type_match=detail.card_type_match,
                    missing_front=detail.missing_front,
                    missing_back=detail.missing_back,
                    semantic_similarity=similarity.get((i, j)),
                )
            )
        best_scores = tuple(max(row, default=0.0) for row in grid)
        return CaseResult(case_id, cards, made, tuple(pairs), best_scores, has_output)


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
    found = CardScorer(normalizer).found(keywords, text)
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
class CaseResult:
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
    def n_expected(self) -> int:
        return len(self.expected)

    @property
    def n_generated(self) -> int:
        return len(self.generated)

    @property
    def n_matched(self) -> int:
        return len(self.pairs)

    @property
    def recall(self) -> float:
        return self.n_matched / self.n_expected if self.expected else 0.0

    @property
    def precision(self) -> float:
        return self.n_matched / self.n_generated if self.generated else 0.0

    @property
    def f1(self) -> float:
        return f1_score(self.precision, self.recall)

    @property
    def avg_similarity(self) -> float:
        return sum(p.score for p in self.pairs) / len(self.pairs) if self.pairs else 0.0

    @property
    def unmatched_expected_indices(self) -> tuple[int, ...]:
        used = {p.expected_index for p in self.pairs}
        return tuple(i for i in range(self.n_expected) if i not in used)

    @property
    def extra_generated_indices(self) -> tuple[int, ...]:
        used = {p.generated_index for p in self.pairs}
        return tuple(j for j in range(self.n_generated) if j not in used)

    @property
    def unmatched_expected(self) -> tuple[ExpectedCard, ...]:
        return tuple(self.expected[i] for i in self.unmatched_expected_indices)

    @property
    def extra_generated(self) -> tuple[GeneratedCard, ...]:
        return tuple(self.generated[j] for j in self.extra_generated_indices)


def f1_score(precision: float, recall: float) -> float:
    """The harmonic mean of ``precision`` and ``recall`` (0.0 when both are 0).

    >>> f1_score(1.0, 0.5), f1_score(0.0, 0.0)
    (0.6666666666666666, 0.0)
    """
    total = precision + recall
    return 2 * precision * recall / total if total > 0 else 0.0


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
    if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be 'greedy' or 'optimal', got {strategy!r}")
    return CardScorer(normalizer, weights, semantic).match(
        expected, generated, threshold, strategy, case_id, has_output
    )
