"""Claude Code projects read as Claude Code reads them (SPEC section 3, "Real layouts").

The fixtures are written here in the shapes of real repositories' files (each test names
the repository whose shape it reproduces; no file was copied): VoltAgent/
awesome-claude-code-subagents (``categories/NN-*/`` plugins listing their agents in
``plugin.json``, unquoted descriptions with ``Triggers on: '...'``,
``.claude/settings.local.json``),
wshobson/agents (a plugin marketplace: ``plugins/<name>/agents|commands|skills``, a folded
``description: >`` with ``tools: []``, history files without front matter or with
``<example>`` blocks Claude Code cannot parse) and Claude Code's documentation
(``Agent(worker, researcher)``, ``Bash(npm test:*)``, ``mcp__<server>__*``).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.systems.claude_code.loader import (
    parse_tool_entry,
    quote_problematic_values,
    read_front_matter,
    split_tool_list,
)
from toolkit.systems.claude_code.permissions.rules import BUILTIN_TOOLS
from toolkit.systems.claude_code.tools import LEGACY_NAMES, TOOLS
from toolkit.systems.load import layout_preset

Write = Callable[..., Path]

# VoltAgent/awesome-claude-code-subagents, categories/04-*/gdpr-*.md: an unquoted one-line
# description holding "Triggers on: '...'" (strict YAML: "mapping values are not allowed here")
COMPLIANCE = """\
---
name: privacy-compliance
description: Use when the user asks about GDPR or CCPA duties. Triggers on: 'GDPR', 'CCPA'.
tools: Read, Grep, Glob, WebFetch, WebSearch
model: sonnet
---
You are a privacy compliance reviewer.
"""

# wshobson/agents, plugins/arm-cortex-microcontrollers/agents/*.md: a folded description and
# an empty tools list
FIRMWARE = """\
---
name: firmware-expert
description: >
  Senior embedded engineer for ARM Cortex-M firmware: drivers,
  interrupts and DMA.
model: inherit
tools: []
---
Write firmware.
"""

# wshobson/agents history (stack9-frontend-developer.md): a multi-line plain description with
# unindented <example> lines, which fails even after Claude Code's retry
EXAMPLES_BLOCK = """\
---
name: page-builder
description: Builds pages for the app. Use this agent when:

<example>
Context: The user needs a custom page.
user: "Make a customer page with tabs"
assistant: "I'll use the page-builder agent."
</example>
tools: Read, Write
---
Build pages.
"""


def agent_md(name: str, tools: str | None = None, description: str = "Helps.", **extra: str
             ) -> str:
    lines = [f"name: {name}", f"description: {description}"]
    if tools is not None:
        lines.append(f"tools: {tools}")
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "---\n" + "\n".join(lines) + "\n---\nDo the work.\n"


# -- front matter read as leniently as Claude Code reads it ---------------------------------------

def test_an_unquoted_description_with_colon_space_loads_like_claude_code(write: Write) -> None:
    root = write({".claude/agents/privacy-compliance.md": COMPLIANCE,
                  ".claude/agents/reviewer.md": agent_md("reviewer", "Read")})
    proj = tk.load(root)
    agent = proj.agents["privacy-compliance"]
    assert agent.description == ("Use when the user asks about GDPR or CCPA duties. "
                                 "Triggers on: 'GDPR', 'CCPA'.")
    assert proj.resolve("privacy-compliance").allowed == {"Read", "Grep", "Glob", "WebFetch",
                                                         "WebSearch"}
    assert agent.allow is not None and agent.allow[0].line == 4  # file:line kept on the retry
    assert set(proj.agents) == {"privacy-compliance", "reviewer"}  # the folder still loads


def test_the_retry_quotes_only_top_level_simple_values() -> None:
    """frontmatterParser.ts quoteProblematicValues: key: value lines whose value holds one of
    {}[]*&#!|>%@` or ': ' are double-quoted (backslashes and quotes escaped); others stay."""
    text = 'description: a: b "c" \\d\ntools: Read\n  nested: x: y\nmodel: "quoted: yes"\n'
    assert quote_problematic_values(text).split("\n") == [
        'description: "a: b \\"c\\" \\\\d"', "tools: Read", "  nested: x: y",
        'model: "quoted: yes"', ""]


