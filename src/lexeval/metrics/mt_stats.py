"""The functional core of BLEU, chrF/chrF++ and TER, exactly as sacrebleu 2.6 computes them.

Each metric reduces a (hypothesis, references) pair to *sufficient statistics*, a flat list of
numbers in sacrebleu's order, and computes its figure from statistics summed over any set of
pairs: one pair gives the sentence score, a corpus gives the corpus score (not the mean of
sentence scores), a bootstrap resample gives a resampled corpus score.

* BLEU: ``[hyp_len, ref_len, matches_1..N, totals_1..N]`` (:func:`bleu_statistics`,
  :func:`bleu_from_stats`);
* chrF: ``[hyp, ref, match]`` per character order, then per word order
  (:func:`chrf_statistics`, :func:`chrf_from_stats`);
* TER: ``[edits, average reference length]`` (:func:`ter_statistics`, :func:`ter_from_stats`).

Tokenization is sacrebleu's own (its tokenizer classes; for TER its Tercom search, traced by
:mod:`lexeval.metrics.ter_edits`): the same text gives the same tokens. The counting and the
formulas are ported line by line from sacrebleu (``metrics/bleu.py``, ``metrics/chrf.py``,
``metrics/ter.py``) without its per-call objects, which is where the speed comes from
(``benchmarks/speed/mt_speed.py``).

>>> tokenizer = bleu_tokenizer("13a")
>>> stats, _ = bleu_statistics(tokenizer("the cat sat."), [tokenizer("the cat sat on the mat.")])
>>> stats
[4, 7, 4, 2, 1, 0, 4, 3, 2, 1]
>>> round(bleu_from_stats(stats, smooth_method="exp", effective_order=True)[0], 4)
30.1815
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from importlib import import_module

from lexeval.metrics.ter_edits import TerTrace, ter_trace

__all__ = [
    "BLEU_TOKENIZERS",
    "MAX_NGRAM_ORDER",
    "SMOOTH_DEFAULTS",
    "bleu_from_stats",
    "bleu_statistics",
    "bleu_tokenizer",
    "chrf_from_stats",
    "chrf_ngrams",
    "chrf_statistics",
    "chrf_token_ngrams",
    "sacrebleu_version",
    "sum_stats",
    "ter_from_stats",
    "ter_statistics",
    "ter_tokenizer",
    "tokenize_13a",
    "word_ngrams",
]

MAX_NGRAM_ORDER = 4
#: sacrebleu's smoothing methods and their default values (Chen and Cherry, 2014).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
#: sacrebleu's tokenizers that work offline (the SentencePiece ones download their model: left
#: out); "ja-mecab" and "ko-mecab" need their optional packages.
BLEU_TOKENIZERS: dict[str, str] = {
    "none": "tokenizer_none.NoneTokenizer",
    "zh": "tokenizer_zh.TokenizerZh",
    "13a": "tokenizer_13a.Tokenizer13a",
    "intl": "tokenizer_intl.TokenizerV14International",
    "char": "tokenizer_char.TokenizerChar",
    "ja-mecab": "tokenizer_ja_mecab.TokenizerJaMecab",
    "ko-mecab": "tokenizer_ko_mecab.TokenizerKoMecab",
}
#: chrF++'s punctuation (Python's string.punctuation, as sacrebleu).
_PUNCTS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def sacrebleu_version() -> str:
    """The installed sacrebleu's version (part of every signature: its tokenizers are used)."""
    from sacrebleu import __version__

    return str(__version__)


class Tokenizer:
    """A sacrebleu tokenizer as a typed callable with its sacrebleu signature."""

    __slots__ = ("call", "signature")

    def __init__(self, call: Callable[[str], str], signature: str) -> None:
        self.call = call
        self.signature = signature

    def __call__(self, text: str) -> str:
        return self.call(text)


#: 13a's first rule, ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` -> `` \1 ``, as a translation table.
_SPACED_13A = str.maketrans(
    {
        chr(code): f" {chr(code)} "
        for low, high in ((0x7B, 0x7E), (0x5B, 0x60), (0x20, 0x26), (0x28, 0x2B), (0x3A, 0x40))
        for code in range(low, high + 1)
    }
    | {"/": " / "}
)
_PERIOD_AFTER = re.compile(r"([^0-9])([\.,])")
_PERIOD_BEFORE = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")


