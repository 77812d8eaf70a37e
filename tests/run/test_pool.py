"""The run layer's pool (lexeval.run): identical results in input order in every start method,
the ``workers`` checks, nothing changed in the caller, no process left after the call."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric
from lexeval.run import MIN_CHUNK, WorkerError, available_cores, max_workers, measure_many
from lexeval.run.pool import (
    chunk_bounds,
    map_chunks,
    resolve_workers,
    shared_text_order,
    start_method,
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


def _pids(items: list[int]) -> list[tuple[int, int]]:
    return [(item, os.getpid()) for item in items]


def _fail_on(bad: int, items: list[int]) -> list[int]:
    if bad in items:
        raise KeyError(bad)
    return items


def _no_children() -> bool:
    return multiprocessing.active_children() == []


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
    assert measure_many(metric, refs, outs, workers=2) == serial
    assert measure_many(metric, refs, outs, workers=2) == serial  # warm in the caller
    assert _no_children()


@pytest.mark.slow
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_every_start_method_gives_the_serial_results(method: str) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"this platform has no {method!r} start method")
    refs, outs = _pairs(2 * MIN_CHUNK + 31)
    questions = [None if i % 3 else "what did the cat sit on?" for i in range(len(outs))]
    metric = KeywordCoverageMetric()
    serial = metric.measure_many(refs, outs, questions=questions)
    pooled = measure_many(metric, refs, outs, questions=questions, workers=2, start_method=method)
    assert pooled == serial
    assert _no_children()


def test_chunks_cover_every_item_once_in_order() -> None:
    for n, processes in [(500, 2), (1001, 2), (100_000, 2), (7777, 8), (10, 4)]:
        bounds = chunk_bounds(n, processes)
        assert [i for start, stop in bounds for i in range(start, stop)] == list(range(n))
        assert all(stop - start <= 5000 for start, stop in bounds)
        sizes = [stop - start for start, stop in bounds]
        # the workers finish together: the chunks shrink towards the end (the last one takes
        # the few items a chunk of half MIN_CHUNK would leave)
        assert sizes[:-1] == sorted(sizes[:-1], reverse=True)
        assert n < 4 * MIN_CHUNK or sizes[-2] <= MIN_CHUNK // 2 < sizes[0]
    items = list(range(3 * MIN_CHUNK * 4))
    seen = map_chunks(_pids, [items], 3)
    assert [item for item, _ in seen] == items
    assert os.getpid() not in {pid for _, pid in seen}, "the chunks ran in worker processes"
    assert _no_children()


def test_small_batches_and_one_worker_stay_in_this_process() -> None:
    assert map_chunks(_pids, [[1, 2]], 4) == [(1, os.getpid()), (2, os.getpid())]
    items = list(range(4 * MIN_CHUNK))
    assert {pid for _, pid in map_chunks(_pids, [items], 1)} == {os.getpid()}
    refs, outs = _pairs(MIN_CHUNK)
    metric = TokenF1Metric()
    assert measure_many(metric, refs, outs, workers="auto") == metric.measure_many(refs, outs)


@pytest.mark.parametrize(
    "workers", [True, False, 0, -1, 1.0, 2.5, "2", "all", None, 10**9, 4 * os.cpu_count() + 1]
)
def test_bad_workers_fail_before_any_process_starts(workers: Any) -> None:
    refs, outs = _pairs(4 * MIN_CHUNK)
    with pytest.raises(ValueError, match="workers must be a positive int of at most"):
        measure_many(TokenF1Metric(), refs, outs, workers=workers)
    with pytest.raises(ValueError, match="workers must be"):
        map_chunks(_pids, [list(range(4 * MIN_CHUNK))], workers)
    assert _no_children()


def test_good_workers() -> None:
    assert resolve_workers("auto") == available_cores()
    assert resolve_workers(max_workers()) == max_workers() == 4 * available_cores()
    assert resolve_workers(1) == 1
    with pytest.raises(ValueError, match="start_method"):
        measure_many(TokenF1Metric(), *_pairs(4 * MIN_CHUNK), workers=2, start_method="teleport")


def test_start_method_forks_only_a_single_threaded_caller() -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert start_method() == "spawn"
    finally:
        release.set()
        other.join()
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        assert start_method() == "fork"


def test_the_caller_keeps_its_collector_and_signal_handlers() -> None:
    """A thread watching gc.isenabled() while measure_many runs, serial and pooled, never sees
    it off; nothing is frozen; the caller's signal handlers are the ones it had."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD)}
    frozen = gc.get_freeze_count()
    seen: list[bool] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(gc.isenabled())
            stop.wait(0.001)

    refs, outs = _pairs(4 * MIN_CHUNK)
    # the watcher thread would make the default start method spawn: fork asked for, to check
    # the default path of a single-threaded caller too
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for workers in (1, 2):
            measure_many(KeywordCoverageMetric(), refs, outs, workers=workers, start_method=method)
            measure_many(
                KeywordCoverageMetric(),
                refs,
                outs,
                workers=workers,
                progress=True,
                start_method=method,
            )
    finally:
        stop.set()
        watcher.join()
    assert len(seen) > 10 and all(seen)
    assert gc.get_freeze_count() == frozen
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    assert _no_children()


def test_a_failing_chunk_raises_its_error_and_leaves_no_process() -> None:
    items = list(range(4 * MIN_CHUNK))
    with pytest.raises(KeyError):
        map_chunks(partial(_fail_on, 3 * MIN_CHUNK), [items], 2)
    assert _no_children()
    with pytest.raises(TypeError, match="must be a str"):
        refs, outs = _pairs(4 * MIN_CHUNK)
        measure_many(TokenF1Metric(), refs, [*outs[:-1], 3], workers=2)  # type: ignore[list-item]
    assert _no_children()


