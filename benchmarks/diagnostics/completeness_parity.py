"""``CompletenessMetric(compat="mastra")`` against the real ``@mastra/evals`` 0.14.4 on FRESH
pairs of every kind, scored by the real package in this run (``completeness_record.mjs``).

Kinds (``--n`` of each, drawn or generated with ``--seed``):

* ``qa``: an EVOUNA NQ or TQ gold answer and a system's answer (short and long answers);
* ``ref``: a SummEval reference (detokenized, written by people) and a system summary;
* ``src``: a SummEval summary and the first sentences of its article (long, news text);
* ``sq``: a SQuAD question and a sentence of its paragraph;
* ``tech``: generated technical sentences: URLs, versions, code identifiers, file names,
  numbers, dates, money, e-mail addresses, non-English words, camelCase and snake_case,
  contractions, negations and every verb form (text written by this script, no corpus).

The seeds: 7 was looked at while porting compromise's tagger (lexeval.metrics.nlp.compromise);
11 was never looked at and gives the figures in docs/metrics.md. Exact = |diff| <= 1e-9.

``--record FILE`` writes the cases with the real package's scores and elements (JSONL) for a
test that runs without Node; ``--only-generated`` keeps the ``tech`` kind only (no corpus text);
``--show N`` prints N differing texts (element sets) for looking at them; ``--replay FILE``
compares with a file ``--record`` wrote (no Node needed).

Needs Node 20 and ``NODE_DIR`` (default /work/wt/mastra) where ``npm install
@mastra/evals@0.14.4`` was run; skips with a message otherwise.

Run: ``.venv/bin/python benchmarks/diagnostics/completeness_parity.py --seed 11 --n 300``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path

from lexeval.metrics import get_metric
from lexeval.metrics.nlp.completeness import mastra_elements

RECORDER = Path(__file__).resolve().parents[1] / "completeness_record.mjs"
KINDS = ("qa", "ref", "src", "sq", "tech")

_SUBJECTS = [
    "The server",
    "Our API gateway",
    "This library",
    "The build script",
    "Kubernetes",
    "The parser",
    "She",
    "They",
    "I",
    "We",
    "The old cache layer",
    "Each worker thread",
    "The user's request",
    "Two of the tests",
    "Nobody on the team",
    "The café's owner",
    "Herr Müller",
    "The São Paulo office",
    "The scheduler in Zürich",
    "Dr. Smith",
    "It",
    "The ML pipeline",
]
_VERBS = [
    ("return", "returns", "returned", "returned", "returning"),
    ("fail", "fails", "failed", "failed", "failing"),
    ("download", "downloads", "downloaded", "downloaded", "downloading"),
    ("parse", "parses", "parsed", "parsed", "parsing"),
    ("write", "writes", "wrote", "written", "writing"),
    ("run", "runs", "ran", "run", "running"),
    ("build", "builds", "built", "built", "building"),
    ("cache", "caches", "cached", "cached", "caching"),
    ("deploy", "deploys", "deployed", "deployed", "deploying"),
    ("throw", "throws", "threw", "thrown", "throwing"),
    ("support", "supports", "supported", "supported", "supporting"),
    ("upgrade", "upgrades", "upgraded", "upgraded", "upgrading"),
    ("compile", "compiles", "compiled", "compiled", "compiling"),
    ("send", "sends", "sent", "sent", "sending"),
    ("index", "indexes", "indexed", "indexed", "indexing"),
    ("retry", "retries", "retried", "retried", "retrying"),
    ("log", "logs", "logged", "logged", "logging"),
    ("handle", "handles", "handled", "handled", "handling"),
    ("break", "breaks", "broke", "broken", "breaking"),
    ("choose", "chooses", "chose", "chosen", "choosing"),
    ("need", "needs", "needed", "needed", "needing"),
    ("store", "stores", "stored", "stored", "storing"),
    ("match", "matches", "matched", "matched", "matching"),
]
_OBJECTS = [
    "a 404 error",
    "the config file settings.yaml",
    "version 3.11.7",
    "v2.0.0-rc.1",
    "the `parse_args()` helper",
    "getUserById",
    "the HTTPServer class",
    "https://example.com/docs/v1/index.html?lang=en#top",
    "http://localhost:8080/api/users",
    "www.lexeval.dev",
    "user@example.org",
    "1,234,567 rows",
    "42% of the requests",
    "$3.50 per hour",
    "€1.299,00",
    "3.14159",
    "1e-9 seconds",
    "2026-11-29",
    "12:30pm",
    "the node_modules folder",
    "numpy>=1.26",
    "the --no-cache flag",
    "a JSON payload",
    "UTF-8 text",
    "the crème brûlée recipe",
    "the Straße dataset",
    "naïve Bayes",
    "the façade pattern",
    "déjà vu",
    "señor García's notes",
    "the Gödel numbers",
    "an über-fast index",
    "the résumé parser",
    "Tokyo (東京) stations",
    "C++17 and C#",
    "the README.md",
    "src/lexeval/metrics/nlp/compromise.py",
    "#hashtags and @mentions",
    "IPv6 address ::1",
    "about 3 million users",
    "twenty-five items",
    "the first 10 pages",
    "its 2nd release",
    "a snake_case_name and a camelCaseName",
    "SHA-256 hashes",
    "the 5G network",
    "O(n log n) time",
    "ISO 8601 dates",
]
_ENDINGS = [
    "",
    " yesterday",
    " every day",
    " in production",
    " on Linux",
    " since 2019",
    " without any warnings",
    " because the disk was full",
    " after the upgrade",
    " when it's under load",
    " at 3 a.m.",
    " quickly",
    ", which surprised everyone",
    " for the 1st time",
]


def _verb_phrase(rng: random.Random, subject: str) -> str:
    base, third, past, participle, gerund = rng.choice(_VERBS)
    plural = subject in ("They", "I", "We", "Two of the tests")
    form = rng.randrange(14)
    if form == 0:
        return base if plural else third
    if form == 1:
        return past
    if form == 2:
        return f"{'are' if plural else 'is'} {gerund}"
    if form == 3:
        return f"{'have' if plural else 'has'} {participle}"
    if form == 4:
        return f"{'have' if plural else 'has'} been {participle}"
    if form == 5:
        return f"{rng.choice(['can', 'should', 'might', 'will', 'must'])} {base}"
    if form == 6:
        return f"{rng.choice(['can', 'could', 'will', 'may'])} be {participle}"
    if form == 7:
        return f"{'don' if plural else 'doesn'}'t {base}"
    if form == 8:
        return f"didn't {base}"
    if form == 9:
        return f"{'aren' if plural else 'isn'}'t {gerund}"
    if form == 10:
        return f"{'were' if plural else 'was'} {participle}"
    if form == 11:
        return f"won't {base}"
    if form == 12:
        return f"never {past}"
    return f"kept {gerund}"


def _tech_sentence(rng: random.Random) -> str:
    subject = rng.choice(_SUBJECTS)
    text = f"{subject} {_verb_phrase(rng, subject)} {rng.choice(_OBJECTS)}{rng.choice(_ENDINGS)}"
    return text + rng.choice([".", ".", "!", "?", "", ";"])


def _tech_text(rng: random.Random) -> str:
    return " ".join(_tech_sentence(rng) for _ in range(rng.choice([1, 1, 2, 3])))


def _first_sentences(text: str, rng: random.Random) -> str:
    sentences = text.replace("\n", " ").split(". ")
    return ". ".join(sentences[: rng.randint(2, 6)]).strip()


def fresh_cases(seed: int, n: int, kinds: tuple[str, ...] = KINDS) -> list[dict[str, str]]:
    """``n`` cases of each of ``kinds``, drawn or generated with ``seed``."""
    rng = random.Random(seed)
    cases: list[dict[str, str]] = []
    if "qa" in kinds:
        qa: list[tuple[str, str]] = []
        for name in ("NQ", "TQ"):
            path = shared_path("data", "qa_human", "evouna", f"{name}.json")
            for row in json.loads(path.read_text(encoding="utf-8")):
                gold = str(row["golden_answer"]).split("/")[0].strip()
                for key, value in row.items():
                    if key.startswith("answer_") and isinstance(value, str) and value.strip():
                        qa.append((gold, value))
        for k, (gold, answer) in enumerate(rng.sample(qa, n)):
            cases.append({"id": f"qa-{k}", "input": gold, "output": answer})
    if "ref" in kinds or "src" in kinds:
        path = shared_path("data", "summeval", "summeval_abstractive_12sys.aligned.jsonl")
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        if "ref" in kinds:
            for k, row in enumerate(rng.sample(rows, n)):
                ref = rng.choice(row["references"])
                cases.append({"id": f"ref-{k}", "input": ref, "output": row["decoded"]})
        if "src" in kinds:
            for k, row in enumerate(rng.sample(rows, n)):
                source = _first_sentences(row["text"], rng)
                cases.append({"id": f"src-{k}", "input": row["decoded"], "output": source})
    if "sq" in kinds:
        path = shared_path("data", "squad", "dev-v1.1.json")
        paragraphs = [
            p for a in json.loads(path.read_text("utf-8"))["data"] for p in a["paragraphs"]
        ]
        for k in range(n):
            paragraph = rng.choice(paragraphs)
            question = rng.choice(paragraph["qas"])["question"]
            sentence = rng.choice(paragraph["context"].split(". "))
            cases.append({"id": f"sq-{k}", "input": question, "output": sentence})
    if "tech" in kinds:
        for k in range(n):
            cases.append({"id": f"tech-{k}", "input": _tech_text(rng), "output": _tech_text(rng)})
    return cases


def record(cases: list[dict[str, str]]) -> list[dict[str, Any]] | None:
    """The real package's score and elements of each case (None without Node or the package)."""
    node_dir = os.environ.get("NODE_DIR", "/work/wt/mastra")
    if not Path(node_dir, "node_modules", "@mastra", "evals").is_dir():
        print(f"skipped: @mastra/evals is not installed in {node_dir} (NODE_DIR)", file=sys.stderr)
        return None
    done = subprocess.run(
        ["node", str(RECORDER)],
        input="".join(json.dumps(c) + "\n" for c in cases),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NODE_DIR": node_dir},
    )
    real = [json.loads(line) for line in done.stdout.splitlines()]
    return [
        {**c, **{k: v for k, v in r.items() if k != "id"}} for c, r in zip(cases, real, strict=True)
    ]


