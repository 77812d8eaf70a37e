"""Scoring 1,000,000 pairs on a Dask LocalCluster (2 worker processes) against one process.

The pairs are EVOUNA NQ and TQ answers with their gold alternatives (max over alternatives),
repeated in order up to ``--pairs``. After the first pass every text is in the normalizer's
cache, so both sides measure mostly warm scoring; the cluster side also pays for moving the
pairs to the workers, building the metric once per worker, and bringing the results back.
Results are compared with the serial ones (they must be identical) and so is the aggregate
(the seeded bootstrap, ``--n-boot`` resamples, batched in :mod:`lexeval.stats`, so memory
stays bounded at a million scores). The load average is printed beside each figure (the
machine is shared), and the peak memory (RSS) of this process and of each worker at the end.

Run: nice -n 10 .venv/bin/python benchmarks/speed/dask_scale.py [--pairs 1000000] [--workers 2]
     [--metric token_f1] [--n-boot 1000]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import evouna_pairs, load_average


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--metric", default="token_f1")
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args()

    import dask
    import dask.dataframe as dd
    import distributed
    import pandas as pd

    from lexeval import aggregate, get_metric
    from lexeval.run.dask import aggregate_dask, score_dask

    base_refs, base_outs = evouna_pairs(each_alternative=False)
    refs = [base_refs[i % len(base_refs)] for i in range(args.pairs)]
    outs = [base_outs[i % len(base_outs)] for i in range(args.pairs)]
    print(f"{args.pairs:,} pairs ({len(base_refs):,} EVOUNA NQ+TQ pairs repeated), {args.metric}")

    start = time.perf_counter()
    serial = get_metric(args.metric).measure_many(refs, outs)
    t_serial = time.perf_counter() - start
    print(f"one process (new):           {t_serial:7.1f} s  {args.pairs / t_serial:9,.0f} pairs/s")
    print(f"    {load_average()}")

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
            print(f"    {load_average()}")
            scores = results[column].compute().tolist()
            print(f"    scores identical to one process: {scores == [r.score for r in serial]}")
        start = time.perf_counter()
        agg = aggregate_dask(results, "again", n_boot=args.n_boot)
        t_dask_agg = time.perf_counter() - start
        start = time.perf_counter()
        same = agg == aggregate(serial, n_boot=args.n_boot)
        t_agg = time.perf_counter() - start
        print(
            f"aggregate_dask == aggregate (n_boot={args.n_boot}): {same}; mean {agg.mean:.4f} "
            f"[{agg.ci_low:.4f}, {agg.ci_high:.4f}]; aggregate_dask {t_dask_agg:.1f} s, "
            f"aggregate {t_agg:.1f} s"
        )
        workers_mb = client.run(peak_rss_mb)
        print(
            f"peak memory: this process {peak_rss_mb():,.0f} MB (the pairs, the serial results "
            f"and the gathered scores); workers "
            + ", ".join(f"{mb:,.0f} MB" for mb in workers_mb.values())
        )
        print(f"    {load_average()}")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
