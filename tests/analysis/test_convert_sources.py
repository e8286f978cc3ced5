"""tk.convert from Gemini CLI, Codex and OpenCode (SPEC section 13, issue 22 part 2): each
source's rule table read from its own engine into the neutral form, written for every target,
loaded back with the target's engine and compared with the source's engine.

Real files: tests/fixtures/gemini-cli, tests/fixtures/codex/real, tests/fixtures/opencode (each
has SOURCES.md / README.md naming repo@commit). A round trip Claude Code -> Gemini CLI ->
Claude Code over the real settings files of tests/fixtures/convert is never more permissive
than the original.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.analysis.convert import TARGETS, convert
from toolkit.analysis.convert.compare import corpus, rank
from toolkit.analysis.convert.sources import gemini_prefix, read_source
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).parent.parent / "fixtures"
GEMINI = sorted(p for p in (FIXTURES / "gemini-cli").glob("*.toml"))
#: tanf-app is refused by Codex itself (a wrong match example), so it is no source
CODEX = sorted(p for p in (FIXTURES / "codex" / "real").glob("*")
               if p.suffix in (".rules", ".toml") and not p.name.startswith("tanf-app"))
#: 0xC0D3D00D names a prompt file the excerpt does not hold: OpenCode refuses it
OPENCODE = sorted(p for p in (FIXTURES / "opencode").iterdir()
                  if p.is_dir() and p.name != "0xC0D3D00D-opencode.config")


def gemini_project(tmp_path: Path, *policies: Path | str) -> tk.Project:
    """A trusted Gemini CLI project whose user tier holds ``policies`` (files or TOML text)."""
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".gemini").mkdir(parents=True)
    folder = home / ".gemini" / "policies"
    folder.mkdir(parents=True)
    for index, policy in enumerate(policies):
        text = policy.read_text(encoding="utf-8") if isinstance(policy, Path) else policy
        (folder / f"p{index}.toml").write_text(text, encoding="utf-8")
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(root): "TRUST_FOLDER"}), encoding="utf-8")
    return tk.load(root, home=home, managed=False, runtime="gemini-cli")


def codex_project(tmp_path: Path, fixture: Path) -> tk.Project:
    """A trusted Codex project holding ``fixture`` (a .rules file or a config.toml)."""
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".codex" / "rules").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    if fixture.suffix == ".rules":
        shutil.copy(fixture, root / ".codex" / "rules" / "default.rules")
    else:
        shutil.copy(fixture, root / ".codex" / "config.toml")
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    return tk.load(root, home=home, managed=False, runtime="codex")


def opencode_project(tmp_path: Path, fixture: Path) -> tk.Project:
    root = tmp_path / "proj"
    shutil.copytree(fixture, root)
    return tk.load(root, home=tmp_path / "home", managed=False, runtime="opencode")


def assert_sound(conv: object) -> None:
    """The guarantees: the target read every written rule, every difference is a listed loss,
    and a call the target allows more is explained by a permissive loss only."""
    check = conv.check  # type: ignore[attr-defined]
    assert conv.problems == [], conv.problems  # type: ignore[attr-defined]
    assert check["listed"].all(), check[~check["listed"]].to_string()
    more = check[check["direction"] == "allows more"]
    permissive = {loss.why for loss in conv.loss_list  # type: ignore[attr-defined]
                  if loss.action == "permissive"}
    assert set(more["loss"]) <= permissive, more.to_string()
    assert conv.ok  # type: ignore[attr-defined]


# -- each source -> each target, over the real files ---------------------------------------------

@pytest.mark.parametrize("fixture", GEMINI, ids=lambda p: p.stem)
@pytest.mark.parametrize("target", list(TARGETS))
def test_gemini_cli_real_policies_convert_to_every_target(tmp_path: Path, fixture: Path,
                                                         target: str) -> None:
    conv = convert(gemini_project(tmp_path, fixture), to=target)
    assert conv.source == "gemini-cli"
    assert conv.counts["compared"] > 0
    assert_sound(conv)


@pytest.mark.parametrize("fixture", CODEX, ids=lambda p: p.name)
@pytest.mark.parametrize("target", list(TARGETS))
def test_codex_real_files_convert_to_every_target(tmp_path: Path, fixture: Path,
                                                  target: str) -> None:
    conv = convert(codex_project(tmp_path, fixture), to=target)
    assert conv.source == "codex"
    assert_sound(conv)


@pytest.mark.parametrize("fixture", OPENCODE, ids=lambda p: p.name)
@pytest.mark.parametrize("target", list(TARGETS))
def test_opencode_real_configs_convert_to_every_target(tmp_path: Path, fixture: Path,
                                                       target: str) -> None:
    conv = convert(opencode_project(tmp_path, fixture), to=target)
    assert conv.source == "opencode"
    assert_sound(conv)


# -- reading each source ------------------------------------------------------------------------

def test_gemini_command_prefix_is_read_from_the_engines_own_pattern(tmp_path: Path) -> None:
    """rnovatorov-dotfiles: ``commandPrefix = ["go", "test"]`` is two prefixes, each read back
    from the argsPattern Gemini CLI built and checked against the rule as written."""
    proj = gemini_project(tmp_path, FIXTURES / "gemini-cli" / "rnovatorov-dotfiles.policy.toml")
    rules = [r for r in read_source(proj, "gemini-cli").rules
             if r.family == "shell" and r.file and not r.file.startswith("<")]
    assert sorted(r.neutral for r in rules) == ["Bash(date:*)", "Bash(go:*)", "Bash(pytest:*)",
                                                "Bash(test:*)"]
    go = next(r for r in rules if r.neutral == "Bash(go:*)")
    assert go.file == "~/.gemini/policies/p0.toml" and go.line == 12  # its [[rule]] line
    assert go.text == 'run_shell_command(commandPrefix=["go","test"])'
    # a pattern that is not a commandPrefix of the rule is not read as one
    assert gemini_prefix(r'\"command\":\"go(?:[\s"]|\\")', 'commandPrefix="git"') is None


def test_gemini_priority_becomes_deny_over_ask_over_allow(tmp_path: Path) -> None:
    """A lower-priority deny of every command under an allow is Gemini CLI's default for the
    rest (openqa-reviewer): not written as a deny (it would override the allow); listed."""
    proj = gemini_project(tmp_path, FIXTURES / "gemini-cli" / "openqa-reviewer.policy.toml")
    conv = convert(proj, to="claude-code")
    settings = json.loads(conv.files[".claude/settings.json"])["permissions"]
    assert "Bash(python3 scripts/fetch_job_data.py:*)" in settings["allow"]
    assert "Bash" not in settings["deny"]
    losses = conv.losses.set_index("rule")
    assert losses.loc['run_shell_command(commandPrefix="")', "action"] == "dropped"
    assert losses.loc['run_shell_command(commandPrefix="")', "line"] == 7
    # the allow still runs, the rest asks where Gemini CLI refused: weaker, and listed
    assert conv.counts["allows_more"] == 0 and conv.counts["weaker"] > 0
    assert_sound(conv)


def test_gemini_lower_stricter_rule_is_listed_on_the_allow_it_overrides(tmp_path: Path) -> None:
    policy = ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git"\n'
              'decision = "allow"\npriority = 500\n\n'
              '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\n'
              'decision = "deny"\npriority = 100\n')
    conv = convert(gemini_project(tmp_path, policy), to="opencode")
    losses = conv.losses.set_index("rule")
    assert losses.loc['run_shell_command(commandPrefix="git")', "action"] == "stricter"
    check = conv.check.set_index("command")
    # Gemini CLI runs `git push` (the higher allow wins); the target refuses it: stricter
    assert check.loc["git push", "source"] == Effect.ALLOW.value
    assert check.loc["git push", "target"] == Effect.DENY.value
    assert_sound(conv)


def test_gemini_rules_of_other_modes_are_listed_not_written(tmp_path: Path) -> None:
    """nozzlegear-dotfiles: auto-saved allows with ``modes = ["autoEdit", "yolo"]``."""
    proj = gemini_project(tmp_path, FIXTURES / "gemini-cli" /
                          "nozzlegear-dotfiles.auto-saved.toml")
    conv = convert(proj, to="claude-code")
    assert "Bash(jq:*)" not in conv.files[".claude/settings.json"]
    modes = conv.losses[conv.losses["why"].str.contains("autoEdit, yolo")]
    assert len(modes) == 5 and set(modes["action"]) == {"dropped"}


def test_codex_alternatives_are_split_and_strictest_wins_is_kept(tmp_path: Path) -> None:
    """hubspot-cli: ``["git", ["status", "diff", ...]]`` allow and ``["git", ["commit",
    "push"]]`` prompt: one neutral rule per alternative, each at the rule's file:line."""
    proj = codex_project(tmp_path, FIXTURES / "codex" / "real" / "hubspot-cli.default.rules")
    source = read_source(proj, "codex")
    assert [r.neutral for r in source.rules] == [
        "Bash(git status:*)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(git branch:*)",
        "Bash(git show:*)", "Bash(git commit:*)", "Bash(git push:*)", "Bash(gh api:*)"]
    assert {r.line for r in source.rules[:5]} == {7}
    assert [loss.action for loss in source.losses if loss.rule is not None] == ["split", "split"]
    conv = convert(proj, to="gemini-cli")
    check = conv.check
    same = conv.counts["same"]
    assert same > 0 and (check["direction"] != "allows more").all()


