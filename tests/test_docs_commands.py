"""Every shell example of README.md and docs/*.md runs as written, except those listed in
:data:`SKIPPED` with the reason.

The fenced ``bash`` blocks are read from the pages; each command (continuation lines joined)
runs in a temporary directory holding a copy of ``examples/`` (what the commands read). A
``lexeval ...`` command (alone, redirected with ``> FILE``, or at the end of a pipe) runs this
checkout's ``lexeval.cli.main`` in this process, so that spaCy loads once: its standard input is
what the rest of the pipe, run by bash, prints. Any other command runs with bash. A page's
commands run in order in the same directory, so one command may read what an earlier one
wrote. A command passes when it exits 0, or 1 (a gate's verdict, which some examples show on
purpose), without an exception; exit 2 (a usage or data error) fails.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from lexeval.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Commands not run here, by a fragment they contain, and why.
SKIPPED: dict[str, str] = {
    "make ": "builds and tests the project itself ('make test' is what CI runs)",
    "OPENAI_API_KEY=": "needs an API key",
    "judge:": "needs an LLM judge (an API key or a model server)",
    "judge serve": "starts a model server (tests/judge/test_server.py runs one)",
    "judge pairwise": "needs an LLM judge (an API key or a model server)",
    "promptfoo": "needs Node and promptfoo ('make test-integrations' runs it)",
    "lexeval meta": "names the user's labelled files; tests/cli/test_meta.py runs these options",
}

#: Pages whose commands follow ``make demo`` ("the demo wrote out/prompt_v1.json and
#: out/prompt_v2.json"): the demo runs first.
DEMO_FIRST = {"README.md"}


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    text: str

    @property
    def skip_reason(self) -> str | None:
        return next((why for fragment, why in SKIPPED.items() if fragment in self.text), None)


def _commands(page: Path) -> list[Command]:
    text = page.read_text(encoding="utf-8")
    found: list[Command] = []
    for block in re.finditer(r"^```(?:bash|sh|shell)\n(.*?)^```", text, re.M | re.S):
        first = text[: block.start()].count("\n") + 2
        lines = block.group(1).split("\n")
        i = 0
        while i < len(lines):
            start = i
            command = lines[i]
            while command.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
            if command.strip() and not command.lstrip().startswith("#"):
                found.append(Command(page.name, first + start, command.strip()))
    return found


COMMANDS = [command for page in PAGES for command in _commands(page)]


def test_the_pages_have_commands() -> None:
    pages = {c.page for c in COMMANDS}
    assert {"README.md", "index.md", "cli.md"} <= pages
    runnable = [c for c in COMMANDS if c.skip_reason is None]
    assert len(runnable) >= 10, runnable


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with a copy of ``examples/``."""
    root = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "examples", root / "examples")
    return root


def _bash(cwd: Path, script: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, timeout=120, check=False
    )


def _lexeval(command: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """Run ``[LEFT |] lexeval ARGS [> FILE]`` with ``lexeval.cli.main`` in this process."""
    left, _, right = command.rpartition("| lexeval ")
    tokens = shlex.split("lexeval " + right if left else command, comments=True)
    target = None
    if ">" in tokens:
        at = tokens.index(">")
        target, tokens = tokens[at + 1], tokens[:at]
    stdin = b""
    if left:
        done = _bash(cwd, left)
        assert done.returncode == 0, done.stderr.decode()
        stdin = done.stdout
    errors = io.StringIO()
    with monkeypatch.context() as patch:
        patch.chdir(cwd)
        patch.delenv("OPENAI_API_KEY", raising=False)
        patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        with (
            open(target if target else os.devnull, "w", encoding="utf-8") as out,
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(errors),
        ):
            code = main(tokens[1:])
    return code, errors.getvalue()


def _demo(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``make demo``'s step: ``python examples/demo.py out``, in this process."""
    with monkeypatch.context() as patch:
        patch.chdir(cwd)
        patch.setattr(sys, "argv", ["demo.py", "out"])
        with (
            pytest.raises(SystemExit) as exit_info,
            open(os.devnull, "w", encoding="utf-8") as out,
            contextlib.redirect_stdout(out),
        ):
            runpy.run_path(str(cwd / "examples" / "demo.py"), run_name="__main__")
    assert exit_info.value.code == 0


@pytest.mark.parametrize("page", sorted({c.page for c in COMMANDS}))
def test_documented_commands_run_as_written(
    page: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's runnable commands, in order: each exits 0 or 1."""
    commands = [c for c in COMMANDS if c.page == page]
    runnable = [c for c in commands if c.skip_reason is None]
    if not runnable:
        reasons = sorted({str(c.skip_reason) for c in commands})
        pytest.skip(f"{page}: every command needs something not here ({'; '.join(reasons)})")
    cwd = workdir / page
    cwd.mkdir()
    (cwd / "examples").symlink_to(workdir / "examples")
    if page in DEMO_FIRST:
        _demo(cwd, monkeypatch)
    for command in runnable:
        where = f"{page}:{command.line}: {command.text}"
        if command.text.startswith("lexeval ") or "| lexeval " in command.text:
            code, errors = _lexeval(command.text, cwd, monkeypatch)
        else:
            done = _bash(cwd, command.text)
            code, errors = done.returncode, done.stderr.decode()
        assert code in (0, 1), f"{where}\nexit {code}\n{errors}"
