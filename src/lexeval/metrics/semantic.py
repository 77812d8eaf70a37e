"""``SemanticSimilarityMetric``: cosine similarity of static sentence embeddings, alone or
blended with a lexical metric (the optional extra: ``pip install 'lexeval[semantic]'``).

The embeddings are WordLlama's ``l2_supercat`` token codebook (256 dimensions, 16 MB), which
the ``wordllama`` wheel ships: a text's vector is the mean of its tokens' vectors, so encoding
is a table look-up (no torch, no network; the files are read from the installed wheel and
nothing is ever downloaded). lexeval reads the packaged files itself with ``tokenizers`` and
``safetensors`` and never imports ``wordllama`` (its import configures the root logger).

- alone: ``score = max(0, cosine)``, the best cosine over the references (negative cosines count
  as 0); ``info`` holds the raw ``cosine``, the best ``reference`` and the ``model``. There is
  no recommended threshold: cosine levels do not carry over between data sets.
- ``lexical=KeywordCoverageMetric()``: P(people call the answer correct) from a two-feature
  logistic model over the lexical score and the semantic score, fitted on EVOUNA NQ's human
  labels and shipped (``lexeval/data/semantic_blend_en.json``, its digest in the signature).

Every result's signature names the model and the SHA-256 of its weight and tokenizer files.
``measure_many`` encodes each distinct text of the batch once. See docs/semantic.md for where
this helps and where it does not.

>>> m = SemanticSimilarityMetric()
>>> r = m.measure(["a car", "an automobile"], "a motor vehicle")
>>> 0.0 <= r.score <= 1.0, r.info["model"], r.info["reference"] in ("a car", "an automobile")
(True, 'wordllama-l2-supercat-256', True)
>>> m.signature.startswith("semantic_similarity|model:wordllama-l2-supercat-256#")
True
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from lexeval.checks import check_references, check_text
from lexeval.metrics.base import BaseMetric, Metric, MetricResult, check_batch

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "BLEND_FILE",
    "DEFAULT_MODEL",
    "MODELS",
    "BlendModel",
    "Encoder",
    "SemanticSimilarityMetric",
    "StaticEncoder",
    "get_encoder",
    "load_blend",
]

DEFAULT_MODEL = "wordllama-l2-supercat-256"
BLEND_FILE = "semantic_blend_en.json"
INSTALL_HINT = "the semantic tier needs the optional extra: pip install 'lexeval[semantic]'"


@runtime_checkable
class Encoder(Protocol):
    """What the metric needs of an embedding model: a ``name``, a ``digest`` of its weights and
    ``encode(texts)`` -> an ``(n, dim)`` float array of L2-normalized rows (zero rows for texts
    without tokens)."""

    name: str

    @property
    def digest(self) -> str:
        """A short hash of the weights (it goes into the metric's signature)."""
        ...

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One normalized row per text."""
        ...


@dataclass(frozen=True)
class _Files:
    """Where a packaged static model's files sit inside an installed distribution."""

    package: str
    weights: str
    tokenizer: str
    tensor: str = "embedding.weight"


#: The packaged models: name -> files inside the installed package (nothing is downloaded).
MODELS: dict[str, _Files] = {
    DEFAULT_MODEL: _Files(
        "wordllama",
        "weights/l2_supercat_256.safetensors",
        "tokenizers/l2_supercat_tokenizer_config.json",
    ),
}


def _package_dir(package: str) -> Path:
    """The installed package's folder, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{INSTALL_HINT} (package {package!r} is not installed)")
    return Path(next(iter(spec.submodule_search_locations)))


class StaticEncoder:
    """Mean-of-token-vectors sentence encoder over a packaged token codebook (one of
    :data:`MODELS`). Loaded on first use, once per process (see :func:`get_encoder`); safe to
    share between threads (the tokenizer and the table are only read).

    >>> enc = get_encoder(DEFAULT_MODEL)
    >>> enc.encode(["hello world", ""]).shape, float(enc.encode([""])[0].sum())
    ((2, 256), 0.0)
    """

    def __init__(self, name: str) -> None:
        if name not in MODELS:
            raise ValueError(f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}")
        self.name = name
        files = MODELS[name]
        folder = _package_dir(files.package)
        self.weights_path = folder / files.weights
        self.tokenizer_path = folder / files.tokenizer
        for path in (self.weights_path, self.tokenizer_path):
            if not path.is_file():
                raise ImportError(f"{INSTALL_HINT} ({path} is missing from the installed wheel)")
        self._lock = threading.Lock()
        self._table: npt.NDArray[np.float32] | None = None
        self._tokenizer: Any = None
        self._digest: str | None = None

    @property
    def digest(self) -> str:
        """The first 12 hex digits of the SHA-256 of the weight file and the tokenizer file."""
        if self._digest is None:
            h = hashlib.sha256()
            for path in (self.weights_path, self.tokenizer_path):
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        h.update(block)
            self._digest = h.hexdigest()[:12]
        return self._digest

    def _load(self) -> tuple[npt.NDArray[np.float32], Any]:
        with self._lock:
            if self._table is None:
                import numpy as np
                from safetensors.numpy import load_file
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
                tokenizer.no_padding()
                tokenizer.no_truncation()
                tensor = load_file(str(self.weights_path))[MODELS[self.name].tensor]
                self._tokenizer = tokenizer
                self._table = np.ascontiguousarray(tensor, dtype=np.float32)
            return self._table, self._tokenizer

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One L2-normalized row per text: the mean of its token vectors (a zero row when the
        text has no token). The means are one sparse product (rows of 1/length weights times
        the table), each row summed in its own token order whatever the batch."""
        import numpy as np
        from scipy.sparse import csr_matrix

        table, tokenizer = self._load()
        encode = tokenizer.encode
        ids = [encode(text, add_special_tokens=False).ids for text in texts]
        lengths = np.fromiter(map(len, ids), dtype=np.intp, count=len(ids))
        indptr = np.zeros(len(ids) + 1, dtype=np.intp)
        np.cumsum(lengths, out=indptr[1:])
        columns = np.fromiter((i for row in ids for i in row), dtype=np.intp, count=int(indptr[-1]))
        np.minimum(columns, table.shape[0] - 1, out=columns)
        weights = np.repeat(1.0 / np.maximum(lengths, 1), lengths).astype(np.float32)
        means = csr_matrix((weights, columns, indptr), shape=(len(ids), table.shape[0])) @ table
        out = np.ascontiguousarray(means, dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickles as its name: the receiving process loads (or reuses) its own copy."""
        return get_encoder, (self.name,)

    def __repr__(self) -> str:
        return f"<StaticEncoder {self.name}>"


_ENCODERS: dict[str, StaticEncoder] = {}
_ENCODERS_LOCK = threading.Lock()


def get_encoder(name: str = DEFAULT_MODEL) -> StaticEncoder:
    """The process's one :class:`StaticEncoder` for ``name`` (its table is loaded once)."""
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(name)
        if encoder is None:
            encoder = _ENCODERS[name] = StaticEncoder(name)
        return encoder


# --------------------------------------------------------------------------------------------
# the blend with a lexical metric
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlendModel:
    """``P(correct) = 1 / (1 + exp(-(intercept + lexical * lex + semantic * sem)))`` with where
    it was fitted (``trained_on``, the ``lexical_metric``'s name and the ``model``) and its
    kappa-best ``threshold`` on that tuning set (chosen with :func:`lexeval.meta.calibrate`).

    >>> b = BlendModel(0.0, 2.0, 2.0, 0.5, "toy", "keyword_coverage", DEFAULT_MODEL)
    >>> round(b.probability(0.5, 0.5), 3)
    0.881
    """

    intercept: float
    lexical: float
    semantic: float
    threshold: float
    trained_on: str
    lexical_metric: str
    model: str

    def probability(self, lexical: float, semantic: float) -> float:
        """P(correct) for one lexical score and one semantic score (both 0..1)."""
        z = self.intercept + self.lexical * lexical + self.semantic * semantic
        return 1.0 / (1.0 + math.exp(-z))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (what :meth:`from_dict` reads)."""
        return {
            "intercept": self.intercept,
            "lexical": self.lexical,
            "semantic": self.semantic,
            "threshold": self.threshold,
            "trained_on": self.trained_on,
            "lexical_metric": self.lexical_metric,
            "model": self.model,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BlendModel:
        """A blend from its JSON form."""
        return cls(
            float(data["intercept"]),
            float(data["lexical"]),
            float(data["semantic"]),
            float(data["threshold"]),
            str(data["trained_on"]),
            str(data["lexical_metric"]),
            str(data["model"]),
        )

    @property
    def digest(self) -> str:
        """The first 8 hex digits of the SHA-256 of the JSON form."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


@cache
def load_blend() -> BlendModel:
    """The blend that ships with lexeval (keyword coverage + the default model, EVOUNA NQ)."""
    text = resources.files("lexeval.data").joinpath(BLEND_FILE).read_text(encoding="utf-8")
    return BlendModel.from_dict(json.loads(text))


# --------------------------------------------------------------------------------------------
# the metric
# --------------------------------------------------------------------------------------------


class SemanticSimilarityMetric(BaseMetric):
    """The best cosine between ``output`` and the references (clipped at 0), or with
    ``lexical=`` the blend of that metric's score and the cosine (:class:`BlendModel`).

    ``model``: a name from :data:`MODELS` or any :class:`Encoder`. ``blend``: the blend's
    weights (default: the shipped ones, fitted for ``KeywordCoverageMetric()`` with the default
    model; a lexical metric of another name, or another model, needs its own ``blend=``).

    >>> from lexeval.metrics import KeywordCoverageMetric
    >>> b = SemanticSimilarityMetric(lexical=KeywordCoverageMetric())
    >>> right = b.measure(["Tigris", "Tigris River"], "The Tigris.")
    >>> wrong = b.measure(["Tigris", "Tigris River"], "The Euphrates River.")
    >>> right.score > wrong.score, sorted(right.info)
    (True, ['cosine', 'lexical', 'model', 'reference', 'reference_index', 'semantic'])
    """

    name = "semantic_similarity"

    def __init__(
        self,
        *,
        model: str | Encoder = DEFAULT_MODEL,
        lexical: Metric | None = None,
        blend: BlendModel | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        if isinstance(model, str):
            self.encoder: Encoder = get_encoder(model)
        elif isinstance(model, Encoder):
            self.encoder = model
        else:
            raise TypeError(f"model must be a model name or an Encoder, not {type(model).__name__}")
        if lexical is not None and not isinstance(lexical, Metric):
            raise TypeError(f"lexical must be a lexeval metric, not {type(lexical).__name__}")
        if blend is not None and lexical is None:
            raise ValueError("blend= needs lexical= (the metric whose score it blends)")
        self.lexical = lexical
        self.blend: BlendModel | None = None
        if lexical is not None:
            self.blend = blend if blend is not None else self._shipped_blend(lexical)
        self._signature: str | None = None

    def _shipped_blend(self, lexical: Metric) -> BlendModel:
        shipped = load_blend()
        if lexical.name != shipped.lexical_metric or self.encoder.name != shipped.model:
            raise ValueError(
                f"the shipped blend was fitted for {shipped.lexical_metric} with {shipped.model}; "
                f"pass blend= for {lexical.name} with {self.encoder.name}"
            )
        return shipped

    @property
    def recommended_threshold(self) -> float | None:
        """The blend's kappa-best threshold on its tuning set (EVOUNA NQ); None for the cosine
        alone (its levels do not carry over between data sets)."""
        return None if self.blend is None else self.blend.threshold * self.scale

    @property
    def signature(self) -> str:
        if self._signature is None:
            parts = [self.name, f"model:{self.encoder.name}#{self.encoder.digest}"]
            if self.blend is not None and self.lexical is not None:
                parts.append(f"blend:{self.blend.digest}")
            if self.scale != 1.0:
                parts.append(f"scale:{self.scale:g}")
            if self.lexical is not None:
                parts.append(f"lexical:{self.lexical.signature}")
            self._signature = "|".join(parts)
        return self._signature

    # ---- scoring -------------------------------------------------------------------------
    def _best(
        self,
        vectors: npt.NDArray[np.float32],
        row: dict[str, int],
        references: list[str],
        output: str,
    ) -> tuple[float, dict[str, Any]]:
        """The best reference by cosine (the first on ties) and the cosine-only info."""
        out = vectors[row[output]]
        best_index, best_cos = 0, -2.0
        for i, ref in enumerate(references):
            cos = float(vectors[row[ref]] @ out)
            if cos > best_cos:
                best_index, best_cos = i, cos
        cos = min(1.0, max(-1.0, best_cos))
        info: dict[str, Any] = {
            "cosine": cos,
            "reference": references[best_index],
            "model": self.encoder.name,
        }
        if len(references) > 1:
            info["reference_index"] = best_index
        return max(0.0, cos), info

    def _results(
        self, pairs: list[tuple[list[str], str]], lexical: list[float] | None
    ) -> list[MetricResult]:
        texts: dict[str, int] = {}
        for references, output in pairs:
            for text in (*references, output):
                if text not in texts:
                    texts[text] = len(texts)
        vectors = self.encoder.encode(list(texts))
        results: list[MetricResult] = []
        for k, (references, output) in enumerate(pairs):
            score, info = self._best(vectors, texts, references, output)
            if lexical is not None and self.blend is not None:
                info["semantic"] = score
                info["lexical"] = lexical[k]
                score = self.blend.probability(lexical[k], score)
            results.append(self.make_result(score, info))
        return results

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        result = self._score_checked([([reference], output)])[0]
        return result.score / self.scale, result.info

    def _score_checked(self, pairs: list[tuple[list[str], str]]) -> list[MetricResult]:
        lexical: list[float] | None = None
        if self.lexical is not None:
            found = self.lexical.measure_many([p[0] for p in pairs], [p[1] for p in pairs])
            scale = float(getattr(self.lexical, "scale", 1.0))
            lexical = [r.score / scale for r in found]
        return self._results(pairs, lexical)

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: the best is kept;
        ``question`` is not read)."""
        references = check_references(input, "input")
        check_text(output, "output")
        if question is not None:
            check_text(question, "question")
        return self._score_checked([(references, output)])[0]

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        questions: Iterable[str | None] | None = None,
        *,
        progress: bool = False,
    ) -> list[MetricResult]:
        """Score pairs in order, encoding each distinct text of the batch once (``questions``
        are not read; ``progress`` is accepted for the protocol: one batch encodes at once)."""
        ins, outs, _ = check_batch(inputs, outputs, questions)
        pairs = [
            (check_references(i, f"inputs[{k}]"), check_text(o, f"outputs[{k}]"))
            for k, (i, o) in enumerate(zip(ins, outs, strict=True))
        ]
        return self._score_checked(pairs)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        if state.get("blend") is not None and state["blend"] is load_blend():
            state["blend"] = "shipped"
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if state.get("blend") == "shipped":
            state["blend"] = load_blend()
        self.__dict__.update(state)
