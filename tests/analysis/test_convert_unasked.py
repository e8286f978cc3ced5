"""tk.convert never lets a target's own defaults run a command the source refuses or asks for.

Claude Code runs its read-only commands (``ls``, ``cat``, ``git status``...) unasked when no
rule matches (code.claude.com/docs/en/permissions#read-only-commands); Codex, under the
``untrusted`` approval policy a conversion writes, runs its known-safe commands
(openai/codex ``codex-rs/shell-command/src/command_safety/is_safe_command.rs``). Each engine
names them (``unasked_commands()``); where the source refuses or asks for one, the converted
policy holds a deny or ask rule for it, and the corpus holds such calls so the check proves it.

The real case: tests/fixtures/gemini-cli/openqa-reviewer.policy.toml (SOURCES.md names its
repo@commit), a catch-all ``commandPrefix = ""`` deny at priority 10 below one allow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from toolkit.analysis.convert import Conversion, convert
from toolkit.analysis.convert.compare import UNASKED_CALLS, corpus
from toolkit.core.decision import Effect, Reason
from toolkit.systems import registry

FIXTURES = Path(__file__).parent.parent / "fixtures"
OPENQA = FIXTURES / "gemini-cli" / "openqa-reviewer.policy.toml"
#: the calls the brief names: they must never run unasked where the source refuses them
READ_ONLY = ("ls", "cat x", "git status")


def gemini_project(tmp_path: Path, policy: Path | str) -> tk.Project:
    """A trusted Gemini CLI project whose user tier holds ``policy`` (a file or TOML text)."""
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "policies").mkdir(parents=True)
    text = policy.read_text(encoding="utf-8") if isinstance(policy, Path) else policy
    (home / ".gemini" / "policies" / "p0.toml").write_text(text, encoding="utf-8")
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(root): "TRUST_FOLDER"}), encoding="utf-8")
    return tk.load(root, home=home, managed=False, runtime="gemini-cli")


def claude_project(tmp_path: Path, permissions: dict[str, Any]) -> tk.Project:
    root = tmp_path / "claude"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps({"permissions": permissions}),
                                                   encoding="utf-8")
    return tk.load(root, home=False, managed=False)


def converted(conv: Conversion, out: Path) -> tk.Project:
    """The converted project as a user installs it: the files written under ``out``, the
    folder trusted where the target asks for it (Codex), loaded with the target's engine."""
    conv.write(out)
    home = out / "home"
    if conv.target == "codex":
        (home / ".codex").mkdir(parents=True, exist_ok=True)
        (home / ".codex" / "config.toml").write_text(
            f'[projects."{out}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    return tk.load(out, home=home, managed=False, runtime=conv.target)


def shell(proj: tk.Project, runtime: str, command: str) -> Effect:
    """What ``runtime``'s engine does with ``command`` in ``proj``."""
    if runtime == "codex":
        return proj.check_call("shell", {"command": ["bash", "-lc", command]},
                               runtime="codex").effect
    tool = "run_shell_command" if runtime == "gemini-cli" else "Bash"
    return proj.check_call(tool, {"command": command}, runtime=runtime).effect


def assert_sound(conv: Conversion) -> None:
    """Every difference is a listed loss, none allows more, the target read every rule."""
    check = conv.check
    assert conv.problems == [], conv.problems
    assert check["listed"].all(), check[~check["listed"]].to_string()
    assert conv.counts["allows_more"] == 0, check[check["direction"] == "allows more"]


# -- the accessors --------------------------------------------------------------------------------

def test_claude_code_names_its_read_only_commands(tmp_path: Path) -> None:
    """Each listed command runs unasked in Claude Code with no settings (read-only), in one of
    its forms: alone, on the folder or on a file."""
    listed = registry.empty_engine(str(tmp_path), "claude-code").unasked_commands()  # type: ignore[attr-defined]
    assert {("ls",), ("cat",), ("grep",), ("find",), ("git", "status")} <= set(listed)
    proj = claude_project(tmp_path, {})
    for words in listed:
        text = " ".join(words)
        decisions = [proj.check_call("Bash", {"command": text + tail}) for tail in
                     ("", " .", " README.md")]
        assert any(d.effect is Effect.ALLOW and d.reason is Reason.READ_ONLY
                   for d in decisions), text
    # a command it does not list asks
    assert proj.check_call("Bash", {"command": "whoami"}).effect is Effect.ASK


def test_codex_names_its_known_safe_commands(tmp_path: Path) -> None:
    """Each listed command runs unasked in Codex under ``approval_policy = "untrusted"`` with
    no rule (is_safe_command.rs: ``ls``, ``cat``, ``sed -n 1p``...); ``git status`` is not
    one (it asks)."""
    listed = registry.empty_engine(str(tmp_path), "codex").unasked_commands()  # type: ignore[attr-defined]
    assert {("ls",), ("cat",), ("whoami",), ("sed", "-n")} <= set(listed)
    assert ("git", "status") not in listed
    root = tmp_path / "codex"
    (root / ".codex").mkdir(parents=True)
    (root / ".codex" / "config.toml").write_text('approval_policy = "untrusted"\n',
                                                 encoding="utf-8")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{root}"]\ntrust_level = '
                                                 '"trusted"\n', encoding="utf-8")
    proj = tk.load(root, home=home, managed=False, runtime="codex")
    for words in listed:
        text = " ".join(words)
        forms = [text, text + " .", text + " README.md", text + " 1p README.md"]
        assert any(shell(proj, "codex", form) is Effect.ALLOW for form in forms), text
    assert shell(proj, "codex", "git status") is Effect.ASK


