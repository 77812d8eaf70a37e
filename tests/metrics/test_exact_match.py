"""ExactMatchMetric: the SQuAD v1.1 script's exact match (per question, against the official
script's recorded figures), strict equality, references, verdicts and the CLI gate."""

from __future__ import annotations

import csv
import json
import pickle
from pathlib import Path

import pytest

from lexeval import get_metric
from lexeval.cli import main
from lexeval.metrics import ExactMatchMetric

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SQUAD = SHARED / "data" / "squad"
ORACLE = SHARED / "oracles" / "squad"


def _systems() -> list[str]:
    if not ORACLE.is_dir():
        return ["<absent>"]
    return sorted(p.name.removesuffix(".expected.jsonl") for p in ORACLE.glob("*.expected.jsonl"))


@pytest.mark.parametrize("system", _systems())
def test_official_squad_exact_match_per_question(system: str) -> None:
    path = SQUAD / "dev-v1.1.json"
    if not path.is_file() or not ORACLE.is_dir():
        pytest.skip(f"../shared is absent ({path} not found): SQuAD exact match parity not run")
    dev = json.loads(path.read_text(encoding="utf-8"))
    golds = {
        qa["id"]: [a["text"] for a in qa["answers"]]
        for article in dev["data"]
        for para in article["paragraphs"]
        for qa in para["qas"]
    }
    preds = json.loads((SQUAD / "predictions" / f"{system}.json").read_text(encoding="utf-8"))
    metric = ExactMatchMetric()
    ids, expected = [], []
    with open(ORACLE / f"{system}.expected.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            ids.append(row["id"])
            expected.append(row["em"])
    scores = [
        r.score for r in metric.measure_many([golds[i] for i in ids], [preds[i] for i in ids])
    ]
    assert len(scores) > 10_000
    assert scores == expected
    strict = ExactMatchMetric(normalize=False)
    strict_scores = [strict.measure(golds[i], preds[i]).score for i in ids]
    assert sum(strict_scores) < sum(scores)  # some answers match only once normalized
    assert all(s <= e for s, e in zip(strict_scores, scores, strict=True))


def test_the_issue_example_and_strict_mode() -> None:
    assert ExactMatchMetric().measure("the Broncos", "The Broncos.").score == 1.0
    assert ExactMatchMetric(normalize=False).measure("the Broncos", "The Broncos.").score == 0.0
    assert ExactMatchMetric(normalize=False).measure("the Broncos", "the Broncos").score == 1.0
    assert ExactMatchMetric().measure("Denver Broncos", "Broncos").score == 0.0
    r = ExactMatchMetric().measure(["Denver Broncos", "the broncos", "Broncos"], "Broncos!")
    assert r.score == 1.0 and r.info["reference_index"] == 1  # the first match is kept
    assert ExactMatchMetric().measure("", "The.").score == 1.0  # the script's rule
    assert ExactMatchMetric(normalize=False).measure("", "").score == 1.0


def test_verdict_scale_signature_registry_and_pickle() -> None:
    m = get_metric("exact_match", threshold=1)
    assert isinstance(m, ExactMatchMetric)
    assert m.measure("Paris", "paris").passed is True
    assert m.measure("Paris", "Lyon").passed is False
    assert m.signature == "exact_match|norm:squad-v1.1"
    assert get_metric("em", normalize=False).signature == "exact_match|norm:none"
    assert ExactMatchMetric(scale=100).measure("a", "a").score == 100.0
    clone = pickle.loads(pickle.dumps(ExactMatchMetric(normalize=False, threshold=1)))
    assert clone.signature == "exact_match|norm:none" and clone.threshold == 1.0
    assert m.measure("Paris", "paris", question="Capital?") == m.measure("Paris", "paris")


def test_bad_input() -> None:
    m = ExactMatchMetric()
    with pytest.raises(TypeError, match="input"):
        m.measure(None, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="output"):
        m.measure("x", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="input"):
        m.measure([], "x")
    with pytest.raises(TypeError, match="normalize"):
        ExactMatchMetric(normalize="yes")  # type: ignore[arg-type]
    token_f1 = get_metric("token_f1")
    for reference, output in [("a", b"a"), (b"a", "a"), ([["a"]], "a"), ([None], "a")]:
        with pytest.raises(TypeError) as ours:
            m.measure(reference, output)  # type: ignore[arg-type]
        with pytest.raises(TypeError) as theirs:
            token_f1.measure(reference, output)  # type: ignore[arg-type]
        assert str(ours.value) == str(theirs.value)  # the same errors as the other metrics
    for method in (m.measure_many, m.corpus_score):
        with pytest.raises(TypeError, match="output"):
            method(["a", "b"], ["a", None])  # type: ignore[list-item]
        with pytest.raises(ValueError, match="at least one reference"):
            method(["a", []], ["a", "b"])
    # white space only: normalizes to "" as in the SQuAD script; strict compares as given
    assert m.measure("  ", "\t").score == 1.0 and m.measure(" ", "b").score == 0.0
    assert ExactMatchMetric(normalize=False).measure(" ", "  ").score == 0.0
    assert m.corpus_score(["a", "b"], ["a", "c"]).score == 0.5  # the mean: no corpus figure


def test_gateable_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pairs.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "reference", "prediction"])
        writer.writerows([("q1", "The Broncos.", "the Broncos"), ("q2", "Paris", "Paris")])
    code = main(["score", str(path), "--metric", "exact_match", "--fail-under", "exact_match=1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [json.loads(line)["exact_match"]["score"] for line in out.splitlines()] == [1.0, 1.0]
    with open(path, "a", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerow(("q3", "Paris", "Lyon"))
    code = main(
        ["score", str(path), "--metric", "exact_match,wer", "--fail-under", "exact_match=1"]
    )
    _, err = capsys.readouterr()
    assert code == 1 and "gate exact_match mean 0.6667 >= 1: FAILED" in err
