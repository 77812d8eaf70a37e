"""The run store (lexeval.runs) and the command line around it: --save, --baseline and
``lexeval runs``; files that are not a current store are refused and left byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lexeval.cli import main
from lexeval.runs import APPLICATION_ID, SCHEMA_VERSION, RunStore, StoreError
from lexeval.runs.schema import create_schema

RECORDS = [
    {"id": "a", "reference": "the cat sat on the mat", "output": "the cat sat on a mat"},
    {"id": "b", "reference": "Paris is the capital of France", "output": "Paris is the capital"},
    {"id": "c", "reference": "water boils at 100 degrees", "output": "water boils at 100"},
    {"id": "d", "reference": "the quick brown fox", "output": "the quick brown fox"},
]
WORSE = [dict(r, output="nothing here") if r["id"] in ("a", "c") else r for r in RECORDS]
METRIC = ["--metric", "token_f1", "--option", "compat=squad"]


def _jsonl(path: Path, records: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _document(mean: float = 0.5, n: int = 1) -> dict[str, Any]:
    return {
        "metrics": {"token_f1": "token_f1|v:1"},
        "summary": {"token_f1": {"mean": mean}},
        "results": [
            {"line": i + 1, "token_f1": {"score": mean, "info": {}, "passed": None}}
            for i in range(n)
        ],
    }


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory of the commands (the default store lives under it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEXEVAL_STORE", raising=False)
    _jsonl(tmp_path / "good.jsonl", RECORDS)
    _jsonl(tmp_path / "worse.jsonl", WORSE)
    return tmp_path


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- the Python API


def test_save_list_load_bless_delete_prune(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "runs.sqlite"
    with pytest.raises(StoreError, match="no run store here"):
        RunStore.open(path)
    assert not path.exists()
    with RunStore.open(path, create=True) as store:
        ids = [
            store.save("score", _document(0.1 * i), label=f"r{i}", detect_git=False)
            for i in range(1, 6)
        ]
        assert ids == [1, 2, 3, 4, 5]
        assert store.bless(2, "main") is None
        assert store.bless(3, "main") == 2  # a baseline name moves
        store.bless(3, "release")
        listed = store.list()
        assert [(r.id, r.label, r.baselines) for r in listed] == [
            (1, "r1", ()),
            (2, "r2", ()),
            (3, "r3", ("main", "release")),
            (4, "r4", ()),
            (5, "r5", ()),
        ]
        assert all(r.document is None for r in listed)
        assert listed[3].means == {"token_f1": pytest.approx(0.4)}
        assert store.baseline("main").id == 3 == store.load("release").id
        assert store.load("4").data() == _document(0.4)
        with pytest.raises(StoreError, match="no baseline named 'nope'"):
            store.baseline("nope")
        with pytest.raises(StoreError, match="is the baseline 'main', 'release'"):
            store.delete(3)
        assert store.prune(1) == [1, 2, 4]  # the newest run and every blessed run stay
        assert [r.id for r in store.list()] == [3, 5]
        assert store.delete(3, force=True) == ("main", "release")
        with pytest.raises(StoreError, match="no baseline"):
            store.baseline("main")
        assert store.save("cards", {"totals": {"micro": {"f1": 0.5}}}, detect_git=False) == 6
        cards = store.load(6)
        assert cards.kind == "cards" and cards.means["micro.f1"] == 0.5
        with pytest.raises(StoreError, match="neither a number"):
            store.bless(6, "12")
        with pytest.raises(StoreError, match="unknown kind"):
            store.save("other", _document())
        with pytest.raises(StoreError, match="no run 99"):
            store.delete(99)
    # a store is a SQLite file of lexeval's, in WAL mode, of this schema
    connection = sqlite3.connect(path)
    pragmas = [
        connection.execute(f"PRAGMA {p}").fetchone()[0]
        for p in ("application_id", "user_version", "journal_mode")
    ]
    connection.close()
    assert pragmas == [APPLICATION_ID, SCHEMA_VERSION, "wal"]


def test_a_run_records_command_version_time_and_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.skip("no git on PATH")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    for command in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True, timeout=30)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    store_file = tmp_path / "runs.sqlite"
    monkeypatch.chdir(repo)  # restored after the test: the process's directory is shared
    with RunStore.open(store_file, create=True) as store:
        store.save("score", _document(), command=["lexeval", "score", "x"])
        run = store.load(1)
    assert run.git_commit == head and len(head) == 40
    assert run.command == ("lexeval", "score", "x") and run.lexeval_version
    assert run.created.endswith("+00:00") and run.created[:2] == "20"
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    with RunStore.open(store_file) as store:
        assert store.load(store.save("score", _document())).git_commit is None


# ---------------------------------------------------------------- --save


@pytest.mark.parametrize("output", ["jsonl", "json", "csv"])
def test_saving_changes_neither_stdout_nor_the_exit_code(
    here: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    args = ["score", "good.jsonl", *METRIC, "--format", output, "--fail-under", "token_f1=0.99"]
    plain = _cli(capsys, *args)
    saved = _cli(capsys, *args, "--save", "--label", "first")
    assert plain[0] == saved[0] == 1  # the gate fails either way
    assert saved[1] == plain[1]
    assert "saved run 1 to .lexeval/runs.sqlite" in saved[2]
    code, document, _ = _cli(capsys, "runs", "show", "1", "--format", "json")
    assert code == 0
    if output == "json":
        assert document == plain[1]  # byte for byte what the command wrote
    data = json.loads(document)
    assert set(data) == {"metrics", "summary", "results"} and len(data["results"]) == 4
    code, out, _ = _cli(capsys, "runs", "show", "1")
    assert code == 0 and "\nlabel          first\n" in out
    assert "--fail-under token_f1=0.99 --save --label first" in out


def test_a_single_pair_and_a_card_run_are_saved(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    single = ["score", "--input", "the cat sat", "--output", "the cat", *METRIC]
    plain = _cli(capsys, *single)
    saved = _cli(capsys, *single, "--save")
    assert saved[:2] == plain[:2] and plain[0] == 0
    shown = json.loads(_cli(capsys, "runs", "show", "1", "--format", "json")[1])
    assert shown["results"][0]["token_f1"]["score"] == json.loads(plain[1])["score"]
    examples = Path(__file__).resolve().parents[2] / "examples" / "flashcards"
    dataset, outputs = examples / "dataset.yaml", examples / "outputs" / "prompt_v1.yaml"
    report = here / "report.json"
    code, out, _ = _cli(capsys, "cards", str(dataset), str(outputs), "--json", str(report))
    code_saved, out_saved, _ = _cli(
        capsys, "cards", str(dataset), str(outputs), "--save", "--json", "-"
    )
    assert code == code_saved
    assert json.loads(out_saved) == json.loads(report.read_text(encoding="utf-8"))
    stored = _cli(capsys, "runs", "show", "2", "--format", "json")[1]
    assert stored == out_saved
    code, out, _ = _cli(capsys, "runs", "list", "--format", "json")
    listed = json.loads(out)
    assert [(r["id"], r["kind"]) for r in listed] == [(1, "score"), (2, "cards")]
    assert set(listed[1]["means"]) >= {"micro.recall", "micro.f1", "macro.f1"}
    code, out, _ = _cli(capsys, "runs", "list")
    assert code == 0 and "2 runs in .lexeval/runs.sqlite" in out and "micro.f1" in out


def test_store_options_and_environment(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _cli(capsys, "score", "good.jsonl", *METRIC, "--label", "x")
    assert code == 2 and "--label names a saved run" in err and err.count("\n") == 1
    code, _, err = _cli(capsys, "score", "good.jsonl", *METRIC, "--max-drop", "0.1")
    assert code == 2 and "--max-drop goes with --baseline" in err
    monkeypatch.setenv("LEXEVAL_STORE", str(here / "env.sqlite"))
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[0] == 0
    assert (here / "env.sqlite").is_file() and not (here / ".lexeval").exists()
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save", "--store", "o.sqlite")[0] == 0
    assert json.loads(_cli(capsys, "runs", "list", "--format", "json")[1])[0]["id"] == 1
    code, out, _ = _cli(capsys, "runs", "list", "--store", "o.sqlite", "--format", "json")
    assert code == 0 and len(json.loads(out)) == 1
    code, _, err = _cli(capsys, "runs", "list", "--store", "missing.sqlite")
    assert code == 2 and "no run store here" in err and not (here / "missing.sqlite").exists()
    code, _, err = _cli(capsys, "runs")
    assert code == 2 and "runs needs an action" in err


def test_a_refused_run_leaves_no_new_store(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "bad.jsonl").write_text('{"input": "a", "output": "b"}\nnot json\n', encoding="utf-8")
    code, out, err = _cli(capsys, "score", "bad.jsonl", *METRIC, "--save", "--store", "n.sqlite")
    assert code == 2 and out == "" and "bad.jsonl" in err and err.count("\n") == 1
    assert not (here / "n.sqlite").exists()
    # a store folder that cannot be made is refused before any work
    (here / "file").write_text("x", encoding="utf-8")
    code, out, err = _cli(capsys, "score", "good.jsonl", *METRIC, "--save", "--store", "file/r.db")
    assert code == 2 and out == "" and "cannot make a run store here" in err
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save", "--store", "n.sqlite")[0] == 0
    assert (here / "n.sqlite").is_file()


def test_a_key_in_the_judge_url_is_not_stored(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "https://bob:s3cr3t@judge.example/v1?api-key=k3y&api-version=2"
    code, _, err = _cli(capsys, "score", "good.jsonl", *METRIC, "--judge-url", url, "--save")
    assert code == 0, err
    command = json.loads(_cli(capsys, "runs", "list", "--format", "json")[1])[0]["command"]
    assert "https://judge.example/v1?api-version=2" in command
    assert not [part for part in command if "s3cr3t" in part or "k3y" in part or "bob" in part]
    raw = b"".join(p.read_bytes() for p in (here / ".lexeval").iterdir())
    assert b"judge.example/v1" in raw and b"s3cr3t" not in raw and b"k3y" not in raw


# ---------------------------------------------------------------- baselines and diff


def test_the_baseline_gate(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[0] == 0
    code, _, err = _cli(capsys, "score", "good.jsonl", *METRIC, "--baseline", "main")
    assert code == 2 and "no baseline named 'main'" in err and err.count("\n") == 1
    assert _cli(capsys, "runs", "bless", "1", "main")[0] == 0
    # the same run: passes, the comparison on stderr, stdout as without --baseline
    plain = _cli(capsys, "score", "good.jsonl", *METRIC)
    code, out, err = _cli(capsys, "score", "good.jsonl", *METRIC, "--baseline", "main")
    assert code == 0 and out == plain[1]
    assert "baseline vs candidate" in err and "PASS" in err
    # a drop beyond --max-drop fails; a large enough tolerance passes
    code, out, err = _cli(capsys, "score", "worse.jsonl", *METRIC, "--baseline", "main", "--save")
    assert code == 1 and "FAIL regression beyond 0.02" in err and out.count("\n") == 4
    assert "saved run 2" in err  # the failing run is recorded too
    args = ["score", "worse.jsonl", *METRIC, "--baseline", "main", "--max-drop", "0.9"]
    assert _cli(capsys, *args)[0] == 0
    # other settings, other metrics or other records: exit 2, one line, nothing on stdout
    for other in (
        ["good.jsonl", "--metric", "token_f1"],
        ["good.jsonl", "--metric", "rouge1"],
        ["--input", "a", "--output", "b", *METRIC],
    ):
        code, out, err = _cli(capsys, "score", *other, "--baseline", "main")
        assert code == 2 and out == "" and err.count("\n") == 1, err
    err = _cli(capsys, "score", "good.jsonl", "--metric", "token_f1", "--baseline", "main")[2]
    assert "signatures differ" in err and "bless a run made with these settings" in err
    assert "--allow-signature-mismatch" not in err
    # a baseline of another kind
    examples = Path(__file__).resolve().parents[2] / "examples" / "flashcards"
    cards = ["cards", str(examples / "dataset.yaml"), str(examples / "outputs" / "prompt_v1.yaml")]
    code, out, err = _cli(capsys, *cards, "--baseline", "main")
    assert code == 2 and "is a score run" in err and out == ""


def test_card_baselines_and_diff(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "flashcards"
    dataset = str(examples / "dataset.yaml")
    v1, v2 = (str(examples / "outputs" / f"prompt_v{i}.yaml") for i in (1, 2))
    v2 = str(examples / "outputs" / "prompt_v2.jsonl")
    assert _cli(capsys, "cards", dataset, v1, "--save", "--label", "v1")[0] in (0, 1)
    assert _cli(capsys, "cards", dataset, v2, "--save", "--label", "v2")[0] in (0, 1)
    assert _cli(capsys, "runs", "bless", "1", "main")[0] == 0
    compared = here / "a.json"
    _cli(capsys, "cards", dataset, v1, "--json", str(compared))
    candidate = here / "b.json"
    _cli(capsys, "cards", dataset, v2, "--json", str(candidate))
    expected_code, expected_out, _ = _cli(
        capsys, "compare", str(compared), str(candidate), "--markdown", "-"
    )
    code, out, _ = _cli(capsys, "runs", "diff", "main", "2", "--markdown", "-")
    assert code == expected_code
    # the same report as 'lexeval compare' of the two files, but for the runs' names
    assert out.split("\n", 3)[3] == expected_out.split("\n", 3)[3]
    code, out, err = _cli(capsys, "cards", dataset, v2, "--baseline", "main", "--quiet")
    assert code == expected_code and "baseline vs candidate" in out
    code, out, err = _cli(capsys, "cards", dataset, v2, "--threshold", "0.5", "--baseline", "main")
    assert code == 2 and out == "" and "signatures differ" in err and err.count("\n") == 1
    # a scored run and a card run are not compared
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[0] == 0
    code, _, err = _cli(capsys, "runs", "diff", "1", "3")
    assert code == 2 and "same kind" in err and err.count("\n") == 1


def test_runs_diff_of_scored_runs_matches_compare(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("good", "worse"):
        _, out, _ = _cli(capsys, "score", f"{name}.jsonl", *METRIC, "--format", "json", "--save")
        (here / f"{name}.json").write_text(out, encoding="utf-8")
    expected = _cli(capsys, "compare", "good.json", "worse.json", "--markdown", "-")
    got = _cli(capsys, "runs", "diff", "1", "2", "--markdown", "-")
    assert got[0] == expected[0] == 1
    assert got[1].split("|", 1)[1] == expected[1].split("|", 1)[1]
    page = here / "diff.html"
    assert _cli(capsys, "runs", "diff", "1", "2", "--html", str(page))[0] == 1
    assert "paired bootstrap over 4 records" in page.read_text(encoding="utf-8")
    assert _cli(capsys, "runs", "diff", "1", "1")[0] == 0


def test_delete_and_prune_commands(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(4):
        assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[0] == 0
    assert _cli(capsys, "runs", "bless", "1", "main")[0] == 0
    code, _, err = _cli(capsys, "runs", "delete", "1")
    assert code == 2 and "--force" in err
    assert _cli(capsys, "runs", "delete", "2")[0] == 0
    code, _, err = _cli(capsys, "runs", "prune", "--keep", "1")
    assert code == 0 and "deleted 1 runs (3)" in err
    listed = json.loads(_cli(capsys, "runs", "list", "--format", "json")[1])
    assert [r["id"] for r in listed] == [1, 4]
    code, _, err = _cli(capsys, "runs", "delete", "1", "--force")
    assert code == 0 and "'main'" in err
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[2].count("saved run 5") == 1


def test_a_run_id_beyond_sqlite_integers_is_no_run(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[0] == 0
    huge = "9" * 30
    for args in (("show", huge), ("bless", huge, "main"), ("delete", huge), ("diff", "1", huge)):
        code, out, err = _cli(capsys, "runs", *args)
        assert code == 2 and out == "" and "Traceback" not in err, err
        assert err.startswith("lexeval: error: ") and err.count("\n") == 1, err
        assert f"no run {huge}" in err
    with RunStore.open() as store:
        for ref in (2**63, "9" * 5000, "\u0661"):  # beyond SQLite, beyond int(), not ASCII
            with pytest.raises(StoreError, match="no run"):
                store.load(ref)


def test_a_report_is_never_written_over_the_run_store(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    invoices, cards = examples / "invoices", examples / "flashcards"
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save", "--store", "s.db")[0] == 0
    assert _cli(capsys, "runs", "bless", "1", "main", "--store", "s.db")[0] == 0
    before = (here / "s.db").read_bytes()
    commands = [
        ["score", "good.jsonl", *METRIC, "--html"],
        [
            "cards",
            str(cards / "dataset.yaml"),
            str(cards / "outputs" / "prompt_v2.jsonl"),
            "--json",
        ],
        [
            "cards",
            str(cards / "dataset.yaml"),
            str(cards / "outputs" / "prompt_v2.jsonl"),
            "--html",
        ],
        ["match", str(invoices / "dataset.yaml"), str(invoices / "outputs.jsonl"), "--json"],
        ["match", str(invoices / "dataset.yaml"), str(invoices / "outputs.jsonl"), "--html"],
    ]
    for command in commands:
        for store in (["--save", "--store", "s.db"], ["--baseline", "main", "--store", "s.db"]):
            code, out, err = _cli(capsys, *command, "s.db", *store)
            assert code == 2 and out == "", (command, err)
            assert "STORE" in err and err.count("\n") == 1, (command, err)
            assert (here / "s.db").read_bytes() == before, command
    monkeypatch.setenv("LEXEVAL_STORE", "s.db")
    code, _, err = _cli(capsys, *commands[-1], "s.db", "--save")
    assert code == 2 and "STORE" in err and (here / "s.db").read_bytes() == before


def test_stored_text_cannot_drive_the_terminal(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = "v2\x1b]0;pwned\x07\x1b[2J"
    assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save", "--label", label)[0] == 0
    assert _cli(capsys, "runs", "bless", "1", "main\x1b[31m")[0] == 0
    for args in (("list",), ("show", "1")):
        code, out, _ = _cli(capsys, "runs", *args)
        assert code == 0 and "\x1b" not in out and "\x07" not in out, out
        assert "\\x1b" in out  # shown, escaped
    listed = json.loads(_cli(capsys, "runs", "list", "--format", "json")[1])
    assert listed[0]["label"] == label  # the data itself is kept as given


def test_runs_diff_reports_cannot_share_a_file(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):
        assert _cli(capsys, "score", "good.jsonl", *METRIC, "--save")[0] == 0
    code, out, err = _cli(
        capsys, "runs", "diff", "1", "2", "--markdown", "d.out", "--html", "d.out"
    )
    assert code == 2 and out == "" and "--html" in err and err.count("\n") == 1, err
    assert not (here / "d.out").exists()


def test_a_mean_beyond_a_float_is_listed_as_none(tmp_path: Path) -> None:
    document = _document()
    document["summary"]["token_f1"]["mean"] = 10**400
    with RunStore.open(tmp_path / "s.db", create=True) as store:
        run_id = store.save("score", document, detect_git=False)
        assert dict(store.load(run_id).means) == {"token_f1": None}


# ---------------------------------------------------------------- files that are not a store


def _other_sqlite(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE notes (x TEXT)")
    connection.execute("INSERT INTO notes VALUES ('keep me')")
    connection.commit()
    connection.close()


def _newer_store(path: Path) -> None:
    with RunStore.open(path, create=True) as store:
        store.save("score", _document(), detect_git=False)
        store.bless(1, "main")
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.commit()
    connection.execute("PRAGMA journal_mode = DELETE")  # everything in the file itself
    connection.close()


def _corrupt_store(path: Path) -> None:
    with RunStore.open(path, create=True) as store:
        for _ in range(30):
            store.save("score", _document(0.5, n=40), detect_git=False)
        store.bless(1, "main")
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = DELETE")
    connection.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for start in range(page, len(data), page):  # every page after the first: garbage
        data[start : start + page] = bytes((start // page * 37 + i) % 251 for i in range(page))
    path.write_bytes(bytes(data))


def _corrupt_first_page(path: Path) -> None:
    _corrupt_store(path)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)  # the header stays, the schema does not
    path.write_bytes(bytes(data))


BAD_FILES = {
    "text": (lambda p: p.write_text("not a database\n" * 20), "not a SQLite database"),
    "empty": (lambda p: p.write_bytes(b""), "not a SQLite database"),
    "other sqlite": (_other_sqlite, "not a lexeval run store"),
    "newer store": (_newer_store, "written by a newer lexeval"),
    "corrupt store": (_corrupt_store, "corrupt"),
    "corrupt schema": (_corrupt_first_page, "corrupt"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_a_file_that_is_not_a_current_store_is_refused_and_left_alone(
    kind: str, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, message = BAD_FILES[kind]
    path = here / "bad.sqlite"
    make(path)
    before = path.read_bytes()
    commands = [
        ["score", "good.jsonl", *METRIC, "--save"],
        ["score", "good.jsonl", *METRIC, "--baseline", "main"],
        ["runs", "list"],
        ["runs", "show", "1"],
        ["runs", "bless", "1", "x"],
        ["runs", "delete", "1"],
        ["runs", "prune", "--keep", "0"],
        ["runs", "diff", "1", "1"],
        ["runs", "html", "--out", str(here / "h.html")],
        ["runs", "migrate"],
    ]
    for command in commands:
        code, out, err = _cli(capsys, *command, "--store", str(path))
        assert code == 2, (command, err)
        assert out == "" and err.count("\n") == 1 and err.startswith("lexeval: error: ")
        if kind != "corrupt store" or command[0] != "runs":  # rows are read only when asked
            assert message in err or "malformed" in err, (command, err)
        assert path.read_bytes() == before, command
    if kind in ("text", "empty", "other sqlite"):  # never opened as a database
        assert sorted(p.name for p in here.iterdir() if p.name.startswith("bad")) == ["bad.sqlite"]
    assert not (here / "h.html").exists()


# ---------------------------------------------------------------- migrations


def _version_1_store(path: Path) -> None:
    """A store as lexeval wrote it with schema 1 (no commits, no stored means)."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN")
    create_schema(connection, 1)
    for i, mean in enumerate((0.25, 0.75), start=1):
        connection.execute(
            "INSERT INTO runs (kind, label, created, command, lexeval_version, document) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                "score",
                f"old {i}",
                f"2025-01-0{i}T00:00:00+00:00",
                '["lexeval", "score"]',
                "0.0.9",
                json.dumps(_document(mean, n=3)),
            ),
        )
    connection.execute(
        "INSERT INTO runs (kind, label, created, command, lexeval_version, document) "
        "VALUES ('cards', NULL, '2025-01-03T00:00:00+00:00', '[]', '0.0.9', ?)",
        (json.dumps({"totals": {"micro": {"recall": 0.5, "f1": 0.6}, "macro": {"f1": 0.4}}}),),
    )
    connection.execute(
        "INSERT INTO baselines (name, run_id, blessed) VALUES ('main', 2, '2025-01-02')"
    )
    connection.execute("COMMIT")
    connection.close()


