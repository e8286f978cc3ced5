"""tk.convert (SPEC section 13, issue 22 part 2): a Claude Code policy written for Gemini CLI,
Codex, OpenCode and Claude Code, loaded back with each target's own engine and compared.

The three guarantees, each asserted: nothing silently lost (every rule the target cannot write
exactly is a loss with its file:line, and every corpus call deciding differently is explained
by one), proved (the files load in the target's engine without a refused rule, and the check
is the engines' own answers), never more permissive (no corpus call runs unasked in the target
that the source asks for or refuses). Real settings: tests/fixtures/convert (SOURCES.md) and
tests/fixtures/claude-settings-real.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.analysis.convert import convert
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).parent.parent / "fixtures"
REAL = sorted([*(FIXTURES / "convert").glob("*.settings.json"),
               *(FIXTURES / "claude-settings-real").glob("*.settings.json")])
TARGET_NAMES = ("gemini-cli", "codex", "opencode", "cursor")


def _project(tmp_path: Path, settings: dict | str) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    text = settings if isinstance(settings, str) else json.dumps(settings, indent=2)
    (root / ".claude" / "settings.json").write_text(text, encoding="utf-8")
    return root


def _load(root: Path) -> tk.Project:
    return tk.load(root, home=False, managed=False)


SMALL = {"permissions": {
    "allow": ["Bash(git status)", "Bash(npm run test:*)", "Bash(npm run lint*)", "Edit",
              "Bash(git * main)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm -rf:*)", "Read(./.env)", "Bash(curl * --insecure*)"]}}


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_never_more_permissive_and_every_difference_is_a_listed_loss(tmp_path: Path,
                                                                       target: str) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to=target)
    check = conv.check
    assert not (check["target"] == Effect.ALLOW.value).any() or \
        (check[check["target"] == Effect.ALLOW.value]["source"] == Effect.ALLOW.value).all()
    assert conv.allows_more == 0
    assert check["listed"].all(), check[~check["listed"]].to_string()
    assert conv.problems == []
    assert conv.ok


def test_claude_code_to_claude_code_decides_every_call_the_same(tmp_path: Path) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to="claude-code")
    assert conv.counts["compared"] > 50
    assert conv.same == 1.0 and conv.check.empty and conv.losses.empty


def test_a_loss_names_the_rule_its_file_line_and_what_was_done(tmp_path: Path) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to="codex")
    losses = conv.losses.set_index("rule")
    # an exact allow: a prefix_rule would allow `git status --short` too, so it is not written
    assert losses.loc["Bash(git status)", "action"] == "dropped"
    assert losses.loc["Bash(git status)", "file"] == ".claude/settings.json"
    assert losses.loc["Bash(git status)", "line"] == 4
    # a deny with a wildcard between words is written on the words before it: broader
    assert losses.loc["Bash(curl * --insecure*)", "action"] == "stricter"
    assert 'prefix_rule(pattern=["curl"])' in losses.loc["Bash(curl * --insecure*)", "written"]
    # Codex has no rule for reading a file
    assert losses.loc["Read(./.env)", "action"] == "dropped"


def test_codex_rules_carry_the_sources_own_commands_as_match_examples(tmp_path: Path) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to="codex")
    rules = conv.files[".codex/rules/converted.rules"]
    assert 'pattern = ["npm", "run", "test"]' in rules
    assert 'match = ["npm run test"]' in rules
    assert 'pattern = ["rm", "-rf"]' in rules and '"forbidden"' in rules
    assert conv.files[".codex/config.toml"].strip().endswith('approval_policy = "untrusted"')


def test_codex_refuses_a_wrong_match_example_at_load(tmp_path: Path) -> None:
    """The examples are a proof: Codex (and toolkit's port) rejects a file whose match example
    its pattern does not match (codex-rs/execpolicy/tests/basic.rs, match examples)."""
    conv = convert(_load(_project(tmp_path, SMALL)), to="codex")
    broken = conv.files[".codex/rules/converted.rules"].replace(
        'match = ["npm run test"]', 'match = ["npm run build"]')
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".codex" / "rules").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    (project / ".codex" / "rules" / "converted.rules").write_text(broken)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project}"]\ntrust_level = "trusted"\n')
    with pytest.raises(tk.DefinitionError, match="npm run build"):
        tk.load(project, runtime="codex", home=home, managed=False).check_call(
            "shell", {"command": ["bash", "-lc", "npm run test"]}, runtime="codex")


def test_gemini_policy_orders_deny_over_ask_over_allow_in_the_user_tier(tmp_path: Path) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to="gemini-cli")
    (path, text), = conv.files.items()
    assert path == "~/.gemini/policies/converted.toml"
    rules = tomllib.loads(text)["rule"]
    by_decision = {r["decision"]: r["priority"] for r in rules if r.get("priority", 0) > 1}
    assert by_decision["deny"] > by_decision["ask_user"] > by_decision["allow"]
    rm = next(r for r in rules if r.get("commandPrefix") == "rm -rf")
    assert rm["toolName"] == "run_shell_command" and rm["decision"] == "deny"


def test_opencode_map_puts_denies_last_because_the_last_match_wins(tmp_path: Path) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to="opencode")
    bash = list(json.loads(conv.files["opencode.json"])["permission"]["bash"].items())
    assert bash[0] == ("*", "ask")
    actions = [a for _, a in bash[1:]]
    assert actions == sorted(actions, key=["allow", "ask", "deny"].index)
    assert ("git status", "allow") in bash and ("rm -rf *", "deny") in bash


def test_a_rule_the_target_refuses_is_reported_not_hidden(tmp_path: Path) -> None:
    """A Gemini argsPattern with a quantified group is refused by Gemini CLI (isSafeRegExp); the
    converter writes none, so its own files load clean, and the check says what the engine
    said about the written files."""
    conv = convert(_load(_project(tmp_path, SMALL)), to="gemini-cli")
    assert "(?:" not in "".join(
        r.get("argsPattern", "") for r in tomllib.loads(conv.files[
            "~/.gemini/policies/converted.toml"])["rule"] if ")*" in r.get("argsPattern", ""))
    assert conv.problems == []


def test_given_calls_are_the_corpus(tmp_path: Path) -> None:
    calls = [("Bash", {"command": "npm run test -- --watch"}), ("Bash", {"command": "rm -rf /"})]
    conv = convert(_load(_project(tmp_path, SMALL)), to="opencode", calls=calls)
    assert conv.counts["calls"] == 2 and conv.counts["same"] == 2


def test_unknown_target_and_nothing_to_convert_are_clear_errors(tmp_path: Path) -> None:
    proj = _load(_project(tmp_path, SMALL))
    with pytest.raises(ValueError, match=r"unknown target runtime 'vim'.*gemini-cli"):
        convert(proj, to="vim")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no policy to convert"):
        convert(tk.load(empty), to="codex")


def test_write_puts_home_files_under_home(tmp_path: Path) -> None:
    conv = convert(_load(_project(tmp_path, SMALL)), to="gemini-cli")
    written = conv.write(tmp_path / "out")
    assert written == [tmp_path / "out" / "home" / ".gemini" / "policies" / "converted.toml"]


@pytest.mark.parametrize("settings", REAL, ids=lambda p: p.name.removesuffix(".settings.json"))
@pytest.mark.parametrize("target", TARGET_NAMES)
def test_real_settings_convert_without_unlisted_or_more_permissive_differences(
        tmp_path: Path, settings: Path, target: str) -> None:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    shutil.copy(settings, root / ".claude" / "settings.json")
    conv = convert(_load(root), to=target)
    assert conv.allows_more == 0, conv.check[conv.check["direction"] == "allows more"].to_string()
    assert conv.unlisted == 0, conv.check[~conv.check["listed"]].to_string()
    assert conv.problems == []
