"""Gemini CLI's ``packages/core/src/policy/utils.test.ts``, ported whole
(google-gemini/gemini-cli@5411f113cafae26161b4969b0237b8e1e024e2c2): escapeRegex,
isSafeRegExp and buildArgsPatterns. Each test's docstring names its ``describe`` and ``it``.
``new RegExp(p).test(s)`` is :func:`js_regex` (the JavaScript source read as Python's
``re``) and ``search``. The expected strings are upstream's JavaScript literals written as
Python literals.
"""

from __future__ import annotations

from toolkit.systems.gemini_cli.policy import (
    build_args_patterns,
    escape_regex,
    is_safe_regexp,
    js_regex,
)

SOURCE = "packages/core/src/policy/utils.test.ts"


# -- escapeRegex ---------------------------------------------------------------------------------

def test_escape_regex_escapes_special_characters() -> None:
    """policy/utils › escapeRegex › should escape special regex characters"""
    assert escape_regex('.-*+?^${}()|[]\\ "') == (
        '\\.\\-\\*\\+\\?\\^\\$\\{\\}\\(\\)\\|\\[\\]\\\\\\ \\"')


def test_escape_regex_leaves_plain_text() -> None:
    """policy/utils › escapeRegex › should return the same string if no special characters
    are present"""
    assert escape_regex("abcABC123") == "abcABC123"


# -- isSafeRegExp --------------------------------------------------------------------------------

def test_safe_simple_regexes() -> None:
    """policy/utils › isSafeRegExp › should return true for simple regexes"""
    assert all(is_safe_regexp(p) for p in ("abc", "^abc$", "a|b"))


def test_safe_quantifiers() -> None:
    """policy/utils › isSafeRegExp › should return true for safe quantifiers"""
    assert all(is_safe_regexp(p) for p in ("a+", "a*", "a?", "a{1,3}"))


def test_safe_groups() -> None:
    """policy/utils › isSafeRegExp › should return true for safe groups"""
    assert is_safe_regexp("(abc)*") and is_safe_regexp("(a|b)+")


def test_invalid_regexes_are_unsafe() -> None:
    """policy/utils › isSafeRegExp › should return false for invalid regexes"""
    assert not any(is_safe_regexp(p) for p in ("[", "([a-z)", "*"))


def test_long_regexes_are_unsafe() -> None:
    """policy/utils › isSafeRegExp › should return false for long regexes"""
    assert not is_safe_regexp("a" * 3000)


def test_nested_quantifiers_are_unsafe() -> None:
    """policy/utils › isSafeRegExp › should return false for nested quantifiers (ReDoS
    heuristic)"""
    assert not is_safe_regexp("(a+)+")
    assert is_safe_regexp("(a|b)*")
    assert not is_safe_regexp("(.*)*")
    assert not is_safe_regexp("([a-z]+)+")
    assert not is_safe_regexp("(.*)+")


# -- buildArgsPatterns ---------------------------------------------------------------------------

def test_args_pattern_alone() -> None:
    """policy/utils › buildArgsPatterns › should return argsPattern if provided and no
    commandPrefix/regex"""
    assert build_args_patterns("my-pattern", None, None) == ["my-pattern"]


def test_single_command_prefix() -> None:
    """policy/utils › buildArgsPatterns › should build pattern from a single commandPrefix"""
    assert build_args_patterns(None, "ls", None) == ['\\"command\\":\\"ls(?:[\\s"]|\\\\")']


def test_array_of_command_prefixes() -> None:
    """policy/utils › buildArgsPatterns › should build patterns from an array of
    commandPrefixes"""
    assert build_args_patterns(None, ["echo", "ls"], None) == [
        '\\"command\\":\\"echo(?:[\\s"]|\\\\")',
        '\\"command\\":\\"ls(?:[\\s"]|\\\\")',
    ]


def test_command_regex() -> None:
    """policy/utils › buildArgsPatterns › should build pattern from commandRegex"""
    assert build_args_patterns(None, None, "rm -rf .*") == ['"command":"rm -rf .*']


def test_command_prefix_wins_over_regex_and_args_pattern() -> None:
    """policy/utils › buildArgsPatterns › should prioritize commandPrefix over commandRegex
    and argsPattern"""
    assert build_args_patterns("raw", "prefix", "regex") == [
        '\\"command\\":\\"prefix(?:[\\s"]|\\\\")']


def test_command_regex_wins_over_args_pattern() -> None:
    """policy/utils › buildArgsPatterns › should prioritize commandRegex over argsPattern if
    no commandPrefix"""
    assert build_args_patterns("raw", None, "regex") == ['"command":"regex']


def test_command_prefix_is_escaped() -> None:
    """policy/utils › buildArgsPatterns › should escape characters in commandPrefix"""
    assert build_args_patterns(None, "git checkout -b", None) == [
        '\\"command\\":\\"git\\ checkout\\ \\-b(?:[\\s"]|\\\\")']


def test_quotes_in_command_prefix_are_escaped() -> None:
    """policy/utils › buildArgsPatterns › should correctly escape quotes in commandPrefix"""
    assert build_args_patterns(None, 'git "fix"', None) == [
        '\\\"command\\\":\\\"git\\ \\\\\\\"fix\\\\\\\"(?:[\\s\"]|\\\\\")']


def test_no_inputs() -> None:
    """policy/utils › buildArgsPatterns › should handle undefined correctly when no inputs are
    provided"""
    assert build_args_patterns(None, None, None) == [None]


def test_prefix_followed_by_json_escaped_quote_matches() -> None:
    """policy/utils › buildArgsPatterns › should match prefixes followed by JSON escaped
    quotes"""
    [pattern] = build_args_patterns(None, "echo ", None)
    assert pattern is not None
    assert js_regex(pattern).search('{"command":"echo \\"foo\\""}')


def test_prefix_followed_by_raw_backslash_does_not_match() -> None:
    """policy/utils › buildArgsPatterns › should NOT match prefixes followed by raw
    backslashes (security check)"""
    [pattern] = build_args_patterns(None, "echo ", None)
    assert pattern is not None
    assert not js_regex(pattern).search('{"command":"echo\\\\foo"}')
    [git] = build_args_patterns(None, "git ", None)
    assert git is not None
    assert not js_regex(git).search('{"command":"git\\\\status"}')
