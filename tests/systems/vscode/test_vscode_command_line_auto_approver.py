"""VS Code's own auto-approver tests, ported: microsoft/vscode
``src/vs/workbench/contrib/terminalContrib/chatAgentTools/test/browser/commandLineAutoApprover.test.ts``
at f7dd6f2 (suites "autoApprove with allow patterns only" ... "ignoreDefaultAutoApproveRules").

Each case is ``(suite > test name, setting, checks)``; a check is ``(command, approved?)`` for
``isCommandAutoApproved`` or ``("line", command, approved?)`` for ``isCommandLineAutoApproved``.
The shell is bash on Linux unless the suite sets ``pwsh``, as the TypeScript ``setup`` does.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolkit.systems.vscode.autoapprove import (
    AutoApproveRules,
    RuleSource,
    is_command_auto_approved,
    is_command_line_auto_approved,
    parse_rules,
)

SOURCE = ("microsoft/vscode src/vs/workbench/contrib/terminalContrib/chatAgentTools/test/"
          "browser/commandLineAutoApprover.test.ts@f7dd6f2")
CL = {"approve": True, "matchCommandLine": True}

# (test name, setting, shell, checks)
CASES: list[tuple[str, dict[str, Any], str, list[tuple[Any, ...]]]] = [
    # suite 'autoApprove with allow patterns only'
    ("should auto-approve exact command match", {"echo": True}, "bash", [("echo", True)]),
    ("should auto-approve command with arguments", {"echo": True}, "bash",
     [("echo hello world", True)]),
    ("should not auto-approve when there is no match", {"echo": True}, "bash", [("ls", False)]),
    ("should not auto-approve partial command matches", {"echo": True}, "bash",
     [("echotest", False)]),
    ("should handle multiple commands in autoApprove", {"echo": True, "ls": True, "pwd": True},
     "bash", [("echo", True), ("ls -la", True), ("pwd", True), ("rm", False)]),
    # suite 'autoApprove with deny patterns only'
    ("should deny commands in autoApprove", {"rm": False, "del": False}, "bash",
     [("rm file.txt", False), ("del file.txt", False)]),
    ("should not auto-approve safe commands when no allow patterns are present", {"rm": False},
     "bash", [("echo hello", False), ("ls", False)]),
    # suite 'autoApprove with mixed allow and deny patterns'
    ("should deny commands set to false even if other commands are set to true",
     {"echo": True, "rm": False}, "bash", [("echo hello", True), ("rm file.txt", False)]),
    ("should auto-approve allow patterns not set to false",
     {"echo": True, "ls": True, "pwd": True, "rm": False, "del": False}, "bash",
     [("echo", True), ("ls", True), ("pwd", True), ("rm", False), ("del", False)]),
    # suite 'regex patterns'
    ("should handle /.*/", {"/.*/": True}, "bash", [("echo hello", True)]),
    ("should handle regex patterns in autoApprove", {"/^echo/": True, "/^ls/": True, "pwd": True},
     "bash", [("echo hello", True), ("ls -la", True), ("pwd", True), ("rm file", False)]),
    ("should handle regex patterns for deny",
     {"echo": True, "rm": True, "/^rm\\s+/": False, "/^del\\s+/": False}, "bash",
     [("echo hello", True), ("rm", True), ("rm file.txt", False), ("del file.txt", False)]),
    ("should handle complex regex patterns",
     {"/^(echo|ls|pwd)\\b/": True, "/^git (status|show\\b.*)$/": True, "/rm|del|kill/": False},
     "bash", [("echo test", True), ("ls -la", True), ("pwd", True), ("git status", True),
              ("git show", True), ("git show HEAD", True), ("rm file", False),
              ("del file", False), ("kill process", False)]),
    # suite 'regex patterns' > 'flags'
    ("should handle case-insensitive regex patterns with i flag",
     {"/^echo/i": True, "/^ls/i": True, "/rm|del/i": False}, "bash",
     [("echo hello", True), ("ECHO hello", True), ("Echo hello", True), ("ls -la", True),
      ("LS -la", True), ("Ls -la", True), ("rm file", False), ("RM file", False),
      ("del file", False), ("DEL file", False)]),
    ("should handle multiple regex flags", {"/^git\\s+/gim": True, "/dangerous/gim": False},
     "bash", [("git status", True), ("GIT status", True), ("Git status", True),
              ("dangerous command", False), ("DANGEROUS command", False)]),
    ("should handle various regex flags",
     {"/^echo.*/s": True, "/^git\\s+/i": True, "/rm|del/g": False}, "bash",
     [("echo hello\nworld", True), ("git status", True), ("GIT status", True),
      ("rm file", False), ("del file", False)]),
    ("should handle regex patterns without flags", {"/^echo/": True, "/rm|del/": False}, "bash",
     [("echo hello", True), ("ECHO hello", False), ("rm file", False), ("RM file", False)]),
    # suite 'edge cases'
    ("should handle empty autoApprove", {}, "bash",
     [("echo hello", False), ("ls", False), ("rm file", False)]),
    ("should handle empty command strings", {"echo": True}, "bash", [("", False), ("   ", False)]),
    ("should handle whitespace in commands", {"echo": True}, "bash",
     [("echo   hello   world", True)]),
    ("should be case-sensitive by default", {"echo": True}, "bash",
     [("echo hello", True), ("ECHO hello", False), ("Echo hello", False)]),
    ("should handle string-based values with special regex characters",
     {"pwsh.exe -File D:\\foo.bar\\a-script.ps1": True}, "bash",
     [("pwsh.exe -File D:\\foo.bar\\a-script.ps1", True),
      ("pwsh.exe -File D:\\foo.bar\\a-script.ps1 -AnotherArg", True)]),
    ("should ignore the empty string key", {"": True}, "bash", [("echo hello", False)]),
    ("should handle empty regex patterns that could cause endless loops",
     {"//": True, "/(?:)/": True, "/*/": True, "/.**/": True}, "bash",
     [("echo hello", False), ("ls", False), ("", False)]),
    ("should handle regex patterns that would cause endless loops",
     {"/a*/": True, "/b?/": True, "/(x|)*/": True, "/(?:)*/": True}, "bash",
     [("echo hello", False), ("ls", False), ("a", False), ("b", False)]),
    ("should handle mixed valid and problematic regex patterns",
     {"/^echo/": True, "//": True, "/^ls/": True, "/a*/": True, "pwd": True}, "bash",
     [("echo hello", True), ("ls -la", True), ("pwd", True), ("rm file", False)]),
    ("should handle invalid regex patterns gracefully",
     {"/*/": True, "/(?:+/": True, "/[/": True, "/^echo/": True, "ls": True}, "bash",
     [("echo hello", True), ("ls -la", True), ("random command", False)]),
    # suite 'path-aware auto approval'
    ("should handle path variations with forward slashes", {"bin/foo": True}, "bash",
     [("bin/foo", True), ("bin/foo --arg", True), ("bin\\foo", True), ("bin\\foo --arg", True),
      ("./bin/foo", True), (".\\bin/foo", True), ("./bin\\foo", True), (".\\bin\\foo", True),
      ("bin/foobar", False), ("notbin/foo", False)]),
    ("should handle path variations with backslashes", {"bin\\script.bat": True}, "bash",
     [("bin\\script.bat", True), ("bin\\script.bat --help", True), ("bin/script.bat", True),
      ("bin/script.bat --help", True), ("./bin\\script.bat", True),
      (".\\bin\\script.bat", True), ("./bin/script.bat", True), (".\\bin/script.bat", True)]),
    ("should handle deep paths", {"src/utils/helper.js": True}, "bash",
     [("src/utils/helper.js", True), ("src\\utils\\helper.js", True),
      ("src/utils\\helper.js", True), ("src\\utils/helper.js", True),
      ("./src/utils/helper.js", True), (".\\src\\utils\\helper.js", True)]),
    ("should not treat non-paths as paths", {"echo": True, "ls": True, "git": True}, "bash",
     [("echo", True), ("ls", True), ("git", True), ("./echo", False), (".\\ls", False)]),
    ("should handle paths with mixed separators in config", {"bin/foo\\bar": True}, "bash",
     [("bin/foo\\bar", True), ("bin\\foo/bar", True), ("bin/foo/bar", True),
      ("bin\\foo\\bar", True), ("./bin/foo\\bar", True), (".\\bin\\foo\\bar", True)]),
    ("should work with command line auto approval for paths", {"bin/deploy": CL}, "bash",
     [("line", "bin/deploy --prod", True), ("line", "bin\\deploy --prod", True),
      ("line", "./bin/deploy --prod", True), ("line", ".\\bin\\deploy --prod", True)]),
    ("should handle special characters in paths",
     {"bin/my-script.sh": True, "scripts/build_all.py": True, "tools/run (debug).exe": True},
     "bash", [("bin/my-script.sh", True), ("bin\\my-script.sh", True),
              ("./bin/my-script.sh", True), ("scripts/build_all.py", True),
              ("scripts\\build_all.py", True), ("tools/run (debug).exe", True),
              ("tools\\run (debug).exe", True)]),
    # suite 'PowerShell-specific commands' (setup: shell = 'pwsh')
    ("should handle Windows PowerShell commands",
     {"Get-ChildItem": True, "Get-Content": True, "Get-Location": True, "Remove-Item": False,
      "del": False}, "pwsh",
     [("Get-ChildItem", True), ("Get-Content file.txt", True), ("Get-Location", True),
      ("Remove-Item file.txt", False)]),
    ("should handle ( prefixes", {"Get-Content": True}, "pwsh",
     [("Get-Content file.txt", True), ("(Get-Content file.txt", True), ("[Get-Content", False),
      ("foo", False)]),
    ("should be case-insensitive for PowerShell commands",
     {"Get-ChildItem": True, "Get-Content": True, "Remove-Item": False}, "pwsh",
     [("Get-ChildItem", True), ("get-childitem", True), ("GET-CHILDITEM", True),
      ("Get-childitem", True), ("get-ChildItem", True), ("Get-Content file.txt", True),
      ("get-content file.txt", True), ("GET-CONTENT file.txt", True),
      ("Get-content file.txt", True), ("Remove-Item file.txt", False),
      ("remove-item file.txt", False), ("REMOVE-ITEM file.txt", False),
      ("Remove-item file.txt", False)]),
    ("should be case-insensitive for PowerShell aliases",
     {"ls": True, "dir": True, "rm": False, "del": False}, "pwsh",
     [("ls", True), ("LS", True), ("Ls", True), ("dir", True), ("DIR", True), ("Dir", True),
      ("rm file.txt", False), ("RM file.txt", False), ("Rm file.txt", False),
      ("del file.txt", False), ("DEL file.txt", False), ("Del file.txt", False)]),
    ("should be case-insensitive with regex patterns", {"/^Get-/": True, "/Remove-Item|rm/": False},
     "pwsh", [("Get-ChildItem", True), ("get-childitem", True), ("GET-PROCESS", True),
              ("Get-Location", True), ("Remove-Item file.txt", False),
              ("remove-item file.txt", False), ("rm file.txt", False), ("RM file.txt", False)]),
    # suite 'isCommandLineAutoApproved - matchCommandLine functionality'
    ("should auto-approve command line patterns with matchCommandLine: true", {"echo": CL}, "bash",
     [("line", "echo hello", True), ("line", "echo test && ls", True)]),
    ("should not auto-approve regular patterns with isCommandLineAutoApproved", {"echo": True},
     "bash", [("line", "echo hello", False)]),
    ("should handle regex patterns with matchCommandLine: true", {"/echo.*world/": CL}, "bash",
     [("line", "echo hello world", True), ("line", "echo hello", False)]),
    ("should handle case-insensitive regex with matchCommandLine: true", {"/echo/i": CL}, "bash",
     [("line", "echo hello", True), ("line", "ECHO hello", True), ("line", "Echo hello", True)]),
    ("should handle complex command line patterns", {"/^npm run build/": CL, "/\\.ps1/i": CL},
     "bash", [("line", "npm run build --production", True),
              ("line", "powershell -File script.ps1", True),
              ("line", "pwsh -File SCRIPT.PS1", True), ("line", "npm install", False)]),
    ("should return false for empty command line", {"echo": CL}, "bash",
     [("line", "", False), ("line", "   ", False)]),
    ("should handle mixed configuration with matchCommandLine entries",
     {"echo": True, "ls": CL, "rm": {"approve": True, "matchCommandLine": False}}, "bash",
     [("line", "ls -la", True), ("line", "echo hello", False), ("line", "rm file.txt", False)]),
    ("should handle deny patterns with matchCommandLine: true",
     {"echo": CL, "/dangerous/": {"approve": False, "matchCommandLine": True}}, "bash",
     [("line", "echo hello", True), ("line", "echo dangerous command", False),
      ("line", "dangerous operation", False)]),
    ("should prioritize deny list over allow list for command line patterns",
     {"/echo/": CL, "/echo.*dangerous/": {"approve": False, "matchCommandLine": True}}, "bash",
     [("line", "echo hello", True), ("line", "echo dangerous command", False)]),
    ("should handle complex deny patterns with matchCommandLine",
     {"npm": CL, "/npm.*--force/": {"approve": False, "matchCommandLine": True},
      "/\\.ps1.*-ExecutionPolicy/i": {"approve": False, "matchCommandLine": True}}, "bash",
     [("line", "npm install", True), ("line", "npm run build", True),
      ("line", "npm install --force", False),
      ("line", "powershell -File script.ps1 -ExecutionPolicy Bypass", False)]),
    ("should handle empty regex patterns with matchCommandLine that could cause endless loops",
     {"//": CL, "/(?:)/": CL, "/*/": CL, "/.**/": CL}, "bash",
     [("line", "echo hello", False), ("line", "ls", False), ("line", "", False)]),
    ("should handle regex patterns with matchCommandLine that would cause endless loops",
     {"/a*/": CL, "/b?/": CL, "/(x|)*/": CL, "/(?:)*/": CL}, "bash",
     [("line", "echo hello", False), ("line", "ls", False), ("line", "a", False),
      ("line", "b", False)]),
    ("should handle mixed valid and problematic regex patterns with matchCommandLine",
     {"/^echo/": CL, "//": CL, "/^ls/": CL, "/a*/": CL, "pwd": CL}, "bash",
     [("line", "echo hello", True), ("line", "ls -la", True), ("line", "pwd", True),
      ("line", "rm file", False)]),
    ("should handle invalid regex patterns with matchCommandLine gracefully",
     {"/*/": CL, "/(?:+/": CL, "/[/": CL, "/^echo/": CL, "ls": CL}, "bash",
     [("line", "echo hello", True), ("line", "ls -la", True),
      ("line", "random command", False)]),
]


def _check(rules: AutoApproveRules, shell: str, check: tuple[Any, ...], os: str = "linux") -> None:
    if check[0] == "line":
        _, command, want = check
        got = is_command_line_auto_approved(rules, command).result == "approved"
    else:
        command, want = check
        got = is_command_auto_approved(rules, command, shell, os).result == "approved"
    assert got is want, (command, want)


@pytest.mark.parametrize(("name", "setting", "shell", "checks"), CASES,
                         ids=[c[0] for c in CASES])
def test_command_line_auto_approver(name: str, setting: dict[str, Any], shell: str,
                                    checks: list[tuple[Any, ...]]) -> None:
    """One ``test(...)`` of commandLineAutoApprover.test.ts (its name is the test id)."""
    rules = parse_rules(setting)
    for check in checks:
        _check(rules, shell, check)


def test_case_insensitive_powershell_commands_on_different_os() -> None:
    """commandLineAutoApprover.test.ts 'should handle case-insensitive PowerShell commands on
    different OS' (pwsh on Windows, Linux and macOS)."""
    rules = parse_rules({"Get-Process": True, "Stop-Process": False})
    for os in ("windows", "linux", "macos"):
        for command, want in (("Get-Process", True), ("get-process", True),
                              ("GET-PROCESS", True), ("Stop-Process", False),
                              ("stop-process", False)):
            _check(rules, "pwsh", (command, want), os)


