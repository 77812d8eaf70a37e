"""The one way lexeval talks to a judge model: :class:`OpenAICompatible`, on the official
``openai`` client, for OpenAI, vLLM, llama.cpp's server, Ollama or any compatible endpoint.

It asks at temperature 0, with structured output (a JSON schema through ``response_format``,
stepping down to ``json_object`` and then to plain text when the server refuses it), retries
with exponential backoff on 408/409/429/5xx and connection errors (the client's own retry
loop), limits the number of requests in flight, sums token usage per run, and keeps every
judgment in an on-disk cache (:class:`~lexeval.judge.cache.JudgmentCache`).

The API key is read from the environment (``api_key_env``) or from the URL (user information
``https://user:KEY@host/v1`` or a query parameter such as ``?api-key=KEY``); a key found in the
URL is taken out of it and sent in a header (``Authorization: Bearer``, and the query
parameter's name as a header), never in the URL, where proxies and HTTP logs record it. No
credential is ever part of the signature, the cache, a result, a log or an error message,
whatever its length: every text from the server is scrubbed. A remote URL without a key is
refused before any work:

>>> import os
>>> os.environ.pop("LEXEVAL_DOCTEST_KEY", None)
>>> OpenAICompatible("gpt-4o-mini", api_key_env="LEXEVAL_DOCTEST_KEY")
Traceback (most recent call last):
...
lexeval.judge.errors.JudgeConfigError: no API key for the judge at the OpenAI API: set ...
>>> local = OpenAICompatible("qwen", base_url="http://127.0.0.1:8080/v1", cache=False)
>>> local.signature
'openai-compatible:model=qwen,url=http://127.0.0.1:8080/v1,temperature=0,seed=0'
>>> OpenAICompatible("m", base_url="http://u:pw@127.0.0.1:8080/v1/?key=k", cache=False).signature
'openai-compatible:model=m,url=http://127.0.0.1:8080/v1,temperature=0,seed=0'
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit

from lexeval.judge.cache import JudgmentCache, cache_key
from lexeval.judge.endpoint import Endpoint, split_url
from lexeval.judge.errors import JudgeBackendError, JudgeConfigError
from lexeval.judge.response import BadResponse, read_completion

if TYPE_CHECKING:
    from openai import OpenAI

__all__ = ["Completion", "OpenAICompatible", "StructuredOutput", "Usage", "is_local_url"]

T = TypeVar("T")
StructuredOutput = Literal["json_schema", "json_object", "none"]
Message = dict[str, str]
_STRUCTURED_STEPS: tuple[StructuredOutput, ...] = ("json_schema", "json_object", "none")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}


def is_local_url(url: str) -> bool:
    """True for a loopback address (``localhost``, ``127.x.x.x``, ``::1``): such a server needs
    no API key.

    >>> is_local_url("http://127.0.0.1:8080/v1"), is_local_url("https://api.example.com/v1")
    (True, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    return host in _LOCAL_HOSTS or host.startswith("127.")


@dataclass
class Usage:
    """Requests sent and tokens used (cache hits cost nothing and are counted apart).

    >>> u = Usage(requests=2, prompt_tokens=100, completion_tokens=20, cache_hits=1)
    >>> u.total_tokens, u.to_dict()["cache_hits"]
    (120, 1)
    """

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, int]:
        """A plain dict, with ``total_tokens``."""
        return {**asdict(self), "total_tokens": self.total_tokens}


