"""``lexeval score``: score one pair, or every record of a file, with one or more metrics.

>>> parse_metric_names(["rouge1,keyword_coverage", "rouge2"])
['rouge1', 'keyword_coverage', 'rouge2']
>>> split_targeted(["compat=mastra", "rouge1.score=recall"], ["rouge1", "keyword_coverage"])
({'rouge1': ['score=recall']}, ['compat=mastra'])
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lexeval.cli.common import (
    UsageError,
    add_language_arguments,
    output_target,
    parse_options,
    strict_json,
    workers_count,
)
from lexeval.cli.judge import add_backend_arguments, backend_options
from lexeval.cli.saving import RunKeeping, add_run_arguments, prepare_runs, store_input

if TYPE_CHECKING:
    from lexeval.metrics import AggregateResult, BaseMetric, MetricResult
    from lexeval.run.batch import Record

__all__ = ["parse_metric_names", "register", "run", "split_targeted"]

OPTION_HELP = (
    "metric option KEY=VALUE for every metric, or METRIC.KEY=VALUE for one; VALUE is parsed "
    "as JSON when possible (each metric's keys: below, read from its constructor)"
)

EPILOG = (
    "Metrics: keyword_coverage, lexical_correctness, token_f1, rouge1, rouge2, rouge<n> (e.g. "
    "rouge4), rougeL, rougeLsum, judge:* (see 'lexeval metrics'). Fields found by default: "
    "reference (reference, references, input, expected, expected_output, target, "
    "ground_truth, gold), output (output, prediction, predictions, candidate, response, "
    "answer, actual_output), id (id), question (question)."
)


def option_keys_help() -> str:
    """Each metric's ``--option`` keys, with their choices, from the metric classes
    (:func:`lexeval.registry.metric_options`): shown by ``lexeval score --help`` only."""
    import textwrap

    from lexeval.registry import list_metrics, metric_options

    lines = ["Option keys (--option KEY=VALUE), per metric:"]
    for name in list_metrics():
        keys = [
            f"{key} ({', '.join(choices)})" if choices else key
            for key, choices in metric_options(name).items()
        ]
        lines.append(
            textwrap.fill(
                f"{name}: {', '.join(keys)}",
                width=88,
                initial_indent="  ",
                subsequent_indent="    ",
            )
        )
    return "\n".join(lines)


def register(sub: Any) -> None:
    """Add the ``score`` subcommand to ``sub`` (an argparse subparsers action)."""
    import textwrap

    score = sub.add_parser(
        "score",
        help="score one pair, or a JSONL/JSON/CSV/TSV file of pairs, with one or more metrics",
        description="Score FILE (JSONL, a JSON array of objects, CSV or TSV; '-' reads stdin) "
        "with every --metric: one result per record on stdout (--format jsonl, csv or json), "
        "a summary (n, mean, 95% CI, pass rate) on stderr, exit 1 when a gate fails. Or score "
        "one pair given as --input/--output.",
        epilog=textwrap.fill(EPILOG, width=88),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        more_epilog=option_keys_help,
    )
    score.add_argument(
        "file", nargs="?", metavar="FILE", help="records to score ('-' for standard input)"
    )
    score.add_argument(
        "--metric",
        action="append",
        required=True,
        metavar="NAME",
        help="metric to compute; repeat it or give a comma list (rouge1,keyword_coverage)",
    )
    score.add_argument("--input", help="the reference text of a single pair")
    score.add_argument("--output", help="the text under evaluation of a single pair")
    score.add_argument(
        "--question",
        help="the question of a single pair (keyword coverage, lexical_correctness and LLM "
        "judges read it)",
    )
    score.add_argument(
        "--option", metavar="KEY=VALUE", action="append", default=[], help=OPTION_HELP
    )
    score.add_argument(
        "--threshold",
        metavar="[METRIC=]VALUE",
        action="append",
        default=[],
        help="pass threshold (score >= VALUE passes) for every metric, or METRIC=VALUE for one",
    )
    score.add_argument("--reference-field", metavar="NAME", help="field holding the reference")
    score.add_argument("--output-field", metavar="NAME", help="field holding the output")
    score.add_argument("--id-field", metavar="NAME", help="field holding the record id")
    score.add_argument(
        "--question-field",
        metavar="NAME",
        help=(
            "field holding the question, passed to keyword coverage, lexical_correctness "
            "and LLM judges (default: question, if present)"
        ),
    )
    add_language_arguments(score)
    score.add_argument(
        "--input-format",
        choices=("auto", "jsonl", "json", "csv", "tsv"),
        default="auto",
        help="FILE's format (default: from the extension, else from the content)",
    )
    score.add_argument(
        "--format",
        choices=("jsonl", "csv", "json"),
        default="jsonl",
        help="what stdout gets: one JSON line per record (default), one CSV row per record "
        "(per metric: score, passed, evidence), or one JSON document with the summary, the "
        "texts and every result (what 'lexeval compare' reads)",
    )
    score.add_argument(
        "--html",
        metavar="PATH",
        help="also write a self-contained HTML report here (every record: scores, verdicts, "
        "output and reference with matched and missing keywords marked; atomically, never "
        "over FILE)",
    )
    score.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar on stderr (automatic when stderr is a terminal)",
    )
    score.add_argument(
        "--fail-under",
        metavar="METRIC=VALUE",
        action="append",
        default=[],
        help="gate: exit 1 when METRIC's mean score is below VALUE",
    )
    score.add_argument(
        "--min-pass-rate",
        metavar="METRIC=VALUE",
        action="append",
        default=[],
        help="gate: exit 1 when the share of records passing METRIC's threshold is below VALUE "
        "(without --threshold, the metric's recommended threshold, said on stderr)",
    )
    score.add_argument(
        "--workers",
        type=workers_count,
        default=1,
        metavar="N",
        help="score on N processes ('auto': every core; default 1); same results",
    )
    add_backend_arguments(score)
    add_run_arguments(score)
    score.set_defaults(func=run)


def parse_metric_names(values: Sequence[str]) -> list[str]:
    """The metric names of repeated and comma-separated ``--metric`` values, in order."""
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    if not names:
        raise UsageError("--metric needs at least one metric name")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"metric {', '.join(repeated)} given more than once")
    return names


def split_targeted(
    specs: Sequence[str], names: Sequence[str]
) -> tuple[dict[str, list[str]], list[str]]:
    """``--option`` values split into those for one metric (``METRIC.KEY=VALUE``) and those for
    every metric."""
    targeted: dict[str, list[str]] = {}
    common: list[str] = []
    for spec in specs:
        key = spec.partition("=")[0]
        metric, dot, _ = key.partition(".")
        if dot:
            if metric not in names:
                raise UsageError(f"--option {spec!r} names metric {metric!r}, not one of --metric")
            targeted.setdefault(metric, []).append(spec[len(metric) + 1 :])
        else:
            common.append(spec)
    return targeted, common


def _number(spec: str, value: str, flag: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise UsageError(f"{flag} {spec!r}: {value!r} is not a number") from None


def _per_metric(specs: Sequence[str], names: Sequence[str], flag: str) -> dict[str, float]:
    """``METRIC=VALUE`` specs (a bare VALUE applies to every metric where ``flag`` allows)."""
    values: dict[str, float] = {}
    for spec in specs:
        metric, sep, raw = spec.rpartition("=")
        if not sep:
            if flag != "--threshold":
                raise UsageError(f"{flag} {spec!r} must look like METRIC=VALUE")
            values.update(dict.fromkeys(names, _number(spec, raw, flag)))
            continue
        if metric not in names:
            raise UsageError(f"{flag} {spec!r} names {metric!r}, not one of --metric")
        values[metric] = _number(spec, raw, flag)
    return values


def build_metrics(
    args: argparse.Namespace,
    names: Sequence[str],
    defaults: dict[str, float] | None = None,
    language: str | None = None,
) -> dict[str, BaseMetric]:
    """One configured metric per name (``defaults``: thresholds for metrics ``--threshold``
    leaves without one), in ``language`` (default: ``--language``); bad names or options are
    usage errors."""
    language = language or args.language
    from lexeval.registry import get_reporting_metric

    targeted, common = split_targeted(args.option, names)
    thresholds = {**(defaults or {}), **_per_metric(args.threshold, names, "--threshold")}
    backend = backend_options(args)
    metrics: dict[str, BaseMetric] = {}
    for name in names:
        options = parse_options([*common, *targeted.get(name, [])])
        if name.startswith("judge:"):  # the judge backend options (--judge-url, ...)
            options.update(backend)
        if name in thresholds:
            options["threshold"] = thresholds[name]
        try:
            # reports show what matched: ROUGE and token-F1 list it unless told not to
            metrics[name] = get_reporting_metric(name, language=language, **options)
        except TypeError as exc:
            raise UsageError(f"metric {name}: {exc}") from None
        except ValueError as exc:
            raise UsageError(f"metric {name}: {exc}") from None
    return metrics


def _line(record: Record, results: dict[str, MetricResult]) -> dict[str, Any]:
    line: dict[str, Any] = {"line": record.line}
    if record.id is not None:
        line["id"] = record.id
    for name, result in results.items():
        line[name] = result.to_dict()
    return line


def _csv(records: Sequence[Record], columns: dict[str, list[MetricResult]]) -> str:
    """One row per record: line, id, then per metric its score, verdict and evidence."""
    from lexeval.run.batch import tidy_result

    header = ["line", "id"] + [
        key for name in columns for key in (name, f"{name}_passed", f"{name}_evidence")
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for i, record in enumerate(records):
        row: dict[str, Any] = {"line": record.line, "id": record.id}
        for name, results in columns.items():
            row.update(tidy_result(name, results[i]))
        writer.writerow(row)
    return buffer.getvalue()


def _corpus_line(name: str, corpus: MetricResult) -> str:
    """``bleu (corpus)`` with the score and the peer's figure (``BLEU 23.45``)."""
    peer = ""
    for key in ("bleu", "chrf", "ter", "wer", "cer"):
        value = corpus.info.get(key)
        if isinstance(value, (int, float)):
            peer = f"  {key.upper() if key != 'chrf' else 'chrF'} {value:.4g}"
            break
    label = f"{name} (corpus)"
    pairs = corpus.info.get("n", corpus.info.get("pairs", ""))
    return f"{label:<18} {pairs:>6} {corpus.score:>7.4f}{peer}"


