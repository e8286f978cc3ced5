"""Fault-injecting MCP servers for the hardening tests (real processes speaking MCP).

``raw.py`` speaks newline-delimited JSON-RPC over stdio by hand, so it can
misbehave at the protocol level; ``sdk.py`` is built with the ``mcp`` package's
``MCPServer``. :func:`argv` gives the command line of either.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def raw(mode: str, *extra: str) -> dict[str, object]:
    """An ``.mcp.json`` server entry running ``raw.py`` in ``mode``."""
    return {"command": sys.executable, "args": [str(HERE / "raw.py"), mode, *extra]}


def sdk(mode: str, *extra: str) -> dict[str, object]:
    """An ``.mcp.json`` server entry running ``sdk.py`` in ``mode``."""
    return {"command": sys.executable, "args": [str(HERE / "sdk.py"), mode, *extra]}
