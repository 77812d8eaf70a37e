"""The promptfoo Python assertion's contract: what promptfoo passes in, what it reads back.

promptfoo calls ``get_assert(output, context)`` with ``context["vars"]`` (the test's
variables) and ``context["config"]`` (the assertion's config), and reads a GradingResult
(``pass``, ``score``, ``reason``, optional ``namedScores``). The real promptfoo runs the
example in ``tests/integrations/test_promptfoo_eval.py`` (``make test-integrations``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lexeval import get_metric
from lexeval.integrations.promptfoo import get_assert
from lexeval.metrics import KeywordCoverageMetric

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "promptfoo"


def test_grading_result_pass_and_fail() -> None:
    context = {"vars": {"expected": "Paris is the capital of France"}, "config": {}}
    good = get_assert("The capital of France is Paris", context)
    assert set(good) == {"pass", "score", "reason", "namedScores"}
    assert good["pass"] is True and isinstance(good["score"], float)
    assert (
        good["score"]
        == KeywordCoverageMetric()
        .measure("Paris is the capital of France", "The capital of France is Paris")
        .score
    )
    assert good["namedScores"] == {"keyword_coverage": good["score"]}
    bad = get_assert("Lyon", context)
    assert bad["pass"] is False and bad["score"] == 0.0
    assert bad["reason"] == (
        "keyword_coverage 0.000 < threshold 0.380; missing: paris, capital, france"
    )


def test_config_metric_options_threshold_and_reference_var() -> None:
    context = {
        "vars": {"gold": ["Denver Broncos", "Broncos"], "expected": "unused"},
        "config": {
            "metric": "token_f1",
            "threshold": 0.9,
            "reference_var": "gold",
            "options": {"compat": "squad"},
        },
    }
    result = get_assert("the Broncos", context)
    squad = get_metric("token_f1", compat="squad")
    assert result["score"] == squad.measure(["Denver Broncos", "Broncos"], "the Broncos").score
    assert result["pass"] is True and "token_f1 1.000 >= threshold 0.900" in result["reason"]


def test_the_question_variable() -> None:
    question = "Which river flows through Baghdad?"
    keyword = get_metric("keyword_coverage")
    asked = keyword.measure("Tigris River", "the Euphrates River", question=question).score
    assert asked < keyword.measure("Tigris River", "the Euphrates River").score
    for variables, config in (
        ({"expected": "Tigris River", "question": question}, {}),
        ({"expected": "Tigris River", "q": question}, {"question_var": "q"}),
    ):
        result = get_assert("the Euphrates River", {"vars": variables, "config": config})
        assert result["score"] == asked and result["pass"] is False
    with pytest.raises(ValueError, match="variable 'question' must be a string"):
        get_assert("x", {"vars": {"expected": "x", "question": ["a"]}})


def test_errors_say_what_is_missing() -> None:
    with pytest.raises(ValueError, match="no variable 'expected'"):
        get_assert("x", {"vars": {}, "config": {}})
    with pytest.raises(ValueError, match="rouge2 has no recommended threshold"):
        get_assert("x", {"vars": {"expected": "x"}, "config": {"metric": "rouge2"}})
    with pytest.raises(ValueError, match="string or a list of strings"):
        get_assert("x", {"vars": {"expected": 3}})


def test_the_example_config_and_assertion_file() -> None:
    config = yaml.safe_load((EXAMPLE / "promptfooconfig.yaml").read_text(encoding="utf-8"))
    assertion = config["defaultTest"]["assert"][0]
    assert assertion["type"] == "python"
    path = EXAMPLE / assertion["value"].removeprefix("file://")
    # promptfoo imports the file and calls get_assert(output, context) for every test
    spec = importlib.util.spec_from_file_location("lexeval_assert", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcomes = []
    for test in config["tests"]:
        context = {"vars": test["vars"], "config": assertion["config"]}
        outcomes.append(module.get_assert(test["vars"]["canned_output"], context)["pass"])
    assert outcomes == [True, False]  # the example has one passing and one failing answer
    proc = subprocess.run(  # the file works from a fresh interpreter, as promptfoo runs it
        [sys.executable, "-c", f"import runpy; runpy.run_path({str(path)!r})"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
