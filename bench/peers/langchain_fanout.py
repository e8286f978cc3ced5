"""Peer side of figure 3 (run in the langchain venv): ``MultiServerMCPClient.get_tools()``.

Reads ``{"servers": {name: {"command": ..., "args": [...]}}}`` on stdin; prints
``{"seconds": s, "tools": n}`` for one connect-and-list of every server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from langchain_mcp_adapters.client import MultiServerMCPClient


async def main() -> None:
    """Connect every server and list its tools once; print JSON."""
    servers: dict[str, Any] = json.load(sys.stdin)["servers"]
    connections: dict[str, Any] = {
        name: {"transport": "stdio", "command": c["command"], "args": c["args"]}
        for name, c in servers.items()}
    client = MultiServerMCPClient(connections)
    start = time.perf_counter()
    tools = await client.get_tools()
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed, "tools": len(tools)}))


if __name__ == "__main__":
    asyncio.run(main())
