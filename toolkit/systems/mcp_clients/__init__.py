"""MCP client configs: ``.mcp.json``, VS Code ``mcp.json``, Claude Desktop's config.

They configure servers, not agents; the reader (:mod:`toolkit.systems.base.mcpconfig`) is
shared, since work-agent and TrustGraph configure servers in the same shapes.
"""

from __future__ import annotations

from ..base import mcpconfig
from ..base.formats import Format, by_data
from ..base.system import System

__all__ = ["SYSTEM"]

SYSTEM = System(
    name="mcp-clients",
    title="MCP client configs",
    formats=(Format("mcp-config", mcpconfig.load, paths=mcpconfig.NAMES,
                    sniff=by_data(mcpconfig.is_config), marks=("mcpServers",),
                    expects="an MCP server config (an 'mcpServers' or 'servers' mapping)"),),
    hidden_folders=(".vscode", ".cursor"),
)
