"""Issue 20 item 1: subagent collections as people download them.

Fixtures: ``tests/fixtures/claude-collections/`` holds real excerpts of five collections
(sources with commit in its README). Expected values come from those files and from
Claude Code's sub-agents documentation: a file's ``tools`` are the names it lists, a file
Claude Code would load from ``.claude/agents`` loads, a folder of such files is a Claude
Code project; strict YAML rejects contains-studio's descriptions, Claude Code's retry
reads them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

import toolkit as tk
from toolkit.errors import DefinitionError
from toolkit.systems.load import layout_preset

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude-collections"


def _errors(proj: tk.Project) -> list[str]:
    return [p.message for p in proj.warnings if p.severity == "error"]


def _load(name: str) -> tk.Project:
    return tk.load(FIXTURES / name, home=False, managed=False)


def test_contains_studio_loads_as_claude_code_with_the_quoting_retry() -> None:
    folder = FIXTURES / "contains-studio-agents"
    text = (folder / "project-management/studio-producer.md").read_text(encoding="utf-8")
    with pytest.raises(yaml.YAMLError, match="mapping values are not allowed"):
        yaml.safe_load(text.split("---\n")[1])  # strict YAML: the error
    proj = _load("contains-studio-agents")
    assert proj.preset.name == "claude-code"
    assert "Claude Code subagents by their content" in proj.preset_reason
    # studio-producer parses after Claude Code's retry; tool-evaluator's examples repeat
    # "user:" lines, which even the retry cannot read (duplicate keys): Claude Code skips
    # such files without a word (anthropics/claude-code#45971), toolkit with a warning
    assert sorted(proj.agents) == ["studio-producer"]
    assert "2 of 2 files with a name" in proj.preset_reason
    # tools: Read, Write, MultiEdit, Grep, Glob, TodoWrite (the file's own list)
    assert sorted(proj.resolve("studio-producer").allowed) == [
        "Glob", "Grep", "Read", "TodoWrite", "Write"]
    assert _errors(proj) == []
    skipped = [w for w in proj.warnings if w.file == "testing/tool-evaluator.md"]
    assert len(skipped) == 1 and "Claude Code skips this subagent" in skipped[0].message
    assert "duplicate key 'user'" in skipped[0].message
    # MultiEdit is a name Claude Code no longer has: a warning at the tools line, not an error
    multi = [w for w in proj.warnings if "'MultiEdit'" in w.message]
    assert [(w.file, w.line) for w in multi] == [
        ("project-management/studio-producer.md", 5)]
    proj.close()


def test_toolmatrix_check_reports_no_errors_on_each_collection(
        capsys: pytest.CaptureFixture[str]) -> None:
    from toolkit.cli import main

    for name in ("contains-studio-agents", "lst97-claude-code-sub-agents",
                 "davila7-components-agents", "vanzan01-templates-agents",
                 "wshobson-agents-plugins"):
        main(["check", str(FIXTURES / name)])
        captured = capsys.readouterr()
        out = captured.out + captured.err
        assert "preset claude-code" in out, name
        assert "\n0 error(s)" in f"\n{out}", (name, out[-400:])


def test_lst97_repository_root_reads_its_agents_folder() -> None:
    proj = _load("lst97-claude-code-sub-agents")
    assert proj.preset.name == "claude-code"
    assert "agents/specialization/documentation-expert.md" in proj.preset_reason
    # tools: Read, Write, Edit, MultiEdit, Grep, Glob, Bash, LS, Task, mcp__context7__...
    assert sorted(proj.resolve("documentation-expert").allowed) == [
        "Agent", "Bash", "Edit", "Glob", "Grep", "Read", "Write"]
    assert proj.agents["documentation-expert"].model == "haiku"
    assert _errors(proj) == []
    proj.close()


def test_davila7_mixes_claude_code_and_other_agent_files() -> None:
    """One file lists VS Code Copilot tool names (``codebase, fetch, githubRepo``): it is
    still read as Claude Code would read it once copied, its names unknown (warnings)."""
    proj = _load("davila7-components-agents")
    assert proj.preset.name == "claude-code"
    assert "1 of 2 files with a name" in proj.preset_reason
    assert proj.agents["apify-integration-expert"].model == "sonnet"
    assert proj.agents["apify-integration-expert"].metadata["color"] == "orange"
    unknown = sorted(w.message.split("'")[3] for w in proj.warnings
                     if w.file == "web-tools/search-ai-optimization-expert.md")
    assert unknown == ["codebase", "edit/editFiles", "fetch", "githubRepo", "problems",
                       "terminalCommand"]
    assert _errors(proj) == []
    proj.close()


def test_vanzan01_templates_color_and_mcp_tools() -> None:
    proj = _load("vanzan01-templates-agents")
    assert proj.preset.name == "claude-code"
    # tools: mcp__task-master__analyze_project_complexity, Read, Task: the MCP tool has no
    # server here (a warning), Read and Task (= Agent) are granted
    assert sorted(proj.resolve("workflow-agent").allowed) == ["Agent", "Read"]
    assert _errors(proj) == []
    proj.close()


def test_wshobson_plugin_without_marketplace_manifest() -> None:
    proj = _load("wshobson-agents-plugins")
    assert proj.preset.name == "claude-code"
    assert sorted(a for a in proj.agents if ":" in a) == [
        "backend-development:backend-development-backend-architect"]
    assert _errors(proj) == []
    proj.close()


def test_a_single_subagent_file_is_read_the_claude_code_way() -> None:
    path = FIXTURES / "contains-studio-agents/project-management/studio-producer.md"
    proj = tk.load(path, home=False, managed=False)
    assert proj.preset.name == "claude-code"
    assert "the file is a Claude Code subagent by its content" in proj.preset_reason
    assert list(proj.agents) == ["studio-producer"]
    assert "MultiEdit" not in proj.resolve("studio-producer").allowed
    proj.close()


def test_a_folder_of_other_markdown_agents_stays_strict(tmp_path: Path) -> None:
    """adh-cli-style agents (its own tool names, a Gemini model) are not Claude Code's."""
    agent = tmp_path / "agents" / "helper" / "agent.md"
    agent.parent.mkdir(parents=True)
    agent.write_text("---\nname: helper\ndescription: helps\nmodel: gemini-2.5-flash\n"
                     "tools:\n  - read_file\n---\nbody\n", encoding="utf-8")
    assert layout_preset(tmp_path) is None  # strict: no Claude Code by content


