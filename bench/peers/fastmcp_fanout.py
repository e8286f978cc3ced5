"""Peer side of figure 3 (run in the fastmcp venv): the multi-server ``fastmcp.Client``.

Reads ``{"servers": {name: {"command": ..., "args": [...]}}}`` on stdin; prints
``{"seconds": s, "tools": n}``: entering the client (every server connected)
and ``list_tools()``, once.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from fastmcp import Client


async def main() -> None:
    """Connect every server through one multi-server client, list tools; print JSON."""
    servers: dict[str, Any] = json.load(sys.stdin)["servers"]
    client = Client({"mcpServers": {name: {"command": c["command"], "args": c["args"]}
                                    for name, c in servers.items()}})
    start = time.perf_counter()
    async with client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed, "tools": len(tools)}))


if __name__ == "__main__":
    asyncio.run(main())
