"""Claude Code's built-in tools: the pool of a Claude Code project when no registry names them.

A folder holding ``.claude/`` (or a plugin layout) resolves against this table, so
``tools: Read, Grep, Bash`` in a subagent means Claude Code's own tools without any
registry file; ``.mcp.json`` servers add their tools once discovered.

Sources (see ``README.md``, "Claude Code"): the tools reference of the Claude Code
documentation (code.claude.com/docs/en/tools-reference, "Permission required"
column, read 2026-08) and ``isReadOnly()`` of each tool in Claude Code's source
(``src/tools/<X>Tool/``, ~v2.1.88; a tool without the method is not read-only).
``read_only`` is ``"input"`` where the source decides per call (Bash runs read-only
commands without a prompt) and ``None`` for tools newer than that source.

>>> TOOLS["Read"].read_only, TOOLS["Bash"].permission_required, LEGACY_NAMES["Task"]
(True, True, 'Agent')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from ...core.models import Rule, Tool
from ..base.risks import ALL, READ, WEB, WRITE

__all__ = ["LEGACY_NAMES", "SOURCE", "TOOLS", "BuiltinTool", "alias_rules", "pool_tools"]

#: What ``Tool.file`` and alias rules name as their origin.
SOURCE = "<Claude Code built-in>"

ReadOnly = bool | Literal["input"] | None


@dataclass(frozen=True)
class BuiltinTool:
    """One of Claude Code's built-in tools."""

    name: str
    #: whether Claude Code asks before running it in ``default`` mode (tools reference)
    permission_required: bool
    #: True / False from the tool's ``isReadOnly()``; "input": it depends on the call;
    #: None: not known (newer than the source read)
    read_only: ReadOnly
    description: str

    def tool(self) -> Tool:
        """This built-in as a pool ``Tool`` (source ``native``: toolkit cannot run it)."""
        hints = {"readOnlyHint": self.read_only} if isinstance(self.read_only, bool) else {}
        return Tool(name=self.name, description=self.description, source="native",
                    annotations=hints, file=SOURCE)


def _table(*rows: tuple[str, bool, ReadOnly, str]) -> Mapping[str, BuiltinTool]:
    return MappingProxyType({r[0]: BuiltinTool(*r) for r in rows})


#: Every built-in tool of the current tools reference, by name.
TOOLS: Mapping[str, BuiltinTool] = _table(
    ("Agent", False, True, "Launch a subagent (formerly Task)"),
    ("Artifact", True, None, "Create or update an artifact"),
    ("AskUserQuestion", False, True, "Ask the user a multiple-choice question"),
    ("Bash", True, "input", "Run a shell command"),
    ("CronCreate", False, False, "Schedule a recurring prompt"),
    ("CronDelete", False, False, "Cancel a scheduled prompt"),
    ("CronList", False, True, "List scheduled prompts"),
    ("Edit", True, False, "Make targeted edits to a file"),
    ("EndConversation", False, None, "End the conversation"),
    ("EnterPlanMode", False, True, "Switch to plan mode"),
    ("EnterWorktree", True, False, "Create and enter a git worktree"),
    ("ExitPlanMode", True, False, "Present a plan and leave plan mode"),
    ("ExitWorktree", False, False, "Leave a git worktree"),
    ("Glob", False, True, "Find files by pattern"),
    ("Grep", False, True, "Search file contents"),
    ("ListAgents", False, None, "List the available subagents"),
    ("ListMcpResourcesTool", False, True, "List MCP server resources"),
    ("LSP", False, True, "Code intelligence from language servers"),
    ("Monitor", True, False, "Run a command in the background and watch its output"),
    ("NotebookEdit", True, False, "Edit a Jupyter notebook cell"),
    ("PowerShell", True, "input", "Run a PowerShell command"),
    ("PushNotification", False, None, "Send a push notification"),
    ("Read", False, True, "Read a file"),
    ("ReadMcpResourceTool", False, True, "Read an MCP server resource"),
    ("RemoteTrigger", False, "input", "Manage remote triggers"),
    ("ReportFindings", False, None, "Report findings"),
    ("ScheduleWakeup", False, None, "Schedule a wake-up"),
    ("SendMessage", False, "input", "Send a message to another agent"),
    ("SendUserFile", False, None, "Send a file to the user"),
    ("ShareOnboardingGuide", True, None, "Share an onboarding guide"),
    ("Skill", True, False, "Run a skill"),
    ("TaskCreate", False, False, "Create a task in the task list"),
    ("TaskGet", False, True, "Get a task of the task list"),
    ("TaskList", False, True, "List the task list"),
    ("TaskOutput", False, True, "Read a background task's output (deprecated)"),
    ("TaskStop", False, False, "Stop a background task"),
    ("TaskUpdate", False, False, "Update a task of the task list"),
    ("TodoWrite", False, False, "Manage the session's todo list"),
    ("ToolSearch", False, True, "Search for deferred tools"),
    ("WaitForMcpServers", False, None, "Wait for MCP servers to connect"),
    ("WebFetch", True, True, "Fetch a URL"),
    ("WebSearch", True, True, "Search the web"),
    ("Workflow", True, False, "Run a workflow"),
    ("Write", True, False, "Create or overwrite a file"),
)

#: Names Claude Code still accepts for renamed tools (``LEGACY_TOOL_NAME_ALIASES`` in
#: ``permissionRuleParser.ts``; sub-agents docs: "In version 2.1.63, the Task tool was renamed
#: to Agent. Existing Task(...) references ... still work as aliases").
LEGACY_NAMES: Mapping[str, str] = MappingProxyType({
    "Task": "Agent", "KillShell": "TaskStop", "AgentOutputTool": "TaskOutput",
    "BashOutputTool": "TaskOutput"})


def pool_tools(declared: Mapping[str, Tool]) -> list[Tool]:
    """The built-ins a project's pool gains: every one it does not declare itself (a declared
    tool of a built-in's name *is* that tool, SPEC section 2)."""
    return [b.tool() for name, b in TOOLS.items() if name not in declared]


def alias_rules(declared: Mapping[str, Tool]) -> list[Rule]:
    """``Task`` -> ``Agent`` and the other legacy names, as project alias rules (a name the
    project declares as a tool of its own stays that tool)."""
    return [Rule(kind="alias", pattern=old, target=new, file=SOURCE)
            for old, new in LEGACY_NAMES.items() if old not in declared]


#: Risk classes of Claude Code's built-in tools (``toolkit.analysis.risk``).
RISKS: Mapping[str, frozenset[str]] = MappingProxyType({
    **dict.fromkeys(("Read", "Grep", "Glob", "LS"), READ),
    **dict.fromkeys(("WebFetch", "WebSearch"), WEB),
    **dict.fromkeys(("Bash", "PowerShell"), ALL),
    **dict.fromkeys(("Edit", "Write", "MultiEdit", "NotebookEdit"), WRITE),
})
