"""What the matching commands (``lexeval match``, ``lexeval cards``) share: the dataset and
outputs arguments with the report targets (``--json``, ``--html``), their checks before any
work, and the end of a run (gate lines or the table, the reports, the run store, the
baseline gate, the exit code)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from lexeval.cli.common import UsageError, console, distinct_targets, output_target
from lexeval.cli.saving import RunKeeping, store_input

if TYPE_CHECKING:
    import os

    from rich.console import Console

    from lexeval.records.report import GateCheck

__all__ = ["MatchRun", "ReportTargets", "add_report_arguments", "finish_run", "report_targets"]


def add_report_arguments(parser: Any, outputs_help: str) -> None:
    """Add ``DATASET``, ``OUTPUTS`` (described by ``outputs_help``), ``--json`` and ``--html``."""
    parser.add_argument("dataset", metavar="DATASET", help="YAML dataset ('-': stdin)")
    parser.add_argument("outputs", metavar="OUTPUTS", help=outputs_help)
    parser.add_argument(
        "--json",
        metavar="REPORT",
        help="write the JSON report here (atomically; '-': stdout, the table then goes to stderr)",
    )
    parser.add_argument(
        "--html",
        metavar="PATH",
        help="also write a self-contained HTML report here (atomically, never over an input)",
    )


@dataclass(frozen=True, slots=True)
class ReportTargets:
    """The inputs (label -> path) and where the JSON and HTML reports go (None: nowhere)."""

    inputs: dict[str, str]
    report: str | None
    html: str | None


def report_targets(args: argparse.Namespace) -> ReportTargets:
    """Check the inputs and the report targets before any work (usage errors: exit 2)."""
    if args.dataset == "-" and args.outputs == "-":
        raise UsageError("DATASET and OUTPUTS cannot both be '-' (standard input)")
    inputs = {"DATASET": args.dataset, "OUTPUTS": args.outputs, **store_input(args)}
    report = output_target("--json", args.json, inputs)
    html = output_target("--html", args.html, inputs)
    distinct_targets({"--json": report, "--html": html})
    if html == "-":
        raise UsageError("--html needs a file name ('-' is not accepted)")
    return ReportTargets(inputs, report, html)


class MatchRun(Protocol):
    """What :func:`finish_run` reads of a run (a card or a record run)."""

    @property
    def dataset_path(self) -> str | None: ...

    def to_json(self, gates: Sequence[Any] = ()) -> str: ...

    def write_json(
        self,
        path: str | os.PathLike[str],
        gates: Sequence[Any] = (),
        *,
        inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
    ) -> None: ...


def finish_run(
    args: argparse.Namespace,
    run: MatchRun,
    results: Sequence[GateCheck[Any]],
    targets: ReportTargets,
    keeping: RunKeeping | None,
    render: Callable[[Console], None],
    page: Callable[[], str],
) -> int:
    """Print the gate lines (``--quiet``) or ``render`` the table, write the JSON report and
    the HTML ``page``, save the run and gate it on the baseline; the exit code."""
    report, html, inputs = targets.report, targets.html, targets.inputs
    document = run.to_json(results)
    # the baseline's settings are checked before anything is printed
    comparison = keeping.compare(document) if keeping is not None else None
    out = console(stderr=report == "-")
    if args.quiet:
        for g in results:
            status = "PASS" if g.passed else "FAIL"
            out.print(f"{status} {g.describe()}")
    else:
        render(out)
    if report == "-":
        sys.stdout.write(document)
    elif report is not None:
        run.write_json(report, results, inputs=inputs)
        if not args.quiet:  # a note, not a result: on stderr
            print(f"report written to {report}", file=sys.stderr)
    if html is not None:
        from lexeval.htmlreport import write_html

        write_html(html, page(), inputs={"dataset": run.dataset_path, **inputs})
        if not args.quiet:
            print(f"HTML report written to {html}", file=sys.stderr)
    passed = all(g.passed for g in results)
    if keeping is not None:
        keeping.save(document, quiet=args.quiet)
    if comparison is not None:
        # where the table goes (stdout, or stderr when stdout carries the JSON report)
        comparison.render(out)
        passed &= comparison.passed
    return 0 if passed else 1
