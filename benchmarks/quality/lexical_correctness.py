"""``lexical_correctness``: fit its model on EVOUNA NQ (the tuning set) and measure it against
the HUMAN labels, beside default keyword coverage (both reading each answer's question).

- ``--fit`` refits the shipped model on all of EVOUNA NQ (StandardScaler + scikit-learn's
  LogisticRegression, C=1; the threshold is the kappa-best one there, ``lexeval.meta.calibrate``)
  and writes ``src/lexeval/data/lexical_correctness_en.json``; without it the script checks
  that a refit reproduces the shipped file.
- Confirm half: a model fitted on the develop half of EVOUNA NQ's questions only (the split of
  ``keyword_defaults.py --halves``), measured on the confirm half (7,555 answers).
- Held out, never tuned on: EVOUNA TQ and NQ301 (the ``Acceptable?`` column of
  ``NQ301_human.tsv``), with the shipped model and its threshold.

Per set: ROC AUC and Cohen's kappa at the threshold from EVOUNA NQ with 95% bootstrap intervals
(2,000 resamples), and the paired difference from keyword coverage (``lexeval.meta.compare``).

``--ceiling`` (hindsight, not a result) fits the same features on NQ301 itself: a logistic
model and scikit-learn's gradient boosting, by 5-fold cross-validation grouped by question, the
logistic one in-sample too, and gradient boosting fitted on EVOUNA NQ: how far these lexical
signals can rank NQ301's answers at all.

``--speed`` only times both metrics on NQ301's 1,490 answers with their questions (CPU time
of ``measure_many``, cold then warm, in this process) and prints the ratio and the load average.

Run: .venv/bin/python benchmarks/quality/lexical_correctness.py [--fit | --ceiling | --speed]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import QAItem, load_evouna, load_nq301
from keyword_defaults import split_questions

from lexeval.meta import agreement, calibrate, compare
from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.correctness import (
    FEATURES,
    MODEL_FILE,
    LexicalCorrectnessMetric,
    LexicalModel,
    load_model,
)

N_RESAMPLES = 2000
MODEL_PATH = Path(__file__).resolve().parents[2] / "src" / "lexeval" / "data" / MODEL_FILE
TRAINED_ON = "EVOUNA NQ human correctness labels (15,098 answers of 5 QA systems)"


def feature_rows(items: list[QAItem]) -> npt.NDArray[np.float64]:
    """:meth:`LexicalCorrectnessMetric.features` of every item, with its question."""
    blank = LexicalModel(
        [0.0] * len(FEATURES), [1.0] * len(FEATURES), [0.0] * len(FEATURES), 0.0, 0.5
    )
    metric = LexicalCorrectnessMetric(model=blank)
    return np.asarray(
        [metric.features(i.golds, i.answer, i.question)[0] for i in items], dtype=float
    )


def fit(
    rows: npt.NDArray[np.float64], human: list[bool], trained_on: str = TRAINED_ON
) -> LexicalModel:
    """The logistic model of ``human`` on ``rows``, its threshold kappa-best on them."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(rows)
    logistic = LogisticRegression(C=1.0, max_iter=3000).fit(scaler.transform(rows), human)
    model = LexicalModel(
        scaler.mean_.tolist(),
        scaler.scale_.tolist(),
        logistic.coef_.ravel().tolist(),
        float(logistic.intercept_[0]),
        0.5,
        trained_on,
    )
    probabilities = [model.probability(row) for row in rows]
    threshold = calibrate(probabilities, human, objective="kappa").value
    return LexicalModel.from_dict({**model.to_dict(), "threshold": round(threshold, 6)})


