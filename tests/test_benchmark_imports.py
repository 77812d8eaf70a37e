"""The benchmark scripts import from each other: every name one imports from a sibling script
(a helper at the top of ``benchmarks/``, or a script of ``quality/``, ``speed/`` or
``diagnostics/``) must be defined there (the scripts are run by hand, not by the tests, so a
rename would otherwise go unnoticed), and every script lives in one of the three folders."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
FOLDERS = ("quality", "speed", "diagnostics")
SCRIPTS = sorted(BENCHMARKS.rglob("*.py"))


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_sibling_imports_exist(script: Path) -> None:
    text = script.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            places = [BENCHMARKS, *(BENCHMARKS / folder for folder in FOLDERS)]
            found = [place / f"{node.module}.py" for place in places]
            for sibling in [path for path in found if path.exists()]:
                missing = {a.name for a in node.names} - _top_level_names(sibling)
                assert not missing, f"{script.name} imports {missing} from {sibling.name}"
                if sibling.parent == BENCHMARKS and script.parent != BENCHMARKS:
                    assert "parents[1]))" in text, f"{script.name}: benchmarks/ not on sys.path"
                elif sibling.parent not in (BENCHMARKS, script.parent):
                    folder = f'parents[1] / "{sibling.parent.name}"'
                    assert folder in text, f"{script.name}: {sibling.parent.name}/ not on sys.path"


def test_scripts_are_sorted_into_quality_speed_and_diagnostics() -> None:
    assert {p.parent.name for p in SCRIPTS if p.parent != BENCHMARKS} == set(FOLDERS)
    loose = [p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_")]
    assert loose == [], "a benchmark goes in benchmarks/quality, speed or diagnostics"
