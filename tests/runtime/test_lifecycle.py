"""No orphan processes: after close, a server crash, interpreter exit, or SIGKILL of the host."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.procs import descendants, wait_dead, wait_no_descendants

Write = Callable[..., Path]


def time_server() -> str:
    return str(Path(sys.executable).with_name("mcp-server-time"))


@pytest.fixture
def root(write: Write) -> Path:
    return write({
        ".mcp.json": json.dumps({"mcpServers": {
            "time": {"command": time_server(), "env": {"WHO": "time"}},
            "time2": {"command": time_server(), "env": {"WHO": "time2"}},
        }}),
        "agent.md": "---\nname: agent\ntools: ['@time/*', '@time2/*']\n---\n",
    })


def test_close_leaves_no_child(root: Path) -> None:
    proj = tk.load(root)
    proj.connect()
    assert len(descendants()) >= 2
    proj.close()
    assert wait_no_descendants() == []


def test_server_crash_is_marked_and_leaves_no_orphan(root: Path) -> None:
    proj = tk.load(root)
    proj.connect()
    session = proj.start("agent")
    victim = proj.server_manager.connections["time"]
    pids = descendants()
    assert victim.state == "connected"
    # Kill the server process (the launcher exec'd into it, so it is our direct child).
    server_pid = next(p for p in pids if "WHO=time\0" in _environ(p))
    os.kill(server_pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while victim.state == "connected" and time.monotonic() < deadline:
        time.sleep(0.05)
    status = proj.servers
    assert status.loc["time", "state"] == "failed"
    assert status.loc["time2", "state"] == "connected"  # the other one carries on
    assert "@time/get_current_time" not in proj.tools
    assert proj.audit_log.frame(event="server-failure")["outcome"].tolist() == ["down"]
    with pytest.raises(tk.ServerError):
        session.call("@time/get_current_time", {"timezone": "UTC"})  # snapshot still has it
    assert not session.call("@time2/get_current_time", {"timezone": "UTC"}).is_error
    proj.close()
    assert wait_no_descendants() == []


def _environ(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/environ").read_text(errors="replace")
    except OSError:
        return ""


HOST = textwrap.dedent("""
    import sys, toolkit as tk
    proj = tk.load(sys.argv[1])
    proj.connect()
    print(" ".join(str(c) for c in sorted(__import__("tests.support.procs", fromlist=["x"])
                                            .descendants())), flush=True)
    if sys.argv[2] == "hang":
        import time
        time.sleep(60)
""")


def _host(root: Path, mode: str) -> tuple[subprocess.Popen[str], list[int]]:
    proc = subprocess.Popen([sys.executable, "-c", HOST, str(root), mode],
                            stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    assert proc.stdout is not None
    line = proc.stdout.readline()
    pids = [int(p) for p in line.split()]
    assert len(pids) >= 2, line
    return proc, pids


def test_interpreter_exit_without_close_leaves_no_orphan(root: Path) -> None:
    proc, pids = _host(root, "exit")
    assert proc.wait(timeout=30) == 0
    assert wait_dead(pids) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux")
def test_sigkill_of_host_leaves_no_orphan(root: Path) -> None:
    proc, pids = _host(root, "hang")
    proc.kill()
    proc.wait(timeout=10)
    assert wait_dead(pids) == []
