"""Kernel > Interrupt during ``%tk connect`` (issue 23 item 6) and the connect line
(item 9), in a real Jupyter kernel with real MCP servers: one answers at once, one is
the demo server started with ``--startup-delay`` (a real server that is slow to answer).

An interrupt cancels the pending connect, stops that server's process, and prints one
line; no traceback. Without an interrupt the line counts connected and failed servers
("1 connected, 1 failed (broken)"), not "2 of 2 answered".
"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.procs import descendants

Write = Callable[..., Path]
FAST = {"command": "python", "args": ["-m", "toolkit.examples.demo_server", "--tools", "echo"]}
SLEEPY = {"command": "python", "args": ["-m", "toolkit.examples.demo_server", "--tools", "echo",
                                        "--startup-delay", "120"]}
BROKEN = {"command": "python", "args": ["-c", "import sys; sys.exit('cannot open config')"]}


@pytest.fixture
def kernel() -> Iterator[tuple[Any, Any]]:
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run_cell(kc: Any, code: str, *, until: Callable[[list[str]], bool] | None = None,
             then: Callable[[], None] | None = None, timeout: float = 120.0
             ) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
    """Execute ``code``; collect text outputs (streams, display/update text, widget label
    values) until the kernel is idle. When ``until(texts)`` first holds, call ``then()``."""
    msg_id = kc.execute(code)
    texts: list[str] = []
    errors: list[dict[str, Any]] = []
    fired = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            texts.append(content["text"])
        elif kind in ("display_data", "update_display_data", "execute_result"):
            texts.append(content.get("data", {}).get("text/plain", ""))
        elif kind in ("comm_open", "comm_msg"):
            state = content.get("data", {}).get("state", {})
            if isinstance(state.get("value"), str):
                texts.append(state["value"])
        elif kind == "error":
            errors.append(content)
        elif kind == "status" and content["execution_state"] == "idle":
            break
        if until is not None and not fired and until(texts) and then is not None:
            fired = True
            then()
    reply = kc.get_shell_msg(timeout=30)
    return reply["content"], texts, errors


def test_interrupt_during_connect_stops_the_slow_server_and_prints_one_line(
        write: Write, kernel: tuple[Any, Any]) -> None:
    km, kc = kernel
    root = write({".mcp.json": json.dumps({"mcpServers": {"fast": FAST, "sleepy": SLEEPY}}),
                  "a.md": "---\nname: a\ntools: ['@fast/echo']\n---\n"})
    reply, _, _ = run_cell(kc, f"%load_ext toolkit\n%tk load {root}")
    assert reply["status"] == "ok", reply
    kernel_pid = km.provisioner.process.pid

    reply, texts, errors = run_cell(
        kc, "%tk connect --timeout 100",
        until=lambda t: any("waiting for sleepy" in x and x.startswith("1/2") for x in t),
        then=km.interrupt_kernel)

    assert errors == []  # no KeyboardInterrupt traceback
    assert reply["status"] == "ok", reply
    lines = [t for t in texts if t.startswith("interrupted after")]
    assert len(lines) == 1 and lines[0].endswith("1 connected, 1 stopped (sleepy)"), texts
    # The slow server's process is gone; the fast one still runs.
    servers = [p for p in descendants(kernel_pid)
               if "demo_server" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")]
    cmdlines = [Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                for p in servers]
    assert len(cmdlines) == 1 and "--startup-delay" not in cmdlines[0], cmdlines
    reply, texts, _ = run_cell(kc, "m = get_ipython().magics_manager.registry['ToolkitMagics']\n"
                                   "s = m.project.servers.loc['sleepy']\n"
                                   "print(s['state'], '|', s['last_error'])")
    assert "".join(texts).strip() == "failed | connect interrupted before the server answered"


def test_connect_line_counts_connected_and_failed_servers(write: Write,
                                                         kernel: tuple[Any, Any]) -> None:
    _, kc = kernel
    root = write({".mcp.json": json.dumps({"mcpServers": {"fast": FAST, "broken": BROKEN}}),
                  "a.md": "---\nname: a\ntools: ['@fast/echo']\n---\n"})
    reply, _, _ = run_cell(kc, f"%load_ext toolkit\n%tk load {root}")
    assert reply["status"] == "ok", reply
    reply, texts, errors = run_cell(kc, "%tk connect --timeout 60")
    assert reply["status"] == "ok" and errors == [], (reply, errors)
    done = [t for t in texts if " in " in t and t.endswith(" s") and "connected" in t]
    assert done and done[-1].startswith("1 connected, 1 failed (broken) in "), texts
    # The progress label counted like tqdm on its way.
    assert any(t.startswith("0/2 · waiting for fast, broken · ") for t in texts), texts