@dataclass(frozen=True)
class Completion:
    """One answer of the model: its text, token counts, the first generated token's top
    log-probabilities (token -> log-probability; empty unless asked for), the finish reason,
    and whether it came from the cache (then it cost no tokens)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    top_logprobs: dict[str, float] = field(default_factory=dict)
    finish_reason: str = ""
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what the cache stores)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, cached: bool = False) -> Completion:
        """Rebuild a completion from :meth:`to_dict`'s output (a ``ValueError`` when a field
        has the wrong type)."""
        text = data.get("text")
        finish = data.get("finish_reason", "")
        counts = [data.get("prompt_tokens", 0), data.get("completion_tokens", 0)]
        logprobs = data.get("top_logprobs", {})
        if not isinstance(text, str) or not isinstance(finish, str):
            raise ValueError("text and finish_reason must be strings")
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
            raise ValueError("token counts must be integers >= 0")
        if not isinstance(logprobs, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in logprobs.values()
        ):
            raise ValueError("top_logprobs must map tokens to numbers")
        return cls(
            text=text,
            prompt_tokens=counts[0],
            completion_tokens=counts[1],
            top_logprobs={str(k): float(v) for k, v in logprobs.items()},
            finish_reason=finish,
            cached=cached,
        )


class OpenAICompatible:
    """A chat-completions endpoint reached with the official ``openai`` client.

    ``base_url=None`` means OpenAI's API (or ``$OPENAI_BASE_URL``). ``api_key_env`` names the
    environment variable holding the key: required for any non-loopback URL. ``timeout`` is
    per request (seconds), ``max_retries`` the retries after the first attempt (exponential
    backoff from 0.5 s, honouring ``Retry-After``), ``concurrency`` the most requests in flight
    in :meth:`run_many`. ``cache``: True for the default on-disk cache, False for none, a path
    or a :class:`~lexeval.judge.cache.JudgmentCache`. ``structured_output`` is the first format
    tried (``json_schema``, ``json_object`` or ``none``); a server that refuses it is asked
    again with the next one, once per backend.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        concurrency: int = 4,
        cache: bool | str | os.PathLike[str] | JudgmentCache = True,
        structured_output: StructuredOutput = "json_schema",
        seed: int | None = 0,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise JudgeConfigError("model must be a non-empty str")
        if not timeout > 0:
            raise JudgeConfigError(f"timeout must be positive, not {timeout!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise JudgeConfigError(f"max_retries must be an int >= 0, not {max_retries!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise JudgeConfigError(f"concurrency must be an int >= 1, not {concurrency!r}")
        if structured_output not in _STRUCTURED_STEPS:
            raise JudgeConfigError(
                f"structured_output must be one of {', '.join(_STRUCTURED_STEPS)}, "
                f"not {structured_output!r}"
            )
        self.model = model
        self._base_url = base_url
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.seed = seed
        self.structured_output: StructuredOutput = structured_output
        self.usage = Usage()
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._client: OpenAI | None = None
        if cache is True:
            self.cache: JudgmentCache | None = JudgmentCache()
        elif cache is False or cache is None:
            self.cache = None
        elif isinstance(cache, JudgmentCache):
            self.cache = cache
        elif isinstance(cache, (str, os.PathLike)):
            self.cache = JudgmentCache(Path(cache))
        else:
            raise JudgeConfigError(
                f"cache must be a bool, a path or a JudgmentCache, not {type(cache).__name__}"
            )
        self._api_key()  # a remote URL without a key fails here, before any work

    # ---------------------------------------------------------------- configuration

    @property
    def base_url(self) -> str | None:
        """The endpoint (None: the ``openai`` client's default)."""
        return self._base_url

    def _endpoint(self) -> Endpoint:
        url = self.base_url
        if url is None:
            url = os.environ.get("OPENAI_BASE_URL") or None
        return split_url(url)

    def _display_url(self) -> str:
        return self._endpoint().url or "the OpenAI API"

    @property
    def server(self) -> str:
        """The server's public address (no credentials): part of every cache key.

        >>> OpenAICompatible("m", base_url="http://k@LOCALHOST:80/v1/", cache=False).server
        'http://localhost/v1'
        """
        return self._endpoint().url or "https://api.openai.com/v1"

    def _api_key(self) -> str:
        endpoint = self._endpoint()
        if endpoint.key:
            return endpoint.key
        key = os.environ.get(self.api_key_env, "")
        if key:
            return key
        if endpoint.url is not None and is_local_url(endpoint.url):
            return "no-key"  # a local server ignores it; the client needs a value
        raise JudgeConfigError(
            f"no API key for the judge at {self._display_url()}: "
            f"set the environment variable {self.api_key_env}"
        )

    def _secrets(self) -> list[str]:
        endpoint = self._endpoint()
        return [*endpoint.secrets, endpoint.key or "", os.environ.get(self.api_key_env, "")]

    def scrub(self, text: str) -> str:
        """``text`` with every credential of this backend replaced by ``***``, whatever its
        length (the environment's key, the URL's user information and query credentials)."""
        return self._endpoint().scrub(text, *self._secrets())

    @property
    def signature(self) -> str:
        """Model, endpoint (public address) and sampling settings (never a credential)."""
        url = split_url(self.base_url).url or "default"
        return f"openai-compatible:model={self.model},url={url},temperature=0,seed={self.seed}"

    def client(self) -> OpenAI:
        """The ``openai`` client, created on first use (on the URL without credentials)."""
        with self._lock:
            if self._client is None:
                from openai import OpenAI

                endpoint = self._endpoint()
                key = self._api_key()
                headers = {endpoint.header: key} if endpoint.header else None
                self._client = OpenAI(
                    api_key=key,
                    base_url=endpoint.url,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                    default_headers=headers,
                )
            return self._client

    def reset_usage(self) -> Usage:
        """Return the usage so far and start counting from zero."""
        with self._lock:
            usage, self.usage = self.usage, Usage()
            self.max_in_flight = 0
        return usage

    # ---------------------------------------------------------------- requests

    def complete(
        self,
        messages: Sequence[Message],
        *,
        template_version: str,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        top_logprobs: int = 0,
        keep: Callable[[Completion], bool] | None = None,
    ) -> Completion:
        """One chat completion at temperature 0 (from the cache when it holds the same request).

        ``schema`` asks for JSON matching it (structured output, see the class); ``top_logprobs``
        > 0 returns that many alternatives of the first generated token. A new answer is cached
        only when ``keep(completion)`` is true (a judge keeps only the replies it can read).
        Raises :class:`~lexeval.judge.errors.JudgeBackendError` when the server gives no
        answer, :class:`~lexeval.judge.errors.JudgeCacheError` when the cache is unusable.
        """
        key = cache_key(
            {
                "server": self.server,
                "model": self.model,
                "template_version": template_version,
                "messages": list(messages),
                "schema": schema,
                "max_tokens": max_tokens,
                "top_logprobs": top_logprobs,
                "temperature": 0,
                "seed": self.seed,
                "structured_output": self.structured_output if schema is not None else None,
            }
        )
        if self.cache is not None:
            stored = self.cache.get(key)
            if stored is not None:
                try:
                    completion = Completion.from_dict(stored, cached=True)
                except (TypeError, ValueError) as error:
                    raise self.cache.damaged(f"the entry {key[:12]}... {error}") from None
                with self._lock:
                    self.usage.cache_hits += 1
                return completion
        completion = self._request(messages, schema, max_tokens, top_logprobs)
        if self.cache is not None and (keep is None or keep(completion)):
            self.cache.put(key, completion.to_dict())
        return completion

    def _request(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None,
        max_tokens: int,
        top_logprobs: int,
    ) -> Completion:
        import httpx
        from openai import (
            APIConnectionError,
            APIStatusError,
            APITimeoutError,
            BadRequestError,
            OpenAIError,
        )

        client = self.client()
        while True:
            mode = self.structured_output
            options: dict[str, Any] = {}
            if schema is not None and mode == "json_schema":
                options["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "verdict", "schema": schema, "strict": True},
                }
            elif schema is not None and mode == "json_object":
                options["response_format"] = {"type": "json_object"}
            if top_logprobs > 0:
                options["logprobs"] = True
                options["top_logprobs"] = top_logprobs
            if self.seed is not None:
                options["seed"] = self.seed
            with self._lock:
                self._in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self._in_flight)
            try:
                raw = client.chat.completions.with_raw_response.create(
                    model=self.model,
                    messages=list(messages),  # type: ignore[arg-type]
                    temperature=0.0,
                    max_tokens=max_tokens,
                    **options,
                )
                body = raw.http_response.text
            except BadRequestError as error:
                if "response_format" in options and self._step_down(mode):
                    continue  # the server refused this format: ask again with the next one
                raise JudgeBackendError(self._describe(error, "refused the request")) from None
            except APITimeoutError:
                raise JudgeBackendError(
                    f"judge request to {self._display_url()} timed out after "
                    f"{self.timeout:g} s ({self.max_retries} retries)"
                ) from None
            except APIConnectionError as error:
                raise JudgeBackendError(
                    f"judge server at {self._display_url()} unreachable after "
                    f"{self.max_retries} retries ({self._detail(error.__cause__ or error)})"
                ) from None
            except APIStatusError as error:
                raise JudgeBackendError(
                    self._describe(error, f"answered HTTP {error.status_code}")
                ) from None
            except (OpenAIError, httpx.HTTPError, OSError, ValueError) as error:
                raise JudgeBackendError(self._describe(error, "failed")) from None
            finally:
                with self._lock:
                    self._in_flight -= 1
            break
        try:
            text, prompt_tokens, completion_tokens, alternatives, finish = read_completion(body)
        except BadResponse as error:
            status = raw.http_response.status_code
            kind = raw.http_response.headers.get("content-type", "no content type")
            raise JudgeBackendError(
                f"judge server at {self._display_url()} answered HTTP {status} ({kind}) with "
                f"something that is not a chat completion: {self._detail(error)}"
            ) from None
        with self._lock:
            self.usage.requests += 1
            self.usage.prompt_tokens += prompt_tokens
            self.usage.completion_tokens += completion_tokens
        return Completion(
            text=self.scrub(text),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            top_logprobs={self.scrub(k): v for k, v in alternatives.items()},
            finish_reason=self.scrub(finish),
        )

    def _step_down(self, mode: StructuredOutput) -> bool:
        index = _STRUCTURED_STEPS.index(mode)
        if index + 1 >= len(_STRUCTURED_STEPS):
            return False
        with self._lock:
            if self.structured_output == mode:
                self.structured_output = _STRUCTURED_STEPS[index + 1]
        return True

    def _detail(self, error: BaseException | str) -> str:
        """One scrubbed line of at most 300 characters."""
        text = " ".join(self.scrub(str(error)).split())
        return text if len(text) <= 300 else text[:297] + "..."

    def _describe(self, error: Exception, what: str) -> str:
        message = getattr(error, "message", None) or str(error) or type(error).__name__
        return f"judge server at {self._display_url()} {what}: {self._detail(message)}"

    def run_many(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        """Run ``calls`` with at most :attr:`concurrency` in flight; results in order.

        The first error cancels what has not started and is raised: a batch gives every
        result or an error, never a partial list.
        """
        if len(calls) <= 1 or self.concurrency == 1:
            return [call() for call in calls]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures: list[Future[T]] = [pool.submit(call) for call in calls]
            done, pending = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                error = future.exception()
                if error is not None:
                    for other in pending:
                        other.cancel()
                    raise error
            return [future.result() for future in futures]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.signature}>"
