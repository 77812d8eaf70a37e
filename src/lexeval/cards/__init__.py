"""The flashcard evaluation harness: datasets, matching, reports and A/B comparison.

>>> from lexeval.cards import ExpectedCard, GeneratedCard, match_cards
>>> result = match_cards([ExpectedCard(["ATP"], ["energy"])], [GeneratedCard("ATP?", "energy")],
...                      normalizer=None)
>>> result.recall, result.precision, result.f1
(1.0, 1.0, 1.0)
"""

from lexeval.cards.compare import (
    DEFAULT_SEED,
    CaseDelta,
    Comparison,
    MetricDelta,
    RunSummary,
    SignatureMismatchError,
    compare_runs,
    load_report,
)
from lexeval.cards.dataset import (
    CARD_TYPES,
    MAX_FILE_BYTES,
    DatasetError,
    EvalCase,
    EvalDataset,
    ExpectedCard,
    GeneratedCard,
    generate_outputs,
    load_dataset,
    load_outputs,
)
from lexeval.cards.matching import (
    DEFAULT_WEIGHTS,
    CaseResult,
    MatchedPair,
    NormalizerLike,
    ScoreWeights,
    keyword_similarity,
    match_cards,
    score_pair,
)
from lexeval.cards.report import (
    SCHEMA_VERSION,
    Gate,
    GateResult,
    RunResult,
    RunSettings,
    Scores,
    TypeBreakdown,
    check_gates,
    evaluate,
    render_run,
    write_text_atomic,
)

__all__ = [
    "CARD_TYPES",
    "DEFAULT_SEED",
    "DEFAULT_WEIGHTS",
    "MAX_FILE_BYTES",
    "SCHEMA_VERSION",
    "CaseDelta",
    "CaseResult",
    "Comparison",
    "DatasetError",
    "EvalCase",
    "EvalDataset",
    "ExpectedCard",
    "Gate",
    "GateResult",
    "GeneratedCard",
    "MatchedPair",
    "MetricDelta",
    "NormalizerLike",
    "RunResult",
    "RunSettings",
    "RunSummary",
    "ScoreWeights",
    "Scores",
    "SignatureMismatchError",
    "TypeBreakdown",
    "check_gates",
    "compare_runs",
    "evaluate",
    "generate_outputs",
    "keyword_similarity",
    "load_dataset",
    "load_outputs",
    "load_report",
    "match_cards",
    "render_run",
    "score_pair",
    "write_text_atomic",
]
