"""work-agent (VoltAgent): ``agent.json``, its tool catalog, and its real ``.work-agent/`` layout.

``agent.json`` comes in two spellings. The spec's: ``tools.use``, ``tools.allowed``,
``tools.aliases``. The real files': ``tools.mcpServers``, ``tools.available``,
``tools.autoApprove``, mapped as ``available`` = ``allowed``, the servers'
tools plus the listed tool ids = ``use``, and (when ``autoApprove`` is present)
an allowed tool outside it needs approval.

Read as work-agent reads them (its ``src-server/domain/config-loader.ts``):

- ``.work-agent/agents/<slug>/agent.json``: the agent is its folder's *slug*; ``name``
  is a display name. An ``agent.json`` anywhere is named after its folder the same way.
  Files of the real layout are validated against work-agent's schema (``name`` and
  ``prompt`` required, no unknown keys: :mod:`.workagent_schema`); a file it rejects
  is a ``DefinitionError`` saying so.
- ``.work-agent/tools/<id>/tool.json``: one catalog entry, known by its folder's id
  (``loadTool(id)`` reads that path and never compares the ``id`` field).
- ``tools.mcpServers`` entries are catalog ids or inline MCP server objects.
- ``available``, ``autoApprove`` and the ``delegation`` block's lists name tools the
  way work-agent does (``sat-outlook_calendar_view``, ``satOutlook_calendarView``,
  ``sat-outlook_*``, ``sat-outlook/*``) and are matched by its own rules
  (:mod:`toolkit.systems.work_agent.names`), so each becomes a ``Rule`` with
  ``syntax="work-agent"``.
- Everything else under ``.work-agent/`` (config, memory, analytics, workspaces,
  plugins, archived agents) is work-agent's own data, not definitions: not read.

The generic tool catalog (``catalog.json``: a list of tool definitions with
``kind: builtin`` and a ``builtinPolicy``, or ``kind: mcp`` servers with
``transport``, ``command``, ``args``, ``endpoint``, ``healthCheck``) is the spec's.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...core.models import BUILTIN_KINDS, AgentDefinition, BuiltinPolicy, Delegation, Rule, Tool
from ...errors import DefinitionError, Problem
from ..base.definitions import Definitions, alias_rules, name_list, rules, tool_source
from ..base.mcpconfig import TRANSPORTS, server_config
from ..base.source import Located, Path_, SourceFile, validation_problems
from . import schema

#: Where work-agent keeps its agents and tool catalog (path rules of the format table).
AGENT_PATHS = (".work-agent/agents/*/agent.json",)
TOOL_PATHS = (".work-agent/tools/*/tool.json",)
#: work-agent's own data under ``.work-agent/``: not definitions, not read.
DATA_PATHS = (".work-agent/**/*.json", ".work-agent/**/*.yaml", ".work-agent/**/*.yml",
              ".work-agent/**/*.md")
_TOOL_KEYS = {"use", "allowed", "aliases", "mcpServers", "available", "autoApprove"}
_LAYOUT = re.compile(r"(?:^|/)\.work-agent/agents/[^/]+/agent\.json$")
_TOOL_LAYOUT = re.compile(r"(?:^|/)\.work-agent/tools/[^/]+/tool\.json$")
_INSIDE = re.compile(r"(?:^|/)\.work-agent/")
#: work-agent's transports as toolkit spells them (``process`` is a stdio child process).
_TRANSPORTS = {"stdio": "stdio", "process": "stdio", "sse": "sse",
               "streamable-http": "streamable-http", "ws": "ws", "tcp": "tcp"}


def is_agent(data: Any) -> bool:
    """An object whose ``tools`` object uses work-agent keys."""
    return (isinstance(data, dict) and isinstance(data.get("tools"), dict)
            and bool(set(data["tools"]) & _TOOL_KEYS))


def is_agent_file(file: SourceFile) -> bool:
    """An ``agent.json`` (by name, so a misspelt tools key is reported, not skipped) with a
    ``tools`` object or work-agent's required ``name`` and ``prompt``, or any file whose
    ``tools`` object uses work-agent keys; not work-agent's own data (an archived agent)."""
    if inside_own_folder(file) and not _LAYOUT.search(_absolute(file)):
        return False
    data = file.data
    return is_agent(data) or (file.name == "agent.json" and isinstance(data, dict)
                               and ("tools" in data or {"name", "prompt"} <= data.keys()))


def is_catalog(data: Any) -> bool:
    """A list of tool definitions with ``kind``, or ``{"tools": [...]}`` of them."""
    items = data.get("tools") if isinstance(data, dict) else data
    return (isinstance(items, list) and bool(items)
            and all(isinstance(i, dict) and "kind" in i for i in items))


