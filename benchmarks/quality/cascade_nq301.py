"""The lexical-first cascade on NQ301 against the HUMAN label, with recorded GPT-4 verdicts.

Tuning set: EVOUNA NQ (human correctness of 5 QA systems' answers). The lexical metric alone is
thresholded there (kappa-best, ``lexeval.meta.calibrate``); for each budget (5, 10, 15, 30% of
the answers) the cascade is calibrated there too (``Cascade.calibrate``; EVOUNA has no
recorded judge verdicts, so the band goes where the lexical metric disagrees with people most),
twice: ``routing="band"`` (one band on the lexical score) and ``routing="auto"`` (the default:
the band or the uncertainty router, whichever cross-validates better on EVOUNA NQ).

Held-out set: NQ301 (1,490 answers of 12 systems to 301 NQ questions). The human label is the
``Acceptable?`` column of ``NQ301_human.tsv``; the gold answers come from the aligned rows of
``NQ301_BEM.tsv`` (whose own ``Acceptable?`` is BEM's decision, never used). The judge replays
GPT-4's recorded verdicts (``RecordedJudge``; text-davinci-003's with ``--judge davinci``).
Reported per row: Cohen's kappa against people with a 95% bootstrap interval, the share of
answers sent to the judge, and for the cascades the paired difference in kappa from GPT-4 alone
(interval and p-value, ``lexeval.meta.compare``).

``--local-model PATH`` also measures a local GGUF judge (llama.cpp through ``LocalServer``, the
log-probability Yes/No mode, or with ``--local-mode justified`` a schema-constrained JSON verdict
after a justification) on a seeded sample of NQ301 (``--sample N``: the first N of a
seeded shuffle, so a larger sample extends a smaller one from the judge's disk cache), alone
and inside the 15% and 30% cascades: slow on a CPU, never part of ``make test``.
``--local-only`` skips the recorded-judge table.

The lexical metric reads each answer's question (tuning and held out alike: keyword coverage
weighs the gold's words the question names less); ``--question-weight 1`` turns that off, as
before the cascade passed questions to its lexical tier.

Run: .venv/bin/python benchmarks/quality/cascade_nq301.py [--lexical keyword|correctness|token_f1]
     [--question-weight W]
     [--judge gpt-4|davinci] [--local-model PATH --sample 200 --local-mode logprobs|justified]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import QAItem, load_evouna, load_nq301
from _shared import shared_path

from lexeval.judge import Cascade, CorrectnessJudge, LocalServer, RecordedJudge
from lexeval.judge.cascade import choose_band
from lexeval.meta import agreement, calibrate, compare
from lexeval.metrics import (
    KeywordCoverageMetric,
    LexicalCorrectnessMetric,
    MetricResult,
    TokenF1Metric,
)
from lexeval.metrics.base import BaseMetric

BUDGETS = [0.05, 0.10, 0.15, 0.30]
JUDGE_FILES = {"gpt-4": "NQ301_gpt-4.tsv", "davinci": "NQ301_text-davinci-003.tsv"}
N_RESAMPLES = 2000


def lexical_metric(name: str, question_weight: float | None) -> BaseMetric:
    if name == "correctness":
        return LexicalCorrectnessMetric()
    if name == "keyword":
        if question_weight is None:
            return KeywordCoverageMetric()
        return KeywordCoverageMetric(question_weight=question_weight)
    return TokenF1Metric(compat="squad")


def scored(metric: BaseMetric, items: list[QAItem]) -> list[MetricResult]:
    """``metric`` on every item, with its question when the metric reads one."""
    return metric.measure_many(
        [i.golds for i in items], [i.answer for i in items], [i.question for i in items]
    )


def passed_as_scores(results: list[MetricResult]) -> list[float]:
    return [1.0 if r.passed else 0.0 for r in results]


def fmt(a: float, interval: tuple[float, float]) -> str:
    return f"{a:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--lexical", choices=("keyword", "correctness", "token_f1"), default="keyword"
    )
    parser.add_argument("--judge", choices=tuple(JUDGE_FILES), default="gpt-4")
    parser.add_argument(
        "--question-weight",
        type=float,
        metavar="W",
        help="keyword coverage's question_weight (default: the metric's; 1: the question unread)",
    )
    parser.add_argument("--local-model", metavar="PATH")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--local-only", action="store_true")
    parser.add_argument("--local-mode", choices=("logprobs", "justified"), default="logprobs")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

    start = time.perf_counter()
    tuning = load_evouna("NQ")
    held_out = load_nq301()
    lexical = lexical_metric(args.lexical, args.question_weight)
    judge = RecordedJudge.from_openqa_eval(
        shared_path("data", "qa_human", "openqa_eval", JUDGE_FILES[args.judge])
    )
    human = [i.human for i in held_out]
    tuning_scores = [r.score for r in scored(lexical, tuning)]
    held_scores = [r.score for r in scored(lexical, held_out)]
    print(f"lexical: {lexical.signature}")
    print(f"judge: {judge.signature} (recorded verdicts)")
    print(
        f"tuning: EVOUNA NQ, {len(tuning)} answers; held out: NQ301, {len(held_out)} answers, "
        f"human label = Acceptable? of NQ301_human.tsv ({sum(human)} yes)"
    )
    print(f"kappa: 95% percentile bootstrap over answers, {N_RESAMPLES} resamples, seed 12345")
    print()

    threshold = calibrate(tuning_scores, [i.human for i in tuning], objective="kappa")
    if args.local_model and args.local_only:
        local_sample(args, held_out, held_scores, threshold.value, lexical, tuning)
        return
    lexical_alone = agreement(
        held_scores, human, threshold=threshold.value, n_resamples=N_RESAMPLES
    )
    judge_results = judge.measure_many(
        [i.golds for i in held_out],
        [i.answer for i in held_out],
        questions=[i.question for i in held_out],
    )
    judge_scores = passed_as_scores(judge_results)
    judge_alone = agreement(judge_scores, human, threshold=0.5, n_resamples=N_RESAMPLES)

    rows = [
        ("lexical alone", f"t={threshold.value:.3f}", lexical_alone, 0.0, None),
        (f"{args.judge} alone", "", judge_alone, 1.0, None),
    ]
    base = Cascade(lexical=lexical, judge=judge)
    for budget, routing in [(b, r) for b in BUDGETS for r in ("band", "auto")]:
        cascade = base.calibrate(
            [i.golds for i in tuning],
            [i.answer for i in tuning],
            [i.human for i in tuning],
            budget=budget,
            routing=routing,
            questions=[i.question for i in tuning],
        )
        results = cascade.measure_many(
            [i.golds for i in held_out],
            [i.answer for i in held_out],
            questions=[i.question for i in held_out],
        )
        report = cascade.report(results, human)
        scores = passed_as_scores(results)
        figures = agreement(scores, human, threshold=0.5, n_resamples=N_RESAMPLES)
        versus = compare(
            scores,
            judge_scores,
            human,
            statistic="kappa",
            threshold_a=0.5,
            threshold_b=0.5,
            n_resamples=N_RESAMPLES,
        )
        assert cascade.band is not None and cascade.calibration is not None
        lo, hi = cascade.band
        chosen = cascade.calibration
        on = "P(correct)" if chosen.routing == "uncertainty" else "lexical"
        band = f"{on} in [{lo:.3f}, {hi:.3f}) tuning {chosen.share:.1%}"
        if chosen.cross_validated is not None:
            cv = chosen.cross_validated
            band += f"; tuning CV kappa band {cv['band']:.3f} router {cv['uncertainty']:.3f}"
        name = f"cascade {budget:.0%} {routing}"
        rows.append((name, band, figures, report.judge_share, versus))

    print(f"{'':20s} {'kappa vs human [95% CI]':28s} {'judged':>7s}  {'vs judge alone':32s} band")
    for name, note, figures, share, versus in rows:
        diff = ""
        if versus is not None:
            low, high = versus.interval
            diff = f"{versus.difference:+.3f} [{low:+.3f}, {high:+.3f}] p={versus.p_value:.2f}"
        print(
            f"{name:20s} {fmt(figures.kappa, figures.intervals['kappa']):28s} {share:7.1%}  "
            f"{diff:32s} {note}"
        )
    ceiling = choose_band(held_scores, human, max(BUDGETS), [bool(v) for v in judge_scores])
    print(
        f"\nceiling, in hindsight (in-sample on NQ301, not a result): the best band with at most "
        f"{max(BUDGETS):.0%} judged, chosen with {args.judge}'s verdicts and NQ301's labels, "
        f"[{ceiling.lo:.3f}, {ceiling.hi:.3f}) judges {ceiling.share:.1%} for kappa "
        f"{ceiling.cascade_kappa:.3f}"
    )
    print(f"{time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.2f}")

    if args.local_model:
        local_sample(args, held_out, held_scores, threshold.value, lexical, tuning)


def local_sample(
    args: argparse.Namespace,
    held_out: list[QAItem],
    held_scores: list[float],
    threshold: float,
    lexical: BaseMetric,
    tuning: list[QAItem],
) -> None:
    """A local GGUF judge (``--local-mode``) on a seeded sample of NQ301: the first
    ``--sample`` answers of a seeded shuffle, so a larger sample extends a smaller one (and
    replays it from the judge's disk cache)."""
    order = list(range(len(held_out)))
    random.Random(12345).shuffle(order)
    rows = sorted(order[: min(args.sample, len(held_out))])
    sample = [held_out[i] for i in rows]
    human = [i.human for i in sample]
    start = time.perf_counter()
    with LocalServer(args.local_model, n_threads=1, parallel=1, cache=True) as backend:
        judge = CorrectnessJudge(backend, mode=args.local_mode)
        results = judge.measure_many(
            [i.golds for i in sample],
            [i.answer for i in sample],
            questions=[i.question for i in sample],
        )
        elapsed = time.perf_counter() - start
        readable = [(r, h) for r, h in zip(results, human, strict=True) if r.passed is not None]
        alone = agreement(
            [r.score for r, _ in readable],
            [h for _, h in readable],
            threshold=0.5,
            n_resamples=N_RESAMPLES,
        )
        print(
            f"\nlocal judge {backend.signature}, {args.local_mode} mode, {len(sample)}-answer "
            f"seeded sample of NQ301 ({len(sample) - len(readable)} unreadable), "
            f"{elapsed / len(sample):.2f} s per answer including cached ones "
            f"({backend.usage.requests} requests; load average "
            f"{os.getloadavg()[0]:.2f})"
        )
        print(
            f"  alone at P(correct) >= 0.5: kappa {fmt(alone.kappa, alone.intervals['kappa'])}, "
            f"AUC {fmt(alone.auc, alone.intervals['auc'])}"
        )
        lexical_figures = agreement(
            [held_scores[i] for i in rows], human, threshold=threshold, n_resamples=N_RESAMPLES
        )
        print(
            f"  lexical alone on the same sample: kappa "
            f"{fmt(lexical_figures.kappa, lexical_figures.intervals['kappa'])}"
        )
        local = Cascade(lexical=lexical, judge=judge)
        for budget, routing in [(b, r) for b in (0.15, 0.30) for r in ("band", "auto")]:
            cascade = local.calibrate(
                [i.golds for i in tuning],
                [i.answer for i in tuning],
                [i.human for i in tuning],
                budget=budget,
                routing=routing,
                questions=[i.question for i in tuning],
            )
            cascaded = cascade.measure_many(
                [i.golds for i in sample],
                [i.answer for i in sample],
                questions=[i.question for i in sample],
            )
            report = cascade.report(cascaded, human)
            figures = agreement(
                passed_as_scores(cascaded), human, threshold=0.5, n_resamples=N_RESAMPLES
            )
            assert cascade.calibration is not None
            print(
                f"  cascade {budget:.0%} {routing} (routing {cascade.calibration.routing}) with "
                f"it: kappa {fmt(figures.kappa, figures.intervals['kappa'])}, judged "
                f"{report.judge_share:.1%}"
            )


if __name__ == "__main__":
    main()
