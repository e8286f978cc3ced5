"""The matrix grid: an anywidget whose cells travel as one int8 buffer and paint virtualised.

anywidget runs the ES module ``matrix_grid.js`` (shipped with the package, no
network) in the browser. The kernel sends, once per matrix, one byte per cell
plus the names; the browser filters, sorts and scrolls on its own and sends
back only the cell that was clicked (``selected``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anywidget
import traitlets as t

from ...core.decision import Effect
from ...render.decisions import MARKS, PALETTE
from ..fleet import CODE_EFFECTS, CODE_LABELS, MatrixData

__all__ = ["MatrixGrid"]

# Read once (a Path would make anywidget watch the file for changes).
_ESM = Path(__file__).with_name("matrix_grid.js").read_text(encoding="utf-8")


class MatrixGrid(anywidget.AnyWidget):
    """A virtualised grid of a :class:`~toolkit.notebook.fleet.MatrixData` (see the module)."""

    _esm = _ESM
    codes = t.Bytes(b"").tag(sync=True)
    n_rows = t.Int(0).tag(sync=True)
    n_cols = t.Int(0).tag(sync=True)
    # Big lists are untyped: traitlets would validate 5,000 elements one by one.
    tools: t.List[Any] = t.List().tag(sync=True)  # str per row
    tool_server: t.List[Any] = t.List().tag(sync=True)  # index into servers, per row
    tool_groups: t.List[Any] = t.List().tag(sync=True)  # indexes into groups, per row
    servers = t.List(t.Unicode()).tag(sync=True)
    groups = t.List(t.Unicode()).tag(sync=True)
    levels = t.List(t.Unicode()).tag(sync=True)
    columns: t.List[Any] = t.List().tag(sync=True)  # per column, its value at each level
    labels = t.List(t.Unicode(), list(CODE_LABELS)).tag(sync=True)
    effects = t.List(t.Unicode(), [e.value for e in CODE_EFFECTS]).tag(sync=True)
    palette = t.List(t.Unicode(), [PALETTE[e] for e in CODE_EFFECTS]).tag(sync=True)
    marks = t.List(t.Unicode(), [MARKS[e] for e in CODE_EFFECTS]).tag(sync=True)
    granted = t.List(t.Bool(), [e.granted for e in CODE_EFFECTS]).tag(sync=True)
    #: each code's effect's place in Effect's order (a header click sorts by it: allow first)
    ranks = t.List(t.Int(), [list(Effect).index(e) for e in CODE_EFFECTS]).tag(sync=True)
    #: [tool index, column index] of the clicked cell, or [] (set by the browser)
    selected = t.List(t.Int()).tag(sync=True)
    #: bumped after every new matrix, so the browser rebuilds once
    version = t.Int(0).tag(sync=True)

    def show(self, data: MatrixData) -> None:
        """Send a new matrix to the browser (one message)."""
        servers = sorted(set(data.servers))
        server_index = {s: i for i, s in enumerate(servers)}
        groups = sorted({g for gs in data.groups for g in gs})
        group_index = {g: i for i, g in enumerate(groups)}
        with self.hold_sync():
            self.codes = data.codes.tobytes()
            self.n_rows, self.n_cols = data.shape
            self.tools = list(data.tools)
            self.servers = servers
            self.tool_server = [server_index[s] for s in data.servers]
            self.groups = groups
            self.tool_groups = [[group_index[g] for g in gs] for gs in data.groups]
            self.levels = list(data.levels)
            self.columns = [[c.value(level) for level in data.levels] for c in data.columns]
            self.selected = []
            self.version += 1

    def cell(self) -> tuple[int, int] | None:
        """The selected (tool index, column index), or None."""
        chosen: Any = self.selected
        return (int(chosen[0]), int(chosen[1])) if len(chosen) == 2 else None