def _after(match: re.Match[str]) -> str:
    return f"{match.group(1)} {match.group(2)} "


def _before(match: re.Match[str]) -> str:
    return f" {match.group(1)} {match.group(2)}"


def _dash(match: re.Match[str]) -> str:
    return f"{match.group(1)} - "


def tokenize_13a(line: str) -> str:
    """mteval-v13a's tokenization, equal to sacrebleu's ``Tokenizer13a`` (tested on random
    text): its rules in order, the first one as one ``str.translate`` and the others with
    replacement functions, which Python runs faster than the template strings sacrebleu passes.

    >>> tokenize_13a("Hello, world! It's 3.14 -- (approx.) &amp; 1-2.")
    "Hello , world ! It's 3.14 -- ( approx . ) & 1 - 2 ."
    """
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&")
        line = line.replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_SPACED_13A)
    if "." in line or "," in line:
        line = _PERIOD_AFTER.sub(_after, line)
        line = _PERIOD_BEFORE.sub(_before, line)
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(_dash, line)
    return " ".join(line.split())


def bleu_tokenizer(name: str) -> Tokenizer:
    """sacrebleu's BLEU tokenizer ``name`` ("13a", "intl", "char", "zh", "none", ...);
    "13a" is :func:`tokenize_13a`.

    >>> bleu_tokenizer("intl")("Hello, world!")
    'Hello , world !'
    """
    if name not in BLEU_TOKENIZERS:
        raise ValueError(f"tokenize must be one of {', '.join(BLEU_TOKENIZERS)}, not {name!r}")
    if name == "13a":
        return Tokenizer(tokenize_13a, "13a")
    module_name, class_name = BLEU_TOKENIZERS[name].rsplit(".", 1)
    module = import_module(f"sacrebleu.tokenizers.{module_name}")
    instance = getattr(module, class_name)()
    return Tokenizer(instance, str(instance.signature()))


def ter_tokenizer(
    *, normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool
) -> Tokenizer:
    """sacrebleu's Tercom tokenizer with these options.

    >>> ter_tokenizer(normalized=True, no_punct=False, asian_support=False,
    ...               case_sensitive=False)("Hello, World!")
    'hello , world !'
    """
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    instance = TercomTokenizer(
        normalized=normalized,
        no_punct=no_punct,
        asian_support=asian_support,
        case_sensitive=case_sensitive,
    )
    return Tokenizer(instance, str(instance.signature()))  # type: ignore[no-untyped-call]


# ------------------------------------------------------------------------------------- BLEU


def word_ngrams(tokens: Sequence[str], max_order: int) -> list[Counter[Hashable]]:
    """Counts of each order's n-grams, 1 to ``max_order`` (unigrams as strings, longer n-grams
    as tuples), in first-occurrence order.

    >>> [dict(c) for c in word_ngrams(["a", "b", "a"], 2)]
    [{'a': 2, 'b': 1}, {('a', 'b'): 1, ('b', 'a'): 1}]
    """
    out: list[Counter[Hashable]] = [Counter(tokens)]
    for n in range(2, max_order + 1):
        out.append(Counter(zip(*[tokens[i:] for i in range(n)], strict=False)))
    return out


def _closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """sacrebleu's rule: the reference length closest to the hypothesis', the shorter on ties."""
    closest_diff, closest_len = -1, -1
    for ref_len in ref_lens:
        diff = abs(hyp_len - ref_len)
        if closest_diff == -1 or diff < closest_diff:
            closest_diff, closest_len = diff, ref_len
        elif diff == closest_diff and ref_len < closest_len:
            closest_len = ref_len
    return closest_len


