"""``lexeval score --language CODE`` and ``--language-field NAME``, ``lexeval cards
--language``: the same scores and signatures as the Python metrics built on
``Normalizer(preset, language=CODE)``; unknown codes and metrics without a language: exit 2,
one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lexeval.metrics import BaseMetric, KeywordCoverageMetric, RougeMetric, TokenF1Metric
from lexeval.normalize import Normalizer
from lexeval.registry import REPORT_EVIDENCE_LIMIT

ROOT = Path(__file__).resolve().parents[2]
CARDS = ROOT / "examples" / "flashcards"

#: (question, reference, output) per language; ru is Cyrillic, zh without spaces.
PAIRS: dict[str, list[tuple[str, str, str]]] = {
    "de": [
        (
            "Wo schlafen die Katzen?",
            "Die Katzen schliefen im Garten",
            "Eine Katze schläft im Garten",
        ),
        ("Was tat der Hund?", "Der Hund bellte laut", "Die Hunde bellen"),
    ],
    "fr": [
        (
            "Où dormaient les chats ?",
            "Les chats dormaient dans le jardin",
            "Un chat dort au jardin",
        ),
        ("Que fait le chien ?", "Le chien aboyait fort", "Les chiens aboient"),
    ],
    "es": [
        (
            "¿Dónde dormían los gatos?",
            "Los gatos dormían en el jardín",
            "Un gato duerme en jardines",
        ),
        ("¿Qué hizo el perro?", "El perro ladraba fuerte", "Los perros ladran"),
    ],
    "ru": [
        ("Где спали кошки?", "Кошки спали в саду", "Кошка спит в саду"),
        ("Что делала собака?", "Собака громко лаяла", "Собаки лают"),
    ],
    "zh": [("猫在哪里睡觉？", "猫在花园里睡觉", "猫睡在花园")],
}


def lexeval(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "lexeval", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def assert_usage_error(proc: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lexeval: error: "), proc.stderr
    assert fragment in lines[0], lines[0]


def python_metrics(language: str) -> dict[str, BaseMetric]:
    """The metrics the CLI must reproduce, built in Python on a Normalizer of the language
    (ROUGE and token-F1 with the CLI's evidence lists, which change no score)."""
    return {
        "keyword_coverage": KeywordCoverageMetric(normalizer=Normalizer(language=language)),
        "token_f1": TokenF1Metric(
            normalizer=Normalizer("tokens", language=language),
            evidence_limit=REPORT_EVIDENCE_LIMIT,
        ),
        "rougeL": RougeMetric(
            "rougeL",
            normalizer=Normalizer("rouge", language=language),
            evidence_limit=REPORT_EVIDENCE_LIMIT,
        ),
    }


def write_pairs(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return str(path)


def expected(language: str, question: str, reference: str, output: str) -> dict[str, Any]:
    found = {}
    for name, metric in python_metrics(language).items():
        if name == "keyword_coverage":
            result = metric.measure(reference, output, question=question)  # type: ignore[call-arg]
        else:
            result = metric.measure(reference, output)
        found[name] = result.to_dict()
    return found


METRICS = "keyword_coverage,token_f1,rougeL"


@pytest.mark.parametrize("language", ["de", "fr", "es", "ru"])
def test_language_equals_the_python_normalizer(tmp_path: Path, language: str) -> None:
    rows = [
        {"id": i, "question": q, "reference": r, "output": o}
        for i, (q, r, o) in enumerate(PAIRS[language])
    ]
    proc = lexeval(
        "score",
        write_pairs(tmp_path / "p.jsonl", rows),
        "--metric",
        METRICS,
        "--language",
        language,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    for line, (q, r, o) in zip(lines, PAIRS[language], strict=True):
        want = expected(language, q, r, o)
        for name in METRICS.split(","):
            assert line[name] == want[name], (name, line[name]["score"], want[name]["score"])
            assert f"|lang:{language}|" in line[name]["signature"]
    english = lexeval("score", str(tmp_path / "p.jsonl"), "--metric", METRICS)
    assert english.stdout != proc.stdout  # the language changed something


def test_one_pair_and_the_json_document(tmp_path: Path) -> None:
    q, r, o = PAIRS["de"][0]
    pair = lexeval(
        "score",
        "--metric",
        "keyword_coverage",
        "--input",
        r,
        "--output",
        o,
        "--question",
        q,
        "--language",
        "de",
    )
    assert pair.returncode == 0, pair.stderr
    assert json.loads(pair.stdout) == expected("de", q, r, o)["keyword_coverage"]
    rows = [{"question": q, "reference": r, "output": o}]
    document = lexeval(
        "score",
        write_pairs(tmp_path / "p.jsonl", rows),
        "--metric",
        METRICS,
        "--language",
        "de",
        "--format",
        "json",
    )
    assert document.returncode == 0, document.stderr
    signatures = json.loads(document.stdout)["metrics"]
    assert signatures == {n: m.signature for n, m in python_metrics("de").items()}


def test_language_per_record(tmp_path: Path) -> None:
    rows = [
        {"question": q, "reference": r, "output": o, "lang": code}
        for code in ("de", "fr", "es", "ru", "zh")
        for q, r, o in PAIRS[code]
    ]
    rows.append(
        {"question": "Where?", "reference": "in the garden", "output": "the gardens", "lang": ""}
    )  # no code: --language (here es), not the record's neighbours
    path = write_pairs(tmp_path / "p.jsonl", rows)
    proc = lexeval(
        "score",
        path,
        "--metric",
        METRICS,
        "--language-field",
        "lang",
        "--language",
        "es",
        "--format",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    for row, record in zip(rows, document["results"], strict=True):
        language = row["lang"] or "es"
        want = expected(language, row["question"], row["reference"], row["output"])
        for name in METRICS.split(","):
            assert record[name]["score"] == want[name]["score"], (language, name)
            assert record[name]["signature"] == want[name]["signature"]
    run_signature = document["metrics"]["keyword_coverage"]
    assert sorted(p for p in run_signature.split("|") if p.startswith("lang:")) == [
        "lang:de",
        "lang:es",
        "lang:fr",
        "lang:ru",
        "lang:zh",
    ]


def test_errors_are_one_line(tmp_path: Path) -> None:
    _, r, o = PAIRS["de"][0]
    one = ("score", "--input", r, "--output", o)
    assert_usage_error(
        lexeval(*one, "--metric", "rouge1", "--language", "german"), "unknown language 'german'"
    )
    assert_usage_error(
        lexeval(*one, "--metric", "lexical_correctness", "--language", "de"),
        "lexical_correctness takes no language",
    )
    assert_usage_error(
        lexeval(*one, "--metric", "rouge1", "--option", "compat=rouge-score", "--language", "de"),
        "rouge1 takes no language",
    )
    assert_usage_error(
        lexeval(*one, "--metric", "rouge1", "--language-field", "lang"),
        "--language-field goes with FILE",
    )
    path = write_pairs(
        tmp_path / "p.jsonl",
        [
            {"reference": r, "output": o, "lang": "de"},
            {"reference": r, "output": o, "lang": "deutsch"},
        ],
    )
    assert_usage_error(
        lexeval("score", path, "--metric", "rouge1", "--language-field", "lang"),
        "p.jsonl:2: lang: unknown language 'deutsch'",
    )
    assert_usage_error(
        lexeval("score", path, "--metric", "rouge1", "--language-field", "lingo"),
        "no field 'lingo' for the language",
    )


def test_cards_in_a_language(tmp_path: Path) -> None:
    dataset, outputs = str(CARDS / "dataset.yaml"), str(CARDS / "outputs" / "prompt_v2.jsonl")
    report = tmp_path / "r.json"
    proc = lexeval("cards", dataset, outputs, "--language", "de", "--json", str(report))
    assert proc.returncode == 0, proc.stderr
    settings = json.loads(report.read_text("utf-8"))
    assert "|lang:de|" in json.dumps(settings)
    assert_usage_error(
        lexeval("cards", dataset, outputs, "--language", "xyz"), "unknown language 'xyz'"
    )
    assert_usage_error(
        lexeval("cards", dataset, outputs, "--language", "de", "--plain"), "not with --plain"
    )
    assert_usage_error(
        lexeval("cards", dataset, outputs, "--language", "de", "--preset", "squad"),
        "takes no --language",
    )
