"""mux agent configs (YAML or JSON): the ``AgentConfig`` struct as data.

A closed format: ``name``, ``description``, ``allowed_tools`` / ``AllowedTools``,
``denied_tools`` / ``DeniedTools``, ``system_prompt`` / ``SystemPrompt``, and
``approval_required`` / ``ApprovalRequired`` (the tools mux's ``ApprovalFunc``
is asked about). A file holds one config or ``agents: [config, ...]``.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..models import AgentDefinition
from ._common import Definitions, name_list, rules
from ._source import Located, SourceFile

SPELLINGS = {
    "name": ("name", "Name"),
    "description": ("description", "Description"),
    "allow": ("allowed_tools", "AllowedTools"),
    "deny": ("denied_tools", "DeniedTools"),
    "prompt": ("system_prompt", "SystemPrompt"),
    "ask": ("approval_required", "ApprovalRequired"),
    "max_depth": ("max_depth", "MaxDepth"),
}
_ALL_KEYS = {k for pair in SPELLINGS.values() for k in pair}
#: Keys only a mux config has: one of them makes a mapping a mux config.
MARKERS = (*SPELLINGS["allow"], *SPELLINGS["deny"], *SPELLINGS["prompt"])
_MARKERS = frozenset(MARKERS)


def is_config(data: Any) -> bool:
    """A mapping with mux keys, or ``agents:`` listing such mappings."""
    if isinstance(data, dict) and isinstance(data.get("agents"), list) and len(data) == 1:
        return all(isinstance(a, dict) and bool(set(a) & _MARKERS) for a in data["agents"])
    if not isinstance(data, dict):
        return False
    keys = set(data)
    return bool(keys & _MARKERS) or (bool(keys) and keys <= _ALL_KEYS and bool(
        keys & set(SPELLINGS["name"])))


def load(file: SourceFile, defs: Definitions) -> None:
    """Read one mux config, or a list of them, into ``defs``."""
    src, data, default_name = file.located, file.data, file.agent_name
    if "agents" in data and isinstance(data["agents"], list):
        for i, item in enumerate(data["agents"]):
            defs.add_agent(_parse(src, item, ("agents", i), f"{default_name}-{i}"))
    else:
        defs.add_agent(_parse(src, data, (), default_name))


def _pick(src: Located, data: dict[str, Any], base: tuple[Any, ...], field: str
          ) -> tuple[str | None, Any]:
    a, b = SPELLINGS[field]
    if a in data and b in data:
        raise src.error((*base, b), f"{a!r} and {b!r} are two spellings of one field; keep one")
    if a in data:
        return a, data[a]
    if b in data:
        return b, data[b]
    return None, None


def _parse(src: Located, data: Any, base: tuple[Any, ...], default_name: str) -> AgentDefinition:
    if not isinstance(data, dict):
        raise src.error(base, "a mux agent config must be a mapping")
    unknown = [k for k in data if k not in _ALL_KEYS]
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), sorted(_ALL_KEYS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise src.error((*base, unknown[0]), f"unknown key {unknown[0]!r} in mux agent config; "
                        f"{hint}known keys: {', '.join(sorted(_ALL_KEYS))}")
    _, name = _pick(src, data, base, "name")
    name = default_name if name is None else name
    if not isinstance(name, str) or not name.strip():
        raise src.error((*base, "name"), f"name must be a non-empty string, not {name!r}")
    values: dict[str, Any] = {}
    for field in ("allow", "deny", "ask"):
        key, value = _pick(src, data, base, field)
        values[field] = (key, value)
    allow_key, allow_value = values["allow"]
    allow = (rules("allow", name, src, name_list(src, (*base, allow_key), allow_value, allow_key))
             if allow_key is not None and allow_value is not None else None)
    deny_key, deny_value = values["deny"]
    deny = rules("deny", name, src, name_list(src, (*base, str(deny_key)), deny_value,
                                              str(deny_key)))
    ask_key, ask_value = values["ask"]
    ask = rules("ask", name, src, name_list(src, (*base, str(ask_key)), ask_value, str(ask_key)))
    depth_key, depth = _pick(src, data, base, "max_depth")
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
        raise src.error((*base, str(depth_key)), f"{depth_key} must be a whole number >= 0, "
                                                  f"not {depth!r}")
    prompt_key, prompt = _pick(src, data, base, "prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise src.error((*base, str(prompt_key)), f"{prompt_key} must be a string, not "
                                                   f"{type(prompt).__name__}")
    description_key, description = _pick(src, data, base, "description")
    if description is not None and not isinstance(description, str):
        raise src.error((*base, str(description_key)), f"{description_key} must be a string, "
                                                        f"not {type(description).__name__}")
    return AgentDefinition(
        name=name.strip(), description=description or "", format="mux", file=src.file,
        line=src.line((*base, "name")) if src.line((*base, "name")) else src.line(base),
        allow=allow, allow_line=src.line((*base, allow_key)) if allow_key else None,
        deny=deny, ask=ask, system_prompt=prompt or "", max_depth=depth,
    )
