"""The compiled build: mypyc compiles the modules that carry the hot paths (keyword coverage's
text analysis and lenient matching, ROUGE's tokens, stems and overlaps) from the same typed
Python that runs uncompiled; there is no second implementation. Metadata lives in pyproject.toml.

The build stays optional: with ``LEXEVAL_PURE_PYTHON=1`` in the build's environment, or where
mypyc or a C compiler is missing, the install is pure Python (the same results, slower), and
lexeval says so (``lexeval --version``; a note on stderr at first use). ``LEXEVAL_PURE_PYTHON=1``
at run time makes an installed compiled build run its Python sources instead
(:mod:`lexeval._build`).
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: The compiled modules (paths under src/lexeval): what keyword coverage's and ROUGE's calls
#: spend their time in. Each must stay mypy-strict and free of monkeypatching.
COMPILED = [
    "porter.py",
    "compat.py",
    "text/lenient.py",
    "text/affixes.py",
    "text/steps.py",
    "text/processor.py",
    "metrics/weights.py",
    "metrics/keyword_lenient.py",
    "metrics/overlap.py",
    "metrics/rouge.py",
]


def _pure() -> bool:
    return os.environ.get("LEXEVAL_PURE_PYTHON", "").strip() not in ("", "0")


def _ext_modules() -> list[object]:
    if _pure():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("lexeval: mypyc is not installed: building pure Python", file=sys.stderr)
        return []
    modules = mypycify(
        [f"src/lexeval/{path}" for path in COMPILED],
        opt_level="3",
        group_name="lexeval",
    )
    for module in modules:
        module.optional = True  # no C compiler: a warning, and the pure-Python install
    return list(modules)


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to the pure-Python install where no C compiler runs at
    all (setuptools' ``optional`` covers a failed compile, not a missing compiler)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any failure: the pure install
            print(f"lexeval: compiled build failed ({error}): pure Python", file=sys.stderr)


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
