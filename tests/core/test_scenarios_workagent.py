"""Scenarios of the work-agent (VoltAgent) tool-orchestration specification (seed 001).

Each project is a copy of ``toolkit/examples/work-agent`` (agents ``coder``: spec
spelling with an alias, ``operator``: ``allowed: ["*"]``, ``reviewer``: real-file
spelling) with a ``workspace/`` folder for the built-in tools. The ``files`` MCP
server is not started: where a scenario needs its tool ``@files/read_file`` in
the pool, the test hands the server's discovered tool to the project with
``set_server_tools``. Scenarios that need a UI or a running MCP server (agent
selection in the UI, server spawn/connect/failure/health, capability discovery)
have no test here; the switch itself (``proj.switch``) is tested with a built-in
tool call in flight.
"""

from __future__ import annotations

import inspect
import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk

READ_FILE = tk.Tool(name="@files/read_file", server="files", remote_name="read_file",
                    source="mcp:files")


@pytest.fixture
def root(examples: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "work-agent"
    shutil.copytree(examples / "work-agent", folder)
    (folder / "workspace").mkdir()
    (folder / "workspace" / "notes.txt").write_text("hello from the workspace\n")
    (folder / "secret.txt").write_text("TOP SECRET CONTENT\n")
    return folder


def add_agent(root: Path, name: str, tools: dict[str, object]) -> None:
    folder = root / "agents" / name
    folder.mkdir(parents=True)
    (folder / "agent.json").write_text(json.dumps({"name": name, "tools": tools}, indent=2))


@pytest.fixture
def proj(root: Path) -> tk.Project:
    project = tk.load(root)
    project.set_server_tools("files", [READ_FILE])
    return project


def calls(proj: tk.Project, outcome: str) -> list[dict[str, object]]:
    return [e for e in proj.audit_log.events if e.get("event") == "call"
            and e.get("outcome") == outcome]


# -- Requirement: Tool Allow-List Enforcement -----------------------------------------------------

def test_allowed_tool_invoked(proj: tk.Project) -> None:
    d = proj.explain("coder", "fs_read")
    assert (d.allowed, d.effect, d.reason) == (True, "allow", "allow")
    assert (d.rule.file, d.rule.line) == ("agents/coder/agent.json", 7)
    session = proj.start("coder")
    result = session.call("fs_read", {"path": "workspace/notes.txt"})
    assert not result.is_error
    assert "hello from the workspace" in result.text
    # ... and the invocation is logged.
    assert [e for e in calls(proj, "allowed") if e.get("tool") == "fs_read"]


def test_blocked_tool_invoked_not_in_allowed(proj: tk.Project, root: Path) -> None:
    # fs_write is in coder's tools.use but not in tools.allowed.
    d = proj.explain("coder", "fs_write")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "allow")
    assert "fs_write" not in proj.resolve("coder").allowed
    session = proj.start("coder")
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: fs_write"):
        session.call("fs_write", {"path": "workspace/new.txt", "content": "x"})
    assert not (root / "workspace" / "new.txt").exists()  # never reached the tool
    blocked = calls(proj, "blocked")
    assert [e for e in blocked if "fs_write" in (e.get("tool"), e.get("requested_tool"))]


def test_blocked_tool_invoked_allowed_empty_and_not_in_use(root: Path) -> None:
    add_agent(root, "minimal", {"use": ["fs_read"], "allowed": []})
    proj = tk.load(root)
    # allowed is empty: a tool not in use is blocked ...
    d = proj.explain("minimal", "fs_write")
    assert (d.allowed, d.effect) == (False, "implicit-deny")
    session = proj.start("minimal")
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: fs_write"):
        session.call("fs_write", {"path": "workspace/new.txt", "content": "x"})
    assert not (root / "workspace" / "new.txt").exists()
    # ... while the tool in use is not.
    assert proj.resolve("minimal").allowed == {"fs_read"}