def test_a_hash_comment_cuts_the_value_as_in_claude_code_and_is_warned(write: Write) -> None:
    root = write({".claude/agents/triage.md": agent_md("triage", "Read",
                                                       description="Triage issues #42 and up")})
    proj = tk.load(root)
    assert proj.agents["triage"].description == "Triage issues"
    (warning,) = [w for w in proj.warnings if "cut at '#'" in w.message]
    assert (warning.file, warning.line) == (".claude/agents/triage.md", 3)


def test_a_hash_with_colon_space_keeps_the_whole_value(write: Write) -> None:
    # ": " makes strict YAML fail, so Claude Code's retry quotes the line, '#' included
    root = write({".claude/agents/triage.md": agent_md(
        "triage", "Read", description="Use for: issues #42 and up")})
    assert tk.load(root).agents["triage"].description == "Use for: issues #42 and up"


def test_front_matter_that_fails_even_after_the_retry_skips_only_that_file(write: Write) -> None:
    root = write({".claude/agents/page-builder.md": EXAMPLES_BLOCK,
                  ".claude/agents/reviewer.md": agent_md("reviewer", "Read")})
    proj = tk.load(root)
    assert set(proj.agents) == {"reviewer"}
    (warning,) = [w for w in proj.warnings if w.file == ".claude/agents/page-builder.md"]
    assert warning.line == 3 and "Claude Code skips this subagent" in warning.message
    assert "does not parse, even after quoting" in warning.message
    problems, ok = _check(root)
    assert ok and any(p.file == ".claude/agents/page-builder.md" and p.line == 3
                      for p in problems)


def test_front_matter_ends_at_the_first_dashes_and_a_list_reads_as_no_mapping() -> None:
    front = read_front_matter("---\n- a\n- b\n---\nbody\n", "x.md")
    assert (front.data, front.present, front.body, front.body_line) == ({}, True, "body\n", 5)
    assert not read_front_matter("# Title\n", "x.md").present


@pytest.mark.parametrize(("text", "says", "line"), [
    (agent_md("a", "Read").replace("description: Helps.\n", ""),
     "missing required 'description'", 2),
    (agent_md("team:a", "Read"), "contains ':'", 2),
    (agent_md("-a", "Read"), "starts with '-'", 2),
])
def test_files_claude_code_skips_are_warnings_in_a_folder(write: Write, text: str, says: str,
                                                          line: int) -> None:
    """sub-agents docs, "Subagent files Claude Code skips"."""
    root = write({".claude/agents/a.md": text, ".claude/agents/ok.md": agent_md("ok", "Read")})
    proj = tk.load(root)
    assert set(proj.agents) == {"ok"}
    (warning,) = [w for w in proj.warnings if w.file == ".claude/agents/a.md"]
    assert says in warning.message and warning.line == line
    with pytest.raises(tk.DefinitionError, match=says.replace("(", r"\(")):
        tk.load(root / ".claude" / "agents" / "a.md")  # on its own: an error


def test_a_file_without_name_is_documentation(write: Write) -> None:
    root = write({".claude/agents/README.md": "# Our agents\n\nSee below.\n",
                  ".claude/agents/notes.md": "---\ndescription: notes, not an agent\n---\n",
                  ".claude/agents/ok.md": agent_md("ok", "Read")})
    proj = tk.load(root)
    assert set(proj.agents) == {"ok"}
    warned = {w.file for w in proj.warnings}
    assert ".claude/agents/README.md" not in warned  # no front matter: quietly documentation
    assert ".claude/agents/notes.md" in warned  # front matter without name: said once


def test_agents_in_subfolders_of_claude_agents_load(write: Write) -> None:
    root = write({".claude/agents/review/security.md": agent_md("security", "Read")})
    assert set(tk.load(root).agents) == {"security"}  # subfolders do not change the name


# -- which files are agents -------------------------------------------------------------------

def test_only_agent_places_are_agents_and_other_markdown_is_quiet(write: Write) -> None:
    # A project with the markdown real Claude Code projects hold beside their agents
    root = write({
        ".claude/agents/reviewer.md": agent_md("reviewer", "Read, Grep"),
        ".claude/commands/deploy.md": "---\ndescription: Deploy\nallowed-tools: Bash\n---\n",
        ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Read PDFs\n---\n",
        ".claude/rules/style.md": "---\npaths: src/**\n---\nUse tabs.\n",
        "CLAUDE.md": "# Project\n",
        "README.md": "---\ntitle: readme with front matter\n---\n",
        "docs/guide.md": "---\nname: guide\ndescription: a doc page\n---\n",
    })
    proj = tk.load(root)
    assert set(proj.agents) == {"reviewer"}
    assert proj.warnings == []


