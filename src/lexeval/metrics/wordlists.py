"""wordfreq's frequency lists, read without importing wordfreq (its import and its language-code
matching cost a new process about a quarter of a second of CPU time): the same files, the same
frequencies, as ``wordfreq.get_frequency_dict(language, "best")`` gives them when the language
has a list of its own (any other code is left to wordfreq).

>>> freqs = frequency_dict("en")
>>> import wordfreq
>>> freqs["battle"] == wordfreq.get_frequency_dict("en", "best")["battle"]
True
>>> "en" in wordlist_languages(), frequency_dict("xx")
(True, None)
"""

from __future__ import annotations

import functools
import gzip
from importlib.util import find_spec
from pathlib import Path

__all__ = ["frequency_dict", "wordlist_languages"]


@functools.cache
def _wordlists() -> dict[str, Path]:
    """The "best" list of each language as wordfreq's ``available_languages("best")`` finds
    them: the large list where there is one, else the small one."""
    spec = find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover - a dependency
        return {}
    data = Path(next(iter(spec.submodule_search_locations)), "data")
    found: dict[str, dict[str, Path]] = {"small": {}, "large": {}}
    for path in sorted(data.glob("*.msgpack.gz")):
        if path.name.startswith("_"):
            continue
        name, _, language = path.name.split(".")[0].partition("_")
        if name in found:
            found[name][language] = path
    return {**found["small"], **found["large"]}


def wordlist_languages() -> frozenset[str]:
    """The languages wordfreq has a frequency list for (``available_languages("best")``)."""
    return frozenset(_wordlists())


@functools.cache
def frequency_dict(language: str) -> dict[str, float] | None:
    """wordfreq's ``get_frequency_dict(language, "best")`` for a language with a list of its
    own (read once per process: never modify it), else None."""
    path = _wordlists().get(language)
    if path is None:
        return None
    import msgpack

    data = msgpack.unpackb(gzip.decompress(path.read_bytes()), raw=False)
    header = data[0]
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        return None  # a layout this reader does not know: wordfreq reads it
    frequencies: dict[str, float] = {}
    for index, bucket in enumerate(data[1:]):
        if bucket:  # centibels to a frequency as wordfreq's cB_to_freq(-index)
            frequencies.update(dict.fromkeys(bucket, 10 ** (-index / 100)))
    return frequencies
