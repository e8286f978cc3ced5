"""Settings files as Claude Code reads them: where they are, bad input, the rules table,
``.mcp.json`` approvals, hooks, and what ``toolmatrix check`` says."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.claude import DATA, build_project, permissions, write_json
from toolkit.cli import main
from toolkit.errors import DefinitionError
from toolkit.systems.claude_code.permissions.settings import project_settings, read_settings

Make = Callable[..., tk.Project]



def test_malformed_settings_json_is_a_definition_error_with_file_and_line(
        tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(
        '{\n  "permissions": {\n    "allow": [\n      "Bash(ls *)"\n      "Read"\n    ]\n  }\n}\n')
    with pytest.raises(DefinitionError) as err:
        tk.load(root, preset="claude-code", home=False, managed=False)
    assert (err.value.file, err.value.line) == (".claude/settings.json", 5)
    assert "JSON syntax error" in str(err.value)


def test_malformed_managed_and_user_files_are_located_too(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    managed = tmp_path / "managed"
    (managed / "managed-settings.d").mkdir(parents=True)
    (managed / "managed-settings.d" / "50-x.json").write_text("[1, 2]")
    with pytest.raises(DefinitionError, match="must hold a JSON object"):
        read_settings(root, home=False, managed=managed)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"permissions": {"deny": "Bash"}}')
    with pytest.raises(DefinitionError) as err:
        read_settings(root, home=home, managed=False)
    assert "permissions.deny must be a list of strings" in str(err.value)
    assert err.value.file == str(home / ".claude" / "settings.json") and err.value.line == 1


def test_an_unparseable_rule_is_a_warning_skipped_and_listed(make: Make) -> None:
    proj = make(project=permissions(["Bash(npm test *", 42, "Bash(ls *)"],
                                    deny=["Bash(command:rm *)", "Wrtie"]))
    table = proj.permissions
    skipped = table[table["status"] == "skipped"]
    assert list(skipped["text"]) == ["Bash(command:rm *)", "Bash(npm test *", "42"]
    assert all(skipped["warnings"].str.len() > 0)
    assert list(table[table["text"] == "Wrtie"]["warnings"]) == [
        "'Wrtie' matches no known tool (a typo?)"]
    warnings = [str(w) for w in proj.warnings]
    assert any(".claude/settings.json:4: allow rule 'Bash(npm test *' skipped: cannot parse"
               in w for w in warnings)
    assert any("a rule must be a string, not int" in w for w in warnings)
    assert proj.check_call("Bash", {"command": "ls -la"}).allowed


def test_permissions_table_has_every_layer_with_file_and_line() -> None:
    proj = tk.load(DATA / "acme-app", home=DATA / "home", managed=DATA / "managed",
                   cli=["--allowedTools", "Bash(make *)", "--disallowedTools", "Bash(rm -rf *)"])
    table = proj.permissions
    assert list(table.columns) == ["text", "kind", "tool", "spec", "layer", "file", "line",
                                   "agent", "status", "warnings"]
    assert set(table["layer"]) == {"managed", "cli", "local", "project", "user", "agent"}
    row = table[table["text"] == "Bash(git push *)"].iloc[0]
    assert (row["kind"], row["layer"], row["file"], row["line"]) == (
        "ask", "project", ".claude/settings.json", 19)
    assert table[table["text"] == "Bash(make *)"].iloc[0]["file"] == "<cli>"
    dropin = table[table["text"] == "Bash(nc *)"].iloc[0]
    assert dropin["file"].endswith("managed-settings.d/20-network.json")
    assert set(table[table["status"] == "skipped"]["text"]) == {
        "Write(docs/**)", "mcp__github(get_issue)", "B*"}


def test_every_documented_skip_warning(make: Make) -> None:
    proj = make(local=permissions(["*", "B*", "mcp__*", "Write(docs/**)", "Glob(src/**)",
                                   "mcp__github(get_issue)", "Agent(model:opus)",
                                   "WebSearch(python)", "WebFetch(example.com)"]))
    warnings = dict(zip(proj.permissions["text"], proj.permissions["warnings"], strict=True))
    assert "unanchored allow glob" in warnings["*"]
    assert "unanchored allow glob" in warnings["mcp__*"]
    assert "never consults it; write Edit(docs/**)" in warnings["Write(docs/**)"]
    assert "write Read(src/**)" in warnings["Glob(src/**)"]
    assert "MCP rules take no parentheses" in warnings["mcp__github(get_issue)"]
    assert "deny and ask rules only" in warnings["Agent(model:opus)"]
    assert "only the bare tool name" in warnings["WebSearch(python)"]
    assert "domain:<host>" in warnings["WebFetch(example.com)"]


def test_mcp_json_approvals_decide_which_servers_connect(make: Make) -> None:
    servers = {"mcpServers": {"github": {"type": "http", "url": "https://x.example/mcp"},
                              "scratch": {"command": "npx", "args": ["scratch-mcp"]},
                              "docs": {"command": "docs-mcp"}}}
    proj = make(project={"enabledMcpjsonServers": ["github", "scratch"]},
                local={"disabledMcpjsonServers": ["scratch"]},
                files={".mcp.json": json.dumps(servers)})
    table = proj.mcp_approvals.set_index("server")
    assert dict(table["status"]) == {"github": "approved", "scratch": "rejected",
                                     "docs": "pending"}
    # "Rejection takes precedence over enabledMcpjsonServers and enableAllProjectMcpServers"
    assert set(proj.server_configs) == {"github", "docs"}  # a rejected server never connects
    assert table.loc["scratch", "file"] == ".claude/settings.local.json"
    assert any("'scratch' from .mcp.json is rejected" in str(w) for w in proj.warnings)


def test_enable_all_project_servers_takes_the_highest_layer(make: Make) -> None:
    servers = {"mcpServers": {"docs": {"command": "docs-mcp"}}}
    proj = make(user={"enableAllProjectMcpServers": True},
                local={"enableAllProjectMcpServers": False},
                files={".mcp.json": json.dumps(servers)})
    assert list(proj.mcp_approvals["status"]) == ["pending"]  # local's false wins
    proj2 = make(user={"enableAllProjectMcpServers": True}, local={},
                 files={".mcp.json": json.dumps(servers)})
    assert list(proj2.mcp_approvals["status"]) == ["approved"]


def test_hooks_are_listed_in_the_trace_not_run(make: Make) -> None:
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [
        {"type": "command", "command": "./guard.sh"}]}]}}
    proj = make(project=hooks)
    d = proj.check_call("Bash", {"command": "make"})
    step = next(s for s in d.trace if s.name == "hook")
    assert "./guard.sh" in step.detail and step.rule.file == ".claude/settings.json"
    assert d.effect.value == "ask"
    assert not any(s.name == "hook" for s in proj.check_call("Read", {"file_path": "a"}).trace)


def test_not_a_claude_code_project_reads_no_settings(examples: Path) -> None:
    assert project_settings(examples / "trustgraph") is None
    proj = tk.load(examples / "trustgraph")
    assert proj.engine is None and proj.permissions.empty
    d = proj.check_call("Bash", {"command": "ls"})  # still a what-if: no rules, default mode
    assert (d.effect.value, d.reason.value) == ("allow", "read-only")


def test_bad_call_arguments_are_clear_errors(make: Make) -> None:
    proj = make()
    with pytest.raises(ValueError, match="unknown permission mode 'yolo'"):
        proj.check_call("Bash", {"command": "ls"}, mode="yolo")
    with pytest.raises(ValueError, match="hook must be"):
        proj.check_call("Bash", {"command": "ls"}, hook="maybe")
    with pytest.raises(TypeError, match="args must be a mapping"):
        proj.check_call("Bash", "ls")  # type: ignore[arg-type]
    with pytest.raises(tk.UnknownAgentError):
        proj.check_call("Bash", {"command": "ls"}, agent="nobody")
    assert proj.check_call("Bash", {}).reason.value == "unparseable"
    assert proj.check_call("WebFetch", {"url": "not a url"}).reason.value == "unparseable"


def test_cli_arguments(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_json(root / "policy" / "ci.json", permissions(deny=["Edit(/frozen/**)"]))
    (root / ".claude").mkdir()
    settings = read_settings(root, home=False, managed=False, cli=[
        "--allowedTools", "Bash(git log:*),Read", "Edit", "--permission-mode", "plan",
        "--settings", "policy/ci.json", "--add-dir", "../docs", "--model", "opus",
        "--settings", '{"permissions": {"ask": ["WebSearch"]}}'])
    texts = [(r.text, r.kind, r.rule.file) for r in settings.rules]
    assert ("Bash(git log:*)", "allow", "<cli>") in texts and ("Edit", "allow", "<cli>") in texts
    assert ("Edit(/frozen/**)", "deny", str(root / "policy" / "ci.json")) in texts
    assert ("WebSearch", "ask", "<cli>:13 --settings") in texts
    assert settings.default_mode is not None and settings.default_mode[0] == "plan"
    assert settings.additional_dirs[0][0] == "../docs"
    assert [str(p) for p in settings.problems] == [
        "<cli>:10: command-line argument '--model' is not a permission flag; ignored"]
    with pytest.raises(DefinitionError, match="no such file"):
        read_settings(root, home=False, managed=False, cli=["--settings", "missing.json"])


def test_dangerously_skip_permissions_flag_is_bypass(make: Make) -> None:
    proj = make(cli=["--dangerously-skip-permissions"])
    d = proj.check_call("Bash", {"command": "make"})
    assert (d.effect.value, d.mode) == ("allow", "bypassPermissions")


def test_toolmatrix_check_reports_settings_problems_and_inheritance_gaps(tmp_path: Path
                                                                          ) -> None:
    build_project(tmp_path, project=permissions(["B*"], deny=["Bash(curl *)"]),
                  agents={"fetcher": "---\nname: fetcher\ndescription: fetches\n"
                                     "tools: Bash, Read\n---\nFetch things.\n"},
                  files={"toolkit.yaml": "preset: claude-code\n"})
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(tmp_path / "repo")], out, err)
    text = out.getvalue()
    assert code == 0
    assert ".claude/settings.json:4: allow rule 'B*' skipped: an unanchored allow glob" in text
    assert ".claude/agents/fetcher.md:2: subagent 'fetcher': 1 settings deny/ask rule(s) " \
           "restrict tools it holds (Bash(curl *) (.claude/settings.json:7))" in text
