"""The run store with real processes: 8 commands saving at once into a store none of them
found (all land, one store made), 8 writers saving many runs at once, a process killed with
SIGKILL inside its save transaction (no half-written run, the store still opens and takes new
runs), and writers killed at random moments many times over."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lexeval.runs import RunStore

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

RECORDS = [
    {"id": f"r{i}", "reference": f"the cat {i} sat on the mat", "output": f"a cat {i % 3} sat"}
    for i in range(20)
]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LEXEVAL_STORE": ""}


def _consistent(path: Path) -> list[int]:
    """Check the store as a whole: SQLite finds it sound, every run has its means and a
    document that parses; the run ids."""
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        orphans = connection.execute(
            "SELECT COUNT(*) FROM run_means WHERE run_id NOT IN (SELECT id FROM runs)"
        ).fetchone()[0]
        assert orphans == 0
    finally:
        connection.close()
    with RunStore.open(path) as store:
        runs = store.list()
        for run in runs:
            loaded = store.load(run.id)
            data = loaded.data()
            assert run.means and set(run.means) == set(data["summary"]), run.id
    return [run.id for run in runs]


def test_eight_commands_saving_at_once_all_land(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    store = tmp_path / "new" / "runs.sqlite"  # none of them finds a store
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lexeval",
                "score",
                str(records),
                "--metric",
                "token_f1",
                "--option",
                "compat=squad",
                "--save",
                "--label",
                f"process {i}",
                "--store",
                str(store),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
            cwd=tmp_path,
        )
        for i in range(8)
    ]
    outputs = [p.communicate(timeout=600) for p in processes]
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
        assert out.count("\n") == len(RECORDS) and "saved run " in err
    assert _consistent(store) == list(range(1, 9))
    with RunStore.open(store) as opened:
        labels = sorted(r.label or "" for r in opened.list())
    assert labels == [f"process {i}" for i in range(8)]
    leftovers = sorted(p.name for p in store.parent.iterdir())
    assert [n for n in leftovers if n.endswith(".tmp")] == []  # the losers' temporary stores


WRITER = """
import json, os, sys, time
from lexeval.runs import RunStore

path, go, count, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
document = {
    "metrics": {"m1": "m1|v:1", "m2": "m2|v:1"},
    "summary": {"m1": {"mean": 0.25}, "m2": {"mean": 0.75}},
    "results": [{"line": i, "m1": {"score": 0.25}, "m2": {"score": 0.75}, "text": "x" * 2000}
                for i in range(int(sys.argv[5]) if len(sys.argv) > 5 else 20)],
}
while not os.path.exists(go):
    time.sleep(0.005)
with RunStore.open(path, create=True) as store:
    i = 0
    while count < 0 or i < count:
        run_id = store.save("score", document, label=f"{tag} {i}", detect_git=False)
        print(run_id, flush=True)
        i += 1
"""


def test_eight_writers_saving_many_runs_at_once(tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    store, go = tmp_path / "runs.sqlite", tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), str(store), str(go), "25", f"w{i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for i in range(8)
    ]
    time.sleep(1.0)
    go.touch()
    reported: list[int] = []
    for writer in writers:
        out, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err
        reported += [int(line) for line in out.split()]
    assert len(reported) == 200 and sorted(reported) == _consistent(store)


PAUSING = """
import faulthandler, signal, sqlite3, sys, time
faulthandler.register(signal.SIGUSR1, all_threads=True)  # where it is, should it hang

class Pausing(sqlite3.Connection):
    def execute(self, sql, *args):
        if sql == "COMMIT" and self.in_transaction and getattr(self, "inserted", False):
            print("inside the transaction", flush=True)
            # short sleeps: a signal that lands after Python's last check and before the
            # sleep's system call is only acted on when that call returns (time.sleep does
            # not look before sleeping), so one long sleep could hold SIGTERM for minutes
            for _ in range(6000):
                time.sleep(0.1)
        if sql.startswith("INSERT INTO runs"):
            self.inserted = True
        return super().execute(sql, *args)

connect = sqlite3.connect
sqlite3.connect = lambda *a, **k: connect(*a, factory=Pausing, **k)
sys.argv = ["lexeval", *sys.argv[1:]]
from lexeval.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_process_killed_inside_its_save_leaves_no_half_run(tmp_path: Path, how: str) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    store = tmp_path / "runs.sqlite"
    with RunStore.open(store, create=True) as opened:
        opened.save("score", {"summary": {"m": {"mean": 0.5}}}, label="before", detect_git=False)
        opened.bless(1, "main")
    before = store.read_bytes()
    script = tmp_path / "pausing.py"
    script.write_text(PAUSING, encoding="utf-8")
    process = subprocess.Popen(
        [
            sys.executable,
            str(script),
            "score",
            str(records),
            "--metric",
            "token_f1",
            "--option",
            "compat=squad",
            "--save",
            "--label",
            "killed",
            "--store",
            str(store),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert process.stdout is not None
        lines = []
        deadline = time.monotonic() + 300
        while "inside the transaction\n" not in lines:
            line = process.stdout.readline()
            assert line and time.monotonic() < deadline, process.stderr and process.stderr.read()
            lines.append(line)
        # meanwhile a reader sees the store as it was (WAL: readers do not wait for writers)
        with RunStore.open(store) as reader:
            assert [r.label for r in reader.list()] == ["before"]
        process.send_signal(getattr(signal, how))
        try:
            _, errors = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            status = "".join(  # its state, threads and signals: pending, blocked, ignored
                line
                for line in Path(f"/proc/{process.pid}/status").read_text("utf-8").splitlines(True)
                if line.startswith(("State", "Threads", "Sig", "ShdPnd"))
            )
            process.send_signal(signal.SIGUSR1)  # its threads' stacks on stderr
            time.sleep(1)
            process.kill()
            _, errors = process.communicate()
            pytest.fail(f"still running 30 s after {how}:\n{status}\n{errors}")
        if how == "SIGTERM":  # caught: the transaction is rolled back, one line, exit 143
            assert process.returncode == 143 and errors.endswith("terminated by SIGTERM\n")
        else:
            assert process.returncode == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert store.read_bytes() == before  # the unfinished run never reached the file itself
    assert _consistent(store) == [1]
    with RunStore.open(store) as opened:
        assert [r.label for r in opened.list()] == ["before"]
        assert opened.save("score", {"summary": {"m": {"mean": 1.0}}}, detect_git=False) == 2
        assert opened.baseline("main").id == 1
    assert _consistent(store) == [1, 2]


def test_writers_killed_at_random_moments(tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    store, go = tmp_path / "runs.sqlite", tmp_path / "go"
    go.touch()
    chooser = random.Random(20261129)
    reported: list[int] = []
    rounds = 12
    for round_number in range(rounds):
        writers = [
            subprocess.Popen(
                [sys.executable, str(script), str(store), str(go), "-1", f"k{round_number}", "200"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
            )
            for _ in range(2)
        ]
        time.sleep(chooser.uniform(0.4, 1.6))
        for writer in writers:
            with contextlib.suppress(ProcessLookupError):
                writer.send_signal(signal.SIGKILL)
        for writer in writers:
            out, _ = writer.communicate(timeout=60)
            assert writer.returncode == -signal.SIGKILL
            reported += [int(line) for line in out.split()]
    stored = _consistent(store)
    # every run a writer said it saved is there; the only others are runs committed just
    # before the kill, before their id was printed (at most one per writer)
    assert set(reported) <= set(stored)
    assert len(set(stored) - set(reported)) <= 2 * rounds
    assert len(stored) == len(set(stored)) and reported, "no run was saved"
