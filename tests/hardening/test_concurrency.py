"""Concurrency and kernels: 8 threads x 1,000 calls through sessions sharing one server give
exactly 8,000 whole JSON lines in the audit file; a Jupyter kernel started with nbclient,
connected to stdio servers, leaves no process behind when shut down or SIGKILLed."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

import toolkit as tk
from tests.support.faults import raw
from tests.support.procs import descendants, wait_dead, wait_no_descendants

Write = Callable[..., Path]
ROOT = Path(__file__).resolve().parents[2]
THREADS, CALLS = 8, 1000


@pytest.mark.slow
def test_eight_threads_thousand_calls_each_give_exactly_8000_audit_lines(
        write: Write, tmp_path: Path) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"srv": raw("ok"), "two": raw("ok")}}),
                  "a.md": "---\nname: a\ntools: ['@srv/echo', '@two/echo']\n---\n"})
    proj = tk.load(root)
    proj.connect()
    sessions = [proj.start("a") for _ in range(THREADS)]
    log = tmp_path / "audit.jsonl"
    proj.audit_log.write_to(log)  # from here on, only the calls are audited
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def worker(n: int, session: tk.Session) -> None:
        try:
            barrier.wait()
            for i in range(CALLS):
                text = f"{n}:{i}"
                if i % 4 == 3:  # a quarter are blocked: audited, never sent
                    try:
                        session.call("@srv/crash", {"text": text})
                    except tk.ToolNotFoundError:
                        continue
                    raise AssertionError("a blocked call went through")
                server = "srv" if i % 2 else "two"
                assert session.call(f"@{server}/echo", {"text": text}).text == text
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n, s)) for n, s in enumerate(sessions)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    elapsed = time.monotonic() - started
    assert errors == []
    proj.close()
    lines = log.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]  # every line is one whole JSON object
    calls = [e for e in events if e["event"] == "call"]
    assert len(calls) == THREADS * CALLS == 8000
    assert Counter(e["agent_id"] for e in calls) == {s.id: CALLS for s in sessions}
    assert Counter(e["outcome"] for e in calls) == {"allowed": 6000, "blocked": 2000}
    seen = {e["args"]["text"] for e in calls if e["outcome"] == "allowed"}
    assert len(seen) == 6000  # none lost, none duplicated
    assert len(proj.audit_log.frame(event="call")) == 8000
    assert wait_no_descendants() == []
    print(f"\nconcurrency: 8000 calls in {elapsed:.1f} s; audit lines expected 8000, "
          f"found {len(calls)}")


KERNEL_CELL = """
import os, sys
sys.path.insert(0, {repo!r})
import toolkit as tk
from tests.support.procs import descendants
proj = tk.load({root!r})
status = proj.connect()
s = proj.start("a")
assert s.call("@srv/echo", {{"text": "k"}}).text == "k"
assert (await s.acall("@two/echo", {{"text": "k2"}})).text == "k2"
print("STATE", ",".join(status["state"]))
print("PIDS", os.getpid(), *descendants())
"""


def _kernel_run(root: Path) -> tuple[NotebookClient, Any, int, list[int]]:
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(KERNEL_CELL.format(repo=str(ROOT),
                                                                 root=str(root))))
    client = NotebookClient(nb, kernel_name="python3", timeout=120,
                            kernel_manager_class=KernelManager,
                            resources={"metadata": {"path": str(ROOT)}})
    km = client.create_kernel_manager()
    client.start_new_kernel(cwd=str(ROOT))
    client.start_new_kernel_client()
    client.execute_cell(nb.cells[0], 0)
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert "STATE connected,connected" in text, text
    pids_line = next(line for line in text.splitlines() if line.startswith("PIDS"))
    kernel_pid, *servers = (int(p) for p in pids_line.split()[1:])
    assert len(servers) >= 2 and all(p in descendants() for p in servers)
    return client, km, kernel_pid, servers


@pytest.fixture
def kernel_root(write: Write) -> Path:
    return write({".mcp.json": json.dumps({"mcpServers": {"srv": raw("ok"), "two": raw("ok")}}),
                  "a.md": "---\nname: a\ntools: ['@srv/echo', '@two/echo']\n---\n"})


@pytest.mark.slow
def test_kernel_shutdown_leaves_no_orphan(kernel_root: Path) -> None:
    client, km, kernel_pid, servers = _kernel_run(kernel_root)
    client.kc.stop_channels()
    km.shutdown_kernel(now=False)  # a polite shutdown: the kernel's interpreter exits
    assert wait_dead([kernel_pid, *servers], timeout=15.0) == []
    assert wait_no_descendants() == []


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux")
def test_kernel_killed_with_sigkill_leaves_no_orphan(kernel_root: Path) -> None:
    client, km, kernel_pid, servers = _kernel_run(kernel_root)
    os.kill(kernel_pid, signal.SIGKILL)
    # PR_SET_PDEATHSIG ends the servers with their host
    assert wait_dead(servers, timeout=15.0) == []
    client.kc.stop_channels()
    km.shutdown_kernel(now=True)
    assert wait_no_descendants() == []