def bleu_statistics(
    hypothesis: str, references: Sequence[str], max_order: int = MAX_NGRAM_ORDER
) -> tuple[list[int], tuple[list[Counter[Hashable]], list[Counter[Hashable]]]]:
    """BLEU's statistics of a tokenized hypothesis against tokenized references (n-grams
    clipped by their largest count in any reference, the closest reference length), with the
    hypothesis' and the merged references' n-gram counts (for the evidence)."""
    hyp_tokens = hypothesis.split()
    hyp_len = len(hyp_tokens)
    hyp_ngrams = word_ngrams(hyp_tokens, max_order)
    ref_lens: list[int] = []
    merged: list[Counter[Hashable]] | None = None
    for reference in references:
        tokens = reference.split()
        ref_lens.append(len(tokens))
        ngrams = word_ngrams(tokens, max_order)
        if merged is None:
            merged = ngrams
        else:
            for mine, theirs in zip(merged, ngrams, strict=True):
                for gram, count in theirs.items():
                    if count > mine[gram]:
                        mine[gram] = count
    assert merged is not None, "at least one reference"
    matches = [0] * max_order
    totals = [0] * max_order
    for n in range(max_order):
        ref = merged[n]
        hyp = hyp_ngrams[n]
        matched = 0
        for gram in hyp.keys() & ref.keys():  # the shared n-grams only (a C-level intersection)
            count, available = hyp[gram], ref[gram]
            matched += count if count < available else available
        matches[n] = matched
        totals[n] = hyp_len - n if hyp_len > n else 0
    stats = [hyp_len, _closest_ref_len(hyp_len, ref_lens), *matches, *totals]
    return stats, (hyp_ngrams, merged)


def _my_log(value: float) -> float:
    return -9999999999 if value == 0.0 else math.log(value)


def bleu_from_stats(
    stats: Sequence[float],
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_order: int = MAX_NGRAM_ORDER,
) -> tuple[float, list[float], float]:
    """BLEU (0-100), the n-gram precisions (0-100) and the brevity penalty from summed
    statistics: sacrebleu's ``BLEU.compute_bleu``, line by line.

    >>> bleu_from_stats([4, 4, 4, 3, 2, 1, 4, 3, 2, 1])[0]
    100.00000000000004
    """
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    sys_len, ref_len = stats[0], stats[1]
    correct = list(stats[2 : 2 + max_order])
    total = list(stats[2 + max_order : 2 + 2 * max_order])
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * max_order
    if not any(correct):
        return 0.0, precisions, bp
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if smooth_method == "add-k" and n > 1:
            assert smooth_value is not None
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                assert smooth_value is not None
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    score = bp * math.exp(sum([_my_log(p) for p in precisions[:eff_order]]) / eff_order)
    return score, precisions, bp


# ------------------------------------------------------------------------------------- chrF


def _split_punctuation(text: str) -> list[str]:
    """chrF++'s words: white-space tokens with one leading or trailing punctuation mark split
    off (sacrebleu's ``_remove_punctuation``: ``(hi)`` gives ``(hi`` and ``)``)."""
    words: list[str] = []
    for w in text.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in _PUNCTS:
            words += [w[:-1], w[-1]]
        elif w[0] in _PUNCTS:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


