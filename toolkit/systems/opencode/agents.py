"""OpenCode's agents and their permission rulesets (``packages/opencode/src/agent/agent.ts``).

Each agent's ruleset is ``Permission.merge(defaults, <the agent's own defaults>, user)``, then
the agent's config ``permission`` appended, then ``external_directory: {<Truncate.GLOB>:
allow}`` unless the agent denies exactly that pattern (agent.ts @007a940, lines "Ensure
Truncate.GLOB is allowed unless explicitly configured"). A rule is ``{permission, pattern,
action}`` (``Permission.fromConfig``: an action is pattern ``*``; ``~/`` and ``$HOME`` at a
pattern's start are the home folder). ``evaluate`` takes the *last* rule whose permission
and pattern both match (``permission/evaluate.ts``: ``rules.findLast``); none matching asks.
``disabled`` removes a tool from the model's list when the last rule matching its
permission (any pattern) is ``*`` / deny; ``edit``, ``write`` and ``apply_patch`` are the
``edit`` permission (``permission/index.ts``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import wildcard
from .config import OpenCodeConfig, Src, js_order

__all__ = ["BUILTIN_SOURCE", "EDIT_TOOLS", "Agent", "PermissionRule", "build_agents", "disabled",
           "evaluate", "expand", "from_config", "permission_of"]

BUILTIN_SOURCE = "<opencode agent.ts>"
#: tools asking the ``edit`` permission (``EDIT_TOOLS`` of permission/index.ts)
EDIT_TOOLS = ("edit", "write", "apply_patch")


@dataclass(frozen=True)
class PermissionRule:
    """One rule of an agent's ruleset, and where it was written."""

    permission: str
    pattern: str
    action: str
    file: str | None = None
    line: int | None = None
    #: "opencode" (a built-in default), "global", "project", "managed", "tools", "session"...
    layer: str = "opencode"

    @property
    def text(self) -> str:
        """``bash: "git *" -> allow``, as the rule reads in opencode.json."""
        return f'{self.permission}: "{self.pattern}" -> {self.action}'


@dataclass
class Agent:
    """``Agent.Info``: one agent's mode, visibility and ruleset."""

    name: str
    mode: str
    permission: list[PermissionRule]
    native: bool
    description: str = ""
    hidden: bool = False
    file: str | None = None
    line: int | None = None
    prompt: str = ""


def expand(pattern: str, home: Path) -> str:
    """``~/x``, ``~``, ``$HOME/x`` and ``$HOME...`` at the start name the home folder."""
    h = str(home)
    if pattern.startswith("~/"):
        return h + pattern[1:]
    if pattern == "~":
        return h
    if pattern.startswith("$HOME"):
        return h + pattern[5:]
    return pattern


def from_config(permission: Mapping[str, Any], home: Path, layer: str = "opencode",
                file: str | None = None) -> list[PermissionRule]:
    """``Permission.fromConfig``: a config permission map as rules, in key order."""
    rules = []
    for key in js_order(permission):
        value = permission[key]
        if isinstance(value, (str, Src)):
            src = value if isinstance(value, Src) else Src(value, file, None, layer)
            rules.append(PermissionRule(key, "*", src.value, src.file, src.line, src.layer))
            continue
        for pattern in js_order(value):
            action = value[pattern]
            src = action if isinstance(action, Src) else Src(action, file, None, layer)
            rules.append(PermissionRule(key, expand(pattern, home), src.value, src.file,
                                        src.line, src.layer))
    return rules


def evaluate(permission: str, pattern: str, *rulesets: Sequence[PermissionRule]
             ) -> PermissionRule | None:
    """The last rule whose permission and pattern match (None: OpenCode's default ``ask``)."""
    for rules in reversed(rulesets):
        for rule in reversed(rules):
            if wildcard.match(permission, rule.permission) and \
                    wildcard.match(pattern, rule.pattern):
                return rule
    return None


def permission_of(tool: str) -> str:
    """The permission a tool is gated by (``edit`` for every file-writing tool)."""
    return "edit" if tool in EDIT_TOOLS else tool


def disabled(tools: Iterable[str], ruleset: Sequence[PermissionRule]) -> dict[str, PermissionRule]:
    """``Permission.disabled``: tools whose last matching rule is ``*`` / deny, with that rule."""
    out = {}
    for tool in tools:
        permission = permission_of(tool)
        rule = next((r for r in reversed(ruleset) if wildcard.match(permission, r.permission)),
                    None)
        if rule is not None and rule.pattern == "*" and rule.action == "deny":
            out[tool] = rule
    return out


def _truncate_glob(config: OpenCodeConfig) -> str:
    """``Truncate.GLOB``: ``<data>/tool-output/*`` (tool/truncate.ts)."""
    return os.path.join(config.data_dir, "tool-output", "*")


