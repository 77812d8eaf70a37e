"""``lexeval score FILE``: several metrics, field mapping, formats, gates, stdin."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

from lexeval import get_metric
from lexeval.cli import main
from lexeval.metrics import aggregate
from lexeval.registry import REPORT_EVIDENCE_LIMIT

PAIRS = [
    ("q1", "the cat sat on the mat", "the cat sat"),
    ("q2", "Paris is the capital of France", "Lyon is in France"),
    ("q3", "water boils at 100 degrees", "water boils at 100 degrees celsius"),
]


@pytest.fixture
def pairs_csv(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "reference", "prediction"])
        writer.writerows((i, "?", r, o) for i, r, o in PAIRS)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_several_metrics_one_line_per_record(
    pairs_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, str(pairs_csv), "--metric", "rouge1,keyword_coverage", "--metric", "token_f1"
    )
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2", "q3"]
    assert [line["line"] for line in lines] == [2, 3, 4]
    for name in ("rouge1", "keyword_coverage", "token_f1"):
        # the command line lists ROUGE's and token-F1's evidence (Python's default lists none)
        extra = {} if name == "keyword_coverage" else {"evidence_limit": REPORT_EVIDENCE_LIMIT}
        metric = get_metric(name, **extra)
        expected = [metric.measure(r, o).to_dict() for _, r, o in PAIRS]
        assert [line[name] for line in lines] == expected
    assert "missing" in lines[0]["rouge1"]["info"]
    assert "missing" not in get_metric("rouge1").measure(*PAIRS[0][1:]).info
    # the summary on stderr: n, mean and the CI of aggregate()
    agg = aggregate([get_metric("rouge1").measure(r, o) for _, r, o in PAIRS])
    row = next(line for line in err.splitlines() if line.startswith("rouge1 "))
    assert f"{agg.mean:.4f}" in row and f"[{agg.ci_low:.4f}, {agg.ci_high:.4f}]" in row


def test_thresholds_pass_rates_and_gates(
    pairs_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [str(pairs_csv), "--metric", "keyword_coverage,rouge1", "--threshold", "0.5"]
    args += ["--threshold", "rouge1=0.9"]  # a later, targeted threshold overrides for rouge1
    code, out, err = run(capsys, *args)
    passed = {
        name: [json.loads(line)[name]["passed"] for line in out.splitlines()]
        for name in ("keyword_coverage", "rouge1")
    }
    kc = get_metric("keyword_coverage")
    assert passed["keyword_coverage"] == [kc.measure(r, o).score >= 0.5 for _, r, o in PAIRS]
    assert passed["rouge1"] == [False, False, True]
    assert code == 0 and "33.3% (1/3, score >= 0.9" in err
    code, _, err = run(capsys, *args, "--min-pass-rate", "rouge1=0.5")
    assert code == 1 and "gate rouge1 pass rate 0.3333 >= 0.5: FAILED" in err
    code, _, err = run(capsys, *args, "--min-pass-rate", "rouge1=0.3", "--fail-under", "rouge1=0.5")
    assert code == 0, err
    assert "gate rouge1 mean" in err and "passed" in err
    code, _, err = run(capsys, *args, "--fail-under", "keyword_coverage=0.99")
    assert code == 1 and "gate keyword_coverage mean" in err and "FAILED" in err


def test_usage_errors_before_any_output(
    pairs_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        (
            ["--metric", "rouge1", "--min-pass-rate", "rouge1=0.5"],
            "rouge1 has no threshold and no recommended one",
        ),
        (["--metric", "rouge1", "--fail-under", "rouge2=0.5"], "not one of --metric"),
        (["--metric", "rouge1,rouge1"], "given more than once"),
        (["--metric", "rouge1", "--option", "rouge2.score=recall"], "not one of --metric"),
        (
            ["--metric", "rouge1,keyword_coverage", "--option", "counting=distinct"],
            "keyword_coverage",
        ),
        (["--metric", "rougeN"], "rouge4"),
        (["--metric", "rouge1", "--reference-field", "nope"], "no field 'nope'"),
        (["--metric", "rouge1", "--input", "a"], "FILE, or --input and --output"),
    ]
    for extra, fragment in cases:
        code, out, err = run(capsys, str(pairs_csv), *extra)
        assert code == 2 and out == "", (extra, err)
        assert len(err.strip().splitlines()) == 1 and fragment in err, (extra, err)


def test_targeted_options_and_csv_output(
    pairs_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        str(pairs_csv),
        "--metric",
        "rouge1,rouge2",
        "--option",
        "rouge2.score=recall",
        "--option",
        "rouge1.evidence_limit=20",
        "--format",
        "csv",
    )
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["id"] for row in rows] == ["q1", "q2", "q3"]
    recall = get_metric("rouge2", score="recall")
    assert [float(row["rouge2"]) for row in rows] == [
        recall.measure(r, o).score for _, r, o in PAIRS
    ]
    # tidy: per metric its score, verdict and evidence, whatever the keywords
    assert list(rows[0]) == [
        "line",
        "id",
        *(f"{m}{suffix}" for m in ("rouge1", "rouge2") for suffix in ("", "_passed", "_evidence")),
    ]
    assert rows[0]["rouge1_evidence"].endswith("; missing: the, on, mat")


def test_json_document_and_stdin(
    pairs_csv: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = "".join(
        json.dumps({"id": i, "answer": o, "ground_truth": [r, "other"]}) + "\n" for i, r, o in PAIRS
    )
    stdin = io.TextIOWrapper(io.BytesIO(data.encode("utf-8")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = run(
        capsys, "-", "--metric", "token_f1", "--threshold", "0.5", "--format", "json"
    )
    assert code == 0, err
    document = json.loads(out)
    assert document["metrics"]["token_f1"] == get_metric("token_f1").signature
    assert [r["id"] for r in document["results"]] == ["q1", "q2", "q3"]
    assert document["summary"]["token_f1"]["n_judged"] == 3
    metric = get_metric("token_f1", threshold=0.5)
    expected = aggregate([metric.measure([r, "other"], o) for _, r, o in PAIRS])
    assert document["summary"]["token_f1"]["pass_rate"] == expected.pass_rate


def test_single_pair_with_several_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--metric", "rouge1,token_f1", "--input", "the cat sat", "--output", "the cat"
    )
    line = json.loads(out)
    assert code == 0 and set(line) == {"line", "rouge1", "token_f1"}
    assert (
        line["token_f1"]["score"] == get_metric("token_f1").measure("the cat sat", "the cat").score
    )


def test_keyword_coverage_reads_the_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "Which river flows through Baghdad?"
    path = tmp_path / "qa.jsonl"
    rows = [
        {"question": question, "reference": "Tigris River", "output": "the Euphrates River"},
        {"reference": "Tigris River", "output": "the Euphrates River"},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    code, out, err = run(capsys, str(path), "--metric", "keyword_coverage")
    assert code == 0, err
    asked, plain = (json.loads(line)["keyword_coverage"] for line in out.splitlines())
    kc = get_metric("keyword_coverage")
    with_q = kc.measure("Tigris River", "the Euphrates River", question=question)
    assert asked == with_q.to_dict() and asked["info"]["echoed"] == ["river"]
    assert plain == kc.measure("Tigris River", "the Euphrates River").to_dict()
    assert asked["score"] < plain["score"]


def test_a_single_pair_takes_its_question(capsys: pytest.CaptureFixture[str]) -> None:
    question = "Which river flows through Baghdad?"
    pair = ("--input", "Tigris River", "--output", "the Euphrates River")
    kc = get_metric("keyword_coverage")
    expected = kc.measure("Tigris River", "the Euphrates River", question=question).to_dict()
    code, out, err = run(capsys, "--metric", "keyword_coverage", *pair, "--question", question)
    assert code == 0, err
    assert json.loads(out) == expected and expected["info"]["echoed"] == ["river"]
    # with several metrics (the batch path) the question goes to those that read it
    code, out, err = run(
        capsys, "--metric", "keyword_coverage,token_f1", *pair, "--question", question
    )
    assert code == 0, err
    line = json.loads(out)
    assert line["keyword_coverage"] == expected
    token_f1 = get_metric("token_f1", evidence_limit=REPORT_EVIDENCE_LIMIT)
    assert line["token_f1"] == token_f1.measure(*pair[1::2]).to_dict()
    code, out, err = run(capsys, "--metric", "keyword_coverage", *pair)
    assert json.loads(out)["score"] > expected["score"]


def test_question_without_a_single_pair_is_a_usage_error(
    pairs_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, str(pairs_csv), "--metric", "rouge1", "--question", "Why?")
    assert code == 2 and out == ""
    assert err.strip().endswith(
        "--question goes with --input and --output; FILE has a question field"
    )
    assert len(err.strip().splitlines()) == 1


def _corpus_pairs(tmp_path: Path, rows: list[tuple[str, str]]) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps({"reference": r, "output": o}) + "\n" for r, o in rows))
    return str(path)


def test_fail_under_gates_a_corpus_metric_on_its_corpus_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The mean of sentence scores and the corpus figure straddle the threshold: the gate
    follows the corpus figure (the summary's ``(corpus)`` line), either way."""
    wer = get_metric("wer", compat="jiwer")
    # one long right sentence, one short wrong one: mean 0.5, corpus 1 - 1/11
    good = _corpus_pairs(tmp_path, [("a b c d e f g h i j", "a b c d e f g h i j"), ("x", "y")])
    results = [wer.measure("a b c d e f g h i j", "a b c d e f g h i j"), wer.measure("x", "y")]
    mean, corpus = aggregate(results).mean, wer.corpus_of(results).score
    assert mean < 0.8 < corpus
    args = ["--metric", "wer", "--option", "compat=jiwer", "--fail-under", "wer=0.8"]
    code, _, err = run(capsys, good, *args)
    assert code == 0, err
    assert f"gate wer (corpus) {corpus:.4f} >= 0.8: passed" in err
    # one short right sentence, one long wrong one: mean 0.5, corpus 1/11
    bad = _corpus_pairs(tmp_path, [("a", "a"), ("b c d e f g h i j k", "z z z z z z z z z z")])
    code, out, err = run(capsys, bad, *args[:4], "--fail-under", "wer=0.3", "--format", "json")
    assert code == 1
    assert "gate wer (corpus) 0.0909 >= 0.3: FAILED" in err
    document = json.loads(out)
    assert document["summary"]["wer"]["gates"] == [
        {
            "figure": "corpus",
            "value": document["summary"]["wer"]["corpus"]["score"],
            "minimum": 0.3,
            "passed": False,
        }
    ]
    assert document["summary"]["wer"]["mean"] == 0.5  # the mean would have passed
    # BLEU: the corpus BLEU, not the mean of sentence BLEUs
    refs = ["the cat sat on the mat", "a dog ran in the park"]
    outs = ["the cat sat on the mat", "a dog ran"]
    bleu = get_metric("bleu")
    sentence = aggregate(bleu.measure_many(refs, outs)).mean
    figure = bleu.corpus_score(refs, outs).score
    assert sentence < 0.70 < figure
    code, _, err = run(
        capsys,
        _corpus_pairs(tmp_path, list(zip(refs, outs, strict=True))),
        "--metric",
        "bleu",
        "--fail-under",
        "bleu=0.7",
    )
    assert code == 0 and f"gate bleu (corpus) {figure:.4f} >= 0.7: passed" in err
    # a metric without a corpus figure still gates on its mean, named so
    code, out, err = run(capsys, good, "--metric", "rouge1", "--fail-under", "rouge1=0.5")
    assert "gate rouge1 mean" in err


