"""``lexeval metrics``: list the available metrics."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``metrics`` subcommand to ``sub`` (an argparse subparsers action)."""
    metrics = sub.add_parser(
        "metrics",
        help="list the available metrics",
        description="Print the metric names that 'lexeval score' and get_metric() accept, one "
        "a line. rougeN stands for any rouge<n> (rouge3, rouge4, ...); the help of 'lexeval "
        "score' lists each metric's option keys.",
    )
    metrics.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval metrics``; returns the exit code."""
    from lexeval.registry import list_metrics

    del args
    for name in list_metrics():
        print(name)
    return 0
