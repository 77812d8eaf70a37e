"""Adapters for the evaluation frameworks users already run; each is an optional extra.

* :mod:`lexeval.integrations.deepeval`: :class:`~lexeval.integrations.deepeval.LexicalMetric`,
  a DeepEval ``BaseMetric`` (``pip install 'lexeval[deepeval]'``, tested with deepeval 4.3.1);
* :mod:`lexeval.integrations.ragas`: :class:`~lexeval.integrations.ragas.LexicalMetric`, a Ragas
  class-based metric, and ``LexicalSingleTurnMetric`` for ``ragas.evaluate``
  (``pip install 'lexeval[ragas]'``, tested with ragas 0.4.3);
* :mod:`lexeval.integrations.promptfoo`: :func:`~lexeval.integrations.promptfoo.get_assert`, a
  promptfoo Python assertion (no Python dependency; promptfoo itself is an npm package, tested
  with 0.121.20);
* :mod:`lexeval.integrations.common`: what they share (metric, threshold, reason).

Importing this package imports none of the frameworks.
"""

from __future__ import annotations

__all__: list[str] = []
