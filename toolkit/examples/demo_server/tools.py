"""What a tool is here (:class:`ToolSpec`, its annotations) and the plumbing tools.

The knowledge tools live in :mod:`.trustgraph` and :mod:`.emergent`; each
group is a class whose methods are the tools, bound to the state they work on,
and whose ``specs()`` says how each one is registered.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import mcp.types as types
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

__all__ = [
    "ADDITIVE",
    "DESTRUCTIVE",
    "MAX_MESSAGE_BYTES",
    "READ_ONLY",
    "EntityRef",
    "PlumbingTools",
    "ToolSpec",
    "docstring_of",
]

#: Largest single JSON-RPC message accepted over TCP or WebSocket; ``read_file``
#: stays well under it.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

#: Tool annotations: read-only tools, additive writes, destructive writes.
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                  idempotent_hint=True, open_world_hint=False)
ADDITIVE = types.ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                 idempotent_hint=False, open_world_hint=False)
DESTRUCTIVE = types.ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=False, open_world_hint=False)

EntityRef = Annotated[str, Field(description="Entity id (e.g. 'acme-robotics') or exact name")]


@dataclass(frozen=True)
class ToolSpec:
    """One tool as registered with ``MCPServer.add_tool``."""

    name: str
    title: str
    description: str
    fn: Callable[..., Any]
    annotations: types.ToolAnnotations
    #: Plain-text tools (``echo``, ``read_file``) send their text once, without
    #: a ``structuredContent`` copy; the others return JSON objects as both.
    structured: bool = True


def docstring_of(fn: Callable[..., Any]) -> str:
    """A function's docstring, dedented, as a tool description.

    >>> def tool() -> None:
    ...     '''First line.
    ...
    ...     More.
    ...     '''
    >>> docstring_of(tool)
    'First line.\\n\\nMore.'
    """
    lines = (fn.__doc__ or "").strip().splitlines()
    return "\n".join(line.strip() for line in lines)


class PlumbingTools:
    """``echo`` (for benchmarks) and ``read_file`` (inside one root directory)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def specs(self) -> list[ToolSpec]:
        """How each tool is registered, in listing order."""
        return [
            ToolSpec("echo", "Echo", docstring_of(self.echo), self.echo, READ_ONLY,
                     structured=False),
            ToolSpec("read_file", "Read file", docstring_of(self.read_file), self.read_file,
                     READ_ONLY, structured=False),
        ]

    def echo(self, text: Annotated[str, Field(description="Text to send back")]) -> str:
        """Return the text unchanged (for benchmarks and smoke tests)."""
        return text

    def read_file(
        self,
        path: Annotated[str, Field(description="File path relative to the server's root "
                                               "directory (DEMO_ROOT)")],
        max_bytes: Annotated[int, Field(ge=1, le=MAX_MESSAGE_BYTES // 2,
                                        description="Read at most this many bytes")] = 65536,
    ) -> str:
        """Read a text file under the server's root directory (DEMO_ROOT, default: cwd).

        Paths that leave the root, directly or through a symlink, are refused.
        """
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root):
            raise ToolError(f"{path!r} is outside the server's root directory")
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file under the root")
        with target.open("rb") as handle:
            data = handle.read(max_bytes)
        return data.decode("utf-8", errors="replace")
