"""One project's Claude Code permissions, as ``Policy`` asks about them.

``Policy`` (``proj``) holds one :class:`ClaudePermissions` when the project is a
Claude Code project (a folder holding ``.claude/``) or settings layers were given:
``proj.check_call``, ``proj.permissions``, ``proj.inheritance_gaps()`` and
``proj.mcp_approvals`` are answered here; the name-level questions (``explain``,
the matrix) take from here the bare deny / ask rules of the settings and the tools
whose calls depend on their arguments (``conditional``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ....core.decision import Decision, Verdict
from ....core.models import AgentDefinition, Rule, ServerConfig
from ....errors import Problem
from ...base.engine import conditional, conditional_verdict
from ...base.layers import Layers
from .agents import AgentPermissions, agent_permissions
from .evaluate import CallContext, RuleSet, check_call, context_for
from .rules import EDIT_TOOLS, READ_TOOLS, SHELL_TOOLS, PermissionRule, call_arguments
from .settings import McpApproval, Settings, project_settings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ClaudePermissions", "empty_engine", "open_engine"]

#: The tools a rule's specifier form covers (tools-reference, "Configure tools with permission
#: rules": Bash(...) -> Bash, Monitor; Read(...) -> Read, Grep, Glob, LSP; Edit(...) -> Edit,
#: Write, NotebookEdit).
_FAMILY = {"Bash": SHELL_TOOLS, "Read": READ_TOOLS, "Edit": EDIT_TOOLS}


class ClaudePermissions:
    """The settings of one Claude Code project and the questions asked about them."""

    system = "claude-code"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._rulesets: dict[str | None, tuple[AgentPermissions | None, RuleSet]] = {}
        self._agents: dict[str, tuple[AgentDefinition, AgentPermissions]] = {}
        self._contexts: dict[tuple[Any, ...], CallContext] = {}

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Warnings met while reading the settings layers (skipped rules)."""
        return tuple(self.settings.problems)

    # -- per call ---------------------------------------------------------------------------------

    def agent(self, definition: AgentDefinition) -> AgentPermissions:
        """A subagent's permission front matter (cached while the definition is the same)."""
        found = self._agents.get(definition.name)
        if found is None or found[0] is not definition:
            found = self._agents[definition.name] = (definition, agent_permissions(definition))
        return found[1]

    def ruleset(self, agent: AgentPermissions | None) -> RuleSet:
        """The settings rules, plus a subagent's argument-pattern tools entries (layer agent)."""
        key = agent.name if agent is not None else None
        found = self._rulesets.get(key)
        if found is None or found[0] is not agent:
            rules = [*self.settings.rules, *(agent.allow_rules if agent else ())]
            found = self._rulesets[key] = (agent, RuleSet(rules))
        return found[1]

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What Claude Code does with this call (see ``Policy.check_call``)."""
        agent = self.agent(definition) if definition is not None else None
        key = (agent, mode, cwd, hook)
        ctx = self._contexts.get(key)
        if ctx is None:  # the same situation is asked about again and again: build it once
            ctx = context_for(self.settings, self.ruleset(agent), agent=agent, mode=mode,
                              cwd=cwd or self.settings.root, hook=hook)
            self._contexts = {**self._contexts, key: ctx} if len(self._contexts) < 256 else {
                key: ctx}
        call = {} if args is None else dict(args) if isinstance(args, Mapping) else args
        return check_call(ctx, tool, call, agent, known)

    @staticmethod
    def call_arguments(tool: str, text: str) -> dict[str, Any]:
        """A call's arguments as written on a command line (see ``rules.call_arguments``)."""
        return call_arguments(tool, text)

    # -- name level --------------------------------------------------------------------------------

    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Iterable[str]) -> tuple[Rule, ...]:
        """Bare deny (or ask) rules as name-level project rules: "A bare tool name like Bash
        removes the tool from Claude's context entirely". Exact names the pool does not know are
        left to the rule warnings (a deny of an absent tool changes nothing)."""
        configured = tuple(f"mcp__{s}__" for s in servers)
        out = []
        for rule in self.settings.active(kind):
            present = known(rule.tool) or rule.tool.startswith(configured)
            if rule.form == "mcp-server":
                pattern = rule.tool + "__*"
            elif rule.form == "name-glob" or (rule.form == "tool" and present):
                pattern = rule.tool
            else:
                continue
            out.append(rule.rule.model_copy(update={"pattern": pattern, "spec": None}))
        return tuple(out)

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Rule, ...]]:
        """Pool tool -> the rules that decide its calls by argument (``conditional`` tools)."""
        agent = self.agent(definition) if definition is not None else None
        rules = [r for r in self.settings.rules if r.skipped is None and r.spec is not None]
        rules += list(agent.allow_rules if agent else ())
        out: dict[str, list[Rule]] = {}
        for rule in rules:
            for tool in _FAMILY.get(rule.tool, (rule.tool,)):
                canonical = lookup(tool)
                if canonical is not None:
                    out.setdefault(canonical, []).append(rule.rule)
        return {tool: tuple(found) for tool, found in out.items()}

    @staticmethod
    def conditional(decision: Decision, rules: tuple[Rule, ...]) -> Decision:
        """``decision`` (a granted tool) as ``conditional``, listing the argument rules."""
        return conditional(decision, rules)

    @staticmethod
    def conditional_verdict(verdict: Verdict) -> Verdict:
        """A granted verdict as conditional."""
        return conditional_verdict(verdict)

    # -- tables ------------------------------------------------------------------------------------

    def frame(self, agents: Iterable[AgentDefinition]) -> pd.DataFrame:
        """Every rule: settings layers, then each subagent's front matter (layer ``agent``)."""
        import pandas as pd

        rows = [_row(r) for r in self.settings.rules]
        for definition in agents:
            agent = self.agent(definition)
            rows += [_row(entry) for entry in (*(agent.tools or ()), *agent.disallowed)]
        columns = ["text", "kind", "tool", "spec", "layer", "file", "line", "agent", "status",
                   "warnings"]
        return pd.DataFrame(rows, columns=columns).astype({"line": "Int64"})

    def approvals(self, servers: Mapping[str, ServerConfig]) -> list[McpApproval]:
        """``.mcp.json`` servers: approved, rejected or pending."""
        return self.settings.approvals(servers)

    def gaps(self, agents: Iterable[AgentDefinition]) -> list[dict[str, Any]]:
        """For each subagent: settings deny / ask rules its tools could get around if a runtime
        did not apply settings to subagents, and ``Agent(a, b)`` spawn lists."""
        rows: list[dict[str, Any]] = []
        restricting = [r for k in ("deny", "ask") for r in self.settings.active(k)]
        for definition in agents:
            agent = self.agent(definition)
            for rule in restricting:
                via = _held_via(agent, rule)
                if via is not None:
                    rows.append({"agent": agent.name, "rule": rule.text, "kind": rule.kind,
                                 "layer": rule.rule.layer, "file": rule.rule.file,
                                 "line": rule.rule.line, "tool": rule.tool, "granted_by": via,
                                 "note": f"{agent.name} holds {rule.tool} ({via}) and its own "
                                         f"front matter does not {rule.kind} it"})
            spawn = agent.spawn_rule
            if spawn is not None:
                rows.append({"agent": agent.name, "rule": spawn.text, "kind": "spawn",
                             "layer": "agent", "file": spawn.file, "line": spawn.line,
                             "tool": "Agent", "granted_by": spawn.text,
                             "note": "restricts the subagent types it spawns only when it runs "
                                     "as the main thread (claude --agent); as a subagent the "
                                     "list is ignored"})
        return rows

    def gap_problems(self, agents: Iterable[AgentDefinition]) -> list[Problem]:
        """One ``toolmatrix check`` warning per subagent with gaps."""
        by_agent: dict[str, list[dict[str, Any]]] = {}
        for row in self.gaps(agents):
            if row["kind"] != "spawn":
                by_agent.setdefault(row["agent"], []).append(row)
        out = []
        for definition in agents:
            rows = by_agent.get(definition.name)
            if not rows:
                continue
            listing = "; ".join(f"{r['rule']} ({r['file']}:{r['line']})" for r in rows[:5])
            more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
            out.append(Problem(definition.file, definition.line,
                               f"subagent {definition.name!r}: {len(rows)} settings deny/ask "
                               f"rule(s) restrict tools it holds ({listing}{more}); a runtime "
                               "that does not apply settings to subagents would not enforce "
                               "them: repeat them in its disallowedTools "
                               "(proj.inheritance_gaps())", "warning"))
        return out


