"""Matrix explorer: pick agents, group sets, states and presets; click a cell to explain it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...core.decision import Effect, effect_of_label
from ...core.models import groups_label, parse_group_sets
from ...core.presets import PRESETS
from ...core.render import PALETTE, legend_html
from ..views import labels_table_html
from .base import View, esc, frame_text, show

# The text a cell's button shows for its effect (its colour comes from PALETTE).
_MARK = {Effect.ALLOW: "✓", Effect.ASK: "ask", Effect.CONDITIONAL: "if…",
         Effect.DENY: "✗ deny", Effect.IMPLICIT_DENY: "·"}

if TYPE_CHECKING:
    import pandas as pd

    from ...core.decision import Decision
    from ...core.policy import Policy

__all__ = ["MatrixExplorer"]

class MatrixExplorer(View):
    """The resolved matrix with pickers; each cell is a button that explains itself.

    >>> # ex = MatrixExplorer(proj, groups="read-only; *", states=["undefined", "analysis"])
    >>> # ex.click("graph-update", ex.columns[0]); ex.decision.reason
    """

    def __init__(self, project: Policy, agents: Sequence[str] | None = None,
                 groups: str = "*", states: Sequence[str] | None = None,
                 presets: Sequence[str] | None = None) -> None:
        self.project = project
        self.agents = w.SelectMultiple(options=list(project.agents),
                                       value=tuple(agents or project.agents), description="agents",
                                       rows=min(6, max(2, len(project.agents))))
        self.groups = w.Text(value=groups, description="group sets",
                             placeholder="read-only,knowledge; *   (';' separates sets)",
                             continuous_update=False)
        self.states = w.SelectMultiple(options=list(project.states),
                                       value=tuple(states or ("undefined",)), description="states",
                                       rows=min(6, max(2, len(project.states))))
        self.presets = w.SelectMultiple(options=list(PRESETS),
                                        value=tuple(presets or (project.preset.name,)),
                                        description="presets", rows=4)
        self.grid = w.GridBox(layout=w.Layout(grid_gap="2px"))
        self.explanation = w.Output()
        self.messages = w.Output()
        self.table: pd.DataFrame | None = None  # the reasons table shown now
        self.columns: list[dict[str, Any]] = []  # each column's (agent, groups, state, preset)
        self.cells: dict[tuple[str, int], w.Button] = {}
        self.decision: Decision | None = None
        for picker in (self.agents, self.groups, self.states, self.presets):
            picker.observe(self.reporting(self._changed), names="value")
        pickers = w.HBox([self.agents, self.states, self.presets])
        self.widget = w.VBox([pickers, self.groups, self.messages, self.grid,
                              w.HTML(legend_html()), w.Label("Click a cell to see why."),
                              self.explanation])
        self.widget.add_class("toolkit-matrix-explorer")
        self.refresh()

    def _changed(self, change: dict[str, Any]) -> None:
        self.decision = None  # an explanation of a cell of the old grid would be stale
        self.explanation.outputs = ()
        self.refresh()

    def refresh(self) -> None:
        """Recompute the table for the pickers' values and rebuild the grid."""
        group_sets = parse_group_sets(self.groups.value) or [("*",)]
        table = self.project.reasons(agents=list(self.agents.value), groups=group_sets,
                                     states=list(self.states.value),
                                     presets=list(self.presets.value))
        self.table = table
        labels = {groups_label(g): g for g in group_sets}
        fixed = {"agent": next(iter(self.agents.value), None), "groups": group_sets[0],
                 "state": next(iter(self.states.value), None),
                 "preset": next(iter(self.presets.value), None)}
        names = [str(n) for n in table.columns.names]
        self.columns = []
        for col in table.columns:
            values = col if isinstance(col, tuple) else (col,)
            context = dict(fixed)
            for level, value in zip(names, values, strict=True):
                context[level] = labels.get(value, value) if level == "groups" else value
            self.columns.append(context)
        self._build_grid(table, names)

    def _build_grid(self, table: pd.DataFrame, names: list[str]) -> None:
        header = []
        for level in names:
            header.append(w.Label(str(level)))
            for col in table.columns:
                values = col if isinstance(col, tuple) else (col,)
                header.append(w.Label(str(values[names.index(level)])))
        cells: list[w.Widget] = []
        self.cells = {}
        for tool in table.index:
            cells.append(w.Label(str(tool), tooltip=self._description(str(tool))))
            for i, step in enumerate(table.loc[tool]):
                effect = effect_of_label(str(step))
                mark = _MARK[effect]
                button = w.Button(description=mark if mark != "·" else f"· {step}",
                                  tooltip=f"{tool}: {effect} ({step})",
                                  layout=w.Layout(width="auto", height="28px"))
                button.style.button_color = PALETTE[effect]
                button.style.text_color = "white"
                button.on_click(self.reporting(lambda _b, t=str(tool), c=i: self.click(t, c)))
                self.cells[(str(tool), i)] = button
                cells.append(button)
        self.grid.children = tuple(header + cells)
        self.grid.layout.grid_template_columns = f"max-content repeat({len(table.columns)}, auto)"

    def _description(self, tool: str) -> str:
        found = self.project.tools.get(tool)
        return (found.description or "") if found is not None else ""

    def click(self, tool: str, column: int) -> Decision:
        """Explain one cell (what a click on it does) and show the decision below the grid."""
        c = self.columns[column]
        self.decision = self.project.explain(c["agent"], tool, groups=list(c["groups"]),
                                             state=c["state"], preset=c["preset"])
        show(self.explanation, self.decision)
        return self.decision

    def static_html(self) -> str:
        head = (f"<p><b>Tool matrix</b> <small>agents {esc(', '.join(self.agents.value))}; "
                f"group sets {esc(self.groups.value)}; states "
                f"{esc(', '.join(self.states.value))}; presets "
                f"{esc(', '.join(self.presets.value))}</small></p>")
        return head + legend_html() + (labels_table_html(self.table)
                                       if self.table is not None else "")

    def static_text(self) -> str:
        return "Tool matrix (deciding step per cell)\n" + (
            frame_text(self.table) if self.table is not None else "")