def _summary_lines(
    summary: dict[str, AggregateResult],
    metrics: dict[str, BaseMetric],
    corpus: dict[str, MetricResult] | None = None,
) -> list[str]:
    lines = [f"{'metric':<18} {'n':>6} {'mean':>7}  {'95% CI':<17} pass rate"]
    corpus = corpus or {}
    for name, agg in summary.items():
        ci = f"[{agg.ci_low:.4f}, {agg.ci_high:.4f}]"
        rate = "-"
        if agg.pass_rate is not None:
            threshold = metrics[name].threshold
            rule = "the judge's verdicts" if threshold is None else f"score >= {threshold:g}"
            rate = (
                f"{agg.pass_rate:.1%} ({agg.n_passed}/{agg.n_judged}, {rule}; 95% CI "
                f"[{agg.pass_rate_ci_low:.1%}, {agg.pass_rate_ci_high:.1%}])"
            )
        lines.append(f"{name:<18} {agg.n:>6} {agg.mean:>7.4f}  {ci:<17} {rate}")
        if name in corpus:
            lines.append(_corpus_line(name, corpus[name]))
    return lines


def _recommended(
    args: argparse.Namespace, names: Sequence[str], metrics: dict[str, BaseMetric]
) -> dict[str, float]:
    """The recommended thresholds of the metrics a ``--min-pass-rate`` gate names without a
    threshold of their own; a metric without one is a usage error."""
    chosen: dict[str, float] = {}
    for metric in _per_metric(args.min_pass_rate, names, "--min-pass-rate"):
        if metrics[metric].threshold is not None:
            continue
        recommended = metrics[metric].recommended_threshold
        if recommended is None:
            raise UsageError(
                f"--min-pass-rate {metric}=...: {metric} has no threshold and no recommended "
                f"one; give --threshold {metric}=VALUE"
            )
        chosen[metric] = recommended
    return chosen


