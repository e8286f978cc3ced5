"""Issue 20 items 6 and 7: one broken file does not block a Claude Code project, and the
messages about broken front matter say what the user wrote and how to fix it.

Item 6: a 0-byte ``.mcp.json`` (the issue met one in a public repository) made the whole
project refuse to load. Claude Code reports a bad MCP config and still applies the
project's settings, so toolkit reports the file at file:line as a warning, loads the
rest, and says the file's servers are missing. Outside a Claude Code project (no
``.claude/``) a broken config stays an error, as SPEC section 3 says for bad input
(tests/core/test_malformed_inputs.py keeps those cases).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Effect

SETTINGS = '{\n  "permissions": {\n    "deny": ["Bash(rm -rf *)"],\n' \
           '    "allow": ["Bash(npm test)"]\n  }\n}\n'


def _project(tmp_path: Path, mcp: str | bytes) -> Path:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(SETTINGS, encoding="utf-8")
    target = tmp_path / ".mcp.json"
    if isinstance(mcp, bytes):
        target.write_bytes(mcp)
    else:
        target.write_text(mcp, encoding="utf-8")
    return tmp_path


def _check(path: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(path)], out=out, err=err)
    return code, out.getvalue() + err.getvalue()


def test_a_zero_byte_mcp_json_does_not_block_the_settings(tmp_path: Path) -> None:
    root = _project(tmp_path, b"")
    proj = tk.load(root, home=False, managed=False)
    # the settings still decide: the deny rule and the allow rule of .claude/settings.json
    denied = proj.check_call("Bash", {"command": "rm -rf build"})
    assert denied.effect is Effect.DENY
    assert denied.rule is not None and denied.rule.text == "Bash(rm -rf *)"
    assert proj.check_call("Bash", {"command": "npm test"}).effect is Effect.ALLOW
    located = [(w.file, w.line, w.severity) for w in proj.warnings if w.file == ".mcp.json"]
    assert located == [(".mcp.json", 1, "warning"), (".mcp.json", 1, "warning")]
    messages = [w.message for w in proj.warnings if w.file == ".mcp.json"]
    assert "the MCP config file is empty" in messages[0]
    assert "this MCP config is not loaded" in messages[1]
    assert "servers it was meant to hold are missing" in messages[1]
    assert dict(proj.server_configs) == {}
    proj.close()


def test_toolmatrix_check_prints_the_located_problem_and_passes(tmp_path: Path) -> None:
    code, text = _check(_project(tmp_path, b""))
    assert code == 0, text
    assert ".mcp.json:1: the MCP config file is empty" in text
    assert ".mcp.json:1: this MCP config is not loaded" in text
    assert "0 error(s)" in text


def test_a_malformed_mcp_json_names_the_servers_that_are_missing(tmp_path: Path) -> None:
    # one good entry, one that is not a mapping: none of the file's servers is loaded
    mcp = '{\n  "mcpServers": {\n    "files": {"command": "files-server"},\n' \
          '    "web": "npx web-server"\n  }\n}\n'
    proj = tk.load(_project(tmp_path, mcp), home=False, managed=False)
    found = [(w.line, w.message) for w in proj.warnings if w.file == ".mcp.json"]
    assert found[0] == (4, "server 'web' must be a mapping, not str")
    assert found[1][0] == 4
    assert "its server(s) 'files', 'web' are missing" in found[1][1]
    assert dict(proj.server_configs) == {}
    assert proj.check_call("Bash", {"command": "rm -rf /tmp/x"}).effect is Effect.DENY
    proj.close()


def test_a_json_syntax_error_in_mcp_json_is_located(tmp_path: Path) -> None:
    mcp = '{\n  "mcpServers": {\n    "files": {"command": "files-server"}\n  }\n'
    code, text = _check(_project(tmp_path, mcp))
    assert code == 0, text
    assert ".mcp.json:5: JSON syntax error" in text
    assert "this MCP config is not loaded" in text


def test_outside_a_claude_code_project_a_broken_mcp_json_stays_an_error(
        tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_bytes(b"")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.md").write_text("---\nname: a\ntools: [read]\n---\n",
                                              encoding="utf-8")
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(tmp_path)
    assert (exc.value.file, exc.value.line) == (".mcp.json", 1)
    assert "the MCP config file is empty" in str(exc.value)


def test_the_broken_file_loaded_on_its_own_is_an_error(tmp_path: Path) -> None:
    root = _project(tmp_path, b"")
    with pytest.raises(tk.DefinitionError, match="the MCP config file is empty"):
        tk.load(root / ".mcp.json")


def test_a_bare_star_error_quotes_what_the_user_wrote(tmp_path: Path) -> None:
    """Item 7: ``tools: *`` as the front matter's last line reached PyYAML's scanner at the
    end of the text, and the error showed its internal "found '\\x00'"."""
    (tmp_path / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code\ntools: *\n---\nReview.\n",
        encoding="utf-8")
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(tmp_path)
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("reviewer.md", 4)
    assert "\\x00" not in problem.message and "\x00" not in problem.message
    assert "`tools: *`" in problem.message
    assert 'quote it, e.g. tools: ["*"]' in problem.message


def test_a_skipped_subagent_in_a_folder_says_to_add_a_description(tmp_path: Path) -> None:
    """Item 7: Claude Code skips a subagent without ``description``; the warning says how
    to load it, not only that it is skipped."""
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\nname: helper\ntools: Read, Grep\n---\nHelp.\n",
                                      encoding="utf-8")
    proj = tk.load(tmp_path, home=False, managed=False)
    assert "helper" not in proj.agents
    [warning] = [w for w in proj.warnings if w.file == ".claude/agents/helper.md"]
    assert warning.line == 2 and warning.severity == "warning"
    assert "add a description: line" in warning.message
    proj.close()
