"""TrustGraph: tool configs keyed by id (groups, states, MCP tools) and group maps."""

from __future__ import annotations

from ...core.presets import Preset
from ..base.formats import Format, by_data
from ..base.system import System
from . import loader

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="trustgraph",
    title="TrustGraph",
    formats=(
        Format("trustgraph-tools", loader.load, sniff=by_data(loader.is_registry),
               marks=("tool",), expects="a tool: map"),
        # last of all rows: it claims any mapping in a file named *group*
        Format("group-map", loader.load_group_map, sniff=loader.is_group_map,
               expects="a group map (a mapping in a file named *group*)", fallback=True),
    ),
    preset=Preset(name="trustgraph", unknown_name="warn", omitted_root="all", empty_list="none",
                  child_extra="drop-warn", strip_coordination=False, max_depth=2),
)
