"""The run store's SQLite schema, its version and the migrations from older versions.

A store is a SQLite file whose ``PRAGMA application_id`` is :data:`APPLICATION_ID` (``LXEV``)
and whose ``PRAGMA user_version`` is the schema version it was written with. A store of an
older version is read only after ``lexeval runs migrate`` (:func:`migrate`, one transaction);
one of a newer version is never read nor written.

Versions:

1. ``runs`` (id, kind, label, created, command, lexeval_version, document) and ``baselines``.
2. ``runs.git_commit`` (the commit of the working directory), and ``run_means`` (each run's
   per-metric means, for listing without reading the documents); migrating from 1 computes the
   means of the stored documents.

>>> SCHEMA_VERSION, hex(APPLICATION_ID)
(2, '0x4c584556')
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "APPLICATION_ID",
    "CARD_MEANS",
    "MIGRATIONS",
    "SCHEMAS",
    "SCHEMA_VERSION",
    "create_schema",
    "document_corpus",
    "document_means",
    "insert_means",
    "migrate",
]

#: ``PRAGMA application_id`` of a lexeval run store: the bytes ``LXEV``.
APPLICATION_ID = 0x4C584556
#: The schema version this lexeval writes (``PRAGMA user_version``).
SCHEMA_VERSION = 2

_RUNS_V1 = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    label TEXT,
    created TEXT NOT NULL,
    command TEXT NOT NULL,
    lexeval_version TEXT NOT NULL,
    document TEXT NOT NULL
)"""
_BASELINES = """
CREATE TABLE baselines (
    name TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    blessed TEXT NOT NULL
)"""
_MEANS = """
CREATE TABLE run_means (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    metric TEXT NOT NULL,
    mean REAL,
    PRIMARY KEY (run_id, metric)
)"""

#: The statements that make each schema version from nothing (tests build older stores with
#: them).
SCHEMAS: dict[int, tuple[str, ...]] = {
    1: (_RUNS_V1, _BASELINES),
    2: (
        _RUNS_V1.replace("document TEXT NOT NULL", "git_commit TEXT,\n    document TEXT NOT NULL"),
        _BASELINES,
        _MEANS,
    ),
}

#: The card report totals a card run lists, in order.
CARD_MEANS: tuple[str, ...] = (
    "micro.recall",
    "micro.precision",
    "micro.f1",
    "micro.avg_similarity",
    "macro.recall",
    "macro.precision",
    "macro.f1",
    "macro.avg_similarity",
)


def create_schema(connection: sqlite3.Connection, version: int = SCHEMA_VERSION) -> None:
    """Create the tables of schema ``version`` and stamp the file (inside the caller's
    transaction)."""
    for statement in SCHEMAS[version]:
        connection.execute(statement)
    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    connection.execute(f"PRAGMA user_version = {version}")


def _number(value: Any) -> float | None:
    """A stored figure as a finite float, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond a float's range
        return None
    return number if math.isfinite(number) else None


def document_corpus(kind: str, document: Mapping[str, Any]) -> dict[str, float | None]:
    """The corpus figures of a stored score document, in its order: ``summary.<m>.corpus.score``
    of each metric whose summary has a corpus figure (BLEU, chrF, TER, WER, CER; None where it
    is not a finite number); empty for other kinds and for documents written before corpus
    figures were stored.

    >>> summary = {"bleu": {"mean": 0.2, "corpus": {"score": 0.3}}, "rouge1": {"mean": 0.5}}
    >>> document_corpus("score", {"summary": summary})
    {'bleu': 0.3}
    >>> document_corpus("cards", {"summary": summary})
    {}
    """
    summary = document.get("summary")
    if kind != "score" or not isinstance(summary, dict):
        return {}
    return {
        str(name): _number(agg["corpus"].get("score"))
        for name, agg in summary.items()
        if isinstance(agg, dict) and isinstance(agg.get("corpus"), dict)
    }


def document_means(kind: str, document: Mapping[str, Any]) -> dict[str, float | None]:
    """The per-metric means of a stored document, in its order: each metric's ``mean`` of a
    scored run's summary; the micro and macro totals of a card or record run (None where
    missing).

    >>> document_means("score", {"summary": {"rouge1": {"mean": 0.5}, "token_f1": {}}})
    {'rouge1': 0.5, 'token_f1': None}
    >>> document_means("cards", {"totals": {"micro": {"f1": 0.75}}})["micro.f1"]
    0.75
    """
    if kind in ("cards", "match"):  # a record report has the card report's totals
        totals = document.get("totals")
        totals = totals if isinstance(totals, dict) else {}
        means: dict[str, float | None] = {}
        for name in CARD_MEANS:
            scope, _, metric = name.partition(".")
            block = totals.get(scope)
            means[name] = _number(block.get(metric)) if isinstance(block, dict) else None
        return means
    summary = document.get("summary")
    if not isinstance(summary, dict):
        return {}
    return {
        str(name): _number(agg.get("mean")) if isinstance(agg, dict) else None
        for name, agg in summary.items()
    }


def insert_means(
    connection: sqlite3.Connection, run_id: int, means: Mapping[str, float | None]
) -> None:
    """Write a run's means (schema 2 and later)."""
    connection.executemany(
        "INSERT INTO run_means (run_id, position, metric, mean) VALUES (?, ?, ?, ?)",
        [(run_id, i, name, value) for i, (name, value) in enumerate(means.items())],
    )


def _migrate_1_to_2(connection: sqlite3.Connection) -> None:
    connection.execute("ALTER TABLE runs ADD COLUMN git_commit TEXT")
    connection.execute(_MEANS)
    rows = connection.execute("SELECT id, kind, document FROM runs ORDER BY id").fetchall()
    for run_id, kind, text in rows:
        try:
            document = json.loads(text)
        except ValueError:
            raise ValueError(f"run {run_id}: its stored document is not JSON") from None
        insert_means(connection, run_id, document_means(kind, document))


#: ``MIGRATIONS[n]`` turns schema ``n`` into ``n + 1``, in the caller's transaction.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _migrate_1_to_2}


def migrate(connection: sqlite3.Connection, version: int) -> int:
    """Bring a store of schema ``version`` to :data:`SCHEMA_VERSION` inside the caller's
    transaction; the version reached."""
    while version < SCHEMA_VERSION:
        MIGRATIONS[version](connection)
        version += 1
        connection.execute(f"PRAGMA user_version = {version}")
    return version
