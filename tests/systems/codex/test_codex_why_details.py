"""``toolmatrix why --format json`` shows what ``codex execpolicy check`` shows (matched
rules with ``matchedPrefix`` and ``justification``, the decision) and Codex's requirement,
through the generic ``Decision.details``; ``--runtime-args`` (and ``%tk load
--runtime-args``) hand the runtimes their own command-line flags, ``--claude`` keeps working.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Decision, Effect, Reason
from toolkit.render.decisions import decision_dict

RULES = """\
prefix_rule(pattern=["git", "push"], decision="forbidden",
            justification="push through a pull request")
prefix_rule(pattern=["git"], decision="prompt")
prefix_rule(pattern=["npm", ["i", "install"]], decision="prompt")
"""


def _project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / ".codex" / "rules").mkdir(parents=True)
    (root / ".codex" / "rules" / "team.rules").write_text(RULES)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root.resolve()}"]\ntrust_level = "trusted"\n')
    return root, home


def _why(root: Path, home: Path, command: str, *extra: str) -> tuple[int, dict]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["why", str(root), "shell", command, "--runtime", "codex", "--home",
                   str(home), "--format", "json", *extra], out, err)
    return status, json.loads(out.getvalue())


def test_why_json_shows_execpolicy_check(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    status, data = _why(root, home, "git push origin main")
    assert status == 1
    assert data["details"]["execpolicy_check"] == {
        "matchedRules": [
            {"prefixRuleMatch": {"matchedPrefix": ["git", "push"], "decision": "forbidden",
                                 "justification": "push through a pull request"}},
            {"prefixRuleMatch": {"matchedPrefix": ["git"], "decision": "prompt"}}],
        "decision": "forbidden"}
    assert data["details"]["requirement"] == {"forbidden": {
        "reason": "`git push origin main` rejected: push through a pull request"}}
    assert data["details"]["commands"] == [["git", "push", "origin", "main"]]


def test_why_json_for_a_compound_command_and_heuristics(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    _, data = _why(root, home, "ls && npm i")
    assert data["details"]["commands"] == [["ls"], ["npm", "i"]]
    assert data["details"]["execpolicy_check"]["matchedRules"] == [
        {"prefixRuleMatch": {"matchedPrefix": ["npm", "i"], "decision": "prompt"}}]
    assert data["details"]["requirement"] == {"needsApproval": {
        "reason": "`bash -lc 'ls && npm i'` requires approval by policy",
        "proposedExecpolicyAmendment": None}}
    _, data = _why(root, home, "cargo build")
    assert data["details"]["execpolicy_check"] == {"matchedRules": []}
    assert data["details"]["requirement"] == {"skip": {
        "bypassSandbox": False, "proposedExecpolicyAmendment": ["cargo", "build"]}}


@pytest.mark.parametrize("option", ["--runtime-args", "--claude"])
def test_runtime_args_reach_codex(tmp_path: Path, option: str) -> None:
    """``-a never``: a rule's prompt becomes Forbidden (PROMPT_CONFLICT_REASON)"""
    root, home = _project(tmp_path)
    status, data = _why(root, home, "npm install", f"{option}=-a never -s workspace-write")
    assert status == 1 and data["effect"] == Effect.IMPLICIT_DENY.value
    assert data["mode"] == "never"
    assert data["details"]["requirement"] == {"forbidden": {
        "reason": "approval required by policy, but AskForApproval is set to Never"}}


def test_runtime_args_and_claude_flags_together(tmp_path: Path) -> None:
    """Claude Code reads its flags, Codex its own, from the same command line."""
    root, home = _project(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text('{"permissions": {"allow": []}}')
    out, err = io.StringIO(), io.StringIO()
    status = main(["why", str(root), "Bash", "make test", "--runtime", "claude-code",
                   "--home", str(home), "--format", "json",
                   "--claude=--allowedTools 'Bash(make *)'", "--runtime-args=-a never"],
                  out, err)
    assert status == 0, out.getvalue()
    status, data = _why(root, home, "npm i", "--claude=--allowedTools 'Bash(make *)'",
                        "--runtime-args=-a never")
    assert data["details"]["requirement"]["forbidden"]


def test_decision_dict_shows_any_engines_details() -> None:
    """Generic: an engine's ``details`` reach the JSON as given; none, no key."""
    d = Decision(agent="(main)", tool="run", effect=Effect.ALLOW, reason=Reason.MODE,
                 message="ok", question="call", details={"checker": {"matched": ["x"]}})
    assert decision_dict(d)["details"] == {"checker": {"matched": ["x"]}}
    assert "details" not in decision_dict(Decision(agent="a", tool="t", effect=Effect.ALLOW,
                                                   reason=Reason.MODE, message="",
                                                   question="call"))
    assert hash(d) == hash(Decision(agent="(main)", tool="run", effect=Effect.ALLOW,
                                    reason=Reason.MODE, message="ok", question="call"))


class _State:
    """The part of the ``%tk`` magics' state ``%tk load`` uses (no IPython shell needed)."""

    project: tk.Project | None = None
    session = None
    preset = None
    connect_timeout = 10.0
    autoconnect = False

    def close(self) -> None:
        self.project = None


def test_magic_load_runtime_args(tmp_path: Path) -> None:
    """``%tk load PATH --runtime-args '-a never'``"""
    from toolkit.notebook.cmd import load

    root, home = _project(tmp_path)
    state = _State()
    project = load.run(state, f"{root} --home {home} --runtime-args '-a never'",  # type: ignore[arg-type]
                       None)
    d = project.check_call("shell", {"command": ["npm", "i"]}, runtime="codex")
    assert d.effect is Effect.IMPLICIT_DENY and d.mode == "never"
    assert state.project is project
