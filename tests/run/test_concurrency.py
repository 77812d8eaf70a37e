"""Same answers whatever the concurrency: threads sharing a normalizer or metric, distinct
normalizers in many threads, and process pools with every start method, against serial runs."""

from __future__ import annotations

import multiprocessing
import pickle
import random
import re
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import pytest

from lexeval.metrics import (
    BaseMetric,
    KeywordCoverageMetric,
    LexicalCorrectnessMetric,
    RougeMetric,
    TokenF1Metric,
)
from lexeval.normalize import PRESETS, Normalizer
from lexeval.run import measure_many
from lexeval.text.resources import load_language

THREADS = 8

_WORDS = (  # noqa: SIM905 (a list literal would take 30 lines)
    "the a of and not never no is are was were be been running runs ran dogs cats mice "
    "data number numbers better best four seven twenty first hundred 1,000 09:15 3.50 "
    "neural networks machine learning state-of-the-art e-mail Röntgen café naïve "
    "React.js Node.js TCP/IP C++ C# .NET v1.2.3 x86-64 snake_case camelCase APIs "
    "https://example.com/a?b=1 me@example.org don't can't it's app's "
    "Paris France capital river mountain Himalayas Massachusetts Gutenberg "
    "東京 日本語 Привет мир"
).split()
_PUNCT = [".", ",", ";", "!", "?", ":", " -", "…", "(", ")", '"']


def make_texts(count: int, seed: int = 0) -> list[str]:
    """Distinct, varied texts: common and technical words, new tokens, sentences, lines."""
    rng = random.Random(seed)
    texts: dict[str, None] = {}
    while len(texts) < count:
        parts: list[str] = []
        for _ in range(rng.randint(1, 30)):
            r = rng.random()
            if r < 0.7:
                parts.append(rng.choice(_WORDS))
            elif r < 0.85:
                parts.append(f"w{rng.randint(0, 10**9)}{rng.choice(['', 's', 'ing'])}")
            else:
                parts.append(rng.choice(_PUNCT))
        sep = rng.choice([" ", " ", " ", "  ", "\n"])
        texts[sep.join(parts)] = None
    return list(texts)


def make_pairs(count: int, seed: int = 0) -> list[tuple[str, str]]:
    """(reference, output) pairs; references as lexical_correctness takes them (at most 256
    characters, with a letter or a digit), so one set of pairs serves every metric."""
    texts = make_texts(2 * count, seed)
    references = [
        t[:200] if any(c.isalnum() for c in t[:200]) else t[:200] + " w" for t in texts[:count]
    ]
    return list(zip(references, texts[count:], strict=True))


METRICS: dict[str, Callable[[], BaseMetric]] = {
    "keyword_coverage": KeywordCoverageMetric,
    "keyword_coverage_exact": lambda: KeywordCoverageMetric(match="exact"),
    "keyword_coverage_fuzzy": lambda: KeywordCoverageMetric(match="exact", fuzzy=True),
    "keyword_coverage_mastra": lambda: KeywordCoverageMetric(compat="mastra"),
    "keyword_coverage_scorer": lambda: KeywordCoverageMetric(compat="mastra-scorer"),
    "lexical_correctness": LexicalCorrectnessMetric,
    "token_f1": TokenF1Metric,
    "token_f1_squad": lambda: TokenF1Metric(compat="squad"),
    "token_f1_set": lambda: TokenF1Metric(compat="set"),
    "rouge1": lambda: RougeMetric("rouge1"),
    "rouge2": lambda: RougeMetric("rouge2"),
    "rougeL": lambda: RougeMetric("rougeL"),
    "rougeLsum": lambda: RougeMetric("rougeLsum"),
    "rouge2_set": lambda: RougeMetric("rouge2", counting="distinct"),
    "rouge1_compat": lambda: RougeMetric("rouge1", compat="rouge-score", use_stemmer=True),
    "rougeL_compat": lambda: RougeMetric("rougeL", compat="rouge-score"),
    "rougeLsum_compat": lambda: RougeMetric("rougeLsum", compat="rouge-score", use_stemmer=True),
}


