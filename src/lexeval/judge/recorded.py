"""``RecordedJudge``: serves verdicts recorded from a real judge model, so that a cascade and
the meta-evaluation can be measured on real judge behaviour without an API key.

It is data, not a test double: the verdicts of GPT-4 and text-davinci-003 on NQ301 (the
``openqa_eval`` files, :meth:`RecordedJudge.from_openqa_eval`) are what those models answered.

Verdicts are keyed by the output text, or by ``(question, output)`` when the same answer text
can be right for one question and wrong for another (``measure(..., question=...)`` then finds
it; the output-only key is the fallback).

>>> judge = RecordedJudge({("Capital of France?", "Paris"): True, "Lyon": False}, source="demo")
>>> judge.measure("Paris", "Paris", question="Capital of France?").score
1.0
>>> judge.measure("Paris", "Lyon").passed
False
>>> judge.signature
'judge:recorded|source:demo|n:2'
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexeval.checks import check_references, check_text
from lexeval.judge.base import question_items, verdict_result
from lexeval.judge.errors import JudgeError
from lexeval.metrics.base import BaseMetric, MetricResult

__all__ = ["MissingVerdictError", "RecordedJudge", "RecordedVerdict"]

VerdictKey = str | tuple[str, str]


class MissingVerdictError(JudgeError, LookupError):
    """No recorded verdict for an output."""


@dataclass(frozen=True)
class RecordedVerdict:
    """A recorded verdict and the judge's recorded reply (its reason)."""

    correct: bool
    reply: str = ""


