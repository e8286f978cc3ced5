"""A folder with no definitions says so, and what it holds (issue 23 item 12), in
``tk.load``, ``toolmatrix check`` and ``%tk load``; folders that define something do not."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

from .conftest import TestingShell

DEMO_SERVER = Path(tk.__file__).parent / "examples" / "demo_server"
EMPTY = "no agent or tool definitions found in this folder"


def test_a_folder_of_code_is_an_empty_project_that_says_so() -> None:
    proj = tk.load(DEMO_SERVER)
    assert not (proj.agents or proj.tools or proj.server_configs)
    [problem] = proj.warnings
    assert problem.file == str(DEMO_SERVER) and problem.severity == "warning"
    assert problem.message.startswith(f"{EMPTY}; it holds ")
    assert " .py" in problem.message  # what the folder holds instead, counted by suffix


def test_toolmatrix_check_warns(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "src").mkdir()
    for name in ("a.py", "b.py"):
        (tmp_path / "src" / name).write_text("")
    done = subprocess.run([sys.executable, "-m", "toolkit.cli", "check", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{tmp_path}: {EMPTY}; it holds 2 .py, 1 .txt file(s)" in done.stdout + done.stderr


def test_percent_tk_load_warns(ip: TestingShell, capsys: pytest.CaptureFixture[str],
                               tmp_path: Path) -> None:
    ip.run_cell(f"%tk load {tmp_path}")
    assert capsys.readouterr().err == f"warning: {tmp_path}: {EMPTY}; it is empty; toolkit " \
        "reads agent files, tool registries, MCP server configs and settings\n"


@pytest.mark.parametrize("files", [
    {".mcp.json": json.dumps({"mcpServers": {"kg": {"command": "true"}}})},
    {".claude/settings.json": json.dumps({"permissions": {"deny": ["Bash(curl *)"]}})},
    {"toolkit.yaml": "preset: strict\n"},
    {"agent.md": "---\nname: a\ntools: []\n---\n"},
])
def test_folders_that_define_something_do_not_warn(write: Callable[..., Path],
                                                   files: dict[str, str]) -> None:
    proj = tk.load(write(files))
    assert not [p for p in proj.warnings if EMPTY in p.message]
