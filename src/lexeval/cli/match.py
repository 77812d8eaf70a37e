"""``lexeval match``: score generated records (or raw replies holding JSON) against a record
dataset, field by field; a flashcard dataset gives what ``lexeval cards`` gives."""

from __future__ import annotations

import argparse
from typing import Any

from lexeval.cli.common import UsageError, add_language_arguments, unit_float
from lexeval.cli.reporting import add_report_arguments, finish_run, report_targets
from lexeval.cli.saving import add_run_arguments, prepare_runs

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``match`` subcommand to ``sub`` (an argparse subparsers action)."""
    match = sub.add_parser(
        "match",
        help="score structured output (records, or raw replies holding JSON) field by field",
        description="Match each case's generated records to its expected records (a YAML "
        "dataset with a schema of fields and checks), print a table with per-field results, "
        "optionally write a JSON report and fail on gates. A reply without valid JSON fails "
        "its case (parse_error), not the run.",
    )
    add_report_arguments(
        match, "generated records or raw replies (.jsonl/.json/.yaml; '-': JSONL on stdin)"
    )
    match.add_argument(
        "--threshold",
        type=unit_float,
        default=None,
        help="minimum pair score (default: the dataset's threshold, else 0.3)",
    )
    match.add_argument(
        "--strategy", choices=("greedy", "optimal"), default="greedy", help="matching strategy"
    )
    match.add_argument(
        "--fail-under",
        metavar="KEY=MIN",
        nargs="+",
        action="extend",
        default=[],
        help="gate, e.g. recall=0.8, macro.f1=0.7 or fields.unit_price.accuracy=0.9 "
        "(recall, precision, f1, avg_similarity: micro unless macro.; fields.NAME.accuracy or "
        ".mean); exit 1 when one fails",
    )
    add_language_arguments(match, field=False)
    match.add_argument("--quiet", action="store_true", help="print only the gate lines")
    add_run_arguments(match)
    match.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval match``; returns the exit code."""
    from lexeval.io import InputError
    from lexeval.records import (
        RecordGate,
        check_gates,
        load_dataset,
        load_outputs,
        match_records,
        render_records,
    )

    gates = [RecordGate.parse(spec) for spec in args.fail_under]  # usage errors before any work
    targets = report_targets(args)
    keeping = prepare_runs(args, "match")
    dataset = load_dataset(args.dataset)
    for gate in gates:
        field = gate.key.removeprefix("fields.").rpartition(".")[0]
        if gate.key.startswith("fields.") and field not in dataset.schema.names:
            known = ", ".join(dataset.schema.names)
            raise UsageError(f"--fail-under {gate.key}: no field {field!r} (fields: {known})")
    outputs = load_outputs(args.outputs, dataset.schema)
    try:
        result = match_records(
            dataset,
            outputs,
            threshold=args.threshold,
            strategy=args.strategy,
            language=args.language,
        )
    except InputError as exc:
        if exc.file != "outputs":
            raise
        # the library does not know the file: the error names the one given
        name = "<stdin>" if args.outputs == "-" else args.outputs
        raise InputError(name, exc.line, exc.field, exc.message) from None
    except ValueError as exc:  # a language for a plain dataset, or one spaCy does not have
        raise UsageError(f"--language {args.language}: {exc}") from None
    results = check_gates(result, gates)

    def page() -> str:
        from lexeval.htmlreport import render_records_page

        return render_records_page(result, results)

    return finish_run(
        args,
        result,
        results,
        targets,
        keeping,
        lambda out: render_records(result, out, results),
        page,
    )
