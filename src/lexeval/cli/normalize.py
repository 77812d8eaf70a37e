"""``lexeval normalize``: show what each normalization step does to a text."""

from __future__ import annotations

import argparse
from typing import Any

from lexeval.cli.common import PRESET_NAMES, UsageError

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``normalize`` subcommand to ``sub`` (an argparse subparsers action)."""
    normalize = sub.add_parser("normalize", help="show what each normalization step does to a text")
    normalize.add_argument("text", metavar="TEXT")
    normalize.add_argument(
        "--preset",
        default="default",
        help=f"normalizer preset: {', '.join(PRESET_NAMES)} (default: default)",
    )
    normalize.add_argument("--language", default="en", help="language code (default en)")
    normalize.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval normalize``; returns the exit code."""
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