def _gates(
    args: argparse.Namespace, names: Sequence[str], metrics: dict[str, BaseMetric]
) -> list[tuple[str, str, float]]:
    """(metric, kind, minimum) for every gate, checked before any scoring."""
    gates = [(m, "mean", v) for m, v in _per_metric(args.fail_under, names, "--fail-under").items()]
    for metric, value in _per_metric(args.min_pass_rate, names, "--min-pass-rate").items():
        if metrics[metric].threshold is None:
            raise UsageError(
                f"--min-pass-rate {metric}=...: {metric} has no threshold; give "
                f"--threshold {metric}=VALUE"
            )
        if not 0.0 <= value <= 1.0:
            raise UsageError(f"--min-pass-rate {metric}={value:g}: a rate is in [0, 1]")
        gates.append((metric, "pass rate", value))
    return gates


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval score``; returns the exit code."""
    names = parse_metric_names(args.metric)
    single = args.input is not None or args.output is not None
    if bool(args.file) == single:
        raise UsageError("give FILE, or --input and --output")
    if single and (args.input is None or args.output is None):
        raise UsageError("a single pair needs both --input and --output")
    if args.question is not None and not single:
        raise UsageError("--question goes with --input and --output; FILE has a question field")
    if args.language_field is not None and not args.file:
        raise UsageError("--language-field goes with FILE; give --language for one pair")

    metrics = build_metrics(args, names)
    recommended = _recommended(args, names, metrics)
    if recommended:
        metrics = build_metrics(args, names, recommended)
        for metric, level in recommended.items():
            print(
                f"--min-pass-rate {metric}: no --threshold given, using {metric}'s recommended "
                f"threshold {level:g}",
                file=sys.stderr,
            )
    gates = _gates(args, names, metrics)
    inputs = {"FILE": args.file, **store_input(args)}
    html = output_target("--html", args.html, inputs)
    if html == "-":
        raise UsageError("--html needs a file name ('-' is not accepted)")
    keeping = prepare_runs(args, "score")
    if single and len(names) == 1 and not gates:
        return _run_single(args, names[0], metrics[names[0]], html, inputs, keeping)
    from lexeval.metrics import aggregate
    from lexeval.run.batch import Record, read_records, score_records, score_records_by_language
    from lexeval.scored import ScoredRun, corpus_figures, scored_document, summary_entries

    if single:
        records = [Record(1, None, args.input, args.output, args.question)]
    else:
        records = read_records(
            args.file,
            input_format=args.input_format,
            reference_field=args.reference_field,
            output_field=args.output_field,
            id_field=args.id_field,
            question_field=args.question_field,
            language_field=args.language_field,
        )
    progress = args.progress or sys.stderr.isatty()
    if args.language_field is None:
        columns = score_records(metrics, records, workers=args.workers, progress=progress)
        signatures = {name: metric.signature for name, metric in metrics.items()}
    else:  # each record in its language; the metrics of --language for records without one
        built: dict[str | None, dict[str, BaseMetric]] = {None: metrics}

        def in_language(language: str | None) -> dict[str, BaseMetric]:
            if language not in built:
                built[language] = build_metrics(args, names, recommended, language)
            return built[language]

        columns, signatures = score_records_by_language(
            in_language, records, workers=args.workers, progress=progress
        )
    summary = {name: aggregate(results) for name, results in columns.items()}
    corpus = corpus_figures(metrics, columns)
    checked = _check_gates(gates, summary, corpus)
    run = ScoredRun.from_results(
        records, columns, signatures, label=args.file or "--input/--output"
    )
    document = ""
    if args.format == "json" or keeping is not None:
        summaries = summary_entries(summary, corpus)  # with the corpus figures
        for metric, gated, value, minimum, ok in checked:  # the gates, with the figure gated
            gate = {"figure": gated, "value": value, "minimum": minimum, "passed": ok}
            summaries[metric].setdefault("gates", []).append(gate)
        document = strict_json(scored_document(run, summaries), indent=2) + "\n"
    # the baseline's settings and records are checked before anything is printed
    comparison = keeping.compare(document) if keeping is not None else None
    if args.format == "csv":
        sys.stdout.write(_csv(records, columns))
    elif args.format == "json":
        sys.stdout.write(document)
    else:
        sys.stdout.write(
            "".join(
                strict_json(_line(record, {n: columns[n][i] for n in columns})) + "\n"
                for i, record in enumerate(records)
            )
        )
    sys.stdout.flush()
    if html is not None:
        from lexeval.htmlreport import render_scored, write_html

        write_html(html, render_scored(run), inputs=inputs)
        print(f"HTML report written to {html}", file=sys.stderr)
    for text in _summary_lines(summary, metrics, corpus):
        print(text, file=sys.stderr)
    failed = False
    for metric, gated, value, minimum, ok in checked:
        failed |= not ok
        verdict = "passed" if ok else "FAILED"
        label = "(corpus)" if gated == "corpus" else gated
        print(f"gate {metric} {label} {value:.4f} >= {minimum:g}: {verdict}", file=sys.stderr)
    return _keep(keeping, document, comparison, failed)


def _check_gates(
    gates: Sequence[tuple[str, str, float]],
    summary: dict[str, AggregateResult],
    corpus: dict[str, MetricResult],
) -> list[tuple[str, str, float, float, bool]]:
    """(metric, figure, value, minimum, passed) of every gate. ``--fail-under`` gates the
    figure the summary shows: a corpus-level metric's corpus figure (BLEU, chrF, TER, WER,
    CER: ``corpus``), any other metric's mean score (``mean``); ``--min-pass-rate`` the pass
    rate (``pass rate``)."""
    checked = []
    for metric, kind, minimum in gates:
        if kind == "mean" and metric in corpus:
            figure, value = "corpus", corpus[metric].score
        else:
            agg = summary[metric]
            figure, found = kind, agg.mean if kind == "mean" else agg.pass_rate
            assert found is not None
            value = found
        checked.append((metric, figure, value, minimum, value >= minimum))
    return checked


def _keep(keeping: RunKeeping | None, document: str, comparison: Any, failed: bool) -> int:
    """Save the run and show its comparison with the baseline (on stderr, where the summary
    goes: stdout carries the results); the exit code."""
    if keeping is not None:
        keeping.save(document)
    if comparison is not None:
        from lexeval.cli.common import console

        comparison.render(console(stderr=True))
        failed |= not comparison.passed
    return 1 if failed else 0


def _run_single(
    args: argparse.Namespace,
    name: str,
    metric: BaseMetric,
    html: str | None,
    inputs: dict[str, str],
    keeping: RunKeeping | None,
) -> int:
    """One pair, one metric, no gate: the result object on stdout."""
    from lexeval.run.batch import Record
    from lexeval.scored import ScoredRun

    result = metric.measure(args.input, args.output, args.question)
    record = Record(1, None, args.input, args.output, args.question)
    pair = ScoredRun.from_results([record], {name: [result]}, {name: metric.signature}, "--input")
    document = ""
    comparison = None
    if keeping is not None:
        from lexeval.metrics import aggregate
        from lexeval.scored import corpus_figures, scored_document, summary_entries

        column = {name: [result]}
        summary = summary_entries(
            {name: aggregate([result])}, corpus_figures({name: metric}, column)
        )
        document = strict_json(scored_document(pair, summary), indent=2) + "\n"
        comparison = keeping.compare(document)
    print(strict_json(result.to_dict()))
    if html is not None:
        from lexeval.htmlreport import render_scored, write_html

        write_html(html, render_scored(pair), inputs=inputs)
    return _keep(keeping, document, comparison, False)
