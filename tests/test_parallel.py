"""measure_many(..., workers=N): identical results in input order, a persistent pool whose
workers build each metric once, and the argument checks."""

from __future__ import annotations

import os
from typing import Any

import pytest

from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric
from lexeval.parallel import (
    MIN_CHUNK,
    available_cores,
    build_once,
    builds_in_this_process,
    chunk_bounds,
    configuration_key,
    map_chunks,
    resolve_workers,
)

TEXT = (
    "the cat sat on a mat while neural networks learn faster than dogs running across "
    "Paris in 1999 with C++ and TCP/IP not never state-of-the-art Röntgen four 4 data"
)
WORDS = TEXT.split(" ")


def _pairs(n: int) -> tuple[list[Any], list[str]]:
    refs: list[Any] = []
    outs: list[str] = []
    for i in range(n):
        ref = " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(3 + i % 11))
        out = " ".join(WORDS[(i * 5 + k * 2) % len(WORDS)] for k in range(i % 13))
        refs.append([ref, "four cats"] if i % 9 == 0 else ref)
        outs.append(out + ("." if i % 4 == 0 else ""))
    return refs, outs


@pytest.mark.parametrize(
    "make",
    [
        lambda: KeywordCoverageMetric(threshold=0.5),
        lambda: RougeMetric("rougeLsum", compat="rouge-score", use_stemmer=True),
        lambda: TokenF1Metric(),
    ],
    ids=["keyword_coverage", "rougeLsum-compat-stem", "token_f1"],
)
def test_workers_give_the_serial_results_in_order(make: Any) -> None:
    refs, outs = _pairs(4 * MIN_CHUNK + 17)
    serial = make().measure_many(refs, outs)
    metric = make()
    assert metric.measure_many(refs, outs, workers=2) == serial
    assert metric.measure_many(refs, outs, workers=2) == serial  # the pool again, warm


