"""Gemini CLI: its built-in tools and its policy engine (issue 21).

- :mod:`.policy`: ``policy-engine.ts`` ported (rule matching, priorities, shell splitting,
  redirection, wrappers, the safe / dangerous command heuristics), ``stable-stringify.ts``
  and ``utils.ts``;
- :mod:`.toml_loader`: policy TOML files, validated and located as ``toml-loader.ts`` does;
- :mod:`.config`: the tiers (default = the vendored built-in ``policies/``, user
  ``~/.gemini/policies``, workspace ``.gemini/policies`` as the CLI treats it: disabled,
  admin ``managed=``) and the settings.json bands;
- :mod:`.engine`: the PermissionEngine ``proj.check_call(..., runtime="gemini-cli")`` asks;
- :mod:`.tools`: the built-in tool names.

Source: google-gemini/gemini-cli at 5411f113cafae26161b4969b0237b8e1e024e2c2.
"""

from __future__ import annotations

from ...core.presets import Preset
from ..base import mcpconfig
from ..base.definitions import Definitions
from ..base.formats import Format
from ..base.source import SourceFile, parse_json
from ..base.system import Layout, System
from .engine import MODE_ALIASES, MODES, empty_engine, open_engine
from .probe import probe as shell_probe
from .tools import RISKS, add_builtins
from .transcript import TranscriptReader

__all__ = ["SYSTEM"]


def _load_settings(file: SourceFile, defs: Definitions) -> None:
    """``.gemini/settings.json`` (JSON with comments): its ``mcpServers`` join the project's
    servers; the rest (tools.*, mcp.*) is the permission engine's."""
    src = parse_json(mcpconfig.strip_jsonc(file.text), file.display)
    servers = src.data.get("mcpServers") if isinstance(src.data, dict) else None
    for name, entry in (servers or {}).items() if isinstance(servers, dict) else ():
        if isinstance(name, str) and name and "/" not in name and "__" not in name and \
                isinstance(entry, dict) and ("command" in entry or "url" in entry
                                             or "httpUrl" in entry):
            if "httpUrl" in entry and "url" not in entry:
                entry = {**entry, "url": entry["httpUrl"]}
            defs.add_server(mcpconfig.parse_server(src, ("mcpServers", name), name, entry, defs,
                                                   lambda value, path: value))

SYSTEM = System(
    name="gemini-cli",
    title="Gemini CLI",
    # the main agent holds every tool it is not denied; subagents (invoke_agent) hold the
    # tools their definition lists, and do not spawn further subagents
    preset=Preset(name="gemini-cli", unknown_name="warn", omitted_root="all", empty_list="none",
                  child_extra="drop-warn", strip_coordination=True, max_depth=2,
                  coordination_tools=("invoke_agent",)),
    formats=(Format("gemini-settings", _load_settings, paths=(".gemini/settings.json",)),),
    layouts=(Layout(".gemini", ("policies", "settings.json")),),
    hidden_folders=(".gemini",),
    add_builtins=add_builtins,
    engine=open_engine,
    probe=shell_probe,
    empty_engine=empty_engine,
    risks=RISKS,
    modes=MODES,
    mode_aliases=MODE_ALIASES,
    transcripts=TranscriptReader,
)
