"""OpenCode (anomalyco/opencode, formerly sst/opencode): its config, agents and permissions.

- :mod:`.jsonc`: ``opencode.json`` / ``opencode.jsonc`` read as jsonc-parser reads them;
- :mod:`.config`: the configuration layers merged as ``config/config.ts`` merges them;
- :mod:`.wildcard`: ``Wildcard.match``;
- :mod:`.agents`: the built-in agents, ``Permission.fromConfig`` / ``evaluate`` /
  ``disabled`` (the last matching rule wins);
- :mod:`.engine`: the permission engine (``proj.check_call(..., runtime="opencode")``), what
  each tool asks;
- :mod:`.loader`, :mod:`.names`: OpenCode's agents as toolkit agents, its name matching;
- :mod:`.tools`: the built-in tool ids.
"""

from __future__ import annotations

from ...core.presets import Preset
from ..base.formats import Format
from ..base.system import Layout, System
from .engine import MODES, empty_engine, open_engine
from .loader import load_project
from .names import opencode_names
from .probe import probe as shell_probe
from .tools import RISKS, add_builtins
from .transcript import TranscriptReader

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="opencode",
    title="OpenCode",
    # every agent holds every tool its ruleset does not remove; a subagent runs through the
    # task tool, which its session denies unless its ruleset names task (tool/task.ts)
    preset=Preset(name="opencode", unknown_name="warn", omitted_root="all", empty_list="none",
                  child_extra="drop-warn", strip_coordination=False, max_depth=None,
                  coordination_tools=("task",)),
    formats=(
        Format("opencode-config", load_project, paths=("opencode.json", "opencode.jsonc"),
               suffixes=(".json", ".jsonc")),
        Format("opencode-agent", load_project,
               paths=(".opencode/agent/**/*.md", ".opencode/agents/**/*.md",
                      ".opencode/mode/*.md", ".opencode/modes/*.md"),
               suffixes=(".md",)),
    ),
    layouts=(Layout(".opencode", ("opencode.json", "opencode.jsonc", "agent", "agents", "mode",
                                  "modes")),
             Layout(".", ("opencode.json", "opencode.jsonc"))),
    hidden_folders=(".opencode",),
    add_builtins=add_builtins,
    engine=open_engine,
    probe=shell_probe,
    empty_engine=empty_engine,
    name_rules=opencode_names,
    modes=MODES,
    risks=RISKS,
    transcripts=TranscriptReader,
)