def ignore(file: SourceFile, defs: Definitions) -> None:
    """work-agent's own data files (``.work-agent/config``, memory, ...): nothing to read."""


def _absolute(file: SourceFile) -> str:
    return file.path.absolute().as_posix()


def inside_own_folder(file: SourceFile) -> bool:
    """Whether the file lies in a ``.work-agent/`` folder, wherever the project starts."""
    return bool(_INSIDE.search(_absolute(file)))


def is_tool_file(file: SourceFile) -> bool:
    """``.work-agent/tools/<id>/tool.json`` seen from a folder inside ``.work-agent/``
    (``tk.load("repo/.work-agent/tools")``), where the path rule sees only ``<id>/tool.json``."""
    return bool(_TOOL_LAYOUT.search(_absolute(file)))


def is_own_data(file: SourceFile) -> bool:
    """Any other file under ``.work-agent/`` seen from a folder inside it: work-agent's data."""
    return inside_own_folder(file) and not is_tool_file(file) \
        and not _LAYOUT.search(_absolute(file))


def enclosing_layout(path: Path) -> tuple[str, str] | None:
    """("work-agent", why) for a folder or file inside ``.work-agent/`` (its ``agents/`` or
    ``tools/`` given alone)."""
    for folder in Path(path).absolute().parents:
        if folder.name == ".work-agent":
            return "work-agent", f"the project is inside {folder} (the work-agent layout)"
    return None


def in_layout(file: SourceFile, defs: Definitions) -> bool:
    """Whether the file is ``.work-agent/agents/<slug>/agent.json`` (the real layout)."""
    return bool(_LAYOUT.search(file.place) or _LAYOUT.search(_absolute(file)))


# -- agent.json -----------------------------------------------------------------------------------

def load_agent(file: SourceFile, defs: Definitions) -> None:
    """Read an ``agent.json`` into ``defs`` (the agent is named after its folder)."""
    src = file.located
    real = in_layout(file, defs)
    spec = _validate_agent(src, real)
    name = file.agent_name if file.name == "agent.json" else spec.name.strip()
    tools = spec.tools or schema.Tools()
    allow_key, allow = _allow(src, tools, name)
    delegation = _delegation(src, spec.delegation, name, defs)
    defs.add_agent(AgentDefinition(
        name=name,
        description=spec.description or "",
        model=spec.model,
        format="work-agent",
        file=src.file,
        line=src.line(("name",)) or 1,
        allow=allow,
        allow_line=src.line(("tools", allow_key)),
        use=_use(src, tools, name),
        use_servers=_servers(src, tools, name, defs),
        auto_approve=None if tools.autoApprove is None else _work_agent_rules(
            "auto-approve", name, src, ("tools", "autoApprove"), tools.autoApprove),
        aliases=alias_rules(name, src, ("tools", "aliases"), tools.aliases),
        system_prompt=spec.prompt or spec.systemPrompt or spec.instructions or "",
        max_depth=delegation.max_depth if delegation is not None else None,
        delegation=delegation,
        metadata={k: v for k, v in src.data.items()
                  if k not in {"description", "model", "tools", "prompt", "systemPrompt",
                               "instructions", "delegation"}},
    ))
    _warn_literal_stars(src, tools, spec.delegation, defs)


def _validate_agent(src: Located, real: bool) -> schema.AgentSpec:
    """The file checked against work-agent's agent schema (``prompt`` required in its layout)."""
    data = src.data
    if not isinstance(data, dict):
        raise src.error((), f"an agent.json holds one JSON object (work-agent's AgentSpec), "
                            f"not {type(data).__name__}")
    try:
        spec = schema.AgentSpec.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, src, known=schema.AgentSpec.model_fields)
        raise DefinitionError([_as_work_agent(p, real) for p in problems]) from None
    if real and spec.prompt is None:
        raise src.error(("name",), "missing required key 'prompt': work-agent rejects this "
                                   "agent (Invalid agent configuration: must have required "
                                   "property 'prompt'); give the agent its system prompt")
    return spec


def _as_work_agent(problem: Problem, real: bool) -> Problem:
    """A did-you-mean for a misspelt ``tools`` key; in work-agent's own folder, a note that
    work-agent itself rejects the file."""
    message = problem.message
    unknown = re.match(r"unknown key 'tools\.([^'.]+)'; remove it", message)
    if unknown is not None:
        close = difflib.get_close_matches(unknown.group(1), sorted(schema.Tools.model_fields),
                                          n=1)
        if close:
            message = message.replace("remove it or check its spelling",
                                      f"did you mean {close[0]!r}?")
    if real:
        message += " (work-agent rejects this agent: Invalid agent configuration)"
    return Problem(problem.file, problem.line, message)


