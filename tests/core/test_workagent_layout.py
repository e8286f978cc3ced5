"""work-agent's real layout, read as work-agent reads it (issue 13; SPEC section 3, work-agent).

The fixture ``tests/fixtures/work-agent-repo`` is a repository root holding ``.work-agent/``,
written for these tests in the shapes of briananderson1222/work-agent's files (none copied):

- ``agents/calendar-lookup/agent.json``: ``.work-agent/agents/test-nova-limited-tools/agent.json``
  (display name, prompt, model, guardrails, streaming, one server, one exact available
  name, the same name auto-approved), with a conversation under ``memory/`` as work-agent
  stores them;
- ``agents/crm-suite:account-manager/agent.json``: ``.work-agent/agents/stallion-workspace:
  work-agent/agent.json`` (a plugin-namespaced slug with ``:``, ``server_*`` wildcards, an
  exact autoApprove list, ``commands``, ``ui.quickPrompts``);
- ``agents/workspace-bootstrapper/agent.json``: ``examples/self-configuring-agent/agent.json``
  on ``feat/codex-convergence`` (stallion-control tools, a ``delegation`` block with
  ``maxDepth`` and ``blockedTools``);
- ``agents/researcher/agent.json``: the default agent ``stallion-runtime.ts`` builds
  (``available: ['*']``, ``autoApprove: ['stallion-control_*']``-style patterns);
- ``agents/notes-keeper/agent.json``: an inline ``InlineIntegration`` object in
  ``mcpServers`` (``packages/shared/src/index.ts:124-150`` at 26cbfa5, PR #11) and
  ``tools.env``;
- ``agents/default/agent.json``: ``.work-agent/agents/default/agent.json`` (``mcpServers: []``,
  ``available: []``);
- ``agents/legacy-scheduler``, ``agents/crm-reader``, ``agents/restricted-lead``: the same
  schema with the legacy ``server/*`` form, normalised names, and ``delegation.allowedTools``
  / ``denyApprovals: false`` / ``maxDepth: 1``;
- ``tools/calendar-mcp/tool.json``: ``.work-agent/tools/sat-outlook/tool.json``;
  ``tools/crm-mcp/tool.json``: ``.work-agent/tools/files/tool.json`` (permissions, timeouts,
  exposedTools) plus ``healthCheck`` and ``transport: process`` from ``schemas/tool.schema.json``;
  ``tools/stallion-control/tool.json``: the integration ``stallion-runtime.ts`` seeds;
- work-agent's own data, which it does not read as definitions and neither does toolkit:
  ``config/app.json`` (``.work-agent/config/app.json``), ``agents-archive/``,
  ``plugins/<name>/`` (``.work-agent/plugins/stallion-workspace/``), ``workspaces/``.

MCP servers are not started: each test hands the project the tools a server would list.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from toolkit.runtime.builtins import CallResult

FIXTURE = Path(__file__).parents[1] / "fixtures" / "work-agent-repo"
SERVER_TOOLS = {
    "calendar-mcp": ["list_events", "find_free_time", "create_event"],
    "crm-mcp": ["search_accounts", "get_account", "update_opportunity"],
    "stallion-control": ["list_agents", "get_project", "list_prompts", "create_prompt",
                         "update_config", "send_message", "delete_agent", "add_skill",
                         "run_job"],
    "notes-mcp": ["read_notes"],
}
AGENTS = {"calendar-lookup", "crm-reader", "crm-suite:account-manager", "default",
          "legacy-scheduler", "notes-keeper", "researcher", "restricted-lead",
          "workspace-bootstrapper"}


def mcp(server: str, tool: str) -> tk.Tool:
    return tk.Tool(name=f"@{server}/{tool}", server=server, remote_name=tool,
                   source=f"mcp:{server}")


def connected(proj: tk.Project) -> tk.Project:
    """Give the project the tools each server would list (as proj.connect() would)."""
    proj.set_many_server_tools({s: [mcp(s, t) for t in tools]
                                for s, tools in SERVER_TOOLS.items()})
    return proj


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture
def proj(repo: Path) -> tk.Project:
    return connected(tk.load(repo))


def agent_file(repo: Path, slug: str) -> Path:
    return repo / ".work-agent" / "agents" / slug / "agent.json"


def edit(path: Path, **changes: Any) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))


class Executor:
    """Stands in for Project.execute: records the canonical names that ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    async def __call__(self, session: Any, tool: tk.Tool, args: dict[str, Any],
                       timeout: float | None = None) -> CallResult:
        self.ran.append(tool.name)
        return CallResult.of_text("ok")


