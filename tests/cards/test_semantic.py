"""The card matcher's semantic tier (optional extra ``semantic``; the dev dependencies have it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lexeval.cards import ExpectedCard, GeneratedCard, evaluate, load_dataset, load_outputs
from lexeval.cards.matching import match_cards
from lexeval.cards.semantic import SemanticTier
from lexeval.metrics.semantic import get_encoder

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "flashcards"

# keyword score 0.5 (front found, back not): inside the band [0.2, 0.6)
EXPECTED = [ExpectedCard(["automobile"], ["vehicle", "engine"])]
GENERATED = [GeneratedCard("automobile", "a car with a motor")]


def _weighted_cosine() -> float:
    v = get_encoder().encode(["automobile", "vehicle, engine", "a car with a motor"])
    return 0.5 * max(0.0, float(v[0] @ v[0])) + 0.5 * max(0.0, float(v[1] @ v[2]))


def test_in_band_pair_is_decided_by_its_weighted_cosine() -> None:
    cosine = _weighted_cosine()
    lexical = match_cards(EXPECTED, GENERATED, threshold=0.6)
    assert lexical.n_matched == 0 and lexical.best_scores == (0.5,)
    accepted = match_cards(
        EXPECTED, GENERATED, threshold=0.6, semantic=SemanticTier(0.2, 0.6, cosine - 1e-6)
    )
    assert accepted.n_matched == 1
    pair = accepted.pairs[0]
    assert pair.score == 0.6 and pair.semantic_similarity == pytest.approx(cosine)
    assert (pair.front_similarity, pair.back_similarity) == (1.0, 0.0)  # keyword evidence kept
    rejected = match_cards(
        EXPECTED, GENERATED, threshold=0.3, semantic=SemanticTier(0.2, 0.6, cosine + 1e-6)
    )
    assert rejected.n_matched == 0  # keywords alone would have matched it at 0.3
    assert match_cards(EXPECTED, GENERATED, threshold=0.3).n_matched == 1


def test_pairs_outside_the_band_are_never_encoded() -> None:
    result = match_cards(
        EXPECTED, GENERATED, threshold=0.3, semantic=SemanticTier(0.6, 0.9, cutoff=1.0)
    )
    assert result.n_matched == 1 and result.pairs[0].semantic_similarity is None
    assert result.pairs[0].score == 0.5


def test_card_type_counts_in_the_weighted_cosine() -> None:
    exp = [ExpectedCard(["automobile"], ["vehicle", "engine"], card_type="qa")]
    gen = [GeneratedCard("automobile", "a car with a motor", "QA")]
    v = get_encoder().encode(["automobile", "vehicle, engine", "a car with a motor"])
    expected = 0.4 * 1.0 + 0.4 * max(0.0, float(v[1] @ v[2])) + 0.2
    tier = SemanticTier(0.0, 1.0, cutoff=0.0)
    pair = match_cards(exp, gen, semantic=tier).pairs[0]
    assert pair.semantic_similarity == pytest.approx(expected, abs=1e-6)


def test_tier_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="band"):
        SemanticTier(0.7, 0.2)
    with pytest.raises(ValueError, match="cutoff"):
        SemanticTier(cutoff=2.0)
    with pytest.raises(TypeError):
        SemanticTier(low="0.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown model"):
        SemanticTier(model="nope")


def test_evaluate_reports_the_tier_in_signature_and_json(tmp_path: Path) -> None:
    dataset = load_dataset(DATA / "dataset.yaml")
    outputs = load_outputs(DATA / "outputs" / "prompt_v1.yaml")
    tier = SemanticTier(0.0, 1.0, cutoff=0.5)
    run = evaluate(dataset, outputs, semantic=tier)
    assert f"|{tier.signature}#{get_encoder().digest}" in run.settings.signature
    plain = evaluate(dataset, outputs)
    assert "semantic" not in plain.settings.signature
    data = json.loads(run.to_json([]))
    pairs = [p for case in data["cases"] for p in case["pairs"]]
    decided = [p for p in pairs if "semantic" in p]
    assert decided and all(isinstance(p["semantic"], float) for p in decided)
    assert all(p["score"] == 1.0 for p in pairs if "semantic" not in p)  # outside [0, 1)
    assert not any(
        "semantic" in p for c in json.loads(plain.to_json([]))["cases"] for p in c["pairs"]
    )
    assert np.isfinite([p["semantic"] for p in decided]).all()


def test_cli_semantic_flag() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}
    args = [str(DATA / "dataset.yaml"), str(DATA / "outputs" / "prompt_v2.jsonl")]
    proc = subprocess.run(
        [sys.executable, "-m", "lexeval", "cards", *args, "--semantic", "--json", "-"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert f"|{SemanticTier().signature}#" in report["signature"]


def test_cli_semantic_without_the_extra_exits_2_with_one_line() -> None:
    """Without the extra (its package hidden from the import system), ``--semantic`` is a usage
    error naming the install command, not a traceback."""
    args = [str(DATA / "dataset.yaml"), str(DATA / "outputs" / "prompt_v2.jsonl"), "--semantic"]
    code = f"""
import importlib.util, sys
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "wordllama" else real(name, *a)
from lexeval.cli import main
sys.exit(main(["cards", *{args!r}]))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "pip install 'lexeval[semantic]'" in lines[0]