def _exit_in_worker(items: list[int]) -> list[int]:
    os._exit(3)


def test_a_dead_worker_is_a_clear_error() -> None:
    with pytest.raises(WorkerError, match="worker process died"):
        map_chunks(_exit_in_worker, [list(range(4 * MIN_CHUNK))], 2)
    assert _no_children()


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
        assert main(["score", str(path), "--metric", "token_f1", "--workers", workers]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] and printed[0].count("\n") == len(refs)
    for bad in ("-1", "0", "1.5", str(10**6)):
        assert main(["score", str(path), "--metric", "token_f1", "--workers", bad]) == 2
        assert "--workers" in capsys.readouterr().err


def test_score_frame_with_workers_gives_the_same_frame() -> None:
    pd = pytest.importorskip("pandas")
    from lexeval import score_frame

    refs, outs = _pairs(2 * MIN_CHUNK + 3)
    frame = pd.DataFrame({"reference": refs, "output": outs})
    serial = score_frame(frame, ["token_f1", "keyword_coverage"])
    pooled = score_frame(frame, ["token_f1", "keyword_coverage"], workers=2)
    pd.testing.assert_frame_equal(serial, pooled)
    with pytest.raises(ValueError, match="workers"):
        score_frame(frame, "token_f1", workers=0)


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
    with pytest.raises(ValueError, match="workers"):
        evaluate(dataset, outputs, workers=True)
    assert _no_children()


class _NumpyInfo(TokenF1Metric):
    """A metric defined outside lexeval whose info holds numpy values."""

    def _score_prepared(self, reference: str, prepared: Any) -> tuple[float, dict[str, Any]]:
        import numpy

        score, info = super()._score_prepared(reference, prepared)
        info["as_numpy"] = numpy.float64(score)
        return score, info


def test_results_of_other_types_keep_their_types() -> None:
    import numpy

    refs, outs = _pairs(2 * MIN_CHUNK + 5)
    serial = _NumpyInfo().measure_many(refs, outs)
    pooled = measure_many(_NumpyInfo(), refs, outs, workers=2)
    assert pooled == serial
    assert all(type(r.info["as_numpy"]) is numpy.float64 for r in pooled)


def test_packed_results_come_back_equal_and_of_the_same_types() -> None:
    from lexeval.metrics.base import MetricResult
    from lexeval.run.packing import pack_results, unpack_results

    refs, outs = _pairs(40)
    keyword = KeywordCoverageMetric(threshold=0.5).measure_many(refs, outs)
    token = TokenF1Metric().measure_many(refs, outs)
    for results in (keyword, token, keyword[:1] + token[:1], [], [*token[:2], "not a result"]):
        back = unpack_results(pack_results(results))
        assert back == results
        assert [type(r) for r in back] == [type(r) for r in results]
        assert [type(r.signature) for r in back if isinstance(r, MetricResult)] == [
            type(r.signature) for r in results if isinstance(r, MetricResult)
        ]
    assert type(keyword[0].signature) is not str  # a Signature: the type that must survive


def _components(columns: list[list[Any]]) -> list[set[int]]:
    """The groups of items linked by a text, found the slow way (for the test below)."""
    n = len(columns[0])
    texts = [c for c in columns if all(type(v) is str for v in c)]
    linked = {i: {j for c in texts for j in range(n) if c[j] == c[i]} for i in range(n)}
    groups: list[set[int]] = []
    for i in range(n):
        if any(i in g for g in groups):
            continue
        group, todo = set(), [i]
        while todo:
            j = todo.pop()
            if j not in group:
                group.add(j)
                todo.extend(linked[j] - group)
        groups.append(group)
    return groups


@given(
    st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from("uvwxyz")), max_size=40),
    st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_shared_text_order_puts_each_group_together_in_input_order(
    pairs: list[tuple[str, str]], with_lists: bool
) -> None:
    columns: list[list[Any]] = [[a for a, _ in pairs], [b for _, b in pairs], [None] * len(pairs)]
    if with_lists and pairs:
        columns[0][0] = [columns[0][0]]  # a column with a list of references is not linked
    order = shared_text_order(columns)
    groups = _components(columns) if pairs else []
    if all(len(g) == 1 for g in groups):
        assert order is None
        return
    assert order is not None
    expected = [i for g in sorted(groups, key=min) for i in sorted(g)]
    assert order == expected


def test_the_pool_scores_items_that_share_a_text_in_one_worker() -> None:
    # 40 groups of 25 items, interleaved: item i has the text of group i % 40
    n = 1000
    texts = [f"text {i % 40}" for i in range(n)]
    found = map_chunks(_pids_of_texts, [texts, list(range(n))], 2, min_chunk=100)
    assert [item for _, item, _ in found] == list(range(n)), "results in input order"
    where: dict[str, set[int]] = {}
    for text, _, pid in found:
        where.setdefault(text, set()).add(pid)
    assert len({pid for pids in where.values() for pid in pids}) == 2, "both workers scored"
    split = [text for text, pids in where.items() if len(pids) > 1]
    assert len(split) <= len(chunk_bounds(n, 2, 100)), "a group is split only at a chunk's end"


def _pids_of_texts(texts: list[str], items: list[int]) -> list[tuple[str, int, int]]:
    return [(text, item, os.getpid()) for text, item in zip(texts, items, strict=True)]