# -- the layout -----------------------------------------------------------------------------------

def test_repository_root_finds_work_agent_and_is_detected_as_its_preset(repo: Path) -> None:
    proj = tk.load(repo)  # no preset, no manifest: the layout shows work-agent
    assert proj.preset.name == "work-agent"
    assert ".work-agent/" in proj.preset_reason
    assert set(proj.agents) == AGENTS
    assert set(proj.server_configs) == {"calendar-mcp", "crm-mcp", "stallion-control",
                                        "notes-mcp"}
    # Nothing but the agents' pending tool names is worth a warning: the conversation with
    # a "tools" key, app.json, archived and plugin agents, workspaces are not read.
    assert all("not in the pool yet" in w.message for w in proj.warnings), proj.warnings


def test_work_agent_folder_itself_loads_the_same(repo: Path) -> None:
    proj = tk.load(repo / ".work-agent")
    assert proj.preset.name == "work-agent"
    assert set(proj.agents) == AGENTS


def test_own_data_is_not_read(repo: Path) -> None:
    # Broken as definitions, but work-agent's own data: still no error, no warning.
    work = repo / ".work-agent"
    (work / "config" / "app.json").write_text('{"tools": {"available": 3}}')
    (work / "agents-archive" / "old-helper" / "agent.json").write_text('{"name": ')
    proj = tk.load(repo)
    assert "old-helper" not in proj.agents
    assert all("not in the pool yet" in w.message for w in proj.warnings)


def test_agent_is_its_folder_slug_not_its_display_name(proj: tk.Project) -> None:
    agent = proj.agents["crm-suite:account-manager"]
    assert agent.metadata["name"] == "Account Manager"  # the display name, kept
    assert agent.system_prompt.startswith("You help an account manager")
    assert proj.explain("crm-suite:account-manager", "crm-mcp_get_account").allowed
    with pytest.raises(tk.UnknownAgentError):
        proj.resolve("Account Manager")


def test_tool_json_is_one_catalog_entry_with_its_real_fields(proj: tk.Project) -> None:
    crm = proj.server_configs["crm-mcp"]
    assert (crm.transport, crm.command) == ("stdio", "npx")  # transport "process"
    assert crm.args == ("-y", "@example/crm-mcp-server", "--region", "eu")
    assert crm.env == {"CRM_REGION": "eu"}
    assert crm.startup_timeout == 8.0  # timeouts.startupMs
    assert crm.health_check is not None and crm.health_check["intervalSeconds"] == 15.0
    assert (crm.file, crm.line) == (".work-agent/tools/crm-mcp/tool.json", 1)


def test_tool_json_is_known_by_its_folder(repo: Path) -> None:
    path = repo / ".work-agent" / "tools" / "calendar-mcp" / "tool.json"
    edit(path, id="team-calendar")
    proj = tk.load(repo)
    assert "calendar-mcp" in proj.server_configs  # loadTool(id) reads tools/<id>/tool.json
    assert any("differs from the folder" in w.message for w in proj.warnings)


def test_inline_mcp_server_object(proj: tk.Project) -> None:
    notes = proj.server_configs["notes-mcp"]
    assert (notes.command, notes.args) == ("notes-mcp-server", ("--read-only",))
    assert notes.env == {"NOTES_TOKEN": "demo-token"}  # the agent's tools.env
    assert (notes.file, notes.line) == (".work-agent/agents/notes-keeper/agent.json", 7)
    assert proj.agents["notes-keeper"].use_servers == ("calendar-mcp", "notes-mcp")
    assert proj.resolve("notes-keeper").allowed == {
        "@notes-mcp/read_notes", *(f"@calendar-mcp/{t}" for t in SERVER_TOOLS["calendar-mcp"])}


def test_inline_server_differing_from_another_of_its_id_is_an_error(repo: Path) -> None:
    path = agent_file(repo, "calendar-lookup")
    data = json.loads(path.read_text())
    data["tools"]["mcpServers"] = [{"id": "notes-mcp", "kind": "mcp", "command": "other"}]
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(tk.DefinitionError, match=r"inline MCP server 'notes-mcp'.*differs"):
        tk.load(repo)


