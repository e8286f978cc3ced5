"""emergent (emergent.memory) blueprint agents: ``blueprints/<blueprint>/agents/<name>.yaml``.

Read as emergent's own CLI reads them (``tools/cli/internal/blueprints``: ``loadAgents``
decodes each ``.yaml`` / ``.yml`` / ``.json`` file of a blueprint's ``agents/`` folder
into its ``AgentFile`` struct, then ``validateAgent`` requires ``name``):

- the fields are the struct's: ``name``, ``description``, ``systemPrompt``, ``model``
  (``{name, temperature, maxTokens, enableThinking}``), ``tools``, ``skills``,
  ``flowType``, ``isDefault``, ``maxSteps``, ``defaultTimeout``, ``visibility``,
  ``dispatchMode``, ``config``, ``workspaceConfig``, ``toolPolicies``
  (``{tool: {confirm, message}}``). Other keys are ignored, as the Go decoder ignores
  them; a value of the wrong type is an error, as the decoder's is (``cannot unmarshal
  !!str `x` into []string``), and so is a missing ``name`` (``name is required``);
- ``tools`` is the whitelist (emergent's ``toolpool.go``): exact names, globs and
  ``"*"``; an empty list grants nothing. It must be a list: ``tools: "*"`` is rejected;
- ``toolPolicies.<tool>.confirm: true`` makes the tool ask before it runs (an ``ask``
  rule); the message is kept;
- the rest (``flowType``, ``maxSteps``, ``config`` with its ``spawnPolicy``, ...) is kept
  in ``AgentDefinition.metadata`` and does not change which tools the agent holds.
  Spawn depth is not in these files: emergent sets it at run time (the preset's
  ``max_depth``, or ``max_depth`` in ``toolkit.yaml``).
"""

from __future__ import annotations

from typing import Any

from ...core.models import AgentDefinition, Rule
from ..base.definitions import Definitions
from ..base.source import Located, SourceFile

#: Where emergent keeps agent definitions (``LoadDir`` reads ``<blueprint>/agents/``).
PATHS = ("blueprints/*/agents/*.yaml", "blueprints/*/agents/*.yml", "blueprints/*/agents/*.json")

#: The ``AgentFile`` struct: field -> the Go type it decodes into.
FIELDS: dict[str, str] = {
    "name": "string", "description": "string", "systemPrompt": "string",
    "model": "*blueprints.AgentModel", "tools": "[]string", "skills": "[]string",
    "flowType": "string", "isDefault": "bool", "maxSteps": "*int",
    "defaultTimeout": "*int", "visibility": "string", "dispatchMode": "string",
    "config": "map[string]interface {}", "workspaceConfig": "map[string]interface {}",
    "toolPolicies": "map[string]blueprints.AgentToolPolicy",
}
_MODEL_FIELDS = {"name": "string", "temperature": "*float32", "maxTokens": "*int",
                 "enableThinking": "*bool"}
_POLICY_FIELDS = {"confirm": "bool", "message": "string"}
#: Keys only an emergent agent file has (a ``name`` plus one of these makes a file one).
MARKERS = ("systemPrompt", "flowType", "maxSteps", "isDefault", "defaultTimeout",
           "toolPolicies", "workspaceConfig", "dispatchMode")


def is_agent_file(file: SourceFile) -> bool:
    """An ``AgentFile`` outside ``blueprints/*/agents/`` (a blueprint folder given directly):
    a mapping with a ``name`` and one of emergent's own keys, in an ``agents`` folder or
    with a ``tools`` list (if any), so another system's agent file is not taken for one."""
    data = file.data
    return (isinstance(data, dict) and isinstance(data.get("name"), str)
            and any(k in data for k in MARKERS)
            and (file.path.parent.name == "agents"
                 or isinstance(data.get("tools", []), list | None)))


def load(file: SourceFile, defs: Definitions) -> None:
    """Read one blueprint agent file into ``defs``."""
    src = file.located
    data = src.data
    if not isinstance(data, dict):
        raise src.error((), f"an emergent agent file holds one agent (a mapping); emergent "
                            f"rejects this one: {_cannot(data, 'blueprints.AgentFile')}")
    json = file.suffix == ".json"
    fields = _fields(src, data, json)
    for key, value in fields.items():
        _check(src, (key,), value, FIELDS[key], json)
    name = _text(fields.get("name"))
    if not name.strip():
        raise src.error(("name",) if "name" in data else (),
                        "name is required: emergent rejects an agent file without a name "
                        "(validation error: name is required)")
    allow = None
    if fields.get("tools") is not None:
        allow = _tool_rules(src, defs, name, fields["tools"], _key(data, "tools", json))
    defs.add_agent(AgentDefinition(
        name=name.strip(), description=_text(fields.get("description")).strip(),
        model=_model_name(fields.get("model")), format="emergent", file=src.file,
        line=src.line((_key(data, "name", json),)) or 1, allow=allow,
        allow_line=src.line((_key(data, "tools", json),)) if allow is not None else None,
        ask=_confirm_rules(src, name, fields.get("toolPolicies"),
                           _key(data, "toolPolicies", json)),
        system_prompt=_text(fields.get("systemPrompt")),
        metadata=_metadata(fields)))


def _key(data: dict[str, Any], field: str, json: bool) -> str:
    """The key the file spells ``field`` with (JSON matches field names ignoring case)."""
    if not json or field in data:
        return field
    return next((k for k in data if isinstance(k, str) and k.lower() == field.lower()), field)


