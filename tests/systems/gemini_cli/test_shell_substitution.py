"""Gemini CLI's ``packages/core/src/policy/shell-substitution.test.ts``, ported
(google-gemini/gemini-cli@5411f11): the real bash parser (toolkit's tree-sitter-bash
splitter), describe 'PolicyEngine Command Substitution Validation'."""

from __future__ import annotations

import pytest

from toolkit.systems.gemini_cli.policy import ALLOW, DENY, PolicyEngine, PolicyRule

SOURCE = "packages/core/src/policy/shell-substitution.test.ts"


def setup_engine(blocked: str) -> PolicyEngine:
    """setupEngine: default ALLOW, ``"command":"<blocked>"`` denied."""
    return PolicyEngine([PolicyRule("run_shell_command", DENY,
                                    args_pattern=f'"command":"{blocked}"')],
                        default_decision=ALLOW)


@pytest.mark.parametrize(("name", "blocked", "command"), [
    ("should block echo $(dangerous_cmd) when dangerous_cmd is explicitly blocked",
     "dangerous_cmd", "echo $(dangerous_cmd)"),
    ("should block backtick substitution `dangerous_cmd`", "dangerous_cmd",
     "echo `dangerous_cmd`"),
    ("should block commands inside subshells (dangerous_cmd)", "dangerous_cmd",
     "(dangerous_cmd)"),
    ("should handle nested substitutions deeply", "deep_danger", "echo $(ls $(deep_danger))"),
], ids=lambda v: v if isinstance(v, str) and v.startswith("should") else "")
def test_substitution(name: str, blocked: str, command: str) -> None:
    """shell-substitution.test.ts › PolicyEngine Command Substitution Validation › (name)"""
    result = setup_engine(blocked).check("run_shell_command", {"command": command},
                                         "test-server")
    assert result.decision == DENY, (SOURCE, name)
