"""Issue 20 item 5: newer documented behaviour, each with the Claude Code version it came in.

Sources (read for this test, 2026-08-22):
- CHANGELOG.md of anthropics/claude-code (latest entry 2.1.240);
- code.claude.com/docs/en/permissions and /permission-modes (ericbuess/claude-code-docs
  mirror, docs/permissions.md and docs/permission-modes.md at ec68a5b).

What they say about the four behaviours the issue names:
- input redirect ``cat < secret.txt``: 2.1.232 "Bash input redirections (``< file``) are now
  permission-checked like their argument spellings on all platforms"; 2.1.233 "Reverted the
  2.1.232 Bash permission changes ... for input redirections (``< file``); a narrower
  version will return in a later release". Nothing brings it back up to 2.1.240, so an input
  redirect does not meet Read rules, while ``cat secret.txt`` does (permissions, Read and
  Edit: "Read and Edit deny rules apply to ... file commands Claude Code recognizes in Bash,
  such as cat, head, tail, and sed").
- ``tee``: neither the docs nor the changelog mention it. What is documented: ``tee`` is not
  in the read-only set (permissions#read-only-commands) nor among acceptEdits' filesystem
  commands (mkdir, touch, rm, rmdir, mv, cp, sed), so with no rule a ``tee`` asks in both
  modes; an output redirection outside the working directories asks even when a Bash rule
  allows the command ("A rule such as Bash(git commit *) allows the command, not the target").
- ``!`` in path rules: the docs say Read and Edit rules "use gitignore pattern syntax" and
  that rules are evaluated deny -> ask -> allow, first match wins; they name no ``!``
  exception syntax. Each rule is matched on its own, so ``Read(!sample.env)`` beside
  ``Read(*.env)`` exempts nothing (a lone gitignore negation matches no path); toolkit warns.
- globbed ``rm`` targets (permission-modes#critical-paths): the root, top-level
  directories, home, "your working directory and its parents", an additional directory only
  "when the removal is a glob under one of them", and "a glob or trailing slash directly
  under a shell variable". ``rm -rf logs/*/*`` removes below ``logs/``: none of these.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect


def _project(tmp_path: Path, allow: list[str], deny: list[str] | None = None,
             extra: list[str] | None = None) -> tk.Project:
    import json

    (tmp_path / ".claude").mkdir()
    perms: dict[str, list[str]] = {"allow": allow, "deny": deny or []}
    if extra:
        perms["additionalDirectories"] = extra
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": perms}),
                                                        encoding="utf-8")
    return tk.load(tmp_path, home=False, managed=False)


def _bash(proj: tk.Project, command: str, cwd: Path, mode: str | None = None) -> tk.Decision:
    return proj.check_call("Bash", {"command": command}, cwd=str(cwd), mode=mode)


# -- input redirections (2.1.232, reverted in 2.1.233) ------------------------------------------

def test_cat_of_a_denied_file_is_denied(tmp_path: Path) -> None:
    """permissions, Read and Edit (Warning): Read deny rules apply to cat."""
    proj = _project(tmp_path, ["Bash(cat *)"], ["Read(secret.txt)"])
    d = _bash(proj, "cat secret.txt", tmp_path)
    assert d.effect is Effect.DENY and d.rule is not None and d.rule.text == "Read(secret.txt)"


def test_an_input_redirect_does_not_meet_read_rules_since_2_1_233(tmp_path: Path) -> None:
    """CHANGELOG 2.1.233 reverted 2.1.232's check of ``< file`` against Read rules."""
    proj = _project(tmp_path, ["Bash(cat *)"], ["Read(secret.txt)"])
    d = _bash(proj, "cat < secret.txt", tmp_path)
    assert d.effect is Effect.ALLOW
    assert d.rule is not None and d.rule.text == "Bash(cat *)"


# -- tee and output redirections ---------------------------------------------------------------

@pytest.mark.parametrize("mode", [None, "acceptEdits"])
def test_tee_outside_the_working_directory_asks_without_a_rule(tmp_path: Path,
                                                               mode: str | None) -> None:
    proj = _project(tmp_path, [])
    assert _bash(proj, "echo hi | tee /etc/motd.d/x", tmp_path, mode).effect is Effect.ASK


