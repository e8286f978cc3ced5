"""Gemini CLI's fast paths decide exactly as the plain port does (issue 21's speed target).

``PolicyEngine.check`` tries only the rules a call can match (:class:`policy._Scan`: an
index by tool names, server, mode, and by the first word a ``commandPrefix`` /
``commandRegex`` pattern needs), and a compound command's parse also answers for each
sub-command that parses to itself (``policy._CommandDetails``), so ``policy-engine.ts``'s
check of each part does not parse it again. The reference is the same engine with
``index_rules = False`` (every rule tried in priority order) and a ``parseCommandDetails``
that parses every string afresh. Both decide a generated corpus of calls (the bench's
figure-9 rules plus Gemini CLI's built-in policies, every mode, interactive or not) and
must give equal ``CheckResult`` values: decision, rule, note, parts.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from bench.runtimes import gemini_policy
from tests.support.command_corpus import commands
from toolkit.systems.gemini_cli import policy
from toolkit.systems.gemini_cli.config import GeminiConfig, load_config
from toolkit.systems.gemini_cli.policy import (
    PolicyEngine,
    build_args_patterns,
    command_word,
    js_regex,
    stable_stringify,
)

MODES = ("default", "autoEdit", "plan", "yolo")


class PlainShell:
    """``parseCommandDetails`` without the memo: every string parsed on its own."""

    @staticmethod
    def parse_command_details(command: str) -> tuple[tuple[policy.Detail, ...], bool]:
        details, error, _ = policy._parse_command_details(command)
        return details, error

    has_redirection = staticmethod(policy.has_redirection)
    strip_shell_wrapper = staticmethod(policy.strip_shell_wrapper)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> GeminiConfig:
    """Figure 9's Gemini CLI project: 250 user-tier rules and the built-in policies."""
    base = tmp_path_factory.mktemp("gemini-speed")
    root, home = base / "repo", base / "home"
    (root / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "policies").mkdir(parents=True)
    (root / ".gemini" / "settings.json").write_text("{}\n")
    (home / ".gemini" / "policies" / "bench.toml").write_text(gemini_policy()[0])
    return load_config(root, home=home, managed=None)


def _engines(config: GeminiConfig, mode: str, interactive: bool) -> tuple[PolicyEngine, ...]:
    def make(**extra: Any) -> PolicyEngine:
        return PolicyEngine(config.rules, non_interactive=not interactive, approval_mode=mode,
                            disable_always_allow=config.disable_always_allow,
                            trusted_folder=config.trusted, **extra)

    fast, plain = make(), make(shell_utils=PlainShell)
    plain.index_rules = False
    return fast, plain


def _calls(n: int) -> list[tuple[str, dict[str, Any] | None, str | None]]:
    """(tool, arguments, subagent): mostly shell commands, and the other tools' rules."""
    out: list[tuple[str, dict[str, Any] | None, str | None]] = []
    for i, command in enumerate(commands(n)):
        out.append(("run_shell_command", {"command": command}, None))
        if i % 7 == 0:
            out.append(("run_shell_command", {"command": command, "dir_path": "sub"}, None))
        if i % 11 == 0:
            out.append(("run_shell_command", {"command": command}, "helper"))
    out += [
        ("run_shell_command", {"x": {"command": "git status"}, "command": "ls"}, None),
        ("run_shell_command", {"command": ["git", "status"]}, None),
        ("run_shell_command", {"command": ""}, None),
        ("run_shell_command", None, None),
        ("read_file", {"file_path": "/p/secret3/key"}, None),
        ("read_file", {"file_path": "/p/src/a.py"}, None),
        ("write_file", {"file_path": "/p/conf2/x.yml", "content": "a"}, None),
        ("replace", {"file_path": "/p/gen4/x"}, None),
        ("web_fetch", {"prompt": "read https://docs3.example.com/x"}, None),
        ("mcp_srv2_query", {"q": 1}, None),
        ("mcp_other_query", {}, None),
        ("invoke_agent", {"agent_name": "helper"}, None),
        ("glob", {"pattern": "*"}, None),
        ("ShellTool", {"command": "git status && rm -rf /"}, None),
    ]
    return out


