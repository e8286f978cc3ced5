"""A hand-written MCP server (newline-delimited JSON-RPC over stdio) that misbehaves on demand.

Usage: ``python raw.py MODE [ARG]``. Every mode serves ``initialize``,
``tools/list``, ``tools/call`` (tool ``echo`` returns its ``text``) and ``ping``
correctly except where the mode says otherwise:

- ``ok``: no fault.
- ``hang-init``: never answers ``initialize``.
- ``garbage``: writes non-JSON lines to stdout before and between its answers.
- ``ignore-sigterm``: ignores SIGTERM and stdin EOF (only SIGKILL ends it).
- ``paginate-forever``: every ``tools/list`` page has a ``nextCursor``.
- ``many-tools N``: lists N tools (``t00000`` ...) in one page.
- ``names a,b,c``: lists the tools ``a``, ``b``, ``c`` (each echoes).
- ``slow-ping SECONDS``: answers ``ping`` after SECONDS.
- ``crash-mid-call``: exits (status 3) on ``tools/call`` of ``crash``, without answering.
- ``die-teardown``: starts a helper child (same process group, pid written to
  ``$FAULT_PID_FILE``) and, on stdin EOF, exits abruptly without ending it.

With ``$FAULT_CALL_LOG`` set, the name of every ``tools/call`` received is appended
to that file, one per line, before it is answered: what reached the server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def tool(name: str) -> dict[str, object]:
    return {"name": name, "description": f"{name} (fault server, mode {MODE})",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def tools_page(params: dict[str, object]) -> dict[str, object]:
    if MODE == "many-tools":
        return {"tools": [tool(f"t{i:05d}") for i in range(int(ARG or 10000))]}
    if MODE == "names":
        return {"tools": [tool(n) for n in ARG.split(",") if n]}
    if MODE == "paginate-forever":
        page = int(str(params.get("cursor") or "0"))
        return {"tools": [tool(f"p{page}")], "nextCursor": str(page + 1)}
    return {"tools": [tool("echo"), tool("crash")]}


def answer(msg: dict[str, object]) -> dict[str, object] | None:
    method = msg.get("method")
    params = msg.get("params") or {}
    assert isinstance(params, dict)
    if method == "initialize":
        if MODE == "hang-init":
            return None
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": f"fault-{MODE}", "version": "0"}}
    if method == "tools/list":
        return tools_page(params)
    if method == "ping":
        if MODE == "slow-ping":
            time.sleep(float(ARG or 1))
        return {}
    if method == "tools/call":
        name = params.get("name")
        if os.environ.get("FAULT_CALL_LOG"):
            with open(os.environ["FAULT_CALL_LOG"], "a") as log:
                log.write(f"{name}\n")
        args = params.get("arguments") or {}
        assert isinstance(args, dict)
        if name == "crash" and MODE == "crash-mid-call":
            sys.stderr.write("fault server: crashing mid-call\n")
            sys.stderr.flush()
            os._exit(3)
        return {"content": [{"type": "text", "text": str(args.get("text", ""))}],
                "isError": False}
    return {"__error__": {"code": -32601, "message": f"method not found: {method}"}}


def main() -> None:
    helper = None
    if MODE == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "die-teardown":
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        with open(os.environ["FAULT_PID_FILE"], "w") as fh:
            fh.write(str(helper.pid))
    if MODE == "garbage":
        sys.stdout.write("this is not JSON\n{\"half\": \n\x00\x01 binary-ish\n")
        sys.stdout.flush()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg:
            continue  # a notification or a response to us
        result = answer(msg)
        if result is None:
            continue
        if MODE == "garbage":
            sys.stdout.write("garbage between answers ]]]\n")
        if "__error__" in result:
            send({"jsonrpc": "2.0", "id": msg["id"], "error": result["__error__"]})
        else:
            send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    # stdin ended: the client is tearing us down
    if MODE == "ignore-sigterm":
        while True:
            time.sleep(3600)
    if MODE == "die-teardown":
        sys.stderr.write("fault server: dying during teardown\n")
        sys.stderr.flush()
        os._exit(9)


if __name__ == "__main__":
    main()
