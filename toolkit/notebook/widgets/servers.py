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

__all__ = ["ServerPanel", "light"]

_COLOURS = {"green": "#1a7f37", "yellow": "#bf8700", "red": "#cf222e", "grey": "#8c959f"}


def light(row: Mapping[str, Any]) -> str:
    """A server's light: its health when checked, else from its state."""
    health = row.get("health")
    if isinstance(health, str) and health in _COLOURS:
        return health
    state = row.get("state")
    return {"connected": "green", "connecting": "yellow", "configured": "grey"}.get(
        str(state), "red")


class ServerPanel(View):
    """Every configured MCP server: light, state, tool count, last error, stderr.

    The lights follow the project: a server that fails or stops turns red, and a
    closed project shows every server closed, its buttons disabled.

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
        self.status: pd.DataFrame | None = None
        #: the last ping: server -> (health, latency in ms or None)
        self.ping_results: dict[str, tuple[str, float | None]] = {}
        buttons = w.HBox([self.connect_button, self.refresh_button, self.ping_button])
        self.widget = w.VBox([self.banner, buttons, self.progress, self.messages, self.rows,
                              self.pinged,
                              w.Label("stderr"), self.logs])
        self.widget.add_class("toolkit-server-panel")
        self.refresh()
        self.watch(project)

    def controls(self) -> Sequence[w.Widget]:
        """Connect and ping act on the project; refresh only reads."""
        return (self.connect_button, self.ping_button)

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

    def ping(self) -> dict[str, tuple[str, float | None]]:
        """Ping every connected server; shows and returns each one's health and latency."""
        import pandas as pd

        status = self.project.servers
        results: dict[str, tuple[str, float | None]] = {}
        for name in status.index[status["state"] == "connected"]:
            health = self.project.ping(str(name))
            latency = self.project.servers.loc[name, "latency_ms"]
            results[str(name)] = (health, None if pd.isna(latency) else float(latency))
        self.ping_results = results
        when = time.strftime("%H:%M:%S")
        if results:
            items = "; ".join(
                f"<span style='color:{_COLOURS.get(h, _COLOURS['grey'])}'>●</span> {esc(n)} "
                + (f"{ms:.1f} ms" if ms is not None else esc(h)) for n, (h, ms) in results.items())
            self.pinged.value = f"<p><small>ping at {when}: {items}</small></p>"
        else:
            self.pinged.value = f"<p><small>ping at {when}: no server is connected</small></p>"
        self.refresh()
        return results

    def _log(self, name: str) -> str:
        try:
            return self.project.server_log(name) or "(nothing written)"
        except OSError as exc:  # an unreadable log file: say so in its place
            return f"(no log: {exc})"

    def refresh(self) -> None:
        """Re-read the servers' status and logs."""
        status = self.project.servers
        self.status = status
        rows, logs, titles = [], [], []
        self.lights = {}
        for name, row in status.iterrows():
            colour = light({str(k): v for k, v in row.items()})
            self.lights[str(name)] = colour
            dot = w.HTML(f"<span style='color:{_COLOURS[colour]};font-size:1.3em' "
                         f"title='{esc(colour)}'>●</span>")
            error = row.get("last_error")
            text = (f"{name} · {row.get('transport')} · {row.get('state')} · "
                    f"{row.get('tools')} tool(s)" + (f" · {error}" if isinstance(error, str)
                                                     and error else ""))
            label = w.Label(text)
            label.add_class(f"toolkit-server-{colour}")
            rows.append(w.HBox([dot, label]))
            logs.append(w.Textarea(value=self._log(str(name)), disabled=True,
                                   layout=w.Layout(width="100%", height="8em")))
            titles.append(str(name))
        self.rows.children = tuple(rows) or (w.Label("No servers configured."),)
        self.logs.children = tuple(logs)
        self.logs.titles = tuple(titles)

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
