"""lexeval's pytest plugin (entry point ``pytest11``), loaded by pytest when lexeval is
installed: the marker ``lexeval_cases`` and the fixture ``lexeval_case``.

A test marked ``@pytest.mark.lexeval_cases("pairs.jsonl")`` (a path relative to the test
file; any format of :mod:`lexeval.run.batch`, with the same ``reference_field=``, ``output_field=``
and ``id_field=`` keywords) that takes the ``lexeval_case`` argument runs once per record, the
record's id as the test id::

    from lexeval.testing import assert_lexical

    @pytest.mark.lexeval_cases("answers.csv")
    def test_answers(lexeval_case):
        assert_lexical(lexeval_case.reference, lexeval_case.output, threshold=0.5)

With ``--lexeval-save`` (or ``lexeval_save = true`` in the ini file), every
:func:`~lexeval.testing.assert_lexical` call of the session, passing or failing, is saved in the
run store (``lexeval runs``) when the session ends: one scored run per metric configuration,
one record per call, its id the test's node id (``#2``, ``#3`` for a test's later calls).
``--lexeval-store PATH`` (``lexeval_store``; else ``$LEXEVAL_STORE``, else
``.lexeval/runs.sqlite``) chooses the store and ``--lexeval-label TEXT`` (``lexeval_label``)
names the runs. The store is checked when the session starts; pytest-xdist's ``-n`` is refused
with it (its workers' calls would not reach the store).

Importing this module loads neither spaCy nor the metrics.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from lexeval.testing import Recorded

__all__ = [
    "lexeval_case",
    "pytest_addoption",
    "pytest_configure",
    "pytest_generate_tests",
    "pytest_runtest_call",
    "pytest_sessionfinish",
    "pytest_sessionstart",
]

MARKER = "lexeval_cases"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--lexeval-save``, ``--lexeval-store``, ``--lexeval-label`` and their ini settings;
    ``--lexeval-full-signature``: assertion messages show the full signature instead of the
    short settings line."""
    group = parser.getgroup("lexeval", "lexeval run store")
    group.addoption(
        "--lexeval-save",
        action="store_true",
        default=None,
        help="save the session's assert_lexical scores in lexeval's run store",
    )
    group.addoption("--lexeval-store", metavar="PATH", help="the run store file")
    group.addoption("--lexeval-label", metavar="TEXT", help="a label for the saved runs")
    parser.addini("lexeval_save", "save assert_lexical scores in the run store", type="bool")
    parser.addini("lexeval_store", "the run store file (else $LEXEVAL_STORE)")
    parser.addini("lexeval_label", "a label for the saved runs")
    parser.getgroup("lexeval").addoption(
        "--lexeval-full-signature",
        action="store_true",
        help="lexeval's assertion messages show the full signature, not the short settings",
    )


class _Saver:
    """The session's recording: every assert_lexical call, with the test that made it."""

    def __init__(self, store: str, label: str | None) -> None:
        from lexeval.testing import recording

        self.store = store
        self.label = label
        self._recording = recording()
        self.calls = self._recording.__enter__()
        self.tests: list[str] = []

    def stop(self) -> None:
        self._recording.__exit__(None, None, None)

    def save(self, command: list[str]) -> list[tuple[int, str, int]]:
        """Save one run per metric configuration; (run id, metric, calls) of each."""
        from lexeval.cli.common import strict_json
        from lexeval.metrics import aggregate
        from lexeval.runs import RunStore
        from lexeval.scored import (
            ScoredCase,
            ScoredRun,
            corpus_figures,
            scored_document,
            summary_entries,
        )

        groups: dict[tuple[str, str], list[tuple[str, Recorded]]] = {}
        for test, call in zip(self.tests, self.calls, strict=True):
            groups.setdefault((call.metric, call.signature), []).append((test, call))
        saved = []
        with RunStore.open(self.store, create=True) as store:
            for (metric, signature), calls in groups.items():
                seen: dict[str, int] = {}
                cases = []
                for line, (test, call) in enumerate(calls, start=1):
                    seen[test] = seen.get(test, 0) + 1
                    ident = test if seen[test] == 1 else f"{test}#{seen[test]}"
                    reference = (
                        call.reference if isinstance(call.reference, str) else list(call.reference)
                    )
                    cases.append(
                        ScoredCase(
                            ident,
                            line,
                            reference,
                            call.output,
                            call.question,
                            {metric: call.result},
                        )
                    )
                run = ScoredRun("pytest", {metric: signature}, tuple(cases))
                column = {metric: [c.results[metric] for c in cases]}
                scorer = calls[0][1].scorer  # the same settings (signature) for every call
                corpus = {} if scorer is None else corpus_figures({metric: scorer}, column)
                summary = summary_entries({metric: aggregate(column[metric])}, corpus)
                label = f"{self.label}: {metric}" if self.label else f"pytest: {metric}"
                document = strict_json(scored_document(run, summary), indent=2) + "\n"
                run_id = store.save("score", document, label=label, command=command)
                saved.append((run_id, metric, len(cases)))
        return saved


