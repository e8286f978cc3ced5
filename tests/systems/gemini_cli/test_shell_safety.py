"""Gemini CLI's own tests, ported (google-gemini/gemini-cli@5411f11).

Each case names its source file and test name. shell-safety.test.ts mocks the parser with
a command -> sub-commands table; here the real splitter (tree-sitter-bash via
toolkit.systems.base.shell) must give the same sub-commands.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.systems.gemini_cli.policy import (
    ALLOW,
    ASK_USER,
    DENY,
    PolicyEngine,
    PolicyRule,
    build_args_patterns,
)
from toolkit.systems.gemini_cli.toml_loader import parse_policy_text

SAFETY = "packages/core/src/policy/shell-safety.test.ts"


def _prefix_engine(prefix: str, allow_redirection: bool | None = None) -> PolicyEngine:
    pattern = build_args_patterns(None, prefix, None)[0]
    return PolicyEngine([PolicyRule("run_shell_command", ALLOW, 1.01, args_pattern=pattern,
                                    allow_redirection=allow_redirection)],
                        default_decision=ASK_USER, approval_mode="default")


def _both_engine() -> PolicyEngine:
    """policyEngineWithBoth: commandPrefix "echo" and "git" allowed at priority 2."""
    return PolicyEngine([PolicyRule("run_shell_command", ALLOW, 2,
                                    args_pattern=build_args_patterns(None, prefix, None)[0])
                         for prefix in ("echo", "git")], default_decision=ASK_USER)


#: the cases upstream runs against policyEngineWithBoth (an earlier port ran them against the
#: "git log" engine, so `echo $(git log)`, re-checked without heuristics, asked)
_WITH_BOTH = frozenset({"SHOULD allow command substitution if inner command is ALSO allowed",
                        'SHOULD allow complex allowed commands "git log && echo $(git log)"'})

# (test name in shell-safety.test.ts, command, expected decision)
SHELL_SAFETY = [
    ('SHOULD match "git log" exactly', "git log", ALLOW),
    ('SHOULD match "git log" with arguments', "git log --oneline", ALLOW),
    ('SHOULD NOT match "git logout" when prefix is "git log" (strict word boundary)',
     "git logout", ASK_USER),
    ('SHOULD NOT allow "git log && rm -rf /" completely when prefix is "git log" (compound '
     'command safety)', "git log && rm -rf /", ASK_USER),
    ('SHOULD NOT allow "git log; rm -rf /" (semicolon separator)', "git log; rm -rf /", ASK_USER),
    ('SHOULD NOT allow "git log || rm -rf /" (OR separator)', "git log || rm -rf /", ASK_USER),
    ('SHOULD NOT allow "git log &&& rm -rf /" when prefix is "git log" (parse failure)',
     "git log &&& rm -rf /", ASK_USER),
    ("SHOULD NOT allow command substitution $(rm -rf /)", "echo $(rm -rf /)", ASK_USER),
    ("SHOULD allow command substitution if inner command is ALSO allowed", "echo $(git log)",
     ALLOW),
    ("SHOULD NOT allow command substitution with backticks `rm -rf /`", "echo `rm -rf /`",
     ASK_USER),
    ("SHOULD NOT allow process substitution <(rm -rf /)", "diff <(git log) <(rm -rf /)",
     ASK_USER),
    ("SHOULD NOT allow process substitution >(rm -rf /)", "tee >(rm -rf /)", ASK_USER),
    ('SHOULD NOT allow piped commands "git log | rm -rf /"', "git log | rm -rf /", ASK_USER),
    ("SHOULD NOT allow argument injection via --arg=$(rm -rf /)",
     "git log --format=$(rm -rf /)", ASK_USER),
    ('SHOULD NOT allow complex nested commands "git log && echo $(git log | rm -rf /)"',
     "git log && echo $(git log | rm -rf /)", ASK_USER),
    ('SHOULD allow complex allowed commands "git log && echo $(git log)"',
     "git log && echo $(git log)", ALLOW),
    ("SHOULD NOT allow generic redirection > /tmp/test", "git log > /tmp/test", ASK_USER),
    ("SHOULD NOT allow PowerShell @(...) usage if it implies code execution",
     "git log @(Get-Process)", ASK_USER),
]


@pytest.mark.parametrize(("name", "command", "expected"), SHELL_SAFETY,
                         ids=[str(c[0] if isinstance(c, tuple) else c.values[0])
                              for c in SHELL_SAFETY])
def test_shell_safety(name: str, command: str, expected: str) -> None:
    """Source: shell-safety.test.ts, describe 'Shell Safety Policy' (beforeEach: the
    "git log" prefix engine; the two "ALSO allowed" cases build policyEngineWithBoth)."""
    engine = _both_engine() if name in _WITH_BOTH else _prefix_engine("git log")
    result = engine.check("run_shell_command", {"command": command})
    assert result.decision == expected, (SAFETY, name)


def test_shell_safety_allow_redirection() -> None:
    """Source: shell-safety.test.ts, 'SHOULD allow generic redirection > /tmp/test if
    allowRedirection is true'."""
    engine = _prefix_engine("git log", allow_redirection=True)
    assert engine.check("run_shell_command", {"command": "git log > /tmp/test"}).decision == ALLOW


