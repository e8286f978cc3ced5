"""Fault-injecting MCP servers: each fault gives a clear error or status, the other server
carries on, the audit records it, and no process outlives ``proj.close()``.

Every project has the faulty server ``bad`` next to a healthy ``good`` one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from tests.support.faults import raw, sdk
from tests.support.procs import alive, descendants, wait_no_descendants

Write = Callable[..., Path]


@pytest.fixture
def project(write: Write, tmp_path: Path) -> Iterator[Callable[..., tk.Project]]:
    """``project(bad_entry, agent_tools=...)``: a loaded project with ``bad`` and ``good``."""
    opened: list[tk.Project] = []

    def make(bad: dict[str, Any], tools: str = "['@bad/*', '@good/*']",
             extra: dict[str, Any] | None = None, agents: dict[str, str] | None = None
             ) -> tk.Project:
        bad = {"startupTimeout": 5, **bad}
        servers = {"bad": bad, "good": raw("ok"), **(extra or {})}
        files = {".mcp.json": json.dumps({"mcpServers": servers}),
                 "a.md": f"---\nname: a\ntools: {tools}\n---\n", **(agents or {})}
        proj = tk.load(write(files))
        opened.append(proj)
        return proj

    yield make
    for proj in opened:
        proj.close()
    assert wait_no_descendants() == []


def _good_still_works(proj: tk.Project, session: tk.Session) -> None:
    assert proj.servers.loc["good", "state"] == "connected"
    assert session.call("@good/echo", {"text": "still here"}).text == "still here"


def _close_and_count_orphans(proj: tk.Project) -> list[int]:
    assert descendants(), "the servers should be running before close"
    proj.close()
    return wait_no_descendants()


def _events(proj: tk.Project, event: str) -> list[dict[str, Any]]:
    return [e for e in proj.audit_log.events if e["event"] == event]


def test_hang_in_call_times_out_cancels_and_audits(project: Callable[..., tk.Project]) -> None:
    """A call the server never answers: ToolTimeoutError after the timeout, the server is
    told (its handler is cancelled), the connection stays usable, and the audit says so."""
    proj = project(sdk("hang-call"))
    proj.connect()
    s = proj.start("a")
    started = time.monotonic()
    with pytest.raises(tk.ToolTimeoutError, match=r"'bad' did not answer 'hang' within 0\.5 s"):
        s.call("@bad/hang", {}, timeout=0.5)
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 5
    while "hang cancelled" not in proj.server_log("bad") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "hang cancelled" in proj.server_log("bad")  # the server got notifications/cancelled
    assert s.call("@bad/echo", {"text": "after"}).text == "after"  # same connection, still fine
    assert proj.servers.loc["bad", "state"] == "connected"
    failure = _events(proj, "server-failure")[-1]
    assert (failure["server"], failure["outcome"]) == ("bad", "timeout")
    call = [e for e in _events(proj, "call") if e["tool"] == "@bad/hang"][-1]
    assert (call["outcome"], call["reason"]) == ("error", "ToolTimeoutError")
    proj.call_timeout = 0.3  # the project default (toolkit.yaml call_timeout) applies too
    with pytest.raises(tk.ToolTimeoutError, match=r"within 0\.3 s"):
        s.call("@bad/hang", {})
    _good_still_works(proj, s)
    assert _close_and_count_orphans(proj) == []


def test_crash_mid_call_raises_marks_down_and_audits(project: Callable[..., tk.Project]) -> None:
    proj = project(sdk("crash-mid-call"))
    proj.connect()
    s = proj.start("a")
    with pytest.raises(tk.ServerError, match="'bad' failed calling 'crash'"):
        s.call("@bad/crash", {})
    deadline = time.monotonic() + 10
    while proj.servers.loc["bad", "state"] == "connected" and time.monotonic() < deadline:
        time.sleep(0.05)
    status = proj.servers.loc["bad"]
    assert status["state"] == "failed" and status["health"] == "red"
    assert "closed the connection" in status["last_error"]
    assert "crashing mid-call" in status["last_error"]  # the stderr tail names the cause
    assert "@bad/echo" not in proj.tools  # the next session will not see its tools
    _good_still_works(proj, s)
    calls = [e for e in _events(proj, "call") if e["tool"] == "@bad/crash"]
    assert [e["outcome"] for e in calls] == ["error"] and calls[0]["reason"] == "ServerError"
    assert {"failed", "down"} <= {e["outcome"] for e in _events(proj, "server-failure")}
    assert _close_and_count_orphans(proj) == []


def test_hang_at_initialize_hits_the_startup_timeout(project: Callable[..., tk.Project]) -> None:
    proj = project({**raw("hang-init"), "startupTimeout": 1})
    started = time.monotonic()
    status = proj.connect()
    assert time.monotonic() - started < 8  # bounded by the startup timeout, not hanging
    assert status.loc["bad", "state"] == "failed"
    assert "no answer within the 1 s startup timeout" in status.loc["bad", "last_error"]
    s = proj.start("a")
    with pytest.raises(tk.ToolNotFoundError):
        s.call("@bad/echo", {"text": "x"})  # never discovered: absent from the pool
    _good_still_works(proj, s)
    failures = _events(proj, "server-failure")
    assert any("startup timeout" in e["reason"] and e["server"] == "bad" for e in failures)
    assert _close_and_count_orphans(proj) == []


def test_garbage_on_stdout_is_audited_and_the_session_survives(
        project: Callable[..., tk.Project]) -> None:
    proj = project(raw("garbage"))
    status = proj.connect()
    assert status.loc["bad", "state"] == "connected"
    s = proj.start("a")
    assert s.call("@bad/echo", {"text": "through the noise"}).text == "through the noise"
    _good_still_works(proj, s)
    warnings = [e for e in _events(proj, "server-failure") if e["outcome"] == "warning"]
    assert warnings and all(e["server"] == "bad" for e in warnings)
    assert any("this is not JSON" in e["reason"] for e in warnings)
    assert _close_and_count_orphans(proj) == []


@pytest.mark.slow
def test_server_ignoring_sigterm_is_killed_at_close(project: Callable[..., tk.Project]) -> None:
    proj = project(raw("ignore-sigterm"))
    proj.connect()
    s = proj.start("a")
    assert s.call("@bad/echo", {"text": "x"}).text == "x"
    _good_still_works(proj, s)
    started = time.monotonic()
    left = _close_and_count_orphans(proj)
    assert left == []
    assert time.monotonic() - started < 15  # stdin EOF, SIGTERM, then SIGKILL
    closed = {e["server"] for e in _events(proj, "teardown") if e.get("server")}
    assert closed == {"bad", "good"}


def test_endless_pagination_stops_at_the_page_cap(project: Callable[..., tk.Project]) -> None:
    proj = project(raw("paginate-forever"))
    status = proj.connect()
    assert status.loc["bad", "state"] == "failed"
    assert "pagination did not end after 100 pages" in status.loc["bad", "last_error"]
    assert not any(t.startswith("@bad/") for t in proj.tools)
    s = proj.start("a")
    _good_still_works(proj, s)
    assert any("pagination" in e["reason"] for e in _events(proj, "server-failure"))
    assert _close_and_count_orphans(proj) == []


@pytest.mark.slow
def test_ten_thousand_tools_are_listed_and_enforced(project: Callable[..., tk.Project]) -> None:
    proj = project({**raw("many-tools", "10000"), "startupTimeout": 30},
                   tools="['@bad/t0999*', '@good/*']")
    status = proj.connect()
    assert status.loc["bad", "state"] == "connected" and status.loc["bad", "tools"] == 10_000
    assert sum(t.startswith("@bad/") for t in proj.tools) == 10_000
    s = proj.start("a")
    assert {t for t in s.allowed if t.startswith("@bad/")} == {
        f"@bad/t0999{i}" for i in range(10)}
    assert s.call("@bad/t09999", {"text": "deep"}).text == "deep"
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: @bad/t00000"):
        s.call("@bad/t00000", {"text": "no"})
    _good_still_works(proj, s)
    assert any(e["reason"] == "bad: 10000 tool(s)" for e in _events(proj, "server-connected"))
    assert [e["outcome"] for e in _events(proj, "call") if e["tool"] == "@bad/t00000"] == [
        "blocked"]
    assert _close_and_count_orphans(proj) == []


def test_servers_sharing_tool_names_stay_apart(project: Callable[..., tk.Project]) -> None:
    one = {**sdk("ok"), "env": {"FAULT_NAME": "one"}}
    two = {**sdk("ok"), "env": {"FAULT_NAME": "two"}}
    proj = project(one, tools="['@bad/echo', 'mcp__two__whoami', '@good/*']",
                   extra={"two": two},
                   agents={"bare.md": "---\nname: bare\ntools: [whoami]\n---\n"})
    proj.connect()
    assert set(proj.servers["state"]) == {"connected"}
    with pytest.raises(tk.DefinitionError, match=r"'whoami', which is ambiguous.*@bad/whoami, "
                                                 r"@two/whoami") as exc:
        proj.start("bare")
    assert exc.value.problems[0].file == "bare.md"
    s = proj.start("a")
    assert s.call("mcp__two__whoami", {}).text == "two"  # the qualified name picks its server
    for name in ("whoami", "@bad/whoami", "echo"):  # ambiguous or not granted
        with pytest.raises(tk.ToolNotFoundError):
            s.call(name, {})
    _good_still_works(proj, s)
    blocked = [e["requested_tool"] for e in _events(proj, "call") if e["outcome"] == "blocked"]
    assert blocked == ["whoami", "@bad/whoami", "echo"]
    assert _close_and_count_orphans(proj) == []


def test_die_during_teardown_leaves_no_orphan_grandchild(
        project: Callable[..., tk.Project], tmp_path: Path) -> None:
    pid_file = tmp_path / "helper.pid"
    proj = project({**raw("die-teardown"), "env": {"FAULT_PID_FILE": str(pid_file)}})
    proj.connect()
    s = proj.start("a")
    assert s.call("@bad/echo", {"text": "x"}).text == "x"
    _good_still_works(proj, s)
    helper = int(pid_file.read_text())
    assert alive(helper) and helper in descendants()
    log_path = Path(proj.servers.loc["bad", "log"])
    assert _close_and_count_orphans(proj) == []
    # The server exited on stdin EOF without ending its child: toolkit ends the whole group,
    # so the child is not left running, reparented to init (where descendants() can't see it).
    deadline = time.monotonic() + 10
    while alive(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(helper)
    assert "dying during teardown" in log_path.read_text()
    assert {e["server"] for e in _events(proj, "teardown") if e.get("server")} == {"bad", "good"}


def test_slow_ping_turns_yellow_and_is_audited(project: Callable[..., tk.Project]) -> None:
    health = {"intervalSeconds": 0.2, "slowSeconds": 0.1}
    proj = project({**raw("slow-ping", "0.3"), "healthCheck": health},
                   extra={"good": {**raw("ok"), "healthCheck": health}})
    status = proj.connect()
    assert status.loc["bad", "health"] == "green"  # not pinged yet
    deadline = time.monotonic() + 10
    while proj.servers.loc["bad", "health"] != "yellow" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proj.servers.loc["bad", "health"] == "yellow"
    assert proj.servers.loc["bad", "state"] == "connected"  # slow is not down
    assert proj.servers.loc["good", "health"] == "green"
    s = proj.start("a")
    _good_still_works(proj, s)
    changes = [e for e in _events(proj, "server-health") if e["server"] == "bad"]
    assert changes and changes[0]["outcome"] == "yellow"
    assert "green -> yellow" in changes[0]["reason"]
    assert not any(e["server"] == "good" for e in _events(proj, "server-health"))
    assert os.getpid() not in descendants()
    assert _close_and_count_orphans(proj) == []
