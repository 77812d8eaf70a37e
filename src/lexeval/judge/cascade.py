"""``Cascade``: the lexical metric decides the clear cases, and only an uncertain band goes to the
judge.

A lexical score below ``lo`` fails and one at or above ``hi`` passes on the lexical score alone;
the band ``lo <= score < hi`` goes to the judge, which may be *any* metric (an LLM judge, a
:class:`~lexeval.judge.recorded.RecordedJudge`, even another lexical metric with a threshold).
:meth:`Cascade.calibrate` picks the band on a tuning set with human labels for a budget (the
share of items the judge may see).

With a :class:`~lexeval.judge.router.UncertaintyRouter` (``router=``) the band applies to the
router's probability that people call the answer correct instead of the raw lexical score, so
the judge sees the answers the lexical evidence leaves most uncertain, wherever their lexical
score lies (a wrong answer naming the gold among three guesses scores 1.0, a paraphrase 0.0).
``calibrate(..., routing="auto")`` fits both on the tuning set and keeps the one whose cascade
agrees best with people there, by 5-fold cross-validation grouped by reference.

>>> from lexeval.judge.recorded import RecordedJudge
>>> from lexeval.metrics import TokenF1Metric
>>> judge = RecordedJudge({"the capital is Lyon": False, "Paris, of course": True})
>>> cascade = Cascade(lexical=TokenF1Metric(compat="squad"), judge=judge, band=(0.2, 0.6))
>>> results = cascade.measure_many(["Paris"] * 3, ["Paris", "Paris, of course", "Berlin"])
>>> [(r.info["tier"], r.passed) for r in results]
[('lexical', True), ('judge', True), ('lexical', False)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from lexeval.judge.router import UncertaintyRouter, router_features
from lexeval.metrics.base import Metric, MetricResult, check_batch

__all__ = ["ROUTINGS", "Band", "Cascade", "CascadeReport", "choose_band", "cross_validated_kappa"]

ROUTINGS = ("auto", "band", "uncertainty")


@dataclass(frozen=True)
class Band:
    """A calibrated band: ``lo``/``hi``, the share of tuning items inside it, the kappa the
    lexical metric alone reaches at its best threshold on the tuning set, and the kappa the
    cascade would reach there if the judge agreed with people on every item it sees (or with the
    judge's own tuning verdicts, when given: ``judge_labels``). Both kappas are in-sample.
    ``routing`` says what the band is on: ``"band"`` the lexical score, ``"uncertainty"`` the
    router's probability; ``cross_validated`` holds each routing's cross-validated cascade
    kappa on the tuning set when ``calibrate(routing="auto")`` chose between them;
    ``questions`` says whether the tuning items came with questions (given to the lexical metric,
    which reads them if it uses them)."""

    lo: float
    hi: float
    share: float
    lexical_threshold: float
    lexical_kappa: float
    cascade_kappa: float
    n: int
    judge_labels: bool
    routing: str = "band"
    cross_validated: dict[str, float] | None = None
    questions: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict."""
        return asdict(self)


def _kappa_from_counts(
    tp: npt.NDArray[np.float64], fp: npt.NDArray[np.float64], n: int, positives: int
) -> npt.NDArray[np.float64]:
    """Cohen's kappa of binary predictions against labels, from true and false positive counts
    (vectorized over candidate predictions)."""
    predicted = tp + fp
    agree = tp + (n - positives - fp)
    expected = (predicted * positives + (n - predicted) * (n - positives)) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (agree - expected) / (n - expected)
    return np.where(n - expected > 0, kappa, np.nan)


def choose_band(
    scores: Sequence[float],
    human: Sequence[bool],
    budget: float,
    judge: Sequence[bool] | None = None,
) -> Band:
    """The band ``[lo, hi)`` that holds at most ``budget`` of the items and gives the highest
    cascade kappa against ``human`` on these items.

    Inside the band the cascade takes the judge's verdicts: ``judge`` when given (the judge's
    verdicts on these items), else the human labels themselves (an upper bound: the band then
    goes where the lexical metric errs most). Outside it, ``score >= hi`` passes. Candidate
    bounds are the distinct scores; a band of width zero is the lexical metric alone at one
    threshold, so ``budget=0`` gives the kappa-best threshold. Ties go to the smaller share.

    >>> scores = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> human = [False, False, True, False, True, True]
    >>> alone = choose_band(scores, human, budget=0.0)  # the lexical metric alone: one error
    >>> alone.lo, alone.hi
    (0.4, 0.4)
    >>> band = choose_band(scores, human, budget=0.35)  # two items for the judge
    >>> band.lo, band.hi, band.share, band.lexical_kappa, band.cascade_kappa
    (0.4, 0.8, 0.3333333333333333, 0.6666666666666666, 1.0)
    """
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"budget must be between 0 and 1, not {budget!r}")
    s = np.asarray(scores, dtype=float)
    y = np.asarray(human, dtype=bool)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError(f"{s.size} scores but {y.size} human labels")
    if np.isnan(s).any():
        raise ValueError("scores must not hold NaN")
    j = y if judge is None else np.asarray(judge, dtype=bool)
    if j.shape != y.shape:
        raise ValueError(f"{j.size} judge verdicts for {y.size} items")
    n = int(s.size)
    positives = int(y.sum())
    if n == 0 or positives in (0, n):
        raise ValueError("calibration needs human labels of both classes")
    values, inverse = np.unique(s, return_inverse=True)
    k = values.size
    count = np.bincount(inverse, minlength=k).astype(float)
    pos = np.bincount(inverse, weights=y.astype(float), minlength=k)
    judge_pos = np.bincount(inverse, weights=j.astype(float), minlength=k)
    judge_tp = np.bincount(inverse, weights=(j & y).astype(float), minlength=k)
    # prefix sums over the sorted distinct values: index i covers values[:i]
    c_count = np.concatenate([[0.0], np.cumsum(count)])
    c_pos = np.concatenate([[0.0], np.cumsum(pos)])
    c_jpos = np.concatenate([[0.0], np.cumsum(judge_pos)])
    c_jtp = np.concatenate([[0.0], np.cumsum(judge_tp)])
    limit = budget * n + 1e-9
    best: tuple[float, float, int, int] | None = None  # (kappa, -share, lo index, hi index)
    lexical_best = (-math.inf, 0)
    for lo in range(k + 1):
        his = np.arange(lo, k + 1)
        inside = c_count[his] - c_count[lo]
        allowed = inside <= limit
        his = his[allowed]
        inside = inside[allowed]
        # above the band passes on the lexical score; inside it the judge decides
        above_count = c_count[k] - c_count[his]
        above_pos = c_pos[k] - c_pos[his]
        judged_pred = c_jpos[his] - c_jpos[lo]
        judged_tp = c_jtp[his] - c_jtp[lo]
        tp = above_pos + judged_tp
        fp = (above_count - above_pos) + (judged_pred - judged_tp)
        kappas = _kappa_from_counts(tp, fp, n, positives)
        if lo < k + 1 and his.size and his[0] == lo:
            lexical = kappas[0]
            if np.isfinite(lexical) and lexical > lexical_best[0]:
                lexical_best = (float(lexical), lo)
        for kappa, share, hi in zip(kappas, inside / n, his, strict=True):
            if not np.isfinite(kappa):
                continue
            key = (float(kappa), -float(share), lo, int(hi))
            if best is None or key[:2] > best[:2]:
                best = key
    if best is None:
        raise ValueError("no band gives a defined kappa on these items")
    kappa, neg_share, lo_index, hi_index = best

    def bound(index: int) -> float:
        return float(values[index]) if index < k else math.inf

    return Band(
        lo=bound(lo_index),
        hi=bound(hi_index),
        share=-neg_share,
        lexical_threshold=bound(lexical_best[1]),
        lexical_kappa=lexical_best[0],
        cascade_kappa=kappa,
        n=n,
        judge_labels=judge is not None,
    )