# -- the corpus -----------------------------------------------------------------------------------

def test_the_corpus_holds_the_commands_runtimes_run_unasked() -> None:
    calls = {c.args["command"] for c in corpus([], [("sed", "-n"), ("whoami",)])
             if c.tool == "Bash"}
    assert {"ls", "cat README.md", "grep x .", "git status", "pwd", "echo hi", "find .",
            "head README.md", "wc -l README.md"} <= calls
    assert set(UNASKED_CALLS) <= calls
    # each command the target lists, alone and with an argument
    assert {"sed -n", "sed -n README.md", "whoami", "whoami README.md"} <= calls


# -- the openqa-reviewer catch-all deny -----------------------------------------------------------

@pytest.mark.parametrize("target", ["claude-code", "codex"])
def test_a_catch_all_deny_keeps_read_only_commands_refused(tmp_path: Path, target: str) -> None:
    """openqa-reviewer: Gemini CLI refuses every command but ``python3
    scripts/fetch_job_data.py``. Before the fix the deny became the target's default (ask), and
    Claude Code ran ``ls``, ``cat x``, ``git status`` unasked (Codex ``ls``, ``cat x``): now
    a deny is written for each such command and the converted project refuses them."""
    proj = gemini_project(tmp_path, OPENQA)
    for command in READ_ONLY:
        assert shell(proj, "gemini-cli", command) is Effect.DENY
    conv = convert(proj, to=target)
    assert_sound(conv)
    out = converted(conv, tmp_path / "out")
    for command in READ_ONLY:
        assert shell(out, target, command) is not Effect.ALLOW, command
    for command in ("ls", "cat x", "ls -la && cat README.md"):
        assert shell(out, target, command) is Effect.DENY, command
    # the source's allow still runs; an unknown command asks (listed: weaker)
    assert shell(out, target, "python3 scripts/fetch_job_data.py --job 1") is Effect.ALLOW
    assert shell(out, target, "make build") is Effect.ASK
    # the corpus held them, and the check saw them refused (Codex asks for git status, which
    # is no known-safe command of its own: weaker, listed)
    check = conv.check.set_index("command")
    assert not {"ls", "cat README.md"} & set(check.index)
    if target == "codex":
        assert check.loc["git status", "direction"] == "weaker"
    else:
        assert "git status" not in check.index
    assert any("runs some commands unasked" in note for note in conv.notes)


def test_the_written_rules_are_the_targets_own(tmp_path: Path) -> None:
    """Claude Code: ``Bash(ls:*)`` in ``deny`` (no ``Bash`` deny, which would override the
    allow); Codex: ``prefix_rule(pattern=["ls"], decision="forbidden")``, justified by the
    Gemini CLI rule refusing it, which Codex checks on load (its match example)."""
    proj = gemini_project(tmp_path, OPENQA)
    claude = json.loads(convert(proj, to="claude-code").files[".claude/settings.json"])
    deny = claude["permissions"]["deny"]
    assert {"Bash(ls:*)", "Bash(cat:*)", "Bash(git status:*)"} <= set(deny)
    assert "Bash" not in deny
    assert "Bash(python3 scripts/fetch_job_data.py:*)" in claude["permissions"]["allow"]
    rules = convert(proj, to="codex").files[".codex/rules/converted.rules"]
    block = next(b for b in rules.split("\n\n") if 'pattern = ["ls"]' in b)
    assert 'decision = "forbidden"' in block
    assert 'run_shell_command(commandPrefix=\\"\\")' in block  # the refusing rule
    assert 'pattern = ["git", "status"]' not in rules  # Codex asks for it anyway


