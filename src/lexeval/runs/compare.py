"""Comparing stored runs with the code of ``lexeval compare``: two scored documents through
:func:`lexeval.scored.compare_scored`, two card reports through
:func:`lexeval.cards.compare.compare_runs` (the document's shape decides, as in ``compare``).
"""

from __future__ import annotations

import json
from typing import Any

from lexeval.cards.compare import Comparison, compare_runs, parse_report
from lexeval.runs.store import StoredRun, StoreError
from lexeval.scored import ScoredComparison, compare_scored, is_scored_document, parse_scored

__all__ = ["compare_documents", "compare_stored", "run_name"]


def run_name(run: StoredRun) -> str:
    """How a comparison names a stored run: ``run 7 (prompt v2)``.

    >>> run_name(StoredRun(7, "score", "prompt v2", "", (), "0.1.0", None))
    'run 7 (prompt v2)'
    """
    return f"run {run.id}" + (f" ({run.label})" if run.label else "")


def compare_documents(
    base: tuple[str, str],
    candidate: tuple[str, str],
    **options: Any,
) -> Comparison | ScoredComparison:
    """Compare two JSON documents, each given as (name, text), exactly as ``lexeval compare``
    compares two files; ``options`` are those of :func:`compare_scored` and
    :func:`compare_runs` (``max_drop``, ``seed``, ``n_resamples``, ``alpha``,
    ``allow_signature_mismatch``). ValueError when the runs are not comparable."""
    parsed = []
    for name, text in (base, candidate):
        try:
            parsed.append((name, json.loads(text)))
        except ValueError as exc:
            raise StoreError(f"{name}: the stored document is not JSON ({exc})") from None
    kinds = [is_scored_document(data) for _, data in parsed]
    if kinds[0] != kinds[1]:
        raise StoreError(
            f"{parsed[0][0]} and {parsed[1][0]} are not of the same kind (a scored run and a "
            "card run): compare two of the same kind"
        )
    if kinds[0]:
        return compare_scored(
            parse_scored(*parsed[0]),
            parse_scored(*parsed[1]),
            **options,
        )
    return compare_runs(parse_report(*parsed[0]), parse_report(*parsed[1]), **options)


def compare_stored(
    base: StoredRun, candidate: StoredRun, **options: Any
) -> Comparison | ScoredComparison:
    """Compare two loaded runs (:meth:`lexeval.runs.RunStore.load`) of the same kind."""
    if base.kind != candidate.kind:
        raise StoreError(
            f"{run_name(base)} is a {base.kind} run and {run_name(candidate)} a "
            f"{candidate.kind} run: compare two of the same kind"
        )
    if base.document is None or candidate.document is None:
        raise StoreError("compare loaded runs (RunStore.load), not listed ones")
    return compare_documents(
        (run_name(base), base.document), (run_name(candidate), candidate.document), **options
    )
