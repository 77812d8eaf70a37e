"""The documentation matches the code: the CLI page against the real ``--help`` output, the
metrics page against the registry, the benchmarks page against ``benchmarks/``, and every
relative link in ``docs/`` points at a file that exists.

The ``>>>`` examples in the Markdown files run as doctests (``--doctest-glob=*.md``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [
    "index.md",
    "normalization.md",
    "metrics.md",
    "cards.md",
    "records.md",
    "cli.md",
    "benchmarks.md",
    "scale.md",
    "judge.md",
    "meta.md",
    "integrations.md",
    "semantic.md",
    "runs.md",
]


def _help(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "lexeval", *args, "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return proc.stdout


def _subcommands() -> list[str]:
    text = _help()
    block = text.split("positional arguments:", 1)[1].split("options:", 1)[0]
    names = re.findall(r"^ {4}([a-z][a-z-]*)\b", block, flags=re.M)
    assert names, text
    return names


def _options(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", text)) - {"--help"}


@pytest.fixture(scope="module")
def cli_page() -> str:
    return (DOCS / "cli.md").read_text(encoding="utf-8")


def test_every_page_exists() -> None:
    for page in PAGES:
        assert (DOCS / page).is_file(), page


def test_cli_lists_every_subcommand(cli_page: str) -> None:
    subcommands = _subcommands()
    assert set(subcommands) >= {"cards", "compare", "score", "normalize", "metrics"}
    for name in subcommands:
        assert f"## lexeval {name}" in cli_page, f"cli.md has no section for {name!r}"


def test_cli_lists_every_option(cli_page: str) -> None:
    missing = {f"(top level) {o}" for o in _options(_help()) if f"`{o}" not in cli_page}
    for name in _subcommands():
        text = _help(name)
        section = cli_page.split(f"## lexeval {name}", 1)[1].split("\n## ", 1)[0]
        missing |= {f"{name} {o}" for o in _options(text) if f"`{o}" not in section}
        # positional arguments (DATASET, TEXT, BASE.json ...) appear in the usage line
        usage = " ".join(text.split("\n\n", 1)[0].split())
        positionals = re.findall(r"(?<![\[\w.-])([A-Z][A-Z.]*[A-Z](?:\.json)?)(?![\]\w])", usage)
        for p in positionals:
            if p in {"METRIC", "MIN", "KEY", "VALUE"}:
                continue
            if p not in section:
                missing.add(f"{name} {p}")
    assert not missing, f"not documented in docs/cli.md: {sorted(missing)}"


def test_cli_documents_exit_codes(cli_page: str) -> None:
    assert "Exit codes" in _help()
    for code in ("`0`", "`1`", "`2`"):
        assert f"| {code} |" in cli_page


def test_metrics_page_names_every_metric() -> None:
    from lexeval.registry import list_metrics

    page = (DOCS / "metrics.md").read_text(encoding="utf-8")
    for name in list_metrics():
        assert f"`{name}`" in page, name
    for peer in ("Mastra", "rouge-score", "SQuAD"):
        assert peer in page


def test_benchmarks_page_covers_every_script() -> None:
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    scripts = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "benchmarks").rglob("*.py")
        if p.name[0] != "_"
    )
    assert scripts
    for path in scripts:
        assert path in page, f"benchmarks.md does not cover {path}"


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_resolve(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (DOCS / target).exists(), f"{page}: broken link {target}"


def test_readme_python_block_runs_and_names_what_the_demo_writes() -> None:
    import doctest

    readme = ROOT / "README.md"
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    failures, tests = doctest.testfile(str(readme), module_relative=False, optionflags=flags)
    assert tests >= 8 and failures == 0
    text = readme.read_text(encoding="utf-8")
    demo = (ROOT / "examples" / "demo.py").read_text(encoding="utf-8")
    compare = next(line for line in text.splitlines() if line.startswith("lexeval compare"))
    for name in re.findall(r"out/(prompt_v\d)\.json", compare):
        assert f'"{name}"' in demo, name  # the demo writes out/<name>.json
    assert len(re.findall(r"out/prompt_v\d\.json", compare)) == 2
    assert ".venv/bin/lexeval" in text


def test_the_ci_workflow_in_cards_md_runs(tmp_path: Path) -> None:
    import os
    import shutil

    import yaml

    page = (DOCS / "cards.md").read_text(encoding="utf-8")
    block = page.split("# .github/workflows/flashcards.yml", 1)[1].split("```", 1)[0]
    steps = yaml.safe_load(block)["jobs"]["cards"]["steps"]
    runs = [step["run"].strip() for step in steps if "run" in step]
    assert runs[0].startswith("pip install") and "git+" in runs[0]  # lexeval is not on PyPI
    assert runs[1] == "mkdir -p out"
    example = ROOT / "examples" / "flashcards"
    shutil.copytree(example, tmp_path / "eval")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    baseline = subprocess.run(  # the main branch's report, kept in the repository
        [
            "lexeval",
            "cards",
            "eval/dataset.yaml",
            "eval/outputs/prompt_v1.yaml",
            "--json",
            "eval/baseline.json",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert baseline.returncode in (0, 1), baseline.stderr
    # the user's generator: here the bundled candidate outputs
    generator = tmp_path / "scripts" / "generate_cards.py"
    generator.parent.mkdir()
    generator.write_text(
        "import sys\nsys.stdout.write(open('eval/outputs/prompt_v2.jsonl').read())\n",
        encoding="utf-8",
    )
    codes = []
    for command in runs[1:]:
        proc = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        codes.append(proc.returncode)
    assert codes[:2] == [0, 0]  # mkdir, generate
    assert codes[2] in (0, 1) and (tmp_path / "out" / "candidate.json").is_file()
    assert codes[3] in (0, 1) and (tmp_path / "out" / "comparison.md").is_file()