# -- names ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["calendarMcp_listEvents", "calendar-mcp_list_events",
                                  "@calendar-mcp/list_events", "mcp__calendar-mcp__list_events"])
def test_explain_accepts_work_agent_names_and_reports_the_canonical(proj: tk.Project,
                                                                    name: str) -> None:
    d = proj.explain("calendar-lookup", name)
    assert (d.allowed, d.effect, d.canonical) == (True, "allow", "@calendar-mcp/list_events")
    assert (d.rule.file, d.rule.line) == (".work-agent/agents/calendar-lookup/agent.json", 16)


def test_normalised_names_in_available(proj: tk.Project) -> None:
    # crm-reader: available ["crmMcp_searchAccounts", "crmMcp_getAccount"]
    assert proj.resolve("crm-reader").allowed == {"@crm-mcp/search_accounts",
                                                  "@crm-mcp/get_account"}
    assert proj.explain("crm-reader", "crm-mcp_update_opportunity").reason == "allow"


def test_server_star_and_legacy_slash_star(proj: tk.Project) -> None:
    # account manager: ["calendar-mcp_*", "crm-mcp_*"]; legacy scheduler: ["calendar-mcp/*"]
    calendar = {f"@calendar-mcp/{t}" for t in SERVER_TOOLS["calendar-mcp"]}
    crm = {f"@crm-mcp/{t}" for t in SERVER_TOOLS["crm-mcp"]}
    assert proj.resolve("crm-suite:account-manager").allowed == calendar | crm
    assert proj.resolve("legacy-scheduler").allowed == calendar
    d = proj.explain("legacy-scheduler", "crmMcp_getAccount")  # in use, not available
    assert (d.effect, d.reason) == ("implicit-deny", "allow")


@pytest.mark.parametrize("available", [["calendarMcp_*"], ["calendarMcp/*"]])
def test_normalised_server_prefix(repo: Path, available: list[str]) -> None:
    path = agent_file(repo, "legacy-scheduler")
    data = json.loads(path.read_text())
    data["tools"]["available"] = available
    path.write_text(json.dumps(data))
    proj = connected(tk.load(repo))
    assert proj.resolve("legacy-scheduler").allowed == {
        f"@calendar-mcp/{t}" for t in SERVER_TOOLS["calendar-mcp"]}


def test_only_trailing_star_patterns_are_wildcards(repo: Path) -> None:
    path = agent_file(repo, "legacy-scheduler")
    data = json.loads(path.read_text())
    data["tools"]["available"] = ["*_events"]  # work-agent: a tool literally named so
    path.write_text(json.dumps(data, indent=2))
    proj = connected(tk.load(repo))
    assert proj.resolve("legacy-scheduler").allowed == set()
    line = line_of(path, '"*_events"')
    assert any("names a tool literally" in w.message and w.line == line
               for w in proj.warnings), proj.warnings


def test_available_star_is_the_agents_servers_not_the_pool(proj: tk.Project, repo: Path
                                                           ) -> None:
    # researcher: mcpServers [stallion-control, crm-mcp], available ["*"]
    own = {f"@{s}/{t}" for s in ("stallion-control", "crm-mcp") for t in SERVER_TOOLS[s]}
    assert proj.resolve("researcher").allowed == own
    d = proj.explain("researcher", "calendarMcp_listEvents")
    assert (d.effect, d.reason) == ("implicit-deny", "allow")
    assert "not in the agent's use list" in d.message
    # ... the same as omitting available
    path = agent_file(repo, "researcher")
    data = json.loads(path.read_text())
    del data["tools"]["available"]
    path.write_text(json.dumps(data))
    assert connected(tk.load(repo)).resolve("researcher").allowed == own


def test_no_mcp_servers_no_tools(proj: tk.Project) -> None:
    # default: mcpServers [], available [] (work-agent: loadAgentTools returns [] early)
    assert proj.resolve("default").allowed == set()


# -- approval -------------------------------------------------------------------------------------

