"""``lexeval cards``: evaluate generated flashcards against a dataset."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lexeval.cli.common import (
    PRESET_NAMES,
    UsageError,
    add_language_arguments,
    unit_float,
    workers_count,
)
from lexeval.cli.reporting import add_report_arguments, finish_run, report_targets
from lexeval.cli.saving import add_run_arguments, prepare_runs

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``cards`` subcommand to ``sub`` (an argparse subparsers action)."""
    cards = sub.add_parser(
        "cards",
        help="evaluate generated flashcards against a dataset",
        description="Match generated cards to the expected cards of each case, print a table, "
        "optionally write a JSON report and fail on gates.",
    )
    add_report_arguments(cards, "generated cards (.jsonl/.json/.yaml; '-': JSONL on stdin)")
    cards.add_argument(
        "--threshold", type=unit_float, default=0.3, help="minimum pair score (default 0.3)"
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
    norm.add_argument(
        "--preset",
        default="default",
        help=f"normalizer preset: {', '.join(PRESET_NAMES)} (default: default)",
    )
    norm.add_argument(
        "--plain",
        action="store_true",
        help="no normalization: case-sensitive substring matching (kw in text)",
    )
    add_language_arguments(cards, field=False)
    cards.add_argument("--quiet", action="store_true", help="print only the gate lines")
    cards.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar on stderr (automatic on a terminal from 200 cases)",
    )
    cards.add_argument(
        "--workers",
        type=workers_count,
        default=1,
        metavar="N",
        help="match the cases on N processes ('auto': every core; default 1)",
    )
    cards.add_argument(
        "--semantic",
        action="store_true",
        help="let embeddings decide the pairs whose keyword score is uncertain "
        "(needs the extra: pip install 'lexeval[semantic]'; docs/semantic.md)",
    )
    add_run_arguments(cards)
    cards.set_defaults(func=run)


def _semantic_tier() -> Any:
    """The card matcher's semantic tier, or a usage error when the extra is not installed."""
    try:
        from lexeval.cards.semantic import SemanticTier

        return SemanticTier()
    except ImportError as exc:
        raise UsageError(f"--semantic: {exc}") from None


def _normalizer(args: argparse.Namespace) -> Any:
    """The matcher's normalizer: None (``--plain``), a preset name, or the shared normalizer
    of the preset in ``--language``."""
    if args.language is None:
        return None if args.plain else args.preset
    if args.plain:
        raise UsageError("--language needs a normalizer: not with --plain")
    from lexeval.normalize import PRESETS, shared_normalizer

    if args.preset in PRESETS and PRESETS[args.preset].compat is not None:
        raise UsageError(f"--preset {args.preset} reproduces a peer and takes no --language")
    try:
        return shared_normalizer(args.preset, args.language)
    except ValueError as exc:
        raise UsageError(f"--preset {args.preset}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval cards``; returns the exit code."""
    from lexeval.cards import Gate, check_gates, evaluate, load_dataset, load_outputs, render_run

    gates = [Gate.parse(spec) for spec in args.fail_under]  # usage errors before any work
    targets = report_targets(args)
    keeping = prepare_runs(args, "cards")
    normalizer = _normalizer(args)
    semantic = _semantic_tier() if args.semantic else None
    dataset = load_dataset(args.dataset)
    outputs = load_outputs(args.outputs)
    run = evaluate(
        dataset,
        outputs,
        threshold=args.threshold,
        strategy=args.strategy,
        normalizer=normalizer,
        progress=args.progress or (sys.stderr.isatty() and len(dataset) >= 200),
        workers=args.workers,
        semantic=semantic,
    )
    results = check_gates(run, gates)

    def page() -> str:
        from lexeval.htmlreport import render_cards

        return render_cards(run, results)

    return finish_run(
        args, run, results, targets, keeping, lambda out: render_run(run, out, results), page
    )
