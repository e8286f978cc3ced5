"""Agent switching with connection scope ``agent``, ambiguous names across servers,
and the sync and async APIs inside a real Jupyter kernel."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.procs import descendants, wait_no_descendants

Write = Callable[..., Path]
DEMO = {"command": "python", "args": ["-m", "toolkit.examples.demo_server", "--tools",
                                      "echo,read_file"]}


def test_switch_under_agent_scope_tears_down_and_rebuilds_connections(examples: Path,
                                                                      tmp_path: Path) -> None:
    root = tmp_path / "work-agent"
    shutil.copytree(examples / "work-agent", root)
    proj = tk.load(root)
    assert proj.connection_scope == "agent"
    proj.connect()
    coder = proj.switch("coder")
    assert "@files/read_file" in coder.allowed  # through the alias "read" as well
    assert '"kind": "builtin"' in coder.call("read", {"path": "catalog.json"}).text
    first = set(descendants())
    assert first
    reviewer = proj.switch("reviewer")
    assert coder.closed and reviewer.id == "reviewer"
    second = set(descendants())
    assert second and not first & second  # the old server process is gone, a new one runs
    teardowns = proj.audit_log.frame(event="teardown")
    assert "files: connection closed" in set(teardowns["reason"])
    proj.close()
    assert wait_no_descendants() == []


def test_shared_scope_keeps_connections_across_switch_and_spawn(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"s": DEMO}}),
                  "toolkit.yaml": "preset: mux\n",
                  "a.md": "---\nname: a\n---\n", "b.md": "---\nname: b\ntools: ['@s/echo']\n---\n"})
    proj = tk.load(root)
    assert proj.connection_scope == "shared"
    proj.connect()
    before = set(descendants())
    a = proj.switch("a")
    child = a.spawn("b")
    assert child.call("echo", {"text": "shared"}).text == "shared"  # children share them
    proj.switch("b")
    assert set(descendants()) == before
    proj.close()


def test_ambiguous_bare_name_across_servers_is_a_definition_error(write: Write) -> None:
    root = write({".mcp.json": json.dumps({"mcpServers": {"one": DEMO, "two": DEMO}}),
                  "agent.md": "---\nname: agent\ntools: [echo]\n---\n"})
    proj = tk.load(root)  # names under servers are checked once they are discovered
    proj.connect()
    with pytest.raises(tk.DefinitionError) as exc:
        proj.start("agent")
    message = str(exc.value)
    assert exc.value.problems[0].file == "agent.md" and exc.value.problems[0].line == 3
    assert "'echo', which is ambiguous" in message and "@one/echo, @two/echo" in message
    proj.close()


KERNEL_CODE = """
import toolkit as tk
proj = tk.load({root!r})
proj.connect()
s = proj.start("agent")
sync_text = s.call("echo", {{"text": "sync"}}).text
async_text = (await s.acall("echo", {{"text": "async"}})).text
try:
    s.call("read_file", {{"path": "x"}})
except tk.ToolNotFoundError as exc:
    blocked = str(exc)
proj.close()
print(sync_text, async_text, blocked, sep="|")
"""


def test_sync_and_async_api_inside_a_running_jupyter_kernel(write: Write) -> None:
    from jupyter_client.manager import start_new_kernel

    root = write({".mcp.json": json.dumps({"mcpServers": {"s": DEMO}}),
                  "agent.md": "---\nname: agent\ntools: ['@s/echo']\n---\n"})
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        output: list[str] = []
        reply = kc.execute_interactive(textwrap.dedent(KERNEL_CODE.format(root=str(root))),
                                       timeout=120,
                                       output_hook=lambda m: output.append(
                                           m["content"].get("text", "")
                                           if m["msg_type"] == "stream" else ""))
        assert reply["content"]["status"] == "ok", reply["content"]
        assert "".join(output).strip() == "sync|async|tool not found: read_file"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
