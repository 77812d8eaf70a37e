"""Every lexical metric on every public human set, by task family: one table.

Rows: keyword coverage's default (``task`` chosen from the input), each task profile, Mastra's
mode (``compat="mastra"``), SQuAD token-F1, ROUGE-1, ROUGE-L, BLEU and chrF++ (sacrebleu's
sentence-level defaults) and ``lexical_correctness``.
Columns, by family:

- short answers: EVOUNA NQ (the tuning set: AUC), EVOUNA TQ (AUC), NQ301 against the human
  label (AUC, and Cohen's kappa at the threshold calibrated on EVOUNA NQ); each answer scored
  against its gold alternatives (the best counts), without its question;
- summaries: SummEval relevance, per-document Kendall tau-b (16 systems per article, averaged
  over the 100 articles), each summary's score the mean over its 11 references;
- source support: SummEval consistency, the same statistic, with ``input=summary`` and
  ``output=source article`` (the summary's keywords found in its source); and FRANK (2,246
  CNN/DM and XSum summaries, people's ``Factuality``; MIT; not in ../shared: see
  ``benchmarks/_frank.py`` and ``LEXEVAL_FRANK_DIR``), Spearman over the summaries of each
  of its two corpora (its paper's statistic; pooled, the gap between CNN/DM's mostly faithful
  and XSum's mostly unfaithful summaries would inflate it), skipped when absent.

Each figure has a 95% bootstrap interval (rows; articles for SummEval) and, below the table,
each row's paired difference against Mastra's mode with its interval. A cell is ``n/a`` when
the metric refuses the input (``lexical_correctness`` is a short-answer judge: it refuses
references longer than its limit) or the row does not exist in the tree measured.

``--halves`` prints, for the summary and source-support families, a grid of keyword settings
on a develop half of the articles and on the other half (how the profiles were chosen).
``--quick`` scores a seeded sample (1,000 answers per QA set, 30 articles) for development.
``--source`` prints, for source support, a grid of keyword settings on FRANK (where the
``source_support`` profile is chosen) beside SummEval consistency (where it is confirmed), with
intervals, and the share of each corpus's pairs the auto rule sends to ``source_support``
(and of SummEval's reference-summary pairs, which it should not).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/quality/families.py [--quick] [--halves]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _frank import FrankItem, load_frank
from _qa import QAItem, load_evouna, load_nq301
from _summeval import load

from lexeval.meta import agreement, calibrate, compare, correlation
from lexeval.metrics import (
    BleuMetric,
    ChrfMetric,
    KeywordCoverageMetric,
    RougeMetric,
    TokenF1Metric,
)

#: The seed of ``--quick``'s samples and of ``--halves``' split of the articles.
SEED = 20261125
QUICK_QA = 1000
QUICK_DOCS = 30
RESAMPLES = 1000

Scorer = Callable[[list[str], str, str | None], float]


def keyword(**options: Any) -> Callable[[], Scorer]:
    def build() -> Scorer:
        metric = KeywordCoverageMetric(**options)
        return lambda refs, out, question: metric.measure(refs, out).score

    return build


def other(factory: Callable[[], Any], asked: bool = False) -> Callable[[], Scorer]:
    def build() -> Scorer:
        metric = factory()
        if asked:
            return lambda refs, out, question: metric.measure(refs, out, question=question).score
        return lambda refs, out, question: metric.measure(refs, out).score

    return build


def squad_f1() -> TokenF1Metric:
    """SQuAD's token-F1 (``compat="squad"``; ``variant="squad"`` in earlier trees)."""
    try:
        return TokenF1Metric(compat="squad")  # type: ignore[call-arg,unused-ignore]
    except TypeError:
        return TokenF1Metric(variant="squad")


def lexical_correctness() -> Scorer:
    from lexeval.metrics.correctness import LexicalCorrectnessMetric

    metric = LexicalCorrectnessMetric()

    return lambda refs, out, question: metric.measure(refs, out, question=question).score


