"""Which build runs: ``"compiled"`` (``setup.py`` built every C kernel of ``lexeval.native``,
:data:`NATIVE_MODULES`) or ``"pure Python"`` (the Python code alone: the same results,
slower).

``LEXEVAL_PURE_PYTHON=1``, set before lexeval is imported, runs no compiled code
(``lexeval.native.load`` loads no kernel). A compiled build that is missing (no C compiler at
install) is said once, at first use, on lexeval's own logger (stderr when the host has
configured no logging; the host's logging and warnings settings are left alone).

>>> build() in ("compiled", "pure Python")
True
"""

from __future__ import annotations

import logging
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, PathFinder

__all__ = ["NATIVE_MODULES", "PURE_PYTHON", "build", "note_build"]

#: True when ``LEXEVAL_PURE_PYTHON`` (read once, at import) asks for no compiled code.
PURE_PYTHON: bool = os.environ.get("LEXEVAL_PURE_PYTHON", "").strip() not in ("", "0")

#: The C kernels (``src/lexeval/native/*.c``) that setup.py builds, by name: ``rouge`` alone.
NATIVE_MODULES: frozenset[str] = frozenset(["rouge"])

_logger = logging.getLogger("lexeval")
_noted = False


def _compiled_present() -> bool:
    """Whether the installed lexeval has every C kernel (a look at the files: nothing is
    imported)."""
    path = [os.path.join(p, "native") for p in sys.modules["lexeval"].__path__]
    for name in NATIVE_MODULES:
        spec = PathFinder.find_spec(f"lexeval.native.{name}", path)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(tuple(EXTENSION_SUFFIXES)):
            return False
    return True


def build() -> str:
    """``"compiled"`` or ``"pure Python"``: the code that runs in this process."""
    if PURE_PYTHON or not _compiled_present():
        return "pure Python"
    return "compiled"


def note_build() -> None:
    """Once per process, when the compiled build is missing (and was not declined with
    ``LEXEVAL_PURE_PYTHON``), a warning on the ``lexeval`` logger."""
    global _noted
    if _noted:
        return
    _noted = True
    if not PURE_PYTHON and not _compiled_present():
        _logger.warning(
            "lexeval: the compiled build is missing, running pure Python (the same results; "
            "ROUGE about 3x slower); install lexeval's wheel, or build it where a C compiler is "
            "available. Set LEXEVAL_PURE_PYTHON=1 to choose pure Python and silence this."
        )