FIXTURE = Path(__file__).resolve().parents[1] / "data" / "runs_schema1.sqlite"


def test_the_schema_1_fixture_is_what_schema_1_makes(tmp_path: Path) -> None:
    made = tmp_path / "made.sqlite"
    _version_1_store(made)
    tables = []
    for path in (FIXTURE, made):
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables.append(
            (
                connection.execute(
                    "SELECT type, name, sql FROM sqlite_master ORDER BY name"
                ).fetchall(),
                connection.execute("SELECT * FROM runs ORDER BY id").fetchall(),
                connection.execute("PRAGMA user_version").fetchone()[0],
                connection.execute("PRAGMA application_id").fetchone()[0],
            )
        )
        connection.close()
    assert tables[0] == tables[1] and tables[0][2] == 1 and tables[0][3] == APPLICATION_ID


def test_an_older_store_is_migrated_only_when_asked(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = here / "old.sqlite"
    shutil.copyfile(FIXTURE, path)
    before = path.read_bytes()
    for command in (["runs", "list"], ["score", "good.jsonl", *METRIC, "--save"]):
        code, _, err = _cli(capsys, *command, "--store", str(path))
        assert code == 2 and "lexeval runs migrate" in err and err.count("\n") == 1
        assert path.read_bytes() == before
    code, _, err = _cli(capsys, "runs", "migrate", "--store", str(path))
    assert code == 0 and "migrated from schema 1 to 2" in err
    code, _, err = _cli(capsys, "runs", "migrate", "--store", str(path))
    assert code == 0 and "already at schema 2" in err
    with RunStore.open(path) as store:
        runs = store.list()
        assert [(r.id, r.label, r.git_commit, r.baselines) for r in runs] == [
            (1, "old 1", None, ()),
            (2, "old 2", None, ("main",)),
            (3, None, None, ()),
        ]
        assert runs[0].means == {"token_f1": 0.25} and runs[1].means == {"token_f1": 0.75}
        assert runs[2].means["micro.f1"] == 0.6 and runs[2].means["micro.precision"] is None
        assert store.baseline("main").data() == _document(0.75, n=3)
        assert store.save("score", _document(), detect_git=False) == 4
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.close()


def test_a_failed_migration_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FIXTURE, path)
    connection = sqlite3.connect(path)
    connection.execute("UPDATE runs SET document = 'not json' WHERE id = 2")
    connection.commit()
    connection.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="run 2: its stored document is not JSON; not migrated"):
        RunStore.migrate(path)
    assert path.read_bytes() == before
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    connection.close()
    assert "run_means" not in tables


# ---------------------------------------------------------------- the history page


def test_history_page(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("good", "worse", "good"):
        assert _cli(
            capsys, "score", f"{name}.jsonl", *METRIC, "--save", "--label", f"<i>{name}</i>"
        )[0] in (0, 1)
    assert _cli(capsys, "runs", "bless", "3", "main")[0] == 0
    page = here / "history.html"
    code, out, err = _cli(capsys, "runs", "html", "--out", str(page))
    assert code == 0 and out == "" and "history of 3 runs" in err
    text = page.read_text(encoding="utf-8")
    assert text.count('<section class="run" id="run-') == 3
    assert text.count("<circle") == 3 and 'class="point blessed"' in text
    assert "&lt;i&gt;worse&lt;/i&gt;" in text and "<i>worse" not in text
    assert "default-src 'none'" in text and "<script" not in text
    assert not [
        h for h in __import__("re").findall(r'href="([^"]*)"', text) if not h.startswith("#")
    ]
