"""score_frame: one column per metric score, passed and evidence, on the DataFrame's index."""

from __future__ import annotations

import pandas as pd
import pytest

import lexeval
from lexeval import get_metric
from lexeval.metrics import KeywordCoverageMetric, RougeMetric
from lexeval.run.batch import flatten_result

REFS = ["the cat sat on the mat", "Paris is the capital of France", "water boils at 100 degrees"]
OUTS = ["the cat sat", "Lyon is in France", "water boils at 100 degrees celsius"]


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"question": ["?"] * 3, "ground_truth": REFS, "response": OUTS},
        index=pd.Index([10, 20, 30], name="qid"),
    )


def test_columns_match_the_metrics_and_keep_the_index() -> None:
    scored = lexeval.score_frame(frame(), ["rouge1", "keyword_coverage"])
    assert scored.index.equals(frame().index)
    for name in ("rouge1", "keyword_coverage"):
        metric = get_metric(name)
        expected = [
            flatten_result(name, metric.measure(r, o)) for r, o in zip(REFS, OUTS, strict=True)
        ]
        assert scored[name].tolist() == [row[name] for row in expected]
        if name == "keyword_coverage":  # ROUGE lists evidence only when asked for
            missing = [row[f"{name}_missing"] for row in expected]
            assert scored[f"{name}_missing"].tolist() == missing
        assert scored[f"{name}_passed"].isna().all()  # no threshold, no verdict
    assert "rouge1_missing" not in scored.columns
    assert scored.loc[10, "rouge1_counts_overlap"] == 3


def test_thresholds_metric_objects_and_dicts() -> None:
    scored = lexeval.score_frame(frame(), "rouge1", thresholds={"rouge1": 0.9})
    assert scored["rouge1_passed"].tolist() == [False, False, True]
    objects = lexeval.score_frame(
        frame(), [KeywordCoverageMetric(threshold=0.5), RougeMetric("rouge2")]
    )
    assert list(objects.columns[:2]) == ["keyword_coverage", "keyword_coverage_passed"]
    assert "rouge2" in objects.columns
    named = lexeval.score_frame(
        frame(),
        {"strict": KeywordCoverageMetric(match="exact"), "lenient": KeywordCoverageMetric()},
    )
    assert {"strict", "lenient"} <= set(named.columns)


def test_columns_by_name_and_several_references() -> None:
    df = pd.DataFrame({"gold": [["x y", "cat"]], "model": ["the cat"]})
    scored = lexeval.score_frame(df, "token_f1", reference="gold", output="model")
    assert scored.loc[0, "token_f1_reference_index"] == 1


def test_errors() -> None:
    both = frame().assign(reference=REFS)
    with pytest.raises(ValueError, match="could both be the reference: name one with reference="):
        lexeval.score_frame(both, "rouge1")
    with pytest.raises(ValueError, match="no output column"):
        lexeval.score_frame(frame().drop(columns="response"), "rouge1")
    with pytest.raises(TypeError, match="row 20: response must be a str, not float"):
        lexeval.score_frame(frame().assign(response=["a", float("nan"), "b"]), "rouge1")
    with pytest.raises(ValueError, match="given twice"):
        lexeval.score_frame(frame(), ["rouge1", RougeMetric("rouge1")])
    with pytest.raises(ValueError, match="not scored: rouge2"):
        lexeval.score_frame(frame(), "rouge1", thresholds={"rouge2": 0.5})
    with pytest.raises(TypeError, match="DataFrame"):
        lexeval.score_frame({"reference": REFS}, "rouge1")
