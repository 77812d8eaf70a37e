"""Correlation of a metric with human scores at the flat, summary or system level.

- ``flat``: over all rows.
- ``summary``: within each group (a document: the systems' outputs for it), then averaged over
  groups; groups where the metric or the human score is constant have no correlation and are
  skipped and counted (the UniEval/G-Eval protocol).
- ``system``: over the systems' mean scores.

The coefficients are scipy's (``kendalltau`` with variant b or c, ``spearmanr``,
``pearsonr``). Intervals are percentile bootstraps (:mod:`lexeval.stats`) over the inputs
(rows, or groups), over the systems, or over both independently (Deutsch et al. 2021).

>>> metric = [0.1, 0.5, 0.9, 0.2, 0.4, 0.3, 0.7, 0.6, 0.8]
>>> human = [1.0, 2.0, 3.0, 1.0, 3.0, 2.0, 1.0, 2.0, 3.0]
>>> groups = ["d1", "d1", "d1", "d2", "d2", "d2", "d3", "d3", "d3"]
>>> c = correlation(metric, human, groups=groups, level="summary", n_resamples=200)
>>> round(c.value, 4), c.n, c.skipped, c.level, c.method
(0.7778, 3, 0, 'summary', 'kendall')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from lexeval.meta.inputs import as_labels, as_scores, check_resampling, same_length
from lexeval.meta.record import JsonRecord
from lexeval.stats import bootstrap_indices

__all__ = [
    "LEVELS",
    "METHODS",
    "RESAMPLING",
    "Correlation",
    "CorrelationPlan",
    "coefficient",
    "correlation",
]

Level = Literal["flat", "summary", "system"]
Method = Literal["kendall", "spearman", "pearson"]
Variant = Literal["b", "c"]
Resampling = Literal["inputs", "systems", "both"]
LEVELS: tuple[str, ...] = ("flat", "summary", "system")
METHODS: tuple[str, ...] = ("kendall", "spearman", "pearson")
RESAMPLING: tuple[str, ...] = ("inputs", "systems", "both")
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def coefficient(x: FloatArray, y: FloatArray, method: str, variant: str = "b") -> float:
    """scipy's Kendall tau (variant b or c), Spearman rho or Pearson r; NaN when x or y is
    constant or shorter than 2.

    >>> coefficient(np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]), "kendall")
    0.333...
    >>> coefficient(np.array([1.0, 1.0]), np.array([1.0, 2.0]), "pearson")
    nan
    """
    from scipy.stats import kendalltau, pearsonr, spearmanr

    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    if method == "kendall":
        return float(kendalltau(x, y, variant=variant).statistic)
    if method == "spearman":
        return float(spearmanr(x, y).statistic)
    return float(pearsonr(x, y).statistic)


def _first_seen(labels: list[Any]) -> tuple[list[Any], IntArray]:
    order: dict[Any, int] = {}
    codes = np.fromiter((order.setdefault(v, len(order)) for v in labels), np.intp, len(labels))
    return list(order), codes


class CorrelationPlan:
    """A checked correlation problem: its point value and its value on resampled indices.

    ``sizes`` lists what the bootstrap resamples (rows; groups; systems; or groups and
    systems) and ``resampled(*indices)`` recomputes the value on one resample.
    """

    def __init__(
        self,
        metric: Iterable[Any],
        human: Iterable[Any],
        *,
        groups: Iterable[Any] | None,
        systems: Iterable[Any] | None,
        level: str,
        method: str,
        variant: str,
        resample: str | None,
        metric_name: str = "metric",
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {method!r}")
        if variant not in ("b", "c"):
            raise ValueError(f"variant must be 'b' or 'c', not {variant!r}")
        self.metric = as_scores(metric, metric_name)
        self.human = as_scores(human, "human")
        self.level, self.method, self.variant = level, method, variant
        named: dict[str, Any] = {metric_name: self.metric, "human": self.human}
        group_labels = None if groups is None else as_labels(groups, "groups")
        system_labels = None if systems is None else as_labels(systems, "systems")
        if group_labels is not None:
            named["groups"] = group_labels
        if system_labels is not None:
            named["systems"] = system_labels
        same_length(**named)
        if resample is None:
            resample = "inputs"
            if level == "system":
                resample = "both" if group_labels is not None else "systems"
        if resample not in RESAMPLING:
            raise ValueError(f"resample must be one of {RESAMPLING}, not {resample!r}")
        self.resample = resample
        if level == "summary" and group_labels is None:
            raise ValueError("level='summary' needs groups (the document of each row)")
        if level == "system" and system_labels is None:
            raise ValueError("level='system' needs systems (the system of each row)")
        if level == "flat" and resample != "inputs":
            raise ValueError("level='flat' resamples rows only: use resample='inputs'")
        self.group_codes: IntArray | None = None
        self.system_codes: IntArray | None = None
        self.group_names: list[Any] = []
        self.system_names: list[Any] = []
        if group_labels is not None:
            self.group_names, self.group_codes = _first_seen(group_labels)
        if system_labels is not None:
            self.system_names, self.system_codes = _first_seen(system_labels)
        self.grid: tuple[FloatArray, FloatArray] | None = None
        if (level == "summary" and resample != "inputs") or (
            level == "system" and resample != "systems"
        ):
            self.grid = self._grid(need_groups=True)
        self._prepare()

    def _grid(self, *, need_groups: bool) -> tuple[FloatArray, FloatArray]:
        """metric and human as (group, system) matrices: every system once in every group."""
        if self.group_codes is None or self.system_codes is None:
            what = "groups and systems" if need_groups else "systems"
            raise ValueError(f"level={self.level!r} with resample={self.resample!r} needs {what}")
        shape = (len(self.group_names), len(self.system_names))
        metric = np.full(shape, np.nan)
        human = np.full(shape, np.nan)
        for row, (g, s) in enumerate(zip(self.group_codes, self.system_codes, strict=True)):
            if not np.isnan(metric[g, s]):
                raise ValueError(
                    f"groups/systems: row {row} repeats system {self.system_names[s]!r} in group "
                    f"{self.group_names[g]!r}; resampling needs each system once per group"
                )
            metric[g, s], human[g, s] = self.metric[row], self.human[row]
        missing = np.argwhere(np.isnan(metric))
        if missing.size:
            g, s = missing[0]
            raise ValueError(
                f"groups/systems: group {self.group_names[g]!r} has no row of system "
                f"{self.system_names[s]!r}; resampling needs every system in every group"
            )
        return metric, human

    def _prepare(self) -> None:
        self.skipped = 0
        if self.level == "flat":
            self.value = self._corr(self.metric, self.human)
            self.n = int(self.metric.size)
            self.sizes = [self.n]
            if np.isnan(self.value):
                which = "metric" if np.ptp(self.metric) == 0 else "human"
                raise ValueError(f"{which} is constant on all {self.n} rows: no correlation")
        elif self.level == "summary":
            assert self.group_codes is not None
            self.per_group = np.array(
                [
                    self._corr(self.metric[rows], self.human[rows])
                    for rows in self._rows_by(self.group_codes, len(self.group_names))
                ]
            )
            defined = ~np.isnan(self.per_group)
            self.skipped = int(np.count_nonzero(~defined))
            self.n = int(np.count_nonzero(defined))
            if self.n == 0:
                raise ValueError(
                    f"every one of the {len(self.group_names)} groups is constant in the metric "
                    "or the human score: no summary-level correlation"
                )
            self.value = float(np.mean(self.per_group[defined]))
            n_systems = len(self.system_names)
            self.sizes = {
                "inputs": [len(self.group_names)],
                "systems": [n_systems],
                "both": [len(self.group_names), n_systems],
            }[self.resample]
        else:
            assert self.system_codes is not None
            rows_of = self._rows_by(self.system_codes, len(self.system_names))
            self.system_metric = np.array([self.metric[r].mean() for r in rows_of])
            self.system_human = np.array([self.human[r].mean() for r in rows_of])
            self.n = len(self.system_names)
            self.value = self._corr(self.system_metric, self.system_human)
            if np.isnan(self.value):
                raise ValueError(
                    f"the system means over {self.n} systems are constant: no correlation"
                )
            self.sizes = {
                "inputs": [len(self.group_names)],
                "systems": [self.n],
                "both": [len(self.group_names), self.n],
            }[self.resample]

    @staticmethod
    def _rows_by(codes: IntArray, count: int) -> list[IntArray]:
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(count + 1))
        return [order[bounds[i] : bounds[i + 1]] for i in range(count)]

    def _corr(self, x: FloatArray, y: FloatArray) -> float:
        return coefficient(x, y, self.method, self.variant)

    def resampled(self, *indices: IntArray) -> float:
        """The value on one resample (NaN when undefined there)."""
        if self.level == "flat":
            (rows,) = indices
            return self._corr(self.metric[rows], self.human[rows])
        groups, systems = self._split(indices)
        if self.level == "summary":
            if self.grid is None:
                values = self.per_group[groups]
            else:
                metric, human = self.grid
                m = metric if groups is None else metric[groups]
                h = human if groups is None else human[groups]
                if systems is not None:
                    m, h = m[:, systems], h[:, systems]
                values = np.array([self._corr(a, b) for a, b in zip(m, h, strict=True)])
            return float(np.nanmean(values)) if not np.isnan(values).all() else float("nan")
        if self.grid is None:
            assert systems is not None
            return self._corr(self.system_metric[systems], self.system_human[systems])
        metric, human = self.grid
        m = metric if groups is None else metric[groups]
        h = human if groups is None else human[groups]
        means_m, means_h = m.mean(axis=0), h.mean(axis=0)
        if systems is not None:
            means_m, means_h = means_m[systems], means_h[systems]
        return self._corr(means_m, means_h)

    def _split(self, indices: tuple[IntArray, ...]) -> tuple[IntArray | None, IntArray | None]:
        if self.resample == "inputs":
            return indices[0], None
        if self.resample == "systems":
            return None, indices[0]
        return indices[0], indices[1]


@dataclass(frozen=True)
class Correlation(JsonRecord):
    """A correlation with its bootstrap interval.

    ``n`` counts what the value is over: rows (flat), groups that had a correlation (summary;
    ``skipped`` more were constant), or systems (system).
    """

    value: float
    interval: tuple[float, float]
    n: int
    skipped: int
    level: str
    method: str
    variant: str | None
    resample: str
    seed: int
    n_resamples: int
    confidence: float
    undefined_resamples: int = field(default=0)

    @property
    def name(self) -> str:
        """``tau-b``, ``tau-c``, ``rho`` or ``r``."""
        if self.method == "kendall":
            return f"tau-{self.variant}"
        return "rho" if self.method == "spearman" else "r"

    def __str__(self) -> str:
        low, high = self.interval
        skipped = f", skipped={self.skipped}" if self.level == "summary" else ""
        return (
            f"{self.name} {self.value:.3f} [{low:.3f}, {high:.3f}], n={self.n}{skipped}, "
            f"level={self.level}"
        )


def correlation(
    metric: Iterable[Any],
    human: Iterable[Any],
    *,
    groups: Iterable[Any] | None = None,
    systems: Iterable[Any] | None = None,
    level: Level = "flat",
    method: Method = "kendall",
    variant: Variant = "b",
    resample: Resampling | None = None,
    seed: int = 12345,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> Correlation:
    """Correlation of ``metric`` with ``human`` at ``level`` (see the module doc).

    ``groups`` (the document of each row) is needed at the summary level, ``systems`` at the
    system level. ``resample`` picks what the bootstrap draws: ``"inputs"`` (rows, or groups;
    the default except at the system level), ``"systems"`` or ``"both"`` (the system-level
    default when groups are given). Resampling systems at the summary level, or inputs at the
    system level, needs each system exactly once in each group.

    >>> c = correlation([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], method="spearman", n_resamples=100)
    >>> round(c.value, 3), c.n, c.level, c.variant
    (0.8, 5, 'flat', None)
    >>> correlation([1, 2, 3], [1, 2], method="pearson")
    Traceback (most recent call last):
    ValueError: metric has 3 rows but human has 2; row 2 has no partner
    """
    check_resampling(seed, n_resamples, confidence)
    plan = CorrelationPlan(
        metric,
        human,
        groups=groups,
        systems=systems,
        level=level,
        method=method,
        variant=variant,
        resample=resample,
    )
    boot = bootstrap_indices(
        lambda *indices: [plan.resampled(*indices)],
        plan.sizes,
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
    )
    return Correlation(
        value=plan.value,
        interval=boot.intervals[0],
        n=plan.n,
        skipped=plan.skipped,
        level=level,
        method=method,
        variant=variant if method == "kendall" else None,
        resample=plan.resample,
        seed=seed,
        n_resamples=n_resamples,
        confidence=float(confidence),
        undefined_resamples=boot.undefined[0],
    )
