"""Bypass probes (issue 24 item 4): ``proj.probe()``, the templates, the four issues it cites.

Every expectation below is what the runtime's documentation or source says; the probe only
asks ``check_call``. The four issues:

- anthropics/claude-code#18613 "Deny rules can be bypassed by flag reordering/insertion";
- anthropics/claude-code#92542 "Bash deny rules bypassed by any wrapper program outside
  ax()'s 8-item unwrap list";
- RooCodeInc/Roo-Code#11095 "Provide auto-execute for EXACT commands (prefix is inherently
  unsafe)": an allowed prefix ``git show`` also approved ``git show > out.txt`` (PR #11367);
- google-gemini/gemini-cli#22169 "'Allow for all future sessions' omits command directory
  from commandPrefix": the saved ``commandPrefix = "updateFiles"`` never matches
  ``/path/to/updateFiles``.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from tests.support.claude import build_project, permissions
from toolkit.analysis.probe import FINDING_COLUMNS, run_probe, variants
from toolkit.analysis.probe_templates import PAYLOADS, TEMPLATES
from toolkit.core.decision import Effect

BYPASS = "bypassPermissions"


def _kinds(frame: pd.DataFrame, rule: str) -> Counter[str]:
    return Counter(frame[frame["rule"] == rule]["kind"])


# -- the templates ------------------------------------------------------------------------------

def test_templates_are_named_data_covering_the_issue_list() -> None:
    names = [t.name for t in TEMPLATES]
    assert len(names) >= 200 and len(set(names)) == len(names)
    assert {t.purpose for t in TEMPLATES} == {"escape", "bypass"}
    forms = {t.form for t in TEMPLATES}
    # each respelling the issue names is a template
    for wrapper in ("env", "nice", "timeout", "xargs", "sudo", "command", "builtin"):
        assert any(f.startswith(f"{wrapper} ") or f" {wrapper} " in f for f in forms), wrapper
    for needle in ("bash -c '", "sh -lc '", "eval '", "/bin/{head}", "$(", "`", "<<EOF",
                   "> {target}", "'{head}'", "c={head}; $c", "{glob}",
                   "{permuted}", "{flags_last}"):
        assert any(needle in f for f in forms), needle
    for chain in ("; ", " && ", " || ", " | ", " |& ", " & ", "\n"):
        assert any(chain in f for f in forms if f.startswith("{cmd}")), repr(chain)


def test_variants_fill_each_template_from_the_seed() -> None:
    made = {t.name: c for t, c, _ in variants("rm -rf build", "bypass")}
    assert made["flags-permuted"] == "rm -fr build"
    assert made["flags-long"] == "rm --recursive --force build"
    assert made["flag-added"] == "rm -rfv build"
    assert made["bash-c"] == "bash -c 'rm -rf build'"
    assert made["path-bin"] == "/bin/rm -rf build"
    assert made["quote-empty-single"] == "r''m -rf build"
    assert made["var-head"] == "c=rm; $c -rf build"
    escapes = {t.name: (c, ctl) for t, c, ctl in variants("git show", "escape")}
    assert escapes["redirect-write-ssh-key"] == ("git show > ~/.ssh/id_rsa",
                                                 "echo x > ~/.ssh/id_rsa")
    assert escapes["chain-and"] == (f"git show && {PAYLOADS['exfiltrate']}",
                                    PAYLOADS["exfiltrate"])
    assert "python-c" not in escapes  # interpreter templates need their program
    # options go right after a bare program only: `git show -c core.pager=...` is no option
    assert "git-pager" not in escapes and "git-pager" in {
        t.name for t, _, _ in variants("git", "escape")}


# -- Claude Code --------------------------------------------------------------------------------

def test_claude_engine_lets_no_documented_smuggling_form_escape(tmp_path: Path) -> None:
    """permissions#compound-commands, #process-wrappers and the redirect rule: every part of a
    compound command must be allowed, substitutions are parts, a redirection target is an
    Edit of that path. So no chain, substitution, here-document or redirection variant of a
    prefix allow runs a payload unasked (in default and in acceptEdits mode)."""
    proj = build_project(tmp_path, project=permissions(
        allow=["Bash(git show:*)", "Bash(npm test *)", "Bash(echo *)", "Bash(ls:*)"]))
    smuggling = {"chain", "substitution", "heredoc", "redirect"}
    tried = [t for t, _, _ in variants("git show", "escape") if t.family in smuggling]
    assert len(tried) >= 60
    for mode in (None, "acceptEdits"):
        run = run_probe(proj, mode=mode)
        assert (run.rules["status"] == "probed").all()
        escaped = run.findings[run.findings["family"].isin(smuggling)]
        assert escaped.empty, escaped[["rule", "command", "deciding_rule"]].to_string()


def test_roo_code_11095_prefix_allow_and_a_redirect(tmp_path: Path) -> None:
    """Roo-Code#11095: ``git show > ~/.ssh/id_rsa`` under a prefix allow of ``git show``.
    Claude Code checks the redirect target as an Edit of ~/.ssh/id_rsa (outside the working
    directory: ask), so the probe finds no redirect escape; it does find what a prefix allow
    really lets through: ``git show --output=FILE`` writes FILE with no redirect at all."""
    proj = build_project(tmp_path, project=permissions(allow=["Bash(git show:*)"]))
    d = proj.check_call("Bash", {"command": "git show > ~/.ssh/id_rsa"})
    assert d.effect is Effect.ASK
    found = proj.probe()
    assert list(found.columns) == list(FINDING_COLUMNS)
    assert found[found["family"] == "redirect"].empty
    [row] = found.to_dict("records")
    assert (row["kind"], row["command"], row["template"]) == (
        "allow-escape", "git show --output=~/.bashrc", "git-output-file")
    assert row["deciding_rule"] == "Bash(git show:*)" and row["effect"] == Effect.ALLOW.value


def test_python_prefix_allow_runs_any_code(tmp_path: Path) -> None:
    """``Bash(python:*)``: the interpreter's ``-c`` runs any payload (a policy's weakness)."""
    proj = build_project(tmp_path, project=permissions(allow=["Bash(python:*)"]))
    found = proj.probe()
    assert set(found["template"]) == {"python-c", "python-c-subprocess"}
    assert set(found["deciding_rule"]) == {"Bash(python:*)"}
    for command in found["command"]:
        assert proj.check_call("Bash", {"command": command}).allowed


def test_claude_code_18613_flag_reordering(tmp_path: Path) -> None:
    """claude-code#18613: ``Bash(rm -rf /:*)`` in deny does not match ``rm -fr /``,
    ``rm -rfi /``, ``rm -rfv /`` or ``rm --recursive --force /`` (the pattern is literal
    text); Claude Code still never lets a rule or mode approve rm of ``/`` (it asks, even in
    bypassPermissions), so those forms ask. (bypassPermissions is passed as ``mode``: Claude
    Code ignores it in a project's settings file.) ``git push --force`` has no such net: in
    bypassPermissions the reordered ``git push x --force`` runs, and the probe says so."""
    proj = build_project(tmp_path, project=permissions(
        deny=["Bash(rm -rf /:*)", "Bash(git push --force:*)"]))
    assert proj.check_call("Bash", {"command": "rm -rf /"}, mode=BYPASS).effect is Effect.DENY
    for form in ("rm -fr /", "rm -rfi /", "rm -rfv /", "rm --recursive --force /"):
        d = proj.check_call("Bash", {"command": form}, mode=BYPASS)
        assert d.effect is Effect.ASK and d.rule.kind == "none", form
    run = run_probe(proj, mode=BYPASS)
    rm = run.findings[run.findings["rule"] == "Bash(rm -rf /:*)"]
    assert rm[rm["family"] == "flags"].empty
    push = run.findings[run.findings["rule"] == "Bash(git push --force:*)"]
    flags = dict(zip(push[push["family"] == "flags"]["template"],
                     push[push["family"] == "flags"]["command"], strict=True))
    assert flags["flags-last"] == "git push x --force"
    assert flags["git-C"] == "git -C . push --force x"
    assert set(push["reason"]) == {"mode"}


def test_claude_code_92542_wrappers_outside_the_unwrap_list(tmp_path: Path) -> None:
    """claude-code#92542: the stripped wrappers are timeout, time, nice, nohup, stdbuf,
    command, builtin and noglob (permissions#process-wrappers, plus a flag-less xargs); any
    other program that execs its arguments hides the command from ``Bash(git add -A*)``.
    (toolkit also sees through sudo, doas, env, watch, setsid, ionice and xargs with flags
    for deny rules: a stricter reading, so those are not reported.)"""
    proj = build_project(tmp_path, project=permissions(deny=["Bash(git add -A*)"]))
    found = proj.probe(mode=BYPASS)
    reported = set(found["template"])
    for unwrapped in ("timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin",
                      "noglob", "xargs-stdin", "env", "sudo", "watch"):
        assert unwrapped not in reported, unwrapped
    for wrapper in ("taskset", "unbuffer", "chrt", "strace", "flock", "caffeinate"):
        assert wrapper in reported, wrapper
    row = found[found["template"] == "taskset"].iloc[0]
    assert row["command"] == "taskset 1 git add -A x" and row["kind"] == "deny-bypass"
    # in the default mode the prompt catches every one of them: no finding
    assert run_probe(proj).findings.empty


def test_deny_bypass_through_an_allowed_wrapper(tmp_path: Path) -> None:
    """In the default mode a deny bypass needs something that runs it unasked: here
    ``Bash(env:*)`` runs ``env sh -c 'git push'`` (and any payload: an allow escape)."""
    proj = build_project(tmp_path, project=permissions(allow=["Bash(env:*)"],
                                                        deny=["Bash(git push *)"]))
    found = proj.probe()
    bypass = found[found["kind"] == "deny-bypass"]
    assert bypass["command"].tolist() == ["env sh -c 'git push'"]
    assert bypass["deciding_rule"].tolist() == ["Bash(env:*)"]
    assert _kinds(found, "Bash(env:*)") == Counter({"allow-escape": 1})


def test_a_shadowed_rule_is_skipped_with_what_decides_its_command(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(allow=["Bash(git push *)"],
                                                        deny=["Bash(git *)"]))
    run = run_probe(proj)
    row = run.rules.set_index("rule").loc["Bash(git push *)"]
    assert row["status"] == "skipped"
    assert "decided otherwise: explicit-deny by Bash(git *)" in row["note"]
    assert "1 skipped" in run.summary()


def test_rules_and_mode_arguments(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(allow=["Bash(python:*)"],
                                                        deny=["Bash(git push *)"]))
    only = run_probe(proj, rules=["Bash(git push *)"])
    assert only.rules["rule"].tolist() == ["Bash(git push *)"]
    with pytest.raises(ValueError, match=r"no shell-command rule 'Bash\(gti push \*\)'"):
        proj.probe(rules="Bash(gti push *)")
    with pytest.raises(ValueError, match="mode"):
        proj.probe(mode="yolo")


def test_every_finding_is_what_check_call_says(tmp_path: Path) -> None:
    """The findings are a view of check_call: each command, asked again, has the effect and
    the deciding rule the row names."""
    proj = build_project(tmp_path, project=permissions(
        allow=["Bash(npx:*)", "Bash(node:*)", "Bash(git log:*)"],
        deny=["Bash(git push --force:*)"]))
    found = proj.probe()
    assert set(found["kind"]) == {"allow-escape", "deny-bypass"}
    for row in found.to_dict("records"):
        d = proj.check_call("Bash", {"command": row["command"]})
        assert d.effect.value == row["effect"] == Effect.ALLOW.value
        texts = [r.text for r in (d.rule, *(p.rule for p in d.parts)) if r.kind != "none"]
        assert row["deciding_rule"] == "; ".join(dict.fromkeys(texts))


# -- Gemini CLI and Codex -----------------------------------------------------------------------

def _gemini(tmp_path: Path, policy: str) -> tk.Project:
    (tmp_path / "proj" / ".gemini").mkdir(parents=True)
    policies = tmp_path / "home" / ".gemini" / "policies"
    policies.mkdir(parents=True)
    (policies / "auto-saved.toml").write_text(policy, encoding="utf-8")
    return tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                   runtime="gemini-cli")


@pytest.fixture
def _no_trust_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)


@pytest.mark.usefixtures("_no_trust_env")
def test_gemini_cli_22169_a_saved_prefix_never_matches_the_absolute_path(tmp_path: Path
                                                                          ) -> None:
    """gemini-cli#22169: the auto-saved ``commandPrefix = "updateFiles"`` becomes the
    argsPattern ``"command":"updateFiles(?:[\\s"]|\\\\")``, which ``/path/to/updateFiles``
    never matches, so Gemini CLI asks again. The same literal prefix lets ``/bin/rm`` past a
    ``commandPrefix = "rm"`` deny: in yolo mode (everything else allowed) the probe reports
    it, in the default mode the prompt catches it."""
    proj = _gemini(tmp_path, '[[rule]]\ntoolName = "run_shell_command"\n'
                             'commandPrefix = "updateFiles"\ndecision = "allow"\npriority = 100\n'
                             '\n[[rule]]\ntoolName = "run_shell_command"\n'
                             'commandPrefix = "rm"\ndecision = "deny"\npriority = 200\n')
    sh = "run_shell_command"
    assert proj.check_call(sh, {"command": "updateFiles --all"}).effect is Effect.ALLOW
    assert proj.check_call(sh, {"command": "/path/to/updateFiles --all"}).effect is Effect.ASK
    assert run_probe(proj).findings.query("kind == 'deny-bypass'").empty
    yolo = run_probe(proj, mode="yolo").findings
    bypass = yolo[yolo["rule"] == 'commandPrefix="rm"']
    paths = bypass[bypass["family"] == "path"]
    assert "/bin/rm" in paths["command"].tolist()
    assert set(bypass["kind"]) == {"deny-bypass"}
    assert set(bypass["runtime"]) == {"gemini-cli"}


@pytest.mark.usefixtures("_no_trust_env")
def test_gemini_regex_that_never_matches_is_skipped(tmp_path: Path) -> None:
    """jlaws/dotfiles' ``commandRegex = "^sudo( |$)"`` (tests/fixtures/gemini-cli): the ``^``
    after ``"command":"`` never matches, so the rule never decides its own command."""
    (tmp_path / "proj" / ".gemini").mkdir(parents=True)
    policies = tmp_path / "home" / ".gemini" / "policies"
    policies.mkdir(parents=True)
    shutil.copy(Path(__file__).parents[1] / "fixtures" / "gemini-cli"
                / "jlaws-dotfiles.default.toml", policies / "jlaws.toml")
    proj = tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                   runtime="gemini-cli")
    rules = run_probe(proj).rules.set_index("rule")
    sudo = rules.loc['commandRegex="^sudo( |$)"']
    assert sudo["seed"] == "sudo" and sudo["status"] == "skipped"
    assert "decided otherwise: ask" in sudo["note"]


