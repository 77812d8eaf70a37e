"""Remembering runs: a SQLite run store (:class:`RunStore`), named baselines, and the schema
with its migrations (:mod:`lexeval.runs.schema`). The command line's ``--save``, ``--baseline``
and ``lexeval runs`` use this API; so can any program::

    from lexeval.runs import RunStore

    with RunStore.open(".lexeval/runs.sqlite", create=True) as store:
        run_id = store.save("score", document, label="prompt v2")
        store.bless(run_id, "main")
"""

from __future__ import annotations

from lexeval.runs.schema import APPLICATION_ID, SCHEMA_VERSION, document_corpus, document_means
from lexeval.runs.store import (
    DEFAULT_STORE,
    KINDS,
    STORE_ENV,
    Figure,
    RunStore,
    StoredRun,
    StoreError,
    current_git_commit,
    store_path,
)

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_STORE",
    "KINDS",
    "SCHEMA_VERSION",
    "STORE_ENV",
    "Figure",
    "RunStore",
    "StoreError",
    "StoredRun",
    "current_git_commit",
    "document_corpus",
    "document_means",
    "store_path",
]
