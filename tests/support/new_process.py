"""Python code run in a new process that imports this checkout's lexeval: for tests that must
leave the test process alone (its own signal handlers, the debug allocator, switches read at
import such as ``LEXEVAL_PURE_PYTHON``) or whose failure could be a crash or a hang."""

from __future__ import annotations

import os
import subprocess
import sys


def run_python(
    code: str,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """``python -c code *args`` with this process's import path and ``env`` added to its
    environment; output captured as text (``check``: a non-zero exit raises)."""
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
    )