def test_codex_prefix_rules_through_its_engine(tmp_path: Path) -> None:
    """Codex (hubspot-cli's rules, tests/fixtures/codex/real): a ``prompt`` rule's command in
    another form that Codex's parser does not reduce to ``git push`` runs in the sandbox
    without asking under ``on-request``; each such finding is check_call's own answer."""
    root = tmp_path / "repo"
    (root / ".codex" / "rules").mkdir(parents=True)
    shutil.copy(Path(__file__).parents[1] / "fixtures" / "codex" / "real"
                / "hubspot-cli.default.rules", root / ".codex" / "rules" / "default.rules")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root.resolve()}"]\ntrust_level = "trusted"\n')
    proj = tk.load(root, home=home)
    run = run_probe(proj)
    assert set(run.rules["runtime"]) == {"codex"}
    push = run.findings[run.findings["rule"].str.contains('"commit", "push"')]
    assert not push.empty and set(push["kind"]) == {"deny-bypass"}
    for row in push.head(20).to_dict("records"):
        d = proj.check_call("shell", {"command": ["bash", "-lc", row["command"]]})
        assert d.effect is Effect.ALLOW and row["effect"] == Effect.ALLOW.value
    # the plain form is the rule's: it asks
    d = proj.check_call("shell", {"command": ["bash", "-lc", "git push"]})
    assert d.effect is Effect.ASK