def test_deny_rule_matches_inside_a_chain_with_an_unknown_command() -> None:
    """Source: shell-safety.test.ts, 'SHOULD match DENY rule even if nested/chained with
    unknown command'."""
    engine = PolicyEngine([PolicyRule("run_shell_command", DENY, 2,
                                      args_pattern=build_args_patterns(None, "git push")[0])],
                          default_decision=ASK_USER)
    result = engine.check("run_shell_command", {"command": 'git commit -m "msg" && git push'})
    assert result.decision == DENY


def test_allow_and_default_ask_blames_no_rule() -> None:
    """Source: shell-safety.test.ts, 'SHOULD aggregate ALLOW + ASK_USER to ASK_USER and blame
    the ASK_USER part' (the ask is the default's, so no rule is blamed)."""
    engine = PolicyEngine([PolicyRule("run_shell_command", ALLOW, 2, name="allow_git_status_rule",
                                      args_pattern=build_args_patterns(None, "git status")[0])],
                          default_decision=ASK_USER)
    result = engine.check("run_shell_command", {"command": "git status && unknown_command"})
    assert result.decision == ASK_USER and result.rule is None


def test_default_ask_then_rule_ask_blames_the_first_cause() -> None:
    """Source: shell-safety.test.ts, 'SHOULD aggregate ASK_USER (default) + ASK_USER (rule) to
    ASK_USER and blame the specific ASK_USER rule' (its assertion: the first cause, the
    default, so no rule)."""
    engine = PolicyEngine([PolicyRule(
        "run_shell_command", ASK_USER, 2, name="ask_another_unknown_command_rule",
        args_pattern=build_args_patterns(None, "another_unknown_command")[0])],
        default_decision=ASK_USER)
    result = engine.check("run_shell_command",
                          {"command": "unknown_command_1 && another_unknown_command"})
    assert result.decision == ASK_USER and result.rule is None


def test_two_ask_rules_blame_the_first() -> None:
    """Source: shell-safety.test.ts, 'SHOULD aggregate ASK_USER (rule) + ASK_USER (rule) to
    ASK_USER and blame the first specific ASK_USER rule in subcommands'."""
    engine = PolicyEngine([
        PolicyRule("run_shell_command", ASK_USER, 2, name=name,
                   args_pattern=build_args_patterns(None, prefix)[0])
        for name, prefix in (("ask_rule_1", "known_ask_command_1"),
                             ("ask_rule_2", "known_ask_command_2"))],
        default_decision=ALLOW)
    result = engine.check("run_shell_command",
                          {"command": "known_ask_command_1 && known_ask_command_2"})
    assert result.decision == ASK_USER
    assert result.rule is not None and result.rule.name == "ask_rule_1"


# -- toml-loader.test.ts (ported whole in test_toml_loader.py; these add locations) --------

def test_toml_loads_and_transforms() -> None:
    """Source: toml-loader.test.ts, 'should load and parse a simple policy file',
    'should expand commandPrefix array to multiple rules', 'should transform mcpName to
    composite toolName'."""
    text = ('[[rule]]\ntoolName = "glob"\ndecision = "allow"\npriority = 100\n\n'
            '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["git status", "git log"]'
            '\ndecision = "allow"\npriority = 100\n\n'
            '[[rule]]\nmcpName = "google-workspace"\ntoolName = "calendar.list"\n'
            'decision = "allow"\npriority = 100\n')
    result = parse_policy_text(text, "test.toml", 2)
    assert not [e for e in result.errors if e.severity == "error"]
    assert [r.tool_name for r in result.rules] == [
        "glob", "run_shell_command", "run_shell_command", "mcp_google-workspace_calendar.list"]
    assert result.rules[0].priority == 2.1 and result.rules[0].line == 1
    assert result.rules[1].line == 6


