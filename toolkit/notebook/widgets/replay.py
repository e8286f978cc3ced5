"""Replay explorer: logged calls with their effect now, filtered by agent, effect, rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...render.reports import CALL_VIEW, table_html
from ..views import HTMLView
from .base import View, esc, show

if TYPE_CHECKING:
    import pandas as pd

    from ...analysis.replay import Replay

__all__ = ["ReplayExplorer"]

ALL = "(all)"
#: The calls the table shows at once (the filtered frame holds them all: ``table``).
ROWS = 100


def _options(values: Any) -> list[str]:
    return [ALL, *sorted({str(v) for v in values.astype(object).dropna()})]


class ReplayExplorer(View):
    """``tk.replay``'s calls with pickers: agent, effect now, deciding rule, what happened then.

    ``table`` is the filtered DataFrame; the widget shows its first rows, effects
    in their colours, and the summary of the whole replay above.

    >>> import pandas as pd
    >>> import toolkit as tk
    >>> from toolkit.core.decision import Effect
    >>> calls = pd.DataFrame({"agent": ["debugger", "debugger"], "tool": ["Bash", "Write"]})
    >>> ex = ReplayExplorer(tk.replay(tk.load("toolkit/examples/claude-code"), calls))
    >>> ex.effect.value = Effect.DENY.value
    >>> ex.table[["agent", "tool", "effect"]].values.tolist()
    [['debugger', 'Write', 'explicit-deny']]
    """

    def __init__(self, replay: Replay, rows: int = ROWS) -> None:
        self.replay = replay
        self.rows = rows
        calls = replay.calls
        self.agent = w.Dropdown(options=_options(calls["agent"]), value=ALL, description="agent")
        self.effect = w.Dropdown(options=_options(calls["effect"]), value=ALL,
                                 description="effect now")
        self.rule = w.Dropdown(options=_options(calls["rule"]), value=ALL, description="rule")
        self.observed = w.Dropdown(options=_options(calls["observed"]), value=ALL,
                                   description="then")
        self.regressions = w.Checkbox(value=False, description="regressions only")
        self.count = w.HTML()
        self.output = w.Output()
        self.messages = w.Output()
        self.table: pd.DataFrame = calls
        for control in (self.agent, self.effect, self.rule, self.observed, self.regressions):
            control.observe(self.reporting(self._changed), names="value")
        pickers = w.VBox([w.HBox([self.agent, self.effect]),
                          w.HBox([self.rule, self.observed, self.regressions])])
        summary = w.HTML(f"<pre>{esc(replay.summary())}</pre>")
        self.widget = w.VBox([summary, pickers, self.count, self.messages, self.output])
        self.widget.add_class("toolkit-replay")
        self.refresh()

    def _changed(self, change: dict[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Apply the pickers to the calls and show the first rows."""
        calls = self.replay.regressions if self.regressions.value else self.replay.calls
        for picker, column in ((self.agent, "agent"), (self.effect, "effect"),
                               (self.rule, "rule"), (self.observed, "observed")):
            if picker.value != ALL:
                calls = calls[calls[column].astype(object) == picker.value]
        self.table = calls
        self.count.value = f"<small>{len(calls)} of {len(self.replay.calls)} call(s)</small>"
        show(self.output, HTMLView(self._table_html(), calls.head(self.rows).to_string()))

    def _table_html(self) -> str:
        return table_html(self.table, CALL_VIEW, max_rows=self.rows)

    def static_html(self) -> str:
        filters = ", ".join(f"{p.description} {p.value}" for p in (
            self.agent, self.effect, self.rule, self.observed) if p.value != ALL)
        return (f"<p><b>Replay</b> <small>{esc(filters or 'all calls')}"
                f"{', regressions only' if self.regressions.value else ''}: {len(self.table)}"
                f" call(s)</small></p>" + self._table_html())

    def static_text(self) -> str:
        return f"Replay: {len(self.table)} call(s)\n" + self.table.head(self.rows).to_string()
