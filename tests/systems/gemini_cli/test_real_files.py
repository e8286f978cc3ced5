"""Real ``.gemini/`` files from public repositories (excerpts in tests/fixtures/gemini-cli,
sources in its SOURCES.md), loaded with ``tk.load``: each loads, or its problem is located
and worded as Gemini CLI words it; never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).parents[2] / "fixtures" / "gemini-cli"
SH = "run_shell_command"


@pytest.fixture(autouse=True)
def _no_trust_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)


def _with_user_policy(tmp_path: Path, fixture: str) -> tk.Project:
    """The file as a user policy (~/.gemini/policies: workspace policies are disabled)."""
    (tmp_path / "proj" / ".gemini").mkdir(parents=True)
    policies = tmp_path / "home" / ".gemini" / "policies"
    policies.mkdir(parents=True)
    shutil.copy(FIXTURES / fixture, policies / fixture)
    return tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                   runtime="gemini-cli")


def test_openqa_reviewer_policy(tmp_path: Path) -> None:
    """BillAnastasiadis/openqa-reviewer: ``commandPrefix = ""`` builds no pattern
    (buildArgsPatterns tests ``if (commandPrefix)``), so it denies every shell command;
    unknown fields (name, description, pathPattern) are ignored as zod ignores them."""
    proj = _with_user_policy(tmp_path, "openqa-reviewer.policy.toml")
    engine = proj.engines["gemini-cli"]
    assert not [p for p in engine.problems if p.severity == "error"]
    assert len([r for r in engine.engine().get_rules() if r.tier == "user"]) == 6
    d = proj.check_call(SH, {"command": "python3 scripts/fetch_job_data.py 42"},
                        runtime="gemini-cli")
    assert d.effect is Effect.ALLOW and d.rule.line == 1
    d = proj.check_call(SH, {"command": "ls"}, runtime="gemini-cli")
    assert d.effect is Effect.DENY and d.rule.line == 7 and "priority 4.010" in d.message
    assert proj.check_call("read_file", {"file_path": "skills/x/SKILL.md"},
                           runtime="gemini-cli").effect is Effect.ALLOW
    # toolName ".*" is a literal name, not a regex: read_file of credentials/ is not caught
    d = proj.check_call("read_file", {"file_path": "a/credentials/key"}, runtime="gemini-cli")
    assert d.effect is Effect.DENY and d.rule.line == 26
    proj.close()


def test_jlaws_dotfiles_policy(tmp_path: Path) -> None:
    """jlaws/dotfiles: a commandRegex on read_file is Gemini's rule_validation error, located
    at its rule; the file's other rules still load ("Continue to next rule")."""
    proj = _with_user_policy(tmp_path, "jlaws-dotfiles.default.toml")
    engine = proj.engines["gemini-cli"]
    [problem] = engine.problems
    assert problem.file == "~/.gemini/policies/jlaws-dotfiles.default.toml"
    assert problem.line == 13
    assert "Invalid shell command syntax" in str(problem)
    assert 'can only be used with toolName = "run_shell_command"' in str(problem)
    # commandRegex "^sudo( |$)" becomes argsPattern '"command":"^sudo( |$)': the ``^`` after
    # '"command":"' can never match, so in Gemini CLI (and here) the deny never applies and
    # the built-in write.toml asks; the same holds for the file's "^git ..." allow
    d = proj.check_call(SH, {"command": "sudo rm x"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "write.toml" in d.message
    d = proj.check_call(SH, {"command": "git log -1"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "write.toml" in d.message
    rule = next(r for r in engine.engine().get_rules() if r.deny_message)
    assert rule.args_pattern == '"command":"^sudo( |$)'
    proj.close()


def test_natsu_dotfiles_settings(tmp_path: Path) -> None:
    """1natsu172/dotfiles: v2 settings with an ``httpUrl`` MCP server, in a trusted folder."""
    root = tmp_path / "proj"
    (root / ".gemini").mkdir(parents=True)
    shutil.copy(FIXTURES / "natsu-dotfiles.settings.json", root / ".gemini" / "settings.json")
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(root):
                                                                      "TRUST_FOLDER"}))
    proj = tk.load(root, home=home, managed=False, runtime="gemini-cli")
    assert "expo" in proj.definitions.servers
    assert not proj.engines["gemini-cli"].problems
    d = proj.check_call("mcp_expo_search", {"q": "x"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK  # not trusted: no mcpServers.expo.trust
    proj.close()
