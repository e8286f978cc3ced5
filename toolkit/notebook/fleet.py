"""The matrix at fleet scale: compact cell codes, summaries, a heatmap and a bounded preview.

Everything here is computed from the core's ``proj.reasons()`` frame (the
deciding step of every cell), turned once into int8 codes: 1,000,000 cells
are 1 MB, never a million Python objects or widgets. The summaries answer the
first questions about a big fleet — per agent, how many tools of each effect;
per tool, how many agents may call it; which agents reach which servers (or
groups) — and every static rendering is bounded, whatever the project's size.

>>> import toolkit as tk
>>> data = matrix_data(tk.load("toolkit/examples/trustgraph"), groups=[("*",)])
>>> from toolkit.core.decision import Effect
>>> counts = effect_counts(data).loc["react-agent", [Effect.ALLOW, Effect.IMPLICIT_DENY]]
>>> data.shape, counts.tolist()
((5, 1), [2, 3])
>>> tool_reach(data)["allow"].to_dict()
{'knowledge-query': 1, 'text-completion': 1, 'complex-analysis': 0, 'graph-update': 0,
 'reset-workflow': 0}
>>> Heatmap(data).svg().startswith("<svg")
True
"""

from __future__ import annotations

import base64
import functools
import math
import operator
import struct
import weakref
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core.decision import LABELS, Effect, effect_of_label
from ..core.models import DEFAULT_GROUPS, DEFAULT_STATE, groups_label
from ..core.presets import get_preset
from ..render.decisions import PALETTE, effect_html, legend_html

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ..policy import Policy

__all__ = ["CODE_LABELS", "Context", "Heatmap", "MatrixData", "distinct_labels", "effect_counts",
           "matrix_data", "preview_html", "summary_html", "tool_reach"]

#: The label of each cell code: the core's verdict labels, then ``conditional``.
CODE_LABELS: tuple[str, ...] = (*LABELS, "conditional")
#: The effect of each cell code.
CODE_EFFECTS: tuple[Effect, ...] = tuple(effect_of_label(label) for label in CODE_LABELS)
EFFECTS: tuple[Effect, ...] = tuple(Effect)
#: Static renderings show at most this many rows / columns of any table.
PREVIEW_ROWS, PREVIEW_COLUMNS, SUMMARY_ROWS = 25, 30, 40


class Context(NamedTuple):
    """What one column of the matrix is for: an agent, a group set, a state, a preset."""

    agent: str
    groups: tuple[str, ...]
    state: str
    preset: str

    def value(self, level: str) -> str:
        """The column's text at a header level (``agent``, ``groups``, ``state``, ``preset``)."""
        if level == "groups":
            return groups_label(self.groups)
        return str(getattr(self, level))


@dataclass(frozen=True)
class MatrixData:
    """One matrix as codes: ``codes[tool, column]`` indexes :data:`CODE_LABELS`.

    ``levels`` are the column levels that vary (``agent`` first); the others
    are the same for every column and shown once, above the grid.
    """

    codes: np.ndarray[Any, Any]
    tools: list[str]
    columns: list[Context]
    levels: list[str]
    servers: list[str]  # per tool: its MCP server, else its source (registry, builtin, ...)
    groups: list[tuple[str, ...]]  # per tool
    #: the project's own preset: with DEFAULT_GROUPS and DEFAULT_STATE, explain()'s default
    default_preset: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        """(tools, columns)."""
        return len(self.tools), len(self.columns)

    @property
    def fixed(self) -> dict[str, str]:
        """The levels every column shares, with their value (what the grid is for)."""
        if not self.columns:
            return {}
        first = self.columns[0]
        return {level: first.value(level) for level in ("groups", "state", "preset")
                if level not in self.levels}

    def column_label(self, column: int) -> str:
        """A column's varying levels joined by `` · ``."""
        c = self.columns[column]
        return " · ".join(c.value(level) for level in self.levels)

    def effect_codes(self) -> np.ndarray[Any, Any]:
        """``codes`` mapped to indexes of :data:`EFFECTS` (the five effects, in Effect order)."""
        return self._effects

    @functools.cached_property
    def _effects(self) -> np.ndarray[Any, Any]:
        import numpy as np

        lookup = np.asarray([EFFECTS.index(e) for e in CODE_EFFECTS], dtype=np.int8)
        out: np.ndarray[Any, Any] = lookup[self.codes]
        return out


