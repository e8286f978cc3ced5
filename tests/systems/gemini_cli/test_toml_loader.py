"""Gemini CLI's ``packages/core/src/policy/toml-loader.test.ts``, ported whole
(google-gemini/gemini-cli@5411f113cafae26161b4969b0237b8e1e024e2c2).

Each test's docstring names its ``describe`` block and ``it`` name. Upstream writes each TOML
text to a fresh temporary folder and calls ``loadPoliciesFromToml([tempDir], () => 1)``;
:func:`run_load` does the same with ``tmp_path``. ``getErrors`` / ``getWarnings`` split the
result's errors by severity as upstream's helpers do. toolkit additionally locates every
error (file:line); those checks are marked "toolkit:".
"""

from __future__ import annotations

import shutil
from pathlib import Path

from toolkit.systems.gemini_cli.config import BUILTIN_POLICIES
from toolkit.systems.gemini_cli.policy import ALLOW, ASK_USER, DENY, PolicyEngine, PolicyRule
from toolkit.systems.gemini_cli.toml_loader import (
    PolicyFileError,
    PolicyLoadResult,
    load_policies,
    validate_mcp_policy_tool_names,
)

SOURCE = "packages/core/src/policy/toml-loader.test.ts"
PRIORITY_SUBAGENT_TOOL = 1.03  # types.ts


def get_errors(result: PolicyLoadResult) -> list[PolicyFileError]:
    """getErrors: errors whose severity is not 'warning'."""
    return [e for e in result.errors if e.severity != "warning"]


def get_warnings(result: PolicyLoadResult) -> list[PolicyFileError]:
    """getWarnings: errors whose severity is 'warning'."""
    return [e for e in result.errors if e.severity == "warning"]


def run_load(tmp_path: Path, text: str, file_name: str = "test.toml") -> PolicyLoadResult:
    """runLoadPoliciesFromToml: one file in the folder, every path of tier 1."""
    (tmp_path / file_name).write_text(text, encoding="utf-8")
    return load_policies([tmp_path], lambda _: 1)


def _test(rule: PolicyRule, text: str) -> bool:
    """``rule.argsPattern?.test(text)``."""
    return rule.compiled is not None and rule.compiled.search(text) is not None


# -- describe('loadPoliciesFromToml') ------------------------------------------------------------

def test_load_and_parse_a_simple_policy_file(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should load and parse a simple policy file"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "glob"\ndecision = "allow"\n'
                                'priority = 100\n')
    assert len(result.rules) == 1
    rule = result.rules[0]
    assert (rule.tool_name, rule.decision, rule.priority, rule.source) == (
        "glob", ALLOW, 1.1, "Default: test.toml")
    # toEqual ignores undefined properties: every other field is unset
    assert (rule.mcp_name, rule.subagent, rule.args_pattern, rule.tool_annotations, rule.modes,
            rule.interactive, rule.allow_redirection, rule.deny_message) == (None,) * 8
    assert result.checkers == [] and result.errors == []
    assert rule.line == 2  # toolkit: where the [[rule]] is


def test_expand_command_prefix_array_to_multiple_rules(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should expand commandPrefix array to multiple rules"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandPrefix = ["git status", "git log"]\ndecision = "allow"\n'
                                'priority = 100\n')
    assert [r.tool_name for r in result.rules] == ["run_shell_command"] * 2
    assert _test(result.rules[0], '{"command":"git status"}')
    assert _test(result.rules[1], '{"command":"git log"}')
    assert result.errors == []


def test_parse_tool_annotations_from_toml(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should parse toolAnnotations from TOML"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "annotated-tool"\n'
                                'toolAnnotations = { readOnlyHint = true, custom = "value" }\n'
                                'decision = "allow"\npriority = 70\n')
    assert len(result.rules) == 1
    assert result.rules[0].tool_name == "annotated-tool"
    assert result.rules[0].tool_annotations == {"readOnlyHint": True, "custom": "value"}
    assert result.errors == []


