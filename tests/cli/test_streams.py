"""Clean streams in a terminal: every command, in every format, run with standard output and
standard error on two pseudo-terminals (as in a shell, where progress bars switch on by
themselves), writes its results alone on standard output; progress, notes and summaries go to
standard error.

Standard output's terminal is raw (no ``\\n`` -> ``\\r\\n``), so the bytes read are exactly the
bytes written; for the machine formats they must equal what the same command writes into a pipe.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import selectors
import subprocess
import sys
import tty
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QA = str(ROOT / "examples" / "qa" / "answers.jsonl")
CARDS = ROOT / "examples" / "flashcards"
DATASET = str(CARDS / "dataset.yaml")
V1 = str(CARDS / "outputs" / "prompt_v1.yaml")
V2 = str(CARDS / "outputs" / "prompt_v2.jsonl")

#: What a progress bar leaves in a stream: rich hides the cursor, erases the line and redraws
#: it after a carriage return (which nothing else writes to a raw terminal).
PROGRESS_MARKS = ("\x1b[?25l", "\x1b[2K", "\r")

#: A child program that registers a recorded judge (the example's human verdicts, by question
#: and answer) before running the command line, so that a judge scores without a model.
RECORDED = (
    "import json, sys\n"
    "from lexeval.cli import main\n"
    "from lexeval.judge import RecordedJudge\n"
    "from lexeval.metrics.base import register_metric\n"
    f"rows = [json.loads(line) for line in open({QA!r}, encoding='utf-8')]\n"
    "verdicts = {(r['question'], r['output']): r['human'] for r in rows}\n"
    "register_metric('recorded', lambda: RecordedJudge(verdicts))\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["TERM"] = "xterm-256color"  # a colour terminal, as a user's
    return env


def _command(args: tuple[str, ...], program: str | None) -> list[str]:
    if program is not None:
        return [sys.executable, "-c", program, *args]
    return [sys.executable, "-m", "lexeval", *args]


def in_terminal(*args: str, program: str | None = None, cwd: Path | None = None) -> Run:
    """Run ``lexeval ARGS`` with stdout and stderr on two pseudo-terminals; what each got."""
    out_master, out_slave = pty.openpty()
    err_master, err_slave = pty.openpty()
    tty.setraw(out_slave)  # the bytes as written: no newline translation
    try:
        proc = subprocess.Popen(
            _command(args, program),
            stdin=subprocess.DEVNULL,
            stdout=out_slave,
            stderr=err_slave,
            env=_env(),
            cwd=cwd,
        )
    finally:
        os.close(out_slave)
        os.close(err_slave)
    got = {out_master: bytearray(), err_master: bytearray()}
    with selectors.DefaultSelector() as selector:
        for fd in got:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select(timeout=180):
                try:
                    chunk = os.read(key.fd, 65536)
                except OSError:  # EIO: the child closed its end
                    chunk = b""
                if chunk:
                    got[key.fd] += chunk
                else:
                    selector.unregister(key.fd)
    code = proc.wait(timeout=180)
    for fd in got:
        os.close(fd)
    return Run(code, got[out_master].decode("utf-8"), got[err_master].decode("utf-8"))


def in_pipes(*args: str, program: str | None = None, cwd: Path | None = None) -> Run:
    """The same command with stdout and stderr on pipes (no terminal: no progress)."""
    proc = subprocess.run(
        _command(args, program), capture_output=True, text=True, env=_env(), cwd=cwd, timeout=180
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def assert_no_progress(text: str) -> None:
    for mark in PROGRESS_MARKS:
        assert mark not in text, (mark, text[:300])


def assert_clean(run: Run, code: int = 0) -> None:
    assert run.code == code, run.stderr
    assert_no_progress(run.stdout)
    assert "Traceback" not in run.stderr


SCORE_METRICS = "keyword_coverage,lexical_correctness,rouge1"


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_score_formats_carry_only_results_and_progress_goes_to_stderr(fmt: str) -> None:
    """The README's pattern: question-aware metrics (keyword coverage, lexical correctness)
    and a question-blind one (ROUGE) over a file, in a terminal."""
    args = ("score", QA, "--metric", SCORE_METRICS, "--format", fmt)
    run = in_terminal(*args)
    assert_clean(run)
    assert "━" in run.stderr and "keyword_coverage" in run.stderr  # the bars were shown there
    assert run.stdout == in_pipes(*args).stdout  # byte for byte what a pipe gets
    if fmt == "jsonl":
        lines = [json.loads(line) for line in run.stdout.splitlines()]
        assert len(lines) == 12 and set(lines[0]) >= set(SCORE_METRICS.split(","))
    elif fmt == "json":
        document = json.loads(run.stdout)
        assert list(document["metrics"]) == SCORE_METRICS.split(",")
    else:
        rows = list(csv.DictReader(io.StringIO(run.stdout)))
        assert len(rows) == 12 and "keyword_coverage_evidence" in rows[0]
    assert "mean" in run.stderr  # the summary: on stderr


def test_score_on_workers_and_the_older_form_and_one_pair() -> None:
    workers = in_terminal("score", QA, "--metric", "token_f1", "--workers", "2")
    assert_clean(workers)
    assert len([json.loads(line) for line in workers.stdout.splitlines()]) == 12
    assert "━" in workers.stderr
    legacy = in_terminal("score", "--jsonl", "-", "--metric", "rouge1", "--progress")
    assert legacy.code == 2 and legacy.stdout == ""  # stdin is empty: one line on stderr
    pair = in_terminal(
        "score",
        "--metric",
        "keyword_coverage",
        "--input",
        "Canberra",
        "--output",
        "Sydney",
        "--question",
        "What is the capital of Australia?",
    )
    assert_clean(pair)
    assert json.loads(pair.stdout)["score"] == 0.0


def test_score_json_from_a_terminal_is_read_back_by_compare(tmp_path: Path) -> None:
    """The issue's report: ``score ... --format json > out.json`` in a terminal, then
    ``compare`` on that file."""
    args = ("score", QA, "--metric", "keyword_coverage,lexical_correctness", "--format", "json")
    base = tmp_path / "base.json"
    base.write_text(in_terminal(*args).stdout, encoding="utf-8")
    run = in_terminal("compare", str(base), str(base), "--markdown", "-")
    assert_clean(run)
    assert run.stdout.startswith("### lexeval score: candidate vs baseline")
    assert run.stdout == in_pipes("compare", str(base), str(base), "--markdown", "-").stdout
    table = in_terminal("compare", str(base), str(base))
    assert_clean(table)
    assert "baseline vs candidate" in table.stdout and "PASS" in table.stdout


def test_cards_table_json_and_notes(tmp_path: Path) -> None:
    table = in_terminal("cards", DATASET, V2, "--progress")
    assert_clean(table)
    assert "bio-photosynthesis" in table.stdout
    report = in_terminal("cards", DATASET, V2, "--json", "-", "--progress")
    assert_clean(report)
    assert json.loads(report.stdout)["dataset"]["n_cases"] == 16
    assert "bio-photosynthesis" in report.stderr  # the table moved to stderr
    path = tmp_path / "v1.json"
    written = in_terminal("cards", DATASET, V1, "--json", str(path), "--quiet")
    assert_clean(written)
    assert written.stdout.startswith("PASS") or written.stdout == ""
    noted = in_terminal("cards", DATASET, V1, "--json", str(tmp_path / "again.json"))
    assert_clean(noted)
    assert "report written to" not in noted.stdout and "report written to" in noted.stderr
    v2 = tmp_path / "v2.json"
    in_pipes("cards", DATASET, V2, "--json", str(v2))
    markdown = in_terminal("compare", str(path), str(v2), "--markdown", "-")
    assert_clean(markdown)
    assert markdown.stdout == in_pipes("compare", str(path), str(v2), "--markdown", "-").stdout
    assert markdown.stdout.startswith("#")


def test_normalize_and_metrics_write_the_same_text_as_into_a_pipe() -> None:
    for args in (("normalize", "The cats aren't on TCP/IP!"), ("metrics",)):
        run = in_terminal(*args)
        assert_clean(run)
        assert run.stdout == in_pipes(*args).stdout != ""


def test_meta_json(tmp_path: Path) -> None:
    rows = [{"s": i / 10, "h": i >= 5} for i in range(10)] + [{"s": 0.45, "h": True}]
    table = tmp_path / "t.jsonl"
    table.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = in_terminal("meta", str(table), "--score", "s", "--human", "h", "--json", "-")
    assert_clean(run)
    assert json.loads(run.stdout)["kind"] == "binary"


def test_a_judge_in_a_terminal() -> None:
    args = ("score", QA, "--metric", "recorded,token_f1", "--format", "json", "--progress")
    run = in_terminal(*args, program=RECORDED)
    assert_clean(run)
    document = json.loads(run.stdout)
    assert list(document["metrics"]) == ["recorded", "token_f1"]
    assert run.stdout == in_pipes(*args, program=RECORDED).stdout


def test_every_progress_bar_is_made_on_stderr_in_one_place() -> None:
    """Only lexeval.io.progress imports rich's progress module (whose ``track`` draws on
    standard output by default)."""
    import ast

    src = ROOT / "src" / "lexeval"
    found = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "rich.progress":
                found.append(path.relative_to(src).as_posix())
    assert set(found) == {"io/progress.py"}


def test_a_bar_leaves_the_callers_streams_alone(capfd: pytest.CaptureFixture[str]) -> None:
    from lexeval.io.progress import track_on_stderr

    before = (sys.stdout, sys.stderr)
    for _ in track_on_stderr(range(3), total=3, description="bar"):
        assert (sys.stdout, sys.stderr) == before  # rich redirects them by default
        print("result")
    out, err = capfd.readouterr()
    assert out == "result\n" * 3
    assert "bar" in err
