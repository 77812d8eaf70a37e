"""The ``lexeval`` command line: one module per subcommand, each with ``register`` and ``run``.

Exit codes: 0 every gate passed, 1 a gate failed (a threshold, or a regression in
``compare``), 2 a usage or data error (one line on stderr, no traceback), 130 interrupted
(SIGINT), 128 + N killed by signal N (SIGTERM 143, SIGHUP 129). A run that fails or is
interrupted leaves no report file behind, not even a temporary one.

Top-level imports stay light: ``lexeval --help`` loads neither spaCy nor rich.

A new subcommand is a module in this package with ``register(sub)`` (adds its parser and
sets ``func``) and ``run(args) -> int``, listed in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from lexeval._build import build
from lexeval._version import __version__
from lexeval.cli.common import Parser, UsageError, print_error

__all__ = ["COMMANDS", "EXIT_INTERRUPTED", "build_parser", "main"]

#: The subcommand modules, in the order ``lexeval --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "cards",
    "compare",
    "score",
    "normalize",
    "metrics",
    "judge",
    "meta",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = Parser(
        prog="lexeval",
        description="Lexical evaluation of LLM output: flashcard matching, keyword coverage, "
        "token-F1 and ROUGE on one normalization layer.",
        epilog="Exit codes: 0 gates passed, 1 a gate failed, 2 usage or data error.",
    )
    parser.add_argument("--version", action="version", version=f"lexeval {__version__} ({build()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        importlib.import_module(f"lexeval.cli.{name}").register(sub)
    return parser


#: Exit code of a run stopped by SIGINT (Ctrl-C), as shells report it.
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    from lexeval.io import Terminated, signals_as_exceptions

    parser = build_parser()
    try:
        with signals_as_exceptions():
            args = parser.parse_args(argv)
            if args.command is None:
                parser.print_help()
                return 2
            code: int = args.func(args)
            return code
    except UsageError as exc:
        print_error(str(exc))
    except ValueError as exc:  # InputError, OutputError, SignatureMismatchError, options
        print_error(str(exc))
    except BrokenPipeError:
        # The reader of stdout went away (``lexeval ... | head``): stop quietly.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print_error(f"{where}{exc.strerror or exc}")
    except KeyboardInterrupt:
        print_error("interrupted")
        return EXIT_INTERRUPTED
    except Terminated as exc:
        print_error(f"terminated by {exc}")
        return 128 + exc.signum
    except Exception as exc:
        # Any judge error (backend, cache, configuration) is one line and exit 2. The judge
        # tier is only looked up when it was imported: the command line does not load it.
        errors = sys.modules.get("lexeval.judge.errors")
        if errors is None or not isinstance(exc, errors.JudgeError):
            raise
        print_error(str(exc))
    return 2


if __name__ == "__main__":
    sys.exit(main())
