"""emergent blueprint agents (``blueprints/<blueprint>/agents/*.yaml``), read as emergent does.

The fixtures reproduce the shapes of emergent-company/emergent.memory's blueprint agent
files (commit 8614f108): ``blueprints/multi-agent/agents/orchestrator.yaml`` (folded
description, ``flowType``, ``maxSteps``, ``isDefault``, ``defaultTimeout``, a ``tools``
list, a literal ``systemPrompt``, ``config.spawnPolicy.allow``),
``blueprints/multi-agent/agents/code-researcher.yaml`` (a ``workspaceConfig`` with its own
nested ``tools`` list) and ``blueprints/test-agents/agents/remember-test.yaml`` (``model``,
``visibility``, ``toolPolicies`` with ``confirm`` and ``message``). The semantics are
emergent's ``tools/cli/internal/blueprints`` (AgentFile, ``name is required``) and
``apps/server/domain/agents/toolpool.go`` (empty whitelist = no tools, ``*``, globs,
unknown names skipped with a warning).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.systems.load import load_definitions

Write = Callable[..., Path]

# The tools the blueprints name, as a registry (emergent's server supplies them at run time).
REGISTRY = """
tool:
  search: {}
  graph_query: {}
  graph_write: {}
  agent_trigger: {}
  human_checkpoint: {}
  classify-document: {}
  finalize-discovery: {}
  spawn_agents: {}
  list_available_agents: {}
"""

# Shape of blueprints/multi-agent/agents/orchestrator.yaml.
ORCHESTRATOR = """
name: orchestrator
description: >
  The primary orchestrator. Receives a WorkPackage, decomposes it into a task tree,
  assigns tasks to agent pools: always proposes three options.

flowType: agentic
maxSteps: 40
isDefault: true
defaultTimeout: 600

tools:
  - search
  - graph_query
  - graph_write
  - agent_trigger
  - human_checkpoint

systemPrompt: |
  You are the orchestrator.

  ## Workflow
  1. Read the WorkPackage: key: value pairs # are text here

config:
  agentType: orchestrator
  tier: standard
  spawnPolicy:
    allow:
      - research-manager
      - code-researcher
"""

# Shape of blueprints/multi-agent/agents/code-researcher.yaml: workspaceConfig.tools are
# the sandbox's tools, not the agent's whitelist.
CODE_RESEARCHER = """
name: code-researcher
description: >
  Leaf agent that conducts codebase research tasks inside a sandboxed workspace.

flowType: agentic
maxSteps: 20
isDefault: false
defaultTimeout: 300

tools:
  - graph_query
  - graph_write

workspaceConfig:
  enabled: true
  base_image: researcher
  repo_source:
    type: none
  tools:
    - read
    - glob
    - grep
    - git

config:
  agentType: leaf
  taskTypes: research
  tier: cheap

systemPrompt: |
  You are a code research specialist.
"""

# Shape of blueprints/test-agents/agents/remember-test.yaml.
REMEMBER_TEST = """
name: remember-test
description: >
  Test agent mimicking the future built-in /remember endpoint.
systemPrompt: |
  NEVER call any tool not listed below. ONLY use: classify-document, finalize-discovery.
tools:
  - classify-document
  - finalize-discovery
flowType: single
visibility: project
maxSteps: 30
model:
  name: openai-compatible/deepseek-chat
  enableThinking: false
toolPolicies:
  finalize-discovery:
    confirm: true
    message: "Agent wants to call **finalize-discovery** to create a schema pack. Approve?"
