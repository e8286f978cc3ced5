"""Scenarios of the Emergent agent-tool-pool specification (seed 000), one test each.

Expected values are written from the specification's text: the shipped example
``toolkit/examples/emergent`` declares the built-in graph tools its scenarios
name, and the agents ``graph-researcher`` (exact names), ``entity-editor``
(``entities_*``), ``orchestrator`` (``"*"``), ``summarizer`` (a name missing
from the pool) and ``delegator`` (opts in to ``spawn_agents``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]

#: The built-in graph tools declared in the example's tools.yaml.
BUILTIN_GRAPH_TOOLS = {
    "search_hybrid", "entities_create", "entities_get", "entities_update", "entities_delete",
    "graph_traverse", "relationships_list", "spawn_agents", "list_available_agents",
}
COORDINATION = {"spawn_agents", "list_available_agents"}


def kg_tool(name: str) -> tk.Tool:
    """A tool as discovered from an external MCP server called ``kg``."""
    return tk.Tool(name=f"@kg/{name}", server="kg", remote_name=name, source="mcp:kg")


@pytest.fixture
def proj(examples: Path) -> tk.Project:
    return tk.load(examples / "emergent")


def _warnings_mentioning(proj: tk.Project, *words: str) -> list[str]:
    return [str(w) for w in proj.warnings if all(word in str(w) for word in words)]


# -- Requirement: Project-Level Tool Pool ---------------------------------------------------------

def test_tool_pool_initialization(proj: tk.Project) -> None:
    # Built-in graph tools are in the pool from the start ...
    assert set(proj.tools) == BUILTIN_GRAPH_TOOLS
    # ... the pool is cached: asking again gives the same combined set, not a rebuild.
    pool = proj.tools
    proj.resolve("orchestrator")
    proj.resolve("graph-researcher")
    assert proj.tools is pool
    # ... and tools discovered from a configured MCP server (tools/list) join them.
    proj.set_server_tools("kg", [kg_tool("entities_search"), kg_tool("graph_stats")])
    assert set(proj.tools) == BUILTIN_GRAPH_TOOLS | {"@kg/entities_search", "@kg/graph_stats"}
    assert proj.tools["@kg/graph_stats"].source == "mcp:kg"


def test_tool_pool_cache_invalidation(proj: tk.Project) -> None:
    before = proj.resolve("orchestrator").allowed
    assert before == BUILTIN_GRAPH_TOOLS
    # Server added: the cache is invalidated and the next resolution sees its tools.
    proj.set_server_tools("kg", [kg_tool("graph_stats")])
    assert "@kg/graph_stats" in proj.tools
    assert proj.resolve("orchestrator").allowed == BUILTIN_GRAPH_TOOLS | {"@kg/graph_stats"}
    # Server updated: its new tool list replaces the old one.
    proj.set_server_tools("kg", [kg_tool("graph_export")])
    assert "@kg/graph_stats" not in proj.tools and "@kg/graph_export" in proj.tools
    assert proj.resolve("orchestrator").allowed == BUILTIN_GRAPH_TOOLS | {"@kg/graph_export"}
    # Server removed: its tools leave the pool and the next resolution.
    proj.set_server_tools("kg", None)
    assert set(proj.tools) == BUILTIN_GRAPH_TOOLS
    assert proj.resolve("orchestrator").allowed == BUILTIN_GRAPH_TOOLS


# -- Requirement: Per-Agent Tool Filtering ---------------------------------------------------------

def test_exact_tool_name_matching(proj: tk.Project) -> None:
    r = proj.resolve("graph-researcher")
    assert r.allowed == {"search_hybrid", "entities_get", "graph_traverse"}
    d = proj.explain("graph-researcher", "entities_create")
    assert (d.allowed, d.effect, d.reason) == (False, "implicit-deny", "allow")
    ok = proj.explain("graph-researcher", "graph_traverse")
    assert (ok.allowed, ok.effect, ok.reason) == (True, "allow", "allow")
    # The deciding rule is the whitelist line of the agent file.
    assert (ok.rule.file, ok.rule.line) == ("agents/graph-researcher.md", 4)


def test_glob_pattern_matching(proj: tk.Project) -> None:
    r = proj.resolve("entity-editor")
    assert r.allowed == {"entities_create", "entities_get", "entities_update", "entities_delete"}
    d = proj.explain("entity-editor", "entities_update")
    assert d.allowed and d.rule.pattern == "entities_*"
    assert (d.rule.file, d.rule.line) == ("agents/entity-editor.md", 4)
    assert not proj.explain("entity-editor", "search_hybrid").allowed


def test_glob_pattern_matching_is_case_sensitive(write: Write) -> None:
    root = write({
        "toolkit.yaml": "preset: emergent\n",
        "tools.yaml": "tool:\n  entities_get: {}\n  Entities_Legacy: {}\n",
        "agents/a.md": "---\nname: a\ntools: [\"entities_*\"]\n---\n",
    })
    assert tk.load(root).resolve("a").allowed == {"entities_get"}


def test_wildcard_access(proj: tk.Project) -> None:
    assert proj.resolve("orchestrator").allowed == set(proj.tools) == BUILTIN_GRAPH_TOOLS
    # "all tools in the project's ToolPool" includes tools discovered later.
    proj.set_server_tools("kg", [kg_tool("graph_stats")])
    assert proj.resolve("orchestrator").allowed == set(proj.tools)


def test_tool_not_found_in_pool(proj: tk.Project) -> None:
    # summarizer lists summarize_text, which no pool tool has: a warning, not a failure.
    r = proj.resolve("summarizer")
    assert r.allowed == {"search_hybrid"}
    assert _warnings_mentioning(proj, "summarize_text"), proj.warnings
    assert any(w.file == "agents/summarizer.md" for w in proj.warnings
               if "summarize_text" in w.message)
    d = proj.explain("summarizer", "summarize_text")
    assert (d.allowed, d.reason) == (False, "pool")


# -- Requirement: Sub-Agent Tool Restrictions ------------------------------------------------------

def test_default_sub_agent_denied_tools(proj: tk.Project) -> None:
    root = proj.start("orchestrator")
    assert root.allowed >= COORDINATION  # a root agent keeps them
    # The child's whitelist is "*", yet the coordination tools are removed at depth 1.
    child = root.spawn("orchestrator")
    assert child.depth == 1
    assert child.allowed == BUILTIN_GRAPH_TOOLS - COORDINATION
    for tool in sorted(COORDINATION):
        d = proj.explain("orchestrator", tool, parent=root)
        assert (d.allowed, d.reason) == (False, "coordination")
    assert proj.resolve("orchestrator", parent=root).allowed == BUILTIN_GRAPH_TOOLS - COORDINATION


def test_default_sub_agent_denied_tools_with_glob_whitelist(write: Write) -> None:
    # A glob that happens to match spawn_agents is not an explicit opt-in.
    root = write({
        "toolkit.yaml": "preset: emergent\n",
        "tools.yaml": "tool:\n  spawn_agents: {}\n  list_available_agents: {}\n  search: {}\n",
        "agents/root.md": "---\nname: root\ntools: [\"*\"]\n---\n",
        "agents/helper.md": "---\nname: helper\ntools: [\"spawn_*\", \"list_*\", search]\n---\n",
    })
    proj = tk.load(root)
    child = proj.start("root").spawn("helper")
    assert child.allowed == {"search"}


def test_opt_in_to_delegation(proj: tk.Project) -> None:
    root = proj.start("orchestrator")
    delegator = root.spawn("delegator")
    assert delegator.depth == 1  # 1 < max_depth (default 2)
    assert delegator.allowed == {"spawn_agents", "list_available_agents", "search_hybrid"}
    d = proj.explain("delegator", "spawn_agents", parent=root)
    assert (d.allowed, d.effect) == (True, "allow")
    assert (d.rule.file, d.rule.line) == ("agents/delegator.md", 4)
    # The depth counter is incremented for the sub-sub-agents it spawns.
    grandchild = delegator.spawn("graph-researcher")
    assert grandchild.depth == 2
    assert grandchild.id == "orchestrator.delegator.graph-researcher"


def test_max_depth_enforcement(proj: tk.Project) -> None:
    root = proj.start("orchestrator")
    depth1 = root.spawn("delegator")
    assert "spawn_agents" in depth1.allowed
    depth2 = depth1.spawn("delegator")  # depth 2 >= max_depth 2
    assert depth2.depth == 2
    assert "spawn_agents" not in depth2.allowed
    assert "list_available_agents" not in depth2.allowed
    assert depth2.allowed == {"search_hybrid"}
    d = proj.explain("delegator", "spawn_agents", parent=depth1)
    assert (d.allowed, d.reason) == (False, "coordination")
    # A warning says max depth was reached.
    assert [w for w in _warnings_mentioning(proj, "spawn_agents")
            if "depth" in w.lower() and "max" in w.lower()], proj.warnings


def test_max_depth_enforcement_follows_configured_max_depth(write: Write) -> None:
    files = {
        "tools.yaml": "tool:\n  spawn_agents: {}\n  search: {}\n",
        "agents/root.md": "---\nname: root\ntools: [\"*\"]\n---\n",
        "agents/deleg.md": "---\nname: deleg\ntools: [spawn_agents, search]\n---\n",
    }
    three = tk.load(write({**files, "toolkit.yaml": "preset: emergent\nmax_depth: 3\n"}))
    d2 = three.start("root").spawn("deleg").spawn("deleg")
    assert d2.depth == 2 and "spawn_agents" in d2.allowed  # 2 < 3
    assert "spawn_agents" not in d2.spawn("deleg").allowed  # 3 >= 3


# -- Requirement: Tool Filtering Security Enforcement ----------------------------------------------

def test_llm_cannot_access_unresolved_tools(proj: tk.Project) -> None:
    session = proj.start("graph-researcher")
    assert "entities_create" not in session.allowed
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: entities_create"):
        session.call("entities_create", {"name": "x"})
    # The same error as for a tool that exists nowhere.
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: no_such_tool"):
        session.call("no_such_tool", {})
    blocked = [e for e in proj.audit_log.events
               if e.get("event") == "call" and e.get("outcome") == "blocked"]
    assert {e.get("requested_tool") or e.get("tool") for e in blocked} >= {"entities_create"}


def test_glob_resolution_at_build_time(proj: tk.Project) -> None:
    session = proj.start("entity-editor")
    before = session.allowed
    assert before == {"entities_create", "entities_get", "entities_update", "entities_delete"}
    # A tool matching entities_* is added mid-execution ...
    proj.set_server_tools("kg", [kg_tool("entities_merge")])
    assert "@kg/entities_merge" in proj.tools
    # ... and is not available to the running execution,
    assert session.allowed == before
    with pytest.raises(tk.ToolNotFoundError):
        session.call("@kg/entities_merge", {})
    # ... only to the next one.
    assert proj.start("entity-editor").allowed == before | {"@kg/entities_merge"}