_SAVER = pytest.StashKey["_Saver | None"]()


def _setting(config: pytest.Config, option: str, ini: str) -> Any:
    value = config.getoption(option)
    return value if value is not None else (config.getini(ini) or None)


def pytest_sessionstart(session: pytest.Session) -> None:
    """With ``--lexeval-save``: check the store, start recording assert_lexical calls."""
    config = session.config
    session.config.stash[_SAVER] = None
    if not _setting(config, "lexeval_save", "lexeval_save") or hasattr(config, "workerinput"):
        return
    if getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--lexeval-save does not work with pytest-xdist's -n: run without")
    from lexeval.runs import RunStore, StoreError, store_path

    path = store_path(_setting(config, "lexeval_store", "lexeval_store"))
    try:
        with RunStore.open(path, create=True) as store:
            store.check()
    except (StoreError, OSError) as exc:
        raise pytest.UsageError(f"--lexeval-save: {exc}") from None
    config.stash[_SAVER] = _Saver(path, _setting(config, "lexeval_label", "lexeval_label"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Tag the assert_lexical calls of a test with its node id."""
    saver = item.config.stash.get(_SAVER, None)
    start = len(saver.calls) if saver is not None else 0
    try:
        return (yield)
    finally:
        if saver is not None:
            saver.tests += [item.nodeid] * (len(saver.calls) - start)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Save the recorded calls (one line per run on the terminal)."""
    del exitstatus
    saver = session.config.stash.get(_SAVER, None)
    if saver is None:
        return
    saver.stop()
    session.config.stash[_SAVER] = None
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def say(text: str, **markup: bool) -> None:
        if reporter is not None:
            reporter.write_line(text, **markup)

    if not saver.calls:
        say("lexeval: no assert_lexical call to save")
        return
    from lexeval.runs import StoreError

    command = ["pytest", *session.config.invocation_params.args]
    try:
        saved = saver.save(command)
    except (StoreError, OSError) as exc:
        say(f"lexeval: error: the scores were not saved: {exc}", red=True)
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    for run_id, metric, count in saved:
        say(f"lexeval: saved run {run_id} ({metric}, {count} calls) to {saver.store}")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker (so ``--strict-markers`` accepts it); with
    ``--lexeval-full-signature``, set ``LEXEVAL_FULL_SIGNATURE=1`` for this run (what
    :func:`lexeval.testing.failure_message` reads, in xdist workers too)."""
    if config.getoption("lexeval_full_signature", default=False):
        os.environ["LEXEVAL_FULL_SIGNATURE"] = "1"
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path, reference_field=None, output_field=None, id_field=None): run the test "
        "once per record of a JSONL/JSON/CSV/TSV file, given as the lexeval_case argument",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``lexeval_case`` with the records of the file the marker names."""
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None:
        return
    if "lexeval_case" not in metafunc.fixturenames:
        raise pytest.UsageError(
            f"{metafunc.definition.nodeid}: @pytest.mark.{MARKER} needs the lexeval_case argument"
        )
    if len(marker.args) != 1:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: {MARKER} takes one file path")
    from lexeval.testing import case_id, load_cases

    path = Path(marker.args[0])
    if not path.is_absolute():
        path = Path(metafunc.definition.path).parent / path
    try:
        records = load_cases(path, **marker.kwargs)
    except (ValueError, TypeError) as exc:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: {exc}") from None
    metafunc.parametrize("lexeval_case", records, ids=[case_id(r) for r in records])


@pytest.fixture
def lexeval_case(request: pytest.FixtureRequest) -> Any:
    """One record (``reference``, ``output``, ``id``, ``line``) of a ``lexeval_cases`` file."""
    param = getattr(request, "param", None)
    if param is None:
        raise pytest.UsageError("lexeval_case needs @pytest.mark.lexeval_cases(FILE) on the test")
    return param