def chrf_ngrams(
    text: str, char_order: int, word_order: int, whitespace: bool = False
) -> list[Counter[str]]:
    """chrF's n-gram counts of a (lower-cased when asked) text: character n-grams of orders 1
    to ``char_order`` (white space removed unless ``whitespace``), then word n-grams of orders
    1 to ``word_order`` (words joined by a space).

    >>> [sorted(c) for c in chrf_ngrams("ab c", 2, 1)]
    [['a', 'b', 'c'], ['ab', 'bc'], ['ab', 'c']]
    """
    line = text if whitespace else "".join(text.split())
    out: list[Counter[str]] = [Counter(line)] if char_order else []
    for n in range(2, char_order + 1):
        out.append(Counter([line[i : i + n] for i in range(len(line) - n + 1)]))
    if word_order > 0:
        words = _split_punctuation(text)
        for n in range(1, word_order + 1):
            out.append(Counter([" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]))
    return out


def chrf_token_ngrams(
    tokens: Sequence[str], char_order: int, word_order: int
) -> list[Counter[str]]:
    """chrF's n-gram counts from words already split (lexeval's mode): character n-grams of
    orders 1 to ``char_order`` over the words joined without space (as chrF removes white
    space), then word n-grams of orders 1 to ``word_order`` over the words as they are.

    >>> [sorted(c) for c in chrf_token_ngrams(["ab", "c"], 2, 1)]
    [['a', 'b', 'c'], ['ab', 'bc'], ['ab', 'c']]
    """
    line = "".join(tokens)
    out: list[Counter[str]] = [Counter(line)] if char_order else []
    for n in range(2, char_order + 1):
        out.append(Counter([line[i : i + n] for i in range(len(line) - n + 1)]))
    for n in range(1, word_order + 1):
        out.append(Counter([" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]))
    return out


def _match_statistics(hyp: Counter[str], ref: Counter[str]) -> tuple[int, int, int]:
    """``[hyp, ref, match]`` of one order (hyp counted only when the reference has n-grams)."""
    matched = 0
    for gram in hyp.keys() & ref.keys():
        count, available = hyp[gram], ref[gram]
        matched += count if count < available else available
    return (sum(hyp.values()) if ref else 0), sum(ref.values()), matched


def chrf_from_stats(
    stats: Sequence[float], *, order: int, beta: float = 2, eps_smoothing: bool = False
) -> float:
    """chrF (0-100) from summed ``[hyp, ref, match]`` statistics of ``order`` n-gram orders:
    sacrebleu's ``CHRF._compute_f_score``, line by line.

    >>> chrf_from_stats([3, 3, 3, 2, 2, 2], order=2)
    100.0
    """
    eps = 1e-16
    score = 0.0
    effective_order = 0
    factor = beta**2
    avg_prec, avg_rec = 0.0, 0.0
    for i in range(order):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1
    if eps_smoothing:
        return 100 * score / order
    if effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


def chrf_statistics(
    hypothesis: list[Counter[str]],
    references: Sequence[list[Counter[str]]],
    *,
    beta: float = 2,
    eps_smoothing: bool = False,
) -> tuple[list[int], int]:
    """The statistics of the reference with the best chrF (the first on ties, as sacrebleu)
    and its index, from :func:`chrf_ngrams` of the hypothesis and of each reference."""
    order = len(hypothesis)
    best: list[int] = []
    best_index = 0
    best_f = -1.0
    for index, reference in enumerate(references):
        stats: list[int] = []
        for h, r in zip(hypothesis, reference, strict=True):
            stats.extend(_match_statistics(h, r))
        f = chrf_from_stats(stats, order=order, beta=beta, eps_smoothing=eps_smoothing)
        if f > best_f:
            best_f, best, best_index = f, stats, index
    return best, best_index


# -------------------------------------------------------------------------------------- TER


def ter_statistics(hypothesis: str, references: Sequence[str]) -> tuple[list[float], int, TerTrace]:
    """TER's statistics of a tokenized hypothesis against tokenized references: the fewest
    edits (shifts, insertions, deletions, substitutions; sacrebleu's Tercom search,
    :func:`lexeval.metrics.ter_edits.ter_trace`) over the references and their average
    length, with the index of the best reference (the first with the fewest edits) and what
    its edits were.

    >>> refs = ["a dog", "the cat sat on the mat"]
    >>> stats, index, trace = ter_statistics("on the mat the cat sat", refs)
    >>> stats, index, trace.shifts
    ([1, 4.0], 1, [Shift(words=('on', 'the', 'mat'), start=0, target=3)])
    """
    words_hyp = hypothesis.split()
    ref_lengths = 0
    best: TerTrace | None = None
    best_edits = 0
    best_index = 0
    for index, reference in enumerate(references):
        words_ref = reference.split()
        trace = ter_trace(words_hyp, words_ref)
        ref_lengths += len(words_ref)
        edits = trace.edits
        if best is None or edits < best_edits:
            best, best_edits, best_index = trace, edits, index
    assert best is not None, "at least one reference"
    return [best_edits, ref_lengths / len(references)], best_index, best


def ter_from_stats(stats: Sequence[float]) -> float:
    """TER (0-100, lower is better) from summed ``[edits, reference length]``: sacrebleu's
    rule for empty references (100 when there are edits, else 0).

    >>> ter_from_stats([1, 4.0]), ter_from_stats([2, 0.0]), ter_from_stats([0, 0.0])
    (25.0, 100.0, 0.0)
    """
    edits, ref_length = stats[0], stats[1]
    if ref_length > 0:
        rate = edits / ref_length
    elif edits > 0:
        rate = 1.0
    else:
        rate = 0.0
    return 100 * rate


def sum_stats(rows: Sequence[Sequence[float]]) -> list[float]:
    """Column sums in row order, as sacrebleu's ``sum_of_lists`` (the same float rounding).

    >>> sum_stats([[1, 2.5], [3, 0.5]])
    [4, 3.0]
    """
    if not rows:
        raise ValueError("no statistics to sum")
    total: list[float] = [type(rows[0][0])(0)] * len(rows[0])
    for row in rows:
        for i, value in enumerate(row):
            total[i] += value
    return total
