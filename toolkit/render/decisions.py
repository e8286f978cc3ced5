"""Static HTML for decisions and resolutions (shown in notebooks, GitHub and nbviewer).

The effect palette and its legend are defined here, once; every HTML view and
widget of the package takes its colours from :data:`PALETTE`.

Tool names and descriptions may come from untrusted servers: everything is
escaped with :func:`html.escape`, nothing is ever inserted raw.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from html import escape
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from ..core.decision import (
    STEP_NAMES,
    Decision,
    Effect,
    Reason,
    Verdict,
    effect_of_label,
    reason_words,
    step_name,
)
from ..core.models import groups_label

if TYPE_CHECKING:
    import pandas as pd
    from pandas.io.formats.style import Styler
    from pandas.io.formats.style_render import CSSDict

__all__ = ["MARKS", "MISSING", "PALETTE", "STEP_NAMES", "STYLED_COLUMNS", "STYLED_ROWS",
           "ResolutionView", "deciding_step", "decision_dict", "decision_html", "effect_html",
           "label_html", "legend_html", "matrix_styler", "reason_html", "reason_words",
           "relative_paths", "resolution_html", "step_name"]


class ResolutionView(Protocol):
    """What :func:`resolution_html` reads of a resolution (``core.resolve.Resolution``)."""

    @property
    def agent(self) -> str: ...
    @property
    def preset(self) -> str: ...
    @property
    def groups(self) -> tuple[str, ...]: ...
    @property
    def state(self) -> str: ...
    @property
    def depth(self) -> int: ...
    @property
    def allowed(self) -> frozenset[str]: ...
    @property
    def verdicts(self) -> Mapping[str, Verdict]: ...


#: One colour per effect (GitHub's accessible greens, ambers, reds and greys).
PALETTE = MappingProxyType({
    Effect.ALLOW: "#1a7f37",
    Effect.ASK: "#9a6700",
    Effect.CONDITIONAL: "#0969da",
    Effect.DENY: "#cf222e",
    Effect.IMPLICIT_DENY: "#6e7781",
})

#: What a cell shows besides its colour, so the effect reads without colour too.
MARKS = MappingProxyType({Effect.ALLOW: "\u2713", Effect.ASK: "?", Effect.CONDITIONAL: "if",
                          Effect.DENY: "\u2717", Effect.IMPLICIT_DENY: "\u00b7"})


#: How every view spells a missing value (None, NaN, NA alike).
MISSING = "\u2014"

def reason_html(effect: Effect | str, reason: Reason | str) -> str:
    """:func:`reason_words`, escaped, carrying ``proj.reasons()``'s label for the same verdict
    (``data-label``, and as a tooltip)."""
    try:
        label = Verdict(Effect(effect), Reason(reason)).label
    except ValueError:
        return escape(str(reason))
    return (f"<span class='toolkit-reason' data-label='{escape(label)}' "
            f"title='proj.reasons(): {escape(label)}'>{escape(reason_words(effect, reason))}"
            "</span>")


def relative_paths(text: str, root: str) -> str:
    """``text`` with absolute paths under ``root`` (the project folder, a call's working
    directory) shown relative to it, and those under its parent as ``../...``.

    >>> relative_paths("Read /p/app/.env and /p/home/x (under /p/app)", "/p/app")
    'Read .env and ../home/x (under .)'
    """
    if not root or not os.path.isabs(root) or root == os.sep:
        return text
    root = root.rstrip(os.sep)
    end = r"(?![\w.@-])"  # the whole folder name, not a prefix of a longer one
    text = re.sub(re.escape(root + os.sep), "", text)
    text = re.sub(re.escape(root) + end, ".", text)
    parent = os.path.dirname(root)
    if parent and parent != os.sep:
        text = re.sub(re.escape(parent + os.sep), ".." + os.sep, text)
    return text


def effect_html(effect: Effect, text: str | None = None) -> str:
    """``text`` (default: the effect's name) in the effect's colour, escaped."""
    shown = escape(effect.value if text is None else text)
    return (f"<span class='toolkit-effect' data-effect='{effect.value}' "
            f"style='color:{PALETTE[effect]}'>{shown}</span>")


def label_html(label: str) -> str:
    """A table label (``allow``, ``implicit``, ``group``, ...) coloured by its effect."""
    return effect_html(effect_of_label(label), label)


def legend_html(marks: bool = False) -> str:
    """The legend shared by every view: each effect's colour and name (``marks``: and the
    mark a matrix cell shows for it)."""
    items = " ".join(f"<span style='color:{PALETTE[e]}'>&#9632;</span>&nbsp;"
                     + (f"{escape(MARKS[e])}&nbsp;" if marks else "") + escape(e.value)
                     for e in Effect)
    return f"<p class='toolkit-legend'><small>{items}</small></p>"


#: A styled matrix shows at most this many rows and columns (the DataFrame holds them all).
STYLED_ROWS, STYLED_COLUMNS = 25, 30


def matrix_styler(effects: pd.DataFrame, text: pd.DataFrame | None = None,
                  rows: int = STYLED_ROWS, columns: int = STYLED_COLUMNS,
                  shape: tuple[int, int] | None = None) -> Styler:
    """A matrix as a pandas ``Styler``: its first ``rows`` tools × ``columns`` columns, each
    cell on its effect's colour (:data:`PALETTE`) showing its mark (:data:`MARKS`), or its
    text in ``text`` (``proj.reasons()``'s labels, say); a caption says how many more.

    ``effects`` holds effect names (``proj.effects()``). A view: the values shown are
    ``effects``' (or ``text``'s), bounded, whatever the matrix's size; every name and value
    is escaped. Each cell carries the class ``toolkit-effect-<effect>``. ``shape``: the whole
    matrix's (rows, columns) when ``effects`` holds only its first cells.

    >>> import pandas as pd
    >>> effects = pd.DataFrame({"a": ["allow", "conditional"]}, index=["Read", "Bash"])
    >>> html = matrix_styler(effects).to_html()
    >>> "toolkit-effect-conditional" in html and ">if</td>" in html
    True
    """
    n_rows, n_columns = shape or effects.shape
    shown = effects.iloc[:rows, :columns]
    kinds = shown.map(lambda value: Effect(value))
    values = kinds.map(MARKS.__getitem__) if text is None else text.iloc[:rows, :columns]
    styler = values.style.set_td_classes(kinds.map(lambda e: f"toolkit-effect-{e.value}"))
    styler = styler.format(escape="html").format_index(escape="html", axis=0).format_index(
        escape="html", axis=1)
    styles: list[CSSDict] = [
        {"selector": f"td.toolkit-effect-{e.value}",
         "props": f"background-color:{PALETTE[e]};color:#fff;text-align:center"}
        for e in Effect]
    styles.append({"selector": "th.row_heading", "props": "text-align:left;font-family:monospace"})
    styler = styler.set_table_styles(styles)
    more = [f"{n} more {what}" for n, what in ((n_rows - len(shown), "tool(s)"),
                                                (n_columns - shown.shape[1], "column(s)"))
            if n > 0]
    if more:
        styler = styler.set_caption(f"\u2026 and {', '.join(more)}: the DataFrame holds them "
                                    "all")
    return styler


#: Table cells of prose read from the left (JupyterLab right-aligns table cells).
_CELL = "style='text-align:left;vertical-align:top'"
#: The deciding row of a trace: bold on the theme's second background (light and dark alike),
#: its first cell marked on the left in the effect's colour.
_DECIDING = "font-weight:bold;background-color:var(--jp-layout-color2,#f6f8fa)"
_DECIDING_MARK = "border-left:4px solid {colour}"
#: A configured PreToolUse hook's trace step: ``<hook and matcher> runs before ...<advice>``.
_HOOK_NOTE = re.compile(r"^(?P<hook>PreToolUse hook .*?) runs before this call and may change "
                        r"the outcome; (?P<note>.*)$", re.S)


def _td(text: str) -> str:
    return f"<td {_CELL}>{text}</td>"


def _th(text: str) -> str:
    return f"<th {_CELL}>{text}</th>"


def deciding_step(d: Decision) -> int | None:
    """The index in ``d.trace`` of the step that decided (shown highlighted), or None.

    For a tool: the step named by ``d.reason``. For a call: the rule step of the deciding
    kind (``deny-rule`` -> the ``deny`` step), the first that fails, else the last that
    does not skip; else the trace's ``decision`` step.
    """
    names = {d.reason.value, d.reason.value.removesuffix("-rule")}
    found = [i for i, s in enumerate(d.trace) if s.name in names and s.outcome != "skip"]
    failing = [i for i in found if d.trace[i].outcome == "fail"]
    if failing:
        return failing[0]
    if found:
        return found[-1]
    return next((i for i, s in enumerate(d.trace) if s.name == "decision"), None)


def _trace_html(d: Decision, relative: Callable[[str], str]) -> tuple[str, str]:
    """The trace's rows (the deciding one highlighted) and, once, the note that configured
    PreToolUse hooks are not run here (each hook's row then names only the hook)."""
    deciding = deciding_step(d)
    what_if = any(s.name == Reason.HOOK and s.outcome == "pass" for s in d.trace)
    note = ""
    rows = []
    for i, s in enumerate(d.trace):
        detail = s.detail
        hook = _HOOK_NOTE.match(detail) if s.name == Reason.HOOK and s.outcome == "skip" else None
        if hook is not None:
            detail = f"{hook['hook']}: not run here"
            note = ("PreToolUse hooks run before the call and may change its outcome; toolkit "
                    "does not run them. " + ("The what-if answer below stands in for them."
                                             if what_if else _advice(hook["note"])))
        where = escape(relative(s.rule.where)) if s.rule.file else ""
        name = escape(step_name(s.name))
        if i == deciding:
            mark = _DECIDING_MARK.format(colour=PALETTE[d.effect])
            head = (f"<tr class='toolkit-deciding' aria-current='step' style='{_DECIDING}'>"
                    f"<td style='text-align:left;vertical-align:top;{mark}'>&#9654;&nbsp;"
                    f"{name}</td>")
        else:
            head = f"<tr>{_td(name)}"
        rows.append(f"{head}{_td(escape(s.outcome))}{_td(escape(relative(detail)))}"
                    f"{_td(where)}</tr>")
    note_html = f"<p class='toolkit-hook-note'><small>{escape(note)}</small></p>" if note else ""
    return "".join(rows), note_html


def _advice(note: str) -> str:
    """The engine's advice after 'it is not run here', as its own sentence."""
    advice = note.removeprefix("it is not run here").lstrip(":; ")
    return (advice[:1].upper() + advice[1:] + ".") if advice else ""


def decision_html(d: Decision) -> str:
    """A decision as a small table: verdict, deciding step in words, the deciding rule, then
    the trace with the deciding step highlighted (and, for a compound command, one row per
    part first). For a call, paths under its working directory (the project folder unless
    another is given) are shown relative to it."""
    root = d.cwd if d.question == "call" else ""

    def relative(text: str) -> str:
        return relative_paths(text, root)

    rows, hook_note = _trace_html(d, relative)
    rule = escape(relative(d.rule.where)) if d.rule.file else "no rule"
    if d.rule.spec is not None or (d.question == "call" and d.rule.pattern):
        rule = f"<code>{escape(d.rule.text)}</code> {rule}"
    notes = "".join(f"<p><small>warning: {escape(relative(w))}</small></p>" for w in d.warnings)
    if d.question == "call":
        context = (f"mode {escape(d.mode)}, cwd {escape(d.cwd)} (paths below are relative "
                   "to it)")
    else:
        context = (f"preset {escape(d.preset)}, groups {escape(groups_label(d.groups))}, "
                   f"state {escape(d.state)}, depth {d.depth}")
    return (
        f"<div class='toolkit-decision' style='text-align:left'><p><b>"
        f"{effect_html(d.effect, d.effect.upper())}</b> "
        f"<code>{escape(d.agent)}</code> &rarr; <code>{escape(d.tool)}</code>: "
        f"{escape(relative(d.message))} <small>({reason_html(d.effect, d.reason)}; "
        f"{rule})</small></p>"
        f"<p><small>{context}</small></p>{notes}{_parts_html(d, relative)}"
        f"{_near_html(d, relative)}{hook_note}"
        f"<table class='toolkit-trace'><thead><tr>{_th('step')}{_th('outcome')}"
        f"{_th('detail')}{_th('rule')}</tr></thead><tbody>{rows}</tbody></table></div>")


def decision_dict(d: Decision) -> dict[str, object]:
    """A decision as plain data (``toolmatrix why --format json``): effect, reason, rule,
    message, warnings and, for a compound command, each part; for a call, the engine's
    ``details`` when it gave any."""
    rule = None if not d.rule.pattern else {
        "text": d.rule.text, "kind": d.rule.kind, "layer": d.rule.layer, "file": d.rule.file,
        "line": d.rule.line}
    out: dict[str, object] = {"agent": d.agent, "tool": d.tool, "effect": d.effect.value,
                              "allowed": d.allowed, "reason": d.reason.value, "rule": rule,
                              "message": d.message, "warnings": list(d.warnings)}
    if d.question == "call":
        out |= {"mode": d.mode, "cwd": d.cwd, "parts": [decision_dict(p) for p in d.parts]}
        if d.details:
            out["details"] = dict(d.details)
    return out


def _near_html(d: Decision, relative: Callable[[str], str]) -> str:
    """For a call not allowed: the allow rules that came closest, and why each did not."""
    misses = d.near_misses if d.question == "call" else ()
    if not misses:
        return ""
    items = "".join(
        f"<li><code>{escape(m.rule.text)}</code>"
        f"{' <small>' + escape(relative(m.rule.where)) + '</small>' if m.rule.file else ''}"
        f"{f' (part {m.part})' if m.part is not None else ''}: {escape(relative(m.why))}</li>"
        for m in misses)
    return f"<p class='toolkit-near'><b>near misses</b></p><ul>{items}</ul>"


def _parts_html(d: Decision, relative: Callable[[str], str]) -> str:
    """A compound command's parts: each part's effect, deciding step and rule."""
    if not d.parts:
        return ""
    rows = "".join(
        f"<tr>{_td(str(i))}{_td(f'<code>{escape(p.tool)}</code>')}{_td(effect_html(p.effect))}"
        f"{_td(reason_html(p.effect, p.reason))}"
        f"{_td(escape(p.rule.text) if p.rule.pattern else '')}"
        f"{_td(escape(relative(p.rule.where)) if p.rule.file else '')}</tr>"
        for i, p in enumerate(d.parts, 1))
    return ("<table class='toolkit-parts'><thead><tr>"
            + "".join(_th(h) for h in ("part", "command", "effect", "why", "rule", "where"))
            + f"</tr></thead><tbody>{rows}</tbody></table>")


def resolution_html(r: ResolutionView) -> str:
    """A resolution as a table of every pool tool, its effect and why (the deciding step in
    words, with ``proj.reasons()``'s label as ``data-label``)."""
    body = "".join(
        f"<tr>{_td(f'<code>{escape(tool)}</code>')}{_td(effect_html(v.effect))}"
        f"{_td(reason_html(v.effect, v.reason))}</tr>" for tool, v in sorted(r.verdicts.items()))
    return (
        f"<div class='toolkit-resolution'><p><b>{escape(r.agent)}</b> "
        f"<small>preset {escape(r.preset)}, groups {escape(groups_label(r.groups))}, state "
        f"{escape(r.state)}, depth {r.depth}</small>: {len(r.allowed)} tool(s) allowed</p>"
        f"{legend_html()}"
        f"<table><thead><tr>{_th('tool')}{_th('effect')}{_th('why')}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>")
