"""Audit log view: the project's audit trail, filtered by event and session.

Effects in the shared palette, a call's reason in the words every view uses
(``not in the allow list``, never a bare ``allow``), names never broken mid-word, and
one mark for a missing value (:data:`~toolkit.render.decisions.MISSING`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...core.decision import Effect
from ...render.decisions import MISSING, effect_html, reason_html, reason_words
from ..views import HTMLView
from .base import View, esc, show

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
        show(self.output, HTMLView(audit_html(self.table), audit_text(self.table)))

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
                f"{esc(self.agent.value)}</small></p>" + (audit_html(self.table)
                                                         if self.table is not None else ""))

    def static_text(self) -> str:
        return "Audit log\n" + (audit_text(self.table) if self.table is not None else "")


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


#: Columns of prose, which may wrap; every other column holds names, kept on one line.
PROSE = frozenset({"reason"})
_EFFECTS = {e.value: e for e in Effect}


def cell_text(value: Any) -> str:
    """One audit value as the view shows it: :data:`MISSING` for None / NaN / NA, a list
    as ``a, b``, a whole number without ``.0``."""
    import pandas as pd

    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "(none)"
    if value is None or (not isinstance(value, (str, dict)) and bool(pd.isna(value))):
        return MISSING
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _reason_of(row: Mapping[Any, Any]) -> str | None:
    """A call's reason in words, when the row carries a verdict (effect + deciding step)."""
    effect, reason = row.get("effect"), row.get("reason")
    if isinstance(effect, str) and effect in _EFFECTS and isinstance(reason, str):
        return reason
    return None


def audit_text(table: pd.DataFrame) -> str:
    """The rows as plain text, with the same values as :func:`audit_html`."""
    if not len(table):
        return "(no events)"
    shown = table.copy()
    records = table.to_dict("records")
    for column in shown.columns:
        shown[column] = [cell_text(v) for v in table[column]]
    if "reason" in shown.columns:
        shown["reason"] = [reason_words(r["effect"], r["reason"]) if _reason_of(r) else text
                           for r, text in zip(records, shown["reason"], strict=True)]
    return str(shown.to_string(index=False))


def audit_html(table: pd.DataFrame) -> str:
    """The rows as an escaped table: effects in the shared palette, a call's reason in words
    (``proj.reasons()``'s label as ``data-label``), names on one line, missing as one mark."""
    if not len(table):
        return "<p class='toolkit-empty'><small>No events.</small></p>"
    columns = list(table.columns)
    head = "".join(f"<th style='text-align:left;white-space:nowrap'>{esc(c)}</th>"
                   for c in columns)
    rows = []
    for row in table.to_dict("records"):
        cells = []
        for column in columns:
            value = row[column]
            text = cell_text(value)
            if column == "effect" and text in _EFFECTS:
                body = effect_html(_EFFECTS[text])
            elif column == "reason" and _reason_of(row):
                body = reason_html(row["effect"], row["reason"])
            else:
                body = esc(text)
            wrap = "" if column in PROSE else ";white-space:nowrap"
            cells.append(f"<td style='text-align:left;vertical-align:top{wrap}'>{body}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<table class='toolkit-audit-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")
