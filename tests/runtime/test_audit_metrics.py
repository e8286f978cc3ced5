"""Audit events (one JSON object each) and the TrustGraph metrics."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]


@pytest.fixture
def proj(write: Write) -> tk.Project:
    root = write({
        "toolkit.yaml": "preset: trustgraph\nusers: {ann: [read-only]}\n",
        "tools.yaml": """
            tool:
              shell_exec:
                group: [read-only]
                state: analysis
                builtinPolicy: {name: shell_exec, allowedCommands: [echo]}
              fs_read: {group: [read-only], available_in_states: [analysis]}
              fs_write: {group: [write], builtinPolicy: {name: fs_write}}
        """,
        "agent.md": "---\nname: agent\nask: [fs_write]\n---\n",
    })
    return tk.load(root)


def test_every_event_is_one_json_line_in_the_file(proj: tk.Project, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    proj.audit_log.write_to(log)
    session = proj.start("agent", groups=["read-only"])
    session.call("shell_exec", {"command": "echo hi"})
    with pytest.raises(tk.ToolNotFoundError):
        session.call("fs_write", {"path": "x", "content": "y"})
    session.close()
    lines = log.read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["event"] for e in events] == ["resolve", "call", "transition", "call", "teardown"]
    for e in events:
        assert {"time", "request_id", "agent_id", "tool", "requested_groups",
                "granted_groups", "state", "outcome", "reason"} <= set(e)
    resolve, allowed, transition, blocked, _ = events
    assert resolve["available_tools"] == ["shell_exec"]
    assert resolve["filtered_by_group"] == ["fs_write"]
    assert resolve["filtered_by_state"] == ["fs_read"]
    assert (allowed["tool"], allowed["outcome"]) == ("shell_exec", "allowed")
    assert (transition["from"], transition["to"], transition["tool"]) == (
        "undefined", "analysis", "shell_exec")
    assert (blocked["tool"], blocked["outcome"], blocked["reason"]) == (
        "fs_write", "blocked", "group")
    assert len({e["request_id"] for e in events}) == 1


def test_transition_refilters_the_next_call(proj: tk.Project) -> None:
    session = proj.start("agent", groups=["read-only"])
    with pytest.raises(tk.ToolNotFoundError):
        session.call("fs_read", {"path": "agent.md"})
    session.call("shell_exec", {"command": "echo go"})
    assert session.state == "analysis"
    assert "name: agent" in session.call("fs_read", {"path": "agent.md"}).text


def test_ask_tool_consults_the_approval_callback(proj: tk.Project) -> None:
    session = proj.start("agent", groups=["write"])
    with pytest.raises(tk.AccessDeniedError, match="needs approval"):
        session.call("fs_write", {"path": "out.txt", "content": "x"})
    asked: list[str] = []
    session.approval = lambda tool, args: asked.append(tool) is None and args["path"] == "ok.txt"
    with pytest.raises(tk.AccessDeniedError, match="not approved"):
        session.call("fs_write", {"path": "out.txt", "content": "x"})
    assert not session.call("fs_write", {"path": "ok.txt", "content": "x"}).is_error
    assert asked == ["fs_write", "fs_write"]
    approvals = proj.audit_log.frame(event="approval")
    assert list(approvals["outcome"]) == ["denied", "approved"]


def test_access_refusal_is_audited_and_counted(proj: tk.Project) -> None:
    with pytest.raises(tk.AccessDeniedError):
        proj.start("agent", groups=["write"], user="ann")
    assert proj.metrics.total("agent_group_access_denied_total") == 1
    assert proj.metrics.total("agent_privilege_escalation_attempts_total") == 1
    refused = proj.audit_log.frame(event="access-denied")
    assert len(refused) == 1 and "may not request groups ['write']" in refused["reason"][0]


def test_metrics_names_values_and_prometheus_text(proj: tk.Project) -> None:
    session = proj.start("agent", groups=["read-only"], state="nowhere")
    session.call("shell_exec", {"command": "echo x"})
    m = proj.metrics
    assert m.value("agent_tool_group_requests_total", group="read-only") == 1
    assert m.value("agent_state_transitions_total", tool="shell_exec") == 1
    assert m.value("agent_invalid_state_transition_total", state="nowhere") == 1
    assert m.value("agent_filtered_tools_count") == 1  # one observation
    assert m.value("agent_state_availability", state="nowhere") == 1
    frame = m.frame()
    assert set(frame["name"]) >= {"agent_tool_group_requests_total",
                                  "agent_state_transitions_total"}
    text = m.prometheus()
    assert '# TYPE agent_tool_group_requests_total counter' in text
    assert 'agent_tool_group_requests_total{group="read-only"} 1' in text
    assert 'agent_filtered_tools_count_bucket{le="+Inf"} 1' in text
    assert 'agent_workflow_duration_seconds_count{state="nowhere"} 1' in text


def test_concurrent_calls_lose_no_audit_line(proj: tk.Project, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    proj.audit_log.write_to(log)
    sessions = [proj.start("agent", groups=["read-only"], state="analysis") for _ in range(4)]

    def work(session: tk.Session) -> None:
        for _ in range(25):
            session.call("fs_read", {"path": "agent.md"})

    threads = [threading.Thread(target=work, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert sum(e["event"] == "call" for e in calls) == 100


def test_audit_as_dataframes_for_project_and_session(proj: tk.Project) -> None:
    parent = proj.start("agent", groups=["read-only"])
    child = parent.spawn("agent")
    child.call("shell_exec", {"command": "echo from-child"})
    assert list(parent.audit["event"]) == ["resolve"]
    assert list(child.audit["event"]) == ["spawn", "call", "transition"]
    assert set(proj.audit["request_id"]) == {parent.request_id}  # the child serves it too
    assert len(proj.audit) == 4


def test_audit_listeners_hear_every_event_and_the_close() -> None:
    """What notebook views follow: each event as recorded, then None when the log closes;
    a listener that raises or returns False is dropped, never the recorder's problem."""
    from toolkit.runtime.audit import AuditLog

    log = AuditLog()
    heard: list[object] = []
    unsubscribe = log.subscribe(heard.append)

    def broken(entry: object) -> None:
        raise RuntimeError("a view bug")

    once: list[object] = []
    log.subscribe(broken)
    log.subscribe(lambda e: (once.append(e), False)[1])  # returns False: dropped after one
    log.record("call", tool="t")
    log.record("call", tool="u")
    assert [e["tool"] for e in heard if isinstance(e, dict)] == ["t", "u"]
    assert len(once) == 1 and len(log._listeners) == 1  # the broken one is gone too
    log.close()
    assert heard[-1] is None
    unsubscribe()
    log.record("call", tool="v")
    assert len(heard) == 3