def test_auto_approve_inverse_asks(proj: tk.Project) -> None:
    r = proj.resolve("crm-suite:account-manager")
    assert r.ask == {"@calendar-mcp/create_event", "@crm-mcp/update_opportunity"}
    d = proj.explain("crm-suite:account-manager", "crmMcp_updateOpportunity")
    assert (d.effect, d.reason) == ("ask", "approval")
    assert d.rule.line == 14  # the autoApprove list (its first entry)


def test_no_approval_callback_runs_approval_bound_tools(proj: tk.Project) -> None:
    executor = Executor()
    proj.execute = executor  # type: ignore[method-assign]
    session = proj.start("crm-suite:account-manager")
    assert session.approval is None and proj.approval is None
    session.call("crmMcp_updateOpportunity", {"id": "o-1"})
    assert executor.ran == ["@crm-mcp/update_opportunity"]
    approvals = [e for e in proj.audit_log.events if e.get("event") == "approval"]
    assert [(e["tool"], e["outcome"]) for e in approvals] == [
        ("@crm-mcp/update_opportunity", "auto-approved")]
    assert "no approval callback" in approvals[0]["reason"]


def test_a_callback_still_decides_when_registered(proj: tk.Project) -> None:
    executor = Executor()
    proj.execute = executor  # type: ignore[method-assign]
    session = proj.start("crm-suite:account-manager")
    session.approval = lambda tool, args: False
    with pytest.raises(tk.AccessDeniedError, match="not approved"):
        session.call("crm-mcp_update_opportunity", {})
    assert executor.ran == []


def test_other_presets_keep_refusing_without_a_callback(repo: Path) -> None:
    proj = connected(tk.load(repo, preset="trustgraph"))
    executor = Executor()
    proj.execute = executor  # type: ignore[method-assign]
    session = proj.start("crm-suite:account-manager")
    with pytest.raises(tk.AccessDeniedError, match="no approval callback"):
        session.call("crm-mcp_update_opportunity", {})
    assert executor.ran == []


# -- delegation -----------------------------------------------------------------------------------

def test_delegation_blocked_tools_are_denied_with_the_blocks_rule(proj: tk.Project) -> None:
    parent = proj.start("workspace-bootstrapper")
    child = parent.spawn("researcher")
    # blockedTools: "stallion-control_delete_*" (line 21), "stallion-control_update_config"
    # (22; also a default), "crm-mcp_update_opportunity" (23)
    for tool, line in (("stallionControl_deleteAgent", 21),
                       ("stallion-control_update_config", 22),
                       ("crmMcp_updateOpportunity", 23)):
        d = proj.explain("researcher", tool, parent=parent)
        assert (d.effect, d.reason) == ("explicit-deny", "deny"), tool
        assert (d.rule.file, d.rule.line) == (
            ".work-agent/agents/workspace-bootstrapper/agent.json", line)
        assert "delegation.blockedTools" in d.message
    assert not {"@stallion-control/update_config", "@crm-mcp/update_opportunity"} & child.allowed


def test_default_child_blocked_tools_even_without_a_block(proj: tk.Project) -> None:
    parent = proj.start("researcher")  # no delegation block
    child = parent.spawn("researcher")
    blocked = {"@stallion-control/send_message", "@stallion-control/add_skill",
               "@stallion-control/create_prompt", "@stallion-control/delete_agent",
               "@stallion-control/update_config", "@stallion-control/run_job"}
    assert blocked <= parent.allowed
    assert not blocked & child.allowed
    d = proj.explain("researcher", "stallion-control_send_message", parent=parent)
    assert (d.effect, d.reason) == ("explicit-deny", "deny")
    assert "default child-blocked" in d.message
    assert d.rule.file is None  # work-agent's own default, not a line of a file


