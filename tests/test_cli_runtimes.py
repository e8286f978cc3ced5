"""``toolmatrix matrix --runtime`` and ``toolmatrix replay --runtime`` on a repository holding
Claude Code, Gemini CLI and Codex settings (SPEC section 13)."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.runtimes import three_runtimes
from toolkit.cli import main
from toolkit.core.decision import Effect


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder, home = three_runtimes(tmp_path)
    monkeypatch.setenv("HOME", str(home))  # the CLI reads the real home: this one trusts it
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return folder


def test_matrix_with_every_runtime(repo: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["matrix", str(repo), "--runtime", "*", "--reasons", "--format", "json"],
                out, err) == 0
    table = json.loads(out.getvalue())
    proj = tk.load(repo, managed=False)
    expected = proj.reasons(runtimes="*")
    assert table["columns"] == [" / ".join(c) for c in expected.columns]
    assert table["index"] == list(expected.index)
    assert table["data"] == expected.to_numpy().tolist()


def test_matrix_with_a_runtime_without_an_engine(repo: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["matrix", str(repo), "--runtime", "nope"], out, err) == 2
    assert "no permission engine for runtime 'nope'" in err.getvalue()


def test_replay_with_a_runtime(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text(json.dumps({"agent": None, "tool": "shell",
                               "args": {"command": ["rm", "-rf", "build"]}}) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(repo), str(log), "--runtime", "codex", "--show", "calls",
                 "--format", "json"], out, err) == 0
    [row] = json.loads(out.getvalue())
    d = tk.load(repo, managed=False).check_call("shell", {"command": ["rm", "-rf", "build"]},
                                                runtime="codex")
    assert d.effect is Effect.DENY
    assert (row["effect"], row["rule"], row["file"], row["line"]) == (
        d.effect.value, d.rule.text, ".codex/rules/acme.rules", 24)
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(repo), str(log)], out, err) == 2
    assert "several runtimes" in err.getvalue()


def test_diff_with_a_runtime(repo: Path, tmp_path: Path) -> None:
    old, _ = three_runtimes(tmp_path / "old")
    for folder in (old, repo):  # the team's Gemini policy stays in the home's user tier only
        shutil.rmtree(folder / ".gemini" / "policies")
    home = Path(os.environ["HOME"])  # the CLI's home trusts the old copy too
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write(f'[projects."{old.resolve()}"]\ntrust_level = "trusted"\n')
    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.write_text(json.dumps({**json.loads(trusted.read_text()),
                                   str(old.resolve()): "TRUST_FOLDER"}))
    out, err = io.StringIO(), io.StringIO()
    assert main(["diff", str(old), str(repo), "--runtime", "codex", "--format", "json",
                 "--fail-on-new-access"], out, err) == 0
    assert "0 cell(s) changed" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["diff", str(old), str(repo), "--runtime", "nope"], out, err) == 2
    assert "no permission engine for runtime 'nope'" in err.getvalue()
