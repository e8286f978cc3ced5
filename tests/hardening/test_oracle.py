"""Enforcement oracle: random pools, agents, presets, spawn chains, groups, states and call
sequences; every session decision must equal the brute-force oracle of SPEC section 4
(``tests/hardening/oracle.py``), and no call outside the resolved set may reach a tool.

The in-process property runs 10,000 generated cases: projects are written to disk and
loaded with ``tk.load``, and the project's executor is replaced by a recorder (the one
place every permitted call goes through), so what "reached" a tool is observed, not
inferred. A second property runs a few hundred cases against a real MCP server process
per preset, whose own log of ``tools/call`` requests is compared with the oracle.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.hardening.oracle import (
    OAgent,
    OracleDefinitionError,
    OracleSession,
    OracleSpawnError,
    OTool,
    check_definitions,
)
from tests.support.faults import raw
from tests.support.procs import wait_no_descendants
from toolkit.runtime.builtins import CallResult

PRESETS = ["strict", "emergent", "work-agent", "adh-cli", "trustgraph", "mux", "claude-code"]
TOOL_NAMES = ["t0", "t1", "t2", "t3", "t4", "spawn_agents", "list_available_agents", "Task",
              "Agent", "stallion-control_send_message", "stallion-control_add_agent"]
GROUPS = ["default", "g1", "g2"]
STATES = ["undefined", "s1", "s2"]
PATTERNS = [*TOOL_NAMES, "zz_unknown", "t*", "*", "t[0-2]", "?3", "*_agents", "list_*", "[TA]*",
            "*t*"]
AGENTS = ["a0", "a1", "a2"]
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "10000"))
CASES = {"in_process": 0, "real_server": 0, "decisions": 0, "blocked": 0, "reached": 0,
         "load_errors": 0, "spawns": 0, "spawn_errors": 0, "refused_spawns": 0,
         "nonempty_sets": 0}

tool_st = st.tuples(
    st.lists(st.sampled_from(GROUPS), min_size=0, max_size=2, unique=True),
    st.none() | st.none() | st.lists(st.sampled_from([*STATES, "*"]), min_size=0, max_size=2,
                                     unique=True),
    st.none() | st.sampled_from(STATES),
)
pool_st = st.dictionaries(st.sampled_from(TOOL_NAMES), tool_st, min_size=3, max_size=len(
    TOOL_NAMES))
rules_st = st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=4)
allow_st = (st.none() | st.just([]) | rules_st | rules_st | st.just(["*"])
            | st.just(["t*", "*_agents"]))
agent_st = st.tuples(allow_st, st.just([]) | st.lists(st.sampled_from(PATTERNS), max_size=2))
agents_st = st.fixed_dictionaries({a: agent_st for a in AGENTS})
groups_st = (st.just(["default", "g1"]) | st.just(["*"]) | st.just(["*"]) | st.just([])
             | st.lists(st.sampled_from(GROUPS), min_size=1, max_size=3, unique=True))
state_st = st.just("undefined") | st.sampled_from(STATES)
op_st = st.one_of(
    st.tuples(st.just("call"), st.sampled_from([*TOOL_NAMES, "nope"])),
    st.tuples(st.just("call"), st.integers(0, 99)),  # the i-th tool of the pool
    st.tuples(st.just("spawn"), st.sampled_from(AGENTS),
              st.none() | st.none() | st.lists(st.sampled_from(GROUPS), max_size=2,
                                               unique=True)),
)
case_st = st.fixed_dictionaries({
    "pool": pool_st, "agents": agents_st, "preset": st.sampled_from(PRESETS),
    "root": st.sampled_from(AGENTS), "groups": groups_st, "state": state_st,
    "ops": st.lists(op_st, max_size=10),
})


def oracle_pool(spec: dict[str, Any], server: str | None = None) -> dict[str, OTool]:
    pool = {}
    for name, (groups, states, to) in spec.items():
        spellings = (f"@{server}/{name}", f"mcp__{server}__{name}") if server else ()
        pool[name] = OTool(name, tuple(groups) or ("default",),
                           None if states is None else tuple(states), to, spellings)
    return pool


def write_project(root: Path, case: dict[str, Any], server: dict[str, Any] | None = None
                  ) -> None:
    tools = {}
    for name, (groups, states, to) in case["pool"].items():
        entry: dict[str, Any] = {}
        if groups:
            entry["group"] = groups
        if states is not None:
            entry["available_in_states"] = states
        if to is not None:
            entry["state"] = to
        tools[name] = entry
    (root / "tools.yaml").write_text(yaml.safe_dump({"tool": tools}))
    for name, (allow, deny) in case["agents"].items():
        front: dict[str, Any] = {"name": name}
        if allow is not None:
            front["tools"] = allow
        if deny:
            front["disallowedTools"] = deny
        (root / f"{name}.md").write_text(f"---\n{yaml.safe_dump(front)}---\nAgent {name}.\n")
    if server is not None:
        (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": server}}))


def oracle_agents(case: dict[str, Any]) -> dict[str, OAgent]:
    return {name: OAgent(name, None if allow is None else tuple(allow), tuple(deny))
            for name, (allow, deny) in case["agents"].items()}


class Recorder:
    """Stands in for ``Project.execute``: records every call that got past enforcement."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def __call__(self, session: Any, tool: Any, args: dict[str, Any],
                       timeout: float | None = None) -> Any:
        self.calls.append(tool.name)
        return CallResult.of_text("ok")


