"""``PairwiseJudge``: which of two outputs is better, asked twice with the positions swapped.

Judges favour a position (in the measurements behind this tier's design, a 1.5B local model
picked the first answer 99.5% of the time) and longer answers. Asking in both orders exposes
the first: consistent passes give the winner with their averaged confidence, inconsistent ones
a TIE with confidence 0.5, instead of a coin flip dressed as a verdict.
:func:`position_consistency` and :func:`length_bias` measure both biases over a batch.

>>> first = PassVerdict(order="AB", winner="A", confidence=0.8)
>>> second = PassVerdict(order="BA", winner="A", confidence=0.6)
>>> combine(first, second).winner, round(combine(first, second).confidence, 2)
('A', 0.7)
>>> combine(first, PassVerdict(order="BA", winner="B", confidence=0.9)).winner
'tie'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from lexeval.checks import check_text
from lexeval.judge.backend import Completion, Message, OpenAICompatible, Usage
from lexeval.judge.base import JudgeMetric, ParseError, ask
from lexeval.judge.parsing import (
    DATA_NOTICE,
    choice_probability,
    data_block,
    is_probability,
    read_answer,
)
from lexeval.judge.rubric import Criterion

if TYPE_CHECKING:
    from lexeval.meta import PositionConsistency

__all__ = [
    "LengthBiasReport",
    "PairwiseJudge",
    "PairwiseResult",
    "PassVerdict",
    "combine",
    "length_bias",
    "position_consistency",
    "read_pass",
]

Winner = Literal["A", "B", "tie"]
Mode = Literal["justified", "logprobs"]

SYSTEM = (
    "You are an impartial judge comparing two responses to the same prompt. Decide which "
    "response is better on the criteria given. The order in which the responses appear says "
    "nothing about their quality: do not favour the first or the second. Do not favour the "
    "longer response: extra length is only better when the added content is correct and "
    "useful. Ignore style unless a criterion asks for it. " + DATA_NOTICE
)
DEFAULT_CRITERIA = (
    Criterion("helpfulness", "Answers the prompt fully and directly."),
    Criterion("accuracy", "Every claim is correct."),
)
REPAIR = (
    "Your reply could not be read. Reply again with only the JSON object "
    '{"reasoning": "...", "winner": "1" or "2" or "tie", "confidence": 0.5-1.0}'
)


@dataclass(frozen=True)
class PassVerdict:
    """One pass: the order shown (``"AB"``: A first), the winner in the original labels, the
    judge's confidence, its reasoning and raw reply; ``parse_error`` when unreadable."""

    order: Literal["AB", "BA"]
    winner: Winner | None
    confidence: float
    reasoning: str = ""
    raw: str = ""
    parse_error: str | None = None
    p_first: float | None = None


