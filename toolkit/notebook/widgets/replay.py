"""Replay explorer: logged calls with their effect now, filtered by agent, effect, rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...analysis.transcripts import executed
from ...render.reports import CALL_VIEW, table_html
from ..views import HTMLView
from .base import View, esc, show

if TYPE_CHECKING:
    import pandas as pd

    from ...analysis.replay import Replay

__all__ = ["ReplayExplorer"]

ALL = "(all)"
#: A picker's option for the calls whose value is missing (the summary's word for it too).
UNKNOWN = "unknown"
#: The calls the table shows at once (the filtered frame holds them all: ``table``).
ROWS = 100


def _options(values: Any) -> list[str]:
    """``(all)``, every value the calls have (never a blank one), then ``unknown`` when some
    calls have none."""
    present = values.astype(object)
    named = {str(v) for v in present.dropna() if str(v).strip()}
    missing = len(present) > 0 and bool(present.isna().any() or (present.astype(str).str.strip()
                                                                  == "").any())
    return [ALL, *sorted(named - {UNKNOWN}), *([UNKNOWN] if missing or UNKNOWN in named else [])]


def _picked(column: Any, value: str) -> Any:
    """Which of ``column``'s values a picker's ``value`` selects (``unknown``: the missing ones)."""
    text = column.astype(object)
    if value == UNKNOWN:
        return text.isna() | (text.astype(str).str.strip() == "") | (text == UNKNOWN)
    return text == value


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
        if list(self.observed.options) in ([ALL], [ALL, UNKNOWN]):
            # the log does not say what happened then: nothing to pick, and no regressions
            # can be told apart from the other calls
            self.observed.disabled = True
            self.observed.tooltip = "the log does not record what happened then"
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
                calls = calls[_picked(calls[column], picker.value)]
        self.table = calls
        self.count.value = f"<small>{len(calls)} of {len(self.replay.calls)} call(s)</small>"
        empty = self.empty_message()
        if empty is not None:
            show(self.output, HTMLView(f"<p class='toolkit-empty'>{esc(empty)}</p>", empty))
        else:
            show(self.output, HTMLView(self._table_html(), calls.head(self.rows).to_string()))

    def empty_message(self) -> str | None:
        """What an empty table means, in a sentence (None when there are rows to show)."""
        if len(self.table):
            return None
        total = len(self.replay.calls)
        if not total:
            return "The log holds no calls."
        if self.regressions.value and not len(self.replay.regressions):
            if self.observed.disabled:
                return (f"No regressions can be found: the log does not record what happened "
                        f"to its {total} call(s) then (ran, denied or error).")
            ran = int(executed(self.replay.calls["observed"]).sum())
            return (f"No regressions: none of the {ran} call(s) that ran then would be "
                    "denied now.")
        return "No call matches these filters."

    def _table_html(self) -> str:
        empty = self.empty_message()
        if empty is not None:
            return f"<p class='toolkit-empty'>{esc(empty)}</p>"
        return table_html(self.table, CALL_VIEW, max_rows=self.rows)

    def static_html(self) -> str:
        filters = ", ".join(f"{p.description} {p.value}" for p in (
            self.agent, self.effect, self.rule, self.observed) if p.value != ALL)
        return (f"<p><b>Replay</b> <small>{esc(filters or 'all calls')}"
                f"{', regressions only' if self.regressions.value else ''}: {len(self.table)}"
                f" call(s)</small></p>" + self._table_html())

    def static_text(self) -> str:
        empty = self.empty_message()
        return f"Replay: {len(self.table)} call(s)\n" + (
            empty if empty is not None else self.table.head(self.rows).to_string())
