"""A judge server's address without its credentials, and the credentials it carried.

A key may reach lexeval in the environment, in a URL's user information
(``https://user:KEY@host/v1``) or in its query (``?api-key=KEY``). :func:`split_url` takes
the credentials out of the URL: what is left (:attr:`Endpoint.url`) is the server's public
address, the only form lexeval ever shows, logs, hashes into a cache key or sends as a URL;
:meth:`Endpoint.scrub` replaces every credential in a text, whatever its length.

>>> endpoint = split_url("HTTPS://bob:s3cr3t@API.Example.com:443/v1/?api-key=abc&api-version=2")
>>> endpoint.url
'https://api.example.com/v1?api-version=2'
>>> endpoint.key
's3cr3t'
>>> endpoint.scrub("401: key abc rejected for bob")
'401: key *** rejected for ***'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

__all__ = ["Endpoint", "is_credential_name", "scrub", "split_url"]

_CREDENTIAL_NAME = re.compile(r"key|token|secret|pass|pwd|auth|sig|credential|session|code")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_credential_name(name: str) -> bool:
    """True for a query parameter that may hold a credential (``api-key``, ``token``,
    ``sig``, ``code``, ...).

    >>> is_credential_name("api-key"), is_credential_name("api-version")
    (True, False)
    """
    return bool(_CREDENTIAL_NAME.search(name.lower()))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of every non-empty secret replaced by ``***`` (longest
    first).

    >>> scrub("key=ab, user ab", ["ab"])
    'key=***, user ***'
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


@dataclass(frozen=True)
class Endpoint:
    """A server's public ``url`` (None: the client's default), the ``key`` found in the URL
    (None when it held none), its header name when it came from the query, and every secret
    string to scrub."""

    url: str | None
    key: str | None = None
    header: str | None = None
    secrets: tuple[str, ...] = ()

    def scrub(self, text: str, *more: str) -> str:
        """``text`` without this endpoint's secrets (nor ``more``)."""
        return scrub(text, (*self.secrets, *more))


def split_url(url: str | None) -> Endpoint:
    """The public form of ``url`` (lower-case scheme and host, no default port, no trailing
    ``/``, no user information, no credential in the query, no fragment) and the
    credentials taken out of it.

    >>> split_url("http://127.0.0.1:8080/v1/").url
    'http://127.0.0.1:8080/v1'
    >>> split_url("http://key-only@localhost/v1").key
    'key-only'
    >>> split_url(None).url is None
    True
    """
    if url is None:
        return Endpoint(None)
    parts = urlsplit(url.strip())
    secrets: list[str] = []
    key: str | None = None
    header: str | None = None
    if parts.username is not None or parts.password is not None:
        for value in (parts.username, parts.password):
            if value:
                secrets += [value, unquote(value)]
        key = unquote(parts.password or parts.username or "") or None
    kept: list[tuple[str, str]] = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if not is_credential_name(name):
            kept.append((name, value))
        elif value:
            secrets.append(value)
            if key is None:
                key, header = value, name
    for name, value in re.findall(r"([^&=]+)=([^&]*)", parts.query):
        if is_credential_name(unquote(name)) and value:
            secrets += [value, unquote(value)]
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = (
        host
        if port is None or _DEFAULT_PORTS.get(parts.scheme.lower()) == port
        else (f"{host}:{port}")
    )
    public = urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), urlencode(kept), ""))
    return Endpoint(public, key, header, tuple(secrets))
