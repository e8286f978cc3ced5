"""work-agent (Stallion): ``.work-agent/`` agents, tools and catalogs, and its tool names.

- :mod:`.loader`: ``agent.json`` / ``tool.json`` / catalogs, checked against :mod:`.schema`;
- :mod:`.names`: its own tool names and list matching (rules of syntax ``work-agent``),
  and the tools no delegated child keeps.
"""

from __future__ import annotations

from ...core.presets import Preset
from ..base.formats import Format, by_data
from ..base.system import Layout, System
from . import loader
from .names import DEFAULT_CHILD_BLOCKED_TOOLS, DEFAULT_MAX_DEPTH, work_agent_names

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="work-agent",
    title="work-agent",
    formats=(
        Format("work-agent", loader.load_agent, paths=loader.AGENT_PATHS,
               sniff=loader.is_agent_file, marks=("tools",),
               expects="a work-agent agent config (a 'tools' object)"),
        # (the sniffs: the same paths seen from a folder inside .work-agent/, given alone)
        Format("work-agent-tool", loader.load_tool_json, paths=loader.TOOL_PATHS,
               sniff=loader.is_tool_file),
        # work-agent's own data under .work-agent/ (after its agents and tools): not definitions
        Format("work-agent-data", loader.ignore, paths=loader.DATA_PATHS,
               sniff=loader.is_own_data, suffixes=(".json", ".yaml", ".yml", ".md")),
        Format("work-agent-catalog", loader.load_catalog, sniff=by_data(loader.is_catalog),
               marks=("tools",), expects="a tool catalog (a list of tools with 'kind')"),
    ),
    preset=Preset(name="work-agent", unknown_name="warn-unavailable", omitted_root="all-of-use",
                  empty_list="all-of-use", child_extra="drop-warn", strip_coordination=False,
                  max_depth=DEFAULT_MAX_DEPTH, delegation=True, unasked="run",
                  child_blocked=DEFAULT_CHILD_BLOCKED_TOOLS, rule_syntax="work-agent"),
    layouts=(Layout(".work-agent", ("agents", "tools")),),
    enclosing_layout=loader.enclosing_layout,
    name_rules=work_agent_names,
)
