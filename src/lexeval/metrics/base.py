"""The metric protocol: :class:`MetricResult`, :class:`Metric`, the shared base class and the
registry's table (:func:`register_metric`; :func:`lexeval.get_metric` and
:func:`lexeval.list_metrics` read it).

Every metric is configured in its constructor and measures one pair per call::

    metric.measure(input, output, question=None) -> MetricResult
    metric.measure_many(inputs, outputs, questions=None, *, progress=False)

``input`` is the reference (a ``str``, or a list of ``str`` meaning several references: the
best one is reported, like rouge-score's ``score_multi``: :func:`best_reference`); ``output`` is
the text under evaluation; ``question``, the question it answers, is read by the metrics that
use it and ignored by the others.

Every metric takes ``threshold=`` (default None): its results then carry ``passed``
(:func:`verdict`: ``score >= threshold``), and every result carries the metric's
``signature``.

>>> r = MetricResult(0.5, {"precision": 1.0})
>>> r.to_dict()
{'score': 0.5, 'passed': None, 'signature': None, 'info': {'precision': 1.0}}
"""

from __future__ import annotations

import copy
import importlib
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, Protocol, runtime_checkable

from lexeval.checks import check_references, check_text
from lexeval.metrics.evidence import check_evidence_limit
from lexeval.metrics.overlap import fmeasure

