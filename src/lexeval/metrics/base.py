"""The metric protocol: :class:`MetricResult`, :class:`Metric`, the shared base class and the
registry (:func:`get_metric`, :func:`list_metrics`).

Every metric is configured in its constructor and measures one pair per call::

    metric.measure(input, output) -> MetricResult

``input`` is the reference (a ``str``, or a list of ``str`` meaning several references: the
best one is reported, like rouge-score's ``score_multi``); ``output`` is the text under
evaluation.

Every metric takes ``threshold=`` (default None): its results then carry ``passed``
(``score >= threshold``), and every result carries the metric's ``signature``.

>>> r = MetricResult(0.5, {"precision": 1.0})
>>> r.to_dict()
{'score': 0.5, 'passed': None, 'signature': None, 'info': {'precision': 1.0}}
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, runtime_checkable

from lexeval.checks import check_references, check_text
from lexeval.metrics.overlap import fmeasure
from lexeval.native import load

__all__ = [
    "BaseMetric",
    "Metric",
    "MetricResult",
    "fmeasure",
    "get_metric",
    "known_metric",
    "list_metrics",
    "measure_many_with_questions",
    "measure_with_question",
    "new_result",
    "register_metric",
    "takes_questions",
]


@dataclass(frozen=True, slots=True)
class MetricResult:
    """One measurement: ``score`` (0..1 times the metric's ``scale``), ``info`` (evidence),
    ``passed`` (``score >= threshold`` when the metric has a threshold, else None) and the
    ``signature`` of the metric that measured it (None for a result built by hand).

    ``info`` may hold ``counts`` (``overlap``, ``reference``, ``output``) that
    :func:`lexeval.metrics.aggregate` pools into micro precision, recall and F.

    >>> from lexeval.metrics import TokenF1Metric
    >>> r = TokenF1Metric(compat="set", threshold=0.5).measure("the cat sat", "the cat")
    >>> r.score, r.passed, r.signature
    (0.8, True, 'token_f1|mode:set|norm:lower-split')
    >>> MetricResult(1.0).info
    {}
    """

    score: float
    info: dict[str, Any] = field(default_factory=dict, hash=False)
    passed: bool | None = None
    signature: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict: ``{"score", "passed", "signature", "info"}``."""
        return {
            "score": self.score,
            "passed": self.passed,
            "signature": self.signature,
            "info": dict(self.info),
        }


def new_result(
    score: float, info: dict[str, Any], passed: bool | None, signature: str | None
) -> MetricResult:
    """``MetricResult(score, info, passed, signature)``, built at a third of the cost: a frozen
    dataclass sets each field through ``object.__setattr__``, which costs more than scoring a
    short pair's n-grams (the metrics' hot path and the pool's caller build one result per
    pair). The fields are slots: no ``__dict__`` per result, one object fewer for the
    collector to walk. Compiled (``lexeval.native.results``), it is one call; the code below is
    its reference.

    >>> new_result(0.5, {}, True, "sig") == MetricResult(0.5, {}, True, "sig")
    True
    """
    if _NATIVE is not None:
        made: MetricResult = _NATIVE.new(MetricResult, _MEMBERS, score, info, passed, signature)
        return made
    result = _new_object(MetricResult)
    _set_score(result, score)
    _set_info(result, info)
    _set_passed(result, passed)
    _set_signature(result, signature)
    return result


_new_object = object.__new__
#: The slots' member descriptors, in new_result's order.
_MEMBERS = tuple([vars(MetricResult)[name] for name in ("score", "info", "passed", "signature")])
_set_score, _set_info, _set_passed, _set_signature = (member.__set__ for member in _MEMBERS)
_NATIVE = load("results")


@runtime_checkable
class Metric(Protocol):
    """What every lexeval metric offers."""

    name: str

    @property
    def signature(self) -> str:
        """Every setting that changes results, in one stable string."""
        ...

    def measure(self, input: str | Sequence[str], output: str) -> MetricResult:
        """Score ``output`` against the reference(s) ``input``."""
        ...

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score a batch of pairs."""
        ...


def measure_with_question(
    metric: Metric, reference: str | Sequence[str], output: str, question: str | None
) -> MetricResult:
    """``metric.measure(reference, output)``, with ``question=`` when there is one and the
    metric takes it (keyword coverage weighs the reference keywords the question names less).

    >>> from lexeval.metrics import get_metric
    >>> scorer = get_metric("keyword_coverage")
    >>> q = "Which river flows through Baghdad?"
    >>> round(measure_with_question(scorer, "Tigris River", "Euphrates River", q).score, 2)
    0.12
    >>> round(measure_with_question(scorer, "Tigris River", "Euphrates River", None).score, 2)
    0.35
    """
    if question is not None and _accepts(metric.measure, "question"):
        return metric.measure(reference, output, question=question)  # type: ignore[call-arg]
    return metric.measure(reference, output)


def _accepts(method: Callable[..., Any], parameter: str) -> bool:
    """Whether ``method`` has a ``parameter`` (read once per function: ``inspect.signature``
    costs more than a warm keyword coverage call)."""
    function = getattr(method, "__func__", None)
    if function is None:  # not a bound method: inspect it as it is
        return parameter in inspect.signature(method).parameters
    return parameter in _parameter_names(function)


@cache
def _parameter_names(function: Callable[..., Any]) -> frozenset[str]:
    return frozenset(inspect.signature(function).parameters)


def takes_questions(metric: Metric) -> bool:
    """Whether ``metric.measure_many`` accepts ``questions=`` (keyword coverage, lexical
    correctness, the LLM judges and the cascade do).

    >>> from lexeval.metrics import get_metric
    >>> takes_questions(get_metric("token_f1")), takes_questions(get_metric("keyword_coverage"))
    (False, True)
    """
    return _accepts(metric.measure_many, "questions")


def measure_many_with_questions(
    metric: Metric,
    references: Sequence[str | Sequence[str]],
    outputs: Sequence[str],
    questions: Sequence[str | None] | None,
    **options: Any,
) -> list[MetricResult]:
    """``metric.measure_many(references, outputs, **options)``, with ``questions=`` when some
    question is given and the metric takes them (:func:`takes_questions`).

    >>> from lexeval.metrics import get_metric
    >>> scorer = get_metric("keyword_coverage")
    >>> golds, answers = ["Tigris River"] * 2, ["Euphrates River", "the Tigris"]
    >>> asked = ["Which river flows through Baghdad?"] * 2
    >>> [round(r.score, 2) for r in measure_many_with_questions(scorer, golds, answers, asked)]
    [0.12, 0.88]
    >>> [round(r.score, 2) for r in measure_many_with_questions(scorer, golds, answers, None)]
    [0.35, 0.64]
    """
    if questions is not None and any(q is not None for q in questions) and takes_questions(metric):
        return metric.measure_many(  # type: ignore[call-arg]
            references, outputs, questions=questions, **options
        )
    return metric.measure_many(references, outputs, **options)


def check_scale(scale: object) -> float:
    """A positive finite ``scale``."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number, not {type(scale).__name__}")
    if not (0 < float(scale) < float("inf")):
        raise ValueError(f"scale must be positive and finite, not {scale!r}")
    return float(scale)


