"""A closed project says so when it is used, and closing twice is harmless."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.support.faults import raw
from tests.support.procs import descendants, wait_no_descendants

Write = Callable[..., Path]

AGENT = "---\nname: a\ntools: ['@srv/*', 'fs_read']\n---\n"
TOOLS = "tool:\n  fs_read: {builtinPolicy: {name: fs_read}}\n"


@pytest.fixture
def root(write: Write) -> Path:
    return write({".mcp.json": json.dumps({"mcpServers": {"srv": raw("ok")}}),
                  "tools.yaml": TOOLS, "a.md": AGENT, "notes.txt": "notes\n"})


def test_a_connected_project_refuses_every_runtime_use_after_close(root: Path) -> None:
    proj = tk.load(root)
    proj.connect()
    session = proj.start("a")
    assert session.call("@srv/echo", {"text": "before"}).text == "before"
    assert descendants()
    proj.close()
    assert proj.closed and session.closed
    assert wait_no_descendants() == []

    # Before, connect() here failed with "RuntimeError: This task group is not active".
    uses: list[Callable[[], object]] = [
        proj.connect,
        lambda: asyncio.run(proj.aconnect()),
        lambda: proj.start("a"),
        lambda: proj.switch("a"),
        lambda: proj.ping("srv"),
        lambda: session.call("@srv/echo", {"text": "after"}),
        lambda: session.call("fs_read", {"path": "notes.txt"}),
        lambda: session.spawn("a"),
    ]
    for use in uses:
        with pytest.raises(tk.ProjectClosedError, match=r"is closed.*load it again") as exc:
            use()
        assert isinstance(exc.value, tk.ToolkitError) and isinstance(exc.value, RuntimeError)
        assert str(root) in str(exc.value)
    assert descendants() == []  # nothing was started again

    proj.close()  # twice: harmless
    proj.close()
    # What needs no runtime stays readable.
    assert "@srv/echo" not in proj.tools and "fs_read" in proj.resolve("a").allowed
    assert proj.servers.loc["srv", "state"] == "configured"
    assert (proj.audit["event"] == "teardown").any()


def test_a_project_closed_before_it_connected_says_so_too(root: Path) -> None:
    proj = tk.load(root)
    proj.close()
    with pytest.raises(tk.ProjectClosedError, match="load it again"):
        proj.connect()
    with pytest.raises(tk.ProjectClosedError):
        proj.start("a")
    assert descendants() == []


def test_a_project_used_as_a_context_manager_is_closed_after_the_block(root: Path) -> None:
    with tk.load(root) as proj:
        session = proj.start("a")
        assert session.call("fs_read", {"path": "notes.txt"}).text == "notes\n"
    with pytest.raises(tk.ProjectClosedError):
        session.call("fs_read", {"path": "notes.txt"})
    proj.close()  # after __exit__ closed it: still harmless
