"""Repository-wide pytest configuration.

The adapter tests in ``tests/integrations`` that run the real frameworks (DeepEval, Ragas,
promptfoo: :data:`FRAMEWORK_TESTS`), which live in ``.venv-integrations``, are collected only
where ``LEXEVAL_INTEGRATIONS=1`` (``make test-integrations``, which ``make test`` runs first), so
the main suite neither imports those frameworks nor skips their tests; the contract test of the
promptfoo assertion (``tests/integrations/test_promptfoo.py``) runs in both. The doctest run
does not import the adapter module of a framework that is not installed.
"""

from __future__ import annotations

import importlib.util
import os

FRAMEWORK_TESTS = [
    "tests/integrations/test_deepeval_adapter.py",
    "tests/integrations/test_promptfoo_eval.py",
    "tests/integrations/test_ragas_adapter.py",
]

collect_ignore_glob: list[str] = []
if os.environ.get("LEXEVAL_INTEGRATIONS") != "1":
    collect_ignore_glob += FRAMEWORK_TESTS
for framework in ("deepeval", "ragas"):
    if importlib.util.find_spec(framework) is None:
        collect_ignore_glob.append(f"src/lexeval/integrations/{framework}.py")