def check_threshold(threshold: object, scale: float = 1.0) -> float | None:
    """None, or a finite ``threshold`` between 0 and ``scale`` (a score's range).

    >>> check_threshold(0.5), check_threshold(None)
    (0.5, None)
    """
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"threshold must be a number or None, not {type(threshold).__name__}")
    value = float(threshold)
    if not (math.isfinite(value) and 0.0 <= value <= scale):
        raise ValueError(f"threshold must be between 0 and the scale {scale:g}, not {threshold!r}")
    return value


class BaseMetric(ABC):
    """Shared behaviour: argument checks, best-of-references, ``scale``, ``threshold``,
    batches.

    ``threshold`` (in the score's units, i.e. after ``scale``) gives every result a verdict,
    ``passed = score >= threshold``; it is not part of the signature, because it changes the
    verdict, not the score. Subclasses implement :meth:`_measure_one` (one reference,
    unscaled score).
    """

    name: str = "metric"
    #: Instance attributes that are caches (dicts): a pickled metric carries them empty, so
    #: that it pickles small and rebuilds them in the new process.
    _cache_attributes: tuple[str, ...] = ()

    def __init__(self, *, scale: float = 1.0, threshold: float | None = None) -> None:
        self.scale = check_scale(scale)
        self.threshold = check_threshold(threshold, self.scale)

    @property
    def recommended_threshold(self) -> float | None:
        """A pass threshold calibrated against people for these settings, or None when there
        is none (``docs/metrics.md`` says where each comes from).

        >>> from lexeval.metrics import RougeMetric
        >>> RougeMetric("rouge1").recommended_threshold is None
        True
        """
        return None

    def make_result(self, score: float, info: dict[str, Any]) -> MetricResult:
        """A :class:`MetricResult` for an unscaled ``score``: scaled, with the verdict and the
        signature.

        >>> from lexeval.metrics import TokenF1Metric
        >>> TokenF1Metric(compat="set", scale=10, threshold=6).make_result(0.5, {}).passed
        False
        """
        if self.scale != 1.0:
            score *= self.scale
        threshold = self.threshold
        passed = None if threshold is None else score >= threshold
        return new_result(score, info, passed, self.signature)

    def __getstate__(self) -> dict[str, Any]:
        """The configuration (its normalizer pickles as configuration too), without caches."""
        state = self.__dict__.copy()
        for name in self._cache_attributes:
            if name in state:
                state[name] = {}
        if state.get("_signature") is not None:  # built lazily: unused and used pickle the same
            state["_signature"] = None
        return state

    @property
    @abstractmethod
    def signature(self) -> str:
        """Every setting that changes results, in one stable string."""

    @abstractmethod
    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """Unscaled score and info for one reference."""

    # ---- best of several references: the one rule every metric uses -------------------------
    def _prepare_output(self, output: str) -> Any:
        """The output prepared once for scoring against each reference (default: as is)."""
        return output

    def _score_prepared(self, reference: str, prepared_output: Any) -> tuple[float, dict[str, Any]]:
        """Unscaled score and info for one reference and the prepared output."""
        return self._measure_one(reference, prepared_output)

    def _reference_key(self, score: float, info: dict[str, Any]) -> float:
        """What "best reference" maximizes (default: the score)."""
        return score

    def _finish_references(self, info: dict[str, Any], references: list[str], output: str) -> None:
        """Add what depends on all references to the best one's info (default: nothing)."""
        return None

    def _measure_refs(self, references: list[str], output: str) -> tuple[float, dict[str, Any]]:
        """The first reference with the highest :meth:`_reference_key` (rouge-score's
        ``score_multi`` rule); ``info["reference_index"]`` tells which, when there are several.
        """
        prepared = self._prepare_output(output)
        if len(references) == 1:
            score, info = self._score_prepared(references[0], prepared)
            self._finish_references(info, references, output)
            return score, info
        best: tuple[float, dict[str, Any]] | None = None
        best_key = 0.0
        best_index = 0
        for i, ref in enumerate(references):
            score, info = self._score_prepared(ref, prepared)
            key = self._reference_key(score, info)
            if best is None or key > best_key:
                best, best_key, best_index = (score, info), key, i
        assert best is not None
        if len(references) > 1:
            best[1]["reference_index"] = best_index
        self._finish_references(best[1], references, output)
        return best

    def measure(self, input: str | Sequence[str], output: str) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: the best is kept)."""
        references = [input] if type(input) is str else check_references(input, "input")
        if type(output) is not str:
            check_text(output, "output")
        score, info = self._measure_refs(references, output)
        return self.make_result(score, info)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score pairs in order, in this process; ``progress=True`` shows a rich progress bar.

        ``inputs`` and ``outputs`` must have the same length (ValueError otherwise). To score
        on several processes: :func:`lexeval.run.measure_many` (``workers=``).
        """
        if isinstance(inputs, str) or isinstance(outputs, str):
            raise TypeError("inputs and outputs must be sequences of texts, not str")
        ins = list(inputs)
        outs = list(outputs)
        if len(ins) != len(outs):
            raise ValueError(f"{len(ins)} inputs but {len(outs)} outputs")
        return self._measure_serial(ins, outs, progress)

    def _measure_questions(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None,
        progress: bool,
    ) -> list[MetricResult]:
        """``measure_many`` of a metric whose ``measure`` takes ``question=``: the batch
        checked, then :meth:`_asked`."""
        if isinstance(inputs, str) or isinstance(outputs, str) or isinstance(questions, str):
            raise TypeError("inputs, outputs and questions must be sequences of texts, not str")
        ins, outs = list(inputs), list(outputs)
        qs: list[str | None] = [None] * len(outs) if questions is None else list(questions)
        if not len(ins) == len(outs) == len(qs):
            raise ValueError(f"{len(ins)} inputs, {len(outs)} outputs and {len(qs)} questions")
        return self._asked(ins, outs, qs, progress)

    def _asked(
        self,
        ins: list[str | Sequence[str]],
        outs: list[str],
        qs: list[str | None],
        progress: bool = False,
    ) -> list[MetricResult]:
        """``measure(input, output, question=...)`` on each triple, in this process (a batch's
        texts prepared first)."""
        self._prefetch(ins, outs + [q for q in qs if type(q) is str])
        triples: Iterable[tuple[str | Sequence[str], str, str | None]] = zip(
            ins, outs, qs, strict=True
        )
        if progress:
            from rich.progress import track

            triples = track(triples, total=len(ins), description=self.name)
        measure = self.measure
        return [measure(i, o, question=q) for i, o, q in triples]  # type: ignore[call-arg]

    def _measure_serial(
        self, ins: list[str | Sequence[str]], outs: list[str], progress: bool
    ) -> list[MetricResult]:
        """:meth:`measure_many` in this process."""
        self._prefetch(ins, outs)
        pairs: Iterable[tuple[str | Sequence[str], str]] = zip(ins, outs, strict=True)
        if progress:
            from rich.console import Console
            from rich.progress import track

            pairs = track(  # on standard error: standard output holds the results
                pairs, total=len(ins), description=f"{self.name}", console=Console(stderr=True)
            )
        results: list[MetricResult] = []
        append = results.append
        pair = self._measure_pair
        scale = self.scale
        threshold = self.threshold
        signature = self.signature
        for i, o in pairs:
            if type(i) is str and type(o) is str:  # the common case, without the checks' cost
                score, info = pair(i, o)
                if scale != 1.0:
                    score *= scale
                passed = None if threshold is None else score >= threshold
                append(new_result(score, info, passed, signature))
            else:
                append(self.measure(i, o))
        return results

    def _prefetch(self, inputs: list[str | Sequence[str]], outputs: list[str]) -> None:
        """Normalize a batch's distinct texts at once (the normalizer's batch path), so that
        scoring the pairs finds every text in its caches."""
        normalizer = getattr(self, "normalizer", None)
        prefetch = getattr(normalizer, "prefetch", None)
        if prefetch is None or len(outputs) < 2:
            return
        texts: dict[str, None] = {}
        for item in inputs:
            if type(item) is str:
                texts[item] = None
            elif isinstance(item, (list, tuple)):
                texts.update((t, None) for t in item if type(t) is str)
        texts.update((t, None) for t in outputs if type(t) is str)
        prefetch(list(texts))

    def _measure_pair(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """One reference and one output, both known to be ``str``."""
        return self._measure_refs([reference], output)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.signature}>"