def wshobson_marketplace(write: Write) -> Path:
    """wshobson/agents: .claude-plugin/marketplace.json and plugins/<name>/ with agents/,
    commands/ (some without front matter), skills/<skill>/SKILL.md and a README."""
    return write({
        ".claude-plugin/marketplace.json": json.dumps({
            "name": "workflows", "plugins": [{"name": "backend", "source": "./plugins/backend"}]}),
        "plugins/backend/.claude-plugin/plugin.json": json.dumps({"name": "backend",
                                                                  "version": "1.0.0"}),
        "plugins/backend/agents/architect.md": agent_md("architect", "Read, Grep, Bash"),
        "plugins/backend/agents/team/lead.md": agent_md("lead", "Read, Agent"),
        # history shape: a plugin agent without front matter loads under its file name
        "plugins/backend/agents/service-mesh-expert.md": "# Service Mesh Expert\n\nMeshes.\n",
        "plugins/backend/agents/page-builder.md": EXAMPLES_BLOCK,
        "plugins/backend/commands/feature.md": "---\ndescription: Build a feature\n---\n",
        "plugins/backend/commands/plain.md": "Run the thing.\n",
        "plugins/backend/skills/api/SKILL.md": "---\nname: api\ndescription: API design\n---\n",
        "plugins/backend/README.md": "# Backend plugin\n",
        "plugins/firmware/agents/firmware-expert.md": FIRMWARE,  # no plugin.json
        "CLAUDE.md": "# Marketplace\n",
        "docs/agents.md": "---\nname: catalog\ndescription: the list\n---\n",
    })


def test_plugin_agents_are_named_plugin_colon_name(write: Write) -> None:
    proj = tk.load(wshobson_marketplace(write))
    assert proj.preset.name == "claude-code"
    assert "holds .claude-plugin/" in proj.preset_reason
    assert set(proj.agents) == {"backend:architect", "backend:team:lead",
                                "backend:service-mesh-expert", "backend:page-builder",
                                "firmware:firmware-expert"}
    assert proj.agents["backend:architect"].metadata["plugin"] == "backend"


def test_a_plugin_agent_without_usable_front_matter_loads_under_its_file_name(
        write: Write) -> None:
    """loadPluginAgents.ts: name falls back to the file name, description to 'Agent from
    <plugin> plugin', tools omitted = every tool; toolkit says so."""
    proj = tk.load(wshobson_marketplace(write))
    for name, line in (("backend:service-mesh-expert", 1), ("backend:page-builder", 3)):
        agent = proj.agents[name]
        assert agent.description == "Agent from backend plugin" and agent.allow is None
        assert "Bash" in proj.resolve(name).allowed
        assert any(w.file == agent.file and w.line == line and "under its file name"
                   in w.message for w in proj.warnings)


def test_plugin_agents_ignore_permission_mode_hooks_and_mcp_servers(write: Write) -> None:
    root = write({"plugins/p/.claude-plugin/plugin.json": '{"name": "p"}',
                  "plugins/p/agents/a.md": agent_md("a", "Read", permissionMode="acceptEdits")})
    proj = tk.load(root)
    assert "permissionMode" not in proj.agents["p:a"].metadata
    assert any("permissionMode is ignored for plugin agents" in w.message and w.line == 5
               for w in proj.warnings)


def voltagent_categories(write: Write) -> Path:
    """VoltAgent/awesome-claude-code-subagents: categories/NN-*/ plugins whose plugin.json
    lists its agents; one agent file on disk is not listed; READMEs beside them."""
    return write({
        ".claude/settings.local.json": json.dumps(
            {"permissions": {"allow": ["Bash(git status:*)"]}}),
        ".claude-plugin/marketplace.json": json.dumps({
            "name": "subagents", "plugins": [{"name": "qa", "source": "./categories/04-qa"}]}),
        "categories/04-qa/.claude-plugin/plugin.json": json.dumps({
            "name": "voltagent-qa", "agents": ["./privacy-compliance.md", "./ui-tester.md"]}),
        "categories/04-qa/privacy-compliance.md": COMPLIANCE,
        "categories/04-qa/ui-tester.md": agent_md(
            "ui-tester", "Read, Write, Bash, chrome-mcp, computer-use"),
        "categories/04-qa/unlisted.md": agent_md("unlisted", "Read"),
        "categories/04-qa/README.md": "# QA\n",
        "README.md": "# Subagents\n",
        "tools/catalog/search.md": "---\nname: search\ndescription: a slash command\n---\n",
    })


