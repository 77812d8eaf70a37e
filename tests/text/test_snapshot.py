"""The tokenizer snapshots (lexeval.text.snapshot): each stored one equals what the installed
spaCy gives, a language read from one tokenizes and normalizes as spaCy's own objects do, and
a new process reaches its first default keyword result without importing spaCy or wordfreq."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from typing import Any

import pytest

from lexeval.metrics import wordlists
from lexeval.normalize import Normalizer
from lexeval.text import resources as text_resources
from lexeval.text.snapshot import read_snapshot, snapshot_name

STORED = sorted(
    path.name.removeprefix("spacy_rules_").removesuffix(".json.gz")
    for path in resources.files("lexeval.data").iterdir()
    if path.name.startswith("spacy_rules_")
)


def test_snapshots_are_stored_for_english_and_others() -> None:
    assert "en" in STORED and len(STORED) >= 10, STORED


@pytest.mark.parametrize("language", STORED)
def test_each_snapshot_equals_what_the_installed_spacy_gives(language: str) -> None:
    stored = read_snapshot(language)
    assert stored is not None, f"{snapshot_name(language)} is from another spaCy: make snapshots"
    taken = text_resources.take_snapshot(language)
    assert taken is not None
    assert json.dumps(stored.to_dict(), sort_keys=True) == json.dumps(
        taken.to_dict(), sort_keys=True
    )


TEXTS = [
    "Don't you think we can't go? I'm sure they'd've said \"no\" (or wouldn't).",
    "The U.S. and U.K. signed it on Jan. 5th, 2020 -- at 3:30 p.m. e.g. in N.Y.C.",
    "C++ and C# devs use Node.js; TCP/IP isn't dead. See https://example.com/a?b=1 now!",
    "Les États-Unis n'ont pas signé l'accord aujourd'hui, dit-il : « non ».",
    "Das ist z.B. ein Test, d.h. ein kurzer; 3,5 km weit.",
    "¿Qué? ¡No lo sé! Está en la c/ Mayor, nº 5.",
    "gonna wanna gotta :) :-( <3 ... — ‘quoted’ “double” 10km 5$ $5 50%",
]


def _keywords(language: str, texts: list[str]) -> list[Any]:
    norm = Normalizer(language=language)
    return [norm.keywords(text) for text in texts]


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
def test_a_language_from_its_snapshot_normalizes_as_from_spacy(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert language in STORED
    text_resources.unload_language(language)
    try:
        snapshot_side = _keywords(language, TEXTS)
        assert text_resources.load_language(language).spacy_tokens is not None
        text_resources.unload_language(language)
        monkeypatch.setattr(text_resources, "read_snapshot", lambda language: None)
        spacy_side = _keywords(language, TEXTS)
        assert text_resources.load_language(language).spacy_tokens is None
    finally:
        text_resources.unload_language(language)
    assert snapshot_side == spacy_side


def test_spacy_loads_when_a_chunk_needs_it() -> None:
    text_resources.unload_language("en")
    try:
        res = text_resources.load_language("en")
        assert res._nlp is None  # read from the snapshot: no spaCy object yet
        assert Normalizer().keywords("(Don't) stop") == ["not", "stop"]
        assert res._nlp is not None  # "(Don't)" is no special case the snapshot answers
    finally:
        text_resources.unload_language("en")


@pytest.mark.parametrize("language", ["en", "de", "fr", "ca"])
def test_lemma_tables_are_read_as_spacy_reads_them(language: str) -> None:
    from spacy.util import load_language_data, registry

    table, version = text_resources.load_lemma_table(language)
    expected = dict(load_language_data(registry.lookups.get(language)["lemma_lookup"]))
    assert table == expected and version is not None


@pytest.mark.parametrize("language", ["en", "de", "ja", "zh"])
def test_frequency_lists_are_read_as_wordfreq_reads_them(language: str) -> None:
    import wordfreq

    assert wordlists.wordlist_languages() == frozenset(wordfreq.available_languages("best"))
    assert wordlists.frequency_dict(language) == wordfreq.get_frequency_dict(language, "best")


def test_a_new_process_scores_without_spacy_or_wordfreq() -> None:
    code = (
        "import sys\n"
        "from lexeval.metrics import KeywordCoverageMetric as M\n"
        "r = M().measure('Paris is the capital of France.', 'The capital is Paris, I think.')\n"
        "print(r.score, 'spacy' in sys.modules, 'wordfreq' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[1:] == ["False", "False"], out
    assert 0.0 < float(out[0]) < 1.0
