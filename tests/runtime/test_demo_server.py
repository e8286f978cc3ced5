"""The shipped demo MCP server, over every transport toolkit speaks.

WebSocket and TCP are toolkit's own client transports (mcp 2.x has none); the
demo server is the peer they are tested against. stdio, Streamable HTTP and
SSE are tested here too, with the demo server's real knowledge tools.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.procs import (
    demo_server_argv,
    descendants,
    free_port,
    running,
    wait_no_descendants,
)

Write = Callable[..., Path]

AGENT = "---\nname: agent\ntools: ['@kg/knowledge-query', '@kg/echo', 'mcp__kg__entities_*']\n---\n"


def project(write: Write, server: dict[str, object]) -> tk.Project:
    return tk.load(write({".mcp.json": json.dumps({"mcpServers": {"kg": server}}),
                          "agent.md": AGENT}))


def exercise(proj: tk.Project) -> None:
    status = proj.connect()
    assert status.loc["kg", "state"] == "connected", status.loc["kg", "last_error"]
    tools = set(proj.tools)
    assert {"@kg/knowledge-query", "@kg/graph-update", "@kg/entities_get", "@kg/echo"} <= tools
    kq = proj.tools["@kg/knowledge-query"]
    assert kq.input_schema is not None and "query" in kq.input_schema["properties"]
    assert kq.annotations.get("readOnlyHint") is True
    assert proj.tools["@kg/graph-update"].annotations.get("destructiveHint") is True
    session = proj.start("agent")
    assert session.call("echo", {"text": "ping"}).text == "ping"
    answer = session.call("knowledge-query", {"query": "Acme"})
    assert not answer.is_error and "Acme Robotics" in answer.text
    assert not session.call("entities_get", {"id": "acme-robotics"}).is_error
    before = len(proj.audit_log.frame(event="call"))
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: graph-update"):
        session.call("graph-update", {"kind": "entity", "name": "X"})
    calls = proj.audit_log.frame(event="call")
    assert len(calls) == before + 1 and calls["outcome"].iloc[-1] == "blocked"
    # The server never saw it: the graph still lacks X.
    found = json.loads(session.call("knowledge-query", {"query": "X"}).text)["entities"]
    assert "X" not in [e["name"] for e in found]
    proj.close()


@pytest.mark.parametrize(("transport", "scheme"), [("ws", "ws"), ("tcp", "tcp")])
def test_own_transports_against_demo_server(write: Write, transport: str, scheme: str) -> None:
    port = free_port()
    with running(demo_server_argv("--transport", transport, "--port", str(port)), port) as proc:
        proj = project(write, {"type": transport, "url": f"{scheme}://127.0.0.1:{port}"})
        exercise(proj)
        assert proc.poll() is None  # closing our client does not stop the server
        assert set(descendants()) == {proc.pid} | set(descendants(proc.pid))


@pytest.mark.parametrize(("transport", "kind", "path"), [
    ("streamable-http", "http", "/mcp"), ("sse", "sse", "/sse")])
def test_http_transports_against_demo_server(write: Write, transport: str, kind: str,
                                             path: str) -> None:
    port = free_port()
    with running(demo_server_argv("--transport", transport, "--port", str(port)), port):
        exercise(project(write, {"type": kind, "url": f"http://127.0.0.1:{port}{path}"}))


def test_stdio_demo_server_and_stderr_log(write: Write) -> None:
    proj = project(write, {"command": "python", "args": ["-m", "toolkit.examples.demo_server",
                                                         "--log-level", "INFO"]})
    exercise(proj)
    assert wait_no_descendants() == []
    assert proj.server_log("kg") != ""  # the server's stderr went to its own log


def test_pagination_is_followed_to_the_end(write: Write) -> None:
    proj = project(write, {"command": "python", "args": ["-m", "toolkit.examples.demo_server",
                                                         "--page-size", "2"]})
    proj.connect()
    assert len([t for t in proj.tools if t.startswith("@kg/")]) == 14
    proj.close()


def test_groups_derived_from_annotations(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"kg": {
        "command": "python", "args": ["-m", "toolkit.examples.demo_server"]}}}),
        "toolkit.yaml": "derive_groups_from_annotations: true\n",
        "agent.md": "---\nname: agent\ntools: ['@kg/*']\n---\n"})
    proj = tk.load(root)
    proj.connect()
    assert "read-only" in proj.tools["@kg/knowledge-query"].groups
    assert "destructive" in proj.tools["@kg/reset-workflow"].groups
    readers = proj.resolve("agent", groups=["read-only"]).allowed
    assert "@kg/knowledge-query" in readers and "@kg/graph-update" not in readers
    proj.close()


def test_tools_list_changed_invalidates_the_pool(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"kg": {
        "command": "python", "args": ["-m", "toolkit.examples.demo_server"]}}}),
        "agent.md": "---\nname: agent\ntools: ['@kg/*']\n---\n"})
    proj = tk.load(root)
    proj.connect()
    session = proj.start("agent")
    assert "@kg/late_tool" not in session.allowed
    assert session.call("register_tool", {"name": "late_tool"}).text == "registered late_tool"
    deadline = time.monotonic() + 10
    while "@kg/late_tool" not in proj.tools and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "@kg/late_tool" in proj.tools  # the pool was rebuilt on list_changed
    assert "@kg/late_tool" not in session.allowed  # the running session's snapshot is fixed
    fresh = proj.start("agent")
    assert fresh.call("late_tool", {"text": "new"}).text == "new"
    assert len(proj.audit_log.frame(event="server-tools-changed")) == 1
    proj.close()
