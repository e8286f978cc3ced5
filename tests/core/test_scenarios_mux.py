"""Scenarios of the mux agent tool registration design (seed 004).

The shipped example ``toolkit/examples/mux`` is the design's multi-agent system:
one shared registry (``tools.yaml``), the ``orchestrator`` (``AllowedTools``
spelling), its children ``researcher`` and ``coder`` (``allowed_tools`` /
``denied_tools`` spelling), the nested ``tester`` (no allowed list),
``code-agent`` from the MCP integration example, and ``productivity`` whose
``email_send`` goes through mux's ``ApprovalFunc``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]

REGISTRY = {"task", "read_file", "write_file", "bash", "rm_rf", "github_create_issue",
            "email_send", "calendar_list"}


@pytest.fixture
def proj(examples: Path) -> tk.Project:
    return tk.load(examples / "mux")


def small(write: Write, agents: dict[str, str]) -> tk.Project:
    files = {
        "toolkit.yaml": "preset: mux\n",
        "tools.yaml": "tool:\n  a: {}\n  b: {}\n  c: {}\n  d: {}\n",
    }
    files.update({f"agents/{name}.yaml": body for name, body in agents.items()})
    return tk.load(write(files))


# -- Tool filtering: FilteredRegistry.isAllowed ---------------------------------------------------

def test_allowed_tools_filter_the_shared_registry(proj: tk.Project) -> None:
    assert proj.resolve("orchestrator").allowed == {"task", "read_file", "write_file", "bash"}
    assert proj.resolve("code-agent").allowed == {"read_file", "github_create_issue"}
    d = proj.explain("code-agent", "bash")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "allow")
    ok = proj.explain("orchestrator", "bash")
    assert ok.allowed and (ok.rule.file, ok.rule.line) == ("agents/orchestrator.yaml", 2)


def test_denied_always_wins(write: Write) -> None:
    proj = small(write, {"agent": "name: agent\nallowed_tools: [a, b]\ndenied_tools: [b]\n"})
    assert proj.resolve("agent").allowed == {"a"}
    d = proj.explain("agent", "b")
    assert (d.allowed, d.effect, d.reason) == (False, "explicit-deny", "deny")
    assert (d.rule.file, d.rule.line) == ("agents/agent.yaml", 3)


def test_denied_wins_over_empty_allowed(write: Write) -> None:
    # Empty allowed = all allowed, but the deny list still takes precedence.
    proj = small(write, {"agent": "name: agent\nallowed_tools: []\ndenied_tools: [c]\n"})
    assert proj.resolve("agent").allowed == {"a", "b", "d"}
    assert proj.explain("agent", "c").effect == "explicit-deny"


def test_empty_allowed_tools_means_all_at_root(proj: tk.Project, write: Write) -> None:
    # tester has no AllowedTools; started as a root agent it has the whole registry.
    assert proj.resolve("tester").allowed == REGISTRY
    written_empty = small(write, {"agent": "name: agent\nAllowedTools: []\n"})
    assert written_empty.resolve("agent").allowed == {"a", "b", "c", "d"}


# -- Agent hierarchy: inheritance rules -----------------------------------------------------------

def test_empty_allowed_tools_inherit_parent(proj: tk.Project) -> None:
    root = proj.start("orchestrator")
    coder = root.spawn("coder")
    tester = coder.spawn("tester")
    # "Inherits coder's tools" (coder: read_file, write_file, bash).
    assert coder.allowed == {"read_file", "write_file", "bash"}
    assert tester.allowed == coder.allowed
    assert proj.resolve("tester", parent=coder).allowed == {"read_file", "write_file", "bash"}
    # ... not the registry's, and not the grandparent's.
    d = proj.explain("tester", "task", parent=coder)
    assert (d.allowed, d.reason) == (False, "ceiling")


def test_empty_allowed_tools_written_empty_inherit_parent(write: Write) -> None:
    proj = small(write, {
        "parent": "name: parent\nallowed_tools: [a, b]\n",
        "child": "name: child\nallowed_tools: []\n",
    })
    child = proj.start("parent").spawn("child")
    assert child.allowed == {"a", "b"}


def test_denied_tools_accumulate(proj: tk.Project) -> None:
    root = proj.start("orchestrator")
    coder = root.spawn("coder")
    # tester "inherits denied: [rm_rf]": explicitly denied by the coder's rule.
    d = proj.explain("tester", "rm_rf", parent=coder)
    assert (d.allowed, d.effect, d.reason) == (False, "explicit-deny", "deny")
    assert (d.rule.file, d.rule.line) == ("agents/coder.yaml", 3)


def test_denied_tools_accumulate_union_of_parent_and_child(write: Write) -> None:
    proj = small(write, {
        "parent": "name: parent\nallowed_tools: [a, b, c, d]\ndenied_tools: [a]\n",
        "child": "name: child\ndenied_tools: [b]\n",
        "grandchild": "name: grandchild\ndenied_tools: [c]\n",
    })
    parent = proj.start("parent")
    child = parent.spawn("child")
    assert child.allowed == {"c", "d"}
    for tool, owner in (("a", "parent"), ("b", "child")):
        d = proj.explain("child", tool, parent=parent)
        assert (d.effect, d.reason) == ("explicit-deny", "deny"), tool
        assert d.rule.file == f"agents/{owner}.yaml"
    grandchild = child.spawn("grandchild")
    assert grandchild.allowed == {"d"}
    d = proj.explain("grandchild", "a", parent=child)
    assert (d.effect, d.rule.file) == ("explicit-deny", "agents/parent.yaml")


def test_child_cannot_allow_tools_parent_lacks(proj: tk.Project) -> None:
    # researcher holds read_file only; coder asks for write_file and bash too.
    researcher = proj.start("researcher")
    with pytest.raises(tk.SpawnError) as exc:
        researcher.spawn("coder")
    assert "write_file" in str(exc.value) or "bash" in str(exc.value)
    assert researcher.children == []
    with pytest.raises(tk.SpawnError):
        proj.resolve("coder", parent=researcher)


def test_child_cannot_allow_tools_parent_denies(write: Write) -> None:
    # The parent's resolved set lacks d (its own deny removes it); a child whose
    # AllowedTools names d asks for a tool its parent does not have, which
    # validateChildTools rejects before the deny lists are merged.
    proj = small(write, {
        "parent": "name: parent\ndenied_tools: [d]\n",
        "child": "name: child\nallowed_tools: [a, d]\n",
    })
    with pytest.raises(tk.SpawnError):
        proj.start("parent").spawn("child")


def test_hierarchical_ids(proj: tk.Project) -> None:
    orch = proj.start("orchestrator")
    researcher = orch.spawn("researcher")
    coder = orch.spawn("coder")
    tester = coder.spawn("tester")
    assert orch.id == "orchestrator"
    assert researcher.id == "orchestrator.researcher"
    assert coder.id == "orchestrator.coder"
    assert tester.id == "orchestrator.coder.tester"
    assert (orch.depth, coder.depth, tester.depth) == (0, 1, 2)


def test_second_same_named_child_gets_suffix(proj: tk.Project) -> None:
    orch = proj.start("orchestrator")
    first = orch.spawn("researcher")
    second = orch.spawn("researcher")
    third = orch.spawn("researcher")
    assert (first.id, second.id, third.id) == (
        "orchestrator.researcher", "orchestrator.researcher.2", "orchestrator.researcher.3")
    # A same-named child of another parent starts again without a suffix.
    coder = orch.spawn("coder")
    assert coder.spawn("tester").id == "orchestrator.coder.tester"


def test_multi_agent_system_example(proj: tk.Project) -> None:
    orch = proj.start("orchestrator")
    assert orch.allowed == {"task", "read_file", "write_file", "bash"}
    assert orch.spawn("researcher").allowed == {"read_file"}
    coder = orch.spawn("coder")
    assert coder.allowed == {"read_file", "write_file", "bash"}
    assert coder.spawn("tester").allowed == {"read_file", "write_file", "bash"}


def test_no_depth_limit(write: Write) -> None:
    # mux has no max depth and does not strip coordination tools.
    proj = tk.load(write({
        "toolkit.yaml": "preset: mux\n",
        "tools.yaml": "tool:\n  task: {}\n  spawn_agents: {}\n  a: {}\n",
        "agents/agent.yaml": "name: agent\nallowed_tools: [a, task, spawn_agents]\n",
    }))
    session = proj.start("agent")
    for _ in range(5):
        session = session.spawn("agent")
    assert session.depth == 5
    assert session.allowed == {"a", "task", "spawn_agents"}


# -- Permission hooks: ApprovalFunc ---------------------------------------------------------------

def test_approval_func_is_asked_before_the_call(proj: tk.Project) -> None:
    assert proj.resolve("productivity").allowed == {"email_send", "calendar_list"}
    d = proj.explain("productivity", "email_send")
    assert (d.allowed, d.effect, d.reason) == (True, "ask", "approval")
    assert proj.explain("productivity", "calendar_list").effect == "allow"
    session = proj.start("productivity")
    asked: list[str] = []

    def approval(tool: str, args: dict[str, object]) -> bool:
        asked.append(tool)
        return False

    session.approval = approval
    with pytest.raises(tk.AccessDeniedError):
        session.call("email_send", {"to": "a@example.com"})
    assert asked == ["email_send"]
