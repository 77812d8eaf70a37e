"""What a scoring command shares to remember its runs: ``--save``, ``--label``, ``--store`` and
the baseline gate ``--baseline NAME --max-drop D`` (``lexeval score``, ``lexeval cards``; a
new command adds them with one call of :func:`add_run_arguments`, then calls
:func:`prepare_runs` before its work and :meth:`RunKeeping.compare` and
:meth:`RunKeeping.save` with the JSON document it writes).

An existing store is opened and checked (and the baseline read) before any work, so a bad
store or a missing baseline is exit 2 at once; a new store is made only when the run is saved
(a run refused for bad input leaves no empty store behind), its folder checked first. Saving
adds one line on stderr and changes neither what goes to stdout nor the exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lexeval.cli.common import UsageError, unit_float

if TYPE_CHECKING:
    from lexeval.runs import StoredRun

__all__ = ["RunKeeping", "add_run_arguments", "prepare_runs", "store_input"]


def add_run_arguments(parser: Any) -> None:
    """Add the run store's options to a command's parser."""
    group = parser.add_argument_group("run store (see 'lexeval runs')")
    group.add_argument(
        "--save",
        action="store_true",
        help="record this run in the run store (its JSON document, command, lexeval version, "
        "time and git commit); stdout and the exit code stay the same",
    )
    group.add_argument("--label", metavar="TEXT", help="a name for the saved run")
    group.add_argument(
        "--store",
        metavar="PATH",
        help="the run store file (default: $LEXEVAL_STORE, else .lexeval/runs.sqlite in the "
        "working directory)",
    )
    group.add_argument(
        "--baseline",
        metavar="NAME",
        help="compare this run with the run blessed as NAME ('lexeval runs bless'), as "
        "'lexeval compare' does; exit 1 on a drop beyond --max-drop, 2 when the baseline is "
        "missing or was made with other settings",
    )
    group.add_argument(
        "--max-drop",
        type=unit_float,
        default=None,
        metavar="D",
        help="with --baseline: tolerated drop of a gated metric (default 0.02)",
    )


#: The tolerated drop when ``--baseline`` is given without ``--max-drop`` (as ``compare``).
DEFAULT_MAX_DROP = 0.02


@dataclass(frozen=True, slots=True)
class RunKeeping:
    """What a command does with its run: save it (``store`` given with ``--save``) and compare
    it with a baseline (``baseline``, loaded before the work)."""

    kind: str
    store: str
    save_run: bool
    label: str | None
    command: tuple[str, ...]
    baseline: StoredRun | None
    baseline_name: str | None
    max_drop: float

    def compare(self, document: str) -> Any:
        """The comparison of the new run's JSON ``document`` with the baseline (None without
        one): a card or scored comparison, as ``lexeval compare`` makes it; ValueError (exit 2)
        when the settings or records differ."""
        if self.baseline is None:
            return None
        from lexeval.runs.compare import compare_documents, run_name

        assert self.baseline.document is not None
        name = f"baseline {self.baseline_name!r} ({run_name(self.baseline)})"
        try:
            return compare_documents(
                (name, self.baseline.document), ("this run", document), max_drop=self.max_drop
            )
        except ValueError as exc:  # the gate has no --allow-signature-mismatch: say what helps
            message = str(exc).replace(
                "pass --allow-signature-mismatch to compare anyway",
                f"bless a run made with these settings as {self.baseline_name!r}",
            )
            raise UsageError(f"--baseline {self.baseline_name}: {message}") from None

    def save(self, document: str, *, quiet: bool = False) -> int | None:
        """Save the run's JSON ``document`` when ``--save`` was given; its id. One line on
        stderr says where (unless ``quiet``)."""
        if not self.save_run:
            return None
        from lexeval.runs import RunStore

        with RunStore.open(self.store, create=True) as store:
            run_id = store.save(self.kind, document, label=self.label, command=self.command)
        if not quiet:
            print(f"saved run {run_id} to {self.store}", file=sys.stderr)
        return run_id


def store_input(args: argparse.Namespace) -> dict[str, str]:
    """The run store as one of the command's inputs (``{"STORE": path}``) when an option asks
    for it, so that no report target (``--json``, ``--html``) is written over it."""
    if not (getattr(args, "save", False) or getattr(args, "baseline", None)):
        return {}
    from lexeval.runs import store_path

    return {"STORE": store_path(args.store)}


def _public(args: argparse.Namespace, command: Sequence[str]) -> list[str]:
    """The command line as stored: a key written in ``--judge-url`` is taken out, as lexeval
    does wherever it shows the URL."""
    url = getattr(args, "judge_url", None)
    if not url:
        return list(command)
    from lexeval.judge.endpoint import split_url

    endpoint = split_url(url)
    return [endpoint.scrub(part.replace(url, endpoint.url or "")) for part in command]


def prepare_runs(args: argparse.Namespace, kind: str) -> RunKeeping | None:
    """Check the run store options before any work: the store opens (created for ``--save``),
    the baseline exists and is a run of this ``kind``. None when no option asks for the
    store."""
    if args.max_drop is not None and args.baseline is None:
        raise UsageError("--max-drop goes with --baseline NAME")
    if args.label is not None and not args.save:
        raise UsageError("--label names a saved run: give --save too")
    if args.store is not None and not (args.save or args.baseline):
        raise UsageError("--store goes with --save or --baseline")
    if not args.save and args.baseline is None:
        return None
    from lexeval.runs import store_path

    path = store_path(args.store)
    baseline = None
    if args.baseline is None and not os.path.lexists(path):
        _check_place(path)  # the store is made when the run is saved, not before the work
    else:
        baseline = _check_store(path, args.baseline, kind)
    command: Sequence[str] = _public(args, getattr(args, "argv", None) or ())
    return RunKeeping(
        kind,
        path,
        bool(args.save),
        args.label,
        ("lexeval", *command),
        baseline,
        args.baseline,
        DEFAULT_MAX_DROP if args.max_drop is None else args.max_drop,
    )


def _check_place(path: str) -> None:
    """Refuse, before any work, a store path whose new file could not be made: its nearest
    existing folder must be a writable folder."""
    from lexeval.runs import StoreError

    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(
            f"{path}: cannot make a run store here ({folder} is not a writable folder)"
        )


def _check_store(path: str, baseline_name: str | None, kind: str) -> StoredRun | None:
    """Open the existing store (or the missing one named with a baseline: an error), check it
    and read the baseline."""
    from lexeval.runs import RunStore, StoreError

    baseline = None
    with RunStore.open(path) as store:
        store.check()
        if baseline_name is not None:
            baseline = store.baseline(baseline_name)
            if baseline.kind != kind:
                raise StoreError(
                    f"baseline {baseline_name!r} is a {baseline.kind} run (run {baseline.id}); "
                    f"this is a {kind} run"
                )
    return baseline
