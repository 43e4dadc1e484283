"""Layering: tasks call services, services never import tasks (they enqueue by task name
through common.outbox), so no import circle runs through a tasks module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.sqlite_only  # a reading of the source: the same in every pass

PACKAGES = (
    "accounts",
    "clients",
    "common",
    "config",
    "debugtools",
    "erp",
    "integrations",
    "licensing",
    "store",
    "theme",
    "webhooks",
)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """Every project module and the project modules it imports, at any depth of its code
    (an import inside a function closes a circle as surely as one at the top)."""
    root = Path(settings.BASE_DIR)
    sources = {
        _module_name(path, root): path
        for package in PACKAGES
        for path in (root / package).rglob("*.py")
        if "migrations" not in path.parts
    }
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for name, path in sources.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                while target and target not in sources:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Read once for the module's tests (parsing every module takes a second)."""
    return import_graph()


def test_the_graph_sees_lazy_imports(graph):
    assert "webhooks.services" in graph["webhooks.tasks"]
    assert "store.orders.services" in graph["store.orders.tasks"]
    assert "common.outbox" in graph["store.orders.services.stock"]


def test_no_import_circle_runs_through_a_tasks_module(graph):
    tangled = [
        sorted(component)
        for component in circles(graph)
        if any(module.endswith(".tasks") for module in component)
    ]
    assert tangled == []


def test_services_enqueue_by_name_and_never_import_tasks(graph):
    offenders = {
        module: sorted(target for target in targets if target.endswith(".tasks"))
        for module, targets in graph.items()
        if ".services" in module and any(target.endswith(".tasks") for target in targets)
    }
    assert offenders == {}
