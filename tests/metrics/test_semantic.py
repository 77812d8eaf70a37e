"""The semantic tier (optional extra ``semantic``; the dev dependencies install it)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lexeval
from lexeval.metrics import KeywordCoverageMetric, MetricResult, TokenF1Metric
from lexeval.metrics.semantic import (
    DEFAULT_MODEL,
    BlendModel,
    SemanticSimilarityMetric,
    StaticEncoder,
    get_encoder,
    load_blend,
)

SRC = str(Path(__file__).resolve().parents[2] / "src")

PAIRS: list[tuple[str | list[str], str]] = [
    ("Paris", "The capital of France is Paris."),
    (["Tigris", "Tigris River"], "The Tigris."),
    (["Tigris", "Tigris River"], "The Euphrates River."),
    ("a car", "an automobile"),
    ("photosynthesis turns light into chemical energy", "plants make sugar from sunlight"),
    ("1945", "World War II ended in 1945"),
    ("", "something"),
    ("something", ""),
    ("Barack Obama", "barack obama"),
    ("Die Hauptstadt ist Berlin", "Berlin"),
] * 3


def _scores(results: list[MetricResult]) -> list[tuple[float, dict[str, Any]]]:
    return [(r.score, r.info) for r in results]


def _run(code: str, env: dict[str, str] | None = None) -> str:
    full_env = {**os.environ, "PYTHONPATH": SRC, **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_identical_text_scores_one_and_info_names_the_best_reference() -> None:
    m = SemanticSimilarityMetric()
    r = m.measure(["completely unrelated words", "gradient descent"], "gradient descent")
    assert r.score == pytest.approx(1.0, abs=1e-5)
    assert r.info["reference"] == "gradient descent"
    assert r.info["reference_index"] == 1
    assert r.info["model"] == DEFAULT_MODEL
    assert r.passed is None and m.threshold is None and m.recommended_threshold is None


def test_related_scores_above_unrelated() -> None:
    m = SemanticSimilarityMetric()
    related = m.measure("a car", "an automobile").score
    unrelated = m.measure("a car", "the recipe needs two eggs").score
    assert 0.0 <= unrelated < related <= 1.0


def test_score_is_cosine_clipped_at_zero() -> None:
    m = SemanticSimilarityMetric()
    for ref, out in PAIRS:
        r = m.measure(ref, out)
        assert r.score == max(0.0, r.info["cosine"])
        assert -1.0 <= r.info["cosine"] <= 1.0


def test_text_without_tokens_scores_zero() -> None:
    r = SemanticSimilarityMetric().measure("Paris", "")
    assert (r.score, r.info["cosine"]) == (0.0, 0.0)


def test_signature_carries_the_hash_of_the_packaged_files() -> None:
    enc = get_encoder()
    h = hashlib.sha256()
    for path in (enc.weights_path, enc.tokenizer_path):
        h.update(Path(path).read_bytes())
    sig = SemanticSimilarityMetric().signature
    assert sig == f"semantic_similarity|model:{DEFAULT_MODEL}#{h.hexdigest()[:12]}"
    assert SemanticSimilarityMetric().measure("a", "b").signature == sig
    assert "scale:10" in SemanticSimilarityMetric(scale=10).signature


def test_measure_many_equals_measure() -> None:
    m = SemanticSimilarityMetric()
    refs, outs = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    assert _scores(m.measure_many(refs, outs)) == _scores([m.measure(r, o) for r, o in PAIRS])
    assert m.measure_many([], []) == []


class CountingEncoder:
    """The default encoder, recording every text it is asked to encode."""

    name = DEFAULT_MODEL

    def __init__(self) -> None:
        self.seen: list[str] = []

    @property
    def digest(self) -> str:
        return get_encoder().digest

    def encode(self, texts: Any) -> Any:
        self.seen.extend(texts)
        return get_encoder().encode(texts)


def test_measure_many_encodes_each_distinct_text_once() -> None:
    enc = CountingEncoder()
    m = SemanticSimilarityMetric(model=enc)
    refs, outs = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    m.measure_many(refs, outs)
    distinct = {t for r in refs for t in ([r] if isinstance(r, str) else r)} | set(outs)
    assert sorted(enc.seen) == sorted(distinct)


def test_threshold_and_scale() -> None:
    m = SemanticSimilarityMetric(threshold=0.9)
    assert m.measure("gradient descent", "gradient descent").passed is True
    assert m.measure("gradient descent", "banana bread").passed is False
    scaled = SemanticSimilarityMetric(scale=10).measure("a car", "an automobile").score
    assert scaled == pytest.approx(
        10 * SemanticSimilarityMetric().measure("a car", "an automobile").score
    )


def test_bad_arguments() -> None:
    m = SemanticSimilarityMetric()
    with pytest.raises(TypeError):
        m.measure("a", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        m.measure([], "a")
    with pytest.raises(ValueError, match="2 inputs but 1 outputs"):
        m.measure_many(["a", "b"], ["a"])
    with pytest.raises(TypeError):
        m.measure_many("ab", "ab")
    with pytest.raises(ValueError, match="unknown model"):
        SemanticSimilarityMetric(model="no-such-model")
    with pytest.raises(TypeError):
        SemanticSimilarityMetric(model=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs lexical"):
        SemanticSimilarityMetric(blend=load_blend())


# ---- the blend --------------------------------------------------------------------------------


def test_blend_is_the_shipped_logistic_model_of_both_scores() -> None:
    keyword = KeywordCoverageMetric()
    blend = SemanticSimilarityMetric(lexical=KeywordCoverageMetric())
    alone = SemanticSimilarityMetric()
    model = load_blend()
    assert model.trained_on.startswith("EVOUNA NQ") and model.lexical > 0 and model.semantic > 0
    for ref, out in PAIRS[:10]:
        r = blend.measure(ref, out)
        lexical = keyword.measure(ref, out).score
        semantic = alone.measure(ref, out).score
        assert r.info["lexical"] == lexical and r.info["semantic"] == semantic
        assert r.score == pytest.approx(model.probability(lexical, semantic))
    assert blend.recommended_threshold == model.threshold
    assert blend.threshold is None


def test_blend_signature_names_blend_digest_and_lexical_metric() -> None:
    keyword = KeywordCoverageMetric()
    sig = SemanticSimilarityMetric(lexical=keyword).signature
    assert f"|blend:{load_blend().digest}|" in sig
    assert sig.endswith(f"|lexical:{keyword.signature}")
    data = json.loads(json.dumps(load_blend().to_dict()))
    data["semantic"] += 1.0
    other = SemanticSimilarityMetric(lexical=keyword, blend=BlendModel.from_dict(data))
    assert other.signature != sig


def test_blend_ranks_the_right_answer_first() -> None:
    blend = SemanticSimilarityMetric(lexical=KeywordCoverageMetric())
    right = blend.measure(["Tigris", "Tigris River"], "The Tigris.")
    wrong = blend.measure(["Tigris", "Tigris River"], "The Euphrates River.")
    assert right.score > blend.recommended_threshold > wrong.score  # type: ignore[operator]


def test_shipped_blend_refuses_another_lexical_metric_without_weights() -> None:
    with pytest.raises(ValueError, match="pass blend="):
        SemanticSimilarityMetric(lexical=TokenF1Metric())
    own = BlendModel(-1.0, 3.0, 1.0, 0.5, "test", "token_f1", DEFAULT_MODEL)
    r = SemanticSimilarityMetric(lexical=TokenF1Metric(), blend=own).measure("a b", "a b")
    assert r.score == pytest.approx(own.probability(1.0, 1.0), abs=1e-6)


def test_blend_measure_many_equals_measure() -> None:
    m = SemanticSimilarityMetric(lexical=KeywordCoverageMetric())
    refs, outs = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    assert _scores(m.measure_many(refs, outs)) == _scores([m.measure(r, o) for r, o in PAIRS])


# ---- concurrency --------------------------------------------------------------------------------


@pytest.mark.parametrize("blended", [False, True])
def test_same_results_on_eight_threads(blended: bool) -> None:
    m = SemanticSimilarityMetric(lexical=KeywordCoverageMetric() if blended else None)
    expected = [m.measure(r, o) for r, o in PAIRS]
    with ThreadPoolExecutor(8) as pool:
        singles = list(pool.map(lambda p: m.measure(*p), PAIRS * 4))
        batches = list(
            pool.map(
                lambda _: m.measure_many([p[0] for p in PAIRS], [p[1] for p in PAIRS]), range(8)
            )
        )
    assert _scores(singles) == _scores(expected * 4)
    for batch in batches:
        assert _scores(batch) == _scores(expected)


def _measure_pickled(payload: bytes) -> list[tuple[float, dict[str, Any], str | None]]:
    metric = pickle.loads(payload)
    results = metric.measure_many([p[0] for p in PAIRS], [p[1] for p in PAIRS])
    return [(r.score, r.info, r.signature) for r in results]


def test_pickled_metric_gives_the_same_results_in_other_processes() -> None:
    m = SemanticSimilarityMetric(lexical=KeywordCoverageMetric())
    expected = [
        (r.score, r.info, r.signature)
        for r in m.measure_many([p[0] for p in PAIRS], [p[1] for p in PAIRS])
    ]
    payload = pickle.dumps(m)
    assert len(payload) < 20_000  # the table is not pickled: each process loads its own
    assert len(pickle.dumps(SemanticSimilarityMetric())) < 2_000
    with ProcessPoolExecutor(2) as pool:
        outcomes = list(pool.map(_measure_pickled, [payload] * 2))
    for outcome in outcomes:
        assert outcome == expected


def test_encoder_pickles_as_its_name() -> None:
    enc = get_encoder()
    assert pickle.loads(pickle.dumps(enc)) is enc
    assert isinstance(enc, StaticEncoder)


# ---- the host process and the network ---------------------------------------------------------


def test_import_lexeval_does_not_import_the_embedding_packages() -> None:
    out = _run(
        """
        import sys, lexeval
        heavy = ("wordllama", "tokenizers", "safetensors")
        print(sorted(m for m in sys.modules if m.split(".")[0] in heavy))
        assert "SemanticSimilarityMetric" in dir(lexeval)
        """
    )
    assert out.strip() == "[]"


def test_offline_no_download_no_wordllama_import_no_logging_change(tmp_path: Path) -> None:
    """With sockets refused, an empty home and the hub offline, the metric still scores, never
    imports wordllama (its import configures the root logger) and writes no cache file."""
    home = tmp_path / "home"
    home.mkdir()
    out = _run(
        """
        import logging, socket, sys
        def refuse(*args, **kwargs):
            raise OSError("network is off in this test")
        socket.socket.connect = refuse
        socket.create_connection = refuse
        handlers = list(logging.getLogger().handlers)
        from lexeval import SemanticSimilarityMetric
        r = SemanticSimilarityMetric().measure("a car", "an automobile")
        assert 0.0 < r.score <= 1.0
        assert "wordllama" not in sys.modules
        assert logging.getLogger().handlers == handlers
        print("ok")
        """,
        env={"HOME": str(home), "HF_HUB_OFFLINE": "1", "XDG_CACHE_HOME": str(home / ".cache")},
    )
    assert out.strip() == "ok"
    assert list(home.iterdir()) == []


def test_vectors_match_wordllamas_own_embeddings() -> None:
    """Parity with ``WordLlama.load().embed(norm=True)`` on the same packaged files (run in a
    child process: importing wordllama configures the root logger)."""
    texts = [p[1] for p in PAIRS[:10] if p[1]]
    out = _run(
        f"""
        import json
        from pathlib import Path
        from tokenizers import Tokenizer
        from safetensors.numpy import load_file
        from wordllama import WordLlamaInference
        from lexeval.metrics.semantic import get_encoder
        enc = get_encoder()
        table = load_file(str(enc.weights_path))["embedding.weight"]
        model = WordLlamaInference(table, Tokenizer.from_file(str(enc.tokenizer_path)))
        print(json.dumps(model.embed({texts!r}, norm=True).tolist()))
        """
    )
    theirs = np.asarray(json.loads(out), dtype=np.float32)
    ours = get_encoder().encode(texts)
    assert np.allclose(ours, theirs, atol=1e-5)


def test_exported_from_lexeval() -> None:
    assert lexeval.SemanticSimilarityMetric is SemanticSimilarityMetric


def test_eight_threads_from_a_cold_start_agree() -> None:
    out = _run(
        """
        from concurrent.futures import ThreadPoolExecutor
        from lexeval.metrics import semantic
        m = semantic.SemanticSimilarityMetric()
        refs, outs = ["a car", "Paris", "1945"] * 5, ["an automobile", "France", "1946"] * 5
        with ThreadPoolExecutor(8) as pool:
            runs = list(pool.map(lambda _: [r.score for r in m.measure_many(refs, outs)], range(8)))
        assert all(run == runs[0] for run in runs), runs
        assert runs[0] == [r.score for r in m.measure_many(refs, outs)]
        print(semantic.get_encoder() is m.encoder)
        """
    )
    assert out.strip() == "True"
