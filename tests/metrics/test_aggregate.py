"""aggregate(): mean, pooled counts, seeded bootstrap."""

from __future__ import annotations

import pytest

from lexeval.metrics import MetricResult, TokenF1Metric, aggregate


def _results() -> list[MetricResult]:
    m = TokenF1Metric(compat="set")
    pairs = [("a b c d", "a b"), ("a b", "a b x y z z"), ("p q", "r")]
    return [m.measure(r, o) for r, o in pairs]


def test_mean_and_micro_counts() -> None:
    agg = aggregate(_results())
    # overlaps 2, 2, 0; reference sizes 4, 2, 2; output sizes (sets) 2, 5, 1
    assert agg.micro_recall == pytest.approx(4 / 8)
    assert agg.micro_precision == pytest.approx(4 / 8)
    assert agg.micro_fmeasure == pytest.approx(0.5)
    assert agg.mean == pytest.approx(sum(r.score for r in _results()) / 3)
    assert agg.n == 3


def test_bootstrap_is_seeded_and_recorded() -> None:
    a = aggregate(_results(), seed=7, n_boot=500)
    b = aggregate(_results(), seed=7, n_boot=500)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert a.seed == 7 and aggregate(_results()).seed == 12345
    assert a.ci_low <= a.mean <= a.ci_high
    assert a.to_dict()["n_boot"] == 500


def test_bootstrap_depends_on_the_seed_and_covers_the_mean() -> None:
    results = [MetricResult((i * 37 % 101) / 100) for i in range(60)]
    a = aggregate(results, seed=1)
    c = aggregate(results, seed=2)
    assert (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)
    assert a.ci_low < a.mean < a.ci_high
    wider = aggregate(results, seed=1, confidence=0.99)
    assert wider.ci_low <= a.ci_low and wider.ci_high >= a.ci_high


def test_no_counts_no_micro_and_single_result() -> None:
    agg = aggregate([MetricResult(0.5), MetricResult(1.0)], n_boot=100)
    assert agg.micro_precision is None and agg.micro_recall is None
    one = aggregate([MetricResult(0.3)])
    assert one.ci_low == one.ci_high == one.mean == 0.3


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="empty"):
        aggregate([])
    with pytest.raises(TypeError, match="MetricResult, float or bool"):
        aggregate(["0.5"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="finite"):
        aggregate([0.5, float("nan")])
    with pytest.raises(ValueError, match="confidence"):
        aggregate(_results(), confidence=1.5)
    with pytest.raises(TypeError, match="seed"):
        aggregate(_results(), seed=1.5)  # type: ignore[arg-type]


def test_plain_scores_and_booleans() -> None:
    floats = aggregate([0.25, 0.75, 1])
    assert floats.mean == pytest.approx(2 / 3) and floats.n == 3
    assert floats.pass_rate is None and floats.n_judged == 0 and floats.n_passed is None
    verdicts = aggregate([True, False, True, True])
    assert verdicts.mean == verdicts.pass_rate == 0.75
    assert (verdicts.n_passed, verdicts.n_judged) == (3, 4)
    assert verdicts.pass_rate_ci_low is not None and verdicts.pass_rate_ci_high is not None
    assert verdicts.pass_rate_ci_low < 0.75 < verdicts.pass_rate_ci_high


def test_pass_rate_of_results_with_a_threshold() -> None:
    metric = TokenF1Metric(compat="set", threshold=0.6)
    pairs = [("a b c d", "a b c"), ("a b", "a b x y z z"), ("p q", "r"), ("p q", "p q")]
    results = metric.measure_many([r for r, _ in pairs], [o for _, o in pairs])
    agg = aggregate(results)
    assert [r.passed for r in results] == [True, False, False, True]
    assert agg.pass_rate == 0.5 and agg.n_passed == 2 and agg.n_judged == 4
    # the Wilson interval of 2/4 at 95%, as scipy computes it
    from scipy.stats import binomtest

    ci = binomtest(2, 4).proportion_ci(method="wilson")
    assert (agg.pass_rate_ci_low, agg.pass_rate_ci_high) == (ci.low, ci.high)
    # results without a verdict do not count in the pass rate
    mixed = aggregate([*results, MetricResult(1.0)])
    assert mixed.n_judged == 4 and mixed.pass_rate == 0.5 and mixed.n == 5
    assert mixed.to_dict()["pass_rate"] == 0.5
