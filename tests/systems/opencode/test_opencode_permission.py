"""OpenCode's permission tests, ported.

Source: anomalyco/opencode ``packages/opencode/test/permission/next.test.ts`` (stored version
@0a8a0ed8; the ``fromConfig`` / ``merge`` / ``evaluate`` / ``disabled`` cases are the same in
every 1.x version) and ``packages/opencode/test/util/wildcard.test.ts`` (the ``match`` cases;
``Wildcard.all`` / ``allStructured`` are not used by the permission engine and are not
ported). Each test names the upstream test it ports. ``Permission.merge`` is a plain
concatenation (``rulesets.flat()``), which ``evaluate`` takes as several rulesets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.systems.opencode import wildcard
from toolkit.systems.opencode.agents import PermissionRule, disabled, evaluate, from_config

HOME = Path("/home/tester")


def R(permission: str, pattern: str, action: str) -> PermissionRule:  # noqa: N802
    return PermissionRule(permission, pattern, action)


def rules(cfg: dict) -> list[tuple[str, str, str]]:
    return [(r.permission, r.pattern, r.action) for r in from_config(cfg, HOME)]


def action(permission: str, pattern: str, *rulesets: list[PermissionRule]) -> str:
    found = evaluate(permission, pattern, *rulesets)
    return "ask" if found is None else found.action


# -- fromConfig -------------------------------------------------------------------------------

def test_from_config_string_value_becomes_wildcard_rule() -> None:
    """next.test.ts: "fromConfig - string value becomes wildcard rule"."""
    assert rules({"bash": "allow"}) == [("bash", "*", "allow")]


def test_from_config_object_value_converts_to_rules_array() -> None:
    """next.test.ts: "fromConfig - object value converts to rules array"."""
    assert rules({"bash": {"*": "allow", "rm": "deny"}}) == [
        ("bash", "*", "allow"), ("bash", "rm", "deny")]


def test_from_config_mixed_string_and_object_values() -> None:
    """next.test.ts: "fromConfig - mixed string and object values"."""
    assert rules({"bash": {"*": "allow", "rm": "deny"}, "edit": "allow", "webfetch": "ask"}) == [
        ("bash", "*", "allow"), ("bash", "rm", "deny"), ("edit", "*", "allow"),
        ("webfetch", "*", "ask")]


def test_from_config_empty_object() -> None:
    """next.test.ts: "fromConfig - empty object"."""
    assert rules({}) == []


@pytest.mark.parametrize(("written", "expanded"), [
    ("~/projects/*", f"{HOME}/projects/*"),      # "fromConfig - expands tilde to home directory"
    ("$HOME/projects/*", f"{HOME}/projects/*"),  # "fromConfig - expands $HOME to home directory"
    ("$HOME", str(HOME)),                        # "... expands $HOME without trailing slash"
    ("/some/~/path", "/some/~/path"),            # "... does not expand tilde in middle of path"
    ("~", str(HOME)),                            # "... expands exact tilde to home directory"
])
def test_from_config_expands_home(written: str, expanded: str) -> None:
    """next.test.ts: the five "fromConfig - expands ..." / "does not expand ..." tests."""
    assert rules({"external_directory": {written: "allow"}}) == [
        ("external_directory", expanded, "allow")]


def test_from_config_preserves_top_level_config_key_order() -> None:
    """next.test.ts: "fromConfig - preserves top-level config key order"."""
    wildcard_first = from_config({"*": "deny", "bash": "allow"}, HOME)
    specific_first = from_config({"bash": "allow", "*": "deny"}, HOME)
    assert [r.permission for r in wildcard_first] == ["*", "bash"]
    assert [r.permission for r in specific_first] == ["bash", "*"]
    assert action("bash", "ls", wildcard_first) == "allow"
    assert action("bash", "ls", specific_first) == "deny"


def test_from_config_wildcard_acts_as_fallback_when_it_appears_before_specifics() -> None:
    """next.test.ts: "fromConfig - wildcard acts as fallback when it appears before specifics"."""
    ruleset = from_config({"*": "ask", "bash": "allow"}, HOME)
    assert action("edit", "foo.ts", ruleset) == "ask"
    assert action("bash", "ls", ruleset) == "allow"


def test_from_config_top_level_ordering_is_not_sorted_by_wildcard_specificity() -> None:
    """next.test.ts: "fromConfig - top-level ordering is not sorted by wildcard specificity"."""
    ruleset = from_config({"bash": "allow", "*": "ask", "edit": "deny", "mcp_*": "allow"}, HOME)
    assert [r.permission for r in ruleset] == ["bash", "*", "edit", "mcp_*"]


def test_from_config_sub_pattern_insertion_order_inside_a_tool_key_is_preserved() -> None:
    """next.test.ts: "fromConfig - sub-pattern insertion order inside a tool key is preserved"."""
    ruleset = from_config({"bash": {"*": "deny", "git *": "allow"}}, HOME)
    assert [r.pattern for r in ruleset] == ["*", "git *"]
    assert action("bash", "rm foo", ruleset) == "deny"
    assert action("bash", "git status", ruleset) == "allow"


def test_from_config_documented_fallback_first_example() -> None:
    """next.test.ts: "fromConfig - documented fallback-first example"."""
    ruleset = from_config({"*": "ask", "bash": "allow", "edit": "deny"}, HOME)
    assert action("bash", "ls", ruleset) == "allow"
    assert action("edit", "foo.ts", ruleset) == "deny"
    assert action("read", "foo.ts", ruleset) == "ask"


@pytest.mark.parametrize("written", ["~/projects/*", "$HOME/projects/*"])
def test_evaluate_matches_expanded_home_pattern(written: str) -> None:
    """next.test.ts: "evaluate - matches expanded tilde pattern", "... $HOME pattern"."""
    ruleset = from_config({"external_directory": {written: "allow"}}, HOME)
    assert action("external_directory", f"{HOME}/projects/file.txt", ruleset) == "allow"


def test_javascript_key_order_puts_integer_keys_first() -> None:
    """Not upstream: JavaScript objects list array-index keys first (Object.entries), so a
    pattern "1" is evaluated before "*" whatever its place in the file."""
    assert [r.pattern for r in from_config({"bash": {"*": "allow", "1": "deny"}}, HOME)] == [
        "1", "*"]


# -- merge (concatenation) and evaluate ---------------------------------------------------------

MERGE_CASES = [
    # "merge - config permission overrides default ask"
    ([[R("*", "*", "ask")], [R("bash", "*", "allow")]], [("bash", "ls", "allow"),
                                                          ("edit", "foo.ts", "ask")]),
    # "merge - config ask overrides default allow"
    ([[R("bash", "*", "allow")], [R("bash", "*", "ask")]], [("bash", "ls", "ask")]),
    # "evaluate - merges multiple rulesets"
    ([[R("bash", "*", "allow")], [R("bash", "rm", "deny")]], [("bash", "rm", "deny")]),
]


@pytest.mark.parametrize(("rulesets", "checks"), MERGE_CASES)
def test_merge_then_evaluate(rulesets: list[list[PermissionRule]],
                             checks: list[tuple[str, str, str]]) -> None:
    """next.test.ts: "merge - config permission overrides default ask", "merge - config ask
    overrides default allow", "evaluate - merges multiple rulesets"."""
    for permission, pattern, want in checks:
        assert action(permission, pattern, *rulesets) == want