def summary(rows: list[dict[str, Any]]) -> None:
    metric = get_metric("completeness", compat="mastra")
    diffs: dict[str, list[float]] = {}
    for row in rows:
        ours = metric.measure(row["input"], row["output"]).score
        kind = row["id"].split("-")[0]
        diffs.setdefault(kind, []).append(abs(ours - row["score"]))
    every = [d for ds in diffs.values() for d in ds]
    parts = [f"{k} {sum(d <= 1e-9 for d in ds)}/{len(ds)}" for k, ds in diffs.items()]
    exact = sum(d <= 1e-9 for d in every)
    print(
        f"exact {exact}/{len(every)} = {exact / len(every):.1%}, "
        f"mean |diff| {sum(every) / len(every):.4f} ({', '.join(parts)})"
    )


def show(rows: list[dict[str, Any]], limit: int) -> None:
    shown = 0
    for row in rows:
        for side in ("input", "output"):
            ours, real = mastra_elements(row[side]), row[f"{side}_elements"]
            if set(ours) != set(real) and shown < limit:
                shown += 1
                print(f"--- {row['id']} {side}: {row[side]!r}")
                print(f"    lexeval only: {sorted(set(ours) - set(real))}")
                print(f"    mastra only:  {sorted(set(real) - set(ours))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--n", type=int, default=300, help="cases of each kind")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--record", type=Path, help="write the recorded cases (JSONL) here")
    parser.add_argument("--show", type=int, default=0, help="print N differing texts")
    parser.add_argument("--replay", type=Path, help="compare with a file --record wrote")
    args = parser.parse_args()
    if args.replay:
        with args.replay.open(encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
    else:
        rows = record(fresh_cases(args.seed, args.n, tuple(args.kinds.split(","))))
    if rows is None:
        return
    if args.record:
        with args.record.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    summary(rows)
    show(rows, args.show)


if __name__ == "__main__":
    main()
