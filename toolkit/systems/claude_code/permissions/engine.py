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
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ....core.decision import Decision, Effect, NearMiss
from ....core.models import AgentDefinition, Rule, ServerConfig
from ....errors import Problem
from ...base.engine import ConditionalRules
from ...base.layers import Layers
from .agents import AgentPermissions, agent_permissions
from .bash import path_commands, unasked_commands
from .evaluate import CallContext, RuleSet, check_call, context_for
from .near import near_misses
from .rules import (
    EDIT_TOOLS,
    READ_TOOLS,
    SHELL_TOOLS,
    PermissionRule,
    _anchored,
    _command_regex,
    _domain_regex,
    _glob,
    call_arguments,
    canonical_tool,
)
from .settings import McpApproval, Settings, project_settings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ClaudePermissions", "empty_engine", "open_engine"]

#: The tools a rule's specifier form covers (tools-reference, "Configure tools with permission
#: rules": Bash(...) -> Bash, Monitor; Read(...) -> Read, Grep, Glob, LSP; Edit(...) -> Edit,
#: Write, NotebookEdit).
_FAMILY = {"Bash": SHELL_TOOLS, "Read": READ_TOOLS, "Edit": EDIT_TOOLS}


class ClaudePermissions(ConditionalRules):
    """The settings of one Claude Code project and the questions asked about them."""

    #: check_call applies an agent's own tools / permissions itself (Policy.check_call
    #: applies the agent's tool list first for engines that do not)
    applies_agent_tools = True

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
        decision = check_call(ctx, tool, call, agent, known)
        if decision.effect is Effect.ALLOW:
            return decision
        # worked out only when a view asks (decision.near_misses): replays pay nothing
        rules = [*self.settings.rules, *(agent.allow_rules if agent else ())]
        return replace(decision, near=lambda: near_misses(rules, ctx, tool, call, decision))

    def near_misses(self, decision: Decision, tool: str, args: Mapping[str, Any],
                    definition: AgentDefinition | None) -> tuple[NearMiss, ...]:
        """The allow rules that came closest to ``decision``'s call, and why each did not
        match (``permissions.near``); ``check_call`` attaches the same lazily."""
        agent = self.agent(definition) if definition is not None else None
        ctx = context_for(self.settings, self.ruleset(agent), agent=agent, mode=decision.mode
                          or None, cwd=decision.cwd or self.settings.root, hook=None)
        rules = [*self.settings.rules, *(agent.allow_rules if agent else ())]
        return near_misses(rules, ctx, tool, args, decision)

    @staticmethod
    def unasked_commands() -> tuple[tuple[str, ...], ...]:
        """The read-only commands Claude Code runs unasked when no rule matches
        (``bash.unasked_commands``; ``UnaskedEngine``)."""
        return unasked_commands()

    @staticmethod
    def path_commands() -> tuple[tuple[str, str], ...]:
        """The file commands whose paths Claude Code checks against Read and Edit rules
        (``bash.path_commands``; ``PathCommandEngine``)."""
        return path_commands()

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

    def rule_languages(self, tools: Iterable[str], servers: Iterable[str] = ()
                       ) -> list[dict[str, Any]]:
        """Each settings rule as regular languages, for static analysis (``proj.lint()``).

        One dict per rule in layer order: ``rule`` (the toolkit ``Rule``), ``kind``,
        ``order``, ``channels`` and ``note``. A channel is one tool of ``tools`` (the pool,
        canonical names) whose calls the rule is consulted on, as ``check_call`` consults
        it: ``tool``; ``field``, the argument the language reads (None: every call of the
        tool); ``regex``, a Python regex its value must match in full; ``universe``, the
        values the field can take once ``check_call`` has normalised them (None: any
        string); ``suffixes``: the rule also matches a value ``v`` when ``v + suffix`` is in
        the language (a Grep / Glob search root under a Read deny). No channel: ``dead``
        says why the rule can match no call; ``note`` (and no channels, no ``dead``): the
        rule is not analysed (say, a form ``check_call`` does not consult).
        """
        pool = {canonical_tool(t) for t in tools}
        configured = tuple(f"mcp__{s}__" for s in servers)
        candidates = set(pool)
        for rule in self.settings.rules:  # tools of a configured server not connected yet
            if rule.form in ("tool", "name-glob") and rule.tool.startswith(configured):
                candidates.add(rule.tool)  # a glob stands for the server's tools it names
            elif rule.form == "mcp-server" and (rule.tool + "__").startswith(configured):
                candidates.add(rule.tool + "__*")  # stands for the server's unknown tools
        return [_languages(rule, order, candidates, self.settings.root)
                for order, rule in enumerate(self.settings.rules)]

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


# -- rule_languages: each rule as regular languages (static analysis) ------------------------

#: An absolute path as check_call sees it once normalised: "/" then non-empty segments, none
#: of them "." or "..".
_SEGMENT = r"(?:[^/\n.][^/\n]*|\.[^/\n.][^/\n]*|\.\.[^/\n]+)"
_PATH_UNIVERSE = rf"/(?:{_SEGMENT}/)*{_SEGMENT}"
#: WebFetch urls are analysed as https://<host>/ (a rule reads only the host).
_URL_UNIVERSE = r"https://[a-z0-9-]+(?:\.[a-z0-9-]+)*/"
_AGENT_UNIVERSE = r"[A-Za-z0-9_:.-]+"


