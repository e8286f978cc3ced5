"""tk.convert(proj, to="cursor"): a Claude Code policy as Cursor CLI's ``.cursor/cli.json``.

Cursor has allow and deny tokens and no ask (cursor.com/docs/cli/reference/permissions); it
runs reads and workspace edits unasked (cursor.com/docs/agent/security). The written file is
loaded with toolkit's Cursor engine (toolkit/systems/cursor) and every corpus call decided by
both; these tests pin what the writer does where Cursor cannot say what Claude Code says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.analysis.convert import convert
from toolkit.analysis.convert.cursor import shell_tokens
from toolkit.analysis.convert.rules import ShellPattern
from toolkit.core.decision import Effect
from toolkit.systems.cursor.tokens import shell_matches

SETTINGS = {"permissions": {
    "allow": ["Bash(git status)", "Bash(npm run test:*)", "WebFetch(domain:docs.python.org)",
              "mcp__github"],
    "ask": ["Bash(git push:*)", "Read(./secrets/**)", "mcp__github__delete_repo"],
    "deny": ["Bash(rm -rf:*)", "Read(./.env)", "Bash(curl * --insecure*)"]}}


def _convert(tmp_path: Path, settings: dict) -> tk.Conversion:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    return convert(tk.load(root, home=False, managed=False), to="cursor")


def _tokens(conv: tk.Conversion) -> dict[str, list[str]]:
    return json.loads(conv.files[".cursor/cli.json"])["permissions"]


def test_the_file_loads_clean_and_nothing_runs_unasked_that_the_source_asks_for(
        tmp_path: Path) -> None:
    conv = _convert(tmp_path, SETTINGS)
    assert list(conv.files) == [".cursor/cli.json"]
    assert conv.problems == [] and conv.allows_more == 0 and conv.unlisted == 0 and conv.ok
    assert conv.counts["compared"] > 40


def test_deny_rules_are_written_in_the_documented_command_args_form(tmp_path: Path) -> None:
    deny = _tokens(_convert(tmp_path, SETTINGS))["deny"]
    assert deny[:2] == ["Write(**)", "Shell(rm:-rf)"]  # no Edit allow: Cursor may not edit
    assert "Shell(rm:-rf *)" in deny and "Shell(curl:* --insecure*)" in deny
    assert "Read(.env)" in deny and "Read(**/.env)" in deny


def test_shell_allows_are_dropped_because_cursor_cannot_see_a_redirection(
        tmp_path: Path) -> None:
    conv = _convert(tmp_path, SETTINGS)
    assert not any(t.startswith("Shell(") for t in _tokens(conv).get("allow", []))
    losses = conv.losses.set_index("rule")
    assert losses.loc["Bash(git status)", "action"] == "dropped"
    assert "redirects output" in losses.loc["Bash(git status)", "why"]
    # the source runs `git status` unasked; Cursor asks: stricter, and listed
    row = conv.check[conv.check["command"] == "git status"].iloc[0]
    assert (row["source"], row["target"], row["direction"], row["listed"]) == (
        Effect.ALLOW.value, Effect.ASK.value, "stricter", True)


def test_an_ask_cursor_would_run_unasked_is_written_as_a_deny(tmp_path: Path) -> None:
    conv = _convert(tmp_path, SETTINGS)
    tokens = _tokens(conv)
    # reads run unasked in Cursor, and Mcp(github:*) would run delete_repo: both denied
    assert "Read(secrets/**)" in tokens["deny"] and "Mcp(github:delete_repo)" in tokens["deny"]
    assert tokens["allow"] == ["WebFetch(docs.python.org)", "Mcp(github:*)"]
    losses = conv.losses.set_index("rule")
    assert losses.loc["Read(./secrets/**)", "action"] == "stricter"
    assert losses.loc["mcp__github__delete_repo", "action"] == "stricter"
    # a shell ask needs nothing: no Shell allow is written, Cursor's default asks
    assert "Bash(git push:*)" not in set(conv.losses["rule"])
    assert not any("push" in t for t in tokens["deny"])


def test_edits_are_denied_unless_the_source_lets_edit_and_write_run(tmp_path: Path) -> None:
    free = {"permissions": {"allow": ["Edit", "Write"], "deny": ["Edit(./.env)"]}}
    conv = _convert(tmp_path / "a", free)
    assert _tokens(conv)["deny"] == ["Write(.env)", "Write(**/.env)"]
    assert conv.ok
    edit_only = {"permissions": {"allow": ["Edit"]}}
    conv = _convert(tmp_path / "b", edit_only)
    assert _tokens(conv)["deny"] == ["Write(**)"]
    assert conv.losses.set_index("rule").loc["Edit", "action"] == "dropped"
    assert conv.ok and conv.allows_more == 0


@pytest.mark.parametrize(("spec", "commands", "exact"), [
    ("git push:*", ["git push", "git push origin main"], True),
    ("rm", ["rm"], True),
    ("git status", ["git status"], True),
    ("npm run test*", ["npm run test", "npm run testx", "npm run test:unit"], True),
    ("git * main", ["git push main", "git push origin main"], True),
    ("np* install", ["npm install", "npx foo install"], False),
])
def test_shell_tokens_cover_every_command_the_source_pattern_matches(
        spec: str, commands: list[str], exact: bool) -> None:
    tokens, is_exact = shell_tokens(ShellPattern.parse(spec))
    assert is_exact is exact
    for command in commands:
        assert any(shell_matches(t, tuple(command.split())) for t in tokens), (spec, command)
    if exact:  # and nothing a word longer where the source stops at a word
        assert not any(shell_matches(t, ("git", "pushx")) for t in tokens)
