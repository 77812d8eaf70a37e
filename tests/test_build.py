"""The two builds: the compiled build (the C kernel, setup.py) is what runs after ``make native``
(no silent fall-back to pure Python), ``LEXEVAL_PURE_PYTHON=1`` runs no compiled code, both give
the same results bit for bit, and a missing compiled build is said once."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lexeval
from lexeval import _build
from tests.support.new_process import run_python

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def test_the_kernels_are_the_c_sources() -> None:
    kernels = {p.stem for p in (ROOT / "src" / "lexeval" / "native").glob("*.c")}
    assert kernels == _build.NATIVE_MODULES


def test_the_compiled_build_runs_unless_pure_python_is_asked_for() -> None:
    """After ``make native`` every C kernel loads (CI fails rather than falling back to pure
    Python silently)."""
    from lexeval.native import load

    if _build.PURE_PYTHON:
        assert _build.build() == "pure Python"
        assert {load(kernel) for kernel in _build.NATIVE_MODULES} == {None}
        pytest.skip("LEXEVAL_PURE_PYTHON is set: the Python code runs")
    assert _build.build() == "compiled", "the compiled build is missing: run `make native`"
    for kernel in sorted(_build.NATIVE_MODULES):
        assert load(kernel) is not None, kernel


def test_pure_python_loads_no_compiled_code() -> None:
    code = (
        "import lexeval._build as b\n"
        "from lexeval.native import load\n"
        "print(b.build(), {load(n) for n in sorted(b.NATIVE_MODULES)})"
    )
    out = run_python(code, env={"LEXEVAL_PURE_PYTHON": "1"}).stdout
    assert out.strip() == "pure Python {None}"


#: Per C kernel, the modules that use it and the expression (over them) that lists, for each of
#: their switches, whether the kernel is in use: each test below runs over every kernel
#: (each file of tests/native/ then tests one kernel's results against its Python code).
KERNEL_SWITCHES = {
    "rouge": (
        "import lexeval.compat as c, lexeval.porter as p, lexeval.metrics.rouge as r",
        "[c.NATIVE_ROUGE, p.NATIVE_STEM, r.RougeScorer("
        "['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], compat='rouge-score')._native != 0]",
    ),
}


def _switches(kernel: str) -> list[bool]:
    imports, switches = KERNEL_SWITCHES[kernel]
    names: dict[str, object] = {}
    exec(imports, names)
    return [bool(x) for x in eval(switches, names)]


def test_every_kernel_has_its_switches_listed() -> None:
    assert set(KERNEL_SWITCHES) == _build.NATIVE_MODULES


@pytest.mark.parametrize("kernel", sorted(KERNEL_SWITCHES))
def test_each_kernel_is_built_and_in_use(kernel: str) -> None:
    """make test builds it (setup.py): a test run must not silently fall back to Python, and
    every module that has a compiled path takes it."""
    from lexeval.native import load

    if _build.PURE_PYTHON:
        pytest.skip("LEXEVAL_PURE_PYTHON is set: the reference path was asked for")
    assert load(kernel) is not None, f"lexeval.native.{kernel} is not built: run `make native`"
    switches = _switches(kernel)
    assert switches == [True] * len(switches)


@pytest.mark.parametrize("kernel", sorted(KERNEL_SWITCHES))
def test_pure_python_switches_each_kernel_off(kernel: str) -> None:
    """LEXEVAL_PURE_PYTHON=1, read at import (a new process): no module takes the kernel."""
    imports, switches = KERNEL_SWITCHES[kernel]
    code = f"{imports}\nprint([bool(x) for x in {switches}])"
    out = run_python(code, env={"LEXEVAL_PURE_PYTHON": "1"}).stdout.strip()
    assert out == repr([False] * len(_switches(kernel)))


def test_version_names_the_build() -> None:
    present = "compiled" if _build._compiled_present() else "pure Python"
    for pure, want in ((True, "pure Python: LEXEVAL_PURE_PYTHON is set)"), (False, present)):
        env = {"LEXEVAL_PURE_PYTHON": "1" if pure else "0"}
        done = run_python("from lexeval.cli import main; main(['--version'])", env=env, check=False)
        assert done.stdout.strip().startswith(f"lexeval {lexeval.__version__} ({want}")


def test_a_missing_compiled_build_is_said_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_build, "_noted", False)
    monkeypatch.setattr(_build, "PURE_PYTHON", False)
    monkeypatch.setattr(_build, "_compiled_present", lambda: False)
    with caplog.at_level(logging.WARNING, logger="lexeval"):
        _build.note_build()
        _build.note_build()
    notes = [r for r in caplog.records if "compiled build is missing" in r.getMessage()]
    assert len(notes) == 1 and notes[0].name == "lexeval"
    assert _build.build() == "pure Python"


def test_no_note_when_pure_python_is_asked_for(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_build, "_noted", False)
    monkeypatch.setattr(_build, "PURE_PYTHON", True)
    monkeypatch.setattr(_build, "_compiled_present", lambda: False)
    with caplog.at_level(logging.WARNING, logger="lexeval"):
        _build.note_build()
    assert not caplog.records


#: Pairs with what the hot paths treat specially: numbers and number words, conflicts, dates,
#: hyphenated parts, accents and mojibake, contractions, URLs, CJK, controls, long text.
TRICKY = [
    ("Twenty-four hours", "24 hours"),
    ("September 12, 2004", "It happened on September 14, 2004."),
    ("1,000 km", "about 1000 kilometres away"),
    ("the 25th-largest city", "25th largest"),
    ("Wilhelm Röntgen", "wilhelm rontgen discovered X-rays"),
    ("DÃ¡in II Ironfoot", "Dáin"),
    ("don't stop", "do not stop (it's fine)"),
    ("see https://example.org/a?b=1", "example.org"),
    ("狐狸 fox", "狐狸"),
    ("tab\there\x00ctrl\u200b", "tab here ctrl"),
    ("Himalayas", "the Himalaya range"),
    ("eukaryota", "eukarya"),
    ("1979-80 season", "the 1979 season"),
    ("U.S. Navy", "US navy"),
    ("", "anything"),
    ("four", "4"),
    ("twenty four", "twenty-four"),
    ("", ""),
    (" ".join(f"word{i} {i}" for i in range(3000)), " ".join(f"{i} term{i}" for i in range(2500))),
]

DIGEST = """
import hashlib, json, sys
from lexeval.metrics import KeywordCoverageMetric, RougeScorer
pairs = json.loads(sys.stdin.read())
sha = hashlib.sha256()
metrics = [KeywordCoverageMetric()] + [
    KeywordCoverageMetric(task=t) for t in ("short_answer", "summary", "source_support")
] + [KeywordCoverageMetric(compat="mastra")]
rouge = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], compat="rouge-score",
                    use_stemmer=True)
