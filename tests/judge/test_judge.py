"""The judge tier without a model: configuration errors, the API key's handling, the cache,
reply parsing, the pairwise combination and bias reports, and the recorded GPT-4 and
text-davinci-003 verdicts of NQ301 (real data from ../shared)."""

from __future__ import annotations

import csv
import math
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lexeval.judge import (
    CorrectnessJudge,
    Criterion,
    JudgeBackendError,
    JudgeConfigError,
    OpenAICompatible,
    PairwiseJudge,
    RecordedJudge,
    RubricJudge,
)
from lexeval.judge.backend import Completion
from lexeval.judge.base import ParseError
from lexeval.judge.cache import JudgmentCache, cache_key
from lexeval.judge.pairwise import PassVerdict, combine, length_bias, position_consistency
from lexeval.judge.recorded import MissingVerdictError
from lexeval.registry import get_metric

ROOT = Path(__file__).resolve().parents[2]
OPENQA = ROOT.parent / "shared" / "data" / "qa_human" / "openqa_eval"
SECRET = "sk-test-0123456789-SECRET"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------ configuration and the key


def test_a_remote_url_without_a_key_fails_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEXEVAL_TEST_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for url in ("https://api.example.com/v1", None):
        with pytest.raises(JudgeConfigError, match="set the environment variable LEXEVAL_TEST_KEY"):
            OpenAICompatible("m", base_url=url, api_key_env="LEXEVAL_TEST_KEY", cache=False)
    # a loopback server needs none
    OpenAICompatible("m", base_url="http://localhost:8080/v1", api_key_env="LEXEVAL_TEST_KEY")


def test_the_key_is_never_in_the_signature_nor_in_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LEXEVAL_TEST_KEY", SECRET)
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    backend = OpenAICompatible(
        "m", base_url=url, api_key_env="LEXEVAL_TEST_KEY", cache=tmp_path / "c", max_retries=0
    )
    judge = CorrectnessJudge(backend)
    assert SECRET not in judge.signature and SECRET not in repr(backend)
    with pytest.raises(JudgeBackendError) as caught:
        judge.measure("Paris", "Paris")
    assert "unreachable" in str(caught.value) and SECRET not in str(caught.value)
    assert backend.scrub(f"bad key {SECRET}") == "bad key ***"
    assert not (tmp_path / "c").exists() or SECRET not in (tmp_path / "c").read_bytes().decode(
        "utf-8", "replace"
    )


def test_invalid_options_are_refused() -> None:
    local = "http://127.0.0.1:8080/v1"
    with pytest.raises(JudgeConfigError):
        OpenAICompatible("m", base_url=local, concurrency=0)
    with pytest.raises(JudgeConfigError):
        OpenAICompatible("m", base_url=local, structured_output="xml")  # type: ignore[arg-type]
    backend = OpenAICompatible("m", base_url=local, cache=False)
    with pytest.raises(ValueError, match="mode"):
        CorrectnessJudge(backend, mode="vibes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale"):
        RubricJudge(backend, [Criterion("a", "b")], scale=(5, 1))
    with pytest.raises(ValueError, match="distinct"):
        RubricJudge(backend, [Criterion("a", "b"), Criterion("a", "c")])
    with pytest.raises(ValueError, match="weight"):
        Criterion("a", "b", weight=0)


def test_registry_builds_judges_and_asks_for_a_model() -> None:
    judge = get_metric(
        "judge:rubric",
        model="m",
        base_url="http://127.0.0.1:8080/v1",
        cache=False,
        criteria=[{"name": "accuracy", "description": "correct", "weight": 2}],
    )
    assert isinstance(judge, RubricJudge)
    assert judge.criteria == [Criterion("accuracy", "correct", 2.0)]
    assert "criteria:accuracy*2" in judge.signature
    with pytest.raises(JudgeConfigError, match="needs a judge model"):
        get_metric("judge:pairwise")


