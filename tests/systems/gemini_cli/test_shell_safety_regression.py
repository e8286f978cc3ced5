"""Gemini CLI's ``packages/core/src/policy/shell-safety-regression.test.ts``, ported
(google-gemini/gemini-cli@5411f11): the real bash parser (toolkit's tree-sitter-bash
splitter), describe 'PolicyEngine - Shell Safety Regression Suite'."""

from __future__ import annotations

import pytest

from toolkit.systems.gemini_cli.policy import (
    ALLOW,
    ASK_USER,
    PolicyEngine,
    PolicyRule,
    build_args_patterns,
)

SOURCE = "packages/core/src/policy/shell-safety-regression.test.ts"


def setup_engine(allowed: list[str]) -> PolicyEngine:
    """setupEngine: each command prefix allowed at priority 10, default ASK_USER."""
    return PolicyEngine([PolicyRule("run_shell_command", ALLOW, 10,
                                    args_pattern=build_args_patterns(None, cmd)[0])
                         for cmd in allowed], approval_mode="default",
                        default_decision=ASK_USER)


CASES = [
    ("should block unauthorized chained command with &&", ["echo"], "echo hi && ls", ASK_USER),
    ("should allow authorized chained command with &&", ["echo", "ls"], "echo hi && ls", ALLOW),
    ("should block unauthorized chained command with ||", ["false"], "false || ls", ASK_USER),
    ("should block unauthorized chained command with ;", ["echo"], "echo hi; ls", ASK_USER),
    ("should block unauthorized command in pipe |", ["echo"], 'echo hi | grep "hi"', ASK_USER),
    ("should allow authorized command in pipe |", ["echo", "grep"], 'echo hi | grep "hi"',
     ALLOW),
    ("should block unauthorized chained command with &", ["echo"], "echo hi & ls", ASK_USER),
    ("should allow authorized chained command with &", ["echo", "ls"], "echo hi & ls", ALLOW),
    ("should block unauthorized command in nested substitution", ["echo", "cat"],
     "echo $(cat $(ls))", ASK_USER),
    ("should allow authorized command in nested substitution", ["echo", "cat", "ls"],
     "echo $(cat $(ls))", ALLOW),
    ("should block command redirection if not explicitly allowed", ["echo"],
     "echo hi > /tmp/test", ASK_USER),
]


@pytest.mark.parametrize(("name", "allowed", "command", "expected"), CASES,
                         ids=[c[0] for c in CASES])
def test_regression(name: str, allowed: list[str], command: str, expected: str) -> None:
    """shell-safety-regression.test.ts › PolicyEngine - Shell Safety Regression Suite ›
    (name)"""
    result = setup_engine(allowed).check("run_shell_command", {"command": command})
    assert result.decision == expected, (SOURCE, name)