def test_a_plugin_json_agents_list_names_its_agents(write: Write) -> None:
    proj = tk.load(voltagent_categories(write))
    assert set(proj.agents) == {"voltagent-qa:privacy-compliance", "voltagent-qa:ui-tester"}
    unknown = sorted(w.message.split("'")[3] for w in proj.warnings
                     if "not in the tool pool" in w.message)
    assert unknown == ["chrome-mcp", "computer-use"]  # Claude Code ignores them too


def test_a_folder_of_agent_files_given_explicitly(write: Write) -> None:
    root = write({".claude/agents/reviewer.md": agent_md("reviewer", "Read"),
                  ".claude/agents/README.md": "# docs\n"})
    proj = tk.load(root / ".claude" / "agents")
    assert set(proj.agents) == {"reviewer"} and proj.preset.name == "claude-code"
    assert "Read" in proj.tools  # the built-in registry, without any registry file
    plugin = tk.load(wshobson_marketplace(write) / "plugins" / "backend" / "agents")
    assert "backend:architect" in plugin.agents


# -- tools: permission-rule syntax, Agent(...) spawn lists, the empty forms ------------------------

def test_tool_lists_split_at_top_level_commas_and_spaces() -> None:
    """permissionSetup.ts parseToolListFromCLI: commas and spaces outside parentheses."""
    assert split_tool_list("Read Grep,Bash(npm test:*) ,Agent(worker, researcher)") == [
        "Read", "Grep", "Bash(npm test:*)", "Agent(worker, researcher)"]
    assert parse_tool_entry("Bash(python -c \"print\\(1\\)\")") == (
        "Bash", 'python -c "print\\(1\\)"')
    assert parse_tool_entry("Read(") == ("Read(", None)


def test_permission_rule_entries_grant_their_tool_and_keep_the_pattern(write: Write) -> None:
    root = write({".claude/agents/tester.md": agent_md(
        "tester", "Bash(npm test:*), Read(./src/**), WebFetch(domain:x.com), Grep")})
    proj = tk.load(root)
    agent = proj.agents["tester"]
    assert agent.allow is not None
    assert [(r.pattern, r.spec, r.text) for r in agent.allow] == [
        ("Bash", "npm test:*", "Bash(npm test:*)"), ("Read", "./src/**", "Read(./src/**)"),
        ("WebFetch", "domain:x.com", "WebFetch(domain:x.com)"), ("Grep", None, "Grep")]
    assert {r.line for r in agent.allow} == {4}
    assert proj.resolve("tester").allowed == {"Bash", "Read", "WebFetch", "Grep"}
    # the permission engine reads the kept pattern: npm test runs, other commands ask
    assert proj.check_call("Bash", {"command": "npm test"}, agent="tester").allowed
    assert not proj.check_call("Bash", {"command": "make"}, agent="tester").allowed


def test_agent_with_a_list_restricts_what_the_main_thread_spawns(write: Write) -> None:
    root = write({
        ".claude/agents/lead.md": agent_md("lead", "Agent(worker, researcher), Read, Bash"),
        ".claude/agents/worker.md": agent_md("worker", "Read, Task(helper)"),
        ".claude/agents/researcher.md": agent_md("researcher", "Read, WebSearch"),
        ".claude/agents/helper.md": agent_md("helper", "Read"),
        ".claude/agents/intruder.md": agent_md("intruder", "Read"),
    })
    proj = tk.load(root)
    assert proj.agents["lead"].spawnable == ("worker", "researcher")
    assert proj.agents["worker"].spawnable == ("helper",)  # Task is the legacy Agent
    assert "Agent" in proj.resolve("lead").allowed  # the Agent tool itself is granted
    lead = proj.start("lead")
    assert lead.spawn("worker").id == "lead.worker"
    with pytest.raises(tk.SpawnError, match="may spawn only worker, researcher") as exc:
        lead.spawn("intruder")
    assert ".claude/agents/lead.md:4" in str(exc.value)
    # in a subagent the list is ignored (sub-agents docs): worker may spawn intruder
    worker = lead.spawn("worker")
    assert worker.spawn("intruder").id == "lead.worker.2.intruder"
    proj.close()


