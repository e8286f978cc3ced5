"""Issue 24 item 5 for Gemini CLI: when a call asks or is denied although an allow rule
looks like it covers it, the decision names the allow rules that came closest and why each
does not decide. gemini-cli #17953: a ``commandPrefix`` allow of ``gradlew`` never matches
``./gradlew build`` (Gemini matches the prefix from the start of the command, with a word
boundary after it: policy-engine.ts / utils.ts buildArgsPatterns)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import Effect

# user-tier policy (Gemini CLI never loads workspace policies): line 2 the allow of three
# prefixes, line 8 a higher-priority deny of `git push`
POLICY = '''
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["gradlew", "npm test", "git"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 500
'''


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    repo, home = tmp_path / "repo", tmp_path / "home"
    (repo / ".gemini").mkdir(parents=True)
    (repo / ".gemini" / "settings.json").write_text("{}")
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "team.toml").write_text(POLICY)
    return tk.load(repo, home=home, managed=False)


def misses(proj: tk.Project, command: str) -> tuple[Effect, list[tuple[str, int | None, str]]]:
    d = proj.check_call("run_shell_command", {"command": command})
    return d.effect, [(m.kind, m.part, m.why) for m in d.near_misses]


def test_a_leading_path_is_not_the_prefix_17953(proj: tk.Project) -> None:
    effect, found = misses(proj, "./gradlew build")
    assert effect is Effect.ASK
    assert len(found) == 1  # one per rule: the list expands to one rule per prefix
    kind, part, why = found[0]
    assert kind == "no-match" and part is None
    assert "`./gradlew` is not `gradlew`" in why and "add a rule for `./gradlew`" in why


def test_the_word_boundary_after_the_prefix(proj: tk.Project) -> None:
    effect, found = misses(proj, "npm testing")
    assert effect is Effect.ASK
    assert [(k, "word boundary after `npm test`" in w) for k, _, w in found] == [
        ("no-match", True)]


def test_leading_assignments_come_before_the_prefix(proj: tk.Project) -> None:
    effect, found = misses(proj, "FOO=1 npm test")
    assert effect is Effect.ASK
    assert found and "`FOO=1` comes before `npm test`" in found[0][2]


def test_a_matching_allow_downgraded_by_a_redirection(proj: tk.Project) -> None:
    effect, found = misses(proj, "npm test > out.txt")
    assert effect is Effect.ASK
    assert found[0][0] == "never-approves" and "allowRedirection = true" in found[0][2]


def test_a_matching_allow_under_a_higher_priority_deny(proj: tk.Project) -> None:
    effect, found = misses(proj, "git push origin")
    assert effect is Effect.DENY
    kind, _, why = found[0]
    assert kind == "shadowed" and "team.toml:8" in why and "higher priority" in why


def test_the_part_of_a_compound_command_no_rule_allows(proj: tk.Project) -> None:
    effect, found = misses(proj, "npm test && curl x")
    assert effect is Effect.ASK
    assert found == [("part", 2, found[0][2])]
    assert "part 1 (`npm test`)" in found[0][2] and "part 2 (`curl x`)" in found[0][2]


def test_an_allowed_call_has_none_and_the_cli_shows_them(proj: tk.Project) -> None:
    assert misses(proj, "npm test")[1] == []
    out, err = io.StringIO(), io.StringIO()
    code = main(["why", str(proj.root), "run_shell_command", "./gradlew build",
                 "--runtime", "gemini-cli", "--home", str(Path(proj.root).parent / "home"),
                 "--format", "json"], out, err)
    assert code == 2, err.getvalue()
    shown = json.loads(out.getvalue())["near_misses"]
    assert shown and "`./gradlew` is not `gradlew`" in shown[0]["why"]
