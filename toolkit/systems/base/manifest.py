"""``toolkit.yaml``: the optional project manifest (a closed format).

```yaml
preset: trustgraph            # strict, emergent, work-agent, adh-cli, trustgraph, mux, claude-code
agents: [agents/]             # where things live (default: discovered by name and content)
tools: [tools.yaml]
servers: [.mcp.json]
groups: [groups.yaml]
users: {alice: [read-only], bob: [write]}
coordination_tools: [spawn_agents, list_available_agents]
max_depth: 2
deny: [rm_rf]                 # project-level denies (every agent)
ask: [graph-update]           # project-level approvals
aliases: {search: search_hybrid}
builtins: [read_file]         # built-ins named here join the pool
overrides: {unknown_name: warn}  # semantic overrides of the preset's choices
connection_scope: shared      # shared | agent
health_check: false
derive_groups_from_annotations: false
```
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...core.models import Tool
from ...core.presets import Preset, all_presets
from ...errors import DefinitionError
from .definitions import BUILTIN_NAMES, Definitions, alias_rules, name_list, rules, tool_source
from .source import SourceFile, validation_problems

NAMES = ("toolkit.yaml", "toolkit.yml")


class Manifest(BaseModel):
    """The manifest's fields."""

    model_config = ConfigDict(extra="forbid")

    preset: str | None = None
    agents: list[str] | None = None
    tools: list[str] | None = None
    servers: list[str] | None = None
    groups: list[str] | None = None
    users: dict[str, list[str]] = Field(default_factory=dict)
    coordination_tools: list[str] | None = None
    max_depth: int | None = Field(default=None, ge=0)
    deny: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    aliases: dict[str, str] = Field(default_factory=dict)
    builtins: list[str] = Field(default_factory=list)
    overrides: dict[str, Any] = Field(default_factory=dict)
    connection_scope: Literal["shared", "agent"] | None = None
    health_check: bool = False
    call_timeout: float | None = Field(default=None, gt=0)
    derive_groups_from_annotations: bool = False
    description: str = ""


def load(file: SourceFile, defs: Definitions) -> Manifest:
    """Read the manifest; its settings go into ``defs.settings``."""
    src = file.located
    data = src.data if src.data is not None else {}
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise DefinitionError(validation_problems(exc, src, known=Manifest.model_fields)
                              ) from None
    presets = all_presets()
    if manifest.preset is not None and manifest.preset not in presets:
        raise src.error(("preset",), f"unknown preset {manifest.preset!r}; use one of "
                                     f"{', '.join(presets)}")
    if manifest.overrides:
        allowed = set(Preset.model_fields) - {"name"}
        for key in manifest.overrides:
            if key not in allowed:
                raise src.error(("overrides", key), f"unknown override {key!r}; overridable: "
                                                    f"{', '.join(sorted(allowed))}")
        base = presets[manifest.preset or "strict"]
        try:  # check the values here, where their lines are known
            Preset.model_validate({**base.model_dump(), **manifest.overrides})
        except ValidationError as exc:
            raise DefinitionError(validation_problems(exc, src, ("overrides",))) from None
    for i, name in enumerate(manifest.builtins):
        if name not in BUILTIN_NAMES:
            raise src.error(("builtins", i), f"{name!r} is not a built-in tool; built-ins are "
                                             f"{', '.join(sorted(BUILTIN_NAMES))}")
        defs.add_tool(Tool(name=name, source=tool_source(name), file=src.file,
                           line=src.line(("builtins", i))))
    for user, groups in manifest.users.items():
        defs.users[user] = tuple(groups)
    defs.project_deny.extend(rules("deny", None, src, name_list(src, ("deny",), manifest.deny,
                                                                "deny")))
    defs.project_ask.extend(rules("ask", None, src, name_list(src, ("ask",), manifest.ask,
                                                              "ask")))
    defs.aliases.extend(alias_rules(None, src, ("aliases",), manifest.aliases))
    defs.settings.update(manifest.model_dump(exclude_none=True))
    defs.settings["_file"] = src.file
    defs.manifest = src
    return manifest