@dataclass(frozen=True)
class CascadeReport:
    """One run of a cascade: how many items, how many (and what share) went to the judge, the
    judge's tokens and parse errors, and with human labels Cohen's kappa overall and per tier
    (NaN where a tier saw no items or one class only)."""

    n: int
    judge_calls: int
    judge_share: float
    tokens: int
    parse_errors: int
    kappa: float | None = None
    kappa_lexical_tier: float | None = None
    kappa_judge_tier: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict."""
        return asdict(self)


class Cascade:
    """Lexical metric first, judge for the uncertain band ``[lo, hi)``.

    The band applies to the lexical score, or with ``router`` (a fitted
    :class:`~lexeval.judge.router.UncertaintyRouter`) to its probability that people call the
    answer correct, kept in ``info["routing_score"]``; outside the band an item passes when
    that score is at or above ``hi``.

    ``lexical`` and ``judge`` are any metrics (``measure(input, output) -> MetricResult``); the
    judge's ``passed`` is its verdict (a judge without one passes at ``score >= 0.5``). Each
    of the two that accepts ``question=`` gets the question (keyword coverage weighs the gold's
    words the question names less; a judge reads it): calibrate with the tuning set's questions
    when the cascade will see questions, so that the band fits the scores it applies to
    (``calibration.questions`` says whether it did). ``info["tier"]`` says who
    decided: ``"lexical"`` or ``"judge"``; ``info["lexical_score"]`` is always there and
    ``info["judge"]`` holds the judge's result for the band.
    """

    name = "cascade"

    def __init__(
        self,
        lexical: Metric,
        judge: Metric,
        band: tuple[float, float] | None = None,
        router: UncertaintyRouter | None = None,
    ) -> None:
        for metric, what in ((lexical, "lexical"), (judge, "judge")):
            if not callable(getattr(metric, "measure", None)):
                raise TypeError(f"{what} must be a metric (with measure()), not {metric!r}")
        self.lexical = lexical
        self.judge = judge
        if router is not None and not router.fitted:
            raise ValueError("the router is not fitted: call its fit() on a tuning set first")
        self.router = router
        self.band: tuple[float, float] | None = None
        self.calibration: Band | None = None
        if band is not None:
            lo, hi = (float(band[0]), float(band[1]))
            if math.isnan(lo) or math.isnan(hi) or lo > hi:
                raise ValueError(f"band must be (lo, hi) with lo <= hi, not {band!r}")
            self.band = (lo, hi)

    @property
    def signature(self) -> str:
        """Both metrics' signatures and the band."""
        band = "uncalibrated" if self.band is None else f"{self.band[0]:g}-{self.band[1]:g}"
        routing = "" if self.router is None else f"|routing:{self.router.signature}"
        return (
            f"cascade|band:{band}{routing}|lexical:{self.lexical.signature}"
            f"|judge:{self.judge.signature}"
        )

    def _checked_band(self) -> tuple[float, float]:
        if self.band is None:
            raise ValueError("the cascade has no band: pass band=(lo, hi) or call calibrate()")
        return self.band

    def _routing_scores(
        self, inputs: Sequence[str | Sequence[str]], outputs: Sequence[str], lexical: list[float]
    ) -> list[float]:
        if self.router is None:
            return lexical
        return self.router.probabilities(inputs, outputs, lexical)

    def _combine(
        self, lexical: MetricResult, routing: float, judged: MetricResult | None
    ) -> MetricResult:
        lo, hi = self._checked_band()
        info: dict[str, Any] = {"lexical_score": lexical.score, "band": [lo, hi]}
        if self.router is not None:
            info["routing_score"] = routing
        if judged is None:
            info["tier"] = "lexical"
            return MetricResult(lexical.score, info, routing >= hi, self.signature)
        info["tier"] = "judge"
        info["judge"] = judged.to_dict()
        if "parse_error" in judged.info:
            info["parse_error"] = judged.info["parse_error"]
            return MetricResult(math.nan, info, None, self.signature)
        passed = judged.passed if judged.passed is not None else judged.score >= 0.5
        return MetricResult(judged.score, info, bool(passed), self.signature)

    def _in_band(self, score: float) -> bool:
        lo, hi = self._checked_band()
        return lo <= score < hi

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """The lexical verdict, or the judge's for a score inside the band."""
        self._checked_band()
        lexical = self.lexical.measure(input, output, question)
        routing = self._routing_scores([input], [output], [lexical.score])[0]
        if not self._in_band(routing):
            return self._combine(lexical, routing, None)
        judged = self.judge.measure(input, output, question)
        return self._combine(lexical, routing, judged)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score a batch: the lexical metric on every pair, then one judge batch for the band."""
        self._checked_band()
        ins, outs, asked = check_batch(inputs, outputs, questions)
        qs: list[str | None] = [None] * len(outs) if asked is None else asked
        lexical = self.lexical.measure_many(ins, outs, qs, progress=progress)
        routing = self._routing_scores(ins, outs, [r.score for r in lexical])
        band = [i for i, s in enumerate(routing) if self._in_band(s)]
        judged: dict[int, MetricResult] = {}
        if band:
            found = self.judge.measure_many(
                [ins[i] for i in band], [outs[i] for i in band], [qs[i] for i in band]
            )
            judged = dict(zip(band, found, strict=True))
        return [
            self._combine(r, s, judged.get(i))
            for i, (r, s) in enumerate(zip(lexical, routing, strict=True))
        ]

    def calibrate(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        human: Iterable[bool],
        *,
        budget: float = 0.15,
        judge_verdicts: Sequence[bool] | None = None,
        routing: str = "auto",
        questions: Iterable[str | None] | None = None,
    ) -> Cascade:
        """A new cascade whose band sends at most ``budget`` of the tuning items to the judge,
        placed where it helps most (:func:`choose_band`) against the ``human`` labels.

        Without ``judge_verdicts`` (the judge's verdicts on the tuning items, when known) the
        band goes where the lexical metric disagrees with people most, which is where a good
        judge helps most; the judge is not called. ``routing="band"`` puts the band on the
        lexical score, ``"uncertainty"`` fits an :class:`~lexeval.judge.router.UncertaintyRouter`
        and puts it on its probability, ``"auto"`` (the default) keeps the one with the higher
        cross-validated cascade kappa on the tuning set (:func:`cross_validated_kappa`; the band
        on a tie), then refits it on the whole tuning set. ``questions`` (the tuning items'
        questions) go to a lexical metric that reads them, as :meth:`measure_many` will pass the
        held-out ones. Tune on a tuning set, report on held-out data (:meth:`report`).
        """
        if routing not in ROUTINGS:
            raise ValueError(f"routing must be one of {', '.join(ROUTINGS)}, not {routing!r}")
        ins = list(inputs)
        outs = list(outputs)
        labels = [bool(h) for h in human]
        qs = None if questions is None else list(questions)
        if not len(ins) == len(outs) == len(labels):
            raise ValueError(f"{len(ins)} inputs, {len(outs)} outputs and {len(labels)} labels")
        if qs is not None and len(qs) != len(ins):
            raise ValueError(f"{len(qs)} questions for {len(ins)} inputs")
        lexical = self.lexical.measure_many(ins, outs, qs)
        scores = [r.score for r in lexical]
        cross: dict[str, float] | None = None
        if routing == "auto":
            cross = {
                way: cross_validated_kappa(ins, outs, scores, labels, budget, way, judge_verdicts)
                for way in ("band", "uncertainty")
            }
            routing = "uncertainty" if cross["uncertainty"] > cross["band"] else "band"
        router = None
        routed = scores
        if routing == "uncertainty":
            router = UncertaintyRouter().fit(ins, outs, scores, labels)
            routed = router.probabilities(ins, outs, scores)
        chosen = choose_band(routed, labels, budget, judge_verdicts)
        asked = qs is not None and any(q is not None for q in qs)
        chosen = Band(
            **{**chosen.to_dict(), "routing": routing, "cross_validated": cross, "questions": asked}
        )
        calibrated = Cascade(self.lexical, self.judge, band=(chosen.lo, chosen.hi), router=router)
        calibrated.calibration = chosen
        return calibrated

    @staticmethod
    def report(
        results: Sequence[MetricResult], human: Sequence[bool] | None = None
    ) -> CascadeReport:
        """Share sent to the judge, tokens, parse errors and (with ``human``) kappa per tier.

        Items with a parse error are left out of the kappas and counted.
        """
        from lexeval.meta import cohen_kappa

        n = len(results)
        judged = [r for r in results if r.info.get("tier") == "judge"]
        tokens = 0
        for r in judged:
            usage = r.info.get("judge", {}).get("info", {}).get("usage", {})
            tokens += int(usage.get("total_tokens", 0)) if isinstance(usage, dict) else 0
        parse_errors = sum(1 for r in results if "parse_error" in r.info)
        report = CascadeReport(
            n=n,
            judge_calls=len(judged),
            judge_share=len(judged) / n if n else math.nan,
            tokens=tokens,
            parse_errors=parse_errors,
        )
        if human is None:
            return report
        if len(human) != n:
            raise ValueError(f"{len(human)} human labels for {n} results")

        def kappa(tier: str | None) -> float:
            pairs = [
                (bool(r.passed), bool(h))
                for r, h in zip(results, human, strict=True)
                if r.passed is not None and (tier is None or r.info.get("tier") == tier)
            ]
            if not pairs:
                return math.nan
            return float(cohen_kappa([p for p, _ in pairs], [h for _, h in pairs]))

        return CascadeReport(
            **{
                **report.to_dict(),
                "kappa": kappa(None),
                "kappa_lexical_tier": kappa("lexical"),
                "kappa_judge_tier": kappa("judge"),
            }
        )


def _folds(inputs: Sequence[str | Sequence[str]], n_splits: int) -> list[npt.NDArray[np.int64]]:
    """Item indices of ``n_splits`` folds; items with the same reference share a fold (a
    deterministic round robin over the references in order of first appearance)."""
    group: dict[str, int] = {}
    fold_of = np.empty(len(inputs), dtype=np.int64)
    for i, reference in enumerate(inputs):
        key = reference if isinstance(reference, str) else "\x1f".join(reference)
        fold_of[i] = group.setdefault(key, len(group)) % n_splits
    return [np.flatnonzero(fold_of == k) for k in range(n_splits)]


def cross_validated_kappa(
    inputs: Sequence[str | Sequence[str]],
    outputs: Sequence[str],
    lexical_scores: Sequence[float],
    human: Sequence[bool],
    budget: float,
    routing: str,
    judge: Sequence[bool] | None = None,
    n_splits: int = 5,
) -> float:
    """Cohen's kappa of a cascade against ``human``, pooled over ``n_splits`` folds grouped by
    reference: on each fold the band (and for ``routing="uncertainty"`` the router) is fitted on
    the other folds; inside the band the verdict is ``judge``'s (people's own when None). NaN
    when a fold cannot be fitted (one class only).

    >>> golds = ["Paris", "Rome", "Oslo", "Bern", "Kyiv", "Riga"] * 2
    >>> outs = ["Paris"] * 6 + ["Berlin"] * 6
    >>> human = [True] * 5 + [False] + [False] * 5 + [True]
    >>> round(cross_validated_kappa(golds, outs, [1.0] * 6 + [0.0] * 6, human, 0.0, "band"), 3)
    0.667
    """
    if routing not in ("band", "uncertainty"):
        raise ValueError(f"routing must be 'band' or 'uncertainty', not {routing!r}")
    s = np.asarray(lexical_scores, dtype=float)
    y = np.asarray([bool(h) for h in human])
    j = y if judge is None else np.asarray([bool(v) for v in judge])
    features = None
    if routing == "uncertainty":
        features = router_features(inputs, outputs, s.tolist())
    predicted = np.zeros(y.size, dtype=bool)
    for test in _folds(inputs, n_splits):
        train = np.setdiff1d(np.arange(y.size), test)
        if test.size == 0:
            continue
        if train.size == 0 or y[train].all() or not y[train].any():
            return math.nan
        routed_train, routed_test = s[train], s[test]
        if features is not None:
            router = UncertaintyRouter().fit_features(features[train], y[train].tolist())
            routed_train = np.asarray(router.predict_features(features[train]))
            routed_test = np.asarray(router.predict_features(features[test]))
        band = choose_band(routed_train.tolist(), y[train].tolist(), budget, j[train].tolist())
        inside = (routed_test >= band.lo) & (routed_test < band.hi)
        predicted[test] = np.where(inside, j[test], routed_test >= band.hi)
    from lexeval.meta import cohen_kappa

    return float(cohen_kappa(predicted.tolist(), y.tolist()))