# suite 'reasons'
@pytest.mark.parametrize(("setting", "line", "reason"), [
    ({"echo": True}, False, "Command 'echo hello' is approved by allow list rule: echo"),
    ({"echo": False}, False, "Command 'echo hello' is denied by deny list rule: echo"),
    ({}, False, "Command 'echo hello' has no matching auto approve entries"),
    ({"echo": CL}, True, "Command line 'echo hello' is approved by allow list rule: echo"),
    ({"echo": {"approve": False, "matchCommandLine": True}}, True,
     "Command line 'echo hello' is denied by deny list rule: echo"),
    ({}, True, "Command line 'echo hello' has no matching auto approve entries"),
], ids=["command approved", "command not approved", "command no match",
        "command line approved", "command line not approved", "command line no match"])
def test_reasons(setting: dict[str, Any], line: bool, reason: str) -> None:
    """commandLineAutoApprover.test.ts suite 'reasons' > 'command' / 'command line'."""
    rules = parse_rules(setting)
    result = (is_command_line_auto_approved(rules, "echo hello") if line
              else is_command_auto_approved(rules, "echo hello"))
    assert result.reason == reason


# suite 'isDefaultRule logic': the test's mock returns the user value under ``user`` (not
# ``userValue``), so every rule's source target is DEFAULT there; isDefaultRule is what it checks
def _with_defaults(user: dict[str, Any], default: dict[str, Any],
                   ignore: bool = False) -> AutoApproveRules:
    return parse_rules({**default, **user}, default=default, ignore_defaults=ignore)


