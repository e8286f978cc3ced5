"""Real layouts against real MCP servers (issue 13): what changes once discovery ran.

- a warning about a tool of a not-yet-connected server holds only until the server is
  connected and has the tool (``proj.warnings`` shows the current pool's warnings);
- explain names the unconnected server instead of "not in the pool snapshot";
- a TrustGraph tool's ``mcp-tool`` binds it to the ``mcp`` map's tool (TrustGraph's
  ``tg-set-mcp-tool`` shape: ``{url, remote-name}``) and a call runs that server tool.

Servers are the shipped demo server (stdio, and Streamable HTTP as TrustGraph connects).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import toolkit as tk
from tests.support.procs import demo_server_argv, free_port, running

Write = Callable[..., Path]

DEMO = {"command": "python", "args": ["-m", "toolkit.examples.demo_server"]}


def test_pending_server_warnings_end_once_discovery_ran(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"kg": DEMO}}),
                  "agents/agent.md": "---\nname: agent\ntools: [echo, mcp__kg__knowledge-query]\n"
                                     "---\n"})
    with tk.load(root) as proj:
        pending = [w for w in proj.warnings if "not in the pool yet" in w.message]
        assert [(w.file, w.line) for w in pending] == [("agents/agent.md", 3)] * 2
        status = proj.connect()
        assert status.loc["kg", "state"] == "connected", status.loc["kg", "last_error"]
        assert [w for w in proj.warnings if "not in the pool yet" in w.message] == []
        assert proj.resolve("agent").allowed == {"@kg/echo", "@kg/knowledge-query"}


def test_a_tool_of_an_unconnected_server_is_explained_as_such(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"kg": DEMO}}),
                  "agents/agent.md": "---\nname: agent\ntools: ['@kg/*']\n---\n"})
    with tk.load(root) as proj:
        d = proj.explain("agent", "@kg/echo")
        assert (d.allowed, d.reason) == (False, "pool")  # still the pool step that decides
        assert d.message.startswith("server 'kg' not connected")
        assert "server(s) 'kg' not connected" in proj.explain("agent", "echo").message
        proj.connect()
        assert proj.explain("agent", "@kg/echo").allowed
        gone = proj.explain("agent", "@kg/no-such-tool").message
        assert gone == "tool not found: '@kg/no-such-tool' is not in the pool snapshot"


def test_trustgraph_mcp_tool_binding_runs_the_remote_tool(write: Write) -> None:
    port = free_port()
    config = {
        "tool": {"say-back": {"type": "mcp-tool", "name": "Say back", "mcp-tool": "echo-tool",
                              "group": ["read-only"]}},
        "mcp": {"echo-tool": {"url": f"http://127.0.0.1:{port}/mcp", "remote-name": "echo"}},
    }
    root = write({"config.json": json.dumps(config, indent=2),
                  "toolkit.yaml": "preset: trustgraph\n",
                  "agents/agent.md": "---\nname: agent\ntools: [say-back]\n---\n"})
    argv = demo_server_argv("--transport", "streamable-http", "--port", str(port))
    with running(argv, port), tk.load(root) as proj:
        status = proj.connect()
        assert status.loc["echo-tool", "state"] == "connected", status.loc["echo-tool",
                                                                            "last_error"]
        tool = proj.tools["say-back"]
        assert (tool.binding, tool.groups) == ("@echo-tool/echo", ("read-only",))
        session = proj.start("agent", groups=["read-only"])
        assert session.allowed == {"say-back"}
        assert session.call("say-back", {"text": "bound"}).text == "bound"
