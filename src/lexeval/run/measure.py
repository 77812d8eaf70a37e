"""Scoring a batch with one metric, in this process or on several: :func:`measure_many`.

>>> from lexeval.metrics import TokenF1Metric
>>> [r.score for r in measure_many(TokenF1Metric(), ["a b", "c"], ["a", "c"], workers=2)]
[0.6666666666666666, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lexeval.metrics.base import Metric, MetricResult, check_batch
from lexeval.run.packing import pack_results, unpack_results
from lexeval.run.pool import map_chunks, resolve_workers

__all__ = ["measure_many"]


def measure_many(
    metric: Metric,
    inputs: Iterable[str | Sequence[str]],
    outputs: Iterable[str],
    *,
    questions: Iterable[str | None] | None = None,
    workers: int | str = 1,
    progress: bool = False,
    start_method: str | None = None,
) -> list[MetricResult]:
    """``metric.measure_many(inputs, outputs, questions)`` on ``workers`` processes: a
    positive int up to :func:`lexeval.run.pool.max_workers`, or ``"auto"`` for every core.
    The results are the same as with ``workers=1``, in the same order, whatever the
    ``start_method`` (``"fork"``, ``"forkserver"``, ``"spawn"``; default: see
    :func:`lexeval.run.pool.start_method`). ``progress=True`` shows a progress bar.

    >>> from lexeval import get_metric
    >>> scorer = get_metric("keyword_coverage")
    >>> golds, answers = ["Tigris River"] * 2, ["Euphrates River", "the Tigris"]
    >>> asked = ["Which river flows through Baghdad?"] * 2
    >>> [round(r.score, 2) for r in measure_many(scorer, golds, answers, questions=asked)]
    [0.12, 0.88]
    """
    processes = resolve_workers(workers)
    ins, outs, qs = check_batch(inputs, outputs, questions)
    if processes == 1:
        return metric.measure_many(ins, outs, qs, progress=progress)
    task = metric.measure_many
    columns: list[list[Any]] = [ins, outs, [None] * len(outs) if qs is None else qs]

    def run(on_chunk: Callable[[int], None] | None) -> list[MetricResult]:
        return map_chunks(
            task,
            columns,
            processes,
            on_chunk=on_chunk,
            method=start_method,
            pack=pack_results,
            unpack=unpack_results,
        )

    if not progress:
        return run(None)
    from lexeval.io.progress import progress_on_stderr

    with progress_on_stderr() as bar:  # standard output holds the results
        shown = bar.add_task(getattr(metric, "name", "scoring"), total=len(ins))
        return run(lambda size: bar.advance(shown, size))