def _work_agent_rules(kind: Literal["allow", "deny", "auto-approve", "use"], agent: str,
                      src: Located, path: Path_, names: list[str],
                      layer: str | None = None) -> tuple[Rule, ...]:
    """A work-agent list as rules matched work-agent's way (any string is a pattern)."""
    return tuple(Rule(kind=kind, pattern=n, agent=agent, file=src.file,
                      line=src.line((*path, i)), syntax="work-agent", layer=layer)
                 for i, n in enumerate(names))


def _allow(src: Located, spec: schema.Tools, agent: str
           ) -> tuple[str, tuple[Rule, ...] | None]:
    """``tools.allowed`` or its real-file spelling ``tools.available`` (not both)."""
    if spec.allowed is not None and spec.available is not None:
        raise src.error(("tools", "available"), "tools.allowed and tools.available are two "
                        "spellings of one list; keep one")
    if spec.allowed is not None:
        return "allowed", rules("allow", agent, src, name_list(src, ("tools", "allowed"),
                                                                spec.allowed, "allowed"))
    if spec.available is None:
        return "available", None
    return "available", _work_agent_rules("allow", agent, src, ("tools", "available"),
                                          spec.available)


def _use(src: Located, spec: schema.Tools, agent: str) -> tuple[Rule, ...] | None:
    """``tools.use``; in the real-file spelling, the non-MCP tools ``available`` names (an
    MCP tool is in use through its server in ``mcpServers``). A file with neither spelling's
    ``use`` source but ``allowed`` keeps the older reading: its rules range over the pool."""
    if spec.use is not None:
        return rules("use", agent, src, name_list(src, ("tools", "use"), spec.use, "tools.use"))
    if spec.allowed is not None and spec.mcpServers is None:
        return None
    return _work_agent_rules("use", agent, src, ("tools", "available"), spec.available or [])


def _servers(src: Located, spec: schema.Tools, agent: str, defs: Definitions
             ) -> tuple[str, ...]:
    """The ``mcpServers`` ids; an inline server object is added to the project's servers."""
    ids = []
    for i, entry in enumerate(spec.mcpServers or ()):
        if isinstance(entry, str):
            ids.append(entry)
            continue
        _add_inline_server(src, ("tools", "mcpServers", i), entry, spec.env or {}, agent, defs)
        ids.append(entry.id)
    return tuple(ids)


def _add_inline_server(src: Located, path: Path_, entry: schema.InlineServer,
                       env: dict[str, str], agent: str, defs: Definitions) -> None:
    """An inline MCP server (``InlineIntegration``): one server of the project.

    Several agents may inline the same server; one that differs from the first is an
    error, since a project has one server of a name (work-agent keeps one per agent).
    """
    if not entry.id or "/" in entry.id or "__" in entry.id:
        raise src.error((*path, "id"), f"inline MCP server id {entry.id!r}: toolkit names its "
                                       "tools @<id>/<tool>, so the id must be non-empty, "
                                       "without '/' or '__'")
    transport = _TRANSPORTS[entry.transport or "stdio"]
    if transport == "stdio" and not entry.command:
        defs.warn(src.file, src.line(path), f"inline MCP server {entry.id!r} of agent "
                                            f"{agent!r} has no command: it cannot be started "
                                            "(work-agent could not start it either)")
    config = server_config(src, path, entry.id, transport, command=entry.command,
                           args=entry.args, env=env)
    first = defs.servers.get(entry.id)
    if first is None:
        defs.add_server(config)
    elif first.model_copy(update={"file": None, "line": None}) != config.model_copy(
            update={"file": None, "line": None}):
        defs.error(Problem(src.file, src.line(path),
                           f"inline MCP server {entry.id!r} of agent {agent!r} differs from "
                           f"the server of that id at {first.file}:{first.line}; work-agent "
                           "keeps one per agent, toolkit one per project: rename one"))


def _delegation(src: Located, block: schema.Delegation | None, agent: str,
                defs: Definitions) -> Delegation | None:
    """The ``delegation`` block: rules in work-agent's syntax, located."""
    if block is None:
        return None
    base = ("delegation",)
    allowed = None
    if block.allowedTools:  # work-agent: an empty list restricts nothing
        allowed = _work_agent_rules("allow", agent, src, (*base, "allowedTools"),
                                    block.allowedTools, layer="delegation")
    return Delegation(
        max_depth=block.maxDepth,
        allowed=allowed,
        blocked=_work_agent_rules("deny", agent, src, (*base, "blockedTools"),
                                  block.blockedTools or [], layer="delegation"),
        deny_approvals=True if block.denyApprovals is None else block.denyApprovals,
        deny_approvals_line=src.line((*base, "denyApprovals")) if block.denyApprovals
        is not None else None,
        file=src.file, line=src.line(base))