def test_opencode_last_match_wins_becomes_a_default_and_rules(tmp_path: Path) -> None:
    """``"*": "ask"`` before ``"git *": "allow"`` is OpenCode's default for the rest, not a
    rule overriding the allow; a later deny stays a deny."""
    root = tmp_path / "oc"
    root.mkdir()
    (root / "opencode.json").write_text(json.dumps({"permission": {"bash": {
        "*": "ask", "git *": "allow", "git push *": "deny"}}}), encoding="utf-8")
    conv = convert(tk.load(root, home=tmp_path / "home", managed=False), to="claude-code")
    settings = json.loads(conv.files[".claude/settings.json"])["permissions"]
    assert "Bash(git *)" in settings["allow"] and "Bash(git push *)" in settings["deny"]
    assert "Bash" not in settings["ask"]
    assert conv.losses.set_index("rule").loc["bash", "action"] == "dropped"
    check = conv.check
    assert not (check["command"] == "git push").any()  # both refuse it
    assert_sound(conv)


def test_opencode_earlier_deny_under_a_later_allow_is_listed_stricter(tmp_path: Path) -> None:
    root = tmp_path / "oc"
    root.mkdir()
    (root / "opencode.json").write_text(json.dumps({"permission": {"bash": {
        "git *": "deny", "git status": "allow"}}}), encoding="utf-8")
    conv = convert(tk.load(root, home=tmp_path / "home", managed=False), to="gemini-cli")
    assert conv.losses.set_index("rule").loc["bash(git status)", "action"] == "stricter"
    row = conv.check.set_index("command").loc["git status"]
    assert (row["source"], row["target"]) == (Effect.ALLOW.value, Effect.DENY.value)
    assert_sound(conv)


