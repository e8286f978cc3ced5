"""``proj.lint()`` on Codex and OpenCode policies (issue 24 item 2: every system with argument
rules), over real files from tests/fixtures (each folder's README / SOURCES.md names its
source). Each expectation is worked out by reading the rules with the runtime's documented
precedence, written beside it:

- Codex (execpolicy ``Evaluation::from_matches``): every matching ``prefix_rule`` counts and
  the strictest decision wins (forbidden > prompt > allow), whatever the order; a rule
  matches an argv whose first tokens are its pattern's.
- OpenCode (``evaluate`` in permission/next.ts, opencode.ai/docs/permissions): the *last*
  rule of the agent's ruleset whose permission and wildcard pattern match decides; an
  agent's own ``permission`` comes after the global one; no rule: ask.
- Gemini CLI (policy-engine.ts ``check``, geminicli.com/docs/reference/policy-engine): the
  first rule by priority decides (a user-tier rule's priority is 4 + priority/1000);
  ``commandPrefix`` / ``commandRegex`` become an ``argsPattern`` searched in the stable JSON
  of the arguments, ``"command":"<prefix or regex>``; ``toolName`` is a name, not a regex.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import toolkit as tk
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _codex(tmp_path: Path, files: dict[str, str]) -> Any:
    root = tmp_path / "repo"
    (root / ".codex" / "rules").mkdir(parents=True)
    for name, text in files.items():
        (root / ".codex" / "rules" / name).write_text(text)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root.resolve()}"]\ntrust_level = "trusted"\n')
    return tk.load(root, home=home)


def _real(name: str) -> str:
    return (FIXTURES / "codex" / "real" / name).read_text()


def _rows(frame: Any) -> dict[str, dict[str, Any]]:
    return {r["rule"]: r for r in frame.to_dict("records")}


def test_codex_a_narrower_allow_inside_another_is_redundant(tmp_path: Path) -> None:
    """altinn-studio allows ``git diff|status|log|show``; hubspot-cli allows ``git
    status|diff|log|branch|show``: every argv the first matches, the second allows too and
    no stricter rule takes any of them, so removing the first changes no decision."""
    proj = _codex(tmp_path, {"altinn.rules": _real("altinn-studio.default.rules"),
                             "hubspot.rules": _real("hubspot-cli.default.rules")})
    rows = _rows(proj.lint())
    narrow = rows['prefix_rule(pattern=["git", ["diff", "status", "log", "show"]], '
                  'decision="allow")']
    broad = 'prefix_rule(pattern=["git", ["status", "diff", "log", "branch", "show"]], ' \
            'decision="allow")'
    assert (narrow["status"], narrow["by"], narrow["verified"]) == ("redundant", broad, True)
    assert narrow["witness"]["tool"] == "shell"
    assert narrow["witness"]["args"]["command"][0] == "git"
    assert rows[broad]["status"] == "ok"  # git branch is its own
    # the prompt of git commit|push meets no other rule: ok
    assert rows['prefix_rule(pattern=["git", ["commit", "push"]], decision="prompt")'][
        "status"] == "ok"
    # altinn's one-token allows (cat, find, rg ...) overlap nothing
    assert rows['prefix_rule(pattern=["cat"], decision="allow")']["status"] == "ok"
    proj.close()


def test_codex_a_prompt_under_a_stricter_forbidden_is_shadowed(tmp_path: Path) -> None:
    """hubspot-cli's ``gh api`` prompt, with a ``gh`` forbidden beside it: every argv the
    prompt matches, the forbidden matches too, and forbidden is stricter: never decisive.
    Its witness ``gh api`` is refused by the forbidden rule."""
    proj = _codex(tmp_path, {"hubspot.rules": _real("hubspot-cli.default.rules"),
                             "mine.rules": 'prefix_rule(pattern=["gh"], '
                                           'decision="forbidden")\n'})
    rows = _rows(proj.lint())
    row = rows['prefix_rule(pattern=["gh", "api"], decision="prompt")']
    assert (row["status"], row["by"]) == ("shadowed",
                                          'prefix_rule(pattern=["gh"], decision="forbidden")')
    assert row["witness"] == {"tool": "shell", "args": {"command": ["gh", "api"]}}
    d = proj.check_call("shell", row["witness"]["args"], runtime="codex")
    assert d.effect is Effect.DENY and d.rule.text == row["by"]
    assert row["verified"] is True
    proj.close()


def _opencode(tmp_path: Path, name: str) -> Any:
    root = tmp_path / name
    shutil.copytree(FIXTURES / "opencode" / name, root)
    return tk.load(root, home=False)


def test_opencode_the_build_agents_catch_all_shadows_the_global_bash_rules(
        tmp_path: Path) -> None:
    """0rac1e/opencode-kit: the global ``bash`` map (lines 12-59) asks for ``*``, allows
    make, go, git and file tools, and denies ``rm -rf *``, ``sudo *``...; the default agent
    ``build`` then has its own ``bash`` map (lines 76-94) starting with ``"*": "ask"``.
    Its rules come after the global ones, so that ``*`` matches every command after all of
    them: every global bash rule is shadowed (the deny of ``rm -rf *`` too: ``rm -rf x``
    asks instead of being refused), and build's own allows after its ``*`` decide."""
    proj = _opencode(tmp_path, "0rac1e-opencode-kit")
    frame = proj.lint()
    bash = [r for r in frame.to_dict("records") if str(r["rule"]).startswith("bash")]
    global_rules = [r for r in bash if r["line"] < 60]
    assert len(global_rules) == 48
    assert {r["status"] for r in global_rules} == {"shadowed"}
    rm = next(r for r in global_rules if r["rule"] == "bash(rm -rf *)")
    assert (rm["kind"], rm["by"], rm["by_where"]) == ("deny", "bash", "opencode.json:76")
    assert rm["witness"] == {"tool": "bash", "args": {"command": "rm -rf"}}
    d = proj.check_call("bash", {"command": "rm -rf build"})
    assert d.effect is Effect.ASK and d.rule.line == 76
    # a global allow is shadowed by build's repetition of it (which comes last)
    status = next(r for r in global_rules if r["rule"] == "bash(git status *)")
    assert (status["by"], status["by_where"], status["verified"]) == (
        "bash(git status *)", "opencode.json:85", True)
    # build's own rules: its catch-all ask and the allows after it all decide something
    own = [r for r in bash if r["line"] >= 76]
    assert len(own) == 19 and {r["status"] for r in own} == {"ok"}
    proj.close()


