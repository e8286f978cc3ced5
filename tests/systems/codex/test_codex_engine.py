"""Codex as a runtime: ``tk.load`` on a folder with ``.codex/``, ``check_call`` and
``toolmatrix why`` (SPEC section 13), with cases from openai/codex
``codex-rs/core/src/exec_policy.rs`` (``render_decision_for_unmatched_command``,
``derive_forbidden_reason``, ``derive_prompt_reason``, ``prompt_is_rejected_by_policy``,
``commands_for_exec_policy``) and ``execpolicy/src/execpolicycheck.rs``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Effect, Reason
from toolkit.errors import DefinitionError

RULES = """\
# team rules
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(
    pattern=["git", "push"],
    decision="forbidden",
    justification="push through a pull request",
    match=["git push origin main"],
    not_match=["git status"],
)
prefix_rule(pattern=["npm", ["i", "install"]], decision="prompt")
prefix_rule(pattern=["git"], decision="prompt")
"""


def _project(tmp_path: Path, *, trusted: bool | None = True, config: str = "",
             rules: str = RULES) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / ".codex" / "rules").mkdir(parents=True)
    (root / ".codex" / "rules" / "team.rules").write_text(rules)
    if config:
        (root / ".codex" / "config.toml").write_text(config)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    if trusted is not None:
        level = "trusted" if trusted else "untrusted"
        (home / ".codex" / "config.toml").write_text(
            f'[projects."{root.resolve()}"]\ntrust_level = "{level}"\n')
    return root, home


def _check(proj: tk.Project, command: list[str], **kw: object) -> tk.Decision:
    return proj.check_call("shell", {"command": command}, runtime="codex", **kw)  # type: ignore[arg-type]


def test_the_layout_is_recognised(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    proj = tk.load(root, home=home, managed=False)
    assert "codex" in proj.runtimes
    assert proj.preset.name == "codex" and ".codex/" in proj.preset_reason
    assert {"shell", "apply_patch"} <= set(proj.tools)


def test_rules_decide_with_file_and_line(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    proj = tk.load(root, home=home, managed=False)
    status = _check(proj, ["git", "status"])
    # strictest wins: ["git"] prompts, ["git", "status"] allows -> prompt
    assert status.effect is Effect.ASK and status.reason is Reason.ASK_RULE
    assert status.rule.where == ".codex/rules/team.rules:11"
    push = _check(proj, ["git", "push", "origin", "main"])
    assert push.effect is Effect.DENY and push.rule.where == ".codex/rules/team.rules:3"
    assert push.message == "`git push origin main` rejected: push through a pull request"
    assert push.runtime == "codex" and push.rule.layer == "project"
    npm = _check(proj, ["npm", "install"])
    assert npm.effect is Effect.ASK and npm.message == "`npm install` requires approval by policy"


def test_forbidden_without_justification_names_the_prefix(tmp_path: Path) -> None:
    """exec_policy.rs derive_forbidden_reason"""
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["rm"], decision="forbidden")\n')
    d = _check(tk.load(root, home=home, managed=False), ["rm", "-r", "x"])
    assert d.message == "`rm -r x` rejected: policy forbids commands starting with `rm`"


def test_prompt_under_never_is_refused(tmp_path: Path) -> None:
    """exec_policy.rs prompt_is_rejected_by_policy: AskForApproval::Never"""
    root, home = _project(tmp_path, config='approval_policy = "never"\n')
    proj = tk.load(root, home=home, managed=False)
    d = _check(proj, ["npm", "i"])
    assert d.effect is Effect.IMPLICIT_DENY and d.rule.where == ".codex/rules/team.rules:10"
    assert d.message.endswith("approval required by policy, but AskForApproval is set to Never")
    assert d.mode == "never"
    # unmatched and not dangerous: never runs it in the sandbox
    assert _check(proj, ["cargo", "build"]).effect is Effect.ALLOW
    # dangerous under never: forbidden (no rule: implicit-deny)
    assert _check(proj, ["rm", "-rf", "build"]).effect is Effect.IMPLICIT_DENY


@pytest.mark.parametrize(("approval", "sandbox", "argv", "effect"), [
    ("untrusted", "workspace-write", ["ls"], Effect.ALLOW),  # known safe
    ("untrusted", "workspace-write", ["cargo", "build"], Effect.ASK),
    ("on-request", "workspace-write", ["cargo", "build"], Effect.ALLOW),  # sandboxed
    ("on-request", "workspace-write", ["rm", "-rf", "x"], Effect.ASK),  # dangerous
    ("on-request", "danger-full-access", ["cargo", "build"], Effect.ALLOW),
    ("never", "read-only", ["rm", "-f", "x"], Effect.IMPLICIT_DENY),
])
def test_unmatched_commands_follow_codex_heuristics(tmp_path: Path, approval: str, sandbox: str,
                                                    argv: list[str], effect: Effect) -> None:
    """exec_policy.rs render_decision_for_unmatched_command"""
    root, home = _project(tmp_path, rules="",
                          config=f'approval_policy = "{approval}"\nsandbox_mode = "{sandbox}"\n')
    assert _check(tk.load(root, home=home, managed=False), argv).effect is effect


def test_escalation_request_asks_in_a_restricted_sandbox(tmp_path: Path) -> None:
    """exec_policy.rs render_decision_for_unmatched_command: requests_sandbox_override"""
    root, home = _project(tmp_path, rules="")
    proj = tk.load(root, home=home, managed=False)
    d = proj.check_call("shell", {"command": ["cargo", "build"],
                                  "sandbox_permissions": "require_escalated"}, runtime="codex")
    assert d.effect is Effect.ASK


def test_bash_lc_chains_are_split_and_others_judged_whole(tmp_path: Path) -> None:
    """exec_policy.rs commands_for_exec_policy"""
    root, home = _project(tmp_path)
    proj = tk.load(root, home=home, managed=False)
    d = _check(proj, ["bash", "-lc", "npm i && git push origin main"])
    assert d.effect is Effect.DENY and [p.tool for p in d.parts] == ["npm i",
                                                                     "git push origin main"]
    assert [p.effect for p in d.parts] == [Effect.ASK, Effect.DENY]
    whole = _check(proj, ["bash", "-lc", "git push origin main > log"])
    assert whole.parts == () and whole.rule.pattern is None  # judged whole: no rule matches
    heredoc = _check(proj, ["bash", "-lc", "npm i <<'EOF'\nx\nEOF"])
    assert heredoc.effect is Effect.ASK and heredoc.rule.where.endswith(":10")


def test_untrusted_projects_rules_are_not_read(tmp_path: Path) -> None:
    root, home = _project(tmp_path, trusted=None)
    proj = tk.load(root, home=home, managed=False)
    d = _check(proj, ["git", "push", "origin", "main"])
    assert d.rule.pattern is None and any("not trusted" in w for w in d.warnings)
    marked = tk.load(_project(tmp_path / "b", trusted=False)[0],
                     home=tmp_path / "b" / "home", managed=False)
    assert any("marked untrusted" in w for w in _check(marked, ["ls"]).warnings)


def test_user_rules_are_read(tmp_path: Path) -> None:
    root, home = _project(tmp_path, trusted=None)
    (home / ".codex" / "rules").mkdir()
    (home / ".codex" / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["python3"], decision="allow")\n')
    d = _check(tk.load(root, home=home, managed=False), ["python3", "x.py"])
    assert d.effect is Effect.ALLOW and d.rule.where == "~/.codex/rules/default.rules:1"
    assert d.rule.layer == "user"


def test_a_contradicted_example_is_a_located_load_error(tmp_path: Path) -> None:
    bad = 'prefix_rule(pattern=["git"], decision="prompt")\n\nprefix_rule(\n' \
          '    pattern=["git", "push"],\n    not_match=["git push --dry-run"],\n)\n'
    root, home = _project(tmp_path, rules=bad)
    with pytest.raises(DefinitionError) as caught:
        tk.load(root, home=home, managed=False)
    text = str(caught.value.problems[0])
    assert text.startswith(".codex/rules/team.rules:3: expected example to not match rule")
    assert text.endswith("git push --dry-run (problem is on or around line 3)")


def test_a_syntax_error_is_located_never_a_traceback(tmp_path: Path) -> None:
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["git",\n')
    out, err = io.StringIO(), io.StringIO()
    status = main(["why", str(root), "shell", "git status", "--home", str(home)], out, err)
    assert status != 0 and "Traceback" not in err.getvalue()
    assert ".codex/rules/team.rules:" in err.getvalue() + out.getvalue()


def test_mcp_enabled_and_disabled_tools(tmp_path: Path) -> None:
    root, home = _project(tmp_path, config='[mcp_servers.gh]\ncommand = "gh-mcp"\n'
                                            'disabled_tools = ["delete_repo"]\n'
                                            '[mcp_servers.off]\ncommand = "x"\nenabled = false\n')
    proj = tk.load(root, home=home, managed=False)
    assert proj.check_call("mcp__gh__delete_repo", {}, runtime="codex").effect \
        is Effect.IMPLICIT_DENY
    assert proj.check_call("mcp__off__anything", {}, runtime="codex").effect \
        is Effect.IMPLICIT_DENY
    assert proj.check_call("mcp__gh__get_issue", {}, runtime="codex").effect is Effect.ALLOW


@pytest.mark.parametrize(("command", "status", "first"), [
    ("git push origin main", 1, "EXPLICIT-DENY"), ("npm i", 2, "ASK"),
    ("cargo build", 0, "ALLOW")])
def test_toolmatrix_why(tmp_path: Path, command: str, status: int, first: str) -> None:
    root, home = _project(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert main(["why", str(root), "shell", command, "--runtime", "codex", "--home", str(home)],
                out, err) == status
    assert out.getvalue().startswith(first)


def test_toolmatrix_why_json(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    main(["why", str(root), "shell", "git push origin main", "--runtime", "codex", "--home",
          str(home), "--format", "json"], out, err)
    data = json.loads(out.getvalue())
    assert data["effect"] == Effect.DENY.value
    assert data["rule"]["file"] == ".codex/rules/team.rules" and data["rule"]["line"] == 3
    assert "push through a pull request" in data["message"]


def test_execpolicy_check_output(tmp_path: Path) -> None:
    """execpolicycheck.rs: ``codex execpolicy check`` JSON (matchedRules, decision)"""
    root, home = _project(tmp_path)
    proj = tk.load(root, home=home, managed=False)
    engine = proj.engines["codex"]
    assert engine.execpolicy_check(["git", "push", "origin"]) == {  # type: ignore[attr-defined]
        "matchedRules": [
            {"prefixRuleMatch": {"matchedPrefix": ["git", "push"], "decision": "forbidden",
                                 "justification": "push through a pull request"}},
            {"prefixRuleMatch": {"matchedPrefix": ["git"], "decision": "prompt"}}],
        "decision": "forbidden"}
    assert engine.execpolicy_check(["ls"]) == {"matchedRules": []}  # type: ignore[attr-defined]
