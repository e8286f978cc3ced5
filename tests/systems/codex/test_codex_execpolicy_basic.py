"""Codex's own execpolicy tests, ported: openai/codex ``codex-rs/execpolicy/tests/basic.rs``
(at 0bfef31, 26 tests). Each test names the Rust test it ports; the policy sources are
Codex's, read by starlark-rust (starlark-pyo3) as Codex reads them.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from toolkit.systems.codex.execpolicy import (
    Evaluation,
    ExecPolicyError,
    Policy,
    PolicyParser,
    PrefixRule,
    RuleMatch,
    parse_policy,
)

SOURCE = "codex-rs/execpolicy/tests/basic.rs"


def allow_all(_: Sequence[str]) -> str:
    return "allow"


def prompt_all(_: Sequence[str]) -> str:
    return "prompt"


def prefix(matched: list[str], decision: str, justification: str | None = None,
           resolved: str | None = None) -> dict[str, object]:
    body: dict[str, object] = {"matchedPrefix": matched, "decision": decision}
    if resolved is not None:
        body["resolvedProgram"] = resolved
    if justification is not None:
        body["justification"] = justification
    return {"prefixRuleMatch": body}


def heuristics(command: list[str], decision: str) -> dict[str, object]:
    return {"heuristicsRuleMatch": {"command": command, "decision": decision}}


def evaluation(decision: str, *matches: dict[str, object]) -> dict[str, object]:
    return {"matchedRules": list(matches), "decision": decision}


def snapshot(rules: list[PrefixRule]) -> list[tuple[str, tuple[tuple[str, ...], ...], str,
                                                    str | None]]:
    return [(r.first, r.rest, r.decision, r.justification) for r in rules]


@pytest.mark.xfail(strict=True, reason="blocking_append_allow_prefix_rule writes the TUI's "
                   "approvals into ~/.codex/rules/default.rules; toolkit only reads rules")
def test_append_allow_prefix_rule_dedupes_existing_rule() -> None:
    """basic.rs append_allow_prefix_rule_dedupes_existing_rule"""
    from toolkit.systems.codex import execpolicy

    assert hasattr(execpolicy, "blocking_append_allow_prefix_rule")


def test_network_rules_compile_into_domain_lists() -> None:
    """basic.rs network_rules_compile_into_domain_lists"""
    policy = parse_policy("network.rules", """
network_rule(host = "google.com", protocol = "http", decision = "allow")
network_rule(host = "api.github.com", protocol = "https", decision = "allow")
network_rule(host = "blocked.example.com", protocol = "https", decision = "deny")
network_rule(host = "prompt-only.example.com", protocol = "https", decision = "prompt")
    """)
    assert len(policy.network_rules) == 4
    assert policy.network_rules[1].protocol == "https"
    assert policy.compiled_network_domains() == (["google.com", "api.github.com"],
                                                 ["blocked.example.com"])


def test_network_rule_rejects_wildcard_hosts() -> None:
    """basic.rs network_rule_rejects_wildcard_hosts"""
    with pytest.raises(ExecPolicyError, match="wildcards are not allowed"):
        parse_policy("network.rules",
                     'network_rule(host="*", protocol="http", decision="allow")')


def test_basic_match() -> None:
    """basic.rs basic_match"""
    policy = parse_policy("test.rules", 'prefix_rule(\n    pattern = ["git", "status"],\n)\n')
    assert policy.check(["git", "status"], allow_all).to_json() == evaluation(
        "allow", prefix(["git", "status"], "allow"))


def test_justification_is_attached_to_forbidden_matches() -> None:
    """basic.rs justification_is_attached_to_forbidden_matches"""
    policy = parse_policy("test.rules", """
prefix_rule(
    pattern = ["rm"],
    decision = "forbidden",
    justification = "destructive command",
)
    """)
    got = policy.check(["rm", "-rf", "/some/important/folder"], allow_all)
    assert got.to_json() == evaluation("forbidden",
                                       prefix(["rm"], "forbidden", "destructive command"))


def test_justification_can_be_used_with_allow_decision() -> None:
    """basic.rs justification_can_be_used_with_allow_decision"""
    policy = parse_policy("test.rules", """
