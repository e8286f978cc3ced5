"""TrustGraph tool configuration: a ``tool:`` map, the generic registry of every preset.

The key is the tool's canonical name (TrustGraph's config key, the tool's ``id``); an
entry may be empty (``{}``), and its ``name`` is a display title. Read as TrustGraph
reads its config (``agent/react/service.py`` ``on_tools_config`` and
``agent/tool_filter.py`` ``validate_tool_config``):

- the spec spells the state list ``available_in_states``, the code ``applicable-states``:
  both are accepted (not both at once);
- ``group`` and ``applicable-states`` must be lists of strings and ``state`` a string:
  TrustGraph's validator rejects anything else (``Tool 'group' field must be a list of
  strings``), and so does toolkit, naming the field and its line (a plain string is
  not taken for a one-element list);
- ``mcp-tool`` (TrustGraph's key; ``mcp_tool_id`` in the spec) names the MCP tool that
  executes an entry: an id of the ``mcp`` map (``{id: {url, remote-name, auth-token}}``,
  TrustGraph's ``mcp`` config type), which becomes a Streamable HTTP server (one per
  URL) and binds the entry to its ``remote-name`` (default: the id);
- an entry may be TrustGraph's stored form, a JSON string, and the file may be
  ``tg-export-workspace-config``'s dump (``{"config": {"tool": ..., "mcp": ...}}``).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from ...core.models import BuiltinPolicy, ServerConfig, Tool
from ...errors import DefinitionError, Problem
from ..base.definitions import Definitions, GroupAssignment, check_name, tool_source
from ..base.mcpconfig import server_config
from ..base.source import Located, SourceFile, validation_problems

STATE_KEYS = ("available_in_states", "applicable-states", "applicable_states")
GROUP_KEYS = ("group", "groups")
MCP_TOOL_KEYS = ("mcp-tool", "mcp_tool_id")
#: The config types that hold TrustGraph's MCP tools (``mcp``; the export tools say ``mcp-tool``).
MCP_MAPS = ("mcp", "mcp-tool")
#: Fields TrustGraph's validator checks, with the type it demands.
_TRUSTGRAPH_CHECKED = {"group": "list", "applicable-states": "list", "state": "string"}


def _config(data: Any) -> tuple[dict[str, Any], tuple[str, ...]] | None:
    """The mapping holding ``tool`` (the file, or an export's ``config``) and its path."""
    if isinstance(data, dict) and isinstance(data.get("tool"), dict):
        return data, ()
    inner = data.get("config") if isinstance(data, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("tool"), dict):
        return inner, ("config",)
    return None


def is_registry(data: Any) -> bool:
    """A mapping with a ``tool`` map (or a TrustGraph export whose ``config`` has one)."""
    return _config(data) is not None


def is_group_map(file: SourceFile) -> bool:
    """A mapping in a file whose name says it holds groups (``groups.yaml``, ...), each
    value a group's tools (a list, or one name), not some other configuration."""
    data = file.data
    if not ("group" in file.name.lower() and isinstance(data, dict) and data):
        return False
    if isinstance(data.get("groups"), dict) and len(data) == 1:
        data = data["groups"]
    return all(isinstance(v, str) or (isinstance(v, list) and not any(
        isinstance(i, dict) for i in v)) for v in data.values())


def load(file: SourceFile, defs: Definitions) -> None:
    """Read every entry of the ``tool:`` map (and the ``mcp`` map) into ``defs``."""
    src = file.located
    found = _config(src.data)
    if found is None:  # claimed by a path rule without a tool map
        raise src.error((), "a tool registry needs a 'tool' mapping of tool id -> settings")
    config, base = found
    bindings = _load_mcp(src, config, base, defs)
    for key, entry in config["tool"].items():
        path = (*base, "tool", key)
        if not isinstance(key, str) or not key.strip():
            raise src.error(path, f"tool names must be non-empty strings, not {key!r}")
        check_name(src, path, key, "tool")
        entry_src = src
        if isinstance(entry, str):  # TrustGraph's stored form: the entry as a JSON string
            entry, entry_src = _json_entry(src, path, key, entry)
        if entry is None:
            entry = {}
        if not isinstance(entry, dict):
            raise src.error(path, f"tool {key!r} must be a mapping (or {{}}), not "
                                  f"{type(entry).__name__}")
        tool = parse_tool(entry_src, path, key, entry)
        if tool.mcp_tool_id in bindings:
            tool = tool.model_copy(update={"mcp_tool_id": bindings[tool.mcp_tool_id]})
        defs.add_tool(tool)


def _json_entry(src: Located, path: tuple[Any, ...], key: str, text: str
                ) -> tuple[Any, Located]:
    """A stored entry (a JSON string) parsed, every value located at the entry's line."""
    try:
        entry = json.loads(text)
    except ValueError as exc:
        raise src.error(path, f"tool {key!r} is a string, so TrustGraph reads it as JSON, "
                              f"which it is not ({exc}); write the entry as a mapping") from None
    line = src.line(path)
    return entry, Located(src.data, src.file, {(): line or 1, path: line or 1})


def _load_mcp(src: Located, config: dict[str, Any], base: tuple[str, ...],
              defs: Definitions) -> dict[str, str]:
    """The ``mcp`` map's tools as servers (one per URL): mcp id -> ``@server/remote-name``."""
    bindings: dict[str, str] = {}
    by_url: dict[tuple[str, str | None], str] = {}
    for map_key in MCP_MAPS:
        entries = config.get(map_key)
        if entries is None:
            continue
        if not isinstance(entries, dict):
            raise src.error((*base, map_key), f"{map_key} must map MCP tool ids to "
                                              "{url, remote-name, auth-token}")
        for mcp_id, entry in entries.items():
            path = (*base, map_key, mcp_id)
            entry = _mcp_entry(src, path, str(mcp_id), entry)
            if entry is None or not isinstance(entry.get("url"), str):
                defs.warn(src.file, src.line(path), f"MCP tool {mcp_id!r} has no url: "
                                                    "TrustGraph fails when a tool calls it; "
                                                    "no server is configured for it")
                continue
            server = _server_for(src, path, str(mcp_id), entry, by_url, defs)
            bindings[str(mcp_id)] = f"@{server}/{entry.get('remote-name') or mcp_id}"
    return bindings


def _mcp_entry(src: Located, path: tuple[Any, ...], mcp_id: str, entry: Any
               ) -> dict[str, Any] | None:
    """One ``mcp`` entry (a mapping, or TrustGraph's stored JSON string of one)."""
    if isinstance(entry, str):
        try:
            entry = json.loads(entry)
        except ValueError as exc:
            raise src.error(path, f"MCP tool {mcp_id!r} is a string, so TrustGraph reads it "
                                  f"as JSON, which it is not ({exc})") from None
    if entry is not None and not isinstance(entry, dict):
        raise src.error(path, f"MCP tool {mcp_id!r} must be a mapping "
                              "{url, remote-name, auth-token}")
    for field in ("url", "remote-name", "auth-token"):
        if entry and field in entry and not isinstance(entry[field], str):
            raise src.error((*path, field), f"MCP tool {mcp_id!r}: {field} must be a string")
    return entry


def _server_for(src: Located, path: tuple[Any, ...], mcp_id: str, entry: dict[str, Any],
                by_url: dict[tuple[str, str | None], str], defs: Definitions) -> str:
    """The server of an MCP tool's URL (and token), configured on first sight."""
    token = entry.get("auth-token")
    key = (entry["url"], token)
    if key in by_url:
        return by_url[key]
    if "/" in mcp_id or "__" in mcp_id:
        raise src.error(path, f"MCP tool id {mcp_id!r} names a server here, so it may not "
                              "contain '/' or '__'")
    headers = {"Authorization": f"Bearer {token}"} if token else None
    config: ServerConfig = server_config(src, path, mcp_id, "streamable-http",
                                         url=entry["url"], headers=headers)
    defs.add_server(config)
    by_url[key] = mcp_id
    return mcp_id


def _string_list(src: Located, path: tuple[Any, ...], value: Any, what: str,
                 field: str | None = None) -> tuple[str, ...]:
    """A list of strings; anything else is rejected, in TrustGraph's words for its fields."""
    said = (f" (TrustGraph's validator: \"Tool '{field}' field must be a list of strings\")"
            if field in _TRUSTGRAPH_CHECKED else "")
    if not isinstance(value, list):
        fix = f'; write {field or what}: ["{value}"]' if isinstance(value, str) else ""
        raise src.error(path, f"{what} must be a list of strings, not {value!r}{said}{fix}")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            names = "group names" if field in GROUP_KEYS else "state names"
            raise src.error((*path, i), f"{what}[{i}] must be a string, not {v!r} (TrustGraph: "
                                        f"\"All {names} must be strings\")")
    return tuple(value)


def _groups(src: Located, path: tuple[Any, ...], key: str, entry: dict[str, Any]
            ) -> tuple[tuple[str, ...], int | None]:
    present = [k for k in GROUP_KEYS if k in entry]
    if not present:
        return ("default",), None
    gk = present[0]
    return (_string_list(src, (*path, gk), entry[gk], f"tool {key!r} {gk}", gk),
            src.line((*path, gk)))


def _states(src: Located, path: tuple[Any, ...], key: str, entry: dict[str, Any]
            ) -> tuple[tuple[str, ...] | None, int | None]:
    present = [k for k in STATE_KEYS if k in entry]
    if len(present) > 1:
        raise src.error((*path, present[1]), f"tool {key!r} has both {present[0]!r} and "
                                              f"{present[1]!r}; keep one spelling")
    # TrustGraph checks its own spelling even when null; the spec's null means "unset"
    if not present or (entry[present[0]] is None and present[0] not in _TRUSTGRAPH_CHECKED):
        return None, None
    sk = present[0]
    return (_string_list(src, (*path, sk), entry[sk], f"tool {key!r} {sk}", sk),
            src.line((*path, sk)))


def _mcp_tool_id(src: Located, path: tuple[Any, ...], key: str, entry: dict[str, Any]
                 ) -> str | None:
    present = [k for k in MCP_TOOL_KEYS if k in entry]
    if len(present) > 1:
        raise src.error((*path, present[1]), f"tool {key!r} has both {present[0]!r} and "
                                              f"{present[1]!r}; keep one spelling")
    value = entry.get(present[0]) if present else None
    if value is not None and not isinstance(value, str):
        raise src.error((*path, present[0]), f"tool {key!r} {present[0]} must be a string")
    return value or None


def parse_tool(src: Located, path: tuple[Any, ...], key: str, entry: dict[str, Any]) -> Tool:
    """One registry entry as a ``Tool``."""
    groups, group_line = _groups(src, path, key, entry)
    states, states_line = _states(src, path, key, entry)
    state = entry.get("state")
    if (state is not None or "state" in entry) and not isinstance(state, str):
        raise src.error((*path, "state"), f"tool {key!r} state must be a string, not "
                                          f"{state!r} (TrustGraph's validator: \"Tool 'state' "
                                          "field must be a string\")")
    for field in ("type", "name", "description", "source"):
        if field in entry and entry[field] is not None and not isinstance(entry[field], str):
            raise src.error((*path, field), f"tool {key!r} {field} must be a string")
    policy = None
    pkey = "builtinPolicy" if "builtinPolicy" in entry else "builtin_policy"
    if entry.get(pkey) is not None:
        policy = parse_policy(src, (*path, pkey), entry[pkey])
    declared = entry.get("source") or ("native" if entry.get("type") == "native" else None)
    if policy is not None:
        declared = "builtin"
    return Tool(
        name=key,
        title=entry.get("name"),
        description=(entry.get("description") or "").strip(),
        source=tool_source(key, declared),
        groups=groups,
        state=state or None,
        available_in_states=states,
        type=entry.get("type"),
        mcp_tool_id=_mcp_tool_id(src, path, key, entry),
        builtin_policy=policy,
        file=src.file,
        line=src.line(path),
        group_line=group_line,
        states_line=states_line,
    )


def load_group_map(file: SourceFile, defs: Definitions) -> None:
    """``{group: [tool, ...]}``: adds group memberships to declared tools."""
    src = file.located
    data = src.data
    if not isinstance(data, dict):
        defs.error(Problem(src.file, 1, "a group map must be a mapping of group -> list of "
                                        "tool names"))
        return
    if isinstance(data.get("groups"), dict) and len(data) == 1:
        data = data["groups"]
        base: tuple[Any, ...] = ("groups",)
    else:
        base = ()
    for group, tools in data.items():
        names = _string_list(src, (*base, group), [tools] if isinstance(tools, str) else tools,
                             f"group {group!r}")
        for i, tool in enumerate(names):
            defs.group_assignments.append(
                GroupAssignment(str(group), tool, src.file, src.line((*base, group, i))))


def parse_policy(src: Located, path: tuple[Any, ...], value: Any) -> BuiltinPolicy:
    """A ``builtinPolicy`` mapping, with located errors."""
    try:
        return BuiltinPolicy.model_validate(value)
    except ValidationError as exc:
        raise DefinitionError(validation_problems(exc, src, path)) from None
