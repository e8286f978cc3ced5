"""Static HTML for decisions and resolutions (shown in notebooks, GitHub and nbviewer).

Tool names and descriptions may come from untrusted servers: everything is
escaped with :func:`html.escape`, nothing is ever inserted raw.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .models import groups_label

if TYPE_CHECKING:
    from .explain import Decision
    from .resolve import Resolution

_COLORS = {"allow": "#1a7f37", "ask": "#9a6700", "explicit-deny": "#cf222e",
           "implicit-deny": "#6e7781"}


def decision_html(d: Decision) -> str:
    """A decision as a small table: verdict, deciding rule, then the trace."""
    color = _COLORS[d.effect]
    rows = "".join(
        f"<tr><td>{escape(s.name)}</td><td>{escape(s.outcome)}</td><td>{escape(s.detail)}</td>"
        f"<td>{escape(s.rule.where) if s.rule.file else ''}</td></tr>" for s in d.trace)
    rule = escape(d.rule.where) if d.rule.file else "no rule"
    return (
        f"<div class='toolkit-decision'><p><b style='color:{color}'>{escape(d.effect.upper())}"
        f"</b> <code>{escape(d.agent)}</code> &rarr; <code>{escape(d.tool)}</code>: "
        f"{escape(d.message)} <small>(step <i>{escape(d.reason)}</i>; {rule})</small></p>"
        f"<p><small>preset {escape(d.preset)}, groups {escape(groups_label(d.groups))}, "
        f"state {escape(d.state)}, depth {d.depth}</small></p>"
        "<table><thead><tr><th>step</th><th>outcome</th><th>detail</th><th>rule</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></div>")


def resolution_html(r: Resolution) -> str:
    """A resolution as a table of every pool tool, its effect and deciding step."""
    body = "".join(
        f"<tr><td><code>{escape(tool)}</code></td><td style='color:{_COLORS[effect]}'>"
        f"{escape(effect)}</td><td>{escape(step)}</td></tr>" for tool, effect, step in r._rows())
    return (
        f"<div class='toolkit-resolution'><p><b>{escape(r.agent)}</b> "
        f"<small>preset {escape(r.preset)}, groups {escape(groups_label(r.groups))}, state "
        f"{escape(r.state)}, depth {r.depth}</small>: {len(r.allowed)} tool(s) allowed</p>"
        "<table><thead><tr><th>tool</th><th>effect</th><th>step</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div>")