def test_opencode_a_skill_allow_repeats_opencodes_own_default(tmp_path: Path) -> None:
    """0rac1e/opencode-kit's ``skill: {"*": "allow"}`` (line 63): OpenCode's built-in
    ruleset (agent.ts) starts with ``"*": "allow"``, and nothing after either asks or
    denies skill calls, so without the line every skill call is still allowed: redundant,
    with the built-in rule deciding instead."""
    proj = _opencode(tmp_path, "0rac1e-opencode-kit")
    rows = {(r["rule"], r["line"]): r for r in proj.lint().to_dict("records")}
    row = rows[("skill", 63)]
    assert (row["status"], row["by"]) == ("redundant", "*")
    assert row["by_where"].startswith("<opencode")
    assert proj.check_call("skill", {"name": "x"}).effect is Effect.ALLOW
    # OpenCode's built-in rules take part but are not rows of the table
    assert not any(str(r["file"]).startswith("<") for r in rows.values())
    proj.close()


def test_opencode_rules_that_change_nothing_or_name_no_question(tmp_path: Path) -> None:
    """0FL01/oc writes ``"apply_patch": "allow"`` and ``"bash": "allow"``. OpenCode asks
    the ``edit`` permission for apply_patch (tool/apply_patch.ts), never ``apply_patch``: that
    rule can match no question (dead). Its built-in ruleset (agent.ts) begins with
    ``"*": "allow"`` and no built-in rule asks or denies bash, so without the bash line
    every command is still allowed: redundant, the built-in rule deciding instead."""
    proj = _opencode(tmp_path, "0FL01-oc")
    rows = _rows(proj.lint())
    assert rows["apply_patch"]["status"] == "dead"
    assert "apply_patch permission" in rows["apply_patch"]["note"]
    bash = rows["bash"]
    assert (bash["status"], bash["by"], bash["verified"]) == ("redundant", "*", True)
    d = proj.check_call("bash", bash["witness"]["args"])
    assert d.effect is Effect.ALLOW and d.rule.line == 6  # today the line decides
    proj.close()


