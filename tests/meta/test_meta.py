"""lexeval.meta against scikit-learn and scipy computed directly, plus its error messages.

Bootstraps use few resamples here (speed); their equivalence with resampled rows is checked
directly on single resamples.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    precision_score,
    recall_score,
    roc_auc_score,
)

from lexeval.meta import (
    agreement,
    calibrate,
    cohen_kappa,
    compare,
    correlation,
    pairwise_agreement,
    position_consistency,
)
from lexeval.meta.binary import BinaryTable
from lexeval.meta.correlation import CorrelationPlan

FAST = {"n_resamples": 40}


def _binary_data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = (rng.random(n) < 0.45).astype(int)
    scores = np.round(np.clip(0.35 * human + 0.7 * rng.random(n), 0, 1), 2)
    return scores, human


# ---------------------------------------------------------------- agreement / calibrate


def test_agreement_figures_equal_sklearn() -> None:
    scores, human = _binary_data()
    a = agreement(scores, human, threshold=0.5, **FAST)
    predicted = scores >= 0.5
    assert a.auc == pytest.approx(roc_auc_score(human, scores))
    assert a.kappa == pytest.approx(cohen_kappa_score(human, predicted))
    assert a.accuracy == pytest.approx(accuracy_score(human, predicted))
    assert a.precision == pytest.approx(precision_score(human, predicted))
    assert a.recall == pytest.approx(recall_score(human, predicted))
    assert a.f1 == pytest.approx(f1_score(human, predicted))
    tn, fp, fn, tp = confusion_matrix(human, predicted).ravel()
    assert a.confusion == {"tn": tn, "fp": fp, "fn": fn, "tp": tp}
    assert (a.n, a.threshold, a.threshold_in_sample, a.seed) == (300, 0.5, False, 12345)


def test_weighted_table_equals_the_resampled_rows() -> None:
    """The bootstrap's shortcut (weights over distinct pairs) gives sklearn's figures on the
    rows it stands for."""
    scores, human = _binary_data(seed=3)
    table = BinaryTable(scores, human)
    rng = np.random.default_rng(9)
    for _ in range(3):
        rows = rng.integers(0, scores.size, scores.size)
        s, y = scores[rows], human[rows]
        w = table.weights(rows)
        assert table.auc(w) == pytest.approx(roc_auc_score(y, s))
        figures = table.at_threshold(w, 0.45)
        assert figures["kappa"] == pytest.approx(cohen_kappa_score(y, s >= 0.45))
        assert figures["accuracy"] == pytest.approx(accuracy_score(y, s >= 0.45))
        assert figures["f1"] == pytest.approx(f1_score(y, s >= 0.45))
        assert table.objective(w, 0.45, "kappa") == pytest.approx(figures["kappa"])


@pytest.mark.parametrize(
    ("objective", "score_fn"),
    [("kappa", cohen_kappa_score), ("accuracy", accuracy_score), ("f1", f1_score)],
)
def test_calibrate_maximises_the_objective(objective: str, score_fn: object) -> None:
    scores, human = _binary_data(n=200, seed=5)
    t = calibrate(scores, human, objective=objective)  # type: ignore[arg-type]
    by_threshold = {float(c): score_fn(human, scores >= c) for c in np.unique(scores)}  # type: ignore[operator]
    best = max(by_threshold.values())
    assert t.in_sample_score == pytest.approx(best)
    assert t.value == min(c for c, v in by_threshold.items() if v == pytest.approx(best))
    assert (t.objective, t.n) == (objective, 200)


def test_agreement_without_threshold_is_in_sample() -> None:
    scores, human = _binary_data(seed=2)
    a = agreement(scores, human, **FAST)
    t = calibrate(scores, human)
    assert a.threshold == t.value and a.threshold_in_sample
    assert a.kappa == pytest.approx(t.in_sample_score)
    assert "in-sample" in str(a)


def test_intervals_are_seeded_and_recorded() -> None:
    scores, human = _binary_data()
    a = agreement(scores, human, threshold=0.5, seed=7, **FAST)
    b = agreement(scores, human, threshold=0.5, seed=7, **FAST)
    c = agreement(scores, human, threshold=0.5, seed=8, **FAST)
    assert a.intervals == b.intervals and a.intervals != c.intervals
    assert set(a.intervals) == {"auc", "kappa", "accuracy", "precision", "recall", "f1"}
    for name, (low, high) in a.intervals.items():
        assert low <= getattr(a, name) <= high, name
    data = json.loads(json.dumps(a.to_dict()))
    assert data["seed"] == 7 and data["n_resamples"] == 40
    assert data["intervals"]["kappa"] == list(a.intervals["kappa"])
    text = str(a)
    assert "\n" not in text and text.startswith("auc ") and "n=300, t=0.5" in text


def test_boolean_scores_are_judge_verdicts() -> None:
    verdicts = [True, False, True, True, False, False]
    human = [1, 0, 1, 0, 0, 1]
    a = agreement(verdicts, human, threshold=0.5, **FAST)
    assert a.kappa == pytest.approx(cohen_kappa_score(human, verdicts))


@pytest.mark.parametrize(
    ("scores", "human", "message"),
    [
        ([0.1, 0.2, 0.3], [1, 0], "scores has 3 rows but human has 2; row 2 has no partner"),
        ([0.1, float("nan"), 0.3], [1, 0, 1], "scores[1] is nan, not a finite number"),
        ([0.1, "0.2", 0.3], [1, 0, 1], "scores[1] is '0.2', not a finite number"),
        ([0.1, 0.2, 0.3], [1, "no", 1], "human[1] is 'no', not a binary label"),
        ([0.1, 0.2, 0.3], [1, 0, 2], "human[2] is 2, not a binary label"),
        ([0.1, 0.2, 0.3], [0, 0, 0], "human has a single class (0 on all 3 rows)"),
        ([], [], "scores is empty"),
    ],
)
def test_agreement_bad_input(scores: list[object], human: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        agreement(scores, human, **FAST)


def test_calibrate_and_agreement_reject_bad_options() -> None:
    with pytest.raises(ValueError, match="objective must be one of"):
        calibrate([0.1, 0.9], [0, 1], objective="auc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_resamples must be a positive int"):
        agreement([0.1, 0.9], [0, 1], n_resamples=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        agreement([0.1, 0.9], [0, 1], seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threshold\\[0\\] is nan"):
        agreement([0.1, 0.9], [0, 1], threshold=float("nan"))


# ---------------------------------------------------------------- cohen_kappa


def test_cohen_kappa_equals_sklearn() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(1, 6, 120).tolist()
    b = [min(5, max(1, x + int(rng.integers(-1, 2)))) for x in a]
    scale = [1, 2, 3, 4, 5]
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    for weights in ("linear", "quadratic"):
        expected = cohen_kappa_score(a, b, weights=weights, labels=scale)
        assert cohen_kappa(a, b, weights=weights, labels=scale) == pytest.approx(expected)  # type: ignore[arg-type]


def test_weighted_kappa_uses_the_whole_scale() -> None:
    """The pitfall: ratings 1, 2, 5 without the scale are weighted as positions 0, 1, 2."""
    a, b = [1, 2, 5, 5, 1], [2, 2, 5, 1, 1]
    with_scale = cohen_kappa(a, b, weights="linear", labels=[1, 2, 3, 4, 5])
    positions_only = cohen_kappa_score(a, b, weights="linear")
    assert with_scale == pytest.approx(
        cohen_kappa_score(a, b, weights="linear", labels=[1, 2, 3, 4, 5])
    )
    assert with_scale != pytest.approx(positions_only)
    with pytest.raises(ValueError, match="labels is required with weights='quadratic'"):
        cohen_kappa(a, b, weights="quadratic")
    with pytest.raises(ValueError, match=r"b\[1\] is 7, which is not in labels"):
        cohen_kappa([1, 2], [1, 7], labels=[1, 2, 3])
    with pytest.raises(ValueError, match=r"a\[1\] is None, not a label"):
        cohen_kappa([1, None], [1, 2])
    with pytest.raises(ValueError, match="a has 2 rows but b has 1"):
        cohen_kappa([1, 2], [1])


# ---------------------------------------------------------------- correlation


def _summeval_like(n_docs: int = 12, n_systems: int = 6, seed: int = 4) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    docs = np.repeat(np.arange(n_docs), n_systems)
    systems = np.tile(np.array([f"s{i}" for i in range(n_systems)]), n_docs)
    quality = np.tile(rng.random(n_systems), n_docs)
    human = np.round(1 + 4 * np.clip(quality + 0.3 * rng.random(docs.size), 0, 1), 1)
    metric = np.round(quality + 0.5 * rng.random(docs.size), 3)
    return {"docs": docs, "systems": systems, "human": human, "metric": metric}


@pytest.mark.parametrize(
    ("method", "variant", "reference"),
    [
        ("kendall", "b", lambda x, y: kendalltau(x, y, variant="b").statistic),
        ("kendall", "c", lambda x, y: kendalltau(x, y, variant="c").statistic),
        ("spearman", "b", lambda x, y: spearmanr(x, y).statistic),
        ("pearson", "b", lambda x, y: pearsonr(x, y).statistic),
    ],
)
def test_flat_and_summary_equal_scipy(method: str, variant: str, reference: object) -> None:
    d = _summeval_like()
    ref = reference  # type: ignore[assignment]
    flat = correlation(d["metric"], d["human"], method=method, variant=variant, **FAST)  # type: ignore[arg-type]
    assert flat.value == pytest.approx(ref(d["metric"], d["human"]))  # type: ignore[operator]
    assert (flat.n, flat.skipped, flat.level) == (d["metric"].size, 0, "flat")
    summary = correlation(
        d["metric"],
        d["human"],
        groups=d["docs"],
        level="summary",
        method=method,
        variant=variant,
        **FAST,  # type: ignore[arg-type]
    )
    per_doc = [ref(d["metric"][d["docs"] == g], d["human"][d["docs"] == g]) for g in range(12)]  # type: ignore[operator]
    assert summary.value == pytest.approx(np.mean(per_doc))
    assert summary.interval[0] <= summary.value <= summary.interval[1]


def test_summary_skips_and_counts_constant_groups() -> None:
    metric = [0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.3, 0.1, 0.2, 0.4, 0.6, 0.9]
    human = [1, 2, 3, 1, 2, 3, 2, 2, 2, 3, 2, 1]
    groups = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3
    c = correlation(metric, human, groups=groups, level="summary", **FAST)
    assert (c.n, c.skipped) == (2, 2)  # b: constant metric, c: constant human
    assert c.value == pytest.approx(np.mean([1.0, -1.0]))
    assert "skipped=2" in str(c)
    with pytest.raises(ValueError, match="every one of the 2 groups is constant"):
        correlation([1, 1, 2, 2], [1, 2, 1, 2], groups=["x", "x", "y", "y"], level="summary")


def test_system_level_equals_scipy_on_system_means() -> None:
    d = _summeval_like()
    c = correlation(
        d["metric"], d["human"], systems=d["systems"], level="system", method="spearman", **FAST
    )
    names = sorted(set(d["systems"]))
    m = [d["metric"][d["systems"] == s].mean() for s in names]
    h = [d["human"][d["systems"] == s].mean() for s in names]
    assert c.value == pytest.approx(spearmanr(m, h).statistic)
    assert (c.n, c.resample) == (6, "systems")
    both = correlation(
        d["metric"], d["human"], groups=d["docs"], systems=d["systems"], level="system", **FAST
    )
    assert both.resample == "both" and both.value == pytest.approx(kendalltau(m, h).statistic)


def test_resampling_systems_recomputes_per_group() -> None:
    d = _summeval_like()
    plan = CorrelationPlan(
        d["metric"],
        d["human"],
        groups=d["docs"],
        systems=d["systems"],
        level="summary",
        method="kendall",
        variant="b",
        resample="both",
    )
    assert plan.sizes == [12, 6]
    docs, systems = np.array([0, 0, 5]), np.array([1, 1, 2, 4, 5, 0])
    expected = []
    for g in docs:
        rows = np.flatnonzero(d["docs"] == g)[systems]
        expected.append(kendalltau(d["metric"][rows], d["human"][rows]).statistic)
    assert plan.resampled(docs, systems) == pytest.approx(np.mean(expected))


def test_correlation_bad_input() -> None:
    d = _summeval_like()
    with pytest.raises(ValueError, match="level='summary' needs groups"):
        correlation(d["metric"], d["human"], level="summary")
    with pytest.raises(ValueError, match="level='system' needs systems"):
        correlation(d["metric"], d["human"], level="system")
    with pytest.raises(ValueError, match="method must be one of"):
        correlation(d["metric"], d["human"], method="tau")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="metric is constant on all 3 rows"):
        correlation([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match=r"human\[2\] is 'x', not a finite number"):
        correlation([1, 2, 3], [1, 2, "x"])
    with pytest.raises(ValueError, match="group 1 has no row of system 's2'"):
        correlation(
            [0.1, 0.2, 0.3, 0.4, 0.5],
            [1, 2, 3, 1, 2],
            groups=[0, 0, 0, 1, 1],
            systems=["s0", "s1", "s2", "s0", "s1"],
            level="summary",
            resample="both",
        )
    with pytest.raises(ValueError, match="row 2 repeats system 's0' in group 0"):
        correlation(
            [0.1, 0.2, 0.3, 0.4],
            [1, 2, 3, 1],
            groups=[0, 0, 0, 1],
            systems=["s0", "s1", "s0", "s0"],
            level="summary",
            resample="systems",
        )


# ---------------------------------------------------------------- compare


def test_compare_auc_difference_and_p_value() -> None:
    scores, human = _binary_data(n=300, seed=6)
    noisy = np.round(0.5 * scores + 0.5 * np.random.default_rng(1).random(300), 2)
    c = compare(scores, noisy, human, **FAST)
    assert c.statistic == "auc"
    assert c.a == pytest.approx(roc_auc_score(human, scores))
    assert c.b == pytest.approx(roc_auc_score(human, noisy))
    assert c.difference == pytest.approx(c.a - c.b)
    assert c.interval[0] > 0 and c.p_value < 0.05
    same = compare(scores, scores, human, **FAST)
    assert same.difference == 0 and same.interval == (0.0, 0.0) and same.p_value == 1.0


def test_compare_kappa_at_thresholds() -> None:
    scores, human = _binary_data(seed=6)
    c = compare(scores, scores, human, statistic="kappa", threshold_a=0.5, threshold_b=0.3, **FAST)
    assert c.a == pytest.approx(cohen_kappa_score(human, scores >= 0.5))
    assert c.b == pytest.approx(cohen_kappa_score(human, scores >= 0.3))
    assert not c.thresholds_in_sample
    assert compare(scores, scores, human, statistic="kappa", **FAST).thresholds_in_sample


def test_compare_summary_level_correlation() -> None:
    d = _summeval_like()
    worse = d["metric"] + np.random.default_rng(2).random(d["metric"].size)
    c = compare(d["metric"], worse, d["human"], groups=d["docs"], level="summary", **FAST)
    a = correlation(d["metric"], d["human"], groups=d["docs"], level="summary", **FAST)
    b = correlation(worse, d["human"], groups=d["docs"], level="summary", **FAST)
    assert c.statistic == "correlation" and c.method == "kendall"
    assert (c.a, c.b) == (pytest.approx(a.value), pytest.approx(b.value))
    assert c.interval[0] <= c.difference <= c.interval[1]
    assert "difference" in str(c) and "\n" not in str(c)
    with pytest.raises(ValueError, match="metric_b has 3 rows but human has 72"):
        compare(d["metric"], [1, 2, 3], d["human"])


# ---------------------------------------------------------------- pairwise


def test_pairwise_agreement_equals_sklearn() -> None:
    rng = np.random.default_rng(3)
    options = np.array(["A", "B", "tie"])
    human = options[rng.integers(0, 3, 80)]
    judge = np.where(rng.random(80) < 0.7, human, options[rng.integers(0, 3, 80)])
    p = pairwise_agreement(judge.tolist(), [h.lower() for h in human], **FAST)
    assert p.agreement == pytest.approx(accuracy_score(human, judge))
    untied = (human != "tie") & (judge != "tie")
    assert p.agreement_without_ties == pytest.approx(accuracy_score(human[untied], judge[untied]))
    assert p.kappa == pytest.approx(cohen_kappa_score(human, judge))
    assert (p.n, p.n_without_ties, p.human_ties) == (
        80,
        int(untied.sum()),
        int((human == "tie").sum()),
    )
    low, high = p.intervals["agreement"]
    assert low <= p.agreement <= high
    with pytest.raises(ValueError, match=r"judge\[1\] is 'C', not a preference"):
        pairwise_agreement(["A", "C"], ["A", "B"])


def test_position_consistency() -> None:
    first = ["A", "A", "B", "tie", "B", "A"]
    swapped = ["B", "A", "A", "tie", "B", "B"]
    c = position_consistency(first, swapped, **FAST)
    assert c.consistency == pytest.approx(4 / 6)
    assert (c.first_position, c.second_position) == (pytest.approx(1 / 6), pytest.approx(1 / 6))
    assert c.interval[0] <= c.consistency <= c.interval[1]
    with pytest.raises(ValueError, match="first_pass has 2 rows but swapped_pass has 1"):
        position_consistency(["A", "B"], ["A"])
