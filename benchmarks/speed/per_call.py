"""Speed the user's way: one pair per call on pairs the process has NOT scored before, lexeval
and the peer interleaved in one run, CPU time.

Each round takes a fresh chunk of unseen pairs (both texts new to the process), makes a NEW
scorer per contestant, warms it on the previous round's pairs (other pairs, already seen), then
times the chunk; the contestants' order rotates each round; each task runs in a new process.
Printed per task: the median peer/lexeval CPU-time ratio (above 1: lexeval is faster) with its
range over the rounds, the CPU time per pair of each, and the load average. Process-wide word
caches (Porter stems, spaCy's vocabulary) stay warm across rounds, as in a process that has
scored other text.

Tasks (``--only`` picks some):

* ``rouge``: rouge1/rouge2/rougeL/rougeLsum with stemming, ``RougeScorer.score`` with its
  default settings (compat="rouge-score") against rouge-score-rs and rouge-score, per call, on
  SummEval (reference, summary) pairs whose texts occur once;
* ``rouge-batch``: the same pairs, ``score_many`` (one reference per pair) against
  rouge-score-rs's ``score_batch`` (``RAYON_NUM_THREADS=1``: one core each);
* ``rouge-multi``: ``score_many`` with the 11 references of each SummEval summary against
  rouge-score-rs's ``score_multi`` in a loop (references repeat across rounds: the multi-reference
  batch figure, compared with lexeval's previous commits by running this file against them);
* ``rouge-parts``: where a per-call ROUGE pair's time goes, on the ``rouge`` task's unseen
  pairs: the whole ``RougeScorer.score`` call (the new words' Porter stems computed), the same
  calls again with a new scorer (every stem known; the difference is the stemming of new words
  plus the second pass finding the texts warm in memory: an upper bound), rouge-score's tokens
  of both texts alone (stems known), and rouge-score-rs's call;
* ``squad``: SQuAD v1.1 dev, one system's prediction per question (rotating systems), token-F1
  and exact match: ``TokenF1Metric(compat="squad").measure`` against the official script's
  functions;
* ``keyword``: default ``KeywordCoverageMetric().measure`` on EVOUNA NQ (first gold, one
  answer per question) against Mastra's KeywordCoverageMetric on Node (needs
  ``MASTRA_EVALS_DIR``, a directory where ``npm install @mastra/evals@0.14.4`` was run);
* ``first``: the CPU time of a new process up to its first ROUGE result (stemming on), lexeval
  and rouge-score-rs, best of 3.

rouge-score-rs and rouge-score are benchmark-only tools (``pip install rouge-score-rs``).

Run: MASTRA_EVALS_DIR=/tmp/mastra nice .venv/bin/python benchmarks/speed/per_call.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import string
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # rouge-score-rs's batch on one core

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import EVOUNA_SYSTEMS, load_average, shared_path

Pair = tuple[Any, str]
#: A contestant: makes a new scorer, and scores a list of pairs with it.
Contestant = tuple[Callable[[], Any], Callable[[Any, list[Pair]], object]]
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
HERE = Path(__file__).resolve().parent
#: Options of lexeval's ROUGE scorers beyond the defaults (``--evidence-limit``).
ROUGE_OPTIONS: dict[str, Any] = {}


# ---- data ------------------------------------------------------------------------------------
def summeval_rows() -> list[dict[str, Any]]:
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def summeval_unseen() -> list[Pair]:
    """(reference, summary) pairs in which every text occurs once."""
    seen: set[str] = set()
    pairs: list[Pair] = []
    for row in summeval_rows():
        for ref in row["references"]:
            if ref not in seen and row["decoded"] not in seen:
                seen.update((ref, row["decoded"]))
                pairs.append((ref, row["decoded"]))
                break
    return pairs


def summeval_multi() -> list[Pair]:
    return [(row["references"], row["decoded"]) for row in summeval_rows()]


def squad_unseen() -> list[Pair]:
    """(gold answers, prediction) per question, the prediction of a rotating system."""
    with open(shared_path("data", "squad", "dev-v1.1.json"), encoding="utf-8") as f:
        data = json.load(f)["data"]
    golds = {
        qa["id"]: [a["text"] for a in qa["answers"]]
        for article in data
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }
    systems = sorted(shared_path("data", "squad", "predictions").glob("*.json"))
    predictions = [json.loads(p.read_text(encoding="utf-8")) for p in systems]
    return [
        (gold, predictions[i % len(predictions)][qid])
        for i, (qid, gold) in enumerate(golds.items())
        if qid in predictions[i % len(predictions)]
    ]


def evouna_unseen(sets: tuple[str, ...] = ("NQ",)) -> list[Pair]:
    """(first gold, answer) per question of the EVOUNA ``sets`` in turn, the answer of a
    rotating system, each text once."""
    pairs: list[Pair] = []
    seen: set[str] = set()
    for name in sets:
        with open(shared_path("data", "qa_human", "evouna", f"{name}.json"), encoding="utf-8") as f:
            rows = json.load(f)
        for i, row in enumerate(rows):
            golds = [g.strip() for g in (row["golden_answer"] or "").split("/") if g.strip()]
            answer = row.get(f"answer_{EVOUNA_SYSTEMS[i % len(EVOUNA_SYSTEMS)]}")
            if golds and isinstance(answer, str) and golds[0] not in seen and answer not in seen:
                seen.update((golds[0], answer))
                pairs.append((golds[0], answer))
    return pairs


# ---- the SQuAD v1.1 official script's functions (evaluate-v1.1.py) ---------------------------
def _normalize_answer(s: str) -> str:
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def _f1_score(prediction: str, ground_truth: str) -> float:
    prediction_tokens = _normalize_answer(prediction).split()
    ground_truth_tokens = _normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def _exact_match_score(prediction: str, ground_truth: str) -> bool:
    return _normalize_answer(prediction) == _normalize_answer(ground_truth)


def _max_over(metric_fn: Callable[[str, str], Any], prediction: str, golds: list[str]) -> Any:
    return max(metric_fn(prediction, gold) for gold in golds)


# ---- timing ---------------------------------------------------------------------------------
class NodeMastra:
    """Mastra's KeywordCoverageMetric in a Node process (benchmarks/speed/mastra_per_call.cjs)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            ["node", str(HERE / "mastra_per_call.cjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def cpu(self, warm: list[Pair], pairs: list[Pair]) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"warm": warm, "pairs": pairs}) + "\n")
        self.proc.stdin.flush()
        cpu: float = json.loads(self.proc.stdout.readline())["cpu_s"]
        return cpu

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def interleave(
    name: str,
    contestants: dict[str, Contestant | NodeMastra],
    pairs: list[Pair],
    rounds: int,
    size: int,
    *,
    batch: bool = False,
) -> None:
    """Time each contestant on ``rounds`` chunks of ``size`` unseen pairs (the first chunk
    warms only) and print the peer/lexeval ratios."""
    chunks = [pairs[i * size : (i + 1) * size] for i in range(rounds + 1)]
    chunks = [c for c in chunks if len(c) == size]
    if len(chunks) < 2:
        print(f"{name}: not enough pairs ({len(pairs)}) for {size} per round")
        return
    cpu: dict[str, list[float]] = {label: [] for label in contestants}
    labels = list(contestants)
    for r in range(1, len(chunks)):
        warm, timed = chunks[r - 1], chunks[r]
        order = labels[r % len(labels) :] + labels[: r % len(labels)]
        for label in order:
            contestant = contestants[label]
            if isinstance(contestant, NodeMastra):
                cpu[label].append(contestant.cpu(warm, timed))
                continue
            make, run = contestant
            scorer = make()
            run(scorer, warm)
            start = time.process_time()
            run(scorer, timed)
            cpu[label].append(time.process_time() - start)
    ours = cpu["lexeval"]
    kind = "batch" if batch else "per call"
    print(f"\n{name} ({kind}; {len(ours)} rounds x {size} unseen pairs; {load_average()})")
    for label in labels:
        per_pair = statistics.median(cpu[label]) / size * 1e6
        line = f"  {label:28s} {per_pair:9.1f} us/pair CPU"
        if label != "lexeval":
            ratios = sorted(p / o for p, o in zip(cpu[label], ours, strict=True))
            line += (
                f"   peer/lexeval {statistics.median(ratios):.2f}x"
                f" (range {ratios[0]:.2f}-{ratios[-1]:.2f})"
            )
        print(line)


