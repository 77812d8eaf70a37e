"""``lexeval judge``: serve a local judge model (``serve``) and compare A/B outputs with
position swap (``pairwise``); :func:`add_backend_arguments` gives ``lexeval score`` its
``--judge-url``/``--judge-model``/``--local-model`` options.

The API key comes only from the environment (``--api-key-env`` names the variable); it is
never printed nor written to a report.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lexeval.cli.common import UsageError, output_target, strict_json
from lexeval.judge.serve import add_server_arguments

__all__ = ["add_backend_arguments", "backend_options", "register", "run"]


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that choose a judge backend (for ``score`` and ``judge pairwise``)."""
    group = parser.add_argument_group("judge backend (for judge:* metrics)")
    group.add_argument(
        "--judge-url", metavar="URL", help="OpenAI-compatible base URL (default: OpenAI's API)"
    )
    group.add_argument("--judge-model", metavar="NAME", help="the judge model's name")
    group.add_argument(
        "--local-model", metavar="PATH", help="a GGUF file: lexeval serves it on 127.0.0.1"
    )
    group.add_argument(
        "--api-key-env",
        metavar="VAR",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )


def backend_options(args: argparse.Namespace) -> dict[str, Any]:
    """Registry options from the backend arguments (only those given)."""
    options: dict[str, Any] = {}
    if args.local_model is not None:
        if args.judge_url is not None or args.judge_model is not None:
            raise UsageError("give either --local-model or --judge-url/--judge-model, not both")
        options["local_model"] = args.local_model
    if args.judge_url is not None:
        options["base_url"] = args.judge_url
    if args.judge_model is not None:
        options["model"] = args.judge_model
    if options and args.api_key_env != "OPENAI_API_KEY":
        options["api_key_env"] = args.api_key_env
    return options


def register(sub: Any) -> None:
    """Add the ``judge`` subcommand to ``sub`` (an argparse subparsers action)."""
    from lexeval.cli.common import Parser

    judge = sub.add_parser(
        "judge",
        help="LLM judge: serve a local model, compare A/B outputs",
        description="Serve a local GGUF judge model on 127.0.0.1, or compare two sets of "
        "outputs with an LLM judge (two passes, positions swapped).",
    )
    actions = judge.add_subparsers(dest="judge_command", metavar="ACTION", parser_class=Parser)
    serve = actions.add_parser(
        "serve",
        help="serve a GGUF model with llama.cpp's OpenAI-compatible server",
        description="Start llama.cpp's server (xllamacpp) on the model, print its URL as one "
        "JSON line, serve until interrupted.",
    )
    serve.add_argument("--model", metavar="PATH", required=True, help="the GGUF model file")
    add_server_arguments(serve, port=8080)
    pairwise = actions.add_parser(
        "pairwise",
        help="compare A/B outputs with position swap",
        description="Read a JSONL file of {prompt, a, b} (optional 'human': A, B or tie); judge "
        "each pair twice with the positions swapped; print one JSON line per pair and a "
        "summary (wins, ties, position consistency, length bias).",
    )
    pairwise.add_argument("file", metavar="FILE", help="JSONL file of {prompt, a, b}")
    pairwise.add_argument(
        "--mode",
        choices=("justified", "logprobs"),
        default="justified",
        help="justified verdicts (default) or one-token log-probabilities",
    )
    pairwise.add_argument(
        "--json", metavar="REPORT", help="write the JSON report here (atomically)"
    )
    pairwise.add_argument("--no-cache", action="store_true", help="do not use the judgment cache")
    add_backend_arguments(pairwise)
    judge.set_defaults(func=run, judge_parser=judge)


def run(args: argparse.Namespace) -> int:
    """Run ``lexeval judge ACTION``; returns the exit code."""
    if args.judge_command == "serve":
        return _serve(args)
    if args.judge_command == "pairwise":
        return _pairwise(args)
    args.judge_parser.print_help()
    return 2


def _serve(args: argparse.Namespace) -> int:
    from pathlib import Path

    from lexeval.judge.serve import ServerSettings, serve

    if not Path(args.model).is_file():
        raise UsageError(f"{args.model}: no such model file")
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        raise UsageError("serving needs the judge extra: pip install 'lexeval[judge]'") from None
    serve(args.model, ServerSettings.from_arguments(args))
    return 0


def _read_pairs(path: str) -> tuple[list[str], list[str], list[str], list[str] | None]:
    from lexeval.io import InputError as DatasetError
    from lexeval.io import iter_jsonl, read_text

    name, text = read_text(path)
    prompts: list[str] = []
    a: list[str] = []
    b: list[str] = []
    human: list[str] = []
    for number, data in iter_jsonl(name, text):
        if not isinstance(data, dict):
            raise DatasetError(name, number, None, "expected an object")
        for key, column in (("prompt", prompts), ("a", a), ("b", b)):
            value = data.get(key)
            if not isinstance(value, str):
                raise DatasetError(name, number, key, "missing or not a string")
            column.append(value)
        if "human" in data:
            verdict = data["human"]
            if verdict not in ("A", "B", "tie"):
                raise DatasetError(name, number, "human", "must be 'A', 'B' or 'tie'")
            human.append(verdict)
    if not prompts:
        raise DatasetError(name, None, None, "no pairs")
    if human and len(human) != len(prompts):
        raise DatasetError(name, None, "human", "given on some lines but not all")
    return prompts, a, b, human or None


def _pairwise(args: argparse.Namespace) -> int:
    from lexeval.judge.pairwise import PairwiseJudge, length_bias, position_consistency
    from lexeval.judge.registry import backend_from_options

    options = backend_options(args)
    if not options:
        raise UsageError("give --judge-model (and --judge-url) or --local-model")
    report_path = output_target("--json", args.json, {"FILE": args.file})
    if report_path == "-":
        raise UsageError("--json - is not available here: stdout carries one line per pair")
    if args.no_cache:
        options["cache"] = False
    prompts, a, b, human = _read_pairs(args.file)
    backend = backend_from_options("judge pairwise", options)
    judge = PairwiseJudge(backend, mode=args.mode)
    try:
        results = judge.compare_many(prompts, a, b)
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    lines = [strict_json(r.to_dict()) for r in results]
    sys.stdout.write("".join(line + "\n" for line in lines))
    readable = [r for r in results if r.winner is not None]
    summary: dict[str, Any] = {
        "n": len(results),
        "parse_errors": len(results) - len(readable),
        "wins_a": sum(r.winner == "A" for r in readable),
        "wins_b": sum(r.winner == "B" for r in readable),
        "ties": sum(r.winner == "tie" for r in readable),
        "position_consistency": (position_consistency(results).to_dict() if readable else None),
        "length_bias": length_bias(results, a, b, human).to_dict(),  # type: ignore[arg-type]
        "usage": backend.usage.to_dict(),
        "judge": judge.signature,
    }
    if human is not None:
        agree = [r.winner == h for r, h in zip(results, human, strict=True) if r.winner]
        summary["agreement_with_human"] = sum(agree) / len(agree) if agree else None
    print(strict_json(summary), file=sys.stderr)
    if report_path is not None:
        from lexeval.io import write_text_atomic

        report = {"summary": summary, "results": [r.to_dict() for r in results]}
        text = strict_json(report, indent=2) + "\n"
        write_text_atomic(report_path, text, inputs={"FILE": args.file})
    return 0
