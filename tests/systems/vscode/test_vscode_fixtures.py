"""Real ``.vscode/settings.json`` files with ``chat.tools.terminal.autoApprove`` from public
repositories (tests/fixtures/vscode/SOURCES.md names each one's repository, path and commit):
each loads as a VS Code project and its entries decide the commands they were written for, each
deciding rule located at the line that writes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vscode"
FILES = ["blecx-ai-agent-framework.settings.json",
         "blecx-ai-agent-framework-client.settings.json"]


def project(tmp_path: Path, fixture: str) -> tk.Project:
    (tmp_path / ".vscode").mkdir()
    shutil.copy(FIXTURES / fixture, tmp_path / ".vscode" / "settings.json")
    (tmp_path / "tools.yaml").write_text("tool:\n  run_in_terminal: {}\n")
    return tk.load(tmp_path, home=False, managed=False)


def test_sources_name_every_fixture() -> None:
    sources = (FIXTURES / "SOURCES.md").read_text()
    assert sorted(p.name for p in FIXTURES.iterdir() if p.name != "SOURCES.md") == sorted(FILES)
    assert all(f"`{name}`" in sources for name in FILES)


@pytest.mark.parametrize("fixture", FILES)
def test_every_fixture_loads_as_a_vscode_project(tmp_path: Path, fixture: str) -> None:
    proj = project(tmp_path, fixture)
    assert proj.runtimes == ("vscode",)
    assert not proj.engines["vscode"].problems


@pytest.mark.parametrize(("fixture", "command", "key"), [
    # entries the files set to true, one sub-command each
    ("blecx-ai-agent-framework.settings.json", "git status --porcelain", '"git status"'),
    ("blecx-ai-agent-framework.settings.json", "rm -rf build", '"rm"'),  # unsets the default false
    ("blecx-ai-agent-framework-client.settings.json", "npm run lint", '"npm run lint"'),
    ("blecx-ai-agent-framework-client.settings.json", "curl -s https://x.test", '"curl"'),
    # every sub-command must be approved: each is, by its own entry
    ("blecx-ai-agent-framework-client.settings.json", "git diff | head -20", '"git diff"'),
])
def test_entries_decide_their_commands(tmp_path: Path, fixture: str, command: str,
                                       key: str) -> None:
    d = project(tmp_path, fixture).check_call("run_in_terminal", {"command": command})
    assert d.effect is Effect.ALLOW
    line = (FIXTURES / fixture).read_text().splitlines()[d.rule.line - 1]
    assert key in line and d.rule.file == ".vscode/settings.json"


def test_a_match_command_line_regex_approves_nearly_everything(tmp_path: Path) -> None:
    """blecx/AI-Agent-Framework-Client's "/^\\s*.+$/" entry ({"approve": true,
    "matchCommandLine": true}, "Low-friction mode: approve nearly all terminal command lines")
    approves a line whose sub-commands no entry approves."""
    fixture = "blecx-ai-agent-framework-client.settings.json"
    d = project(tmp_path, fixture).check_call(
        "run_in_terminal", {"command": "shred -u secrets.txt; reboot"})
    assert d.effect is Effect.ALLOW and d.rule.text.endswith("(matchCommandLine)")
    line = (FIXTURES / fixture).read_text().splitlines()[d.rule.line - 1]
    assert '"/^\\\\s*.+$/"' in line
