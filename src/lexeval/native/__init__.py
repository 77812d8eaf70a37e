"""Compiled fast paths (C extensions) and whether they are in use.

Each ``src/lexeval/native/<name>.c`` is built as ``lexeval.native.<name>`` when lexeval is
installed (``setup.py``; ``python setup.py build_ext --inplace`` in a checkout). The pure-Python
code each one speeds up stays the reference: it runs when the extension was not built (no C
compiler at install) or when the environment variable ``LEXEVAL_PURE_PYTHON=1`` is set before
lexeval is imported. Both paths give identical results (property tests compare them).

>>> PURE_PYTHON in (True, False)
True
>>> load("no_such_module") is None
True
"""

from __future__ import annotations

import importlib
from types import ModuleType

from lexeval._build import PURE_PYTHON

__all__ = ["PURE_PYTHON", "load"]


def load(name: str) -> ModuleType | None:
    """The compiled module ``lexeval.native.<name>``, or None when it was not built or
    ``LEXEVAL_PURE_PYTHON`` is set."""
    if PURE_PYTHON:
        return None
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None
