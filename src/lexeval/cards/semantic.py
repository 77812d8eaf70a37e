"""The card matcher's semantic tier (optional extra ``semantic``): keywords first, embeddings
only where the keyword score is uncertain.

A pair of cards whose keyword score falls in the band ``[low, high)`` is decided by the
embedding similarity of the two cards: the weighted cosine (front keywords joined vs generated
front, back keywords vs generated back, and the card type as in :class:`ScoreWeights`) of
:class:`lexeval.metrics.semantic.SemanticSimilarityMetric`'s model. At or above ``cutoff`` the
pair scores at least the match threshold (it is accepted unless another pair wins the card);
below it scores 0 (never a match). Pairs outside the band keep their keyword score, and are
never encoded. Each matched pair reports its ``semantic_similarity`` (None when the tier did not
look at it).

The defaults (band ``[0, 0.5)``, cutoff 0.28) were chosen (kappa-best) for the default
threshold 0.3 on a card set built from EVOUNA NQ (one card per answer, the words of the first
gold answer as back keywords, fronts weighing 0; ``benchmarks/quality/semantic.py --cards``). Held
out, they help on EVOUNA TQ and hurt on NQ301: see docs/semantic.md before turning the tier on.

>>> from lexeval.cards import ExpectedCard, GeneratedCard, match_cards
>>> exp = [ExpectedCard(["capital", "France"], ["Paris"])]
>>> gen = [GeneratedCard("What is the capital of France?", "Paris")]
>>> match_cards(exp, gen, semantic=SemanticTier()).pairs[0].semantic_similarity is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lexeval.cards.dataset import ExpectedCard, GeneratedCard
from lexeval.metrics.semantic import DEFAULT_MODEL, get_encoder

if TYPE_CHECKING:
    from lexeval.cards.matching import ScoreWeights

__all__ = ["SemanticTier"]


@dataclass(frozen=True)
class SemanticTier:
    """Embeddings decide the pairs whose keyword score is in ``[low, high)``: accepted at a
    weighted cosine of at least ``cutoff``.

    >>> SemanticTier().signature
    'semantic:0-0.5@0.28,wordllama-l2-supercat-256'
    """

    low: float = 0.0
    high: float = 0.5
    cutoff: float = 0.28
    model: str = DEFAULT_MODEL

    def __post_init__(self) -> None:
        for name in ("low", "high", "cutoff"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{name} must be a number, not {type(value).__name__}")
        if not 0.0 <= self.low <= self.high <= 1.0:
            raise ValueError(f"the band needs 0 <= low <= high <= 1, got {self.low}, {self.high}")
        if not -1.0 <= self.cutoff <= 1.0:
            raise ValueError(f"cutoff must be a cosine in [-1, 1], got {self.cutoff}")
        get_encoder(self.model)  # an unknown model or a missing extra fails here, not mid-run

    @property
    def signature(self) -> str:
        """The band, the cutoff and the model (with the hash of its weights in the report)."""
        return f"semantic:{self.low:g}-{self.high:g}@{self.cutoff:g},{self.model}"

    @property
    def digest(self) -> str:
        """The hash of the model's weights (``StaticEncoder.digest``)."""
        return get_encoder(self.model).digest

    def in_band(self, score: float) -> bool:
        """Whether a keyword score is uncertain enough for the embeddings."""
        return self.low <= score < self.high

    def rescore(
        self,
        grid: list[list[float]],
        expected: Sequence[ExpectedCard],
        generated: Sequence[GeneratedCard],
        threshold: float,
        weights: ScoreWeights,
    ) -> tuple[list[list[float]], dict[tuple[int, int], float]]:
        """The grid with the band's cells decided by embeddings, and each such cell's weighted
        cosine (encoding each distinct text of the case once)."""
        band = self.in_band
        cells = [(i, j) for i, row in enumerate(grid) for j, s in enumerate(row) if band(s)]
        if not cells:
            return grid, {}
        texts: dict[str, int] = {}
        for i, j in cells:
            for text in (*self._sides(expected[i]), generated[j].front, generated[j].back):
                texts.setdefault(text, len(texts))
        vectors = get_encoder(self.model).encode(list(texts))
        rows = [list(row) for row in grid]
        similarity: dict[tuple[int, int], float] = {}
        for i, j in cells:
            e, g = expected[i], generated[j]
            front_text, back_text = self._sides(e)
            front = max(0.0, float(vectors[texts[front_text]] @ vectors[texts[g.front]]))
            back = max(0.0, float(vectors[texts[back_text]] @ vectors[texts[g.back]]))
            if e.card_type is None:
                value = weights.front * front + weights.back * back
            else:
                same = g.card_type is not None and (
                    e.card_type.strip().casefold() == g.card_type.strip().casefold()
                )
                value = weights.typed_front * front + weights.typed_back * back
                value += weights.card_type if same else 0.0
            similarity[i, j] = value
            rows[i][j] = max(rows[i][j], threshold) if value >= self.cutoff else 0.0
        return rows, similarity

    @staticmethod
    def _sides(card: ExpectedCard) -> tuple[str, str]:
        return ", ".join(card.front_keywords), ", ".join(card.back_keywords)
