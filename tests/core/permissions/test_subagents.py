"""Subagents: settings rules apply to their calls, their own front matter narrows first, their
permissionMode follows the parent's, and the inheritance-gap report (code.claude.com/docs/en/
sub-agents). Front-matter entries with an argument pattern are built here as the loaders keep
them (``Rule(pattern="Bash", spec="git diff:*")``), and also as one unsplit string."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

import toolkit as tk
from tests.support.claude import permissions
from toolkit.core.models import AgentDefinition, Rule
from toolkit.systems.claude_code.permissions.agents import agent_permissions, effective_mode

Make = Callable[..., tk.Project]
FILE = ".claude/agents/worker.md"


def agent(name: str = "worker", tools: Sequence[tuple[str, str | None]] | None = None,
          disallowed: Sequence[tuple[str, str | None]] = (), **metadata: Any) -> AgentDefinition:
    """A Claude Code subagent as the loaders produce it: one Rule per front-matter entry."""
    def rules(kind: str, entries: Sequence[tuple[str, str | None]], line: int
              ) -> tuple[Rule, ...]:
        return tuple(Rule(kind=kind, pattern=p, spec=s, agent=name, file=FILE, line=line)
                     for p, s in entries)

    return AgentDefinition(name=name, description="test subagent", format="claude-code",
                           file=FILE, line=2,
                           allow=None if tools is None else rules("allow", tools, 4),
                           deny=rules("deny", disallowed, 5), metadata=metadata)


@pytest.fixture
def proj(make: Make) -> tk.Project:
    return make(project=permissions(["Bash(npm run *)"], ask=["Bash(git push *)"],
                                    deny=["Bash(curl *)", "Read(./.env)"]))


def test_settings_rules_apply_to_a_subagents_calls(proj: tk.Project) -> None:
    """sub-agents / SPEC 11: "settings rules apply to a subagent's calls as to the main
    conversation's"."""
    proj.add_agent(agent())  # tools omitted: "Inherits every tool available to subagents"
    for call in ({"command": "npm run build"}, {"command": "curl x"}, {"command": "git push"}):
        main, sub = proj.check_call("Bash", call), proj.check_call("Bash", call, agent="worker")
        assert (sub.effect, sub.rule) == (main.effect, main.rule)
        assert sub.agent == "worker" and main.agent == "main"


def test_disallowed_with_a_pattern_removes_the_whole_tool(proj: tk.Project) -> None:
    """SPEC 11: "disallowedTools: Bash(git push *) removes the whole Bash tool"."""
    proj.add_agent(agent(disallowed=[("Bash", "git push *")]))
    d = proj.check_call("Bash", {"command": "ls"}, agent="worker")
    assert (d.effect.value, d.reason.value, d.rule.text, d.rule.layer) == (
        "explicit-deny", "agent-tools", "Bash(git push *)", "agent")
    assert (d.rule.file, d.rule.line) == (FILE, 5)


def test_a_tool_outside_the_tools_list_cannot_be_called(proj: tk.Project) -> None:
    proj.add_agent(agent(tools=[("Read", None), ("Grep", None)]))
    d = proj.check_call("Bash", {"command": "ls"}, agent="worker")
    assert (d.effect.value, d.reason.value) == ("implicit-deny", "agent-tools")
    assert proj.check_call("Read", {"file_path": "README.md"}, agent="worker").allowed
    assert proj.check_call("Read", {"file_path": ".env"}, agent="worker").rule.text == (
        "Read(./.env)")


def test_a_tools_entry_with_a_pattern_grants_the_tool_and_allows_those_calls(
        proj: tk.Project) -> None:
    """SPEC 3: "the entry grants its tool and keeps its argument pattern for section 11"."""
    proj.add_agent(agent(tools=[("Bash", "npm test:*"), ("Read", None)]))
    d = proj.check_call("Bash", {"command": "npm test --coverage"}, agent="worker")
    assert (d.effect.value, d.rule.text, d.rule.layer, d.rule.file) == (
        "allow", "Bash(npm test:*)", "agent", FILE)
    assert proj.check_call("Bash", {"command": "make"}, agent="worker").effect.value == "ask"
    assert proj.check_call("Bash", {"command": "npm test && curl x"},
                           agent="worker").effect.value == "explicit-deny"
    # the main conversation does not get the subagent's pattern
    assert proj.check_call("Bash", {"command": "npm test"}).effect.value == "ask"