def run_case(proj: tk.Project, case: dict[str, Any], pool: dict[str, OTool],
             reached: Any) -> list[str]:
    """Drive one generated case through sessions and the oracle side by side.

    ``reached()`` returns the canonical names that reached a tool so far; the
    return value is the oracle's list of calls that should have.
    """
    agents = oracle_agents(case)
    preset = case["preset"]
    groups, state = tuple(case["groups"]), case["state"]
    session = proj.start(case["root"], groups=case["groups"], state=state)
    model = OracleSession.root(pool, agents, preset, case["root"], groups, state)
    assert session.allowed == model.allowed, (session.allowed, model.allowed)
    CASES["nonempty_sets"] += bool(model.allowed)
    expected: list[str] = []
    for op in case["ops"]:
        if op[0] == "call":
            name = op[1] if isinstance(op[1], str) else sorted(pool)[op[1] % len(pool)]
            should = model.call(name)
            CASES["decisions"] += 1
            if should is None:
                CASES["blocked"] += 1
                with pytest.raises(tk.ToolNotFoundError, match=f"tool not found: {name}"):
                    session.call(name, {"text": name})
            else:
                session.call(name, {"text": name})
                expected.append(should)
                CASES["reached"] += 1
            assert reached() == expected  # nothing outside the resolved set got through
            assert session.state == model.state
            assert session.allowed == model.allowed
        else:
            _, child, child_groups = op
            try:
                next_model = model.spawn(child, None if child_groups is None
                                         else tuple(child_groups))
            except PermissionError:
                CASES["refused_spawns"] += 1
                with pytest.raises(tk.AccessDeniedError):
                    session.spawn(child, groups=child_groups)
                continue
            except OracleSpawnError:
                CASES["spawn_errors"] += 1
                with pytest.raises(tk.SpawnError):
                    session.spawn(child, groups=child_groups)
                continue
            session = session.spawn(child, groups=child_groups)
            model = next_model
            CASES["decisions"] += 1
            CASES["spawns"] += 1
            assert session.allowed == model.allowed, (session.id, session.allowed,
                                                      model.allowed)
    return expected


def load_or_predict(root: Path, case: dict[str, Any], pool: dict[str, OTool]
                    ) -> tk.Project | None:
    try:
        check_definitions(pool, oracle_agents(case), case["preset"])
    except OracleDefinitionError:
        CASES["load_errors"] += 1
        with pytest.raises(tk.DefinitionError) as exc:
            tk.load(root, preset=case["preset"])
        assert all(p.file for p in exc.value.problems)
        return None
    return tk.load(root, preset=case["preset"])


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(case=case_st)
def test_sessions_match_the_brute_force_oracle_in_process(case: dict[str, Any]) -> None:
    CASES["in_process"] += 1
    pool = oracle_pool(case["pool"])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_project(root, case)
        proj = load_or_predict(root, case, pool)
        if proj is None:
            return
        recorder = Recorder()
        proj.execute = recorder  # type: ignore[method-assign]
        try:
            run_case(proj, case, pool, lambda: recorder.calls)
        finally:
            proj.close()


