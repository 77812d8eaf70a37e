"""The promptfoo example run by the real promptfoo (``make test-integrations``: 0.121.20).

``promptfoo eval`` runs ``examples/promptfoo/promptfooconfig.yaml`` as written (the echo
provider, no model), calling lexeval's Python assertion in this interpreter; its JSON output
must carry, for each test, the verdict, score and reason that ``get_assert`` gives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from lexeval.integrations.promptfoo import get_assert

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "promptfoo" / "promptfooconfig.yaml"
# the pinned install of make test-integrations (a relative path is from the repository root)
PROMPTFOO = ROOT / os.environ.get(
    "LEXEVAL_PROMPTFOO", ".venv-integrations/promptfoo/node_modules/.bin/promptfoo"
)
FAILED_TESTS_EXIT = 100  # promptfoo's exit status when an assertion fails


def test_promptfoo_eval_runs_the_example(tmp_path: Path) -> None:
    assert PROMPTFOO.exists(), f"{PROMPTFOO} is missing: run make test-integrations"
    out = tmp_path / "results.json"
    env = {
        **os.environ,
        "PROMPTFOO_PYTHON": sys.executable,
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
    }
    command = [str(PROMPTFOO), "eval", "-c", str(EXAMPLE), "--no-cache", "--no-write"]
    proc = subprocess.run(
        [*command, "--no-table", "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == FAILED_TESTS_EXIT, proc.stdout + proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    results = sorted(report["results"]["results"], key=lambda r: r["testIdx"])
    config = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    assertion = config["defaultTest"]["assert"][0]
    assert len(results) == len(config["tests"]) == 2
    for result, test in zip(results, config["tests"], strict=True):
        answer = test["vars"]["canned_output"]  # the echo provider returns the prompt
        assert result["response"]["output"] == answer
        expected = get_assert(answer, {"vars": test["vars"], "config": assertion["config"]})
        (graded,) = result["gradingResult"]["componentResults"]
        assert graded["pass"] is expected["pass"] and result["success"] is expected["pass"]
        assert graded["score"] == expected["score"]
        assert graded["reason"] == expected["reason"]
        assert result["namedScores"] == expected["namedScores"]
    assert [r["success"] for r in results] == [True, False]
    assert "missing: water, 100, celsius" in results[1]["gradingResult"]["reason"]
