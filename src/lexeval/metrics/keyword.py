"""Keyword coverage: the share of the reference's keywords that the output contains.

* default: keywords from the lexeval normalizer (preset ``"default"``: lemmas, stopwords
  removed, compound terms as one key), matched leniently
  (:mod:`lexeval.metrics.keyword_lenient`) with the knobs of a task profile
  (:mod:`lexeval.metrics.keyword_tasks`): ``task="short_answer"``, ``"summary"``,
  ``"source_support"``, ``"long_answer"`` or ``"prompt"``; without a task, one is chosen per
  call from the texts (``info["task"]``). ``match="exact"`` compares keys only
  (:mod:`lexeval.metrics.keyword_exact`), ``fuzzy=True`` adds rapidfuzz matching of spelling
  variants there;
* ``compat="mastra"``: ``@mastra/evals`` ``KeywordCoverageMetric`` exactly;
* ``compat="mastra-scorer"``: ``@mastra/evals`` ``createKeywordCoverageScorer`` exactly
  (:mod:`lexeval.metrics.keyword_mastra`).

The constructor chooses the mode once (:mod:`lexeval.metrics.keyword_modes`: one interface,
one small class per mode); every call goes to it.

>>> m = KeywordCoverageMetric(compat="mastra")
>>> r = m.measure("The quick brown fox jumps over the lazy dog",
...               "A quick brown fox jumped over a lazy dog")
>>> r.score, r.info["matchedKeywords"], r.info["totalKeywords"], r.info["missing"]
(0.8333333333333334, 5, 6, ['jumps'])
>>> r = KeywordCoverageMetric().measure("Paris", "It is Paris.")
>>> r.info["task"], r.info["matched_keywords"], r.info["total_keywords"]
('short_answer', 1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from lexeval.checks import check_references, check_text
from lexeval.metrics.base import (
    BaseMetric,
    MetricResult,
    check_batch,
    check_scale,
    register_metric,
)
from lexeval.metrics.keyword_exact import ExactCoverage, ExplicitCoverage
from lexeval.metrics.keyword_lenient import NEAR_MIN, conflict_kind
from lexeval.metrics.keyword_mastra import Compat, MastraCoverage
from lexeval.metrics.keyword_modes import CoverageMode, LenientCoverage
from lexeval.metrics.keyword_tasks import AUTO_RULE, PROFILES, TASKS, Task, TaskProfile
from lexeval.metrics.weights import KeywordWeights
from lexeval.normalize import resolve_normalizer
from lexeval.text.base import TextProcessor, processor_language
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = ["KeywordCoverageMetric", "conflict_kind"]

Match = Literal["lenient", "exact"]
Weighting = Literal["frequency", "uniform"]

#: Pass thresholds of the short-answer profile, by weighting: the kappa-best threshold on
#: EVOUNA NQ (human correctness of QA answers), to 4 decimals
#: (``benchmarks/quality/keyword_defaults.py``).
RECOMMENDED_THRESHOLDS: dict[str, float] = {"frequency": 0.3797, "uniform": 0.3539}
#: The short-answer profile's tie-breaking terms (the recommended thresholds hold for these).
EXTRA_PENALTY = PROFILES["short_answer"].extra_penalty
NEAR_CREDIT = PROFILES["short_answer"].near_credit
CONFLICT_PENALTY = PROFILES["short_answer"].conflict_penalty
#: With a question, a reference keyword that the question names weighs this share of its
#: weight (tuned on EVOUNA NQ's develop half: an answer that echoes "river" from "which river
#: ..." has not shown that it knows "Mississippi River").
QUESTION_WEIGHT = PROFILES["short_answer"].question_weight
#: The knobs of lenient matching (a task profile's fields).
KNOBS = ("weighting", "extra_penalty", "near_credit", "conflict_penalty", "question_weight")


def _unit_number(value: float | None, name: str) -> float | None:
    """``value`` (None: not set) checked to be a number in [0, 1]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {value!r}")
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"{name} must be in [0, 1], not {value!r}")
    return float(value)


