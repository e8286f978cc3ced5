"""tk.convert never lets a target run a file command unasked on a path the source protects.

Claude Code checks the paths of the file commands it recognises against its Read and Edit
rules ("Read and Edit deny rules apply to ... file commands Claude Code recognizes in Bash,
such as cat, head, tail, and sed", code.claude.com/docs/en/permissions): under
``Read(./.env)`` in deny, ``cat .env`` is refused. Codex has no path rules and runs ``cat``
unasked (known safe, openai/codex ``is_safe_command.rs``); OpenCode and Gemini CLI run it
wherever the source's own ``Bash(cat:*)`` allow is written. The converted policy asks for each
such command instead (``prefix_rule(pattern=["cat"], decision="prompt")``), and the corpus holds
``cat .env``, ``head .env``, ``grep KEY .env``... so the check proves it.

The real case: tests/fixtures/claude-settings-real/isaiahdupree-acd.settings.json
(IsaiahDupree/acd@00f51f7, SOURCES.md), which allows ``Bash(cat:*)``, ``Bash(grep:*)`` and
``Bash(rg:*)`` and denies ``Read(./.env)``, ``Read(./.env.*)`` and ``Read(./**/*.pem)``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from tests.analysis.test_convert_unasked import assert_sound, claude_project
from toolkit.analysis.convert import TARGETS, Conversion, convert
from toolkit.analysis.convert.compare import corpus
from toolkit.analysis.convert.paths import source_path_commands
from toolkit.analysis.convert.rules import path_probes, read_rules, shell_path
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).parent.parent / "fixtures"
ACD = FIXTURES / "claude-settings-real" / "isaiahdupree-acd.settings.json"
ENV_DENY: dict[str, Any] = {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]}
#: the calls the brief names
READS = ("cat .env", "head .env", "grep KEY .env")


def converted(conv: Conversion, out: Path) -> tk.Project:
    """The converted project as a user installs it: the files written under ``out`` (a ``~/``
    file under ``out/home``), the folder trusted where the target asks for it (Codex, Gemini
    CLI), loaded with the target's own engine."""
    conv.write(out)
    home = out / "home"
    if conv.target == "codex":
        (home / ".codex").mkdir(parents=True, exist_ok=True)
        (home / ".codex" / "config.toml").write_text(
            f'[projects."{out}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    if conv.target == "gemini-cli":  # a Gemini CLI project: its folder, trusted
        (out / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        (home / ".gemini" / "trustedFolders.json").write_text(
            json.dumps({str(out): "TRUST_FOLDER"}), encoding="utf-8")
    return tk.load(out, home=home, managed=False, runtime=conv.target)


def shell(proj: tk.Project, runtime: str, command: str) -> Effect:
    """What ``runtime``'s engine does with ``command`` in ``proj`` (asked through the target
    writer's own tool mapping: Codex's ``shell``, OpenCode's ``bash``...)."""
    writer = {"codex": "codex", "opencode": "opencode", "gemini-cli": "gemini",
              "cursor": "cursor", "claude-code": "claude"}[runtime]
    module = __import__(f"toolkit.analysis.convert.{writer}", fromlist=["call"])
    mapped = module.call("Bash", {"command": command})
    assert mapped is not None and runtime in TARGETS
    return proj.check_call(mapped[0], mapped[1], runtime=runtime).effect


def _losses(conv: Any, rule: str) -> dict[str, str]:
    """action -> written, of ``rule``'s losses."""
    frame = conv.losses
    rows = frame[frame["rule"] == rule]
    return dict(zip(rows["action"], rows["written"], strict=True))


# -- the accessor -----------------------------------------------------------------------------

def test_claude_code_refuses_each_listed_file_command_on_a_denied_path(tmp_path: Path) -> None:
    """Each of Claude Code's path_commands() meets the path rule it says it does: a ``read``
    line is refused by a Read deny, an ``edit`` line by an Edit deny (and by a Read deny:
    "restricts" covers every path a command touches)."""
    listed = source_path_commands("claude-code", str(tmp_path))
    assert ("read", "cat {path}") in listed and ("edit", "touch {path}") in listed
    assert ("read", "grep KEY {path}") in listed and ("read", "sed -n 1p {path}") in listed
    read = claude_project(tmp_path / "r", {"deny": ["Read(./.env)"]})
    edit = claude_project(tmp_path / "e", {"deny": ["Edit(./.env)"]})
    for kind, line in listed:
        command = line.replace("{path}", ".env")
        decision = read.check_call("Bash", {"command": command})
        assert decision.effect is Effect.DENY and decision.rule.text == "Read(./.env)", command
        if kind == "edit":
            decision = edit.check_call("Bash", {"command": command})
            assert decision.effect is Effect.DENY and decision.rule.text == "Edit(./.env)", \
                command
    # a runtime that does not check shell commands against its path rules lists none
    assert source_path_commands("codex", str(tmp_path)) == ()


@pytest.mark.parametrize(("spec", "path"), [
    ("./.env", ".env"), ("./.env.*", ".env.x"), ("**/secrets/**", "a/secrets/a"),
    ("//tmp/**", "/tmp/a"), ("~/.ssh/*", "~/.ssh/x"), ("/build/", "build")])
def test_a_rules_path_as_a_shell_argument(spec: str, path: str) -> None:
    assert shell_path(spec) == path


def test_the_corpus_holds_file_commands_on_each_protected_path(tmp_path: Path) -> None:
    """``cat .env``, ``head .env``, ``grep KEY .env`` for a Read deny, each naming the rule it
    came from; a Read ask meets the reading lines only, an Edit deny the writing lines."""
    proj = claude_project(tmp_path, {"deny": ["Read(./.env)", "Edit(./dist/app.js)"],
                                     "ask": ["Read(./notes.md)"]})
    rules = read_rules(proj.engines["claude-code"].frame([]))
    calls = corpus(rules, (), source_path_commands("claude-code", str(tmp_path)))
    made = {c.args["command"]: c.origin.text for c in calls
            if c.variant == "a file command on the rule's path" and c.origin is not None}
    for command in (*READS, "touch .env", "sed -i s/a/b/ .env"):
        assert made[command] == "Read(./.env)"
    assert made["cat notes.md"] == "Read(./notes.md)" and "touch notes.md" not in made
    assert made["touch dist/app.js"] == "Edit(./dist/app.js)" and "cat dist/app.js" not in made
    probes = path_probes(rules, ())
    assert probes == []  # no file commands named: nothing to try


# -- Codex ------------------------------------------------------------------------------------

def test_a_read_deny_keeps_codex_from_reading_the_file_unasked(tmp_path: Path) -> None:
    """The brief's case: ``Read(./.env)`` in deny to Codex. In the converted project (written
    and trusted) ``cat .env``, ``head .env`` and ``grep KEY .env`` ask; ``npm test`` still runs
    unasked; every difference is listed and nothing allows more."""
    conv = convert(claude_project(tmp_path, ENV_DENY), to="codex")
    assert_sound(conv)
    target = converted(conv, tmp_path / "out")
    for command in READS:
        assert shell(target, "codex", command) is Effect.ASK, command
    assert shell(target, "codex", "npm test") is Effect.ALLOW
    # the check saw them: asked where the source refuses (weaker), listed
    check = conv.check.set_index("command")
    for command in READS:
        assert check.loc[command, "direction"] == "weaker" and check.loc[command, "listed"]
    # what it costs: cat README.md, run unasked by the source, now asks (stricter), listed
    assert check.loc["cat README.md", "direction"] == "stricter"
    assert check.loc["cat README.md", "listed"]


def test_the_codex_rule_is_a_prompt_justified_by_the_path_rule(tmp_path: Path) -> None:
    conv = convert(claude_project(tmp_path, ENV_DENY), to="codex")
    rules = conv.files[".codex/rules/converted.rules"]
    block = rules[rules.index('pattern = ["cat"]'):]
    block = block[:block.index("\n)")]
    assert 'decision = "prompt"' in block
    assert "Read(./.env) (.claude/settings.json:" in block and "no path rules" in block
    # ask, not forbidden: no file command is refused outright
    assert '"forbidden"' not in rules
    # the path rule's loss: weaker (asks instead of refused), naming what was written
    losses = _losses(conv, "Read(./.env)")
    assert "Bash(cat:*)" in losses["weaker"] and "Bash(grep:*)" in losses["weaker"]
    row = conv.losses[(conv.losses["rule"] == "Read(./.env)")
                      & (conv.losses["action"] == "weaker")].iloc[0]
    assert row["file"] == ".claude/settings.json" and row["line"] > 0
    assert any("cannot tie a file command to a path" in note for note in conv.notes)


def test_a_read_ask_is_listed_stricter_and_the_file_asks(tmp_path: Path) -> None:
    conv = convert(claude_project(tmp_path, {"ask": ["Read(./notes.md)"]}), to="codex")
    assert_sound(conv)
    target = converted(conv, tmp_path / "out")
    assert shell(target, "codex", "cat notes.md") is Effect.ASK
    assert "Bash(cat:*)" in _losses(conv, "Read(./notes.md)")["stricter"]


def test_a_command_the_source_refuses_outright_gets_no_prompt(tmp_path: Path) -> None:
    """The source already denies ``cat`` (``Bash(cat:*)``): the forbidden rule is written as
    it is, and no weaker prompt for ``cat`` is added."""
    conv = convert(claude_project(tmp_path, {"deny": ["Read(./.env)", "Bash(cat:*)"]}),
                   to="codex")
    assert_sound(conv)
    rules = conv.files[".codex/rules/converted.rules"]
    assert rules.count('pattern = ["cat"]') == 1
    assert shell(converted(conv, tmp_path / "out"), "codex", "cat .env") is Effect.DENY


def test_an_edit_deny_beside_an_allow_of_rm(tmp_path: Path) -> None:
    """``Bash(rm:*)`` allowed, ``Edit(./.env)`` denied: Claude Code refuses ``rm .env``; Codex
    would run the written allow, so ``rm`` asks, and the allow is listed stricter."""
    conv = convert(claude_project(tmp_path, {"allow": ["Bash(rm:*)"],
                                             "deny": ["Edit(./.env)"]}), to="codex")
    assert_sound(conv)
    target = converted(conv, tmp_path / "out")
    assert shell(target, "codex", "rm .env") is Effect.ASK
    assert shell(target, "codex", "rm build.log") is Effect.ASK
    assert "Bash(rm:*)" in _losses(conv, "Bash(rm:*)")["stricter"]


# -- the other targets ------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["opencode", "gemini-cli"])
def test_a_written_allow_of_cat_no_longer_reads_a_denied_file(tmp_path: Path, target: str
                                                               ) -> None:
    """OpenCode and Gemini CLI write the source's ``Bash(cat:*)`` allow: without a rule of
    their own ``cat .env`` would run unasked. ``cat`` asks; the allow is listed stricter."""
    conv = convert(claude_project(tmp_path, {"allow": ["Bash(cat:*)", "Bash(npm test:*)"],
                                             "deny": ["Read(./.env)"]}), to=target)
    assert_sound(conv)
    out = converted(conv, tmp_path / "out")
    assert shell(out, target, "cat .env") is Effect.ASK
    assert shell(out, target, "npm test") is Effect.ALLOW
    assert "Bash(cat:*)" in _losses(conv, "Bash(cat:*)")["stricter"]
    assert "Bash(cat:*)" in _losses(conv, "Read(./.env)")["weaker"]


@pytest.mark.parametrize("target", ["opencode", "gemini-cli", "cursor"])
def test_a_target_asking_for_the_file_command_needs_no_rule(tmp_path: Path, target: str) -> None:
    """With no allow of the command, these targets' own default asks for ``cat .env``: no
    rule is written, and the path rule's weaker loss says why it asks rather than refuses."""
    conv = convert(claude_project(tmp_path, ENV_DENY), to=target)
    assert_sound(conv)
    assert not any("cannot tie a file command" in note for note in conv.notes)
    check = conv.check.set_index("command")
    assert check.loc["cat .env", "direction"] == "weaker"
    assert "decided by the command's own rules" in check.loc["cat .env", "loss"]


def test_claude_code_to_claude_code_adds_no_rule(tmp_path: Path) -> None:
    conv = convert(claude_project(tmp_path, ENV_DENY), to="claude-code")
    assert conv.counts["same"] == conv.counts["compared"]
    assert json.loads(conv.files[".claude/settings.json"])["permissions"]["deny"] == [
        "Read(./.env)"]


# -- the real file ----------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["codex", "opencode", "gemini-cli", "cursor"])
def test_isaiahdupree_acd_never_reads_its_secrets_unasked(tmp_path: Path, target: str) -> None:
    root = tmp_path / "acd"
    (root / ".claude").mkdir(parents=True)
    shutil.copy(ACD, root / ".claude" / "settings.json")
    conv = convert(tk.load(root, home=False, managed=False), to=target)
    assert_sound(conv)
    out = converted(conv, tmp_path / "out")
    for command in ("cat .env", "grep KEY .env", "rg KEY .env.x", "head .env.x", "cat a/x.pem"):
        assert shell(out, target, command) is not Effect.ALLOW, command
    # Bash(npm:*) still runs unasked (Cursor writes no shell allow: it asks for every command)
    assert shell(out, target, "npm test") is (Effect.ASK if target == "cursor" else Effect.ALLOW)
