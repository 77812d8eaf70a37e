"""``lexeval score``: score one pair, or a JSONL file of pairs, with a metric."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from lexeval.cli.common import UsageError, parse_options
from lexeval.cli.judge import add_backend_arguments, backend_options

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``score`` subcommand to ``sub`` (an argparse subparsers action)."""
    score = sub.add_parser(
        "score",
        help="score one pair, or a JSONL file of pairs, with a metric",
        description="Print the metric result as JSON; with --jsonl, one JSON line per input "
        "line (fields 'input' and 'output'; input may be a list of references).",
    )
    score.add_argument("--metric", required=True, help="metric name (see 'lexeval metrics')")
    score.add_argument("--input", help="the reference text")
    score.add_argument("--output", help="the text under evaluation")
    score.add_argument(
        "--jsonl", metavar="FILE", help="score every line of a JSONL file ('-': stdin)"
    )
    score.add_argument(
        "--option",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="metric option, VALUE parsed as JSON when possible (e.g. compat=mastra)",
    )
    add_backend_arguments(score)
    score.set_defaults(func=run)


def read_pairs(path: str) -> tuple[list[str | list[str]], list[str]]:
    """The ``input``/``output`` pairs of a JSONL file."""
    from lexeval.io import InputError as DatasetError
    from lexeval.io import iter_jsonl, read_text

    name, text = read_text(path, 200 * 1024 * 1024)
    inputs: list[str | list[str]] = []
    outputs: list[str] = []
    for number, data in iter_jsonl(name, text):
        if not isinstance(data, dict):
            raise DatasetError(name, number, None, "expected an object")
        ref: object = data.get("input")
        out: object = data.get("output")
        if isinstance(ref, str):
            inputs.append(ref)
        elif isinstance(ref, list) and ref and all(isinstance(r, str) for r in ref):
            inputs.append([str(r) for r in ref])
        else:
            raise DatasetError(name, number, "input", "missing, or not a string or string list")
        if not isinstance(out, str):
            raise DatasetError(name, number, "output", "missing or not a string")
        outputs.append(out)
    return inputs, outputs


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval score``; returns the exit code."""
    from lexeval.metrics import get_metric

    single = args.input is not None or args.output is not None
    if args.jsonl and single:
        raise UsageError("give either --jsonl or --input/--output, not both")
    if not args.jsonl and (args.input is None or args.output is None):
        raise UsageError("give --input and --output, or --jsonl FILE")
    options = {**parse_options(args.option), **backend_options(args)}
    try:
        metric = get_metric(args.metric, **options)
    except TypeError as exc:
        raise UsageError(str(exc)) from None
    if not args.jsonl:
        result = metric.measure(args.input, args.output)
        print(json.dumps(result.to_dict(), ensure_ascii=False))
        return 0
    inputs, outputs = read_pairs(args.jsonl)
    results = metric.measure_many(inputs, outputs)
    lines = [json.dumps(r.to_dict(), ensure_ascii=False) for r in results]
    sys.stdout.write("".join(line + "\n" for line in lines))
    if results:
        mean = sum(r.score for r in results) / len(results)
        print(f"{len(results)} pairs, mean score {mean:.4f}", file=sys.stderr)
    return 0
