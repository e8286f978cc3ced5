"""An MCP server built with the ``mcp`` package's ``MCPServer``, with faults on demand.

Usage: ``python sdk.py MODE``:

- ``ok``: tools ``echo`` and ``whoami`` (returns ``$FAULT_NAME``).
- ``crash-mid-call``: also ``crash``, which exits the process (status 4) mid-call.
- ``shared``: the same tool names as ``ok`` (run two of them to share names).
- ``hang-call``: also ``hang``, which never answers; when the client cancels the
  request it writes ``hang cancelled`` to stderr.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"

server = MCPServer(f"fault-sdk-{MODE}", log_level="WARNING")


@server.tool(name="echo", description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(name="whoami", description="The server's FAULT_NAME.")
def whoami() -> str:
    return os.environ.get("FAULT_NAME", "")


if MODE == "crash-mid-call":

    @server.tool(name="crash", description="Exit the process mid-call.")
    def crash() -> str:
        sys.stderr.write("sdk fault server: crashing mid-call\n")
        sys.stderr.flush()
        os._exit(4)


if MODE == "hang-call":

    @server.tool(name="hang", description="Never answer (until the client cancels).")
    async def hang() -> str:
        try:
            await anyio.sleep_forever()
        finally:  # the client's notifications/cancelled ends the handler
            sys.stderr.write("sdk fault server: hang cancelled\n")
            sys.stderr.flush()
        return ""


if __name__ == "__main__":
    server.run("stdio")
