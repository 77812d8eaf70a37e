"""score_frame: per metric its score, verdict and evidence (the CLI's CSV columns), on the
DataFrame's index; every info entry with columns="flat"; metrics in a language."""

from __future__ import annotations

import pandas as pd
import pytest

import lexeval
from lexeval import get_metric
from lexeval.metrics import KeywordCoverageMetric, RougeMetric
from lexeval.normalize import Normalizer
from lexeval.run.batch import flatten_result, tidy_result

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
    assert list(scored.columns) == [  # three per metric, whatever the keywords: as the CSV
        "rouge1",
        "rouge1_passed",
        "rouge1_evidence",
        "keyword_coverage",
        "keyword_coverage_passed",
        "keyword_coverage_evidence",
    ]
    for name in ("rouge1", "keyword_coverage"):
        metric = get_metric(name)
        expected = [
            tidy_result(name, metric.measure(r, o)) for r, o in zip(REFS, OUTS, strict=True)
        ]
        assert scored[name].tolist() == [row[name] for row in expected]
        assert scored[f"{name}_evidence"].tolist() == [row[f"{name}_evidence"] for row in expected]
        assert scored[f"{name}_passed"].isna().all()  # no threshold, no verdict
    assert scored.loc[20, "keyword_coverage_evidence"].startswith("matched: france; missing: ")
    assert scored.attrs["signatures"]["rouge1"] == get_metric("rouge1").signature


def test_flat_columns_keep_every_info_entry() -> None:
    scored = lexeval.score_frame(frame(), ["rouge1", "keyword_coverage"], columns="flat")
    for name in ("rouge1", "keyword_coverage"):
        metric = get_metric(name)
        expected = [
            flatten_result(name, metric.measure(r, o)) for r, o in zip(REFS, OUTS, strict=True)
        ]
        assert scored[name].tolist() == [row[name] for row in expected]
        if name == "keyword_coverage":  # ROUGE lists evidence only when asked for
            missing = [row[f"{name}_missing"] for row in expected]
            assert scored[f"{name}_missing"].tolist() == missing
    assert "rouge1_missing" not in scored.columns
    assert scored.loc[10, "rouge1_counts_overlap"] == 3
    with pytest.raises(ValueError, match="columns must be"):
        lexeval.score_frame(frame(), "rouge1", columns="wide")  # type: ignore[arg-type]


GERMAN = (
    ["Die Katzen schliefen im Garten", "Der Hund bellte laut"],
    ["Eine Katze schläft im Garten", "Die Hunde bellen"],
)
FRENCH = (["Les chats dormaient dans le jardin"], ["Un chat dort dans les jardins"])


@pytest.mark.parametrize("name", ["keyword_coverage", "token_f1", "rouge1"])
def test_a_language_equals_the_normalizer_in_that_language(name: str) -> None:
    refs, outs = GERMAN
    df = pd.DataFrame({"reference": refs, "output": outs})
    scored = lexeval.score_frame(df, name, language="de")
    preset = get_metric(name).normalizer.preset  # type: ignore[attr-defined]
    metric = type(get_metric(name))(  # type: ignore[call-arg]
        *(["rouge1"] if name == "rouge1" else []),
        normalizer=Normalizer(preset, language="de"),
    )
    assert scored[name].tolist() == [
        metric.measure(r, o).score for r, o in zip(refs, outs, strict=True)
    ]
    assert scored.attrs["signatures"][name] == metric.signature
    assert "|lang:de|" in metric.signature
    english = lexeval.score_frame(df, name)
    assert english[name].tolist() != scored[name].tolist()  # the language changes the keys


def test_a_language_per_row() -> None:
    refs = [GERMAN[0][0], FRENCH[0][0], "The cats slept in the garden"]
    outs = [GERMAN[1][0], FRENCH[1][0], "A cat sleeps in the garden"]
    df = pd.DataFrame({"reference": refs, "output": outs, "lang": ["de", "fr", None]})
    scored = lexeval.score_frame(df, "keyword_coverage", language_field="lang")
    for i, code in enumerate(["de", "fr", "en"]):
        alone = lexeval.score_frame(
            df.iloc[[i]].drop(columns="lang"), "keyword_coverage", language=code
        )
        assert scored.iloc[i, 0] == alone.iloc[0, 0]
    signature = scored.attrs["signatures"]["keyword_coverage"]
    assert sorted(part for part in signature.split("|") if part.startswith("lang:")) == [
        "lang:de",
        "lang:en",
        "lang:fr",
    ]  # one signature per language, the rows without a code in the metric's own (en)
    with pytest.raises(ValueError, match="row 1: lang: unknown language 'klingon'"):
        lexeval.score_frame(
            df.assign(lang=["de", "klingon", None]), "rouge1", language_field="lang"
        )
    with pytest.raises(ValueError, match="metrics given by name"):
        lexeval.score_frame(df, RougeMetric("rouge1"), language_field="lang")
    with pytest.raises(ValueError, match="unknown language"):
        lexeval.score_frame(df, "rouge1", language="german")
    with pytest.raises(ValueError, match="takes no language"):
        lexeval.score_frame(df, "lexical_correctness", language="de")


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
    flat = lexeval.score_frame(df, "token_f1", reference="gold", output="model", columns="flat")
    assert flat.loc[0, "token_f1_reference_index"] == 1


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
