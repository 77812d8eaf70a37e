"""Score pairs on a Dask cluster, and with the same partition function on Ray or Spark.

Needs the optional extra: ``pip install 'lexeval[dask]'`` (``dask[distributed]`` and pandas).

* :class:`PartitionScorer` turns one pandas DataFrame of pairs into a DataFrame of results. It
  pickles to the metrics' configuration; each worker process builds the metrics (and their
  normalizer, spaCy included) once and reuses them for every partition it is given.
* :func:`score_dask` maps it over a Dask DataFrame (or a Bag of pairs) and returns a Dask
  DataFrame of results, partition by partition, with the input's index.
* :func:`aggregate_dask` summarises one metric's results: the counts are summed where the
  results are, the scores come back in order (8 bytes a pair) for the seeded bootstrap, and
  the result equals :func:`lexeval.aggregate` on the same pairs scored serially.

Columns of the results, for a metric named ``rougeL``: ``rougeL`` (the score),
``rougeL.passed`` (the verdict when the metric has a threshold, else missing),
``rougeL.overlap``, ``rougeL.reference``, ``rougeL.output`` (the counts that
:func:`lexeval.aggregate` pools; missing when the metric reports none) and, with
``info=True``, ``rougeL.info`` (the whole ``info`` as JSON text).

>>> import dask.dataframe as dd
>>> import pandas as pd
>>> pairs = pd.DataFrame({"reference": ["the cat sat on the mat", "a dog"],
...                       "output": ["the cat sat", "a dog barked"]})
>>> ddf = dd.from_pandas(pairs, npartitions=2)
>>> results = score_dask(ddf, ["rouge1", "token_f1"])
>>> results.compute(scheduler="sync")[["rouge1", "rouge1.overlap", "token_f1"]]
     rouge1  rouge1.overlap  token_f1
0  0.666667               3  0.666667
1  0.800000               2  0.800000
>>> aggregate_dask(results, "rouge1", n_boot=100).micro_recall
0.625
"""

from __future__ import annotations

import hashlib
import json
import pickle
import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lexeval.metrics.aggregate import AggregateResult, aggregate_scores
from lexeval.metrics.base import BaseMetric, Metric
from lexeval.registry import get_metric

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COUNT_FIELDS",
    "PartitionScorer",
    "aggregate_dask",
    "build_once",
    "builds_in_this_process",
    "configuration_key",
    "score_dask",
]

# Metrics built in this (worker) process from their pickled configuration, by its digest (a
# few): a Dask worker lives on between tasks and keeps its warm metrics.
_BUILT: OrderedDict[str, Any] = OrderedDict()
_BUILDS: Counter[str] = Counter()
_MAX_BUILT = 8
_BUILD_LOCK = threading.Lock()


def configuration_key(blob: bytes) -> str:
    """A short digest of a pickled configuration, the key of :func:`build_once`."""
    return hashlib.sha256(blob).hexdigest()[:16]


def build_once(key: str, blob: bytes) -> Any:
    """The object pickled in ``blob``, unpickled at most once per process for ``key``.

    >>> blob = pickle.dumps({"a": 1})
    >>> build_once(configuration_key(blob), blob) is build_once(configuration_key(blob), blob)
    True
    """
    with _BUILD_LOCK:
        built = _BUILT.get(key)
        if built is None:
            built = pickle.loads(blob)
            _BUILDS[key] += 1
            _BUILT[key] = built
            while len(_BUILT) > _MAX_BUILT:
                _BUILT.popitem(last=False)
        else:
            _BUILT.move_to_end(key)
        return built


def builds_in_this_process() -> dict[str, int]:
    """How many times this process built each configuration (1 each on a worker).

    >>> isinstance(builds_in_this_process(), dict)
    True
    """
    with _BUILD_LOCK:
        return dict(_BUILDS)


#: The count columns each metric may have (``<name>.overlap`` and so on).
COUNT_FIELDS = ("overlap", "reference", "output")

MetricSpec = Metric | str
MetricsArg = MetricSpec | Sequence[MetricSpec] | Mapping[str, MetricSpec]

# One partition at a time per process: pure-Python scoring gains nothing from threads, and
# a metric's caches then serve one partition after the other.
_LOCK = threading.RLock()


