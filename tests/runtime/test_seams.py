"""The runtime's seams: a Session and a ServerManager driven by small owners, no Project.

``toolkit.runtime.protocols`` says what each needs from its owner. The owners
here implement exactly that and nothing more; the calls they run are real
(built-in tools on real files, an MCP server in a real process), so these tests
show that ``session.py`` and ``servers.py`` work on their own.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

import anyio
import pytest

import toolkit as tk
from tests.support.faults import HERE as FAULTS
from tests.support.procs import descendants, wait_no_descendants
from toolkit.core.models import AgentDefinition, Request, ServerConfig, Tool
from toolkit.core.pool import ToolPool
from toolkit.core.resolve import Grant, Lineage
from toolkit.policy import Policy
from toolkit.runtime.audit import AuditLog
from toolkit.runtime.builtins import CallResult, run_builtin
from toolkit.runtime.loop import background_loop
from toolkit.runtime.protocols import Approval, ServerOwner, SessionOwner
from toolkit.runtime.servers import ServerManager
from toolkit.runtime.session import Session
from toolkit.systems.load import load_definitions

TOOLS = """
tool:
  fs_read:
    builtinPolicy: {name: fs_read, allowedPaths: [workspace]}
    group: [read-only]
    state: reviewed
  fs_write:
    builtinPolicy: {name: fs_write, allowedPaths: [workspace]}
    group: [write]
    available_in_states: [reviewed]