def test_real_settings_files(tmp_path: Path) -> None:
    """Three public .claude/settings.json files (tests/fixtures/claude-settings-real): their
    prefix allows of interpreters and package runners let payloads through (findings to
    show, not bugs), and IsaiahDupree/acd's deny rules fall to its own ``python3`` / ``npx``
    / ``node`` allows."""
    real = Path(__file__).parents[1] / "fixtures" / "claude-settings-real"
    escapes: dict[str, set[str]] = {}
    bypasses: dict[str, set[str]] = {}
    for file in sorted(real.glob("*.json")):
        root = tmp_path / file.stem / ".claude"
        root.mkdir(parents=True)
        shutil.copy(file, root / "settings.json")
        found = tk.load(root.parent, home=False, managed=False).probe()
        escapes[file.stem] = set(found[found["kind"] == "allow-escape"]["rule"])
        bypasses[file.stem] = set(found[found["kind"] == "deny-bypass"]["rule"])
    assert {"Bash(python3:*)", "Bash(node:*)", "Bash(npx:*)", "Bash(npm:*)", "Bash(curl:*)",
            "Bash(git show:*)"} <= escapes["isaiahdupree-acd.settings"]
    assert bypasses["isaiahdupree-acd.settings"] == {"Bash(git push --force:*)",
                                                      "Bash(rm -rf /:*)"}
    assert {"Bash(uv:*)", "Bash(npm:*)", "Bash(curl:*)"} <= escapes[
        "isaqdn03-hooks-mastery.settings"]
    assert "Bash(osascript *)" in escapes["ishang97-dotfiles.settings"]
    assert json.loads((real / "isaiahdupree-acd.settings.json").read_text())["permissions"]
