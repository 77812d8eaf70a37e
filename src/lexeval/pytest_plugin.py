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

Importing this module loads neither spaCy nor the metrics.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

__all__ = ["lexeval_case", "pytest_addoption", "pytest_configure", "pytest_generate_tests"]

MARKER = "lexeval_cases"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--lexeval-full-signature``: assertion messages show the full signature instead of the
    short settings line."""
    parser.getgroup("lexeval").addoption(
        "--lexeval-full-signature",
        action="store_true",
        help="lexeval's assertion messages show the full signature, not the short settings",
    )


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