EVALUATE_CASES = [
    ("exact pattern match", "bash", "rm", [R("bash", "rm", "deny")], "deny"),
    ("wildcard pattern match", "bash", "rm", [R("bash", "*", "allow")], "allow"),
    ("last matching rule wins", "bash", "rm",
     [R("bash", "*", "allow"), R("bash", "rm", "deny")], "deny"),
    ("last matching rule wins (wildcard after specific)", "bash", "rm",
     [R("bash", "rm", "deny"), R("bash", "*", "allow")], "allow"),
    ("glob pattern match", "edit", "src/foo.ts", [R("edit", "src/*", "allow")], "allow"),
    ("last matching glob wins", "edit", "src/components/Button.tsx",
     [R("edit", "src/*", "deny"), R("edit", "src/components/*", "allow")], "allow"),
    ("order matters for specificity", "edit", "src/components/Button.tsx",
     [R("edit", "src/components/*", "allow"), R("edit", "src/*", "deny")], "deny"),
    ("unknown permission returns ask", "unknown_tool", "anything",
     [R("bash", "*", "allow")], "ask"),
    ("empty ruleset returns ask", "bash", "rm", [], "ask"),
    ("no matching pattern returns ask", "edit", "etc/passwd", [R("edit", "src/*", "allow")],
     "ask"),
    ("multiple matching patterns, last wins", "edit", "src/secret.ts",
     [R("edit", "*", "ask"), R("edit", "src/*", "allow"), R("edit", "src/secret.ts", "deny")],
     "deny"),
    ("non-matching patterns are skipped", "edit", "src/foo.ts",
     [R("edit", "*", "ask"), R("edit", "test/*", "deny"), R("edit", "src/*", "allow")], "allow"),
    ("exact match at end wins over earlier wildcard", "bash", "/bin/rm",
     [R("bash", "*", "allow"), R("bash", "/bin/rm", "deny")], "deny"),
    ("wildcard at end overrides earlier exact match", "bash", "/bin/rm",
     [R("bash", "/bin/rm", "deny"), R("bash", "*", "allow")], "allow"),
    ("wildcard permission matches any permission", "bash", "rm", [R("*", "*", "deny")], "deny"),
    ("wildcard permission with specific pattern", "bash", "rm", [R("*", "rm", "deny")], "deny"),
    ("glob permission pattern", "mcp_server_tool", "anything", [R("mcp_*", "*", "allow")],
     "allow"),
    ("specific permission and wildcard permission combined", "bash", "rm",
     [R("*", "*", "deny"), R("bash", "*", "allow")], "allow"),
    ("wildcard permission does not match when specific exists", "edit", "src/foo.ts",
     [R("*", "*", "deny"), R("edit", "src/*", "allow")], "allow"),
    ("multiple matching permission patterns combine rules", "mcp_dangerous", "anything",
     [R("*", "*", "ask"), R("mcp_*", "*", "allow"), R("mcp_dangerous", "*", "deny")], "deny"),
    ("wildcard permission fallback for unknown tool", "unknown_tool", "anything",
     [R("*", "*", "ask"), R("bash", "*", "allow")], "ask"),
    ("later wildcard permission can override earlier specific permission", "bash", "rm",
     [R("bash", "*", "allow"), R("*", "*", "deny")], "deny"),
]