def test_wildcard_allow_all(proj: tk.Project) -> None:
    # operator: use [fs_read, shell_exec], allowed ["*"]: all of use, nothing else.
    assert proj.resolve("operator").allowed == {"fs_read", "shell_exec"}
    for tool in ("fs_read", "shell_exec"):
        assert proj.explain("operator", tool).allowed
    for tool in ("fs_write", "@files/read_file"):
        d = proj.explain("operator", tool)
        assert (d.allowed, d.effect) == (False, "implicit-deny")


# -- Requirement: Tool Aliases --------------------------------------------------------------------

def test_alias_resolved(root: Path) -> None:
    add_agent(root, "aliased", {"use": ["@files/read_file"], "allowed": ["@files/read_file"],
                                "aliases": {"read": "@files/read_file"}})
    proj = tk.load(root)
    proj.set_server_tools("files", [READ_FILE])
    by_alias = proj.explain("aliased", "read")
    by_name = proj.explain("aliased", "@files/read_file")
    assert by_alias.allowed and by_name.allowed
    assert by_alias.canonical == by_name.canonical == "@files/read_file"
    assert proj.resolve("aliased").allowed == {"@files/read_file"}


def test_alias_in_allow_list(proj: tk.Project) -> None:
    # coder: allowed ["read", ...], aliases {"read": "@files/read_file"}
    assert "@files/read_file" in proj.resolve("coder").allowed
    for name in ("read", "@files/read_file"):
        d = proj.explain("coder", name)
        assert (d.allowed, d.effect) == (True, "allow"), name
        assert d.canonical == "@files/read_file"
        assert (d.rule.file, d.rule.line) == ("agents/coder/agent.json", 7)


# -- Real-file spelling (mcpServers / available / autoApprove) ------------------------------------

def test_real_file_spelling(proj: tk.Project) -> None:
    # reviewer: mcpServers [files], available [fs_read, shell_exec], autoApprove [fs_read]
    r = proj.resolve("reviewer")
    assert r.allowed == {"fs_read", "shell_exec"}
    assert r.ask == {"shell_exec"}
    auto = proj.explain("reviewer", "fs_read")
    assert (auto.allowed, auto.effect, auto.reason) == (True, "allow", "allow")
    ask = proj.explain("reviewer", "shell_exec")
    assert (ask.allowed, ask.effect, ask.reason) == (True, "ask", "approval")
    assert ask.rule.file == "agents/reviewer/agent.json"
    assert ask.rule.line == 7  # the autoApprove list
    # The files server's tools are in use, but not available: blocked.
    server_tool = proj.explain("reviewer", "@files/read_file")
    assert (server_tool.allowed, server_tool.effect) == (False, "implicit-deny")
    # fs_write is neither available nor in use.
    assert not proj.explain("reviewer", "fs_write").allowed


def test_real_file_spelling_ask_tool_needs_approval_before_call(proj: tk.Project) -> None:
    session = proj.start("reviewer")
    asked: list[str] = []

    def refuse(tool: str, args: dict[str, object]) -> bool:
        asked.append(tool)
        return False

    session.approval = refuse
    with pytest.raises(tk.AccessDeniedError):
        session.call("shell_exec", {"command": "echo hi"})
    assert asked == ["shell_exec"]
    session.approval = lambda tool, args: True
    result = session.call("shell_exec", {"command": "echo hi"})
    assert not result.is_error and result.text.strip() == "hi"
    # fs_read is in autoApprove: no question asked.
    asked.clear()
    session.approval = refuse
    assert not session.call("fs_read", {"path": "workspace/notes.txt"}).is_error
    assert asked == []


# -- Requirement: Built-In Tool Registration ------------------------------------------------------

def test_fs_read_tool_registered(proj: tk.Project) -> None:
    assert proj.tools["fs_read"].builtin_policy is not None
    session = proj.start("operator")
    ok = session.call("fs_read", {"path": "workspace/notes.txt"})
    assert not ok.is_error and "hello from the workspace" in ok.text
    outside = session.call("fs_read", {"path": "secret.txt"})  # outside allowedPaths
    assert outside.is_error
    assert "TOP SECRET CONTENT" not in outside.text


