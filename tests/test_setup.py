"""setup.py: a C extension that cannot be built is said on stderr (and skipped: lexeval runs
its pure-Python code), and the build leaves no ``build/`` folder in the checkout for a later
install to reuse."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from lexeval.native import MODULES

ROOT = Path(__file__).resolve().parents[1]


def test_a_failed_build_is_said_and_leaves_no_build_folder(tmp_path: Path) -> None:
    tree = tmp_path / "checkout"
    tree.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
    )
    env = {**os.environ, "CC": "/bin/false"}  # a compiler that always fails
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext"],
        cwd=tree,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr  # optional extensions: the install goes on
    for module in MODULES:
        assert f"WARNING: lexeval: the C extension lexeval.native.{module} was not built" in (
            proc.stderr
        )
    assert "will run its pure-Python code" in proc.stderr
    assert not (tree / "build").exists()
    used = set(re.findall(r"/[^ ']*lexeval-build-[^/ ']+", proc.stderr))
    assert used and not any(Path(d).exists() for d in used)  # the temporary build is removed
