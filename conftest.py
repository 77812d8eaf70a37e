"""Repository-wide pytest configuration: the doctest run does not import the adapter of a
framework that is not installed (``make test-integrations`` installs and tests them)."""

from __future__ import annotations

import importlib.util

collect_ignore_glob: list[str] = []
if importlib.util.find_spec("deepeval") is None:
    collect_ignore_glob.append("src/lexeval/integrations/deepeval.py")