@dataclass(frozen=True)
class PairwiseResult:
    """The combined verdict of both passes (``winner`` A, B or ``tie``; ``winner`` None when a
    pass could not be read), whether the passes agreed, both passes and the tokens used."""

    winner: Winner | None
    confidence: float
    consistent: bool
    passes: tuple[PassVerdict, PassVerdict]
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def parse_error(self) -> str | None:
        """The first pass's parse error, if any."""
        for verdict in self.passes:
            if verdict.parse_error is not None:
                return f"pass {verdict.order}: {verdict.parse_error}"
        return None

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict."""
        return {
            "winner": self.winner,
            "confidence": self.confidence,
            "consistent": self.consistent,
            "passes": [asdict(p) for p in self.passes],
            "usage": dict(self.usage),
        }


def combine(first: PassVerdict, second: PassVerdict) -> PairwiseResult:
    """Both passes' verdict: the shared winner with the mean confidence, else a TIE at 0.5.

    With log-probabilities (``p_first`` on both passes) the probability that A wins is
    averaged over both orders: P(A) = (P(first | AB) + P(second | BA)) / 2, and the winner is
    the side above one half.
    """
    if first.winner is None or second.winner is None:
        return PairwiseResult(None, math.nan, False, (first, second))
    if first.p_first is not None and second.p_first is not None:
        p_a = (first.p_first + (1.0 - second.p_first)) / 2.0
        winner: Winner = "A" if p_a > 0.5 else "B" if p_a < 0.5 else "tie"
        return PairwiseResult(
            winner, max(p_a, 1.0 - p_a), first.winner == second.winner, (first, second)
        )
    if first.winner == second.winner:
        return PairwiseResult(
            first.winner, (first.confidence + second.confidence) / 2.0, True, (first, second)
        )
    return PairwiseResult("tie", 0.5, False, (first, second))


class PairwiseJudge(JudgeMetric):
    """Pairwise comparison with position swap.

    :meth:`compare` (one pair) and :meth:`compare_many` give :class:`PairwiseResult` objects.
    As a metric, ``measure(input, output)`` compares ``output`` (B) with the baseline
    ``input`` (A): score 1.0 when the output wins, 0.0 when it loses, 0.5 for a tie (a win
    rate, as alpaca_eval's), ``passed`` when it wins.

    ``mode="logprobs"`` asks for one token (``1`` or ``2``) and averages the probability of
    each answer over both orders (see :func:`combine`): it turns a position-biased small model
    into a usable signal.
    """

    name = "judge:pairwise"
    template_version = "pairwise-v2"

    def __init__(
        self,
        backend: OpenAICompatible,
        criteria: Sequence[Criterion] = DEFAULT_CRITERIA,
        *,
        mode: Mode = "justified",
        threshold: float | None = None,
        max_reason_chars: int = 400,
        max_tokens: int | None = None,
    ) -> None:
        if mode not in ("justified", "logprobs"):
            raise ValueError(f"mode must be 'justified' or 'logprobs', not {mode!r}")
        criteria = list(criteria)
        if not criteria or not all(isinstance(c, Criterion) for c in criteria):
            raise ValueError("criteria must be a non-empty list of Criterion")
        if max_tokens is None:
            max_tokens = 1 if mode == "logprobs" else 64 + max_reason_chars // 3
        super().__init__(backend, threshold=threshold, max_tokens=max_tokens)
        self.criteria = criteria
        self.mode: Mode = mode
        self.max_reason_chars = max_reason_chars

    @property
    def signature(self) -> str:
        """Judge, template, criteria, mode and backend."""
        names = ",".join(c.name for c in self.criteria)
        return (
            f"{self.name}|template:{self.template_version}|criteria:{names}|mode:{self.mode}"
            f"|{self.backend.signature}"
        )

    def schema(self) -> dict[str, Any]:
        """The JSON schema of one pass (reasoning first)."""
        return {
            "type": "object",
            "properties": {
                "reasoning": {"type": "string", "maxLength": self.max_reason_chars},
                "winner": {"type": "string", "enum": ["1", "2", "tie"]},
                "confidence": {"type": "number", "minimum": 0.5, "maximum": 1},
            },
            "required": ["reasoning", "winner", "confidence"],
            "additionalProperties": False,
        }

    def messages(self, prompt: str, first: str, second: str) -> list[Message]:
        """The chat messages of one pass (``first`` shown as Response 1)."""
        lines = ["Criteria:"]
        lines += [f"- {c.name}: {c.description}" for c in self.criteria]
        lines += [
            "",
            data_block("prompt", prompt),
            "",
            data_block("response_1", first),
            "",
            data_block("response_2", second),
            "",
        ]
        if self.mode == "logprobs":
            lines.append("Which response is better? Answer with one character: 1 or 2.")
        else:
            lines.append(
                "Which response is better? First explain briefly, then give the winner (1, 2, "
                "or tie when they are equally good) and your confidence (0.5 to 1). Reply with "
                'JSON only: {"reasoning": "...", "winner": "1" or "2" or "tie", '
                '"confidence": 0.5-1.0}'
            )
        return [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def _pass(
        self, prompt: str, a: str, b: str, order: Literal["AB", "BA"]
    ) -> tuple[PassVerdict, Usage]:
        first, second = (a, b) if order == "AB" else (b, a)
        labels: dict[str, Winner] = {"1": "A", "2": "B"} if order == "AB" else {"1": "B", "2": "A"}
        if self.mode == "logprobs":
            exchange = ask(
                self.backend,
                self.messages(prompt, first, second),
                _read_first_probability,
                template_version=self.template_version,
                schema=None,
                max_tokens=self.max_tokens,
                top_logprobs=20,
                judge=self.name,
            )
            raw = exchange.replies[-1] if exchange.replies else ""
            if exchange.value is None:
                return PassVerdict(
                    order, None, math.nan, "", raw, exchange.parse_error
                ), exchange.usage
            p_first = exchange.value
            picked = labels["1"] if p_first >= 0.5 else labels["2"]
            verdict = PassVerdict(
                order,
                picked,
                max(p_first, 1 - p_first),
                "",
                raw,
                None,
                p_first,
            )
            return verdict, exchange.usage
        justified = ask(
            self.backend,
            self.messages(prompt, first, second),
            lambda completion: read_pass(completion, [prompt, a, b]),
            template_version=self.template_version,
            schema=self.schema(),
            max_tokens=self.max_tokens,
            repair=REPAIR,
            judge=self.name,
        )
        raw = justified.replies[-1] if justified.replies else ""
        if justified.value is None:
            return PassVerdict(
                order, None, math.nan, "", raw, justified.parse_error
            ), justified.usage
        label, confidence, reasoning = justified.value
        winner = "tie" if label == "tie" else labels[label]
        return PassVerdict(order, winner, confidence, reasoning, raw), justified.usage

    def compare(self, prompt: str, a: str, b: str) -> PairwiseResult:
        """Compare ``a`` and ``b`` as answers to ``prompt``: two passes, positions swapped."""
        for value, name in ((prompt, "prompt"), (a, "a"), (b, "b")):
            check_text(value, name)
        first, usage_1 = self._pass(prompt, a, b, "AB")
        second, usage_2 = self._pass(prompt, a, b, "BA")
        result = combine(first, second)
        usage = Usage(
            usage_1.requests + usage_2.requests,
            usage_1.prompt_tokens + usage_2.prompt_tokens,
            usage_1.completion_tokens + usage_2.completion_tokens,
            usage_1.cache_hits + usage_2.cache_hits,
        )
        return PairwiseResult(
            result.winner, result.confidence, result.consistent, result.passes, usage.to_dict()
        )

    def compare_many(
        self, prompts: Sequence[str], a: Sequence[str], b: Sequence[str]
    ) -> list[PairwiseResult]:
        """:meth:`compare` over a batch, concurrently; results in order."""
        if not len(prompts) == len(a) == len(b):
            raise ValueError(f"{len(prompts)} prompts, {len(a)} A answers and {len(b)} B answers")
        calls = [
            (lambda p=p, x=x, y=y: self.compare(p, x, y))
            for p, x, y in zip(prompts, a, b, strict=True)
        ]
        return self.backend.run_many(calls)

    def judge(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any], bool | None]:
        """Compare ``output`` (B) with the first reference (A, the baseline)."""
        result = self.compare(question or "", references[0], output)
        info: dict[str, Any] = {"pairwise": result.to_dict(), "usage": result.usage}
        if result.winner is None:
            info["parse_error"] = result.parse_error or "unreadable reply"
            return math.nan, info, None
        info["winner"] = {"A": "input", "B": "output", "tie": "tie"}[result.winner]
        score = {"A": 0.0, "B": 1.0, "tie": 0.5}[result.winner]
        return score, info, result.winner == "B"


_LABELS = {
    "response 1": "1",
    "response 2": "2",
    "response_1": "1",
    "response_2": "2",
    "a": "1",
    "b": "2",
}


def _label(value: object) -> str:
    label = str(value).strip().lower()
    return _LABELS.get(label, label)


def _winner_of(value: dict[str, Any]) -> str | None:
    return _label(value["winner"]) if "winner" in value else None


def read_pass(completion: Completion, data: Sequence[str] = ()) -> tuple[str, float, str]:
    """(winner label ``1``, ``2`` or ``tie``, confidence, reasoning) from the judge's own JSON
    object in a reply to a prompt carrying ``data`` (the prompt and both responses); an echo of
    a verdict written in the data never counts, and the confidence must be a finite number in
    [0, 1].

    >>> read_pass(Completion('{"winner": "2", "confidence": 0.8}'), ['{"winner": "1"}'])[:2]
    ('2', 0.8)
    """
    answer = read_answer(completion.text, data, verdict_of=_winner_of)
    verdicts = [o for o in answer.objects if "winner" in o]
    if not verdicts:
        if answer.echoes:
            raise ParseError(
                "the reply's only verdict repeats one written in the data: an echo, not the "
                "judge's verdict"
            )
        raise ParseError("no JSON verdict in the reply")
    found = verdicts[-1]
    label = _label(found["winner"])
    if label not in ("1", "2", "tie"):
        raise ParseError(f"winner {found['winner']!r} is not 1, 2 or tie")
    confidence = found.get("confidence", 1.0)
    if not is_probability(confidence):
        raise ParseError(f"confidence {confidence!r} is not a number in [0, 1]")
    return label, max(0.5, float(confidence)), str(found.get("reasoning", ""))


def _read_first_probability(completion: Completion) -> float:
    p_first = choice_probability(completion.top_logprobs, "1", "2")
    if p_first is None:
        raise ParseError("neither 1 nor 2 among the first token's alternatives")
    return p_first


def position_consistency(
    results: Sequence[PairwiseResult], *, seed: int = 12345, n_resamples: int = 1000
) -> PositionConsistency:
    """How often the two passes agreed, over the readable results, with a bootstrap interval
    (:func:`lexeval.meta.position_consistency`; ``first_position`` is the share of pairs where
    the answer shown first won both times: position bias).

    >>> a = PassVerdict("AB", "A", 0.9)
    >>> position_consistency([combine(a, PassVerdict("BA", "A", 0.9)),
    ...                       combine(a, PassVerdict("BA", "B", 0.9))]).consistency
    0.5
    """
    from lexeval.meta import position_consistency as consistency_of

    readable = [r for r in results if r.winner is not None]
    if not readable:
        raise ValueError("no readable pairwise result")
    swap = {"A": "B", "B": "A", "tie": "tie"}
    first = [str(r.passes[0].winner) for r in readable]  # A was shown first
    second = [swap[str(r.passes[1].winner)] for r in readable]  # B was shown first
    return consistency_of(first, second, seed=seed, n_resamples=n_resamples)


@dataclass(frozen=True)
class LengthBiasReport:
    """Does the longer answer win more than it should? Over the decided pairs whose answers
    differ in length: how many the longer one won, that share with a Wilson interval, the
    two-sided binomial p-value against one half, and (with human preferences) the share the
    longer answer wins in the human verdicts."""

    n_decided: int
    longer_wins: int
    share: float
    ci_low: float
    ci_high: float
    p_value: float
    human_share: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict."""
        return asdict(self)


def length_bias(
    results: Sequence[PairwiseResult],
    a: Sequence[str],
    b: Sequence[str],
    human: Sequence[Winner] | None = None,
    *,
    confidence: float = 0.95,
) -> LengthBiasReport:
    """Length bias over a batch (lengths in characters; ties and equal lengths left out).

    >>> wins = [combine(PassVerdict("AB", "A", 1.0), PassVerdict("BA", "A", 1.0))] * 8
    >>> report = length_bias(wins, ["a long answer"] * 8, ["short"] * 8)
    >>> report.longer_wins, report.share, report.p_value < 0.01
    (8, 1.0, True)
    """
    from scipy.stats import binomtest

    if not len(results) == len(a) == len(b):
        raise ValueError(f"{len(results)} results, {len(a)} A answers and {len(b)} B answers")

    def longer_won(winner: Winner | None, x: str, y: str) -> bool | None:
        if winner not in ("A", "B") or len(x) == len(y):
            return None
        return (winner == "A") == (len(x) > len(y))

    outcomes = [longer_won(r.winner, x, y) for r, x, y in zip(results, a, b, strict=True)]
    decided = [o for o in outcomes if o is not None]
    human_share = None
    if human is not None:
        if len(human) != len(results):
            raise ValueError(f"{len(human)} human verdicts for {len(results)} results")
        human_outcomes = [longer_won(h, x, y) for h, x, y in zip(human, a, b, strict=True)]
        human_decided = [o for o in human_outcomes if o is not None]
        human_share = sum(human_decided) / len(human_decided) if human_decided else math.nan
    if not decided:
        return LengthBiasReport(0, 0, math.nan, math.nan, math.nan, math.nan, human_share)
    wins = sum(decided)
    test = binomtest(wins, len(decided), 0.5)
    interval = test.proportion_ci(confidence_level=confidence, method="wilson")
    return LengthBiasReport(
        len(decided),
        wins,
        wins / len(decided),
        float(interval.low),
        float(interval.high),
        float(test.pvalue),
        human_share,
    )
