"""``lexeval meta``: how far do score columns agree with a human column? (lexeval.meta)

Binary human labels (true/false, yes/no, 1/0) give ROC AUC, and Cohen's kappa and accuracy at
a threshold (given, tuned on another file, or the in-sample best, flagged); any other numbers
give Kendall/Spearman/Pearson correlations at the flat level, and at the summary and system
levels when ``--group`` and ``--system`` name those columns.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from dataclasses import dataclass, replace
from typing import Any

from lexeval.cli.common import UsageError, console, output_target, positive_int

__all__ = ["Table", "load_table", "register", "run"]

MAX_BYTES = 200 * 1024 * 1024
_TRUE = {"true", "yes", "1", "1.0"}
_FALSE = {"false", "no", "0", "0.0"}


def register(sub: Any) -> None:
    """Add the ``meta`` subcommand to ``sub`` (an argparse subparsers action)."""
    meta = sub.add_parser(
        "meta",
        help="agreement of score columns with human judgments (AUC, kappa, tau)",
        description="Meta-evaluation of score columns against a human column of FILE (JSONL "
        "or CSV): ROC AUC, Cohen's kappa and accuracy for binary human labels; Kendall, "
        "Spearman or Pearson correlation for graded ones (flat, and per --group and per "
        "--system). Every figure has a seeded bootstrap 95% interval.",
    )
    meta.add_argument("file", metavar="FILE", help="JSONL (one object a line) or CSV with header")
    meta.add_argument(
        "--score", required=True, metavar="COLUMN[,COLUMN...]", help="the score column(s)"
    )
    meta.add_argument("--human", required=True, metavar="COLUMN", help="the human column")
    meta.add_argument(
        "--group", metavar="COLUMN", help="document column: adds the summary level (graded)"
    )
    meta.add_argument(
        "--system", metavar="COLUMN", help="system column: adds the system level (graded)"
    )
    where = meta.add_mutually_exclusive_group()
    where.add_argument(
        "--threshold", type=float, metavar="T", help="binary labels: score >= T is positive"
    )
    where.add_argument(
        "--tune",
        metavar="TUNE_FILE",
        help="binary labels: choose each column's threshold on this file (same columns)",
    )
    meta.add_argument(
        "--objective",
        choices=("kappa", "accuracy", "f1"),
        default="kappa",
        help="what the chosen threshold maximises (kappa)",
    )
    meta.add_argument(
        "--method",
        choices=("kendall", "spearman", "pearson"),
        default="kendall",
        help="correlation for graded labels (kendall: tau-b)",
    )
    meta.add_argument("--seed", type=int, default=12345, help="bootstrap seed (12345)")
    meta.add_argument(
        "--resamples", type=positive_int, default=1000, help="bootstrap resamples (1000)"
    )
    meta.add_argument("--json", metavar="OUT", help="write every figure as JSON here ('-': stdout)")
    meta.set_defaults(func=run)


@dataclass
class Table:
    """Rows of a JSONL or CSV file: their values and the line each starts on."""

    name: str
    rows: list[dict[str, Any]]
    lines: list[int]

    def column(self, key: str) -> list[Any]:
        """The values of ``key``; a UsageError names the first row without it."""
        if not self.rows:
            raise UsageError(f"{self.name}: no rows")
        values = []
        for row, line in zip(self.rows, self.lines, strict=True):
            if key not in row:
                known = ", ".join(sorted(self.rows[0])) or "none"
                raise UsageError(f"{self.name}:{line}: no column {key!r} (columns: {known})")
            values.append(row[key])
        return values

    def numbers(self, key: str) -> list[float]:
        """Finite numbers of ``key`` (numeric strings from CSV are read as numbers)."""
        out = []
        for value, line in zip(self.column(key), self.lines, strict=True):
            number: float | None = None
            if isinstance(value, int | float) and not isinstance(value, bool):
                number = float(value)
            elif isinstance(value, str):
                try:
                    number = float(value)
                except ValueError:
                    number = None
            if number is None or not math.isfinite(number):
                raise UsageError(f"{self.name}:{line}: {key}: {value!r} is not a finite number")
            out.append(number)
        return out

    def labels(self, key: str) -> list[str]:
        """Category labels of ``key`` (groups, systems) as strings; blank is an error."""
        out = []
        for value, line in zip(self.column(key), self.lines, strict=True):
            if value is None or (isinstance(value, str) and not value.strip()):
                raise UsageError(f"{self.name}:{line}: {key}: empty value")
            out.append(str(value))
        return out

    def binary(self, key: str) -> list[bool] | None:
        """True/False of ``key`` if every value is a binary label, else None."""
        out = []
        for value in self.column(key):
            text = str(value).strip().lower()
            if isinstance(value, bool):
                out.append(value)
            elif text in _TRUE:
                out.append(True)
            elif text in _FALSE:
                out.append(False)
            else:
                return None
        return out

    def first_non_binary(self, key: str) -> str:
        """Where ``key`` first holds something that is not a binary label."""
        for value, line in zip(self.column(key), self.lines, strict=True):
            text = str(value).strip().lower()
            if not isinstance(value, bool) and text not in _TRUE | _FALSE:
                return f"{self.name}:{line}: {key}: {value!r} is not a binary label"
        return f"{self.name}: {key}"


def load_table(path: str) -> Table:
    """A JSONL file (``.jsonl``/``.ndjson``, or content starting with ``{``) or a CSV file."""
    from lexeval.io import iter_jsonl, read_text

    name, text = read_text(path, MAX_BYTES)
    if not text.strip():
        raise UsageError(f"{name}: file is empty")
    jsonl = name.endswith((".jsonl", ".ndjson")) or text.lstrip().startswith("{")
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    if jsonl:
        for line, value in iter_jsonl(name, text):
            if not isinstance(value, dict):
                raise UsageError(f"{name}:{line}: expected a JSON object")
            rows.append(value)
            lines.append(line)
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        start = 2
        try:
            for row in reader:
                if None in row:
                    raise UsageError(f"{name}:{start}: more fields than the header has")
                rows.append(dict(row))
                lines.append(start)
                start = reader.line_num + 1
        except csv.Error as exc:
            raise UsageError(f"{name}:{reader.line_num}: {exc}") from None
    if not rows:
        raise UsageError(f"{name}: no rows")
    return Table(name, rows, lines)


def _clean(value: Any) -> Any:
    """JSON-ready: NaN and infinities become null, tuples lists."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _interval(low: float, high: float) -> str:
    return f"[{low:.3f}, {high:.3f}]"


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval meta``; returns the exit code."""
    from rich.table import Table as RichTable

    from lexeval.io import write_text_atomic
    from lexeval.meta import agreement, calibrate, correlation

    columns = [c.strip() for c in args.score.split(",") if c.strip()]
    if not columns:
        raise UsageError("--score names no column")
    inputs = {"FILE": args.file, "TUNE_FILE": args.tune}
    target = output_target("--json", args.json, {k: v for k, v in inputs.items() if v})
    table = load_table(args.file)
    scores = {c: table.numbers(c) for c in columns}
    labels = table.binary(args.human)
    binary_needed = args.threshold is not None or args.tune is not None
    if binary_needed and labels is None:
        raise UsageError(table.first_non_binary(args.human) + " (--threshold/--tune need one)")
    boot = {"seed": args.seed, "n_resamples": args.resamples}
    out = console(stderr=target == "-")
    report: dict[str, Any] = {
        "file": table.name,
        "rows": len(table.rows),
        "human": args.human,
        "seed": args.seed,
        "n_resamples": args.resamples,
    }
    if labels is not None and not (args.group or args.system):
        if len(set(labels)) < 2:
            raise UsageError(
                f"{table.name}: {args.human}: a single class ({labels[0]}) on all "
                f"{len(labels)} rows; agreement needs both"
            )
        thresholds: dict[str, tuple[float | None, str]] = {
            c: (args.threshold, "given") for c in columns
        }
        tuning_report: dict[str, Any] = {}
        if args.tune:
            tune = load_table(args.tune)
            tune_labels = tune.binary(args.human)
            if tune_labels is None:
                raise UsageError(tune.first_non_binary(args.human))
            for c in columns:
                try:
                    t = calibrate(tune.numbers(c), tune_labels, objective=args.objective)
                except ValueError as exc:
                    raise UsageError(f"{tune.name}: {exc}") from None
                thresholds[c] = (t.value, f"tuned on {tune.name}")
                tuning_report[c] = t.to_dict()
        grid = RichTable(title=f"agreement with {args.human} ({len(labels):,} rows)")
        for heading in ("score", "ROC AUC", "kappa", "accuracy", "threshold"):
            grid.add_column(heading, justify="left" if heading == "score" else "right")
        results: dict[str, Any] = {}
        for c in columns:
            value, source = thresholds[c]
            try:
                if value is None:
                    source = f"in-sample best {args.objective}"
                    t = calibrate(scores[c], labels, objective=args.objective)
                    a = agreement(scores[c], labels, threshold=t.value, **boot)
                    a = replace(a, threshold_in_sample=True)
                else:
                    a = agreement(scores[c], labels, threshold=value, **boot)
            except ValueError as exc:
                raise UsageError(f"{table.name}: {c}: {exc}") from None
            grid.add_row(
                c,
                f"{a.auc:.3f} {_interval(*a.intervals['auc'])}",
                f"{a.kappa:.3f} {_interval(*a.intervals['kappa'])}",
                f"{a.accuracy:.3f} {_interval(*a.intervals['accuracy'])}",
                f"{a.threshold:.4g} ({source})",
            )
            results[c] = {**a.to_dict(), "threshold_source": source}
        report.update(kind="binary", results=results, tuning=tuning_report)
        out.print(grid)
    else:
        groups = table.labels(args.group) if args.group else None
        systems = table.labels(args.system) if args.system else None
        human = table.numbers(args.human)
        levels = ["flat"] + (["summary"] if groups else []) + (["system"] if systems else [])
        grid = RichTable(title=f"{args.method} correlation with {args.human}")
        for heading in ("score", "level", "value [95% CI]", "n", "skipped"):
            grid.add_column(heading, justify="left" if heading in ("score", "level") else "right")
        results = {}
        for c in columns:
            results[c] = {}
            for level in levels:
                try:
                    r = correlation(
                        scores[c],
                        human,
                        groups=groups,
                        systems=systems,
                        level=level,  # type: ignore[arg-type]
                        method=args.method,
                        **boot,
                    )
                except ValueError as exc:
                    raise UsageError(f"{table.name}: {c}: {exc}") from None
                grid.add_row(
                    c,
                    level,
                    f"{r.name} {r.value:.3f} {_interval(*r.interval)}",
                    str(r.n),
                    str(r.skipped) if level == "summary" else "",
                )
                results[c][level] = r.to_dict()
        report.update(kind="correlation", method=args.method, results=results)
        out.print(grid)
    if target is not None:
        text = json.dumps(_clean(report), indent=2, allow_nan=False, ensure_ascii=False) + "\n"
        if target == "-":
            sys.stdout.write(text)
        else:
            write_text_atomic(target, text, inputs={k: v for k, v in inputs.items() if v})
    return 0
