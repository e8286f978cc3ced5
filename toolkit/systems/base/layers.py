"""Settings layers: several files that each set some keys, and how their values combine.

A runtime reads its settings from a stack of files (Claude Code: managed,
command line, local, project, user; Gemini CLI: system, project, user). Two
merge rules cover what permission engines need: a scalar comes from the highest
layer that sets it, a list is the concatenation over every layer, highest first.
Every value keeps its layer, file and line, so a decision can point at it.

>>> top = Layer("project", "a.json", {"mode": "plan", "allow": ["x"]}, anchor="/p")
>>> low = Layer("user", "b.json", {"mode": "default", "allow": ["y"]}, anchor="/h")
>>> stack = Layers((top, low))
>>> stack.scalar("mode")[0], [v for v, _, _ in stack.listed("allow")]
('plan', ['x', 'y'])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .source import Located, SourceFile

__all__ = ["Layer", "Layers", "read_layer"]


@dataclass(frozen=True)
class Layer:
    """One settings file (or the command line) as read: its data and where each value is."""

    name: str  # managed | cli | local | project | user (the runtime's layer names)
    file: str  # as messages show it
    data: Mapping[str, Any]
    located: Located | None = field(default=None, compare=False, repr=False)
    #: the folder the runtime anchors this layer's relative rules at
    anchor: str = ""

    def get(self, *path: Any) -> Any:
        """The value at ``path`` (keys and list indexes), or None when absent."""
        value: Any = self.data
        for key in path:
            in_map = isinstance(value, Mapping) and key in value
            in_list = isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value)
            if in_map or in_list:
                value = value[key]
            else:
                return None
        return value

    def has(self, *path: Any) -> bool:
        """Whether the layer sets ``path``."""
        parent = self.get(*path[:-1]) if len(path) > 1 else self.data
        return isinstance(parent, Mapping) and path[-1] in parent

    def line(self, *path: Any) -> int | None:
        """The 1-based line of the value at ``path`` (or of its nearest located parent)."""
        return self.located.line(path) if self.located is not None else None


@dataclass(frozen=True)
class Layers:
    """The layers of one settings stack, highest precedence first."""

    layers: tuple[Layer, ...] = ()

    def __iter__(self) -> Iterator[Layer]:
        return iter(self.layers)

    def scalar(self, *path: Any, skip: Any = None) -> tuple[Any, Layer] | None:
        """The value of ``path`` in the highest layer that sets it, with that layer.

        ``skip(layer, value)`` may refuse a layer's value (a key some layers may not set);
        the next layer down is asked then.
        """
        for layer in self.layers:
            if layer.has(*path):
                value = layer.get(*path)
                if skip is not None and skip(layer, value):
                    continue
                return value, layer
        return None

    def listed(self, *path: Any) -> list[tuple[Any, Layer, int | None]]:
        """Every item of the list at ``path`` in every layer, highest layer first, each with
        its layer and line (a layer whose value is not a list contributes nothing)."""
        out: list[tuple[Any, Layer, int | None]] = []
        for layer in self.layers:
            value = layer.get(*path)
            if isinstance(value, list):
                out.extend((item, layer, layer.line(*path, i)) for i, item in enumerate(value))
        return out


def read_layer(path: Path, name: str, display: str, anchor: str) -> Layer:
    """A JSON settings file as a layer; bad JSON is a ``DefinitionError`` naming file:line."""
    from ...errors import DefinitionError

    source = SourceFile(path, display, path.as_posix())
    located = source.located
    if not isinstance(located.data, dict):
        raise DefinitionError(f"a settings file must hold a JSON object, not "
                              f"{type(located.data).__name__}", file=display, line=1)
    return Layer(name, display, located.data, located, anchor)
