"""The run layer: how pairs are scored in bulk, above the metrics (which only score pairs).

* :func:`measure_many` (:mod:`lexeval.run.measure`): one metric over a batch, on ``workers``
  processes;
* :mod:`lexeval.run.pool`: the process pool itself (``workers``, chunking, start methods);
* :mod:`lexeval.run.packing`: how a chunk's results travel from a worker to the caller;
* :mod:`lexeval.run.batch`: records read from JSONL, JSON, CSV or TSV, scored by several
  metrics (the CLI's ``lexeval score``);
* :mod:`lexeval.run.dask`: the same scoring on a Dask cluster (optional extra ``dask``).

>>> from lexeval.metrics import TokenF1Metric
>>> [r.score for r in measure_many(TokenF1Metric(), ["a b"], ["a"])]
[0.6666666666666666]
"""

from __future__ import annotations

from lexeval.run.measure import measure_many
from lexeval.run.pool import MIN_CHUNK, WorkerError, available_cores, max_workers, resolve_workers

__all__ = [
    "MIN_CHUNK",
    "WorkerError",
    "available_cores",
    "max_workers",
    "measure_many",
    "resolve_workers",
]