def test_unknown_source_is_a_clear_error(tmp_path: Path) -> None:
    proj = gemini_project(tmp_path)
    with pytest.raises(ValueError, match=r"cannot convert from .codex.*gemini-cli"):
        convert(proj, to="claude-code", source="codex")


# -- round trip -----------------------------------------------------------------------------------

ROUND = sorted((FIXTURES / "convert").glob("*.settings.json"))[:12]


@pytest.mark.parametrize("settings", ROUND, ids=lambda p: p.name.removesuffix(".settings.json"))
def test_round_trip_claude_gemini_claude_is_never_more_permissive(tmp_path: Path,
                                                                  settings: Path) -> None:
    """Claude Code -> Gemini CLI -> Claude Code: on the corpus of the original's own rules, the
    settings written at the end never run unasked a call the original asks for or refuses."""
    original = tmp_path / "original"
    (original / ".claude").mkdir(parents=True)
    shutil.copy(settings, original / ".claude" / "settings.json")
    first = tk.load(original, home=False, managed=False)
    to_gemini = convert(first, to="gemini-cli")
    gemini = gemini_project(tmp_path / "g", to_gemini.files["~/.gemini/policies/converted.toml"])
    back = convert(gemini, to="claude-code")
    assert back.problems == []
    final = tmp_path / "final"
    back.write(final)
    second = tk.load(final, home=False, managed=False)
    calls = corpus(read_source(first, "claude-code").rules)
    assert len(calls) > 5
    allowed_more: list[tuple[str, str, str]] = []
    weaker = 0
    for call in calls:
        before = first.check_call(call.tool, call.bound(original), runtime="claude-code")
        after = second.check_call(call.tool, call.bound(final), runtime="claude-code")
        if after.effect is Effect.ALLOW and before.effect is not Effect.ALLOW:
            allowed_more.append((call.tool, call.shown, before.effect.value))
        weaker += rank(after.effect) > rank(before.effect)
    # a refusal may come back as an ask (defaultMode dontAsk, an mcp__* rule Gemini CLI cannot
    # name): weaker, not more permissive, and listed by the first leg
    assert allowed_more == []
    assert weaker == 0 or to_gemini.counts["weaker"] + len(to_gemini.loss_list) > 0
