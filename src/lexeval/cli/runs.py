"""``lexeval runs``: the runs saved with ``--save`` (list, show, bless, diff, delete, prune, a
history page, and migrating an older store)."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

from lexeval.cli.common import Parser, UsageError, console, distinct_targets, output_target
from lexeval.cli.compare import (
    add_comparison_arguments,
    check_resamples,
    comparison_options,
    report_comparison,
)

if TYPE_CHECKING:
    from lexeval.runs import RunStore, StoredRun

__all__ = ["register"]

_STORE_HELP = (
    "the run store file (default: $LEXEVAL_STORE, else .lexeval/runs.sqlite in the working "
    "directory)"
)
_REF_HELP = "a run id, a baseline name, or 'latest' (the newest run)"


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _run_id(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a run id")
    return int(text)


def register(sub: Any) -> None:
    """Add the ``runs`` subcommand (and its actions) to ``sub``."""
    runs = sub.add_parser(
        "runs",
        help="the runs saved with --save: list, show, bless, diff, delete, prune, html",
        description="The run store (one SQLite file; --save on score and cards writes it): "
        "list the runs, show one as the JSON its command wrote, bless one as a named "
        "baseline, compare two as 'lexeval compare' does, delete or prune runs, write a "
        "history page, migrate a store of an older lexeval.",
    )
    runs.set_defaults(func=_no_action, runs_parser=runs)
    actions = runs.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)

    def action(name: str, help_text: str, func: Any) -> Any:
        parser = actions.add_parser(name, help=help_text, description=help_text)
        parser.add_argument("--store", metavar="PATH", help=_STORE_HELP)
        parser.set_defaults(func=func)
        return parser

    listing = action("list", "list the saved runs, oldest first", _list)
    listing.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="a table (default), or a JSON array (id, label, kind, created, means, corpus, ...)",
    )
    show = action("show", "show one run; --format json: the JSON its command wrote", _show)
    show.add_argument("run", metavar="ID", help=_REF_HELP)
    show.add_argument(
        "--format",
        choices=("summary", "json"),
        default="summary",
        help="what the run was (default), or the JSON document its command wrote",
    )
    bless = action("bless", "name a run as a baseline (moves the name if taken)", _bless)
    bless.add_argument("run", metavar="ID", help=_REF_HELP)
    bless.add_argument("name", metavar="NAME", help="the baseline's name, e.g. main")
    diff = action(
        "diff",
        "compare two stored runs as 'lexeval compare' does (A the baseline, B the candidate); "
        "exit 1 on a drop beyond --max-drop",
        _diff,
    )
    diff.add_argument("base", metavar="A", help=_REF_HELP)
    diff.add_argument("candidate", metavar="B", help=_REF_HELP)
    add_comparison_arguments(diff)
    delete = action("delete", "delete one run", _delete)
    delete.add_argument("run", metavar="ID", type=_run_id, help="a run id")
    delete.add_argument(
        "--force", action="store_true", help="delete a blessed run too, with its baseline names"
    )
    prune = action("prune", "delete all but the newest runs; blessed runs are always kept", _prune)
    prune.add_argument(
        "--keep",
        type=_non_negative,
        required=True,
        metavar="N",
        help="how many of the newest runs to keep, besides every blessed run",
    )
    page = action(
        "html",
        "write a self-contained history page: per-metric trends, each run's summary",
        _html,
    )
    page.add_argument("--out", metavar="PATH", required=True, help="the page (atomically)")
    action(
        "migrate",
        "migrate a store written by an older lexeval to this one's schema (one transaction)",
        _migrate,
    )


def _no_action(args: argparse.Namespace) -> int:
    raise UsageError(
        "runs needs an action: list, show, bless, diff, delete, prune, html or migrate "
        f"(see '{args.runs_parser.prog} --help')"
    )


def _open(args: argparse.Namespace) -> RunStore:
    from lexeval.runs import RunStore

    return RunStore.open(args.store)


def _shown(text: str) -> str:
    """A stored label, name or command line for the terminal: control characters (an escape
    sequence would act on the terminal) written as ``\\xNN``.

    >>> _shown("v2\\x1b]0;title\\x07 ok")
    'v2\\\\x1b]0;title\\\\x07 ok'
    """
    return "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) == "Cc" else c for c in text)


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _figures_text(run: StoredRun) -> str:
    """Each metric's headline figure (:meth:`~lexeval.runs.StoredRun.figures`): ``bleu (corpus)
    0.3012 (mean 0.2850)`` for a corpus figure, ``rouge1 0.5000`` for a mean."""
    shown = []
    for name, figure in run.figures().items():
        mean = f" (mean {_value(run.means[name])})" if figure.kind == "corpus" else ""
        shown.append(f"{figure.label(name)} {_value(figure.value)}{mean}")
    return ", ".join(shown)


def _list(args: argparse.Namespace) -> int:
    with _open(args) as store:
        runs = store.list()
    if args.format == "json":
        sys.stdout.write(json.dumps([r.to_dict() for r in runs], ensure_ascii=False, indent=2))
        sys.stdout.write("\n")
        return 0
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{len(runs)} runs in {store.path}")
    for name in ("id", "label", "kind", "created", "baseline", "figures"):
        table.add_column(name, justify="right" if name == "id" else "left")
    for r in runs:
        table.add_row(
            str(r.id),
            Text(_shown(r.label or "-")),
            r.kind,
            r.created,
            Text(_shown(", ".join(r.baselines) or "-")),
            Text(_shown(_figures_text(r))),
        )
    console().print(table)
    return 0


def _show(args: argparse.Namespace) -> int:
    with _open(args) as store:
        found = store.load(args.run)
    assert found.document is not None
    if args.format == "json":
        sys.stdout.write(found.document)
        return 0
    lines = [
        ("run", str(found.id)),
        ("label", _shown(found.label or "-")),
        ("kind", found.kind),
        ("created", found.created),
        ("command", _shown(" ".join(found.command)) or "-"),
        ("lexeval", found.lexeval_version),
        ("git commit", found.git_commit or "-"),
        ("baselines", _shown(", ".join(found.baselines)) or "-"),
    ]
    for name, figure in found.figures().items():
        if figure.kind == "corpus":
            lines.append((f"corpus {name}", _value(figure.value)))
        lines.append((f"mean {name}", _value(found.means[name])))
    width = max(len(key) for key, _ in lines)
    sys.stdout.write("".join(f"{key:<{width}}  {value}\n" for key, value in lines))
    return 0


def _bless(args: argparse.Namespace) -> int:
    with _open(args) as store:
        target = store.load(args.run)
        before = store.bless(target.id, args.name)
    moved = "" if before is None or before == target.id else f" (moved from run {before})"
    print(f"run {target.id} is baseline {args.name!r}{moved}", file=sys.stderr)
    return 0


def _diff(args: argparse.Namespace) -> int:
    from lexeval.runs.compare import compare_stored

    check_resamples(args)
    markdown = output_target("--markdown", args.markdown, {})
    html = output_target("--html", args.html, {})
    distinct_targets({"--markdown": markdown, "--html": html})
    if html == "-":
        raise UsageError("--html needs a file name ('-' is not accepted)")
    with _open(args) as store:
        base = store.load(args.base)
        candidate = store.load(args.candidate)
    result = compare_stored(base, candidate, **comparison_options(args))
    from lexeval.htmlreport import render_card_comparison, render_scored_comparison
    from lexeval.scored import ScoredComparison

    scored = isinstance(result, ScoredComparison)
    render = render_scored_comparison if scored else render_card_comparison
    return report_comparison(result, markdown, html, {"STORE": store.path}, render)


def _delete(args: argparse.Namespace) -> int:
    with _open(args) as store:
        names = store.delete(args.run, force=args.force)
    dropped = f" and its baseline names {', '.join(map(repr, names))}" if names else ""
    print(f"deleted run {args.run}{dropped}", file=sys.stderr)
    return 0


def _prune(args: argparse.Namespace) -> int:
    with _open(args) as store:
        deleted = store.prune(args.keep)
    shown = ", ".join(map(str, deleted)) if deleted else "none"
    print(f"deleted {len(deleted)} runs ({shown})", file=sys.stderr)
    return 0


def _html(args: argparse.Namespace) -> int:
    from lexeval.htmlreport import write_html
    from lexeval.htmlreport.history import render_history

    target = output_target("--out", args.out, {})
    if target == "-":
        raise UsageError("--out needs a file name ('-' is not accepted)")
    with _open(args) as store:
        runs = store.list()
        page = render_history(runs, store=store.path)
        write_html(target or args.out, page, inputs={"STORE": store.path})
    print(f"history of {len(runs)} runs written to {args.out}", file=sys.stderr)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from lexeval.runs import RunStore, store_path

    before, after = RunStore.migrate(args.store)
    name = store_path(args.store)
    if before == after:
        print(f"{name}: already at schema {after}, nothing to do", file=sys.stderr)
    else:
        print(f"{name}: migrated from schema {before} to {after}", file=sys.stderr)
    return 0
