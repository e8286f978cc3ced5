"""Scenarios of adh-cli ADR 021 (seed 002): the front matter ``tools:`` list is the truth.

The ADR's own five tests (its "Testing Strategy") are here under their names,
plus its other requirements: fail fast with the available tools listed, an
empty list means no tools, option A (per-agent description) and option C
(per-agent "Tool Usage Guidelines"), and the CI validation of tool names.
The shipped example ``toolkit/examples/adh-cli`` holds the registry and the
agents the ADR shows (researcher, tester, code_reviewer, orchestrator).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main

Write = Callable[..., Path]

RESEARCHER_TOOLS = {"read_file", "list_directory", "get_file_info", "execute_command",
                    "google_search", "google_url_context"}
REGISTRY = """
    tool:
      read_file: {description: "Read contents of a text file"}
      execute_command: {description: "Execute a shell command in the repository"}
      google_search: {type: native, description: "Search the web using Google Search"}
"""
BAD_AGENT = """
    ---
    name: bad_agent
    tools:
      - read_file
      - fake_tool
    ---
    A temp agent definition with a typo.
"""


@pytest.fixture
def proj(examples: Path) -> tk.Project:
    return tk.load(examples / "adh-cli")


def declared(proj: tk.Project, agent: str) -> set[str]:
    """The names an agent's front matter lists."""
    return {str(rule.pattern) for rule in proj.agents[agent].allow or ()}


def test_yaml_tools_are_registered(proj: tk.Project) -> None:
    # Researcher lists 6 tools in YAML; exactly those are its tools.
    assert proj.resolve("researcher").allowed == RESEARCHER_TOOLS
    session = proj.start("researcher")
    assert session.allowed == RESEARCHER_TOOLS


def test_invalid_tool_name_raises(write: Write) -> None:
    root = write({"toolkit.yaml": "preset: adh-cli\n", "registry.yaml": REGISTRY,
                  "agents/bad_agent/agent.md": BAD_AGENT})
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(root)
    message = str(exc.value)
    assert isinstance(exc.value, ValueError)  # the ADR raises ValueError
    assert "fake_tool" in message
    assert "not found in registry" in message
    assert "Available tools:" in message
    assert "read_file" in message.split("Available tools:", 1)[1]
    assert "execute_command" in message.split("Available tools:", 1)[1]
    # Fail fast at the offending line.
    assert (exc.value.file, exc.value.line) == ("agents/bad_agent/agent.md", 5)


def test_invalid_tool_name_fails_ci_validation(write: Write) -> None:
    root = write({"toolkit.yaml": "preset: adh-cli\n", "registry.yaml": REGISTRY,
                  "agents/bad_agent/agent.md": BAD_AGENT})
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(root)], out=out, err=err)
    assert code == 1
    lines = (out.getvalue() + err.getvalue()).splitlines()
    assert any(line.startswith("agents/bad_agent/agent.md:5:") and "fake_tool" in line
               for line in lines), lines


def test_native_adk_tools_registered(proj: tk.Project) -> None:
    allowed = proj.resolve("researcher").allowed
    google = {t for t in allowed if t in ("google_search", "google_url_context")}
    assert len(google) == 2
    for name in ("google_search", "google_url_context"):
        assert proj.tools[name].source == "native"
    # Native tools of another runtime resolve, but report that they do not run here.
    result = proj.start("researcher").call("google_search", {"query": "toolkit"})
    assert result.is_error
    assert "not executable here" in result.text


def test_no_hidden_tools(proj: tk.Project) -> None:
    registered = proj.resolve("code_reviewer").allowed
    assert declared(proj, "code_reviewer") == {"read_file", "list_directory", "execute_command"}
    assert registered == declared(proj, "code_reviewer")  # no extras, no missing
    # The same for every agent: what the YAML lists is exactly what it gets.
    for agent in proj.agents:
        assert proj.resolve(agent).allowed == declared(proj, agent), agent
    # Tools the pool has but the agent does not list are refused at call time.
    with pytest.raises(tk.ToolNotFoundError, match="tool not found: google_search"):
        proj.start("code_reviewer").call("google_search", {"query": "x"})


def test_registry_has_all_tools(proj: tk.Project) -> None:
    all_tools: set[str] = set()
    for agent in proj.agents:
        all_tools |= declared(proj, agent)
    assert all_tools == RESEARCHER_TOOLS
    for tool_name in all_tools:
        assert tool_name in proj.tools, f"Tool '{tool_name}' used by agents but not in registry"


def test_agent_with_empty_tools_list_has_no_tools(proj: tk.Project) -> None:
    # orchestrator: tools: [] -- "Agent explicitly has no tools (valid for some agents)".
    assert proj.resolve("orchestrator").allowed == frozenset()
    d = proj.explain("orchestrator", "read_file")
    assert (d.allowed, d.effect) == (False, "implicit-deny")


def test_per_agent_description_override_option_a(proj: tk.Project) -> None:
    assert proj.agents["code_reviewer"].descriptions["execute_command"] == (
        "Run read-only commands for research (e.g. rg, task list)")
    # The registry keeps its generic description (one spec serves all agents).
    assert proj.tools["execute_command"].description == (
        "Execute a shell command in the repository")
    assert "execute_command" in proj.resolve("code_reviewer").allowed


def test_prompt_based_customization_option_c(proj: tk.Project) -> None:
    researcher = proj.agents["researcher"]
    tester = proj.agents["tester"]
    assert {"execute_command", "google_search", "google_url_context"} <= set(
        researcher.guidelines)
    assert "rg" in researcher.guidelines["execute_command"]
    assert "task lint" in tester.guidelines["execute_command"]
    assert researcher.guidelines["execute_command"] != tester.guidelines["execute_command"]
    assert "Always cite external sources" in researcher.guidelines["google_search"]
    # Same generic tool for both agents.
    assert "execute_command" in proj.resolve("tester").allowed
    assert "execute_command" in proj.resolve("researcher").allowed
    assert "You validate builds and tests" in tester.system_prompt