def test_transform_mcp_name_star_to_wildcard_tool_name(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should transform mcpName = "*" to wildcard toolName"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "*"\nmcpName = "*"\n'
                                'decision = "ask_user"\npriority = 10\n')
    assert len(result.rules) == 1
    assert result.rules[0].tool_name == "mcp_*"
    assert result.rules[0].decision == ASK_USER
    assert result.errors == []


def test_transform_mcp_name_star_and_specific_tool_to_wildcard_prefix(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should transform mcpName = "*" and specific toolName to wildcard
    prefix"""
    result = run_load(tmp_path, '\n[[rule]]\nmcpName = "*"\ntoolName = "search"\n'
                                'decision = "allow"\npriority = 10\n')
    assert [r.tool_name for r in result.rules] == ["mcp_*_search"]
    assert result.errors == []


def test_transform_command_regex_to_args_pattern(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should transform commandRegex to argsPattern"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandRegex = "git (status|log).*"\ndecision = "allow"\n'
                                'priority = 100\n')
    [rule] = result.rules
    assert _test(rule, '{"command":"git status"}')
    assert _test(rule, '{"command":"git log --all"}')
    assert not _test(rule, '{"command":"git branch"}')
    assert result.errors == []


def test_caret_in_command_regex_does_not_match(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should NOT match if ^ is used in commandRegex because it
    matches against full JSON"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandRegex = "^git status"\ndecision = "allow"\n'
                                'priority = 100\n')
    [rule] = result.rules
    assert not _test(rule, '{"command":"git status"}')
    assert result.errors == []


def test_expand_tool_name_array(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should expand toolName array"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = ["glob", "grep", "read"]\n'
                                'decision = "allow"\npriority = 100\n')
    assert [r.tool_name for r in result.rules] == ["glob", "grep", "read"]
    assert get_errors(result) == []


def test_transform_mcp_name_to_composite_tool_name(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should transform mcpName to composite toolName"""
    result = run_load(tmp_path, '\n[[rule]]\nmcpName = "google-workspace"\n'
                                'toolName = ["calendar.list", "calendar.get"]\n'
                                'decision = "allow"\npriority = 100\n')
    assert [r.tool_name for r in result.rules] == ["mcp_google-workspace_calendar.list",
                                                   "mcp_google-workspace_calendar.get"]
    assert result.errors == []


def test_modes_are_kept_not_filtered_at_load(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should NOT filter rules by mode at load time but preserve modes
    property"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "glob"\ndecision = "allow"\n'
                                'priority = 100\nmodes = ["default", "yolo"]\n\n'
                                '[[rule]]\ntoolName = "grep"\ndecision = "allow"\n'
                                'priority = 100\nmodes = ["yolo"]\n')
    assert [(r.tool_name, r.modes) for r in result.rules] == [
        ("glob", ("default", "yolo")), ("grep", ("yolo",))]
    assert get_errors(result) == []


def test_allow_redirection_snake_case(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should parse and transform allow_redirection property"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandPrefix = "echo"\ndecision = "allow"\npriority = 100\n'
                                'allow_redirection = true\n')
    assert [r.allow_redirection for r in result.rules] == [True]
    assert result.errors == []


def test_allow_redirection_camel_case(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should parse and transform allowRedirection property
    (camelCase)"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandPrefix = "echo"\ndecision = "allow"\npriority = 100\n'
                                'allowRedirection = true\n')
    assert [r.allow_redirection for r in result.rules] == [True]
    assert result.errors == []


def test_deny_message_snake_case(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should parse deny_message property"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "rm"\ndecision = "deny"\n'
                                'priority = 100\ndeny_message = "Deletion is permanent"\n')
    [rule] = result.rules
    assert rule.decision == DENY and rule.deny_message == "Deletion is permanent"
    assert get_errors(result) == []


def test_deny_message_camel_case(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should parse denyMessage property (camelCase)"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "rm"\ndecision = "deny"\n'
                                'priority = 100\ndenyMessage = "Deletion is permanent"\n')
    [rule] = result.rules
    assert rule.decision == DENY and rule.deny_message == "Deletion is permanent"
    assert get_errors(result) == []


def test_modes_for_tier_4_and_tier_5_policies(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should support modes property for Tier 4 and Tier 5 policies"""
    (tmp_path / "tier4.toml").write_text('\n[[rule]]\ntoolName = "tier4-tool"\n'
                                         'decision = "allow"\npriority = 100\n'
                                         'modes = ["autoEdit"]\n')
    result4 = load_policies([tmp_path], lambda _: 4)
    [rule] = result4.rules
    assert (rule.tool_name, rule.modes, rule.source) == ("tier4-tool", ("autoEdit",),
                                                         "User: tier4.toml")
    assert load_policies([tmp_path], lambda _: 2).rules[0].source == "Extension: tier4.toml"
    result5 = load_policies([tmp_path], lambda _: 5)
    assert result5.rules[0].source == "Admin: tier4.toml"
    assert result5.errors == []


def test_toml_parse_errors(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should handle TOML parse errors"""
    result = run_load(tmp_path, '\n[[rule]\ntoolName = "glob"\ndecision = "allow"\n'
                                'priority = 100\n')
    assert result.rules == []
    [error] = result.errors
    assert error.error_type == "toml_parse" and error.file_name == "test.toml"
    assert error.line == 2  # toolkit: the line the TOML parser stopped at


def test_schema_validation_errors(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should handle schema validation errors"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "glob"\npriority = 100\n')
    assert result.rules == []
    [error] = result.errors
    assert error.error_type == "schema_validation"
    assert "decision" in (error.details or "")
    assert error.line == 2  # toolkit: the rule missing its decision


def test_reject_command_prefix_without_run_shell_command(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should reject commandPrefix without run_shell_command"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "glob"\ncommandPrefix = "git status"\n'
                                'decision = "allow"\npriority = 100\n')
    [error] = result.errors
    assert error.error_type == "rule_validation"
    assert "run_shell_command" in (error.details or "")
    assert error.line == 4  # toolkit: the commandPrefix key


def test_reject_command_prefix_with_args_pattern(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should reject commandPrefix + argsPattern combination"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandPrefix = "git status"\nargsPattern = "test"\n'
                                'decision = "allow"\npriority = 100\n')
    [error] = result.errors
    assert error.error_type == "rule_validation"
    assert "mutually exclusive" in (error.details or "")


def test_invalid_regex_patterns(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should handle invalid regex patterns"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandRegex = "git (status|branch"\ndecision = "allow"\n'
                                'priority = 100\n')
    assert result.rules == []
    [error] = result.errors
    assert error.error_type == "regex_compilation"
    assert "git (status|branch" in (error.details or "")


def test_escape_regex_special_characters_in_command_prefix(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should escape regex special characters in commandPrefix"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                'commandPrefix = "git log *.txt"\ndecision = "allow"\n'
                                'priority = 100\n')
    [rule] = result.rules
    assert not _test(rule, '{"command":"git log file.txt"}')
    assert _test(rule, '{"command":"git log *.txt"}')
    assert result.errors == []


def test_mix_of_valid_and_invalid_policy_files(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should handle a mix of valid and invalid policy files"""
    (tmp_path / "valid.toml").write_text('\n[[rule]]\ntoolName = "glob"\ndecision = "allow"\n'
                                         'priority = 100\n')
    (tmp_path / "invalid.toml").write_text('\n[[rule]]\ntoolName = "grep"\n'
                                           'decision = "allow"\npriority = -1\n')
    result = load_policies([tmp_path], lambda _: 1)
    assert [r.tool_name for r in result.rules] == ["glob"]
    [error] = result.errors
    assert error.file_name == "invalid.toml" and error.error_type == "schema_validation"
    assert error.line == 5  # toolkit: the priority key


def test_safety_checker_priorities_follow_the_tier(tmp_path: Path) -> None:
    """loadPoliciesFromToml › should transform safety checker priorities based on tier"""
    result = run_load(tmp_path, '\n[[safety_checker]]\ntoolName = "write_file"\n'
                                'priority = 100\n[safety_checker.checker]\ntype = "in-process"\n'
                                'name = "allowed-path"\n')
    [checker] = result.checkers
    assert checker.priority == 1.1
    assert checker.source == "Default: test.toml"


# -- describe('Negative Tests') -----------------------------------------------------------------

def _only_error(result: PolicyLoadResult) -> PolicyFileError:
    assert len(result.errors) == 1, result.errors
    return result.errors[0]


def test_safety_checker_without_tool_name(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if toolName is missing in
    safety_checker"""
    error = _only_error(run_load(tmp_path, '\n[[safety_checker]]\npriority = 100\n'
                                           '[safety_checker.checker]\ntype = "in-process"\n'
                                           'name = "allowed-path"\n'))
    assert error.error_type == "schema_validation"
    assert "toolName" in (error.details or "") and "Invalid input" in (error.details or "")


def _priority_error(tmp_path: Path, value: str) -> PolicyFileError:
    body = f'\n[[rule]]\ntoolName = "test"\ndecision = "allow"\n{value}'
    error = _only_error(run_load(tmp_path, body))
    assert error.error_type == "schema_validation"
    assert "priority" in (error.details or "")
    return error


def test_priority_missing(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if priority is missing"""
    _priority_error(tmp_path, "")


def test_priority_float(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if priority is a float"""
    assert "integer" in (_priority_error(tmp_path, "priority = 1.5\n").details or "")


def test_priority_negative(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if priority is negative"""
    assert ">= 0" in (_priority_error(tmp_path, "priority = -1\n").details or "")


def test_priority_much_lower_than_zero(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if priority is much lower
    than 0"""
    assert ">= 0" in (_priority_error(tmp_path, "priority = -9999\n").details or "")


def test_priority_1000(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if priority is >= 1000"""
    assert "<= 999" in (_priority_error(tmp_path, "priority = 1000\n").details or "")


def test_priority_much_higher_than_1000(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if priority is much higher
    than 1000"""
    assert "<= 999" in (_priority_error(tmp_path, "priority = 9999\n").details or "")


def test_decision_invalid(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if decision is invalid"""
    error = _only_error(run_load(tmp_path, '\n[[rule]]\ntoolName = "test"\n'
                                           'decision = "maybe"\npriority = 100\n'))
    assert error.error_type == "schema_validation" and "decision" in (error.details or "")


def test_tool_name_missing(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if toolName is missing"""
    error = _only_error(run_load(tmp_path, '\n[[rule]]\ndecision = "allow"\npriority = 100\n'))
    assert error.error_type == "schema_validation"
    assert "toolName" in (error.details or "") and "Invalid input" in (error.details or "")


def test_tool_name_not_string_or_array(tmp_path: Path) -> None:
    """Negative Tests › should return a schema_validation error if toolName is not a string
    or array"""
    error = _only_error(run_load(tmp_path, '\n[[rule]]\ntoolName = 123\ndecision = "allow"\n'
                                           'priority = 100\n'))
    assert error.error_type == "schema_validation" and "toolName" in (error.details or "")
    assert error.line == 3  # toolkit: the toolName key


def test_command_regex_with_wrong_tool_name(tmp_path: Path) -> None:
    """Negative Tests › should return a rule_validation error if commandRegex is used with
    wrong toolName"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "not_shell"\ncommandRegex = ".*"\n'
                                'decision = "allow"\npriority = 100\n')
    [error] = get_errors(result)
    assert error.error_type == "rule_validation" and "run_shell_command" in (error.details or "")


def test_command_prefix_and_command_regex_combined(tmp_path: Path) -> None:
    """Negative Tests › should return a rule_validation error if commandPrefix and
    commandRegex are combined"""
    error = _only_error(run_load(tmp_path, '\n[[rule]]\ntoolName = "run_shell_command"\n'
                                           'commandPrefix = "git"\ncommandRegex = ".*"\n'
                                           'decision = "allow"\npriority = 100\n'))
    assert error.error_type == "rule_validation"
    assert "mutually exclusive" in (error.details or "")


def test_regex_compilation_error_for_invalid_args_pattern(tmp_path: Path) -> None:
    """Negative Tests › should return a regex_compilation error for invalid argsPattern"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "test"\nargsPattern = "([a-z)"\n'
                                'decision = "allow"\npriority = 100\n')
    [error] = get_errors(result)
    assert error.error_type == "regex_compilation"
    assert error.message == "Invalid regex pattern"


def test_load_an_individual_policy_file(tmp_path: Path) -> None:
    """Negative Tests › should load an individual policy file"""
    file = tmp_path / "single-rule.toml"
    file.write_text('[[rule]]\ntoolName = "test-tool"\ndecision = "allow"\npriority = 500\n')
    result = load_policies([file], lambda _: 1)
    assert get_errors(result) == []
    assert [(r.tool_name, r.decision) for r in result.rules] == [("test-tool", ALLOW)]


def test_missing_policy_file_is_no_error(tmp_path: Path) -> None:
    """Negative Tests › should return a file_read error if stat fails with something other
    than ENOENT (upstream checks the ENOENT half: a missing file is no error)"""
    result = load_policies([tmp_path / "non-existent.toml"], lambda _: 1)
    assert result.errors == [] and result.rules == []


# -- describe('Tool name validation') -----------------------------------------------------------

def test_warn_for_unrecognized_tool_names_with_suggestions(tmp_path: Path) -> None:
    """Tool name validation › should warn for unrecognized tool names with suggestions"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "grob"\ndecision = "allow"\n'
                                'priority = 100\n')
    [warning] = get_warnings(result)
    assert warning.error_type == "tool_name_warning" and warning.severity == "warning"
    assert 'Unrecognized tool name "grob"' in (warning.details or "")
    assert "glob" in (warning.details or "")
    assert [r.tool_name for r in result.rules] == ["grob"]


def _clean(result: PolicyLoadResult, rules: int) -> None:
    """No warning, no error, and every rule of the file loaded (a loader that dropped a rule
    would also be silent)."""
    assert get_warnings(result) == [] and get_errors(result) == []
    assert len(result.rules) == rules


def test_no_warning_for_builtin_tool_names(tmp_path: Path) -> None:
    """Tool name validation › should not warn for valid built-in tool names"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "glob"\ndecision = "allow"\n'
                                'priority = 100\n\n[[rule]]\ntoolName = "read_file"\n'
                                'decision = "allow"\npriority = 100\n')
    _clean(result, 2)


def test_no_warning_for_wildcard(tmp_path: Path) -> None:
    """Tool name validation › should not warn for wildcard "*" """
    _clean(run_load(tmp_path, '\n[[rule]]\ntoolName = "*"\ndecision = "allow"\n'
                              'priority = 100\n'), 1)


def test_no_warning_for_mcp_format_tool_names(tmp_path: Path) -> None:
    """Tool name validation › should not warn for MCP format tool names"""
    _clean(run_load(tmp_path, '\n[[rule]]\ntoolName = "mcp_my-server_my-tool"\n'
                              'decision = "allow"\npriority = 100\n\n[[rule]]\n'
                              'toolName = "mcp_my-server_*"\ndecision = "allow"\n'
                              'priority = 100\n'), 2)


def test_no_warning_when_mcp_name_is_present(tmp_path: Path) -> None:
    """Tool name validation › should not warn when mcpName is present (skips validation)"""
    _clean(run_load(tmp_path, '\n[[rule]]\nmcpName = "my-server"\ntoolName = "nonexistent"\n'
                              'decision = "allow"\npriority = 100\n'), 1)


def test_no_warning_for_legacy_aliases(tmp_path: Path) -> None:
    """Tool name validation › should not warn for legacy aliases"""
    _clean(run_load(tmp_path, '\n[[rule]]\ntoolName = "search_file_content"\n'
                              'decision = "allow"\npriority = 100\n'), 1)


def test_no_warning_for_discovered_tool_prefix(tmp_path: Path) -> None:
    """Tool name validation › should not warn for discovered tool prefix"""
    _clean(run_load(tmp_path, '\n[[rule]]\ntoolName = "discovered_tool_my_custom_tool"\n'
                              'decision = "allow"\npriority = 100\n'), 1)


def test_warn_for_each_invalid_name_in_a_tool_name_array(tmp_path: Path) -> None:
    """Tool name validation › should warn for each invalid name in a toolName array"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = ["grob", "glob", "replce"]\n'
                                'decision = "allow"\npriority = 100\n')
    warnings = get_warnings(result)
    assert len(warnings) == 2
    assert '"grob"' in (warnings[0].details or "")
    assert '"replce"' in (warnings[1].details or "")
    assert len(result.rules) == 3


def test_no_warning_for_names_far_from_any_builtin(tmp_path: Path) -> None:
    """Tool name validation › should not warn for names far from any built-in (dynamic/agent
    tools)"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "delegate_to_agent"\n'
                                'decision = "allow"\npriority = 100\n\n[[rule]]\n'
                                'toolName = "my_custom_tool"\ndecision = "allow"\n'
                                'priority = 100\n')
    _clean(result, 2)


def test_no_warning_for_catch_all_rules(tmp_path: Path) -> None:
    """Tool name validation › should not warn for catch-all rules (toolName = "*")"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "*"\ndecision = "deny"\n'
                                'priority = 100\n')
    _clean(result, 1)


def test_still_load_rules_even_with_warnings(tmp_path: Path) -> None:
    """Tool name validation › should still load rules even with warnings"""
    result = run_load(tmp_path, '\n[[rule]]\ntoolName = "wrte_file"\ndecision = "deny"\n'
                                'priority = 50\n\n[[rule]]\ntoolName = "glob"\n'
                                'decision = "allow"\npriority = 100\n')
    assert len(get_warnings(result)) == 1 and get_errors(result) == []
    assert [r.tool_name for r in result.rules] == ["wrte_file", "glob"]
    assert get_warnings(result)[0].line == 3  # toolkit: the misspelt toolName


# -- describe('Built-in Plan Mode Policy') -------------------------------------------------------

def _builtin(tmp_path: Path, *names: str) -> PolicyLoadResult:
    """The vendored built-in policy files (gemini-cli's policies/*.toml) copied to a temporary
    folder and loaded as tier 1, as upstream does."""
    for name in names:
        shutil.copy(BUILTIN_POLICIES / name, tmp_path / name)
    return load_policies([tmp_path], lambda _: 1)


def test_plan_mode_allows_read_only_mcp_tools_to_ask(tmp_path: Path) -> None:
    """Built-in Plan Mode Policy › should allow MCP tools with readOnlyHint annotation in Plan
    Mode (ASK_USER, not DENY)"""
    result = _builtin(tmp_path, "plan.toml")
    assert result.errors == []
    annotation_rule = next(r for r in result.rules if r.tool_annotations is not None)
    assert annotation_rule.tool_name == "mcp_*" and annotation_rule.mcp_name == "*"
    assert annotation_rule.tool_annotations == {"readOnlyHint": True}
    assert annotation_rule.decision == ASK_USER and annotation_rule.priority == 1.05
    deny_rule = next(r for r in result.rules if r.decision == DENY and r.tool_name == "*"
                     and "Plan Mode" in (r.deny_message or ""))
    assert deny_rule.priority == 1.04

    engine = PolicyEngine(result.rules, approval_mode="plan")
    assert engine.check("github__list_issues", None, "github",
                        {"readOnlyHint": True}).decision == ASK_USER
    assert engine.check("mcp_github_create_issue", None, "github", None).decision == DENY
    assert engine.check("mcp_github_delete_issue", None, "github",
                        {"readOnlyHint": False}).decision == DENY
    # a qualified name without a separate server name
    assert engine.check("mcp_github_list_repos", None, None,
                        {"readOnlyHint": True}).decision == ASK_USER
    # no server context: the mcp_* rule cannot match
    assert engine.check("some_random_tool", None, None,
                        {"readOnlyHint": True}).decision == DENY


def test_plan_mode_overrides_default_subagent_rules(tmp_path: Path) -> None:
    """Built-in Plan Mode Policy › should override default subagent rules when in Plan Mode
    for unknown subagents"""
    result = _builtin(tmp_path, "plan.toml", "read-only.toml")
    engine = PolicyEngine(result.rules, approval_mode="plan")
    engine.add_rule(PolicyRule("invoke_agent", ALLOW, PRIORITY_SUBAGENT_TOOL,
                               args_pattern=r'"agent_name":\s*"unknown_subagent"',
                               source="AgentRegistry (Dynamic)"))
    # Plan Mode's catch-all deny (1.04) beats the subagent allow (1.03)
    assert engine.check("invoke_agent", {"agent_name": "unknown_subagent"}).decision == DENY
    assert engine.check("read_file", None).decision == ALLOW
    assert engine.check("invoke_agent",
                        {"agent_name": "codebase_investigator"}).decision == ALLOW
    assert engine.check("invoke_agent", {"agent_name": "cli_help"}).decision == ALLOW
    assert engine.check("list_mcp_resources", None).decision == ALLOW
    assert engine.check("read_mcp_resource", {"uri": "test://resource"}).decision == ALLOW


# -- describe('validateMcpPolicyToolNames') ------------------------------------------------------

def _rule(tool: str, mcp: str, source: str = "") -> PolicyRule:
    return PolicyRule(tool, ALLOW, mcp_name=mcp, source=source)


def test_mcp_warns_for_likely_typos() -> None:
    """validateMcpPolicyToolNames › should warn for MCP tool names that are likely typos"""
    warnings = validate_mcp_policy_tool_names(
        "google-workspace", ["people.getMe", "calendar.list", "calendar.get"],
        [_rule("mcp_google-workspace_people.getxMe", "google-workspace",
               "User: workspace.toml")])
    [warning] = warnings
    assert "people.getxMe" in warning and "google-workspace" in warning
    assert "people.getMe" in warning


def test_mcp_no_warning_for_matching_names() -> None:
    """validateMcpPolicyToolNames › should not warn for matching MCP tool names"""
    assert validate_mcp_policy_tool_names(
        "google-workspace", ["people.getMe", "calendar.list"],
        [_rule("mcp_google-workspace_people.getMe", "google-workspace"),
         _rule("mcp_google-workspace_calendar.list", "google-workspace")]) == []


def test_mcp_no_warning_for_wildcard_rules() -> None:
    """validateMcpPolicyToolNames › should not warn for wildcard MCP rules"""
    assert validate_mcp_policy_tool_names("my-server", ["tool1", "tool2"],
                                          [_rule("mcp_my-server_*", "my-server")]) == []


def test_mcp_no_warning_for_other_servers() -> None:
    """validateMcpPolicyToolNames › should not warn for rules targeting other servers"""
    assert validate_mcp_policy_tool_names("server-a", ["tool1"],
                                          [_rule("mcp_server-b_toolx", "server-b")]) == []


def test_mcp_no_warning_for_names_far_from_any_tool() -> None:
    """validateMcpPolicyToolNames › should not warn for tool names far from any discovered
    tool"""
    assert validate_mcp_policy_tool_names(
        "my-server", ["tool1", "tool2"],
        [_rule("mcp_my-server_completely_different_name", "my-server")]) == []


def test_mcp_skips_catch_all_rules() -> None:
    """validateMcpPolicyToolNames › should skip wildcard rules (matching all tools)"""
    assert validate_mcp_policy_tool_names("my-server", ["tool1"],
                                          [_rule("*", "my-server")]) == []


def test_mcp_warning_names_the_source() -> None:
    """validateMcpPolicyToolNames › should include source in warning when available"""
    [warning] = validate_mcp_policy_tool_names(
        "my-server", ["tool1"], [_rule("mcp_my-server_tol1", "my-server", "User: custom.toml")])
    assert "User: custom.toml" in warning
