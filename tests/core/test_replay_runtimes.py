"""``tk.replay(proj, calls, runtime=...)`` on a repository holding several runtimes' settings:
the named runtime's engine judges every call, as ``check_call(..., runtime=)`` does."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import toolkit as tk
from tests.support.runtimes import three_runtimes
from toolkit.core.decision import Effect

CALLS = {
    "codex": ("shell", [["npm", "run", "lint"], ["git", "push", "origin", "main"],
                        ["rm", "-rf", "build"]]),
    "gemini-cli": ("run_shell_command", ["npm run lint", "git push origin main",
                                         "rm -rf build"]),
}


@pytest.fixture
def proj(tmp_path: Path) -> tk.Project:
    repo, home = three_runtimes(tmp_path)
    return tk.load(repo, home=home, managed=False)


@pytest.mark.parametrize("runtime", sorted(CALLS))
def test_each_call_is_judged_by_the_named_runtime(proj: tk.Project, runtime: str) -> None:
    tool, commands = CALLS[runtime]
    log = pd.DataFrame({"agent": [None] * len(commands), "tool": [tool] * len(commands),
                        "args": [{"command": c} for c in commands]})
    rp = tk.replay(proj, log, runtime=runtime)
    for row, command in zip(rp.calls.itertuples(), commands, strict=True):
        d = proj.check_call(tool, {"command": command}, runtime=runtime)
        assert (row.effect, row.reason, row.file, row.line) == (
            d.effect.value, d.reason.value, d.rule.file, d.rule.line), command
    # the two runtimes disagree on `npm run lint`: Codex's prefix rule npm [test, run]
    # allows it, Gemini CLI's tools.allowed narrows run_shell_command to the commands it lists
    lint = {"codex": Effect.ALLOW, "gemini-cli": Effect.DENY}[runtime]
    assert rp.calls["effect"].iloc[0] == lint.value


def test_several_runtimes_and_none_named_is_a_clear_error(proj: tk.Project) -> None:
    log = pd.DataFrame({"agent": [None], "tool": ["shell"], "args": [{"command": ["ls"]}]})
    with pytest.raises(ValueError, match=r"several runtimes .*pass runtime="):
        tk.replay(proj, log)
    with pytest.raises(ValueError, match="no permission engine for runtime 'nope'"):
        tk.replay(proj, log, runtime="nope")