def test_deny_approvals_defaults_to_true(proj: tk.Project) -> None:
    # researcher auto-approves stallion-control_list_* / _get_* and crm-mcp_*: as a root it
    # asks about the rest; as a delegated child those are denied, not asked
    assert proj.resolve("researcher").ask == {
        f"@stallion-control/{t}" for t in ("create_prompt", "update_config", "send_message",
                                           "delete_agent", "add_skill", "run_job")}
    parent = proj.start("researcher")  # no delegation block: every default applies
    child = parent.spawn("researcher")
    assert child.resolution.ask == set()
    assert child.allowed == {"@stallion-control/list_agents", "@stallion-control/get_project",
                             "@stallion-control/list_prompts",
                             *(f"@crm-mcp/{t}" for t in SERVER_TOOLS["crm-mcp"])}
    # every approval-bound tool above is also a default child-blocked one; a new one is not
    proj.set_server_tools("stallion-control", [mcp("stallion-control", t) for t in
                                               [*SERVER_TOOLS["stallion-control"], "export"]])
    parent = proj.start("workspace-bootstrapper")
    d = proj.explain("researcher", "stallionControl_export", parent=parent)
    assert (d.effect, d.reason) == ("implicit-deny", "ceiling")  # the parent lacks it
    parent = proj.start("researcher")
    assert proj.explain("researcher", "stallion-control_export").effect == "ask"
    d = proj.explain("researcher", "stallion-control_export", parent=parent)
    assert (d.effect, d.reason) == ("explicit-deny", "deny")
    assert "denyApprovals (default true)" in d.message
    # the parent has no delegation block: the rule is work-agent's default, in no file
    assert (d.rule.agent, d.rule.file, d.rule.layer) == ("researcher", None, "delegation")


def test_deny_approvals_false_keeps_asking(proj: tk.Project) -> None:
    parent = proj.start("restricted-lead")  # denyApprovals false, allowedTools ["crm-mcp_*"]
    child = parent.spawn("crm-suite:account-manager")
    assert child.resolution.ask == {"@crm-mcp/update_opportunity"}


def test_delegation_allowed_tools_is_a_ceiling(proj: tk.Project) -> None:
    parent = proj.start("restricted-lead")
    child = parent.spawn("crm-suite:account-manager")
    assert child.allowed == {f"@crm-mcp/{t}" for t in SERVER_TOOLS["crm-mcp"]}
    # the parent holds stallion-control_list_agents, but its allowedTools keep crm-mcp_* only
    assert "@stallion-control/list_agents" in parent.allowed
    d = proj.explain("researcher", "stallion-control_list_agents", parent=parent)
    assert (d.effect, d.reason) == ("implicit-deny", "ceiling")
    assert "delegation.allowedTools" in d.message
    assert (d.rule.file, d.rule.line) == (".work-agent/agents/restricted-lead/agent.json", 9)
    # a tool the parent itself lacks fails the ceiling as ever
    d = proj.explain("crm-suite:account-manager", "calendar-mcp_list_events", parent=parent)
    assert (d.reason, d.message.startswith("parent 'restricted-lead' does not hold")) == (
        "ceiling", True)


def test_max_depth_is_the_depth_limit(proj: tk.Project) -> None:
    # restricted-lead: maxDepth 1 - its child may not delegate further
    child = proj.start("restricted-lead").spawn("researcher")
    with pytest.raises(tk.SpawnError, match=r"Delegation depth limit reached \(1\)"):
        child.spawn("researcher")
    # workspace-bootstrapper: maxDepth 2 (the default too)
    grandchild = proj.start("workspace-bootstrapper").spawn("researcher").spawn("researcher")
    assert grandchild.depth == 2
    with pytest.raises(tk.SpawnError, match=r"Delegation depth limit reached \(2\)"):
        grandchild.spawn("researcher")


def test_other_presets_ignore_delegation(repo: Path) -> None:
    proj = connected(tk.load(repo, preset="trustgraph"))
    child = proj.start("researcher").spawn("researcher")
    assert "@stallion-control/send_message" in child.allowed


# -- bad input ------------------------------------------------------------------------------------

def test_every_fixture_file_work_agent_accepts_loads(repo: Path) -> None:
    tk.load(repo)  # no DefinitionError


