"""The ``lexeval`` command line: one module per subcommand, each with ``register`` and ``run``.

Exit codes: 0 every gate passed, 1 a gate failed (a threshold, or a regression in
``compare``), 2 a usage or data error (one line on stderr, no traceback). A run that fails
leaves no report file behind.

Top-level imports stay light: ``lexeval --help`` loads neither spaCy nor rich.

A new subcommand is a module in this package with ``register(sub)`` (adds its parser and
sets ``func``) and ``run(args) -> int``, listed in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lexeval._version import __version__
from lexeval.cli.common import Parser, UsageError, print_error

__all__ = ["COMMANDS", "build_parser", "main"]

#: The subcommand modules, in the order ``lexeval --help`` lists them.
COMMANDS: tuple[str, ...] = ("cards", "compare", "score", "normalize", "metrics")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = Parser(
        prog="lexeval",
        description="Lexical evaluation of LLM output: flashcard matching, keyword coverage, "
        "token-F1 and ROUGE on one normalization layer.",
        epilog="Exit codes: 0 gates passed, 1 a gate failed, 2 usage or data error.",
    )
    parser.add_argument("--version", action="version", version=f"lexeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        importlib.import_module(f"lexeval.cli.{name}").register(sub)
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
        print_error(str(exc))
    except ValueError as exc:  # DatasetError, SignatureMismatchError and option checks
        print_error(str(exc))
    except OSError as exc:
        name = f" {exc.filename}" if exc.filename else ""
        print_error(f"{exc.strerror or exc}{name}")
    except KeyboardInterrupt:
        print_error("interrupted")
    return 2


if __name__ == "__main__":
    sys.exit(main())
