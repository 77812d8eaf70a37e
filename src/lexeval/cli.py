"""The ``lexeval`` command line.

Exit codes: 0 every gate passed, 1 a gate failed (a threshold, or a regression in
``compare``), 2 a usage or data error (one line on stderr, no traceback). A run that fails
leaves no report file behind.

Top-level imports stay light: ``lexeval --help`` loads neither spaCy nor rich.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from lexeval._version import __version__

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["main"]


class UsageError(Exception):
    """A command-line or data problem: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not in [0, 1]")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = _Parser(
        prog="lexeval",
        description="Lexical evaluation of LLM output: flashcard matching, keyword coverage, "
        "token-F1 and ROUGE on one normalization layer.",
        epilog="Exit codes: 0 gates passed, 1 a gate failed, 2 usage or data error.",
    )
    parser.add_argument("--version", action="version", version=f"lexeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    cards = sub.add_parser(
        "cards",
        help="evaluate generated flashcards against a dataset",
        description="Match generated cards to the expected cards of each case, print a table, "
        "optionally write a JSON report and fail on gates.",
    )
    cards.add_argument("dataset", metavar="DATASET", help="YAML dataset")
    cards.add_argument("outputs", metavar="OUTPUTS", help="generated cards (.jsonl/.json/.yaml)")
    cards.add_argument("--json", metavar="REPORT", help="write the JSON report here (atomically)")
    cards.add_argument(
        "--threshold", type=_unit_float, default=0.3, help="minimum pair score (default 0.3)"
    )
    cards.add_argument(
        "--strategy", choices=("greedy", "optimal"), default="greedy", help="matching strategy"
    )
    cards.add_argument(
        "--fail-under",
        metavar="METRIC=MIN",
        nargs="+",
        action="extend",
        default=[],
        help="gate, e.g. recall=0.8 or macro.f1=0.7 (metrics: recall, precision, f1, "
        "avg_similarity; scope micro by default); exit 1 when one fails",
    )
    norm = cards.add_mutually_exclusive_group()
    norm.add_argument("--preset", default="default", help="normalizer preset (default: default)")
    norm.add_argument(
        "--plain",
        action="store_true",
        help="no normalization: case-sensitive substring matching (kw in text)",
    )
    cards.add_argument("--quiet", action="store_true", help="print only the gate lines")
    cards.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar on stderr (automatic on a terminal from 200 cases)",
    )
    cards.set_defaults(func=_cmd_cards)

    compare = sub.add_parser(
        "compare",
        help="compare two JSON reports (baseline, candidate)",
        description="Per-metric deltas, regressed and improved cases, and a paired bootstrap "
        "interval and p-value on per-case F1. Exit 1 when a gated metric (micro recall, "
        "precision, F1, macro F1) drops by more than --max-drop.",
    )
    compare.add_argument("base", metavar="BASE.json")
    compare.add_argument("candidate", metavar="CANDIDATE.json")
    compare.add_argument(
        "--max-drop", type=_unit_float, default=0.02, help="tolerated drop (default 0.02)"
    )
    compare.add_argument("--markdown", metavar="FILE", help="write a Markdown summary here")
    compare.add_argument("--seed", type=int, default=12345, help="bootstrap seed (12345)")
    compare.add_argument(
        "--resamples", type=_positive_int, default=10000, help="bootstrap resamples (10000)"
    )
    compare.add_argument(
        "--alpha",
        type=_unit_float,
        default=None,
        help="fail only when a drop is also significant (p < ALPHA)",
    )
    compare.add_argument(
        "--allow-signature-mismatch",
        action="store_true",
        help="compare runs made with different settings",
    )
    compare.set_defaults(func=_cmd_compare)

    score = sub.add_parser(
        "score",
        help="score one pair, or a JSONL file of pairs, with a metric",
        description="Print the metric result as JSON; with --jsonl, one JSON line per input "
        "line (fields 'input' and 'output'; input may be a list of references).",
    )
    score.add_argument("--metric", required=True, help="metric name (see 'lexeval metrics')")
    score.add_argument("--input", help="the reference text")
    score.add_argument("--output", help="the text under evaluation")
    score.add_argument("--jsonl", metavar="FILE", help="score every line of a JSONL file")
    score.add_argument(
        "--option",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="metric option, VALUE parsed as JSON when possible (e.g. compat=mastra)",
    )
    score.set_defaults(func=_cmd_score)

    normalize = sub.add_parser("normalize", help="show what each normalization step does to a text")
    normalize.add_argument("text", metavar="TEXT")
    normalize.add_argument("--preset", default="default", help="normalizer preset")
    normalize.add_argument("--language", default="en", help="language code (default en)")
    normalize.set_defaults(func=_cmd_normalize)

    metrics = sub.add_parser("metrics", help="list the available metrics")
    metrics.set_defaults(func=_cmd_metrics)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        code: int = args.func(args)
        return code
    except UsageError as exc:
        _fail(str(exc))
    except ValueError as exc:  # DatasetError, SignatureMismatchError and option checks
        _fail(str(exc))
    except OSError as exc:
        name = f" {exc.filename}" if exc.filename else ""
        _fail(f"{exc.strerror or exc}{name}")
    except KeyboardInterrupt:
        _fail("interrupted")
    return 2


