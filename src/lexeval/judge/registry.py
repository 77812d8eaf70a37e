"""The judges by name, registered in the one registry (:mod:`lexeval.registry`) when this module
is imported: ``lexeval.get_metric("judge:correctness", model=..., base_url=...)`` (or
``local_model=PATH``), and so ``lexeval score --metric judge:correctness``.

Backend options: ``model`` and ``base_url`` (any OpenAI-compatible server; ``api_key_env``
names the key's environment variable), or ``local_model`` (a GGUF file served by a
:class:`~lexeval.judge.local.LocalServer`), plus ``timeout``, ``max_retries``,
``concurrency``, ``cache``. Every other option goes to the judge.

>>> from lexeval import get_metric
>>> judge = get_metric("judge:correctness", model="qwen", base_url="http://127.0.0.1:8080/v1",
...                    mode="logprobs", cache=False)
>>> judge.signature.split("|")[:3]
['judge:correctness', 'template:correctness-v2', 'mode:logprobs']
>>> get_metric("judge:correctness")
Traceback (most recent call last):
...
lexeval.judge.errors.JudgeConfigError: judge:correctness needs a judge model: model=NAME ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lexeval.judge.backend import OpenAICompatible
from lexeval.judge.base import JudgeMetric
from lexeval.judge.correctness import CorrectnessJudge
from lexeval.judge.errors import JudgeConfigError
from lexeval.judge.local import LocalServer
from lexeval.judge.pairwise import PairwiseJudge
from lexeval.judge.rubric import Criterion, RubricJudge
from lexeval.metrics.base import register_metric

__all__ = ["BACKEND_OPTIONS", "backend_from_options"]

#: The options that configure the backend rather than the judge.
BACKEND_OPTIONS = (
    "model",
    "base_url",
    "api_key_env",
    "local_model",
    "timeout",
    "max_retries",
    "concurrency",
    "cache",
    "structured_output",
)


def backend_from_options(name: str, options: dict[str, Any]) -> OpenAICompatible:
    """The backend described by (and removed from) ``options``."""
    backend_options = {k: options.pop(k) for k in BACKEND_OPTIONS if k in options}
    local_model = backend_options.pop("local_model", None)
    model = backend_options.pop("model", None)
    if local_model is not None:
        backend_options.pop("base_url", None)
        return LocalServer(str(local_model), **backend_options)
    if model is None:
        raise JudgeConfigError(
            f"{name} needs a judge model: model=NAME (with base_url=URL for a server other "
            "than OpenAI's), or local_model=PATH to a GGUF file"
        )
    return OpenAICompatible(str(model), **backend_options)


def _criteria(value: object) -> list[Criterion]:
    if not isinstance(value, list) or not value:
        raise JudgeConfigError("criteria must be a non-empty list of {name, description, weight}")
    found = []
    for item in value:
        if isinstance(item, Criterion):
            found.append(item)
        elif isinstance(item, Mapping) and "name" in item:
            levels = {int(k): str(v) for k, v in dict(item.get("levels", {})).items()}
            found.append(
                Criterion(
                    str(item["name"]),
                    str(item.get("description", "")),
                    float(item.get("weight", 1.0)),
                    levels,
                )
            )
        else:
            raise JudgeConfigError(f"a criterion must be an object with a name, not {item!r}")
    return found


def _factory(name: str, judge: Callable[..., JudgeMetric]) -> Callable[..., JudgeMetric]:
    def build(**options: Any) -> JudgeMetric:
        backend = backend_from_options(name, options)
        if "criteria" in options:
            options["criteria"] = _criteria(options["criteria"])
        return judge(backend, **options)

    build.__doc__ = f"``{name}`` from registry options (see :mod:`lexeval.judge.registry`)."
    setattr(build, "judge_class", judge)  # noqa: B010 (its options, for lexeval score --help)
    return build


for _name, _judge in (
    ("judge:correctness", CorrectnessJudge),
    ("judge:rubric", RubricJudge),
    ("judge:pairwise", PairwiseJudge),
):
    register_metric(_name, _factory(_name, _judge))