@pytest.mark.parametrize(("tools", "expected"), [
    (None, "all"),          # omitted: inherit every tool
    ("[]", "none"),         # wshobson's arm-cortex-expert.md
    ('""', "none"),
    ("", "none"),           # "tools:" with no value: null
    ("'*'", "all"),
    ("Read, *", "all"),
    ("[1, true]", "none"),  # no string entries
])
def test_tools_forms_mean_what_claude_code_means(write: Write, tools: str | None,
                                                 expected: str) -> None:
    """markdownConfigLoader.ts parseAgentToolsFromFrontmatter (research notes, table 2c)."""
    text = agent_md("a") if tools is None else agent_md("a", tools)
    proj = tk.load(write({".claude/agents/a.md": text}))
    allowed = proj.resolve("a").allowed
    assert allowed == (set(proj.tools) if expected == "all" else set())
    warned = any("gives 'a' no tools" in w.message for w in proj.warnings)
    assert warned == (expected == "none")


def test_check_warns_about_an_empty_tools_list(write: Write) -> None:
    root = write({".claude/agents/firmware-expert.md": FIRMWARE})
    problems, ok = _check(root)
    assert ok
    (problem,) = [p for p in problems if "no tools" in p.message]
    assert (problem.file, problem.line, problem.severity) == (
        ".claude/agents/firmware-expert.md", 7, "warning")
    assert tk.load(root).agents["firmware-expert"].description.startswith("Senior embedded")


def test_disallowed_tools_remove_including_mcp_server_forms(write: Write) -> None:
    root = write({
        ".mcp.json": json.dumps({"mcpServers": {"github": {"command": "gh-mcp"},
                                                "jira": {"command": "jira-mcp"}}}),
        ".claude/agents/a.md": agent_md("a", disallowedTools="Bash(git push *), mcp__github"),
        ".claude/agents/b.md": agent_md("b", disallowedTools="mcp__*"),
        ".claude/agents/c.md": agent_md("c", "Read, mcp__jira__*"),
    })
    proj = tk.load(root)
    gh = [tk.Tool(name="@github/get_issue", server="github", remote_name="get_issue",
                  source="mcp:github")]
    jira = [tk.Tool(name="@jira/search", server="jira", remote_name="search", source="mcp:jira")]
    proj.set_many_server_tools({"github": gh, "jira": jira})
    a, b, c = (proj.resolve(n).allowed for n in "abc")
    assert "Bash" not in a and "@github/get_issue" not in a and "@jira/search" in a
    assert "Read" in a  # the pattern removes the whole Bash tool, nothing else
    assert not {"@github/get_issue", "@jira/search"} & b and "Bash" in b
    assert c == {"Read", "@jira/search"}


def test_mcp_names_under_a_configured_server_are_pending_until_discovered(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}),
                  ".claude/agents/triager.md": agent_md(
                      "triager", "Read, mcp__github__get_issue, mcp__github__list_issues")})
    proj = tk.load(root)  # no error: the server is configured but not connected
    assert proj.resolve("triager").allowed == {"Read"}
    assert any("not in the pool yet" in w.message for w in proj.warnings)
    tools = [tk.Tool(name=f"@github/{t}", server="github", remote_name=t, source="mcp:github")
             for t in ("get_issue", "list_issues", "create_issue")]
    proj.set_server_tools("github", tools)
    assert proj.resolve("triager").allowed == {"Read", "@github/get_issue",
                                               "@github/list_issues"}
    assert proj.explain("triager", "mcp__github__get_issue").allowed


def test_task_is_an_alias_of_agent_and_legacy_names_resolve(write: Write) -> None:
    root = write({".claude/agents/a.md": agent_md("a", "Task, KillShell, BashOutputTool")})
    proj = tk.load(root)
    assert proj.resolve("a").allowed == {"Agent", "TaskStop", "TaskOutput"}
    d = proj.explain("a", "Task")
    assert d.allowed and d.canonical == "Agent"
    assert LEGACY_NAMES == {"Task": "Agent", "KillShell": "TaskStop",
                            "AgentOutputTool": "TaskOutput", "BashOutputTool": "TaskOutput"}


def test_wildcards_other_than_mcp_server_forms_are_literal_names(write: Write) -> None:
    root = write({".claude/agents/a.md": agent_md("a", "Read, Bash*")})
    proj = tk.load(root)
    assert proj.resolve("a").allowed == {"Read"}
    assert any("'Bash*'" in w.message and "exact tool name" in w.message
               for w in proj.warnings)


