"""lexeval.run.dask on a real distributed.LocalCluster with 2 worker processes: results and
aggregates equal serial scoring, each worker builds the metrics once, and a job survives a
worker killed mid-run with the same results."""

from __future__ import annotations

import functools
import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from lexeval import aggregate  # noqa: E402
from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric  # noqa: E402
from lexeval.run.dask import (  # noqa: E402
    PartitionScorer,
    aggregate_dask,
    builds_in_this_process,
    score_dask,
)

TEXT = (
    "the cat sat on a mat while neural networks learn faster than dogs running across "
    "Paris in 1999 with C++ and TCP/IP not never state-of-the-art Röntgen four 4 data"
)
WORDS = TEXT.split(" ")


def _pairs(n: int) -> pd.DataFrame:
    """Deterministic pairs of varied length, a few with several references, some empty."""
    refs: list[Any] = []
    outs: list[str] = []
    for i in range(n):
        ref = " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(3 + i % 11))
        out = " ".join(WORDS[(i * 5 + k * 2) % len(WORDS)] for k in range(i % 13))
        refs.append([ref, ref.upper(), "four cats"] if i % 9 == 0 else ref)
        outs.append(out + ("." if i % 4 == 0 else ""))
    return pd.DataFrame({"reference": refs, "output": outs})


def _metrics() -> dict[str, Any]:
    return {
        "keyword_coverage": KeywordCoverageMetric(),
        "rougeLsum": RougeMetric("rougeLsum", compat="rouge-score", use_stemmer=True),
        "rouge2": RougeMetric("rouge2"),
        "token_f1": TokenF1Metric(compat="squad", threshold=0.5),
    }


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    import multiprocessing

    import dask
    from distributed.utils import get_mp_context

    # Workers fork from a server that has imported spaCy, pandas and lexeval once (a new
    # worker, such as the one replacing a killed worker, then starts in well under a second).
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        get_mp_context()  # distributed's own preload list, extended below
        multiprocessing.get_context("forkserver").set_forkserver_preload(
            ["distributed", "numpy", "pandas", "dask.dataframe", "spacy", "lexeval.metrics"]
        )
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,
        )
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()


def _dask_frame(frame: pd.DataFrame, npartitions: int) -> Any:
    """``frame`` as a Dask DataFrame, lists of references kept as lists (dask would otherwise
    turn object columns into strings)."""
    import dask

    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(frame, npartitions=npartitions)


@functools.cache
def _serial(n: int) -> dict[str, list[Any]]:
    """Each metric's results for ``_pairs(n)``, scored serially in this process."""
    frame = _pairs(n)
    refs, outs = frame["reference"].tolist(), frame["output"].tolist()
    return {name: m.measure_many(refs, outs) for name, m in _metrics().items()}


def _check_equal(results: pd.DataFrame, serial: dict[str, list[Any]]) -> None:
    for name, expected in serial.items():
        assert results[name].tolist() == [r.score for r in expected], name
        passed = results[f"{name}.passed"].tolist()
        assert passed == [pd.NA if r.passed is None else r.passed for r in expected], name
        for field in ("overlap", "reference", "output"):
            got = results[f"{name}.{field}"].tolist()
            assert got == [r.info["counts"][field] for r in expected], (name, field)


def test_results_and_aggregates_equal_serial(client: Any) -> None:
    frame = _pairs(300)
    serial = _serial(len(frame))
    results_ddf = client.persist(score_dask(_dask_frame(frame, 6), _metrics()))
    results = results_ddf.compute()
    assert list(results.index) == list(frame.index)
    _check_equal(results, serial)
    for name, expected in serial.items():
        assert aggregate_dask(results_ddf, name, n_boot=300) == aggregate(expected, n_boot=300)


def test_each_worker_builds_the_metrics_once(client: Any) -> None:
    ddf = _dask_frame(_pairs(100), 10)
    scorer_key = PartitionScorer(_metrics()).key
    score_dask(ddf, _metrics()).compute()
    builds = client.run(builds_in_this_process)
    assert len(builds) == 2
    # every worker that scored partitions built this configuration exactly once
    counts = [b.get(scorer_key, 0) for b in builds.values()]
    assert max(counts) == 1 and sum(counts) >= 1


def _slow(frame: pd.DataFrame) -> pd.DataFrame:
    time.sleep(0.15)  # upstream work, so that the job is still running when a worker dies
    return frame


def test_a_worker_killed_mid_run_and_the_job_completes_the_same(client: Any) -> None:
    frame = _pairs(300)
    serial = _serial(len(frame))
    ddf = _dask_frame(frame, 24).map_partitions(_slow, meta=frame.iloc[:0])
    results_ddf = score_dask(ddf, _metrics()).optimize()
    scored = set(results_ddf.__dask_keys__())
    future = client.compute(results_ddf)
    pids = client.run(os.getpid)

    def finished() -> dict[str, int]:
        return {w: len(scored.intersection(keys)) for w, keys in client.has_what().items()}

    deadline = time.monotonic() + 60
    while not any(finished().values()) and time.monotonic() < deadline:
        time.sleep(0.02)  # until a worker holds scored partitions
    assert not future.done(), "the job finished before a worker could be killed"
    victim = max(finished().items(), key=lambda item: item[1])[0]
    assert finished()[victim] >= 1  # the partitions it scored are lost with it
    os.kill(pids[victim], signal.SIGKILL)
    results = future.result(timeout=60)
    _check_equal(results, serial)
    after = client.run(os.getpid)
    assert pids[victim] not in after.values()  # the killed process is gone; the job survived


def test_bag_of_pairs_and_bad_rows() -> None:
    import dask.bag as db

    bag = db.from_sequence([{"reference": "a b", "output": "a"}, ("c", "c d")], npartitions=2)
    results = score_dask(bag, TokenF1Metric(), info=True).compute(scheduler="sync")
    assert results["token_f1"].tolist() == [
        TokenF1Metric().measure("a b", "a").score,
        TokenF1Metric().measure("c", "c d").score,
    ]
    assert '"precision"' in results["token_f1.info"].iloc[0]
    bad = dd.from_pandas(pd.DataFrame({"reference": ["a", None], "output": ["a", "b"]}), 1)
    with pytest.raises(ValueError, match=r"row 1, column 'reference'"):
        score_dask(bad, "token_f1").compute(scheduler="sync")
    with pytest.raises(ValueError, match="no column 'answer'"):
        score_dask(bad, "token_f1", output="answer")
    with pytest.raises(ValueError, match="two metrics would be column 'rougeL'"):
        PartitionScorer([RougeMetric("rougeL"), RougeMetric("rougeL", compat="rouge-score")])
