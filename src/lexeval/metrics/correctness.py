"""``LexicalCorrectnessMetric``: the probability that people call a QA answer correct, from
lexical evidence alone (no model download, no judge).

Keyword coverage sees whether the gold's words are there, not whether the gold appears
verbatim, nor how much else the answer says. This metric combines twenty lexical signals of
one (gold answers, answer, question) triple with a logistic regression whose coefficients were
fitted on the human correctness labels of EVOUNA NQ (15,098 answers of five QA systems; the
tuning set) and ship with the package (``lexeval/data/lexical_correctness_en.json``; refit with
``benchmarks/quality/lexical_correctness.py --fit``):

- keyword coverage with the question and without it, its matched, missing and echoed keyword
  counts and its share of extra output keywords;
- the router's signals (:func:`lexeval.metrics.answer_signals.router_features`): whether
  coverage is 0 or 1, SQuAD token F1 and recall, a gold verbatim in the answer, the best
  character alignment of a gold inside the answer, the lengths of answer and golds and their
  number;
- ROUGE-L F, recall and precision, the question's length, and a hedge cue (" or ", "not sure",
  "I don't", "unknown", "cannot").

``info["features"]`` holds the signals and ``info["contributions"]`` each one's share of the
log-odds (coefficient times the standardized value), besides keyword coverage's evidence
(``matched``, ``missing``, ``echoed``). A list of guesses that names the gold still passes, as
with keyword coverage: that takes a judge.

It is a short-answer judge: its model has seen gold answers of at most 185 characters. A gold
answer longer than :data:`MAX_GOLD_CHARS` (256 characters) is refused with a ``ValueError``
(long references: ``KeywordCoverageMetric(task="long_answer")``), so no confident probability
comes out of inputs it was never fitted on, and its cost stays linear in the gold's length. A
blank, whitespace-only or punctuation-only gold (every alternative so) is a ``ValueError`` too
(it would pass any answer).

>>> m = LexicalCorrectnessMetric()
>>> q = "Which river flows through Baghdad?"
>>> right = m.measure(["Tigris", "Tigris River"], "The Tigris.", question=q)
>>> wrong = m.measure(["Tigris", "Tigris River"], "The Euphrates River.", question=q)
>>> right.score > 0.9 > 0.5 > wrong.score, right.passed, wrong.passed
(True, True, False)
>>> m.measure("...", "anything at all")
Traceback (most recent call last):
ValueError: input[0] is blank or punctuation only: a gold answer needs a letter or a digit
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from lexeval.checks import check_references, check_text
from lexeval.metrics.base import BaseMetric, MetricResult, check_batch, register_metric
from lexeval.metrics.keyword import KeywordCoverageMetric
from lexeval.metrics.rouge import RougeMetric

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "FEATURES",
    "MAX_GOLD_CHARS",
    "MODEL_FILE",
    "LexicalCorrectnessMetric",
    "LexicalModel",
    "check_golds",
    "load_model",
]

MODEL_FILE = "lexical_correctness_en.json"

FEATURES = (
    "keyword_coverage",
    "keyword_is_0",
    "keyword_is_1",
    "token_f1",
    "token_recall",
    "gold_verbatim",
    "gold_alignment",
    "log_answer_words",
    "log_golds",
    "log_gold_words",
    "keyword_coverage_unasked",
    "keywords_matched",
    "keywords_missing",
    "keyword_extra",
    "keywords_echoed",
    "rougeL",
    "rougeL_recall",
    "rougeL_precision",
    "log_question_words",
    "hedge",
)

HEDGES = (" or ", "not sure", "i don't", "unknown", "cannot")

#: The longest gold answer (in characters) the metric judges: the model was fitted on gold
#: answers of at most 51 characters (EVOUNA NQ) and is reported on golds of at most 185
#: (EVOUNA TQ); a longer reference is refused (``ValueError``).
MAX_GOLD_CHARS = 256


def check_golds(golds: Sequence[str], name: str = "input") -> None:
    """Refuse golds out of the metric's scope: none with a letter or a digit (blank or
    punctuation only: they would pass any answer; an alternative such as "🗾" beside real ones
    is kept), or one longer than :data:`MAX_GOLD_CHARS` (not short answers).

    >>> check_golds(["Paris", "x" * 300])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: input[1] has 300 characters: lexical_correctness judges short answers (at most ...
    """
    if not any(any(c.isalnum() for c in gold) for gold in golds):
        where = (
            f"{name}[0]" if len(golds) == 1 else f"every one of the {len(golds)} golds of {name}"
        )
        raise ValueError(
            f"{where} is blank or punctuation only: a gold answer needs a letter or a digit"
        )
    for i, gold in enumerate(golds):
        if len(gold) > MAX_GOLD_CHARS:
            raise ValueError(
                f"{name}[{i}] has {len(gold)} characters: lexical_correctness judges short "
                f"answers (at most {MAX_GOLD_CHARS}); score long references with "
                'KeywordCoverageMetric(task="long_answer")'
            )


class LexicalModel:
    """A fitted logistic model over :data:`FEATURES`: standardization (``mean``, ``scale``),
    ``coef`` and ``intercept``, with where it came from (``trained_on``)."""

    def __init__(
        self,
        mean: Sequence[float],
        scale: Sequence[float],
        coef: Sequence[float],
        intercept: float,
        threshold: float,
        trained_on: str = "",
    ) -> None:
        import numpy as np

        arrays = [np.asarray(v, dtype=float) for v in (mean, scale, coef)]
        if any(a.shape != (len(FEATURES),) for a in arrays):
            raise ValueError(f"a lexical model needs {len(FEATURES)} means, scales and coefs")
        self.mean, self.scale, self.coef = arrays
        self.intercept = float(intercept)
        self.threshold = float(threshold)
        self.trained_on = trained_on

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (what :meth:`from_dict` reads)."""
        return {
            "features": list(FEATURES),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
            "threshold": self.threshold,
            "trained_on": self.trained_on,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LexicalModel:
        """A model from its JSON form; the feature names must be :data:`FEATURES`."""
        if list(data.get("features", [])) != list(FEATURES):
            raise ValueError("the model's features are not lexeval's FEATURES")
        return cls(
            data["mean"],
            data["scale"],
            data["coef"],
            data["intercept"],
            data["threshold"],
            str(data.get("trained_on", "")),
        )

    @property
    def digest(self) -> str:
        """The first 8 hex digits of the SHA-256 of the model's JSON form."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]

    def contributions(self, row: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Each feature's term of the log-odds."""
        import numpy as np

        return np.asarray(self.coef * (row - self.mean) / self.scale, dtype=float)

    def probability(self, row: npt.NDArray[np.float64]) -> float:
        """P(correct) for one row of features."""
        return self.probability_of(self.contributions(row))

    def probability_of(self, contributions: npt.NDArray[np.float64]) -> float:
        """P(correct) from a row's :meth:`contributions`."""
        logit = self.intercept + float(contributions.sum())
        return 1.0 / (1.0 + math.exp(-logit))


@cache
def load_model() -> LexicalModel:
    """The model that ships with lexeval (fitted on EVOUNA NQ's human labels)."""
    text = resources.files("lexeval.data").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return LexicalModel.from_dict(json.loads(text))


class LexicalCorrectnessMetric(BaseMetric):
    """P(people call ``output`` a correct answer | the gold answers, the question), from the
    lexical signals in :data:`FEATURES` and a logistic model (default: :func:`load_model`).

    The verdict's threshold defaults to the model's kappa-best one on its tuning set
    (:attr:`recommended_threshold`); ``threshold=`` overrides it. Reads ``question=`` as keyword
    coverage does; without a question the question's signals are those of none.
    """

    name = "lexical_correctness"

    def __init__(
        self,
        *,
        model: LexicalModel | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        self.model = load_model() if model is None else model
        super().__init__(
            scale=scale, threshold=self.model.threshold * scale if threshold is None else threshold
        )
        self._keyword = KeywordCoverageMetric(task="short_answer")
        self._rouge = RougeMetric("rougeL")
        self._signature: str | None = None

    def __getstate__(self) -> dict[str, Any]:
        """The configuration: the shipped model and the component metrics are rebuilt on
        unpickling, so pool workers receive a few hundred bytes."""
        state = super().__getstate__()
        if state["model"] is load_model():
            state["model"] = None
        del state["_keyword"], state["_rouge"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.model is None:
            self.model = load_model()
        self._keyword = KeywordCoverageMetric(task="short_answer")
        self._rouge = RougeMetric("rougeL")

    @property
    def recommended_threshold(self) -> float | None:
        """The model's kappa-best threshold on its tuning set (EVOUNA NQ)."""
        return self.model.threshold

    @property
    def signature(self) -> str:
        if self._signature is None:  # built once: every result carries it
            self._signature = (
                f"lexical_correctness|model:{self.model.digest}|scale:{self.scale:g}"
                f"|golds:<={MAX_GOLD_CHARS}chars"
                f"|keyword:{self._keyword.signature}|rougeL:{self._rouge.signature}"
            )
        return self._signature

    def features(
        self, references: Sequence[str], output: str, question: str | None = None
    ) -> tuple[npt.NDArray[np.float64], dict[str, Any]]:
        """One row of :data:`FEATURES` for the gold answers ``references`` and keyword
        coverage's evidence (``matched``, ``missing``, ``echoed``).

        >>> row, _ = LexicalCorrectnessMetric().features(["Paris"], "Paris, I think")
        >>> dict(zip(FEATURES, row.round(3).tolist()))["gold_verbatim"]
        1.0
        """
        import numpy as np

        from lexeval.metrics.answer_signals import router_features

        golds = list(references)
        asked = self._keyword.measure(golds, output, question=question)
        unasked = asked if question is None else self._keyword.measure(golds, output)
        rouge = self._rouge.measure(golds, output)
        router = router_features([golds], [output], [asked.score])[0]
        info = asked.info
        lowered = output.lower()
        extra = [
            unasked.score,
            len(info.get("matched", [])),
            len(info.get("missing", [])),
            float(info.get("extra", 0.0) or 0.0),
            len(info.get("echoed", [])),
            rouge.score,
            float(rouge.info.get("recall", rouge.score)),
            float(rouge.info.get("precision", rouge.score)),
            math.log1p(len(question.split())) if question else 0.0,
            float(any(cue in lowered for cue in HEDGES)),
        ]
        row = np.concatenate([router, np.asarray(extra, dtype=float)]).astype(float)
        evidence: dict[str, Any] = {
            key: info[key] for key in ("matched", "missing", "echoed") if key in info
        }
        return row, evidence

    def _evaluate(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any]]:
        check_golds(references)
        row, evidence = self.features(references, output, question)
        contributions = self.model.contributions(row)
        info: dict[str, Any] = {
            **evidence,
            "features": dict(zip(FEATURES, row.tolist(), strict=True)),
            "contributions": dict(zip(FEATURES, contributions.round(6).tolist(), strict=True)),
        }
        return self.model.probability_of(contributions), info

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._evaluate([reference], output, None)

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """P(correct) of ``output`` for the gold answer(s) ``input`` and the ``question``."""
        references = [input] if type(input) is str else check_references(input, "input")
        check_text(output, "output")
        if question is not None:
            check_text(question, "question")
        score, info = self._evaluate(references, output, question)
        return self.make_result(score, info)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score triples in order, as :meth:`BaseMetric.measure_many`; ``questions`` (one per
        pair, or None for a pair without) as in :meth:`measure`."""
        ins, outs, qs = check_batch(inputs, outputs, questions)
        return self._asked(ins, outs, [None] * len(outs) if qs is None else qs, progress)


def _make(**options: Any) -> LexicalCorrectnessMetric:
    return LexicalCorrectnessMetric(**options)


register_metric("lexical_correctness", _make, "lexical-correctness")
