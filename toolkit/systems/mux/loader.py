"""mux agent configs (YAML or JSON): mux's ``agent.Config`` struct as data.

mux builds agents in Go (``agent/config.go``; ``agent/presets.go`` for ``Preset``); its
structs have no serialisation tags, so a config written as data uses the Go field
names, matched as Go's ``encoding/json`` matches them (ignoring case: ``AllowedTools``,
``allowedTools``), or toolkit's snake_case spellings (``allowed_tools``):

- ``Name``, ``AllowedTools``, ``DeniedTools``, ``SystemPrompt`` (and toolkit's own
  ``Description``, ``ApprovalRequired``: the tools mux's ``ApprovalFunc`` is asked
  about, ``MaxDepth``) decide the agent's tools;
- the struct's other fields (``MaxIterations``, ``Registry``, ``LLMClient``,
  ``ApprovalFunc``, ``HookManager``) do not concern tools: they are kept in
  ``AgentDefinition.metadata`` and ignored;
- any other key is an error (with the nearest field name): the format is closed.

A file holds one config or ``agents: [config, ...]``.
"""

from __future__ import annotations

import difflib
from typing import Any

from ...core.models import AgentDefinition
from ..base.definitions import Definitions, name_list, rules
from ..base.source import Located, SourceFile

#: field -> (toolkit's snake_case spelling, the Go struct's field name)
SPELLINGS = {
    "name": ("name", "Name"),
    "description": ("description", "Description"),
    "allow": ("allowed_tools", "AllowedTools"),
    "deny": ("denied_tools", "DeniedTools"),
    "prompt": ("system_prompt", "SystemPrompt"),
    "ask": ("approval_required", "ApprovalRequired"),
    "max_depth": ("max_depth", "MaxDepth"),
    # agent.Config's fields that do not concern tools: kept, ignored
    "max_iterations": ("max_iterations", "MaxIterations"),
    "registry": ("registry", "Registry"),
    "llm_client": ("llm_client", "LLMClient"),
    "approval_func": ("approval_func", "ApprovalFunc"),
    "hook_manager": ("hook_manager", "HookManager"),
}
#: The fields kept in ``metadata`` (by their Go names) without changing any decision.
KEPT = ("max_iterations", "registry", "llm_client", "approval_func", "hook_manager")
_ALL_KEYS = {k for pair in SPELLINGS.values() for k in pair}
_FIELD_OF = {snake: field for field, (snake, _go) in SPELLINGS.items()}
_GO_FIELD_OF = {go.lower(): field for field, (_snake, go) in SPELLINGS.items()}
#: Keys only a mux config has: one of them makes a mapping a mux config.
MARKERS = (*SPELLINGS["allow"], *SPELLINGS["deny"], *SPELLINGS["prompt"],
           "allowedTools", "deniedTools")
_MARKERS = frozenset(MARKERS)


def field_of(key: Any) -> str | None:
    """The field a key spells: toolkit's snake_case exactly, a Go field name ignoring case."""
    if not isinstance(key, str):
        return None
    return _FIELD_OF.get(key) or _GO_FIELD_OF.get(key.lower())


def is_config(data: Any) -> bool:
    """A mapping with a mux tool key, or ``agents:`` listing such mappings."""
    if isinstance(data, dict) and isinstance(data.get("agents"), list) and len(data) == 1:
        return all(isinstance(a, dict) and bool(set(a) & _MARKERS) for a in data["agents"])
    return isinstance(data, dict) and bool(set(data) & _MARKERS)


def is_config_file(file: SourceFile) -> bool:
    """A mux config by its keys; one naming only its agent (``name: tester``: the tools are
    inherited) is one only in an ``agents`` folder (a project file's ``name`` is not)."""
    data = file.data
    if is_config(data):
        return True
    fields = {field_of(k) for k in data} if isinstance(data, dict) else {None}
    return (file.path.parent.name == "agents" and None not in fields and "name" in fields)


def load(file: SourceFile, defs: Definitions) -> None:
    """Read one mux config, or a list of them, into ``defs``."""
    src, data, default_name = file.located, file.data, file.agent_name
    if "agents" in data and isinstance(data["agents"], list):
        for i, item in enumerate(data["agents"]):
            defs.add_agent(_parse(src, item, ("agents", i), f"{default_name}-{i}"))
    else:
        defs.add_agent(_parse(src, data, (), default_name))


def _fields(src: Located, data: dict[str, Any], base: tuple[Any, ...]
            ) -> dict[str, tuple[str, Any]]:
    """field -> (the key as written, its value); an unknown key or two spellings of one
    field is an error."""
    out: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        field = field_of(key)
        if field is None:
            close = difflib.get_close_matches(str(key), sorted(_ALL_KEYS), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise src.error((*base, key), f"unknown key {key!r} in mux agent config; {hint}"
                                          f"known keys: {', '.join(sorted(_ALL_KEYS))}")
        if field in out:
            raise src.error((*base, key), f"{out[field][0]!r} and {key!r} are two spellings of "
                                          "one field; keep one")
        out[field] = (key, value)
    return out


def _parse(src: Located, data: Any, base: tuple[Any, ...], default_name: str) -> AgentDefinition:
    if not isinstance(data, dict):
        raise src.error(base, "a mux agent config must be a mapping")
    fields = _fields(src, data, base)

    def pick(field: str) -> tuple[str, Any]:
        return fields.get(field, (SPELLINGS[field][0], None))

    name_key, name = pick("name")
    name = default_name if name is None else name
    if not isinstance(name, str) or not name.strip():
        raise src.error((*base, name_key), f"name must be a non-empty string, not {name!r}")
    allow_key, allow_value = pick("allow")
    allow = (rules("allow", name, src, name_list(src, (*base, allow_key), allow_value, allow_key))
             if allow_value is not None else None)
    deny_key, deny_value = pick("deny")
    deny = rules("deny", name, src, name_list(src, (*base, deny_key), deny_value, deny_key))
    ask_key, ask_value = pick("ask")
    ask = rules("ask", name, src, name_list(src, (*base, ask_key), ask_value, ask_key))
    depth_key, depth = pick("max_depth")
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
        raise src.error((*base, depth_key), f"{depth_key} must be a whole number >= 0, "
                                            f"not {depth!r}")
    prompt = _string(src, base, *pick("prompt"))
    description = _string(src, base, *pick("description"))
    return AgentDefinition(
        name=name.strip(), description=description, format="mux", file=src.file,
        line=src.line((*base, name_key)) or src.line(base),
        allow=allow, allow_line=src.line((*base, allow_key)) if allow is not None else None,
        deny=deny, ask=ask, system_prompt=prompt, max_depth=depth,
        metadata={SPELLINGS[f][1]: fields[f][1] for f in KEPT if f in fields},
    )


def _string(src: Located, base: tuple[Any, ...], key: str, value: Any) -> str:
    if value is not None and not isinstance(value, str):
        raise src.error((*base, key), f"{key} must be a string, not {type(value).__name__}")
    return value or ""
