"""Ending child processes: the one process-group kill the runtime uses.

Built-in commands (``shell_exec``) and stdio MCP servers both run as the
leader of their own process group, so that everything they start can be ended
with one signal, grandchildren included.

>>> kill_process_group(0)  # not a group we own: nothing happens
False
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

__all__ = ["kill_process_group", "wait_group_gone"]


def kill_process_group(pgid: int) -> bool:
    """SIGKILL every process in group ``pgid``; False when there was nothing to kill.

    Group ids 0 and 1 are refused (they would mean "our own group" and init's),
    as are platforms without process groups. A group that has already ended is
    the expected case after a clean exit, not an error: the answer is False.
    """
    if pgid <= 1 or not hasattr(os, "killpg"):
        return False
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False  # every member has exited already
    except PermissionError:
        return False  # the id was reused by someone else's group: not ours to end
    return True


def wait_group_gone(pgid: int, timeout: float = 2.0) -> bool:
    """Wait until no live process is left in group ``pgid`` (Linux); False on timeout.

    SIGKILL is delivered asynchronously: right after ``killpg`` a member may
    still be running for a moment. Callers that promise "nothing outlives the
    call" wait here. Zombies count as gone (they run no code; init reaps them).
    Without ``/proc`` there is nothing to look at and the answer is True.
    """
    proc = Path("/proc")
    if pgid <= 1 or not proc.is_dir():
        return True
    deadline = time.monotonic() + timeout
    while _live_members(proc, pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True


def _live_members(proc: Path, pgid: int) -> bool:
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended while we looked
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False
