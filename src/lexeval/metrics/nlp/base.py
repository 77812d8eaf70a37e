"""What Mastra's four NLP metrics share: a mode (Mastra's exact one, ``compat="mastra"``, or
lexeval's on a normalizer), the size checks of JavaScript strings, and a signature.

>>> from lexeval.metrics.nlp import TextualDifferenceMetric
>>> TextualDifferenceMetric(compat="mastra").signature.split("|")[:2]
['textual_difference', 'mode:mastra']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from lexeval.metrics.base import BaseMetric
from lexeval.metrics.nlp.jsstring import check_size
from lexeval.normalize import resolve_normalizer
from lexeval.text.base import TextProcessor
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = ["NlpMetric", "NlpMode"]


class NlpMode(Protocol):
    """One way of scoring a pair: its ``signature`` and ``score(reference, output)``."""

    @property
    def signature(self) -> str: ...

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]: ...


class NlpMetric(BaseMetric):
    """The shared constructor, signature and scoring of the NLP family: a subclass names its
    two modes (:meth:`mastra_mode`, :meth:`lexeval_mode`) and the normalizer preset of the
    latter (``preset``)."""

    preset = "tokens"

    def __init__(
        self,
        *,
        compat: Literal["mastra"] | None,
        normalizer: Normalizer | TextProcessor | str | None,
        scale: float,
        threshold: float | None,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        if compat not in (None, "mastra"):
            raise ValueError(f"compat must be None or 'mastra', not {compat!r}")
        self.compat = compat
        self.normalizer: TextProcessor | None = None
        self.mode: NlpMode
        if compat == "mastra":
            if normalizer is not None:
                raise ValueError(self.normalizer_with_mastra())
            self.mode = self.mastra_mode()
        else:
            self.normalizer = resolve_normalizer(normalizer, self.preset)
            self.mode = self.lexeval_mode(self.normalizer)
        self._signature: str | None = None

    def normalizer_with_mastra(self) -> str:
        """The error for a normalizer given with ``compat="mastra"``."""
        return "normalizer cannot be combined with compat='mastra'"

    def mastra_mode(self) -> NlpMode:
        """Mastra's exact mode."""
        raise NotImplementedError

    def lexeval_mode(self, processor: TextProcessor) -> NlpMode:
        """lexeval's mode on ``processor``."""
        raise NotImplementedError

    @property
    def signature(self) -> str:
        if self._signature is None:  # built once (every result carries it)
            parts = [self.name, f"mode:{self.compat or 'default'}"]
            if self.scale != 1.0:
                parts.append(f"scale:{self.scale:g}")
            parts.append(self.mode.signature)
            self._signature = Signature.of(parts)
        return self._signature

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        check_size(reference, "input")
        check_size(output, "output")
        return self.mode.score(reference, output)
