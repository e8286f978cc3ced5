"""work-agent (VoltAgent): ``agent.json`` and its tool catalog.

``agent.json`` comes in two spellings. The spec's: ``tools.use``, ``tools.allowed``,
``tools.aliases``. The real files': ``tools.mcpServers``, ``tools.available``,
``tools.autoApprove``, mapped as ``available`` = ``allowed``, the servers'
tools plus the listed tool ids = ``use``, and (when ``autoApprove`` is present)
an allowed tool outside it needs approval.

The tool catalog lists tool definitions: ``kind: builtin`` (with a
``builtinPolicy``) or ``kind: mcp`` (a server, with ``transport``, ``command``,
``args``, ``endpoint``, ``healthCheck``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...errors import DefinitionError
from ..models import BUILTIN_KINDS, AgentDefinition, BuiltinPolicy, Rule, Tool
from ._common import Definitions, alias_rules, name_list, rules, tool_source
from ._source import Located, SourceFile, validation_problems
from .mcpconfig import TRANSPORTS, server_config

_TOOL_KEYS = {"use", "allowed", "aliases", "mcpServers", "available", "autoApprove"}


def is_agent(data: Any) -> bool:
    """An object whose ``tools`` object uses work-agent keys."""
    return (isinstance(data, dict) and isinstance(data.get("tools"), dict)
            and bool(set(data["tools"]) & _TOOL_KEYS))


def is_agent_file(file: SourceFile) -> bool:
    """An ``agent.json`` (by name, so a misspelt tools key is reported, not skipped) or any
    file whose ``tools`` object uses work-agent keys."""
    data = file.data
    return is_agent(data) or (file.name == "agent.json" and isinstance(data, dict)
                               and "tools" in data)


def is_catalog(data: Any) -> bool:
    """A list of tool definitions with ``kind``, or ``{"tools": [...]}`` of them."""
    items = data.get("tools") if isinstance(data, dict) else data
    return (isinstance(items, list) and bool(items)
            and all(isinstance(i, dict) and "kind" in i for i in items))


class _AgentTools(BaseModel):
    model_config = ConfigDict(extra="forbid")

    use: list[str] | None = None
    allowed: list[str] | None = None
    aliases: dict[str, str] | None = None
    mcpServers: list[str] | None = None  # noqa: N815 - the file's spelling
    available: list[str] | None = None
    autoApprove: list[str] | None = None  # noqa: N815


def load_agent(file: SourceFile, defs: Definitions) -> None:
    """Read an ``agent.json`` into ``defs``."""
    src = file.located
    data = src.data
    spec = _tools_spec(src)
    name = data.get("name", file.agent_name)
    if not isinstance(name, str) or not name.strip():
        raise src.error(("name",), f"name must be a non-empty string, not {name!r}")
    allow_key, allow = _allow(src, spec, name)
    use = _use(src, spec, name)
    auto = None
    if spec.autoApprove is not None:
        auto = rules("auto-approve", name, src,
                     name_list(src, ("tools", "autoApprove"), spec.autoApprove, "autoApprove"))
    prompt = _prompt(src)
    defs.add_agent(AgentDefinition(
        name=name.strip(),
        description=data.get("description") or "",
        model=data.get("model"),
        format="work-agent",
        file=src.file,
        line=src.line(("name",)) if "name" in data else 1,
        allow=allow,
        allow_line=src.line(("tools", allow_key)),
        use=use,
        use_servers=tuple(spec.mcpServers or ()),
        auto_approve=auto,
        aliases=alias_rules(name, src, ("tools", "aliases"), spec.aliases),
        system_prompt=prompt,
        metadata={k: v for k, v in data.items()
                  if k not in {"name", "description", "model", "tools", "systemPrompt"}},
    ))


def _tools_spec(src: Located) -> _AgentTools:
    """The ``tools`` object, checked against both spellings' keys."""
    tools = src.data["tools"]
    if not isinstance(tools, dict):
        raise src.error(("tools",), "tools must be an object (use, allowed, aliases or "
                                    "mcpServers, available, autoApprove), not "
                                    f"{type(tools).__name__}")
    try:
        return _AgentTools.model_validate(tools)
    except ValidationError as exc:
        raise DefinitionError(validation_problems(exc, src, ("tools",),
                                                  known=_AgentTools.model_fields)) from None


