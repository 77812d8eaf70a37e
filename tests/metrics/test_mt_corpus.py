"""Corpus figures of BLEU, chrF and TER in ``lexeval score``'s summary and ``lexeval compare``'s
paired bootstrap, against sacrebleu's corpus functions recomputed on the same resamples."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lexeval.cli import main
from lexeval.scored import compare_scored, load_scored

sacrebleu = pytest.importorskip("sacrebleu")

REFERENCES = [
    "The capital of France is Paris.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The cat sat on the mat all afternoon.",
    "Berlin is the capital and largest city of Germany.",
    "Photosynthesis turns light into chemical energy.",
    "The Nile is the longest river in Africa.",
    "Mount Everest is the highest mountain above sea level.",
    "The heart pumps blood through the body.",
]
OLD = [
    "Paris",
    "It boils at 90 degrees.",
    "a cat sat on a mat",
    "Germany's capital is Berlin.",
    "light",
    "Nile is long.",
    "Everest is high.",
    "The heart pumps.",
]
NEW = [
    "Paris is the capital of France.",
    "Water boils at 100 degrees Celsius.",
    "The cat sat on the mat all day.",
    "Berlin is the capital of Germany.",
    "Photosynthesis turns light into energy.",
    "The Nile is the longest river in Africa.",
    "Mount Everest is the highest mountain.",
    "The heart pumps blood.",
]


def _score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, outputs: list[str]
) -> tuple[Path, str]:
    records = tmp_path / f"{name}.jsonl"
    lines = [
        json.dumps({"id": f"r{i}", "reference": r, "output": o})
        for i, (r, o) in enumerate(zip(REFERENCES, outputs, strict=True))
    ]
    records.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["score", str(records), "--metric", "bleu,chrf,ter", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    target = tmp_path / f"{name}.json"
    target.write_text(out, encoding="utf-8")
    return target, err


def test_score_summary_shows_the_corpus_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, err = _score(tmp_path, capsys, "new", NEW)
    summary = json.loads(path.read_text(encoding="utf-8"))["summary"]
    bleu = sacrebleu.corpus_bleu(NEW, [REFERENCES]).score
    chrf = sacrebleu.corpus_chrf(NEW, [REFERENCES]).score
    ter = sacrebleu.corpus_ter(NEW, [REFERENCES]).score
    assert summary["bleu"]["corpus"]["info"]["bleu"] == bleu
    assert summary["bleu"]["corpus"]["score"] == bleu / 100
    assert summary["chrf"]["corpus"]["info"]["chrf"] == chrf
    assert summary["ter"]["corpus"]["info"]["ter"] == ter
    assert summary["ter"]["corpus"]["score"] == max(0.0, 1 - ter / 100)
    assert summary["bleu"]["corpus"]["info"]["n"] == len(NEW)
    # the mean of sentence scores is still there, and differs from the corpus figure
    assert summary["bleu"]["mean"] != pytest.approx(bleu / 100)
    assert f"bleu (corpus)      {len(NEW):>6} {bleu / 100:>7.4f}  BLEU {bleu:.4g}" in err
    assert "chrf (corpus)" in err and "ter (corpus)" in err


def test_token_f1_has_no_corpus_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "r.jsonl"
    records.write_text(json.dumps({"reference": "a b", "output": "a"}) + "\n", encoding="utf-8")
    assert main(["score", str(records), "--metric", "token_f1", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "corpus" not in json.loads(out)["summary"]["token_f1"]
    assert "(corpus)" not in err


def _sacrebleu_bootstrap(
    metric: str, old: list[str], new: list[str], seed: int, n_resamples: int
) -> np.ndarray:
    """The same resampled records as compare's bootstrap, each corpus figure recomputed by
    sacrebleu from the texts."""
    function = {"bleu": sacrebleu.corpus_bleu, "chrf": sacrebleu.corpus_chrf}[metric]
    n = len(REFERENCES)
    draws = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    deltas = []
    for row in draws:
        refs = [[REFERENCES[i] for i in row]]
        a = function([old[i] for i in row], refs).score
        b = function([new[i] for i in row], refs).score
        deltas.append(b / 100 - a / 100)
    return np.asarray(deltas)


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_compare_bootstraps_the_corpus_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], metric: str
) -> None:
    old, _ = _score(tmp_path, capsys, "old", OLD)
    new, _ = _score(tmp_path, capsys, "new", NEW)
    result = compare_scored(load_scored(old), load_scored(new), n_resamples=1000, seed=11)
    m = next(x for x in result.metrics if x.name == metric)
    function = {"bleu": sacrebleu.corpus_bleu, "chrf": sacrebleu.corpus_chrf}[metric]
    assert m.level == "corpus"
    assert m.base == function(OLD, [REFERENCES]).score / 100
    assert m.candidate == function(NEW, [REFERENCES]).score / 100
    deltas = _sacrebleu_bootstrap(metric, OLD, NEW, seed=11, n_resamples=1000)
    low, high = np.quantile(deltas, [0.025, 0.975])
    assert m.ci_low == pytest.approx(low, abs=1e-12)
    assert m.ci_high == pytest.approx(high, abs=1e-12)
    assert m.ci_low is not None and m.ci_low > 0  # every resample improves: a clear gain
    assert m.p_value is not None and m.p_value < 0.05
    assert result.to_dict()["metrics"][0]["level"] == "corpus"
    assert any(row[0] == f"{metric} (corpus)" for row in result.table_rows())


def test_compare_ter_corpus_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, _ = _score(tmp_path, capsys, "old", OLD)
    new, _ = _score(tmp_path, capsys, "new", NEW)
    result = compare_scored(load_scored(new), load_scored(old), n_resamples=500, seed=3)
    ter = next(x for x in result.metrics if x.name == "ter")
    assert ter.level == "corpus"
    assert ter.candidate == max(0.0, 1 - sacrebleu.corpus_ter(OLD, [REFERENCES]).score / 100)
    assert ter.dropped and not result.passed  # old vs new: a regression
    code = main(["compare", str(new), str(old), "--markdown", "-", "--resamples", "500"])
    out, _ = capsys.readouterr()
    assert code == 1
    for name in ("bleu", "chrf", "ter"):
        assert f"| {name} (corpus) |" in out


def test_documents_without_statistics_compare_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, _ = _score(tmp_path, capsys, "old", OLD)
    new, _ = _score(tmp_path, capsys, "new", NEW)
    for path in (old, new):
        document = json.loads(path.read_text(encoding="utf-8"))
        for entry in document["results"]:
            del entry["bleu"]["info"]["stats"]
        path.write_text(json.dumps(document), encoding="utf-8")
    result = compare_scored(load_scored(old), load_scored(new), n_resamples=500)
    bleu = next(x for x in result.metrics if x.name == "bleu")
    assert bleu.level == "mean"
    document = json.loads(new.read_text(encoding="utf-8"))
    mean = sum(entry["bleu"]["score"] for entry in document["results"]) / len(NEW)
    assert bleu.candidate == pytest.approx(mean)


def test_wer_and_cer_corpus_figures_in_score_and_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """WER and CER are corpus-level too: the summary's figure is jiwer's rate of the lists,
    and compare bootstraps it from the records' counts."""
    jiwer = pytest.importorskip("jiwer")
    paths = {}
    for name, outputs in (("old", OLD), ("new", NEW)):
        records = tmp_path / f"{name}-wer.jsonl"
        lines = [
            json.dumps({"id": f"r{i}", "reference": r, "output": o})
            for i, (r, o) in enumerate(zip(REFERENCES, outputs, strict=True))
        ]
        records.write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = ["score", str(records), "--metric", "wer,cer", "--option", "compat=jiwer"]
        assert main([*argv, "--format", "json"]) == 0
        out, err = capsys.readouterr()
        assert "wer (corpus)" in err and "cer (corpus)" in err
        paths[name] = tmp_path / f"{name}-wer.json"
        paths[name].write_text(out, encoding="utf-8")
    summary = json.loads(paths["new"].read_text(encoding="utf-8"))["summary"]
    assert summary["wer"]["corpus"]["info"]["wer"] == jiwer.wer(REFERENCES, NEW)
    assert summary["cer"]["corpus"]["info"]["cer"] == jiwer.cer(REFERENCES, NEW)
    result = compare_scored(load_scored(paths["old"]), load_scored(paths["new"]), seed=5)
    wer = next(x for x in result.metrics if x.name == "wer")
    assert wer.level == "corpus"
    assert wer.base == max(0.0, 1 - jiwer.wer(REFERENCES, OLD))
    assert wer.candidate == max(0.0, 1 - jiwer.wer(REFERENCES, NEW))
