"""RougeScorer: several ROUGE types, each text analysed once, equal to one RougeMetric per type
(and, in compat mode, to the real rouge-score 0.1.2 RougeScorer)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from lexeval.metrics import RougeMetric
from lexeval.metrics.rouge import RougeScorer

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

SUMMEVAL = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "summeval"
    / "summeval_expert_avg_11refs.jsonl"
)
TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
PAIRS: list[tuple[Any, str]] = [
    ("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log."),
    ("Running runners ran; the runner runs.", "A runner is running\nand runs"),
    ("one\ntwo three\n\nfour five six", "six five four\nthree two one"),
    ("", "something"),
    ("something", ""),
    ("", ""),
    ("Ça va? Très bien, merci. 123-456", "ca va tres bien merci 123 456"),
    (["the cat sat", "a cat sat on the mat\nit purred"], "the cat sat on a mat"),
    ("the the the cat", "the cat the"),
    ("generalizations generously generated", "general generation generic"),
]


def _summeval_pairs() -> list[tuple[Any, str]]:
    if not SUMMEVAL.is_file():
        return []
    with open(SUMMEVAL, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh][::40]
    split = re.compile(r" ([.!?]) ")
    return [
        (split.sub(r" \1\n", row["references"][0]), split.sub(r" \1\n", row["decoded"]))
        for row in rows
    ]


@pytest.mark.parametrize("evidence", [20, 0])
@pytest.mark.parametrize("stem", [False, True])
def test_compat_equals_rouge_score_and_rouge_metric(stem: bool, evidence: int) -> None:
    # evidence_limit=0 takes the shortcuts (LCS lengths only, shared by rougeL and rougeLsum)
    pairs = PAIRS + _summeval_pairs()
    pairs += [
        (ref.replace("\n", " "), out.replace("\n", " "))
        for ref, out in pairs[-10:]
        if isinstance(ref, str)  # the pairs of one reference (without ../shared: PAIRS')
    ]
    ours = RougeScorer(TYPES, compat="rouge-score", use_stemmer=stem, evidence_limit=evidence)
    theirs = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    metrics = {
        t: RougeMetric(t, compat="rouge-score", use_stemmer=stem, evidence_limit=evidence)
        for t in TYPES
    }
    batch = ours.score_many([r for r, _ in pairs], [o for _, o in pairs])
    for (ref, out), got in zip(pairs, batch, strict=True):
        assert got == ours.score(ref, out)
        peer = theirs.score_multi(ref, out) if isinstance(ref, list) else theirs.score(ref, out)
        for t in TYPES:
            assert got[t] == metrics[t].measure(ref, out), (t, ref, out)
            info = got[t].info
            assert (info["precision"], info["recall"], info["fmeasure"]) == tuple(peer[t])


@pytest.mark.parametrize("evidence", [20, 0])
def test_default_mode_and_options_equal_rouge_metric(evidence: int) -> None:
    options: dict[str, Any] = {"score": "recall", "scale": 100.0, "threshold": 40.0}
    options["evidence_limit"] = evidence
    ours = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], **options)
    for ref, out in PAIRS:
        got = ours.score(ref, out)
        for t, result in got.items():
            assert result == RougeMetric(t, **options).measure(ref, out), (t, ref, out)
    for score in ("precision", "recall", "fmeasure"):  # the inline counting without evidence
        plain = RougeScorer(TYPES, compat="rouge-score", score=score, evidence_limit=evidence)
        for ref, out in [*PAIRS, ("cat", "cat"), ("cat sat", "cat"), ("a b", "b a")]:
            for t, result in plain.score(ref, out).items():
                expected = RougeMetric(t, compat="rouge-score", score=score).measure(ref, out)
                assert result.score == expected.score, (score, t, ref, out)
                assert result == RougeMetric(
                    t, compat="rouge-score", score=score, evidence_limit=evidence
                ).measure(ref, out)
    sets = RougeScorer(["rouge2", "rougeL"], compat="rouge-score", counting="distinct")
    for ref, out in PAIRS:
        got = sets.score(ref, out)
        assert got["rouge2"] == RougeMetric(
            "rouge2", compat="rouge-score", counting="distinct"
        ).measure(ref, out)
        assert got["rougeL"] == RougeMetric("rougeL", compat="rouge-score").measure(ref, out)


def test_arguments() -> None:
    with pytest.raises(TypeError, match="not a str"):
        RougeScorer("rougeL")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duplicates"):
        RougeScorer(["rougeL", "rougeL"])
    with pytest.raises(ValueError, match="rouge_type must be"):
        RougeScorer(["rougeX"])
    with pytest.raises(ValueError, match="2 references but 1 outputs"):
        RougeScorer(["rouge1"]).score_many(["a", "b"], ["a"])


def test_bit_parallel_lcs_backtrack_equals_rouge_scores_table() -> None:
    import random

    from lexeval.metrics.rouge import lcs_indices

    rng = random.Random(14)
    for _ in range(400):
        alphabet = [f"w{k}" for k in range(rng.randint(1, 6))]
        ref = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        can = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        assert lcs_indices(ref, can) == rouge_scorer.lcs_ind(ref, can), (ref, can)


def test_prepared_text_caches_are_bounded_shared_by_threads_and_pickle_empty() -> None:
    """The prepared-text caches (functools.lru_cache) give the same results under threads as
    serially, stay within their bound, and a pickled scorer or metric carries them empty."""
    import pickle
    from concurrent.futures import ThreadPoolExecutor

    pairs = [
        (f"w{i} the cat sat on mat {i % 7}", f"the cat {i % 5} sat w{i * 3}") for i in range(6000)
    ]
    serial = RougeScorer(TYPES, compat="rouge-score", use_stemmer=True)
    expected = [{t: r.to_dict() for t, r in serial.score(a, b).items()} for a, b in pairs]
    assert serial._texts.get.cache_info().currsize <= serial._texts.get.cache_info().maxsize
    shared = RougeScorer(TYPES, compat="rouge-score", use_stemmer=True)

    def score(k: int) -> list[dict[str, Any]]:
        return [
            {t: r.to_dict() for t, r in shared.score(*pairs[i]).items()}
            for i in range(k, len(pairs), 4)
        ]

    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(score, range(4)))
    got = [parts[i % 4][i // 4] for i in range(len(pairs))]
    assert got == expected
    metric = RougeMetric("rouge2", compat="rouge-score")
    metric.measure(*pairs[0])
    for obj in (shared, metric):
        clone = pickle.loads(pickle.dumps(obj))
        assert clone._texts.get.cache_info().currsize == 0
    assert pickle.loads(pickle.dumps(metric)).measure(*pairs[1]) == metric.measure(*pairs[1])


@pytest.mark.parametrize("stem", [False, True])
def test_batch_path_equals_one_pair_path_on_random_text(stem: bool) -> None:
    """score_many analyses a stretch's texts together (stems of every text in one pass, each
    new word once) and then scores each pair as score does: equal results, whatever the stem
    cache holds, across stretch boundaries, with repeated and multi-line texts."""
    import random

    from lexeval.compat import clear_stem_cache
    from lexeval.metrics import rouge

    rng = random.Random(27)
    words = ["running", "runs", "ran", "the", "generalizations", "cats", "a", "Ça", "b2b", "z"]
    words += [f"word{k}ing" for k in range(40)] + ["", "\n", "-", "!"]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))

    refs: list[Any] = [text() for _ in range(rouge._STRETCH + 300)]
    outs = [text() for _ in refs]
    for i in range(0, len(refs), 7):  # repeated texts and lists of references
        outs[i] = refs[i - 1]
    for i in range(3, len(refs), 11):
        refs[i] = [text(), refs[i - 2] if isinstance(refs[i - 2], str) else "x", text()]
    clear_stem_cache()
    batch = RougeScorer(TYPES, compat="rouge-score", use_stemmer=stem).score_many(refs, outs)
    clear_stem_cache()
    one = RougeScorer(TYPES, compat="rouge-score", use_stemmer=stem)
    assert batch == [one.score(r, o) for r, o in zip(refs, outs, strict=True)]
    again = RougeScorer(TYPES, compat="rouge-score", use_stemmer=stem).score_many(refs, outs)
    assert again == batch  # stems now remembered


def test_batch_errors_name_the_text() -> None:
    scorer = RougeScorer(["rouge1"], compat="rouge-score")
    with pytest.raises(TypeError, match="output"):
        scorer.score_many(["a"], [3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        scorer.score_many([["a", 3]], ["a"])  # type: ignore[list-item]
