"""``lexeval compare``: compare two JSON reports (baseline, candidate): two card reports
(``lexeval cards --json``) or two scored files (``lexeval score --format json``)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from lexeval.cli.common import UsageError, console, output_target, positive_int, unit_float

if TYPE_CHECKING:
    from collections.abc import Callable

    from lexeval.scored import ScoredRun

__all__ = [
    "add_comparison_arguments",
    "check_resamples",
    "comparison_options",
    "register",
    "report_comparison",
    "run",
]


def register(sub: Any) -> None:
    """Add the ``compare`` subcommand to ``sub`` (an argparse subparsers action)."""
    compare = sub.add_parser(
        "compare",
        help="compare two JSON reports (baseline, candidate): card runs or scored files",
        description="Two JSON reports of 'lexeval cards': per-metric deltas, regressed and "
        "improved cases, and a paired bootstrap interval and p-value on per-case F1; exit 1 "
        "when a gated metric (micro recall, precision, F1, macro F1) drops by more than "
        "--max-drop. Two JSON documents of 'lexeval score' (its json format) of the same records "
        "(paired by "
        "id): each metric's mean delta (BLEU, chrF, TER: corpus figure delta) with a paired "
        "bootstrap interval and p-value, and the "
        "records whose verdict changed; exit 1 when a metric's mean drops by more than "
        "--max-drop. Different records or settings: exit 2.",
    )
    compare.add_argument("base", metavar="BASE.json")
    compare.add_argument("candidate", metavar="CANDIDATE.json")
    add_comparison_arguments(compare)
    compare.set_defaults(func=run)


def add_comparison_arguments(parser: Any) -> None:
    """The options of a comparison (``compare``, ``runs diff``): the tolerated drop, the
    Markdown and HTML reports, the bootstrap and the signature check."""
    parser.add_argument(
        "--max-drop", type=unit_float, default=0.02, help="tolerated drop (default 0.02)"
    )
    parser.add_argument(
        "--markdown",
        metavar="FILE",
        help="write a Markdown summary here ('-': stdout, the table then goes to stderr)",
    )
    parser.add_argument(
        "--html",
        metavar="PATH",
        help="also write a self-contained HTML report here (atomically, never over an input)",
    )
    parser.add_argument("--seed", type=int, default=12345, help="bootstrap seed (12345)")
    parser.add_argument(
        "--resamples",
        type=positive_int,
        default=10000,
        help="bootstrap resamples (10000; from 200 to 1000000)",
    )
    parser.add_argument(
        "--alpha",
        type=unit_float,
        default=None,
        help="fail only when a drop is also significant (p < ALPHA)",
    )
    parser.add_argument(
        "--allow-signature-mismatch",
        action="store_true",
        help="compare runs made with different settings",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval compare``; returns the exit code."""
    check_resamples(args)
    inputs = {"BASE": args.base, "CANDIDATE": args.candidate}
    markdown = output_target("--markdown", args.markdown, inputs)
    html = output_target("--html", args.html, inputs)
    if html == "-":
        raise UsageError("--html needs a file name ('-' is not accepted)")
    scored = _scored_runs(args.base, args.candidate)
    if scored is not None:
        return _run_scored(args, scored, markdown, html, inputs)
    return _run_cards(args, markdown, html, inputs)


def check_resamples(args: argparse.Namespace) -> None:
    """``--resamples`` within the bootstrap's bounds (a usage error before any work)."""
    from lexeval.cards.compare import MAX_RESAMPLES, MIN_RESAMPLES

    if not MIN_RESAMPLES <= args.resamples <= MAX_RESAMPLES:
        raise UsageError(f"--resamples must be in [{MIN_RESAMPLES}, {MAX_RESAMPLES}]")


def comparison_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``compare_scored``/``compare_runs`` that the options give."""
    return {
        "max_drop": args.max_drop,
        "seed": args.seed,
        "n_resamples": args.resamples,
        "alpha": args.alpha,
        "allow_signature_mismatch": args.allow_signature_mismatch,
    }


def _scored_runs(base: str, candidate: str) -> tuple[ScoredRun, ScoredRun] | None:
    """Both runs when BASE is a ``score --format json`` document, None for card reports."""
    from lexeval.io import parse_json, read_text
    from lexeval.scored import MAX_SCORED_BYTES, is_scored_document, parse_scored

    documents = []
    for label, path in (("BASE", base), ("CANDIDATE", candidate)):
        name, text = read_text(path, MAX_SCORED_BYTES)
        documents.append((label, name, parse_json(name, text)))
    kinds = [is_scored_document(data) for _, _, data in documents]
    if not any(kinds):
        return None
    if not all(kinds):
        scored_label = documents[kinds.index(True)][0]
        other = documents[kinds.index(False)]
        raise UsageError(
            f"{scored_label} is a 'lexeval score --format json' file but {other[0]} "
            f"({other[1]}) is not: compare two of the same kind"
        )
    return parse_scored(documents[0][1], documents[0][2]), parse_scored(
        documents[1][1], documents[1][2]
    )


def _run_scored(
    args: argparse.Namespace,
    runs: tuple[ScoredRun, ScoredRun],
    markdown: str | None,
    html: str | None,
    inputs: dict[str, str],
) -> int:
    from lexeval.scored import compare_scored

    result = compare_scored(*runs, **comparison_options(args))
    from lexeval.htmlreport import render_scored_comparison

    return report_comparison(result, markdown, html, inputs, render_scored_comparison)


def _run_cards(
    args: argparse.Namespace, markdown: str | None, html: str | None, inputs: dict[str, str]
) -> int:
    from lexeval.cards import compare_runs, load_report

    base = load_report(args.base)
    candidate = load_report(args.candidate)
    result = compare_runs(base, candidate, **comparison_options(args))
    from lexeval.htmlreport import render_card_comparison

    return report_comparison(result, markdown, html, inputs, render_card_comparison)


def report_comparison(
    result: Any,
    markdown: str | None,
    html: str | None,
    inputs: dict[str, str],
    render_html: Callable[[Any], str],
) -> int:
    """Show a comparison (table; Markdown to a file or stdout; HTML); its exit code."""
    from lexeval.htmlreport import write_html
    from lexeval.io import write_text_atomic

    result.render(console(stderr=markdown == "-"))
    if markdown == "-":
        sys.stdout.write(result.to_markdown())
    elif markdown is not None:
        write_text_atomic(markdown, result.to_markdown(), inputs=inputs)
    if html is not None:
        write_html(html, render_html(result), inputs=inputs)
    return 0 if result.passed else 1
