"""The optional C fast paths: every ``src/lexeval/native/<name>.c`` is built as the extension
``lexeval.native.<name>``. Metadata lives in pyproject.toml.

Each extension is ``optional``: where no C compiler is found the build skips it with a warning
on stderr (pip shows it with ``-v``; ``lexeval --version`` says "compiled" or "pure Python"
afterwards) and lexeval runs its pure-Python reference code (``lexeval.native``). The build
works in a temporary directory removed at exit, so no ``build/`` folder is left in the checkout
for a later install to reuse.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = Path("src/lexeval/native")
BUILD_BASE = tempfile.mkdtemp(prefix="lexeval-build-")
atexit.register(shutil.rmtree, BUILD_BASE, ignore_errors=True)


class WarnedBuildExt(build_ext):
    """build_ext that says on stderr which extension was not built, and what that means."""

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(
                f"WARNING: lexeval: the C extension {ext.name} was not built ({exc}); lexeval "
                "will run its pure-Python code (same results, slower). 'lexeval --version' "
                "says which code runs.",
                file=sys.stderr,
            )
            raise


setup(
    ext_modules=[
        Extension(f"lexeval.native.{source.stem}", [source.as_posix()], optional=True)
        for source in sorted(NATIVE.glob("*.c"))
    ],
    cmdclass={"build_ext": WarnedBuildExt},
    options={"build": {"build_base": BUILD_BASE}},
)
