"""Issue 23 item 13 (the last of notebook 05's three warnings): replaying calls that log no
groups evaluates them under the default request, which nobody asked for by name, so an
unknown-group warning about 'default' is noise; a group the log does request and no tool
has is still warned about."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

import toolkit as tk

Write = Callable[..., Path]
FILES = {"tools.yaml": "tool:\n  lookup: {groups: [read-only]}\n  wipe: {groups: [admin]}\n",
         "agents/a.md": "---\nname: a\ntools: ['*']\n---\n"}


def test_calls_without_groups_do_not_warn_about_the_default_group(write: Write) -> None:
    proj = tk.load(write(FILES))
    calls = pd.DataFrame({"agent": ["a", "a"], "tool": ["lookup", "wipe"]})
    rp = tk.replay(proj, calls)
    assert len(rp.calls) == 2
    assert not [w for w in rp.warnings if "'default'" in w], rp.warnings


def test_a_logged_group_that_no_tool_has_is_still_warned_about(write: Write) -> None:
    proj = tk.load(write(FILES))
    calls = pd.DataFrame({"agent": ["a"], "tool": ["lookup"], "groups": [["read-only", "nope"]]})
    rp = tk.replay(proj, calls)
    assert [w for w in rp.warnings if w.startswith("requested group 'nope' ")], rp.warnings
