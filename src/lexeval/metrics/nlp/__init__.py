"""Mastra's NLP metrics beside keyword coverage: completeness, content similarity, textual
difference and tone consistency, each with ``compat="mastra"`` (``@mastra/evals`` 0.14.4
exactly, or as close as its part-of-speech tagger allows for completeness) and a lexeval mode
on the shared normalizer.

>>> from lexeval.metrics.nlp import TextualDifferenceMetric
>>> TextualDifferenceMetric(compat="mastra").measure("abcd", "abed").score
0.75
"""

from __future__ import annotations

from lexeval.metrics.nlp.completeness import CompletenessMetric
from lexeval.metrics.nlp.difference import TextualDifferenceMetric
from lexeval.metrics.nlp.similarity import ContentSimilarityMetric
from lexeval.metrics.nlp.tone import ToneConsistencyMetric

__all__ = [
    "CompletenessMetric",
    "ContentSimilarityMetric",
    "TextualDifferenceMetric",
    "ToneConsistencyMetric",
]