"""

# The other data files of a blueprint: a pack, the project file and seed data.
BLUEPRINT_OTHERS = {
    "blueprints/multi-agent/packs/multi-agent-task-pack.yaml":
        "name: multi-agent-task-pack\nversion: 1.0.0\nobjectTypes:\n  - name: Task\n",
    "blueprints/multi-agent/project.yaml": "name: multi-agent\ndescription: Agents\n",
    "blueprints/multi-agent/seed/objects/KPI.jsonl": '{"type": "KPI", "key": "kpi-1"}\n',
    "blueprints/multi-agent/README.md": "# Multi-agent blueprint\n",
}


def blueprint(write: Write, preset: str = "emergent", **agents: str) -> Path:
    files = {f"blueprints/multi-agent/agents/{name}.yaml": text for name, text in agents.items()}
    return write({"toolkit.yaml": f"preset: {preset}\n", "tools.yaml": REGISTRY,
                  **BLUEPRINT_OTHERS, **files})


def test_blueprint_agents_load_with_emergents_field_set(write: Write) -> None:
    root = blueprint(write, orchestrator=ORCHESTRATOR, **{
        "code-researcher": CODE_RESEARCHER, "remember-test": REMEMBER_TEST})
    defs = load_definitions(root)
    assert defs.problems == []  # the pack, project file and seed data: not agents, no noise
    assert set(defs.agents) == {"orchestrator", "code-researcher", "remember-test"}
    orch = defs.agents["orchestrator"]
    assert orch.format == "emergent"
    assert (orch.file, orch.line) == ("blueprints/multi-agent/agents/orchestrator.yaml", 1)
    assert orch.description.startswith("The primary orchestrator. Receives")
    assert orch.system_prompt.startswith("You are the orchestrator.")
    assert [(r.pattern, r.line) for r in orch.allow or ()] == [
        ("search", 12), ("graph_query", 13), ("graph_write", 14), ("agent_trigger", 15),
        ("human_checkpoint", 16)]
    assert orch.metadata["flowType"] == "agentic" and orch.metadata["maxSteps"] == 40
    assert orch.metadata["spawn_policy"] == ["research-manager", "code-researcher"]
    researcher = defs.agents["code-researcher"]
    assert [r.pattern for r in researcher.allow or ()] == ["graph_query", "graph_write"]
    assert researcher.metadata["workspaceConfig"]["tools"] == ["read", "glob", "grep", "git"]
    remember = defs.agents["remember-test"]
    assert remember.model == "openai-compatible/deepseek-chat"
    assert remember.metadata["visibility"] == "project"

    proj = tk.load(root)
    assert set(proj.resolve("code-researcher").allowed) == {"graph_query", "graph_write"}
    assert "read" not in proj.tools  # the sandbox's tools are not the agent's


def test_tool_policies_confirm_makes_the_tool_ask(write: Write) -> None:
    proj = tk.load(blueprint(write, **{"remember-test": REMEMBER_TEST}))
    asks = proj.explain("remember-test", "finalize-discovery")
    assert (asks.effect, asks.reason) == ("ask", "approval")
    assert (asks.rule.file, asks.rule.line) == (
        "blueprints/multi-agent/agents/remember-test.yaml", 17)
    assert proj.explain("remember-test", "classify-document").effect == "allow"


@pytest.mark.parametrize("preset", ["emergent", "strict"])
def test_empty_tools_list_grants_no_tool(write: Write, preset: str) -> None:
    """toolpool.go: "An explicit empty whitelist means the agent has no tool access"."""
    proj = tk.load(blueprint(write, preset, idle="name: idle\nflowType: single\ntools: []\n"))
    assert proj.resolve("idle").allowed == frozenset()


def test_star_glob_and_unknown_names(write: Write) -> None:
    proj = tk.load(blueprint(
        write,
        everything='name: everything\nflowType: agentic\ntools: ["*"]\n',
        grapher="name: grapher\nflowType: agentic\ntools:\n  - graph_*\n  - brave_web_search\n"))
    assert set(proj.resolve("everything").allowed) == set(proj.tools)
    assert set(proj.resolve("grapher").allowed) == {"graph_query", "graph_write"}
    # emergent: "tool not found in pool, skipping" (a warning, not a failure)
    assert any("brave_web_search" in w.message and w.line == 5 for w in proj.warnings)


def test_unquoted_star_is_a_yaml_alias_with_a_readable_message(write: Write) -> None:
    root = blueprint(write, star="name: star\nflowType: agentic\ntools: *\n")
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root)
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("blueprints/multi-agent/agents/star.yaml", 3)
    assert "bare * starts an alias" in problem.message and 'tools: ["*"]' in problem.message


@pytest.mark.parametrize(("text", "line", "says"), [
    # yaml.v3 cannot decode a string into AgentFile.Tools ([]string)
    ('name: a\ntools: "*"\n', 2, ("tools must be a list", 'tools: ["*"]',
                                  "cannot unmarshal !!str `*` into []string")),
    ("name: a\ntools: search\n", 2, "cannot unmarshal !!str `search` into []string"),
    ("name: a\nmaxSteps: many\n", 2, "cannot unmarshal !!str `many` into *int"),
    ("name: a\ntools:\n  - {name: search}\n", 3, "cannot unmarshal !!map into string"),
    ("name: a\ntoolPolicies:\n  search:\n    confirm: please\n", 4,
     "cannot unmarshal !!str `please` into bool"),
    ("name: a\nmodel: gpt-4o\n", 2, "into *blueprints.AgentModel"),
    # validateAgent: "name is required"
    ("description: nameless\nflowType: single\ntools: [search]\n", 1, "name is required"),
    ("name: ''\nflowType: single\n", 1, "name is required"),
])
def test_a_file_emergent_rejects_is_a_located_definition_error(write: Write, text: str,
                                                                line: int,
                                                                says: str | tuple[str, ...]
                                                                ) -> None:
    root = blueprint(write, broken=text)
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root)
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("blueprints/multi-agent/agents/broken.yaml", line)
    for words in (says,) if isinstance(says, str) else says:
        assert words in problem.message, problem.message


def test_a_file_emergent_accepts_loads(write: Write) -> None:
    """Unknown keys are ignored and scalars decode into strings, as yaml.v3 does."""
    proj = tk.load(blueprint(write, odd=(
        "name: odd\nflowType: agentic\ndispatchMode: async\nsomethingNew: {a: 1}\n"
        "skills: [planning]\ntools:\n  - search\n  - 42\ndescription: 7\n")))
    agent = proj.agents["odd"]
    assert [r.pattern for r in agent.allow or ()] == ["search", "42"]
    assert agent.description == "7"
    assert "somethingNew" not in agent.metadata and agent.metadata["skills"] == ["planning"]


def test_json_agent_files_match_keys_ignoring_case(write: Write) -> None:
    """``encoding/json`` matches ``SystemPrompt`` to the ``systemPrompt`` field."""
    root = write({"tools.yaml": REGISTRY, "toolkit.yaml": "preset: emergent\n",
                  "blueprints/ops/agents/janitor.json":
                      '{\n  "name": "janitor",\n  "SystemPrompt": "Tidy up.",\n'
                      '  "tools": ["graph_query"]\n}\n'})
    proj = tk.load(root)
    assert proj.agents["janitor"].system_prompt == "Tidy up."
    assert set(proj.resolve("janitor").allowed) == {"graph_query"}
    bad = write({"blueprints/ops/agents/bad.json": '{\n  "name": "bad",\n  "tools": [7]\n}\n'})
    with pytest.raises(tk.DefinitionError, match="json: cannot unmarshal number"):
        tk.load(bad)


def test_a_blueprint_folder_given_directly_is_read_by_content(write: Write) -> None:
    root = blueprint(write, orchestrator=ORCHESTRATOR, **{"remember-test": REMEMBER_TEST})
    defs = load_definitions(root / "blueprints" / "multi-agent")
    assert set(defs.agents) == {"orchestrator", "remember-test"}
    assert defs.agents["orchestrator"].file == "agents/orchestrator.yaml"
    assert defs.problems == []


@pytest.mark.parametrize(("manifest", "kept_at_depth_2"), [("", False), ("max_depth: 6\n", True)])
def test_spawn_depth_is_the_presets_unless_the_manifest_sets_it(write: Write, manifest: str,
                                                                 kept_at_depth_2: bool) -> None:
    """Agent files carry no depth. The emergent preset's max_depth is 2 (SPEC); emergent's
    server defaults to 6 (toolpool.go DefaultMaxDepth), which ``max_depth: 6`` reproduces."""
    delegator = ("name: delegator\nflowType: agentic\n"
                 "tools: [spawn_agents, list_available_agents, search]\n")
    root = blueprint(write, delegator=delegator)
    (root / "toolkit.yaml").write_text("preset: emergent\n" + manifest)
    with tk.load(root) as proj:
        grandchild = proj.start("delegator").spawn("delegator").spawn("delegator")
        assert grandchild.depth == 2
        assert ("spawn_agents" in grandchild.allowed) is kept_at_depth_2
        assert "search" in grandchild.allowed
