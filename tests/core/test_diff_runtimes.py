"""``tk.diff(old, new, runtime=...)`` on a repository holding several runtimes' settings
(SPEC sections 12 and 13): one runtime, or each runtime both versions hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.runtimes import three_runtimes
from toolkit.analysis.diff import more_permissive
from toolkit.core.decision import Effect


def _versions(tmp_path: Path) -> tuple[tk.Project, tk.Project]:
    """The repository, and a copy whose Claude Code settings also deny Grep."""
    old_repo, home = three_runtimes(tmp_path / "old")
    new_repo, new_home = three_runtimes(tmp_path / "new")
    settings = new_repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"]["deny"].append("Grep")
    settings.write_text(json.dumps(data, indent=2))
    return (tk.load(old_repo, home=home, managed=False),
            tk.load(new_repo, home=new_home, managed=False))


def test_diff_under_one_runtime(tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    d = tk.diff(old, new, runtime="claude-code")
    assert d.runtimes == ["claude-code"]
    cells = set(zip(d.changes["agent"], d.changes["tool"], d.changes["before"],
                    d.changes["after"], d.changes["runtime"], strict=True))
    # Grep was conditional (Read(./.env) decides Grep's search paths too) and is now denied,
    # in every context compared (the default request and '*')
    assert cells == {("reviewer", "Grep", Effect.CONDITIONAL.value, Effect.DENY.value,
                      "claude-code")}
    assert len(d.changes) == 2
    row = d.changes.iloc[0]
    assert row["rule_after"].startswith("Grep (.claude/settings.json:")
    assert row["context"].startswith("runtime claude-code / ")
    assert new.explain("reviewer", "Grep", runtime="claude-code").effect is Effect.DENY
    # a deny more is no new access (the cells' side of new_access; its witness side reads the
    # argument rules of every engine, which this test leaves to tests/analysis)
    assert not any(map(more_permissive, d.changes["before"], d.changes["after"]))


def test_diff_of_two_multi_runtime_versions_compares_each_runtime(tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    d = tk.diff(old, new)
    assert d.runtimes == ["claude-code", "codex", "gemini-cli"]
    # Grep is Claude Code's alone: under Codex and Gemini CLI it is no tool, before or after
    assert set(d.changes["runtime"]) == {"claude-code"}
    assert set(d.changes["tool"]) == {"Grep"}
    back = tk.diff(new, old, runtime="claude-code")
    granted = back.changes[list(map(more_permissive, back.changes["before"],
                                    back.changes["after"]))]
    assert set(granted["tool"]) == {"Grep"}  # the deny undone grants Grep again


def test_diff_names_a_runtime_without_an_engine(tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    with pytest.raises(ValueError, match="no permission engine for runtime 'nope'"):
        tk.diff(old, new, runtime="nope")
