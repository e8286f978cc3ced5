"""The probe's one shortcut changes no finding: an escape whose smuggled payload a deny rule
refuses on its own is not asked in a runtime that refuses a line any command of which a deny
rule refuses (``ShellProbe.compound_deny``: Claude Code, Cursor, OpenCode). Each project below
is probed twice, with the shortcut and ``exhaustive=True``; the findings and the rules tables
must be the same, and the shortcut must have saved engine calls."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from bench.analysis import settings as bench_settings
from toolkit.analysis.probe import ProbeRun, run_probe

REAL = Path(__file__).parents[1] / "fixtures" / "claude-settings-real"


def _same(proj: tk.Project, mode: str | None = None) -> ProbeRun:
    fast = run_probe(proj, mode=mode)
    full = run_probe(proj, mode=mode, exhaustive=True)
    pd.testing.assert_frame_equal(fast.findings, full.findings)
    pd.testing.assert_frame_equal(fast.rules, full.rules)
    assert full.not_asked == 0
    return fast


def test_bench_mix_of_rules(tmp_path: Path) -> None:
    """The figure-10 generator's mix at 120 rules, with the 600-rule file's deny of
    ``curl *``: it refuses the exfiltrating payloads, so chained and substituted escapes of
    every allow rule are decided without asking."""
    data = bench_settings(120)
    data["permissions"]["deny"].append("Bash(curl *)")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(data), encoding="utf-8")
    proj = tk.load(tmp_path, home=False, managed=False)
    run = _same(proj)
    assert run.not_asked > 500


@pytest.mark.parametrize("mode", [None, "bypassPermissions"])
def test_real_claude_settings(tmp_path: Path, mode: str | None) -> None:
    """IsaiahDupree/acd's settings (tests/fixtures/claude-settings-real) deny
    ``Bash(rm -rf /:*)`` and ``Bash(git push --force:*)``, and with one deny of ``curl`` added
    the exfiltrating payload is refused too."""
    data = json.loads((REAL / "isaiahdupree-acd.settings.json").read_text(encoding="utf-8"))
    data["permissions"]["deny"] = [*data["permissions"].get("deny", []), "Bash(curl *)"]
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(data), encoding="utf-8")
    run = _same(tk.load(tmp_path, home=False, managed=False), mode)
    assert not run.findings.empty
    # in bypassPermissions the mode, not an allow rule, runs each allow rule's own command:
    # those rules are skipped, so no escape is tried at all
    assert run.not_asked > 0 if mode is None else run.not_asked == 0


def test_real_claude_settings_unchanged(tmp_path: Path) -> None:
    for file in sorted(REAL.glob("*.json")):
        root = tmp_path / file.stem / ".claude"
        root.mkdir(parents=True)
        shutil.copy(file, root / "settings.json")
        _same(tk.load(root.parent, home=False, managed=False))


def test_cursor_and_opencode(tmp_path: Path) -> None:
    cursor = tmp_path / "cursor"
    (cursor / ".cursor").mkdir(parents=True)
    (cursor / ".cursor" / "cli.json").write_text(json.dumps({"permissions": {
        "allow": ["Shell(git)", "Shell(ls)", "Shell(npm:test*)"],
        "deny": ["Shell(curl)", "Shell(rm)", "Shell(git push)"]}}), encoding="utf-8")
    opencode = tmp_path / "opencode"
    opencode.mkdir()
    (opencode / "opencode.json").write_text(json.dumps({"permission": {"bash": {
        "*": "ask", "git *": "allow", "ls *": "allow", "curl *": "deny", "rm *": "deny",
        "git push *": "deny"}}}), encoding="utf-8")
    for root, modes in ((cursor, (None, "force")), (opencode, (None, "auto"))):
        proj = tk.load(root, home=False, managed=False)
        for mode in modes:
            assert _same(proj, mode).not_asked > 0, (root.name, mode)
