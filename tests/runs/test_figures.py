"""The headline figure of a stored run (:meth:`lexeval.runs.StoredRun.figures`): the corpus
figure of BLEU, chrF, TER, WER and CER where the document stored one, else the mean; shown by
``runs list``, ``runs show`` and the history page, for ``score --save`` and the pytest
plugin's runs alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lexeval.cli import main
from lexeval.htmlreport.history import render_history
from lexeval.runs import RunStore

# sentences of different lengths: a corpus figure is not the mean of the sentence scores
RECORDS = [
    {"id": "a", "reference": "the cat sat on the mat", "output": "the cat sat on a mat"},
    {"id": "b", "reference": "Paris is the capital of France", "output": "Paris is the capital"},
    {
        "id": "c",
        "reference": "water boils at one hundred degrees Celsius at sea level",
        "output": "water boils at one hundred degrees at sea level",
    },
    {"id": "d", "reference": "the quick brown fox", "output": "a slow brown fox"},
]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEXEVAL_STORE", raising=False)
    (tmp_path / "pairs.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8"
    )
    return tmp_path


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _saved(capsys: pytest.CaptureFixture[str], *metrics: str, store: str) -> dict[str, Any]:
    """Score the pairs with ``metrics``, save the run; its stored document."""
    args = [a for m in metrics for a in ("--metric", m)]
    code, _, err = _cli(capsys, "score", "pairs.jsonl", *args, "--save", "--store", store)
    assert code == 0, err
    with RunStore.open(store) as opened:
        document: dict[str, Any] = opened.load("latest").data()
    return document


def test_runs_list_and_show_give_the_corpus_figure(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _saved(capsys, "bleu", "wer", "rouge1", store="all.sqlite")
    summary = document["summary"]
    corpus = {m: summary[m]["corpus"]["score"] for m in ("bleu", "wer")}
    for metric, value in corpus.items():  # else the test could not tell the two apart
        assert abs(value - summary[metric]["mean"]) > 1e-3, metric
    assert "corpus" not in summary["rouge1"]

    code, out, _ = _cli(capsys, "runs", "list", "--format", "json", "--store", "all.sqlite")
    listed = json.loads(out)[0]
    assert code == 0 and listed["corpus"] == pytest.approx(corpus)
    assert listed["means"] == pytest.approx({m: summary[m]["mean"] for m in summary})

    code, out, _ = _cli(capsys, "runs", "show", "latest", "--store", "all.sqlite")
    lines = {k.strip(): v for k, v in (line.rsplit(None, 1) for line in out.splitlines())}
    assert lines["corpus bleu"] == f"{corpus['bleu']:.4f}"
    assert lines["corpus wer"] == f"{corpus['wer']:.4f}"
    assert lines["mean bleu"] == f"{summary['bleu']['mean']:.4f}"  # the mean, still shown
    assert "corpus rouge1" not in lines
    assert lines["mean rouge1"] == f"{summary['rouge1']['mean']:.4f}"

    # runs diff compares the same figures (as lexeval compare)
    code, out, err = _cli(capsys, "runs", "diff", "1", "latest", "--store", "all.sqlite")
    assert code == 0 and "bleu (corpus)" in out + err and "wer (corpus)" in out + err

    # the table (one metric, so that its cell does not wrap): the corpus figure, labelled
    bleu = _saved(capsys, "bleu", store="bleu.sqlite")["summary"]["bleu"]
    code, out, _ = _cli(capsys, "runs", "list", "--store", "bleu.sqlite")
    assert code == 0
    assert f"bleu (corpus) {bleu['corpus']['score']:.4f} (mean {bleu['mean']:.4f})" in out


def test_a_document_without_corpus_figures_lists_its_means(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _saved(capsys, "bleu", store="runs.sqlite")
    del document["summary"]["bleu"]["corpus"]  # as lexeval wrote it before corpus figures
    with RunStore.open("runs.sqlite") as store:
        store.save("score", document, label="older", detect_git=False)
        newer, older = store.load(1), store.load(2)
    mean = document["summary"]["bleu"]["mean"]
    assert older.corpus == {} and older.figures()["bleu"] == ("mean", pytest.approx(mean))
    assert newer.figures()["bleu"].kind == "corpus"
    code, out, _ = _cli(capsys, "runs", "list", "--store", "runs.sqlite")
    assert code == 0 and f"bleu {mean:.4f}" in out
    # the history page draws corpus figures and means as separate lines, each labelled
    with RunStore.open("runs.sqlite") as store:
        page = render_history(store.list())
    corpus = newer.corpus["bleu"]
    assert corpus is not None
    assert "score: bleu (corpus) (corpus, 1 runs)" in page
    assert "score: bleu (mean, 1 runs)" in page
    section = page.split('id="run-1"')[1].split("</section>")[0]
    assert f'<td>corpus</td><td class="num">{corpus:.4f}</td>' in section
    assert f'<td>mean</td><td class="num">{newer.means["bleu"]:.4f}</td>' in section


SAMPLE = """
    from lexeval.testing import assert_lexical

    def test_translations():
        assert_lexical("the cat sat on the mat", "the cat sat on a mat", metric="wer",
                       threshold=0.1)
        assert_lexical("water boils at one hundred degrees Celsius at sea level",
                       "water boils at one hundred degrees at sea level", metric="wer",
                       threshold=0.1)
        assert_lexical("the quick brown fox", "a slow brown fox", metric="wer", threshold=0.1)
"""


def test_the_pytest_plugin_saves_the_corpus_figure(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "LEXEVAL_STORE")}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist"]
    proc = subprocess.run(
        [*command, "test_sample.py", "--lexeval-save"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from lexeval import get_metric

    wer = get_metric("wer")
    pairs = [r for r in RECORDS if r["id"] in ("a", "c", "d")]
    expected = wer.corpus_score([r["reference"] for r in pairs], [r["output"] for r in pairs])
    with RunStore.open(tmp_path / ".lexeval" / "runs.sqlite") as store:
        run = store.load(1)
    summary = run.data()["summary"]["wer"]
    assert summary["corpus"]["score"] == pytest.approx(expected.score)
    assert abs(expected.score - summary["mean"]) > 1e-3
    assert run.figures()["wer"] == ("corpus", pytest.approx(expected.score))
