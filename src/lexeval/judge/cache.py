"""An on-disk cache of judgments (SQLite, one file), so that re-running a judged evaluation
costs no request.

Entries are keyed on a hash of everything that can change a judgment: the server (its public
address, without credentials), the model, the prompt template's version, the decoding settings
and the messages (which hold the inputs). Only readable replies are stored; a credential is
never part of a key or a stored value.

A cache file that cannot be used (not a SQLite database, damaged, a foreign table, an entry
that does not decode) raises :class:`~lexeval.judge.errors.JudgeCacheError`, one line naming
the file and the fix. lexeval never deletes or rebuilds it: the file may hold judgments that
cost money, or not be a cache at all (a wrong ``cache=PATH``).

>>> import tempfile, os
>>> cache = JudgmentCache(os.path.join(tempfile.mkdtemp(), "judgments.sqlite3"))
>>> key = cache_key({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
>>> cache.get(key) is None
True
>>> cache.put(key, {"text": "hello"})
>>> cache.get(key)
{'text': 'hello'}
>>> len(cache)
1
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, NoReturn

from lexeval.judge.errors import JudgeCacheError

__all__ = ["JudgmentCache", "cache_key", "default_cache_path"]


def default_cache_path() -> Path:
    """``$LEXEVAL_CACHE_DIR/judgments.sqlite3``, else under ``$XDG_CACHE_HOME/lexeval`` or
    ``~/.cache/lexeval``.

    >>> default_cache_path().name
    'judgments.sqlite3'
    """
    root = os.environ.get("LEXEVAL_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = str(Path(xdg) / "lexeval")
    return Path(root) / "judgments.sqlite3"


def cache_key(parts: dict[str, Any]) -> str:
    """A stable SHA-256 of ``parts`` (canonical JSON: sorted keys, no whitespace).

    >>> cache_key({"b": 1, "a": [1, 2]}) == cache_key({"a": [1, 2], "b": 1})
    True
    """
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JudgmentCache:
    """A thread-safe key -> JSON value store in one SQLite file (created on first use).

    Each write is one transaction: an entry is stored whole or not at all.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def damaged(self, problem: str) -> JudgeCacheError:
        """The one-line error for this cache file and ``problem``, with the fix."""
        return JudgeCacheError(
            f"judgment cache {self.path} is unusable ({problem}): move or delete the file to "
            "start an empty cache, or run without the cache (cache=False; on the command line "
            "--option cache=false or --no-cache)"
        )

    def _fail(self, error: sqlite3.Error | OSError) -> NoReturn:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        problem = " ".join(str(error).split()) or type(error).__name__
        raise self.damaged(problem) from None

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
                self._connection = connection
                tables = {
                    row[0]
                    for row in connection.execute("SELECT name FROM sqlite_master")
                    if not str(row[0]).startswith("sqlite_")
                }
                columns = [row[1] for row in connection.execute("PRAGMA table_info(judgments)")]
            except (sqlite3.Error, OSError) as error:
                self._fail(error)
            if tables and (tables != {"judgments"} or columns[:2] != ["key", "value"]):
                # someone else's database: never written to
                self._fail(sqlite3.DatabaseError("it holds tables that are not lexeval's"))
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute(
                    "CREATE TABLE IF NOT EXISTS judgments "
                    "(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
                )
                connection.commit()
            except sqlite3.Error as error:
                self._fail(error)
        return self._connection

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value for ``key``, or None."""
        with self._lock:
            try:
                row = (
                    self._connect()
                    .execute("SELECT value FROM judgments WHERE key = ?", (key,))
                    .fetchone()
                )
            except sqlite3.Error as error:
                self._fail(error)
        if row is None:
            return None
        try:
            value = json.loads(row[0]) if isinstance(row[0], str) else None
        except (ValueError, RecursionError):
            value = None
        if not isinstance(value, dict):
            raise self.damaged(f"the entry {key[:12]}... does not decode")
        return value

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Store ``value`` (a JSON-ready dict) under ``key``, replacing any earlier entry."""
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        with self._lock:
            try:
                connection = self._connect()
                with connection:
                    connection.execute(
                        "INSERT OR REPLACE INTO judgments (key, value) VALUES (?, ?)", (key, text)
                    )
            except sqlite3.Error as error:
                self._fail(error)

    def __len__(self) -> int:
        with self._lock:
            try:
                row = self._connect().execute("SELECT COUNT(*) FROM judgments").fetchone()
            except sqlite3.Error as error:
                self._fail(error)
        return int(row[0])

    def close(self) -> None:
        """Close the database connection (it reopens on the next use)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __repr__(self) -> str:
        return f"<JudgmentCache {self.path}>"