def _fail(message: str) -> None:
    print(f"lexeval: error: {' '.join(message.split())}", file=sys.stderr)


def _console() -> Console:
    from rich.console import Console

    # Tables stay readable in CI logs, where there is no terminal to measure.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 120)


# ---------------------------------------------------------------- commands


def _cmd_cards(args: argparse.Namespace) -> int:
    from lexeval.cards import Gate, check_gates, evaluate, load_dataset, load_outputs, render_run

    gates = [Gate.parse(spec) for spec in args.fail_under]  # usage errors before any work
    dataset = load_dataset(args.dataset)
    outputs = load_outputs(args.outputs)
    run = evaluate(
        dataset,
        outputs,
        threshold=args.threshold,
        strategy=args.strategy,
        normalizer=None if args.plain else args.preset,
        progress=args.progress or (sys.stderr.isatty() and len(dataset) >= 200),
    )
    results = check_gates(run, gates)
    console = _console()
    if args.quiet:
        for g in results:
            status = "PASS" if g.passed else "FAIL"
            console.print(f"{status} {g.gate.name} = {g.value:.3f} (minimum {g.gate.minimum:g})")
    else:
        render_run(run, console, results)
    if args.json:
        run.write_json(args.json, results)
        if not args.quiet:
            console.print(f"report written to {args.json}", markup=False)
    return 0 if all(g.passed for g in results) else 1


def _cmd_compare(args: argparse.Namespace) -> int:
    from lexeval.cards import compare_runs, load_report, write_text_atomic

    base = load_report(args.base)
    candidate = load_report(args.candidate)
    result = compare_runs(
        base,
        candidate,
        max_drop=args.max_drop,
        seed=args.seed,
        n_resamples=args.resamples,
        alpha=args.alpha,
        allow_signature_mismatch=args.allow_signature_mismatch,
    )
    result.render(_console())
    if args.markdown:
        write_text_atomic(args.markdown, result.to_markdown())
    return 0 if result.passed else 1


def _parse_options(specs: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for spec in specs:
        key, sep, raw = spec.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option {spec!r} must look like KEY=VALUE")
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def _read_pairs(path: str) -> tuple[list[str | list[str]], list[str]]:
    from lexeval.cards.dataset import DatasetError, _read_text, iter_jsonl

    name, text = _read_text(path, 200 * 1024 * 1024)
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


def _cmd_score(args: argparse.Namespace) -> int:
    from lexeval.metrics import get_metric

    single = args.input is not None or args.output is not None
    if args.jsonl and single:
        raise UsageError("give either --jsonl or --input/--output, not both")
    if not args.jsonl and (args.input is None or args.output is None):
        raise UsageError("give --input and --output, or --jsonl FILE")
    options = _parse_options(args.option)
    try:
        metric = get_metric(args.metric, **options)
    except TypeError as exc:
        raise UsageError(str(exc)) from None
    if not args.jsonl:
        result = metric.measure(args.input, args.output)
        print(json.dumps(result.to_dict(), ensure_ascii=False))
        return 0
    inputs, outputs = _read_pairs(args.jsonl)
    results = metric.measure_many(inputs, outputs)
    lines = [json.dumps(r.to_dict(), ensure_ascii=False) for r in results]
    sys.stdout.write("".join(line + "\n" for line in lines))
    if results:
        mean = sum(r.score for r in results) / len(results)
        print(f"{len(results)} pairs, mean score {mean:.4f}", file=sys.stderr)
    return 0


def _cmd_normalize(args: argparse.Namespace) -> int:
    from lexeval.normalize import Normalizer

    try:
        normalizer = Normalizer(preset=args.preset, language=args.language)
    except TypeError as exc:
        raise UsageError(str(exc)) from None
    explanation = str(normalizer.explain(args.text))
    print(explanation)
    if normalizer.signature not in explanation:
        print(f"signature: {normalizer.signature}")
    return 0


def _cmd_metrics(args: argparse.Namespace) -> int:
    from lexeval.metrics import list_metrics

    del args
    for name in list_metrics():
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
