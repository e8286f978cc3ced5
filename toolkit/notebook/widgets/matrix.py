"""Matrix explorer: summaries first, then the whole matrix in a virtualised grid.

Pick agents, group sets, states and presets; the summaries (per agent counts by
effect, per tool how many agents may call it, a heatmap of agents × servers or
groups) and the grid follow. The grid is an anywidget (``grid.py``) that gets the
cells as one int8 buffer and filters (comma lists of names or globs), sorts (a header
click: by effect, then name), scrolls and exports (CSV, clipboard) in the browser; a
click on a cell (or Enter on the focused one: the grid is keyboard-navigable, with ARIA
grid roles) shows its ``explain()`` trace below, headed by the cell's context and the
``proj.explain(...)`` call that reproduces it. 200 agents × 5,000 tools is one
1 MB message, never a widget per cell.

The default context is ``proj.explain``'s: the group set ``default``, state
``undefined``, the project's preset; the context is shown above the grid. A project
holding several runtimes' settings (``proj.runtimes``) adds a runtime picker: the cells
are then ``proj.explain(agent, tool, runtime=...)``, the main conversation ``(main)``
first among the agents, and the runtime is named above the grid and in each explanation.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...core.models import DEFAULT_GROUPS, DEFAULT_STATE, groups_label, parse_group_sets
from ...core.presets import all_presets, get_preset
from ...policy import MAIN
from ...render.decisions import legend_html
from ..fleet import (
    CODE_EFFECTS,
    CODE_LABELS,
    SUMMARY_ROWS,
    Context,
    MatrixData,
    context_html,
    context_line,
    effect_counts,
    empty_message,
    matrix_data,
    summaries_html,
    summary_html,
    tool_reach,
)
from ..views import HTMLView
from .base import View, esc, show
from .grid import MatrixGrid

if TYPE_CHECKING:
    import pandas as pd

    from ...core.decision import Decision
    from ...policy import Policy

__all__ = ["MatrixExplorer"]

#: The group sets box's default: explain()'s default group set.
DEFAULT_GROUPS_TEXT = groups_label(DEFAULT_GROUPS)


def _picker(options: list[str], value: Sequence[str], description: str) -> w.SelectMultiple:
    return w.SelectMultiple(options=options, value=tuple(value), description=description,
                            rows=min(6, max(2, len(options))))


class MatrixExplorer(View):
    """The resolved matrix with pickers, summaries and a grid whose cells explain themselves.

    ``data`` holds the cells as codes (:class:`~toolkit.notebook.fleet.MatrixData`);
    ``table`` the same as labels (``proj.reasons()``) for small projects;
    ``effect_counts`` / ``tool_reach`` the summaries as DataFrames.

    >>> import toolkit as tk
    >>> proj = tk.load("toolkit/examples/trustgraph")
    >>> ex = MatrixExplorer(proj, groups="read-only; *", states=["undefined", "analysis"])
    >>> [(c["groups"], c["state"]) for c in ex.columns][:2]
    [(('read-only',), 'undefined'), (('read-only',), 'analysis')]
    >>> from toolkit.core.decision import Effect
    >>> ex.click("graph-update", 0).reason.value
    'group'
    >>> ex.effect("graph-update", 0) == Effect.IMPLICIT_DENY
    True
    >>> ex.effect("graph-update", 3)
    'allow'
    >>> ex.explain_call("graph-update", 3)
    'proj.explain("react-agent", "graph-update", groups=["*"], state="analysis")'

    Without ``groups``, ``states`` and ``presets`` every cell is what
    ``proj.explain(agent, tool)`` answers with no context arguments.
    """

    def __init__(self, project: Policy, agents: Sequence[str] | None = None,
                 groups: str = DEFAULT_GROUPS_TEXT, states: Sequence[str] | None = None,
                 presets: Sequence[str] | None = None, runtime: str | None = None) -> None:
        self.project = project
        several = len(project.runtimes) > 1 or runtime is not None
        #: the runtime picker (None: the project holds one runtime's settings, or none)
        self.runtime: w.Dropdown | None = None
        if several:
            options = list(dict.fromkeys([*project.runtimes, *([runtime] if runtime else [])]))
            project.runtime_names(options)  # ValueError: a runtime without an engine
            self.runtime = w.Dropdown(options=options, description="runtime",
                                      value=runtime or project.default_runtime or options[0])
        names = [MAIN, *project.agents] if several else list(project.agents)
        chosen = names if agents is None else [MAIN if a is None else a for a in agents]
        self.agents = _picker(names, chosen, "agents")
        self.groups = w.Text(value=groups, description="group sets",
                             placeholder="read-only,knowledge; *   (';' separates sets)",
                             continuous_update=False)
        self.states = _picker(list(project.states), states or (DEFAULT_STATE,), "states")
        self.presets = _picker(list(all_presets()), presets or (project.preset.name,), "presets")
        self.context = w.HTML()
        self.summary = w.HTML()
        self.grid = MatrixGrid()
        self.explanation = w.Output()
        self.messages = w.Output()
        self.data: MatrixData | None = None
        self._static = ""  # the static view of the current matrix (summaries and first rows)
        self._shown = False  # displayed once: from then on a refresh summarises at once
        self._displaying = False
        self.decision: Decision | None = None
        self.grid.observe(self.reporting(self._cell_clicked), names="selected")
        for picker in (self.agents, self.groups, self.states, self.presets, self.runtime):
            if picker is not None:
                picker.observe(self.reporting(self._changed), names="value")
        pickers = w.HBox([self.agents, self.states, self.presets,
                          *([self.runtime] if self.runtime is not None else [])])
        self.widget = w.VBox([pickers, self.groups, self.messages, self.context, self.summary,
                              w.HTML(legend_html(marks=True)), self.grid,
                              w.Label("Click a cell (or Tab to the grid, arrows, Enter) to see "
                                      "why; click a header to sort by its effects."),
                              self.explanation])
        self.widget.add_class("toolkit-matrix-explorer")
        self.refresh()

    @property
    def columns(self) -> list[dict[str, Any]]:
        """Each column's context: agent, groups (a tuple), state, preset."""
        return [c._asdict() for c in self.data.columns] if self.data is not None else []

    @property
    def table(self) -> pd.DataFrame | None:
        """The cells as labels (the deciding step), like ``proj.reasons()``."""
        if self.data is None:
            return None
        import numpy as np
        import pandas as pd

        d = self.data
        labels = np.asarray(CODE_LABELS, dtype=object)[d.codes]
        columns = pd.MultiIndex.from_tuples(
            [tuple(c.value(level) for level in d.levels) for c in d.columns], names=d.levels
        ) if len(d.levels) > 1 else pd.Index([c.agent for c in d.columns], name="agent")
        return pd.DataFrame(labels,
                            index=pd.Index(d.tools, name="tool"), columns=columns)

    @property
    def effect_counts(self) -> pd.DataFrame:
        """Per agent (column): how many tools of each effect."""
        assert self.data is not None
        return effect_counts(self.data)

    @property
    def tool_reach(self) -> pd.DataFrame:
        """Per tool: how many agents may call it (most first)."""
        assert self.data is not None
        return tool_reach(self.data)

    def _changed(self, change: dict[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Recompute the matrix for the pickers' values; the summaries and grid follow."""
        self.decision = None  # an explanation of a cell of the old grid would be stale
        self.explanation.outputs = ()
        group_sets = parse_group_sets(self.groups.value)
        # the default group set, blank or as typed, is explain()'s: no warning about it
        default = group_sets in ([], [DEFAULT_GROUPS])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            if self.runtime is None:
                data = matrix_data(self.project, list(self.agents.value),
                                   None if default else group_sets,
                                   list(self.states.value), list(self.presets.value))
            else:
                data = runtime_data(self.project, self.runtime.value, list(self.agents.value),
                                    None if default else group_sets,
                                    list(self.states.value), list(self.presets.value))
        self.messages.outputs = tuple(
            {"output_type": "stream", "name": "stderr", "text": f"warning: {m}\n"}
            for m in dict.fromkeys(str(c.message) for c in caught))
        self.data = data
        empty = empty_message(data)
        self.context.value = self._runtime_html() + context_html(data)
        self._static = ""
        if empty is not None:
            self.summary.value = f"<p class='toolkit-empty'>{esc(empty)}</p>"
            self.grid.layout.display = "none"
        else:
            self.summary.value = "<p><small>summaries follow…</small></p>"
            self.grid.layout.display = None
        self.grid.show(data)  # the grid first: it is what paints; the summaries follow
        if self._shown:
            self.summarise()

    def summarise(self) -> None:
        """Compute the summaries and the static view of the current matrix (once)."""
        if self._static or self.data is None:
            return
        data = self.data
        if empty_message(data) is not None:
            self._static = summary_html(data)
            return
        summaries = summaries_html(data)
        self._static = summary_html(data, summaries)  # what a saved notebook shows
        self.summary.value = summaries

    def _ipython_display_(self) -> None:
        self._displaying = True  # the static view is shown anew once summarised
        try:
            super()._ipython_display_()
        finally:
            self._displaying = False

    def after_display(self) -> bool:
        """The summaries, computed while the browser paints the grid."""
        self._shown = True
        changed = not self._static
        self.summarise()
        return changed

    def _cell_clicked(self, change: dict[str, Any]) -> None:
        cell = self.grid.cell()
        if cell is not None and self.data is not None:
            self.click(self.data.tools[cell[0]], cell[1])

    def effect(self, tool: str, column: int) -> str:
        """The effect a cell shows (the grid's colour), e.g. ``Effect.IMPLICIT_DENY``'s value."""
        assert self.data is not None
        code = self.data.codes[self.data.tools.index(tool), column]
        return str(CODE_EFFECTS[code].value)

    def label(self, tool: str, column: int) -> str:
        """The label a cell shows: the deciding step (``allow``, ``group``, ...)."""
        assert self.data is not None
        return str(CODE_LABELS[self.data.codes[self.data.tools.index(tool), column]])

    def _runtime_html(self) -> str:
        if self.runtime is None:
            return ""
        return (f"<p class='toolkit-runtime'>runtime <b>{esc(self.runtime.value)}</b> "
                "<small>(its settings decide every cell; another runtime's built-in tools "
                "are not its tools)</small></p>")

    def explain_call(self, tool: str, column: int) -> str:
        """The ``proj.explain(...)`` call that gives a cell's decision: the context
        arguments that differ from explain's defaults, and only those (and the runtime,
        when the explorer has a runtime picker)."""
        c = self.columns[column]
        agent = "None" if self.runtime is not None and c["agent"] == MAIN else json.dumps(
            c["agent"])
        args = [agent, json.dumps(tool)]
        if tuple(c["groups"]) != DEFAULT_GROUPS:
            args.append(f"groups={json.dumps(list(c['groups']))}")
        if c["state"] != DEFAULT_STATE:
            args.append(f"state={json.dumps(c['state'])}")
        if c["preset"] != self.project.preset.name:
            args.append(f"preset={json.dumps(c['preset'])}")
        if self.runtime is not None:
            args.append(f"runtime={json.dumps(self.runtime.value)}")
        return f"proj.explain({', '.join(args)})"

    def click(self, tool: str, column: int) -> Decision:
        """Explain one cell (what a click on it does) and show the decision below the grid,
        headed by the cell's context and the ``proj.explain(...)`` call that reproduces it."""
        c = self.columns[column]
        runtime = self.runtime.value if self.runtime is not None else None
        self.decision = self.project.explain(c["agent"], tool, groups=list(c["groups"]),
                                             state=c["state"], preset=c["preset"],
                                             runtime=runtime)
        call = self.explain_call(tool, column)
        context = (f"groups {groups_label(tuple(c['groups']))} · state {c['state']} · "
                   f"preset {c['preset']}") + (f" · runtime {runtime}" if runtime else "")
        head = HTMLView(
            f"<div class='toolkit-explain-context'><b>{esc(c['agent'])}</b> → "
            f"<code>{esc(tool)}</code> in <b>{esc(context)}</b><br>"
            f"<small>reproduce it:</small> <code>{esc(call)}</code></div>",
            f"{c['agent']} -> {tool} in {context}\nreproduce it: {call}")
        show(self.explanation, head, self.decision)
        return self.decision

    def static_html(self) -> str:
        runtime = f"; runtime {self.runtime.value}" if self.runtime is not None else ""
        head = (f"<p><b>Tool matrix</b> <small>agents {esc(_first(self.agents.value))}; "
                f"group sets {esc(self.groups.value or DEFAULT_GROUPS_TEXT)}; states "
                f"{esc(', '.join(self.states.value))}; presets "
                f"{esc(', '.join(self.presets.value))}{esc(runtime)}</small></p>")
        if not self._displaying:
            self.summarise()
        return head + (self._static or self.context.value)

    def static_text(self) -> str:
        if self.data is None:
            return "Tool matrix"
        empty = empty_message(self.data)
        if empty is not None:
            return f"Tool matrix: {empty}"
        n_tools, n_cols = self.data.shape
        counts = self.effect_counts.head(SUMMARY_ROWS).to_string()
        more = len(self.data.columns) - SUMMARY_ROWS
        return (f"Tool matrix: {n_tools} tool(s) × {n_cols} column(s) "
                f"(context: {context_line(self.data)})\n"
                f"Per agent, tools by effect:\n{counts}"
                + (f"\n… and {more} more (explorer.effect_counts)" if more > 0 else ""))


def runtime_data(project: Policy, runtime: str, agents: Sequence[str],
                 groups: Sequence[tuple[str, ...]] | None = None, states: Sequence[str] = (),
                 presets: Sequence[str] = ()) -> MatrixData:
    """:func:`~toolkit.notebook.fleet.matrix_data` under ``runtime``'s settings: the codes of
    ``proj.reasons(..., runtimes=[runtime])`` (``(main)`` is the main conversation)."""
    import numpy as np
    import pandas as pd

    group_sets = [tuple(g) for g in groups or ()] or [DEFAULT_GROUPS]
    state_list = list(states) or [DEFAULT_STATE]
    preset_list = [get_preset(p).name for p in presets] or [project.preset.name]
    table = project.reasons(agents=list(agents), groups=group_sets if groups else None,
                            states=state_list if states else None, presets=preset_list,
                            runtimes=[runtime])
    flat = pd.Categorical(table.to_numpy().ravel(), categories=list(CODE_LABELS)).codes
    if (flat < 0).any():  # a label this view does not know: a new verdict in the core
        raise ValueError("the matrix has a cell label the explorer does not know")
    codes = np.ascontiguousarray(flat.reshape(table.shape), dtype=np.int8)
    # reasons' columns: runtime, agent, group set × state, preset (runtime-major)
    columns = [Context(a, g, s, p) for a in agents for g in group_sets for s in state_list
               for p in preset_list]
    levels = ["agent"] + [level for level, n in (("groups", len(group_sets)),
                                                 ("state", len(state_list)),
                                                 ("preset", len(preset_list))) if n > 1]
    pool = project.tools
    tools = list(table.index)
    servers = [str(pool[t].server) if pool[t].server else str(pool[t].source).removeprefix(
        "mcp:") for t in tools]
    return MatrixData(codes, tools, columns, levels, servers,
                      [tuple(pool[t].groups) for t in tools], project.preset.name)


def _first(names: Sequence[str], n: int = 8) -> str:
    shown = ", ".join(names[:n])
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")