@pytest.fixture(autouse=True)
def frequent_switches() -> Iterator[None]:
    """Switch threads every 10 microseconds, so that unsafe interleavings actually happen."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(interval)


def _threaded(function: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(function, items))


def _results(metric: BaseMetric, pairs: list[tuple[str, str]]) -> list[Any]:
    return [metric.measure(i, o).to_dict() for i, o in pairs]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_a_metric_shared_by_threads_equals_serial(name: str) -> None:
    pairs = make_pairs(1000, seed=sorted(METRICS).index(name))
    serial = _results(METRICS[name](), pairs)
    shared = METRICS[name]()
    threaded = _threaded(lambda pair: shared.measure(*pair).to_dict(), pairs)
    assert threaded == serial
    assert _results(shared, pairs[:200]) == serial[:200]  # and still right on one thread


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_normalizer_shared_by_threads_equals_serial(preset: str) -> None:
    texts = make_texts(1500, seed=7)

    def run(norm: Normalizer, text: str) -> tuple[Any, ...]:
        return (norm.tokens(text), norm.keywords(text), norm.sentences(text), norm.analyze(text))

    serial_norm = Normalizer(preset)
    serial = [run(serial_norm, t) for t in texts]
    shared = Normalizer(preset)
    assert _threaded(lambda t: run(shared, t), texts) == serial


def test_distinct_normalizers_in_threads_equal_serial() -> None:
    texts = make_texts(2000, seed=11)
    serial = Normalizer().tokens_many(texts)
    slices = [texts[i::THREADS] for i in range(THREADS)]

    def own_normalizer(part: list[str]) -> list[list[str]]:
        norm = Normalizer()
        out = [norm.tokens(t) for t in part[: len(part) // 2]]
        return out + norm.tokens_many(part[len(part) // 2 :])  # the batch path too

    results = _threaded(own_normalizer, slices)
    for i, result in enumerate(results):
        assert result == serial[i::THREADS]


def test_prefetch_and_measure_many_in_threads() -> None:
    pairs = make_pairs(2000, seed=3)
    serial = [r.to_dict() for r in KeywordCoverageMetric().measure_many(*zip(*pairs, strict=True))]
    shared = KeywordCoverageMetric()
    batches = [pairs[i : i + 100] for i in range(0, len(pairs), 100)]
    results = _threaded(lambda b: shared.measure_many(*zip(*b, strict=True)), batches)
    assert [r.to_dict() for batch in results for r in batch] == serial


@pytest.mark.parametrize("name", sorted(METRICS))
def test_metrics_pickle_small_and_equal(name: str) -> None:
    metric = METRICS[name]()
    pairs = make_pairs(50, seed=5)
    before = _results(metric, pairs)  # fills caches and loads spaCy
    data = pickle.dumps(metric)
    assert len(data) < 2000, len(data)
    clone = pickle.loads(data)
    assert clone.signature == metric.signature
    assert _results(clone, pairs) == before


@pytest.mark.parametrize("method", multiprocessing.get_all_start_methods())
def test_process_pools_equal_serial(method: str) -> None:
    names = [
        "keyword_coverage",
        "keyword_coverage_mastra",
        "token_f1",
        "rougeLsum",
        "rouge1_compat",
        "lexical_correctness",
    ]
    metrics = [METRICS[name]() for name in names]
    pairs = make_pairs(120, seed=13)
    serial = [_results(m, pairs) for m in metrics]  # the parent has used spaCy before forking
    ins, outs = [list(side) for side in zip(*pairs, strict=True)]
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        futures = [
            pool.submit(m.measure_many, ins[k::2], outs[k::2]) for m in metrics for k in (0, 1)
        ]
        parallel = [f.result(timeout=120) for f in futures]
    for index, expected in enumerate(serial):
        even, odd = parallel[2 * index], parallel[2 * index + 1]
        assert [r.to_dict() for r in even] == expected[0::2]
        assert [r.to_dict() for r in odd] == expected[1::2]


def test_a_used_metric_pickles_as_it_did_unused() -> None:
    """Pool workers key their warm copy on the pickled configuration: use must not change it."""
    for metric in (KeywordCoverageMetric(), TokenF1Metric(), RougeMetric("rougeLsum")):
        before = pickle.dumps(metric)
        metric.measure_many(["the cat sat on the mat"] * 3, ["a cat", "the mat", "cats sat"])
        assert pickle.dumps(metric) == before, metric.name


@pytest.fixture
def frequent_renewals() -> Iterator[Any]:
    """English spaCy objects renewed often (every 300 lexemes instead of every 2**19)."""
    res = load_language("en")
    before = res.renew_after
    res.renew_after = 300
    yield res
    res.renew_after = before


def _glued(text: str) -> str:
    return re.sub(r"\b(w\d+\w*)", r"\1:)", text)


def test_renewed_spacy_objects_give_the_same_results(frequent_renewals: Any) -> None:
    """spaCy's objects built anew while texts with new tokens stream through (memory stays
    bounded): results equal those of objects never renewed, on one thread and on many."""
    # new tokens glued to an emoticon (a special case): chunks lexeval's affix rules leave to
    # spaCy's tokenizer, so its objects fill up with new lexemes and are renewed
    pairs = [(_glued(reference), _glued(output)) for reference, output in make_pairs(600, seed=23)]
    texts = [t for pair in pairs for t in pair] + ["machine learning on neural networks"] * 3
    frequent_renewals.renew_after = 10**9
    expected_tokens = [Normalizer().tokens(t) for t in texts]
    expected_scores = _results(KeywordCoverageMetric(), pairs)
    renewals = frequent_renewals.renewals
    frequent_renewals.renew_after = 150
    assert [Normalizer().tokens(t) for t in texts] == expected_tokens
    assert _results(KeywordCoverageMetric(), pairs) == expected_scores
    shared = KeywordCoverageMetric()
    assert _threaded(lambda pair: shared.measure(*pair).to_dict(), pairs) == expected_scores
    assert frequent_renewals.renewals > renewals + 10
    assert "machine learning" in expected_tokens[-1]


def test_questions_in_threads_and_processes_equal_serial() -> None:
    """Keyword coverage with questions (weights change per call): threads sharing one metric,
    batches in threads and a process pool give the serial results."""
    pairs = make_pairs(1200, seed=17)
    questions: list[str | None] = list(make_texts(1200, seed=19))
    questions[::5] = [None] * len(questions[::5])
    triples = [(i, o, q) for (i, o), q in zip(pairs, questions, strict=True)]
    serial = [KeywordCoverageMetric().measure(i, o, question=q).to_dict() for i, o, q in triples]
    assert sum("echoed" in r["info"] for r in serial) > 100  # the questions do change weights
    shared = KeywordCoverageMetric()
    threaded = _threaded(lambda t: shared.measure(t[0], t[1], question=t[2]).to_dict(), triples)
    assert threaded == serial
    batches = [triples[k : k + 100] for k in range(0, len(triples), 100)]

    def batch(part: list[tuple[str, str, str | None]]) -> list[Any]:
        ins, outs, qs = (list(side) for side in zip(*part, strict=True))
        return [r.to_dict() for r in shared.measure_many(ins, outs, questions=qs)]

    assert [r for part in _threaded(batch, batches) for r in part] == serial
    ins, outs, qs = (list(side) for side in zip(*triples, strict=True))
    pooled = measure_many(KeywordCoverageMetric(), ins, outs, questions=qs, workers=2)
    assert [r.to_dict() for r in pooled] == serial