TASKS = ("short_answer", "summary", "source_support", "long_answer", "prompt")
MASTRA = "keyword compat=mastra"
ROWS: dict[str, Callable[[], Scorer]] = {
    "keyword default": keyword(),
    **{f"keyword task={t}": keyword(task=t) for t in TASKS},
    MASTRA: keyword(compat="mastra"),
    "token-F1 (squad)": other(squad_f1),
    "ROUGE-1": other(lambda: RougeMetric("rouge1")),
    "ROUGE-L": other(lambda: RougeMetric("rougeL")),
    "BLEU (sacrebleu)": other(BleuMetric),
    "chrF++ (sacrebleu)": other(lambda: ChrfMetric(word_order=2)),
    "lexical_correctness": lexical_correctness,
}


class Data:
    """The public sets (sampled with ``quick``)."""

    def __init__(self, quick: bool) -> None:
        rng = random.Random(SEED)
        self.qa: dict[str, list[QAItem]] = {
            "EVOUNA NQ": load_evouna("NQ"),
            "EVOUNA TQ": load_evouna("TQ"),
            "NQ301": load_nq301(),
        }
        summeval = load()
        docs = sorted(set(summeval.docs))
        if quick:
            self.qa = {k: rng.sample(v, min(QUICK_QA, len(v))) for k, v in self.qa.items()}
            docs = sorted(rng.sample(docs, QUICK_DOCS))
        keep = set(docs)
        rows = [i for i, d in enumerate(summeval.docs) if d in keep]
        self.summaries = [summeval.rows[i] for i in rows]
        self.docs = [summeval.docs[i] for i in rows]
        self.relevance = [summeval.human["relevance"][i] for i in rows]
        self.consistency = [summeval.human["consistency"][i] for i in rows]
        frank = load_frank()
        if frank is not None and quick:
            frank = rng.sample(frank, min(QUICK_QA, len(frank)))
        self.frank: list[FrankItem] | None = frank


def score_all(build: Callable[[], Scorer], data: Data) -> dict[str, list[float] | None]:
    """Per column, every item's score (None when the metric refuses the column's inputs)."""
    out: dict[str, list[float] | None] = {}
    for name, items in data.qa.items():
        scorer = build()
        out[name] = [scorer(item.golds, item.answer, item.question or None) for item in items]
    scorer = build()
    try:
        out["relevance"] = [
            sum(scorer([ref], row["decoded"], None) for ref in row["references"])
            / len(row["references"])
            for row in data.summaries
        ]
    except ValueError as error:
        print(f"  relevance refused: {error}", file=sys.stderr)
        out["relevance"] = None
    scorer = build()
    try:
        out["consistency"] = [
            scorer([row["decoded"]], row["source"], None) for row in data.summaries
        ]
    except ValueError as error:
        print(f"  consistency refused: {error}", file=sys.stderr)
        out["consistency"] = None
    if data.frank is not None:
        scorer = build()
        try:
            out["FRANK"] = [scorer([item.summary], item.article, None) for item in data.frank]
        except ValueError as error:
            print(f"  FRANK refused: {error}", file=sys.stderr)
            out["FRANK"] = None
    return out


def cell(value: float, interval: tuple[float, float]) -> str:
    return f"{value:.3f} [{interval[0]:.3f},{interval[1]:.3f}]"


def figures(scores: dict[str, list[float] | None], data: Data) -> dict[str, tuple[Any, ...]]:
    """Per column: (value, interval) and for NQ301 the kappa at the EVOUNA NQ threshold."""
    out: dict[str, tuple[Any, ...]] = {}
    y = {name: [item.human for item in items] for name, items in data.qa.items()}
    nq = scores["EVOUNA NQ"]
    assert nq is not None
    threshold = calibrate(nq, y["EVOUNA NQ"]).value
    for name in data.qa:
        values = scores[name]
        assert values is not None
        a = agreement(values, y[name], threshold=threshold, n_resamples=RESAMPLES)
        out[name] = (a.auc, a.intervals["auc"])
        if name == "NQ301":
            out["NQ301 kappa"] = (a.kappa, a.intervals["kappa"], threshold)
    for column, human in (("relevance", data.relevance), ("consistency", data.consistency)):
        values = scores[column]
        if values is None:
            continue
        c = correlation(
            values, human, groups=data.docs, level="summary", n_resamples=RESAMPLES, seed=SEED
        )
        out[column] = (c.value, c.interval)
    frank = scores.get("FRANK")
    if data.frank is not None and frank is not None:
        for name in FRANK_SETS:
            f = frank_correlation(frank, data.frank, name)
            out[f"FRANK {name}"] = (f.value, f.interval)
    return out