def _warn_literal_stars(src: Located, spec: schema.Tools, block: schema.Delegation | None,
                        defs: Definitions) -> None:
    """work-agent's lists know ``*`` only alone (``available``) or as ``_*`` / ``/*``."""
    lists: list[tuple[Path_, list[str], bool]] = [
        (("tools", "available"), spec.available or [], True)]
    if block is not None:
        lists += [(("delegation", "allowedTools"), block.allowedTools or [], False),
                  (("delegation", "blockedTools"), block.blockedTools or [], False)]
    for path, names, star_is_all in lists:
        for i, name in enumerate(names):
            if "*" not in name or name.endswith(("_*", "/*")) or (star_is_all and name == "*"):
                continue
            defs.warn(src.file, src.line((*path, i)),
                      f"{'.'.join(path)} entry {name!r}: work-agent matches '*' here only "
                      f"{'alone or ' if star_is_all else ''}at the end after '_' or '/' "
                      "(server_*), so this names a tool literally")


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


# -- .work-agent/tools/<id>/tool.json -------------------------------------------------------------

def load_tool_json(file: SourceFile, defs: Definitions) -> None:
    """Read one ``tools/<id>/tool.json`` catalog entry: an MCP server or a built-in tool.

    The entry is known by its folder's id, as work-agent's ``loadTool(id)`` knows it.
    """
    src = file.located
    if not isinstance(src.data, dict):
        raise src.error((), "a tool.json holds one JSON object (work-agent's ToolDef), not "
                            f"{type(src.data).__name__}")
    try:
        entry = schema.ToolDef.model_validate(src.data)
    except ValidationError as exc:
        problems = validation_problems(exc, src, known=schema.ToolDef.model_fields)
        raise DefinitionError([Problem(p.file, p.line, f"{p.message} (work-agent rejects this "
                                                       "tool: Invalid tool definition)")
                               for p in problems]) from None
    ident = file.path.parent.name
    if entry.id != ident:
        defs.warn(src.file, src.line(("id",)), f"id {entry.id!r} differs from the folder "
                                               f"{ident!r}: work-agent loads this entry as "
                                               f"{ident!r} (the folder), and so does toolkit")
    if entry.kind == "builtin":
        _add_builtin(src, ident, entry, defs)
        return
    transport = _TRANSPORTS[entry.transport or "stdio"]
    if transport == "stdio" and not entry.command:
        defs.warn(src.file, src.line(("kind",)), f"MCP server {ident!r} has no command: it "
                                                 "cannot be started")
    elif transport != "stdio" and not entry.endpoint:
        defs.warn(src.file, src.line(("transport",)), f"MCP server {ident!r} uses "
                                                      f"{transport} without an endpoint: it "
                                                      "cannot be reached")
    health = None
    if entry.healthCheck is not None:
        health = entry.healthCheck.model_dump(exclude_none=True)
        if entry.healthCheck.intervalMs is not None:
            health["intervalSeconds"] = entry.healthCheck.intervalMs / 1000
    startup = entry.timeouts.startupMs if entry.timeouts is not None else None
    defs.add_server(server_config(
        src, (), ident, transport, command=entry.command, args=entry.args, env=entry.env,
        url=entry.endpoint, health=health or (True if entry.healthCheck else None),
        startup_timeout=startup / 1000 if startup else None))


def _add_builtin(src: Located, ident: str, entry: schema.ToolDef, defs: Definitions) -> None:
    """A ``kind: builtin`` entry: toolkit's built-in tool under the entry's id.

    work-agent itself never implemented them (``createBuiltinTool`` returns null);
    toolkit runs them as SPEC section 7 says. Without a ``builtinPolicy`` and with an id
    that is no built-in's name, the tool resolves but is not executable.
    """
    policy = None
    if entry.builtinPolicy is not None:
        raw = entry.builtinPolicy.model_dump(exclude_none=True)
        known = {"name", "allowedPaths", "allowedCommands", "timeout", "maxOutputBytes"}
        policy = BuiltinPolicy.model_validate({k: v for k, v in raw.items() if k in known})
    source = "builtin" if policy is not None or ident in BUILTIN_KINDS else "native"
    if source == "native":
        defs.warn(src.file, src.line(("kind",)), f"built-in tool {ident!r} has no "
                                                 "builtinPolicy: it resolves but is not "
                                                 "executable")
    defs.add_tool(Tool(name=ident, title=entry.displayName, description=entry.description or "",
                       source=source, builtin_policy=policy, file=src.file,
                       line=src.line(("id",))))
