"""Cursor's built-in tools as its docs name them, and how a call names an MCP tool.

cursor.com/docs/hooks: "preToolUse / postToolUse / postToolUseFailure: Filter by tool type.
Values include Shell, Read, Write, Grep, Delete, Task, and MCP tools using the MCP:<tool_name>
format"; the web fetch tool is ``WebFetch`` (the CLI permission type that governs it,
cursor.com/docs/cli/reference/permissions).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..base.risks import ALL, READ, WEB, WRITE

__all__ = ["BUILTINS", "MAIN_FIELD", "RISKS", "mcp_parts"]

#: name -> what it does
BUILTINS: Mapping[str, str] = MappingProxyType({
    "Shell": "Run a terminal command",
    "Read": "Read a file",
    "Write": "Create or edit a file",
    "Grep": "Search file contents",
    "Delete": "Delete a file",
    "Task": "Run a subagent",
    "WebFetch": "Fetch a web page",
})
#: the argument a command line's text stands for (``toolmatrix why PATH Shell 'git status'``)
MAIN_FIELD: Mapping[str, str] = MappingProxyType({
    "Shell": "command", "Read": "path", "Write": "path", "Delete": "path", "Grep": "pattern",
    "WebFetch": "url", "Task": "prompt",
})
RISKS: Mapping[str, frozenset[str]] = MappingProxyType({
    "Shell": ALL, "Read": READ, "Grep": READ, "Write": WRITE, "Delete": WRITE, "WebFetch": WEB,
})


def mcp_parts(tool: str) -> tuple[str, str] | None:
    """``(server, tool)`` of an MCP tool named ``@server/tool`` or ``mcp__server__tool``.

    >>> mcp_parts("@datadog/search"), mcp_parts("mcp__github__list_issues"), mcp_parts("Shell")
    (('datadog', 'search'), ('github', 'list_issues'), None)
    """
    if tool.startswith("@") and "/" in tool[1:]:
        server, name = tool[1:].split("/", 1)
        return (server, name) if server and name else None
    if tool.startswith("mcp__") and "__" in tool[5:]:
        server, name = tool[5:].split("__", 1)
        return (server, name) if server and name else None
    return None
