"""Claude Code: subagent files, plugins, built-in tools and its permission engine.

- :mod:`.loader`: ``.claude/agents/**/*.md`` and plugin agents, read as Claude Code reads them;
- :mod:`.tools`: its built-in tools (one table; the permission engine derives its own from it);
- :mod:`.permissions`: settings layers, rule grammar and evaluation (``proj.check_call``).
"""

from __future__ import annotations

from ...core.presets import Preset
from ..base.formats import Format
from ..base.system import Layout, System
from . import loader
from .permissions.engine import empty_engine, open_engine
from .permissions.rules import MODES_ALIASES
from .permissions.settings import MODES
from .probe import probe as shell_probe
from .tools import RISKS
from .transcript import TranscriptReader

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="claude-code",
    title="Claude Code",
    formats=(
        # its subagents, read as Claude Code reads them, then the rest of a Claude Code
        # project's markdown (commands, skills, CLAUDE.md): not agents
        Format("claude-code-agent", loader.load, suffixes=(".md",), sniff=loader.is_agent_file),
        Format("claude-code-markdown", loader.ignore, suffixes=(".md",),
               sniff=loader.is_project_markdown),
    ),
    preset=Preset(name="claude-code", unknown_name="warn", omitted_root="all",
                  empty_list="none", child_extra="drop-warn", strip_coordination=True,
                  max_depth=3, coordination_tools=("Task", "Agent")),
    layouts=(Layout(".claude", ("agents", "settings.json", "settings.local.json")),
             # a plugin (plugin.json) or plugin marketplace (marketplace.json)
             Layout(".claude-plugin", ("plugin.json", "marketplace.json"))),
    enclosing_layout=loader.enclosing_layout,
    hidden_folders=(".claude",),
    add_builtins=loader.add_builtins,
    read_agent=loader.read_agent,
    engine=open_engine,
    probe=shell_probe,
    empty_engine=empty_engine,
    transcripts=TranscriptReader,
    risks=RISKS,
    mcp_spelling=("mcp__", "__"),
    modes=MODES,
    mode_aliases=MODES_ALIASES,
)