prefix_rule(
    pattern = ["ls"],
    decision = "allow",
    justification = "safe and commonly used",
)
    """)
    assert policy.check(["ls", "-l"], prompt_all).to_json() == evaluation(
        "allow", prefix(["ls"], "allow", "safe and commonly used"))


def test_justification_cannot_be_empty() -> None:
    """basic.rs justification_cannot_be_empty"""
    with pytest.raises(ExecPolicyError, match="invalid rule: justification cannot be empty"):
        parse_policy("test.rules", """
prefix_rule(
    pattern = ["ls"],
    decision = "prompt",
    justification = "   ",
)
    """)


def test_add_prefix_rule_extends_policy() -> None:
    """basic.rs add_prefix_rule_extends_policy"""
    policy = Policy()
    policy.add_prefix_rule(["ls", "-l"], "prompt")
    assert snapshot(policy.rules_by_program["ls"]) == [("ls", (("-l",),), "prompt", None)]
    got = policy.check(["ls", "-l", "/some/important/folder"], allow_all)
    assert got.to_json() == evaluation("prompt", prefix(["ls", "-l"], "prompt"))


def test_add_prefix_rule_rejects_empty_prefix() -> None:
    """basic.rs add_prefix_rule_rejects_empty_prefix"""
    with pytest.raises(ExecPolicyError, match="prefix cannot be empty"):
        Policy().add_prefix_rule([], "allow")


def test_parses_multiple_policy_files() -> None:
    """basic.rs parses_multiple_policy_files"""
    parser = PolicyParser()
    parser.parse("first.rules", 'prefix_rule(\n    pattern = ["git"],\n    decision = "prompt",\n)')
    parser.parse("second.rules",
                 'prefix_rule(\n    pattern = ["git", "commit"],\n    decision = "forbidden",\n)')
    policy = parser.build()
    assert snapshot(policy.rules_by_program["git"]) == [
        ("git", (), "prompt", None), ("git", (("commit",),), "forbidden", None)]
    assert policy.check(["git", "status"], allow_all).to_json() == evaluation(
        "prompt", prefix(["git"], "prompt"))
    assert policy.check(["git", "commit", "-m", "hi"], allow_all).to_json() == evaluation(
        "forbidden", prefix(["git"], "prompt"), prefix(["git", "commit"], "forbidden"))


def test_only_first_token_alias_expands_to_multiple_rules() -> None:
    """basic.rs only_first_token_alias_expands_to_multiple_rules"""
    policy = parse_policy("test.rules", 'prefix_rule(\n    pattern = [["bash", "sh"], '
                                        '["-c", "-l"]],\n)')
    assert snapshot(policy.rules_by_program["bash"]) == [("bash", (("-c", "-l"),), "allow",
                                                          None)]
    assert snapshot(policy.rules_by_program["sh"]) == [("sh", (("-c", "-l"),), "allow", None)]
    assert policy.check(["bash", "-c", "echo", "hi"], allow_all).to_json() == evaluation(
        "allow", prefix(["bash", "-c"], "allow"))
    assert policy.check(["sh", "-l", "echo", "hi"], allow_all).to_json() == evaluation(
        "allow", prefix(["sh", "-l"], "allow"))


def test_tail_aliases_are_not_cartesian_expanded() -> None:
    """basic.rs tail_aliases_are_not_cartesian_expanded"""
    policy = parse_policy("test.rules", 'prefix_rule(\n    pattern = ["npm", ["i", "install"], '
                                        '["--legacy-peer-deps", "--no-save"]],\n)')
    assert snapshot(policy.rules_by_program["npm"]) == [
        ("npm", (("i", "install"), ("--legacy-peer-deps", "--no-save")), "allow", None)]
    assert policy.check(["npm", "i", "--legacy-peer-deps"], allow_all).to_json() == evaluation(
        "allow", prefix(["npm", "i", "--legacy-peer-deps"], "allow"))
    got = policy.check(["npm", "install", "--no-save", "leftpad"], allow_all)
    assert got.to_json() == evaluation("allow", prefix(["npm", "install", "--no-save"], "allow"))


def test_match_and_not_match_examples_are_enforced() -> None:
    """basic.rs match_and_not_match_examples_are_enforced"""
    policy = parse_policy("test.rules", """
