"""Scoring 1,000,000 pairs on a Dask LocalCluster (2 worker processes) against one process.

The pairs are EVOUNA NQ and TQ answers with their gold alternatives (max over alternatives),
repeated in order up to ``--pairs``. After the first pass every text is in the normalizer's
cache, so both sides measure mostly warm scoring; the cluster side also pays for moving the
pairs to the workers, building the metric once per worker, and bringing the results back.
Results are compared with the serial ones (they must be identical) and so is the aggregate.
The load average is printed beside each figure: the machine is shared.

Run: .venv/bin/python benchmarks/dask_scale.py [--pairs 1000000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path

# scipy's bootstrap holds n_boot x n resampled indices at once: keep it small for 1M pairs
N_BOOT = 100
SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]


def load_pairs() -> tuple[list[list[str]], list[str]]:
    refs: list[list[str]] = []
    outs: list[str] = []
    for name in ("NQ", "TQ"):
        with open(shared_path("data", "qa_human", "evouna", f"{name}.json"), encoding="utf-8") as f:
            rows = json.load(f)
        for row in rows:
            golds = [g.strip() for g in (row["golden_answer"] or "").split("/") if g.strip()]
            for system in SYSTEMS:
                answer = row.get(f"answer_{system}")
                if golds and isinstance(answer, str):
                    refs.append(golds)
                    outs.append(answer)
    return refs, outs


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--metric", default="token_f1")
    args = parser.parse_args()

    import dask
    import dask.dataframe as dd
    import distributed
    import pandas as pd

    from lexeval import aggregate, get_metric
    from lexeval.dask import aggregate_dask, score_dask

    base_refs, base_outs = load_pairs()
    refs = [base_refs[i % len(base_refs)] for i in range(args.pairs)]
    outs = [base_outs[i % len(base_outs)] for i in range(args.pairs)]
    print(f"{args.pairs:,} pairs ({len(base_refs):,} EVOUNA NQ+TQ pairs repeated), {args.metric}")

    start = time.perf_counter()
    serial = get_metric(args.metric).measure_many(refs, outs)
    t_serial = time.perf_counter() - start
    print(f"one process (new):           {t_serial:7.1f} s  {args.pairs / t_serial:9,.0f} pairs/s")
    print(f"    {load()}")

    cluster = distributed.LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=50,
    )
    client = distributed.Client(cluster)
    try:
        frame = pd.DataFrame({"reference": refs, "output": outs})
        start = time.perf_counter()
        with dask.config.set({"dataframe.convert-string": False}):
            ddf = client.persist(dd.from_pandas(frame, npartitions=args.workers * 8))
        distributed.wait(ddf)
        print(f"pairs moved to the workers:  {time.perf_counter() - start:7.1f} s")
        for label, column in [("new workers", args.metric), ("spaCy loaded", "again")]:
            start = time.perf_counter()
            results = client.persist(score_dask(ddf, {column: get_metric(args.metric)}))
            distributed.wait(results)
            seconds = time.perf_counter() - start
            print(
                f"{args.workers} workers ({label}):  {seconds:7.1f} s  "
                f"{args.pairs / seconds:9,.0f} pairs/s  = {t_serial / seconds:.2f}x one process"
            )
            print(f"    {load()}")
            scores = results[column].compute().tolist()
            print(f"    scores identical to one process: {scores == [r.score for r in serial]}")
        agg = aggregate_dask(results, "again", n_boot=N_BOOT)
        same = agg == aggregate(serial, n_boot=N_BOOT)
        print(f"aggregate_dask == aggregate (n_boot={N_BOOT}): {same}")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
