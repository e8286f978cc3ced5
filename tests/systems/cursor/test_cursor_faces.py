"""Cursor as a runtime through every face: ``tk.load`` finds it, ``check_call``,
``toolmatrix why --runtime cursor`` (exit 0 allow, 1 deny, 2 ask), explain and the matrix (every
cell equal to explain and to what check_call does with the tool's calls), ``proj.permissions``,
and bad files as located errors. The permissions are the configuration example of
https://cursor.com/docs/cli/reference/permissions, with an MCP server's tools declared."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.errors import DefinitionError

CLI = """{
  "permissions": {
    "allow": ["Shell(ls)", "Shell(git)", "Read(src/**/*.ts)", "Write(package.json)",
              "WebFetch(docs.github.com)", "Mcp(datadog:*)"],
    "deny": ["Shell(rm)", "Read(.env*)", "Write(**/*.key)", "Mcp(github:delete_repo)"]
  }
}
"""
TOOLS = """tool:
  Shell: {}
  Read: {}
  Write: {}
  Grep: {}
  Task: {}
  WebFetch: {}
  "@datadog/query": {}
  "@github/delete_repo": {}
  "@github/search": {}
"""
ALL = ["Shell", "Read", "Write", "Grep", "Task", "WebFetch", "@datadog/query",
       "@github/delete_repo", "@github/search"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "cli.json").write_text(CLI)
    (tmp_path / "tools.yaml").write_text(TOOLS)
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "coder.md").write_text(
        "---\nname: coder\ntools: [" + ", ".join(f'"{t}"' for t in ALL) + "]\n---\nCodes.\n")
    return tmp_path


def _load(project: Path) -> tk.Project:
    return tk.load(project, home=False, managed=False)


def test_the_project_is_a_cursor_runtime(project: Path) -> None:
    proj = _load(project)
    assert proj.runtimes == ("cursor",)
    d = proj.check_call("Shell", {"command": "git status"})
    assert (d.runtime, d.effect, d.rule.where) == ("cursor", Effect.ALLOW, ".cursor/cli.json:3")


@pytest.mark.parametrize(("args", "status", "start"), [
    (["Shell", "git log -3"], 0, "ALLOW"),
    (["Shell", "rm -rf /"], 1, "EXPLICIT-DENY"),
    (["Shell", "npm publish"], 2, "ASK"),
    (["Read", ".env"], 1, "EXPLICIT-DENY"),
    (["WebFetch", "https://docs.github.com/en"], 0, "ALLOW"),
])
def test_toolmatrix_why_runtime_cursor(project: Path, args: list[str], status: int,
                                       start: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["why", str(project), *args, "--no-home", "--runtime", "cursor"], out, err)
    assert code == status, err.getvalue()
    assert out.getvalue().upper().startswith(start), out.getvalue()


def test_every_matrix_cell_equals_explain_and_check_call(project: Path) -> None:
    """Each cell is explain's effect; a tool whose calls rules decide by argument is
    conditional and check_call gives both answers for it; any other cell is what check_call
    answers for every call of the tool."""
    proj = _load(project)
    effects = proj.effects()
    agents = effects.columns.get_level_values("agent")
    for tool in effects.index:
        for column, agent in zip(effects.columns, agents, strict=True):
            assert effects.loc[tool, column] == proj.explain(agent, tool).effect.value
    coder = effects.columns[list(agents).index("coder")]
    cells = {t: effects.loc[t, coder] for t in effects.index}
    expected = {
        "Shell": Effect.CONDITIONAL, "Read": Effect.CONDITIONAL, "Write": Effect.CONDITIONAL,
        "WebFetch": Effect.CONDITIONAL, "Grep": Effect.ALLOW, "Task": Effect.ALLOW,
        "@datadog/query": Effect.ALLOW, "@github/delete_repo": Effect.DENY,
        "@github/search": Effect.ASK,
        "Delete": Effect.IMPLICIT_DENY}  # a built-in (the layout adds it) coder does not list
    assert cells == {t: e.value for t, e in expected.items()}
    calls = {"Shell": [{"command": "git status"}, {"command": "rm x"}, {"command": "make"}],
             "Read": [{"path": "src/a.ts"}, {"path": ".env"}],
             "Write": [{"path": "package.json"}, {"path": "k.key"}],
             "WebFetch": [{"url": "https://docs.github.com"}, {"url": "https://x.test"}]}
    for tool, expected_effect in expected.items():
        got = {proj.check_call(tool, a, agent="coder").effect for a in calls.get(tool, [{}])}
        if expected_effect is Effect.CONDITIONAL:
            assert len(got) > 1, tool  # the arguments decide
        else:
            assert got == {expected_effect}, tool


def test_a_project_without_rules_for_a_tool_shows_cursors_default(tmp_path: Path) -> None:
    """No Shell or WebFetch rule: both ask at the name level, as each call does."""
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "cli.json").write_text('{"permissions": {"allow": ["Read(**)"]}}')
    (tmp_path / "tools.yaml").write_text("tool:\n  Shell: {}\n  WebFetch: {}\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.md").write_text("---\nname: a\ntools: [Shell, WebFetch]\n---\n")
    proj = _load(tmp_path)
    for tool, args in (("Shell", {"command": "ls"}), ("WebFetch", {"url": "https://a.b"})):
        assert proj.explain("a", tool).effect is Effect.ASK
        assert proj.check_call(tool, args, agent="a").effect is Effect.ASK


def test_permissions_frame_lists_every_rule_with_its_line(project: Path) -> None:
    frame = _load(project).permissions
    rows = {(r.text, r.kind, r.line) for r in frame.itertuples()}
    assert ("Shell(git)", "allow", 3) in rows and ("Mcp(github:delete_repo)", "deny", 5) in rows
    assert len(frame) == 10


@pytest.mark.parametrize(("name", "text", "line"), [
    ("cli.json", '{\n  "permissions": {\n    "allow": ["Shell(ls)",]\n  }\n}\n', 3),
    ("permissions.json", '{\n  "terminalAllowlist": ["git"\n}\n', 3),
    ("cli.json", "", 1),
])
def test_bad_files_are_located_errors(tmp_path: Path, name: str, text: str, line: int) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / name).write_text(text)
    with pytest.raises(DefinitionError) as err:
        tk.load(tmp_path, home=False, managed=False)
    assert (err.value.file, err.value.line) == (f".cursor/{name}", line)


def test_a_token_cursor_does_not_know_is_a_located_warning(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "cli.json").write_text(
        '{\n  "permissions": {\n    "allow": [\n      "Bash(ls)",\n      "Shell(ls)"\n    ]\n'
        '  }\n}\n')
    proj = _load(tmp_path)
    [warning] = proj.engines["cursor"].problems
    assert (warning.file, warning.line, warning.severity) == (".cursor/cli.json", 4, "warning")
    assert "'Bash' is not a permission type" in warning.message


def test_cursors_permission_files_mark_the_layout_and_bring_its_builtins(tmp_path: Path) -> None:
    """``.cursor/cli.json`` (or ``permissions.json``) makes the folder Cursor's: its built-in
    tools join the pool (the matrix shows them); a ``.cursor/rules/`` alone, common in
    projects of other systems, does not."""
    from toolkit.systems.cursor.tools import BUILTINS

    (tmp_path / "a" / ".cursor").mkdir(parents=True)
    (tmp_path / "a" / ".cursor" / "cli.json").write_text(CLI)
    proj = tk.load(tmp_path / "a")
    assert proj.preset.name == "cursor" and "cursor layout" in proj.preset_reason
    assert set(BUILTINS) <= set(proj.pool)
    (tmp_path / "b" / ".cursor" / "rules").mkdir(parents=True)
    (tmp_path / "b" / ".cursor" / "rules" / "style.mdc").write_text("Use tabs.\n")
    other = tk.load(tmp_path / "b")
    assert other.preset.name == "strict" and "Shell" not in set(other.pool)


def test_a_file_that_is_not_utf8_names_the_byte_and_the_fix(tmp_path: Path) -> None:
    """Read through base/source.read_text (h16 finding 6): the byte, its line, what to do,
    not the codec's own words."""
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "cli.json").write_bytes(
        b'{\n  "permissions": {\n    "allow": ["Shell(l\xffs)"]\n  }\n}\n')
    with pytest.raises(DefinitionError) as err:
        tk.load(tmp_path, home=False, managed=False)
    assert (err.value.file, err.value.line) == (".cursor/cli.json", 3)
    assert "not UTF-8 text (byte 0xff" in str(err.value) and "save the file as UTF-8" in str(
        err.value)
    assert "codec" not in str(err.value)
