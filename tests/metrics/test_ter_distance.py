"""TER's beam edit distance against sacrebleu 2.6's own ``BeamEditDistance``: the same cost
and the same trace (its order of preference on ties) on generated word lists (repeats, empty
lists, lengths further apart than the beam) and on real SummEval and EVOUNA texts, and the
same costs for the shifted outputs TER's search scores in a batch."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.metrics.ter_distance import BeamDistance
from tests.support.qa_data import load_evouna_nq

pytest.importorskip("sacrebleu")
from sacrebleu.metrics.lib_ter import BeamEditDistance

SUMMEVAL = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "summeval"
    / "summeval_abstractive_12sys.aligned.jsonl"
)


def _shifted(words: list[str], rng: random.Random) -> list[str]:
    """``words`` with a block of up to 10 words moved elsewhere (what TER's search tries)."""
    if not words:
        return []
    start = rng.randrange(len(words))
    length = rng.randint(1, min(10, len(words) - start))
    block, rest = words[start : start + length], words[:start] + words[start + length :]
    target = rng.randint(0, len(rest))
    return rest[:target] + block + rest[target:]


def _mismatches(ref: list[str], hyp: list[str], rng: random.Random, shifts: int) -> list[str]:
    """How ``BeamDistance`` differs from sacrebleu on ``hyp`` (cost and trace) and on
    ``shifts`` shifted copies of it (costs, after the same calls in the same order)."""
    peer, ours = BeamEditDistance(ref), BeamDistance(ref)
    found: list[str] = []
    expected, got = peer(hyp), ours(hyp)
    if expected != got:
        found.append(f"{ref!r} {hyp!r}: sacrebleu {expected!r}, lexeval {got!r}")
    outputs = [_shifted(hyp, rng) for _ in range(shifts)]
    peer_costs = [peer(words)[0] for words in outputs]
    if ours.costs(outputs) != peer_costs:
        found.append(f"{ref!r} {hyp!r}: shifted costs differ")
    return found


def test_generated_word_lists_match_sacrebleu() -> None:
    rng = random.Random(39)
    lengths = [0, 1, 2, 3, 7, 24, 25, 26, 49, 50, 51, 80, 160]
    cases = 0
    found: list[str] = []
    for _ in range(600):
        vocab = [f"w{k}" for k in range(rng.choice([1, 2, 3, 5, 40]))]
        n_ref = rng.choice([*lengths, rng.randint(0, 220)])
        n_hyp = rng.choice([*lengths, rng.randint(0, 220)])
        ref = [rng.choice(vocab) for _ in range(n_ref)]
        hyp = [rng.choice(vocab) for _ in range(n_hyp)]
        found += _mismatches(ref, hyp, rng, shifts=4)
        cases += 1
    assert found == []
    assert cases == 600


def test_lengths_further_apart_than_the_beam() -> None:
    """sacrebleu widens the beam when one text is over 50 times longer: rows must overlap."""
    rng = random.Random(7)
    found: list[str] = []
    for n_hyp, n_ref in [(1, 120), (2, 300), (3, 160), (120, 1), (300, 2), (0, 60), (60, 0)]:
        ref = [rng.choice("abc") for _ in range(n_ref)]
        hyp = [rng.choice("abc") for _ in range(n_hyp)]
        found += _mismatches(ref, hyp, rng, shifts=3)
    assert found == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=40),
    st.lists(st.sampled_from("abcde"), max_size=40),
    st.integers(0, 2**32),
)
def test_random_word_lists_match_sacrebleu(ref: list[str], hyp: list[str], seed: int) -> None:
    assert _mismatches(ref, hyp, random.Random(seed), shifts=3) == []


def test_summeval_summaries_match_sacrebleu() -> None:
    if not SUMMEVAL.exists():
        pytest.skip(f"{SUMMEVAL} not found (../shared beside the checkout)")
    lines = SUMMEVAL.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines[::100] if line]
    rng = random.Random(45)
    found: list[str] = []
    for row in rows:
        found += _mismatches(row["references"][0].split(), row["decoded"].split(), rng, shifts=3)
    assert len(rows) == 12
    assert found == []


def test_evouna_answers_match_sacrebleu() -> None:
    try:
        golds, answers, _, _ = load_evouna_nq(questions_limit=200)
    except FileNotFoundError:
        pytest.skip("EVOUNA not found (../shared beside the checkout)")
    rng = random.Random(46)
    found: list[str] = []
    for alternatives, answer in zip(golds, answers, strict=True):
        found += _mismatches(alternatives[0].split(), answer.split(), rng, shifts=3)
        found += _mismatches(answer.split(), alternatives[0].split(), rng, shifts=3)
    assert len(answers) > 700
    assert found == []


def test_costs_do_not_depend_on_the_last_output_traced() -> None:
    """Rows are reused only from an output of the same length and words."""
    ref = ["the", "cat", "sat", "on", "the", "mat"]
    distance = BeamDistance(ref)
    distance(["a", "cat", "sat"])
    assert distance.costs([ref, ["the", "mat", "sat", "on", "the", "cat"]]) == [0, 2]
    distance(["the", "cat", "sat", "on", "a", "mat"])
    assert distance.costs([ref, ["the", "cat", "sat", "on", "the"], []]) == [0, 1, 6]