def test_subagent_like_files_outside_claude_agents_get_one_summary_line(
        tmp_path: Path) -> None:
    """A Claude Code project keeping copies of collection files in ``agents/`` and ``docs/``
    (where Claude Code does not read them): one warning, how many and where."""
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{}", encoding="utf-8")
    source = FIXTURES / "contains-studio-agents"
    (tmp_path / "agents").mkdir()
    shutil.copy(source / "testing/tool-evaluator.md", tmp_path / "agents")
    shutil.copy(source / "project-management/studio-producer.md", tmp_path / "agents")
    (tmp_path / "docs").mkdir()
    shutil.copy(FIXTURES / "vanzan01-templates-agents/workflow-agent.md", tmp_path / "docs")
    (tmp_path / ".claude" / "commands").mkdir()  # a command with model: is not a subagent
    (tmp_path / ".claude" / "commands" / "ship.md").write_text(
        "---\ndescription: ship it\nmodel: sonnet\nallowed-tools: Bash(git push:*)\n---\n",
        encoding="utf-8")
    shutil.copy(source / "README.md", tmp_path / "README.md")
    proj = tk.load(tmp_path, home=False, managed=False)
    found = [w for w in proj.warnings if "Claude Code does not read them" in w.message]
    assert len(found) == 1
    message = found[0].message
    assert message.startswith("3 markdown files look like Claude Code subagents")
    assert "agents/ (2)" in message and "docs/ (1)" in message
    assert ".claude/agents/" in message  # where to move them
    assert "studio-producer" not in proj.agents  # Claude Code does not read them
    proj.close()


def test_no_summary_when_every_subagent_is_where_claude_code_reads_it(
        tmp_path: Path) -> None:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    shutil.copy(FIXTURES / "vanzan01-templates-agents/workflow-agent.md", agents)
    proj = tk.load(tmp_path, home=False, managed=False)
    assert "workflow-agent" in proj.agents
    assert not [w for w in proj.warnings if "does not read them" in w.message]
    proj.close()


def test_copied_into_claude_agents_the_same_files_load_the_same(tmp_path: Path) -> None:
    """The issue's yardstick: as a collection and copied into .claude/agents, one result."""
    source = FIXTURES / "contains-studio-agents"
    agents = tmp_path / ".claude" / "agents"
    shutil.copytree(source, agents)
    copied = tk.load(tmp_path, home=False, managed=False)
    cloned = _load("contains-studio-agents")
    assert sorted(copied.agents) == sorted(cloned.agents) == ["studio-producer"]
    assert sorted(copied.resolve("studio-producer").allowed) == sorted(
        cloned.resolve("studio-producer").allowed)
    copied.close()
    cloned.close()


def test_a_skipped_file_alone_says_to_add_a_description(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "agents" / "x.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: x\ntools: Read\n---\n", encoding="utf-8")
    with pytest.raises(DefinitionError, match="add a description:"):
        tk.load(path, home=False, managed=False)
