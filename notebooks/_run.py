"""Execute a notebook with a kernel that is guaranteed to be *this* Python (the venv's).

A kernel spec named ``python3`` is resolved through Jupyter's search path (``JUPYTER_PATH``,
``~/.local/share/jupyter``, the venv, ``/usr/share/jupyter``...), so on some machines it points
at another interpreter, one without lexeval. We sidestep the search: a throw-away kernel spec
whose ``argv[0]`` is ``sys.executable`` and a ``KernelSpecManager`` that looks only there.

Used by ``tests/test_notebooks.py`` and by ``notebooks/_build.py``::

    .venv/bin/python notebooks/_build.py            # rebuild, execute and save both notebooks
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def kernel_manager(spec_root: Path) -> KernelManager:
    """A KernelManager whose ``python3`` kernel runs ``sys.executable -m ipykernel_launcher``."""
    spec_dir = spec_root / "kernels" / "python3"
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (lexeval venv)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    ksm = KernelSpecManager(kernel_dirs=[str(spec_root / "kernels")], ensure_native_kernel=False)
    return KernelManager(kernel_name="python3", kernel_spec_manager=ksm)


def execute(nb: nbformat.NotebookNode, cwd: Path = HERE, timeout: int = 600) -> float:
    """Run every cell of ``nb`` in place (working directory ``cwd``); returns the seconds taken.

    A failing cell raises ``nbclient.exceptions.CellExecutionError``.
    """
    with tempfile.TemporaryDirectory(prefix="lexeval-kernel-") as tmp:
        client = NotebookClient(
            nb,
            km=kernel_manager(Path(tmp)),
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(cwd)}},
        )
        start = time.perf_counter()
        client.execute()
        return time.perf_counter() - start


def execute_file(path: Path, save: bool = False, timeout: int = 600) -> tuple[object, float]:
    """Execute the notebook at ``path``; with ``save=True`` write it back with its outputs."""
    nb = nbformat.read(path, as_version=4)
    seconds = execute(nb, cwd=path.parent, timeout=timeout)
    if save:
        nbformat.write(nb, path)
    return nb, seconds