def _each(score: Callable[[Any, Any, str], object]) -> Callable[[Any, list[Pair]], None]:
    def run(scorer: Any, pairs: list[Pair]) -> None:
        for reference, output in pairs:
            score(scorer, reference, output)

    return run


# ---- tasks ----------------------------------------------------------------------------------
def rouge_tasks(rounds: int, size: int, only: list[str]) -> None:
    from lexeval.metrics.rouge import RougeScorer

    peers: dict[str, Contestant | NodeMastra] = {}
    try:
        import rouge_score_rs

        rs: Contestant = (
            lambda: rouge_score_rs.RougeScorer(TYPES, use_stemmer=True),
            _each(lambda s, r, o: s.score(r, o)),
        )
        peers["rouge-score-rs"] = rs
    except ImportError:
        print("rouge-score-rs not installed: pip install rouge-score-rs")
        rs = None  # type: ignore[assignment]
    lexeval: Contestant = (
        lambda: RougeScorer(TYPES, compat="rouge-score", use_stemmer=True, **ROUGE_OPTIONS),
        _each(lambda s, r, o: s.score(r, o)),
    )
    if "rouge" in only:
        try:
            from rouge_score import rouge_scorer

            peers["rouge-score"] = (
                lambda: rouge_scorer.RougeScorer(TYPES, use_stemmer=True),
                _each(lambda s, r, o: s.score(r, o)),
            )
        except ImportError:
            print("rouge-score not installed")
        pairs = summeval_unseen()
        interleave("ROUGE 4 types, stemming", {"lexeval": lexeval, **peers}, pairs, rounds, size)
    if "rouge-batch" in only and rs is not None:
        pairs = summeval_unseen()

        def ours(s: Any, ps: list[Pair]) -> object:
            return s.score_many([p[0] for p in ps], [p[1] for p in ps])

        def theirs(s: Any, ps: list[Pair]) -> object:
            return s.score_batch([p[0] for p in ps], [p[1] for p in ps])

        interleave(
            "ROUGE 4 types, stemming, one reference per pair",
            {"lexeval": (lexeval[0], ours), "rouge-score-rs": (rs[0], theirs)},
            pairs,
            rounds,
            size,
            batch=True,
        )
    if "rouge-multi" in only and rs is not None:
        multi = summeval_multi()

        def ours_multi(s: Any, ps: list[Pair]) -> object:
            return s.score_many([p[0] for p in ps], [p[1] for p in ps])

        interleave(
            "ROUGE 4 types, stemming, 11 references per summary",
            {
                "lexeval": (lexeval[0], ours_multi),
                "rouge-score-rs": (rs[0], _each(lambda s, r, o: s.score_multi(r, o))),
            },
            multi,
            rounds,
            max(size // 4, 10),
            batch=True,
        )


def rouge_parts_task(rounds: int, size: int) -> None:
    from lexeval.compat import rouge_score_tokens
    from lexeval.metrics.rouge import RougeScorer

    pairs = summeval_unseen()
    chunks = [pairs[i * size : (i + 1) * size] for i in range(rounds + 1)]
    chunks = [c for c in chunks if len(c) == size]
    parts: dict[str, list[float]] = {}

    def timed(label: str, run: Callable[[Any, list[Pair]], object], *args: Any) -> None:
        start = time.process_time()
        run(*args)
        parts.setdefault(label, []).append(time.process_time() - start)

    def new_scorer() -> Any:
        return RougeScorer(TYPES, compat="rouge-score", use_stemmer=True, **ROUGE_OPTIONS)

    def scores(scorer: Any, chunk: list[Pair]) -> None:
        for reference, output in chunk:
            scorer.score(reference, output)

    def tokens(chunk: list[Pair]) -> None:
        for reference, output in chunk:
            rouge_score_tokens(reference, stemmer=True)
            rouge_score_tokens(output, stemmer=True)

    peer: Any = None
    try:
        import rouge_score_rs

        peer = rouge_score_rs.RougeScorer(TYPES, use_stemmer=True)
    except ImportError:
        print("rouge-score-rs not installed: pip install rouge-score-rs")
    for r in range(1, len(chunks)):
        warm, chunk = chunks[r - 1], chunks[r]
        scores(new_scorer(), warm)
        timed("whole score", scores, new_scorer(), chunk)
        timed("whole score, stems known", scores, new_scorer(), chunk)
        timed("tokens only, stems known", lambda _, c: tokens(c), None, chunk)
        if peer is not None:
            timed("rouge-score-rs whole score", scores, peer, chunk)
    print(f"\nROUGE 4 types, stemming: parts of a call ({len(chunks) - 1} rounds x {size} unseen")
    print(f"pairs, medians; {load_average()})")
    for label, times in parts.items():
        print(f"  {label:28s} {statistics.median(times) / size * 1e6:9.1f} us/pair CPU")


def _squad_metric() -> Any:
    """SQuAD's token-F1 (``compat="squad"``; ``variant="squad"`` in trees before it)."""
    from lexeval.metrics import TokenF1Metric

    try:
        return TokenF1Metric(compat="squad")
    except TypeError:
        return TokenF1Metric(variant="squad")  # type: ignore[call-arg]


def squad_task(rounds: int, size: int) -> None:

    def official(_: object, pairs: list[Pair]) -> None:
        for golds, prediction in pairs:
            _max_over(_exact_match_score, prediction, golds)
            _max_over(_f1_score, prediction, golds)

    interleave(
        "SQuAD v1.1 token-F1 and exact match",
        {
            "lexeval": (
                _squad_metric,
                _each(lambda s, r, o: s.measure(r, o)),
            ),
            "SQuAD v1.1 script": (lambda: None, official),
        },
        squad_unseen(),
        rounds,
        size,
    )


def keyword_task(rounds: int, size: int) -> None:
    from lexeval.metrics import KeywordCoverageMetric

    if not os.environ.get("MASTRA_EVALS_DIR"):
        print("keyword: MASTRA_EVALS_DIR is not set (npm install @mastra/evals@0.14.4 there)")
        return
    node = NodeMastra()
    try:
        interleave(
            "keyword coverage, default settings",
            {
                "lexeval": (KeywordCoverageMetric, _each(lambda s, r, o: s.measure(r, o))),
                "Mastra 0.14.4 on Node": node,
            },
            evouna_unseen(),
            rounds,
            size,
        )
    finally:
        node.close()


FIRST = {
    "lexeval RougeScorer (stemming)": "from lexeval.metrics.rouge import RougeScorer\n"
    "RougeScorer(['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], compat='rouge-score', "
    "use_stemmer=True).score('The cats sat on mats.', 'a cat sat')",
    "rouge-score-rs (stemming)": "import rouge_score_rs\n"
    "rouge_score_rs.RougeScorer(['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], use_stemmer=True)"
    ".score('The cats sat on mats.', 'a cat sat')",
}


def first_task() -> None:
    print(f"\nfirst result in a new process (CPU time, best of 3; {load_average()})")
    for label, code in FIRST.items():
        best = float("inf")
        for _ in range(3):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                best = float("nan")
                break
            used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best = min(best, used)
        print(f"  {label:32s} {best:6.3f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--size", type=int, default=100, help="pairs per round")
    tasks = ["rouge", "rouge-batch", "rouge-multi", "rouge-parts", "squad", "keyword", "first"]
    parser.add_argument("--only", default=",".join(tasks), help=f"some of {','.join(tasks)}")
    parser.add_argument(
        "--evidence-limit",
        type=int,
        default=None,
        help="pass evidence_limit= to lexeval's ROUGE scorers (default: their default)",
    )
    args = parser.parse_args()
    only = [t for t in args.only.split(",") if t]
    if len(only) > 1:  # each task in a new process: no word cache carried from one to the next
        for task in only:
            command = [sys.executable, __file__, "--only", task, "--rounds", str(args.rounds)]
            command += ["--size", str(args.size)]
            if args.evidence_limit is not None:
                command += ["--evidence-limit", str(args.evidence_limit)]
            subprocess.run(command, check=False)
        return
    global ROUGE_OPTIONS
    if args.evidence_limit is not None:
        ROUGE_OPTIONS = {"evidence_limit": args.evidence_limit}
    if set(only) & {"rouge", "rouge-batch", "rouge-multi"}:
        rouge_tasks(args.rounds, args.size, only)
    if "rouge-parts" in only:
        rouge_parts_task(args.rounds, args.size)
    if "squad" in only:
        squad_task(args.rounds, args.size * 4)
    if "keyword" in only:
        keyword_task(args.rounds, args.size * 2)
    if "first" in only:
        first_task()


if __name__ == "__main__":
    main()