def _resolve(metrics: MetricsArg) -> dict[str, Metric]:
    """``{column name: metric}`` from a metric, a name, a list of them or a dict."""
    if isinstance(metrics, Mapping):
        items = [(str(k), v) for k, v in metrics.items()]
    else:
        specs = [metrics] if isinstance(metrics, (str, BaseMetric, Metric)) else list(metrics)
        items = [(spec if isinstance(spec, str) else spec.name, spec) for spec in specs]
    if not items:
        raise ValueError("metrics is empty")
    resolved: dict[str, Metric] = {}
    for column, spec in items:
        metric = get_metric(spec) if isinstance(spec, str) else spec
        if not isinstance(metric, Metric):
            raise TypeError(f"metrics must be metrics or metric names, not {type(spec).__name__}")
        if column in resolved:
            raise ValueError(
                f"two metrics would be column {column!r}: pass a dict {{column: metric}}"
            )
        if "." in column:
            raise ValueError(f"a metric column name cannot contain '.': {column!r}")
        resolved[column] = metric
    return resolved


class PartitionScorer:
    """A picklable function from a pandas DataFrame of pairs to a DataFrame of results.

    Args:
        metrics: a metric, a metric name, a list of them, or ``{column: metric}``.
        reference: the column of references (a ``str`` or a list of ``str`` per row).
        output: the column of outputs (``str``).
        info: add a ``<name>.info`` column with each result's ``info`` as JSON.

    >>> import pandas as pd
    >>> scorer = PartitionScorer("token_f1")
    >>> scorer(pd.DataFrame({"reference": ["a b"], "output": ["a"]}))["token_f1"].tolist()
    [0.6666666666666666]
    """

    def __init__(
        self,
        metrics: MetricsArg,
        *,
        reference: str = "reference",
        output: str = "output",
        info: bool = False,
    ) -> None:
        resolved = _resolve(metrics)
        try:
            blob = pickle.dumps(resolved, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise TypeError(f"the metrics cannot be pickled for the workers: {exc}") from None
        self.reference = reference
        self.output = output
        self.info = bool(info)
        self.columns = tuple(resolved)
        self.key = configuration_key(blob)
        self._blob = blob
        self._metrics: dict[str, Metric] | None = resolved

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_metrics"] = None  # only the configuration travels
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __dask_tokenize__(self) -> tuple[str, ...]:
        return ("lexeval.PartitionScorer", self.key, self.reference, self.output, str(self.info))

    def __repr__(self) -> str:
        return f"PartitionScorer({', '.join(self.columns)}; key {self.key})"

    def metrics(self) -> dict[str, Metric]:
        """The metrics, built at most once per process for this configuration
        (:func:`build_once`)."""
        if self._metrics is not None:
            return self._metrics
        built: dict[str, Metric] = build_once(self.key, self._blob)
        self._metrics = built
        return built

    @property
    def meta(self) -> pd.DataFrame:
        """An empty DataFrame with the result columns and their dtypes."""
        import pandas as pd

        series: dict[str, Any] = {}
        for column in self.columns:
            series[column] = pd.Series([], dtype="float64")
            series[f"{column}.passed"] = pd.Series([], dtype="boolean")
            for name in COUNT_FIELDS:
                series[f"{column}.{name}"] = pd.Series([], dtype="Int64")
            if self.info:
                series[f"{column}.info"] = pd.Series([], dtype="object")
        return pd.DataFrame(series)

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Score every row of ``frame``; the result has ``frame``'s index."""
        import pandas as pd

        for column in (self.reference, self.output):
            if column not in frame.columns:
                raise ValueError(
                    f"the pairs have no column {column!r} (columns: {', '.join(map(str, frame))})"
                )
        references = [
            _reference(value, index, self.reference)
            for index, value in zip(frame.index, frame[self.reference], strict=True)
        ]
        outputs = [
            _output(value, index, self.output)
            for index, value in zip(frame.index, frame[self.output], strict=True)
        ]
        data: dict[str, Any] = {}
        metrics = self.metrics()
        with _LOCK:
            for column, metric in metrics.items():
                results = metric.measure_many(references, outputs)
                data[column] = pd.Series([r.score for r in results], dtype="float64")
                data[f"{column}.passed"] = pd.Series([r.passed for r in results], dtype="boolean")
                counts = [r.info.get("counts") for r in results]
                for name in COUNT_FIELDS:
                    values = [c[name] if isinstance(c, dict) else None for c in counts]
                    data[f"{column}.{name}"] = pd.Series(values, dtype="Int64")
                if self.info:
                    data[f"{column}.info"] = pd.Series(
                        [json.dumps(r.info, ensure_ascii=False) for r in results], dtype="object"
                    )
        result = pd.DataFrame(data) if data else self.meta
        result.index = frame.index
        return result


def _reference(value: object, index: object, column: str) -> str | list[str]:
    if type(value) is str:
        return value
    if hasattr(value, "tolist") and not isinstance(value, str):  # numpy arrays (Parquet, Spark)
        value = value.tolist()
    if isinstance(value, (list, tuple)) and value and all(type(v) is str for v in value):
        return list(value)
    raise ValueError(
        f"row {index!r}, column {column!r}: a reference must be a str or a non-empty list of "
        f"str, not {_describe(value)}"
    )


def _output(value: object, index: object, column: str) -> str:
    if type(value) is str:
        return value
    raise ValueError(
        f"row {index!r}, column {column!r}: an output must be a str, not {_describe(value)}"
    )


def _describe(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def score_dask(
    data: Any,
    metrics: MetricsArg,
    *,
    reference: str = "reference",
    output: str = "output",
    info: bool = False,
) -> Any:
    """A Dask DataFrame of results for a Dask DataFrame of pairs (or a Bag of
    ``(reference, output)`` tuples or of dicts with those keys).

    Nothing is computed until the result is; partitions and index follow the input's (a Bag's
    rows are numbered within each partition). The metrics travel as their configuration and
    are built once per worker process.

    >>> import dask.bag as db
    >>> bag = db.from_sequence([("a b", "a"), (["x", "a b"], "a b")], npartitions=1)
    >>> score_dask(bag, "token_f1").compute(scheduler="sync")["token_f1"].tolist()
    [0.6666666666666666, 1.0]
    """
    import dask.bag as db
    import dask.dataframe as dd

    scorer = PartitionScorer(metrics, reference=reference, output=output, info=info)
    if isinstance(data, db.Bag):
        import pandas as pd

        meta = pd.DataFrame(
            {reference: pd.Series([], dtype="object"), output: pd.Series([], dtype="object")}
        )
        bag: Any = data
        data = bag.map(_pair_record, reference, output).to_dataframe(meta=meta)
    if not isinstance(data, dd.DataFrame):
        raise TypeError(f"data must be a dask DataFrame or Bag of pairs, not {type(data).__name__}")
    for column in (reference, output):
        if column not in data.columns:
            known = ", ".join(map(str, data.columns))
            raise ValueError(f"the pairs have no column {column!r} (columns: {known})")
    return data[[reference, output]].map_partitions(scorer, meta=scorer.meta)


def _pair_record(item: Any, reference: str, output: str) -> dict[str, Any]:
    if isinstance(item, Mapping):
        if reference not in item or output not in item:
            raise ValueError(f"a pair needs the keys {reference!r} and {output!r}: {item!r:.80}")
        return {reference: item[reference], output: item[output]}
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return {reference: item[0], output: item[1]}
    raise ValueError(f"a pair must be (reference, output) or a dict, not {item!r:.80}")


def aggregate_dask(
    results: Any,
    column: str,
    *,
    seed: int = 12345,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> AggregateResult:
    """:func:`lexeval.aggregate` of one metric's column of :func:`score_dask` results.

    The count columns and the verdicts are summed on the workers (counts pooled only when
    every row has them, as in :func:`lexeval.aggregate`); the scores come back in order for the
    seeded bootstrap, so the result equals the serial aggregate of the same pairs exactly.
    """
    from dask.base import compute as dask_compute

    compute: Any = dask_compute
    if column not in results.columns:
        raise ValueError(f"no results column {column!r}")
    summed = [f"{column}.{name}" for name in (*COUNT_FIELDS, "passed")]
    summed = [c for c in summed if c in results.columns]
    if summed:
        parts = results[summed]
        scores, present, sums = compute(results[column], parts.count(), parts.sum())
    else:
        (scores,) = compute(results[column])
        present = sums = {}
    count_columns = [f"{column}.{name}" for name in COUNT_FIELDS]
    pooled: tuple[int, int, int] | None = None
    if all(c in present and int(present[c]) == len(scores) for c in count_columns):
        overlap, ref, out = (int(sums[c]) for c in count_columns)
        pooled = (overlap, ref, out)
    passed = f"{column}.passed"
    verdicts = None
    if passed in present and int(present[passed]):
        verdicts = (int(sums[passed]), int(present[passed]))
    return aggregate_scores(
        [float(s) for s in scores.tolist()],
        pooled_counts=pooled,
        verdicts=verdicts,
        seed=seed,
        n_boot=n_boot,
        confidence=confidence,
    )