@pytest.mark.parametrize(("name", "permission", "pattern", "ruleset", "want"), EVALUATE_CASES,
                         ids=[c[0] for c in EVALUATE_CASES])
def test_evaluate(name: str, permission: str, pattern: str, ruleset: list[PermissionRule],
                  want: str) -> None:
    """next.test.ts: the "evaluate - <name>" test of each case."""
    assert action(permission, pattern, ruleset) == want


# -- disabled ---------------------------------------------------------------------------------

DISABLED_CASES = [
    ("returns empty set when all tools allowed", ["bash", "edit", "read"],
     [R("*", "*", "allow")], set()),
    ("disables tool when denied", ["bash", "edit", "read"],
     [R("*", "*", "allow"), R("bash", "*", "deny")], {"bash"}),
    ("disables edit/write/apply_patch when edit denied", ["edit", "write", "apply_patch", "bash"],
     [R("*", "*", "allow"), R("edit", "*", "deny")], {"edit", "write", "apply_patch"}),
    ("does not disable when partially denied", ["bash"],
     [R("bash", "*", "allow"), R("bash", "rm *", "deny")], set()),
    ("does not disable when action is ask", ["bash", "edit"], [R("*", "*", "ask")], set()),
    ("does not disable when specific allow after wildcard deny", ["bash"],
     [R("bash", "*", "deny"), R("bash", "echo *", "allow")], set()),
    ("does not disable when wildcard allow after deny", ["bash"],
     [R("bash", "rm *", "deny"), R("bash", "*", "allow")], set()),
    ("disables multiple tools", ["bash", "edit", "webfetch"],
     [R("bash", "*", "deny"), R("edit", "*", "deny"), R("webfetch", "*", "deny")],
     {"bash", "edit", "webfetch"}),
    ("wildcard permission denies all tools", ["bash", "edit", "read"], [R("*", "*", "deny")],
     {"bash", "edit", "read"}),
    ("specific allow overrides wildcard deny", ["bash", "edit", "read"],
     [R("*", "*", "deny"), R("bash", "*", "allow")], {"edit", "read"}),
]


