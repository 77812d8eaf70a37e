"""First-result latency: what a new process imports. Importing lexeval's metrics and scoring
with a compat mode loads neither spaCy nor numpy, scipy or nltk; nltk comes only with stemming.
(Times are measured in benchmarks/speed/first_result.py, never here.)"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("spacy", "numpy", "scipy", "nltk", "sklearn", "pandas")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    modules = set(json.loads(out.strip().splitlines()[-1]))
    return {name for name in HEAVY if name in modules}


def test_importing_the_metrics_loads_nothing_heavy() -> None:
    assert _loaded_after("import lexeval.metrics\nimport lexeval") == set()


def test_compat_modes_score_without_spacy_or_nltk() -> None:
    code = """
from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric
KeywordCoverageMetric(compat="mastra").measure("the cat sat", "a cat")
RougeMetric("rougeLsum", compat="rouge-score").measure("the cat sat", "a cat")
TokenF1Metric(compat="squad").measure("the cat sat", "a cat")
"""
    assert _loaded_after(code) == set()


def test_stemming_loads_the_stemmer_alone() -> None:
    """rouge-score's Porter stems come from lexeval.porter (nltk's algorithm), not from
    nltk's package, whose import loads most of nltk."""
    code = """
from lexeval.metrics import RougeMetric
RougeMetric("rouge1", compat="rouge-score", use_stemmer=True).measure("cats sat", "a cat")
"""
    assert _loaded_after(code) == set()


def test_rouge_scorer_loads_no_other_metric() -> None:
    """The ROUGE scorer of the README, stemming or not, loads ROUGE's module alone: no other
    metric, no normalizer, no spaCy, nltk, numpy or scipy."""
    for stem in (False, True):
        code = f"""
from lexeval.metrics.rouge import RougeScorer
scorer = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], compat="rouge-score",
                     use_stemmer={stem})
scorer.score("The cats sat.", "a cat sat")
import sys
"""
        probe = code + "\nimport json\nprint(json.dumps(sorted(sys.modules)))"
        out = (
            subprocess.run(
                [sys.executable, "-c", probe], capture_output=True, text=True, check=True
            )
            .stdout.strip()
            .splitlines()
        )
        modules = set(json.loads(out[-1]))
        assert {name for name in HEAVY if name in modules} == set()
        loaded = {m for m in modules if m.startswith("lexeval.metrics.")}
        assert loaded <= {
            f"lexeval.metrics.{m}" for m in ("aggregate", "base", "evidence", "overlap", "rouge")
        }
        assert "lexeval.normalize" not in modules


def test_lazy_names_are_the_objects_whatever_was_imported_first() -> None:
    code = """
import lexeval.metrics.aggregate
import lexeval.metrics.rouge
from lexeval.metrics import RougeScorer, aggregate, TokenF1Metric
assert callable(aggregate) and not hasattr(aggregate, "__path__")
assert type(aggregate).__name__ == "function", aggregate
assert RougeScorer.__name__ == "RougeScorer" and TokenF1Metric.__name__ == "TokenF1Metric"
"""
    assert _loaded_after(code) == set()