@pytest.mark.parametrize(("body", "kind", "needle"), [
    ('decision = "allow"\npriority = 1\n', "schema_validation", '"rule.0.toolName": Invalid input'),
    ('toolName = "glob"\ndecision = "allow"\npriority = 1.5\n', "schema_validation",
     "priority must be an integer"),
    ('toolName = "glob"\ndecision = "allow"\npriority = -1\n', "schema_validation",
     "priority must be >= 0"),
    ('toolName = "glob"\ndecision = "allow"\npriority = 1000\n', "schema_validation",
     "priority must be <= 999"),
    ('toolName = "glob"\ndecision = "maybe"\npriority = 1\n', "schema_validation",
     "Invalid enum value"),
    ('toolName = "glob"\ncommandPrefix = "git"\ndecision = "allow"\npriority = 1\n',
     "rule_validation", 'can only be used with toolName = "run_shell_command"'),
    ('toolName = "run_shell_command"\ncommandPrefix = "git"\ncommandRegex = "g"\n'
     'decision = "allow"\npriority = 1\n', "rule_validation",
     "cannot use both commandPrefix and commandRegex"),
    ('toolName = "glob"\nargsPattern = "([a-z"\ndecision = "allow"\npriority = 1\n',
     "regex_compilation", "Invalid regex pattern"),
    ('toolName = "glob"\ndecision = "allow"\npriority = \n', "toml_parse", "TOML parsing failed"),
])
def test_toml_loader_negative(body: str, kind: str, needle: str) -> None:
    """Source: toml-loader.test.ts, describe 'Negative Tests' (priority missing / float /
    negative / >= 1000, decision invalid, toolName missing, commandRegex with wrong toolName,
    commandPrefix + commandRegex, invalid argsPattern) and 'should handle TOML parse
    errors'."""
    result = parse_policy_text("# team policy\n[[rule]]\n" + body, "bad.toml", 4)
    error = result.errors[0]
    assert error.error_type == kind
    assert needle in error.formatted()
    assert error.line is not None and error.line >= 2  # located, never a traceback
    assert str(error.problem).startswith("bad.toml:")


def test_toml_warns_for_tool_name_typo() -> None:
    """Source: toml-loader.test.ts, 'should warn for unrecognized tool names with
    suggestions' and 'should still load rules even with warnings'."""
    result = parse_policy_text('[[rule]]\ntoolName = "grob"\ndecision = "allow"\npriority = 1\n',
                               "w.toml", 4)
    assert result.errors[0].error_type == "tool_name_warning"
    assert "glob" in result.errors[0].formatted() and len(result.rules) == 1


# -- toolkit: the layout, check_call and toolmatrix why -------------------------------------

def test_a_gemini_project_answers_check_call(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".gemini" / "policies").mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "team.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\n'
        'decision = "allow"\npriority = 100\n\n[[rule]]\ntoolName = "run_shell_command"\n'
        'commandPrefix = "curl"\ndecision = "deny"\npriority = 200\n')
    proj = tk.load(root, home=home, managed=False)
    assert "gemini-cli" in proj.runtimes
    d = proj.check_call("run_shell_command", {"command": "git status"}, runtime="gemini-cli")
    assert d.effect is Effect.ALLOW and d.rule.layer == "user"
    assert d.rule.where == "~/.gemini/policies/team.toml:1" and "priority 4.100" in d.message
    d = proj.check_call("run_shell_command", {"command": "git status && curl x | sh"},
                        runtime="gemini-cli")
    assert d.effect is Effect.DENY and d.rule.line == 7
    d = proj.check_call("run_shell_command", {"command": "make"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK
    d = proj.check_call("run_shell_command", {"command": "make"}, runtime="gemini-cli",
                        mode="non-interactive")
    assert d.effect in (Effect.DENY, Effect.IMPLICIT_DENY)
    assert proj.check_call("read_file", {"file_path": "a"}, runtime="gemini-cli").allowed
    proj.close()
