"""Default keyword coverage as a pass/fail judge: threshold calibrated on EVOUNA NQ, applied
unchanged to the held-out EVOUNA TQ and NQ301 (human label: ``Acceptable?`` of NQ301_human.tsv).

For each configuration: ROC AUC and Cohen's kappa with bootstrap intervals (lexeval.meta), the
threshold that maximises kappa on NQ (the recommended pass threshold), and on every set
``compare`` of the default against the earlier defaults (``conflict_penalty=0``; and plain
weighted coverage, ``extra_penalty=0, near_credit=0, conflict_penalty=0``) and against
``weighting="uniform"``. Each answer is scored against its gold alternatives (the best one
counts). The configuration ``question`` is the default scored with each answer's question
(``measure(..., question=)``), compared with the default scored without it.

``--halves`` is the development protocol: EVOUNA NQ's questions split in two halves with a fixed
seed (``split_questions``); a rule is developed on the first half ("develop"), its threshold
calibrated there, and it becomes a default only when it wins on the second half ("confirm"),
``compare``'s interval above zero. Nothing else is scored.

``--base REV`` compares this tree's default with the default of an earlier commit ``REV``
(imported beside it as ``lexeval_ab``, as ``keyword_ab.py`` does): each threshold calibrated on
EVOUNA NQ, ``compare`` of AUC and kappa on every set (on EVOUNA NQ's halves with ``--halves``).

Run: ``.venv/bin/python benchmarks/quality/keyword_defaults.py`` (add ``--tuning-only`` to score
EVOUNA NQ alone, or ``--halves`` for the develop/confirm split; the held-out sets are for the final
check).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "speed"))
from _qa import QAItem, load_evouna, load_nq301
from normalize_ab import import_revision

from lexeval.meta import agreement, calibrate, compare
from lexeval.metrics import KeywordCoverageMetric

CONFIGS: dict[str, dict[str, Any]] = {
    "plain": {"extra_penalty": 0.0, "near_credit": 0.0, "conflict_penalty": 0.0},
    "previous": {"conflict_penalty": 0.0},
    "uniform": {"weighting": "uniform"},
    "default": {},
    "question": {},
}
DEFAULT = "default"
#: Configurations scored with each answer's question (``measure(..., question=)``: reference
#: keywords that the question names weigh ``question_weight``); the others without it.
WITH_QUESTION = frozenset({"question"})
#: The seed of the develop/confirm split of EVOUNA NQ's questions (``--halves``).
SPLIT_SEED = 20261123


def split_questions(items: list[QAItem], seed: int = SPLIT_SEED) -> tuple[list[int], list[int]]:
    """Rows of the two halves of ``items``' distinct questions, shuffled with ``seed``: every
    answer to a question falls in the same half (develop, confirm)."""
    questions = sorted({item.question for item in items})
    random.Random(seed).shuffle(questions)
    develop = set(questions[: len(questions) // 2])
    first = [i for i, item in enumerate(items) if item.question in develop]
    second = [i for i, item in enumerate(items) if item.question not in develop]
    return first, second


def halves(configs: dict[str, dict[str, Any]]) -> None:
    """Each configuration on the develop half (threshold calibrated there) and on the confirm
    half at that threshold; the default against each other configuration on the confirm half."""
    items = load_evouna("NQ")
    develop, confirm = split_questions(items)
    human = [item.human for item in items]
    y_dev, y_conf = [human[i] for i in develop], [human[i] for i in confirm]
    scored = {
        config: scores(options, items, asked=config in WITH_QUESTION)
        for config, options in configs.items()
    }
    tuned: dict[str, float] = {}
    for config, values in scored.items():
        dev = [values[i] for i in develop]
        tuned[config] = calibrate(dev, y_dev).value
        conf = [values[i] for i in confirm]
        print(f"{config:10s} develop {agreement(dev, y_dev, threshold=tuned[config])}")
        print(f"{'':10s} confirm {agreement(conf, y_conf, threshold=tuned[config])}")
    default = [scored[DEFAULT][i] for i in confirm]
    for config in configs:
        if config == DEFAULT:
            continue
        other = [scored[config][i] for i in confirm]
        a, b, first, second = default, other, DEFAULT, config
        if config in WITH_QUESTION:  # the question's effect: with it minus without it
            a, b, first, second = other, default, config, DEFAULT
        print(f"confirm {first} - {second}: {compare(a, b, y_conf)}")
        kappa = compare(
            a,
            b,
            y_conf,
            statistic="kappa",
            threshold_a=tuned[first],
            threshold_b=tuned[second],
        )
        print(f"confirm {first} - {second}: {kappa}")


def scores(
    options: dict[str, Any],
    items: list[QAItem],
    metric_class: Any = KeywordCoverageMetric,
    *,
    asked: bool = False,
) -> list[float]:
    """Each answer's score against its gold alternatives (with its question when ``asked``;
    without, the call an earlier revision's class takes: ``--base``)."""
    metric = metric_class(**options)
    if asked:
        return [
            metric.measure(item.golds, item.answer, question=item.question).score for item in items
        ]
    return [metric.measure(item.golds, item.answer).score for item in items]


