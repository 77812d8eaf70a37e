"""The optional C fast paths: every ``src/lexeval/native/<name>.c`` is built as the extension
``lexeval.native.<name>``. Metadata lives in pyproject.toml.

Each extension is ``optional``: where no C compiler is found the build skips it with a warning
and lexeval runs its pure-Python reference code (``lexeval.native``).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import Extension, setup

NATIVE = Path("src/lexeval/native")

setup(
    ext_modules=[
        Extension(f"lexeval.native.{source.stem}", [source.as_posix()], optional=True)
        for source in sorted(NATIVE.glob("*.c"))
    ]
)
