"""The preset table of SPEC section 4: every row where a preset differs from ``strict``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]

REGISTRY = """
tool:
  read: {}
  write: {}
  search: {}
  spawn_agents: {}
  list_available_agents: {}
  Task: {}
  Agent: {}
"""
ALL_TOOLS = {"read", "write", "search", "spawn_agents", "list_available_agents", "Task", "Agent"}


def project(write: Write, agents: dict[str, str]) -> Path:
    files = {"tools.yaml": REGISTRY}
    files.update({f"agents/{name}.md": body for name, body in agents.items()})
    return write(files)


# -- unknown exact name in the allow list ---------------------------------------------------------

TYPO = {"typo": "---\nname: typo\ntools: [read, nope]\n---\n"}


def test_unknown_name_strict_is_error(write: Write) -> None:
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(project(write, TYPO), preset="strict")
    assert exc.value.problems[0].file == "agents/typo.md"
    assert exc.value.problems[0].line == 3
    assert "'nope'" in str(exc.value)


def test_unknown_name_mux_is_error(write: Write) -> None:
    with pytest.raises(tk.DefinitionError, match="nope"):
        tk.load(project(write, TYPO), preset="mux")


def test_unknown_name_adh_cli_error_lists_available_tools(write: Write) -> None:
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(project(write, TYPO), preset="adh-cli")
    message = str(exc.value)
    assert "Tool 'nope' not found in registry for agent 'typo'" in message
    assert "Available tools: Agent, Task, list_available_agents, read, search" in message


@pytest.mark.parametrize("preset", ["emergent", "trustgraph", "claude-code"])
def test_unknown_name_warns_and_skips(write: Write, preset: str) -> None:
    proj = tk.load(project(write, TYPO), preset=preset)
    assert proj.resolve("typo").allowed == {"read"}
    assert any("nope" in w.message and w.line == 3 for w in proj.warnings)


def test_unknown_name_work_agent_marks_unavailable(write: Write) -> None:
    proj = tk.load(project(write, TYPO), preset="work-agent")
    resolution = proj.resolve("typo")
    assert resolution.allowed == {"read"}
    assert resolution.unavailable == ("nope",)
    decision = proj.explain("typo", "nope")
    assert not decision.allowed and decision.reason == "pool"
    assert "unavailable" in decision.message


# -- omitted and empty allow lists ----------------------------------------------------------------

DEFAULTS = {
    "omitted": "---\nname: omitted\n---\n",
    "empty": "---\nname: empty\ntools: []\n---\n",
}


@pytest.mark.parametrize(("preset", "omitted"), [
    ("strict", set()), ("emergent", set()), ("adh-cli", set()),
    ("work-agent", ALL_TOOLS),  # no use list: "all of use" ranges over the pool
    ("trustgraph", ALL_TOOLS), ("mux", ALL_TOOLS),
])
def test_allow_list_omitted_root(write: Write, preset: str, omitted: set[str]) -> None:
    proj = tk.load(project(write, {"omitted": DEFAULTS["omitted"]}), preset=preset)
    assert proj.resolve("omitted").allowed == omitted


def test_allow_list_omitted_root_claude_code_gives_all(write: Write) -> None:
    proj = tk.load(project(write, {"omitted": DEFAULTS["omitted"]}), preset="claude-code")
    assert proj.resolve("omitted").allowed == ALL_TOOLS


@pytest.mark.parametrize(("preset", "empty"), [
    ("strict", set()), ("emergent", set()), ("adh-cli", set()), ("trustgraph", set()),
    ("work-agent", ALL_TOOLS), ("mux", ALL_TOOLS),  # mux: inherit parent, all at a root
])
def test_allow_list_empty(write: Write, preset: str, empty: set[str]) -> None:
    proj = tk.load(project(write, {"empty": DEFAULTS["empty"]}), preset=preset)
    assert proj.resolve("empty").allowed == empty


def test_allow_list_empty_claude_code_is_none(write: Write) -> None:
    """SPEC section 4: under claude-code ``[]`` gives no tools (Claude Code spawns the agent
    with none); ``toolmatrix check`` warns about a Claude Code file that says so."""
    proj = tk.load(project(write, {"empty": DEFAULTS["empty"]}), preset="claude-code")
    assert proj.resolve("empty").allowed == set()


def test_work_agent_all_of_use_ranges_over_use_list(write: Write) -> None:
    root = write({
        "tools.yaml": REGISTRY,
        "agents/a/agent.json": '{"name": "a", "tools": {"use": ["read", "search"]}}',
        "agents/b/agent.json": '{"name": "b", "tools": {"use": ["read"], "allowed": []}}',
    })
    proj = tk.load(root, preset="work-agent")
    assert proj.resolve("a").allowed == {"read", "search"}
    assert proj.resolve("b").allowed == {"read"}


@pytest.mark.parametrize("preset", list(tk.PRESETS))
def test_allow_list_omitted_child_inherits_parent(write: Write, preset: str) -> None:
    root = project(write, {
        "parent": "---\nname: parent\ntools: [read, search]\n---\n",
        "omitted": DEFAULTS["omitted"],
    })
    proj = tk.load(root, preset=preset)
    child = proj.start("parent").spawn("omitted")
    assert child.allowed == {"read", "search"}


def test_mux_empty_list_child_inherits_parent(write: Write) -> None:
    root = project(write, {"parent": "---\nname: parent\ntools: [read]\n---\n",
                           "empty": DEFAULTS["empty"]})
    proj = tk.load(root, preset="mux")
    assert proj.start("parent").spawn("empty").allowed == {"read"}
    strict = tk.load(root, preset="strict")
    assert strict.start("parent").spawn("empty").allowed == set()


# -- a child naming a tool its parent lacks -------------------------------------------------------

CEILING = {
    "parent": "---\nname: parent\ntools: [read]\n---\n",
    "greedy": "---\nname: greedy\ntools: [read, write]\n---\n",
}


@pytest.mark.parametrize("preset", ["strict", "mux"])
def test_child_naming_tool_parent_lacks_is_spawn_error(write: Write, preset: str) -> None:
    proj = tk.load(project(write, CEILING), preset=preset)
    session = proj.start("parent")
    with pytest.raises(tk.SpawnError, match="'write'"):
        session.spawn("greedy")
    assert session.children == []


@pytest.mark.parametrize("preset", ["emergent", "work-agent", "adh-cli", "trustgraph",
                                    "claude-code"])
def test_child_naming_tool_parent_lacks_is_dropped_with_warning(write: Write, preset: str) -> None:
    proj = tk.load(project(write, CEILING), preset=preset)
    child = proj.start("parent").spawn("greedy")
    assert child.allowed == {"read"}
    assert any("'write'" in w.message and "dropped" in w.message for w in proj.warnings)
    decision = proj.explain("greedy", "write", parent=proj.start("parent"))
    assert decision.reason == "ceiling" and decision.rule.line == 3


# -- coordination-tool stripping and max_depth ----------------------------------------------------

COORD = {
    "root": "---\nname: root\ntools: ['*']\n---\n",
    "plain": "---\nname: plain\n---\n",
    "opted": "---\nname: opted\ntools: [spawn_agents, list_available_agents, Task, Agent, read]"
             "\n---\n",
}


def _chain(proj: tk.Project, depth: int) -> tk.Session:
    session = proj.start("root")
    for _ in range(depth):
        session = session.spawn("opted")
    return session


@pytest.mark.parametrize("preset", ["strict", "emergent"])
def test_coordination_stripped_below_root_at_depth_2(write: Write, preset: str) -> None:
    proj = tk.load(project(write, COORD), preset=preset)
    assert proj.start("root").spawn("plain").allowed == {"read", "write", "search", "Task",
                                                         "Agent"}
    assert _chain(proj, 1).allowed >= {"spawn_agents", "list_available_agents"}
    assert _chain(proj, 2).allowed == {"read", "Task", "Agent"}


def test_claude_code_strips_task_and_agent_with_max_depth_3(write: Write) -> None:
    proj = tk.load(project(write, COORD), preset="claude-code")
    plain = proj.start("root").spawn("plain").allowed
    assert "Task" not in plain and "Agent" not in plain and "spawn_agents" in plain
    assert {"Task", "Agent"} <= _chain(proj, 2).allowed
    assert not {"Task", "Agent"} & _chain(proj, 3).allowed


@pytest.mark.parametrize("preset", ["work-agent", "adh-cli", "trustgraph", "mux"])
def test_no_coordination_stripping(write: Write, preset: str) -> None:
    proj = tk.load(project(write, COORD), preset=preset)
    assert {"spawn_agents", "list_available_agents"} <= proj.start("root").spawn(
        "plain").allowed
    # work-agent's delegation stops at maxDepth (default 2: SPEC section 3, work-agent
    # bullet; its delegation.ts throws "Delegation depth limit reached"), so its chain ends
    # at depth 2 - still holding the coordination tools, which it never strips.
    depth = 2 if preset == "work-agent" else 5
    assert {"spawn_agents", "list_available_agents"} <= _chain(proj, depth).allowed
    if preset == "work-agent":
        with pytest.raises(tk.SpawnError, match=r"Delegation depth limit reached \(2\)"):
            _chain(proj, 3)


def test_manifest_overrides_coordination_tools_and_max_depth(write: Write) -> None:
    root = project(write, COORD)
    (root / "toolkit.yaml").write_text("preset: strict\ncoordination_tools: [read]\n"
                                       "max_depth: 1\n")
    proj = tk.load(root)
    assert "read" not in proj.start("root").spawn("plain").allowed
    assert "spawn_agents" in proj.start("root").spawn("plain").allowed
    assert "read" not in _chain(proj, 1).allowed  # depth 1 >= max_depth 1


def test_agent_may_lower_max_depth_never_raise(write: Write) -> None:
    root = project(write, {
        **COORD,
        "lower": "---\nname: lower\nmax_depth: 1\ntools: [spawn_agents, read]\n---\n",
        "raise": "---\nname: raise\nmax_depth: 5\ntools: [spawn_agents, read]\n---\n",
    })
    proj = tk.load(root, preset="strict")
    assert proj.start("root").spawn("lower").allowed == {"read"}
    deep = proj.start("root").spawn("raise").spawn("raise")
    assert deep.allowed == {"read"}
    assert any("may only lower" in w.message for w in proj.warnings)


def test_presets_side_by_side_differences_table(write: Write) -> None:
    proj = tk.load(project(write, DEFAULTS), preset="strict")
    diff = proj.preset_diff(presets=["strict", "mux"])
    assert set(diff.columns) == {"strict", "mux"}
    assert ("read", "omitted") in diff.index
    assert diff.loc[("read", "omitted"), "strict"] == "implicit"
    assert diff.loc[("read", "omitted"), "mux"] == "allow"


def test_unknown_preset_name_is_clear(write: Write) -> None:
    with pytest.raises(ValueError, match="known presets: strict"):
        tk.load(project(write, DEFAULTS), preset="nope")