def report(
    name: str, model: LexicalModel, rows: npt.NDArray[np.float64], items: list[QAItem]
) -> None:
    """AUC and kappa of the model and of keyword coverage on ``items``, and their difference."""
    human = [i.human for i in items]
    ours = [model.probability(row) for row in rows]
    coverage = [
        r.score
        for r in KeywordCoverageMetric().measure_many(
            [i.golds for i in items],
            [i.answer for i in items],
            questions=[i.question for i in items],
        )
    ]
    kc_threshold = KeywordCoverageMetric().recommended_threshold
    assert kc_threshold is not None
    a = agreement(ours, human, threshold=model.threshold, n_resamples=N_RESAMPLES)
    b = agreement(coverage, human, threshold=kc_threshold, n_resamples=N_RESAMPLES)
    print(f"{name} ({len(items)} answers, {sum(human)} correct by people)")
    for label, figures in (("lexical_correctness", a), ("keyword_coverage", b)):
        auc, kappa = figures.intervals["auc"], figures.intervals["kappa"]
        print(
            f"  {label:20s} AUC {figures.auc:.3f} [{auc[0]:.3f}, {auc[1]:.3f}]  kappa "
            f"{figures.kappa:.3f} [{kappa[0]:.3f}, {kappa[1]:.3f}]"
        )
    for statistic in ("auc", "kappa"):
        diff = compare(
            ours,
            coverage,
            human,
            statistic=statistic,
            threshold_a=model.threshold,
            threshold_b=kc_threshold,
            n_resamples=N_RESAMPLES,
        )
        low, high = diff.interval
        print(f"  difference in {statistic}: {diff.difference:+.3f} [{low:+.3f}, {high:+.3f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="refit and write the shipped model")
    parser.add_argument("--speed", action="store_true", help="only time both metrics on NQ301")
    parser.add_argument("--ceiling", action="store_true", help="only the hindsight fits on NQ301")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if args.speed:
        speed(load_nq301())
        return
    if args.ceiling:
        ceiling(load_evouna("NQ"), load_nq301())
        return
    start = time.perf_counter()

    tuning = load_evouna("NQ")
    rows = feature_rows(tuning)
    human = [i.human for i in tuning]
    model = fit(rows, human)
    if args.fit:
        MODEL_PATH.write_text(json.dumps(model.to_dict(), indent=1) + "\n", encoding="utf-8")
        load_model.cache_clear()
        print(f"wrote {MODEL_PATH} (model {model.digest}, threshold {model.threshold})")
    shipped = load_model()
    same = np.allclose(model.coef, shipped.coef, atol=1e-6) and math.isclose(
        model.threshold, shipped.threshold, abs_tol=1e-6
    )
    print(f"refit on EVOUNA NQ reproduces the shipped model {shipped.digest}: {same}")
    print(f"threshold (kappa-best on EVOUNA NQ): {shipped.threshold}")
    print("coefficients (standardized):")
    order = np.argsort(-np.abs(shipped.coef))
    print("  " + ", ".join(f"{FEATURES[k]} {shipped.coef[k]:+.3f}" for k in order))
    print()

    develop, confirm = split_questions(tuning)
    half = fit(rows[develop], [human[i] for i in develop], "EVOUNA NQ develop half")
    report(
        f"EVOUNA NQ confirm half, model fitted on the develop half (threshold {half.threshold})",
        half,
        rows[confirm],
        [tuning[i] for i in confirm],
    )
    for name, items in (("EVOUNA TQ (held out)", load_evouna("TQ")), ("NQ301 (held out)", None)):
        held = load_nq301() if items is None else items
        report(name, shipped, feature_rows(held), held)
    print(f"{time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.2f}")


def ceiling(tuning: list[QAItem], held: list[QAItem]) -> None:
    """AUC on ``held`` of models fitted on ``held`` itself (cross-validated over questions, and
    in-sample) and of gradient boosting fitted on ``tuning``: in hindsight, not results."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rows = feature_rows(held)
    human = [i.human for i in held]
    groups = [i.question for i in held]

    def logistic() -> Any:
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=3000))

    def boosting() -> Any:
        return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=0)

    def show(label: str, probabilities: Any) -> None:
        figures = agreement(list(map(float, probabilities)), human, n_resamples=N_RESAMPLES)
        low, high = figures.intervals["auc"]
        print(f"  {label:58s} AUC {figures.auc:.4f} [{low:.4f}, {high:.4f}]")

    print(f"in hindsight on NQ301 ({len(held)} answers; not results):")
    for name, make in (("logistic", logistic), ("gradient boosting", boosting)):
        cv = GroupKFold(n_splits=5)
        predicted = cross_val_predict(
            make(), rows, human, cv=cv, groups=groups, method="predict_proba"
        )[:, 1]
        show(f"{name}, 5-fold cross-validation over NQ301's questions", predicted)
    show(
        "logistic, fitted and measured on all of NQ301",
        logistic().fit(rows, human).predict_proba(rows)[:, 1],
    )
    tuning_rows = feature_rows(tuning)
    fitted = boosting().fit(tuning_rows, [i.human for i in tuning])
    show("gradient boosting fitted on EVOUNA NQ", fitted.predict_proba(rows)[:, 1])


def speed(items: list[QAItem]) -> None:
    """CPU seconds of each metric's ``measure_many`` on ``items`` with their questions: a
    first run on a new metric (cold), then a second on the same one (warm caches)."""
    golds = [i.golds for i in items]
    answers = [i.answer for i in items]
    questions = [i.question for i in items]
    figures: dict[str, list[float]] = {}
    for name, metric in (
        ("keyword_coverage", KeywordCoverageMetric()),
        ("lexical_correctness", LexicalCorrectnessMetric()),
    ):
        for _ in range(2):
            start = time.process_time()
            metric.measure_many(golds, answers, questions=questions)
            figures.setdefault(name, []).append(time.process_time() - start)
    for name, (cold, warm) in figures.items():
        print(
            f"{name:20s} cold {cold:.2f} s ({1000 * cold / len(items):.2f} ms per answer), "
            f"warm {warm:.2f} s ({1000 * warm / len(items):.2f} ms per answer)"
        )
    kc, ours = figures["keyword_coverage"], figures["lexical_correctness"]
    print(
        f"lexical_correctness / keyword_coverage CPU time: cold {ours[0] / kc[0]:.2f}x, warm "
        f"{ours[1] / kc[1]:.2f}x; {len(items)} NQ301 answers; load average "
        f"{os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
