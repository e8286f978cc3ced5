"""Policy diff view: the cells that changed between two versions, or only the new access."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...render.reports import diff_html, table_html
from ..views import HTMLView
from .base import View, esc, show

if TYPE_CHECKING:
    import pandas as pd

    from ...analysis.diff import PolicyDiff

__all__ = ["DiffView"]

ALL = "(all)"
COLUMNS = ["agent", "tool", "context", "before", "after", "rule_before", "rule_after"]


class DiffView(View):
    """``tk.diff``'s changes with an agent picker and a "new access only" switch.

    >>> import toolkit as tk
    >>> old, new = tk.load("toolkit/examples/claude-code"), tk.load("toolkit/examples/claude-code")
    >>> _ = new.add_agent("---\\nname: helper\\ndescription: Reads and fetches.\\n"
    ...                   "tools: Read, WebFetch\\n---\\nHelps.")
    >>> view = DiffView(tk.diff(old, new)); view.new_access_only.value = True
    >>> sorted(set(zip(view.table.agent, view.table.tool)))
    [('helper', 'Read'), ('helper', 'WebFetch')]
    """

    def __init__(self, diff: PolicyDiff, new_access_only: bool = False) -> None:
        self.diff = diff
        agents = [ALL, *sorted({str(a) for a in diff.changes["agent"]})]
        self.agent = w.Dropdown(options=agents, value=ALL, description="agent")
        self.new_access_only = w.Checkbox(value=new_access_only, description="new access only")
        self.output = w.Output()
        self.messages = w.Output()
        self.table: pd.DataFrame = diff.changes
        for control in (self.agent, self.new_access_only):
            control.observe(self.reporting(self._changed), names="value")
        summary = w.HTML(f"<p>{esc(diff.summary())}</p>")
        self.widget = w.VBox([summary, w.HBox([self.agent, self.new_access_only]),
                              self.messages, self.output])
        self.widget.add_class("toolkit-diff")
        self.refresh()

    def _changed(self, change: dict[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Apply the agent picker and the switch."""
        rows = self.diff.new_access if self.new_access_only.value else self.diff.changes
        if self.agent.value != ALL:
            rows = rows[rows["agent"] == self.agent.value]
        self.table = rows
        show(self.output, HTMLView(table_html(rows, COLUMNS), rows.to_string()))

    def static_html(self) -> str:
        if self.agent.value == ALL:
            return diff_html(self.diff, only_new_access=self.new_access_only.value)
        return (f"<p>{esc(self.diff.summary())}</p><p><small>agent {esc(self.agent.value)}"
                "</small></p>" + table_html(self.table, COLUMNS))

    def static_text(self) -> str:
        return self.diff.summary() + "\n" + self.table.to_string()
