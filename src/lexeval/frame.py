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
>>> score_frame(df, {"rouge1": rouge1}).loc["a", "rouge1_evidence"]
'matched: the, cat; missing: sat'
>>> score_frame(df, {"rouge1": rouge1}, columns="flat").loc["a", "rouge1_missing"]
['sat']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from lexeval.checks import check_references, check_text
from lexeval.metrics.base import BaseMetric
from lexeval.registry import get_metric
from lexeval.run.batch import (
    OUTPUT_FIELDS,
    QUESTION_FIELDS,
    REFERENCE_FIELDS,
    Record,
    flatten_result,
    resolve_field,
    score_records_by_language,
    tidy_result,
)
from lexeval.run.pool import resolve_workers
from lexeval.text.resources import check_language

__all__ = ["score_frame"]

MetricSpec = str | BaseMetric | Sequence[str | BaseMetric] | Mapping[str, BaseMetric]


def _metrics(
    metrics: MetricSpec, thresholds: Mapping[str, float], language: str | None = None
) -> dict[str, BaseMetric]:
    if isinstance(metrics, Mapping):
        chosen = dict(metrics)
    else:
        items = [metrics] if isinstance(metrics, (str, BaseMetric)) else list(metrics)
        chosen = {}
        for item in items:
            if isinstance(item, str):
                options = {"threshold": thresholds[item]} if item in thresholds else {}
                metric = get_metric(item, language=language, **options)
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
    if language is not None and not all(isinstance(m, str) for m in _items(metrics)):
        raise ValueError(
            "language= and language_field= build metrics given by name; give a metric object "
            "its language in its normalizer (normalizer=Normalizer(..., language=...))"
        )
    unknown = set(thresholds) - set(chosen)
    if unknown:
        raise ValueError(f"thresholds for metrics not scored: {', '.join(sorted(unknown))}")
    return chosen


def _items(metrics: MetricSpec) -> list[Any]:
    if isinstance(metrics, Mapping):
        return list(metrics.values())
    return [metrics] if isinstance(metrics, (str, BaseMetric)) else list(metrics)


def score_frame(
    df: Any,
    metrics: MetricSpec,
    *,
    reference: str | None = None,
    output: str | None = None,
    question: str | None = None,
    thresholds: Mapping[str, float] | None = None,
    workers: int | str = 1,
    language: str | None = None,
    language_field: str | None = None,
    columns: Literal["tidy", "flat"] = "tidy",
) -> Any:
    """A DataFrame with, for each metric, its score as a column named after it, ``<name>_passed``
    and ``<name>_evidence`` (the matched and missing keywords, or a judge's reason, as one text:
    the columns of ``lexeval score --format csv``), on ``df``'s index. ``columns="flat"``
    gives every ``info`` entry a column instead (``<name>_precision``,
    ``<name>_counts_overlap``, ``<name>_matched``, ...: as many as the keywords found, for some
    metrics). The result's ``attrs["signatures"]`` maps each metric to its signature.

    ``metrics``: a name, a metric, a list of either, or a dict of named metrics. ``reference``
    and ``output`` name the columns (found among the usual names of :mod:`lexeval.run.batch` when
    omitted); a reference cell may be a list of references. ``question`` names the column of
    questions (default: ``question`` when there is one), passed to the metrics that read them
    (keyword coverage, lexical_correctness, the LLM judges); an empty or missing cell is no
    question. ``thresholds`` maps metric names given as strings to a pass threshold.
    ``workers`` scores on several processes (:func:`lexeval.run.measure_many`), with the same
    results. ``language`` builds the metrics named in that language (``get_metric(name,
    language=...)``: their normalizer as ``Normalizer(preset, language=...)``; ``lexeval score
    --language``); ``language_field`` names a column of each row's language code (an empty or
    missing cell: ``language``, else the metric's own).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"question": ["Which river flows through Baghdad?"],
    ...                    "reference": ["Tigris River"], "output": ["Euphrates River"]})
    >>> round(float(score_frame(df, "keyword_coverage").loc[0, "keyword_coverage"]), 2)
    0.12
    >>> round(float(score_frame(df.drop(columns="question"), "keyword_coverage").iloc[0, 0]), 2)
    0.35
    >>> de = pd.DataFrame({"reference": ["Die Katzen schlafen"], "output": ["Die Katze schläft"]})
    >>> float(score_frame(de, "token_f1", language="de").loc[0, "token_f1"])
    1.0
    """
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - the [pandas] extra is installed in development
        raise ImportError("score_frame needs pandas: pip install 'lexeval[pandas]'") from None
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, not {type(df).__name__}")
    resolve_workers(workers)
    if columns not in ("tidy", "flat"):
        raise ValueError(f"columns must be 'tidy' or 'flat', not {columns!r}")
    if language is not None:
        check_language(language)
    chosen = _metrics(metrics, thresholds or {}, language)
    names = [str(c) for c in df.columns]
    ref_col = resolve_field(
        names, reference, REFERENCE_FIELDS, "reference", "DataFrame", how="reference="
    )
    out_col = resolve_field(names, output, OUTPUT_FIELDS, "output", "DataFrame", how="output=")
    q_col = resolve_field(
        names, question, QUESTION_FIELDS, "question", "DataFrame", how="question="
    )
    lang_col = resolve_field(names, language_field, (), "language", "DataFrame")
    if ref_col is None or out_col is None:
        missing = "reference" if ref_col is None else "output"
        raise ValueError(f"no {missing} column among {', '.join(names)}; pass {missing}=")
    references = df[ref_col].tolist()
    outputs = df[out_col].tolist()
    for label, output, reference in zip(df.index, outputs, references, strict=True):
        check_text(output, f"row {label}: {out_col}")
        check_references(reference, f"row {label}: {ref_col}")
    questions = _optional_texts(df, q_col) if q_col is not None else [None] * len(df)
    languages = _optional_texts(df, lang_col) if lang_col is not None else [None] * len(df)
    if lang_col is not None:
        _metrics(metrics, thresholds or {}, "en")  # only named metrics take a language
        for label, code in zip(df.index, languages, strict=True):
            if code is not None:
                try:
                    check_language(code)
                except ValueError as exc:
                    raise ValueError(f"row {label}: {lang_col}: {exc}") from None
    records = [
        Record(i + 1, None, r, o, q, lang)
        for i, (r, o, q, lang) in enumerate(
            zip(references, outputs, questions, languages, strict=True)
        )
    ]
    built: dict[str | None, dict[str, BaseMetric]] = {None: chosen}

    def in_language(code: str | None) -> dict[str, BaseMetric]:
        if code not in built:
            built[code] = _metrics(metrics, thresholds or {}, code)
        return built[code]

    results, signatures = score_records_by_language(in_language, records, workers=workers)
    tidy = columns == "tidy"
    rows: list[dict[str, Any]] = [{} for _ in range(len(df))]
    for name, column in results.items():
        for row, result in zip(rows, column, strict=True):
            row.update(tidy_result(name, result) if tidy else flatten_result(name, result))
    scored = pd.DataFrame(rows, index=df.index)
    scored.attrs["signatures"] = signatures
    return scored


def _optional_texts(df: Any, column: str) -> list[str | None]:
    """A column of optional texts: an empty, None or NaN cell is None."""
    found: list[str | None] = []
    for position, value in enumerate(df[column].tolist()):
        if isinstance(value, str):
            found.append(value or None)
        elif value is None or (isinstance(value, float) and value != value):  # NaN: empty
            found.append(None)
        else:
            label = df.index[position]
            raise TypeError(
                f"row {label}: {column} must be str or empty, not {type(value).__name__}"
            )
    return found
