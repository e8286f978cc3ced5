"""What every loader shares: the definitions being collected and rule helpers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ...core.models import BUILTIN_KINDS, NATIVE_NAMES, AgentDefinition, Rule, ServerConfig, Tool
from ...errors import DefinitionError, Problem, where
from .source import Located, Path_

RuleKind = Literal["allow", "deny", "ask", "auto-approve", "use"]

#: Built-in tools toolkit itself implements (SPEC section 7).
BUILTIN_NAMES = frozenset(BUILTIN_KINDS)

_NAME_RE = re.compile(r"^[^\s,]+$")


@dataclass
class GroupAssignment:
    """``tool`` joins ``group`` (a TrustGraph custom-group map entry)."""

    group: str
    tool: str
    file: str
    line: int | None


@dataclass
class Definitions:
    """Everything read from a project's files, before any resolution."""

    root: str
    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    group_assignments: list[GroupAssignment] = field(default_factory=list)
    aliases: list[Rule] = field(default_factory=list)
    project_deny: list[Rule] = field(default_factory=list)
    project_ask: list[Rule] = field(default_factory=list)
    users: dict[str, tuple[str, ...]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    manifest: Located | None = None  # the manifest as read, to locate its settings
    #: (preset, why) when the folder's layout shows its system (``loaders.layout_preset``)
    layout: tuple[str, str] | None = None
    #: what a system's loaders gather across files while a folder is read, for a warning
    #: about them all once it is (keyed by the system's own names)
    notes: dict[str, Any] = field(default_factory=dict)

    def warn(self, file: str | None, line: int | None, message: str) -> None:
        """Record a warning (kept, shown by ``proj.warnings`` and ``toolmatrix check``)."""
        self.problems.append(Problem(file, line, message, "warning"))

    def error(self, problem: Problem) -> None:
        """Record an error; loading raises them all together at the end."""
        self.problems.append(problem)

    def add_agent(self, agent: AgentDefinition) -> None:
        """Add an agent; a second agent of the same name is a definition error."""
        if agent.name in self.agents:
            first = self.agents[agent.name]
            self.error(Problem(agent.file, agent.line,
                               f"duplicate agent name {agent.name!r} (first defined at "
                               f"{where(first.file, first.line)}); "
                               "rename one of them"))
            return
        self.agents[agent.name] = agent

    def add_tool(self, tool: Tool) -> None:
        """Add a declared tool; declaring one name twice is a definition error."""
        if tool.name in self.tools:
            first = self.tools[tool.name]
            self.error(Problem(tool.file, tool.line,
                               f"tool {tool.name!r} is declared twice (first at "
                               f"{where(first.file, first.line)}); keep one declaration"))
            return
        self.tools[tool.name] = tool

    def add_server(self, server: ServerConfig) -> None:
        """Add an MCP server config; a second server of the same name is an error."""
        if server.name in self.servers:
            first = self.servers[server.name]
            self.error(Problem(server.file, server.line,
                               f"MCP server {server.name!r} is configured twice (first at "
                               f"{where(first.file, first.line)}); keep one"))
            return
        self.servers[server.name] = server

    def raise_errors(self) -> None:
        """Raise one ``DefinitionError`` carrying every error found so far."""
        errors = [p for p in self.problems if p.severity == "error"]
        if errors:
            raise DefinitionError(errors)


def name_list(src: Located, path: Path_, value: Any, what: str) -> list[tuple[str, int | None]]:
    """A list of tool names (a YAML/JSON list or a comma-separated string), each with its line."""
    if value is None:
        return []
    if isinstance(value, str):
        line = src.line(path)
        names = [n.strip() for n in value.split(",")]
        if value.strip() == "":
            return []
        for n in names:
            if not n:
                raise src.error(path, f"{what}: empty name in comma-separated list {value!r}")
        return [(n, line) for n in names]
    if not isinstance(value, list):
        raise src.error(path, f"{what} must be a list of tool names or a comma-separated "
                              f"string, not {type(value).__name__}")
    result = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise src.error((*path, i), f"{what}[{i}] must be a tool name (a non-empty "
                                         f"string), not {item!r}")
        result.append((item.strip(), src.line((*path, i))))
    return result


def check_name(src: Located, path: Path_, name: str, what: str) -> None:
    """Tool names may not contain whitespace or commas."""
    if not _NAME_RE.match(name):
        raise src.error(path, f"{what}: {name!r} is not a valid tool name (no spaces or commas)")


def check_rule_names(src: Located, what: str, rule_set: Iterable[Rule]) -> None:
    """Every rule's pattern must be a valid tool name; an error points at the rule's line."""
    for r in rule_set:
        if not _NAME_RE.match(str(r.pattern)):
            raise DefinitionError(Problem(src.file, r.line, f"{what}: {r.pattern!r} is not a "
                                                            "valid tool name (no spaces or "
                                                            "commas)"))


def rules(kind: RuleKind, agent: str | None, src: Located, names: list[tuple[str, int | None]]
          ) -> tuple[Rule, ...]:
    """Rules of one kind, each remembering its file and line."""
    return tuple(Rule(kind=kind, pattern=n, agent=agent, file=src.file, line=line)
                 for n, line in names)


def alias_rules(agent: str | None, src: Located, path: Path_, value: Any) -> tuple[Rule, ...]:
    """``{alias: target}`` as alias rules."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise src.error(path, f"aliases must be a mapping of alias -> tool name, not "
                              f"{type(value).__name__}")
    out = []
    for alias, target in value.items():
        if not isinstance(alias, str) or not isinstance(target, str) or not target:
            raise src.error((*path, alias), f"alias {alias!r} must map to a tool name string, "
                                             f"not {target!r}")
        out.append(Rule(kind="alias", pattern=alias, target=target, agent=agent,
                        file=src.file, line=src.line((*path, alias))))
    return tuple(out)


def first_key(data: dict[str, Any], *keys: str) -> tuple[str | None, Any]:
    """The first of ``keys`` present in ``data`` and its value (both spellings accepted)."""
    for k in keys:
        if k in data:
            return k, data[k]
    return None, None


def tool_source(name: str, declared: str | None = None) -> str:
    """``builtin`` for toolkit's built-in names, ``native`` for other runtimes' tools."""
    if declared in ("builtin", "native"):
        return declared
    if name in BUILTIN_NAMES:
        return "builtin"
    if name in NATIVE_NAMES:
        return "native"
    return "registry"