def _is_default(rules: AutoApproveRules, command: str, line: bool = False) -> bool | None:
    result = (is_command_line_auto_approved(rules, command) if line
              else is_command_auto_approved(rules, command))
    return result.rule.is_default_rule if result.rule is not None else None


DEFAULT_RULE_CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[Any, ...]]]] = [
    ("should correctly identify default rules vs user-defined rules",
     {"echo": True, "ls": True, "pwd": False}, {"echo": True, "cat": True},
     [("echo hello", True), ("ls -la", False), ("pwd", False), ("cat file.txt", True)]),
    ("should handle default rules with different values", {"echo": True, "rm": True},
     {"echo": False, "rm": True}, [("echo hello", False), ("rm file.txt", True)]),
    ("should handle regex patterns as default rules", {"/^git/": True, "/^npm/": False},
     {"/^git/": True, "/^docker/": True}, [("git status", True), ("npm install", False)]),
    ("should handle mixed string and regex patterns", {"echo": True, "/^ls/": False},
     {"echo": True, "cat": True}, [("echo hello", True), ("ls -la", False)]),
    ("should handle command line rules with isDefaultRule",
     {"echo": CL, "ls": {"approve": False, "matchCommandLine": True}},
     {"echo": CL, "cat": CL}, [("line", "echo hello world", True), ("line", "ls -la", False)]),
    ("should handle command line rules with different matchCommandLine values",
     {"echo": CL, "ls": {"approve": True, "matchCommandLine": False}},
     {"echo": {"approve": True, "matchCommandLine": False},
      "ls": {"approve": True, "matchCommandLine": False}},
     [("line", "echo hello", False), ("line", "ls -la", None)]),
    ("should handle boolean vs object format consistency", {"echo": True, "ls": CL},
     {"echo": True, "ls": CL}, [("echo hello", True), ("line", "ls -la", True)]),
    ("should return undefined for noMatch cases", {"echo": True}, {"cat": True},
     [("unknown-command", None), ("line", "unknown-command", None)]),
    ("should handle empty configurations", {}, {},
     [("echo hello", None), ("line", "echo hello", None)]),
    ("should handle only default config with no user overrides", {}, {"echo": True, "ls": False},
     [("echo hello", True), ("ls -la", True)]),
    ("should handle complex nested object rules",
     {"npm": CL, "git": {"approve": False, "matchCommandLine": False}},
     {"npm": CL, "docker": CL}, [("line", "npm install", True), ("line", "git status", None)]),
    ("should use structural equality for object comparison", {"test": CL}, {"test": dict(CL)},
     [("line", "test command", True)]),
    ("should detect structural differences in objects", {"test": CL},
     {"test": {"approve": True, "matchCommandLine": False}}, [("line", "test command", False)]),
    ("should handle mixed types correctly",
     {"cmd1": True, "cmd2": {"approve": False, "matchCommandLine": True}},
     {"cmd1": True, "cmd2": {"approve": False, "matchCommandLine": True}},
     [("cmd1 arg", True), ("line", "cmd2 arg", True)]),
]