#: FRANK's two corpora (its ``dataset`` field) and their names in the tables.
FRANK_SETS = {"cnndm": "CNN/DM", "bbc": "XSum"}


def frank_correlation(values: list[float], items: list[FrankItem], dataset: str) -> Any:
    """Spearman of ``values`` with FRANK's factuality over the summaries of one of its corpora
    (bootstrap: rows)."""
    rows = [k for k, item in enumerate(items) if item.dataset == dataset]
    return correlation(
        [values[k] for k in rows],
        [items[k].factuality for k in rows],
        method="spearman",
        n_resamples=RESAMPLES,
        seed=SEED,
    )


COLUMNS = (
    ("EVOUNA NQ", "NQ AUC (tune)"),
    ("EVOUNA TQ", "TQ AUC"),
    ("NQ301", "NQ301 AUC"),
    ("NQ301 kappa", "NQ301 kappa"),
    ("relevance", "SummEval rel tau"),
    ("consistency", "SummEval con tau"),
    ("FRANK cnndm", "FRANK CNN/DM rho"),
    ("FRANK bbc", "FRANK XSum rho"),
)


def differences(
    a: dict[str, list[float] | None], b: dict[str, list[float] | None], data: Data
) -> list[str]:
    """``a - b`` per column: AUC (QA), per-document tau (SummEval), with intervals."""
    out: list[str] = []
    for name, items in data.qa.items():
        x, z = a[name], b[name]
        if x is None or z is None:
            out.append("n/a")
            continue
        c = compare(x, z, [item.human for item in items], n_resamples=RESAMPLES)
        out.append(f"{c.difference:+.3f} [{c.interval[0]:+.3f},{c.interval[1]:+.3f}]")
    for column, human in (("relevance", data.relevance), ("consistency", data.consistency)):
        x, z = a[column], b[column]
        if x is None or z is None:
            out.append("n/a")
            continue
        c = compare(
            x,
            z,
            human,
            statistic="correlation",
            groups=data.docs,
            level="summary",
            n_resamples=RESAMPLES,
            seed=SEED,
        )
        out.append(f"{c.difference:+.3f} [{c.interval[0]:+.3f},{c.interval[1]:+.3f}]")
    x, z = a.get("FRANK"), b.get("FRANK")
    if data.frank is not None and x is not None and z is not None:
        for name in FRANK_SETS:
            rows = [k for k, item in enumerate(data.frank) if item.dataset == name]
            c = compare(
                [x[k] for k in rows],
                [z[k] for k in rows],
                [data.frank[k].factuality for k in rows],
                statistic="correlation",
                method="spearman",
                n_resamples=RESAMPLES,
                seed=SEED,
            )
            out.append(f"{c.difference:+.3f} [{c.interval[0]:+.3f},{c.interval[1]:+.3f}]")
    return out