def test_tee_target_meets_edit_deny_rules(tmp_path: Path) -> None:
    """tee writes its file arguments: an Edit deny on the path blocks it, as for sed."""
    proj = _project(tmp_path, ["Bash(tee *)"], ["Edit(secret/**)"])
    d = _bash(proj, "tee secret/notes.txt", tmp_path)
    assert d.effect is Effect.DENY and d.rule is not None and d.rule.text == "Edit(secret/**)"


def test_an_output_redirect_outside_the_working_directory_asks_despite_the_rule(
        tmp_path: Path) -> None:
    """permissions#redirections: "A rule such as Bash(git commit *) allows the command, not
    the target"; the target is checked against the working directories."""
    proj = _project(tmp_path, ["Bash(echo *)"])
    assert _bash(proj, "echo hi > /etc/motd", tmp_path).effect is Effect.ASK
    assert _bash(proj, "echo hi > out.txt", tmp_path, "acceptEdits").effect is Effect.ALLOW


# -- '!' in path rules -------------------------------------------------------------------------

def test_a_negated_path_rule_makes_no_exception_and_is_warned_about(tmp_path: Path) -> None:
    proj = _project(tmp_path, [], ["Read(*.env)", "Read(!sample.env)"])
    d = proj.check_call("Read", {"file_path": str(tmp_path / "sample.env")}, cwd=str(tmp_path))
    assert d.effect is Effect.DENY and d.rule is not None and d.rule.text == "Read(*.env)"
    [warning] = [w for w in proj.warnings if "Read(!sample.env)" in w.message]
    assert warning.file == ".claude/settings.json" and warning.severity == "warning"
    assert "gitignore negation" in warning.message and "no exception" in warning.message


def test_a_negated_path_rule_alone_matches_no_path(tmp_path: Path) -> None:
    proj = _project(tmp_path, [], ["Read(!sample.env)"])
    for name in ("sample.env", "!sample.env", "other.txt"):
        d = proj.check_call("Read", {"file_path": str(tmp_path / name)}, cwd=str(tmp_path))
        assert d.effect is Effect.ALLOW, name  # a read inside the working directory


# -- globbed rm targets (permission-modes#critical-paths) ---------------------------------------

@pytest.mark.parametrize("command", ["rm -rf logs/*/*", "rm -rf logs/*", "rm -rf build/"])
def test_a_glob_below_a_subdirectory_is_no_critical_path(tmp_path: Path, command: str) -> None:
    proj = _project(tmp_path, ["Bash(rm *)"])
    d = _bash(proj, command, tmp_path)
    assert d.effect is Effect.ALLOW and d.rule is not None and d.rule.text == "Bash(rm *)"


@pytest.mark.parametrize("command", [
    "rm -rf *",             # a glob directly under the working directory
    "rm -rf ./*",
    "rm -rf ..",            # a parent of the working directory
    'rm -rf "$DIR"/*',      # "a glob or trailing slash directly under a shell variable"
    "rm -rf /*",            # a glob under the root
    "rm -rf /usr",          # a top-level directory
])
@pytest.mark.parametrize(("mode", "effect"), [
    (None, Effect.ASK), ("acceptEdits", Effect.ASK), ("bypassPermissions", Effect.ASK),
    ("dontAsk", Effect.IMPLICIT_DENY)])
def test_a_critical_removal_is_never_allowed_by_a_rule(tmp_path: Path, command: str,
                                                       mode: str | None, effect: Effect) -> None:
    """The critical-paths table: default/acceptEdits ask, bypassPermissions asks, dontAsk
    denies; "Claude Code never lets a permissions.allow rule ... approve" it."""
    work = tmp_path / "work"
    work.mkdir()
    proj = _project(work, ["Bash(rm *)"])
    assert _bash(proj, command, work, mode).effect is effect


def test_a_glob_under_an_additional_directory_is_critical_the_directory_itself_not(
        tmp_path: Path) -> None:
    """"Your additional working directories and their parents, but only when the removal is a
    glob under one of them, such as rm -rf <dir>/*. rm -rf <dir> on the directory itself
    doesn't trigger this check"."""
    work, extra = tmp_path / "work", tmp_path / "shared"
    work.mkdir()
    extra.mkdir()
    proj = _project(work, ["Bash(rm *)"], extra=[str(extra)])
    assert _bash(proj, f"rm -rf {extra}/*", work).effect is Effect.ASK
    assert _bash(proj, f"rm -rf {extra}", work).effect is Effect.ALLOW
