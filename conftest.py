"""Repository-wide pytest configuration.

The adapter tests in ``tests/integrations`` need the real frameworks (DeepEval, Ragas,
promptfoo), which live in ``.venv-integrations``: they are collected only where
``LEXEVAL_INTEGRATIONS=1`` (``make test-integrations``, which ``make test`` runs first), so the
main suite neither imports those frameworks nor skips their tests. The doctest run does not
import the adapter module of a framework that is not installed.
"""

from __future__ import annotations

import importlib.util
import os

collect_ignore_glob: list[str] = []
if os.environ.get("LEXEVAL_INTEGRATIONS") != "1":
    collect_ignore_glob.append("tests/integrations/*")
for framework in ("deepeval", "ragas"):
    if importlib.util.find_spec(framework) is None:
        collect_ignore_glob.append(f"src/lexeval/integrations/{framework}.py")