def _fields(src: Located, data: dict[Any, Any], json: bool) -> dict[str, Any]:
    """The struct's fields present in the file, by their Go names; other keys are ignored.

    ``gopkg.in/yaml.v3`` matches keys exactly; ``encoding/json`` ignoring case (the last
    spelling wins there).
    """
    if not json:
        return {k: data[k] for k in FIELDS if k in data}
    lowered = {f.lower(): f for f in FIELDS}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(key, str) and key.lower() in lowered:
            out[lowered[key.lower()]] = value
    return out


def _go_kind(value: Any) -> str:
    """How the Go decoders name the kind of a value they cannot decode."""
    if isinstance(value, dict):
        return "!!map"
    if isinstance(value, list):
        return "!!seq"
    if isinstance(value, bool):
        return "!!bool"
    if isinstance(value, int):
        return "!!int"
    if isinstance(value, float):
        return "!!float"
    return "!!str"


def _cannot(value: Any, go_type: str, json: bool = False) -> str:
    """The decoder's own words for a value it cannot decode into ``go_type``."""
    if json:
        kind = {"!!map": "object", "!!seq": "array", "!!bool": "bool", "!!int": "number",
                "!!float": "number", "!!str": "string"}[_go_kind(value)]
        return f"json: cannot unmarshal {kind} into Go value of type {go_type}"
    shown = "" if isinstance(value, dict | list) else f" `{value}`"
    return f"yaml: cannot unmarshal {_go_kind(value)}{shown} into {go_type}"


def _fits(value: Any, go_type: str, json: bool) -> bool:
    """Whether the Go decoder accepts ``value`` for a field of ``go_type`` (null always)."""
    if value is None:
        return True
    if go_type == "string":
        # yaml.v3 decodes any scalar into a string; encoding/json only a string
        return isinstance(value, str) or (not json and not isinstance(value, dict | list))
    if go_type in ("bool", "*bool"):
        return isinstance(value, bool)
    if go_type == "*int":
        return isinstance(value, int) and not isinstance(value, bool)
    if go_type == "*float32":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if go_type == "[]string":
        return isinstance(value, list)
    return isinstance(value, dict)  # maps and structs


def _check(src: Located, path: tuple[Any, ...], value: Any, go_type: str, json: bool) -> None:
    """Reject what the Go decoder rejects, in its words, at the value's line."""
    field = ".".join(str(p) for p in path)
    if not _fits(value, go_type, json):
        hint = ' (for every tool write tools: ["*"])' if field == "tools" and value == "*" else ""
        raise src.error(path, f"{field} must be {_describe(go_type)}{hint}; emergent rejects "
                              f"this file ({_cannot(value, go_type, json)})")
    if value is not None:
        _check_inside(src, path, value, go_type, json)


def _check_inside(src: Located, path: tuple[Any, ...], value: Any, go_type: str, json: bool
                  ) -> None:
    """The items of a list, and the fields of a model or tool policy, that Go decodes."""
    if go_type == "[]string":
        for i, item in enumerate(value):
            _check(src, (*path, i), item, "string", json)
    elif go_type == "*blueprints.AgentModel":
        for key, item in value.items():
            if key in _MODEL_FIELDS:
                _check(src, (*path, key), item, _MODEL_FIELDS[key], json)
    elif go_type == FIELDS["toolPolicies"]:
        for tool, policy in value.items():
            _check(src, (*path, tool), policy, "blueprints.AgentToolPolicy", json)
            for key, item in (policy or {}).items():
                if key in _POLICY_FIELDS:
                    _check(src, (*path, tool, key), item, _POLICY_FIELDS[key], json)


def _describe(go_type: str) -> str:
    return {"string": "a string", "bool": "true or false", "*bool": "true or false",
            "*int": "a whole number", "*float32": "a number",
            "[]string": "a list of names"}.get(go_type, "a mapping")


def _text(value: Any) -> str:
    """A scalar as the string yaml.v3 makes of it (null: empty)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tool_rules(src: Located, defs: Definitions, agent: str, tools: list[Any], key: str
                ) -> tuple[Rule, ...]:
    """``tools`` as allow rules; an empty entry names no tool (emergent skips it, warning)."""
    out = []
    for i, item in enumerate(tools):
        name = _text(item).strip()
        line = src.line((key, i))
        if not name:
            defs.warn(src.file, line, f"agent {agent!r}: tools[{i}] is empty; it names no tool "
                                      "(emergent skips it with a warning)")
            continue
        out.append(Rule(kind="allow", pattern=name, agent=agent, file=src.file, line=line))
    return tuple(out)


def _confirm_rules(src: Located, agent: str, policies: dict[str, Any] | None, key: str
                   ) -> tuple[Rule, ...]:
    """``toolPolicies`` entries with ``confirm: true``: the tool asks before it runs."""
    return tuple(Rule(kind="ask", pattern=str(tool), agent=agent, file=src.file,
                      line=src.line((key, tool, "confirm")))
                 for tool, policy in (policies or {}).items()
                 if isinstance(policy, dict) and policy.get("confirm") is True)


def _model_name(model: dict[str, Any] | None) -> str | None:
    name = (model or {}).get("name")
    return _text(name) or None


def _metadata(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields that do not decide tool access, kept as written (``spawn_policy``: the
    agents ``config.spawnPolicy.allow`` lets this one spawn; an empty list = any)."""
    kept = {k: v for k, v in fields.items()
            if k not in ("name", "description", "systemPrompt", "tools") and v is not None}
    config = fields.get("config")
    spawn = config.get("spawnPolicy") if isinstance(config, dict) else None
    if isinstance(spawn, dict) and isinstance(spawn.get("allow"), list):
        kept["spawn_policy"] = [str(a) for a in spawn["allow"]]
    return kept
