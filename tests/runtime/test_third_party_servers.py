"""Real servers this project did not write: mcp-server-time (PyPI) and
@modelcontextprotocol/server-everything (npm) over stdio, Streamable HTTP and SSE.

Each: tools discovered, an allowed call returns the server's answer, a
disallowed call raises ToolNotFoundError and never reaches the server (the
audit shows it blocked and no server call), and no child process remains.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.procs import (
    LOOPBACK_CJS,
    descendants,
    ensure_everything,
    free_port,
    node,
    running,
    wait_no_descendants,
)

Write = Callable[..., Path]

AGENT = "---\nname: agent\ntools: [{allowed}]\n---\n"


def project(write: Write, server: dict[str, object], allowed: str) -> tk.Project:
    root = write({".mcp.json": json.dumps({"mcpServers": {"srv": server}}),
                  "agents/agent.md": AGENT.format(allowed=allowed)})
    return tk.load(root)


def server_calls(proj: tk.Project) -> list[dict[str, object]]:
    return [e for e in proj.audit_log.events if e["event"] == "call"]


@pytest.fixture(scope="module")
def everything() -> Path:
    return ensure_everything()


def test_mcp_server_time_over_stdio(write: Write) -> None:
    exe = shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    assert exe, "mcp-server-time is a test dependency (pip install -e .[dev])"
    proj = project(write, {"command": exe}, "'@srv/get_current_time'")
    status = proj.connect()
    assert status.loc["srv", "state"] == "connected"
    assert {"@srv/get_current_time", "@srv/convert_time"} <= set(proj.tools)
    session = proj.start("agent")
    assert descendants(), "the stdio server runs as our child"
    result = session.call("get_current_time", {"timezone": "Europe/Paris"})
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["timezone"] == "Europe/Paris"
    with pytest.raises(tk.ToolNotFoundError, match=r"^tool not found: convert_time$"):
        session.call("convert_time", {"source_timezone": "UTC", "time": "12:00",
                                      "target_timezone": "Asia/Tokyo"})
    calls = server_calls(proj)
    assert [(c["tool"], c["outcome"]) for c in calls] == [
        ("@srv/get_current_time", "allowed"), ("@srv/convert_time", "blocked")]
    proj.close()
    assert wait_no_descendants() == []


def test_server_everything_over_stdio(write: Write, everything: Path) -> None:
    proj = project(write, {"command": node(), "args": [str(everything), "stdio"]},
                   "'@srv/echo', mcp__srv__get-sum")
    proj.connect()
    assert {"@srv/echo", "@srv/get-sum", "@srv/get-env"} <= set(proj.tools)
    session = proj.start("agent")
    assert session.call("echo", {"message": "hello"}).text == "Echo: hello"
    assert "7" in session.call("mcp__srv__get-sum", {"a": 3, "b": 4}).text
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: get-env"):
        session.call("get-env", {})
    assert server_calls(proj)[-1]["outcome"] == "blocked"
    proj.close()
    assert wait_no_descendants() == []


@pytest.fixture
def everything_http(everything: Path) -> Iterator[Callable[[str], str]]:
    started: list[int] = []

    def start(kind: str) -> str:
        port = free_port()
        argv = [node(), "--require", str(LOOPBACK_CJS), str(everything), kind]
        ctx = running(argv, port, env={"PORT": str(port)})
        proc = ctx.__enter__()
        started.append(proc.pid)
        cleanups.append(ctx)
        return f"http://127.0.0.1:{port}"

    cleanups: list[object] = []
    yield start
    for ctx in cleanups:
        ctx.__exit__(None, None, None)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("kind", "transport", "path"), [
    ("streamableHttp", "http", "/mcp"),
    ("sse", "sse", "/sse"),
])
def test_server_everything_over_http(write: Write, everything_http: Callable[[str], str],
                                     kind: str, transport: str, path: str) -> None:
    base = everything_http(kind)
    server_pids = set(descendants())
    proj = project(write, {"type": transport, "url": base + path}, "'@srv/echo'")
    status = proj.connect()
    assert status.loc["srv", "state"] == "connected", status.loc["srv", "last_error"]
    assert status.loc["srv", "transport"] == ("streamable-http" if kind != "sse" else "sse")
    assert "@srv/get-sum" in proj.tools
    session = proj.start("agent")
    assert session.call("@srv/echo", {"message": kind}).text == f"Echo: {kind}"
    with pytest.raises(tk.ToolNotFoundError):
        session.call("get-sum", {"a": 1, "b": 2})
    proj.close()
    assert set(wait_no_descendants(timeout=2)) <= server_pids  # toolkit started nothing
