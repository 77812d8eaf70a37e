"""The judge tier's errors: a configuration problem found before any work, a backend that
could not give an answer (after its retries), or a judgment cache that cannot be read. None
ever becomes a score; each is one line that names the judge, the server or the cache file.

>>> issubclass(JudgeConfigError, ValueError), issubclass(JudgeBackendError, JudgeError)
(True, True)
>>> issubclass(JudgeCacheError, OSError)
True
"""

from __future__ import annotations

__all__ = ["JudgeBackendError", "JudgeCacheError", "JudgeConfigError", "JudgeError"]


class JudgeError(RuntimeError):
    """Base class of the judge tier's errors (the command line: one line, exit code 2)."""


class JudgeConfigError(JudgeError, ValueError):
    """A judge or backend that cannot work as configured (e.g. no API key for a remote URL)."""


class JudgeBackendError(JudgeError, OSError):
    """The server did not answer usably: unreachable, timed out, an error status, or a body
    that is not a chat completion, after the configured retries. An :class:`OSError` too (a
    failed exchange with another machine), so the command line reports it in one line with
    exit code 2."""


class JudgeCacheError(JudgeError, OSError):
    """The judgment cache file cannot be used (not a database, damaged, or an entry that does
    not decode). lexeval never deletes it: the message names the file and the fix (move it
    away, or run without the cache)."""
