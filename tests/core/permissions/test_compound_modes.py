"""Compound commands in plan and dontAsk mode: how the parts' effects combine.

permissions#compound-commands: "A rule must match each subcommand independently", and
rules are evaluated deny -> ask -> allow, so a compound command is denied when any part is
denied (an explicit deny first, then an implicit one), else it asks when any part asks.
In plan mode an edit that no rule allows is blocked (implicit deny) while other commands
ask (permission-modes#analyze-before-you-edit-with-plan-mode); dontAsk mode denies
whatever would ask (settings-reference#permissions-ask). These cases put an asking part
next to an implicitly denied one, in both orders, so the precedence between the two
decides the answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit as tk
from tests.support.claude import build_project, permissions

PUBLISH = "Bash(npm publish *)"


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    """``npm test`` allowed, ``npm publish`` asks, ``git push`` denied; nothing else ruled."""
    return build_project(tmp_path, project=permissions(
        allow=["Bash(npm test *)"], ask=[PUBLISH], deny=["Bash(git push *)"]))


@pytest.mark.parametrize(("command", "deciding"), [
    ("npm publish --dry-run && touch build.stamp", 2),  # ask, then an edit
    ("touch build.stamp && npm publish --dry-run", 1),  # the edit first
    ("npm publish --dry-run; echo done > out.txt", 2),  # the edit is a redirection
])
def test_plan_mode_an_asking_part_and_a_blocked_edit_is_denied(
        proj: tk.Project, command: str, deciding: int) -> None:
    d = proj.check_call("Bash", {"command": command}, mode="plan")
    # the parts on their own: one asks (its ask rule), the other is blocked by plan mode
    assert sorted(p.effect.value for p in d.parts) == ["ask", "implicit-deny"]
    asking = next(p for p in d.parts if p.effect.value == "ask")
    assert asking.rule.text == PUBLISH
    # together: any deny denies, so the whole command is blocked, by plan mode
    assert (d.effect.value, d.reason.value) == ("implicit-deny", "mode")
    assert not d.allowed
    assert d.message.startswith(f"part {deciding} of 2 ")
    assert "plan mode blocks edits" in d.message


def test_plan_mode_an_asking_command_writing_a_file_is_denied(proj: tk.Project) -> None:
    """One subcommand whose command asks and whose output redirection is a blocked edit:
    the redirection is checked as a write of its own, and its deny wins over the ask."""
    d = proj.check_call("Bash", {"command": "npm publish --dry-run > publish.log"},
                        mode="plan")
    assert (d.effect.value, d.reason.value) == ("implicit-deny", "mode")
    steps = [s for s in d.trace if s.name == "decision"]
    assert [s.detail.split(" ")[0] for s in steps] == ["ask", "implicit-deny"]


def test_plan_mode_an_explicit_deny_beats_both(proj: tk.Project) -> None:
    d = proj.check_call("Bash", {"command": "npm publish --dry-run && touch x && "
                                            "git push origin main"}, mode="plan")
    assert [p.effect.value for p in d.parts] == ["ask", "implicit-deny", "explicit-deny"]
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Bash(git push *)")


def test_plan_mode_without_a_blocked_part_the_ask_decides(proj: tk.Project) -> None:
    """The control: an allowed part and an asking one ask (nothing is denied)."""
    d = proj.check_call("Bash", {"command": "npm test && npm publish --dry-run"}, mode="plan")
    assert [p.effect.value for p in d.parts] == ["allow", "ask"]
    assert (d.effect.value, d.rule.text) == ("ask", PUBLISH)


@pytest.mark.parametrize("command", [
    "npm publish --dry-run && npm test",  # an ask rule's part: denied instead of asking
    "npm test && npm install",  # a part no rule matches: it would ask, so it is denied
    "npm publish --dry-run && touch build.stamp",
])
def test_dontask_mode_a_part_that_would_ask_denies_the_command(proj: tk.Project,
                                                                command: str) -> None:
    d = proj.check_call("Bash", {"command": command}, mode="dontAsk")
    assert "ask" not in {p.effect.value for p in d.parts}  # dontAsk never prompts
    assert "implicit-deny" in {p.effect.value for p in d.parts}
    assert (d.effect.value, d.reason.value) == ("implicit-deny", "mode")
    assert "dontAsk mode denies" in d.message
    # the same command in default mode asks: what dontAsk turns into a deny
    assert proj.check_call("Bash", {"command": command}, mode="default").effect.value == "ask"


def test_dontask_mode_an_explicit_deny_still_names_its_rule(proj: tk.Project) -> None:
    d = proj.check_call("Bash", {"command": "npm publish --dry-run && git push origin main"},
                        mode="dontAsk")
    assert [p.effect.value for p in d.parts] == ["implicit-deny", "explicit-deny"]
    assert (d.effect.value, d.reason.value, d.rule.text) == (
        "explicit-deny", "deny-rule", "Bash(git push *)")
