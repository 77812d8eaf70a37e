"""What every subcommand shares: the usage error, the parser class, argument types, the console.

>>> unit_float("0.25")
0.25
>>> parse_options(["compat=mastra", "n=4"])
{'compat': 'mastra', 'n': 4}
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from rich.console import Console

#: The normalizer presets (``lexeval.normalize.PRESETS``, named here so that ``--help`` stays
#: light; a test checks that they agree).
PRESET_NAMES: tuple[str, ...] = (
    "default",
    "tokens",
    "rouge",
    "none",
    "mastra",
    "squad",
    "rouge-score",
)

__all__ = [
    "PRESET_NAMES",
    "Parser",
    "UsageError",
    "add_language_arguments",
    "console",
    "distinct_targets",
    "language_code",
    "output_target",
    "parse_options",
    "positive_int",
    "print_error",
    "strict_json",
    "unit_float",
    "workers_count",
]


class UsageError(Exception):
    """A command-line or data problem: reported in one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors become :class:`UsageError` (one line, exit 2).

    ``more_epilog``: a function whose text is added to the epilog when the help is shown (and
    only then: it may import what the help needs, which other runs do not load).
    """

    def __init__(self, *args: Any, more_epilog: Callable[[], str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.more_epilog = more_epilog

    def format_help(self) -> str:
        if self.more_epilog is not None:
            self.epilog = "\n\n".join(p for p in (self.epilog, self.more_epilog()) if p)
            self.more_epilog = None
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def unit_float(text: str) -> float:
    """An argument type: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not in [0, 1]")
    return value


def _integer_at_least(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(
            f"{text} is {'negative' if minimum == 0 else 'not positive'}"
        )
    return value


def workers_count(text: str) -> int | str:
    """An argument type: processes to use, ``auto`` (every core) or a positive integer of at
    most :func:`lexeval.run.pool.max_workers`.

    >>> workers_count("2"), workers_count("auto")
    (2, 'auto')
    """
    from lexeval.run.pool import max_workers, resolve_workers

    if text == "auto":
        return text
    value = _integer_at_least(text, 1, "an integer or 'auto'")
    try:
        resolve_workers(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text} is more than {max_workers()} (4 per available core)"
        ) from None
    return value


def positive_int(text: str) -> int:
    """An argument type: an integer of at least 1."""
    return _integer_at_least(text, 1, "an integer")


def language_code(text: str) -> str:
    """An argument type: a language code spaCy knows (see
    :func:`lexeval.text.resources.check_language`).

    >>> language_code("de")
    'de'
    """
    from lexeval.text.resources import check_language

    try:
        return check_language(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_language_arguments(parser: argparse.ArgumentParser, *, field: bool = True) -> None:
    """``--language CODE`` (and, with ``field``, ``--language-field NAME``): one call gives a
    subcommand the texts' language (``score``, ``cards``, ``match``)."""
    parser.add_argument(
        "--language",
        type=language_code,
        metavar="CODE",
        help="the texts' language, a spaCy code (de, fr, es, ru, zh, ...; default en): the "
        "normalizer of each metric in that language, as Normalizer(language=CODE), named in "
        "the signature",
    )
    if field:
        parser.add_argument(
            "--language-field",
            metavar="NAME",
            help="field holding each record's language code (records without one: --language)",
        )


def parse_options(specs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` metric options; VALUE is parsed as JSON when it can be."""
    options: dict[str, Any] = {}
    for spec in specs:
        key, sep, raw = spec.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option {spec!r} must look like KEY=VALUE")
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
        except RecursionError:
            raise UsageError(f"--option {key.strip()}: the value is nested too deeply") from None
    return options


def print_error(message: str) -> None:
    """Print ``message`` as one ``lexeval: error:`` line on stderr."""
    print(f"lexeval: error: {' '.join(message.split())}", file=sys.stderr)


def console(*, stderr: bool = False) -> Console:
    """A Rich console for stdout (or stderr, when stdout carries a report) that stays readable
    in CI logs."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # Tables stay readable in CI logs, where there is no terminal to measure.
    return Console(highlight=False, stderr=stderr, width=None if stream.isatty() else 120)


def output_target(option: str, path: str | None, inputs: dict[str, str]) -> str | None:
    """Check a report option's target before any work: None (not asked), ``-`` (stdout; also
    for ``/dev/stdout``, so the table goes to stderr), or a path that
    :func:`lexeval.io.check_output_path` accepts (refused: empty names, devices, FIFOs,
    directories, missing directories and the run's own ``inputs``; a stream such as
    ``/dev/fd/3`` is written where it stands)."""
    from lexeval.io import check_output_path, stream_fd

    if path is None or path == "-":
        return path
    if stream_fd(path) == 1:
        path = "-"
    try:
        check_output_path(path, inputs)
    except ValueError as exc:
        raise UsageError(f"{option} {exc}") from None
    return path


def distinct_targets(targets: dict[str, str | None]) -> None:
    """Refuse two report options of one run naming the same file (the second would replace
    the first): a :class:`UsageError` naming both. Stdout (``-``) and unset ones are skipped.

    >>> distinct_targets({"--json": "r.json", "--html": "r.html", "--markdown": "-"})
    >>> distinct_targets({"--json": "r.out", "--html": "./r.out"})
    Traceback (most recent call last):
    ...
    lexeval.cli.common.UsageError: --html ./r.out: is also the --json target
    """
    seen: dict[str, str] = {}
    for option, target in targets.items():
        if target is None or target == "-":
            continue
        real = os.path.realpath(target)
        if real in seen:
            raise UsageError(f"{option} {target}: is also the {seen[real]} target")
        seen[real] = option


def strict_json(value: Any, *, indent: int | None = None) -> str:
    """``value`` as strict JSON: NaN and infinite floats (an unreadable judge reply's score)
    become ``null``.

    >>> strict_json({"score": float("nan"), "info": {"parse_error": "no verdict"}})
    '{"score": null, "info": {"parse_error": "no verdict"}}'
    """

    def finite(item: Any) -> Any:
        if isinstance(item, float) and not math.isfinite(item):
            return None
        if isinstance(item, dict):
            return {k: finite(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [finite(v) for v in item]
        return item

    return json.dumps(finite(value), ensure_ascii=False, allow_nan=False, indent=indent)