def build_agents(config: OpenCodeConfig) -> dict[str, Agent]:
    """Every agent OpenCode runs for this configuration (``Agent.state``), in its order."""
    home, root = config.home, config.root
    truncate = _truncate_glob(config)

    def rules(permission: Mapping[str, Any]) -> list[PermissionRule]:
        return from_config(permission, home, "opencode", BUILTIN_SOURCE)

    external = {"*": "ask", truncate: "allow"}
    defaults = rules({"*": "allow", "doom_loop": "ask", "external_directory": external,
                      "question": "deny", "plan_enter": "deny", "plan_exit": "deny",
                      # mirrors github.com/github/gitignore Node.gitignore for .env files
                      "read": {"*": "allow", "*.env": "ask", "*.env.*": "ask",
                               "*.env.example": "allow"}})
    user = from_config(config.permission, home, "config")
    plans = os.path.join(config.data_dir, "plans")
    plan_md = os.path.relpath(os.path.join(plans, "*.md"), root)
    native: dict[str, tuple[str, str, bool, dict[str, Any]]] = {
        "build": ("primary", "The default agent. Executes tools based on configured "
                  "permissions.", False, {"question": "allow", "plan_enter": "allow"}),
        "plan": ("primary", "Plan mode. Disallows all edit tools.", False,
                 {"question": "allow", "plan_exit": "allow",
                  "external_directory": {os.path.join(plans, "*"): "allow"},
                  "edit": {"*": "deny", os.path.join(".opencode", "plans", "*.md"): "allow",
                           plan_md: "allow"}}),
        "general": ("subagent", "General-purpose agent for researching complex questions and "
                    "executing multi-step tasks. Use this agent to execute multiple units of "
                    "work in parallel.", False, {"todowrite": "deny"}),
        "explore": ("subagent", "Fast agent specialized for exploring codebases.", False,
                    {"*": "deny", "grep": "allow", "glob": "allow", "list": "allow",
                     "bash": "allow", "webfetch": "allow", "websearch": "allow",
                     "codesearch": "allow", "read": "allow", "external_directory": external}),
        "compaction": ("primary", "", True, {"*": "deny"}),
        "title": ("primary", "", True, {"*": "deny"}),
        "summary": ("primary", "", True, {"*": "deny"}),
    }
    agents: dict[str, Agent] = {
        name: Agent(name=name, mode=mode, permission=[*defaults, *rules(own), *user],
                    native=True, description=description, hidden=hidden)
        for name, (mode, description, hidden, own) in native.items()}
    for key, entry in config.agents.items():
        fields = entry.fields
        disable = fields.get("disable")
        if isinstance(disable, Src) and disable.value:
            agents.pop(key, None)
            continue
        item = agents.get(key)
        if item is None:
            item = agents[key] = Agent(name=key, mode="all", permission=[*defaults, *user],
                                       native=False)
        mode, hidden = fields.get("mode"), fields.get("hidden")
        item.mode = mode.value if isinstance(mode, Src) else item.mode
        item.hidden = hidden.value if isinstance(hidden, Src) else item.hidden
        item.description = fields.get("description", item.description)
        item.prompt = fields.get("prompt", item.prompt)
        item.file, item.line = entry.file, entry.line
        if isinstance(fields.get("name"), str):
            item.name = fields["name"]
        item.permission = [*item.permission,
                           *from_config(fields.get("permission") or {}, home, "agent")]
    for item in agents.values():
        explicit = any(r.permission == "external_directory" and r.action == "deny"
                       and r.pattern == truncate for r in item.permission)
        if not explicit:
            item.permission.append(PermissionRule("external_directory", truncate, "allow",
                                                  BUILTIN_SOURCE, None, "opencode"))
    return agents


def default_agent(config: OpenCodeConfig, agents: Mapping[str, Agent]) -> str:
    """``Agent.defaultAgent``: ``default_agent`` when it names a visible primary agent (else
    OpenCode stops with the error raised here), otherwise the first visible non-subagent."""
    chosen = config.default_agent
    if chosen is not None:
        found = agents.get(chosen.value)
        where = f"{chosen.file}:{chosen.line}"
        if found is None:
            raise ValueError(f'default agent "{chosen.value}" not found ({where})')
        if found.mode == "subagent":
            raise ValueError(f'default agent "{chosen.value}" is a subagent ({where})')
        if found.hidden:
            raise ValueError(f'default agent "{chosen.value}" is hidden ({where})')
        return found.name
    visible = next((a for a in agents.values() if a.mode != "subagent" and not a.hidden), None)
    if visible is None:
        raise ValueError("no primary visible agent found")
    return visible.name
