"""``%tk connect [NAME ...] [--timeout S] [--locked]``: connect MCP servers; the status table."""

from __future__ import annotations

import threading
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
    """``proj.connect(...)``: the servers DataFrame (an unknown name is a usage error).

    Kernel > Interrupt while servers connect cancels the pending connects (their
    processes are stopped), prints one line, and shows the servers as they are.
    """
    args = PARSER.parse(rest)
    project = magics.require_project()
    timeout = args.timeout or configured("connect_timeout", magics.connect_timeout,
                                         positive_seconds)
    names = args.names or list(project.server_configs)
    started = time.monotonic()
    try:
        with progress(project, names):
            return project.connect(args.names or None, timeout=timeout, locked=args.locked)
    except KeyboardInterrupt:
        if len(names) < 2:  # else the progress line says it
            print(f"interrupted after {time.monotonic() - started:.1f} s: "
                  f"{outcome(project, names, interrupted=True)}")
        return project.servers


def outcome(project: Project, names: list[str], *, interrupted: bool = False) -> str:
    """``2 connected, 1 failed (sleepy)`` for the servers ``names`` as they stand now."""
    states = {n: c.state for n, c in project.server_manager.connections.items() if n in names}
    connected = [n for n in names if states.get(n) == "connected"]
    failed = [n for n in names if states.get(n) == "failed"]
    others = [n for n in names if n not in connected and n not in failed]
    parts = [f"{len(connected)} connected"]
    if failed:
        word = "stopped" if interrupted else "failed"
        parts.append(f"{len(failed)} {word} ({', '.join(failed)})")
    if others:
        parts.append(f"{len(others)} not started ({', '.join(others)})")
    return ", ".join(parts)


@contextmanager
def progress(project: Project, names: list[str]) -> Iterator[Any]:
    """A progress bar while several servers connect, with a line like tqdm's
    (``1/2 · waiting for sleepy · 6 s``) that moves as each one answers or fails and
    every second, replaced by one line when done (``1 connected, 1 failed (sleepy) in
    6.2 s``); nothing (None) for a single server."""
    if len(names) < 2:
        yield None
        return
    import ipywidgets as w
    from IPython.display import display

    bar = w.IntProgress(max=len(names), description="connecting", bar_style="info")
    label = w.Label()
    box = w.HBox([bar, label])
    handle = display(box, display_id=True)  # type: ignore[no-untyped-call]
    started = time.monotonic()
    settled: set[str] = set()
    lock = threading.Lock()

    def show() -> None:
        with lock:
            waiting = [n for n in names if n not in settled]
            bar.value = len(settled)
            label.value = (f"{len(settled)}/{len(names)} · "
                           + (f"waiting for {', '.join(waiting[:3])}"
                              + (f" +{len(waiting) - 3}" if len(waiting) > 3 else "")
                              if waiting else "done")
                           + f" · {time.monotonic() - started:.0f} s")

    def moved(entry: dict[str, Any] | None) -> bool:
        if entry is not None and entry.get("event") in ("server-connected", "server-failure") \
                and entry.get("server") in names:
            settled.add(str(entry["server"]))
            show()
        return entry is not None

    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(1.0):
            show()

    unsubscribe = project.audit_log.subscribe(moved)
    ticker = threading.Thread(target=tick, name="toolkit-connect-progress", daemon=True)
    show()
    ticker.start()
    interrupted = False
    try:
        yield bar
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        stop.set()
        unsubscribe()
        ticker.join(2.0)
        seconds = time.monotonic() - started
        line = (f"interrupted after {seconds:.1f} s: {outcome(project, names, interrupted=True)}"
                if interrupted else f"{outcome(project, names)} in {seconds:.1f} s")
        if handle is not None:
            handle.update({"text/plain": line}, raw=True)
        box.close()
