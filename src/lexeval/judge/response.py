"""Reading a chat-completions response body, strictly: anything that is not a chat completion
(an HTML page, an empty or non-JSON body, a field of the wrong type, ``NaN``) is a
:class:`BadResponse`, which the backend turns into a
:class:`~lexeval.judge.errors.JudgeBackendError` naming the server.

>>> read_completion('{"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}')
('hi', 0, 0, {}, 'stop')
>>> read_completion("<html><body>Bad gateway</body></html>")
Traceback (most recent call last):
...
lexeval.judge.response.BadResponse: not JSON: '<html><body>Bad gateway</body></html>'
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["BadResponse", "read_completion"]


class BadResponse(ValueError):
    """A response body that is not a usable chat completion."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _snippet(body: str) -> str:
    text = " ".join(body.split())
    return repr(text[:80] + ("..." if len(text) > 80 else "")) if text else "an empty body"


def _count(usage: dict[str, Any], name: str) -> int:
    value = usage.get(name, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadResponse(f"usage.{name} is {value!r}, not a count")
    return value


def _top_logprobs(choice: dict[str, Any]) -> dict[str, float]:
    logprobs = choice.get("logprobs")
    if logprobs is None:
        return {}
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if content is None:
        return {}
    if not isinstance(content, list):
        raise BadResponse("logprobs.content is not a list")
    if not content:
        return {}
    first = content[0]
    alternatives = first.get("top_logprobs") if isinstance(first, dict) else None
    if not isinstance(alternatives, list):
        raise BadResponse("logprobs.content[0].top_logprobs is not a list")
    found: dict[str, float] = {}
    for alternative in alternatives:
        if not isinstance(alternative, dict) or not isinstance(alternative.get("token"), str):
            raise BadResponse("a top_logprobs entry has no token")
        value = alternative.get("logprob")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadResponse(f"logprob {value!r} of {alternative['token']!r} is not a number")
        if math.isfinite(value) and value <= 0.0:  # an impossible one is left out
            found.setdefault(alternative["token"], float(value))
    return found


def read_completion(body: str) -> tuple[str, int, int, dict[str, float], str]:
    """(text, prompt tokens, completion tokens, first-token top log-probabilities, finish
    reason) from a chat-completions response body, or :class:`BadResponse`."""
    try:
        data = json.loads(body, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        raise BadResponse(f"not JSON: {_snippet(body)}") from None
    if not isinstance(data, dict):
        raise BadResponse(f"a JSON {type(data).__name__}, not an object: {_snippet(body)}")
    if "error" in data and "choices" not in data:
        raise BadResponse(f"an error: {_snippet(json.dumps(data['error']))}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadResponse(f"no choice: {_snippet(body)}")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise BadResponse("choices[0].message is not an object")
    text = message.get("content")
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise BadResponse(f"the message content is a {type(text).__name__}, not text")
    finish = choice.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        raise BadResponse(f"finish_reason {finish!r} is not text")
    usage = data.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise BadResponse("usage is not an object")
    prompt_tokens = _count(usage or {}, "prompt_tokens")
    completion_tokens = _count(usage or {}, "completion_tokens")
    return text, prompt_tokens, completion_tokens, _top_logprobs(choice), finish or ""