def matrix_data(project: Policy, agents: Sequence[str] | None = None,
                groups: Sequence[tuple[str, ...]] | None = None, states: Sequence[str] = (),
                presets: Sequence[str] = ()) -> MatrixData:
    """The matrix for these pickers as codes, with the columns' contexts and the tools' servers.

    Without ``groups``, ``states`` or ``presets`` the context is ``proj.explain``'s
    default: the group set ``default``, state ``undefined``, the project's preset
    (and, like ``explain``, no warning about a default no tool names).

    The codes are the core's (:func:`toolkit.core.matrix.build` over the agents'
    grants, what ``proj.reasons()`` tabulates), kept as int8; a Claude Code
    project, whose argument rules make some granted cells ``conditional``, is
    read from ``proj.reasons()`` itself. A test checks both give the same cells.
    """
    agent_names = list(project.agents) if agents is None else list(agents)
    group_sets = [tuple(g) for g in groups or ()] or [DEFAULT_GROUPS]
    state_list = list(states) or [DEFAULT_STATE]
    preset_list = [get_preset(p).name for p in presets] or [project.preset.name]
    for a in agent_names:
        project.agent(a)  # an unknown name: UnknownAgentError, listing the known ones
    _warn_unknown(project, group_sets if groups else [], state_list)
    if project.engine is not None:
        codes = codes_from_frame(project, agent_names, group_sets, state_list, preset_list)
    else:
        codes = _codes(project, agent_names, group_sets, state_list, preset_list)
    columns = [Context(a, g, s, p) for a in agent_names for g in group_sets
               for s in state_list for p in preset_list]
    levels = ["agent"] + [level for level, n in (("groups", len(group_sets)),
                                                 ("state", len(state_list)),
                                                 ("preset", len(preset_list))) if n > 1]
    pool = project.tools
    tools = list(project.pool.names)
    servers = [_server(pool[t]) for t in tools]
    tool_groups = [tuple(pool[t].groups) for t in tools]
    return MatrixData(codes, tools, columns, levels, servers, tool_groups, project.preset.name)


#: The last codes built per project: (pool, grants, contexts, presets, codes). A grant is a
#: function of its agent, preset and pool until it is recompiled (then it is a new object),
#: so the same objects mean the same cells; the entry holds them, so no id is reused.
_LAST: weakref.WeakKeyDictionary[
    Any, tuple[Any, list[Any], list[Any], list[str], np.ndarray[Any, Any]]] = (
    weakref.WeakKeyDictionary())


def _codes(project: Policy, agents: list[str], group_sets: list[tuple[str, ...]],
           states: list[str], presets: list[str]) -> np.ndarray[Any, Any]:
    import numpy as np

    from ..core import matrix as matrix_mod

    pool = project.pool
    grants = [project.grant(a, p) for p in presets for a in agents]
    contexts = [(g, s) for g in group_sets for s in states]
    last = _LAST.get(project)
    if last is not None and last[0] is pool and last[2] == contexts and last[3] == presets \
            and len(last[1]) == len(grants) and all(map(operator.is_, last[1], grants)):
        return last[4]  # the same grants over the same pool: the same cells
    tools = list(pool.names)
    rows = [grants[i * len(agents):(i + 1) * len(agents)] for i in range(len(presets))]
    built = matrix_mod.build(tools, dict(pool), rows, presets, agents, contexts)
    # build's rows are LABELS' codes, the first codes of CODE_LABELS: the same numbers
    width = len(agents) * len(contexts) * len(presets)  # not -1: there may be no tools
    codes = np.ascontiguousarray(built.reshape(len(tools), width), dtype=np.int8)
    codes.flags.writeable = False  # shared by the explorers of the same matrix
    _LAST[project] = (pool, grants, contexts, list(presets), codes)
    return codes


