"""The data toolkit reasons about: tools, rules, agent definitions, servers, requests.

All models are immutable pydantic v2 models. Every rule and definition keeps
the file and 1-based line it came from, so a decision can point at it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import where
from .names import qualified_names

__all__ = [
    "BUILTIN_KINDS",
    "DEFAULT_GROUPS",
    "DEFAULT_STATE",
    "NATIVE_NAMES",
    "NO_GROUPS",
    "NO_RULE",
    "AgentDefinition",
    "BuiltinPolicy",
    "Delegation",
    "Request",
    "Rule",
    "ServerConfig",
    "Tool",
    "User",
    "is_glob",
    "normalize_groups",
    "parse_group_sets",
    "parse_groups",
    "rule_label",
]

DEFAULT_GROUPS: tuple[str, ...] = ("default",)
DEFAULT_STATE = "undefined"

def is_glob(pattern: str) -> bool:
    """True when ``pattern`` has an ``fnmatch`` wildcard (``*``, ``?`` or ``[``)."""
    return "*" in pattern or "?" in pattern or "[" in pattern


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def model_copy(self, *, update: Any = None, deep: bool = False) -> Any:
        """A copy (see pydantic), without the originals' cached properties (they may be stale)."""
        copy = super().model_copy(update=update, deep=deep)
        fields = type(self).model_fields
        for key in [k for k in copy.__dict__ if k not in fields]:
            del copy.__dict__[key]
        return copy


class Rule(_Frozen):
    """One line of policy: an allow, deny, ask or alias entry, and where it was written.

    >>> Rule(kind="allow", pattern="entities_*", agent="graph", file="a.md", line=4).is_glob
    True
    """

    kind: Literal["allow", "deny", "ask", "auto-approve", "use", "alias", "group", "state", "none"]
    pattern: str | None = None
    agent: str | None = None
    file: str | None = None
    line: int | None = None
    target: str | None = None  # the alias target, for kind == "alias"
    #: a permission rule's argument pattern: "npm test:*" of ``Shell(npm test:*)``
    spec: str | None = None
    #: where a permission rule comes from (a settings layer: managed, cli, local, project,
    #: user, agent); "delegation" for a rule a parent's ``delegation`` block puts on its children
    layer: str | None = None
    #: how the pattern is matched: None = SPEC section 4 (exact names, ``fnmatch`` globs);
    #: else the name of a runtime's own rule syntax, registered in :mod:`toolkit.core.names`
    syntax: str | None = None

    @cached_property
    def is_glob(self) -> bool:
        """Whether the pattern is a glob (``*`` alone included)."""
        return self.pattern is not None and is_glob(self.pattern)

    @property
    def where(self) -> str:
        """``file:line`` of the rule, or ``"-"`` when it has no location."""
        return "-" if self.file is None else where(self.file, self.line)

    @property
    def text(self) -> str:
        """The rule as written: ``Shell(npm run *)`` for a permission rule, else its pattern.

        >>> Rule(kind="deny", pattern="Shell", spec="git push *").text
        'Shell(git push *)'
        """
        name = self.pattern or ""
        return name if self.spec is None else f"{name}({self.spec})"

    def __str__(self) -> str:
        label = self.text if self.target is None else f"{self.pattern} -> {self.target}"
        return f"{self.kind} {label} ({self.where})"


#: The rule of a decision that no rule decided (e.g. an omitted allow list).
NO_RULE = Rule(kind="none")


#: The built-in tools toolkit implements (SPEC section 7): name -> the policy kind governing it.
BUILTIN_KINDS: dict[str, str] = {
    "fs_read": "fs_read", "fs_write": "fs_write", "shell_exec": "shell_exec",
    # adh-cli's names for the same three
    "read_file": "fs_read", "list_directory": "fs_read", "get_file_info": "fs_read",
    "execute_command": "shell_exec",
}
#: Tools of other runtimes that resolve and show in matrices but are not executable here.
NATIVE_NAMES = frozenset({"google_search", "google_url_context"})


class BuiltinPolicy(_Frozen):
    """The policy of a built-in tool (work-agent ``builtinPolicy``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    name: Literal["fs_read", "fs_write", "shell_exec"]
    allowed_paths: tuple[str, ...] = Field(default=(), alias="allowedPaths")
    allowed_commands: tuple[str, ...] = Field(default=(), alias="allowedCommands")
    timeout: float | None = None
    max_output_bytes: int | None = Field(default=None, alias="maxOutputBytes")


class Tool(_Frozen):
    """A callable tool in a project's pool.

    ``name`` is canonical: a registry key, a built-in name, or ``@server/tool``
    for a tool discovered from an MCP server.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    name: str
    description: str = ""
    title: str | None = None
    source: str = "registry"  # builtin | registry | native | mcp:<server>
    server: str | None = None
    remote_name: str | None = None  # the tool's own name on its MCP server
    groups: tuple[str, ...] = DEFAULT_GROUPS
    state: str | None = None
    available_in_states: tuple[str, ...] | None = None
    input_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = Field(default_factory=dict)
    type: str | None = None  # TrustGraph ``type``
    mcp_tool_id: str | None = None
    builtin_policy: BuiltinPolicy | None = None
    binding: str | None = None  # ``@server/tool`` that executes this registry tool
    file: str | None = None
    line: int | None = None
    group_line: int | None = None
    states_line: int | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling that reaches this tool: canonical, the registered qualified
        spellings (:func:`toolkit.core.names.qualified_names`) and bare."""
        if self.binding is not None:
            server, _, remote = self.binding[1:].partition("/")
            return (self.name, self.binding, *qualified_names(server, remote))
        if self.server is None:
            return (self.name,)
        bare = self.remote_name or self.name
        return (self.name, *qualified_names(self.server, bare), bare)


class Delegation(_Frozen):
    """work-agent's ``delegation`` block: how an agent's delegated children are shaped.

    ``allowed`` (``allowedTools``, None when not given) and ``blocked``
    (``blockedTools``) are rules in work-agent's pattern syntax; ``deny_approvals``:
    a child's approval-bound tools are denied, not asked. ``max_depth`` becomes the
    agent's own ``max_depth``. An agent without the block has the defaults.
    """

    max_depth: int | None = None
    allowed: tuple[Rule, ...] | None = None
    blocked: tuple[Rule, ...] = ()
    deny_approvals: bool = True
    deny_approvals_line: int | None = None
    file: str | None = None
    line: int | None = None


class AgentDefinition(_Frozen):
    """An agent as written in its file: its rules and where each came from.

    ``allow is None`` means the allow list was omitted; ``()`` means it was
    written empty. What each means is the preset's choice (SPEC section 4).
    """

    name: str
    description: str = ""
    model: str | None = None
    format: str = "generic"
    file: str | None = None
    line: int | None = None
    allow: tuple[Rule, ...] | None = None
    allow_line: int | None = None
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    auto_approve: tuple[Rule, ...] | None = None
    use: tuple[Rule, ...] | None = None
    use_servers: tuple[str, ...] = ()
    aliases: tuple[Rule, ...] = ()
    descriptions: dict[str, str] = Field(default_factory=dict)
    system_prompt: str = ""
    guidelines: dict[str, str] = Field(default_factory=dict)
    guideline_lines: dict[str, int] = Field(default_factory=dict)
    max_depth: int | None = None
    #: Claude Code's ``Agent(a, b)`` in ``tools``: the only subagent types this agent may
    #: spawn when it runs as the main thread (None: no such list)
    spawnable: tuple[str, ...] | None = None
    #: work-agent's ``delegation`` block (None: the file has none)
    delegation: Delegation | None = None
    variables: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)

    @cached_property
    def glob_patterns(self) -> tuple[str, ...]:
        """The glob patterns of the agent's allow, deny, ask, use and auto-approve rules."""
        rules = (*(self.allow or ()), *self.deny, *self.ask, *(self.auto_approve or ()),
                 *(self.use or ()))
        return tuple(dict.fromkeys(str(r.pattern) for r in rules if r.is_glob))


class ServerConfig(_Frozen):
    """An MCP server the project connects to (``.mcp.json``, ``mcp.json``, work-agent catalog)."""

    name: str
    transport: Literal["stdio", "streamable-http", "sse", "ws", "tcp"] = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    health_check: dict[str, Any] | None = None
    startup_timeout: float = 30.0
    file: str | None = None
    line: int | None = None


class User(_Frozen):
    """Someone making requests, with the groups they are permitted to request.

    >>> User(name="alice", groups=("read-only",)).permits(["read-only"])
    True
    """

    name: str
    groups: tuple[str, ...] = DEFAULT_GROUPS

    def __init__(self, name: str, groups: Any = DEFAULT_GROUPS, **data: Any) -> None:
        if isinstance(groups, str):
            groups = (groups,)
        super().__init__(**{"name": name, "groups": tuple(groups), **data})

    def permits(self, groups: Any) -> bool:
        """Whether every requested group is one this user may request."""
        if "*" in self.groups:
            return True
        return all(g in self.groups for g in groups)


class Request(_Frozen):
    """The situation a tool set is resolved for: groups and workflow state."""

    groups: tuple[str, ...] = DEFAULT_GROUPS
    state: str = DEFAULT_STATE
    user: User | None = None

    @property
    def label(self) -> str:
        """A short label for tables: ``"read-only,knowledge"``, ``"*"`` or ``"(none)"``."""
        return groups_label(self.groups)


#: How "no groups at all" may be written in text (``groups_label`` shows it as ``(none)``).
NO_GROUPS = frozenset({"", "none", "[]", "(none)"})


def parse_groups(text: str) -> tuple[str, ...]:
    """One group set written as text, the same way in Python, magics, widgets and the CLI.

    >>> parse_groups("read-only, knowledge"), parse_groups("*"), parse_groups("none")
    (('read-only', 'knowledge'), ('*',), ())
    """
    if text.strip().lower() in NO_GROUPS:
        return ()
    return tuple(g.strip() for g in text.split(",") if g.strip())


def parse_group_sets(text: str) -> list[tuple[str, ...]]:
    """Several group sets separated by ``;`` (each as :func:`parse_groups` reads it).

    >>> parse_group_sets("read-only,knowledge; none")
    [('read-only', 'knowledge'), ()]
    """
    return [parse_groups(part) for part in text.split(";") if part.strip()]


def normalize_groups(groups: Any) -> tuple[str, ...]:
    """``None`` → ``("default",)``; ``"a,b"`` → ``("a", "b")``; a list → a tuple."""
    if groups is None:
        return DEFAULT_GROUPS
    if isinstance(groups, str):
        return parse_groups(groups)
    return tuple(str(g) for g in groups)


def groups_label(groups: tuple[str, ...]) -> str:
    """How a group set is shown in tables and audit lines."""
    return ",".join(groups) if groups else "(none)"


def rule_label(rule: Rule) -> str:
    """A rule as its file writes it: ``entities_*``, ``Shell(npm test:*)``, ``groups: a,b``."""
    if rule.kind == "group":
        return f"groups: {rule.pattern}"
    if rule.kind == "state":
        return f"available_in_states: {rule.pattern}"
    if rule.kind == "auto-approve" and rule.pattern is None:
        return "autoApprove"
    if rule.pattern is None or rule.kind == "none":
        return ""
    return f"{rule.pattern}({rule.spec})" if rule.spec is not None else str(rule.pattern)
