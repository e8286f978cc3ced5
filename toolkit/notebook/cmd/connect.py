"""``%tk connect [NAME ...] [--timeout S] [--locked]``: connect MCP servers; the status table."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ._parser import MagicParser, configured, positive_seconds
from ._registry import MagicState, subcommand

if TYPE_CHECKING:
    import pandas as pd

    from ...runtime.project import Project

PARSER = MagicParser("connect", "Connect the project's MCP servers (all, or those named) "
                                "concurrently; a failing one is marked, the rest carry on.")
PARSER.add_argument("names", nargs="*")
PARSER.add_argument("--timeout", type=positive_seconds, default=None,
                    help="seconds per server (default: %%config ToolkitMagics.connect_timeout)")
PARSER.add_argument("--locked", action="store_true",
                    help="keep tools that differ from toolmatrix.lock out (fails listing them)")


@subcommand("connect", "connect")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.connect(...)``: the servers DataFrame (an unknown name is a usage error)."""
    args = PARSER.parse(rest)
    project = magics.require_project()
    timeout = args.timeout or configured("connect_timeout", magics.connect_timeout,
                                         positive_seconds)
    with progress(project, args.names or list(project.server_configs)):
        return project.connect(args.names or None, timeout=timeout, locked=args.locked)


@contextmanager
def progress(project: Project, names: list[str]) -> Iterator[Any]:
    """A progress bar while several servers connect (each one that answers or fails moves
    it), replaced by one line when done; nothing (None) for a single server."""
    if len(names) < 2:
        yield None
        return
    import ipywidgets as w
    from IPython.display import display

    bar = w.IntProgress(max=len(names), description="connecting", bar_style="info")
    handle = display(bar, display_id=True)  # type: ignore[no-untyped-call]

    def moved(entry: dict[str, Any] | None) -> bool:
        if entry is not None and entry.get("event") in ("server-connected", "server-failure") \
                and entry.get("outcome") in ("connected", "failed"):
            bar.value = min(bar.max, bar.value + 1)
        return entry is not None

    unsubscribe = project.audit_log.subscribe(moved)
    started = time.monotonic()
    try:
        yield bar
    finally:
        unsubscribe()
        seconds = time.monotonic() - started
        line = f"{bar.value} of {len(names)} server(s) answered in {seconds:.1f} s"
        if handle is not None:
            handle.update({"text/plain": line}, raw=True)
        bar.close()
