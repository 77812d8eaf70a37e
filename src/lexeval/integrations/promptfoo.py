"""A promptfoo Python assertion scoring the output lexically (promptfoo is an npm package;
this module needs nothing from it).

promptfoo calls ``get_assert(output, context)`` of a Python file named in the config; the
file can be two lines (``docs/integrations.md`` has the whole example)::

    # lexeval_assert.py
    from lexeval.integrations.promptfoo import get_assert

    # promptfooconfig.yaml
    defaultTest:
      assert:
        - type: python
          value: file://lexeval_assert.py
          config: {metric: keyword_coverage, threshold: 0.5, reference_var: expected}

The reference is the test variable named by ``reference_var`` (default ``expected``; a list
means several references); the question, if the test has one, the variable named by
``question_var`` (default ``question``: keyword coverage weighs the reference keywords it names
less). ``config`` may also give ``options`` (the metric's constructor
options). The result is a promptfoo GradingResult: ``pass``, ``score``, ``reason`` (score,
threshold, missing and matched evidence) and ``namedScores``.

>>> result = get_assert("The capital is Paris",
...     {"vars": {"expected": "Paris is the capital of France"}, "config": {"threshold": 0.5}})
>>> result["pass"], round(result["score"], 3), result["reason"]
(True, 0.668, 'keyword_coverage 0.668 >= threshold 0.500; missing: france; matched: paris, capital')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexeval.integrations.common import metric_and_threshold, reason
from lexeval.metrics.base import verdict

__all__ = ["get_assert"]


def _reference(context: Mapping[str, Any], name: str) -> str | list[str]:
    variables = context.get("vars") or {}
    if not isinstance(variables, Mapping) or name not in variables:
        raise ValueError(f"lexeval assertion: the test has no variable {name!r} (reference_var)")
    value = variables[name]
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"lexeval assertion: variable {name!r} must be a string or a list of strings")


def _question(context: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The test variable named by ``question_var`` (default ``question``), if there is one."""
    variables = context.get("vars") or {}
    name = config.get("question_var", "question")
    value = variables.get(name) if isinstance(variables, Mapping) else None
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"lexeval assertion: variable {name!r} must be a string (question_var)")
    return value


def get_assert(output: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """Score ``output`` against the test's reference variable; a promptfoo GradingResult."""
    config = context.get("config") or {}
    if not isinstance(config, Mapping):
        raise ValueError("lexeval assertion: config must be a mapping")
    options = config.get("options") or {}
    if not isinstance(options, Mapping):
        raise ValueError("lexeval assertion: config.options must be a mapping")
    scorer, threshold = metric_and_threshold(
        config.get("metric", "keyword_coverage"), config.get("threshold"), options
    )
    if not isinstance(output, str):
        output = str(output)
    reference = _reference(context, config.get("reference_var", "expected"))
    result = scorer.measure(reference, output, _question(context, config))
    return {
        "pass": bool(verdict(result.score, threshold)),
        "score": result.score,
        "reason": reason(scorer.name, result, threshold),
        "namedScores": {scorer.name: result.score},
    }
