"""Issue 20 items 3 and 4: rules Claude Code writes itself, and several wildcards.

Item 3: ``Bash(timeout:*)`` is what Claude Code writes into ``settings.local.json`` when a user
approves a ``timeout ...`` command (public settings files hold it beside ``Bash(gtimeout:*)``,
``Bash(grep:*)``): the legacy prefix syntax, a command rule, never a parameter rule on
Bash's ``timeout`` field. ``permissions.text`` is the rule as the file writes it.
Item 4 (permissions#bash): a trailing `` *`` matches the bare command "only when the
trailing ``*`` is the rule's only wildcard: ``Bash(* --help *)`` matches ``npm --help x``
but not ``npm --help``".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect


def _project(tmp_path: Path, permissions: dict[str, list[str]]) -> tk.Project:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": permissions}, indent=2), encoding="utf-8")
    return tk.load(tmp_path, home=False, managed=False)


def test_timeout_colon_star_is_a_command_prefix_rule(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"allow": ["Bash(gtimeout:*)", "Bash(grep:*)"],
                               "ask": ["Bash(timeout:*)"]})
    rows = proj.permissions.set_index("text")
    assert rows.loc["Bash(timeout:*)", "status"] != "skipped"
    d = proj.check_call("Bash", {"command": "timeout 30 npm test"})
    assert (d.effect, d.rule.text) == (Effect.ASK, "Bash(timeout:*)")
    d = proj.check_call("Bash", {"command": "gtimeout 5 ls"})
    assert d.rule is not None and d.rule.text in ("Bash(gtimeout:*)",)
    proj.close()


def test_a_real_parameter_rule_still_is_one(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"deny": ["Bash(run_in_background:true)"]})
    d = proj.check_call("Bash", {"command": "npm run dev", "run_in_background": True})
    assert d.effect is Effect.DENY
    assert proj.check_call("Bash", {"command": "npm run dev"}).effect is not Effect.DENY
    proj.close()


def test_permissions_text_is_the_rule_as_written(tmp_path: Path) -> None:
    written = "Bash(echo \\(hi\\))"
    proj = _project(tmp_path, {"allow": [written]})
    assert list(proj.permissions["text"]) == [written]
    assert proj.check_call("Bash", {"command": "echo (hi)"}).effect is Effect.ALLOW
    proj.close()


@pytest.mark.parametrize("rule", ["Bash(* --help *)", "Bash(* --help:*)"])
def test_a_trailing_wildcard_beside_another_needs_an_argument(tmp_path: Path,
                                                              rule: str) -> None:
    proj = _project(tmp_path, {"allow": [rule]})
    assert proj.check_call("Bash", {"command": "npm --help x"}).effect is Effect.ALLOW
    assert proj.check_call("Bash", {"command": "npm --help"}).effect is Effect.ASK
    proj.close()


def test_a_lone_trailing_wildcard_still_matches_the_bare_command(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"allow": ["Bash(npm run *)", "Bash(ls *)"]})
    assert proj.check_call("Bash", {"command": "npm run"}).effect is Effect.ALLOW
    assert proj.check_call("Bash", {"command": "npm run build"}).effect is Effect.ALLOW
    assert proj.check_call("Bash", {"command": "lsof -i"}).effect is Effect.ASK
    proj.close()
