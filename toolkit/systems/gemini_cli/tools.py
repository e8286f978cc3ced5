"""Gemini CLI's built-in tools (``packages/core/src/tools/tool-names.ts`` and
``tools/definitions/base-declarations.ts`` at 5411f11), as a project's pool gains them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ...core.models import Tool
from ..base.definitions import Definitions
from ..base.risks import ALL, READ, WEB, WRITE

__all__ = ["ALL_BUILTIN_TOOL_NAMES", "BUILTINS", "RISKS", "add_builtins"]

#: name -> what it does (``ALL_BUILTIN_TOOL_NAMES``, in Gemini's order)
BUILTINS: Mapping[str, str] = MappingProxyType({
    "glob": "Find files matching glob patterns",
    "write_todos": "Keep a todo list for the session",
    "write_file": "Write content to a file",
    "google_web_search": "Search the web with Google Search",
    "web_fetch": "Fetch and process content from URLs",
    "replace": "Replace text within a file (edit)",
    "run_shell_command": "Run a shell command",
    "grep_search": "Search file contents with a regular expression (legacy: "
                   "search_file_content)",
    "read_many_files": "Read several files at once",
    "read_file": "Read a file",
    "list_directory": "List a directory",
    "activate_skill": "Activate an agent skill",
    "ask_user": "Ask the user a question",
    "tracker_create_task": "Task tracker: create a task",
    "tracker_update_task": "Task tracker: update a task",
    "tracker_get_task": "Task tracker: get a task",
    "tracker_list_tasks": "Task tracker: list tasks",
    "tracker_add_dependency": "Task tracker: add a dependency",
    "tracker_visualize": "Task tracker: visualise the tasks",
    "get_internal_docs": "Read Gemini CLI's own documentation",
    "enter_plan_mode": "Switch to plan mode",
    "exit_plan_mode": "Leave plan mode",
    "update_topic": "Group the conversation by topic",
    "complete_task": "Finish the agent's task",
    "invoke_agent": "Run a subagent",
    "read_mcp_resource": "Read an MCP resource",
    "list_mcp_resources": "List MCP resources",
})
ALL_BUILTIN_TOOL_NAMES = tuple(BUILTINS)
SOURCE = "<gemini-cli built-in>"

RISKS: Mapping[str, frozenset[str]] = MappingProxyType({
    **dict.fromkeys(("glob", "grep_search", "read_many_files", "read_file", "list_directory",
                     "read_mcp_resource"), READ),
    **dict.fromkeys(("web_fetch", "google_web_search"), WEB),
    "run_shell_command": ALL,
    **dict.fromkeys(("write_file", "replace"), WRITE),
})


def add_builtins(defs: Definitions) -> None:
    """Gemini CLI's built-in tools join the pool of a project with ``.gemini/`` (a tool the
    project declares itself keeps its declaration)."""
    for name, description in BUILTINS.items():
        defs.tools.setdefault(name, Tool(name=name, description=description, source="native",
                                         file=SOURCE))
