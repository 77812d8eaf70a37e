"""Run llama.cpp's OpenAI-compatible server (the ``xllamacpp`` wheel) on a GGUF model.

:func:`serve` is what ``lexeval judge serve`` runs in the foreground and what
:class:`~lexeval.judge.local.LocalServer` runs in a child process (``python -m
lexeval.judge.serve``): it loads the model, prints one JSON line ``{"url": ...}`` once the
server listens, then serves until interrupted (or, with ``--watch-stdin``, until its standard
input closes, so the server never outlives the process that started it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ServerSettings",
    "add_server_arguments",
    "main",
    "positive",
    "serve",
    "start_server",
]


@dataclass(frozen=True)
class ServerSettings:
    """How to run the server: address (port 0: a free one), context tokens shared by the
    ``parallel`` slots, CPU threads (1 by default: on a shared machine two threads made
    generation collapse whenever anything else ran) and log verbosity.

    >>> ServerSettings(port=8080, parallel=1).arguments()[:4]
    ['--host', '127.0.0.1', '--port', '8080']
    """

    host: str = "127.0.0.1"
    port: int = 0
    n_ctx: int = 4096
    parallel: int = 2
    n_threads: int = 1
    verbosity: int = 1

    def arguments(self) -> list[str]:
        """The command-line options of :func:`add_server_arguments` for these settings."""
        return [
            *("--host", self.host, "--port", str(self.port), "--n-ctx", str(self.n_ctx)),
            *("--parallel", str(self.parallel), "--threads", str(self.n_threads)),
            *("--verbosity", str(self.verbosity)),
        ]

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> ServerSettings:
        """The settings parsed by a parser given :func:`add_server_arguments`."""
        return cls(args.host, args.port, args.n_ctx, args.parallel, args.threads, args.verbosity)


def positive(text: str) -> int:
    """A whole number above 0 (an argparse type).

    >>> positive("2")
    2
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, not {text!r}")
    return value


def add_server_arguments(parser: argparse.ArgumentParser, *, port: int = 0) -> None:
    """``--host --port --n-ctx --parallel --threads --verbosity`` (``port``: its default)."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=port, help="port (0: any free port)")
    parser.add_argument(
        "--n-ctx", type=positive, default=4096, help="context tokens, shared by the slots"
    )
    parser.add_argument("--parallel", type=positive, default=2, help="server slots")
    parser.add_argument("--threads", type=positive, default=1, help="CPU threads (default 1)")
    parser.add_argument("--verbosity", type=int, default=1, help="llama.cpp's log verbosity")


def start_server(model_path: str | os.PathLike[str], settings: ServerSettings | None = None) -> Any:
    """An ``xllamacpp.Server`` listening as ``settings`` say, model loaded."""
    import xllamacpp

    settings = settings or ServerSettings()
    path = Path(model_path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such model file")
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = settings.n_ctx
    params.n_parallel = settings.parallel
    params.cpuparams.n_threads = settings.n_threads
    params.cpuparams_batch.n_threads = settings.n_threads
    params.hostnames = [settings.host]
    params.port = settings.port
    params.warmup = False
    params.verbosity = settings.verbosity
    return xllamacpp.Server(params)


def serve(
    model_path: str | os.PathLike[str],
    settings: ServerSettings | None = None,
    *,
    watch_stdin: bool = False,
) -> None:
    """Start the server, print ``{"url": ".../v1"}`` and serve until stopped."""
    server = start_server(model_path, settings)
    try:  # from here on any stop (a signal as soon as the line is out, too) ends as below
        url = str(server.listening_address).rstrip("/") + "/v1"
        print(json.dumps({"url": url, "model": Path(model_path).name}), flush=True)
        if watch_stdin:
            sys.stdin.read()  # returns when the parent closes the pipe or exits
        else:
            # wake now and then: a signal that lands just before a wait without a timeout
            # would only be handled when the wait ends (never)
            forever = threading.Event()
            while not forever.wait(1.0):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        # The server's destructor waits for requests in flight and can hang on them: leave
        # without it (the operating system closes the socket).
        with contextlib.suppress(OSError):  # a reader of the URL line that went away
            sys.stdout.flush()
        os._exit(0)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m lexeval.judge.serve --model PATH [...]``."""
    parser = argparse.ArgumentParser(prog="python -m lexeval.judge.serve")
    parser.add_argument("--model", required=True)
    add_server_arguments(parser)
    parser.add_argument("--watch-stdin", action="store_true")
    args = parser.parse_args(argv)
    serve(args.model, ServerSettings.from_arguments(args), watch_stdin=args.watch_stdin)


if __name__ == "__main__":
    main()