@pytest.mark.parametrize("target", ["claude-code", "codex"])
def test_an_allow_of_a_read_only_command_beside_the_catch_all_is_listed_stricter(
        tmp_path: Path, target: str) -> None:
    """An allow of ``ls -la`` above a deny of every command: Gemini CLI runs ``ls -la`` and
    refuses ``ls /etc``. Neither target can say "ls but not ls -la" (the stricter rule wins in
    both), so the deny of ``ls`` is written, ``ls -la`` is refused, and the allow is listed
    ``stricter`` with what was written; ``ls /etc`` is never run unasked."""
    policy = ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls -la"\n'
              'decision = "allow"\npriority = 100\n\n'
              '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "npm test"\n'
              'decision = "allow"\npriority = 100\n\n'
              '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ""\n'
              'decision = "deny"\npriority = 10\n')
    proj = gemini_project(tmp_path, policy)
    assert shell(proj, "gemini-cli", "ls -la") is Effect.ALLOW
    assert shell(proj, "gemini-cli", "ls /etc") is Effect.DENY
    conv = convert(proj, to=target)
    assert_sound(conv)
    loss = conv.losses[(conv.losses["rule"] == 'run_shell_command(commandPrefix="ls -la")')
                       & (conv.losses["action"] == "stricter")]
    assert list(loss["written"]) == ["Bash(ls:*)"]
    out = converted(conv, tmp_path / "out")
    assert shell(out, target, "ls /etc") is Effect.DENY
    assert shell(out, target, "ls -la") is Effect.DENY  # stricter than the source: listed
    assert shell(out, target, "npm test") is Effect.ALLOW  # an allow it does not touch
    row = conv.check[conv.check["command"] == "ls -la"].iloc[0]
    assert row["direction"] == "stricter" and row["listed"]


# -- other sources and targets --------------------------------------------------------------------

def test_claude_code_deny_of_every_command_reaches_codex(tmp_path: Path) -> None:
    """``deny: ["Bash"]``: Codex has no rule for every command (a prefix_rule needs a first
    word), so before the fix its known-safe ``ls`` ran unasked; now each is forbidden."""
    proj = claude_project(tmp_path, {"deny": ["Bash"]})
    conv = convert(proj, to="codex")
    assert_sound(conv)
    out = converted(conv, tmp_path / "out")
    for command in ("ls", "cat x", "whoami", "sed -n 1p README.md"):
        assert shell(out, "codex", command) is Effect.DENY, command


def test_codex_asks_where_claude_code_asks(tmp_path: Path) -> None:
    """Claude Code asks for ``whoami`` and ``sed -n 1p`` (not read-only), which Codex knows
    safe: the converted rules ask for them; ``ls`` runs unasked in both, so no rule is written
    for it."""
    proj = claude_project(tmp_path, {"allow": ["Bash(npm test:*)"]})
    assert proj.check_call("Bash", {"command": "whoami"}).effect is Effect.ASK
    conv = convert(proj, to="codex")
    assert_sound(conv)
    out = converted(conv, tmp_path / "out")
    assert shell(out, "codex", "whoami") is Effect.ASK
    assert shell(out, "codex", "sed -n 1p README.md") is Effect.ASK
    assert shell(out, "codex", "ls") is Effect.ALLOW
    assert 'pattern = ["ls"]' not in conv.files[".codex/rules/converted.rules"]


def test_claude_code_to_claude_code_adds_no_rule(tmp_path: Path) -> None:
    """The same runtime runs the same commands unasked: nothing is added."""
    permissions = {"allow": ["Bash(npm test:*)"], "deny": ["Bash(rm:*)"]}
    conv = convert(claude_project(tmp_path, permissions), to="claude-code")
    assert json.loads(conv.files[".claude/settings.json"])["permissions"] == {
        "allow": ["Bash(npm test:*)"], "ask": [], "deny": ["Bash(rm:*)"]}
    assert not any("unasked" in note for note in conv.notes)
    assert conv.counts["same"] == conv.counts["compared"]


def test_opencode_catch_all_ask_keeps_read_only_commands_asked(tmp_path: Path) -> None:
    """OpenCode ``"*": "ask"`` before ``"git *": "allow"``: the catch-all is the default for the
    rest; Claude Code would run ``ls`` unasked, so an ask of each read-only command is written
    (``git status`` stays allowed: the source allows it)."""
    root = tmp_path / "oc"
    root.mkdir()
    (root / "opencode.json").write_text(json.dumps({"permission": {"bash": {
        "*": "ask", "git *": "allow"}}}), encoding="utf-8")
    conv = convert(tk.load(root, home=tmp_path / "home", managed=False), to="claude-code")
    assert_sound(conv)
    out = converted(conv, tmp_path / "out")
    assert shell(out, "claude-code", "ls") is Effect.ASK
    assert shell(out, "claude-code", "cat README.md") is Effect.ASK
    assert shell(out, "claude-code", "git status") is Effect.ALLOW


def test_opencode_runs_cd_unasked_whatever_is_written(tmp_path: Path) -> None:
    """OpenCode asks no bash permission for ``cd`` inside the project (tool/bash.ts leaves it
    out of the patterns it asks for): a ``permissive`` loss, the only kind that explains a
    call allowed more."""
    conv = convert(gemini_project(tmp_path, OPENQA), to="opencode")
    row = conv.check[conv.check["command"] == "cd src"].iloc[0]
    assert row["direction"] == "allows more" and row["listed"]
    assert row["loss"].startswith("OpenCode asks no bash permission for cd")
    assert conv.ok
