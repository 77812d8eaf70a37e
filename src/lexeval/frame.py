"""Scoring a pandas DataFrame: :func:`score_frame` (needs the ``[pandas]`` extra).

>>> import pandas as pd
>>> df = pd.DataFrame({"reference": ["the cat sat", "Paris"], "prediction": ["the cat", "Lyon"]},
...                   index=["a", "b"])
>>> scored = score_frame(df, ["rouge1", "keyword_coverage"], thresholds={"rouge1": 0.5})
>>> scored[["rouge1", "rouge1_passed", "keyword_coverage"]]
   rouge1  rouge1_passed  keyword_coverage
a     0.8           True          0.509494
b     0.0          False          0.000000
>>> from lexeval import RougeMetric
>>> rouge1 = RougeMetric("rouge1", evidence_limit=5)  # Python's metrics list evidence if asked
>>> score_frame(df, {"rouge1": rouge1}).loc["a", "rouge1_missing"]
['sat']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lexeval.checks import check_references, check_text
from lexeval.metrics.base import BaseMetric
from lexeval.registry import get_metric
from lexeval.run.batch import (
    OUTPUT_FIELDS,
    QUESTION_FIELDS,
    REFERENCE_FIELDS,
    flatten_result,
    resolve_field,
)
from lexeval.run.measure import measure_many
from lexeval.run.pool import resolve_workers

__all__ = ["score_frame"]

MetricSpec = str | BaseMetric | Sequence[str | BaseMetric] | Mapping[str, BaseMetric]


def _metrics(metrics: MetricSpec, thresholds: Mapping[str, float]) -> dict[str, BaseMetric]:
    if isinstance(metrics, Mapping):
        chosen = dict(metrics)
    else:
        items = [metrics] if isinstance(metrics, (str, BaseMetric)) else list(metrics)
        chosen = {}
        for item in items:
            if isinstance(item, str):
                options = {"threshold": thresholds[item]} if item in thresholds else {}
                metric = get_metric(item, **options)
                key = item
            elif isinstance(item, BaseMetric):
                metric, key = item, item.name
            else:
                raise TypeError(f"metrics must hold names or metrics, not {type(item).__name__}")
            if key in chosen:
                raise ValueError(f"metric {key!r} given twice; pass a dict to name them apart")
            chosen[key] = metric
    if not chosen:
        raise ValueError("metrics is empty")
    unknown = set(thresholds) - set(chosen)
    if unknown:
        raise ValueError(f"thresholds for metrics not scored: {', '.join(sorted(unknown))}")
    return chosen


def score_frame(
    df: Any,
    metrics: MetricSpec,
    *,
    reference: str | None = None,
    output: str | None = None,
    question: str | None = None,
    thresholds: Mapping[str, float] | None = None,
    workers: int | str = 1,
) -> Any:
    """A DataFrame with, for each metric, its score as a column named after it, ``<name>_passed``
    and the evidence (``<name>_precision``, ``<name>_counts_overlap``, ``<name>_matched``, ...),
    on ``df``'s index.

    ``metrics``: a name, a metric, a list of either, or a dict of named metrics. ``reference``
    and ``output`` name the columns (found among the usual names of :mod:`lexeval.run.batch` when
    omitted); a reference cell may be a list of references. ``question`` names the column of
    questions (default: ``question`` when there is one), passed to the metrics that read them
    (keyword coverage, lexical_correctness, the LLM judges); an empty or missing cell is no
    question. ``thresholds`` maps metric names given as strings to a pass threshold.
    ``workers`` scores on several processes (:func:`lexeval.run.measure_many`), with the same
    results.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"question": ["Which river flows through Baghdad?"],
    ...                    "reference": ["Tigris River"], "output": ["Euphrates River"]})
    >>> round(float(score_frame(df, "keyword_coverage").loc[0, "keyword_coverage"]), 2)
    0.12
    >>> round(float(score_frame(df.drop(columns="question"), "keyword_coverage").iloc[0, 0]), 2)
    0.35
    """
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - the [pandas] extra is installed in development
        raise ImportError("score_frame needs pandas: pip install 'lexeval[pandas]'") from None
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, not {type(df).__name__}")
    resolve_workers(workers)
    chosen = _metrics(metrics, thresholds or {})
    columns = [str(c) for c in df.columns]
    ref_col = resolve_field(
        columns, reference, REFERENCE_FIELDS, "reference", "DataFrame", how="reference="
    )
    out_col = resolve_field(columns, output, OUTPUT_FIELDS, "output", "DataFrame", how="output=")
    q_col = resolve_field(
        columns, question, QUESTION_FIELDS, "question", "DataFrame", how="question="
    )
    if ref_col is None or out_col is None:
        missing = "reference" if ref_col is None else "output"
        raise ValueError(f"no {missing} column among {', '.join(columns)}; pass {missing}=")
    references = df[ref_col].tolist()
    outputs = df[out_col].tolist()
    for label, output, reference in zip(df.index, outputs, references, strict=True):
        check_text(output, f"row {label}: {out_col}")
        check_references(reference, f"row {label}: {ref_col}")
    questions: list[str | None] | None = None
    if q_col is not None:
        questions = []
        for position, value in enumerate(df[q_col].tolist()):
            if isinstance(value, str):
                questions.append(value or None)
            elif value is None or (isinstance(value, float) and value != value):  # NaN: empty
                questions.append(None)
            else:
                label = df.index[position]
                raise TypeError(
                    f"row {label}: {q_col} must be str or empty, not {type(value).__name__}"
                )
    rows: list[dict[str, Any]] = [{} for _ in range(len(df))]
    for name, metric in chosen.items():
        results = measure_many(metric, references, outputs, questions=questions, workers=workers)
        for row, result in zip(rows, results, strict=True):
            row.update(flatten_result(name, result))
    return pd.DataFrame(rows, index=df.index)
