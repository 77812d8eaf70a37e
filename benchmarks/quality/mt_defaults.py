"""BLEU, chrF, chrF++ and TER against people: sacrebleu's settings (``compat="sacrebleu"``)
against lexeval's text mode (``compat=None``: the normalizer's tokens feeding the same
statistics), on the public human sets of every task family, each setting chosen on one corpus
and confirmed on another of the same family.

Candidates per metric (few, the text layer only; smoothing, orders and beta stay sacrebleu's):

* ``compat="sacrebleu"``: the baseline, sacrebleu's defaults;
* ``compat="sacrebleu", lowercase=True``: case folding alone (not TER: it folds case already);
* ``compat=None``: ``Normalizer("tokens", lemmatize=False)`` (NFKC, case folding, punctuation
  dropped, multilingual tokens, Han and kana one unit each);
* ``compat=None, normalizer=Normalizer("tokens", lemmatize=False, split_words=True)``: the
  same with words split at every character that is not a letter, digit or mark (numbers kept
  whole), as default ROUGE splits them: ``name[The`` (E2E's meaning representations) is two
  words, where the tokens preset keeps it one technical term;
* ``compat=None, normalizer="rouge"``: that with Porter stems (``--stems``; off by default:
  it costs a row per metric, and the figures in docs/metrics.md were run without it).

Families, corpora and roles (choose = where the candidate is picked, confirm = held out):

* short answers: EVOUNA NQ (choose), EVOUNA TQ and NQ301 (human label ``Acceptable?`` of
  NQ301_human.tsv) (confirm): ROC AUC, each answer against its gold alternatives (the best
  counts), and NQ301's Cohen's kappa at the threshold calibrated on EVOUNA NQ;
* summaries: SummEval relevance, per-article Kendall tau-b over the 16 systems averaged over
  articles, each summary's score the mean over its 11 references: the one public summary
  corpus here, so a seeded half of its articles chooses and the other half confirms (as
  ``families.py --halves``); TER uses the first reference (the original highlights) only:
  its edit distance costs about 0.15 s per pair (17,600 pairs: 45 min per row);
* source support (``input=summary, output=source``): FRANK (Spearman with factuality per
  corpus, CNN/DM and XSum; ``LEXEVAL_FRANK_DIR``) chooses, SummEval consistency (tau as
  relevance) confirms. Not TER: its edit distance costs about 5 s per summary-article pair,
  and a source of at least twice its summary's words makes TER at least 100 (score 0) in all
  but a few of SummEval's pairs (the share is printed);
* prompt coverage (``input=MR, output=text``): E2E NLG quality ratings (``LEXEVAL_E2E_DIR``),
  per-MR Kendall tau-b: one corpus only, so nothing can be confirmed there.

Every figure has a 95% bootstrap interval (rows; articles for SummEval; MRs for E2E) and every
candidate its paired difference against ``compat="sacrebleu"`` with its interval. Scores are
kept per row in ``--cache DIR`` (JSON) so a run can be resumed or split with ``--rows``.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/quality/mt_defaults.py [--quick]
[--resamples N] [--cache DIR] [--rows LABEL,...] [--stems]`` (``--rows`` takes labels such as
``"TER/compat=sacrebleu,TER/compat=None"``; the commands behind docs/metrics.md's figures are
in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parent))  # families, prompt_coverage
from families import FRANK_SETS, Data
from prompt_coverage import load_e2e

from lexeval.meta import agreement, calibrate, compare, correlation
from lexeval.metrics import BleuMetric, ChrfMetric, TerMetric
from lexeval.metrics.base import BaseMetric
from lexeval.normalize import Normalizer

SEED = 20261125
RESAMPLES = 1000

Factory = Callable[[], BaseMetric]


@cache
def split_words_normalizer() -> Normalizer:
    """``compat=None``'s normalizer with words split at every character that is not a
    letter, digit or mark (numbers whole): ``name[The`` is two words, not one technical term."""
    return Normalizer("tokens", lemmatize=False, split_words=True)


def candidates(stems: bool) -> dict[str, dict[str, Factory]]:
    """Per metric, its candidate settings (the first is the baseline)."""
    out: dict[str, dict[str, Factory]] = {}
    for metric, make in (
        ("BLEU", lambda **o: BleuMetric(**o)),
        ("chrF", lambda **o: ChrfMetric(**o)),
        ("chrF++", lambda **o: ChrfMetric(word_order=2, **o)),
        ("TER", lambda **o: TerMetric(**o)),
    ):
        rows: dict[str, Factory] = {"compat=sacrebleu": lambda make=make: make()}
        if metric != "TER":
            rows["sacrebleu, lowercase"] = lambda make=make: make(lowercase=True)
        rows["compat=None"] = lambda make=make: make(compat=None)
        rows["compat=None, split words"] = lambda make=make: make(
            compat=None, normalizer=split_words_normalizer()
        )
        if stems:
            rows["compat=None, stems"] = lambda make=make: make(compat=None, normalizer="rouge")
        out[metric] = rows
    return out


class Corpora(Data):
    """families.py's sets, E2E, and the develop/confirm halves of SummEval's articles."""

    def __init__(self, quick: bool) -> None:
        super().__init__(quick)
        docs = sorted(set(self.docs))
        random.Random(SEED).shuffle(docs)
        develop = set(docs[: len(docs) // 2])
        self.halves = {
            "develop": [i for i, d in enumerate(self.docs) if d in develop],
            "confirm": [i for i, d in enumerate(self.docs) if d not in develop],
        }
        e2e = load_e2e()
        if e2e is not None and quick:
            keep = set(random.Random(SEED).sample(sorted(set(e2e[3])), 100))
            rows = [k for k, g in enumerate(e2e[3]) if g in keep]
            e2e = tuple([part[k] for k in rows] for part in e2e)  # type: ignore[assignment]
        self.e2e = e2e


def score_row(metric_name: str, factory: Factory, data: Corpora) -> dict[str, list[float] | None]:
    """Every item's score per corpus (None where the row is not measured)."""
    metric = factory()
    out: dict[str, list[float] | None] = {}
    for name, items in data.qa.items():
        out[name] = [
            r.score
            for r in metric.measure_many([i.golds for i in items], [i.answer for i in items])
        ]
    ter = metric_name == "TER"
    relevance = []
    for row in data.summaries:
        refs = row["references"][:1] if ter else row["references"]
        relevance.append(sum(metric.measure(ref, row["decoded"]).score for ref in refs) / len(refs))
    out["relevance"] = relevance
    if ter:
        out["consistency"] = out["FRANK"] = None
    else:
        out["consistency"] = [
            metric.measure(r["decoded"], r["source"]).score for r in data.summaries
        ]
        out["FRANK"] = (
            None
            if data.frank is None
            else [metric.measure(i.summary, i.article).score for i in data.frank]
        )
    if data.e2e is not None:
        mrs, outputs = data.e2e[0], data.e2e[1]
        out["E2E"] = [r.score for r in metric.measure_many(list(mrs), list(outputs))]
    return out


def cell(value: float, interval: tuple[float, float], signed: bool = False) -> str:
    f = "+.3f" if signed else ".3f"
    return f"{value:{f}} [{interval[0]:{f}}, {interval[1]:{f}}]".replace("0.", ".")


#: (column key, header, family, role)
COLUMNS = (
    ("EVOUNA NQ", "EVOUNA NQ AUC", "short answers", "choose"),
    ("EVOUNA TQ", "EVOUNA TQ AUC", "short answers", "confirm"),
    ("NQ301", "NQ301 AUC", "short answers", "confirm"),
    ("NQ301 kappa", "NQ301 kappa", "short answers", "confirm"),
    ("rel develop", "SummEval rel tau, develop half", "summaries", "choose"),
    ("rel confirm", "SummEval rel tau, confirm half", "summaries", "confirm"),
    ("rel all", "SummEval rel tau, all", "summaries", "whole set"),
    ("FRANK cnndm", "FRANK CNN/DM rho", "source support", "choose"),
    ("FRANK bbc", "FRANK XSum rho", "source support", "choose"),
    ("consistency", "SummEval con tau", "source support", "confirm"),
    ("E2E", "E2E tau", "prompt coverage", "one corpus"),
)


def _summeval(values: list[float], human: list[float], docs: list[str], rows: list[int]) -> Any:
    return correlation(
        [values[i] for i in rows],
        [human[i] for i in rows],
        groups=[docs[i] for i in rows],
        level="summary",
        n_resamples=RESAMPLES,
        seed=SEED,
    )


def _summeval_diff(
    a: list[float], b: list[float], human: list[float], docs: list[str], rows: list[int]
) -> Any:
    return compare(
        [a[i] for i in rows],
        [b[i] for i in rows],
        [human[i] for i in rows],
        statistic="correlation",
        groups=[docs[i] for i in rows],
        level="summary",
        n_resamples=RESAMPLES,
        seed=SEED,
    )


def figures(
    scores: dict[str, list[float] | None],
    base: dict[str, list[float] | None] | None,
    data: Corpora,
) -> dict[str, tuple[str, str]]:
    """Per column: (figure with interval, paired difference against ``base`` or "")."""
    out: dict[str, tuple[str, str]] = {}
    human = {name: [i.human for i in items] for name, items in data.qa.items()}
    nq = scores["EVOUNA NQ"]
    assert nq is not None
    threshold = calibrate(nq, human["EVOUNA NQ"]).value
    for name in data.qa:
        values = scores[name]
        assert values is not None
        a = agreement(values, human[name], threshold=threshold, n_resamples=RESAMPLES, seed=SEED)
        diff = ""
        if base is not None:
            d = compare(values, base[name], human[name], n_resamples=RESAMPLES, seed=SEED)  # type: ignore[arg-type]
            diff = cell(d.difference, d.interval, signed=True)
        out[name] = (cell(a.auc, a.intervals["auc"]), diff)
        if name == "NQ301":
            out["NQ301 kappa"] = (cell(a.kappa, a.intervals["kappa"]) + f" @{threshold:.3f}", "")
    all_rows = list(range(len(data.docs)))
    parts = {"rel develop": data.halves["develop"], "rel confirm": data.halves["confirm"]}
    parts["rel all"] = all_rows
    for column, rows in parts.items():
        values = scores["relevance"]
        assert values is not None
        c = _summeval(values, data.relevance, data.docs, rows)
        diff = ""
        if base is not None:
            d = _summeval_diff(values, base["relevance"], data.relevance, data.docs, rows)  # type: ignore[arg-type]
            diff = cell(d.difference, d.interval, signed=True)
        out[column] = (cell(c.value, c.interval), diff)
    values = scores.get("consistency")
    if values is not None:
        c = _summeval(values, data.consistency, data.docs, all_rows)
        diff = ""
        if base is not None and base.get("consistency") is not None:
            d = _summeval_diff(values, base["consistency"], data.consistency, data.docs, all_rows)  # type: ignore[arg-type]
            diff = cell(d.difference, d.interval, signed=True)
        out["consistency"] = (cell(c.value, c.interval), diff)
    frank = scores.get("FRANK")
    if frank is not None and data.frank is not None:
        for dataset in FRANK_SETS:
            rows = [k for k, item in enumerate(data.frank) if item.dataset == dataset]
            y = [data.frank[k].factuality for k in rows]
            x = [frank[k] for k in rows]
            c = correlation(x, y, method="spearman", n_resamples=RESAMPLES, seed=SEED)
            diff = ""
            if base is not None and base.get("FRANK") is not None:
                z = [base["FRANK"][k] for k in rows]  # type: ignore[index]
                d = compare(
                    x,
                    z,
                    y,
                    statistic="correlation",
                    method="spearman",
                    n_resamples=RESAMPLES,
                    seed=SEED,
                )
                diff = cell(d.difference, d.interval, signed=True)
            out[f"FRANK {dataset}"] = (cell(c.value, c.interval), diff)
    e2e = scores.get("E2E")
    if e2e is not None and data.e2e is not None:
        y, groups = list(data.e2e[2]), list(data.e2e[3])
        c = correlation(e2e, y, groups=groups, level="summary", n_resamples=RESAMPLES, seed=SEED)
        diff = ""
        if base is not None and base.get("E2E") is not None:
            d = compare(
                e2e,
                base["E2E"],  # type: ignore[arg-type]
                y,
                statistic="correlation",
                groups=groups,
                level="summary",
                n_resamples=RESAMPLES,
                seed=SEED,
            )
            diff = cell(d.difference, d.interval, signed=True)
        out["E2E"] = (cell(c.value, c.interval), diff)
    return out


def ter_zero_share(data: Corpora) -> str:
    """How many source-support pairs have a source of at least twice its summary's words
    (white-space words): TER >= 100 there, whatever the tokens."""
    pairs = [(r["decoded"], r["source"]) for r in data.summaries]
    if data.frank is not None:
        pairs += [(i.summary, i.article) for i in data.frank]
    long = sum(len(out.split()) >= 2 * len(ref.split()) for ref, out in pairs)
    return f"{long} of {len(pairs)} summary-source pairs have a source >= 2x the summary's words"


def main() -> None:
    global RESAMPLES
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a seeded sample, for development")
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--cache", type=Path, help="a directory keeping each row's scores")
    parser.add_argument("--rows", help="comma-separated METRIC/SETTING labels (default: all)")
    parser.add_argument("--stems", action="store_true", help="add the stemming candidate")
    args = parser.parse_args()
    RESAMPLES = args.resamples
    start = time.perf_counter()
    data = Corpora(args.quick)
    wanted = None if not args.rows else {r.strip() for r in args.rows.split(",")}
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    for metric_name, rows in candidates(args.stems).items():
        scored: dict[str, dict[str, list[float] | None]] = {}
        for setting, factory in rows.items():
            label = f"{metric_name}/{setting}"
            if wanted is not None and label not in wanted:
                continue
            path = None
            if args.cache is not None:
                quick = "quick-" if args.quick else ""
                safe = label.replace("/", "_").replace(" ", "").replace(",", "_")
                path = args.cache / f"{quick}{safe.replace('+', 'p').replace('=', '-')}.json"
            if path is not None and path.exists():
                scored[setting] = json.loads(path.read_text(encoding="utf-8"))
                continue
            t = time.process_time()
            scored[setting] = score_row(metric_name, factory, data)
            print(f"scored {label} in {time.process_time() - t:.0f}s CPU", file=sys.stderr)
            if path is not None:
                path.write_text(json.dumps(scored[setting]), encoding="utf-8")
        if not scored:
            continue
        base = scored.get("compat=sacrebleu")
        print(f"\n## {metric_name}\n")
        print("| setting | " + " | ".join(f"{h} ({role})" for _, h, _, role in COLUMNS) + " |")
        print("|---" * (len(COLUMNS) + 1) + "|")
        diffs: list[str] = []
        for setting, scores in scored.items():
            f = figures(scores, None if setting == "compat=sacrebleu" else base, data)
            print(
                f"| {setting} | "
                + " | ".join(f[c][0] if c in f else "n/a" for c, *_ in COLUMNS)
                + " |",
                flush=True,
            )
            if setting != "compat=sacrebleu" and base is not None:
                diffs.append(
                    f"| {setting} − sacrebleu | "
                    + " | ".join(f[c][1] if c in f and f[c][1] else "" for c, *_ in COLUMNS)
                    + " |"
                )
        if diffs:
            print("\npaired difference against compat=sacrebleu [95% interval]:\n")
            print("| setting | " + " | ".join(h for _, h, _, _ in COLUMNS) + " |")
            print("|---" * (len(COLUMNS) + 1) + "|")
            print("\n".join(diffs), flush=True)
    n_qa = ", ".join(f"{k} {len(v)}" for k, v in data.qa.items())
    n_frank = "absent" if data.frank is None else f"{len(data.frank)} summaries"
    n_e2e = "absent" if data.e2e is None else f"{len(data.e2e[1])} outputs"
    print(
        f"\nn: {n_qa}; SummEval {len(set(data.docs))} articles ({len(data.docs)} summaries; "
        f"halves {len(data.halves['develop'])}/{len(data.halves['confirm'])} summaries); "
        f"FRANK {n_frank}; E2E {n_e2e}"
    )
    print(f"TER on source support not measured: {ter_zero_share(data)}")
    print(
        f"{RESAMPLES} resamples, seed {SEED}; {time.perf_counter() - start:.0f} s, "
        f"load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