# --------------------------------------------------------------------------------------------
# registry (filled as the metric modules are imported: the package lexeval.metrics imports
# them all before any of its modules, this one included)
# --------------------------------------------------------------------------------------------

_REGISTRY: dict[str, Callable[..., BaseMetric]] = {}
_ALIASES: dict[str, str] = {}
_ROUGE_N = re.compile(r"rouge([1-9][0-9]*)")


#: The modules that register lexeval's metrics when imported: the registry loads them on first
#: use (``import lexeval.metrics`` loads none of them).
METRIC_MODULES = (
    "lexeval.metrics.keyword",
    "lexeval.metrics.correctness",
    "lexeval.metrics.rouge",
    "lexeval.metrics.token_f1",
    "lexeval.metrics.nlp",
)


def _load_metric_modules() -> None:
    for module in METRIC_MODULES:
        importlib.import_module(module)


def register_metric(name: str, factory: Callable[..., BaseMetric], *aliases: str) -> None:
    """Make ``factory`` available as ``get_metric(name)`` (and under ``aliases``)."""
    _REGISTRY[name] = factory
    for alias in aliases:
        _ALIASES[alias] = name


def get_metric(name: str, **options: Any) -> BaseMetric:
    """A metric by name, configured with ``options``.

    ``rougeN`` works for any positive ``N`` (``"rouge3"``, or ``"rougeN"`` with ``n=3``).

    >>> get_metric("rouge2", compat="rouge-score").name
    'rouge2'
    >>> get_metric("token_f1", compat="squad").measure("Denver Broncos", "the Broncos").score
    0.6666666666666666
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, not {type(name).__name__}")
    _load_metric_modules()
    key = _ALIASES.get(name, name)
    if key in _REGISTRY:
        return _REGISTRY[key](**options)
    if _ROUGE_N.fullmatch(key):
        return _REGISTRY["rougeN"](n=int(key[5:]), **options)
    hint = " (the LLM judges: lexeval.get_metric)" if name.startswith("judge:") else ""
    raise ValueError(f"unknown metric {name!r}; known: {', '.join(list_metrics())}{hint}")


def known_metric(name: str) -> bool:
    """Whether :func:`get_metric` knows ``name`` (a name, an alias or ``rouge<n>``).

    >>> known_metric("rouge3"), known_metric("keywords"), known_metric("judge:correctness")
    (True, True, False)
    """
    _load_metric_modules()
    key = _ALIASES.get(name, name)
    return key in _REGISTRY or _ROUGE_N.fullmatch(key) is not None


def list_metrics() -> list[str]:
    """The registered metric names (``rougeN`` stands for any ``rouge<n>``; the LLM judges
    are in :func:`lexeval.registry.list_metrics`).

    >>> list_metrics()
    ['completeness', 'content_similarity', 'keyword_coverage', 'lexical_correctness', 'rouge1',
     'rouge2', 'rougeL', 'rougeLsum', 'rougeN', 'textual_difference', 'token_f1',
     'tone_consistency']
    """
    _load_metric_modules()
    return sorted(_REGISTRY)