class KeywordCoverageMetric(BaseMetric):
    """Keyword coverage; ``info`` holds ``matched_keywords`` and ``total_keywords`` (Mastra's
    ``matchedKeywords`` and ``totalKeywords`` in the compat modes), the ``matched`` and
    ``missing`` keywords, both keyword lists, ``precision`` (share of the output's keywords
    found in the reference), ``recall`` (the coverage), ``fmeasure``, ``counts`` and, in the
    default lenient mode, the ``task`` whose profile scored it.

    ``task``: the family's profile of lenient matching (``docs/metrics.md`` says which to
    pick); None (the default) or ``"auto"`` chooses one per call by
    :func:`lexeval.metrics.keyword_tasks.choose_task`. ``weighting``, ``extra_penalty``,
    ``near_credit``, ``conflict_penalty`` and ``question_weight`` override the profile's
    values (every profile's, with ``task`` None). They apply to lenient matching only:
    with ``match="exact"`` or a ``compat`` mode they are a ``ValueError``.

    ``keywords=[...]`` gives the expected keywords instead of extracting them from ``input``
    (which is then ignored); ``fuzzy=True`` also accepts an output keyword whose rapidfuzz ratio
    with a missing keyword is at least ``fuzzy_threshold`` (keywords of at least
    ``fuzzy_min_length`` characters; exact matching and explicit keywords).

    Empty inputs: in compat modes Mastra's rules (metric: 1.0 when both texts are ``""``, else
    0.0 when the input has no keyword; scorer: 1.0 when the input has no keyword). Default
    mode: when the input has no keyword, 1.0 if the output has none either, else 0.0.
    """

    name = "keyword_coverage"

    def __init__(
        self,
        *,
        task: Task | Literal["auto"] | None = None,
        compat: Compat | None = None,
        normalizer: Normalizer | TextProcessor | str | None = None,
        keywords: Sequence[str] | None = None,
        fuzzy: bool = False,
        fuzzy_threshold: float = 85.0,
        fuzzy_min_length: int = 5,
        match: Match = "lenient",
        weighting: Weighting | None = None,
        extra_penalty: float | None = None,
        near_credit: float | None = None,
        conflict_penalty: float | None = None,
        question_weight: float | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(scale=check_scale(scale), threshold=threshold)
        if compat not in (None, "mastra", "mastra-scorer"):
            raise ValueError(f"compat must be None, 'mastra' or 'mastra-scorer', not {compat!r}")
        if task not in (None, "auto", *TASKS):
            raise ValueError(f"task must be None, 'auto' or one of {TASKS}, not {task!r}")
        if not isinstance(fuzzy, bool):
            raise TypeError(f"fuzzy must be bool, not {type(fuzzy).__name__}")
        if match not in ("lenient", "exact"):
            raise ValueError(f"match must be 'lenient' or 'exact', not {match!r}")
        if weighting not in (None, "frequency", "uniform"):
            raise ValueError(f"weighting must be 'frequency' or 'uniform', not {weighting!r}")
        if isinstance(fuzzy_threshold, bool) or not isinstance(fuzzy_threshold, (int, float)):
            raise TypeError(f"fuzzy_threshold must be a number, not {fuzzy_threshold!r}")
        if not 0.0 <= fuzzy_threshold <= 100.0:  # a rapidfuzz ratio; NaN fails too
            raise ValueError(f"fuzzy_threshold must be in [0, 100], not {fuzzy_threshold!r}")
        if isinstance(fuzzy_min_length, bool) or not isinstance(fuzzy_min_length, int):
            raise TypeError(f"fuzzy_min_length must be an int, not {fuzzy_min_length!r}")
        if fuzzy_min_length < 1:
            raise ValueError(f"fuzzy_min_length must be at least 1, not {fuzzy_min_length!r}")
        #: The knobs given explicitly (they override every profile).
        self.options: dict[str, Any] = {
            "weighting": weighting,
            "extra_penalty": _unit_number(extra_penalty, "extra_penalty"),
            "near_credit": _unit_number(near_credit, "near_credit"),
            "conflict_penalty": _unit_number(conflict_penalty, "conflict_penalty"),
            "question_weight": _unit_number(question_weight, "question_weight"),
        }
        self.options = {k: v for k, v in self.options.items() if v is not None}
        lenient_only = sorted(self.options) + (["task"] if task not in (None, "auto") else [])
        mode = f"compat={compat!r}" if compat is not None else "match='exact'"
        if (compat is not None or match == "exact") and lenient_only:
            raise ValueError(
                f"{', '.join(lenient_only)} set lenient matching's knobs: {mode} counts every "
                "keyword once, without weights or penalties"
            )
        if compat is not None and match != "lenient":
            raise ValueError(f"match cannot be combined with compat={compat!r}")
        self.compat = compat
        self.match: Match = match
        self.task: str | None = None if task == "auto" else task
        self.fuzzy = fuzzy
        self.fuzzy_threshold = float(fuzzy_threshold)
        self.fuzzy_min_length = fuzzy_min_length
        if keywords is not None:
            if isinstance(keywords, str) or not isinstance(keywords, Sequence):
                raise TypeError("keywords must be a list of str")
            for k in keywords:
                check_text(k, "keywords")
        self.keywords: tuple[str, ...] | None = None if keywords is None else tuple(keywords)
        mastra: MastraCoverage | None = None
        self.profiles: dict[str, TaskProfile] = {}
        self._weights: dict[str, KeywordWeights] = {}
        if compat is not None:
            if normalizer is not None:
                raise ValueError(f"normalizer cannot be combined with compat={compat!r}")
            if fuzzy:
                raise ValueError(f"fuzzy cannot be combined with compat={compat!r}")
            self.normalizer: TextProcessor | None = None
            mastra = MastraCoverage(compat)
            processor: TextProcessor = mastra.processor
        else:
            self.normalizer = processor = resolve_normalizer(normalizer, "default")
            if match == "lenient":
                tasks = TASKS if self.task is None else (self.task,)
                self.profiles = {t: PROFILES[t].with_options(**self.options) for t in tasks}
                language = processor_language(processor)
                self._weights = {
                    w: KeywordWeights(language, frequency=w == "frequency")
                    for w in {p.weighting for p in self.profiles.values()}
                }
        #: Each task's profile and weights (one look-up per call).
        self._scorers: dict[str, tuple[TaskProfile, KeywordWeights]] = {
            t: (p, self._weights[p.weighting]) for t, p in self.profiles.items()
        }
        self._exact = ExactCoverage(
            processor,
            fuzzy=fuzzy,
            fuzzy_threshold=self.fuzzy_threshold,
            fuzzy_min_length=fuzzy_min_length,
            mastra=compat is not None,
        )
        #: The mode, chosen once: explicit keywords, Mastra's, exact or lenient matching.
        self._mode: CoverageMode
        if self.keywords is not None:
            self._mode = ExplicitCoverage(self._exact, self.keywords)
        elif mastra is not None:
            self._mode = mastra
        elif match == "exact":
            self._mode = self._exact
        else:
            self._mode = LenientCoverage(processor, self.task, self._scorers)
        self._signature: str | None = None

    @property
    def profile(self) -> TaskProfile | None:
        """The profile of the chosen ``task`` (with the explicit knobs), None otherwise."""
        return None if self.task is None else self.profiles.get(self.task)

    @property
    def signature(self) -> str:
        if self._signature is None:  # built once: every result carries it
            self._signature = Signature.of(self._signature_parts())
        return self._signature

    def _signature_parts(self) -> list[str]:
        parts = [self.name, f"mode:{self.compat or 'default'}"]
        if self.compat is None:
            parts.append(f"match:{self.match}")
        if self.profiles:
            parts.append(AUTO_RULE if self.task is None else f"task:{self.task}")
            for task, profile in self.profiles.items():
                weights = self._weights[profile.weighting].signature
                label = "" if self.task is not None else f"{task}="
                parts.append(f"{label}{weights},{profile.signature},near>={NEAR_MIN:g}")
        elif self.compat is None:
            parts.append("weights:none,penalties:none")
        if self.fuzzy:
            parts.append(f"fuzzy:ratio>={self.fuzzy_threshold:g},len>={self.fuzzy_min_length}")
        else:
            parts.append("fuzzy:no")
        if self.keywords is not None:
            parts.append(f"keywords:{len(self.keywords)}")
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        parts.append(self._exact.processor.signature)
        return parts

    @property
    def recommended_threshold(self) -> float | None:
        """The pass threshold of the short-answer profile (lenient matching, no fuzzy, no
        compat, keywords from the reference, ``task`` None or ``"short_answer"``): the
        kappa-best threshold against human correctness labels of QA answers on EVOUNA NQ
        (``benchmarks/quality/keyword_defaults.py``), 0.3797 with ``weighting="frequency"`` (the
        default) and 0.3539 with ``"uniform"`` (both with the profile's ``extra_penalty``,
        ``near_credit``, ``conflict_penalty`` and ``question_weight``); None for other settings.

        >>> KeywordCoverageMetric().recommended_threshold, KeywordCoverageMetric(
        ...     compat="mastra").recommended_threshold
        (0.3797, None)
        """
        profile = self.profiles.get("short_answer")
        if profile is None or self.fuzzy or self.keywords is not None or self.scale != 1.0:
            return None
        if any(k != "weighting" for k in self.options):
            return None
        return RECOMMENDED_THRESHOLDS[profile.weighting]

    # ---- public extras ----------------------------------------------------------------------
    def measure_keywords(self, keywords: Sequence[str], output: str) -> MetricResult:
        """Coverage of an explicit list of expected ``keywords`` in ``output`` (exact matching
        of the keys, phrases as runs; ``fuzzy`` applies).

        >>> m = KeywordCoverageMetric(compat="mastra")
        >>> m.measure_keywords(["React", "hooks", "state"], "React state and props").info["missing"]
        ['hooks']
        """
        if isinstance(keywords, str) or not isinstance(keywords, (list, tuple)):
            raise TypeError("keywords must be a list of str")
        for k in keywords:
            check_text(k, "keywords")
        check_text(output, "output")
        score, info = self._exact.explicit(list(keywords), output)
        return self.make_result(score, info)

    # ---- with the question ------------------------------------------------------------------
    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: the best is kept).

        With a ``question`` (default lenient mode only; other modes ignore it), a reference
        keyword that the question names weighs ``question_weight`` times its weight
        (``info["echoed"]`` lists them): repeating the question's words is not knowing the
        answer. Without a ``task``, a question also says that long references are answers to
        it (``long_answer``).

        >>> m = KeywordCoverageMetric()
        >>> q = "Which river flows through Baghdad?"
        >>> round(m.measure("Tigris River", "the Euphrates River").score, 2)
        0.35
        >>> r = m.measure("Tigris River", "the Euphrates River", question=q)
        >>> round(r.score, 2), r.info["echoed"]
        (0.12, ['river'])
        >>> round(m.measure("Tigris River", "the Tigris", question=q).score, 2)
        0.88
        """
        # BaseMetric.measure's steps, without its frame
        if question is None and type(input) is str and type(output) is str:
            score, info = self._mode.score(input, output)  # one pair: no list of references
        else:
            if question is not None:
                check_text(question, "question")
            references = [input] if type(input) is str else check_references(input, "input")
            if type(output) is not str:
                check_text(output, "output")
            score, info = self._mode.score_references(references, output, question)
        return self.make_result(score, info)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score pairs in order, as :meth:`BaseMetric.measure_many`; ``questions`` (one per
        pair, or None for a pair without) as in :meth:`measure`."""
        ins, outs, qs = check_batch(inputs, outputs, questions)
        if qs is None or all(q is None for q in qs):
            return self._measure_serial(ins, outs, progress)
        return self._asked(ins, outs, qs, progress)

    # ---- scoring: the mode's ----------------------------------------------------------------
    def _measure_pair(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._mode.score(reference, output)

    def _measure_refs(self, references: list[str], output: str) -> tuple[float, dict[str, Any]]:
        return self._mode.score_references(references, output, None)

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._mode.score(reference, output)


def _make(**options: Any) -> KeywordCoverageMetric:
    return KeywordCoverageMetric(**options)


register_metric("keyword_coverage", _make, "keyword-coverage", "keywords")
