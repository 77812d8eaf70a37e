"""One signature type for normalizers, text processors, metrics, card runs and reports.

A :class:`Signature` is the stable string of every setting that changes results, written as
``field:value`` parts joined by ``|`` (a part without ``:`` is a name, such as the metric's). It
is a ``str``, so it is stored, printed and compared as before; :meth:`Signature.differences`
says which field differs instead of showing two opaque strings.

>>> a = Signature("rouge1|mode:default|lemma:lookups1.0.5+ovr#482a|v:0.1.0")
>>> b = Signature("rouge1|mode:default|lemma:no|v:0.1.0")
>>> a.differences(b)
['lemma table differs: lookups1.0.5+ovr#482a vs no']
>>> a == "rouge1|mode:default|lemma:lookups1.0.5+ovr#482a|v:0.1.0", a.fields["mode"]
(True, 'default')
"""

from __future__ import annotations

import hashlib

__all__ = ["FIELD_NAMES", "SHORT_FIELDS", "Signature", "short_signature"]

#: Readable names of the short field keys, for messages.
FIELD_NAMES: dict[str, str] = {
    "name": "name",
    "preset": "preset",
    "lang": "language",
    "uni": "Unicode form",
    "case": "case handling",
    "tok": "tokenizer",
    "stop": "stopword list",
    "lemma": "lemma table",
    "stem": "stemmer",
    "comp": "compound list",
    "compat": "compatibility mode",
    "norm": "normalization",
    "mode": "mode",
    "match": "keyword matching",
    "fuzzy": "fuzzy matching",
    "keywords": "expected keywords",
    "variant": "variant",
    "score": "score key",
    "scale": "scale",
    "cards": "card matching version",
    "strategy": "matching strategy",
    "threshold": "threshold",
    "weights": "score weights",
    "v": "lexeval version",
}


#: The fields a short signature keeps (:func:`short_signature`): what a reader tells runs apart
#: by; the rest (word lists, tables, weights) is in the digest.
SHORT_FIELDS: frozenset[str] = frozenset(
    {
        "mode",
        "match",
        "task",
        "compat",
        "score",
        "counting",
        "preset",
        "lang",
        "stem",
        "fuzzy",
        "keywords",
        "scale",
        "cards",
        "strategy",
        "threshold",
        "template",
        "model",
        "v",
    }
)

#: Characters of a kept field's value shown in a short signature.
_SHORT_VALUE = 24


def short_signature(signature: str) -> str:
    """A signature in a line: its name and the fields of :data:`SHORT_FIELDS` (values of more
    than 24 characters cut), then ``#`` and the first 10 hex digits of the full signature's
    SHA-256, which tells two signatures apart (the full one is in the report, the JSON output
    and ``result.signature``). Several signatures joined by `` || `` (a run with a language per
    record) are each shortened.

    >>> full = "kw|mode:default|match:lenient|short_answer=weights:x|stop:543#1f|lang:de|v:0.1"
    >>> short_signature(full)  # doctest: +ELLIPSIS
    'kw|mode:default|match:lenient|lang:de|v:0.1 #...'
    >>> len(short_signature(full).split("#")[-1]), short_signature("") == ""
    (10, True)
    """
    if not signature:
        return ""
    if " || " in signature:
        return " || ".join(short_signature(part) for part in signature.split(" || "))
    kept: list[str] = []
    for part in signature.split("|"):
        key, colon, value = part.partition(":")
        if not colon:
            if "=" not in part and "#" not in part and part not in kept:
                kept.append(part)  # a name (the metric's)
        elif key in SHORT_FIELDS and f"{key}:" not in "|".join(kept):
            cut = value if len(value) <= _SHORT_VALUE else value[: _SHORT_VALUE - 1] + "…"
            kept.append(f"{key}:{cut}")
    digest = hashlib.sha256(signature.encode("utf-8")).hexdigest()[:10]
    return f"{'|'.join(kept)} #{digest}"


class Signature(str):
    """A settings string ``field:value|field:value|...`` that can name what differs."""

    __slots__ = ()

    @classmethod
    def of(cls, parts: list[str] | tuple[str, ...]) -> Signature:
        """The signature made of ``parts`` (each ``field:value``, a name, or a signature).

        >>> Signature.of(["token_f1", "mode:squad", Signature("norm:squad-v1.1")])
        'token_f1|mode:squad|norm:squad-v1.1'
        """
        return cls("|".join(parts))

    @property
    def fields(self) -> dict[str, str]:
        """The fields in order; a name part is ``name`` (``name#2``, ... when repeated), and a
        key seen again (a nested normalizer's ``v``) gets ``#2``, ``#3``, ...

        >>> Signature("cards:1|norm:preset:default|lang:en").fields
        {'cards': '1', 'norm': 'preset:default', 'lang': 'en'}
        """
        out: dict[str, str] = {}
        for part in self.split("|") if self else ():
            key, colon, value = part.partition(":")
            if not colon:
                key, value = "name", part
            unique, n = key, 1
            while unique in out:
                n += 1
                unique = f"{key}#{n}"
            out[unique] = value
        return out

    def differences(self, other: str) -> list[str]:
        """One line per differing field: ``"<field> differs: <this> vs <other>"`` (and
        ``only in this`` / ``only in the other`` for fields one side lacks); [] when equal.

        >>> Signature("x|a:1|b:2").differences("x|a:1|c:3")
        ['b only in this: 2', 'c only in the other: 3']
        """
        mine = self.fields
        theirs = Signature(other).fields
        lines = []
        for key, value in mine.items():
            label = _label(key)
            if key not in theirs:
                lines.append(f"{label} only in this: {value}")
            elif theirs[key] != value:
                lines.append(f"{label} differs: {value} vs {theirs[key]}")
        lines += [f"{_label(k)} only in the other: {v}" for k, v in theirs.items() if k not in mine]
        return lines

    @property
    def short(self) -> str:
        """:func:`short_signature` of this signature."""
        return short_signature(self)

    def describe_difference(self, other: str) -> str:
        """:meth:`differences` as one line, or ``"identical"``.

        >>> Signature("a:1|v:0.1").describe_difference("a:2|v:0.1")
        'a differs: 1 vs 2'
        """
        return "; ".join(self.differences(other)) or "identical"


def _label(key: str) -> str:
    base, _, n = key.partition("#")
    label = FIELD_NAMES.get(base, base)
    return f"{label} (#{n})" if n else label
