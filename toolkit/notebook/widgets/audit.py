"""Audit log view: the project's audit trail, filtered by event and session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .base import View, esc, frame_html, frame_text, show

if TYPE_CHECKING:
    import pandas as pd

    from ...runtime.project import Project

__all__ = ["AuditView"]

ALL = "(all)"
COLUMNS = ["time", "event", "agent_id", "tool", "state", "outcome", "effect", "reason", "from",
           "to"]
#: The columns that matter for each kind of event (others: COLUMNS); empty ones are dropped.
EVENT_COLUMNS = {
    "call": ["time", "agent_id", "tool", "state", "outcome", "effect", "reason"],
    "transition": ["time", "agent_id", "tool", "from", "to"],
    "resolve": ["time", "agent_id", "granted_groups", "state", "depth", "reason"],
    "spawn": ["time", "agent_id", "parent_id", "granted_groups", "state", "depth", "reason"],
    "teardown": ["time", "agent_id", "server", "outcome", "reason"],
    "approval": ["time", "agent_id", "tool", "outcome", "reason"],
    "access-denied": ["time", "agent_id", "tool", "outcome", "reason"],
    "warning": ["time", "agent_id", "reason"],
}


class AuditView(View):
    """Every resolve, call, block, approval, transition, spawn and teardown.

    >>> import toolkit as tk
    >>> proj = tk.load("toolkit/examples/trustgraph")
    >>> _ = proj.start("react-agent")
    >>> view = AuditView(proj); view.event.value = "resolve"
    >>> view.table[["agent_id", "reason"]].values.tolist()
    [['react-agent', 'preset trustgraph']]
    """

    def __init__(self, project: Project, tail: int = 50) -> None:
        self.project = project
        self.event = w.Dropdown(options=[ALL], value=ALL, description="event")
        self.agent = w.Dropdown(options=[ALL], value=ALL, description="session")
        self.tail = w.BoundedIntText(value=tail, min=1, max=100_000, description="last")
        self.refresh_button = w.Button(description="refresh")
        self.output = w.Output()
        self.messages = w.Output()
        self.banner = w.HTML()
        self.table: pd.DataFrame | None = None
        for control in (self.event, self.agent, self.tail):
            control.observe(self.reporting(self._changed), names="value")
        self.refresh_button.on_click(self.reporting(lambda _b: self.refresh()))
        controls = w.HBox([self.event, self.agent, self.tail, self.refresh_button])
        self.widget = w.VBox([self.banner, controls, self.messages, self.output])
        self.widget.add_class("toolkit-audit")
        self.refresh()
        self.watch(project)

    def follows(self, entry: dict[str, Any]) -> bool:
        """Every new event shows (refreshes are batched)."""
        return True

    def _changed(self, change: dict[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Re-read the audit trail and apply the filters."""
        frame = self.project.audit
        if len(frame):
            self._options(self.event, frame["event"])
            self._options(self.agent, frame["agent_id"])
        if self.event.value != ALL:
            frame = frame[frame["event"] == self.event.value]
        if self.agent.value != ALL:
            frame = frame[frame["agent_id"] == self.agent.value]
        self.table = shown_columns(frame, self.event.value).tail(self.tail.value)
        show(self.output, self.table)

    @staticmethod
    def _options(picker: w.Dropdown, values: Any) -> None:
        options = [ALL, *sorted({str(v) for v in values.dropna()})]
        if list(picker.options) != options:
            current = picker.value
            with picker.hold_trait_notifications():
                picker.options = options
                picker.value = current if current in options else ALL

    def project_closed(self) -> None:
        """The trail stays readable; say that it is complete."""
        if self.banner is not None:
            self.banner.value = ("<p class='toolkit-closed' style='color:#9a6700'><b>Project "
                                 "closed.</b> The trail below is complete; load the project "
                                 "again to record more.</p>")
        self.reporting(self.refresh)()

    def static_html(self) -> str:
        return (f"<p><b>Audit log</b> <small>event {esc(self.event.value)}, session "
                f"{esc(self.agent.value)}</small></p>" + (frame_html(self.table)
                                                         if self.table is not None else ""))

    def static_text(self) -> str:
        return "Audit log\n" + (frame_text(self.table) if self.table is not None else "")


def shown_columns(frame: pd.DataFrame, event: str) -> pd.DataFrame:
    """The columns that matter for ``event`` (all events: the common ones), none left empty;
    times shown as the time of day."""
    wanted = EVENT_COLUMNS.get(event, COLUMNS)
    columns = [c for c in wanted if c in frame.columns]
    table = frame[columns].copy() if columns else frame.copy()
    if "time" in table.columns:
        table["time"] = table["time"].astype(str).str[11:23]
    keep = [c for c in table.columns if c == "time" or table[c].notna().any()]
    return table[keep]
