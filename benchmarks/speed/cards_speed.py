"""Card matcher speed: 1,000 synthetic cases of 10 expected and 12 generated cards.

Prints cases/s for the greedy and the optimal strategy, with the default normalizer and with
``normalizer=None`` (plain substring matching). Target: at least 200 cases/s with the default
normalizer. The cases are built from the words of the bundled example, with a fixed seed: each
case has 10 expected cards (2 front and 3 back keywords), 9 generated cards that paraphrase
them (some keywords inflected, some dropped, filler words around) and 3 unrelated extra cards.

    .venv/bin/python benchmarks/speed/cards_speed.py [--cases N]
"""

from __future__ import annotations

import argparse
import random
import re
import time
from pathlib import Path

from lexeval.cards import EvalCase, EvalDataset, ExpectedCard, GeneratedCard, evaluate
from lexeval.normalize import Normalizer

ROOT = Path(__file__).resolve().parents[2]
SEED = 20240601


def vocabulary() -> list[str]:
    text = (ROOT / "examples" / "flashcards" / "dataset.yaml").read_text(encoding="utf-8")
    text += (ROOT / "examples" / "flashcards" / "outputs" / "prompt_v1.yaml").read_text("utf-8")
    words = sorted({w for w in re.findall(r"[A-Za-z][a-z]{3,}", text)})
    return words


def inflect(word: str, rng: random.Random) -> str:
    """A plural or -ing variant now and then, as LLM paraphrases do."""
    roll = rng.random()
    if roll < 0.2 and not word.endswith("s"):
        return word + "s"
    if roll < 0.3 and word.endswith("e"):
        return word[:-1] + "ing"
    return word


def build(n_cases: int) -> tuple[EvalDataset, dict[str, list[GeneratedCard]]]:
    rng = random.Random(SEED)
    words = vocabulary()
    cases = []
    outputs: dict[str, list[GeneratedCard]] = {}
    for i in range(n_cases):
        expected = []
        generated = []
        for _ in range(10):
            front = [" ".join(rng.sample(words, rng.choice((1, 2)))) for _ in range(2)]
            back = [" ".join(rng.sample(words, rng.choice((1, 1, 2)))) for _ in range(3)]
            card_type = rng.choice(("qa", "qa", "definition", "cloze", None))
            expected.append(ExpectedCard(front, back, card_type))
            kept_back = [k for k in back if rng.random() < 0.8]
            generated.append(
                GeneratedCard(
                    "What is the "
                    + " and the ".join(inflect(k, rng) for k in front)
                    + f" in {rng.choice(words)}?",
                    " ".join(rng.sample(words, 3)) + ", " + ", ".join(kept_back) + ".",
                    card_type or "qa",
                )
            )
        generated = generated[:9]
        for _ in range(3):
            generated.append(
                GeneratedCard(
                    " ".join(rng.sample(words, 6)) + "?", " ".join(rng.sample(words, 10)) + "."
                )
            )
        rng.shuffle(generated)
        case_id = f"case-{i:04d}"
        cases.append(EvalCase(case_id, "synthetic", expected))
        outputs[case_id] = generated
    return EvalDataset("synthetic", "1", cases), outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()
    dataset, outputs = build(args.cases)
    print(
        f"{len(dataset)} cases x 10 expected x 12 generated cards "
        f"({sum(len(v) for v in outputs.values())} generated in all)"
    )
    normalizer = Normalizer()
    normalizer.tokens("warm up the spaCy pipeline")
    for label, norm in (("default normalizer", normalizer), ("normalizer=None", None)):
        for strategy in ("greedy", "optimal"):
            if norm is not None:
                norm = Normalizer()  # a cold token cache for each measured run
                norm.tokens("warm up")
            start = time.perf_counter()
            run = evaluate(dataset, outputs, strategy=strategy, normalizer=norm)
            seconds = time.perf_counter() - start
            print(
                f"{label:20s} {strategy:8s} {len(dataset) / seconds:9.0f} cases/s  "
                f"({seconds:.2f} s; micro recall {run.micro.recall:.3f}, "
                f"precision {run.micro.precision:.3f})"
            )


if __name__ == "__main__":
    main()
