"""Built-in tools and their policies, called through sessions."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.procs import wait_no_descendants

Write = Callable[..., Path]

TOOLS = """
tool:
  fs_read: {builtinPolicy: {name: fs_read, allowedPaths: [workspace]}}
  fs_write: {builtinPolicy: {name: fs_write, allowedPaths: [workspace]}}
  shell_exec:
    builtinPolicy: {name: shell_exec, allowedCommands: [echo, sleep, sh, 'yes'], timeout: 1,
                    maxOutputBytes: 4096}
  read_file: {}
  list_directory: {}
  get_file_info: {}
  execute_command: {}
  google_search: {}
"""


@pytest.fixture
def session(write: Write) -> tk.Session:
    root = write({"tools.yaml": TOOLS, "agent.md": "---\nname: agent\ntools: ['*']\n---\n",
                  "workspace/notes.txt": "hello notes\n", "secret.txt": "top secret\n"})
    (root / "workspace" / "escape").symlink_to(root / "secret.txt")
    return tk.load(root).start("agent")


def test_fs_read_inside_allowed_paths(session: tk.Session) -> None:
    result = session.call("fs_read", {"path": "workspace/notes.txt"})
    assert (result.is_error, result.text) == (False, "hello notes\n")


@pytest.mark.parametrize("path", ["secret.txt", "workspace/../secret.txt", "/etc/passwd",
                                  "workspace/escape", "/proc/self/root/etc/passwd",
                                  "workspace/notes.txt\x00", "workspace/missing"])
def test_fs_read_refuses_paths_outside(session: tk.Session, path: str) -> None:
    result = session.call("fs_read", {"path": path})
    assert result.is_error and result.text.startswith("refused: ")
    assert "top secret" not in result.text and "root:" not in result.text


def test_fs_write_inside_and_refused_outside(session: tk.Session) -> None:
    base = session.project.base_dir
    ok = session.call("fs_write", {"path": "workspace/out.txt", "content": "data"})
    assert not ok.is_error and (base / "workspace" / "out.txt").read_text() == "data"
    bad = session.call("fs_write", {"path": "out.txt", "content": "x"})
    assert bad.is_error and not (base / "out.txt").exists()
    through_link = session.call("fs_write", {"path": "workspace/escape", "content": "pwned"})
    assert through_link.is_error
    assert (base / "secret.txt").read_text() == "top secret\n"


def test_adh_cli_names_default_to_project_folder(session: tk.Session) -> None:
    assert session.call("read_file", {"path": "secret.txt"}).text == "top secret\n"
    listing = session.call("list_directory", {"path": "workspace"})
    assert listing.structured_content is not None
    assert listing.structured_content["entries"] == ["escape", "notes.txt"]
    info = session.call("get_file_info", {"path": "workspace/notes.txt"})
    assert info.structured_content is not None and info.structured_content["size"] == 12
    assert session.call("read_file", {"path": "/etc/hostname"}).is_error


def test_shell_exec_runs_allowed_command_without_shell(session: tk.Session) -> None:
    result = session.call("shell_exec", {"command": "echo hi; rm -rf / && $(id) `id` > x"})
    assert not result.is_error
    assert result.text == "hi; rm -rf / && $(id) `id` > x\n"
    assert not (session.project.base_dir / "x").exists()


def test_shell_exec_refuses_other_commands(session: tk.Session) -> None:
    for command in ["rm -rf workspace", "/bin/rm x", "./echo", "python -c 1"]:
        result = session.call("shell_exec", {"command": command})
        assert result.is_error and "refused" in result.text, command
    assert (session.project.base_dir / "workspace").exists()


def test_shell_exec_timeout_kills_the_process_tree(session: tk.Session) -> None:
    started = time.monotonic()
    result = session.call("shell_exec", {"command": ["sh", "-c", "sleep 30 & sleep 30"]})
    assert time.monotonic() - started < 10
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["timed_out"] is True
    assert wait_no_descendants(timeout=5) == []


def test_shell_exec_background_child_does_not_outlive_the_call(session: tk.Session) -> None:
    result = session.call("shell_exec", {"command": ["sh", "-c", "sleep 30 & echo started"]})
    assert result.text.startswith("started")
    assert wait_no_descendants(timeout=5) == []


def test_shell_exec_output_cap(session: tk.Session) -> None:
    result = session.call("shell_exec", {"command": "yes"})
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["truncated"] is True
    assert len(result.text.encode()) < 4096 + 200


def test_execute_command_without_policy_allows_nothing(session: tk.Session) -> None:
    result = session.call("execute_command", {"command": "echo hi"})
    assert result.is_error and "no allowedCommands" in result.text


def test_native_tool_resolves_but_is_not_executable(session: tk.Session) -> None:
    assert "google_search" in session.allowed
    result = session.call("google_search", {"query": "x"})
    assert result.is_error and "not executable here" in result.text


def test_path_hijack_of_allowed_name_is_ignored(session: tk.Session, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "echo").write_text("#!/bin/sh\ntouch HIJACKED\n")
    os.chmod(fake / "echo", 0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    result = session.call("shell_exec", {"command": "echo safe"})
    assert result.text == "safe\n"
    assert not (session.project.base_dir / "HIJACKED").exists()
