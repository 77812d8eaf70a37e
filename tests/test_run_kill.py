"""A caller killed while its pool runs: every worker process dies within a few seconds,
quietly, and no file is left behind; a script without a ``__main__`` guard under spawn gets
an error that says so. Each test starts a caller process (a few seconds each)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow

CALLER = """
import multiprocessing, sys, threading, time
from lexeval.metrics import TokenF1Metric
from lexeval.run import measure_many

def report():
    while True:
        children = multiprocessing.active_children()
        if len(children) >= 2:
            print(" ".join(str(c.pid) for c in children), flush=True)
            return
        time.sleep(0.02)

if __name__ == "__main__":
    threading.Thread(target=report, daemon=True).start()
    pairs = [(f"the cat {i} sat on the mat", f"a cat {i % 7} on a mat") for i in range(10**6)]
    try:
        while True:
            measure_many(TokenF1Metric(), *zip(*pairs), workers=2, start_method=sys.argv[1])
    except KeyboardInterrupt:
        sys.exit(130)
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to read its status does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _shm() -> set[str]:
    return {name for name in os.listdir("/dev/shm") if "lexeval" in name}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and /dev/shm")
@pytest.mark.parametrize(
    ("method", "how"),
    [
        ("fork", "SIGTERM"),
        ("fork", "SIGINT"),
        ("fork", "SIGKILL"),
        ("fork", "group SIGTERM"),
        ("spawn", "SIGKILL"),
        ("spawn", "group SIGTERM"),
        ("forkserver", "SIGKILL"),
    ],
)
def test_a_killed_caller_leaves_no_worker_and_no_file(
    method: str, how: str, tmp_path: Path
) -> None:
    script = tmp_path / "caller.py"
    script.write_text(CALLER, encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), TMPDIR=str(temporary))
    shm_before = _shm()
    caller = subprocess.Popen(
        [sys.executable, str(script), method],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,
    )
    try:
        assert caller.stdout is not None
        workers = [int(pid) for pid in caller.stdout.readline().split()]
        assert len(workers) >= 2, caller.stderr.read() if caller.stderr else ""
        time.sleep(0.5)  # the workers score
        if how == "group SIGTERM":
            os.killpg(caller.pid, signal.SIGTERM)
        else:
            caller.send_signal(getattr(signal, how))
        _, errors = caller.communicate(timeout=30)
        deadline = time.monotonic() + 5
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if _alive(pid)], f"workers survived {how}"
        assert "Traceback" not in errors, errors
        left = [path.name for path in temporary.iterdir()]
        if method == "forkserver":
            # the standard library's fork server keeps its socket in a pymp-* directory, which
            # only a caller that exits normally removes: not lexeval's (documented)
            left = [name for name in left if not name.startswith("pymp-")]
        assert left == []
        assert _shm() <= shm_before
    finally:
        if caller.poll() is None:
            os.killpg(caller.pid, signal.SIGKILL)
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