def test_cli_exits_2_with_one_line_when_the_server_is_down(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OPENAI_API_KEY=SECRET)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"prompt": "p", "a": "x", "b": "y"}\n', encoding="utf-8")
    url = f"http://127.0.0.1:{free_port()}/v1"
    for args in (
        ["score", "--metric", "judge:correctness", "--input", "a", "--output", "b"],
        ["judge", "pairwise", str(pairs), "--no-cache"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "lexeval", *args, "--judge-url", url, "--judge-model", "m"]
            + (
                ["--option", "cache=false", "--option", "max_retries=0"]
                if args[0] == "score"
                else []
            ),
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lexeval: error: judge:"), lines
        assert "judge server at" in lines[0]
        assert SECRET not in proc.stderr + proc.stdout


def test_cli_pairwise_names_the_bad_line(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"prompt": "p", "a": "x", "b": "y"}\n{"prompt": "p", "a": 3}\n', "utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lexeval",
            "judge",
            "pairwise",
            str(pairs),
            "--judge-url",
            "http://127.0.0.1:9/v1",
            "--judge-model",
            "m",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"lexeval: error: {pairs}:2: a: missing or not a string"


# ------------------------------------------------------------------ cache


def test_cache_persists_and_is_safe_across_threads(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "judgments.sqlite3"
    cache = JudgmentCache(path)
    keys = [cache_key({"i": i}) for i in range(40)]

    def write(part: list[str]) -> None:
        for key in part:
            cache.put(key, {"text": key})

    threads = [threading.Thread(target=write, args=(keys[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cache.close()
    reopened = JudgmentCache(path)
    assert len(reopened) == 40
    assert all(reopened.get(k) == {"text": k} for k in keys)
    assert cache_key({"a": 1, "b": [1, 2]}) != cache_key({"a": 1, "b": [2, 1]})


def test_completion_round_trips_through_the_cache_format() -> None:
    c = Completion("{}", 3, 1, {"Yes": -0.1}, "stop")
    back = Completion.from_dict(c.to_dict(), cached=True)
    assert back.cached and back.top_logprobs == {"Yes": -0.1} and back.text == "{}"


# ------------------------------------------------------------------ reading replies


def test_rubric_reply_reader_checks_every_criterion() -> None:
    backend = OpenAICompatible("m", base_url="http://127.0.0.1:8080/v1", cache=False)
    judge = RubricJudge(
        backend, [Criterion("accuracy", "a", weight=3), Criterion("fluency", "f")], scale=(1, 5)
    )
    good = Completion(
        '{"accuracy": {"evidence": "e", "justification": "j", "score": 4}, "fluency": 5}'
    )
    found = judge.read(good)
    assert found["accuracy"]["score"] == 4 and found["fluency"]["score"] == 5
    assert judge.total({k: v["score"] for k, v in found.items()}) == (3 * 0.75 + 1.0) / 4
    for bad in ('{"accuracy": {"score": 4}}', '{"accuracy": 9, "fluency": 1}', "nope"):
        with pytest.raises(ParseError):
            judge.read(Completion(bad))


def test_correctness_reader_accepts_json_or_a_verdict_line() -> None:
    from lexeval.judge.correctness import read_justified

    def _read_justified(completion: Completion) -> tuple[bool, float, str]:
        return read_justified(completion, [])

    assert _read_justified(Completion('{"verdict": "Incorrect", "confidence": 0.9}'))[:2] == (
        False,
        0.9,
    )
    assert _read_justified(Completion("It names Paris.\nVerdict: correct"))[0] is True
    assert _read_justified(Completion('{"verdict": "correct", "confidence": 0.1}'))[1] == 0.5
    for bad in (
        '{"verdict": "maybe"}',
        "I think so",
        '{"verdict": "correct", "confidence": "x"}',
        '{"verdict": "correct", "confidence": true}',
        '{"verdict": "correct", "confidence": null}',
    ):
        with pytest.raises(ParseError):
            _read_justified(Completion(bad))


# ------------------------------------------------------------------ pairwise


def test_swapped_passes_combine_into_a_winner_or_a_tie() -> None:
    a_first = PassVerdict("AB", "A", 0.9)
    assert combine(a_first, PassVerdict("BA", "A", 0.7)).winner == "A"
    inconsistent = combine(a_first, PassVerdict("BA", "B", 0.9))
    assert (inconsistent.winner, inconsistent.confidence, inconsistent.consistent) == (
        "tie",
        0.5,
        False,
    )
    # always picking position 1 (a pure position bias) gives no verdict, not a coin flip
    biased = [combine(PassVerdict("AB", "A", 1.0), PassVerdict("BA", "B", 1.0)) for _ in range(10)]
    assert {r.winner for r in biased} == {"tie"}
    consistency = position_consistency(biased)
    assert (consistency.consistency, consistency.first_position) == (0.0, 1.0)
    # log-probabilities: P(A) averaged over both orders
    lp = combine(PassVerdict("AB", "A", 0.9, p_first=0.9), PassVerdict("BA", "B", 0.8, p_first=0.8))
    assert lp.winner == "A" and math.isclose(lp.confidence, (0.9 + 0.2) / 2)
    unreadable = combine(PassVerdict("AB", None, math.nan, parse_error="x"), a_first)
    assert unreadable.winner is None and unreadable.parse_error == "pass AB: x"


def test_length_bias_compares_with_people() -> None:
    a = ["a much longer answer", "short", "a much longer answer", "short"]
    b = ["short", "a much longer answer", "short", "a much longer answer"]
    always_longer = [combine(PassVerdict("AB", w, 1.0), PassVerdict("BA", w, 1.0)) for w in "ABAB"]
    report = length_bias(always_longer, a, b, human=["B", "A", "A", "B"])
    assert (report.n_decided, report.longer_wins, report.share) == (4, 4, 1.0)
    assert report.human_share == 0.5
    assert report.ci_low < 1.0 and report.p_value == pytest.approx(0.125)


def test_pairwise_metric_reads_a_win_rate() -> None:
    backend = OpenAICompatible("m", base_url="http://127.0.0.1:8080/v1", cache=False)
    judge = PairwiseJudge(backend, mode="logprobs")
    messages = judge.messages("p", "first", "second")
    assert "<response_1>\nfirst\n</response_1>" in messages[1]["content"]
    assert "one character: 1 or 2" in messages[1]["content"]
    assert "do not favour the first or the second" in messages[0]["content"]


# ------------------------------------------------------------------ recorded verdicts (real data)


def _human() -> list[list[str]]:
    with open(OPENQA / "NQ301_human.tsv", encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh, delimiter="\t"))[1:]


def _kappa(a: list[bool], b: list[bool]) -> float:
    from scipy.stats import contingency

    table = contingency.crosstab(a, b).count
    n = table.sum()
    observed = (table[0, 0] + table[1, 1]) / n
    expected = (table[0].sum() * table[:, 0].sum() + table[1].sum() * table[:, 1].sum()) / n**2
    return float((observed - expected) / (1 - expected))


@pytest.mark.skipif(not OPENQA.is_dir(), reason="../shared/data/qa_human/openqa_eval is absent")
@pytest.mark.parametrize(
    ("file", "published"), [("NQ301_gpt-4.tsv", 0.696), ("NQ301_text-davinci-003.tsv", 0.675)]
)
def test_recorded_judges_reproduce_the_published_kappa(file: str, published: float) -> None:
    rows = _human()
    judge = RecordedJudge.from_openqa_eval(OPENQA / file)
    results = judge.measure_many(
        [["unused"]] * len(rows), [r[2] for r in rows], questions=[r[1] for r in rows]
    )
    human = [r[3] == "Yes" for r in rows]
    assert round(_kappa(human, [bool(r.passed) for r in results]), 3) == published
    assert all(r.score == float(bool(r.passed)) for r in results)
    assert results[0].info["reason"].startswith("Yes")


@pytest.mark.skipif(not OPENQA.is_dir(), reason="../shared/data/qa_human/openqa_eval is absent")
def test_recorded_judge_refuses_unaligned_files_and_unknown_outputs(tmp_path: Path) -> None:
    judge = RecordedJudge.from_openqa_eval(OPENQA / "NQ301_gpt-4.tsv")
    assert judge.mismatched_rows == [151]
    with pytest.raises(MissingVerdictError, match="no recorded verdict"):
        judge.measure("x", "an answer nobody gave", question="who?")
    short = tmp_path / "NQ301_human.tsv"
    short.write_text("".join((OPENQA / "NQ301_human.tsv").read_text("utf-8").splitlines(True)[:5]))
    with pytest.raises(ValueError, match="not aligned"):
        RecordedJudge.from_openqa_eval(OPENQA / "NQ301_gpt-4.tsv", aligned_with=short)


def test_score_passes_the_question_field_to_judges(tmp_path: Path) -> None:
    """The same answer is right for one question and wrong for another: only a judge that
    receives each record's question can tell them apart (and lexical metrics ignore it). The
    CLI runs in a child process that registers the recorded judge, so the registry of this
    process stays as it was."""
    import json

    rows = [
        {"input": "Paris", "output": "Paris", "question": "Capital of France?"},
        {"input": "Rome", "output": "Paris", "question": "Capital of Italy?"},
    ]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    program = (
        "import sys\n"
        "from lexeval.cli import main\n"
        "from lexeval.judge import RecordedJudge\n"
        "from lexeval.metrics.base import register_metric\n"
        "verdicts = {('Capital of France?', 'Paris'): True,\n"
        "            ('Capital of Italy?', 'Paris'): False}\n"
        "register_metric('recorded', lambda: RecordedJudge(verdicts))\n"
        "sys.exit(main(['score', *sys.argv[1:]]))\n"
    )

    def score(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
        return subprocess.run(
            [sys.executable, "-c", program, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    alone = score("--metric", "recorded", str(pairs))
    assert alone.returncode == 0, alone.stderr
    assert [json.loads(line)["recorded"]["passed"] for line in alone.stdout.splitlines()] == [
        True,
        False,
    ]
    both = score("--metric", "recorded,token_f1", str(pairs))
    assert both.returncode == 0, both.stderr
    lines = [json.loads(line) for line in both.stdout.splitlines()]
    assert [r["recorded"]["passed"] for r in lines] == [True, False]
    assert [r["token_f1"]["score"] for r in lines] == [1.0, 0.0]
    assert "50.0% (1/2, the judge's verdicts" in both.stderr  # its pass rate in the summary
    pairs.write_text(json.dumps({**rows[0], "question": 3}) + "\n", encoding="utf-8")
    bad = score("--metric", "token_f1", str(pairs))
    assert bad.returncode == 2
    assert "pairs.jsonl:1: question: expected a string" in bad.stderr
