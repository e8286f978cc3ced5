"""OpenCode's built-in tools (``packages/opencode/src/tool/registry.ts``) and its tool names.

The ids the model sees, with the permission each asks (``edit`` for the file writers) and
the argument that is the permission pattern (``MAIN_FIELD``). An MCP tool is named
``<server>_<tool>``, each part with every character outside ``[a-zA-Z0-9_-]`` replaced by
``_`` (``mcp/index.ts`` ``sanitize``): that name is its permission key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from ...core.models import Tool
from ..base.definitions import Definitions
from ..base.risks import ALL, READ, WEB, WRITE

__all__ = ["BUILTINS", "BUILTIN_TOOLS", "MAIN_FIELD", "RISKS", "SOURCE", "add_builtins",
           "opencode_name"]

SOURCE = "<opencode built-in>"

#: id -> what it does, in the registry's order (question, lsp, plan_* behind flags)
BUILTINS: Mapping[str, str] = MappingProxyType({
    "question": "Ask the user a question",
    "bash": "Run a shell command",
    "read": "Read a file or list a directory",
    "glob": "Find files by glob pattern",
    "grep": "Search file contents with a regular expression",
    "edit": "Replace exact text in a file",
    "write": "Create or overwrite a file",
    "task": "Run a subagent",
    "webfetch": "Fetch a URL",
    "todowrite": "Update the todo list",
    "websearch": "Search the web",
    "codesearch": "Search code on the web",
    "skill": "Load a skill",
    "apply_patch": "Apply a patch to files (GPT models)",
    "lsp": "Query the language server (experimental)",
    "list": "List a directory (older releases)",
    "todoread": "Read the todo list (older releases)",
})
BUILTIN_TOOLS = frozenset(BUILTINS)
#: the argument whose value is the permission pattern (tool/*.ts ``ctx.ask({patterns})``)
MAIN_FIELD: Mapping[str, str] = MappingProxyType({
    "webfetch": "url", "websearch": "query", "codesearch": "query", "task": "subagent_type",
    "skill": "name"})

RISKS: Mapping[str, frozenset[str]] = MappingProxyType({
    **dict.fromkeys(("read", "glob", "grep", "list"), READ),
    **dict.fromkeys(("webfetch", "websearch", "codesearch"), WEB),
    "bash": ALL,
    **dict.fromkeys(("edit", "write", "apply_patch"), WRITE),
})

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def opencode_name(tool: str) -> str:
    """The name OpenCode gives ``tool``: an MCP tool (``@server/tool``, ``mcp__server__tool``)
    is ``<server>_<tool>`` sanitized; any other name is itself.

    >>> opencode_name("@my.server/get-item"), opencode_name("bash")
    ('my_server_get-item', 'bash')
    """
    server = name = None
    if tool.startswith("@") and "/" in tool:
        server, name = tool[1:].split("/", 1)
    elif tool.startswith("mcp__") and "__" in tool[5:]:
        server, name = tool[5:].split("__", 1)
    if server is None or name is None:
        return tool
    return f"{_UNSAFE.sub('_', server)}_{_UNSAFE.sub('_', name)}"


def add_builtins(defs: Definitions) -> None:
    """OpenCode's built-in tools join the pool of an OpenCode project (a tool the project
    declares itself keeps its declaration)."""
    for name, description in BUILTINS.items():
        defs.tools.setdefault(name, Tool(name=name, description=description, source="native",
                                         file=SOURCE))
