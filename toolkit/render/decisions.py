"""Static HTML for decisions and resolutions (shown in notebooks, GitHub and nbviewer).

The effect palette and its legend are defined here, once; every HTML view and
widget of the package takes its colours from :data:`PALETTE`.

Tool names and descriptions may come from untrusted servers: everything is
escaped with :func:`html.escape`, nothing is ever inserted raw.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from types import MappingProxyType
from typing import Protocol

from ..core.decision import Decision, Effect, Verdict, effect_of_label
from ..core.models import groups_label

__all__ = ["PALETTE", "ResolutionView", "decision_dict", "decision_html", "effect_html",
           "label_html", "legend_html", "resolution_html"]


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


def effect_html(effect: Effect, text: str | None = None) -> str:
    """``text`` (default: the effect's name) in the effect's colour, escaped."""
    shown = escape(effect.value if text is None else text)
    return (f"<span class='toolkit-effect' data-effect='{effect.value}' "
            f"style='color:{PALETTE[effect]}'>{shown}</span>")


def label_html(label: str) -> str:
    """A table label (``allow``, ``implicit``, ``group``, ...) coloured by its effect."""
    return effect_html(effect_of_label(label), label)


def legend_html() -> str:
    """The legend shared by every view: each effect's colour and name."""
    items = " ".join(f"<span style='color:{PALETTE[e]}'>&#9632;</span>&nbsp;{escape(e.value)}"
                     for e in Effect)
    return f"<p class='toolkit-legend'><small>{items}</small></p>"


def decision_html(d: Decision) -> str:
    """A decision as a small table: verdict, deciding rule, then the trace (and, for a
    compound command, one row per part first)."""
    rows = "".join(
        f"<tr><td>{escape(s.name)}</td><td>{escape(s.outcome)}</td><td>{escape(s.detail)}</td>"
        f"<td>{escape(s.rule.where) if s.rule.file else ''}</td></tr>" for s in d.trace)
    rule = escape(d.rule.where) if d.rule.file else "no rule"
    if d.rule.spec is not None or (d.question == "call" and d.rule.pattern):
        rule = f"<code>{escape(d.rule.text)}</code> {rule}"
    notes = "".join(f"<p><small>warning: {escape(w)}</small></p>" for w in d.warnings)
    if d.question == "call":
        context = f"mode {escape(d.mode)}, cwd {escape(d.cwd)}"
    else:
        context = (f"preset {escape(d.preset)}, groups {escape(groups_label(d.groups))}, "
                   f"state {escape(d.state)}, depth {d.depth}")
    return (
        f"<div class='toolkit-decision'><p><b>{effect_html(d.effect, d.effect.upper())}</b> "
        f"<code>{escape(d.agent)}</code> &rarr; <code>{escape(d.tool)}</code>: "
        f"{escape(d.message)} <small>(step <i>{escape(d.reason)}</i>; {rule})</small></p>"
        f"<p><small>{context}</small></p>{notes}{_parts_html(d)}{_near_html(d)}"
        "<table><thead><tr><th>step</th><th>outcome</th><th>detail</th><th>rule</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></div>")


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


def _near_html(d: Decision) -> str:
    """For a call not allowed: the allow rules that came closest, and why each did not."""
    misses = d.near_misses if d.question == "call" else ()
    if not misses:
        return ""
    items = "".join(
        f"<li><code>{escape(m.rule.text)}</code>"
        f"{' <small>' + escape(m.rule.where) + '</small>' if m.rule.file else ''}"
        f"{f' (part {m.part})' if m.part is not None else ''}: {escape(m.why)}</li>"
        for m in misses)
    return f"<p class='toolkit-near'><b>near misses</b></p><ul>{items}</ul>"


def _parts_html(d: Decision) -> str:
    """A compound command's parts: each part's effect, reason and deciding rule."""
    if not d.parts:
        return ""
    rows = "".join(
        f"<tr><td>{i}</td><td><code>{escape(p.tool)}</code></td>"
        f"<td>{effect_html(p.effect)}</td><td>{escape(p.reason)}</td>"
        f"<td>{escape(p.rule.text) if p.rule.pattern else ''}</td>"
        f"<td>{escape(p.rule.where) if p.rule.file else ''}</td></tr>"
        for i, p in enumerate(d.parts, 1))
    return ("<table class='toolkit-parts'><thead><tr><th>part</th><th>command</th>"
            "<th>effect</th><th>step</th><th>rule</th><th>where</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def resolution_html(r: ResolutionView) -> str:
    """A resolution as a table of every pool tool, its effect and deciding step."""
    body = "".join(
        f"<tr><td><code>{escape(tool)}</code></td><td>{effect_html(v.effect)}</td>"
        f"<td>{escape(v.reason)}</td></tr>" for tool, v in sorted(r.verdicts.items()))
    return (
        f"<div class='toolkit-resolution'><p><b>{escape(r.agent)}</b> "
        f"<small>preset {escape(r.preset)}, groups {escape(groups_label(r.groups))}, state "
        f"{escape(r.state)}, depth {r.depth}</small>: {len(r.allowed)} tool(s) allowed</p>"
        f"{legend_html()}"
        "<table><thead><tr><th>tool</th><th>effect</th><th>step</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div>")