@pytest.mark.parametrize(("name", "user", "default", "checks"), DEFAULT_RULE_CASES,
                         ids=[c[0] for c in DEFAULT_RULE_CASES])
def test_is_default_rule_logic(name: str, user: dict[str, Any], default: dict[str, Any],
                               checks: list[tuple[Any, ...]]) -> None:
    """commandLineAutoApprover.test.ts suite 'isDefaultRule logic' (test name is the id)."""
    rules = _with_defaults(user, default)
    for check in checks:
        line = check[0] == "line"
        command, want = check[1:] if line else check
        assert _is_default(rules, command, line) is want, (command, want)


def test_mark_as_default_when_only_in_default_config() -> None:
    """'should mark as default when command is only in default config but not in user
    config': echo and ls approved; cat approved from the default, marked default."""
    rules = _with_defaults({"echo": True, "ls": True}, {"echo": True, "cat": True})
    for command in ("echo", "ls", "cat"):
        assert is_command_auto_approved(rules, command).result == "approved"
    assert _is_default(rules, "cat") is True


def test_powershell_case_insensitive_matching_with_defaults() -> None:
    """'should handle PowerShell case-insensitive matching with defaults' (pwsh, Windows)."""
    rules = _with_defaults({"Get-Process": True}, {"Get-Process": True})
    for command in ("Get-Process", "get-process", "GET-PROCESS"):
        result = is_command_auto_approved(rules, command, "pwsh", "windows")
        assert result.rule is not None and result.rule.is_default_rule is True


