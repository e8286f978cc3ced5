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


def test_rnovatorov_dotfiles_policy(tmp_path: Path) -> None:
    """rnovatorov/dotfiles: rules written at priority 950, the fraction Gemini CLI's "Always
    allow" saves at (user tier: 4.95); ``commandPrefix = ["go", "test"]`` is two prefixes, so
    a bare ``test`` is allowed too; ``security.disableAlwaysAllow`` turns every one off."""
    proj = _with_user_policy(tmp_path, "rnovatorov-dotfiles.policy.toml")
    engine = proj.engines["gemini-cli"]
    assert not engine.problems
    assert sorted({r.priority for r in engine.engine().get_rules() if r.tier == "user"}) == [4.95]
    for command in ("go test ./...", "test -f go.mod", "date", "pytest -q"):
        d = proj.check_call(SH, {"command": command}, runtime="gemini-cli")
        assert d.effect is Effect.ALLOW and "priority 4.950" in d.message, command
    assert proj.check_call(SH, {"command": "gofmt -w ."},
                           runtime="gemini-cli").effect is Effect.ASK  # "go" is a word prefix
    proj.close()
    (tmp_path / "home" / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"disableAlwaysAllow": True}}))
    proj = tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                   runtime="gemini-cli")
    d = proj.check_call(SH, {"command": "pytest -q"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "write.toml" in d.message
    proj.close()


def test_tobinjt_dotfiles_auto_saved(tmp_path: Path) -> None:
    """tobinjt/dotfiles: an auto-saved.toml as Gemini CLI writes it (allows at 100 and at
    950); an allowed ``cat`` that redirects asks, a dangerous ``rm -rf`` no rule names asks."""
    proj = _with_user_policy(tmp_path, "tobinjt-dotfiles.auto-saved.toml")
    engine = proj.engines["gemini-cli"]
    assert not engine.problems
    assert len([r for r in engine.engine().get_rules() if r.tier == "user"]) == 21
    for command in ("ls -la", "go test ./...", "mypy toolkit", "grep -rn x ."):
        assert proj.check_call(SH, {"command": command},
                               runtime="gemini-cli").effect is Effect.ALLOW, command
    d = proj.check_call(SH, {"command": "cat notes.txt > copy.txt"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "redirects" in d.message
    assert proj.check_call(SH, {"command": "rm -rf build"},
                           runtime="gemini-cli").effect is Effect.ASK
    assert proj.check_call("write_file", {"file_path": "a.py", "content": ""},
                           runtime="gemini-cli").effect is Effect.ALLOW
    proj.close()


def test_nozzlegear_dotfiles_auto_saved_modes(tmp_path: Path) -> None:
    """nozzlegear/dotfiles: approvals saved for ``modes = ["autoEdit", "yolo"]`` apply only in
    those modes; in the default mode the built-in write.toml asks."""
    proj = _with_user_policy(tmp_path, "nozzlegear-dotfiles.auto-saved.toml")
    assert not proj.engines["gemini-cli"].problems
    d = proj.check_call(SH, {"command": "npm test"}, runtime="gemini-cli")
    assert d.effect is Effect.ASK and "write.toml" in d.message
    d = proj.check_call(SH, {"command": "npm test"}, runtime="gemini-cli", mode="autoEdit")
    assert d.effect is Effect.ALLOW and d.rule.line == 29  # the npm rule
    proj.close()


def test_taskdeck_policy_without_rules(tmp_path: Path) -> None:
    """Chris0Jeky/Taskdeck: a ``[policies]`` table and comments only. Gemini's schema
    (z.object) ignores keys it does not know: the file loads, with no rule and no error."""
    proj = _with_user_policy(tmp_path, "taskdeck.default.toml")
    engine = proj.engines["gemini-cli"]
    assert not engine.problems
    assert [r for r in engine.engine().get_rules() if r.tier == "user"] == []
    proj.close()


def test_chasinglogic_dotfiles_linked_policy(tmp_path: Path) -> None:
    """chasinglogic/dotfiles: ``.gemini/policies/auto-saved.toml`` is a symbolic link into a
    dotfile manager's profile. Gemini CLI lists a policy folder with ``readdir`` /
    ``withFileTypes`` and reads only entries that are regular files, so a linked policy never
    applies (even when its target exists); toolkit skips it too and says so at the link."""
    (tmp_path / "proj" / ".gemini").mkdir(parents=True)
    policies = tmp_path / "home" / ".gemini" / "policies"
    policies.mkdir(parents=True)
    target = (FIXTURES / "chasinglogic-dotfiles.auto-saved.symlink.txt").read_text()
    (policies / "auto-saved.toml").symlink_to(target)  # dangling, as in a fresh checkout
    real = tmp_path / "profile.toml"
    real.write_text('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "make"\n'
                    'decision = "allow"\npriority = 100\n')
    (policies / "linked.toml").symlink_to(real)  # a link whose target exists
    proj = tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                   runtime="gemini-cli")
    engine = proj.engines["gemini-cli"]
    problems = sorted(engine.problems, key=lambda p: p.file)
    assert [p.file for p in problems] == ["~/.gemini/policies/auto-saved.toml",
                                          "~/.gemini/policies/linked.toml"]
    assert all(p.severity == "warning" and "Symbolic link not loaded" in p.message
               for p in problems)
    assert target in problems[0].message
    assert [r for r in engine.engine().get_rules() if r.tier == "user"] == []
    assert proj.check_call(SH, {"command": "make"}, runtime="gemini-cli").effect is Effect.ASK
    proj.close()
