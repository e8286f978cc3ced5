"""``%tk convert --to R [--source R]`` (issue 22 part 2): the Conversion ``tk.convert`` returns,
shown with its losses and differences as tables, every rule and command escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import toolkit as tk
from toolkit.analysis.convert import Conversion

from .conftest import TestingShell

#: a rule text a hostile settings file could hold: it must reach the page as text
HOSTILE = "Bash(echo <script>alert(1)</script>:*)"
SETTINGS = {"permissions": {"allow": ["Bash(git status)", "Bash(npm run test:*)"],
                            "ask": ["Bash(git push:*)"],
                            "deny": ["Bash(rm -rf:*)", "Read(./.env)", HOSTILE]}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2))
    return root


def test_magic_convert_returns_the_conversion(ip: TestingShell, project: Path) -> None:
    ip.run_cell(f"%tk load {project} --no-home")
    ip.run_cell("c = %tk convert --to codex")
    conv = ip.user_ns["c"]
    assert isinstance(conv, Conversion)
    expected = tk.convert(tk.load(project, home=False), to="codex")
    assert conv.files == expected.files and conv.counts == expected.counts
    assert list(conv.losses["rule"]) == list(expected.losses["rule"])
    assert sorted(p.name for p in project.rglob("*")) == [".claude", "settings.json"]


def test_magic_convert_shows_losses_and_differences_escaped(ip: TestingShell,
                                                           project: Path) -> None:
    ip.run_cell(f"%tk load {project} --no-home")
    ip.run_cell("c = %tk convert --to gemini-cli")
    conv = ip.user_ns["c"]
    data, _ = ip.display_formatter.format(conv)
    html = data["text/html"]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert f"<h4>Losses ({len(conv.losses)})</h4>" in html
    assert f"<h4>Calls deciding differently ({len(conv.check)})</h4>" in html
    assert "~/.gemini/policies/converted.toml" in html
    text = data["text/plain"]
    assert text.startswith(conv.summary()) and "Read(./.env)" in text


def test_magic_convert_mistakes_are_usage_errors(ip: TestingShell, project: Path,
                                                 tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        ip.run_cell("%tk convert --to codex")  # no project loaded
    ip.run_cell(f"%tk load {project} --no-home")
    with pytest.raises(UsageError, match=r"^%tk convert: unknown target runtime 'vim'"):
        ip.run_cell("%tk convert --to vim")
    with pytest.raises(UsageError, match="the following arguments are required: --to"):
        ip.run_cell("%tk convert")
    empty = tmp_path / "empty"
    empty.mkdir()
    ip.run_cell(f"%tk load {empty} --no-home")
    with pytest.raises(UsageError, match=r"^%tk convert: no policy to convert"):
        ip.run_cell("%tk convert --to codex")
