"""The layering of src/lexeval, read from the code's imports (ast): every import, at module
level or inside a function, goes to the same layer or a lower one, and no modules import each
other in a circle.

text <- normalize <- metrics <- judge <- registry <- run <- cards/frame/adapters <- cli."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"

#: Layers from the bottom; a module belongs to the longest prefix listed.
LAYERS: list[tuple[str, ...]] = [
    (
        "lexeval._version",
        "lexeval.stats",
        "lexeval.compat",
        "lexeval.io",
        "lexeval.checks",
        "lexeval.porter",
        "lexeval._build",  # which build runs (compiled or pure Python): stdlib only
        "lexeval.native",  # the compiled fast paths: import nothing of lexeval but _build
    ),
    ("lexeval.text",),
    ("lexeval.normalize", "lexeval.meta"),
    ("lexeval.metrics",),
    ("lexeval.judge",),
    ("lexeval.registry",),
    ("lexeval.run",),
    ("lexeval.records",),  # the record matcher; flashcards (lexeval.cards) are one schema
    (
        "lexeval.cards",
        "lexeval.frame",
        "lexeval.integrations",
        "lexeval.testing",
        "lexeval.scored",
        "lexeval.runs",
    ),
    ("lexeval.htmlreport",),
    ("lexeval.cli", "lexeval.pytest_plugin", "lexeval.__main__", "lexeval"),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / "lexeval").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _layer(module: str) -> int:
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS"
    return rank


def _imports(module: str, path: Path) -> set[str]:
    """The lexeval modules ``module`` imports (``from a import b`` counts ``a.b`` when it is a
    module, else ``a``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [name if name in MODULES else base for name in names]
        else:
            continue
        found.update(name for name in names if name in MODULES and name != module)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def test_the_graph_is_read() -> None:
    assert "lexeval.metrics.base" in GRAPH["lexeval.metrics.keyword"]
    assert "lexeval.run.pool" in GRAPH["lexeval.run.measure"]
    assert len(GRAPH) > 60


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_from_a_lower_layer_to_a_higher_one(module: str) -> None:
    upward = sorted(name for name in GRAPH[module] if _layer(name) > _layer(module))
    assert upward == [], f"{module} (layer {_layer(module)}) imports {upward}"


def test_no_import_cycles() -> None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for name in sorted(GRAPH[module]):
            if state.get(name) == 1:
                cycles.append([*path[path.index(name) :], name])
            elif name not in state:
                visit(name, [*path, name])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_metrics_know_no_processes() -> None:
    """The run layer alone owns workers: no metric takes a ``workers`` argument nor imports
    a process module."""
    for module, path in MODULES.items():
        if not module.startswith(("lexeval.metrics", "lexeval.judge", "lexeval.text")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.arguments):
                names = [a.arg for a in [*node.posonlyargs, *node.args, *node.kwonlyargs]]
                assert "workers" not in names, module
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported = [getattr(node, "module", None) or ""] + [a.name for a in node.names]
                assert not any("multiprocessing" in name for name in imported), module
