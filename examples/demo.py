"""The main job on the bundled example: evaluate two prompt versions' flashcards and compare them.

Run with ``make demo`` (or ``.venv/bin/python examples/demo.py [OUT_DIR]``). It prints a table
for each prompt version, writes both JSON reports (into ``out/`` by default) and prints the
A/B comparison, with a Markdown version for a pull-request comment. The same steps on the
command line::

    lexeval cards examples/flashcards/dataset.yaml examples/flashcards/outputs/prompt_v1.yaml \\
        --json out/prompt_v1.json
    lexeval cards examples/flashcards/dataset.yaml examples/flashcards/outputs/prompt_v2.jsonl \\
        --json out/prompt_v2.json
    lexeval compare out/prompt_v1.json out/prompt_v2.json --markdown out/comparison.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from lexeval.cards import (
    compare_runs,
    evaluate,
    load_dataset,
    load_outputs,
    render_run,
    write_text_atomic,
)

HERE = Path(__file__).resolve().parent
DATA = HERE / "flashcards"


def main(out_dir: Path) -> int:
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    out_dir.mkdir(parents=True, exist_ok=True)
    dataset = load_dataset(DATA / "dataset.yaml")
    console.print(
        f"[bold]{dataset.name}[/] {dataset.version}: {len(dataset)} cases, "
        f"{sum(len(c.expected_cards) for c in dataset.cases)} expected cards"
    )
    runs = {}
    for label, file in (("prompt_v1", "prompt_v1.yaml"), ("prompt_v2", "prompt_v2.jsonl")):
        console.print(Rule(f"{label}: {file}"))
        run = evaluate(dataset, load_outputs(DATA / "outputs" / file))
        render_run(run, console, title=f"{dataset.name}: {label}")
        report = out_dir / f"{label}.json"
        run.write_json(report)
        console.print(f"report written to {report}", markup=False)
        runs[label] = run

    console.print(Rule("comparison: prompt_v1 (baseline) vs prompt_v2 (candidate)"))
    comparison = compare_runs(runs["prompt_v1"], runs["prompt_v2"])
    comparison.render(console)
    markdown = out_dir / "comparison.md"
    write_text_atomic(markdown, comparison.to_markdown())
    console.print(f"Markdown for a pull-request comment written to {markdown}", markup=False)
    return 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out")
    sys.exit(main(target))