__all__ = [
    "BaseMetric",
    "Metric",
    "MetricResult",
    "best_reference",
    "check_batch",
    "fmeasure",
    "metric_factory",
    "new_result",
    "register_metric",
    "registered_metrics",
    "verdict",
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
    collector to walk.

    >>> new_result(0.5, {}, True, "sig") == MetricResult(0.5, {}, True, "sig")
    True
    """
    result = _new_object(MetricResult)
    _set_score(result, score)
    _set_info(result, info)
    _set_passed(result, passed)
    _set_signature(result, signature)
    return result


_new_object = object.__new__
#: The slots' setters (their member descriptors' ``__set__``).
_set_score, _set_info, _set_passed, _set_signature = (
    vars(MetricResult)[name].__set__ for name in ("score", "info", "passed", "signature")
)


@runtime_checkable
class Metric(Protocol):
    """What every lexeval metric offers."""

    name: str

    @property
    def signature(self) -> str:
        """Every setting that changes results, in one stable string."""
        ...

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against the reference(s) ``input`` (and the ``question`` it
        answers, for a metric that reads it)."""
        ...

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score a batch of pairs (one question per pair, or None)."""
        ...


def check_batch(
    inputs: Iterable[str | Sequence[str]],
    outputs: Iterable[str],
    questions: Iterable[str | None] | None = None,
) -> tuple[list[str | Sequence[str]], list[str], list[str | None] | None]:
    """A batch's columns as lists of the same length (``questions`` None stays None).

    >>> check_batch(["a"], ["b"], ["q?"])
    (['a'], ['b'], ['q?'])
    >>> check_batch(["a"], ["b", "c"])
    Traceback (most recent call last):
    ValueError: 1 inputs but 2 outputs
    """
    if isinstance(inputs, str) or isinstance(outputs, str) or isinstance(questions, str):
        raise TypeError("inputs, outputs and questions must be sequences of texts, not str")
    ins, outs = list(inputs), list(outputs)
    qs: list[str | None] | None = None if questions is None else list(questions)
    if qs is None:
        if len(ins) != len(outs):
            raise ValueError(f"{len(ins)} inputs but {len(outs)} outputs")
    elif not len(ins) == len(outs) == len(qs):
        raise ValueError(f"{len(ins)} inputs, {len(outs)} outputs and {len(qs)} questions")
    return ins, outs, qs


def best_reference(
    scored: Iterable[tuple[float, dict[str, Any]]],
    key: Callable[[float, dict[str, Any]], float] | None = None,
) -> tuple[float, dict[str, Any]]:
    """The best of each reference's ``(score, info)``: the first with the highest ``key``
    (default: the score), rouge-score's ``score_multi`` rule, the one every metric uses;
    ``info["reference_index"]`` says which when there are several.

    >>> best_reference([(0.5, {}), (0.75, {}), (0.75, {})])
    (0.75, {'reference_index': 1})
    """
    best: tuple[float, dict[str, Any]] | None = None
    best_key = 0.0
    best_index = count = 0
    for count, found in enumerate(scored, 1):
        found_key = found[0] if key is None else key(*found)
        if best is None or found_key > best_key:
            best, best_key, best_index = found, found_key, count - 1
    if best is None:
        raise ValueError("no reference to score")
    if count > 1:
        best[1]["reference_index"] = best_index
    return best


def verdict(score: float, threshold: float | None) -> bool | None:
    """The one pass rule: None without a ``threshold``, else ``score >= threshold``.

    >>> verdict(0.5, 0.5), verdict(0.4, 0.5), verdict(0.4, None)
    (True, False, None)
    """
    return None if threshold is None else score >= threshold


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
    #: How many matched and missing items a result lists: 0 lists none (ROUGE and token-F1
    #: unless their ``evidence_limit`` says otherwise; :meth:`with_evidence` asks for them),
    #: None for a metric that always lists its evidence.
    evidence_limit: int | None = None

    #: Whether the metric's corpus figure is not the mean of its sentence scores (BLEU, chrF,
    #: TER): ``lexeval score`` shows :meth:`corpus_of` in its summary, ``lexeval compare``
    #: bootstraps it.
    corpus_level: ClassVar[bool] = False
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
        return new_result(score, info, verdict(score, self.threshold), self.signature)

    def with_evidence(self, limit: int) -> BaseMetric:
        """This metric listing up to ``limit`` matched and missing items in every result: the
        one way to ask for evidence of a metric built without it (ROUGE and token-F1 list none
        unless ``evidence_limit=N`` is given: the lists cost most of a call). A metric that
        always lists its evidence (keyword coverage) or was given an ``evidence_limit`` is
        returned as it is; otherwise a copy with ``evidence_limit=limit`` (same scores).

        >>> from lexeval.metrics import RougeMetric
        >>> plain = RougeMetric("rouge1")
        >>> plain.with_evidence(20).measure("the cat sat", "the cat").info["missing"]
        ['sat']
        >>> "missing" in plain.measure("the cat sat", "the cat").info
        False
        """
        if self.evidence_limit != 0:
            return self
        shown = copy.copy(self)
        shown.evidence_limit = check_evidence_limit(limit)
        return shown

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
        best = best_reference(
            (self._score_prepared(ref, prepared) for ref in references), self._reference_key
        )
        self._finish_references(best[1], references, output)
        return best

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: the best is kept).

        ``question`` (the question ``output`` answers) is read by the metrics that use it
        (keyword coverage, lexical correctness, the LLM judges) and ignored by the others.
        """
        references = [input] if type(input) is str else check_references(input, "input")
        if type(output) is not str:
            check_text(output, "output")
        if question is not None:
            check_text(question, "question")
        score, info = self._measure_refs(references, output)
        return self.make_result(score, info)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score pairs in order, in this process; ``questions`` (one per pair, or None) as in
        :meth:`measure`; ``progress=True`` shows a rich progress bar.

        ``inputs``, ``outputs`` (and ``questions``) must have the same length (ValueError
        otherwise). To score on several processes: :func:`lexeval.run.measure_many`
        (``workers=``).
        """
        ins, outs, _ = check_batch(inputs, outputs, questions)
        return self._measure_serial(ins, outs, progress)

    def corpus_score(
        self, inputs: Sequence[str | Sequence[str]], outputs: Sequence[str]
    ) -> MetricResult:
        """The corpus figure of these pairs (:meth:`corpus_of` their results): the mean score
        by default, the corpus statistic for BLEU, chrF and TER (not a mean).

        >>> from lexeval.metrics import TokenF1Metric
        >>> r = TokenF1Metric(compat="set").corpus_score(["a b", "c"], ["a b", "d"])
        >>> r.score, r.info
        (0.5, {'n': 2, 'mean': 0.5})
        """
        return self.corpus_of(self.measure_many(inputs, outputs))

    def corpus_of(self, results: Sequence[MetricResult]) -> MetricResult:
        """The corpus figure of results this metric measured: by default their mean score
        (``info``: ``n``, ``mean``), with the verdict of ``threshold``."""
        if not results:
            raise ValueError("a corpus score needs at least one result")
        mean = math.fsum(r.score for r in results) / len(results)
        passed = None if self.threshold is None else mean >= self.threshold
        return new_result(mean, {"n": len(results), "mean": mean}, passed, self.signature)

    def _asked(
        self,
        ins: list[str | Sequence[str]],
        outs: list[str],
        qs: list[str | None],
        progress: bool = False,
    ) -> list[MetricResult]:
        """``measure(input, output, question)`` on each triple, in this process (a batch's
        texts prepared first): ``measure_many`` of a metric that reads questions."""
        self._prefetch(ins, outs + [q for q in qs if type(q) is str])
        triples: Iterable[tuple[str | Sequence[str], str, str | None]] = zip(
            ins, outs, qs, strict=True
        )
        if progress:
            from lexeval.io.progress import track_on_stderr

            triples = track_on_stderr(triples, total=len(ins), description=self.name)
        measure = self.measure
        return [measure(i, o, q) for i, o, q in triples]

    def _measure_serial(
        self, ins: list[str | Sequence[str]], outs: list[str], progress: bool
    ) -> list[MetricResult]:
        """:meth:`measure_many` in this process."""
        self._prefetch(ins, outs)
        pairs: Iterable[tuple[str | Sequence[str], str]] = zip(ins, outs, strict=True)
        if progress:
            from lexeval.io.progress import track_on_stderr

            pairs = track_on_stderr(pairs, total=len(ins), description=self.name)
        results: list[MetricResult] = []
        append = results.append
        pair = self._measure_pair
        make = self.make_result
        for i, o in pairs:
            if type(i) is str and type(o) is str:  # the common case, without the checks' cost
                append(make(*pair(i, o)))
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
    "lexeval.metrics.error_rate",
    "lexeval.metrics.exact_match",
    "lexeval.metrics.mt",
)


def _load_metric_modules() -> None:
    for module in METRIC_MODULES:
        importlib.import_module(module)


def register_metric(name: str, factory: Callable[..., BaseMetric], *aliases: str) -> None:
    """Make ``factory`` available as ``get_metric(name)`` (and under ``aliases``)."""
    _REGISTRY[name] = factory
    for alias in aliases:
        _ALIASES[alias] = name


def metric_factory(name: str) -> Callable[..., BaseMetric] | None:
    """The factory registered as ``name`` (a name, an alias, or ``rouge<n>``), None when there
    is none: :func:`lexeval.get_metric` looks metrics up here.

    >>> metric_factory("rouge3")(compat="rouge-score").name, metric_factory("bleu-9") is None
    ('rouge3', True)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, not {type(name).__name__}")
    _load_metric_modules()
    key = _ALIASES.get(name, name)
    factory = _REGISTRY.get(key)
    if factory is None and _ROUGE_N.fullmatch(key):
        return partial(_REGISTRY["rougeN"], n=int(key[5:]))
    return factory


def registered_metrics() -> list[str]:
    """The registered names, sorted (``rougeN`` stands for any ``rouge<n>``):
    :func:`lexeval.list_metrics`."""
    _load_metric_modules()
    return sorted(_REGISTRY)