class RecordedJudge(BaseMetric):
    """A metric that replays recorded verdicts: score 1.0 (correct) or 0.0, ``passed`` the
    verdict, ``info`` with ``verdict``, ``reason`` (the recorded reply) and ``source``.

    ``verdicts`` maps an output text, or a ``(question, output)`` pair, to a bool or a
    :class:`RecordedVerdict`. A missing verdict raises :class:`MissingVerdictError`.
    """

    name = "judge:recorded"

    def __init__(
        self, verdicts: Mapping[VerdictKey, bool | RecordedVerdict], *, source: str = "recorded"
    ) -> None:
        super().__init__()
        table: dict[VerdictKey, RecordedVerdict] = {}
        for key, value in verdicts.items():
            if not (
                isinstance(key, str)
                or (
                    isinstance(key, tuple)
                    and len(key) == 2
                    and all(isinstance(k, str) for k in key)
                )
            ):
                raise TypeError(f"a verdict key must be str or (question, output), not {key!r}")
            if isinstance(value, bool):
                value = RecordedVerdict(value)
            if not isinstance(value, RecordedVerdict):
                raise TypeError(f"verdict for {key!r} must be a bool or a RecordedVerdict")
            table[key] = value
        self.verdicts = table
        self.source = source
        self.mismatched_rows: list[int] = []

    @property
    def signature(self) -> str:
        """The recorded source and how many verdicts it holds."""
        return f"{self.name}|source:{self.source}|n:{len(self.verdicts)}"

    def lookup(self, output: str, question: str | None = None) -> RecordedVerdict:
        """The verdict for ``output`` (under ``question`` first, when given)."""
        if question is not None and (question, output) in self.verdicts:
            return self.verdicts[(question, output)]
        if output in self.verdicts:
            return self.verdicts[output]
        where = f" for question {question[:60]!r}" if question is not None else ""
        raise MissingVerdictError(
            f"no recorded verdict in {self.source} for output {output[:60]!r}{where}"
        )

    def _result(self, output: str, question: str | None) -> MetricResult:
        verdict = self.lookup(output, question)
        info: dict[str, Any] = {
            "verdict": "correct" if verdict.correct else "incorrect",
            "reason": verdict.reply,
            "source": self.source,
        }
        return verdict_result(
            1.0 if verdict.correct else 0.0, info, verdict.correct, self.signature
        )

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        result = self._result(output, None)
        return result.score, dict(result.info)

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """The recorded verdict on ``output`` (``input``, the reference, is not used)."""
        check_references(input, "input")
        check_text(output, "output")
        return self._result(output, question)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """The recorded verdicts of a batch, in order."""
        items = question_items(inputs, outputs, questions)
        return [self._result(output, question) for _, output, question in items]

    @classmethod
    def from_openqa_eval(
        cls,
        path: str | os.PathLike[str],
        *,
        aligned_with: str | os.PathLike[str] | None = None,
    ) -> RecordedJudge:
        """The verdicts of one judge file of the openqa_eval release (``NQ301_gpt-4.tsv``,
        ``NQ301_text-davinci-003.tsv``), keyed by the ``(question, answer)`` of the same row of
        ``aligned_with`` (default: ``NQ301_human.tsv`` beside ``path``; the files align row by
        row, and the questions are checked).

        Quirks handled: in the text-davinci-003 file the question and the answer run together
        in one column and the verdict sits in ``Model answer``; a reply with no Yes/No (2 rows
        of the GPT-4 file) counts as No; one GPT-4 row holds another answer text than the
        human file's row, and its verdict is served for the human file's answer, as in the
        published agreement figures (:attr:`mismatched_rows` lists such lines).
        """
        path = Path(path)
        aligned = Path(aligned_with) if aligned_with else path.parent / "NQ301_human.tsv"
        rows = _read_tsv(path)
        keys = [(r[1], r[2]) for _, r in _read_tsv(aligned)[1:] if len(r) > 2]
        if len(keys) != len(rows) - 1:
            raise ValueError(
                f"{aligned}: {len(keys)} rows, but {path} has {len(rows) - 1}: "
                "the files are not aligned"
            )
        header = rows[0][1]
        fused = "Acceptable?" in header and all(
            len(r) > 2 and r[2].strip() in ("Yes", "No") for _, r in rows[1:]
        )
        table: dict[VerdictKey, RecordedVerdict] = {}
        seen: dict[VerdictKey, int] = {}
        mismatched: list[int] = []
        for (line, row), key in zip(rows[1:], keys, strict=True):
            if len(row) < 4:
                raise ValueError(f"{path}:{line}: expected at least 4 fields, found {len(row)}")
            question, answer = key
            if fused:
                if not row[1].startswith(question):
                    raise ValueError(
                        f"{path}:{line}: field 'Question' does not start with the question of "
                        f"{aligned.name}'s row ({question[:50]!r})"
                    )
                recorded_answer, label, reply = row[1][len(question) :], row[2], row[3]
            else:
                if row[1] != question:
                    raise ValueError(
                        f"{path}:{line}: field 'Question' differs from {aligned.name}'s row "
                        f"({question[:50]!r})"
                    )
                recorded_answer, label, reply = row[2], row[3], row[-1]
            if recorded_answer != answer:
                mismatched.append(line)
            label = label.strip()
            if label not in ("Yes", "No", ""):
                raise ValueError(f"{path}:{line}: field 'Acceptable?' is {label!r}, not Yes/No")
            verdict = RecordedVerdict(label == "Yes", reply)
            if key in table and table[key].correct != verdict.correct:
                raise ValueError(
                    f"{path}:{line}: conflicting verdicts for the same question and answer "
                    f"(line {seen[key]})"
                )
            table.setdefault(key, verdict)
            seen.setdefault(key, line)
        judge = cls(table, source=f"{path.name}:{header[-1]}")
        judge.mismatched_rows = mismatched
        return judge


def _read_tsv(path: Path) -> list[tuple[int, list[str]]]:
    """Rows of a tab-separated file with their line numbers (header first)."""
    from lexeval.io import read_text

    _, text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t")
    rows = []
    for row in reader:
        rows.append((reader.line_num, row))
    if not rows:
        raise ValueError(f"{path}: empty file")
    return rows
