"""Real processes for tests: free loopback ports, descendants, the npm test server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NPM_CACHE = ROOT / ".cache" / "npm"
EVERYTHING = NPM_CACHE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" \
    / "index.js"
EVERYTHING_VERSION = "2026.8.31"
#: Preloaded into node so a server that calls listen(port) binds 127.0.0.1 only.
LOOPBACK_CJS = Path(__file__).with_name("loopback.cjs")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Wait until 127.0.0.1:port accepts connections (bounded); fail if the process died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


@contextmanager
def running(argv: list[str], port: int, env: dict[str, str] | None = None,
            timeout: float = 30.0) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process until the block ends (then terminate, then kill)."""
    proc = subprocess.Popen(argv, env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_for_port(port, proc, timeout)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def descendants(pid: int | None = None) -> list[int]:
    """Live (non-zombie) descendant pids of ``pid`` (default: this process), from /proc."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    states: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        states[int(entry)] = fields[0]
        children.setdefault(int(fields[1]), []).append(int(entry))
    out: list[int] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if states.get(child) != "Z":
                out.append(child)
            stack.append(child)
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie), from /proc."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_dead(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Wait (bounded) until every pid in ``pids`` is dead; returns those still alive."""
    deadline = time.monotonic() + timeout
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if alive(p)]
    return left


def wait_no_descendants(timeout: float = 10.0, pid: int | None = None) -> list[int]:
    """Wait (bounded) until ``pid`` has no live descendants; returns those left."""
    deadline = time.monotonic() + timeout
    left = descendants(pid)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = descendants(pid)
    return left


def ensure_everything() -> Path:
    """Install @modelcontextprotocol/server-everything with npm into .cache/npm (once)."""
    if EVERYTHING.exists():
        return EVERYTHING
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to install @modelcontextprotocol/server-everything")
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(NPM_CACHE),
                    f"@modelcontextprotocol/server-everything@{EVERYTHING_VERSION}"],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)
    return EVERYTHING


def node() -> str:
    """The node executable."""
    exe = shutil.which("node")
    if exe is None:
        raise RuntimeError("node is needed to run @modelcontextprotocol/server-everything")
    return exe


def demo_server_argv(*args: str) -> list[str]:
    """argv of the shipped demo MCP server."""
    return [sys.executable, "-m", "toolkit.examples.demo_server", *args]
