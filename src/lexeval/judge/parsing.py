"""Reading a judge's reply: a JSON object (also inside code fences or surrounding prose), a
``Verdict: ...`` line, or the probability of one answer from the first token's log-probabilities.

>>> extract_json('Sure! ```json\\n{"verdict": "correct"}\\n``` Hope it helps.')
{'verdict': 'correct'}
>>> extract_json("no json here") is None
True
>>> round(choice_probability({"Yes": -0.1, " no": -2.5, "Maybe": -3.0}, "yes", "no"), 3)
0.917
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["choice_probability", "extract_json", "find_verdict_line"]

_DECODER = json.JSONDecoder()
_VERDICT_LINE = re.compile(
    r"^\W*verdict\W*[:=]\W*(?P<verdict>[a-z]+)", re.IGNORECASE | re.MULTILINE
)


def extract_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: the whole text, else the first ``{...}`` that
    decodes (code fences and prose around it are ignored); None when there is none.

    >>> extract_json('{"a": 1}')
    {'a': 1}
    >>> extract_json('The answer: {"a": {"b": 2}} and {"c": 3}')
    {'a': {'b': 2}}
    >>> extract_json('{"a": 1') is None
    True
    """
    stripped = text.strip()
    try:
        value = json.loads(stripped)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    start = stripped.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(stripped, start)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        start = stripped.find("{", start + 1)
    return None


def find_verdict_line(text: str) -> str | None:
    """The lower-cased word after ``Verdict:`` at the start of a line, or None.

    >>> find_verdict_line("The answer names the right city.\\n**Verdict:** CORRECT")
    'correct'
    >>> find_verdict_line("It is correct.") is None
    True
    """
    match = _VERDICT_LINE.search(text)
    return match.group("verdict").lower() if match else None


def choice_probability(top_logprobs: Mapping[str, float], first: str, second: str) -> float | None:
    """P(first) / (P(first) + P(second)) from the first generated token's top log-probabilities
    (tokens compared case-insensitively without surrounding spaces; the probabilities of all
    spellings of a choice are summed), or None when neither choice is among them.

    This is alpaca_eval's way of reading a one-token verdict: a calibrated score instead of a
    hard label.

    >>> round(choice_probability({"1": math.log(0.6), "2": math.log(0.2)}, "1", "2"), 6)
    0.75
    >>> choice_probability({"Maybe": -0.1}, "yes", "no") is None
    True
    """
    totals = {first.lower(): 0.0, second.lower(): 0.0}
    for token, logprob in top_logprobs.items():
        key = token.strip().lower()
        if key in totals and math.isfinite(logprob):
            totals[key] += math.exp(logprob)
    denominator = totals[first.lower()] + totals[second.lower()]
    if denominator <= 0.0:
        return None
    return totals[first.lower()] / denominator