def test_other_systems_spellings_are_not_read_in_a_claude_code_file(write: Write) -> None:
    root = write({".claude/agents/a.md": agent_md("a", allowed_tools="Read")})
    proj = tk.load(root)
    assert proj.agents["a"].allow is None  # tools omitted: every tool, as in Claude Code
    assert any("does not read 'allowed_tools'" in w.message for w in proj.warnings)


# -- the built-in registry and the layout -------------------------------------------------------

def test_a_claude_folder_resolves_against_the_shipped_builtins(write: Write) -> None:
    root = write({".claude/agents/reviewer.md": agent_md("reviewer", "Read, Grep, Glob")})
    proj = tk.load(root)
    assert set(TOOLS) <= set(proj.tools)
    assert proj.tools["Read"].annotations == {"readOnlyHint": True}
    assert proj.tools["Bash"].annotations == {}  # read-only depends on the command
    assert proj.tools["Write"].source == "native"
    assert proj.preset.name == "claude-code"
    assert "preset=claude-code (the project folder holds .claude/" in repr(proj)


def test_the_builtin_table_agrees_with_the_permission_engine() -> None:
    """One table of names: the permission engine's (which also knows the legacy LS and
    MultiEdit, not in the current tools reference) must say the same about each."""
    assert set(TOOLS) == set(BUILTIN_TOOLS) - {"LS", "MultiEdit"}
    assert {n: t.permission_required for n, t in TOOLS.items()} == {
        n: BUILTIN_TOOLS[n] for n in TOOLS}


def test_a_declared_tool_of_a_builtin_name_is_that_tool(examples: Path) -> None:
    proj = tk.load(examples / "claude-code")  # its tools.yaml declares Read, Task, ...
    assert proj.tools["Read"].file == "tools.yaml"
    assert "Task" in proj.tools and "Agent" in proj.tools  # Task declared: not an alias


def test_plugin_layouts_show_the_claude_code_preset(write: Write) -> None:
    found = layout_preset(wshobson_marketplace(write))
    assert found is not None and found[0] == "claude-code"
    both = write({".claude/settings.json": "{}", ".claude-plugin/plugin.json": "{}"})
    assert layout_preset(both) is not None  # two marks of one system: not ambiguous


def _check(root: Path) -> tuple[list[tk.Problem], bool]:
    from toolkit.analysis.check import check_project
    return check_project(str(root))


def test_an_agent_added_from_text_is_read_as_claude_code_reads_it(write: Write) -> None:
    """``proj.add_agent(text)`` / ``%%tk agent`` in a Claude Code project."""
    proj = tk.load(write({".claude/agents/ok.md": agent_md("ok", "Read")}))
    added = proj.add_agent("---\nname: tester\ndescription: Use when: tests fail\n"
                           "tools: Bash(npm test:*), Read\n---\nRun the tests.\n")
    assert added.description == "Use when: tests fail"
    assert [r.text for r in added.allow or ()] == ["Bash(npm test:*)", "Read"]
    with pytest.raises(tk.DefinitionError, match="missing required 'description'"):
        proj.add_agent("---\nname: x\ntools: Read\n---\n")


# -- never a crash --------------------------------------------------------------------------------

_PIECES = ["---\n", "name: a\n", "description: x: y\n", "tools: ", "Bash(npm test:*)", ", ",
           "Agent(a, b)", "[]", "\n", "  - Read\n", "#", ": ", "\"", "'", "{", "[", "*", "&a ",
           "!!python/object:os.system ", "disallowedTools: mcp__*\n", "\t", "\x00", "\u2028",
           "name: -x\n", "name: a:b\n", "tools:\n", "permissionMode: plan\n", "Task(", ")"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=12)), max_size=30))
def test_any_text_in_an_agent_place_loads_or_is_a_located_error(pieces: list[str]) -> None:
    text = "".join(pieces)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for rel in (".claude/agents/a.md", "plugins/p/agents/b.md"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8", errors="surrogatepass")
        for target in (root, root / ".claude" / "agents" / "a.md"):
            try:
                proj = tk.load(target, home=False)
            except tk.DefinitionError as exc:
                assert exc.problems and all(p.file for p in exc.problems), str(exc)
                continue
            for name in proj.agents:
                proj.resolve(name)
