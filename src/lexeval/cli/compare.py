"""``lexeval compare``: compare two JSON card reports (baseline, candidate)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lexeval.cli.common import UsageError, console, output_target, positive_int, unit_float

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``compare`` subcommand to ``sub`` (an argparse subparsers action)."""
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
        "--max-drop", type=unit_float, default=0.02, help="tolerated drop (default 0.02)"
    )
    compare.add_argument(
        "--markdown",
        metavar="FILE",
        help="write a Markdown summary here ('-': stdout, the table then goes to stderr)",
    )
    compare.add_argument("--seed", type=int, default=12345, help="bootstrap seed (12345)")
    compare.add_argument(
        "--resamples",
        type=positive_int,
        default=10000,
        help="bootstrap resamples (10000; from 200 to 1000000)",
    )
    compare.add_argument(
        "--alpha",
        type=unit_float,
        default=None,
        help="fail only when a drop is also significant (p < ALPHA)",
    )
    compare.add_argument(
        "--allow-signature-mismatch",
        action="store_true",
        help="compare runs made with different settings",
    )
    compare.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval compare``; returns the exit code."""
    from lexeval.cards import compare_runs, load_report
    from lexeval.cards.compare import MAX_RESAMPLES, MIN_RESAMPLES
    from lexeval.io import write_text_atomic

    if not MIN_RESAMPLES <= args.resamples <= MAX_RESAMPLES:
        raise UsageError(f"--resamples must be in [{MIN_RESAMPLES}, {MAX_RESAMPLES}]")
    inputs = {"BASE": args.base, "CANDIDATE": args.candidate}
    markdown = output_target("--markdown", args.markdown, inputs)
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
    result.render(console(stderr=markdown == "-"))
    if markdown == "-":
        sys.stdout.write(result.to_markdown())
    elif markdown is not None:
        write_text_atomic(markdown, result.to_markdown(), inputs=inputs)
    return 0 if result.passed else 1
