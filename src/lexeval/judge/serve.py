"""Run llama.cpp's OpenAI-compatible server (the ``xllamacpp`` wheel) on a GGUF model.

:func:`serve` is what ``lexeval judge serve`` runs in the foreground and what
:class:`~lexeval.judge.local.LocalServer` runs in a child process (``python -m
lexeval.judge.serve``): it loads the model, prints one JSON line ``{"url": ...}`` once the
server listens, then serves until interrupted (or, with ``--watch-stdin``, until its standard
input closes, so the server never outlives the process that started it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "serve", "start_server"]


def start_server(
    model_path: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    n_ctx: int = 4096,
    parallel: int = 2,
    n_threads: int = 1,
    verbosity: int = 1,
) -> Any:
    """An ``xllamacpp.Server`` listening on ``host:port`` (0: a free port), model loaded.

    ``n_ctx`` is shared by the ``parallel`` slots. ``n_threads=1`` by default: on a shared
    machine two threads made generation collapse whenever anything else ran.
    """
    import xllamacpp

    path = Path(model_path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such model file")
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = parallel
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.hostnames = [host]
    params.port = port
    params.warmup = False
    params.verbosity = verbosity
    return xllamacpp.Server(params)


def serve(
    model_path: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    n_ctx: int = 4096,
    parallel: int = 2,
    n_threads: int = 1,
    verbosity: int = 1,
    watch_stdin: bool = False,
) -> None:
    """Start the server, print ``{"url": ".../v1"}`` and serve until stopped."""
    server = start_server(
        model_path,
        host=host,
        port=port,
        n_ctx=n_ctx,
        parallel=parallel,
        n_threads=n_threads,
        verbosity=verbosity,
    )
    url = str(server.listening_address).rstrip("/") + "/v1"
    print(json.dumps({"url": url, "model": Path(model_path).name}), flush=True)
    try:
        if watch_stdin:
            sys.stdin.read()  # returns when the parent closes the pipe or exits
        else:
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        # The server's destructor waits for requests in flight and can hang on them: leave
        # without it (the operating system closes the socket).
        sys.stdout.flush()
        os._exit(0)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m lexeval.judge.serve --model PATH [...]``."""
    parser = argparse.ArgumentParser(prog="python -m lexeval.judge.serve")
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--verbosity", type=int, default=1)
    parser.add_argument("--watch-stdin", action="store_true")
    args = parser.parse_args(argv)
    serve(
        args.model,
        host=args.host,
        port=args.port,
        n_ctx=args.n_ctx,
        parallel=args.parallel,
        n_threads=args.threads,
        verbosity=args.verbosity,
        watch_stdin=args.watch_stdin,
    )


if __name__ == "__main__":
    main()