"""


class Host:
    """The smallest session owner: a core ``Policy`` for grants, an audit log, built-ins
    run in a worker thread. It keeps what it hears so the test can read it back."""

    def __init__(self, policy: Policy, base: Path) -> None:
        self.policy = policy
        self.base = base
        self.audit_log = AuditLog()
        self.call_timeout: float | None = None
        self.approval: Approval | None = None
        self.open = True
        self.events: list[tuple[str, ...]] = []
        self.inflight = 0
        self.most_inflight = 0

    @property
    def agents(self) -> Mapping[str, AgentDefinition]:
        return self.policy.agents

    def start(self, agent: str, groups: tuple[str, ...]) -> Session:
        session = Session(self, agent, Request(groups=groups), self.policy.grant(agent), agent)
        self.session_opened(session)
        return session

    def check_open(self) -> None:
        if not self.open:
            raise tk.ToolkitError("the host was shut down")

    def child_grant(self, agent: str, lineage: Lineage, *,
                    pool: ToolPool | None = None) -> Grant:
        return self.policy.child_grant(agent, lineage, pool=pool)

    async def execute(self, session: Session, tool: Tool, args: dict[str, Any],
                      timeout: float | None = None) -> CallResult:
        return await anyio.to_thread.run_sync(run_builtin, tool, args, self.base)

    def audit_call(self, session: Session, tool: str, canonical: str | None, outcome: str,
                   reason: str, **extra: Any) -> None:
        self.audit_log.record("call", agent_id=session.id, tool=canonical or tool,
                              state=session.state, outcome=outcome, reason=reason, **extra)

    def inflight_changed(self, session: Session, delta: int) -> None:
        self.inflight += delta
        self.most_inflight = max(self.most_inflight, self.inflight)

    def refuse(self, session: Session, message: str, *, escalation: bool = False) -> NoReturn:
        self.audit_log.record("access-denied", agent_id=session.id, outcome="refused",
                              reason=message, escalation=escalation)
        raise tk.AccessDeniedError(message)

    def session_opened(self, session: Session) -> None:
        self.events.append(("opened", session.id))

    def session_transitioned(self, session: Session, tool: str, old: str, new: str,
                             in_state_s: float) -> None:
        self.events.append(("transition", session.id, tool, old, new))

    def session_closed(self, session: Session, in_state_s: float) -> None:
        self.events.append(("closed", session.id))


@pytest.fixture
def host(write: Any) -> Host:
    root = write({"tools.yaml": TOOLS,
                  "agent.md": "---\nname: agent\ntools: ['*']\n---\n",
                  "helper.md": "---\nname: helper\ntools: ['*']\n---\n",
                  "workspace/notes.txt": "seam notes\n"})
    return Host(Policy(load_definitions(root)), root)


def test_a_session_runs_with_a_minimal_owner_and_no_project(host: Host) -> None:
    owner: SessionOwner[Session] = host  # what mypy checks: Host is a complete owner
    session = host.start("agent", groups=("read-only", "write"))
    assert session.project is owner
    assert session.allowed == {"fs_read"}  # fs_write needs state "reviewed"

    # Outside the resolved set: fails like an unknown tool, audited, never executed.
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: fs_write"):
        session.call("fs_write", {"path": "workspace/out.txt", "content": "early"})
    assert not (host.base / "workspace" / "out.txt").exists()
    blocked = host.audit_log.events[-1]
    assert (blocked["tool"], blocked["outcome"]) == ("fs_write", "blocked")

    # A real built-in call through the owner's execute(); its state becomes the session's.
    result = session.call("fs_read", {"path": "workspace/notes.txt"})
    assert (result.is_error, result.text) == (False, "seam notes\n")
    assert ("transition", "agent", "fs_read", "undefined", "reviewed") in host.events
    assert session.state == "reviewed" and "fs_write" in session.allowed
    written = session.call("fs_write", {"path": "workspace/out.txt", "content": "after"})
    assert not written.is_error
    assert (host.base / "workspace" / "out.txt").read_text() == "after"
    assert [(e["tool"], e["outcome"]) for e in host.audit_log.events] == [
        ("fs_write", "blocked"), ("fs_read", "allowed"), ("fs_write", "allowed")]
    assert (host.inflight, host.most_inflight) == (0, 1)

    # Spawning asks the owner for the child's grant; widening goes through its refuse().
    child = session.spawn("helper", groups=["read-only"])
    assert child.allowed == {"fs_read"} and ("opened", "agent.helper") in host.events
    with pytest.raises(tk.AccessDeniedError, match="beyond its parent"):
        session.spawn("helper", groups=["admin"])
    assert host.audit_log.events[-1]["event"] == "access-denied"

    session.close()
    assert [e for e in host.events if e[0] == "closed"] == [("closed", "agent.helper"),
                                                           ("closed", "agent")]


def test_a_session_asks_its_owner_whether_it_may_still_run(host: Host) -> None:
    session = host.start("agent", groups=("read-only",))
    host.open = False
    with pytest.raises(tk.ToolkitError, match="the host was shut down"):
        session.call("fs_read", {"path": "workspace/notes.txt"})
    assert host.audit_log.events == []  # refused before anything was audited or run


class ServerHost:
    """The smallest server owner: configs, a folder, an audit log, and an ear for tools."""

    def __init__(self, configs: dict[str, ServerConfig], base: Path) -> None:
        self.server_configs = configs
        self.base_dir = base
        self.audit_log = AuditLog()
        self.changes: list[dict[str, list[str] | None]] = []

    def check_open(self) -> None:
        """Never closed (the manager's own shutdown is what the test checks)."""

    def server_tools_changed(self, servers: Mapping[str, Iterable[Tool] | None]) -> None:
        self.changes.append({name: None if tools is None else sorted(t.name for t in tools)
                             for name, tools in servers.items()})


def test_a_server_manager_runs_with_a_minimal_owner_and_no_project(tmp_path: Path) -> None:
    raw = str(FAULTS / "raw.py")
    host = ServerHost({
        "ok": ServerConfig(name="ok", command=sys.executable, args=(raw, "ok")),
        "hang": ServerConfig(name="hang", command=sys.executable, args=(raw, "hang-init"),
                             startup_timeout=3),  # room for a loaded machine to start it
    }, tmp_path)
    owner: ServerOwner = host  # what mypy checks: ServerHost is a complete owner
    manager = ServerManager(owner)
    try:
        manager.connect()
        status = manager.status()
        assert status.loc["ok", "state"] == "connected", status.loc["ok", "last_error"]
        # A holder that never reports started() raises to its starter; the rest carry on.
        assert status.loc["hang", "state"] == "failed"
        assert "no answer within the 3 s startup timeout" in str(status.loc["hang", "last_error"])
        assert host.changes == [{"ok": ["@ok/crash", "@ok/echo"], "hang": None}]
        answer = background_loop().run(manager.call, "ok", "echo", {"text": "through the seam"})
        assert answer.text == "through the seam"
        assert {e["event"] for e in host.audit_log.events} >= {"server-connected",
                                                              "server-failure"}
        assert descendants()
    finally:
        manager.shutdown()
    assert host.changes[-1] == {"ok": None, "hang": None}
    assert wait_no_descendants() == []
    with pytest.raises(tk.ToolkitError, match="shut down"):
        manager.connect(["ok"])
