"""The code's layout rules that a reader relies on: public names where users look for them,
one definition of each shared helper, no private names imported across modules, snake_case
evidence keys in lexeval's own modes; tests in folders that mirror src/lexeval."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import lexeval
import lexeval.metrics
import lexeval.metrics.rouge
from lexeval import get_metric

SRC = Path(lexeval.__file__).resolve().parent


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out.append((name, ast.parse(path.read_text(encoding="utf-8"))))
    return out


def test_rouge_scorer_is_exported_where_rouge_score_users_look() -> None:
    assert lexeval.RougeScorer is lexeval.metrics.RougeScorer is lexeval.metrics.rouge.RougeScorer
    assert "RougeScorer" in lexeval.__all__ and "RougeScorer" in lexeval.metrics.__all__


KNOWN_PRIVATE_IMPORTS: set[str] = set()


def test_no_module_imports_a_private_name_of_another() -> None:
    found = []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lexeval"):
                if node.module == "lexeval._version":  # the package's version module
                    continue
                found += [
                    f"{name}: from {node.module} import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and node.module != name
                ]
    assert set(found) - KNOWN_PRIVATE_IMPORTS == set()


@pytest.mark.parametrize(
    "helper", ["check_text", "check_references", "check_texts", "resolve_normalizer"]
)
def test_each_shared_helper_is_defined_once(helper: str) -> None:
    where = {
        name
        for name, tree in _modules()
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == helper
    }
    assert len(where) == 1, where


def test_one_outputs_alias() -> None:
    assigned: Counter[str] = Counter()
    for _, tree in _modules():
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            assigned.update(t.id for t in targets if isinstance(t, ast.Name))
    assert assigned["Outputs"] == 1


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [str(k) for k in value] + [k for v in value.values() for k in _keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


# keyword_coverage's own keys are renamed on the branch that reshapes its internals
@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("token_f1", {}),
        ("token_f1", {"compat": "squad"}),
        ("token_f1", {"compat": "set"}),
        ("rouge1", {}),
        ("rougeL", {}),
        ("rougeLsum", {"compat": "rouge-score"}),
        ("lexical_correctness", {}),
    ],
)
def test_info_keys_are_snake_case(name: str, options: dict[str, Any]) -> None:
    metric = get_metric(name, **options)
    info = metric.measure(["The Eiffel Tower", "Eiffel"], "It is the Eiffel tower in Paris.").info
    keys = _keys(info)
    # snake_case; a ROUGE type's own name (``rougeL``) may start a key, as in rouge-score
    snake = re.compile(r"(?:rouge(?:[0-9]+|L|Lsum))?[a-z0-9_]*")
    assert keys and all(snake.fullmatch(k) for k in keys), keys


TESTS = Path(__file__).resolve().parent
#: the tests of the project as a whole, beside the tests of top-level modules at tests/'s top
PROJECT_TESTS = {
    "test_benchmark_imports.py",
    "test_build.py",
    "test_docs.py",
    "test_docs_commands.py",
    "test_layers.py",
    "test_layout.py",
    "test_new_user.py",
    "test_notebooks.py",
    "test_setup.py",
}
#: folders of tests/ that hold no tests of a package: shared fixtures and helpers
NOT_MIRRORS = {"data", "support"}


def test_every_test_folder_mirrors_a_package_of_src() -> None:
    """tests/metrics/nlp/ holds the tests of lexeval.metrics.nlp; each folder is a package (test
    files of one name in two folders), and its files do not repeat its name
    (tests/metrics/test_mt.py, not tests/metrics/test_metrics_mt.py)."""
    folders = [
        p
        for p in sorted(TESTS.rglob("*"))
        if p.is_dir()
        and p.name != "__pycache__"
        and p.relative_to(TESTS).parts[0] not in NOT_MIRRORS
    ]
    assert folders
    for folder in folders:
        relative = folder.relative_to(TESTS)
        assert (SRC / relative / "__init__.py").is_file(), f"tests/{relative}: no lexeval package"
        assert (folder / "__init__.py").is_file(), f"tests/{relative}: no __init__.py"
        repeated = sorted(p.name for p in folder.glob(f"test_{folder.name}_*.py"))
        assert repeated == [], f"tests/{relative}: drop the folder's name from {repeated}"


def test_top_level_tests_are_of_top_level_modules_or_the_project() -> None:
    """A test of lexeval.X.Y lives in tests/X/; at the top only tests of a top-level module
    (tests/test_porter.py, tests/test_compat_squad.py for lexeval.compat) and the project-wide
    ones."""
    modules = {p.stem for p in SRC.glob("*.py") if p.stem != "__init__"}
    misplaced = [
        p.name
        for p in sorted(TESTS.glob("test_*.py"))
        if p.name not in PROJECT_TESTS
        and not any(p.stem == f"test_{m}" or p.stem.startswith(f"test_{m}_") for m in modules)
    ]
    assert misplaced == []
    assert {p.name for p in TESTS.glob("test_*.py")} >= PROJECT_TESTS
