"""The judge tier: LLM-as-judge metrics over any OpenAI-compatible server, a local llama.cpp
default, and a lexical-first cascade.

Backends: :class:`OpenAICompatible` (OpenAI, vLLM, llama.cpp's server, Ollama, ...) and
:class:`LocalServer` (llama.cpp started by lexeval on 127.0.0.1, the same client). Judges, each
a metric (``measure(input, output) -> MetricResult`` with ``passed``): :class:`CorrectnessJudge`,
:class:`RubricJudge` (with :class:`Criterion`), :class:`PairwiseJudge`, and
:class:`RecordedJudge` (recorded verdicts of a real model). :class:`Cascade` lets a lexical
metric decide the clear cases and sends only an uncertain band to a judge. See
``docs/judge.md``.

Importing this package loads none of its modules: each loads on first use of one of its names
(``lexeval --help`` and ``lexeval.judge.serve`` stay light); ``openai`` and ``xllamacpp`` (the
``judge`` extra) load on the first request.

>>> from lexeval.judge import RecordedJudge
>>> RecordedJudge({"Paris": True}).measure("Paris", "Paris").passed
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lexeval.judge.backend import OpenAICompatible, Usage
    from lexeval.judge.cascade import Band, Cascade, CascadeReport
    from lexeval.judge.correctness import CorrectnessJudge
    from lexeval.judge.errors import JudgeBackendError, JudgeConfigError, JudgeError
    from lexeval.judge.local import LocalServer
    from lexeval.judge.pairwise import (
        PairwiseJudge,
        PairwiseResult,
        length_bias,
        position_consistency,
    )
    from lexeval.judge.recorded import RecordedJudge
    from lexeval.judge.rubric import Criterion, RubricJudge

__all__ = [
    "Band",
    "Cascade",
    "CascadeReport",
    "CorrectnessJudge",
    "Criterion",
    "JudgeBackendError",
    "JudgeConfigError",
    "JudgeError",
    "LocalServer",
    "OpenAICompatible",
    "PairwiseJudge",
    "PairwiseResult",
    "RecordedJudge",
    "RubricJudge",
    "Usage",
    "length_bias",
    "position_consistency",
]


#: Where each name lives (loaded on first use).
_LAZY = {
    "OpenAICompatible": "lexeval.judge.backend",
    "Usage": "lexeval.judge.backend",
    "Band": "lexeval.judge.cascade",
    "Cascade": "lexeval.judge.cascade",
    "CascadeReport": "lexeval.judge.cascade",
    "CorrectnessJudge": "lexeval.judge.correctness",
    "JudgeBackendError": "lexeval.judge.errors",
    "JudgeConfigError": "lexeval.judge.errors",
    "JudgeError": "lexeval.judge.errors",
    "LocalServer": "lexeval.judge.local",
    "PairwiseJudge": "lexeval.judge.pairwise",
    "PairwiseResult": "lexeval.judge.pairwise",
    "length_bias": "lexeval.judge.pairwise",
    "position_consistency": "lexeval.judge.pairwise",
    "RecordedJudge": "lexeval.judge.recorded",
    "Criterion": "lexeval.judge.rubric",
    "RubricJudge": "lexeval.judge.rubric",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lexeval.judge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