def table(data: Data, rows: dict[str, Callable[[], Scorer]], cache: Path | None = None) -> None:
    """Score every row (or read its scores from ``cache``, a directory, when there) and print
    the table and the paired differences."""
    scored: dict[str, dict[str, list[float] | None]] = {}
    for label, build in rows.items():
        path = None if cache is None else cache / f"{label.replace(' ', '_')}.json"
        if path is not None and path.exists():
            scored[label] = json.loads(path.read_text(encoding="utf-8"))
            continue
        start = time.process_time()
        try:
            scored[label] = score_all(build, data)
        except TypeError as error:  # a row this tree does not have (an earlier commit)
            print(f"{label}: n/a ({error})", file=sys.stderr)
            continue
        print(f"scored {label} in {time.process_time() - start:.0f}s CPU", file=sys.stderr)
        if path is not None:
            path.write_text(json.dumps(scored[label]), encoding="utf-8")
    width = 26
    print(f"{'':{width}s}" + "".join(f"{h:>24s}" for _, h in COLUMNS))
    for label, scores in scored.items():
        f = figures(scores, data)
        cells = [cell(*f[c][:2]) if c in f else "n/a" for c, _ in COLUMNS]
        print(f"{label:{width}s}" + "".join(f"{c:>24s}" for c in cells))
    if MASTRA in scored:
        print(f"\nPaired difference against {MASTRA} (AUC on QA, tau on SummEval):")
        print(f"{'':{width}s}" + "".join(f"{h:>24s}" for _, h in COLUMNS if h != "NQ301 kappa"))
        for label, scores in scored.items():
            if label == MASTRA:
                continue
            cells = differences(scores, scored[MASTRA], data)
            print(f"{label:{width}s}" + "".join(f"{c:>24s}" for c in cells))
    n_qa = ", ".join(f"{k} {len(v)}" for k, v in data.qa.items())
    n_frank = "absent" if data.frank is None else f"{len(data.frank)} summaries"
    print(
        f"\nn: {n_qa}; SummEval {len(set(data.docs))} articles, {len(data.docs)} summaries; "
        f"FRANK {n_frank}"
    )
    print("families: short answers (EVOUNA NQ tune, TQ, NQ301), summaries (SummEval relevance),")
    print("source support (SummEval consistency, FRANK), prompts (no public set here)")


#: The grid of ``--halves`` (every combination).
GRID = {
    "weighting": ("frequency", "uniform"),
    "extra_penalty": (0.0, 0.05, 0.2),
    "near_credit": (0.0, 0.5),
    "conflict_penalty": (0.0, 1.0),
}