plain = RougeScorer(["rouge1", "rougeL"])
def exact(v):
    if isinstance(v, float):
        return "nan" if v != v else float.hex(v)
    if isinstance(v, dict):
        return {str(k): exact(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [exact(x) for x in v]
    return v
for ref, out in pairs:
    for m in metrics:
        r = m.measure(ref, out)
        sha.update(json.dumps([exact(r.score), exact(r.info)]).encode())
    for scorer in (rouge, plain):
        for name, r in scorer.score(ref, out).items():
            sha.update(json.dumps([name, exact(r.score), exact(r.info)]).encode())
print(len(pairs), sha.hexdigest())
"""


def _pairs() -> list[tuple[str, str]]:
    pairs = list(TRICKY)
    evouna = SHARED / "qa_human" / "evouna" / "NQ.json"
    if evouna.exists():
        rows = json.loads(evouna.read_text(encoding="utf-8"))[:400]
        pairs += [(r["golden_answer"] or "", r.get("answer_chatgpt") or "") for r in rows]
    summeval = SHARED / "summeval" / "summeval_expert_avg_11refs.jsonl"
    if summeval.exists():
        with summeval.open(encoding="utf-8") as lines:
            rows = [json.loads(line) for _, line in zip(range(60), lines, strict=False)]
        pairs += [(r["references"][0], r["decoded"]) for r in rows]
    return pairs


def test_both_builds_give_the_same_results() -> None:
    """Keyword coverage (default, task profiles, Mastra's mode) and ROUGE (rouge-score's mode
    and lexeval's) on tricky and real pairs: every score and info dict, floats bit for bit,
    equal with and without LEXEVAL_PURE_PYTHON (each in a new process)."""
    pairs = json.dumps(_pairs())
    found = []
    for pure in ("0", "1"):
        done = subprocess.run(
            [sys.executable, "-c", DIGEST],
            input=pairs,
            capture_output=True,
            text=True,
            env={**_env(), "LEXEVAL_PURE_PYTHON": pure},
            timeout=600,
            check=True,
        )
        found.append(done.stdout.strip())
    assert found[0] == found[1]
    assert int(found[0].split()[0]) >= len(TRICKY)


def _env() -> dict[str, str]:
    """This process's environment and import path (as ``new_process.run_python`` gives)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