def test_oracle_case_count() -> None:
    """Runs after the property above (file order): it really generated 10,000 cases."""
    assert CASES["in_process"] == 0 or CASES["in_process"] >= min(EXAMPLES, 10_000)
    if CASES["in_process"]:
        assert CASES["reached"] > 0 and CASES["blocked"] > 0 and CASES["spawns"] > 0
        print(f"\noracle: {CASES}")


# -- a few hundred cases against real server processes ---------------------------------------

def _fixed_pool(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    pool = {}
    for name in TOOL_NAMES:
        groups = rng.sample(GROUPS, rng.randint(0, 2))
        states = None if rng.random() < 0.4 else rng.sample([*STATES, "*"], rng.randint(0, 2))
        pool[name] = (groups, states, rng.choice([None, None, *STATES]))
    return pool


def _agent_text(name: str, allow: list[str] | None, deny: list[str]) -> str:
    front: dict[str, Any] = {"name": name}
    if allow is not None:
        front["tools"] = allow
    if deny:
        front["disallowedTools"] = deny
    return f"---\n{yaml.safe_dump(front)}---\nAgent {name}.\n"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One project per preset (a random pool drawn once), each connected to its own real
    MCP server process for the whole module; the cases swap its agents."""
    out: dict[str, Any] = {}
    try:
        for i, preset in enumerate(PRESETS):
            root = tmp_path_factory.mktemp(f"srv-{preset}")
            log = root / "calls.log"
            pool = _fixed_pool(100 + i)
            entry = {**raw("names", ",".join(TOOL_NAMES)), "env": {"FAULT_CALL_LOG": str(log)}}
            write_project(root, {"pool": pool, "agents": {}}, entry)
            proj = tk.load(root, preset=preset)
            status = proj.connect()
            assert status.loc["srv", "state"] == "connected"
            assert all(proj.tools[n].binding == f"@srv/{n}" for n in TOOL_NAMES)
            out[preset] = {"proj": proj, "log": log, "pool": pool}
        yield out
    finally:
        for info in out.values():
            info["proj"].close()
    assert wait_no_descendants() == []


@pytest.mark.slow
@settings(max_examples=300, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(case=case_st)
def test_sessions_match_the_oracle_against_real_servers(servers: dict[str, Any],
                                                        case: dict[str, Any]) -> None:
    CASES["real_server"] += 1
    info = servers[case["preset"]]
    proj: tk.Project = info["proj"]
    case = {**case, "pool": info["pool"]}
    pool = oracle_pool(case["pool"], server="srv")
    try:
        check_definitions(pool, oracle_agents(case), case["preset"])
        predicted_error = False
    except OracleDefinitionError:
        predicted_error = True
    failed = False
    for name, (allow, deny) in case["agents"].items():
        try:
            proj.add_agent(_agent_text(name, allow, deny), file=f"{name}.md", replace=True)
        except tk.DefinitionError as exc:
            assert exc.problems and exc.problems[0].file == f"{name}.md"
            failed = True
    assert failed == predicted_error
    if failed:
        CASES["load_errors"] += 1
        return
    info["log"].write_text("")
    for session in list(proj.sessions.values()):
        session.close()
    expected = run_case(proj, case, pool, lambda: info["log"].read_text().split())
    assert info["log"].read_text().split() == expected  # exactly what the oracle allowed


def test_real_server_case_count() -> None:
    """Runs after the property above: it really ran a few hundred real-server cases."""
    assert CASES["real_server"] == 0 or CASES["real_server"] >= 300
    print(f"\noracle figures: {CASES}")


@pytest.mark.parametrize("parent_denies", [False, True])
def test_child_denying_a_tool_it_names_is_no_spawn_error_whoever_else_denies_it(
        tmp_path: Path, parent_denies: bool) -> None:
    """Regression (found by the oracle): the exemption for a child that denies a tool itself
    used to depend on whose deny was recorded first, so an ancestor's deny of the same tool
    turned it into a SpawnError under strict."""
    case = {"pool": {"t0": ([], None, None), "t1": ([], None, None)},
            "agents": {"root": (["t1"], ["t0"] if parent_denies else []),
                       "kid": (["t0", "t1"], ["t0"])}}
    write_project(tmp_path, case)
    proj = tk.load(tmp_path)  # strict: a child naming a tool its parent lacks is an error
    child = proj.start("root").spawn("kid")  # ... unless the child denies that tool itself
    assert child.allowed == {"t1"}
    proj.close()