def halves(data: Data) -> None:
    """The keyword grid on a develop half of the articles, then on the other half."""
    docs = sorted(set(data.docs))
    random.Random(SEED).shuffle(docs)
    develop = set(docs[: len(docs) // 2])
    parts = {
        "develop": [i for i, d in enumerate(data.docs) if d in develop],
        "confirm": [i for i, d in enumerate(data.docs) if d not in develop],
    }
    data.qa = {}
    data.frank = None
    keys = list(GRID)
    print(f"{'setting':60s} rel dev  rel conf  con dev  con conf")
    for combo in itertools.product(*GRID.values()):
        options = dict(zip(keys, combo, strict=True))
        scores = score_all(keyword(**options), data)
        cells = []
        for column, human in (("relevance", data.relevance), ("consistency", data.consistency)):
            values = scores[column]
            assert values is not None
            for rows in parts.values():
                c = correlation(
                    [values[i] for i in rows],
                    [human[i] for i in rows],
                    groups=[data.docs[i] for i in rows],
                    level="summary",
                    n_resamples=1,
                )
                cells.append(f"{c.value:8.3f}")
        print(f"{options!s:60s}" + " ".join(cells), flush=True)


def _rule_before(reference_keywords: int, output_keywords: int) -> str:
    """The auto rule before issue 42 (short answers first, then a source at 4x)."""
    if reference_keywords <= 8:
        return "short_answer"
    return "source_support" if output_keywords >= 4 * reference_keywords else "summary"


def before_after(data: Data) -> None:
    """The default (auto rule) against the rule before, on each source-support corpus: the
    same scores as the profile each rule picks (paired difference, interval)."""
    assert data.frank is not None
    default = KeywordCoverageMetric()
    profiles = {t: KeywordCoverageMetric(task=t) for t in TASKS}  # type: ignore[arg-type]

    def both(ref: str, out: str) -> tuple[float, float]:
        r = default.measure(ref, out)
        task = _rule_before(len(r.info["input_keywords"]), len(r.info["output_keywords"]))
        return r.score, profiles[task].measure(ref, out).score

    for name, label in FRANK_SETS.items():
        items = [i for i in data.frank if i.dataset == name]
        pairs = [both(i.summary, i.article) for i in items]
        human = [i.factuality for i in items]
        now = correlation([p[0] for p in pairs], human, method="spearman", n_resamples=1)
        d = compare(
            [p[0] for p in pairs],
            [p[1] for p in pairs],
            human,
            statistic="correlation",
            method="spearman",
            n_resamples=RESAMPLES,
            seed=SEED,
        )
        print(
            f"default on FRANK {label}: {now.value:.3f}, minus the rule before "
            f"{d.difference:+.3f} [{d.interval[0]:+.3f},{d.interval[1]:+.3f}]"
        )
    pairs = [both(r["decoded"], r["source"]) for r in data.summaries]
    d = compare(
        [p[0] for p in pairs],
        [p[1] for p in pairs],
        data.consistency,
        statistic="correlation",
        groups=data.docs,
        level="summary",
        n_resamples=RESAMPLES,
        seed=SEED,
    )
    print(
        f"default on SummEval consistency: minus the rule before "
        f"{d.difference:+.3f} [{d.interval[0]:+.3f},{d.interval[1]:+.3f}]"
    )


def source_grid(data: Data) -> None:
    """Source support: the keyword grid on FRANK (choose) and SummEval consistency (confirm),
    with intervals, and where the auto rule sends each corpus's pairs."""
    if data.frank is None:
        return
    data.qa = {}
    print(
        f"{'setting':60s} {'FRANK CNN/DM rho (choose)':>26s} {'FRANK XSum rho':>22s}"
        f" {'SummEval con tau (confirm)':>28s}"
    )
    rows: list[tuple[str, dict[str, Any]]] = [
        (f"task={t}", {"task": t}) for t in ("source_support", "short_answer", "long_answer")
    ]
    rows.append(("compat=mastra", {"compat": "mastra"}))
    keys = list(GRID)
    rows += [
        (str(dict(zip(keys, combo, strict=True))), dict(zip(keys, combo, strict=True)))
        for combo in itertools.product(*GRID.values())
    ]
    for label, options in rows:
        metric = KeywordCoverageMetric(**options)
        frank = [metric.measure(i.summary, i.article).score for i in data.frank]
        con = [metric.measure(r["decoded"], r["source"]).score for r in data.summaries]
        f = [frank_correlation(frank, data.frank, name) for name in FRANK_SETS]
        c = correlation(
            con,
            data.consistency,
            groups=data.docs,
            level="summary",
            n_resamples=RESAMPLES,
            seed=SEED,
        )
        print(
            f"{label:60s} {cell(f[0].value, f[0].interval):>26s}"
            f" {cell(f[1].value, f[1].interval):>22s} {cell(c.value, c.interval):>28s}",
            flush=True,
        )
    before_after(data)
    auto = KeywordCoverageMetric()
    shares = {
        "FRANK (summary, article)": [
            auto.measure(i.summary, i.article).info["task"] for i in data.frank
        ],
        "SummEval (summary, article)": [
            auto.measure(r["decoded"], r["source"]).info["task"] for r in data.summaries
        ],
        "SummEval (reference, summary)": [
            auto.measure(ref, r["decoded"]).info["task"]
            for r in data.summaries
            for ref in r["references"]
        ],
    }
    for name, tasks in shares.items():
        share = sum(t == "source_support" for t in tasks) / len(tasks)
        print(f"auto rule: {name}: {share:.1%} of {len(tasks)} pairs to source_support")


def main() -> None:
    global RESAMPLES
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a seeded sample, for development")
    parser.add_argument("--halves", action="store_true", help="the keyword grid on SummEval")
    parser.add_argument("--source", action="store_true", help="source support: FRANK, SummEval")
    parser.add_argument("--rows", help="comma-separated row labels to score (default: all)")
    parser.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap resamples")
    parser.add_argument("--cache", type=Path, help="a directory keeping each row's scores")
    args = parser.parse_args()
    RESAMPLES = args.resamples
    data = Data(args.quick)
    if args.halves:
        halves(data)
        return
    if args.source:
        source_grid(data)
        return
    rows = ROWS
    if args.rows:
        wanted = [r.strip() for r in args.rows.split(",")]
        rows = {k: v for k, v in ROWS.items() if k in wanted}
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    table(data, rows, args.cache)


if __name__ == "__main__":
    main()