class _Probe:
    """Reports, for each item, the process that handled it and how often that process built
    this probe from its configuration."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def run(self, items: list[int]) -> list[tuple[int, int, int]]:
        import pickle

        key = configuration_key(pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL))
        builds = builds_in_this_process().get(key, 0)
        return [(item, os.getpid(), builds) for item in items]


def test_the_pool_persists_and_builds_each_configuration_once_per_worker() -> None:
    items = list(range(3 * MIN_CHUNK * 8))
    first = map_chunks(_Probe("once"), "run", [items], 3)
    second = map_chunks(_Probe("once"), "run", [items], 3)
    assert [r[0] for r in first] == items and [r[0] for r in second] == items
    workers_first = {pid for _, pid, _ in first} - {os.getpid()}
    workers_second = {pid for _, pid, _ in second} - {os.getpid()}
    assert workers_first, "no chunk ran in a worker process"
    # the same pool both times: 3 processes in all, the caller and two workers
    assert len(workers_first | workers_second) <= 2
    # in the workers the probe was built once, however many chunks each scored
    assert {b for _, pid, b in first + second if pid != os.getpid()} == {1}


def test_small_batches_and_one_worker_stay_in_this_process() -> None:
    refs, outs = _pairs(MIN_CHUNK)
    metric = TokenF1Metric()
    assert metric.measure_many(refs, outs, workers="auto") == metric.measure_many(refs, outs)
    assert chunk_bounds(10, 4) == [(0, 10)]
    assert map_chunks(_Probe("x"), "run", [[1, 2]], 4) == [(1, os.getpid(), 0), (2, os.getpid(), 0)]


def test_workers_argument() -> None:
    assert resolve_workers(0) == resolve_workers("auto") == available_cores()
    assert resolve_workers(5) == 5
    with pytest.raises(ValueError, match="workers must be"):
        resolve_workers(-1)
    with pytest.raises(TypeError, match="workers must be an int or 'auto'"):
        resolve_workers(True)
    with pytest.raises(TypeError, match="workers must be an int or 'auto'"):
        TokenF1Metric().measure_many(["a"], ["a"], workers="all")


def test_build_once_caches_by_configuration() -> None:
    import pickle

    blob = pickle.dumps(TokenF1Metric(compat="set"))
    a = build_once(configuration_key(blob), blob)
    assert a is build_once(configuration_key(blob), blob)
    assert a.measure("a b", "a").score == TokenF1Metric(compat="set").measure("a b", "a").score


def test_cli_score_workers_prints_the_serial_lines(tmp_path: Any, capsys: Any) -> None:
    import json

    from lexeval.cli import main

    refs, outs = _pairs(2 * MIN_CHUNK + 40)
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "".join(
            json.dumps({"input": r, "output": o}) + "\n" for r, o in zip(refs, outs, strict=True)
        ),
        encoding="utf-8",
    )
    printed = []
    for workers in ("1", "2"):
        assert (
            main(["score", "--metric", "token_f1", "--jsonl", str(path), "--workers", workers]) == 0
        )
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] and printed[0].count("\n") == len(refs)
    assert main(["score", "--metric", "token_f1", "--jsonl", str(path), "--workers", "-1"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_cards_evaluate_with_workers_gives_the_same_run() -> None:
    from lexeval.cards import EvalCase, EvalDataset, ExpectedCard, GeneratedCard, evaluate

    cases = []
    outputs: dict[str, list[Any]] = {}
    for i in range(90):
        front = WORDS[i % len(WORDS)]
        back = " ".join(WORDS[(i * 3 + k) % len(WORDS)] for k in range(4))
        cases.append(EvalCase(f"c{i}", "text", [ExpectedCard([front], back.split()[:2])]))
        if i % 7:
            outputs[f"c{i}"] = [GeneratedCard(f"What is {front}?", back), GeneratedCard("x", "y")]
    dataset = EvalDataset("many", "1", cases)
    serial = evaluate(dataset, outputs)
    parallel = evaluate(dataset, outputs, workers=2)
    assert parallel.cases == serial.cases and parallel.micro == serial.micro
    assert sum(c.has_output for c in parallel.cases) == len(outputs)


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_every_start_method_gives_the_serial_results(method: str, monkeypatch: Any) -> None:
    import multiprocessing

    from lexeval.parallel import shutdown, start_method

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"this platform has no {method!r} start method")
    monkeypatch.setenv("LEXEVAL_START_METHOD", method)
    assert start_method() == method
    refs, outs = _pairs(2 * MIN_CHUNK + 31)
    serial = KeywordCoverageMetric().measure_many(refs, outs)
    try:
        assert KeywordCoverageMetric().measure_many(refs, outs, workers=2) == serial
    finally:
        shutdown()


def test_start_method_forks_only_a_single_threaded_caller(monkeypatch: Any) -> None:
    import multiprocessing
    import threading

    from lexeval.parallel import start_method

    monkeypatch.delenv("LEXEVAL_START_METHOD", raising=False)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert start_method() in ("forkserver", "spawn")
    finally:
        release.set()
        other.join()
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        assert start_method() == "fork"
    monkeypatch.setenv("LEXEVAL_START_METHOD", "teleport")
    with pytest.raises(ValueError, match="LEXEVAL_START_METHOD='teleport'"):
        start_method()


class _GcProbe:
    """Leaves reference cycles behind (only the collector frees them) and reports, for each
    item, the process that handled it, how many collections its collector had run and
    whether the collector was on while the chunk ran."""

    def __init__(self, cycles: int) -> None:
        self.cycles = cycles

    def run(self, items: list[int]) -> list[tuple[int, int, int, bool]]:
        import gc

        for _ in range(self.cycles):
            cycle: list[Any] = []
            cycle.append(cycle)
        collections = sum(generation["collections"] for generation in gc.get_stats())
        return [(item, os.getpid(), collections, gc.isenabled()) for item in items]


def test_workers_collect_garbage_between_chunks_although_the_caller_paused_it() -> None:
    from lexeval.collector import paused_gc

    items = list(range(16 * MIN_CHUNK))
    with paused_gc():  # as measure_many does around map_chunks: a forked worker inherits it
        seen = map_chunks(_GcProbe(5000), "run", [items], 2)
    assert [item for item, _, _, _ in seen] == items
    in_workers = [(collections, on) for _, pid, collections, on in seen if pid != os.getpid()]
    assert len({collections for collections, _ in in_workers}) > 1, "no collection in a worker"
    # within a chunk the collector is paused (its results are packed and freed first)
    assert {on for _, on in in_workers} == {False}


class _NumpyInfo(TokenF1Metric):
    """A metric defined outside lexeval whose info holds numpy values, which marshal would
    turn into bytes without a word: its results must travel by pickle."""

    def _score_prepared(self, reference: str, prepared: Any) -> tuple[float, dict[str, Any]]:
        import numpy

        score, info = super()._score_prepared(reference, prepared)
        output = " ".join(info["matched"])
        info["as_numpy"] = numpy.float64(score)
        info["counts_array"] = numpy.array([len(reference), len(output)])
        return score, info


def test_results_of_other_types_keep_their_types() -> None:
    import numpy

    from lexeval.parallel import pack_results, plain_results, unpack_results

    refs, outs = _pairs(2 * MIN_CHUNK + 5)
    metric = _NumpyInfo(evidence_limit=20)
    assert not plain_results(metric, [refs, outs])
    assert plain_results(TokenF1Metric(), [refs, outs])
    assert not plain_results(TokenF1Metric(), [refs, [*outs[:-1], numpy.str_("x")]])
    serial = metric.measure_many(refs, outs)
    parallel = metric.measure_many(refs, outs, workers=2)
    assert [r.score for r in parallel] == [r.score for r in serial]
    assert [r.info["as_numpy"] for r in parallel] == [r.info["as_numpy"] for r in serial]
    assert all(type(r.info["as_numpy"]) is numpy.float64 for r in parallel)
    assert all(type(r.info["counts_array"]) is numpy.ndarray for r in parallel)
    # lexeval's own results travel as marshal bytes and come back equal
    results = TokenF1Metric().measure_many(refs, outs)
    packed = pack_results(results, plain=True)
    assert type(packed[1]) is bytes and unpack_results(packed) == results
    assert unpack_results(pack_results(results)) == results


def test_chunk_files_are_removed_and_a_lost_directory_falls_back_to_the_pipe() -> None:
    import shutil

    from lexeval.parallel import chunk_directory, shutdown

    refs, outs = _pairs(3 * MIN_CHUNK + 11)
    serial = KeywordCoverageMetric().measure_many(refs, outs)
    metric = KeywordCoverageMetric()
    try:
        assert metric.measure_many(refs, outs, workers=2) == serial
        directory = chunk_directory()
        assert os.listdir(directory) == []  # every chunk's texts and results read and removed
        shutil.rmtree(directory)  # a cleaner of temporary files took it: chunks go by pipe
        assert metric.measure_many(refs, outs, workers=2) == serial
    finally:
        shutdown()
    assert not os.path.exists(directory)


def test_a_failing_chunk_leaves_no_file_behind() -> None:
    from lexeval.parallel import chunk_directory, shutdown

    items: list[Any] = list(range(6 * MIN_CHUNK))
    items[len(items) // 3] = "not a number"  # in the workers' part
    try:
        with pytest.raises(TypeError):
            map_chunks(_Doubler(), "run", [items], 2)
        directory = chunk_directory()
        assert map_chunks(_Doubler(), "run", [list(range(4 * MIN_CHUNK))], 2) == [
            2 * i for i in range(4 * MIN_CHUNK)
        ]
    finally:
        shutdown()
    assert not os.path.exists(directory)


class _Doubler:
    def run(self, items: list[int]) -> list[int]:
        return [item * 2 if type(item) is int else item + 1 for item in items]


def test_objects_of_a_large_paused_batch_go_to_the_oldest_generation() -> None:
    import gc

    from lexeval.collector import MANY_YOUNG, paused_gc, promote_batches

    class Node:
        def __init__(self) -> None:
            self.me = self

    gc.collect()
    with paused_gc():
        kept = [[i] for i in range(MANY_YOUNG)]
        Node()  # a reference cycle: garbage only the collector frees
    oldest = {id(obj) for obj in gc.get_objects(generation=2)}
    assert all(id(item) in oldest for item in kept)
    assert gc.collect() >= 1  # the cycle is found by the next full collection
    assert gc.isenabled()
    gc.collect()  # counts back to 0: no collection of generation 1 while looking
    with paused_gc():  # a small batch's objects stay young
        few = [[1]]
    assert id(few[0]) not in {id(obj) for obj in gc.get_objects(generation=2)}
    sentinel: list[Any] = [[]]
    gc.freeze()  # something froze objects: they must stay frozen (in no generation)
    try:
        for promote in (True, False):
            promote_batches(promote)
            gc.collect()
            with paused_gc():
                young = [[i] for i in range(MANY_YOUNG)]
            gc.disable()  # no collection while looking (it would promote the young lists)
            tracked = {id(obj) for obj in gc.get_objects()}
            assert id(sentinel[0]) not in tracked and id(young[0]) in tracked
            assert id(young[0]) not in {id(obj) for obj in gc.get_objects(generation=2)}
            gc.enable()
    finally:
        promote_batches(True)
        gc.unfreeze()
        gc.enable()


def test_chunks_cover_every_item_once_whatever_the_boundary() -> None:
    for n in (1, 499, 1000, 7777):
        for boundary in (None, 0, 1, n // 3, n - 1, n, n + 5):
            bounds = chunk_bounds(n, 2, boundary=boundary)
            covered = sorted(i for start, stop in bounds for i in range(start, stop))
            assert covered == list(range(n)), (n, boundary)
            assert all(stop - start >= 1 for start, stop in bounds)


def test_calls_again_on_the_same_items_keep_order_and_results() -> None:
    items = list(range(12 * MIN_CHUNK))
    first = map_chunks(_Probe("again"), "run", [items], 2)
    # the same items again (the workers' part of the first call is remembered), then items
    # that differ only where the fingerprint does not look: the remembered split still applies
    again = map_chunks(_Probe("again"), "run", [items], 2)
    changed = [*items]
    changed[5] = -5
    other = map_chunks(_Probe("again"), "run", [changed], 2)
    assert [r[0] for r in first] == [r[0] for r in again] == items
    assert [r[0] for r in other] == changed
    refs, outs = _pairs(6 * MIN_CHUNK)
    serial = TokenF1Metric().measure_many(refs, outs)
    metric = TokenF1Metric()
    for _ in range(3):
        assert metric.measure_many(refs, outs, workers=2) == serial


class _Unhashable:
    def __init__(self, value: int) -> None:
        self.value = value

    def __hash__(self) -> int:
        raise ValueError("no hash")


class _Values:
    def run(self, items: list[_Unhashable]) -> list[int]:
        return [item.value for item in items]


def test_items_that_cannot_be_hashed_are_scored_all_the_same() -> None:
    items = [_Unhashable(i) for i in range(4 * MIN_CHUNK)]
    for _ in range(2):
        assert map_chunks(_Values(), "run", [items], 2) == list(range(4 * MIN_CHUNK))