prefix_rule(
    pattern = ["git", "status"],
    match = [["git", "status"], "git status"],
    not_match = [
        ["git", "--config", "color.status=always", "status"],
        "git --config color.status=always status",
    ],
)
    """)
    assert policy.check(["git", "status"], allow_all).to_json() == evaluation(
        "allow", prefix(["git", "status"], "allow"))
    command = ["git", "--config", "color.status=always", "status"]
    assert policy.check(command, allow_all).to_json() == evaluation(
        "allow", heuristics(command, "allow"))


def test_strictest_decision_wins_across_matches() -> None:
    """basic.rs strictest_decision_wins_across_matches"""
    policy = parse_policy("test.rules", """
prefix_rule(
    pattern = ["git"],
    decision = "prompt",
)
prefix_rule(
    pattern = ["git", "commit"],
    decision = "forbidden",
)
    """)
    assert policy.check(["git", "commit", "-m", "hi"], allow_all).to_json() == evaluation(
        "forbidden", prefix(["git"], "prompt"), prefix(["git", "commit"], "forbidden"))


def test_strictest_decision_across_multiple_commands() -> None:
    """basic.rs strictest_decision_across_multiple_commands"""
    policy = parse_policy("test.rules", """
prefix_rule(pattern = ["git"], decision = "prompt")
prefix_rule(pattern = ["git", "commit"], decision = "forbidden")
    """)
    got = policy.check_multiple([["git", "status"], ["git", "commit", "-m", "hi"]], allow_all)
    assert got.to_json() == evaluation("forbidden", prefix(["git"], "prompt"),
                                       prefix(["git"], "prompt"),
                                       prefix(["git", "commit"], "forbidden"))


def test_heuristics_match_is_returned_when_no_policy_matches() -> None:
    """basic.rs heuristics_match_is_returned_when_no_policy_matches"""
    got = Policy().check(["python"], prompt_all)
    assert got == Evaluation("prompt", (RuleMatch("prompt", command=("python",)),))
    assert got.to_json() == evaluation("prompt", heuristics(["python"], "prompt"))


def test_parses_host_executable_paths() -> None:
    """basic.rs parses_host_executable_paths"""
    policy = parse_policy("test.rules", """
host_executable(
    name = "git",
    paths = [
        "/opt/homebrew/bin/git",
        "/usr/bin/git",
        "/usr/bin/git",
    ],
)
""")
    assert policy.host_executables["git"] == ("/opt/homebrew/bin/git", "/usr/bin/git")


def test_host_executable_rejects_non_absolute_path() -> None:
    """basic.rs host_executable_rejects_non_absolute_path"""
    with pytest.raises(ExecPolicyError, match="host_executable paths must be absolute"):
        parse_policy("test.rules", 'host_executable(name = "git", paths = ["git"])')


def test_host_executable_rejects_name_with_path_separator() -> None:
    """basic.rs host_executable_rejects_name_with_path_separator"""
    with pytest.raises(ExecPolicyError,
                       match="host_executable name must be a bare executable name"):
        parse_policy("test.rules",
                     'host_executable(name = "/usr/bin/git", paths = ["/usr/bin/git"])')


def test_host_executable_rejects_path_with_wrong_basename() -> None:
    """basic.rs host_executable_rejects_path_with_wrong_basename"""
    with pytest.raises(ExecPolicyError, match="must have basename `git`"):
        parse_policy("test.rules", 'host_executable(name = "git", paths = ["/usr/bin/rg"])')


def test_host_executable_last_definition_wins() -> None:
    """basic.rs host_executable_last_definition_wins"""
    parser = PolicyParser()
    parser.parse("shared.rules", 'host_executable(name = "git", paths = ["/usr/bin/git"])')
    parser.parse("user.rules", 'host_executable(name = "git", paths = ["/opt/homebrew/bin/git"])')
    assert parser.build().host_executables["git"] == ("/opt/homebrew/bin/git",)


def test_host_executable_resolution_uses_basename_rule_when_allowed() -> None:
    """basic.rs host_executable_resolution_uses_basename_rule_when_allowed"""
    policy = parse_policy("test.rules", """
