"""``CorrectnessJudge``: is an answer correct, given the question (optional) and the gold
answer(s)?

Two modes:

- ``"justified"`` (default): the judge writes a short justification, then the verdict
  (``correct``/``incorrect``) and its confidence, as JSON (a JSON schema where the server
  supports it; a tolerant reader otherwise). The score is P(correct): the confidence for a
  ``correct`` verdict, one minus it for ``incorrect``.
- ``"logprobs"``: a one-token Yes/No answer scored by its log-probabilities, P(yes) /
  (P(yes) + P(no)) (alpaca_eval's way). One token per item, and a graded score; on small
  local models it agrees with people far better than any generated verdict.

>>> from lexeval.judge.backend import OpenAICompatible
>>> backend = OpenAICompatible("qwen", base_url="http://127.0.0.1:8080/v1", cache=False)
>>> judge = CorrectnessJudge(backend)
>>> judge.signature
'judge:correctness|template:correctness-v1|mode:justified|openai-compatible:model=qwen,url=http://127.0.0.1:8080/v1,temperature=0,seed=0'
>>> print(judge.messages(["Paris"], "It is Paris.", "What is the capital of France?")[1]["content"])
Question: What is the capital of France?
Gold answer(s):
- Paris
Candidate answer: It is Paris.
<BLANKLINE>
Is the candidate answer correct? ...
"""

from __future__ import annotations

from typing import Any, Literal

from lexeval.judge.backend import Completion, Message, OpenAICompatible
from lexeval.judge.base import JudgeMetric, ParseError, ask
from lexeval.judge.parsing import choice_probability, extract_json, find_verdict_line

__all__ = ["CorrectnessJudge"]

Mode = Literal["justified", "logprobs"]

SYSTEM = (
    "You are a careful grader of answers to questions. A candidate answer is correct when it "
    "gives the same fact as one of the gold answers, in any wording, with no wrong or "
    "contradicting claim; it is incorrect when it gives a different fact, contradicts the gold "
    "answers, or does not answer. Extra correct detail is fine. Judge the content, not the "
    "style or the length."
)
JUSTIFIED = (
    "Is the candidate answer correct? First write a short justification (one or two "
    "sentences), then give your verdict and your confidence that the verdict is right (0.5 to "
    "1). Reply with JSON only, in this order: "
    '{"justification": "...", "verdict": "correct" or "incorrect", "confidence": 0.5-1.0}'
)
ONE_WORD = "Is the candidate answer correct? Answer with one word: Yes or No."
REPAIR = (
    "Your reply could not be read. Reply again with only the JSON object "
    '{"justification": "...", "verdict": "correct" or "incorrect", "confidence": 0.5-1.0}'
)
_VERDICTS = {"correct": True, "yes": True, "incorrect": False, "no": False, "wrong": False}


