"""Which build runs: ``"compiled"`` (mypyc compiled the hot modules from their Python
sources, ``setup.py``) or ``"pure Python"`` (the same sources, interpreted: the same results,
slower).

``LEXEVAL_PURE_PYTHON=1``, set before lexeval is imported, runs no compiled code: a finder
placed first on ``sys.meta_path`` for the compiled modules alone (:data:`COMPILED_MODULES`)
loads each from its ``.py`` source beside the extension, which would otherwise shadow it. A
compiled build that is missing (no C compiler at install) is said once, at first use, on
lexeval's own logger (stderr when the host has configured no logging).

>>> build() in ("compiled", "pure Python")
True
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec, PathFinder
from types import ModuleType

__all__ = ["COMPILED_MODULES", "PURE_PYTHON", "build", "note_build", "use_sources"]

#: True when ``LEXEVAL_PURE_PYTHON`` (read once, at import) asks for no compiled code.
PURE_PYTHON: bool = os.environ.get("LEXEVAL_PURE_PYTHON", "").strip() not in ("", "0")

#: The modules that setup.py compiles (its ``COMPILED``), by name.
COMPILED_MODULES = frozenset(
    [
        "lexeval.porter",
        "lexeval.compat",
        "lexeval.text.lenient",
        "lexeval.text.affixes",
        "lexeval.text.steps",
        "lexeval.text.processor",
        "lexeval.metrics.weights",
        "lexeval.metrics.keyword_lenient",
        "lexeval.metrics.overlap",
        "lexeval.metrics.rouge",
    ]
)

_logger = logging.getLogger("lexeval")
_noted = False


class _Sources(MetaPathFinder):
    """Finds the compiled modules' ``.py`` sources instead of their extensions."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in COMPILED_MODULES:
            return None
        found = PathFinder.find_spec(fullname, path)
        if found is None or found.origin is None:
            return found
        if not found.origin.endswith(tuple(EXTENSION_SUFFIXES)):
            return found
        source = os.path.join(os.path.dirname(found.origin), fullname.rpartition(".")[2] + ".py")
        if not os.path.isfile(source):
            raise ImportError(f"LEXEVAL_PURE_PYTHON is set but {source} is not installed")
        return importlib.util.spec_from_file_location(fullname, source)


_FINDER = _Sources()


def use_sources() -> None:
    """Load the compiled modules from their Python sources from now on (``lexeval/__init__``
    calls it when :data:`PURE_PYTHON`; modules already imported stay as they are)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def _compiled_present() -> bool:
    """Whether the installed lexeval has the compiled modules (a look at the files: nothing
    is imported)."""
    spec = PathFinder.find_spec("lexeval.porter", sys.modules["lexeval"].__path__)
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(EXTENSION_SUFFIXES))


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
            "lexeval: the compiled build is missing, running pure Python (the same results, "
            "about 2-5x slower); install lexeval's wheel, or build it where a C compiler is "
            "available. Set LEXEVAL_PURE_PYTHON=1 to choose pure Python and silence this."
        )