def test_an_unsplit_front_matter_entry_reads_the_same(proj: tk.Project) -> None:
    proj.add_agent(agent(tools=[("Bash(npm test:*)", None)]))
    d = proj.check_call("Bash", {"command": "npm test"}, agent="worker")
    assert (d.effect.value, d.rule.text) == ("allow", "Bash(npm test:*)")


def test_mcp_server_entries(proj: tk.Project) -> None:
    """sub-agents: "mcp__<server> or mcp__<server>__* grants or removes every tool from the
    named server. In disallowedTools, mcp__* also removes every MCP tool from any server"."""
    proj.add_agent(agent(tools=[("mcp__github", None)]))
    assert proj.check_call("mcp__github__get_issue", {}, agent="worker").reason.value != (
        "agent-tools")
    assert proj.check_call("mcp__jira__get", {}, agent="worker").reason.value == "agent-tools"
    proj.add_agent(agent("blocked", disallowed=[("mcp__*", None)]))
    d = proj.check_call("mcp__github__get_issue", {}, agent="blocked")
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "mcp__*")


@pytest.mark.parametrize(("parent", "own", "runs_in"), [
    ("default", "plan", "plan"),  # "A subagent with permissionMode uses it"
    ("plan", "acceptEdits", "acceptEdits"),
    ("acceptEdits", "plan", "acceptEdits"),  # "If the parent uses ... acceptEdits, this takes
    ("bypassPermissions", "plan", "bypassPermissions"),  # precedence and can't be overridden"
    ("auto", "default", "auto"),  # "the subagent inherits auto mode"
    ("default", "bypassPermissions", "default"),  # SPEC 11: falls back to the parent's mode
    ("plan", None, "plan"),
])
def test_permission_mode_of_a_subagent(parent: str, own: str | None, runs_in: str) -> None:
    perms = agent_permissions(agent(**({} if own is None else {"permissionMode": own})))
    assert effective_mode(parent, perms)[0] == runs_in


def test_a_subagents_mode_in_a_call(proj: tk.Project) -> None:
    proj.add_agent(agent(permissionMode="plan"))
    d = proj.check_call("Edit", {"file_path": "src/a.py"}, agent="worker")
    assert (d.mode, d.effect.value) == ("plan", "implicit-deny")
    assert proj.check_call("Edit", {"file_path": "src/a.py"}, agent="worker",
                           mode="acceptEdits").allowed


def test_spawn_list_applies_only_to_the_main_thread(proj: tk.Project) -> None:
    """sub-agents: "The Agent(agent_type) allowlist syntax applies only to an agent running as
    the main thread with claude --agent ... any type list inside the parentheses is ignored"."""
    proj.add_agent(agent("lead", tools=[("Agent", "worker, researcher"), ("Read", None)]))
    d = proj.check_call("Agent", {"subagent_type": "someone-else"}, agent="lead")
    assert d.allowed
    note = next(s for s in d.trace if s.outcome == "skip" and s.name == "agent-tools")
    assert "Agent(worker, researcher)" in note.detail and "main thread" in note.detail
    gaps = proj.inheritance_gaps()
    spawn = gaps[gaps["kind"] == "spawn"].iloc[0]
    assert (spawn["agent"], spawn["rule"], spawn["file"], spawn["line"]) == (
        "lead", "Agent(worker, researcher)", FILE, 4)


def test_inheritance_gaps_list_rules_a_subagent_could_get_around(proj: tk.Project) -> None:
    proj.add_agent(agent("shell", tools=[("Bash", None)]))
    proj.add_agent(agent("careful", tools=[("Bash", None), ("Read", None)],
                         disallowed=[("Read", None)]))
    proj.add_agent(agent("reader", tools=[("Grep", None)]))
    gaps = proj.inheritance_gaps()
    assert list(gaps.columns) == ["agent", "rule", "kind", "layer", "file", "line", "tool",
                                  "granted_by", "note"]
    by_agent = {a: sorted(g["rule"]) for a, g in gaps.groupby("agent")}
    assert by_agent["shell"] == ["Bash(curl *)", "Bash(git push *)"]
    assert by_agent["careful"] == ["Bash(curl *)", "Bash(git push *)"]  # its own Read deny
    assert by_agent["reader"] == ["Read(./.env)"]  # Read(...) rules cover Grep
    row = gaps[(gaps["agent"] == "shell") & (gaps["rule"] == "Bash(curl *)")].iloc[0]
    assert (row["kind"], row["layer"], row["file"], row["granted_by"]) == (
        "deny", "project", ".claude/settings.json", "tools: Bash")