class CorrectnessJudge(JudgeMetric):
    """Binary correctness with a confidence; ``info`` holds ``verdict``, ``confidence``,
    ``reason`` (the justification), the raw reply, token ``usage`` and ``cached``.

    ``mode``: ``"justified"`` or ``"logprobs"`` (see the module). ``max_reason_chars`` bounds
    the justification (JSON schema ``maxLength``, so the reply fits ``max_tokens``).
    ``instructions`` replaces the final instruction of the prompt (the reply must still
    hold the verdict). ``threshold`` None: ``passed`` is the verdict (``P(yes) >= 0.5`` in
    logprobs mode); a number: ``passed = score >= threshold``.
    """

    name = "judge:correctness"
    template_version = "correctness-v1"

    def __init__(
        self,
        backend: OpenAICompatible,
        *,
        mode: Mode = "justified",
        threshold: float | None = None,
        max_reason_chars: int = 400,
        max_tokens: int | None = None,
        instructions: str | None = None,
    ) -> None:
        if mode not in ("justified", "logprobs"):
            raise ValueError(f"mode must be 'justified' or 'logprobs', not {mode!r}")
        if max_tokens is None:
            max_tokens = 1 if mode == "logprobs" else 64 + max_reason_chars // 3
        super().__init__(backend, threshold=threshold, max_tokens=max_tokens)
        self.mode: Mode = mode
        self.max_reason_chars = max_reason_chars
        self.instructions = instructions

    @property
    def signature(self) -> str:
        """Judge, template version, mode, custom instructions (if any) and backend."""
        custom = "|instructions:custom" if self.instructions is not None else ""
        return (
            f"{self.name}|template:{self.template_version}|mode:{self.mode}{custom}"
            f"|{self.backend.signature}"
        )

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a justified verdict (justification first)."""
        return {
            "type": "object",
            "properties": {
                "justification": {"type": "string", "maxLength": self.max_reason_chars},
                "verdict": {"type": "string", "enum": ["correct", "incorrect"]},
                "confidence": {"type": "number", "minimum": 0.5, "maximum": 1},
            },
            "required": ["justification", "verdict", "confidence"],
            "additionalProperties": False,
        }

    def messages(self, references: list[str], output: str, question: str | None) -> list[Message]:
        """The chat messages sent for one item."""
        lines = []
        if question is not None:
            lines.append(f"Question: {question}")
        lines.append("Gold answer(s):")
        lines.extend(f"- {ref}" for ref in references)
        lines.append(f"Candidate answer: {output}")
        instruction = self.instructions
        if instruction is None:
            instruction = ONE_WORD if self.mode == "logprobs" else JUSTIFIED
        user = "\n".join(lines) + "\n\n" + instruction
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def judge(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any], bool | None]:
        """Ask the judge about one item."""
        messages = self.messages(references, output, question)
        if self.mode == "logprobs":
            exchange = ask(
                self.backend,
                messages,
                _read_yes_probability,
                template_version=self.template_version,
                schema=None,
                max_tokens=self.max_tokens,
                top_logprobs=20,
            )
            info = {"mode": self.mode, **exchange.info()}
            if exchange.value is None:
                return float("nan"), info, None
            p_yes = exchange.value
            info.update(verdict="correct" if p_yes >= 0.5 else "incorrect", p_yes=p_yes)
            info["confidence"] = max(p_yes, 1.0 - p_yes)
            return p_yes, info, p_yes >= 0.5
        justified = ask(
            self.backend,
            messages,
            _read_justified,
            template_version=self.template_version,
            schema=self.schema(),
            max_tokens=self.max_tokens,
            repair=REPAIR,
        )
        info = {"mode": self.mode, **justified.info()}
        if justified.value is None:
            return float("nan"), info, None
        correct, confidence, reason = justified.value
        info.update(
            verdict="correct" if correct else "incorrect", confidence=confidence, reason=reason
        )
        return (confidence if correct else 1.0 - confidence), info, correct


def _read_justified(completion: Completion) -> tuple[bool, float, str]:
    """(correct, confidence, justification) from a JSON reply or a ``Verdict:`` line."""
    data = extract_json(completion.text)
    if data is None:
        word = find_verdict_line(completion.text)
        if word is None or word not in _VERDICTS:
            raise ParseError("no JSON object and no 'Verdict:' line in the reply")
        return _VERDICTS[word], 1.0, completion.text.strip()
    verdict = str(data.get("verdict", "")).strip().lower()
    if verdict not in _VERDICTS:
        raise ParseError(f"verdict {data.get('verdict')!r} is not 'correct' or 'incorrect'")
    confidence = data.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ParseError(f"confidence {confidence!r} is not a number")
    confidence = min(1.0, max(0.5, float(confidence)))
    reason = data.get("justification", "")
    return _VERDICTS[verdict], confidence, reason if isinstance(reason, str) else str(reason)


def _read_yes_probability(completion: Completion) -> float:
    p_yes = choice_probability(completion.top_logprobs, "yes", "no")
    if p_yes is None:
        shown = ", ".join(list(completion.top_logprobs)[:5]) or "none returned"
        raise ParseError(f"neither Yes nor No among the first token's alternatives ({shown})")
    return p_yes
