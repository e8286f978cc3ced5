"""The package's shape (CRAFT.md): imports point inward only, and no module-level import cycle.

core imports neither runtime nor the faces (notebook, cli); runtime does not import
the faces. Imports inside functions (lazy imports of a renderer, say) are allowed to
point back; module-level ones, including ``TYPE_CHECKING`` imports, may not form a loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toolkit

PACKAGE = Path(toolkit.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Module-level toolkit imports of every module (function bodies skipped)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_functions = {id(node) for f in ast.walk(tree)
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        for node in ast.walk(f)}
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
    for layer in ("core", "runtime", "notebook", "cli"):
        if module.startswith(f"toolkit.{layer}"):
            return "faces" if layer in ("notebook", "cli") else layer
    return "other"


def test_imports_point_inward_only() -> None:
    outward = {("core", "runtime"), ("core", "faces"), ("runtime", "faces")}
    wrong = sorted((a, b) for a, targets in _imports().items() for b in targets
                   if (_layer(a), _layer(b)) in outward)
    assert wrong == []


def test_no_module_level_import_cycle() -> None:
    graph = _imports()
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


def test_the_graph_is_really_read() -> None:
    graph = _imports()
    assert "toolkit.core.decision" in graph["toolkit.core.resolve"]
    assert "toolkit.core.decision" in graph["toolkit.render.decisions"]
