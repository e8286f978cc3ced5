"""Peer side of figure 1 (run in the openai-agents venv): ``create_static_tool_filter``.

Reads JSON on stdin: ``{"tools": [...], "agents": {name: [expanded names]}, "repeat": n}``;
prints ``{"seconds": [...], "kept": total}``: the time to build each agent's static filter
and apply it to the tool list, the way the SDK's MCP server applies it, for all agents.
"""

from __future__ import annotations

import json
import sys
import time

from agents.mcp import create_static_tool_filter
from agents.mcp.server import _MCPServerWithClientSession
from mcp.types import Tool


def main() -> None:
    """Time the SDK's static filtering for every agent; print JSON."""
    payload = json.load(sys.stdin)
    tools = [Tool(name=n, input_schema={"type": "object"}) for n in payload["tools"]]
    agents: dict[str, list[str]] = payload["agents"]
    apply = _MCPServerWithClientSession._apply_static_tool_filter
    seconds = []
    kept = 0
    for _ in range(int(payload.get("repeat", 1))):
        kept = 0
        start = time.perf_counter()
        for names in agents.values():
            static = create_static_tool_filter(allowed_tool_names=names)
            assert static is not None
            kept += len(apply(None, tools, static))
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"seconds": seconds, "kept": kept}))


if __name__ == "__main__":
    main()
