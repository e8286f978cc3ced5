"""SPEC section 4 step 6: a session that lost its spawn coordination tools at max_depth cannot
spawn (SpawnError naming the limit and where it is set); force=True spawns anyway, warning."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

AGENTS = {
    "agents/boss.md": "---\nname: boss\ntools: ['*']\n---\n",
    "agents/relay.md": "---\nname: relay\ntools: [spawn_agents, search]\n---\n",
    "agents/leaf.md": "---\nname: leaf\ntools: [search]\n---\n",
    "tools.yaml": "tool:\n  spawn_agents: {}\n  list_available_agents: {}\n  search: {}\n",
}


def test_emergent_spawn_beyond_max_depth_is_refused(examples: Path) -> None:
    with tk.load(examples / "emergent") as e:
        depth2 = e.start("orchestrator").spawn("delegator").spawn("delegator")
        assert "spawn_agents" in depth2.resolution.stripped  # "max_depth 2 reached"
        spawns = len([x for x in e.audit_log.events if x["event"] == "spawn"])
        with pytest.raises(tk.SpawnError) as exc:
            depth2.spawn("delegator").spawn("summarizer")
        message = str(exc.value)
        assert "\n" not in message
        assert "'orchestrator.delegator.delegator' (depth 2) cannot spawn 'delegator'" in message
        assert "max_depth 2 reached" in message and "spawn_agents" in message
        assert "set by the emergent preset" in message and "force=True" in message
        assert depth2.children == [] and "orchestrator.delegator.delegator.delegator" not in (
            e.sessions)
        assert len([x for x in e.audit_log.events if x["event"] == "spawn"]) == spawns
        # depth 1 still spawns: the delegator there kept spawn_agents (listed by exact name)
        assert depth2.parent is not None and depth2.parent.spawn("summarizer").depth == 2


def test_force_simulates_a_host_that_spawns_anyway(examples: Path) -> None:
    with tk.load(examples / "emergent") as e:
        depth2 = e.start("orchestrator").spawn("delegator").spawn("delegator")
        with pytest.warns(UserWarning, match=r"forced spawn .*max_depth 2 reached"):
            child = depth2.spawn("summarizer", force=True)
        assert child.depth == 3 and child.id in e.sessions
        warned = [x for x in e.audit_log.events if x["event"] == "warning"
                  and "forced spawn" in str(x.get("reason"))]
        assert [x["agent_id"] for x in warned] == [depth2.id]


def test_the_error_says_where_max_depth_is_set(write: Callable[..., Path]) -> None:
    root = write({**AGENTS, "toolkit.yaml": "preset: emergent\nmax_depth: 1\n"})
    with tk.load(root) as proj:
        child = proj.start("boss").spawn("relay")
        with pytest.raises(tk.SpawnError, match=r"max_depth 1 is set by max_depth in "
                                                r".*toolkit\.yaml"):
            child.spawn("leaf")
    root = write({**AGENTS, "toolkit.yaml": "preset: strict\n",
                  "agents/boss.md": "---\nname: boss\ntools: ['*']\nmax_depth: 1\n---\n"})
    with tk.load(root) as proj:
        child = proj.start("boss").spawn("relay")
        with pytest.raises(tk.SpawnError, match=r"set by max_depth of agent 'boss' "
                                                r"\(.*boss\.md:\d+\)"):
            child.spawn("leaf")


@pytest.mark.parametrize("preset", ["mux", "trustgraph", "adh-cli"])
def test_presets_that_keep_coordination_tools_spawn_past_depth_two(
        write: Callable[..., Path], preset: str) -> None:
    root = write({**AGENTS, "toolkit.yaml": f"preset: {preset}\n"})
    with tk.load(root) as proj:
        session = proj.start("boss")
        for _ in range(4):
            session = session.spawn("relay")
        assert session.depth == 4 and session.spawn_refusal() is None
