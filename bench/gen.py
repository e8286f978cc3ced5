"""Generated projects for the benchmarks: many agents, many tools, every kind of rule.

The generator is deterministic (a seeded ``random.Random``), so every run
benchmarks the same project. Tools follow ``<service>_<verb>_<object><n>``
naming, which gives globs like ``svc03_*`` and ``*_read_*`` something real to
match; agents mix exact names, globs, ``"*"``, deny lists and aliases.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import yaml

__all__ = ["GROUPS", "STATES", "GeneratedProject", "contexts", "generate", "new_server_tools"]

GROUPS = ("read-only", "write", "knowledge", "compute", "admin", "basic", "advanced", "text")
STATES = ("undefined", "analysis", "research", "modification", "results")
VERBS = ("read", "list", "get", "write", "update", "delete", "query", "run")
OBJECTS = ("doc", "entity", "graph", "file", "job", "user", "table", "index")


@dataclass
class AgentSpec:
    """One generated agent: its allow rules, deny rules and aliases."""

    name: str
    tools: list[str]
    disallowed: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)


@dataclass
class GeneratedProject:
    """What :func:`generate` wrote, kept for the comparison implementations."""

    root: Path
    tools: dict[str, dict[str, list[str]]]  # name -> {"group": [...], "available_in_states": [...]}
    agents: list[AgentSpec]
    services: int


def contexts(n: int = 16) -> tuple[list[list[str]], list[str]]:
    """``n`` group/state contexts as (group sets, states) whose product has ``n`` entries."""
    group_sets = [["read-only"], ["read-only", "knowledge"], ["write", "compute", "admin"], ["*"]]
    states = ["undefined", "analysis", "research", "results"]
    if n >= 16:
        return group_sets, states
    if n >= 4:
        return group_sets[:2], states[:2]
    return group_sets[:1], states[:1]


def _tool_names(n_tools: int, services: int) -> list[str]:
    names = []
    for i in range(n_tools):
        svc = i % services
        verb = VERBS[(i // services) % len(VERBS)]
        obj = OBJECTS[(i // (services * len(VERBS))) % len(OBJECTS)]
        names.append(f"svc{svc:02d}_{verb}_{obj}{i}")
    return names


def generate(root: Path, n_agents: int = 200, n_tools: int = 5000, seed: int = 5) -> (
        GeneratedProject):
    """Write a TrustGraph-style ``tools.yaml`` and ``n_agents`` agent files under ``root``."""
    rng = random.Random(seed)
    services = 40 if n_tools >= 400 else max(2, n_tools // 10)
    names = _tool_names(n_tools, services)
    tools: dict[str, dict[str, list[str]]] = {}
    for name in names:
        entry: dict[str, list[str]] = {"group": rng.sample(GROUPS, rng.randint(1, 3))}
        if rng.random() < 0.6:  # 40 % of the tools are available in every state
            entry["available_in_states"] = rng.sample(STATES, rng.randint(1, 3))
        tools[name] = entry
    root.mkdir(parents=True, exist_ok=True)
    (root / "tools.yaml").write_text(
        yaml.safe_dump({"tool": tools}, default_flow_style=None, width=200), encoding="utf-8")
    (root / "toolkit.yaml").write_text("preset: trustgraph\n", encoding="utf-8")
    agents_dir = root / "agents"
    agents_dir.mkdir(exist_ok=True)
    agents: list[AgentSpec] = []
    for a in range(n_agents):
        kind = a % 10
        allow: list[str] = []
        aliases: dict[str, str] = {}
        if kind == 0:
            allow = ["*"]
        else:
            allow += rng.sample(names, min(len(names), rng.randint(5, 25)))  # exact names
            for _ in range(rng.randint(1, 3)):
                allow.append(f"svc{rng.randrange(services):02d}_*")
            if kind in (3, 6):
                allow.append(f"*_{rng.choice(VERBS)}_*")
            if kind in (4, 8):
                allow.append(f"svc{rng.randrange(services):02d}_{rng.choice(VERBS)}_?*")
            for k in range(rng.randint(0, 2)):
                alias = f"my-tool-{a}-{k}"
                aliases[alias] = rng.choice(names)
                allow.append(alias)
        deny: list[str] = []
        if a % 3 == 0:
            deny.append(f"*_{rng.choice(('delete', 'write'))}_*")
        if a % 4 == 1:
            deny += rng.sample(names, 3)
        agents.append(AgentSpec(f"agent-{a:03d}", allow, deny, aliases))
        front = {"name": f"agent-{a:03d}", "tools": allow}
        if deny:
            front["disallowedTools"] = deny
        if aliases:
            front["aliases"] = aliases
        text = "---\n" + yaml.safe_dump(front, default_flow_style=None, width=200) + "---\n"
        (agents_dir / f"agent-{a:03d}.md").write_text(text + "Generated agent.\n",
                                                      encoding="utf-8")
    (root / "expected.json").write_text(json.dumps({"agents": n_agents, "tools": n_tools}),
                                        encoding="utf-8")
    return GeneratedProject(root, tools, agents, services)


def new_server_tools(server: str, n: int = 100) -> list[tuple[str, str]]:
    """(canonical, remote) names of ``n`` tools of a newly connected server."""
    return [(f"@{server}/{VERBS[i % len(VERBS)]}_{OBJECTS[i % len(OBJECTS)]}_{i}",
             f"{VERBS[i % len(VERBS)]}_{OBJECTS[i % len(OBJECTS)]}_{i}") for i in range(n)]