def _held_via(agent: AgentPermissions, rule: PermissionRule) -> str | None:
    """How the subagent holds a tool ``rule`` restricts (None: it does not, or its own
    disallowedTools already removes it)."""
    tools = _FAMILY.get(rule.tool, (rule.tool,)) if rule.form not in (
        "name-glob", "mcp-server") else ()
    if rule.form in ("name-glob", "mcp-server"):
        if agent.all_tools:
            return "every tool (tools omitted)"
        entry = next((e for e in agent.tools or () if rule.names(e.tool)), None)
        return None if entry is None or agent.removes(entry.tool) else f"tools: {entry.text}"
    for tool in tools:
        if agent.removes(tool) is not None:
            continue
        granted = agent.grants(tool)
        if granted is True:
            return "every tool (tools omitted)"
        if isinstance(granted, PermissionRule):
            return f"tools: {granted.text}"
    return None


def _row(rule: PermissionRule) -> dict[str, Any]:
    notes = [n for n in (rule.skipped, rule.warning) if n]
    source = rule.rule
    return {"text": rule.text, "kind": rule.kind, "tool": rule.tool, "spec": rule.spec,
            "layer": source.layer, "file": source.file, "line": source.line,
            "agent": source.agent, "status": "skipped" if rule.skipped else "active",
            "warnings": "; ".join(notes)}


def open_engine(path: str | os.PathLike[str], *, home: Any = None, managed: Any = None,
                cli: Sequence[str] | None = None) -> ClaudePermissions | None:
    """The permissions of the Claude Code project at ``path`` (its settings layers), or None
    when it is not one (no ``.claude/``) and no layer was given."""
    settings = project_settings(path, home=home, managed=managed, cli=cli)
    return None if settings is None else ClaudePermissions(settings)


def empty_engine(root: str) -> ClaudePermissions:
    """Claude Code's engine with no settings at all (a what-if about any project)."""
    return ClaudePermissions(Settings(root, None, Layers(), ()))