@pytest.mark.parametrize(("mode", "interactive"), list(itertools.product(MODES, (True, False))))
def test_fast_path_decides_as_the_plain_port(config: GeminiConfig, mode: str,
                                             interactive: bool) -> None:
    fast, plain = _engines(config, mode, interactive)
    calls = _calls(300)
    differ = []
    for tool, args, subagent in calls:
        got = fast.check(tool, args, None, None, subagent)
        want = plain.check(tool, args, None, None, subagent)
        if got != want:
            differ.append((tool, args, subagent, got, want))
    assert not differ, f"{len(differ)} of {len(calls)} calls differ; first: {differ[0]}"


def test_the_index_leaves_rules_out(config: GeminiConfig) -> None:
    """Not a vacuous comparison: a shell call tries a small share of the rules."""
    fast, _ = _engines(config, "default", True)
    tried = fast._candidates(("run_shell_command",), None, None,
                             stable_stringify({"command": "git status --short"}))
    assert len(tried) < len(fast.rules) / 5
    assert all(r.tool_name in ("run_shell_command", "*") or "*" in r.tool_name for r in tried)
    assert any(r.args_pattern and "git" in r.args_pattern for r in tried)


def test_sub_commands_parse_to_themselves() -> None:
    """Each sub-command the memo answers for without parsing parses so when parsed."""
    derived = 0
    for command in commands(3000, seed=7):
        _, _, itself = policy._parse_command_details(command)
        for detail in itself:
            derived += 1
            text = detail.text
            assert policy._parse_command_details(text)[:2] == (
                (detail,), bool(policy._PROMPT_TRANSFORM.search(text))), (command, text)
    assert derived > 3000


def test_the_memo_answers_for_parts() -> None:
    memo = policy._CommandDetails()
    whole = memo("git status --short && npm test | tee out.txt")
    assert [d.text for d in whole[0]] == ["git status --short", "npm test", "tee out.txt"]
    assert memo._memo["npm test"] == ((policy.Detail("npm", "npm test", 0),), False)
    assert "echo $(id)" not in memo._memo
    memo("echo $(id) && ls")
    assert "echo $(id)" not in memo._memo  # a substitution is a command of its own
    memo.cache_clear()
    assert not memo._memo


@pytest.mark.parametrize(("pattern", "word"), [
    (build_args_patterns(command_prefix="git status")[0], "git"),
    (build_args_patterns(command_prefix="tee")[0], "tee"),
    (build_args_patterns(command_prefix='a"b c')[0], "a"),
    (build_args_patterns(command_prefix="./gradlew build")[0], "./gradlew"),
    (build_args_patterns(command_regex="git status .*--force.*")[0], "git"),
    (build_args_patterns(command_regex="git.*")[0], "git"),
    (build_args_patterns(command_regex="gi?t status")[0], "g"),
    (build_args_patterns(command_regex="(git|rm) x")[0], None),
    (build_args_patterns(command_regex="git status|rm")[0], None),
    ('(?i)"command":"git', None),
    ('"command":"(?i:git)', None),
    (build_args_patterns(command_regex=".*")[0], None),
    ('"file_path":"[^"]*secret0/', None),
    ("^git", None),
    ('"command":"\\s*git', None),
])
def test_command_word(pattern: str, word: str | None) -> None:
    """The first word a pattern needs, read as Python's regex parser reads it."""
    assert command_word(js_regex(pattern)) == word


def test_rules_changed_in_place_are_indexed_again(config: GeminiConfig) -> None:
    """A rule put straight into ``engine.rules`` (not through ``add_rule``) is tried."""
    fast, _ = _engines(config, "default", True)
    args = {"command": "zzz run"}
    before = fast.check("run_shell_command", args)  # indexes the rules
    added = policy.PolicyRule("run_shell_command", policy.DENY, 9.0,
                              args_pattern=build_args_patterns(command_prefix="zzz")[0])
    fast.rules.insert(0, added)
    assert before.rule is not added
    assert fast.check("run_shell_command", args).rule is added
