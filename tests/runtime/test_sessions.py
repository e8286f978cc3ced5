"""Sessions without I/O: ids, depth, spawn inheritance, users, snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk


@pytest.fixture
def mux(examples: Path) -> tk.Project:
    return tk.load(examples / "mux")


@pytest.fixture
def trustgraph(examples: Path) -> tk.Project:
    return tk.load(examples / "trustgraph")


def test_root_session_id_is_agent_name_and_children_are_hierarchical(mux: tk.Project) -> None:
    root = mux.start("orchestrator")
    assert (root.id, root.depth) == ("orchestrator", 0)
    coder = root.spawn("coder")
    tester = coder.spawn("tester")
    assert (coder.id, coder.depth) == ("orchestrator.coder", 1)
    assert (tester.id, tester.depth) == ("orchestrator.coder.tester", 2)


def test_second_same_named_child_gets_suffix(mux: tk.Project) -> None:
    root = mux.start("orchestrator")
    ids = [root.spawn("researcher").id for _ in range(3)]
    assert ids == ["orchestrator.researcher", "orchestrator.researcher.2",
                   "orchestrator.researcher.3"]


def test_child_inherits_request_and_may_narrow_groups(trustgraph: tk.Project) -> None:
    root = trustgraph.start("react-agent", groups=["read-only", "knowledge"])
    child = root.spawn("react-agent")
    assert child.groups == ("read-only", "knowledge") and child.state == "undefined"
    narrow = root.spawn("react-agent", groups=["read-only"])
    assert narrow.allowed == {"knowledge-query", "text-completion"} & root.allowed
    assert narrow.groups == ("read-only",)


def test_child_may_not_widen_groups(trustgraph: tk.Project) -> None:
    root = trustgraph.start("react-agent", groups=["read-only"])
    with pytest.raises(tk.AccessDeniedError, match="beyond its parent"):
        root.spawn("react-agent", groups=["read-only", "admin"])
    assert root.children == []


def test_user_groups_gate_the_request(trustgraph: tk.Project) -> None:
    with pytest.raises(tk.AccessDeniedError, match="'user-a' may not request groups"):
        trustgraph.start("react-agent", groups=["write"], user="user-a")
    session = trustgraph.start("react-agent", groups=["read-only"],
                               user=tk.User("user-a", groups=["read-only"]))
    assert session.user is not None and session.user.name == "user-a"
    with pytest.raises(tk.AccessDeniedError, match="unknown user"):
        trustgraph.start("react-agent", user="mallory")


def test_resolve_with_parent_session_applies_ceiling(mux: tk.Project) -> None:
    root = mux.start("orchestrator")
    coder = root.spawn("coder")
    assert mux.resolve("tester", parent=coder).allowed == {"read_file", "write_file", "bash"}
    decision = mux.explain("tester", "task", parent=coder)
    assert decision.reason == "ceiling" and not decision.allowed


def test_session_pool_snapshot_is_fixed(mux: tk.Project) -> None:
    session = mux.start("code-agent")
    before = session.allowed
    mux.set_server_tools("gh", [tk.Tool(name="@gh/search_code", server="gh",
                                        remote_name="search_code", source="mcp:gh")])
    assert session.allowed == before
    assert "@gh/search_code" not in session.pool
    assert "@gh/search_code" in mux.tools
    assert "@gh/search_code" in mux.start("orchestrator").pool


def test_transition_changes_allowed_set(trustgraph: tk.Project) -> None:
    session = trustgraph.start("react-agent", groups=["*"])
    assert "graph-update" not in session.allowed
    session.transition("analysis", "knowledge-query")
    assert session.state == "analysis"
    assert "graph-update" in session.allowed
    assert session.history[-1] == {"event": "transition", "tool": "knowledge-query",
                                   "from": "undefined", "to": "analysis"}


def test_close_ends_children_and_switch_replaces_active(mux: tk.Project) -> None:
    root = mux.start("orchestrator")
    child = root.spawn("coder")
    assert mux.active is root
    new = mux.switch("researcher")
    assert root.closed and child.closed and mux.active is new
    with pytest.raises(tk.ToolkitError, match="closed"):
        root.spawn("coder")
    with mux:
        pass
    assert new.closed


def test_registry_tool_binds_to_server_tool_of_its_name(mux: tk.Project) -> None:
    mux.set_server_tools("gh", [tk.Tool(name="@gh/github_create_issue", server="gh",
                                        remote_name="github_create_issue", source="mcp:gh",
                                        description="Open an issue (server)")])
    tool = mux.tools["github_create_issue"]
    assert tool.binding == "@gh/github_create_issue"
    assert "@gh/github_create_issue" not in mux.tools  # one tool, not two
    assert tool.description == "Open a GitHub issue"  # the registry's words win
    assert mux.explain("code-agent", "mcp__gh__github_create_issue").canonical == \
        "github_create_issue"


def test_call_timeout_comes_from_the_manifest_and_is_checked(tmp_path: Path) -> None:
    def project(manifest: str | None) -> Path:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        root.mkdir()
        (root / "a.md").write_text("---\nname: a\ntools: ['*']\n---\n")
        if manifest is not None:
            (root / "toolkit.yaml").write_text(manifest)
        return root

    assert tk.load(project("call_timeout: 2.5\n")).call_timeout == 2.5
    assert tk.load(project(None)).call_timeout is None
    with pytest.raises(tk.DefinitionError, match=r"toolkit.yaml:2: .*call_timeout") as err:
        tk.load(project("preset: strict\ncall_timeout: -1\n"))
    assert "greater than 0" in str(err.value)


def test_a_bad_call_timeout_is_a_clear_error_before_anything_runs(trustgraph: tk.Project
                                                                   ) -> None:
    session = trustgraph.start("react-agent", groups=["*"])
    for bad in (0, -1, "5", True, float("nan")):
        with pytest.raises(ValueError, match="a call timeout must be a positive number"):
            session.call("knowledge-query", {"query": "x"}, timeout=bad)  # type: ignore[arg-type]
    trustgraph.call_timeout = -2  # a bad project default is caught the same way
    with pytest.raises(ValueError, match=r"not -2\b"):
        session.call("knowledge-query", {"query": "x"})
    assert not [e for e in trustgraph.audit_log.events if e["event"] == "call"]

