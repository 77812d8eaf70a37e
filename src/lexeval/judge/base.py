"""What every LLM judge shares: it is a metric (``measure(input, output) -> MetricResult``),
asks its backend for a structured verdict, repairs an unreadable reply once, and records a
reply it still cannot read as a parse error instead of a score.

A parse error gives a result whose score is NaN, whose ``passed`` is None and whose
``info["parse_error"]`` says what went wrong; :func:`judged` leaves such results out (and
:func:`count_parse_errors` counts them) so that they never pass for zeros.

>>> from lexeval.metrics.base import MetricResult
>>> results = [MetricResult(1.0), MetricResult(float("nan"), {"parse_error": "no JSON"})]
>>> len(judged(results)), count_parse_errors(results)
(1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from lexeval.checks import check_references, check_text
from lexeval.judge.backend import Completion, Message, OpenAICompatible, Usage
from lexeval.judge.errors import JudgeConfigError, JudgeError
from lexeval.metrics.base import BaseMetric, MetricResult, check_batch, verdict

__all__ = [
    "Exchange",
    "JudgeMetric",
    "ParseError",
    "ask",
    "count_parse_errors",
    "judged",
    "question_items",
    "verdict_result",
]

T = TypeVar("T")


class ParseError(ValueError):
    """A reply that does not hold the verdict asked for."""


def verdict_result(
    score: float, info: dict[str, Any], passed: bool | None, signature: str | None
) -> MetricResult:
    """A :class:`MetricResult` with a verdict and the metric's signature.

    >>> verdict_result(1.0, {}, True, "judge").passed
    True
    """
    return MetricResult(score, info, passed, signature)


def question_items(
    inputs: Iterable[str | Sequence[str]],
    outputs: Iterable[str],
    questions: Iterable[str | None] | None = None,
) -> list[tuple[list[str], str, str | None]]:
    """A judge's batch checked and zipped: ``(references, output, question)`` per item.

    >>> question_items(["Paris"], ["Lyon"], ["Capital of France?"])
    [(['Paris'], 'Lyon', 'Capital of France?')]
    >>> question_items(["Paris"], ["Lyon", "Nice"])
    Traceback (most recent call last):
    ValueError: 1 inputs but 2 outputs
    """
    ins, outs, asked = check_batch(inputs, outputs, questions)
    qs: list[str | None] = [None] * len(outs) if asked is None else asked
    items = []
    for i, o, q in zip(ins, outs, qs, strict=True):
        references = check_references(i, "input")
        check_text(o, "output")
        if q is not None:
            check_text(q, "question")
        items.append((references, o, q))
    return items


def judged(results: Iterable[MetricResult]) -> list[MetricResult]:
    """The results that hold a verdict (parse errors left out)."""
    return [r for r in results if "parse_error" not in r.info]


def count_parse_errors(results: Iterable[MetricResult]) -> int:
    """How many results are parse errors."""
    return sum(1 for r in results if "parse_error" in r.info)


@dataclass
class Exchange(Generic[T]):
    """The outcome of :func:`ask`: the parsed value (None on a parse error), every raw reply,
    the tokens used, and whether every reply came from the cache."""

    value: T | None
    replies: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cached: bool = True
    parse_error: str | None = None
    completion: Completion | None = None

    def info(self) -> dict[str, Any]:
        """The evidence every judge result carries: ``raw``, ``usage``, ``cached`` and, when
        the reply could not be read, ``parse_error``."""
        info: dict[str, Any] = {
            "raw": self.replies[-1] if self.replies else "",
            "usage": self.usage.to_dict(),
            "cached": self.cached,
        }
        if len(self.replies) > 1:
            info["raw_attempts"] = list(self.replies)
        if self.parse_error is not None:
            info["parse_error"] = self.parse_error
        return info


def ask(
    backend: OpenAICompatible,
    messages: Sequence[Message],
    parse: Callable[[Completion], T],
    *,
    template_version: str,
    schema: dict[str, Any] | None,
    max_tokens: int,
    top_logprobs: int = 0,
    repair: str | None = None,
    judge: str = "judge",
) -> Exchange[T]:
    """Ask ``backend``, read the reply with ``parse`` (which raises :class:`ParseError`); when
    it cannot be read and ``repair`` is given, ask once more with the reply and ``repair``
    appended to the conversation. Only readable replies are cached. A backend or cache error
    is raised with the ``judge``'s name in front.
    """
    exchange: Exchange[T] = Exchange(None)
    conversation = list(messages)
    attempts = 2 if repair is not None else 1

    def readable(completion: Completion) -> bool:
        try:
            parse(completion)
        except ParseError:
            return False
        return True

    for attempt in range(attempts):
        try:
            completion = backend.complete(
                conversation,
                template_version=template_version,
                schema=schema,
                max_tokens=max_tokens,
                top_logprobs=top_logprobs,
                keep=readable,
            )
        except JudgeError as error:
            if isinstance(error, JudgeConfigError) or str(error).startswith(f"{judge}: "):
                raise
            raise type(error)(f"{judge}: {error}") from None
        exchange.completion = completion
        exchange.replies.append(completion.text)
        exchange.cached = exchange.cached and completion.cached
        if not completion.cached:
            exchange.usage.requests += 1
            exchange.usage.prompt_tokens += completion.prompt_tokens
            exchange.usage.completion_tokens += completion.completion_tokens
        else:
            exchange.usage.cache_hits += 1
        try:
            exchange.value = parse(completion)
            exchange.parse_error = None
            return exchange
        except ParseError as error:
            exchange.parse_error = str(error) or "unreadable reply"
            if completion.finish_reason == "length":
                exchange.parse_error += " (the reply was cut at max_tokens)"
        if attempt + 1 < attempts and repair is not None:
            conversation = [
                *conversation,
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": f"{repair} (problem: {exchange.parse_error})"},
            ]
    return exchange


class JudgeMetric(BaseMetric):
    """A metric whose verdicts come from a judge model through ``backend``.

    ``measure(input, output, question=None)``: ``input`` is the reference (a ``str`` or a list
    of references, all shown to the judge at once); ``question`` (optional) the question or
    task the output answers. ``measure_many`` runs the requests concurrently (the backend's
    ``concurrency``). ``threshold`` None means ``passed`` is the judge's own verdict; a number
    means ``passed = score >= threshold``.

    Subclasses implement :meth:`judge` (one item: a score, its info and the verdict).
    """

    name = "judge"
    template_version = "v1"

    def __init__(
        self, backend: OpenAICompatible, *, threshold: float | None = None, max_tokens: int = 512
    ) -> None:
        super().__init__(threshold=threshold)
        if not isinstance(backend, OpenAICompatible):
            raise TypeError(
                f"backend must be an OpenAICompatible (or LocalServer), "
                f"not {type(backend).__name__}"
            )
        self.backend = backend
        self.max_tokens = max_tokens

    @property
    def signature(self) -> str:
        """The judge, its prompt template's version and the backend (model, endpoint)."""
        return f"{self.name}|template:{self.template_version}|{self.backend.signature}"

    def judge(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any], bool | None]:
        """Score, info and verdict for one item (requests the backend)."""
        raise NotImplementedError

    def _verdict(self, score: float, own: bool | None) -> bool | None:
        if math.isnan(score):
            return None
        if self.threshold is None:
            return own
        return verdict(score, self.threshold)

    def _result(self, references: list[str], output: str, question: str | None) -> MetricResult:
        score, info, own = self.judge(references, output, question)
        return verdict_result(score, info, self._verdict(score, own), self.signature)

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        score, info, _ = self.judge([reference], output, None)
        return score, info

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Judge ``output`` against the reference(s) ``input`` (and the ``question``)."""
        references = check_references(input, "input")
        check_text(output, "output")
        if question is not None:
            check_text(question, "question")
        return self._result(references, output, question)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Judge pairs concurrently (the backend's threads); results in order (an error stops
        the batch)."""
        items = question_items(inputs, outputs, questions)
        calls = [(lambda r=r, o=o, q=q: self._result(r, o, q)) for r, o, q in items]
        return self.backend.run_many(calls)
