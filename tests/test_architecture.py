"""Module boundaries and lint hold mechanically (import-linter contracts in pyproject), and no
import cycle exists (import-linter cannot see cycles, so a walk over grimp's graph checks them)."""

import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = BIN / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def test_import_contracts_hold():
    run = subprocess.run([_tool("lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_is_clean():
    run = subprocess.run([_tool("ruff"), "check", "bot", "ingest", "tests"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every group of nodes that reach each other (Tarjan's strongly connected components, more
    than one node each), sorted. Example: cycles({"a": ["b"], "b": ["a"], "c": ["a"]}) -> [["a", "b"]]"""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def _edges(type_checking: bool) -> dict[str, set[str]]:
    graph = grimp.build_graph("bot", "ingest", exclude_type_checking_imports=not type_checking, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) & graph.modules for m in graph.modules}


def _package(module: str) -> str:
    """The stage a module belongs to. Example: 'bot.store.chroma' -> 'bot.store'; 'ingest.plan' -> 'ingest'"""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "bot" else parts[0]


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"], "e": ["e2"], "e2": []}) == [["a", "b", "c"]]


def test_no_module_imports_itself_in_a_cycle():
    # Imports only for type checking are left out: they never run (bot.ui.build and bot.ui.events
    # name each other's types that way).
    assert cycles(_edges(type_checking=False)) == []


def test_no_stage_imports_a_stage_that_imports_it():
    stages: dict[str, set[str]] = {}
    for module, imported in _edges(type_checking=True).items():
        stages.setdefault(_package(module), set()).update(
            _package(m) for m in imported if _package(m) != _package(module)
        )
    assert cycles(stages) == []


def test_only_the_cli_imports_the_app():
    graph = grimp.build_graph("bot", "ingest", cache_dir=None)
    importers = graph.find_modules_that_directly_import("bot.app")
    assert importers and all(m == "bot.cli" or m.startswith("bot.cli.") for m in importers), importers
