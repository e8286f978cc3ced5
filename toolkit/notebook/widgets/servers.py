"""Server panel: a status light per MCP server, its tool count, and its stderr."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .base import View, esc, frame_html, frame_text

if TYPE_CHECKING:
    import pandas as pd

    from ...runtime.project import Project

__all__ = ["ServerPanel", "collapse_repeats", "light"]

_COLOURS = {"green": "#1a7f37", "yellow": "#bf8700", "red": "#cf222e", "grey": "#8c959f"}
#: Disabled buttons must look disabled (JupyterLab's own rule is faint under a theme).
_CSS = ("<style>.toolkit-server-panel button:disabled{opacity:.4;cursor:not-allowed;"
        "filter:grayscale(1)}</style>")


def collapse_repeats(text: str) -> str:
    """A log with each run of identical lines shown once, with its count
    (``cannot open config (×3)``), so a server that repeats itself stays readable."""
    out: list[str] = []
    count = 0
    lines = text.splitlines()
    for i, line in enumerate(lines):
        count += 1
        if i + 1 < len(lines) and lines[i + 1] == line:
            continue
        out.append(f"{line} (×{count})" if count > 1 else line)
        count = 0
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def light(row: Mapping[str, Any]) -> str:
    """A server's light: for a connected server its health when checked (else green);
    yellow while connecting; grey when not connected or stopped on purpose; red when it
    failed. A stopped or failed server never keeps an old green health."""
    state = str(row.get("state"))
    if state == "connected":
        health = row.get("health")
        return health if isinstance(health, str) and health in _COLOURS else "green"
    return {"connecting": "yellow", "configured": "grey", "closed": "grey"}.get(state, "red")


class ServerPanel(View):
    """Every configured MCP server: light, state, tool count, last error, stderr, and its
    own ping / stop / restart buttons.

    The lights follow the project: a server that fails or stops turns red (and its last
    ping result goes with it), and a closed project shows every server closed, its
    buttons disabled. The open stderr section stays open across refreshes.

    >>> import toolkit as tk
    >>> ServerPanel(tk.load("toolkit/examples/trustgraph")).lights  # not connected yet
    {'trustgraph': 'grey'}

    After ``panel.connect()`` the light is ``green`` for a server that answered.
    """

    def __init__(self, project: Project, timeout: float | None = None) -> None:
        self.project = project
        self.timeout = timeout
        self.rows = w.VBox()
        self.logs = w.Accordion()
        self.messages = w.Output()
        self.banner = w.HTML()
        self.progress = w.IntProgress(description="connecting", bar_style="info",
                                      layout=w.Layout(display="none"))
        self.pinged = w.HTML()
        self.pinged.add_class("toolkit-ping-result")
        self.connect_button = w.Button(description="connect", button_style="primary")
        self.refresh_button = w.Button(description="refresh")
        self.ping_button = w.Button(description="ping all")
        self.connect_button.on_click(self.reporting(lambda _b: self.connect()))
        self.refresh_button.on_click(self.reporting(lambda _b: self.refresh()))
        self.ping_button.on_click(self.reporting(lambda _b: self.ping()))
        self.lights: dict[str, str] = {}
        #: per server: its ping, stop and restart buttons (rebuilt when the servers change)
        self.server_buttons: dict[str, tuple[w.Button, w.Button, w.Button]] = {}
        self._ping_when = ""
        self.status: pd.DataFrame | None = None
        #: the last ping: server -> (health, latency in ms or None)
        self.ping_results: dict[str, tuple[str, float | None]] = {}
        buttons = w.HBox([self.connect_button, self.refresh_button, self.ping_button])
        self.widget = w.VBox([w.HTML(_CSS), self.banner, buttons, self.progress, self.messages,
                              self.rows, self.pinged,
                              w.Label("stderr"), self.logs])
        self.widget.add_class("toolkit-server-panel")
        self.refresh()
        self.watch(project)

    def controls(self) -> Sequence[w.Widget]:
        """Connect, ping, and each server's buttons act on the project; refresh only reads."""
        return (self.connect_button, self.ping_button,
                *(b for row in self.server_buttons.values() for b in row))

    def follows(self, entry: dict[str, Any]) -> bool:
        """Server events (connected, failed, down, closed, tools changed) move the lights."""
        event = str(entry.get("event"))
        return event.startswith("server-") or (event == "teardown" and bool(entry.get("server")))

    def on_audit(self, entry: dict[str, Any]) -> None:
        """While connecting, each server that answers (or fails) moves the progress bar."""
        if entry.get("event") in ("server-connected", "server-failure") and \
                entry.get("outcome") in ("connected", "failed"):
            self.progress.value = min(self.progress.max, self.progress.value + 1)
        super().on_audit(entry)

    def connect(self) -> None:
        """Connect every configured server (what the button does), then refresh.

        A progress bar counts the servers as each one answers or fails.
        """
        status = self.project.servers
        waiting = int((status["state"] != "connected").sum())
        self.progress.max, self.progress.value = max(1, waiting), 0
        self.progress.layout.display = None if waiting else "none"
        try:
            self.project.connect(timeout=self.timeout)
        finally:
            self.progress.layout.display = "none"
        self.refresh()

    def ping(self, names: list[str] | None = None) -> dict[str, tuple[str, float | None]]:
        """Ping every connected server (or those named); shows and returns each one's health
        and latency."""
        import pandas as pd

        status = self.project.servers
        connected = [str(n) for n in status.index[status["state"] == "connected"]]
        results: dict[str, tuple[str, float | None]] = {}
        for name in connected if names is None else [n for n in names if n in connected]:
            health = self.project.ping(name)
            latency: Any = self.project.servers.loc[name, "latency_ms"]
            results[name] = (health, None if pd.isna(latency) else float(latency))
        self.ping_results = results if names is None else {**self.ping_results, **results}
        self._ping_when = time.strftime("%H:%M:%S")
        self.refresh()
        return results

    def stop(self, name: str) -> None:
        """Stop one server (its process ends, its tools leave the pool), then refresh."""
        self.project.disconnect([name])
        self.refresh()

    def restart(self, name: str) -> None:
        """Stop one server and connect it again, then refresh."""
        self.project.disconnect([name])
        self.project.connect([name], timeout=self.timeout)
        self.refresh()

    def _show_pings(self) -> None:
        """The last ping's results, for the servers that are still connected: a server that
        failed or stopped since loses its (now stale) result."""
        if not self._ping_when:
            return
        live = {n: r for n, r in self.ping_results.items() if self.lights.get(n) != "red"
                and self.status is not None and n in self.status.index
                and self.status.loc[n, "state"] == "connected"}
        gone = [n for n in self.ping_results if n not in live]
        items = "; ".join(
            f"<span style='color:{_COLOURS.get(h, _COLOURS['grey'])}'>●</span> {esc(n)} "
            + (f"{ms:.1f} ms" if ms is not None else esc(h)) for n, (h, ms) in live.items())
        if gone:
            items += ("; " if items else "") + ", ".join(esc(n) for n in gone) + \
                " no longer connected"
        self.pinged.value = (f"<p><small>ping at {self._ping_when}: "
                             f"{items or 'no server is connected'}</small></p>")

    def _log(self, name: str) -> str:
        try:
            return collapse_repeats(self.project.server_log(name)) or "(nothing written)"
        except OSError as exc:  # an unreadable log file: say so in its place
            return f"(no log: {exc})"

    def _buttons(self, name: str) -> tuple[w.Button, w.Button, w.Button]:
        ping = w.Button(description="ping", tooltip=f"ping {name} now",
                        layout=w.Layout(width="auto"))
        stop = w.Button(description="stop", tooltip=f"stop {name} (its process ends)",
                        layout=w.Layout(width="auto"))
        restart = w.Button(description="restart", tooltip=f"stop and connect {name} again",
                           layout=w.Layout(width="auto"))
        ping.on_click(self.reporting(lambda _b: self.ping([name])))
        stop.on_click(self.reporting(lambda _b: self.stop(name)))
        restart.on_click(self.reporting(lambda _b: self.restart(name)))
        return ping, stop, restart

    def refresh(self) -> None:
        """Re-read the servers' status and logs (the open stderr section stays open)."""
        status = self.project.servers
        self.status = status
        names = [str(n) for n in status.index]
        if list(self.server_buttons) != names:
            self.server_buttons = {n: self._buttons(n) for n in names}
        closed = bool(getattr(self.project, "closed", False))
        rows = []
        self.lights = {}
        for name, row in status.iterrows():
            name = str(name)
            colour = light({str(k): v for k, v in row.items()})
            self.lights[name] = colour
            dot = w.HTML(f"<span style='color:{_COLOURS[colour]};font-size:1.3em' "
                         f"title='{esc(colour)}'>●</span>")
            error = row.get("last_error")
            text = (f"{name} · {row.get('transport')} · {row.get('state')} · "
                    f"{row.get('tools')} tool(s)" + (f" · {error}" if isinstance(error, str)
                                                     and error else ""))
            label = w.Label(text)
            label.add_class(f"toolkit-server-{colour}")
            ping, stop, restart = self.server_buttons[name]
            connected = row.get("state") == "connected"
            ping.disabled = stop.disabled = closed or not connected
            restart.disabled = closed
            rows.append(w.HBox([dot, label, ping, stop, restart]))
        self.rows.children = tuple(rows) or (w.Label("No servers configured."),)
        logs = [self._log(n) for n in names]
        if tuple(self.logs.titles) == tuple(names) and len(self.logs.children) == len(names):
            for area, text in zip(self.logs.children, logs, strict=True):
                if area.value != text:
                    area.value = text  # in place: the open section stays where it is
        else:
            selected = self.logs.selected_index
            self.logs.children = tuple(
                w.Textarea(value=text, disabled=True, layout=w.Layout(width="100%", height="8em"))
                for text in logs)
            self.logs.titles = tuple(names)
            self.logs.selected_index = selected if selected is not None and \
                selected < len(names) else None
        self._show_pings()

    def static_html(self) -> str:
        if self.status is None:
            return "<p>No servers.</p>"
        dots = " ".join(f"<span style='color:{_COLOURS[c]}'>●</span> {esc(n)}"
                        for n, c in self.lights.items())
        return f"<p>{dots}</p>{frame_html(self.status)}"

    def static_text(self) -> str:
        lights = ", ".join(f"{n}: {c}" for n, c in self.lights.items())
        return f"servers ({lights})\n" + (frame_text(self.status) if self.status is not None
                                          else "")