@pytest.mark.parametrize(("ignore", "echo_and_cat"), [(False, True), (True, False)],
                         ids=["should include default rules when ignoreDefaultAutoApproveRules "
                              "is false (default behavior)",
                              "should exclude default rules when ignoreDefaultAutoApproveRules "
                              "is true"])
def test_ignore_default_auto_approve_rules(ignore: bool, echo_and_cat: bool) -> None:
    """commandLineAutoApprover.test.ts suite 'ignoreDefaultAutoApproveRules'."""
    rules = _with_defaults({"ls": True}, {"echo": True, "cat": True}, ignore=ignore)
    assert is_command_auto_approved(rules, "ls -la").result == "approved"
    for command in ("echo hello", "cat file.txt"):
        assert (is_command_auto_approved(rules, command).result == "approved") is echo_and_cat


def test_a_user_rule_equal_to_a_default_is_kept_when_defaults_are_ignored() -> None:
    """Not in the TypeScript suite: the same rule set in user settings has source USER (the
    first layer holding it with an equal value), so ignoreDefaultAutoApproveRules keeps it
    (``ignoreDefaults && isDefaultRule && sourceTarget === DEFAULT`` in the approver)."""
    layers = [(RuleSource("user", "settings.json", 3), {"echo": True})]
    rules = parse_rules({"echo": True, "cat": True}, default={"echo": True, "cat": True},
                        layers=layers, ignore_defaults=True)
    assert [r.source_text for r in rules.allow] == ["echo"]
    assert rules.allow[0].is_default_rule and rules.allow[0].source.target == "user"