def codes_from_frame(project: Policy, agents: list[str], group_sets: list[tuple[str, ...]],
                     states: list[str], presets: list[str]) -> np.ndarray[Any, Any]:
    """The cells' codes read from ``project.reasons()`` (labels, ``conditional`` included)."""
    import warnings

    import numpy as np
    import pandas as pd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # already said by _warn_unknown
        table = project.reasons(agents=agents, groups=group_sets, states=states,
                                presets=presets)
    flat = pd.Categorical(table.to_numpy().ravel(), categories=list(CODE_LABELS)).codes
    if (flat < 0).any():  # a label this view does not know: a new verdict in the core
        raise ValueError("the matrix has a cell label the explorer does not know")
    return np.ascontiguousarray(flat.reshape(table.shape), dtype=np.int8)


def _warn_unknown(project: Policy, group_sets: list[tuple[str, ...]], states: list[str]
                  ) -> None:
    """The warnings ``proj.matrix`` gives for group and state names no tool knows."""
    import warnings

    names = [g for g in dict.fromkeys(g for gs in group_sets for g in gs) if g != "*"]
    known_groups = set(project.groups) if names else set()
    for g in names:
        if g not in known_groups:
            warnings.warn(f"requested group {g!r} is not a group of any tool (known: "
                          f"{', '.join(sorted(known_groups)) or 'none'})", UserWarning,
                          stacklevel=3)
    asked = [s for s in dict.fromkeys(states) if s != DEFAULT_STATE]  # always known
    known_states = set(project.states) if asked else set()
    for s in asked:
        if s not in known_states:
            warnings.warn(f"invalid state {s!r}: no tool lists it in state or "
                          f"available_in_states (known: {', '.join(sorted(known_states))})",
                          UserWarning, stacklevel=3)


def _server(tool: Any) -> str:
    return str(tool.server) if tool.server else str(tool.source).removeprefix("mcp:")


def _column_index(data: MatrixData) -> pd.Index:
    import pandas as pd

    if len(data.levels) == 1:
        return pd.Index([c.agent for c in data.columns], name="agent")
    return pd.MultiIndex.from_tuples([tuple(c.value(lv) for lv in data.levels)
                                      for c in data.columns], names=data.levels)


def effect_counts(data: MatrixData) -> pd.DataFrame:
    """Per agent (column of the matrix): how many tools of each effect."""
    import numpy as np
    import pandas as pd

    effects = data.effect_codes()
    counts = {e.value: (effects == i).sum(axis=0, dtype=np.int64)
              for i, e in enumerate(EFFECTS)}
    return pd.DataFrame(counts, index=_column_index(data))


