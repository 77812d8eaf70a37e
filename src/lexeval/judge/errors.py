"""The judge tier's errors: a configuration problem found before any work, or a backend that
could not give an answer (after its retries). Neither ever becomes a score.

>>> issubclass(JudgeConfigError, ValueError), issubclass(JudgeBackendError, JudgeError)
(True, True)
"""

from __future__ import annotations

__all__ = ["JudgeBackendError", "JudgeConfigError", "JudgeError"]


class JudgeError(RuntimeError):
    """Base class of the judge tier's errors."""


class JudgeConfigError(JudgeError, ValueError):
    """A judge or backend that cannot work as configured (e.g. no API key for a remote URL)."""


class JudgeBackendError(JudgeError, OSError):
    """The server did not answer usably: unreachable, timed out, or an error status, after the
    configured retries. An :class:`OSError` too (a failed exchange with another machine), so
    the command line reports it in one line with exit code 2."""