def _gemini(tmp_path: Path, fixture: str) -> Any:
    """A fixture as a user policy (~/.gemini/policies), as tests/systems/gemini_cli does."""
    (tmp_path / "proj" / ".gemini").mkdir(parents=True)
    policies = tmp_path / "home" / ".gemini" / "policies"
    policies.mkdir(parents=True)
    shutil.copy(FIXTURES / "gemini-cli" / fixture, policies / fixture)
    return tk.load(tmp_path / "proj", home=tmp_path / "home", managed=False,
                   runtime="gemini-cli")


def test_gemini_anchored_command_regexes_never_match(tmp_path: Path) -> None:
    """jlaws/dotfiles: ``commandRegex = "^sudo( |$)"`` becomes ``"command":"^sudo( |$)``,
    searched in ``{NUL"command":"sudo ls"NUL}``: the ``^`` comes after ``"command":"`` and
    can only match at the very start of the text, which is ``{``, so the deny matches no
    call (dead), nor does the ``^git (status|...)`` allow; the ``read_file`` commandRegex
    looks for ``"command":"`` in a read_file call's JSON, which has ``file_path``: dead."""
    proj = _gemini(tmp_path, "jlaws-dotfiles.default.toml")
    rows = {int(r["line"]): r for r in proj.lint().to_dict("records")}
    assert {line: r["status"] for line, r in rows.items()} == {3: "dead", 11: "dead",
                                                               18: "dead"}
    assert "matches no call" in rows[3]["note"]
    d = proj.check_call("run_shell_command", {"command": "sudo ls"}, runtime="gemini-cli")
    assert d.effect is not Effect.DENY and d.rule.line != 3
    d = proj.check_call("run_shell_command", {"command": "git status"}, runtime="gemini-cli")
    assert d.rule.line != 18
    proj.close()


def test_gemini_a_lower_priority_prefix_is_shadowed_by_the_same_prefix_above(
        tmp_path: Path) -> None:
    """tobinjt/dotfiles: line 6 allows ``black, grep, mkdir, mypy, pytest`` at priority 100;
    line 12 allows a list holding ``grep`` and ``pytest`` again at 950, which is checked
    first: those two prefixes of line 6 never decide (shadowed, by line 12), the other three
    do (ok)."""
    proj = _gemini(tmp_path, "tobinjt-dotfiles.auto-saved.toml")
    six = [r for r in proj.lint().to_dict("records") if r["line"] == 6]
    assert len(six) == 5  # one rule per prefix, as Gemini CLI expands the list
    shadowed = sorted(r["witness"]["args"]["command"] for r in six
                      if r["status"] == "shadowed")
    assert shadowed == ["grep", "pytest"]
    assert sum(r["status"] == "ok" for r in six) == 3
    for r in six:
        if r["status"] == "shadowed":
            assert r["by_where"].endswith("tobinjt-dotfiles.auto-saved.toml:12")
            assert r["verified"] is True
    proj.close()


def test_gemini_tool_names_are_not_regexes_and_legacy_names_meet_the_defaults(
        tmp_path: Path) -> None:
    """openqa-reviewer: ``toolName = ".*"`` (meant as "every tool") names no tool: dead.
    ``search_file_content`` is a legacy name of ``grep_search``, which Gemini CLI's own
    read-only policy allows (read-only.toml, priority 1.05): without the user's allow of
    SKILL.md searches (4.1), each is still allowed: redundant. The read_file allow of
    SKILL.md is not: the read_file deny at priority 10 (4.01) would refuse those reads."""
    proj = _gemini(tmp_path, "openqa-reviewer.policy.toml")
    rows = {int(r["line"]): r for r in proj.lint().to_dict("records")}
    assert rows[32]["status"] == "dead" and ".*" in rows[32]["note"]
    search = rows[20]
    assert (search["status"], search["by"], search["verified"]) == (
        "redundant", "grep_search", True)
    assert "SKILL.md" in search["witness"]["args"]["pattern"]
    assert rows[13]["status"] == "ok"
    assert rows[26]["status"] == "ok"  # the read_file deny decides every other read
    proj.close()


def test_gemini_rules_of_other_modes_are_listed_not_analysed(tmp_path: Path) -> None:
    """nozzlegear/dotfiles: approvals saved with ``modes = ["autoEdit", "yolo"]``: in the
    default mode they match nothing, and lint (which reads the default mode) says so."""
    proj = _gemini(tmp_path, "nozzlegear-dotfiles.auto-saved.toml")
    rows = proj.lint().to_dict("records")
    assert rows and all(r["status"] == "ok" and "autoEdit, yolo mode only" in r["note"]
                        for r in rows)
    proj.close()
