"""How a worker's chunk of :class:`~lexeval.metrics.MetricResult` travels to the caller.

Unpickling a list of results costs the caller, per result, a ``copyreg`` call, a state dict
and attributes set one by one. :func:`pack_results` sends the chunk as columns instead (the
signature once, the scores, the verdicts, the infos: plain lists, still pickled, so every
type arrives as it left), and :func:`unpack_results` builds the results from them the way the
metrics build theirs (:func:`~lexeval.metrics.base.new_result`). The caller's CPU per result
is a fifth to a half lower (``docs/scale.md``). A chunk holding results of another type
travels as it is.

>>> from lexeval.metrics import TokenF1Metric
>>> results = TokenF1Metric(threshold=0.5).measure_many(["a b", "c d"], ["a", "c d"])
>>> unpack_results(pack_results(results)) == results
True
>>> unpack_results(pack_results([]))
[]
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from lexeval.metrics.base import MetricResult, new_result

__all__ = ["pack_results", "unpack_results"]

# the first item of a packed chunk
_SHARED = 0  # (_SHARED, signature, scores, verdicts, infos): one signature for every result
_EACH = 1  # (_EACH, signatures, scores, verdicts, infos)
_AS_IS = 2  # (_AS_IS, results): results of another type


def pack_results(results: list[Any]) -> tuple[Any, ...]:
    """``results`` as columns (see the module's text)."""
    if any(type(r) is not MetricResult for r in results):
        return (_AS_IS, results)
    scores = [r.score for r in results]
    verdicts = [r.passed for r in results]
    infos = [r.info for r in results]
    signature = results[0].signature if results else None
    if all(r.signature is signature for r in results):
        return (_SHARED, signature, scores, verdicts, infos)
    return (_EACH, [r.signature for r in results], scores, verdicts, infos)


def unpack_results(packed: tuple[Any, ...]) -> list[Any]:
    """The results :func:`pack_results` packed: equal, of the same types."""
    if packed[0] == _AS_IS:
        results: list[Any] = packed[1]
        return results
    kind, signature, scores, verdicts, infos = packed
    signatures = repeat(signature) if kind == _SHARED else signature
    return list(map(new_result, scores, infos, verdicts, signatures))
