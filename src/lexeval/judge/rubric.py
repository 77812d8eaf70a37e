"""``RubricJudge``: direct scoring of an output on weighted criteria, each with evidence and a
justification written before its score (prometheus-eval's and G-Eval's practice), the
weighted total normalized to 0..1.

>>> from lexeval.judge.backend import OpenAICompatible
>>> backend = OpenAICompatible("qwen", base_url="http://127.0.0.1:8080/v1", cache=False)
>>> judge = RubricJudge(backend, criteria=[
...     Criterion("accuracy", "Every claim is supported by the reference.", weight=2),
...     Criterion("completeness", "The output covers the reference's main points."),
... ])
>>> judge.total({"accuracy": 5, "completeness": 2})  # (2 * 1.0 + 1 * 0.25) / 3
0.75
>>> sorted(judge.schema()["properties"]["accuracy"]["properties"])
['evidence', 'justification', 'score']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from lexeval.judge.backend import Completion, Message, OpenAICompatible
from lexeval.judge.base import JudgeMetric, ParseError, ask
from lexeval.judge.parsing import DATA_NOTICE, data_block, read_answer

__all__ = ["Criterion", "RubricJudge", "Strictness"]

Strictness = Literal["lenient", "balanced", "strict"]

_STRICTNESS = {
    "lenient": "Be lenient: give the benefit of the doubt on minor omissions and wording.",
    "balanced": "Be balanced: reward what is there and deduct for what is wrong or missing.",
    "strict": "Be strict: any error, unsupported claim or omission costs points; reserve the "
    "top score for outputs with no flaw at all.",
}
REPAIR = (
    "Your reply could not be read. Reply again with only the JSON object asked for: for each "
    'criterion, {"evidence": "...", "justification": "...", "score": <integer>}.'
)


@dataclass(frozen=True)
class Criterion:
    """One scoring criterion: a ``name`` (a JSON key), what it asks for (``description``), its
    ``weight`` in the total, and optional level descriptions (score -> what it means).

    >>> Criterion("fluency", "Reads naturally.").weight
    1.0
    """

    name: str
    description: str
    weight: float = 1.0
    levels: Mapping[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a criterion needs a non-empty name")
        if isinstance(self.weight, bool) or not self.weight > 0:
            raise ValueError(f"criterion {self.name!r}: weight must be positive")


class RubricJudge(JudgeMetric):
    """Weighted rubric scoring; ``info["criteria"]`` holds each criterion's ``score``,
    ``evidence`` and ``justification``.

    ``criteria``: one or more :class:`Criterion`; ``scale``: the integer score range (default
    1..5); ``rubric``: level descriptions for every criterion (a criterion's own ``levels``
    take precedence); ``strictness``: ``lenient``, ``balanced`` or ``strict``. ``input`` is the
    reference or source material, ``question`` the task the output answers. ``threshold``
    (default 0.5) gives ``passed = score >= threshold``.
    """

    name = "judge:rubric"
    template_version = "rubric-v2"

    def __init__(
        self,
        backend: OpenAICompatible,
        criteria: Sequence[Criterion],
        *,
        scale: tuple[int, int] = (1, 5),
        rubric: Mapping[int, str] | None = None,
        strictness: Strictness = "balanced",
        threshold: float | None = 0.5,
        max_chars: int = 300,
        max_tokens: int | None = None,
    ) -> None:
        criteria = list(criteria)
        if not criteria or not all(isinstance(c, Criterion) for c in criteria):
            raise ValueError("criteria must be a non-empty list of Criterion")
        if len({c.name for c in criteria}) != len(criteria):
            raise ValueError("criterion names must be distinct")
        low, high = scale
        if not (isinstance(low, int) and isinstance(high, int) and low < high):
            raise ValueError(f"scale must be two integers (low, high) with low < high: {scale!r}")
        if strictness not in _STRICTNESS:
            raise ValueError(f"strictness must be one of {', '.join(_STRICTNESS)}")
        if max_tokens is None:
            max_tokens = 32 + len(criteria) * (16 + (2 * max_chars) // 3)
        super().__init__(backend, threshold=threshold, max_tokens=max_tokens)
        self.criteria = criteria
        self.score_range = (low, high)
        self.rubric = dict(rubric or {})
        self.strictness: Strictness = strictness
        self.max_chars = max_chars

    @property
    def signature(self) -> str:
        """Judge, template, criteria with weights, scale, strictness and backend."""
        names = ",".join(f"{c.name}*{c.weight:g}" for c in self.criteria)
        low, high = self.score_range
        return (
            f"{self.name}|template:{self.template_version}|criteria:{names}|scale:{low}-{high}"
            f"|strictness:{self.strictness}|{self.backend.signature}"
        )

    def total(self, scores: Mapping[str, int]) -> float:
        """The weighted mean of the criteria's scores, each mapped to 0..1."""
        low, high = self.score_range
        weight = sum(c.weight for c in self.criteria)
        return sum(c.weight * (scores[c.name] - low) / (high - low) for c in self.criteria) / weight

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a reply: per criterion evidence, justification, then score."""
        low, high = self.score_range
        one = {
            "type": "object",
            "properties": {
                "evidence": {"type": "string", "maxLength": self.max_chars},
                "justification": {"type": "string", "maxLength": self.max_chars},
                "score": {"type": "integer", "minimum": low, "maximum": high},
            },
            "required": ["evidence", "justification", "score"],
            "additionalProperties": False,
        }
        return {
            "type": "object",
            "properties": {c.name: one for c in self.criteria},
            "required": [c.name for c in self.criteria],
            "additionalProperties": False,
        }

    def messages(self, references: list[str], output: str, question: str | None) -> list[Message]:
        """The chat messages sent for one item."""
        low, high = self.score_range
        system = (
            "You are an expert evaluator. Score the output on each criterion below, on an "
            f"integer scale from {low} (worst) to {high} (best). For each criterion, first "
            "quote or point to the evidence in the output, then justify, then give the score. "
            "Judge the content against the criterion only: do not let the output's length or "
            f"style sway you. {_STRICTNESS[self.strictness]} {DATA_NOTICE}"
        )
        lines = ["Criteria:"]
        for c in self.criteria:
            lines.append(f"- {c.name}: {c.description}")
            levels = c.levels or self.rubric
            for level in sorted(levels):
                lines.append(f"  {level}: {levels[level]}")
        if question is not None:
            lines += ["", data_block("task", question)]
        lines += ["", *(data_block("reference", ref) for ref in references)]
        lines += ["", "The output to evaluate:", data_block("output", output), ""]
        lines.append(
            "Reply with JSON only: an object with one entry per criterion, each "
            '{"evidence": "...", "justification": "...", "score": <integer>}.'
        )
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def judge(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any], bool | None]:
        """Ask the judge about one item."""
        exchange = ask(
            self.backend,
            self.messages(references, output, question),
            lambda completion: self.read(
                completion, [output, *references, *([question] if question else [])]
            ),
            template_version=self.template_version,
            schema=self.schema(),
            max_tokens=self.max_tokens,
            repair=REPAIR,
            judge=self.name,
        )
        info = exchange.info()
        if exchange.value is None:
            return float("nan"), info, None
        info["criteria"] = exchange.value
        score = self.total({name: int(v["score"]) for name, v in exchange.value.items()})
        info["reason"] = " ".join(
            f"{name}: {v['justification']}" for name, v in exchange.value.items()
        )
        return score, info, None

    def _scores_of(self, value: dict[str, Any]) -> tuple[Any, ...] | None:
        """The criteria's scores in ``value`` (None without any criterion)."""
        if not any(c.name in value for c in self.criteria):
            return None
        scores = []
        for c in self.criteria:
            entry = value.get(c.name)
            scores.append(entry.get("score") if isinstance(entry, dict) else entry)
        return tuple(scores)

    def read(self, completion: Completion, data: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
        """Each criterion's score, evidence and justification from the judge's own JSON object
        in a reply to a prompt carrying ``data`` (the last object naming a criterion; an echo
        of an object in the data never counts). A score that is not an integer of the scale
        is a :class:`~lexeval.judge.base.ParseError`."""
        answer = read_answer(completion.text, data, verdict_of=self._scores_of)
        candidates = [o for o in answer.objects if self._scores_of(o) is not None]
        if not candidates:
            if answer.echoes:
                raise ParseError(
                    "the reply's only scores repeat ones written in the data: an echo, not "
                    "the judge's scores"
                )
            raise ParseError("no JSON object with the criteria in the reply")
        found_object = candidates[-1]
        low, high = self.score_range
        found: dict[str, dict[str, Any]] = {}
        for c in self.criteria:
            entry = found_object.get(c.name)
            if isinstance(entry, (int, float, str)) and not isinstance(entry, bool):
                entry = {"score": entry}
            if not isinstance(entry, dict):
                raise ParseError(f"no entry for criterion {c.name!r}")
            score = entry.get("score")
            if isinstance(score, str) and score.strip().lstrip("-").isdigit():
                score = int(score.strip())
            if (
                isinstance(score, bool)
                or not isinstance(score, (int, float))
                or not math.isfinite(score)
            ):
                raise ParseError(f"criterion {c.name!r}: score {score!r} is not a number")
            if score != int(score) or not low <= score <= high:
                raise ParseError(f"criterion {c.name!r}: score {score!r} not in {low}..{high}")
            found[c.name] = {
                "score": int(score),
                "evidence": str(entry.get("evidence", "")),
                "justification": str(entry.get("justification", "")),
            }
        return found
