"""``tk.diff`` on two small TrustGraph projects whose every changed cell is derived by hand.

The rules used (SPEC: the trustgraph preset): an agent without a ``tools`` list holds every
tool of its project's pool; a request's groups must meet a tool's ``group`` (the default
request is the group ``default``, ``*`` meets every group); a tool with
``available_in_states`` runs only in those states; a tool not in the pool is
``implicit-deny`` (step ``pool``). A diff's contexts are the default request, each group
either version knows alone, and ``*``, in every state either version knows.

    old: t1 read, only in s1   t2 write   t4 read, only in undefined   t5 write
         agents q (tools: [t2]), r, s (every tool)
    new: t1 read, any state    t3 admin, only in s9   t4 read, only in s1
         agents r, p (every tool)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.analysis.diff import COLUMNS, more_permissive

OLD_TOOLS = """\
tool:
  t1:
    group: ["read"]
    available_in_states: ["s1"]
  t2:
    group: ["write"]
  t4:
    group: ["read"]
    available_in_states: ["undefined"]
  t5:
    group: ["write"]
"""
NEW_TOOLS = """\
tool:
  t1:
    group: ["read"]
  t3:
    group: ["admin"]
    available_in_states: ["s9"]
  t4:
    group: ["read"]
    available_in_states: ["s1"]