prefix_rule(pattern = ["git", "status"], decision = "prompt")
host_executable(name = "git", paths = ["/usr/bin/git"])
""")
    got = policy.check(["/usr/bin/git", "status"], allow_all, resolve_host_executables=True)
    assert got.to_json() == evaluation("prompt", prefix(["git", "status"], "prompt",
                                                        resolved="/usr/bin/git"))


def test_host_executable_resolution_respects_explicit_empty_allowlist() -> None:
    """basic.rs host_executable_resolution_respects_explicit_empty_allowlist"""
    policy = parse_policy("test.rules", 'prefix_rule(pattern = ["git"], decision = "prompt")\n'
                                        'host_executable(name = "git", paths = [])\n')
    got = policy.check(["/usr/bin/git", "status"], allow_all, resolve_host_executables=True)
    assert got.to_json() == evaluation("allow", heuristics(["/usr/bin/git", "status"], "allow"))


def test_host_executable_resolution_ignores_path_not_in_allowlist() -> None:
    """basic.rs host_executable_resolution_ignores_path_not_in_allowlist"""
    policy = parse_policy("test.rules", 'prefix_rule(pattern = ["git"], decision = "prompt")\n'
                                        'host_executable(name = "git", paths = ["/usr/bin/git"])')
    command = ["/opt/homebrew/bin/git", "status"]
    got = policy.check(command, allow_all, resolve_host_executables=True)
    assert got.to_json() == evaluation("allow", heuristics(command, "allow"))


def test_host_executable_resolution_falls_back_without_mapping() -> None:
    """basic.rs host_executable_resolution_falls_back_without_mapping"""
    policy = parse_policy("test.rules", 'prefix_rule(pattern = ["git"], decision = "prompt")\n')
    got = policy.check(["/usr/bin/git", "status"], allow_all, resolve_host_executables=True)
    assert got.to_json() == evaluation("prompt", prefix(["git"], "prompt",
                                                        resolved="/usr/bin/git"))


def test_host_executable_resolution_does_not_override_exact_match() -> None:
    """basic.rs host_executable_resolution_does_not_override_exact_match"""
    policy = parse_policy("test.rules", """
prefix_rule(pattern = ["/usr/bin/git"], decision = "allow")
prefix_rule(pattern = ["git"], decision = "prompt")
host_executable(name = "git", paths = ["/usr/bin/git"])
""")
    got = policy.check(["/usr/bin/git", "status"], allow_all, resolve_host_executables=True)
    assert got.to_json() == evaluation("allow", prefix(["/usr/bin/git"], "allow"))


# -- load errors, located, in Codex's words (parser.rs, error.rs, exec_policy.rs) -----------

def test_a_contradicted_not_match_example_is_located() -> None:
    """parser.rs validate_pending_examples_from + error.rs ExampleDidMatch"""
    with pytest.raises(ExecPolicyError) as caught:
        parse_policy("a.rules", '\n\nprefix_rule(pattern=["git"], not_match=["git status"])\n')
    assert caught.value.line == 3
    assert caught.value.message.startswith("expected example to not match rule `PrefixRule { "
                                           'pattern: PrefixPattern { first: "git", rest: [] }')
    assert caught.value.display().endswith(": git status (problem is on or around line 3)")


def test_an_unmatched_match_example_is_located() -> None:
    """parser.rs validate_pending_examples_from + error.rs ExampleDidNotMatch"""
    with pytest.raises(ExecPolicyError) as caught:
        parse_policy("a.rules", 'prefix_rule(\n  pattern=["git", "push"],\n'
                                '  match=["git pull"],\n)\n')
    assert caught.value.line == 1
    assert caught.value.message.startswith("expected every example to match at least one "
                                           "rule. rules: [")
    assert caught.value.message.endswith('unmatched examples: ["git pull"]')


@pytest.mark.parametrize(("source", "message", "line"), [
    ('prefix_rule(pattern=["ls"], decision="maybe")', "invalid decision: maybe", 1),
    ('x = 1\nprefix_rule(pattern=[])', "invalid pattern element: pattern cannot be empty", 2),
    ("prefix_rule(pattern=[\n", "Parse error", 1),
    ('prefix_rule(pattern=["ls"], match=[""])', "invalid example: example cannot be an empty "
                                                "string", 1),
])
def test_load_errors_are_located(source: str, message: str, line: int) -> None:
    """error.rs messages; exec_policy.rs format_exec_policy_error_with_source"""
    with pytest.raises(ExecPolicyError) as caught:
        parse_policy("b.rules", source)
    assert message in caught.value.message and caught.value.line == line
    assert caught.value.display().startswith(f"b.rules:{line}: ")
