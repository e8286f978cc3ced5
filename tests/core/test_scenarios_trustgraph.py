"""Scenarios of the TrustGraph tool group system specification v1.0 (seed 003).

The shipped example ``toolkit/examples/trustgraph`` holds section 5.1's tool
configuration verbatim and one agent, ``react-agent``, that holds every tool,
so requests narrow its tool set by group and state alone. Expected values come
from the rule of section 4.2::

    available  <=>  (tool_groups ∩ requested_groups ≠ ∅  or  "*" ∈ requested_groups)
               and  (current_state ∈ tool_states  or  "*" ∈ tool_states)

with ``tool_groups`` defaulting to ["default"], ``tool_states`` to ["*"],
``requested_groups`` to ["default"] and ``current_state`` to "undefined".
Where a worked example of the document disagrees with this rule, the rule wins
and the test named ``*_contradicts_rule_*`` shows the disagreement.

Tool calls run for real: the example's ``.mcp.json`` starts the shipped demo
MCP server, whose ``knowledge-query``, ``graph-update``, ... implement these
tools over an in-memory graph, and each registry entry binds to the server
tool of its name. The ``run`` fixture connects it and reports which tools were
executed (from the audit), so state transitions happen as section 4.2
describes ("after successful tool execution").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk

Write = Callable[..., Path]

KQ, GU, TC, CA, RW = ("knowledge-query", "graph-update", "text-completion", "complex-analysis",
                      "reset-workflow")
ALL = {KQ, GU, TC, CA, RW}
AGENT = "react-agent"


@pytest.fixture
def proj(examples: Path) -> tk.Project:
    return tk.load(examples / "trustgraph")


class Executed:
    """The tools the demo server executed successfully, read from the audit trail."""

    def __init__(self, proj: tk.Project) -> None:
        self.proj = proj

    def __eq__(self, other: object) -> bool:
        return [e["tool"] for e in self.proj.audit_log.events
                if e["event"] == "call" and e["outcome"] == "allowed"] == other

    __hash__ = None  # type: ignore[assignment]


@pytest.fixture
def run(proj: tk.Project) -> Iterator[Executed]:
    """Connect the demo MCP server that executes the TrustGraph tools."""
    status = proj.connect()
    assert status.loc["trustgraph", "state"] == "connected", status.loc["trustgraph",
                                                                          "last_error"]
    assert proj.tools[KQ].binding == "@trustgraph/knowledge-query"
    yield Executed(proj)
    proj.close()


#: Valid arguments for each tool of the demo server.
ARGS: dict[str, dict[str, Any]] = {
    "knowledge-query": {"query": "Acme"},
    "graph-update": {"kind": "entity", "name": "Company X", "entity_type": "company"},
    "text-completion": {"prompt": "Summarise Acme Robotics."},
    "complex-analysis": {},
    "reset-workflow": {},
}


def allowed(proj: tk.Project, groups: Any = None, state: str | None = None) -> set[str]:
    return set(proj.resolve(AGENT, groups=groups, state=state).allowed)


# -- Section 2.2 / 4.2 / 9.1: the filtering logic --------------------------------------------------

def test_group_intersection(proj: tk.Project) -> None:
    # At least one shared group suffices; requested groups are a union, not a conjunction.
    assert allowed(proj, ["basic"]) == {KQ, TC}
    assert allowed(proj, ["text"]) == {TC}
    assert allowed(proj, ["expensive"], "analysis") == {CA}
    assert allowed(proj, ["write", "expensive"], "analysis") == {GU, CA}
    d = proj.explain(AGENT, GU, groups=["read-only"], state="analysis")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "group")
    assert (d.rule.file, d.rule.line) == ("tools.yaml", 15)  # graph-update's group line


def test_group_names_are_case_sensitive(proj: tk.Project) -> None:
    assert allowed(proj, ["Knowledge", "READ-ONLY"]) == set()
    assert allowed(proj, ["knowledge"]) == {KQ}


def test_wildcard_group(proj: tk.Project) -> None:
    # "*" grants every group; the state filter still applies.
    assert allowed(proj, ["*"], "analysis") == {GU, TC, CA, RW}
    assert allowed(proj, ["*"], "results") == {TC, RW}
    assert allowed(proj, ["read-only", "*"], "analysis") == {GU, TC, CA, RW}
    d = proj.explain(AGENT, RW, groups=["*"], state="results")
    assert (d.allowed, d.effect) == (True, "allow")


def test_empty_group_array(proj: tk.Project) -> None:
    # An empty group array: no tools at all (internal reasoning only), in every state.
    for state in ("undefined", "analysis", "results"):
        assert allowed(proj, [], state) == set()
    d = proj.explain(AGENT, TC, groups=[])
    assert (d.allowed, d.reason) == (False, "group")
    # ... and the agent handles "no tools available": every call fails as not found.
    session = proj.start(AGENT, groups=[])
    assert session.allowed == frozenset()
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: text-completion"):
        session.call(TC, ARGS[TC])


def test_default_group(write: Write) -> None:
    root = write({
        "toolkit.yaml": "preset: trustgraph\n",
        "tools.yaml": """
            tool:
              plain-tool: {description: "no group field"}
              tagged-tool: {group: [special]}
              explicit-default: {group: [default, special]}
        """,
        "agents/agent.md": "---\nname: agent\n---\n",
    })
    proj = tk.load(root)
    assert proj.tools["plain-tool"].groups == ("default",)
    # A request without a group field uses ["default"].
    assert set(proj.resolve("agent").allowed) == {"plain-tool", "explicit-default"}
    assert set(proj.resolve("agent", groups=["special"]).allowed) == {
        "tagged-tool", "explicit-default"}


def test_default_group_with_section_5_tools(proj: tk.Project) -> None:
    # Every tool of section 5.1 has explicit groups, none "default": a request
    # without groups gets none of them.
    assert allowed(proj) == set()


def test_default_state_is_undefined(proj: tk.Project) -> None:
    assert allowed(proj, ["*"]) == allowed(proj, ["*"], "undefined") == {KQ, TC}
    session = proj.start(AGENT, groups=["*"])
    assert session.state == "undefined"


@pytest.mark.parametrize(("state", "expected"), [
    ("undefined", {KQ, TC}),
    ("research", {KQ, TC}),
    ("analysis", {GU, TC, CA, RW}),
    ("modification", {GU, TC}),
    ("results", {TC, RW}),
])
def test_state_based_filtering(proj: tk.Project, state: str, expected: set[str]) -> None:
    assert allowed(proj, ["*"], state) == expected


def test_tool_without_available_in_states_is_available_in_all_states(proj: tk.Project) -> None:
    for state in ("undefined", "research", "analysis", "modification", "results"):
        assert TC in allowed(proj, ["text"], state), state


def test_combined_group_and_state_filtering(proj: tk.Project) -> None:
    assert allowed(proj, ["knowledge"], "analysis") == {GU}
    kq = proj.explain(AGENT, KQ, groups=["knowledge"], state="analysis")
    assert (kq.allowed, kq.reason) == (False, "state")
    assert (kq.rule.file, kq.rule.line) == ("tools.yaml", 9)  # knowledge-query's states
    ca = proj.explain(AGENT, CA, groups=["knowledge"], state="analysis")
    assert (ca.allowed, ca.reason) == (False, "group")


def test_undefined_state_prose_contradicts_formula_graph_update(proj: tk.Project) -> None:
    # Section 2.2's prose: 'Default state: "undefined" state allows all tools
    # (subject to group filtering)'. Section 4.2's formula applies
    # available_in_states in "undefined" too, and the formula wins: graph-update
    # (available_in_states [analysis, modification]) is NOT available in
    # "undefined", not even with every group.
    d = proj.explain(AGENT, GU, groups=["*"], state="undefined")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "state")
    assert (d.rule.file, d.rule.line) == ("tools.yaml", 16)
    prose_says = ALL  # "allows all tools" with groups ["*"]
    rule_says = {KQ, TC}
    assert allowed(proj, ["*"], "undefined") == rule_says != prose_says


# -- Section 5.2: the request examples -------------------------------------------------------------

def test_initial_research_request(proj: tk.Project, run: Executed) -> None:
    session = proj.start(AGENT, groups=["read-only", "knowledge"], state="undefined")
    assert session.allowed == {KQ, TC}  # the document: knowledge-query, text-completion
    session.call(KQ, ARGS[KQ])
    assert session.state == "analysis"  # after knowledge-query: state -> "analysis"


def test_analysis_phase_example_contradicts_rule_reset_workflow(proj: tk.Project,
                                                                run: Executed) -> None:
    # The document lists complex-analysis, graph-update, reset-workflow; but
    # reset-workflow's only group, "admin", is not requested, so by the rule
    # of section 4.2 it is not available.
    documented = {CA, GU, RW}
    session = proj.start(AGENT, groups=["advanced", "compute", "write"], state="analysis")
    assert session.allowed == {CA, GU}
    assert session.allowed != documented
    d = proj.explain(AGENT, RW, groups=["advanced", "compute", "write"], state="analysis")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "group")
    assert (d.rule.file, d.rule.line) == ("tools.yaml", 39)  # group: ["admin"]
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: reset-workflow"):
        session.call(RW, ARGS[RW])
    session.call(CA, ARGS[CA])
    assert session.state == "results"  # after complex-analysis: state -> "results"
    assert run == [CA]


def test_results_phase_request(proj: tk.Project, run: Executed) -> None:
    session = proj.start(AGENT, groups=["admin"], state="results")
    assert session.allowed == {RW}  # "reset-workflow only"
    session.call(RW, ARGS[RW])
    assert session.state == "undefined"  # after reset-workflow: state -> "undefined"


def test_complete_flow_workflow_example(proj: tk.Project, run: Executed) -> None:
    # Section 5.2's "Workflow Example - Complete Flow", each step a request with
    # the groups of the request example for that phase; next_request.state = tool.state.
    first = proj.start(AGENT, groups=["read-only", "knowledge"])
    initial = first.allowed
    first.call(KQ, ARGS[KQ])  # 1. Start (undefined): knowledge-query -> "analysis"
    assert first.state == "analysis"
    second = proj.start(AGENT, groups=["advanced", "compute", "write"], state=first.state)
    second.call(CA, ARGS[CA])  # 2. Analysis: complex-analysis -> "results"
    assert second.state == "results"
    third = proj.start(AGENT, groups=["admin"], state=second.state)
    third.call(RW, ARGS[RW])  # 3. Results: reset-workflow -> "undefined"
    assert third.state == "undefined"
    again = proj.start(AGENT, groups=["read-only", "knowledge"], state=third.state)
    assert again.allowed == initial == {KQ, TC}  # 4. All initial tools available again
    assert run == [KQ, CA, RW]


def test_complete_flow_in_one_session_with_all_groups(proj: tk.Project, run: Executed) -> None:
    session = proj.start(AGENT, groups=["*"])
    assert session.allowed == {KQ, TC}
    session.call(KQ, ARGS[KQ])
    assert (session.state, set(session.allowed)) == ("analysis", {GU, TC, CA, RW})
    session.call(CA, ARGS[CA])
    assert (session.state, set(session.allowed)) == ("results", {TC, RW})
    session.call(RW, ARGS[RW])
    assert (session.state, set(session.allowed)) == ("undefined", {KQ, TC})


def test_state_transition_only_after_successful_execution(proj: tk.Project,
                                                          run: Executed) -> None:
    session = proj.start(AGENT, groups=["*"])
    result = session.call(KQ, {})  # the server rejects it: "query" is required
    assert result.is_error
    assert session.state == "undefined"  # no transition after a failed execution
    assert session.call(KQ, ARGS[KQ]).is_error is False
    assert session.state == "analysis"


def test_tool_without_state_leaves_state_unchanged(proj: tk.Project, run: Executed) -> None:
    session = proj.start(AGENT, groups=["write"], state="analysis")
    session.call(GU, ARGS[GU])  # graph-update has no state field
    assert session.state == "analysis"
    assert run == [GU]


def test_request_logging_example_contradicts_rule_graph_update_filtered_by_state(
        proj: tk.Project) -> None:
    # Section 8.2's log lists graph-update under filtered_by_group and nothing
    # under filtered_by_state for groups [read-only, knowledge] in "undefined".
    # By the rule graph-update shares "knowledge" (it passes the group filter)
    # and fails the state filter.
    session = proj.start(AGENT, groups=["read-only", "knowledge"])
    events = [e for e in proj.audit_log.events if e.get("event") == "resolve"
              and e.get("agent_id") == session.id]
    assert len(events) == 1
    event = events[0]
    assert event["requested_groups"] == ["read-only", "knowledge"]
    assert event["state"] == "undefined"
    assert sorted(event["available_tools"]) == sorted([KQ, TC])
    assert sorted(event["filtered_by_group"]) == sorted([CA, RW])
    assert sorted(event["filtered_by_state"]) == [GU]
    assert GU not in event["filtered_by_group"]  # the document's log has it here


# -- Section 9.3: end-to-end scenarios ------------------------------------------------------------

def test_workflow_state_progression_contradicts_rule_reset_workflow(proj: tk.Project,
                                                                    run: Executed) -> None:
    # Given groups ["knowledge", "compute"] and state "undefined".
    groups = ["knowledge", "compute"]
    session = proj.start(AGENT, groups=groups, state="undefined")
    assert session.allowed == {KQ}  # graph-update and complex-analysis: wrong state
    session.call(KQ, ARGS[KQ])
    assert session.state == "analysis"
    # complex-analysis IS available here (group "compute" is requested).
    assert session.allowed == {GU, CA}
    session.call(CA, ARGS[CA])
    assert session.state == "results"
    # The scenario now executes reset-workflow; its only group "admin" is not
    # requested, so the rule blocks it: nothing at all is available in "results".
    assert session.allowed == frozenset()
    d = proj.explain(AGENT, RW, groups=groups, state="results")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "group")
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: reset-workflow"):
        session.call(RW, ARGS[RW])
    # So the final state is "results", not "undefined": the workflow cannot repeat.
    assert session.state == "results"
    assert KQ not in session.allowed
    assert run == [KQ, CA]
    # The transitions that did happen are logged, with timestamps.
    transitions = [e for e in proj.audit_log.events if e.get("event") == "transition"
                   and e.get("agent_id") == session.id]
    assert [(e["tool"], e["from"], e["to"]) for e in transitions] == [
        (KQ, "undefined", "analysis"), (CA, "analysis", "results")]
    assert all(e.get("time") for e in transitions)


def test_multi_tenant_usage_with_state_workflows(proj: tk.Project, run: Executed) -> None:
    user_a = tk.User("user-a", groups=["read-only"])
    user_b = tk.User("user-b", groups=["write"])
    a = proj.start(AGENT, ["read-only"], state="undefined", user=user_a)
    b = proj.start(AGENT, ["write"], state="analysis", user=user_b)
    # User A gets read-only tools available in "undefined".
    assert a.allowed == {KQ, TC}
    # User B gets write tools available in "analysis".
    assert b.allowed == {GU}
    # State transitions are tracked per user session.
    a.call(KQ, ARGS[KQ])
    b.call(GU, ARGS[GU])
    a.call(TC, ARGS[TC])
    assert (a.state, b.state) == ("undefined", "analysis")
    a_moves = [(e["from"], e["to"]) for e in proj.audit_log.events
               if e.get("event") == "transition" and e.get("agent_id") == a.id]
    b_moves = [e for e in proj.audit_log.events
               if e.get("event") == "transition" and e.get("agent_id") == b.id]
    assert a_moves == [("undefined", "analysis"), ("analysis", "undefined")]
    assert b_moves == []
    # All usage is audited, per session.
    audited_calls = {(e.get("agent_id"), e.get("tool")) for e in proj.audit_log.events
                     if e.get("event") == "call" and e.get("outcome") == "allowed"}
    assert audited_calls == {(a.id, KQ), (b.id, GU), (a.id, TC)}
    # Neither user may request groups beyond their permissions.
    with pytest.raises(tk.AccessDeniedError):
        proj.start(AGENT, ["write"], user=user_a)
    with pytest.raises(tk.AccessDeniedError):
        proj.start(AGENT, ["read-only", "write"], user=user_b)


def test_privilege_escalation_prevention(proj: tk.Project) -> None:
    # Section 6.1's gateway: requested groups must be a subset of the user's.
    user = tk.User("user-a", groups=["read-only"])
    before = proj.metrics.total("agent_group_access_denied_total")
    with pytest.raises(tk.AccessDeniedError):
        proj.start(AGENT, ["read-only", "admin"], user=user)
    with pytest.raises(tk.AccessDeniedError):
        proj.start(AGENT, ["*"], user=user)
    assert proj.metrics.total("agent_group_access_denied_total") == before + 2
    refusals = [e for e in proj.audit_log.events if e.get("outcome") == "refused"]
    assert len(refusals) == 2
    assert refusals[0]["requested_groups"] == ["read-only", "admin"]
    # A subset is fine; the manifest's users are usable by name as well.
    assert proj.start(AGENT, ["read-only"], user=user).allowed == {KQ, TC}
    with pytest.raises(tk.AccessDeniedError):
        proj.start(AGENT, ["write"], user="user-a")
    assert proj.start(AGENT, ["*"], state="results", user="admin").allowed == {TC, RW}


# -- Section 3: custom groups; the code's spelling of the state list ------------------------------

def test_custom_groups_map(write: Write) -> None:
    root = write({
        "toolkit.yaml": "preset: trustgraph\n",
        "tools.yaml": """
            tool:
              stock-query: {group: [read-only]}
              portfolio-analysis: {}
              diagnosis-assist: {}
              drug-interaction: {}
              contract-analysis: {}
              case-search: {}
        """,
        "groups.json": """
            {
              "financial-tools": ["stock-query", "portfolio-analysis"],
              "medical-tools": ["diagnosis-assist", "drug-interaction"],
              "legal-tools": ["contract-analysis", "case-search"]
            }
        """,
        "agents/agent.md": "---\nname: agent\n---\n",
    })
    proj = tk.load(root)

    def get(groups: list[str]) -> set[str]:
        return set(proj.resolve("agent", groups=groups).allowed)

    assert get(["financial-tools"]) == {"stock-query", "portfolio-analysis"}
    assert get(["medical-tools"]) == {"diagnosis-assist", "drug-interaction"}
    assert get(["legal-tools", "medical-tools"]) == {
        "contract-analysis", "case-search", "diagnosis-assist", "drug-interaction"}
    # The map adds memberships: stock-query keeps its own group.
    assert get(["read-only"]) == {"stock-query"}
    assert "financial-tools" in proj.tools["stock-query"].groups


def test_applicable_states_spelling(write: Write) -> None:
    root = write({
        "toolkit.yaml": "preset: trustgraph\n",
        "tools.yaml": """
            tool:
              graph-update:
                group: ["write"]
                applicable-states: ["analysis", "modification"]
        """,
        "agents/agent.md": "---\nname: agent\n---\n",
    })
    proj = tk.load(root)
    assert proj.tools["graph-update"].available_in_states == ("analysis", "modification")
    assert set(proj.resolve("agent", groups=["write"], state="analysis").allowed) == {
        "graph-update"}
    d = proj.explain("agent", "graph-update", groups=["write"], state="undefined")
    assert (d.allowed, d.reason) == (False, "state")
    assert (d.rule.file, d.rule.line) == ("tools.yaml", 4)


@pytest.mark.parametrize(("entry", "line"), [
    ("group: 5", 3),
    ("group: [read-only, 7]", 3),
    ("state: [analysis]", 3),
    ("available_in_states: [1, 2]", 3),
    ("available_in_states: [analysis]\n    applicable-states: [analysis]", 4),
])
def test_invalid_group_and_state_specifications_raise(write: Write, entry: str,
                                                      line: int) -> None:
    root = write({
        "toolkit.yaml": "preset: trustgraph\n",
        "tools.yaml": "tool:\n  broken:\n    " + entry + "\n",
        "agents/agent.md": "---\nname: agent\n---\n",
    })
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root)
    assert any(p.file == "tools.yaml" and p.line == line for p in exc.value.problems), (
        exc.value.problems)
