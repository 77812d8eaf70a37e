"""Token-level F1 between a reference and an output.

Three modes, chosen with ``compat=`` (the word every lexeval metric uses for its mode):

* default (``compat=None``): the lexeval normalizer's tokens (preset ``"tokens"``), multiset
  overlap; ``normalizer=`` takes a preset name or any :class:`~lexeval.text.TextProcessor`;
* ``compat="squad"``: the SQuAD v1.1 script exactly (its answer normalization, multiset
  overlap, the maximum over gold answers) with exact match in ``info["exact_match"]``;
* ``compat="set"``: lower case, white-space tokens, set overlap (the common "bag of words"
  F1 of QA scripts).

Each mode tokenizes with a text processor (:class:`~lexeval.text.SquadProcessor`,
:class:`~lexeval.text.WhitespaceProcessor`, the normalizer) whose signature the metric's
includes; the metric keeps only the scoring rules (SQuAD's exact match and empty inputs).

>>> TokenF1Metric(compat="set").measure("the cat ran", "the dog sat").score
0.3333333333333333
>>> r = TokenF1Metric(compat="squad").measure(["Denver Broncos", "Broncos"], "The Broncos")
>>> r.score, r.info["exact_match"]
(1.0, 1.0)
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

from lexeval.compat import squad_exact_match
from lexeval.metrics.base import BaseMetric, register_metric
from lexeval.metrics.evidence import check_evidence_limit, overlap_evidence
from lexeval.metrics.overlap import fmeasure, ngram_overlap
from lexeval.normalize import resolve_normalizer
from lexeval.text.base import TextProcessor
from lexeval.text.peers import SquadProcessor, WhitespaceProcessor
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = ["TokenF1Metric"]

Compat = Literal["squad", "set"]


class TokenF1Metric(BaseMetric):
    """Token F1 (the score), with ``precision``, ``recall``, ``fmeasure`` and ``counts`` in info,
    and, when asked for with ``evidence_limit=N`` (N > 0; the default 0 leaves them out), the
    evidence ``matched`` and ``missing``: the reference's tokens the output matched or missed,
    in reference order, at most N of each (see :mod:`lexeval.metrics.evidence`). Scores and
    counts are the same either way.

    Empty inputs: ``squad`` follows the v1.1 script (0.0 when either normalized side is
    empty); ``set`` gives 0.0 when either side is empty; the default mode gives 1.0 when both
    sides have no tokens and 0.0 when only one has none.

    >>> TokenF1Metric(compat="squad").measure("", "").score
    0.0
    >>> m = TokenF1Metric(compat="squad", evidence_limit=20)
    >>> r = m.measure("The Denver Broncos", "Broncos of Denver")
    >>> r.info["matched"], r.info["missing"]
    (['denver', 'broncos'], [])
    """

    name = "token_f1"

    def __init__(
        self,
        *,
        compat: Compat | None = None,
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = 0,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        self.evidence_limit = check_evidence_limit(evidence_limit)
        if compat not in (None, "squad", "set"):
            raise ValueError(f"compat must be None, 'squad' or 'set', not {compat!r}")
        self.compat: Compat | None = compat
        #: the normalizer given (or the default one); None in the peers' modes
        self.normalizer: TextProcessor | None = None
        self.processor: TextProcessor
        if compat is None:
            self.processor = self.normalizer = resolve_normalizer(normalizer, "tokens")
        elif normalizer is not None:
            raise ValueError(f"normalizer cannot be combined with compat={compat!r}")
        else:
            self.processor = SquadProcessor() if compat == "squad" else WhitespaceProcessor()

    @property
    def signature(self) -> str:
        parts = [self.name, f"mode:{self.compat or 'default'}"]
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        parts.append(self.processor.signature)
        return Signature.of(parts)

    def _tokens(self, text: str) -> list[str]:
        return self.processor.tokens(text)

    def _counts(self, text: str) -> tuple[Counter[str] | frozenset[str], int, list[str]]:
        """The text's token counts (a set for ``compat="set"``), their number and the tokens."""
        tokens = self._tokens(text)
        if self.compat == "set":
            s = frozenset(tokens)
            return s, len(s), tokens
        return Counter(tokens), len(tokens), tokens

    def _score(
        self,
        ref: tuple[Counter[str] | frozenset[str], int, list[str]],
        out: tuple[Counter[str] | frozenset[str], int, list[str]],
    ) -> tuple[float, dict[str, Any]]:
        ref_c, n_ref, ref_tokens = ref
        out_c, n_out, _ = out
        if isinstance(ref_c, frozenset):
            overlap = len(ref_c & out_c)  # type: ignore[operator]
        else:
            overlap = ngram_overlap(ref_c, out_c)  # type: ignore[arg-type]
        if n_ref == 0 and n_out == 0 and self.compat is None:
            precision = recall = f = 1.0
        elif overlap == 0:
            precision = recall = f = 0.0
        else:
            precision = 1.0 * overlap / n_out
            recall = 1.0 * overlap / n_ref
            f = fmeasure(precision, recall)
        info: dict[str, Any] = {
            "precision": precision,
            "recall": recall,
            "fmeasure": f,
            "counts": {"overlap": overlap, "reference": n_ref, "output": n_out},
        }
        if self.evidence_limit:
            reference = ref_tokens if isinstance(ref_c, frozenset) else ref_c
            info.update(overlap_evidence(reference, out_c, limit=self.evidence_limit))
        return f, info

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._measure_refs([reference], output)

    def _prepare_output(self, output: str) -> Any:
        return self._counts(output)

    def _score_prepared(self, reference: str, prepared_output: Any) -> tuple[float, dict[str, Any]]:
        return self._score(self._counts(reference), prepared_output)

    def _finish_references(self, info: dict[str, Any], references: list[str], output: str) -> None:
        if self.compat == "squad":
            info["exact_match"] = squad_exact_match(output, references)


def _make(**options: Any) -> TokenF1Metric:
    return TokenF1Metric(**options)


register_metric("token_f1", _make, "token-f1", "f1")
