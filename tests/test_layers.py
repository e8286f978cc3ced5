"""The package's shape (README "Architecture"): imports point inward only, and no import circle.

The layers, inner to outer::

    errors <- core <- systems/base <- systems/<system> <- systems/registry, systems/load
           <- policy <- analysis <- render, runtime <- cli, notebook

- core imports errors only (and itself): it names no agent system and renders nothing;
- a system package imports errors, core and ``systems/base`` only: never another system,
  never the registry, policy, analysis, rendering, runtime or the faces;
- outside ``toolkit/systems`` nothing imports a system package: it asks the registry;
- analysis imports no renderer, runtime or face; runtime no face.

Every import counts: module level, ``TYPE_CHECKING`` and inside functions.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

import toolkit

PACKAGE = Path(toolkit.__file__).parent
#: Agent-system packages (everything under toolkit/systems but the shared machinery).
SHARED = {"base", "registry", "load"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(*, functions: bool = True) -> dict[str, set[str]]:
    """Toolkit imports of every module (``functions``: imports inside functions too)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_functions = {id(node) for f in ast.walk(tree)
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        for node in ast.walk(f)} if not functions else set()
        for node in ast.walk(tree):
            if id(node) in in_functions:
                continue
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - node.level + 1] if (
                    node.level) else []
                module = ".".join([*base, node.module] if node.module else base) if (
                    node.level) else str(node.module)
                for alias in node.names:
                    candidate = f"{module}.{alias.name}"
                    targets.add(candidate if candidate in modules else module)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _layer(module: str) -> str:
    """The layer of a toolkit module (``system`` for an agent-system package)."""
    parts = module.split(".")
    if len(parts) < 2:
        return "facade"  # toolkit/__init__.py: the public names, imported lazily
    top = parts[1]
    if top == "systems":
        if len(parts) < 3:
            return "systems"
        return {"base": "base", "registry": "registry", "load": "registry"}.get(parts[2],
                                                                                 "system")
    return {"notebook": "faces", "cli": "faces"}.get(top, top)


#: For each layer, the layers it may import (besides itself).
ALLOWED = {
    "errors": set(),
    "core": {"errors"},
    "base": {"errors", "core"},
    "system": {"errors", "core", "base"},
    "registry": {"errors", "core", "base", "system", "systems"},
    "policy": {"errors", "core", "base", "registry"},
    "analysis": {"errors", "core", "base", "registry", "policy"},
    "render": {"errors", "core", "analysis"},
    "runtime": {"errors", "core", "base", "registry", "policy", "analysis"},
    "faces": {"errors", "core", "base", "registry", "policy", "analysis", "render", "runtime"},
}


def _system_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "systems" and parts[2] not in SHARED \
        else None


def test_imports_point_inward_only() -> None:
    wrong = sorted((a, b) for a, targets in _imports().items() for b in targets
                   if _layer(a) in ALLOWED and _layer(b) != _layer(a)
                   and _layer(b) not in ALLOWED[_layer(a)])
    assert wrong == []


def test_a_system_imports_no_other_system() -> None:
    wrong = sorted((a, b) for a, targets in _imports().items() for b in targets
                   if _system_of(a) and _system_of(b) and _system_of(a) != _system_of(b))
    assert wrong == []


def test_only_the_registry_names_a_system() -> None:
    """Outside toolkit/systems/<system>, only the registry imports a system package."""
    wrong = sorted((a, b) for a, targets in _imports().items() for b in targets
                   if _system_of(b) and not _system_of(a)
                   and a not in ("toolkit.systems.registry", "toolkit.systems"))
    assert wrong == []


@pytest.mark.parametrize("functions", [False, True], ids=["module-level", "every-import"])
def test_no_import_cycle(functions: bool) -> None:
    graph = _imports(functions=functions)
    cycles = []
    for start in graph:  # a depth-first search from each module back to itself
        stack = [(start, [start])]
        seen: set[str] = set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    cycles.append(path)
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert cycles == []


def test_core_names_no_agent_system() -> None:
    """Tool names, rule grammars and file places of one system stay in its package."""
    words = ("mcp__", "stallion-control", "applicable-states", "run_shell_command",
             "prefix_rule", "Bash(", '"Bash"', ".claude/", ".work-agent/")
    found = [f"{path.relative_to(PACKAGE)}: {word}"
             for path in sorted((PACKAGE / "core").rglob("*.py"))
             for word in words if word in path.read_text(encoding="utf-8")]
    assert found == []


def test_the_graph_is_really_read() -> None:
    graph = _imports()
    assert "toolkit.core.decision" in graph["toolkit.core.resolve"]
    assert "toolkit.core.decision" in graph["toolkit.render.decisions"]
    assert "toolkit.systems.claude_code" in graph["toolkit.systems.registry"]
    # the rules above would catch these, were they written
    assert _layer("toolkit.systems.claude_code.loader") == "system"
    assert _system_of("toolkit.systems.work_agent.names") == "work_agent"
    assert ("core", "system") not in {(a, b) for a in ALLOWED for b in ALLOWED[a]}


def test_import_toolkit_stays_cheap() -> None:
    """``import toolkit`` imports neither pandas, ipywidgets, mcp nor any agent system."""
    code = ("import sys, toolkit; heavy = [m for m in ('pandas', 'ipywidgets', 'mcp', "
            "'toolkit.systems.registry') if m in sys.modules]; print(heavy)")
    out = subprocess.run([__import__("sys").executable, "-c", code], capture_output=True,
                         text=True, check=True, cwd=PACKAGE.parent)
    assert out.stdout.strip() == "[]"