"""
#: what explain says of a tool the trustgraph preset grants an agent without a tools list
PRESET = "allow list omitted: the trustgraph preset gives every tool of the pool"
DENY, ALLOW, NO_AGENT = "implicit-deny", "allow", "(no agent)"


def project(root: Path, tools: str, agents: dict[str, str]) -> Path:
    (root / "agents").mkdir(parents=True)
    (root / "toolkit.yaml").write_text("preset: trustgraph\n")
    (root / "tools.yaml").write_text(tools)
    for name, extra in agents.items():
        (root / "agents" / f"{name}.md").write_text(f"---\nname: {name}\n{extra}---\n")
    return root


@pytest.fixture
def versions(tmp_path: Path) -> tuple[tk.Project, tk.Project]:
    old = project(tmp_path / "old", OLD_TOOLS, {"q": "tools: [t2]\n", "r": "", "s": ""})
    new = project(tmp_path / "new", NEW_TOOLS, {"r": "", "p": ""})
    return tk.load(old), tk.load(new)


def cells(d: tk.PolicyDiff) -> set[tuple[str, str, str, str, str, str]]:
    c = d.changes
    return set(zip(c["agent"], c["tool"], c["groups"], c["state"], c["before"], c["after"],
                   strict=True))


#: agent r's changed cells: (agent, tool, groups, state, before, after)
R_CELLS = {
    # t1 now runs in every state: in read / * it is granted in s9 and undefined too
    *{("r", "t1", g, s, DENY, ALLOW) for g in ("read", "*") for s in ("s9", "undefined")},
    # t2 and t5 left the pool: granted before in write / *, every state
    *{("r", t, g, s, ALLOW, DENY) for t in ("t2", "t5") for g in ("write", "*")
      for s in ("s1", "s9", "undefined")},
    # t3 is new, admin only, s9 only
    *{("r", "t3", g, "s9", DENY, ALLOW) for g in ("admin", "*")},
    # t4 moved from undefined to s1 (in s9 it is denied by both)
    *{("r", "t4", g, "s1", DENY, ALLOW) for g in ("read", "*")},
    *{("r", "t4", g, "undefined", ALLOW, DENY) for g in ("read", "*")},
}


def test_agents_selects_the_agents_compared(versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"])
    assert d.agents == ["r"]
    assert cells(d) == R_CELLS and len(d.changes) == len(R_CELLS)


def test_contexts_cover_every_group_and_state_either_version_knows(
        versions: tuple[tk.Project, tk.Project]) -> None:
    """States s1 (old and new), s9 (new only), undefined; groups admin (new only), read,
    write (old only): all of them, not only those both versions know."""
    d = tk.diff(*versions, agents=["r"])
    assert d.states == ["s1", "s9", "undefined"]
    assert d.groups == [("default",), ("admin",), ("read",), ("write",), ("*",)]
    assert {("t3", "s9"), ("t1", "s9")} <= {(t, s) for _, t, _, s, _, _ in cells(d)}
    assert {("t2", "write"), ("t3", "admin")} <= {(t, g) for _, t, g, _, _, _ in cells(d)}


def test_each_side_is_explained_in_the_cells_own_groups_and_state(
        versions: tuple[tk.Project, tk.Project]) -> None:
    c = tk.diff(*versions, agents=["r"]).changes.set_index(["tool", "groups", "state"])
    rows = ["rule_before", "reason_before", "rule_after", "reason_after"]
    # t1 in read / s9: the old version denied it on its state, not its groups
    assert c.loc[("t1", "read", "s9"), rows].tolist() == [
        "available_in_states: s1 (tools.yaml:4)", "state", PRESET, "allow"]
    # t4 in read / s1: denied before on the state (only in undefined), granted now
    assert c.loc[("t4", "read", "s1"), rows].tolist() == [
        "available_in_states: undefined (tools.yaml:9)", "state", PRESET, "allow"]
    # t4 in read / undefined: the other way round
    assert c.loc[("t4", "read", "undefined"), rows].tolist() == [
        PRESET, "allow", "available_in_states: s1 (tools.yaml:9)", "state"]
    # t2 left the pool: what explain says of a name the pool does not hold, no location
    assert c.loc[("t2", "write", "s1"), rows].tolist() == [
        PRESET, "allow", "tool not found: 't2' is not in the pool snapshot", "pool"]


def test_an_agent_only_one_side_defines_has_no_rule_on_the_other(
        versions: tuple[tk.Project, tk.Project]) -> None:
    c = tk.diff(*versions, agents=["p"]).changes
    # p (new, every tool) against nothing: every cell of the 5 tools (t1-t5) x 5 group sets x 3
    # states changes, from "(no agent)"
    assert len(c) == 5 * 5 * 3
    assert set(c["before"]) == {NO_AGENT} and set(c["rule_before"]) == {""}
    assert set(c["reason_before"]) == {"agent"}
    t3 = c[(c["tool"] == "t3") & (c["groups"] == "admin")].set_index("state")
    assert t3.loc["s9", ["after", "rule_after", "reason_after"]].tolist() == [
        ALLOW, PRESET, "allow"]
    assert t3.loc["s1", ["after", "rule_after", "reason_after"]].tolist() == [
        DENY, "available_in_states: s9 (tools.yaml:6)", "state"]
    back = tk.diff(versions[1], versions[0], agents=["p"]).changes
    assert set(back["after"]) == {NO_AGENT} and set(back["rule_after"]) == {""}
    assert set(back["reason_after"]) == {"agent"}


def test_an_agent_with_a_tools_list_is_tabulated_as_its_own(
        versions: tuple[tk.Project, tk.Project]) -> None:
    """q (old only) holds t2 alone: granted in write / *, its other tools denied."""
    c = tk.diff(*versions, agents=["q"]).changes
    granted = c[c["before"] == ALLOW]
    assert set(zip(granted["tool"], granted["groups"], strict=True)) == {("t2", "write"),
                                                                       ("t2", "*")}
    assert set(c["after"]) == {NO_AGENT}
    assert len(c) == 5 * 5 * 3  # every cell of q was something, now no agent


def test_groups_as_one_name(versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], groups="read")
    assert d.groups == [("read",)]
    assert cells(d) == {c for c in R_CELLS if c[2] == "read"}


def test_groups_as_a_list_of_names_is_one_request(
        versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], groups=["read", "write"])
    assert d.groups == [("read", "write")]
    # a request in read and write: t1, t4 as in read; t2, t5 as in write
    assert cells(d) == {(a, t, "read,write", s, b, f) for a, t, g, s, b, f in R_CELLS
                        if g == "read" or (g == "write" and t in ("t2", "t5"))}


def test_groups_as_a_list_of_sets_is_one_request_each(
        versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], groups=[["admin"], ("write",)])
    assert d.groups == [("admin",), ("write",)]
    assert cells(d) == {c for c in R_CELLS if c[2] in ("admin", "write")}


def test_groups_as_an_empty_list_is_the_request_without_groups(
        versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], groups=[])
    assert d.groups == [()]
    assert d.changes.empty  # every tool has a group: denied before and after


def test_states_selects_the_states_compared(versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], states=["s9"])
    assert d.states == ["s9"]
    assert cells(d) == {c for c in R_CELLS if c[3] == "s9"}


def test_no_agent_selected_is_an_empty_table_with_every_column(
        versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=[])
    assert d.changes.empty and list(d.changes.columns) == COLUMNS
    assert d.new_access.empty and d.agents_added == [] and d.agents_removed == []


def test_added_and_removed_agents_and_tools_in_the_summary(
        versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions)
    assert d.agents == ["q", "r", "s", "p"]
    assert (d.agents_added, d.agents_removed) == (["p"], ["q", "s"])
    assert (d.tools_added, d.tools_removed) == (["t3"], ["t2", "t5"])
    # 4 agents x 5 tools x 5 group sets x 3 states: every cell of p, q and s changes (one
    # side has no agent), 22 of r's; new access: 8 of r's and p's 10 allows (t1 in read / *
    # in 3 states, t3 in admin / * in s9, t4 in read / * in s1)
    assert d.summary() == ("247 cell(s) changed, 18 grant new access; agents added: p; "
                           "agents removed: q, s; tools added: t3; tools removed: t2, t5")
    assert repr(d) == f"<PolicyDiff {d.summary()}>"


def test_summary_counts_of_one_agent(versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], groups="read", states=["s1"])
    # r in read / s1: t4 granted now (t1 was and is granted there)
    assert cells(d) == {("r", "t4", "read", "s1", DENY, ALLOW)}
    assert d.summary() == ("1 cell(s) changed, 1 grant new access; tools added: t3; "
                           "tools removed: t2, t5")


def test_text_view_is_the_summary_then_the_changes_without_index(
        versions: tuple[tk.Project, tk.Project]) -> None:
    d = tk.diff(*versions, agents=["r"], groups="read", states=["s1"])
    lines = d._repr_mimebundle_()["text/plain"].split("\n")
    assert lines[0] == d.summary()
    # no index column; columns right-aligned to their widest cell, one space apart
    assert lines[1] == "agent tool" + " " * 16 + "context" + " " * 8 + "before after"
    assert lines[2] == "    r   t4 groups read / state s1 implicit-deny allow"
    assert len(lines) == 3


def test_a_state_or_group_one_version_lacks_raises_no_warning(
        versions: tuple[tk.Project, tk.Project]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = tk.diff(*versions, agents=["r"])
    assert cells(d) == R_CELLS


@pytest.mark.parametrize(("before", "after", "more"), [
    (None, "ask", True), ("(no agent)", "ask", True), ("", "ask", True), (None, None, False),
    (None, "explicit-deny", False), ("ask", None, False), ("allow", "", False)])
def test_more_permissive_ranks_a_missing_effect_as_denied(before: str | None,
                                                         after: str | None,
                                                         more: bool) -> None:
    assert more_permissive(before, after) is more
