"""Bypass probes of Cursor, OpenCode and VS Code projects (h16 review finding 2), through each
system's ``System.probe`` hook; and a runtime without the hook listed, never silence.

Every expectation is worked out from the runtime's rule semantics as its engine module
documents them (``toolkit/systems/<x>/engine.py``, ``tokens.py``, ``autoapprove.py``), and every
finding is checked again through ``check_call``: the probe itself decides nothing.
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from toolkit.analysis.probe import run_probe
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.systems import registry
from toolkit.systems.cursor.probe import seed as cursor_seed
from toolkit.systems.opencode.probe import seed as opencode_seed
from toolkit.systems.vscode.probe import regex_seed


def _write(root: Path, name: str, data: object) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return root


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def _checked(proj: tk.Project, tool: str, frame: pd.DataFrame, mode: str | None) -> None:
    """Each finding is what check_call says: the command runs unasked (allow)."""
    for row in frame.to_dict("records"):
        d = proj.check_call(tool, {"command": row["command"]}, mode=mode)
        assert d.effect is Effect.ALLOW and row["effect"] == Effect.ALLOW.value, row


# -- Cursor ---------------------------------------------------------------------------------

@pytest.fixture
def cursor(tmp_path: Path) -> Path:
    """Shell(git) and Shell(rm) denied in .cursor/cli.json (the shape of cursor.com's
    permissions example: ``{"permissions": {"allow": [...], "deny": [...]}}``)."""
    return _write(tmp_path / "repo", ".cursor/cli.json", {"permissions": {
        "allow": ["Shell(ls)"], "deny": ["Shell(git)", "Shell(rm)"]}})


def test_cursor_deny_rules_are_probed_and_hold_in_the_default_mode(cursor: Path) -> None:
    """cursor/engine.py: "Any terminal command suggested by Agents requires approval by
    default": in the default mode a variant no allow rule matches asks, so no deny-bypass;
    both deny rules are probed (not skipped, not 'no shell-command rule')."""
    proj = tk.load(cursor, home=False, managed=False)
    run = run_probe(proj)
    rules = run.rules.set_index("rule")
    assert [rules.loc[r, "status"] for r in ("Shell(git)", "Shell(rm)")] == ["probed"] * 2
    assert (rules.loc["Shell(git)", "seed"], rules.loc["Shell(rm)", "seed"]) == ("git", "rm")
    assert set(run.rules["runtime"]) == {"cursor"}
    assert run.findings[run.findings["kind"] == "deny-bypass"].empty


def test_cursor_force_mode_wrappers_and_paths_pass_the_first_token_rule(cursor: Path) -> None:
    """cursor/tokens.py: "The commandBase is the first token in the command line", and
    ``--force`` runs whatever no deny rule stops. So ``/bin/rm`` (first token ``/bin/rm``, not
    ``rm``) and a wrapper program in front (``env git``, ``nice rm``) run; the command as a
    part of a list (``true && rm``, ``(rm)``) is still a simple command the line runs, which
    the deny stops."""
    proj = tk.load(cursor, home=False, managed=False)
    found = run_probe(proj, mode="force").findings
    assert set(found["kind"]) == {"deny-bypass"}
    by_rule = {rule: set(group["template"]) for rule, group in found.groupby("rule")}
    for rule in ("Shell(git)", "Shell(rm)"):
        assert {"path-bin", "path-usr-bin", "env", "nice"} <= by_rule[rule], rule
        assert not {"after-true-and", "after-true-semicolon", "subshell", "group",
                    "substitution-inside"} & by_rule[rule], rule
    rm = found[found["rule"] == "Shell(rm)"].set_index("template")
    assert rm.loc["path-bin", "command"] == "/bin/rm"
    assert rm.loc["path-bin", "file"] == ".cursor/cli.json"
    _checked(proj, "Shell", found, "force")


def test_cursor_cli_reports_and_fails_on_the_bypass(cursor: Path) -> None:
    code, out, err = _cli("probe", str(cursor), "--no-home", "--mode", "force")
    assert code == 1
    assert "deny-bypass: deny Shell(rm) — '/bin/rm' runs unasked" in out
    assert "no shell-command rule" not in err
    code, out, err = _cli("probe", str(cursor), "--no-home")
    assert code == 0 and out.strip().splitlines()[-1].startswith("3 rule(s) probed")
    assert err == ""


def test_cursor_seeds_follow_the_token_grammar() -> None:
    """``Shell(base)``: the first token, anything after; ``base:args``: the args glob too."""
    assert cursor_seed("git") == ("git", True)
    assert cursor_seed("curl:*") == ("curl", True)
    assert cursor_seed("npm:install*") == ("npm install", True)
    assert cursor_seed("npm run:test") == ("npm run test", False)
    assert cursor_seed("python*") == ("python", True)
    assert cursor_seed("*") == (None, True)


# -- OpenCode -------------------------------------------------------------------------------

@pytest.fixture
def opencode(tmp_path: Path) -> Path:
    """A bash pattern map in opencode.json (opencode.ai/docs/permissions' own example shape:
    ``"bash": {"*": "ask", "git *": "allow", ...}``), and an agent with a rule of its own."""
    return _write(tmp_path / "repo", "opencode.json", {
        "$schema": "https://opencode.ai/config.json",
        "permission": {"bash": {"*": "ask", "git *": "allow", "git push *": "deny"}},
        "agent": {"review": {"mode": "primary", "permission": {
            "bash": {"git *": "ask", "git log *": "allow"}}}}})


def test_opencode_last_match_wins_lets_a_reordered_push_through(opencode: Path) -> None:
    """opencode/engine.py: each command node is one pattern and the *last* matching rule
    decides (``rules.findLast``). ``git -C . push`` is not matched by ``git push *`` but by
    ``git *``: allowed, a deny-bypass. ``env git push`` is matched by ``*`` only: it asks."""
    proj = tk.load(opencode, home=False, managed=False)
    run = run_probe(proj)
    deny = 'bash: "git push *" -> deny'
    bypass = run.findings[run.findings["rule"] == deny].set_index("template")
    assert bypass.loc["git-C", "command"] == "git -C . push"
    assert bypass.loc["git-C", "deciding_rule"] == "bash(git *)"
    assert "env" not in bypass.index and "nice" not in bypass.index
    assert set(bypass["kind"]) == {"deny-bypass"}
    _checked(proj, "bash", run.findings[run.findings["rule"] == deny], None)


def test_opencode_pattern_text_keeps_the_redirection(opencode: Path) -> None:
    """tool/bash.ts asks with the command's text *with its redirections*, and only cd, rm,
    cp, mv, mkdir, touch, chmod, chown and cat arguments ask ``external_directory``: so
    ``git > ~/.ssh/id_rsa`` matches ``git *`` and runs unasked, while the payload alone
    (``echo x > ~/.ssh/id_rsa``) asks: an allow-escape (the Roo-Code#11095 shape)."""
    proj = tk.load(opencode, home=False, managed=False)
    found = run_probe(proj).findings
    allow = found[found["rule"] == 'bash: "git *" -> allow']
    escapes = dict(zip(allow["template"], allow["command"], strict=True))
    assert escapes["redirect-write-ssh-key"] == "git > ~/.ssh/id_rsa"
    assert set(allow["kind"]) == {"allow-escape"}
    assert proj.check_call("bash", {"command": "echo x > ~/.ssh/id_rsa"}).effect is Effect.ASK
    # a chained payload is its own command node, matched by "*": it asks
    assert "chain-and" not in escapes
    _checked(proj, "bash", allow, None)


def test_opencode_rules_are_probed_as_the_agent_holding_them(opencode: Path) -> None:
    """The configuration's rules are in every agent's ruleset: probed once, as the default
    agent (build). ``git log *`` is in the review agent's ruleset only: probed as review,
    where it decides ``git log`` (under build, ``git *`` would)."""
    proj = tk.load(opencode, home=False, managed=False)
    rules = run_probe(proj).rules
    assert rules["rule"].tolist().count('bash: "git *" -> allow') == 1
    assert rules["rule"].tolist().count('bash: "*" -> ask') == 1
    star = rules.set_index("rule").loc['bash: "*" -> ask']
    assert star["status"] == "skipped" and "names none" in star["note"]
    log = rules.set_index("rule").loc['bash: "git log *" -> allow']
    assert (log["status"], log["seed"]) == ("probed", "git log")
    assert proj.check_call("bash", {"command": "git log"}, agent="review").effect \
        is Effect.ALLOW


def test_opencode_seeds_follow_the_wildcard() -> None:
    """wildcard.ts: ``*`` any text, ``?`` one character, a trailing ``" *"`` optional."""
    assert opencode_seed("git push *") == ("git push", True)
    assert opencode_seed("npm test") == ("npm test", False)
    assert opencode_seed("rm -rf*") == ("rm -rf", True)
    assert opencode_seed("*") == (None, True)


# -- VS Code --------------------------------------------------------------------------------

@pytest.fixture
def vscode(tmp_path: Path) -> Path:
    """chat.tools.terminal.autoApprove with prefixes and /regex/ keys (the shapes of VS Code's
    own default setting: ``"rm": false``, ``"/^git (status|log)\\b/": true``)."""
    return _write(tmp_path / "repo", ".vscode/settings.json", {
        "chat.tools.terminal.autoApprove": {"git": True, "git push": False,
                                            "/^terraform\\s+apply\\b/": False,
                                            "/^rm\\s/": False}})


def test_vscode_prefix_approval_lets_a_reordered_push_run(vscode: Path) -> None:
    """vscode/autoapprove.py: a key is a command prefix matched at the start at a word
    boundary; a false entry means "never auto-approved" (VS Code asks). ``git -C . push``
    does not start with ``git push`` but with ``git``: approved, so the command the false
    entry means to stop runs unasked (an ask rule's bypass)."""
    proj = tk.load(vscode, home=False, managed=False)
    run = run_probe(proj)
    rules = run.rules.set_index("rule")
    assert rules.loc["git push", "status"] == "probed"
    assert rules.loc["git push", "kind"] == "ask"
    push = run.findings[run.findings["rule"] == "git push"].set_index("template")
    assert push.loc["git-C", "command"] == "git -C . push"
    assert push.loc["git-C", "deciding_rule"] == "git"
    # a wrapper in front is a sub-command no entry approves: VS Code asks
    assert "nice" not in push.index
    _checked(proj, "run_in_terminal", run.findings, None)


def test_vscode_regex_keys_are_seeded_from_their_shortest_command(vscode: Path) -> None:
    """``/^terraform\\s+apply\\b/`` is seeded ``terraform apply`` (its shortest string, the
    word boundary dropped), which it decides (asks). Its ``^`` anchors it at the start of the
    sub-command, and VS Code's default value approves ``env`` and ``time``
    (terminalChatAgentToolsConfiguration.ts): so ``env terraform apply`` and ``time terraform
    apply`` run unasked, while a wrapper no entry approves (``nice``) asks. ``/^rm\\s/`` needs
    a character after ``rm`` (seed ``rm x``), but VS Code's own default ``"rm": false`` comes
    first in the merged setting and decides it: the user's regex is listed as skipped,
    naming the default."""
    proj = tk.load(vscode, home=False, managed=False)
    run = run_probe(proj)
    rules = run.rules.set_index("rule")
    terraform = rules.loc["/^terraform\\s+apply\\b/"]
    assert (terraform["status"], terraform["seed"]) == ("probed", "terraform apply")
    found = run.findings[run.findings["rule"] == "/^terraform\\s+apply\\b/"]
    by = dict(zip(found["template"], found["deciding_rule"], strict=True))
    assert (by["env"], by["time"]) == ("env", "time")
    assert set(found[found["template"].isin(["env", "time"])]["deciding_where"]) == {
        "<VS Code default>"}
    assert "nice" not in by and "timeout" not in by
    rm = rules.loc["/^rm\\s/"]
    assert (rm["status"], rm["seed"]) == ("skipped", "rm x")
    assert "decided otherwise: ask by rm" in rm["note"]
    assert proj.check_call("run_in_terminal", {"command": "rm x"}).rule.file == \
        "<VS Code default>"
    assert regex_seed("/^git\\s+push\\b/i") == "git\\s+push"
    assert regex_seed("npm test") is None


# -- a runtime whose system has no probe hook -------------------------------------------------

def test_a_runtime_without_the_hook_is_listed_never_silent(
        cursor: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Until a system says which commands its rules speak of, its rules are listed as
    skipped ("not probed") and the command line warns; it never reads "no shell-command
    rule" with exit 0 as if nothing were there."""
    monkeypatch.setattr(registry, "SYSTEMS", [
        dataclasses.replace(s, probe=None) if s.name == "cursor" else s
        for s in registry.SYSTEMS])
    proj = tk.load(cursor, home=False, managed=False)
    run = run_probe(proj)
    assert run.unprobed == ("cursor",)
    assert run.findings.empty
    assert sorted(run.rules["rule"]) == ["Shell(git)", "Shell(ls)", "Shell(rm)"]
    assert set(run.rules["status"]) == {"skipped"}
    assert all(n.startswith("runtime cursor is not probed") for n in run.rules["note"])
    code, out, err = _cli("probe", str(cursor), "--no-home", "--rules")
    assert code == 0 and "3 skipped" in out
    assert "cursor is not probed" in err and "3 rule(s) listed as skipped" in err
    assert "no shell-command rule" not in err


# -- Gemini CLI: the prefix read back from the argsPattern Gemini CLI built ---------------------

@pytest.fixture
def _no_trust_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)


@pytest.mark.usefixtures("_no_trust_env")
def test_gemini_prefix_lists_and_settings_prefixes_are_seeded(tmp_path: Path) -> None:
    """toml-loader.ts expands a ``commandPrefix`` list into one rule per prefix, and
    ``tools.allowed: ["run_shell_command(npm test)"]`` in settings.json is the prefix
    ``npm test`` (``buildArgsPatterns``): each is probed from its own prefix, read back from
    the argsPattern, whatever other keys (``modes``) the rule has. The settings band's
    narrowing deny (every other command) names no command."""
    (tmp_path / "proj" / ".gemini").mkdir(parents=True)
    home = tmp_path / "home" / ".gemini"
    (home / "policies").mkdir(parents=True)
    (home / "policies" / "a.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["git status", "git log"]\n'
        'decision = "allow"\npriority = 100\nmodes = ["default"]\n', encoding="utf-8")
    policy = tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                     runtime="gemini-cli")
    rules = run_probe(policy).rules
    listed = rules[rules["rule"] == 'commandPrefix=["git status","git log"], modes=["default"]']
    assert listed["seed"].tolist() == ["git status", "git log"]
    assert set(listed["status"]) == {"probed"} and set(listed["line"]) == {1}  # [[rule]]
    _write(home, "settings.json", {"tools": {"allowed": ["run_shell_command(npm test)"]}})
    policy = tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                     runtime="gemini-cli")
    rules = run_probe(policy).rules.set_index("rule")
    npm = rules.loc["tools.allowed: run_shell_command(npm test)"]
    assert (npm["seed"], npm["status"]) == ("npm test", "probed")
    narrowing = rules.loc["tools.allowed narrows run_shell_command (deny other commands)"]
    assert narrowing["status"] == "skipped" and "names no command" in narrowing["note"]