def test_baseline_compares_a_corpus_metric_on_its_corpus_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--baseline`` with ``--max-drop`` compares corpus figures too: here the mean drops by
    0.5 and the corpus WER score by 1/11."""
    store = str(tmp_path / "runs.sqlite")
    base = [{"id": "a", "reference": "a b c d e f g h i j", "output": "a b c d e f g h i j"}]
    base.append({"id": "b", "reference": "x", "output": "x"})
    worse = [base[0], {**base[1], "output": "y"}]
    paths = []
    for name, rows in (("base", base), ("worse", worse)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        paths.append(str(path))
    metric = ["--metric", "wer", "--option", "compat=jiwer", "--store", store]
    assert run(capsys, paths[0], *metric, "--save")[0] == 0
    assert main(["runs", "bless", "1", "main", "--store", store]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, paths[1], *metric, "--baseline", "main", "--max-drop", "0.2")
    assert code == 0, err  # the mean's drop (0.5) would fail
    assert "wer (corpus)" in err
    code, _, err = run(capsys, paths[1], *metric, "--baseline", "main", "--max-drop", "0.05")
    assert code == 1 and "FAIL" in err


def test_edit_operations_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line lists TER's and WER's edits (as it lists ROUGE's n-grams): in the
    JSON lines under info, in CSV as one evidence text."""
    path = _corpus_pairs(tmp_path, [("the cat sat on the mat", "on the mat a cat sat")])
    code, out, err = run(capsys, path, "--metric", "ter,wer", "--option", "wer.compat=jiwer")
    assert code == 0, err
    line = json.loads(out)
    assert line["ter"]["info"]["shifted"] == [["on the mat", 0, 3]]
    assert line["ter"]["info"]["substituted"] == [["the", "a"]]
    assert line["wer"]["info"]["deleted"] == ["on", "the", "mat"]
    code, out, err = run(capsys, path, "--metric", "ter,wer", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(out)))
    assert (
        row["ter_evidence"]
        == "shifted: on the mat 0->3; substituted: the->a; deleted: ; inserted: "
    )
    assert row["wer_evidence"].startswith("substituted: ; deleted: on, the, mat; inserted: ")