def test_fs_write_tool_registered(root: Path) -> None:
    add_agent(root, "writer", {"use": ["fs_write"], "allowed": ["fs_write"]})
    proj = tk.load(root)
    session = proj.start("writer")
    ok = session.call("fs_write", {"path": "workspace/out.txt", "content": "written"})
    assert not ok.is_error
    assert (root / "workspace" / "out.txt").read_text() == "written"
    refused = session.call("fs_write", {"path": "escaped.txt", "content": "nope"})
    assert refused.is_error
    assert not (root / "escaped.txt").exists()
    refused = session.call("fs_write", {"path": "workspace/../escaped.txt", "content": "nope"})
    assert refused.is_error
    assert not (root / "escaped.txt").exists()


def test_shell_exec_tool_registered(root: Path) -> None:
    catalog = json.loads((root / "catalog.json").read_text())
    for entry in catalog["tools"]:
        if entry["id"] == "shell_exec":
            entry["builtinPolicy"] = {"name": "shell_exec", "allowedCommands": ["echo", "sleep"],
                                      "timeout": 0.5}
    (root / "catalog.json").write_text(json.dumps(catalog, indent=2))
    proj = tk.load(root)
    session = proj.start("operator")
    ok = session.call("shell_exec", {"command": "echo allowed"})
    assert not ok.is_error and ok.text.strip() == "allowed"
    # A command outside the allow-list is refused.
    assert session.call("shell_exec", {"command": "ls"}).is_error
    # The policy's timeout ends a command that runs too long.
    slow = session.call("shell_exec", {"command": "sleep 5"})
    assert slow.is_error


# -- Requirement: Dynamic Agent Switching (without MCP servers) ----------------------------------

def allow_sleep(root: Path) -> None:
    catalog = json.loads((root / "catalog.json").read_text())
    for entry in catalog["tools"]:
        if entry["id"] == "shell_exec":
            entry["builtinPolicy"]["allowedCommands"] = ["echo", "sleep"]
    (root / "catalog.json").write_text(json.dumps(catalog, indent=2))


def call_in_background(session: Any, command: str) -> tuple[threading.Thread, list[Any]]:
    results: list[Any] = []
    thread = threading.Thread(
        target=lambda: results.append(session.call("shell_exec", {"command": command})))
    thread.start()
    deadline = time.monotonic() + 10
    while session.inflight == 0 and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert session.inflight == 1, "the call never got in flight"
    return thread, results


def test_agent_switch_initiated(root: Path) -> None:
    allow_sleep(root)
    proj = tk.load(root)
    old = proj.start("operator")
    thread, results = call_in_background(old, "sleep 0.5")
    new = proj.switch("coder")
    # The in-flight call was waited for (well under the 5 s timeout) ...
    assert old.inflight == 0
    thread.join(10)
    assert results and not results[0].is_error
    # ... the old context is torn down and the new agent's context built.
    assert old.closed
    assert proj.active is new and new.agent == "coder"
    assert new.allowed == proj.resolve("coder").allowed
    assert not [e for e in proj.audit_log.events
                if e.get("event") == "teardown" and e.get("outcome") == "timeout"]
    with pytest.raises(tk.ToolkitError):
        old.call("fs_read", {"path": "workspace/notes.txt"})


def test_switch_timeout(root: Path) -> None:
    allow_sleep(root)
    proj = tk.load(root)
    assert inspect.signature(proj.switch).parameters["timeout"].default == 5.0
    old = proj.start("operator")
    thread, _results = call_in_background(old, "sleep 1.5")
    new = proj.switch("coder", timeout=0.2)
    # Teardown was forced while the call was still running, with a timeout warning ...
    assert old.inflight == 1
    assert old.closed
    timeouts = [e for e in proj.audit_log.events
                if e.get("event") == "teardown" and e.get("outcome") == "timeout"]
    assert [e.get("agent_id") for e in timeouts] == [old.id]
    # ... and the new agent was built anyway.
    assert proj.active is new and new.agent == "coder"
    thread.join(10)
