"""Adding a server's tools re-resolves incrementally, and the result is exactly a full resolve.

``Policy.set_server_tools`` for a pure addition extends the cached grants
(``added_grant`` decides the added tools only; ``merge_grant`` joins that to the
old grant when the grant is asked for) and inserts the new rows into the last
matrix instead of recomputing them. These tests compare that path with a cold recompute of the
same policy, over generated projects that include the cases where extending is
not allowed (a new name colliding with an old one, an unknown or pending exact
name the new server provides) and must fall back.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.policy import Policy
from toolkit.systems.load import load_definitions

PRESETS = ["strict", "emergent", "work-agent", "adh-cli", "trustgraph", "mux", "claude-code"]
OLD = ["t0", "t1", "t2", "spawn_agents"]
NEW = ["n0", "n1", "t0", "spawn_agents", "n_other"]  # t0 and spawn_agents collide
PATTERNS = ["t0", "t1", "n0", "u1", "@new/n1", "mcp__new__n0", "t*", "n*", "*", "@new/*", "zz*",
            "mcp__*", "*_agents", "spawn_agents"]
GROUP_SETS = [["default"], ["*"], ["g1"], []]
STATES = ["undefined", "s1"]


def server_tools(server: str, names: list[str]) -> list[tk.Tool]:
    return [tk.Tool(name=f"@{server}/{n}", server=server, remote_name=n, source=f"mcp:{server}")
            for n in names]


def write(root: Path, case: dict[str, Any]) -> None:
    tools = {}
    for name, (group, states) in case["pool"].items():
        entry: dict[str, Any] = {"group": [group]}
        if states is not None:
            entry["available_in_states"] = states
        tools[name] = entry
    (root / "tools.yaml").write_text(yaml.safe_dump({"tool": tools}))
    for i, (allow, deny) in enumerate(case["agents"]):
        front: dict[str, Any] = {"name": f"a{i}"}
        if allow is not None:
            front["tools"] = allow
        if deny:
            front["disallowedTools"] = deny
        (root / f"a{i}.md").write_text(f"---\n{yaml.safe_dump(front)}---\n")
    if case["configured"]:  # the server is configured: its names are pending until discovered
        (root / ".mcp.json").write_text(json.dumps(
            {"mcpServers": {"new": {"command": "true"}}}))


def snapshot(policy: Policy) -> dict[str, Any]:
    """Everything resolution decided: the full reasons matrix and every grant's fields.

    The matrix comes first, so after an addition it is built from the deltas
    alone and the grants are merged afterwards.
    """
    reasons = policy.reasons(groups=GROUP_SETS, states=STATES)
    grants = {}
    for agent in policy.agents:
        g = policy.grant(agent)
        grants[agent] = (dict(g.allowed), dict(g.denied), dict(g.ask), g.self_denied,
                         dict(g.exact_allowed), g.in_range, list(g.unavailable),
                         set(g.warnings), g.allow_note, g.max_depth)
    return {"grants": grants, "reasons": reasons, "tools": dict(policy.tools)}


def outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except tk.DefinitionError as exc:
        return "error", sorted(str(p) for p in exc.problems)


case_st = st.fixed_dictionaries({
    "pool": st.dictionaries(st.sampled_from(OLD), st.tuples(
        st.sampled_from(["default", "g1"]),
        st.none() | st.lists(st.sampled_from(["s1", "s2", "*"]), max_size=2, unique=True)),
        min_size=0),
    "agents": st.lists(st.tuples(
        st.none() | st.lists(st.sampled_from(PATTERNS), max_size=3),
        st.lists(st.sampled_from(PATTERNS), max_size=2)), min_size=1, max_size=3),
    "preset": st.sampled_from(PRESETS),
    "configured": st.booleans(),
    "added": st.lists(st.sampled_from(NEW), min_size=0, max_size=4, unique=True),
    "old_server": st.lists(st.sampled_from(["n0", "u1"]), max_size=2, unique=True),
    "then": st.lists(st.sampled_from(["n1", "z0", "t1"]), max_size=2, unique=True),
})


@settings(max_examples=400, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(case=case_st)
def test_incremental_re_resolve_equals_a_full_resolve(case: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root, case)
        try:
            policy = Policy(load_definitions(root), case["preset"])
            if case["old_server"]:  # an earlier server, whose bare names the new one may share
                policy.set_server_tools("old", server_tools("old", case["old_server"]))
            snapshot(policy)
        except tk.DefinitionError:
            return  # nothing to extend
        # grants and a matrix are now cached on the old pool
        policy.set_server_tools("idle", None)  # a change that adds nothing: a new pool version
        policy.set_server_tools("new", server_tools("new", case["added"]))
        assert_same_as_cold(policy)
        # a second addition extends the extended grants (or recompiles)
        policy.set_server_tools("more", server_tools("more", case["then"]))
        assert_same_as_cold(policy)


def assert_same_as_cold(policy: Policy) -> None:
    """The policy's answers now equal a cold recompute's (which leaves caches cold)."""
    incremental = outcome(lambda: snapshot(policy))
    policy.clear_caches()
    full = outcome(lambda: snapshot(policy))
    assert incremental[0] == full[0]
    if full[0] == "error":
        assert incremental[1] == full[1]
        return
    inc, ref = incremental[1], full[1]
    assert inc["tools"] == ref["tools"]
    assert inc["grants"] == ref["grants"]
    assert inc["reasons"].equals(ref["reasons"])


@pytest.fixture
def big(tmp_path: Path) -> Policy:
    tools = {f"t{i:03d}": {"group": ["g1" if i % 3 else "default"]} for i in range(300)}
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump({"tool": tools}))
    agents = {"all": "['*']", "some": "['t0*', '@srv/*']", "exact": "[t001, t002]",
              "none": "[]"}
    for name, allow in agents.items():
        (tmp_path / f"{name}.md").write_text(
            f"---\nname: {name}\ntools: {allow}\ndisallowedTools: ['*9']\n---\n")
    return Policy(load_definitions(tmp_path), "work-agent")


def test_adding_a_server_extends_grants_instead_of_recompiling(big: Policy) -> None:
    before = big.matrix(groups=GROUP_SETS, states=STATES)
    old = {a: big.grant(a) for a in big.agents}
    big.set_server_tools("srv", server_tools("srv", [f"x{i}" for i in range(20)]))
    after = big.matrix(groups=GROUP_SETS, states=STATES)
    # the matrix came from each old grant's delta; no grant was merged or recompiled
    version = big.pool.version
    assert not any(key[2] == version for key in big._grants)
    assert all(big._pending[(a, "work-agent", version)][0] is old[a] for a in big.agents)
    # asked for, each grant is its old grant extended over the 20 new tools only
    for agent in big.agents:
        grant = big.grant(agent)
        assert grant.added is not None and set(grant.added.pool) == {
            f"@srv/x{i}" for i in range(20)}
    assert len(after) == len(before) + 20
    assert after.loc[before.index].equals(before)  # old rows unchanged
    assert after.loc["@srv/x1", ("some", "*", "undefined")]
    assert not after.loc["@srv/x9", ("some", "*", "undefined")]  # '*9' denies it
    assert not after.loc["@srv/x1", ("exact", "*", "undefined")]
    big.clear_caches()
    assert big.matrix(groups=GROUP_SETS, states=STATES).equals(after)


def test_a_new_tool_named_by_an_unknown_rule_recompiles(tmp_path: Path) -> None:
    """An exact name the old pool lacked (a warning under emergent) may be the new tool."""
    (tmp_path / "tools.yaml").write_text("tool:\n  t0: {}\n")
    (tmp_path / "a.md").write_text("---\nname: a\ntools: [t0, n0]\n---\n")
    policy = Policy(load_definitions(tmp_path), "emergent")
    assert policy.resolve("a").allowed == {"t0"}
    policy.set_server_tools("new", server_tools("new", ["n0"]))
    assert policy.resolve("a").allowed == {"t0", "@new/n0"}
    assert policy.grant("a").added is None  # recompiled, not extended


def test_a_glob_that_matched_nothing_stops_warning_once_it_matches(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text("tool:\n  t0: {}\n")
    (tmp_path / "a.md").write_text("---\nname: a\ntools: [t0, 'n*']\n---\n")
    policy = Policy(load_definitions(tmp_path))
    warning = "allow pattern 'n*' matches no tool"
    assert [w.message for w in policy.grant("a").warnings] == [warning]
    policy.set_server_tools("new", server_tools("new", ["n0"]))
    grant = policy.grant("a")
    assert grant.added is not None  # extended, not recompiled
    assert grant.warnings == [] and set(grant.allowed) == {"t0", "@new/n0"}


def test_an_empty_pool_gaining_tools_is_a_new_pool_version(tmp_path: Path) -> None:
    """Regression: an empty pool is falsy, and once made the next pool version 0 again."""
    (tmp_path / "a.md").write_text("---\nname: a\ntools: ['*']\n---\n")
    policy = Policy(load_definitions(tmp_path))
    assert len(policy.pool) == 0 and policy.resolve("a").allowed == set()
    assert policy.matrix().shape == (0, 1)  # an empty pool still tabulates
    before = policy.pool.version
    policy.set_server_tools("new", server_tools("new", ["n0"]))
    assert policy.pool.version == before + 1
    assert policy.resolve("a").allowed == {"@new/n0"}


def test_extended_pools_do_not_keep_earlier_pools_alive(tmp_path: Path) -> None:
    """Each pool refers to the one it extends weakly: 30 additions keep at most two pools."""
    import gc
    import weakref

    (tmp_path / "a.md").write_text("---\nname: a\ntools: ['*']\n---\n")
    policy = Policy(load_definitions(tmp_path))
    pools = []
    for i in range(30):
        policy.set_server_tools(f"s{i}", server_tools(f"s{i}", ["t"]))
        policy.matrix()
        assert policy.pool.index.lookup(f"@s{i}/t") == f"@s{i}/t"  # the extended index
        pools.append(weakref.ref(policy.pool))
    gc.collect()
    assert sum(p() is not None for p in pools) <= 2  # the current pool and the one before
    assert policy.resolve("a").allowed == {f"@s{i}/t" for i in range(30)}
