"""Health: a periodic ping sets green / yellow / red."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

import toolkit as tk
from tests.support.procs import descendants, wait_no_descendants

Write = Callable[..., Path]


def test_health_check_green_then_red_when_the_server_dies(write: Write) -> None:
    exe = str(Path(sys.executable).with_name("mcp-server-time"))
    root = write({".mcp.json": json.dumps({"mcpServers": {
        "time": {"command": exe, "healthCheck": {"intervalSeconds": 0.2},
                 "env": {"WHO": "time"}},
        "plain": {"command": exe, "env": {"WHO": "plain"}},
    }})})
    proj = tk.load(root)
    status = proj.connect()
    assert status.loc["time", "health"] == "green"
    assert pd.isna(status.loc["plain", "health"])  # no healthCheck configured
    deadline = time.monotonic() + 10
    while proj.servers.loc["time", "latency_ms"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proj.servers.loc["time", "latency_ms"] > 0  # a periodic ping was answered
    assert proj.ping("time") == "green"
    for pid in descendants():
        if "WHO=time\0" in Path(f"/proc/{pid}/environ").read_text(errors="replace"):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while proj.servers.loc["time", "health"] != "red" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proj.servers.loc["time", "health"] == "red"
    assert proj.servers.loc["time", "state"] == "failed"
    assert proj.servers.loc["plain", "state"] == "connected"
    proj.close()
    assert wait_no_descendants() == []