def line_of(path: Path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


@pytest.mark.parametrize(("change", "at", "message"), [
    ({"prompt": None}, '"name"', "missing required key 'prompt'"),
    ({"temperature": 0.2}, '"temperature": 0.2', "unknown key 'temperature'"),
    ({"maxSteps": 500}, '"maxSteps"', "maxSteps: input should be less than or equal to 100"),
    ({"streaming": {"useNewPipeline": "yes"}}, '"useNewPipeline"',
     "streaming.useNewPipeline: input should be a valid boolean"),
    ({"tools": {"mcpServers": ["calendar-mcp"], "allow": ["x"]}}, '"allow"',
     "unknown key 'tools.allow'; did you mean 'allowed'?"),
])
def test_a_file_work_agent_rejects_is_a_located_definition_error(
        repo: Path, change: dict[str, Any], at: str, message: str) -> None:
    path = agent_file(repo, "calendar-lookup")
    data = json.loads(path.read_text())
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(repo)
    problem = exc.value.problems[0]
    assert problem.file == ".work-agent/agents/calendar-lookup/agent.json"
    assert problem.line == line_of(path, at)
    assert message in problem.message
    assert "work-agent rejects this agent" in problem.message


@pytest.mark.parametrize(("change", "at", "message"), [
    ({"id": "Calendar_MCP"}, '"id"', "id: string should match pattern '^[a-z0-9-]+$'"),
    ({"transport": "sse"}, '"transport"',
     "transport: input should be 'stdio', 'process', 'ws' or 'tcp'"),
    ({"kind": "plugin"}, '"kind"', "kind: input should be 'mcp' or 'builtin'"),
    ({"exposed": ["x"]}, '"exposed"', "unknown key 'exposed'; did you mean 'exposedTools'?"),
])
def test_a_tool_json_work_agent_rejects_is_a_located_definition_error(
        repo: Path, change: dict[str, Any], at: str, message: str) -> None:
    path = repo / ".work-agent" / "tools" / "calendar-mcp" / "tool.json"
    edit(path, **change)
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(repo)
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == (".work-agent/tools/calendar-mcp/tool.json",
                                            line_of(path, at))
    assert message in problem.message and "work-agent rejects this tool" in problem.message


def test_delegation_block_is_checked_too(repo: Path) -> None:
    edit(agent_file(repo, "restricted-lead"), delegation={"maxDepth": "two"})
    with pytest.raises(tk.DefinitionError, match=r"delegation\.maxDepth"):
        tk.load(repo)


# -- where toolkit's reading differs (README "Read a work-agent repository") -------------------

def test_available_empty_follows_the_preset_table(repo: Path) -> None:
    # SPEC's work-agent column: allow list [] = all of use; work-agent's runtime would give
    # nothing ([] is truthy in JS). The README lists this difference.
    path = agent_file(repo, "legacy-scheduler")
    data = json.loads(path.read_text())
    data["tools"]["available"] = []
    path.write_text(json.dumps(data, indent=2))
    proj = connected(tk.load(repo))
    assert proj.resolve("legacy-scheduler").allowed == {
        f"@{s}/{t}" for s in ("calendar-mcp", "crm-mcp") for t in SERVER_TOOLS[s]}


def test_delegation_max_depth_may_lower_but_not_raise(repo: Path) -> None:
    edit(agent_file(repo, "restricted-lead"), delegation={"maxDepth": 3})
    proj = connected(tk.load(repo))
    chain = proj.start("restricted-lead").spawn("researcher").spawn("researcher")
    with pytest.raises(tk.SpawnError, match=r"Delegation depth limit reached \(2\)"):
        chain.spawn("researcher")
    assert any("sets max_depth 3, above the project's 2" in w.message for w in proj.warnings)


def test_servers_connecting_one_by_one_resolve_as_a_cold_load(repo: Path) -> None:
    # Grants are extended incrementally as servers' tools arrive (core/incremental.py);
    # work-agent's names and server_* patterns must come out as a cold resolve does.
    warm = tk.load(repo)
    for server, tools in SERVER_TOOLS.items():
        for agent in AGENTS:
            warm.resolve(agent)
        warm.set_server_tools(server, [mcp(server, t) for t in tools])
    cold = connected(tk.load(repo))
    for agent in AGENTS:
        assert warm.resolve(agent).verdicts == cold.resolve(agent).verdicts, agent
    assert warm.effects().equals(cold.effects())


def test_check_warns_about_an_mcp_server_no_file_defines(repo: Path) -> None:
    from toolkit.analysis.check import check_project

    edit(agent_file(repo, "crm-reader"), tools={"mcpServers": ["crm-mcp", "erp-mcp"]})
    problems, ok = check_project(str(repo))
    assert ok
    assert [(p.file, p.line) for p in problems if "'erp-mcp'" in p.message] == [
        (".work-agent/agents/crm-reader/agent.json", 2)]
