"""Kept for old imports: the Dask backend lives in :mod:`lexeval.run.dask` (optional extra
``dask``)."""

from __future__ import annotations

from lexeval.run.dask import (
    COUNT_FIELDS,
    PartitionScorer,
    aggregate_dask,
    builds_in_this_process,
    score_dask,
)

__all__ = [
    "COUNT_FIELDS",
    "PartitionScorer",
    "aggregate_dask",
    "builds_in_this_process",
    "score_dask",
]