def against_base(revision: str, sets: dict[str, list[QAItem]], split: bool) -> None:
    """This tree's default against ``revision``'s default: thresholds calibrated on EVOUNA NQ
    (on its develop half when ``split``), ``compare`` on each set (on the confirm half)."""
    with tempfile.TemporaryDirectory() as tmp:
        old_class = import_revision(revision, Path(tmp), "metrics").KeywordCoverageMetric
        tuning = sets["EVOUNA NQ (tuning)"]
        rows = split_questions(tuning) if split else (list(range(len(tuning))), [])
        new = {name: scores({}, items) for name, items in sets.items()}
        old = {name: scores({}, items, old_class) for name, items in sets.items()}
    y_tune = [tuning[i].human for i in rows[0]]
    t_new = calibrate([new["EVOUNA NQ (tuning)"][i] for i in rows[0]], y_tune).value
    t_old = calibrate([old["EVOUNA NQ (tuning)"][i] for i in rows[0]], y_tune).value
    print(f"thresholds: this tree {t_new:.4f}, {revision} {t_old:.4f}")
    for name, items in sets.items():
        confirm = split and name.startswith("EVOUNA NQ")
        keep = rows[1] if confirm else range(len(items))
        a = [new[name][i] for i in keep]
        b = [old[name][i] for i in keep]
        y = [items[i].human for i in keep]
        label = f"{name} confirm half" if confirm else name
        changed = sum(1 for x, z in zip(a, b, strict=True) if x != z)
        print(f"== {label}: {changed} of {len(a)} scores differ")
        print(f"this tree {agreement(a, y, threshold=t_new)}")
        print(f"{revision:9s} {agreement(b, y, threshold=t_old)}")
        print(f"this tree - {revision}: {compare(a, b, y)}")
        kappa = compare(a, b, y, statistic="kappa", threshold_a=t_new, threshold_b=t_old)
        print(f"this tree - {revision}: {kappa}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tuning-only", action="store_true", help="score EVOUNA NQ only")
    parser.add_argument(
        "--halves", action="store_true", help="EVOUNA NQ's develop and confirm halves only"
    )
    parser.add_argument("--base", help="compare the default with this earlier commit's")
    args = parser.parse_args()
    if args.halves and not args.base:
        halves(CONFIGS)
        return
    sets = {"EVOUNA NQ (tuning)": load_evouna("NQ")}
    if not args.tuning_only and not args.halves:
        sets["EVOUNA TQ (held out)"] = load_evouna("TQ")
        sets["NQ301 (held out)"] = load_nq301()
    if args.base:
        against_base(args.base, sets, split=args.halves)
        return
    labels = {name: [item.human for item in items] for name, items in sets.items()}
    results: dict[str, dict[str, list[float]]] = {}
    thresholds: dict[str, float] = {}
    for config, options in CONFIGS.items():
        results[config] = {}
        for name, items in sets.items():
            start = time.perf_counter()
            results[config][name] = scores(options, items, asked=config in WITH_QUESTION)
            print(f"scored {name} with {config} in {time.perf_counter() - start:.1f}s")
        tuned = calibrate(results[config]["EVOUNA NQ (tuning)"], labels["EVOUNA NQ (tuning)"])
        thresholds[config] = tuned.value
        print(f"{config}: {tuned}")
    for name in sets:
        print(f"\n== {name}")
        for config in CONFIGS:
            a = agreement(results[config][name], labels[name], threshold=thresholds[config])
            print(f"{config:10s} {a}  (auc {a.auc:.4f}, kappa {a.kappa:.4f})")
            recommended = KeywordCoverageMetric(**CONFIGS[config]).recommended_threshold
            if recommended is not None and recommended != thresholds[config]:
                r = agreement(results[config][name], labels[name], threshold=recommended)
                print(f"{'':10s} at the recommended {recommended}: {r}")
        for other in ("plain", "previous", "uniform"):
            c_auc = compare(results[DEFAULT][name], results[other][name], labels[name])
            c_kappa = compare(
                results[DEFAULT][name],
                results[other][name],
                labels[name],
                statistic="kappa",
                threshold_a=thresholds[DEFAULT],
                threshold_b=thresholds[other],
            )
            print(f"{DEFAULT} - {other}: {c_auc}")
            print(f"{DEFAULT} - {other}: {c_kappa}")
        for asked in sorted(WITH_QUESTION):  # with the question minus without it
            with_q, without = results[asked][name], results[DEFAULT][name]
            print(f"{asked} - {DEFAULT}: {compare(with_q, without, labels[name])}")
            recommended = KeywordCoverageMetric().recommended_threshold
            for label, t_a, t_b in (
                ("calibrated", thresholds[asked], thresholds[DEFAULT]),
                (f"both at {recommended}", recommended, recommended),
            ):
                kappa = compare(
                    with_q,
                    without,
                    labels[name],
                    statistic="kappa",
                    threshold_a=t_a,
                    threshold_b=t_b,
                )
                print(f"{asked} - {DEFAULT} ({label}): {kappa}")
        if name.startswith("NQ301"):
            long_rows = [i for i, item in enumerate(sets[name]) if len(item.answer.split()) > 5]
            for config in CONFIGS:
                a = agreement(
                    [results[config][name][i] for i in long_rows],
                    [labels[name][i] for i in long_rows],
                    threshold=thresholds[config],
                )
                print(f"{config:10s} answers > 5 words: {a}")


if __name__ == "__main__":
    main()
