"""A Claude Code subagent's own permission front matter: ``tools``, ``disallowedTools`` and
``permissionMode`` (code.claude.com/docs/en/sub-agents).

The loaders keep each ``tools:`` / ``disallowedTools:`` entry as a toolkit ``Rule``
(``Bash(npm test:*)`` with its argument pattern in ``spec``); here they become
:class:`PermissionRule` values the permission engine can match.
"""

from __future__ import annotations

from dataclasses import dataclass

from ....core.models import AgentDefinition, Rule
from .rules import MODES_ALIASES, PermissionRule, canonical_tool, parse_rule

__all__ = ["AgentPermissions", "agent_permissions", "effective_mode"]

#: sub-agents#permission-modes: "If the parent uses bypassPermissions or acceptEdits, this
#: takes precedence and can't be overridden. If the parent uses auto mode, the subagent
#: inherits auto mode and any permissionMode in its frontmatter is ignored".
_PARENT_WINS = frozenset({"bypassPermissions", "acceptEdits", "auto"})


@dataclass(frozen=True)
class AgentPermissions:
    """What a subagent's front matter says about its calls."""

    name: str
    file: str | None
    #: ``tools`` entries (None: omitted, every tool; ``("*",)``-like entries give all)
    tools: tuple[PermissionRule, ...] | None
    all_tools: bool
    disallowed: tuple[PermissionRule, ...]
    #: ``Agent(a, b)`` in tools: the subagent types it may spawn as the main thread
    spawn: tuple[str, ...] | None
    spawn_rule: Rule | None
    permission_mode: str | None

    @property
    def allow_rules(self) -> tuple[PermissionRule, ...]:
        """``tools`` entries with an argument pattern (``Bash(npm test:*)``): allow rules of
        layer ``agent`` for this subagent's calls."""
        return tuple(r for r in self.tools or () if r.spec is not None and r.skipped is None
                     and r.tool != "Agent")

    def removes(self, tool: str) -> PermissionRule | None:
        """The ``disallowedTools`` entry that removes ``tool`` (with or without an argument
        pattern: "disallowedTools: Bash(git push *) removes the whole Bash tool", SPEC 11)."""
        return next((r for r in self.disallowed if _names(r, tool)), None)

    def grants(self, tool: str) -> PermissionRule | bool | None:
        """The ``tools`` entry granting ``tool``; True when every tool is granted; None if none."""
        if self.all_tools:
            return True
        return next((r for r in self.tools or () if _names(r, tool)), None)


def _names(entry: PermissionRule, tool: str) -> bool:
    """Whether a front-matter entry names ``tool``: its tool (any specifier), an MCP server
    (``mcp__srv``, ``mcp__srv__*``) or ``mcp__*`` (sub-agents#available-tools)."""
    if entry.tool == tool:
        return True
    if entry.form in ("name-glob", "mcp-server", "tool"):
        return PermissionRule(entry.rule, entry.tool, entry.form).names(tool)
    if entry.form == "skipped" and "*" in entry.tool and "(" not in entry.text:
        return PermissionRule(entry.rule, entry.tool, "name-glob").names(tool)
    return False


def agent_permissions(agent: AgentDefinition) -> AgentPermissions:
    """The permission front matter of ``agent`` (its allow / deny rules and metadata)."""
    tools: tuple[PermissionRule, ...] | None = None
    all_tools = agent.allow is None
    spawn: tuple[str, ...] | None = None
    spawn_rule: Rule | None = None
    if agent.allow is not None:
        parsed = []
        for rule in agent.allow:
            entry = _entry(rule, "allow", agent.name)
            if entry.tool == "*":
                all_tools = True
            if entry.tool == "Agent" and entry.spec is not None:
                spawn = tuple(t.strip() for t in entry.spec.split(",") if t.strip())
                spawn_rule = entry.rule
            parsed.append(entry)
        tools = tuple(parsed)
    disallowed = tuple(_entry(r, "deny", agent.name) for r in agent.deny)
    mode = agent.metadata.get("permissionMode")
    mode = MODES_ALIASES.get(mode, mode) if isinstance(mode, str) else None
    return AgentPermissions(agent.name, agent.file, tools, all_tools, disallowed, spawn,
                            spawn_rule, mode)


def _entry(rule: Rule, kind: str, agent: str) -> PermissionRule:
    """A front-matter entry as a permission rule (the loader may have split it already)."""
    text = rule.text
    parsed = parse_rule(text, "allow" if kind == "allow" else "deny", layer="agent",
                        file=rule.file, line=rule.line, agent=agent)
    if parsed.form == "skipped" and parsed.spec is None and "*" not in text:
        # an unknown bare name still names that tool ("chrome-mcp" in a real tools list)
        return PermissionRule(parsed.rule, canonical_tool(text), "tool")
    return parsed


def effective_mode(parent: str, agent: AgentPermissions | None) -> tuple[str, str]:
    """(the mode a subagent runs in, why): sub-agents#permission-modes."""
    if agent is None or agent.permission_mode is None:
        return parent, "the session's mode"
    own = agent.permission_mode
    if own == parent:
        return own, f"{agent.name}'s permissionMode, the session's mode too"
    if parent in _PARENT_WINS:
        return parent, (f"the parent's {parent} mode wins over {agent.name}'s permissionMode "
                        f"{own}")
    if own == "bypassPermissions":
        return parent, (f"{agent.name}'s permissionMode bypassPermissions falls back to the "
                        f"parent's mode")
    return own, f"{agent.name}'s permissionMode"
