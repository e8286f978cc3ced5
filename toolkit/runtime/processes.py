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

__all__ = ["kill_process_group"]


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
