"""A call to a tool whose MCP server died: one brief error naming the server (issue 23 item 8).

Real servers: the shipped demo server over stdio, killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.procs import descendants, wait_no_descendants
from toolkit.errors import ServerUnavailableError

Write = Callable[..., Path]


@pytest.fixture
def proj(write: Write) -> tk.Project:
    server = {"command": sys.executable,
              "args": ["-m", "toolkit.examples.demo_server", "--tools", "echo,graph-update"]}
    project = tk.load(write({".mcp.json": json.dumps({"mcpServers": {"kg": server}}),
                             "agent.md": "---\nname: agent\ntools: ['@kg/echo']\n---\n"}))
    status = project.connect(timeout=30)
    assert status.loc["kg", "state"] == "connected", status.loc["kg", "last_error"]
    return project


def kill_server(proj: tk.Project) -> None:
    conn = proj.server_manager.connections["kg"]
    for pid in descendants():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while conn.state == "connected" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert conn.state == "failed"


def brief_failure(call: Callable[[], object], name: str = "echo") -> ServerUnavailableError:
    with pytest.raises(ServerUnavailableError) as caught:
        call()
    exc = caught.value
    # the handlers written for the errors raised before still catch it
    assert isinstance(exc, tk.ToolNotFoundError) and isinstance(exc, tk.ServerError)
    assert exc.server == "kg" and exc.name == name
    assert str(exc).startswith("MCP server 'kg' is not connected (failed: ")
    assert "proj.connect(['kg'])" in str(exc)
    # the traceback ends at the caller's call (it ran through the loop thread, the server
    # manager and the connection: 32 to 62 lines), with no chained exception below it
    inside = [f.name for f in traceback.extract_tb(exc.__traceback__)
              if "site-packages" in f.filename or os.sep + "toolkit" + os.sep in f.filename]
    assert inside == ["call"], "".join(traceback.format_exception(exc))
    assert exc.__cause__ is None and exc.__suppress_context__
    return exc


def test_a_call_after_the_server_died_names_the_server_briefly(proj: tk.Project) -> None:
    before = proj.start("agent")
    assert before.call("echo", {"text": "hi"}).text == "hi"
    kill_server(proj)
    # a session started before the crash holds the tool in its snapshot
    brief_failure(lambda: before.call("echo", {"text": "hi"}))
    # a session started after it lacks the tool: still the server is to blame, not the name
    after = proj.start("agent")
    assert "@kg/echo" not in after.allowed
    brief_failure(lambda: after.call("echo", {"text": "hi"}))
    brief_failure(lambda: after.call("@kg/echo", {"text": "hi"}), "@kg/echo")
    # a tool the agent would not hold reads like any unknown tool, as it always did
    with pytest.raises(tk.ToolNotFoundError) as caught:
        after.call("graph-update", {"kind": "entity"})
    assert type(caught.value) is tk.ToolNotFoundError
    assert str(caught.value) == "tool not found: graph-update"
    with pytest.raises(tk.ToolNotFoundError) as caught:
        after.call("no-such-tool")
    assert type(caught.value) is tk.ToolNotFoundError
    # connect restarts it, as the message says
    proj.connect(["kg"], timeout=30)
    assert proj.start("agent").call("echo", {"text": "back"}).text == "back"
    proj.close()
    assert wait_no_descendants() == []
