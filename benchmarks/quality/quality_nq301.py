"""Quality: Cohen's kappa with the human label on NQ301, judges and lexical scores side by side.

NQ301 (1,490 answers of 12 open-QA systems; Kamalloo et al. 2023) is held out. Rows:

- the recorded LLM judges and BEM (their Yes/No against ``Acceptable?`` of NQ301_human.tsv);
  published kappas GPT-4 .696, InstructGPT .675, BEM .616;
- annotator 1 against annotator 2 (published .735), on the rows both labelled;
- every lexeval score at ONE threshold, chosen with ``lexeval.meta.calibrate`` (kappa) on
  EVOUNA NQ and applied unchanged here; its ROC AUC beside it;
- ``lexeval.meta.compare``: the best lexical score against BEM, paired bootstrap of the kappa
  difference.

Every figure has a seeded 95% bootstrap interval (``lexeval.meta.agreement``).

Run: .venv/bin/python benchmarks/quality/quality_nq301.py [--resamples N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import load_evouna, load_nq301, scorers

from lexeval.meta import agreement, calibrate, cohen_kappa, compare

PUBLISHED = {
    "GPT-4": 0.696,
    "InstructGPT (text-davinci-003)": 0.675,
    "BEM": 0.616,
    "annotator 1 vs annotator 2": 0.735,
}


def _interval(interval: tuple[float, float]) -> str:
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    boot = {"n_resamples": args.resamples}
    start = time.perf_counter()
    nq301 = load_nq301()
    tuning = load_evouna("NQ")
    human = [i.human for i in nq301]
    print(f"NQ301: {len(nq301):,} answers, {sum(human):,} acceptable to people")
    header = f"{'':44s}{'kappa [95% CI]':>24s}{'accuracy':>10s}{'ROC AUC [95% CI]':>26s}"
    print(header + f"{'threshold':>11s}{'published':>11s}")

    for judge in ("GPT-4", "InstructGPT (text-davinci-003)", "BEM"):
        a = agreement([i.verdicts[judge] for i in nq301], human, threshold=0.5, **boot)
        print(
            f"{judge:44s}{a.kappa:>8.3f} {_interval(a.intervals['kappa']):>15s}"
            f"{a.accuracy:>10.3f}{'':>26s}{'Yes':>11s}{PUBLISHED[judge]:>11.3f}"
        )
    both = [i for i in nq301 if "annotator1" in i.verdicts]
    first = [i.verdicts["annotator1"] for i in both]
    second = [i.verdicts["annotator2"] for i in both]
    a = agreement(second, first, threshold=0.5, **boot)
    assert abs(a.kappa - cohen_kappa(first, second)) < 1e-12
    name = "annotator 1 vs annotator 2"
    print(
        f"{name:44s}{a.kappa:>8.3f} {_interval(a.intervals['kappa']):>15s}"
        f"{a.accuracy:>10.3f}{'':>26s}{'':>11s}{PUBLISHED[name]:>11.3f}"
        f"  ({len(both):,} rows)"
    )

    best: tuple[float, str, list[float], float] | None = None
    for metric_name, score in scorers().items():
        t = calibrate(score(tuning), [i.human for i in tuning], objective="kappa")
        scores = score(nq301)
        a = agreement(scores, human, threshold=t.value, **boot)
        print(
            f"{metric_name:44s}{a.kappa:>8.3f} {_interval(a.intervals['kappa']):>15s}"
            f"{a.accuracy:>10.3f}{a.auc:>10.3f} {_interval(a.intervals['auc']):>15s}"
            f"{t.value:>11.3f}{'':>11s}"
        )
        if best is None or a.kappa > best[0]:
            best = (a.kappa, metric_name, scores, t.value)
    assert best is not None
    _, best_name, best_scores, best_threshold = best
    bem = [float(i.verdicts["BEM"]) for i in nq301]
    c = compare(
        best_scores,
        bem,
        human,
        statistic="kappa",
        threshold_a=best_threshold,
        threshold_b=0.5,
        **boot,
    )
    print(f"compare kappa, {best_name} (A) vs BEM (B): {c}")
    print(
        f"thresholds chosen on EVOUNA NQ ({len(tuning):,} answers) only; intervals: "
        f"{args.resamples} bootstrap resamples, seed 12345; {time.perf_counter() - start:.0f} s, "
        f"load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