def _allow(src: Located, spec: _AgentTools, agent: str) -> tuple[str, tuple[Rule, ...] | None]:
    """``tools.allowed`` or its real-file spelling ``tools.available`` (not both)."""
    if spec.allowed is not None and spec.available is not None:
        raise src.error(("tools", "available"), "tools.allowed and tools.available are two "
                        "spellings of one list; keep one")
    key = "allowed" if spec.allowed is not None else "available"
    names = spec.allowed if spec.allowed is not None else spec.available
    if names is None:
        return key, None
    return key, rules("allow", agent, src, name_list(src, ("tools", key), names, key))


def _use(src: Located, spec: _AgentTools, agent: str) -> tuple[Rule, ...] | None:
    """``tools.use``; in the real-file spelling the listed tool ids are part of it too."""
    if spec.use is not None:
        return rules("use", agent, src, name_list(src, ("tools", "use"), spec.use, "tools.use"))
    if spec.mcpServers is not None or spec.available is not None:
        return rules("use", agent, src, name_list(src, ("tools", "available"),
                                                  spec.available or [], "tools.available"))
    return None


def _prompt(src: Located) -> str:
    """The system prompt, after checking the other text fields."""
    data = src.data
    for key in ("description", "model"):
        if key in data and not isinstance(data[key], (str, type(None))):
            raise src.error((key,), f"{key} must be a string")
    prompt = data.get("systemPrompt") or data.get("instructions") or data.get("prompt") or ""
    if not isinstance(prompt, str):
        raise src.error(("systemPrompt",), "the system prompt must be a string")
    return prompt


class _CatalogEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1)
    kind: Literal["builtin", "mcp"]
    name: str | None = None
    description: str = ""
    transport: Literal["stdio", "ws", "tcp", "http", "sse", "streamable-http"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    endpoint: str | None = None
    healthCheck: dict[str, Any] | bool | None = None  # noqa: N815
    builtinPolicy: BuiltinPolicy | None = None  # noqa: N815
    group: list[str] | None = None
    startupTimeout: float | None = None  # noqa: N815


def load_catalog(file: SourceFile, defs: Definitions) -> None:
    """Read a work-agent tool catalog into ``defs``: builtins become tools, mcp entries servers."""
    src = file.located
    items: list[Any] = src.data["tools"] if isinstance(src.data, dict) else src.data
    base: tuple[Any, ...] = ("tools",) if isinstance(src.data, dict) else ()
    for i, raw in enumerate(items):
        path = (*base, i)
        try:
            entry = _CatalogEntry.model_validate(raw)
        except ValidationError as exc:
            raise DefinitionError(validation_problems(exc, src, path,
                                                      known=_CatalogEntry.model_fields)) from None
        line = src.line(path)
        if entry.kind == "builtin":
            if entry.builtinPolicy is None and entry.id not in BUILTIN_KINDS:
                raise src.error(path, f"builtin tool {entry.id!r} needs a builtinPolicy "
                                      "with name fs_read, fs_write or shell_exec")
            defs.add_tool(Tool(
                name=entry.id, title=entry.name, description=entry.description,
                source=tool_source(entry.id, "builtin"), builtin_policy=entry.builtinPolicy,
                groups=tuple(entry.group) if entry.group else ("default",),
                file=src.file, line=line))
            continue
        transport = TRANSPORTS[entry.transport or "stdio"]
        if transport == "stdio" and not entry.command:
            raise src.error(path, f"mcp tool {entry.id!r} with transport stdio needs a command")
        if transport != "stdio" and not entry.endpoint:
            raise src.error(path, f"mcp tool {entry.id!r} with transport {transport} needs an "
                                  "endpoint")
        defs.add_server(server_config(
            src, path, entry.id, transport, command=entry.command, args=entry.args,
            env=entry.env, cwd=entry.cwd, url=entry.endpoint, health=entry.healthCheck,
            startup_timeout=entry.startupTimeout))
