"""TrustGraph tool configuration: a ``tool:`` map, the generic registry of every preset.

The key is the tool's canonical name; an entry may be empty (``{}``). The spec
spells the state list ``available_in_states``, the TrustGraph code
``applicable-states``: both are accepted (not both at once).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ...errors import DefinitionError, Problem
from ..models import BuiltinPolicy, Tool
from ._common import Definitions, GroupAssignment, check_name, tool_source
from ._source import Located, SourceFile, validation_problems

STATE_KEYS = ("available_in_states", "applicable-states", "applicable_states")
GROUP_KEYS = ("group", "groups")


def is_registry(data: Any) -> bool:
    """A mapping with a ``tool`` map."""
    return isinstance(data, dict) and isinstance(data.get("tool"), dict)


def is_group_map(file: SourceFile) -> bool:
    """A mapping in a file whose name says it holds groups (``groups.yaml``, ...)."""
    return "group" in file.name.lower() and isinstance(file.data, dict)


def load(file: SourceFile, defs: Definitions) -> None:
    """Read every entry of the ``tool:`` map into ``defs``."""
    src = file.located
    for key, entry in src.data["tool"].items():
        path = ("tool", key)
        if not isinstance(key, str) or not key.strip():
            raise src.error(path, f"tool names must be non-empty strings, not {key!r}")
        check_name(src, path, key, "tool")
        if entry is None:
            entry = {}
        if not isinstance(entry, dict):
            raise src.error(path, f"tool {key!r} must be a mapping (or {{}}), not "
                                  f"{type(entry).__name__}")
        defs.add_tool(parse_tool(src, path, key, entry))


def _string_list(src: Located, path: tuple[Any, ...], value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise src.error(path, f"{what} must be a list of strings, not {value!r}")
    for i, v in enumerate(value):
        if not isinstance(v, str) or not v:
            raise src.error((*path, i), f"{what}[{i}] must be a non-empty string, not {v!r}")
    return tuple(value)


def parse_tool(src: Located, path: tuple[Any, ...], key: str, entry: dict[str, Any]) -> Tool:
    """One registry entry as a ``Tool``."""
    groups: tuple[str, ...] = ("default",)
    group_line = None
    present_groups = [k for k in GROUP_KEYS if k in entry]
    if present_groups:
        gk = present_groups[0]
        groups = _string_list(src, (*path, gk), entry[gk], f"tool {key!r} {gk}")
        group_line = src.line((*path, gk))
    present = [k for k in STATE_KEYS if k in entry]
    if len(present) > 1:
        raise src.error((*path, present[1]), f"tool {key!r} has both {present[0]!r} and "
                                              f"{present[1]!r}; keep one spelling")
    states = None
    states_line = None
    if present and entry[present[0]] is not None:
        states = _string_list(src, (*path, present[0]), entry[present[0]],
                              f"tool {key!r} {present[0]}")
        states_line = src.line((*path, present[0]))
    state = entry.get("state")
    if state is not None and not isinstance(state, str):
        raise src.error((*path, "state"), f"tool {key!r} state must be a string, not {state!r}")
    for field in ("type", "name", "description", "mcp_tool_id", "source"):
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
        state=state,
        available_in_states=states,
        type=entry.get("type"),
        mcp_tool_id=entry.get("mcp_tool_id"),
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
        names = _string_list(src, (*base, group), tools, f"group {group!r}")
        for i, tool in enumerate(names):
            defs.group_assignments.append(
                GroupAssignment(str(group), tool, src.file, src.line((*base, group, i))))


def parse_policy(src: Located, path: tuple[Any, ...], value: Any) -> BuiltinPolicy:
    """A ``builtinPolicy`` mapping, with located errors."""
    try:
        return BuiltinPolicy.model_validate(value)
    except ValidationError as exc:
        raise DefinitionError(validation_problems(exc, src, path)) from None