def _per_agent(data: MatrixData, mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per tool (row of ``mask``, tools × columns): how many distinct agents have a True
    cell in any of their columns (an agent's contexts count once)."""
    import numpy as np

    if not data.columns:
        return np.zeros(mask.shape[0], dtype=np.int64)
    names = [c.agent for c in data.columns]
    index = {a: i for i, a in enumerate(dict.fromkeys(names))}
    agent_of = np.asarray([index[a] for a in names])
    order = np.argsort(agent_of, kind="stable")  # each agent's columns side by side
    starts = np.flatnonzero(np.r_[True, np.diff(agent_of[order]) != 0])
    any_column = np.logical_or.reduceat(mask[:, order], starts, axis=1)
    out: np.ndarray[Any, Any] = any_column.sum(axis=1, dtype=np.int64)
    return out


def n_agents(data: MatrixData) -> int:
    """How many distinct agents the matrix's columns are for."""
    return len(dict.fromkeys(c.agent for c in data.columns))


def tool_reach(data: MatrixData) -> pd.DataFrame:
    """Per tool: its server and groups, how many agents may call it, and how many each effect.

    Every count is of distinct agents: ``may call`` counts the agents with a
    granted effect (allow, ask, conditional) in at least one of their columns
    (group set × state × preset); an effect's column the agents with that effect
    in at least one. With one context per agent the effects add up to the agents.
    Sorted by ``may call``, most first.
    """
    import numpy as np
    import pandas as pd

    effects = data.effect_codes()
    counts = {e.value: _per_agent(data, effects == i) for i, e in enumerate(EFFECTS)}
    granted = np.isin(effects, [i for i, e in enumerate(EFFECTS) if e.granted])
    frame = pd.DataFrame({"server": data.servers,
                          "groups": [", ".join(g) for g in data.groups],
                          "may call": _per_agent(data, granted),
                          **counts}, index=pd.Index(data.tools, name="tool"))
    return frame.sort_values("may call", ascending=False, kind="stable")


# -- the heatmap ---------------------------------------------------------------------------------

def _png(rgb: np.ndarray[Any, Any]) -> bytes:
    """An RGB uint8 array [height, width, 3] as PNG bytes (no imaging library needed)."""
    height, width = rgb.shape[:2]

    def chunk(tag: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + tag + body
                + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF))

    raw = b"".join(b"\x00" + bytes(row) for row in rgb.reshape(height, width * 3))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


#: Heatmap labels: row labels and column heads at most this many characters (the full text is
#: each label's tooltip); about this many pixels per character at the SVG's font size.
LABEL_CHARS, HEAD_CHARS, CHAR_PX = 27, 22, 6
#: Cells with a tooltip each up to this many; a bigger heatmap has one tooltip per row,
#: naming its ROW_TIP_ITEMS largest shares (the SVG stays small).
MAX_CELL_TIPS, ROW_TIP_ITEMS = 600, 3
#: Text and background in JupyterLab's theme colours (light and dark), with fallbacks where
#: the SVG is shown as an image (no theme): dark text on white.
THEME_TEXT = "var(--jp-ui-font-color1, #1f2328)"
THEME_BACKGROUND = "var(--jp-layout-color0, #ffffff)"


class Heatmap:
    """Agents × servers (or groups): the share of each one's tools an agent may call.

    Rows are the matrix's columns (agents, or agent × context), at most
    ``max_rows``; columns are the tools' MCP servers (their source for tools
    of no server) when there are several, else the tools' groups. ``values``
    is the table behind the picture; it renders as an SVG (with a PNG of the
    cells inside), shown inline in HTML so its tooltips work and its text
    follows the theme; tens of kilobytes for 200 agents.
    """

    def __init__(self, data: MatrixData, by: str = "auto", max_rows: int = 200,
                 max_columns: int = 40) -> None:
        import numpy as np
        import pandas as pd

        self.by = by if by != "auto" else ("server" if len(set(data.servers)) > 1 else "group")
        members: dict[str, list[int]] = {}
        for i in range(len(data.tools)):
            item_keys = (data.servers[i],) if self.by == "server" else data.groups[i]
            for key in item_keys:
                members.setdefault(key, []).append(i)
        ranked = sorted(members, key=lambda k: (-len(members[k]), k))[:max_columns]
        keys = sorted(ranked)
        shown = min(len(data.columns), max_rows)
        granted = np.isin(data.effect_codes()[:, :shown],
                          [i for i, e in enumerate(EFFECTS) if e.granted])
        values = np.zeros((shown, len(keys)))
        for j, key in enumerate(keys):
            values[:, j] = granted[members[key]].mean(axis=0) if members[key] else 0.0
        index = [data.column_label(c) for c in range(shown)]
        self.values = pd.DataFrame(values, index=pd.Index(index, name="agent"),
                                   columns=pd.Index(keys, name=self.by))
        self.sizes = {k: len(members[k]) for k in keys}
        self.more_rows = len(data.columns) - shown
        self.more_columns = len(members) - len(keys)

    def _cells_png(self) -> bytes:
        import numpy as np

        low = np.asarray(_rgb("#f6f8fa"), dtype=float)
        high = np.asarray(_rgb(PALETTE[Effect.ALLOW]), dtype=float)
        v = self.values.to_numpy()[:, :, None]
        rgb = np.rint(low + (high - low) * v).astype(np.uint8)
        return _png(rgb if rgb.size else np.zeros((1, 1, 3), dtype=np.uint8) + 255)

    def svg(self) -> str:
        """The heatmap as an SVG document: every label escaped and distinct (long ones
        shortened in the middle, the part that tells them apart kept), each with its full
        text as a ``<title>`` tooltip, each cell (or, for a big fleet, each row) with its
        share as a tooltip, and text in JupyterLab's theme colours (readable in Dark too)."""
        rows, cols = self.values.shape
        cw = max(10.0, min(28.0, 640 / max(cols, 1)))
        ch = max(1.5, min(16.0, 360 / max(rows, 1)))  # 200 agents fit in 360 px
        every = max(1, math.ceil(12 / ch))  # label every n-th row so labels never overlap
        names = [str(a) for a in self.values.index]
        keys = [str(k) for k in self.values.columns]
        row_labels = distinct_labels(names, LABEL_CHARS)
        heads = [f"{k} ({self.sizes[key]})" for k, key in zip(
            distinct_labels(keys, HEAD_CHARS), self.values.columns, strict=True)]
        left = min(8 + CHAR_PX * LABEL_CHARS, 8 + CHAR_PX * max(map(len, row_labels), default=4))
        top = min(160, 14 + CHAR_PX * max(map(len, heads), default=4))
        caption = (f"share of each {self.by}'s tools the agent may call: white 0 %, green 100 %"
                   " (hover a cell for its share)")
        width = max(left + cw * cols + 8, 8 + CHAR_PX * len(caption), 400)
        height = top + ch * rows + 28
        png = base64.b64encode(self._cells_png()).decode()
        parts = [f"<svg xmlns='http://www.w3.org/2000/svg' class='toolkit-heatmap-svg' "
                 f"width='{width:.0f}' height='{height:.0f}' font-family='sans-serif' "
                 f"font-size='10' role='img' style='color:{THEME_TEXT}'>"
                 f"<title>Agents × {escape(self.by)}s: {escape(caption)}</title>"
                 f"<rect width='100%' height='100%' style='fill:{THEME_BACKGROUND}'/>",
                 f"<image x='{left}' y='{top}' width='{cw * cols:.1f}' height='{ch * rows:.1f}'"
                 f" preserveAspectRatio='none' style='image-rendering:pixelated' "
                 f"href='data:image/png;base64,{png}'/>",
                 # a frame, so white (0 %) cells stay visible on a white page
                 f"<rect x='{left}' y='{top}' width='{cw * cols:.1f}' height='{ch * rows:.1f}' "
                 "fill='none' stroke='currentColor' stroke-opacity='0.35'/>",
                 "<g fill='currentColor'>"]
        for i, (name, label) in enumerate(zip(names, row_labels, strict=True)):
            if i % every == 0:
                parts.append(f"<text x='{left - 4}' y='{top + ch * (i + 0.5) + 3.5:.1f}' "
                             f"text-anchor='end'><title>{escape(name)}</title>"
                             f"{escape(label)}</text>")
        for j, (key, head) in enumerate(zip(keys, heads, strict=True)):
            x = left + cw * (j + 0.5) + 3.5
            parts.append(f"<text transform='translate({x:.1f},{top - 4}) rotate(-90)'>"
                         f"<title>{escape(key)}: {self.sizes[self.values.columns[j]]} tool(s)"
                         f"</title>{escape(head)}</text>")
        parts.append(f"<text x='4' y='{height - 8:.0f}'>{escape(caption)}</text></g>")
        parts.append(self._tooltips(left, top, cw, ch))
        return "".join(parts) + "</svg>"

    def _tooltips(self, left: float, top: float, cw: float, ch: float) -> str:
        """Transparent shapes over the cells whose ``<title>`` says what a cell shows: one per
        cell up to :data:`MAX_CELL_TIPS` cells, else one per row (its largest shares)."""
        values = self.values.to_numpy()
        rows, cols = values.shape
        names = [str(a) for a in self.values.index]
        keys = [str(k) for k in self.values.columns]
        sizes = [self.sizes[k] for k in self.values.columns]
        out = ["<g fill='transparent'>"]
        if rows * cols <= MAX_CELL_TIPS:
            for i in range(rows):
                for j in range(cols):
                    n = round(values[i, j] * sizes[j])
                    out.append(f"<rect x='{left + cw * j:.1f}' y='{top + ch * i:.1f}' "
                               f"width='{cw:.1f}' height='{ch:.1f}'><title>"
                               f"{escape(names[i])} · {escape(keys[j])}: may call {n} of "
                               f"{sizes[j]} tool(s) ({values[i, j]:.0%})</title></rect>")
        else:
            for i in range(rows):
                order = sorted(range(cols), key=lambda j: -values[i, j])[:ROW_TIP_ITEMS]
                shares = ", ".join(f"{keys[j]} {values[i, j]:.0%}" for j in order
                                   if values[i, j] > 0) or f"no {self.by}'s tools"
                out.append(f"<rect x='{left}' y='{top + ch * i:.1f}' width='{cw * cols:.1f}' "
                           f"height='{ch:.1f}'><title>{escape(names[i])} may call: "
                           f"{escape(shares)}</title></rect>")
        return "".join(out) + "</g>"

    def html(self) -> str:
        """The SVG inline (so its tooltips show and its text takes the theme's colours), with
        a line on what it shows and what was left out."""
        more = []
        if self.more_rows:
            more.append(f"{self.more_rows} more agent column(s)")
        if self.more_columns:
            more.append(f"{self.more_columns} smaller {self.by}(s)")
        note = f" <small>(not shown: {escape(', '.join(more))})</small>" if more else ""
        return (f"<div class='toolkit-heatmap'><p><b>Agents × {escape(self.by)}s</b>{note}</p>"
                f"{self.svg()}</div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"image/svg+xml": self.svg(), "text/html": self.html(),
                "text/plain": f"Heatmap agents × {self.by}s\n{self.values.round(2)}"}


def distinct_labels(labels: Sequence[str], n: int) -> list[str]:
    """Labels of at most ``n`` characters that tell their texts apart.

    A long label keeps its start and end (``customer-supp…ge · analysis``); labels that
    would then read the same show the part where their texts differ instead
    (``…u-west-010 · defau…``), so no two different rows ever look identical.

    >>> distinct_labels(["support-agent-eu-west-010 · default", "support-agent-eu-west-011 · "
    ...                  "default", "short"], 20)
    ['…u-west-010 · defau…', '…u-west-011 · defau…', 'short']
    """
    out = [_middle(t, n) for t in labels]
    groups: dict[str, list[int]] = {}
    for i, label in enumerate(out):
        groups.setdefault(label, []).append(i)
    for same in groups.values():
        texts = {labels[i] for i in same}
        if len(texts) < 2:
            continue
        low, high = min(texts), max(texts)  # the common prefix of all: that of these two
        first_difference = next((k for k, (a, b) in enumerate(zip(low, high, strict=False))
                                 if a != b),
                                min(len(low), len(high)))
        start = max(0, first_difference - (n - 2) // 2)
        for i in same:
            piece = labels[i][start:]
            head = "…" if start else ""
            room = n - len(head)
            out[i] = head + (piece if len(piece) <= room else piece[:room - 1] + "…")
    seen: dict[str, str] = {}
    for i, label in enumerate(out):  # a window that meets another label: number it
        if seen.setdefault(label, labels[i]) != labels[i]:
            tag = f"…#{i + 1}"
            out[i] = label[:max(0, n - len(tag))] + tag
    return out


def _middle(text: str, n: int) -> str:
    """``text`` shortened in the middle to ``n`` characters (its start and its end kept)."""
    if len(text) <= n:
        return text
    head = (n - 1) // 2
    return text[:head] + "…" + text[len(text) - (n - 1 - head):]


# -- static HTML (bounded) -----------------------------------------------------------------------

def _more(n: int, what: str, how: str) -> str:
    return (f"<p class='toolkit-more'><small>… and {n} more {escape(what)} ({escape(how)})"
            "</small></p>" if n > 0 else "")


def _values(data: MatrixData, level: str) -> list[str]:
    return list(dict.fromkeys(c.value(level) for c in data.columns))


def is_default_context(data: MatrixData) -> bool:
    """Whether every column is for ``proj.explain``'s default context (no context arguments)."""
    return bool(data.columns) and all(
        c.groups == DEFAULT_GROUPS and c.state == DEFAULT_STATE
        and c.preset == data.default_preset for c in data.columns)


def context_line(data: MatrixData) -> str:
    """The context the cells are decided in, as text: ``groups default · state undefined ·
    preset trustgraph``; a level whose columns differ lists its values (``a | b``)."""
    return " · ".join(f"{level} {' | '.join(_values(data, level))}"
                      for level in ("groups", "state", "preset"))


def context_html(data: MatrixData) -> str:
    """What the grid is for, above it: the context (groups, state, preset) the cells are
    decided in, whether that is ``proj.explain``'s default, and the grid's size."""
    n_tools, n_cols = data.shape
    if not data.columns:
        return (f"<p class='toolkit-matrix-context'>{n_tools} tool(s) × 0 column(s)</p>")
    parts = []
    for level in ("groups", "state", "preset"):
        values = _values(data, level)
        shown = " | ".join(f"<b>{escape(v)}</b>" for v in values)
        parts.append(f"{level} {shown}" + (" <small>(a column each)</small>"
                                            if len(values) > 1 else ""))
    if is_default_context(data):
        note = ("<br><small>the default context: what <code>proj.explain(agent, tool)</code> "
                "answers without context arguments</small>")
        if not any(set(DEFAULT_GROUPS) & set(g) for g in data.groups):
            note += ("<br><small>no tool is in the group <code>default</code>, so every cell "
                     "fails the group step: type <code>*</code> (all groups) or group names "
                     "in the group sets box</small>")
    else:
        note = ""
    return ("<div class='toolkit-matrix-context' style='border-left:4px solid #0969da;"
            "padding:0.3em 0.7em;margin:0.4em 0'>"
            f"<div style='font-size:1.1em'><b>Context:</b> {' · '.join(parts)}</div>"
            f"<small>{n_tools} tool(s) × {n_cols} column(s) "
            f"(columns: {escape(' × '.join(data.levels))})</small>{note}</div>")


def counts_html(data: MatrixData, max_rows: int = SUMMARY_ROWS) -> str:
    """Per agent: tools of each effect (the first ``max_rows`` agents)."""
    frame = effect_counts(data)
    head = "".join(f"<th>{effect_html(e)}</th>" for e in EFFECTS)
    body = "".join(
        f"<tr><th><code>{escape(data.column_label(i))}</code></th>"
        + "".join(f"<td>{int(n)}</td>" for n in row) + "</tr>"
        for i, row in enumerate(frame.head(max_rows).itertuples(index=False, name=None)))
    return ("<div class='toolkit-effect-counts'><p><b>Per agent: tools by effect</b></p>"
            f"<table><thead><tr><th>agent</th>{head}</tr></thead><tbody>{body}</tbody></table>"
            + _more(len(frame) - max_rows, "agents", "all: effect_counts(data) as a DataFrame")
            + "</div>")


def reach_html(data: MatrixData, max_rows: int = 15) -> str:
    """Per tool: how many agents may call it (the most reached first), and the unreached count."""
    frame = tool_reach(data)
    nobody = int((frame["may call"] == 0).sum())
    body = "".join(f"<tr><th><code>{escape(str(tool))}</code></th><td>{escape(str(server))}</td>"
                   f"<td>{int(n)}</td></tr>"
                   for tool, server, n in zip(frame.index[:max_rows], frame["server"][:max_rows],
                                              frame["may call"][:max_rows], strict=True))
    agents = n_agents(data)
    contexts = len(data.columns) // agents if agents else 0
    within = f" in any of their {contexts} contexts" if contexts > 1 else ""
    return ("<div class='toolkit-tool-reach'><p><b>Per tool: how many agents may call it</b> "
            f"<small>(of {agents} agent(s){within}; {nobody} of {len(frame)} tool(s) no agent "
            "may call)</small></p>"
            "<table><thead><tr><th>tool</th><th>server</th><th>may call</th></tr></thead>"
            f"<tbody>{body}</tbody></table>"
            + _more(len(frame) - max_rows, "tools", "all: tool_reach(data) as a DataFrame")
            + "</div>")


def preview_html(data: MatrixData, rows: int = PREVIEW_ROWS, columns: int = PREVIEW_COLUMNS
                 ) -> str:
    """The first ``rows`` tools × ``columns`` columns of the matrix, each cell its label in
    its effect's colour, and a line saying how many more there are."""
    from ..render.decisions import label_html

    n_tools, n_cols = data.shape
    cols = range(min(columns, n_cols))
    head = "".join(
        f"<tr><th>{escape(level)}</th>"
        + "".join(f"<th>{escape(data.columns[c].value(level))}</th>" for c in cols) + "</tr>"
        for level in data.levels)
    body = "".join(
        f"<tr><th><code>{escape(data.tools[t])}</code></th>"
        + "".join(f"<td>{label_html(CODE_LABELS[data.codes[t, c]])}</td>" for c in cols)
        + "</tr>" for t in range(min(rows, n_tools)))
    more = []
    if n_tools > rows:
        more.append(f"{n_tools - rows} more tool(s)")
    if n_cols > columns:
        more.append(f"{n_cols - columns} more column(s)")
    note = (f"<p class='toolkit-more'><small>… and {', '.join(more)}: the live explorer "
            "shows them all (or proj.reasons() as a DataFrame)</small></p>") if more else ""
    return (f"<table class='toolkit-matrix'><thead>{head}</thead><tbody>{body}</tbody></table>"
            + note)


def empty_message(data: MatrixData) -> str | None:
    """Why there is nothing to show (no agents, no tools), or None."""
    n_tools, n_cols = data.shape
    if n_cols == 0:
        return "No agents chosen (or the project defines none): nothing to tabulate."
    if n_tools == 0:
        return "The project's tool pool is empty: no tools to tabulate (connect its servers?)."
    return None


def summaries_html(data: MatrixData) -> str:
    """The three summaries side by side: per agent counts, per tool reach, the heatmap."""
    box = "<div style='max-height:26em;overflow:auto'>{}</div>"
    return ("<div style='display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start'>"
            + "".join(box.format(part) for part in (Heatmap(data).html(), counts_html(data),
                                                    reach_html(data)))
            + "</div>")


def summary_html(data: MatrixData, summaries: str | None = None) -> str:
    """Summaries first (per agent, per tool, the heatmap), then the first rows of the matrix.

    Bounded whatever the project's size (a few hundred kilobytes at most).
    ``summaries``: :func:`summaries_html` of ``data`` when already made.
    """
    empty = empty_message(data)
    if empty is not None:
        return f"<p class='toolkit-empty'>{escape(empty)}</p>"
    return (context_html(data) + legend_html()
            + (summaries if summaries is not None else summaries_html(data))
            + preview_html(data))
