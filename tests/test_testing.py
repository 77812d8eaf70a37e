"""lexeval.testing.assert_lexical and the pytest plugin, the plugin run by a real pytest."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from lexeval import get_metric
from lexeval.metrics import KeywordCoverageMetric, RougeMetric
from lexeval.testing import assert_lexical, case_id, failure_message, load_cases
from lexeval.text.signature import short_signature


def test_passing_returns_the_result_with_its_verdict() -> None:
    result = assert_lexical("the cat sat on the mat", "the cat sat on a mat", threshold=0.6)
    assert result.passed is True
    assert (
        result.score
        == KeywordCoverageMetric().measure("the cat sat on the mat", "the cat sat on a mat").score
    )
    rouge = assert_lexical("the cat sat", "the cat", metric="rouge1", threshold=0.5)
    assert rouge.signature == get_metric("rouge1").signature


def test_the_question_goes_to_keyword_coverage() -> None:
    question = "Which river flows through Baghdad?"
    assert_lexical("Tigris River", "the Euphrates River", threshold=0.3)  # "river" passes
    with pytest.raises(AssertionError, match=r"keyword_coverage 0\.121 is below the threshold"):
        assert_lexical("Tigris River", "the Euphrates River", threshold=0.3, question=question)
    result = assert_lexical("Tigris River", "the Tigris", question=question)
    assert result.info["echoed"] == ["river"]
    # a metric without a question parameter is measured as without the question
    rouge = assert_lexical("a cat", "the cat", metric="rouge1", threshold=0.5, question="cat?")
    expected = get_metric("rouge1").measure("a cat", "the cat")
    assert rouge == dataclasses.replace(expected, passed=True)


def test_failure_shows_score_threshold_missing_and_signature() -> None:
    reference = "Water boils at 100 degrees Celsius at sea level"
    output = "It boils at 90 degrees"
    expected = KeywordCoverageMetric().measure(reference, output)
    with pytest.raises(AssertionError) as failure:
        assert_lexical(reference, output, threshold=0.8)
    message = str(failure.value)
    assert message.startswith(f"keyword_coverage {expected.score:.3f} is below the threshold 0.800")
    assert f"missing: {', '.join(expected.info['missing'])}" in message
    signature = KeywordCoverageMetric().signature
    assert signature not in message  # about 900 characters: the short settings instead
    assert f"  settings: {short_signature(signature)}" in message
    assert max(len(line) for line in message.splitlines()) < 200
    assert repr(output) in message
    full = failure_message(
        "keyword_coverage", expected, 0.8, reference, output, full_signature=True
    )
    assert f"  signature: {signature}" in full
    with pytest.raises(
        AssertionError, match=r"rouge2 0\.000 is below .*\n  missing: the cat, cat sat\n"
    ):
        assert_lexical("the cat sat", "cat the", metric="rouge2", threshold=0.1)


def test_thresholds_default_to_the_metric_then_the_recommendation() -> None:
    # keyword coverage recommends 0.3797: 1 of 3 keywords fails, 2 of 3 passes
    with pytest.raises(AssertionError, match=r"threshold 0\.380"):
        assert_lexical("red green blue", "red")
    assert_lexical("red green blue", "red green")
    # a metric object's own threshold comes first
    with pytest.raises(AssertionError, match=r"threshold 0\.900"):
        assert_lexical("red green blue", "red green", metric=KeywordCoverageMetric(threshold=0.9))
    with pytest.raises(ValueError, match="rouge2 has no recommended threshold"):
        assert_lexical("a b", "a b", metric="rouge2")
    assert_lexical("a b c d", "a b", metric=RougeMetric("rouge1", score="recall"))  # 0.5
    with pytest.raises(TypeError, match="options apply to a metric given by name"):
        assert_lexical("a", "a", metric=KeywordCoverageMetric(), fuzzy=True)
    long_text = "word " * 100
    with pytest.raises(AssertionError, match=r"\(500 characters\)"):
        assert_lexical(long_text, "nothing", threshold=0.9)


def test_load_cases_and_ids(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        '{"reference": "a", "output": "b"}\n{"id": "k", "reference": "a", "output": "a"}\n'
    )
    cases = load_cases(path)
    assert [case_id(c) for c in cases] == ["line1", "k"]


SAMPLE = """
    import pytest
    from lexeval.testing import assert_lexical

    def test_good_answer():
        assert_lexical("Paris is the capital of France", "The capital of France is Paris")

    def test_bad_answer():
        assert_lexical("Water boils at 100 degrees Celsius", "It boils at 90 degrees",
                       threshold=0.8)

    @pytest.mark.lexeval_cases("answers.csv")
    def test_dataset(lexeval_case):
        assert_lexical(lexeval_case.reference, lexeval_case.output, metric="rouge1",
                       score="recall", threshold=0.5)
"""

ANSWERS = (
    "id,question,reference,prediction\n"
    "ok,?,the cat sat on the mat,the cat sat on a mat\n"
    "bad,?,the cat sat on the mat,a dog\n"
)


def test_the_plugin_in_a_real_pytest_run(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    (tmp_path / "answers.csv").write_text(ANSWERS, encoding="utf-8")
    report = tmp_path / "report.xml"
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--strict-markers",
            f"--junitxml={report}",
            "test_sample.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # tests failed, not a usage error
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failed = case.find("failure")
        outcomes[case.get("name")] = failed.get("message", "") if failed is not None else "passed"
    assert outcomes["test_good_answer"] == "passed"
    assert outcomes["test_dataset[ok]"] == "passed"
    assert "keyword_coverage 0.261 is below the threshold 0.800" in outcomes["test_bad_answer"]
    assert "rouge1 0.000 is below the threshold 0.500" in outcomes["test_dataset[bad]"]
    assert len(outcomes) == 4
    assert "missing: water, 100, celsius" in proc.stdout
    assert "  settings: keyword_coverage|mode:default|" in proc.stdout
    assert "  signature: keyword_coverage|" not in proc.stdout
    full = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--lexeval-full-signature",
            "test_sample.py::test_bad_answer",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert full.returncode == 1, full.stdout + full.stderr
    assert "  signature: keyword_coverage|" in full.stdout


def test_the_plugin_refuses_a_marker_without_the_argument(tmp_path: Path) -> None:
    (tmp_path / "test_wrong.py").write_text(
        textwrap.dedent("""
            import pytest

            @pytest.mark.lexeval_cases("missing.jsonl")
            def test_x(lexeval_case):
                pass

            @pytest.mark.lexeval_cases("answers.csv")
            def test_y():
                pass
        """),
        encoding="utf-8",
    )
    (tmp_path / "answers.csv").write_text(ANSWERS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_wrong.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "missing.jsonl: cannot read file" in output
