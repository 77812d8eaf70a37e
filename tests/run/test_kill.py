"""A caller killed while its pool runs, in every start method and every way: every process
it started (workers, and the standard library's fork server and resource tracker) is gone
within a few seconds, nothing is printed, and no file is left in the temporary directory or
/dev/shm; a script without a ``__main__`` guard under spawn gets an error that says so. Each
test starts a caller process (a few seconds each)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

CALLER = """
import multiprocessing, sys, threading, time
from lexeval.metrics import TokenF1Metric
from lexeval.run import measure_many

SCORER = TokenF1Metric(compat="squad")  # no spaCy to load: the workers start at once

def report():
    while True:
        children = multiprocessing.active_children()
        if len(children) >= 2:
            print(" ".join(str(c.pid) for c in children), flush=True)
            return
        time.sleep(0.02)

if __name__ == "__main__":
    pairs = [(f"the cat {i} sat on the mat", f"a cat {i % 7} on a mat") for i in range(10**5)]
    if sys.argv[1] == "forkserver":  # a first call: the one killed finds the server running
        measure_many(SCORER, *zip(*pairs[:600]), workers=2, start_method=sys.argv[1])
    threading.Thread(target=report, daemon=True).start()
    try:
        while True:
            measure_many(SCORER, *zip(*pairs), workers=2, start_method=sys.argv[1])
    except KeyboardInterrupt:
        sys.exit(130)
"""


def _session(sid: int) -> list[int]:
    """The running processes of session ``sid`` (zombies, which only wait for their parent
    to read their status, are not running)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:
            found.append(int(name))
    return found


def _following(pid: int, method: str) -> bool:
    """Whether worker ``pid`` follows its caller already: it ignores SIGINT and, under
    forkserver, handles SIGTERM (a SIGTERM to the group before that, while the worker starts,
    would leave the fork server's socket directory behind: docs/scale.md)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        masks = dict(line.split(":\t", 1) for line in status.read().splitlines() if ":\t" in line)
    ignored, caught = int(masks["SigIgn"], 16), int(masks["SigCgt"], 16)
    sigint, sigterm = 1 << (signal.SIGINT - 1), 1 << (signal.SIGTERM - 1)
    return bool(ignored & sigint) and (method != "forkserver" or bool(caught & sigterm))


def _shm_used(pids: list[int]) -> set[str]:
    """The /dev/shm files that processes ``pids`` map or hold open (other users' files there
    come and go meanwhile: only these are the caller's)."""
    used = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                used.update(
                    line.split("/dev/shm/", 1)[1].split()[0] for line in maps if "/dev/shm/" in line
                )
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("/dev/shm/"):
                        used.add(target.split("/dev/shm/", 1)[1].split()[0])
    return used


def _terminal_signals() -> None:
    """SIGINT and SIGQUIT as in a terminal, even where pytest runs as a shell's background job
    (which ignores both, and children inherit that: the caller would ignore SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


@pytest.fixture
def temporary() -> Iterator[Path]:
    """An empty directory for the caller's TMPDIR, with a short path: the fork server's socket
    lives in it and AF_UNIX paths have at most 107 bytes (tmp_path's is too long under
    pytest-xdist, whose base directory adds ``popen-gwN/``)."""
    with tempfile.TemporaryDirectory(prefix="lexeval-kill-") as name:
        yield Path(name)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and /dev/shm")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGKILL", "group SIGTERM"])
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_a_killed_caller_leaves_no_process_and_no_file(
    method: str, how: str, tmp_path: Path, temporary: Path
) -> None:
    script = tmp_path / "caller.py"
    script.write_text(CALLER, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), TMPDIR=str(temporary))
    caller = subprocess.Popen(
        [sys.executable, str(script), method],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,  # its own session: every process it starts is found by it
        preexec_fn=_terminal_signals,
    )
    try:
        assert caller.stdout is not None
        workers = [int(pid) for pid in caller.stdout.readline().split()]
        assert len(workers) >= 2, caller.stderr.read() if caller.stderr else ""
        deadline = time.monotonic() + 60
        while not all(_following(pid, method) for pid in workers):
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.05)
        time.sleep(0.3)  # the workers score
        started = _session(caller.pid)
        assert set(workers) < set(started)
        shm = _shm_used(started)
        if how == "group SIGTERM":
            os.killpg(caller.pid, signal.SIGTERM)
        else:
            caller.send_signal(getattr(signal, how))
        _, errors = caller.communicate(timeout=30)
        deadline = time.monotonic() + 5
        while _session(caller.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _session(caller.pid) == [], f"processes survived {how}"
        assert errors == ""  # no traceback, no warning
        assert [path.name for path in temporary.iterdir()] == []
        assert not [name for name in shm if os.path.exists(f"/dev/shm/{name}")]
    finally:
        for pid in _session(caller.pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if caller.poll() is None:
            caller.kill()
            caller.wait()


UNGUARDED = """
from lexeval.metrics import TokenF1Metric
from lexeval.run import measure_many

pairs = [(f"the cat {i} sat", f"a cat {i % 7}") for i in range(2000)]
measure_many(TokenF1Metric(), *zip(*pairs), workers=2, start_method="spawn")
print("scored")
"""


def test_a_script_without_a_main_guard_is_told_so_under_spawn(tmp_path: Path) -> None:
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 1 and "scored" not in done.stdout
    assert 'no `if __name__ == "__main__":` guard' in done.stderr
    assert str(script) in done.stderr
    guarded = UNGUARDED.replace(
        "\nmeasure_many(", '\nif __name__ == "__main__":\n    measure_many('
    )
    script.write_text(guarded.replace('\nprint("scored")', '\n    print("scored")'), "utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0 and done.stdout == "scored\n", done.stderr