def _channel(tool: str, field: str | None = None, regex: str | None = None,
             universe: str | None = None, suffixes: tuple[str, ...] = ("",)) -> dict[str, Any]:
    return {"tool": tool, "field": field, "regex": regex, "universe": universe,
            "suffixes": suffixes}


def _languages(rule: PermissionRule, order: int, pool: set[str], root: str) -> dict[str, Any]:
    """One rule's channels (see ``ClaudePermissions.rule_languages``)."""
    out: dict[str, Any] = {"rule": rule.rule, "kind": rule.kind, "order": order,
                           "channels": [], "dead": None, "note": None}
    if rule.skipped is not None:
        out["dead"] = f"Claude Code skips it: {rule.skipped}"
        return out
    if rule.form in ("tool", "name-glob", "mcp-server"):
        out["channels"] = [_channel(t) for t in sorted(pool) if rule.names(t)]
        if not out["channels"]:
            out["dead"] = (f"no tool of the pool is {rule.tool}" + (
                " (its MCP server is not configured)" if rule.tool.startswith("mcp__") else ""))
        return out
    out["channels"], out["note"] = _argument_channels(rule, pool, root)
    if not out["channels"] and out["note"] is None:
        out["dead"] = f"no tool of the pool is consulted for {rule.tool}(...) rules"
    return out


def _argument_channels(rule: PermissionRule, pool: set[str], root: str
                       ) -> tuple[list[dict[str, Any]], str | None]:
    """The channels of a rule with a specifier, or a note saying why it is not analysed."""
    spec = str(rule.spec)
    if rule.form == "param":
        name, _, value = spec.partition(":")
        return ([_channel(rule.tool, f"param:{name.strip()}", _glob(value.strip()).pattern)]
                if rule.tool in pool else []), None
    if rule.form == "command":
        if rule.tool not in ("Bash", "Skill"):
            return [], f"check_call does not consult {rule.tool}(...) command rules"
        regex = "(?s)" + _command_regex(spec, False).pattern
        tools = SHELL_TOOLS if rule.tool == "Bash" else ("Skill",)
        field = "command" if rule.tool == "Bash" else "skill"
        return [_channel(t, field, regex) for t in tools if t in pool], None
    if rule.form == "path":
        path = _path_regex(rule, root)
        if path is None:
            return [], "a negated path pattern is not analysed"
        return _path_channels(rule, path, pool), None
    if rule.form == "domain" and "WebFetch" in pool:
        host = _domain_regex(spec).pattern
        return [_channel("WebFetch", "url", f"https://(?:{host})/", _URL_UNIVERSE)], None
    if rule.form == "agent" and "Agent" in pool:
        types = "|".join(_glob(t.strip()).pattern for t in spec.split(","))
        return [_channel("Agent", "subagent_type", f"(?s)(?:{types})", _AGENT_UNIVERSE)], None
    return [], None


def _path_channels(rule: PermissionRule, regex: str, pool: set[str]) -> list[dict[str, Any]]:
    """permissions#read-and-edit as check_call applies it: Read rules on the read tools (a
    search root under a deny / ask also when something under it matches) and, for deny,
    on Edit and Write; Edit rules on the edit tools, and an Edit allow also grants reading."""
    out = []
    for tool in READ_TOOLS:
        if tool not in pool or (rule.tool == "Edit" and rule.kind != "allow"):
            continue
        searched = tool != "Read" and rule.tool == "Read" and rule.kind != "allow"
        field = "file_path" if tool == "Read" else "path"
        out.append(_channel(tool, field, regex, _PATH_UNIVERSE,
                            ("", "/-") if searched else ("",)))
    for tool in EDIT_TOOLS:
        if tool not in pool:
            continue
        if rule.tool == "Edit" or (rule.kind == "deny" and tool != "NotebookEdit"):
            out.append(_channel(tool, "file_path", regex, _PATH_UNIVERSE))
    return out


def _path_regex(rule: PermissionRule, root: str) -> str | None:
    """A path rule as one regex over absolute paths (relative patterns from ``root``): the
    anchored folder, then the gitignore pattern's own regex (pathspec's, read with
    ``re.match``: a prefix, so it is closed under what follows)."""
    import pathspec

    if rule.anchors is None:
        return None
    anchored = _anchored(str(rule.spec), rule.kind, rule.anchors, root)
    found = pathspec.GitIgnoreSpec.from_lines([anchored.pattern]).patterns[0]
    if not found.include or found.regex is None:
        return None
    body = str(found.regex.pattern)
    body = body[1:] if body.startswith("^") else body
    ends = "(?:(?P<ps_d>/)|$)"
    if body.endswith(ends):
        body = body[: -len(ends)] + "(?:/[\\s\\S]*)?"
    elif body.endswith("(?P<ps_d>/)"):
        body = body[: -len("(?P<ps_d>/)")] + "/[\\s\\S]*"
    elif "$" not in body:
        body += "[\\s\\S]*"
    else:
        return None
    base = "" if anchored.root == "/" else re.escape(anchored.root.rstrip("/"))
    return f"{base}/(?:{body})"
