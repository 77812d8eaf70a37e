"""Compiled fast paths (C extensions) and whether they are in use.

Each ``src/lexeval/native/<name>.c`` is built as ``lexeval.native.<name>`` when lexeval is
installed (``setup.py``; ``python setup.py build_ext --inplace`` in a checkout). The pure-Python
code each one speeds up stays the reference: it runs when the extension was not built (no C
compiler at install) or when the environment variable ``LEXEVAL_PURE_PYTHON=1`` is set before
lexeval is imported. Both paths give identical results (property tests compare them).

Each module initializes in several phases (PEP 489) and declares what it supports: each
relies on the GIL (``Py_mod_gil``, so a free-threaded Python turns the GIL on when one loads).
There is one: ``rouge`` (rouge-score's Porter stems, tokens and counts: strings in, numbers
out). It keeps its state (its tables of tokens) per module object, so per interpreter, and
loads in subinterpreters, a GIL each supported (``Py_mod_multiple_interpreters``).

>>> PURE_PYTHON in (True, False)
True
>>> load("no_such_module") is None
True
>>> build_kind() in ("compiled", "pure Python") or build_kind().startswith(("pure", "partly"))
True
"""

from __future__ import annotations

import importlib
from types import ModuleType

from lexeval._build import NATIVE_MODULES, PURE_PYTHON

#: The compiled modules a full build has (``lexeval.native.<name>``), in order: the one list
#: of :mod:`lexeval._build` (a test checks it against the sources).
MODULES: tuple[str, ...] = tuple(sorted(NATIVE_MODULES))

__all__ = ["MODULES", "PURE_PYTHON", "build_kind", "load"]


def load(name: str) -> ModuleType | None:
    """The compiled module ``lexeval.native.<name>``, or None when it was not built or
    ``LEXEVAL_PURE_PYTHON`` is set."""
    if PURE_PYTHON:
        return None
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None


def build_kind() -> str:
    """Which code runs: ``compiled`` (every module of :data:`MODULES` loads), ``pure Python: ``
    and the reason (``LEXEVAL_PURE_PYTHON`` set, or nothing built), or ``partly compiled, not
    built: `` and the modules missing. ``lexeval --version`` says it."""
    if PURE_PYTHON:
        return "pure Python: LEXEVAL_PURE_PYTHON is set"
    missing = [name for name in MODULES if load(name) is None]
    if not missing:
        return "compiled"
    if len(missing) == len(MODULES):
        return "pure Python: the C extensions were not built"
    return f"partly compiled, not built: {', '.join(missing)}"
