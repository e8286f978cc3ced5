"""The built-in escape corpus: attempts to get ``fs_read`` / ``fs_write`` / ``shell_exec``
outside their policies, called through a session as an agent would. 0 escapes.

An *escape* is: a secret outside the allowed paths read back, a file outside them
created or changed, a command outside the allow-list (or a shell) run, a process
that outlives the call, or output beyond the cap returned.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from tests.support.procs import descendants, wait_no_descendants

SECRET = "TOPSECRET-7f3a"

TOOLS = """
tool:
  fs_read: {builtinPolicy: {name: fs_read, allowedPaths: [workspace]}}
  fs_write: {builtinPolicy: {name: fs_write, allowedPaths: [workspace]}}
  shell_exec:
    builtinPolicy: {name: shell_exec, allowedCommands: [echo, ls, sleep, 'yes'], timeout: 1,
                    maxOutputBytes: 4096}
  tree_exec: {builtinPolicy: {name: shell_exec, allowedCommands: [sh], timeout: 0.5}}
"""


@dataclass
class Env:
    root: Path
    outside: Path  # a folder outside the project, for absolute-path writes
    session: tk.Session


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    root = tmp_path_factory.mktemp("escape-project")
    outside = tmp_path_factory.mktemp("escape-outside")
    (root / "tools.yaml").write_text(TOOLS)
    (root / "agent.md").write_text("---\nname: agent\ntools: ['*']\n---\n")
    ws = root / "workspace"
    ws.mkdir()
    (ws / "notes.txt").write_text("fine\n")
    (root / "secret.txt").write_text(SECRET + "\n")
    (outside / "secret.txt").write_text(SECRET + "\n")
    (ws / "link-out").symlink_to(root / "secret.txt")
    (ws / "link-abs").symlink_to("/etc/passwd")
    (ws / "dir-out").symlink_to(root)
    (ws / "loop1").symlink_to(ws / "loop2")
    (ws / "loop2").symlink_to(ws / "loop1")
    (ws / "hop").symlink_to("link-out")  # a chain of links that ends outside
    fake = root / "fakebin"
    fake.mkdir()
    script = fake / "echo"
    script.write_text(f"#!/bin/sh\ncat {root / 'secret.txt'}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (ws / "echo").symlink_to(script)
    proj = tk.load(root)
    session = proj.start("agent")
    yield Env(root, outside, session)
    proj.close()


def _snapshot(*folders: Path) -> dict[str, tuple[int, float]]:
    out = {}
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in filenames + dirnames:
                p = Path(dirpath) / name
                if "workspace" in p.relative_to(folder).parts[:1]:
                    continue  # writes inside the allowed path are allowed
                st = p.lstat()
                out[str(p)] = (st.st_size, st.st_mtime)
    return out


Check = Callable[[Env, Any], None]


def refused(env: Env, result: Any) -> None:
    assert result.is_error, result.text
    assert SECRET not in result.text and "root:x:0:0" not in result.text


def literal_echo(env: Env, result: Any) -> None:
    """The command ran as plain ``echo``: metacharacters were printed, not interpreted."""
    assert SECRET not in result.text and "uid=" not in result.text
    assert not result.is_error


def killed_in_time(env: Env, result: Any) -> None:
    assert result.is_error and result.structured_content["timed_out"]
    assert result.structured_content["elapsed_s"] < 5


def capped(env: Env, result: Any) -> None:
    assert result.is_error and result.structured_content["truncated"]
    assert len(result.text.encode()) <= 4096 + 200  # the cap plus the note


LONG = "workspace/" + "a/" * 3000 + "x"
DEEP_UP = "workspace/" + "../" * 200 + "etc/passwd"

#: (id, tool, args, check). Paths are relative to the project folder unless absolute.
CORPUS: list[tuple[str, str, dict[str, Any], Check]] = [
    # -- fs_read: traversal and absolute paths
    ("read-dotdot", "fs_read", {"path": "workspace/../secret.txt"}, refused),
    ("read-dotdot-deep", "fs_read", {"path": DEEP_UP}, refused),
    ("read-dotdot-only", "fs_read", {"path": "../secret.txt"}, refused),
    ("read-abs-etc", "fs_read", {"path": "/etc/passwd"}, refused),
    ("read-abs-secret", "fs_read", {"path": "<root>/secret.txt"}, refused),
    ("read-proc-self-root", "fs_read", {"path": "/proc/self/root/etc/passwd"}, refused),
    ("read-proc-self-root-secret", "fs_read", {"path": "/proc/self/root<root>/secret.txt"},
     refused),
    ("read-proc-self-cwd", "fs_read", {"path": "/proc/self/cwd/pyproject.toml"}, refused),
    ("read-proc-environ", "fs_read", {"path": "/proc/self/environ"}, refused),
    # -- fs_read: symlinks out and loops
    ("read-symlink-out", "fs_read", {"path": "workspace/link-out"}, refused),
    ("read-symlink-abs", "fs_read", {"path": "workspace/link-abs"}, refused),
    ("read-symlink-dir-out", "fs_read", {"path": "workspace/dir-out/secret.txt"}, refused),
    ("read-symlink-chain", "fs_read", {"path": "workspace/hop"}, refused),
    ("read-symlink-loop", "fs_read", {"path": "workspace/loop1"}, refused),
    # -- fs_read: NUL bytes, look-alikes, encodings, odd types, very long paths
    ("read-nul", "fs_read", {"path": "workspace/notes.txt\x00/../../secret.txt"}, refused),
    ("read-two-dot-leader", "fs_read", {"path": "workspace/\u2025/secret.txt"}, refused),
    ("read-fullwidth-dots", "fs_read", {"path": "workspace/\uff0e\uff0e/secret.txt"}, refused),
    ("read-one-dot-leaders", "fs_read", {"path": "workspace/\u2024\u2024/secret.txt"}, refused),
    ("read-fullwidth-slash", "fs_read", {"path": "workspace\uff0f..\uff0fsecret.txt"}, refused),
    ("read-percent-encoded", "fs_read", {"path": "workspace/%2e%2e/secret.txt"}, refused),
    ("read-backslashes", "fs_read", {"path": "workspace\\..\\secret.txt"}, refused),
    ("read-file-url", "fs_read", {"path": "file:///etc/passwd"}, refused),
    ("read-tilde", "fs_read", {"path": "~/../../etc/passwd"}, refused),
    ("read-very-long", "fs_read", {"path": LONG}, refused),
    ("read-list-path", "fs_read", {"path": ["..", "secret.txt"]}, refused),
    ("read-int-path", "fs_read", {"path": 7}, refused),
    # -- fs_write
    ("write-dotdot", "fs_write", {"path": "workspace/../pwned.txt", "content": "x"}, refused),
    ("write-abs-outside", "fs_write", {"path": "<outside>/pwned.txt", "content": "x"}, refused),
    ("write-over-secret-abs", "fs_write", {"path": "<outside>/secret.txt", "content": "x"},
     refused),
    ("write-through-symlink", "fs_write", {"path": "workspace/link-out", "content": "x"},
     refused),
    ("write-through-dir-symlink", "fs_write",
     {"path": "workspace/dir-out/pwned.txt", "content": "x"}, refused),
    ("write-symlink-loop", "fs_write", {"path": "workspace/loop1", "content": "x"}, refused),
    ("write-proc-self-root", "fs_write",
     {"path": "/proc/self/root<outside>/pwned.txt", "content": "x"}, refused),
    ("write-nul", "fs_write", {"path": "workspace/ok.txt\x00../../pwned.txt", "content": "x"},
     refused),
    ("write-very-long", "fs_write", {"path": LONG, "content": "x"}, refused),
    ("write-fullwidth-dots", "fs_write",
     {"path": "workspace/\uff0e\uff0e/pwned.txt", "content": "x"}, refused),
    # -- shell_exec: metacharacters are not interpreted (no shell)
    ("shell-semicolon", "shell_exec", {"command": "echo hi; cat <root>/secret.txt"},
     literal_echo),
    ("shell-and", "shell_exec", {"command": "echo hi && touch <root>/pwned"}, literal_echo),
    ("shell-or", "shell_exec", {"command": "false || touch <root>/pwned"}, refused),
    ("shell-subst", "shell_exec", {"command": "echo $(cat <root>/secret.txt)"}, literal_echo),
    ("shell-backticks", "shell_exec", {"command": "echo `id`"}, literal_echo),
    ("shell-redirect-out", "shell_exec", {"command": "echo x > <root>/pwned"}, literal_echo),
    ("shell-redirect-in", "shell_exec", {"command": "echo < <root>/secret.txt"}, literal_echo),
    ("shell-pipe", "shell_exec", {"command": "echo x | tee <root>/pwned"}, literal_echo),
    ("shell-newline", "shell_exec", {"command": "echo a\ncat <root>/secret.txt"},
     literal_echo),
    ("shell-args-metachar", "shell_exec",
     {"command": ["echo"], "args": ["$(id)", ";", "cat", "<root>/secret.txt"]}, literal_echo),
    # -- shell_exec: commands outside the allow-list, in any spelling
    ("shell-not-allowed", "shell_exec", {"command": "cat <root>/secret.txt"}, refused),
    ("shell-abs-not-allowed", "shell_exec", {"command": "/bin/cat <root>/secret.txt"}, refused),
    ("shell-sh-c", "shell_exec", {"command": ["sh", "-c", "cat <root>/secret.txt"]}, refused),
    ("shell-env-prefix", "shell_exec", {"command": "PATH=<root>/fakebin echo hi"}, refused),
    ("shell-cyrillic-e", "shell_exec", {"command": "\u0435cho hi"}, refused),
    ("shell-fullwidth", "shell_exec", {"command": "\uff45\uff43\uff48\uff4f hi"}, refused),
    ("shell-nul", "shell_exec", {"command": ["echo\x00cat", "<root>/secret.txt"]}, refused),
    ("shell-relative-fake", "shell_exec", {"command": "<root>/fakebin/echo"}, refused),
    ("shell-symlink-to-fake", "shell_exec", {"command": "<root>/workspace/echo"}, refused),
    ("shell-path-hijack", "shell_exec", {"command": "echo hijacked?"}, literal_echo),
    # -- shell_exec: time and size
    ("shell-timeout", "shell_exec", {"command": "sleep 30"}, killed_in_time),
    ("shell-output-flood", "shell_exec", {"command": "yes flood"}, capped),
]


def _fill(value: Any, env: Env) -> Any:
    if isinstance(value, str):
        return value.replace("<root>", str(env.root)).replace("<outside>", str(env.outside))
    if isinstance(value, list):
        return [_fill(v, env) for v in value]
    return value


ESCAPES: list[str] = []


@pytest.mark.parametrize(("tool", "args", "check"), [c[1:] for c in CORPUS],
                         ids=[c[0] for c in CORPUS])
def test_escape_attempt_is_contained(env: Env, tool: str, args: dict[str, Any], check: Check,
                                     monkeypatch: pytest.MonkeyPatch,
                                     request: pytest.FixtureRequest) -> None:
    # The caller's PATH leads with a fake ``echo`` that prints the secret (PATH hijack).
    monkeypatch.setenv("PATH", f"{env.root / 'fakebin'}:{os.environ.get('PATH', '')}")
    before = _snapshot(env.root, env.outside)
    try:
        result = env.session.call(tool, _fill(args, env))
        check(env, result)
        assert _snapshot(env.root, env.outside) == before  # nothing written outside
        assert not (env.root / "pwned").exists() and not (env.root / "pwned.txt").exists()
        assert wait_no_descendants(5) == []  # no process outlived the call
    except AssertionError:
        ESCAPES.append(request.node.callspec.id)
        raise
    assert (env.root / "secret.txt").read_text() == SECRET + "\n"


def test_process_tree_that_outlives_the_timeout_is_killed(env: Env) -> None:
    """``sh`` (allowed for this tool) starts background children that would outlive it."""
    script = "sleep 30 & echo bg=$!; (trap '' TERM; sleep 30) & echo bg=$!; sleep 30"
    result = env.session.call("tree_exec", {"command": ["sh", "-c", script]})
    killed_in_time(env, result)
    pids = [int(p) for p in re.findall(r"bg=(\d+)", result.text)]
    assert len(pids) == 2
    for pid in pids:
        stat_file = Path(f"/proc/{pid}/stat")
        assert not stat_file.exists() or stat_file.read_text().rsplit(")", 1)[1].split()[0] in (
            "Z", "X")
    assert descendants() == []


def test_corpus_size_and_escape_count() -> None:
    """At least 40 attempts (plus the process tree above); none escaped."""
    assert len(CORPUS) + 1 >= 40
    assert ESCAPES == []
    print(f"\nescape corpus: {len(CORPUS) + 1} attempts, {len(ESCAPES)} escaped")
