"""Keyword coverage as ``@mastra/evals`` computes it: ``compat="mastra"``
(``KeywordCoverageMetric``) and ``compat="mastra-scorer"`` (``createKeywordCoverageScorer``).

Mastra's keywords (:class:`lexeval.text.peers.MastraProcessor`), the share of the reference's
keywords among the output's, and Mastra's rules for empty inputs (metric: 1.0 only when both
texts are ``""``, else 0.0 when the reference has no keyword; scorer: 1.0 when the reference has
no keyword). ``info`` carries Mastra's ``matchedKeywords`` and ``totalKeywords``.

>>> mode = MastraCoverage("mastra")
>>> score, info = mode.score("The quick brown fox", "a quick fox")
>>> score, info["matchedKeywords"], info["totalKeywords"], info["missing"]
(0.6666666666666666, 2, 3, ['brown'])
"""

from __future__ import annotations

from typing import Any, Literal

from lexeval.metrics.base import best_reference
from lexeval.metrics.keyword_info import coverage_info
from lexeval.text.peers import MastraProcessor

__all__ = ["Compat", "MastraCoverage"]

Compat = Literal["mastra", "mastra-scorer"]


class MastraCoverage:
    """One of Mastra's two keyword coverage implementations (``compat``)."""

    def __init__(self, compat: Compat) -> None:
        self.compat: Compat = compat
        self.processor = MastraProcessor()

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """Mastra's coverage of ``reference``'s keywords by ``output``, with its evidence."""
        ref_kw = self.processor.keywords(reference)
        out_kw = self.processor.keywords(output)
        out_set = set(out_kw)
        hit = [k for k in ref_kw if k in out_set]
        if ref_kw:
            score = len(hit) / len(ref_kw)
        elif self.compat == "mastra":  # KeywordCoverageMetric: 1.0 only for two ""
            score = 1.0 if reference == "" and output == "" else 0.0
        else:  # createKeywordCoverageScorer: nothing to cover is full coverage
            score = 1.0
        return score, coverage_info(ref_kw, out_kw, hit, set(hit), mastra=True)

    def score_references(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any]]:
        """The best of ``references`` (the ``question`` is not read)."""
        return best_reference(self.score(reference, output) for reference in references)
