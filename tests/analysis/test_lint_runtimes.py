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