@pytest.mark.parametrize(("name", "tools", "ruleset", "want"), DISABLED_CASES,
                         ids=[c[0] for c in DISABLED_CASES])
def test_disabled(name: str, tools: list[str], ruleset: list[PermissionRule],
                  want: set[str]) -> None:
    """next.test.ts: the "disabled - <name>" test of each case."""
    assert set(disabled(tools, ruleset)) == want


# -- util/wildcard.test.ts ----------------------------------------------------------------------

def test_match_handles_glob_tokens() -> None:
    """wildcard.test.ts: "match handles glob tokens"."""
    assert wildcard.match("file1.txt", "file?.txt")
    assert not wildcard.match("file12.txt", "file?.txt")
    assert wildcard.match("foo+bar", "foo+bar")


def test_match_with_trailing_space_wildcard_matches_command_with_or_without_args() -> None:
    """wildcard.test.ts: "match with trailing space+wildcard matches command with or without
    args"."""
    for text in ("ls", "ls -la", "ls foo bar"):
        assert wildcard.match(text, "ls *")
    assert wildcard.match("ls", "ls*") and wildcard.match("lstmeval", "ls*")
    assert not wildcard.match("lstmeval", "ls *")
    for text in ("git status", "git", "git commit -m foo"):
        assert wildcard.match(text, "git *")


def test_match_normalizes_slashes_for_cross_platform_globbing() -> None:
    """wildcard.test.ts: "match normalizes slashes for cross-platform globbing"."""
    assert wildcard.match("C:\\Windows\\System32\\*", "C:/Windows/System32/*")
    assert wildcard.match("C:/Windows/System32/drivers", "C:\\Windows\\System32\\*")


def test_match_handles_case_insensitivity_on_windows() -> None:
    """wildcard.test.ts: "match handles case-insensitivity on Windows" (its non-Windows
    branch: POSIX paths are case-sensitive)."""
    assert not wildcard.match("/users/test/file", "/Users/test/*")


def test_star_crosses_path_separators() -> None:
    """wildcard.test.ts (a version with the "test-discovery audit" cases): "star matches across
    directory boundaries unlike shell glob", and the literal-character cases."""
    assert wildcard.match("src/deep/nested/file.ts", "src/*")
    assert wildcard.match("src/a/b/c/d.ts", "src/*/d.ts")
    assert wildcard.match("file.txt", "file.txt") and not wildcard.match("filextxt", "file.txt")
    assert wildcard.match("(a|b)", "(a|b)") and not wildcard.match("a", "(a|b)")
    assert wildcard.match("[abc]", "[abc]") and not wildcard.match("a", "[abc]")
    assert wildcard.match("$HOME", "$HOME") and wildcard.match("^start", "^start")
    assert wildcard.match("", "") and not wildcard.match("something", "")


def test_star_matches_newlines_but_dollar_does_not_stop_before_one() -> None:
    """Not upstream: JavaScript's regex is dot-all and its '$' ends the text, so 'ls *' matches
    'ls a\\nb' and 'ls' does not match 'ls\\n' (Python's '$' would)."""
    assert wildcard.match("ls a\nb", "ls *")
    assert not wildcard.match("ls\n", "ls")
