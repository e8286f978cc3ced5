"""``%tk matrix|replay|diff --runtime`` on a repository holding Claude Code, Gemini CLI and
Codex settings (SPEC section 13); each answer is the Python API's."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError

import toolkit as tk
from tests.support.runtimes import RUNTIMES, three_runtimes
from toolkit.policy import MAIN

from .conftest import TestingShell


@pytest.fixture
def loaded(ip: TestingShell, tmp_path: Path) -> tk.Project:
    repo, home = three_runtimes(tmp_path)
    ip.run_cell(f"proj = %tk load {repo} --home {home} --managed false")
    proj = ip.user_ns["proj"]
    assert proj.runtimes == RUNTIMES
    return proj


def test_magic_matrix_puts_runtimes_side_by_side(ip: TestingShell, loaded: tk.Project) -> None:
    ip.run_cell("t = %tk matrix --runtime '*' --reasons")
    pd.testing.assert_frame_equal(ip.user_ns["t"], loaded.reasons(runtimes="*"))
    ip.run_cell("t = %tk matrix --runtime codex,gemini-cli --agents reviewer")
    assert list(ip.user_ns["t"].columns) == [("codex", "reviewer"), ("gemini-cli", "reviewer")]
    with pytest.raises(UsageError, match="no permission engine for runtime 'nope'"):
        ip.run_cell("%tk matrix --runtime nope")


def test_magic_replay_takes_the_runtime(ip: TestingShell, loaded: tk.Project,
                                        tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"agent": None, "tool": "run_shell_command",
                               "args": {"command": "npm run lint"}}) + "\n")
    ip.run_cell(f"rp = %tk replay {log} --runtime gemini-cli")
    row = ip.user_ns["rp"].calls.iloc[0]
    d = loaded.check_call("run_shell_command", {"command": "npm run lint"},
                          runtime="gemini-cli")
    assert (row["effect"], row["line"]) == (d.effect.value, d.rule.line)
    with pytest.raises(UsageError, match="several runtimes"):
        ip.run_cell(f"%tk replay {log}")


def test_magic_diff_takes_the_runtime(ip: TestingShell, loaded: tk.Project,
                                      tmp_path: Path) -> None:
    old, _ = three_runtimes(tmp_path / "old")
    ip.run_cell(f"d = %tk diff {old} --runtime codex")
    d = ip.user_ns["d"]
    assert d.runtimes == ["codex"] and d.changes.empty  # the same files (the home aside)
    with pytest.raises(UsageError, match="no permission engine for runtime 'nope'"):
        ip.run_cell(f"%tk diff {old} --runtime nope")


def test_main_column_name(loaded: tk.Project) -> None:
    assert loaded.matrix(runtimes="*").columns[0] == ("claude-code", MAIN)
